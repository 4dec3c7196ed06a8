"""``time_limit`` holds in every query and engine, without the wall clock: deadlines on a fake
clock that expires after a given number of readings, deadlines already passed, and step
budgets (:mod:`xdt.explain.engines._deadline`).

* the box engine's compiled search reads its own clock: given an end already passed it stops
  before its first box, given none it answers as before;
* the SAT engine solves in conflict-budgeted slices (one conflict per slice here), which
  give the unlimited answers, and stops between slices, between the lazy loop's rounds, while
  building an ensemble's encoding and while loading a solver;
* every query of the Explainer stops the way its documentation says: one answer
  (``axp``, ``cxp``, ``delta_axp``, ``smallest_*``) raises ``ComputationLimitError``
  (``limit="time_limit"``), a list (``all_*``) comes back incomplete, ``stopped_by=
  "time_limit"``; and with a limit that never passes the answers are those without one.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from pysat.examples.genhard import PHP
from pysat.solvers import Solver
from sklearn.datasets import make_classification
from sklearn.ensemble import RandomForestClassifier

import xdt
from xdt.errors import ComputationLimitError, ParameterError
from xdt.explain import Deadline, Explainer
from xdt.explain.engines import _deadline, _sat
from xdt.explain.engines import _ensemble_kernels as K
from xdt.explain.engines._ensemble_box import prepare
from xdt.explain.engines._ensemble_sat import EnsembleEncoding
from xdt.explain.engines._sat_cache import shared_encoding
from xdt.explain.queries import EmpiricalDistribution
from xdt.ir import DecisionTree, Feature, Leaf, ThresholdSplit

ENGINES = ("box", "sat")
ONE_ANSWER = ("axp", "cxp", "delta_axp", "smallest_axp", "smallest_cxp")
LISTS = ("all_axps", "all_cxps")


def fake_clock(readings: int):
    """A clock that reads 0 ``readings`` times, then 100 (seconds) for ever. A deadline of a
    few seconds made on it reads it once when made, so it has passed from its check number
    ``readings`` on (1: at once)."""
    return itertools.chain(itertools.repeat(0.0, readings), itertools.repeat(100.0)).__next__


def never() -> Deadline:
    """A deadline that never passes (its clock stands still)."""
    return Deadline(1e6, clock=lambda: 0.0)


@pytest.fixture(scope="module")
def forest():
    X, y = make_classification(n_samples=300, n_features=6, n_informative=4, n_classes=3,
                               random_state=0)
    est = RandomForestClassifier(n_estimators=12, max_depth=5, random_state=0).fit(X, y)
    names = [f"f{i}" for i in range(X.shape[1])]
    model = xdt.from_sklearn(est, feature_names=names)
    rows = [dict(zip(names, r.tolist(), strict=True)) for r in X[:3]]
    return model, rows, EmpiricalDistribution(X, model)


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


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf"), True, "2"])
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
    """A depth-4 tree over 5 features: small enough for the brute force."""
    from sklearn.tree import DecisionTreeClassifier

    X, y = make_classification(n_samples=200, n_features=5, n_informative=3, random_state=1)
    names = [f"g{i}" for i in range(X.shape[1])]
    model = xdt.from_sklearn(DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, y),
                             feature_names=names)
    rows = [dict(zip(names, r.tolist(), strict=True)) for r in X[:4]]
    return model, rows, EmpiricalDistribution(X, model)


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


# ---------------------------------------------------------------- the batch path-walker
def test_explain_batch_polls_between_slices_and_gives_no_table_with_rows_missing(
        small_tree, monkeypatch):
    from xdt.explain.engines import _vectorised

    model, rows, _ = small_tree
    ex = Explainer(model)
    X = rows * 5  # 20 rows
    plain = ex.explain_batch(X)
    assert plain.equals(ex.explain_batch(X, time_limit=never()))
    with pytest.raises(ComputationLimitError, match="explain_batch") as e:
        ex.explain_batch(X, time_limit=Deadline(5.0, clock=fake_clock(1)))
    assert e.value.limit == "time_limit"
    monkeypatch.setattr(_vectorised, "LIMITED_ROWS", 3)
    given = []
    with pytest.raises(ComputationLimitError):  # reading X polls twice, then each slice
        for record in ex.explain_batch(X, as_frame=False,
                                       time_limit=Deadline(5.0, clock=fake_clock(5))):
            given.append(record)
    assert len(given) == 6  # two slices of 3 rows, as without a limit
    assert [r["axp"] for r in given] == plain["axp"].tolist()[:6]


# ---------------------------------------------------------------- the verify=True re-checks
class SetClock:
    """A clock that reads ``t``, set by the test."""

    def __init__(self):
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


@pytest.mark.parametrize("engine", ["path", "sat"])
def test_the_verify_recheck_shares_the_query_deadline(small_tree, engine, monkeypatch):
    """The deadline passes just as the certificate's re-check starts: the call raises, as
    the re-check polls the query's deadline."""
    from xdt.explain import _explainer

    model, rows, _ = small_tree
    clock = SetClock()
    real = _explainer.check_certificates

    def late(*args, **kw):
        clock.t = 100.0
        return real(*args, **kw)

    monkeypatch.setattr(_explainer, "check_certificates", late)
    ex = Explainer(model, engine=engine)
    x = rows[0]
    for call in (lambda d: ex.axp(x, verify=True, time_limit=d),
                 lambda d: ex.cxp(x, verify=True, time_limit=d),
                 lambda d: ex.inflate(x, ex.axp(x), verify=True, time_limit=d)):
        clock.t = 0.0
        with pytest.raises(ComputationLimitError, match="time limit"):
            call(Deadline(5.0, clock=clock))
    monkeypatch.setattr(_explainer, "check_certificates", real)
    clock.t = 0.0
    assert ex.axp(x, verify=True, time_limit=Deadline(5.0, clock=clock)).verified


