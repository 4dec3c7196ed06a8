"""Explanations of a whole table in chunks of rows on this process (:func:`explain_table`)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from xdt.errors import (
    InvalidRowError,
)
from xdt.explain.explainer import Explainer
from xdt.explain.models import Model
from xdt.explain.vectorised import WHAT
from xdt.run.outputs import output_error
from xdt.run.records import (
    DEFAULT_CHUNK_ROWS,
    BatchInterrupted,
    BatchSummary,
    _append,
    _check,
    _check_side_file,
    _complete_lines,
    _empty_records,
    _explain_rows,
    _jsonl_bytes,
    _make_folder,
    _open_append,
    _remove,
    _Rows,
    _rows_text,
    _side_path,
    _SideFile,
    _table_index,
    _write_atomic,
    check_output,
    describe_files,
)


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
        and reason, and the rows written before it (all rows before it) and where; raised
        from the reader's error (``__cause__``: an :class:`~xdt.errors.InstanceError`, as
        ``model.predict`` and ``Explainer.axp`` raise for the same value).
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
                                  reason=bad["reason"], written=0, outputs=[]
                                  ) from chunk.errors[0]
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
                    raise stopped(chunk, str(output)) from chunk.errors[0]
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
                                  if outputs else f"{output}{os.sep}") from chunk.errors[0]
                side.write(chunk.invalid)
        except KeyboardInterrupt:
            done = [p for p in outputs if Path(p).exists()]
            rows = sum(len(pd.read_parquet(p, columns=["row"])) for p in done)
            side.close(interrupted=True)
            raise BatchInterrupted(rows, done, skipped=side.rows,
                                   invalid_output=side.where) from None
    return BatchSummary(written, parts, time.perf_counter() - start, outputs, side.rows,
                        side.where)
