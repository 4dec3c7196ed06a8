"""A CSV file read for a model chunk by chunk, each cell by one rule: what ``xdt explain
--batch`` and :func:`xdt.run.read_chunks` stream, so that memory holds one chunk of rows
however long the file is.

pandas guesses the type of a column from all the cells it reads at once: over a whole file,
one text cell makes a column of numbers text; over chunks, only that chunk would be. So
that a value gets the same answer in any chunk, the model's feature columns are read as
text (every column is) and each cell is converted by :func:`cell_values`, by the feature's
kind alone:

* an **ordinal** feature: text that is an integer (``"30"``, ``" -4 "``) is an ``int``,
  other text that is a number (``"41.5"``, ``"1e3"``, ``"inf"``) a ``float``, as
  :func:`pandas.to_numeric` reads it (the numbers of pandas' own CSV parser, bit for bit);
  text that is no number (``"old"``, ``"True"``, ``"nan"``, ``"1_000"``) is kept, for the
  model's reader to refuse with the row it is in;
* a **categorical** feature whose domain is all text (``"01"`` stays ``"01"``): the text;
* a **categorical** feature with numbers in its domain, or a **binary** one: text that is a
  value of the domain is kept; ``True``/``False`` (as pandas writes them, any of ``True``,
  ``TRUE``, ``true``) is a bool; other text that is a number is that number, as above;
  any other text is kept;
* an empty cell is a missing value (``NaN``); ``NA`` and ``None`` are text.

Over a whole file these are the values of pandas' own guess whenever that guess is the
column's type (a column of numbers, a column of a text domain); where one cell made
pandas read a whole column of numbers as text, only that cell is refused here (text
``"1"`` among numbers no longer makes every row of a numeric categorical column unknown),
and a value may be the ``int`` 30 where the whole column was read as ``float`` (30.0: the
same cell of the model).

Examples
--------
>>> import pandas as pd
>>> from xdt.ir import Feature
>>> frame = pd.DataFrame({"age": ["30", "41.5", "old"], "n": ["1", "x", "True"]})
>>> out = cell_values([Feature("age", "ordinal"), Feature("n", "categorical", [0, 1])],
...                   frame)
>>> out["age"].tolist(), out["n"].tolist()
([30, 41.5, 'old'], [1, 'x', True])
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from xdt.errors import DataError, MissingFileError, XdtError
from xdt.interop import _csvfile as csvfile
from xdt.ir._instances import as_frame

if TYPE_CHECKING:
    from xdt.ir._features import Feature, FeatureSpace

__all__ = ["cell_values", "read_chunks", "read_error"]

#: The text pandas reads as booleans (its ``true_values`` and ``false_values``).
TRUE_TEXT = ("True", "TRUE", "true")
FALSE_TEXT = ("False", "FALSE", "false")

def _numbers(cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The text ``cells`` (an object array of str) read as numbers, one cell at a time:
    integers as ints, other numbers as floats, as :func:`pandas.to_numeric` reads them.

    Returns the values (int64 when every cell is an integer, float64 when none is, else
    objects) and whether each cell is a number (where it is not, its value is NaN). A column
    of integers, or of floats, costs one call of :func:`pandas.to_numeric`; text is looked
    at only in a column of floats whose values are whole numbers (``"40"`` beside
    ``"40.5"``)."""
    values = _plain_numbers(cells)
    if values is None:
        values = pd.to_numeric(pd.Series(cells, dtype=object), errors="coerce").to_numpy()
    if values.dtype.kind in "iu":
        return values, np.ones(len(values), dtype=bool)
    if values.dtype.kind != "f":  # integers beyond uint64: one at a time
        values = np.array([_number(c) for c in cells], dtype=object)
        return values, ~pd.isna(values)
    found = ~np.isnan(values)
    whole = np.flatnonzero(np.isfinite(values) & (values == np.trunc(values)))
    if len(whole):  # an integer's text has no decimal point nor exponent
        integer = ~pd.Series(cells[whole], dtype=object).str.contains(
            r"[.eE]", regex=True).to_numpy(dtype=bool)
        whole = whole[integer]
    if not len(whole):
        return values, found
    out = values.astype(object)
    out[whole] = [int(c) for c in cells[whole]]  # exact, however large
    return out, found


def _plain_numbers(cells: np.ndarray) -> np.ndarray | None:
    """``cells`` as int64 (every cell an integer) or finite float64 (every cell a number),
    read by Python's ``int`` and ``float`` (correctly rounded, as pandas' parser and
    :func:`pandas.to_numeric`); None when a cell is no number or not finite, or when the
    text holds what Python reads and pandas does not (``1_000``, digits beyond ASCII):
    then :func:`pandas.to_numeric` reads them. The common case, several times faster."""
    joined = "".join(cells.tolist())
    if not joined.isascii() or "_" in joined:
        return None
    try:
        return cells.astype(np.int64)
    except (ValueError, OverflowError, TypeError):
        pass
    try:
        values = cells.astype(np.float64)
    except (ValueError, OverflowError, TypeError):
        return None
    return values if np.isfinite(values).all() else None


def _number(cell: str) -> int | float:
    try:
        return int(cell)
    except ValueError:
        number = pd.to_numeric(pd.Series([cell], dtype=object), errors="coerce").iloc[0]
        return float(number)


