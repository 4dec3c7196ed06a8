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
naming ``NUMBA_CACHE_DIR``) and takes only arrays and integers, with the same types on every
call, so each has one compiled version.

Table layout (built once per tree by :class:`~xdt.explain.engines._compiled.CompiledTree`):

``paths``, int64 (P, 6)
    Per path: first literal, end of its literals (in ``lits``), class index, 1 if dead (no
    point reaches it), first and end of its features in ``path_features``.
``lits``, int64 (L, 4)
    Per literal (one per feature tested on a path: the intersection of the path's tests):
    feature, lowest and highest cell (an interval, for an ordinal feature), offset of its
    cell-set words in ``cat_words`` (a categorical feature; -1 for an ordinal one).
``cat_words``, uint64
    The cell sets of categorical literals, ``ceil(n_cells / 64)`` words each.
``feats``, int64 (F, 3)
    Per feature: 1 if ordinal, words of a categorical cell set, offset of the feature's
    allowed-cell words in an instance's ``awords``.
``path_features``, int64
    Per path, its features in order of first test (root first).
``nodes``, int64 (N, 4); ``children``, int64
    The tree for finding a row's leaf: per node its feature (-1 at a leaf), the offset of
    its child table in ``children``, its path (leaves), and its cut: for a threshold node
    the last cell that goes left (its table is (left, right)), -1 for a categorical node
    (one child per cell of the feature).
"""

from __future__ import annotations

import numpy as np

from xdt._numba import ONE as _ONE
from xdt._numba import ZERO as _ZERO
from xdt._numba import lowest_bit as _lowest_bit
from xdt._numba import njit
from xdt._numba import popcount as _popcount


@njit(cache=True)
def leaf_of(nodes, children, cells):
    """The path (leaf number) a row of cells (int64 (F,)) reaches."""
    n = 0
    while nodes[n, 0] >= 0:
        c = cells[nodes[n, 0]]
        cut = nodes[n, 3] if nodes.shape[1] > 3 else -1  # tables without cuts: by cell
        if cut >= 0:  # a threshold node: (left, right)
            c = 1 if c > cut else 0
        n = children[nodes[n, 1] + c]
    return nodes[n, 2]


@njit(cache=True, inline="always")
def _cell_in(lits, cat_words, li, cell):
    """Whether literal ``li`` holds at ``cell`` (of its feature)."""
    off = lits[li, 3]
    if off < 0:
        return lits[li, 1] <= cell <= lits[li, 2]
    return (cat_words[off + (cell >> 6)] >> np.uint64(cell & 63)) & _ONE != _ZERO


@njit(cache=True, inline="always")
def _meets(lits, cat_words, feats, li, alo, ahi, awords):
    """Whether literal ``li`` meets its feature's allowed cells (an interval ``alo..ahi``
    for an ordinal feature, the words of ``awords`` for a categorical one)."""
    f = lits[li, 0]
    off = lits[li, 3]
    if off < 0:
        return lits[li, 1] <= ahi[f] and alo[f] <= lits[li, 2]
    base = feats[f, 2]
    for k in range(feats[f, 1]):
        if cat_words[off + k] & awords[base + k] != _ZERO:
            return True
    return False


@njit(cache=True)
def disagreements(paths, lits, cat_words, feats, cells, restricted, alo, ahi, awords,
                  prediction, n_words, out, rows):
    """The disagreement sets of one instance with every reachable path of another class.

    Parameters
    ----------
    cells : int64 (F,)
        The instance's cells (used when ``restricted`` is False: each feature allowed only
        its cell).
    restricted : bool
        Use the allowed sets ``alo``/``ahi`` (ordinal, int64 (F,)) and ``awords``
        (categorical, uint64) instead of the cells (path-restricted explanations).
    prediction : int
        The instance's class index.
    out : uint64 (P, W), rows : int64 (P,)
        Filled: ``out[i]`` is ``D_p`` of the ``i``-th such path ``p = rows[i]``, in path
        order.

    Returns
    -------
    int
        The number of such paths.
    """
    k = 0
    for p in range(paths.shape[0]):
        if paths[p, 2] == prediction or paths[p, 3] != 0:
            continue
        for w in range(n_words):
            out[k, w] = _ZERO
        for li in range(paths[p, 0], paths[p, 1]):
            f = lits[li, 0]
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
def disagreements_by_table(excl, excl_off, tested, others, other_pos, n_others, cells,
                           prediction, n_words, out):
    """:func:`disagreements` for an instance held to its cells, from the per-feature tables
    of excluded paths: O(F P / 64 + sum of |D_p|) instead of O(total path length).

    ``excl[excl_off[f] + c * PW + w]`` (``PW = ceil(P / 64)`` words) has bit ``p % 64`` of
    word ``w = p // 64`` set when path ``p`` tests feature ``f`` and its literal excludes
    cell ``c``; ``tested`` lists the features some path tests; ``others[c]`` (uint64 (PW,))
    is the set of reachable paths of classes other than ``c``, ``other_pos[c, p]`` the row
    of path ``p`` among them and ``n_others[c]`` their number. Fills ``out[:k]`` (uint64
    (>= k, W)) in path order and returns ``k``.
    """
    k = n_others[prediction]
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
def _path_order(paths, path_features, p, n_features, out):
    """The deletion order "path" of a row reaching path ``p``: features off the path in
    increasing position, then the path's features in order of first test."""
    _path_order_in(paths, path_features, p, n_features, out,
                   np.zeros(n_features, dtype=np.bool_))


