"""One way to explain many rows: :func:`explain_table` explains a table in memory, in chunks
written to files as they are done, or partition by partition on a Dask cluster, chosen by
its arguments, with the batch path-walker or row by row with an
:class:`~xdt.explain.Explainer`; every row's record is built by
:func:`xdt.run.explanation_record` (schema ``xdt-explanation/1``).

:func:`explain_dask`, ``xdt explain`` (row by row, ``--batch``, ``--workers``,
``--scheduler``) and the HTML report's :func:`xdt.report._html.explain_rows` call it.
"""

from __future__ import annotations

import contextlib
import glob
import itertools
import os
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from xdt.errors import ParameterError
from xdt.explain._explainer import Explainer
from xdt.explain._models import Model
from xdt.explain.engines._vectorised import WHAT
from xdt.run import _chunked as chunked
from xdt.run import _distributed as distributed
from xdt.run._lock import output_lock
from xdt.run._records import (
    DEFAULT_CHUNK_ROWS,
    BatchSummary,
    OnRow,
    RowExplainer,
    _check,
    _check_side_file,
    _remove,
    _side_path,
    check_output,
    per_row,
)

__all__ = ["ENGINES", "explain_dask", "explain_table", "read_chunks"]

ENGINES = ("batch", "auto", "path", "sat", "box")
"""``engine=`` of :func:`explain_table`: the batch path-walker, or an Explainer's engine
(``"auto"``: the model's own) explaining row by row."""


def _is_dask_frame(data: Any) -> bool:
    """Whether ``data`` is a Dask DataFrame (without importing Dask when it is not)."""
    return type(data).__module__.split(".")[0] == "dask" and hasattr(data, "to_delayed")


