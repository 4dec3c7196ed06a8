"""The records of a table run and their files: checking outputs before any work, atomic and
appended writes, the side file of rows that cannot be read, and the explaining of one chunk
of rows, by the batch path-walker or row by row (shared by :mod:`xdt.run._chunked` and
:mod:`xdt.run._distributed`); each record is built by
:func:`xdt.run.explanation_record`."""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import pandas as pd

from xdt._atomic import atomic_path, encode_text, encoding_error, write_bytes
from xdt.errors import (
    DataError,
    EngineNotAvailableError,
    InstanceError,
    OutputError,
    OutputExistsError,
    ParameterError,
)
from xdt.explain._explainer import Explainer
from xdt.explain._models import Model
from xdt.explain.engines._vectorised import WHAT
from xdt.ir._instances import as_frame
from xdt.ir._values import to_python
from xdt.run._instance import InstanceExplanation, explain_instance
from xdt.run._lock import lock_path
from xdt.run._outputs import input_problem, output_error, path_problem
from xdt.run._record import explanation_record, explanation_records

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
        raise ParameterError(f"what must name some of {WHAT}, got {what!r}")
    if fmt not in FORMATS:
        raise ParameterError(f"fmt must be one of {FORMATS}, got {fmt!r}")
    if fmt == "parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise DaskNotInstalledError(
                f"Parquet output needs pyarrow, which is not installed: {_INSTALL} "
                "(or pip install pyarrow), or write JSON lines (fmt='jsonl')") from None
    return what


def _batch_records(result: pd.DataFrame, rows: Sequence[Any]) -> list[dict]:
    """The records of one chunk explained by the batch path-walker (``result``: the
    DataFrame of :meth:`~xdt.explain.Explainer.explain_batch`), labelled ``rows``."""
    return explanation_records(rows, result["prediction"].tolist(),
                               result["axp"].tolist() if "axp" in result else None,
                               result["cxps"].tolist() if "cxps" in result else None)


def batch_fields(what: Sequence[str]) -> list[str]:
    """The fields of a record of the batch path-walker computing ``what``."""
    return ["format", "row", "prediction"] + (["axp", "axp_size"] if "axp" in what else []) \
        + (["cxps", "n_cxps"] if "cxps" in what else [])


def records_frame(records: Sequence[dict], empty: Sequence[str] = ("format", "row")
                  ) -> pd.DataFrame:
    """Records as a DataFrame, one column per field, in the records' order (``empty``: the
    columns of a DataFrame of no record)."""
    columns = list(dict.fromkeys(k for r in records for k in r)) if records else list(empty)
    return pd.DataFrame(list(records), columns=columns)


def _jsonl_bytes(records: Sequence[dict], path: str | os.PathLike) -> bytes:
    """``records`` as JSON lines in UTF-8, to be written to ``path``;
    :class:`~xdt.errors.OutputEncodingError` (before anything is written) for text UTF-8
    cannot encode."""
    return encode_text("".join(json.dumps(r, ensure_ascii=False, default=to_python) + "\n"
                               for r in records), path)


def _write_atomic(records: Sequence[dict], path: Path, fmt: str) -> None:
    """Write ``records`` to ``path`` through a temporary file renamed into place
    (:mod:`xdt._atomic`): a failure leaves no file, or the one that was there; a path that
    cannot be written raises :class:`~xdt.errors.OutputError`."""
    if fmt == "jsonl":
        write_bytes(path, _jsonl_bytes(records, path))
        return
    frame = records_frame(records)
    try:
        with atomic_path(path) as tmp:
            frame.to_parquet(tmp, index=False)
    except UnicodeEncodeError as e:
        raise encoding_error(e, path) from None


#: Bytes read at a time when looking for the end of a JSON lines file's last complete record.
TAIL_BLOCK = 1 << 16


def last_record_end(f: BinaryIO, size: int, floor: int = 0) -> int:
    """The offset just after the last newline of the open file ``f`` of ``size`` bytes, at
    least ``floor`` (``floor`` when no newline lies past it): where its last complete
    record of JSON lines ends.

    Reads backwards from the end in blocks of :data:`TAIL_BLOCK` bytes, so that only the
    file's tail is read -- the half-written record and the block holding the newline before
    it -- never the whole file (nor anything before ``floor``).
    """
    end = size
    while end > floor:
        start = max(floor, end - TAIL_BLOCK)
        f.seek(start)
        block = f.read(end - start)
        cut = block.rfind(b"\n")
        if cut >= 0:
            return start + cut + 1
        end = start
    return floor


