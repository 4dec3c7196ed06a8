"""The JSON model format ``xdt-model/1``: loading, exact round trips, saving, validation errors
(each with its class, the failing node's path from the root and the fix), and the JSON Schema
in ``encodings/`` against the worked cases and the loader."""

from __future__ import annotations

import copy
import doctest
import itertools
import json
import math
from pathlib import Path

import jsonschema
import numpy as np
import pytest
from conftest import CASES, case_names, load_case, require_shared, tree_case_names

import xdt
from xdt.errors import (
    BranchCoverageError,
    InvalidModelError,
    ModelFormatError,
    UnknownFeatureError,
    UnsupportedModelError,
    ValueOutsideDomainError,
    XdtError,
)
from xdt.ir import DNF, DecisionTree, load_model, model_from_dict, model_to_dict, save_model

ROOT = Path(__file__).resolve().parent.parent
ENCODINGS = ROOT / "encodings"
EXAMPLES = ENCODINGS / "examples"
SCHEMA = json.loads((ENCODINGS / "xdt-model-1.schema.json").read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)

TREE_CASES = tree_case_names()
KNOWN_TREE_CASES = {"izza-fig1a-or", "izza-fig1b-2x2", "izza-fig3-unrestricted", "parity4-tree",
                    "playtennis-multiedge", "reads-tree", "restaurant-tree", "zhou-thresholds"}
KNOWN_DNF_CASES = {"dnf-ab-or-cd", "dnf-majority5"}


def all_case_names() -> list[str]:
    return case_names()


def dnf_case_names() -> list[str]:
    return case_names("dnf")


def playtennis() -> dict:
    return load_case("playtennis-multiedge")["model"]


def zhou() -> dict:
    return load_case("zhou-thresholds")["model"]


def grid(tree: DecisionTree) -> list[list]:
    """One representative value per cell of every feature, in all combinations."""
    per_feature = [[c.value(j) for j in range(c.n_cells)] for c in tree.cells]
    return [list(row) for row in itertools.product(*per_feature)]


def mixed_doc(classes, target=None) -> dict:
    """A 3-class tree over ordinal, categorical and binary features (labels from ``classes``)."""
    a, b, c = classes
    doc = {"format": "xdt-model/1", "kind": "tree",
           "features": [{"name": "age", "kind": "ordinal"},
                        {"name": "colour", "kind": "categorical",
                         "domain": ["red", "green", "blue"]},
                        {"name": "member", "kind": "binary", "domain": [0, 1]},
                        {"name": "size", "kind": "categorical", "domain": [1, 2, 3.5]}],
           "classes": [a, b, c]}
    if target is not None:
        doc["target"] = target
    doc["root"] = {
        "feature": "age", "threshold": 30,
        "left": {"feature": "colour", "branches": [
            {"in": ["red"], "node": {"class": a}},
            {"in": ["green", "blue"], "node": {"feature": "age", "threshold": 18.25,
                                               "left": {"class": b}, "right": {"class": c}}}]},
        "right": {"feature": "member", "branches": [
            {"in": [1], "node": {"class": b}},
            {"in": [0], "node": {"feature": "size", "branches": [
                {"in": [3.5, 1], "node": {"class": c}},
                {"in": [2], "node": {"class": a}}]}}]}}
    return doc


# --------------------------------------------------------------------------- the case files


def test_worked_cases_present():
    require_shared(CASES)
    assert KNOWN_TREE_CASES <= set(TREE_CASES)
    assert KNOWN_DNF_CASES <= set(dnf_case_names())


# --------------------------------------------------------------------------- loading


def test_load_from_path_str_pathlike_and_dict_agree():
    path = EXAMPLES / "playtennis.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    models = [load_model(str(path)), load_model(path), load_model(doc), xdt.load_model(path),
              model_from_dict(doc)]
    rows = [["normal", "sunny", "weak"], ["high", "overcast", "strong"],
            ["high", "rain", "weak"], ["high", "sunny", "strong"]]
    for m in models:
        assert isinstance(m, DecisionTree)
        assert m.target == "play"
        assert m.classes == ("no", "yes")
        assert model_to_dict(m) == doc
        assert m.predict(rows).tolist() == ["yes", "yes", "no", "no"]


