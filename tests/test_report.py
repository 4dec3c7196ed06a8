"""The HTML audit report (xdt.report), the tree as SVG (xdt.report._svg), ``xdt report`` and
the Jupyter views (``_repr_html_``) of Explanation, ExplanationList and DecisionTree.

The values are checked against what is known independently: each row's path is walked here
from the tree's nodes and the row's values; the AXps and CXps are the Explainer's; the
importance counts are counted here from those AXps (and, for Quinlan's tennis rows, by
hand). The page is read back with regular expressions over the markup the report writes.
"""

from __future__ import annotations

import ast
import base64
import hashlib
import html
import json
import re
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest
from clitools import assert_clean_failure, run

import xdt
from xdt.errors import CertificateError, OutputError, ParameterError
from xdt.ir import (
    DNF,
    Branch,
    CategoricalSplit,
    Condition,
    DecisionTree,
    Feature,
    Leaf,
    ThresholdSplit,
)
from xdt.report import _html as report_html
from xdt.report import build_report, write_report
from xdt.report._svg import layout, tree_svg

ROOT = Path(__file__).resolve().parent.parent
TENNIS_MODEL = ROOT / "encodings" / "examples" / "playtennis.json"

# Quinlan's 14 PlayTennis rows (Machine Learning 1, 1986, Table 1); Temperature is not a
# feature of the model and is ignored
TENNIS_ROWS = """Outlook,Temperature,Humidity,Wind,play
sunny,hot,high,weak,no
sunny,hot,high,strong,no
overcast,hot,high,weak,yes
rain,mild,high,weak,yes
rain,cool,normal,weak,yes
rain,cool,normal,strong,no
overcast,cool,normal,strong,yes
sunny,mild,high,weak,no
sunny,cool,normal,weak,yes
rain,mild,normal,weak,yes
sunny,mild,normal,strong,yes
overcast,mild,high,strong,yes
overcast,hot,normal,weak,yes
rain,mild,high,strong,no
"""

# three classes; a threshold split, a three-way categorical split with a two-value branch,
# a second test of x below the first, and a binary feature
MULTI = DecisionTree(
    [Feature("x", "ordinal"), Feature("colour", "categorical", ("red", "green", "blue", "black")),
     Feature("b", "binary")],
    ["low", "mid", "high"],
    ThresholdSplit("x", 2.5,
                   CategoricalSplit("colour", (
                       Branch(("red",), Leaf("low")),
                       Branch(("green", "blue"), ThresholdSplit("x", 1.0, Leaf("mid"),
                                                                Leaf("high"))),
                       Branch(("black",), CategoricalSplit("b", (Branch((0,), Leaf("low")),
                                                                 Branch((1,), Leaf("high")))))
                   )),
                   Leaf("high")),
    target="level")
MULTI_ROWS = pd.DataFrame({
    "x": [0.5, 2.0, 0.7, 1.5, 2.4, 2.4, 9.0, 3.0],
    "colour": ["red", "green", "blue", "blue", "black", "black", "red", "green"],
    "b": [0, 1, 0, 1, 0, 1, 1, 0]})


@pytest.fixture
def tennis() -> DecisionTree:
    return xdt.load_model(TENNIS_MODEL)


@pytest.fixture
def tennis_csv(tmp_path: Path) -> Path:
    path = tmp_path / "tennis.csv"
    path.write_text(TENNIS_ROWS)
    return path


@pytest.fixture
def tennis_rows(tennis_csv: Path) -> pd.DataFrame:
    return pd.read_csv(tennis_csv, dtype=str)


# ---------------------------------------------------------------------- reading the page
def page_data(page: str) -> dict:
    found = re.search(r'<script type="application/json" id="xdt-data">(.*?)</script>', page,
                      re.S)
    assert found is not None
    return json.loads(found.group(1))


