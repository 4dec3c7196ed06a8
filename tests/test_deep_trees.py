"""Deep trees (chains of 5,000-20,000 levels) and large domains: no recursion anywhere
(pickling, copying, printing, comparing, JSON load and save), linear-size paths, and the
known AXp of a chain (issue 32: memory and time bounded)."""

from __future__ import annotations

import copy
import json
import pickle

import numpy as np
import pytest

import xdt
from xdt.errors import BranchCoverageError
from xdt.explain.engines import _kernels as kernels
from xdt.ir import DecisionTree, Feature, Leaf, ThresholdSplit
from xdt.ir._cells import cells_of, mask_of
from xdt.ir._json_io import model_from_dict
from xdt.ir._tree import Branch, CategoricalSplit


def one_feature_chain(depth: int) -> ThresholdSplit:
    """Node ``i`` tests ``x <= i + 0.5``: left a leaf of class ``a`` (``i`` even) or
    ``b`` (odd), right the rest of the chain; the last leaf is ``b``."""
    node: object = Leaf("b")
    for i in reversed(range(depth)):
        node = ThresholdSplit("x", i + 0.5, Leaf("a" if i % 2 == 0 else "b"), node)
    return node


def many_feature_chain(depth: int) -> ThresholdSplit:
    """Node ``i`` tests ``x{i} <= 0.5``: left a leaf ``a`` (``i`` even) or ``b`` (odd),
    right the rest; the last leaf is ``b``."""
    node: object = Leaf("b")
    for i in reversed(range(depth)):
        node = ThresholdSplit(f"x{i}", 0.5, Leaf("a" if i % 2 == 0 else "b"), node)
    return node


def chain_text(depth: int) -> str:
    """The repr of :func:`one_feature_chain` written out from its definition."""
    head = "".join(f"ThresholdSplit(feature='x', threshold={i + 0.5!r}, left=Leaf(label="
                   f"'{'a' if i % 2 == 0 else 'b'}', value=None), right="
                   for i in range(depth))
    return head + "Leaf(label='b', value=None)" + ")" * depth


def test_deep_nodes_print_compare_pickle_and_copy_without_recursion():
    root = one_feature_chain(20_000)
    assert repr(root) == chain_text(20_000)
    again = one_feature_chain(20_000)
    assert root == again and hash(root) == hash(again)
    assert root != one_feature_chain(19_999)
    assert pickle.loads(pickle.dumps(root)) == root
    assert copy.deepcopy(root) == root


def test_small_nodes_keep_the_dataclass_forms():
    node = CategoricalSplit("c", (Branch(("a",), Leaf(1)),
                                  Branch(("b", "d"), ThresholdSplit("x", 1.0, Leaf(2, (0.5,)),
                                                                    Leaf(3)))))
    assert repr(node) == (
        "CategoricalSplit(feature='c', branches=(Branch(values=('a',), node=Leaf(label=1, "
        "value=None)), Branch(values=('b', 'd'), node=ThresholdSplit(feature='x', "
        "threshold=1.0, left=Leaf(label=2, value=(0.5,)), right=Leaf(label=3, "
        "value=None)))))")
    assert repr(CategoricalSplit("c", (Branch(("a",), Leaf(1)),))).endswith(",))")
    assert pickle.loads(pickle.dumps(node)) == node
    assert copy.deepcopy(node) == node and hash(copy.deepcopy(node)) == hash(node)
    assert node != CategoricalSplit("c", (Branch(("a",), Leaf(1)), Branch(("b", "d"),
                                                                         Leaf(3))))
    assert ThresholdSplit("x", 1.0, Leaf(1), Leaf(2)) != Leaf(1)


def test_a_deep_tree_pickles_copies_and_round_trips_through_json(tmp_path):
    tree = DecisionTree([Feature("x", "ordinal")], ["a", "b"], one_feature_chain(10_000))
    assert tree.depth == 10_000 and tree.n_leaves == 10_001
    assert len(tree.paths[-1]) == 10_000  # paths built, then dropped by pickling
    for other in (pickle.loads(pickle.dumps(tree)), copy.deepcopy(tree)):
        assert other.root == tree.root and other.n_nodes == tree.n_nodes
        assert other.paths[5] == tree.paths[5]
    assert "depth=10000" in repr(tree)
    path = tmp_path / "chain.json"
    xdt.save_model(tree, path)
    loaded = xdt.load_model(path)
    assert loaded.root == tree.root
    cells = np.array([[0.0], [9_999.0], [12_345.0]])
    assert loaded.predict(cells).tolist() == ["a", "b", "b"]


