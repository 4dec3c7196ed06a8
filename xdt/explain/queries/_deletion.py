"""One AXp and one CXp of an instance by deletion, and the checks of a given set of features.

The queries of one instance (:class:`~xdt.explain.engines._instance_oracle.InstanceQuery`)
that need no enumeration, over the algorithms of :mod:`xdt.explain.queries._duality`:

* :func:`one_axp` / :func:`one_cxp` — deletion in an order (:func:`deletion_order`: the
  model's own by default, the instance's path for a tree, a true term for a DNF, the firing
  rule for a decision list, :mod:`xdt.explain.queries._term_order`); for the SAT engine the
  deletion starts from the weak AXp that order ends with (:func:`weak_start`);
* :func:`is_weak_axp`, :func:`is_axp`, :func:`is_cxp` — the definitions, checked with the
  oracle (Izza, Ignatiev & Marques-Silva, "On Explaining Decision Trees", Section 2);
* :func:`relevant` and :func:`necessary` — the features in some AXp (those in some CXp) and
  in every AXp (the CXps of one feature), by duality;
* :func:`path_is_redundant` — whether some literal of the instance's path can be dropped.

The checks poll the active deadline (:mod:`xdt.explain.engines._deadline`) between oracle
calls, and :func:`relevant` passes it to its enumeration.

Feature sets are ``int`` bit masks (bit ``i`` = feature ``i``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from xdt.errors import ParameterError
from xdt.explain._models import Model, tree_only
from xdt.explain.engines._compiled import CompiledTree
from xdt.explain.engines._deadline import check, expired
from xdt.explain.engines._instance_oracle import InstanceQuery
from xdt.explain.engines._oracle import EntailmentOracle, bits
from xdt.explain.queries import _duality as duality
from xdt.explain.queries._term_order import ending_with, term_weak_axp

ORDERS = ("features", "reverse", "path", "term")
"""The deletion orders named by a string (:func:`deletion_order`)."""


def deletion_order(model: Model, q: InstanceQuery, order, engine: str,
                   tables: Callable[[], CompiledTree]) -> list[int]:
    """The feature positions in the order deletion tries them.

    ``order``: ``None`` (the model's own: ``"path"`` for a model with paths, else
    ``"term"``), one of :data:`ORDERS` or a sequence of feature names. ``tables()`` gives a
    tree's compiled tables, which keep the path order of the path engine.

    Raises
    ------
    ParameterError
        For an unknown order.
    EngineNotAvailableError
        For ``"path"`` on a model without paths.
    UnknownFeatureError
        For a name the model lacks.
    """
    n = len(model.features)
    if order is None:  # the model's own: its path for a tree, a true term for a DNF
        order = "path" if q.path is not None else "term"
    if isinstance(order, str):
        if order == "features":
            return list(range(n))
        if order == "reverse":
            return list(reversed(range(n)))
        if order == "path":
            if q.path is None:
                raise tree_only("order='path'", "use order='term' (the default for DNFs "
                                "and decision lists)",
                                model)
            if engine == "path":  # the compiled tree keeps it per path
                return tables().path_order(q.path.index)
            on_path = list(q.path.features)
            return [f for f in range(n) if f not in q.path.masks] + on_path
        if order == "term":
            if "term" not in q.memo:
                last = term_weak_axp(model, q.cells, q.prediction, q.allowed)
                q.memo["term_last"] = last
                q.memo["term"] = ending_with(n, last)
            return list(q.memo["term"])
        raise ParameterError(
            f"unknown order {order!r}; use one of {', '.join(map(repr, ORDERS))} or a "
            "sequence of feature names")
    if not isinstance(order, Iterable):
        raise ParameterError(
            f"order must be one of {', '.join(map(repr, ORDERS))} or a sequence of feature "
            f"names, got {order!r}")
    return [model.features.index(name) for name in order]


def weak_start(q: InstanceQuery, order, oracle: EntailmentOracle, engine: str) -> int | None:
    """For the SAT engine and the model's own order, the weak AXp that order ends with
    (the instance's path, a true term, the features that keep a decision list's firing
    rule first): deletion from it drops exactly the features that deletion from all of
    them would (each feature before it is removable while it stays), with one SAT call
    per feature of it instead of one per feature. ``None`` (start from every candidate)
    otherwise, or when the oracle does not confirm that it entails."""
    if engine != "sat" or (order is not None and order not in ("path", "term")):
        return None
    if order is None:
        order = "path" if q.path is not None else "term"
    if order == "path":
        if q.path is None:
            return None
        last = list(q.path.features)
    else:
        last = q.memo.get("term_last")
    if not last:
        return None
    start = 0
    for f in last:
        start |= 1 << f
    if start & ~oracle.universe or start == oracle.universe:
        return None
    return start if oracle.entails(start) else None


def one_axp(model: Model, q: InstanceQuery, oracle: EntailmentOracle, order, engine: str,
            tables: Callable[[], CompiledTree], stop: duality.Stop = None) -> int:
    """One AXp of ``oracle`` (the instance's, or one restricted by the user's terms) by
    deletion in ``order`` (:func:`deletion_order`); ``stop`` (e.g. a deadline) is polled
    between oracle calls (:func:`~xdt.explain.queries.deletion_axp`)."""
    seq = deletion_order(model, q, order, engine, tables)
    return duality.deletion_axp(oracle, seq, start=weak_start(q, order, oracle, engine),
                                stop=stop)


def one_cxp(model: Model, q: InstanceQuery, oracle: EntailmentOracle, order, engine: str,
            tables: Callable[[], CompiledTree], stop: duality.Stop = None) -> int | None:
    """One CXp of ``oracle`` by deletion in ``order``, or ``None`` when freeing every
    candidate feature cannot change the prediction; ``stop`` as in :func:`one_axp`."""
    return duality.deletion_cxp(oracle, deletion_order(model, q, order, engine, tables),
                                stop=stop)


def is_weak_axp(oracle: EntailmentOracle, mask: int) -> bool:
    """Whether fixing ``mask`` entails the prediction."""
    check()
    return oracle.entails(mask)


def is_axp(oracle: EntailmentOracle, mask: int) -> bool:
    """Whether ``mask`` is a weak AXp none of whose features can be dropped; the active
    deadline (:mod:`xdt.explain.engines._deadline`) is polled before each oracle call, as in
    every function below."""
    check()
    if not oracle.entails(mask):
        return False
    for i in bits(mask):
        check()
        if oracle.entails(mask & ~(1 << i)):
            return False
    return True


def is_cxp(oracle: EntailmentOracle, mask: int) -> bool:
    """Whether freeing ``mask`` can change the prediction and freeing any proper subset of it
    cannot (``False`` for a mask outside the candidate features)."""
    u = oracle.universe
    if mask & ~u:
        return False
    check()
    if oracle.entails(u & ~mask):
        return False
    for i in bits(mask):
        check()
        if not oracle.entails(u & ~(mask & ~(1 << i))):
            return False
    return True


def path_is_redundant(oracle: EntailmentOracle) -> bool:
    """Whether some candidate feature can be freed and the rest still entail the prediction:
    for the path-restricted oracle, whether the instance's path is explanation-redundant."""
    u = oracle.universe
    for i in bits(u):
        check()
        if oracle.entails(u & ~(1 << i)):
            return True
    return False


def relevant(oracle: EntailmentOracle) -> int:
    """The features in some AXp: the union of the CXps (duality), enumerated under the
    active deadline (the enumeration raises
    :class:`~xdt.explain.engines._deadline.EnumerationStopped` when it passes: a union of
    the CXps found so far would not be known to be the whole)."""
    check()
    union = 0
    for m in duality.enumerate_cxps(oracle, stop=expired):
        check()
        union |= m
    return union


def necessary(oracle: EntailmentOracle) -> list[int]:
    """The features in every AXp, as one-feature masks in feature order: the CXps of one
    feature, i.e. the candidate features whose freeing alone lets the prediction change
    (from the CXps of an engine that lists them at once, else one oracle call each: no
    enumeration)."""
    check()
    listed = oracle.all_cxps()
    if listed is not None:
        return by_size([m for m in listed if m.bit_count() == 1])
    u = oracle.universe
    found = []
    for f in bits(u):
        check()
        if not oracle.entails(u & ~(1 << f)):
            found.append(1 << f)
    return found


def by_size(masks: Iterable[int]) -> list[int]:
    """``masks`` smallest first, then by their features' positions."""
    return sorted(masks, key=lambda m: (m.bit_count(), bits(m)))
