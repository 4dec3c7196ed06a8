"""The SAT engine on tree ensembles: every answer equals brute force over the cell space,
where every point's class is the IR's ``predict_cells`` (floats summed in the library's
order and precision, ties included)."""

from __future__ import annotations

import numpy as np
import pytest
from ensemble_strategies import ensembles, instance
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import xdt
from xdt.errors import EngineNotAvailableError
from xdt.explain import verify
from xdt.ir import DecisionTree, Feature, Leaf, ThresholdSplit
from xdt.ir.ensemble import TreeEnsemble

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _sets(explanations) -> set[frozenset[str]]:
    return {frozenset(e.features) for e in explanations}


def _check_against_brute_force(model: TreeEnsemble, x: dict) -> None:
    bf = verify.brute_force(model, x)
    with xdt.Explainer(model) as ex:
        assert ex.engine == "sat"
        assert ex.predict(x) == bf.prediction
        assert _sets(ex.all_axps(x)) == set(bf.axps)
        assert _sets(ex.all_cxps(x)) == set(bf.cxps)
        assert frozenset(ex.axp(x).features) in bf.axps
        cxp = ex.cxp(x)
        if bf.cxps:
            assert frozenset(cxp.features) in bf.cxps
        else:
            assert cxp is None
        assert len(ex.smallest_axp(x).features) == min(len(a) for a in bf.axps)
        assert set(ex.relevant_features(x)) == bf.relevant
        assert set(ex.necessary_features(x)) == bf.necessary


@pytest.mark.parametrize("combine", ["vote", "proba", "margin"])
@given(data=st.data())
@SETTINGS
def test_ensemble_explanations_equal_brute_force(combine, data):
    model = data.draw(ensembles(combine=combine))
    x = instance(data.draw, model)
    _check_against_brute_force(model, x)


@given(data=st.data())
@SETTINGS
def test_ensemble_entailment_equals_brute_force_on_every_subset(data):
    """Every subset of features: the engine's entailment answer and counterexample agree
    with the exhaustive check, and a counterexample really has another class."""
    model = data.draw(ensembles())
    x = instance(data.draw, model)
    bf = verify.brute_force(model, x)
    ex = xdt.Explainer(model)
    q = ex._query(x, False)
    names = model.features.names
    for mask in range(1 << len(names)):
        fixed = [names[f] for f in range(len(names)) if (mask >> f) & 1]
        assert q.oracle.entails(mask) == bf.is_weak_axp(fixed)
        point = q.oracle.counterexample(mask)
        assert (point is None) == bf.is_weak_axp(fixed)
        if point is not None:
            assert int(model.predict_cells(np.asarray([point]))[0]) != q.prediction
            assert all(point[f] == q.cells[f] for f in range(len(names)) if (mask >> f) & 1)


# ---------------------------------------------------------------------- crafted floats
def _stump(fs, value_left, value_right, feature="x", threshold=0.5):
    return DecisionTree(fs, [0, 1], ThresholdSplit(feature, threshold, Leaf(0, value_left),
                                                    Leaf(1, value_right)))


def test_float32_sum_rounds_to_zero_and_the_tie_rule_decides():
    """Trees add 2**24 (x > 0.5), 2**-25 (y > 0.5) and -2**24 (x > 0.5). At x = y = 1 the
    real sum is 2**-25 > 0, but in float32 2**24 + 2**-25 rounds to 2**24 and the score is
    0.0 exactly: the binary margin predicts classes[1] iff score > 0, so it is classes[0].
    In float64 the sum is exact and the class is 1. Over the four cells the classes are
    float32: (x, y) = (0, 1) -> 1, else 0 (so x alone explains (1, 1)); float64: the class
    is y (so y alone explains it)."""
    fs = [Feature("x", "ordinal"), Feature("y", "ordinal")]
    big, tiny = 16777216.0, 2.0 ** -25
    for precision, label, axp in (("float32", 0, "x"), ("float64", 1, "y")):
        trees = [_stump(fs, (0.0,), (big,)), _stump(fs, (0.0,), (tiny,), "y"),
                 _stump(fs, (0.0,), (-big,))]
        m = TreeEnsemble(fs, [0, 1], trees, "margin", precision=precision)
        x = {"x": 1.0, "y": 1.0}
        assert m.predict([x]).tolist() == [label]
        ex = xdt.Explainer(m)
        assert ex.predict(x) == label
        assert _sets(ex.all_axps(x)) == {frozenset({axp})}
        assert _sets(ex.all_cxps(x)) == {frozenset({axp})}


