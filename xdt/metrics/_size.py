"""Depth and explanation size of a decision tree, worst case and weighted average: the
measures of Souza, Cicalese, Laber & Molinaro, "Decision Trees with Short Explainable
Rules", NeurIPS 2022, Section 3 ("Depth and explanation size of a tree").

For a leaf ``l`` of a tree ``T``:

* ``depth(l)`` is the number of tests (edges) on the path from the root to ``l``;
* ``expl(l)``, its *explanation size*, is the number of *distinct* features tested on that
  path: a feature tested twice counts once, so ``expl(l) <= depth(l)``.

With ``w(l)`` the total weight of the objects reaching ``l``::

    depth_wc(T) = max_l depth(l)        depth_avg(T) = sum_l w(l) depth(l) / sum_l w(l)
    expl_wc(T)  = max_l expl(l)         expl_avg(T)  = sum_l w(l) expl(l)  / sum_l w(l)

The worst cases range over every leaf of the tree (also leaves no object reaches). The
weights of the averages are those of the rows ``X`` given (with ``sample_weight``), or, for a
fitted xdt learner, the training weight reaching each leaf (its ``leaf_weights_``).

Examples
--------
A tree that tests ``x`` twice on its deepest paths (depth 3, explanation size 2):

>>> from xdt.ir import DecisionTree, Feature, Leaf, ThresholdSplit
>>> t = DecisionTree([Feature("x", "ordinal"), Feature("y", "ordinal")], ["a", "b"],
...                  ThresholdSplit("x", 5, Leaf("a"),
...                                 ThresholdSplit("y", 2, Leaf("b"),
...                                                ThresholdSplit("x", 8, Leaf("a"), Leaf("b")))))
>>> leaf_depths(t).tolist(), leaf_explanation_sizes(t).tolist()
([1, 2, 3, 3], [1, 2, 2, 2])
>>> depth_wc(t), expl_wc(t)
(3, 2)
>>> tree_sizes(t, X=[[1, 0], [6, 1], [6, 3], [9, 3]])
TreeSizes(depth_wc=3, depth_avg=2.25, expl_wc=2, expl_avg=1.75)
>>> expl_avg(t, X=[[1, 0], [6, 1], [6, 3], [9, 3]], sample_weight=[2, 0, 1, 1])
1.5
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from xdt.errors import DataError, InvalidModelError, NotFittedError, UnsupportedEstimatorError
from xdt.ir._protocol import PATHS, offers
from xdt.ir._tree import DecisionTree

__all__ = ["TreeSizes", "depth_avg", "depth_wc", "expl_avg", "expl_wc", "leaf_depths",
           "leaf_explanation_sizes", "leaf_weights", "tree_sizes"]


@dataclass(frozen=True)
class TreeSizes:
    """Depth and explanation size of one tree, worst case and weighted average (Souza et al.,
    NeurIPS 2022, Section 3); see :func:`tree_sizes`.

    Attributes
    ----------
    depth_wc : int
        Largest number of tests on a root-to-leaf path.
    depth_avg : float
        Weighted mean number of tests on the path of a leaf.
    expl_wc : int
        Largest number of distinct features tested on a root-to-leaf path.
    expl_avg : float
        Weighted mean number of distinct features tested on the path of a leaf.
    """

    depth_wc: int
    depth_avg: float
    expl_wc: int
    expl_avg: float


# ---------------------------------------------------------------------- the model
def _tree_of(model: object) -> tuple[DecisionTree, object | None]:
    """The model's tree, and its training leaf weights when it is a fitted learner."""
    if offers(model, PATHS):
        return model, None
    tree = getattr(model, "tree_", None)
    if offers(tree, PATHS):
        return tree, getattr(model, "leaf_weights_", None)
    name = type(model).__name__
    if tree is not None:  # e.g. a fitted scikit-learn tree, whose tree_ is sklearn's own
        raise UnsupportedEstimatorError(
            f"got a {name} whose tree_ is a {type(tree).__name__}, not an xdt DecisionTree; "
            "import a scikit-learn tree with xdt.from_sklearn(estimator) first")
    if hasattr(model, "fit"):
        raise NotFittedError(
            f"this {name} has no fitted tree (no tree_ attribute); call fit first, or import "
            "a fitted scikit-learn tree with xdt.from_sklearn(estimator)")
    raise UnsupportedEstimatorError(
        f"expected an xdt DecisionTree or a fitted xdt learner (with tree_ and leaf_weights_), "
        f"got {name}")


def _check_finite_nonnegative(w: np.ndarray, what: str, error: type[Exception]) -> None:
    for bad, why in ((np.isnan(w), "NaN"), (np.isinf(w), "infinite"), (w < 0, "negative")):
        if bad.any():
            at = np.flatnonzero(bad)
            shown = ", ".join(str(i) for i in at[:5]) + (", ..." if len(at) > 5 else "")
            raise error(f"{what} has {why} weights (at positions {shown}); weights must be "
                        "finite numbers >= 0")


