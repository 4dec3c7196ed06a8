"""Compiled kernels of the nested k-DNF learner (:mod:`xdt.learn._nested`), over flat arrays
prepared once per fit.

Cooper, Bousdira & Carbonnel, "Interpretable DNFs" (IJCAI 2025), Section 6.1: Algorithm 1
(:func:`fill_matrix`), the candidate terms of the matrix (:func:`candidate_terms`), their
selection (:func:`select_terms`) and the pruning pass (:func:`prune_terms`). Each kernel
makes the same choices, in the same order, as the numpy/Python code it replaces; the
docstrings of :mod:`xdt.learn._nested` say what they are.

Array layout (built by :mod:`xdt.learn._nested`):

``T``, uint8 (n, L)
    The literal table (:func:`~xdt.learn._nested.literal_table` viewed as bytes): 1 where
    literal ``l`` holds on row ``r``.
``bits``, uint64 (L, RW)
    The same table as row bitsets, ``RW = ceil(n / 64)`` words per literal, row ``r`` at bit
    ``r % 64`` of word ``r // 64`` (:func:`pack_rows`).
``feature``, int64 (L,); ``cells``, uint64 (L, CW)
    Per literal its original feature (numbered ``0 .. F-1``) and the bit mask of the cells of
    that feature where it holds, ``CW`` words (cell ``c`` at bit ``c % 64`` of word
    ``c // 64``), so no number of cells is special.

Sums of weights run over the rows in increasing order. When every partial sum is exact
(unit or integer weights, or multiples of a power of two of moderate size, as with
repeated rows) they equal numpy's to the last bit whatever its summation order, so the
learned model is the same; with arbitrary float weights a tie can differ in its last bit,
as it can between two BLAS builds.

Every kernel is compiled by numba on first use (``cache=True``: once per machine, then
loaded from the cache) and takes only arrays and integers of fixed types, so each has one
compiled version.
"""

from __future__ import annotations

import numpy as np

from xdt._numba import ONE as _ONE
from xdt._numba import ZERO as _ZERO
from xdt._numba import lowest_bit as _lowest_bit
from xdt._numba import njit
from xdt._numba import popcount as _popcount

_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
_FNV = np.uint64(0x100000001B3)
_SEED = np.uint64(0xCBF29CE484222325)


@njit(cache=True)
def pack_rows(T):
    """Row bitsets of the columns of ``T`` (uint8 (n, L)): uint64 (L, ceil(n / 64))."""
    n, n_lit = T.shape
    out = np.zeros((n_lit, (n + 63) >> 6), dtype=np.uint64)
    for r in range(n):
        w = r >> 6
        bit = _ONE << np.uint64(r & 63)
        for lit in range(n_lit):
            if T[r, lit] != 0:
                out[lit, w] |= bit
    return out


@njit(cache=True)
def pack_mask(mask):
    """The row bitset of a uint8 (n,) mask: uint64 (ceil(n / 64),)."""
    n = mask.shape[0]
    out = np.zeros((n + 63) >> 6, dtype=np.uint64)
    for r in range(n):
        if mask[r] != 0:
            out[r >> 6] |= _ONE << np.uint64(r & 63)
    return out


# ---------------------------------------------------------------------------- Algorithm 1
@njit(cache=True, inline="always")
def _row_limit(i, j, k, n):
    if i == 0:
        return 0
    v = (2 * (n - j)) // i - 1
    if k - j < v:
        v = k - j
    return v if v > 0 else 0


@njit(cache=True)
def _gains(T, signed, cover, n_cover, gain):
    """``gain[l] = sum of signed[r] * T[r, l]`` over the rows ``cover[:n_cover]``."""
    n_lit = T.shape[1]
    for lit in range(n_lit):
        gain[lit] = 0.0
    for a in range(n_cover):
        r = cover[a]
        s = signed[r]
        for lit in range(n_lit):
            gain[lit] += s * T[r, lit]


@njit(cache=True, inline="always")
def _extend_prefix(T, lit, cover, n_cover, feature, cells, acc, in_prefix, prefix_features,
                   n_pf):
    """Add literal ``lit`` to a row's prefix: keep the covered rows (``cover[:n_cover]``)
    where it holds, and intersect its cells into its feature's accumulated cell set
    (``acc``); returns the new number of covered rows and of prefix features."""
    m = 0
    for a in range(n_cover):
        r = cover[a]
        if T[r, lit] != 0:
            cover[m] = r
            m += 1
    f = feature[lit]
    if in_prefix[f]:
        for w in range(cells.shape[1]):
            acc[f, w] &= cells[lit, w]
    else:
        in_prefix[f] = True
        prefix_features[n_pf] = f
        n_pf += 1
        for w in range(cells.shape[1]):
            acc[f, w] = cells[lit, w]
    return m, n_pf


