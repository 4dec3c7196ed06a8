"""The path-walker's edge form (xdt/explain/engines/_edge_kernels.py): each node keeps the
literal of the edge from its parent and a link to it, so the tables of a deep chain that
tests a new feature at every level are linear in its size. The edge form gives the dense
form's answers on random trees (forced on small ones), and the AXp, the CXps and one CXp of
a many-feature chain of depth 10,000 are the ones known by construction (issue 32)."""

from __future__ import annotations

import random
from unittest import mock

import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from test_deep_trees import many_feature_chain
from test_properties import big_instance_strategy, big_trees, instance_strategy, trees
from tiers import examples

import xdt
from xdt.explain.engines import _compiled
from xdt.explain.engines import _edge_kernels as edge_kernels
from xdt.explain.engines._compiled import compile_tree
from xdt.explain.engines._edge_kernels import EDGE_END, EDGE_FIRST, EDGE_UP
from xdt.explain.engines._path import PathOracle
from xdt.ir import DecisionTree, Feature
from xdt.ir._cells import full_mask
from xdt.ir._instances import encode_instance


def chain(depth: int) -> DecisionTree:
    """Node ``i`` tests ``x{i} <= 0.5`` (tests/test_deep_trees.py)."""
    return DecisionTree([Feature(f"x{i}", "ordinal") for i in range(depth)], ["a", "b"],
                        many_feature_chain(depth))


@st.composite
def tree_and_instances(draw):
    big = draw(st.booleans())
    tree = draw(big_trees(max_nodes=200) if big else trees())
    rows = big_instance_strategy(tree) if big else instance_strategy(tree)
    return tree, draw(st.lists(rows, min_size=1, max_size=4))


def oracles(tree, cells) -> tuple[PathOracle, PathOracle, int]:
    """The path oracle of an instance from the dense and from the edge tables, and its
    leaf."""
    dense, leaf = PathOracle.of_cells(tree, cells, compile_tree(tree, edge_form=False))
    edge, leaf_too = PathOracle.of_cells(tree, cells, compile_tree(tree, edge_form=True))
    assert leaf == leaf_too
    return dense, edge, leaf


