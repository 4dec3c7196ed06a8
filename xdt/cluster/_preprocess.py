"""Pre-processing of a table for shallow, readable decision trees, invertible for reporting.

The pipeline of Section "Data Pre-processing Pipeline" of *Using Decision Trees for
Interpretable Supervised Clustering* (sub-sections "Binning" and "Ordinal encoding").
:class:`Preprocessor` decides, at ``fit``, one treatment per column and keeps what it needs to
turn any set of *transformed* values back into a condition on the *original* column
(:meth:`Preprocessor.condition`, :meth:`Preprocessor.describe`).

Treatments (``Preprocessor.columns_[name].kind``):

``"numeric"``
    Percentile binning ("we apply the percentile binning to transform the numeric features").
    The cut points ``t_0 < t_1 < ... < t_{b-2}`` are the distinct values of the column at the
    quantiles ``1/n_bins, ..., (n_bins-1)/n_bins`` (the smallest value whose cumulative share
    of rows reaches the quantile, ``numpy.quantile(method="inverted_cdf")``: data values, so
    rules read ``Age <= 28``, not ``Age <= 28.37``), the column's maximum excluded. Bins are
    **left-open, right-closed**: bin ``k`` holds ``t_{k-1} < x <= t_k`` (bin 0: ``x <= t_0``,
    the last bin: ``x > t_{b-2}``); the transformed value is the bin number ``0 .. b-1``
    (int). A set of consecutive bins ``lo..hi`` inverts to the :class:`~xdt.ir.Condition`
    ``t_{lo-1} < x <= t_hi`` (a bound is left out at either end).
``"date"``
    A datetime column, or a text column of which at least ``date_threshold`` (95%) of the
    non-missing cells parse with ``pandas.to_datetime`` (and which is not mostly
    numbers). Binned like numeric columns — ``date_binning="frequency"`` (quantile cut points,
    "frequency-based intervals") or ``"equal-width"`` (``n_bins`` intervals of equal length
    between the smallest and largest date) — with the same left-open, right-closed bins; a
    set of bins inverts to a :class:`DateCondition` (``2020-01-01 < Date <= 2020-03-01``).
    Text that does not parse counts as missing.
``"nominal"`` / ``"ordinal"``
    Categorical columns (text, pandas ``category``). With more than ``max_categories``
    distinct values, the values are first grouped into ``n_groups`` groups ("three methods to
    group symbolic values"): ``grouping="frequency"``, ``"equal-width"`` or ``"similarity"``
    (see :func:`group_values`). A nominal column's transformed values are labels (the value
    itself, or ``"<group k>"`` for a group of several values; a pandas ``category`` column),
    split by ``=`` / ``!=``. An ordinal column's transformed values are integer codes
    ``0 .. k-1`` in an order (the natural order: a pandas ordered category's order, else
    sorted values; groups in the order of their grouping), split by ``<=`` / ``>``.
    **Symbolic reordering** (``reorder=True``) orders the values (or groups) by the share of
    their rows that are in the class ``positive``, ascending, ties in the natural order: then
    one threshold ``code <= t`` separates the values rich in ``positive`` from the rest, and
    for two classes and the Gini or entropy criterion the best such threshold is the best
    split of the values into two sets of all ``2^(k-1) - 1`` (Breiman et al. 1984, Theorem
    4.5). The paper sorts by the count in one class (their Table 2); the share does not favour
    frequent values, and gives the paper's order on its city example (London, Shanghai,
    Amsterdam, New York for ``positive=1``). Reordered columns are ordinal.
``"binary"``
    ``bool`` columns without missing values stay as they are.

Missing values. A categorical column's missing values (NaN, None, empty pandas NA) are one more
category, :data:`MISSING` (``"(missing)"``); conditions name it like any value, and
:meth:`Preprocessor.evaluate` reads missing cells as it. A numeric or date column with missing
values gets one more bin after the others, the *missing bin*, whose description is
``Age is missing``; an IR :class:`~xdt.ir.Condition` cannot name NaN, so
:meth:`Preprocessor.condition` covers the non-missing values and
:meth:`Preprocessor.allows_missing` tells whether the missing bin is among the codes.

Columns dropped by ``drop_ids=True`` (reported in ``dropped_``; the test is
:func:`xdt.interop._columns.id_column_reason`, which ``xdt fit`` uses too): text columns whose
values are all distinct (names, ids) or of which more than half of the rows have a value of
their own (codes such as Titanic's ``Ticket``) or with at least half as many distinct
values as rows, 20 or more (near-ids: :data:`xdt.interop._columns.ID_MIN_DISTINCT_SHARE`;
missing cells count as one value), and integer columns named like ids (``...id``, ``id...``,
any case) holding ``n`` distinct consecutive values, or distinct values with gaps
when ``id`` is a word of the name (row numbers such as ``PassengerId``): no
rule can generalise over them (the paper's "Features with too many unique values should
either be binned ... or excluded"). A column named in ``ordinal``, ``reorder`` or ``keep``
is kept.

Columns reduced to known / missing by ``drop_ids=True`` (reported in ``reduced_``): a text
column with missing cells that the test above keeps (its missing cells, one value, weigh
enough) but whose *filled* cells alone are id-like by the same test (Titanic's ``Cabin``: 687
of 891 cells missing, 147 distinct codes in the 204 filled ones). Its codes would make rules
over a long list of them (symbolic reordering finds one); whether the value is known is
what a rule can use. The column gets two categories, :data:`KNOWN` (every known value,
values unseen at fit included) and :data:`MISSING` (:attr:`ColumnTreatment.known_only`),
so a rule reads ``Cabin != (missing)`` or ``Cabin = (missing)``. Not for a column named in
``ordinal``, ``reorder`` or ``keep``.

Examples
--------
>>> import pandas as pd
>>> from xdt.cluster._preprocess import Preprocessor
>>> X = pd.DataFrame({"city": ["Amsterdam", "London", "New York", "Shanghai",
...                            "Shanghai", "New York", "London", "Amsterdam"]})
>>> pre = Preprocessor(reorder=True, positive=1).fit(X, [1, 0, 1, 1, 0, 1, 0, 1])
>>> pre.columns_["city"].order
('London', 'Shanghai', 'Amsterdam', 'New York')
>>> pre.describe("city", [2, 3])
'city in {Amsterdam, New York}'
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin

from xdt.errors import (
    DataError,
    InstanceShapeError,
    ParameterError,
    UnknownCategoryError,
    UnknownFeatureError,
)
from xdt.interop._columns import id_column_reason
from xdt.ir._dnf import Condition
from xdt.learn._base import LearnerNotFittedError
from xdt.learn._data import check_int

__all__ = ["KNOWN", "MISSING", "ColumnTreatment", "DateCondition", "Preprocessor",
           "group_values"]

MISSING = "(missing)"
"""The category that stands for missing values in categorical columns."""

KNOWN = "(known)"
"""The label of every known value of a nominal column reduced to known / missing
(:attr:`ColumnTreatment.known_only`)."""

_GROUPINGS = ("frequency", "equal-width", "similarity")
_DATE_BINNINGS = ("frequency", "equal-width")


# ---------------------------------------------------------------------------- results
@dataclass(frozen=True)
class DateCondition(Condition):
    """A :class:`~xdt.ir.Condition` on a date column: ``above < x <= upto`` with
    ``pandas.Timestamp`` bounds (either may be ``None``), printed as dates."""

    def __str__(self) -> str:
        lo = None if self.above is None else _fmt_date(self.above)
        hi = None if self.upto is None else _fmt_date(self.upto)
        if lo is None:
            return f"{self.feature} <= {hi}"
        if hi is None:
            return f"{self.feature} > {lo}"
        return f"{lo} < {self.feature} <= {hi}"


@dataclass(frozen=True)
class ColumnTreatment:
    """How :class:`Preprocessor` treats one column.

    Attributes
    ----------
    name : str
        The column.
    kind : str
        ``"numeric"``, ``"date"``, ``"nominal"``, ``"ordinal"`` or ``"binary"``.
    codes : tuple
        The transformed values, in order: bin numbers ``0 .. b-1`` (then the missing bin
        ``b``, if any) for numeric and date columns, codes ``0 .. k-1`` for ordinal ones,
        labels for nominal ones, ``(False, True)`` for binary ones.
    cuts : tuple
        Numeric and date columns: the cut points ``t_0 < ... < t_{b-2}`` (floats, or
        ``pandas.Timestamp``); bin ``k`` holds ``t_{k-1} < x <= t_k``.
    groups : tuple of tuple
        Categorical columns: per transformed value (in ``codes`` order), the original values
        it stands for (one each when the values were not grouped).
    order : tuple
        Categorical columns: the original values in code order (groups flattened).
    grouping : str or None
        The grouping method, when the values were grouped.
    reordered : bool
        Whether the order comes from symbolic reordering by the target.
    missing_code : object or None
        The transformed value of missing cells (the missing bin, or the code / label of
        :data:`MISSING`); ``None`` when the column had no missing values at fit.
    known_only : bool
        Categorical columns whose filled cells alone are id-like (see
        :attr:`Preprocessor.reduced_`): reduced to whether the value is known, two
        transformed values, one for every known value (label :data:`KNOWN` for a nominal
        column; ``groups`` holds the known values seen at fit; values never seen are known
        ones too) and one for missing cells.
    """

    name: str
    kind: str
    codes: tuple
    cuts: tuple = ()
    groups: tuple = ()
    order: tuple = ()
    grouping: str | None = None
    reordered: bool = False
    missing_code: object = None
    known_only: bool = False
    _index: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def is_binned(self) -> bool:
        return self.kind in ("numeric", "date")

    @property
    def n_bins(self) -> int:
        """Numeric/date columns: the number of value bins (the missing bin not counted)."""
        return len(self.cuts) + 1 if self.is_binned and self._has_values else 0

    @property
    def known_position(self) -> int:
        """A column reduced to known / missing (:attr:`known_only`): the position, in
        ``codes`` and ``groups``, of the known side (every known value)."""
        return next(i for i, g in enumerate(self.groups) if MISSING not in g)

    @property
    def _has_values(self) -> bool:
        return len(self.codes) > (self.missing_code is not None)

    def describe(self) -> str:
        """One line on the treatment, e.g. ``Age: numeric, 8 bins, + missing bin``."""
        miss = ", + missing" if self.missing_code is not None else ""
        if self.is_binned:
            return f"{self.name}: {self.kind}, {self.n_bins} bins{miss}"
        if self.kind == "binary":
            return f"{self.name}: binary"
        ro = ", reordered by target" if self.reordered else ""
        if self.known_only:
            return (f"{self.name}: {self.kind}, known / missing ({len(self.order) - 1} known "
                    f"values as one){ro}")
        how = f", grouped by {self.grouping}" if self.grouping else ""
        return (f"{self.name}: {self.kind}, {len(self.codes)} values "
                f"({len(self.order)} original){how}{ro}{miss}")


# ---------------------------------------------------------------------------- grouping
def group_values(values: Sequence, counts: Sequence[int], n_groups: int,
                 method: str = "frequency") -> list[list]:
    """Groups of symbolic values (Section "Data Pre-processing Pipeline", "Binning").

    Parameters
    ----------
    values : sequence of str / object
        The distinct values.
    counts : sequence of int
        The number of rows of each value.
    n_groups : int
        The number of groups wanted (fewer when there are fewer values).
    method : {"frequency", "equal-width", "similarity"}
        * ``"frequency"`` — values sorted by frequency (descending; ties by ``str``), taken
          greedily: a group takes the next value while that brings its joint frequency
          closer to the target ``remaining rows / remaining groups`` (never leaving fewer
          values than groups still to fill; the last group takes the rest). Frequent values
          stay alone, rare ones are merged ("their joint occurrence frequency approaches the
          estimated mean value").
        * ``"equal-width"`` — values sorted by ``str``, cut into ``n_groups`` runs of equal
          numbers of values (``numpy.array_split``: the first runs are one longer).
        * ``"similarity"`` — values sorted by ``str``, cut between the neighbours at the
          ``n_groups - 1`` largest Jaro–Winkler distances
          (``rapidfuzz.distance.JaroWinkler.distance``; ties: the earlier pair): values with
          a common prefix (postcodes, phone numbers) share a group.

    Returns
    -------
    list of list
        The groups, in the method's order (frequency: most frequent first; else sorted).

    Raises
    ------
    ParameterError
        Unknown ``method``, ``n_groups < 1`` or mismatched lengths.
    """
    if method not in _GROUPINGS:
        raise ParameterError(f"grouping must be one of {', '.join(_GROUPINGS)}; got {method!r}")
    if isinstance(n_groups, bool) or not isinstance(n_groups, numbers.Integral) or n_groups < 1:
        raise ParameterError(f"n_groups must be an integer >= 1, got {n_groups!r}")
    if len(values) != len(counts):
        raise ParameterError(f"{len(values)} values but {len(counts)} counts")
    g = min(int(n_groups), len(values))
    if g == 0:
        return []
    if method == "frequency":
        pairs = sorted(zip(values, counts, strict=True), key=lambda p: (-p[1], str(p[0])))
        groups: list[list] = []
        i, remaining = 0, float(sum(counts))
        for k in range(g):
            left = g - k
            if left == 1:
                groups.append([v for v, _ in pairs[i:]])
                break
            target = remaining / left
            group, mass = [pairs[i][0]], float(pairs[i][1])
            i += 1
            while (i < len(pairs) - (left - 1)
                   and abs(mass + pairs[i][1] - target) <= abs(mass - target)):
                group.append(pairs[i][0])
                mass += pairs[i][1]
                i += 1
            groups.append(group)
            remaining -= mass
        return groups
    ordered = sorted(values, key=str)
    if method == "equal-width":
        return [list(part) for part in np.array_split(np.asarray(ordered, dtype=object), g)]
    from rapidfuzz.distance import JaroWinkler

    dist = np.array([JaroWinkler.distance(str(a), str(b))
                     for a, b in zip(ordered[:-1], ordered[1:], strict=True)])
    cuts = sorted(np.argsort(-dist, kind="stable")[:g - 1].tolist())
    groups, start = [], 0
    for c in cuts:
        groups.append(ordered[start:c + 1])
        start = c + 1
    groups.append(ordered[start:])
    return groups


# ---------------------------------------------------------------------------- helpers
def _fmt_number(x: float) -> str:
    x = float(x)
    return repr(int(x)) if x.is_integer() and abs(x) < 1e15 else repr(x)


def _fmt_date(t) -> str:
    t = pd.Timestamp(t)
    if t == t.normalize():
        return t.strftime("%Y-%m-%d")
    return t.isoformat(sep=" ")


def _fmt_value(v) -> str:
    if isinstance(v, float) and v.is_integer():
        return _fmt_number(v)
    return str(v)


def _sort_key(v) -> tuple:
    if isinstance(v, numbers.Number) and not isinstance(v, bool):
        return (0, float(v), "")
    return (1, 0.0, str(v))


def _plain(v):
    if isinstance(v, np.generic):
        v = v.item()
    return v


@dataclass(frozen=True)
class _Values:
    """A categorical column's cells as plain Python values, :data:`MISSING` for missing
    ones, hashed once (:func:`_factorize`): the value of row ``i`` is
    ``uniques[codes[i]]``.

    ``codes``: int64, shape (n,). ``uniques``: list; its first ``n_present`` entries are the
    distinct present values in order of first appearance, then one entry :data:`MISSING`
    when there are missing cells (beside a present value ``"(missing)"``, if any).
    ``by_value``: ``False`` for the value-by-value reading (one entry per row).
    """

    codes: np.ndarray
    uniques: list
    n_present: int
    by_value: bool = False

    @cached_property
    def counts(self) -> dict:
        """Rows per value (:data:`MISSING` included), equal values of one key (as in
        ``pandas.Series.value_counts``), in order of first appearance."""
        out: dict = {}
        for v, k in zip(self.uniques, np.bincount(self.codes, minlength=len(self.uniques))
                        .tolist(), strict=True):
            out[v] = out.get(v, 0) + k
        return out

    def value_counts(self) -> tuple[list, np.ndarray] | None:
        """``col.dropna().value_counts()`` as its index (a list) and counts (int64): present
        values, most frequent first, ties in order of first appearance; ``None`` for the
        value-by-value reading."""
        if self.by_value:
            return None
        counts = np.bincount(self.codes, minlength=len(self.uniques))[:self.n_present]
        order = np.argsort(-counts, kind="stable")
        return [self.uniques[i] for i in order.tolist()], counts[order]


_NA_TYPES = (type(None), type(pd.NA), type(pd.NaT))


def _factorize(col: pd.Series) -> _Values:
    """The column as plain Python values (:data:`MISSING` for missing cells), each distinct
    value hashed once (``pandas.factorize``; see :class:`_Values`).

    pandas' hash tables take equal values of different types as one (``1``, ``1.0``,
    ``True``); an object column holding values of more than one type is therefore read
    value by value (``uniques`` then has one entry per row), so each row keeps its own value.
    """
    n = len(col)
    if col.dtype == object:
        raw = col.to_numpy()
        missing = pd.isna(raw)
        if len({type(v) for v in raw[~missing]} - set(_NA_TYPES)) > 1:
            values = [MISSING if m else _plain(v) for v, m in zip(raw, missing, strict=True)]
            return _Values(np.arange(n, dtype=np.int64), values, n, by_value=True)
    codes, found = pd.factorize(col, use_na_sentinel=True)
    codes = np.asarray(codes, dtype=np.int64)
    uniques = [_plain(v) for v in np.asarray(found, dtype=object)]
    present = len(uniques)
    if (codes < 0).any():
        uniques.append(MISSING)
        codes = np.where(codes < 0, present, codes)
    return _Values(codes, uniques, present)


def _bins(cuts: np.ndarray, values: np.ndarray, raw: np.ndarray | None = None) -> np.ndarray:
    """``numpy.searchsorted(cuts, values, side="left")`` as int64 (the bin of each value).

    ``raw``: the column's own array; when it holds integers (``values`` their float64 numbers)
    spanning at most as many integers as there are rows, the bins come from a table of the
    bin of every integer of the span (one search per integer, then a gather): the same
    searches, fewer of them, and no unpredictable branches per row.
    """
    if raw is not None and raw.dtype.kind in "iu" and len(raw):
        lo, hi = raw.min(), raw.max()
        if int(hi) - int(lo) + 1 <= len(raw):
            span = np.arange(int(lo), int(hi) + 1, dtype=raw.dtype).astype(np.float64)
            table = np.searchsorted(cuts, span, side="left").astype(np.int64)
            return table[raw - lo]
    return np.searchsorted(cuts, values, side="left").astype(np.int64)


def _objects(values: Sequence) -> np.ndarray:
    """``values`` as a 1-d object array, one element per value (tuples stay elements)."""
    out = np.empty(len(values), dtype=object)
    for i, v in enumerate(values):
        out[i] = v
    return out


def _isin(values: Sequence, allowed: Iterable) -> np.ndarray:
    """``pandas.Series(values, dtype=object).isin(allowed)``: bool, shape (len(values),)."""
    return pd.Series(_objects(values), dtype=object).isin(list(allowed)).to_numpy(dtype=bool)


def _code_list(codes) -> list:
    """Transformed values as a list (a single value, or any iterable, consumed once)."""
    if isinstance(codes, str) or not isinstance(codes, Iterable):
        return [codes]
    return list(codes)


def _check_choice(name: str, value, choices: Sequence[str]) -> None:
    if value not in choices:
        raise ParameterError(f"{name} must be one of {', '.join(map(repr, choices))}; "
                             f"got {value!r}")


def _quantile_cuts(values: np.ndarray, n_bins: int) -> np.ndarray:
    """Distinct data values at the quantiles ``i / n_bins``, below the maximum."""
    if len(values) == 0 or n_bins < 2:
        return values[:0]
    ordered = np.sort(values)
    n = len(ordered)
    at = [(i * n + n_bins - 1) // n_bins - 1 for i in range(1, n_bins)]   # exact integers
    cuts = np.unique(ordered[at])
    return cuts[cuts < values.max()]


def _as_frame(X) -> pd.DataFrame:
    if isinstance(X, pd.DataFrame):
        if len(set(map(str, X.columns))) != X.shape[1]:
            raise DataError(f"column names are not unique: {list(X.columns)}")
        return X.rename(columns=str) if not all(isinstance(c, str) for c in X.columns) else X
    if hasattr(X, "toarray") or hasattr(X, "tocsr"):
        raise DataError("sparse matrices are not supported; pass a dense array (X.toarray())")
    arr = np.asarray(X, dtype=object) if not isinstance(X, np.ndarray) else X
    if arr.ndim != 2:
        raise InstanceShapeError(f"X must be 2-dimensional (rows x columns), got shape "
                                 f"{arr.shape}")
    return pd.DataFrame(arr, columns=[f"x{j}" for j in range(arr.shape[1])])


def _parse_dates(col: pd.Series) -> pd.Series:
    """Timestamps (naive, UTC for tz-aware input) of a column; NaT where missing or
    unparseable."""
    if isinstance(col.dtype, pd.DatetimeTZDtype):
        out = col.dt.tz_convert("UTC").dt.tz_localize(None)
    elif pd.api.types.is_datetime64_any_dtype(col.dtype):
        out = col
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                out = pd.to_datetime(col, errors="coerce")
            except (TypeError, ValueError, OverflowError):
                out = pd.Series(pd.NaT, index=col.index)
            if isinstance(out.dtype, pd.DatetimeTZDtype):
                out = out.dt.tz_convert("UTC").dt.tz_localize(None)
    try:
        return out.astype("datetime64[ns]")
    except (pd.errors.OutOfBoundsDatetime, OverflowError):   # beyond 1677..2262: missing
        inside = out.notna() & (out >= pd.Timestamp.min) & (out <= pd.Timestamp.max)
        return out.where(inside).astype("datetime64[ns]")


def _looks_like_dates(col: pd.Series, threshold: float,
                      counts: tuple[list, np.ndarray] | None = None) -> bool:
    """Whether at least ``threshold`` of the non-missing cells (text) parse as dates and fewer
    than ``threshold`` parse as numbers (distinct values parsed once, weighted by count).

    ``counts``: ``col.dropna().value_counts()``'s index and counts, when the caller has them.
    The distinct values are parsed most frequent first, in prefixes of 1, 8, 64, ... values,
    and the answer is no as soon as the values that failed weigh more than
    ``1 - threshold``: a column of words is known after its most frequent value. (A value
    that fails in a prefix fails in the whole list: ``pandas.to_datetime`` guesses the
    format from the first value, which every prefix shares, and what fails the whole list
    at once, such as mixed time zones, fails the prefixes that hold it too.)
    """
    if counts is None:
        found = col.dropna().value_counts()
        counts = (list(found.index), found.to_numpy())
    index, sizes = counts
    if len(index) == 0 or not all(isinstance(v, str) for v in index[:1000]):
        return False
    sizes = np.asarray(sizes[:5000], dtype=np.float64)
    values = pd.Series(_objects(index[:5000]), dtype=object)
    weight = sizes / sizes.sum()
    numbers_ = pd.to_numeric(values, errors="coerce").notna().to_numpy()
    if weight[numbers_].sum() >= threshold:
        return False
    stop = 1
    while stop < len(values):
        parsed = _parse_dates(values.iloc[:stop]).notna().to_numpy()
        if weight[:stop][~parsed].sum() > 1 - threshold + 1e-9:
            return False
        stop *= 8
    return bool(weight[_parse_dates(values).notna().to_numpy()].sum() >= threshold)


def _columns_arg(name: str, value, columns: Sequence[str]) -> set[str]:
    """The columns a ``bool | list of names`` parameter selects (``True``: all)."""
    if value is None or value is False:
        return set()
    if value is True:
        return set(columns)
    if isinstance(value, str):
        value = [value]
    out = set()
    for c in value:
        if str(c) not in columns:
            raise ParameterError(f"{name} names {c!r}, which is not a column; the columns "
                                 f"are: {', '.join(columns)}")
        out.add(str(c))
    return out


# ---------------------------------------------------------------------------- transformer
class Preprocessor(TransformerMixin, BaseEstimator):
    """Per-column binning, grouping and ordinal encoding of a table, invertible for reports.

    The data preparation of Section "Data Pre-processing Pipeline" of *Using Decision Trees
    for Interpretable Supervised Clustering*; see the module docstring for each treatment.

    Parameters
    ----------
    n_bins : int, default 10
        Largest number of bins of a numeric or date column (percentile binning).
    date_binning : {"frequency", "equal-width"}, default "frequency"
    max_categories : int, default 20
        Categorical columns with more distinct values (:data:`MISSING` counted) are grouped.
    n_groups : int, default 10
        The number of groups of a grouped column.
    grouping : {"frequency", "equal-width", "similarity"} or dict, default "frequency"
        The grouping method, or a dict ``{column: method}`` (other columns: ``"frequency"``).
    ordinal : bool or list of str, default False
        Categorical columns to encode as ordinal codes (``True``: all of them).
    reorder : bool or list of str, default False
        Categorical columns to order by their share of rows in class ``positive`` (symbolic
        reordering; implies ordinal). Needs ``y`` at ``fit``.
    positive : object, optional
        The target class of the reordering; by default the larger of two classes.
    drop_ids : bool, default True
        Drop id-like columns before any grouping or reordering (:func:`id_column_reason`:
        all-distinct or mostly one-row text values, or text with at least half as many
        distinct values as rows and 20 or more of them; distinct integers in a column whose
        name starts or ends with ``id``), with the reason in :attr:`dropped_`, except the
        columns named in ``keep``, ``ordinal`` or ``reorder``; a text column with missing
        cells whose filled cells alone are id-like by the same test is reduced to known /
        missing instead (:attr:`reduced_`).
    keep : list of str, optional
        Columns never dropped as id-like (``xdt cluster --keep``): a category with many
        values that the user knows to be one (states in a small table), not a code.
    categorical : list of str, optional
        Numeric columns to treat as categorical (integer-coded categories).
    date_threshold : float, default 0.95
        Share of the non-missing cells of a text column that must parse as dates.

    Attributes
    ----------
    columns_ : dict of str to ColumnTreatment
        The kept columns, in order, with their treatment.
    dropped_ : dict of str to str
        Dropped columns and why.
    reduced_ : dict of str to str
        Columns reduced to known / missing (:attr:`ColumnTreatment.known_only`) and why:
        the reason :func:`id_column_reason` gives for their filled cells.
    feature_names_in_ : numpy.ndarray of str
    n_features_in_ : int
    """

    def __init__(self, n_bins: int = 10, date_binning: str = "frequency",
                 max_categories: int = 20, n_groups: int = 10,
                 grouping: str | Mapping[str, str] = "frequency",
                 ordinal: bool | Sequence[str] = False, reorder: bool | Sequence[str] = False,
                 positive=None, drop_ids: bool = True, categorical: Sequence[str] | None = None,
                 date_threshold: float = 0.95, keep: Sequence[str] | None = None):
        self.n_bins = n_bins
        self.date_binning = date_binning
        self.max_categories = max_categories
        self.n_groups = n_groups
        self.grouping = grouping
        self.ordinal = ordinal
        self.reorder = reorder
        self.positive = positive
        self.drop_ids = drop_ids
        self.categorical = categorical
        self.date_threshold = date_threshold
        self.keep = keep

    # ------------------------------------------------------------------ fit
    def _check_params(self) -> None:
        check_int("n_bins", self.n_bins, 1)
        check_int("max_categories", self.max_categories, 1)
        check_int("n_groups", self.n_groups, 1)
        _check_choice("date_binning", self.date_binning, _DATE_BINNINGS)
        if isinstance(self.grouping, Mapping):
            for method in self.grouping.values():
                _check_choice("grouping", method, _GROUPINGS)
        else:
            _check_choice("grouping", self.grouping, _GROUPINGS)
        if not (isinstance(self.date_threshold, numbers.Real)
                and 0 < float(self.date_threshold) <= 1):
            raise ParameterError(f"date_threshold must be in (0, 1], got "
                                 f"{self.date_threshold!r}")

    def fit(self, X, y=None) -> Preprocessor:
        """Choose every column's treatment.

        Parameters
        ----------
        X : pandas.DataFrame, or 2-d array (columns named ``x0, x1, ...``)
        y : array-like of shape (n,), optional
            The class of each row; needed for ``reorder``.

        Returns
        -------
        self

        Raises
        ------
        ParameterError
            A parameter out of range, ``reorder`` without ``y``, or an unknown column name.
        DataError
            No rows, infinite numbers, repeated column names.
        InstanceShapeError
            ``X`` not 2-d, or ``y`` of the wrong length.
        """
        self._fit(X, y, {})
        return self

    def _fit(self, X, y, values: dict[str, _Values]) -> pd.DataFrame:
        """:meth:`fit`; leaves in ``values`` the :func:`_factorize` of the categorical columns
        (each column's values are hashed once) and returns ``X`` as a DataFrame."""
        self._check_params()
        frame = _as_frame(X)
        names = [str(c) for c in frame.columns]
        if len(frame) == 0:
            raise DataError("X has no rows; fit needs at least one")
        forced = _columns_arg("categorical", self.categorical, names)
        ordinal = _columns_arg("ordinal", self.ordinal, names)
        reorder = _columns_arg("reorder", self.reorder, names)
        keep = _columns_arg("keep", self.keep, names)
        grouping = dict(self.grouping) if isinstance(self.grouping, Mapping) else {}
        _columns_arg("grouping", list(grouping), names)
        positive_rows = self._positive_rows(y, len(frame)) if reorder else None
        self.columns_: dict[str, ColumnTreatment] = {}
        self.dropped_: dict[str, str] = {}
        self.reduced_: dict[str, str] = {}
        for name in names:
            col = frame[name]
            kind = self._kind(name, col, forced, values)
            if kind == "categorical" and name not in values:
                values[name] = _factorize(col)
            asked = [arg for arg, value, chosen in (("ordinal", self.ordinal, ordinal),
                                                     ("reorder", self.reorder, reorder))
                     if value is not True and name in chosen]
            if asked and kind != "categorical":
                raise ParameterError(
                    f"{asked[0]} names column {name!r}, which is {kind}, not categorical; "
                    "ordinal encoding and reordering apply to categorical columns (list a "
                    "numeric column in categorical= to treat it as categorical)")
            if name in keep:
                asked.append("keep")
            counts = (values[name].counts if self.drop_ids and not asked
                      and kind == "categorical" and not isinstance(col.dtype, pd.CategoricalDtype)
                      else None)
            if self.drop_ids and not asked and (reason := id_column_reason(col, kind, counts)):
                self.dropped_[name] = reason
                continue
            known_only = False
            if self.drop_ids and not asked and kind == "categorical" \
                    and (reason := self._filled_cells_id_reason(col)):
                self.reduced_[name] = reason
                known_only = True
            if kind == "binary":
                t = ColumnTreatment(name, "binary", (False, True))
            elif kind == "numeric":
                t = self._fit_numeric(name, col)
            elif kind == "date":
                t = self._fit_date(name, col)
            else:
                method = grouping.get(name, "frequency" if isinstance(self.grouping, Mapping)
                                      else self.grouping)
                t = self._fit_categorical(name, col, method, name in ordinal or name in reorder,
                                          positive_rows if name in reorder else None,
                                          values[name], known_only=known_only)
            index = {c: i for i, c in enumerate(t.codes)}
            object.__setattr__(t, "_index", index)
            self.columns_[name] = t
        self.feature_names_in_ = np.asarray(names, dtype=object)
        self.n_features_in_ = len(names)
        return frame

    @staticmethod
    def _filled_cells_id_reason(col: pd.Series) -> str | None:
        """:func:`id_column_reason` of the filled cells of a text column with missing cells
        (``None`` for a column without them, or whose filled cells are not id-like)."""
        missing = col.isna()
        if not missing.any():
            return None
        return id_column_reason(col[~missing].reset_index(drop=True), "categorical",
                                rows="filled cells")

    def summary(self) -> str:
        """One line per column: its treatment (:meth:`ColumnTreatment.describe`), then the
        columns reduced to known / missing and the dropped columns, and why."""
        self._check_fitted()
        lines = [t.describe() for t in self.columns_.values()]
        lines += [f"{name}: reduced to known / missing, {why}"
                  for name, why in self.reduced_.items()]
        lines += [f"{name}: dropped, {why}" for name, why in self.dropped_.items()]
        return "\n".join(lines)

    def _positive_rows(self, y, n: int) -> np.ndarray:
        if y is None:
            raise ParameterError("reorder needs the class of every row: call fit(X, y)")
        y = np.asarray(y, dtype=object).reshape(-1)
        if len(y) != n:
            raise InstanceShapeError(f"y has {len(y)} labels but X has {n} rows")
        classes = sorted({_plain(v) for v in y}, key=_sort_key)
        positive = self.positive
        if positive is None:
            if len(classes) != 2:
                raise ParameterError(f"reorder with {len(classes)} classes needs positive= "
                                     f"(one of {classes})")
            positive = classes[1]
        if positive not in classes:
            raise ParameterError(f"positive={positive!r} is not a class of y; the classes are "
                                 f"{classes}")
        self.positive_ = positive
        return np.asarray([_plain(v) == positive for v in y], dtype=bool)

    def _kind(self, name: str, col: pd.Series, forced: set[str],
              values: dict[str, _Values]) -> str:
        """The column's kind; a text column's :func:`_factorize` is left in ``values``."""
        if name in forced:
            return "categorical"
        dtype = col.dtype
        if pd.api.types.is_bool_dtype(dtype) and not col.isna().any():
            return "binary"
        if pd.api.types.is_datetime64_any_dtype(dtype):
            return "date"
        if isinstance(dtype, pd.CategoricalDtype):
            return "categorical"
        if pd.api.types.is_numeric_dtype(dtype):
            return "numeric"
        if not isinstance(dtype, pd.StringDtype):   # text is neither bools nor numbers
            present = col.dropna()
            if len(present) and all(isinstance(v, bool | np.bool_) for v in present):
                return "binary" if len(present) == len(col) else "categorical"
            if len(present) and all(isinstance(v, numbers.Real) and not isinstance(v, bool)
                                    for v in present):
                return "numeric"
        values[name] = _factorize(col)
        if _looks_like_dates(col, float(self.date_threshold), values[name].value_counts()):
            return "date"
        return "categorical"

    def _fit_numeric(self, name: str, col: pd.Series) -> ColumnTreatment:
        values = self._numbers(name, col)
        present = values[~np.isnan(values)]
        cuts = _quantile_cuts(present, int(self.n_bins))
        return self._binned(name, "numeric", tuple(float(c) for c in cuts),
                            len(present) > 0, len(present) < len(values))

    def _fit_date(self, name: str, col: pd.Series) -> ColumnTreatment:
        stamps = _parse_dates(col)
        present = stamps.dropna().to_numpy().astype(np.int64)
        if self.date_binning == "frequency" or len(present) == 0:
            cuts = _quantile_cuts(present, int(self.n_bins))
        else:
            lo, hi = int(present.min()), int(present.max())
            raw = np.linspace(lo, hi, int(self.n_bins) + 1)[1:-1]
            day = 86_400 * 10**9
            unit = day if (present % day == 0).all() else 10**9   # whole days, else seconds
            cuts = np.unique(np.round(raw / unit).astype(np.int64) * unit)
            cuts = cuts[(cuts >= lo) & (cuts < hi)]
        return self._binned(name, "date", tuple(pd.Timestamp(int(c)) for c in cuts),
                            len(present) > 0, len(present) < len(stamps))

    @staticmethod
    def _binned(name: str, kind: str, cuts: tuple, has_values: bool,
                has_missing: bool) -> ColumnTreatment:
        b = len(cuts) + 1 if has_values else 0
        codes = tuple(range(b + has_missing))
        return ColumnTreatment(name, kind, codes, cuts=cuts,
                               missing_code=b if has_missing else None)

    @staticmethod
    def _numbers(name: str, col: pd.Series) -> np.ndarray:
        try:
            values = pd.to_numeric(col, errors="raise").to_numpy(dtype=np.float64,
                                                                 na_value=np.nan)
        except (TypeError, ValueError):
            raise DataError(f"column {name!r} mixes numbers and other values; make it all "
                            "numbers or list it in categorical=") from None
        if np.isinf(values).any():
            raise DataError(f"column {name!r} has {int(np.isinf(values).sum())} infinite "
                            "value(s); replace them by finite numbers or NaN")
        return values

    def _fit_categorical(self, name: str, col: pd.Series, method: str, ordinal: bool,
                         positive_rows: np.ndarray | None,
                         values: _Values | None = None, *,
                         known_only: bool = False) -> ColumnTreatment:
        """One categorical column's treatment (grouped, ordered and coded); ``known_only``:
        two groups, the known values and :data:`MISSING` (which the column must hold)."""
        values = _factorize(col) if values is None else values
        codes_in, uniques = values.codes, values.uniques
        counts = dict(values.counts)
        if isinstance(col.dtype, pd.CategoricalDtype):
            natural = [_plain(v) for v in col.dtype.categories if _plain(v) in counts]
            if MISSING in counts:
                natural.append(MISSING)
        else:
            natural = sorted((v for v in counts if v != MISSING), key=_sort_key)
            if MISSING in counts:
                natural.append(MISSING)
        grouping = None
        if known_only:
            groups = [[v for v in natural if v != MISSING], [MISSING]]
        elif len(natural) > int(self.max_categories):
            grouping = method
            groups = group_values(natural, [int(counts[v]) for v in natural],
                                  int(self.n_groups), method)
        else:
            groups = [[v] for v in natural]
        reordered = positive_rows is not None
        if reordered:
            size = np.bincount(codes_in, minlength=len(uniques))
            tp = np.bincount(codes_in, weights=positive_rows, minlength=len(uniques))
            keyed = []
            for i, g in enumerate(groups):
                inside = _isin(uniques, g)
                keyed.append((float(tp[inside].sum() / size[inside].sum()), i))
            groups = [groups[i] for _, i in sorted(keyed)]
        groups_t = tuple(tuple(g) for g in groups)
        order = tuple(v for g in groups_t for v in g)
        missing_at = next((i for i, g in enumerate(groups_t) if MISSING in g), None)
        if ordinal or reordered:
            codes: tuple = tuple(range(len(groups_t)))
            kind = "ordinal"
        else:
            codes = tuple(KNOWN if known_only and i != missing_at
                          else g[0] if len(g) == 1 else f"<group {i}>"
                          for i, g in enumerate(groups_t))
            kind = "nominal"
        return ColumnTreatment(name, kind, codes, groups=groups_t, order=order,
                               grouping=grouping, reordered=reordered,
                               missing_code=None if missing_at is None else codes[missing_at],
                               known_only=known_only)

    @staticmethod
    def _labels(col: pd.Series) -> pd.Series:
        """The column as plain Python values, :data:`MISSING` for missing cells."""
        values = _factorize(col)
        return pd.Series(_objects(values.uniques)[values.codes], index=col.index, dtype=object)

    # ------------------------------------------------------------------ transform
    def _check_fitted(self) -> None:
        if not hasattr(self, "columns_"):
            raise LearnerNotFittedError(
                f"this {type(self).__name__} is not fitted yet; call fit(X) first")

    def _frame(self, X) -> pd.DataFrame:
        self._check_fitted()
        frame = _as_frame(X)
        absent = [c for c in self.columns_ if c not in frame.columns]
        if absent:
            raise InstanceShapeError(f"X lacks the fitted column(s) {', '.join(absent)}")
        return frame

    def transform(self, X) -> pd.DataFrame:
        """The transformed table: the kept columns, in order, as bin numbers / codes (int64),
        labels (pandas ``category`` with the labels in code order) or bools.

        Raises
        ------
        NotFittedError, InstanceShapeError
        UnknownCategoryError
            A categorical value not seen at ``fit`` (in a column reduced to known / missing,
            such a value is a known one).
        DataError
            A non-number in a numeric column.
        """
        frame = self._frame(X)
        out = {name: self._transform_column(t, frame[name]) for name, t in self.columns_.items()}
        return pd.DataFrame(out, index=frame.index)

    def fit_transform(self, X, y=None, **fit_params) -> pd.DataFrame:
        """``fit(X, y)`` then ``transform(X)`` (each categorical column's values hashed once
        for both)."""
        values: dict[str, _Values] = {}
        frame = self._fit(X, y, values)
        out = {name: self._transform_column(t, frame[name], values.get(name))
               for name, t in self.columns_.items()}
        return pd.DataFrame(out, index=frame.index)

    def _transform_column(self, t: ColumnTreatment, col: pd.Series,
                          factorized: _Values | None = None) -> pd.Series:
        """One column transformed; ``factorized``: the column's :func:`_factorize`, when
        known."""
        if t.kind == "binary":
            if col.isna().any():
                raise UnknownCategoryError(f"column {t.name!r} is binary at fit but has "
                                           "missing values now")
            return col.astype(bool)
        if t.is_binned:
            if t.kind == "numeric":
                values = self._numbers(t.name, col)
                missing = np.isnan(values)
            else:
                stamps = _parse_dates(col)
                missing = stamps.isna().to_numpy()
                values = stamps.to_numpy().astype(np.int64)
            cuts = (np.asarray(t.cuts, dtype=np.float64) if t.kind == "numeric"
                    else np.asarray([c.value for c in t.cuts], dtype=np.int64))
            codes = _bins(cuts, values, col.to_numpy() if t.kind == "numeric" else None)
            if missing.any():
                if t.missing_code is None:
                    raise UnknownCategoryError(
                        f"column {t.name!r} had no missing values at fit but has "
                        f"{int(missing.sum())} now; refit on data with missing values")
                codes[missing] = t.missing_code
            if t.missing_code is not None and t.missing_code == 0:   # only missing at fit
                if (~missing).any():
                    raise UnknownCategoryError(f"column {t.name!r} was all missing at fit")
            return pd.Series(codes, index=col.index, dtype=np.int64)
        factorized = _factorize(col) if factorized is None else factorized
        codes, uniques = factorized.codes, factorized.uniques
        lookup = {v: i for i, g in enumerate(t.groups) for v in g}   # value -> position
        unseen = sorted({v for v in uniques if v not in lookup}, key=_sort_key)
        if unseen and t.known_only:   # a value never seen is a known one
            lookup.update((v, t.known_position) for v in unseen)
        elif unseen:
            raise UnknownCategoryError(
                f"column {t.name!r} has value(s) not seen at fit: {unseen[:5]}; refit, or "
                "map them to known values")
        position = np.asarray([lookup[v] for v in uniques], dtype=np.int64)[codes]
        if t.kind == "ordinal":
            ordinal = np.asarray(t.codes, dtype=np.int64)[position]
            return pd.Series(ordinal, index=col.index, dtype=np.int64)
        return pd.Series(pd.Categorical.from_codes(position, categories=list(t.codes)),
                         index=col.index)

    # ------------------------------------------------------------------ inversion
    def _treatment(self, column: str) -> ColumnTreatment:
        self._check_fitted()
        if column not in self.columns_:
            where = (f" (dropped: {self.dropped_[column]})" if column in self.dropped_ else "")
            raise UnknownFeatureError(f"{column!r} is not a transformed column{where}; the "
                                      f"columns are: {', '.join(self.columns_)}")
        return self.columns_[column]

    def _positions(self, t: ColumnTreatment, codes: Iterable) -> list[int]:
        if isinstance(codes, str) or not isinstance(codes, Iterable):
            codes = [codes]
        out = set()
        for c in codes:
            c = _plain(c)
            if isinstance(c, float) and c.is_integer() and t.kind != "nominal":
                c = int(c)
            if (isinstance(c, bool | np.bool_) and t.kind != "binary") or c not in t._index:
                raise ParameterError(f"{c!r} is not a transformed value of column {t.name!r}; "
                                     f"its values are {list(t.codes)}")
            out.add(t._index[c])
        return sorted(out)

    def transformed_values(self, column: str) -> tuple:
        """The transformed values of ``column``, in order (see :attr:`ColumnTreatment.codes`)."""
        return self._treatment(column).codes

    def inverse_values(self, column: str, code) -> list | Condition:
        """What one transformed value stands for: the original values of a category or group
        (a list), or, for a bin, its :class:`~xdt.ir.Condition` (an empty list for the missing
        bin, whose cells are missing)."""
        t = self._treatment(column)
        i = self._positions(t, [code])[0]
        if t.is_binned:
            if t.codes[i] == t.missing_code:
                return []
            cond = self.condition(column, [code])
            return cond if cond is not None else Condition(column, above=-math.inf)
        if t.kind == "binary":
            return [t.codes[i]]
        return list(t.groups[i])

    def allows_missing(self, column: str, codes: Iterable) -> bool:
        """Whether the transformed values ``codes`` include the missing bin / category."""
        codes = _code_list(codes)
        t = self._treatment(column)
        return t.missing_code is not None and t._index[t.missing_code] in self._positions(
            t, codes)

    def conditions(self, column: str, codes: Iterable) -> tuple[Condition, ...]:
        """The disjunction of conditions on the original column that holds exactly for the
        rows whose transformed value is in ``codes`` — for numeric and date columns, one
        interval per run of consecutive bins, on the non-missing values (see
        :meth:`allows_missing`); for categorical and binary columns, one condition on the
        set of original values (:data:`MISSING` standing for missing cells; for a column
        reduced to known / missing, the known side is the known values seen at fit, while
        :meth:`evaluate` takes values never seen as known ones too). An empty tuple:
        no non-missing value is allowed. An unrestricted numeric column gives one condition
        ``-inf < x``.

        Raises
        ------
        UnknownFeatureError
            Not a kept column.
        ParameterError
            A code that is not a transformed value of the column.
        """
        codes = _code_list(codes)
        t = self._treatment(column)
        pos = self._positions(t, codes)
        if t.is_binned:
            bins = [p for p in pos if t.codes[p] != t.missing_code]
            runs: list[list[int]] = []
            for b in bins:
                if runs and runs[-1][-1] == b - 1:
                    runs[-1].append(b)
                else:
                    runs.append([b])
            cls = DateCondition if t.kind == "date" else Condition
            out = []
            for run in runs:
                lo, hi = run[0], run[-1]
                above = t.cuts[lo - 1] if lo > 0 else None
                upto = t.cuts[hi] if hi < t.n_bins - 1 else None
                if above is None and upto is None:
                    above = -math.inf if t.kind == "numeric" else pd.Timestamp.min
                out.append(cls(column, above=above, upto=upto))
            return tuple(out)
        if not pos:
            return ()
        if t.kind == "binary":
            return (Condition(column, tuple(t.codes[p] for p in pos)),)
        return (Condition(column, tuple(v for p in pos for v in t.groups[p])),)

    def condition(self, column: str, codes: Iterable) -> Condition | None:
        """The :class:`~xdt.ir.Condition` on the original column for the transformed values
        ``codes``: bounds ``above < x <= upto`` from the cut points for a run of consecutive
        bins (numeric; :class:`DateCondition` for dates), the set of original values for
        categorical columns. ``None`` when every value is allowed (numeric and date columns: every
        non-missing value).

        It is exact on non-missing values; whether missing values are selected is
        :meth:`allows_missing` (an IR condition cannot name NaN; for categorical columns the
        value :data:`MISSING` stands for them). :meth:`evaluate` applies both.

        Raises
        ------
        ParameterError
            The codes are not one condition (bins that are not consecutive: use
            :meth:`conditions`; only the missing bin: use :meth:`describe`), or a code is not
            a transformed value.
        UnknownFeatureError
            Not a kept column.
        """
        codes = _code_list(codes)
        t = self._treatment(column)
        conds = self.conditions(column, codes)
        if t.is_binned:
            if len(conds) != 1:
                raise ParameterError(
                    f"the bins {list(codes)} of {column!r} are "
                    + ("not consecutive" if conds else "only the missing bin")
                    + "; use conditions() (a disjunction) or describe()")
            c = conds[0]
            if c.upto is None and c.above in (-math.inf, pd.Timestamp.min):
                return None
            return c
        if not conds:
            raise ParameterError(f"no value of {column!r} allowed: codes is empty")
        domain = t.order if t.kind != "binary" else t.codes
        return None if len(conds[0].values) == len(domain) else conds[0]

    def evaluate(self, column: str, codes: Iterable, X) -> np.ndarray:
        """The rows of ``X`` (original values) that :meth:`conditions` and
        :meth:`allows_missing` select for ``codes``: bool, shape (n,)."""
        codes = _code_list(codes)
        t = self._treatment(column)
        col = _as_frame(X)[column]
        conds = self.conditions(column, codes)
        if t.is_binned:
            if t.kind == "numeric":   # numbers: numpy's comparisons (NaN: false), as pandas'
                values = self._numbers(column, col)
                missing = np.isnan(values)
            else:
                values = _parse_dates(col)
                missing = values.isna().to_numpy()
            out = np.zeros(len(col), dtype=bool)
            for c in conds:
                ok = np.ones(len(col), dtype=bool)
                if c.above is not None:
                    ok &= np.asarray(values > c.above, dtype=bool)
                if c.upto is not None:
                    ok &= np.asarray(values <= c.upto, dtype=bool)
                out |= ok & ~missing
            if self.allows_missing(column, codes):
                out |= missing
            return out
        if t.kind == "binary":
            return col.isin(conds[0].values).to_numpy() if conds else np.zeros(len(col), bool)
        if not conds:
            return np.zeros(len(col), bool)
        values = _factorize(col)
        if t.known_only:   # every known value, unseen ones too, on the known side
            missing = _isin(values.uniques, [MISSING])
            allowed_missing = self.allows_missing(column, codes)
            allowed_known = t.known_position in self._positions(t, codes)
            return np.where(missing, allowed_missing, allowed_known)[values.codes]
        return _isin(values.uniques, conds[0].values)[values.codes]

    def describe(self, column: str, codes: Iterable) -> str:
        """The transformed values ``codes`` of ``column`` as text in original values.

        ``Age <= 28``, ``30 < Age <= 40``, ``Age > 40``, ``Age <= 20 or Age > 30``,
        ``Age is missing``, ``Age <= 28 or Age is missing``, ``Age is not missing``;
        ``2020-01-01 < Date <= 2020-03-01``; ``Sex = female``, ``Embarked in {C, Q}``, and,
        when fewer values are excluded than allowed (the paper's "reverting the path
        clause"), ``Country != US`` or ``Country not in {US, CA}``; a column reduced to known
        / missing, ``Cabin != (missing)`` or ``Cabin = (missing)``. Every value allowed:
        ``Age is any value``.
        """
        codes = _code_list(codes)
        t = self._treatment(column)
        pos = self._positions(t, codes)
        if not pos:
            return f"{column} is no value"
        if len(pos) == len(t.codes):
            return f"{column} is any value"
        if t.is_binned:
            miss = self.allows_missing(column, codes)
            conds = self.conditions(column, codes)
            if not conds:
                return f"{column} is missing"
            parts = [self._interval_text(c) for c in conds]
            if len(parts) == 1 and parts[0] is None:
                return f"{column} is not missing"
            text = " or ".join(p for p in parts if p is not None)
            return text + (f" or {column} is missing" if miss else "")
        if t.kind == "binary":
            return f"{column} = {t.codes[pos[0]]}"
        if t.known_only:
            return (f"{column} = {MISSING}" if self.allows_missing(column, codes)
                    else f"{column} != {MISSING}")
        allowed = [v for p in pos for v in t.groups[p]]
        excluded = [v for p, g in enumerate(t.groups) if p not in pos for v in g]
        if len(excluded) < len(allowed):
            if len(excluded) == 1:
                return f"{column} != {_fmt_value(excluded[0])}"
            return f"{column} not in {{{', '.join(map(_fmt_value, excluded))}}}"
        if len(allowed) == 1:
            return f"{column} = {_fmt_value(allowed[0])}"
        return f"{column} in {{{', '.join(map(_fmt_value, allowed))}}}"

    @staticmethod
    def _interval_text(c: Condition) -> str | None:
        fmt = _fmt_date if isinstance(c, DateCondition) else _fmt_number
        if c.above in (-math.inf, pd.Timestamp.min) and c.upto is None:
            return None
        if c.above is None:
            return f"{c.feature} <= {fmt(c.upto)}"
        if c.upto is None:
            return f"{c.feature} > {fmt(c.above)}"
        return f"{fmt(c.above)} < {c.feature} <= {fmt(c.upto)}"

    # ------------------------------------------------------------------ tree paths
    def codes_where(self, condition: Condition) -> tuple:
        """The transformed values of ``condition.feature`` that satisfy ``condition``, a
        condition on the *transformed* column (a tree's literal: ``code <= 2.5``,
        ``2.5 < code``, ``label in {...}``)."""
        t = self._treatment(condition.feature)
        if condition.values is not None:
            allowed = {_plain(v) for v in condition.values}
            return tuple(c for c in t.codes if c in allowed)
        return tuple(c for c in t.codes
                     if (condition.above is None or c > condition.above)
                     and (condition.upto is None or c <= condition.upto))

    def allowed_codes(self, conditions: Iterable[Condition]) -> dict[str, tuple]:
        """Per column, the transformed values that satisfy all of ``conditions`` (conditions on
        transformed columns, e.g. the tests of a tree path), in column and code order."""
        allowed: dict[str, set] = {}
        for cond in conditions:
            codes = set(self.codes_where(cond))
            allowed[cond.feature] = allowed.get(cond.feature, codes) & codes
        return {name: tuple(c for c in t.codes if c in allowed[name])
                for name, t in self.columns_.items() if name in allowed}

    def path_codes(self, tree, path) -> dict[str, tuple]:
        """Per column tested on ``path`` (an :class:`xdt.ir.Path` of ``tree``, an
        :class:`xdt.ir.DecisionTree` learned on the output of :meth:`transform`, e.g.
        ``CARTClassifier().fit(pre.transform(X), y).tree_``), the transformed values whose
        cell is on the path; pass it to :meth:`describe_codes` or :meth:`evaluate_codes`."""
        out: dict[str, tuple] = {}
        for fi, mask in path.masks.items():
            name = tree.features[fi].name
            t = self._treatment(name)
            cells = tree.cells[fi]
            out[name] = tuple(c for c in t.codes if (mask >> cells.cell_of(c)) & 1)
        return {name: out[name] for name in self.columns_ if name in out}

    def describe_codes(self, allowed: Mapping[str, Iterable]) -> str:
        """A conjunction ``{column: transformed values}`` as text in original values: the
        :meth:`describe` of every column joined by ``AND`` (a description with ``or`` in
        parentheses); ``TRUE`` when empty."""
        parts = []
        for name, codes in allowed.items():
            text = self.describe(name, codes)
            parts.append(f"({text})" if " or " in text else text)
        return " AND ".join(parts) if parts else "TRUE"

    def describe_path(self, conditions: Iterable[Condition]) -> str:
        """Conditions on transformed columns (a tree path: ``Condition(col, upto=t)`` for a
        left branch ``code <= t``, ``Condition(col, above=t)`` for the right one,
        ``Condition(col, values)`` for a categorical branch) as text in original values:
        ``describe_codes(allowed_codes(conditions))``."""
        return self.describe_codes(self.allowed_codes(conditions))

    def evaluate_codes(self, allowed: Mapping[str, Iterable], X) -> np.ndarray:
        """The rows of ``X`` (original values) that satisfy, on every column of ``allowed``,
        the conditions of its transformed values (:meth:`evaluate`): bool, shape (n,)."""
        frame = _as_frame(X)
        out = np.ones(len(frame), dtype=bool)
        for name, codes in allowed.items():
            out &= self.evaluate(name, codes, frame)
        return out

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        tags.input_tags.allow_nan = True
        tags.requires_fit = True
        return tags
