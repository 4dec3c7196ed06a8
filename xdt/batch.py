"""Explanations of whole tables: chunked on one process, or partitioned over a Dask cluster.

Both functions run the batch path-walker (:meth:`xdt.Explainer.explain_batch`: one AXp and
all CXps per row of a decision tree) and write one record per row, so the answers are the
same whichever is used:

* :func:`explain_table` explains a table in chunks of rows on this process and appends each
  chunk to a JSON lines file (or writes it as one Parquet file of a directory) as soon as it
  is done, with a progress bar. Interrupted (Ctrl-C), it leaves only complete records: the
  rows explained so far.
* :func:`explain_dask` explains a Dask DataFrame, or CSV/Parquet files read with Dask,
  partition by partition on a ``distributed`` cluster, and writes one file per partition.

A record holds ``row`` (the row's index label in the input; for files, its 0-based
position over all the files), ``prediction``, ``axp`` and ``axp_size`` (with ``"axp"`` in
``what``), ``cxps`` and ``n_cxps`` (with ``"cxps"``)::

    {"row": 0, "prediction": "good", "axp": ["checking_status", "duration"], "axp_size": 2,
     "cxps": [["duration"], ["checking_status", "age"]], "n_cxps": 2}

A row the model cannot read (an unknown category, a missing value, text for a number)
stops the run with :class:`~xdt.errors.InvalidRowError`, which names the row and says what
was written before it and where. With ``on_invalid="skip"`` such rows are left out and
written, with their reason, to a side file of JSON lines, by default ``OUT.invalid.jsonl``
next to the output ``OUT.jsonl`` (or ``OUT/``; see :func:`default_invalid_output`)::

    {"row": 150000, "reason": "feature 'purpose' has value 'spaceship', which is not in its
     domain [...]; map it to one of these values", "values": {"checking_status": "<0", ...}}

An output that exists (a file, or a folder's ``part-*`` files, or the side file) is not
replaced unless ``overwrite=True``: :class:`~xdt.errors.OutputExistsError`. A path that
cannot be written raises :class:`~xdt.errors.OutputError` saying why and what to do.

Dask is optional: ``pip install "xdt[dask]"``. Without it :func:`explain_dask` raises
:class:`DaskNotInstalledError`; Parquet output needs pyarrow (which ``xdt[dask]`` brings).
"""

from __future__ import annotations

import contextlib
import glob
import json
import logging
import math
import os
import re
import signal
import time
import uuid
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from xdt.errors import (
    DataError,
    EngineNotAvailableError,
    InstanceError,
    InvalidRowError,
    OutputError,
    OutputExistsError,
    XdtError,
)
from xdt.explain.batch import WHAT, batch_columns
from xdt.explain.explainer import Explainer
from xdt.explain.models import Model
from xdt.ir.instances import as_frame
from xdt.ir.values import to_python
from xdt.outputs import output_error, path_problem

#: Rows explained (and written) together by :func:`explain_table` by default.
DEFAULT_CHUNK_ROWS = 5000
#: Output formats.
FORMATS = ("jsonl", "parquet")
#: What to do with a row the model cannot read: stop the run, or skip it to the side file.
ON_INVALID = ("raise", "skip")
_INSTALL = 'pip install "xdt[dask]"'
#: The files a folder output is made of (one per chunk or partition).
_PART_FILE = re.compile(r"part-\d+\.(jsonl|parquet)")


class DaskNotInstalledError(EngineNotAvailableError):
    """Dask (``dask[dataframe]`` and ``distributed``) or pyarrow is needed and not
    installed: ``pip install "xdt[dask]"``."""


class BatchInterrupted(KeyboardInterrupt):
    """A batch run was interrupted (Ctrl-C); what was written is complete.

    Attributes
    ----------
    rows : int
        Rows whose records were written in full before the interruption.
    outputs : list of str
        The files holding them.
    partitions : list of int
        With :func:`explain_dask`: the partitions whose files were written.
    total : int or None
        With :func:`explain_dask`: the number of partitions of the run.
    skipped : int
        Invalid rows skipped so far (``on_invalid="skip"``), written to ``invalid_output``.
    invalid_output : str or None
        The side file of the skipped rows (None if none was skipped).
    """

    def __init__(self, rows: int, outputs: Sequence[str], *,
                 partitions: Sequence[int] = (), total: int | None = None,
                 skipped: int = 0, invalid_output: str | None = None):
        self.rows = rows
        self.outputs = list(outputs)
        self.partitions = list(partitions)
        self.total = total
        self.skipped = skipped
        self.invalid_output = invalid_output
        super().__init__(f"interrupted: {rows} rows written to {', '.join(self.outputs) or '-'}")


@dataclass
class BatchSummary:
    """What a batch run did.

    Attributes
    ----------
    rows : int
        Rows explained and written.
    partitions : int
        Chunks (:func:`explain_table`) or Dask partitions (:func:`explain_dask`).
    seconds : float
        Wall-clock time of the run.
    outputs : list of str
        The files written (one JSON lines file, or one file per chunk/partition).
    skipped : int
        Invalid rows left out (``on_invalid="skip"``).
    invalid_output : str or None
        The side file holding them (None when no row was skipped).
    """

    rows: int
    partitions: int
    seconds: float
    outputs: list[str] = field(default_factory=list)
    skipped: int = 0
    invalid_output: str | None = None

    def to_dict(self) -> dict:
        """JSON-ready dict of the summary."""
        return {"rows": self.rows, "partitions": self.partitions, "seconds": self.seconds,
                "outputs": list(self.outputs), "skipped": self.skipped,
                "invalid_output": self.invalid_output}