def test_load_does_not_modify_the_dict():
    doc = mixed_doc([0, 1, 2])
    before = copy.deepcopy(doc)
    load_model(doc)
    assert doc == before


def test_load_a_case_model_written_to_a_file(tmp_path):
    path = tmp_path / "zhou.json"
    path.write_text(json.dumps(zhou()), encoding="utf-8")
    tree = load_model(path)
    assert tree.features.names == ("x", "y")
    assert tree.classes == ("circle", "cross")
    # the case's queries: (0.9, 0.2) -> cross, on both thresholds (0.64, 0.73) -> circle
    assert tree.predict([[0.9, 0.2], [0.64, 0.73]]).tolist() == ["cross", "circle"]


# --------------------------------------------------------------------------- round trips


@pytest.mark.parametrize("name", TREE_CASES)
def test_exact_round_trip_of_every_worked_tree(name):
    doc = load_case(name)["model"]
    out = model_to_dict(load_model(doc))
    assert out == doc
    # exact down to key order and number types: the same JSON text
    assert json.dumps(out) == json.dumps(doc)
    assert model_to_dict(load_model(out)) == doc


@pytest.mark.parametrize("example", ["playtennis.json", "zhou.json"])
def test_exact_round_trip_of_the_shipped_examples(example):
    doc = json.loads((EXAMPLES / example).read_text(encoding="utf-8"))
    assert json.dumps(model_to_dict(load_model(doc))) == json.dumps(doc)


@pytest.mark.parametrize("classes, target", [
    ([0, 1, 2], None),
    ([0, 1, 2], "tier"),
    (["low", "mid", "high"], "tier"),
    ([7, "mid", -1], None),
])
def test_exact_round_trip_with_int_and_string_labels_and_a_target(classes, target):
    doc = mixed_doc(classes, target)
    tree = load_model(doc)
    assert tree.classes == tuple(classes)
    assert tree.target == target
    out = model_to_dict(tree)
    assert out == doc
    assert json.dumps(out) == json.dumps(doc)
    # the int threshold stays an int, the float one a float; the binary domain was written out
    assert type(out["root"]["threshold"]) is int
    assert out["root"]["left"]["branches"][1]["node"]["threshold"] == 18.25
    assert out["features"][2] == {"name": "member", "kind": "binary", "domain": [0, 1]}


def test_binary_domain_is_written_back_only_when_given():
    doc = load_case("izza-fig1a-or")["model"]
    assert doc["features"][0] == {"name": "x1", "kind": "binary"}
    assert model_to_dict(load_model(doc))["features"][0] == {"name": "x1", "kind": "binary"}


def test_null_target_and_domain_are_read_as_absent():
    doc = zhou()
    doc["target"] = None
    doc["features"][0]["domain"] = None
    out = model_to_dict(load_model(doc))
    assert "target" not in out
    assert out["features"][0] == {"name": "x", "kind": "ordinal"}


@pytest.mark.parametrize("name", TREE_CASES)
def test_save_then_load_gives_the_same_dict_and_predictions(name, tmp_path):
    doc = load_case(name)["model"]
    tree = load_model(doc)
    path = tmp_path / f"{name}.json"
    save_model(tree, path)
    text = path.read_text(encoding="utf-8")
    assert text.endswith("\n")
    assert json.loads(text) == doc
    again = load_model(path)
    assert model_to_dict(again) == doc
    rows = grid(tree)
    assert len(rows) == math.prod(c.n_cells for c in tree.cells)
    assert again.predict(rows).tolist() == tree.predict(rows).tolist()


def test_save_model_with_a_target_non_ascii_names_and_str_path(tmp_path):
    doc = mixed_doc(["bas", "moyen", "élevé"], target="catégorie")
    doc["features"][1]["domain"] = ["rouge", "vert", "bleu"]
    doc["root"]["left"]["branches"][0]["in"] = ["rouge"]
    doc["root"]["left"]["branches"][1]["in"] = ["vert", "bleu"]
    tree = load_model(doc)
    path = tmp_path / "m.json"
    xdt.save_model(tree, str(path))
    text = path.read_text(encoding="utf-8")
    assert "élevé" in text and "catégorie" in text  # kept as written, not \u-escaped
    again = load_model(path)
    assert model_to_dict(again) == doc
    rows = [[25, "rouge", 0, 1], [18.25, "vert", 1, 2], [18.5, "bleu", 0, 1],
            [31, "rouge", 0, 2], [31, "rouge", 0, 3.5], [45, "vert", 1, 1]]
    expected = ["bas", "moyen", "élevé", "bas", "élevé", "moyen"]
    assert tree.predict(rows).tolist() == expected
    assert again.predict(rows).tolist() == expected


