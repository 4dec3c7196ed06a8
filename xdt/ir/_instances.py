"""Reading instances and data matrices against a model's features and cells.

This is the boundary where user data is validated once; everything below it works on cell
numbers (int arrays) and trusts them.

One rule for every form: **by name** -- a dict, a pandas Series, a DataFrame or a list of
dicts -- every feature of the model must be present, and entries that are not features (the
target column, an id, any other column of a wider table) are ignored, so ``df.iloc[0]`` and
``df.iloc[0].to_dict()`` of a table that holds the target too are read alike; a missing
feature's error lists the ignored names (with a likely misspelling). **By position** -- a
sequence, a 1-d array, a 2-d array or list of rows -- there must be exactly one value per
feature, in feature order. Only the features' values are read, so an ignored entry can never
change a prediction or an explanation.

This is the one reader of instances and tables: the ``Explainer``'s methods
(:func:`encode_instance`), ``model.predict`` and ``model.encode``, ``explain_batch``, the
runners of :mod:`xdt.run`, the command line and the report (:func:`encode_rows`,
:func:`as_frame`) all read through it. Each value is read by its feature's cells
(:mod:`xdt.ir._cells`), one value (``cell_of``) or one column (``encode``) at a time, with
one set of accepted values and one error class for each bad one: an ordinal feature reads
real numbers, not bools and not text; a categorical or binary one the values of its domain.
One instance, a short list of them and a small DataFrame are read value by value (a
one-row ``predict`` builds no DataFrame); where a Series or a DataFrame has each feature is
looked up once per index and kept on the feature space (:attr:`FeatureSpace.read_cache`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from difflib import get_close_matches

import numpy as np
import pandas as pd

from xdt.errors import (
    InstanceError,
    InstanceShapeError,
    MissingFeatureError,
    XdtError,
)
from xdt.ir._features import FeatureSpace

#: Names of ignored entries that a missing-feature error lists (the rest are counted).
SHOWN_IGNORED = 5


def _ignored_note(missing: Sequence[str], ignored: Sequence) -> str:
    """``"; ignored, as they are not features: 'Outlok' (did you mean 'Outlook'?)"``."""
    if not ignored:
        return ""
    by_lower = {m.lower(): m for m in reversed(missing)}  # case does not hide a misspelling
    shown = []
    for name in ignored[:SHOWN_IGNORED]:
        match = get_close_matches(str(name).lower(), list(by_lower), n=1, cutoff=0.6)
        shown.append(f"{name!r} (did you mean {by_lower[match[0]]!r}?)" if match
                     else repr(name))
    more = len(ignored) - SHOWN_IGNORED
    tail = f" and {more} more" if more > 0 else ""
    return f"; ignored, as they are not features: {', '.join(shown)}{tail}"


def _index_positions(features: FeatureSpace, index: pd.Index) -> np.ndarray | None:
    """Where each feature is in ``index`` (a Series' index, a DataFrame's columns), int64
    (F,), when it holds every feature once; ``None`` when it does not (the caller then
    reports what is wrong).

    The last index read and its positions are kept on the feature space
    (:meth:`FeatureSpace.read_cache`): the rows of one DataFrame share one index (its
    columns), so the names are looked up once per table, not once per row."""
    cache = features.read_cache
    hit = cache.get("positions")
    if hit is not None and (hit[0] is index or hit[0].equals(index)):
        return hit[1]
    if not index.is_unique:
        return None
    positions = index.get_indexer(features.names)
    if (positions < 0).any():
        return None
    cache["positions"] = (index, positions)
    return positions


def _series_positions(features: FeatureSpace, x: pd.Series) -> np.ndarray | None:
    """Where each feature is in the index of ``x`` (see :func:`_index_positions`)."""
    return _index_positions(features, x.index)


def _series_values(features: FeatureSpace, x: pd.Series) -> tuple | None:
    """The feature values of a Series, read by position; ``None`` as for
    :func:`_series_positions`."""
    positions = _series_positions(features, x)
    if positions is None:
        return None
    values = x._values
    if not isinstance(values, np.ndarray):  # an extension array (arrow strings, Int64, ...)
        values = x.to_numpy(dtype=object)
    return tuple(values[positions])


def _by_name(features: FeatureSpace, x: Mapping | pd.Series) -> tuple:
    """The values of the instance ``x`` (a mapping or a Series) for the features, in order."""
    if isinstance(x, pd.Series):
        values = _series_values(features, x)
        if values is not None:
            return values
    names = features.names
    if isinstance(x, pd.Series) and x.index.has_duplicates:
        repeated = sorted({str(k) for k in x.index[x.index.duplicated()] if k in features})
        if repeated:
            raise InstanceError(
                f"the instance has more than one entry named {', '.join(map(repr, repeated))};"
                " names must be unique (rename or drop the copies)")
    missing = [n for n in names if n not in x]
    if missing:
        ignored = [k for k in (x.index if isinstance(x, pd.Series) else x) if k not in features]
        raise MissingFeatureError(
            f"the instance has no value for feature(s) {missing}; give a value for every "
            f"feature: {', '.join(names)}{_ignored_note(missing, ignored)}")
    return tuple(x[n] for n in names)


def instance_values(features: FeatureSpace, x) -> tuple:
    """The values of one instance, in feature order.

    Parameters
    ----------
    x : dict by feature name or pandas Series (by name: every feature present, other
        entries, such as the target, ignored), or sequence / 1-d array of one value per
        feature, in feature order

    Raises
    ------
    MissingFeatureError
        A feature has no entry (the message lists the ignored names).
    InstanceShapeError
        A sequence of the wrong length, an array that is not 1-d, or not an instance at all.
    InstanceError
        A Series naming a feature twice.
    """
    if isinstance(x, Mapping | pd.Series):
        return _by_name(features, x)
    if isinstance(x, str | bytes) or not isinstance(x, Sequence | np.ndarray):
        raise InstanceShapeError(
            f"an instance must be a dict by feature name, a pandas Series or a sequence of "
            f"{len(features)} values in feature order, got {type(x).__name__}")
    values = tuple(np.asarray(x, dtype=object).reshape(-1)) if isinstance(x, np.ndarray) \
        else tuple(x)
    if isinstance(x, np.ndarray) and x.ndim != 1:
        raise InstanceShapeError(f"an instance must be 1-dimensional, got shape {x.shape}")
    if len(values) != len(features):
        raise InstanceShapeError(
            f"the instance has {len(values)} values but the model has {len(features)} features "
            f"({', '.join(features.names)})")
    return values


def numeric_instance(features: FeatureSpace, x) -> tuple[tuple, np.ndarray] | None:
    """``(values, numbers)`` of an instance all of whose values are numbers (not booleans):
    the values as :func:`instance_values` gives them and the same as float64 (F,); ``None``
    for any other instance (the general reader then handles it, and its errors).

    For the common inputs — a row of a numeric DataFrame, a 1-d numeric array, a dict or
    sequence of ints and floats — without looking at each value twice."""
    if isinstance(x, pd.Series):
        if not isinstance(x._values, np.ndarray) or x._values.dtype.kind not in "if":
            return None
        positions = _series_positions(features, x)
        if positions is None:
            return None
        numbers = x._values[positions]
        return tuple(numbers.tolist()), numbers.astype(np.float64)
    if isinstance(x, np.ndarray):
        if x.ndim != 1 or x.dtype.kind not in "if" or len(x) != len(features):
            return None
        return tuple(x.tolist()), x.astype(np.float64)
    if isinstance(x, Mapping):
        if any(n not in x for n in features.names):
            return None
        values = tuple(x[n] for n in features.names)
    elif isinstance(x, list | tuple) and len(x) == len(features):
        values = tuple(x)
    else:
        return None
    for v in values:
        kind = type(v)
        if kind is not float and kind is not int:
            return None
    try:
        return values, np.array(values, dtype=np.float64)
    except OverflowError:  # an int beyond float64: the general reader says so
        return None


def encode_instance(features: FeatureSpace, cells: Sequence, x) -> tuple[tuple, tuple[int, ...]]:
    """``(values, cells)`` of one instance; see :func:`instance_values` for accepted forms.

    Raises
    ------
    MissingFeatureError, InstanceShapeError, MissingValueError, UnknownCategoryError,
    ValueOutOfRangeError, InstanceError
    """
    values = instance_values(features, x)
    return values, tuple(c.cell_of(v) for c, v in zip(cells, values, strict=True))


def check_unique_columns(X: pd.DataFrame, names) -> None:
    """Raise :class:`~xdt.errors.InstanceError` when one of the columns ``names`` appears
    more than once in ``X``."""
    repeated = set(X.columns[X.columns.duplicated()])
    clash = [n for n in names if n in repeated]
    if clash:
        raise InstanceError(
            f"the data has more than one column named {', '.join(map(repr, clash))}; "
            "column names must be unique (rename or drop the copies)")


def as_frame(features: FeatureSpace, X) -> pd.DataFrame:
    """The rows of ``X`` as a DataFrame with one column per feature, in feature order.

    ``X`` may be a DataFrame (columns by name; other columns, such as the target, ignored),
    a list of dicts or Series, one dict or Series (one row; by name, as in
    :func:`instance_values`), or a 2-d array/sequence in feature order.

    Raises
    ------
    MissingFeatureError
        A feature has no column (or a row no entry); the message lists the ignored names.
    InstanceShapeError
        An array of the wrong shape.
    InstanceError
        A feature's column appears twice.
    """
    names = list(features.names)
    if isinstance(X, pd.DataFrame):
        check_unique_columns(X, names)
        missing = [n for n in names if n not in X.columns]
        if missing:
            ignored = [c for c in X.columns if c not in features]
            raise MissingFeatureError(
                f"the data has no column(s) {missing}; the model's features are: "
                f"{', '.join(names)}{_ignored_note(missing, ignored)}")
        return X[names].reset_index(drop=True)
    if isinstance(X, Mapping | pd.Series):
        X = [X]
    if isinstance(X, Sequence) and len(X) > 0 \
            and all(isinstance(r, Mapping | pd.Series) for r in X):
        return pd.DataFrame([dict(zip(names, instance_values(features, r), strict=True))
                             for r in X], columns=names)
    arr = np.asarray(X, dtype=object)
    if arr.ndim == 1 and arr.size == 0:
        arr = arr.reshape(0, len(names))
    if arr.ndim != 2:
        raise InstanceShapeError(
            f"X must be 2-dimensional (rows x {len(names)} features), got shape {arr.shape}; "
            "for one instance, pass [x]")
    if arr.shape[1] != len(names):
        raise InstanceShapeError(
            f"X has {arr.shape[1]} columns but the model has {len(names)} features "
            f"({', '.join(names)})")
    return pd.DataFrame(arr, columns=names)


FEW_ROWS = 256
"""Lists of at most this many dicts or Series are encoded value by value, without making a
DataFrame first (e.g. the points of certificates, checked with ``model.predict``)."""
SMALL_FRAME = 16
"""DataFrames of at most this many rows are encoded value by value too (a one-row frame,
``df.iloc[[i]]``), without copying their columns."""


def _frame_rows(features: FeatureSpace, X: pd.DataFrame) -> list[tuple] | None:
    """The rows of a small DataFrame as tuples of their features' values, in feature
    order; ``None`` when its columns do not hold every feature once (the column reader
    then says what is wrong)."""
    positions = _index_positions(features, X.columns)
    if positions is None:
        return None
    return [tuple(r) for r in X.to_numpy(dtype=object)[:, positions]]


def encode_rows(features: FeatureSpace, cells: Sequence, X) -> np.ndarray:
    """Cells of many rows, shape ``(n, n_features)`` int64; see :func:`as_frame` for ``X``.

    One instance (a dict or Series), a short list of them and a small DataFrame are read
    value by value, each value by its cells' ``cell_of``; other tables column by column,
    by their cells' ``encode``: the two accept the same values and raise the same error
    class for each bad one (:mod:`xdt.ir._cells`). A bad value found value by value is
    worded by the column reader (which names its row)."""
    rows: list | None = None
    if isinstance(X, Mapping | pd.Series):
        rows = [X]
    elif isinstance(X, list) and 0 < len(X) <= FEW_ROWS and all(
            isinstance(r, Mapping | pd.Series) for r in X):
        rows = X
    if rows is not None or (isinstance(X, pd.DataFrame) and 0 < len(X) <= SMALL_FRAME):
        try:
            values = [_by_name(features, r) for r in rows] if rows is not None \
                else _frame_rows(features, X)
            if values is not None:
                return np.array([[c.cell_of(v) for c, v in zip(cells, row, strict=True)]
                                 for row in values], dtype=np.int64)
        except XdtError as e:  # the column reader below words it (its row, its column)
            _encode_columns(features, cells, X)
            raise e from None  # the column reader accepted what cell_of refused: a bug
    return _encode_columns(features, cells, X)


def _encode_columns(features: FeatureSpace, cells: Sequence, X) -> np.ndarray:
    """Cells of the rows of ``X`` read column by column (:func:`as_frame`), shape
    ``(n, n_features)`` int64."""
    frame = as_frame(features, X)
    out = np.empty((len(frame), len(features)), dtype=np.int64)
    for i, c in enumerate(cells):
        out[:, i] = c.encode(frame.iloc[:, i])
    return out