@settings(max_examples=examples(150), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(tree_and_instances(), st.randoms(use_true_random=False))
def test_the_edge_form_answers_as_the_dense_form(case, rnd):
    tree, xs = case
    ct = compile_tree(tree, edge_form=True)
    assert ct.edge_form and "tables" not in ct.__dict__  # no table of literals made
    t = ct.edge_tables
    # the live paths, and the paths below each node, seen from the IR
    assert t.path_live.tolist() == [int(p.consistent) for p in tree.paths]
    below = {int(t.path_node[p]): {p} for p in range(len(tree.paths))}
    for v in range(tree.n_nodes - 1, 0, -1):
        below.setdefault(int(t.edges[v, EDGE_UP]), set()).update(below.get(v, set()))
    for v, ps in below.items():
        assert set(range(t.edges[v, EDGE_FIRST], t.edges[v, EDGE_END])) == ps
    n = len(tree.features)
    universe = full_mask(n)
    for x in xs:
        _, cells = encode_instance(tree.features, tree.cells, x)
        dense, edge, leaf = oracles(tree, cells)
        assert edge.prediction == dense.prediction
        assert (compile_tree(tree, edge_form=True).path_order(leaf).tolist()
                == compile_tree(tree, edge_form=False).path_order(leaf).tolist())
        assert edge._known[2] == dense._known[2]  # the AXp of the order "path"
        for _ in range(4):
            order = rnd.sample(range(n), rnd.randint(0, n))
            start = dense._known[2] | rnd.getrandbits(n)  # a weak AXp
            assert edge.deletion(start, order) == dense.deletion(start, order)
            fixed = rnd.getrandbits(n)
            assert edge.entails(fixed) == dense.entails(fixed)
            assert edge.witness_path(fixed) == dense.witness_path(fixed)
        assert edge.all_cxps() == dense.all_cxps()
        # the general constructor (no table of literals either, for held cells)
        allowed = [1 << c for c in cells]
        general = PathOracle(tree, cells, allowed, universe, edge.prediction)
        assert general.all_cxps() == dense.all_cxps()


@settings(max_examples=examples(60), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(tree_and_instances())
def test_every_query_of_an_explainer_is_the_same_in_edge_form(case):
    """Every tree compiled in edge form (the size limits set to nothing), against a copy of
    it in dense form: AXps, CXps, all of them, path-restricted ones and batches."""
    tree, xs = case
    twin = DecisionTree(tree.features, tree.classes, tree.root)
    with mock.patch.object(_compiled, "EDGE_FORM_LENGTH", 0), \
            mock.patch.object(_compiled, "EDGE_FORM_RATIO", 0):
        edge = xdt.Explainer(tree)
        for x in xs:
            edge.axp(x)
    assert _compiled.compiled(tree).edge_form or tree.depth == 0
    dense = xdt.Explainer(twin)
    assert not _compiled.compiled(twin).edge_form
    for what in (("axp", "cxps"), ("axp",), ("cxps",)):
        batch = edge.explain_batch(xs, what=what)
        assert batch.equals(dense.explain_batch(xs, what=what))
    for x in xs:
        for order in ("path", "features", "reverse"):
            assert edge.axp(x, order=order).features == dense.axp(x, order=order).features
        assert _features(edge.cxp(x)) == _features(dense.cxp(x))
        assert ([e.features for e in edge.all_cxps(x)]
                == [e.features for e in dense.all_cxps(x)])
        assert ([e.features for e in edge.all_axps(x)]
                == [e.features for e in dense.all_axps(x)])
        assert (edge.axp(x, path_restricted=True).features
                == dense.axp(x, path_restricted=True).features)
        assert ([e.features for e in edge.all_cxps(x, path_restricted=True)]
                == [e.features for e in dense.all_cxps(x, path_restricted=True)])
    # all without a table of every path's literals
    assert "tables" not in _compiled.compiled(tree).__dict__ or tree.depth == 0



def _features(explanation) -> tuple[str, ...] | None:
    return None if explanation is None else explanation.features


def test_only_deep_trees_take_the_edge_form():
    assert not compile_tree(chain(60)).edge_form  # 1,830 literals on its paths
    assert compile_tree(chain(1_000)).edge_form  # 500,500, 250 per node
    # a balanced tree of depth 12 (8,190 literals, 2 per node) stays dense
    tree = DecisionTree([Feature(f"x{i}", "ordinal") for i in range(12)], ["a", "b"],
                        _balanced(12))
    assert not compile_tree(tree).edge_form


def _balanced(depth: int, level: int = 0):
    from xdt.ir import Leaf, ThresholdSplit

    if level == depth:
        return Leaf("a" if level % 2 else "b")
    return ThresholdSplit(f"x{level}", 0.5, _balanced(depth, level + 1),
                          Leaf("a" if level % 2 == 0 else "b"))


def test_the_axp_of_a_depth_10000_many_feature_chain_is_known_by_construction():
    depth = 10_000
    tree = chain(depth)
    e = xdt.Explainer(tree)
    assert _compiled.compiled(tree).edge_form
    # every x_i = 1 reaches the last leaf (b); the left leaf of node i is of class a
    # exactly for even i, and only x_i tells the instance from it
    x = {f"x{i}": 1.0 for i in range(depth)}
    assert e.axp(x).features == tuple(f"x{i}" for i in range(0, depth, 2))
    # x_3 = 0 stops at the left leaf of node 3 (b): x_3 blocks every deeper path, x_0
    # and x_2 the two paths of class a above it
    x["x3"] = 0.0
    assert e.axp(x).features == ("x0", "x2", "x3")


@pytest.mark.slow
def test_the_cxps_of_a_depth_10000_many_feature_chain_are_known_by_construction():
    depth = 10_000
    e = xdt.Explainer(chain(depth))
    x = {f"x{i}": 1.0 for i in range(depth)}
    # one CXp per path of class a: changing x_i alone (i even) reaches its left leaf
    assert [c.features for c in e.all_cxps(x)] == [(f"x{i}",) for i in range(0, depth, 2)]
    # x_3 = 0: changing x_0 or x_2 reaches a leaf of class a above node 3; past it, x_3
    # and x_j (j even) reach the left leaf of node j
    x["x3"] = 0.0
    assert e.cxp(x).features in {("x0",), ("x2",)}
    assert [c.features for c in e.all_cxps(x)] == [("x0",), ("x2",)] + [
        ("x3", f"x{j}") for j in range(4, depth, 2)]


def test_the_live_paths_of_categorical_and_retested_edges():
    """A dead leaf: a categorical feature split twice into disjoint blocks; a feature
    retested below with an interval that empties it."""
    from xdt.ir import Branch, CategoricalSplit, Leaf, ThresholdSplit

    inner = CategoricalSplit("c", (Branch(("r",), Leaf("a")), Branch(("g", "b"), Leaf("b"))))
    root = CategoricalSplit("c", (
        Branch(("g",), inner),
        Branch(("r", "b"), ThresholdSplit("x", 1.5, ThresholdSplit("x", 2.5, Leaf("a"),
                                                                   Leaf("b")),
                                          ThresholdSplit("x", 0.5, Leaf("a"), Leaf("b"))))))
    tree = DecisionTree([Feature("c", "categorical", ("r", "g", "b")), Feature("x", "ordinal")],
                        ["a", "b"], root)
    ct = compile_tree(tree, edge_form=True)
    assert ct.edge_tables.path_live.tolist() == [int(p.consistent) for p in tree.paths]
    assert ct.edge_tables.path_live.tolist() == [0, 1, 1, 0, 0, 1]
    rng = random.Random(5)
    for _ in range(20):
        x = {"c": rng.choice("rgb"), "x": rng.choice([0.0, 1.0, 2.0, 3.0])}
        _, cells = encode_instance(tree.features, tree.cells, x)
        dense, edge, _ = oracles(tree, cells)
        assert edge._known[2] == dense._known[2]
        assert edge.all_cxps() == dense.all_cxps()


def test_ranges_of_one_feature_are_disjoint():
    """An edge inside an earlier edge of the same feature that excludes the cell adds no
    range: a path is counted once per feature."""
    from xdt.ir import Leaf, ThresholdSplit

    root = ThresholdSplit("x", 2.5, Leaf("a"),
                          ThresholdSplit("x", 3.5, Leaf("a"), Leaf("b")))
    tree = DecisionTree([Feature("x", "ordinal")], ["a", "b"], root)
    ct = compile_tree(tree, edge_form=True)
    # x = 0 reaches path 0 (a); path 2 (b) lies below both x > 2.5 and x > 3.5
    b = edge_kernels.blocked(ct.edge_tables, np.asarray([0], dtype=np.int64), 0)
    assert list(zip(b.lo.tolist(), b.hi.tolist(), strict=True)) == [(1, 3)]
    assert b.start.tolist() == [0, 1]
