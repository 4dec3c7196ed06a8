"""The SAT engine encodes a model once: one encoding per model object, one incremental solver
per (class, solver name) shared by every Explainer and instance of the model, each instance
posed as assumptions only; the solvers live as long as the model; a shared solver answers the
threads one at a time."""

from __future__ import annotations

import gc
import itertools
import random
import threading
import weakref

import pytest
from conftest import case_names, load_case
from test_explain_dnf import AB_CD, RULES
from test_properties import path_oracle
from test_sat import INSTANCES, make_oracles, retest_tree

import xdt
from xdt.explain.checks import _verify as verify
from xdt.explain.engines._oracle import bits
from xdt.explain.engines._sat import ModelEncoding, SatOracle
from xdt.explain.engines._sat_cache import release_solvers, shared_encoding
from xdt.ir import Branch, CategoricalSplit, DecisionTree, Feature, Leaf, ThresholdSplit
from xdt.ir._cells import full_mask
from xdt.ir._instances import encode_instance


def sat_oracles(ex: xdt.Explainer) -> list[SatOracle]:
    return [q.oracle for q in ex._cache.values()]


def shared_solvers(model) -> dict:
    return shared_encoding(model)._solvers


# ---------------------------------------------------------------------- one encoding per model
def test_explainers_of_one_model_share_its_encoding_and_solvers():
    tree = retest_tree()
    with xdt.Explainer(tree, engine="sat") as a, xdt.Explainer(tree, engine="sat") as b:
        assert a._encoding is b._encoding is shared_encoding(tree)
        for x in INSTANCES:
            a.axp(x)
            b.all_cxps(x, path_restricted=True)
        oracles = sat_oracles(a) + sat_oracles(b)
        assert len(oracles) == 2 * len(INSTANCES)
        # one solver per class of the instances, whatever the explainer or the instance
        by_class = {}
        for o in oracles:
            assert by_class.setdefault(o.prediction, o._shared) is o._shared
        assert {o.prediction for o in oracles} == {0, 1}  # INSTANCES are p, q, p, q
        solvers = shared_solvers(tree)
        assert set(solvers) == {(0, "cadical195"), (1, "cadical195")}
        assert all(s.starts == 1 for s in solvers.values())
    other = retest_tree()  # an equal model, another object: its own encoding
    assert shared_encoding(other) is not shared_encoding(tree)


def test_fresh_explainers_per_row_reuse_the_solvers():
    model = RULES
    rows = [{"b": b, "colour": c, "x": x}
            for b, c, x in itertools.product((0, 1), ("red", "green", "blue"), (0.5, 2.0, 9.0))]
    expected = []
    for x in rows:
        with xdt.Explainer(model) as ex:  # the SAT engine, a fresh explainer per row
            expected.append((ex.axp(x).features, ex.cxp(x).features))
            assert ex._encoding is shared_encoding(model)
    solvers = shared_solvers(model)
    assert set(solvers) == {(0, "cadical195"), (1, "cadical195")}
    assert all(s.starts == 1 and s.alive for s in solvers.values())
    # and they answer as the brute force says
    for x, (axp, _) in zip(rows, expected, strict=True):
        assert frozenset(axp) in verify.brute_force(model, x).axps


def test_other_solver_names_get_their_own_solver():
    tree = retest_tree()
    with xdt.Explainer(tree, engine="sat", solver="glucose4") as g, \
            xdt.Explainer(tree, engine="sat") as c:
        x = INSTANCES[0]
        assert g.axp(x).features == c.axp(x).features
        (og,), (oc,) = sat_oracles(g), sat_oracles(c)
        assert og._shared is not oc._shared
        assert (og._shared.name, oc._shared.name) == ("glucose4", "cadical195")


def test_direct_encodings_are_not_shared():
    tree = retest_tree()
    enc = ModelEncoding(tree)
    assert enc is not shared_encoding(tree) and enc.model is tree


