"""Compiled kernels of the path-walker, over the flat arrays of
:class:`xdt.explain.engines._compiled.CompiledTree`.

Izza, Ignatiev & Marques-Silva, "On Explaining Decision Trees" (arXiv:2010.11034, 2020; JAIR
2022), Sections 4-5: for an instance predicted ``c`` and a reachable path ``p`` of another
class, the *disagreement set* ``D_p`` holds the features whose literal on ``p`` does not meet
the instance's allowed cells; a set of features entails the prediction exactly when it hits
every ``D_p``; the CXps are the subset-minimal ``D_p``; one AXp is found by deletion.

Feature sets are multiword bitsets: ``W = ceil(F / 64)`` ``uint64`` words per set, feature
``f`` at bit ``f % 64`` of word ``f // 64``, so no number of features is special. Every
kernel is compiled by numba on first use (``cache=True``: once per machine, then loaded from
the cache; where numba finds no writable cache folder, once per process, with a warning
naming ``NUMBA_CACHE_DIR``) and takes a tree's tables as one :class:`TreeTables`, arrays and
integers, with the same types on every call, so each has one compiled version.

The tables (built once per tree by :class:`~xdt.explain.engines._compiled.CompiledTree`) are the
fields of :class:`TreeTables`; the columns of its 2-D tables are named by the ``PATH_*``,
``LIT_*``, ``FEAT_*`` and ``NODE_*`` constants below, the one place that fixes them.

The kernels called once per instance (:func:`explain_one_sliced`, :func:`explain_one`,
:func:`disagreements`, :func:`disagreements_by_table`) take the tables spread as their last
arguments (``*ct.tables``) and name them at once (``TreeTables(*tables)``): numba's
dispatcher types spread arrays in compiled code but a named tuple in Python, which costs
about 3 µs a call (:func:`explain_one_sliced` on a depth-6 tree: 3.3 µs with its arrays
listed, 4.4 µs spread, 6.1 µs as one named tuple), a tenth of a one-row AXp. Spread arrays
still cost about 0.1 µs each, so the kernel of every one-row AXp,
:func:`explain_one_sliced`, takes only the ten fields it reads (:class:`SliceTables`,
``*ct.slice_tables``). The others take a :class:`TreeTables` as it is.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from xdt._numba import ONE as _ONE
from xdt._numba import ZERO as _ZERO
from xdt._numba import lowest_bit as _lowest_bit
from xdt._numba import njit
from xdt._numba import popcount as _popcount

#: Columns of ``paths``: per path, its first literal and the end of its literals (in
#: ``lits``), its class index, 1 if dead (no point reaches it), the first and the end of its
#: features in ``path_features``.
(PATH_LITS_START, PATH_LITS_END, PATH_CLASS, PATH_DEAD, PATH_FEATURES_START,
 PATH_FEATURES_END) = range(6)
PATH_COLUMNS = 6
#: Columns of ``lits``: per literal (one per feature tested on a path: the intersection of
#: the path's tests), its feature, its lowest and highest cell (an interval, for an ordinal
#: feature) and the offset of its cell-set words in ``cat_words`` (a categorical feature; -1
#: for an ordinal one).
LIT_FEATURE, LIT_LO, LIT_HI, LIT_WORDS = range(4)
LIT_COLUMNS = 4
#: Columns of ``feats``: per feature, 1 if ordinal, the words of a categorical cell set, the
#: offset of the feature's allowed-cell words in :attr:`AllowedCells.words`.
FEAT_ORDINAL, FEAT_N_WORDS, FEAT_WORDS_AT = range(3)
FEAT_COLUMNS = 3
#: Columns of ``nodes``: per node, its feature (-1 at a leaf), the offset of its child table
#: in ``children``, its path (leaves), and its cut: for a threshold node the last cell that
#: goes left (its child table is (left, right)), -1 for a categorical node (one child per
#: cell of the feature). A table of the first three columns only routes by cell.
NODE_FEATURE, NODE_CHILDREN, NODE_PATH, NODE_CUT = range(4)
NODE_COLUMNS = 4


class TreeTables(NamedTuple):
    """The flat arrays of one decision tree that the kernels read, in one argument.

    ``P`` paths, ``L`` literals, ``F`` features, ``N`` nodes, ``C`` classes,
    ``PW = ceil(P / 64)``.
    """

    paths: np.ndarray
    """int64 (P, PATH_COLUMNS): the paths' literals, class and features (``PATH_*``)."""
    lits: np.ndarray
    """int64 (L, LIT_COLUMNS): the literals of every path, path after path (``LIT_*``)."""
    cat_words: np.ndarray
    """uint64: the cell sets of categorical literals, ``ceil(n_cells / 64)`` words each."""
    feats: np.ndarray
    """int64 (F, FEAT_COLUMNS): per feature, its kind and words (``FEAT_*``)."""
    path_features: np.ndarray
    """int64: per path, its features in order of first test (root first)."""
    nodes: np.ndarray
    """int64 (N, NODE_COLUMNS): the tree, for finding a row's leaf (``NODE_*``)."""
    children: np.ndarray
    """int64: the child tables of the nodes."""
    excl: np.ndarray
    """uint64: per tested feature ``f`` and cell ``c``, from ``excl_off[f] + c * PW``, the
    paths whose literal on ``f`` excludes ``c`` (a bitset over paths); empty when too large
    (the kernels then walk the literals)."""
    excl_off: np.ndarray
    """int64 (F,): the offset of each tested feature's rows in ``excl``."""
    tested: np.ndarray
    """int64 (T,): the features some path tests (empty with ``excl``)."""
    tested_at: np.ndarray
    """int64 (F,): each feature's position in ``tested``, -1 if untested."""
    others: np.ndarray
    """uint64 (C, PW): per class, the reachable paths of the other classes."""
    other_pos: np.ndarray
    """int64 (C, P): per class, each path's row among ``others`` (-1 if none)."""
    n_others: np.ndarray
    """int64 (C,): per class, the number of reachable paths of the other classes."""
    n_words: int
    """``W = ceil(F / 64)`` (at least 1): the words of a feature set."""


