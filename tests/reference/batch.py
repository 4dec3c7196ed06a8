"""The batch path-walker in numpy: one AXp and all CXps of many rows of a decision tree, as
(rows x paths) matrices of one-word masks -- the reference the compiled kernels of
:mod:`xdt.explain.engines._vectorised` (:func:`xdt.explain.engines._vectorised.explain_rows`) are
compared with.

Izza, Ignatiev & Marques-Silva, "On Explaining Decision Trees" (arXiv:2010.11034, 2020;
JAIR 2022), Sections 4-5, over rows. For an instance ``v`` predicted ``c`` and a reachable
path ``p`` of another class, the *disagreement set* ``D_p`` is the set of features whose
literal on ``p`` excludes ``v``'s cell. Then

* a set ``S`` of features entails the prediction  <=>  ``S`` hits every ``D_p``;
* the CXps are the subset-minimal sets among the ``D_p``;
* one AXp is found by deletion: start from all features and drop each, in order, whenever
  the rest still hits every ``D_p``.

:class:`BatchPlan` builds the ``D_p`` of every row at once, :func:`distinct_sets` and
:func:`minimal_sets_batch` keep the CXps, :func:`deletion_axps` deletes; for models of at
most :data:`MAX_WORD_FEATURES` features (the kernels have no such limit).
"""

from __future__ import annotations

import numpy as np

from xdt.ir._tree import DecisionTree

MAX_WORD_FEATURES = 63
"""Largest number of features of the numpy formulation (one ``uint64`` word, with the top bit
kept free for the padding value); the kernels have no such limit."""


def word_dtype(n_features: int) -> np.dtype:
    """The narrowest unsigned integer type holding ``n_features`` bits plus a free top bit
    (the padding value is all ones): uint16, uint32 or uint64.

    Raises
    ------
    ValueError
        For more than :data:`MAX_WORD_FEATURES` features.
    """
    for dtype in (np.uint16, np.uint32, np.uint64):
        if n_features < np.iinfo(dtype).bits:
            return np.dtype(dtype)
    raise ValueError(f"{n_features} features do not fit one 64-bit word with a free bit")


def _pad(d: np.ndarray) -> np.integer:
    """The padding value of ``d``'s dtype (all ones; no real set has the top bit)."""
    return d.dtype.type(np.iinfo(d.dtype).max)


class BatchPlan:
    """Per-tree tables for the batch path-walker, built once per tree.

    Parameters
    ----------
    tree : DecisionTree
        With at most :data:`MAX_WORD_FEATURES` features.

    Attributes
    ----------
    n_paths : int
        ``P``, the number of leaves.
    dtype : numpy.dtype
        The unsigned integer type of the masks (:func:`word_dtype`).
    path_class : numpy.ndarray of shape (P,), int64
        Class index of every path.
    tables : list of (int, numpy.ndarray)
        Per feature ``f`` tested on some path, ``(f, T_f)`` with ``T_f`` of shape
        ``(n_cells_f, P)`` and type :attr:`dtype`: bit ``f`` where path ``p`` tests ``f``
        and its literal excludes the cell, else 0.
    dead : numpy.ndarray of shape (P,), bool
        Paths no point reaches (their tests on a feature contradict each other).
    orders : numpy.ndarray of shape (P, F), int64
        Per path, the deletion order ``"path"`` of a row reaching it: features off the path
        in increasing position, then the path's features in order of first test.
    """

    def __init__(self, tree: DecisionTree):
        n_features = len(tree.features)
        paths = tree.paths
        self.n_paths = len(paths)
        self.n_features = n_features
        self.dtype = word_dtype(n_features)
        self.path_class = np.asarray([p.class_index for p in paths], dtype=np.int64)
        self.dead = np.asarray([not p.consistent for p in paths], dtype=bool)
        self.tables: list[tuple[int, np.ndarray]] = []
        for f, cells in enumerate(tree.cells):
            table = np.zeros((cells.n_cells, self.n_paths), dtype=self.dtype)
            tested = False
            for j, p in enumerate(paths):
                m = p.masks.get(f)
                if m is None:
                    continue
                tested = True
                for c in range(cells.n_cells):
                    if not (m >> c) & 1:
                        table[c, j] = 1 << f
            if tested:
                self.tables.append((f, table))
        self.orders = np.asarray(
            [[f for f in range(n_features) if f not in p.masks] + list(p.features)
             for p in paths], dtype=np.int64).reshape(self.n_paths, n_features)

    def disagreements(self, cells: np.ndarray, leaf: np.ndarray) -> np.ndarray:
        """The disagreement sets of every row with every path.

        Parameters
        ----------
        cells : numpy.ndarray of shape (n, F), int64
        leaf : numpy.ndarray of shape (n,), int64
            The path each row reaches.

        Returns
        -------
        numpy.ndarray of shape (n, P), :attr:`dtype`
            ``D[r, p]``: bit mask of the features on which path ``p`` disagrees with row
            ``r``; the padding value (all ones) where ``p`` is of the row's class or dead.
        """
        d = np.zeros((len(cells), self.n_paths), dtype=self.dtype)
        for f, table in self.tables:
            d |= table[cells[:, f]]
        same = self.path_class[None, :] == self.path_class[leaf][:, None]
        d[same | self.dead[None, :]] = _pad(d)
        return d


