"""A decision tree compiled once into flat arrays for the kernels of
:mod:`xdt.explain.engines._kernels`, and the conversions between Python bit masks and multiword
bitsets.

:func:`compiled` returns the one :class:`CompiledTree` of a tree (built on first use, kept
with the tree while it lives). The per-row engine (:class:`xdt.explain.engines.PathOracle`)
and the batch engine (:mod:`xdt.explain.engines._vectorised`) both run on it.
"""

from __future__ import annotations

import threading
import weakref

import numpy as np

from xdt.explain.engines import _edge_kernels as edge_kernels
from xdt.explain.engines import _kernels as kernels
from xdt.explain.engines._edge_kernels import EDGE_COLUMNS, EdgeTables
from xdt.explain.engines._kernels import (
    FEAT_COLUMNS,
    FEAT_N_WORDS,
    FEAT_ORDINAL,
    FEAT_WORDS_AT,
    LIT_COLUMNS,
    NODE_CHILDREN,
    NODE_COLUMNS,
    NODE_CUT,
    NODE_FEATURE,
    NODE_PATH,
    PATH_CLASS,
    PATH_COLUMNS,
    PATH_DEAD,
    PATH_FEATURES_END,
    PATH_FEATURES_START,
    PATH_LITS_END,
    PATH_LITS_START,
    AllowedCells,
    SliceTables,
    TreeTables,
)
from xdt.ir._cells import CategoricalCells, IntervalCells
from xdt.ir._tree import DecisionTree

WORD = 64
EDGE_FORM_LENGTH = 2**16
"""Literals on all paths (the sum of their lengths) up to which a tree is always compiled
in dense form (:class:`kernels.TreeTables`, a table of every path's literals)."""
EDGE_FORM_RATIO = 32
"""Beyond :data:`EDGE_FORM_LENGTH`, a tree whose paths hold more than this many literals
per node (paths of average length over about 64: no tree of depth 32 or less) is compiled
in edge form (:class:`~xdt.explain.engines._edge_kernels.EdgeTables`), linear in its size
(:class:`EdgeCompiledTree`)."""
_DENSE_FIELDS = frozenset({
    "paths", "lits", "cat_words", "feats", "path_features", "n_awords", "excl", "excl_off",
    "tested", "tested_at", "tested_list", "others", "other_pos", "n_others", "other_rows",
    "other_masks", "tables", "slice_tables", "sliced"})
MAX_TABLE_WORDS = 2**23
"""Largest size, in 64-bit words (64 MiB), of a tree's tables of excluded paths per feature
and cell; beyond it the kernels find disagreement sets by walking the paths' literals."""
_MASK64 = (1 << WORD) - 1


