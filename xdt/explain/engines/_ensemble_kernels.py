"""Compiled kernels of the box engine for tree ensembles (:mod:`xdt.explain.engines._ensemble_box`).

A *box* is a set of points given per feature: an interval of cells ``lo[f]..hi[f]`` for an
ordinal feature, a set of allowed cells (a row of ``cat``) for a categorical or binary one.
Fixing a feature to the instance's cell makes its side of the box a single cell; a free
feature's side is all its cells.

:func:`search` decides whether some point of a box has another class than ``c``, exactly as
:meth:`xdt.ir.TreeEnsemble.predict_cells` decides, by branch and bound over boxes:

* **Bound.** Each tree is walked over the nodes the box reaches (both children of a split
  the box straddles); over the leaves reached, per score, the largest and the smallest
  value. For a class ``k`` against ``c``: put every tree at its largest value on ``k`` and
  its smallest on ``c``, sum in tree order and in the ensemble's precision from the start
  scores, divide as the ensemble does, and compare as ``numpy.argmax`` does (``k`` beats
  ``c`` when ``S_k > S_c``, or ``S_k == S_c`` and ``k < c``; a binary margin compares its one
  score with the threshold). Floating-point addition, division by a positive number and
  comparison are monotone in each summand, so when even this does not let ``k`` beat ``c``,
  no point of the box has class ``k`` — exactly, in the library's arithmetic, not up to a
  rounding error. When no ``k`` can, the box is done.
* **Exact leaves.** When every tree reaches one leaf only, its largest and smallest values are
  the values of every point of the box: a ``k`` that can beat ``c`` does, at any point of the
  box (a counterexample).
* **Deadline.** At every box (every :data:`CLOCK_EVERY` boxes for an ensemble of fewer
  than :data:`CLOCK_TREES` trees) the search reads the clock
  (:func:`xdt._numba.clock_ns`) and stops with :data:`TIMED_OUT` once it passes ``end``
  (nanoseconds of that clock; :func:`xdt.explain.engines._deadline.kernel_clock`), so one
  compiled call returns soon after its caller's deadline.
* **Branch.** Otherwise the box is split on the feature that the most straddled splits test
  (an ordinal interval at the mean of those splits' cuts, a categorical set in two halves),
  and both halves are searched, depth first.

The same bound-and-branch scheme over boxes is used to verify tree ensembles by Chen, Zhang,
Si, Li, Boning & Hsieh, "Robustness Verification of Tree-based Models" (NeurIPS 2019) and
Devos, Meert & Davis, "Versatile Verification of Tree Ensembles" (ICML 2021); here its bound
is computed in the library's floating point so that its answers are exact.

The model's arrays (prepared once per model by :func:`xdt.explain.engines._ensemble_box.prepare`)
are the fields of :class:`EnsembleTables`. The kernels called once per query or instance
(:func:`search`, :func:`deletion`, :func:`classify`) take them spread as their last
arguments (``*tables``) and name them at once, as :mod:`xdt.explain.engines._kernels` does and for
the same reason (numba types a named tuple argument in Python, a few µs a call).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from xdt._numba import clock_ns, njit

ENTAILED = 0
""":func:`search` status: no point of the box has another class."""
COUNTEREXAMPLE = 1
"""A point of another class was found (its cells are returned)."""
GAVE_UP = 2
"""The search met its limit on the number of boxes before deciding."""
TIMED_OUT = 3
"""The search met its deadline before deciding."""
CLOCK_EVERY = 16
"""Boxes between two readings of the clock for an ensemble of fewer than :data:`CLOCK_TREES`
trees (a reading costs a few tens of nanoseconds, about what a box of a few small trees
costs)."""
CLOCK_TREES = 32
"""From this many trees on, the clock is read at every box: a box walks every tree from its
root, far more than a reading costs, and on large forests (a box of 1,000 deep trees takes
milliseconds) reading it more rarely would let the search run that much past its deadline."""


class EnsembleTables(NamedTuple):
    """The flat arrays of a tree ensemble that the kernels read: every tree's nodes numbered
    together (``N`` nodes, ``T`` trees, ``F`` features, ``S`` scores, ``C`` classes)."""

    feature: np.ndarray
    """int64 (N,): the node's feature, -1 at a leaf."""
    cut: np.ndarray
    """int64 (N,): a threshold node's last cell (of the ensemble's cells) that goes left;
    -1 for a categorical node."""
    offset: np.ndarray
    """int64 (N,): the offset of the node's children in ``child`` (two for a threshold
    node, one per cell for a categorical one)."""
    child: np.ndarray
    """int64: the children of every node."""
    leaf: np.ndarray
    """int64 (N,): a leaf's row of ``values``, -1 elsewhere."""
    roots: np.ndarray
    """int64 (T,): each tree's root."""
    values: np.ndarray
    """float32 or float64 (leaves, S): the leaves' values, in the ensemble's precision."""
    start: np.ndarray
    """(S,), same dtype: the start scores."""
    divisor: float
    """What the summed scores are divided by (same dtype)."""
    threshold: float
    """A binary margin's threshold (same dtype)."""
    n_classes: int
    """``C``."""
    ordinal: np.ndarray
    """bool (F,): whether each feature is ordinal."""
    n_cells: np.ndarray
    """int64 (F,): each feature's number of cells."""
    cat_offset: np.ndarray
    """int64 (F,): a categorical feature's offset in a box's ``cat``."""