def test_saved_models_validate_against_the_schema(tmp_path):
    for doc in (mixed_doc([0, 1, 2], "t"), mixed_doc(["a", "b", "c"])):
        path = tmp_path / "m.json"
        save_model(load_model(doc), path)
        VALIDATOR.validate(json.loads(path.read_text(encoding="utf-8")))


# --------------------------------------------------------------------------- validation errors


def outlook_split(doc: dict) -> dict:
    """The PlayTennis split on Outlook, under Humidity = high."""
    return doc["root"]["branches"][1]["node"]


OUTLOOK_AT = "root > Humidity in {'high'}"
RAIN_SUNNY_LEAF_AT = "root > Humidity in {'high'} > Outlook in {'rain', 'sunny'}"


def test_unknown_feature_in_a_categorical_node():
    doc = playtennis()
    outlook_split(doc)["feature"] = "Outlk"
    with pytest.raises(UnknownFeatureError) as e:
        load_model(doc)
    assert isinstance(e.value, LookupError) and isinstance(e.value, XdtError)
    assert str(e.value) == (f"{OUTLOOK_AT}: the node tests unknown feature 'Outlk'; the model's "
                            "features are: Humidity, Outlook, Wind")


def test_unknown_feature_at_the_root_and_in_a_threshold_node():
    doc = playtennis()
    doc["root"]["feature"] = "humidity"
    with pytest.raises(UnknownFeatureError, match=r"^root: the node tests unknown feature "
                                                  r"'humidity'; the model's features are"):
        load_model(doc)
    doc = zhou()
    doc["root"]["left"]["feature"] = "z"
    with pytest.raises(UnknownFeatureError) as e:
        load_model(doc)
    assert str(e.value).startswith("root > y <= 0.73: the node tests unknown feature 'z'")
    assert "features are: x, y" in str(e.value)


@pytest.mark.parametrize("values, shown", [
    (["rain", "sunny", "fog"], "'fog'"),
    (["rain", "Sunny"], "'Sunny'"),
    (["rain", ["sunny"]], "['sunny']"),  # not even a value: still a clear error, no crash
])
def test_value_outside_the_domain(values, shown):
    doc = playtennis()
    outlook_split(doc)["branches"][1]["in"] = values
    with pytest.raises(ValueOutsideDomainError) as e:
        load_model(doc)
    assert isinstance(e.value, InvalidModelError)
    assert e.value.where == OUTLOOK_AT
    assert str(e.value) == (f"{OUTLOOK_AT}: branch 1 on 'Outlook' names {shown}, which is not "
                            "in the domain ['overcast', 'rain', 'sunny']")


@pytest.mark.parametrize("value", [2, True, "1"])
def test_value_outside_a_binary_domain(value):
    doc = load_case("izza-fig1a-or")["model"]
    doc["root"]["branches"][1]["node"]["branches"][0]["in"] = [value]
    with pytest.raises(ValueOutsideDomainError) as e:
        load_model(doc)
    assert e.value.where == "root > x1 in {0}"
    assert f"branch 0 on 'x2' names {value!r}, which is not in the domain [0, 1]" in str(e.value)


def test_branches_that_overlap():
    doc = playtennis()
    outlook_split(doc)["branches"][1]["in"] = ["rain", "sunny", "overcast"]
    with pytest.raises(BranchCoverageError) as e:
        load_model(doc)
    assert isinstance(e.value, InvalidModelError)
    assert e.value.where == OUTLOOK_AT
    assert str(e.value) == (f"{OUTLOOK_AT}: value 'overcast' of 'Outlook' is on branches 0 and 1;"
                            " each value must follow exactly one branch")


def test_a_value_repeated_on_one_branch():
    doc = playtennis()
    outlook_split(doc)["branches"][1]["in"] = ["rain", "sunny", "rain"]
    with pytest.raises(BranchCoverageError, match="value 'rain' of 'Outlook' is on branches 1 "
                                                  "and 1"):
        load_model(doc)


