"""Certificates of optimality for cheapest (minimum-weight) explanations.

A cheapest AXp under feature weights is a minimum-weight hitting set of the CXps; a
cheapest CXp one of the AXps (:func:`xdt.explain.queries.cheapest_axp`,
:func:`~xdt.explain.queries.cheapest_cxp`). The search ends with a family of dual sets
that every explanation of the kind must meet, and a proof by the MaxSAT solver (RC2) that
no hitting set of that family costs less than the explanation. An
:class:`OptimalityCertificate` keeps that family, so a user can re-check the lower bound
without the engines:

* **AXp**: each bound set ``B`` comes with a witness point that agrees with the instance on
  every candidate feature outside ``B`` (the excluded features move freely) and that the
  model predicts another class. So a weak AXp that misses ``B`` would be contradicted by the
  witness: every AXp meets every bound set. Checked with ``model.predict``.
* **CXp**: each bound set ``A`` is a weak AXp given the immutable features: fixing ``A`` and
  the immutable features entails the prediction, so a CXp that misses ``A`` cannot change
  it. Checked by an engine independent of the one that found them (the checks' own CNF,
  :func:`xdt.explain.checks._verify.sat_counterexample`, for trees and DNFs; the other ensemble
  engine for tree ensembles).
* The cheapest hitting set of the bound sets is recomputed without the MaxSAT solver, in
  exact arithmetic (:func:`exact_cheapest`: a branch and bound over fractions; past its
  budget, HiGHS mixed integer programming, :func:`scipy.optimize.milp`, on the integer
  costs, whose answer is then costed exactly), and must cost the stated lower bound, which
  must equal the explanation's cost.

Together with the explanation's own certificate (it is an AXp, a CXp), this proves that no
explanation of its kind costs less **under the terms the certificate states**: its weights,
its excluded or immutable features. The check does not know which terms the user asked
for: compare ``weights``, ``excluded`` and ``immutable`` with them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from xdt.errors import InternalError, XdtError
from xdt.explain._models import Model, predict_one
from xdt.explain.checks._certificates import Witness, _labels, _plain_point, _same, point_values
from xdt.explain.engines._oracle import bits
from xdt.explain.queries._preferences import plain_number
from xdt.ir._instances import encode_instance
from xdt.ir._protocol import PATHS, TREES, offers
from xdt.ir._values import exact_number, to_python


@dataclass(frozen=True)
class OptimalityCertificate:
    """Evidence that an explanation is a cheapest one of its kind (see the module docstring).

    Attributes
    ----------
    kind : {"AXp", "CXp"}
        The kind of the explanation.
    instance : dict
        The explained instance (feature name -> value).
    prediction : str or int
    weights : dict of str to number
        The weight of every feature (1 where none was given).
    cost : int or float
        The explanation's cost: the sum of its features' weights.
    lower_bound : int or float
        The cost of a cheapest hitting set of ``bound_sets`` (by RC2 MaxSAT); equal to
        ``cost``.
    bound_sets : tuple of tuple of str
        Sets of features every explanation of the kind must meet: CXps (for an AXp), weak
        AXps given the immutable features (for a CXp).
    witnesses : tuple of Witness
        For an AXp, one per bound set: a point that agrees with the instance outside the set
        (and outside the excluded features) and is predicted another class. Empty for a CXp.
    excluded : tuple of str
        Features held free (AXp).
    immutable : tuple of str
        Features held fixed (CXp).
    path_restricted : bool
    solver : str
        What proved the bound.
    """

    kind: str
    instance: dict
    prediction: object
    weights: dict
    cost: int | float
    lower_bound: int | float
    bound_sets: tuple[tuple[str, ...], ...]
    witnesses: tuple[Witness, ...] = ()
    excluded: tuple[str, ...] = ()
    immutable: tuple[str, ...] = ()
    path_restricted: bool = False
    solver: str = "RC2 MaxSAT (PySAT), implicit hitting sets"

    @property
    def statement(self) -> str:
        dual = "CXps" if self.kind == "AXp" else "AXps"
        return (f"every {self.kind} meets the {len(self.bound_sets)} {dual} listed; no hitting "
                f"set of them costs less than {self.lower_bound:g} ({self.solver}), the "
                f"cost of this {self.kind}")

    def plan(self, model: Model, explanation, fail, values, cells, path):
        """The checks of this certificate for
        :func:`xdt.explain.checks.check_certificate` (see :func:`plan`)."""
        return plan(model, explanation, self, fail, values, cells, path)

    def to_dict(self) -> dict:
        inst = self.instance
        out = {"kind": self.kind, "cost": self.cost, "lower_bound": self.lower_bound,
               "weights": dict(self.weights), "bound_sets": [list(b) for b in self.bound_sets],
               "excluded": list(self.excluded), "immutable": list(self.immutable),
               "path_restricted": self.path_restricted, "solver": self.solver,
               "statement": self.statement}
        if self.witnesses:
            out["witnesses"] = [
                {"changes": {k: to_python(v) for k, v in w.point.items()
                             if not _same(v, inst.get(k))},
                 "class": to_python(w.label)} for w in self.witnesses]
        return out


def optimality_certificate(model: Model, *, kind: str, values: Sequence, cells: Sequence[int],
                           prediction: int, oracle, exact: dict[int, Fraction], cost: Fraction,
                           lower_bound: Fraction, bounds: Sequence[int], excluded: int = 0,
                           immutable: int = 0, path_restricted: bool = False
                           ) -> OptimalityCertificate:
    """Build the certificate of a cheapest explanation from its search
    (:class:`xdt.explain.queries._duality.Cheapest`).

    ``oracle`` is the restricted oracle the search ran on
    (:class:`~xdt.explain.queries._preferences.RestrictedOracle` or the engine's); ``exact`` the
    weights as fractions, by position; ``bounds`` the dual sets as bit masks; ``excluded``
    and ``immutable`` bit masks."""
    names = model.features.names
    witnesses = []
    if kind == "AXp":
        points = []
        for b in bounds:
            point = oracle.counterexample(oracle.universe & ~b)
            if point is None:  # cannot happen: the search's CXps admit another class
                raise InternalError(f"bound set {bits(b)} of the cheapest AXp's search admits "
                                    "no other class; this is a bug in xdt, please report it")
            points.append(point)
        witnesses = [Witness(point_values(model, values, cells, p), label)
                     for p, label in zip(points, _labels(model, points), strict=True)]
    return OptimalityCertificate(
        kind=kind, instance={n: values[f] for f, n in enumerate(names)},
        prediction=model.classes[prediction],
        weights={names[f]: plain_number(w) for f, w in exact.items()},
        cost=plain_number(cost), lower_bound=plain_number(lower_bound),
        bound_sets=tuple(tuple(names[f] for f in bits(b)) for b in bounds),
        witnesses=tuple(witnesses), excluded=tuple(names[f] for f in bits(excluded)),
        immutable=tuple(names[f] for f in bits(immutable)), path_restricted=path_restricted)


def plan(model: Model, explanation, cert: OptimalityCertificate, fail, values, cells, path):
    """The checks of an optimality certificate (see :func:`xdt.explain.checks._certificates._plan`):
    ``(points, claims, proof_check)``; raises ``fail(reason)`` for what needs no
    prediction."""
    names = model.features.names
    target = explanation.prediction
    if cert.kind != explanation.kind:
        raise fail(f"an optimality certificate of a {cert.kind} on a {explanation.kind}")
    if set(cert.weights) != set(names):
        raise fail("the optimality certificate does not weigh every feature")
    weight = {}
    for n, w in cert.weights.items():
        q = exact_number(w) if isinstance(w, int | float) else None
        if q is None or q <= 0:
            raise fail(f"the optimality certificate weighs {n!r} {w!r}, not a positive finite "
                       "number")
        weight[n] = q
    cost = sum((weight[n] for n in explanation.features), Fraction(0))
    for what, stated in (("the certificate's cost", cert.cost),
                         ("its lower bound", cert.lower_bound)):
        if isinstance(stated, bool) or not isinstance(stated, int | float):
            raise fail(f"{what} {stated!r} is not a number")
    if plain_number(cost) != cert.cost:
        raise fail(f"the explanation's features cost {plain_number(cost)!r} under the "
                   f"certificate's weights, not the stated {cert.cost!r}")
    if explanation.cost is not None and explanation.cost != cert.cost:
        raise fail(f"the explanation says it costs {explanation.cost!r}, its optimality "
                   f"certificate {cert.cost!r}")
    if explanation.cost is None and any(q != 1 for q in weight.values()):
        raise fail("the explanation has no cost, but its optimality certificate weighs "
                   "features other than 1")
    if cert.lower_bound != cert.cost:
        raise fail(f"the lower bound {cert.lower_bound} is not the cost {cert.cost}: "
                   "optimality is not proven")
    banned = set(cert.excluded if cert.kind == "AXp" else cert.immutable)
    if banned & set(explanation.features):
        raise fail(f"the explanation uses {sorted(banned & set(explanation.features))}, which "
                   f"{'were excluded' if cert.kind == 'AXp' else 'are immutable'}")
    for b in cert.bound_sets:
        if not b or not set(b) <= set(names) or set(b) & banned:
            raise fail(f"bound set {list(b)} is empty, names an unknown feature, or holds "
                       "a feature it may not")
    if cert.path_restricted != explanation.path_restricted:
        raise fail("the optimality certificate and the explanation differ in path_restricted")
    n = len(names)
    if explanation.path_restricted:
        allowed = {f: path.masks[f] for f in path.masks}
    else:
        allowed = {f: 1 << cells[f] for f in range(n)}
    points: list[dict] = []
    claims = []
    constraints = getattr(model, "constraints", None)
    if cert.kind == "AXp":
        if len(cert.witnesses) != len(cert.bound_sets):
            raise fail("the optimality certificate needs one witness per bound set")
        for b, w in zip(cert.bound_sets, cert.witnesses, strict=True):
            free = {names.index(x) for x in b} | {names.index(x) for x in cert.excluded}
            if set(w.point) != set(names):
                raise fail("an optimality witness does not give every feature")
            try:
                row, at = encode_instance(model.features, model.cells, w.point)
            except XdtError as e:
                raise fail(f"the witness of bound set {list(b)} is no point of the model: "
                           f"{e}") from None
            broken = constraints.violated(row, at) if constraints else None
            if broken is not None:  # a point the constraints exclude proves nothing
                raise fail(f"the witness of bound set {list(b)} violates the background "
                           f"constraint {str(broken)!r}")
            for f, m in allowed.items():
                if f not in free and not (m >> at[f]) & 1:
                    raise fail(f"the witness of bound set {list(b)} moves {names[f]}, which "
                               "is outside the set")
            points.append(w.point)
            claims.append(_other_class_claim(target, w, b))
    elif cert.witnesses:
        raise fail("a CXp's optimality certificate has no witnesses")

    def proof_check() -> None:
        if cert.kind == "CXp":
            fixed = {names.index(x) for x in cert.immutable}
            for a in cert.bound_sets:
                held = {f: allowed[f] for f in fixed | {names.index(x) for x in a}
                        if f in allowed}
                point, checker = _other_class_in(model, held, cells)
                if point is not None:
                    raise fail(f"bound set {list(a)} with the immutable features does not "
                               f"entail the prediction: {checker} finds "
                               f"{_plain_point(point_values(model, values, cells, point))}")
        best, how = exact_cheapest([[names.index(x) for x in b] for b in cert.bound_sets],
                                   [weight[x] for x in names])
        if best != cost:
            raise fail(f"a cheapest hitting set of the bound sets costs {best} ({how}), not "
                       f"the explanation's {cost} (the stated lower bound "
                       f"{cert.lower_bound!r})")

    return points, claims, proof_check


def _other_class_claim(target, w: Witness, b):
    def claim(pred) -> str | None:
        if _same(pred, target):
            return (f"model.predict gives the explained class for the witness of bound set "
                    f"{list(b)}")
        if not _same(pred, w.label):
            return (f"model.predict gives {to_python(pred)!r} for the witness of bound set "
                    f"{list(b)}, not the stated {w.label!r}")
        return None
    return claim


def _other_class_in(model: Model, held: dict[int, int], cells: Sequence[int]):
    """A point of another class than the instance's inside ``held``, by an engine that did
    not find the bound sets, and its name."""
    from xdt.explain.checks._certificates import _ensemble_box_check, _ensemble_other_engine

    if offers(model, TREES):  # the box engine does not know constraints
        point, checker = (None, None) if model.constraints else \
            _ensemble_other_engine(model, held, cells, "box")
        if checker is None:
            point, checker = _ensemble_box_check(model, held, cells)
        return point, checker
    from xdt.explain.checks._verify import sat_counterexample

    label = model.classes[predict_one(model, cells)]
    return (sat_counterexample(model, held, label),
            "the checks' own CNF of the " + ("tree" if offers(model, PATHS) else "DNF"))


EXACT_BUDGET = 200_000
"""Nodes the exact branch and bound of :func:`exact_cheapest` may visit before HiGHS takes
over."""


class _OverBudget(Exception):
    pass


def exact_cheapest(sets: list[list[int]], weight: list[Fraction],
                   budget: int = EXACT_BUDGET) -> tuple[Fraction, str]:
    """The cost of a cheapest hitting set of ``sets`` (feature positions) under the exact
    ``weight`` of each position, and what computed it.

    A branch and bound in exact arithmetic, independent of the MaxSAT solver: take the
    first set not hit yet and branch on its elements, the ``i``-th branch taking element
    ``i`` and leaving out the elements before it (every hitting set is found once), cutting
    any branch that costs as much as the best found. Past ``budget`` nodes, HiGHS mixed
    integer programming (:func:`scipy.optimize.milp`) on the integer-scaled costs; its
    set is costed exactly (an inexact HiGHS optimum can only make the check fail, never
    pass)."""
    if not sets:
        return Fraction(0), "no set to hit"
    family = [frozenset(s) for s in sets]
    best = [sum((weight[f] for s in family for f in s), Fraction(1))]
    nodes = [0]

    def go(chosen: frozenset, banned: frozenset, cost: Fraction) -> None:
        nodes[0] += 1
        if nodes[0] > budget:
            raise _OverBudget
        if cost >= best[0]:
            return
        unhit = next((s for s in family if not s & chosen), None)
        if unhit is None:
            best[0] = cost
            return
        order = sorted(unhit - banned, key=lambda f: (weight[f], f))
        for i, f in enumerate(order):
            go(chosen | {f}, banned | frozenset(order[:i]), cost + weight[f])

    try:
        go(frozenset(), frozenset(), Fraction(0))
        return best[0], "exact branch and bound"
    except _OverBudget:
        return _milp_cheapest([list(s) for s in family], weight), \
            "HiGHS, scipy.optimize.milp"


def _milp_cheapest(sets: list[list[int]], weight: list[Fraction]) -> Fraction:
    """The exact cost of the hitting set of ``sets`` that HiGHS mixed integer programming
    finds cheapest, on the weights scaled to integers (in double precision: past 2**53 they
    are rounded, so the set may not be the cheapest, which makes the check fail, not pass)."""
    from scipy.optimize import Bounds, LinearConstraint, milp

    scale = int(np.lcm.reduce([q.denominator for q in weight])) if weight else 1
    c = np.array([float(q * scale) for q in weight])
    a = np.zeros((len(sets), len(weight)))
    for i, s in enumerate(sets):
        a[i, s] = 1.0
    res = milp(c, constraints=LinearConstraint(a, lb=1.0), integrality=np.ones(len(weight)),
               bounds=Bounds(0, 1), options={"mip_rel_gap": 0.0})
    if res.x is None:
        raise InternalError(f"HiGHS found no hitting set of the bound sets, which always have "
                            f"one: {res.message}")
    chosen = [f for f, v in enumerate(res.x) if v > 0.5]
    if not all(any(f in s for f in chosen) for s in sets):
        raise InternalError("HiGHS returned a set that does not hit every bound set")
    return sum((weight[f] for f in chosen), Fraction(0))
