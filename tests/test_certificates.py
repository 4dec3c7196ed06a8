"""Certificates (xdt.explain.checks._certificates): every AXp and CXp of both engines carries
evidence that checks out against model.predict; verify=True re-checks it; a corrupted
certificate is caught with a CertificateError."""

from __future__ import annotations

import json
from dataclasses import replace

import hypothesis.strategies as st
import pytest
from conftest import load_case
from hypothesis import HealthCheck, given, settings
from test_properties import tree_and_instance
from tiers import examples

import xdt
import xdt.explain._explainer as explainer_module
from xdt.errors import CertificateError, XdtError
from xdt.explain.checks._certificates import (
    AxpCertificate,
    BlockedPath,
    CxpCertificate,
    PathProof,
    SatProof,
    Witness,
    check_certificate,
    check_certificates,
)
from xdt.ir import model_from_dict

ENGINES = ("path", "sat")
TENNIS_X = {"Humidity": "high", "Outlook": "overcast", "Wind": "weak"}
ZHOU_X = {"x": 0.9, "y": 0.2}
FIG3_X = {"x1": 1, "x2": 1, "x3": 1, "x4": 1}


def model(name: str):
    return xdt.load_model(load_case(name)["model"])


def every_explanation(ex, x, restricted: bool) -> list:
    out = [ex.axp(x, path_restricted=restricted), ex.smallest_axp(x, path_restricted=restricted),
           *ex.all_axps(x, path_restricted=restricted), *ex.all_cxps(x, path_restricted=restricted)]
    one = ex.cxp(x, path_restricted=restricted)
    return out + ([] if one is None else [one])


# ---------------------------------------------------------------------- worked cases
@pytest.mark.parametrize("engine", ENGINES)
def test_zhou_certificates(engine):
    tree = model("zhou-thresholds")
    ex = xdt.Explainer(tree, engine=engine)
    axp = ex.axp(ZHOU_X, verify=True)
    cert = axp.certificate
    assert isinstance(cert, AxpCertificate)
    assert cert.instance == ZHOU_X and cert.prediction == "cross"
    assert cert.held == {"x": (1,)}  # the cell 0.64 < x
    w = cert.witnesses["x"]
    assert tree.predict([w.point])[0] == w.label == "circle"
    assert w.point["y"] == 0.2 and w.point["x"] <= 0.64
    if engine == "path":
        # the only other-class path is x <= 0.64 under y <= 0.73: blocked by x
        assert cert.proof == PathProof((BlockedPath(0, "circle", "x"),))
    else:
        assert cert.proof.statement == "UNSAT under the selectors of x (solver cadical195)"
    (cxp,) = ex.all_cxps(ZHOU_X, verify=True)
    assert isinstance(cxp.certificate, CxpCertificate)
    assert cxp.certificate.witness == cxp.counterexample
    assert cxp.certificate.witness_class == cxp.counterexample_class == "circle"


@pytest.mark.parametrize("engine", ENGINES)
def test_playtennis_certificates(engine):
    """By hand: Outlook = overcast entails 'yes' because the only 'no' path (Humidity = high,
    Outlook in {rain, sunny}) needs another Outlook; freeing Outlook admits e.g. rain."""
    tree = model("playtennis-multiedge")
    ex = xdt.Explainer(tree, engine=engine)
    axp = ex.axp(TENNIS_X, verify=True)
    assert axp.features == ("Outlook",)
    w = axp.certificate.witnesses["Outlook"]
    assert w.point["Outlook"] in ("rain", "sunny") and w.point["Humidity"] == "high"
    assert tree.predict([w.point])[0] == "no"
    if engine == "path":
        no_paths = [p.index for p in tree.paths if p.label == "no"]
        assert [b.path for b in axp.certificate.proof.blocked] == no_paths
        assert {b.feature for b in axp.certificate.proof.blocked} == {"Outlook"}


