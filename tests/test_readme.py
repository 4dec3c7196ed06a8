"""The README's Python tour runs and shows what it claims."""

import re
from pathlib import Path

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