def test_branches_that_do_not_cover_the_domain():
    doc = playtennis()
    outlook_split(doc)["branches"][1]["in"] = ["rain"]
    with pytest.raises(BranchCoverageError) as e:
        load_model(doc)
    assert str(e.value) == (f"{OUTLOOK_AT}: no branch on 'Outlook' takes ['sunny']; every domain "
                            "value must follow one branch (add the values to a branch)")
    doc = playtennis()
    doc["root"]["branches"][0]["in"] = ["normal", "high"]
    doc["root"]["branches"][1]["in"] = ["high"]
    with pytest.raises(BranchCoverageError, match=r"^root: value 'high' of 'Humidity'"):
        load_model(doc)


def test_threshold_on_a_categorical_feature():
    doc = playtennis()
    doc["root"]["branches"][1]["node"] = {"feature": "Outlook", "threshold": 1,
                                          "left": {"class": "yes"}, "right": {"class": "no"}}
    with pytest.raises(InvalidModelError) as e:
        load_model(doc)
    assert type(e.value) is InvalidModelError
    assert e.value.where == OUTLOOK_AT
    assert str(e.value) == (
        f"{OUTLOOK_AT}: threshold split on categorical feature 'Outlook'; a categorical feature "
        "is split by 'branches' with value sets (or declare it 'ordinal')")


def test_threshold_on_a_binary_feature_and_branches_on_an_ordinal_one():
    doc = load_case("izza-fig1a-or")["model"]
    doc["root"] = {"feature": "x1", "threshold": 0.5,
                   "left": {"class": 0}, "right": {"class": 1}}
    with pytest.raises(InvalidModelError, match=r"^root: threshold split on binary feature 'x1'"):
        load_model(doc)
    doc = zhou()
    doc["root"]["left"] = {"feature": "x", "branches": [{"in": [0], "node": {"class": "circle"}},
                                                        {"in": [1], "node": {"class": "cross"}}]}
    with pytest.raises(InvalidModelError) as e:
        load_model(doc)
    assert str(e.value).startswith("root > y <= 0.73: branch split on ordinal feature 'x'; split "
                                   "an ordinal feature by 'threshold'")


def test_leaf_class_not_in_classes():
    doc = zhou()
    doc["root"]["left"]["right"]["class"] = "square"
    with pytest.raises(InvalidModelError) as e:
        load_model(doc)
    assert e.value.where == "root > y <= 0.73 > x > 0.64"
    assert str(e.value) == ("root > y <= 0.73 > x > 0.64: leaf class 'square' is not in classes "
                            "['circle', 'cross']; add it to 'classes' or fix the leaf")


@pytest.mark.parametrize("label", ["maybe", "No", ["no"], {"c": "no"}, None, 1])
def test_leaf_class_not_in_classes_of_any_type(label):
    doc = playtennis()
    outlook_split(doc)["branches"][1]["node"] = {"class": label}
    with pytest.raises(InvalidModelError) as e:
        load_model(doc)
    assert e.value.where == RAIN_SUNNY_LEAF_AT
    assert f"leaf class {label!r} is not in classes ['no', 'yes']" in str(e.value)


def test_a_boolean_leaf_class_is_not_the_int_class():
    doc = load_case("izza-fig1a-or")["model"]
    doc["root"]["branches"][0]["node"]["class"] = True  # True == 1 in Python, not in JSON
    with pytest.raises(InvalidModelError, match=r"^root > x1 in \{1\}: leaf class True"):
        load_model(doc)


def test_missing_format():
    doc = playtennis()
    del doc["format"]
    with pytest.raises(ModelFormatError) as e:
        load_model(doc)
    assert str(e.value) == 'the model has no "format" field; add "format": "xdt-model/1"'


def test_a_whole_case_file_is_not_a_model():
    require_shared(CASES)
    case = load_case("zhou-thresholds")
    with pytest.raises(ModelFormatError) as e:
        load_model(case)
    assert str(e.value).startswith('the model has no "format" field; add "format": "xdt-model/1"')
    assert 'pass doc["model"]' in str(e.value)


