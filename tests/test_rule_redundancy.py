"""Rule redundancy of decision lists (xdt.metrics._rule_redundancy): hand-made lists whose
figures are worked out by hand, brute force over the whole cell space of random small lists,
the ``xdt redundancy`` command on saved lists and DNFs, and the error paths."""

from __future__ import annotations

import doctest
import itertools
import json

import numpy as np
import pandas as pd
import pytest
from clitools import assert_clean_failure, run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tiers import examples

import xdt
import xdt.metrics._rule_redundancy as rule_redundancy_module
from xdt.errors import (
    ConstraintViolationError,
    EngineNotAvailableError,
    MissingFeatureError,
    UnknownCategoryError,
)
from xdt.explain.queries._term_order import decision_list_weak_axp
from xdt.ir import DNF, DecisionTree, Feature, Leaf, ThresholdSplit
from xdt.ir._conditions import Condition
from xdt.ir._decision_list import DecisionList
from xdt.metrics import rule_redundancy_report
from xdt.metrics._rule_redundancy import as_decision_list


def eq(feature: str, *values) -> Condition:
    return Condition(feature, tuple(values))


def binary(names: str) -> list[Feature]:
    return [Feature(n, "binary") for n in names]


def grid(n: int) -> list[list[int]]:
    return [list(p) for p in itertools.product((0, 1), repeat=n)]


# ---------------------------------------------------------------------- worked by hand
def test_a_literal_no_point_needs_is_redundant():
    """IF a = 0 THEN no ELSE IF a = 1 AND b = 1 THEN yes ELSE yes: once a = 1 holds, every
    point is 'yes' whatever b, so b is redundant in rule 1 (half its literals), which is a
    weak AXp but no AXp; the AXp {a} needs nothing of rule 0 beyond the rule's own a."""
    dl = DecisionList(binary("ab"), ["no", "yes"],
                      [([eq("a", 0)], "no"), ([eq("a", 1), eq("b", 1)], "yes")], "yes")
    r = rule_redundancy_report(dl, [[1, 1], [0, 0], [0, 1], [1, 0]])
    first, *_ = r.rows
    assert (first.rule, first.rule_features, first.axp) == (1, ("a", "b"), ("a",))
    assert (first.redundant, first.redundant_literals, first.redundant_share) == (("b",), 1, 0.5)
    assert first.why_not_earlier == () and first.rule_is_weak_axp and not first.rule_is_axp
    assert [(row.rule, row.axp, row.rule_is_axp) for row in r.rows[1:]] == [
        (0, ("a",), True), (0, ("a",), True), (-1, ("a",), False)]
    assert (r.n_rows, r.n_rule_rows, r.n_default_rows) == (4, 3, 1)
    # shares over rule rows: 50%, 0%, 0%
    assert r.pct_mean == pytest.approx(50 / 3) and r.pct_median == 0.0 and r.pct_max == 50.0
    assert r.pct_rows_redundant == pytest.approx(100 / 3)
    assert r.pct_not_axp == pytest.approx(100 / 3) and r.pct_not_weak_axp == 0.0
    assert r.mean_literals == pytest.approx(4 / 3) and r.mean_axp == 1.0
    assert r.mean_why_not_earlier == 0.0 and r.mean_default_axp == 1.0
    by_rule = {x.rule: x for x in r.rules}
    assert [x.rule for x in r.rules] == [0, 1, -1]
    assert (by_rule[1].n_rows, by_rule[1].pct_mean, by_rule[1].n_not_axp) == (1, 50.0, 1)
    assert (by_rule[0].n_rows, by_rule[0].pct_max, by_rule[0].n_not_axp) == (2, 0.0, 0)
    assert by_rule[-1].label == "yes" and by_rule[-1].pct_mean is None


def test_why_not_earlier_features_are_needed_when_the_rule_is_no_weak_axp():
    """IF a = 1 THEN no ELSE IF b = 1 THEN yes ELSE no, at a = 0, b = 1: rule 1 alone lets
    a = 1 fire rule 0, so every AXp holds a; the AXp is {a, b}."""
    dl = DecisionList(binary("abc"), ["no", "yes"],
                      [([eq("a", 1)], "no"), ([eq("b", 1)], "yes")], "no")
    row = rule_redundancy_report(dl, [[0, 1, 1]]).rows[0]
    assert (row.rule, row.axp, row.why_not_earlier, row.redundant) == (1, ("a", "b"), ("a",), ())
    assert not row.rule_is_weak_axp and not row.rule_is_axp and row.redundant_share == 0.0


