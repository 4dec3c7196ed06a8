"""Import fitted STreeD optimal classification trees (the ``pystreed`` package) into the IR.

STreeD (van der Linden, de Weerdt & Demirović, "Necessary and Sufficient Conditions for
Optimal Decision Trees using Dynamic Programming", NeurIPS 2023) searches, by dynamic
programming over binary features, for a tree of bounded depth (and number of branching
nodes) that is optimal for its objective. ``pystreed.STreeDClassifier`` learns over 0/1
columns only; it binarises every other column itself before the search
(``model.binarizer_``), and its fitted tree (``model.get_tree()``) tests one binarised
column per node, going to ``left_child`` when the column is 0 and to ``right_child``
otherwise. The importer reads the tree and that binarisation back, column by column:

* a column holding only 0 and 1 in fit is passed through: a test on it becomes a binary
  split (``x = 0`` / ``x = 1``), or, with ``encoder=``, a categorical split on the feature
  whose one-hot indicator it is (``colour = red`` / ``colour in {blue, green}``);
* any other numeric column becomes indicators ``x <= c`` at the cut points ``c`` that
  ``pystreed`` chose (``continuous_binarize_strategy``, ``n_thresholds``); a test on one is a
  :class:`~xdt.ir.ThresholdSplit` at ``c`` (indicator 1, ``x <= c``, is the right child).
  ``pystreed`` compares float64 values with the float64 ``c``, as the IR does;
* a selection of binarised columns (``max_num_binary_features``) is followed back to the
  columns it kept.

``pystreed``'s own categorical binarisation (text columns of a DataFrame, or ``categorical=``
in ``fit``) groups rare categories and does not record the most common category of a
two-valued column, so the domain of such a feature cannot be read from the model: the
import refuses it; one-hot encode the table with :class:`~xdt.interop.TabularEncoder`
instead and pass ``encoder=``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from xdt.errors import (
    NotFittedError,
    ParameterError,
    UnknownFeatureError,
    UnsupportedEstimatorError,
)
from xdt.interop._sklearn_tree import class_label, column_split, named_classes
from xdt.interop._tabular import TabularEncoder, fitted_encoder
from xdt.interop._tree_walk import build_tree
from xdt.ir._features import Feature
from xdt.ir._tree import DecisionTree, Leaf, Node

__all__ = ["from_pystreed"]


def _pystreed():
    try:
        import pystreed
    except ImportError:
        raise UnsupportedEstimatorError(
            "importing a STreeD model needs the pystreed package; install xdt's extra: "
            "pip install 'xdt[optimal]'") from None
    return pystreed


def _binarised_columns(model) -> list[tuple[object, float | None]]:
    """Per column the tree tests (``model.n_features_in_`` of them, in order): the input
    column it reads (an index or a DataFrame name) and the cut point ``c`` of an indicator
    ``x <= c``, or None for a 0/1 column passed through.

    Raises
    ------
    UnsupportedEstimatorError
        The model binarised a categorical column, or its columns do not add up.
    """
    b = model.binarizer_
    if b.categorical_columns:
        raise UnsupportedEstimatorError(
            f"the model was fitted with pystreed's own categorical binarisation of "
            f"{list(b.categorical_columns)}, which does not record each feature's categories; "
            "one-hot encode the table with xdt.interop.TabularEncoder, fit on "
            "encoder.transform(frame) and import with encoder=")
    out: list[tuple[object, float | None]] = [(c, None) for c in b.binary_columns]
    names = [str(c) for c in b.binary_columns]
    cont = b.continuous_binarizer
    for jj, c in enumerate(b.continuous_columns):
        cuts = cont.thresholds_[jj] if cont is not None else []
        out += [(c, float(t)) for t in cuts]
        names += list(cont.column_names_[jj]) if cont is not None else []
    limiter = b.binary_feature_limiter
    if limiter is not None:  # max_num_binary_features: the columns a random forest kept
        keep = list(limiter.select_features_)
        if all(isinstance(k, int | np.integer) for k in keep):
            out = [out[int(k)] for k in keep]
        else:  # fitted on a DataFrame: kept by binarised column name
            by_name = dict(zip(names, out, strict=True))
            out = [by_name[str(k)] for k in keep]
    if len(out) != model.n_features_in_:
        raise UnsupportedEstimatorError(
            f"the model's binarisation makes {len(out)} columns but its tree reads "
            f"{model.n_features_in_}; was it changed after fit?")
    return out


def from_pystreed(model, feature_names: Sequence[str] | None = None, *,
                  encoder: TabularEncoder | None = None, classes: Sequence | None = None,
                  target: str | None = None) -> DecisionTree:
    """A :class:`~xdt.ir.DecisionTree` from a fitted ``pystreed.STreeDClassifier``.

    The tree of STreeD (van der Linden, de Weerdt & Demirović, NeurIPS 2023), an optimal tree
    of bounded depth, is read from the model's public tree (``get_tree()``) and its
    binarisation of the input columns (``binarizer_``), as the module documentation
    describes: 0/1 columns become binary features (or, with ``encoder``, the categorical
    features whose one-hot indicators they are), other numeric columns ordinal features
    tested at the cut points ``pystreed`` chose.

    Parameters
    ----------
    model : fitted pystreed.STreeDClassifier
        Any of its classification objectives (``"accuracy"``, ``"cost-complex-accuracy"``,
        ``"balanced-accuracy"``, ``"f1-score"``, ``"accuracy-flex"``), binary or multi-class,
        fitted on an array or a DataFrame of n input columns.
    feature_names : sequence of str, optional
        Names of the n input columns, in the order of the rows the imported tree will
        predict. Model fitted on an array: defaults to ``x0, x1, ...``. Fitted on a
        DataFrame: the same names as its columns, in the DataFrame's order (``pystreed``
        keeps the 0/1 columns and the others apart, so by default the features are its 0/1
        columns, then the others, each in the DataFrame's order).
    encoder : TabularEncoder, optional
        When the model was fitted on ``encoder.transform(frame)`` (or a DataFrame of it
        named by ``encoder.encoded_names_``): the imported tree is over
        ``encoder.features_``, so a test on a one-hot indicator becomes a categorical split
        and the tree predicts on ``frame`` itself. Not together with ``feature_names``.
    classes : sequence, optional
        A label for each of ``model.classes_``, in that order (``pystreed`` learns integer
        labels only: fit on codes, ``np.unique(y, return_inverse=True)``, and name them
        here). Defaults to ``model.classes_``.
    target : str, optional
        Name of the predicted attribute, for readable rules.

    Returns
    -------
    DecisionTree
        Over n features (or ``encoder.features_``), with the classes ``model.classes_``
        (as ints: ``pystreed`` learns integer labels and its ``predict`` returns them as
        ints) or ``classes``, predicting what ``model.predict`` predicts (its label, or the
        name ``classes`` gives it) on every row of the values it was fitted on. A binary
        feature accepts only 0 and 1: another value raises
        :class:`~xdt.errors.UnknownCategoryError`, where ``pystreed`` sends any non-zero
        value right.

    Raises
    ------
    UnsupportedEstimatorError
        ``pystreed`` is not installed; ``model`` is not a ``STreeDClassifier`` (a
        regression, survival or policy model of ``pystreed`` predicts no class labels; its
        cost-sensitive and fairness classifiers choose leaves by costs or group
        constraints, which the imported tree would not record); it was fitted with
        ``pystreed``'s categorical binarisation; the number of ``feature_names`` or encoder
        columns does not match the model.
    NotFittedError
        The model is not fitted (or its fit found no feasible tree), or ``encoder`` is not.
    ParameterError
        ``encoder`` and ``feature_names`` are both given, or ``encoder`` is not a
        ``TabularEncoder``; ``classes`` of another length
        than ``model.classes_``, or with repeated labels.
    UnknownFeatureError
        A DataFrame column of the fit is missing from ``feature_names`` or
        ``encoder.encoded_names_``.
    """
    pystreed = _pystreed()
    if not isinstance(model, pystreed.STreeDClassifier):
        kind = type(model).__name__
        if kind.endswith(("Regressor", "SurvivalAnalysis", "PolicyGenerator")):
            hint = "; it predicts no class labels"
        elif kind.startswith("STreeD"):
            hint = ("; its leaves are chosen by costs or group constraints, which the "
                    "imported tree would not record")
        else:
            hint = ""
        raise UnsupportedEstimatorError(
            f"from_pystreed imports fitted pystreed.STreeDClassifier models, not {kind}{hint}")
    if not (model.is_fitted() and hasattr(model, "tree_")):
        raise NotFittedError(
            "this STreeDClassifier is not fitted (or its fit found no feasible tree); call "
            "fit(X, y) before importing it")
    if encoder is not None and feature_names is not None:
        raise ParameterError(
            "give either encoder= or feature_names=, not both: the encoder names the features")
    binarised = _binarised_columns(model)
    keys = list(dict.fromkeys([*model.binarizer_.binary_columns,
                               *model.binarizer_.continuous_columns]))
    by_name = not all(isinstance(k, int) for k in keys)  # fitted on a DataFrame
    features, columns, index = _features(keys, by_name, model, feature_names, encoder)

    learned = [class_label(c) for c in model.classes_]
    if len(set(learned)) != len(learned):
        raise UnsupportedEstimatorError(f"class labels {learned} collide once converted")
    labels = learned if classes is None else named_classes(
        classes, len(learned), f"label {learned} of the model")

    def children(node) -> tuple:
        return () if node.is_leaf_node() else (node.left_child, node.right_child)

    def make(node, kids: list[Node]) -> Node:
        if not kids:
            label = class_label(int(node.label))
            if label not in learned:
                raise UnsupportedEstimatorError(
                    f"a leaf predicts {label}, which is not among the model's classes "
                    f"{learned}")
            return Leaf(labels[learned.index(label)])
        key, cut = binarised[int(node.feature)]
        zero, one = kids
        column = columns[index[key]]
        if cut is None:  # a 0/1 column: 0 goes left, 1 right
            return column_split(features, column, 0.5, zero, one, 0.5)
        return column_split(features, column, cut, one, zero, cut)  # indicator 1: x <= cut

    return DecisionTree(features, labels, build_tree(model.get_tree(), children, make),
                        target=target)


def _features(keys: list, by_name: bool, model, feature_names: Sequence[str] | None,
              encoder: TabularEncoder | None
              ) -> tuple[list[Feature], list[tuple[int, object]], dict]:
    """The features, per input column ``(feature index, indicated value or None)`` as
    :func:`xdt.interop._sklearn_tree.column_split` takes it, and the column position of each
    binariser key."""
    binary = set(model.binarizer_.binary_columns)
    if encoder is not None:
        encoder = fitted_encoder(encoder)
        n = len(encoder.columns_)
        if by_name:
            names = list(encoder.encoded_names_)
            missing = [str(k) for k in keys if str(k) not in names]
            if missing:
                raise UnknownFeatureError(
                    f"the model was fitted on column(s) {missing}, which the encoder does not "
                    f"make; its columns are: {', '.join(names)}")
            index = {k: names.index(str(k)) for k in keys}
        else:
            if len(keys) != n:
                raise UnsupportedEstimatorError(
                    f"the encoder makes {n} columns but the model was fitted on {len(keys)}")
            index = {k: k for k in keys}
        return list(encoder.features_), list(encoder.columns_), index
    if by_name:
        names = [str(k) for k in keys] if feature_names is None else [str(n) for n in
                                                                      feature_names]
        missing = [str(k) for k in keys if str(k) not in names]
        if missing:
            raise UnknownFeatureError(
                f"the model was fitted on column(s) {missing}, absent from feature_names "
                f"{names}")
        if len(names) != len(keys):
            raise UnsupportedEstimatorError(
                f"{len(names)} feature names for a model fitted on {len(keys)} columns "
                f"({', '.join(map(str, keys))})")
        index = {k: names.index(str(k)) for k in keys}
        kinds = {names.index(str(k)): "binary" if k in binary else "ordinal" for k in keys}
    else:
        n = len(keys)
        if sorted(keys) != list(range(n)):
            raise UnsupportedEstimatorError(
                f"the model's binarisation reads columns {sorted(keys)}, not 0..{n - 1}")
        names = [f"x{i}" for i in range(n)] if feature_names is None else [str(m) for m in
                                                                           feature_names]
        if len(names) != n:
            raise UnsupportedEstimatorError(
                f"{len(names)} feature names for a model fitted on {n} columns")
        index = {k: k for k in keys}
        kinds = {k: "binary" if k in binary else "ordinal" for k in keys}
    features = [Feature(name, kinds[i]) for i, name in enumerate(names)]
    return features, [(i, None) for i in range(len(names))], index
