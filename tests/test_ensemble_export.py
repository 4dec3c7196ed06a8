"""DIMACS and WCNF export of tree ensembles: the complete CNF of a vote and the MaxSAT form
of sums answer every entailment question as brute force over the cell space does."""

from __future__ import annotations

import pytest
from ensemble_strategies import DYADIC, ensembles, instance
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pysat.examples.rc2 import RC2
from pysat.formula import WCNF
from pysat.solvers import Solver
from tiers import examples

from xdt.errors import UnsupportedModelError
from xdt.explain.checks import _verify as verify
from xdt.explain.export._dimacs import dimacs_text, parse_dimacs, wcnf_query, wcnf_text
from xdt.ir import DecisionTree, Feature, Leaf, ThresholdSplit
from xdt.ir._ensemble import TreeEnsemble

SETTINGS = settings(max_examples=examples(40), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def _subsets(names):
    for mask in range(1 << len(names)):
        yield [n for i, n in enumerate(names) if (mask >> i) & 1]


@given(data=st.data())
@SETTINGS
def test_vote_dimacs_is_a_complete_cnf(data):
    """The written CNF of a vote (sequential counters, ties to the first class) is UNSAT
    under the selectors of S exactly when S is a weak AXp, for every S; its models decode
    to points of another class."""
    model = data.draw(ensembles(combine="vote"))
    x = instance(data.draw, model)
    bf = verify.brute_force(model, x)
    q = parse_dimacs(dimacs_text(model, x))
    assert q.prediction == bf.prediction
    with Solver(name="glucose4", bootstrap_with=q.clauses) as s:
        for fixed in _subsets(model.features.names):
            sat = s.solve(assumptions=q.assumptions(fixed))
            assert sat == (not bf.is_weak_axp(fixed)), fixed
            if sat:
                point = q.decode(s.get_model())
                assert model.predict([point]).tolist() != [bf.prediction]
                assert all(point[n] == x[n] or model.encode([point])[0][i] ==
                           model.encode([x])[0][i]
                           for i, n in enumerate(model.features.names) if n in fixed)


def _wins(model, x, fixed, against) -> bool:
    q = wcnf_query(model, x, against=against)
    w = WCNF(from_string=wcnf_text(model, x, against=against))
    for name in fixed:
        w.append([q.selectors[name]])
    with RC2(w) as rc2:
        assert rc2.compute() is not None
        satisfied = sum(wt for _, wt in q.soft) - rc2.cost
    lead = q.offset + satisfied
    return lead > 0 if q.strict else lead >= 0


@pytest.mark.parametrize("combine", ["proba", "margin"])
@given(data=st.data())
@SETTINGS
def test_wcnf_optimum_decides_entailment_in_exact_arithmetic(combine, data):
    """With dyadic leaf values (float sums exact, so real and float arithmetic agree), S is
    a weak AXp exactly when, for every other class, the MaxSAT optimum's lead does not win."""
    model = data.draw(ensembles(combine=combine, values=DYADIC, precision="float64"))
    x = instance(data.draw, model)
    bf = verify.brute_force(model, x)
    others = [c for c in model.classes if c != bf.prediction]
    for fixed in _subsets(model.features.names):
        entails = not any(_wins(model, x, fixed, k) for k in others)
        assert entails == bf.is_weak_axp(fixed), fixed


def test_wcnf_weights_are_exact_and_the_header_says_real_arithmetic():
    """Leaves 0.1 and -0.1 (binary margin, threshold 0): 0.1 is the dyadic rational
    3602879701896397 / 2**55, so the scale is 2**55 and the weight of the 0.1 leaf over the
    -0.1 leaf is 2 * 3602879701896397."""
    fs = [Feature("x", "ordinal")]
    m = TreeEnsemble(fs, [0, 1], [DecisionTree(fs, [0, 1], ThresholdSplit(
        "x", 0.5, Leaf(0, (-0.1,)), Leaf(1, (0.1,))))], "margin")
    q = wcnf_query(m, {"x": 1.0})
    assert q.prediction == 1 and q.against == 0 and not q.strict
    assert q.scale == 2 ** 55
    assert sorted(w for _, w in q.soft) == [2 * 3602879701896397]
    assert q.offset == -3602879701896397  # threshold - 0.1 at the better leaf for 1
    text = wcnf_text(m, {"x": 1.0})
    assert "exact real arithmetic" in text and "float arithmetic" in text


def test_sums_have_no_dimacs_and_need_a_class_to_test_against():
    fs = [Feature("x", "ordinal")]
    leaf = (0.1, 0.2, 0.7)
    m = TreeEnsemble(fs, [0, 1, 2], [DecisionTree(fs, [0, 1, 2], ThresholdSplit(
        "x", 0.5, Leaf(0, leaf), Leaf(2, leaf[::-1])))], "proba")
    with pytest.raises(UnsupportedModelError, match="wcnf_text"):
        dimacs_text(m, {"x": 1.0})
    with pytest.raises(ValueError, match="against"):
        wcnf_query(m, {"x": 1.0})
    with pytest.raises(ValueError, match="not another class"):
        wcnf_query(m, {"x": 1.0}, against=0)
    assert wcnf_query(m, {"x": 1.0}, against=2).against == 2


def test_oracle_clauses_of_an_ensemble_are_the_complete_form():
    """oracle.clauses promises a CNF equivalent to the oracle: the vote's complete form
    (UNSAT under all selectors, SAT with none), never the solver's lazy clauses; sums
    have none and say where to look."""
    import xdt

    fs = [Feature("x", "ordinal"), Feature("y", "ordinal")]
    stumps = [DecisionTree(fs, [0, 1], ThresholdSplit(n, 0.5, Leaf(0, (-1.0,)), Leaf(1, (1.0,))))
              for n in "xyx"]
    vote = TreeEnsemble(fs, [0, 1], stumps, "vote")
    q = xdt.Explainer(vote, engine="sat")._query({"x": 1, "y": 0}, False)
    with Solver(name="glucose4", bootstrap_with=q.oracle.clauses) as s:
        assert not s.solve(assumptions=q.oracle.selectors)
        assert s.solve(assumptions=[])
    margin = TreeEnsemble(fs, [0, 1], stumps, "margin")
    q = xdt.Explainer(margin, engine="sat")._query({"x": 1, "y": 0}, False)
    with pytest.raises(UnsupportedModelError, match="wcnf_text"):
        q.oracle.clauses  # noqa: B018