def test_a_rule_wholly_redundant_once_earlier_rules_are_kept_false():
    """IF c = 1 THEN no ELSE IF a = 1 AND b = 1 THEN yes ELSE yes, at (1, 1, 0): c = 0
    alone entails 'yes' (rule 1 or the default), so both literals of the firing rule are
    redundant, and the AXp is the why-not-earlier feature c alone."""
    dl = DecisionList(binary("abc"), ["no", "yes"],
                      [([eq("c", 1)], "no"), ([eq("a", 1), eq("b", 1)], "yes")], "yes")
    r = rule_redundancy_report(dl, [[1, 1, 0]])
    row = r.rows[0]
    assert (row.axp, row.redundant, row.why_not_earlier) == (("c",), ("a", "b"), ("c",))
    assert row.redundant_share == 1.0 and not row.rule_is_weak_axp
    assert (r.pct_mean, r.pct_not_axp, r.pct_not_weak_axp) == (100.0, 100.0, 100.0)


def test_literals_are_counted_and_two_on_one_feature_go_together():
    """IF 1 < x AND x <= 5 AND b = 1 THEN yes ELSE no, at x = 3, b = 1: both literals on x are
    needed (x may leave the interval either way) and b too: no redundancy, 3 literals."""
    dl = DecisionList([Feature("x", "ordinal"), Feature("b", "binary")], ["no", "yes"],
                      [([Condition("x", above=1), Condition("x", upto=5), eq("b", 1)], "yes")],
                      "no")
    row = rule_redundancy_report(dl, pd.DataFrame({"b": [1], "x": [3.0]})).rows[0]
    assert (row.n_literals, row.redundant_literals, row.rule_features) == (3, 0, ("x", "b"))
    assert row.rule_is_axp
    # with a second rule of the same class after it, b is no longer needed at b = 0 ... but
    # the first rule does not fire there; at b = 1 and x = 3 with "IF x <= 5 THEN yes" next,
    # the lower bound of rule 0 is redundant and goes with its feature: 2 of 3 literals
    dl2 = DecisionList(dl.features, dl.classes,
                       [([Condition("x", above=1), Condition("x", upto=5), eq("b", 1)], "yes"),
                        ([Condition("x", upto=5)], "yes")], "no")
    row = rule_redundancy_report(dl2, [[3.0, 1]]).rows[0]
    assert (row.axp, row.redundant, row.redundant_literals) == (("x",), ("b",), 1)


def test_a_dnf_is_read_as_the_list_of_its_terms():
    dnf = DNF(binary("abc"), [0, 1], [[eq("a", 1), eq("b", 1)], [eq("a", 1), eq("c", 1)]])
    dl = as_decision_list(dnf)
    assert dl.n_rules == 2 and dl.default == 0 and set(dl.rule_labels) == {1}
    r = rule_redundancy_report(dnf, grid(3))
    assert [row.prediction for row in r.rows] == dnf.predict(grid(3)).tolist()
    fired = [row for row in r.rows if row.rule >= 0]
    assert fired and all(row.rule_is_weak_axp and not row.why_not_earlier for row in fired)
    # at (1, 1, 1) the first term fires and is an AXp; at (1, 0, 1) the second does
    assert [(row.rule, row.axp) for row in r.rows if row.rule >= 0] == [
        (1, ("a", "c")), (0, ("a", "b")), (0, ("a", "b"))]
    assert r.n_default_rows == 5


def test_no_rows_and_duplicate_rows():
    dl = DecisionList(binary("ab"), ["no", "yes"], [([eq("a", 1)], "yes")], "no")
    empty = rule_redundancy_report(dl, pd.DataFrame({"a": [], "b": []}, dtype=int))
    assert (empty.n_rows, empty.pct_mean, empty.pct_not_axp, empty.rules) == (0, None, None, [])
    assert "n/a" in str(empty)
    same = rule_redundancy_report(dl, [[1, 0], [1, 1], [1, 0]])
    assert [row.row for row in same.rows] == [0, 1, 2]
    assert vars(same.rows[0]) | {"row": 2} == vars(same.rows[2])


def test_report_text_and_dict():
    dl = DecisionList(binary("ab"), ["no", "yes"],
                      [([eq("a", 0)], "no"), ([eq("a", 1), eq("b", 1)], "yes")], "yes")
    r = rule_redundancy_report(dl, grid(2))
    text = str(r)
    assert "redundant literals of the firing rule   mean 16.7%, median 0.0%, max 50.0%" in text
    assert "rows                                    4: 3 fire a rule, 1 the default" in text
    table = r.rules_table([str(rule) for rule in dl.rules()])
    assert table.splitlines()[0].split() == ["rule", "rows", "lits", "%red", "%max", "!AXp",
                                             "!weak", "|AXp|", "|WNE|"]
    assert "IF a = 1 AND b = 1 THEN class = yes" in table
    assert table.splitlines()[-1].split()[:6] == ["default", "1", "0", "-", "-", "-"]
    d = r.to_dict(per_row=True)
    json.dumps(d)
    assert d["n_rows"] == 4 and len(d["rows"]) == 4 and len(d["rules"]) == 3
    assert d["rows"][3]["redundant_share"] == 0.5