def n_words(n_bits: int) -> int:
    """Words of 64 bits that hold ``n_bits`` bits (at least one)."""
    return max(1, -(-n_bits // WORD))


def to_words(mask: int, n: int) -> np.ndarray:
    """The bit mask ``mask`` as ``n`` uint64 words, lowest first; shape (n,)."""
    if n == 1:
        return np.array([mask], dtype=np.uint64)
    if n > 4:  # wide masks: read as one little-endian number (a shift per word is O(n^2))
        mask &= (1 << (WORD * n)) - 1
        return np.frombuffer(mask.to_bytes(8 * n, "little"), dtype="<u8").astype(np.uint64)
    return np.array([(mask >> (WORD * k)) & _MASK64 for k in range(n)], dtype=np.uint64)


def from_words(words) -> int:
    """The bit mask of a sequence of uint64 words, lowest first."""
    if isinstance(words, np.ndarray):
        return int.from_bytes(np.ascontiguousarray(words, dtype="<u8").tobytes(), "little")
    out = 0
    for k, w in enumerate(words):
        out |= int(w) << (WORD * k)
    return out


def rows_of(masks, width: int) -> np.ndarray:
    """Bit masks as the rows of a uint64 (n, width) array (the inverse of :func:`masks_of`)."""
    if width == 1:
        return np.asarray(masks, dtype=np.uint64).reshape(-1, 1)
    return np.asarray([[(m >> (WORD * k)) & _MASK64 for k in range(width)] for m in masks],
                      dtype=np.uint64).reshape(-1, width)


def masks_of(rows: np.ndarray) -> list[int]:
    """One bit mask per row of a uint64 (n, W) array."""
    if rows.shape[1] == 1:
        return rows.reshape(-1).tolist()
    if rows.shape[1] > 4:  # wide rows: each read as one little-endian number
        data = np.ascontiguousarray(rows, dtype="<u8").tobytes()
        size = 8 * rows.shape[1]
        return [int.from_bytes(data[i:i + size], "little") for i in range(0, len(data), size)]
    out = [0] * len(rows)
    for k, col in enumerate(rows.T.tolist()):
        shift = WORD * k
        for i, w in enumerate(col):
            out[i] |= w << shift
    return out


class CompiledTree:
    """The flat arrays of one decision tree (layout: :mod:`xdt.explain.engines._kernels`).

    Parameters
    ----------
    tree : DecisionTree

    Attributes
    ----------
    n_features, n_paths, n_words : int
        ``F``, ``P`` and ``W = ceil(F / 64)`` (at least 1).
    paths, lits, cat_words, feats, path_features, nodes, children : numpy.ndarray
        The tables of :class:`kernels.TreeTables`.
    path_class : numpy.ndarray of shape (P,), int64
    excl, excl_off, tested, tested_at : numpy.ndarray
        Per tested feature and cell, the paths whose literal excludes the cell (uint64
        bitsets over paths, ``ceil(P / 64)`` words each; see
        :func:`kernels.disagreements_by_table`), empty when they would pass
        :data:`MAX_TABLE_WORDS`; the tested features (int64) and each feature's row among
        them (int64 (F,), -1 if untested).
    others, other_pos, n_others : numpy.ndarray
        Per class ``c``: the reachable paths of the other classes (uint64 (C, ceil(P / 64))),
        each path's row among them (int64 (C, P), -1 if none) and their number (int64 (C,)).
    other_rows, other_masks : list
        The same per class as path indices (int64 arrays) and as Python bit masks.
    sliced : bool
        Whether the tables exist, so that the feature-slice kernels can be used.
    tables : kernels.TreeTables
        All of them, as the kernels take them.
    slice_tables : kernels.SliceTables
        The same arrays that :func:`kernels.explain_one_sliced` reads.
    edge_form : bool
        False here; True for an :class:`EdgeCompiledTree`.

    Notes
    -----
    Izza, Ignatiev & Marques-Silva, "On Explaining Decision Trees" (JAIR 2022), Sections
    4-5: the path-walker's disagreement sets, here in array form. Building it is
    O(total path length + sum over tested features of cells x P / 64).
    """

    def __init__(self, tree: DecisionTree):
        self._common(tree)
        self.edge_form = False
        self._dense(tree)

    def _common(self, tree: DecisionTree, edges: EdgeTables | None = None) -> None:
        """What both forms hold: sizes, the nodes (to find a row's leaf), the paths' classes,
        and the per-thread working arrays (those of ``edges`` when given)."""
        cells = tree.cells
        n_features = len(cells)
        self.n_features = n_features
        self.n_words = n_words(n_features)
        self.n_paths = tree.n_leaves
        self.ordinal = [isinstance(c, IntervalCells) for c in cells]
        if edges is None:
            self.nodes, self.children = node_tables(tree)
            self.path_class = np.asarray(tree._path_classes, dtype=np.int64).copy()
        else:
            self.nodes, self.children = edges.nodes, edges.children
            self.path_class = edges.path_class
        self._orders: dict[int, np.ndarray] = {}
        # working arrays of the per-row kernels (one set per thread)
        self._local = threading.local()

    def _dense(self, tree: DecisionTree) -> None:
        """The tables of :class:`kernels.TreeTables`: every path's literals."""
        cells = tree.cells
        n_features = self.n_features
        ordinal = self.ordinal
        cat_n = [0 if o else n_words(c.n_cells) for c, o in zip(cells, ordinal, strict=True)]
        feats = np.zeros((n_features, FEAT_COLUMNS), dtype=np.int64)
        feats[:, FEAT_ORDINAL] = ordinal
        feats[:, FEAT_N_WORDS] = cat_n
        feats[:, FEAT_WORDS_AT] = np.cumsum([0] + cat_n[:-1])
        self.n_awords = sum(cat_n)
        paths = np.zeros((self.n_paths, PATH_COLUMNS), dtype=np.int64)
        lits: list[tuple[int, int, int, int]] = []
        cat_words: list[int] = []
        path_features: list[int] = []
        for j, p in enumerate(tree.paths):
            start = len(lits)
            for f, m in p.masks.items():
                if ordinal[f]:
                    lo = (m & -m).bit_length() - 1 if m else 1
                    hi = m.bit_length() - 1 if m else 0  # an empty set: lo > hi, meets nothing
                    lits.append((f, lo, hi, -1))
                else:
                    lits.append((f, 0, 0, len(cat_words)))
                    cat_words.extend((m >> (WORD * k)) & _MASK64 for k in range(cat_n[f]))
            fs = p.features
            row = paths[j]
            row[PATH_LITS_START], row[PATH_LITS_END] = start, len(lits)
            row[PATH_CLASS], row[PATH_DEAD] = p.class_index, 0 if p.consistent else 1
            row[PATH_FEATURES_START] = len(path_features)
            row[PATH_FEATURES_END] = len(path_features) + len(fs)
            path_features.extend(fs)
        self.paths = paths
        self.lits = np.asarray(lits, dtype=np.int64).reshape(-1, LIT_COLUMNS)
        self.cat_words = np.asarray(cat_words or [0], dtype=np.uint64)
        self.feats = feats
        self.path_features = np.asarray(path_features or [0], dtype=np.int64)
        self._exclusion_tables(tree)
        self.tables = TreeTables(
            paths=self.paths, lits=self.lits, cat_words=self.cat_words, feats=self.feats,
            path_features=self.path_features, nodes=self.nodes, children=self.children,
            excl=self.excl, excl_off=self.excl_off, tested=self.tested,
            tested_at=self.tested_at, others=self.others, other_pos=self.other_pos,
            n_others=self.n_others, n_words=self.n_words)
        self.slice_tables = SliceTables(*(getattr(self.tables, f) for f in SliceTables._fields))
        self.sliced = self.excl.size > 0

    def _exclusion_tables(self, tree: DecisionTree) -> None:
        """The tables of :func:`kernels.disagreements_by_table`: per feature and cell, the
        paths whose literal excludes the cell, as a bitset over paths; per class, the
        reachable paths of the other classes. Left empty when they would exceed
        :data:`MAX_TABLE_WORDS` (the kernels then walk the literals)."""
        n_paths = self.n_paths
        pw = n_words(n_paths)
        tested = sorted({f for p in tree.paths for f in p.masks})
        n_cells = [c.n_cells for c in tree.cells]
        size = sum(n_cells[f] for f in tested) * pw
        classes = len(tree.classes)
        self.others = np.zeros((classes, pw), dtype=np.uint64)
        self.other_pos = np.full((classes, max(n_paths, 1)), -1, dtype=np.int64)
        self.n_others = np.zeros(classes, dtype=np.int64)
        live = [j for j, p in enumerate(tree.paths) if p.consistent]
        for c in range(classes):
            k = 0
            for j in live:
                if self.path_class[j] != c:
                    self.others[c, j >> 6] |= np.uint64(1 << (j & 63))
                    self.other_pos[c, j] = k
                    k += 1
            self.n_others[c] = k
        self.excl_off = np.zeros(self.n_features, dtype=np.int64)
        if size > MAX_TABLE_WORDS or not tested:
            self.excl = np.zeros(0, dtype=np.uint64)
            self.tested = np.zeros(0, dtype=np.int64)
            self.tested_at = np.full(self.n_features, -1, dtype=np.int64)
            return
        excl = np.zeros(size, dtype=np.uint64)
        offset = 0
        for f in tested:
            self.excl_off[f] = offset
            offset += n_cells[f] * pw
        # per ordinal feature: its paths, and the interval lo..hi of each (lo > hi: empty)
        intervals: dict[int, tuple[list[int], list[int], list[int]]] = {
            f: ([], [], []) for f in tested if self.ordinal[f]}
        for j, p in enumerate(tree.paths):
            word, bit = j >> 6, np.uint64(1 << (j & 63))
            for f, m in p.masks.items():
                if self.ordinal[f]:  # the cells outside the interval
                    on, los, his = intervals[f]
                    on.append(j)
                    los.append((m & -m).bit_length() - 1 if m else n_cells[f])
                    his.append(m.bit_length() - 1 if m else -1)
                    continue
                table = excl[self.excl_off[f]:self.excl_off[f] + n_cells[f] * pw].reshape(
                    n_cells[f], pw)
                out = [c for c in range(n_cells[f]) if not (m >> c) & 1]
                table[out, word] |= bit
        for f, (on, los, his) in intervals.items():
            kernels.interval_exclusions(
                excl[self.excl_off[f]:self.excl_off[f] + n_cells[f] * pw].reshape(
                    n_cells[f], pw), np.asarray(on, dtype=np.int64),
                np.asarray(los, dtype=np.int64), np.asarray(his, dtype=np.int64))
        self.excl = excl
        self.tested = np.asarray(tested, dtype=np.int64)
        self.tested_at = np.full(self.n_features, -1, dtype=np.int64)
        self.tested_at[self.tested] = np.arange(len(tested))
        self.tested_list = list(tested)
        self.other_rows = [np.flatnonzero(self.other_pos[c] >= 0) for c in range(classes)]
        self.other_masks = masks_of(self.others)

    # ------------------------------------------------------------------ per row
    def buffers(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """This thread's working arrays: ``(sets, minimal, rows)`` of shapes (P, W), (P, W)
        and (P,)."""
        b = getattr(self._local, "b", None)
        if b is None:
            p = max(self.n_paths, 1)
            b = self._local.b = (np.empty((p, self.n_words), dtype=np.uint64),
                                 np.empty((p, self.n_words), dtype=np.uint64),
                                 np.empty(p, dtype=np.int64))
        return b

    def leaf(self, cells: np.ndarray) -> int:
        """The path a row of cells (int64 (F,)) reaches."""
        return int(kernels.leaf_of(self.nodes, self.children, cells))

    def path_order(self, p: int) -> np.ndarray:
        """The deletion order "path" of path ``p`` (int64 (F,)): features off the path in
        increasing position, then the path's features from the root down."""
        order = self._orders.get(p)
        if order is None:
            order = np.empty(self.n_features, dtype=np.int64)
            kernels.path_order(self.tables, p, order)
            self._orders[p] = order
        return order

    def allowed_arrays(self, allowed) -> AllowedCells:
        """The :class:`kernels.AllowedCells` of per-feature allowed cell sets (Python bit
        masks; an interval for an ordinal feature)."""
        alo = np.zeros(self.n_features, dtype=np.int64)
        ahi = np.zeros(self.n_features, dtype=np.int64)
        awords = np.zeros(max(self.n_awords, 1), dtype=np.uint64)
        for f, m in enumerate(allowed):
            if self.ordinal[f]:
                alo[f] = (m & -m).bit_length() - 1
                ahi[f] = m.bit_length() - 1
            else:
                k, off = self.feats[f, FEAT_N_WORDS], self.feats[f, FEAT_WORDS_AT]
                for j in range(k):
                    awords[off + j] = (m >> (WORD * j)) & _MASK64
        return AllowedCells(alo, ahi, awords)


def node_tables(tree: DecisionTree) -> tuple[np.ndarray, np.ndarray]:
    """The ``nodes`` and ``children`` tables of :class:`kernels.TreeTables`."""
    nodes = np.empty((tree.n_nodes, NODE_COLUMNS), dtype=np.int64)
    nodes[:, NODE_FEATURE] = tree._node_feature
    nodes[:, NODE_CHILDREN] = tree._child_offset
    nodes[:, NODE_PATH] = tree._node_path
    nodes[:, NODE_CUT] = tree._node_cut
    children = np.asarray(tree._child_flat if len(tree._child_flat) else [0], dtype=np.int64)
    return nodes, children


def edge_tables(tree: DecisionTree, deep_only: bool = False) -> EdgeTables | None:
    """The :class:`~xdt.explain.engines._edge_kernels.EdgeTables` of ``tree``; with
    ``deep_only``, ``None`` unless its paths hold more than :data:`EDGE_FORM_LENGTH`
    literals in all and more than :data:`EDGE_FORM_RATIO` per node (decided from the
    depth alone for every tree of depth 32 or less). O(N)."""
    n = tree.n_nodes
    bound = max(EDGE_FORM_RATIO * n, EDGE_FORM_LENGTH)
    if deep_only and tree.depth * tree.n_leaves <= bound:
        return None  # no path table can be that large: the common case, decided here
    nodes, children = node_tables(tree)
    n_cells = np.asarray([c.n_cells for c in tree.cells], dtype=np.int64)
    edges = np.empty((n, EDGE_COLUMNS), dtype=np.int64)
    words, path_node, length = edge_kernels.edge_tables(nodes, children, n_cells, edges,
                                                        tree.n_leaves)
    if deep_only and length <= bound:
        return None
    live = np.zeros(tree.n_leaves, dtype=np.int64)
    edge_kernels.walk_paths(edges, words, n_cells, nodes, np.zeros(1, dtype=np.uint64), False,
                            np.zeros((0, 1), dtype=np.uint64), live)
    return EdgeTables(edges=edges, edge_words=words, path_node=path_node,
                      path_class=np.asarray(tree._path_classes, dtype=np.int64).copy(),
                      path_live=live, nodes=nodes, children=children,
                      n_words=n_words(len(tree.cells)))


class EdgeCompiledTree(CompiledTree):
    """A deep tree compiled in edge form: each node keeps the literal of the edge from its
    parent and a link to it (:class:`~xdt.explain.engines._edge_kernels.EdgeTables`,
    :attr:`edge_tables`), linear in the tree's size where the table of every path's
    literals is quadratic in the depth of a chain. Every query of the path engine, batches
    included, runs on the edge tables; the dense tables of :class:`CompiledTree` are made
    only if a caller reads one of them.

    Parameters
    ----------
    tree : DecisionTree
    edges : EdgeTables
        Its edge tables (:func:`edge_tables`).
    """

    def __init__(self, tree: DecisionTree, edges: EdgeTables):
        self._common(tree, edges)
        self.edge_form = True
        self.edge_tables = edges
        self._tree = weakref.ref(tree)
        self._dense_lock = threading.Lock()

    def path_order(self, p: int) -> np.ndarray:
        order = self._orders.get(p)
        if order is None:
            order = np.empty(self.n_features, dtype=np.int64)
            edge_kernels.path_order(self.edge_tables, p, order)
            self._orders[p] = order
        return order

    def restricted_sets(self, allowed, prediction: int) -> tuple[np.ndarray, np.ndarray]:
        """The disagreement sets (uint64 (k, W)) of the reachable paths of other classes
        than ``prediction`` (int64 (k,), in path order) with per-feature allowed cells
        (Python bit masks: path-restricted explanations), from the edges
        (:func:`~xdt.explain.engines._edge_kernels.walk_paths`)."""
        tree = self._tree()
        n_cells = np.asarray([c.n_cells for c in tree.cells], dtype=np.int64)
        words = [(m >> (WORD * k)) & _MASK64 for m, c in zip(allowed, n_cells.tolist(),
                                                              strict=True)
                 for k in range(n_words(c))]
        t = self.edge_tables
        sets = np.zeros((self.n_paths, self.n_words), dtype=np.uint64)
        edge_kernels.walk_paths(t.edges, t.edge_words, n_cells, t.nodes,
                                np.asarray(words, dtype=np.uint64), True, sets,
                                np.zeros(self.n_paths, dtype=np.int64))
        rows = np.flatnonzero((t.path_live != 0) & (t.path_class != prediction))
        return sets[rows], rows.astype(np.int64)

    def __getattr__(self, name: str):
        if name in _DENSE_FIELDS:
            with self.__dict__["_dense_lock"]:
                if "tables" not in self.__dict__:
                    self._dense(self._tree())
            return self.__dict__[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")


def compile_tree(tree: DecisionTree, edge_form: bool | None = None) -> CompiledTree:
    """``tree`` compiled in dense form (:class:`CompiledTree`) or in edge form
    (:class:`EdgeCompiledTree`): as asked, or by default the edge form for deep trees
    only (:func:`edge_tables`)."""
    edges = None if edge_form is False else edge_tables(tree, deep_only=edge_form is None)
    return CompiledTree(tree) if edges is None else EdgeCompiledTree(tree, edges)


_EXACT = 2.0**53  # integers up to this are exact as float64


class NumberReader:
    """Cells of instances given as numbers, in one kernel call
    (:func:`kernels.encode_numbers`): for models whose every feature is ordinal or
    categorical over numbers (not booleans) — most imported scikit-learn trees.

    Parameters
    ----------
    cells : sequence of IntervalCells or CategoricalCells
        The model's cells, one per feature.

    Attributes
    ----------
    usable : bool
        Whether every feature can be read this way.
    """

    def __init__(self, cells):
        kind, table, codes, ptr, limits = [], [], [], [0], []
        self.usable = True
        for c in cells:
            if isinstance(c, IntervalCells):
                kind.append(0)
                table.extend(c.thresholds.tolist())
                codes.extend([0] * (c.n_cells - 1))
                limits.append(c.limit)
            elif isinstance(c, CategoricalCells) and c.number_table() is not None:
                values, cells_of_values = c.number_table()
                kind.append(1)
                table.extend(values.tolist())
                codes.extend(cells_of_values.tolist())
                limits.append(_EXACT)
            else:
                self.usable = False
                return
            ptr.append(len(table))
        self.kind = np.asarray(kind, dtype=np.int64)
        self.ptr = np.asarray(ptr, dtype=np.int64)
        self.table = np.asarray(table or [0.0], dtype=np.float64)
        self.codes = np.asarray(codes or [0], dtype=np.int64)
        self.limits = np.asarray(limits, dtype=np.float64)

    def cells(self, values: np.ndarray) -> np.ndarray | None:
        """The cells (int64 (F,)) of one instance's values (float64 (F,)), or ``None`` when
        some value needs the exact reader (NaN, out of range, not in a domain)."""
        out = np.empty(len(self.kind), dtype=np.int64)
        ok = kernels.encode_numbers(values, self.kind, self.ptr, self.table, self.codes,
                                    self.limits, out)
        return out if ok else None


_per_model: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def _kept(model: object, key: str, build):
    """``build(model)``, made once per model and kept while the model lives (outside the
    model, so pickling one, e.g. for Dask workers, does not carry it)."""
    tables = _per_model.get(model)
    if tables is None or key not in tables:
        with _lock:
            tables = _per_model.setdefault(model, {})
            if key not in tables:
                tables[key] = build(model)
    return tables[key]


def compiled(tree: DecisionTree) -> CompiledTree:
    """The :class:`CompiledTree` of ``tree`` (:func:`compile_tree`: in edge form if it is
    deep), built on first use and kept while the tree lives."""
    return _kept(tree, "tree", compile_tree)


def number_reader(model) -> NumberReader:
    """The :class:`NumberReader` of a model (a tree or a DNF), built on first use and kept
    while the model lives."""
    return _kept(model, "numbers", lambda m: NumberReader(m.cells))


def literals_memo(model) -> dict[tuple[int, int], str]:
    """The model's memo of readable literals, ``(feature, cells) -> text``, shared by its
    explainers and kept while the model lives."""
    return _kept(model, "literals", lambda m: {})