def _compact(d: np.ndarray) -> np.ndarray:
    """Sort each row, keep its padding last, and cut the columns that are padding in every
    row (at least one column is kept). Shape (n, k), same dtype."""
    d.sort(axis=1)
    width = int((d != _pad(d)).sum(axis=1).max(initial=0))
    return d[:, :max(width, 1)]


def distinct_sets(d: np.ndarray) -> np.ndarray:
    """Each row's distinct disagreement sets, in increasing value, padded.

    Parameters
    ----------
    d : numpy.ndarray of shape (n, P), unsigned integers
        As from :meth:`BatchPlan.disagreements` (modified in place), padded with all ones.

    Returns
    -------
    numpy.ndarray of shape (n, k), same dtype
        ``k`` is the largest number of distinct sets of a row; shorter rows are padded.
    """
    d = _compact(d)
    if d.shape[1] > 1:
        repeat = d[:, 1:] == d[:, :-1]
        d[:, 1:][repeat] = _pad(d)
        d = _compact(d)
    return d


def minimal_sets_batch(d: np.ndarray) -> np.ndarray:
    """Each row's subset-minimal sets (the CXps), padded.

    Parameters
    ----------
    d : numpy.ndarray of shape (n, k), unsigned integers
        Distinct sets per row (:func:`distinct_sets`), padded with all ones.

    Returns
    -------
    numpy.ndarray of shape (n, k'), same dtype
        The sets of each row that have no proper subset in the row, in increasing value,
        padded; ``k'`` is the largest number of minimal sets of a row.

    Notes
    -----
    Each row's sets are visited by increasing size: a set is minimal exactly when none of
    the minimal sets kept so far (all of them no larger, and distinct from it) is inside
    it, since a set that is not minimal has a minimal proper subset, which is smaller. O(n k
    m) time for ``m`` minimal sets per row, O(n k) memory.
    """
    pad = _pad(d)
    n, k = d.shape
    by_size = np.argsort(np.bitwise_count(d), axis=1, kind="stable")  # padding: most bits
    d = np.take_along_axis(d, by_size, axis=1)
    kept = np.full((n, k), pad, dtype=d.dtype)
    count = np.zeros(n, dtype=np.int64)
    rows = np.arange(n)
    width = 0
    for j in range(k):
        col = d[:, j]
        live = col != pad
        if not live.any():
            break
        if width:
            inside = ((kept[:, :width] & ~col[:, None]) == 0).any(axis=1)  # padding never is
            live &= ~inside
        kept[rows[live], count[live]] = col[live]
        count += live
        width = int(count.max())
    return _compact(kept[:, :max(width, 1)])


def deletion_axps(sets: np.ndarray, orders: np.ndarray, n_features: int) -> np.ndarray:
    """One AXp per row by deletion, all rows at once.

    Parameters
    ----------
    sets : numpy.ndarray of shape (n, k), unsigned integers
        Each row's disagreement sets (all, distinct, or only the minimal ones: the same
        sets are hit), padded with all ones.
    orders : numpy.ndarray of shape (n, F), int64
        Per row, the features in the order they are tried for removal.
    n_features : int
        ``F`` (fewer than the bits of ``sets.dtype``).

    Returns
    -------
    numpy.ndarray of shape (n,), ``sets.dtype``
        Bit mask of each row's AXp: starting from all features, feature ``orders[r, s]``
        is dropped at step ``s`` when the rest still hits every set of row ``r``
        (:func:`xdt.explain.queries._duality.deletion_axp`, with the same order, gives the same
        AXp).
    """
    word = sets.dtype.type
    n = len(sets)
    expl = np.full(n, (1 << n_features) - 1, dtype=sets.dtype)
    real = sets != _pad(sets)
    bit = word(1) << np.arange(max(n_features, 1), dtype=sets.dtype)
    for s in range(n_features):
        cand = expl & ~bit[orders[:, s]]
        ok = (((sets & cand[:, None]) != 0) | ~real).all(axis=1)
        expl = np.where(ok, cand, expl)
    return expl
