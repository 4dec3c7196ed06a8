"""xdt.crosscheck: the path engine and the SAT engine agree on real data, and the report
catches an engine that does not (a monkeypatched Explainer method), with a counterexample
checked against the model's own predict."""

from __future__ import annotations

import json
from dataclasses import replace

import pandas as pd
import pytest
from conftest import load_case
from tiers import sweep

import xdt
from xdt.errors import DataError, MissingFeatureError, UnsupportedModelError
from xdt.explain._explainer import Explainer, ExplanationList
from xdt.explain.checks._crosscheck import CHECKS, CrosscheckReport
from xdt.interop._fit import fit_sklearn_tree

ROWS = 40
DATASETS = [
    "german",            # string categoricals + numeric, 2 classes, 20 features
    "banknote",          # numeric, 2 classes
    "iris",              # numeric, 3 classes
    "cardiotocography",  # numeric, 3 classes, 21 features
]


@pytest.fixture(scope="module")
def fitted():
    """Fit once per (dataset, depth) for the whole module: ``(model, test rows)``."""
    cache: dict = {}

    def get(datasets_dir, name: str, depth):
        if (name, depth) not in cache:
            frame = pd.read_csv(datasets_dir / f"{name}.csv")
            target = frame.columns[-1]  # the target is the last column
            fit = fit_sklearn_tree(frame, target, max_depth=depth, seed=0)
            cache[name, depth] = fit.model, fit.test  # test rows keep the target column
        return cache[name, depth]

    return get


def assert_all_agree(report: CrosscheckReport, rows: int, enumerate: bool = True) -> None:
    assert report.ok, report.summary()
    assert report.rows == rows
    for key in CHECKS:
        expected = 0 if key in ("all_axps", "all_cxps") and not enumerate else rows
        assert report.checked[key] == expected, key
        assert report.agreements[key] == expected, key
    assert len(report.times["path"]) == len(report.times["sat"]) == rows


# ---------------------------------------------------------------------- real data
@pytest.mark.parametrize("depth", [6, None], ids=["depth6", "unbounded"])
@pytest.mark.parametrize("name", sweep(DATASETS))
def test_engines_agree_on_real_data(datasets_dir, fitted, name, depth):
    model, test = fitted(datasets_dir, name, depth)
    if depth is None:  # as deep as the data need (iris: 4; german: 18)
        assert model.depth >= fitted(datasets_dir, name, 6)[0].depth
    report = xdt.crosscheck(model, test.head(ROWS))  # the target column is ignored
    assert_all_agree(report, ROWS)
    assert list(report.to_dict()["checks"]) == list(CHECKS)
    assert "OK: the engines agree" in str(report)


@pytest.mark.parametrize("name", sweep(["german", "cardiotocography"]))
def test_engines_agree_path_restricted(datasets_dir, fitted, name):
    model, test = fitted(datasets_dir, name, None)
    report = xdt.crosscheck(model, test.head(ROWS), path_restricted=True)
    assert_all_agree(report, ROWS)
    assert report.path_restricted and "path-restricted" in report.summary()


def test_no_enumerate_and_other_solver(datasets_dir, fitted):
    model, test = fitted(datasets_dir, "iris", 6)
    report = xdt.crosscheck(model, test.head(10), enumerate=False, solver="glucose4")
    assert_all_agree(report, 10, enumerate=False)
    assert report.solver == "glucose4"
    assert "skipped (--no-enumerate)" in report.summary()


# ---------------------------------------------------------------------- inputs and report
@pytest.fixture
def fig3():
    case = load_case("izza-fig3-unrestricted")
    return xdt.load_model(case["model"]), case["queries"][0]["instance"]


def test_rows_as_dicts_or_frame_with_labels(fig3):
    model, x = fig3
    other = {"x1": 0, "x2": 1, "x3": 0, "x4": 1}
    report = xdt.crosscheck(model, [{**x, "label": 1}, other])  # extra keys ignored
    assert_all_agree(report, 2)
    frame = pd.DataFrame([x, other], index=[10, 20]).assign(extra="ignored")
    assert_all_agree(xdt.crosscheck(model, frame), 2)
    d = report.to_dict()
    json.dumps(d)
    assert d["ok"] is True and d["rows"] == 2 and d["disagreements"] == []
    assert d["time"]["sat"]["total_s"] >= d["time"]["sat"]["median_s"] > 0
    assert report.median_time("path") > 0 and report.total_time("path") > 0


def test_bad_inputs(fig3):
    model, x = fig3
    with pytest.raises(DataError, match="row 1"):
        xdt.crosscheck(model, [x, {**x, "x2": 7}])
    with pytest.raises(MissingFeatureError):
        xdt.crosscheck(model, pd.DataFrame([{"x1": 1}]))
    with pytest.raises(UnsupportedModelError):
        xdt.crosscheck({"kind": "tree"}, [x])
    with pytest.raises(DataError, match="no rows to crosscheck"):
        xdt.crosscheck(model, [])