# ---------------------------------------------------------------------- records and files
def _check(what: Sequence[str] | str, fmt: str) -> tuple[str, ...]:
    what = (what,) if isinstance(what, str) else tuple(what)
    if not what or any(w not in WHAT for w in what):
        raise ValueError(f"what must name some of {WHAT}, got {what!r}")
    if fmt not in FORMATS:
        raise ValueError(f"fmt must be one of {FORMATS}, got {fmt!r}")
    if fmt == "parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise DaskNotInstalledError(
                f"Parquet output needs pyarrow, which is not installed: {_INSTALL} "
                "(or pip install pyarrow), or write JSON lines (fmt='jsonl')") from None
    return what


def _records_frame(result: pd.DataFrame, rows: Sequence[Any]) -> pd.DataFrame:
    """The output records of one chunk: ``row`` first, explanations as lists of names."""
    out = pd.DataFrame({"row": [to_python(r) for r in rows]})
    for c in result.columns:
        values = result[c].tolist()
        if c == "axp":
            values = [list(a) for a in values]
        elif c == "cxps":
            values = [[list(e) for e in cs] for cs in values]
        elif c == "prediction":
            values = [to_python(v) for v in values]
        out[c] = values
    return out


def _jsonl_bytes(records: pd.DataFrame) -> bytes:
    cols = list(records.columns)
    lines = (json.dumps(dict(zip(cols, row, strict=True)), ensure_ascii=False,
                        default=to_python)
             for row in zip(*(records[c].tolist() for c in cols), strict=True))
    return "".join(line + "\n" for line in lines).encode("utf-8")