class SliceTables(NamedTuple):
    """The fields of :class:`TreeTables` that :func:`explain_one_sliced` reads, the same
    arrays (:attr:`CompiledTree.slice_tables
    <xdt.explain.engines._compiled.CompiledTree.slice_tables>`): fewer arguments for
    numba's dispatcher to type on every one-row AXp."""

    paths: np.ndarray
    path_features: np.ndarray
    nodes: np.ndarray
    children: np.ndarray
    excl: np.ndarray
    excl_off: np.ndarray
    tested: np.ndarray
    tested_at: np.ndarray
    others: np.ndarray
    n_words: int


class AllowedCells(NamedTuple):
    """Per feature, the cells an instance allows (path-restricted explanations): an interval
    ``lo[f]..hi[f]`` (int64 (F,)) for an ordinal feature, the words of ``words`` (uint64,
    from ``feats[f, FEAT_WORDS_AT]``) for a categorical one."""

    lo: np.ndarray
    hi: np.ndarray
    words: np.ndarray


@njit(cache=True)
def leaf_of(nodes, children, cells):
    """The path (leaf number) a row of cells (int64 (F,)) reaches, by the tree's ``nodes``
    and ``children`` (:class:`TreeTables`)."""
    n = 0
    while nodes[n, NODE_FEATURE] >= 0:
        c = cells[nodes[n, NODE_FEATURE]]
        # tables without cuts: by cell
        cut = nodes[n, NODE_CUT] if nodes.shape[1] > NODE_CUT else -1
        if cut >= 0:  # a threshold node: (left, right)
            c = 1 if c > cut else 0
        n = children[nodes[n, NODE_CHILDREN] + c]
    return nodes[n, NODE_PATH]


@njit(cache=True, inline="always")
def _cell_in(lits, cat_words, li, cell):
    """Whether literal ``li`` holds at ``cell`` (of its feature)."""
    off = lits[li, LIT_WORDS]
    if off < 0:
        return lits[li, LIT_LO] <= cell <= lits[li, LIT_HI]
    return (cat_words[off + (cell >> 6)] >> np.uint64(cell & 63)) & _ONE != _ZERO


@njit(cache=True, inline="always")
def _meets(lits, cat_words, feats, li, alo, ahi, awords):
    """Whether literal ``li`` meets its feature's allowed cells (the fields of an
    :class:`AllowedCells`)."""
    f = lits[li, LIT_FEATURE]
    off = lits[li, LIT_WORDS]
    if off < 0:
        return lits[li, LIT_LO] <= ahi[f] and alo[f] <= lits[li, LIT_HI]
    base = feats[f, FEAT_WORDS_AT]
    for k in range(feats[f, FEAT_N_WORDS]):
        if cat_words[off + k] & awords[base + k] != _ZERO:
            return True
    return False


@njit(cache=True)
def disagreements(cells, restricted, allowed, prediction, out, rows, *tables):
    """The disagreement sets of one instance with every reachable path of another class.

    Parameters
    ----------
    cells : int64 (F,)
        The instance's cells (used when ``restricted`` is False: each feature allowed only
        its cell).
    restricted : bool
        Use the allowed cells ``allowed`` instead of the cells (path-restricted
        explanations).
    allowed : tuple
        The fields of an :class:`AllowedCells` (as a plain tuple, which numba types in
        compiled code: see the module docstring).
    prediction : int
        The instance's class index.
    out : uint64 (P, W), rows : int64 (P,)
        Filled: ``out[i]`` is ``D_p`` of the ``i``-th such path ``p = rows[i]``, in path
        order.
    *tables
        The fields of the tree's :class:`TreeTables`.

    Returns
    -------
    int
        The number of such paths.
    """
    return _disagreements(TreeTables(*tables), cells, restricted, allowed, prediction, out,
                          rows)


