"""The contract every explanation engine fulfils.

For one model and one instance ``v`` predicted class ``c``, an engine answers one question:

    *does fixing the features of* ``S`` *(each to its allowed cells) entail the prediction?*

i.e. is every point that agrees with ``v`` on ``S`` also of class ``c``? When the answer is
no, the engine produces a *counterexample*: a point that agrees on ``S`` and has another
class. A set ``S`` for which the answer is yes is a weak AXp; everything else — one AXp by
deletion, one CXp, all AXps and CXps by hitting-set duality, a smallest AXp — is built on
this question once, in :mod:`xdt.explain.queries._duality`.

Feature sets are ``int`` bit masks over feature positions (bit ``i`` = feature ``i``).
"allowed cells" are the instance's cell for plain (path-unrestricted) explanations, or the
cell sets of the path's literals for path-restricted ones.
"""

from __future__ import annotations

from abc import ABC, abstractmethod


def bits(mask: int) -> list[int]:
    """Positions of the set bits of ``mask``, increasing (one step per set bit, so a
    sparse mask over many positions is cheap)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def to_mask(positions) -> int:
    """The bit mask with the given positions set."""
    m = 0
    for i in positions:
        m |= 1 << i
    return m


class EntailmentOracle(ABC):
    """Answers entailment queries for one (model, instance, allowed cells).

    Attributes
    ----------
    universe : int
        Bit mask of the candidate features explanations are drawn from (all features, or the
        features on the instance's path for path-restricted explanations).
    """

    universe: int

    @abstractmethod
    def entails(self, fixed: int) -> bool:
        """True when fixing the features in ``fixed`` (a bit mask) entails the prediction."""

    @abstractmethod
    def counterexample(self, fixed: int) -> tuple[int, ...] | None:
        """Cells (one per feature) of a point that agrees with the instance on ``fixed`` and
        has another class, or ``None`` when ``fixed`` entails the prediction."""

    @abstractmethod
    def counterexample_cells(self, held: dict[int, int]) -> tuple[int, ...] | None:
        """Like :meth:`counterexample`, with each feature ``f`` of ``held`` held to the cell
        set ``held[f]`` (a bit mask; an interval for ordinal features) instead of its
        allowed cells: the cells of a point of another class inside those sets, or ``None``.
        Used to widen (inflate) explanations."""

    def entails_cells(self, held: dict[int, int]) -> bool:
        """True when holding each feature ``f`` of ``held`` to the cells ``held[f]`` entails
        the prediction."""
        return self.counterexample_cells(held) is None

    def deletion(self, start: int, order) -> int | None:
        """One AXp by deletion from the weak AXp ``start`` (a bit mask), trying the features
        of ``order`` and then the other features of ``start`` by position, when the engine
        computes it in one step; ``None`` otherwise (then
        :func:`xdt.explain.queries.deletion_axp` asks :meth:`entails` feature by
        feature)."""
        return None

    def all_cxps(self) -> list[int] | None:
        """All CXps as bit masks when the engine can list them directly, else ``None``
        (then CXps are found by hitting-set duality)."""
        return None
