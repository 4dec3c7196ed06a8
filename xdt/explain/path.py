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

from xdt.explain.oracle import EntailmentOracle, bits
from xdt.ir.cells import full_mask
from xdt.ir.tree import DecisionTree, Path


def minimal_sets(sets) -> list[int]:
    """The subset-minimal members of a family of bit masks (duplicates removed), sorted by
    size then value.

    Notes
    -----
    O(k^2) in the number ``k`` of distinct sets.
    """
    distinct = sorted(set(sets), key=lambda m: (m.bit_count(), m))
    kept: list[int] = []
    for m in distinct:
        if not any(k & ~m == 0 for k in kept):
            kept.append(m)
    return kept


class PathOracle(EntailmentOracle):
    """Entailment for a :class:`~xdt.ir.tree.DecisionTree` by walking its paths.

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
    """

    def __init__(self, tree: DecisionTree, cells: Sequence[int], allowed: Sequence[int],
                 universe: int, prediction: int):
        self.tree = tree
        self.cells = tuple(cells)
        self.allowed = tuple(allowed)
        self.universe = universe
        self.prediction = prediction
        # (D_p, p) for every reachable path of another class
        self._disagreements: list[tuple[int, Path]] = []
        for p in tree.paths:
            if p.class_index == prediction or not p.consistent:
                continue
            d = 0
            for f, m in p.masks.items():
                if m & self.allowed[f] == 0:
                    d |= 1 << f
            self._disagreements.append((d, p))
        self._cxps = minimal_sets(d for d, _ in self._disagreements)

    def entails(self, fixed: int) -> bool:
        return all(d & fixed for d in self._cxps)

    def all_cxps(self) -> list[int]:
        return list(self._cxps)

    def witness_path(self, fixed: int) -> Path | None:
        """A reachable path of another class not blocked by ``fixed``, or ``None``."""
        for d, p in self._disagreements:
            if d & fixed == 0:
                return p
        return None

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

    def _point_on(self, p: Path, held: dict[int, int]) -> tuple[int, ...]:
        """Cells of a point on path ``p`` inside the ``held`` cell sets, as close to the
        instance as the path allows."""
        point = []
        for f, cell in enumerate(self.cells):
            choice = p.masks.get(f, full_mask(self.tree.cells[f].n_cells)) & held.get(f, -1)
            # stay at the instance's cell where allowed; else the lowest allowed cell
            point.append(cell if (choice >> cell) & 1 else bits(choice)[0])
        return tuple(point)
