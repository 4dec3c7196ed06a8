"""DNF and nested k-DNF models in the IR: validation, prediction, the complement (checked
against brute force over the cell space), and the JSON kinds ``dnf`` and ``nested-kdnf``."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import hypothesis.strategies as st
import jsonschema
import numpy as np
import pytest
from hypothesis import given, settings
from tiers import examples

from xdt.errors import InvalidModelError, UnknownFeatureError, ValueOutsideDomainError
from xdt.ir import DNF, Condition, Feature, NestedKDNF, load_model, model_to_dict, save_model

SCHEMA = json.loads((Path(__file__).resolve().parent.parent / "encodings"
                     / "xdt-model-1.schema.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)

BITS = [Feature(n, "binary") for n in "abcd"]
MIXED = [Feature("b", "binary"), Feature("colour", "categorical", ("red", "green", "blue")),
         Feature("x", "ordinal")]


def c(feature, *values, above=None, upto=None) -> Condition:
    return Condition(feature, tuple(values) if values else None, above, upto)


def all_points(model) -> np.ndarray:
    """Every point of the model's cell space, shape (product of cells, F)."""
    return np.array(list(itertools.product(*(range(cl.n_cells) for cl in model.cells))))


# ---------------------------------------------------------------------- prediction
def test_dnf_predicts_by_its_terms():
    f = DNF(MIXED, ["no", "yes"], [[c("b", 1), c("colour", "red", "blue")],
                                   [c("x", above=2.5, upto=7)]])
    X = [[1, "red", 0.0], [0, "red", 3.0], [0, "green", 7.5], [1, "green", 1.0]]
    assert f.predict(X).tolist() == ["yes", "yes", "no", "no"]
    assert f.k == 2
    assert [str(r) for r in f.rules()] == ["b = 1 AND colour in {red, blue}", "2.5 < x <= 7"]


def test_constant_dnfs():
    assert DNF(BITS, [0, 1], []).predict([[0, 0, 0, 0]]).tolist() == [0]
    assert DNF(BITS, [0, 1], [[]]).predict([[0, 0, 0, 0]]).tolist() == [1]
    assert DNF(BITS, [0, 1], []).complement().predict([[1, 1, 1, 1]]).tolist() == [0]
    assert DNF(BITS, [0, 1], [[]]).complement().predict([[1, 1, 1, 1]]).tolist() == [1]


# ---------------------------------------------------------------------- validation
@pytest.mark.parametrize("classes", [[0], [0, 1, 2], ["a", "a"], [0.5, 1]])
def test_a_dnf_needs_two_classes(classes):
    with pytest.raises(InvalidModelError):
        DNF(BITS, classes, [[c("a", 1)]])


@pytest.mark.parametrize("terms,error,message", [
    ([[c("b", 1), c("b", 0)]], InvalidModelError, "term 0: the term is inconsistent"),
    ([[c("x", above=1), c("x", upto=0.5)]], InvalidModelError, "inconsistent"),
    ([[c("x", "red")]], InvalidModelError, "tested by bounds"),
    ([[c("colour", above=1.0)]], InvalidModelError, "tested by values"),
    ([[c("colour", "purple")]], ValueOutsideDomainError, "not in the domain"),
    ([[c("x")]], InvalidModelError, "has no bound"),
    ([[c("x", above=3, upto=3)]], InvalidModelError, "is empty"),
    ([[c("x", upto=float("inf"))]], InvalidModelError, "finite numbers"),
    ([[c("colour")]], InvalidModelError, "allows no value"),
    ([[c("size", 1)]], UnknownFeatureError, "unknown feature 'size'"),
])
def test_dnf_validation(terms, error, message):
    with pytest.raises(error, match=message):
        DNF(MIXED, [0, 1], terms)


def test_nested_kdnf_expands_its_matrix():
    # L = [[a=1, b=1], [c=1, d=1]]; terms (2, 0) and (0, 2): (a AND b) OR (c AND d)
    L = [[c("a", 1), c("b", 1)], [c("c", 1), c("d", 1)]]
    f = NestedKDNF(BITS, [0, 1], L, [[2, 0], [0, 2]])
    assert [str(r) for r in f.rules()] == ["a = 1 AND b = 1", "c = 1 AND d = 1"]
    assert f.k == 2 and f.kind == "nested-kdnf"
    # (1, 1): the first condition of each row
    g = NestedKDNF(BITS, [0, 1], L, [[1, 1]])
    assert [str(r) for r in g.rules()] == ["a = 1 AND c = 1"]
    assert g.to_dnf().conditions == g.conditions


@pytest.mark.parametrize("matrix,prefixes,message", [
    ([[c("a", 1), c("b", 1)]], [[1, 1]], "must be 1 x 1|must be 2 x 2|row 0 has"),
    ([[c("a", 1), c("b", 1)], [c("c", 1), c("d", 1)]], [[2, 1]], "sum to 3 > k = 2"),
    ([[c("a", 1), c("b", 1)], [c("c", 1), c("d", 1)]], [[3, 0]], "in 0..2"),
    ([[c("a", 1), c("b", 1)], [c("c", 1), c("d", 1)]], [[1]], "needs 2 prefix lengths"),
    ([[c("a", 1), c("b", 1)], [c("a", 0), c("d", 1)]], [[1, 1]], "inconsistent"),
    ([], [], "at least one row"),
])
def test_nested_kdnf_validation(matrix, prefixes, message):
    with pytest.raises(InvalidModelError, match=message):
        NestedKDNF(BITS, [0, 1], matrix, prefixes)


