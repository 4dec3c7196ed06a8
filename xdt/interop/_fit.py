"""Fit a decision tree on a table and get it as an xdt model, in one call.

This is the shared core of ``xdt fit`` and ``xdt demo``. :func:`fit_tree` splits the rows
into train and test sets, decides each column's feature kind once on *all* rows with
:class:`~xdt.interop.TabularEncoder` (string columns become categorical features with
their own values, not codes; 0/1 columns binary; other numbers ordinal), fits one of the
learners of :data:`LEARNERS` on the training rows, checks that the resulting
:class:`~xdt.ir.DecisionTree` predicts exactly what the fitted estimator predicts on every
row, and measures the tree: accuracy, and depth and explanation size, worst case and
average weighted by the training rows (:func:`xdt.metrics.tree_sizes`; Souza, Cicalese,
Laber & Molinaro, "Decision Trees with Short Explainable Rules", NeurIPS 2022, Section 3).

Learners:

* ``"cart"`` -- :class:`xdt.learn.CARTClassifier`: the greedy Gini tree, with native
  categorical tests ``x = v``;
* ``"ser-dt"`` -- :class:`xdt.learn.SERDTClassifier`: short explainable rules (Souza et al.,
  NeurIPS 2022), favouring features already on the path by ``factor_expl``;
* ``"sklearn"`` -- :class:`sklearn.tree.DecisionTreeClassifier` on the one-hot encoded rows,
  imported with :func:`~xdt.interop.from_sklearn` (categorical splits on the
  original values); :func:`fit_sklearn_tree` is this learner.

Examples
--------
>>> import pandas as pd
>>> from xdt.interop._fit import fit_tree
>>> frame = pd.DataFrame({"colour": ["red", "blue", "red", "green"] * 5,
...                       "size": [1.0, 2.0, 3.0, 4.0] * 5,
...                       "label": ["a", "b", "a", "b"] * 5})
>>> fit = fit_tree(frame, "label", learner="ser-dt", max_depth=2, test_size=0.25)
>>> fit.model.features[0].kind, fit.test_accuracy, fit.sizes.expl_wc
('categorical', 1.0, 1)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from xdt.errors import (
    DataError,
    InternalError,
    MissingFeatureError,
    MissingValueError,
    ParameterError,
)
from xdt.interop._learners import FACTOR_EXPL, LEARNER_NAMES, LEARNERS
from xdt.interop._sklearn import from_sklearn
from xdt.interop._tabular import TabularEncoder, _plain
from xdt.ir._tree import DecisionTree
from xdt.metrics import TreeSizes, tree_sizes

__all__ = ["DROPPED_AS_ASKED", "FACTOR_EXPL", "LEARNERS", "LEARNER_NAMES", "FitResult",
           "feature_columns", "fit_sklearn_tree", "fit_tree", "learner_frame", "split_rows"]

#: Why a column named in ``drop`` is not a feature (:attr:`FitResult.dropped_columns`).
DROPPED_AS_ASKED = "as asked"


@dataclass
class FitResult:
    """What :func:`fit_tree` returns.

    Attributes
    ----------
    model : DecisionTree
        The fitted tree, over the table's original columns and values, with ``target`` set.
    estimator : object
        The fitted learner: :class:`xdt.learn.CARTClassifier`,
        :class:`xdt.learn.SERDTClassifier` (on :func:`learner_frame` of the rows), or
        :class:`sklearn.tree.DecisionTreeClassifier` (on ``encoder.transform`` of the rows).
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
    learner : str
        One of :data:`LEARNERS`.
    sizes : TreeSizes
        Depth and explanation size of ``model``, worst case and average weighted by the
        training rows (one each; Souza et al., NeurIPS 2022, Section 3).
    fit_seconds : float
        Wall-clock time of the estimator's ``fit`` on the training rows (not counting the
        split, the encoding, the import or the checks).
    n_fallback_splits : int or None
        SER-DT only: the nodes where no balanced test existed and the three-way split of
        Algorithm 1 (lines 6-8) was used; ``None`` for the other learners.
    dropped_columns : dict of str to str
        The columns of the table that are not features, in column order, each with why:
        the reason of :func:`xdt.interop._columns.id_column_reason` for an id or name
        column, or :data:`DROPPED_AS_ASKED` for a column named in ``drop``.
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
    learner: str
    sizes: TreeSizes
    fit_seconds: float
    n_fallback_splits: int | None = None
    dropped_columns: dict[str, str] = field(default_factory=dict)


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