@pytest.mark.parametrize("fmt", ["xdt-model/2", "xdt-model/1.0", "XDT-MODEL/1", 1])
def test_unknown_format(fmt):
    doc = playtennis()
    doc["format"] = fmt
    with pytest.raises(ModelFormatError) as e:
        load_model(doc)
    assert str(e.value) == (f"unknown model format {fmt!r}; this version of xdt reads "
                            '"xdt-model/1"')


@pytest.mark.parametrize("text, shown", [
    ("Infinity", "inf"), ("-Infinity", "-inf"), ("NaN", "nan"), ("1e999", "inf"),
])
def test_non_finite_threshold_from_json_text(text, shown, tmp_path):
    # Python's json module reads these non-standard numbers as floats
    raw = json.dumps(zhou()).replace('"threshold": 0.64', f'"threshold": {text}')
    assert raw != json.dumps(zhou())
    path = tmp_path / "m.json"
    path.write_text(raw, encoding="utf-8")
    for source in (path, json.loads(raw)):
        with pytest.raises(InvalidModelError) as e:
            load_model(source)
        assert e.value.where == "root > y <= 0.73"
        assert str(e.value) == (f"root > y <= 0.73: threshold on 'x' must be a finite number, "
                                f"got {shown}")


@pytest.mark.parametrize("threshold", ["0.64", True, None, [0.64]])
def test_threshold_that_is_not_a_number(threshold):
    doc = zhou()
    doc["root"]["threshold"] = threshold
    with pytest.raises(InvalidModelError) as e:
        load_model(doc)
    assert str(e.value) == (f"root: threshold on 'y' must be a finite number, got {threshold!r}")


@pytest.mark.parametrize("name", dnf_case_names())
def test_every_dnf_case_loads_and_round_trips(name, tmp_path):
    case = load_case(name)
    doc = case["model"]
    assert doc["kind"] == "dnf"
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    for source in (doc, path):
        model = load_model(source)
        assert isinstance(model, DNF) and model.kind == "dnf"
        assert model_to_dict(model) == doc
        for q in case["queries"]:
            assert model.predict([q["instance"]]).tolist() == [q["prediction"]]


@pytest.mark.parametrize("kind", ["forest", "Tree", "", None])
def test_unknown_or_missing_kind(kind):
    doc = playtennis()
    if kind is None:
        del doc["kind"]
    else:
        doc["kind"] = kind
    with pytest.raises(ModelFormatError) as e:
        load_model(doc)
    assert str(e.value).startswith(f"unknown model kind {kind!r}; \"xdt-model/1\" models are of "
                                   "kind 'tree', 'dnf', 'nested-kdnf', 'decision-list' or "
                                   "'tree-ensemble'")


@pytest.mark.parametrize("text", ['{"format": "xdt-model/1", "kind": ', "", "not json",
                                  "{'format': 'xdt-model/1'}"])
def test_malformed_json_file(text, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ModelFormatError) as e:
        load_model(path)
    assert str(e.value).startswith(f"{path}: not valid JSON (")
    assert 'an xdt model is a JSON object with "format": "xdt-model/1"' in str(e.value)


def test_json_file_that_is_not_an_object(tmp_path):
    path = tmp_path / "list.json"
    path.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(ModelFormatError, match="an xdt model is a JSON object, got list"):
        load_model(path)


def test_missing_file(tmp_path):
    path = tmp_path / "nowhere" / "model.json"
    with pytest.raises(FileNotFoundError) as e:
        load_model(path)
    assert str(path) in str(e.value)
    with pytest.raises(FileNotFoundError):
        load_model(str(path))


@pytest.mark.parametrize("source", [42, None, [{"format": "xdt-model/1"}], b"{}"])
def test_load_model_of_something_else(source):
    with pytest.raises(ModelFormatError, match="load_model takes a file path or a dict"):
        load_model(source)


@pytest.mark.parametrize("node, fields", [
    ({"klass": "no"}, "['klass']"),
    ({"class": "no", "weight": 3}, "['class', 'weight']"),
    ({"feature": "Wind", "threshold": 1, "left": {"class": "no"}}, "['feature', 'left', "
                                                                   "'threshold']"),
    ({"feature": "Wind"}, "['feature']"),
    ({}, "[]"),
])
def test_node_of_unknown_shape(node, fields):
    doc = playtennis()
    outlook_split(doc)["branches"][1]["node"] = node
    with pytest.raises(InvalidModelError) as e:
        load_model(doc)
    # the same path that the tree's own checks give this node (see the leaf-class test)
    assert e.value.where == RAIN_SUNNY_LEAF_AT
    assert str(e.value).startswith(f"{RAIN_SUNNY_LEAF_AT}: unrecognised node with fields {fields};"
                                   ' a node is a leaf {"class": c}, a numeric split')


