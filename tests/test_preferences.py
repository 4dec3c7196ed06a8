"""Excluded, immutable and weighted features (xdt.explain.queries._preferences): on random trees and
a DNF, both engines give exactly the explanations brute force over the cell space finds under
the same terms, cheapest explanations cost the brute-force minimum, and their optimality
certificates check out (and fail when tampered with)."""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction
from itertools import combinations

import hypothesis.strategies as st
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from test_constraints import constrained_case
from test_properties import tree_and_instance
from tiers import examples

import xdt
from xdt import Explainer
from xdt.errors import (
    CertificateError,
    NoExplanationError,
    ParameterError,
    UnknownFeatureError,
)
from xdt.explain.checks import _verify as verify
from xdt.explain.checks._certificates import check_certificate
from xdt.explain.queries import _duality as duality
from xdt.ir import DNF, Condition, DecisionTree, Feature, Leaf, ThresholdSplit

SETTINGS = settings(max_examples=examples(120), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
WEIGHTS = (1, 2, 3, 5, 0.5, 1.25)


def names(explanations) -> set[frozenset[str]]:
    return {frozenset(e.features) for e in explanations}


def cost(features, weights) -> Fraction:
    return sum((Fraction(repr(float(weights.get(f, 1)))) for f in features), Fraction(0))


@st.composite
def terms(draw, model):
    """Random excluded / immutable sets and weights over ``model``'s features."""
    feats = list(model.features.names)
    exclude = draw(st.lists(st.sampled_from(feats), unique=True, max_size=len(feats)))
    immutable = draw(st.lists(st.sampled_from(feats), unique=True, max_size=len(feats)))
    weights = {f: draw(st.sampled_from(WEIGHTS)) for f in feats if draw(st.booleans())}
    return exclude, immutable, weights


@SETTINGS
@given(tree_and_instance(), st.data(), st.sampled_from(("path", "sat")))
def test_terms_equal_brute_force_on_random_trees(case, data, engine):
    tree, x = case
    exclude, immutable, weights = data.draw(terms(tree))
    bf = verify.brute_force(tree, x)
    axps = {a for a in bf.axps if not a & set(exclude)}
    cxps = {c for c in bf.cxps if not c & set(immutable)}
    with Explainer(tree, engine) as ex:
        assert names(ex.all_axps(x, exclude=exclude)) == axps
        assert names(ex.all_cxps(x, immutable=immutable)) == cxps
        if axps:
            assert frozenset(ex.axp(x, exclude=exclude).features) in axps
            best = ex.smallest_axp(x, exclude=exclude, weights=weights, verify=True)
            assert frozenset(best.features) in axps
            assert Fraction(repr(float(best.cost))) == min(cost(a, weights) for a in axps)
            assert best.optimality.lower_bound == best.cost
            listed = ex.all_axps(x, exclude=exclude, weights=weights)
            assert names(listed) == axps
            costs = [Fraction(repr(float(e.cost))) for e in listed]
            assert costs == sorted(costs) == sorted(cost(a, weights) for a in axps)
        else:  # fixing every feature outside the excluded ones admits another class
            assert not bf.is_weak_axp(set(tree.features.names) - set(exclude))
            with pytest.raises(NoExplanationError) as err:
                ex.axp(x, exclude=exclude)
            point = err.value.counterexample
            assert all(point[f] == x[f] for f in tree.features.names if f not in exclude)
            assert tree.predict([point])[0] == err.value.counterexample_class
            assert err.value.counterexample_class != bf.prediction
            with pytest.raises(NoExplanationError):
                ex.smallest_axp(x, exclude=exclude, weights=weights)
        one = ex.cxp(x, immutable=immutable)
        cheapest = ex.smallest_cxp(x, immutable=immutable, weights=weights, verify=True)
        if cxps:
            assert frozenset(one.features) in cxps
            assert all(one.counterexample[f] == x[f] for f in immutable)
            assert frozenset(cheapest.features) in cxps
            assert Fraction(repr(float(cheapest.cost))) == min(cost(c, weights) for c in cxps)
            listed = ex.all_cxps(x, immutable=immutable, weights=weights)
            costs = [Fraction(repr(float(e.cost))) for e in listed]
            assert costs == sorted(costs)
        else:
            assert one is None and cheapest is None


@SETTINGS
@given(tree_and_instance(), st.sampled_from(("path", "sat")))
def test_unweighted_smallest_explanations_are_certified_minimum(case, engine):
    tree, x = case
    bf = verify.brute_force(tree, x)
    with Explainer(tree, engine) as ex:
        a = ex.smallest_axp(x, verify=True)
        assert len(a) == min(len(s) for s in bf.axps)
        assert a.cost is None and a.optimality.lower_bound == len(a)
        c = ex.smallest_cxp(x, verify=True)
        if bf.cxps:
            assert len(c) == min(len(s) for s in bf.cxps) == c.optimality.lower_bound
        else:
            assert c is None


def two_terms_dnf() -> DNF:
    """(a AND b) OR (c AND d) OR (e AND NOT a): positive at a=b=c=d=1, e=0."""
    return DNF([Feature(n, "binary") for n in "abcde"], [0, 1],
               [[Condition("a", (1,)), Condition("b", (1,))],
                [Condition("c", (1,)), Condition("d", (1,))],
                [Condition("e", (1,)), Condition("a", (0,))]])


@settings(max_examples=examples(60), deadline=None)
@given(st.data())
def test_terms_equal_brute_force_on_a_dnf(data):
    dnf = two_terms_dnf()
    x = {n: data.draw(st.sampled_from((0, 1)), label=n) for n in "abcde"}
    exclude, immutable, weights = data.draw(terms(dnf))
    bf = verify.brute_force(dnf, x)
    axps = {a for a in bf.axps if not a & set(exclude)}
    cxps = {c for c in bf.cxps if not c & set(immutable)}
    with Explainer(dnf) as ex:
        assert names(ex.all_axps(x, exclude=exclude, weights=weights)) == axps
        assert names(ex.all_cxps(x, immutable=immutable, weights=weights)) == cxps
        if axps:
            best = ex.smallest_axp(x, exclude=exclude, weights=weights, verify=True)
            assert Fraction(repr(float(best.cost))) == min(cost(a, weights) for a in axps)
        if cxps:
            best = ex.smallest_cxp(x, immutable=immutable, weights=weights, verify=True)
            assert Fraction(repr(float(best.cost))) == min(cost(c, weights) for c in cxps)


# ---------------------------------------------------------------- hand-made values
def loan_tree() -> DecisionTree:
    """income <= 50 -> age test; a young low earner is refused unless savings are high."""
    fs = [Feature("income", "ordinal"), Feature("age", "ordinal"),
          Feature("savings", "ordinal")]
    return DecisionTree(fs, ["refuse", "grant"], ThresholdSplit(
        "income", 50, ThresholdSplit("age", 30, ThresholdSplit(
            "savings", 10, Leaf("refuse"), Leaf("grant")), Leaf("grant")), Leaf("grant")))


X = {"income": 40, "age": 25, "savings": 5}


@pytest.mark.parametrize("engine", ["path", "sat"])
def test_loan_example(engine):
    with Explainer(loan_tree(), engine) as ex:
        # every feature is needed for the refusal: the only AXp holds all three
        assert names(ex.all_axps(X)) == {frozenset({"income", "age", "savings"})}
        with pytest.raises(NoExplanationError, match="avoids age"):
            ex.axp(X, exclude=["age"])
        assert names(ex.all_axps(X, exclude=["age"])) == set()
        # three single-feature CXps; with age immutable, two remain
        assert names(ex.all_cxps(X, immutable=["age"])) == {frozenset({"income"}),
                                                             frozenset({"savings"})}
        c = ex.cxp(X, immutable=["age"])
        assert c.counterexample["age"] == 25
        cheap = ex.smallest_cxp(X, immutable="age", weights={"income": 10, "savings": 3},
                                verify=True)
        assert cheap.features == ("savings",) and cheap.cost == 3
        assert cheap.optimality.bound_sets == (("income", "savings"),)
        assert cheap.optimality.immutable == ("age",)
        assert cheap.to_dict()["optimality"]["lower_bound"] == 3


@pytest.mark.parametrize("engine", ["path", "sat"])
def test_weighted_axp_avoids_an_expensive_feature(engine):
    dnf_like = DecisionTree(
        [Feature("a", "ordinal"), Feature("b", "ordinal"), Feature("c", "ordinal")], [0, 1],
        ThresholdSplit("a", 0.5, ThresholdSplit("b", 0.5, Leaf(0), ThresholdSplit(
            "c", 0.5, Leaf(0), Leaf(1))), ThresholdSplit("c", 0.5, Leaf(0), Leaf(1))))
    x = {"a": 1, "b": 1, "c": 1}
    with Explainer(dnf_like, engine) as ex:
        # AXps: {a, c} and {b, c}; with a costly, {b, c} is the cheapest
        assert names(ex.all_axps(x)) == {frozenset("ac"), frozenset("bc")}
        e = ex.smallest_axp(x, weights={"a": 4.5}, verify=True)
        assert set(e.features) == {"b", "c"} and e.cost == 2
        listed = ex.all_axps(x, weights={"a": 4.5})
        assert [set(a.features) for a in listed] == [{"b", "c"}, {"a", "c"}]
        assert [a.cost for a in listed] == [2, 5.5]
        assert [set(a.features) for a in ex.all_axps(x, weights={"b": 4.5})] == [
            {"a", "c"}, {"b", "c"}]


def test_tampered_optimality_certificates_fail():
    dnf = two_terms_dnf()
    x = {"a": 1, "b": 1, "c": 1, "d": 1, "e": 0}
    w = {"a": 5, "b": 1, "c": 2, "d": 2.5}
    with Explainer(dnf) as ex:
        e = ex.smallest_axp(x, weights=w, verify=True)
        assert set(e.features) == {"c", "d"} and e.cost == 4.5
        cert = e.optimality
        check_certificate(dnf, e)
        fewer = replace(cert, bound_sets=cert.bound_sets[:1], witnesses=cert.witnesses[:1])
        with pytest.raises(CertificateError, match="cheapest hitting set"):
            check_certificate(dnf, replace(e, optimality=fewer))
        with pytest.raises(CertificateError, match="optimality is not proven"):
            check_certificate(dnf, replace(e, optimality=replace(cert, lower_bound=4)))
        heavier = dict(cert.weights, c=3)
        with pytest.raises(CertificateError, match="cost"):
            check_certificate(dnf, replace(e, optimality=replace(cert, weights=heavier)))
        moved = [w._replace(point={**w.point, "a": 1 - x["a"]}) for w in cert.witnesses]
        bad = replace(cert, witnesses=tuple(moved))
        with pytest.raises(CertificateError):
            check_certificate(dnf, replace(e, optimality=bad))
        c = ex.smallest_cxp(x, weights=w, verify=True)
        not_axp = replace(c.optimality, bound_sets=(("a",),) + c.optimality.bound_sets[1:])
        with pytest.raises(CertificateError, match="does not entail"):
            check_certificate(dnf, replace(c, optimality=not_axp))


def test_bad_terms_get_clear_errors():
    with Explainer(loan_tree()) as ex:
        with pytest.raises(UnknownFeatureError, match="exclude: unknown feature 'agee'"):
            ex.axp(X, exclude=["agee"])
        with pytest.raises(UnknownFeatureError, match="immutable"):
            ex.all_cxps(X, immutable=["x"])
        with pytest.raises(UnknownFeatureError, match="weights"):
            ex.smallest_axp(X, weights={"salary": 2})
        for w in (0, -1, math.nan, math.inf, "2", True):
            with pytest.raises(ParameterError, match="positive finite number"):
                ex.smallest_axp(X, weights={"age": w})
        with pytest.raises(ParameterError, match="weights must map"):
            ex.smallest_cxp(X, weights=[1, 2, 3])
        with pytest.raises(ParameterError, match="unknown order 'cost'"):
            ex.all_axps(X, order="cost")
        # a pandas Series by name works as weights
        e = ex.smallest_cxp(X, weights=pd.Series({"income": 4.0, "age": 2.0, "savings": 3.0}))
        assert e.features == ("age",) and e.cost == 2


def test_hitting_sets_are_cheapest_by_brute_force():
    """RC2 with incremental hard clauses returns minimum-weight hitting sets."""
    import random

    rng = random.Random(7)
    for _ in range(200):
        n = rng.randint(1, 7)
        weights = {f: rng.randint(1, 9) for f in range(n)}
        sets = [rng.randint(1, (1 << n) - 1) for _ in range(rng.randint(1, 6))]
        with duality.HittingSets(weights) as family:
            for s in sets:
                family.hit(s)
            got = family.get()
        subsets = [m for r in range(n + 1) for c in combinations(range(n), r)
                   for m in [sum(1 << f for f in c)] if all(m & s for s in sets)]
        best = min(sum(weights[f] for f in range(n) if (m >> f) & 1) for m in subsets)
        assert got[1] == best == sum(weights[f] for f in range(n) if (got[0] >> f) & 1)


# ---------------------------------------------------------------- the command line
def test_cli_terms(tmp_path):
    import json

    from clitools import assert_clean_failure, run

    path = tmp_path / "loan.json"
    xdt.save_model(loan_tree(), path)
    inst = json.dumps(X)
    r = run("explain", str(path), "-i", inst, "--exclude", "age", "--immutable", "age",
            "--weights", '{"income": 10, "savings": 3}', "--all-cxps")
    assert r.exit_code == 0, r.output
    assert ("AXp: none; no AXp of the prediction 'refuse' avoids age: with every other "
            "feature fixed, the model predicts 'grant' when age = 31.0") in r.output
    assert "- CHANGE savings (now 5; e.g. to 11) => grant  [cost 3]" in r.output
    assert "- CHANGE income (now 40; e.g. to 51) => grant  [cost 10]" in r.output
    assert "age (now" not in r.output
    r = run("explain", str(path), "-i", inst, "--immutable", "income, age",
            "--weights", '{"savings": 3}', "--format", "jsonl")
    record = json.loads(r.output)
    assert record["immutable"] == ["income", "age"]
    (cxp,) = record["cxps"]
    assert cxp["features"] == ["savings"] and cxp["cost"] == 3 and cxp["verified"]
    assert cxp["optimality"]["lower_bound"] == 3
    assert cxp["optimality"]["bound_sets"] == [["savings"]]
    assert record["axp"]["cost"] == 5  # income 1 + age 1 + savings 3: the only AXp
    assert_clean_failure(run("explain", str(path), "-i", inst, "--exclude", "agee"),
                         "Invalid value for '--exclude': unknown feature(s) 'agee'; the "
                         "model's features are: income, age, savings")
    assert_clean_failure(run("explain", str(path), "-i", inst, "--weights", '{"age": -2}'),
                         "the weight of 'age' must be a positive finite number, got -2")
    r = run("explain", str(path), "-i", inst, "--immutable", "income,age,savings")
    assert "CXp: none leaves income, age, savings alone" in r.output
    assert_clean_failure(run("explain", str(path), "-i", inst, "--weights", "[1]"),
                         "--weights must be a JSON object mapping feature name to cost")
    assert_clean_failure(run("explain", str(path), "-i", inst, "--exclude", " , "),
                         "give feature names separated by commas")


# ---------------------------------------------------------------- real data
def test_compas_without_race_and_sex():
    """On COMPAS (FairML), AXps that avoid race and sex are the plain AXps that avoid them,
    and each one is certified."""
    from conftest import DATASETS, require_shared

    from xdt.interop._fit import fit_tree

    frame = pd.read_csv(require_shared(DATASETS / "compas.csv"))
    tree = fit_tree(frame, "Two_yr_Recidivism", max_depth=5).model
    banned = ["African_American", "Asian", "Hispanic", "Native_American", "Other", "Female"]
    rows = frame.drop(columns="Two_yr_Recidivism").iloc[:40]
    avoided = none = 0
    with Explainer(tree) as ex:
        for _, x in rows.iterrows():
            plain = names(ex.all_axps(x))
            kept = {a for a in plain if not a & set(banned)}
            assert names(ex.all_axps(x, exclude=banned, verify=True)) == kept
            if kept:
                a = ex.axp(x, exclude=banned, verify=True)
                assert not set(a.features) & set(banned)
                avoided += 1
            else:
                with pytest.raises(NoExplanationError):
                    ex.axp(x, exclude=banned)
                none += 1
    assert avoided + none == 40 and avoided > 0


def test_delta_axp_avoids_excluded_features():
    """A delta-AXp with exclude= never uses them; when no AXp avoids them a delta-AXp still
    can (precision, not certainty), and brute-force precision confirms it."""
    from xdt.explain.queries._probability import ProductDistribution

    tree = loan_tree()
    d = ProductDistribution.uniform(tree)
    with Explainer(tree) as ex:
        e = ex.delta_axp(X, 0.5, distribution=d, exclude=["age"], verify=True)
        assert "age" not in e.features
        # age free (uniform over its 2 cells): income <= 50 and savings <= 10 keep "refuse"
        # with probability 1/2; one feature alone gives 1/4
        assert set(e.features) == {"income", "savings"} and e.precision == Fraction(1, 2)
        with pytest.raises(NoExplanationError, match="no delta-AXp of precision >= 0.75 "
                                                     "avoids age"):
            ex.delta_axp(X, 0.75, distribution=d, exclude=["age"])
        with pytest.raises(ParameterError, match="start holds the excluded features age"):
            ex.delta_axp(X, 0.5, distribution=d, exclude=["age"], start=["age", "income"])


# ---------------------------------------------------------------- background constraints
@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constrained_case(), st.data())
def test_terms_under_background_constraints_equal_brute_force(case, data):
    """On random trees with random forbidden combinations and orderings, the terms select
    among the constrained explanations (brute force over the points the constraints allow)."""
    from xdt.errors import ConstraintViolationError

    model, _, x = case
    try:
        Explainer(model).predict(x)
    except ConstraintViolationError:  # the instance is no point of the constrained space
        return
    bf = verify.brute_force(model, x)
    exclude, immutable, weights = data.draw(terms(model))
    axps = {a for a in bf.axps if not a & set(exclude)}
    cxps = {c for c in bf.cxps if not c & set(immutable)}
    with Explainer(model) as ex:
        assert names(ex.all_axps(x, exclude=exclude)) == axps
        assert names(ex.all_cxps(x, immutable=immutable)) == cxps
        if axps:
            best = ex.smallest_axp(x, exclude=exclude, weights=weights, verify=True)
            assert Fraction(repr(float(best.cost))) == min(cost(a, weights) for a in axps)
        else:
            with pytest.raises(NoExplanationError):
                ex.axp(x, exclude=exclude)
        best = ex.smallest_cxp(x, immutable=immutable, weights=weights, verify=True)
        if cxps:
            assert Fraction(repr(float(best.cost))) == min(cost(c, weights) for c in cxps)
        else:
            assert best is None


