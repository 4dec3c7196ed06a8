"""Entailment and deletion over ranges of paths: the path-walker's AXp on a tree in edge
form (:mod:`._edge_kernels`).

Izza, Ignatiev & Marques-Silva, "On Explaining Decision Trees" (arXiv:2010.11034, 2020; JAIR
2022), Sections 4-5: a set of features held to an instance's cells entails its prediction
exactly when every reachable path of another class has a literal on one of them that
excludes the instance's cell. On a tree in edge form, the paths that a feature blocks are a
few ranges of consecutive paths (:class:`Blocked`, from
:func:`._edge_kernels.blocked`). Entailment is "the ranges of the fixed features cover every
path to block" (:func:`covers`), and deletion (:func:`deletion_by_ranges`) keeps, in a
segment tree over the paths, how many kept features block each path: a feature may go when
every path it blocks has another kept feature blocking it.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from xdt._numba import ONE as _ONE
from xdt._numba import ZERO as _ZERO
from xdt._numba import njit

_NONE = np.int64(1) << np.int64(40)
"""A count no path of the segment tree reaches: the value of the paths that need no
blocking (of the instance's class, or dead)."""


class Blocked(NamedTuple):
    """What one instance's AXps are found from: per feature, the ranges of paths it blocks
    when held to the instance's cell, and the paths that must be blocked."""

    start: np.ndarray
    """int64 (F + 1,): feature ``f``'s ranges are ``start[f]..start[f + 1] - 1``."""
    lo: np.ndarray
    """int64 (R,): the first path of each range."""
    hi: np.ndarray
    """int64 (R,): the end (one past the last path) of each range."""
    target: np.ndarray
    """int64 (P + 1,): ``target[p]`` is the number of paths before ``p`` that are reachable
    and of another class than the instance's."""


# ---------------------------------------------------------------- segment tree
# Range add and range minimum over the paths, bottom-up with pending adds (the values of a
# node's subtree wait in ``pend`` until a query pushes them down).

@njit(cache=True, inline="always")
def _apply(val, pend, size, v, x):
    val[v] += x
    if v < size:
        pend[v] += x


@njit(cache=True, inline="always")
def _rebuild(val, pend, v):
    while v > 1:
        v >>= 1
        val[v] = min(val[2 * v], val[2 * v + 1]) + pend[v]


@njit(cache=True, inline="always")
def _push(val, pend, size, height, v):
    for s in range(height, 0, -1):
        i = v >> s
        if pend[i] != 0:
            _apply(val, pend, size, 2 * i, pend[i])
            _apply(val, pend, size, 2 * i + 1, pend[i])
            pend[i] = 0


@njit(cache=True)
def _add(val, pend, size, lo, hi, x):
    """Add ``x`` to the paths ``lo..hi - 1``."""
    left = lo + size
    right = hi + size
    while left < right:
        if left & 1:
            _apply(val, pend, size, left, x)
            left += 1
        if right & 1:
            right -= 1
            _apply(val, pend, size, right, x)
        left >>= 1
        right >>= 1
    _rebuild(val, pend, lo + size)
    _rebuild(val, pend, hi - 1 + size)


@njit(cache=True)
def _least(val, pend, size, height, lo, hi):
    """The least value of the paths ``lo..hi - 1``."""
    left = lo + size
    right = hi + size
    _push(val, pend, size, height, left)
    _push(val, pend, size, height, right - 1)
    out = _NONE
    while left < right:
        if left & 1:
            out = min(out, val[left])
            left += 1
        if right & 1:
            right -= 1
            out = min(out, val[right])
        left >>= 1
        right >>= 1
    return out


@njit(cache=True)
def deletion_by_ranges(b, order, start, tail, n_words, expl):
    """One AXp by deletion, with entailment as "the ranges of the kept features block
    every path of ``b.target``" (``b``: the instance's :class:`Blocked`).

    From the features of ``start`` (uint64 (W,), a weak AXp), drop each feature of
    ``order`` (int64) in turn when every path it blocks is blocked by another kept feature;
    when ``tail``, then the features of ``start`` that ``order`` does not list, by position.
    A feature that blocks no path is always dropped. Fills ``expl`` (uint64 (W,)) with the
    AXp: the same AXp as :func:`._kernels.deletion_by_slices` in the same order. O(F +
    R log P) for ``R`` ranges.
    """
    n_features = b.start.shape[0] - 1
    n_paths = b.target.shape[0] - 1
    listed = np.zeros(n_features, dtype=np.bool_)
    members = np.empty(n_features, dtype=np.int64)
    k = 0
    n_order = order.shape[0]
    for j in range(n_order + (n_features if tail else 0)):
        f = order[j] if j < n_order else j - n_order
        if listed[f]:
            continue
        listed[f] = True
        if (start[f >> 6] >> np.uint64(f & 63)) & _ONE == _ZERO:
            continue
        if b.start[f + 1] > b.start[f]:
            members[k] = f
            k += 1
    size = 1
    height = 0
    while size < max(n_paths, 1):
        size <<= 1
        height += 1
    val = np.zeros(2 * size, dtype=np.int64)
    pend = np.zeros(size, dtype=np.int64)
    for p in range(size):
        none = p >= n_paths or b.target[p + 1] == b.target[p]
        val[size + p] = _NONE if none else 0
    for v in range(size - 1, 0, -1):
        val[v] = min(val[2 * v], val[2 * v + 1])
    for i in range(k):
        f = members[i]
        for r in range(b.start[f], b.start[f + 1]):
            _add(val, pend, size, b.lo[r], b.hi[r], 1)
    keep = np.ones(k, dtype=np.bool_)
    if n_paths == 0 or val[1] >= 1:  # else nothing entails: every feature is kept
        for i in range(k):
            f = members[i]
            free = True
            for r in range(b.start[f], b.start[f + 1]):
                if _least(val, pend, size, height, b.lo[r], b.hi[r]) < 2:
                    free = False
                    break
            if free:
                keep[i] = False
                for r in range(b.start[f], b.start[f + 1]):
                    _add(val, pend, size, b.lo[r], b.hi[r], -1)
    for w in range(n_words):
        expl[w] = _ZERO
    for i in range(k):
        if keep[i]:
            f = members[i]
            expl[f >> 6] |= _ONE << np.uint64(f & 63)


@njit(cache=True)
def covers(b, fixed):
    """Whether the features of ``fixed`` (uint64 (W,)) block every path of ``b.target``
    (``b``: :class:`Blocked`), i.e. entail the prediction. O(F + P)."""
    n_features = b.start.shape[0] - 1
    n_paths = b.target.shape[0] - 1
    diff = np.zeros(n_paths + 1, dtype=np.int64)
    for f in range(n_features):
        if (fixed[f >> 6] >> np.uint64(f & 63)) & _ONE != _ZERO:
            for r in range(b.start[f], b.start[f + 1]):
                diff[b.lo[r]] += 1
                diff[b.hi[r]] -= 1
    run = 0
    for p in range(n_paths):
        run += diff[p]
        if run == 0 and b.target[p + 1] > b.target[p]:
            return False
    return True
