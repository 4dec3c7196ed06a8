"""A CSV line with more fields than the header is named by its line number (the header is
line 1), in every command that reads CSV files, instead of what pandas makes of it: the first
column read as row labels and every value shifted (``row 0: feature 'checking_status' has
value 'radio/tv'``), or a count of records rather than lines."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from click.testing import CliRunner

import xdt
import xdt.run as xb
from xdt.cli import main
from xdt.cli._common import read_csv
from xdt.cli._demo_job import load_german
from xdt.errors import FieldCountError
from xdt.interop import _csvfile as csvfile


@pytest.fixture(scope="module")
def german_lines() -> list[str]:
    """The lines of German credit as CSV: a header of 22 fields, then 1000 rows."""
    lines = load_german().to_csv(index=False).splitlines()
    assert lines[0].count(",") == 21 and len(lines) == 1001
    return lines


@pytest.fixture(scope="module")
def model_path(tmp_path_factory, german_lines) -> Path:
    folder = tmp_path_factory.mktemp("german")
    (folder / "german.csv").write_text("\n".join(german_lines) + "\n")
    path = folder / "model.json"
    result = CliRunner().invoke(main, ["fit", str(folder / "german.csv"), "-t", "class",
                                       "--max-depth", "3", "-o", str(path)])
    assert result.exit_code == 0, result.output
    return path


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n")
    return path


def _unquoted_comma(lines: list[str], start: int) -> tuple[list[str], int]:
    """The lines with the first 'radio/tv' from position ``start`` on (0: the header)
    written as 'radio,tv,x' (two more fields), and its line number (1-based)."""
    out = list(lines)
    index = next(i for i in range(start, len(out)) if "radio/tv" in out[i])
    out[index] = out[index].replace("radio/tv", "radio,tv,x", 1)
    return out, index + 1


EXTRA_ON_LINE_2 = ("line 2 has 24 fields, the header has 22; remove the extra fields, or put "
                   'the value that holds a comma in double quotes ("radio, tv")')


@pytest.mark.parametrize("command", [
    ["fit", "{data}", "-t", "class"],
    ["explain", "{model}", "--data", "{data}", "--rows", "0:3"],
    ["explain", "{model}", "--data", "{data}", "--batch", "-o", "{out}"],
    ["crosscheck", "{model}", "--data", "{data}", "--rows", "0:3"],
    ["redundancy", "{model}", "--data", "{data}", "-t", "class"],
    ["cluster", "{data}", "-t", "class", "-p", "good"],
])
def test_every_command_names_the_line_with_extra_fields(command, german_lines, model_path,
                                                        tmp_path):
    lines, line = _unquoted_comma(german_lines, 1)
    assert line == 2
    data = _write(tmp_path / "bad.csv", lines)
    args = [a.format(data=data, model=model_path, out=tmp_path / "out.jsonl") for a in command]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1, result.output
    assert result.stderr.strip() == f"Error: {data}: {EXTRA_ON_LINE_2}"


def test_a_later_line_and_a_delimiter_at_the_end_of_every_line(german_lines, tmp_path):
    lines, line = _unquoted_comma(german_lines, 101)
    later = _write(tmp_path / "later.csv", lines)
    with pytest.raises(FieldCountError) as e:
        read_csv(later)
    assert (e.value.line, e.value.fields, e.value.header_fields) == (line, 24, 22)
    ends = _write(tmp_path / "ends.csv",
                  german_lines[:1] + [line + "," for line in german_lines[1:]])
    with pytest.raises(FieldCountError, match=r"line 2 has 23 fields, the header has 22; "
                                              r"remove the 1 empty field\(s\) at its end"):
        read_csv(ends)
    packed = tmp_path / "later.csv.gz"
    packed.write_bytes(gzip.compress(later.read_bytes()))
    with pytest.raises(FieldCountError, match=f"line {line} has 24 fields"):
        read_csv(packed)


def test_lines_are_counted_as_an_editor_counts_them(tmp_path):
    # a quoted value over two lines, and a blank line, before the bad line (line 6)
    path = tmp_path / "t.csv"
    path.write_text('a,b,c\n1,"two\nlines",3\n\n4,5,6\n7,8,9,10\n')
    with pytest.raises(FieldCountError) as e:
        csvfile.find_long_line(path)
    assert (e.value.line, e.value.fields, e.value.header_fields) == (6, 4, 3)
    csvfile.check_first_line(path)           # the first data line is fine
    path.write_text('a,b,c\n1,2,3\n4,"5,6",7\n')
    csvfile.find_long_line(path)             # a quoted comma is one field


def test_a_line_with_fewer_fields_is_read_as_missing_values(german_lines, tmp_path):
    lines = list(german_lines)
    lines[5] = lines[5].rsplit(",", 1)[0]    # line 6 (data row 4) lacks its class
    data = _write(tmp_path / "short.csv", lines)
    frame = read_csv(data)
    assert frame.shape == (1000, 22) and frame["class"].isna().tolist().index(True) == 4
    result = CliRunner().invoke(main, ["fit", str(data), "-t", "class"])
    assert result.exit_code == 1
    assert ("target column 'class' has 1 missing value(s) at row(s) 4 (0-based data rows)"
            in result.stderr)


def test_dask_reader_names_the_line(german_lines, model_path, tmp_path):
    model = xdt.load_model(model_path)
    first = _write(tmp_path / "first.csv", _unquoted_comma(german_lines, 1)[0])
    with pytest.raises(FieldCountError, match=EXTRA_ON_LINE_2.replace("(", r"\(")
                       .replace(")", r"\)")):
        xb.read_dask(model, first, blocksize=20_000)
    lines, line = _unquoted_comma(german_lines, 700)
    later = _write(tmp_path / "later.csv", lines)
    with pytest.raises(FieldCountError, match=f"line {line} has 24 fields"):  # not in block 1
        xb.read_dask(model, later, blocksize=20_000)
