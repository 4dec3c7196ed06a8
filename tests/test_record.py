"""One record: every output of explanations of rows -- ``xdt explain --format jsonl`` (row by
row and one instance, each model kind, the user's terms, ``--delta``/``--coverage``),
``xdt explain --batch`` (JSON lines and Parquet), ``xdt.run.explain_table`` in memory and
row by row, and the data of the HTML report -- writes records the JSON Schema
``encodings/xdt-explanation-1.schema.json`` accepts, built by the public
``xdt.run.explanation_record``; the fields the outputs share say the same."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pandas as pd
import pytest
from clitools import run

import xdt
import xdt.run as xb
from xdt.errors import ParameterError
from xdt.ir import DNF, Condition, DecisionTree, Feature, Leaf, ThresholdSplit
from xdt.ir._ensemble import TreeEnsemble
from xdt.report import build_report
from xdt.run._record import FIELDS, RECORD_FORMAT, explanation_record

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = json.loads((ROOT / "encodings" / "xdt-explanation-1.schema.json")
                    .read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
EXAMPLES = ROOT / "encodings" / "examples"


def valid(records: list[dict]) -> list[dict]:
    """``records``, each checked against the schema (and non-empty)."""
    assert records
    for r in records:
        VALIDATOR.validate(r)
        assert list(r)[:2] == ["format", "row"] and r["format"] == RECORD_FORMAT
        assert list(r) == sorted(r, key=FIELDS.index)  # the schema's order
    return records


def lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_the_schema_is_valid_and_lists_the_builders_fields_in_order():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["title"] == RECORD_FORMAT == "xdt-explanation/1"
    assert tuple(SCHEMA["properties"]) == FIELDS
    assert "explanation_record" in xb.__all__ and xb.explanation_record is explanation_record


@pytest.fixture(scope="module")
def german(tmp_path_factory):
    """German credit (200 rows), a CART tree of depth 4, its file and the rows' file."""
    from xdt.cli._demo_job import load_german
    from xdt.learn import CARTClassifier

    frame = load_german().iloc[:200]
    tree = CARTClassifier(max_depth=4).fit(frame.drop(columns="class"), frame["class"]).tree_
    folder = tmp_path_factory.mktemp("german")
    xdt.save_model(tree, folder / "model.json")
    frame.to_csv(folder / "data.csv", index=False)
    return tree, frame, folder


def test_cli_jsonl_batch_and_explain_table_write_one_schema(german, tmp_path):
    tree, frame, folder = german
    model, data = str(folder / "model.json"), str(folder / "data.csv")
    per_row = run("explain", model, "--data", data, "--rows", "0:12", "--all-cxps",
                  "--format", "jsonl")
    assert per_row.exit_code == 0, per_row.output
    per_row = valid(lines(per_row.stdout))
    batch = run("explain", model, "--data", data, "--rows", "0:12", "--batch", "-o",
                str(tmp_path / "b.jsonl"), "-q")
    assert batch.exit_code == 0, batch.output
    batch = valid(lines((tmp_path / "b.jsonl").read_text(encoding="utf-8")))
    parquet = run("explain", model, "--data", data, "--rows", "0:12", "--batch", "-o",
                  str(tmp_path / "pq"), "--output-format", "parquet", "--chunk-rows", "5",
                  "-q")
    assert parquet.exit_code == 0, parquet.output
    parts = sorted((tmp_path / "pq").glob("part-*.parquet"))
    assert valid(xb.read_outputs(parts).to_dict("records")) == batch
    in_memory = xb.explain_table(tree, frame.iloc[:12], progress=False)
    assert valid(in_memory.to_dict("records")) == batch
    # the fields both write say the same: the same AXp and the same (all) CXps, in order
    for one, other in zip(per_row, batch, strict=True):
        for key in ("format", "row", "prediction", "axp_size", "n_cxps"):
            assert one[key] == other[key], key
        assert one["axp"]["features"] == other["axp"]["features"]
        assert [c["features"] for c in one["cxps"]] == [c["features"] for c in other["cxps"]]
        assert {"kind", "rule", "certificate", "verified"} <= set(one["axp"])
        assert set(other["axp"]) == {"kind", "features"}


