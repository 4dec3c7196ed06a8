"""The ``tree-ensemble`` kind of ``xdt-model/1``: exact round trips (every float bit for bit),
predictions after the round trip, the JSON Schema, and the loader's errors."""

from __future__ import annotations

import copy
import json
import struct
from pathlib import Path

import jsonschema
import numpy as np
import pytest

import xdt
from xdt.errors import InvalidModelError, ModelFormatError, UnknownNodeFeatureError
from xdt.ir import (
    Branch,
    CategoricalSplit,
    DecisionTree,
    Feature,
    Leaf,
    ThresholdSplit,
    load_model,
    model_from_dict,
    model_to_dict,
    save_model,
)
from xdt.ir._ensemble import TreeEnsemble

SCHEMA = json.loads((Path(__file__).resolve().parent.parent / "encodings"
                     / "xdt-model-1.schema.json").read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)

FEATURES = [Feature("x", "ordinal"), Feature("colour", "categorical", ("red", "green", "blue"))]


def bits(v: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", float(v)))[0]


def random_ensemble(seed: int, combine: str, n_classes: int, precision: str) -> TreeEnsemble:
    """Depth-2 trees with odd float thresholds and leaf values (float32 numbers for a float32
    ensemble), a categorical split in every tree."""
    rng = np.random.default_rng(seed)
    classes = [f"c{k}" for k in range(n_classes)]
    n_scores = 1 if combine == "margin" and n_classes == 2 else n_classes
    dtype = np.float32 if precision == "float32" else np.float64

    def leaf():
        v = rng.normal(size=n_scores).astype(dtype) / dtype(3.0)
        return Leaf(classes[int(rng.integers(n_classes))], tuple(float(x) for x in v))

    trees = []
    for _ in range(4):
        t = float(dtype(rng.normal() / 7.0))
        root = ThresholdSplit("x", t, CategoricalSplit("colour", (
            Branch(("red",), leaf()), Branch(("green", "blue"), leaf()))), leaf())
        trees.append(DecisionTree(FEATURES, classes, root, input_dtype=precision))
    base = [float(dtype(b)) for b in rng.normal(size=n_scores) / 9.0]
    return TreeEnsemble(FEATURES, classes, trees, combine,
                        base=base if combine == "margin" else None, precision=precision,
                        divisor=4.0 if combine == "proba" else 1.0,
                        threshold=-5e-324 if n_scores == 1 else 0.0,
                        input_dtype=precision, source={"library": "test", "seed": seed})


def leaf_values(doc: dict) -> list[float]:
    out: list[float] = []
    stack = list(doc["trees"])
    while stack:
        node = stack.pop()
        if "value" in node:
            out.extend(node["value"])
        elif "left" in node:
            stack += [node["left"], node["right"]]
        elif "branches" in node:
            stack += [b["node"] for b in node["branches"]]
    return out


@pytest.mark.parametrize("combine,n_classes,precision", [
    ("margin", 2, "float32"), ("margin", 3, "float32"), ("margin", 2, "float64"),
    ("proba", 3, "float64"), ("vote", 3, "float64")])
def test_round_trip_is_exact_and_predicts_the_same(tmp_path, combine, n_classes, precision):
    model = random_ensemble(7, combine, n_classes, precision)
    path = tmp_path / "m.json"
    save_model(model, path)
    doc = json.loads(path.read_text(encoding="utf-8"))
    VALIDATOR.validate(doc)
    back = load_model(path)
    assert isinstance(back, TreeEnsemble)
    assert model_to_dict(back) == doc == model_to_dict(model)
    # every float bit for bit, not only ==: thresholds, leaf values, base, the tie threshold
    assert [bits(v) for v in leaf_values(model_to_dict(back))] == \
        [bits(v) for v in leaf_values(model_to_dict(model))]
    assert [bits(b) for b in back.base] == [bits(b) for b in model.base]
    assert bits(back.threshold) == bits(model.threshold)
    assert (back.combine, back.precision, back.input_dtype, back.divisor, back.source) == \
        (model.combine, model.precision, model.input_dtype, model.divisor, model.source)
    rng = np.random.default_rng(1)
    X = [[float(x), c] for x in rng.normal(size=40) / 7.0 for c in ("red", "green", "blue")]
    assert back.predict(X).tolist() == model.predict(X).tolist()
    np.testing.assert_array_equal(back.decision_function(X), model.decision_function(X))


def test_minus_zero_threshold_is_kept_and_defaults_are_not_written():
    model = random_ensemble(3, "margin", 2, "float64")
    doc = model_to_dict(model)
    doc["threshold"] = -0.0
    back = model_to_dict(model_from_dict(doc))
    assert bits(back["threshold"]) == bits(-0.0)
    del doc["threshold"], doc["base"]
    back = model_to_dict(model_from_dict(doc))
    assert "threshold" not in back and "base" not in back and "precision" not in back


def test_vote_leaves_may_leave_out_their_value():
    doc = {"format": "xdt-model/1", "kind": "tree-ensemble",
           "features": [{"name": "x", "kind": "ordinal"}], "classes": ["a", "b"],
           "combine": "vote",
           "trees": [{"feature": "x", "threshold": t, "left": {"class": "a"},
                      "right": {"class": "b"}} for t in (1, 2, 3)]}
    VALIDATOR.validate(doc)
    model = load_model(doc)
    # x = 2.5: trees at 1 and 2 vote b, the tree at 3 votes a
    assert model.predict([[0.0], [1.5], [2.5], [9.0]]).tolist() == ["a", "a", "b", "b"]
    assert model_to_dict(model) == doc


def base_doc() -> dict:
    return model_to_dict(random_ensemble(5, "margin", 3, "float32"))


def mutate(doc: dict, path: list, value) -> dict:
    doc = copy.deepcopy(doc)
    node = doc
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return doc


@pytest.mark.parametrize("path,value,error,text", [
    (["combine"], "sum", ModelFormatError, "'combine' must be one of vote, proba, margin"),
    (["precision"], "float16", ModelFormatError, "'precision' must be one of"),
    (["base"], "zero", ModelFormatError, "base must be a JSON list"),
    (["base"], [0.0, True, 0.0], ModelFormatError, "base[1] must be a number"),
    (["divisor"], "2", ModelFormatError, "'divisor' must be a number"),
    (["source"], "xgboost", ModelFormatError, "'source' must be a JSON object"),
    (["trees"], {}, ModelFormatError, "trees must be a JSON list"),
    (["rounds"], 3, ModelFormatError, "unknown field(s) ['rounds']"),
    (["base"], [0.0], InvalidModelError, "'base' must hold 3 finite number(s)"),
    (["trees"], [], InvalidModelError, "needs at least one tree"),
    (["trees", 2, "right", "value"], [0.5], InvalidModelError,
     "leaf 2 of trees[2] has value (0.5,)"),
    (["trees", 1, "right", "value"], [0.1, 0.0, 0.0], InvalidModelError,
     "not float32 numbers"),
])
def test_loader_errors_say_what_is_wrong(path, value, error, text):
    doc = mutate(base_doc(), path, value)
    with pytest.raises(error) as e:
        model_from_dict(doc)
    assert text in str(e.value)


def test_errors_inside_a_tree_name_the_tree_and_the_node():
    doc = mutate(base_doc(), ["trees", 3, "left", "branches", 1, "node", "value"], "high")
    with pytest.raises(InvalidModelError) as e:
        model_from_dict(doc)
    assert e.value.where == "trees[3] > root > x <= " \
        f"{doc['trees'][3]['threshold']} > colour in {{'green', 'blue'}}"
    assert "a leaf's 'value' must be a non-empty list of numbers" in str(e.value)
    doc = mutate(base_doc(), ["trees", 1, "feature"], "size")
    with pytest.raises(UnknownNodeFeatureError) as e:
        model_from_dict(doc)
    assert e.value.where == "trees[1] > root"
    assert str(e.value).startswith("trees[1] > root: the node tests unknown feature 'size'")
    # the schema rejects both too
    assert not VALIDATOR.is_valid(mutate(base_doc(), ["trees", 0, "right", "value"], "x"))
    assert not VALIDATOR.is_valid(mutate(base_doc(), ["combine"], "sum"))


def test_a_plain_tree_leaf_still_takes_no_value():
    doc = {"format": "xdt-model/1", "kind": "tree",
           "features": [{"name": "x", "kind": "ordinal"}], "classes": ["a", "b"],
           "root": {"class": "a", "value": [1.0]}}
    with pytest.raises(InvalidModelError, match="unrecognised node"):
        model_from_dict(doc)


def test_top_level_load_model_returns_the_ensemble(tmp_path):
    model = random_ensemble(11, "margin", 2, "float32")
    path = tmp_path / "e.json"
    xdt.save_model(model, path)
    assert isinstance(xdt.load_model(path), TreeEnsemble)


def test_the_encodings_readme_example_loads_and_validates():
    import re

    text = (Path(__file__).resolve().parent.parent / "encodings" / "README.md").read_text()
    (block,) = [b for b in re.findall(r"```json\n(.*?)```", text, re.S) if "tree-ensemble" in b]
    doc = json.loads(block)
    VALIDATOR.validate(doc)
    model = load_model(doc)
    assert model_to_dict(model) == doc
    # base -0.405..., +0.75 above x = 0.5: 0.344... > the threshold; -0.5 below it
    assert model.predict([[0.5], [0.6]]).tolist() == ["a", "b"]
    assert model.decision_function([[0.6]]).tolist() == [float(np.float32(-0.40546512603759766)
                                                               + np.float32(0.75))]
