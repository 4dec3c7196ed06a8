"""Defects found by auditing the tree-ensemble importers and engines, one test each."""

from __future__ import annotations

import numpy as np
import pytest

import xdt

ZERO = float(np.float32(1e-35))  # LightGBM's kZeroThreshold


@pytest.mark.parametrize("labels", [(0, 1, 1), (0, 0, 1)])
def test_lightgbm_reads_values_within_1e35_of_zero_as_zero(labels):
    """LightGBM splits negatives from zero at -1e-35 (and zero from positives at 1e-35),
    and reads every |x| <= 1e-35 as 0.0 first: x = -1e-35 goes where 0.0 goes."""
    lgb = pytest.importorskip("lightgbm")
    X = np.repeat([[-1.0], [0.0], [1.0]], 30, axis=0)
    y = np.repeat(labels, 30)
    est = lgb.LGBMClassifier(n_estimators=2, num_leaves=2, min_child_samples=5,
                             verbose=-1).fit(X, y)
    rows = np.array([[-2e-35], [float(np.nextafter(-ZERO, -1.0))], [-ZERO], [-5e-36], [-0.0],
                     [0.0], [5e-36], [ZERO], [float(np.nextafter(ZERO, 1.0))], [2e-35]])
    model = xdt.from_lightgbm(est)
    assert model.predict(rows).tolist() == est.predict(rows).tolist()
    raw = est.predict(rows, raw_score=True)
    assert model.decision_function(rows).tolist() == raw.tolist()
    # -1e-35 and 1e-35 score as 0.0 does, -2e-35 as -1.0, 2e-35 as 1.0
    assert raw[[2, 7]].tolist() == [raw[5]] * 2
    assert raw[[0, 9]].tolist() == est.predict([[-1.0], [1.0]], raw_score=True).tolist()
    # every cell's representative value too (what verify=True samples through LightGBM)
    values = np.array([[model.cells[0].value(j)] for j in range(model.cells[0].n_cells)])
    assert model.decision_function(values).tolist() == est.predict(values,
                                                                   raw_score=True).tolist()


def _imported_models():
    """A forest, XGBoost and LightGBM model, each imported from a live object (so each has
    its library's ``predict`` as ``reference``), and rows to explain."""
    from sklearn.ensemble import RandomForestClassifier

    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    out = [xdt.from_sklearn(RandomForestClassifier(5, max_depth=3, random_state=0).fit(X, y),
                            feature_names=["a", "b", "c"])]
    xgb = pytest.importorskip("xgboost")
    out.append(xdt.from_xgboost(xgb.XGBClassifier(n_estimators=5, max_depth=2).fit(X, y),
                                ["a", "b", "c"]))
    lgb = pytest.importorskip("lightgbm")
    out.append(xdt.from_lightgbm(lgb.LGBMClassifier(n_estimators=5, num_leaves=4,
                                                    verbose=-1).fit(X, y), ["a", "b", "c"]))
    return out, X


@pytest.mark.parametrize("engine", ["box", "sat"])
def test_an_explainer_of_an_imported_ensemble_can_be_pickled(engine):
    import pickle

    models, X = _imported_models()
    for model in models:
        ex = xdt.Explainer(model, engine=engine)
        want = ex.axp(X[0], verify=True).rule
        other = pickle.loads(pickle.dumps(ex))
        # the library's own predict travels with the model and still re-checks certificates
        assert other.model.reference is not None
        assert other.model.reference(X).tolist() == model.reference(X).tolist()
        assert other.axp(X[0], verify=True).rule == want


@pytest.mark.parametrize("limits", [{"max_count": 0}, {"max_count": 1.5},
                                    {"time_limit": -1}, {"time_limit": float("nan")}])
def test_a_limit_out_of_range_is_an_xdt_error(limits):
    from xdt.errors import ParameterError
    from xdt.ir import DecisionTree, Feature, Leaf, ThresholdSplit
    from xdt.ir._ensemble import TreeEnsemble

    fs = [Feature("x", "ordinal")]
    tree = DecisionTree(fs, ["a", "b"], ThresholdSplit("x", 1.0, Leaf("a", (-1.0,)),
                                                       Leaf("b", (1.0,))))
    ex = xdt.Explainer(TreeEnsemble(fs, ["a", "b"], [tree], "margin"))
    with pytest.raises(ParameterError, match="positive"):
        ex.all_axps({"x": 0.0}, **limits)


