"""Probabilistic AXps and coverage (xdt.explain.queries._probability), against brute force.

Precision is recomputed here by its definition: every point of the cell space that agrees
with the instance on the set, weighted by the product of its free features' marginals (or,
for an empirical distribution, the data rows themselves), labelled by the model; a
delta-AXp must reach delta and lose it when any one feature is dropped; coverage is the
mass of the points (or the share of rows) inside the explanation's cells."""

from __future__ import annotations

import math
import pickle
from fractions import Fraction
from itertools import product

import hypothesis.strategies as st
import numpy as np
import pandas as pd
import pytest
from clitools import assert_clean_failure, run
from ensemble_strategies import ensembles
from ensemble_strategies import instance as ensemble_instance
from hypothesis import given, settings
from test_properties import instance_strategy, trees
from tiers import examples

import xdt
from xdt.errors import (
    CertificateError,
    DataError,
    EmptyConditionError,
    EngineNotAvailableError,
    MissingFeatureError,
    MissingValueError,
    ParameterError,
    UnknownCategoryError,
    UnknownFeatureError,
)
from xdt.explain.queries._probability import (
    Coverage,
    EmpiricalDistribution,
    ProductDistribution,
    check_precision_certificate,
)
from xdt.ir import DNF, Condition, DecisionTree, Feature, Leaf, ThresholdSplit

# ---------------------------------------------------------------------- brute force


def cells_of_instance(model, x: dict) -> list[int]:
    return [c.cell_of(x[c.name]) for c in model.cells]


def brute_precision(model, marginals: list[list[Fraction]], x: dict, names) -> Fraction:
    """Pr(model(z) = model(x) | z_S = x_S) with the features independent, by enumerating
    every cell point agreeing with x on S."""
    cells = cells_of_instance(model, x)
    target = model.predict_cells(np.array([cells]))[0]
    fixed = {model.features.index(n) for n in names}
    free = [f for f in range(len(cells)) if f not in fixed]
    points, weights = [], []
    for combo in product(*[range(model.cells[f].n_cells) for f in free]):
        z = list(cells)
        w = Fraction(1)
        for f, j in zip(free, combo, strict=True):
            z[f] = j
            w *= marginals[f][j]
        points.append(z)
        weights.append(w)
    got = model.predict_cells(np.array(points, dtype=np.int64).reshape(-1, len(cells)))
    return sum((w for w, g in zip(weights, got, strict=True) if g == target), Fraction(0))


def brute_empirical(model, frame: pd.DataFrame, x: dict, names) -> Fraction:
    """The share of the rows agreeing with x (same cell) on ``names`` that the model
    predicts x's class."""
    enc = model.encode(frame)
    cells = cells_of_instance(model, x)
    keep = np.ones(len(frame), dtype=bool)
    for n in names:
        f = model.features.index(n)
        keep &= enc[:, f] == cells[f]
    label = model.predict([x])[0]
    got = model.predict(frame[keep])
    return Fraction(int((got == label).sum()), int(keep.sum()))


def brute_region_mass(model, marginals, explanation) -> Fraction:
    """The product mass of the points whose cells lie in the explanation's cells."""
    held = dict(zip(explanation.features, explanation.cells, strict=True))
    total = Fraction(0)
    for point in product(*[range(c.n_cells) for c in model.cells]):
        if all((held[n] >> point[model.features.index(n)]) & 1 for n in held):
            w = Fraction(1)
            for f, j in enumerate(point):
                w *= marginals[f][j]
            total += w
    return total


@st.composite
def weights_for(draw, model, positive: bool = False):
    """Integer weights per cell of every feature (some zero unless ``positive``; at least
    one positive per feature)."""
    out = []
    for c in model.cells:
        w = draw(st.lists(st.integers(1 if positive else 0, 5), min_size=c.n_cells,
                          max_size=c.n_cells))
        if sum(w) == 0:
            w[draw(st.integers(0, c.n_cells - 1))] = 1
        out.append(w)
    return out


