"""Tests of :mod:`xdt.metrics._size`: depth and explanation size, worst case and weighted
average (Souza, Cicalese, Laber & Molinaro, "Decision Trees with Short Explainable Rules",
NeurIPS 2022, Section 3)."""

from __future__ import annotations

import dataclasses
import doctest
from fractions import Fraction

import hypothesis.strategies as st
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from sklearn.tree import DecisionTreeClassifier
from test_properties import instance_strategy, trees
from tiers import examples

import xdt
import xdt.metrics
from xdt.errors import (
    DataError,
    InstanceError,
    InvalidModelError,
    NotFittedError,
    UnknownCategoryError,
    UnsupportedEstimatorError,
)
from xdt.ir import Branch, CategoricalSplit, DecisionTree, Feature, Leaf, ThresholdSplit
from xdt.metrics import (
    TreeSizes,
    depth_avg,
    depth_wc,
    expl_avg,
    expl_wc,
    leaf_depths,
    leaf_explanation_sizes,
    leaf_weights,
    tree_sizes,
)
from xdt.metrics import _redundancy as redundancy_module
from xdt.metrics import _size as size_module


def mixed_tree() -> DecisionTree:
    """Seven leaves over colour (categorical), x (ordinal), b (binary); x and colour are
    each tested twice on some paths.

    ====  ===================================================  =====  ====
    leaf  path                                                 depth  expl
    ====  ===================================================  =====  ====
    L0    colour=red, x<=1.5                                       2     2
    L1    colour=red, x>1.5, x<=3.5, b=0                           4     3
    L2    colour=red, x>1.5, x<=3.5, b=1                           4     3
    L3    colour=red, x>1.5, x>3.5                                 3     2
    L4    colour in {green,blue}, colour=green                     2     1
    L5    colour in {green,blue}, colour in {red,blue}, b=0        3     2
    L6    colour in {green,blue}, colour in {red,blue}, b=1        3     2
    ====  ===================================================  =====  ====
    """
    features = [Feature("colour", "categorical", ("red", "green", "blue")),
                Feature("x", "ordinal"), Feature("b", "binary")]
    red = ThresholdSplit("x", 1.5, Leaf("a"), ThresholdSplit(
        "x", 3.5, CategoricalSplit("b", (Branch((0,), Leaf("b")), Branch((1,), Leaf("a")))),
        Leaf("b")))
    other = CategoricalSplit("colour", (
        Branch(("green",), Leaf("a")),
        Branch(("red", "blue"), CategoricalSplit("b", (Branch((0,), Leaf("b")),
                                                       Branch((1,), Leaf("a")))))))
    root = CategoricalSplit("colour", (Branch(("red",), red), Branch(("green", "blue"), other)))
    return DecisionTree(features, ["a", "b"], root)


# one row per leaf L0..L6, in that order
ROWS = [("red", 1.0, 0), ("red", 2.0, 0), ("red", 2.0, 1), ("red", 9.0, 1),
        ("green", 0.0, 0), ("blue", 5.0, 0), ("blue", 0.0, 1)]
WEIGHTS = [1.0, 0.5, 2.0, 0.25, 3.0, 0.0, 1.0]
DEPTHS = [2, 4, 4, 3, 2, 3, 3]
EXPLS = [2, 3, 3, 2, 1, 2, 2]


class FakeLearner:
    """What a fitted xdt learner offers the metrics: ``tree_`` and ``leaf_weights_``."""

    def __init__(self, tree: DecisionTree, leaf_weights: object) -> None:
        self.tree_ = tree
        self.leaf_weights_ = leaf_weights

    def fit(self, X, y):  # pragma: no cover - never called; makes it look like an estimator
        return self


class UnfittedLearner:
    def fit(self, X, y):  # pragma: no cover - never called
        return self


# ---------------------------------------------------------------------- hand-worked trees
def test_per_leaf_sizes_of_the_mixed_tree():
    tree = mixed_tree()
    depths, expls = leaf_depths(tree), leaf_explanation_sizes(tree)
    assert depths.dtype == np.int64 and depths.shape == (7,)
    assert expls.dtype == np.int64 and expls.shape == (7,)
    assert depths.tolist() == DEPTHS
    assert expls.tolist() == EXPLS
    assert tree.leaf_paths(tree.encode(ROWS)).tolist() == list(range(7))


def test_worst_cases_count_a_repeated_feature_once():
    tree = mixed_tree()
    assert depth_wc(tree) == 4
    assert expl_wc(tree) == 3
    assert isinstance(depth_wc(tree), int) and isinstance(expl_wc(tree), int)


