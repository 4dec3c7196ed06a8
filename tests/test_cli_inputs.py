"""Bad input at the command line's edges: damaged compressed files, time limits that are
not numbers of seconds, scheduler addresses, outputs that cannot be written, labels that
are not the model's classes. Each gets an xdt message (no traceback, no bare "Aborted!")."""

from __future__ import annotations

import gzip
import warnings
from pathlib import Path

import pytest
from clitools import assert_clean_failure, run

import xdt
from xdt.cli._demo_job import load_german
from xdt.errors import DataError


@pytest.fixture(scope="module")
def damaged(tour) -> dict[str, Path]:
    text = (tour / "german.csv").read_bytes()
    notgz = tour / "notgz.csv.gz"
    notgz.write_bytes(text)                               # named .gz, plain text inside
    truncated = tour / "truncated.csv.gz"
    truncated.write_bytes(gzip.compress(text)[:5000])    # a download cut short
    return {"not gzip": notgz, "ended early": truncated}


@pytest.mark.parametrize("kind", ["not gzip", "ended early"])
def test_a_damaged_gz_file_is_named_not_aborted(tour, damaged, kind, tmp_path):
    path = str(damaged[kind])
    model = str(tour / "model.json")
    for args in (["fit", path, "-t", "class"],
                 ["explain", model, "--data", path, "--rows", "0"],
                 ["explain", model, "--data", path, "--batch", "-o", str(tmp_path / "o.jsonl")],
                 ["crosscheck", model, "--data", path],
                 ["cluster", path, "-t", "class", "-p", "good"]):
        assert_clean_failure(run(*args), f"{path}: cannot read it (",
                             "damaged or not in the compression its name says")


@pytest.mark.parametrize("kind", ["not gzip", "ended early"])
def test_dask_reader_names_a_damaged_gz_file(tour, damaged, kind):
    from xdt.run import read_dask

    model = xdt.load_model(tour / "model.json")
    with pytest.raises(DataError, match=r"cannot read it \((Not a gzipped|Compressed file)"):
        read_dask(model, damaged[kind])


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "0", "-2", "abc"])
def test_time_limit_must_be_a_positive_finite_number(tour, value):
    model, data = str(tour / "model.json"), str(tour / "german.csv")
    for args in (["explain", model, "--data", data, "--rows", "0", "--time-limit", value],
                 ["crosscheck", model, "--data", data, "--rows", "0", "--time-limit", value]):
        result = run(*args)
        assert result.exit_code == 2  # a usage error, as click gives for any bad option
        assert f"'{value}' is not a time limit; give a positive number of seconds" in \
            result.output


def test_a_finite_time_limit_is_taken(tour):
    result = run("explain", str(tour / "model.json"), "--data", str(tour / "german.csv"),
                 "--rows", "0", "--time-limit", "2.5")
    assert result.exit_code == 0 and "row 0: predicts class = good" in result.output


@pytest.mark.parametrize("address", ["notaurl", "foo://x:1"])
def test_a_malformed_scheduler_address_is_a_usage_error(tour, address, tmp_path):
    pytest.importorskip("distributed")
    result = run("explain", str(tour / "model.json"), "--data", str(tour / "german.csv"),
                 "--scheduler", address, "--output", str(tmp_path / "out"))
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert f"{address!r} is not a scheduler address" in result.output
    assert "tcp://HOST:PORT" in result.output