def as_marginals(weights) -> list[list[Fraction]]:
    return [[Fraction(v, sum(w)) for v in w] for w in weights]


def distribution_of(model, weights) -> ProductDistribution:
    return ProductDistribution(model, {c.name: w for c, w in zip(model.cells, weights,
                                                                  strict=True)})


@st.composite
def tree_case(draw, positive: bool = False):
    tree = draw(trees())
    x = draw(instance_strategy(tree))
    weights = draw(weights_for(tree, positive))
    return tree, x, weights


# ---------------------------------------------------------------------- a worked case
def small_tree() -> DecisionTree:
    """IF x <= 0.5 THEN 0 ELSE (IF y <= 0.5 THEN 0 ELSE 1)."""
    return DecisionTree([Feature("x", "ordinal"), Feature("y", "ordinal")], [0, 1],
                        ThresholdSplit("x", 0.5, Leaf(0),
                                       ThresholdSplit("y", 0.5, Leaf(0), Leaf(1))))


def test_worked_case_precisions_by_hand():
    tree = small_tree()
    d = ProductDistribution(tree, {"x": [1, 1], "y": [1, 19]})
    ex = xdt.Explainer(tree)
    x = {"x": 1, "y": 1}
    # y free: Pr(y > 0.5) = 19/20; x free: Pr(x > 0.5) 1/2 times the same
    assert ex.precision(x, ["x", "y"], distribution=d) == 1
    assert ex.precision(x, ["x"], distribution=d) == Fraction(19, 20)
    assert ex.precision(x, ["y"], distribution=d) == Fraction(1, 2)
    assert ex.precision(x, [], distribution=d) == Fraction(19, 40)
    e = ex.delta_axp(x, 0.95, distribution=d, verify=True)
    assert (e.kind, e.features, e.precision, e.delta) == ("delta-AXp", ("x",),
                                                           Fraction(19, 20), Fraction(19, 20))
    assert e.certificate.drops == {"x": Fraction(19, 40)}
    assert e.certificate.start == ("x", "y") and e.verified
    # just above 19/20 the AXp itself is the answer
    e = ex.delta_axp(x, 0.951, distribution=d)
    assert e.features == ("x", "y") and e.precision == 1
    assert e.certificate.drops == {"x": Fraction(1, 2), "y": Fraction(19, 20)}


def test_worked_case_text_and_dict():
    tree = small_tree()
    d = ProductDistribution(tree, {"x": [1, 1], "y": [1, 19]})
    e = xdt.Explainer(tree).delta_axp({"x": 1, "y": 1}, 0.95, distribution=d)
    assert repr(e) == "<delta-AXp, precision 0.95 >= 0.95: IF 0.5 < x THEN 1>"
    assert e.rule == "IF 0.5 < x THEN 1"
    out = e.to_dict()
    assert out["kind"] == "delta-AXp"
    assert out["precision"] == {"exact": "19/20", "float": 0.95}
    assert out["certificate"]["drops"] == {"x": {"exact": "19/40", "float": 0.475}}
    assert "precision 0.95" in e._repr_html_()
    copy = pickle.loads(pickle.dumps(e))
    assert copy == e and copy.precision == e.precision
    assert copy.coverage(d) == e.coverage(d) == Coverage(Fraction(1, 2))