def test_probabilistic_queries_under_background_constraints():
    """A product distribution would weigh points the constraints exclude: refused; an
    empirical one must hold only rows that satisfy them."""
    from test_constraints import clinic_tree

    from xdt.errors import ConstraintViolationError, EngineNotAvailableError
    from xdt.explain.queries._probability import EmpiricalDistribution, ProductDistribution

    model = clinic_tree().with_constraints(["NOT (sex = male AND pregnant = yes)"])
    rows = pd.DataFrame({"sex": ["female", "female", "male", "male", "female"],
                         "pregnant": ["yes", "no", "no", "no", "no"],
                         "age": [30, 50, 30, 50, 30]})
    x = {"sex": "female", "pregnant": "no", "age": 30}
    with Explainer(model) as ex:
        with pytest.raises(EngineNotAvailableError, match="background constraints"):
            ex.delta_axp(x, 0.9, distribution=ProductDistribution.uniform(model))
        e = ex.delta_axp(x, 0.75, distribution=EmpiricalDistribution(rows, model),
                         verify=True)
        # the 3 rows of age 30 are all "low" (pregnant = no: 2 of 4 rows); with nothing
        # fixed, 3 of the 5 rows are "low"
        assert e.features == ("age",) and e.precision == 1
        assert e.certificate.drops == {"age": Fraction(3, 5)}
        bad = pd.concat([rows, pd.DataFrame({"sex": ["male"], "pregnant": ["yes"],
                                             "age": [30]})], ignore_index=True)
        with pytest.raises(ConstraintViolationError, match="row 5 violates"):
            EmpiricalDistribution(bad, model)
    # an ordering is decided on the values: x = 2.0 > y = 1.5 violates x <= y even where
    # both lie in one cell
    from test_constraints import xyz_tree

    ordered = xyz_tree().with_constraints(["x <= y"])
    EmpiricalDistribution(pd.DataFrame({"x": [1.0, 2.0], "y": [1.5, 2.0], "z": [0, 0]}),
                          ordered)
    with pytest.raises(ConstraintViolationError, match="row 1 violates the model's "
                                                       "background constraint 'x <= y'"):
        EmpiricalDistribution(pd.DataFrame({"x": [1.0, 2.0], "y": [1.5, 1.5], "z": [0, 0]}),
                              ordered)