@njit(cache=True)
def _disagreements(t, cells, restricted, allowed, prediction, out, rows):
    """:func:`disagreements` on the tables ``t`` (:class:`TreeTables`)."""
    # the arrays as locals: a field read in a loop costs a reference count each time
    paths, lits, cat_words, feats, n_words = t.paths, t.lits, t.cat_words, t.feats, t.n_words
    alo, ahi, awords = allowed
    k = 0
    for p in range(paths.shape[0]):
        if paths[p, PATH_CLASS] == prediction or paths[p, PATH_DEAD] != 0:
            continue
        for w in range(n_words):
            out[k, w] = _ZERO
        for li in range(paths[p, PATH_LITS_START], paths[p, PATH_LITS_END]):
            f = lits[li, LIT_FEATURE]
            if restricted:
                ok = _meets(lits, cat_words, feats, li, alo, ahi, awords)
            else:
                ok = _cell_in(lits, cat_words, li, cells[f])
            if not ok:
                out[k, f >> 6] |= _ONE << np.uint64(f & 63)
        rows[k] = p
        k += 1
    return k


@njit(cache=True)
def disagreements_by_table(cells, prediction, out, *tables):
    """:func:`disagreements` for an instance held to its cells, from the per-feature tables
    of excluded paths (``excl`` etc. of the tree's :class:`TreeTables`, spread in
    ``tables``): O(F P / 64 + sum of |D_p|) instead of O(total path length). Fills
    ``out[:k]`` (uint64 (>= k, W)) in path order and returns ``k``.
    """
    return _by_table(TreeTables(*tables), cells, prediction, out)


@njit(cache=True)
def _by_table(t, cells, prediction, out):
    """:func:`disagreements_by_table` on the tables ``t`` (:class:`TreeTables`)."""
    excl, excl_off, tested, others, other_pos = (t.excl, t.excl_off, t.tested, t.others,
                                                 t.other_pos)
    n_words = t.n_words
    k = t.n_others[prediction]
    for i in range(k):
        for w in range(n_words):
            out[i, w] = _ZERO
    pw = others.shape[1]
    for j in range(tested.shape[0]):
        f = tested[j]
        fw = f >> 6
        fbit = _ONE << np.uint64(f & 63)
        base = excl_off[f] + cells[f] * pw
        for w in range(pw):
            x = excl[base + w] & others[prediction, w]
            while x != _ZERO:
                p = (w << 6) + _lowest_bit(x)
                out[other_pos[prediction, p], fw] |= fbit
                x &= x - _ONE
    return k


@njit(cache=True)
def minimal_sets(sets, n, out):
    """The subset-minimal sets among ``sets[:n]`` (uint64 (>= n, W)), duplicates removed.

    Fills ``out`` (uint64 (>= n, W)) with them by increasing size (ties in input order) and
    returns how many. A set is kept when no set kept before it (none larger) lies inside it:
    a set that is not minimal has a minimal proper subset, which is smaller. O(n m W) for
    ``m`` minimal sets.
    """
    scratch = np.empty(max(n, 1), dtype=np.int64)
    return _minimal_sets(sets, n, out, scratch, np.empty(max(n, 1), dtype=np.int64),
                         np.empty(64 * sets.shape[1] + 2, dtype=np.int64))


@njit(cache=True)
def _minimal_sets(sets, n, out, sizes, order, start):
    """:func:`minimal_sets` with scratch arrays ``sizes`` and ``order`` (int64 (>= n,))
    and ``start`` (int64 (64 W + 2,)).
    """
    n_words = sets.shape[1]
    most = 0
    for i in range(n):
        s = 0
        for w in range(n_words):
            s += np.int64(_popcount(sets[i, w]))
        sizes[i] = s
        most = max(most, s)
    # by increasing size, ties in input order: a counting sort (sizes are at most 64 W)
    for v in range(most + 2):
        start[v] = 0
    for i in range(n):
        start[sizes[i] + 1] += 1
    for v in range(most + 1):
        start[v + 1] += start[v]
    for i in range(n):
        order[start[sizes[i]]] = i
        start[sizes[i]] += 1
    m = 0
    for j in range(n):
        i = order[j]
        inside = False
        for t in range(m):
            sub = True
            for w in range(n_words):
                if out[t, w] & ~sets[i, w] != _ZERO:
                    sub = False
                    break
            if sub:
                inside = True
                break
        if not inside:
            for w in range(n_words):
                out[m, w] = sets[i, w]
            m += 1
    return m


