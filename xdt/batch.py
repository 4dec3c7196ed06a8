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

Dask is optional: ``pip install "xdt[dask]"``. Without it :func:`explain_dask` raises
:class:`DaskNotInstalledError`; Parquet output needs pyarrow (which ``xdt[dask]`` brings).
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from xdt.errors import DataError, EngineNotAvailableError, InstanceError, XdtError
from xdt.explain.batch import WHAT, batch_columns
from xdt.explain.explainer import Explainer
from xdt.explain.models import Model
from xdt.ir.values import to_python

#: Rows explained (and written) together by :func:`explain_table` by default.
DEFAULT_CHUNK_ROWS = 5000
#: Output formats.
FORMATS = ("jsonl", "parquet")
_INSTALL = 'pip install "xdt[dask]"'


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
    """

    def __init__(self, rows: int, outputs: Sequence[str]):
        self.rows = rows
        self.outputs = list(outputs)
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
    """

    rows: int
    partitions: int
    seconds: float
    outputs: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        """JSON-ready dict of the summary."""
        return {"rows": self.rows, "partitions": self.partitions, "seconds": self.seconds,
                "outputs": list(self.outputs)}


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
    """Write ``records`` to ``path`` through a temporary file renamed into place."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        if fmt == "jsonl":
            tmp.write_bytes(_jsonl_bytes(records))
        else:
            records.to_parquet(tmp, index=False)
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
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


# ---------------------------------------------------------------------- one process
def _table_index(X: Any, n: int) -> list:
    return list(X.index) if isinstance(X, pd.DataFrame) else list(range(n))


def explain_table(model: Model, X: Any, *, what: Sequence[str] | str = WHAT,
                  output: str | os.PathLike | None = None, fmt: str = "jsonl",
                  chunk_rows: int = DEFAULT_CHUNK_ROWS, progress: bool = True
                  ) -> pd.DataFrame | BatchSummary:
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
        written chunk by chunk (replaced if it exists). With ``fmt="parquet"``: a directory
        (created) receiving ``part-00000.parquet``, ... one file per chunk.
    fmt : {"jsonl", "parquet"}
    chunk_rows : int
        Rows explained and written together (default :data:`DEFAULT_CHUNK_ROWS`).
    progress : bool
        Show a tqdm progress bar (rows) on standard error.

    Returns
    -------
    pandas.DataFrame or BatchSummary
        Without ``output``, the records (columns ``row``, ``prediction``, ``axp``,
        ``axp_size``, ``cxps``, ``n_cxps``; ``row`` is ``X``'s index label, or the
        position); with it, a :class:`BatchSummary`.

    Raises
    ------
    BatchInterrupted
        (a ``KeyboardInterrupt``) on Ctrl-C: every record written so far is complete (no
        half line, no half file); its ``rows`` says how many.
    DataError
        A bad row (named by its ``row`` label; no record of its chunk is written).
    """
    what = _check(what, fmt)
    if isinstance(chunk_rows, bool) or not isinstance(chunk_rows, int) or chunk_rows < 1:
        raise ValueError(f"chunk_rows must be a positive integer, got {chunk_rows!r}")
    start = time.perf_counter()
    explainer = Explainer(model, engine="path", certificates=False)
    n = len(X)
    index = _table_index(X, n)
    frame_input = isinstance(X, pd.DataFrame)

    def chunks() -> Iterator[pd.DataFrame]:
        for lo in range(0, n, chunk_rows):
            part = X.iloc[lo:lo + chunk_rows] if frame_input else X[lo:lo + chunk_rows]
            yield _explain_rows(explainer, part, index[lo:lo + chunk_rows], what, chunk_rows)

    bar = None
    if progress:
        import sys

        from tqdm import tqdm

        bar = tqdm(total=n, desc="explaining", unit="row", file=sys.stderr,
                   dynamic_ncols=True, leave=False)
    try:
        if output is None:
            parts = []
            for records in chunks():
                parts.append(records)
                if bar is not None:
                    bar.update(len(records))
            if not parts:
                return pd.DataFrame(columns=["row"] + batch_columns(what))
            return pd.concat(parts, ignore_index=True)
        return _write_table(chunks(), Path(output), fmt, bar, start)
    finally:
        if bar is not None:
            bar.close()


