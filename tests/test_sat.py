"""The SAT engine (xdt.explain.engines._sat): the CNF means what it says on every point of the cell
space, its oracle answers like the path-walker's, its solvers are always released, and the
choice of PySAT solver does not change any answer."""

from __future__ import annotations

import gc
import warnings

import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from pysat.solvers import Solver
from test_properties import names, path_oracle, tree_and_instance, trees
from tiers import examples

import xdt
from xdt.errors import EngineNotAvailableError, UnknownCategoryError
from xdt.explain import _explainer as explainer_module
from xdt.explain.checks import _verify as verify
from xdt.explain.engines._oracle import bits
from xdt.explain.engines._path import PathOracle
from xdt.explain.engines._sat import SOLVERS, ModelEncoding, SatOracle, check_solver
from xdt.ir import Branch, CategoricalSplit, DecisionTree, Feature, Leaf, ThresholdSplit
from xdt.ir._cells import IntervalCells, full_mask
from xdt.ir._instances import encode_instance

SMALL = settings(max_examples=examples(100), deadline=None,
                 suppress_health_check=[HealthCheck.too_slow])
MAX_ENUMERATED = 1500  # points of the cell space the encoding test solves one by one


def cell_literals(enc: ModelEncoding, point) -> list[int]:
    """Assumptions setting every cell variable to the cells of ``point``: ``[x > t_j]`` true
    exactly for ``j < cell`` (order encoding), ``[x = v_j]`` true exactly for the cell."""
    lits = []
    for f, cell in enumerate(point):
        n = enc.model.cells[f].n_cells
        if enc.is_ordinal(f):
            lits.extend(enc.pool.id(("gt", f, j)) * (1 if j < cell else -1) for j in range(n - 1))
        else:
            lits.extend(enc.pool.id(("cell", f, j)) * (1 if j == cell else -1) for j in range(n))
    return lits


def true_vars(enc: ModelEncoding, f: int, cell: int) -> set[int]:
    """The cell variables of feature ``f`` that are true when it lies in ``cell``."""
    if enc.is_ordinal(f):
        return {enc.pool.id(("gt", f, j)) for j in range(cell)}
    return {enc.pool.id(("cell", f, cell))}


def satisfied(clause, true: set[int]) -> bool:
    return any((lit > 0 and lit in true) or (lit < 0 and -lit not in true) for lit in clause)


def make_oracles(tree, x, restricted: bool, solver: str = "cadical195"):
    """(PathOracle, SatOracle) for the same instance; the SatOracle must be closed."""
    po = path_oracle(tree, x, restricted)
    so = SatOracle(ModelEncoding(tree), po.cells, po.allowed, po.universe, po.prediction,
                   solver=solver)
    return po, so


def random_held(tree, data) -> dict[int, int]:
    """Random cell sets for a few features: intervals for ordinal features."""
    held = {}
    for f, cells in enumerate(tree.cells):
        if not data.draw(st.booleans()):
            continue
        n = cells.n_cells
        if isinstance(cells, IntervalCells):
            a = data.draw(st.integers(0, n - 1))
            b = data.draw(st.integers(a, n - 1))
            held[f] = full_mask(b + 1) & ~full_mask(a)
        else:
            held[f] = data.draw(st.integers(1, full_mask(n)))
    return held


def other_class(tree, point, prediction: int) -> bool:
    return tree.paths[int(tree.leaf_paths(np.asarray([point]))[0])].class_index != prediction


# ---------------------------------------------------------------------- the encoding
@SMALL
@given(trees())
def test_differs_is_satisfied_exactly_by_the_other_class_points(tree):
    """For every class c, the domain clauses plus differs(c), with every cell variable fixed
    to one point of the cell space, are satisfiable exactly when the tree does not predict c
    there; the model found decodes back to that point."""
    enc = ModelEncoding(tree)
    points = verify.cell_space(tree)
    if len(points) > MAX_ENUMERATED:
        points = points[np.random.default_rng(0).choice(len(points), MAX_ENUMERATED, False)]
    classes = np.asarray([p.class_index for p in tree.paths])[tree.leaf_paths(points)]
    for c in range(len(tree.classes)):
        with Solver(name="glucose4", bootstrap_with=enc.domain + enc.differs(c)) as s:
            for point, k in zip(points.tolist(), classes.tolist(), strict=True):
                assert s.solve(assumptions=cell_literals(enc, point)) == (k != c), (point, c)
                if k != c:
                    assert enc.decode(s.get_model()) == tuple(point)
        # and without assumptions, every model is a point of another class
        with Solver(name="glucose4", bootstrap_with=enc.domain + enc.differs(c)) as s:
            if s.solve():
                point = enc.decode(s.get_model())
                assert tree.predict_index(
                    [{cl.name: cl.value(j) for cl, j in zip(tree.cells, point, strict=True)}]
                )[0] != c
            else:
                assert (classes == c).all()