@njit(cache=True)
def deletion(sets, m, order, start):
    """One AXp by deletion: from ``start`` (uint64 (W,), a set hitting every ``sets[:m]``),
    drop each feature of ``order`` (int64) in turn when the rest still hits every set.

    Features of ``start`` that ``order`` does not list are tried afterwards in increasing
    position (trying a kept feature again changes nothing: a set that did not entail loses
    nothing by shrinking). Returns the AXp's words (uint64 (W,)). Keeps, per set, how many
    of its features are still in: a feature can go when every set holding it has another
    one left. O(m (W + F)).
    """
    expl = start.copy()
    _deletion(sets, m, order, expl, np.empty(max(m, 1), dtype=np.int64), True)
    return expl


@njit(cache=True)
def _deletion(sets, m, order, expl, count, tail):
    """:func:`deletion` in place: ``expl`` (uint64 (W,)) starts as the weak AXp and ends as
    the AXp; ``count`` (int64 (>= m,)) is scratch; ``tail``: try the features ``order``
    does not list afterwards (not needed when it lists every feature). A feature in no set
    is always dropped when tried, so those are dropped first."""
    n_words = expl.shape[0]
    for w in range(n_words):
        union = _ZERO
        for i in range(m):
            union |= sets[i, w]
        expl[w] &= union
    for i in range(m):
        s = 0
        for w in range(n_words):
            s += np.int64(_popcount(sets[i, w] & expl[w]))
        count[i] = s
    n_order = order.shape[0]
    for j in range(n_order + (64 * n_words if tail else 0)):
        f = order[j] if j < n_order else j - n_order
        w = f >> 6
        bit = _ONE << np.uint64(f & 63)
        if expl[w] & bit == _ZERO:
            continue
        ok = True
        for i in range(m):
            if sets[i, w] & bit != _ZERO and count[i] <= 1:
                ok = False
                break
        if ok:
            expl[w] &= ~bit
            for i in range(m):
                if sets[i, w] & bit != _ZERO:
                    count[i] -= 1


@njit(cache=True)
def first_missed(sets, n, fixed):
    """The first of ``sets[:n]`` that ``fixed`` (uint64 (W,)) does not hit, or -1."""
    n_words = sets.shape[1]
    for i in range(n):
        hit = False
        for w in range(n_words):
            if sets[i, w] & fixed[w] != _ZERO:
                hit = True
                break
        if not hit:
            return i
    return -1


@njit(cache=True)
def path_order(t, p, out):
    """The deletion order "path" of a row reaching path ``p``: features off the path in
    increasing position, then the path's features in order of first test; written into
    ``out`` (int64 (F,))."""
    _path_order_in(t, p, out, np.zeros(out.shape[0], dtype=np.bool_))


@njit(cache=True, inline="always")
def _path_order_in(t, p, out, on):
    """:func:`path_order` with scratch ``on`` (bool (F,))."""
    n_features = out.shape[0]
    path_features = t.path_features
    for f in range(n_features):
        on[f] = False
    first = t.paths[p, PATH_FEATURES_START]
    end = t.paths[p, PATH_FEATURES_END]
    for j in range(first, end):
        on[path_features[j]] = True
    k = 0
    for f in range(n_features):
        if not on[f]:
            out[k] = f
            k += 1
    for j in range(first, end):
        out[k] = path_features[j]
        k += 1


@njit(cache=True, inline="always")
def _before(sets, a, b):
    """Whether set ``a`` comes before set ``b`` (rows of ``sets``, same size) when sets are
    compared as increasing lists of features: ``a`` holds the lowest feature in which they
    differ."""
    for w in range(sets.shape[1]):
        x = sets[a, w] ^ sets[b, w]
        if x != _ZERO:
            return sets[a, w] & (x & (~x + _ONE)) != _ZERO
    return False


@njit(cache=True)
def sort_sets(sets, m, sizes):
    """Sort ``sets[:m]`` (uint64 (>= m, W), already by increasing size, sizes in ``sizes``)
    by size, then as increasing lists of features — the order explanations are listed in.
    Insertion sort: the sets of one size are few."""
    tmp = np.empty(sets.shape[1], dtype=np.uint64)
    for i in range(1, m):
        j = i
        while j > 0 and sizes[j - 1] == sizes[j] and _before(sets, j, j - 1):
            tmp[:] = sets[j]
            sets[j] = sets[j - 1]
            sets[j - 1] = tmp
            j -= 1