def _column(feature: Feature, column: pd.Series) -> pd.Series:
    """One feature's column of text cells (NaN for empty ones) by the rule of the module."""
    domain = tuple(feature.domain or ())
    domain_text = [v for v in domain if isinstance(v, str)]
    if feature.kind != "ordinal" and len(domain_text) == len(domain):
        return column  # a text domain: the text itself
    raw = column.to_numpy(dtype=object)
    where = np.flatnonzero(pd.notna(raw))  # the cells with text
    out = raw.copy()
    if feature.kind != "ordinal" and len(where):
        cells = pd.Series(raw[where], dtype=object)
        keep = cells.isin(domain_text).to_numpy(dtype=bool)
        is_true = cells.isin(TRUE_TEXT).to_numpy(dtype=bool) & ~keep
        is_false = cells.isin(FALSE_TEXT).to_numpy(dtype=bool) & ~keep
        out[where[is_true]] = True
        out[where[is_false]] = False
        where = where[~(keep | is_true | is_false)]
    if len(where):
        numbers, found = _numbers(raw[where])
        if found.all() and len(where) == len(raw) and numbers.dtype.kind in "iuf":
            return pd.Series(numbers, index=column.index, name=column.name)  # typed
        out[where[found]] = numbers[found].astype(object)
    return pd.Series(out, index=column.index, name=column.name, dtype=object)


def cell_values(features: Iterable[Feature], frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` (rows of a CSV file read as text, empty cells missing) with each feature's
    column converted cell by cell as the module says; other columns as they are.

    Parameters
    ----------
    features : iterable of Feature
    frame : pandas.DataFrame
        Columns by name, every cell text (``str``) or missing.

    Returns
    -------
    pandas.DataFrame
        A new frame; a column whose cells are all ints (or all floats) is int64 (float64),
        other converted columns hold Python objects.
    """
    out = frame.copy()
    for f in features:
        if f.name in frame.columns and isinstance(frame[f.name], pd.Series):
            out[f.name] = _column(f, frame[f.name])
    return out


def read_error(path: str | os.PathLike, e: BaseException) -> XdtError:
    """The error of a CSV file pandas failed to read, saying why and what to do: a
    :class:`~xdt.errors.FieldCountError` naming the line with more fields than the header,
    else a :class:`~xdt.errors.DataError` (empty, damaged compressed file, not text)."""
    if isinstance(e, pd.errors.EmptyDataError):
        return DataError(f"{path}: the file is empty; a CSV file with a header row is "
                         "expected")
    if isinstance(e, EOFError | OSError):  # a damaged .gz/.bz2/.xz/.zip file
        return DataError(f"{path}: cannot read it ({e or type(e).__name__}); the file is "
                         "damaged or not in the compression its name says")
    if isinstance(e, pd.errors.ParserError):
        try:
            csvfile.find_long_line(path)  # pandas counts records, not lines
        except XdtError as found:
            return found
    return DataError(f"{path}: cannot read it as CSV ({e})")


_READ_ERRORS = (EOFError, OSError, pd.errors.EmptyDataError, pd.errors.ParserError,
                UnicodeDecodeError, ValueError)


def read_chunks(path: str | os.PathLike, features: FeatureSpace, chunk_rows: int
                ) -> Iterator[pd.DataFrame]:
    """The rows of the CSV file at ``path``, ``chunk_rows`` at a time, for a model of
    ``features``: each chunk a DataFrame of the features' columns in order (others
    dropped), the cells converted by :func:`cell_values`, indexed by the rows' 0-based
    positions in the file (the header is not a row; blank lines are skipped).

    Only one chunk is held at a time. Checks of the whole file come with the first chunk
    (missing file, header, first line, the features' columns); a later line that cannot
    be read raises when its chunk is read.

    Raises
    ------
    MissingFileError
        (a ``FileNotFoundError``) No file at ``path``.
    FieldCountError
        A line has more fields than the header (the message names the line).
    MissingFeatureError
        (an :class:`~xdt.errors.InstanceError`) A feature has no column.
    DataError
        The path is empty or a folder; the file is empty, has a header but no rows, is not
        readable as CSV text, or is a damaged compressed file.
    """
    if not str(path):
        raise DataError("no data file named (an empty path); give the CSV file's path")
    path = Path(path)
    if not path.exists():
        raise MissingFileError(f"no data file at {str(path)!r}", path=str(path))
    if path.is_dir():
        raise DataError(f"{path} is a folder, not a data file; give a CSV file's path")
    csvfile.check_first_line(path)  # pandas would read its extra field as a row label
    try:  # every column as text: one rule per cell, whatever the chunk (module docstring)
        reader = pd.read_csv(path, dtype=object, keep_default_na=False, na_values=[""],
                             chunksize=chunk_rows)
    except _READ_ERRORS as e:
        raise read_error(path, e) from None
    start = 0
    with reader:
        while True:
            try:
                chunk = next(reader)
            except StopIteration:
                break
            except _READ_ERRORS as e:
                raise read_error(path, e) from None
            if start == 0 and len(chunk) == 0:  # a header alone: checked after the loop
                continue
            rows = as_frame(features, chunk)
            rows = cell_values(features, rows).set_axis(
                pd.RangeIndex(start, start + len(rows)), axis=0)
            start += len(rows)
            yield rows
    if start == 0:
        raise DataError(f"{path}: the file has a header but no rows")