@pytest.mark.parametrize("engine", ENGINES)
def test_fig3_minimality_witnesses(engine):
    """Izza et al. Example 7: AXp {x1, x3}; freeing either one admits class 0."""
    tree = model("izza-fig3-unrestricted")
    ex = xdt.Explainer(tree, engine=engine)
    axp = ex.axp(FIG3_X, verify=True)
    assert axp.features == ("x1", "x3")
    for f, other in (("x1", "x3"), ("x3", "x1")):
        w = axp.certificate.witnesses[f]
        assert w.point[other] == 1  # the other feature of the AXp stays at its cell
        assert tree.predict([w.point])[0] == 0 == w.label


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", ["playtennis-multiedge", "zhou-thresholds", "restaurant-tree",
                                  "izza-fig3-unrestricted", "izza-fig1a-or", "izza-fig1b-2x2",
                                  "parity4-tree", "reads-tree"])
def test_worked_cases_verify(name, engine):
    tree = model(name)
    with xdt.Explainer(tree, engine=engine) as ex:
        for q in load_case(name)["queries"]:
            for restricted in (False, True):
                for e in every_explanation(ex, q["instance"], restricted):
                    check_certificate(tree, e)
                ex.all_axps(q["instance"], path_restricted=restricted, verify=True)
                ex.all_cxps(q["instance"], path_restricted=restricted, verify=True)
                ex.axp(q["instance"], path_restricted=restricted, inflate=True, verify=True)


@pytest.mark.parametrize("engine", ENGINES)
def test_certificate_to_dict_is_json(engine):
    ex = xdt.Explainer(model("izza-fig3-unrestricted"), engine=engine)
    for e in [ex.axp(FIG3_X), ex.axp(FIG3_X, inflate=True), ex.axp(FIG3_X, path_restricted=True),
              *ex.all_cxps(FIG3_X)]:
        d = e.to_dict()
        assert json.loads(json.dumps(d)) == d
        c = d["certificate"]
        assert c["kind"] == e.kind and c["prediction"] == 1
        if e.kind == "AXp":
            assert set(c["witnesses"]) == set(e.features)
            assert c["proof"]["engine"] == engine
            if engine == "path":
                assert all({"path", "class", "feature", "dead"} <= set(b)
                           for b in c["proof"]["blocked"])
            else:
                assert c["proof"]["answer"] == "UNSAT" and c["proof"]["solver"] == "cadical195"
        else:
            assert c["witness"] == d["counterexample"]
            assert c["witness_class"] == d["counterexample_class"]


def two_pairs_tree() -> xdt.DecisionTree:
    """Class 1 iff (a and b) or (c and d), over binary a, b, c, d."""
    def pair(x: str, y: str, otherwise: dict) -> dict:
        return {"feature": x, "branches": [
            {"in": [0], "node": otherwise},
            {"in": [1], "node": {"feature": y, "branches": [
                {"in": [0], "node": otherwise}, {"in": [1], "node": {"class": 1}}]}}]}
    return model_from_dict({
        "format": "xdt-model/1", "kind": "tree", "classes": [0, 1],
        "features": [{"name": n, "kind": "binary"} for n in "abcd"],
        "root": pair("a", "b", pair("c", "d", {"class": 0}))})


@pytest.mark.parametrize("engine", ENGINES)
def test_axp_witnesses_are_written_as_their_changes_from_the_instance(engine):
    """At (0, 0, 0, 0), class 0, the AXps are one of {a, b} with one of {c, d}. Freeing a in
    {a, c} admits class 1 only with a = b = 1 (c held at 0): the witness's JSON is those
    changes, not the whole point again; the instance, written once, completes it."""
    zeros = dict.fromkeys("abcd", 0)
    ex = xdt.Explainer(two_pairs_tree(), engine=engine)
    axps = {e.features: e for e in ex.all_axps(zeros)}
    assert set(axps) == {("a", "c"), ("a", "d"), ("b", "c"), ("b", "d")}
    for e in axps.values():
        c = e.to_dict()["certificate"]
        assert c["instance"] == zeros
        for f, w in c["witnesses"].items():
            assert {**zeros, **w["changes"]} == e.certificate.witnesses[f].point
            assert all(v != zeros[k] for k, v in w["changes"].items())
            assert w["class"] == 1
    witnesses = axps["a", "c"].to_dict()["certificate"]["witnesses"]
    if engine == "path":  # the path-walker moves only the features its path tests
        assert witnesses["a"]["changes"] == {"a": 1, "b": 1}
        assert witnesses["c"]["changes"] == {"c": 1, "d": 1}
    else:  # the solver may also move the free feature of the other pair
        assert {"a": 1, "b": 1}.items() <= witnesses["a"]["changes"].items()
        assert "c" not in witnesses["a"]["changes"]