def explain_table(model: Model, data: Any, *, what: Sequence[str] | str = WHAT,
                  output: str | os.PathLike | None = None, fmt: str = "jsonl",
                  chunk_rows: int = DEFAULT_CHUNK_ROWS, progress: bool = True,
                  on_invalid: str = "raise", invalid_output: str | os.PathLike | None = None,
                  overwrite: bool = False, client: Any = None,
                  npartitions: int | None = None, engine: str | Explainer = "batch",
                  options: dict | RowExplainer | None = None,
                  on_row: OnRow | None = None) -> pd.DataFrame | BatchSummary:
    """Explain every row of ``data``: in memory, to files chunk by chunk, or on Dask.

    Where it runs is chosen by the arguments:

    * a pandas DataFrame (or array, or list of dicts) without ``output``: in memory, the
      records returned as a DataFrame;
    * with ``output``: chunk by chunk on this process, each chunk appended to a JSON lines
      file (or written as one Parquet file of a folder) as soon as it is done;
    * a stream, an iterator of DataFrames (:func:`read_chunks` of a CSV file, or
      ``pandas.read_csv(..., chunksize=N)``): chunk by chunk on this process, each read,
      explained, written (or kept, without ``output``) and dropped before the next is
      read, so that memory holds one chunk of rows however long the file;
    * a Dask DataFrame, a path or glob of CSV/Parquet files, or a ``client``: partition
      by partition on a Dask cluster, one file per partition in the folder ``output``.

    How each row is explained is chosen by ``engine``: ``"batch"`` (default), the batch
    path-walker (:meth:`xdt.Explainer.explain_batch`: decision trees; one AXp, the per-row
    engine's, and all CXps; no certificates); or row by row with an Explainer
    (:func:`xdt.run.explain_instance`: any model, certificates, the user's terms,
    enumerations, time limits; ``options``). Every record is
    :func:`~xdt.run.explanation_record`'s (schema ``xdt-explanation/1``).

    Parameters
    ----------
    model : DecisionTree, DNF, NestedKDNF, DecisionList or TreeEnsemble
        The batch path-walker explains decision trees without background constraints (a
        DNF raises :class:`~xdt.errors.EngineNotAvailableError`); row by row, any model.
    data : DataFrame, array-like, list of dicts, iterator of DataFrames, Dask DataFrame, path
        The rows (columns by feature name; others ignored). ``row`` in the records is a
        DataFrame's index label (of each chunk of a stream: for :func:`read_chunks`, the
        row's 0-based position in the file), the position for other rows, and the 0-based
        position over all the files for a path or glob (read by
        :func:`xdt.run.read_dask`: a path still means Dask).
    what : {"axp", "cxps"} or a sequence of them
        What the batch path-walker computes (default both).
    output : path, optional
        None: return the records as a DataFrame (not with Dask). With ``fmt="jsonl"``: a
        JSON lines file written chunk by chunk; with ``fmt="parquet"``, or on Dask: a
        folder (created) receiving ``part-00000.jsonl`` / ``.parquet``, ... one file per
        chunk or partition, on a file system the workers share.
    fmt : {"jsonl", "parquet"}
    chunk_rows : int
        Rows explained and written together on this process (default
        :data:`DEFAULT_CHUNK_ROWS`).
    progress : bool
        Show a tqdm progress bar on standard error (rows; on Dask, partitions; for a
        stream, whose length is unknown, the count of rows done and their rate).
    on_invalid : {"raise", "skip"}
        A row the model cannot read (unknown category, missing value, text for a number):
        "raise" (default) writes the rows before it and raises
        :class:`~xdt.errors.InvalidRowError` (on Dask: its partition writes no file, the
        partitions not yet started are not run, those running finish); "skip" leaves it
        out, writes it with its reason to the side file, and goes on.
    invalid_output : path, optional
        With "skip": the side file (JSON lines of ``row``, ``reason``, ``values``), created
        only if a row is skipped. Default :func:`~xdt.run.default_invalid_output` of
        ``output``; in memory, the skipped rows are also in the returned DataFrame's
        ``attrs["invalid"]`` (a list of those dicts).
    overwrite : bool
        Replace an existing output file (or the ``part-*`` files of the folder) and side
        file; False (default) raises :class:`~xdt.errors.OutputExistsError`. An output
        that is one of the run's input files is refused either way.
    client : distributed.Client, optional
        Explain on this Dask cluster (default, for a Dask DataFrame or files: the current
        client, ``distributed.get_client()``); the model is sent once to every worker.
    npartitions : int, optional
        On Dask: repartition the data into this many partitions first.
    engine : {"batch", "auto", "path", "sat", "box"} or Explainer
        ``"batch"``: the batch path-walker. Otherwise each row is explained by an
        :class:`~xdt.explain.Explainer` with this engine (``"auto"``: the model's own), or
        by the Explainer given (its engine, solver and certificates; on this process).
    options : dict or callable, optional
        Row by row: the keywords of :func:`~xdt.run.explain_instance`
        (``all_axps``, ``all_cxps``, ``max_count``, ``time_limit``, ``path_restricted``,
        ``inflate``, ``verify``, ``exclude``, ``immutable``, ``weights``,
        ``certificates``); or, on this process, a callable ``options(explainer, x)``
        returning the explanations of the instance ``x`` (a dict by feature name) as an
        :class:`~xdt.run.InstanceExplanation` or as the fields of its record.
    on_row : callable, optional
        Row by row, in memory: ``on_row(record, found, x)`` as each row is explained, with
        its record, what explained it and the row (to print a record as soon as it is
        made, or to keep the explanations themselves).

    Returns
    -------
    pandas.DataFrame or BatchSummary
        In memory, the records (one column per field: ``format``, ``row``,
        ``prediction``, ``axp``, ``axp_size``, ``cxps``, ``n_cxps``, and the per-row
        engine's other fields; a field a row lacks is NaN); with an output, a
        :class:`~xdt.run.BatchSummary` (rows, chunks or partitions, files, rows skipped
        and where).

    Raises
    ------
    BatchInterrupted
        (a ``KeyboardInterrupt``) on Ctrl-C, with an output: every record written so far
        is complete (no half line, no half file); its ``rows`` says how many. In memory,
        the interruption itself (:class:`~xdt.run.ExplainInterrupted` row by row,
        with the partial record).
    InvalidRowError
        (a :class:`~xdt.errors.DataError`) with "raise", at the first bad row: its label
        and reason, and the rows written before it and where; raised from the reader's
        error (``__cause__``: an :class:`~xdt.errors.InstanceError`, as ``model.predict``
        and ``Explainer.axp`` raise for the same value).
    DataError
        The table lacks a feature's column; on Dask, a partition cannot be read; a
        stream's chunk cannot be read (its reader's error, the first chunk's before any
        output is made; a later one's message completed with the rows already written
        and where, as for a full disk).
    OutputExistsError, OutputError
        The output exists (without ``overwrite``), or cannot be written (the message says
        why: missing folder, a file in the way, permission denied, one of the files ``data``
        names, with or without ``overwrite``). Stopped by a file it cannot write (a full
        disk), the run leaves only complete records, and the error's message (and its
        ``written``, ``outputs``) says how many rows are on disk and in which files.
    OutputLockedError
        Another run is writing ``output``: each run holds a lock file beside its output
        (``OUT.lock``) while it runs; the message names the process holding it.
    DaskNotInstalledError
        Dask is needed (a Dask DataFrame, files, a client) and not installed
        (``pip install "xdt[dask]"``).
    ParameterError
        Bad ``what``, ``fmt``, ``chunk_rows``, ``on_invalid``, ``engine`` or ``options``,
        ``options`` with ``engine="batch"``, ``on_row`` with an output or on Dask, Dask
        without ``output``, or a stream with ``client`` or ``npartitions``.
    """
    what = _check(what, fmt)
    if isinstance(chunk_rows, bool) or not isinstance(chunk_rows, int) or chunk_rows < 1:
        raise ParameterError(f"chunk_rows must be a positive integer, got {chunk_rows!r}")
    stream = chunked.is_stream(data)
    if stream and (client is not None or npartitions is not None):
        raise ParameterError("a stream of chunks is explained on this process: give a path, "
                             "a glob or a Dask DataFrame for a Dask cluster, or leave out "
                             "client and npartitions")
    on_dask = client is not None or _is_dask_frame(data) or isinstance(data, str | os.PathLike)
    explainer, explain = _engine(model, engine, options, on_dask)
    if on_row is not None and (on_dask or output is not None or explain is None):
        raise ParameterError("on_row is called as each row is explained row by row in "
                             "memory: give an engine other than 'batch', and no output "
                             "or Dask cluster")
    side_path = _side_path(output, on_invalid, invalid_output)
    if on_dask:
        if output is None:
            raise ParameterError("on a Dask cluster each partition writes its file: give "
                                 "output=FOLDER")
        distributed.require_dask()
        inputs = input_files(data)
        check_output(output, directory=True, overwrite=overwrite, invalid_output=side_path,
                     inputs=inputs)
        with output_lock(output):  # checked again: another run may have written meanwhile
            replaced = check_output(output, directory=True, overwrite=overwrite,
                                    invalid_output=side_path, inputs=inputs)
            return distributed.run_dask(
                model, data, client=client, output=Path(output), fmt=fmt, what=what,
                npartitions=npartitions, progress=progress, on_invalid=on_invalid,
                side_path=side_path, replaced=replaced, start=time.perf_counter(),
                engine=None if explain is None else (
                    engine if isinstance(engine, str) else "auto"),
                options=options if isinstance(options, dict) else None)
    if npartitions is not None:
        raise ParameterError("npartitions splits the data of a Dask run: give a Dask "
                             "DataFrame, files or a client, or leave it out")
    assert explainer is not None
    with contextlib.ExitStack() as stack:
        if output is not None:
            check_output(output, directory=fmt == "parquet", overwrite=overwrite,
                         invalid_output=side_path)
            stack.enter_context(output_lock(output))  # then checked again, held to the end
            replaced = check_output(output, directory=fmt == "parquet", overwrite=overwrite,
                                    invalid_output=side_path)
            data = _first_chunk(data) if stream else data  # before replacing anything
            _remove(replaced)
        elif side_path is not None:
            _remove(_check_side_file(side_path, overwrite))
        start = time.perf_counter()
        return chunked.run_chunks(explainer, data, what=what,
                                  output=None if output is None else Path(output), fmt=fmt,
                                  chunk_rows=chunk_rows, progress=progress,
                                  on_invalid=on_invalid, side_path=side_path, start=start,
                                  explain=explain, on_row=on_row)


