"""Explanations of a whole table in chunks of rows on this process: what
:func:`xdt.run.explain_table` runs without a Dask cluster."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

import pandas as pd

from xdt.errors import DataError, InvalidRowError, OutputError
from xdt.explain._explainer import Explainer
from xdt.run._records import (
    BatchInterrupted,
    BatchSummary,
    JsonLinesOutput,
    OnRow,
    RowExplainer,
    _explain_rows,
    _make_folder,
    _Rows,
    _rows_text,
    _SideFile,
    _table_index,
    _write_atomic,
    batch_fields,
    describe_files,
    records_frame,
)

E = TypeVar("E", OutputError, DataError)


def run_chunks(explainer: Explainer, X: Any, *, what: tuple[str, ...],
               output: Path | None, fmt: str, chunk_rows: int, progress: bool,
               on_invalid: str, side_path: Path | None, start: float,
               explain: RowExplainer | None = None, on_row: OnRow | None = None
               ) -> pd.DataFrame | BatchSummary:
    """Explain ``X`` chunk by chunk on this process (:func:`xdt.run.explain_table` without
    a Dask cluster, its arguments checked): the records as a DataFrame, or written to
    ``output`` as each chunk is done.

    ``X`` is a table, or a stream: an iterator of DataFrames (rows labelled by their index),
    each read, explained in pieces of ``chunk_rows`` and dropped before the next is read.
    """
    stream = is_stream(X)

    def pieces() -> Iterator[tuple[Any, list]]:
        if stream:
            for frame in X:
                labels = list(frame.index)
                for lo in range(0, len(frame), chunk_rows):
                    yield frame.iloc[lo:lo + chunk_rows], labels[lo:lo + chunk_rows]
            return
        n = len(X)
        index = _table_index(X, n)
        frame_input = isinstance(X, pd.DataFrame)
        for lo in range(0, n, chunk_rows):
            part = X.iloc[lo:lo + chunk_rows] if frame_input else X[lo:lo + chunk_rows]
            yield part, index[lo:lo + chunk_rows]

    def chunks() -> Iterator[_Rows]:
        for part, labels in pieces():
            yield _explain_rows(explainer, part, labels, what, chunk_rows, on_invalid,
                                explain, on_row)

    bar = None
    if progress:
        import sys

        from tqdm import tqdm

        # a stream's length is not known before its end: the bar counts the rows done
        bar = tqdm(total=None if stream else len(X), desc="explaining", unit="row",
                   file=sys.stderr, dynamic_ncols=True, leave=False)
    side = _SideFile(side_path)
    try:
        if output is None:
            return _collect(chunks(), bar, side,
                            batch_fields(what) if explain is None else ("format", "row"))
        return _write_table(chunks(), output, fmt, bar, start, side)
    finally:
        side.close()
        if bar is not None:
            bar.close()


def is_stream(X: Any) -> bool:
    """Whether ``X`` is a stream of tables (an iterator, e.g. of :func:`xdt.run.read_chunks`
    or ``pandas.read_csv(..., chunksize=N)``) rather than one table."""
    return isinstance(X, Iterator) and not isinstance(X, pd.DataFrame)


def _collect(chunks: Iterator[_Rows], bar: Any, side: _SideFile, empty: Sequence[str]
             ) -> pd.DataFrame:
    """The records of all chunks as one DataFrame (``explain_table`` without ``output``)."""
    parts: list[dict] = []
    invalid: list[dict] = []
    for chunk in chunks:
        if chunk.stopped:
            bad = chunk.invalid[0]
            raise InvalidRowError(f"row {bad['row']}: {bad['reason']}", row=bad["row"],
                                  reason=bad["reason"], written=0, outputs=[]
                                  ) from chunk.errors[0]
        parts += chunk.records
        invalid += chunk.invalid
        side.write(chunk.invalid)
        if bar is not None:
            bar.update(len(chunk.records) + len(chunk.invalid))
    frame = records_frame(parts, empty)
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
        if chunk.records:
            rows = [r["row"] for r in chunk.records]
            labels[:] = [labels[0] if labels else rows[0], rows[-1]]
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
        out = JsonLinesOutput(output)
        outputs = [str(output)]
        try:
            for chunk in chunks:
                out.append(chunk.records)
                account(chunk)
                if chunk.stopped:
                    raise stopped(chunk, str(output)) from chunk.errors[0]
                side.write(chunk.invalid)
        except KeyboardInterrupt:
            rows = out.settle()
            side.close(interrupted=True)
            raise BatchInterrupted(rows, outputs, skipped=side.rows,
                                   invalid_output=side.where) from None
        except InvalidRowError:
            raise
        except (OutputError, DataError) as e:  # a full disk; a stream's later line unread
            rows = out.settle()
            side.close(interrupted=True)
            raise _unwritten(e, rows, outputs, side) from None
        finally:
            out.close()
    else:
        _make_folder(output)
        counts: list[int] = []  # the rows of each part file written
        try:
            for chunk in chunks:
                if chunk.records:
                    path = output / f"part-{len(outputs):05d}.parquet"
                    _write_atomic(chunk.records, path, fmt)
                    outputs.append(str(path))
                    counts.append(len(chunk.records))
                account(chunk)
                if chunk.stopped:
                    raise stopped(chunk, f"{output}{os.sep} ({describe_files(outputs)})"
                                  if outputs else f"{output}{os.sep}") from chunk.errors[0]
                side.write(chunk.invalid)
        except KeyboardInterrupt:
            side.close(interrupted=True)
            raise BatchInterrupted(sum(counts[:len(outputs)]), outputs, skipped=side.rows,
                                   invalid_output=side.where) from None
        except InvalidRowError:
            raise
        except (OutputError, DataError) as e:
            side.close(interrupted=True)
            raise _unwritten(e, sum(counts[:len(outputs)]), outputs, side,
                             folder=output) from None
    return BatchSummary(written, parts, time.perf_counter() - start, outputs, side.rows,
                        side.where)


def _unwritten(e: E, rows: int, outputs: list[str], side: _SideFile,
               folder: Path | None = None) -> E:
    """``e``, the :class:`~xdt.errors.OutputError` of a run stopped by a file it could not
    write (a full disk, text UTF-8 cannot encode...), or the
    :class:`~xdt.errors.DataError` of a stream whose later line cannot be read, its message
    completed with the rows on disk (complete records) and where (``written``,
    ``outputs``)."""
    e.written, e.outputs = rows, list(outputs)
    if not rows and not side.rows:
        return e  # nothing was written: the reason says it all
    if rows:
        where = (f"{folder}{os.sep} ({describe_files(outputs)})" if folder is not None
                 else ", ".join(outputs))
        done = (f"{rows} row{'' if rows == 1 else 's'} (complete records) "
                f"{'is' if rows == 1 else 'are'} in {where}")
    else:
        done = "no row was written"
    if side.rows:
        done += f"; {side.rows} skipped row{'' if side.rows == 1 else 's'} in {side.where}"
    e.args = (f"{e}; the run stopped there: {done}",)
    return e
