"""The terms of imported rule learners: exact bounds for strict comparisons, and which
conjunctions can hold.

The IR writes a condition on an ordinal feature as ``above < x <= upto``; rule learners also
test ``x < t`` and ``x >= t``. On float64 values, ``x < t`` holds exactly when
``x <= nextafter(t, -inf)``, and ``x >= t`` exactly when ``nextafter(t, -inf) < x``
(:func:`below`). A conjunction whose conditions on one feature exclude each other never
holds; an importer drops such a rule rather than let the model refuse it
(:func:`satisfiable`): a rule that never fires changes no prediction.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from xdt.ir.conditions import Condition

__all__ = ["below", "satisfiable"]


def below(t: float) -> float:
    """The largest float64 below ``t``: ``x < t`` is ``x <= below(t)``, and ``x >= t`` is
    ``below(t) < x``, for every float64 ``x``.

    >>> below(0.5) < 0.5 and below(0.5) == 0.49999999999999994
    True
    """
    return float(np.nextafter(float(t), -math.inf))


def satisfiable(conditions: Iterable[Condition]) -> bool:
    """Whether some point satisfies every condition of ``conditions`` (a conjunction): per
    feature, the value sets intersect (categorical and binary features) and the intervals
    ``above < x <= upto`` overlap (ordinal ones).

    >>> satisfiable([Condition("x", above=1.0), Condition("x", upto=2.0)])
    True
    >>> satisfiable([Condition("c", ("a", "b")), Condition("c", ("c",))])
    False
    """
    values: dict[str, set] = {}
    lo: dict[str, float] = {}
    hi: dict[str, float] = {}
    for c in conditions:
        if c.values is not None:
            allowed = values.get(c.feature, set(c.values)) & set(c.values)
            if not allowed:
                return False
            values[c.feature] = allowed
            continue
        if c.above is not None:
            lo[c.feature] = max(lo.get(c.feature, -math.inf), float(c.above))
        if c.upto is not None:
            hi[c.feature] = min(hi.get(c.feature, math.inf), float(c.upto))
        if not lo.get(c.feature, -math.inf) < hi.get(c.feature, math.inf):
            return False
    return True
