"""Tests of the ``xdt`` command line (fit, explain, demo) and of its helpers."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner, Result
from clitools import assert_clean_failure, run
from conftest import CASES, require_shared
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

import xdt
from xdt.cli import main
from xdt.cli._common import pack_tokens, parse_rows, wrap_rule
from xdt.interop._fit import fit_sklearn_tree
from xdt.interop._tabular import TabularEncoder

# Zhou's tree (Izza, Ignatiev & Marques-Silva, "On Explaining Decision Trees", appendix A.3)
ZHOU = {
    "format": "xdt-model/1", "kind": "tree",
    "features": [{"name": "x", "kind": "ordinal"}, {"name": "y", "kind": "ordinal"}],
    "classes": ["circle", "cross"],
    "root": {"feature": "y", "threshold": 0.73,
             "left": {"feature": "x", "threshold": 0.64,
                      "left": {"class": "circle"}, "right": {"class": "cross"}},
             "right": {"class": "cross"}},
}






def jsonl(result: Result) -> list[dict]:
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]


@pytest.fixture
def zhou(tmp_path: Path) -> Path:
    path = tmp_path / "zhou.json"
    path.write_text(json.dumps(ZHOU))
    return path


@pytest.fixture
def table(tmp_path: Path) -> tuple[Path, pd.DataFrame]:
    """A CSV with a string categorical column, a numeric one, a 0/1 one and a target."""
    rng = np.random.default_rng(7)
    n = 120
    colour = rng.choice(["red", "green", "blue"], size=n)
    size = np.round(rng.uniform(0, 10, size=n), 2)
    flag = rng.integers(0, 2, size=n)
    label = np.where((colour == "red") | ((size > 6.5) & (flag == 1)), "yes", "no")
    frame = pd.DataFrame({"colour": colour, "size": size, "flag": flag, "label": label})
    path = tmp_path / "table.csv"
    frame.to_csv(path, index=False)
    return path, pd.read_csv(path)


# ---------------------------------------------------------------------- xdt fit
def _branch_values(node: dict) -> list[tuple[str, list]]:
    """(feature, values) of every categorical branch in a JSON tree."""
    out = []
    if "branches" in node:
        for b in node["branches"]:
            out.append((node["feature"], b["in"]))
            out += _branch_values(b["node"])
    elif "left" in node:
        out += _branch_values(node["left"]) + _branch_values(node["right"])
    return out


def test_fit_saves_a_model_that_predicts_like_sklearn(table, tmp_path):
    csv, frame = table
    out = tmp_path / "model.json"
    result = run("fit", str(csv), "--target", "label", "--max-depth", "4", "--learner",
                 "sklearn", "-o", str(out))
    assert result.exit_code == 0, result.output
    assert "120 rows" in result.stdout and "84 train / 36 test rows" in result.stdout
    assert "1 categorical, 1 ordinal, 1 binary" in result.stdout
    model = xdt.load_model(out)

    # The same fit, done by hand: stratified 70/30 split with seed 0, depth 4.
    train, _ = train_test_split(frame, test_size=0.3, random_state=0, stratify=frame["label"])
    enc = TabularEncoder().fit(frame.drop(columns=["label"]))
    est = DecisionTreeClassifier(max_depth=4, random_state=0).fit(
        enc.transform(train), train["label"])
    np.testing.assert_array_equal(model.predict(frame), est.predict(enc.transform(frame)))

    doc = json.loads(out.read_text())
    assert doc["target"] == "label"
    kinds = {f["name"]: f for f in doc["features"]}
    assert kinds["colour"] == {"name": "colour", "kind": "categorical",
                               "domain": ["blue", "green", "red"]}
    assert kinds["size"]["kind"] == "ordinal" and kinds["flag"]["kind"] == "binary"
    colour_splits = [values for feat, values in _branch_values(doc["root"])
                     if feat == "colour"]
    assert colour_splits, "the tree should split on colour"
    for values in colour_splits:  # the original strings, not one-hot codes
        assert values and all(v in {"red", "green", "blue"} for v in values)


def test_fit_categorical_option_keeps_integer_codes_as_values(tmp_path):
    frame = pd.DataFrame({"grade": [1, 2, 3, 1, 2, 3, 1, 2, 3, 3] * 3,
                          "y": ["a", "b", "a", "a", "b", "a", "a", "b", "a", "b"] * 3})
    csv = tmp_path / "g.csv"
    frame.to_csv(csv, index=False)
    out = tmp_path / "g.json"
    result = run("fit", str(csv), "-t", "y", "--categorical", "grade", "--test-size", "0",
                 "-o", str(out))
    assert result.exit_code == 0, result.output
    model = xdt.load_model(out)
    assert model.features[0].kind == "categorical" and model.features[0].domain == (1, 2, 3)
    rows = jsonl(run("explain", str(out), "--data", str(csv), "--rows", ":3", "--format",
                     "jsonl"))
    assert [r["prediction"] for r in rows] == ["a", "b", "a"]
    assert rows[1]["axp"]["rule"] == "IF grade = 2 THEN y = b"


def test_fit_sklearn_tree_domains_cover_values_seen_only_in_test_rows():
    frame = pd.DataFrame({"c": ["a", "b"] * 20 + ["rare"], "y": [0, 1] * 20 + [1]})
    fit = fit_sklearn_tree(frame, "y", test_size=0.5, seed=3)
    assert "rare" in fit.model.features[0].domain
    assert fit.test_accuracy is not None and fit.train_accuracy == 1.0
    assert len(fit.train) + len(fit.test) == len(frame)


def test_fit_missing_target_column_lists_the_columns(table, tmp_path):
    csv, _ = table
    result = run("fit", str(csv), "--target", "klass", "-o", str(tmp_path / "m.json"))
    assert_clean_failure(result, "'klass' is not in", "colour, size, flag, label")


def test_fit_missing_values_and_missing_file(tmp_path):
    csv = tmp_path / "holes.csv"
    csv.write_text("a,b,y\n1,x,p\n,y,q\n3,x,p\n4,y,q\n")
    assert_clean_failure(run("fit", str(csv), "-t", "y", "-o", str(tmp_path / "m.json")),
                         "column 'a' has 1 missing value")
    assert_clean_failure(run("fit", str(tmp_path / "absent.csv"), "-t", "y", "-o",
                             str(tmp_path / "m.json")), "no data file")
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    assert_clean_failure(run("fit", str(empty), "-t", "y", "-o", str(tmp_path / "m.json")),
                         "empty")


# ---------------------------------------------------------------------- xdt fit: learners
def _known_table(tmp_path: Path, reps: int = 3) -> Path:
    """label = p when x <= 4, else q when c = a, else r; ``reps`` copies of the 20 points.

    By hand (both learners, all rows for training): the root test x <= 4.5 leaves Gini
    0.25 (c = a leaves 0.5); it is balanced for SER-DT (wpm 0 and 250*reps^2 against half of
    2500*reps^2). The right child splits on c (pure sides). Depth 2, 3 leaves, 5 nodes;
    the training rows reach the leaves 10, 5, 5 (x reps): depth_avg = expl_avg = 1.5.
    """
    rows = [(x, c, "p" if x <= 4 else ("q" if c == "a" else "r"))
            for _ in range(reps) for x in range(10) for c in ("a", "b")]
    csv = tmp_path / "known.csv"
    pd.DataFrame(rows, columns=["x", "c", "label"]).to_csv(csv, index=False)
    return csv


METRIC_ROW = re.compile(r"^  (\S+(?: \S+)*)  +(\S+)")


def metric_rows(stdout: str) -> dict[str, str]:
    """label -> value of the indented metric rows of ``xdt fit``'s text output."""
    return {m.group(1): m.group(2) for m in map(METRIC_ROW.match, stdout.splitlines()) if m}