def test_time_limit_stops_enumerations_without_disagreement(datasets_dir, fitted):
    model, test = fitted(datasets_dir, "german", None)
    report = xdt.crosscheck(model, test.head(5), time_limit=1e-9)
    assert report.ok and not report.complete
    assert report.checked["all_axps"] < report.rows  # stopped rows are not compared
    assert report.partial["all_axps"] == report.rows - report.checked["all_axps"]
    assert report.checked["path_axp"] == report.rows
    assert "INCOMPLETE: no disagreement" in report.summary()
    assert "OK:" not in report.summary()


# ---------------------------------------------------------------------- a lying engine
def lie(monkeypatch, method: str, engine: str, wrong):
    """Make ``Explainer.<method>`` of one engine return ``wrong(correct_answer)``."""
    original = getattr(Explainer, method)

    def patched(self, *args, **kwargs):
        answer = original(self, *args, **kwargs)
        return wrong(answer) if self.engine == engine else answer

    monkeypatch.setattr(Explainer, method, patched)


def test_report_catches_an_axp_that_does_not_entail(monkeypatch, fig3):
    model, x = fig3

    def drop_last(e):
        return replace(e, features=e.features[:-1], values=e.values[:-1],
                       literals=e.literals[:-1])

    lie(monkeypatch, "axp", "sat", drop_last)
    report = xdt.crosscheck(model, [x])
    assert not report.ok
    assert report.agreements["sat_axp"] == 0 and report.checked["sat_axp"] == 1
    assert report.agreements["path_axp"] == 1
    [d] = report.disagreements
    assert d.row == 0 and d.check == "sat_axp" and d.refutes == "sat"
    assert d.sat == ["x1"] and d.path is False
    cx = d.counterexample
    assert cx is not None and cx.source == "path" and cx.genuine and cx.fixed == ("x1",)
    # the point is checked with the model itself: same x1 as the instance, another class
    assert model.predict([cx.point])[0] != model.predict([x])[0] == 1
    assert cx.point["x1"] == x["x1"] and cx.predicted == model.predict([cx.point])[0]
    text = report.summary()
    assert "1 DISAGREEMENT:" in text and "row 0: sat's AXp is an AXp for path" in text
    assert "model.predict gives 0, not 1" in text and "so sat is wrong" in text
    dumped = json.loads(json.dumps(report.to_dict()))
    assert dumped["ok"] is False
    assert dumped["disagreements"][0]["counterexample"]["point"] == cx.point


def test_report_catches_a_non_minimal_axp(monkeypatch, fig3):
    model, x = fig3
    lie(monkeypatch, "axp", "path", lambda e: replace(e, features=("x1", "x2", "x3")))
    [d] = xdt.crosscheck(model, [x]).disagreements
    assert d.check == "path_axp" and d.refutes == "path"
    assert "not minimal" in d.detail and d.counterexample is None


def test_report_catches_an_enumeration_with_a_wrong_set(monkeypatch, fig3):
    model, x = fig3

    def swap_last(lst):
        return ExplanationList(lst[:-1] + [replace(lst[-1], features=("x2", "x4"))])

    lie(monkeypatch, "all_axps", "path", swap_last)
    report = xdt.crosscheck(model, [x])
    [d] = report.disagreements
    assert d.check == "all_axps" and d.refutes == "path"
    assert d.path == [["x1", "x3"], ["x2", "x4"]]
    assert d.sat == [["x1", "x3"], ["x2", "x3", "x4"]]
    assert "found by path only: {x2, x4}" in d.detail
    assert d.counterexample.genuine and d.counterexample.source == "sat"
    assert model.predict([d.counterexample.point])[0] == 0


def test_report_catches_an_enumeration_that_misses_one(monkeypatch, fig3):
    model, x = fig3
    lie(monkeypatch, "all_cxps", "sat", lambda lst: ExplanationList(lst[1:]))
    [d] = xdt.crosscheck(model, [x]).disagreements
    assert d.check == "all_cxps" and d.refutes == "sat" and d.counterexample is None
    assert "sat's enumeration misses" in d.detail and "confirms is a CXp" in d.detail


def test_report_catches_a_wrong_no_cxp_and_redundancy(monkeypatch, fig3):
    model, x = fig3
    lie(monkeypatch, "cxp", "sat", lambda e: None)
    lie(monkeypatch, "path_is_redundant", "path", lambda r: not r)
    report = xdt.crosscheck(model, [x])
    by_check = {d.check: d for d in report.disagreements}
    assert set(by_check) == {"sat_cxp", "path_redundant"}
    cxp = by_check["sat_cxp"]
    assert cxp.sat is None and cxp.refutes == "sat" and cxp.counterexample.genuine
    assert cxp.counterexample.fixed == ()
    assert "some CXp exists" in report.summary()
    red = by_check["path_redundant"]
    assert red.path is True and red.sat is False and red.refutes == "path"


def test_report_catches_a_bogus_counterexample(monkeypatch, fig3):
    """An engine whose counterexample has the instance's own class is the one refuted."""
    model, x = fig3
    lie(monkeypatch, "is_axp", "sat", lambda ok: False)  # denies path's (right) AXp
    lie(monkeypatch, "counterexample", "sat", lambda p: dict(x))  # the instance itself
    [d] = xdt.crosscheck(model, [x]).disagreements
    assert d.check == "path_axp"
    assert d.counterexample.source == "sat" and not d.counterexample.genuine
    assert d.refutes == "sat"