def test_weighted_averages_by_hand():
    tree = mixed_tree()
    w = leaf_weights(tree, ROWS, WEIGHTS)
    assert w.dtype == np.float64 and w.tolist() == WEIGHTS
    # total weight 31/4; depth sum 87/4; explanation-size sum 15
    assert depth_avg(tree, ROWS, WEIGHTS) == float(Fraction(87, 31))
    assert expl_avg(tree, ROWS, WEIGHTS) == float(Fraction(60, 31))
    assert tree_sizes(tree, ROWS, WEIGHTS) == TreeSizes(
        depth_wc=4, depth_avg=float(Fraction(87, 31)), expl_wc=3,
        expl_avg=float(Fraction(60, 31)))


def test_unweighted_rows_count_one_each():
    tree = mixed_tree()
    # one row per leaf: the plain means of the leaf sizes
    assert depth_avg(tree, ROWS) == 3.0
    assert expl_avg(tree, ROWS) == float(Fraction(15, 7))
    # three rows on L4 (depth 2, expl 1), one on L1 (depth 4, expl 3)
    rows = [ROWS[4], ROWS[4], ROWS[1], ROWS[4]]
    assert leaf_weights(tree, rows).tolist() == [0, 1, 0, 0, 3, 0, 0]
    assert tree_sizes(tree, rows) == TreeSizes(4, 2.5, 3, 1.5)


def test_x_in_any_form_encode_reads():
    tree = mixed_tree()
    frame = pd.DataFrame(ROWS, columns=["colour", "x", "b"])
    dicts = frame.to_dict("records")
    expected = tree_sizes(tree, ROWS, WEIGHTS)
    assert tree_sizes(tree, frame, np.asarray(WEIGHTS)) == expected
    assert tree_sizes(tree, dicts, pd.Series(WEIGHTS)) == expected
    assert tree_sizes(tree, {"colour": "red", "x": 9.0, "b": 1}) == TreeSizes(4, 3.0, 3, 2.0)


def test_zero_weight_and_dead_leaves_count_in_worst_cases():
    # x <= 1.5 then x > 3.5 is a dead leaf: no point reaches the y test below it
    features = [Feature("x", "ordinal"), Feature("y", "ordinal")]
    dead = ThresholdSplit("y", 0.5, Leaf("a"), Leaf("b"))
    tree = DecisionTree(features, ["a", "b"], ThresholdSplit(
        "x", 1.5, ThresholdSplit("x", 3.5, Leaf("a"), dead), Leaf("b")))
    assert [p.consistent for p in tree.paths] == [True, False, False, True]
    assert leaf_depths(tree).tolist() == [2, 3, 3, 1]
    assert leaf_explanation_sizes(tree).tolist() == [1, 2, 2, 1]
    sizes = tree_sizes(tree, [[0.0, 0.0], [5.0, 0.0], [5.0, 1.0]])
    assert sizes == TreeSizes(depth_wc=3, depth_avg=float(Fraction(4, 3)), expl_wc=2,
                              expl_avg=1.0)


def test_lone_leaf():
    tree = DecisionTree([Feature("x", "ordinal")], ["a"], Leaf("a"))
    assert tree_sizes(tree, [[1.0], [2.0]]) == TreeSizes(0, 0.0, 0, 0.0)


def test_tree_sizes_is_frozen():
    sizes = tree_sizes(mixed_tree(), ROWS)
    with pytest.raises(dataclasses.FrozenInstanceError):
        sizes.depth_wc = 0  # type: ignore[misc]


# ---------------------------------------------------------------------- fitted learners
def test_learner_training_weights_by_default():
    tree = mixed_tree()
    learner = FakeLearner(tree, np.asarray(WEIGHTS))
    assert depth_wc(learner) == 4 and expl_wc(learner) == 3
    assert leaf_weights(learner).tolist() == WEIGHTS
    assert tree_sizes(learner) == tree_sizes(tree, ROWS, WEIGHTS)
    assert depth_avg(learner) == float(Fraction(87, 31))
    assert expl_avg(learner) == float(Fraction(60, 31))


def test_learner_with_x_uses_the_rows_not_the_training_weights():
    learner = FakeLearner(mixed_tree(), np.asarray(WEIGHTS))
    assert tree_sizes(learner, [ROWS[4], ROWS[1]]) == TreeSizes(4, 3.0, 3, 2.0)
    assert depth_avg(learner, ROWS) == 3.0