@njit(cache=True)
def append_sets(mins, m, sizes, out, used):
    """Append the minimal sets ``mins[:m]`` to ``out`` from row ``used``, sorted as
    :func:`sort_sets` lists them (``sizes`` is overwritten with their sizes); the new count
    of rows used, or -1 when ``out`` has no room for them (nothing appended)."""
    n_words = mins.shape[1]
    for i in range(m):
        c = 0
        for w in range(n_words):
            c += np.int64(_popcount(mins[i, w]))
        sizes[i] = c
    sort_sets(mins, m, sizes)
    if used + m > out.shape[0]:
        return -1
    for i in range(m):
        for w in range(n_words):
            out[used + i, w] = mins[i, w]
    return used + m


@njit(cache=True, inline="always")
def _sets_of(t, cells, prediction, out, rows, unused):
    """The disagreement sets of an instance held to its cells: from the tables when the
    tree has them (``excl`` not empty), else literal by literal (``unused``:
    :func:`_no_cells`)."""
    if t.excl.shape[0] > 0:
        return _by_table(t, cells, prediction, out)
    return _disagreements(t, cells, False, unused, prediction, out, rows)


@njit(cache=True, inline="always")
def _no_cells():
    """The fields of an :class:`AllowedCells` that is not read (instances held to their
    cells), as the plain tuple :func:`disagreements` takes (one compiled version)."""
    return (np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64),
            np.zeros(1, dtype=np.uint64))


@njit(cache=True, inline="always")
def _all_features(n_features, n_words):
    """The set of every feature, uint64 (W,)."""
    full = np.zeros(n_words, dtype=np.uint64)
    for f in range(n_features):
        full[f >> 6] |= _ONE << np.uint64(f & 63)
    return full


@njit(cache=True)
def explain_rows(t, cells, want_axp, want_cxps, leaves, axps, cx_count, cx_words):
    """One AXp (order "path") and all CXps of every row of ``cells`` (int64 (n, F)), of the
    tree of tables ``t`` (:class:`TreeTables`).

    Fills ``leaves`` (int64 (n,)), ``axps`` (uint64 (n, W)) and ``cx_count`` (int64 (n,));
    when ``want_cxps``, appends each row's CXps (by size, then as increasing lists of
    features: the order of :meth:`xdt.Explainer.all_cxps`) to ``cx_words`` (uint64
    (capacity, W)) and returns how many words rows it wrote, or -1 - r when row ``r`` did not
    fit (the caller enlarges ``cx_words`` and calls again from row ``r``: see
    :func:`xdt.explain.engines._vectorised.explain_rows`).
    """
    n, n_features = cells.shape
    paths, nodes, children, n_words = t.paths, t.nodes, t.children, t.n_words
    n_paths = paths.shape[0]
    d = np.empty((n_paths, n_words), dtype=np.uint64)
    mins = np.empty((n_paths, n_words), dtype=np.uint64)
    idx = np.empty(n_paths, dtype=np.int64)
    order = np.empty(n_features, dtype=np.int64)
    full = _all_features(n_features, n_words)
    unused = _no_cells()
    sizes = np.empty(max(n_paths, 1), dtype=np.int64)
    by_size = np.empty(max(n_paths, 1), dtype=np.int64)
    start = np.empty(64 * n_words + 2, dtype=np.int64)
    count = np.empty(max(n_paths, 1), dtype=np.int64)
    on = np.zeros(n_features, dtype=np.bool_)
    expl = np.empty(n_words, dtype=np.uint64)
    used = 0
    for r in range(n):
        row = cells[r]
        leaf = leaf_of(nodes, children, row)
        leaves[r] = leaf
        k = _sets_of(t, row, paths[leaf, PATH_CLASS], d, idx, unused)
        m = _minimal_sets(d, k, mins, sizes, by_size, start)
        if want_cxps:
            used = append_sets(mins, m, sizes, cx_words, used)
            if used < 0:
                return -1 - r
        cx_count[r] = m
        if want_axp:
            _path_order_in(t, leaf, order, on)
            expl[:] = full
            _deletion(mins, m, order, expl, count, False)
            axps[r] = expl
    return used


@njit(cache=True)
def explain_one(cells, *tables):
    """What the per-row engine needs first of one instance (each feature allowed only its
    cell) of the tree whose :class:`TreeTables` are spread in ``tables``, in one call: its
    leaf, the CXps — the subset-minimal disagreement sets ``D_p`` of the reachable paths of
    other classes (uint64 (m, W), by increasing size) — and the AXp of the deletion order
    "path" (uint64 (W,)). The ``D_p`` themselves are made again by :func:`disagreements`
    when asked for (witnesses, certificates)."""
    t = TreeTables(*tables)
    n_words = t.n_words
    n_paths = t.paths.shape[0]
    n_features = cells.shape[0]
    leaf = leaf_of(t.nodes, t.children, cells)
    sets = np.empty((n_paths, n_words), dtype=np.uint64)
    rows = np.empty(n_paths, dtype=np.int64)
    k = _sets_of(t, cells, t.paths[leaf, PATH_CLASS], sets, rows, _no_cells())
    mins = np.empty((max(k, 1), n_words), dtype=np.uint64)
    m = minimal_sets(sets, k, mins)
    order = np.empty(n_features, dtype=np.int64)
    path_order(t, leaf, order)
    axp = deletion(mins, m, order, _all_features(n_features, n_words))
    return leaf, mins[:m], axp