class _Bounds(NamedTuple):
    """What :func:`_bound` finds of one box (working arrays of :func:`search`)."""

    tmax: np.ndarray
    """(T, S): per tree, the largest value per score over the leaves the box reaches."""
    tmin: np.ndarray
    """(T, S): the smallest."""
    nreach: np.ndarray
    """int64 (T,): per tree, the leaves the box reaches."""
    split_count: np.ndarray
    """int64 (F,): per feature, the reached splits the box straddles."""
    split_sum: np.ndarray
    """int64 (F,): the sum of their cuts."""
    stack: np.ndarray
    """int64 (N + 1,): the nodes still to visit."""


@njit(cache=True)
def _bound(t, lo, hi, cat, b):
    """Fill ``b`` (:class:`_Bounds`) for the box ``(lo, hi, cat)`` of the ensemble of tables
    ``t`` (:class:`EnsembleTables`): per tree, the largest and smallest value per score over
    the leaves the box reaches and how many leaves; per feature, how many reached splits the
    box straddles and the sum of their cuts."""
    # the arrays as locals: a field read in a loop costs a reference count each time
    feature, cut, offset, child, leaf, roots = (t.feature, t.cut, t.offset, t.child, t.leaf,
                                                t.roots)
    values, cat_offset = t.values, t.cat_offset
    tmax, tmin, nreach, split_count, split_sum, stack = b
    n_scores = values.shape[1]
    split_count[:] = 0
    split_sum[:] = 0
    for tree in range(len(roots)):
        for s in range(n_scores):
            tmax[tree, s] = -np.inf
            tmin[tree, s] = np.inf
        nreach[tree] = 0
        top = 0
        stack[0] = roots[tree]
        top = 1
        while top > 0:
            top -= 1
            n = stack[top]
            f = feature[n]
            if f < 0:
                row = leaf[n]
                nreach[tree] += 1
                for s in range(n_scores):
                    v = values[row, s]
                    if v > tmax[tree, s]:
                        tmax[tree, s] = v
                    if v < tmin[tree, s]:
                        tmin[tree, s] = v
                continue
            j = cut[n]
            base = offset[n]
            if j >= 0:
                go_left = lo[f] <= j
                go_right = hi[f] > j
                if go_left and go_right:
                    split_count[f] += 1
                    split_sum[f] += j
                if go_right:
                    stack[top] = child[base + 1]
                    top += 1
                if go_left:
                    stack[top] = child[base]
                    top += 1
            else:
                first = -1
                many = False
                start = cat_offset[f]
                for cell in range(hi[f] + 1):
                    if cat[start + cell]:
                        ch = child[base + cell]
                        if first < 0:
                            first = ch
                        elif ch != first:
                            many = True
                if many:
                    split_count[f] += 1
                    # each distinct child once (children of a node are few)
                    for cell in range(hi[f] + 1):
                        if cat[start + cell]:
                            ch = child[base + cell]
                            seen = False
                            for q in range(cell):
                                if cat[start + q] and child[base + q] == ch:
                                    seen = True
                                    break
                            if not seen:
                                stack[top] = ch
                                top += 1
                elif first >= 0:
                    stack[top] = first
                    top += 1


@njit(cache=True)
def _total(start, per_tree, s, divisor):
    """``start[s]`` plus ``per_tree[t, s]`` for t in order, in their precision, divided."""
    acc = start[s]
    for t in range(per_tree.shape[0]):
        acc = acc + per_tree[t, s]
    return acc / divisor


