"""Compiled kernels of :mod:`xdt.cluster`: the rows that reach every node of a tree.

:func:`route` sends each training row down a tree laid out in flat arrays (nodes in preorder,
so the nodes of a subtree are the numbers ``u .. end[u]``) and counts, per node, the rows
that reach it and how many of them are target rows; it also gives, per row, the deepest node
its path reaches (a leaf, or an internal node none of whose edges takes the row), so that
the rows of node ``u`` are those whose deepest node lies in ``u .. end[u]``. One pass over
the rows replaces a mask per node over all rows.

The tree is one :class:`NodeTable` (built by :func:`xdt.cluster._supervised.tree_nodes`).
``values`` is float64 (A, n) (one row per tested numeric column, finite), ``cells`` int64
(B, n), ``target`` int64 (n,) of 0/1. Compiled by numba on first use (``cache=True``: once
per machine, then loaded from the cache; where numba finds no writable cache folder, once per
process, with a warning naming ``NUMBA_CACHE_DIR``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from xdt._numba import njit


class NodeTable(NamedTuple):
    """A tree's ``N`` nodes in preorder, as :func:`route` reads them."""

    kind: np.ndarray
    """int64 (N,): 0 leaf, 1 threshold test ``x <= threshold`` on a column of ``values``, 2 a
    table from the cell of a column of ``cells`` to the child (-1: no edge takes that
    cell)."""
    column: np.ndarray
    """int64 (N,): the column of ``values`` (kind 1) or of ``cells`` (kind 2)."""
    threshold: np.ndarray
    """float64 (N,): kind 1, the threshold."""
    left: np.ndarray
    """int64 (N,): kind 1, the child of ``x <= threshold``."""
    right: np.ndarray
    """int64 (N,): kind 1, the other child."""
    offset: np.ndarray
    """int64 (N,): kind 2, the node's child per cell is ``table[offset + cell]``."""
    table: np.ndarray
    """int64: the children per cell of the kind-2 nodes."""
    parent: np.ndarray
    """int64 (N,): each node's parent (-1 for the root), a smaller number than its own."""


@njit(cache=True)
def route(nodes, values, cells, target):
    """Per node of ``nodes`` (:class:`NodeTable`) the rows reaching it and their target rows
    (int64 (N,) each), and per row the deepest node it reaches (int64 (n,)); see the module
    docstring."""
    kind, column, threshold, left, right, offset, table, parent = nodes
    n_nodes = kind.shape[0]
    n = target.shape[0]
    size = np.zeros(n_nodes, dtype=np.int64)
    hits = np.zeros(n_nodes, dtype=np.int64)
    deepest = np.empty(n, dtype=np.int64)
    for i in range(n):
        u = 0
        while True:
            k = kind[u]
            if k == 0:
                break
            if k == 1:
                nxt = left[u] if values[column[u], i] <= threshold[u] else right[u]
            else:
                nxt = table[offset[u] + cells[column[u], i]]
                if nxt < 0:
                    break
            u = nxt
        deepest[i] = u
        size[u] += 1
        hits[u] += target[i]
    for u in range(n_nodes - 1, 0, -1):   # children after their parents in preorder
        size[parent[u]] += size[u]
        hits[parent[u]] += hits[u]
    return size, hits, deepest


@njit(cache=True)
def count_values(positions, idx, target, n_values):
    """Per column ``c`` of ``positions`` (int64 (n, C): the position of each row's value in
    the column's list of values, -1 for none) and value ``v``, the rows of ``idx`` (int64
    (m,)) holding it and how many of them have ``target`` (int64 (m,), 0/1) 1: two int64
    arrays of shape (C, n_values)."""
    n_cols = positions.shape[1]
    size = np.zeros((n_cols, n_values), dtype=np.int64)
    hits = np.zeros((n_cols, n_values), dtype=np.int64)
    for r in range(idx.shape[0]):
        i = idx[r]
        t = target[r]
        for c in range(n_cols):
            v = positions[i, c]
            if v >= 0:
                size[c, v] += 1
                hits[c, v] += t
    return size, hits


@njit(cache=True)
def ranked(positions, idx, rank):
    """Per column ``c`` and row ``idx[r]``, ``rank[c, positions[idx[r], c]]`` (NaN for
    position -1): float64 (C, m)."""
    n_cols = positions.shape[1]
    m = idx.shape[0]
    out = np.empty((n_cols, m), dtype=np.float64)
    for r in range(m):
        i = idx[r]
        for c in range(n_cols):
            v = positions[i, c]
            out[c, r] = rank[c, v] if v >= 0 else np.nan
    return out
