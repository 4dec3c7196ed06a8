"""How :class:`~xdt.explain.Explainer` turns what a query found into its answers:
the :class:`~xdt.explain.Explanation` of a feature set with its certificate wired
to be built on first access, the optimality certificate of a smallest or cheapest one, and
the :class:`~xdt.explain.ExplanationList` of an enumeration.

The certificate makers come in as arguments (the ``Explainer`` passes those of
:mod:`xdt.explain.checks._certificates`), so that this module holds no engine's choice.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from xdt.explain._explanation import (
    Deferred,
    EnumerationInterrupted,
    Explanation,
    ExplanationList,
    explanation_of,
    once,
)
from xdt.explain._models import Model, point_values, predict_one
from xdt.explain.engines._instance_oracle import InstanceQuery, open_oracle
from xdt.explain.engines._oracle import bits
from xdt.explain.queries import _smallest as smallest
from xdt.explain.queries._enumeration import Enumerated
from xdt.explain.queries._inflate import Inflation


def explanation(model: Model, literals: dict[tuple[int, int], str], q: InstanceQuery,
                mask: int, kind: str, inflation: Inflation | None, certify: bool,
                cost: object, optimality: object, *, engine: str, solver: str,
                axp_certificate: Callable[..., object],
                cxp_certificate: Callable[..., object]) -> Explanation:
    """The Explanation (kind ``"AXp"`` or ``"CXp"``) of the feature set ``mask`` (bit mask
    of feature positions) of the instance ``q``, with its certificate if ``certify``.

    The witness points and the certificate are made on first access, with the instance's
    oracle (for the SAT engine, a new one if the explainer's ``close()`` has closed it):
    an AXp's by ``axp_certificate``, a CXp's counterexample, its class and certificate (by
    ``cxp_certificate``) at once by :func:`witness`."""
    feats = bits(mask)
    cx: object = None
    cx_class: object = None
    cert: object = None
    if kind == "CXp":
        masks = tuple([1 << q.cells[f] for f in feats])
        found = once(partial(witness, model, q, mask, certify, cxp_certificate))
        cx = Deferred(found, "counterexample")
        cx_class = Deferred(found, "counterexample_class")
        cert = Deferred(found, "certificate")
    else:
        held = inflation.held if inflation is not None else {f: q.allowed[f] for f in feats}
        masks = tuple([held[f] for f in feats])
        if certify:
            cert = Deferred(partial(
                _axp_certificate, axp_certificate, model, q, mask, held, inflation, engine,
                solver))
    return explanation_of(model, literals, kind, feats, masks, q.values, q.prediction,
                          q.path_restricted, cx, cx_class, cert, inflation is not None, cost,
                          optimality)


def _axp_certificate(make: Callable[..., object], model: Model, q: InstanceQuery, mask: int,
                     held: dict[int, int], inflation: Inflation | None, engine: str,
                     solver: str) -> object:
    return make(
        model, open_oracle(q.oracle), values=q.values, cells=q.cells,
        prediction=q.prediction, allowed=q.allowed, mask=mask, held=held, engine=engine,
        solver=solver if engine == "sat" else None, path_restricted=q.path_restricted,
        rejected=inflation.rejected if inflation is not None else None)


def witness(model: Model, q: InstanceQuery, mask: int, certify: bool,
            cxp_certificate: Callable[..., object]) -> dict:
    """A CXp's counterexample (a point changing only the CXp's features, predicted
    another class), its class, and its certificate if ``certify``, by key."""
    oracle = open_oracle(q.oracle)
    point = oracle.counterexample(oracle.universe & ~mask)
    if point is None:
        return {"counterexample": None, "counterexample_class": None, "certificate": None}
    cx = point_values(model, q.values, q.cells, point)
    cx_class = model.classes[predict_one(model, point)]
    cert = None if not certify else cxp_certificate(
        model, values=q.values, prediction=q.prediction, witness=cx,
        witness_class=cx_class, path_restricted=q.path_restricted)
    return {"counterexample": cx, "counterexample_class": cx_class, "certificate": cert}


def optimality(model: Model, q: InstanceQuery, kind: str, found: smallest.Smallest) -> object:
    """The :class:`~xdt.explain.checks.OptimalityCertificate` of a smallest or
    cheapest explanation ``found`` (kind ``"AXp"`` or ``"CXp"``)."""
    from xdt.explain.checks._optimality import optimality_certificate

    proof = smallest.optimality_proof(kind, found, len(model.features))
    return optimality_certificate(
        model, kind=kind, values=q.values, cells=q.cells, prediction=q.prediction,
        path_restricted=q.path_restricted, **proof._asdict())


def listed(done: Enumerated) -> ExplanationList:
    """The ExplanationList of an enumeration that ended; raises
    :class:`~xdt.explain.EnumerationInterrupted` (holding the list) when Ctrl-C
    ended it."""
    found = ExplanationList(done.found, complete=done.stopped_by is None,
                            stopped_by=done.stopped_by)
    if done.stopped_by == "interrupted":
        raise EnumerationInterrupted(found)
    return found