def _write_atomic(records: pd.DataFrame, path: Path, fmt: str) -> None:
    """Write ``records`` to ``path`` through a temporary file renamed into place; a path that
    cannot be written raises :class:`~xdt.errors.OutputError`."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        if fmt == "jsonl":
            tmp.write_bytes(_jsonl_bytes(records))
        else:
            records.to_parquet(tmp, index=False)
        os.replace(tmp, path)
    except OSError as e:
        raise output_error(e, path) from None
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()


def _complete_lines(path: Path) -> int:
    """Cut ``path`` after its last newline (dropping a half-written line) and count its
    lines."""
    with open(path, "r+b") as f:
        data = f.read()
        keep = data.rfind(b"\n") + 1
        if keep != len(data):
            f.truncate(keep)
    return data.count(b"\n", 0, keep)


def _append(fd: int, payload: bytes) -> None:
    view = memoryview(payload)
    while view:
        view = view[os.write(fd, view):]


def _open_append(path: Path) -> int:
    """A new (emptied) file at ``path`` for appending; :class:`OutputError` if it cannot be."""
    try:
        return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o666)
    except OSError as e:
        raise output_error(e, path) from None


# ---------------------------------------------------------------------- output paths
def default_invalid_output(output: str | os.PathLike) -> Path:
    """The side file of the rows skipped by ``on_invalid="skip"``: ``OUT.invalid.jsonl``
    next to the output (``out.jsonl`` -> ``out.invalid.jsonl``; a folder ``out/`` ->
    ``out.invalid.jsonl`` beside it)."""
    path = Path(output)
    if path.name in ("", ".", ".."):
        path = path.resolve()
    name = path.name[:-len(".jsonl")] if path.name.endswith(".jsonl") else path.name
    return path.with_name(f"{name}.invalid.jsonl")


def _part_files(folder: Path) -> list[Path]:
    """The ``part-NNNNN.jsonl`` / ``.parquet`` files of a folder output, sorted."""
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if _PART_FILE.fullmatch(p.name))


def describe_files(paths: Sequence[str | os.PathLike]) -> str:
    """``a.jsonl, b.jsonl`` or ``part-00000.jsonl .. part-00029.jsonl (30 files)``: names."""
    names = [Path(p).name for p in paths]
    if len(names) <= 3:
        return ", ".join(names)
    return f"{names[0]} .. {names[-1]} ({len(names)} files)"


def check_output(output: str | os.PathLike, *, directory: bool, overwrite: bool = False,
                 invalid_output: str | os.PathLike | None = None) -> list[Path]:
    """Check, before any work, that a batch run may write ``output`` (and the side file).

    Parameters
    ----------
    output : path
        A JSON lines file (``directory=False``) or a folder of ``part-*`` files.
    directory : bool
        Whether ``output`` is a folder (Parquet chunks, Dask partitions).
    overwrite : bool
        Replace what exists (the caller removes the returned files).
    invalid_output : path, optional
        The side file of skipped rows, when rows are skipped.

    Returns
    -------
    list of Path
        The existing files the run replaces (only with ``overwrite``): the output file, or
        the folder's ``part-*`` files, and the side file.

    Raises
    ------
    OutputExistsError
        Something would be replaced and ``overwrite`` is False.
    OutputError
        A file stands where the folder should be (or a folder where the file should be), or
        the file's folder does not exist.
    """
    out = Path(output)
    if directory:
        if out.exists() and not out.is_dir():
            raise OutputError(f"{out} is a file, and this output is a folder of part-* files "
                              "(one per chunk or partition); choose another path", out)
        problem = path_problem(out / "part-00000", folders_made=True)
        existing = _part_files(out)
        detail = (f"{out}{os.sep} holds {len(existing)} part file"
                  f"{'' if len(existing) == 1 else 's'} of an earlier run "
                  f"({describe_files(existing)})")
    else:
        if out.is_dir():
            raise OutputError(f"{out} is a folder, and JSON lines output is one file: give a "
                              f"file path (e.g. {out / 'explanations.jsonl'})", out)
        problem = path_problem(out)
        existing = [out] if out.exists() else []
        detail = f"{out} exists"
    if problem is not None:
        raise OutputError(f"cannot write {out}: {problem}", out)
    if existing and not overwrite:
        raise OutputExistsError(detail, out, [str(p) for p in existing],
                                advice="pass overwrite=True to replace it, or choose another "
                                       "path")
    if invalid_output is not None:
        existing += _check_side_file(Path(invalid_output), overwrite, out)
    return existing


def _check_side_file(side: Path, overwrite: bool, output: Path | None = None) -> list[Path]:
    if output is not None and side.resolve() == output.resolve():
        raise OutputError(f"{side} is the output itself; give the skipped rows another file",
                          side)
    if side.is_dir():
        raise OutputError(f"{side} is a folder, and skipped rows go to a JSON lines file: "
                          "give a file path", side)
    problem = path_problem(side)
    if problem is not None:
        raise OutputError(f"cannot write {side}: {problem}", side)
    if not side.exists():
        return []
    if not overwrite:
        raise OutputExistsError(f"{side} exists (the skipped rows of an earlier run)", side,
                                [str(side)], advice="pass overwrite=True to replace it, or "
                                                    "choose another path")
    return [side]


def _remove(paths: Sequence[Path]) -> None:
    """Remove the files an overwriting run replaces (and half-written ``.tmp`` files)."""
    for p in paths:
        try:
            p.unlink(missing_ok=True)
        except OSError as e:
            raise output_error(e, p) from None


def _make_folder(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise output_error(e, folder / "part-00000") from None


def _side_path(output: str | os.PathLike | None, on_invalid: str,
               invalid_output: str | os.PathLike | None) -> Path | None:
    if on_invalid not in ON_INVALID:
        raise ValueError(f"on_invalid must be one of {ON_INVALID}, got {on_invalid!r}")
    if on_invalid != "skip":
        if invalid_output is not None:
            raise ValueError('invalid_output goes with on_invalid="skip"')
        return None
    if invalid_output is not None:
        return Path(invalid_output)
    return default_invalid_output(output) if output is not None else None


class _SideFile:
    """The JSON lines file of skipped rows, created at the first one (so that it exists only
    when rows were skipped)."""

    def __init__(self, path: Path | None):
        self.path, self.rows, self._fd = path, 0, -1

    def write(self, records: Sequence[dict]) -> None:
        if not records or self.path is None:
            return
        if self._fd < 0:
            self._fd = _open_append(self.path)
        payload = "".join(json.dumps(r, ensure_ascii=False, default=to_python) + "\n"
                          for r in records).encode("utf-8")
        try:
            _append(self._fd, payload)
        except OSError as e:
            raise output_error(e, self.path) from None
        self.rows += len(records)

    def close(self, interrupted: bool = False) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
            if interrupted:
                self.rows = _complete_lines(self.path)

    @property
    def where(self) -> str | None:
        return str(self.path) if self.rows else None


# ---------------------------------------------------------------------- bad rows
def _plain(value: Any, number: bool = False) -> Any:
    """A cell's value as JSON writes it: missing -> None, infinities as text; with
    ``number`` (an ordinal feature), a number read as text (``"12"``) as the number."""
    value = to_python(value)
    if number and isinstance(value, str):
        converted = pd.to_numeric(pd.Series([value]), errors="coerce").iloc[0]
        if not pd.isna(converted):
            value = to_python(converted)
    if isinstance(value, float) and not math.isfinite(value):
        return None if math.isnan(value) else str(value)
    try:
        return None if pd.isna(value) else value
    except (TypeError, ValueError):
        return value


def _failing(cells: Any, column: pd.Series, lo: int, hi: int, first_only: bool,
             out: list[tuple[int, str]]) -> None:
    """Append ``(position, reason)`` for the values of ``column[lo:hi]`` that ``cells``
    rejects, halving the range where it fails: for b bad values, O(b log n) encode calls
    over O(n log n) values at most; with ``first_only``, stop at the first one."""
    try:
        cells.encode(column.iloc[lo:hi])
        return
    except InstanceError as e:
        if hi - lo == 1:
            out.append((lo, str(e)))
            return
    mid = (lo + hi) // 2
    _failing(cells, column, lo, mid, first_only, out)
    if not (first_only and out):
        _failing(cells, column, mid, hi, first_only, out)


def _bad_rows(model: Model, frame: pd.DataFrame, first_only: bool) -> dict[int, str]:
    """Positions of the rows of ``frame`` (the model's features, in order) that the model
    cannot read, each with the reason of its first bad value in feature order (the error
    ``model.encode`` gives for that row alone); with ``first_only``, the first such row."""
    bad: dict[int, str] = {}
    for j, cells in enumerate(model.cells):
        found: list[tuple[int, str]] = []
        _failing(cells, frame.iloc[:, j], 0, len(frame), first_only, found)
        if first_only:
            if found and (not bad or found[0][0] < min(bad)):
                bad = {found[0][0]: found[0][1]}
        else:
            for pos, reason in found:
                bad.setdefault(pos, reason)
    return bad


@dataclass
class _Rows:
    """The outcome of explaining some rows: the records of those explained, the skipped (or
    first bad) rows as side-file records, and whether a bad row stopped it."""

    records: pd.DataFrame
    invalid: list[dict] = field(default_factory=list)
    stopped: bool = False


def _empty_records(what: tuple[str, ...]) -> pd.DataFrame:
    return pd.DataFrame(columns=["row"] + batch_columns(what))


def _explain_rows(explainer: Explainer, part: Any, labels: Sequence[Any],
                  what: tuple[str, ...], chunk_rows: int | None = None,
                  on_invalid: str = "raise") -> _Rows:
    """Explain the rows of ``part`` (labelled ``labels``). A row the model cannot read stops
    it (``on_invalid="raise"``: the rows before it are explained) or is skipped; a problem
    of the whole table (a missing column) raises :class:`~xdt.errors.DataError`."""
    model = explainer.model
    try:
        frame = as_frame(model.features, part)
    except InstanceError as e:
        raise DataError(str(e)) from None
    try:
        return _Rows(_records_frame(explainer.explain_batch(frame, what,
                                                            chunk_rows=chunk_rows), labels))
    except InstanceError as e:
        error = e
    bad = _bad_rows(model, frame, first_only=on_invalid == "raise")
    if not bad:
        raise DataError(str(error)) from None
    ordinal = {f.name for f in model.features if f.kind == "ordinal"}
    invalid = [{"row": to_python(labels[k]), "reason": reason,
                "values": {name: _plain(v, name in ordinal)
                           for name, v in frame.iloc[k].items()}}
               for k, reason in sorted(bad.items())]
    keep = list(range(min(bad))) if on_invalid == "raise" else \
        [k for k in range(len(frame)) if k not in bad]
    if not keep:
        return _Rows(_empty_records(what), invalid, on_invalid == "raise")
    try:
        result = explainer.explain_batch(frame.iloc[keep], what, chunk_rows=chunk_rows)
    except InstanceError as e:
        raise DataError(str(e)) from None
    return _Rows(_records_frame(result, [labels[k] for k in keep]), invalid,
                 on_invalid == "raise")


def _rows_text(n: int, first: Any, last: Any) -> str:
    if n == 1:
        return f"1 row ({first})"
    return f"{n} rows ({first}..{last})"


# ---------------------------------------------------------------------- one process
def _table_index(X: Any, n: int) -> list:
    return list(X.index) if isinstance(X, pd.DataFrame) else list(range(n))


def explain_table(model: Model, X: Any, *, what: Sequence[str] | str = WHAT,
                  output: str | os.PathLike | None = None, fmt: str = "jsonl",
                  chunk_rows: int = DEFAULT_CHUNK_ROWS, progress: bool = True,
                  on_invalid: str = "raise", invalid_output: str | os.PathLike | None = None,
                  overwrite: bool = False) -> pd.DataFrame | BatchSummary:
    """One AXp and all CXps of every row of ``X``, chunk by chunk, on this process.

    Parameters
    ----------
    model : DecisionTree
        The batch path-walker explains decision trees (a DNF raises
        :class:`~xdt.errors.EngineNotAvailableError`).
    X : pandas.DataFrame, array-like, or list of dicts
        The rows (columns by feature name; others ignored).
    what : {"axp", "cxps"} or a sequence of them
        What to compute (default both).
    output : path, optional
        None: return the records as a DataFrame. With ``fmt="jsonl"``: a JSON lines file,
        written chunk by chunk. With ``fmt="parquet"``: a directory (created) receiving
        ``part-00000.parquet``, ... one file per chunk.
    fmt : {"jsonl", "parquet"}
    chunk_rows : int
        Rows explained and written together (default :data:`DEFAULT_CHUNK_ROWS`).
    progress : bool
        Show a tqdm progress bar (rows) on standard error.
    on_invalid : {"raise", "skip"}
        A row the model cannot read (unknown category, missing value, text for a number):
        "raise" (default) writes the rows before it and raises
        :class:`~xdt.errors.InvalidRowError`; "skip" leaves it out, writes it with its
        reason to the side file, and goes on.
    invalid_output : path, optional
        With "skip": the side file (JSON lines of ``row``, ``reason``, ``values``), created
        only if a row is skipped. Default :func:`default_invalid_output` of ``output``;
        without ``output`` the skipped rows are also in the returned DataFrame's
        ``attrs["invalid"]`` (a list of those dicts).
    overwrite : bool
        Replace an existing output file (or the ``part-*`` files of the directory) and side
        file; False (default) raises :class:`~xdt.errors.OutputExistsError`.

    Returns
    -------
    pandas.DataFrame or BatchSummary
        Without ``output``, the records (columns ``row``, ``prediction``, ``axp``,
        ``axp_size``, ``cxps``, ``n_cxps``; ``row`` is ``X``'s index label, or the
        position); with it, a :class:`BatchSummary` (with the rows skipped and their file).

    Raises
    ------
    BatchInterrupted
        (a ``KeyboardInterrupt``) on Ctrl-C: every record written so far is complete (no
        half line, no half file); its ``rows`` says how many.
    InvalidRowError
        (a :class:`~xdt.errors.DataError`) with "raise", at the first bad row: its label
        and reason, and the rows written before it (all rows before it) and where.
    DataError
        The table lacks a feature's column.
    OutputExistsError, OutputError
        The output exists (without ``overwrite``), or cannot be written (the message says
        why: missing folder, a file in the way, permission denied).
    """
    what = _check(what, fmt)
    if isinstance(chunk_rows, bool) or not isinstance(chunk_rows, int) or chunk_rows < 1:
        raise ValueError(f"chunk_rows must be a positive integer, got {chunk_rows!r}")
    side_path = _side_path(output, on_invalid, invalid_output)
    if output is not None:
        _remove(check_output(output, directory=fmt == "parquet", overwrite=overwrite,
                             invalid_output=side_path))
    elif side_path is not None:
        _remove(_check_side_file(side_path, overwrite))
    start = time.perf_counter()
    explainer = Explainer(model, engine="path", certificates=False)
    n = len(X)
    index = _table_index(X, n)
    frame_input = isinstance(X, pd.DataFrame)

    def chunks() -> Iterator[_Rows]:
        for lo in range(0, n, chunk_rows):
            part = X.iloc[lo:lo + chunk_rows] if frame_input else X[lo:lo + chunk_rows]
            yield _explain_rows(explainer, part, index[lo:lo + chunk_rows], what, chunk_rows,
                                on_invalid)

    bar = None
    if progress:
        import sys

        from tqdm import tqdm

        bar = tqdm(total=n, desc="explaining", unit="row", file=sys.stderr,
                   dynamic_ncols=True, leave=False)
    side = _SideFile(side_path)
    try:
        if output is None:
            return _collect(chunks(), what, bar, side)
        return _write_table(chunks(), Path(output), fmt, bar, start, side)
    finally:
        side.close()
        if bar is not None:
            bar.close()


def _collect(chunks: Iterator[_Rows], what: tuple[str, ...], bar: Any,
             side: _SideFile) -> pd.DataFrame:
    """The records of all chunks as one DataFrame (``explain_table`` without ``output``)."""
    parts, invalid = [], []
    for chunk in chunks:
        if chunk.stopped:
            bad = chunk.invalid[0]
            raise InvalidRowError(f"row {bad['row']}: {bad['reason']}", row=bad["row"],
                                  reason=bad["reason"], written=0, outputs=[])
        parts.append(chunk.records)
        invalid += chunk.invalid
        side.write(chunk.invalid)
        if bar is not None:
            bar.update(len(chunk.records) + len(chunk.invalid))
    frame = pd.concat(parts, ignore_index=True) if parts else _empty_records(what)
    if invalid:
        frame.attrs["invalid"] = invalid
    return frame


def _write_table(chunks: Iterator[_Rows], output: Path, fmt: str, bar: Any, start: float,
                 side: _SideFile) -> BatchSummary:
    """Write the records of each chunk as soon as it is computed (see :func:`explain_table`)."""
    written, parts, outputs = 0, 0, []
    labels: list[Any] = []  # the first and the last row written

    def account(chunk: _Rows) -> None:
        nonlocal written, parts
        if len(chunk.records):
            rows = chunk.records["row"]
            labels[:] = [labels[0] if labels else rows.iloc[0], rows.iloc[-1]]
        written += len(chunk.records)
        parts += 1
        if bar is not None:
            bar.update(len(chunk.records) + len(chunk.invalid))

    def stopped(chunk: _Rows, where: str) -> InvalidRowError:
        bad = chunk.invalid[0]
        done = (f"{_rows_text(written, *labels)} {'was' if written == 1 else 'were'} written "
                f"to {where} before it" if written else
                f"nothing was written to {where} before it")
        return InvalidRowError(f"row {bad['row']}: {bad['reason']}; {done}", row=bad["row"],
                               reason=bad["reason"], written=written, outputs=outputs)

    if fmt == "jsonl":
        fd = _open_append(output)
        outputs = [str(output)]
        try:
            for chunk in chunks:
                try:
                    _append(fd, _jsonl_bytes(chunk.records))
                except OSError as e:
                    raise output_error(e, output) from None
                account(chunk)
                if chunk.stopped:
                    raise stopped(chunk, str(output))
                side.write(chunk.invalid)
        except KeyboardInterrupt:
            os.close(fd)
            fd = -1
            side.close(interrupted=True)
            raise BatchInterrupted(_complete_lines(output), outputs, skipped=side.rows,
                                   invalid_output=side.where) from None
        finally:
            if fd >= 0:
                os.close(fd)
    else:
        _make_folder(output)
        try:
            for chunk in chunks:
                if len(chunk.records):
                    path = output / f"part-{len(outputs):05d}.parquet"
                    _write_atomic(chunk.records, path, fmt)
                    outputs.append(str(path))
                account(chunk)
                if chunk.stopped:
                    raise stopped(chunk, f"{output}{os.sep} ({describe_files(outputs)})"
                                  if outputs else f"{output}{os.sep}")
                side.write(chunk.invalid)
        except KeyboardInterrupt:
            done = [p for p in outputs if Path(p).exists()]
            rows = sum(len(pd.read_parquet(p, columns=["row"])) for p in done)
            side.close(interrupted=True)
            raise BatchInterrupted(rows, done, skipped=side.rows,
                                   invalid_output=side.where) from None
    return BatchSummary(written, parts, time.perf_counter() - start, outputs, side.rows,
                        side.where)


# ---------------------------------------------------------------------- Dask
def require_dask() -> tuple[Any, Any]:
    """``(dask.dataframe, distributed)``, or :class:`DaskNotInstalledError` saying how to
    install them."""
    try:
        import dask.dataframe as dd
        import distributed
    except ImportError as e:
        raise DaskNotInstalledError(
            f"distributed explanations need Dask, which is not installed ({e}): {_INSTALL}"
        ) from None
    return dd, distributed


def csv_dtypes(model: Model) -> dict:
    """CSV column types that keep categorical features with all-string domains as text
    (so ``"01"`` stays ``"01"``)."""
    return {f.name: str for f in model.features
            if f.kind == "categorical" and all(isinstance(v, str) for v in f.domain)}


def read_dask(model: Model, data: str | os.PathLike, blocksize: str | int | None = "64MB"
              ) -> Any:
    """Read CSV (``.csv``, ``.csv.gz``, ...) or Parquet files (a path or a glob) as a Dask
    DataFrame whose index is each row's 0-based position over all the files.

    Raises
    ------
    FileNotFoundError
        No file matches ``data``.
    FieldCountError
        A line of a CSV file has more fields than its header (the message names the file
        and the line: :mod:`xdt.interop.csvfile`).
    DataError
        The files cannot be read.
    """
    from xdt.interop import csvfile

    dd, _ = require_dask()
    text = os.fspath(data)
    files = sorted(glob.glob(text))
    if not files:
        raise FileNotFoundError(f"no data file at {text!r}")
    parquet = ".parquet" in text or Path(text).is_dir()
    for name in [] if parquet else files:
        csvfile.check_first_line(name)  # pandas would read its extra field as a row label
    try:
        if parquet:
            ddf = dd.read_parquet(text)
        else:
            compressed = text.endswith((".gz", ".bz2", ".xz", ".zip"))
            # numbers as text, so that a bad value in one block is a bad row, found and named
            # by the explainer (as on one process), not a dtype clash between blocks
            dtypes = {f.name: object for f in model.features if f.kind == "ordinal"}
            ddf = dd.read_csv(text, dtype={**dtypes, **csv_dtypes(model)}, keep_default_na=False,
                              na_values=[""], blocksize=None if compressed else blocksize)
        lengths = ddf.map_partitions(len).compute()
    except XdtError:
        raise
    except (ValueError, OSError, EOFError) as e:  # EOFError: a .gz that ends early
        for name in [] if parquet else files:
            with contextlib.suppress(OSError, EOFError):
                csvfile.find_long_line(name)  # the line, not Dask's count within a block
        reason = str(e).rpartition("Original Message: ")[2] or type(e).__name__  # Dask's wrap
        raise DataError(f"{text}: cannot read it ({reason})") from None
    offsets = [0]
    for k in lengths[:-1]:
        offsets.append(offsets[-1] + int(k))
    parts = ddf.to_delayed()
    import dask

    shifted = [dask.delayed(_renumber)(p, off) for p, off in zip(parts, offsets, strict=True)]
    return dd.from_delayed(shifted, meta=_renumber(ddf._meta, 0))


def _renumber(frame: pd.DataFrame, offset: int) -> pd.DataFrame:
    return frame.set_axis(pd.RangeIndex(offset, offset + len(frame)), axis=0)


@dataclass
class _Part:
    """What one partition task did (returned by the worker, so that a bad row or an
    unwritable file is reported by this process, not logged by the worker).

    ``status`` is "written", "invalid" (stopped at a bad row: ``invalid`` holds it, no file),
    "failed" (``error``: the table cannot be read, or the file cannot be written; no file)
    or "not run" (the run was stopping)."""

    number: int
    status: str
    rows: int = 0
    path: str | None = None
    invalid: list[dict] = field(default_factory=list)
    error: str | None = None
    output_error: bool = False


def _explain_partition(model: Model, frame: pd.DataFrame, number: int, output: str,
                       fmt: str, what: tuple[str, ...], on_invalid: str = "raise",
                       stop: str | None = None) -> _Part:
    """Explain one partition and write its file (runs on a worker), unless the Dask event
    named ``stop`` is set (the run is stopping after a failure)."""
    if stop is not None:
        import distributed

        if distributed.Event(stop).is_set():
            return _Part(number, "not run")
    explainer = Explainer(model, engine="path", certificates=False)
    try:
        chunk = _explain_rows(explainer, frame, list(frame.index), what, on_invalid=on_invalid)
    except XdtError as e:
        return _Part(number, "failed", error=str(e))
    if chunk.stopped:
        return _Part(number, "invalid", invalid=chunk.invalid)
    path = Path(output) / f"part-{number:05d}.{fmt}"
    try:
        _write_atomic(chunk.records, path, fmt)
    except OutputError as e:
        return _Part(number, "failed", error=str(e), output_error=True)
    return _Part(number, "written", len(chunk.records), str(path), chunk.invalid)


def describe_numbers(numbers: Sequence[int]) -> str:
    """``0-2, 5, 7-9``: sorted numbers with runs collapsed."""
    runs: list[list[int]] = []
    for k in sorted(numbers):
        if runs and k == runs[-1][1] + 1:
            runs[-1][1] = k
        else:
            runs.append([k, k])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def describe_partitions(numbers: Sequence[int]) -> str:
    """``partition 3`` or ``partitions 0-2, 5``."""
    return f"partition{'' if len(numbers) == 1 else 's'} {describe_numbers(numbers)}"


def _dask_report(parts: dict[int, _Part], total: int, output: Path) -> str:
    """What a stopped Dask run wrote and did not: the partitions written (files, rows), those
    that stopped, and those not run."""
    written = [parts[k] for k in sorted(parts) if parts[k].status == "written"]
    if written:
        rows = sum(p.rows for p in written)
        text = (f"{describe_partitions([p.number for p in written])} of {total} "
                f"{'was' if len(written) == 1 else 'were'} written to {output}{os.sep} "
                f"({describe_files([p.path for p in written])}; {rows} "
                f"row{'' if rows == 1 else 's'})")
    else:
        text = "no partition file was written"
    invalid = [parts[k] for k in sorted(parts) if parts[k].status == "invalid"]
    if invalid:
        at = ", ".join(str(p.invalid[0]["row"]) for p in invalid)
        text += (f"; {describe_partitions([p.number for p in invalid])} stopped at "
                 f"{'row' if len(invalid) == 1 else 'rows'} {at} and wrote no file")
    failed = [k for k in sorted(parts) if parts[k].status == "failed"]
    if failed:
        text += f"; {describe_partitions(failed)} failed and wrote no file"
    not_run = [k for k in range(total) if k not in parts or parts[k].status == "not run"]
    if not_run:
        text += f"; {describe_partitions(not_run)} {'was' if len(not_run) == 1 else 'were'} " \
                "not run"
    return text


def _dask_error(parts: dict[int, _Part], total: int, output: Path) -> XdtError | None:
    """The error of a Dask run in which some partition stopped or failed, naming what was
    written; None if every partition was written."""
    stopped = [parts[k] for k in sorted(parts) if parts[k].status in ("invalid", "failed")]
    if not stopped:
        return None
    report = _dask_report(parts, total, output)
    written = [parts[k] for k in sorted(parts) if parts[k].status == "written"]
    failed = [p for p in stopped if p.status == "failed"]
    if failed:
        first = failed[0]
        cls = OutputError if first.output_error else DataError
        return cls(f"partition {first.number}: {first.error}; {report}")
    first = stopped[0]
    bad = first.invalid[0]
    return InvalidRowError(f"row {bad['row']} (partition {first.number}): {bad['reason']}; "
                           f"{report}", row=bad["row"], reason=bad["reason"],
                           written=sum(p.rows for p in written),
                           outputs=[p.path for p in written],
                           failed=[p.number for p in stopped])


def explain_dask(model: Model, data: Any, *, client: Any = None,
                 output: str | os.PathLike, fmt: str = "jsonl",
                 what: Sequence[str] | str = WHAT, npartitions: int | None = None,
                 progress: bool = False, on_invalid: str = "raise",
                 invalid_output: str | os.PathLike | None = None,
                 overwrite: bool = False) -> BatchSummary:
    """Explain every row of ``data`` on a Dask cluster, one output file per partition.

    Each partition runs :meth:`xdt.Explainer.explain_batch` on a worker, which writes
    ``OUTPUT/part-00000.jsonl`` (or ``.parquet``), ... atomically; the records (``row``,
    ``prediction``, ``axp``, ``axp_size``, ``cxps``, ``n_cxps``) equal those of
    :func:`explain_table`.

    Parameters
    ----------
    model : DecisionTree
        Sent once to every worker (``client.scatter(..., broadcast=True)``).
    data : dask.dataframe.DataFrame, or str / path
        The rows (``row`` is their index label), or a path or glob of CSV or Parquet files
        (``row`` is the 0-based position over the files, see :func:`read_dask`).
    client : distributed.Client, optional
        Default: the current client (``distributed.get_client()``).
    output : path
        A directory (created) on a file system the workers share with this process.
    fmt : {"jsonl", "parquet"}
    what : {"axp", "cxps"} or a sequence of them
    npartitions : int, optional
        Repartition ``data`` into this many partitions first.
    progress : bool
        A tqdm progress bar of the partitions done.
    on_invalid : {"raise", "skip"}
        A row the model cannot read: "raise" (default): its partition writes no file, the
        partitions not yet started are not run, those running finish, and
        :class:`~xdt.errors.InvalidRowError` names the row and the partitions written,
        stopped and not run; "skip": it is left out and written with its reason to the side
        file, by this process.
    invalid_output : path, optional
        With "skip": the side file (default :func:`default_invalid_output` of ``output``),
        created only if a row is skipped; rows in partition order.
    overwrite : bool
        Replace the ``part-*`` files of an earlier run in ``output`` (they are removed
        first) and the side file; False (default) raises
        :class:`~xdt.errors.OutputExistsError`.

    Returns
    -------
    BatchSummary
        Rows, partitions, seconds, the files in partition order, rows skipped and where.

    Raises
    ------
    DaskNotInstalledError
        Dask is not installed (``pip install "xdt[dask]"``).
    BatchInterrupted
        On Ctrl-C (the unfinished partitions are cancelled; finished files are complete;
        ``partitions`` lists them).
    InvalidRowError, DataError, OutputError
        A partition stopped at a bad row, or could not be read or written; the message says
        which partitions were written (files, rows), which stopped and which were not run.
    OutputExistsError
        ``output`` holds the ``part-*`` files of an earlier run, and not ``overwrite``.
    """
    what = _check(what, fmt)
    dd, distributed = require_dask()
    side_path = _side_path(output, on_invalid, invalid_output)
    out = Path(output)
    replaced = check_output(out, directory=True, overwrite=overwrite, invalid_output=side_path)
    start = time.perf_counter()
    if client is None:
        try:
            client = distributed.get_client()
        except ValueError:
            raise EngineNotAvailableError(
                "explain_dask needs a distributed.Client: pass client=..., or start one "
                "(distributed.Client(LocalCluster(...)))") from None
    if isinstance(data, str | os.PathLike):
        data = read_dask(model, data)
    elif not isinstance(data, dd.DataFrame):
        raise TypeError(f"data must be a Dask DataFrame or a path, got {type(data).__name__}")
    if npartitions is not None:
        data = data.repartition(npartitions=npartitions)
    _remove(replaced + (sorted(out.glob("part-*.tmp")) if out.is_dir() else []))
    _make_folder(out)
    import dask

    shipped = client.scatter(model, broadcast=True)
    stop = distributed.Event(f"xdt-stop-{uuid.uuid4().hex}", client=client)
    tasks = [dask.delayed(_explain_partition, pure=False)(shipped, part, i, str(out.resolve()),
                                                          fmt, what, on_invalid, stop.name)
             for i, part in enumerate(data.to_delayed())]
    futures = client.compute(tasks)
    number = {f.key: i for i, f in enumerate(futures)}
    parts: dict[int, _Part] = {}
    side = _SideFile(side_path)
    bar = None
    if progress:
        import sys

        from tqdm import tqdm

        bar = tqdm(total=len(futures), desc="partitions", unit="part", file=sys.stderr,
                   leave=False)
    error: BaseException | None = None  # the first exception a task raised (not xdt's)
    stopping = False
    try:
        for fut in distributed.as_completed(futures):
            try:
                part = fut.result()
            except Exception as e:  # a partition that cannot be read, a worker lost, a bug
                error = error or e
                part = _Part(number[fut.key], "failed", error=f"{type(e).__name__}: {e}")
            parts[part.number] = part
            if part.status in ("invalid", "failed") and not stopping:
                stopping = True
                stop.set()  # start no more partitions; those running finish
            if bar is not None:
                bar.update(1)
    except KeyboardInterrupt:
        with contextlib.suppress(Exception):
            stop.set()
        with contextlib.suppress(Exception):
            client.cancel(futures)
        written = [parts[k] for k in sorted(parts) if parts[k].status == "written"]
        for p in written:
            side.write(p.invalid)
        side.close()
        raise BatchInterrupted(sum(p.rows for p in written), [p.path for p in written],
                               partitions=[p.number for p in written], total=len(futures),
                               skipped=side.rows, invalid_output=side.where) from None
    finally:
        if bar is not None:
            bar.close()
    try:
        for k in sorted(parts):
            if parts[k].status == "written":
                side.write(parts[k].invalid)
    finally:
        side.close()
    failure = _dask_error(parts, len(futures), out)
    if failure is not None:
        raise failure from error
    ordered = [parts[k] for k in sorted(parts)]
    return BatchSummary(sum(p.rows for p in ordered), len(ordered), time.perf_counter() - start,
                        [p.path for p in ordered], side.rows, side.where)


def written_partitions(output: str | os.PathLike, fmt: str) -> list[tuple[int, str, int]]:
    """``(partition, path, rows)`` of the complete ``part-*.{fmt}`` files in the folder
    ``output`` (after a Dask run stopped: what is on disk), and the half-written ``.tmp``
    files of killed workers removed."""
    folder = Path(output)
    if not folder.is_dir():
        return []
    for tmp in folder.glob("part-*.tmp"):
        with contextlib.suppress(OSError):
            tmp.unlink()
    out = []
    for p in _part_files(folder):
        if not p.name.endswith(f".{fmt}"):
            continue
        if fmt == "jsonl":
            rows = p.read_bytes().count(b"\n")
        else:
            import pyarrow.parquet as pq

            rows = pq.ParquetFile(p).metadata.num_rows
        out.append((int(p.name[len("part-"):].split(".")[0]), str(p), rows))
    return out


# ---------------------------------------------------------------------- quiet Dask
#: Loggers silenced while the command line runs a Dask cluster (and their children).
_DASK_LOGGERS = ("distributed", "tornado", "bokeh", "asyncio")


def _silence_loggers() -> dict[str, int]:
    """Raise the level of :data:`_DASK_LOGGERS` and their children above CRITICAL; returns
    their levels before."""
    names = set(_DASK_LOGGERS) | {n for n in logging.root.manager.loggerDict
                                  if n.split(".")[0] in _DASK_LOGGERS}
    saved = {}
    for name in sorted(names):
        logger = logging.getLogger(name)
        saved[name] = logger.level
        logger.setLevel(logging.CRITICAL + 1)
    return saved


def silence_worker_logs() -> None:
    """Silence distributed's loggers and warnings on this process for good: run on every
    worker of a local cluster (``client.run(silence_worker_logs)``), whose standard error
    is the user's terminal."""
    _silence_loggers()
    warnings.filterwarnings("ignore", module=r"(distributed|dask|tornado)(\..*)?$")


@contextlib.contextmanager
def quiet_dask_logs() -> Iterator[None]:
    """While in the block, distributed (and tornado, bokeh, asyncio) log nothing on this
    process and their warnings are ignored; levels and filters are restored after."""
    saved = _silence_loggers()
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", module=r"(distributed|dask|tornado)(\..*)?$")
            yield
    finally:
        for name, level in saved.items():
            logging.getLogger(name).setLevel(level)


@contextlib.contextmanager
def local_cluster(n_workers: int) -> Iterator[Any]:
    """A ``distributed.Client`` of a quiet ``LocalCluster`` of ``n_workers`` processes (one
    thread each, no dashboard), closed at the end of the block.

    Quiet: the worker processes ignore Ctrl-C (they are started with SIGINT ignored, which
    they inherit; this process gets the ``KeyboardInterrupt`` and closes them, ignoring a
    second Ctrl-C while it does), and neither they nor this process log anything or show
    distributed's warnings, so that only xdt's messages reach the terminal.
    """
    _, distributed = require_dask()
    import threading

    with contextlib.ExitStack() as stack:
        stack.enter_context(quiet_dask_logs())
        in_main = threading.current_thread() is threading.main_thread()
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if in_main else None
        try:
            cluster = stack.enter_context(distributed.LocalCluster(
                n_workers=n_workers, threads_per_worker=1, processes=True,
                dashboard_address=None, host="127.0.0.1", silence_logs=logging.CRITICAL + 1))
        finally:
            if previous is not None:
                signal.signal(signal.SIGINT, previous)
        client = stack.enter_context(distributed.Client(cluster))
        client.run(silence_worker_logs)
        try:
            yield client
        except KeyboardInterrupt:
            # closing stops the workers (a few seconds if a partition is running); a second
            # Ctrl-C meanwhile would leave them behind
            handler = signal.signal(signal.SIGINT, signal.SIG_IGN) if in_main else None
            try:
                stack.close()
            finally:
                if handler is not None:
                    signal.signal(signal.SIGINT, handler)
            raise


def read_outputs(paths: Sequence[str | os.PathLike]) -> pd.DataFrame:
    """The records of JSON lines or Parquet output files, concatenated in order."""
    frames = []
    for p in paths:
        p = Path(p)
        if p.suffix == ".parquet":
            frame = pd.read_parquet(p)
            for c in ("axp", "cxps"):
                if c in frame:
                    frame[c] = [_as_lists(v) for v in frame[c]]
            frames.append(frame)
        else:
            with open(p, encoding="utf-8") as f:
                frames.append(pd.DataFrame([json.loads(line) for line in f]))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def _as_lists(v: Any) -> Any:
    if hasattr(v, "tolist"):
        v = v.tolist()
    return [_as_lists(e) for e in v] if isinstance(v, list) else v
