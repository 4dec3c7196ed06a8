"""The IR: features, cells, literals and terms, decision trees (paths, sizes, prediction)."""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pandas as pd
import pytest
from conftest import load_case, tree_case_names

from xdt.errors import (
    InstanceError,
    InstanceShapeError,
    InvalidModelError,
    MissingFeatureError,
    MissingValueError,
    UnknownCategoryError,
    UnknownFeatureError,
)
from xdt.ir import (
    Branch,
    CategoricalCells,
    CategoricalSplit,
    DecisionTree,
    Feature,
    FeatureSpace,
    IntervalCells,
    Leaf,
    Literal,
    Term,
    ThresholdSplit,
    load_model,
)
from xdt.ir._cells import cells_of, full_mask

# --------------------------------------------------------------------------- features


def test_feature_kinds_and_domains():
    assert Feature("b", "binary").domain == (0, 1)
    assert Feature("b", "binary", (0, 1)).domain == (0, 1)
    assert Feature("c", "categorical", ["a", 2, 3.5]).domain == ("a", 2, 3.5)
    assert Feature("o", "ordinal").domain is None
    assert Feature("o", "ordinal").is_ordinal and not Feature("b", "binary").is_ordinal


def test_feature_to_dict_keeps_an_explicit_binary_domain_only():
    assert Feature("b", "binary").to_dict() == {"name": "b", "kind": "binary"}
    assert Feature("b", "binary", [0, 1]).to_dict() == {"name": "b", "kind": "binary",
                                                        "domain": [0, 1]}
    assert Feature("o", "ordinal").to_dict() == {"name": "o", "kind": "ordinal"}
    assert Feature("c", "categorical", ("x", "y")).to_dict() == {
        "name": "c", "kind": "categorical", "domain": ["x", "y"]}
    # written-out or not, the same feature
    assert Feature("b", "binary") == Feature("b", "binary", (0, 1))


@pytest.mark.parametrize("domain", [None, (), []])
def test_categorical_feature_without_domain(domain):
    with pytest.raises(InvalidModelError) as e:
        Feature("colour", "categorical", domain)
    assert str(e.value) == "feature 'colour': a categorical feature needs a non-empty 'domain'"
    assert e.value.where == "feature 'colour'"


@pytest.mark.parametrize("domain, repeated", [
    (("a", "b", "a"), "'a'"), ((1, 2, 1.0), "1.0"), ((0, 0), "0"),
])
def test_categorical_feature_with_repeated_values(domain, repeated):
    with pytest.raises(InvalidModelError, match=f"^feature 'c': domain value {repeated} is "
                                                "repeated$"):
        Feature("c", "categorical", domain)


@pytest.mark.parametrize("value", [True, None, float("nan"), float("inf"), ["a"], (1,)])
def test_categorical_feature_with_ill_typed_values(value):
    with pytest.raises(InvalidModelError, match="domain values must be strings or finite numbers"):
        Feature("c", "categorical", ("a", value))


@pytest.mark.parametrize("domain", [(0, 2), (1, 0), (0, 1, 2), ("0", "1"), ()])
def test_binary_feature_with_a_wrong_domain(domain):
    with pytest.raises(InvalidModelError) as e:
        Feature("b", "binary", domain)
    assert str(e.value) == (f"feature 'b': a binary feature's domain is [0, 1], not "
                            f"{list(domain)}; use kind 'categorical' for other values")


@pytest.mark.parametrize("domain", [(1, 2), ()])
def test_ordinal_feature_with_a_domain(domain):
    with pytest.raises(InvalidModelError, match="^feature 'o': an ordinal feature has no domain"):
        Feature("o", "ordinal", domain)


@pytest.mark.parametrize("kind", ["nominal", "Ordinal", "", None])
def test_feature_of_unknown_kind(kind):
    with pytest.raises(InvalidModelError) as e:
        Feature("f", kind)
    assert str(e.value) == (f"feature 'f': unknown kind {kind!r}; use one of binary, "
                            "categorical, ordinal")


@pytest.mark.parametrize("name", ["", None, 3])
def test_feature_name_must_be_a_non_empty_string(name):
    with pytest.raises(InvalidModelError, match="a feature name must be a non-empty string"):
        Feature(name, "ordinal")