def test_a_delta_axp_recheck_shares_its_deadline(small_tree, monkeypatch):
    from xdt.explain.queries import _probability

    model, rows, dist = small_tree
    clock = SetClock()
    real = _probability.check_precision_certificate

    def late(*args, **kw):
        clock.t = 100.0
        return real(*args, **kw)

    monkeypatch.setattr(_probability, "check_precision_certificate", late)
    with pytest.raises(ComputationLimitError, match="delta-AXp"):
        Explainer(model).delta_axp(rows[0], 0.9, distribution=dist, verify=True,
                                   time_limit=Deadline(5.0, clock=clock))


def test_a_box_enumeration_in_a_check_predicts_in_polled_slices(forest, monkeypatch):
    from xdt.explain.checks import _verify

    model, rows, _ = forest
    monkeypatch.setattr(_verify, "POLL_POINTS", 10)
    points = np.zeros((35, len(model.features)), dtype=np.int64)
    with _deadline.running(never()):
        assert (_verify.predict_polled(model, points) == model.predict_cells(points)).all()
    with _deadline.running(Deadline(5.0, clock=fake_clock(3))):
        with pytest.raises(_deadline.EnumerationStopped):
            _verify.predict_polled(model, points)


# ---------------------------------------------------------------- the report's row budget
def test_a_report_row_whose_axp_is_cut_says_so_and_the_report_goes_on(small_tree,
                                                                       monkeypatch):
    import json
    import re

    import pandas as pd

    from xdt.report import _html as report_html
    from xdt.run import _instance

    model, rows, _ = small_tree
    clocks = iter([lambda: 0.0, fake_clock(1), lambda: 0.0])  # row 1: passed at once

    def per_row(seconds):
        return Deadline(seconds, clock=next(clocks))

    monkeypatch.setattr(_instance, "Deadline", per_row)
    report = report_html.explain_rows(model, pd.DataFrame(rows[:3]), time_limit=2.0)
    assert [r.axp is None for r in report.rows] == [False, True, False]
    assert report.axp_cut == 1 and report.time_limited >= 1
    ex = Explainer(model)
    assert report.rows[0].axp.features == ex.axp(rows[0]).features
    assert report.rows[2].axp.features == ex.axp(rows[2]).features
    assert report.rows[1].prediction == ex.predict(rows[1])
    assert all(r.checked for r in report.rows)
    page = report_html.build_report(model, pd.DataFrame(rows[:3]), report=report)
    cut = "AXp not found within the time limit (2 s)"
    assert cut in page
    note = re.search(r'<p class="note" id="xdt-time-limited">(.*?)</p>', page, re.S).group(1)
    assert "1 of them have no AXp" in note
    data = json.loads(re.search(r'<script type="application/json" id="xdt-data">(.*?)'
                                r'</script>', page, re.S).group(1))
    assert data["rows"][1]["axp"] is None and data["rows"][1]["cut"] == cut
    assert data["rows"][1]["a"] == [] and data["rows"][0]["axp"] is not None
    assert data["records"][1]["axp"] is None
    assert data["records"][1]["no_axp"]["stopped_by"] == "time_limit"


