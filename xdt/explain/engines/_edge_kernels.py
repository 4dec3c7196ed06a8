"""Compiled kernels of the path-walker over a tree's *edges*: the tables of deep trees.

Izza, Ignatiev & Marques-Silva, "On Explaining Decision Trees" (arXiv:2010.11034, 2020; JAIR
2022), Sections 4-5: a set ``S`` of features, held to an instance's cells, entails its
prediction exactly when every reachable path of another class has a literal on a feature of
``S`` that excludes the instance's cell. The kernels of :mod:`._kernels` read a table of
each path's literals, ``sum of path lengths`` entries: quadratic in the depth of a chain
that tests a new feature at every level (path ``j`` of a depth-``d`` chain has ``j``
literals). Here each path's literals are not stored: every node keeps the one literal of
the edge from its parent (a feature and the cells it allows) and a link to that parent, so
the tables are linear in the tree's size and a path's literals are found by walking from
its leaf up to the root (a feature's cells on the path are the intersection of its edges').

For one instance, an edge whose cells exclude the instance's cell blocks every path below
it: the paths of a subtree are consecutive in depth-first order, so the paths a feature
blocks (its *slice*, :mod:`._kernels`) are a few ranges of path numbers, one per such edge,
``O(n_nodes)`` of them in all (:func:`blocked`); entailment and deletion over those ranges
are the kernels of :mod:`._range_kernels`. One AXp costs ``O(n_nodes log n_paths + F)``,
however deep the tree.

The tables (built once per tree by :class:`~xdt.explain.engines._compiled.CompiledTree`
when the dense ones would be large) are the fields of :class:`EdgeTables`; the columns of
``edges`` are named by the ``EDGE_*`` constants below.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from xdt._numba import ONE as _ONE
from xdt._numba import ZERO as _ZERO
from xdt._numba import njit
from xdt.explain.engines._kernels import (
    NODE_CHILDREN,
    NODE_CUT,
    NODE_FEATURE,
    NODE_PATH,
    append_sets,
    leaf_of,
    minimal_sets,
)
from xdt.explain.engines._range_kernels import Blocked, deletion_by_ranges

#: Columns of ``edges``: per node, the edge into it from its parent — the parent node (-1 at
#: the root), the parent's feature (-1 at the root), the edge's cells as an interval
#: ``lo..hi`` (a threshold split) or the offset of its cell-set words in ``edge_words`` (a
#: categorical split; -1 for a threshold split) — and the paths below the node,
#: ``first..end - 1`` (consecutive in depth-first order).
EDGE_UP, EDGE_FEATURE, EDGE_LO, EDGE_HI, EDGE_WORDS, EDGE_FIRST, EDGE_END = range(7)
EDGE_COLUMNS = 7

class EdgeTables(NamedTuple):
    """The flat arrays of one decision tree in edge form, in one argument.

    ``N`` nodes, ``P`` paths, ``F`` features.
    """

    edges: np.ndarray
    """int64 (N, EDGE_COLUMNS): per node, the edge from its parent (``EDGE_*``)."""
    edge_words: np.ndarray
    """uint64: the cell sets of categorical edges, ``ceil(n_cells / 64)`` words each."""
    path_node: np.ndarray
    """int64 (P,): the leaf node of each path."""
    path_class: np.ndarray
    """int64 (P,): the class index of each path."""
    path_live: np.ndarray
    """int64 (P,): 1 if some point reaches the path, 0 for a dead path."""
    nodes: np.ndarray
    """int64 (N, NODE_COLUMNS): the tree (:class:`._kernels.TreeTables`)."""
    children: np.ndarray
    """int64: the child tables of the nodes."""
    n_words: int
    """``W = ceil(F / 64)`` (at least 1): the words of a feature set."""


@njit(cache=True)
def edge_tables(nodes, children, n_cells, edges, n_paths):
    """Fill ``edges`` (int64 (N, EDGE_COLUMNS)) from the tree's ``nodes`` and ``children``
    (preorder; :class:`._kernels.TreeTables`) and its features' cell counts ``n_cells``
    (int64 (F,)); return the cell-set words of the categorical edges (uint64), each path's
    leaf node (int64 (P,)) and the sum of the paths' lengths (edges). O(N + sum of the
    categorical nodes' cells)."""
    n = nodes.shape[0]
    for v in range(n):
        edges[v, EDGE_UP] = -1
        edges[v, EDGE_FEATURE] = -1
        edges[v, EDGE_LO] = 0
        edges[v, EDGE_HI] = -1
        edges[v, EDGE_WORDS] = -1
    total = 0
    for v in range(n):
        f = nodes[v, NODE_FEATURE]
        if f < 0:
            continue
        off = nodes[v, NODE_CHILDREN]
        cut = nodes[v, NODE_CUT]
        if cut >= 0:
            for side in range(2):
                c = children[off + side]
                edges[c, EDGE_UP] = v
                edges[c, EDGE_FEATURE] = f
                edges[c, EDGE_LO] = 0 if side == 0 else cut + 1
                edges[c, EDGE_HI] = cut if side == 0 else n_cells[f] - 1
            continue
        for cell in range(n_cells[f]):
            c = children[off + cell]
            if edges[c, EDGE_UP] < 0:
                edges[c, EDGE_UP] = v
                edges[c, EDGE_FEATURE] = f
                edges[c, EDGE_WORDS] = total
                total += (n_cells[f] + 63) >> 6
    words = np.zeros(max(total, 1), dtype=np.uint64)
    for v in range(n):
        f = nodes[v, NODE_FEATURE]
        if f < 0 or nodes[v, NODE_CUT] >= 0:
            continue
        off = nodes[v, NODE_CHILDREN]
        for cell in range(n_cells[f]):
            at = edges[children[off + cell], EDGE_WORDS] + (cell >> 6)
            words[at] |= _ONE << np.uint64(cell & 63)
    # the paths below each node: its subtree is nodes v..v + size - 1 (preorder)
    size = np.ones(n, dtype=np.int64)
    for v in range(n - 1, 0, -1):
        size[edges[v, EDGE_UP]] += size[v]
    before = np.zeros(n + 1, dtype=np.int64)  # leaves before each node in preorder
    path_node = np.empty(n_paths, dtype=np.int64)
    depth = np.zeros(n, dtype=np.int64)
    length = 0
    for v in range(n):
        if v > 0:
            depth[v] = depth[edges[v, EDGE_UP]] + 1
        leaf = nodes[v, NODE_FEATURE] < 0
        before[v + 1] = before[v] + (1 if leaf else 0)
        if leaf:
            path_node[nodes[v, NODE_PATH]] = v
            length += depth[v]
    for v in range(n):
        edges[v, EDGE_FIRST] = before[v]
        edges[v, EDGE_END] = before[v + size[v]]
    return words, path_node, length