def test_feature_space():
    space = FeatureSpace([Feature("x", "ordinal"), Feature("Outlook", "categorical", ("a", "b")),
                          Feature("b", "binary")])
    assert len(space) == 3
    assert space.names == ("x", "Outlook", "b")
    assert space.index("x") == 0 and space.index("b") == 2
    assert space[1].name == "Outlook"
    assert "Outlook" in space and "outlook" not in space and 0 not in space
    assert space == FeatureSpace(list(space))


@pytest.mark.parametrize("name", ["outlook", "y", 0, None])
def test_feature_space_index_of_an_unknown_name(name):
    space = FeatureSpace([Feature("x", "ordinal"), Feature("Outlook", "categorical", ("a", "b"))])
    with pytest.raises(UnknownFeatureError) as e:
        space.index(name)
    assert isinstance(e.value, LookupError)
    # not quoted like a KeyError
    assert str(e.value) == (f"unknown feature {name!r}; the model's features are: x, Outlook")


def test_feature_space_rejects_repeated_names_and_non_features():
    with pytest.raises(InvalidModelError, match="feature name 'x' is used twice"):
        FeatureSpace([Feature("x", "ordinal"), Feature("x", "binary")])
    with pytest.raises(InvalidModelError, match="features must be Feature objects"):
        FeatureSpace(["x"])


# --------------------------------------------------------------------------- cells


def test_mask_helpers():
    assert full_mask(0) == 0 and full_mask(3) == 0b111
    assert list(cells_of(0b10110)) == [1, 2, 4]
    assert list(cells_of(0)) == []


def test_interval_cells_are_sorted_distinct_thresholds():
    cells = IntervalCells("x", [0.9, 0.64, 0.9])
    assert cells.thresholds.tolist() == [0.64, 0.9]
    assert cells.n_cells == 3
    assert IntervalCells("x", []).n_cells == 1


def test_interval_cells_are_left_open_right_closed():
    cells = IntervalCells("x", [0.64, 0.9])
    # cell 0 = (-inf, 0.64], cell 1 = (0.64, 0.9], cell 2 = (0.9, inf)
    assert cells.cell_of(-1e300) == 0
    assert cells.cell_of(0.64) == 0  # on the threshold: the lower cell (x <= t goes left)
    assert cells.cell_of(float(np.nextafter(0.64, 1))) == 1
    assert cells.cell_of(0.7) == 1
    assert cells.cell_of(0.9) == 1
    assert cells.cell_of(float(np.nextafter(0.9, 1))) == 2
    assert cells.cell_of(1e300) == 2
    ints = IntervalCells("n", [1, 2])
    assert [ints.cell_of(v) for v in (0, 1, 2, 3, np.int64(2), np.float32(2.5))] == \
        [0, 0, 1, 2, 1, 2]


def test_interval_cells_bounds_and_values():
    cells = IntervalCells("x", [0.64, 0.9])
    assert cells.bounds(0) == (-math.inf, 0.64)
    assert cells.bounds(1) == (0.64, 0.9)
    assert cells.bounds(2) == (0.9, math.inf)
    for j in range(cells.n_cells):
        assert cells.cell_of(cells.value(j)) == j
    assert IntervalCells("x", []).cell_of(IntervalCells("x", []).value(0)) == 0


def test_interval_cell_values_prefer_whole_numbers():
    cells = IntervalCells("n", [0.2, 0.3, 1.5, 3.5])
    # (-inf, 0.2] -> 0.2, (0.2, 0.3] -> 0.3 (no whole number), (0.3, 1.5] -> 1,
    # (1.5, 3.5] -> 3, (3.5, inf) -> 4
    assert [cells.value(j) for j in range(cells.n_cells)] == [0.2, 0.3, 1.0, 3.0, 4.0]


def test_interval_cells_encode_a_column_like_cell_of():
    cells = IntervalCells("x", [0.64, 0.9])
    values = [0.64, 0.65, 0.9, 0.91, -3, 7]
    assert cells.encode(pd.Series(values)).tolist() == [cells.cell_of(v) for v in values]
    assert cells.encode(pd.Series(values)).tolist() == [0, 1, 1, 2, 0, 2]


@pytest.mark.parametrize("value, error", [
    (float("nan"), MissingValueError), (None, MissingValueError), (np.nan, MissingValueError),
    ("0.5", InstanceError), (True, InstanceError), (float("inf"), InstanceError),
])
def test_interval_cells_reject_bad_values(value, error):
    with pytest.raises(error):
        IntervalCells("x", [0.5]).cell_of(value)