def test_explain_table_row_by_row_writes_the_per_row_records(german, tmp_path):
    tree, frame, folder = german
    options = {"all_cxps": True, "certificates": False}
    records = xb.explain_table(tree, frame.iloc[:5], engine="auto", options=options,
                               progress=False).to_dict("records")
    cli = run("explain", str(folder / "model.json"), "--data", str(folder / "data.csv"),
              "--rows", "0:5", "--all-cxps", "--format", "jsonl")
    expected = lines(cli.stdout)
    assert [r["axp"]["features"] for r in valid(records)] == [
        r["axp"]["features"] for r in expected]
    assert all(r["axp"]["certificate"] is None for r in records)
    written = xb.explain_table(tree, frame.iloc[:5], engine="sat", options=options,
                               output=tmp_path / "rows.jsonl", progress=False)
    assert written.rows == 5
    on_file = valid(lines((tmp_path / "rows.jsonl").read_text(encoding="utf-8")))
    assert [r["axp"]["features"] for r in on_file] == [r["axp"]["features"] for r in expected]


def _dnf() -> DNF:
    fs = [Feature("a", "binary"), Feature("b", "binary"), Feature("x", "ordinal")]
    return DNF(fs, ["no", "yes"], [[Condition("a", values=[1]), Condition("x", upto=2.5)],
                                   [Condition("b", values=[1])]])


def _ensemble() -> TreeEnsemble:
    fs = [Feature("x", "ordinal"), Feature("y", "ordinal")]

    def stump(f: str, v: float) -> DecisionTree:
        return DecisionTree(fs, ["a", "b"], ThresholdSplit(f, v, Leaf("a"), Leaf("b")))

    return TreeEnsemble(fs, ["a", "b"], [stump("x", 1), stump("y", 1), stump("x", 2)], "vote")


@pytest.mark.parametrize(("name", "instance", "extra", "keys"), [
    ("dnf", {"a": 1, "b": 0, "x": 1.0}, ["--all-axps", "--all-cxps"],
     {"true_terms", "axps", "axps_complete", "cxps_complete"}),
    ("list", {"age": 55, "smoker": 0, "sport": "none"}, ["--all-cxps"], {"firing_rule"}),
    ("ensemble", {"x": 3, "y": 3}, [], {"scores"}),
    ("tree", {"x": 0.9, "y": 0.2}, ["--exclude", "x"], {"no_axp", "exclude", "path"}),
    ("tree", {"x": 0.9, "y": 0.2}, ["--weights", '{"x": 2}', "--immutable", "y"],
     {"weights", "immutable"}),
])
def test_one_instance_of_every_model_kind_and_the_users_terms(name, instance, extra, keys,
                                                              tmp_path):
    model = {"dnf": _dnf, "ensemble": _ensemble}.get(name)
    path = tmp_path / "model.json"
    if model is not None:
        xdt.save_model(model(), path)
    else:
        path = EXAMPLES / ("risk-list.json" if name == "list" else "zhou.json")
    result = run("explain", str(path), "--instance", json.dumps(instance), "--format",
                 "jsonl", *extra)
    assert result.exit_code == 0, result.output
    (record,) = valid(lines(result.stdout))
    assert record["row"] is None and keys <= set(record)
    if "weights" in keys:
        assert "cost" in record["axp"] and "optimality" in record["axp"]


def test_delta_axp_and_coverage(german):
    _, frame, folder = german
    result = run("explain", str(folder / "model.json"), "--data", str(folder / "data.csv"),
                 "--rows", "0:3", "--delta", "0.9", "--coverage", "--format", "jsonl")
    assert result.exit_code == 0, result.output
    records = valid(lines(result.stdout))
    assert all({"delta_axp", "distribution"} <= set(r) for r in records)
    assert all("coverage" in r["axp"] for r in records)


