"""Deadlines: the moment a long call must stop, shared by every step of it, engines included.

A :class:`Deadline` is made from a call's ``time_limit`` (seconds). While the call runs, it
is the *active* deadline of its thread (:func:`running`, a :mod:`contextvars` variable, so
threads sharing one :class:`~xdt.Explainer` do not see each other's), and every long loop
below the call polls it, wherever it is:

* the queries (deletion, hitting-set duality) between oracle calls;
* the box engine inside its compiled search, once per box, against the clock the kernel
  reads itself (:func:`kernel_clock`: ``clock_gettime(CLOCK_MONOTONIC)``, in nanoseconds);
* the SAT engine between conflict-budgeted solver calls and in each round of the ensembles'
  lazy loop, and while it builds an encoding or loads a solver;
* the checks of a given set of features (:mod:`xdt.explain.queries._deletion`), the
  widening of an inflated AXp, and the independent re-checks that ``verify=True`` runs
  (:mod:`xdt.explain.checks`: between certificates, and between slices of the points a box
  enumeration predicts), so that a call's re-check shares its deadline.

The time numba takes to compile a kernel on its first call (a process without the kernels'
disk cache) is no part of a query, and moves the active deadline's end later by as much
(:func:`_count_out_compiles`).

A poll that finds the deadline passed raises :class:`EnumerationStopped`; the call that set
the deadline turns it into its documented outcome (a list marked ``stopped_by=
"time_limit"``, or :class:`~xdt.errors.ComputationLimitError`). Without an active deadline
nothing is polled and the engines run as they always did.

    >>> d = Deadline(10.0, clock=iter([0.0, 0.0, 99.0]).__next__)
    >>> d.expired(), d.expired()
    (False, True)
"""

from __future__ import annotations

import gc
import math
import sys
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from xdt.errors import ComputationLimitError, ParameterError

NO_END = (1 << 63) - 1
"""The kernel end of a call without a deadline (int64's largest value: never reached)."""


class EnumerationStopped(Exception):
    """Raised inside a search when its deadline has passed or its ``stop`` callable says
    so; the call that set the limit catches it. Its optional message says what was left
    unfinished (e.g. a resumable build: how far it got), for the error the call raises."""


class Deadline:
    """A moment after which long computations stop: ``seconds`` from its creation.

    One deadline is meant to be shared by every step of one task (e.g. the enumerations of
    one instance and the checks of their certificates), so that the task as a whole, not
    each step, is bounded. It is a stop callable: ``deadline()`` is True once it has
    passed.

    Parameters
    ----------
    seconds : float
        Time allowed, a positive finite number.
    clock : callable, optional
        Returns the current time in seconds; default :func:`time.monotonic` (read at each
        call). Tests pass a fake clock; the box engine's compiled search then stops on its
        own clock at the moment :meth:`remaining` gives when the search starts.

    Raises
    ------
    ParameterError
        When ``seconds`` is not a positive finite number.
    """

    def __init__(self, seconds: float, clock: Callable[[], float] | None = None):
        if not _finite_positive(seconds):
            raise ParameterError(
                f"a deadline needs a positive, finite number of seconds, got {seconds!r}")
        self.seconds = float(seconds)
        self._clock = clock
        self.end = self.now() + self.seconds
        _count_out_compiles()
        # a call makes its deadline before it reads the instance (which may compile the
        # model's tables) and makes it active only then: compiles count out of this one too
        _COMPILES.latest = weakref.ref(self)

    def extend(self, seconds: float) -> None:
        """Move the end ``seconds`` later (the time a kernel's first compilation took)."""
        self.end += seconds

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

    def check(self) -> None:
        """Raise :class:`EnumerationStopped` when the deadline has passed."""
        if self.expired():
            raise EnumerationStopped

    def __repr__(self) -> str:
        return f"Deadline({self.seconds:g} s, {self.remaining():.3g} s left)"