@njit(cache=True)
def _path_order_in(paths, path_features, p, n_features, out, on):
    """:func:`_path_order` with scratch ``on`` (bool (F,))."""
    for f in range(n_features):
        on[f] = False
    for j in range(paths[p, 4], paths[p, 5]):
        on[path_features[j]] = True
    k = 0
    for f in range(n_features):
        if not on[f]:
            out[k] = f
            k += 1
    for j in range(paths[p, 4], paths[p, 5]):
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


@njit(cache=True, inline="always")
def _sets_of(paths, lits, cat_words, feats, excl, excl_off, tested, others, other_pos,
             n_others, cells, prediction, n_words, out, rows, dummy_i, dummy_w):
    """The disagreement sets of an instance held to its cells: from the tables when the
    tree has them (``excl`` not empty), else literal by literal."""
    if excl.shape[0] > 0:
        return disagreements_by_table(excl, excl_off, tested, others, other_pos, n_others,
                                      cells, prediction, n_words, out)
    return disagreements(paths, lits, cat_words, feats, cells, False, dummy_i, dummy_i,
                         dummy_w, prediction, n_words, out, rows)


@njit(cache=True)
def explain_rows(paths, lits, cat_words, feats, path_features, nodes, children, excl,
                 excl_off, tested, others, other_pos, n_others, cells, n_words, want_axp,
                 want_cxps, leaves, axps, cx_count, cx_words):
    """One AXp (order "path") and all CXps of every row of ``cells`` (int64 (n, F)).

    Fills ``leaves`` (int64 (n,)), ``axps`` (uint64 (n, W)) and ``cx_count`` (int64 (n,));
    when ``want_cxps``, appends each row's CXps (by size, then as increasing lists of
    features: the order of :meth:`xdt.Explainer.all_cxps`) to ``cx_words`` (uint64
    (capacity, W)) and returns how many words rows it wrote, or -1 - r when row ``r`` did not
    fit (the caller enlarges ``cx_words`` and calls again from row ``r``: see
    :func:`xdt.explain.engines._vectorised.explain_rows`).
    """
    n, n_features = cells.shape
    n_paths = paths.shape[0]
    d = np.empty((n_paths, n_words), dtype=np.uint64)
    mins = np.empty((n_paths, n_words), dtype=np.uint64)
    idx = np.empty(n_paths, dtype=np.int64)
    order = np.empty(n_features, dtype=np.int64)
    full = np.zeros(n_words, dtype=np.uint64)
    for f in range(n_features):
        full[f >> 6] |= _ONE << np.uint64(f & 63)
    dummy_i = np.zeros(1, dtype=np.int64)
    dummy_w = np.zeros(1, dtype=np.uint64)
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
        k = _sets_of(paths, lits, cat_words, feats, excl, excl_off, tested, others,
                     other_pos, n_others, row, paths[leaf, 2], n_words, d, idx, dummy_i,
                     dummy_w)
        m = _minimal_sets(d, k, mins, sizes, by_size, start)
        if want_cxps:
            for i in range(m):
                c = 0
                for w in range(n_words):
                    c += np.int64(_popcount(mins[i, w]))
                sizes[i] = c
            sort_sets(mins, m, sizes)
            if used + m > cx_words.shape[0]:
                return -1 - r
            for i in range(m):
                for w in range(n_words):
                    cx_words[used + i, w] = mins[i, w]
            used += m
        cx_count[r] = m
        if want_axp:
            _path_order_in(paths, path_features, leaf, n_features, order, on)
            expl[:] = full
            _deletion(mins, m, order, expl, count, False)
            axps[r] = expl
    return used


