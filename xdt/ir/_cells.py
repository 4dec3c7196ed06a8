"""Cells: a model's partition of each feature's domain.

Two points whose values lie in the same cells, feature by feature, are indistinguishable to
the model. Cells are numbered ``0 .. n_cells-1`` and a *set* of cells is an ``int`` bit mask
(bit ``j`` set = cell ``j`` allowed), so intersection is ``&`` and emptiness is ``== 0``.

* :class:`CategoricalCells` — one cell per domain value (categorical and binary features).
* :class:`IntervalCells` — for an ordinal feature tested on sorted thresholds
  ``t_0 < ... < t_{m-1}``: cell ``j`` is the left-open, right-closed interval
  ``(t_{j-1}, t_j]`` (with ``t_{-1} = -inf`` and ``t_m = +inf``), so ``x <= t_j`` is exactly
  the cells ``0..j`` — the test a decision tree sends left. Text shows each threshold by
  :func:`xdt.ir._values.display_threshold` for the cells' ``input_dtype``, and a value is
  accepted only when it is finite in that precision (``|x| <= 3.4028235e+38`` for float32, as
  scikit-learn requires).

Values, one rule for one value and for a column
-----------------------------------------------
``cell_of`` (one value: an instance) and ``encode`` (a column: a table) accept the same
values and raise the same error class for each bad one:

* an **ordinal** feature reads a real number (:func:`is_number`): a Python ``int`` or
  ``float``, a numpy integer or float, a ``fractions.Fraction`` or a ``decimal.Decimal``.
  A bool is refused (``True`` is no measurement), and so is text (``"5"``, ``b"1"``: a CSV
  file's text is read into numbers once, when the file is read, by
  :func:`xdt.interop._csvfile.number_columns`), a complex number or a date:
  :class:`~xdt.errors.InstanceError`. A missing value (``None``, NaN, ``pd.NA``) raises
  :class:`~xdt.errors.MissingValueError`; an infinite number, or one beyond the range the
  model compares, :class:`~xdt.errors.ValueOutOfRangeError`.
* a **categorical** or **binary** feature reads a value of its domain; a number equal to a
  numeric domain value reads as it (``1.0``, ``np.int8(1)``, ``Decimal(1)`` and ``True``
  for the value ``1``), text never matches a number (``"1"`` is not ``1``): any other value
  raises :class:`~xdt.errors.UnknownCategoryError`, a missing one
  :class:`~xdt.errors.MissingValueError`.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Hashable, Iterable, Iterator
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pandas as pd

from xdt.errors import (
    InstanceError,
    InvalidModelError,
    MissingValueError,
    UnknownCategoryError,
    ValueOutOfRangeError,
)
from xdt.ir._values import (
    INPUT_DTYPES,
    display_threshold,
    format_number,
    lower_text,
    shortest_between,
    upper_text,
)

_FLOAT32_MAX_TEXT = np.format_float_scientific(np.finfo(np.float32).max, unique=True, trim="-")
"""``3.4028235e+38``: the shortest text that reads back as float32's largest value, as float32."""


def full_mask(n_cells: int) -> int:
    """The bit mask allowing all ``n_cells`` cells."""
    return (1 << n_cells) - 1