def test_precision_is_not_monotone_and_the_deletion_repeats_its_pass():
    # x0 alone: precision 1/2 < 3/5; with x1 fixed too it falls further (to 0 for the
    # paths of class 1 through x1 = 0), so the first pass keeps features that a second
    # pass, after a later removal, can drop
    features = [Feature(n, "binary") for n in ("a", "b", "c")]
    # class 1 iff (a = 1 and b = 1) or (a = 0 and c = 1) or (b = 0 and c = 0)
    from xdt.ir import Branch, CategoricalSplit

    def split(name, zero, one):
        return CategoricalSplit(name, (Branch((0,), zero), Branch((1,), one)))

    tree = DecisionTree(features, [0, 1], split(
        "a", split("c", split("b", Leaf(1), Leaf(0)), Leaf(1)),
        split("b", split("c", Leaf(1), Leaf(0)), Leaf(1))))
    d = ProductDistribution.uniform(tree)
    ex = xdt.Explainer(tree)
    marg = as_marginals([[1, 1]] * 3)
    for x in ({"a": a, "b": b, "c": c} for a in (0, 1) for b in (0, 1) for c in (0, 1)):
        for delta in (Fraction(1, 2), Fraction(3, 5), Fraction(3, 4), Fraction(1)):
            for start in (None, "all"):
                for order in ("features", "reverse"):
                    e = ex.delta_axp(x, delta, distribution=d, start=start, order=order)
                    assert brute_precision(tree, marg, x, e.features) >= delta
                    for n in e.features:
                        rest = [m for m in e.features if m != n]
                        assert brute_precision(tree, marg, x, rest) < delta


# ---------------------------------------------------------------------- properties
@settings(max_examples=examples(120))
@given(tree_case(), st.data())
def test_tree_precision_equals_brute_force(case, data):
    tree, x, weights = case
    names = list(tree.features.names)
    subset = data.draw(st.lists(st.sampled_from(names), unique=True))
    got = xdt.Explainer(tree).precision(x, subset, distribution=distribution_of(tree, weights))
    assert got == brute_precision(tree, as_marginals(weights), x, subset)


DELTAS = (Fraction(1, 3), Fraction(1, 2), Fraction(2, 3), 0.8, 0.95, Fraction(1))


@settings(max_examples=examples(120))
@given(tree_case(), st.sampled_from(DELTAS), st.sampled_from((None, "all", "path")),
       st.sampled_from((None, "features", "reverse")))
def test_delta_axps_are_locally_minimal_by_brute_force(case, delta, start, order):
    tree, x, weights = case
    d = distribution_of(tree, weights)
    marg = as_marginals(weights)
    ex = xdt.Explainer(tree)
    e = ex.delta_axp(x, delta, distribution=d, start=start, order=order, verify=True)
    exact = Fraction(str(delta)) if isinstance(delta, float) else delta
    assert e.precision == brute_precision(tree, marg, x, e.features) >= exact
    for n in e.features:
        rest = [m for m in e.features if m != n]
        assert e.certificate.drops[n] == brute_precision(tree, marg, x, rest) < exact
    if start is None:  # inside the AXp of the same order
        assert set(e.features) <= set(ex.axp(x, order=order).features)
    assert e.prediction == ex.predict(x)


@settings(max_examples=examples(80))
@given(tree_case(positive=True), st.sampled_from((None, "features", "reverse")))
def test_delta_one_with_positive_masses_is_the_axp(case, order):
    tree, x, weights = case
    ex = xdt.Explainer(tree)
    e = ex.delta_axp(x, 1, distribution=distribution_of(tree, weights), order=order,
                     verify=True)
    axp = ex.axp(x, order=order)
    assert (e.features, e.literals, e.cells) == (axp.features, axp.literals, axp.cells)
    assert e.precision == 1


@settings(max_examples=examples(60))
@given(tree_case(), st.data())
def test_coverage_equals_brute_force(case, data):
    tree, x, weights = case
    ex = xdt.Explainer(tree)
    which = data.draw(st.sampled_from(("axp", "inflated", "path", "delta")))
    if which == "axp":
        e = ex.axp(x)
    elif which == "inflated":
        e = ex.axp(x, inflate=True)
    elif which == "path":
        e = ex.axp(x, path_restricted=True)
    else:
        e = ex.delta_axp(x, 0.5, distribution=distribution_of(tree, weights))
    assert e.coverage(distribution_of(tree, weights)).product == brute_region_mass(
        tree, as_marginals(weights), e)
    # a dataset: the product of its marginals, and its rows
    rows = data.draw(st.lists(instance_strategy(tree), min_size=1, max_size=12))
    frame = pd.DataFrame(rows, columns=list(tree.features.names))
    enc = tree.encode(frame)
    counts = [np.bincount(enc[:, f], minlength=c.n_cells).tolist()
              for f, c in enumerate(tree.cells)]
    got = e.coverage(frame)
    assert got.product == brute_region_mass(tree, as_marginals(counts), e)
    held = dict(zip(e.features, e.cells, strict=True))
    inside = sum(all((held[n] >> int(r[tree.features.index(n)])) & 1 for n in held)
                 for r in enc)
    assert (got.covered, got.n_rows, got.rows) == (inside, len(rows),
                                                    Fraction(inside, len(rows)))
    assert e.coverage(EmpiricalDistribution(frame, tree)) == got


