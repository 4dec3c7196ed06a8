"""``time_limit`` holds in every query and engine, without the wall clock: deadlines on a fake
clock that expires after a given number of readings, deadlines already passed, and step
budgets (:mod:`xdt.explain.engines._deadline`).

* the box engine's compiled search reads its own clock: given an end already passed it stops
  before its first box, given none it answers as before;
* the SAT engine solves in conflict-budgeted slices (one conflict per slice here), which
  give the unlimited answers, and stops between slices, between the lazy loop's rounds, while
  building an ensemble's encoding and while loading a solver;
* every query of the Explainer stops the way its documentation says: one answer
  (``axp``, ``cxp``, ``delta_axp``, ``smallest_*``, the questions about a given set of
  features, ``relevant_features``, ``necessary_features``, ``precision``,
  ``path_is_redundant``) raises ``ComputationLimitError`` (``limit="time_limit"``), a list
  (``all_*``) comes back incomplete, ``stopped_by="time_limit"``; and with a limit that never
  passes the answers are those without one (for a tree, the brute force's).

The faces over the queries (``explain_batch``, ``verify=True``, the report, the
cross-checks): tests/test_limits_faces.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from limitcases import fake_clock, make_forest, make_small_tree, never
from pysat.examples.genhard import PHP
from pysat.solvers import Solver

from xdt.errors import ComputationLimitError, ParameterError
from xdt.explain import Deadline, Explainer
from xdt.explain.engines import _deadline, _sat
from xdt.explain.engines import _ensemble_kernels as K
from xdt.explain.engines._ensemble_box import prepare
from xdt.explain.engines._ensemble_sat import EnsembleEncoding
from xdt.explain.engines._sat_cache import shared_encoding
from xdt.ir import DecisionTree, Feature, Leaf, ThresholdSplit

ENGINES = ("box", "sat")
ONE_ANSWER = ("axp", "cxp", "delta_axp", "smallest_axp", "smallest_cxp")
LISTS = ("all_axps", "all_cxps")


@pytest.fixture(scope="module")
def forest():
    return make_forest()


def run(ex: Explainer, query: str, x: dict, dist, time_limit):
    if query == "delta_axp":
        return ex.delta_axp(x, 0.9, distribution=dist, time_limit=time_limit)
    return getattr(ex, query)(x, time_limit=time_limit)


def features(answer) -> object:
    if answer is None:
        return None
    if isinstance(answer, list):
        return [e.features for e in answer]
    return answer.features


# ---------------------------------------------------------------- the box engine's kernel
def test_the_box_kernel_stops_before_its_first_box_once_its_end_has_passed(forest):
    if _deadline.KERNEL_CLOCK is None:
        pytest.skip("no clock_gettime on this platform: the kernel reads no clock")
    model, rows, _ = forest
    p = prepare(model)
    cells = model.encode([rows[0]])[0]
    c = p.classify(cells)
    lo, hi, cat = p.box({})  # every feature free: another class is reachable
    out = np.empty(len(lo), dtype=np.int64)
    clock = int(_deadline.KERNEL_CLOCK)
    assert K.search(lo, hi, cat, c, 10**6, out, 16, clock, 0, *p.tables) == (K.TIMED_OUT, 0)
    status, boxes = K.search(lo, hi, cat, c, 10**6, out, 16, clock, _deadline.NO_END,
                             *p.tables)
    assert (status, boxes) == K.search(lo, hi, cat, c, 10**6, out, 16, -1, 0, *p.tables)
    assert status == K.COUNTEREXAMPLE and boxes >= 1
    fixed = np.ones(len(cells), dtype=np.bool_)
    order = np.arange(len(cells), dtype=np.int64)
    status, pos = K.deletion(cells, fixed.copy(), order, c, 10**6, 16, clock, 0, *p.tables)
    assert (status, pos) == (K.TIMED_OUT, 0)


def test_the_kernel_end_follows_the_deadline_and_is_open_without_one():
    assert _deadline.kernel_clock()[1] == _deadline.NO_END
    with _deadline.running(Deadline(5.0, clock=fake_clock(1))):  # passed at once
        clock, end = _deadline.kernel_clock()
        if clock >= 0:
            import time
            assert end <= time.clock_gettime_ns(clock)


# ---------------------------------------------------------------- the SAT engine's slices
def test_budgeted_slices_give_the_unlimited_answer(monkeypatch):
    monkeypatch.setattr(_sat, "FIRST_BUDGET", 1)
    monkeypatch.setattr(_sat, "SLICE_SECONDS", 0.0)  # one conflict per slice, always
    calls = []
    with Solver(name="cadical195", bootstrap_with=PHP(5).clauses) as solver:
        limited = solver.solve_limited

        def counted(**kw):
            calls.append(1)
            return limited(**kw)

        monkeypatch.setattr(solver, "solve_limited", counted)
        with _deadline.running(never()):
            assert _sat.solve_within(solver, []) is False  # 6 pigeons, 5 holes
        assert len(calls) > 1  # it took several slices
    with Solver(name="cadical195", bootstrap_with=PHP(5).clauses[:-1]) as solver:
        with _deadline.running(never()):
            assert _sat.solve_within(solver, []) is True


def test_a_budgeted_solve_stops_between_slices_and_the_solver_stays_usable(monkeypatch):
    monkeypatch.setattr(_sat, "FIRST_BUDGET", 1)
    monkeypatch.setattr(_sat, "SLICE_SECONDS", 0.0)
    with Solver(name="cadical195", bootstrap_with=PHP(6).clauses) as solver:
        with _deadline.running(Deadline(5.0, clock=fake_clock(3))):
            with pytest.raises(_deadline.EnumerationStopped):
                _sat.solve_within(solver, [])
        assert solver.solve() is False


def test_loading_a_solver_stops_between_slices_of_clauses(monkeypatch):
    monkeypatch.setattr(_sat, "LOAD_SLICE", 10)
    clauses = PHP(5).clauses
    with _deadline.running(Deadline(5.0, clock=fake_clock(2))):
        with pytest.raises(_deadline.EnumerationStopped):
            _sat.load_solver("cadical195", clauses)
    with _deadline.running(never()):
        solver = _sat.load_solver("cadical195", clauses)
    assert solver.solve() is False
    solver.delete()


def test_building_an_ensemble_encoding_stops_and_leaves_no_half_built_one(forest):
    model, rows, _ = forest
    with _deadline.running(Deadline(5.0, clock=fake_clock(4))):
        with pytest.raises(_deadline.EnumerationStopped):
            EnsembleEncoding(model)
    # a SAT Explainer made meanwhile (no deadline) builds the whole encoding
    assert Explainer(model, engine="sat").axp(rows[0]).features \
        == Explainer(model, engine="box").axp(rows[0]).features


def test_the_lazy_loop_stops_between_rounds_and_keeps_valid_lemmas(forest, monkeypatch):
    model, rows, _ = forest
    enc = shared_encoding(model)
    x = rows[1]
    cells = model.encode([x])[0].tolist()
    c = int(model.predict_cells(np.asarray([cells]))[0])
    oracle = enc.oracle(cells, [1 << v for v in cells], (1 << len(cells)) - 1, c)
    with _deadline.running(Deadline(5.0, clock=fake_clock(1))):
        with pytest.raises(_deadline.EnumerationStopped):
            oracle.counterexample(0)
    box = Explainer(model, engine="box")
    assert oracle.counterexample(0) is not None  # freeing every feature: another class
    assert [e.features for e in Explainer(model, engine="sat").all_cxps(x)] \
        == [e.features for e in box.all_cxps(x)]
    oracle.close()


# ---------------------------------------------------------------- every query, every engine
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("query", ONE_ANSWER)
@pytest.mark.parametrize("readings", [1, 2])
def test_a_query_with_one_answer_raises_once_its_deadline_passes(forest, engine, query,
                                                                  readings):
    model, rows, dist = forest
    ex = Explainer(model, engine=engine, certificates=False)
    with pytest.raises(ComputationLimitError, match="time limit") as e:
        run(ex, query, rows[0], dist, Deadline(5.0, clock=fake_clock(readings)))
    assert e.value.limit == "time_limit"
    ex.close()


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("query", LISTS)
def test_an_enumeration_returns_what_it_found_marked_stopped_by_the_limit(forest, engine,
                                                                           query):
    model, rows, dist = forest
    ex = Explainer(model, engine=engine, certificates=False)
    full = run(ex, query, rows[0], dist, None)
    assert full.complete and len(full) > 1
    cut = run(Explainer(model, engine=engine), query, rows[0], dist,
              Deadline(5.0, clock=fake_clock(2)))
    assert not cut.complete and cut.stopped_by == "time_limit"
    assert {e.features for e in cut} <= {e.features for e in full}
    assert len(cut) < len(full)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("query", ONE_ANSWER + LISTS)
def test_a_limit_that_never_passes_changes_no_answer(forest, engine, query, monkeypatch):
    monkeypatch.setattr(_sat, "FIRST_BUDGET", 1)  # the SAT engine in many slices
    model, rows, dist = forest
    for x in rows:
        plain = run(Explainer(model, engine=engine), query, x, dist, None)
        timed = run(Explainer(model, engine=engine), query, x, dist, never())
        assert features(timed) == features(plain)
        if isinstance(plain, list):
            assert timed.complete and timed.stopped_by is None


def test_a_tree_delta_axp_polls_its_deadline_between_precisions():
    tree = DecisionTree([Feature("x", "ordinal"), Feature("y", "ordinal")], [0, 1],
                        ThresholdSplit("x", 0.5, Leaf(0),
                                       ThresholdSplit("y", 0.5, Leaf(0), Leaf(1))))
    from xdt.explain.queries import ProductDistribution

    d = ProductDistribution(tree, {"x": [1, 1], "y": [1, 19]})
    ex = Explainer(tree)
    assert ex.delta_axp({"x": 1, "y": 1}, 0.95, distribution=d,
                        time_limit=never()).features == ("x",)
    with pytest.raises(ComputationLimitError):
        ex.delta_axp({"x": 1, "y": 1}, 0.95, distribution=d,
                     time_limit=Deadline(5.0, clock=fake_clock(1)))


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf"), True, "2",
                                 pytest.param(10**400, id="10**400")])
def test_a_bad_time_limit_is_refused_by_every_one_answer_query(forest, bad):
    model, rows, dist = forest
    ex = Explainer(model)
    for query in ONE_ANSWER:
        with pytest.raises(ParameterError, match="time_limit"):
            run(ex, query, rows[0], dist, bad)


def test_deadlines_are_per_thread_and_restored_after_a_call(forest):
    model, rows, _ = forest
    assert _deadline.active() is None
    with pytest.raises(ComputationLimitError):
        Explainer(model).axp(rows[0], time_limit=Deadline(5.0, clock=fake_clock(1)))
    assert _deadline.active() is None
    outer = never()
    with _deadline.running(outer):
        with _deadline.running(None):
            assert _deadline.active() is outer
    assert _deadline.active() is None


# ---------------------------------------------------------------- the feature-set questions
SET_QUERIES = ("is_weak_axp", "is_axp", "is_cxp", "counterexample", "inflate",
               "relevant_features", "necessary_features", "precision")


@pytest.fixture(scope="module")
def small_tree():
    return make_small_tree()


def ask(ex: Explainer, query: str, x: dict, axp: tuple, dist, time_limit):
    """``query`` about ``x``, on its AXp ``axp`` where the query takes a set."""
    if query == "counterexample":
        return ex.counterexample(x, axp[1:], time_limit=time_limit)
    if query == "precision":
        return ex.precision(x, axp[1:], distribution=dist, time_limit=time_limit)
    if query in ("relevant_features", "necessary_features"):
        return getattr(ex, query)(x, time_limit=time_limit)
    return getattr(ex, query)(x, axp, time_limit=time_limit)


def same(model, x: dict, query: str, a, b) -> bool:
    """Whether two answers agree; two counterexamples agree when both are points that keep
    ``x``'s fixed values and get another class (the solver may pick another point)."""
    if query == "inflate":
        return a.rule == b.rule
    if query == "counterexample" and a is not None and b is not None:
        return all(model.predict([p])[0] != model.predict([x])[0] for p in (a, b))
    return a == b


