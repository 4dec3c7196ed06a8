"""Tests of :func:`xdt.metrics.redundancy_report` and of ``xdt redundancy``: the Table 1
columns of Izza, Ignatiev & Marques-Silva, "On Explaining Decision Trees"."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from click.testing import CliRunner
from conftest import load_case

import xdt
from xdt.cli import main
from xdt.metrics import redundancy_report

# Reads tree (paper, appendix A.2), paths in depth-first order:
#   0: Length = long                                   -> skips   (1/2 of the space)
#   1: Length = short, Thread = new                    -> reads   (1/4)
#   2: Length = short, Thread = follow-up, Author = unknown -> skips (1/8), redundant
#   3: Length = short, Thread = follow-up, Author = known   -> reads (1/8), redundant
# Path 2's PI-explanation is {Author, Thread}, path 3's {Author, Length}: 1 of 3 literals
# redundant on each.


@pytest.mark.parametrize("name, n_paths, pct", [("restaurant-tree", 8, 25.0),
                                                ("reads-tree", 4, 50.0),
                                                ("zhou-thresholds", 3, 100 / 3)])
def test_redundant_paths_of_textbook_trees(name, n_paths, pct):
    tree = xdt.load_model(load_case(name)["model"])
    report = redundancy_report(tree)
    assert report.n_paths == n_paths
    assert report.pct_redundant == pytest.approx(pct)
    assert len(report.per_path) == n_paths
    assert report.depth == tree.depth and report.n_nodes == tree.n_nodes
    assert report.accuracy is None and report.pct_covered_data is None


def test_reads_tree_by_hand():
    tree = xdt.load_model(load_case("reads-tree")["model"])
    report = redundancy_report(tree)
    assert [p.redundant for p in report.per_path] == [False, False, True, True]
    # the 2 redundant paths cover 1/8 + 1/8 of the 2*2*2 = 8 points of the space
    assert report.pct_covered == pytest.approx(100 * 2 / 8)
    # one redundant literal of three on each redundant path
    assert report.pct_min == pytest.approx(100 / 3)
    assert report.pct_max == pytest.approx(100 / 3)
    assert report.pct_avg == pytest.approx(100 / 3)
    assert set(report.per_path[2].pi_explanation) == {"Author", "Thread"}
    assert set(report.per_path[3].pi_explanation) == {"Author", "Length"}
    d = report.to_dict()
    assert d["%R"] == 50.0 and d["#P"] == 4 and d["%C"] == pytest.approx(25.0)
    assert "%R" in str(report) and "50.0%" in str(report)


def test_zhou_tree_by_hand():
    """Ordinal features: no %C; the one redundant path (y <= 0.73, x > 0.64 -> cross) has
    PI-explanation {x}: 1 of 2 literals redundant."""
    report = redundancy_report(xdt.load_model(load_case("zhou-thresholds")["model"]))
    assert report.pct_covered is None
    assert report.pct_min == report.pct_max == report.pct_avg == pytest.approx(50.0)
    assert "n/a" in str(report)


def test_no_redundant_path():
    from xdt.ir import DecisionTree, Feature, Leaf, ThresholdSplit
    t = DecisionTree([Feature("x", "ordinal")], ["lo", "hi"],
                     ThresholdSplit("x", 0.5, Leaf("lo"), Leaf("hi")))
    r = redundancy_report(t)
    assert r.pct_redundant == 0.0 and r.pct_min is r.pct_max is r.pct_avg is None


READS_ROWS = pd.DataFrame({
    "Author": ["known", "unknown", "known", "known"],
    "Thread": ["new", "follow-up", "follow-up", "new"],
    "Length": ["long", "short", "short", "short"],
})
# paths 0, 2, 3, 1; predictions skips, skips, reads, reads
READS_LABELS = ["skips", "reads", "reads", "maybe"]  # right, wrong, right, not a class: wrong


def test_accuracy_and_data_coverage():
    tree = xdt.load_model(load_case("reads-tree")["model"])
    report = redundancy_report(tree, READS_ROWS, READS_LABELS)
    assert report.accuracy == pytest.approx(50.0)
    assert report.pct_covered_data == pytest.approx(50.0)  # rows 1 and 2
    assert report.n_rows == 4
    assert "%A   accuracy                     50.0% on the 4 given rows" in str(report)
    named = redundancy_report(tree, READS_ROWS, READS_LABELS, data="reads.csv")
    assert "50.0% on reads.csv (4 rows)" in str(named) and named.to_dict()["data"] == "reads.csv"
    only_rows = redundancy_report(tree, READS_ROWS)
    assert only_rows.accuracy is None and only_rows.pct_covered_data == pytest.approx(50.0)
    # a missing label (an empty CSV cell) is no wrong prediction: 2 right of the 3 labelled
    for missing in (None, float("nan"), pd.NA):
        gaps = redundancy_report(tree, READS_ROWS, ["skips", missing, "reads", "maybe"])
        assert gaps.accuracy == pytest.approx(100.0 * 2 / 3), missing
    unlabelled = redundancy_report(tree, READS_ROWS, [None] * 4)
    assert unlabelled.accuracy is None and unlabelled.pct_covered_data == pytest.approx(50.0)
    with pytest.raises(ValueError):
        redundancy_report(tree, None, READS_LABELS)
    with pytest.raises(ValueError):
        redundancy_report(tree, READS_ROWS, READS_LABELS[:2])


@pytest.fixture
def reads_files(tmp_path):
    model = tmp_path / "reads.json"
    xdt.save_model(xdt.load_model(load_case("reads-tree")["model"]), model)
    data = tmp_path / "rows.csv"
    READS_ROWS.assign(label=READS_LABELS).to_csv(data, index=False)
    return str(model), str(data)


def test_cli_redundancy(reads_files):
    model, data = reads_files
    result = CliRunner().invoke(main, ["redundancy", model])
    assert result.exit_code == 0, result.output
    assert "50.0% (2 of 4)" in result.output and "25.0%" in result.output
    assert "path 2" not in result.output

    result = CliRunner().invoke(main, ["redundancy", model, "--data", data, "--target", "label",
                                       "--per-path"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "path 0: not redundant" in out and "path 2: redundant (1 of 3 literals)" in out
    assert ("rule: IF Length = short AND Thread = follow-up AND Author = unknown THEN skips"
            in out)
    assert "PI-explanation: IF Thread = follow-up AND Author = unknown THEN skips" in out
    assert "PI-explanation: IF Length = short AND Author = known THEN reads" in out
    # the rows given, whatever they are: not called test accuracy
    assert f"%A   accuracy                     50.0% on {data} (4 rows)" in out.splitlines()
    assert "test accuracy" not in out


def test_cli_redundancy_json(reads_files):
    model, data = reads_files
    result = CliRunner().invoke(main, ["redundancy", model, "-d", data, "-t", "label",
                                       "--per-path", "--format", "json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["%R"] == 50.0 and out["%A"] == 50.0 and out["%C_data"] == 50.0
    assert (out["data"], out["n_rows"]) == (data, 4)
    assert [p["redundant"] for p in out["paths"]] == [False, False, True, True]
    assert out["paths"][0]["rule"] == out["paths"][0]["pi_rule"] == "IF Length = long THEN skips"


def test_cli_redundancy_errors(reads_files, tmp_path):
    model, data = reads_files
    result = CliRunner().invoke(main, ["redundancy", model, "--target", "label"])
    assert result.exit_code != 0 and "needs --data" in result.output
    result = CliRunner().invoke(main, ["redundancy", model, "-d", data, "-t", "nope"])
    assert result.exit_code != 0 and "'nope' is not in" in result.output
    result = CliRunner().invoke(main, ["redundancy", str(tmp_path / "missing.json")])
    assert result.exit_code == 1 and "Traceback" not in result.output
    result = CliRunner().invoke(main, ["redundancy", "--help"])
    assert result.exit_code == 0 and "xdt redundancy model.json" in result.output
