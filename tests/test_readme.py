"""The README's Python tour runs and shows what it claims."""

import re
from pathlib import Path

import pytest
from mdblocks import blocks, transcript
from mdblocks import matches as _matches
from mdblocks import shell as _shell

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_tour_runs_and_values_match():
    block = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)[0]
    scope: dict = {}
    exec(block, scope)  # noqa: S102 - the README's own example
    ex, x = scope["ex"], scope["x"]
    assert ex.predict(x) == "yes"
    assert ex.axp(x).rule == "IF Outlook = overcast THEN play = yes"
    cxps = ex.all_cxps(x)
    assert [c.features for c in cxps] == [("Outlook",)]
    assert repr(cxps[0]) == "<CXp: CHANGE Outlook (now overcast; e.g. to rain) => play = no>"
    assert ex.path_features(x) == ("Humidity", "Outlook")
    assert ex.path_is_redundant(x) is True
    assert [a.features for a in ex.all_axps(x, path_restricted=True)] == [("Outlook",)]


def test_readme_sat_block_runs_and_values_match():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    scope: dict = {}
    exec(blocks[0], scope)  # noqa: S102 - the README's own example
    exec(blocks[1], scope)  # noqa: S102
    assert [a.features for a in scope["axps"]] == [("Outlook",)]
    assert scope["axps"].complete is True
    witness = scope["a"].certificate.witnesses["Outlook"]
    assert witness.label == "no" and witness.point["Outlook"] != "overcast"
    model = scope["model"]
    assert model.predict([witness.point])[0] == "no"


def test_readme_learner_block_runs_and_values_match(tmp_path, monkeypatch):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    (block,) = [b for b in blocks if "SERDTClassifier" in b]
    monkeypatch.chdir(tmp_path)
    scope: dict = {}
    exec("import xdt\n" + block, scope)  # noqa: S102 - the README's own example
    from xdt.metrics import TreeSizes

    assert scope["tree_sizes"](scope["ser"]) == TreeSizes(6, 4.697, 5, 3.292)
    assert scope["tree_sizes"](scope["cart"]) == TreeSizes(6, 5.347, 6, 4.744)
    rule = scope["xdt"].Explainer(scope["ser"].tree_).axp(scope["X"].iloc[0]).rule
    assert rule == ("IF checking_status = <0 AND duration <= 11.5 AND credit_history = "
                    "critical/other existing credit AND personal_status = male single "
                    "THEN class = good")
    assert (tmp_path / "serdt.json").exists()


def test_readme_dnf_block_runs_and_values_match():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    (block,) = [b for b in blocks if "NestedKDNFClassifier" in b]
    scope: dict = {}
    exec("import xdt\n" + block, scope)  # noqa: S102 - the README's own example
    f, xdt = scope["f"], scope["xdt"]
    assert xdt.Explainer(f).axp({"a": 0, "b": 1, "c": 1, "d": 0}).rule == \
        "IF a = 0 AND d = 0 THEN y = 0"
    assert [str(t) for t in f.complement().rules()] == [
        "a = 0 AND c = 0", "a = 0 AND d = 0", "b = 0 AND c = 0", "b = 0 AND d = 0"]
    assert scope["certificate_complexity"](f) == 2
    assert scope["max_induced_matching"](scope["literal_term_graph"](f))[0] == 2
    assert [str(t) for t in scope["est"].model_.rules()] == ["x0 = 1 AND x1 = 1",
                                                             "x2 = 1 AND x3 = 1"]


# ------------------------------------------------------------------ the whole tour, as written
def _tour() -> list[tuple[str, list[str] | None]]:
    """The README's commands in order: (command, expected output lines) for ``$ xdt`` lines
    of text blocks, (line, None) for the lines of sh blocks. Left out: ``pip install`` (the
    set-up the suite already stands on) and ``--scheduler`` (it needs a Dask cluster of the
    reader's own)."""
    steps: list[tuple[str, list[str] | None]] = []
    for block in blocks(README.read_text()):
        if block.lang == "sh":
            steps += [(line, None) for line in block.body.split("\n") if line.strip()]
        elif block.lang == "text":
            steps += transcript(block.body)
    return [(c.replace("pip install -e . && ", "").replace('pip install -e ".[test]" && ', ""),
             out) for c, out in steps
            if "--scheduler" not in c and not c.startswith("pip install")
            and "python -m pytest" not in c]


