"""``xdt explain --batch`` streams its CSV input (issue 32, row 10): chunk by chunk, read,
explained, written and dropped. Every cell of a feature's column is read by one rule
(:mod:`xdt.interop._csvchunks`), so that the records, the skipped rows and the messages
naming a bad row by its row number are the same for any chunk size, and the same as the
whole file read at once (``read_model_csv``, what ``--batch`` read before)."""

from __future__ import annotations

import gzip
import json
import re
import weakref
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

import xdt
import xdt.run as xb
from xdt.cli import main
from xdt.cli._common import read_model_csv
from xdt.errors import DataError, FieldCountError, InvalidRowError, XdtError
from xdt.interop import _csvchunks as csvchunks
from xdt.ir import Branch, CategoricalSplit, DecisionTree, Feature, Leaf, ThresholdSplit
from xdt.ir._instances import as_frame

# x <= 2.5: k (a numeric domain) decides; else s (a text domain, "01" is not "1"), then b
TREE = DecisionTree(
    [Feature("x", "ordinal"), Feature("k", "categorical", (0, 1, 2)),
     Feature("s", "categorical", ("01", "1", "NA")), Feature("b", "binary")], ["no", "yes"],
    ThresholdSplit("x", 2.5,
                   CategoricalSplit("k", (Branch((0, 2), Leaf("no")), Branch((1,), Leaf("yes")))),
                   CategoricalSplit("s", (
                       Branch(("01",), Leaf("yes")),
                       Branch(("1", "NA"), CategoricalSplit("b", (
                           Branch((0,), Leaf("no")), Branch((1,), Leaf("yes")))))))))

HEADER = "id,x,k,b,s,label"
#: Rows of every kind: numbers written as a file holds them, a value that is no number
#: ("old", "NA" for x), a category not in the domain (k = 3, b = 2, s = "02"), empty cells,
#: the text "NA" as a category, "01" beside "1", a line with fewer fields (s and label
#: empty). (An empty cell or a "1.0" in k or b made the whole file's column float: below.)
LINES = ["r0,1,1,0,01,yes", "r1,3.5,0,1,1,yes", "r2,1e3,2,0,NA,no", "r3, 2 ,01,1,01,yes",
         "r4,old,1,0,01,no", "r5,0.25,1,1,,no", "r6,7,1,2,1,no", "r7,NA,0,1,01,no",
         "r8,4,3,0,1,no", "r9,-2,0,1", "r10,,1,1,NA,yes", "r11,inf,1,1,1,yes",
         "r12,12,2,0,02,no", "r13,2.5,1,0,1,yes", "r14,3,0,1,NA,yes", "r15,9,1,0,01,yes"]
ROWS = LINES * 4  # 64 rows: a bad row in several chunks of any size


def _write(path: Path, lines: list[str], header: str = HEADER) -> Path:
    text = "\n".join([header, *lines]) + "\n"
    if path.suffix == ".gz":
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)
    return path


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() \
        else []


def _run(data, out: Path, chunk_rows: int, **kw) -> tuple:
    """The summary (or the error), the records and the skipped rows of a run."""
    try:
        summary = xb.explain_table(TREE, data, output=out, chunk_rows=chunk_rows,
                                   progress=False, **kw)
        outcome = (summary.rows, summary.partitions, summary.skipped)
    except XdtError as e:
        outcome = (type(e), str(e).replace(str(out), "OUT"))
    return outcome, _lines(out), _lines(out.with_name(out.stem + ".invalid.jsonl"))


def _whole(path: Path) -> pd.DataFrame:
    """The file as ``--batch`` read it before it streamed: all of it at once."""
    return as_frame(TREE.features, read_model_csv(path, TREE))