def as_deadline(time_limit: float | Deadline | None) -> Deadline | None:
    """``time_limit`` as a deadline: a new one for a number of seconds, the one given, or
    ``None``.

    Raises
    ------
    ParameterError
        Unless ``time_limit`` is a positive finite number of seconds, a :class:`Deadline`
        or ``None``.
    """
    check_time_limit(time_limit)
    if time_limit is None or isinstance(time_limit, Deadline):
        return time_limit
    return Deadline(time_limit)


def check_time_limit(time_limit: object) -> None:
    """Raise :class:`~xdt.errors.ParameterError` unless ``time_limit`` is a positive finite
    number of seconds, a :class:`Deadline` or ``None`` (no clock is read)."""
    if time_limit is None or isinstance(time_limit, Deadline):
        return
    if not _finite_positive(time_limit):
        raise ParameterError(
            f"time_limit must be a positive number of seconds, a Deadline or None, got "
            f"{time_limit!r}")


def _finite_positive(seconds: object) -> bool:
    """Whether ``seconds`` is a positive number that a float holds finitely (an integer
    past float's range, such as ``10**400``, is not: ``math.isfinite`` overflows on it)."""
    if isinstance(seconds, bool) or not isinstance(seconds, int | float):
        return False
    try:
        return math.isfinite(seconds) and seconds > 0
    except OverflowError:
        return False


_ACTIVE: ContextVar[Deadline | None] = ContextVar("xdt_deadline", default=None)


_COMPILES = threading.local()
"""Per thread: how deep in numba's compile events it is, and the deadline and moment at
which the outermost one began."""
_LISTENING = False


def _count_out_compiles() -> None:
    """Have numba's compilation of a kernel not count against the active deadline: the first
    call of a kernel in a process without its disk cache compiles it (seconds of CPU), which
    is no part of the query the limit is set on. Each outermost ``numba:compiler_lock``
    event (numba holds its compiler lock while it compiles a kernel, loads it from the disk
    cache or saves it there) moves the active deadline's end (or else the end of the one
    made last in this thread) later by the time it took (deadlines on a caller's clock
    excepted).
    Registered once, when the first deadline is made (numba is then imported if no kernel
    had done it yet: the kernels are imported by the first query that needs them, inside its
    deadline)."""
    global _LISTENING
    if _LISTENING:
        return
    from numba.core import event

    class CompileTime(event.Listener):
        def on_start(self, _event) -> None:
            depth = getattr(_COMPILES, "depth", 0)
            _COMPILES.depth = depth + 1
            if depth == 0:
                latest = getattr(_COMPILES, "latest", None)
                deadline = _ACTIVE.get() or (latest() if latest is not None else None)
                # a deadline on a caller's clock (a test's fake one) is left alone: only time
                # as the system counts it has compiles in it
                _COMPILES.began = (deadline, deadline.now()) \
                    if deadline is not None and deadline._clock is None else None

        def on_end(self, _event) -> None:
            _COMPILES.depth -= 1
            began = getattr(_COMPILES, "began", None)
            if _COMPILES.depth == 0 and began is not None:
                deadline, start = began
                deadline.extend(max(0.0, deadline.now() - start))
                _COMPILES.began = None

    event.register("numba:compiler_lock", CompileTime())
    _LISTENING = True


_PAUSES = [0, False]
"""Calls under a deadline running now, and whether the cycle collector was on before the
first of them."""
_PAUSE_LOCK = threading.Lock()


def _pause_collector() -> None:
    """Turn Python's cycle collector off while a call runs under a deadline (and back on by
    :func:`_resume_collector` when the last such call ends, if it was on). A full collection
    walks every object of the process (seconds for a model of a thousand trees and its SAT
    encoding, 2.6 s measured) and would otherwise fall inside whichever call happens to
    allocate at that moment, past its limit; reference counting still frees everything
    but cycles, which the collector then finds after the call."""
    with _PAUSE_LOCK:
        if _PAUSES[0] == 0:
            _PAUSES[1] = gc.isenabled()
            gc.disable()
        _PAUSES[0] += 1