def test_weights_are_read_exactly():
    """Weights of every numeric type are read exactly, and a wide range is re-checked in
    exact arithmetic: a cheapest CXp of cost 10**9 beats one of 10**9 + 10**-9."""
    from decimal import Decimal

    import numpy as np

    from xdt.explain.queries._preferences import feature_weights

    space = loan_tree().features
    scaled, exact = feature_weights(space, {"income": np.float32(0.1), "age": Decimal("0.2"),
                                            "savings": Fraction(1, 3)})
    assert exact == {0: Fraction(1, 10), 1: Fraction(1, 5), 2: Fraction(1, 3)}
    assert scaled == {0: 3, 1: 6, 2: 10}
    assert feature_weights(space, {"age": np.int64(2 ** 60)})[1][1] == 2 ** 60
    with pytest.raises(ParameterError, match="too wide a range"):
        feature_weights(space, {"income": 1e-20, "age": 1e20})
    for bad in (np.bool_(True), Decimal("NaN"), None):
        with pytest.raises(ParameterError, match="positive finite number"):
            feature_weights(space, {"age": bad})
    dnf = DNF([Feature(n, "binary") for n in "abc"], [0, 1],
              [[Condition("a", (1,)), Condition("b", (1,))],
               [Condition("a", (1,)), Condition("c", (1,))]])
    x = {"a": 1, "b": 1, "c": 1}
    with Explainer(dnf) as ex:
        e = ex.smallest_cxp(x, weights={"a": 1e9, "b": 999999999.0, "c": 1.000000001},
                            verify=True)
        assert e.features == ("a",) and e.cost == 10 ** 9
        e = ex.smallest_cxp(x, weights={"a": 1e9, "b": 999999999.0, "c": 0.999999999},
                            verify=True)
        assert e.features == ("b", "c")