# ---------------------------------------------------------------------- empirical
def dnf_model() -> DNF:
    return DNF([Feature(n, "binary") for n in "abcd"], [0, 1],
               [[Condition("a", (1,)), Condition("b", (1,))],
                [Condition("c", (1,)), Condition("d", (1,))]])


def test_empirical_distribution_on_a_dnf():
    dnf = dnf_model()
    rng = np.random.default_rng(7)
    frame = pd.DataFrame(rng.integers(0, 2, (300, 4)), columns=list("abcd"))
    frame["label"] = "ignored"
    emp = EmpiricalDistribution(frame, dnf)
    x = {"a": 1, "b": 1, "c": 0, "d": 0}
    with xdt.Explainer(dnf) as ex:
        for subset in ([], ["a"], ["b"], ["a", "b"], ["c", "d"], list("abcd")):
            assert ex.precision(x, subset, distribution=emp) == brute_empirical(
                dnf, frame, x, subset)
        for delta in (0.5, 0.6, 0.75, 0.9, 1):
            e = ex.delta_axp(x, delta, distribution=emp, verify=True)
            assert brute_empirical(dnf, frame, x, e.features) >= Fraction(str(delta))
            for n in e.features:
                rest = [m for m in e.features if m != n]
                assert brute_empirical(dnf, frame, x, rest) < Fraction(str(delta))
            agree = frame[(frame[list(e.features)] == pd.Series(x)[list(e.features)]).all(
                axis=1)] if e.features else frame
            assert e.certificate.support == len(agree)
        # with a product distribution a DNF has no exact precision here
        with pytest.raises(EngineNotAvailableError, match="EmpiricalDistribution"):
            ex.delta_axp(x, 0.9, distribution=frame)


@settings(max_examples=examples(25))
@given(ensembles(), st.data())
def test_empirical_distribution_on_tree_ensembles(model, data):
    rows = [ensemble_instance(data.draw, model)
            for _ in range(data.draw(st.integers(1, 15)))]
    x = rows[0]
    frame = pd.DataFrame(rows, columns=list(model.features.names))
    emp = EmpiricalDistribution(frame, model)
    delta = data.draw(st.sampled_from((0.5, 0.7, 0.9, 1)))
    with xdt.Explainer(model) as ex:
        e = ex.delta_axp(x, delta, distribution=emp, verify=True)
        assert set(e.features) <= set(ex.axp(x).features)
    assert brute_empirical(model, frame, x, e.features) >= Fraction(str(delta))
    for n in e.features:
        rest = [m for m in e.features if m != n]
        assert brute_empirical(model, frame, x, rest) < Fraction(str(delta))


def test_empirical_precision_without_an_agreeing_row():
    tree = small_tree()
    frame = pd.DataFrame({"x": [0.0, 0.2], "y": [0.0, 3.0]})
    ex = xdt.Explainer(tree)
    with pytest.raises(EmptyConditionError, match="no row of the data") as info:
        ex.delta_axp({"x": 1, "y": 1}, 0.9, distribution=EmpiricalDistribution(frame, tree))
    assert info.value.features == ("x", "y")
    assert isinstance(info.value, DataError)