def _first_chunk(stream: Iterator[Any]) -> Iterator[Any]:
    """``stream`` with its first chunk read now: the checks of a file that come with its
    first chunk (its header, a missing column) fail before an output is made or replaced."""
    first = next(stream, None)
    return iter(()) if first is None else itertools.chain([first], stream)


def read_chunks(model: Model, path: str | os.PathLike,
                chunk_rows: int = DEFAULT_CHUNK_ROWS) -> Iterator[pd.DataFrame]:
    """The rows of a CSV file for ``model``, ``chunk_rows`` at a time: the stream that
    :func:`explain_table` explains on this process holding one chunk at a time.

    Every cell of a feature's column is read by one rule, the same in any chunk
    (:mod:`xdt.interop._csvchunks`): numbers for an ordinal feature, the text of a text
    domain (``"01"`` stays ``"01"``), empty cells missing, ``NA`` text.

    Parameters
    ----------
    model : Model
    path : str or path
        A CSV file (``.gz``, ``.bz2``, ``.xz``, ``.zip`` by extension), with a header row.
    chunk_rows : int
        Rows per chunk.

    Returns
    -------
    iterator of pandas.DataFrame
        The model's features' columns, in order, indexed by each row's 0-based position
        in the file (the ``row`` of its record).

    Raises
    ------
    MissingFileError, FieldCountError, MissingFeatureError, DataError
        As :func:`xdt.interop._csvchunks.read_chunks` says, when the chunk concerned is read
        (a missing column, a bad header: at the first).

    Examples
    --------
    >>> summary = explain_table(model, read_chunks(model, "big.csv"),
    ...                         output="out.jsonl")  # doctest: +SKIP
    """
    from xdt.interop._csvchunks import read_chunks as chunks

    if isinstance(chunk_rows, bool) or not isinstance(chunk_rows, int) or chunk_rows < 1:
        raise ParameterError(f"chunk_rows must be a positive integer, got {chunk_rows!r}")
    return chunks(path, model.features, chunk_rows)