# ---------------------------------------------------------------------- the complement
def test_complement_of_the_worked_case():
    f = DNF(BITS, [0, 1], [[c("a", 1), c("b", 1)], [c("c", 1), c("d", 1)]])
    g = f.complement()
    assert g.classes == (1, 0)
    assert [str(r) for r in g.rules()] == ["a = 0 AND c = 0", "a = 0 AND d = 0",
                                           "b = 0 AND c = 0", "b = 0 AND d = 0"]


@st.composite
def random_dnfs(draw):
    """Random DNFs over a binary, a 3-value categorical and an ordinal feature."""
    terms = []
    for _ in range(draw(st.integers(0, 4))):
        term = []
        for feature in draw(st.lists(st.sampled_from(("b", "colour", "x")), max_size=4)):
            if feature == "b":
                term.append(c("b", draw(st.sampled_from((0, 1)))))
            elif feature == "colour":
                term.append(c("colour", *draw(st.lists(st.sampled_from(("red", "green",
                                                                        "blue")),
                                                       min_size=1, max_size=2, unique=True))))
            else:
                lo = draw(st.sampled_from((None, 0.0, 1.0, 2.0)))
                hi = draw(st.sampled_from((None, 1.5, 2.5, 3.0)))
                if lo is None and hi is None or (lo is not None and hi is not None
                                                 and lo >= hi):
                    continue
                term.append(c("x", above=lo, upto=hi))
        terms.append(term)
    try:
        return DNF(MIXED, ["n", "y"], terms)
    except InvalidModelError:  # an inconsistent term: drop the draw
        return DNF(MIXED, ["n", "y"], [])


@given(random_dnfs())
@settings(max_examples=examples(150))
def test_complement_predicts_like_the_dnf_everywhere(f):
    g = f.complement()
    # compare on one value per cell of the union of both models' cells
    xs = sorted({0.0, 0.5, 1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 2.75, 3.0, 3.5, -1.0})
    rows = [[b, col, x] for b in (0, 1) for col in ("red", "green", "blue") for x in xs]
    assert f.predict(rows).tolist() == g.predict(rows).tolist()
    assert all(len(t) <= 2 * max(1, len(f.terms)) for t in g.conditions)


def test_complement_terms_are_minimal_transversals_of_binary_terms():
    # majority of 3: (a b) or (a c) or (b c); complement: two of them false
    bits = BITS[:3]
    f = DNF(bits, [0, 1], [[c("a", 1), c("b", 1)], [c("a", 1), c("c", 1)],
                           [c("b", 1), c("c", 1)]])
    assert sorted(str(r) for r in f.complement().rules()) == [
        "a = 0 AND b = 0", "a = 0 AND c = 0", "b = 0 AND c = 0"]
    for point in all_points(f):
        assert f.predict_cells(point[None])[0] != f.complement().predict_cells(point[None])[0]


# ---------------------------------------------------------------------- JSON
def test_dnf_with_ordinal_and_categorical_conditions_round_trips(tmp_path):
    f = DNF(MIXED, ["no", "yes"], [[c("b", 1), c("colour", "red", "blue")],
                                   [c("x", above=2.5, upto=7)], [c("x", upto=-1)]],
            target="buy")
    doc = model_to_dict(f)
    assert doc["terms"][1] == [{"feature": "x", "gt": 2.5, "le": 7}]
    VALIDATOR.validate(doc)
    save_model(f, tmp_path / "f.json")
    back = load_model(tmp_path / "f.json")
    assert back.conditions == f.conditions and back.target == "buy"


def test_nested_kdnf_round_trips_and_validates(tmp_path):
    L = [[c("a", 1), c("b", 1)], [c("c", 1), c("d", 0)]]
    f = NestedKDNF(BITS, [0, 1], L, [[2, 0], [1, 1]])
    doc = model_to_dict(f)
    assert doc["kind"] == "nested-kdnf" and doc["k"] == 2
    assert doc["terms"] == [[2, 0], [1, 1]]
    VALIDATOR.validate(doc)
    back = load_model(doc)
    assert isinstance(back, NestedKDNF) and back.prefixes == f.prefixes
    assert back.conditions == f.conditions
    bad = dict(doc, k=3)
    with pytest.raises(InvalidModelError, match="'k' is 3"):
        load_model(bad)
    bad = dict(doc, terms=[[2, 1]])
    with pytest.raises(InvalidModelError, match="sum to 3"):
        load_model(bad)


@pytest.mark.parametrize("condition,message", [
    ({"feature": "a", "values": [1]}, "unrecognised condition fields"),
    ({"in": [1]}, "a condition is"),
    ({"feature": "a", "in": 1}, "'in' must be a list"),
])
def test_malformed_conditions(condition, message):
    doc = {"format": "xdt-model/1", "kind": "dnf",
           "features": [{"name": "a", "kind": "binary"}], "classes": [0, 1],
           "terms": [[condition]]}
    assert not VALIDATOR.is_valid(doc)
    with pytest.raises(InvalidModelError, match=message):
        load_model(doc)


def test_reported_bad_dnf_inputs():
    with pytest.raises(InvalidModelError, match="not the string 'ab'"):
        DNF(MIXED, [0, 1], [[Condition("colour", "ab")]])
    with pytest.raises(InvalidModelError, match="at least one feature"):
        DNF([], [0, 1], [])
    with pytest.raises(InvalidModelError, match="finite numbers"):
        DNF(MIXED, [0, 1], [[c("x", above=10**400)]])
