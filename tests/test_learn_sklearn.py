"""The learners against scikit-learn: its estimator checks (trees, nested k-DNFs, Binarizer),
and CART's chosen test at every node has the impurity decrease of scikit-learn's best split
of the same rows (real data)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import DATASETS, require_shared
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks

from xdt.cli._demo_job import load_german
from xdt.interop._tabular import TabularEncoder
from xdt.ir import CategoricalSplit, Leaf, ThresholdSplit
from xdt.learn import Binarizer, CARTClassifier, NestedKDNFClassifier, SERDTClassifier


@parametrize_with_checks([CARTClassifier(), SERDTClassifier(), NestedKDNFClassifier(),
                          Binarizer()])
def test_scikit_learn_estimator_checks(estimator, check):
    name = getattr(check, "func", check).__name__
    if name == "check_array_api_input":
        # the learners take numpy arrays and pandas frames, not other array-API
        # namespaces, and their tags say so (the check itself needs SCIPY_ARRAY_API)
        assert estimator.__sklearn_tags__().array_api_support is False
        return
    check(estimator)


def _stump_decrease(X: np.ndarray, y: np.ndarray, criterion: str) -> float:
    """Impurity decrease of scikit-learn's best split of the rows (X, y)."""
    stump = DecisionTreeClassifier(max_depth=1, criterion=criterion).fit(X, y)
    t = stump.tree_
    if t.node_count == 1:
        return 0.0
    w = t.weighted_n_node_samples
    return float(t.impurity[0] - (w[1] * t.impurity[1] + w[2] * t.impurity[2]) / w[0])


def _our_decrease(est: CARTClassifier, node, rows: np.ndarray, X_ours, y: np.ndarray) -> float:
    """Impurity decrease of our test at ``node`` on the training ``rows`` reaching it."""
    from reference.criteria import entropy, gini

    f = gini if est.criterion == "gini" else entropy
    codes = np.searchsorted(est.classes_, y[rows])

    def imp(mask):
        return f(np.bincount(codes[mask], minlength=len(est.classes_)).astype(float))

    if isinstance(node, ThresholdSplit):
        left = X_ours[node.feature].to_numpy(dtype=float)[rows] <= node.threshold
    else:
        left = X_ours[node.feature].isin(node.branches[0].values).to_numpy()[rows]
    n, n_left = len(rows), int(left.sum())
    return imp(np.ones(n, bool)) - (n_left * imp(left) + (n - n_left) * imp(~left)) / n


def _check_every_node(est, X_ours: pd.DataFrame, X_sklearn: np.ndarray, y: np.ndarray) -> int:
    """Compare our decrease with scikit-learn's best at every internal node; return count."""
    checked = 0
    stack = [(est.tree_.root, np.arange(len(y)))]
    while stack:
        node, rows = stack.pop()
        if isinstance(node, Leaf):
            continue
        ours = _our_decrease(est, node, rows, X_ours, y)
        theirs = _stump_decrease(X_sklearn[rows], y[rows], est.criterion)
        assert ours == pytest.approx(theirs, rel=1e-9, abs=1e-12), (node, len(rows))
        assert ours > 0
        checked += 1
        if isinstance(node, ThresholdSplit):
            left = X_ours[node.feature].to_numpy(dtype=float)[rows] <= node.threshold
            children = [(node.left, rows[left]), (node.right, rows[~left])]
        else:
            assert isinstance(node, CategoricalSplit)
            col = X_ours[node.feature].to_numpy()[rows]
            children = [(b.node, rows[np.isin(col, b.values)]) for b in node.branches]
        stack.extend(children)
    return checked


@pytest.mark.slow
@pytest.mark.parametrize("name,criterion", [("banknote.csv", "gini"),
                                            ("cardiotocography.csv", "gini"),
                                            ("htru2.csv.gz", "entropy"),
                                            ("letter.csv.gz", "gini")])
def test_cart_splits_as_well_as_scikit_learn_on_real_data(name, criterion):
    frame = pd.read_csv(require_shared(DATASETS / name))
    X = frame.iloc[:, :-1]
    # values scikit-learn can tell apart: it compares float32 copies
    X = X.astype(np.float32).astype(np.float64)
    y = frame.iloc[:, -1].to_numpy()
    est = CARTClassifier(max_depth=6, criterion=criterion).fit(X, y)
    assert _check_every_node(est, X, X.to_numpy(), y) >= 15


@pytest.mark.slow
def test_cart_splits_categories_as_well_as_scikit_learn_on_one_hot_columns():
    frame = load_german()
    X, y = frame.drop(columns=["class"]), frame["class"].to_numpy()
    est = CARTClassifier(max_depth=5).fit(X, y)
    assert any(isinstance(n, CategoricalSplit) for n in _nodes(est.tree_.root))
    encoded = TabularEncoder().fit_transform(X)
    assert _check_every_node(est, X, encoded, y) >= 10


def _nodes(root):
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, ThresholdSplit):
            stack += [node.left, node.right]
        elif isinstance(node, CategoricalSplit):
            stack += [b.node for b in node.branches]
