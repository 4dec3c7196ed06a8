"""SER-DT's three-way fallback (Algorithm 1, lines 6-8) on real data: iris-bin.

iris-bin (``../shared/datasets/iris-bin.csv``: 150 rows, 12 binarised 0/1 columns, 3
classes; MurTree's copy) is a dataset where a node has tests that lower the Gini impurity but
none that is balanced, so SER-DT must take its fallback, at depth <= 6. The node is
``f7 = 0, f11 = 1, f8 = 1, f1 = 1``: 11 rows of class 1 and 1 of class 2, so
``wpm(S) = P(S) w(S) = 11 * 12 = 132``. A test that keeps the class-2 row with ``k`` rows of
class 1 leaves a part of ``wpm = k (k + 1)``, balanced only when ``k (k + 1) <= 66``
(``k <= 7``). Only ``f4`` and ``f5`` (complements of each other) vary there; each keeps
the class-2 row with 10 rows of class 1 (``wpm`` 110 > 66) and lowers the Gini. So no test
is balanced, and the fallback takes the attribute whose heaviest group is lightest — a tie,
which goes to the first, ``f4`` — and, on a 0/1 attribute, its one test ``x <= 0.5``. Both
of its children predict class 1, so the leaf merging of Section 6 folds it away again and
only the unmerged tree shows it.

Everything the test asserts about the node is computed here from the raw rows, by brute
force over the twelve tests, not through the learner's splitter.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import DATASETS, require_shared

from xdt.ir._tree import Leaf, ThresholdSplit
from xdt.learn import SERDTClassifier


@pytest.fixture(scope="module")
def iris_bin() -> pd.DataFrame:
    return pd.read_csv(require_shared(DATASETS / "iris-bin.csv"))


def pairs(labels: pd.Series) -> int:
    """P(S): pairs of rows of different classes."""
    counts = labels.value_counts().to_numpy()
    n = int(counts.sum())
    return (n * n - int((counts * counts).sum())) // 2


def wpm(labels: pd.Series) -> int:
    """wpm(S) = P(S) * w(S), every row weighing 1."""
    return pairs(labels) * len(labels)


def gini(labels: pd.Series) -> float:
    p = labels.value_counts(normalize=True).to_numpy()
    return float(1.0 - (p * p).sum()) if len(labels) else 0.0


def candidate_tests(rows: pd.DataFrame, features: list[str]) -> list[dict]:
    """Every test ``x <= 0.5`` of a 0/1 feature that splits ``rows``: Gini-lowering? balanced?
    and the heavier wpm of its two groups."""
    y = rows["class"]
    parent = gini(y)
    out = []
    for f in features:
        left, right = y[rows[f] == 0], y[rows[f] == 1]
        if left.empty or right.empty:
            continue
        child = (len(left) * gini(left) + len(right) * gini(right)) / len(y)
        heavier = max(wpm(left), wpm(right))
        out.append({"feature": f, "lowers": child < parent - 1e-12,
                    "balanced": heavier <= wpm(y) / 2, "heaviest": heavier})
    return out


def fallback_nodes(node, rows: pd.DataFrame, features: list[str], path: tuple = ()
                   ) -> list[tuple[tuple, list[dict], str]]:
    """The internal nodes of an unmerged tree where a Gini-lowering test exists but no
    Gini-lowering balanced one: (path, the node's tests, the feature the tree splits on)."""
    if isinstance(node, Leaf):
        return []
    assert isinstance(node, ThresholdSplit)
    tests = candidate_tests(rows, features)
    found = []
    if any(t["lowers"] for t in tests) and not any(t["lowers"] and t["balanced"]
                                                  for t in tests):
        found.append((path, tests, node.feature))
    go_left = rows[node.feature] <= node.threshold
    found += fallback_nodes(node.left, rows[go_left], features,
                            path + ((node.feature, 0),))
    found += fallback_nodes(node.right, rows[~go_left], features,
                            path + ((node.feature, 1),))
    return found


def test_serdt_takes_one_three_way_split_on_iris_bin(iris_bin):
    X, y = iris_bin.drop(columns=["class"]), iris_bin["class"]
    features = list(X.columns)
    ser = SERDTClassifier(factor_expl=0.97, max_depth=6, merge_leaves=False).fit(X, y)
    assert ser.n_fallback_splits_ == 1

    nodes = fallback_nodes(ser.tree_.root, iris_bin, features)
    assert len(nodes) == 1                    # the brute force agrees: one such node
    path, tests, split_feature = nodes[0]
    assert path == (("f7", 0), ("f11", 1), ("f8", 1), ("f1", 1))
    at = iris_bin[(iris_bin.f7 == 0) & (iris_bin.f11 == 1) & (iris_bin.f8 == 1)
                  & (iris_bin.f1 == 1)]
    assert at["class"].value_counts().to_dict() == {1: 11, 2: 1}
    assert wpm(at["class"]) == 132
    # f4 and f5 alone vary; each keeps the class-2 row with 10 class-1 rows: wpm 110 > 66
    assert [(t["feature"], t["lowers"], t["balanced"], t["heaviest"]) for t in tests] == [
        ("f4", True, False, 110), ("f5", True, False, 110)]
    # Algorithm 1, line 6: the attribute of the lightest heaviest group (first on ties)
    lightest = min(t["heaviest"] for t in tests)
    expected = next(t["feature"] for t in tests if t["heaviest"] == lightest)
    assert split_feature == expected == "f4"


def test_the_fallback_split_is_folded_away_by_the_leaf_merging(iris_bin):
    X, y = iris_bin.drop(columns=["class"]), iris_bin["class"]
    merged = SERDTClassifier(factor_expl=0.97, max_depth=6).fit(X, y)
    assert merged.n_fallback_splits_ == 1
    node = merged.tree_.root
    for feature, side in (("f7", 0), ("f11", 1), ("f8", 1)):
        assert isinstance(node, ThresholdSplit) and node.feature == feature
        node = node.left if side == 0 else node.right
    # f1's two children were both class 1 (the f4 split's two leaves included): one leaf
    assert node == Leaf(1)
    np.testing.assert_array_equal(merged.predict(X), SERDTClassifier(
        factor_expl=0.97, max_depth=6, merge_leaves=False).fit(X, y).predict(X))
