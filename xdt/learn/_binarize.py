"""Boolean features from a table, each one a condition on an original feature.

Learners of Boolean models — the nested k-DNFs of Cooper, Bousdira & Carbonnel
("Interpretable DNFs", IJCAI 2025, Section 6.2: "various feature types, which are converted
into boolean features") — read 0/1 columns. :class:`Binarizer` makes them and remembers,
for every Boolean column, the :class:`~xdt.ir.Condition` on the *original* feature that it
stands for (and the condition of its negation). A model learned on the Boolean columns maps
back to conditions such as ``age <= 37.5`` or ``colour = red``, so its explanations read in
the user's terms.

* ``bool`` columns, and numeric columns whose values are all 0 or 1, are **binary**
  features: one column ``x = 1`` (negation ``x = 0``). An already binarised data set passes
  through unchanged.
* **Categorical** columns (strings, pandas ``category`` columns, columns named in
  ``categorical_features``): one column ``x = v`` per value ``v`` (negation
  ``x in {the other values}``); with two values, only one column ``x = v`` for the second
  value of the domain (negation ``x = first value``); with one value, none.
* **Numeric** (ordinal) columns: ``x <= t`` (negation ``t < x``) for at most
  ``n_thresholds`` thresholds ``t`` at the quantiles ``1/(T+1), ..., T/(T+1)`` of the
  (weighted) training values, each between the quantile value and the next distinct value:
  their midpoint (as CART places thresholds) rounded to the fewest decimals that keep it
  between the two (``51.65``, not ``51.650000000000006``); all such thresholds when a column
  has at most ``n_thresholds + 1`` distinct values.

Missing values are rejected (:class:`~xdt.errors.MissingValueError`): impute them first.
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin

from xdt.errors import InstanceShapeError, ParameterError
from xdt.ir._cells import CategoricalCells, IntervalCells
from xdt.ir._dnf import Condition
from xdt.ir._features import Feature, FeatureSpace
from xdt.ir._instances import as_frame
from xdt.learn._base import LearnerNotFittedError
from xdt.learn._data import TrainingData, check_rows, read_sample_weight, read_training_data
from xdt.learn._splitter import midpoint

__all__ = ["Binarizer", "BooleanColumn"]


@dataclass(frozen=True)
class BooleanColumn:
    """One Boolean column made by :class:`Binarizer`.

    Attributes
    ----------
    name : str
        ``str(condition)``, e.g. ``"age <= 37.5"`` (the output feature name).
    feature : int
        Position of the original feature in ``Binarizer.features_``.
    condition : Condition
        The condition on the original feature that the column is true for.
    negation : Condition
        The condition on the original feature that the column is false for.
    cells : int
        Bit mask of the cells of the original feature (``Binarizer.cells_[feature]``) where
        ``condition`` holds; the negation holds on the other cells.
    """

    name: str
    feature: int
    condition: Condition
    negation: Condition
    cells: int


def _check_n_thresholds(value) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ParameterError(f"n_thresholds must be None or an integer >= 1, got {value!r}")


def readable_midpoint(lo: float, hi: float) -> float:
    """A threshold ``t`` with ``lo <= t < hi``: their midpoint rounded to the fewest decimals
    that keep it there (``readable_midpoint(51.6, 51.7) == 51.65``; ``(37, 38)`` gives
    ``37.5``, ``(1, 5)`` gives ``3.0``). Any such ``t`` splits the values alike."""
    mid = midpoint(lo, hi)
    for digits in range(16):
        t = round(mid, digits)
        if lo <= t < hi:
            return float(t)
    return mid


def quantile_thresholds(values: np.ndarray, weight: np.ndarray,
                        n_thresholds: int | None) -> list[float]:
    """Thresholds ``t`` of the tests ``x <= t`` of one numeric column, sorted.

    Parameters
    ----------
    values, weight : numpy.ndarray of shape (n,)
        The column's values (finite) and the rows' weights (rows of weight 0 are ignored).
    n_thresholds : int or None
        At most this many thresholds, at the weighted quantiles ``q = i / (T + 1)``,
        ``i = 1..T``: the midpoint between the smallest value ``u`` whose cumulative weight
        share reaches ``q`` and the next distinct value (none when ``u`` is the largest);
        repeated thresholds are merged, so heavy ties give fewer. ``None``: one threshold
        between every two consecutive distinct values. Thresholds are
        :func:`readable_midpoint` of the two values they separate.

    Returns
    -------
    list of float
    """
    keep = weight > 0
    distinct, inverse = np.unique(values[keep], return_inverse=True)
    if len(distinct) < 2:
        return []
    mids = [readable_midpoint(lo, hi)
            for lo, hi in zip(distinct[:-1], distinct[1:], strict=True)]
    if n_thresholds is None or len(mids) <= n_thresholds:
        return mids
    mass = np.bincount(inverse.reshape(-1), weights=weight[keep], minlength=len(distinct))
    share = np.cumsum(mass) / mass.sum()
    chosen: set[int] = set()
    for i in range(1, n_thresholds + 1):
        q = i / (n_thresholds + 1)
        at = int(np.searchsorted(share, q, side="left"))
        if at < len(mids):
            chosen.add(at)
    return [mids[i] for i in sorted(chosen)]


class Binarizer(TransformerMixin, BaseEstimator):
    """Boolean columns for the features of a table, each a condition on one feature.

    See the module docstring for the columns made from each kind of feature. The Boolean
    model learners of xdt (:class:`~xdt.learn.NestedKDNFClassifier`) binarise their input with
    it and map what they learn back through :attr:`columns_`.

    Parameters
    ----------
    n_thresholds : int or None, default 4
        Largest number of thresholds ``x <= t`` per numeric column (at the quantiles ``1/5,
        2/5, 3/5, 4/5`` for 4); ``None``: a threshold between every two consecutive distinct
        values.
    categorical_features : list of str or int, or bool mask, optional
        Numeric columns to treat as categorical (integer-coded categories), as in
        :class:`~xdt.learn.CARTClassifier`.

    Attributes
    ----------
    features_ : list of xdt.ir.Feature
        The original features (numeric 0/1 columns as ``binary`` features).
    cells_ : list of CategoricalCells / IntervalCells
        Per feature, its cells: the values (categorical, binary) or the intervals between
        the feature's thresholds (ordinal).
    columns_ : tuple of BooleanColumn
        The output columns, in order: feature by feature, thresholds ascending / domain
        order.
    n_features_in_ : int
    feature_names_in_ : numpy.ndarray of str
        Only when ``X`` was a DataFrame with string column names.

    Examples
    --------
    >>> import pandas as pd
    >>> from xdt.learn import Binarizer
    >>> X = pd.DataFrame({"age": [20, 30, 40, 50], "colour": ["red", "blue", "red", "green"],
    ...                   "b": [0, 1, 1, 0]})
    >>> enc = Binarizer(n_thresholds=2).fit(X)
    >>> enc.get_feature_names_out().tolist()
    ['age <= 35', 'age <= 45', 'colour = blue', 'colour = green', 'colour = red', 'b = 1']
    >>> enc.transform(X)[0].astype(int).tolist()
    [1, 1, 0, 0, 1, 0]
    >>> str(enc.columns_[1].negation)
    '45 < age'
    """

    def __init__(self, n_thresholds: int | None = 4, categorical_features=None):
        self.n_thresholds = n_thresholds
        self.categorical_features = categorical_features

    # ------------------------------------------------------------------ fitting
    def fit(self, X, y=None, sample_weight=None):
        """Choose the Boolean columns of ``X``.

        Parameters
        ----------
        X : array-like of shape (n, n_features) or pandas.DataFrame
            No missing values.
        y : ignored
        sample_weight : array-like of shape (n,), optional
            Weights of the quantiles of numeric columns (rows of weight 0 are ignored there).

        Returns
        -------
        self

        Raises
        ------
        MissingValueError
            ``X`` has missing values.
        InstanceShapeError
            ``X`` is not 2-d.
        DataError, ParameterError
            Infinite values, no rows, sparse input, bad ``n_thresholds`` or weights.
        """
        _check_n_thresholds(self.n_thresholds)
        data = read_training_data(X, self.categorical_features)
        weight = read_sample_weight(sample_weight, data.n_rows)
        self._fit_data(data, weight)
        return self

    def fit_transform(self, X, y=None, sample_weight=None) -> np.ndarray:
        """``fit(X, y, sample_weight)`` then the Boolean matrix of ``X``: bool, (n, m)."""
        _check_n_thresholds(self.n_thresholds)
        data = read_training_data(X, self.categorical_features)
        weight = read_sample_weight(sample_weight, data.n_rows)
        return self._fit_data(data, weight)

    def _fit_data(self, data: TrainingData, weight: np.ndarray) -> np.ndarray:
        """Fit on already-read training data; the Boolean matrix of its rows."""
        n = data.n_rows
        features: list[Feature] = []
        cells: list[CategoricalCells | IntervalCells] = []
        columns: list[BooleanColumn] = []
        blocks: list[np.ndarray] = []
        ordinal_at = {int(f): j for j, f in enumerate(data.ordinal_features)}
        code_at = {int(f): j for j, f in enumerate(data.categorical_features)}
        zero_one = ((data.ordinal == 0.0) | (data.ordinal == 1.0)).all(axis=0)
        for fi, feat in enumerate(data.features):
            name = feat.name
            if feat.kind == "ordinal":
                values = data.ordinal[:, ordinal_at[fi]]
                if zero_one[ordinal_at[fi]]:                # a 0/1 column: binary feature
                    feat = Feature(name, "binary")
                    codes = values.astype(np.int64)
                else:
                    thresholds = quantile_thresholds(values, weight, self.n_thresholds)
                    features.append(feat)
                    cells.append(IntervalCells(name, thresholds))
                    for j, t in enumerate(thresholds):
                        columns.append(BooleanColumn(
                            f"{Condition(name, upto=t)}", fi, Condition(name, upto=t),
                            Condition(name, above=t), (1 << (j + 1)) - 1))
                        blocks.append(values <= t)
                    continue
            else:
                codes = data.codes[:, code_at[fi]]
            features.append(feat)
            domain = tuple(feat.domain)
            cells.append(CategoricalCells(name, domain))
            full = (1 << len(domain)) - 1
            if len(domain) == 1:
                shown: range = range(0)                 # a constant column tells nothing
            elif len(domain) == 2:
                shown = range(1, 2)                     # one column: x = second value
            else:
                shown = range(len(domain))              # one-hot
            for v in shown:
                cond = Condition(name, (domain[v],))
                neg = Condition(name, tuple(u for i, u in enumerate(domain) if i != v))
                columns.append(BooleanColumn(str(cond), fi, cond, neg, full & (1 << v)))
                blocks.append(codes == v)
        self.features_ = features
        self.cells_ = cells
        self.columns_ = tuple(columns)
        self.n_features_in_ = len(features)
        if data.feature_names_in is not None:
            self.feature_names_in_ = data.feature_names_in
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        return (np.column_stack(blocks) if blocks else np.zeros((n, 0), dtype=bool))

    # ------------------------------------------------------------------ transforming
    def _check_fitted(self) -> None:
        if not hasattr(self, "columns_"):
            raise LearnerNotFittedError(
                f"this {type(self).__name__} is not fitted yet; call fit(X) first")

    def cell_codes(self, X) -> np.ndarray:
        """The cell of every value of ``X`` (see :attr:`cells_`): int64, (n, n_features).

        ``X`` is read as at fit: a DataFrame by column name (positionally when fitted
        without names; scikit-learn's rule: exactly the fitted columns, in their order),
        anything else as a 2-d array of ``n_features_in_`` columns.

        Raises
        ------
        NotFittedError, MissingValueError
        InstanceShapeError
            Wrong number of columns, or (DataFrame) other column names than at fit.
        UnknownCategoryError
            A categorical or binary value not seen at fit (binary: not 0 or 1).
        InstanceError
            A non-number for a numeric feature, infinite values.
        """
        self._check_fitted()
        space = FeatureSpace(self.features_)
        frame = as_frame(space, self._table(X))
        out = np.empty((len(frame), len(space)), dtype=np.int64)
        for i, c in enumerate(self.cells_):
            out[:, i] = c.encode(frame.iloc[:, i])
        return out

    def _table(self, X):
        """``X`` as :func:`xdt.ir._instances.as_frame` reads it against :attr:`features_`."""
        named = hasattr(self, "feature_names_in_")
        n = self.n_features_in_
        if isinstance(X, pd.DataFrame):
            strings = all(isinstance(c, str) for c in X.columns)
            if named and strings:
                _check_names(list(X.columns), list(self.feature_names_in_))
                return X
            if named:
                warnings.warn(f"X has non-string column names, but {type(self).__name__} was "
                              "fitted with feature names; columns are taken by position",
                              UserWarning, stacklevel=4)
            elif strings:
                warnings.warn(f"X has feature names, but {type(self).__name__} was fitted "
                              "without feature names; columns are taken by position",
                              UserWarning, stacklevel=4)
            X = X.to_numpy()
        return check_rows(X, n, type(self).__name__)

    def transform(self, X) -> np.ndarray:
        """The Boolean columns of ``X``: bool array of shape (n, len(columns_)); column ``j``
        is true exactly where ``columns_[j].condition`` holds.

        Raises
        ------
        See :meth:`cell_codes`.
        """
        codes = self.cell_codes(X)
        return self._from_codes(codes)

    def _from_codes(self, codes: np.ndarray) -> np.ndarray:
        out = np.empty((len(codes), len(self.columns_)), dtype=bool)
        for j, col in enumerate(self.columns_):
            table = np.array([(col.cells >> c) & 1 for c in range(
                self.cells_[col.feature].n_cells)], dtype=bool)
            out[:, j] = table[codes[:, col.feature]]
        return out

    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        """Names of the Boolean columns: their conditions as text (``"age <= 37.5"``,
        ``"colour = red"``, ``"b = 1"``); object array of str.

        Parameters
        ----------
        input_features : sequence of str, optional
            Names to use for the original features (must equal ``feature_names_in_`` when
            fitted with names).

        Raises
        ------
        NotFittedError
        ParameterError
            ``input_features`` has the wrong length or differs from ``feature_names_in_``.
        """
        self._check_fitted()
        own = [f.name for f in self.features_]
        if input_features is None:
            names = own
        else:
            names = [str(v) for v in input_features]
            if len(names) != self.n_features_in_:
                raise ParameterError(f"input_features should have length equal to number of "
                                     f"features ({self.n_features_in_}), got {len(names)}")
            if hasattr(self, "feature_names_in_") and names != own:
                raise ParameterError("input_features is not equal to feature_names_in_; pass "
                                     "None, or the names the binarizer was fitted with")
        out = []
        for col in self.columns_:
            text = col.name
            if names[col.feature] != own[col.feature]:
                renamed = Condition(names[col.feature], col.condition.values,
                                    col.condition.above, col.condition.upto)
                text = str(renamed)
            out.append(text)
        return np.asarray(out, dtype=object)

    def condition(self, literal: int) -> Condition:
        """The condition of literal ``literal``: ``2 j`` is column ``j`` true, ``2 j + 1``
        column ``j`` false (the numbering of :mod:`xdt.learn._nested`)."""
        self._check_fitted()
        col = self.columns_[literal // 2]
        return col.negation if literal % 2 else col.condition

    def literal_cells(self) -> tuple[np.ndarray, list[int]]:
        """Per literal (``2 j``: column ``j`` true, ``2 j + 1``: false), the original feature
        and the bit mask of its cells: what :func:`xdt.learn._nested.construct_matrix` needs to
        tell consistent and redundant literals apart on the original features."""
        self._check_fitted()
        feature = np.repeat([c.feature for c in self.columns_], 2).astype(np.int64)
        masks: list[int] = []
        for col in self.columns_:
            full = (1 << self.cells_[col.feature].n_cells) - 1
            masks += [col.cells, full & ~col.cells]
        return feature, masks

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        tags.input_tags.allow_nan = False
        tags.transformer_tags.preserves_dtype = []
        return tags


def _check_names(given: list[str], fitted: list[str]) -> None:
    """scikit-learn's rule: the columns of ``X`` must be the fitted names, in order (extra
    columns are not allowed)."""
    if given == fitted:
        return
    unseen = [n for n in given if n not in fitted]
    missing = [n for n in fitted if n not in given]
    message = "The feature names should match those that were passed during fit.\n"
    if unseen:
        message += "Feature names unseen at fit time:\n" + "".join(
            f"- {n}\n" for n in unseen[:5])
    if missing:
        message += "Feature names seen at fit time, yet now missing:\n" + "".join(
            f"- {n}\n" for n in missing[:5])
    if not unseen and not missing:
        message += "Feature names must be in the same order as they were in fit.\n"
    raise InstanceShapeError(message)
