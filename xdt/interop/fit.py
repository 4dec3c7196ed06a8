"""Fit a scikit-learn CART tree on a table and import it as an xdt model, in one call.

This is the shared core of ``xdt fit`` and ``xdt demo``: split the rows into train and test
sets, decide each column's feature kind with :class:`~xdt.interop.tabular.TabularEncoder`
(string columns become categorical features, not codes), fit a
:class:`sklearn.tree.DecisionTreeClassifier` on the encoded training rows, import it with
:func:`~xdt.interop.sklearn.from_sklearn`, and check that the imported tree predicts exactly
what scikit-learn predicts.

Example
-------
>>> import pandas as pd
>>> from xdt.interop.fit import fit_sklearn_tree
>>> frame = pd.DataFrame({"colour": ["red", "blue", "red", "green"] * 5,
...                       "size": [1.0, 2.0, 3.0, 4.0] * 5,
...                       "label": ["a", "b", "a", "b"] * 5})
>>> fit = fit_sklearn_tree(frame, "label", max_depth=2, test_size=0.25)
>>> fit.model.features[0].kind, fit.test_accuracy
('categorical', 1.0)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from xdt.errors import DataError
from xdt.interop.sklearn import from_sklearn
from xdt.interop.tabular import TabularEncoder
from xdt.ir.tree import DecisionTree


@dataclass
class FitResult:
    """What :func:`fit_sklearn_tree` returns.

    Attributes
    ----------
    model : DecisionTree
        The imported tree, over the table's original columns and values.
    estimator : sklearn.tree.DecisionTreeClassifier
        The fitted scikit-learn tree (on ``encoder.transform`` of the feature columns).
    encoder : TabularEncoder
        The feature kinds and domains, decided on all rows (train and test).
    train, test : pandas.DataFrame
        The train and test rows, with all columns (features and target); ``test`` is empty
        when ``test_size`` is 0.
    target : str
        Name of the target column.
    train_accuracy : float
    test_accuracy : float or None
        ``None`` when there are no test rows.
    stratified : bool
        Whether the split kept the class proportions.
    """

    model: DecisionTree
    estimator: object
    encoder: TabularEncoder
    train: pd.DataFrame
    test: pd.DataFrame
    target: str
    train_accuracy: float
    test_accuracy: float | None
    stratified: bool


def split_rows(frame: pd.DataFrame, target: str, test_size: float = 0.3,
               seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame, bool]:
    """Split ``frame`` into ``(train, test, stratified)``, stratified by ``target`` when possible.

    Stratification needs at least two rows of every class and room for every class on both
    sides; otherwise the split is a plain random one. ``test_size`` 0 keeps every row for
    training (``test`` is empty). Row labels (the index) are kept.

    Raises
    ------
    DataError
        ``test_size`` outside ``[0, 1)``, or too few rows to split.
    """
    from sklearn.model_selection import train_test_split

    if not 0.0 <= test_size < 1.0:
        raise DataError(f"test size must be at least 0 and below 1, got {test_size}")
    if test_size == 0.0:
        return frame, frame.iloc[:0], False
    n_test = int(np.ceil(test_size * len(frame)))
    if n_test < 1 or len(frame) - n_test < 1:
        raise DataError(
            f"cannot split {len(frame)} row(s) with test size {test_size}; use more rows or "
            "--test-size 0 to train on all of them")
    counts = frame[target].value_counts()
    n_classes = len(counts)
    can_stratify = (counts.min() >= 2 and n_test >= n_classes
                    and len(frame) - n_test >= n_classes)
    if can_stratify:
        train, test = train_test_split(frame, test_size=test_size, random_state=seed,
                                       stratify=frame[target])
    else:
        train, test = train_test_split(frame, test_size=test_size, random_state=seed)
    return train, test, bool(can_stratify)


def fit_sklearn_tree(frame: pd.DataFrame, target: str, max_depth: int | None = 6,
                     test_size: float = 0.3, seed: int = 0,
                     categorical: Iterable[str] | None = None) -> FitResult:
    """Fit a scikit-learn CART tree on ``frame`` and import it as an xdt model.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table: feature columns and the ``target`` column. No missing values.
    target : str
        The column to predict (any labels: strings or integers).
    max_depth : int or None
        Maximum depth of the tree (``None``: unlimited).
    test_size : float
        Share of rows held out for testing, in ``[0, 1)``; the split is stratified by class
        when every class has enough rows.
    seed : int
        Random seed of the split and of the tree.
    categorical : iterable of str, optional
        Integer-coded columns to treat as categorical features (string columns are
        categorical anyway).

    Returns
    -------
    FitResult

    Raises
    ------
    DataError
        The target is not a column, has missing or continuous values, a feature column has
        missing values, a name in ``categorical`` is not a feature column, or there are too
        few rows.
    RuntimeError
        When the imported tree does not predict exactly like scikit-learn (a bug in xdt).

    Notes
    -----
    The feature kinds and the categorical domains are decided on *all* rows, so that a test
    row with a value rare enough to be absent from the training rows can still be predicted
    and explained; the tree itself only sees the training rows and their labels.
    """
    from sklearn.tree import DecisionTreeClassifier

    if target not in frame.columns:
        raise DataError(f"target column {target!r} is not in the data; the columns are: "
                        f"{', '.join(map(str, frame.columns))}")
    if len(frame) < 2:
        raise DataError(f"the data has {len(frame)} row(s); a tree needs at least 2")
    if frame[target].isna().any():
        raise DataError(f"target column {target!r} has {int(frame[target].isna().sum())} "
                        "missing value(s); drop those rows first")
    categorical = list(categorical or [])
    if target in categorical:
        raise DataError(f"{target!r} is the target; do not list it among categorical columns")
    if frame.shape[1] < 2:
        raise DataError("the data has no feature columns besides the target")
    train, test, stratified = split_rows(frame, target, test_size, seed)

    encoder = TabularEncoder(categorical).fit(frame.drop(columns=[target]))
    X_train = encoder.transform(train)
    estimator = DecisionTreeClassifier(max_depth=max_depth, random_state=seed)
    try:
        estimator.fit(X_train, train[target].to_numpy())
    except ValueError as e:  # e.g. continuous target values: a regression problem
        raise DataError(f"cannot fit a classifier on target column {target!r}: {e}") from None
    model = from_sklearn(estimator, encoder=encoder, target=str(target))

    def accuracy(rows: pd.DataFrame) -> float | None:
        if len(rows) == 0:
            return None
        X = encoder.transform(rows)
        ours = model.predict_index(rows)
        theirs = np.argmax(estimator.predict_proba(X), axis=1)  # what predict() picks
        if not np.array_equal(ours, theirs):
            bad = int(np.flatnonzero(ours != theirs)[0])
            raise RuntimeError(
                f"the imported tree disagrees with scikit-learn on row {rows.index[bad]!r}; "
                "this is a bug in xdt, please report it")
        return float(np.mean(estimator.classes_[theirs] == rows[target].to_numpy()))

    train_accuracy = accuracy(train)
    test_accuracy = accuracy(test)
    assert train_accuracy is not None
    return FitResult(model, estimator, encoder, train, test, str(target), train_accuracy,
                     test_accuracy, stratified)
