"""CART: the greedy Gini tree (Breiman, Friedman, Olshen & Stone, *Classification and
Regression Trees*, 1984), as the baseline of Souza, Cicalese, Laber & Molinaro, "Decision
Trees with Short Explainable Rules", NeurIPS 2022, Section 6.
"""

from __future__ import annotations

from xdt.learn._base import TreeClassifierBase


class CARTClassifier(TreeClassifierBase):
    """CART decision tree classifier, emitting xdt's IR.

    At each node, the test of least weighted Gini impurity (or entropy) over every threshold
    of every ordinal feature and every ``x = v`` test of every categorical feature; a node is
    expanded only while that impurity is *strictly* lower than the node's own, up to
    ``max_depth``. After growth, sibling leaves predicting the same class are merged
    (repeatedly, bottom-up): the post-processing Souza et al. (NeurIPS 2022, Section 6)
    apply to both CART and SER-DT. The tree is the baseline of their Table 1.

    The chosen test at each node has the same impurity decrease as scikit-learn's best split
    of the same rows (``DecisionTreeClassifier`` with all features considered); thresholds
    are midpoints between consecutive distinct values. Unlike scikit-learn, a node whose best
    test does not lower the impurity stays a leaf, and categorical columns are split natively.

    Parameters
    ----------
    max_depth : int or None, default 6
        Largest number of tests on a path (``None``: unlimited). 6 is the depth of the
        paper's comparison.
    min_samples_leaf : int, default 1
        Least number of training rows on each side of a test.
    criterion : {"gini", "entropy"}, default "gini"
    categorical_features : list of str or int, or bool mask, optional
        Numeric columns to treat as categorical (integer-coded categories). String, object
        and pandas ``category`` columns are categorical anyway; ``bool`` columns binary.
    merge_leaves : bool, default True
        Merge same-class sibling leaves after growth.

    Attributes
    ----------
    See :class:`xdt.learn._base.TreeClassifierBase` (``tree_``, ``classes_``,
    ``leaf_weights_``, ...).

    Examples
    --------
    >>> import numpy as np
    >>> from xdt.learn import CARTClassifier
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]]); y = ["a", "a", "b", "b"]
    >>> est = CARTClassifier().fit(X, y)
    >>> est.tree_.root
    ThresholdSplit(feature='x0', threshold=1.5, left=Leaf(label='a'), right=Leaf(label='b'))
    """

    def __init__(self, max_depth: int | None = 6, min_samples_leaf: int = 1,
                 criterion: str = "gini", categorical_features=None,
                 merge_leaves: bool = True):
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.criterion = criterion
        self.categorical_features = categorical_features
        self.merge_leaves = merge_leaves