def test_xdt_redundancy_on_an_ensemble_file_does_not_speak_of_a_dnf(tmp_path):
    from click.testing import CliRunner

    from xdt.cli import main
    from xdt.ir import DecisionTree, Feature, Leaf, ThresholdSplit
    from xdt.ir._ensemble import TreeEnsemble

    fs = [Feature("x", "ordinal")]
    tree = DecisionTree(fs, ["a", "b"], ThresholdSplit("x", 1.0, Leaf("a", (-1.0,)),
                                                       Leaf("b", (1.0,))))
    path = tmp_path / "m.json"
    xdt.save_model(TreeEnsemble(fs, ["a", "b"], [tree], "margin"), path)
    result = CliRunner().invoke(main, ["redundancy", str(path)])
    assert result.exit_code == 1
    assert "this model is a tree ensemble" in result.output
    assert "DNF" not in result.output


def test_box_points_and_an_ensembles_box_check_take_more_than_32_features():
    """numpy.meshgrid stops at 32 dimensions; the box engine's certificate check (every point
    of a small box) must not: a forest over 40 binary features."""
    from sklearn.ensemble import GradientBoostingClassifier

    from xdt.explain.checks._verify import box_points

    assert box_points([0b11, 0b1, 0b110]).tolist() == [[0, 0, 1], [0, 0, 2], [1, 0, 1],
                                                       [1, 0, 2]]
    assert box_points([0b1] * 40).tolist() == [[0] * 40]
    assert box_points([0b1, 0, 0b11]).shape == (0, 3)
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(200, 40)).astype(float)
    y = (X[:, 0] + X[:, 1] + X[:, 39] >= 2).astype(int)
    est = GradientBoostingClassifier(n_estimators=5, max_depth=3, random_state=0).fit(X, y)
    model = xdt.from_sklearn(est)
    x = X[0]
    box = xdt.Explainer(model, engine="box").axp(x, verify=True)
    sat = xdt.Explainer(model, engine="sat").axp(x, verify=True)
    assert box.features == sat.features


def _lightgbm_files(tmp_path):
    lgb = pytest.importorskip("lightgbm")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] > 0).astype(int)
    booster = lgb.LGBMClassifier(n_estimators=3, verbose=-1).fit(X, y).booster_
    text = tmp_path / "m.txt"
    booster.save_model(str(text))
    return booster, text


def test_a_cut_off_lightgbm_text_model_is_refused_not_a_process_abort(tmp_path):
    """LightGBM aborts the process (SIGABRT) loading a cut-off text model: xdt refuses it
    first. Run in a child process, so the abort cannot take the test run down."""
    import subprocess
    import sys

    _, text = _lightgbm_files(tmp_path)
    cut = tmp_path / "cut.txt"
    content = text.read_text()
    cut.write_text(content[:content.index("Tree=1") + 40])
    code = ("import sys, xdt\n"
            "from xdt.errors import UnsupportedModelError\n"
            "try:\n"
            f"    xdt.from_lightgbm({str(cut)!r})\n"
            "except UnsupportedModelError as e:\n"
            "    print(e)\n"
            "    sys.exit(3)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          errors="replace", timeout=120)
    assert done.returncode == 3, done.stderr[-500:]
    assert "end of trees" in done.stdout and "save_model" in done.stdout


@pytest.mark.parametrize("edit", ["threshold", "left_child"])
def test_a_malformed_lightgbm_dump_is_an_unsupported_model_error(tmp_path, edit):
    import json

    from xdt.errors import UnsupportedModelError

    booster, _ = _lightgbm_files(tmp_path)
    dump = booster.dump_model()
    root = dump["tree_info"][0]["tree_structure"]
    if edit == "threshold":
        root["threshold"] = "abc"
    else:
        del root["left_child"]
    path = tmp_path / "dump.json"
    path.write_text(json.dumps(dump))
    with pytest.raises(UnsupportedModelError, match="malformed LightGBM model dump"):
        xdt.from_lightgbm(path)


@pytest.mark.parametrize(("command", "kinds"), [
    ("explain", "a nested k-DNF, a decision list or a tree ensemble"),
    ("encode", "a nested k-DNF, a decision list or a voting tree ensemble")])
def test_the_help_of_commands_that_read_ensemble_files_names_them(command, kinds):
    from click.testing import CliRunner

    from xdt.cli import main

    result = CliRunner().invoke(main, [command, "--help"])
    assert result.exit_code == 0
    assert kinds in " ".join(result.output.split())