def test_dead_paths_are_listed_as_dead():
    """A leaf no point reaches (x <= 2.5 then x > 3.5) is listed with dead=True."""
    from xdt.ir import DecisionTree, Feature, Leaf, ThresholdSplit
    tree = DecisionTree([Feature("x", "ordinal"), Feature("y", "ordinal")], ["p", "q"],
                        ThresholdSplit("x", 2.5, ThresholdSplit("x", 3.5, Leaf("p"), Leaf("q")),
                                       ThresholdSplit("y", 1.0, Leaf("q"), Leaf("p"))))
    axp = xdt.Explainer(tree).axp({"x": 1.0, "y": 0.0}, verify=True)
    assert axp.features == ("x",)
    dead = [b for b in axp.certificate.proof.blocked if b.dead]
    assert [(b.path, b.feature) for b in dead] == [(1, "x")]
    # a dead path cannot be claimed blocked by a feature whose tests on it are satisfiable
    wrong = PathProof(tuple(b._replace(feature="y") if b.dead else b
                            for b in axp.certificate.proof.blocked))
    with pytest.raises(CertificateError, match="dead"):
        check_certificate(tree, replace(axp, certificate=replace(axp.certificate, proof=wrong)))


# ---------------------------------------------------------------------- corrupted certificates
def corrupt(e, **changes):
    return replace(e, certificate=replace(e.certificate, **changes))


@pytest.fixture
def fig3():
    return model("izza-fig3-unrestricted")


def test_corrupted_cxp_witness(fig3):
    ex = xdt.Explainer(fig3)
    cxp = ex.all_cxps(FIG3_X)[0]
    check_certificate(fig3, cxp)
    # the instance itself is no witness: it is predicted the explained class
    same = dict(FIG3_X)
    bad = replace(cxp, counterexample=same, certificate=replace(
        cxp.certificate, witness=same))
    with pytest.raises(CertificateError, match="explained class"):
        check_certificate(fig3, bad)
    # a witness that also changes a feature outside the CXp
    outside = next(n for n in fig3.features.names if n not in cxp.features)
    moved = {**cxp.counterexample, outside: 1 - cxp.counterexample[outside]}
    bad = replace(cxp, counterexample=moved, certificate=replace(cxp.certificate,
                                                                 witness=moved))
    with pytest.raises(CertificateError, match=f"changes {outside}"):
        check_certificate(fig3, bad)
    # a witness that is not the explanation's counterexample
    with pytest.raises(CertificateError, match="not the explanation's counterexample"):
        check_certificate(fig3, corrupt(cxp, witness=same))
    # a wrong stated class
    with pytest.raises(CertificateError, match="stated"):
        check_certificate(fig3, replace(cxp, counterexample_class=7,
                                        certificate=replace(cxp.certificate, witness_class=7)))


@pytest.mark.parametrize("engine", ENGINES)
def test_corrupted_axp_witnesses(fig3, engine):
    axp = xdt.Explainer(fig3, engine=engine).axp(FIG3_X)
    ws = axp.certificate.witnesses
    # the instance as the witness for x1: predicted 1, the explained class
    bad = corrupt(axp, witnesses={**ws, "x1": Witness(dict(FIG3_X), 0)})
    with pytest.raises(CertificateError, match="explained class"):
        check_certificate(fig3, bad)
    # a witness for freeing x1 that also moves x3 out of its cell
    moved = Witness({**ws["x1"].point, "x3": 0}, 0)
    with pytest.raises(CertificateError, match="outside the cells x3 is held to"):
        check_certificate(fig3, corrupt(axp, witnesses={**ws, "x1": moved}))
    with pytest.raises(CertificateError, match="no witness that freeing x3"):
        check_certificate(fig3, corrupt(axp, witnesses={"x1": ws["x1"]}))
    # held cells other than the instance's
    with pytest.raises(CertificateError, match="not to the instance's"):
        check_certificate(fig3, corrupt(axp, held={"x1": (0,), "x3": (1,)}))