@njit(cache=True)
def fill_matrix(T, signed, k, feature, cells, n_features, n_bool, L, start, stop_on_ties,
                ties):
    """Algorithm 1 (:func:`xdt.learn._nested.construct_matrix`) on the cells of ``L``
    (int64 (k, k)) from cell ``start`` (row-major) on.

    The row's prefix (``L[i, :j]`` of the start cell ``(i, j)``) is read from ``L``. Ties go
    to the smallest literal number; with ``stop_on_ties``, a tie between several literals
    stops the kernel instead: it writes them (increasing) into ``ties`` (int64 (>= L,)) and
    returns ``(cell, number of tied literals)``, for the caller to draw one, write it into
    ``L`` and call again from ``cell + 1``. Returns ``(k * k, 0)`` when ``L`` is full.
    """
    n, n_lit = T.shape
    cw = cells.shape[1]
    acc = np.empty((n_features, cw), dtype=np.uint64)
    in_prefix = np.zeros(n_features, dtype=np.bool_)
    prefix_features = np.empty(k, dtype=np.int64)
    cover = np.empty(n, dtype=np.int64)
    gain = np.empty(n_lit, dtype=np.float64)
    full_gain = np.empty(n_lit, dtype=np.float64)
    have_full = False
    row_ok = np.empty(n_lit, dtype=np.bool_)
    allowed = np.empty(n_lit, dtype=np.bool_)
    n_cover = 0
    n_pf = 0
    cell = start
    first = True
    while cell < k * k:
        i = cell // k
        j = cell - i * k
        if j == 0 or first:
            # the row's state from its prefix L[i, :j] (repeats are harmless: x & x = x)
            for a in range(n_pf):
                in_prefix[prefix_features[a]] = False
            n_pf = 0
            for r in range(n):
                cover[r] = r
            n_cover = n
            for b in range(j):
                n_cover, n_pf = _extend_prefix(T, L[i, b], cover, n_cover, feature, cells,
                                               acc, in_prefix, prefix_features, n_pf)
            first = False
        # literals consistent with the prefix and not implied by it
        any_ok = False
        for lit in range(n_lit):
            f = feature[lit]
            ok = True
            if in_prefix[f]:
                meet = False
                inside = True
                for w in range(cw):
                    if acc[f, w] & cells[lit, w] != _ZERO:
                        meet = True
                    if acc[f, w] & ~cells[lit, w] != _ZERO:
                        inside = False
                ok = meet and not inside
            row_ok[lit] = ok
            any_ok = any_ok or ok
        if not any_ok:
            L[i, j] = L[i, j - 1]          # nothing new: pad with repetition
            cell += 1
            continue
        for limit in range(_row_limit(i, j, k, n_bool), -1, -1):
            for lit in range(n_lit):
                allowed[lit] = row_ok[lit]
            for a in range(i):
                for b in range(limit):
                    allowed[L[a, b]] = False
            found = False
            for lit in range(n_lit):
                if allowed[lit]:
                    found = True
                    break
            if found:
                break
        if n_cover == n:
            if not have_full:
                _gains(T, signed, cover, n_cover, full_gain)
                have_full = True
            for lit in range(n_lit):
                gain[lit] = full_gain[lit]
        else:
            _gains(T, signed, cover, n_cover, gain)
        best = -np.inf
        n_best = 0
        for lit in range(n_lit):
            if allowed[lit]:
                g = gain[lit]
                if n_best == 0 or g > best:
                    best = g
                    ties[0] = lit
                    n_best = 1
                elif g == best:
                    ties[n_best] = lit
                    n_best += 1
        if n_best > 1 and stop_on_ties:
            return cell, n_best
        lit = ties[0]
        L[i, j] = lit
        n_cover, n_pf = _extend_prefix(T, lit, cover, n_cover, feature, cells, acc,
                                       in_prefix, prefix_features, n_pf)
        cell += 1
    return k * k, 0


