"""The box engine on tree ensembles (:mod:`xdt.explain.engines._ensemble_box`): every entailment
answer and counterexample equals brute force over the cell space (every point's class by the
IR's ``predict_cells``), its one-call deletion equals deletion query by query, and it gives
the SAT engine's answers on real forests and boosted trees."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from ensemble_strategies import ensembles, instance
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tiers import examples

import xdt
from xdt.explain.checks import _verify as verify
from xdt.explain.engines._ensemble_box import BoxOracle
from xdt.explain.queries._duality import deletion_axp
from xdt.ir import DecisionTree, Feature, Leaf, ThresholdSplit
from xdt.ir._ensemble import TreeEnsemble

SETTINGS = settings(max_examples=examples(80), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _sets(explanations) -> set[frozenset[str]]:
    return {frozenset(e.features) for e in explanations}


def _oracle(model: TreeEnsemble, x: dict, **kw) -> BoxOracle:
    cells = model.encode([x])[0].tolist()
    c = int(model.predict_cells(np.asarray([cells]))[0])
    return BoxOracle(model, cells, [1 << v for v in cells], (1 << len(cells)) - 1, c, **kw)


@given(data=st.data())
@SETTINGS
def test_box_entailment_equals_brute_force_on_every_subset(data):
    model = data.draw(ensembles())
    x = instance(data.draw, model)
    bf = verify.brute_force(model, x)
    o = _oracle(model, x)
    names = model.features.names
    for mask in range(1 << len(names)):
        fixed = [names[f] for f in range(len(names)) if (mask >> f) & 1]
        point = o.counterexample(mask)
        assert (point is None) == bf.is_weak_axp(fixed)
        assert o.entails(mask) == bf.is_weak_axp(fixed)
        if point is not None:
            assert int(model.predict_cells(np.asarray([point]))[0]) != o.prediction
            assert all(point[f] == o.cells[f] for f in range(len(names)) if (mask >> f) & 1)


@given(data=st.data())
@SETTINGS
def test_box_deletion_in_one_call_equals_deletion_query_by_query(data):
    model = data.draw(ensembles())
    x = instance(data.draw, model)
    o = _oracle(model, x)
    n = len(model.features)
    order = data.draw(st.permutations(range(n)))
    one_call = o.deletion(o.universe, order)
    o2 = _oracle(model, x)
    o2.deletion = lambda start, order: None  # force the query-by-query loop
    assert one_call == deletion_axp(o2, order)


@given(data=st.data())
@SETTINGS
def test_box_engine_explanations_equal_brute_force(data):
    model = data.draw(ensembles())
    x = instance(data.draw, model)
    bf = verify.brute_force(model, x)
    ex = xdt.Explainer(model, engine="box")
    assert ex.predict(x) == bf.prediction
    assert _sets(ex.all_axps(x)) == set(bf.axps)
    assert _sets(ex.all_cxps(x)) == set(bf.cxps)
    assert frozenset(ex.axp(x).features) in bf.axps
    assert len(ex.smallest_axp(x).features) == min(len(a) for a in bf.axps)


@given(data=st.data())
@settings(max_examples=examples(40), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
def test_box_queries_past_the_limit_go_to_the_sat_engine(data):
    """With a limit of one box, every query the bounds do not decide at once is handed to the
    SAT engine: the answers stay those of brute force."""
    model = data.draw(ensembles())
    x = instance(data.draw, model)
    bf = verify.brute_force(model, x)
    sat = xdt.Explainer(model, engine="sat")
    q = sat._query(x, False)
    o = _oracle(model, x, fallback=lambda: q.oracle, max_boxes=1)
    names = model.features.names
    for mask in range(1 << len(names)):
        fixed = [names[f] for f in range(len(names)) if (mask >> f) & 1]
        assert o.entails(mask) == bf.is_weak_axp(fixed)


def test_float32_sum_rounds_to_zero_and_the_tie_rule_decides():
    """Trees add 2**24 (x > 0.5), 2**-25 (y > 0.5) and -2**24 (x > 0.5): at x = y = 1 the real
    sum is 2**-25 > 0, but in float32 2**24 + 2**-25 is 2**24 and the score is exactly 0.0, so
    the binary margin (classes[1] iff score > 0) gives classes[0], and x alone explains it;
    in float64 the sum is exact, the class is 1 and y alone explains it."""
    fs = [Feature("x", "ordinal"), Feature("y", "ordinal")]
    big, tiny = 16777216.0, 2.0 ** -25

    def stump(feature, right):
        return DecisionTree(fs, [0, 1], ThresholdSplit(feature, 0.5, Leaf(0, (0.0,)),
                                                        Leaf(1, (right,))))

    for precision, label, axp in (("float32", 0, "x"), ("float64", 1, "y")):
        m = TreeEnsemble(fs, [0, 1], [stump("x", big), stump("y", tiny), stump("x", -big)],
                         "margin", precision=precision)
        x = {"x": 1.0, "y": 1.0}
        ex = xdt.Explainer(m, engine="box")
        assert ex.predict(x) == label
        assert _sets(ex.all_axps(x)) == {frozenset({axp})}
        assert _sets(ex.all_cxps(x)) == {frozenset({axp})}


def test_averaged_probabilities_tie_goes_to_the_first_class():
    """Two trees of probabilities, (0.1, 0.9) for x <= 0.5 else (0.9, 0.1), and (0.9, 0.1) for
    y <= 0.5 else (0.1, 0.9), averaged. Sums per cell (x, y): (0, 0) and (1, 1): (1.0, 1.0),
    an exact tie, which numpy.argmax gives to class 0; (0, 1): (0.2, 1.8) -> 1; (1, 0):
    (1.8, 0.2) -> 0."""
    fs = [Feature("x", "ordinal"), Feature("y", "ordinal")]
    t1 = DecisionTree(fs, [0, 1], ThresholdSplit("x", 0.5, Leaf(1, (0.1, 0.9)),
                                                 Leaf(0, (0.9, 0.1))))
    t2 = DecisionTree(fs, [0, 1], ThresholdSplit("y", 0.5, Leaf(0, (0.9, 0.1)),
                                                 Leaf(1, (0.1, 0.9))))
    m = TreeEnsemble(fs, [0, 1], [t1, t2], "proba", divisor=2)
    grid = [{"x": a, "y": b} for a in (0, 1) for b in (0, 1)]
    assert m.predict(grid).tolist() == [0, 1, 0, 0]
    ex = xdt.Explainer(m, engine="box")
    # (1, 0): class 0 whatever y is when x = 1 ((1,0) and (1,1) are 0), and whatever x is
    # when y = 0 ((0,0) and (1,0) are 0): two AXps of one feature each
    assert _sets(ex.all_axps({"x": 1, "y": 0})) == {frozenset({"x"}), frozenset({"y"})}
    assert _sets(ex.all_axps({"x": 0, "y": 1})) == {frozenset({"x", "y"})}


@pytest.mark.slow
def test_box_and_sat_engines_agree_on_real_forests_and_boosted_trees():
    from conftest import DATASETS, require_shared
    from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier
    frame = pd.read_csv(require_shared(DATASETS / "compas.csv"))
    X, y = frame.iloc[:, :-1], frame.iloc[:, -1]
    for est in (RandomForestClassifier(n_estimators=30, max_depth=5, random_state=0),
                GradientBoostingClassifier(n_estimators=30, max_depth=3, random_state=0)):
        m = xdt.from_sklearn(est.fit(X, y))
        box, sat = xdt.Explainer(m, engine="box"), xdt.Explainer(m, engine="sat")
        for i in range(0, 40, 4):
            row = X.iloc[i]
            assert box.axp(row).features == sat.axp(row).features
            assert _sets(box.all_cxps(row)) == _sets(sat.all_cxps(row))


def _tie_model() -> TreeEnsemble:
    fs = [Feature("x", "ordinal"), Feature("y", "ordinal")]
    t1 = DecisionTree(fs, [0, 1], ThresholdSplit("x", 0.5, Leaf(1, (0.1, 0.9)),
                                                 Leaf(0, (0.9, 0.1))))
    t2 = DecisionTree(fs, [0, 1], ThresholdSplit("y", 0.5, Leaf(0, (0.9, 0.1)),
                                                 Leaf(1, (0.1, 0.9))))
    return TreeEnsemble(fs, [0, 1], [t1, t2], "proba", divisor=2)


@pytest.mark.parametrize("rounds, how", [(None, "the SAT engine finds one"),
                                          (0, "enumerating the box .* finds one")])
def test_box_proof_is_rechecked_by_the_sat_engine(monkeypatch, rounds, how):
    """The box engine's certificate names its proof; a forged one (the AXp {x, y} of (0, 1)
    cut to {x}, which is no weak AXp: (0, 0) is class 0) is refuted by the SAT engine, or,
    when that meets its limit of solver calls, by enumerating the box."""
    from dataclasses import replace

    from xdt.explain.checks import _certificates as certificates
    from xdt.explain.checks._certificates import BoxProof, check_certificate

    if rounds is not None:
        monkeypatch.setattr(certificates, "SAT_CHECK_ROUNDS", rounds)

    m = _tie_model()
    ex = xdt.Explainer(m)
    assert ex.engine == "box"
    x = {"x": 0.0, "y": 1.0}
    e = ex.axp(x, verify=True)
    assert e.features == ("x", "y")
    assert isinstance(e.certificate.proof, BoxProof)
    assert e.certificate.proof.to_dict()["engine"] == "box"
    cert = e.certificate
    forged = replace(e, features=("x",), values=(0.0,), cells=(0b1,),
                     certificate=replace(cert, held={"x": (0,)},
                                         witnesses={"x": cert.witnesses["x"]},
                                         proof=replace(cert.proof, features=("x",))))
    with pytest.raises(xdt.errors.CertificateError, match=how):
        check_certificate(m, forged)


def test_box_engine_on_a_model_that_is_not_an_ensemble_says_what_to_use():
    from xdt.errors import EngineNotAvailableError

    tree = _tie_model().trees[0]
    with pytest.raises(EngineNotAvailableError, match="box engine explains tree ensembles.*"
                                                      "engine='path' or 'sat'"):
        xdt.Explainer(tree, engine="box")


@pytest.mark.slow
def test_deep_searches_grow_the_stack_of_boxes_and_keep_their_answers():
    """A forest over continuous features needs searches many boxes deep: with a stack of one
    box to start with (grown as needed) every entailment answer and AXp is the same."""
    from conftest import DATASETS, require_shared
    from sklearn.ensemble import RandomForestClassifier
    frame = pd.read_csv(require_shared(DATASETS / "indians-diabetes.csv"))
    X, y = frame.iloc[:, :-1], frame.iloc[:, -1]
    m = xdt.from_sklearn(RandomForestClassifier(n_estimators=20, max_depth=6,
                                                random_state=0).fit(X, y))
    n = len(m.features)
    for i in range(0, 60, 6):
        cells = m.encode(X.iloc[[i]])[0].tolist()
        c = int(m.predict_cells(np.asarray([cells]))[0])
        args = (m, cells, [1 << v for v in cells], (1 << n) - 1, c)
        small, big = BoxOracle(*args, stack=1), BoxOracle(*args, stack=4096)
        for fixed in range(0, 1 << n, 7):
            assert small.counterexample(fixed) == big.counterexample(fixed)
        assert small.deletion(small.universe, []) == big.deletion(big.universe, [])


@given(data=st.data())
@SETTINGS
def test_compiled_classify_equals_predict_cells_on_every_point(data):
    """The box engine's one-point prediction (what the Explainer reads an instance's class
    from) is the IR's ``predict_cells`` on every point of the cell space, near-ties included."""
    import itertools

    from xdt.explain.engines._ensemble_box import prepare

    model = data.draw(ensembles())
    grid = np.asarray(list(itertools.product(*[range(c.n_cells) for c in model.cells])))
    expected = model.predict_cells(grid).tolist()
    p = prepare(model)
    assert [p.classify(row) for row in grid.tolist()] == expected