@SMALL
@given(trees())
def test_domain_clauses(tree):
    """Order clauses [x > t_j] -> [x > t_{j-1}] for ordinal features, exactly-one for the
    others: the legal assignments of each feature's variables are exactly its cells."""
    enc = ModelEncoding(tree)
    domain = {tuple(c) for c in enc.domain}
    with Solver(name="minisat22", bootstrap_with=enc.domain) as s:
        for f, cells in enumerate(tree.cells):
            n = cells.n_cells
            if enc.is_ordinal(f):
                gts = [enc.pool.id(("gt", f, j)) for j in range(n - 1)]
                for j in range(1, n - 1):
                    assert (-gts[j], gts[j - 1]) in domain
                    assert not s.solve(assumptions=[gts[j], -gts[j - 1]])
                for cell in range(n):  # every cell is one legal assignment
                    assert s.solve(assumptions=[g if j < cell else -g for j, g in enumerate(gts)])
                    assert enc.decode(s.get_model())[f] == cell
                assert not any(("cell", f, j) in enc.pool.obj2id for j in range(n))
            else:
                lits = [enc.pool.id(("cell", f, j)) for j in range(n)]
                assert not s.solve(assumptions=[-v for v in lits])  # at least one
                for i in range(n):
                    assert s.solve(assumptions=[lits[i]])
                    assert [v in s.get_model() for v in lits].count(True) == 1
                    assert enc.decode(s.get_model())[f] == i
                    for j in range(i + 1, n):  # at most one
                        assert not s.solve(assumptions=[lits[i], lits[j]])


@SMALL
@given(trees())
def test_inside_and_outside_literals(tree):
    """inside(f, S) holds exactly on the cells of S, outside(f, S) exactly off them (S an
    interval for ordinal features, any non-empty cell set otherwise)."""
    enc = ModelEncoding(tree)
    for f, cells in enumerate(tree.cells):
        n = cells.n_cells
        if enc.is_ordinal(f):
            masks = [full_mask(b + 1) & ~full_mask(a) for a in range(n) for b in range(a, n)]
            if n >= 3:
                with pytest.raises(ValueError, match="not an interval"):
                    enc.inside(f, 0b101)
        else:
            masks = list(range(1, full_mask(n) + 1))
        for mask in masks:
            for cell in range(n):
                true = true_vars(enc, f, cell)
                inside = all(satisfied(c, true) for c in enc.inside(f, mask))
                assert inside == bool((mask >> cell) & 1), (f, mask, cell)
                assert satisfied(enc.outside(f, mask), true) == (not inside)


@SMALL
@given(trees())
def test_decode_roundtrip(tree):
    enc = ModelEncoding(tree)
    with Solver(name="cadical195", bootstrap_with=enc.domain) as s:
        for point in verify.cell_space(tree)[:200].tolist():
            assert s.solve(assumptions=cell_literals(enc, point))
            assert enc.decode(s.get_model()) == tuple(point)
    for v in range(1, enc.pool.top + 1):  # every variable has a readable meaning
        assert enc.describe_var(v)


def test_one_leaf_tree():
    """differs(c) of a one-leaf tree of class c is the empty clause: always entailed."""
    tree = DecisionTree([Feature("x", "ordinal"), Feature("c", "categorical", ("a", "b"))],
                        ["p", "q"], Leaf("p"))
    assert ModelEncoding(tree).differs(0) == [[]]
    assert ModelEncoding(tree).differs(1) == []
    with xdt.Explainer(tree, engine="sat") as ex:
        x = {"x": 1.0, "c": "a"}
        assert names(ex.all_axps(x)) == {frozenset()}
        assert list(ex.all_cxps(x)) == []
        assert ex.cxp(x) is None and ex.axp(x).features == ()
        assert not ex.path_is_redundant(x)