def cells_of(mask: int) -> Iterator[int]:
    """The cell numbers set in ``mask``, in increasing order; O(bits of ``mask``) for any
    size (a mask over 10^6 cells is read as bytes, not shifted bit by bit)."""
    if mask < (1 << 256):
        j = 0
        while mask:
            if mask & 1:
                yield j
            mask >>= 1
            j += 1
        return
    data = np.frombuffer(mask.to_bytes((mask.bit_length() + 7) // 8, "little"), np.uint8)
    yield from np.flatnonzero(np.unpackbits(data, bitorder="little")).tolist()


def mask_of(cells: Iterable[int]) -> int:
    """The bit mask of the cell numbers ``cells`` (non-negative ints); O(number of cells +
    bits), where setting bits one by one would cost O(cells x bits) for a large domain."""
    idx = np.fromiter(cells, dtype=np.int64)
    if len(idx) <= 64:
        mask = 0
        for c in idx.tolist():
            mask |= 1 << c
        return mask
    bits = np.zeros(int(idx.max()) + 1, dtype=np.bool_)
    bits[idx] = True
    return int.from_bytes(np.packbits(bits, bitorder="little").tobytes(), "little")


_NUMBER_TYPES = (int, float, np.integer, np.floating, Fraction, Decimal)


def is_number(value: object) -> bool:
    """Whether ``value`` is a number an ordinal feature reads: an ``int``, a ``float``, a
    numpy integer or float, a ``Fraction`` or a ``Decimal``; not a bool, not text, not a
    complex number (see the module docstring).

    >>> [is_number(v) for v in (3, 2.5, np.float32(1), Decimal("2"), True, "5", 1j)]
    [True, True, True, True, False, False, False]
    """
    return isinstance(value, _NUMBER_TYPES) and not isinstance(value, bool)


def _fmt_value(v: object) -> str:
    return str(v)


def _reject_missing(name: str, missing: np.ndarray) -> None:
    """Raise :class:`MissingValueError` naming the first rows of ``missing`` (a bool array)."""
    if missing.any():
        rows = np.flatnonzero(missing)[:5].tolist()
        where = f" (rows {rows}{'...' if missing.sum() > 5 else ''})" if len(missing) > 1 else ""
        raise MissingValueError(
            f"feature {name!r} has {int(missing.sum())} missing value(s){where}; xdt models do "
            "not route missing values: impute or drop them first")


def _is_missing(value: object) -> bool:
    if value is None:
        return True
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


class CategoricalCells:
    """One cell per value of a categorical (or binary) feature's domain."""

    def __init__(self, name: str, domain: tuple):
        self.name = name
        self.domain = tuple(domain)
        self._code = {v: j for j, v in enumerate(self.domain)}

    @property
    def n_cells(self) -> int:
        """Number of cells: one per domain value."""
        return len(self.domain)

    def cell_of(self, value: object) -> int:
        """Cell of one value; raises :class:`UnknownCategoryError` or :class:`MissingValueError`."""
        kind = type(value)
        if kind is str or kind is int or kind is float or kind is np.int64 \
                or kind is np.float64 or kind is np.str_:  # one lookup (1.0 finds 1)
            code = self._code.get(value)
            if code is not None:
                return code
        if _is_missing(value):
            raise MissingValueError(
                f"feature {self.name!r} has a missing value; xdt models do not route missing "
                "values: impute or drop it first")
        if isinstance(value, np.generic):
            value = value.item()
        if not isinstance(value, Hashable):
            raise InstanceError(
                f"feature {self.name!r} needs one value of its domain {list(self.domain)}, "
                f"got {value!r}")
        code = self._code.get(value) if not isinstance(value, bool) else self._code.get(int(value))
        if code is None and isinstance(value, float) and value.is_integer():
            code = self._code.get(int(value))
        if code is None:
            kinds = {type(v).__name__ for v in self.domain}
            hint = (f" (its type is {type(value).__name__}; the domain holds "
                    f"{' and '.join(sorted(kinds))} values)"
                    if type(value).__name__ not in kinds else "")
            raise UnknownCategoryError(
                f"feature {self.name!r} has value {value!r}, which is not in its domain "
                f"{list(self.domain)}{hint}; map it to one of these values")
        return code

    def number_table(self) -> tuple[np.ndarray, np.ndarray] | None:
        """The domain as sorted float64 numbers (shape (k,)) with their cells (int64 (k,)),
        when it is all numbers (not booleans) exact in float64 (below 2**53 in magnitude);
        else ``None``. Kept once made. Used to read numeric columns and instances."""
        table = self.__dict__.get("_number_table", False)
        if table is False:
            table = None
            if self.domain and all(type(v) in (int, float) and abs(v) < 2.0**53
                                   for v in self.domain):
                pairs = sorted((float(v), j) for j, v in enumerate(self.domain))
                table = (np.asarray([v for v, _ in pairs], dtype=np.float64),
                         np.asarray([j for _, j in pairs], dtype=np.int64))
            self._number_table = table
        return table

    def encode(self, column: pd.Series) -> np.ndarray:
        """Cells of a column of values, shape ``(n,)`` int64; same errors as :meth:`cell_of`."""
        table = self.number_table()
        raw = column.to_numpy()
        if table is not None and raw.dtype.kind in "iuf" and len(raw):
            values = raw.astype(np.float64, copy=False)  # NaN and strays fail the match below
            at = np.minimum(np.searchsorted(table[0], values), len(table[0]) - 1)
            if (table[0][at] == values).all():
                return table[1][at]
        _reject_missing(self.name, column.isna().to_numpy())
        codes, uniques = pd.factorize(column)
        table = np.array([self.cell_of(u) for u in uniques], dtype=np.int64)
        return table[codes]

    def value(self, cell: int) -> object:
        """A value lying in ``cell`` (the domain value itself)."""
        return self.domain[cell]

    def describe(self, mask: int) -> str:
        """Readable literal for the cell set ``mask``: ``Outlook = overcast``, ``x in {a, b}``."""
        allowed = [self.domain[j] for j in cells_of(mask)]
        if len(allowed) == 1:
            return f"{self.name} = {_fmt_value(allowed[0])}"
        if len(allowed) == self.n_cells:
            return f"{self.name} is any"
        excluded = [v for j, v in enumerate(self.domain) if not (mask >> j) & 1]
        if len(excluded) == 1:
            return f"{self.name} != {_fmt_value(excluded[0])}"
        return f"{self.name} in {{{', '.join(_fmt_value(v) for v in allowed)}}}"


class IntervalCells:
    """The intervals between the sorted thresholds a model tests on an ordinal feature.

    Parameters
    ----------
    name : str
    thresholds : iterable of float
        The thresholds (any order, repeats allowed), kept exact.
    input_dtype : {"float64", "float32"}
        The precision of the values the model compares: it decides how :meth:`describe`
        shows the thresholds (:func:`xdt.ir._values.display_threshold`) and which numbers
        are accepted (finite in that precision: :attr:`limit`), never which cell an
        accepted value is in.
    """

    def __init__(self, name: str, thresholds, input_dtype: str = "float64"):
        if input_dtype not in INPUT_DTYPES:
            raise InvalidModelError(
                f"input_dtype must be one of {', '.join(INPUT_DTYPES)}, got {input_dtype!r}")
        self.name = name
        values = np.asarray(list(thresholds), dtype=np.float64)
        self.thresholds = np.unique(values) if len(values) > 1 else values
        self.input_dtype = input_dtype
        self._sorted = self.thresholds.tolist()  # for cell_of's bisection
        self._limit = self.limit

    @property
    def n_cells(self) -> int:
        """Number of cells: one more than the number of distinct thresholds."""
        return len(self.thresholds) + 1

    @property
    def limit(self) -> float:
        """The largest magnitude of an accepted value: float32's largest finite value
        (``3.4028234663852886e+38``) for ``input_dtype="float32"``, float64's otherwise."""
        return float(np.finfo(np.dtype(self.input_dtype)).max)

    def cell_of(self, value: object) -> int:
        """Cell of one number; raises :class:`MissingValueError`, :class:`InstanceError` (not
        a number) or :class:`ValueOutOfRangeError` (see :meth:`locate`)."""
        kind = type(value)
        if kind is float or kind is int or kind is np.float64 or kind is np.int64:
            try:
                v = float(value)
            except OverflowError:  # an int beyond float64
                raise self._too_large(value) from None
            if -self._limit <= v <= self._limit:  # finite and in range (NaN fails too)
                return bisect_left(self._sorted, v)  # = locate's searchsorted, side="left"
        if _is_missing(value):
            raise MissingValueError(
                f"feature {self.name!r} has a missing value; xdt models do not route missing "
                "values: impute or drop it first")
        if not is_number(value):
            raise InstanceError(
                f"ordinal feature {self.name!r} needs a number, got {value!r}")
        try:
            number = float(value)  # type: ignore[arg-type]
        except OverflowError:
            raise self._too_large(value) from None  # type: ignore[arg-type]
        return int(self.locate(np.array([number]), one=True)[0])

    def _too_large(self, value: int, row: int | None = None) -> ValueOutOfRangeError:
        """The error for an integer too large to be a float64 (``row``: where it is)."""
        where = "" if row is None else f" (row {row})"
        return ValueOutOfRangeError(
            f"ordinal feature {self.name!r} has an integer of {len(str(abs(int(value))))} "
            f"digits{where}, beyond the range of the numbers the model compares (|x| <= "
            f"{format_number(self.limit)}); use a value within that range")

    def encode(self, column: pd.Series) -> np.ndarray:
        """Cells of a column of numbers, shape ``(n,)`` int64; same errors as :meth:`cell_of`."""
        if column.dtype == bool:
            raise InstanceError(f"ordinal feature {self.name!r} needs numbers, got booleans")
        raw = column.to_numpy()
        if raw.dtype.kind == "c":  # to_numeric would keep the real parts alone
            bad = np.flatnonzero(raw.imag != 0)
            i = int(bad[0]) if len(bad) else 0
            where = f" (row {i})" if len(column) > 1 else ""
            raise InstanceError(
                f"ordinal feature {self.name!r} needs real numbers, got {raw[i].item()!r}{where}")
        if raw.dtype.kind in "iuf":  # numbers already: no conversion, NaN is the one check
            values = raw.astype(np.float64, copy=False)
            if not np.isnan(values).any():
                return self.locate(values, one=len(column) <= 1)
        _reject_missing(self.name, column.isna().to_numpy())
        return self.locate(self._numbers(column, raw), one=len(column) <= 1)

    def _numbers(self, column: pd.Series, raw: np.ndarray) -> np.ndarray:
        """The values of a column without missing values as float64 (n,), each read as
        :meth:`cell_of` reads one (:func:`is_number`); the first that is not a number raises
        :class:`InstanceError` naming its row, an int beyond float64
        :class:`ValueOutOfRangeError`."""
        def where(i: int) -> str:
            return f" (row {i})" if len(column) > 1 else ""

        if raw.dtype.kind != "O":  # dates, durations, numpy text: no value is a number
            if len(raw) and raw.dtype.kind not in "iuf":
                raise InstanceError(f"ordinal feature {self.name!r} needs numbers, got "
                                    f"{column.iloc[0]!r}{where(0)}")
            return raw.astype(np.float64)
        if not set(map(type, raw)) <= {int, float}:
            for i, v in enumerate(raw):
                if not is_number(v):
                    raise InstanceError(f"ordinal feature {self.name!r} needs numbers, got "
                                        f"{column.iloc[i]!r}{where(i)}")
        try:
            return np.array(raw, dtype=np.float64)
        except OverflowError:  # an int (or Fraction) beyond float64
            for i, v in enumerate(raw):
                try:
                    float(v)
                except OverflowError:
                    raise self._too_large(v, i if len(column) > 1 else None) from None
            raise

    def locate(self, values: np.ndarray, one: bool = False) -> np.ndarray:
        """Cells of float64 numbers (no NaN), shape ``(n,)`` int64: the one place where
        :meth:`cell_of` and :meth:`encode` (so ``predict``, explanations and batch runs)
        check the range of a value and find its cell.

        Raises
        ------
        ValueOutOfRangeError
            A value is infinite, or, for ``input_dtype="float32"``, would become infinite as
            float32 (``|x|`` beyond :attr:`limit`), as scikit-learn's ``predict`` refuses.
            The message names the first such row unless ``one`` (a single value).
        """
        values = np.asarray(values, dtype=np.float64)
        with np.errstate(over="ignore"):
            compared = values.astype(np.dtype(self.input_dtype))
        out = np.flatnonzero(~np.isfinite(compared))
        if len(out):
            i = int(out[0])
            v = float(values[i])
            where = "" if one else f" (row {i})"
            if not math.isfinite(v):
                raise ValueOutOfRangeError(
                    f"ordinal feature {self.name!r} has value {v}{where}; xdt models compare "
                    "finite numbers (scikit-learn rejects infinite inputs too): replace it by "
                    "a finite value")
            raise ValueOutOfRangeError(
                f"feature {self.name!r} has value {format_number(v)}{where}, beyond the float32 "
                f"range (|x| <= {_FLOAT32_MAX_TEXT}) that the tree compares (it was "
                "fitted by scikit-learn, which casts inputs to float32 and rejects this value "
                "too); use a value within that range")
        return np.searchsorted(self.thresholds, values, side="left").astype(np.int64)

    def bounds(self, cell: int) -> tuple[float, float]:
        """``(lower, upper)`` of cell ``cell``: the cell is ``lower < x <= upper``."""
        lo = self.thresholds[cell - 1] if cell > 0 else -math.inf
        hi = self.thresholds[cell] if cell < len(self.thresholds) else math.inf
        return float(lo), float(hi)

    def value(self, cell: int) -> float:
        """A number lying in ``cell`` (``lower < v <= upper``) that the model accepts
        (``|v| <=`` :attr:`limit`, so within float32's range for a float32 tree) and that
        prints short: a whole number below 1e15 when the cell lies between two thresholds (or
        above the last) and holds one, as data are often counts or codes; else the cell's
        upper bound as :meth:`describe` shows it (the threshold itself for float64 inputs,
        ``0.5`` for the float32 test ``0.5000000298023224``, ``-1.15e+38`` for
        ``-1.1499999987270714e+38``); above the last threshold, the shortest decimal above
        it up to the limit (``1.1e+308`` above ``1e+308``, ``3.4e+38`` above ``3.3e+38`` for
        float32). Printed with ``repr`` it reads back as a value of the cell. A cell beyond
        the limit (a threshold at or past it) holds no accepted value: its edge is
        returned."""
        lo, hi = self.bounds(cell)
        limit = self.limit
        with np.errstate(over="ignore"):
            least = max(float(np.nextafter(lo, math.inf)), -limit)  # smallest accepted value
        most = min(hi, limit)  # largest accepted value
        if least > most:  # no accepted value lies in the cell
            return hi if math.isfinite(hi) else least
        if hi <= limit:  # below a threshold: a value near it
            if math.isfinite(lo):
                whole = float(math.floor(hi))
                if whole > lo and abs(whole) < 1e15:
                    return whole
            shown = float(display_threshold(hi, self.input_dtype))
            return shown if least <= shown <= hi else shortest_between(least, hi)
        if not math.isfinite(lo):
            return 0.0
        whole = float(math.floor(lo) + 1)
        if least <= whole <= most and abs(whole) < 1e15:
            return whole
        return shortest_between(least, most, toward="lo")

    def describe(self, mask: int) -> str:
        """Readable literal for the cell set ``mask``: ``0.64 < x``, ``1 < x <= 2``; each
        threshold shown by :func:`xdt.ir._values.display_threshold` (``x <= 0.5`` for the
        float32 test ``0.5000000298023224``)."""
        parts = []
        cells = list(cells_of(mask))
        if len(cells) == self.n_cells:
            return f"{self.name} is any"
        start = 0
        while start < len(cells):  # split into runs of consecutive cells (intervals)
            end = start
            while end + 1 < len(cells) and cells[end + 1] == cells[end] + 1:
                end += 1
            lo, _ = self.bounds(cells[start])
            _, hi = self.bounds(cells[end])
            if math.isinf(lo):
                parts.append(f"{self.name}{upper_text(hi, self.input_dtype)}")
            elif math.isinf(hi):
                parts.append(f"{lower_text(lo, self.input_dtype)}{self.name}")
            else:
                parts.append(f"{lower_text(lo, self.input_dtype)}{self.name}"
                             f"{upper_text(hi, self.input_dtype)}")
            start = end + 1
        return " or ".join(parts) if len(parts) == 1 else "(" + " or ".join(parts) + ")"


Cells = CategoricalCells | IntervalCells