def test_node_that_is_not_an_object():
    doc = zhou()
    doc["root"]["left"]["left"] = ["circle"]
    with pytest.raises(InvalidModelError) as e:
        load_model(doc)
    assert str(e.value) == ("root > y <= 0.73 > x <= 0.64: a node must be a JSON object, got "
                            "['circle']")


@pytest.mark.parametrize("branches, message", [
    ({"in": ["normal"]}, "'branches' must be a list"),
    ([{"in": ["normal"], "node": {"class": "yes"}}], "a split on 'Humidity' needs at least two "
                                                     "branches"),
    ([{"in": [], "node": {"class": "yes"}}, {"in": ["normal", "high"], "node": {"class": "no"}}],
     "branch 0 on 'Humidity' has no values"),
    ([{"in": "normal", "node": {"class": "yes"}}, {"in": ["high"], "node": {"class": "no"}}],
     "branch 0 must be {\"in\": [values], \"node\": ...}"),
    ([{"in": ["normal"], "node": {"class": "yes"}, "p": 1}, {"in": ["high"],
                                                            "node": {"class": "no"}}],
     "branch 0 must be {\"in\": [values], \"node\": ...}"),
])
def test_malformed_branches(branches, message):
    doc = playtennis()
    doc["root"]["branches"] = branches
    with pytest.raises(InvalidModelError) as e:
        load_model(doc)
    assert e.value.where == "root"
    assert str(e.value).startswith(f"root: {message}")


@pytest.mark.parametrize("change, message", [
    (lambda d: d.update(weights=[1]), "unknown field(s) ['weights'] in a tree model"),
    (lambda d: d.pop("root"), "the tree model has no 'root' field"),
    (lambda d: d.pop("features"), "the tree model has no 'features' field"),
    (lambda d: d.pop("classes"), "the tree model has no 'classes' field"),
    (lambda d: d.update(classes="no yes"), "'features' and 'classes' must be JSON lists"),
    (lambda d: d.update(target=["play"]), "'target' must be a string, got ['play']"),
    (lambda d: d["features"][1].update(values=[1]), "features[1] has unknown field(s) ['values']"),
    (lambda d: d["features"][0].pop("kind"), "features[0] must be an object with 'name' and "
                                             "'kind'"),
    (lambda d: d["features"][2].update(domain="weak"), "features[2].domain must be a list"),
])
def test_other_format_errors(change, message):
    doc = playtennis()
    change(doc)
    with pytest.raises(ModelFormatError) as e:
        load_model(doc)
    assert str(e.value).startswith(message)


@pytest.mark.parametrize("change, message", [
    (lambda d: d.update(classes=[]), "'classes' is empty; list the class labels"),
    (lambda d: d.update(classes=["no", "yes", "no"]), "class label 'no' is listed twice"),
    (lambda d: d.update(classes=["no", 1.5]), "class labels must be strings or integers, got 1.5"),
    (lambda d: d["features"][2].update(name="Humidity"), "feature name 'Humidity' is used twice"),
    (lambda d: d["features"][2].update(kind="nominal"), "feature 'Wind': unknown kind 'nominal'"),
    (lambda d: d["features"][2].pop("domain"), "feature 'Wind': a categorical feature needs a "
                                               "non-empty 'domain'"),
])
def test_model_level_rule_errors(change, message):
    doc = playtennis()
    change(doc)
    with pytest.raises(InvalidModelError) as e:
        load_model(doc)
    assert str(e.value).startswith(message)


def test_every_model_error_is_a_value_error_and_an_xdt_error():
    doc = playtennis()
    outlook_split(doc)["branches"][1]["in"] = ["rain"]
    with pytest.raises(ValueError):
        load_model(doc)
    with pytest.raises(XdtError):
        load_model(doc)


def test_model_to_dict_of_something_else():
    with pytest.raises(UnsupportedModelError,
                       match="saves DecisionTree, DNF, NestedKDNF, DecisionList and TreeEnsemble"):
        model_to_dict({"format": "xdt-model/1"})


