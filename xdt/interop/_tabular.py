"""From a table (pandas DataFrame) to xdt features and a numeric matrix for scikit-learn.

:class:`TabularEncoder` decides each column's feature kind once, at the boundary:

* boolean columns, and numeric columns whose values are all 0 or 1, become ``binary``
  features (``False``/``True`` read as 0/1);
* columns named in ``categorical``, and other non-numeric columns (strings, pandas
  categoricals) become ``categorical`` features whose domain is the column's distinct values;
* other numeric columns become ``ordinal`` features.

For scikit-learn, categorical features are one-hot encoded (one indicator column
``name=value`` per domain value); :func:`xdt.interop.from_sklearn` maps the
indicator tests of a fitted tree back to categorical splits, so the imported tree speaks of
the original columns and values, not of codes.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from xdt.errors import DataError, MissingFeatureError, NotFittedError, ParameterError
from xdt.ir._features import Feature
from xdt.ir._values import to_python


def _plain(v: object) -> object:
    """A Python scalar, with integral floats as ints (a column read as floats keeps
    integer categories)."""
    v = to_python(v)
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return v


def _sort_key(v: object) -> tuple:
    return (0, v, "") if isinstance(v, int | float) else (1, 0, str(v))


class TabularEncoder:
    """Feature kinds of a DataFrame's columns, and their numeric encoding for scikit-learn.

    Parameters
    ----------
    categorical : iterable of str, optional
        Columns to treat as categorical even when numeric (integer-coded categories).

    Attributes (after :meth:`fit`)
    ------------------------------
    features_ : list of Feature
        One feature per column, in column order.
    columns_ : list of (int, object)
        Per encoded (scikit-learn) column: the feature position, and for a one-hot indicator
        the domain value it indicates (``None`` for numeric and binary columns).
    encoded_names_ : list of str
        Names of the encoded columns (``name`` or ``name=value``).
    """

    def __init__(self, categorical: Iterable[str] | None = None):
        self.categorical = list(categorical or [])

    def fit(self, frame: pd.DataFrame) -> TabularEncoder:
        """Decide the kind and domain of every column of ``frame``.

        Raises
        ------
        DataError
            When a column has missing values, or a name in ``categorical`` is not a column.
        """
        unknown = [c for c in self.categorical if c not in frame.columns]
        if unknown:
            raise DataError(f"categorical column(s) {unknown} are not in the data; columns are "
                            f"{list(frame.columns)}")
        self.features_: list[Feature] = []
        self.columns_: list[tuple[int, object]] = []
        self.encoded_names_: list[str] = []
        for i, name in enumerate(frame.columns):
            col = frame[name]
            if col.isna().any():
                raise DataError(
                    f"column {name!r} has {int(col.isna().sum())} missing value(s); xdt models "
                    "do not route missing values: impute or drop them first")
            numeric = pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col)
            boolean = pd.api.types.is_bool_dtype(col) or (
                pd.api.types.is_object_dtype(col) and len(col) > 0
                and all(isinstance(v, bool | np.bool_) for v in col.unique()))
            if boolean:  # a feature's domain cannot hold bools: 0/1 as a binary feature
                self.features_.append(Feature(str(name), "binary"))
                self.columns_.append((i, None))
                self.encoded_names_.append(str(name))
            elif name in self.categorical or not numeric:
                domain = sorted({_plain(v) for v in col.unique()}, key=_sort_key)
                self.features_.append(Feature(str(name), "categorical", tuple(domain)))
                for v in domain:
                    self.columns_.append((i, v))
                    self.encoded_names_.append(f"{name}={v}")
            else:
                values = set(np.unique(col.to_numpy(dtype=np.float64)).tolist())
                kind = "binary" if values <= {0.0, 1.0} else "ordinal"
                self.features_.append(Feature(str(name), kind))
                self.columns_.append((i, None))
                self.encoded_names_.append(str(name))
        return self

    @property
    def feature_names(self) -> list[str]:
        """Names of the fitted features, in column order.

        Raises
        ------
        NotFittedError
            :meth:`fit` has not been called.
        """
        return [f.name for f in fitted_encoder(self).features_]

    def transform(self, frame: pd.DataFrame) -> np.ndarray:
        """The numeric matrix for scikit-learn, shape ``(n, len(encoded_names_))``, float64.

        Raises
        ------
        MissingFeatureError
            A fitted column is absent from ``frame``.
        NotFittedError
            :meth:`fit` has not been called.
        """
        missing = [n for n in self.feature_names if n not in frame.columns]
        if missing:
            raise MissingFeatureError(f"the data has no column(s) {missing}")
        out = np.empty((len(frame), len(self.columns_)), dtype=np.float64)
        for j, (i, value) in enumerate(self.columns_):
            col = frame[self.features_[i].name]
            if value is None:
                out[:, j] = pd.to_numeric(col).to_numpy(dtype=np.float64)
            else:
                out[:, j] = (col.map(_plain) == value).to_numpy(dtype=np.float64)
        return out

    def fit_transform(self, frame: pd.DataFrame) -> np.ndarray:
        """``fit(frame)`` then ``transform(frame)``; shape ``(n, len(encoded_names_))``, float64."""
        return self.fit(frame).transform(frame)


def fitted_encoder(encoder: object) -> TabularEncoder:
    """``encoder`` itself, once checked to be a fitted :class:`TabularEncoder` (what the
    importers' ``encoder=`` takes).

    Raises
    ------
    ParameterError
        ``encoder`` is not a TabularEncoder.
    NotFittedError
        It has not been fitted.
    """
    if not isinstance(encoder, TabularEncoder):
        raise ParameterError(
            f"encoder= takes a fitted TabularEncoder, not {type(encoder).__name__}: fit "
            "xdt.interop.TabularEncoder on the frame and train on its transform")
    if not hasattr(encoder, "columns_"):
        raise NotFittedError(
            "this TabularEncoder is not fitted: call fit(frame) on the table the model was "
            "trained on (then transform(frame) is what the model saw)")
    return encoder
