"""Background constraints (xdt.ir._constraints): explanations under constraints equal a brute
force over the points the constraints allow, on hand-made trees, DNFs and ensembles whose
constrained AXps are strictly smaller than the unconstrained ones, on an ordering checked
over a grid of real values, and on random trees with random forbidden combinations; the JSON
round trip; and every bad input."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import hypothesis.strategies as st
import jsonschema
import numpy as np
import pandas as pd
import pytest
from clitools import assert_clean_failure, run
from hypothesis import HealthCheck, given, settings
from test_properties import instance_strategy, trees
from tiers import examples

import xdt
from xdt import Explainer
from xdt.errors import (
    CertificateError,
    ConstraintFeatureError,
    ConstraintValueError,
    ConstraintViolationError,
    EngineNotAvailableError,
    InvalidConstraintError,
    InvalidModelError,
    OrderingFeatureError,
)
from xdt.explain.checks import _verify as verify
from xdt.explain.checks._certificates import check_certificate
from xdt.explain.checks._crosscheck import crosscheck
from xdt.explain.queries._redundant_paths import path_redundancy
from xdt.ir import (
    DNF,
    Branch,
    CategoricalSplit,
    Condition,
    DecisionTree,
    Feature,
    Leaf,
    NestedKDNF,
    ThresholdSplit,
    model_from_dict,
    model_to_dict,
)
from xdt.ir._constraints import (
    Forbidden,
    Implication,
    Ordering,
    forbidden,
    parse_condition,
    parse_constraint,
)
from xdt.ir._ensemble import TreeEnsemble

ROOT = Path(__file__).resolve().parent.parent


def names(explanations) -> set[frozenset[str]]:
    return {frozenset(e.features) for e in explanations}


def by_definition(model, x, points: list[dict]) -> tuple[set, set]:
    """All AXps and CXps of ``x`` from the definitions, over the given points (the points
    that exist: the test builds them from its own predicate), comparing cells."""
    feats = list(model.features.names)
    cx = model.encode([x])[0]
    label = model.predict([x])[0]
    cells = model.encode(points)
    pred = model.predict(points)

    def entails(S) -> bool:
        return all(p == label for p, c in zip(pred, cells, strict=True)
                   if all(c[f] == cx[f] for f in S))

    n = len(feats)
    weak = [frozenset(S) for r in range(n + 1) for S in itertools.combinations(range(n), r)
            if entails(S)]
    axps = {S for S in weak if not any(T < S for T in weak)}
    frees = [frozenset(T) for r in range(n + 1) for T in itertools.combinations(range(n), r)
             if not entails(set(range(n)) - set(T))]
    cxps = {T for T in frees if not any(U < T for U in frees)}
    show = lambda sets: {frozenset(feats[f] for f in S) for S in sets}  # noqa: E731
    return show(axps), show(cxps)


# ---------------------------------------------------------------------- sex / pregnant / age
SEX = Feature("sex", "categorical", ("female", "male"))
PREG = Feature("pregnant", "categorical", ("no", "yes"))
AGE = Feature("age", "ordinal")


def clinic_tree() -> DecisionTree:
    """pregnant = yes: high risk for men (a point that cannot exist), low for women;
    pregnant = no: by age."""
    return DecisionTree(
        [SEX, PREG, AGE], ["low", "high"],
        CategoricalSplit("pregnant", (
            Branch(("no",), ThresholdSplit("age", 40, Leaf("low"), Leaf("high"))),
            Branch(("yes",), CategoricalSplit("sex", (Branch(("female",), Leaf("low")),
                                                      Branch(("male",), Leaf("high"))))))))


def clinic_points(allowed) -> list[dict]:
    """One point per cell of the clinic tree (ages 30 and 50), kept when ``allowed``."""
    return [p for s, g, a in itertools.product(SEX.domain, PREG.domain, (30, 50))
            if allowed(p := {"sex": s, "pregnant": g, "age": a})]


def test_forbidden_combination_gives_a_strictly_smaller_axp():
    tree = clinic_tree()
    constrained = tree.with_constraints(["NOT (sex = male AND pregnant = yes)"])
    x = {"sex": "female", "pregnant": "yes", "age": 50}
    assert names(Explainer(tree).all_axps(x)) == {frozenset({"sex", "pregnant"})}
    ex = Explainer(constrained)
    assert ex.engine == "sat"
    axps, cxps = names(ex.all_axps(x, verify=True)), names(ex.all_cxps(x, verify=True))
    assert axps == {frozenset({"pregnant"})}
    assert cxps == {frozenset({"pregnant"})}
    exists = clinic_points(lambda p: not (p["sex"] == "male" and p["pregnant"] == "yes"))
    for point in exists:
        got = (names(ex.all_axps(point)), names(ex.all_cxps(point)))
        assert got == by_definition(constrained, point, exists)
        assert got == (verify.brute_force(constrained, point).axps,
                       verify.brute_force(constrained, point).cxps)
    assert ex.axp(x).rule == "IF pregnant = yes THEN low"
    assert tree.constraints is None  # with_constraints made a copy


def test_implication_with_an_ordinal_condition_cuts_the_cells():
    tree = clinic_tree()
    constrained = tree.with_constraints(["age <= 30 -> pregnant = no"])
    assert list(constrained.cells[2].thresholds) == [30.0, 40.0]
    assert list(tree.cells[2].thresholds) == [40.0]
    x = {"sex": "male", "pregnant": "no", "age": 20}
    # unconstrained, age alone does not do: pregnant men are high risk
    assert names(Explainer(tree).all_axps(x)) == {frozenset({"pregnant", "age"})}
    ex = Explainer(constrained)
    # age <= 30 forces pregnant = no, and then age <= 40 gives low: age alone does
    assert names(ex.all_axps(x, verify=True)) == {frozenset({"age"})}
    points = [p for s, g, a in itertools.product(SEX.domain, PREG.domain, (20, 35, 50))
              if not ((p := {"sex": s, "pregnant": g, "age": a})["age"] <= 30
                      and p["pregnant"] == "yes")]
    for point in points:
        assert (names(ex.all_axps(point, verify=True)), names(ex.all_cxps(point, verify=True))
                ) == by_definition(constrained, point, points)


#: (a AND b) OR (c AND d) over four bits, c = d = 1 forbidden, and the points that remain.
BITS = [Feature(n, "binary") for n in "abcd"]
AB_CD = [[Condition("a", (1,)), Condition("b", (1,))], [Condition("c", (1,)), Condition("d", (1,))]]
NOT_CD = [Forbidden((Condition("c", (1,)), Condition("d", (1,))))]
ABCD_POINTS = [dict(zip("abcd", v, strict=True)) for v in itertools.product((0, 1), repeat=4)
           if not (v[2] == 1 and v[3] == 1)]


def test_dnf_axp_shrinks_when_a_term_cannot_hold():
    dnf = DNF(BITS, [0, 1], AB_CD)
    constrained = dnf.with_constraints(NOT_CD)
    x = {"a": 1, "b": 0, "c": 0, "d": 1}
    assert names(Explainer(dnf).all_axps(x)) == {frozenset({"b", "c"})}
    ex = Explainer(constrained)
    assert names(ex.all_axps(x, verify=True)) == {frozenset({"b"})}
    for point in ABCD_POINTS:
        assert (names(ex.all_axps(point)), names(ex.all_cxps(point, verify=True))) == \
            by_definition(constrained, point, ABCD_POINTS)
    assert len(ex.smallest_axp(x)) == 1


def test_nested_kdnf_with_constraints_explains_as_its_dnf_does():
    """The nested 2-DNF (a AND b) OR (c AND d), c = d = 1 forbidden: every AXp and CXp of
    every allowed point equals the definitions over the allowed points (brute force); the
    unconstrained model keeps its own."""
    nested = NestedKDNF(BITS, [0, 1], AB_CD, [[2, 0], [0, 2]])
    constrained = nested.with_constraints(NOT_CD)
    assert isinstance(constrained, NestedKDNF) and nested.constraints is None
    assert constrained.prefixes == nested.prefixes == ((2, 0), (0, 2))
    x = {"a": 1, "b": 0, "c": 0, "d": 1}
    assert names(Explainer(nested).all_axps(x)) == {frozenset({"b", "c"})}
    ex = Explainer(constrained)
    assert names(ex.all_axps(x, verify=True)) == {frozenset({"b"})}
    for point in ABCD_POINTS:
        assert (names(ex.all_axps(point)), names(ex.all_cxps(point, verify=True))) == \
            by_definition(constrained, point, ABCD_POINTS)
    assert constrained.with_constraints(None).constraints is None


# ---------------------------------------------------------------------- orderings
XYZ = [Feature("x", "ordinal"), Feature("y", "ordinal"), Feature("z", "ordinal")]
GRID = np.arange(-1.0, 9.0, 0.5)


def xyz_tree() -> DecisionTree:
    return DecisionTree(XYZ, ["a", "b"], ThresholdSplit(
        "x", 5, ThresholdSplit("z", 2, Leaf("b"), Leaf("a")),
        ThresholdSplit("y", 3, Leaf("b"), Leaf("a"))))


def test_ordering_two_features_over_a_grid_of_reals():
    tree = xyz_tree()
    constrained = tree.with_constraints(["x <= y"])
    assert list(constrained.cells[0].thresholds) == list(constrained.cells[1].thresholds) \
        == [3.0, 5.0]
    points = [dict(zip("xyz", p, strict=True)) for p in itertools.product(GRID, GRID, GRID)
              if p[0] <= p[1]]
    ex = Explainer(constrained)
    x = {"x": 6.0, "y": 7.0, "z": 0.0}
    # x > 5 and x <= y force y > 5 > 3: class a from x alone
    assert names(ex.all_axps(x, verify=True)) == {frozenset({"x"})}
    assert names(Explainer(tree).all_axps(x)) == {frozenset({"x", "y"})}
    for x in ({"x": 6.0, "y": 7.0, "z": 0.0}, {"x": 1.0, "y": 2.0, "z": 6.0},
              {"x": 5.0, "y": 5.0, "z": 1.0}, {"x": 2.5, "y": 4.0, "z": 3.0}):
        assert (names(ex.all_axps(x, verify=True)), names(ex.all_cxps(x, verify=True))) == \
            by_definition(constrained, x, points)


def test_chain_with_a_strict_ordering_over_a_grid_of_reals():
    constrained = xyz_tree().with_constraints([Ordering("x", "y"), "y < z"])
    assert all(list(c.thresholds) == [2.0, 3.0, 5.0] for c in constrained.cells)
    points = [dict(zip("xyz", p, strict=True)) for p in itertools.product(GRID, GRID, GRID)
              if p[0] <= p[1] < p[2]]
    ex = Explainer(constrained)
    for x in ({"x": 1, "y": 2, "z": 6}, {"x": 6, "y": 7, "z": 8}, {"x": 1, "y": 1, "z": 1.5},
              {"x": 2, "y": 4, "z": 4.5}, {"x": 0, "y": 6, "z": 7}):
        axps, cxps = ex.all_axps(x, verify=True), ex.all_cxps(x, verify=True)
        assert (names(axps), names(cxps)) == by_definition(constrained, x, points)
        for e in cxps:  # counterexamples are real points satisfying the orderings
            p = e.counterexample
            assert p["x"] <= p["y"] < p["z"]
        for e in axps:
            for w in e.certificate.witnesses.values():
                assert w.point["x"] <= w.point["y"] < w.point["z"]


def test_ensemble_under_an_ordering():
    g = [Feature("x", "ordinal"), Feature("y", "ordinal")]
    t1 = DecisionTree(g, ["a", "b"], ThresholdSplit("x", 1, Leaf("a"), Leaf("b")))
    t2 = DecisionTree(g, ["a", "b"], ThresholdSplit("y", 2, Leaf("a"), Leaf("b")))
    ens = TreeEnsemble(g, ["a", "b"], [t1, t2, t1], "vote")
    constrained = ens.with_constraints(["y <= x"])
    x = {"x": 3.0, "y": 2.5}  # b by every tree
    assert names(Explainer(ens).all_axps(x)) == {frozenset({"x"})}
    ex = Explainer(constrained)
    assert ex.engine == "sat"
    # y > 2 forces x >= y > 1: two votes of three for b
    assert names(ex.all_axps(x, verify=True)) == {frozenset({"x"}), frozenset({"y"})}
    assert verify.brute_force_axps(constrained, x) == {frozenset({"x"}), frozenset({"y"})}
    with pytest.raises(EngineNotAvailableError, match="engine='sat'"):
        Explainer(constrained, "box")


# ---------------------------------------------------------------------- random trees
@st.composite
def constrained_case(draw):
    tree = draw(trees())
    cat = [f for f in tree.features if not f.is_ordinal]
    items = []
    for _ in range(draw(st.integers(1, 2))):
        if len(cat) < 2:
            break
        a, b = draw(st.permutations(cat))[:2]
        items.append(Forbidden((Condition(a.name, (draw(st.sampled_from(a.domain)),)),
                                Condition(b.name, (draw(st.sampled_from(b.domain)),)))))
    ordinal = [f for f in tree.features if f.is_ordinal]
    if len(ordinal) >= 2 and draw(st.booleans()):
        a, b = draw(st.permutations(ordinal))[:2]
        items.append(Ordering(a.name, b.name))
    constrained = tree.with_constraints(items)
    return constrained, items, draw(instance_strategy(tree))


@settings(max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constrained_case())
def test_random_trees_with_random_constraints_equal_brute_force(case):
    model, items, x = case

    def exists(point) -> bool:
        return not any(all(point[c.feature] in c.values for c in f.conditions)
                       if isinstance(f, Forbidden) else point[f.left] > point[f.right]
                       for f in items)

    if not exists(x):
        with pytest.raises(ConstraintViolationError):
            Explainer(model).axp(x)
        return
    # one point per cell: the domain values and, for ordinal features, a value per cell
    # (ordered features share their cells, and a value per cell keeps the cells' order, so
    # these points hold a real point of every cell vector the ordering allows)
    axes = [c.domain if not f.is_ordinal else [c.value(j) for j in range(c.n_cells)]
            for f, c in zip(model.features, model.cells, strict=True)]
    points = [p for vs in itertools.product(*axes)
              if exists(p := dict(zip(model.features.names, vs, strict=True)))]
    ex = Explainer(model)
    assert (names(ex.all_axps(x, verify=True)), names(ex.all_cxps(x, verify=True))) == \
        by_definition(model, x, points)


# ---------------------------------------------------------------------- text, JSON
def test_text_syntax():
    assert parse_constraint("NOT (sex = male AND pregnant = yes)") == forbidden(
        "sex = male AND pregnant = yes")
    imp = parse_constraint("IF 18 < age <= 30 AND colour in {red, blue} THEN x > 2 OR b != 1")
    assert isinstance(imp, Implication)
    assert imp.premises == (Condition("age", above=18.0, upto=30.0),
                            Condition("colour", ("red", "blue")))
    assert imp.features == ("age", "colour", "x", "b")  # in order, premises first
    assert parse_constraint("IF x > 1 THEN age <= 3 OR x > 2").features == ("x", "age")
    assert str(parse_constraint("age <= 17 -> m = no")) == "age <= 17 -> m = no"
    assert parse_constraint("y >= x") == Ordering("x", "y")
    assert parse_constraint("y > x") == Ordering("x", "y", strict=True)
    assert parse_condition("3 < x") == Condition("x", above=3.0)
    with pytest.raises(InvalidConstraintError, match="write 'NOT"):
        parse_constraint("sex = male AND pregnant = yes")
    with pytest.raises(InvalidConstraintError, match="right-closed"):
        parse_constraint("age < 30 -> m = no")


def test_values_are_resolved_to_the_domain():
    tree = DecisionTree([Feature("b", "binary"), Feature("c", "categorical", (10, 20, 30))],
                        [0, 1], CategoricalSplit("b", (Branch((0,), Leaf(0)),
                                                       Branch((1,), Leaf(1)))))
    m = tree.with_constraints(["NOT (b = 1 AND c != 20)"])
    assert m.constraints[0] == Forbidden((Condition("b", (1,)), Condition("c", (10, 30))))


def test_json_round_trip(tmp_path):
    model = xyz_tree().with_constraints(
        ["x <= y", "y < z", Implication((Condition("x", upto=1.0),), (Condition("z", above=4.0),))])
    doc = model_to_dict(model)
    assert doc["constraints"] == [
        {"ordering": ["x", "y"]}, {"ordering": ["y", "z"], "strict": True},
        {"if": [{"feature": "x", "le": 1.0}], "then": [{"feature": "z", "gt": 4.0}]}]
    schema = json.loads((ROOT / "encodings" / "xdt-model-1.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(doc)
    back = model_from_dict(json.loads(json.dumps(doc)))
    assert back.constraints == model.constraints
    assert [list(c.thresholds) for c in back.cells] == [list(c.thresholds) for c in model.cells]
    path = tmp_path / "m.json"
    xdt.save_model(clinic_tree().with_constraints(["NOT (sex = male AND pregnant = yes)"]),
                   path)
    loaded = xdt.load_model(path)
    assert str(loaded.constraints[0]) == "NOT (sex = male AND pregnant = yes)"
    doc = model_to_dict(clinic_tree())
    doc["constraints"] = ["NOT (sex = male AND pregnant = yes)"]  # the text form is read too
    assert model_from_dict(doc).constraints == loaded.constraints
    assert "constraints" not in model_to_dict(clinic_tree())
    (block,) = [b for b in re.findall(r"```json\n(.*?)```",
                                      (ROOT / "encodings" / "README.md").read_text(), re.S)
                if '"constraints"' in b]
    documented = json.loads(block)
    jsonschema.Draft202012Validator(schema).validate(documented)
    clinic = model_from_dict(documented)
    assert [str(c) for c in clinic.constraints] == ["NOT (sex = male AND pregnant = 1)",
                                                    "age <= 12 -> pregnant = 0"]
    assert Explainer(clinic).axp({"sex": "female", "pregnant": 1, "age": 30}).rule == \
        "IF pregnant = 1 THEN high"


@pytest.mark.parametrize("entry, error, fragment", [
    ({"forbid": []}, InvalidConstraintError, "constraints[1]: unrecognised constraint fields"),
    ({"forbidden": {"feature": "sex"}}, InvalidConstraintError, "constraints[1].forbidden"),
    ({"forbidden": [{"feature": "sex", "eq": "male"}]}, InvalidConstraintError,
     "constraints[1].forbidden[0]"),
    ({"ordering": ["age"]}, InvalidConstraintError, "two feature names"),
    ({"ordering": ["age", "age2"], "strict": "yes"}, InvalidConstraintError, "'strict'"),
    ({"forbidden": [{"feature": "sexe", "in": ["male"]}]}, ConstraintFeatureError,
     "unknown feature 'sexe'"),
    ({"forbidden": [{"feature": "sex", "in": ["man"]}]}, ConstraintValueError,
     "not in its domain ['female', 'male']"),
    ({"ordering": ["sex", "age"]}, OrderingFeatureError, "categorical feature 'sex'"),
    ({"forbidden": []}, InvalidConstraintError, "at least one condition"),
    ({"forbidden": [{"feature": "age", "in": [3]}]}, InvalidConstraintError, "bounds"),
    ({"forbidden": [{"feature": "sex", "le": 3}]}, InvalidConstraintError, "by values"),
    ("NOT (sex = male", InvalidConstraintError, "cannot read"),
])
def test_malformed_entries_are_named(entry, error, fragment):
    doc = model_to_dict(clinic_tree())
    doc["constraints"] = ["NOT (sex = male AND pregnant = yes)", entry]
    with pytest.raises(error) as info:
        model_from_dict(doc)
    assert fragment in str(info.value)
    assert "constraints[1]" in str(info.value)
    assert isinstance(info.value, InvalidModelError)


def test_contradictory_orderings_and_self_ordering():
    with pytest.raises(InvalidConstraintError, match="no point satisfies"):
        xyz_tree().with_constraints(["x < y", "y <= z", "z <= x"])
    with pytest.raises(InvalidConstraintError, match="with itself"):
        xyz_tree().with_constraints(["x <= x"])
    xyz_tree().with_constraints(["x <= y", "y <= x"])  # equal: allowed


# ---------------------------------------------------------------------- engines that refuse
def test_the_instance_must_satisfy_the_constraints():
    model = clinic_tree().with_constraints(["NOT (sex = male AND pregnant = yes)"])
    with pytest.raises(ConstraintViolationError,
                       match="violates the background constraint 'NOT \\(sex = male AND "
                             "pregnant = yes\\)'"):
        Explainer(model).axp({"sex": "male", "pregnant": "yes", "age": 3})
    ordered = xyz_tree().with_constraints(["x < y"])
    with pytest.raises(ConstraintViolationError, match="'x < y'"):
        Explainer(ordered).axp({"x": 2, "y": 2, "z": 0})  # one cell, but 2 < 2 is false


def test_nothing_ignores_the_constraints():
    model = clinic_tree().with_constraints(["NOT (sex = male AND pregnant = yes)"])
    x = {"sex": "female", "pregnant": "yes", "age": 50}
    with pytest.raises(EngineNotAvailableError, match="engine='sat'"):
        Explainer(model, "path")
    with pytest.raises(EngineNotAvailableError, match="background constraints"):
        Explainer(model).explain_batch([x])
    with pytest.raises(EngineNotAvailableError, match="background constraints"):
        path_redundancy(model)
    with pytest.raises(EngineNotAvailableError, match="brute_force"):
        crosscheck(model, [x])
    from xdt.explain.engines._path import PathOracle

    with pytest.raises(EngineNotAvailableError):
        PathOracle.of_cells(model, tuple(model.encode([x])[0]))
    # path-restricted explanations and path redundancy by the SAT engine take them in
    assert Explainer(model).path_is_redundant(x) is True
    assert names(Explainer(model).all_axps(x, path_restricted=True)) == {
        frozenset({"pregnant"})}


def test_the_certificate_check_rejects_a_witness_the_constraints_exclude():
    tree = clinic_tree()
    constrained = tree.with_constraints(["NOT (sex = male AND pregnant = yes)"])
    x = {"sex": "female", "pregnant": "yes", "age": 50}
    unconstrained = Explainer(tree).all_cxps(x)
    by_sex = next(e for e in unconstrained if e.features == ("sex",))
    check_certificate(tree, by_sex)
    with pytest.raises(CertificateError, match="violates the background constraint"):
        check_certificate(constrained, by_sex)
    axp = Explainer(tree).axp(x)
    with pytest.raises(CertificateError, match="violates the background constraint"):
        check_certificate(constrained, axp)


def test_cli_explains_a_constrained_model_file(tmp_path):
    path = tmp_path / "clinic.json"
    xdt.save_model(clinic_tree().with_constraints(["NOT (sex = male AND pregnant = yes)"]),
                   path)
    result = run("explain", str(path), "--instance",
                 '{"sex": "female", "pregnant": "yes", "age": 50}', "--all-axps", "--verify")
    assert result.exit_code == 0, result.output
    assert "IF pregnant = yes THEN low" in result.output
    assert "sex = female AND" not in result.output
    bad = run("explain", str(path), "--instance",
              '{"sex": "female", "pregnant": "yes", "age": 50}', "--engine", "path")
    assert_clean_failure(bad, "background constraints")
    data = tmp_path / "rows.csv"
    data.write_text("sex,pregnant,age\nfemale,yes,50\n")
    batch = run("explain", str(path), "--data", str(data), "--batch", "--output",
                str(tmp_path / "out.jsonl"))
    assert_clean_failure(batch, "background constraints")
    assert "constraints" in run("explain", "--help").output


def test_readme_block_runs_and_shows_what_it_claims():
    from mdblocks import readme_block

    block = readme_block("with_constraints")
    scope: dict = {}
    exec(block, scope)  # noqa: S102 - the README's own example
    tree, clinic, x = scope["tree"], scope["clinic"], scope["x"]
    assert xdt.Explainer(tree).axp(x).rule == "IF sex = female AND pregnant = yes THEN low"
    assert xdt.Explainer(clinic).axp(x, verify=True).rule == "IF pregnant = yes THEN low"


def test_a_strict_ordering_at_the_edge_of_a_cell():
    """x = 3 is the top of its cell (-inf, 3]: the CXp {y} (cells are what is fixed) needs a
    y below 3 and above x, so its witness moves x inside its cell, as documented."""
    g = [Feature("x", "ordinal"), Feature("y", "ordinal")]
    tree = DecisionTree(g, ["a", "b"], ThresholdSplit(
        "y", 3, Leaf("a"), ThresholdSplit("x", 5, Leaf("b"), Leaf("a"))))
    model = tree.with_constraints(["x < y"])
    x = {"x": 3, "y": 4}
    (cxp,) = Explainer(model).all_cxps(x, verify=True)
    assert cxp.features == ("y",)
    p = cxp.counterexample
    assert p["x"] < p["y"] <= 3 and model.cells[0].cell_of(p["x"]) == model.cells[0].cell_of(3)
    assert model.predict([p])[0] == "a"


def test_measures_over_the_whole_space_refuse_or_leave_out_a_constrained_model(tmp_path):
    """certificate_complexity would count points the constraints exclude: refused; the HTML
    report leaves its redundancy card out, saying why, and explains the rows under them."""
    from xdt.errors import EngineNotAvailableError, InvalidConstraintError
    from xdt.metrics import certificate_complexity, is_k_axp_interpretable
    from xdt.report import write_report

    model = clinic_tree().with_constraints(["NOT (sex = male AND pregnant = yes)"])
    with pytest.raises(EngineNotAvailableError, match="background constraints"):
        certificate_complexity(model)
    with pytest.raises(EngineNotAvailableError, match="background constraints"):
        is_k_axp_interpretable(model, 1)
    assert certificate_complexity(model.with_constraints(None)) == 2
    rows = pd.DataFrame({"sex": ["female", "male"], "pregnant": ["yes", "no"], "age": [50, 30]})
    out = tmp_path / "r.html"
    write_report(model, rows, out)
    html = out.read_text()
    assert "exclude some of its points: the measure would ignore them" in html
    assert "IF pregnant = yes THEN low" in html
    with pytest.raises(InvalidConstraintError, match=r"constraints\[0\]\.forbidden\[0\]: the "
                                                     "condition on 'age' has a bound that is "
                                                     "not a number"):
        clinic_tree().with_constraints([{"forbidden": [{"feature": "age", "le": None}]}])


def test_cheapest_cxp_of_a_constrained_ensemble_is_certified():
    fs = [Feature("x", "ordinal"), Feature("y", "ordinal")]

    def stump(f, v):
        return DecisionTree(fs, ["a", "b"], ThresholdSplit(f, v, Leaf("a"), Leaf("b")))

    from xdt.ir._ensemble import TreeEnsemble

    m = TreeEnsemble(fs, ["a", "b"], [stump("x", 1), stump("y", 1), stump("x", 2)],
                     "vote").with_constraints(["x <= y"])
    x = {"x": 0, "y": 0}
    with Explainer(m) as ex:
        c = ex.smallest_cxp(x, verify=True)
        # y alone: x stays 0, y up to 3 gives one "b" vote of three; x alone cannot pass y
        assert set(c.features) == {"x", "y"} and c.optimality.lower_bound == 2
        assert names(ex.all_cxps(x)) == {frozenset({"x", "y"})}


def test_encode_refuses_an_instance_the_constraints_exclude(tmp_path):
    path = tmp_path / "clinic.json"
    xdt.save_model(clinic_tree().with_constraints(["NOT (sex = male AND pregnant = yes)"]), path)
    assert_clean_failure(run("encode", str(path), "-i",
                             '{"sex": "male", "pregnant": "yes", "age": 30}',
                             "-o", str(tmp_path / "q.cnf")),
                         "the instance violates the background constraint 'NOT (sex = male "
                         "AND pregnant = yes)'")
    assert not (tmp_path / "q.cnf").exists()