# ---------------------------------------------------------------------- instances as assumptions
def test_instances_add_no_clause_to_the_shared_solver():
    """However many instances are asked, the solver of class c holds exactly
    ``domain + differs(c)``: no selector, no per-instance clause."""
    tree = retest_tree()
    enc = shared_encoding(tree)
    with xdt.Explainer(tree, engine="sat") as ex:
        for x in INSTANCES:
            ex.all_axps(x)
            ex.all_axps(x, path_restricted=True)
        assert enc._solvers
        for (c, _), shared in enc._solvers.items():
            assert shared.clauses == enc.domain + enc.differs(c)
            top = max(abs(lit) for clause in shared.clauses for lit in clause)
            assert shared._solver.nof_vars() <= top  # no selector variable
            assert all(enc.pool.obj(v) is None or enc.pool.obj(v)[0] in ("cell", "gt")
                       for v in range(1, top + 1))


def test_fixing_literals():
    """The assumptions that hold a feature to a cell set: an ordinal interval by its two
    bounds, one one-hot cell by its variable, a larger one-hot set by excluding the rest."""
    tree = retest_tree()  # x: ordinal, thresholds 1.5, 2.5, 3.5; c: a..d; b: binary
    enc = ModelEncoding(tree)
    gt = [enc.pool.id(("gt", 0, j)) for j in range(3)]
    cell = [enc.pool.id(("cell", 1, j)) for j in range(4)]
    assert enc.fixing(0, 0b0001) == [-gt[0]]            # x <= 1.5
    assert enc.fixing(0, 0b0110) == [gt[0], -gt[2]]     # 1.5 < x <= 3.5
    assert enc.fixing(0, 0b1000) == [gt[2]]             # 3.5 < x
    assert enc.fixing(0, 0b1111) == [] == enc.fixing(1, 0b1111)
    assert enc.fixing(1, 0b0100) == [cell[2]]            # c = c
    assert enc.fixing(1, 0b0101) == [-cell[1], -cell[3]]  # c in {a, c}
    assert enc.cell_literals[0] == [[-gt[0]], [gt[0], -gt[1]], [gt[1], -gt[2]], [gt[2]]]
    with pytest.raises(ValueError, match="not an interval"):
        enc.fixing(0, 0b0101)
    with pytest.raises(ValueError, match="cells"):
        enc.fixing(1, 0b10000)


def test_shared_solver_answers_every_instance_like_the_path_walker():
    """Every query of every instance, restricted or not, interleaved on the shared solvers:
    the same entailment answers as the path-walker, and counterexamples inside the fixed
    cells of another class."""
    tree = retest_tree()
    enc = shared_encoding(tree)
    pairs = []
    for x in INSTANCES:
        for restricted in (False, True):
            po, _ = make_oracles(tree, x, restricted)  # only its path oracle is used
            pairs.append((po, SatOracle(enc, po.cells, po.allowed, po.universe,
                                        po.prediction)))
    for fixed in range(1 << 3):
        for po, so in pairs:
            f = fixed & po.universe
            assert so.entails(f) == po.entails(f), (po.cells, bits(f))
            point = so.counterexample(f)
            assert (point is None) == (po.counterexample(f) is None)
            if point is not None:
                assert all((po.allowed[i] >> point[i]) & 1 for i in bits(f))
                assert tree.predict_cells([point])[0] != po.prediction
    for _, so in pairs:
        so.close()


@pytest.mark.parametrize("name", case_names())
def test_worked_cases_with_one_explainer_for_every_query(name):
    """A worked case's queries all on one SAT explainer of one model object (so on its
    shared solvers) and on fresh explainers of it: the case's AXps and CXps."""
    case = load_case(name)
    model = xdt.load_model(case["model"])
    with xdt.Explainer(model, engine="sat") as ex:
        for q in case["queries"]:
            x = q["instance"]
            for e in (ex, xdt.Explainer(model, engine="sat")):
                assert e.predict(x) == q["prediction"]
                assert {frozenset(a.features) for a in e.all_axps(x)} == \
                    {frozenset(a) for a in q["axps"]}
                assert {frozenset(c.features) for c in e.all_cxps(x)} == \
                    {frozenset(c) for c in q["cxps"]}
                assert frozenset(e.axp(x).features) in {frozenset(a) for a in q["axps"]}
                if "path_restricted_axps" in q:
                    assert {frozenset(a.features)
                            for a in e.all_axps(x, path_restricted=True)} == \
                        {frozenset(a) for a in q["path_restricted_axps"]}