@njit(cache=True, inline="always")
def _edge_holds(edges, edge_words, v, cell):
    """Whether the edge into node ``v`` allows ``cell`` of its feature."""
    off = edges[v, EDGE_WORDS]
    if off < 0:
        return edges[v, EDGE_LO] <= cell <= edges[v, EDGE_HI]
    return (edge_words[off + (cell >> 6)] >> np.uint64(cell & 63)) & _ONE != _ZERO


class PathCells(NamedTuple):
    """Each feature's cells on the current path of a walk in preorder (the intersection of
    its edges' cells), and what undoes each edge of the path (``F`` features, ``N``
    nodes)."""

    lo: np.ndarray
    """int64 (F,): the interval of the threshold edges' cells."""
    hi: np.ndarray
    """int64 (F,)."""
    has_words: np.ndarray
    """int64 (F,): the categorical edges testing the feature (its words count when > 0)."""
    cur: np.ndarray
    """uint64: the intersection of those edges' cell words, from ``base[f]``."""
    base: np.ndarray
    """int64 (F + 1,): each feature's first word in ``cur``."""
    tested: np.ndarray
    """int64 (F,): the edges of the path that test the feature."""
    old_lo: np.ndarray
    """int64 (N,): per depth on the path, its edge's feature's interval before it."""
    old_hi: np.ndarray
    """int64 (N,)."""
    saved: np.ndarray
    """uint64: the words a categorical edge replaced, from ``saved_at[depth - 1]``."""
    saved_at: np.ndarray
    """int64 (N + 1,)."""


