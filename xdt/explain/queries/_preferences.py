"""The user's terms on features: excluded, immutable and weighted features.

Audits ask for explanations under conditions the plain AXp/CXp menu does not know:

* **excluded** features may not appear in an AXp ("explain without race or sex"): they are
  held free. The AXps avoiding a set ``E`` of features are exactly the AXps of the model
  that do not meet ``E`` (a subset of such an AXp avoids ``E`` too), so nothing about their
  certificates changes; they exist if and only if fixing every feature outside ``E``
  entails the prediction.
* **immutable** features may not change in a CXp ("leave age alone"): they are held fixed,
  and a CXp is a subset-minimal set of the *other* features whose change can change the
  prediction — an actionable CXp. These are exactly the CXps of the model that do not meet
  the immutable set ``I``; their counterexamples keep ``I`` at the instance's values.
* **weights** give each feature a positive cost (checking it, changing it); the cost of an
  explanation is the sum of its features' weights. A cheapest AXp is a minimum-weight
  hitting set of the CXps, a cheapest CXp a minimum-weight hitting set of the AXps
  (hitting-set duality, Ignatiev, Narodytska, Asher & Marques-Silva, "From Contrastive to
  Abductive Explanations and Back Again", AIxIA 2020), computed by
  :mod:`xdt.explain.queries._duality` with PySAT's RC2 MaxSAT solver.

:class:`RestrictedOracle` puts excluded and immutable features in front of any engine's
:class:`~xdt.explain.engines.EntailmentOracle`, so every algorithm of
:mod:`xdt.explain.queries._duality` runs unchanged on both engines; :func:`restricted` makes it
for an instance from the user's names, and :func:`axp_oracle` refuses, with a point that
shows why, an exclusion that no AXp avoids. :func:`feature_weights` reads a
user's weights into the exact integers the MaxSAT solver needs.

These are xdt's extensions of the papers' definitions, in the spirit of PyXAI's excluded
features and preferred reasons (Audemard, Bellart, Bounia, Koriche, Lagniez & Marquis,
"On Preferred Abductive Explanations for Decision Trees and Random Forests", IJCAI 2022).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction
from numbers import Real
from typing import TYPE_CHECKING

from xdt.errors import NoExplanationError, ParameterError, UnknownFeatureError
from xdt.explain._models import Model, point_values, predict_one
from xdt.explain.engines._oracle import EntailmentOracle, bits
from xdt.ir._features import FeatureSpace
from xdt.ir._values import exact_number, integer_scale, to_python

if TYPE_CHECKING:
    from xdt.explain.engines._instance_oracle import InstanceQuery


def _index(features: FeatureSpace, name: object, what: str) -> int:
    try:
        return features.index(name)  # type: ignore[arg-type]
    except UnknownFeatureError as e:
        raise UnknownFeatureError(f"{what}: {e}") from None


def feature_mask(features: FeatureSpace, names: Iterable[str] | str | None, what: str) -> int:
    """The bit mask of the features named in ``names`` (``None``: none).

    Raises
    ------
    UnknownFeatureError
        For a name the model lacks (the message names ``what``, e.g. ``"exclude"``).
    """
    if names is None:
        return 0
    if isinstance(names, str):
        names = [names]
    if isinstance(names, bytes | bytearray) or not isinstance(names, Iterable):
        raise ParameterError(
            f"{what} takes feature names (a list of strings, or one string), got "
            f"{type(names).__name__} {names!r}")
    mask = 0
    for name in names:
        mask |= 1 << _index(features, name, what)
    return mask


class RestrictedOracle(EntailmentOracle):
    """An instance's oracle with excluded features held free and immutable ones held fixed.

    Parameters
    ----------
    inner : EntailmentOracle
        The engine's oracle for the instance.
    free : int
        Bit mask of excluded features: never candidates, always free.
    fixed : int
        Bit mask of immutable features: never candidates, always fixed (to ``allowed``).
    allowed : sequence of int
        Per feature, the cells a fixed feature is held to (the instance's cell, or the
        path's literal), as given to ``inner``.

    Notes
    -----
    The candidate features (:attr:`universe`) are those of ``inner`` less both sets. Its
    AXps are the AXps of ``inner`` that avoid ``free`` (when ``fixed`` is empty), and its
    CXps the CXps of ``inner`` that avoid ``fixed`` (when ``free`` is empty).
    """

    def __init__(self, inner: EntailmentOracle, free: int = 0, fixed: int = 0,
                 allowed: tuple[int, ...] = ()):
        if free & fixed:
            raise ParameterError("a feature cannot be both excluded (held free) and immutable "
                                 "(held fixed)")
        self.inner = inner
        self.free = free & inner.universe
        self.fixed = fixed & inner.universe
        self.allowed = tuple(allowed)
        self.universe = inner.universe & ~free & ~fixed

    def _fixing(self, fixed: int) -> int:
        return (fixed & ~self.free) | self.fixed

    def entails(self, fixed: int) -> bool:
        return self.inner.entails(self._fixing(fixed))

    def counterexample(self, fixed: int) -> tuple[int, ...] | None:
        return self.inner.counterexample(self._fixing(fixed))

    def counterexample_cells(self, held: dict[int, int]) -> tuple[int, ...] | None:
        held = {f: m for f, m in held.items() if not (self.free >> f) & 1}
        for f in bits(self.fixed):
            held.setdefault(f, self.allowed[f])
        return self.inner.counterexample_cells(held)

    def deletion(self, start: int, order) -> int | None:
        # the engine's one-step deletion treats every feature outside ``start`` as free:
        # right for excluded features, wrong for immutable ones
        return None if self.fixed else self.inner.deletion(start & ~self.free, order)

    def all_cxps(self) -> list[int] | None:
        cxps = self.inner.all_cxps()
        if cxps is None:
            return None
        if self.fixed:
            cxps = [c for c in cxps if not c & self.fixed]
        if self.free:
            cut = {c & ~self.free for c in cxps}
            cxps = [c for c in cut if not any(d != c and d & c == d for d in cut)]
        return cxps


def names_mask(features: FeatureSpace, names: Iterable[str] | str) -> int:
    """The bit mask of the features named in ``names`` (one name, or several; an
    Explanation gives its features). Raises :class:`UnknownFeatureError` for a name the model
    lacks."""
    if isinstance(names, str):
        names = [names]
    m = 0
    for name in names:
        m |= 1 << features.index(name)
    return m


def restricted(features: FeatureSpace, q: InstanceQuery, exclude: Iterable[str] | None = None,
               immutable: Iterable[str] | None = None) -> EntailmentOracle:
    """The instance's oracle with ``exclude`` held free and ``immutable`` held fixed
    (:class:`RestrictedOracle`); the oracle itself when both are empty.

    Raises
    ------
    ParameterError
        For immutable features of a path-restricted query.
    UnknownFeatureError
        For a name the model lacks.
    """
    free = feature_mask(features, exclude, "exclude")
    fixed = feature_mask(features, immutable, "immutable")
    if fixed and q.path_restricted:
        raise ParameterError(
            "immutable features with path_restricted=True: path-restricted explanations "
            "leave the features off the instance's path free to move, so an immutable "
            "one could change; leave out path_restricted (immutable CXps keep every "
            "immutable feature at the instance's value)")
    if not free and not fixed:
        return q.oracle
    return RestrictedOracle(q.oracle, free, fixed, q.allowed)


def axp_oracle(model: Model, q: InstanceQuery, exclude: Iterable[str] | None
               ) -> EntailmentOracle:
    """The oracle of AXps avoiding ``exclude``; raises :class:`~xdt.errors.NoExplanationError`
    when there is none (with the point, changing excluded features only, that the model
    predicts another class)."""
    oracle = restricted(model.features, q, exclude=exclude)
    if isinstance(oracle, RestrictedOracle):
        point = oracle.counterexample(oracle.universe)
        if point is not None:
            names = model.features.names
            cx = point_values(model, q.values, q.cells, point)
            label = model.classes[predict_one(model, point)]
            held = [names[f] for f in bits(oracle.free)]
            moved = ", ".join(f"{n} = {to_python(cx[n])!r}" for f, n in enumerate(names)
                              if point[f] != q.cells[f])
            others = ("every other feature of the path held to its literal"
                      if q.path_restricted else "every other feature fixed")
            raise NoExplanationError(
                f"no AXp of the prediction {model.classes[q.prediction]!r} avoids "
                f"{', '.join(held)}: with {others}, the model predicts "
                f"{to_python(label)!r} when {moved}; exclude fewer features (changing "
                "excluded features alone can change the prediction)", cx, label)
    return oracle


def feature_weights(features: FeatureSpace, weights: Mapping[str, Real] | None,
                    ) -> tuple[dict[int, int], dict[int, Fraction]] | None:
    """A user's feature weights as exact integers for the MaxSAT solver.

    Parameters
    ----------
    features : FeatureSpace
        The model's features.
    weights : mapping of str to positive number, or None
        Feature name -> cost (a pandas Series by name works too). Features not named weigh
        1. Integers (numpy's too), ``Fraction`` and ``Decimal`` are read exactly, floats by
        their shortest decimal form (``0.1`` is one tenth; a float32 ``0.1`` too), and all
        weights are scaled by one common factor to integers, so costs are compared exactly.
        The scaled integers must stay below 2**63 (:data:`MAX_SCALED`).

    Returns
    -------
    (scaled, exact) or None
        ``scaled``: feature position -> positive int (same ratios as the weights);
        ``exact``: feature position -> the weight as a Fraction. ``None`` for ``None``.

    Raises
    ------
    ParameterError
        For a weight that is not a positive finite number (a zero weight would make a
        cheapest hitting set non-minimal), or weights whose ratio or decimal digits need
        integers of 2**63 or more.
    UnknownFeatureError
        For a name the model lacks.
    """
    if weights is None:
        return None
    if not isinstance(weights, Mapping) and not hasattr(weights, "items"):
        raise ParameterError(
            f"weights must map feature names to positive numbers (a dict or a pandas Series), "
            f"got {type(weights).__name__}")
    exact = {f: Fraction(1) for f in range(len(features))}
    for name, w in weights.items():
        f = _index(features, name, "weights")
        q = exact_number(w)
        if q is None or q <= 0:
            raise ParameterError(
                f"the weight of {name!r} must be a positive finite number, got {w!r}")
        exact[f] = q
    scaled = dict(zip(exact, integer_scale(list(exact.values())), strict=True))
    if max(scaled.values(), default=1) >= MAX_SCALED:
        raise ParameterError(
            "the weights span too wide a range (or carry too many decimal digits) to be "
            f"compared exactly: as integers of one scale they reach {max(scaled.values()):.3g}"
            " (2**53 at most); round them, or give them a narrower range")
    return scaled, exact


MAX_SCALED = 2 ** 63
"""Bound on the weights as integers of one common scale (the MaxSAT solver's costs are
exact integers; the optimality check recomputes them in exact fractions)."""


def cost_of(mask: int, exact: Mapping[int, Fraction]) -> Fraction:
    """The exact cost of the feature set ``mask``: the sum of its weights."""
    return sum((exact[f] for f in bits(mask)), Fraction(0))


def plain_number(q: Fraction) -> int | float:
    """A cost as a plain number: an int when whole, else the nearest float."""
    return int(q) if q.denominator == 1 else float(q)