# ---------------------------------------------------------------------- certificates
def test_a_tampered_certificate_fails_its_check():
    from dataclasses import replace

    tree = small_tree()
    d = ProductDistribution(tree, {"x": [1, 1], "y": [1, 19]})
    e = xdt.Explainer(tree).delta_axp({"x": 1, "y": 1}, 0.95, distribution=d)
    check_precision_certificate(tree, e, d)
    wrong = replace(e, certificate=replace(e.certificate, precision=Fraction(1)))
    with pytest.raises(CertificateError, match="by enumeration"):
        check_precision_certificate(tree, wrong, d)
    wrong = replace(e, certificate=replace(e.certificate, drops={"x": Fraction(1, 3)}))
    with pytest.raises(CertificateError, match="without 'x'"):
        check_precision_certificate(tree, wrong, d)
    # a set whose one feature can be dropped is not locally minimal
    bigger = xdt.Explainer(tree).delta_axp({"x": 1, "y": 1}, 0.96, distribution=d)
    claimed = replace(bigger, certificate=replace(bigger.certificate, delta=Fraction(19, 20)))
    with pytest.raises(CertificateError, match="not locally minimal"):
        check_precision_certificate(tree, claimed, d)


def test_the_leaf_box_check_of_a_large_space():
    """Beyond max_points the check sums over the tree's leaf boxes; it agrees."""
    from xdt.explain.queries._probability import brute_force_precision

    tree = small_tree()
    d = ProductDistribution(tree, {"x": [1, 3], "y": [2, 5]})
    values, cells = [1, 1], [1, 1]
    for mask in range(4):
        full = brute_force_precision(tree, d, values, cells, 1, mask)
        boxes = brute_force_precision(tree, d, values, cells, 1, mask, max_points=0)
        assert full == boxes
    assert brute_force_precision(tree, d, values, cells, 1, 0) == Fraction(3, 4) * Fraction(5, 7)


# ---------------------------------------------------------------------- distributions
def test_product_distribution_from_data_and_smoothing():
    tree = small_tree()
    frame = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0], "y": [1.0, 1.0, 1.0, 0.0],
                          "target": [0, 1, 1, 0]})
    d = ProductDistribution.from_data(frame, tree)
    assert d.marginal("x") == (Fraction(1, 4), Fraction(3, 4))
    assert d.marginal("y") == (Fraction(1, 4), Fraction(3, 4)) and d.n_rows == 4
    s = ProductDistribution.from_data(frame, tree, smoothing=1)
    assert s.marginal("x") == (Fraction(2, 6), Fraction(4, 6))
    half = ProductDistribution.from_data(frame, tree, smoothing=0.5)
    assert half.marginal("y") == (Fraction(3, 10), Fraction(7, 10))
    # rows in feature order are read as the model reads them
    same = ProductDistribution.from_data(frame[["x", "y"]].to_numpy(), tree)
    assert same.weights == d.weights
    assert "4 rows" in repr(d)
    # a DataFrame as distribution means its product distribution
    ex = xdt.Explainer(tree)
    assert ex.precision({"x": 1, "y": 1}, ["x"], distribution=frame) == Fraction(3, 4)


def test_explicit_marginals_by_value_and_their_errors():
    features = [Feature("colour", "categorical", ("red", "green", "blue")),
                Feature("n", "ordinal")]
    from xdt.ir import Branch, CategoricalSplit

    tree = DecisionTree(features, ["no", "yes"], CategoricalSplit("colour", (
        Branch(("red",), ThresholdSplit("n", 2, Leaf("no"), Leaf("yes"))),
        Branch(("green", "blue"), Leaf("no")))))
    d = ProductDistribution(tree, {"colour": {"red": 0.5, "green": 0.25, "blue": 0.25},
                                   "n": {1: 1, 2: 1, 5: 2}})
    assert d.marginal("colour") == (Fraction(1, 2), Fraction(1, 4), Fraction(1, 4))
    assert d.marginal("n") == (Fraction(1, 2), Fraction(1, 2))  # 1 and 2 share n <= 2
    ex = xdt.Explainer(tree)
    x = {"colour": "red", "n": 3}
    assert ex.precision(x, ["n"], distribution=d) == Fraction(1, 2)
    with pytest.raises(MissingFeatureError, match="'n'"):
        ProductDistribution(tree, {"colour": [1, 1, 1]})
    with pytest.raises(UnknownFeatureError, match="size"):
        ProductDistribution(tree, {"colour": [1, 1, 1], "n": [1, 1], "size": [1]})
    with pytest.raises(ParameterError, match="3 cells"):
        ProductDistribution(tree, {"colour": [1, 1], "n": [1, 1]})
    with pytest.raises(ParameterError, match="non-negative"):
        ProductDistribution(tree, {"colour": [1, -1, 1], "n": [1, 1]})
    with pytest.raises(ParameterError, match="add up to 0"):
        ProductDistribution(tree, {"colour": [0, 0, 0], "n": [1, 1]})
    with pytest.raises(ParameterError, match="finite"):
        ProductDistribution(tree, {"colour": [1, math.nan, 1], "n": [1, 1]})
    with pytest.raises(UnknownCategoryError):
        ProductDistribution(tree, {"colour": {"pink": 1}, "n": [1, 1]})