@njit(cache=True, inline="always")
def _path_cells(n_cells, n_nodes, n_edge_words):
    """A :class:`PathCells` at the root (every cell of every feature)."""
    n_features = n_cells.shape[0]
    base = np.zeros(n_features + 1, dtype=np.int64)
    for f in range(n_features):
        base[f + 1] = base[f] + ((n_cells[f] + 63) >> 6)
    return PathCells(np.zeros(n_features, dtype=np.int64), n_cells - 1,
                     np.zeros(n_features, dtype=np.int64),
                     np.zeros(max(base[n_features], 1), dtype=np.uint64), base,
                     np.zeros(n_features, dtype=np.int64), np.empty(n_nodes, dtype=np.int64),
                     np.empty(n_nodes, dtype=np.int64),
                     np.empty(max(n_edge_words, 1), dtype=np.uint64),
                     np.zeros(n_nodes + 1, dtype=np.int64))


@njit(cache=True, inline="always")
def _enter(edges, edge_words, v, top, s):
    """Add the edge into node ``v``, at depth ``top`` of the path, to ``s``
    (:class:`PathCells`)."""
    f = edges[v, EDGE_FEATURE]
    s.old_lo[top] = s.lo[f]
    s.old_hi[top] = s.hi[f]
    s.saved_at[top] = s.saved_at[top - 1]
    s.tested[f] += 1
    off = edges[v, EDGE_WORDS]
    if off < 0:
        s.lo[f] = max(s.lo[f], edges[v, EDGE_LO])
        s.hi[f] = min(s.hi[f], edges[v, EDGE_HI])
        return
    at = s.saved_at[top - 1]
    for j in range(s.base[f + 1] - s.base[f]):
        w = s.cur[s.base[f] + j]
        s.saved[at + j] = w
        s.cur[s.base[f] + j] = edge_words[off + j] if s.has_words[f] == 0 else w & edge_words[
            off + j]
    s.saved_at[top] = at + s.base[f + 1] - s.base[f]
    s.has_words[f] += 1


@njit(cache=True, inline="always")
def _leave(edges, u, top, s):
    """Take the edge into node ``u``, at depth ``top`` of the path, out of ``s``."""
    f = edges[u, EDGE_FEATURE]
    s.lo[f] = s.old_lo[top]
    s.hi[f] = s.old_hi[top]
    s.tested[f] -= 1
    if edges[u, EDGE_WORDS] >= 0:
        for j in range(s.base[f + 1] - s.base[f]):
            s.cur[s.base[f] + j] = s.saved[s.saved_at[top - 1] + j]
        s.has_words[f] -= 1


@njit(cache=True, inline="always")
def _misses(s, f, allowed, restricted):
    """Whether no cell of feature ``f`` on the path (of ``s``) is allowed: in
    ``allowed[s.base[f]:]`` (uint64 words) when ``restricted``, else at all."""
    lo, hi = s.lo[f], s.hi[f]
    if lo > hi:
        return True
    if s.has_words[f] == 0 and not restricted:
        return False
    c = lo
    while c <= hi:  # word by word over the interval
        last = min(hi, c | 63)
        at = s.base[f] + (c >> 6)
        w = ~_ZERO
        if s.has_words[f] > 0:
            w &= s.cur[at]
        if restricted:
            w &= allowed[at]
        w >>= np.uint64(c & 63)
        if last - c < 63:
            w &= (_ONE << np.uint64(last - c + 1)) - _ONE
        if w != _ZERO:
            return False
        c = last + 1
    return True


@njit(cache=True)
def walk_paths(edges, edge_words, n_cells, nodes, allowed, restricted, out, clear):
    """Per path, the features whose cells on it (the intersection of their edges') are
    empty, or, when ``restricted``, meet none of the allowed cells (``allowed``: uint64
    words, feature ``f``'s from ``sum of ceil(n_cells[g] / 64)`` over ``g < f``): fills
    ``out[p]`` (uint64 (P, W); not when ``out`` has no rows) with them and ``clear[p]``
    (int64 (P,)) with 1 if there is none (without ``restricted``: the live paths). One
    pass in preorder, undoing an edge's change when the walk leaves its subtree: O(N + the
    categorical edges' words + the words of each tested feature's allowed cells)."""
    n = nodes.shape[0]
    s = _path_cells(n_cells, n, edge_words.shape[0])
    n_words = out.shape[1]
    sets = out.shape[0] > 0
    bad = np.zeros(n_words, dtype=np.uint64)  # the features found on the current path
    count = 0
    stack = np.empty(n, dtype=np.int64)  # the current path's nodes, root first
    top = 0
    stack[0] = 0
    for v in range(n):
        if v > 0:
            up = edges[v, EDGE_UP]
            while stack[top] != up:  # leave the subtree of stack[top]
                u = stack[top]
                f = edges[u, EDGE_FEATURE]
                was = _misses(s, f, allowed, restricted)
                _leave(edges, u, top, s)
                if was and not (s.tested[f] > 0 and _misses(s, f, allowed, restricted)):
                    count -= 1
                    bad[f >> 6] &= ~(_ONE << np.uint64(f & 63))
                top -= 1
            f = edges[v, EDGE_FEATURE]
            was = s.tested[f] > 0 and _misses(s, f, allowed, restricted)
            top += 1
            stack[top] = v
            _enter(edges, edge_words, v, top, s)
            if not was and _misses(s, f, allowed, restricted):
                count += 1
                bad[f >> 6] |= _ONE << np.uint64(f & 63)
        if nodes[v, NODE_FEATURE] < 0:
            p = nodes[v, NODE_PATH]
            clear[p] = 1 if count == 0 else 0
            if sets:
                for w in range(n_words):
                    out[p, w] = bad[w]