def test_docstring_example():
    assert doctest.testmod(rule_redundancy_module).failed == 0


# ---------------------------------------------------------------------- brute force
def brute_force_entails(dl: DecisionList, cells: list[int], fixed: set[int]) -> bool:
    """Whether every point agreeing with ``cells`` on ``fixed`` gets the same class."""
    ranges = [[c] if f in fixed else range(dl.cells[f].n_cells) for f, c in enumerate(cells)]
    points = np.array(list(itertools.product(*ranges)), dtype=np.int64)
    return bool(np.all(dl.predict_cells(points) == dl.predict_cells(np.array([cells]))[0]))


def is_axp(dl: DecisionList, cells: list[int], s: set[int]) -> bool:
    return brute_force_entails(dl, cells, s) and not any(
        brute_force_entails(dl, cells, s - {f}) for f in s)


@st.composite
def decision_lists(draw):
    n = draw(st.integers(2, 4))
    sizes = [draw(st.integers(2, 3)) for _ in range(n)]
    features = [Feature(f"f{i}", "categorical", tuple(f"v{j}" for j in range(k)))
                for i, k in enumerate(sizes)]
    classes = ["A", "B", "C"][:draw(st.integers(2, 3))]
    rules = []
    for _ in range(draw(st.integers(0, 5))):
        on = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=3, unique=True))
        term = []
        for f in on:
            allowed = draw(st.lists(st.integers(0, sizes[f] - 1), min_size=1,
                                    max_size=sizes[f] - 1, unique=True))
            term.append(Condition(f"f{f}", tuple(f"v{j}" for j in allowed)))
        rules.append((term, draw(st.sampled_from(classes))))
    return DecisionList(features, classes, rules, draw(st.sampled_from(classes)))