def input_files(data: Any) -> list[str]:
    """The files a run reads when ``data`` is a path or a glob of paths (a sequence of
    them too); none for a table in memory."""
    if isinstance(data, str | os.PathLike):
        data = [data]
    if not isinstance(data, list | tuple) or not all(
            isinstance(d, str | os.PathLike) for d in data):
        return []
    found: list[str] = []
    for d in map(os.fspath, data):
        found += glob.glob(d) if glob.has_magic(d) else [d]
    return found


def _engine(model: Model, engine: str | Explainer, options: dict | RowExplainer | None,
            on_dask: bool) -> tuple[Explainer | None, RowExplainer | None]:
    """The Explainer of a run (None on Dask: each worker makes its own) and its per-row
    engine (None: the batch path-walker); ``engine`` and ``options`` checked."""
    if isinstance(engine, Explainer):
        if on_dask:
            raise ParameterError("on a Dask cluster, name the engine (engine='sat', ...): "
                                 "each worker makes its own Explainer")
        if engine.model is not model:
            raise ParameterError("engine is an Explainer of another model; give one of "
                                 "this model, or the engine's name")
        explainer = engine
    elif engine not in ENGINES:
        raise ParameterError(f"engine must be one of {', '.join(ENGINES)} or an Explainer, "
                             f"got {engine!r}")
    elif engine == "batch":
        if options is not None:
            raise ParameterError("options are for explaining row by row: give engine="
                                 "'auto' (or 'path', 'sat', 'box', an Explainer), or leave "
                                 "options out for the batch path-walker")
        return (None if on_dask else Explainer(model, engine="path", certificates=False),
                None)
    else:
        explainer = None if on_dask else Explainer(model, None if engine == "auto" else engine)
    if callable(options):
        if on_dask:
            raise ParameterError("on a Dask cluster, give the per-row options as a dict of "
                                 "explain_instance's keywords")
        return explainer, options
    if options is not None and not isinstance(options, dict):
        raise ParameterError(f"options must be a dict of explain_instance's keywords or a "
                             f"callable, got {type(options).__name__}")
    return explainer, per_row(options)


def explain_dask(model: Model, data: Any, *, client: Any = None,
                 output: str | os.PathLike, fmt: str = "jsonl",
                 what: Sequence[str] | str = WHAT, npartitions: int | None = None,
                 progress: bool = False, on_invalid: str = "raise",
                 invalid_output: str | os.PathLike | None = None,
                 overwrite: bool = False, engine: str = "batch",
                 options: dict | None = None) -> BatchSummary:
    """Explain every row of ``data`` on a Dask cluster, one output file per partition:
    :func:`explain_table` with ``client`` (and a progress bar off by default).

    Each partition is explained on a worker, which writes ``OUTPUT/part-00000.jsonl`` (or
    ``.parquet``), ... atomically; the records equal those of :func:`explain_table` on one
    process.

    Parameters
    ----------
    model : DecisionTree (or any model, row by row)
        Sent once to every worker (``client.scatter(..., broadcast=True)``).
    data : dask.dataframe.DataFrame, or str / path
        The rows (``row`` is their index label), or a path or glob of CSV or Parquet files
        (``row`` is the 0-based position over the files, see :func:`xdt.run.read_dask`).
    client : distributed.Client, optional
        Default: the current client (``distributed.get_client()``).
    output, fmt, what, npartitions, progress, on_invalid, invalid_output, overwrite, engine, options
        As in :func:`explain_table` (``engine`` by name, ``options`` a dict).

    Returns
    -------
    BatchSummary
        Rows, partitions, seconds, the files in partition order, rows skipped and where.

    Raises
    ------
    As :func:`explain_table`; the message of an :class:`~xdt.errors.InvalidRowError`,
    :class:`~xdt.errors.DataError` or :class:`~xdt.errors.OutputError` says which
    partitions were written (files, rows), which stopped and which were not run.
    """
    if not (client is not None or _is_dask_frame(data) or isinstance(data, str | os.PathLike)):
        raise ParameterError(f"data must be a Dask DataFrame or a path, got "
                             f"{type(data).__name__}; explain a pandas DataFrame with "
                             "explain_table, or pass client=")
    result = explain_table(model, data, what=what, output=output, fmt=fmt,
                           progress=progress, on_invalid=on_invalid,
                           invalid_output=invalid_output, overwrite=overwrite, client=client,
                           npartitions=npartitions, engine=engine, options=options)
    assert isinstance(result, BatchSummary)
    return result