def test_corrupted_path_proof(fig3):
    axp = xdt.Explainer(fig3).axp(FIG3_X)
    blocked = axp.certificate.proof.blocked
    assert len(blocked) >= 2
    with pytest.raises(CertificateError, match="does not cover the paths"):
        check_certificate(fig3, corrupt(axp, proof=PathProof(blocked[1:])))
    # blame a path on the other feature of the AXp, whose literal there admits the instance
    b = blocked[0]
    other = next(f for f in axp.features if f != b.feature)
    wrong = PathProof((b._replace(feature=other),) + blocked[1:])
    with pytest.raises(CertificateError, match="admits the held cells"):
        check_certificate(fig3, corrupt(axp, proof=wrong))
    # a path of the explained class is not "another class"
    own = next(p for p in fig3.paths if p.label == 1)
    wrong = PathProof(blocked + (BlockedPath(own.index, 0, "x1"),))
    with pytest.raises(CertificateError, match="its leaf predicts"):
        check_certificate(fig3, corrupt(axp, proof=wrong))
    with pytest.raises(CertificateError, match="not in the AXp"):
        check_certificate(fig3, corrupt(axp, proof=PathProof(
            (b._replace(feature="x2"),) + blocked[1:])))


def test_wrong_sat_proof_is_caught_by_the_path_walker(fig3):
    """A (wrong) engine claiming {x1} entails the prediction, with a SAT proof: the witness
    for freeing x1 is fine, but the path-walker finds a point of class 0 with x1 = 1."""
    axp = xdt.Explainer(fig3, engine="sat").axp(FIG3_X)
    assert axp.features == ("x1", "x3")
    cert = axp.certificate
    claim = replace(axp, features=("x1",), values=(1,), literals=("x1 = 1",),
                    cells=(axp.cells[0],),
                    certificate=replace(cert, held={"x1": cert.held["x1"]},
                                        witnesses={"x1": cert.witnesses["x1"]},
                                        proof=SatProof("cadical195", ("x1",))))
    with pytest.raises(CertificateError, match="path-walker finds a point"):
        check_certificate(fig3, claim)
    with pytest.raises(CertificateError, match="not an UNSAT answer"):
        check_certificate(fig3, corrupt(axp, proof=SatProof("cadical195", ("x1",))))


def test_missing_or_mismatched_certificate(fig3):
    ex = xdt.Explainer(fig3)
    axp, cxp = ex.axp(FIG3_X), ex.all_cxps(FIG3_X)[0]
    with pytest.raises(CertificateError, match="no certificate"):
        check_certificate(fig3, replace(axp, certificate=None))
    with pytest.raises(CertificateError, match="CXp certificate on a AXp"):
        check_certificate(fig3, replace(axp, certificate=cxp.certificate))
    with pytest.raises(CertificateError, match="predict gives 1 for the instance"):
        check_certificate(fig3, replace(axp, prediction=0))


def test_error_names_the_row(fig3):
    axp = xdt.Explainer(fig3).axp(FIG3_X)
    bad = corrupt(axp, proof=PathProof(()))
    with pytest.raises(CertificateError) as info:
        check_certificate(fig3, bad, row=17)
    assert isinstance(info.value, XdtError)
    assert info.value.row == 17 and str(info.value).startswith("row 17:")
    assert "does not cover" in info.value.reason
    with pytest.raises(CertificateError) as info:
        check_certificate(fig3, bad)
    assert info.value.row == FIG3_X and "x1" in str(info.value)
    with pytest.raises(CertificateError, match="row b:"):
        check_certificates(fig3, [axp, bad], rows=["a", "b"])


@pytest.mark.parametrize("engine", ENGINES)
def test_verify_true_raises_on_a_corrupted_certificate(fig3, engine, monkeypatch):
    """verify=True re-checks what the engines hand back: a certificate built wrong raises."""
    real = explainer_module.axp_certificate

    def broken(*args, **kwargs):
        cert = real(*args, **kwargs)
        return replace(cert, witnesses={k: Witness(dict(cert.instance), w.label)
                                        for k, w in cert.witnesses.items()})

    monkeypatch.setattr(explainer_module, "axp_certificate", broken)
    ex = xdt.Explainer(fig3, engine=engine)
    ex.axp(FIG3_X)  # not checked by default
    for call in (lambda: ex.axp(FIG3_X, verify=True),
                 lambda: ex.smallest_axp(FIG3_X, verify=True),
                 lambda: ex.all_axps(FIG3_X, verify=True),
                 lambda: ex.axp(FIG3_X, inflate=True, verify=True)):
        with pytest.raises(CertificateError, match="explained class"):
            call()

    real_cxp = explainer_module.cxp_certificate

    def broken_cxp(*args, **kwargs):
        cert = real_cxp(*args, **kwargs)
        return replace(cert, witness_class="nonsense")

    monkeypatch.setattr(explainer_module, "cxp_certificate", broken_cxp)
    with pytest.raises(CertificateError, match="not the explanation's counterexample"):
        ex.cxp(FIG3_X, verify=True)
    with pytest.raises(CertificateError):
        ex.all_cxps(FIG3_X, verify=True)


