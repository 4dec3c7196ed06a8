"""Plain Python values at the boundaries (JSON output, readable text).

Numbers in readable text
------------------------
A model keeps its thresholds exact (``to_dict()`` and model files write them unchanged), but
text shows each as the shortest decimal that sends every value the model compares the same
way (:func:`display_threshold`):

* a tree whose inputs are float64 (``input_dtype="float64"``, xdt's own learners, model
  files): the shortest decimal that reads back as the threshold itself, ``26.5``,
  ``0.15000000000000002``;
* a tree fitted on float32 copies of its inputs (``input_dtype="float32"``, trees imported
  from scikit-learn): its thresholds are float64 images of float32 tests
  (``0.5000000298023224``, see :func:`xdt.interop._sklearn_tree.float32_threshold`), shown as the
  shortest decimal ``d`` that lies between the largest float32 value on the left side and
  the threshold: ``x <= d`` then holds for exactly the float32 values that go left, and ``d``
  itself goes left (``0.5``, ``17.5``).

:func:`shortest_between` picks such short numbers, also for the example values of cells
(:meth:`xdt.ir.IntervalCells.value`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from fractions import Fraction
from numbers import Integral, Real

import numpy as np

INPUT_DTYPES = ("float64", "float32")
"""Precisions of the values a model compares with its thresholds (``input_dtype``)."""


def to_python(value: object) -> object:
    """A numpy scalar as the equal Python scalar (``np.int64(3)`` -> ``3``) that JSON can
    write; any other value unchanged."""
    return value.item() if isinstance(value, np.generic) else value


def format_number(v: float) -> str:
    """``v`` as text that reads back as ``v``: integral values without ``.0`` (``26``,
    below 1e15), others by Python's shortest round-trip ``repr`` (``0.5``, ``1.1e+308``)."""
    v = float(v)
    return repr(int(v)) if v.is_integer() and abs(v) < 1e15 else repr(v)


def _digits(v: float) -> int:
    """Significant digits of ``v``'s shortest round-trip decimal."""
    return len(Decimal(repr(float(v))).normalize().as_tuple().digits)


def _round(v: float, digits: int, rounding: str) -> float:
    """``v`` rounded to ``digits`` significant decimal digits (``ROUND_FLOOR`` or
    ``ROUND_CEILING``), read back as a float64 (may overflow to infinity)."""
    exact = Decimal(v)
    exponent = exact.adjusted() if exact else 0
    q = exact.quantize(Decimal(1).scaleb(exponent - digits + 1), rounding=rounding)
    return float(q)


def shortest_between(lo: float, hi: float, toward: str = "hi") -> float:
    """The float64 in the closed interval ``[lo, hi]`` with the fewest significant decimal
    digits; among those, the nearest to ``hi`` (``toward="hi"``) or to ``lo``.

    Parameters
    ----------
    lo, hi : float
        Bounds with ``lo <= hi``; the bound ``toward`` points to must be finite, the other
        may be infinite.
    toward : {"hi", "lo"}

    Returns
    -------
    float
        A value ``v`` with ``lo <= v <= hi`` (the bound ``toward`` points to when no shorter
        value lies between).

    >>> shortest_between(0.5, 0.5000000298023224), shortest_between(1.0000000000000002e308,
    ...                                                           1.7e308, "lo")
    (0.5, 1.1e+308)
    """
    lo, hi = float(lo), float(hi)
    end = hi if toward == "hi" else lo
    rounding = ROUND_FLOOR if toward == "hi" else ROUND_CEILING
    for digits in range(1, 18):
        if _digits(end) <= digits:
            return end
        v = _round(end, digits, rounding)
        if lo <= v <= hi:
            return v
    return end


def float32_below(t: float) -> float:
    """The largest float32 value not above ``t`` (as a float64; ``-inf`` below float32's
    range, float32's largest value above it)."""
    t = float(t)
    with np.errstate(over="ignore"):
        a = np.float32(t)
        if float(a) > t:
            a = np.nextafter(a, np.float32(-np.inf))
    return float(a)


