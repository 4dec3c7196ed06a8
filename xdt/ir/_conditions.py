"""Conditions: literals as written in a model file or a background constraint.

A :class:`Condition` is ``feature in {values}`` (categorical and binary features) or
``above < feature <= upto`` (ordinal features, either bound optional). DNF terms
(:mod:`xdt.ir._dnf`) and background constraints (:mod:`xdt.ir._constraints`) are written with
them; each model compiles a condition to a cell-mask :class:`~xdt.ir.Literal`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdt.ir._features import Feature
from xdt.ir._values import lower_text, upper_text


@dataclass(frozen=True)
class Condition:
    """One literal of a DNF term, as written in a model.

    Exactly one form is used:

    * ``values`` — for a categorical or binary feature, the domain values allowed
      (``x in values``);
    * ``above`` / ``upto`` — for an ordinal feature, ``above < x <= upto`` (either bound may
      be ``None``, not both).
    """

    feature: str
    values: tuple | None = None
    above: float | None = None
    upto: float | None = None

    def negation(self, feature: Feature) -> Condition | None:
        """The condition that holds exactly when this one does not, or ``None`` when that
        needs two conditions (an ordinal interval) or none (a condition always true)."""
        if self.values is not None:
            rest = tuple(v for v in feature.domain if v not in self.values)
            return Condition(self.feature, rest) if rest else None
        if self.above is not None and self.upto is not None:
            return None
        if self.above is not None:
            return Condition(self.feature, upto=self.above)
        return Condition(self.feature, above=self.upto)

    def split(self) -> tuple[Condition, ...]:
        """The condition as one-sided parts: an interval ``a < x <= b`` becomes
        ``a < x`` and ``x <= b``; other conditions are returned alone."""
        if self.above is not None and self.upto is not None:
            return (Condition(self.feature, above=self.above),
                    Condition(self.feature, upto=self.upto))
        return (self,)

    def to_dict(self) -> dict:
        """The condition as in an ``xdt-model/1`` document."""
        out: dict = {"feature": self.feature}
        if self.values is not None:
            out["in"] = list(self.values)
        if self.above is not None:
            out["gt"] = self.above
        if self.upto is not None:
            out["le"] = self.upto
        return out

    def __str__(self) -> str:
        if self.values is not None:
            if len(self.values) == 1:
                return f"{self.feature} = {self.values[0]}"
            return f"{self.feature} in {{{', '.join(map(str, self.values))}}}"
        if self.above is None:
            return f"{self.feature}{upper_text(self.upto)}"
        if self.upto is None:
            return f"{lower_text(self.above)}{self.feature}"
        return f"{lower_text(self.above)}{self.feature}{upper_text(self.upto)}"


def finite(b: object) -> bool:
    """Whether ``b`` converts to a finite float (an int too large for one does not)."""
    try:
        return math.isfinite(float(b))
    except OverflowError:  # an integer too large for a float
        return False
