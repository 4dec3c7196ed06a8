"""Literals and terms over cells.

A :class:`Literal` is a feature (by position) and a set of allowed cells (a bit mask, see
:mod:`xdt.ir._cells`): ``x3 <= 2.5``, ``colour in {red, blue}`` and ``x1 = 0`` are all of this
one form. A :class:`Term` is a conjunction of literals; feature by feature its literals
intersect, and it is consistent when no feature is left with an empty cell set.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Literal:
    """``feature`` (position in the feature space) takes a value in the cells of ``cells``."""

    feature: int
    cells: int  # bit mask over the feature's cells

    def holds(self, cell: int) -> bool:
        """Whether a value in cell ``cell`` satisfies the literal."""
        return bool((self.cells >> cell) & 1)


@dataclass(frozen=True)
class Term:
    """A conjunction of literals (possibly several on the same feature)."""

    literals: tuple[Literal, ...] = ()

    @classmethod
    def from_masks(cls, masks: Mapping[int, int]) -> Term:
        """The term with one literal per ``feature -> cell mask`` item, in feature order."""
        return cls(tuple(Literal(f, m) for f, m in sorted(masks.items())))

    def masks(self) -> dict[int, int]:
        """Per constrained feature, the intersection of its literals' cell sets."""
        out: dict[int, int] = {}
        for lit in self.literals:
            out[lit.feature] = out.get(lit.feature, lit.cells) & lit.cells
        return out

    @property
    def features(self) -> tuple[int, ...]:
        """Constrained features in order of first appearance."""
        return tuple(dict.fromkeys(lit.feature for lit in self.literals))

    def is_consistent(self) -> bool:
        """True when some point satisfies the term (no feature has an empty cell set)."""
        return all(m != 0 for m in self.masks().values())

    def intersect(self, other: Term) -> Term:
        """The conjunction of both terms, merged to one literal per feature."""
        masks = self.masks()
        for f, m in other.masks().items():
            masks[f] = masks.get(f, m) & m
        return Term.from_masks(masks)

    def __and__(self, other: Term) -> Term:
        return self.intersect(other)

    def holds(self, cells: Iterable[int]) -> bool:
        """Whether the point with the given cell per feature satisfies every literal."""
        row = list(cells)
        return all(lit.holds(row[lit.feature]) for lit in self.literals)

    def __len__(self) -> int:
        return len(self.literals)