# ---------------------------------------------------------------------------- the terms
@njit(cache=True, inline="always")
def _term_key(lits, n, skip, feature, cells, kf, km):
    """The term ``lits[:n]`` without position ``skip`` as ``(feature, cells)`` pairs sorted
    by feature: features into ``kf``, their cell masks (the AND of the term's literals on
    the feature) into ``km``; returns how many."""
    cw = cells.shape[1]
    nk = 0
    for a in range(n):
        if a == skip:
            continue
        lit = lits[a]
        f = feature[lit]
        at = -1
        for b in range(nk):
            if kf[b] == f:
                at = b
                break
        if at < 0:
            # insert keeping kf sorted
            at = nk
            while at > 0 and kf[at - 1] > f:
                kf[at] = kf[at - 1]
                for w in range(cw):
                    km[at, w] = km[at - 1, w]
                at -= 1
            kf[at] = f
            for w in range(cw):
                km[at, w] = cells[lit, w]
            nk += 1
        else:
            for w in range(cw):
                km[at, w] &= cells[lit, w]
    return nk


@njit(cache=True, inline="always")
def _same_key(af, am, an, bf, bm, bn):
    if an != bn:
        return False
    for a in range(an):
        if af[a] != bf[a]:
            return False
        for w in range(am.shape[1]):
            if am[a, w] != bm[a, w]:
                return False
    return True


@njit(cache=True)
def candidate_terms(L, vectors, feature, cells, out_vector, out_lits, out_n):
    """The candidate terms of matrix ``L`` (int64 (k, k)), as
    :func:`xdt.learn._nested.candidate_terms` lists them.

    ``vectors`` (int64 (P, k)) are the prefix vectors in evaluation order (sizes ``k`` down
    to 1, each size lexicographically descending). Kept: consistent terms (no feature with
    an empty cell mask) whose prefix vector is minimal (dropping the last literal of any
    row changes the term) and that repeat no term kept before. Fills, per kept term, the
    index of its vector in ``out_vector`` (int64 (P,)), its literals in row order without
    repeats in ``out_lits`` (int64 (P, k)) and their number in ``out_n`` (int64 (P,));
    returns the number of kept terms.
    """
    k = L.shape[0]
    cw = cells.shape[1]
    n_vec = vectors.shape[0]
    lits = np.empty(k, dtype=np.int64)
    kf = np.empty(k, dtype=np.int64)
    km = np.empty((k, cw), dtype=np.uint64)
    sf = np.empty(k, dtype=np.int64)
    sm = np.empty((k, cw), dtype=np.uint64)
    keys_f = np.empty((n_vec, k), dtype=np.int64)
    keys_m = np.empty((n_vec, k, cw), dtype=np.uint64)
    keys_n = np.empty(n_vec, dtype=np.int64)
    size = 1
    while size < 2 * n_vec + 2:
        size *= 2
    table = np.full(size, -1, dtype=np.int64)
    hashes = np.empty(n_vec, dtype=np.uint64)
    mask = np.uint64(size - 1)
    n_out = 0
    for p in range(n_vec):
        n = 0
        for i in range(k):
            for c in range(vectors[p, i]):
                lits[n] = L[i, c]
                n += 1
        nk = _term_key(lits, n, -1, feature, cells, kf, km)
        empty = False
        for a in range(nk):
            zero = True
            for w in range(cw):
                if km[a, w] != _ZERO:
                    zero = False
            if zero:
                empty = True
                break
        if empty:
            continue
        h = _SEED
        for a in range(nk):
            h = (h ^ np.uint64(kf[a])) * _FNV
            for w in range(cw):
                h = (h ^ km[a, w]) * _FNV
        slot = h & mask
        seen = False
        while table[slot] >= 0:
            q = table[slot]
            if hashes[q] == h and _same_key(kf, km, nk, keys_f[q], keys_m[q], keys_n[q]):
                seen = True
                break
            slot = (slot + _ONE) & mask
        if seen:
            continue
        minimal = True
        end = 0
        for i in range(k):
            end += vectors[p, i]
            if vectors[p, i] == 0:
                continue
            ns = _term_key(lits, n, end - 1, feature, cells, sf, sm)
            if _same_key(kf, km, nk, sf, sm, ns):
                minimal = False
                break
        if not minimal:
            continue
        table[slot] = n_out
        hashes[n_out] = h
        keys_n[n_out] = nk
        for a in range(nk):
            keys_f[n_out, a] = kf[a]
            for w in range(cw):
                keys_m[n_out, a, w] = km[a, w]
        out_vector[n_out] = p
        m = 0
        for a in range(n):
            new = True
            for b in range(m):
                if out_lits[n_out, b] == lits[a]:
                    new = False
                    break
            if new:
                out_lits[n_out, m] = lits[a]
                m += 1
        out_n[n_out] = m
        n_out += 1
    return n_out


