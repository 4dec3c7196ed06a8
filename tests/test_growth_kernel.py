"""The compiled growth kernel (xdt.learn._growth / xdt.learn._kernels) against the numpy
splitter it replaced, kept as the reference (tests/reference/learners.py): the same trees, leaf
statistics and three-way fallbacks on random tables of every column kind, with and without
sample weights, for both criteria, depths and ``min_samples_leaf``; and on real data."""

from __future__ import annotations

import hypothesis.strategies as st
import numpy as np
import pandas as pd
import pytest
from conftest import DATASETS, require_shared
from hypothesis import given, settings
from reference.learners import ReferenceCART, ReferenceSERDT
from tiers import examples, sweep

from xdt.ir import DecisionTree, Leaf, ThresholdSplit
from xdt.ir._features import Feature
from xdt.learn import CARTClassifier, SERDTClassifier
from xdt.learn import _kernels as K
from xdt.learn._data import read_training_data
from xdt.learn._growth import LOW_CARD, prepare

PAIRS = {"cart": (CARTClassifier, ReferenceCART), "serdt": (SERDTClassifier, ReferenceSERDT)}


def assert_same_fit(fast, ref) -> None:
    assert fast.tree_.root == ref.tree_.root
    np.testing.assert_allclose(fast.leaf_class_weights_, ref.leaf_class_weights_,
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(fast.leaf_samples_, ref.leaf_samples_)
    assert fast.n_merged_ == ref.n_merged_
    if hasattr(ref, "n_fallback_splits_"):
        assert fast.n_fallback_splits_ == ref.n_fallback_splits_


@st.composite
def tables(draw):
    """A table mixing continuous columns (sorted in the kernel), few-valued numeric ones
    (binned), categorical columns with small and large domains and bool columns, 2-5
    classes, and optionally positive sample weights."""
    n = draw(st.integers(2, 120))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    columns = {}
    for j in range(draw(st.integers(1, 5))):
        kind = draw(st.sampled_from(("float", "few", "many-int", "cat", "wide-cat", "bool")))
        if kind == "float":
            columns[f"f{j}"] = rng.normal(size=n).round(draw(st.integers(0, 3)))
        elif kind == "few":
            columns[f"f{j}"] = rng.integers(0, draw(st.integers(1, 6)), n).astype(float)
        elif kind == "many-int":   # more distinct values than LOW_CARD: a sorted column
            columns[f"f{j}"] = rng.integers(0, 3 * LOW_CARD, n).astype(float)
        elif kind == "cat":
            columns[f"f{j}"] = rng.choice(list("abcde")[:draw(st.integers(1, 5))], n)
        elif kind == "wide-cat":   # a domain far larger than the nodes
            columns[f"f{j}"] = pd.Categorical(rng.integers(0, 40, n).astype(str),
                                              categories=[str(v) for v in range(400)])
        else:
            columns[f"f{j}"] = rng.random(n) < 0.5
    frame = pd.DataFrame(columns)
    k = draw(st.integers(2, 5))
    y = np.where(rng.random(n) < 0.3, rng.integers(0, k, n),
                 (pd.factorize(frame.iloc[:, 0])[0] % k))
    weight = None
    if draw(st.booleans()):
        weight = rng.choice([0.5, 1.0, 2.0, 3.7], n)
    return frame, y, weight


@settings(max_examples=examples(150), deadline=None)
@given(tables(), st.sampled_from(sorted(PAIRS)), st.sampled_from(("gini", "entropy")),
       st.sampled_from((None, 1, 2, 4)), st.integers(1, 3),
       st.sampled_from((0.0, 0.5, 0.97, 1.0)))
def test_the_kernel_grows_the_reference_tree(table, learner, criterion, depth, msl, factor):
    frame, y, weight = table
    fast_cls, ref_cls = PAIRS[learner]
    params = {"max_depth": depth, "min_samples_leaf": msl, "criterion": criterion}
    if learner == "serdt":
        params["factor_expl"] = factor
    fast = fast_cls(**params).fit(frame, y, sample_weight=weight)
    ref = ref_cls(**params).fit(frame, y, sample_weight=weight)
    assert_same_fit(fast, ref)


@pytest.mark.parametrize("learner", sorted(PAIRS))
def test_the_kernel_takes_the_reference_three_way_splits(learner):
    # from tests/test_learn.py: no balanced test but one lowering the Gini -> three-way split
    X = np.array([[0], [1], [1], [1], [1], [1], [1], [2]], dtype=float)
    y = list("AAAABBBB")
    fast_cls, ref_cls = PAIRS[learner]
    fast, ref = fast_cls(max_depth=None).fit(X, y), ref_cls(max_depth=None).fit(X, y)
    assert_same_fit(fast, ref)
    if learner == "serdt":
        assert fast.n_fallback_splits_ == 1
        assert fast.tree_.root == ThresholdSplit(
            "x0", 0.5, Leaf("A"), ThresholdSplit("x0", 1.5, Leaf("A"), Leaf("B")))


def _sample(name: str, rows: int) -> tuple[pd.DataFrame, np.ndarray]:
    path = require_shared(DATASETS / name)
    frame = pd.read_csv(path).dropna().reset_index(drop=True)
    frame = frame.sample(n=min(rows, len(frame)), random_state=0).reset_index(drop=True)
    y = frame.pop(frame.columns[-1]).to_numpy()
    cats = [c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c])]
    return frame.astype(dict.fromkeys(cats, "category")), y