@pytest.mark.slow
def test_readme_command_line_tour_runs_as_written(tmp_path):
    """Every command of the README, in order, in an empty folder: the sh lines succeed, and
    each ``$ xdt ...`` line exits 0 and prints what the README shows."""
    steps = _tour()
    assert steps[0][0].startswith("xdt demo --write-examples tour")  # the files come first
    assert "xdt demo" in [c for c, _ in steps]                       # and the main job runs
    cwd = tmp_path
    for command, expected in steps:
        result = _shell(command, cwd)
        assert result.returncode == 0, f"{command!r} failed:\n{result.stdout}\n{result.stderr}"
        cwd = result.cwd
        if expected:
            problem = _matches(expected, result.stdout.splitlines())
            assert problem is None, f"{command!r} does not print what the README shows: " \
                                    f"{problem}\n--- it printed:\n{result.stdout}"
    assert (cwd / "model.json").exists() and (cwd / "query.cnf").exists()
    assert sum(1 for _ in open(cwd / "out.jsonl")) == 20_000


def test_readme_matcher_finds_what_is_missing():
    shown = ["a", "...", "c 0.12 s", "d"]
    assert _matches(shown, ["a", "b", "c 3.5 s", "d", "e"]) is None
    assert _matches(shown, ["x", "a", "c 1 s", "d"]) is not None      # must start with a
    assert _matches(shown, ["a", "c 1 s", "x", "d"]) is not None      # c, d consecutive
    assert _matches(["...", "b"], ["a", "b"]) is None


def _python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


def test_readme_sklearn_block_runs_and_predicts_like_sklearn(tmp_path, monkeypatch):
    (block,) = [b for b in _python_blocks() if "DecisionTreeClassifier" in b]
    monkeypatch.chdir(tmp_path)
    scope: dict = {}
    exec("import xdt\n" + block, scope)  # noqa: S102 - the README's own example
    model, est, enc, X = scope["model"], scope["est"], scope["enc"], scope["X"]
    assert (model.predict(X) == est.predict(enc.transform(X))).all()
    assert "purpose" in model.features.names  # tests on the original columns, not indicators
    assert scope["xdt"].load_model("model.json").predict(X).tolist() == model.predict(X).tolist()


def test_readme_cluster_block_runs_and_values_match(tmp_path, monkeypatch):
    from xdt.cli._demo_job import write_examples

    (block,) = [b for b in _python_blocks() if "SupervisedClusters" in b]
    write_examples(tmp_path)
    monkeypatch.chdir(tmp_path)
    scope: dict = {}
    exec(block, scope)  # noqa: S102 - the README's own example
    sc, X, y = scope["sc"], scope["X"], scope["y"]
    assert str(sc.clusters_[0]) == ("#1 Sex = female: precision 0.742, recall 0.681, "
                                    "F-beta 0.710, size 314")
    assert round(sc.stability(X, y, n_samples=20, random_state=0), 3) == 0.81
    assert sc.predict(X.iloc[:5]).tolist() == [-1, 0, 0, 0, -1]
    assert list(sc.to_frame().columns)[:2] == ["rank", "rule"]


def test_write_examples_refuses_to_overwrite(tmp_path):
    from xdt.cli._demo_job import write_examples
    from xdt.errors import OutputError

    (tmp_path / "row.json").write_text("{}")
    with pytest.raises(OutputError, match=r"holds row\.json.*--force"):
        write_examples(tmp_path)
    assert (tmp_path / "row.json").read_text() == "{}" and not (tmp_path / "big.csv").exists()
    written = write_examples(tmp_path, force=True)
    assert [p.name for p in written] == ["german.csv", "titanic.csv", "reads.json", "row.json",
                                         "big.csv"]
    assert sum(1 for _ in open(tmp_path / "big.csv")) == 20_001


