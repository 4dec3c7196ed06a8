"""The SAT engine on tree ensembles: every answer equals brute force over the cell space,
where every point's class is the IR's ``predict_cells`` (floats summed in the library's
order and precision, ties included)."""

from __future__ import annotations

import numpy as np
import pytest
from ensemble_strategies import ensembles, instance
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tiers import examples

import xdt
from xdt.errors import EngineNotAvailableError
from xdt.explain.checks import _verify as verify
from xdt.ir import DecisionTree, Feature, Leaf, ThresholdSplit
from xdt.ir._ensemble import TreeEnsemble

SETTINGS = settings(max_examples=examples(60), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _sets(explanations) -> set[frozenset[str]]:
    return {frozenset(e.features) for e in explanations}


def _check_against_brute_force(model: TreeEnsemble, x: dict) -> None:
    bf = verify.brute_force(model, x)
    with xdt.Explainer(model, engine="sat") as ex:
        assert ex.engine == "sat"
        assert ex.predict(x) == bf.prediction
        assert _sets(ex.all_axps(x)) == set(bf.axps)
        assert _sets(ex.all_cxps(x)) == set(bf.cxps)
        assert frozenset(ex.axp(x).features) in bf.axps
        cxp = ex.cxp(x)
        if bf.cxps:
            assert frozenset(cxp.features) in bf.cxps
        else:
            assert cxp is None
        assert len(ex.smallest_axp(x).features) == min(len(a) for a in bf.axps)
        assert set(ex.relevant_features(x)) == bf.relevant
        assert set(ex.necessary_features(x)) == bf.necessary


@pytest.mark.parametrize("combine", ["vote", "proba", "margin"])
@given(data=st.data())
@SETTINGS
def test_ensemble_explanations_equal_brute_force(combine, data):
    model = data.draw(ensembles(combine=combine))
    x = instance(data.draw, model)
    _check_against_brute_force(model, x)


@given(data=st.data())
@SETTINGS
def test_ensemble_entailment_equals_brute_force_on_every_subset(data):
    """Every subset of features: the engine's entailment answer and counterexample agree
    with the exhaustive check, and a counterexample really has another class."""
    model = data.draw(ensembles())
    x = instance(data.draw, model)
    bf = verify.brute_force(model, x)
    ex = xdt.Explainer(model, engine="sat")
    q = ex._query(x, False)
    names = model.features.names
    for mask in range(1 << len(names)):
        fixed = [names[f] for f in range(len(names)) if (mask >> f) & 1]
        assert q.oracle.entails(mask) == bf.is_weak_axp(fixed)
        point = q.oracle.counterexample(mask)
        assert (point is None) == bf.is_weak_axp(fixed)
        if point is not None:
            assert int(model.predict_cells(np.asarray([point]))[0]) != q.prediction
            assert all(point[f] == q.cells[f] for f in range(len(names)) if (mask >> f) & 1)


# ---------------------------------------------------------------------- crafted floats
def _stump(fs, value_left, value_right, feature="x", threshold=0.5):
    return DecisionTree(fs, [0, 1], ThresholdSplit(feature, threshold, Leaf(0, value_left),
                                                    Leaf(1, value_right)))


def test_float32_sum_rounds_to_zero_and_the_tie_rule_decides():
    """Trees add 2**24 (x > 0.5), 2**-25 (y > 0.5) and -2**24 (x > 0.5). At x = y = 1 the
    real sum is 2**-25 > 0, but in float32 2**24 + 2**-25 rounds to 2**24 and the score is
    0.0 exactly: the binary margin predicts classes[1] iff score > 0, so it is classes[0].
    In float64 the sum is exact and the class is 1. Over the four cells the classes are
    float32: (x, y) = (0, 1) -> 1, else 0 (so x alone explains (1, 1)); float64: the class
    is y (so y alone explains it)."""
    fs = [Feature("x", "ordinal"), Feature("y", "ordinal")]
    big, tiny = 16777216.0, 2.0 ** -25
    for precision, label, axp in (("float32", 0, "x"), ("float64", 1, "y")):
        trees = [_stump(fs, (0.0,), (big,)), _stump(fs, (0.0,), (tiny,), "y"),
                 _stump(fs, (0.0,), (-big,))]
        m = TreeEnsemble(fs, [0, 1], trees, "margin", precision=precision)
        x = {"x": 1.0, "y": 1.0}
        assert m.predict([x]).tolist() == [label]
        ex = xdt.Explainer(m, engine="sat")
        assert ex.predict(x) == label
        assert _sets(ex.all_axps(x)) == {frozenset({axp})}
        assert _sets(ex.all_cxps(x)) == {frozenset({axp})}


def test_multiclass_tie_by_rounding_and_exact_tie_to_the_first_class():
    """Tree 1 adds (0.3, 0, 0) for x <= 0.5, else (0.3, 0.1, 0); tree 2 adds (0, 0, 0) for
    y <= 0.5, else (0, 0.2, 0.3). At (x, y) = (1, 1) the scores are (0.3,
    0.30000000000000004, 0.3): 0.1 + 0.2 > 0.3 in float64, so class 1 wins by rounding. At
    (0, 1) they are (0.3, 0.2, 0.3): an exact tie of classes 0 and 2, which numpy.argmax
    gives to class 0. Every other cell is class 0."""
    fs = [Feature("x", "ordinal"), Feature("y", "ordinal")]
    trees = [DecisionTree(fs, [0, 1, 2], ThresholdSplit(
                 "x", 0.5, Leaf(0, (0.3, 0.0, 0.0)), Leaf(1, (0.3, 0.1, 0.0)))),
             DecisionTree(fs, [0, 1, 2], ThresholdSplit(
                 "y", 0.5, Leaf(0, (0.0, 0.0, 0.0)), Leaf(1, (0.0, 0.2, 0.3))))]
    m = TreeEnsemble(fs, [0, 1, 2], trees, "margin")
    assert m.predict([{"x": 1, "y": 1}, {"x": 0, "y": 1}]).tolist() == [1, 0]
    ex = xdt.Explainer(m, engine="sat")
    assert ex.predict({"x": 1, "y": 1}) == 1
    assert _sets(ex.all_axps({"x": 1, "y": 1})) == {frozenset({"x", "y"})}
    assert ex.predict({"x": 0, "y": 1}) == 0
    assert _sets(ex.all_axps({"x": 0, "y": 1})) == {frozenset({"x"})}


# ---------------------------------------------------------------------- errors
def _small():
    fs = [Feature("x", "ordinal")]
    return TreeEnsemble(fs, [0, 1], [_stump(fs, (-1.0,), (1.0,))], "margin")


def test_path_engine_on_an_ensemble_says_what_to_use():
    with pytest.raises(EngineNotAvailableError, match="tree ensemble.*engine='box' or 'sat'"):
        xdt.Explainer(_small(), engine="path")


def test_path_notions_on_an_ensemble_raise():
    ex = xdt.Explainer(_small(), engine="sat")
    with pytest.raises(EngineNotAvailableError, match="tree ensemble"):
        ex.axp({"x": 1.0}, path_restricted=True)
    with pytest.raises(EngineNotAvailableError, match="tree ensemble"):
        ex.path_is_redundant({"x": 1.0})
    with pytest.raises(EngineNotAvailableError, match="tree ensemble"):
        ex.path_features({"x": 1.0})
    with pytest.raises(EngineNotAvailableError, match="tree ensemble"):
        ex.axp({"x": 1.0}, order="path")


def test_unknown_solver_on_an_ensemble():
    with pytest.raises(EngineNotAvailableError, match="unknown SAT solver"):
        xdt.Explainer(_small(), engine="sat", solver="nosuchsolver")


def test_other_solver_gives_the_same_answers():
    m = _small()
    assert xdt.Explainer(m, engine="sat", solver="glucose4").axp({"x": 1.0}).features == ("x",)


# ---------------------------------------------------------------------- certificates
@given(data=st.data())
@SETTINGS
def test_ensemble_certificates_check_out(data):
    """verify=True re-checks every witness with model.predict and the AXp's box by
    enumeration; inflated AXps are maximal (their widening witnesses check out)."""
    model = data.draw(ensembles())
    x = instance(data.draw, model)
    bf = verify.brute_force(model, x)
    ex = xdt.Explainer(model, engine="sat")
    axp = ex.axp(x, verify=True)
    assert axp.verified and frozenset(axp.features) in bf.axps
    wide = ex.axp(x, inflate=True, verify=True)
    assert wide.verified and wide.inflated
    cxp = ex.cxp(x, verify=True)
    if cxp is not None:
        assert cxp.verified
        assert model.predict([cxp.counterexample]).tolist() != model.predict([x]).tolist()
    found = ex.all_axps(x, verify=True)
    assert all(e.verified for e in found)


def _labelled(fs, reference=None):
    return TreeEnsemble(fs, ["no", "yes"], [
        DecisionTree(fs, ["no", "yes"], ThresholdSplit("x", 0.5, Leaf("no", (-1.0,)),
                                                       Leaf("yes", (1.0,)))),
        DecisionTree(fs, ["no", "yes"], ThresholdSplit("y", 0.5, Leaf("no", (-0.5,)),
                                                       Leaf("yes", (0.5,))))],
        "margin", reference=reference)


def test_certificates_are_rechecked_with_the_library_predict():
    """A reference that agrees with the IR passes; one that disagrees on the witness
    (predicts "yes" everywhere) makes verify=True fail, naming the library."""
    fs = [Feature("x", "ordinal"), Feature("y", "ordinal")]
    calls = []

    def agree(rows):
        calls.append(len(rows))
        rows = np.asarray(rows, dtype=np.float64)
        return np.where(rows[:, 0] > 0.5, "yes", "no").astype(object)

    ok = _labelled(fs, agree)
    x = {"x": 1.0, "y": 0.0}  # 1 - 0.5 > 0: yes; the AXp is {x}
    e = xdt.Explainer(ok, engine="sat").axp(x, verify=True)
    assert e.features == ("x",) and e.verified and calls
    bad = _labelled(fs, lambda rows: np.asarray(["yes"] * len(rows), dtype=object))
    with pytest.raises(xdt.errors.CertificateError, match="library's own predict"):
        xdt.Explainer(bad, engine="sat").axp(x, verify=True)


@pytest.mark.parametrize("boxes, limit, how", [
    (None, None, "the box engine"), (0, None, "enumerating the box"),
    (0, 1, "sampling the box")])
def test_sat_proof_of_an_ensemble_is_rechecked_on_its_box(monkeypatch, boxes, limit, how):
    """A forged certificate (an AXp that is not one) is caught by the other engine (the box
    engine); when that meets its limit, by enumerating the box, or by sampling when the box is
    larger than the enumeration limit."""
    from xdt.explain.engines import _ensemble_box as ensemble_box

    if boxes is not None:
        monkeypatch.setattr(ensemble_box, "MAX_BOXES", boxes)
    if limit is not None:
        monkeypatch.setattr(verify, "MAX_POINTS", limit)
    from dataclasses import replace

    fs = [Feature("x", "ordinal"), Feature("y", "ordinal")]
    m = _labelled(fs)
    ex = xdt.Explainer(m, engine="sat")
    x = {"x": 1.0, "y": 1.0}  # yes; AXps: {x} (1 - 0.5 > 0)
    e = ex.axp(x, verify=True)
    assert e.features == ("x",)
    cert = e.certificate
    forged = replace(e, features=("y",), values=(1.0,), cells=(0b10,),
                     certificate=replace(cert, held={"y": (1,)},
                                         witnesses={"y": cert.witnesses["x"]},
                                         proof=replace(cert.proof, features=("y",))))
    with pytest.raises(xdt.errors.CertificateError, match=how + ".* finds a point of another"):
        xdt.explain.checks._certificates.check_certificate(m, forged)


# ---------------------------------------------------------------------- crosscheck
@given(data=st.data())
@settings(max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_crosscheck_of_ensembles_agrees_with_brute_force(data):
    model = data.draw(ensembles())
    rows = [instance(data.draw, model) for _ in range(3)]
    report = xdt.crosscheck(model, rows)
    assert report.checker == "brute force"
    assert report.ok, report.summary()
    assert report.rows == 3 and report.agreements["all_axps"] == 3
    from xdt.explain.checks._crosscheck import crosscheck_ensemble

    by_sampling = crosscheck_ensemble(model, rows, max_points=0)
    assert by_sampling.checker == "sampling" and by_sampling.ok, by_sampling.summary()
    assert by_sampling.checked["axp"] == 3


def test_crosscheck_reports_a_wrong_engine():
    """An engine answer that brute force refutes is reported with the row and check: the
    model is changed behind the engine's back (its encoding was made for the old leaves)."""
    fs = [Feature("x", "ordinal"), Feature("y", "ordinal")]
    m = _labelled(fs)
    from xdt.explain.checks._crosscheck import crosscheck_ensemble
    from xdt.explain.engines._sat_cache import shared_encoding

    enc = shared_encoding(m)
    enc.build()  # the shared encoding is built by the first query; here, now
    enc.leaf_values = -enc.leaf_values  # the engine now sums the opposite margins
    report = crosscheck_ensemble(m, [{"x": 1.0, "y": 1.0}])
    assert not report.ok
    assert {d.check for d in report.disagreements} >= {"axp"}
    assert "row 0" in report.summary()


def test_readme_ensemble_block_runs_and_prints_what_it_says(capsys):
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    block = next(b for b in re.findall(r"```python\n(.*?)```", text, re.S)
                 if "TreeEnsemble" in b)
    exec(block, {})  # noqa: S102 - the README's own example
    shown = block.strip().splitlines()[-1].lstrip("# ")
    assert capsys.readouterr().out.strip() == shown


def test_cli_explains_and_crosschecks_an_ensemble(tmp_path, monkeypatch):
    """``xdt explain`` and ``xdt crosscheck`` on an ensemble (the model file is read by
    xdt.load_model; here it hands over the crafted float32 ensemble)."""
    from click.testing import CliRunner

    from xdt.cli import main

    fs = [Feature("x", "ordinal"), Feature("y", "ordinal")]
    m = TreeEnsemble(fs, [0, 1], [_stump(fs, (0.0,), (16777216.0,)),
                                  _stump(fs, (0.0,), (2.0 ** -25,), "y"),
                                  _stump(fs, (0.0,), (-16777216.0,))], "margin",
                     precision="float32")
    monkeypatch.setattr(xdt, "load_model", lambda path: m)
    data = tmp_path / "rows.csv"
    data.write_text("x,y\n1,1\n0,1\n0,0\n")
    runner = CliRunner()
    out = runner.invoke(main, ["explain", "model.json", "--instance", '{"x": 1, "y": 1}',
                               "--all-axps"])
    assert out.exit_code == 0, out.output
    assert "0.5 < x" in out.output
    out = runner.invoke(main, ["crosscheck", "model.json", "--data", str(data), "-q"])
    assert out.exit_code == 0, out.output
    assert "brute force" in out.output and "OK" in out.output


def test_enumeration_limits_on_an_ensemble():
    """Three stumps voting 1 when their feature is above 0.5: at (1, 1, 1) every pair of
    features is an AXp (two votes keep the majority) and every pair a CXp; max_count=2
    stops after two AXps, saying more exist."""
    fs = [Feature(n, "ordinal") for n in "abc"]
    trees = [DecisionTree(fs, [0, 1], ThresholdSplit(n, 0.5, Leaf(0), Leaf(1))) for n in "abc"]
    m = TreeEnsemble(fs, [0, 1], trees, "vote")
    ex = xdt.Explainer(m, engine="sat")
    x = {"a": 1, "b": 1, "c": 1}  # 3 votes for 1; any two of them keep the majority
    everything = ex.all_axps(x)
    assert _sets(everything) == {frozenset(p) for p in (("a", "b"), ("a", "c"), ("b", "c"))}
    assert everything.complete
    two = ex.all_axps(x, max_count=2)
    assert len(two) == 2 and not two.complete and two.stopped_by == "max_count"
    assert _sets(ex.all_cxps(x, time_limit=60)) == {frozenset(p) for p in
                                                    (("a", "b"), ("a", "c"), ("b", "c"))}