def test_dimacs_export_is_the_oracles_query():
    """The per-instance CNF of the export (selectors) answers as the oracle's assumptions."""
    from pysat.solvers import Solver

    tree = retest_tree()
    _, so = make_oracles(tree, INSTANCES[2], True)
    with so, Solver(name="cadical195", bootstrap_with=so.clauses) as s:
        for fixed in range(1 << 3):
            fixed &= so.universe
            assumptions = [so.selectors[f] for f in bits(fixed)]
            assert (not s.solve(assumptions=assumptions)) == so.entails(fixed)


def wide_tree(seed: int = 0) -> DecisionTree:
    """A random tree over 20 features (ordinal, binary, categorical), depth 7."""
    rng = random.Random(seed)
    feats = ([Feature(f"x{i}", "ordinal") for i in range(8)]
             + [Feature(f"b{i}", "binary") for i in range(8)]
             + [Feature(f"c{i}", "categorical", ("a", "b", "c")) for i in range(4)])

    def node(depth: int):
        if depth == 0 or rng.random() < 0.1:
            return Leaf(rng.choice("pqr"))
        f = rng.choice(feats)
        if f.kind == "ordinal":
            return ThresholdSplit(f.name, rng.choice((0.5, 1.5, 2.5)), node(depth - 1),
                                  node(depth - 1))
        if f.kind == "binary":
            return CategoricalSplit(f.name, (Branch((0,), node(depth - 1)),
                                             Branch((1,), node(depth - 1))))
        return CategoricalSplit(f.name, (Branch(("a",), node(depth - 1)),
                                         Branch(("b", "c"), node(depth - 1))))

    return DecisionTree(feats, ["p", "q", "r"], node(7))


@pytest.mark.parametrize("seed", range(3))
def test_many_features_answer_like_the_path_walker(seed):
    """Above 16 features an oracle selects its assumptions from a flattened list (features
    with zero, one or two literals): the same answers as the path-walker."""
    tree = wide_tree(seed)
    rng = random.Random(seed)
    enc = shared_encoding(tree)
    kinds = set()
    for _ in range(6):
        x = {f.name: rng.choice((0.0, 1.0, 2.0, 3.0)) if f.kind == "ordinal"
             else rng.choice(f.domain) for f in tree.features}
        for restricted in (False, True):
            po = path_oracle(tree, x, restricted)
            with SatOracle(enc, po.cells, po.allowed, po.universe, po.prediction) as so:
                kinds.add((so._flat is not None, so._owner is not None))
                for _ in range(40):
                    fixed = rng.getrandbits(20) & po.universe
                    assert so.entails(fixed) == po.entails(fixed), (x, bits(fixed))
                    assert so._assumptions(fixed) == [
                        lit for f in bits(fixed) for lit in enc.fixing(f, po.allowed[f])]
                    point = so.counterexample(fixed)
                    if point is not None:
                        assert all((po.allowed[f] >> point[f]) & 1 for f in bits(fixed))
                        assert tree.predict_cells([point])[0] != po.prediction
    assert (True, True) in kinds  # the flattened selection was used