@pytest.mark.parametrize("engine", ["path", "sat"])
@pytest.mark.parametrize("query", SET_QUERIES + ("path_is_redundant",))
def test_a_tree_question_raises_once_its_deadline_passed_and_not_before(small_tree, engine,
                                                                        query, monkeypatch):
    monkeypatch.setattr(_sat, "FIRST_BUDGET", 1)
    model, rows, dist = small_tree
    ex = Explainer(model, engine=engine, certificates=False)
    for x in rows:
        axp = ex.axp(x).features
        if query == "path_is_redundant":
            plain = ex.path_is_redundant(x)
            timed = ex.path_is_redundant(x, time_limit=never())
        else:
            plain = ask(ex, query, x, axp, dist, None)
            timed = ask(ex, query, x, axp, dist, never())
        assert same(model, x, query, plain, timed)
        passed = Deadline(5.0, clock=fake_clock(1))
        with pytest.raises(ComputationLimitError, match="time limit of 5 s") as e:
            if query == "path_is_redundant":
                ex.path_is_redundant(x, time_limit=passed)
            else:
                ask(ex, query, x, axp, dist, passed)
        assert e.value.limit == "time_limit"


def test_tree_questions_under_a_limit_give_the_brute_force_answers(small_tree):
    from xdt.explain.checks import brute_force

    model, rows, _ = small_tree
    for engine in ("path", "sat"):
        ex = Explainer(model, engine=engine)
        for x in rows:
            truth = brute_force(model, x)
            relevant = set().union(*truth.axps)
            necessary = set.intersection(*map(set, truth.axps))
            assert set(ex.relevant_features(x, time_limit=never())) == relevant
            assert set(ex.necessary_features(x, time_limit=never())) == necessary
            for a in truth.axps:
                assert ex.is_axp(x, sorted(a), time_limit=never())
                assert ex.counterexample(x, sorted(a), time_limit=never()) is None
            for c in truth.cxps:
                assert ex.is_cxp(x, sorted(c), time_limit=never())


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("query", SET_QUERIES)
def test_an_ensemble_question_raises_once_its_deadline_passed_and_not_before(forest, engine,
                                                                             query,
                                                                             monkeypatch):
    monkeypatch.setattr(_sat, "FIRST_BUDGET", 1)
    model, rows, dist = forest
    ex = Explainer(model, engine=engine, certificates=False)
    x = rows[0]
    axp = ex.axp(x).features
    plain = ask(ex, query, x, axp, dist, None)
    assert same(model, x, query, plain, ask(ex, query, x, axp, dist, never()))
    # a counterexample is one oracle call, which may be answered before the clock's next read
    for readings in (1,) if query == "counterexample" else (1, 2):
        with pytest.raises(ComputationLimitError, match="time limit") as e:
            ask(ex, query, x, axp, dist, Deadline(5.0, clock=fake_clock(readings)))
        assert e.value.limit == "time_limit"
    ex.close()