def _as_float_array(values: object, what: str, error: type[Exception]) -> np.ndarray:
    try:
        return np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise error(f"{what} must be numbers; got {type(values).__name__}: {e}") from e


# ---------------------------------------------------------------------- per leaf
def leaf_depths(model: object) -> np.ndarray:
    """Depth of every leaf: the number of tests (edges) on its root-to-leaf path.

    Parameters
    ----------
    model : DecisionTree or fitted xdt learner
        A learner is anything with a ``tree_`` attribute holding a :class:`DecisionTree`.

    Returns
    -------
    numpy.ndarray of shape (n_leaves,), int64
        In ``tree.paths`` order.

    Raises
    ------
    UnsupportedEstimatorError
        (a ``TypeError``) when ``model`` is neither a tree nor a fitted xdt learner.
    NotFittedError
        When ``model`` is a learner that has not been fitted.
    """
    tree, _ = _tree_of(model)
    return np.fromiter((len(p) for p in tree.paths), dtype=np.int64, count=tree.n_leaves)


def leaf_explanation_sizes(model: object) -> np.ndarray:
    """Explanation size of every leaf (Souza et al., NeurIPS 2022, Section 3): the number of
    *distinct* features tested on its root-to-leaf path.

    Parameters
    ----------
    model : DecisionTree or fitted xdt learner

    Returns
    -------
    numpy.ndarray of shape (n_leaves,), int64
        In ``tree.paths`` order; never above :func:`leaf_depths`.

    Raises
    ------
    UnsupportedEstimatorError, NotFittedError
        As :func:`leaf_depths`.
    """
    tree, _ = _tree_of(model)
    return np.fromiter((len(p.features) for p in tree.paths), dtype=np.int64,
                       count=tree.n_leaves)


def leaf_weights(model: object, X: object = None, sample_weight: object = None) -> np.ndarray:
    """Total weight of the objects reaching each leaf: the ``w(l)`` of the averages.

    Parameters
    ----------
    model : DecisionTree or fitted xdt learner
        A fitted xdt learner has ``tree_`` (a :class:`DecisionTree`) and ``leaf_weights_``
        (the training weight reaching each leaf, shape (n_leaves,), in ``tree_.paths``
        order).
    X : array-like of shape (n, n_features), DataFrame, list of dicts, optional
        Rows routed through the tree (any form :meth:`DecisionTree.encode` reads). Without
        ``X``, the learner's ``leaf_weights_`` are used (training weights by default).
    sample_weight : array-like of shape (n,), optional
        Weight of each row of ``X``; 1 per row by default.

    Returns
    -------
    numpy.ndarray of shape (n_leaves,), float64
        In ``tree.paths`` order; 0 for a leaf no row reaches.

    Raises
    ------
    DataError
        (a ``ValueError``) when there are no weights to use (no ``X`` and ``model`` is a bare
        tree), ``sample_weight`` is given without ``X``, or ``sample_weight`` is not one
        finite number >= 0 per row of ``X``.
    InvalidModelError
        When the learner's ``leaf_weights_`` are not one finite number >= 0 per leaf.
    InstanceError
        (and subclasses) when ``X`` cannot be read against the model's features.
    UnsupportedEstimatorError, NotFittedError
        As :func:`leaf_depths`.
    """
    tree, trained = _tree_of(model)
    if X is None:
        if sample_weight is not None:
            raise DataError("sample_weight weighs the rows of X; pass X as well")
        if trained is None:
            raise DataError(
                "an average depth or explanation size weighs the leaves by the objects "
                "reaching them: pass the data X whose (sample) weights define the average, "
                "or a fitted xdt learner (its training weights are used)")
        w = _as_float_array(trained, "leaf_weights_ of the model", InvalidModelError)
        if w.shape != (tree.n_leaves,):
            raise InvalidModelError(
                f"leaf_weights_ of the model has shape {w.shape}; expected ({tree.n_leaves},): "
                "one weight per leaf of tree_, in tree_.paths order")
        _check_finite_nonnegative(w, "leaf_weights_ of the model", InvalidModelError)
        return w.copy()
    leaves = tree.leaf_paths(tree.encode(X))
    if sample_weight is None:
        w = np.ones(len(leaves), dtype=np.float64)
    else:
        w = _as_float_array(sample_weight, "sample_weight", DataError)
        if w.shape != (len(leaves),):
            raise DataError(f"sample_weight has shape {w.shape}; expected ({len(leaves)},): "
                            "one weight per row of X")
        _check_finite_nonnegative(w, "sample_weight", DataError)
    return np.bincount(leaves, weights=w, minlength=tree.n_leaves).astype(np.float64)


