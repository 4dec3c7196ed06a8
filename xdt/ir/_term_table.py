"""The terms of a model as flat arrays (:class:`TermTable`), evaluated over many rows at once.

DNFs (:mod:`xdt.ir._dnf`) and decision lists (:mod:`xdt.ir._decision_list`) keep their terms
so; their ``predict`` and the explainers read them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from xdt.ir._cells import Cells
from xdt.ir._terms import Term


class TermTable:
    """The terms of a DNF as flat arrays: one *literal* per term and constrained feature
    (the intersection of the term's conditions on it), sorted by term.

    A literal whose cell set is a run ``lo..hi`` (every ordinal one, and most one-hot ones)
    is tested as ``lo <= cell <= hi``; any other (a categorical value set with gaps) by a
    lookup in a boolean table of its feature's cells. For one point (:meth:`at`) the table
    also lists, per feature and cell, the literals that cell falsifies, when that list is
    small (at most :attr:`INDEX_FACTOR` entries per literal, e.g. binary and small
    categorical features): the point's literals are then read in one concatenation.

    Parameters
    ----------
    terms : sequence of Term
    cells : sequence of Cells
        The model's cells, per feature.

    Attributes
    ----------
    term, feature : ndarray of int64, shape (L,)
        The term and the feature of each literal.
    sizes : ndarray of int64, shape (terms,)
        The number of features each term constrains.
    """

    CHUNK = 1 << 22
    """Rows x literals evaluated at once (bounds the temporary arrays)."""
    INDEX_FACTOR = 4
    """The per-cell lists of falsified literals are kept when they hold at most this many
    entries per literal (counting 256 literals more)."""

    def __init__(self, terms: Sequence[Term], cells: Sequence[Cells]):
        term, feature, lo, hi, table, offset = [], [], [], [], [], []
        size = 0
        for p, t in enumerate(terms):
            for f, mask in t.masks().items():
                term.append(p)
                feature.append(f)
                a, b = (mask & -mask).bit_length() - 1, mask.bit_length() - 1
                if mask >> a == (1 << (b - a + 1)) - 1:  # a run of cells
                    lo.append(a)
                    hi.append(b)
                    offset.append(-1)
                else:
                    lo.append(0)
                    hi.append(-1)
                    offset.append(size)
                    n = cells[f].n_cells
                    table.extend(bool((mask >> j) & 1) for j in range(n))
                    size += n
        self.n_terms = len(terms)
        self.term = np.asarray(term, dtype=np.int64)
        self.feature = np.asarray(feature, dtype=np.int64)
        self.lo = np.asarray(lo, dtype=np.int64)
        self.hi = np.asarray(hi, dtype=np.int64)
        self._offset = np.asarray(offset, dtype=np.int64)
        self._looked_up = np.flatnonzero(self._offset >= 0)
        self._table = np.asarray(table, dtype=bool)
        self.sizes = np.bincount(self.term, minlength=self.n_terms).astype(np.int64)
        self._last: tuple[tuple[int, ...], np.ndarray, np.ndarray] | None = None
        self._falsified: list[list[np.ndarray]] | None = None
        masks = [(f, m) for t in terms for f, m in t.masks().items()]
        entries = sum(cells[f].n_cells - m.bit_count() for f, m in masks)
        if entries <= self.INDEX_FACTOR * (len(masks) + 256):
            lists: list[list[list[int]]] = [[[] for _ in range(c.n_cells)] for c in cells]
            for i, (f, m) in enumerate(masks):
                for j in range(cells[f].n_cells):
                    if not (m >> j) & 1:
                        lists[f][j].append(i)
            self._falsified = [[np.asarray(x, dtype=np.int64) for x in per_cell]
                               for per_cell in lists]

    def holds(self, cells: np.ndarray) -> np.ndarray:
        """Whether each literal holds at each row of ``cells`` (shape (n, F)): bool,
        shape (n, L)."""
        cells = np.asarray(cells, dtype=np.int64)
        at = cells[:, self.feature]
        ok = (at >= self.lo) & (at <= self.hi)
        if len(self._looked_up):
            idx = self._looked_up
            ok[:, idx] = self._table[self._offset[idx] + at[:, idx]]
        return ok

    def satisfied(self, cells: np.ndarray) -> np.ndarray:
        """Which terms hold at each row of ``cells`` (shape (n, F)): bool, shape
        (n, terms); a term with no literal holds everywhere."""
        cells = np.asarray(cells, dtype=np.int64)
        if len(cells) == 1:
            return self.at(cells[0])[1].copy()[None, :]
        out = np.empty((len(cells), self.n_terms), dtype=bool)
        step = max(1, self.CHUNK // max(1, len(self.term), self.n_terms))
        for i in range(0, len(cells), step):
            part = cells[i:i + step]
            rows, lits = np.nonzero(~self.holds(part))
            failed = np.bincount(rows * self.n_terms + self.term[lits],
                                 minlength=len(part) * self.n_terms)
            out[i:i + step] = (failed == 0).reshape(len(part), self.n_terms)
        return out

    def at(self, cells: Sequence[int] | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(literals, terms)`` at one point: whether each literal holds (shape (L,)) and
        whether each term holds (shape (terms,)). The last point's answer is kept, so the
        prediction and the deletion order of one instance evaluate the terms once; do not
        modify the arrays returned."""
        key = tuple(cells.tolist()) if isinstance(cells, np.ndarray) else tuple(cells)
        last = self._last
        if last is not None and last[0] == key:
            return last[1], last[2]
        terms = np.ones(self.n_terms, dtype=bool)
        if self._falsified is not None:
            index = self._falsified
            failed = np.concatenate([index[f][c] for f, c in enumerate(key)]) if key \
                else np.zeros(0, dtype=np.int64)
            ok = np.ones(len(self.term), dtype=bool)
            ok[failed] = False
            terms[self.term[failed]] = False
        else:
            ok = self.holds(np.asarray([key], dtype=np.int64))[0]
            terms[self.term[~ok]] = False
        self._last = (key, ok, terms)
        return ok, terms