@njit(cache=True)
def explain_one(paths, lits, cat_words, feats, path_features, nodes, children, excl,
                excl_off, tested, others, other_pos, n_others, cells, n_words):
    """What the per-row engine needs first of one instance (each feature allowed only its
    cell), in one call: its leaf, the CXps — the subset-minimal disagreement sets ``D_p`` of
    the reachable paths of other classes (uint64 (m, W), by increasing size) — and the AXp
    of the deletion order "path" (uint64 (W,)). The ``D_p`` themselves are made again by
    :func:`disagreements` when asked for (witnesses, certificates)."""
    n_paths = paths.shape[0]
    n_features = cells.shape[0]
    leaf = leaf_of(nodes, children, cells)
    sets = np.empty((n_paths, n_words), dtype=np.uint64)
    rows = np.empty(n_paths, dtype=np.int64)
    dummy_i = np.zeros(1, dtype=np.int64)
    dummy_w = np.zeros(1, dtype=np.uint64)
    k = _sets_of(paths, lits, cat_words, feats, excl, excl_off, tested, others, other_pos,
                 n_others, cells, paths[leaf, 2], n_words, sets, rows, dummy_i, dummy_w)
    mins = np.empty((max(k, 1), n_words), dtype=np.uint64)
    m = minimal_sets(sets, k, mins)
    order = np.empty(n_features, dtype=np.int64)
    _path_order(paths, path_features, leaf, n_features, order)
    full = np.zeros(n_words, dtype=np.uint64)
    for f in range(n_features):
        full[f >> 6] |= _ONE << np.uint64(f & 63)
    axp = deletion(mins, m, order, full)
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

@njit(cache=True)
def feature_slices(excl, excl_off, tested, others, cells, prediction, out):
    """Fill ``out[j]`` (uint64 (T, PW)) with ``E_f`` for the ``j``-th tested feature ``f``
    (``excl`` etc. as in :func:`disagreements_by_table`)."""
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
    ``expl`` (uint64 (W,)) with the AXp; the same AXp as :func:`deletion` on the D_p."""
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
    keep = np.ones(k, dtype=np.bool_)
    live = members.copy()  # the kept slices, compacted as features go
    for i in range(k):  # try the features in order
        n_live = 0
        skip = -1
        for t in range(k):
            if keep[t]:
                if t == i:
                    skip = n_live
                live[n_live] = members[t]
                n_live += 1
        if _covers(slices, live, n_live, skip, target):
            keep[i] = False
    for w in range(n_words):
        expl[w] = _ZERO
    for i in range(k):
        if keep[i]:
            f = feats[i]
            expl[f >> 6] |= _ONE << np.uint64(f & 63)


@njit(cache=True)
def explain_one_sliced(paths, path_features, nodes, children, excl, excl_off, tested,
                       tested_at, others, cells, n_words):
    """The leaf of one instance (held to its cells), its feature slices (uint64 (T, PW))
    and the AXp of the deletion order "path" (uint64 (W,)), without disagreement sets."""
    n_features = cells.shape[0]
    leaf = leaf_of(nodes, children, cells)
    prediction = paths[leaf, 2]
    slices = np.empty((max(tested.shape[0], 1), others.shape[1]), dtype=np.uint64)
    feature_slices(excl, excl_off, tested, others, cells, prediction, slices)
    order = np.empty(n_features, dtype=np.int64)
    _path_order(paths, path_features, leaf, n_features, order)
    expl = np.empty(n_words, dtype=np.uint64)
    deletion_by_slices(slices, tested_at, others[prediction], order, n_words, expl)
    return leaf, slices, expl


@njit(cache=True)
def axp_rows(paths, path_features, nodes, children, excl, excl_off, tested, tested_at,
             others, cells, n_words, leaves, axps):
    """The leaf and the AXp (order "path") of every row of ``cells`` (int64 (n, F)), by
    feature slices: fills ``leaves`` (int64 (n,)) and ``axps`` (uint64 (n, W))."""
    n, n_features = cells.shape
    slices = np.empty((max(tested.shape[0], 1), others.shape[1]), dtype=np.uint64)
    order = np.empty(n_features, dtype=np.int64)
    on = np.zeros(n_features, dtype=np.bool_)
    expl = np.empty(n_words, dtype=np.uint64)
    for r in range(n):
        row = cells[r]
        leaf = leaf_of(nodes, children, row)
        leaves[r] = leaf
        prediction = paths[leaf, 2]
        feature_slices(excl, excl_off, tested, others, row, prediction, slices)
        _path_order_in(paths, path_features, leaf, n_features, order, on)
        deletion_by_slices(slices, tested_at, others[prediction], order, n_words, expl)
        axps[r] = expl