def test_multiclass_tie_by_rounding_and_exact_tie_to_the_first_class():
    """Tree 1 adds (0.3, 0, 0) for x <= 0.5, else (0.3, 0.1, 0); tree 2 adds (0, 0, 0) for
    y <= 0.5, else (0, 0.2, 0.3). At (x, y) = (1, 1) the scores are (0.3,
    0.30000000000000004, 0.3): 0.1 + 0.2 > 0.3 in float64, so class 1 wins by rounding. At
    (0, 1) they are (0.3, 0.2, 0.3): an exact tie of classes 0 and 2, which numpy.argmax
    gives to class 0. Every other cell is class 0."""
    fs = [Feature("x", "ordinal"), Feature("y", "ordinal")]
    trees = [DecisionTree(fs, [0, 1, 2], ThresholdSplit(
                 "x", 0.5, Leaf(0, (0.3, 0.0, 0.0)), Leaf(1, (0.3, 0.1, 0.0)))),
             DecisionTree(fs, [0, 1, 2], ThresholdSplit(
                 "y", 0.5, Leaf(0, (0.0, 0.0, 0.0)), Leaf(1, (0.0, 0.2, 0.3))))]
    m = TreeEnsemble(fs, [0, 1, 2], trees, "margin")
    assert m.predict([{"x": 1, "y": 1}, {"x": 0, "y": 1}]).tolist() == [1, 0]
    ex = xdt.Explainer(m)
    assert ex.predict({"x": 1, "y": 1}) == 1
    assert _sets(ex.all_axps({"x": 1, "y": 1})) == {frozenset({"x", "y"})}
    assert ex.predict({"x": 0, "y": 1}) == 0
    assert _sets(ex.all_axps({"x": 0, "y": 1})) == {frozenset({"x"})}


# ---------------------------------------------------------------------- errors
def _small():
    fs = [Feature("x", "ordinal")]
    return TreeEnsemble(fs, [0, 1], [_stump(fs, (-1.0,), (1.0,))], "margin")


def test_path_engine_on_an_ensemble_says_what_to_use():
    with pytest.raises(EngineNotAvailableError, match="tree ensemble.*engine='sat'"):
        xdt.Explainer(_small(), engine="path")


def test_path_notions_on_an_ensemble_raise():
    ex = xdt.Explainer(_small())
    with pytest.raises(EngineNotAvailableError, match="tree ensemble"):
        ex.axp({"x": 1.0}, path_restricted=True)
    with pytest.raises(EngineNotAvailableError, match="tree ensemble"):
        ex.path_is_redundant({"x": 1.0})
    with pytest.raises(EngineNotAvailableError, match="tree ensemble"):
        ex.path_features({"x": 1.0})
    with pytest.raises(EngineNotAvailableError, match="tree ensemble"):
        ex.axp({"x": 1.0}, order="path")


def test_unknown_solver_on_an_ensemble():
    with pytest.raises(EngineNotAvailableError, match="unknown SAT solver"):
        xdt.Explainer(_small(), solver="nosuchsolver")


def test_other_solver_gives_the_same_answers():
    m = _small()
    assert xdt.Explainer(m, solver="glucose4").axp({"x": 1.0}).features == ("x",)