# ---------------------------------------------------------------------- random trees
SETTINGS = settings(max_examples=examples(300), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(tree_and_instance(), st.booleans())
def test_certificates_verify_on_random_trees(case, restricted):
    tree, x = case
    prediction = tree.predict([x])[0]
    for engine in ENGINES:
        with xdt.Explainer(tree, engine=engine) as ex:
            axps = ex.all_axps(x, path_restricted=restricted, verify=True)
            cxps = ex.all_cxps(x, path_restricted=restricted, verify=True)
            ex.axp(x, path_restricted=restricted, verify=True)
            ex.cxp(x, path_restricted=restricted, verify=True)
            ex.smallest_axp(x, path_restricted=restricted, verify=True)
        for axp in axps:
            cert = axp.certificate
            assert set(cert.witnesses) == set(axp.features)
            points = [w.point for w in cert.witnesses.values()]
            if points:
                assert all(p != prediction for p in tree.predict(points))
            if engine == "path":  # the proof lists exactly the paths of another class
                assert sorted(b.path for b in cert.proof.blocked) == \
                    [p.index for p in tree.paths if p.label != prediction]
            else:
                assert cert.proof.features == axp.features
        for cxp in cxps:
            assert cxp.certificate.witness == cxp.counterexample
            assert tree.predict([cxp.certificate.witness])[0] == cxp.counterexample_class


@SETTINGS
@given(tree_and_instance(), st.booleans(), st.data())
def test_corruption_is_caught_on_random_trees(case, restricted, data):
    tree, x = case
    ex = xdt.Explainer(tree)
    for axp in ex.all_axps(x, path_restricted=restricted):
        cert = axp.certificate
        if axp.features:
            f = data.draw(st.sampled_from(axp.features))
            same = Witness(dict(cert.instance), cert.witnesses[f].label)
            with pytest.raises(CertificateError):
                check_certificate(tree, corrupt(axp, witnesses={**cert.witnesses, f: same}))
        if cert.proof.blocked:
            k = data.draw(st.integers(0, len(cert.proof.blocked) - 1))
            dropped = cert.proof.blocked[:k] + cert.proof.blocked[k + 1:]
            with pytest.raises(CertificateError, match="does not cover"):
                check_certificate(tree, corrupt(axp, proof=PathProof(dropped)))
    for cxp in ex.all_cxps(x, path_restricted=restricted):
        same = dict(cxp.certificate.instance)
        with pytest.raises(CertificateError):
            check_certificate(tree, replace(cxp, counterexample=same, certificate=replace(
                cxp.certificate, witness=same)))


@pytest.mark.parametrize("engine", ENGINES)
def test_certificates_can_be_switched_off(fig3, engine):
    """Explainer(certificates=False) skips the evidence (for speed), except with verify=True,
    which always builds and checks it."""
    ex = xdt.Explainer(fig3, engine=engine, certificates=False)
    assert ex.axp(FIG3_X).certificate is None
    assert all(e.certificate is None for e in ex.all_axps(FIG3_X) + ex.all_cxps(FIG3_X))
    assert ex.cxp(FIG3_X).counterexample is not None  # the counterexample is still there
    assert ex.axp(FIG3_X, verify=True).certificate is not None
    assert all(e.certificate is not None for e in ex.all_cxps(FIG3_X, verify=True))
    assert ex.axp(FIG3_X, inflate=True, verify=True).certificate.inflated
    assert ex.axp(FIG3_X) == xdt.Explainer(fig3, engine=engine).axp(FIG3_X)