@njit(cache=True)
def encode_numbers(values, kind, ptr, table, codes, limits, out):
    """Cells of one instance given as float64 numbers (F,), without Python per feature.

    ``kind[f]`` 0: ordinal, the cell is the number of thresholds ``table[ptr[f]:ptr[f+1]]``
    (sorted) below the value (``searchsorted`` side "left"); 1: categorical with a numeric
    domain, the cell ``codes[j]`` of the domain value ``table[j]`` (sorted) equal to the
    value. Fills ``out`` (int64 (F,)) and returns True; returns False, leaving the rest to
    the exact reader and its errors, for a value that is NaN, beyond ``limits[f]`` or not in
    a domain.
    """
    for f in range(values.shape[0]):
        v = values[f]
        if not (-limits[f] <= v <= limits[f]):
            return False
        lo = ptr[f]
        hi = ptr[f + 1]
        while lo < hi:  # first entry >= v
            mid = (lo + hi) >> 1
            if table[mid] < v:
                lo = mid + 1
            else:
                hi = mid
        if kind[f] == 0:
            out[f] = lo - ptr[f]
        elif lo < ptr[f + 1] and table[lo] == v:
            out[f] = codes[lo]
        else:
            return False
    return True


@njit(cache=True)
def minimum_hitting_set(sets, m, budget, best):
    """A smallest set of features meeting every one of ``sets[:m]`` (uint64 (>= m, W)), by
    branch and bound: from a greedy solution, a depth-first search that picks a set not yet
    hit and branches on its features (each branch forbidding the features its earlier
    siblings took), cutting branches that cannot beat the best so far.

    Writes the set into ``best`` (uint64 (W,)) and returns its size; -1 when ``budget``
    search steps did not finish (the caller then asks a MaxSAT solver), -2 when some set is
    empty (nothing hits it).
    """
    n_words = sets.shape[1]
    n_bits = 64 * n_words
    for i in range(m):
        empty = True
        for w in range(n_words):
            if sets[i, w] != _ZERO:
                empty = False
        if empty:
            return -2
    # greedy: the feature in most sets not yet hit, until all are hit
    for w in range(n_words):
        best[w] = _ZERO
    size = 0
    hit = np.zeros(m, dtype=np.bool_)
    left = m
    while left > 0:
        top, top_f = -1, -1
        for f in range(n_bits):
            w = f >> 6
            bit = _ONE << np.uint64(f & 63)
            c = 0
            for i in range(m):
                if not hit[i] and sets[i, w] & bit != _ZERO:
                    c += 1
            if c > top:
                top, top_f = c, f
        w = top_f >> 6
        bit = _ONE << np.uint64(top_f & 63)
        best[w] |= bit
        size += 1
        for i in range(m):
            if not hit[i] and sets[i, w] & bit != _ZERO:
                hit[i] = True
                left -= 1
    # depth-first branch and bound
    depth_max = size + 1
    chosen = np.zeros((depth_max + 1, n_words), dtype=np.uint64)
    forbidden = np.zeros((depth_max + 1, n_words), dtype=np.uint64)
    target = np.empty(depth_max + 1, dtype=np.int64)
    next_f = np.zeros(depth_max + 1, dtype=np.int64)
    target[0] = first_missed(sets, m, chosen[0])
    if target[0] < 0:
        for w in range(n_words):
            best[w] = _ZERO
        return 0
    level = 0
    steps = 0
    while level >= 0:
        steps += 1
        if steps > budget:
            return -1
        if level + 1 >= size:  # a child would have level + 1 features: no better
            level -= 1
            continue
        t = target[level]
        f = next_f[level]
        while f < n_bits:
            w = f >> 6
            bit = _ONE << np.uint64(f & 63)
            if sets[t, w] & bit != _ZERO and forbidden[level, w] & bit == _ZERO:
                break
            f += 1
        if f >= n_bits:
            level -= 1
            continue
        next_f[level] = f + 1
        w = f >> 6
        bit = _ONE << np.uint64(f & 63)
        for k in range(n_words):
            chosen[level + 1, k] = chosen[level, k]
            forbidden[level + 1, k] = forbidden[level, k]
        chosen[level + 1, w] |= bit
        for g in range(f):  # the features of the set tried before f: not in this branch
            gw = g >> 6
            gbit = _ONE << np.uint64(g & 63)
            if sets[t, gw] & gbit != _ZERO:
                forbidden[level + 1, gw] |= gbit
        u = first_missed(sets, m, chosen[level + 1])
        if u < 0:  # a hitting set of level + 1 features: the best so far
            size = level + 1
            for k in range(n_words):
                best[k] = chosen[level + 1, k]
            continue
        level += 1
        target[level] = u
        next_f[level] = 0
    return size


