"""The batch path-walker: one AXp and all CXps of many rows of a decision tree at once.

Izza, Ignatiev & Marques-Silva, "On Explaining Decision Trees" (arXiv:2010.11034, 2020;
JAIR 2022), Sections 4-5, over rows. For an instance ``v`` predicted ``c`` and a reachable
path ``p`` of another class, the *disagreement set* ``D_p`` is the set of features whose
literal on ``p`` excludes ``v``'s cell. Then

* a set ``S`` of features entails the prediction  ⇔  ``S`` hits every ``D_p``;
* the CXps are the subset-minimal sets among the ``D_p``;
* one AXp is found by deletion: start from all features and drop each, in order, whenever
  the rest still hits every ``D_p``.

:func:`explain_batch` runs all three, row after row, in one compiled kernel
(:func:`xdt.explain.engines._kernels.explain_rows`) over the tree's flat arrays
(:class:`xdt.explain.engines._compiled.CompiledTree`), with the per-row engine's default order
``"path"`` (features off the row's path in increasing position, then the path's features
from the root down) — so the AXp is the one :meth:`xdt.Explainer.axp` returns, and the CXps
are those of :meth:`xdt.Explainer.all_cxps`, in the same order. Feature sets are multiword
bitsets: any number of features. Rows with the same cells have the same explanations: with
``dedupe`` each chunk explains its distinct cell vectors once.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np
import pandas as pd

from xdt.errors import ComputationLimitError, EngineNotAvailableError, ParameterError
from xdt.explain._models import constrained_refusal, is_constrained, kind_name
from xdt.explain.engines import _deadline
from xdt.explain.engines import _edge_kernels as edge_kernels
from xdt.explain.engines import _kernels as kernels
from xdt.explain.engines._compiled import CompiledTree, compiled, masks_of
from xdt.explain.engines._oracle import bits
from xdt.ir._protocol import PATHS, offers
from xdt.ir._tree import DecisionTree

WHAT = ("axp", "cxps")
"""What :func:`explain_batch` can compute: one AXp (default order ``"path"``), all CXps."""
DEFAULT_MAX_MEMORY = 256 * 2**20
"""Default working-memory budget of :func:`explain_batch`, in bytes (256 MiB)."""
LIMITED_ROWS = 2048
"""Most rows one kernel call explains when :func:`explain_batch` runs under a time limit:
the deadline is polled between such slices (the kernel reads no clock)."""
_CXPS_PER_ROW = 4  # first guess of the CXps per row, for the kernel's output buffer


def _rows_per_chunk(n_features: int, n_words: int, chunk_rows: int | None,
                    max_memory: int | None) -> int:
    """Rows per chunk: the chunk's arrays — per row its cells, leaf, AXp and (a first
    guess of) its CXps, 8-byte entries — within the budget."""
    budget = DEFAULT_MAX_MEMORY if max_memory is None else max_memory
    per_row = 8 * (n_features + 2 + n_words * (1 + _CXPS_PER_ROW))
    rows = max(1, budget // per_row)
    if chunk_rows is not None:
        rows = min(rows, chunk_rows) if max_memory is not None else chunk_rows
    return rows


def _check_args(what: Sequence[str] | str, chunk_rows: object, max_memory: object) -> tuple:
    if isinstance(what, str):
        what = (what,)
    what = tuple(what)
    bad = [w for w in what if w not in WHAT]
    if bad or not what:
        raise ParameterError(f"what must name some of {WHAT}, got {what!r}")
    for name, v in (("chunk_rows", chunk_rows), ("max_memory", max_memory)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, int | np.integer)
                              or v < 1):
            raise ParameterError(f"{name} must be a positive integer or None, got {v!r}")
    return what


def explain_batch(tree: DecisionTree, X: Any, what: Sequence[str] | str = WHAT, *,
                  chunk_rows: int | None = None, max_memory: int | None = None,
                  as_frame: bool = True, dedupe: bool = True,
                  time_limit: float | _deadline.Deadline | None = None
                  ) -> pd.DataFrame | Iterator[dict]:
    """One AXp and all CXps of the prediction for every row of ``X``, vectorised.

    The answers are those of the per-row path engine: the AXp of
    ``Explainer(tree).axp(x)`` (default order ``"path"``) and the CXps of
    ``Explainer(tree).all_cxps(x)``, in the same order (by size, then by feature
    positions). Izza, Ignatiev & Marques-Silva, "On Explaining Decision Trees", Sections
    4-5 (see the module docstring).

    Parameters
    ----------
    tree : DecisionTree
    X : array-like of shape (n, n_features), pandas DataFrame, list of dicts, or dict
        Rows of feature values, as :meth:`DecisionTree.encode` reads them.
    what : {"axp", "cxps"} or a sequence of them
        What to compute (default both).
    chunk_rows : int, optional
        Rows explained together. By default sized from ``max_memory``; with both, the
        smaller.
    max_memory : int, optional
        Working-memory budget in bytes for the arrays of one chunk (default
        :data:`DEFAULT_MAX_MEMORY`, 256 MiB): per row its cells, leaf, AXp and CXps, 8
        bytes an entry (a feature set takes ``ceil(F / 64)`` entries); the Python output of
        the chunk (tuples of names) comes on top.
    as_frame : bool
        True (default): a DataFrame; False: an iterator of one dict per row, produced
        chunk by chunk (the encoded cells of ``X`` are held in full either way).
    dedupe : bool
        True (default): explain each distinct cell vector of a chunk once (rows with the
        same cells have the same explanations); False: every row (for measurements).
    time_limit : float or Deadline, optional
        Seconds (or a shared :class:`~xdt.explain.queries.Deadline`) the whole batch may
        take, from the call (default: the deadline active in this thread, if any, else no
        limit). The rows are then explained in slices of at most :data:`LIMITED_ROWS`, the
        deadline polled before each; when it has passed the call raises, or with
        ``as_frame=False`` the iterator raises after the rows it has given. Reading ``X``
        (one compiled pass) is polled before and after, not inside.

    Returns
    -------
    pandas.DataFrame or iterator of dict
        One row per row of ``X`` (the DataFrame keeps a DataFrame ``X``'s index), with
        ``prediction`` (class label); for ``"axp"``: ``axp`` (tuple of feature names, in
        feature order) and ``axp_size`` (int); for ``"cxps"``: ``cxps`` (list of tuples of
        feature names, smallest first) and ``n_cxps`` (int).

    Raises
    ------
    EngineNotAvailableError
        ``tree`` is not a decision tree (a DNF): the batch path-walker reads paths; explain
        a DNF row by row with ``Explainer(model, engine="sat")``; also for a tree with
        background constraints, which the path-walker does not take into account.
    InstanceError
        (:class:`~xdt.errors.InstanceShapeError`, :class:`~xdt.errors.MissingFeatureError`,
        :class:`~xdt.errors.MissingValueError`, :class:`~xdt.errors.UnknownCategoryError`)
        on bad rows, from :meth:`DecisionTree.encode`.
    ParameterError
        Bad ``what``, ``chunk_rows``, ``max_memory`` or ``time_limit``.
    ComputationLimitError
        When ``time_limit`` passes before the last row is explained (``limit=
        "time_limit"``): a table with rows missing is not returned.

    Notes
    -----
    For ``n`` rows (distinct cell vectors, with ``dedupe``), ``P`` paths of total length
    ``L``, ``F`` features, ``W = ceil(F / 64)``, ``k`` disagreement sets and ``m`` CXps per
    row (``m <= k <= P``): O(n (L + k log k + k m W)) time to build the sets and keep the
    minimal ones, O(n m (W + F)) for the AXps by deletion; memory O(chunk (F + m W)).
    Bad arguments, models and rows raise at the call, also with ``as_frame=False``.
    """
    if not offers(tree, PATHS):
        raise EngineNotAvailableError(
            f"explain_batch is the batch path-walker for decision trees (it reads their "
            f"root-to-leaf paths), and this model is a {kind_name(tree)}; explain it row by "
            "row with the per-row SAT engine: Explainer(model, engine='sat').axp(x) / "
            ".all_cxps(x)")
    if is_constrained(tree):
        raise constrained_refusal("explain_batch (the batch path-walker)", tree)
    what = _check_args(what, chunk_rows, max_memory)
    deadline = _deadline.as_deadline(time_limit)
    if deadline is None:
        deadline = _deadline.active()
    _poll(deadline)
    cells = tree.encode(X)
    _poll(deadline)
    index = X.index if isinstance(X, pd.DataFrame) else None
    chunks = _chunks(tree, cells, what, chunk_rows, max_memory, dedupe, deadline)
    columns = batch_columns(what)
    if not as_frame:
        return _records(chunks, columns)
    parts = list(chunks)
    frame = pd.DataFrame({c: [v for part in parts for v in part[c]] for c in columns},
                         columns=columns)
    if index is not None:
        frame.index = index
    return frame


def _poll(deadline: _deadline.Deadline | None) -> None:
    """Raise :class:`~xdt.errors.ComputationLimitError` when ``deadline`` has passed."""
    if deadline is not None and deadline.expired():
        raise ComputationLimitError(
            f"explain_batch: the time limit of {deadline.seconds:g} s passed before the last "
            "row was explained; raise time_limit, or explain fewer rows per call",
            limit="time_limit")


def _records(chunks: Iterable[dict[str, list]], columns: list[str]) -> Iterator[dict]:
    """One dict per row from the column lists of each chunk."""
    for part in chunks:
        for values in zip(*(part[c] for c in columns), strict=True):
            yield dict(zip(columns, values, strict=True))


def _chunks(tree: DecisionTree, cells: np.ndarray, what: tuple, chunk_rows: int | None,
            max_memory: int | None, dedupe: bool = True,
            deadline: _deadline.Deadline | None = None) -> Iterator[dict[str, list]]:
    """Per chunk of rows, the output columns as lists (one entry per row); under
    ``deadline``, chunks of at most :data:`LIMITED_ROWS`, the deadline polled before each."""
    ct = compiled(tree)
    names = tree.features.names
    labels = tree.classes
    step = _rows_per_chunk(ct.n_features, ct.n_words, chunk_rows, max_memory)
    if deadline is not None:
        step = min(step, LIMITED_ROWS)
    as_names: dict[int, tuple[str, ...]] = {}

    def named(m: int) -> tuple[str, ...]:
        t = as_names.get(m)
        if t is None:
            t = as_names[m] = tuple(names[f] for f in bits(m))
        return t

    for start in range(0, len(cells), step):
        _poll(deadline)
        chunk = cells[start:start + step]
        if dedupe:
            uniq, inverse = _distinct_rows(chunk)
        else:
            uniq, inverse = chunk, None
        leaf, axp_words, counts, cx_words = explain_rows(ct, uniq, "axp" in what,
                                                         "cxps" in what)
        pred = [labels[c] for c in ct.path_class[leaf].tolist()]
        axps = sizes = None
        if "axp" in what:  # name each distinct AXp once
            first, which = kernels.distinct_rows(axp_words)
            tuples = [named(m) for m in masks_of(axp_words[first])]
            axps = [tuples[i] for i in which.tolist()]
            sizes = np.bitwise_count(axp_words).sum(axis=1).tolist()
        cxps = None
        if "cxps" in what:
            flat = [named(m) for m in masks_of(cx_words)]  # each row's in listing order
            ends = np.cumsum(counts).tolist()
            cxps = [flat[a:b] for a, b in zip([0] + ends[:-1], ends, strict=True)]
        out: dict[str, list] = {}
        if inverse is None:
            out["prediction"] = pred
            if axps is not None:
                out["axp"] = axps
                out["axp_size"] = sizes
            if cxps is not None:
                out["cxps"] = cxps
                out["n_cxps"] = counts.tolist()
        else:
            where = inverse.tolist()
            out["prediction"] = [pred[u] for u in where]
            if axps is not None:
                out["axp"] = [axps[u] for u in where]
                out["axp_size"] = [sizes[u] for u in where]
            if cxps is not None:
                n_cxps = counts.tolist()
                out["cxps"] = [list(cxps[u]) for u in where]  # a list of its own per row
                out["n_cxps"] = [n_cxps[u] for u in where]
        yield out


def explain_rows(ct: CompiledTree, cells: np.ndarray, axp: bool = True, cxps: bool = True
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The leaf, one AXp (order ``"path"``) and all CXps of every row, by
    :func:`xdt.explain.engines._kernels.explain_rows`.

    Parameters
    ----------
    ct : CompiledTree
    cells : numpy.ndarray of shape (n, F), int64

    Returns
    -------
    leaves : numpy.ndarray of shape (n,), int64
    axps : numpy.ndarray of shape (n, W), uint64
        Each row's AXp (zeros when ``axp`` is False).
    counts : numpy.ndarray of shape (n,), int64
        Each row's number of CXps.
    cx_words : numpy.ndarray of shape (counts.sum(), W), uint64
        The rows' CXps, row after row, each row's in the order of
        :meth:`xdt.Explainer.all_cxps` (empty when ``cxps`` is False).
    """
    cells = np.ascontiguousarray(cells, dtype=np.int64)
    n, w = len(cells), ct.n_words
    leaves = np.empty(n, dtype=np.int64)
    axps = np.zeros((n, w), dtype=np.uint64)
    counts = np.zeros(n, dtype=np.int64)
    if ct.edge_form:  # a deep tree: no table of every path's literals
        return _edge_rows(ct, cells, axp, cxps, leaves, axps, counts)
    if axp and not cxps and ct.sliced:  # the AXps alone: by feature slices, no D_p
        kernels.axp_rows(ct.tables, cells, leaves, axps)
        return leaves, axps, counts, np.empty((0, w), dtype=np.uint64)
    words = np.empty((max(n * _CXPS_PER_ROW, 1) if cxps else 1, w), dtype=np.uint64)
    done = used = 0
    while True:  # the CXps buffer grows when a row's CXps do not fit
        res = kernels.explain_rows(ct.tables, cells[done:], axp, cxps, leaves[done:],
                                   axps[done:], counts[done:], words[used:])
        if res >= 0:
            used += res
            break
        rows = -1 - res
        used += int(counts[done:done + rows].sum())
        done += rows
        bigger = np.empty((2 * len(words) + ct.n_paths, w), dtype=np.uint64)
        bigger[:used] = words[:used]
        words = bigger
    return leaves, axps, counts, words[:used]


def _edge_rows(ct: CompiledTree, cells: np.ndarray, axp: bool, cxps: bool, leaves, axps,
               counts) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`explain_rows` on a tree in edge form (:mod:`._edge_kernels`): the leaves and
    AXps by :func:`~xdt.explain.engines._edge_kernels.axp_rows`, the CXps by
    :func:`~xdt.explain.engines._edge_kernels.cxp_rows`."""
    t = ct.edge_tables
    edge_kernels.axp_rows(t, cells, axp, leaves, axps)
    w = ct.n_words
    if not cxps:
        return leaves, axps, counts, np.empty((0, w), dtype=np.uint64)
    words = np.empty((max(len(cells) * _CXPS_PER_ROW, 1), w), dtype=np.uint64)
    done = used = 0
    while True:  # the CXps buffer grows when a row's CXps do not fit
        res = edge_kernels.cxp_rows(t, cells[done:], counts[done:], words[used:])
        if res >= 0:
            used += res
            break
        rows = -1 - res
        used += int(counts[done:done + rows].sum())
        done += rows
        bigger = np.empty((2 * len(words) + ct.n_paths, w), dtype=np.uint64)
        bigger[:used] = words[:used]
        words = bigger
    return leaves, axps, counts, words[:used]


def _distinct_rows(cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of ``cells`` (shape (n, F)), in order of first appearance, and, per
    row, its position among them (shape (n,)): one pass of a hash table
    (:func:`xdt.explain.engines._kernels.distinct_rows`)."""
    if cells.shape[1] == 0:
        return cells[:1], np.zeros(len(cells), dtype=np.int64)
    first, inverse = kernels.distinct_rows(np.ascontiguousarray(cells, dtype=np.int64)
                                           .view(np.uint64))
    return cells[first], inverse


def batch_columns(what: Iterable[str]) -> list[str]:
    """The columns :func:`explain_batch` returns for ``what``."""
    what = tuple(what)
    return (["prediction"] + (["axp", "axp_size"] if "axp" in what else [])
            + (["cxps", "n_cxps"] if "cxps" in what else []))