@settings(max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(decision_lists())
def test_every_row_of_random_lists_against_brute_force(dl):
    names = dl.features.names
    points = [list(p) for p in itertools.product(*[f.domain for f in dl.features])]
    report = rule_redundancy_report(dl, points)
    cells_of = dl.encode(points)
    firing = dl.firing_cells(cells_of)
    for row, cells in zip(report.rows, cells_of.tolist(), strict=True):
        idx = {names.index(n) for n in row.axp}
        own = {names.index(n) for n in row.rule_features}
        assert row.rule == firing[row.row]
        assert is_axp(dl, cells, idx), (dl, cells, row)
        assert idx <= set(decision_list_weak_axp(dl, cells))
        assert row.rule_is_weak_axp == brute_force_entails(dl, cells, own)
        assert row.rule_is_axp == is_axp(dl, cells, own)
        assert set(row.redundant) == set(row.rule_features) - set(row.axp)
        assert set(row.why_not_earlier) == set(row.axp) - set(row.rule_features)
        if row.rule_is_weak_axp:  # the rule's features are kept as long as possible
            assert idx <= own
        if row.rule >= 0:
            lits = dl.terms[row.rule].literals
            assert row.n_literals == len(lits)
            assert row.redundant_literals == sum(1 for lit in lits if lit.feature not in idx)
        else:
            assert row.rule_features == () and row.n_literals == 0
    rule_rows = [r for r in report.rows if r.rule >= 0]
    assert report.n_rule_rows == len(rule_rows)
    assert sum(r.n_rows for r in report.rules) == report.n_rows
    if rule_rows:
        assert report.pct_not_axp == pytest.approx(
            100 * sum(not r.rule_is_axp for r in rule_rows) / len(rule_rows))


# ---------------------------------------------------------------------- errors
def test_a_tree_is_refused_with_the_tree_metric_named():
    tree = DecisionTree([Feature("x", "ordinal")], ["a", "b"],
                        ThresholdSplit("x", 0.5, Leaf("a"), Leaf("b")))
    with pytest.raises(EngineNotAvailableError, match="redundancy_report"):
        rule_redundancy_report(tree, [[0.0]])
    with pytest.raises(EngineNotAvailableError, match="decision lists and DNFs"):
        rule_redundancy_report({"kind": "decision-list"}, [[0.0]])


def test_bad_rows_raise_instance_errors():
    dl = DecisionList([Feature("c", "categorical", ("r", "g")), Feature("b", "binary")],
                      ["no", "yes"], [([eq("c", "r")], "yes")], "no",
                      constraints=["NOT (c = g AND b = 1)"])
    with pytest.raises(UnknownCategoryError):
        rule_redundancy_report(dl, [["blue", 0]])
    with pytest.raises(MissingFeatureError):
        rule_redundancy_report(dl, pd.DataFrame({"c": ["r"]}))
    with pytest.raises(ConstraintViolationError):
        rule_redundancy_report(dl, [["g", 1]])
    assert rule_redundancy_report(dl, [["g", 0]]).rows[0].rule == -1


# ---------------------------------------------------------------------- the command
@pytest.fixture
def list_files(tmp_path):
    dl = DecisionList([Feature("a", "binary"), Feature("b", "binary"), Feature("c", "binary")],
                      ["no", "yes"],
                      [([eq("c", 1)], "no"), ([eq("a", 1), eq("b", 1)], "yes")], "yes",
                      target="y")
    model = tmp_path / "list.json"
    xdt.save_model(dl, model)
    data = tmp_path / "rows.csv"
    pd.DataFrame({"a": [1, 1, 0, 0], "b": [1, 1, 0, 1], "c": [0, 1, 0, 0],
                  "y": ["yes", "no", "no", "yes"]}).to_csv(data, index=False)
    return str(model), str(data)


def test_cli_prints_the_rule_redundancy_report(list_files):
    model, data = list_files
    result = run("redundancy", model, "--data", data, "--per-rule")
    assert result.exit_code == 0, result.output
    out = result.stdout.splitlines()
    assert out[0] == (f"{model}: decision list of 3 features (3 binary), 2 rules, "
                      "default yes")
    assert "accuracy                                75.0% (4 labelled rows)" in out
    assert "rows                                    4: 2 fire a rule, 2 the default" in out
    # row 0 fires rule 1 with both literals redundant (c = 0 suffices), row 1 rule 0 (an AXp)
    assert ("redundant literals of the firing rule   mean 50.0%, median 50.0%, max 100.0%"
            in out)
    assert "rows whose rule is not an AXp           50.0%" in out
    rule_lines = {line.split()[0]: line.split() for line in out[-3:]}
    assert rule_lines["1"][:8] == ["1", "1", "2", "100.0", "100.0", "1", "1", "1.00"]
    assert out[-2].endswith("IF a = 1 AND b = 1 THEN y = yes")


def test_cli_json_and_rows(list_files):
    model, data = list_files
    result = run("redundancy", model, "-d", data, "--rows", "1:3", "--format", "json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["kind"] == "decision list" and out["n_rows"] == 2
    assert [r["row"] for r in out["rows"]] == [1, 2]  # positions in the CSV
    assert out["rows"][0]["rule"] == 0 and out["rows"][0]["rule_is_axp"] is True
    assert out["rules"][0]["text"] == "IF c = 1 THEN y = no"
    assert out["rules"][-1]["text"] == "ELSE yes" and out["accuracy"] == 50.0


def test_cli_reads_a_dnf_with_data(tmp_path):
    dnf = DNF(binary("ab"), [0, 1], [[eq("a", 1), eq("b", 1)]])
    model = tmp_path / "dnf.json"
    xdt.save_model(dnf, model)
    data = tmp_path / "rows.csv"
    pd.DataFrame({"a": [1, 0], "b": [1, 1]}).to_csv(data, index=False)
    result = run("redundancy", str(model), "--data", str(data))
    assert result.exit_code == 0, result.output
    assert "(its terms as rules, in order)" in result.stdout
    assert "rows whose rule is not an AXp           0.0%" in result.stdout
    result = run("redundancy", str(model))
    assert result.exit_code == 1
    assert "decision trees" in result.stderr and "--data DATA.csv" in result.stderr


def test_cli_errors(list_files, tmp_path):
    model, data = list_files
    assert_clean_failure(run("redundancy", model), "decision list", "--data DATA.csv")
    assert_clean_failure(run("redundancy", model, "-d", data, "--per-path"), "--per-rule")
    bad = tmp_path / "bad.csv"
    pd.DataFrame({"a": [1, 2], "b": [1, 1], "c": [0, 0]}).to_csv(bad, index=False)
    assert_clean_failure(run("redundancy", model, "-d", str(bad)), "row 1")
    tree = tmp_path / "tree.json"
    xdt.save_model(DecisionTree([Feature("x", "ordinal")], ["a", "b"],
                                ThresholdSplit("x", 0.5, Leaf("a"), Leaf("b"))), tree)
    assert_clean_failure(run("redundancy", str(tree), "--per-rule"), "--per-path")


def test_cli_help_names_decision_lists():
    result = run("redundancy", "--help")
    assert result.exit_code == 0
    assert "decision list" in result.output and "--per-rule" in result.output
    assert "xdt redundancy rules.json --data test.csv --per-rule" in result.output
