"""Import fitted scikit-learn classifiers into the IR: decision trees
(:mod:`xdt.interop._sklearn_tree`) and tree ensembles (:mod:`xdt.interop._sklearn_ensembles`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from xdt.interop import _sklearn_ensembles as sklearn_ensembles
from xdt.interop._sklearn_tree import from_sklearn_tree
from xdt.interop._tabular import TabularEncoder
from xdt.ir._ensemble import TreeEnsemble
from xdt.ir._tree import DecisionTree

__all__ = ["from_sklearn"]


def from_sklearn(estimator, feature_names: Sequence[str] | None = None, *,
                 X=None, binary_features: Iterable[str] | None = None,
                 encoder: TabularEncoder | None = None, target: str | None = None
                 ) -> DecisionTree | TreeEnsemble:
    """A :class:`~xdt.ir.DecisionTree` from a fitted scikit-learn classifier tree, or a
    :class:`~xdt.ir.TreeEnsemble` from a fitted tree ensemble.

    Each input column becomes an ordinal feature (tests ``x <= t``), or a binary feature
    (tests ``x = 0`` / ``x = 1``) when it holds only 0 and 1. The tree alone cannot tell:
    a threshold of 0.5 may split 0/1 indicators or a column of fractions. So a column is
    binary when ``X`` (the training rows) holds only 0/1 in it, when it is named in
    ``binary_features``, or when ``encoder`` made it binary; otherwise it is ordinal.

    Parameters
    ----------
    estimator : fitted scikit-learn classifier
        A ``DecisionTreeClassifier`` (or ``ExtraTreeClassifier``), or one of the ensembles
        ``RandomForestClassifier``, ``ExtraTreesClassifier``, ``GradientBoostingClassifier``,
        ``HistGradientBoostingClassifier`` (imported by
        :func:`xdt.interop._sklearn_ensembles.from_sklearn_ensemble`, which says how each
        combines its trees; a HistGradientBoosting model's own categorical features become
        categorical features over the categories seen in fit). Binary or multi-class, with
        any ``classes_`` labels: integral numbers become ints, booleans 0/1 (equal to
        False/True under ``==``), other labels strings.
    feature_names : sequence of str, optional
        Names of the estimator's input columns. Defaults to ``estimator.feature_names_in_``
        when it was fitted on a DataFrame, else to the columns of ``X`` when it is one, else
        ``x0, x1, ...``.
    X : DataFrame or array-like of shape (n, n_features), optional
        The rows the estimator was fitted on (a DataFrame by column name, else in column
        order): every column holding only 0 and 1 (or False/True) is imported as a binary
        feature, e.g. the 0/1 indicators of one-hot encoded data (``cap-shape_1 = 0``
        instead of ``cap-shape_1 <= 0.5``).
    binary_features : iterable of str, optional
        Names of columns to import as binary features (0/1), with or without ``X``.
    encoder : TabularEncoder, optional
        When the estimator was fitted on ``encoder.transform(frame)``: the imported tree is
        over ``encoder.features_`` (tests on one-hot indicators become categorical splits,
        tests on binary columns become binary splits). Not together with ``X`` or
        ``binary_features``: the encoder already decided each column's kind.
    target : str, optional
        Name of the predicted attribute, for readable rules.

    Returns
    -------
    DecisionTree or TreeEnsemble
        Predicting exactly what ``estimator.predict`` predicts on every row it accepts,
        float32 rounding included; its ``input_dtype`` is ``"float32"``, so rules show each
        threshold as the shortest decimal that sends every float32 value the same way
        (``x <= 0.5``; the exact ``0.5000000298023224`` stays in ``to_dict()`` and model
        files). A binary feature (and a categorical one, from ``encoder``) accepts only the
        values of its domain: 0 and 1 (or False/True). Another value, e.g. 0.5, raises
        :class:`~xdt.errors.UnknownCategoryError`, where scikit-learn would still send it
        down one branch; import the column as ordinal to explain such rows. A number that
        ``estimator.predict`` rejects as too large for float32 (``|x|`` beyond
        ``3.4028235e+38``, or infinite) raises :class:`~xdt.errors.ValueOutOfRangeError`.

    Raises
    ------
    NotFittedError
        The estimator, or the ``encoder``, is not fitted.
    UnsupportedEstimatorError
        Not a single-output classifier tree or supported ensemble (e.g. a regressor, a
        bagging or AdaBoost model; for ensembles see also
        :func:`~xdt.interop._sklearn_ensembles.from_sklearn_ensemble`), a feature count that does
        not match ``feature_names``/``encoder``, a binary (or indicator) column tested at a
        threshold that does not separate 0 from 1 (the estimator saw other values of it), or
        a tree with a split on missingness (fitted on data with NaN; impute before fitting).
        Elsewhere, a tree fitted with NaN is imported as it treats present values; xdt
        rejects NaN in the instances it explains, so the missing-value routing of other
        nodes never matters.
    UnknownFeatureError
        A name in ``binary_features`` is not a column of the estimator.
    DataError
        ``X`` has no rows, lacks a column, or has another number of columns.
    ParameterError
        ``encoder`` given together with ``X`` or ``binary_features``, or not a
        :class:`~xdt.interop.TabularEncoder`.
    """
    if sklearn_ensembles.is_ensemble(estimator):
        return sklearn_ensembles.from_sklearn_ensemble(
            estimator, feature_names, X=X, binary_features=binary_features, encoder=encoder,
            target=target)
    return from_sklearn_tree(estimator, feature_names, X=X, binary_features=binary_features,
                             encoder=encoder, target=target)