# ---------------------------------------------------------------------- lifetimes
def test_close_keeps_the_shared_solvers_and_release_solvers_frees_them():
    tree = retest_tree()
    ex = xdt.Explainer(tree, engine="sat")
    x = INSTANCES[0]
    first = ex.axp(x).features
    (oracle,) = sat_oracles(ex)
    ex.close()
    assert not oracle._finalizer.alive
    with pytest.raises(RuntimeError, match="closed"):
        oracle.entails(0)
    shared = shared_solvers(tree)[(oracle.prediction, "cadical195")]
    assert shared.alive  # other explainers of the model keep using it
    release_solvers(tree)
    assert not shared.alive
    assert ex.axp(x).features == first  # a new solver is started on demand
    assert shared.alive and shared.starts == 2
    release_solvers(retest_tree())  # a model the engine never saw: nothing to do


def test_garbage_collected_model_releases_its_solvers():
    tree = retest_tree()
    with xdt.Explainer(tree, engine="sat") as ex:
        for x in INSTANCES:
            ex.axp(x)
    solvers = list(shared_solvers(tree).values())
    assert solvers and all(s.alive for s in solvers)
    model = weakref.ref(tree)
    del ex, tree
    gc.collect()
    assert model() is None
    assert not any(s.alive for s in solvers)


def test_an_open_oracle_keeps_the_model_and_its_solver():
    tree = retest_tree()
    so = SatOracle(shared_encoding(tree), *_instance(tree, INSTANCES[1]))
    model = weakref.ref(tree)
    del tree
    gc.collect()
    assert model() is not None and so.entails(full_mask(3))
    so.close()
    gc.collect()
    assert model() is None


def _instance(tree, x):
    _, cells = encode_instance(tree.features, tree.cells, x)
    prediction = tree.paths[int(tree.leaf_paths([cells])[0])].class_index
    return cells, tuple(1 << c for c in cells), full_mask(len(cells)), prediction


# ---------------------------------------------------------------------- threads
def test_threads_share_the_solvers_safely():
    """Explainers of one model in four threads at once: every answer as in one thread (the
    counterexamples, read right after their solve call, are points of the other class)."""
    model = AB_CD
    rows = [dict(zip("abcd", bits_, strict=True))
            for bits_ in itertools.product((0, 1), repeat=4)]
    with xdt.Explainer(model) as ex:
        expected = [(ex.axp(x).features, {frozenset(c.features) for c in ex.all_cxps(x)})
                    for x in rows]
    errors: list[BaseException] = []

    def work():
        try:
            for _ in range(5):
                with xdt.Explainer(model) as e:
                    for x, want in zip(rows, expected, strict=True):
                        cxps = e.all_cxps(x)
                        assert (e.axp(x).features, {frozenset(c.features) for c in cxps}) \
                            == want
                        for c in cxps:
                            assert model.predict([c.counterexample])[0] == \
                                c.counterexample_class != e.predict(x)
        except BaseException as err:  # noqa: BLE001 - reported below
            errors.append(err)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_a_model_collected_while_another_is_encoded():
    """Garbage collection may run a dead model's finaliser inside shared_encoding (which
    holds the cache's lock while it encodes): it must not wait for that lock."""
    dead = retest_tree()
    dead.cycle = dead  # only the cycle collector frees it
    shared_encoding(dead)
    solvers = shared_solvers(dead)
    with xdt.Explainer(dead, engine="sat") as ex:
        ex.axp(INSTANCES[0])
    model = weakref.ref(dead)
    del dead, ex
    init = ModelEncoding.__init__

    def collecting(self, m, **options):
        gc.collect()  # the dead model's finaliser runs here, inside the lock
        init(self, m, **options)

    done: list[ModelEncoding] = []
    gc.disable()
    try:
        ModelEncoding.__init__ = collecting  # type: ignore[method-assign]
        other = retest_tree()
        worker = threading.Thread(target=lambda: done.append(shared_encoding(other)),
                                  daemon=True)
        worker.start()
        worker.join(10)
    finally:
        ModelEncoding.__init__ = init  # type: ignore[method-assign]
        gc.enable()
    assert not worker.is_alive(), "shared_encoding deadlocked"
    assert done and done[0].model is other
    assert model() is None and not any(s.alive for s in solvers.values())