@pytest.mark.parametrize("name", sweep(["adult.csv.gz", "kr-vs-kp-bin.csv", "splice.csv"]))
@pytest.mark.parametrize("learner", sorted(PAIRS))
@pytest.mark.parametrize("depth", [6, None])
def test_the_kernel_grows_the_reference_tree_on_real_data(name, learner, depth):
    X, y = _sample(name, 2000)
    fast_cls, ref_cls = PAIRS[learner]
    fast, ref = fast_cls(max_depth=depth).fit(X, y), ref_cls(max_depth=depth).fit(X, y)
    assert_same_fit(fast, ref)
    assert fast.tree_.n_leaves > 4


def test_columns_are_sorted_or_binned_by_their_number_of_values():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=500),                    # continuous: sorted
                         rng.integers(0, LOW_CARD, 500) * 0.5,    # <= LOW_CARD values
                         rng.integers(0, 2, 500)]).astype(float)  # binary
    cols = prepare(read_training_data(X))
    assert cols.feat[:, 0].tolist() == [K.SORTED, K.BINNED, K.BINNED]
    assert cols.orders.shape == (1, 500)
    assert np.array_equal(X[cols.orders[0], 0], np.sort(X[:, 0]))
    for f in (1, 2):
        jb, size, off = cols.feat[f, 1], cols.feat[f, 3], cols.feat[f, 4]
        values = np.unique(X[:, f])
        assert size == len(values)
        assert np.array_equal(cols.bin_values[off:off + size], values)
        assert np.array_equal(values[cols.codes[:, jb]], X[:, f])


def test_distinct_values_stop_past_the_limit():
    X = np.array([[3.0, 1.0], [1.0, 2.0], [3.0, 3.0], [2.0, 4.0]])
    table = np.zeros((2, 3))
    counts = np.zeros(2, dtype=np.int64)
    K.distinct_values(X, False, 3, table, counts)
    assert counts.tolist() == [3, -1]
    assert table[0].tolist() == [1.0, 2.0, 3.0]
    table[:] = 0
    K.distinct_values(np.ascontiguousarray(X.T), True, 3, table, counts)  # the transpose
    assert counts.tolist() == [3, -1]
    assert table[0].tolist() == [1.0, 2.0, 3.0]


@pytest.mark.parametrize("learner", sorted(PAIRS))
def test_f_ordered_and_strided_arrays_grow_the_same_tree(learner):
    rng = np.random.default_rng(1)
    X = np.column_stack([rng.normal(size=400), rng.integers(0, 5, 400),
                         rng.normal(size=400)]).astype(float)
    y = (X[:, 0] + X[:, 1] > 1).astype(int) ^ (rng.random(400) < 0.1)
    fast_cls, ref_cls = PAIRS[learner]
    ref = ref_cls(max_depth=None).fit(X, y)
    for layout in (X, np.asfortranarray(X), np.hstack([X, X])[:, :3]):  # C, F, strided
        assert_same_fit(fast_cls(max_depth=None).fit(layout, y), ref)


def test_threshold_nodes_keep_two_children_however_many_cells():
    # 200 thresholds on x: a child per cell would make the tables quadratic
    feats = [Feature("x", "ordinal")]
    node = Leaf(0)
    for t in range(200, 0, -1):
        node = ThresholdSplit("x", t + 0.5, Leaf(t % 2), node)
    tree = DecisionTree(feats, [0, 1], node)
    assert len(tree._child_flat) == 2 * 200
    xs = np.arange(0, 203, dtype=float).reshape(-1, 1)
    # x <= 1.5 meets Leaf(1); x in (t - 0.5, t + 0.5] meets Leaf(t % 2); x > 200.5 Leaf(0)
    expected = [1 if x <= 1.5 else (int(x) % 2 if x <= 200.5 else 0) for x in xs[:, 0]]
    # walk the nodes themselves, independently of the tables
    walked = []
    for x in xs[:, 0]:
        n = tree.root
        while not isinstance(n, Leaf):
            n = n.left if x <= n.threshold else n.right
        walked.append(n.label)
    assert walked == expected
    assert tree.predict(xs).tolist() == expected               # numpy walk
    assert [int(tree.predict(xs[i:i + 1])[0]) for i in range(len(xs))] == expected


@pytest.mark.parametrize("learner", sorted(PAIRS))
def test_huge_weights_and_limits_fit_the_unit_weight_tree(learner):
    # weights of 1e306 sum past float64's range; limits past 2^63 are no limits
    X = np.arange(400.0)[:, None]
    y = (X[:, 0] > 200).astype(int)
    fast_cls, _ = PAIRS[learner]
    plain = fast_cls().fit(X, y)
    heavy = fast_cls().fit(X, y, sample_weight=np.full(400, 1e306))
    assert heavy.tree_.root == plain.tree_.root == ThresholdSplit("x0", 200.5, Leaf(0), Leaf(1))
    np.testing.assert_array_equal(heavy.predict_proba(X[[0, 399]]), [[1.0, 0.0], [0.0, 1.0]])
    assert fast_cls(max_depth=2**70).fit(X, y).tree_.root == plain.tree_.root
    assert fast_cls(min_samples_leaf=2**63).fit(X, y).tree_.root == Leaf(0)
    frozen = X.copy()
    frozen.setflags(write=False)
    assert fast_cls().fit(frozen, y).tree_.root == plain.tree_.root