def fit_json(*args: str) -> dict:
    result = run("fit", *args, "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize("learner", ["cart", "ser-dt", "sklearn"])
def test_fit_learners_on_a_tree_known_by_construction(tmp_path, learner):
    csv = _known_table(tmp_path)
    out = tmp_path / "known.json"
    report = fit_json(str(csv), "-t", "label", "--learner", learner, "--test-size", "0",
                      "-o", str(out))
    assert report["learner"] == learner and report["train_accuracy"] == 1.0
    assert report["test_accuracy"] is None and report["split"]["train"] == 60
    assert (report["depth_wc"], report["expl_wc"]) == (2, 2)
    assert report["depth_avg"] == pytest.approx(1.5) == report["expl_avg"]
    assert (report["leaves"], report["nodes"]) == (3, 5)
    assert report["fallback_splits"] == (0 if learner == "ser-dt" else None)
    assert report["factor_expl"] == (0.97 if learner == "ser-dt" else None)
    model = xdt.load_model(out)
    assert model.target == "label" and model.classes == ("p", "q", "r")
    ex = xdt.Explainer(model)
    # scikit-learn's thresholds are float32 tests (4.500000238418579 in the model file), shown
    # as the shortest decimal that sends every float32 value the same way
    assert ex.axp({"x": 7, "c": "b"}).rule == "IF 4.5 < x AND c = b THEN label = r"
    assert ex.axp({"x": 2, "c": "b"}).rule == "IF x <= 4.5 THEN label = p"

    text = run("fit", str(csv), "-t", "label", "--learner", learner, "--test-size", "0")
    assert text.exit_code == 0, text.output
    lines = text.stdout.splitlines()
    assert "model not saved (give -o MODEL.json to save it)" in lines
    table = metric_rows(text.stdout)
    assert (table["train accuracy"], table["test accuracy"]) == ("1.000", "n/a")
    assert (table["depth_wc"], table["depth_avg"], table["expl_wc"], table["expl_avg"]) == \
        ("2", "1.500", "2", "1.500")
    assert (table["leaves"], table["nodes"]) == ("3", "5")
    assert ("fallback splits" in table) == (learner == "ser-dt")


def test_fit_serdt_reports_its_three_way_fallback_split(tmp_path):
    """x = 0 on 18 rows (10 a, 8 b), x = 1 on 2 rows (b). The one test, x <= 0.5, lowers the
    Gini impurity (0.444 < 0.5) but is not balanced: its left side has wpm 80 * 18 = 1440,
    above half of the node's 100 * 20 = 2000. So SER-DT takes Algorithm 1's three-way
    split, which on x (smallest value t* = 0) is the same test: one fallback split, and the
    same tree as CART's (a | b)."""
    csv = tmp_path / "fallback.csv"
    csv.write_text("x,y\n" + "0,a\n" * 10 + "0,b\n" * 8 + "1,b\n" * 2)
    reports = {learner: fit_json(str(csv), "-t", "y", "-l", learner, "--test-size", "0")
               for learner in ("ser-dt", "cart")}
    assert reports["ser-dt"]["fallback_splits"] == 1
    assert reports["cart"]["fallback_splits"] is None
    for report in reports.values():
        assert (report["leaves"], report["depth_wc"]) == (2, 1)
        assert report["train_accuracy"] == pytest.approx(12 / 20)  # 10 a left, 2 b right
    text = run("fit", str(csv), "-t", "y", "-l", "ser-dt", "--test-size", "0")
    assert metric_rows(text.stdout)["fallback splits"] == "1"


def _direct_fit(frame: pd.DataFrame, target: str, learner: str, **params):
    """The split and the learner as xdt fit documents them, done by hand: stratified 70/30
    split with seed 0; string columns as pandas categories over all rows, 0/1 as bool."""
    from xdt.learn import CARTClassifier, SERDTClassifier

    X = frame.drop(columns=[target]).copy()
    for name in X.columns:
        if X[name].dtype.kind not in "iufb":
            X[name] = pd.Categorical(X[name], categories=sorted(X[name].unique()))
        elif set(X[name].unique()) <= {0, 1}:
            X[name] = X[name] == 1
    train, test = train_test_split(X.index, test_size=0.3, random_state=0,
                                   stratify=frame[target])
    est = (SERDTClassifier(**params) if learner == "ser-dt" else CARTClassifier(**params))
    est.fit(X.loc[train], frame.loc[train, target])
    return est, X, train, test


@pytest.mark.parametrize(("learner", "args", "params"), [
    ("cart", [], {"max_depth": 6}),
    ("cart", ["--max-depth", "2"], {"max_depth": 2}),
    ("ser-dt", [], {"max_depth": 6, "factor_expl": 0.97}),
    ("ser-dt", ["--factor-expl", "0.5", "--max-depth", "none"],
     {"max_depth": None, "factor_expl": 0.5}),
])
def test_fit_metrics_match_the_learner_and_the_saved_model(table, tmp_path, learner, args,
                                                           params):
    from xdt.metrics import tree_sizes

    csv, frame = table
    out = tmp_path / "model.json"
    report = fit_json(str(csv), "-t", "label", "--learner", learner, *args, "-o", str(out))
    est, X, train, test = _direct_fit(frame, "label", learner, **params)
    y = frame["label"]
    assert report["train_accuracy"] == pytest.approx(est.score(X.loc[train], y[train]))
    assert report["test_accuracy"] == pytest.approx(est.score(X.loc[test], y[test]))
    assert report["leaves"] == est.tree_.n_leaves and report["nodes"] == est.tree_.n_nodes
    if learner == "ser-dt":
        assert report["fallback_splits"] == est.n_fallback_splits_
        assert report["factor_expl"] == params["factor_expl"]

    # the saved model: predicts like the estimator, and its sizes weighted by the training
    # rows (read back from the CSV) are the printed ones
    model = xdt.load_model(out)
    np.testing.assert_array_equal(model.predict(frame), est.predict(X))
    sizes = tree_sizes(model, X=frame.loc[train])
    assert sizes == tree_sizes(est)
    assert (report["depth_wc"], report["expl_wc"]) == (sizes.depth_wc, sizes.expl_wc)
    assert report["depth_avg"] == pytest.approx(sizes.depth_avg)
    assert report["expl_avg"] == pytest.approx(sizes.expl_avg)
    assert report["max_depth"] == params["max_depth"]
    if params["max_depth"] is not None:
        assert sizes.depth_wc <= params["max_depth"]


def test_fit_max_depth_0_is_a_single_leaf(table):
    csv, frame = table
    report = fit_json(str(csv), "-t", "label", "--max-depth", "0", "--test-size", "0")
    majority = frame["label"].value_counts(normalize=True).max()
    assert report["train_accuracy"] == pytest.approx(majority)
    assert (report["leaves"], report["nodes"], report["depth_wc"], report["expl_avg"]) == \
        (1, 1, 0, 0.0)


def test_fit_text_output_is_aligned_and_says_what_the_sizes_are(table):
    csv, _ = table
    result = run("fit", str(csv), "-t", "label", "--learner", "ser-dt")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "learner: SER-DT (short explainable rules, Souza et al. NeurIPS 2022), " \
           "factor_expl 0.97, max depth 6" in out
    rows = [METRIC_ROW.match(line) for line in out.splitlines() if line.startswith("  ")]
    assert all(rows)
    assert [m.group(1) for m in rows] == [
        "train accuracy", "test accuracy", "depth_wc", "depth_avg", "expl_wc", "expl_avg",
        "leaves", "nodes", "fallback splits", "fit time"]
    assert len({m.end(2) for m in rows}) == 1, out  # the values are right-aligned
    assert float(metric_rows(out)["fit time"]) >= 0
    assert "mean weighted by training rows" in out
    assert "check: the xdt tree predicts exactly like the fitted learner on every row" in out


def test_fit_errors_of_the_learner_options(table, tmp_path):
    csv, _ = table
    assert_clean_failure(run("fit", str(csv), "-t", "label", "--factor-expl", "0.9"),
                         "--factor-expl is a parameter of SER-DT", "--learner ser-dt",
                         "the learner is cart")
    assert_clean_failure(run("fit", str(csv), "-t", "label", "--learner", "sklearn",
                             "--factor-expl", "0.9"), "the learner is sklearn")
    for bad in ("1.5", "-0.1", "nan"):
        assert_clean_failure(run("fit", str(csv), "-t", "label", "--learner", "ser-dt",
                                 "--factor-expl", bad), "--factor-expl", bad)
    for bad in ("-1", "six", "2.5"):
        assert_clean_failure(run("fit", str(csv), "-t", "label", "--max-depth", bad),
                             "is not a depth", "'none' (no limit)")
    assert_clean_failure(run("fit", str(csv), "-t", "label", "--learner", "sklearn",
                             "--max-depth", "0"), "not available with --learner sklearn")
    assert_clean_failure(run("fit", str(csv), "-t", "label", "--learner", "tree"),
                         "'tree' is not one of 'cart', 'ser-dt', 'sklearn'")
    assert not list(tmp_path.glob("*.json"))  # nothing written by a failed fit


@pytest.mark.parametrize("learner", ["cart", "ser-dt", "sklearn"])
def test_fit_data_errors_are_messages_not_tracebacks(tmp_path, learner):
    holes = tmp_path / "holes.csv"
    holes.write_text("a,b,y\n1,x,p\n,y,q\n3,,p\n4,y,q\n")
    assert_clean_failure(run("fit", str(holes), "-t", "y", "-l", learner),
                         "column 'a' has 1 missing value(s) at row(s) 1 (0-based data rows) "
                         "(and 1 other column(s) have some: b)", "impute")
    assert_clean_failure(run("fit", str(holes), "-t", "klass", "-l", learner),
                         "target column 'klass' is not in", "a, b, y")
    continuous = tmp_path / "reg.csv"
    continuous.write_text("a,y\n" + "".join(f"{i},{i / 7:.4f}\n" for i in range(20)))
    assert_clean_failure(run("fit", str(continuous), "-t", "y", "-l", learner),
                         "target column 'y' holds continuous values, not class labels")


def test_fit_tree_learners_share_the_feature_kinds_and_domains():
    """A value only test rows hold stays in the domain, for every learner."""
    from xdt.errors import ParameterError
    from xdt.interop._fit import fit_tree

    frame = pd.DataFrame({"c": ["a", "b"] * 20 + ["rare"], "f": [0, 1] * 20 + [1],
                          "y": [0, 1] * 20 + [1]})
    for learner in ("cart", "ser-dt", "sklearn"):
        fit = fit_tree(frame, "y", learner=learner, test_size=0.5, seed=3)
        assert [(f.kind, f.domain) for f in fit.model.features] == \
            [("categorical", ("a", "b", "rare")), ("binary", (0, 1))]
        assert fit.train_accuracy == 1.0 and fit.test_accuracy == 1.0
        assert fit.learner == learner and fit.fit_seconds >= 0
        assert fit.model.predict(frame.iloc[[-1]]).tolist() == [1]
    with pytest.raises(ParameterError, match="unknown learner 'c45'"):
        fit_tree(frame, "y", learner="c45")
    with pytest.raises(ParameterError, match="factor_expl"):
        fit_tree(frame, "y", learner="ser-dt", factor_expl=2.0)


# ---------------------------------------------------------------------- xdt explain
def test_explain_instance_jsonl_on_zhou_tree(zhou, tmp_path):
    [row] = jsonl(run("explain", str(zhou), "--instance", '{"x": 0.9, "y": 0.2}',
                      "--all-axps", "--all-cxps", "--format", "jsonl"))
    assert row["row"] is None
    assert row["prediction"] == "cross"
    assert row["path"] == ["y", "x"] and row["path_length"] == 2
    assert row["path_redundant"] is True
    assert row["axp"]["features"] == ["x"]
    assert row["axp"]["rule"] == "IF 0.64 < x THEN cross"
    assert [e["features"] for e in row["axps"]] == [["x"]]
    assert [e["features"] for e in row["cxps"]] == [["x"]]
    assert row["cxps"][0]["counterexample_class"] == "circle"

    instance = tmp_path / "instance.json"
    instance.write_text('{"x": 0.64, "y": 0.73}')
    [row] = jsonl(run("explain", str(zhou), "--instance", f"@{instance}", "--all-cxps",
                      "--format", "jsonl"))
    assert row["prediction"] == "circle" and row["path_redundant"] is False
    assert row["axp"]["features"] == ["x", "y"]
    assert sorted(e["features"] for e in row["cxps"]) == [["x"], ["y"]]


def test_explain_data_jsonl_with_rows_slice(zhou, tmp_path):
    csv = tmp_path / "points.csv"
    pd.DataFrame({"label": ["cross", "circle", "cross"], "x": [0.9, 0.64, 0.1],
                  "y": [0.2, 0.73, 0.95]}).to_csv(csv, index=False)
    rows = jsonl(run("explain", str(zhou), "--data", str(csv), "--format", "jsonl",
                     "--all-cxps"))
    assert [r["row"] for r in rows] == [0, 1, 2]
    assert [r["prediction"] for r in rows] == ["cross", "circle", "cross"]
    assert [r["axp"]["features"] for r in rows] == [["x"], ["x", "y"], ["y"]]
    assert [sorted(c["features"] for c in r["cxps"]) for r in rows] == \
        [[["x"]], [["x"], ["y"]], [["y"]]]
    assert [r["path_redundant"] for r in rows] == [True, False, False]

    rows = jsonl(run("explain", str(zhou), "--data", str(csv), "--rows", "1:",
                     "--format", "jsonl", "--path-restricted"))
    assert [r["row"] for r in rows] == [1, 2]
    assert all(r["path_restricted"] and r["axp"]["path_restricted"] for r in rows)
    assert [r["axp"]["features"] for r in rows] == [["x", "y"], ["y"]]
    assert [len(r["cxps"]) for r in rows] == [1, 1]  # one CXp without --all-cxps


def test_explain_text_output(zhou):
    result = run("explain", str(zhou), "--instance", '{"x": 0.9, "y": 0.2}')
    assert result.exit_code == 0, result.output
    assert "instance: predicts cross (path of 2 tests, redundant)" in result.stdout
    assert "AXp (1 feature): IF 0.64 < x THEN cross" in result.stdout
    assert "CXp: CHANGE x (now 0.9; e.g. to 0.64) => circle" in result.stdout


def test_explain_progress_bar_on_a_terminal_unless_quiet(zhou, tmp_path, monkeypatch):
    import xdt.cli

    csv = tmp_path / "many.csv"
    rng = np.random.default_rng(0)
    pd.DataFrame({"x": rng.uniform(size=30), "y": rng.uniform(size=30)}).to_csv(csv,
                                                                                index=False)
    logged = run("explain", str(zhou), "--data", str(csv), "--format", "jsonl")
    assert len(jsonl(logged)) == 30 and logged.stderr == ""   # stderr to a file: no bar
    monkeypatch.setattr(xdt.cli._common, "stderr_is_terminal", lambda: True)
    loud = run("explain", str(zhou), "--data", str(csv), "--format", "jsonl")
    assert len(jsonl(loud)) == 30 and "explaining" in loud.stderr
    quiet = run("explain", str(zhou), "--data", str(csv), "--format", "jsonl", "--quiet")
    assert len(jsonl(quiet)) == 30 and quiet.stderr == ""


def test_explain_unknown_feature_and_category(zhou, tmp_path):
    assert_clean_failure(run("explain", str(zhou), "--instance", '{"x": 1, "z": 2}'),
                         "no value for feature(s) ['y']", "x, y",
                         "ignored, as they are not features: 'z'")
    model = tmp_path / "cat.json"
    model.write_text(json.dumps({
        "format": "xdt-model/1", "kind": "tree",
        "features": [{"name": "c", "kind": "categorical", "domain": ["a", "b"]}],
        "classes": [0, 1],
        "root": {"feature": "c", "branches": [{"in": ["a"], "node": {"class": 0}},
                                              {"in": ["b"], "node": {"class": 1}}]}}))
    csv = tmp_path / "cat.csv"
    csv.write_text("c\na\nzzz\n")
    assert_clean_failure(run("explain", str(model), "--data", str(csv)),
                         "row 1:", "'zzz'", "not in its domain")


def test_explain_nan_in_data(zhou, tmp_path):
    csv = tmp_path / "nan.csv"
    csv.write_text("x,y\n0.1,0.2\n0.5,\n")
    assert_clean_failure(run("explain", str(zhou), "--data", str(csv)),
                         "row 1:", "missing value")
    # rows outside --rows are not read against the model
    rows = jsonl(run("explain", str(zhou), "--data", str(csv), "--rows", "0:1",
                     "--format", "jsonl"))
    assert len(rows) == 1
    assert_clean_failure(run("explain", str(zhou), "--instance", '{"x": NaN, "y": 0.1}'),
                         "missing value")


def test_explain_names_the_row_with_a_bad_number(zhou, tmp_path):
    csv = tmp_path / "bad.csv"
    csv.write_text("x,y\n0.1,0.2\nabc,0.3\n0.5,0.6\n")
    assert_clean_failure(run("explain", str(zhou), "--data", str(csv)), "row 1:", "abc")


def test_explain_rows_outside_the_data(zhou, tmp_path):
    csv = tmp_path / "two.csv"
    csv.write_text("x,y\n0.1,0.2\n0.9,0.2\n")
    result = run("explain", str(zhou), "--data", str(csv), "--rows", "5:9")
    assert result.exit_code != 0 and "selects no rows; the data has 2 rows" in result.output


def test_fit_reports_the_data_classes_and_warns_of_unseen_ones(tmp_path):
    rows = ["a,b,label"] + [f"{i % 7},{i % 3},{'yes' if i % 2 else 'no'}" for i in range(60)]
    rows.append("3,1,rare")
    csv = tmp_path / "rare.csv"
    csv.write_text("\n".join(rows) + "\n")
    result = CliRunner().invoke(main, ["fit", str(csv), "--target", "label", "--seed", "0",
                                       "--test-size", "0.3", "-o", str(tmp_path / "m.json")])
    assert result.exit_code == 0, result.output
    assert "with 3 classes (no, rare, yes)" in result.output
    # with seed 0 the one 'rare' row falls in the test split
    assert "rare" not in xdt.load_model(tmp_path / "m.json").classes
    assert "warning: class(es) rare have no training row" in result.output


def test_explain_bad_model_files(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "xdt-model/1", "kind": ')
    assert_clean_failure(run("explain", str(broken), "--instance", "{}"), "not valid JSON")
    invalid = tmp_path / "invalid.json"
    invalid.write_text(json.dumps({**ZHOU, "classes": ["circle"]}))
    assert_clean_failure(run("explain", str(invalid), "--instance", "{}"),
                         "leaf class 'cross' is not in classes")
    dnf = tmp_path / "dnf.json"
    dnf.write_text(json.dumps({"format": "xdt-model/1", "kind": "dnf"}))
    assert_clean_failure(run("explain", str(dnf), "--instance", "{}"),
                         "the dnf model has no 'features' field")
    assert_clean_failure(run("explain", str(tmp_path / "absent.json"), "--instance", "{}"),
                         "no model file")


def test_explain_usage_errors(zhou, tmp_path):
    assert_clean_failure(run("explain", str(zhou)), "exactly one of --instance")
    assert_clean_failure(run("explain", str(zhou), "--instance", "{}", "--rows", "1:2"),
                         "--rows selects rows of --data")
    assert_clean_failure(run("explain", str(zhou), "--instance", "[0.1, 0.2]"),
                         "must be a JSON object")
    assert_clean_failure(run("explain", str(zhou), "--instance", "{x: 1}"),
                         "not valid JSON")
    csv = tmp_path / "p.csv"
    csv.write_text("x\n0.1\n")
    assert_clean_failure(run("explain", str(zhou), "--data", str(csv)),
                         "no column(s) ['y']")


# ---------------------------------------------------------------------- xdt demo
def test_demo_prints_comparison_table_and_summary():
    result = run("demo", "--show", "3")
    assert result.exit_code == 0, result.output
    out = result.stdout
    flat = " ".join(out.split())  # the header is wrapped to the terminal's width
    assert "1000 rows, 21 features (14 categorical, 7 ordinal)" in flat
    assert "700 train / 300 test rows" in flat
    head = [line for line in out.splitlines() if line.split()[:2] == ["learner", "test"]]
    assert head == ["  learner                    test acc  depth_wc  depth_avg  expl_wc  "
                    "expl_avg  leaves"]
    assert sum(line.startswith(("  SER-DT (factor_expl 0.97)", "  CART (greedy Gini)"))
               for line in out.splitlines()) == 2
    assert "mean weighted by the 700 training rows" in flat
    assert "300 test rows on the SER-DT tree" in flat
    assert "Summary over all 300 test rows" in out
    for line in ("redundant paths:", "mean AXp size:", "vs mean path length",
                 "median time per AXp:", "median time per all-CXps:", "total time:"):
        assert line in out
    assert out.count("CXps (") == 3  # three table rows
    assert max(len(line) for line in out.splitlines()) <= 100


def test_run_demo_numbers_are_consistent():
    from xdt.cli._demo_job import load_german, run_demo

    lines: list[str] = []
    result = run_demo(show=0, echo=lines.append)
    assert result.n_rows == 300 == len(result.rows)
    assert result.depth <= 6
    assert result.redundant_share == pytest.approx(np.mean([r.redundant for r in result.rows]))
    assert result.mean_axp_size == pytest.approx(np.mean([r.axp_size for r in result.rows]))
    assert all(r.axp_size >= 1 and r.cxps for r in result.rows)
    assert result.total_s < 20
    assert load_german().shape == (1000, 22)


def test_demo_comparison_matches_fitting_the_learners_directly():
    """The side-by-side rows are SER-DT (factor_expl 0.97) and CART, depth 6, fit by hand on
    the stratified 70/30 split of seed 0; the explained tree is SER-DT's."""
    from xdt.cli._demo_job import load_german, run_demo
    from xdt.metrics import tree_sizes

    lines: list[str] = []
    result = run_demo(show=0, echo=lines.append)
    frame = load_german()
    assert [c.learner for c in result.comparison] == ["ser-dt", "cart"]
    for summary, params in zip(result.comparison, [{"factor_expl": 0.97, "max_depth": 6},
                                                   {"max_depth": 6}], strict=True):
        est, X, train, test = _direct_fit(frame, "class", summary.learner, **params)
        y = frame["class"]
        accuracy = est.score(X.loc[test], y[test])
        sizes = tree_sizes(est)
        assert summary.test_accuracy == pytest.approx(accuracy)
        assert summary.train_accuracy == pytest.approx(est.score(X.loc[train], y[train]))
        assert (summary.depth_wc, summary.expl_wc) == (sizes.depth_wc, sizes.expl_wc)
        assert summary.depth_avg == pytest.approx(sizes.depth_avg)
        assert summary.expl_avg == pytest.approx(sizes.expl_avg)
        assert summary.leaves == est.tree_.n_leaves
        printed = [line.split()[-6:] for line in lines
                   if line.startswith(f"  {summary.label}  ")]
        assert printed == [[f"{accuracy:.3f}", str(sizes.depth_wc), f"{sizes.depth_avg:.2f}",
                            str(sizes.expl_wc), f"{sizes.expl_avg:.2f}",
                            str(est.tree_.n_leaves)]]
        if summary.learner == "ser-dt":  # the explained tree
            assert result.n_nodes == est.tree_.n_nodes
            assert result.test_accuracy == pytest.approx(accuracy)
            paths = est.apply(X.loc[sorted(test)])
            assert [r.path_length for r in result.rows] == \
                [len(est.tree_.paths[p]) for p in paths]


# ---------------------------------------------------------------------- version, help
def test_version_and_help():
    assert run("--version").stdout.strip() == f"xdt {xdt.__version__}"
    top = run("--help")
    assert top.exit_code == 0
    for name in ("fit", "explain", "demo"):
        assert f"  {name} " in top.stdout
        sub = run(name, "--help")
        assert sub.exit_code == 0 and "Example" in sub.stdout and f"xdt {name}" in sub.stdout


def test_fit_and_demo_help_explain_the_learners_and_every_option():
    import click

    flat = " ".join(run("fit", "--help").stdout.split())
    for fragment in ("cart CART: greedy Gini", "ser-dt SER-DT: short explainable rules",
                     "NeurIPS 2022", "sklearn scikit-learn's DecisionTreeClassifier",
                     "--factor-expl F ser-dt only: in [0, 1]", "or none (no limit)",
                     "without it nothing is written", "json: one JSON object"):
        assert fragment in flat, fragment
    assert "SER-DT" in " ".join(run("demo", "--help").stdout.split())
    for name in ("fit", "demo"):
        command = main.commands[name]
        for param in command.params:
            if isinstance(param, click.Option):
                assert param.help and "\n" not in param.help, (name, param.name)


def test_the_main_module_is_the_command(monkeypatch, capsys):
    """``python -m xdt`` runs ``xdt/__main__.py``: here in this process, as a new one would."""
    import runpy

    monkeypatch.setattr(sys, "argv", ["xdt", "--version"])
    with pytest.raises(SystemExit) as done:
        runpy.run_module("xdt", run_name="__main__")
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"xdt {xdt.__version__}"


def test_python_dash_m_xdt_version():
    proc = subprocess.run([sys.executable, "-m", "xdt", "--version"], capture_output=True,
                          text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"xdt {xdt.__version__}"


# ---------------------------------------------------------------------- helpers
@pytest.mark.parametrize(("spec", "expected"), [
    ("2:5", [2, 3, 4]), (":2", [0, 1]), ("8:", [8, 9]), (":", list(range(10))),
    ("-2:", [8, 9]), ("3", [3]), ("-1", [9]), ("5:100", [5, 6, 7, 8, 9]),
])
def test_parse_rows(spec, expected):
    assert list(parse_rows(spec, 10)) == expected


@pytest.mark.parametrize("spec", ["a:b", "1:2:3", "", "10", "1.5:", "7:3", "20:25"])
def test_parse_rows_rejects(spec):
    import click

    with pytest.raises(click.BadParameter):
        parse_rows(spec, 10)


def test_text_helpers():
    rule = "IF a = 1 AND b = 2 AND c = 3 AND d = 4 AND e = 5 THEN yes"
    assert wrap_rule(rule, 30) == ["IF a = 1 AND b = 2 AND", "c = 3 AND d = 4 AND",
                                   "e = 5 THEN yes"]
    assert wrap_rule(rule, 30, max_lines=2) == ["IF a = 1 AND b = 2 AND",
                                                "c = 3 AND ... (+2 more)"]
    packed = pack_tokens([f"{{f{i}}}" for i in range(30)], 30, max_lines=2, indent=2)
    assert len(packed) == 2 and packed[-1].endswith("more)")
    assert len(packed[0]) <= 30 and len(packed[1]) <= 28


# ---------------------------------------------------------------------- xdt crosscheck
@pytest.fixture
def zhou_points(tmp_path: Path) -> Path:
    csv = tmp_path / "points.csv"
    pd.DataFrame({"label": ["cross", "circle", "cross"], "x": [0.9, 0.64, 0.1],
                  "y": [0.2, 0.73, 0.95]}).to_csv(csv, index=False)
    return csv


def test_crosscheck_text_and_json(zhou, zhou_points):
    result = run("crosscheck", str(zhou), "--data", str(zhou_points))
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "path engine vs SAT engine (cadical195), unrestricted explanations, 3 rows" in out
    assert f"model: {zhou}: decision tree, 2 features" in out
    for name in ("path's AXp is an AXp for sat", "all AXps: same sets",
                 "all CXps: same sets", "path redundancy: same answer"):
        assert any(line.strip().startswith(name) and line.endswith("3/3")
                   for line in out.splitlines()), name
    assert "OK: the engines agree on every check of every row" in out

    report = json.loads(run("crosscheck", str(zhou), "--data", str(zhou_points), "--rows",
                            "1:", "--format", "json", "--path-restricted").stdout)
    assert report["ok"] is True and report["rows"] == 2 and report["path_restricted"]
    assert all(c["agree"] == c["checked"] == 2 for c in report["checks"].values())

    result = run("crosscheck", str(zhou), "--data", str(zhou_points), "--no-enumerate",
                 "--solver", "glucose4")
    assert result.exit_code == 0 and "skipped (--no-enumerate)" in result.stdout
    assert "(glucose4)" in result.stdout


def test_crosscheck_exit_code_1_on_disagreement(zhou, zhou_points, monkeypatch):
    from xdt.explain._explainer import Explainer, ExplanationList

    original = Explainer.all_cxps

    def lossy(self, *args, **kwargs):  # the SAT engine "forgets" its CXps
        found = original(self, *args, **kwargs)
        return ExplanationList(found[1:]) if self.engine == "sat" else found

    monkeypatch.setattr(Explainer, "all_cxps", lossy)
    result = run("crosscheck", str(zhou), "--data", str(zhou_points))
    assert result.exit_code == 1, result.output
    assert "3 DISAGREEMENTS:" in result.stdout
    assert "row 0: all CXps: same sets" in result.stdout
    report = json.loads(run("crosscheck", str(zhou), "--data", str(zhou_points),
                            "--format", "json").stdout)
    assert report["ok"] is False and report["checks"]["all_cxps"]["agree"] == 0


def test_crosscheck_fitted_model_progress_and_quiet(table, tmp_path, monkeypatch):
    import xdt.cli

    csv, _ = table
    model = tmp_path / "model.json"
    assert run("fit", str(csv), "-t", "label", "-o", str(model)).exit_code == 0
    logged = run("crosscheck", str(model), "--data", str(csv), "--rows", ":30")
    assert logged.exit_code == 0 and logged.stderr == ""  # stderr to a file: no bar
    monkeypatch.setattr(xdt.cli._common, "stderr_is_terminal", lambda: True)
    loud = run("crosscheck", str(model), "--data", str(csv), "--rows", ":30")
    assert loud.exit_code == 0, loud.output
    assert "30 rows" in loud.stdout and "crosschecking" in loud.stderr
    quiet = run("crosscheck", str(model), "--data", str(csv), "--rows", ":30", "-q")
    assert quiet.exit_code == 0 and quiet.stderr == ""


def test_crosscheck_errors(zhou, zhou_points, tmp_path):
    assert_clean_failure(run("crosscheck", str(zhou), "--data", str(zhou_points),
                             "--solver", "nosuchsolver"), "unknown SAT solver")
    assert_clean_failure(run("crosscheck", str(zhou), "--data", str(tmp_path / "no.csv")),
                         "no data file")
    bad = tmp_path / "bad.csv"
    bad.write_text("x,y\n0.1,0.2\n0.5,\n")
    assert_clean_failure(run("crosscheck", str(zhou), "--data", str(bad)),
                         "row 1:", "missing value")
    assert run("crosscheck", str(zhou)).exit_code == 2  # --data is required


# ---------------------------------------------------------------------- xdt encode
def test_encode_writes_dimacs_that_pysat_reads(zhou, tmp_path):
    from pysat.formula import CNF
    from pysat.solvers import Solver

    out = tmp_path / "q.cnf"
    result = run("encode", str(zhou), "--instance", '{"x": 0.9, "y": 0.2}', "-o", str(out))
    assert result.exit_code == 0, result.output
    assert f"wrote {out}: 4 variables, 4 clauses; prediction cross" in result.stdout
    assert "selectors: x=3 y=4" in result.stdout
    cnf = CNF(from_file=str(out))
    [line] = [c for c in cnf.comments if c.startswith("c selectors ")]
    sel = json.loads(line[len("c selectors "):])
    with Solver(name="cadical195", bootstrap_with=cnf.clauses) as solver:
        assert solver.solve(assumptions=[sel["x"], sel["y"]]) is False  # entails cross
        assert solver.solve(assumptions=[sel["x"]]) is False  # {x} is the AXp
        assert solver.solve(assumptions=[sel["y"]]) is True   # {y} is not

    piped = run("encode", str(zhou), "-i", '{"x": 0.1, "y": 0.95}', "--path-restricted",
                "-o", "-")
    assert piped.exit_code == 0, piped.output
    assert piped.stdout.startswith("c xdt-dimacs/1")
    assert 'c selectors {"y": 4}' in piped.stdout  # the path tests y only
    assert "path-restricted" in piped.stdout


def test_encode_errors(zhou, tmp_path):
    out = str(tmp_path / "q.cnf")
    assert_clean_failure(run("encode", str(zhou), "--instance", '{"x": 1}', "-o", out),
                         "no value for feature(s) ['y']")
    assert_clean_failure(run("encode", str(zhou), "--instance", "[1, 2]", "-o", out),
                         "must be a JSON object")
    assert run("encode", str(zhou), "-o", out).exit_code == 2  # --instance is required


def test_help_of_encode_and_crosscheck():
    top = run("--help").stdout
    for name in ("encode", "crosscheck"):
        assert f"  {name} " in top
        sub = run(name, "--help")
        assert sub.exit_code == 0 and "Example" in sub.stdout and f"xdt {name}" in sub.stdout
    assert "Exit code: 0 when the engines agree" in run("crosscheck", "--help").stdout


def test_explain_engines_agree_and_carry_checked_certificates(zhou, zhou_points):
    """Zhou's points (Izza et al., appendix A.3): AXps {x}, {x, y}, {y} with both engines."""
    for engine in ("path", "sat"):
        rows = jsonl(run("explain", str(zhou), "--data", str(zhou_points), "--engine", engine,
                         "--format", "jsonl", "-q"))
        assert [r["axp"]["features"] for r in rows] == [["x"], ["x", "y"], ["y"]]
        # the certificate of the first AXp: freeing x lets a circle through
        witness = rows[0]["axp"]["certificate"]["witnesses"]
        assert len(witness) == 1 and "x" in json.dumps(witness)


def test_explain_inflate_widens_the_axp(tmp_path):
    """colour in {red}: (x <= 3 -> yes, else no); colour in {green, blue}: (x <= 1 -> no,
    else yes). For (green, 5) the AXp is {colour, x}; by hand its widest form is
    colour in {green, blue} (blue goes the same way) and 1 < x (every x above 1 says yes
    once colour is not red)."""
    model = {
        "format": "xdt-model/1", "kind": "tree",
        "features": [{"name": "colour", "kind": "categorical",
                      "domain": ["red", "green", "blue"]},
                     {"name": "x", "kind": "ordinal"}],
        "classes": ["no", "yes"],
        "root": {"feature": "colour", "branches": [
            {"in": ["red"], "node": {"feature": "x", "threshold": 3,
                                     "left": {"class": "yes"}, "right": {"class": "no"}}},
            {"in": ["green", "blue"], "node": {"feature": "x", "threshold": 1,
                                               "left": {"class": "no"},
                                               "right": {"class": "yes"}}}]}}
    path = tmp_path / "m.json"
    path.write_text(json.dumps(model))
    for engine in ("path", "sat"):
        out = jsonl(run("explain", str(path), "--instance", '{"colour": "green", "x": 5}',
                        "--inflate", "--engine", engine, "--format", "jsonl"))
        axp = out[0]["axp"]
        assert axp["features"] == ["colour", "x"] and axp["inflated"] is True
        assert axp["literals"] == ["colour != red", "1 < x"]


def test_explain_unknown_solver(zhou):
    assert_clean_failure(run("explain", str(zhou), "--instance", '{"x": 0.9, "y": 0.2}',
                             "--engine", "sat", "--solver", "nosat"), "unknown SAT solver")


def test_explain_max_count_says_the_enumeration_was_cut(tmp_path):
    """izza-fig3 (Izza et al., Example 7): instance 1111 has exactly 2 AXps and 3 CXps."""
    model = tmp_path / "fig3.json"
    model.write_text(json.dumps(json.loads(
        (require_shared(CASES) / "izza-fig3-unrestricted.json").read_text())["model"]))
    x = '{"x1": 1, "x2": 1, "x3": 1, "x4": 1}'
    cut = jsonl(run("explain", str(model), "--instance", x, "--all-axps", "--all-cxps",
                    "--max-count", "1", "--format", "jsonl"))[0]
    assert len(cut["axps"]) == 1 and cut["axps_complete"] is False
    assert len(cut["cxps"]) == 1 and cut["cxps_complete"] is False
    full = jsonl(run("explain", str(model), "--instance", x, "--all-axps", "--all-cxps",
                     "--max-count", "3", "--format", "jsonl"))[0]
    assert len(full["axps"]) == 2 and full["axps_complete"] is True
    assert len(full["cxps"]) == 3 and full["cxps_complete"] is True
    text = run("explain", str(model), "--instance", x, "--all-axps", "--max-count", "1")
    assert "all AXps (1 listed; more exist; raise --max-count):" in text.output


def test_csv_text_na_is_a_category_and_empty_cells_are_missing(tmp_path):
    model = tmp_path / "m.json"
    model.write_text(json.dumps({
        "format": "xdt-model/1", "kind": "tree",
        "features": [{"name": "gain", "kind": "categorical", "domain": ["None", "High"]}],
        "classes": ["no", "yes"],
        "root": {"feature": "gain", "branches": [{"in": ["None"], "node": {"class": "no"}},
                                                 {"in": ["High"], "node": {"class": "yes"}}]}}))
    csv = tmp_path / "d.csv"
    csv.write_text("gain\nNone\nHigh\n")
    rows = jsonl(run("explain", str(model), "--data", str(csv), "--format", "jsonl"))
    assert [r["prediction"] for r in rows] == ["no", "yes"]
    csv.write_text("gain,other\nNone,1\n,2\n")
    assert_clean_failure(run("explain", str(model), "--data", str(csv)), "row 1:",
                         "missing value")


def test_help_lists_every_command_on_one_line():
    from xdt.cli import main as cli_main

    out = CliRunner().invoke(cli_main, ["--help"], terminal_width=80).output
    lines = out.split("Commands:\n", 1)[1].splitlines()
    listed = [ln.split()[0] for ln in lines if ln.startswith("  ") and not ln.startswith("   ")]
    assert listed == sorted(cli_main.commands)
    assert len([ln for ln in lines if ln.strip()]) == len(cli_main.commands)