# --------------------------------------------------------------------------- the JSON Schema


def test_schema_is_a_valid_draft_2020_12_schema():
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


@pytest.mark.parametrize("name", all_case_names())
def test_every_worked_case_model_validates(name):
    VALIDATOR.validate(load_case(name)["model"])


@pytest.mark.parametrize("example", ["playtennis.json", "zhou.json"])
def test_shipped_examples_validate(example):
    VALIDATOR.validate(json.loads((EXAMPLES / example).read_text(encoding="utf-8")))


def _accepted_variants() -> list:
    """Documents the loader accepts, in forms beyond the worked cases."""
    out = [mixed_doc([0, 1, 2]), mixed_doc(["a", "b", "c"], target="t"),
           mixed_doc([5, "b", -3])]
    doc = mixed_doc([0, 1, 2])
    doc["target"] = None
    doc["features"][0]["domain"] = None
    out.append(doc)
    out.append({"format": "xdt-model/1", "kind": "tree", "features": [], "classes": ["only"],
                "root": {"class": "only"}})
    return out


@pytest.mark.parametrize("doc", _accepted_variants())
def test_documents_the_loader_accepts_validate(doc):
    load_model(doc)
    VALIDATOR.validate(doc)


def _structurally_bad() -> list:
    """(id, mutation of the PlayTennis or Zhou document): both the schema and the loader reject."""

    def mutated(base, change):
        def make():
            d = base()
            change(d)
            return d
        return make

    def pt(change):
        return mutated(playtennis, change)

    def zh(change):
        return mutated(zhou, change)

    def outlook(change):
        return pt(lambda d: change(outlook_split(d)))

    return [
        ("no-format", pt(lambda d: d.pop("format"))),
        ("other-format", pt(lambda d: d.update(format="xdt-model/2"))),
        ("no-kind", pt(lambda d: d.pop("kind"))),
        ("unknown-kind", pt(lambda d: d.update(kind="forest"))),
        ("extra-field", pt(lambda d: d.update(weights=[]))),
        ("no-root", pt(lambda d: d.pop("root"))),
        ("target-not-string", pt(lambda d: d.update(target=3))),
        ("classes-empty", pt(lambda d: d.update(classes=[]))),
        ("classes-repeated", pt(lambda d: d.update(classes=["no", "no"]))),
        ("class-float", pt(lambda d: d.update(classes=["no", 1.5]))),
        ("feature-extra-field", pt(lambda d: d["features"][0].update(order=1))),
        ("feature-unknown-kind", pt(lambda d: d["features"][0].update(kind="nominal"))),
        ("categorical-without-domain", pt(lambda d: d["features"][0].pop("domain"))),
        ("domain-empty", pt(lambda d: d["features"][2].update(domain=[]))),
        ("domain-repeated", pt(lambda d: d["features"][2].update(domain=["weak", "weak"]))),
        ("domain-boolean", pt(lambda d: d["features"][2].update(domain=[True, False]))),
        ("ordinal-with-domain", zh(lambda d: d["features"][0].update(domain=[1, 2]))),
        ("binary-other-domain", zh(lambda d: d["features"].append(
            {"name": "b", "kind": "binary", "domain": [1, 2]}))),
        ("leaf-extra-field", outlook(lambda s: s["branches"][0]["node"].update(p=0.5))),
        ("node-unknown-shape", outlook(lambda s: s["branches"][0].update(node={"klass": "no"}))),
        ("node-not-object", outlook(lambda s: s["branches"][0].update(node="yes"))),
        ("one-branch", outlook(lambda s: s["branches"].pop())),
        ("branch-no-values", outlook(lambda s: s["branches"][0].update(**{"in": []}))),
        ("branch-extra-field", outlook(lambda s: s["branches"][0].update(weight=2))),
        ("branch-repeated-value", outlook(lambda s: s["branches"][1].update(
            **{"in": ["rain", "rain", "sunny"]}))),
        ("branches-not-list", outlook(lambda s: s.update(branches={}))),
        ("threshold-string", zh(lambda d: d["root"].update(threshold="0.73"))),
        ("threshold-boolean", zh(lambda d: d["root"].update(threshold=True))),
        ("split-extra-field", zh(lambda d: d["root"].update(missing="left"))),
    ]


