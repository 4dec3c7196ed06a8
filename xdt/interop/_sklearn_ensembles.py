"""Import fitted scikit-learn tree ensembles into the IR (:class:`~xdt.ir.TreeEnsemble`).

Each estimator's ``predict`` is reproduced exactly, floating point included (read in
scikit-learn 1.9's source and checked against ``predict`` in
``tests/test_import_sklearn_ensembles.py``):

* ``RandomForestClassifier`` and ``ExtraTreesClassifier`` (``"proba"``): ``predict_proba``
  starts from float64 zeros, adds every tree's ``predict_proba`` (the leaf's row of
  ``tree_.value``) in tree order, and divides by the number of trees; ``predict`` is the
  first class with the largest mean (``numpy.argmax``). Trees compare ``float32(x) <= t``.
  With ``n_jobs > 1`` the trees are summed from several threads under a lock, in an order
  that may vary from call to call; floating-point addition is not associative, so on a row
  whose two largest means are within a few ulps of each other ``predict`` itself may then
  differ between calls (measured: on a forest of 12 trees with crafted leaf values whose
  sums depend on the order, ``n_jobs=2`` changed ``predict`` on 18 of 200 calls). The
  imported model sums in tree order, which is what ``predict`` does with ``n_jobs=None``
  or ``1``, and its ``reference`` predicts with a copy of the forest set to ``n_jobs=1``
  (the estimator itself is left as it is).
* ``GradientBoostingClassifier`` (``"margin"``): the score starts at the init estimator's
  raw prediction (``init="zero"``: zeros; the default prior: its log-odds / log-priors,
  the same for every row) and each stage adds ``learning_rate * value`` (one float64
  product, then the sum) in stage order; the trees compare ``float32(x) <= t``. Binary:
  ``classes_[1]`` when the score is ``>= 0``; multi-class: one tree per class per stage,
  the first class with the largest score.
* ``HistGradientBoostingClassifier`` (``"margin"``): the score starts at
  ``_baseline_prediction`` and adds each predictor's leaf value (shrinkage already in it)
  in iteration order; numerical nodes compare the float64 input, ``x <= num_threshold``;
  categorical nodes send the categories of their bitset left. Binary: ``classes_[1]`` when
  the score is ``> 0``; multi-class: the first class with the largest score.

The binary threshold is not taken from this text: the importer asks the estimator's own
``predict`` which class it gives to scores just below, at, and just above zero
(:func:`binary_threshold`).
"""

from __future__ import annotations

import copy
import math
import warnings
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from xdt.errors import NotFittedError, ParameterError, UnsupportedEstimatorError
from xdt.interop._sklearn_tree import (
    SUPPORTED_ENSEMBLES,
    class_label,
    column_split,
    estimator_classes,
    resolve_features,
    tree_root,
)
from xdt.interop._tabular import TabularEncoder
from xdt.interop._tree_walk import build_tree
from xdt.ir._ensemble import Reference, TreeEnsemble, margin_leaf
from xdt.ir._features import Feature
from xdt.ir._tree import Branch, CategoricalSplit, DecisionTree, Leaf, Node

SUPPORTED = SUPPORTED_ENSEMBLES
"""The scikit-learn ensembles :func:`from_sklearn_ensemble` imports (and their subclasses)."""

_REGRESSORS = ("RandomForestRegressor", "ExtraTreesRegressor", "GradientBoostingRegressor",
               "HistGradientBoostingRegressor")


def _kind(estimator) -> str | None:
    from sklearn.ensemble import (
        ExtraTreesClassifier,
        GradientBoostingClassifier,
        HistGradientBoostingClassifier,
        RandomForestClassifier,
    )

    if isinstance(estimator, RandomForestClassifier | ExtraTreesClassifier):
        return "forest"
    if isinstance(estimator, GradientBoostingClassifier):
        return "gb"
    if isinstance(estimator, HistGradientBoostingClassifier):
        return "hgb"
    return None


def is_ensemble(estimator) -> bool:
    """Whether ``estimator`` is a scikit-learn ensemble (of trees or not) or a
    histogram-based gradient-boosting model: those go to :func:`from_sklearn_ensemble`."""
    from sklearn.ensemble import BaseEnsemble
    from sklearn.ensemble._hist_gradient_boosting.gradient_boosting import (
        BaseHistGradientBoosting,
    )

    return isinstance(estimator, BaseEnsemble | BaseHistGradientBoosting)