def test_paper_weights_give_the_paper_sum():
    # w(o) = 1/|train| per object: sum_l w(l) depth(l) needs no normalisation
    counts = np.asarray([3, 1, 0, 2, 1, 0, 1], dtype=np.float64)
    learner = FakeLearner(mixed_tree(), counts / counts.sum())
    assert depth_avg(learner) == float(np.dot(counts / 8, DEPTHS)) == 21 / 8
    assert expl_avg(learner) == float(np.dot(counts / 8, EXPLS)) == 16 / 8


# ---------------------------------------------------------------------- scikit-learn
def sklearn_leaf_sizes(est: DecisionTreeClassifier) -> tuple[dict[int, int], dict[int, int]]:
    """Depth and number of distinct features per leaf node id, from sklearn's own arrays."""
    t = est.tree_
    depth: dict[int, int] = {}
    expl: dict[int, int] = {}
    stack = [(0, 0, frozenset())]
    while stack:
        node, d, feats = stack.pop()
        if t.children_left[node] == -1:
            depth[node], expl[node] = d, len(feats)
            continue
        below = feats | {int(t.feature[node])}
        stack.append((int(t.children_left[node]), d + 1, below))
        stack.append((int(t.children_right[node]), d + 1, below))
    return depth, expl


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sklearn_tree_against_sklearn_arrays(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] + X[:, 1] ** 2 > 0.5).astype(int) + (X[:, 2] > 1).astype(int)
    est = DecisionTreeClassifier(max_depth=7, random_state=seed).fit(X, y)
    depth, expl = sklearn_leaf_sizes(est)
    assert any(expl[n] < depth[n] for n in depth)  # some path retests a feature
    tree = xdt.from_sklearn(est)
    assert depth_wc(tree) == max(depth.values()) == est.get_depth()
    assert expl_wc(tree) == max(expl.values())
    assert sorted(leaf_depths(tree).tolist()) == sorted(depth.values())
    assert sorted(leaf_explanation_sizes(tree).tolist()) == sorted(expl.values())

    X_test = rng.normal(size=(200, 3))
    sw = rng.uniform(0.0, 2.0, size=200)
    leaves = est.apply(X_test)
    row_depth = np.asarray([depth[n] for n in leaves])
    row_expl = np.asarray([expl[n] for n in leaves])
    sizes = tree_sizes(tree, X_test, sw)
    assert sizes.depth_avg == pytest.approx(np.average(row_depth, weights=sw), rel=1e-12)
    assert sizes.expl_avg == pytest.approx(np.average(row_expl, weights=sw), rel=1e-12)
    assert depth_avg(tree, X_test) == pytest.approx(row_depth.mean(), rel=1e-12)
    assert expl_avg(tree, X_test) == pytest.approx(row_expl.mean(), rel=1e-12)


# ---------------------------------------------------------------------- errors
def test_average_of_a_bare_tree_needs_data():
    for f in (depth_avg, expl_avg, tree_sizes, leaf_weights):
        with pytest.raises(DataError, match="pass the data X") as info:
            f(mixed_tree())
        assert isinstance(info.value, ValueError)
    # the worst cases need no weights
    assert depth_wc(mixed_tree()) == 4


def test_sample_weight_without_x():
    with pytest.raises(DataError, match="pass X as well"):
        depth_avg(FakeLearner(mixed_tree(), WEIGHTS), sample_weight=WEIGHTS)


@pytest.mark.parametrize("sample_weight, match", [
    (WEIGHTS[:-1], r"shape \(6,\); expected \(7,\)"),
    ([WEIGHTS], r"shape \(1, 7\); expected \(7,\)"),
    (2.0, r"shape \(\); expected \(7,\)"),
    ([1, 1, 1, -1, 1, 1, 1], r"negative weights \(at positions 3\)"),
    ([1, np.nan, 1, 1, 1, 1, np.nan], r"NaN weights \(at positions 1, 6\)"),
    ([1, 1, 1, 1, 1, 1, np.inf], "infinite weights"),
    (["1", "x", "1", "1", "1", "1", "1"], "sample_weight must be numbers"),
])
def test_bad_sample_weight(sample_weight, match):
    for f in (depth_avg, expl_avg, tree_sizes):
        with pytest.raises(DataError, match=match):
            f(mixed_tree(), ROWS, sample_weight)


def test_zero_total_weight():
    with pytest.raises(DataError, match="sum to 0"):
        tree_sizes(mixed_tree(), ROWS, [0.0] * 7)
    with pytest.raises(DataError, match="sum to 0"):
        depth_avg(mixed_tree(), np.empty((0, 3)))
    with pytest.raises(DataError, match="sum to 0"):
        expl_avg(FakeLearner(mixed_tree(), np.zeros(7)))


