"""Path redundancy by Algorithms 1-2 of Izza et al. (xdt.explain.queries._redundant_paths) against
the AXp-based definition (Explainer), on random trees, the worked cases and hand-built trees."""

from __future__ import annotations

import doctest

import pytest
from conftest import load_case, tree_case_names
from hypothesis import HealthCheck, given, settings
from test_properties import big_trees, trees
from tiers import examples

import xdt
import xdt.explain.queries._redundant_paths as redundancy_module
from xdt import Explainer
from xdt.explain.queries._redundant_paths import PathRedundancy, path_redundancy
from xdt.ir import Branch, CategoricalSplit, DecisionTree, Feature, Leaf, ThresholdSplit


def point_on(tree: DecisionTree, path) -> dict:
    """A point on ``path``: the lowest allowed cell of each tested feature, cell 0 elsewhere."""
    point = {}
    for f, cells in enumerate(tree.cells):
        mask = path.masks.get(f, 1)
        cell = (mask & -mask).bit_length() - 1
        point[tree.features.names[f]] = cells.value(cell)
    return point


def check_against_axps(tree: DecisionTree) -> list[PathRedundancy]:
    report = path_redundancy(tree)
    consistent = [p for p in tree.paths if p.consistent]
    assert [r.path for r in report] == [p.index for p in consistent]
    ex = Explainer(tree)
    names = tree.features.names
    for r, path in zip(report, consistent, strict=True):
        x = point_on(tree, path)
        assert tree.leaf_paths(tree.encode([x]))[0] == path.index
        assert r.features == tuple(names[f] for f in path.features)
        assert r.n_literals == len(path.term)
        assert r.redundant == ex.path_is_redundant(x), (r, x)
        axps = {frozenset(e.features) for e in ex.all_axps(x, path_restricted=True)}
        assert frozenset(r.pi_explanation) in axps, (r, axps)
        assert r.pi_explanation == tuple(f for f in r.features if f in r.pi_explanation)
        assert (r.pi_explanation == r.features) == (not r.redundant)
        kept = {tree.features.index(f) for f in r.pi_explanation}
        assert r.redundant_literals == sum(1 for lit in path.term.literals
                                           if lit.feature not in kept)
        assert 0.0 <= r.redundant_share <= 1.0
    return report


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trees())
def test_random_trees_equal_the_axp_definition(tree):
    check_against_axps(tree)


@settings(max_examples=examples(40), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(big_trees(max_nodes=150))
def test_big_random_trees_equal_the_axp_definition(tree):
    check_against_axps(tree)


@pytest.mark.parametrize(("name", "redundant", "paths"), [
    ("restaurant-tree", 2, 8), ("reads-tree", 2, 4), ("zhou-thresholds", 1, 3)])
def test_textbook_trees(name, redundant, paths):
    case = load_case(name)
    report = check_against_axps(xdt.load_model(case["model"]))
    assert (sum(r.redundant for r in report), len(report)) == (redundant, paths)
    assert (case["expected_redundant_paths"], case["expected_paths"]) == (redundant, paths)


@pytest.mark.parametrize("name", tree_case_names())
def test_worked_cases_queries(name):
    case = load_case(name)
    tree = xdt.load_model(case["model"])
    by_path = {r.path: r for r in check_against_axps(tree)}
    if "expected_redundant_paths" in case:
        assert sum(r.redundant for r in by_path.values()) == case["expected_redundant_paths"]
    for q in case["queries"]:
        i = int(tree.leaf_paths(tree.encode([q["instance"]]))[0])
        r = by_path[i]
        if "path" in q:
            assert list(r.features) == q["path"]
        if "path_redundant" in q:
            assert r.redundant == q["path_redundant"]
        if "path_restricted_axps" in q:
            assert frozenset(r.pi_explanation) in {
                frozenset(a) for a in q["path_restricted_axps"]}


def test_feature_tested_twice_counts_both_literals():
    """x tested twice on the path to the lower 'p' leaf; x is redundant there (the other
    class needs c = 'b'), so both its literals are redundant."""
    feats = [Feature("x", "ordinal"), Feature("c", "categorical", ("a", "b", "c"))]
    root = CategoricalSplit("c", (
        Branch(("a", "c"), ThresholdSplit("x", 2.5,
                                          ThresholdSplit("x", 1.5, Leaf("p"), Leaf("p")),
                                          Leaf("p"))),
        Branch(("b",), ThresholdSplit("x", 1.5, Leaf("q"), Leaf("p")))))
    tree = DecisionTree(feats, ["p", "q"], root)
    report = check_against_axps(tree)
    first = report[0]
    assert first.features == ("c", "x")
    assert first.n_literals == 3
    assert first.redundant and first.pi_explanation == ("c",)
    assert first.redundant_literals == 2
    assert first.redundant_share == pytest.approx(2 / 3)


def test_dead_branch_below_a_retest_is_not_followed():
    """Dropping x from the path x <= 2.5 & c = a must not follow the dead branch x > 3.5
    below x <= 2.5; the AXp definition ignores it, so must the tree walk."""
    feats = [Feature("x", "ordinal"), Feature("c", "binary")]
    root = ThresholdSplit("x", 2.5,
                          ThresholdSplit("x", 3.5,
                                         CategoricalSplit("c", (Branch((0,), Leaf("p")),
                                                                Branch((1,), Leaf("q"))))
                                         , Leaf("q")),
                          Leaf("p"))
    tree = DecisionTree(feats, ["p", "q"], root)
    report = check_against_axps(tree)
    assert len(report) == 3  # the x > 3.5 leaf is dead


def test_leaf_only_tree():
    tree = DecisionTree([Feature("x", "binary")], ["p", "q"], Leaf("q"))
    (r,) = path_redundancy(tree)
    assert (r.redundant, r.features, r.pi_explanation, r.n_literals) == (False, (), (), 0)
    assert r.redundant_share == 0.0


def test_rec_filtering_visits_each_node_once_per_path(monkeypatch):
    """With rec = 0 (the decision), no node is analysed twice for one path."""
    tree = xdt.load_model(load_case("restaurant-tree")["model"])
    visits: list[tuple[int, bool]] = []
    original = redundancy_module._Walker.chk_down

    def counting(self, n, other, allowed, on_path, rec):
        visits.append((n, rec))
        return original(self, n, other, allowed, on_path, rec)

    monkeypatch.setattr(redundancy_module._Walker, "chk_down", counting)
    walker = redundancy_module._Walker(tree)
    for path in tree.paths:
        visits.clear()
        walker.analyse(path)
        decided = [n for n, rec in visits if not rec]
        assert len(decided) == len(set(decided))


def test_docstring_example():
    assert doctest.testmod(redundancy_module).failed == 0
