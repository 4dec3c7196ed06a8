"""Explaining DNFs and nested k-DNFs (Cooper, Bousdira & Carbonnel, "Interpretable DNFs",
IJCAI 2025) with the SAT engine: the encoding of both directions, every Explainer method, the
default deletion order that keeps AXps inside a true term (size <= k for k-AXp-interpretable
DNFs), certificates, DIMACS, the independent checks of xdt.explain.checks._verify, the path-only
notions that must refuse a DNF, and the command line.

The property tests draw random DNFs over mixed binary / categorical / ordinal features and
compare the SAT engine with brute force over the cell space, and with the explanations of the
DNF's complement (the same function, written with the other class's terms)."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import hypothesis.strategies as st
import numpy as np
import pytest
from click.testing import CliRunner, Result
from conftest import load_case
from hypothesis import HealthCheck, event, given, settings
from pysat.solvers import Solver
from tiers import examples

import xdt
from xdt.cli import main
from xdt.errors import CertificateError, EngineNotAvailableError, UnsupportedModelError
from xdt.explain import path_redundancy
from xdt.explain._models import implying_terms
from xdt.explain.checks import _verify as verify
from xdt.explain.checks._certificates import check_certificate
from xdt.explain.engines._sat import ModelEncoding, SatOracle
from xdt.explain.export._dimacs import encode_query, parse_dimacs
from xdt.explain.queries._term_order import term_order
from xdt.ir import DNF, Condition, Feature, NestedKDNF, save_model
from xdt.ir._cells import full_mask

BITS = [Feature(n, "binary") for n in "abcd"]
MIXED = [Feature("b", "binary"), Feature("colour", "categorical", ("red", "green", "blue")),
         Feature("x", "ordinal")]


def c(feature, *values, above=None, upto=None) -> Condition:
    return Condition(feature, tuple(values) if values else None, above, upto)


def names(explanations) -> set[frozenset[str]]:
    return {frozenset(e.features) for e in explanations}


# (a AND b) OR (c AND d): Cooper et al., Example 2 (form (i)) and the worked case dnf-ab-or-cd
AB_CD = DNF(BITS, [0, 1], [[c("a", 1), c("b", 1)], [c("c", 1), c("d", 1)]])
# a DNF over every kind of feature, with an ordinal interval and a categorical value set
RULES = DNF(MIXED, ["deny", "grant"],
            [[c("b", 1), c("colour", "red", "blue")], [c("x", above=2.5, upto=7)],
             [c("colour", "green"), c("x", upto=1)]], target="loan")


# ---------------------------------------------------------------------- the SAT encoding
def test_falsified_direction_is_one_clause_per_term():
    enc = ModelEncoding(AB_CD)
    assert implying_terms(AB_CD, 1) == [(0, {0: 0b10, 1: 0b10}), (1, {2: 0b10, 3: 0b10})]
    assert implying_terms(AB_CD, 0) is None
    cell = {(f, j): enc.pool.id(("cell", f, j)) for f in range(4) for j in range(2)}
    # "the DNF is false": not (a = 1 and b = 1), not (c = 1 and d = 1)
    assert enc.differs(1) == [[cell[0, 0], cell[1, 0]], [cell[2, 0], cell[3, 0]]]


def test_true_direction_has_a_variable_per_term():
    enc = ModelEncoding(AB_CD)
    clauses = enc.differs(0)
    t0, t1 = enc.pool.id(("term", 1, 0)), enc.pool.id(("term", 1, 1))
    cell = {(f, j): enc.pool.id(("cell", f, j)) for f in range(4) for j in range(2)}
    assert clauses == [[-t0, cell[0, 1]], [-t0, cell[1, 1]], [-t1, cell[2, 1]],
                       [-t1, cell[3, 1]], [t0, t1]]
    assert enc.describe_var(t1) == "term 1 of class 1 holds"


def test_ordinal_interval_literal_gives_two_implications():
    enc = ModelEncoding(RULES)
    x = RULES.features.index("x")
    t = enc.pool.id(("term", 1, 1))
    clauses = enc.differs(0)
    # term 1 is 2.5 < x <= 7 over the thresholds (1, 2.5, 7): [x > 2.5] and not [x > 7]
    assert [-t, enc.pool.id(("gt", x, 1))] in clauses
    assert [-t, -enc.pool.id(("gt", x, 2))] in clauses
    assert clauses[-1] == [enc.pool.id(("term", 1, p)) for p in range(3)]


@pytest.mark.parametrize(("terms", "label"), [([], 0), ([[]], 1)])
def test_constant_dnfs_entail_their_class_with_no_feature(terms, label):
    f = DNF(BITS, [0, 1], terms)
    with xdt.Explainer(f) as ex:
        x = {"a": 1, "b": 0, "c": 1, "d": 0}
        assert ex.predict(x) == label
        assert ex.axp(x, verify=True).features == ()
        assert ex.cxp(x) is None and list(ex.all_cxps(x)) == []
        assert names(ex.all_axps(x)) == {frozenset()}
        assert ex.counterexample(x, []) is None


def test_sat_oracle_counterexamples_are_points_of_the_other_class():
    enc = ModelEncoding(RULES)
    x = {"b": 0, "colour": "green", "x": 0.5}  # term 2 holds: grant
    _, cells = xdt.ir._instances.encode_instance(RULES.features, RULES.cells, x)
    with SatOracle(enc, cells, [1 << j for j in cells], 0b111, 1) as oracle:
        assert oracle.entails(0b110) and not oracle.entails(0b100)
        point = oracle.counterexample(0b100)  # only x fixed (x <= 1)
        assert point[2] == cells[2] and RULES.predict_cells(np.array([point]))[0] == 0
        assert oracle.counterexample_cells({1: 0b010, 2: 0b0001}) is None
        assert oracle.counterexample_cells({1: 0b110, 2: 0b0001}) is not None


# ---------------------------------------------------------------------- the Explainer
def test_every_method_on_a_dnf():
    x = {"b": 1, "colour": "red", "x": 9.0}  # term 0 holds
    with xdt.Explainer(RULES) as ex:
        assert ex.engine == "sat" and ex.predict(x) == "grant"
        axp = ex.axp(x, verify=True)
        assert axp.rule == "IF b = 1 AND colour = red THEN loan = grant"
        assert axp.certificate.proof.engine == "sat"
        assert set(axp.certificate.witnesses) == {"b", "colour"}
        assert ex.axp(x, inflate=True, verify=True).rule == \
            "IF b = 1 AND colour != green THEN loan = grant"
        assert ex.inflate(x, axp, verify=True).rule == \
            "IF b = 1 AND colour != green THEN loan = grant"
        assert names(ex.all_axps(x, verify=True)) == {frozenset({"b", "colour"})}
        cxps = ex.all_cxps(x, verify=True)
        assert names(cxps) == {frozenset({"b"}), frozenset({"colour"})}
        assert all(RULES.predict([e.counterexample])[0] == "deny" for e in cxps)
        assert ex.cxp(x, verify=True).features in {("b",), ("colour",)}
        assert ex.smallest_axp(x, verify=True).features == ("b", "colour")
        assert ex.is_weak_axp(x, ["b", "colour", "x"]) and not ex.is_weak_axp(x, ["b"])
        assert ex.is_axp(x, ["b", "colour"]) and not ex.is_axp(x, ["b", "colour", "x"])
        assert ex.is_cxp(x, ["colour"]) and not ex.is_cxp(x, ["colour", "x"])
        assert ex.relevant_features(x) == ("b", "colour")
        assert ex.necessary_features(x) == ("b", "colour")
        point = ex.counterexample(x, ["x"])
        assert point["x"] == 9.0 and RULES.predict([point])[0] == "deny"
        assert ex.counterexample(x, ["b", "colour"]) is None
        d = axp.to_dict()
        assert d["rule"] == axp.rule and d["certificate"]["proof"]["answer"] == "UNSAT"
        json.dumps(d)


def test_negative_decision_of_a_dnf():
    x = {"b": 0, "colour": "blue", "x": 2.0}  # no term holds
    with xdt.Explainer(RULES) as ex:
        assert ex.predict(x) == "deny"
        # falsify term 0 (b), term 1 (x <= 2.5) and term 2 (colour or x): {b, x}
        assert ex.axp(x, verify=True).rule == "IF b = 0 AND 1 < x <= 2.5 THEN loan = deny"
        assert names(ex.all_axps(x)) == {frozenset({"b", "x"})}
        assert names(ex.all_cxps(x)) == {frozenset({"b"}), frozenset({"x"})}
        # neither bound of x can move: x <= 1 lets term 2 hold (colour green), 2.5 < x
        # lets term 1 hold
        inflated = ex.axp(x, inflate=True, verify=True)
        assert inflated.rule == "IF b = 0 AND 1 < x <= 2.5 THEN loan = deny"
        assert set(inflated.certificate.widening["x"][0].point) == {"b", "colour", "x"}


def test_path_notions_refuse_a_dnf_and_say_what_to_use():
    x = {"a": 1, "b": 1, "c": 0, "d": 1}
    with pytest.raises(EngineNotAvailableError, match="engine='sat'"):
        xdt.Explainer(AB_CD, engine="path")
    with xdt.Explainer(AB_CD) as ex:
        with pytest.raises(EngineNotAvailableError, match="satisfied_terms"):
            ex.path_features(x)
        with pytest.raises(EngineNotAvailableError, match="is_axp"):
            ex.path_is_redundant(x)
        for call in (ex.axp, ex.all_axps, ex.all_cxps, ex.smallest_axp, ex.cxp,
                     ex.relevant_features, ex.necessary_features):
            with pytest.raises(EngineNotAvailableError, match="decision trees.*a DNF"):
                call(x, path_restricted=True)
        with pytest.raises(EngineNotAvailableError, match="order='term'"):
            ex.axp(x, order="path")
    nested = NestedKDNF(BITS, [0, 1], [[c("a", 1), c("b", 1)], [c("c", 1), c("d", 1)]],
                        [[2, 0], [0, 2]])
    with pytest.raises(EngineNotAvailableError, match="is a nested k-DNF"):
        xdt.Explainer(nested).path_features(x)
    with pytest.raises(EngineNotAvailableError, match="path redundancy.*xdt.Explainer"):
        path_redundancy(AB_CD)
    with pytest.raises(EngineNotAvailableError, match="xdt.load_model"):
        xdt.Explainer({"kind": "dnf"})
    with pytest.raises(EngineNotAvailableError, match="unknown engine"):
        xdt.Explainer(AB_CD, engine="walk")


def test_default_engine_is_still_the_path_walker_for_trees():
    tree = xdt.load_model(load_case("izza-fig3-unrestricted")["model"])
    assert xdt.Explainer(tree).engine == "path"
    assert xdt.Explainer(tree, engine="auto").engine == "path"
    assert xdt.Explainer(tree, engine="sat").engine == "sat"


def test_crosscheck_compares_a_dnf_with_the_checks_own_cnf_and_brute_force():
    # a DNF has no path engine: its SAT engine is checked on verify.DnfCnf, and its sets of
    # AXps and CXps against brute force (16 points). At 1101 the term ab holds: AXp {a, b};
    # CXps {a}, {b} (cd is false since c = 0)
    report = xdt.crosscheck(AB_CD, [{"a": 1, "b": 1, "c": 0, "d": 1},
                                    {"a": 0, "b": 1, "c": 0, "d": 1}])
    assert report.ok and report.rows == 2
    assert report.checker == "the checks' own CNF and brute force"
    assert report.agreements == {"axp": 2, "cxp": 2, "all_axps": 2, "all_cxps": 2,
                                 "engines": 0}
    with pytest.raises(EngineNotAvailableError, match="has no paths"):
        xdt.crosscheck(AB_CD, [{"a": 1, "b": 1, "c": 0, "d": 1}], path_restricted=True)
    with pytest.raises(UnsupportedModelError):
        xdt.crosscheck("model.json", [{"a": 1}])


def test_a_wrong_dnf_explanation_fails_its_certificate():
    x = {"a": 1, "b": 1, "c": 0, "d": 1}
    with xdt.Explainer(AB_CD) as ex:
        axp = ex.axp(x, verify=True)
        cxp = ex.cxp(x, verify=True)
    # a CXp whose witness is the instance itself, predicted the explained class
    cert = cxp.certificate
    bad = type(cert)(**{**cert.__dict__, "witness": dict(x), "witness_class": 0})
    with pytest.raises(CertificateError, match="explained class"):
        check_certificate(AB_CD, type(cxp)(**{**cxp.__dict__, "counterexample": dict(x),
                                                "counterexample_class": 0,
                                                "certificate": bad}))
    # the claim that {a} alone entails the prediction, with a witness that passes (freeing
    # a admits class 0) and a SAT proof "UNSAT under the selector of a": the checks' own CNF
    # of the DNF finds a point of class 0 with a = 1 (b = 0), so the proof is refuted
    cert = axp.certificate
    forged_cert = type(cert)(**{**cert.__dict__, "held": {"a": (1,)},
                                "witnesses": {"a": cert.witnesses["a"]},
                                "proof": type(cert.proof)(cert.proof.solver, ("a",))})
    forged = type(axp)(**{**axp.__dict__, "features": ("a",), "values": (1,),
                          "literals": ("a = 1",), "cells": (0b10,),
                          "certificate": forged_cert})
    with pytest.raises(CertificateError, match="own CNF of the DNF"):
        check_certificate(AB_CD, forged)


# ---------------------------------------------------------------------- the default order
def test_default_order_draws_from_a_shortest_true_term():
    five = [Feature(n, "binary") for n in "abcde"]
    f = DNF(five, [0, 1], [[c("a", 1), c("b", 1), c("c", 1)], [c("d", 1), c("e", 1)]])
    x = dict.fromkeys("abcde", 1)  # both terms hold; {d, e} is the shorter
    _, cells = xdt.ir._instances.encode_instance(f.features, f.cells, x)
    assert term_order(f, cells, 1) == [0, 1, 2, 3, 4]
    g = DNF(five, [0, 1], [[c("d", 1), c("e", 1)], [c("a", 1), c("b", 1), c("c", 1)]])
    assert term_order(g, cells, 1) == [0, 1, 2, 3, 4]
    with xdt.Explainer(f) as ex:
        assert ex.axp(x).features == ("d", "e") == ex.axp(x, order="term").features
        assert ex.axp(x, order="features").features == ("d", "e")
        # deleting from the end first keeps the longer term
        assert ex.axp(x, order="reverse").features == ("a", "b", "c")
    h = DNF(five, [0, 1], [[c("a", 1), c("b", 1)], [c("c", 1), c("d", 1), c("e", 1)]])
    with xdt.Explainer(h) as ex:
        assert ex.axp(x).features == ("a", "b")  # the feature order would give {c, d, e}
        assert ex.axp(x, order="features").features == ("c", "d", "e")


def test_default_order_of_a_negative_decision_is_a_minimum_hitting_set():
    # majority of 5 (Cooper et al., Example 3): any 3 zeros falsify every term
    case = load_case("dnf-majority5")
    f = xdt.load_model(case["model"])
    x = {"x1": 0, "x2": 0, "x3": 0, "x4": 0, "x5": 1}
    with xdt.Explainer(f) as ex:
        axp = ex.axp(x, verify=True)
        assert len(axp) == 3 and "x5" not in axp  # 3 zeros falsify every term
        assert ex.axp(x, order="features").features == ("x2", "x3", "x4")
        assert names(ex.all_axps(x)) == {frozenset(s) for s in
                                         itertools.combinations(["x1", "x2", "x3", "x4"], 3)}


# ---------------------------------------------------------------------- random DNFs
THRESHOLDS = (0.5, 1.5, 2.5)
ORDINAL_VALUES = (0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, -4.0)


@st.composite
def mixed_features(draw, min_features: int = 2, max_features: int = 5):
    out = []
    for i in range(draw(st.integers(min_features, max_features))):
        kind = draw(st.sampled_from(("binary", "categorical", "ordinal")))
        if kind == "categorical":
            size = draw(st.integers(2, 4))
            out.append(Feature(f"f{i}", "categorical", tuple("pqrs"[:size])))
        else:
            out.append(Feature(f"f{i}", kind))
    return out


@st.composite
def condition(draw, feature: Feature) -> Condition:
    if feature.kind == "ordinal":
        lo, hi = draw(st.sampled_from([(None, t) for t in THRESHOLDS]
                                      + [(t, None) for t in THRESHOLDS]
                                      + [(0.5, 2.5), (0.5, 1.5), (1.5, 2.5)]))
        return c(feature.name, above=lo, upto=hi)
    values = draw(st.lists(st.sampled_from(feature.domain), min_size=1,
                           max_size=max(1, len(feature.domain) - 1), unique=True))
    return c(feature.name, *values)


@st.composite
def random_dnfs(draw, features=None, max_terms: int = 4):
    """A DNF over mixed features: each term one condition on each of 1-3 distinct features
    (so every term is consistent)."""
    features = features if features is not None else draw(mixed_features())
    terms = []
    for _ in range(draw(st.integers(1, max_terms))):
        chosen = draw(st.lists(st.sampled_from(features), min_size=1,
                               max_size=min(3, len(features)), unique_by=lambda f: f.name))
        terms.append([draw(condition(f)) for f in chosen])
    labels = draw(st.sampled_from(((0, 1), ("no", "yes"), (7, -2))))
    return DNF(features, labels, terms)


def instances(model):
    values = [st.sampled_from(ORDINAL_VALUES) if f.kind == "ordinal"
              else st.sampled_from(f.domain) for f in model.features]
    return st.tuples(*values).map(lambda vs: dict(zip(model.features.names, vs, strict=True)))


@st.composite
def dnf_and_instance(draw):
    f = draw(random_dnfs())
    return f, draw(instances(f))


SETTINGS = settings(max_examples=examples(300), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(dnf_and_instance(), st.data())
def test_sat_engine_equals_brute_force_on_random_dnfs(case, data):
    f, x = case
    bf = verify.brute_force(f, x)
    event(f"prediction {'positive' if f.classes.index(bf.prediction) else 'negative'}")
    with xdt.Explainer(f) as ex:
        assert ex.predict(x) == bf.prediction == f.predict([x])[0]
        axps, cxps = ex.all_axps(x), ex.all_cxps(x)
        assert names(axps) == bf.axps and names(cxps) == bf.cxps
        for order in (None, "term", "features", "reverse"):
            assert frozenset(ex.axp(x, order=order).features) in bf.axps
            one = ex.cxp(x, order=order)
            assert (one is None) == (not bf.cxps)
            if one is not None:
                assert frozenset(one.features) in bf.cxps
        assert len(ex.smallest_axp(x)) == min(len(a) for a in bf.axps)
        assert set(ex.relevant_features(x)) == bf.relevant
        assert set(ex.necessary_features(x)) == bf.necessary
        for _ in range(3):
            subset = data.draw(st.sets(st.sampled_from(f.features.names)))
            assert ex.is_weak_axp(x, subset) == bf.is_weak_axp(subset)
            assert ex.is_axp(x, subset) == bf.is_axp(subset)
            assert ex.is_cxp(x, subset) == bf.is_cxp(subset)


@SETTINGS
@given(dnf_and_instance())
def test_cxp_counterexamples_change_the_prediction(case):
    f, x = case
    with xdt.Explainer(f) as ex:
        prediction = ex.predict(x)
        for cxp in ex.all_cxps(x):
            point = cxp.counterexample
            assert cxp.counterexample_class != prediction
            assert f.predict([point])[0] == cxp.counterexample_class
            assert all(point[n] == x[n] for n in f.features.names if n not in cxp.features)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dnf_and_instance())
def test_certificates_of_random_dnfs_verify(case):
    f, x = case
    with xdt.Explainer(f) as ex:
        ex.all_axps(x, verify=True)
        ex.all_cxps(x, verify=True)
        inflated = ex.axp(x, inflate=True, verify=True)
        assert inflated.inflated and inflated.certificate.proof.engine == "sat"
        ex.smallest_axp(x, inflate=True, verify=True)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dnf_and_instance())
def test_the_complement_has_the_same_explanations(case):
    """The complement (classes swapped, terms the minimal transversals) is the same
    function: same prediction, AXps and CXps for every instance — although the SAT engine
    encodes each decision the other way round (falsify every term / some term holds)."""
    f, x = case
    g = f.complement()
    with xdt.Explainer(f) as ex, xdt.Explainer(g) as eg:
        assert ex.predict(x) == eg.predict(x)
        assert names(ex.all_axps(x)) == names(eg.all_axps(x))
        assert names(ex.all_cxps(x)) == names(eg.all_cxps(x))
        # the default order keeps AXps inside a true term of f or of g: within both bounds
        positive = f.classes.index(ex.predict(x)) == 1
        bound = f.k if positive else g.k
        assert len(ex.axp(x)) <= bound and len(eg.axp(x)) <= bound


def true_terms(f, x) -> list[frozenset[str]]:
    held = np.flatnonzero(f.satisfied_terms(f.encode([x]))[0])
    return [frozenset(f.features.names[i] for i in f.terms[p].masks()) for p in held]


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dnf_and_instance())
def test_default_axp_lies_in_a_shortest_true_term_or_is_smallest(case):
    """Cooper et al., Section 2: a positive decision is explained by a true term (the AXp
    is inside a shortest one), a negative one by a true term of the complement (the AXp is a
    minimum hitting set of the features falsifying each term: a smallest AXp)."""
    f, x = case
    bf = verify.brute_force(f, x)
    with xdt.Explainer(f) as ex:
        axp = frozenset(ex.axp(x).features)
    assert axp in bf.axps
    terms = true_terms(f, x)
    if terms:
        shortest = min(len(t) for t in terms)
        assert any(axp <= t for t in terms if len(t) == shortest)
        assert len(axp) <= shortest <= f.k
    else:
        assert len(axp) == min(len(a) for a in bf.axps) <= f.complement().k


# ---------------------------------------------------------------------- nested k-DNFs
@st.composite
def nested_kdnfs(draw):
    """A nested k-DNF (k = 1..4) over up to 8 binary features: a k x k matrix of literals
    x = 0 / x = 1 and up to 8 terms of row prefixes with sum <= k (terms with a literal and
    its negation are dropped)."""
    k = draw(st.integers(1, 4))
    feats = [Feature(f"v{i}", "binary") for i in range(draw(st.integers(k, min(8, k * k + 1))))]
    matrix = [[c(draw(st.sampled_from(feats)).name, draw(st.sampled_from((0, 1))))
               for _ in range(k)] for _ in range(k)]
    prefixes = []
    for _ in range(draw(st.integers(1, 8))):
        r = [0] * k
        for _ in range(draw(st.integers(1, k))):
            r[draw(st.integers(0, k - 1))] += 1
        lits = [cond for i, row in enumerate(matrix) for cond in row[:r[i]]]
        if len({(d.feature, d.values) for d in lits}) == len({d.feature for d in lits}):
            prefixes.append(r)
    if not prefixes:
        prefixes = [[1] + [0] * (k - 1)]
    return NestedKDNF(feats, [0, 1], matrix, prefixes)


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(nested_kdnfs(), st.data())
def test_nested_kdnf_axps_have_at_most_k_features(f, data):
    """Proposition 2 of Cooper et al.: a nested k-DNF is k-AXp-interpretable; with the
    default order every AXp Explainer.axp returns has at most k features."""
    x = data.draw(instances(f))
    bf = verify.brute_force(f, x)
    assert f.complement().k <= f.k  # the complement is a k-DNF too (their Lemma 2)
    with xdt.Explainer(f) as ex:
        axp = ex.axp(x, verify=True)
        assert frozenset(axp.features) in bf.axps
        assert len(axp) <= f.k
        assert names(ex.all_axps(x)) == bf.axps


def test_default_order_keeps_the_bound_where_other_orders_do_not():
    """A 3-DNF whose complement is a 2-DNF (so it is 3-AXp-interpretable, Cooper et al.,
    Proposition 1) with an AXp of 4 features: deletion in reverse order finds it, the
    default order (the true term last) does not."""
    five = [Feature(f"v{i}", "binary") for i in range(5)]
    f = DNF(five, [0, 1], [[c("v1", 1), c("v0", 0), c("v2", 0)],
                           [c("v3", 0), c("v4", 0), c("v2", 1)]])
    assert f.k == 3 and f.complement().k == 2
    x = {"v0": 0, "v1": 1, "v2": 1, "v3": 0, "v4": 0}
    assert verify.brute_force(f, x).axps == {frozenset({"v0", "v1", "v3", "v4"}),
                                             frozenset({"v2", "v3", "v4"})}
    with xdt.Explainer(f) as ex:
        assert ex.axp(x).features == ("v2", "v3", "v4")
        assert ex.axp(x, order="reverse").features == ("v0", "v1", "v3", "v4")


def test_worked_nested_kdnf_round_trips_through_json(tmp_path):
    matrix = [[c("a", 1), c("b", 1)], [c("c", 1), c("d", 1)]]
    f = NestedKDNF(BITS, [0, 1], matrix, [[2, 0], [0, 2]])
    save_model(f, tmp_path / "nested.json")
    g = xdt.load_model(tmp_path / "nested.json")
    assert g.kind == "nested-kdnf"
    for x in ({"a": 1, "b": 1, "c": 0, "d": 1}, {"a": 0, "b": 1, "c": 1, "d": 0}):
        with xdt.Explainer(g) as ex, xdt.Explainer(AB_CD) as ref:
            assert names(ex.all_axps(x)) == names(ref.all_axps(x))
            assert len(ex.axp(x)) <= g.k == 2


# ---------------------------------------------------------------------- verify on DNFs
@settings(max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_dnfs(max_terms=5), st.data())
def test_box_search_and_own_cnf_agree_with_brute_force(f, data):
    """verify.reachable_classes (box search) and verify.sat_reachable_classes (DnfCnf) on
    random boxes, against the prediction of every point of the box."""
    box = [data.draw(st.integers(1, full_mask(cl.n_cells))) for cl in f.cells]
    points = verify.cell_space(f)
    inside = np.ones(len(points), dtype=bool)
    for j, m in enumerate(box):
        inside &= ((np.int64(m) >> points[:, j]) & 1).astype(bool)
    expected = {f.classes[i] for i in f.predict_cells(points[inside])}
    assert verify.reachable_classes(f, box) == expected
    assert verify.sat_reachable_classes(f, box) == expected
    for k, label in enumerate(f.classes):
        point = verify.counterexample_in_box(f, dict(enumerate(box)), k)
        assert (point is None) == (expected <= {label})
        if point is not None:
            assert all((m >> j) & 1 for j, m in zip(point, box, strict=True))
            assert f.predict_cells(np.array([point]))[0] != k


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dnf_and_instance())
def test_check_axp_on_dnfs(case):
    f, x = case
    bf = verify.brute_force(f, x)
    for axp in bf.axps:
        for report in (verify.check_axp(f, x, axp), verify.check_axp_sat(f, x, axp)):
            assert report.is_axp
            for point in report.drop_counterexamples.values():
                assert f.predict([point])[0] != bf.prediction
    everything = verify.check_axp(f, x, f.features.names)
    assert everything.entails and everything.reachable == {bf.prediction}
    if bf.cxps:
        none = verify.check_axp(f, x, [])
        assert not none.entails and f.predict([none.counterexample])[0] != bf.prediction
    with pytest.raises(EngineNotAvailableError, match="no paths"):
        verify.brute_force(f, x, path_restricted=True)


def test_sample_counterexample_on_a_dnf():
    x = {"b": 1, "colour": "red", "x": 9.0}
    assert verify.sample_counterexample(RULES, x, ["b", "colour"]) is None
    point = verify.sample_counterexample(RULES, x, ["x"])
    assert point is not None and RULES.predict([point])[0] == "deny"


# ---------------------------------------------------------------------- DIMACS
def test_dimacs_of_a_dnf_query():
    for x, fixed, unsat in (({"a": 0, "b": 1, "c": 1, "d": 0}, ["a", "d"], True),
                            ({"a": 0, "b": 1, "c": 1, "d": 0}, ["a"], False),
                            ({"a": 1, "b": 1, "c": 0, "d": 1}, ["a", "b"], True),
                            ({"a": 1, "b": 1, "c": 0, "d": 1}, ["b"], False)):
        q = parse_dimacs(encode_query(AB_CD, x).to_text())
        assert q.prediction == AB_CD.predict([x])[0]
        with Solver(name="minisat22", bootstrap_with=q.clauses) as s:
            assert s.solve(assumptions=q.assumptions(fixed)) is not unsat
            if not unsat:
                point = q.decode(s.get_model())
                assert AB_CD.predict([point])[0] != q.prediction
                assert all(point[n] == x[n] for n in fixed)
    q = encode_query(AB_CD, {"a": 0, "b": 1, "c": 1, "d": 0})
    terms = [m for m in q.variables.values() if m["type"] == "term"]
    assert [t["rule"] for t in terms] == ["a = 1 AND b = 1", "c = 1 AND d = 1"]
    assert "DNF, 4 features, 2 terms" in q.model_summary
    with pytest.raises(EngineNotAvailableError, match="no paths"):
        encode_query(AB_CD, {"a": 0, "b": 1, "c": 1, "d": 0}, path_restricted=True)


# ---------------------------------------------------------------------- command line
def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


@pytest.fixture
def dnf_files(tmp_path: Path) -> tuple[Path, Path, Path]:
    model = tmp_path / "rules.json"
    save_model(RULES, model)
    data = tmp_path / "rows.csv"
    data.write_text("b,colour,x\n1,red,9\n0,blue,2\n0,green,0.5\n")
    nested = tmp_path / "nested.json"
    save_model(NestedKDNF(BITS, [0, 1], [[c("a", 1), c("b", 1)], [c("c", 1), c("d", 0)]],
                          [[2, 0], [1, 1]]), nested)
    return model, data, nested


def test_cli_explains_a_dnf_instance(dnf_files):
    model, _, nested = dnf_files
    result = run("explain", str(model), "--instance",
                 '{"b": 1, "colour": "red", "x": 9}', "--all-axps", "--all-cxps")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[:2] == [
        "instance: predicts loan = grant (term 0 holds: b = 1 AND colour in {red, blue})",
        "  AXp (2 features): IF b = 1 AND colour = red THEN loan = grant"]
    assert "CHANGE colour (now red; e.g. to green) => loan = deny" in result.stdout
    # the nested 2-DNF (a and b) or (a and c): a = 0 falsifies both terms
    result = run("explain", str(nested), "--instance", '{"a": 0, "b": 1, "c": 1, "d": 0}')
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[:2] == ["instance: predicts 0 (no term holds)",
                                              "  AXp (1 feature): IF a = 0 THEN 0"]
    result = run("explain", str(nested), "--instance", '{"a": 1, "b": 1, "c": 1, "d": 0}')
    assert result.stdout.startswith("instance: predicts 1 (terms 0, 1 hold)")


def test_cli_explains_dnf_rows_as_jsonl(dnf_files):
    model, data, _ = dnf_files
    result = run("explain", str(model), "--data", str(data), "--format", "jsonl",
                 "--inflate", "--all-axps")
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["prediction"] for r in rows] == ["grant", "deny", "grant"]
    assert rows[0]["true_terms"] == [{"term": 0, "rule": "b = 1 AND colour in {red, blue}"}]
    assert rows[1]["true_terms"] == []
    assert rows[2]["true_terms"] == [{"term": 2, "rule": "colour = green AND x <= 1"}]
    assert "path" not in rows[0] and rows[0]["axp"]["inflated"]
    assert rows[1]["axp"]["rule"] == "IF b = 0 AND 1 < x <= 2.5 THEN loan = deny"
    assert all(r["axp"]["certificate"]["proof"]["engine"] == "sat" for r in rows)
    text = run("explain", str(model), "--data", str(data), "--rows", "1:2")
    assert text.exit_code == 0
    assert text.stdout.splitlines()[0] == "row 1: predicts loan = deny (no term holds)"


@pytest.mark.parametrize(("args", "message"), [
    (("--engine", "path"), "use --engine sat"),
    (("--path-restricted",), "which has no paths: leave it out"),
])
def test_cli_refuses_path_options_on_a_dnf(dnf_files, args, message):
    model, data, _ = dnf_files
    result = run("explain", str(model), "--data", str(data), *args)
    assert result.exit_code == 2 and message in result.stderr, result.output
    assert "Traceback" not in result.output


def test_cli_crosscheck_redundancy_and_encode_on_a_dnf(dnf_files, tmp_path):
    model, data, _ = dnf_files
    result = run("crosscheck", str(model), "--data", str(data))
    assert result.exit_code == 0, result.output
    assert "the AXp is an AXp for the checks' own CNF: 3/3" in result.stdout
    assert result.stdout.rstrip().endswith("OK: no disagreement")
    result = run("redundancy", str(model))
    assert result.exit_code == 1 and "decision trees" in result.stderr
    assert "xdt explain" in result.stderr
    out = tmp_path / "q.cnf"
    result = run("encode", str(model), "-i", '{"b": 0, "colour": "blue", "x": 2}', "-o",
                 str(out))
    assert result.exit_code == 0, result.output
    assert "prediction loan = deny" in result.stdout
    assert "term 1 holds: 2.5 < x <= 7" in out.read_text()
    result = run("encode", str(model), "-i", '{"b": 0, "colour": "blue", "x": 2}', "-o",
                 str(out), "--path-restricted")
    assert result.exit_code == 2 and "leave it out" in result.stderr