def _write_table(chunks: Iterator[pd.DataFrame], output: Path, fmt: str, bar: Any,
                 start: float) -> BatchSummary:
    """Write the records of each chunk as soon as it is computed (see :func:`explain_table`)."""
    written, parts, outputs = 0, 0, []
    if fmt == "jsonl":
        fd = os.open(output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o666)
        outputs = [str(output)]
        try:
            for records in chunks:
                _append(fd, _jsonl_bytes(records))
                written += len(records)
                parts += 1
                if bar is not None:
                    bar.update(len(records))
        except KeyboardInterrupt:
            os.close(fd)
            fd = -1
            raise BatchInterrupted(_complete_lines(output), outputs) from None
        finally:
            if fd >= 0:
                os.close(fd)
    else:
        output.mkdir(parents=True, exist_ok=True)
        try:
            for records in chunks:
                path = output / f"part-{parts:05d}.parquet"
                _write_atomic(records, path, fmt)
                outputs.append(str(path))
                written += len(records)
                parts += 1
                if bar is not None:
                    bar.update(len(records))
        except KeyboardInterrupt:
            done = [p for p in outputs if Path(p).exists()]
            rows = sum(len(pd.read_parquet(p, columns=["row"])) for p in done)
            raise BatchInterrupted(rows, done) from None
    return BatchSummary(written, parts, time.perf_counter() - start, outputs)


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
            ddf = dd.read_csv(text, dtype=csv_dtypes(model), keep_default_na=False,
                              na_values=[""], blocksize=None if compressed else blocksize)
        lengths = ddf.map_partitions(len).compute()
    except XdtError:
        raise
    except (ValueError, OSError) as e:
        for name in [] if parquet else files:
            csvfile.find_long_line(name)  # the line, not Dask's count within a block
        raise DataError(f"{text}: cannot read it ({e})") from None
    offsets = [0]
    for k in lengths[:-1]:
        offsets.append(offsets[-1] + int(k))
    parts = ddf.to_delayed()
    import dask

    shifted = [dask.delayed(_renumber)(p, off) for p, off in zip(parts, offsets, strict=True)]
    return dd.from_delayed(shifted, meta=_renumber(ddf._meta, 0))


def _renumber(frame: pd.DataFrame, offset: int) -> pd.DataFrame:
    return frame.set_axis(pd.RangeIndex(offset, offset + len(frame)), axis=0)


def _explain_rows(explainer: Explainer, part: Any, labels: Sequence[Any],
                  what: tuple[str, ...], chunk_rows: int | None = None) -> pd.DataFrame:
    """The records of ``part`` (rows labelled ``labels``); a bad row raises
    :class:`~xdt.errors.DataError` naming its label."""
    try:
        result = explainer.explain_batch(part, what, chunk_rows=chunk_rows)
    except InstanceError as e:
        rows = part.iloc if isinstance(part, pd.DataFrame) else part
        for k, label in enumerate(labels):
            try:
                explainer.model.encode(rows[k:k + 1])
            except XdtError as bad:
                raise DataError(f"row {to_python(label)}: {bad}") from None
        raise DataError(str(e)) from None
    return _records_frame(result, labels)


def _explain_partition(model: Model, frame: pd.DataFrame, number: int, output: str,
                       fmt: str, what: tuple[str, ...]) -> tuple[int, int, str]:
    """Explain one partition and write its file (runs on a worker)."""
    explainer = Explainer(model, engine="path", certificates=False)
    records = _explain_rows(explainer, frame, list(frame.index), what)
    path = Path(output) / f"part-{number:05d}.{fmt}"
    _write_atomic(records, path, fmt)
    return number, len(records), str(path)


def explain_dask(model: Model, data: Any, *, client: Any = None,
                 output: str | os.PathLike, fmt: str = "jsonl",
                 what: Sequence[str] | str = WHAT, npartitions: int | None = None,
                 progress: bool = False) -> BatchSummary:
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

    Returns
    -------
    BatchSummary
        Rows, partitions, seconds, and the files in partition order.

    Raises
    ------
    DaskNotInstalledError
        Dask is not installed (``pip install "xdt[dask]"``).
    BatchInterrupted
        On Ctrl-C (the unfinished partitions are cancelled; finished files are complete).
    """
    what = _check(what, fmt)
    dd, distributed = require_dask()
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
    out = Path(output)
    out.mkdir(parents=True, exist_ok=True)
    import dask

    shipped = client.scatter(model, broadcast=True)
    tasks = [dask.delayed(_explain_partition, pure=False)(shipped, part, i, str(out.resolve()),
                                                          fmt, what)
             for i, part in enumerate(data.to_delayed())]
    futures = client.compute(tasks)
    results: dict[int, tuple[int, str]] = {}
    bar = None
    if progress:
        import sys

        from tqdm import tqdm

        bar = tqdm(total=len(futures), desc="partitions", unit="part", file=sys.stderr,
                   leave=False)
    try:
        for fut in distributed.as_completed(futures):
            number, rows, path = fut.result()
            results[number] = (rows, path)
            if bar is not None:
                bar.update(1)
    except KeyboardInterrupt:
        client.cancel(futures)
        done = [results[k] for k in sorted(results)]
        raise BatchInterrupted(sum(r for r, _ in done), [p for _, p in done]) from None
    finally:
        if bar is not None:
            bar.close()
    ordered = [results[k] for k in sorted(results)]
    return BatchSummary(sum(r for r, _ in ordered), len(ordered), time.perf_counter() - start,
                        [p for _, p in ordered])


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
