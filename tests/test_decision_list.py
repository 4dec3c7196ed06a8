"""Decision lists (xdt.ir._decision_list): hand-made lists whose AXps and CXps are worked out
by hand in the comments (multi-class, binary / categorical / ordinal features, a rule of the
default class, an always-true rule, no rules), the shipped example encodings/examples/
risk-list.json, the model's own API (predict, firing, from_rule_sets, text, constraints),
the JSON round trip and schema, every bad input, and the engines and notions that must
refuse a decision list. Random lists: tests/test_decision_list_properties.py."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import numpy as np
import pytest

import xdt
from xdt.errors import (
    ConstraintViolationError,
    EngineNotAvailableError,
    InvalidModelError,
    ModelFormatError,
    ParameterError,
    UnknownNodeFeatureError,
    ValueOutsideDomainError,
)
from xdt.explain.checks import _verify as verify
from xdt.explain.queries._term_order import decision_list_weak_axp
from xdt.ir import Condition, DecisionList, Feature, load_model, model_to_dict, save_model
from xdt.ir._constraints import Forbidden
from xdt.ir._decision_list import ListRule

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "encodings" / "examples" / "risk-list.json"
SCHEMA = json.loads((ROOT / "encodings" / "xdt-model-1.schema.json").read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def c(feature, *values, above=None, upto=None) -> Condition:
    return Condition(feature, tuple(values) if values else None, above, upto)


def names(explanations) -> set[frozenset[str]]:
    return {frozenset(e.features) for e in explanations}


def sets(*groups: str) -> set[frozenset[str]]:
    """``sets("a b", "c")`` is ``{{a, b}, {c}}``."""
    return {frozenset(g.split()) for g in groups}


FEATURES = [Feature("age", "ordinal"), Feature("smoker", "binary"),
            Feature("sport", "categorical", ("climbing", "none", "running"))]

# The list of encodings/examples/risk-list.json. Cells: age <= 20 | 20 < age <= 40 | 40 < age;
# smoker 0 | 1; sport climbing | none | running (18 points). Rule 2 is of the default class
# and not redundant: without it (age > 40, smoker 0, none) would reach rule 3 (high).
RISK = DecisionList(FEATURES, ["low", "mid", "high"],
                    [([c("age", upto=20), c("smoker", 1)], "high"),       # rule 0
                     ([c("sport", "climbing")], "mid"),                   # rule 1
                     ([c("sport", "none"), c("smoker", 0)], "low"),       # rule 2
                     ([c("age", above=40)], "high")],                     # rule 3
                    default="low", target="risk")

# (instance, firing rule, prediction, AXps, CXps), each worked out by hand over the 18 points:
RISK_CASES = [
    # rule 2 fires. {smoker, sport} = (0, none) keeps rules 0 (smoker 1) and 1 (climbing)
    # false and rule 2 true at every age. {smoker}: climbing -> mid; {sport}: a smoker of 50
    # reaches rule 3 -> high; {age, smoker}: climbing -> mid; {age, sport}: smoker 1 -> rule
    # 3 -> high. So one AXp. CXps: freeing smoker (-> rule 3, high) or sport (climbing -> mid)
    # alone changes the class; freeing age alone cannot (rule 2 holds at every age).
    ({"age": 50, "smoker": 0, "sport": "none"}, 2, "low",
     sets("smoker sport"), sets("smoker", "sport")),
    # the default. {age, sport} = ((20, 40], running) keeps every rule false whatever smoker
    # is. {age}: climbing -> mid; {sport}: age 10 & smoker -> rule 0 (high); {smoker}: either
    # of those; {age, smoker}: climbing -> mid; {smoker, sport}: age 10 -> high. CXps: age
    # (10 -> high), sport (climbing -> mid); smoker alone: (30, 0, running) is still the
    # default (rule 2 needs sport none).
    ({"age": 30, "smoker": 1, "sport": "running"}, -1, "low",
     sets("age sport"), sets("age", "sport")),
    # rule 0 fires and holds whatever sport is: {age, smoker}. {age}: smoker 0 & climbing ->
    # mid; {smoker}: age 30 & climbing -> mid; {age, sport}/{smoker, sport} = with sport
    # climbing the other one moves to mid. CXps: age, smoker; not sport (rule 0 decides).
    ({"age": 10, "smoker": 1, "sport": "climbing"}, 0, "high",
     sets("age smoker"), sets("age", "smoker")),
    # rule 3 fires (rule 2 needs smoker 0). Every pair fails: {age, smoker}: climbing -> mid;
    # {age, sport}: smoker 0 -> rule 2 -> low; {smoker, sport}: age 30 -> default low. So
    # the AXp is all three, and each feature alone is a CXp.
    ({"age": 50, "smoker": 1, "sport": "none"}, 3, "high",
     sets("age smoker sport"), sets("age", "smoker", "sport")),
    # rule 2 fires. {smoker, sport} as in the first case; {age, sport} = ((20, 40], none):
    # smoker 0 -> rule 2, smoker 1 -> default: low either way. {sport} alone: age 10 &
    # smoker -> high; {age}, {smoker}, {age, smoker}: climbing -> mid. CXps: sport
    # (climbing -> mid); {age, smoker} (age 10 & smoker 1 -> rule 0, high) while freeing
    # age alone (smoker 0, none: rule 2) or smoker alone (age 30: rule 2 or default) keeps
    # low.
    ({"age": 30, "smoker": 0, "sport": "none"}, 2, "low",
     sets("smoker sport", "age sport"), sets("sport", "age smoker")),
]


# ---------------------------------------------------------------------- the model
def test_predict_firing_and_the_text():
    xs = [case[0] for case in RISK_CASES]
    assert RISK.predict(xs).tolist() == [case[2] for case in RISK_CASES]
    assert RISK.firing(xs).tolist() == [case[1] for case in RISK_CASES]
    assert RISK.predict_index(xs).tolist() == [0, 0, 2, 2, 0]
    # on the bounds: age = 20 is in the cell age <= 20, age = 40 below 40 < age
    edge = [{"age": 20, "smoker": 1, "sport": "none"}, {"age": 40, "smoker": 1, "sport": "none"},
            {"age": 40.5, "smoker": 1, "sport": "none"}]
    assert RISK.predict(edge).tolist() == ["high", "low", "high"]
    assert RISK.firing(edge).tolist() == [0, -1, 3]
    assert RISK.predict(np.array([[50, 0, "climbing"]], dtype=object)).tolist() == ["mid"]
    assert str(RISK) == RISK.to_text() == (
        "IF age <= 20 AND smoker = 1 THEN risk = high\n"
        "ELSE IF sport = climbing THEN risk = mid\n"
        "ELSE IF sport = none AND smoker = 0 THEN risk = low\n"
        "ELSE IF 40 < age THEN risk = high\n"
        "ELSE risk = low")
    assert repr(RISK) == ("DecisionList(features=3, classes=['low', 'mid', 'high'], rules=4, "
                          "default='low')")
    assert RISK.kind == "decision-list" and RISK.n_rules == 4 and RISK.k == 2
    assert RISK.default == "low" and RISK.default_class == 0
    assert RISK.rule_labels == ("high", "mid", "low", "high")
    assert RISK.rule_class.tolist() == [2, 1, 0, 2]
    assert [list(cl.thresholds) for cl in RISK.cells[:1]] == [[20.0, 40.0]]
    assert [cl.n_cells for cl in RISK.cells] == [3, 2, 3]
    assert RISK.rules()[2] == ListRule((c("sport", "none"), c("smoker", 0)), "low")
    assert str(RISK.rules()[2]) == "IF sport = none AND smoker = 0 THEN class = low"


def test_integer_classes_no_target_and_list_rules():
    bits = [Feature("a", "binary"), Feature("b", "binary")]
    dl = DecisionList(bits, [0, 1, 2], [ListRule((c("a", 1),), 2), ([c("b", 1)], 1)], 0)
    assert dl.predict([[1, 1], [0, 1], [0, 0]]).tolist() == [2, 1, 0]
    assert dl.predict([[1, 1]]).dtype == np.int64
    assert dl.to_text() == "IF a = 1 THEN class = 2\nELSE IF b = 1 THEN class = 1\nELSE class = 0"


def test_several_conditions_on_one_feature_intersect():
    # "10 < age AND age <= 30 AND sport in {none, running} AND sport in {running, climbing}"
    # is "10 < age <= 30 AND sport = running": same predictions on every cell, same
    # explanations (at (20, 0, running): rule 0 fires, {age, sport} is its only AXp)
    split = DecisionList(FEATURES, ["low", "mid", "high"],
                         [([c("age", above=10), c("age", upto=30), c("sport", "none", "running"),
                            c("sport", "running", "climbing")], "high"),
                          ([c("smoker", 1)], "mid")], "low")
    merged = DecisionList(FEATURES, ["low", "mid", "high"],
                          [([c("age", above=10, upto=30), c("sport", "running")], "high"),
                           ([c("smoker", 1)], "mid")], "low")
    assert split.k == 4 and merged.k == 2
    grid = [{"age": a, "smoker": s, "sport": p} for a in (5, 10, 20, 30, 31)
            for s in (0, 1) for p in ("climbing", "none", "running")]
    assert split.predict(grid).tolist() == merged.predict(grid).tolist()
    assert split.predict([{"age": 20, "smoker": 0, "sport": "running"},
                          {"age": 20, "smoker": 0, "sport": "none"}]).tolist() == ["high", "low"]
    x = {"age": 20, "smoker": 0, "sport": "running"}
    with xdt.Explainer(split) as ex, xdt.Explainer(merged) as em:
        assert names(ex.all_axps(x)) == names(em.all_axps(x)) == sets("age sport")
        assert names(ex.all_cxps(x)) == names(em.all_cxps(x)) == sets("age", "sport")


def test_an_always_true_rule_hides_the_rules_after_it():
    # "IF b = 1 THEN yes ELSE IF TRUE THEN no ELSE IF colour = red THEN maybe ELSE maybe":
    # rule 2 and the default are never reached, so the model is "yes iff b = 1" and colour
    # never matters: the only AXp and the only CXp of every instance is {b}
    feats = [Feature("b", "binary"), Feature("colour", "categorical", ("red", "blue"))]
    dl = DecisionList(feats, ["yes", "no", "maybe"],
                      [([c("b", 1)], "yes"), ([], "no"), ([c("colour", "red")], "maybe")],
                      "maybe")
    assert dl.to_text().splitlines()[1] == "ELSE IF TRUE THEN class = no"
    rows = [{"b": b, "colour": col} for b in (0, 1) for col in ("red", "blue")]
    assert dl.predict(rows).tolist() == ["no", "no", "yes", "yes"]
    assert dl.firing(rows).tolist() == [1, 1, 0, 0]
    with xdt.Explainer(dl) as ex:
        for x in rows:
            assert names(ex.all_axps(x, verify=True)) == sets("b")
            assert names(ex.all_cxps(x, verify=True)) == sets("b")
            assert ex.cxp(x).counterexample_class == ("no" if x["b"] else "yes")
    assert verify.reachable_classes(dl, [0b11, 0b11]) == {"yes", "no"}  # never "maybe"
    assert verify.sat_reachable_classes(dl, [0b11, 0b11]) == {"yes", "no"}
    # an always-true first rule: a constant model
    const = DecisionList(feats, ["yes", "no"], [([], "no"), ([c("b", 1)], "yes")], "yes")
    with xdt.Explainer(const) as ex:
        x = {"b": 1, "colour": "red"}
        assert ex.predict(x) == "no"
        assert ex.axp(x, verify=True).features == ()
        assert ex.cxp(x) is None and list(ex.all_cxps(x)) == []
        assert names(ex.all_axps(x)) == {frozenset()}
        assert ex.smallest_cxp(x) is None


def test_a_list_with_no_rules_is_its_default():
    dl = DecisionList(FEATURES, ["low", "mid", "high"], [], "mid")
    x = {"age": 3, "smoker": 1, "sport": "none"}
    assert dl.n_rules == 0 and dl.k == 0
    assert str(dl) == "class = mid"
    assert [cl.n_cells for cl in dl.cells] == [1, 2, 3]  # no bound on age: one cell
    assert dl.predict([x, {"age": -1e9, "smoker": 0, "sport": "running"}]).tolist() == \
        ["mid", "mid"]
    assert dl.firing([x]).tolist() == [-1]
    with xdt.Explainer(dl) as ex:
        assert ex.axp(x, verify=True).features == ()
        assert ex.cxp(x) is None and list(ex.all_cxps(x)) == []
        assert names(ex.all_axps(x)) == {frozenset()}
        assert ex.counterexample(x, []) is None
        assert ex.relevant_features(x) == () and ex.necessary_features(x) == ()
    assert verify.brute_force(dl, x).axps == {frozenset()}
    assert verify.counterexample_in_box(dl, {}, 1) is None
    assert verify.counterexample_in_box(dl, {}, 0) is not None
    assert verify.sat_reachable_classes(dl, {}) == {"mid"}


# ---------------------------------------------------------------------- explanations
@pytest.mark.parametrize(("x", "rule", "label", "axps", "cxps"), RISK_CASES)
def test_hand_worked_explanations(x, rule, label, axps, cxps):
    bf = verify.brute_force(RISK, x)
    assert (bf.prediction, set(bf.axps), set(bf.cxps)) == (label, axps, cxps)
    with xdt.Explainer(RISK) as ex:
        assert ex.engine == "sat" and ex.predict(x) == label
        assert names(ex.all_axps(x, verify=True)) == axps
        assert names(ex.all_cxps(x, verify=True)) == cxps
        for order in (None, "features", "reverse"):
            assert frozenset(ex.axp(x, order=order, verify=True).features) in axps
            assert frozenset(ex.cxp(x, order=order, verify=True).features) in cxps
        assert len(ex.smallest_axp(x, verify=True)) == min(map(len, axps))
        assert len(ex.smallest_cxp(x, verify=True)) == min(map(len, cxps))
        assert set(ex.relevant_features(x)) == set().union(*axps)
        assert set(ex.necessary_features(x)) == frozenset.intersection(*axps)
        for a in axps:
            assert ex.is_axp(x, a) and ex.is_weak_axp(x, a)
            assert verify.check_axp(RISK, x, a).is_axp
            assert verify.check_axp_sat(RISK, x, a).is_axp
        for t in cxps:
            assert ex.is_cxp(x, t)
            assert not ex.is_weak_axp(x, set(RISK.features.names) - t)
    # the weak AXp read off the rules: the firing rule's features, then features that keep
    # the earlier rules false; the default order keeps the AXp inside it
    weak = {RISK.features.names[f] for f in decision_list_weak_axp(RISK, RISK.encode([x])[0])}
    assert bf.is_weak_axp(weak)
    with xdt.Explainer(RISK) as ex:
        assert set(ex.axp(x).features) <= weak


def test_weak_axp_read_off_the_rules():
    # rule 2 fires at (50, 0, none): its features {sport, smoker}, and rules 0 and 1 are
    # already false there (smoker 0, sport none): nothing more
    assert decision_list_weak_axp(RISK, RISK.encode([RISK_CASES[0][0]])[0]) == [2, 1]
    # the default at (30, 1, running): rule 0 is false only by age, rules 1 and 2 only by
    # sport, rule 3 only by age: a minimum hitting set is {age, sport}
    assert sorted(decision_list_weak_axp(RISK, RISK.encode([RISK_CASES[1][0]])[0])) == [0, 2]
    # rule 3 at (50, 1, none): rule 1 (false by sport) and rule 2 (false by smoker), then
    # its own feature age, last (rule 0 is false by age, already held)
    assert decision_list_weak_axp(RISK, RISK.encode([RISK_CASES[3][0]])[0]) == [1, 2, 0]


def test_inflated_axp_and_rules():
    x = RISK_CASES[1][0]  # (30, 1, running): the default
    with xdt.Explainer(RISK) as ex:
        plain = ex.axp(x)
        assert plain.rule == "IF 20 < age <= 40 AND sport = running THEN risk = low"
        # sport widens to {none, running}: (30, 0, none) is rule 2 and (30, 1, none) the
        # default, both low; age cannot widen (age <= 20 with smoker 1: rule 0; 40 < age:
        # rule 3)
        inflated = ex.axp(x, inflate=True, verify=True)
        assert inflated.inflated and inflated.cells == (0b010, 0b110)
        assert inflated.rule == "IF 20 < age <= 40 AND sport != climbing THEN risk = low"
        for age in (25, 40):
            for smoker in (0, 1):
                for sport in ("none", "running"):
                    assert RISK.predict([[age, smoker, sport]])[0] == "low"


def test_counterexamples_and_certificates_are_points_of_another_class():
    x = RISK_CASES[4][0]  # (30, 0, none): rule 2, low
    with xdt.Explainer(RISK) as ex:
        point = ex.counterexample(x, ["age", "smoker"])  # only climbing moves it: mid
        assert point["age"] == 30 and point["smoker"] == 0 and point["sport"] == "climbing"
        assert RISK.predict([point])[0] == "mid"
        assert ex.counterexample(x, ["smoker", "sport"]) is None
        cxp = ex.cxp(x, order=["sport"], verify=True)  # sport tried first, kept out: {age, smoker}
        assert cxp.features == ("age", "smoker")
        assert cxp.counterexample_class == "high" and cxp.counterexample["sport"] == "none"
        assert RISK.predict([cxp.counterexample])[0] == "high"
        axp = ex.axp(x, order=["age"], verify=True)
        assert axp.features == ("smoker", "sport")
        for name, w in axp.certificate.witnesses.items():  # free that feature alone
            assert RISK.predict([w.point])[0] == w.label != "low"
            assert all(w.point[n] == x[n] for n in axp.features if n != name)


def test_weights_exclude_and_immutable_on_the_example():
    x = RISK_CASES[4][0]  # AXps {smoker, sport}, {age, sport}; CXps {sport}, {age, smoker}
    with xdt.Explainer(RISK) as ex:
        e = ex.smallest_axp(x, weights={"smoker": 5, "age": 2}, verify=True)
        assert e.features == ("age", "sport") and e.cost == 3
        e = ex.smallest_axp(x, weights={"age": 5}, verify=True)
        assert e.features == ("smoker", "sport") and e.cost == 2
        e = ex.smallest_cxp(x, weights={"sport": 3}, verify=True)
        assert e.features == ("age", "smoker") and e.cost == 2
        assert [f.features for f in ex.all_axps(x, weights={"smoker": 5})] == [
            ("age", "sport"), ("smoker", "sport")]
        assert names(ex.all_axps(x, exclude=["age"])) == sets("smoker sport")
        assert names(ex.all_axps(x, exclude=["sport"])) == set()
        with pytest.raises(xdt.errors.NoExplanationError, match="avoids sport"):
            ex.axp(x, exclude=["sport"])
        assert names(ex.all_cxps(x, immutable=["sport"])) == sets("age smoker")
        assert names(ex.all_cxps(x, immutable=["age"])) == sets("sport")
        limited = ex.all_axps(x, max_count=1)
        assert len(limited) == 1 and not limited.complete and limited.stopped_by == "max_count"


def test_from_rule_sets_orders_the_classes():
    # RIPPER's multi-class mode: the rules of the rarer class first. With mid's rules before
    # high's, (10, 1, climbing) is mid; the other order makes it high.
    sets_ = {"high": [[c("age", upto=20), c("smoker", 1)], [c("age", above=40)]],
             "mid": [[c("sport", "climbing")]]}
    mid_first = DecisionList.from_rule_sets(FEATURES, ["low", "mid", "high"], sets_, "low",
                                            order=["mid", "high"], target="risk")
    assert mid_first.rule_labels == ("mid", "high", "high")
    assert mid_first.to_text().splitlines()[0] == "IF sport = climbing THEN risk = mid"
    high_first = DecisionList.from_rule_sets(FEATURES, ["low", "mid", "high"], sets_, "low")
    assert high_first.rule_labels == ("high", "high", "mid")  # the mapping's order
    x = {"age": 10, "smoker": 1, "sport": "climbing"}
    assert mid_first.predict([x])[0] == "mid" and high_first.predict([x])[0] == "high"
    with xdt.Explainer(mid_first) as ex:  # climbing decides alone
        assert names(ex.all_axps(x)) == sets("sport")
    with pytest.raises(InvalidModelError, match=r"must list each class of the rule sets"):
        DecisionList.from_rule_sets(FEATURES, ["low", "mid", "high"], sets_, "low",
                                    order=["mid"])
    with pytest.raises(InvalidModelError, match=r"must list each class of the rule sets"):
        DecisionList.from_rule_sets(FEATURES, ["low", "mid", "high"], sets_, "low",
                                    order=["mid", "high", "high"])
    with pytest.raises(InvalidModelError, match=r"class 'top' is not one of the model's"):
        DecisionList.from_rule_sets(FEATURES, ["low", "mid", "high"],
                                    {"top": [[c("smoker", 1)]]}, "low")


# ---------------------------------------------------------------------- constraints
def test_background_constraints_shrink_the_explanations():
    # No climbing at all. Then high <=> (age <= 20 and smoker 1) or (40 < age and not
    # (none and smoker 0)), and mid never happens. At (30, 0, none) (rule 2, low):
    # {age} = (20, 40] alone now entails low (high needs another age cell); {smoker, sport}
    # = (0, none) still does; {smoker}: age 50 & running -> high; {sport}: age 10 & smoker
    # -> high. AXps {age}, {smoker, sport} (without the constraint: {smoker, sport},
    # {age, sport}); CXps, their minimal hitting sets, {age, smoker} and {age, sport}.
    no_climbing = RISK.with_constraints(["NOT (sport = climbing)"])
    assert isinstance(no_climbing, DecisionList) and no_climbing.rules() == RISK.rules()
    assert str(no_climbing.constraints[0]) == "NOT (sport = climbing)"
    assert RISK.with_constraints(None).constraints is None
    x = RISK_CASES[4][0]
    with xdt.Explainer(no_climbing) as ex:
        assert ex.engine == "sat"
        assert names(ex.all_axps(x, verify=True)) == sets("age", "smoker sport")
        assert names(ex.all_cxps(x, verify=True)) == sets("age smoker", "age sport")
        assert ex.smallest_axp(x, verify=True).features == ("age",)
    assert set(verify.brute_force(no_climbing, x).axps) == sets("age", "smoker sport")
    with pytest.raises(ConstraintViolationError), xdt.Explainer(no_climbing) as ex:
        ex.axp(RISK_CASES[2][0])  # a climber
    # No climbing smokers. At (30, 1, running) (the default, low; without the constraint the
    # only AXp is {age, sport}, since climbing gives mid): {age, smoker} = ((20, 40], 1) now
    # entails low too (climbing is excluded, none and running reach the default); {age}
    # alone does not (smoker 0 & climbing -> mid). CXps: {age} (age 10 -> rule 0) and
    # {smoker, sport} (a climbing non-smoker -> mid).
    forbidden = RISK.with_constraints([Forbidden((c("smoker", 1), c("sport", "climbing")))])
    x = RISK_CASES[1][0]
    with xdt.Explainer(forbidden) as ex:
        assert names(ex.all_axps(x, verify=True)) == sets("age sport", "age smoker")
        assert names(ex.all_cxps(x, verify=True)) == sets("age", "smoker sport")
        for e in ex.all_cxps(x):
            p = e.counterexample
            assert not (p["smoker"] == 1 and p["sport"] == "climbing")
            assert RISK.predict([p])[0] != "low"
    # JSON keeps them
    doc = model_to_dict(no_climbing)
    assert doc["constraints"] == [{"forbidden": [{"feature": "sport", "in": ["climbing"]}]}]
    VALIDATOR.validate(doc)
    assert load_model(doc).constraints == no_climbing.constraints


# ---------------------------------------------------------------------- JSON
def test_the_shipped_example_is_the_list_and_round_trips(tmp_path):
    text = EXAMPLE.read_text(encoding="utf-8")
    doc = json.loads(text)
    VALIDATOR.validate(doc)
    model = load_model(EXAMPLE)
    assert isinstance(model, DecisionList) and model.target == "risk"
    assert model.rules() == RISK.rules() and model.default == RISK.default
    assert json.dumps(model_to_dict(model), indent=1) + "\n" == text
    assert model_to_dict(RISK) == doc
    save_model(model, tmp_path / "again.json")
    assert load_model(tmp_path / "again.json").rules() == RISK.rules()
    grid = [{"age": a, "smoker": s, "sport": p} for a in (5, 20, 30, 40, 41)
            for s in (0, 1) for p in ("climbing", "none", "running")]
    assert model.predict(grid).tolist() == RISK.predict(grid).tolist()
    # the README's JSON block is this document
    readme = (ROOT / "encodings" / "README.md").read_text(encoding="utf-8")
    (block,) = [b.split("```")[0] for b in readme.split("```json\n")[1:]
                if '"decision-list"' in b.split("```")[0]]
    assert json.loads(block) == doc


@pytest.mark.parametrize("classes", [["low", "mid", "high"], [0, 1, 2], [7, "x", -3]])
def test_round_trip_of_every_form(classes):
    a, b, _ = classes
    dl = DecisionList(FEATURES, classes,
                      [([c("age", above=1.5, upto=2.25), c("sport", "none", "running")], b),
                       ([], a)], b, target=None)
    doc = model_to_dict(dl)
    assert doc["rules"][0] == {"if": [{"feature": "age", "gt": 1.5, "le": 2.25},
                                      {"feature": "sport", "in": ["none", "running"]}],
                               "then": b}
    assert doc["rules"][1] == {"if": [], "then": a} and doc["default"] == b
    assert "target" not in doc
    VALIDATOR.validate(doc)
    back = load_model(json.loads(json.dumps(doc)))
    assert back.rules() == dl.rules() and back.classes == dl.classes
    assert json.dumps(model_to_dict(back)) == json.dumps(doc)


def base_doc() -> dict:
    return json.loads(EXAMPLE.read_text(encoding="utf-8"))


def change(edit):
    def make():
        d = base_doc()
        edit(d)
        return d
    return make


def rule0(d) -> dict:
    return d["rules"][0]


BAD_DOCUMENTS = [
    # (id, document, error class, message, the schema rejects it too)
    ("no-rules", change(lambda d: d.pop("rules")), ModelFormatError,
     "the decision-list model has no 'rules' field", True),
    ("no-default", change(lambda d: d.pop("default")), ModelFormatError,
     "the decision-list model has no 'default' field", True),
    ("rules-not-list", change(lambda d: d.update(rules={})), ModelFormatError,
     "rules must be a JSON list, got {}", True),
    ("extra-field", change(lambda d: d.update(terms=[])), ModelFormatError,
     "unknown field(s) ['terms'] in a decision-list model", True),
    ("a-root", change(lambda d: d.update(root={"class": "low"})), ModelFormatError,
     "unknown field(s) ['root'] in a decision-list model", True),
    ("rule-a-list", change(lambda d: d["rules"].__setitem__(0, [[], "low"])),
     InvalidModelError, 'rules[0]: a rule of a decision list is {"if": [<condition>, ...], '
     '"then": class}; got [[], \'low\']', True),
    ("rule-no-then", change(lambda d: rule0(d).pop("then")), InvalidModelError,
     "rules[0]: a rule of a decision list is {\"if\": [<condition>, ...], \"then\": class}; "
     "no 'then'", True),
    ("rule-no-if", change(lambda d: rule0(d).pop("if")), InvalidModelError,
     "rules[0]: a rule of a decision list is {\"if\": [<condition>, ...], \"then\": class}; "
     "no 'if'", True),
    ("rule-extra-field", change(lambda d: rule0(d).update(weight=2)), InvalidModelError,
     "rules[0]: a rule of a decision list is {\"if\": [<condition>, ...], \"then\": class}; "
     "unknown field(s) ['weight']", True),
    ("if-not-list", change(lambda d: rule0(d).update(**{"if": {"feature": "smoker",
                                                                "in": [1]}})),
     ModelFormatError, "rules[0].if must be a JSON list", True),
    ("condition-values", change(lambda d: rule0(d)["if"][1].update(
        values=rule0(d)["if"][1].pop("in"))), InvalidModelError,
     "rules[0].if[1]: unrecognised condition fields ['values']", True),
    ("then-not-a-class", change(lambda d: rule0(d).update(then="severe")), InvalidModelError,
     "rule 0: class 'severe' is not one of the model's classes ['low', 'mid', 'high']", False),
    ("then-a-list", change(lambda d: rule0(d).update(then=["high"])), InvalidModelError,
     "rule 0: class ['high'] is not one of the model's classes", True),
    ("default-not-a-class", change(lambda d: d.update(default="none")), InvalidModelError,
     "default: class 'none' is not one of the model's classes", False),
    ("default-null", change(lambda d: d.update(default=None)), InvalidModelError,
     "default: class None is not one of the model's classes", True),
    ("unknown-feature", change(lambda d: rule0(d)["if"][0].update(feature="weight")),
     UnknownNodeFeatureError, "rule 0: a condition names unknown feature 'weight'; the "
     "model's features are: age, smoker, sport", False),
    ("value-outside-domain", change(lambda d: d["rules"][1]["if"][0].update(
        **{"in": ["golf"]})), ValueOutsideDomainError,
     "rule 1: the condition on 'sport' names 'golf', which is not in the domain "
     "['climbing', 'none', 'running']", False),
    ("binary-value-2", change(lambda d: rule0(d)["if"][1].update(**{"in": [2]})),
     ValueOutsideDomainError, "rule 0: the condition on 'smoker' names 2", False),
    ("inconsistent-rule", change(lambda d: d["rules"][2]["if"].append(
        {"feature": "sport", "in": ["climbing"]})), InvalidModelError,
     "rule 2: the rule is inconsistent: its conditions on sport exclude each other, so no "
     "point satisfies it; drop the rule or fix a condition", False),
    ("inconsistent-interval", change(lambda d: d["rules"][3]["if"].append(
        {"feature": "age", "le": 30})), InvalidModelError,
     "rule 3: the rule is inconsistent: its conditions on age exclude each other", False),
    ("bounds-on-binary", change(lambda d: rule0(d)["if"][1].update(
        {"le": 0.5, "in": None}) or rule0(d)["if"][1].pop("in")), InvalidModelError,
     "rule 0: binary feature 'smoker' is tested by values ('in'), not by bounds", False),
    ("values-on-ordinal", change(lambda d: rule0(d)["if"].__setitem__(
        0, {"feature": "age", "in": [20]})), InvalidModelError,
     "rule 0: ordinal feature 'age' is tested by bounds ('gt' / 'le'), not by values", False),
    ("empty-interval", change(lambda d: d["rules"][3]["if"].__setitem__(
        0, {"feature": "age", "gt": 40, "le": 40})), InvalidModelError,
     "rule 3: the condition 40 < age <= 40 is empty", False),
    ("no-features", change(lambda d: d.update(features=[], rules=[]) or None),
     InvalidModelError, "a decision list needs at least one feature", True),
]


@pytest.mark.parametrize(("make", "error", "message", "schema_rejects"),
                         [b[1:] for b in BAD_DOCUMENTS], ids=[b[0] for b in BAD_DOCUMENTS])
def test_bad_documents(make, error, message, schema_rejects):
    doc = make()
    with pytest.raises(error) as e:
        load_model(doc)
    assert message in str(e.value)
    assert isinstance(e.value, xdt.errors.ModelError)
    # the schema checks the structure; the rules that need the whole model only the loader
    assert VALIDATOR.is_valid(doc) is not schema_rejects


def test_a_boolean_class_is_not_the_int_class():
    # True == 1 in Python, not in JSON: as for a tree's leaf, "then": true is no class 1
    doc = {"format": "xdt-model/1", "kind": "decision-list",
           "features": [{"name": "b", "kind": "binary"}], "classes": [0, 1],
           "rules": [{"if": [{"feature": "b", "in": [1]}], "then": True}], "default": 0}
    with pytest.raises(InvalidModelError, match=r"^rule 0: class True is not one of"):
        load_model(doc)
    doc["rules"][0]["then"], doc["default"] = 1, False
    with pytest.raises(InvalidModelError, match=r"^default: class False is not one of"):
        load_model(doc)
    assert not VALIDATOR.is_valid(doc)


def test_schema_describes_the_decision_list_kind():
    assert "decision-list" in SCHEMA["properties"]["kind"]["enum"]
    assert "decision list" in SCHEMA["description"]
    defs = SCHEMA["$defs"]["decisionListModel"]
    assert defs["properties"]["kind"] == {"const": "decision-list"}
    assert {"$ref": "#/$defs/decisionListModel"} in SCHEMA["oneOf"]
    doc = base_doc()
    VALIDATOR.validate(doc)
    doc["rules"][1]["if"] = []  # an always-true rule is fine
    VALIDATOR.validate(doc)
    doc["rules"] = []  # so is a list with no rules
    VALIDATOR.validate(doc)
    load_model(doc)
    bad = base_doc()
    bad["kind"] = "dnf"  # a DNF needs terms, not rules
    assert not VALIDATOR.is_valid(bad)


# ---------------------------------------------------------------------- bad Python input
@pytest.mark.parametrize(("rules", "default", "error", "message"), [
    ([([c("smoker", 1)], "severe")], "low", InvalidModelError,
     "rule 0: class 'severe' is not one of the model's classes ['low', 'mid', 'high']"),
    ([], "severe", InvalidModelError, "default: class 'severe' is not one of the model's"),
    ([([c("smoker", 1)], "high", 3)], "low", InvalidModelError,
     "rule 0: a rule is a pair (conditions, class label), got"),
    (["IF smoker = 1 THEN high"], "low", InvalidModelError,
     "rule 0: a rule is a pair (conditions, class label), got 'IF smoker = 1 THEN high'"),
    ([(c("smoker", 1), "high")], "low", InvalidModelError,
     "rule 0: the conditions of a rule are a list of Condition (e.g. [Condition('age', "
     "upto=30)]), got Condition("),
    ([([c("smoker", 1)], "high"), (["smoker = 1"], "mid")], "low", InvalidModelError,
     "rule 1: not a condition: 'smoker = 1'"),
    ([([c("smoker", 1), c("smoker", 0)], "high")], "low", InvalidModelError,
     "rule 0: the rule is inconsistent: its conditions on smoker exclude each other"),
    ([([c("age", upto=10), c("age", above=20)], "high")], "low", InvalidModelError,
     "rule 0: the rule is inconsistent: its conditions on age exclude each other"),
    ([([c("height", upto=10)], "high")], "low", UnknownNodeFeatureError,
     "rule 0: a condition names unknown feature 'height'"),
    ([([c("sport", "golf")], "high")], "low", ValueOutsideDomainError,
     "rule 0: the condition on 'sport' names 'golf', which is not in the domain"),
    ([([c("age", upto=float("inf"))], "high")], "low", InvalidModelError,
     "rule 0: bounds on 'age' must be finite numbers, got inf"),
    ([([Condition("sport", "none")], "high")], "low", InvalidModelError,
     "must be a sequence of domain values, not the string 'none'"),
])
def test_bad_python_input(rules, default, error, message):
    with pytest.raises(error) as e:
        DecisionList(FEATURES, ["low", "mid", "high"], rules, default)
    assert message in str(e.value)
    if message.startswith("rule") or message.startswith("default"):
        assert e.value.where == message.split(":")[0]


@pytest.mark.parametrize(("features", "classes", "message"), [
    (FEATURES, [], "'classes' is empty"),
    (FEATURES, ["low", "low"], "class label 'low' is listed twice"),
    (FEATURES, ["low", True], "class labels must be strings or integers, got True"),
    ([], ["low"], "a decision list needs at least one feature"),
])
def test_bad_classes_and_features(features, classes, message):
    with pytest.raises(InvalidModelError, match=message):
        DecisionList(features, classes, [], "low")


# ---------------------------------------------------------------------- what must refuse
def test_the_path_engine_and_path_notions_refuse_a_decision_list():
    x = RISK_CASES[0][0]
    with pytest.raises(EngineNotAvailableError, match="decision list, which has no paths; "
                                                      "use engine='sat'"):
        xdt.Explainer(RISK, engine="path")
    with pytest.raises(EngineNotAvailableError, match="the box engine explains tree ensembles, "
                                                      "and this model is a decision list"):
        xdt.Explainer(RISK, engine="box")
    with xdt.Explainer(RISK) as ex:
        for call in (lambda: ex.axp(x, path_restricted=True),
                     lambda: ex.all_cxps(x, path_restricted=True),
                     lambda: ex.path_features(x), lambda: ex.path_is_redundant(x),
                     lambda: ex.axp(x, order="path")):
            with pytest.raises(EngineNotAvailableError,
                               match="this model is a decision list, which has no paths"):
                call()
    with pytest.raises(EngineNotAvailableError, match="a DecisionList has no paths"):
        verify.brute_force(RISK, x, path_restricted=True)
    with pytest.raises(EngineNotAvailableError, match="a DecisionList has no paths"):
        verify.check_axp(RISK, x, ["sport"], path_restricted=True)


def test_inputs_a_new_user_got_wrong_are_named():
    # found by trying the API as a new user: each is an InvalidModelError saying what to give
    feats = [Feature("a", "binary")]
    with pytest.raises(InvalidModelError, match="sequence of \\(conditions, class label\\) "
                                                "pairs"):
        DecisionList(feats, [0, 1], None, default=0)
    with pytest.raises(InvalidModelError, match="rule 0: the conditions of a rule are a list "
                                                "of Condition .* got 'a=1'"):
        DecisionList(feats, [0, 1], [("a=1", 1)], default=0)
    with pytest.raises(InvalidModelError, match="rule set of class 'y' must be a list of "
                                                "terms"):
        DecisionList.from_rule_sets(feats, ["x", "y"], {"y": Condition("a", (1,))},
                                    default="x")
    with pytest.raises(InvalidModelError, match="rule_sets maps each class label"):
        DecisionList.from_rule_sets(feats, ["x", "y"], [("y", [[Condition("a", (1,))]])],
                                    default="x")
    with pytest.raises(InvalidModelError, match="class labels 1 and '1' print alike"):
        DecisionList(feats, [0, 1, "1"], [], default=0)
    doc = {"format": "xdt-model/1", "kind": "decision-list",
           "features": [{"name": "a", "kind": "binary"}], "classes": [0, 1],
           "rules": [{"if": [], "then": 1, "weight": 2}], "default": 0}
    with pytest.raises(InvalidModelError, match=r"rules\[0\]: .*unknown field\(s\) "
                                                r"\['weight'\]"):
        xdt.load_model(doc)
    doc["rules"] = [{"if": []}]
    with pytest.raises(InvalidModelError, match=r"rules\[0\]: .*no 'then'"):
        xdt.load_model(doc)
    with pytest.raises(ParameterError, match="unknown order 'bogus'"):
        xdt.Explainer(DecisionList(feats, [0, 1], [([Condition("a", (1,))], 1)], default=0)
                      ).axp({"a": 1}, order="bogus")


def test_reachable_from_the_package():
    # import xdt; xdt.ir.DecisionList, as a new user tried it (the subpackages load lazily)
    assert xdt.ir.DecisionList is DecisionList
    assert xdt.explain.Explainer is xdt.Explainer


def test_xdt_explain_names_the_rule_that_fires(tmp_path):
    # (45, 0, running): rule 3 fires, its AXp adds sport (rule 1 must stay false); (30, 1,
    # running): no rule fires (rules 0 and 3 false by age, 1 and 2 by sport), the default
    from clitools import run

    model = tmp_path / "risk.json"
    save_model(RISK, model)
    data = tmp_path / "rows.csv"
    data.write_text("age,smoker,sport\n45,0,running\n30,1,running\n")
    result = run("explain", str(model), "--data", str(data))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "row 0: predicts risk = high (rule 3 fires: IF 40 < age THEN risk = high)"
    assert lines[1] == "  AXp (2 features): IF 40 < age AND sport = running THEN risk = high"
    assert "row 1: predicts risk = low (no rule fires: ELSE risk = low)" in lines
    assert "  AXp (2 features): IF 20 < age <= 40 AND sport = running THEN risk = low" in lines
