"""Explanations of a Dask DataFrame or of CSV/Parquet files, partition by partition on a
``distributed`` cluster (:func:`explain_dask`), and reading what a run wrote."""

from __future__ import annotations

import contextlib
import glob
import json
import logging
import os
import signal
import time
import uuid
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from xdt._atomic import temporary_files
from xdt.errors import (
    DataError,
    EngineNotAvailableError,
    InvalidRowError,
    MissingFileError,
    OutputError,
    ParameterError,
    XdtError,
)
from xdt.explain._explainer import Explainer
from xdt.explain._models import Model
from xdt.interop import _csvfile as csvfile
from xdt.run._records import (
    _INSTALL,
    BatchInterrupted,
    BatchSummary,
    DaskNotInstalledError,
    _explain_rows,
    _make_folder,
    _part_files,
    _remove,
    _SideFile,
    _write_atomic,
    describe_files,
    per_row,
)


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
    (so ``"01"`` stays ``"01"``): :func:`xdt.interop._csvfile.csv_dtypes`."""
    return csvfile.csv_dtypes(model.features)


def read_dask(model: Model, data: str | os.PathLike, blocksize: str | int | None = "64MB"
              ) -> Any:
    """Read CSV (``.csv``, ``.csv.gz``, ...) or Parquet files (a path or a glob) as a Dask
    DataFrame whose index is each row's 0-based position over all the files.

    The text of the ordinal features' columns of CSV files is read as numbers, partition by
    partition (:func:`xdt.interop._csvfile.number_columns`), as ``xdt explain --data`` reads
    a file on one process.

    Raises
    ------
    MissingFileError
        (a ``FileNotFoundError``) No file matches ``data``.
    FieldCountError
        A line of a CSV file has more fields than its header (the message names the file
        and the line: :mod:`xdt.interop._csvfile`).
    DataError
        The files cannot be read.
    """
    dd, _ = require_dask()
    text = os.fspath(data)
    files = sorted(glob.glob(text))
    if not files:
        raise MissingFileError(f"no data file at {text!r}; give the path (or glob pattern) of "
                               "CSV or Parquet files", path=text)
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

    features = None if parquet else model.features
    shifted = [dask.delayed(_renumber)(p, off, features)
               for p, off in zip(parts, offsets, strict=True)]
    # an ordinal column's meta stays text (object): a partition's, once read, is numbers,
    # or numbers and the text that is no number (a bad row the explainer names)
    return dd.from_delayed(shifted, meta=_renumber(ddf._meta, 0, features), verify_meta=False)


def _renumber(frame: pd.DataFrame, offset: int, features: Any = None) -> pd.DataFrame:
    """``frame`` indexed by the rows' positions from ``offset``; with ``features``, the
    text of the ordinal features' columns read as numbers."""
    frame = frame.set_axis(pd.RangeIndex(offset, offset + len(frame)), axis=0)
    return frame if features is None else csvfile.number_columns(features, frame)


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
    cause: BaseException | None = None


def _explain_partition(model: Model, frame: pd.DataFrame, number: int, output: str,
                       fmt: str, what: tuple[str, ...], on_invalid: str = "raise",
                       stop: str | None = None, engine: str | None = None,
                       options: dict | None = None) -> _Part:
    """Explain one partition and write its file (runs on a worker), unless the Dask event
    named ``stop`` is set (the run is stopping after a failure): by the batch
    path-walker, or (``engine``: an engine's name, ``"auto"`` for the model's own) row by
    row with the per-row ``options``."""
    if stop is not None:
        import distributed

        if distributed.Event(stop).is_set():
            return _Part(number, "not run")
    try:
        if engine is None:
            explainer, explain = Explainer(model, engine="path", certificates=False), None
        else:
            explainer = Explainer(model, engine=None if engine == "auto" else engine)
            explain = per_row(options)
        with explainer:
            chunk = _explain_rows(explainer, frame, list(frame.index), what,
                                  on_invalid=on_invalid, explain=explain)
    except XdtError as e:
        return _Part(number, "failed", error=str(e))
    if chunk.stopped:
        return _Part(number, "invalid", invalid=chunk.invalid, cause=chunk.errors[0])
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


def run_dask(model: Model, data: Any, *, client: Any, output: Path, fmt: str,
             what: tuple[str, ...], npartitions: int | None, progress: bool,
             on_invalid: str, side_path: Path | None, replaced: list[Path], start: float,
             engine: str | None = None, options: dict | None = None) -> BatchSummary:
    """Explain every row of ``data`` on a Dask cluster, one output file per partition: what
    :func:`xdt.run.explain_table` runs with a Dask DataFrame, files or a ``client`` (its
    arguments checked; ``replaced``: the files of an earlier run to remove first).

    Each partition is explained on a worker (the batch path-walker, or row by row with
    the ``engine`` named and the per-row ``options``), which writes
    ``OUTPUT/part-00000.jsonl`` (or ``.parquet``), ... atomically."""
    out = output
    dd, distributed = require_dask()
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
        raise ParameterError(f"data must be a Dask DataFrame or a path, got "
                             f"{type(data).__name__}")
    if npartitions is not None:
        data = data.repartition(npartitions=npartitions)
    _remove(replaced + temporary_files(out, "part-*"))
    _make_folder(out)
    import dask

    shipped = client.scatter(model, broadcast=True)
    stop = distributed.Event(f"xdt-stop-{uuid.uuid4().hex}", client=client)
    tasks = [dask.delayed(_explain_partition, pure=False)(shipped, part, i, str(out.resolve()),
                                                          fmt, what, on_invalid, stop.name,
                                                          engine, options)
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
        stopped = [parts[k].cause for k in sorted(parts) if parts[k].cause is not None]
        raise failure from (error or (stopped[0] if isinstance(failure, InvalidRowError)
                                      and stopped else None))
    ordered = [parts[k] for k in sorted(parts)]
    return BatchSummary(sum(p.rows for p in ordered), len(ordered), time.perf_counter() - start,
                        [p.path for p in ordered], side.rows, side.where)


def written_partitions(output: str | os.PathLike, fmt: str) -> list[tuple[int, str, int]]:
    """``(partition, path, rows)`` of the complete ``part-*.{fmt}`` files in the folder
    ``output`` (after a Dask run stopped: what is on disk), and the half-written temporary
    files of killed workers removed."""
    folder = Path(output)
    if not folder.is_dir():
        return []
    for tmp in temporary_files(folder, "part-*"):
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
    """The records of JSON lines or Parquet output files, concatenated in order (nested
    fields as JSON gives them: lists and dicts)."""
    frames = []
    for p in paths:
        p = Path(p)
        if p.suffix == ".parquet":
            frame = pd.read_parquet(p)
            for c in frame.columns:
                if frame[c].dtype == object:
                    frame[c] = [_as_json(v) for v in frame[c]]
            frames.append(frame)
        else:
            with open(p, encoding="utf-8") as f:
                frames.append(pd.DataFrame([json.loads(line) for line in f]))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def _as_json(v: Any) -> Any:
    """A value read from Parquet as JSON gives it: arrays as lists, structs as dicts."""
    if hasattr(v, "tolist") and not isinstance(v, str):
        v = v.tolist()
    if isinstance(v, list):
        return [_as_json(e) for e in v]
    if isinstance(v, dict):
        return {k: _as_json(e) for k, e in v.items()}
    return v
