"""Compiled kernels of tree growth: the split search of a node, its stable partition, and the
depth-first growth loop of CART and SER-DT, over flat arrays prepared once per fit by
:mod:`xdt.learn._growth`.

The kernels choose the same tests as the vectorised numpy splitter kept as the reference
the tests compare with (``tests/reference/splitter.py``, not shipped): every
threshold of every ordinal feature between two consecutive distinct values of the node,
every ``x = v`` test of every categorical feature (one test for a two-value feature), the
same impurities, the same rules (CART: least impurity strictly below the node's; SER-DT,
Souza, Cicalese, Laber & Molinaro, NeurIPS 2022, Algorithm 1 with Section 6's rules:
balanced tests that lower the impurity, the impurity multiplied by ``factor_expl`` for a
feature already on the path) and the same tie-breaks (scores within ``TIE``: lower
impurity, then lower feature position, then smaller threshold or earlier domain value).
The kernel compares each candidate with the best one so far, where the numpy splitter
takes every candidate within ``TIE`` of the lowest score at once: the two can differ only
when several candidates' scores step down by less than ``TIE`` (1e-12) each but by more in
all, which takes crafted weights (exact ties, the common case, agree).

What changes is the shape of the work, after the classic presorted layout of SLIQ (Mehta,
Agrawal & Rissanen, EDBT 1996): the node's rows are a segment ``[start, end)`` of one
``samples`` array and, per *sorted* ordinal column, of that column's row order; a split
partitions the segments in place (stably), so nothing is copied or sorted per node and a
node costs the same few loops whatever its size. Columns with few distinct values
(*binned*: ordinal columns with at most ``LOW_CARD`` values, and categorical ones) keep no
order at all: one pass over the node's rows counts (value, class) pairs for all of them at
once, and their candidates are scored from the counts.

Layout
------
``X``, float64 (n, n_ordinal), C-ordered, or its C-ordered transpose (``tr``)
    The ordinal columns.
``orders``, int32 (n_sorted, n)
    Per sorted column, the rows of every node's segment in increasing order of the column.
``codes``, uint8/uint16/int32 (n, n_binned)
    Per binned column, each row's bin: its value's rank (ordinal) or domain position
    (categorical).
``feat``, int64 (F, FEAT_COLUMNS)
    Per feature (IR position): kind (``SORTED``, ``BINNED``, ``CATEGORICAL``), its row in
    ``orders`` or column in ``codes``, its column in ``X`` (-1 for a categorical feature),
    number of bins, offset of its bins in the bin tables (``bin_values``, the histograms):
    columns named by the ``FEAT_*`` constants below.
``nodes``, int64 (capacity, N_INT); ``nodes_f``, float64 (capacity, N_FLOAT);
``node_cw``, float64 (capacity, k)
    The tree as it grows: columns named by the ``N_*`` / ``F_*`` constants below.

The kernel takes them grouped: the columns (:class:`Columns`), the classes and weights of
the rows (:class:`Targets`), the rule (:class:`Rules`), the tree as it grows
(:class:`Nodes`) and the rows' working arrays (:class:`Buffers`), each a named tuple whose
fields the kernels read into locals before their loops (a field read in a loop costs a
reference count each time).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from xdt._numba import njit

#: Scores closer than this are ties (as :data:`xdt.learn._splitter.TIE`).
TIE = 1e-12
LN2 = float(np.log(2.0))

#: Feature kinds.
SORTED, BINNED, CATEGORICAL = 0, 1, 2

#: Columns of ``feat``: per feature, its kind, its row in ``orders`` (sorted) or column in
#: ``codes`` (binned, categorical), its column in ``X`` (-1 for a categorical feature), its
#: number of bins and the offset of its bins in ``bin_values`` and the histograms.
FEAT_KIND, FEAT_INDEX, FEAT_X, FEAT_N_BINS, FEAT_BIN_OFFSET = range(5)
FEAT_COLUMNS = 5

#: What :func:`grow` returns: finished; the node tables are full (grow them and call again);
#: a SER-DT node needs the three-way split of Algorithm 1, lines 6-8 (computed by the
#: caller, then call again).
DONE, FULL, FALLBACK = 0, 1, 2

#: Integer node columns.
(N_START, N_END, N_DEPTH, N_PARENT, N_FEATURE, N_CATEGORY, N_LEFT, N_RIGHT, N_ROWS,
 N_FORCED, N_FORCED_FEATURE, N_FORCED_CATEGORY, N_THEN_FEATURE, N_THEN_CATEGORY) = range(14)
N_INT = 14
#: Float node columns: the threshold lies between the node's values LO and HI (``x <= LO``
#: goes left); forced tests carry their threshold itself.
F_LO, F_HI, F_FORCED_T, F_THEN_T = range(4)
N_FLOAT = 4

#: ``nodes[i, N_FORCED]``: no forced test; a test the caller forced after a three-way split
#: (used as it is); the second test of a three-way split (used when it really splits the
#: node, else the rule chooses); a leaf by the caller's decision.
FORCED_NONE, FORCED_FALLBACK, FORCED_THEN, FORCED_LEAF = 0, 1, 2, 3

#: ``counters``: stack size, number of nodes, the node waiting for a three-way split.
C_STACK, C_NODES, C_WAITING = 0, 1, 2


class Columns(NamedTuple):
    """The training columns as the growth kernel reads them (built once per fit by
    :func:`xdt.learn._growth.prepare`; see the module docstring's Layout)."""

    X: np.ndarray
    """float64 (n, n_ordinal), C-ordered, or (``tr``) its C-ordered transpose."""
    tr: bool
    """Whether ``X`` is the transpose."""
    orders: np.ndarray
    """int32 (n_sorted, n): the root's sorted order of each sorted column."""
    codes: np.ndarray
    """(n, n_binned), the smallest unsigned dtype that holds them: the rows' bins."""
    feat: np.ndarray
    """int64 (F, FEAT_COLUMNS): per feature, where it is (``FEAT_*``)."""
    bin_values: np.ndarray
    """float64: per binned ordinal column its distinct values, ascending (0 for a
    categorical bin)."""
    n_bins: int
    """The number of bins of all binned columns."""


class Targets(NamedTuple):
    """What the impurities count, per row."""

    y: np.ndarray
    """int64 (n,): the class number of each row."""
    weight: np.ndarray
    """float64 (n,): the sample weights (impurities, leaf weights)."""
    wpm_weight: np.ndarray
    """float64 (n,): the weights of ``wpm`` (SER-DT's preprocessed weights)."""
    unit: bool
    """Whether every weight is 1 (counts are weights: sums are exact integers)."""


class Rules(NamedTuple):
    """How the tree grows."""

    max_depth: int
    """Deepest node that may split; < 0: no limit."""
    min_samples_leaf: int
    entropy: bool
    """Entropy instead of Gini."""
    serdt: bool
    """SER-DT's rule (balanced tests, ``factor``, the three-way fallback) instead of
    CART's."""
    factor: float
    """SER-DT's ``factor_expl``."""
    slack: float
    """Relative slack of the balanced-test comparison."""


class Nodes(NamedTuple):
    """The tree as it grows (grown in place; the caller enlarges the tables when
    :func:`grow` returns ``FULL``)."""

    nodes: np.ndarray
    """int32 (capacity, N_INT): integer node columns (``N_*``)."""
    nodes_f: np.ndarray
    """float64 (capacity, N_FLOAT): float node columns (``F_*``)."""
    node_cw: np.ndarray
    """float64 (capacity, k): the class weights of each node."""
    stack: np.ndarray
    """int64: the nodes still to grow, depth first."""
    counters: np.ndarray
    """int64 (3,): ``C_*``."""


class Buffers(NamedTuple):
    """The rows' working arrays of one fit."""

    samples: np.ndarray
    """int32 (n,): the rows, every node's a segment ``[start, end)``."""
    mark: np.ndarray
    """bool (n,): the rows that go left under a node's test."""
    buf: np.ndarray
    """int32 (n,): room for a stable partition."""
    hist_w: np.ndarray
    """float64 (n_bins * k,): per bin and class, the weight of the node's rows."""
    hist_c: np.ndarray
    """float64 (n_bins * k,): per bin and class, the node's rows."""
    hist_ww: np.ndarray
    """float64 (max(n_bins, 1),): per bin, the ``wpm`` weight of the node's rows."""


class _Scratch(NamedTuple):
    """The per-node working arrays of :func:`grow` and :func:`_search` (``k`` classes)."""

    cw: np.ndarray
    """float64 (k,): the node's class weights."""
    cc: np.ndarray
    """float64 (k,): the node's class counts."""
    left: np.ndarray
    """float64 (k,): a candidate's left class weights."""
    cnt_left: np.ndarray
    """float64 (k,): its left class counts."""
    best: np.ndarray
    """float64 (4,): the best score and impurity so far, a threshold's (lo, hi)."""
    choice: np.ndarray
    """int64 (2,): the best test's (feature, category)."""
    lowers: np.ndarray
    """int64 (1,): whether some candidate lowers the node's impurity."""
    on_path: np.ndarray
    """bool (F,): the features tested above the node (SER-DT)."""
    bin_offset: np.ndarray
    """int64 (n_binned,): each binned column's offset in the histograms."""
    bin_sizes: np.ndarray
    """int64 (n_binned,): each binned column's number of bins."""
    node_codes: np.ndarray
    """int64 (n,): the codes of one column on a node's rows."""

_jit = njit(cache=True, nogil=True)
#: Small helpers called per candidate: inlined, so no call (and no reference counting of
#: their array arguments) is paid per candidate.
_inline = njit(cache=True, nogil=True, inline="always")


@_inline
def _at(X, tr, r, col):
    """Row ``r``, ordinal column ``col`` of the data: ``X`` is the (n, n_ordinal) array, or
    its transpose when ``tr`` (an F-ordered table is passed as its C-ordered transpose, so
    the kernels have one compiled version for both)."""
    return X[col, r] if tr else X[r, col]


@_inline
def _xlogx(x):
    return x * np.log(x) if x > 0.0 else 0.0


@_inline
def _impurity(left, total, w_left, w, entropy):
    """Split impurity (children's impurities weighted by their share of ``w``) of the test
    whose left child has class weights ``left`` (sum ``w_left``) in a node of class weights
    ``total`` (sum ``w``)."""
    w_right = w - w_left
    acc_l = 0.0
    acc_r = 0.0
    if entropy:
        for c in range(left.shape[0]):
            a = left[c]
            b = total[c] - a
            acc_l += _xlogx(a)
            acc_r += _xlogx(b if b > 0.0 else 0.0)
        mass = (_xlogx(w_left) - acc_l) / LN2 + (_xlogx(w_right) - acc_r) / LN2
    else:
        for c in range(left.shape[0]):
            a = left[c]
            b = total[c] - a
            if b < 0.0:
                b = 0.0
            acc_l += a * a
            acc_r += b * b
        mass = 0.0
        if w_left > 0.0:
            mass += w_left - acc_l / w_left
        if w_right > 0.0:
            mass += w_right - acc_r / w_right
    return mass / w


@_jit
def node_impurity(cw, w, entropy):
    """The impurity of a node of class weights ``cw`` (sum ``w``)."""
    acc = 0.0
    if entropy:
        for c in range(cw.shape[0]):
            acc += _xlogx(cw[c])
        return (_xlogx(w) - acc) / LN2 / w
    for c in range(cw.shape[0]):
        acc += cw[c] * cw[c]
    return (w - acc / w) / w


@_inline
def _pairs(counts, n):
    """``P``: pairs of rows of different classes among ``n`` rows of class counts
    ``counts`` (Souza et al., Section 5)."""
    sq = 0.0
    for c in range(counts.shape[0]):
        sq += counts[c] * counts[c]
    return (n * n - sq) / 2.0


@_inline
def _wpm_pair(cnt_left, n_left, ww_left, cc, m, ww_total):
    """The children's ``wpm = P * w`` (Souza et al., Section 5) of a candidate whose left
    child has class counts ``cnt_left`` (``n_left`` rows, ``wpm`` weight ``ww_left``)."""
    sq = 0.0
    for c in range(cc.shape[0]):
        r = cc[c] - cnt_left[c]
        sq += r * r
    n_right = m - n_left
    pr = (n_right * n_right - sq) / 2.0
    return _pairs(cnt_left, n_left) * ww_left, pr * (ww_total - ww_left)


@_inline
def _keep(imp, wpm_left, wpm_right, serdt, factor, half, best):
    """Keep a candidate of split impurity ``imp`` in ``best`` (score, impurity) when it
    wins (SER-DT: only a balanced one, scored ``factor * imp``); returns whether it did.
    The caller has already dropped candidates that cannot win (:func:`_may_win`)."""
    if serdt:
        if max(wpm_left, wpm_right) > half:
            return False
        score = factor * imp
    else:
        score = imp
    if score < best[0] - TIE or (score <= best[0] + TIE and imp < best[1] - TIE):
        best[0] = score
        best[1] = imp
        return True
    return False


@_inline
def _consider(imp, cnt_left, n_left, ww_left, cc, m, ww_total, serdt, factor, half, best):
    """:func:`_keep` with the ``wpm`` of the children computed from the class counts."""
    wl = 0.0
    wr = 0.0
    if serdt:
        wl, wr = _wpm_pair(cnt_left, n_left, ww_left, cc, m, ww_total)
    return _keep(imp, wl, wr, serdt, factor, half, best)


@_inline
def _may_win(imp, parent, factor, best, lowers):
    """Whether a candidate of split impurity ``imp`` lowers the node's impurity (noted in
    ``lowers[0]``) and could beat ``best``: the cheap test made for every candidate."""
    if not imp < parent - TIE:
        return False
    lowers[0] = 1
    return factor * imp <= best[0] + TIE


@_jit
def _search(cols, targets, rules, bufs, scratch, s, e, w_node, ww_total, parent, half):
    """The best test of the node ``samples[s:e]`` (of class weights ``scratch.cw``, sum
    ``w_node``, ``wpm`` weight ``ww_total``, impurity ``parent``; SER-DT's balance bound
    ``half``); ``scratch.choice`` gets (feature, category) and ``scratch.best[2:4]`` the (lo,
    hi) values of a threshold. Returns whether a test was found."""
    X, tr, orders, codes, feat, bin_values = (cols.X, cols.tr, cols.orders, cols.codes,
                                              cols.feat, cols.bin_values)
    y, w, ww, unit = targets
    msl, entropy, serdt, factor = (rules.min_samples_leaf, rules.entropy, rules.serdt,
                                   rules.factor)
    samples, hist_w, hist_c, hist_ww = bufs.samples, bufs.hist_w, bufs.hist_c, bufs.hist_ww
    (cw, cc, left, cnt_left, best, choice, lowers, on_path, bin_offset, bin_sizes,
     node_codes) = scratch
    k = cw.shape[0]
    m = e - s
    mf = float(m)
    msl1 = max(1, msl)
    best[0] = np.inf
    best[1] = np.inf
    found = False
    n_binned = codes.shape[1]
    # one pass over the node's rows counts (bin, class) of every binned column
    for i in range(s, e):
        r = samples[i]
        c = y[r]
        wr = w[r]
        wwr = ww[r]
        if unit:  # counts are the weights; bin 0 is derived below (sparse columns)
            for jb in range(n_binned):
                code = codes[r, jb]
                if code:
                    hist_c[(bin_offset[jb] + code) * k + c] += 1.0
            continue
        for jb in range(n_binned):
            b = bin_offset[jb] + codes[r, jb]
            hist_w[b * k + c] += wr
            hist_c[b * k + c] += 1.0
            hist_ww[b] += wwr
    hw = hist_c if unit else hist_w
    if unit:
        for jb in range(n_binned):
            base = bin_offset[jb] * k
            for c in range(k):
                rest = cc[c]
                for b in range(1, bin_sizes[jb]):
                    rest -= hist_c[base + b * k + c]
                hist_c[base + c] = rest
    for f in range(feat.shape[0]):
        kind = feat[f, FEAT_KIND]
        fac = factor if on_path[f] else 1.0
        left[:] = 0.0
        cnt_left[:] = 0.0
        w_left = 0.0
        ww_left = 0.0
        n_left = 0.0
        if kind == SORTED and unit and not entropy:
            # unit weights and Gini: the children's sums of squared class counts move by
            # one row at a time, exactly (integers), so a candidate costs O(1) for any k
            j = feat[f, FEAT_INDEX]
            col = feat[f, FEAT_X]
            r = orders[j, s]
            v = _at(X, tr, r, col)
            sq_l = 0.0
            sq_r = 0.0
            for c in range(k):
                sq_r += cc[c] * cc[c]
            for i in range(s, e - 1):
                c = y[r]
                lc = left[c]
                sq_l += 2.0 * lc + 1.0
                sq_r -= 2.0 * (cc[c] - lc) - 1.0
                left[c] = lc + 1.0
                n_left += 1.0
                r = orders[j, i + 1]
                nxt = _at(X, tr, r, col)
                if nxt == v:
                    continue
                lo = v
                v = nxt
                n_right = mf - n_left
                if n_left < msl or n_right < msl:
                    continue
                imp = ((n_left - sq_l / n_left) + (n_right - sq_r / n_right)) / mf
                if _may_win(imp, parent, fac, best, lowers) and _keep(
                        imp, (n_left * n_left - sq_l) / 2.0 * n_left,
                        (n_right * n_right - sq_r) / 2.0 * n_right, serdt, fac, half, best):
                    found = True
                    choice[0] = f
                    choice[1] = -1
                    best[2] = lo
                    best[3] = nxt
            continue
        if kind == SORTED:
            j = feat[f, FEAT_INDEX]
            col = feat[f, FEAT_X]
            r = orders[j, s]
            v = _at(X, tr, r, col)
            for i in range(s, e - 1):
                c = y[r]
                left[c] += w[r]
                cnt_left[c] += 1.0
                w_left += w[r]
                ww_left += ww[r]
                n_left += 1.0
                r = orders[j, i + 1]
                nxt = _at(X, tr, r, col)
                if nxt == v:
                    continue
                lo = v
                v = nxt
                if n_left < msl or mf - n_left < msl:
                    continue
                imp = _impurity(left, cw, w_left, w_node, entropy)
                if _may_win(imp, parent, fac, best, lowers) and _consider(
                        imp, cnt_left, n_left, ww_left, cc, mf, ww_total, serdt, fac, half,
                        best):
                    found = True
                    choice[0] = f
                    choice[1] = -1
                    best[2] = lo
                    best[3] = nxt
            continue
        off = feat[f, FEAT_BIN_OFFSET]
        nb = feat[f, FEAT_N_BINS]
        if kind == BINNED:
            prev = -1
            for b in range(nb):
                base = (off + b) * k
                n_b = 0.0
                for c in range(k):
                    n_b += hist_c[base + c]
                if n_b == 0.0:
                    continue
                if prev >= 0 and n_left >= msl and mf - n_left >= msl:
                    imp = _impurity(left, cw, w_left, w_node, entropy)
                    if _may_win(imp, parent, fac, best, lowers) and _consider(
                            imp, cnt_left, n_left, ww_left, cc, mf, ww_total, serdt, fac,
                            half, best):
                        found = True
                        choice[0] = f
                        choice[1] = -1
                        best[2] = bin_values[off + prev]
                        best[3] = bin_values[off + b]
                for c in range(k):
                    left[c] += hw[base + c]
                    cnt_left[c] += hist_c[base + c]
                    w_left += hw[base + c]
                n_left += n_b
                ww_left += n_b if unit else hist_ww[off + b]
                prev = b
            continue
        # categorical: x = v against x != v (one test, x = second value, for two values);
        # a domain much larger than the node: only the values present, in domain order
        n_values = nb
        values = node_codes[:0]
        if nb > 4 * m:
            jb = feat[f, FEAT_INDEX]
            for i in range(s, e):
                node_codes[i - s] = codes[samples[i], jb]
            values = np.unique(node_codes[:m])
            n_values = values.shape[0]
        for t in range(n_values):
            b = t if n_values == nb else values[t]
            if nb == 2 and b == 0:
                continue
            base = (off + b) * k
            n_b = 0.0
            w_b = 0.0
            for c in range(k):
                left[c] = hw[base + c]
                cnt_left[c] = hist_c[base + c]
                n_b += hist_c[base + c]
                w_b += hw[base + c]
            if n_b < msl1 or mf - n_b < msl1:
                continue
            imp = _impurity(left, cw, w_b, w_node, entropy)
            if _may_win(imp, parent, fac, best, lowers) and _consider(
                    imp, cnt_left, n_b, n_b if unit else hist_ww[off + b], cc, mf, ww_total,
                    serdt, fac, half, best):
                found = True
                choice[0] = f
                choice[1] = b
    # clear the histograms for the next node: all of them when that is less work
    if hist_c.shape[0] <= m * n_binned:
        hist_c[:] = 0.0
        if not unit:
            hist_w[:] = 0.0
            hist_ww[:] = 0.0
        return found
    for i in range(s, e):
        r = samples[i]
        c = y[r]
        for jb in range(n_binned):
            b = bin_offset[jb] + codes[r, jb]
            hist_c[b * k + c] = 0.0
            if not unit:
                hist_w[b * k + c] = 0.0
                hist_ww[b] = 0.0
    if unit:
        for jb in range(n_binned):
            for c in range(k):
                hist_c[bin_offset[jb] * k + c] = 0.0
    return found


@_jit
def _stable_partition(arr, s, e, mark, buf):
    """Rows of ``arr[s:e]`` with ``mark`` first, then the others, each in their order;
    returns the number marked."""
    n_left = s
    n_right = 0
    for i in range(s, e):
        r = arr[i]
        if mark[r]:
            arr[n_left] = r
            n_left += 1
        else:
            buf[n_right] = r
            n_right += 1
    for i in range(n_right):
        arr[n_left + i] = buf[i]
    return n_left - s


@_jit
def _mark(cols, bufs, s, e, f, lo, category):
    """``bufs.mark[r]``: whether row ``r`` of the node ``bufs.samples[s:e]`` goes left under
    the test on feature ``f`` (``x <= lo``, or ``x = category``); returns how many do."""
    X, tr, codes, feat = cols.X, cols.tr, cols.codes, cols.feat
    samples, mark = bufs.samples, bufs.mark
    n_left = 0
    if feat[f, FEAT_KIND] == CATEGORICAL:
        jb = feat[f, FEAT_INDEX]
        for i in range(s, e):
            r = samples[i]
            g = codes[r, jb] == category
            mark[r] = g
            n_left += g
    else:
        col = feat[f, FEAT_X]
        for i in range(s, e):
            r = samples[i]
            g = _at(X, tr, r, col) <= lo
            mark[r] = g
            n_left += g
    return n_left


@_jit
def grow(cols, targets, rules, tree, bufs):
    """Grow the tree (:class:`Nodes`) depth first from the nodes on ``tree.stack`` (the root
    first), over the columns ``cols`` (:class:`Columns`), the rows' classes and weights
    ``targets`` (:class:`Targets`) by the rule ``rules`` (:class:`Rules`), with the working
    arrays ``bufs`` (:class:`Buffers`); returns ``DONE``, ``FULL`` (call again with larger
    node tables) or ``FALLBACK`` (give ``counters[C_WAITING]`` a forced test, then call
    again)."""
    orders, codes, feat = cols.orders, cols.codes, cols.feat
    y, w, ww = targets.y, targets.weight, targets.wpm_weight
    max_depth, msl, entropy, serdt, slack = (rules.max_depth, rules.min_samples_leaf,
                                             rules.entropy, rules.serdt, rules.slack)
    nodes, nodes_f, node_cw, stack, counters = tree
    samples, mark, buf = bufs.samples, bufs.mark, bufs.buf
    k = node_cw.shape[1]
    n_features = feat.shape[0]
    scratch = _Scratch(np.zeros(k), np.zeros(k), np.zeros(k), np.zeros(k), np.zeros(4),
                       np.zeros(2, dtype=np.int64), np.zeros(1, dtype=np.int64),
                       np.zeros(n_features, dtype=np.bool_),
                       np.zeros(codes.shape[1], dtype=np.int64),
                       np.zeros(codes.shape[1], dtype=np.int64),
                       np.zeros(samples.shape[0], dtype=np.int64))
    cw, cc, best, choice, lowers, on_path = (scratch.cw, scratch.cc, scratch.best,
                                             scratch.choice, scratch.lowers, scratch.on_path)
    for f in range(n_features):
        if feat[f, FEAT_KIND] != SORTED:
            scratch.bin_offset[feat[f, FEAT_INDEX]] = feat[f, FEAT_BIN_OFFSET]
            scratch.bin_sizes[feat[f, FEAT_INDEX]] = feat[f, FEAT_N_BINS]
    capacity = nodes.shape[0]
    msl1 = max(1, msl)
    while counters[C_STACK] > 0:
        if counters[C_NODES] + 2 > capacity or counters[C_STACK] + 2 > stack.shape[0]:
            return FULL
        counters[C_STACK] -= 1
        node = stack[counters[C_STACK]]
        s = np.int64(nodes[node, N_START])
        e = np.int64(nodes[node, N_END])
        m = e - s
        depth = nodes[node, N_DEPTH]
        cw[:] = 0.0
        cc[:] = 0.0
        ww_total = 0.0
        for i in range(s, e):
            r = samples[i]
            cw[y[r]] += w[r]
            cc[y[r]] += 1.0
            ww_total += ww[r]
        w_node = 0.0
        present = 0
        for c in range(k):
            node_cw[node, c] = cw[c]
            w_node += cw[c]
            present += cw[c] > 0.0
        nodes[node, N_ROWS] = m
        nodes[node, N_FEATURE] = -1
        if (max_depth >= 0 and depth >= max_depth) or present <= 1 or m < 2 * msl1:
            continue
        forced = nodes[node, N_FORCED]
        if forced == FORCED_LEAF:
            continue
        f = -1
        category = -1
        lo = 0.0
        hi = 0.0
        if forced == FORCED_FALLBACK or forced == FORCED_THEN:
            f = nodes[node, N_FORCED_FEATURE]
            category = nodes[node, N_FORCED_CATEGORY]
            lo = nodes_f[node, F_FORCED_T]
            hi = lo
            if forced == FORCED_THEN:
                n_left = _mark(cols, bufs, s, e, f, lo, category)
                if n_left < msl1 or m - n_left < msl1:
                    f = -1
        if f < 0:
            parent = node_impurity(cw, w_node, entropy)
            half = 0.0
            if serdt:
                half = 0.5 * _pairs(cc, float(m)) * ww_total * (1.0 + slack)
                a = nodes[node, N_PARENT]
                while a >= 0:
                    on_path[nodes[a, N_FEATURE]] = True
                    a = nodes[a, N_PARENT]
            lowers[0] = 0
            found = _search(cols, targets, rules, bufs, scratch, s, e, w_node, ww_total,
                            parent, half)
            if serdt:
                on_path[:] = False
            if not found:
                if serdt and lowers[0]:
                    stack[counters[C_STACK]] = node
                    counters[C_STACK] += 1
                    counters[C_WAITING] = node
                    return FALLBACK
                continue
            f = choice[0]
            category = choice[1]
            lo = best[2]
            hi = best[3]
        n_left = _mark(cols, bufs, s, e, f, lo, category)
        _stable_partition(samples, s, e, mark, buf)
        for j in range(orders.shape[0]):
            _stable_partition(orders[j], s, e, mark, buf)
        nodes[node, N_FEATURE] = f
        nodes[node, N_CATEGORY] = category
        nodes_f[node, F_LO] = lo
        nodes_f[node, F_HI] = hi
        a = counters[C_NODES]
        b = a + 1
        counters[C_NODES] += 2
        nodes[node, N_LEFT] = a
        nodes[node, N_RIGHT] = b
        for child, cs, ce in ((a, np.int64(s), np.int64(s + n_left)),
                              (b, np.int64(s + n_left), np.int64(e))):
            nodes[child, N_START] = cs
            nodes[child, N_END] = ce
            nodes[child, N_DEPTH] = depth + 1
            nodes[child, N_PARENT] = node
            nodes[child, N_FORCED] = FORCED_NONE
            nodes[child, N_FEATURE] = -1
        if nodes[node, N_THEN_FEATURE] >= 0:
            nodes[b, N_FORCED] = FORCED_THEN
            nodes[b, N_FORCED_FEATURE] = nodes[node, N_THEN_FEATURE]
            nodes[b, N_FORCED_CATEGORY] = nodes[node, N_THEN_CATEGORY]
            nodes_f[b, F_FORCED_T] = nodes_f[node, F_THEN_T]
        nodes[a, N_THEN_FEATURE] = -1
        nodes[b, N_THEN_FEATURE] = -1
        stack[counters[C_STACK]] = b
        stack[counters[C_STACK] + 1] = a
        counters[C_STACK] += 2
    return DONE


@_jit
def distinct_values(X, tr, limit, values, counts):
    """Per column ``j`` of ``X``: its distinct values, ascending, in ``values[j, :counts[j]]``
    when there are at most ``limit`` of them, else ``counts[j] = -1`` (found as soon as the
    ``limit + 1``-th value shows, so a continuous column costs a few rows)."""
    n_rows, n_cols = (X.shape[1], X.shape[0]) if tr else (X.shape[0], X.shape[1])
    for j in range(n_cols):
        n_seen = 0
        last = 0
        for i in range(n_rows):
            v = _at(X, tr, i, j)
            if n_seen and values[j, last] == v:
                continue
            hit = -1
            for t in range(n_seen):
                if values[j, t] == v:
                    hit = t
                    break
            if hit < 0:
                if n_seen == limit:
                    n_seen = -1
                    break
                values[j, n_seen] = v
                hit = n_seen
                n_seen += 1
            last = hit
        counts[j] = n_seen
        if n_seen > 0:
            values[j, :n_seen] = np.sort(values[j, :n_seen])


@_jit
def fill_bins(X, tr, columns, values, counts, codes):
    """``codes[i, jb]``: the position of ``X[i, columns[jb]]`` among its column's distinct
    values (:func:`distinct_values`)."""
    for jb in range(columns.shape[0]):
        j = columns[jb]
        row = values[j, :counts[j]]
        for i in range(codes.shape[0]):
            codes[i, jb] = np.searchsorted(row, _at(X, tr, i, j))


@_jit
def merge_leaves(feature, left, right, label):
    """Souza et al.'s post-processing (NeurIPS 2022, Section 6) on node tables whose children
    are numbered after their parent: from the last node back, a node whose two children are
    leaves of one ``label`` becomes a leaf (``feature`` -1), so merges cascade up; returns
    their number."""
    merged = 0
    for i in range(feature.shape[0] - 1, -1, -1):
        if feature[i] < 0:
            continue
        a = left[i]
        b = right[i]
        if feature[a] < 0 and feature[b] < 0 and label[a] == label[b]:
            feature[i] = -1
            merged += 1
    return merged