def test_data_errors_name_the_row():
    tree = small_tree()
    with pytest.raises(MissingFeatureError, match=r"\['y'\]"):
        ProductDistribution.from_data(pd.DataFrame({"x": [1.0]}), tree)
    with pytest.raises(MissingValueError, match="row 2"):
        ProductDistribution.from_data(pd.DataFrame({"x": [1.0, 2.0, np.nan],
                                                    "y": [0.0, 0.0, 0.0]}), tree)
    with pytest.raises(MissingValueError, match="row 1"):
        EmpiricalDistribution(pd.DataFrame({"x": [1.0, None], "y": [0.0, 0.0]}), tree)
    with pytest.raises(DataError, match="no rows"):
        ProductDistribution.from_data(pd.DataFrame({"x": [], "y": []}), tree)
    with pytest.raises(DataError, match="DataFrame"):
        ProductDistribution.from_data("data.csv", tree)
    with pytest.raises(ParameterError, match="smoothing"):
        ProductDistribution.from_data(pd.DataFrame({"x": [1.0], "y": [1.0]}), tree,
                                      smoothing=-1)
    dnf = dnf_model()
    with pytest.raises(UnknownCategoryError, match="row 1 "):
        EmpiricalDistribution(pd.DataFrame({"a": [0, 7], "b": [0, 0], "c": [0, 0],
                                            "d": [0, 0]}), dnf)


def test_parameter_errors():
    tree = small_tree()
    d = ProductDistribution.uniform(tree)
    ex = xdt.Explainer(tree)
    x = {"x": 1, "y": 1}
    for bad in (0, -0.5, 1.5, math.nan, math.inf, True, "0.9", None):
        with pytest.raises(ParameterError, match="delta"):
            ex.delta_axp(x, bad, distribution=d)
    with pytest.raises(ParameterError, match="below delta"):
        ex.delta_axp(x, 0.9, distribution=d, start=["y"])
    with pytest.raises(ParameterError, match="start must be"):
        ex.delta_axp(x, 0.9, distribution=d, start="everything")
    with pytest.raises(ParameterError, match="ProductDistribution"):
        ex.delta_axp(x, 0.9, distribution={"x": [1, 1]})
    other = DecisionTree([Feature("x", "ordinal"), Feature("y", "ordinal")], [0, 1],
                         ThresholdSplit("x", 1.5, Leaf(0), Leaf(1)))
    with pytest.raises(ParameterError, match="another model"):
        ex.delta_axp(x, 0.9, distribution=ProductDistribution.uniform(other))
    with pytest.raises(ParameterError, match="another model"):
        ex.axp(x).coverage(ProductDistribution.uniform(other))
    cxp = ex.cxp(x)
    with pytest.raises(ParameterError, match="CXp"):
        cxp.coverage(d)
    with pytest.raises(EngineNotAvailableError, match="start='path'"):
        xdt.Explainer(dnf_model()).delta_axp({"a": 1, "b": 1, "c": 0, "d": 0}, 0.9,
                                             distribution=EmpiricalDistribution(
                                                 pd.DataFrame([[1, 1, 0, 0]],
                                                              columns=list("abcd")),
                                                 dnf_model()), start="path")