@pytest.mark.parametrize("thresholds, mask, text", [
    ([0.73], 0b01, "x <= 0.73"),
    ([0.64], 0b10, "0.64 < x"),
    ([0.64, 0.9], 0b010, "0.64 < x <= 0.9"),
    ([0.64, 0.9], 0b110, "0.64 < x"),
    ([0.64, 0.9], 0b011, "x <= 0.9"),
    ([0.64, 0.9], 0b111, "x is any"),
    ([0.64, 0.9], 0b101, "(x <= 0.64 or 0.9 < x)"),
    ([1.0, 2.5, 4], 0b0110, "1 < x <= 4"),
    ([-2.0], 0b1, "x <= -2"),
])
def test_interval_cells_describe(thresholds, mask, text):
    assert IntervalCells("x", thresholds).describe(mask) == text


def test_categorical_cells():
    outlook = CategoricalCells("Outlook", ("overcast", "rain", "sunny"))
    assert outlook.n_cells == 3
    assert [outlook.cell_of(v) for v in ("overcast", "rain", "sunny")] == [0, 1, 2]
    assert outlook.value(2) == "sunny"
    assert outlook.encode(pd.Series(["sunny", "rain", "sunny"])).tolist() == [2, 1, 2]


def test_categorical_cells_of_numbers_accept_equal_numbers():
    binary = CategoricalCells("b", (0, 1))
    assert [binary.cell_of(v) for v in (0, 1, 1.0, True, False, np.int64(1), np.float64(0))] == \
        [0, 1, 1, 1, 0, 1, 0]


@pytest.mark.parametrize("value, error", [
    ("Sunny", UnknownCategoryError), ("fog", UnknownCategoryError), (1, UnknownCategoryError),
    (None, MissingValueError), (float("nan"), MissingValueError),
])
def test_categorical_cells_reject_bad_values(value, error):
    with pytest.raises(error) as e:
        CategoricalCells("Outlook", ("overcast", "rain", "sunny")).cell_of(value)
    if error is UnknownCategoryError:
        hint = " (its type is int; the domain holds str values)" if value == 1 else ""
        assert str(e.value) == (f"feature 'Outlook' has value {value!r}, which is not in its "
                                f"domain ['overcast', 'rain', 'sunny']{hint}; map it to one of "
                                "these values")


@pytest.mark.parametrize("value", [["rain"], {"a": 1}, {"rain"}])
def test_categorical_cells_reject_unhashable_values(value):
    with pytest.raises(InstanceError, match="needs one value of its domain"):
        CategoricalCells("Outlook", ("overcast", "rain", "sunny")).cell_of(value)


@pytest.mark.parametrize("domain, mask, text", [
    (("overcast", "rain", "sunny"), 0b001, "Outlook = overcast"),
    (("overcast", "rain", "sunny"), 0b100, "Outlook = sunny"),
    (("overcast", "rain", "sunny"), 0b110, "Outlook != overcast"),
    (("overcast", "rain", "sunny"), 0b111, "Outlook is any"),
    (("overcast", "rain", "sunny", "fog"), 0b0110, "Outlook in {rain, sunny}"),
    (("overcast", "rain", "sunny", "fog"), 0b1011, "Outlook != sunny"),
    ((0, 1), 0b10, "Outlook = 1"),
])
def test_categorical_cells_describe(domain, mask, text):
    assert CategoricalCells("Outlook", domain).describe(mask) == text


def test_categorical_cells_describe_not_equal():
    assert CategoricalCells("x", ("a", "b", "c")).describe(0b110) == "x != a"


# --------------------------------------------------------------------------- literals and terms


def test_literal_holds_on_its_cells():
    lit = Literal(0, 0b101)
    assert [lit.holds(c) for c in range(3)] == [True, False, True]


def test_term_masks_intersect_per_feature():
    term = Term((Literal(0, 0b0111), Literal(1, 0b10), Literal(0, 0b1110)))
    assert term.masks() == {0: 0b0110, 1: 0b10}
    assert term.features == (0, 1)
    assert len(term) == 3
    assert term.is_consistent()


def test_term_inconsistent_when_a_feature_has_no_cell_left():
    term = Term((Literal(0, 0b01), Literal(1, 0b11), Literal(0, 0b10)))
    assert term.masks() == {0: 0, 1: 0b11}
    assert not term.is_consistent()
    assert Term().is_consistent() and Term().masks() == {}


