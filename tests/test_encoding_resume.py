"""A tree ensemble's SAT encoding is built by the first query that needs it, under that
query's deadline, and a build (or a solver load) that a deadline stops is continued by the
next call: without the wall clock, on deadlines whose fake clock passes after a given
number of readings (issue 32: a large forest's encoding must finish under short limits).

* ``Explainer(model, engine="sat")`` builds nothing;
* a build cut after ``k`` trees keeps them, the next call goes on from tree ``k``, and the
  encoding it ends with equals (clauses, variables, tables) one built in one go;
* queries cut during the build raise ``ComputationLimitError`` saying how many trees are
  built and that calling again continues; once built they answer as the box engine does;
* a solver load that a deadline stops is continued by the next call;
* one thread builds at a time; one that cannot wait raises as its deadline says.
"""

from __future__ import annotations

import itertools
import re
import threading
from functools import partial

import numpy as np
import pytest
from pysat.examples.genhard import PHP
from sklearn.datasets import make_classification
from sklearn.ensemble import RandomForestClassifier

import xdt
from xdt.errors import ComputationLimitError
from xdt.explain import Deadline, Explainer
from xdt.explain.engines import _deadline, _sat
from xdt.explain.engines._ensemble_box import BoxOracle
from xdt.explain.engines._ensemble_sat import EnsembleEncoding
from xdt.explain.engines._instance_oracle import sat_oracle
from xdt.explain.engines._sat_cache import shared_encoding

N_TREES = 12


def fake_clock(readings: int):
    """Reads 0 ``readings`` times, then 100 for ever: a deadline made on it reads it once
    when made, so its ``readings``-th poll after that finds it passed."""
    return itertools.chain(itertools.repeat(0.0, readings), itertools.repeat(100.0)).__next__


def cut(readings: int) -> Deadline:
    return Deadline(5.0, clock=fake_clock(readings))


def new_forest(seed: int = 0):
    """A fresh 3-class forest (a new model object: its shared encoding is not built yet)
    and three of its training rows."""
    X, y = make_classification(n_samples=300, n_features=5, n_informative=4,
                               n_redundant=0, n_classes=3, random_state=seed)
    est = RandomForestClassifier(n_estimators=N_TREES, max_depth=4,
                                 random_state=seed).fit(X, y)
    names = [f"f{i}" for i in range(X.shape[1])]
    model = xdt.from_sklearn(est, feature_names=names)
    return model, [dict(zip(names, r.tolist(), strict=True)) for r in X[:3]]