def _complete_lines(path: Path) -> int:
    """Cut ``path`` after its last newline (dropping a half-written line) and count its
    lines; the cut reads only the file's tail (:func:`last_record_end`), the count reads
    the rest in blocks."""
    with open(path, "r+b") as f:
        size = os.fstat(f.fileno()).st_size
        keep = last_record_end(f, size)
        if keep != size:
            f.truncate(keep)
        f.seek(0)
        lines, done = 0, 0
        while done < keep:
            block = f.read(min(TAIL_BLOCK, keep - done))
            lines += block.count(b"\n")
            done += len(block)
    return lines


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


class JsonLinesOutput:
    """A JSON lines file written chunk by chunk (created at the first chunk with
    ``lazy``, else at once), whose records on disk are always complete: a chunk that fails
    half-way (a full disk, Ctrl-C) is cut back to its last complete record.

    ``rows`` counts the records written in full, ``size`` their bytes; both change in one
    step, after a chunk is on disk.
    """

    def __init__(self, path: Path, lazy: bool = False):
        self.path = path
        self._done = (0, 0)  # rows, bytes written in full: one assignment, never torn
        self._fd = -1
        if not lazy:
            self._fd = _open_append(path)

    @property
    def rows(self) -> int:
        return self._done[0]

    @property
    def size(self) -> int:
        return self._done[1]

    @property
    def opened(self) -> bool:
        return self._fd >= 0 or self.rows > 0

    def append(self, records: Sequence[dict]) -> None:
        """Append ``records``; on failure cut the file back to complete records and raise
        (an :class:`OSError` as :class:`~xdt.errors.OutputError`)."""
        if not records:
            return
        payload = _jsonl_bytes(records, self.path)  # an encoding error writes nothing
        if self._fd < 0:
            self._fd = _open_append(self.path)
        try:
            _append(self._fd, payload)
        except OSError as e:
            self.settle()
            raise output_error(e, self.path) from None
        except BaseException:
            self.settle()
            raise
        self._done = (self.rows + len(records), self.size + len(payload))

    def settle(self) -> int:
        """Cut the file after its last complete record (a chunk may have been stopped
        half-way), count its records (reading only what lies past the last chunk written
        in full) and close it; the rows on disk."""
        if self._fd < 0:
            return self.rows
        rows, size = self._done
        try:
            end = os.fstat(self._fd).st_size
            if end > size:
                with open(self.path, "r+b") as f:
                    keep = last_record_end(f, end, floor=size)
                    f.seek(size)
                    rows += f.read(keep - size).count(b"\n")
                    f.truncate(keep)
                self._done = (rows, keep)
        except OSError:
            pass  # the file is beyond reach: what it holds past the last full chunk stays
        finally:
            self.close()
        return self.rows

    def close(self) -> None:
        if self._fd >= 0:
            fd, self._fd = self._fd, -1
            os.close(fd)


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
                 invalid_output: str | os.PathLike | None = None,
                 inputs: Sequence[str | os.PathLike] = ()) -> list[Path]:
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
    inputs : sequence of paths
        The files the run reads (its data, its model file): no output may be one of them,
        through symbolic or hard links either, with or without ``overwrite``.

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
        A file stands where the folder should be (or a folder where the file should be),
        the file's folder does not exist, or an output is one of ``inputs``.
    """
    out = Path(output)
    candidates = [out, *(_part_files(out) if directory else []),
                  *([Path(invalid_output)] if invalid_output is not None else [])]
    for path in candidates:
        problem = input_problem(path, inputs)
        if problem is not None:
            raise OutputError(f"cannot write {path}: {problem}", path)
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
    if output is not None:
        if side.resolve() == output.resolve():
            raise OutputError(f"{side} is the output itself; give the skipped rows another "
                              "file", side)
        if side.resolve() == lock_path(output).resolve():
            raise OutputError(f"{side} is the lock file of the output {output}, removed when "
                              "the run ends; give the skipped rows another file", side)
        if (side.resolve().parent == output.resolve()
                and _PART_FILE.fullmatch(side.name)):
            raise OutputError(f"{side} is named as one of its part files, in the output folder "
                              f"{output}; give the skipped rows another file", side)
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
        raise ParameterError(f"on_invalid must be one of {ON_INVALID}, got {on_invalid!r}")
    if on_invalid != "skip":
        if invalid_output is not None:
            raise ParameterError('invalid_output goes with on_invalid="skip"; pass both, or '
                                 'leave invalid_output out')
        return None
    if invalid_output is not None:
        return Path(invalid_output)
    return default_invalid_output(output) if output is not None else None


class _SideFile:
    """The JSON lines file of skipped rows, created at the first one (so that it exists only
    when rows were skipped)."""

    def __init__(self, path: Path | None):
        self.path = path
        self._out = None if path is None else JsonLinesOutput(path, lazy=True)

    @property
    def rows(self) -> int:
        return 0 if self._out is None else self._out.rows

    def write(self, records: Sequence[dict]) -> None:
        if records and self._out is not None:
            self._out.append(records)

    def close(self, interrupted: bool = False) -> None:
        if self._out is not None:
            if interrupted:
                self._out.settle()
            else:
                self._out.close()

    @property
    def where(self) -> str | None:
        return str(self.path) if self.rows else None


# ---------------------------------------------------------------------- bad rows
def _plain(value: Any) -> Any:
    """A cell's value as JSON writes it: missing -> None, infinities as text (the text of
    files was read into numbers when they were read:
    :func:`xdt.interop._csvfile.number_columns`)."""
    value = to_python(value)
    if isinstance(value, float) and not math.isfinite(value):
        return None if math.isnan(value) else str(value)
    try:
        return None if pd.isna(value) else value
    except (TypeError, ValueError):
        return value


def _failing(cells: Any, column: pd.Series, lo: int, hi: int, first_only: bool,
             out: list[tuple[int, InstanceError]]) -> None:
    """Append ``(position, error)`` for the values of ``column[lo:hi]`` that ``cells``
    rejects, halving the range where it fails: for b bad values, O(b log n) encode calls
    over O(n log n) values at most; with ``first_only``, stop at the first one."""
    try:
        cells.encode(column.iloc[lo:hi])
        return
    except InstanceError as e:
        if hi - lo == 1:
            out.append((lo, e))
            return
    mid = (lo + hi) // 2
    _failing(cells, column, lo, mid, first_only, out)
    if not (first_only and out):
        _failing(cells, column, mid, hi, first_only, out)


def _bad_rows(model: Model, frame: pd.DataFrame, first_only: bool
              ) -> dict[int, InstanceError]:
    """Positions of the rows of ``frame`` (the model's features, in order) that the model
    cannot read, each with the error of its first bad value in feature order (the error
    ``model.encode`` gives for that row alone); with ``first_only``, the first such row."""
    bad: dict[int, InstanceError] = {}
    for j, cells in enumerate(model.cells):
        found: list[tuple[int, InstanceError]] = []
        _failing(cells, frame.iloc[:, j], 0, len(frame), first_only, found)
        if first_only:
            if found and (not bad or found[0][0] < min(bad)):
                bad = {found[0][0]: found[0][1]}
        else:
            for pos, reason in found:
                bad.setdefault(pos, reason)
    return bad


def invalid_rows(model: Model, frame: pd.DataFrame, positions: Sequence[int]
                 ) -> list[dict]:
    """The rows of ``frame`` at ``positions`` that ``model`` cannot read (missing value,
    unknown category, text for a number), each as the skipped-rows file writes it:
    ``{"row": position, "reason": text, "values": {feature: value}}``, in the order of
    ``positions``; ``[]`` when every row is readable.

    Parameters
    ----------
    frame : pandas.DataFrame
        The model's features, in order (:func:`xdt.ir._instances.as_frame`).
    positions : sequence of int
        0-based positions in ``frame``.

    Raises
    ------
    DataError
        A problem of the whole table, not of a row.
    """
    part = frame.iloc[list(positions)]
    try:
        model.encode(part)
        return []
    except InstanceError as e:
        error = e
    bad = _bad_rows(model, part, first_only=False)
    if not bad:
        raise DataError(str(error)) from None
    return [{"row": int(positions[k]), "reason": str(e),
             "values": {name: _plain(v) for name, v in part.iloc[k].items()}}
            for k, e in sorted(bad.items())]


@dataclass
class _Rows:
    """The outcome of explaining some rows: the records of those explained, the skipped (or
    first bad) rows as side-file records with the reader's error of each, and whether a bad
    row stopped it."""

    records: list[dict]
    invalid: list[dict] = field(default_factory=list)
    stopped: bool = False
    errors: list[InstanceError] = field(default_factory=list)


#: The per-row engine of a run: ``explain(explainer, x)`` -> the explanations of the
#: instance ``x`` (a dict by feature name), as an :class:`InstanceExplanation` or as the
#: fields of its record.
RowExplainer = Callable[[Explainer, dict], "InstanceExplanation | dict"]
#: Called with each row's record, what the per-row engine returned and the row, as each is
#: explained (in memory, on this process).
OnRow = Callable[[dict, "InstanceExplanation | dict", dict], None]


def per_row(options: dict | None = None) -> RowExplainer:
    """The per-row engine :func:`~xdt.run.explain_instance` with ``options`` (its
    keywords: ``all_axps``, ``all_cxps``, ``max_count``, ``time_limit``, ...)."""
    kwargs = dict(options or {})

    def explain(explainer: Explainer, x: dict) -> InstanceExplanation:
        return explain_instance(explainer, x, **kwargs)

    return explain


def _explain_rows(explainer: Explainer, part: Any, labels: Sequence[Any],
                  what: tuple[str, ...], chunk_rows: int | None = None,
                  on_invalid: str = "raise", explain: RowExplainer | None = None,
                  on_row: OnRow | None = None) -> _Rows:
    """Explain the rows of ``part`` (labelled ``labels``): by the batch path-walker
    (``explain`` None: ``what`` of :meth:`~xdt.explain.Explainer.explain_batch`), or row by
    row with ``explain``. A row the model cannot read stops it (``on_invalid="raise"``: the
    rows before it are explained) or is skipped; a problem of the whole table (a missing
    column) raises :class:`~xdt.errors.DataError`."""
    model = explainer.model
    try:
        frame = as_frame(model.features, part)
    except InstanceError as e:
        raise DataError(str(e)) from None
    try:
        if explain is None:
            return _Rows(_batch_records(explainer.explain_batch(frame, what,
                                                                chunk_rows=chunk_rows),
                                        labels))
        model.encode(frame)  # every row readable: none is left out
        return _Rows(_each_row(explainer, frame, labels, range(len(frame)), explain, on_row))
    except InstanceError as e:
        error = e
    bad = _bad_rows(model, frame, first_only=on_invalid == "raise")
    if not bad:
        raise DataError(str(error)) from None
    invalid = [{"row": to_python(labels[k]), "reason": str(e),
                "values": {name: _plain(v) for name, v in frame.iloc[k].items()}}
               for k, e in sorted(bad.items())]
    errors = [error for _, error in sorted(bad.items())]
    keep = list(range(min(bad))) if on_invalid == "raise" else \
        [k for k in range(len(frame)) if k not in bad]
    stopped = on_invalid == "raise"
    if not keep:
        return _Rows([], invalid, stopped, errors)
    if explain is not None:
        return _Rows(_each_row(explainer, frame, labels, keep, explain, on_row), invalid,
                     stopped, errors)
    try:
        result = explainer.explain_batch(frame.iloc[keep], what, chunk_rows=chunk_rows)
    except InstanceError as e:
        raise DataError(str(e)) from None
    return _Rows(_batch_records(result, [labels[k] for k in keep]), invalid, stopped, errors)


def _each_row(explainer: Explainer, frame: pd.DataFrame, labels: Sequence[Any],
              positions: Sequence[int], explain: RowExplainer,
              on_row: OnRow | None) -> list[dict]:
    """The records of the rows of ``frame`` at ``positions``, explained one by one."""
    rows = frame.iloc[list(positions)].to_dict("records")
    out = []
    for k, x in zip(positions, rows, strict=True):
        found = explain(explainer, x)
        fields = found.fields if isinstance(found, InstanceExplanation) else found
        record = explanation_record(labels[k], **fields)
        out.append(record)
        if on_row is not None:
            on_row(record, found, x)
    return out


def _rows_text(n: int, first: Any, last: Any) -> str:
    if n == 1:
        return f"1 row ({first})"
    return f"{n} rows ({first}..{last})"


# ---------------------------------------------------------------------- one process
def _table_index(X: Any, n: int) -> list:
    return list(X.index) if isinstance(X, pd.DataFrame) else list(range(n))