def test_term_intersection():
    a = Term((Literal(0, 0b011), Literal(1, 0b10)))
    b = Term((Literal(2, 0b1), Literal(0, 0b110)))
    both = a & b
    assert both == a.intersect(b)
    assert both.masks() == {0: 0b010, 1: 0b10, 2: 0b1}
    assert both == Term.from_masks({2: 0b1, 0: 0b010, 1: 0b10})  # one literal per feature
    assert both.literals == (Literal(0, 0b010), Literal(1, 0b10), Literal(2, 0b1))
    assert (b & a).masks() == both.masks()
    assert both.is_consistent()
    assert not (a & Term((Literal(1, 0b01),))).is_consistent()


def test_term_holds_on_a_point_of_cells():
    term = Term((Literal(0, 0b011), Literal(2, 0b100)))
    assert term.holds([1, 5, 2])
    assert not term.holds([2, 0, 2])
    assert not term.holds([0, 0, 1])
    assert Term().holds([3, 3, 3])


# --------------------------------------------------------------------------- trees: paths, sizes


def case_tree(name: str) -> DecisionTree:
    return load_model(load_case(name)["model"])


def value_sets(tree: DecisionTree, masks: dict[int, int]) -> dict[str, object]:
    """Masks by feature name: domain values for categorical features, bounds for ordinal."""
    out: dict[str, object] = {}
    for f, m in masks.items():
        cells = tree.cells[f]
        if isinstance(cells, CategoricalCells):
            out[tree.features[f].name] = {cells.domain[j] for j in cells_of(m)}
        else:
            js = list(cells_of(m))
            out[tree.features[f].name] = (cells.bounds(js[0])[0], cells.bounds(js[-1])[1])
    return out


def test_playtennis_paths_as_terms():
    tree = case_tree("playtennis-multiedge")
    assert [(p.index, p.node, p.label, p.class_index) for p in tree.paths] == \
        [(0, 1, "yes", 1), (1, 3, "yes", 1), (2, 4, "no", 0)]
    assert [value_sets(tree, p.masks) for p in tree.paths] == [
        {"Humidity": {"normal"}},
        {"Humidity": {"high"}, "Outlook": {"overcast"}},
        {"Humidity": {"high"}, "Outlook": {"rain", "sunny"}},
    ]
    # the leaf under the multi-value edge Outlook in {rain, sunny}
    rain_sunny = tree.paths[2]
    assert rain_sunny.masks == {0: 0b10, 1: 0b110}
    assert rain_sunny.term.literals == (Literal(0, 0b10), Literal(1, 0b110))
    assert rain_sunny.features == (0, 1) and len(rain_sunny) == 2
    assert all(p.consistent for p in tree.paths)
    assert [len(p) for p in tree.paths] == [1, 2, 2]


def test_zhou_paths_as_terms():
    tree = case_tree("zhou-thresholds")
    assert [c.thresholds.tolist() for c in tree.cells] == [[0.64], [0.73]]
    assert [value_sets(tree, p.masks) for p in tree.paths] == [
        {"y": (-math.inf, 0.73), "x": (-math.inf, 0.64)},
        {"y": (-math.inf, 0.73), "x": (0.64, math.inf)},
        {"y": (0.73, math.inf)},
    ]
    assert [p.label for p in tree.paths] == ["circle", "cross", "cross"]
    assert [p.features for p in tree.paths] == [(1, 0), (1, 0), (1,)]
    described = [[tree.cells[lit.feature].describe(lit.cells) for lit in p.term.literals]
                 for p in tree.paths]
    assert described == [["y <= 0.73", "x <= 0.64"], ["y <= 0.73", "0.64 < x"], ["0.73 < y"]]


# (n_nodes, depth, n_leaves), counted by hand from the JSON of each case
SIZES = {
    "izza-fig1a-or": (5, 2, 3),            # x1, leaf, x2, leaf, leaf
    "izza-fig1b-2x2": (13, 4, 7),          # x1 + (x3, leaf, x4, 2 leaves) + (x2, leaf, x3, leaf,
                                           #   x4, 2 leaves); longest x1 > x2 > x3 > x4
    "izza-fig3-unrestricted": (9, 3, 5),   # x1 + (x3, 2 leaves) + (x2, leaf, x4, 2 leaves)
    "parity4-tree": (31, 4, 16),           # complete binary tree of depth 4
    "playtennis-multiedge": (5, 2, 3),     # Humidity, leaf, Outlook, leaf, leaf
    "reads-tree": (7, 3, 4),               # Length, leaf, Thread, leaf, Author, leaf, leaf
    "restaurant-tree": (12, 4, 8),         # Patrons, 2 leaves, Hungry, leaf, Type, 3 leaves,
                                           #   FriSat, 2 leaves
    "zhou-thresholds": (5, 2, 3),          # y, x, leaf, leaf, leaf
}


