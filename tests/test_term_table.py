"""A DNF's terms as flat arrays (xdt.ir._term_table.TermTable): which terms hold at many points at
once, and the deletion order of the SAT engine ("term") read from it, both equal to their
definitions over the terms' literals."""

from __future__ import annotations

import itertools

import hypothesis.strategies as st
import numpy as np
from hypothesis import HealthCheck, given, settings
from test_explain_dnf import c, condition, mixed_features
from tiers import examples

from xdt.explain.engines._oracle import bits
from xdt.explain.queries._duality import minimum_hitting_set
from xdt.explain.queries._term_order import term_order
from xdt.ir import DNF, Condition, Feature
from xdt.ir._term_table import TermTable

SETTINGS = settings(max_examples=examples(200), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def dnfs(draw):
    """Random DNFs over mixed features, with repeated conditions on one feature (their
    intersection is the literal), categorical value sets with gaps, and empty terms."""
    features = draw(mixed_features())
    terms = []
    for _ in range(draw(st.integers(0, 6))):
        chosen = draw(st.lists(st.sampled_from(features), max_size=4))  # repeats allowed
        terms.append([draw(condition(f)) for f in chosen])
    try:
        return DNF(features, [0, 1], terms)
    except Exception:  # noqa: BLE001 - an inconsistent term: keep the consistent ones
        ok = []
        for t in terms:
            try:
                DNF(features, [0, 1], [t])
                ok.append(t)
            except Exception:  # noqa: BLE001
                pass
        return DNF(features, [0, 1], ok)


def points(model) -> np.ndarray:
    return np.array(list(itertools.product(*(range(cl.n_cells) for cl in model.cells))),
                    dtype=np.int64).reshape(-1, len(model.cells))


def by_definition(model, pts) -> np.ndarray:
    """Term p holds at a point when every literal of p holds there."""
    return np.array([[t.holds(p) for t in model.terms] for p in pts.tolist()],
                    dtype=bool).reshape(len(pts), len(model.terms))


class Unindexed(TermTable):
    INDEX_FACTOR = -10**9  # never list the falsified literals per cell


@SETTINGS
@given(dnfs(), st.integers(1, 40))
def test_satisfied_terms_equal_the_literals(model, chunk):
    pts = points(model)
    want = by_definition(model, pts)
    table = model.table
    table.CHUNK = chunk  # evaluate a few rows at a time too
    assert np.array_equal(model.satisfied_terms(pts), want)
    plain = Unindexed(model.terms, model.cells)
    assert plain._falsified is None
    for i in range(min(len(pts), 12)):  # one point at a time (the memo of the last point)
        assert np.array_equal(model.satisfied_terms(pts[i:i + 1]), want[i:i + 1])
        literals = [bool((m >> int(pts[i][f])) & 1) for t in model.terms
                    for f, m in t.masks().items()]
        for t in (table, plain):
            for point in (pts[i], tuple(pts[i].tolist())):
                ok, held = t.at(point)
                assert np.array_equal(held, want[i]) and ok.tolist() == literals
    assert model.satisfied_terms(pts[:0]).shape == (0, len(model.terms))
    assert np.array_equal(model.predict_cells(pts), want.any(axis=1).astype(np.int64))


def test_literal_kinds_and_sizes():
    feats = [Feature("b", "binary"), Feature("col", "categorical", tuple("pqrst")),
             Feature("x", "ordinal")]
    model = DNF(feats, [0, 1], [
        [c("b", 1), c("col", "p", "r")],              # col in {p, r}: a lookup
        [c("x", above=1, upto=3), c("col", "q", "r", "s"), c("x", above=2)],  # merged on x
        [],                                          # always true
    ])
    table = model.table
    assert isinstance(table, TermTable) and table._falsified is not None
    # per feature and cell, the literals it falsifies: b = 0 the first, col = q the second
    assert table._falsified[0][0].tolist() == [0] and table._falsified[1][1].tolist() == [1]
    assert table.term.tolist() == [0, 0, 1, 1] and table.feature.tolist() == [0, 1, 2, 1]
    assert table.sizes.tolist() == [2, 2, 0]
    # x's thresholds 1, 2, 3: 2 < x <= 3 is cell 2 only; col q..s is the run 1..3
    assert (table.lo.tolist(), table.hi.tolist()) == ([1, 0, 2, 1], [1, -1, 2, 3])
    assert model.satisfied_terms(np.array([[1, 2, 2], [0, 0, 0]])).tolist() == [
        [True, True, True], [False, False, True]]


def test_no_terms():
    model = DNF([Feature("b", "binary")], [0, 1], [])
    assert model.satisfied_terms(np.array([[0], [1]])).shape == (2, 0)
    assert model.predict_cells(np.array([[0], [1]])).tolist() == [0, 0]


# ---------------------------------------------------------------------- the "term" order
def expected_last(model, cells, prediction) -> list[int]:
    """The features term_order puts last, by its definition: for a positive decision the
    features of the first shortest true term (in the order of its literals); for a negative
    one a minimum hitting set (Hitman) of the features that falsify each term."""
    if prediction == 1:
        true = [t for t in model.terms if t.holds(cells)]
        if not true:
            return []
        best = min(true, key=lambda t: len(t.masks()))
        return list(dict.fromkeys(lit.feature for lit in best.literals))
    escapes = [sum(1 << f for f, m in t.masks().items() if not (m >> cells[f]) & 1)
               for t in model.terms]
    return bits(minimum_hitting_set(escapes)) if escapes else []


@SETTINGS
@given(dnfs(), st.data())
def test_term_order_of_a_dnf_equals_its_definition(model, data):
    pts = points(model)
    cells = tuple(pts[data.draw(st.integers(0, len(pts) - 1))].tolist())
    prediction = int(model.predict_cells(np.array([cells]))[0])
    last = expected_last(model, cells, prediction)
    order = term_order(model, cells, prediction)
    assert sorted(order) == list(range(len(model.features)))
    assert order[len(order) - len(last):] == last
    assert order[:len(order) - len(last)] == [f for f in range(len(model.features))
                                              if f not in last]
    # the same with the instance's own cells given as the allowed ones
    assert term_order(model, cells, prediction, [1 << j for j in cells]) == order


def test_term_order_on_a_wide_dnf():
    """More than 64 features: the escapes of a negative decision as Python integers."""
    feats = [Feature(f"b{i}", "binary") for i in range(70)]
    model = DNF(feats, [0, 1], [[Condition("b3", (1,)), Condition("b68", (1,))],
                                [Condition("b69", (1,)), Condition("b1", (0,))]])
    cells = [0] * 70
    cells[1] = 1  # b1 = 1: both terms false; b3 or b68, and b69 or b1 falsify them
    order = term_order(model, cells, 0)
    assert order[-2:] == expected_last(model, tuple(cells), 0)
    assert len(set(order[-2:]) & {3, 68}) == 1 and len(set(order[-2:]) & {1, 69}) == 1