def binary_threshold(estimator) -> float:
    """The ``threshold`` of a binary margin model: ``estimator.predict`` gives ``classes_[1]``
    exactly when the score is ``> threshold``.

    Found by probing, not assumed: a copy of the estimator whose ``_raw_predict`` returns
    the scores ``-min, -0.0, 0.0, +min`` (``min`` the smallest positive float64) is asked
    to ``predict``; ``>= 0`` gives the largest float below zero, ``> 0`` gives ``0.0``.

    Raises
    ------
    UnsupportedEstimatorError
        The answers are not those of a threshold at zero (a scikit-learn version whose
        ``predict`` does not go through ``_raw_predict``, or another rule).
    """
    tiny = float(np.nextafter(0.0, 1.0))
    probes = np.array([-tiny, -0.0, 0.0, tiny])
    probe = copy.copy(estimator)
    probe._raw_predict = lambda X, *args, **kwargs: probes.reshape(-1, 1).copy()
    rows = np.zeros((len(probes), estimator.n_features_in_))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            got = probe.predict(rows)
        except Exception as e:  # pragma: no cover - depends on the library's internals
            raise UnsupportedEstimatorError(
                f"could not probe the binary decision rule of {type(estimator).__name__} "
                f"({e}); this scikit-learn version is not supported") from e
    positive = [bool(g == estimator.classes_[1]) for g in got]
    if positive == [False, True, True, True]:
        return -tiny
    if positive == [False, False, False, True]:
        return 0.0
    raise UnsupportedEstimatorError(  # pragma: no cover - depends on the library
        f"{type(estimator).__name__}.predict gives classes_[1] on the scores -tiny, -0.0, "
        f"0.0, +tiny as {positive}, not a threshold at zero; this scikit-learn version is "
        "not supported")


def _reference(estimator, features: Sequence[Feature], encoder: TabularEncoder | None,
               classes: Sequence) -> Callable:
    """``estimator.predict`` on rows of feature values in feature order (shape (n, F): the
    numbers of ordinal features, the domain values of binary and categorical ones; through
    ``encoder.transform`` when given), giving the IR's labels (shape (n,), int64 when every
    class is an int, else object). A forest predicts with ``n_jobs=1`` (tree order)."""
    import pandas as pd

    if _kind(estimator) == "forest" and estimator.n_jobs not in (None, 1):
        estimator = copy.copy(estimator)  # sums in tree order, as the imported model does
        estimator.n_jobs = 1
    names = [f.name for f in features]
    names_in = getattr(estimator, "feature_names_in_", None)
    ints = all(isinstance(c, int) for c in classes)
    numeric = all(f.kind != "categorical" for f in features)

    def predict(rows) -> np.ndarray:
        rows = np.asarray(rows, dtype=np.float64 if numeric else object)
        rows = rows.reshape(-1, len(names))
        if encoder is not None:
            X = encoder.transform(pd.DataFrame(rows, columns=names).infer_objects())
        else:
            X = rows
        if names_in is not None:
            X = pd.DataFrame(X, columns=list(names_in)).infer_objects()
        labels = [class_label(v) for v in estimator.predict(X)]
        return np.asarray(labels, dtype=np.int64 if ints else object)

    return predict