def _resume_collector() -> None:
    with _PAUSE_LOCK:
        _PAUSES[0] -= 1
        if _PAUSES[0] == 0 and _PAUSES[1]:
            gc.enable()


def active() -> Deadline | None:
    """The deadline of the call running in this thread (context), or ``None``."""
    return _ACTIVE.get()


@contextmanager
def running(deadline: Deadline | None) -> Iterator[Deadline | None]:
    """Make ``deadline`` the active one inside the ``with`` block (``None``: leave the one
    active, if any, as it is); yields the deadline in force."""
    if deadline is None:
        yield _ACTIVE.get()
        return
    _pause_collector()
    token = _ACTIVE.set(deadline)
    try:
        yield deadline
    finally:
        _ACTIVE.reset(token)
        _resume_collector()


def expired() -> bool:
    """Whether the active deadline has passed (False without one): a ``stop`` callable for
    the loops of :mod:`xdt.explain.queries._duality`."""
    deadline = _ACTIVE.get()
    return deadline is not None and deadline.expired()


def check() -> None:
    """Raise :class:`EnumerationStopped` when the active deadline has passed (a no-op
    without one)."""
    deadline = _ACTIVE.get()
    if deadline is not None and deadline.expired():
        raise EnumerationStopped


class limited:
    """``with limited(deadline, "an AXp"):`` runs a call that gives one answer under
    ``deadline`` (made active, as :func:`running`; ``None``: the one active, if any) and
    turns :class:`EnumerationStopped` into :class:`~xdt.errors.ComputationLimitError`
    (``limit="time_limit"``), saying that the time limit passed before ``what`` was found.
    A class, not a generator: it costs next to nothing when there is no deadline."""

    __slots__ = ("deadline", "what", "_token")

    def __init__(self, deadline: Deadline | None, what: str):
        self.deadline = deadline
        self.what = what
        self._token = None

    def __enter__(self) -> Deadline | None:
        if self.deadline is not None:
            _pause_collector()
            self._token = _ACTIVE.set(self.deadline)
        return self.deadline

    def __exit__(self, kind, error, trace) -> None:
        if self._token is not None:
            _ACTIVE.reset(self._token)
            self._token = None
            _resume_collector()
        if kind is not None and issubclass(kind, EnumerationStopped):
            seconds = f" of {self.deadline.seconds:g} s" if self.deadline is not None else ""
            why = f" ({error.args[0]})" if error is not None and error.args else ""
            raise ComputationLimitError(
                f"the time limit{seconds} passed before {self.what} was found{why}; raise "
                "time_limit, or try another engine (Explainer(model, engine=...))",
                limit="time_limit") from None


KERNEL_CLOCK = getattr(time, "CLOCK_MONOTONIC", None) if sys.platform != "win32" else None
"""The ``clock_gettime`` clock the compiled kernels read (``CLOCK_MONOTONIC``), or ``None``
where there is no ``clock_gettime``: there the kernels do not read a clock, and a deadline
is polled between kernel calls only (each call bounded by its step budget)."""


def kernel_clock() -> tuple[int, int]:
    """``(clock, end)`` for a compiled kernel that polls the active deadline: the clock id
    it reads (-1: none) and the deadline as that clock's reading in nanoseconds
    (:data:`NO_END` without an active deadline)."""
    deadline = _ACTIVE.get()
    if KERNEL_CLOCK is None:
        return -1, NO_END
    if deadline is None:
        return int(KERNEL_CLOCK), NO_END
    left = deadline.remaining()
    return int(KERNEL_CLOCK), (time.clock_gettime_ns(KERNEL_CLOCK)
                               + min(int(left * 1e9), NO_END // 4))


__all__ = ["KERNEL_CLOCK", "NO_END", "Deadline", "EnumerationStopped", "active", "as_deadline",
           "check", "check_time_limit", "expired", "kernel_clock", "limited", "running"]