@njit(cache=True)
def _can_beat(start, tmax, tmin, k, c, divisor, threshold, n_scores):
    """Whether ``k`` can beat ``c`` by the bounds ``tmax``, ``tmin`` of a box (of
    :class:`_Bounds`), from the start scores ``start`` and by ``divisor`` and ``threshold`` of
    :class:`EnsembleTables` (see the module docstring). Called once per box and class, it
    takes the arrays themselves: a field read costs a reference count."""
    if n_scores == 1:
        if k == 1:
            return _total(start, tmax, 0, divisor) > threshold
        return _total(start, tmin, 0, divisor) <= threshold
    high = _total(start, tmax, k, divisor)
    low = _total(start, tmin, c, divisor)
    return high > low or (high == low and k < c)


@njit(cache=True)
def search(lo0, hi0, cat0, c, max_boxes, out, capacity, clock, end, *tables):
    """Whether some point of the box ``(lo0, hi0, cat0)`` has another class than ``c``, for
    the ensemble whose :class:`EnsembleTables` are spread in ``tables``.

    Returns the status (:data:`ENTAILED`, :data:`COUNTEREXAMPLE` with the point's cells
    written to ``out``, :data:`GAVE_UP` after ``max_boxes`` boxes, or :data:`TIMED_OUT` once
    the clock ``clock`` passes ``end``, in nanoseconds; ``clock < 0``: no clock) and the
    number of boxes searched. ``hi0[f]`` of a categorical feature is its number of cells less
    one; ``capacity`` is the initial room of the depth-first stack of boxes (doubled when
    full)."""
    return _search(EnsembleTables(*tables), lo0, hi0, cat0, c, max_boxes, out, capacity,
                   clock, end)


