"""Algorithms over the entailment contract: deletion, and hitting-set duality.

Written once for every engine (:class:`~xdt.explain.oracle.EntailmentOracle`):

* **One AXp by deletion** (Marques-Silva & Ignatiev; Izza et al., "On Explaining Decision
  Trees", Section 4): start from all candidate features and drop each, in a given order,
  whenever the rest still entails the prediction. A feature tried earlier is more likely to
  be dropped.
* **One CXp by deletion**, dually: start with all candidate features free and fix each, in
  order, whenever the prediction can still change.
* **All AXps / all CXps by duality** (Izza et al., Section 5; Ignatiev et al., "From
  Contrastive to Abductive Explanations and Back Again", AIxIA 2020): AXps are the minimal
  hitting sets (MHS) of the CXps and vice versa. When the engine lists all CXps directly
  (the path-walker), AXps are enumerated as their MHSes with PySAT's :class:`Hitman`;
  otherwise a hitting-set enumerator proposes candidates over the CXps (AXps) found so far
  and the oracle either confirms an AXp (CXp) or yields a new CXp (AXp).
* **A smallest AXp** is a minimum-size hitting set of the CXps (a compiled branch and
  bound, :func:`minimum_hitting_set`; past its step budget, Hitman with RC2 MaxSAT, which
  returns hitting sets in order of increasing size). Among several smallest AXps, which
  one is returned is not specified (the SAT engine, which has no list of CXps, may return
  another).

Feature sets are ``int`` bit masks (bit ``i`` = feature ``i``). The enumerations poll an
optional ``stop`` callable between oracle calls and raise :class:`EnumerationStopped` when
it returns True, so a time limit holds inside long searches too; a :class:`Deadline` is
such a callable, and one deadline can be shared by the several steps of one task.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator, Sequence

import numpy as np
from pysat.examples.hitman import Hitman

from xdt.explain.oracle import EntailmentOracle, bits, to_mask

Stop = Callable[[], bool] | None
"""Optional callable polled by long loops; when it returns True they raise
:class:`EnumerationStopped` (e.g. a deadline has passed)."""


class EnumerationStopped(Exception):
    """Raised inside an enumeration when its ``stop`` callable says so."""


class Deadline:
    """A moment after which long computations stop: ``seconds`` from its creation.

    One deadline is meant to be shared by every step of one task (e.g. the enumerations of
    one instance and the checks of their certificates), so that the task as a whole, not
    each step, is bounded. It is a :data:`Stop` callable: ``deadline()`` is True once it has
    passed.

    Parameters
    ----------
    seconds : float
        Time allowed, a positive finite number.
    clock : callable, optional
        Returns the current time in seconds; default :func:`time.monotonic` (read at each
        call). Tests pass a fake clock.

    Raises
    ------
    ValueError
        When ``seconds`` is not a positive finite number.
    """

    def __init__(self, seconds: float, clock: Callable[[], float] | None = None):
        if (isinstance(seconds, bool) or not isinstance(seconds, int | float)
                or not math.isfinite(seconds) or seconds <= 0):
            raise ValueError(
                f"a deadline needs a positive, finite number of seconds, got {seconds!r}")
        self.seconds = float(seconds)
        self._clock = clock
        self.end = self.now() + self.seconds

    def now(self) -> float:
        """The clock's current time."""
        return time.monotonic() if self._clock is None else self._clock()

    def remaining(self) -> float:
        """Seconds left (0 once the deadline has passed)."""
        return max(0.0, self.end - self.now())

    def expired(self) -> bool:
        """Whether the deadline has passed."""
        return self.now() > self.end

    __call__ = expired

    def __repr__(self) -> str:
        return f"Deadline({self.seconds:g} s, {self.remaining():.3g} s left)"


def _poll(stop: Stop) -> None:
    if stop is not None and stop():
        raise EnumerationStopped


def deletion_axp(oracle: EntailmentOracle, order: Sequence[int] = (),
                 start: int | None = None, stop: Stop = None) -> int:
    """One AXp (subset-minimal weak AXp) by deletion.

    Parameters
    ----------
    oracle : EntailmentOracle
    order : sequence of int
        Feature positions in the order they are tried for removal; candidate features not
        listed are tried afterwards in increasing position.
    start : int, optional
        A weak AXp to shrink (bit mask); by default all candidate features.

    Returns
    -------
    int
        Bit mask of the AXp. Cost: one entailment query per feature of ``start``.
    """
    expl = oracle.universe if start is None else start
    direct = oracle.deletion(expl, order)
    if direct is not None:
        return direct
    for i in _full_order(expl, [int(i) for i in order]):
        _poll(stop)
        smaller = expl & ~(1 << i)
        if oracle.entails(smaller):
            expl = smaller
    return expl


def deletion_cxp(oracle: EntailmentOracle, order: Sequence[int] = (),
                 start: int | None = None, stop: Stop = None) -> int | None:
    """One CXp (subset-minimal set of features whose change can change the prediction) by
    deletion, or ``None`` when freeing ``start`` (by default all candidate features) cannot
    change the prediction. Features earlier in ``order`` are more likely to be left out."""
    free = oracle.universe if start is None else start
    if oracle.entails(oracle.universe & ~free):
        return None
    for i in _full_order(free, [int(i) for i in order]):
        _poll(stop)
        smaller = free & ~(1 << i)
        if not oracle.entails(oracle.universe & ~smaller):
            free = smaller
    return free