def test_readme_import_block_runs_as_written(tmp_path):
    """The README's ``xdt import`` block, as written, on an XGBoost and a LightGBM model of
    three features fitted here (the files it names): both commands succeed, and each writes a
    model that predicts as its library does, with the names and classes the block gives."""
    lgb = pytest.importorskip("lightgbm")
    xgb = pytest.importorskip("xgboost")
    import numpy as np

    import xdt

    [block] = [b for b in blocks(README.read_text()) if b.lang == "bash"]
    lines = [line for line in block.body.splitlines() if line.strip()]
    assert [line.split()[:4] for line in lines] == [
        ["xdt", "import", "xgb-model.json", "--from"], ["xdt", "import", "lgbm-model.txt",
                                                         "--from"]]
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
    xgb_model = xgb.XGBClassifier(n_estimators=5, max_depth=2).fit(X, y)
    xgb_model.save_model(tmp_path / "xgb-model.json")
    lgb_model = lgb.LGBMClassifier(n_estimators=5, num_leaves=4, verbose=-1).fit(X, y)
    lgb_model.booster_.save_model(tmp_path / "lgbm-model.txt")
    (tmp_path / "names.txt").write_text("x\ny\nz\n")
    for line, library, names, classes in ((lines[0], xgb_model, ["a", "b", "c"], ["no", "yes"]),
                                          (lines[1], lgb_model, ["x", "y", "z"], [0, 1])):
        result = _shell(line, tmp_path)
        assert result.returncode == 0, f"{line!r} failed:\n{result.stdout}\n{result.stderr}"
        model = xdt.load_model(tmp_path / "model.json")
        assert list(model.features.names) == names and list(model.classes) == classes
        expected = np.asarray(classes, dtype=object)[library.predict(X).astype(int)]
        assert model.predict(X).tolist() == expected.tolist()


def test_readme_user_terms_block_runs_and_values_match():
    (block,) = [b for b in _python_blocks() if "smallest_cxp" in b]
    scope: dict = {}
    exec(block, scope)  # noqa: S102 - the README's own example
    ex, x, w = scope["ex"], scope["x"], scope["w"]
    banned = {"personal_status", "age", "foreign_worker"}
    assert not set(ex.axp(x, exclude=sorted(banned)).features) & banned
    assert (scope["best"].cost, scope["best"].optimality.lower_bound) == (7, 7)
    assert "checking_status" not in scope["best"].features
    assert ex.smallest_cxp(x, weights={"duration": 2}, immutable=["age"]).rule == (
        "CHANGE credit_history (now critical/other existing credit; e.g. to all paid) => "
        "class = bad")
    costs = [a.cost for a in ex.all_axps(x, weights=w, max_count=3)]
    assert costs == sorted(costs) and costs[0] == 7
    assert all(not {"age", "personal_status"} & set(c.features)
               for c in ex.all_cxps(x, immutable=["age", "personal_status"]))


def test_readme_decision_list_block_runs_and_values_match():
    from mdblocks import readme_block

    scope: dict = {}
    exec("import xdt\n" + readme_block("rule_redundancy_report(risk"), scope)  # noqa: S102
    risk, x, xdt = scope["risk"], scope["x"], scope["xdt"]
    # rule 3 (40 < age) fires; sport = running keeps rules 1 and 2 false
    assert risk.firing([x]).tolist() == [3]
    assert xdt.Explainer(risk).axp(x).rule == "IF 40 < age AND sport = running THEN risk = high"
    report = scope["report"]
    # 18 rows; the default decides 4 (age 18: smoker 0 running; age 30: smoker 0 running,
    # smoker 1 none, smoker 1 running). Of the 14 rule rows, the 5 climbing rows of rule 1
    # (all but age 18 with smoker 1, where rule 0 fires) need age or smoker to keep rule 0
    # false, and the 3 rows of rule 3 (age 45, not none with smoker 0, not climbing) need
    # sport to keep rule 1 false; rules 0 and 2 entail alone: 8 of 14 need why-not-earlier
    assert (report.n_rows, report.n_rule_rows, report.n_default_rows) == (18, 14, 4)
    assert round(report.pct_not_weak_axp, 1) == 57.1 == round(100 * 8 / 14, 1)