def table_rows(page: str) -> list[dict]:
    """Per row of the table: its attributes and the text of its cells by header."""
    table = re.search(r'<table class="rows" id="xdt-rows">(.*?)</table>', page, re.S).group(1)
    heads = [html.unescape(h) for h in re.findall(r"<th[^>]*>(.*?)</th>", table)]
    out = []
    for attrs, body in re.findall(r"<tr (data-i[^>]*)>(.*?)</tr>", table):
        cells = [html.unescape(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", body)]
        out.append({"row": int(re.search(r'data-row="(\d+)"', attrs).group(1)),
                    **dict(zip(heads, cells, strict=True))})
    return out


def marked(svg_text: str, kind: str, mark: str) -> list[int]:
    """Numbers of the nodes (kind "n") or edges ("e") whose class holds ``mark``."""
    return sorted(int(k) for cls, k in re.findall(
        rf'<g class="([^"]*)" id="xdt-{kind}(\d+)"', svg_text) if mark in cls.split())


# ---------------------------------------------------------------------- independent walks
def children(node) -> list:
    if isinstance(node, ThresholdSplit):
        return [node.left, node.right]
    if isinstance(node, CategoricalSplit):
        return [b.node for b in node.branches]
    return []


def preorder(tree: DecisionTree) -> dict[int, int]:
    """``id(node)`` -> the node's number in preorder, first branch first."""
    numbers: dict[int, int] = {}
    stack = [tree.root]
    while stack:
        node = stack.pop()
        numbers[id(node)] = len(numbers)
        stack.extend(reversed(children(node)))
    return numbers


def walk(tree: DecisionTree, row: dict) -> list[int]:
    """The numbers of the nodes ``row`` passes, from the tree's tests and its values."""
    numbers = preorder(tree)
    node = tree.root
    out = [numbers[id(node)]]
    while not isinstance(node, Leaf):
        value = row[node.feature]
        if isinstance(node, ThresholdSplit):
            node = node.left if float(value) <= node.threshold else node.right
        else:
            node = next(b.node for b in node.branches
                        if any(str(v) == str(value) for v in b.values))
        out.append(numbers[id(node)])
    return out


# ---------------------------------------------------------------------- the SVG picture
def test_layout_numbers_the_nodes_as_the_tree_and_places_them_tidily():
    nodes = layout(MULTI)
    numbers = preorder(MULTI)
    assert len(nodes) == MULTI.n_nodes == len(numbers) == 10
    # the leaves' numbers are those of the tree's paths (Path.node)
    assert [d.id for d in nodes if d.feature < 0] == [p.node for p in MULTI.paths]
    assert [(d.text, d.edge) for d in nodes] == [
        ("x", ""), ("colour", "<= 2.5"), ("low", "= red"), ("x", "in {green, blue}"),
        ("mid", "<= 1"), ("high", "> 1"), ("b", "= black"), ("low", "= 0"), ("high", "= 1"),
        ("high", "> 2.5")]
    by_depth: dict[int, list] = {}
    for d in nodes:
        by_depth.setdefault(d.depth, []).append(d)
        assert d.y == nodes[0].y + 78 * d.depth
        if d.children:  # a parent is centred over its first and last child
            first, last = nodes[d.children[0]], nodes[d.children[-1]]
            assert d.x == pytest.approx((first.x + last.x) / 2)
    for row in by_depth.values():  # no two boxes of one depth overlap, in preorder order
        for a, b in zip(row, row[1:], strict=False):
            assert a.x + a.width / 2 < b.x - b.width / 2


def test_svg_holds_every_node_and_edge_with_their_labels(tennis):
    picture = tree_svg(tennis)
    assert re.findall(r'id="xdt-n(\d+)"', picture) == ["0", "1", "2", "3", "4"]
    assert re.findall(r'id="xdt-e(\d+)" data-node="\d+" data-parent="(\d+)"', picture) == [
        ("1", "0"), ("2", "0"), ("3", "2"), ("4", "2")]
    names = tennis.features.names
    splits = re.findall(r'class="xdt-node xdt-split" id="xdt-n(\d+)" data-node="\d+" '
                        r'data-f="(\d+)"', picture)
    assert [(int(k), names[int(f)]) for k, f in splits] == [(0, "Humidity"), (2, "Outlook")]
    leaves = re.findall(r'id="xdt-n(\d+)" data-node="\d+" data-class="(\d+)"', picture)
    assert [(int(k), tennis.classes[int(c)]) for k, c in leaves] == [
        (1, "yes"), (3, "yes"), (4, "no")]
    for label in ("= normal", "= high", "= overcast", "in {rain, sunny}", "play = yes"):
        assert html.escape(label) in picture
    assert "http" not in picture  # inline SVG needs no namespace
    assert 'xmlns="http://www.w3.org/2000/svg"' in tree_svg(tennis, standalone=True)


def test_svg_of_a_multiclass_tree_colours_leaves_by_class():
    picture = tree_svg(MULTI)
    classes = re.findall(r'data-class="(\d+)"', picture)
    assert [MULTI.classes[int(c)] for c in classes] == ["low", "mid", "high", "low", "high",
                                                        "high"]
    fills = dict(re.findall(r'data-class="(\d+)" [^>]*><title>[^<]*</title><rect [^>]* '
                            r'fill="([^"]+)"', picture))
    assert len(set(fills.values())) == 3  # one colour per class
    assert html.escape("level = mid") in picture


def test_static_highlights_mark_the_path_axp_and_cxp_nodes(tennis):
    # row sunny/high: path 0 -> 2 -> 4, AXp {Humidity, Outlook}, CXps {Humidity}, {Outlook}
    picture = tree_svg(tennis, path=[0, 2, 4], axp=[0, 1], cxp=[1])
    assert marked(picture, "n", "on-path") == [0, 2, 4]
    assert marked(picture, "e", "on-path") == [2, 4]
    assert marked(picture, "n", "axp") == [0, 2]
    assert marked(picture, "e", "axp") == [2, 4]  # the path's edges out of AXp nodes
    assert marked(picture, "n", "cxp") == [2]  # the node testing Outlook


# ---------------------------------------------------------------------- the report's values
def test_highlighted_path_of_every_row_is_its_path_in_the_tree(tennis, tennis_rows):
    page = build_report(tennis, tennis_rows)
    data = page_data(page)
    records = tennis_rows.to_dict("records")
    assert [r["p"] for r in data["rows"]] == [walk(tennis, row) for row in records]
    assert {tuple(r["p"]) for r in data["rows"]} == {(0, 1), (0, 2, 3), (0, 2, 4)}
    # the picture as the page opens shows the first row's path (sunny, high: no)
    picture = re.search(r"<svg class=\"xdt-tree\".*?</svg>", page, re.S).group(0)
    assert marked(picture, "n", "on-path") == walk(tennis, records[0]) == [0, 2, 4]
    rows = {r["row"]: r for r in table_rows(page)}
    # the path humidity high, outlook overcast is redundant (overcast alone gives yes)
    assert [rows[k]["path redundant"] for k in range(14)] == [
        "yes" if walk(tennis, records[k]) == [0, 2, 3] else "no" for k in range(14)]
    assert [k for k in range(14) if rows[k]["path redundant"] == "yes"] == [2, 11]
    # the multi-class tree: every row's path, with a second test of x and the binary b
    data = page_data(build_report(MULTI, MULTI_ROWS))
    assert [r["p"] for r in data["rows"]] == [walk(MULTI, row)
                                               for row in MULTI_ROWS.to_dict("records")]
    assert data["rows"][5]["p"] == [0, 1, 6, 8]  # black, b = 1: high


def test_table_holds_the_explainers_axp_and_cxps(tennis, tennis_rows):
    page = build_report(tennis, tennis_rows)
    rows = table_rows(page)
    data = page_data(page)["rows"]
    assert [r["row"] for r in rows] == list(range(14))
    ex = xdt.Explainer(tennis)
    names = tennis.features.names
    for r, d, x in zip(rows, data, tennis_rows.to_dict("records"), strict=True):
        axp = ex.axp(x, verify=True)
        cxps = ex.all_cxps(x, verify=True)
        assert r["prediction"] == axp.prediction == d["pred"]
        assert r["label"] == x["play"]
        assert r["AXp"] == " AND ".join(axp.literals)
        assert int(r["|AXp|"]) == len(axp)
        assert r["CXps"] == " ".join("{" + ", ".join(c.features) + "}" for c in cxps)
        assert int(r["#CXps"]) == len(cxps)
        assert r["certificate checked"] == "yes"
        assert d["a"] == [names.index(f) for f in axp.features]
        assert d["c"] == [[names.index(f) for f in c.features] for c in cxps]
        assert d["axp"] == axp.rule and d["cx"] == [c.rule for c in cxps]
    # Quinlan's rows 0 and 3: sunny and rain with high humidity, both predicted no
    assert rows[0]["AXp"] == "Humidity = high AND Outlook = sunny"
    # each row's path as a rule (the tree tests Humidity, then for high humidity Outlook)
    for d, x in zip(data, tennis_rows.to_dict("records"), strict=True):
        if x["Humidity"] == "normal":
            assert (d["pr"], d["pn"]) == ("IF Humidity = normal THEN play = yes", 1)
        elif x["Outlook"] == "overcast":
            assert (d["pr"], d["pn"]) == ("IF Humidity = high AND Outlook = overcast THEN "
                                          "play = yes", 2)
        else:
            assert (d["pr"], d["pn"]) == ("IF Humidity = high AND Outlook != overcast THEN "
                                          "play = no", 2)  # {rain, sunny}
    assert rows[3]["prediction"] == "no" and rows[3]["label"] == "yes"
    assert "Accuracy on these rows (their labels): 85.7%" in page  # 12 of 14


def test_feature_importance_counts_the_rows_axps(tennis, tennis_rows):
    page = build_report(tennis, tennis_rows)
    bars = {tennis.features.names[int(f)]: int(c) for f, c in re.findall(
        r'class="xdt-bar" data-f="(\d+)" data-count="(\d+)"', page)}
    ex = xdt.Explainer(tennis)
    counted = Counter(f for x in tennis_rows.to_dict("records") for f in ex.axp(x).features)
    assert bars == {f: c for f, c in counted.items() if c}
    # by hand: 7 rows of normal humidity have AXp {Humidity}; the 2 overcast high ones
    # {Outlook}; the other 5 {Humidity, Outlook}
    assert bars == {"Humidity": 12, "Outlook": 7}
    assert "In no AXp: Wind." in page
    report = report_html.explain_rows(tennis, tennis_rows)
    assert report.importance == {"Humidity": 12, "Outlook": 7, "Wind": 0}


def test_redundancy_summary_is_the_metrics_report():
    # a redundant tree: y is tested on the right path, but both of its leaves say "a"
    tree = DecisionTree([Feature("x", "ordinal"), Feature("y", "ordinal")], ["a", "b"],
                        ThresholdSplit("x", 1.0, Leaf("b"),
                                       ThresholdSplit("y", 1.0, Leaf("a"),
                                                      ThresholdSplit("y", 2.0, Leaf("b"),
                                                                     Leaf("a")))))
    rows = pd.DataFrame({"x": [0.0, 2.0, 2.0, 2.0], "y": [0.0, 0.5, 1.5, 3.0]})
    report = report_html.explain_rows(tree, rows)
    expected = xdt.metrics.redundancy_report(tree, rows)
    assert report.redundancy.to_dict() == expected.to_dict()
    assert [r.path_redundant for r in report.rows] == [
        {p.path: p.redundant for p in expected.per_path}[leaf] for leaf in
        tree.leaf_paths(tree.encode(rows)).tolist()]
    page = build_report(tree, rows, report=report)
    assert f"{expected.pct_redundant:.1f}% ({expected.n_redundant} of {expected.n_paths})" \
        in page


def test_text_from_the_model_and_the_data_is_escaped(tmp_path):
    evil = "<script>alert(1)</script>"
    value = '"><img src=x onerror=alert(2)>'
    tree = DecisionTree([Feature(evil, "categorical", (value, "plain")),
                         Feature("x", "ordinal")], ["<b>yes</b>", "no & co"],
                        CategoricalSplit(evil, (Branch((value,), Leaf("<b>yes</b>")),
                                                Branch(("plain",), ThresholdSplit(
                                                    "x", 0.5, Leaf("no & co"),
                                                    Leaf("<b>yes</b>"))))),
                        target="</title><h1>")
    rows = pd.DataFrame({evil: [value, "plain", "plain"], "x": [0.0, 0.1, 0.9]})
    page = build_report(tree, rows, title="<i>t</i>", data_name="<u>d.csv</u>")
    for raw in (evil, value, "<b>yes</b>", "</title><h1>", "<i>t</i>", "<u>d.csv</u>",
                "no & co"):
        assert raw not in page
    assert html.escape(evil) in page and html.escape(value) in page
    assert page.count("<script") == 2  # the data and the report's own script, no other
    assert "<img" not in page
    data = page_data(page)  # JSON with <, >, & as \u escapes, read back exactly
    assert data["features"] == [evil, "x"]
    assert "\\u003cscript\\u003e" in page
    # the Jupyter views
    assert evil not in tree._repr_html_() and html.escape(evil) in tree._repr_html_()
    ex = xdt.Explainer(tree)
    x = {evil: value, "x": 0.0}
    for shown in (ex.axp(x)._repr_html_(), ex.all_cxps(x)._repr_html_()):
        assert value not in shown and "<b>yes</b>" not in shown
        assert html.escape(value) in shown or html.escape(evil) in shown


def test_the_page_loads_nothing_and_its_policy_allows_only_its_own_style_and_script(
        tennis, tennis_rows):
    page = build_report(tennis, tennis_rows)
    assert "http://" not in page and "https://" not in page
    for attr in re.findall(r'\b(?:src|href)\s*=\s*"([^"]*)"', page):
        assert attr.startswith("data:"), attr
    assert "@import" not in page and "url(" not in page
    csp = html.unescape(re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"',
                                  page).group(1))
    style = re.search(r"<style>(.*?)</style>", page, re.S).group(1)
    script = re.search(r"<script>(.*?)</script>", page, re.S).group(1)

    def digest(text: str) -> str:
        return base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()

    assert f"style-src 'sha256-{digest(style)}'" in csp
    assert f"script-src 'sha256-{digest(script)}'" in csp
    assert csp.startswith("default-src 'none'")
    assert " style=" not in page  # inline style attributes would be refused by the policy


def test_row_limit_and_selection_say_how_many_of_how_many(tennis):
    rows = pd.DataFrame({"Outlook": ["sunny", "rain", "overcast"] * 20,
                         "Humidity": ["high", "normal"] * 30, "Wind": ["weak"] * 60})
    page = build_report(tennis, rows, max_rows=10)
    assert [r["row"] for r in table_rows(page)] == list(range(10))
    assert "10 of 60 rows explained" in page
    assert "Only the first 10 of the 60 selected rows are explained" in page
    page = build_report(tennis, rows, rows=slice(20, 30), selection="20:30")
    assert [r["row"] for r in table_rows(page)] == list(range(20, 30))
    assert "10 of 60 rows explained" in page and "Only the first" not in page
    assert [r["row"] for r in table_rows(build_report(tennis, rows, rows=[-1, 5]))] == [59, 5]
    with pytest.raises(ParameterError, match="row 60 is out of range; the data has 60 rows"):
        build_report(tennis, rows, rows=[60])
    with pytest.raises(ParameterError, match="max_rows must be a positive integer"):
        build_report(tennis, rows, max_rows=0)
    with pytest.raises(ParameterError, match="target column 'label' is not in the data"):
        build_report(tennis, rows, target="label")


def test_cxps_beyond_max_cxps_are_announced():
    tree = xdt.load_model(ROOT / "encodings" / "examples" / "zhou.json")
    rows = pd.DataFrame({"x": [0.9, 0.1], "y": [0.2, 0.2]})
    full = report_html.explain_rows(tree, rows)
    assert [len(r.cxps) for r in full.rows] == [1, 2]  # known: x for the first; x, y
    cut = report_html.explain_rows(tree, rows, max_cxps=1)
    assert [len(r.cxps) for r in cut.rows] == [1, 1]
    assert not cut.rows[1].cxps.complete and cut.rows[1].cxps.stopped_by == "max_count"
    page = build_report(tree, rows, report=cut)
    assert table_rows(page)[1]["#CXps"] == "1+"
    assert page_data(page)["rows"][1]["more"].startswith("… more CXps exist")


def test_an_enumeration_stopped_before_any_cxp_does_not_say_there_is_none(tennis,
                                                                          monkeypatch):
    from xdt.explain import ExplanationList

    def stopped(self, x, **options):
        return ExplanationList([], complete=False, stopped_by="time_limit")

    monkeypatch.setattr(report_html.Explainer, "all_cxps", stopped)
    rows = pd.DataFrame({"Outlook": ["sunny"], "Humidity": ["high"], "Wind": ["weak"]})
    page = build_report(tennis, rows, time_limit=1.0)
    assert table_rows(page)[0]["CXps"] == "none found …(stopped by time_limit)"
    assert table_rows(page)[0]["#CXps"] == "0+"
    assert page_data(page)["rows"][0]["more"] == ("… the enumeration was stopped by its "
                                                  "time_limit: there may be more")


def test_a_failed_certificate_shows_as_not_checked(tennis, tennis_rows, monkeypatch):
    real = report_html.check_certificates

    def failing(model, explanations, *, rows=None):
        if 3 in (rows or []):
            raise CertificateError("row 3: the witness is predicted the explained class")
        return real(model, explanations, rows=rows)

    monkeypatch.setattr(report_html, "check_certificates", failing)
    report = report_html.explain_rows(tennis, tennis_rows)
    assert [r.checked for r in report.rows] == [k != 3 for k in range(14)]
    assert report.rows[3].check_error.startswith("row 3: the witness")
    page = build_report(tennis, tennis_rows, report=report)
    assert [r["certificate checked"] for r in table_rows(page)] == [
        "no (failed)" if k == 3 else "yes" for k in range(14)]
    assert "13 of 14 rows passed" in page


def test_a_decision_list_report_lists_its_rules_and_their_redundancy():
    # the risk list of encodings/examples on 5 rows: rules 1 and 3 fire on 3 rows, where
    # their AXps need a feature of an earlier rule (age or smoker for rule 1, sport for
    # rule 3): 3 of 5 rule rows are not even weak AXps; no literal is redundant
    risk = xdt.load_model(Path(__file__).resolve().parent.parent / "encodings" / "examples"
                          / "risk-list.json")
    rows = pd.DataFrame({"age": [45, 30, 18, 50, 25], "smoker": [0, 0, 1, 1, 0],
                         "sport": ["running", "none", "climbing", "none", "climbing"]})
    report = report_html.explain_rows(risk, rows)
    assert report.rule_redundancy.to_dict() == \
        xdt.metrics.rule_redundancy_report(risk, rows).to_dict() | {
            "cpu_seconds": report.rule_redundancy.cpu_seconds}
    page = build_report(risk, rows, report=report)
    assert "Redundancy of the firing rules" in page
    assert "<td>rows whose firing rule is not even a weak AXp</td><td>60.0%</td>" in page
    assert "<td>rows: a rule fires / the default decides</td><td>5 / 0</td>" in page
    assert "ELSE IF sport = climbing THEN risk = mid" in page
    assert [r["AXp"] for r in table_rows(page)][0] == "40 < age AND sport = running"


def test_dnf_and_ensemble_reports_summarise_the_model_in_text():
    rules = DNF([Feature("b", "binary"),
                 Feature("colour", "categorical", ("red", "green", "blue")),
                 Feature("x", "ordinal")], ["deny", "grant"],
                [[Condition("b", (1,)), Condition("colour", ("red", "blue"))],
                 [Condition("x", None, 2.5, 7)]], target="loan")
    rows = pd.DataFrame({"b": [1, 0, 0], "colour": ["red", "green", "blue"],
                         "x": [0.0, 3.0, 9.0]})
    page = build_report(rules, rows)
    assert '<svg class="xdt-tree"' not in page
    assert "predicts <b>grant</b> when one of its 2 terms holds" in page
    assert "defined for the paths of a decision tree" in page
    ex = xdt.Explainer(rules)
    table = table_rows(page)
    for r, x in zip(table, rows.to_dict("records"), strict=True):
        assert r["AXp"] == " AND ".join(ex.axp(x).literals)
        assert r["certificate checked"] == "yes"
    assert [r["prediction"] for r in table] == ["grant", "grant", "deny"]
    assert "path redundant" not in page

    from sklearn.ensemble import RandomForestClassifier

    X = pd.DataFrame({"u": [0, 1, 2, 3, 4, 5, 6, 7], "v": [1, 0, 1, 0, 1, 0, 1, 0]})
    forest = xdt.from_sklearn(RandomForestClassifier(n_estimators=3, max_depth=2,
                                                     random_state=0).fit(X, [0, 0, 0, 1, 1,
                                                                            1, 1, 0]))
    report = report_html.explain_rows(forest, X)
    assert report.engine == "box" and all(r.checked for r in report.rows)
    page = build_report(forest, X, report=report)
    assert '<svg class="xdt-tree"' not in page
    assert "A tree ensemble of 3 trees" in page
    assert [r["prediction"] for r in table_rows(page)] == [
        str(p) for p in forest.predict(X).tolist()]


def test_write_report_writes_the_page(tennis, tennis_rows, tmp_path):
    path = write_report(tennis, tennis_rows, tmp_path / "r.html", title="tennis")
    text = path.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and "Formal explanations: tennis" in text


def test_write_report_says_what_is_wrong_with_its_path_before_explaining(tennis, tennis_rows,
                                                                         tmp_path, monkeypatch):
    """A missing folder is an OutputError naming it, raised before any row is explained."""
    explained = []
    monkeypatch.setattr(report_html, "explain_rows",
                        lambda *a, **k: explained.append(1) or pytest.fail("explained"))
    with pytest.raises(OutputError, match="does not exist"):
        write_report(tennis, tennis_rows, tmp_path / "no" / "such" / "r.html")
    with pytest.raises(OutputError, match="it is a folder"):
        write_report(tennis, tennis_rows, tmp_path)
    assert explained == []


# ---------------------------------------------------------------------- Jupyter views
def test_repr_html_of_explanations_and_trees(tennis):
    ex = xdt.Explainer(tennis)
    x = {"Outlook": "sunny", "Humidity": "high", "Wind": "weak"}
    axp = ex.axp(x, verify=True)
    shown = axp._repr_html_()
    assert "<b>AXp</b> of the prediction <code>play = no</code>: 2 features, certificate " \
           "checked" in shown
    assert "<td>Humidity</td><td>high</td><td>Humidity = high</td>" in shown
    assert html.escape(axp.rule) in shown
    cxp = ex.cxp(x)
    assert f"<td>{cxp.features[0]}</td><td>{cxp.values[0]}</td>" \
           f"<td>{cxp.counterexample[cxp.features[0]]}</td>" in cxp._repr_html_()
    listed = ex.all_cxps(x)._repr_html_()
    assert "<b>2 CXps</b> (complete)" in listed
    assert listed.count("<li>") == 2
    cut = ex.all_cxps(x, max_count=1)._repr_html_()
    assert "<b>1 CXp</b> (stopped by max_count: more exist)" in cut
    picture = tennis._repr_html_()
    assert "5 nodes, 3 leaves, depth 2" in picture
    assert len(re.findall(r'class="xdt-node ', picture)) == 5
    assert len(re.findall(r'class="xdt-edge[ "]', picture)) == 4
    # two pictures in one notebook do not share element ids
    ids = re.findall(r' id="([^"]+)"', picture + tennis._repr_html_())
    assert len(ids) == len(set(ids)) == 18


def test_repr_html_of_a_large_tree_does_not_draw_it():
    node: object = Leaf("b")
    for k in range(600):  # a chain of 600 tests: 1201 nodes
        node = ThresholdSplit("x", float(600 - k), Leaf("a" if k % 2 else "b"), node)
    tree = DecisionTree([Feature("x", "ordinal")], ["a", "b"], node)
    shown = tree._repr_html_()
    assert "1201 nodes" in shown and "<svg" not in shown and "not drawn" in shown
    assert "<code>xdt report</code> draws it" in shown  # 1201 <= 5000
    assert len(layout(tree)) == 1201  # the layout itself has no depth limit
    for k in range(600, 2600):  # 5201 nodes: the report does not draw it either
        node = ThresholdSplit("x", float(-k), Leaf("a" if k % 2 else "b"), node)
    huge = DecisionTree([Feature("x", "ordinal")], ["a", "b"], node)
    shown = huge._repr_html_()
    assert "5201 nodes" in shown and "<svg" not in shown and "draws it" not in shown
    assert "lists each row's path" in shown


def test_the_svg_renderer_imports_no_engine_and_not_the_tree_module():
    """ir/tree.py -> report/svg.py is the only edge between them: the renderer (and the
    package's __init__) import neither xdt.ir._tree nor xdt.explain at run time."""
    for name in ("_svg.py", "__init__.py"):
        module = ast.parse((ROOT / "xdt" / "report" / name).read_text())
        type_only = {id(n) for node in ast.walk(module) if isinstance(node, ast.If)
                     and ast.unparse(node.test) == "TYPE_CHECKING" for n in ast.walk(node)}
        imported = set()
        for node in ast.walk(module):
            if id(node) in type_only:
                continue
            if isinstance(node, ast.Import):
                imported |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                imported.add(node.module)
        xdt_modules = {m for m in imported if m and m.startswith("xdt")}
        assert xdt_modules <= {"xdt.ir._values", "xdt._lazy"}, (name, xdt_modules)


# ---------------------------------------------------------------------- xdt report


def test_cli_writes_the_report(tennis, tennis_csv, tmp_path):
    out = tmp_path / "report.html"
    result = run("report", str(TENNIS_MODEL), "--data", str(tennis_csv), "-o", str(out))
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == (f"wrote {out}: 14 of 14 rows explained (14 with every "
                                     "certificate checked)")
    page = out.read_text(encoding="utf-8")
    records = pd.read_csv(tennis_csv, dtype=str).to_dict("records")
    assert [r["p"] for r in page_data(page)["rows"]] == [walk(tennis, r) for r in records]
    assert "playtennis.json" in page and html.escape(str(tennis_csv)) in page
    result = run("report", str(TENNIS_MODEL), "-d", str(tennis_csv), "-o", str(out),
                 "--rows", "2:5", "--title", "three rows", "-q")
    assert result.exit_code == 0, result.output
    page = out.read_text(encoding="utf-8")
    assert [r["row"] for r in table_rows(page)] == [2, 3, 4]
    assert "3 of 14 rows explained" in page and "three rows" in page
    result = run("report", str(TENNIS_MODEL), "-d", str(tennis_csv), "-o", str(out),
                 "--max-rows", "4")
    assert result.exit_code == 0 and "4 of 14 rows explained" in result.stdout


def test_cli_report_checks_its_output_before_explaining(tennis_csv, tmp_path, monkeypatch):
    def explain_rows(*args, **kwargs):
        raise AssertionError("the rows were explained before the output was checked")

    monkeypatch.setattr(report_html, "explain_rows", explain_rows)
    for out, message in ((tmp_path / "no" / "r.html", "folder"),
                         (tennis_csv, "it is the input file"),
                         (TENNIS_MODEL, "it is the input file")):
        assert_clean_failure(run("report", str(TENNIS_MODEL), "-d", str(tennis_csv),
                                 "-o", str(out)), f"cannot write {out}: {message}")


def test_cli_report_labels_missing_miscoded_or_of_a_feature(tennis, tennis_csv, tmp_path):
    out = tmp_path / "r.html"
    lines = tennis_csv.read_text().splitlines()
    # rows 1 and 5 without a label: left out of the accuracy, shown without one
    gaps = tmp_path / "gaps.csv"
    gaps.write_text("\n".join(line.rpartition(",")[0] + "," if i in (2, 6) else line
                              for i, line in enumerate(lines)) + "\n")
    result = run("report", str(TENNIS_MODEL), "-d", str(gaps), "-o", str(out))
    assert result.exit_code == 0, result.output
    page = out.read_text(encoding="utf-8")
    rows = page_data(page)["rows"]
    assert [r["label"] for r in rows if r["label"] is None] == [None, None]
    assert [r["r"] for r in rows if r["label"] is None] == [1, 5]
    # Quinlan's labels: the tree is wrong on rows 3 and 5 only; row 5 has no label now,
    # so 11 of the 12 labelled rows are right
    assert "(their labels (12 of the 14 rows have one)): 91.7%" in page
    assert ">%A accuracy on the explained rows</td><td>91.7%<" in page
    # labels coded otherwise (0/1 for no/yes): a warning, as xdt redundancy gives
    coded = tmp_path / "coded.csv"
    coded.write_text(tennis_csv.read_text().replace(",no\n", ",0\n").replace(",yes\n", ",1\n"))
    result = run("report", str(TENNIS_MODEL), "-d", str(coded), "-o", str(out))
    assert result.exit_code == 0, result.output
    assert "warning: no label of column 'play' is a class of the model (no, yes)" in \
        result.stderr
    # --target naming a feature: its values are read as the feature's, and warned about
    numeric = tmp_path / "numeric.csv"
    numeric.write_text("x,y,label\n0.2,0.1,cross\n0.9,0.9,circle\n")
    zhou = ROOT / "encodings" / "examples" / "zhou.json"
    result = run("report", str(zhou), "-d", str(numeric), "-o", str(out), "--target", "x")
    assert result.exit_code == 0, result.output
    assert "no label of column 'x' is a class of the model" in result.stderr
    result = run("redundancy", str(zhou), "-d", str(numeric), "--target", "x")
    assert result.exit_code == 0, result.output
    assert "no label of column 'x' is a class of the model" in result.stderr


def test_cli_report_ctrl_c_writes_nothing_and_says_so(tennis_csv, tmp_path, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(report_html, "explain_rows", interrupted)
    out = tmp_path / "r.html"
    out.write_text("an earlier report")
    result = run("report", str(TENNIS_MODEL), "-d", str(tennis_csv), "-o", str(out))
    assert result.exit_code == 130, result.output
    assert "Aborted!" not in result.output and "Traceback" not in result.output
    assert result.stderr.startswith(f"interrupted: no report written ({out} is as it was)")
    assert out.read_text() == "an earlier report"


def test_cli_report_help_has_an_example():
    result = run("report", "--help")
    assert result.exit_code == 0
    assert "xdt report model.json --data german.csv -o report.html" in result.output
    start = run("--help").output
    assert "xdt report model.json --data data.csv -o report.html" in start  # Start with:


@pytest.mark.parametrize("csv, fragments", [
    ("Outlook,Humidity\nsunny,high\n", ["the data has no column(s) ['Wind']"]),
    ("Outlook,Humidity,Wind\nsunny,high,weak\nfoggy,high,weak\n",
     ["row 1:", "'foggy'", "not in its domain"]),
    ("Outlook,Humidity,Wind\nsunny,high,weak\nrain,,weak\n",
     ["row 1:", "missing value"]),
    ("", ["the file is empty"]),
], ids=["missing column", "unknown category", "missing value", "empty file"])
def test_cli_report_bad_data_gives_clean_errors(tmp_path, csv, fragments):
    path = tmp_path / "bad.csv"
    path.write_text(csv)
    out = tmp_path / "r.html"
    result = run("report", str(TENNIS_MODEL), "--data", str(path), "-o", str(out))
    assert_clean_failure(result, *fragments)
    assert not out.exists()


def test_cli_report_bad_arguments_give_clean_errors(tennis_csv, tmp_path):
    out = str(tmp_path / "r.html")
    assert_clean_failure(run("report", str(TENNIS_MODEL), "-d", str(tmp_path / "no.csv"),
                             "-o", out), "no data file at")
    assert_clean_failure(run("report", str(tmp_path / "no.json"), "-d", str(tennis_csv),
                             "-o", out))
    assert_clean_failure(run("report", str(TENNIS_MODEL), "-d", str(tennis_csv), "-o", out,
                             "--rows", "5:2"), "'5:2' selects no rows; the data has 14 rows")
    assert_clean_failure(run("report", str(TENNIS_MODEL), "-d", str(tennis_csv), "-o", out,
                             "--rows", "x"), "is not a row slice")
    assert_clean_failure(run("report", str(TENNIS_MODEL), "-d", str(tennis_csv), "-o", out,
                             "--target", "label"), "target column 'label' is not in")
    assert_clean_failure(run("report", str(TENNIS_MODEL), "-d", str(tennis_csv), "-o", out,
                             "--engine", "box"), "--engine box explains tree ensembles")
    missing = tmp_path / "no" / "dir" / "r.html"
    assert_clean_failure(run("report", str(TENNIS_MODEL), "-d", str(tennis_csv),
                             "-o", str(missing)),
                         f"cannot write {missing}: folder '{missing.parent}' does not exist; "
                         "create it or choose another path")
    assert_clean_failure(run("report", str(TENNIS_MODEL), "-d", str(tennis_csv)),
                         "Missing option '--output'")
