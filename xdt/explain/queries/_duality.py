"""Algorithms over the entailment contract: deletion, and hitting-set duality.

Written once for every engine (:class:`~xdt.explain.engines.EntailmentOracle`):

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
* **A cheapest AXp / CXp** for feature weights (:mod:`xdt.explain.queries._preferences`) is a
  minimum-weight hitting set of the CXps / AXps, found by implicit hitting sets: RC2 MaxSAT
  (PySAT) proposes a cheapest hitting set of the dual explanations found so far, and the
  oracle either accepts it — it is then optimal, since every explanation must hit every dual
  one — or yields a new dual explanation it misses (:func:`cheapest_axp`,
  :func:`cheapest_cxp`). The dual explanations found are the proof of the lower bound.
  Enumerations in order of weight (``weights=``) use the same MaxSAT solver.
* **A smallest AXp** is a minimum-size hitting set of the CXps (a compiled branch and
  bound, :func:`minimum_hitting_set`; past its step budget, Hitman with RC2 MaxSAT, which
  returns hitting sets in order of increasing size). Among several smallest AXps, which
  one is returned is not specified (the SAT engine, which has no list of CXps, may return
  another).

Feature sets are ``int`` bit masks (bit ``i`` = feature ``i``). The enumerations poll an
optional ``stop`` callable between oracle calls and raise :class:`EnumerationStopped` when
it returns True, so a time limit holds inside long searches too; a :class:`Deadline` is
such a callable, and one deadline can be shared by the several steps of one task
(:mod:`xdt.explain.engines._deadline`, where the engines poll it inside their own calls).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import NamedTuple

import numpy as np
from pysat.examples.hitman import Hitman
from pysat.examples.rc2 import RC2
from pysat.formula import WCNF

from xdt.errors import ComputationLimitError
from xdt.explain.engines._deadline import Deadline, EnumerationStopped  # noqa: F401 (re-exported)
from xdt.explain.engines._oracle import EntailmentOracle, bits, to_mask

Stop = Callable[[], bool] | None
"""Optional callable polled by long loops; when it returns True they raise
:class:`EnumerationStopped` (e.g. a deadline has passed)."""


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
    _poll(stop)  # an engine's one-call deletion may read no clock (the path-walker's)
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
    listed = set(seen)  # once: a set per feature made this quadratic in the features
    return seen + [i for i in bits(universe) if i not in listed]


Weights = dict[int, int] | None
"""Feature position -> positive integer cost
(:func:`xdt.explain.queries._preferences.feature_weights`), or ``None`` for unit costs."""


class HittingSets:
    """Cheapest hitting sets of a growing family of feature sets (bit masks).

    Without weights, PySAT's :class:`~pysat.examples.hitman.Hitman` (RC2 MaxSAT, smallest
    first); with weights, RC2 on the weighted partial MaxSAT formula of the problem (one soft
    unit clause ``-f`` of weight ``w[f]`` per candidate feature, one hard clause per set to
    hit, one hard clause per blocked set), so that each :meth:`get` returns a hitting set of
    minimum total weight and that weight, proven optimal by the solver. Added sets and blocks
    are incremental. Use as a context manager (or call :meth:`close`).

    Parameters
    ----------
    weights : dict of int to int, or None
        Positive cost per feature position; needed for every feature a set may hold.
    """

    def __init__(self, weights: Weights = None):
        self.weights = weights
        self.empty = False  # an empty set to hit: no hitting set exists
        self._hitman: Hitman | None = None
        self._rc2: RC2 | None = None
        if weights is None:
            self._hitman = Hitman(htype="sorted")
        else:
            formula = WCNF()
            for f, w in sorted(weights.items()):
                formula.append([-(f + 1)], weight=int(w))
            self._rc2 = RC2(formula)

    def hit(self, mask: int) -> None:
        """Add a set every later hitting set must meet."""
        if mask == 0:
            self.empty = True
        elif self._hitman is not None:
            self._hitman.hit(bits(mask))
        else:
            self._rc2.add_clause([f + 1 for f in bits(mask)])

    def block(self, mask: int) -> None:
        """Exclude ``mask`` and its supersets from the later hitting sets."""
        if self._hitman is not None:
            self._hitman.block(bits(mask))
        else:
            self._rc2.add_clause([-(f + 1) for f in bits(mask)])

    def get(self) -> tuple[int, int] | None:
        """A cheapest hitting set not blocked, and its cost (its size without weights), or
        ``None`` when none is left."""
        if self.empty:
            return None
        if self._hitman is not None:
            hs = self._hitman.get()
            return None if hs is None else (to_mask(hs), len(hs))
        model = self._rc2.compute()
        if model is None:
            return None
        mask = to_mask(v - 1 for v in model if v > 0 and v - 1 in self.weights)
        return mask, int(self._rc2.cost)

    def close(self) -> None:
        if self._hitman is not None:
            self._hitman.delete()
        if self._rc2 is not None:
            self._rc2.delete()

    def __enter__(self) -> HittingSets:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def minimal_hitting_sets(sets: Sequence[int], stop: Stop = None,
                         weights: Weights = None) -> Iterator[int]:
    """All minimal hitting sets of a family of non-empty bit masks, smallest (with
    ``weights``: cheapest) first.

    Uses PySAT's :class:`~pysat.examples.hitman.Hitman` (RC2 MaxSAT; :class:`HittingSets`
    with weights); each set it returns is blocked (its supersets excluded) before asking for
    the next one. An empty family has one minimal hitting set, the empty set.
    """
    if not sets:
        yield 0
        return
    if weights is None:
        with Hitman(bootstrap_with=[bits(s) for s in sets], htype="sorted") as hitman:
            for hs in hitman.enumerate():
                yield to_mask(hs)
                _poll(stop)
        return
    with HittingSets(weights) as family:
        for s in sets:
            family.hit(s)
        while (got := family.get()) is not None:
            yield got[0]
            family.block(got[0])
            _poll(stop)


MHS_BUDGET = 200_000
"""Search steps the compiled branch and bound of :func:`minimum_hitting_set` may take before
the MaxSAT solver takes over."""


def minimum_hitting_set(sets: Sequence[int]) -> int:
    """A smallest hitting set of a family of non-empty bit masks.

    By the compiled branch and bound of :func:`xdt.explain.engines._kernels.minimum_hitting_set`;
    when it does not finish within :data:`MHS_BUDGET` steps, the first (smallest) hitting
    set of PySAT's Hitman (RC2 MaxSAT)."""
    sets = list(sets)
    if sets:
        from xdt.explain.engines import _kernels as kernels
        from xdt.explain.engines._compiled import from_words, n_words, rows_of

        width = n_words(max(s.bit_length() for s in sets))
        best = np.zeros(width, dtype=np.uint64)
        size = kernels.minimum_hitting_set(rows_of(sets, width), len(sets), MHS_BUDGET, best)
        if size >= 0:
            return from_words(best)
    return next(iter(minimal_hitting_sets(sets)))