@njit(cache=True)
def distinct_rows(words):
    """The distinct rows of ``words`` (uint64 (n, W)): ``(first, inverse)``, the position
    of each distinct row's first occurrence (int64 (k,), in order of appearance) and each
    row's number among them (int64 (n,)). One pass with an open-addressing hash table."""
    n, n_words = words.shape
    size = 1
    while size < 2 * n + 2:
        size <<= 1
    table = np.full(size, -1, dtype=np.int64)
    first = np.empty(n, dtype=np.int64)
    inverse = np.empty(n, dtype=np.int64)
    k = 0
    for r in range(n):
        h = np.uint64(1469598103934665603)
        for w in range(n_words):
            h = (h ^ words[r, w]) * np.uint64(1099511628211)
            h ^= h >> np.uint64(29)
        slot = np.int64(h & np.uint64(size - 1))
        while True:
            j = table[slot]
            if j < 0:
                table[slot] = k
                first[k] = r
                inverse[r] = k
                k += 1
                break
            same = True
            row = first[j]
            for w in range(n_words):
                if words[row, w] != words[r, w]:
                    same = False
                    break
            if same:
                inverse[r] = j
                break
            slot = (slot + 1) & (size - 1)
    return first[:k].copy(), inverse


# ---------------------------------------------------------------- feature slices
# The disagreement sets seen the other way round: per feature f, the set E_f (a bitset over
# paths) of the reachable paths of other classes whose literal on f excludes the instance's
# cell. A set S of features hits every D_p exactly when the union of its E_f is every such
# path, so entailment and deletion need no D_p at all: O(F P / 64) per test.

@njit(cache=True, inline="always")
def feature_slices(t, cells, prediction, out):
    """Fill ``out[j]`` (uint64 (T, PW)) with ``E_f`` for the ``j``-th tested feature ``f``
    (from ``t.excl`` etc., :class:`TreeTables`)."""
    excl, excl_off, tested, others = t.excl, t.excl_off, t.tested, t.others
    pw = others.shape[1]
    for j in range(tested.shape[0]):
        f = tested[j]
        base = excl_off[f] + cells[f] * pw
        for w in range(pw):
            out[j, w] = excl[base + w] & others[prediction, w]


@njit(cache=True, inline="always")
def _covers(slices, members, n, skip, target):
    """Whether the union of ``slices[members[i]]`` (``i < n``, ``i != skip``) holds every
    path of ``target`` (uint64 (PW,))."""
    for w in range(target.shape[0]):
        u = _ZERO
        for i in range(n):
            if i != skip:
                u |= slices[members[i], w]
        if target[w] & ~u != _ZERO:
            return False
    return True


@njit(cache=True)
def deletion_by_slices(slices, tested_at, target, order, n_words, expl):
    """One AXp by deletion from the features of ``order`` (int64, each feature once), with
    entailment as "the slices of the kept features cover ``target``" (the reachable paths
    of the other classes). ``tested_at[f]``: the slice of feature ``f``, -1 when untested
    (in no disagreement set: always dropped, as is a feature whose slice is empty). Fills
    ``expl`` (uint64 (W,)) with the AXp; the same AXp as :func:`deletion` on the D_p.
    O(F + T PW + sum of the slices' sizes): a count per path of the kept slices holding it
    says whether a feature may go, without a union per feature."""
    n = order.shape[0]
    members = np.empty(n, dtype=np.int64)  # slices of the kept features, in order
    feats = np.empty(n, dtype=np.int64)
    k = 0
    for j in range(n):
        f = order[j]
        s = tested_at[f]
        if s < 0:
            continue
        empty = True
        for w in range(slices.shape[1]):
            if slices[s, w] != _ZERO:
                empty = False
                break
        if not empty:
            members[k] = s
            feats[k] = f
            k += 1
    # how many kept slices hold each path of target: a feature may go when every path of
    # its slice is held by another kept slice (the union of the others still covers target)
    pw = slices.shape[1]
    held = np.zeros(64 * pw, dtype=np.int64)
    for i in range(k):
        for w in range(pw):
            x = slices[members[i], w] & target[w]
            while x != _ZERO:
                held[(w << 6) + _lowest_bit(x)] += 1
                x &= x - _ONE
    covered = True
    for w in range(pw):
        x = target[w]
        while x != _ZERO:
            if held[(w << 6) + _lowest_bit(x)] == 0:
                covered = False
            x &= x - _ONE
    keep = np.ones(k, dtype=np.bool_)
    if covered:  # else no set of the features entails the prediction: all are kept
        for i in range(k):  # try the features in order
            s = members[i]
            free = True
            for w in range(pw):
                x = slices[s, w] & target[w]
                while x != _ZERO:
                    if held[(w << 6) + _lowest_bit(x)] < 2:
                        free = False
                        break
                    x &= x - _ONE
                if not free:
                    break
            if free:
                keep[i] = False
                for w in range(pw):
                    x = slices[s, w] & target[w]
                    while x != _ZERO:
                        held[(w << 6) + _lowest_bit(x)] -= 1
                        x &= x - _ONE
    for w in range(n_words):
        expl[w] = _ZERO
    for i in range(k):
        if keep[i]:
            f = feats[i]
            expl[f >> 6] |= _ONE << np.uint64(f & 63)