# ---------------------------------------------------------------- the cross-checks
class Passed(Deadline):
    """A deadline made from a number of seconds that has passed at its first reading."""

    def __init__(self, seconds, clock=None):
        super().__init__(seconds, clock=fake_clock(1))


@pytest.mark.parametrize("engine_pair", ["ensemble", "rules"])
def test_a_crosscheck_leaves_out_the_checks_of_an_answer_the_limit_cut(forest, engine_pair,
                                                                       monkeypatch):
    from xdt.ir import DNF, Condition

    if engine_pair == "ensemble":
        model, rows, _ = forest
        rows = rows[:2]
    else:
        model = DNF([Feature(n, "binary") for n in "abcd"], [0, 1],
                    [[Condition("a", (1,)), Condition("b", (1,))],
                     [Condition("c", (1,)), Condition("d", (1,))]])
        rows = [{"a": 0, "b": 1, "c": 1, "d": 0}, {"a": 1, "b": 1, "c": 0, "d": 0}]
    plain = xdt.crosscheck(model, rows, enumerate=False, time_limit=5.0)
    assert plain.ok and plain.checked["axp"] == plain.checked["cxp"] == 2
    # each answer's own deadline has passed at once: no AXp or CXp, so none of their checks
    monkeypatch.setattr(_deadline, "Deadline", Passed)
    cut = xdt.crosscheck(model, rows, enumerate=False, time_limit=5.0)
    assert cut.ok and cut.rows == 2
    assert all(n == 0 for n in cut.checked.values())


def test_a_report_row_whose_recheck_is_cut_is_not_checked_rather_than_failed(small_tree,
                                                                               monkeypatch):
    import pandas as pd

    from xdt.report import _html as report_html

    model, rows, _ = small_tree
    real = report_html.check_certificates
    def late(model, explanations, *, rows=None):
        if 1 in (rows or []):  # row 1's re-check meets a deadline that has passed
            with _deadline.running(Deadline(5.0, clock=fake_clock(1))):
                return real(model, explanations, rows=rows)
        return real(model, explanations, rows=rows)

    monkeypatch.setattr(report_html, "check_certificates", late)
    report = report_html.explain_rows(model, pd.DataFrame(rows[:3]), time_limit=2.0)
    assert [r.checked for r in report.rows] == [True, False, True]
    assert [r.check_cut for r in report.rows] == [False, True, False]
    assert report.rows[1].axp is not None  # explained in full; only its re-check was cut
    page = report_html.build_report(model, pd.DataFrame(rows[:3]), report=report)
    assert "not checked (time limit)" in page and "no (failed)" not in page
    assert "2 of 3 rows passed (1 not re-checked within the time limit)" in page