# ---------------------------------------------------------------------- the oracle
@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree_and_instance(), st.booleans(), st.data())
def test_sat_oracle_answers_like_the_path_oracle(case, restricted, data):
    tree, x = case
    po, so = make_oracles(tree, x, restricted)
    with so:
        assert so.all_cxps() is None
        for _ in range(8):
            fixed = data.draw(st.integers(0, po.universe)) & po.universe
            assert so.entails(fixed) == po.entails(fixed), bits(fixed)
            point = so.counterexample(fixed)
            assert (point is None) == (po.counterexample(fixed) is None)
            if point is not None:  # agrees on the fixed features, and has another class
                assert all((po.allowed[f] >> point[f]) & 1 for f in bits(fixed))
                assert other_class(tree, point, po.prediction)
        for _ in range(4):
            held = random_held(tree, data)
            point = so.counterexample_cells(held)
            assert (point is None) == (po.counterexample_cells(held) is None), held
            assert so.entails_cells(held) == po.entails_cells(held)
            if point is not None:
                assert all((m >> point[f]) & 1 for f, m in held.items())
                assert other_class(tree, point, po.prediction)
        assert so.calls > 0
    assert not so._finalizer.alive
    with pytest.raises(RuntimeError, match="closed"):
        so.entails(0)
    with pytest.raises(RuntimeError, match="closed"):
        so.counterexample_cells({})
    so.close()  # idempotent


# ---------------------------------------------------------------------- solver release
def retest_tree() -> DecisionTree:
    feats = [Feature("x", "ordinal"), Feature("c", "categorical", ("a", "b", "c", "d")),
             Feature("b", "binary")]
    root = ThresholdSplit("x", 2.5,
                          ThresholdSplit("x", 1.5, Leaf("p"), Leaf("q")),
                          CategoricalSplit("c", (
                              Branch(("a", "b"), CategoricalSplit("b", (
                                  Branch((0,), Leaf("p")), Branch((1,), Leaf("r"))))),
                              Branch(("c", "d"), ThresholdSplit("x", 3.5, Leaf("q"),
                                                                Leaf("p"))))))
    return DecisionTree(feats, ["p", "q", "r"], root)


INSTANCES = ({"x": 1.0, "c": "a", "b": 1}, {"x": 3.0, "c": "b", "b": 0},
             {"x": 2.0, "c": "d", "b": 1}, {"x": 9.0, "c": "c", "b": 1})


@pytest.fixture
def created(monkeypatch) -> list[SatOracle]:
    """Every SatOracle built during the test (kept alive here, so only close() can release
    their solvers, not garbage collection)."""
    oracles: list[SatOracle] = []
    init = SatOracle.__init__

    def recording_init(self, *args, **kwargs):
        init(self, *args, **kwargs)
        oracles.append(self)

    monkeypatch.setattr(SatOracle, "__init__", recording_init)
    return oracles


def use(ex: xdt.Explainer, created: list[SatOracle]) -> list[SatOracle]:
    """Run every kind of query; return the oracles built, all still alive."""
    for x in INSTANCES:
        ex.all_axps(x)
        ex.all_cxps(x, path_restricted=True)
        ex.axp(x)
        ex.path_is_redundant(x)
    assert len(created) == 2 * len(INSTANCES)  # one per (instance, restricted or not)
    assert all(o._finalizer.alive for o in created)
    return list(created)


def test_close_releases_the_solvers(created):
    ex = xdt.Explainer(retest_tree(), engine="sat")
    oracles = use(ex, created)
    ex.close()
    assert not any(o._finalizer.alive for o in oracles)
    assert names(ex.all_axps(INSTANCES[0]))  # still usable: a new solver
    assert created[-1]._finalizer.alive
    ex.close()
    assert not created[-1]._finalizer.alive


def test_with_block_releases_the_solvers(created):
    with xdt.Explainer(retest_tree(), engine="sat") as ex:
        oracles = use(ex, created)
    assert not any(o._finalizer.alive for o in oracles)


@pytest.mark.parametrize("error", [ValueError, KeyboardInterrupt])
def test_solvers_released_when_the_block_raises(error, created):
    with pytest.raises(error):
        with xdt.Explainer(retest_tree(), engine="sat") as ex:
            use(ex, created)
            raise error("interrupted")
    assert created and not any(o._finalizer.alive for o in created)


def test_solvers_released_when_a_query_raises(created):
    """A bad instance inside the block: the oracles built before it are released."""
    with pytest.raises(UnknownCategoryError):
        with xdt.Explainer(retest_tree(), engine="sat") as ex:
            use(ex, created)
            ex.all_axps({"x": 1.0, "c": "zz", "b": 1})
    assert not any(o._finalizer.alive for o in created)


def test_oracle_context_manager_and_garbage_collection():
    tree = retest_tree()
    x = INSTANCES[1]
    with make_oracles(tree, x, False)[1] as so:
        assert so.entails(full_mask(3))
    assert not so._finalizer.alive
    so = make_oracles(tree, x, True)[1]
    finalizer = so._finalizer
    del so
    gc.collect()
    assert not finalizer.alive  # a forgotten oracle releases its solver