def display_threshold(t: float, input_dtype: str = "float64") -> str:
    """The text of threshold ``t`` in readable rules: the shortest decimal ``d`` such that
    ``v <= d`` exactly when ``v <= t`` for every value ``v`` of ``input_dtype``, and
    ``d <= t`` (so ``d`` itself is on the left side).

    Parameters
    ----------
    t : float
        A finite threshold, as the model stores it (``x <= t`` goes left).
    input_dtype : {"float64", "float32"}
        The precision of the values the model compares (see the module docstring).

    Returns
    -------
    str
        For ``"float64"``, the shortest text that reads back as ``t`` (``26.5``); for
        ``"float32"``, the shortest decimal between the largest float32 value not above
        ``t`` and ``t`` (``0.5000000298023224`` -> ``0.5``).

    >>> display_threshold(0.5000000298023224, "float32"), display_threshold(26.5)
    ('0.5', '26.5')
    >>> display_threshold(0.5000000298023224)
    '0.5000000298023224'
    """
    t = float(t)
    if input_dtype == "float32" and math.isfinite(t):
        return format_number(shortest_between(float32_below(t), t))
    return format_number(t)


def strict_threshold(t: float, input_dtype: str = "float64") -> float | None:
    """The number ``s`` just above threshold ``t`` when the test ``x <= t`` reads better as
    ``x < s``, else ``None``.

    A learner whose tests are ``x < s`` or ``x >= s`` (imodels' rule lists, for example) is
    imported with the float64 ``t`` just below ``s`` (``x < s`` is ``x <= t``); shown as
    such, ``1.4999999999999998 < x`` hides the learner's ``x >= 1.5``. ``s`` is returned when
    ``t`` is the float64 just below ``s`` and ``s`` has at least three significant digits
    fewer; for ``"float32"`` inputs never (their thresholds are shown by
    :func:`display_threshold`).

    >>> strict_threshold(1.4999999999999998), strict_threshold(1.5)
    (1.5, None)
    """
    t = float(t)
    if input_dtype != "float64" or not math.isfinite(t):
        return None
    s = math.nextafter(t, math.inf)
    if math.isfinite(s) and _digits(s) + 3 <= _digits(t):
        return s
    return None


def lower_text(t: float, input_dtype: str = "float64") -> str:
    """The text before a feature's name for the lower bound ``t < x``: ``"t < "``, or
    ``"s <= "`` when ``t`` is the float just below a short ``s`` (:func:`strict_threshold`:
    a learner's ``x >= s``); ``t`` shown by :func:`display_threshold`.

    >>> lower_text(0.5), lower_text(1.4999999999999998)
    ('0.5 < ', '1.5 <= ')
    """
    s = strict_threshold(t, input_dtype)
    return f"{display_threshold(t, input_dtype)} < " if s is None else f"{format_number(s)} <= "


def upper_text(t: float, input_dtype: str = "float64") -> str:
    """The text after a feature's name for the upper bound ``x <= t``: ``" <= t"``, or
    ``" < s"`` when ``t`` is the float just below a short ``s`` (a learner's ``x < s``).

    >>> upper_text(0.5), upper_text(1.4999999999999998)
    (' <= 0.5', ' < 1.5')
    """
    s = strict_threshold(t, input_dtype)
    return f" <= {display_threshold(t, input_dtype)}" if s is None else f" < {format_number(s)}"


def exact_number(value: object) -> Fraction | None:
    """A finite number as an exact fraction, or ``None`` for what is not one (a bool, a
    string, NaN, an infinity).

    Integers (numpy's too), ``Fraction`` and ``Decimal`` are read exactly; a float by the
    shortest decimal of its own precision (``0.1`` is 1/10, and so is a float32 ``0.1``), as
    a user who wrote it meant it."""
    if isinstance(value, bool | np.bool_):
        return None
    if isinstance(value, Integral):
        return Fraction(int(value))
    if isinstance(value, Fraction):
        return value
    if isinstance(value, Decimal):
        return Fraction(value) if value.is_finite() else None
    if isinstance(value, Real):
        if not math.isfinite(float(value)):
            return None
        return Fraction(str(value))
    return None


def integer_scale(values: Sequence[Fraction]) -> tuple[int, ...]:
    """Fractions scaled by one common factor (the least common multiple of their
    denominators) to integers with the same ratios."""
    scale = math.lcm(*(q.denominator for q in values)) if values else 1
    return tuple(int(q * scale) for q in values)