def _full_order(universe: int, order: Sequence[int]) -> list[int]:
    seen = [i for i in dict.fromkeys(order) if (universe >> i) & 1]
    return seen + [i for i in bits(universe) if i not in set(seen)]


def minimal_hitting_sets(sets: Sequence[int], stop: Stop = None) -> Iterator[int]:
    """All minimal hitting sets of a family of non-empty bit masks, smallest first.

    Uses PySAT's :class:`~pysat.examples.hitman.Hitman` (RC2 MaxSAT); each set it returns is
    blocked (its supersets excluded) before asking for the next one. An empty family has one
    minimal hitting set, the empty set.
    """
    if not sets:
        yield 0
        return
    with Hitman(bootstrap_with=[bits(s) for s in sets], htype="sorted") as hitman:
        for hs in hitman.enumerate():
            yield to_mask(hs)
            _poll(stop)


MHS_BUDGET = 200_000
"""Search steps the compiled branch and bound of :func:`minimum_hitting_set` may take before
the MaxSAT solver takes over."""


def minimum_hitting_set(sets: Sequence[int]) -> int:
    """A smallest hitting set of a family of non-empty bit masks.

    By the compiled branch and bound of :func:`xdt.explain.kernels.minimum_hitting_set`;
    when it does not finish within :data:`MHS_BUDGET` steps, the first (smallest) hitting
    set of PySAT's Hitman (RC2 MaxSAT)."""
    sets = list(sets)
    if sets:
        from xdt.explain import kernels
        from xdt.explain.compiled import from_words, n_words, rows_of

        width = n_words(max(s.bit_length() for s in sets))
        best = np.zeros(width, dtype=np.uint64)
        size = kernels.minimum_hitting_set(rows_of(sets, width), len(sets), MHS_BUDGET, best)
        if size >= 0:
            return from_words(best)
    return next(iter(minimal_hitting_sets(sets)))


def _duality(is_wanted: Callable[[int], bool], dual_inside: Callable[[int], int],
             stop: Stop = None) -> Iterator[int]:
    """The hitting-set duality loop: a minimum hitting set ``h`` of the dual explanations
    found so far is wanted when ``is_wanted(h)`` (then blocked and yielded); otherwise
    ``dual_inside(h)`` is a new dual explanation that ``h`` misses, added to the sets to hit.
    The Hitman solver is released when the loop ends or its consumer stops early."""
    with Hitman(htype="sorted") as hitman:
        while (hs := hitman.get()) is not None:
            _poll(stop)
            cand = to_mask(hs)
            if is_wanted(cand):
                yield cand
                hitman.block(hs)
            else:
                hitman.hit(bits(dual_inside(cand)))


def enumerate_axps(oracle: EntailmentOracle, stop: Stop = None) -> Iterator[int]:
    """All AXps, smallest first (MHS duality).

    With an engine that lists its CXps, the AXps are the MHSes of those. Otherwise: ask the
    hitting-set enumerator for a minimum hitting set ``h`` of the CXps found so far; if ``h``
    entails the prediction it is an AXp (no proper subset hits all CXps) and is blocked;
    if not, a new CXp is extracted from the complement of ``h`` and added to the sets to hit.
    """
    cxps = oracle.all_cxps()
    if cxps is not None:
        yield from minimal_hitting_sets(cxps, stop)
        return
    u = oracle.universe
    yield from _duality(oracle.entails,
                        lambda h: deletion_cxp(oracle, start=u & ~h, stop=stop),  # type: ignore
                        stop)


def enumerate_cxps(oracle: EntailmentOracle, stop: Stop = None) -> Iterator[int]:
    """All CXps, smallest first (MHS duality, dual to :func:`enumerate_axps`).

    With an engine that lists its CXps they are returned directly. Otherwise: a minimum
    hitting set ``h`` of the AXps found so far is a CXp when freeing it lets the prediction
    change (no proper subset does: each misses a whole AXp); if not, the fixed rest is a
    weak AXp, which is shrunk to a new AXp and added to the sets to hit.
    """
    cxps = oracle.all_cxps()
    if cxps is not None:
        yield from sorted(cxps, key=lambda m: (m.bit_count(), m))
        return
    u = oracle.universe
    if oracle.entails(0):  # nothing can change the prediction: no CXp at all
        return
    yield from _duality(lambda h: not oracle.entails(u & ~h),
                        lambda h: deletion_axp(oracle, start=u & ~h, stop=stop), stop)


def smallest_axp(oracle: EntailmentOracle) -> int:
    """A smallest (minimum-size) AXp: a minimum hitting set of the CXps when the engine lists
    them (:func:`minimum_hitting_set`), else the first AXp :func:`enumerate_axps` yields."""
    cxps = oracle.all_cxps()
    if cxps is not None:
        return minimum_hitting_set(cxps)
    return next(iter(enumerate_axps(oracle)))