@pytest.mark.parametrize("suffix", [".csv", ".csv.gz"])
@pytest.mark.parametrize("on_invalid", ["skip", "raise"])
def test_streamed_runs_equal_the_whole_file_read_for_any_chunk_size(suffix, on_invalid,
                                                                    tmp_path):
    data = _write(tmp_path / f"rows{suffix}", ROWS)
    for chunk_rows in (1, 7, len(ROWS)):
        whole = _run(_whole(data), tmp_path / f"w{chunk_rows}.jsonl", chunk_rows,
                     on_invalid=on_invalid)
        streamed = _run(xb.read_chunks(TREE, data, chunk_rows),
                        tmp_path / f"s{chunk_rows}.jsonl", chunk_rows, on_invalid=on_invalid)
        assert streamed == whole, chunk_rows
        # the same records and skipped rows whatever the chunk size
        assert streamed[1:] == _run(xb.read_chunks(TREE, data, 3), tmp_path / f"t{chunk_rows}"
                                    ".jsonl", chunk_rows, on_invalid=on_invalid)[1:]
    records, skipped = streamed[1], streamed[2]
    if on_invalid == "skip":
        bad = {"r4": "old", "r5": "s", "r6": "b", "r7": "NA", "r8": "k", "r9": "s", "r10": "x",
               "r11": "inf", "r12": "02"}
        assert [r["row"] for r in skipped] == [16 * q + int(r[1:]) for q in range(4)
                                               for r in bad]
        assert len(records) == 64 - 36 and records[0]["row"] == 0
        assert skipped[0]["values"] == {"x": "old", "k": 1, "s": "01", "b": 0}
        assert skipped[1]["values"] == {"x": 0.25, "k": 1, "s": None, "b": 1}
        assert skipped[4]["reason"] == ("feature 'k' has value 3, which is not in its domain "
                                        "[0, 1, 2]; map it to one of these values")
    else:
        assert streamed[0][0] is InvalidRowError
        assert streamed[0][1].startswith("row 4: ordinal feature 'x' needs numbers")
        assert [r["row"] for r in records] == [0, 1, 2, 3]


def test_row_numbers_of_the_command_are_the_files_for_any_chunk_size(tmp_path):
    model = tmp_path / "model.json"
    xdt.save_model(TREE, model)
    data = _write(tmp_path / "rows.csv", ROWS)
    runs = []
    for chunk_rows in ("1", "7", "64"):
        out = tmp_path / f"o{chunk_rows}.jsonl"
        result = CliRunner().invoke(main, ["explain", str(model), "--data", str(data),
                                           "--batch", "-o", str(out), "--skip-invalid",
                                           "--chunk-rows", chunk_rows, "--rows", "5:40"])
        assert result.exit_code == 0, result.output
        runs.append((_lines(out), _lines(tmp_path / f"o{chunk_rows}.invalid.jsonl")))
    assert runs[0] == runs[1] == runs[2]
    rows = sorted([r["row"] for r in runs[0][0]] + [r["row"] for r in runs[0][1]])
    assert rows == list(range(5, 40))
    stopped = CliRunner().invoke(main, ["explain", str(model), "--data", str(data), "--batch",
                                        "-o", str(tmp_path / "r.jsonl"), "--rows", "-60:",
                                        "--chunk-rows", "2"])
    assert stopped.exit_code == 1
    assert stopped.stderr.startswith("Error: row 4: ordinal feature 'x' needs numbers")
    assert "nothing was written" in stopped.stderr
    assert _lines(tmp_path / "r.jsonl") == []


def test_one_text_cell_among_numbers_is_one_bad_cell_not_a_bad_column(tmp_path):
    """Where the whole file was read at once, text "x" in the numeric domain k made pandas
    read the whole column as text, and no row's k ("1" is not 1) was in the domain; read
    cell by cell, only that row is refused, in any chunk."""
    lines = ["r0,1,1,0,01,yes", "r1,1,x,0,01,no", "r2,1,0,0,01,no", "r3,4,2,1,01,yes"]
    data = _write(tmp_path / "k.csv", lines)
    whole = _run(_whole(data), tmp_path / "w.jsonl", 2, on_invalid="skip")
    assert [r["row"] for r in whole[2]] == [0, 1, 2, 3]  # every row: "2" is not 2 either
    for chunk_rows in (1, 2, 4):
        streamed = _run(xb.read_chunks(TREE, data, chunk_rows), tmp_path / f"s{chunk_rows}"
                        ".jsonl", 2, on_invalid="skip")
        assert [r["row"] for r in streamed[2]] == [1]
        assert [(r["row"], r["prediction"]) for r in streamed[1]] == [
            (0, "yes"), (2, "no"), (3, "yes")]