def test_saved_text_is_jsons_own_up_to_100_levels_then_indented_no_further(tmp_path):
    tree = DecisionTree([Feature("x", "ordinal")], ["a", "b"], one_feature_chain(30))
    path = tmp_path / "t.json"
    xdt.save_model(tree, path)
    doc = json.loads(path.read_text())
    assert path.read_text() == json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
    deep = DecisionTree([Feature("x", "ordinal")], ["a", "b"], one_feature_chain(300))
    xdt.save_model(deep, path)
    lines = path.read_text().splitlines()
    assert max(len(line) - len(line.lstrip(" ")) for line in lines) == 100
    assert xdt.load_model(path).root == deep.root


def test_a_deep_json_error_names_the_node_by_its_path():
    doc = {"format": "xdt-model/1", "kind": "tree", "features": [
        {"name": "x", "kind": "ordinal"}], "classes": ["a", "b"],
        "root": {"class": "b"}}
    node = doc["root"] = {"feature": "x", "threshold": 0.5, "left": {"class": "a"},
                          "right": {"klass": "b"}}
    for i in (2, 1):  # each wraps the right subtree: 0.5 > 1.5 > 2.5 > the bad leaf
        node["right"] = {"feature": "x", "threshold": i + 0.5, "left": {"class": "a"},
                         "right": node["right"]}
    with pytest.raises(xdt.errors.InvalidModelError) as e:
        model_from_dict(doc)
    assert e.value.where == "root > x > 0.5 > x > 1.5 > x > 2.5"


def test_the_axp_of_a_deep_chain_is_known_by_construction():
    depth = 2_000
    tree = DecisionTree([Feature(f"x{i}", "ordinal") for i in range(depth)], ["a", "b"],
                        many_feature_chain(depth))
    # every x_i = 1 goes right to the last leaf (b); the left leaf of node i is another
    # class exactly for even i, and only x_i tells the instance from it
    axp = xdt.Explainer(tree).axp({f"x{i}": 1.0 for i in range(depth)})
    assert axp.features == tuple(f"x{i}" for i in range(0, depth, 2))


def test_one_feature_chain_axp_and_paths_stay_small():
    tree = DecisionTree([Feature("x", "ordinal")], ["a", "b"], one_feature_chain(5_000))
    assert all(len(p.masks) == 1 for p in tree.paths)
    assert tree.paths[2_500].features == (0,)
    # x = 2500 lies in (2499.5, 2500.5]: the left leaf of node 2500, class a
    e = xdt.Explainer(tree)
    assert e.predict({"x": 2_500.0}) == "a"
    assert e.axp({"x": 2_500.0}).features == ("x",)


def test_interval_exclusions_match_cell_by_cell():
    rng = np.random.default_rng(3)
    n_cells, n = 40, 150
    lo = rng.integers(0, n_cells, n)
    hi = np.minimum(lo + rng.integers(-1, 10, n), n_cells - 1)  # some empty (lo > hi)
    paths = rng.permutation(200)[:n].astype(np.int64)
    table = np.zeros((n_cells, 4), dtype=np.uint64)
    kernels.interval_exclusions(table, paths, lo.astype(np.int64), hi.astype(np.int64))
    for c in range(n_cells):
        want = {int(p) for p, a, b in zip(paths, lo, hi, strict=True) if not a <= c <= b}
        got = {w * 64 + b for w in range(4) for b in range(64)
               if (int(table[c, w]) >> b) & 1}
        assert got == want


def test_a_large_categorical_domain_loads():
    n = 100_000
    values = [f"v{i}" for i in range(n)]
    doc = {"format": "xdt-model/1", "kind": "tree", "features": [
        {"name": "c", "kind": "categorical", "domain": values}], "classes": ["a", "b"],
        "root": {"feature": "c", "branches": [{"in": values[::2], "node": {"class": "a"}},
                                              {"in": values[1::2], "node": {"class": "b"}}]}}
    tree = model_from_dict(doc)
    assert tree.cells[0].n_cells == n
    assert tree.predict([["v0"], ["v77777"], ["v99998"]]).tolist() == ["a", "b", "a"]
    assert list(cells_of(tree.paths[1].masks[0])) == list(range(1, n, 2))
    doc["root"]["branches"][1]["in"] = values[1::2] + ["v0"]
    with pytest.raises(BranchCoverageError, match="'v0' of 'c' is on branches 0 and 1"):
        model_from_dict(doc)


def test_masks_of_many_cells_round_trip():
    cells = [0, 3, 64, 65, 1_000, 99_999]
    mask = mask_of(cells)
    assert mask == sum(1 << c for c in cells)
    assert list(cells_of(mask)) == cells
    assert mask_of([2, 5]) == 0b100100 and list(cells_of(0b100100)) == [2, 5]