@pytest.mark.parametrize("make", [m for _, m in _structurally_bad()],
                         ids=[i for i, _ in _structurally_bad()])
def test_schema_and_loader_both_reject_structural_errors(make):
    doc = make()
    assert not VALIDATOR.is_valid(doc)
    with pytest.raises(XdtError):
        load_model(doc)


def test_schema_describes_the_dnf_kinds():
    doc = load_case("dnf-ab-or-cd")["model"]
    VALIDATOR.validate(doc)
    bad = copy.deepcopy(doc)
    bad["terms"][0][0]["values"] = bad["terms"][0][0].pop("in")
    assert not VALIDATOR.is_valid(bad)
    bad = copy.deepcopy(doc)
    bad["root"] = {"class": 0}
    assert not VALIDATOR.is_valid(bad)
    bad = copy.deepcopy(doc)
    bad["classes"] = [0, 1, 2]
    assert not VALIDATOR.is_valid(bad)


# --------------------------------------------------------------------------- the README


def test_encodings_readme_examples_run(monkeypatch):
    """The doctests of encodings/README.md, run from the repository root."""
    monkeypatch.chdir(ROOT)
    result = doctest.testfile(str(ENCODINGS / "README.md"), module_relative=False,
                              optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.attempted > 20
    assert result.failed == 0


def test_examples_predict_like_the_cases():
    """The shipped examples are the worked cases' trees: same predictions on every cell."""
    for example, case in (("playtennis.json", "playtennis-multiedge"),
                          ("zhou.json", "zhou-thresholds")):
        shipped = load_model(EXAMPLES / example)
        tree = load_model(load_case(case)["model"])
        rows = grid(tree)
        assert np.array_equal(shipped.predict(rows), tree.predict(rows))
        for q in load_case(case)["queries"]:
            assert shipped.predict([q["instance"]])[0] == q["prediction"]


# --------------------------------------------------------------------------- repeated keys
def test_a_key_repeated_at_the_top_level_is_rejected(tmp_path):
    path = tmp_path / "twice.json"
    path.write_text('{"format": "xdt-model/1",\n "kind": "dnf",\n "kind": "tree",\n'
                    ' "features": [{"name": "b", "kind": "binary"}], "classes": [0, 1],\n'
                    ' "root": {"class": 1}}\n', encoding="utf-8")
    with pytest.raises(ModelFormatError) as e:
        load_model(path)
    assert str(e.value) == (
        f"{path}, line 3: key 'kind' appears twice in the top-level object; each key may "
        "appear once in an object (a JSON reader keeps only one of the values): remove or "
        "rename the copy")


def test_a_key_repeated_in_a_nested_object_is_rejected(tmp_path):
    # json.loads alone would read threshold 0.5 and predict "circle" at x = 0.6
    text = (EXAMPLES / "zhou.json").read_text(encoding="utf-8")
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if '"threshold": 0.64' in line)
    lines.insert(at + 1, '   "threshold": 0.5,')
    path = tmp_path / "zhou-twice.json"
    path.write_text("\n".join(lines), encoding="utf-8")
    assert json.loads(path.read_text())["root"]["left"]["threshold"] == 0.5
    with pytest.raises(ModelFormatError) as e:
        load_model(path)
    assert str(e.value).startswith(
        f"{path}, line {at + 2}: key 'threshold' appears twice in the object at root.left; ")


def test_a_key_repeated_inside_a_list_is_located(tmp_path):
    path = tmp_path / "features.json"
    path.write_text('{"format": "xdt-model/1", "kind": "tree", "features": [\n'
                    ' {"name": "a", "kind": "binary"},\n'
                    ' {"name": "b", "kind": "binary", "name": "c"}],\n'
                    ' "classes": [0, 1], "root": {"class": 1}}', encoding="utf-8")
    with pytest.raises(ModelFormatError, match=r"^.*features\.json, line 3: key 'name' "
                                               r"appears twice in the object at features\[1\];"):
        load_model(path)


def test_the_same_key_in_different_objects_is_fine(tmp_path):
    path = tmp_path / "zhou.json"
    path.write_text((EXAMPLES / "zhou.json").read_text(encoding="utf-8"), encoding="utf-8")
    assert model_to_dict(load_model(path)) == json.loads(path.read_text(encoding="utf-8"))
