"""xdt.run: chunked explanations on one process and on a Dask cluster give the same records
as the batch path-walker, row by row; Ctrl-C leaves only complete records."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import xdt
import xdt.run as xb
from xdt.cli import main
from xdt.errors import DataError, EngineNotAvailableError
from xdt.explain._explainer import Explainer
from xdt.run._records import _complete_lines

try:
    import dask.dataframe as dd
    import distributed
except ImportError:  # the test extra installs Dask; only a hand-made environment lacks it
    if os.environ.get("CI", "").lower() == "true":
        raise
    pytest.skip('needs pip install "xdt[dask]"', allow_module_level=True)


@pytest.fixture(scope="module")
def german():
    """The German credit rows (features only) and a CART tree of depth 6 on them."""
    from xdt.cli._demo_job import load_german
    from xdt.learn import CARTClassifier

    frame = load_german()
    X, y = frame.drop(columns="class"), frame["class"]
    return X, CARTClassifier(max_depth=6).fit(X, y).tree_


@pytest.fixture(scope="module")
def expected(german) -> list[dict]:
    """The records (schema xdt-explanation/1) of ``Explainer.explain_batch`` on every row,
    as JSON would give them."""
    X, tree = german
    frame = Explainer(tree).explain_batch(X)
    return [{"format": "xdt-explanation/1", "row": int(i), "prediction": r["prediction"],
             "axp": {"kind": "AXp", "features": list(r["axp"])}, "axp_size": r["axp_size"],
             "cxps": [{"kind": "CXp", "features": list(c)} for c in r["cxps"]],
             "n_cxps": r["n_cxps"]} for i, r in zip(X.index, frame.to_dict("records"),
                                                    strict=True)]


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                  host="127.0.0.1", dashboard_address=None) as cluster, \
            distributed.Client(cluster) as c:
        yield c


def records(paths) -> list[dict]:
    return xb.read_outputs(paths).to_dict("records")


def jsonl_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_explain_table_jsonl_and_frame_equal_explain_batch(german, expected, tmp_path):
    X, tree = german
    out = tmp_path / "out.jsonl"
    summary = xb.explain_table(tree, X, output=out, chunk_rows=300, progress=False)
    assert (summary.rows, summary.partitions, summary.outputs) == (1000, 4, [str(out)])
    as_dict = summary.to_dict()
    assert as_dict.pop("seconds") == summary.seconds >= 0
    assert as_dict == {"rows": 1000, "partitions": 4, "outputs": [str(out)], "skipped": 0,
                       "invalid_output": None}
    assert jsonl_lines(out) == expected
    frame = xb.explain_table(tree, X, chunk_rows=300, progress=False)
    assert frame.to_dict("records") == expected  # the same records, names in lists


def test_explain_table_parquet_one_file_per_chunk(german, expected, tmp_path):
    X, tree = german
    summary = xb.explain_table(tree, X.iloc[:500], output=tmp_path / "pq", fmt="parquet",
                               chunk_rows=200, progress=False)
    assert [Path(p).name for p in summary.outputs] == [
        "part-00000.parquet", "part-00001.parquet", "part-00002.parquet"]
    assert records(summary.outputs) == expected[:500]


@pytest.mark.slow
def test_explain_dask_equals_single_process(client, german, expected, tmp_path):
    X, tree = german
    data = dd.from_pandas(X, npartitions=4)
    summary = xb.explain_dask(tree, data, client=client, output=tmp_path / "dask")
    assert summary.rows == 1000 and summary.partitions == 4
    assert [Path(p).name for p in summary.outputs] == [f"part-{i:05d}.jsonl" for i in range(4)]
    assert records(summary.outputs) == expected
    # CSV files read by dask, renumbered over the files, Parquet out
    X.iloc[:600].to_csv(tmp_path / "a-0.csv", index=False)
    X.iloc[600:].to_csv(tmp_path / "a-1.csv", index=False)
    summary = xb.explain_dask(tree, str(tmp_path / "a-*.csv"), client=client,
                              output=tmp_path / "pq", fmt="parquet", npartitions=3)
    assert summary.rows == 1000 and len(summary.outputs) == 3
    assert records(summary.outputs) == expected


def test_local_cluster_of_one_worker_explains_as_one_process(german, expected, tmp_path):
    """xdt's own quiet cluster (the one ``--workers`` starts), the smallest there is: the
    quick tier's one Dask cluster."""
    X, tree = german
    with xb.local_cluster(1) as client:
        assert len(client.scheduler_info()["workers"]) == 1
        summary = xb.explain_dask(tree, dd.from_pandas(X.iloc[:60], npartitions=2),
                                  client=client, output=tmp_path / "one")
    assert client.status == "closed"
    assert (summary.rows, summary.partitions) == (60, 2)
    assert records(summary.outputs) == expected[:60]


@pytest.mark.slow
def test_cli_workers_writes_partitions_that_match(german, expected, tmp_path):
    X, tree = german
    xdt.save_model(tree, tmp_path / "model.json")
    X.to_csv(tmp_path / "data.csv", index=False)
    result = CliRunner().invoke(main, [
        "explain", str(tmp_path / "model.json"), "--data", str(tmp_path / "data.csv"),
        "--workers", "2", "--partitions", "3", "--output", str(tmp_path / "out"), "--quiet"])
    assert result.exit_code == 0, result.output
    files = sorted((tmp_path / "out").glob("part-*.jsonl"))
    assert len(files) == 3
    assert [r for f in files for r in jsonl_lines(f)] == expected


