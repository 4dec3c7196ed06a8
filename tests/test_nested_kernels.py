"""The compiled nested k-DNF learner (:mod:`xdt.learn._nested_kernels`) learns the same models
as the numpy/Python implementation it replaced, kept here as the reference.

``reference_construct_matrix`` and ``reference_candidate_terms`` are the earlier
:func:`xdt.learn._nested.construct_matrix` and :func:`~xdt.learn._nested.candidate_terms`,
verbatim; ``reference_learn`` is the earlier body of ``NestedKDNFClassifier.fit`` between
the binarised table and the model (with :func:`~xdt.learn._nested.select_terms` and
:func:`~xdt.learn._nested.prune_terms`, which still are the numpy code). A fit with
``xdt.learn._nested._learn`` replaced by ``reference_learn`` is the earlier fit.

Weights are integers or multiples of 1/4: every sum of them is exact, so the reference's
BLAS/pairwise sums and the kernels' row-order sums agree to the last bit (with arbitrary
floats a tie may be decided by rounding, in either implementation).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import hypothesis.strategies as st
import numpy as np
import pandas as pd
import pytest
from conftest import DATASETS, require_shared
from hypothesis import given, settings
from sklearn.utils import check_random_state
from tiers import examples

import xdt.learn._nested as nested
from xdt.ir._json_io import model_to_dict
from xdt.learn import Binarizer, NestedKDNFClassifier
from xdt.learn import _nested_kernels as kernels
from xdt.learn._nested import (
    CandidateTerm,
    candidate_terms,
    construct_matrix,
    literal_table,
    prefix_vectors,
    prune_terms,
    row_limit,
    select_terms,
)

A, NOT_A, B, NOT_B, C, NOT_C = range(6)


# ---------------------------------------------------------------------------- the reference
def _reference_default_cells(n_literals):
    return (np.arange(n_literals, dtype=np.int64) // 2,
            [0b10 if lit % 2 == 0 else 0b01 for lit in range(n_literals)])


def _reference_key(literals, feature, cells):
    masks = {}
    for lit in literals:
        f = int(feature[lit])
        masks[f] = masks.get(f, cells[lit]) & cells[lit]
    return frozenset(masks.items())


def reference_construct_matrix(T, y, k, weight=None, literal_feature=None, literal_cells=None,
                               random_state=None):
    T = np.asarray(T, dtype=bool)
    n_rows, n_lit = T.shape
    n_bool = n_lit // 2
    w = np.ones(n_rows) if weight is None else np.asarray(weight, dtype=np.float64)
    signed = np.where(np.asarray(y, dtype=bool), w, -w)
    Tf = T.astype(np.float64)
    if literal_feature is None or literal_cells is None:
        literal_feature, literal_cells = _reference_default_cells(n_lit)
    by_feature = {}
    for f in np.unique(literal_feature):
        by_feature[int(f)] = np.flatnonzero(literal_feature == f)
    rng = None if random_state is None else check_random_state(random_state)
    L = np.zeros((k, k), dtype=np.int64)
    for i in range(k):
        cover = np.ones(n_rows, dtype=bool)
        masks = {}
        for j in range(k):
            row_ok = np.ones(n_lit, dtype=bool)
            for f, acc in masks.items():
                for lit in by_feature[f]:
                    cm = literal_cells[lit]
                    if acc & cm == 0 or acc & ~cm == 0:
                        row_ok[lit] = False
            if not row_ok.any():
                L[i, j] = L[i, j - 1]
                continue
            allowed = row_ok
            for limit in range(row_limit(i, j, k, n_bool), -1, -1):
                allowed = row_ok.copy()
                allowed[L[:i, :limit].ravel()] = False
                if allowed.any():
                    break
            gain = (signed * cover) @ Tf
            gain[~allowed] = -np.inf
            best = np.flatnonzero(gain == gain.max())
            lit = int(best[0] if rng is None or len(best) == 1 else rng.choice(best))
            L[i, j] = lit
            cover &= T[:, lit]
            f = int(literal_feature[lit])
            masks[f] = masks.get(f, literal_cells[lit]) & literal_cells[lit]
    return L


def reference_candidate_terms(matrix, literal_feature=None, literal_cells=None):
    L = np.asarray(matrix, dtype=np.int64)
    k = L.shape[0]
    if literal_feature is None or literal_cells is None:
        literal_feature, literal_cells = _reference_default_cells(
            int(L.max()) + 2 if L.size else 0)
    out = []
    seen = set()
    for s in range(k, 0, -1):
        for r in prefix_vectors(k, s):
            parts = [[int(v) for v in L[i, :r[i]]] for i in range(k)]
            literals = [lit for part in parts for lit in part]
            key = _reference_key(literals, literal_feature, literal_cells)
            if any(mask == 0 for _, mask in key) or key in seen:
                continue
            minimal = True
            for i in range(k):
                if r[i] == 0:
                    continue
                shorter = [lit for q, part in enumerate(parts)
                           for lit in (part[:-1] if q == i else part)]
                if _reference_key(shorter, literal_feature, literal_cells) == key:
                    minimal = False
                    break
            if not minimal:
                continue
            seen.add(key)
            out.append(CandidateTerm(tuple(r), tuple(dict.fromkeys(literals))))
    return out


def _cover(T, literals):
    return T[:, list(literals)].all(axis=1) if len(literals) else np.ones(len(T), dtype=bool)


def reference_learn(T, y, k, weight, feature, cells, random_state, prune):
    """The earlier fit, from the literal table to the kept terms."""
    L = reference_construct_matrix(T, y, k, weight, feature, cells, random_state)
    candidates = reference_candidate_terms(L, feature, cells)
    chosen = select_terms((_cover(T, c.literals) for c in candidates), y, weight)
    terms = [candidates[t] for t in chosen]
    n_selected = len(terms)
    if prune and terms:
        kept = prune_terms([_cover(T, t.literals) for t in terms], y, weight)
        terms = [terms[t] for t in kept]
    return L, terms, n_selected


def fitted(est):
    """Everything a fit decides."""
    return (est.matrix_.tolist(), est.prefixes_.tolist(), est.term_literals_,
            est.n_selected_, model_to_dict(est.model_))


def fit_both(monkeypatch, X, y, sample_weight=None, **params):
    """(compiled fit, reference fit) of ``NestedKDNFClassifier(**params)``."""
    new = NestedKDNFClassifier(**params).fit(X, y, sample_weight=sample_weight)
    with monkeypatch.context() as m:
        m.setattr(nested, "_learn", reference_learn)
        old = NestedKDNFClassifier(**params).fit(X, y, sample_weight=sample_weight)
    return fitted(new), fitted(old)


# ---------------------------------------------------------------------------- real data
SMALL = ["iris-bin", "monk1-bin", "monk2-bin", "lymph-bin", "balance-scale-bin"]


def load_bin(name: str) -> tuple[pd.DataFrame, np.ndarray]:
    """A MurTree binarisation: Boolean columns and its label (the last column), one class
    against the rest when there are more than two."""
    frame = pd.read_csv(require_shared(DATASETS) / f"{name}.csv")
    y = frame.pop(frame.columns[-1]).to_numpy()
    return frame, (y == np.unique(y)[0]).astype(np.int64)


@pytest.mark.parametrize("name", SMALL)
def test_same_models_as_the_reference_on_real_data(monkeypatch, name):
    X, y = load_bin(name)
    weight = np.random.default_rng(0).integers(0, 4, len(y)).astype(float)
    weight[np.flatnonzero(y == 0)[0]] = weight[np.flatnonzero(y == 1)[0]] = 1.0
    for k in (1, 2, 4, 6):
        for params in ({"target": "positive"}, {"target": "negative", "random_state": 1},
                       {"target": "positive", "random_state": 0, "prune": False}):
            new, old = fit_both(monkeypatch, X, y, k=k, **params)
            assert new == old, (k, params)
        new, old = fit_both(monkeypatch, X, y, sample_weight=weight, k=k)
        assert new == old, (k, "weighted")


# ---------------------------------------------------------------------------- random tables
QUARTERS = st.integers(0, 12).map(lambda v: v / 4)       # 0, 0.25, ..., 3: exact sums


@settings(max_examples=examples(120))
@given(st.integers(2, 60), st.integers(1, 8), st.integers(1, 6),
       st.sampled_from(["positive", "negative"]), st.one_of(st.none(), st.integers(0, 99)),
       st.booleans(), st.booleans(), st.integers(0, 2**32 - 1))
def test_same_models_as_the_reference_on_boolean_tables(n, m, k, target, random_state,
                                                         weighted, prune, seed):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.random((n, m)) < rng.random(m), columns=[f"f{i}" for i in range(m)])
    X = X.astype(np.int64)
    y = (rng.random(n) < 0.5).astype(np.int64)
    y[:2] = [0, 1]
    w = rng.integers(0, 13, n) / 4 if weighted else None
    if w is not None:
        w[:2] = 1.0
    with pytest.MonkeyPatch.context() as mp:
        new, old = fit_both(mp, X, y, sample_weight=w, k=k, target=target,
                            random_state=random_state, prune=prune)
    assert new == old


@settings(max_examples=examples(60))
@given(st.integers(4, 80), st.integers(1, 6), st.one_of(st.none(), st.integers(0, 9)),
       st.integers(0, 2**32 - 1))
def test_same_models_as_the_reference_on_thresholds_and_categories(n, k, random_state, seed):
    # numeric columns (several thresholds: literals that imply or exclude each other),
    # a categorical column of 5 values and one of 70 (cell masks of two words)
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"x": rng.integers(0, 9, n), "z": rng.normal(size=n).round(2),
                      "colour": rng.choice(list("rgbyk"), n),
                      "code": pd.Categorical(rng.integers(0, 70, n).astype(str),
                                             categories=[str(v) for v in range(70)])})
    y = ((X["x"] > 4) ^ (X["colour"] == "r") ^ (rng.random(n) < 0.2)).to_numpy().astype(int)
    y[:2] = [0, 1]
    w = rng.integers(1, 9, n) / 4
    with pytest.MonkeyPatch.context() as mp:
        for n_thresholds, weight in ((None, None), (3, w)):
            new, old = fit_both(mp, X, y, sample_weight=weight, k=k, n_thresholds=n_thresholds,
                                random_state=random_state)
            assert new == old


@settings(max_examples=examples(80))
@given(st.integers(1, 40), st.integers(1, 10), st.integers(1, 6), st.booleans(),
       st.one_of(st.none(), st.integers(0, 99)), st.integers(0, 2**32 - 1))
def test_construct_matrix_and_candidate_terms_match_the_reference(n, n_lit, k, weighted,
                                                                  random_state, seed):
    # any table (columns need not come in complementary pairs), default cells
    rng = np.random.default_rng(seed)
    T = rng.random((n, n_lit)) < 0.5
    y = rng.random(n) < 0.5
    w = rng.integers(0, 13, n) / 4 if weighted else None
    L = construct_matrix(T, y, k, w, random_state=random_state)
    assert L.tolist() == reference_construct_matrix(T, y, k, w,
                                                    random_state=random_state).tolist()
    assert candidate_terms(L) == reference_candidate_terms(L)
    random_matrix = rng.integers(0, n_lit, (k, k))
    assert candidate_terms(random_matrix) == reference_candidate_terms(random_matrix)


def test_candidate_terms_match_the_reference_on_binarised_features():
    X = pd.DataFrame({"x": np.arange(40) % 7, "c": [f"v{i % 70}" for i in range(40)]})
    enc = Binarizer(n_thresholds=None).fit(X)
    feature, cells = enc.literal_cells()
    rng = np.random.default_rng(1)
    for k in (2, 3, 5):
        for _ in range(20):
            L = rng.integers(0, len(cells), (k, k))
            assert candidate_terms(L, feature, cells) == \
                reference_candidate_terms(L, feature, cells)


# ---------------------------------------------------------------------------- the kernels
def hand_case():
    """24 rows over (a, b, c) (tests/test_nested_kdnf.py's hand-worked case)."""
    counts = {(1, 1, 1): (3, 0), (1, 1, 0): (3, 1), (1, 0, 1): (2, 1), (1, 0, 0): (1, 2),
              (0, 1, 1): (2, 0), (0, 1, 0): (0, 2), (0, 0, 1): (2, 1), (0, 0, 0): (0, 4)}
    X, y = [], []
    for point, (pos, neg) in counts.items():
        X += [point] * (pos + neg)
        y += [True] * pos + [False] * neg
    return np.array(X, dtype=bool), np.array(y)


def test_kernels_on_the_hand_case():
    # the counts of tests/test_nested_kdnf.py::test_term_selection_and_pruning_on_the_hand_case
    X, y = hand_case()
    T8 = literal_table(X).view(np.uint8)
    bits = kernels.pack_rows(T8)
    assert bits.shape == (6, 1)
    # a holds on the first 13 rows (the points 1xx come first), !a on the other 11
    assert int(bits[A, 0]) == (1 << 13) - 1
    assert int(bits[NOT_A, 0]) == ((1 << 24) - 1) ^ ((1 << 13) - 1)
    pos = kernels.pack_mask(y.view(np.uint8))
    neg = kernels.pack_mask((~y).view(np.uint8))
    assert bin(int(pos[0])).count("1") == 13 and bin(int(neg[0])).count("1") == 11
    feature, cells = np.arange(6) // 2, np.array([[2], [1]] * 3, dtype=np.uint64)
    L = np.zeros((2, 2), dtype=np.int64)
    ties = np.empty(6, dtype=np.int64)
    assert kernels.fill_matrix(T8, np.where(y, 1.0, -1.0), 2, feature, cells, 3, 3, L, 0,
                               False, ties) == (4, 0)
    assert L.tolist() == [[C, B], [A, B]]
    # candidates: (2,0) c b; (1,1) c a; (0,2) a b; (1,0) c; (0,1) a
    table = np.array([r for s in (2, 1) for r in prefix_vectors(2, s)], dtype=np.int64)
    index, lits, sizes = (np.empty(5, dtype=np.int64), np.empty((5, 2), dtype=np.int64),
                          np.empty(5, dtype=np.int64))
    assert kernels.candidate_terms(L, table, feature, cells, index, lits, sizes) == 5
    assert index.tolist() == [0, 1, 2, 3, 4]
    assert [lits[t, :sizes[t]].tolist() for t in range(5)] == [[C, B], [C, A], [A, B], [C],
                                                               [A]]
    w = np.ones(len(y))
    chosen = np.empty(5, dtype=np.int64)
    for unit in (True, False):
        assert kernels.select_terms(bits, lits, sizes, pos, neg, w, unit, chosen) == 4
        assert chosen[:4].tolist() == [0, 1, 2, 3]
    kept = np.empty(4, dtype=np.int64)
    assert kernels.prune_terms(bits, lits, sizes, chosen[:4], pos, neg, w, kept) == 2
    assert kept[:2].tolist() == [2, 3]


def test_fill_matrix_stops_on_ties_for_the_random_draw():
    # truth table of (a AND b) OR (c AND d): a, b, c, d tie at G = 4 in cell (0, 0)
    X = np.array([[(p >> s) & 1 for s in (3, 2, 1, 0)] for p in range(16)], dtype=bool)
    y = (X[:, 0] & X[:, 1]) | (X[:, 2] & X[:, 3])
    T8 = literal_table(X).view(np.uint8)
    feature, cells = np.arange(8) // 2, np.array([[2], [1]] * 4, dtype=np.uint64)
    L = np.zeros((2, 2), dtype=np.int64)
    ties = np.empty(8, dtype=np.int64)
    cell, n = kernels.fill_matrix(T8, np.where(y, 1.0, -1.0), 2, feature, cells, 4, 4, L, 0,
                                  True, ties)
    assert (cell, ties[:n].tolist()) == (0, [0, 2, 4, 6])


def test_cell_masks_of_more_than_64_cells_take_several_words():
    words = nested._cell_words([1 << 69, (1 << 70) - 1 - (1 << 69), 0b10])
    assert words.tolist() == [[0, 1 << 5], [2**64 - 1, (1 << 5) - 1], [2, 0]]
    # one categorical feature of 70 values; literals 0: = v69, 1: != v69, 2: = v0,
    # 3: != v0, 4: in {v0, v69}, 5: not in {v0, v69}. L = [[3, 4], [0, 1]]:
    #   (2, 0) != v0 AND in {v0, v69} is = v69 (bit 69, in the second word): kept
    #   (1, 1) != v0 AND = v69 is = v69 again: a repeat;  (0, 2) = v69 AND != v69: empty
    #   (1, 0) != v0: kept;  (0, 1) = v69: a repeat of (2, 0)
    feature = np.zeros(6, dtype=np.int64)
    full = (1 << 70) - 1
    cells = [1 << 69, full ^ (1 << 69), 1, full ^ 1, 1 | (1 << 69), full ^ (1 | (1 << 69))]
    L = np.array([[3, 4], [0, 1]])
    got = candidate_terms(L, feature, cells)
    assert [(c.prefix, c.literals) for c in got] == [((2, 0), (3, 4)), ((1, 0), (3,))]
    assert got == reference_candidate_terms(L, feature, cells)


READ_ONLY_CACHE = r"""
import json, warnings
import numba.core.caching as caching

def refuse(self):
    raise PermissionError(13, "Permission denied", self.get_cache_path())

caching._CacheLocator.ensure_cache_path = refuse
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import numpy as np
    from xdt.learn import _nested_kernels as nested_kernels
bits = nested_kernels.pack_mask(np.array([1, 0, 1], dtype=np.uint8))
print(json.dumps({"bits": int(bits[0]),
                  "warnings": [str(w.message) for w in caught
                               if "NUMBA_CACHE_DIR" in str(w.message)]}))
"""


def test_kernels_work_without_a_writable_cache_folder():
    # as tests/test_kernel_cache.py for the explanation kernels: every cache folder refused
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    env.pop("NUMBA_DISABLE_JIT", None)
    env.pop("NUMBA_CACHE_DIR", None)
    run = subprocess.run([sys.executable, "-c", READ_ONLY_CACHE], capture_output=True,
                         text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout.splitlines()[-1])
    assert out["bits"] == 0b101                      # rows 0 and 2
    assert len(out["warnings"]) == 1                 # once, not once per kernel
    assert "compiled again in every process" in out["warnings"][0]