@njit(cache=True)
def _search(t, lo0, hi0, cat0, c, max_boxes, out, capacity, clock, end):
    """:func:`search` on the tables ``t`` (:class:`EnsembleTables`)."""
    ordinal, n_cells, cat_offset = t.ordinal, t.n_cells, t.cat_offset
    n_trees = len(t.roots)
    n_feat = len(lo0)
    n_scores = t.values.shape[1]
    b = _Bounds(np.empty((n_trees, n_scores), dtype=t.values.dtype),
                np.empty((n_trees, n_scores), dtype=t.values.dtype),
                np.empty(n_trees, dtype=np.int64), np.zeros(n_feat, dtype=np.int64),
                np.zeros(n_feat, dtype=np.int64), np.empty(len(t.feature) + 1, dtype=np.int64))
    tmax, tmin, nreach, split_count, split_sum = (b.tmax, b.tmin, b.nreach, b.split_count,
                                                  b.split_sum)
    start, divisor, threshold = t.start, t.divisor, t.threshold
    los = np.empty((capacity, n_feat), dtype=np.int64)
    his = np.empty((capacity, n_feat), dtype=np.int64)
    cats = np.empty((capacity, len(cat0)), dtype=np.bool_)
    los[0] = lo0
    his[0] = hi0
    cats[0] = cat0
    top = 1
    boxes = 0
    every = 1 if n_trees >= CLOCK_TREES else CLOCK_EVERY
    while top > 0:
        if boxes >= max_boxes:
            return GAVE_UP, boxes
        if clock >= 0 and boxes % every == 0 and clock_ns(clock) > end:
            return TIMED_OUT, boxes
        boxes += 1
        top -= 1
        lo = los[top].copy()
        hi = his[top].copy()
        cat = cats[top].copy()
        _bound(t, lo, hi, cat, b)
        possible = False
        for k in range(t.n_classes):
            if k != c and _can_beat(start, tmax, tmin, k, c, divisor, threshold, n_scores):
                possible = True
                break
        if not possible:
            continue
        exact = True
        for tree in range(n_trees):
            if nreach[tree] != 1:
                exact = False
                break
        if exact:
            for f in range(n_feat):
                if ordinal[f]:
                    out[f] = lo[f]
                else:
                    o = cat_offset[f]
                    for cell in range(n_cells[f]):
                        if cat[o + cell]:
                            out[f] = cell
                            break
            return COUNTEREXAMPLE, boxes
        best = -1
        for f in range(n_feat):
            if split_count[f] > 0 and (best < 0 or split_count[f] > split_count[best]):
                best = f
        f = best
        if top + 2 > capacity:
            capacity *= 2
            grown_lo = np.empty((capacity, n_feat), dtype=np.int64)
            grown_hi = np.empty((capacity, n_feat), dtype=np.int64)
            grown_cat = np.empty((capacity, len(cat0)), dtype=np.bool_)
            grown_lo[:top] = los[:top]
            grown_hi[:top] = his[:top]
            grown_cat[:top] = cats[:top]
            los, his, cats = grown_lo, grown_hi, grown_cat
        los[top] = lo
        his[top] = hi
        cats[top] = cat
        los[top + 1] = lo
        his[top + 1] = hi
        cats[top + 1] = cat
        if ordinal[f]:
            m = (split_sum[f] + split_count[f] // 2) // split_count[f]
            if m < lo[f]:
                m = lo[f]
            if m >= hi[f]:
                m = hi[f] - 1
            his[top, f] = m          # searched second: cells lo..m
            los[top + 1, f] = m + 1  # searched first: cells m+1..hi
        else:
            o = cat_offset[f]
            count = 0
            for cell in range(n_cells[f]):
                if cat[o + cell]:
                    count += 1
            half = count // 2
            seen = 0
            for cell in range(n_cells[f]):
                if cat[o + cell]:
                    if seen < half:
                        cats[top + 1, o + cell] = False
                    else:
                        cats[top, o + cell] = False
                    seen += 1
        top += 2
    return ENTAILED, boxes


@njit(cache=True)
def deletion(cells, fixed, order, c, max_boxes, capacity, clock, end, *tables):
    """One AXp by deletion, in one call: for each feature of ``order`` (all fixed features,
    in the order to try them), free it and keep it free when the rest still entails ``c``,
    for the ensemble whose :class:`EnsembleTables` are spread in ``tables``.

    ``fixed`` (bool, shape (F,)) is updated in place. Returns :data:`ENTAILED` when done, or
    :data:`GAVE_UP` (:data:`TIMED_OUT`: the clock passed ``end``, as in :func:`search`) with
    the position in ``order`` of the query that met the limit (the features before it are
    decided)."""
    t = EnsembleTables(*tables)
    ordinal, n_cells, cat_offset = t.ordinal, t.n_cells, t.cat_offset
    n_feat = len(cells)
    lo = np.empty(n_feat, dtype=np.int64)
    hi = np.empty(n_feat, dtype=np.int64)
    total = 0
    for f in range(n_feat):
        if not ordinal[f]:
            total += n_cells[f]
    cat = np.zeros(total, dtype=np.bool_)
    out = np.empty(n_feat, dtype=np.int64)
    for pos in range(len(order)):
        g = order[pos]
        fixed[g] = False
        for f in range(n_feat):
            if ordinal[f]:
                if fixed[f]:
                    lo[f] = cells[f]
                    hi[f] = cells[f]
                else:
                    lo[f] = 0
                    hi[f] = n_cells[f] - 1
            else:
                lo[f] = 0
                hi[f] = n_cells[f] - 1
                o = cat_offset[f]
                for cell in range(n_cells[f]):
                    cat[o + cell] = (not fixed[f]) or cell == cells[f]
        status, _ = _search(t, lo, hi, cat, c, max_boxes, out, capacity, clock, end)
        if status == GAVE_UP or status == TIMED_OUT:
            fixed[g] = True
            return status, pos
        if status == COUNTEREXAMPLE:
            fixed[g] = True
    return ENTAILED, len(order)


@njit(cache=True)
def classify(cells, *tables):
    """The class index of one point given by its cells, for the ensemble whose
    :class:`EnsembleTables` are spread in ``tables``, as
    :meth:`xdt.ir.TreeEnsemble.predict_cells` computes it: each tree's leaf, the
    values summed in tree order in their precision from ``start``, divided, then the first
    largest score (a binary margin: ``score > threshold``)."""
    t = EnsembleTables(*tables)
    feature, cut, offset, child, leaf, roots = (t.feature, t.cut, t.offset, t.child, t.leaf,
                                                t.roots)
    values, divisor, threshold = t.values, t.divisor, t.threshold
    n_scores = values.shape[1]
    acc = t.start.copy()
    for tree in range(len(roots)):
        n = roots[tree]
        while feature[n] >= 0:
            j = cut[n]
            c = cells[feature[n]]
            if j >= 0:
                n = child[offset[n] + (1 if c > j else 0)]
            else:
                n = child[offset[n] + c]
        row = leaf[n]
        for s in range(n_scores):
            acc[s] = acc[s] + values[row, s]
    for s in range(n_scores):
        acc[s] = acc[s] / divisor
    if n_scores == 1:
        return 1 if acc[0] > threshold else 0
    best = 0
    for s in range(1, n_scores):
        if acc[s] > acc[best]:
            best = s
    return best