def test_an_empty_cell_elsewhere_no_longer_makes_a_category_a_float(tmp_path):
    """Read at once, one empty cell of k made the whole column float, so that the unknown
    category 3 of another row was reported as 3.0 "(its type is float...)"; read cell by
    cell it is the 3 the file holds, in any chunk."""
    data = _write(tmp_path / "k.csv", ["r0,1,,0,01,yes", "r1,1,3,0,01,no"])
    whole = _run(_whole(data), tmp_path / "w.jsonl", 2, on_invalid="skip")
    assert "has value 3.0, which is not in its domain" in whole[2][1]["reason"]
    for chunk_rows in (1, 2):
        streamed = _run(xb.read_chunks(TREE, data, chunk_rows), tmp_path / f"s{chunk_rows}"
                        ".jsonl", 2, on_invalid="skip")
        assert streamed[2][0] == whole[2][0]  # the missing value: as before
        assert streamed[2][1]["reason"] == ("feature 'k' has value 3, which is not in its "
                                            "domain [0, 1, 2]; map it to one of these values")


def test_files_that_cannot_be_read_say_so_as_before_and_write_nothing(tmp_path):
    cases = {
        "header_only.csv": [],
        "no_k.csv": None,
        "long_first.csv": ["r0,1,1,0,01,yes,extra", *LINES],
        "empty.csv": "",
    }
    for name, lines in cases.items():
        path = tmp_path / name
        if lines == "":
            path.write_text("")
        elif lines is None:
            _write(path, ["r0,1,0,01,yes"], header="id,x,b,s,label")
        else:
            _write(path, lines)
        with pytest.raises(XdtError) as before:
            _whole(path)
        out = tmp_path / f"{name}.jsonl"
        out.write_text("kept\n")
        with pytest.raises(type(before.value)) as now:
            xb.explain_table(TREE, xb.read_chunks(TREE, path, 5), output=out, overwrite=True,
                             progress=False)
        assert str(now.value) == str(before.value), name
        assert out.read_text() == "kept\n", name  # an unreadable file replaces nothing
    with pytest.raises(FileNotFoundError):
        next(xb.read_chunks(TREE, tmp_path / "nowhere.csv"))


def test_a_later_long_line_stops_the_stream_after_complete_records(tmp_path):
    lines = [LINES[0]] * 30
    lines[22] += ",extra"  # line 24 of the file
    data = _write(tmp_path / "late.csv", lines)
    with pytest.raises(FieldCountError) as before:
        _whole(data)
    out = tmp_path / "o.jsonl"
    with pytest.raises(FieldCountError) as now:
        xb.explain_table(TREE, xb.read_chunks(TREE, data, 10), output=out, chunk_rows=10,
                         progress=False)
    assert str(now.value).startswith(str(before.value))
    assert "line 24 has 7 fields" in str(now.value)
    assert str(now.value).endswith(f"the run stopped there: 20 rows (complete records) are "
                                   f"in {out}")
    assert [r["row"] for r in _lines(out)] == list(range(20)) and now.value.written == 20


def test_the_stream_holds_one_chunk_at_a_time(tmp_path, monkeypatch):
    """The reader is asked for chunks of ``--chunk-rows`` rows, and the rows alive at once
    are at most two chunks (the one explained, the one just read) of a 600-row file."""
    data = _write(tmp_path / "many.csv", [LINES[0], LINES[1]] * 300)
    asked, alive, most = [], [], [0]
    read_csv, convert = pd.read_csv, csvchunks.cell_values

    def spy_read_csv(*args, **kwargs):
        asked.append(kwargs.get("chunksize"))
        return read_csv(*args, **kwargs)

    def spy_cell_values(features, frame):
        out = convert(features, frame)
        alive.append(weakref.ref(out))
        most[0] = max(most[0], sum(len(f()) for f in alive if f() is not None))
        return out

    monkeypatch.setattr(csvchunks.pd, "read_csv", spy_read_csv)
    monkeypatch.setattr(csvchunks, "cell_values", spy_cell_values)
    model = tmp_path / "model.json"
    xdt.save_model(TREE, model)
    out = tmp_path / "o.jsonl"
    result = CliRunner().invoke(main, ["explain", str(model), "--data", str(data), "--batch",
                                       "-o", str(out), "--chunk-rows", "25"])
    assert result.exit_code == 0, result.output
    assert asked == [25] and len(_lines(out)) == 600
    assert 25 <= most[0] <= 50