def test_batch_output_to_standard_output_is_refused(tour, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    result = run("explain", str(tour / "model.json"), "--data", str(tour / "german.csv"),
                 "--batch", "--output", "-")
    assert result.exit_code == 2 and "write files, not standard output" in result.output
    assert not (tmp_path / "-").exists()


def test_model_and_dimacs_outputs_in_a_missing_folder_say_what_to_do(tour, tmp_path):
    missing = tmp_path / "nowhere" / "model.json"
    result = run("fit", str(tour / "german.csv"), "-t", "class", "-o", str(missing))
    assert_clean_failure(result, f"cannot write {missing}: folder '{missing.parent}' does not "
                                 "exist; create it or choose another path")
    assert "train accuracy" not in result.output  # refused before the fit, not after it
    assert not missing.parent.exists()
    cnf = tmp_path / "nowhere" / "query.cnf"
    assert_clean_failure(run("encode", str(tour / "model.json"), "--instance",
                             f"@{tour / 'row.json'}", "-o", str(cnf)),
                         f"cannot write {cnf}: folder '{cnf.parent}' does not exist")
    assert_clean_failure(run("encode", str(tour / "model.json"), "--instance",
                             f"@{tour / 'row.json'}", "-o", str(tour / "german.csv" / "q.cnf")),
                         "is a file, not a folder")


def test_an_output_that_is_the_commands_own_input_is_refused(tour, tmp_path):
    for name in ("german.csv", "model.json", "row.json"):
        (tmp_path / name).write_bytes((tour / name).read_bytes())
    data, model, row = (str(tmp_path / n) for n in ("german.csv", "model.json", "row.json"))
    link = tmp_path / "link.csv"
    link.symlink_to(tmp_path / "german.csv")
    for args, victim in (
            (["fit", data, "-t", "class", "-o", data], data),
            (["fit", str(link), "-t", "class", "-o", data], data),  # the same file by a link
            (["encode", model, "--instance", f"@{row}", "-o", row], row),
            (["encode", model, "--instance", f"@{row}", "-o", model], model),
            (["report", model, "--data", data, "-o", data], data),
            (["report", model, "--data", data, "-o", model], model)):
        before = Path(victim).read_bytes()
        assert_clean_failure(run(*args), f"cannot write {victim}: it is the input file",
                             "choose another output path")
        assert Path(victim).read_bytes() == before


def test_an_empty_or_folder_path_is_named_as_such(tour, tmp_path):
    model, data = str(tour / "model.json"), str(tour / "german.csv")
    for args in (["report", model, "--data", "", "-o", str(tmp_path / "r.html")],
                 ["explain", model, "--data", "", "--rows", "0"],
                 ["fit", "", "-t", "class"]):
        assert_clean_failure(run(*args), "no data file named (an empty path)")
    for args in (["report", model, "--data", data, "-o", ""],
                 ["fit", data, "-t", "class", "-o", ""]):
        assert_clean_failure(run(*args), "no output file named (an empty path)")
    from xdt.cli._common import read_csv

    with pytest.raises(DataError, match="is a folder, not a data file"):
        read_csv(tmp_path)


def test_redundancy_reads_the_model_target_and_warns_on_a_column_of_no_class(tour):
    model, data = str(tour / "model.json"), str(tour / "german.csv")
    tree = xdt.load_model(model)
    frame = load_german()
    accuracy = (tree.predict(frame) == frame["class"].to_numpy()).mean()
    default = run("redundancy", model, "--data", data)
    assert default.exit_code == 0, default.output
    assert f"accuracy                     {100 * accuracy:.1f}% on {data} (1000 rows)" in \
        default.stdout
    named = run("redundancy", model, "--data", data, "--target", "class")
    assert named.stdout == default.stdout
    wrong = run("redundancy", model, "--data", data, "--target", "purpose")
    assert "accuracy                     0.0%" in wrong.stdout
    assert "no label of column 'purpose' is a class of the model (bad, good)" in wrong.stderr


def test_a_numeric_column_with_text_late_in_a_large_file_is_read_without_a_warning(tmp_path):
    from xdt.cli._common import read_csv

    path = tmp_path / "late.csv"
    rows = ["x,y"] + [f"{i},a" for i in range(300_000)] + ["abc,b"]
    path.write_text("\n".join(rows) + "\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # pandas' DtypeWarning would be raised here
        frame = read_csv(path)
    assert frame["x"].iloc[-1] == "abc" and frame["x"].iloc[0] == "0" and len(frame) == 300_001


def test_a_malformed_scheduler_address_leaves_no_dask_client_behind(tour, tmp_path):
    """The address is checked before a distributed.Client is made: one made of a bad
    address stays the process's default client, and Dask computations made after it in the
    same process (``xdt.run.read_dask``) would wait on it."""
    dask = pytest.importorskip("dask")
    distributed = pytest.importorskip("distributed")
    before = dask.config.get("scheduler", None)
    for address in ("notaurl", "foo://x:1"):
        result = run("explain", str(tour / "model.json"), "--data", str(tour / "german.csv"),
                     "--scheduler", address, "--output", str(tmp_path / "out"))
        assert result.exit_code == 2
        assert dask.config.get("scheduler", None) == before
        with pytest.raises(ValueError, match="No clients found"):
            distributed.default_client()