def _duality(is_wanted: Callable[[int], bool], dual_inside: Callable[[int], int],
             stop: Stop = None, weights: Weights = None) -> Iterator[int]:
    """The hitting-set duality loop: a minimum (cheapest) hitting set ``h`` of the dual
    explanations found so far is wanted when ``is_wanted(h)`` (then blocked and yielded);
    otherwise ``dual_inside(h)`` is a new dual explanation that ``h`` misses, added to the
    sets to hit. The solver is released when the loop ends or its consumer stops early."""
    with HittingSets(weights) as family:
        while (got := family.get()) is not None:
            _poll(stop)
            cand = got[0]
            if is_wanted(cand):
                yield cand
                family.block(cand)
            else:
                family.hit(dual_inside(cand))


def _on(weights: Weights, universe: int) -> Weights:
    """The weights of the candidate features only."""
    return None if weights is None else {f: weights[f] for f in bits(universe)}


def enumerate_axps(oracle: EntailmentOracle, stop: Stop = None,
                   weights: Weights = None) -> Iterator[int]:
    """All AXps, smallest (with ``weights``: cheapest) first (MHS duality).

    With an engine that lists its CXps, the AXps are the MHSes of those. Otherwise: ask the
    hitting-set enumerator for a minimum hitting set ``h`` of the CXps found so far; if ``h``
    entails the prediction it is an AXp (no proper subset hits all CXps) and is blocked;
    if not, a new CXp is extracted from the complement of ``h`` and added to the sets to hit.
    """
    u = oracle.universe
    cxps = oracle.all_cxps()
    if cxps is not None:
        if 0 in cxps:  # the prediction changes with no candidate freed: no AXp
            return
        yield from minimal_hitting_sets(cxps, stop, _on(weights, u))
        return
    if not oracle.entails(u):
        return
    yield from _duality(oracle.entails,
                        lambda h: deletion_cxp(oracle, start=u & ~h, stop=stop),  # type: ignore
                        stop, _on(weights, u))


