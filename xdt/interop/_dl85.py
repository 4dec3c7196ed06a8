"""Import fitted DL8.5 optimal classification trees (the ``pydl8.5`` package) into the IR.

DL8.5 (Aglin, Nijssen & Schaus, "Learning Optimal Decision Trees Using Caching Branch-and-
Bound Search", AAAI 2020) searches, by branch and bound over itemsets with a cache, for a
tree of bounded depth with the fewest misclassified rows, over 0/1 columns only.
``pydl85.DL85Classifier`` keeps its tree as a dict (``model.tree_``): a node
``{"feat": j, "left": ..., "right": ...}`` sends a row to ``left`` when column ``j`` equals 1
and to ``right`` otherwise (the opposite of STreeD's and scikit-learn's order); a leaf
``{"value": c, ...}`` predicts ``c``.

Its ``predict`` returns the leaf values, which are class *positions* ``0 .. k-1`` (its search
counts the rows of each class by position), so a model fitted on other labels is
refused: fit on codes (``np.unique(y, return_inverse=True)``) and name them with
``classes=``. The model does not record how many columns it was fitted on: pass
``feature_names`` (one per column) or ``encoder``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from xdt.errors import NotFittedError, ParameterError, UnsupportedEstimatorError
from xdt.interop._sklearn_tree import column_split, named_classes
from xdt.interop._tabular import TabularEncoder, fitted_encoder
from xdt.interop._tree_walk import build_tree
from xdt.ir._features import Feature
from xdt.ir._tree import DecisionTree, Leaf, Node

__all__ = ["from_dl85"]


def _pydl85():
    try:
        import pydl85
    except ImportError:
        raise UnsupportedEstimatorError(
            "importing a DL8.5 model needs the pydl8.5 package; install xdt's extra: "
            "pip install 'xdt[optimal]'") from None
    return pydl85


def from_dl85(model, feature_names: Sequence[str] | None = None, *,
              encoder: TabularEncoder | None = None, classes: Sequence | None = None,
              target: str | None = None) -> DecisionTree:
    """A :class:`~xdt.ir.DecisionTree` from a fitted ``pydl85.DL85Classifier``.

    The optimal tree of DL8.5 (Aglin, Nijssen & Schaus, AAAI 2020) over 0/1 columns, read
    from ``model.tree_`` as the module documentation describes: each column is a binary
    feature, or, with ``encoder``, the one-hot indicator of a categorical feature (a test
    on it becomes a categorical split), or a binary feature of the encoder.

    Parameters
    ----------
    model : fitted pydl85.DL85Classifier
        Fitted with misclassification error (the default; no ``error_function``,
        ``fast_error_function`` or ``leaf_value_function``) on n columns of 0/1 values and
        class codes ``0 .. k-1``.
    feature_names : sequence of str, optional
        Names of the n columns, in order: every column becomes a binary feature. Required
        unless ``encoder`` is given (DL8.5 does not record n). Not with ``encoder``.
    encoder : TabularEncoder, optional
        When the model was fitted on ``encoder.transform(frame)`` (all of whose columns are
        then 0/1): the tree is over ``encoder.features_`` and predicts on ``frame``.
    classes : sequence, optional
        The label of each class code ``0 .. k-1`` (``k = len(model.classes_)``); defaults to
        the codes themselves, which is what ``model.predict`` returns.
    target : str, optional
        Name of the predicted attribute, for readable rules.

    Returns
    -------
    DecisionTree
        Predicting, on every row of 0/1 values, the class whose code ``model.predict``
        returns (``classes[code]`` when ``classes`` is given). A binary feature accepts only
        0 and 1: another value raises :class:`~xdt.errors.UnknownCategoryError`, where DL8.5
        sends every value other than 1 right.

    Raises
    ------
    UnsupportedEstimatorError
        ``pydl8.5`` is not installed; ``model`` is not a ``DL85Classifier``; it was fitted
        with a custom error or leaf function (its leaves then hold what that function
        chose), or on labels other than ``0 .. k-1``; a tree tests a column beyond
        ``feature_names`` or the encoder's columns; an encoder column tested by the tree is
        not 0/1.
    NotFittedError
        The model is not fitted, or its search found no tree (``max_error``, ``time_limit``);
        ``encoder`` is not fitted.
    ParameterError
        Neither or both of ``feature_names`` and ``encoder``, or ``encoder`` is not a
        ``TabularEncoder``; ``classes`` of another length
        than ``model.classes_``, or with repeated labels.
    """
    pydl85 = _pydl85()
    if not isinstance(model, pydl85.DL85Classifier):
        raise UnsupportedEstimatorError(
            f"from_dl85 imports fitted pydl85.DL85Classifier models, not "
            f"{type(model).__name__}")
    if not getattr(model, "is_fitted_", False):
        raise NotFittedError("this DL85Classifier is not fitted; call fit(X, y) first")
    if getattr(model, "tree_", None) is None:
        raise NotFittedError(
            "this DL85Classifier's search found no tree (within max_error or time_limit); "
            "refit with a larger bound")
    custom = [p for p in ("error_function", "fast_error_function", "leaf_value_function")
              if getattr(model, p, None) is not None]
    if custom:
        raise UnsupportedEstimatorError(
            f"this DL85Classifier was fitted with {', '.join(custom)}, so its leaves hold what "
            "that function chose rather than classes; import a model fitted with the default "
            "misclassification error")
    codes = np.asarray(model.classes_)
    k = len(codes)
    if not np.array_equal(codes, np.arange(k)):
        raise UnsupportedEstimatorError(
            f"this DL85Classifier was fitted on the labels {codes.tolist()}, but DL8.5 counts "
            "classes by position and predicts positions 0..k-1; fit on codes "
            "(codes = np.unique(y, return_inverse=True)[1]) and pass the labels as classes=")
    if classes is None:
        labels = list(range(k))
    else:
        labels = named_classes(classes, k, f"class code 0..{k - 1} of the model")

    if (feature_names is None) == (encoder is None):
        raise ParameterError(
            "DL8.5 does not record how many columns it was fitted on: pass feature_names "
            "(one name per column) or encoder= (the TabularEncoder whose transform it was "
            "fitted on), not both")
    if encoder is not None:
        encoder = fitted_encoder(encoder)
        features, columns = list(encoder.features_), list(encoder.columns_)
    else:
        names = [str(n) for n in feature_names]
        features = [Feature(n, "binary") for n in names]
        columns = [(i, None) for i in range(len(names))]

    def children(node: dict) -> tuple[dict, ...]:
        if "feat" not in node:
            return ()
        j = int(node["feat"])
        if not 0 <= j < len(columns):
            raise UnsupportedEstimatorError(
                f"the tree tests column {j}, but {len(columns)} columns were named; pass one "
                "feature name per column the model was fitted on")
        if features[columns[j][0]].kind == "ordinal":
            raise UnsupportedEstimatorError(
                f"the tree tests column {j}, feature {features[columns[j][0]].name!r}, which "
                "the encoder made numeric (not 0/1); DL8.5 learns over 0/1 columns only: "
                "binarise it first (or declare it categorical to the encoder)")
        return node["left"], node["right"]

    def make(node: dict, kids: list[Node]) -> Node:
        if not kids:
            code = node["value"]
            if not (float(code).is_integer() and 0 <= int(code) < k):
                raise UnsupportedEstimatorError(
                    f"a leaf predicts {code}, which is not a class code 0..{k - 1}")
            return Leaf(labels[int(code)])
        one, other = kids
        # 1 goes left; column_split sends its lower branch (0) to its first node
        return column_split(features, columns[int(node["feat"])], 0.5, other, one, 0.5)

    return DecisionTree(features, labels, build_tree(model.tree_, children, make), target=target)