def learner_frame(encoder: TabularEncoder, rows: pd.DataFrame) -> pd.DataFrame:
    """The feature columns of ``rows`` as xdt's learners should read them, with the kinds and
    domains ``encoder`` decided: categorical features become pandas ``category`` columns
    whose categories are the feature's whole domain (so a value that only test rows hold is
    still in the tree's domain), binary features ``bool`` columns, ordinal features float64.

    Raises
    ------
    MissingFeatureError
        A fitted column is absent from ``rows``.
    """
    missing = [n for n in encoder.feature_names if n not in rows.columns]
    if missing:
        raise MissingFeatureError(f"the data has no column(s) {missing}")
    columns: dict[str, object] = {}
    for f in encoder.features_:
        col = rows[f.name]
        if f.kind == "categorical":
            columns[f.name] = pd.Categorical(col.map(_plain), categories=list(f.domain))
        elif f.kind == "binary":
            columns[f.name] = np.asarray(col.to_numpy(), dtype=np.float64) == 1.0
        else:
            columns[f.name] = pd.to_numeric(col).to_numpy(dtype=np.float64)
    return pd.DataFrame(columns, index=rows.index)


def feature_columns(frame: pd.DataFrame, target: str, categorical: Iterable[str] = (),
                    keep: Iterable[str] = (), drop: Iterable[str] = (),
                    drop_ids: bool = True) -> dict[str, str]:
    """The columns of ``frame`` that :func:`fit_tree` does not use as features, with why.

    With ``drop_ids``, a column is dropped when :func:`xdt.interop._columns.id_column_reason`
    finds it is an id or a name (all-distinct text, text most of whose values occur once,
    distinct integers in a column named like an id): the test ``xdt cluster``'s
    preprocessor uses. A column is read as ``"categorical"`` for that test when it is named
    in ``categorical`` or is not numeric, as ``"numeric"`` otherwise. Columns named in
    ``keep`` are never dropped; columns named in ``drop`` always are.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table, target column included.
    target : str
        The target column (never a feature, never dropped).
    categorical, keep, drop : iterable of str
        Column names.
    drop_ids : bool
        Whether to look for id and name columns.

    Returns
    -------
    dict of str to str
        ``{column: reason}`` in column order; :data:`DROPPED_AS_ASKED` for ``drop``.

    Raises
    ------
    DataError
        A name in ``keep`` or ``drop`` is not a column, is the target, or is in both.

    Examples
    --------
    >>> frame = pd.DataFrame({"PassengerId": [1, 2, 4, 7], "Sex": ["m", "f", "f", "m"],
    ...                       "Survived": [0, 1, 1, 0]})
    >>> feature_columns(frame, "Survived")
    {'PassengerId': '4 distinct integers in a column named like an id (a row id)'}
    >>> feature_columns(frame, "Survived", keep=["PassengerId"], drop=["Sex"])
    {'Sex': 'as asked'}
    """
    from xdt.interop._columns import id_column_reason

    keep, drop, forced = list(keep), list(drop), set(categorical)
    for verb, names in (("keep", keep), ("drop", drop)):
        unknown = [n for n in names if n not in frame.columns]
        if unknown:
            raise DataError(f"cannot {verb} column(s) {', '.join(map(repr, unknown))}: not in "
                            f"the data; the columns are: {', '.join(map(str, frame.columns))}")
        if target in names:
            raise DataError(f"cannot {verb} {target!r}: it is the target column, not a "
                            "feature")
    both = [n for n in keep if n in drop]
    if both:
        raise DataError(f"column(s) {', '.join(map(repr, both))} are named both to keep and "
                        "to drop; name each column in one of them")
    dropped: dict[str, str] = {}
    for name in frame.columns:
        if name == target or name in keep:
            continue
        if name in drop:
            dropped[name] = DROPPED_AS_ASKED
            continue
        if not drop_ids:
            continue
        col = frame[name]
        numeric = (pd.api.types.is_numeric_dtype(col.dtype)
                   and not pd.api.types.is_bool_dtype(col.dtype))
        kind = "categorical" if name in forced or not numeric else "numeric"
        if pd.api.types.is_bool_dtype(col.dtype) and name not in forced:
            kind = "binary"
        reason = id_column_reason(col, kind)
        if reason is not None:
            dropped[name] = reason
    return dropped