@pytest.mark.parametrize("name", sorted(SIZES))
def test_sizes_of_the_worked_trees(name):
    tree = case_tree(name)
    assert (tree.n_nodes, tree.depth, tree.n_leaves) == SIZES[name]
    assert len(tree.paths) == tree.n_leaves
    assert max(len(p) for p in tree.paths) == tree.depth
    case = load_case(name)
    if "expected_paths" in case:
        assert tree.n_leaves == case["expected_paths"]


def test_restaurant_path_lengths():
    tree = case_tree("restaurant-tree")
    # None, Some, Full>No, Full>Yes>French, >Italian, >Burger, >Thai>No, >Thai>Yes
    assert [len(p) for p in tree.paths] == [1, 1, 2, 3, 3, 3, 4, 4]
    assert [p.label for p in tree.paths] == ["No", "Yes", "No", "Yes", "No", "Yes", "No", "Yes"]
    assert value_sets(tree, tree.paths[6].masks) == {
        "Patrons": {"Full"}, "Hungry": {"Yes"}, "Type": {"Thai"}, "FriSat": {"No"}}


@pytest.mark.parametrize("name", tree_case_names())
def test_predictions_of_the_case_queries(name):
    case = load_case(name)
    tree = load_model(case["model"])
    instances = [q["instance"] for q in case["queries"]]
    assert tree.predict(instances).tolist() == [q["prediction"] for q in case["queries"]]
    for q in case["queries"]:
        if "path" not in q:
            continue
        leaf = tree.paths[tree.leaf_paths(tree.encode([q["instance"]]))[0]]
        assert [tree.features[f].name for f in leaf.features] == q["path"]


def nested_ordinal_tree() -> DecisionTree:
    """x tested twice on a path; the inner right edge of ``x <= 0.3`` is dead."""
    x = Feature("x", "ordinal")
    root = ThresholdSplit(
        "x", 0.8,
        ThresholdSplit("x", 0.3,
                       ThresholdSplit("x", 0.9, Leaf("a"), Leaf("dead")),  # x <= 0.3 and x > 0.9
                       Leaf("b")),                                         # 0.3 < x <= 0.8
        Leaf("c"))
    return DecisionTree([x], ["a", "b", "c", "dead"], root)


def test_same_ordinal_feature_twice_gives_the_intersected_interval():
    tree = nested_ordinal_tree()
    assert tree.cells[0].thresholds.tolist() == [0.3, 0.8, 0.9]
    labels = {p.label: p for p in tree.paths}
    b = labels["b"]
    assert len(b.term) == 2  # two literals on x ...
    assert b.masks == {0: 0b0010}  # ... intersected: the cell (0.3, 0.8]
    assert tree.cells[0].describe(b.masks[0]) == "0.3 < x <= 0.8"
    assert b.consistent
    assert labels["a"].masks == {0: 0b0001}
    assert tree.cells[0].describe(labels["a"].masks[0]) == "x <= 0.3"
    assert tree.predict([[0.3], [0.31], [0.8], [0.85], [0.95], [-4]]).tolist() == \
        ["a", "b", "b", "c", "c", "a"]


def test_dead_path_is_inconsistent_and_never_reached():
    tree = nested_ordinal_tree()
    dead = [p for p in tree.paths if p.label == "dead"]
    assert len(dead) == 1
    assert dead[0].masks == {0: 0}
    assert dead[0].consistent is False
    assert not dead[0].term.is_consistent()
    assert [p.consistent for p in tree.paths] == [True, False, True, True]
    every_cell = [[tree.cells[0].value(j)] for j in range(tree.cells[0].n_cells)]
    assert "dead" not in tree.predict(every_cell).tolist()


def test_dead_path_through_a_categorical_retest():
    colour = Feature("colour", "categorical", ("red", "green", "blue"))
    root = CategoricalSplit("colour", (
        Branch(("red",), CategoricalSplit("colour", (
            Branch(("red", "green"), Leaf(1)),
            Branch(("blue",), Leaf(2))))),
        Branch(("green", "blue"), Leaf(0))))
    tree = DecisionTree([colour], [0, 1, 2], root)
    assert [(p.label, p.masks, p.consistent) for p in tree.paths] == [
        (1, {0: 0b001}, True), (2, {0: 0}, False), (0, {0: 0b110}, True)]
    assert tree.predict([["red"], ["green"], ["blue"]]).tolist() == [1, 0, 0]