def test_delta_axp_of_a_tree_ensemble_with_a_product_distribution_is_refused():
    from sklearn.ensemble import RandomForestClassifier

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.random((60, 3)), columns=["p", "q", "r"])
    y = (X["p"] + X["q"] > 1).astype(int)
    forest = xdt.from_sklearn(RandomForestClassifier(n_estimators=3, max_depth=2,
                                                     random_state=0).fit(X, y))
    with xdt.Explainer(forest) as ex, pytest.raises(EngineNotAvailableError,
                                                    match="tree ensemble"):
        ex.delta_axp(X.iloc[0], 0.9, distribution=X)


# ---------------------------------------------------------------------- real data
def test_compas_delta_axps_are_shorter_and_certified(datasets_dir):
    from xdt.learn import CARTClassifier

    frame = pd.read_csv(datasets_dir / "compas.csv")
    X, y = frame.drop(columns="Two_yr_Recidivism"), frame["Two_yr_Recidivism"]
    tree = CARTClassifier(max_depth=8).fit(X, y).tree_
    ex = xdt.Explainer(tree)
    product = ProductDistribution.from_data(frame, tree)
    empirical = EmpiricalDistribution(frame, tree)
    shorter = 0
    for i in range(0, 600, 30):
        x = X.iloc[i]
        axp = ex.axp(x)
        e = ex.delta_axp(x, 0.95, distribution=product, verify=True)
        assert e.verified and e.precision >= Fraction(19, 20)
        assert set(e.features) <= set(axp.features)
        shorter += len(e) < len(axp)
        f = ex.delta_axp(x, 0.95, distribution=empirical, verify=True)
        assert f.verified and f.certificate.support >= 1
        # the delta-AXp's region is at least as wide as the AXp's, in data and in space
        big, small = e.coverage(frame), axp.coverage(frame)
        assert big.product >= small.product and big.rows >= small.rows
        assert small.covered >= 1  # the instance's own row lies in its AXp's region
    assert shorter >= 10  # 17 of these 20 rows at depth 8


# ---------------------------------------------------------------------- command line
def test_cli_delta_and_coverage(tmp_path):
    tree = small_tree()
    path = tmp_path / "tree.json"
    xdt.save_model(tree, path)
    data = tmp_path / "data.csv"
    pd.DataFrame({"x": [0.0, 1, 1, 1, 2, 1, 3, 1, 1, 1],
                  "y": [1.0, 1, 1, 0, 3, 2, 2, 2, 2, 2]}).to_csv(data, index=False)
    # x > 0.5 in 9 of 10 rows, y > 0.5 in 9 of 10: fixing y alone keeps 9/10 (x, the root,
    # is tried first for removal)
    result = run("explain", str(path), "--instance", '{"x": 1, "y": 1}', "--delta", "0.9",
                 "--data", str(data), "--coverage")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "AXp (2 features): IF 0.5 < x AND 0.5 < y THEN 1" in out
    assert "delta-AXp (1 feature, precision 0.9 >= 0.9, product distribution of 10 rows): " \
           "IF 0.5 < y THEN 1" in out
    assert "precision without each feature: y 0.81" in out
    assert "coverage of the AXp: 0.81 of the space (product of the data's marginals), " \
           "8 of 10 rows (0.8)" in out
    assert "coverage of the delta-AXp: 0.9 of the space (product of the data's marginals), " \
           "9 of 10 rows (0.9)" in out
    result = run("explain", str(path), "--instance", '{"x": 1, "y": 1}', "--delta", "0.9",
                 "--data", str(data), "--distribution", "empirical", "--format", "jsonl")
    assert result.exit_code == 0, result.output
    import json

    record = json.loads(result.stdout)
    # rows agreeing on x > 0.5: 9, of which 8 predicted 1 (8/9 < 0.9); on y > 0.5 too: so
    # the empirical delta-AXp is the AXp, of precision 1
    assert record["delta_axp"]["features"] == ["x", "y"]
    assert record["delta_axp"]["precision"] == {"exact": "1", "float": 1.0}
    assert record["delta_axp"]["certificate"]["drops"] == {
        "x": {"exact": "8/9", "float": 8 / 9}, "y": {"exact": "8/9", "float": 8 / 9}}
    assert record["delta_axp"]["verified"] is True
    # --delta without data, or with a bad value, fails cleanly
    assert_clean_failure(run("explain", str(path), "--instance", '{"x": 1, "y": 1}',
                             "--delta", "0.9"), "--delta", "--data")
    assert_clean_failure(run("explain", str(path), "--instance", '{"x": 1, "y": 1}',
                             "--delta", "1.5", "--data", str(data)), "1.5")