def from_sklearn_ensemble(estimator, feature_names: Sequence[str] | None = None, *,
                          X=None, binary_features: Iterable[str] | None = None,
                          encoder: TabularEncoder | None = None, target: str | None = None
                          ) -> TreeEnsemble:
    """A :class:`~xdt.ir.TreeEnsemble` from a fitted scikit-learn ensemble.

    Called by :func:`xdt.interop.from_sklearn`, which documents the parameters
    (feature names and kinds are decided as for one tree). The model predicts exactly what
    ``estimator.predict`` predicts on every row xdt accepts (see the module docstring for
    each estimator's rule); its ``reference`` is ``estimator.predict`` on rows in feature
    order, and its ``source`` names the library, its version and the estimator.

    Parameters
    ----------
    estimator : RandomForestClassifier, ExtraTreesClassifier, GradientBoostingClassifier or
        HistGradientBoostingClassifier, fitted; single output, binary or multi-class.

    Returns
    -------
    TreeEnsemble
        ``"proba"`` for the forests (``input_dtype="float32"``), ``"margin"`` for gradient
        boosting (``"float32"`` inputs for ``GradientBoostingClassifier``, ``"float64"`` for
        ``HistGradientBoostingClassifier``, whose categorical features become categorical
        features over the categories seen in fit).

    Raises
    ------
    UnsupportedEstimatorError
        A regressor, another ensemble (bagging, AdaBoost, voting, stacking), a multi-output
        forest, a ``GradientBoostingClassifier`` whose ``init`` estimator is not a constant
        (its base margin would depend on the row), a split on missingness, or a
        ``HistGradientBoostingClassifier`` with categorical features imported with
        ``encoder``.
    NotFittedError
        The estimator is not fitted.
    """
    import sklearn

    kind = _kind(estimator)
    name = type(estimator).__name__
    if kind is None:
        hint = ("; regression models have no classes to explain"
                if name in _REGRESSORS or "Regressor" in name else "")
        raise UnsupportedEstimatorError(
            f"from_sklearn imports the ensembles {', '.join(SUPPORTED)} (and "
            f"DecisionTreeClassifier trees), not {name}{hint}")
    fitted = "_predictors" if kind == "hgb" else "estimators_"
    if not hasattr(estimator, fitted):
        raise NotFittedError(f"this {name} is not fitted; call fit(X, y) before importing it")
    if getattr(estimator, "n_outputs_", 1) != 1:
        raise UnsupportedEstimatorError(
            f"multi-output {name} models are not supported; fit one model per output")
    n_in = int(estimator.n_features_in_)
    features, columns = resolve_features(n_in, estimator, feature_names, X, binary_features,
                                         encoder)
    classes = estimator_classes(estimator)
    source = {"library": "scikit-learn", "version": sklearn.__version__, "estimator": name}
    if kind == "forest":
        model = _forest(estimator, features, columns, classes, target, source)
    elif kind == "gb":
        model = _gradient_boosting(estimator, features, columns, classes, target, source)
    else:
        model = _hist_gradient_boosting(estimator, features, columns, classes, target, source,
                                        encoder)
    model.reference = Reference(_reference, estimator, model.features, encoder,
                                classes)
    return model


# ---------------------------------------------------------------------- forests
def _forest(estimator, features, columns, classes, target, source) -> TreeEnsemble:
    trees = []
    for e in estimator.estimators_:
        value = e.tree_.value[:, 0, :]
        if value.shape[1] != len(classes):  # pragma: no cover - scikit-learn keeps them all
            raise UnsupportedEstimatorError(
                f"a tree of the forest has {value.shape[1]} classes, the forest {len(classes)}")

        def leaf(node: int, value=value) -> Leaf:
            row = value[node]
            return Leaf(classes[int(np.argmax(row))], tuple(float(v) for v in row))

        trees.append(DecisionTree(features, classes, tree_root(e.tree_, features, columns, leaf),
                                  target=target, input_dtype="float32"))
    return TreeEnsemble(features, classes, trees, "proba", divisor=float(len(trees)),
                        precision="float64", target=target, input_dtype="float32",
                        source=source)