def test_a_lone_leaf():
    tree = DecisionTree([Feature("x", "ordinal")], ["only"], Leaf("only"))
    assert (tree.n_nodes, tree.depth, tree.n_leaves) == (1, 0, 1)
    assert tree.paths[0].term == Term() and tree.paths[0].masks == {}
    assert tree.cells[0].n_cells == 1
    assert tree.predict([[1.0], [-7]]).tolist() == ["only", "only"]


def test_tree_construction_errors_name_the_node():
    feats = [Feature("x", "ordinal"), Feature("c", "categorical", ("a", "b"))]
    with pytest.raises(InvalidModelError) as e:
        DecisionTree(feats, [0, 1], ThresholdSplit("x", 1.5, Leaf(0), CategoricalSplit(
            "c", (Branch(("a",), Leaf(1)), Branch(("b",), Leaf(2))))))
    assert e.value.where == "root > x > 1.5 > c in {'b'}"
    with pytest.raises(InvalidModelError, match="class labels must be strings or integers"):
        DecisionTree(feats, [True, False], Leaf(True))
    with pytest.raises(InvalidModelError, match=r"^root: not a tree node: 'x'"):
        DecisionTree(feats, [0, 1], "x")


# --------------------------------------------------------------------------- prediction


FEATURES = [Feature("age", "ordinal"), Feature("colour", "categorical", ("red", "green", "blue")),
            Feature("member", "binary")]


def three_class_tree(labels=(0, 1, 2)) -> DecisionTree:
    a, b, c = labels
    root = ThresholdSplit(
        "age", 30,
        CategoricalSplit("colour", (
            Branch(("red",), Leaf(a)),
            Branch(("green", "blue"), ThresholdSplit("age", 18, Leaf(b), Leaf(c))))),
        CategoricalSplit("member", (Branch((0,), Leaf(c)), Branch((1,), Leaf(b)))))
    return DecisionTree(FEATURES, list(labels), root)


ROWS = [(25, "red", 0), (18, "green", 1), (18.5, "blue", 0), (30, "blue", 1), (31, "red", 0),
        (45, "green", 1)]
EXPECTED = [0, 1, 2, 2, 2, 1]  # by hand: age <= 30 -> colour (-> age <= 18), else member


def test_three_class_tree_paths_and_sizes():
    tree = three_class_tree()
    assert (tree.n_nodes, tree.depth, tree.n_leaves) == (9, 3, 5)
    assert tree.cells[0].thresholds.tolist() == [18, 30]
    assert [(p.label, value_sets(tree, p.masks)) for p in tree.paths] == [
        (0, {"age": (-math.inf, 30), "colour": {"red"}}),
        (1, {"age": (-math.inf, 18), "colour": {"green", "blue"}}),
        (2, {"age": (18, 30), "colour": {"green", "blue"}}),
        (2, {"age": (30, math.inf), "member": {0}}),
        (1, {"age": (30, math.inf), "member": {1}}),
    ]


@pytest.mark.parametrize("form", ["list", "numpy", "dicts", "frame", "frame-shuffled",
                                  "frame-extra"])
def test_predict_on_every_input_form(form):
    tree = three_class_tree()
    names = ["age", "colour", "member"]
    if form == "list":
        X = [list(r) for r in ROWS]
    elif form == "numpy":
        X = np.array(ROWS, dtype=object)
    elif form == "dicts":
        X = [dict(zip(reversed(names), reversed(r), strict=True)) for r in ROWS]
    else:
        X = pd.DataFrame(ROWS, columns=names, index=[10, 3, 7, 1, 0, 99])
        if form == "frame-shuffled":
            X = X[["member", "age", "colour"]]
        if form == "frame-extra":
            X = X.assign(noise=["q"] * len(ROWS), id=range(len(ROWS)))[
                ["noise", "member", "colour", "id", "age"]]
    out = tree.predict(X)
    assert out.dtype == np.int64
    assert out.tolist() == EXPECTED
    assert tree.predict_index(X).tolist() == EXPECTED