def _check_table(frame: pd.DataFrame, target: str, categorical: list[str]) -> None:
    """Reject what no learner can fit: the reasons :func:`fit_tree` lists under Raises
    (bar the missing values of :func:`_check_features`)."""
    from sklearn.utils.multiclass import type_of_target

    if target not in frame.columns:
        raise DataError(f"target column {target!r} is not in the data; the columns are: "
                        f"{', '.join(map(str, frame.columns))}")
    if len(frame) < 2:
        raise DataError(f"the data has {len(frame)} row(s); a tree needs at least 2")
    labels = frame[target]
    if labels.isna().any():
        rows = np.flatnonzero(labels.isna().to_numpy())
        shown = ", ".join(map(str, rows[:5])) + (", ..." if len(rows) > 5 else "")
        raise DataError(f"target column {target!r} has {len(rows)} missing value(s) at "
                        f"row(s) {shown} (0-based data rows); drop those rows first")
    if target in categorical:
        raise DataError(f"{target!r} is the target; do not list it among categorical columns")
    if frame.shape[1] < 2:
        raise DataError("the data has no feature columns besides the target")
    kind = type_of_target(labels.to_numpy())
    if kind not in ("binary", "multiclass"):
        raise DataError(f"target column {target!r} holds {kind} values, not class labels; "
                        "the learners are classifiers: the target must hold classes "
                        "(strings or integers)")


def _check_features(features: pd.DataFrame, dropped: dict[str, str]) -> None:
    """Reject a table without feature columns left, or with missing values in them."""
    if features.shape[1] == 0:
        shown = ", ".join(f"{k} ({v})" for k, v in dropped.items())
        raise DataError(f"no feature column is left: dropped {shown}; keep one (xdt fit "
                        "--keep COL; keep=[COL])")
    holes = features.isna()
    per_column = holes.sum()
    if per_column.any():
        bad = per_column[per_column > 0]
        name = bad.index[0]
        rows = np.flatnonzero(holes[name].to_numpy())
        shown = ", ".join(map(str, rows[:5])) + (", ..." if len(rows) > 5 else "")
        others = (f" (and {len(bad) - 1} other column(s) have some: "
                  f"{', '.join(map(str, bad.index[1:6]))}{', ...' if len(bad) > 6 else ''})"
                  if len(bad) > 1 else "")
        raise MissingValueError(
            f"column {name!r} has {int(bad.iloc[0])} missing value(s) at row(s) {shown} "
            f"(0-based data rows){others}; the trees do not route missing values: impute "
            "them or drop those rows first, or leave the column out (xdt fit --drop COL; "
            "drop=[COL])")


