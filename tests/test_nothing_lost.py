"""Nothing lost (issue 32, rows 1-4 and 11): a failed write leaves the existing file
untouched and no temporary file; a batch stopped by a full disk, a bad value or Ctrl-C
leaves only complete records and says how many rows are on disk and where; no output may be
an input of its run; two runs cannot claim one output; after Ctrl-C only the tail of a
JSON lines output is read.

A full disk is simulated by making a write raise ``OSError(errno.ENOSPC)`` (after writing
part of its bytes, as a real one does); two runs by two processes (or two handles of one)
synchronised through pipes, never by sleeping.
"""

from __future__ import annotations

import errno
import io
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from clitools import assert_clean_failure, run

import xdt
import xdt.run as xb
from xdt import _atomic
from xdt.cli._demo_job import write_examples
from xdt.errors import (
    OutputEncodingError,
    OutputError,
    OutputExistsError,
    OutputLockedError,
)
from xdt.explain.export import write_dimacs, write_wcnf
from xdt.ir._ensemble import TreeEnsemble
from xdt.report import write_report
from xdt.run import _lock
from xdt.run import _records as records
from xdt.run._records import JsonLinesOutput, last_record_end

ROOT = Path(__file__).resolve().parent.parent
TENNIS = ROOT / "encodings" / "examples" / "playtennis.json"
TENNIS_X = {"Humidity": "normal", "Outlook": "overcast", "Wind": "strong"}
KEEP = b'{"kept": "the file that was there"}\n'