def test_predict_numeric_numpy_matrix():
    tree = case_tree("zhou-thresholds")
    X = np.array([[0.9, 0.2], [0.64, 0.73], [0.1, 0.8], [0.65, 0.73]])
    assert tree.predict(X).tolist() == ["cross", "circle", "cross", "cross"]
    # a float32 input is compared by its exact value: float32(0.73) = 0.7300000190734863 > 0.73
    X32 = X.astype(np.float32)
    assert tree.predict(X32).tolist() == ["cross", "cross", "cross", "cross"]
    assert tree.predict(X32).tolist() == tree.predict(X32.astype(np.float64).tolist()).tolist()


def test_predict_one_dict_and_no_rows():
    tree = three_class_tree()
    assert tree.predict({"age": 25, "colour": "red", "member": 0}).tolist() == [0]
    assert tree.predict([]).tolist() == []
    assert tree.predict(pd.DataFrame(columns=["age", "colour", "member"])).tolist() == []


def test_string_labels():
    tree = three_class_tree(("low", "mid", "high"))
    out = tree.predict(pd.DataFrame(ROWS, columns=["age", "colour", "member"]))
    assert out.dtype == object
    assert out.tolist() == [["low", "mid", "high"][k] for k in EXPECTED]
    assert tree.predict_index([list(r) for r in ROWS]).tolist() == EXPECTED


def test_mixed_int_and_string_labels():
    tree = three_class_tree((7, "mid", -1))
    assert tree.predict([list(r) for r in ROWS]).tolist() == [[7, "mid", -1][k] for k in EXPECTED]


def reference_predict(tree: DecisionTree, row: dict):
    """Follow the nodes on raw values: an independent oracle for ``predict``."""
    node = tree.root
    while not isinstance(node, Leaf):
        v = row[node.feature]
        if isinstance(node, ThresholdSplit):
            node = node.left if v <= node.threshold else node.right
        else:
            node = next(b.node for b in node.branches if v in b.values)
    return node.label


def random_rows(tree: DecisionTree, rng: random.Random, n: int) -> list[dict]:
    rows = []
    for _ in range(n):
        row = {}
        for f, cells in zip(tree.features, tree.cells, strict=True):
            if f.is_ordinal:
                ts = cells.thresholds.tolist()
                # thresholds themselves, their float neighbours, and random numbers
                pool = ts + [float(np.nextafter(t, s)) for t in ts for s in (-1e9, 1e9)]
                row[f.name] = rng.choice(pool) if pool and rng.random() < 0.6 \
                    else rng.uniform(-2, 60)
            else:
                row[f.name] = rng.choice(f.domain)
        rows.append(row)
    return rows


@pytest.mark.parametrize("name", tree_case_names() + ["three-class", "nested"])
def test_predict_agrees_with_walking_the_nodes(name):
    tree = {"three-class": three_class_tree, "nested": nested_ordinal_tree}.get(
        name, lambda: case_tree(name))()
    rows = random_rows(tree, random.Random(name), 300)
    expected = [reference_predict(tree, r) for r in rows]
    assert tree.predict(rows).tolist() == expected
    frame = pd.DataFrame(rows)
    assert tree.predict(frame).tolist() == expected
    assert tree.predict(frame[list(tree.features.names)].to_numpy(dtype=object)).tolist() == \
        expected


def test_predict_on_every_cell_combination_of_a_case():
    tree = case_tree("restaurant-tree")
    rows = [dict(zip(tree.features.names, vals, strict=True))
            for vals in itertools.product(*(f.domain for f in tree.features))]
    assert len(rows) == 3 * 2 * 4 * 2
    assert tree.predict(rows).tolist() == [reference_predict(tree, r) for r in rows]


# --------------------------------------------------------------------------- predict errors


@pytest.mark.parametrize("X", [
    [[25, "red"]], [[25, "red", 0, 1]], np.zeros((2, 2)), np.array([25, "red", 0], dtype=object),
    np.zeros((1, 3, 1)),
])
def test_predict_wrong_number_of_columns(X):
    with pytest.raises(InstanceShapeError):
        three_class_tree().predict(X)


def test_predict_wrong_number_of_columns_message():
    with pytest.raises(InstanceShapeError) as e:
        three_class_tree().predict([[25, "red"]])
    assert str(e.value) == "X has 2 columns but the model has 3 features (age, colour, member)"


@pytest.mark.parametrize("X", [
    [[float("nan"), "red", 0]], [[25, None, 0]], [[25, "red", np.nan]],
    pd.DataFrame({"age": [25, np.nan], "colour": ["red", "red"], "member": [0, 1]}),
    [{"age": 25, "colour": float("nan"), "member": 0}],
])
def test_predict_missing_values(X):
    with pytest.raises(MissingValueError):
        three_class_tree().predict(X)