def test_terms_that_cannot_hold_are_refused():
    with Explainer(loan_tree()) as ex:
        with pytest.raises(ParameterError, match="immutable features with path_restricted"):
            ex.cxp(X, immutable=["age"], path_restricted=True)
        with pytest.raises(ParameterError, match="exclude takes feature names"):
            ex.axp(X, exclude=1)
        with pytest.raises(ParameterError, match="exclude takes feature names"):
            ex.axp(X, exclude=b"age")


def test_cheapest_searches_stop_at_their_time_limit():
    from xdt.errors import ComputationLimitError
    from xdt.explain.queries._duality import Deadline

    ticks = iter(range(10 ** 6))
    expired = Deadline(1.0, clock=lambda: next(ticks))  # past its end at the first poll
    with Explainer(two_terms_dnf()) as ex:
        x = {"a": 1, "b": 1, "c": 1, "d": 1, "e": 0}
        with pytest.raises(ComputationLimitError, match="time limit passed") as err:
            ex.smallest_axp(x, weights={"a": 2}, time_limit=expired)
        assert err.value.limit == "time_limit"
        with pytest.raises(ComputationLimitError):
            ex.smallest_cxp(x, weights={"a": 2}, time_limit=Deadline(
                1.0, clock=lambda: next(ticks)))
        assert ex.smallest_cxp(x, weights={"a": 2}, time_limit=60).cost == 2


def test_tampered_terms_and_costs_fail_cleanly():
    dnf = two_terms_dnf()
    x = {"a": 1, "b": 1, "c": 1, "d": 1, "e": 0}
    with Explainer(dnf) as ex:
        e = ex.smallest_axp(x, weights={"a": 5, "b": 1, "c": 2, "d": 2.5}, verify=True)
        cert = e.optimality
        for bad, match in ((replace(e, cost=1), "the explanation says it costs 1"),
                           (replace(e, cost=None), "has no cost"),
                           (replace(e, optimality="hello"), "not an optimality certificate"),
                           (replace(e, optimality=replace(cert, weights=dict(
                               cert.weights, a=math.inf))), "not a positive finite number"),
                           (replace(e, optimality=replace(cert, cost="4.5")), "not a number"),
                           (replace(e, optimality=replace(cert, witnesses=tuple(
                               w._replace(point={**w.point, "a": 7})
                               for w in cert.witnesses))), "is no point of the model")):
            with pytest.raises(CertificateError, match=match):
                check_certificate(dnf, bad)
