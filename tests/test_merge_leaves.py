"""DecisionTree.merge_leaves: same-class sibling leaves merged in the IR, predictions kept.

On random trees (binary, categorical and ordinal features, multiway splits) every point of
the original tree's cells gets the same class, no split of the result has two leaf children
of one class, and merging again changes nothing; on a scikit-learn tree, the imported and
merged tree predicts what the estimator predicts on every row.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from test_properties import big_trees, trees
from tiers import examples

from xdt.interop._fit import fit_sklearn_tree
from xdt.ir import Branch, CategoricalSplit, DecisionTree, Feature, Leaf, ThresholdSplit


def sibling_leaf_classes(tree: DecisionTree) -> list[list[object]]:
    """Per split node, the classes of its leaf children."""
    out = []
    stack = [tree.root]
    while stack:
        node = stack.pop()
        if isinstance(node, Leaf):
            continue
        kids = [node.left, node.right] if isinstance(node, ThresholdSplit) \
            else [b.node for b in node.branches]
        out.append([k.label for k in kids if isinstance(k, Leaf)])
        stack.extend(kids)
    return out


def cell_points(tree: DecisionTree, limit: int = 3000) -> list[list[object]]:
    """One value per cell of each feature of ``tree``: the whole product when small, else
    ``limit`` random combinations (seeded)."""
    values = [[cells.value(c) for c in range(cells.n_cells)] for cells in tree.cells]
    if np.prod([len(v) for v in values], dtype=float) <= limit:
        return [list(p) for p in itertools.product(*values)]
    rng = np.random.default_rng(0)
    return [[v[rng.integers(len(v))] for v in values] for _ in range(limit)]


def check_merge(tree: DecisionTree) -> DecisionTree:
    merged = tree.merge_leaves()
    points = cell_points(tree)
    assert merged.predict(points).tolist() == tree.predict(points).tolist()
    for labels in sibling_leaf_classes(merged):
        assert len(labels) == len(set(labels)), labels
    assert merged.n_leaves <= tree.n_leaves
    assert (merged.features, merged.classes, merged.target) == \
        (tree.features, tree.classes, tree.target)
    again = merged.merge_leaves()
    assert again.n_nodes == merged.n_nodes and again.n_leaves == merged.n_leaves
    return merged


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trees())
def test_random_trees_keep_their_predictions(tree):
    check_merge(tree)


@settings(max_examples=examples(40), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(big_trees())
def test_big_random_trees_keep_their_predictions(tree):
    check_merge(tree)


def test_merges_cascade_and_multiway_branches_join():
    x, c = Feature("x", "ordinal"), Feature("c", "categorical", ("r", "g", "b", "k"))
    # x <= 1: (c in {r}: a, {g}: b, {b}: a, {k}: a) ; x > 1: (x <= 2: b, else b)
    tree = DecisionTree([x, c], ["a", "b"], ThresholdSplit(
        "x", 1.0,
        CategoricalSplit("c", (Branch(("r",), Leaf("a")), Branch(("g",), Leaf("b")),
                               Branch(("b",), Leaf("a")), Branch(("k",), Leaf("a")))),
        ThresholdSplit("x", 2.0, Leaf("b"), Leaf("b"))), target="y")
    merged = check_merge(tree)
    assert merged.root == ThresholdSplit(
        "x", 1.0,
        CategoricalSplit("c", (Branch(("r", "b", "k"), Leaf("a")), Branch(("g",), Leaf("b")))),
        Leaf("b"))
    assert (tree.n_leaves, merged.n_leaves) == (6, 3)
    # a whole subtree of one class collapses to a leaf, through a multiway split
    one = DecisionTree([x, c], ["a", "b"], CategoricalSplit("c", (
        Branch(("r", "g"), ThresholdSplit("x", 1.0, Leaf("a"), Leaf("a"))),
        Branch(("b", "k"), Leaf("a")))))
    assert one.merge_leaves().root == Leaf("a")
    # leaf values are kept only when the merged leaves share them
    valued = DecisionTree([x], ["a", "b"], ThresholdSplit("x", 1.0, Leaf("a", (0.5,)),
                                                          Leaf("a", (0.5,))))
    assert valued.merge_leaves().root == Leaf("a", (0.5,))
    mixed = DecisionTree([x], ["a", "b"], ThresholdSplit("x", 1.0, Leaf("a", (0.5,)),
                                                         Leaf("a", (0.7,))))
    assert mixed.merge_leaves().root == Leaf("a")


def test_a_scikit_learn_tree_merged_predicts_like_the_estimator():
    rng = np.random.default_rng(3)
    n = 600
    frame = pd.DataFrame({"u": rng.normal(size=n), "v": rng.integers(0, 5, n),
                          "colour": rng.choice(["red", "green", "blue"], n)})
    # noisy labels: a depth-limited scikit-learn tree splits where the majority stays
    frame["y"] = np.where((frame["u"] > 0) ^ (rng.random(n) < 0.2), "p", "q")
    fit = fit_sklearn_tree(frame, "y", max_depth=5, seed=1)
    merged = fit.model.merge_leaves()
    assert merged.n_leaves < fit.model.n_leaves
    features = frame.drop(columns=["y"])
    theirs = fit.estimator.predict(fit.encoder.transform(features))
    assert merged.predict(features).tolist() == theirs.tolist()
    for labels in sibling_leaf_classes(merged):
        assert len(labels) == len(set(labels))
