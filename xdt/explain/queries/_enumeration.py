"""All AXps or all CXps of an instance, under a count and a time limit.

:func:`enumerate_explanations` runs an enumeration of :mod:`xdt.explain.queries._duality`
(hitting-set duality, or the CXps the path-walker lists at once; smallest first, or cheapest
first under weights with RC2 MaxSAT) and keeps what a long enumeration needs:

* a count (``max_count``): once reached, one more step tells whether the list is complete;
* a time limit (seconds or a shared :class:`~xdt.explain.queries.Deadline`), polled
  between the oracle's calls inside the search, and made the active deadline that the
  engines poll inside their own calls (:mod:`xdt.explain.engines._deadline`);
* the caller's ``build`` of each explanation as it is found, so the limit covers it, and
  with ``verify`` its ``recheck`` in batches while the search goes on: the search stops once
  the time left only covers checking, at the pace of the last batch, what was found;
* a progress bar (tqdm) and an ``on_found`` callback;
* Ctrl-C: the explanations found so far are kept, marked ``"interrupted"``.

It knows the explanations only through ``build`` and ``recheck``, so the caller decides
what an explanation is and how it is checked.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import NamedTuple, TypeVar

from tqdm import tqdm

from xdt.errors import ParameterError
from xdt.explain.engines import _deadline
from xdt.explain.engines._oracle import EntailmentOracle, bits
from xdt.explain.queries import _duality as duality
from xdt.explain.queries._deletion import by_size
from xdt.explain.queries._preferences import cost_of, feature_weights, plain_number
from xdt.ir._features import FeatureSpace

ENUMERATION_ORDERS = ("size", "weight")
"""Orders of an enumeration: smallest first, or cheapest first under the ``weights``
given."""

T = TypeVar("T")


def check_limits(max_count: object, time_limit: object) -> None:
    """Raise :class:`~xdt.errors.ParameterError` unless ``max_count`` is a positive integer
    or ``None`` and ``time_limit`` a positive finite number of seconds, a
    :class:`~xdt.explain.queries.Deadline` or ``None``."""
    if max_count is not None and (isinstance(max_count, bool) or not isinstance(max_count, int)
                                  or max_count < 1):
        raise ParameterError(
            f"max_count must be a positive integer or None, got {max_count!r}")
    _deadline.check_time_limit(time_limit)


as_deadline = _deadline.as_deadline
"""``time_limit`` as a deadline (:func:`xdt.explain.engines._deadline.as_deadline`), for the
queries that read it from here."""


def enumeration_weights(features: FeatureSpace, weights: Mapping[str, float] | None,
                        order: str | None) -> tuple[tuple | None, bool]:
    """The weights read (:func:`~xdt.explain.queries._preferences.feature_weights`) and whether
    the enumeration goes by weight (``order``: one of :data:`ENUMERATION_ORDERS`; ``None``:
    ``"weight"`` when ``weights`` is given, else ``"size"``).

    Raises :class:`~xdt.errors.ParameterError` for an unknown order or a bad weight."""
    if order is None:
        order = "weight" if weights is not None else "size"
    if order not in ENUMERATION_ORDERS:
        raise ParameterError(
            f"unknown order {order!r}; use one of "
            f"{', '.join(map(repr, ENUMERATION_ORDERS))}")
    return feature_weights(features, weights), order == "weight"


class _NoBar:
    """Stands for a progress bar when none is shown (making a disabled tqdm costs more
    than a small enumeration)."""

    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


_NO_BAR = _NoBar()


class Enumerated(NamedTuple):
    """The explanations an enumeration found, and how it ended.

    Attributes
    ----------
    found : list
        What ``build`` made of each explanation found (re-checked ones replaced by what
        ``recheck`` gave), smallest first, or cheapest first when enumerated by weight.
    stopped_by : {None, "max_count", "time_limit", "interrupted"}
        ``None`` when the enumeration ran to its end.
    """

    found: list
    stopped_by: str | None


def enumerate_explanations(kind: str, oracle: EntailmentOracle, *, max_count: int | None,
                           time_limit: float | duality.Deadline | None, progress: bool,
                           verify: bool, on_found: Callable[[int, T], None] | None,
                           build: Callable[[int, object], T],
                           recheck: Callable[[list[T]], list[T]],
                           batches: tuple[int, int],
                           weights: tuple | None = None, by_weight: bool = False
                           ) -> Enumerated:
    """All AXps (``kind="AXp"``) or all CXps (``"CXp"``) of ``oracle``, under the limits.

    CXps: for trees with the path engine, the subset-minimal sets of features on which a
    path of another class disagrees with ``x`` (polynomial; Izza, Ignatiev & Marques-Silva,
    "On Explaining Decision Trees", Section 5); with the SAT engine, hitting-set duality (a
    minimum hitting set of the AXps found so far is a CXp, or the oracle yields a new AXp).
    AXps: the minimal hitting sets of the CXps, enumerated with PySAT's Hitman (Section 5).

    Parameters
    ----------
    kind : {"AXp", "CXp"}
    oracle : EntailmentOracle
        The instance's oracle (restricted by the user's terms, if any).
    max_count, time_limit
        Stop after this many (a positive integer), or at this deadline (seconds or a
        :class:`~xdt.explain.queries.Deadline`); ``None``: no limit.
    progress : bool
        Show a progress bar (tqdm, on stderr).
    verify : bool
        Re-check what is found with ``recheck``, in batches while the search goes on.
    on_found : callable, optional
        ``on_found(count, explanation)`` after each one is built.
    build : callable
        ``build(mask, cost)`` -> the explanation of the feature set ``mask`` (``cost``: its
        cost under ``weights`` as a plain number, else ``None``).
    recheck : callable
        ``recheck(explanations)`` -> the same explanations, checked (it raises when one
        fails).
    batches : (int, int)
        The first batch of checks and the largest (each next batch is twice the last).
    weights : (scaled, exact) or None
        The weights of :func:`~xdt.explain.queries._preferences.feature_weights`.
    by_weight : bool
        Enumerate cheapest first under ``weights`` (else smallest first).

    Returns
    -------
    Enumerated
        With ``stopped_by="interrupted"`` when a ``KeyboardInterrupt`` (Ctrl-C) ended it:
        those found so far, those not re-checked yet as ``build`` made them.

    Raises
    ------
    ParameterError
        For a bad ``max_count`` or ``time_limit`` (:func:`check_limits`).
    """
    check_limits(max_count, time_limit)
    deadline = as_deadline(time_limit)
    with _deadline.running(deadline):
        return _enumerate(kind, oracle, max_count, deadline, progress, verify, on_found, build,
                          recheck, batches, weights, by_weight)


def _enumerate(kind: str, oracle: EntailmentOracle, max_count: int | None,
               deadline: duality.Deadline | None, progress: bool, verify: bool,
               on_found: Callable[[int, T], None] | None, build: Callable[[int, object], T],
               recheck: Callable[[list[T]], list[T]], batches: tuple[int, int],
               weights: tuple | None, by_weight: bool) -> Enumerated:
    """:func:`enumerate_explanations` once its limits are read (under its deadline)."""
    enumerate_ = duality.enumerate_cxps if kind == "CXp" else duality.enumerate_axps
    search = partial(enumerate_, oracle, weights=weights[0] if by_weight and weights else None)

    def out_of_time() -> bool:
        return deadline is not None and deadline.expired()

    found: dict[int, T] = {}  # each built as soon as found: the limit covers it
    pending: list[int] = []  # found, certificate not re-checked yet
    batch = batches[0]
    pace = 0.0  # seconds per certificate check, in the last batch

    def affordable(n: int) -> int:
        """How many of ``n`` pending checks fit in the time left, at the last pace."""
        if deadline is None or pace <= 0:
            return n
        return min(n, int(deadline.remaining() / pace))

    def check(n: int) -> None:
        """Re-check the certificates of the first ``n`` pending explanations."""
        nonlocal batch, pace
        if n < 1:
            return
        done = pending[:n]
        started = None if deadline is None else deadline.now()
        checked = recheck([found[m] for m in done])
        del pending[:n]
        for m, made in zip(done, checked, strict=True):
            found[m] = made
        batch = min(2 * batch, batches[1])
        if deadline is not None and started is not None:
            pace = (deadline.now() - started) / n

    exact = None if weights is None else weights[1]

    def cost(m: int) -> object:
        return None if exact is None else plain_number(cost_of(m, exact))

    def listed(stopped: str | None) -> Enumerated:
        order = (sorted(found, key=lambda m: (cost_of(m, exact), m.bit_count(), bits(m)))
                 if by_weight and exact is not None else by_size(found))
        return Enumerated([found[m] for m in order], stopped)

    stopped = None
    masks = search(out_of_time)
    bar = (tqdm(desc=f"{kind}s found", unit=f" {kind}", leave=False) if progress
           else _NO_BAR)
    try:
        try:
            for m in masks:
                found[m] = build(m, cost(m))
                bar.update(1)
                if on_found is not None:
                    on_found(len(found), found[m])
                if out_of_time():
                    stopped = "time_limit"
                    break
                if verify:
                    pending.append(m)
                    if affordable(len(pending)) < len(pending):
                        # only time left to check what was found: stop searching
                        stopped = "time_limit"
                        break
                    if len(pending) >= batch:
                        check(len(pending))
                if max_count is not None and len(found) >= max_count:
                    # complete only if the enumeration proves there is no other one
                    stopped = None if next(masks, None) is None else "max_count"
                    break
        except duality.EnumerationStopped:
            stopped = "time_limit"
        finally:
            bar.close()
            masks.close()  # release the hitting-set solver of a stopped enumeration
        try:
            while pending and not out_of_time():  # the last ones, while time remains
                n = affordable(min(batch, len(pending)))
                if n < 1:
                    break
                check(n)
        except duality.EnumerationStopped:  # the engines found the deadline passed
            pass
    except KeyboardInterrupt:
        return listed("interrupted")
    return listed(stopped)