def same_encoding(a: EnsembleEncoding, b: EnsembleEncoding) -> None:
    """``a`` and ``b`` (built at once, never queried) hold the same variables, clauses and
    tables (``a``'s queries may have numbered their "beats" variables after them)."""
    assert a.complete and b.complete
    assert {o: v for o, v in a.pool.obj2id.items() if v <= b.pool.top} == b.pool.obj2id
    assert a.domain == b.domain
    assert a.path_clauses == b.path_clauses and a.order_clauses == b.order_clauses
    assert a.leaf_clauses == b.leaf_clauses
    for name in ("leaf_vars", "leaf_tree", "leaf_path", "leaf_values", "rank", "order_var",
                 "high", "low", "level_table", "level_ids", "level_count", "_positions",
                 "_starts"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert a.level_vars == b.level_vars and a._last_leaf == b._last_leaf
    for x, y in zip(a.levels, b.levels, strict=True):
        assert all(np.array_equal(u, v) for u, v in zip(x, y, strict=True))
    for f in range(len(a.cells)):
        assert np.array_equal(a.first[f], b.first[f]) and np.array_equal(a.last[f], b.last[f])
        assert (a.admits[f] is None) == (b.admits[f] is None)


def test_making_a_sat_explainer_builds_no_encoding():
    model, _ = new_forest()
    Explainer(model, engine="sat")
    enc = shared_encoding(model)
    assert not enc.complete and enc.trees_built == 0
    assert not hasattr(enc, "leaf_clauses")


@pytest.mark.parametrize("k", [1, 5, N_TREES - 1])
def test_a_build_cut_after_k_trees_resumes_to_the_encoding_built_at_once(k):
    model, _ = new_forest()
    enc = EnsembleEncoding(model, lazy=True)
    with _deadline.running(cut(k)):
        with pytest.raises(_deadline.EnumerationStopped,
                           match=f"{k} of {N_TREES} trees built; calling again continues"):
            enc.build()
    assert enc.trees_built == k and not enc.complete
    with _deadline.running(cut(1)), pytest.raises(_deadline.EnumerationStopped):
        enc.build()  # one more tree per call at least
    assert enc.trees_built == k + 1
    if k + 1 == N_TREES:  # then the tables are joined, one per call at least
        with _deadline.running(cut(1)), pytest.raises(
                _deadline.EnumerationStopped, match="5 of its tables left to join"):
            enc.build()
        assert not enc.complete and not hasattr(enc, "leaf_clauses")
    enc.build()  # no deadline: the rest
    assert enc.complete and enc.trees_built == N_TREES
    same_encoding(enc, EnsembleEncoding(model))


def test_queries_cut_during_the_build_say_so_then_answer_as_the_box_engine():
    model, rows = new_forest(1)
    sat = Explainer(model, engine="sat", certificates=False)
    enc = shared_encoding(model)
    built = []
    while not enc.complete:
        with pytest.raises(ComputationLimitError) as e:
            sat.axp(rows[0], time_limit=cut(3))  # three trees per call
        assert e.value.limit == "time_limit"
        if not enc.complete:
            assert re.search(rf"{enc.trees_built} of {N_TREES} trees built(, \d of its "
                             r"tables left to join)?; calling again continues it\); raise "
                             r"time_limit", str(e.value))
        built.append(enc.trees_built)
    # each call went on where the last stopped (the query polls the clock too), and the
    # last one finished the build, not its AXp
    assert len(built) >= N_TREES // 3 and built[-1] == N_TREES
    assert all(0 < b - a <= 3 or a == b == N_TREES  # the tables are joined last
               for a, b in zip([0, *built], built, strict=False))
    box = Explainer(model, engine="box", certificates=False)
    for x in rows:
        assert sat.axp(x).features == box.axp(x).features
        assert sat.cxp(x).features == box.cxp(x).features
        assert [e.features for e in sat.all_cxps(x)] == [e.features for e in box.all_cxps(x)]
    same_encoding(enc, EnsembleEncoding(model))


def test_an_enumeration_cut_during_the_build_is_marked_and_the_next_goes_on():
    model, rows = new_forest(2)
    sat = Explainer(model, engine="sat", certificates=False)
    first = sat.all_axps(rows[0], time_limit=cut(4))
    assert first.stopped_by == "time_limit" and len(first) == 0
    assert shared_encoding(model).trees_built == 4
    sat.all_axps(rows[0], time_limit=cut(4))
    assert shared_encoding(model).trees_built == 8


def test_a_solver_load_stopped_by_a_deadline_is_continued(monkeypatch):
    monkeypatch.setattr(_sat, "LOAD_SLICE", 10)
    clauses = PHP(5).clauses  # unsatisfiable
    shared = _sat.SharedSolver("cadical195", clauses)
    loaded = []
    while not shared.alive:
        with _deadline.running(cut(2)), pytest.raises(_deadline.EnumerationStopped) as e:
            shared.satisfiable([])  # two slices per call (the solve is stopped too)
        if not shared.alive:
            assert f"{shared._loaded} of {len(clauses):,} clauses loaded; calling again " \
                "continues it" in str(e.value)
        loaded.append(shared._loaded)
    assert loaded == [*range(20, len(clauses), 20), len(clauses)]
    assert shared.alive and shared.starts == 1 and shared._loading is None
    assert shared.satisfiable([]) is False
    shared.release()


def test_releasing_a_half_loaded_solver_starts_it_again(monkeypatch):
    monkeypatch.setattr(_sat, "LOAD_SLICE", 10)
    shared = _sat.SharedSolver("cadical195", PHP(4).clauses)
    with _deadline.running(cut(1)), pytest.raises(_deadline.EnumerationStopped):
        shared.satisfiable([])
    shared.release()
    assert shared._loading is None and not shared.alive
    assert shared.satisfiable([]) is False and shared.starts == 1


def test_a_call_that_cannot_wait_for_another_threads_build_stops():
    model, _ = new_forest(3)
    enc = EnsembleEncoding(model, lazy=True)
    assert enc._build_lock.acquire()  # another call is building it
    try:
        with _deadline.running(cut(1)):
            with pytest.raises(_deadline.EnumerationStopped,
                               match="0 of 12 trees built; another call is building it"):
                enc.build()
    finally:
        enc._build_lock.release()
    enc.build()
    assert enc.complete


def test_threads_sharing_one_explainer_build_the_encoding_once():
    model, rows = new_forest(4)
    ex = Explainer(model, engine="sat", certificates=False)
    got: dict[int, tuple] = {}
    errors: list[BaseException] = []

    def work(i: int) -> None:
        try:
            got[i] = ex.axp(rows[i % len(rows)]).features
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    box = Explainer(model, engine="box")
    assert all(got[i] == box.axp(rows[i % len(rows)]).features for i in range(4))
    same_encoding(shared_encoding(model), EnsembleEncoding(model))


def test_the_box_engine_hands_over_to_a_sat_encoding_built_under_the_querys_deadline():
    """Queries past the box engine's limit go to the SAT engine (its fallback): the encoding
    is built then, under the deadline of the query, and resumed by the next one."""
    model, rows = new_forest(5)
    cells = model.encode([rows[0]])[0].tolist()
    c = int(model.predict_cells(np.asarray([cells]))[0])
    allowed, universe = [1 << v for v in cells], (1 << len(cells)) - 1
    box = BoxOracle(model, cells, allowed, universe, c, max_boxes=1,
                    fallback=partial(sat_oracle, model, "cadical195", cells, allowed, universe,
                                     c))
    enc = shared_encoding(model)
    assert enc.trees_built == 0
    readings = 1
    while enc.trees_built == 0:  # the box engine polls the clock first, some times
        readings += 1
        with _deadline.running(cut(readings)), \
                pytest.raises(_deadline.EnumerationStopped) as e:
            box.entails(0)  # freeing every feature: the bounds cannot decide it
    assert f"{enc.trees_built} of {N_TREES} trees built" in str(e.value)
    assert box.handed >= 1 and 0 < enc.trees_built < N_TREES
    assert box.entails(0) is False and enc.complete
    direct = Explainer(model, engine="box")
    for mask in range(1 << len(cells)):
        assert box.entails(mask) == direct._query(rows[0], False).oracle.entails(mask)


def test_an_ensemble_solver_loads_the_encodings_clauses_without_copying_them():
    model, rows = new_forest(6)
    ex = Explainer(model, engine="sat", certificates=False)
    ex.axp(rows[0])
    enc = shared_encoding(model)
    (c, _), shared = next(iter(enc._solvers.items()))
    assert shared._base[1] is enc.leaf_clauses  # the encoding's list, loaded as it is
    assert [list(x) for x in shared._parts()[:3]] == [list(x) for x in
                                                      (enc.domain, *(enc.leaf_clauses,),
                                                       [enc.differs(c)[-1]])]
    assert shared._loaded == len(enc.domain) + len(enc.differs(c))
    assert shared.clauses == [] or shared.lemmas == len(shared.clauses)  # the lemmas only


def test_a_lazy_round_past_the_deadline_stops_after_its_first_lemma():
    # a round's lemmas: per class k that the solver's model says beats c, a leaf lemma, a
    # spread lemma and a box lemma (the box ones cost seconds on a large forest); past the
    # deadline the round gives its first lemma only, which already excludes the model
    model, _ = new_forest(3)
    encoding = shared_encoding(model)
    encoding.build()
    found = 0
    for c in range(len(model.classes)):
        refine = encoding.refiner(c)
        solver = _sat.Solver(name="cadical195", bootstrap_with=[
            *encoding.domain, *encoding.leaf_clauses, list(encoding.beats_vars(c).values())])
        while solver.solve():
            assignment = solver.get_model()
            full = refine(assignment)
            if full is None:
                break  # a true counterexample: no lemma
            with _deadline.running(Deadline(1.0, clock=fake_clock(1))):
                short = refine(assignment)
            assert len(full) > 1 and short == full[:1]
            found += 1
            solver.append_formula(full)
        solver.delete()
    assert found > 0
