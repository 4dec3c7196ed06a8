"""The path-walker: polynomial entailment for decision trees.

Izza, Ignatiev & Marques-Silva, "On Explaining Decision Trees" (arXiv:2010.11034, 2020;
extended in JAIR 2022), Section 4: for a tree, a path of another class stays reachable
after fixing a set ``S`` of features exactly when none of its literals is falsified by the
fixed features. Writing ``D_p`` for the set of features on which path ``p`` (of a class other
than the prediction) *disagrees* with the instance — its literal's cell set and the
instance's allowed cells do not intersect —

* ``S`` entails the prediction  ⇔  ``S`` hits every ``D_p``;
* the CXps are exactly the subset-minimal sets among the ``D_p``;
* the AXps are the minimal hitting sets of the CXps (duality).

Building the ``D_p`` takes time linear in the total length of the tree's paths; each
entailment query is then linear in the number of distinct minimal ``D_p``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from xdt.explain._models import constrained_refusal, is_constrained
from xdt.explain.engines import _edge_kernels as edge_kernels
from xdt.explain.engines import _kernels as kernels
from xdt.explain.engines import _range_kernels as range_kernels
from xdt.explain.engines._compiled import CompiledTree, compiled, from_words, masks_of, to_words
from xdt.explain.engines._kernels import AllowedCells
from xdt.explain.engines._oracle import EntailmentOracle, bits
from xdt.ir._tree import DecisionTree, Path


def _size_then_value(d: int) -> tuple[int, int]:
    return d.bit_count(), d


_FEW = 24  # CXps up to which an entailment check is cheaper in Python than in a kernel
_NOT_RESTRICTED = tuple(AllowedCells(np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64),
                                     np.zeros(1, dtype=np.uint64)))
"""The allowed cells of an instance held to its cells (not read by the kernels)."""


class PathOracle(EntailmentOracle):
    """Entailment for a :class:`~xdt.ir.DecisionTree` by walking its paths.

    The disagreement sets, the CXps (their subset-minimal members) and deletion run in the
    compiled kernels of :mod:`xdt.explain.engines._kernels`, over the tree's flat arrays built once
    per tree (:func:`xdt.explain.engines._compiled.compiled`); for a deep tree compiled in
    edge form, in those of :mod:`xdt.explain.engines._edge_kernels` and
    :mod:`xdt.explain.engines._range_kernels`, over per-edge tables linear in its size.

    Parameters
    ----------
    tree : DecisionTree
    cells : sequence of int, length n_features
        The instance's cell per feature.
    allowed : sequence of int, length n_features
        Per feature, the bit mask of cells a fixed feature is held to (the instance's cell,
        or a path literal's cell set).
    universe : int
        Bit mask of candidate features.
    prediction : int
        The instance's class index.
    restricted : bool, optional
        Whether some ``allowed`` set is wider than the instance's cell (path-restricted
        explanations); found from ``allowed`` when not given.
    """

    def __init__(self, tree: DecisionTree, cells: Sequence[int], allowed: Sequence[int],
                 universe: int, prediction: int, restricted: bool | None = None):
        if is_constrained(tree):
            raise constrained_refusal("the path engine", tree)
        self.tree = tree
        self.cells = tuple(cells)
        self.allowed = tuple(allowed)
        self.universe = universe
        self.prediction = prediction
        ct = compiled(tree)
        self._ct = ct
        if restricted is None:
            restricted = any(a != 1 << c for a, c in zip(self.allowed, self.cells, strict=True))
        self._blocked = None
        if ct.edge_form:  # D_p from the edges, no table of literals
            self._sets_rows = ct.restricted_sets(self.allowed, prediction) if restricted else None
            self._set_minimal(None)
            self._known = None
            self._disagreement_sets()
            return
        allowed_cells = (tuple(ct.allowed_arrays(self.allowed)) if restricted
                         else _NOT_RESTRICTED)
        sets, mins, rows = ct.buffers()
        k = kernels.disagreements(np.asarray(self.cells, dtype=np.int64), restricted,
                                  allowed_cells, prediction, sets, rows, *ct.tables)
        m = kernels.minimal_sets(sets, k, mins)
        self._sets_rows: tuple[np.ndarray, np.ndarray] | None = (sets[:k].copy(),
                                                                 rows[:k].copy())
        self._set_minimal(mins[:m].copy())
        self._known: tuple[int, object, int] | None = None

    def _set_minimal(self, minimal: np.ndarray | None) -> None:
        self._minimal_sets = minimal  # the minimal D_p, the CXps (None: made when needed)
        self._cxp_list: list[int] | None = None
        self._slices: list[int] | None = None  # or: per feature E_f, a bit mask over paths
        self._target = 0  # and the paths of other classes they must cover
        self._pairs: list[tuple[int, Path]] | None = None
        self._others: list[tuple[Path, int | None, int]] | None = None

    @property
    def _minimal(self) -> np.ndarray:
        """The CXps (the subset-minimal D_p) as uint64 (m, W), made on first use."""
        if self._minimal_sets is None:
            sets = self._sets
            mins = np.empty((max(len(sets), 1), self._ct.n_words), dtype=np.uint64)
            m = kernels.minimal_sets(sets, len(sets), mins)
            self._minimal_sets = mins[:m]
        return self._minimal_sets

    @property
    def _cxps(self) -> list[int]:
        if self._cxp_list is None:
            cxps = masks_of(self._minimal)
            self._cxp_list = cxps if len(cxps) < 2 else sorted(cxps, key=_size_then_value)
        return self._cxp_list

    @property
    def _sets(self) -> np.ndarray:
        """(D_p for every reachable path of another class, in path order: uint64 (k, W))"""
        return self._disagreement_sets()[0]

    @property
    def _rows(self) -> np.ndarray:
        """The paths of :attr:`_sets`, int64 (k,)."""
        return self._disagreement_sets()[1]

    def _disagreement_sets(self) -> tuple[np.ndarray, np.ndarray]:
        if self._sets_rows is None:  # of_cells did not keep them: made again
            ct = self._ct
            sets = np.empty((max(ct.n_paths, 1), ct.n_words), dtype=np.uint64)
            if ct.edge_form:  # each path's literals seen from its leaf up
                rows = np.empty(max(ct.n_paths, 1), dtype=np.int64)
                k = edge_kernels.disagreements(ct.edge_tables,
                                               np.asarray(self.cells, dtype=np.int64),
                                               self.prediction, sets, rows)
                self._sets_rows = (sets[:k], rows[:k])
                return self._sets_rows
            if ct.sliced:  # from the tables; the paths are those of other classes, in order
                k = kernels.disagreements_by_table(
                    np.asarray(self.cells, dtype=np.int64), self.prediction, sets, *ct.tables)
                self._sets_rows = (sets[:k], ct.other_rows[self.prediction])
                return self._sets_rows
            rows = np.empty(max(ct.n_paths, 1), dtype=np.int64)
            k = kernels.disagreements(np.asarray(self.cells, dtype=np.int64), False,
                                      _NOT_RESTRICTED, self.prediction, sets, rows, *ct.tables)
            self._sets_rows = (sets[:k], rows[:k])
        return self._sets_rows

    @classmethod
    def of_cells(cls, tree: DecisionTree, cells: tuple[int, ...],
                 ct: CompiledTree | None = None) -> tuple[PathOracle, int]:
        """The oracle of the instance with these cells, each feature held to its cell, and
        the leaf (path index) it reaches, from one kernel call
        (:func:`kernels.explain_one`), which also finds the AXp of the deletion order
        "path" (kept for :meth:`deletion`). ``ct``: the tree's compiled tables, if the
        caller has them."""
        if is_constrained(tree):
            raise constrained_refusal("the path engine", tree)
        if ct is None:
            ct = compiled(tree)
        row = np.asarray(cells, dtype=np.int64)
        slices = blocked = None
        if ct.edge_form:  # entailment and deletion by ranges of paths; the CXps when asked
            leaf, blocked, axp = edge_kernels.explain_one(row, ct.edge_tables)
            minimal = None
        elif ct.sliced:  # entailment and deletion by feature slices; the CXps when asked
            leaf, slices, axp = kernels.explain_one_sliced(row, *ct.slice_tables)
            minimal = None
        else:
            leaf, minimal, axp = kernels.explain_one(row, *ct.tables)
        self = object.__new__(cls)
        self.tree = tree
        self.cells = cells
        self.allowed = tuple([1 << c for c in cells])
        self.universe = (1 << len(cells)) - 1
        self.prediction = int(ct.path_class[leaf])
        self._ct = ct
        self._sets_rows = None
        self._set_minimal(minimal)
        self._blocked = blocked
        if slices is not None:
            self._slices = [0] * len(cells)
            for f, m in zip(ct.tested_list, masks_of(slices), strict=False):
                self._slices[f] = m
            self._target = ct.other_masks[self.prediction]
        self._known = (self.universe, ct.path_order(leaf),
                       int(axp[0]) if ct.n_words == 1 else from_words(axp))
        return self, int(leaf)

    @property
    def _disagreements(self) -> list[tuple[int, Path]]:
        if self._pairs is None:
            paths = self.tree.paths
            self._pairs = [(d, paths[p]) for d, p in
                           zip(masks_of(self._sets), self._rows.tolist(), strict=True)]
        return self._pairs

    def entails(self, fixed: int) -> bool:
        if self._blocked is not None and self._cxp_list is None:
            return bool(range_kernels.covers(self._blocked, to_words(fixed, self._ct.n_words)))
        if self._slices is not None and self._cxp_list is None:
            covered = 0  # the paths of other classes the fixed features block
            slices = self._slices
            while fixed:
                low = fixed & -fixed
                covered |= slices[low.bit_length() - 1]
                fixed ^= low
            return covered & self._target == self._target
        if len(self._cxps) <= _FEW:  # a few ints: no kernel call
            return all(d & fixed for d in self._cxps)
        m = self._minimal
        return kernels.first_missed(m, len(m), to_words(fixed, self._ct.n_words)) < 0

    def all_cxps(self) -> list[int]:
        return list(self._cxps)

    def deletion(self, start: int, order: Sequence[int]) -> int:
        """One AXp by deletion from the weak AXp ``start`` in ``order`` (then the other
        features of ``start`` by position), in one kernel call (:func:`kernels.deletion`)."""
        known = self._known
        if known is not None and known[1] is order and known[0] == start:
            return known[2]
        ct = self._ct
        if self._blocked is not None:
            words = np.empty(ct.n_words, dtype=np.uint64)
            range_kernels.deletion_by_ranges(self._blocked, np.asarray(order, dtype=np.int64),
                                            to_words(start, ct.n_words), True, ct.n_words,
                                            words)
            return int(words[0]) if ct.n_words == 1 else from_words(words)
        words = kernels.deletion(self._minimal, len(self._minimal),
                                 np.asarray(order, dtype=np.int64),
                                 to_words(start, ct.n_words))
        return int(words[0]) if ct.n_words == 1 else from_words(words)

    def witness_path(self, fixed: int) -> Path | None:
        """A reachable path of another class not blocked by ``fixed``, or ``None``: the
        first in the tree's path order."""
        i = kernels.first_missed(self._sets, len(self._sets), to_words(fixed, self._ct.n_words))
        return None if i < 0 else self.tree.paths[int(self._rows[i])]

    def counterexample(self, fixed: int) -> tuple[int, ...] | None:
        p = self.witness_path(fixed)
        if p is None:
            return None
        return self._point_on(p, {f: self.allowed[f] for f in bits(fixed)})

    def counterexample_cells(self, held: dict[int, int]) -> tuple[int, ...] | None:
        for _, p in self._disagreements:
            if all(p.masks.get(f, -1) & m for f, m in held.items()):
                return self._point_on(p, held)
        return None

    def entailment_proof(self, held: dict[int, int]) -> list[tuple[Path, int, bool]] | None:
        """Why holding each feature ``f`` of ``held`` to the cells ``held[f]`` entails the
        prediction: for every path of another class, the feature that blocks it.

        Parameters
        ----------
        held : dict of int to int
            Feature position -> bit mask of the cells it is held to (the allowed cells, or
            widened sets for inflated explanations).

        Returns
        -------
        list of (Path, int, bool) or None
            One ``(path, f, dead)`` per path of another class, in the tree's path order:
            ``f`` is the lowest-numbered feature of ``held`` whose literal on the path does
            not intersect ``held[f]`` (``dead=False``), or, for a dead path no point reaches, a
            feature whose tests on the path contradict each other (``dead=True``). ``None``
            when some reachable path of another class is not blocked (no entailment).

        Notes
        -----
        Izza, Ignatiev & Marques-Silva, "On Explaining Decision Trees", Section 4: a set of
        held features entails the prediction exactly when it falsifies a literal of every
        path of another class. O(total path length) time.
        """
        if self._others is None:  # every path of another class: (path, dead feature, D_p)
            d_of = {p.index: d for d, p in self._disagreements}
            self._others = [(p, next((f for f, m in p.masks.items() if m == 0), None),
                             d_of.get(p.index, 0))
                            for p in self.tree.paths if p.class_index != self.prediction]
        out: list[tuple[Path, int, bool]] = []
        fixed = 0
        for f in held:
            fixed |= 1 << f
        if all(m == self.allowed[f] for f, m in held.items()):
            for p, dead, d in self._others:  # D_p is known: the blocker is its lowest bit
                if dead is not None:
                    out.append((p, dead, True))
                elif d & fixed:
                    out.append((p, ((d & fixed) & -(d & fixed)).bit_length() - 1, False))
                else:
                    return None
            return out
        items = sorted(held.items())
        for p, dead, _ in self._others:
            if dead is not None:
                out.append((p, dead, True))
                continue
            masks = p.masks
            f = next((f for f, m in items if masks.get(f, -1) & m == 0), None)
            if f is None:
                return None
            out.append((p, f, False))
        return out

    def _point_on(self, p: Path, held: dict[int, int]) -> tuple[int, ...]:
        """Cells of a point on path ``p`` inside the ``held`` cell sets, as close to the
        instance as the path allows."""
        point = list(self.cells)  # features neither tested on p nor held stay as they are
        for f, m in p.masks.items():
            choice = m & held.get(f, -1)
            # stay at the instance's cell where allowed; else the lowest allowed cell
            if not (choice >> point[f]) & 1:
                point[f] = (choice & -choice).bit_length() - 1
        for f, m in held.items():
            if f not in p.masks and not (m >> point[f]) & 1:
                point[f] = (m & -m).bit_length() - 1
        return tuple(point)