# ---------------------------------------------------------------------- gradient boosting
def _gb_base(estimator) -> tuple[float, ...]:
    """The init estimator's raw prediction, the same for every row, or an error."""
    from sklearn.dummy import DummyClassifier

    init = estimator.init_
    if not (isinstance(init, str) and init == "zero") and not (
            isinstance(init, DummyClassifier) and init.strategy != "stratified"):
        raise UnsupportedEstimatorError(
            f"this GradientBoostingClassifier starts from the predictions of "
            f"{type(init).__name__}, which depend on the row, so its base margin is not one "
            "number; refit with init=None (the class prior) or init='zero'")
    rows = np.zeros((1, estimator.n_features_in_), dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        raw = estimator._raw_predict_init(rows)
    return tuple(float(v) for v in np.asarray(raw, dtype=np.float64)[0])


def _gradient_boosting(estimator, features, columns, classes, target, source) -> TreeEnsemble:
    base = _gb_base(estimator)
    stages = estimator.estimators_
    n_scores = stages.shape[1]
    binary = n_scores == 1
    scale = float(estimator.learning_rate)
    trees = []
    for i in range(stages.shape[0]):
        for k in range(n_scores):
            value = stages[i, k].tree_.value[:, 0, 0]

            def leaf(node: int, value=value, k=k) -> Leaf:
                # one float64 product, as predict_stages
                return margin_leaf(classes, n_scores, k, scale * float(value[node]))

            root = tree_root(stages[i, k].tree_, features, columns, leaf)
            trees.append(DecisionTree(features, classes, root, target=target,
                                      input_dtype="float32"))
    threshold = binary_threshold(estimator) if binary else 0.0
    return TreeEnsemble(features, classes, trees, "margin", base=base, precision="float64",
                        threshold=threshold, target=target, input_dtype="float32",
                        source=source)


# ---------------------------------------------------------------------- histogram GB
def _plain(v: object) -> object:
    v = v.item() if isinstance(v, np.generic) else v
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return v


def _hgb_columns(estimator, features: list[Feature], columns: list[tuple[int, object]],
                 encoder: TabularEncoder | None
                 ) -> tuple[list[Feature], list[tuple[int, object]], list[tuple | None]]:
    """The features (categorical ones over the categories seen in fit), and per column of
    the predictors (categorical columns first when there are any: scikit-learn's
    ColumnTransformer puts them there) the ``columns`` entry and the categories by code."""
    cat = getattr(estimator, "is_categorical_", None)
    pre = getattr(estimator, "_preprocessor", None)
    n_in = len(columns)
    if cat is None or pre is None or not np.any(cat):
        return features, columns, [None] * n_in
    if encoder is not None:
        raise ParameterError(
            "this HistGradientBoostingClassifier has categorical features of its own; import "
            "it without encoder= (its categories become the features' domains)")
    order = np.concatenate([np.flatnonzero(cat), np.flatnonzero(~cat)])
    enc = pre.named_transformers_["encoder"]
    features = list(features)
    codes: list[tuple | None] = [None] * n_in
    for j, categories in zip(np.flatnonzero(cat), enc.categories_, strict=True):
        values = [c for c in categories.tolist() if not (isinstance(c, float) and math.isnan(c))
                  and c is not None]
        domain = tuple(_plain(v) for v in values)
        features[j] = Feature(features[j].name, "categorical", domain)
        codes[j] = domain
    return features, [columns[i] for i in order], [codes[i] for i in order]


def _hgb_root(predictor, features, columns, codes, classes, k: int, n_scores: int) -> Node:
    nodes = predictor.nodes
    bitsets = predictor.raw_left_cat_bitsets

    def leaf_of(i: int) -> Leaf:
        return margin_leaf(classes, n_scores, k, float(nodes["value"][i]))

    def children(i: int) -> tuple[int, ...]:
        return () if nodes["is_leaf"][i] else (int(nodes["left"][i]), int(nodes["right"][i]))

    def build(i: int, kids: list[Node]) -> Node:
        if nodes["is_leaf"][i]:
            return leaf_of(i)
        col = int(nodes["feature_idx"][i])
        lo, hi = kids
        if not nodes["is_categorical"][i]:
            t = float(nodes["num_threshold"][i])
            if not math.isfinite(t):
                raise UnsupportedEstimatorError(
                    "this model has a split that separates missing from present values; "
                    "xdt models do not route missing values: impute the data, refit, then "
                    "import")
            return column_split(features, columns[col], t, lo, hi, t)
        domain = codes[col]
        words = bitsets[int(nodes["bitset_idx"][i])]
        left = tuple(v for c, v in enumerate(domain)
                     if (int(words[c // 32]) >> (c % 32)) & 1)
        right = tuple(v for v in domain if v not in left)
        if not left:
            return hi
        if not right:
            return lo
        return CategoricalSplit(features[columns[col][0]].name,
                                (Branch(left, lo), Branch(right, hi)))

    return build_tree(0, children, build)


def _hist_gradient_boosting(estimator, features, columns, classes, target, source, encoder
                            ) -> TreeEnsemble:
    features, columns, codes = _hgb_columns(estimator, features, columns, encoder)
    n_scores = int(estimator.n_trees_per_iteration_)
    trees = []
    for predictors in estimator._predictors:
        for k, predictor in enumerate(predictors):
            root = _hgb_root(predictor, features, columns, codes, classes, k, n_scores)
            trees.append(DecisionTree(features, classes, root, target=target,
                                      input_dtype="float64"))
    base = tuple(float(v) for v in np.asarray(estimator._baseline_prediction,
                                              dtype=np.float64).ravel())
    threshold = binary_threshold(estimator) if n_scores == 1 else 0.0
    return TreeEnsemble(features, classes, trees, "margin", base=base, precision="float64",
                        threshold=threshold, target=target, input_dtype="float64",
                        source=source)
