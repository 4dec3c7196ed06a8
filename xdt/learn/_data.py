"""Training data for xdt's learners: from numpy arrays or pandas DataFrames to numeric columns.

:func:`read_training_data` decides each column's feature kind once, at the boundary:

* ``bool`` columns become ``binary`` features;
* columns named (or indexed) in ``categorical_features``, pandas ``category`` columns, and
  string / object columns holding non-numbers become ``categorical`` features whose domain is
  the column's values (for a pandas ``category`` column: its declared categories);
* other columns (numbers) become ``ordinal`` features, split by thresholds ``x <= t``.

Missing values (NaN, None, pandas NA) and infinities are rejected: the learners do not route
missing values (impute or drop them first, e.g. with ``sklearn.impute.SimpleImputer``).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from xdt.errors import (
    DataError,
    InstanceError,
    InstanceShapeError,
    MissingValueError,
    ParameterError,
)
from xdt.ir._features import Feature
from xdt.ir._values import to_python


@dataclass
class TrainingData:
    """The columns of ``X`` as the splitter reads them.

    Attributes
    ----------
    features : list of Feature
        One IR feature per column of ``X``, in column order.
    ordinal : numpy.ndarray of shape (n, n_ordinal), float64
        The values of the ordinal columns.
    ordinal_features : numpy.ndarray of shape (n_ordinal,), int64
        Position (in ``features``) of each ordinal column.
    codes : numpy.ndarray of shape (n, n_categorical), int64
        Per categorical/binary column, the position of each row's value in the feature's
        domain.
    categorical_features : numpy.ndarray of shape (n_categorical,), int64
        Position (in ``features``) of each categorical/binary column.
    feature_names_in : numpy.ndarray of str, or None
        Column names when ``X`` had string column names (scikit-learn's convention).
    """

    features: list[Feature]
    ordinal: np.ndarray
    ordinal_features: np.ndarray
    codes: np.ndarray
    categorical_features: np.ndarray
    feature_names_in: np.ndarray | None

    @property
    def n_rows(self) -> int:
        """Number of rows of ``X``."""
        return len(self.ordinal) if self.ordinal.shape[1] else len(self.codes)


def _plain(v: object) -> object:
    """A Python scalar; integral floats as ints (a column read as floats keeps integer
    categories)."""
    v = to_python(v)
    if isinstance(v, float) and v.is_integer():
        return int(v)
    if isinstance(v, bool):
        return int(v)
    return v


def _sort_key(v: object) -> tuple:
    return (0, v, "") if isinstance(v, int | float) else (1, 0, str(v))


def _is_number(v: object) -> bool:
    return isinstance(v, int | float | np.number) and not isinstance(v, bool | np.bool_)


def _missing_mask(values: np.ndarray) -> np.ndarray:
    return pd.isna(values) if values.dtype == object else np.isnan(values)


def _reject_missing(name: str, missing: np.ndarray) -> None:
    if missing.any():
        rows = np.flatnonzero(missing)[:5].tolist()
        more = "..." if missing.sum() > 5 else ""
        raise MissingValueError(
            f"column {name!r} has {int(missing.sum())} missing value(s) (rows {rows}{more}); "
            "NaN/None are missing values, which xdt's learners do not handle: impute or drop "
            "them first (e.g. "
            "with sklearn.impute.SimpleImputer)")


def _columns(X) -> tuple[list[str], list[np.ndarray], list[object], np.ndarray | None]:
    """Names, values (one array per column), pandas dtypes (or None) and feature_names_in."""
    if isinstance(X, pd.DataFrame):
        names = [str(c) for c in X.columns]
        if len(set(names)) != len(names):
            raise DataError(f"column names are not unique: {names}")
        strings = all(isinstance(c, str) for c in X.columns)
        dtypes: list[object] = list(X.dtypes)
        if dtypes and all(isinstance(d, np.dtype) and d == dtypes[0] for d in dtypes):
            whole = X.to_numpy()        # one numpy dtype: one array, no Series per column
            values = [whole[:, j] for j in range(X.shape[1])]
        else:
            # a category column is read as its codes (no Python object per cell); the
            # caller knows them by their CategoricalDtype
            values = [X.iloc[:, j].cat.codes.to_numpy() if _codes_readable(dtypes[j])
                      else X.iloc[:, j].to_numpy() for j in range(X.shape[1])]
        return names, values, dtypes, (np.asarray(names, dtype=object) if strings else None)
    if hasattr(X, "toarray") or hasattr(X, "tocsr"):
        raise DataError("sparse matrices are not supported; pass a dense array (X.toarray())")
    try:
        arr = np.asarray(X)
    except ValueError as e:  # ragged rows
        raise InstanceShapeError(f"X must be a 2-d array or table: {e}") from None
    if arr.ndim != 2:
        raise InstanceShapeError(
            f"X must be 2-dimensional (rows x features), got shape {arr.shape}; for a single "
            "feature use X.reshape(-1, 1), for a single row X.reshape(1, -1)")
    if arr.dtype.kind in "US":
        arr = arr.astype(object)
    if arr.dtype.kind == "c" or (arr.dtype == object and any(
            isinstance(v, complex | np.complexfloating) for v in arr.ravel()[:1000])):
        raise DataError("Complex data not supported: X holds complex numbers; use real "
                        "numbers or categories")
    names = [f"x{j}" for j in range(arr.shape[1])]
    return names, [arr[:, j] for j in range(arr.shape[1])], [None] * arr.shape[1], None


def _codes_readable(dtype) -> bool:
    """Whether a pandas category column can be read as its codes: its categories, as plain
    values (:func:`_plain`), are distinct finite strings or numbers, so its domain is its
    categories in their order and a cell's code is its value's position."""
    if not isinstance(dtype, pd.CategoricalDtype) or pd.api.types.is_bool_dtype(dtype):
        return False
    plain = [_plain(v) for v in dtype.categories]
    return len(set(plain)) == len(plain) and all(
        isinstance(v, str) or (isinstance(v, int | float) and not isinstance(v, bool)
                               and math.isfinite(v)) for v in plain)


def _n_rows(X) -> int:
    return len(X) if hasattr(X, "__len__") else 0


def _resolve_categorical(spec: Iterable | None, names: Sequence[str]) -> set[int]:
    """Positions of the columns named or indexed in ``categorical_features``."""
    if spec is None:
        return set()
    if isinstance(spec, str | int):   # one column, not a sequence of characters
        spec = [spec]
    arr = np.asarray(list(spec) if not isinstance(spec, np.ndarray) else spec)
    if arr.dtype == bool:
        if len(arr) != len(names):
            raise DataError(f"categorical_features is a mask of {len(arr)} entries but X has "
                            f"{len(names)} columns")
        return set(np.flatnonzero(arr).tolist())
    out: set[int] = set()
    for item in arr.tolist():
        if isinstance(item, int):
            if not -len(names) <= item < len(names):
                raise DataError(f"categorical_features index {item} is out of range for "
                                f"{len(names)} columns")
            out.add(item % len(names))
        elif isinstance(item, str) and item in names:
            out.add(names.index(item))
        else:
            raise DataError(f"categorical_features names {item!r}, which is not a column; "
                            f"the columns are: {', '.join(names)}")
    return out


def read_training_data(X, categorical_features: Iterable | None = None) -> TrainingData:
    """The feature kinds and numeric columns of ``X`` (see the module docstring).

    Parameters
    ----------
    X : array-like of shape (n, n_features) or pandas.DataFrame
    categorical_features : iterable of str or int, or bool mask, optional
        Columns to treat as categorical even though they hold numbers (integer-coded
        categories), by name (DataFrame) or position.

    Returns
    -------
    TrainingData

    Raises
    ------
    InstanceShapeError
        ``X`` is not 2-dimensional.
    MissingValueError
        A value is NaN, None or pandas NA.
    DataError
        An infinite value, no rows or no columns, sparse input, repeated column names, or a
        bad ``categorical_features`` entry.
    """
    fast = _numeric_array(X, categorical_features)
    if fast is not None:
        return fast
    names, values, dtypes, feature_names_in = _columns(X)
    if len(names) == 0:
        raise DataError(f"X has 0 feature(s) (shape=({_n_rows(X)}, 0)) while a minimum of 1 "
                        "is required.")
    n = len(values[0])
    if n == 0:
        raise DataError("X has no rows (0 samples); fit needs at least one sample")
    forced = _resolve_categorical(categorical_features, names)
    features: list[Feature] = []
    ordinal_cols: list[np.ndarray] = []
    ordinal_pos: list[int] = []
    code_cols: list[np.ndarray] = []
    code_pos: list[int] = []
    for j, (name, col, dtype) in enumerate(zip(names, values, dtypes, strict=True)):
        if _codes_readable(dtype):      # the codes of a category column (see _columns)
            _reject_missing(name, col < 0)
            features.append(Feature(name, "categorical",
                                    tuple(_plain(v) for v in dtype.categories)))
            code_cols.append(col.astype(np.int64))
            code_pos.append(j)
            continue
        if col.dtype.kind in "fcO":     # other kinds cannot hold a missing value
            _reject_missing(name, _missing_mask(col))
        if col.dtype == bool or (dtype is not None and pd.api.types.is_bool_dtype(dtype)):
            features.append(Feature(name, "binary"))
            code_cols.append(col.astype(np.int64))
            code_pos.append(j)
            continue
        declared = None
        if dtype is not None and isinstance(dtype, pd.CategoricalDtype):
            declared = [_plain(v) for v in dtype.categories]
        numeric = col.dtype.kind in "iuf" or (
            col.dtype == object and declared is None and all(_is_number(v) for v in col))
        if j in forced or declared is not None or not numeric:
            codes, domain = _encode_categorical(name, col, declared)
            features.append(Feature(name, "categorical", tuple(domain)))
            code_cols.append(codes)
            code_pos.append(j)
            continue
        try:
            floats = col.astype(np.float64)
        except (TypeError, ValueError):
            raise DataError(f"column {name!r} mixes numbers and other values; make it all "
                            "numbers or list it in categorical_features") from None
        if not np.isfinite(floats).all():
            bad = int((~np.isfinite(floats)).sum())
            raise DataError(f"column {name!r} has {bad} infinite value(s); replace them by "
                            "finite numbers")
        features.append(Feature(name, "ordinal"))
        ordinal_cols.append(floats)
        ordinal_pos.append(j)
    ordinal = (np.column_stack(ordinal_cols) if ordinal_cols
               else np.empty((n, 0), dtype=np.float64))
    codes = np.column_stack(code_cols) if code_cols else np.empty((n, 0), dtype=np.int64)
    return TrainingData(features, ordinal, np.asarray(ordinal_pos, dtype=np.int64), codes,
                        np.asarray(code_pos, dtype=np.int64), feature_names_in)


def _numeric_array(X, categorical_features) -> TrainingData | None:
    """``X`` itself as the ordinal columns, without a copy, when it is a 2-d float64 (or
    integer) numpy array of finite values and no column is declared categorical; ``None``
    otherwise (then the column-by-column reading gives the precise errors)."""
    if type(X) is not np.ndarray or X.ndim != 2 or X.dtype.kind not in "fiu" \
            or X.shape[0] == 0 or X.shape[1] == 0:
        return None
    if categorical_features is not None and not (
            isinstance(categorical_features, list | tuple) and len(categorical_features) == 0):
        return None
    ordinal = X if X.dtype == np.float64 else X.astype(np.float64)
    if X.dtype.kind == "f" and not np.isfinite(ordinal).all():
        return None
    features = [Feature(f"x{j}", "ordinal") for j in range(X.shape[1])]
    return TrainingData(features, ordinal, np.arange(X.shape[1], dtype=np.int64),
                        np.empty((X.shape[0], 0), dtype=np.int64),
                        np.empty(0, dtype=np.int64), None)


def _encode_categorical(name: str, col: np.ndarray, declared: list | None
                        ) -> tuple[np.ndarray, list]:
    """Codes (positions in the domain) and the domain of one categorical column."""
    try:
        codes, uniques = pd.factorize(col)
    except TypeError:
        raise DataError(f"column {name!r} holds values that are not strings or numbers "
                        "(e.g. lists or dicts)") from None
    plain = [_plain(v) for v in uniques]
    for v in plain:
        if isinstance(v, float) and not math.isfinite(v):
            raise DataError(f"column {name!r} has the value {v!r}; categories must be finite "
                            "numbers or strings")
        if not isinstance(v, str | int | float):
            raise DataError(f"column {name!r} holds {v!r} of type {type(v).__name__}; "
                            "categories must be strings or numbers")
    domain = declared if declared is not None else sorted(set(plain), key=_sort_key)
    position = {v: i for i, v in enumerate(domain)}
    lookup = np.asarray([position[v] for v in plain], dtype=np.int64)
    return lookup[codes], domain


def read_labels(y, n_rows: int) -> tuple[np.ndarray, np.ndarray]:
    """``(classes, codes)`` of the target: the sorted distinct labels (scikit-learn's
    ``classes_``) and each row's position among them, shape (n,), int64.

    Raises
    ------
    DataError
        Wrong length, missing labels, or continuous (non-class) targets.
    """
    from sklearn.utils.multiclass import check_classification_targets
    from sklearn.utils.validation import column_or_1d

    try:
        y = column_or_1d(y, warn=True)
    except ValueError as e:
        raise InstanceShapeError(f"y must hold one label per row (shape (n,)): {e}") from None
    if len(y) != n_rows:
        raise InstanceShapeError(f"y has {len(y)} labels but X has {n_rows} rows")
    if pd.isna(y).any() if y.dtype == object else (y.dtype.kind == "f" and np.isnan(y).any()):
        raise MissingValueError("y has missing labels (NaN/None); drop those rows first")
    if y.dtype == object and len({type(v) for v in y}) > 1 and any(isinstance(v, str) for v in y):
        kinds = sorted({type(v).__name__ for v in y})
        raise DataError(f"y mixes labels of different types ({', '.join(kinds)}); make them "
                        "all strings or all numbers")
    try:
        check_classification_targets(y)
    except ValueError as e:
        raise DataError(f"{e}; xdt's learners are classifiers: the target must hold class "
                        "labels (strings or integers), not continuous values") from None
    try:
        classes, codes = np.unique(y, return_inverse=True)
    except TypeError:
        kinds = sorted({type(v).__name__ for v in y})
        raise DataError(f"y mixes labels of different types ({', '.join(kinds)}); make them "
                        "all strings or all numbers") from None
    return classes, codes.astype(np.int64).reshape(-1)


def read_sample_weight(sample_weight, n_rows: int) -> np.ndarray:
    """Sample weights as float64 of shape (n,) (ones when ``None``).

    Raises
    ------
    DataError
        Wrong shape, negative, NaN or infinite weights, or all weights zero.
    """
    if sample_weight is None:
        return np.ones(n_rows, dtype=np.float64)
    try:
        w = np.asarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError):
        raise DataError(f"sample_weight must be numbers, got {sample_weight!r:.80}") from None
    if w.ndim == 0:
        w = np.full(n_rows, float(w))
    if w.shape != (n_rows,):
        raise DataError(f"sample_weight has shape {w.shape}; expected ({n_rows},), one "
                        "weight per row of X")
    if not np.isfinite(w).all():
        raise DataError("sample_weight has NaN or infinite values")
    if (w < 0).any():
        raise DataError("sample_weight has negative values; weights must be >= 0")
    if not (w > 0).any():
        raise DataError("every sample weight is zero; at least one row must count")
    return w


def label_for_ir(label: object) -> str | int:
    """A class label as the IR accepts it: integers stay integers (integral floats too),
    everything else becomes its string."""
    v = to_python(label)
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, int):
        return v
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return v if isinstance(v, str) else str(v)


def check_rows(X, n_features: int, who: str) -> np.ndarray:
    """``X`` (anything but a DataFrame) as a 2-d array of ``n_features`` columns to predict
    on, with scikit-learn's messages.

    Raises
    ------
    DataError
        Sparse input.
    InstanceShapeError
        Not 2-d, or the wrong number of columns.
    MissingValueError, InstanceError
        NaN or infinite values.
    """
    if hasattr(X, "toarray") or hasattr(X, "tocsr"):
        raise DataError("sparse matrices are not supported; pass a dense array (X.toarray())")
    arr = np.asarray(X)
    if arr.ndim != 2:
        raise InstanceShapeError(
            f"expected a 2-d array (rows x {n_features} features), got shape {arr.shape}; "
            "Reshape your data either using X.reshape(-1, 1) if it has a single feature or "
            "X.reshape(1, -1) if it is a single row")
    if arr.shape[1] != n_features:
        raise InstanceShapeError(
            f"X has {arr.shape[1]} features, but {who} is expecting {n_features} features as "
            "input")
    if arr.dtype.kind == "f":
        if np.isnan(arr).any():
            raise MissingValueError(
                f"X has {int(np.isnan(arr).sum())} NaN (missing) value(s); xdt's models do not "
                "route missing values: impute or drop them first")
        if np.isinf(arr).any():
            raise InstanceError(
                f"X has {int(np.isinf(arr).sum())} inf value(s); give finite numbers")
    return arr


def check_int(name: str, value, low: int) -> None:
    """Raise :class:`~xdt.errors.ParameterError` unless ``value`` is an integer (not a bool)
    of at least ``low``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise ParameterError(f"{name} must be an integer >= {low}, got {value!r}")