def test_a_pandas_reader_is_a_stream_too_and_a_stream_is_not_for_dask(tmp_path):
    data = _write(tmp_path / "rows.csv", [LINES[0], LINES[1], LINES[13]] * 5)
    reader = pd.read_csv(data, chunksize=4, dtype={"s": str})  # the types are the caller's
    frame = xb.explain_table(TREE, reader, progress=False)
    assert frame["row"].tolist() == list(range(15))
    assert frame["prediction"].tolist() == ["yes", "yes", "yes"] * 5
    with pytest.raises(xdt.errors.ParameterError, match="stream of chunks"):
        xb.explain_table(TREE, xb.read_chunks(TREE, data), output=tmp_path / "o",
                         npartitions=2)
    with pytest.raises(xdt.errors.ParameterError, match="chunk_rows"):
        xb.read_chunks(TREE, data, 0)


def test_the_reader_rule_one_cell_at_a_time():
    frame = pd.DataFrame({"x": ["30", "41.5", "old", None, " 7 ", "1e3", "True"],
                          "k": ["1", "1.0", "x", None, "TRUE", "02", "3"],
                          "s": ["01", "1", "NA", None, "01", "1", "x"],
                          "b": ["0", "1", "2", None, "false", "1.0", "a"]})
    out = csvchunks.cell_values(TREE.features, frame)
    assert out["x"].tolist()[:3] == [30, 41.5, "old"] and pd.isna(out["x"][3])
    assert out["x"].tolist()[4:] == [7, 1000.0, "True"]
    assert [type(v) for v in out["x"].tolist()[:2]] == [int, float]
    assert [v for v in out["k"].tolist() if not pd.isna(v)] == [1, 1.0, "x", True, 2, 3]
    assert out["s"].tolist()[:3] == ["01", "1", "NA"]
    assert [v for v in out["b"].tolist() if not pd.isna(v)] == [0, 1, 2, False, 1.0, "a"]
    assert frame["x"].tolist()[0] == "30"  # the frame itself is left as it was
    # what Python's int and float read and pandas does not stays text; huge integers exact
    odd = pd.DataFrame({"x": ["1_000", "\uff14", "99999999999999999999999", "40.0", "nan"]})
    assert csvchunks.cell_values(TREE.features[:1], odd)["x"].tolist()[:4] == [
        "1_000", "\uff14", 99999999999999999999999, 40.0]
    assert csvchunks.cell_values(TREE.features[:1], odd)["x"].tolist()[4] == "nan"
    with pytest.raises(DataError, match="no data file named"):
        next(xb.read_chunks(TREE, ""))


def test_ctrl_c_while_reading_leaves_the_chunks_written(tmp_path, monkeypatch):
    data = _write(tmp_path / "rows.csv", [LINES[0], LINES[1]] * 20)
    convert, calls = csvchunks.cell_values, [0]

    def interrupted(features, frame):
        calls[0] += 1
        if calls[0] == 3:
            raise KeyboardInterrupt
        return convert(features, frame)

    monkeypatch.setattr(csvchunks, "cell_values", interrupted)
    out = tmp_path / "o.jsonl"
    with pytest.raises(xb.BatchInterrupted) as e:
        xb.explain_table(TREE, xb.read_chunks(TREE, data, 8), output=out, chunk_rows=8,
                         progress=False)
    assert e.value.rows == 16 and [r["row"] for r in _lines(out)] == list(range(16))


def test_the_progress_bar_counts_the_rows_of_a_stream(tmp_path, capsys):
    data = _write(tmp_path / "rows.csv", [LINES[0]] * 30)
    xb.explain_table(TREE, xb.read_chunks(TREE, data, 7), output=tmp_path / "o.jsonl",
                     chunk_rows=7, progress=True)
    bar = capsys.readouterr().err
    # no total, "7/30": a count of the rows done, "explaining: 7row [00:01, 3.64row/s]"
    assert re.search(r"explaining: \d+row \[", bar) and "/30" not in bar
