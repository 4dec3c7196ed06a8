"""The SAT verifier of xdt.explain.checks._verify (its own CNF of the tree's nodes): it agrees with
the depth-first search and with brute force over the cell space on random trees, and checks the
AXps of an unbounded-depth tree fitted on a real dataset, where brute force is hopeless."""

from __future__ import annotations

import itertools
import sys

import hypothesis.strategies as st
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from pysat.solvers import Solver
from test_properties import big_tree_and_instance, tree_and_instance, trees
from tiers import examples

import xdt
from xdt.explain.checks import _verify as verify
from xdt.explain.checks._verify import (
    TreeCnf,
    check_axp,
    check_axp_sat,
    reachable_classes,
    sat_counterexample,
    sat_entails,
    sat_reachable_classes,
)
from xdt.interop._fit import fit_sklearn_tree
from xdt.ir import DecisionTree, Feature, Leaf, ThresholdSplit
from xdt.ir._cells import full_mask

SETTINGS = settings(max_examples=examples(100), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def random_masks(tree, data) -> list[int]:
    """One cell set per feature: free, one cell, or any set (not only intervals, also for
    ordinal features, and occasionally empty)."""
    masks = []
    for cells in tree.cells:
        full = full_mask(cells.n_cells)
        masks.append(data.draw(st.one_of(
            st.just(full), st.integers(0, cells.n_cells - 1).map(lambda j: 1 << j),
            st.integers(0, full))))
    return masks


def classes_by_brute_force(tree, masks) -> set:
    points = verify.cell_space(tree)
    inside = np.ones(len(points), dtype=bool)
    for f, m in enumerate(masks):
        inside &= ((m >> points[:, f]) & 1).astype(bool)
    labels = np.asarray([p.label for p in tree.paths], dtype=object)
    return set(labels[tree.leaf_paths(points[inside])].tolist())


def point_of(tree, cells) -> dict:
    return {c.name: c.value(j) for c, j in zip(tree.cells, cells, strict=True)}


# ---------------------------------------------------------------------- the CNF
@SETTINGS
@given(trees())
def test_reached_nodes_are_the_path(tree):
    """With every cell fixed to a point, the model is forced: the reached nodes are the
    nodes on the point's path and the one true class variable is the tree's prediction."""
    cnf = TreeCnf(tree)
    assert len(cnf.node_vars) == tree.n_nodes
    points = verify.cell_space(tree)[:300]
    paths = tree.leaf_paths(points)
    with Solver(name="minisat22", bootstrap_with=cnf.clauses) as s:
        for point, p in zip(points.tolist(), paths.tolist(), strict=True):
            assert s.solve(assumptions=[cnf.cell_vars[f][j] for f, j in enumerate(point)])
            model = set(s.get_model())
            assert cnf.decode(s.get_model()) == tuple(point)
            reached = [v for v in cnf.node_vars if v in model]
            assert len(reached) == len(tree.paths[p]) + 1  # the root and one node per test
            true_classes = [k for k, y in enumerate(cnf.class_vars) if y in model]
            assert true_classes == [tree.paths[p].class_index]


def test_cnf_sizes_and_one_hot_for_ordinal_features():
    tree = DecisionTree([Feature("x", "ordinal")], ["a", "b"], ThresholdSplit(
        "x", 1.0, Leaf("a"), ThresholdSplit("x", 2.0, Leaf("b"), ThresholdSplit(
            "x", 3.0, Leaf("a"), ThresholdSplit("x", 4.0, Leaf("b"), ThresholdSplit(
                "x", 5.0, Leaf("a"), Leaf("b")))))))
    cnf = TreeCnf(tree)
    assert [len(v) for v in cnf.cell_vars] == [6]  # one-hot over the 6 cells
    assert len(cnf.node_vars) == tree.n_nodes == 11
    assert cnf.n_vars == 6 + 2 + 11 + 5  # cells, classes, nodes, sequential counter
    with Solver(name="glucose4", bootstrap_with=cnf.clauses) as s:
        v = cnf.cell_vars[0]
        assert not s.solve(assumptions=[v[0], v[5]])  # at most one
        assert not s.solve(assumptions=[-u for u in v])  # at least one
    # a non-interval cell set of an ordinal feature is fine here
    assert sat_reachable_classes(tree, {"x": 0b100001}) == {"a", "b"}
    assert sat_reachable_classes(tree, {"x": 0b010101}) == {"a"}
    assert sat_entails(tree, {"x": 0b010101}, "a")
    assert sat_reachable_classes(tree, {"x": 0}) == set()  # nothing inside an empty set


# ---------------------------------------------------------------------- entailment
@SETTINGS
@given(trees(), st.data())
def test_sat_entailment_equals_dfs_and_brute_force(tree, data):
    masks = random_masks(tree, data)
    expected = reachable_classes(tree, masks)
    assert expected == classes_by_brute_force(tree, masks)
    assert sat_reachable_classes(tree, masks) == expected
    for label in tree.classes:
        assert sat_entails(tree, masks, label) == (expected <= {label})
        cells = sat_counterexample(tree, masks, label)
        assert (cells is None) == (expected <= {label})
        if cells is not None:  # inside the cell sets, and predicted another class
            assert all((m >> j) & 1 for m, j in zip(masks, cells, strict=True))
            assert tree.predict([point_of(tree, cells)])[0] != label


@settings(max_examples=examples(40), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(big_tree_and_instance(), st.data())
def test_sat_entailment_equals_dfs_on_big_trees(case, data):
    tree, _ = case
    masks = random_masks(tree, data)
    expected = reachable_classes(tree, masks)
    assert sat_reachable_classes(tree, masks, solver="cadical195") == expected
    label = data.draw(st.sampled_from(tree.classes))
    assert sat_entails(tree, masks, label) == (expected <= {label})


def test_held_forms():
    tree = DecisionTree([Feature("x", "ordinal"), Feature("c", "categorical", ("a", "b"))],
                        ["p", "q"], ThresholdSplit("x", 1.0, Leaf("p"), Leaf("q")))
    for held in ({"x": 0b01}, {0: 0b01}, [0b01, 0b11], {"x": 0b01, "c": 0b10}):
        assert sat_entails(tree, held, "p")
        assert not sat_entails(tree, held, "q")
        assert sat_reachable_classes(tree, held) == {"p"}
    assert sat_reachable_classes(tree, {}) == {"p", "q"}
    assert sat_counterexample(tree, {}, "p") == (1, sat_counterexample(tree, {}, "p")[1])
    with pytest.raises(ValueError, match="2 features"):
        sat_entails(tree, [0b01], "p")
    with pytest.raises(ValueError, match="assumptions"):
        sat_entails(tree, {}, "p", solver="kissat")
    with pytest.raises(ValueError, match="assumptions"):
        check_axp_sat(tree, {"x": 0.0, "c": "a"}, ["x"], solver="lingeling")


@SETTINGS
@given(tree_and_instance(), st.booleans(), st.data())
def test_check_axp_sat_equals_check_axp(case, restricted, data):
    tree, x = case
    ex = xdt.Explainer(tree)
    candidates = [ex.axp(x, path_restricted=restricted).features,
                  data.draw(st.sets(st.sampled_from(tree.features.names)))]
    if restricted:  # path-restricted: subsets of the path's features
        on_path = set(ex.path_features(x))
        candidates[1] = {f for f in candidates[1] if f in on_path}
    for features in candidates:
        by_sat = check_axp_sat(tree, x, features, path_restricted=restricted)
        by_dfs = check_axp(tree, x, features, path_restricted=restricted)
        assert by_sat == by_dfs  # features, prediction, entails
        assert by_sat.reachable == by_dfs.reachable
        assert by_sat.minimal == by_dfs.minimal
        assert (by_sat.counterexample is None) == by_sat.entails
        points = [p for p in by_sat.drop_counterexamples.values() if p is not None]
        if by_sat.counterexample is not None:
            points.append(by_sat.counterexample)
        if points:
            assert not np.any(tree.predict(points) == by_sat.prediction)
    assert check_axp_sat(tree, x, candidates[0], path_restricted=restricted).is_axp


# ---------------------------------------------------------------------- a real tree
ROWS = 20


@pytest.fixture(scope="module")
def german():
    cache: dict = {}

    def get(datasets_dir):
        if not cache:
            frame = pd.read_csv(datasets_dir / "german.csv")
            cache["fit"] = fit_sklearn_tree(frame, "class", max_depth=None)
            cache["X"] = frame.drop(columns=["class"])
        return cache["fit"], cache["X"]

    return get


def test_check_axp_sat_on_an_unbounded_german_tree(datasets_dir, german):
    fit, X = german(datasets_dir)
    tree = fit.model
    assert tree.n_nodes > 150 and tree.depth > 10
    with pytest.raises(ValueError, match="brute-force limit"):
        verify.cell_space(tree)  # far too many points for brute force
    assert sat_reachable_classes(tree, {}) == reachable_classes(
        tree, [full_mask(c.n_cells) for c in tree.cells]) == set(tree.classes)
    rows = np.random.default_rng(3).choice(len(X), size=ROWS, replace=False)
    path = xdt.Explainer(tree)
    checked = refuted = 0
    with xdt.Explainer(tree, engine="sat") as sat:
        for r in rows:
            x = X.iloc[r]
            prediction = path.predict(x)
            axps = {path.axp(x), sat.axp(x, order="features"), sat.smallest_axp(x)}
            drops = []
            for axp in axps:
                report = check_axp_sat(tree, x, axp.features)
                assert report.prediction == prediction
                assert report.reachable == {prediction}
                assert report.is_axp, (r, axp.features, report.drop_counterexamples)
                assert report == check_axp(tree, x, axp.features)
                for dropped, point in report.drop_counterexamples.items():
                    assert all(point[f] == x[f] for f in axp.features if f != dropped)
                    drops.append(point)
                checked += 1
                # a superset entails but is not minimal; a proper subset does not entail
                extra = next(f for f in tree.features.names if f not in axp.features)
                assert not check_axp_sat(tree, x, [*axp.features, extra]).is_axp
                if axp.features:
                    smaller = check_axp_sat(tree, x, axp.features[1:])
                    assert not smaller.entails and smaller.counterexample is not None
                    drops.append(smaller.counterexample)
                    refuted += 1
            frame = pd.DataFrame(drops, columns=X.columns)
            assert not np.any(tree.predict(frame) == prediction)
            assert not np.any(fit.estimator.predict(fit.encoder.transform(frame)) == prediction)
            # path-restricted: the path's literals and its restricted AXps
            for axp in sat.all_axps(x, path_restricted=True, max_count=5):
                assert check_axp_sat(tree, x, axp.features, path_restricted=True).is_axp
            report = check_axp_sat(tree, x, path.path_features(x), path_restricted=True)
            assert report.entails
            assert report.minimal == (not path.path_is_redundant(x))
    assert checked >= ROWS and refuted >= ROWS // 2


@settings(max_examples=examples(200), deadline=None)
@given(st.data())
def test_a_point_outside_terms_is_found_exactly_when_one_exists(data):
    # brute force over a box of up to 3 features x 3 cells: the search answers None exactly
    # when every point of the box is in some term, and otherwise a point of the box in none
    n = data.draw(st.integers(1, 3))
    mask = st.integers(1, 7)
    box = [data.draw(mask) for _ in range(n)]
    terms = data.draw(st.lists(st.dictionaries(st.integers(0, n - 1), mask, min_size=1),
                               max_size=5))
    prefer = data.draw(st.none() | st.tuples(*[st.integers(0, 2)] * n))

    def inside(point, masks):
        return all((masks[f] >> c) & 1 for f, c in enumerate(point))

    outside = [p for p in itertools.product(range(3), repeat=n) if inside(p, box)
               and not any(all((t[f] >> p[f]) & 1 for f in t) for t in terms)]
    point = verify._point_outside_terms(terms, box, prefer)
    if not outside:
        assert point is None
    else:
        assert point in outside


def test_a_point_outside_thousands_of_terms_is_found_without_recursion():
    # term i holds where x_i is cell 1: the one point outside all of them is all cells 0,
    # found after splitting on each term in turn (one level per term)
    n = 3 * sys.getrecursionlimit()
    terms = [{i: 0b10} for i in range(n)]
    assert verify._point_outside_terms(terms, [0b11] * n, None) == (0,) * n
    assert verify._point_outside_terms(terms + [{0: 0b01}], [0b11] * n, None) is None