# ---------------------------------------------------------------------------- selection
@njit(cache=True, inline="always")
def _cover(bits, lits, t, n_lits, valid, out):
    """The row bitset of term ``t`` (``lits[t, :n_lits]``) into ``out``."""
    for w in range(out.shape[0]):
        out[w] = valid[w]
    for a in range(n_lits):
        lit = lits[t, a]
        for w in range(out.shape[0]):
            out[w] &= bits[lit, w]


@njit(cache=True, inline="always")
def _weight_of(words, weight, unit):
    """The sum of ``weight`` over the rows of a bitset (increasing row order)."""
    s = 0.0
    if unit:
        c = _ZERO
        for w in range(words.shape[0]):
            c += _popcount(words[w])
        return np.float64(c)
    for w in range(words.shape[0]):
        x = words[w]
        while x != _ZERO:
            s += weight[(w << 6) + _lowest_bit(x)]
            x &= x - _ONE
    return s


@njit(cache=True)
def select_terms(bits, lits, n_lits, pos, neg, weight, unit, chosen):
    """The selection step (:func:`xdt.learn._nested.select_terms`) on the candidate terms
    ``lits[t, :n_lits[t]]`` (int64 (P, k), (P,)), in order.

    ``pos``/``neg`` (uint64 (RW,)): the class-1 / class-0 rows of positive weight;
    ``weight`` (float64 (n,)) the row weights (> 0 on those rows), ``unit`` whether they are
    all 1 (sums are then counts). Fills ``chosen`` (int64 (P,)) with the positions of the
    selected terms and returns their number.
    """
    rw = bits.shape[1]
    valid = np.empty(rw, dtype=np.uint64)
    for w in range(rw):
        valid[w] = pos[w] | neg[w]
    covered = np.zeros(rw, dtype=np.uint64)
    cover = np.empty(rw, dtype=np.uint64)
    new_pos = np.empty(rw, dtype=np.uint64)
    new_neg = np.empty(rw, dtype=np.uint64)
    todo = False
    for w in range(rw):
        if pos[w] != _ZERO:
            todo = True
    n_chosen = 0
    if not todo:
        return 0
    for t in range(lits.shape[0]):
        _cover(bits, lits, t, n_lits[t], valid, cover)
        hits_pos = False
        hits_neg = False
        for w in range(rw):
            new_pos[w] = cover[w] & ~covered[w] & pos[w]
            new_neg[w] = cover[w] & ~covered[w] & neg[w]
            if cover[w] & pos[w] != _ZERO:
                hits_pos = True
            if cover[w] & neg[w] != _ZERO:
                hits_neg = True
        p = _weight_of(new_pos, weight, unit)
        q = _weight_of(new_neg, weight, unit)
        if (p > 0 and q < p) or (hits_pos and not hits_neg):
            chosen[n_chosen] = t
            n_chosen += 1
            done = True
            for w in range(rw):
                covered[w] |= cover[w]
                if pos[w] & ~covered[w] != _ZERO:
                    done = False
            if done:
                break
    return n_chosen


@njit(cache=True)
def prune_terms(bits, lits, n_lits, terms, pos, neg, weight, kept):
    """The pruning pass (:func:`xdt.learn._nested.prune_terms`) on the terms ``lits[t]`` for
    ``t`` in ``terms`` (int64 (S,)), in order. Fills ``kept`` (int64 (S,)) with the positions
    (in ``terms``) of the kept ones and returns their number."""
    rw = bits.shape[1]
    n_terms = terms.shape[0]
    valid = np.empty(rw, dtype=np.uint64)
    for w in range(rw):
        valid[w] = pos[w] | neg[w]
    covers = np.empty((n_terms, rw), dtype=np.uint64)
    count = np.zeros(weight.shape[0], dtype=np.int64)
    for s in range(n_terms):
        _cover(bits, lits, terms[s], n_lits[terms[s]], valid, covers[s])
        for w in range(rw):
            x = covers[s, w]
            while x != _ZERO:
                count[(w << 6) + _lowest_bit(x)] += 1
                x &= x - _ONE
    n_kept = 0
    for s in range(n_terms):
        p = 0.0
        q = 0.0
        for w in range(rw):
            x = covers[s, w]
            while x != _ZERO:
                b = _lowest_bit(x)
                r = (w << 6) + b
                if count[r] == 1:
                    if (pos[w] >> np.uint64(b)) & _ONE != _ZERO:
                        p += weight[r]
                    else:
                        q += weight[r]
                x &= x - _ONE
        if p == 0 or q >= p:
            for w in range(rw):
                x = covers[s, w]
                while x != _ZERO:
                    count[(w << 6) + _lowest_bit(x)] -= 1
                    x &= x - _ONE
        else:
            kept[n_kept] = s
            n_kept += 1
    return n_kept
