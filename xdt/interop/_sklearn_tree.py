"""Fitted scikit-learn decision trees as IR trees, and the reading of their node arrays that
the ensemble importer (:mod:`xdt.interop._sklearn_ensembles`) shares.

scikit-learn casts inputs to float32 before comparing them with a node's float64
threshold ``t``: a row goes left when ``float32(x) <= t``. The imported tree tests
``x <= tau`` on float64 values, with ``tau`` chosen so that ``x <= tau`` holds exactly when
``float32(x) <= t`` does, for every float64 ``x`` (see :func:`float32_threshold`). The
imported tree therefore predicts what scikit-learn predicts on every input, including
points on a threshold and one float32 ulp either side. Its rules show ``tau`` as the
shortest decimal that sends every float32 value the same way (``x <= 0.5``, see
:func:`xdt.ir._values.display_threshold`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from xdt.errors import (
    DataError,
    NotFittedError,
    ParameterError,
    UnknownFeatureError,
    UnsupportedEstimatorError,
)
from xdt.interop._tabular import TabularEncoder, fitted_encoder
from xdt.interop._tree_walk import build_tree
from xdt.ir._features import Feature
from xdt.ir._tree import Branch, CategoricalSplit, DecisionTree, Leaf, Node, ThresholdSplit
from xdt.ir._values import float32_below

#: The scikit-learn ensembles :func:`xdt.interop._sklearn_ensembles.from_sklearn_ensemble`
#: imports (and their subclasses).
SUPPORTED_ENSEMBLES = ("RandomForestClassifier", "ExtraTreesClassifier",
                       "GradientBoostingClassifier", "HistGradientBoostingClassifier")


def float32_threshold(t: float) -> float:
    """The float64 ``tau`` with ``x <= tau  <=>  float32(x) <= t`` for every float64 ``x``.

    Let ``a`` be the largest float32 not above ``t`` and ``b`` the next float32. Rounding to
    nearest sends ``x`` to ``a`` or below exactly when ``x`` is below the midpoint
    ``m = (a + b) / 2`` (exact in float64), or equal to it and ``a`` has the even significand
    (ties to even). So ``tau = m`` in that case, and the float64 just below ``m`` otherwise.
    """
    t = float(t)
    a = np.float32(float32_below(t))
    with np.errstate(over="ignore"):
        b = np.nextafter(a, np.float32(np.inf))
    if not np.isfinite(b):  # above float32's range every value rounds to a or to inf
        return float(a)
    m = (float(a) + float(b)) / 2.0
    a_even = (int(np.array(a, dtype=np.float32).view(np.uint32)) & 1) == 0
    return m if a_even else float(np.nextafter(m, -math.inf))


def class_label(v: object) -> str | int:
    """A class label as the IR keeps it: integers (and integral numbers, booleans as 0/1)
    as ints, anything else as its text."""
    v = v.item() if isinstance(v, np.generic) else v
    if isinstance(v, bool):  # the IR's labels are str or int: False/True become 0/1
        return int(v)
    if isinstance(v, int):
        return v
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return str(v)


def named_classes(classes, k: int, of: str) -> list[str | int]:
    """The labels a user gives to a model's ``k`` classes (``classes=`` of the importers of
    learners that learn integer codes), checked: a sequence of ``k`` distinct labels, not a
    string (whose characters would pass as labels). ``of`` says what they name, for the error.

    Raises
    ------
    ParameterError
        ``classes`` a string or not a sequence, of another length than ``k``, or with repeats.
    """
    if isinstance(classes, str | bytes) or not hasattr(classes, "__len__"):
        raise ParameterError(
            f"classes= must be a sequence of {k} labels, one per {of}, got {classes!r}")
    labels = [class_label(c) for c in classes]
    if len(labels) != k or len(set(labels)) != k:
        raise ParameterError(
            f"classes= must give {k} distinct labels, one per {of}, got {list(classes)}")
    return labels


def _is_frame(X) -> bool:
    import pandas as pd

    return isinstance(X, pd.DataFrame)


def _binary_columns(X, names: list[str]) -> set[int]:
    """Positions of the columns of ``X`` (rows, ``len(names)`` columns) holding only 0 and 1.

    Raises
    ------
    DataError
        ``X`` has no rows, lacks one of ``names`` (a DataFrame), or has another column count.
    """
    import pandas as pd

    if _is_frame(X):
        missing = [n for n in names if n not in X.columns]
        if missing:
            raise DataError(f"X has no column(s) {missing}; the estimator's columns are: "
                            f"{', '.join(names)}")
        frame = X[names]
    else:
        arr = np.asarray(X, dtype=object)
        if arr.ndim != 2 or arr.shape[1] != len(names):
            raise DataError(f"X must be a table of rows x {len(names)} columns (those the "
                            f"estimator was fitted on), got shape {arr.shape}")
        frame = pd.DataFrame(arr)
    if len(frame) == 0:
        raise DataError("X has no rows; pass the rows the estimator was fitted on")
    out = set()
    for j in range(len(names)):
        values = pd.to_numeric(frame.iloc[:, j], errors="coerce").to_numpy(dtype=np.float64)
        if np.isin(values, (0.0, 1.0)).all():
            out.add(j)
    return out


def from_sklearn_tree(estimator, feature_names: Sequence[str] | None = None, *,
                      X=None, binary_features: Iterable[str] | None = None,
                      encoder: TabularEncoder | None = None, target: str | None = None
                      ) -> DecisionTree:
    """A :class:`~xdt.ir.DecisionTree` from a fitted scikit-learn
    ``DecisionTreeClassifier``: the tree half of :func:`xdt.from_sklearn`, which documents the
    parameters, how columns become features, and the errors (the same here).
    """
    from sklearn.base import is_classifier
    from sklearn.tree import BaseDecisionTree

    if not isinstance(estimator, BaseDecisionTree) or not is_classifier(estimator):
        raise UnsupportedEstimatorError(
            f"from_sklearn imports DecisionTreeClassifier trees and the classifier ensembles "
            f"{', '.join(SUPPORTED_ENSEMBLES)}, not {type(estimator).__name__}"
            + ("; regression trees have no classes to explain"
               if isinstance(estimator, BaseDecisionTree) else ""))
    if not hasattr(estimator, "tree_"):
        raise NotFittedError(
            f"this {type(estimator).__name__} is not fitted; call fit(X, y) before importing it")
    if getattr(estimator, "n_outputs_", 1) != 1:
        raise UnsupportedEstimatorError(
            "multi-output trees are not supported; fit one tree per output")
    features, columns = resolve_features(estimator.n_features_in_, estimator, feature_names,
                                         X, binary_features, encoder)
    classes = estimator_classes(estimator)
    value = estimator.tree_.value[:, 0, :]

    def leaf(node: int) -> Leaf:
        return Leaf(classes[int(np.argmax(value[node]))])

    root = tree_root(estimator.tree_, features, columns, leaf)
    return DecisionTree(features, classes, root, target=target, input_dtype="float32")


def resolve_features(n_in: int, estimator, feature_names: Sequence[str] | None, X,
                     binary_features: Iterable[str] | None, encoder: TabularEncoder | None
                     ) -> tuple[list[Feature], list[tuple[int, object]]]:
    """The features of an estimator fitted on ``n_in`` columns, and per column
    ``(feature index, indicated value or None)`` (see :func:`from_sklearn` for the rules).

    Raises
    ------
    UnsupportedEstimatorError, UnknownFeatureError, DataError, ParameterError
        As listed in :func:`from_sklearn`.
    """
    if encoder is not None:
        if X is not None or binary_features is not None:
            raise ParameterError(
                "give either encoder= or X=/binary_features=, not both: the encoder already "
                "decided the kind of each column")
        encoder = fitted_encoder(encoder)
        if len(encoder.columns_) != n_in:
            raise UnsupportedEstimatorError(
                f"the encoder makes {len(encoder.columns_)} columns but the estimator was "
                f"fitted on {n_in}")
        return list(encoder.features_), list(encoder.columns_)
    if feature_names is None:
        feature_names = getattr(estimator, "feature_names_in_", None)
    if feature_names is None and _is_frame(X) and len(X.columns) == n_in:
        feature_names = list(X.columns)
    names = [str(n) for n in feature_names] if feature_names is not None \
        else [f"x{i}" for i in range(n_in)]
    if len(names) != n_in:
        raise UnsupportedEstimatorError(
            f"{len(names)} feature names for an estimator fitted on {n_in} features")
    binary = _binary_columns(X, names) if X is not None else set()
    if isinstance(binary_features, str):
        binary_features = [binary_features]
    for name in binary_features if binary_features is not None else ():
        if name not in names:
            raise UnknownFeatureError(
                f"binary_features names {name!r}, which is not a column of the estimator; "
                f"its columns are: {', '.join(names)}")
        binary.add(names.index(name))
    features = [Feature(n, "binary" if i in binary else "ordinal")
                for i, n in enumerate(names)]
    return features, [(i, None) for i in range(n_in)]


def estimator_classes(estimator) -> list:
    """The IR labels of ``estimator.classes_`` (see :func:`from_sklearn`).

    Raises
    ------
    UnsupportedEstimatorError
        Two labels collide once converted (e.g. ``1`` and ``1.0``).
    """
    classes = [class_label(c) for c in estimator.classes_]
    if len(set(classes)) != len(classes):
        raise UnsupportedEstimatorError(f"class labels {classes} collide once converted")
    return classes


def column_split(features: Sequence[Feature], column: tuple[int, object], t: float,
                 lo: Node, hi: Node, tau: float) -> Node:
    """The IR node of a test ``x <= t`` on one estimator column (``column`` as given by
    :func:`resolve_features`): a :class:`ThresholdSplit` at ``tau`` (the float64 threshold
    that decides as the library's comparison does) on an ordinal feature, else a binary
    split or, on a one-hot indicator, a categorical split.

    Raises
    ------
    UnsupportedEstimatorError
        A binary or indicator column tested at a threshold that does not separate 0 from 1.
    """
    fi, indicated = column
    f = features[fi]
    if f.kind == "ordinal":
        return ThresholdSplit(f.name, tau, lo, hi)
    if not 0.0 <= t < 1.0:  # 0 goes left and 1 right (in float32 and float64 alike)
        name = f.name if indicated is None else f"{f.name}={indicated}"
        raise UnsupportedEstimatorError(
            f"the estimator tests column {name!r} at {t}, which does not separate 0 "
            "from 1, so it was fitted on other values of that column; import it as "
            "ordinal (leave it out of binary_features, or pass the training rows as X)")
    if indicated is None:  # a binary column
        return CategoricalSplit(f.name, (Branch((0,), lo), Branch((1,), hi)))
    others = tuple(v for v in f.domain if v != indicated)
    return CategoricalSplit(f.name, (Branch(others, lo), Branch((indicated,), hi)))


def tree_root(tree, features: Sequence[Feature], columns: Sequence[tuple[int, object]],
              leaf: Callable[[int], Leaf]) -> Node:
    """The IR root of a fitted scikit-learn ``Tree`` (``estimator.tree_``), whose leaf node
    ``i`` becomes ``leaf(i)``; thresholds are mapped with :func:`float32_threshold`.

    Raises
    ------
    UnsupportedEstimatorError
        A split on missingness (an infinite threshold), or as :func:`column_split`.
    """
    inner = tree.children_left >= 0
    if not np.all(np.isfinite(tree.threshold[inner])):
        # scikit-learn splits "value present" from "value missing" with an infinite threshold
        raise UnsupportedEstimatorError(
            "this tree was fitted on data with missing values and has a split that separates "
            "missing from present values; xdt models do not route missing values: impute the "
            "data, refit, then import")
    left, right = tree.children_left, tree.children_right
    feat, thr = tree.feature, tree.threshold

    def children(node: int) -> tuple[int, ...]:
        return () if left[node] < 0 else (int(left[node]), int(right[node]))

    def build(node: int, kids: list[Node]) -> Node:
        if left[node] < 0:
            return leaf(node)
        t = float(thr[node])
        return column_split(features, columns[int(feat[node])], t, kids[0], kids[1],
                            float32_threshold(t))

    return build_tree(0, children, build)