def files_in(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def jsonl_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def german(tour):
    """(rows of German credit without the class, the tree, its 1,000 records in memory)."""
    tree = xdt.load_model(tour / "model.json")
    X = pd.read_csv(tour / "german.csv").drop(columns=["class"])
    expected = xb.explain_table(tree, X, progress=False).to_dict("records")
    expected = [json.loads(json.dumps(r, default=str)) for r in expected]
    return X, tree, expected


@pytest.fixture
def surrogate_model(tmp_path):
    """The tennis tree with its feature "Wind" renamed "Wi\\ud800nd" (a lone surrogate, as
    a file that is not valid Unicode gives): it loads."""
    text = TENNIS.read_text(encoding="utf-8").replace('"Wind"', '"Wi\\ud800nd"')
    path = tmp_path / "bad-name.json"
    path.write_text(text, encoding="ascii")
    model = xdt.load_model(path)
    assert "Wi\ud800nd" in [f.name for f in model.features]
    return model


# ---------------------------------------------------------------------- row 1
def test_a_name_utf8_cannot_encode_leaves_the_model_file_as_it_was(surrogate_model,
                                                                   tmp_path):
    keep = tmp_path / "out" / "keep.json"
    keep.parent.mkdir()
    keep.write_bytes(KEEP)
    with pytest.raises(OutputEncodingError) as info:
        xdt.save_model(surrogate_model, keep)
    message = str(info.value)
    assert message.startswith(f"cannot write {keep}: the text holds \\ud800 (a lone "
                              "surrogate code point, which UTF-8 cannot encode)")
    assert '"Wi\\ud800nd"' in message and "rename the feature" in message
    assert isinstance(info.value, ValueError) and isinstance(info.value, OutputError)
    assert keep.read_bytes() == KEEP
    assert files_in(keep.parent) == ["keep.json"]


def test_a_report_that_cannot_be_encoded_leaves_the_page_as_it_was(tmp_path):
    page = tmp_path / "r.html"
    page.write_bytes(KEEP)
    with pytest.raises(OutputEncodingError, match=r"the text holds \\ud800"):
        write_report(xdt.load_model(TENNIS), pd.DataFrame([TENNIS_X]), page,
                     title="Audit \ud800")
    assert page.read_bytes() == KEEP
    assert files_in(tmp_path) == ["r.html"]


def _full_disk(monkeypatch, error: BaseException | None = None) -> list[str]:
    """Make the flush of every file written whole fail as a full disk does (after its
    bytes went to the temporary file); the temporary files seen."""
    seen = []
    real = os.fsync

    def fsync(fd):
        name = os.readlink(f"/proc/self/fd/{fd}") if os.path.exists("/proc/self/fd") else ""
        if Path(name).is_file():
            seen.append(Path(name).name)
            raise error or OSError(errno.ENOSPC, "No space left on device")
        return real(fd)

    monkeypatch.setattr(_atomic.os, "fsync", fsync)
    return seen


@pytest.mark.parametrize("writer", ["save_model", "write_dimacs", "write_wcnf",
                                    "write_report", "write_examples"])
def test_a_full_disk_leaves_the_existing_file_and_no_temporary_one(writer, tmp_path,
                                                                     monkeypatch):
    tennis = xdt.load_model(TENNIS)
    name = "german.csv" if writer == "write_examples" else "out.txt"
    target = tmp_path / name
    target.write_bytes(KEEP)
    write = {
        "save_model": lambda: xdt.save_model(tennis, target),
        "write_dimacs": lambda: write_dimacs(tennis, TENNIS_X, target),
        "write_wcnf": lambda: write_wcnf(
            TreeEnsemble(tennis.features, tennis.classes, [tennis] * 3, "vote"), TENNIS_X,
            target),
        "write_report": lambda: write_report(tennis, pd.DataFrame([TENNIS_X]), target),
        "write_examples": lambda: write_examples(tmp_path, force=True),
    }[writer]
    seen = _full_disk(monkeypatch)
    with pytest.raises(OutputError) as info:
        write()
    assert str(info.value) == (f"cannot write {target}: no space left on the device; free "
                               "some or choose another path")
    assert seen and seen[0].startswith(f".{name}.") and seen[0].endswith(".tmp")
    assert target.read_bytes() == KEEP
    assert files_in(tmp_path) == [name]  # no temporary file left


def test_ctrl_c_while_writing_leaves_the_existing_file(tmp_path, monkeypatch):
    target = tmp_path / "m.json"
    target.write_bytes(KEEP)
    _full_disk(monkeypatch, KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt):
        xdt.save_model(xdt.load_model(TENNIS), target)
    assert target.read_bytes() == KEEP and files_in(tmp_path) == ["m.json"]


def test_a_write_replaces_a_links_target_and_keeps_the_link_and_the_mode(tmp_path):
    real = tmp_path / "real.json"
    real.write_bytes(KEEP)
    real.chmod(0o640)
    link = tmp_path / "link.json"
    link.symlink_to(real)
    xdt.save_model(xdt.load_model(TENNIS), link)
    assert link.is_symlink() and xdt.load_model(real).features == \
        xdt.load_model(TENNIS).features
    assert real.stat().st_mode & 0o777 == 0o640
    assert files_in(tmp_path) == ["link.json", "real.json"]


def test_commands_on_a_full_disk_say_so_and_keep_the_file(tour, tmp_path, monkeypatch):
    model, data = str(tour / "model.json"), str(tour / "german.csv")
    targets = {name: tmp_path / name for name in ("m.json", "q.cnf", "r.html")}
    for path in targets.values():
        path.write_bytes(KEEP)
    _full_disk(monkeypatch)
    for args, target in (
            (["fit", data, "-t", "class", "--max-depth", "2", "-o"], targets["m.json"]),
            (["encode", model, "--instance", f"@{tour / 'row.json'}", "-o"], targets["q.cnf"]),
            (["report", model, "--data", data, "--rows", "0:2", "-o"], targets["r.html"])):
        assert_clean_failure(run(*args, str(target)),
                             f"cannot write {target}: no space left on the device")
        assert target.read_bytes() == KEEP
    assert files_in(tmp_path) == sorted(targets)


# ---------------------------------------------------------------------- row 2
def _enospc_on_chunk(monkeypatch, k: int, error: BaseException | None = None) -> list[bytes]:
    """Make the ``k``-th append of a JSON lines output write the first half of its bytes,
    then fail as a full disk does (or raise ``error``); the payloads seen."""
    real = records._append
    payloads = []

    def append(fd, payload):
        payloads.append(payload)
        if len(payloads) == k:
            real(fd, payload[:len(payload) // 2])
            raise error or OSError(errno.ENOSPC, "No space left on device")
        real(fd, payload)

    monkeypatch.setattr(records, "_append", append)
    return payloads


def test_a_full_disk_mid_batch_leaves_complete_records_and_says_how_many(german, tmp_path,
                                                                        monkeypatch):
    X, tree, expected = german
    out = tmp_path / "out.jsonl"
    payloads = _enospc_on_chunk(monkeypatch, 3)
    with pytest.raises(OutputError) as info:
        xb.explain_table(tree, X, output=out, chunk_rows=250, progress=False)
    half = payloads[2][:len(payloads[2]) // 2]
    rows = 500 + half.count(b"\n")  # two chunks, and the whole records of the third's half
    assert 500 < rows < 750
    assert str(info.value) == (f"cannot write {out}: no space left on the device; free some "
                               f"or choose another path; the run stopped there: {rows} rows "
                               f"(complete records) are in {out}")
    assert (info.value.written, info.value.outputs) == (rows, [str(out)])
    assert out.read_bytes().endswith(b"\n")
    assert jsonl_lines(out) == expected[:rows]
    assert files_in(tmp_path) == ["out.jsonl"]  # and no lock file left


def test_ctrl_c_mid_write_leaves_complete_records(german, tmp_path, monkeypatch):
    X, tree, expected = german
    out = tmp_path / "out.jsonl"
    payloads = _enospc_on_chunk(monkeypatch, 2, KeyboardInterrupt())
    with pytest.raises(xb.BatchInterrupted) as info:
        xb.explain_table(tree, X, output=out, chunk_rows=400, progress=False)
    rows = 400 + payloads[1][:len(payloads[1]) // 2].count(b"\n")
    assert info.value.rows == rows and jsonl_lines(out) == expected[:rows]


def test_a_full_disk_mid_parquet_batch_names_the_files_on_disk(german, tmp_path,
                                                              monkeypatch):
    X, tree, expected = german
    out = tmp_path / "pq"
    real = pd.DataFrame.to_parquet
    calls = []

    def to_parquet(self, path, *args, **kwargs):
        calls.append(path)
        if len(calls) == 3:
            Path(path).write_bytes(b"PAR1 half")
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, path, *args, **kwargs)

    monkeypatch.setattr(pd.DataFrame, "to_parquet", to_parquet)
    with pytest.raises(OutputError) as info:
        xb.explain_table(tree, X, output=out, fmt="parquet", chunk_rows=300, progress=False)
    part = out / "part-00002.parquet"
    assert str(info.value) == (
        f"cannot write {part}: no space left on the device; free some or choose another "
        f"path; the run stopped there: 600 rows (complete records) are in {out}{os.sep} "
        "(part-00000.parquet, part-00001.parquet)")
    assert info.value.written == 600
    assert files_in(out) == ["part-00000.parquet", "part-00001.parquet"]
    assert xb.read_outputs(info.value.outputs).to_dict("records") == expected[:600]


def test_the_command_says_how_many_rows_a_full_disk_left(tour, german, tmp_path,
                                                        monkeypatch):
    *_, expected = german
    out = tmp_path / "out.jsonl"
    payloads = _enospc_on_chunk(monkeypatch, 2)
    result = run("explain", str(tour / "model.json"), "--data", str(tour / "german.csv"),
                 "--batch", "--chunk-rows", "300", "-o", str(out), "-q")
    rows = 300 + payloads[1][:len(payloads[1]) // 2].count(b"\n")
    assert_clean_failure(result, "no space left on the device",
                         f"the run stopped there: {rows} rows (complete records) are in {out}")
    assert jsonl_lines(out) == expected[:rows]


def test_a_label_utf8_cannot_encode_stops_the_batch_after_complete_records(german,
                                                                          tmp_path):
    X, tree, expected = german
    X = X.head(600).copy()
    X.index = pd.Index([f"r{i}" if i != 450 else "r\ud800" for i in range(600)],
                       dtype=object)
    out = tmp_path / "out.jsonl"
    with pytest.raises(OutputEncodingError) as info:
        xb.explain_table(tree, X, output=out, chunk_rows=200, progress=False)
    assert "the text holds \\ud800" in str(info.value)
    assert str(info.value).endswith(f"the run stopped there: 400 rows (complete records) "
                                    f"are in {out}")
    assert [r["row"] for r in jsonl_lines(out)] == [f"r{i}" for i in range(400)]


# ---------------------------------------------------------------------- row 3
def test_a_batch_output_may_not_be_an_input_of_its_run(tour, tmp_path):
    for name in ("german.csv", "model.json"):
        (tmp_path / name).write_bytes((tour / name).read_bytes())
    data, model = tmp_path / "german.csv", tmp_path / "model.json"
    (tmp_path / "sym.csv").symlink_to(data)
    os.link(data, tmp_path / "hard.csv")
    (tmp_path / "sym.json").symlink_to(model)
    batch = ["explain", str(model), "--data", str(data), "--batch", "--force", "-o"]
    for args, victim in (
            ([*batch, str(data)], data),
            ([*batch, str(model)], model),
            ([*batch, str(tmp_path / "sym.csv")], data),     # through a symbolic link
            ([*batch, str(tmp_path / "hard.csv")], data),    # through a hard link
            ([*batch, str(tmp_path / "sym.json")], model),
            (["explain", str(model), "--data", str(tmp_path / "sym.csv"), "--batch", "-o",
              str(tmp_path / "o.jsonl"), "--skip-invalid", "--invalid-output",
              str(tmp_path / "hard.csv")], data)):
        before = victim.read_bytes()
        assert_clean_failure(run(*args), "it is the input file",
                             "even with --force / overwrite=True", "choose another output path")
        assert victim.read_bytes() == before
    # row by row, explain writes no file: an output is refused outright
    assert run("explain", str(model), "--data", str(data), "-o", str(data)).exit_code == 2


def test_import_fit_report_encode_refuse_their_inputs_through_links(tour, tmp_path):
    for name in ("german.csv", "model.json", "row.json"):
        (tmp_path / name).write_bytes((tour / name).read_bytes())
    data, model, row = (tmp_path / n for n in ("german.csv", "model.json", "row.json"))
    os.link(data, tmp_path / "hard.csv")
    os.link(model, tmp_path / "hard.json")
    (tmp_path / "sym-row.json").symlink_to(row)
    for args, victim in (
            (["fit", str(data), "-t", "class", "-o", str(tmp_path / "hard.csv")], data),
            (["report", str(model), "--data", str(data), "-o", str(tmp_path / "hard.json")],
             model),
            (["encode", str(model), "--instance", f"@{row}", "-o",
              str(tmp_path / "sym-row.json")], row),
            (["import", str(tmp_path / "hard.json"), "--from", "xgboost", "-o", str(model)],
             model)):
        before = victim.read_bytes()
        assert_clean_failure(run(*args), "it is the input file")
        assert victim.read_bytes() == before


def test_explain_table_refuses_to_write_over_its_data_files(german, tmp_path):
    pytest.importorskip("distributed")
    X, tree, _ = german
    out = tmp_path / "pq"
    out.mkdir()
    X.head(50).to_parquet(out / "part-00000.parquet")
    before = (out / "part-00000.parquet").read_bytes()
    for data in (str(out / "part-00000.parquet"), str(out / "*.parquet")):
        with pytest.raises(OutputError, match="it is the input file"):
            xb.explain_table(tree, data, output=out, fmt="parquet", overwrite=True,
                             progress=False)
    assert (out / "part-00000.parquet").read_bytes() == before
    # without overwrite, an existing output is still refused as before
    with pytest.raises(OutputExistsError):
        xb.explain_table(tree, X.head(5), output=out, fmt="parquet", progress=False)


def test_the_skipped_rows_may_not_go_to_the_lock_file_or_a_part_file(german, tmp_path):
    # the lock file is removed when the run ends: skipped rows written there were lost
    X, tree, _ = german
    bad = X.head(5).copy()
    bad.loc[2, "purpose"] = "spaceship"
    out = tmp_path / "out.jsonl"
    for side in (_lock.lock_path(out), tmp_path / "." / "out.jsonl.lock"):
        with pytest.raises(OutputError, match="is the lock file of the output"):
            xb.explain_table(tree, bad, output=out, on_invalid="skip", invalid_output=side,
                             progress=False)
    folder = tmp_path / "pq"
    for side in (_lock.lock_path(folder), folder / "part-00000.parquet"):
        with pytest.raises(OutputError, match="lock file of the output|its part files"):
            xb.explain_table(tree, bad, output=folder, fmt="parquet", on_invalid="skip",
                             invalid_output=side, progress=False)
    assert files_in(tmp_path) == []


# ---------------------------------------------------------------------- row 4
def test_a_second_run_to_a_held_output_is_refused_with_the_holder(german, tmp_path):
    X, tree, expected = german
    out = tmp_path / "out.jsonl"
    with _lock.output_lock(out) as lock:
        assert lock == tmp_path / "out.jsonl.lock"
        holder = json.loads(lock.read_text())
        assert holder["pid"] == os.getpid()
        with pytest.raises(OutputLockedError) as info:
            xb.explain_table(tree, X, output=out, overwrite=True, progress=False)
        assert f"another run is writing it (process {os.getpid()} on {holder['host']}" \
            in str(info.value)
        assert info.value.holder["pid"] == os.getpid()
        assert not out.exists()
    summary = xb.explain_table(tree, X, output=out, overwrite=True, progress=False)
    assert summary.rows == 1000 and jsonl_lines(out) == expected
    assert files_in(tmp_path) == ["out.jsonl"]  # the lock is gone with its run


def test_a_run_through_a_link_to_a_held_output_is_refused(german, tmp_path):
    # both write the link's target: each took the lock of the name it was given
    X, tree, _ = german
    out = tmp_path / "out.jsonl"
    (tmp_path / "link.jsonl").symlink_to(out)
    with _lock.output_lock(out):
        with pytest.raises(OutputLockedError, match="another run is writing it"):
            xb.explain_table(tree, X.head(5), output=tmp_path / "link.jsonl", overwrite=True,
                             progress=False)
    assert files_in(tmp_path) == ["link.jsonl"] and not out.exists()


HOLD = """import sys
from xdt.run._lock import output_lock
with output_lock(sys.argv[1]):
    print("held", flush=True)
    sys.stdin.read()
"""


def _holder_process(output: Path) -> subprocess.Popen:
    """A process holding the lock of ``output`` until its standard input closes."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(output)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdout.readline() == "held\n"
    return proc


def test_two_batch_runs_to_one_output_cannot_both_claim_it(tour, german, tmp_path):
    *_, expected = german
    out = tmp_path / "out.jsonl"
    args = ["explain", str(tour / "model.json"), "--data", str(tour / "german.csv"),
            "--batch", "--force", "-o", str(out), "-q"]
    holder = _holder_process(out)
    try:
        assert_clean_failure(run(*args), f"cannot write {out}: another run is writing it "
                                         f"(process {holder.pid} on ",
                             "wait for it to end (or stop it), or choose another output path")
        assert not out.exists()
    finally:
        holder.stdin.close()
        holder.wait(timeout=60)
    result = run(*args)
    assert result.exit_code == 0, result.output
    assert "wrote 1000 rows" in result.output and jsonl_lines(out) == expected


def test_the_lock_of_a_killed_run_is_taken_over(german, tmp_path):
    X, tree, _ = german
    out = tmp_path / "out.jsonl"
    holder = _holder_process(out)
    holder.send_signal(signal.SIGKILL)
    holder.wait(timeout=60)
    assert (tmp_path / "out.jsonl.lock").exists()  # left behind, held by no one
    summary = xb.explain_table(tree, X.head(10), output=out, progress=False)
    assert summary.rows == 10 and files_in(tmp_path) == ["out.jsonl"]


def test_without_flock_a_stale_lock_is_taken_over_and_a_live_one_refused(german, tmp_path,
                                                                        monkeypatch):
    X, tree, _ = german
    monkeypatch.setattr(_lock, "fcntl", None)
    out = tmp_path / "out.jsonl"
    lock = tmp_path / "out.jsonl.lock"
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait(timeout=60)
    host = _lock.socket.gethostname()
    lock.write_text(json.dumps({"pid": dead.pid, "host": host}))
    assert xb.explain_table(tree, X.head(10), output=out, progress=False).rows == 10
    assert not lock.exists()
    lock.write_text(json.dumps({"pid": os.getpid(), "host": host, "started": "then"}))
    with pytest.raises(OutputLockedError, match=f"process {os.getpid()} on {host}, since "
                                                "then"):
        xb.explain_table(tree, X.head(10), output=out, overwrite=True, progress=False)
    assert lock.exists()


# ---------------------------------------------------------------------- row 11
class CountingFile(io.BufferedRandom):
    """A file that counts the bytes read from it."""

    def __init__(self, raw):
        super().__init__(raw)
        self.bytes_read = 0

    def read(self, n=-1):
        data = super().read(n)
        self.bytes_read += len(data)
        return data


def _counting(path: Path) -> CountingFile:
    return CountingFile(io.FileIO(path, "r+"))


def test_finding_the_last_complete_record_reads_only_the_tail(tmp_path):
    path = tmp_path / "big.jsonl"
    line = b'{"row": 0, "prediction": "good", "axp": ["a", "b"]}\n'
    body = line * 100_000                                   # 5.3 MB of complete records
    half = b'{"row": 1, "cxps": [' + b'["x", "y"], ' * 30_000  # 360 KB, spans 6 blocks
    path.write_bytes(body + half)
    with _counting(path) as f:
        assert last_record_end(f, len(body) + len(half)) == len(body)
        assert f.bytes_read <= len(half) + records.TAIL_BLOCK
    with _counting(path) as f:  # a short tail: one block
        assert last_record_end(f, len(body) - 5) == len(body) - len(line)
        assert f.bytes_read <= records.TAIL_BLOCK
    with _counting(path) as f:  # nothing complete past the floor
        assert last_record_end(f, len(body) + len(half), floor=len(body) + 10) == \
            len(body) + 10
        assert f.bytes_read == len(half) - 10


def test_ctrl_c_on_a_large_output_reads_only_past_the_last_full_chunk(tmp_path,
                                                                       monkeypatch):
    out = JsonLinesOutput(tmp_path / "out.jsonl")
    rows = [{"row": i, "prediction": "good", "axp": ["a", "b", "c"]} for i in range(20_000)]
    for k in range(0, 20_000, 5000):
        out.append(rows[k:k + 5000])
    full = out.size
    assert full > 1_000_000
    os.write(out._fd, b'{"row": 20000, "prediction": "good"}\n{"row": 20001, "predi')
    opened: list[CountingFile] = []

    def counting_open(path, mode="r", *args, **kwargs):
        assert mode == "r+b"
        opened.append(_counting(path))
        return opened[-1]

    monkeypatch.setattr(records, "open", counting_open, raising=False)
    assert out.settle() == 20_001
    assert sum(f.bytes_read for f in opened) < 200  # of a 1 MB file
    assert (tmp_path / "out.jsonl").stat().st_size == full + 37
    assert jsonl_lines(tmp_path / "out.jsonl")[-1] == {"row": 20000, "prediction": "good"}


def test_the_temporary_files_of_killed_workers_are_removed(tmp_path):
    from xdt.run._distributed import written_partitions

    (tmp_path / "part-00000.jsonl").write_bytes(b'{"row": 0}\n{"row": 1}\n')
    (tmp_path / ".part-00001.jsonl.0123abcd.tmp").write_bytes(b'{"row": 2')
    assert written_partitions(tmp_path, "jsonl") == [(0, str(tmp_path / "part-00000.jsonl"),
                                                      2)]
    assert files_in(tmp_path) == ["part-00000.jsonl"]