@njit(cache=True)
def blocked(t, cells, prediction):
    """The :class:`Blocked` ranges of an instance held to its cells (int64 (F,)),
    predicted ``prediction``, in the tree of tables ``t`` (:class:`EdgeTables`): per
    feature, the paths below its edges that exclude the instance's cell and hold a path to
    block, an edge inside an earlier one of the same feature left out (the ranges of one
    feature are disjoint). O(N + P + F)."""
    edges, edge_words = t.edges, t.edge_words
    n_paths = t.path_class.shape[0]
    n_features = cells.shape[0]
    target = np.zeros(n_paths + 1, dtype=np.int64)
    for p in range(n_paths):
        hit = t.path_live[p] != 0 and t.path_class[p] != prediction
        target[p + 1] = target[p] + (1 if hit else 0)
    n = edges.shape[0]
    start = np.zeros(n_features + 1, dtype=np.int64)
    on = np.zeros(n, dtype=np.bool_)
    for v in range(1, n):
        f = edges[v, EDGE_FEATURE]
        if (target[edges[v, EDGE_END]] > target[edges[v, EDGE_FIRST]]
                and not _edge_holds(edges, edge_words, v, cells[f])):
            on[v] = True
            start[f + 1] += 1
    for f in range(n_features):
        start[f + 1] += start[f]
    lo = np.empty(start[n_features], dtype=np.int64)
    hi = np.empty(start[n_features], dtype=np.int64)
    end = start[:n_features].copy()
    for v in range(1, n):  # preorder: each feature's ranges by increasing first path
        if on[v]:
            f = edges[v, EDGE_FEATURE]
            first = edges[v, EDGE_FIRST]
            if end[f] > start[f] and first < hi[end[f] - 1]:
                continue  # inside the feature's previous range
            lo[end[f]] = first
            hi[end[f]] = edges[v, EDGE_END]
            end[f] += 1
    # close the gaps left by the ranges inside others
    k = 0
    for f in range(n_features):
        first = k
        for i in range(start[f], end[f]):
            lo[k] = lo[i]
            hi[k] = hi[i]
            k += 1
        start[f] = first
    start[n_features] = k
    return Blocked(start, lo[:k].copy(), hi[:k].copy(), target)


@njit(cache=True)
def path_order(t, p, out):
    """The deletion order "path" of a row reaching path ``p`` (as
    :func:`._kernels.path_order`): features off the path in increasing position, then the
    path's features in order of first test, root first; from the edges from ``p``'s leaf
    up to the root. Written into ``out`` (int64 (F,)). O(F + depth)."""
    n_features = out.shape[0]
    edges = t.edges
    seen = np.empty(t.nodes.shape[0], dtype=np.int64)  # the edges' features, leaf first
    d = 0
    v = t.path_node[p]
    while edges[v, EDGE_UP] >= 0:
        seen[d] = edges[v, EDGE_FEATURE]
        d += 1
        v = edges[v, EDGE_UP]
    on = np.zeros(n_features, dtype=np.bool_)
    firsts = np.empty(d, dtype=np.int64)
    m = 0
    for i in range(d - 1, -1, -1):
        f = seen[i]
        if not on[f]:
            on[f] = True
            firsts[m] = f
            m += 1
    k = 0
    for f in range(n_features):
        if not on[f]:
            out[k] = f
            k += 1
    for i in range(m):
        out[k + i] = firsts[i]


