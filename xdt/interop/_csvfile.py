"""Checks of the shape of CSV files, for the messages of the commands that read them.

pandas does not say when a line of a CSV file has more fields than the header: when the
first data line has one more, it silently reads the first column as the row labels and
shifts every value one column to the left (``row 0: feature 'checking_status' has value
'radio/tv'``), filling the last column of the other lines with missing values (``target
column 'class' has 1 missing value``); a later line with more fields stops it with the count
of *records*, not of lines. :func:`check_first_line` (cheap: the header and the first data
line) and :func:`find_long_line` (the whole file, for when reading failed) find the line
instead and raise :class:`~xdt.errors.FieldCountError`: ``german.csv: line 2 has 24 fields,
the header has 22``.

A line with *fewer* fields than the header is read with its last columns empty, and the
commands report those empty cells as missing values (their 0-based data row is the line
number minus 2).

A field of a CSV file is text. :func:`csv_dtypes` says how a model's features are read
(categorical features of string domains as text, so ``"01"`` stays ``"01"``), and
:func:`number_columns` reads the text of an ordinal feature's column as numbers once, when
the file is read: the model's reader (:mod:`xdt.ir._instances`) then sees typed values, and
refuses the text that is no number (``"old"``) as it refuses text anywhere.

Files are read as pandas reads them by default: comma-separated, ``"`` quotes (doubled
inside a quoted value), UTF-8, blank lines skipped, compressed by their extension
(``.gz``, ``.bz2``, ``.xz``, ``.zip`` holding one file).

Examples
--------
>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
>>> _ = path.write_text('a,b,c\\n1,2,3\\n4,"five, six",7\\n8,9,10,11\\n')
>>> find_long_line(path)
Traceback (most recent call last):
...
xdt.errors.FieldCountError: ...t.csv: line 4 has 4 fields, the header has 3; remove the ...
"""

from __future__ import annotations

import bz2
import csv
import gzip
import io
import lzma
import os
import zipfile
from collections.abc import Iterable, Iterator
from typing import IO, TYPE_CHECKING

from xdt.errors import FieldCountError

if TYPE_CHECKING:
    import pandas as pd

    from xdt.ir._features import Feature

__all__ = ["check_first_line", "csv_dtypes", "find_long_line", "number_columns"]


def _open_text(path: str | os.PathLike) -> IO[str] | None:
    """The file as text, decompressed by its extension, as pandas infers it; None for a zip
    file that does not hold one file (pandas' reader refuses it, with its own message)."""
    name = os.fspath(path)
    low = name.lower()
    if low.endswith(".gz"):
        return gzip.open(name, "rt", encoding="utf-8", errors="replace", newline="")
    if low.endswith(".bz2"):
        return bz2.open(name, "rt", encoding="utf-8", errors="replace", newline="")
    if low.endswith(".xz"):
        return lzma.open(name, "rt", encoding="utf-8", errors="replace", newline="")
    if low.endswith(".zip"):
        archive = zipfile.ZipFile(name)
        members = [m for m in archive.namelist() if not m.endswith("/")]
        if len(members) != 1:
            archive.close()
            return None
        return io.TextIOWrapper(archive.open(members[0]), encoding="utf-8", errors="replace",
                                newline="")
    return open(name, encoding="utf-8", errors="replace", newline="")  # noqa: SIM115


def _records(handle: IO[str]) -> Iterator[tuple[int, list[str]]]:
    """``(first line, fields)`` of each non-blank record, lines counted from 1."""
    reader = csv.reader(handle)
    line = 1
    for fields in reader:
        if fields and any(fields) or len(fields) > 1:
            yield line, fields
        line = reader.line_num + 1


def _error(path: str | os.PathLike, line: int, fields: list[str], header: int
           ) -> FieldCountError:
    extra = fields[header:]
    if not any(f.strip() for f in extra):
        how = (f"remove the {len(extra)} empty field(s) at its end (a delimiter too many "
               "at the end of the line?)")
    else:
        how = ("remove the extra fields, or put the value that holds a comma in double "
               'quotes ("radio, tv")')
    return FieldCountError(f"{os.fspath(path)}: line {line} has {len(fields)} fields, the "
                           f"header has {header}; {how}", path=os.fspath(path), line=line,
                           fields=len(fields), header_fields=header)


def _scan(path: str | os.PathLike, lines: int | None) -> None:
    try:
        opened = _open_text(path)
        if opened is None:
            return
        with opened as handle:
            records = _records(handle)
            header = next(records, None)
            if header is None:
                return
            width = len(header[1])
            for k, (line, fields) in enumerate(records):
                if lines is not None and k >= lines:
                    return
                if len(fields) > width:
                    raise _error(path, line, fields, width)
    except (OSError, csv.Error, EOFError, zipfile.BadZipFile, lzma.LZMAError):
        return  # not readable as CSV text: the reader's own error says so


def check_first_line(path: str | os.PathLike) -> None:
    """Raise :class:`~xdt.errors.FieldCountError` when the first data line of the CSV file
    at ``path`` has more fields than its header (what pandas silently reads as a column of
    row labels). Reads only those two lines; a file that is not readable as CSV passes
    (its reader says why).
    """
    _scan(path, 1)


def find_long_line(path: str | os.PathLike) -> None:
    """Raise :class:`~xdt.errors.FieldCountError` for the first line of the CSV file at
    ``path`` with more fields than its header; return when there is none (or the file is
    not readable as CSV). Reads the file up to that line.
    """
    _scan(path, None)


def csv_dtypes(features: Iterable[Feature]) -> dict:
    """The column types with which a CSV file is read for a model of ``features``:
    categorical features whose domain is all strings as text (``"01"`` stays ``"01"``,
    not the number 1); the other columns as pandas infers them."""
    return {f.name: str for f in features
            if f.kind == "categorical" and all(isinstance(v, str) for v in f.domain)}


def number_columns(features: Iterable[Feature], frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` (rows of a CSV file) with the text of its ordinal features' columns read as
    numbers, as :func:`pandas.to_numeric` reads them (``"12"`` -> 12, ``"1e3"`` -> 1000.0,
    ``"inf"`` -> inf); text that is no number (``"old"``) and missing cells are kept as
    they are, for the model's reader to refuse with the row they are in.

    A column pandas read as numbers, and every other column, is left as it is; ``frame``
    itself is not changed.

    >>> import pandas as pd
    >>> from xdt.ir import Feature
    >>> frame = pd.DataFrame({"age": ["30", "41.5", "old"], "job": ["a", "b", "c"]})
    >>> number_columns([Feature("age", "ordinal")], frame)["age"].tolist()
    [30.0, 41.5, 'old']
    """
    import pandas as pd

    out = frame
    for f in features:
        if f.kind != "ordinal" or f.name not in frame.columns:
            continue
        column = frame[f.name]
        if not isinstance(column, pd.Series) or column.dtype.kind in "iufcb" \
                or not (column.dtype == object or pd.api.types.is_string_dtype(column)):
            continue
        text = pd.Series([isinstance(v, str) for v in column.tolist()], index=column.index,
                         dtype=bool)
        if not text.any():
            continue
        parsed = pd.to_numeric(column.where(text), errors="coerce")
        keep = ~text | parsed.isna()  # not text, or text that is no number
        if out is frame:
            out = frame.copy()
        out[f.name] = (parsed if not keep.any() else
                       column.astype(object).where(keep, parsed.astype(object)))
    return out