def test_bad_leaf_weights_of_a_learner():
    with pytest.raises(InvalidModelError, match=r"shape \(3,\); expected \(7,\)"):
        depth_avg(FakeLearner(mixed_tree(), np.ones(3)))
    with pytest.raises(InvalidModelError, match="negative"):
        expl_avg(FakeLearner(mixed_tree(), -np.ones(7)))


def test_bad_x_passes_through_encode_errors():
    with pytest.raises(UnknownCategoryError):
        depth_avg(mixed_tree(), [("purple", 1.0, 0)])
    with pytest.raises(InstanceError):
        tree_sizes(mixed_tree(), [[1.0, 2.0]])


@pytest.mark.parametrize("model, name", [("tree.json", "str"), ({"kind": "tree"}, "dict"),
                                         (None, "NoneType")])
def test_not_a_model(model, name):
    for f in (depth_wc, expl_wc, leaf_depths, leaf_explanation_sizes):
        with pytest.raises(UnsupportedEstimatorError, match=f"got {name}") as info:
            f(model)
        assert isinstance(info.value, TypeError)
    with pytest.raises(UnsupportedEstimatorError, match=f"got {name}"):
        tree_sizes(model, ROWS)


def test_sklearn_estimator_needs_importing_first():
    est = DecisionTreeClassifier(max_depth=2).fit([[0.0], [1.0], [2.0]], [0, 1, 1])
    with pytest.raises(UnsupportedEstimatorError, match=r"xdt\.from_sklearn"):
        depth_wc(est)


def test_unfitted_learner():
    with pytest.raises(NotFittedError, match="call fit first"):
        tree_sizes(UnfittedLearner(), ROWS)
    with pytest.raises(NotFittedError):
        expl_wc(DecisionTreeClassifier())


# ---------------------------------------------------------------------- properties
@st.composite
def tree_rows_weights(draw):
    tree = draw(trees())
    rows = draw(st.lists(instance_strategy(tree), min_size=1, max_size=12))
    weights = draw(st.lists(st.sampled_from((0.0, 0.25, 1.0, 3.0)), min_size=len(rows),
                            max_size=len(rows)))
    if sum(weights) == 0:
        weights[0] = 1.0
    return tree, rows, weights


def walk(tree: DecisionTree, row: dict) -> tuple[int, int]:
    """Depth and explanation size of the leaf ``row`` reaches, walking the node objects."""
    node, depth, seen = tree.root, 0, set()
    while not isinstance(node, Leaf):
        depth += 1
        seen.add(node.feature)
        value = row[node.feature]
        if isinstance(node, ThresholdSplit):
            node = node.left if value <= node.threshold else node.right
        else:
            node = next(b.node for b in node.branches if value in b.values)
    return depth, len(seen)


@settings(max_examples=examples(300), deadline=None)
@given(tree_rows_weights())
def test_explanation_size_never_exceeds_depth(case):
    tree, rows, weights = case
    depths, expls = leaf_depths(tree), leaf_explanation_sizes(tree)
    assert (expls <= depths).all()
    assert (expls >= 1).all() or tree.n_leaves == 1
    assert depth_wc(tree) == tree.depth == depths.max()
    assert expl_wc(tree) <= depth_wc(tree)

    sizes = tree_sizes(tree, rows, weights)
    assert sizes.expl_avg <= sizes.depth_avg
    reached = leaf_weights(tree, rows, weights) > 0
    assert depths[reached].min() <= sizes.depth_avg <= depths[reached].max()
    assert expls[reached].min() <= sizes.expl_avg <= expls[reached].max()

    # independently: walk each row down the node objects, and take the weighted mean
    walked = np.asarray([walk(tree, row) for row in rows], dtype=np.float64)
    expected = np.average(walked, axis=0, weights=weights)
    assert sizes.depth_avg == pytest.approx(expected[0], rel=1e-12)
    assert sizes.expl_avg == pytest.approx(expected[1], rel=1e-12)


# ---------------------------------------------------------------------- the package
def test_package_reexports():
    for name in xdt.metrics.__all__:
        assert getattr(xdt.metrics, name) is not None
    assert xdt.metrics.redundancy_report is redundancy_module.redundancy_report
    assert xdt.metrics.covered_share is redundancy_module.covered_share
    assert xdt.metrics.RedundancyReport is redundancy_module.RedundancyReport
    assert xdt.metrics.tree_sizes is size_module.tree_sizes


@pytest.mark.parametrize("module", [size_module, redundancy_module])
def test_docstring_examples(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