def test_readme_block_shows_what_it_claims():
    from mdblocks import readme_block

    block = readme_block("delta_axp")
    scope: dict = {}
    exec("import xdt\n" + block, scope)  # noqa: S102 - the README's own example
    axp, d = scope["axp"], scope["d"]
    assert axp.features == ("checking_status", "credit_history", "age",
                            "other_payment_plans")
    assert repr(d) == ("<delta-AXp, precision 0.9784 >= 0.95: IF checking_status = no "
                       "checking AND 44.5 < age THEN class = good>")
    assert d.verified and all(p < Fraction(19, 20) for p in d.certificate.drops.values())
    assert {k: float(p) for k, p in d.certificate.drops.items()} == {
        "checking_status": 0.8546917966670096, "age": 0.873482958874456}
    from xdt.explain.queries._probability import EmpiricalDistribution

    emp = scope["ex"].delta_axp(scope["X"].iloc[2], 0.95,
                                distribution=EmpiricalDistribution(scope["frame"], scope["tree"]))
    assert repr(emp) == ("<delta-AXp, precision 0.9651 >= 0.95: IF checking_status = no "
                         "checking AND 44.5 < age THEN class = good>")
    frame = scope["frame"]
    assert repr(axp.coverage(frame)).startswith("Coverage(product=0.0188879 [")
    assert repr(axp.coverage(frame)).endswith("rows=35/1000 = 0.035)")
    assert repr(d.coverage(frame)) == ("Coverage(product=0.079194 [39597/500000], "
                                       "rows=86/1000 = 0.086)")


def test_cli_names_the_bad_row_of_the_distribution_data_and_refuses_nan(tmp_path):
    from clitools import assert_clean_failure, run

    from xdt.ir import DecisionTree, Feature, Leaf, ThresholdSplit

    tree = DecisionTree([Feature("age", "ordinal")], ["young", "old"],
                        ThresholdSplit("age", 40, Leaf("young"), Leaf("old")))
    path, data = tmp_path / "m.json", tmp_path / "d.csv"
    xdt.save_model(tree, path)
    data.write_text("age\n30\n50\nold\n")
    assert_clean_failure(run("explain", str(path), "-i", '{"age": 30}', "--data", str(data),
                             "--delta", "0.7"), "row 2: ordinal feature 'age' needs numbers, "
                                                "got 'old'")
    data.write_text("age\n30\n50\n")
    assert_clean_failure(run("explain", str(path), "-i", '{"age": 30}', "--data", str(data),
                             "--delta", "nan"), "nan is not a number in (0, 1]")


def test_a_marginal_that_is_no_sequence_is_a_clear_error():
    from xdt.errors import ParameterError
    from xdt.explain.queries._probability import ProductDistribution
    from xdt.ir import DecisionTree, Feature, Leaf, ThresholdSplit

    tree = DecisionTree([Feature("age", "ordinal")], ["young", "old"],
                        ThresholdSplit("age", 40, Leaf("young"), Leaf("old")))
    with pytest.raises(ParameterError, match="the marginal of feature 'age' must be weights "
                                             "per cell"):
        ProductDistribution(tree, {"age": 3})
