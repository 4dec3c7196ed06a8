"""The box engine for tree ensembles: entailment by exact branch and bound over boxes.

For one instance of a :class:`~xdt.ir.TreeEnsemble` and a set ``S`` of fixed
features, the points that agree with the instance on ``S`` form a *box* (one cell on each
fixed feature, every cell elsewhere). :class:`BoxOracle` decides whether the box holds a
point of another class with the compiled search of :mod:`xdt.explain.engines._ensemble_kernels`:
bounds on every tree's leaf values over the box, summed in the library's own floating point
(so exact, ties included: see that module), and splits of the box where the bounds do not
decide. It answers the same question as the SAT engine (:mod:`xdt.explain.engines._ensemble_sat`),
which the tests and :func:`xdt.crosscheck` compare it with, and it computes one AXp by deletion in
a single compiled call.

The search is exponential in the worst case (as is every exact method: deciding entailment
for a tree ensemble is NP-hard); a query that needs more than :data:`MAX_BOXES` boxes is
handed to the SAT engine, which answers it exactly. A query stops at the caller's deadline
(:mod:`xdt.explain.engines._deadline`), read by the compiled search itself, and raises
:class:`~xdt.explain.engines._deadline.EnumerationStopped`.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence

import numpy as np

from xdt.errors import ComputationLimitError, ParameterError
from xdt.explain._models import constrained_refusal, is_constrained
from xdt.explain.engines import _deadline
from xdt.explain.engines import _ensemble_kernels as K
from xdt.explain.engines._oracle import EntailmentOracle, bits
from xdt.ir._cells import IntervalCells
from xdt.ir._ensemble import TreeEnsemble

MAX_BOXES = 200_000
"""Boxes one query may search before it is handed to the SAT engine."""


class Prepared:
    """The flat arrays of an ensemble for the kernels (built once per model by
    :func:`prepare`): the fields of :class:`~xdt.explain.engines._ensemble_kernels.EnsembleTables`,
    each as an attribute, and ``tables``, all of them as the kernels take them."""

    def __init__(self, model: TreeEnsemble):
        features, cuts, offsets, children, leaves, roots = [], [], [], [], [], []
        n_nodes = n_leaves = n_child = 0
        ordinal = np.array([isinstance(c, IntervalCells) for c in model.cells])
        for t, tree in enumerate(model.trees):
            roots.append(n_nodes)
            feat = tree._node_feature
            cut = tree._node_cut.copy()
            for n in np.flatnonzero(cut >= 0).tolist():
                f = int(feat[n])
                r = model._refine[t][f]
                if r is not None:  # the tree's cell -> the ensemble's last cell inside it
                    cut[n] = int(np.searchsorted(r, cut[n], side="right")) - 1
            features.append(feat)
            cuts.append(cut)
            offsets.append(tree._child_offset + n_child)
            children.append(tree._child_flat + n_nodes)
            path = tree._node_path
            leaves.append(np.where(path >= 0, path + n_leaves, -1))
            n_nodes += tree.n_nodes
            n_leaves += tree.n_leaves
            n_child += len(tree._child_flat)
        self.feature = np.concatenate(features).astype(np.int64)
        self.cut = np.concatenate(cuts).astype(np.int64)
        self.offset = np.concatenate(offsets).astype(np.int64)
        self.child = np.concatenate(children).astype(np.int64)
        self.leaf = np.concatenate(leaves).astype(np.int64)
        self.roots = np.asarray(roots, dtype=np.int64)
        dtype = np.dtype(model.precision)
        self.values = np.ascontiguousarray(np.concatenate(model.values), dtype=dtype)
        self.start = model.start_scores()
        self.divisor = dtype.type(model.score_divisor)
        self.threshold = dtype.type(model.threshold)
        self.n_classes = len(model.classes)
        self.ordinal = ordinal
        self.n_cells = np.asarray([c.n_cells for c in model.cells], dtype=np.int64)
        cat_sizes = np.where(ordinal, 0, self.n_cells)
        self.cat_offset = np.concatenate([[0], np.cumsum(cat_sizes)[:-1]]).astype(np.int64)
        self.n_cat = int(cat_sizes.sum())
        self.tables = K.EnsembleTables(
            feature=self.feature, cut=self.cut, offset=self.offset, child=self.child,
            leaf=self.leaf, roots=self.roots, values=self.values, start=self.start,
            divisor=self.divisor, threshold=self.threshold, n_classes=self.n_classes,
            ordinal=self.ordinal, n_cells=self.n_cells, cat_offset=self.cat_offset)

    def classify(self, cells: Sequence[int]) -> int:
        """The class index of one point given by its cells (the IR's ``predict_cells``, in
        one compiled call)."""
        return int(K.classify(np.asarray(cells, dtype=np.int64), *self.tables))

    def box(self, held: dict[int, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(lo, hi, cat)`` of the box holding each feature ``f`` of ``held`` to the cells
        ``held[f]`` (an interval for an ordinal feature) and the others free."""
        lo = np.zeros(len(self.n_cells), dtype=np.int64)
        hi = self.n_cells - 1
        cat = np.ones(self.n_cat, dtype=np.bool_)
        for f, mask in held.items():
            cells = bits(mask)
            if self.ordinal[f]:
                lo[f], hi[f] = cells[0], cells[-1]
                if len(cells) != cells[-1] - cells[0] + 1:
                    raise ParameterError(f"cell set {cells} of ordinal feature {f} is not an "
                                         "interval; hold an ordinal feature to a run of "
                                         "consecutive cells")
            else:
                o = int(self.cat_offset[f])
                cat[o:o + int(self.n_cells[f])] = False
                cat[[o + j for j in cells]] = True
        return lo, hi, cat