def test_predict_missing_value_message_names_the_feature_and_rows():
    X = pd.DataFrame({"age": [25, np.nan, 3], "colour": ["red"] * 3, "member": [0, 1, 0]})
    with pytest.raises(MissingValueError) as e:
        three_class_tree().predict(X)
    assert str(e.value).startswith("feature 'age' has 1 missing value(s) (rows [1]);")


@pytest.mark.parametrize("X, value", [
    ([[25, "purple", 0]], "'purple'"), ([[25, "Red", 0]], "'Red'"), ([[25, "red", 2]], "2"),
    (pd.DataFrame({"age": [1], "colour": ["blue "], "member": [1]}), "'blue '"),
])
def test_predict_unknown_category(X, value):
    with pytest.raises(UnknownCategoryError) as e:
        three_class_tree().predict(X)
    assert f"has value {value}, which is not in its domain" in str(e.value)


def test_predict_missing_column_or_key():
    tree = three_class_tree()
    with pytest.raises(MissingFeatureError) as e:
        tree.predict(pd.DataFrame({"age": [1], "member": [0], "Colour": ["red"]}))
    assert str(e.value) == ("the data has no column(s) ['colour']; the model's features are: "
                            "age, colour, member; ignored, as they are not features: 'Colour' "
                            "(did you mean 'colour'?)")
    with pytest.raises(MissingFeatureError, match=r"no value for feature\(s\) \['member'\]"):
        tree.predict([{"age": 1, "colour": "red"}])


def test_predict_ignores_a_key_of_a_dict_row_that_is_not_a_feature():
    # by name, as the columns of a DataFrame: only the features' values are read
    rows = [{"Age": 99, "age": 25, "colour": "red", "member": 0, "class": 1}]
    assert three_class_tree().predict(rows).tolist() == [0]


@pytest.mark.parametrize("age", ["old", float("inf")])
def test_predict_ordinal_value_that_is_not_a_finite_number(age):
    with pytest.raises(InstanceError):
        three_class_tree().predict(pd.DataFrame({"age": [age], "colour": ["red"],
                                                 "member": [0]}))


def test_encode_gives_one_cell_per_feature():
    tree = three_class_tree()
    assert tree.encode([list(r) for r in ROWS]).tolist() == [
        [1, 0, 0], [0, 1, 1], [1, 2, 0], [1, 2, 1], [2, 0, 0], [2, 1, 1]]


def test_edge_labels_show_thresholds_as_rules_do_and_categories_as_they_are():
    """The one place the pictures (xdt.plot, xdt.report) take their edge labels from."""
    from xdt.interop._sklearn_tree import float32_threshold
    from xdt.ir._tree import Branch, CategoricalSplit, Leaf, ThresholdSplit

    split = ThresholdSplit("age", float32_threshold(17.5), Leaf("a"), Leaf("b"))
    assert split.edge_labels("float32") == ["<= 17.5", "> 17.5"]
    assert split.edge_labels() == ["<= 17.500000953674316", "> 17.500000953674316"]
    multi = CategoricalSplit("colour", (Branch(("red",), Leaf("a")),
                                        Branch(("green", "blue"), Leaf("b"))))
    assert multi.edge_labels() == ["= red", "in {green, blue}"]


def test_path_rule_reads_the_paths_literals_in_order_of_test():
    """The three paths of a small tree, and a rule over a
    chosen subset of a path's features (as ``xdt redundancy --per-path`` prints a
    PI-explanation)."""
    from xdt.ir import DecisionTree, Feature, Leaf, ThresholdSplit

    tree = DecisionTree([Feature("x", "ordinal"), Feature("y", "ordinal")], ["circle", "cross"],
                        ThresholdSplit("y", 0.73, ThresholdSplit("x", 0.64, Leaf("circle"),
                                                                 Leaf("cross")), Leaf("cross")),
                        target="shape")
    assert [tree.path_rule(i) for i in range(3)] == [
        "IF y <= 0.73 AND x <= 0.64 THEN shape = circle",
        "IF y <= 0.73 AND 0.64 < x THEN shape = cross",
        "IF 0.73 < y THEN shape = cross"]
    assert tree.path_rule(0, ["x"]) == "IF x <= 0.64 THEN shape = circle"
    assert tree.path_rule(0, []) == "ALWAYS shape = circle"