def fit_tree(frame: pd.DataFrame, target: str, learner: str = "cart",
             max_depth: int | None = 6, factor_expl: float | None = None,
             test_size: float = 0.3, seed: int = 0,
             categorical: Iterable[str] | None = None, *, drop_ids: bool = True,
             keep: Iterable[str] | None = None,
             drop: Iterable[str] | None = None) -> FitResult:
    """Fit a decision tree on ``frame`` with one of :data:`LEARNERS` and measure it.

    Id and name columns (``PassengerId``, ``Name``, ``Ticket``: see
    :func:`feature_columns`) are not features by default; :attr:`FitResult.dropped_columns`
    names them with why.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table: feature columns and the ``target`` column. No missing values.
    target : str
        The column to predict (any labels: strings or integers).
    learner : {"cart", "ser-dt", "sklearn"}
        ``"cart"``: :class:`xdt.learn.CARTClassifier` (greedy Gini); ``"ser-dt"``:
        :class:`xdt.learn.SERDTClassifier` (Souza et al., NeurIPS 2022); ``"sklearn"``:
        scikit-learn's ``DecisionTreeClassifier`` on one-hot columns, imported.
    max_depth : int or None
        Largest number of tests on a path; 0 is a single leaf (not available with
        ``"sklearn"``, whose trees have depth >= 1), ``None`` unlimited.
    factor_expl : float, optional
        SER-DT's factor in ``[0, 1]`` on the Gini impurity of a test whose feature is already
        on the path (lower favours shorter explanations); default 0.97. Only for
        ``"ser-dt"``: the other learners raise :class:`~xdt.errors.ParameterError` if given.
    test_size : float
        Share of rows held out for testing, in ``[0, 1)``; the split is stratified by class
        when every class has enough rows.
    seed : int
        Random seed of the split (and of scikit-learn's tree; xdt's learners are
        deterministic).
    categorical : iterable of str, optional
        Integer-coded columns to treat as categorical features (string columns are
        categorical anyway).
    drop_ids : bool
        Leave out the columns :func:`xdt.interop._columns.id_column_reason` finds to be ids
        or names (``False``: every column but the target is a feature).
    keep : iterable of str, optional
        Columns to use as features even when they look like ids.
    drop : iterable of str, optional
        Columns to leave out, whatever they hold (their missing values do not matter).

    Returns
    -------
    FitResult

    Raises
    ------
    ParameterError
        An unknown ``learner``, ``max_depth`` 0 with ``"sklearn"``, or a parameter out of
        the learner's range (``factor_expl`` outside ``[0, 1]``, a negative ``max_depth``).
    MissingValueError
        A feature column has missing values (the message names the column and rows).
    DataError
        The target is not a column, has missing or continuous values, a name in
        ``categorical`` is not a feature column, a name in ``keep`` or ``drop`` is not a
        column or is the target, no feature column is left, or there are too few rows.
    InternalError
        (a ``RuntimeError``) When the tree does not predict exactly like the fitted
        estimator (a bug in xdt).

    Notes
    -----
    The feature kinds and the categorical domains are decided on *all* rows, so that a test
    row with a value rare enough to be absent from the training rows can still be predicted
    and explained; the tree itself only sees the training rows and their labels.
    """
    if not isinstance(frame, pd.DataFrame):
        raise DataError(f"fit_tree takes a pandas DataFrame (features and the target column), "
                        f"got {type(frame).__name__}")
    if learner not in LEARNERS:
        raise ParameterError(f"unknown learner {learner!r}; use one of {', '.join(LEARNERS)}")
    if learner != "ser-dt" and factor_expl is not None:
        raise ParameterError(f"factor_expl is a parameter of SER-DT; learner {learner!r} "
                             "does not use it")
    if factor_expl is None:
        factor_expl = FACTOR_EXPL
    if isinstance(categorical, str):
        categorical = [categorical]
    keep = [keep] if isinstance(keep, str) else list(keep or [])
    drop = [drop] if isinstance(drop, str) else list(drop or [])
    if learner == "sklearn" and max_depth == 0:
        raise ParameterError("scikit-learn's trees have a depth of at least 1; for a single "
                             "leaf (max depth 0) use learner 'cart' or 'ser-dt'")
    categorical = list(categorical or [])
    _check_table(frame, target, categorical)
    dropped = feature_columns(frame, target, categorical, keep, drop, drop_ids)
    features = frame.drop(columns=[target, *dropped])
    _check_features(features, dropped)
    train, test, stratified = split_rows(frame, target, test_size, seed)
    encoder = TabularEncoder([c for c in categorical if c not in dropped]).fit(features)
    y_train = train[target].to_numpy()

    if learner == "sklearn":
        estimator, model, fit_seconds, predict_index = _fit_sklearn(
            encoder, train, y_train, target, max_depth, seed)
        sizes = tree_sizes(model, X=train)
        fallback = None
    else:
        estimator, model, fit_seconds, predict_index = _fit_xdt(
            learner, encoder, train, y_train, target, max_depth, factor_expl)
        sizes = tree_sizes(estimator)  # weighted by the training rows (leaf_weights_)
        fallback = int(estimator.n_fallback_splits_) if learner == "ser-dt" else None
    classes = np.asarray(estimator.classes_)

    def accuracy(rows: pd.DataFrame) -> float | None:
        if len(rows) == 0:
            return None
        ours = model.predict_index(rows)
        theirs = predict_index(rows)
        if not np.array_equal(ours, theirs):
            bad = int(np.flatnonzero(ours != theirs)[0])
            raise InternalError(
                f"the xdt tree disagrees with the fitted {learner} estimator on row "
                f"{rows.index[bad]!r}; this is a bug in xdt, please report it")
        return float(np.mean(classes[theirs] == rows[target].to_numpy()))

    train_accuracy = accuracy(train)
    test_accuracy = accuracy(test)
    assert train_accuracy is not None
    return FitResult(model, estimator, encoder, train, test, str(target), train_accuracy,
                     test_accuracy, stratified, learner, sizes, fit_seconds, fallback,
                     dropped)