def test_evicted_oracles_are_released(monkeypatch, created):
    monkeypatch.setattr(explainer_module, "CACHE_SIZE", 2)
    with xdt.Explainer(retest_tree(), engine="sat") as ex:
        for x in INSTANCES:
            ex.axp(x)
        assert len(created) == len(INSTANCES)
        assert [o._finalizer.alive for o in created] == [False] * (len(INSTANCES) - 2) + \
            [True, True]  # the least recently used are released
    assert not any(o._finalizer.alive for o in created)


def test_stopped_enumeration_keeps_the_explainer_usable():
    with xdt.Explainer(retest_tree(), engine="sat") as ex:
        x = INSTANCES[2]
        first = ex.all_axps(x, max_count=1)
        full = ex.all_axps(x)
        assert len(first) == 1 and first.complete == (len(full) == 1)
        assert names(full) == names(xdt.Explainer(retest_tree()).all_axps(x))


# ---------------------------------------------------------------------- solvers
SOLVER_CHOICE = ("cadical195", "glucose4", "minisat22", "g42", "maplechrono", "cadical103")


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree_and_instance(), st.booleans())
def test_solvers_give_identical_answers(case, restricted):
    tree, x = case
    kw = {"path_restricted": restricted}
    answers = []
    for solver in SOLVER_CHOICE:
        with xdt.Explainer(tree, engine="sat", solver=solver) as ex:
            cxps = ex.all_cxps(x, **kw)
            for c in cxps:  # models differ between solvers; each is a real counterexample
                assert tree.predict([c.counterexample])[0] == c.counterexample_class
            one = ex.cxp(x, **kw)
            answers.append((names(ex.all_axps(x, **kw)), names(cxps), ex.axp(x, **kw).features,
                            None if one is None else one.features,
                            len(ex.smallest_axp(x, **kw)), ex.path_is_redundant(x)))
    assert all(a == answers[0] for a in answers[1:]), answers
    path = xdt.Explainer(tree)
    assert answers[0][:3] == (names(path.all_axps(x, **kw)), names(path.all_cxps(x, **kw)),
                              path.axp(x, **kw).features)


def test_every_listed_solver_is_accepted_and_answers():
    tree = retest_tree()
    x = INSTANCES[0]
    expected = names(xdt.Explainer(tree).all_axps(x))
    for name in SOLVERS:
        assert check_solver(name) == name
        if name == "cryptominisat5":  # needs the optional pycryptosat package
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # e.g. "does not support assumptions"
            with xdt.Explainer(tree, engine="sat", solver=name) as ex:
                assert names(ex.all_axps(x)) == expected, name


def test_solver_aliases():
    assert check_solver("g4") == "g4"
    assert check_solver("cd19") == "cd19"
    assert xdt.Explainer(retest_tree(), engine="sat", solver="m22").solver == "m22"


@pytest.mark.parametrize("name", ["nosat", "", "CaDiCaL195", "cryptosat", "minisatgh"])
def test_unknown_solver(name):
    with pytest.raises(EngineNotAvailableError, match="unknown SAT solver"):
        xdt.Explainer(retest_tree(), engine="sat", solver=name)
    with pytest.raises(EngineNotAvailableError, match="PySAT offers: cadical"):
        check_solver(name)


@pytest.mark.parametrize("name", ["kissat404", "kissat", "ks", "lingeling", "lgl"])
def test_solver_without_incremental_assumptions_is_refused(name):
    """Kissat ignores assumptions (with a warning): every entailment query would drop its
    fixed features, and all_cxps would return the empty set. PySAT's Lingeling aborts the
    whole process on assumptions over a variable an earlier call eliminated. Both are
    refused up front."""
    with pytest.raises(EngineNotAvailableError, match="does not support"):
        xdt.Explainer(retest_tree(), engine="sat", solver=name)
    assert name not in SOLVERS


def test_path_oracle_and_sat_oracle_share_the_contract():
    tree = retest_tree()
    _, cells = encode_instance(tree.features, tree.cells, INSTANCES[3])
    po, so = make_oracles(tree, INSTANCES[3], False)
    assert isinstance(po, PathOracle)
    with so:
        assert (so.cells, so.allowed, so.universe, so.prediction) == \
            (po.cells, po.allowed, po.universe, po.prediction) == \
            (cells, tuple(1 << c for c in cells), full_mask(3), po.prediction)