def test_the_reports_data_holds_the_rows_records(german):
    tree, frame, _ = german
    page = build_report(tree, frame.iloc[:8])
    data = json.loads(re.search(r'<script type="application/json" id="xdt-data">(.*?)'
                                r"</script>", page, re.S).group(1))
    records = valid(data["records"])
    assert [r["row"] for r in records] == list(range(8))
    assert [r["label"] for r in records] == frame["class"].iloc[:8].tolist()
    ex = xdt.Explainer(tree)
    for r, x in zip(records, frame.iloc[:8].to_dict("records"), strict=True):
        assert r["axp"]["features"] == list(ex.axp(x).features)
        assert [c["features"] for c in r["cxps"]] == [list(c.features)
                                                      for c in ex.all_cxps(x)]
        assert r["axp"]["verified"] is True and r["axp"]["certificate"] is None
        assert r["path_redundant"] in (True, False)
    assert [r["n_cxps"] for r in records] == [len(v["c"]) for v in data["rows"]]


def test_the_builder():
    record = explanation_record(3, prediction="yes", axp=("a", "x"), cxps=[("a",), ("x",)],
                                path=["x", "a"])
    assert record == {"format": RECORD_FORMAT, "row": 3, "prediction": "yes",
                      "path": ["x", "a"], "axp": {"kind": "AXp", "features": ["a", "x"]},
                      "axp_size": 2, "cxps": [{"kind": "CXp", "features": ["a"]},
                                               {"kind": "CXp", "features": ["x"]}],
                      "n_cxps": 2}
    VALIDATOR.validate(record)
    assert explanation_record(None, axp=None)["axp_size"] is None
    with pytest.raises(ParameterError, match="'colour': not a field a record takes"):
        explanation_record(0, colour="red")
    with pytest.raises(ParameterError, match="feature names"):
        explanation_record(0, axp="x")
    assert not VALIDATOR.is_valid({**record, "colour": "red"})
    assert not VALIDATOR.is_valid({**record, "format": "xdt-explanation/0"})


def test_explain_table_refuses_options_that_do_not_go_together(german, tmp_path):
    tree, frame, _ = german
    with pytest.raises(ParameterError, match="options are for explaining row by row"):
        xb.explain_table(tree, frame, options={"all_axps": True}, progress=False)
    with pytest.raises(ParameterError, match="engine must be one of"):
        xb.explain_table(tree, frame, engine="fast", progress=False)
    with pytest.raises(ParameterError, match="on_row"):
        xb.explain_table(tree, frame, on_row=print, progress=False)
    with pytest.raises(ParameterError, match="npartitions"):
        xb.explain_table(tree, frame, npartitions=2, progress=False)
    assert list(pd.DataFrame(xb.explain_table(tree, frame.iloc[:0], engine="auto",
                                              progress=False)).columns) == ["format", "row"]


@pytest.mark.slow
def test_row_by_row_on_dask_writes_the_records_of_one_process(german, tmp_path):
    dd = pytest.importorskip("dask.dataframe")
    tree, frame, _ = german
    X = frame.drop(columns="class").iloc[:30]
    options = {"all_cxps": True, "certificates": False}
    expected = xb.explain_table(tree, X, engine="auto", options=options,
                                progress=False).to_dict("records")
    with xb.local_cluster(1) as client:
        summary = xb.explain_table(tree, dd.from_pandas(X, npartitions=2), client=client,
                                   output=tmp_path / "d", engine="auto", options=options)
    assert (summary.rows, summary.partitions) == (30, 2)
    assert valid(xb.read_outputs(summary.outputs).to_dict("records")) == valid(expected)


def test_the_record_modules_examples_run():
    import doctest

    from xdt.run import _record as record

    assert doctest.testmod(record).failed == 0


def test_the_columns_builder_gives_the_records_of_the_one_row_builder():
    rows, predictions = [4, "a", None], ["yes", "no", "yes"]
    axps = [("a", "x"), (), ("a", "x")]
    cxps = [[("a",), ("x",)], [], [("x",)]]
    many = xb.explanation_records(rows, predictions, axps, cxps)
    assert many == [explanation_record(r, prediction=p, axp=a, cxps=c)
                    for r, p, a, c in zip(rows, predictions, axps, cxps, strict=True)]
    assert many[0]["axp"] is many[2]["axp"]  # equal explanations are one object
    assert valid(many) and xb.explanation_records([1], ["no"]) == [
        explanation_record(1, prediction="no")]