def test_ensemble_relevant_and_necessary_features_are_the_union_and_meet_of_the_axps(forest):
    model, rows, _ = forest
    for x in rows[:2]:
        axps = [set(e.features) for e in Explainer(model, engine="box").all_axps(x)]
        sat = Explainer(model, engine="sat")
        assert set(sat.relevant_features(x, time_limit=never())) == set().union(*axps)
        assert set(sat.necessary_features(x, time_limit=never())) == set.intersection(*axps)
        sat.close()


def test_a_bad_time_limit_is_refused_by_every_question(small_tree):
    model, rows, dist = small_tree
    ex = Explainer(model)
    x = rows[0]
    axp = ex.axp(x).features
    for query in SET_QUERIES:
        with pytest.raises(ParameterError, match="time_limit"):
            ask(ex, query, x, axp, dist, 0)
    with pytest.raises(ParameterError, match="time_limit"):
        ex.path_is_redundant(x, time_limit=-1)
    with pytest.raises(ParameterError, match="time_limit"):
        ex.explain_batch([x], time_limit=float("nan"))


def test_a_kernels_compilation_does_not_count_against_the_deadline(monkeypatch):
    import numba  # noqa: F401  (the compile events are numba's)
    from numba.core import event

    # the system clock, faked: 0 when the deadline is made (1 s allowed); the outer compile
    # holds numba's compiler lock from 0.5 to 9.5 (a nested hold counts once); two polls
    times = iter([0.0, 0.5, 9.5, 9.7, 10.2])
    monkeypatch.setattr(_deadline.time, "monotonic", lambda: next(times))
    deadline = _deadline.Deadline(1.0)
    with _deadline.running(deadline):
        with event.trigger_event("numba:compiler_lock"), \
                event.trigger_event("numba:compiler_lock"):
            pass
    assert deadline.end == 10.0
    assert not deadline.expired() and deadline.expired()
    # a deadline on the caller's own clock (as tests give) is left as it is
    own = _deadline.Deadline(1.0, clock=iter([0.0, 0.5]).__next__)
    with _deadline.running(own), event.trigger_event("numba:compiler_lock"):
        pass
    assert own.end == 1.0 and not own.expired()


def test_the_cycle_collector_is_off_while_a_call_runs_under_a_deadline():
    import gc

    assert gc.isenabled()
    seen = []
    deadline = _deadline.Deadline(1.0, clock=lambda: 0.0)
    with _deadline.limited(deadline, "an AXp"):
        seen.append(gc.isenabled())
        with _deadline.running(_deadline.Deadline(1.0, clock=lambda: 0.0)):  # nested
            seen.append(gc.isenabled())
        seen.append(gc.isenabled())  # the outer call still runs
    seen.append(gc.isenabled())
    with _deadline.limited(None, "an AXp"):  # no deadline: nothing changes
        seen.append(gc.isenabled())
    assert seen == [False, False, False, True, True]
    # a stopped call turns it back on too, and a collector the user had off stays off
    with pytest.raises(ComputationLimitError), _deadline.limited(deadline, "an AXp"):
        raise _deadline.EnumerationStopped
    assert gc.isenabled()
    gc.disable()
    try:
        with _deadline.limited(deadline, "an AXp"):
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