def _average(sizes: np.ndarray, weights: np.ndarray) -> float:
    total = float(weights.sum())
    if total <= 0:
        raise DataError("the weights reaching the leaves sum to 0 (no rows in X, or every "
                        "weight 0); an average needs a positive total weight")
    return float(weights @ sizes) / total


# ---------------------------------------------------------------------- the measures
def depth_wc(model: object) -> int:
    """Worst-case depth (Souza et al., NeurIPS 2022, Section 3): the largest number of tests
    (edges) on a root-to-leaf path, over every leaf; 0 for a lone leaf.

    Parameters
    ----------
    model : DecisionTree or fitted xdt learner

    Returns
    -------
    int

    Raises
    ------
    UnsupportedEstimatorError, NotFittedError
        As :func:`leaf_depths`.
    """
    return int(leaf_depths(model).max())


def expl_wc(model: object) -> int:
    """Worst-case explanation size (Souza et al., NeurIPS 2022, Section 3): the largest
    number of distinct features tested on a root-to-leaf path, over every leaf.

    Parameters
    ----------
    model : DecisionTree or fitted xdt learner

    Returns
    -------
    int
        At most :func:`depth_wc`.

    Raises
    ------
    UnsupportedEstimatorError, NotFittedError
        As :func:`leaf_depths`.
    """
    return int(leaf_explanation_sizes(model).max())


def depth_avg(model: object, X: object = None, sample_weight: object = None) -> float:
    """Average depth (Souza et al., NeurIPS 2022, Section 3):
    ``sum_l w(l) depth(l) / sum_l w(l)``, with ``w(l)`` the total weight reaching leaf ``l``.

    With the paper's weights (``1/|train|`` per training object, summing to 1) this is the
    paper's ``depth_avg(T) = sum_l w(l) depth(l)``.

    Parameters
    ----------
    model : DecisionTree or fitted xdt learner
    X : array-like of shape (n, n_features), DataFrame, list of dicts, optional
        Rows whose weights define the average; default: a learner's training weights.
    sample_weight : array-like of shape (n,), optional
        Weight of each row of ``X``; 1 per row by default.

    Returns
    -------
    float
        Between the smallest and the largest depth of a leaf of positive weight.

    Raises
    ------
    DataError
        As :func:`leaf_weights`, and when the total weight is 0 (``X`` has no rows, or
        every weight is 0).
    InvalidModelError, InstanceError, UnsupportedEstimatorError, NotFittedError
        As :func:`leaf_weights`.
    """
    return _average(leaf_depths(model), leaf_weights(model, X, sample_weight))


def expl_avg(model: object, X: object = None, sample_weight: object = None) -> float:
    """Average explanation size (Souza et al., NeurIPS 2022, Section 3):
    ``sum_l w(l) expl(l) / sum_l w(l)``, with ``expl(l)`` the number of distinct features
    tested on the path of leaf ``l`` and ``w(l)`` the total weight reaching it.

    Parameters and errors as :func:`depth_avg`.

    Returns
    -------
    float
        At most :func:`depth_avg` for the same weights.
    """
    return _average(leaf_explanation_sizes(model), leaf_weights(model, X, sample_weight))


def tree_sizes(model: object, X: object = None, sample_weight: object = None) -> TreeSizes:
    """All four measures of Souza et al. (NeurIPS 2022, Section 3) at once: worst-case and
    average depth, worst-case and average explanation size.

    Parameters
    ----------
    model : DecisionTree or fitted xdt learner
        A fitted xdt learner has ``tree_`` (a :class:`DecisionTree`) and ``leaf_weights_``
        (float64, shape (n_leaves,), the training weight reaching each leaf).
    X : array-like of shape (n, n_features), DataFrame, list of dicts, optional
        Rows whose weights define the averages; default: a learner's training weights.
    sample_weight : array-like of shape (n,), optional
        Weight of each row of ``X``; 1 per row by default.

    Returns
    -------
    TreeSizes

    Raises
    ------
    DataError, InvalidModelError, InstanceError, UnsupportedEstimatorError, NotFittedError
        As :func:`depth_avg`.

    Notes
    -----
    The worst cases range over every leaf, including leaves of weight 0 (and dead leaves no
    point can reach). Time ``O(P + n d)`` for total path length ``P``, ``n`` rows and depth
    ``d``.

    References
    ----------
    Souza, Cicalese, Laber & Molinaro, "Decision Trees with Short Explainable Rules",
    NeurIPS 2022, Section 3.
    """
    depths = leaf_depths(model)
    expls = leaf_explanation_sizes(model)
    weights = leaf_weights(model, X, sample_weight)
    return TreeSizes(depth_wc=int(depths.max()), depth_avg=_average(depths, weights),
                     expl_wc=int(expls.max()), expl_avg=_average(expls, weights))