def test_cli_batch_writes_jsonl_and_keeps_per_row_mode(german, expected, tmp_path):
    X, tree = german
    xdt.save_model(tree, tmp_path / "model.json")
    X.to_csv(tmp_path / "data.csv", index=False)
    args = ["explain", str(tmp_path / "model.json"), "--data", str(tmp_path / "data.csv")]
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(main, args + ["--batch", "-o", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    assert jsonl_lines(out) == expected
    result = CliRunner().invoke(main, args + ["--batch", "-o", str(out), "--rows", "10:20",
                                              "-q", "--force"])
    assert result.exit_code == 0, result.output
    assert jsonl_lines(out) == expected[10:20]
    result = CliRunner().invoke(main, args + ["--rows", "0:2", "--format", "jsonl",
                                              "--all-cxps"])
    assert result.exit_code == 0, result.output
    per_row = [json.loads(line) for line in result.output.splitlines()]
    assert [r["row"] for r in per_row] == [0, 1] and "path" in per_row[0]
    for bad, message in ((["--batch"], "--output"), (["-o", str(out)], "--output"),
                         (["--batch", "-o", str(out), "--all-axps"], "--all-axps")):
        result = CliRunner().invoke(main, args + bad)
        assert result.exit_code == 2 and message in result.output
        assert "Traceback" not in result.output


def _interrupt_on_second_chunk(monkeypatch):
    real = Explainer.explain_batch
    calls = []

    def flaky(self, X, *args, **kwargs):
        calls.append(len(X))
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(self, X, *args, **kwargs)

    monkeypatch.setattr(Explainer, "explain_batch", flaky)


def test_interrupt_keeps_exactly_the_first_chunk(german, expected, tmp_path, monkeypatch):
    X, tree = german
    _interrupt_on_second_chunk(monkeypatch)
    out = tmp_path / "out.jsonl"
    with pytest.raises(xb.BatchInterrupted) as info:
        xb.explain_table(tree, X, output=out, chunk_rows=300, progress=False)
    assert isinstance(info.value, KeyboardInterrupt) and info.value.rows == 300
    text = out.read_text(encoding="utf-8")
    assert text.endswith("\n") and jsonl_lines(out) == expected[:300]


def test_cli_interrupt_prints_rows_written_without_traceback(german, expected, tmp_path,
                                                             monkeypatch):
    X, tree = german
    xdt.save_model(tree, tmp_path / "model.json")
    X.to_csv(tmp_path / "data.csv", index=False)
    _interrupt_on_second_chunk(monkeypatch)
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(main, [
        "explain", str(tmp_path / "model.json"), "--data", str(tmp_path / "data.csv"),
        "--batch", "--chunk-rows", "250", "-o", str(out), "-q"])
    assert result.exit_code == 130
    assert "interrupted: 250 rows written" in result.output
    assert result.exc_info is None or result.exc_info[0] is SystemExit
    assert jsonl_lines(out) == expected[:250]


def test_half_written_line_is_cut(tmp_path):
    out = tmp_path / "o.jsonl"
    out.write_bytes(b'{"row": 0}\n{"row": 1}\n{"row": 2, "pre')
    assert _complete_lines(out) == 2
    assert out.read_bytes() == b'{"row": 0}\n{"row": 1}\n'


def test_without_dask_the_error_says_how_to_install(german, tmp_path, monkeypatch):
    X, tree = german
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(EngineNotAvailableError, match=r'pip install "xdt\[dask\]"'):
        xb.explain_dask(tree, str(tmp_path / "x.csv"), output=tmp_path / "o")
    xdt.save_model(tree, tmp_path / "model.json")
    X.head(5).to_csv(tmp_path / "data.csv", index=False)
    result = CliRunner().invoke(main, [
        "explain", str(tmp_path / "model.json"), "--data", str(tmp_path / "data.csv"),
        "--workers", "2", "-o", str(tmp_path / "o")])
    assert result.exit_code == 1 and 'pip install "xdt[dask]"' in result.output


def test_bad_arguments(german, tmp_path):
    X, tree = german
    with pytest.raises(ValueError, match="fmt"):
        xb.explain_table(tree, X, output=tmp_path / "o", fmt="csv")
    with pytest.raises(ValueError, match="what"):
        xb.explain_table(tree, X, what=("nope",))
    with pytest.raises(ValueError, match="chunk_rows"):
        xb.explain_table(tree, X, chunk_rows=0)
    assert list(xb.explain_table(tree, X.iloc[:0], progress=False).columns) == [
        "format", "row", "prediction", "axp", "axp_size", "cxps", "n_cxps"]


@pytest.mark.slow
def test_bad_row_is_named(german, tmp_path, client):
    X, tree = german
    bad = X.iloc[:20].copy()
    bad.loc[13, "purpose"] = "spaceship"
    with pytest.raises(DataError, match="row 13"):
        xb.explain_table(tree, bad, output=tmp_path / "o.jsonl", chunk_rows=8, progress=False)
    assert len(jsonl_lines(tmp_path / "o.jsonl")) == 13  # every row before the bad one
    with pytest.raises(DataError, match="row 13"):
        xb.explain_dask(tree, dd.from_pandas(bad, npartitions=2), client=client,
                        output=tmp_path / "d")