_PREPARED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def prepare(model: TreeEnsemble) -> Prepared:
    """The :class:`Prepared` arrays of ``model``, built on first use and kept with it."""
    prepared = _PREPARED.get(model)
    if prepared is None:
        prepared = _PREPARED[model] = Prepared(model)
    return prepared


class BoxOracle(EntailmentOracle):
    """Entailment for one instance of a tree ensemble by the compiled box search.

    Parameters
    ----------
    model : TreeEnsemble
    cells : sequence of int
        The instance's cells (one per feature).
    allowed : sequence of int
        Per feature, the cells a fixed feature is held to (the instance's cell).
    universe : int
        Bit mask of the candidate features.
    prediction : int
        The instance's class index.
    fallback : callable, optional
        ``fallback()`` -> an oracle (the SAT engine's) for the queries that meet
        ``max_boxes``; without one such a query raises
        :class:`~xdt.errors.ComputationLimitError` (a ``RuntimeError``).
    max_boxes : int
        Boxes one query may search (default :data:`MAX_BOXES`).
    stack : int
        Initial room of the search's depth-first stack of boxes (it grows as needed).
    """

    def __init__(self, model: TreeEnsemble, cells: Sequence[int], allowed: Sequence[int],
                 universe: int, prediction: int, fallback=None,
                 max_boxes: int = MAX_BOXES, stack: int = 16):
        if is_constrained(model):
            raise constrained_refusal("the box engine", model)
        self.model = model
        self.prepared = prepare(model)
        self.cells = tuple(int(c) for c in cells)
        self.allowed = tuple(allowed)
        self.universe = universe
        self.prediction = int(prediction)
        self.max_boxes = int(max_boxes)
        self.stack = int(stack)  # initial room of the kernel's stack of boxes
        self._fallback = fallback
        self._other: EntailmentOracle | None = None
        self.boxes = 0      # boxes searched so far
        self.handed = 0     # queries handed to the fallback

    def _sat(self) -> EntailmentOracle:
        if self._other is None:
            if self._fallback is None:
                raise ComputationLimitError(
                    f"the box search met its limit of {self.max_boxes} boxes; raise max_boxes, "
                    "or give a fallback engine (the SAT engine)", limit="max_boxes")
            self._other = self._fallback()
        self.handed += 1
        return self._other

    def _held(self, fixed: int) -> dict[int, int]:
        return {f: self.allowed[f] for f in bits(fixed)}

    def _search(self, held: dict[int, int]) -> tuple[int, np.ndarray]:
        p = self.prepared
        lo, hi, cat = p.box(held)
        out = np.empty(len(lo), dtype=np.int64)
        _deadline.check()
        clock, end = _deadline.kernel_clock()
        status, boxes = K.search(lo, hi, cat, self.prediction, self.max_boxes, out,
                                 self.stack, clock, end, *p.tables)
        self.boxes += int(boxes)
        if status == K.TIMED_OUT:
            raise _deadline.EnumerationStopped
        return int(status), out

    def entails(self, fixed: int) -> bool:
        return self.counterexample(fixed) is None

    def counterexample(self, fixed: int) -> tuple[int, ...] | None:
        status, out = self._search(self._held(fixed))
        if status == K.GAVE_UP:
            return self._sat().counterexample(fixed)
        return tuple(out.tolist()) if status == K.COUNTEREXAMPLE else None

    def counterexample_cells(self, held: dict[int, int]) -> tuple[int, ...] | None:
        status, out = self._search(held)
        if status == K.GAVE_UP:
            return self._sat().counterexample_cells(held)
        return tuple(out.tolist()) if status == K.COUNTEREXAMPLE else None

    def deletion(self, start: int, order) -> int | None:
        """One AXp by deletion from ``start``, in one compiled call (``order`` first, then
        the other features of ``start`` by position); ``None`` (the caller asks feature by
        feature) when the instance is held to wider cells than its own."""
        if any(a != 1 << c for a, c in zip(self.allowed, self.cells, strict=True)):
            return None
        p = self.prepared
        seen = set()
        seq = []
        for f in list(order) + bits(start):
            f = int(f)
            if (start >> f) & 1 and f not in seen:
                seen.add(f)
                seq.append(f)
        fixed = np.zeros(len(self.cells), dtype=np.bool_)
        fixed[bits(start)] = True
        _deadline.check()
        clock, end = _deadline.kernel_clock()
        status, pos = K.deletion(np.asarray(self.cells, dtype=np.int64), fixed,
                                 np.asarray(seq, dtype=np.int64), self.prediction,
                                 self.max_boxes, self.stack, clock, end, *p.tables)
        if status == K.TIMED_OUT:
            raise _deadline.EnumerationStopped
        expl = 0
        for f in np.flatnonzero(fixed).tolist():
            expl |= 1 << f
        if status == K.GAVE_UP:  # finish the rest feature by feature (with the fallback)
            for f in seq[pos:]:
                smaller = expl & ~(1 << f)
                if self.entails(smaller):
                    expl = smaller
        return expl