_Fitted = tuple[object, DecisionTree, float, Callable[[pd.DataFrame], np.ndarray]]


def _fit_sklearn(encoder: TabularEncoder, train: pd.DataFrame, y: np.ndarray, target: str,
                 max_depth: int | None, seed: int) -> _Fitted:
    """scikit-learn's tree on the one-hot rows, imported; and its class index per row."""
    from sklearn.tree import DecisionTreeClassifier

    estimator = DecisionTreeClassifier(max_depth=max_depth, random_state=seed)
    X = encoder.transform(train)
    start = time.perf_counter()
    try:
        estimator.fit(X, y)
    except ValueError as e:  # e.g. a bad max_depth
        raise DataError(f"cannot fit a classifier on target column {target!r}: {e}") from None
    seconds = time.perf_counter() - start
    model = from_sklearn(estimator, encoder=encoder, target=str(target))

    def predict_index(rows: pd.DataFrame) -> np.ndarray:
        # what predict() picks
        return np.argmax(estimator.predict_proba(encoder.transform(rows)), axis=1)

    return estimator, model, seconds, predict_index


def _fit_xdt(learner: str, encoder: TabularEncoder, train: pd.DataFrame, y: np.ndarray,
             target: str, max_depth: int | None, factor_expl: float) -> _Fitted:
    """xdt's CART or SER-DT on :func:`learner_frame` of the rows; and its class index per
    row."""
    from xdt.learn import CARTClassifier, SERDTClassifier

    estimator = (SERDTClassifier(factor_expl=factor_expl, max_depth=max_depth)
                 if learner == "ser-dt" else CARTClassifier(max_depth=max_depth))
    X = learner_frame(encoder, train)
    start = time.perf_counter()
    estimator.fit(X, y)
    seconds = time.perf_counter() - start
    tree = estimator.tree_
    if list(tree.features) != encoder.features_:
        raise InternalError(f"the {learner} tree's features {list(tree.features)} differ from "
                           f"the table's {encoder.features_}; this is a bug in xdt, please "
                           "report it")
    model = DecisionTree(tree.features, tree.classes, tree.root, target=str(target))

    def predict_index(rows: pd.DataFrame) -> np.ndarray:
        labels = estimator.predict(learner_frame(encoder, rows))
        return np.searchsorted(estimator.classes_, labels)

    return estimator, model, seconds, predict_index


def fit_sklearn_tree(frame: pd.DataFrame, target: str, max_depth: int | None = 6,
                     test_size: float = 0.3, seed: int = 0,
                     categorical: Iterable[str] | None = None) -> FitResult:
    """Fit a scikit-learn CART tree on ``frame`` and import it as an xdt model:
    :func:`fit_tree` with ``learner="sklearn"`` (``max_depth`` ``None``: unlimited; at least
    1 otherwise).

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"colour": ["red", "blue", "red", "green"] * 5,
    ...                       "size": [1.0, 2.0, 3.0, 4.0] * 5,
    ...                       "label": ["a", "b", "a", "b"] * 5})
    >>> fit = fit_sklearn_tree(frame, "label", max_depth=2, test_size=0.25)
    >>> fit.model.features[0].kind, fit.test_accuracy
    ('categorical', 1.0)
    """
    return fit_tree(frame, target, learner="sklearn", max_depth=max_depth,
                    test_size=test_size, seed=seed, categorical=categorical)
