"""Reading instances and data matrices against a model's features and cells.

This is the boundary where user data is validated once; everything below it works on cell
numbers (int arrays) and trusts them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from xdt.errors import (
    InstanceError,
    InstanceShapeError,
    MissingFeatureError,
    UnknownFeatureError,
)
from xdt.ir.features import FeatureSpace


def instance_values(features: FeatureSpace, x) -> tuple:
    """The values of one instance, in feature order.

    Parameters
    ----------
    x : dict by feature name, pandas Series (by name; entries that are not features are
        ignored), or sequence / 1-d array in feature order

    Raises
    ------
    MissingFeatureError, UnknownFeatureError, InstanceShapeError
    """
    if isinstance(x, pd.Series):
        # a row of a wider table (e.g. with its target column): extra entries are ignored,
        # as for the columns of a DataFrame
        x = {k: v for k, v in x.items() if k in features}
    if isinstance(x, Mapping):
        unknown = [k for k in x if k not in features]
        if unknown:
            raise UnknownFeatureError(
                f"the instance names unknown feature(s) {unknown}; the model's features are: "
                f"{', '.join(features.names)}")
        missing = [n for n in features.names if n not in x]
        if missing:
            raise MissingFeatureError(
                f"the instance has no value for feature(s) {missing}; give a value for every "
                f"feature: {', '.join(features.names)}")
        return tuple(x[n] for n in features.names)
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


def encode_instance(features: FeatureSpace, cells: Sequence, x) -> tuple[tuple, tuple[int, ...]]:
    """``(values, cells)`` of one instance; see :func:`instance_values` for accepted forms.

    Raises
    ------
    MissingFeatureError, UnknownFeatureError, InstanceShapeError, MissingValueError,
    UnknownCategoryError, InstanceError
    """
    values = instance_values(features, x)
    return values, tuple(c.cell_of(v) for c, v in zip(cells, values, strict=True))


def as_frame(features: FeatureSpace, X) -> pd.DataFrame:
    """The rows of ``X`` as a DataFrame with one column per feature, in feature order.

    ``X`` may be a DataFrame (columns by name; extra columns ignored), a list of dicts,
    a dict (one row) or a 2-d array/sequence in feature order.
    """
    names = list(features.names)
    if isinstance(X, pd.DataFrame):
        repeated = set(X.columns[X.columns.duplicated()])
        clash = [n for n in names if n in repeated]
        if clash:
            raise InstanceError(
                f"the data has more than one column named {', '.join(map(repr, clash))}; "
                "column names must be unique (rename or drop the copies)")
        missing = [n for n in names if n not in X.columns]
        if missing:
            raise MissingFeatureError(
                f"the data has no column(s) {missing}; the model's features are: "
                f"{', '.join(names)}")
        return X[names].reset_index(drop=True)
    if isinstance(X, Mapping) or isinstance(X, pd.Series):
        X = [X]
    if isinstance(X, Sequence) and len(X) > 0 and all(isinstance(r, Mapping) for r in X):
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


def encode_rows(features: FeatureSpace, cells: Sequence, X) -> np.ndarray:
    """Cells of many rows, shape ``(n, n_features)`` int64; see :func:`as_frame` for ``X``."""
    frame = as_frame(features, X)
    out = np.empty((len(frame), len(features)), dtype=np.int64)
    for i, c in enumerate(cells):
        out[:, i] = c.encode(frame.iloc[:, i])
    return out