def enumerate_cxps(oracle: EntailmentOracle, stop: Stop = None,
                   weights: Weights = None) -> Iterator[int]:
    """All CXps, smallest (with ``weights``: cheapest) first (MHS duality, dual to
    :func:`enumerate_axps`).

    With an engine that lists its CXps they are returned directly. Otherwise: a minimum
    hitting set ``h`` of the AXps found so far is a CXp when freeing it lets the prediction
    change (no proper subset does: each misses a whole AXp); if not, the fixed rest is a
    weak AXp, which is shrunk to a new AXp and added to the sets to hit.
    """
    u = oracle.universe
    cxps = oracle.all_cxps()
    if cxps is not None:
        yield from sorted(cxps, key=lambda m: (m.bit_count(), m) if weights is None
                          else (sum(weights[f] for f in bits(m)), m.bit_count(), m))
        return
    if oracle.entails(0):  # nothing can change the prediction: no CXp at all
        return
    yield from _duality(lambda h: not oracle.entails(u & ~h),
                        lambda h: deletion_axp(oracle, start=u & ~h, stop=stop), stop,
                        _on(weights, u))


class Cheapest(NamedTuple):
    """A cheapest explanation and the proof of its optimality.

    Attributes
    ----------
    mask : int
        The explanation (bit mask).
    cost : int
        Its cost in the scaled integer weights (:data:`Weights`): the cost of a cheapest
        hitting set of ``bounds``, by the MaxSAT solver, which proves it optimal.
    bounds : tuple of int
        The dual explanations found (CXps for an AXp, AXps for a CXp): every explanation
        must meet each of them.
    """

    mask: int
    cost: int
    bounds: tuple[int, ...]


def _cheapest(oracle: EntailmentOracle, weights: Weights, is_wanted: Callable[[int], bool],
              dual_inside: Callable[[int], int], stop: Stop) -> Cheapest | None:
    u = oracle.universe
    weights = _on(weights if weights is not None else dict.fromkeys(bits(u), 1), u)
    bounds: list[int] = []
    cost = 0
    try:
        with HittingSets(weights) as family:
            while (got := family.get()) is not None:
                cand, cost = got
                _poll(stop)
                if is_wanted(cand):
                    return Cheapest(cand, cost, tuple(bounds))
                dual = dual_inside(cand)  # polls ``stop`` too
                bounds.append(dual)
                family.hit(dual)
    except EnumerationStopped:
        raise ComputationLimitError(
            f"the time limit passed before a cheapest explanation was proven: none costs "
            f"less than {cost} (in the weights' common integer scale), after {len(bounds)} "
            "dual explanation(s); raise time_limit", limit="time_limit") from None
    return None


def cheapest_axp(oracle: EntailmentOracle, weights: Weights = None,
                 stop: Stop = None) -> Cheapest | None:
    """An AXp of minimum total weight (unit weights: a smallest AXp), with the CXps that
    prove the bound, by implicit hitting sets over the CXps (RC2 MaxSAT); ``None`` when no
    AXp exists (fixing every candidate feature does not entail the prediction, e.g. when
    features were excluded).

    Each round costs one MaxSAT call and, for a rejected candidate ``h``, one CXp by
    deletion inside the complement of ``h`` (one entailment query per feature)."""
    u = oracle.universe
    if not oracle.entails(u):
        return None
    return _cheapest(oracle, weights, oracle.entails,
                     lambda h: deletion_cxp(oracle, start=u & ~h, stop=stop),  # type: ignore
                     stop)


def cheapest_cxp(oracle: EntailmentOracle, weights: Weights = None,
                 stop: Stop = None) -> Cheapest | None:
    """A CXp of minimum total weight (unit weights: a smallest CXp), with the AXps that
    prove the bound, by implicit hitting sets over the AXps (RC2 MaxSAT); ``None`` when no
    CXp exists (freeing every candidate feature cannot change the prediction)."""
    u = oracle.universe
    if oracle.entails(0):
        return None
    return _cheapest(oracle, weights, lambda h: not oracle.entails(u & ~h),
                     lambda h: deletion_axp(oracle, start=u & ~h, stop=stop), stop)


def smallest_axp(oracle: EntailmentOracle, stop: Stop = None) -> int:
    """A smallest (minimum-size) AXp: a minimum hitting set of the CXps when the engine lists
    them (:func:`minimum_hitting_set`), else the first AXp :func:`enumerate_axps` yields.

    Raises :class:`~xdt.errors.ComputationLimitError` when ``stop`` says so first."""
    cxps = oracle.all_cxps()
    if cxps is not None:
        return minimum_hitting_set(cxps)
    try:
        return next(iter(enumerate_axps(oracle, stop)))
    except EnumerationStopped:
        raise ComputationLimitError(
            "the time limit passed before a smallest AXp was found; raise time_limit",
            limit="time_limit") from None