@njit(cache=True)
def interval_exclusions(table, paths, lo, hi):
    """Fill ``table`` (uint64 (n_cells, PW)) of one ordinal feature: row ``c`` gets the
    paths ``paths[i]`` (int64 (n,)) whose interval ``lo[i]..hi[i]`` (int64 (n,); ``lo >
    hi`` for an empty set) excludes cell ``c``. One sweep over the cells, O(n log n +
    n_cells PW), where setting each path's excluded cells one by one costs O(n n_cells)."""
    n_cells, pw = table.shape
    n = paths.shape[0]
    below = np.zeros(pw, dtype=np.uint64)  # the paths whose interval starts above c
    above = np.zeros(pw, dtype=np.uint64)  # the paths whose interval ends below c
    for i in range(n):
        if lo[i] > 0:
            below[paths[i] >> 6] |= _ONE << np.uint64(paths[i] & 63)
    by_lo = np.argsort(lo)
    by_hi = np.argsort(hi)
    a = 0
    b = 0
    for c in range(n_cells):
        while a < n and lo[by_lo[a]] <= c:
            p = paths[by_lo[a]]
            below[p >> 6] &= ~(_ONE << np.uint64(p & 63))
            a += 1
        while b < n and hi[by_hi[b]] < c:
            p = paths[by_hi[b]]
            above[p >> 6] |= _ONE << np.uint64(p & 63)
            b += 1
        for w in range(pw):
            table[c, w] |= below[w] | above[w]


@njit(cache=True)
def explain_one_sliced(cells, *tables):
    """The leaf of one instance (held to its cells) of the tree whose :class:`SliceTables`
    are spread in ``tables``, its feature slices (uint64 (T, PW)) and the AXp of the
    deletion order "path" (uint64 (W,)), without disagreement sets."""
    t = SliceTables(*tables)
    n_features = cells.shape[0]
    leaf = leaf_of(t.nodes, t.children, cells)
    prediction = t.paths[leaf, PATH_CLASS]
    slices = np.empty((max(t.tested.shape[0], 1), t.others.shape[1]), dtype=np.uint64)
    feature_slices(t, cells, prediction, slices)
    order = np.empty(n_features, dtype=np.int64)
    path_order(t, leaf, order)
    expl = np.empty(t.n_words, dtype=np.uint64)
    deletion_by_slices(slices, t.tested_at, t.others[prediction], order, t.n_words, expl)
    return leaf, slices, expl


@njit(cache=True)
def axp_rows(t, cells, leaves, axps):
    """The leaf and the AXp (order "path") of every row of ``cells`` (int64 (n, F)) of the
    tree of tables ``t`` (:class:`TreeTables`), by feature slices: fills ``leaves`` (int64
    (n,)) and ``axps`` (uint64 (n, W))."""
    n, n_features = cells.shape
    paths, nodes, children, others = t.paths, t.nodes, t.children, t.others
    tested_at, n_words = t.tested_at, t.n_words
    slices = np.empty((max(t.tested.shape[0], 1), others.shape[1]), dtype=np.uint64)
    order = np.empty(n_features, dtype=np.int64)
    on = np.zeros(n_features, dtype=np.bool_)
    expl = np.empty(n_words, dtype=np.uint64)
    for r in range(n):
        row = cells[r]
        leaf = leaf_of(nodes, children, row)
        leaves[r] = leaf
        prediction = paths[leaf, PATH_CLASS]
        feature_slices(t, row, prediction, slices)
        _path_order_in(t, leaf, order, on)
        deletion_by_slices(slices, tested_at, others[prediction], order, n_words, expl)
        axps[r] = expl