@njit(cache=True)
def explain_one(cells, t):
    """The leaf of one instance (held to its cells, int64 (F,)) of the tree of tables ``t``
    (:class:`EdgeTables`), its :class:`Blocked` ranges and the AXp of the deletion order
    "path" (uint64 (W,))."""
    leaf = leaf_of(t.nodes, t.children, cells)
    b = blocked(t, cells, t.path_class[leaf])
    order = np.empty(cells.shape[0], dtype=np.int64)
    path_order(t, leaf, order)
    expl = np.empty(t.n_words, dtype=np.uint64)
    full = np.zeros(t.n_words, dtype=np.uint64)
    for f in range(cells.shape[0]):
        full[f >> 6] |= _ONE << np.uint64(f & 63)
    deletion_by_ranges(b, order, full, False, t.n_words, expl)
    return leaf, b, expl


@njit(cache=True)
def disagreements(t, cells, prediction, out, rows):
    """The disagreement sets ``D_p`` of an instance held to its cells (int64 (F,)) with
    every reachable path of another class: fills ``out[:k]`` (uint64 (>= k, W)) and
    ``rows[:k]`` (int64) in path order and returns ``k``. One pass in preorder, keeping per
    feature how many edges of the current path exclude the instance's cell: O(N + k W)."""
    edges, edge_words, nodes = t.edges, t.edge_words, t.nodes
    n = edges.shape[0]
    count = np.zeros(cells.shape[0], dtype=np.int64)
    cur = np.zeros(t.n_words, dtype=np.uint64)  # D of the current path
    stack = np.empty(n, dtype=np.int64)  # the current path's nodes, root first
    top = 0
    stack[0] = 0
    k = 0
    for v in range(n):
        if v > 0:
            up = edges[v, EDGE_UP]
            while stack[top] != up:  # leave the subtree of stack[top]
                u = stack[top]
                f = edges[u, EDGE_FEATURE]
                if not _edge_holds(edges, edge_words, u, cells[f]):
                    count[f] -= 1
                    if count[f] == 0:
                        cur[f >> 6] &= ~(_ONE << np.uint64(f & 63))
                top -= 1
            f = edges[v, EDGE_FEATURE]
            if not _edge_holds(edges, edge_words, v, cells[f]):
                count[f] += 1
                cur[f >> 6] |= _ONE << np.uint64(f & 63)
            top += 1
            stack[top] = v
        if nodes[v, NODE_FEATURE] < 0:
            p = nodes[v, NODE_PATH]
            if t.path_class[p] != prediction and t.path_live[p] != 0:
                for w in range(t.n_words):
                    out[k, w] = cur[w]
                rows[k] = p
                k += 1
    return k


@njit(cache=True)
def axp_rows(t, cells, want_axp, leaves, axps):
    """The leaf and, when ``want_axp``, the AXp (order "path") of every row of ``cells``
    (int64 (n, F)) of the tree of tables ``t`` (:class:`EdgeTables`): fills ``leaves``
    (int64 (n,)) and ``axps`` (uint64 (n, W))."""
    for r in range(cells.shape[0]):
        if want_axp:
            leaf, _, expl = explain_one(cells[r], t)
            axps[r] = expl
        else:
            leaf = leaf_of(t.nodes, t.children, cells[r])
        leaves[r] = leaf


@njit(cache=True)
def cxp_rows(t, cells, cx_count, cx_words):
    """All CXps of every row of ``cells`` (int64 (n, F)) of the tree of tables ``t``
    (:class:`EdgeTables`), as :func:`._kernels.explain_rows` lists them: appends each row's
    CXps (by size, then as increasing lists of features) to ``cx_words`` (uint64
    (capacity, W)), their number to ``cx_count`` (int64 (n,)), and returns how many word
    rows it wrote, or -1 - r when row ``r`` did not fit."""
    n_paths = t.path_class.shape[0]
    n_words = t.n_words
    d = np.empty((max(n_paths, 1), n_words), dtype=np.uint64)
    mins = np.empty((max(n_paths, 1), n_words), dtype=np.uint64)
    rows = np.empty(max(n_paths, 1), dtype=np.int64)
    sizes = np.empty(max(n_paths, 1), dtype=np.int64)
    used = 0
    for r in range(cells.shape[0]):
        row = cells[r]
        leaf = leaf_of(t.nodes, t.children, row)
        k = disagreements(t, row, t.path_class[leaf], d, rows)
        m = minimal_sets(d, k, mins)
        used = append_sets(mins, m, sizes, cx_words, used)
        if used < 0:
            return -1 - r
        cx_count[r] = m
    return used
