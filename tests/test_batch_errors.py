"""xdt.run when something goes wrong: a row the model cannot read (the error says what was
written and where; on_invalid="skip" / --skip-invalid writes it to a side file and goes on),
an output that exists (kept unless overwrite=True / --force), an output that cannot be written
(the message says what to do), and Dask runs that fail or are interrupted without a line of
distributed's logs or a worker traceback reaching the user."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

import xdt
import xdt.run as xb
from xdt.cli import main
from xdt.errors import DataError, InvalidRowError, OutputError, OutputExistsError
from xdt.explain._explainer import Explainer
from xdt.run._distributed import describe_partitions

try:
    import dask.dataframe as dd
    import distributed
except ImportError:  # the test extra installs Dask; only a hand-made environment lacks it
    if os.environ.get("CI", "").lower() == "true":
        raise
    pytest.skip('needs pip install "xdt[dask]"', allow_module_level=True)

ROOT = Path(xdt.__file__).resolve().parent.parent
SPACESHIP = "feature 'purpose' has value 'spaceship', which is not in its domain"


@pytest.fixture(scope="module")
def german():
    """400 German credit rows (features only), a CART tree of depth 6 on all 1000, and the
    records (schema xdt-explanation/1) of what ``Explainer.explain_batch`` gives for the 400
    rows, as JSON gives them."""
    from xdt.cli._demo_job import load_german
    from xdt.learn import CARTClassifier

    frame = load_german()
    X, y = frame.drop(columns="class"), frame["class"]
    tree = CARTClassifier(max_depth=6).fit(X, y).tree_
    X = X.iloc[:400]
    result = Explainer(tree).explain_batch(X)
    expected = [{"format": "xdt-explanation/1", "row": int(i), "prediction": r["prediction"],
                 "axp": {"kind": "AXp", "features": list(r["axp"])}, "axp_size": r["axp_size"],
                 "cxps": [{"kind": "CXp", "features": list(c)} for c in r["cxps"]],
                 "n_cxps": r["n_cxps"]}
                for i, r in zip(X.index, result.to_dict("records"), strict=True)]
    return X, tree, expected


def spoiled(X: pd.DataFrame, rows=(300,)) -> pd.DataFrame:
    """``X`` with an unknown purpose ('spaceship') in ``rows``."""
    bad = X.copy()
    for r in rows:
        bad.loc[r, "purpose"] = "spaceship"
    return bad


def jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def without(expected: list[dict], rows) -> list[dict]:
    return [r for r in expected if r["row"] not in set(rows)]


# ---------------------------------------------------------------------- one process
def test_bad_row_error_says_which_rows_were_written_and_where(german, tmp_path):
    X, tree, expected = german
    out = tmp_path / "out.jsonl"
    with pytest.raises(InvalidRowError) as info:
        xb.explain_table(tree, spoiled(X), output=out, chunk_rows=128, progress=False)
    e = info.value
    assert isinstance(e, DataError)
    assert (e.row, e.written, e.outputs) == (300, 300, [str(out)])
    assert e.reason.startswith(SPACESHIP)
    message = str(e)
    assert message.startswith(f"row 300: {SPACESHIP}")
    assert f"300 rows (0..299) were written to {out} before it" in message
    assert 'on_invalid="skip"' in message
    assert jsonl(out) == expected[:300]  # every row before the bad one, in full

    # Parquet chunks: the same rows, in the files the message names
    with pytest.raises(InvalidRowError) as info:
        xb.explain_table(tree, spoiled(X), output=tmp_path / "pq", fmt="parquet",
                         chunk_rows=128, progress=False)
    files = sorted(str(p) for p in (tmp_path / "pq").glob("part-*.parquet"))
    assert info.value.outputs == files and len(files) == 3  # 128 + 128 + 44 rows
    assert "part-00000.parquet, part-00001.parquet, part-00002.parquet" in str(info.value)
    assert xb.read_outputs(files).to_dict("records") == expected[:300]

    # without an output nothing is written, and the error names the row
    with pytest.raises(InvalidRowError, match="^row 300: feature 'purpose'"):
        xb.explain_table(tree, spoiled(X), progress=False)


def test_skip_invalid_writes_bad_rows_with_their_reason_to_a_side_file(german, tmp_path):
    X, tree, expected = german
    bad = spoiled(X, rows=(5, 300))
    bad["credit_amount"] = bad["credit_amount"].astype(float)
    bad.loc[130, "credit_amount"] = math.nan
    out = tmp_path / "out.jsonl"
    summary = xb.explain_table(tree, bad, output=out, chunk_rows=128, progress=False,
                               on_invalid="skip")
    side = tmp_path / "out.invalid.jsonl"
    assert xb.default_invalid_output(out) == side
    assert (summary.rows, summary.skipped, summary.invalid_output) == (397, 3, str(side))
    assert jsonl(out) == without(expected, (5, 130, 300))
    skipped = jsonl(side)
    assert [r["row"] for r in skipped] == [5, 130, 300]
    assert skipped[0]["reason"].startswith(SPACESHIP)
    assert skipped[1]["reason"].startswith("feature 'credit_amount' has 1 missing value")
    assert skipped[0]["values"]["purpose"] == "spaceship"
    assert skipped[1]["values"]["credit_amount"] is None
    assert skipped[0]["values"]["duration"] == int(X.loc[5, "duration"])

    # a side file of one's own choosing; without an output, the records and attrs
    mine = tmp_path / "bad-rows.jsonl"
    frame = xb.explain_table(tree, bad, progress=False, on_invalid="skip",
                             invalid_output=mine)
    assert frame.to_dict("records") == without(expected, (5, 130, 300))
    assert [r["row"] for r in frame.attrs["invalid"]] == [5, 130, 300] == \
        [r["row"] for r in jsonl(mine)]

    # no bad row: no side file
    clean = tmp_path / "clean.jsonl"
    summary = xb.explain_table(tree, X, output=clean, progress=False, on_invalid="skip")
    assert (summary.skipped, summary.invalid_output) == (0, None)
    assert not (tmp_path / "clean.invalid.jsonl").exists()


def test_existing_output_is_kept_unless_overwrite(german, tmp_path):
    X, tree, expected = german
    out = tmp_path / "out.jsonl"
    out.write_text("keep me\n")
    with pytest.raises(OutputExistsError, match="out.jsonl exists; pass overwrite=True") as info:
        xb.explain_table(tree, X, output=out, progress=False)
    assert isinstance(info.value, FileExistsError) and info.value.existing == [str(out)]
    assert out.read_text() == "keep me\n"
    xb.explain_table(tree, X, output=out, progress=False, overwrite=True)
    assert jsonl(out) == expected

    # a folder: its part files of an earlier run are kept, or all replaced
    pq = tmp_path / "pq"
    xb.explain_table(tree, X, output=pq, fmt="parquet", chunk_rows=100, progress=False)
    with pytest.raises(OutputExistsError, match="holds 4 part files of an earlier run"):
        xb.explain_table(tree, X, output=pq, fmt="parquet", progress=False)
    summary = xb.explain_table(tree, X, output=pq, fmt="parquet", progress=False,
                               overwrite=True)
    assert sorted(p.name for p in pq.iterdir()) == ["part-00000.parquet"]  # no stale part
    assert xb.read_outputs(summary.outputs).to_dict("records") == expected

    # the side file too
    side = tmp_path / "side.jsonl"
    side.write_text("earlier\n")
    with pytest.raises(OutputExistsError, match="side.jsonl exists"):
        xb.explain_table(tree, spoiled(X), output=tmp_path / "o2.jsonl", progress=False,
                         on_invalid="skip", invalid_output=side)
    assert side.read_text() == "earlier\n"


def test_unwritable_output_says_what_to_do(german, tmp_path, monkeypatch):
    X, tree, _ = german
    with pytest.raises(OutputError, match=r"folder '.*nope' does not exist; create it or "
                                          "choose another path"):
        xb.explain_table(tree, X, output=tmp_path / "nope" / "out.jsonl", progress=False)
    (tmp_path / "afile").write_text("")
    for output, fmt in ((tmp_path / "afile" / "out.jsonl", "jsonl"),
                        (tmp_path / "afile" / "pq", "parquet")):
        with pytest.raises(OutputError, match="'.*afile' is a file, not a folder") as info:
            xb.explain_table(tree, X, output=output, fmt=fmt, progress=False)
        assert isinstance(info.value, OSError)

    # what pyarrow raises on a read-only target (as root, a real one would be writable)
    def denied(self, path, *args, **kwargs):
        raise PermissionError(13, f"Failed to open local file '{path}'. Detail: [errno 13] "
                                  "Permission denied")

    monkeypatch.setattr(pd.DataFrame, "to_parquet", denied)
    with pytest.raises(OutputError) as info:
        xb.explain_table(tree, X, output=tmp_path / "ro", fmt="parquet", progress=False)
    assert str(info.value) == (f"cannot write {tmp_path / 'ro' / 'part-00000.parquet'}: "
                               "permission denied; choose a writable path")
    assert not list((tmp_path / "ro").iterdir())  # no temporary file left behind


# ---------------------------------------------------------------------- the command line
@pytest.fixture(scope="module")
def files(german, tmp_path_factory):
    """The model file, the clean CSV and the CSV with 'spaceship' in row 300."""
    X, tree, _ = german
    folder = tmp_path_factory.mktemp("data")
    xdt.save_model(tree, folder / "model.json")
    X.to_csv(folder / "data.csv", index=False)
    spoiled(X).to_csv(folder / "bad.csv", index=False)
    return folder


def explain(files: Path, data: str, *args: str):
    return CliRunner().invoke(main, ["explain", str(files / "model.json"), "--data",
                                     str(files / data), *args])


def test_cli_bad_row_then_skip_invalid(files, german, tmp_path):
    _, _, expected = german
    out = tmp_path / "out.jsonl"
    result = explain(files, "bad.csv", "--batch", "--chunk-rows", "128", "-o", str(out), "-q")
    assert result.exit_code == 1
    assert f"row 300: {SPACESHIP}" in result.output
    assert (f"; 300 rows (0..299) were written to {out} before it; fix the row, or rerun "
            "with --skip-invalid") in result.output
    assert jsonl(out) == expected[:300]

    result = explain(files, "bad.csv", "--batch", "-o", str(out), "-q", "--skip-invalid",
                     "--force")
    assert result.exit_code == 0, result.output
    side = tmp_path / "out.invalid.jsonl"
    assert (f"wrote 399 rows to {out} (1 file, 1 chunk) in" in result.output
            and f"s; skipped 1 invalid row, written with the reasons to {side}"
            in result.output)
    assert jsonl(out) == without(expected, (300,))
    assert [r["row"] for r in jsonl(side)] == [300]

    mine = tmp_path / "mine.jsonl"
    result = explain(files, "bad.csv", "--batch", "-o", str(out), "-q", "--skip-invalid",
                     "--invalid-output", str(mine), "--force")
    assert result.exit_code == 0 and f"reasons to {mine}" in result.output
    result = explain(files, "bad.csv", "--batch", "-o", str(out), "--invalid-output",
                     str(mine))
    assert result.exit_code == 2 and "add --skip-invalid" in result.output


def test_cli_refuses_to_replace_output_without_force(files, german, tmp_path):
    _, _, expected = german
    out = tmp_path / "out.jsonl"
    out.write_text("keep me\n")
    result = explain(files, "data.csv", "--batch", "-o", str(out), "-q")
    assert result.exit_code == 1
    assert f"Error: {out} exists; use --force to replace it, or choose another path" \
        in result.output
    assert out.read_text() == "keep me\n"
    result = explain(files, "data.csv", "--batch", "-o", str(out), "-q", "--force")
    assert result.exit_code == 0 and jsonl(out) == expected

    pq = tmp_path / "pq"
    pq.mkdir()
    (pq / "part-00000.parquet").write_text("")
    result = explain(files, "data.csv", "--batch", "--output-format", "parquet", "-o",
                     str(pq), "-q")
    assert result.exit_code == 1 and "holds 1 part file of an earlier run " \
        "(part-00000.parquet); use --force" in result.output
    result = explain(files, "data.csv", "--rows", "0:2", "--force")  # only with --batch
    assert result.exit_code == 2 and "--force: only with --batch" in result.output
    # --skip-invalid works row by row too (tests/test_cli_long_runs.py)
    assert explain(files, "data.csv", "--rows", "0:2", "--skip-invalid").exit_code == 0


def test_cli_unwritable_output_says_what_to_do(files, tmp_path, monkeypatch):
    result = explain(files, "data.csv", "--batch", "-o", str(tmp_path / "out" / "o.jsonl"))
    assert result.exit_code == 1
    assert (f"cannot write {tmp_path / 'out' / 'o.jsonl'}: folder '{tmp_path / 'out'}' does "
            "not exist; create it or choose another path") in result.output

    def denied(self, path, *args, **kwargs):
        raise PermissionError(13, f"Failed to open local file '{path}'. Detail: [errno 13] "
                                  "Permission denied")

    monkeypatch.setattr(pd.DataFrame, "to_parquet", denied)
    result = explain(files, "data.csv", "--batch", "--output-format", "parquet", "-o",
                     str(tmp_path / "pq"), "-q")
    assert result.exit_code == 1
    assert "permission denied; choose a writable path" in result.output
    assert "Failed to open local file" not in result.output


# ---------------------------------------------------------------------- Dask
@pytest.fixture(scope="module")
def client():
    """An in-process cluster (threads): fast to start, the same code paths."""
    with distributed.LocalCluster(n_workers=2, processes=False, threads_per_worker=1,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as c:
        yield c


@pytest.mark.slow
def test_dask_bad_row_names_the_partitions_written_stopped_and_not_run(german, client,
                                                                      tmp_path):
    X, tree, expected = german
    data = dd.from_pandas(spoiled(X, rows=(300,)), npartitions=4)  # rows 300..399: part 3
    out = tmp_path / "d"
    with pytest.raises(InvalidRowError) as info:
        xb.explain_dask(tree, data, client=client, output=out)
    e = info.value
    assert (e.row, e.failed) == (300, [3])
    on_disk = sorted(str(p) for p in out.glob("part-*"))
    assert sorted(e.outputs) == on_disk and str(out / "part-00003.jsonl") not in on_disk
    assert e.written == 100 * len(on_disk)
    message = str(e)
    assert message.startswith(f"row 300 (partition 3): {SPACESHIP}")
    assert "partition 3 stopped at row 300 and wrote no file" in message
    for path in on_disk:
        assert Path(path).name in message
    written = {int(Path(p).name[5:10]) for p in on_disk}
    not_run = sorted({0, 1, 2} - written)
    if not_run:  # started after partition 3 had failed
        assert f"{describe_partitions(not_run)} {'was' if len(not_run) == 1 else 'were'}" \
               " not run" in message
    assert xb.read_outputs(on_disk).to_dict("records") == \
        [r for r in expected if r["row"] // 100 in written]


@pytest.mark.slow
def test_dask_skip_invalid_and_overwrite(german, client, tmp_path):
    X, tree, expected = german
    out = tmp_path / "d"
    summary = xb.explain_dask(tree, dd.from_pandas(spoiled(X, rows=(30, 300)), npartitions=4),
                              client=client, output=out, on_invalid="skip")
    side = tmp_path / "d.invalid.jsonl"
    assert (summary.rows, summary.partitions, summary.skipped) == (398, 4, 2)
    assert summary.invalid_output == str(side)
    assert xb.read_outputs(summary.outputs).to_dict("records") == \
        without(expected, (30, 300))
    assert [r["row"] for r in jsonl(side)] == [30, 300]
    assert jsonl(side)[0]["reason"].startswith(SPACESHIP)

    data = dd.from_pandas(X, npartitions=2)
    with pytest.raises(OutputExistsError, match="holds 4 part files of an earlier run"):
        xb.explain_dask(tree, data, client=client, output=out)
    summary = xb.explain_dask(tree, data, client=client, output=out, overwrite=True)
    assert sorted(p.name for p in out.iterdir()) == ["part-00000.jsonl", "part-00001.jsonl"]
    assert xb.read_outputs(summary.outputs).to_dict("records") == expected


def run_xdt(args: list[str], *, path: str = str(ROOT), script: str | None = None,
            **kwargs) -> subprocess.Popen:
    """``xdt ARGS`` in a new process group (as a terminal runs it), output captured."""
    env = dict(os.environ, PYTHONPATH=path)
    command = [sys.executable, script] if script else [sys.executable, "-m", "xdt"]
    # Ctrl-C reaches it even when pytest itself runs with SIGINT ignored (a background job of
    # a non-interactive shell), which a child would otherwise inherit
    return subprocess.Popen(command + args, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=_default_sigint, **kwargs)


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def assert_only_xdt_lines(stderr: str) -> None:
    assert "Traceback" not in stderr and "distributed." not in stderr, stderr
    assert "KeyboardInterrupt" not in stderr, stderr


@pytest.mark.slow
def test_cli_workers_bad_row_shows_only_xdt_message(files, german, tmp_path):
    _, _, expected = german
    out = tmp_path / "d"
    proc = run_xdt(["explain", str(files / "model.json"), "--data", str(files / "bad.csv"),
                    "--workers", "2", "--partitions", "2", "-o", str(out), "-q"])
    _, stderr = proc.communicate(timeout=600)
    assert proc.returncode == 1
    assert_only_xdt_lines(stderr)
    assert stderr.startswith(f"Error: row 300 (partition 1): {SPACESHIP}")
    assert "partition 1 stopped at row 300 and wrote no file" in stderr
    on_disk = [p.name for p in out.glob("part-*")]
    if on_disk:  # partition 0 ran beside partition 1
        assert on_disk == ["part-00000.jsonl"]
        assert f"partition 0 of 2 was written to {out}{os.sep} (part-00000.jsonl; 200 rows)" \
            in stderr
        assert jsonl(out / "part-00000.jsonl") == expected[:200]
    else:
        assert "partition 0 was not run" in stderr

    result = explain(files, "bad.csv", "--workers", "1", "--partitions", "2", "-o", str(out),
                     "-q", "--skip-invalid", "--force")
    assert result.exit_code == 0, result.output
    assert (f"wrote 399 rows to {out} (2 files, 2 partitions)" in result.output
            and f"skipped 1 invalid row, written with the reasons to {out}.invalid.jsonl"
            in result.output)
    assert [r["row"] for r in jsonl(tmp_path / "d.invalid.jsonl")] == [300]


SLOW_PARTITIONS = '''
import os, time
import xdt.run._distributed as xb

explain_partition = xb._explain_partition


def first_then_stall(model, frame, number, output, *args, **kwargs):
    """The first partition to start runs; the others stall until the run is interrupted."""
    try:
        os.close(os.open(os.path.join(output, os.pardir, "first"), os.O_CREAT | os.O_EXCL))
    except FileExistsError:
        time.sleep(600)
    return explain_partition(model, frame, number, output, *args, **kwargs)
'''

RUN_XDT = '''
import sys
import slow_partitions
import xdt.run._distributed as xb

xb._explain_partition = slow_partitions.first_then_stall
if __name__ == "__main__":
    from xdt.cli import main
    main(sys.argv[1:], prog_name="xdt")
'''


@pytest.mark.slow
def test_cli_workers_ctrl_c_says_what_was_written_without_tracebacks(files, german,
                                                                      tmp_path):
    """Ctrl-C in a terminal signals the whole process group: xdt and its workers."""
    _, _, expected = german
    (tmp_path / "slow_partitions.py").write_text(SLOW_PARTITIONS)
    (tmp_path / "run_xdt.py").write_text(RUN_XDT)
    out = tmp_path / "d"
    proc = run_xdt(["explain", str(files / "model.json"), "--data", str(files / "data.csv"),
                    "--workers", "1", "--partitions", "4", "-o", str(out), "-q"],
                   path=f"{ROOT}{os.pathsep}{tmp_path}", script=str(tmp_path / "run_xdt.py"))
    try:
        while not list(out.glob("part-*.jsonl")) and proc.poll() is None:
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGINT)
        _, stderr = proc.communicate(timeout=600)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, stderr
    assert_only_xdt_lines(stderr)
    [done] = list(out.glob("part-*.jsonl"))
    k = int(done.name[5:10])
    assert stderr.splitlines() == [
        f"interrupted: 100 rows written (complete records) to {out}: partition {k} of 4 "
        f"({done.name}); the others wrote no file"]
    assert jsonl(done) == expected[100 * k:100 * (k + 1)]
    assert not list(out.glob("*.tmp"))
