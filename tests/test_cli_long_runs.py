"""Long commands never throw work away, and what they print is safe for a terminal.

* ``xdt report`` and ``xdt explain`` (row by row) give each row a default time budget for
  listing explanations (``DEFAULT_ROW_TIME_LIMIT``), stated in ``--help``, lifted by
  ``--time-limit none``, and marked where it cut a list short (text, JSON, page); the
  budget's effect is shown on a fake clock, never by timing.
* Ctrl-C in ``xdt report`` writes the page of the rows finished so far, marked as
  interrupted; Ctrl-C in ``xdt demo`` (and any command) exits 130 with a message.
* A row the model cannot read does not stop a row-by-row run: the other rows are printed,
  then the bad one is reported (exit 1); ``--skip-invalid`` leaves it out (exit 0) and
  lists it; ``xdt report`` refuses it before any work, or lists it in the page with
  ``--skip-invalid``.
* Terminal control characters in names and values from files are printed as visible
  escapes; JSON output keeps them exactly.

The tennis tree (encodings/examples/playtennis.json): Humidity = normal -> yes; else
Outlook = overcast -> yes, else no. Row 0 (sunny, high, weak) is predicted "no"; its AXp is
{Humidity, Outlook} and its CXps are {Humidity} and {Outlook}.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from clitools import assert_clean_failure, run

from xdt.cli import _common as common
from xdt.explain.queries import _duality
from xdt.run import _instance as instance_module
from xdt.run import _records as records_module

ROOT = Path(__file__).resolve().parent.parent
TENNIS_MODEL = ROOT / "encodings" / "examples" / "playtennis.json"
TENNIS_ROWS = """Outlook,Humidity,Wind,play
sunny,high,weak,no
sunny,high,strong,no
overcast,high,weak,yes
rain,high,weak,yes
rain,normal,weak,yes
"""
# row 2 has an empty cell (a missing value) and row 4 a category the model does not know
BAD_ROWS = """Outlook,Humidity,Wind,play
sunny,high,weak,no
sunny,high,strong,no
,high,weak,yes
rain,high,weak,yes
foggy,normal,weak,yes
overcast,normal,weak,yes
"""


@pytest.fixture
def tennis_csv(tmp_path: Path) -> Path:
    path = tmp_path / "tennis.csv"
    path.write_text(TENNIS_ROWS)
    return path


@pytest.fixture
def bad_csv(tmp_path: Path) -> Path:
    path = tmp_path / "bad.csv"
    path.write_text(BAD_ROWS)
    return path


def page_data(page: str) -> dict:
    found = re.search(r'<script type="application/json" id="xdt-data">(.*?)</script>', page,
                      re.S)
    assert found is not None
    return json.loads(found.group(1))


def labels_printed(stdout: str) -> list[int]:
    """The row numbers of the text records printed (``row K: predicts ...``)."""
    return [int(k) for k in re.findall(r"^row (\d+): predicts", stdout, re.M)]


def interrupt_at(monkeypatch: pytest.MonkeyPatch, k: int) -> list[int]:
    """Make the k-th row explained (0-based) raise KeyboardInterrupt, as Ctrl-C would."""
    calls: list[int] = []
    real = records_module.explain_instance

    def explain(*args, **kwargs):
        calls.append(1)
        if len(calls) == k + 1:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(records_module, "explain_instance", explain)
    return calls


class StepClock:
    """A clock that moves ``step`` seconds each time it is read: a deadline of 10 s passes
    at the third read after it is set; patched into :meth:`Deadline.now`."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, step: float):
        self.t, self.step = 0.0, step
        monkeypatch.setattr(_duality.Deadline, "now", lambda _: self.tick())

    def tick(self) -> float:
        self.t += self.step
        return self.t


# ---------------------------------------------------------------------- the time budget
def test_the_default_row_budget_is_stated_in_help_and_can_be_lifted():
    assert common.DEFAULT_ROW_TIME_LIMIT == 10.0
    for command in ("explain", "report"):
        text = " ".join(run(command, "--help").stdout.split())
        assert "(default 10; none: no limit)" in text, command
    assert common.resolve_time_limit(None) == 10.0
    assert common.resolve_time_limit(0.0) is None
    assert common.resolve_time_limit(2.5) == 2.5
    lifted = common.SecondsType(no_limit=True)
    assert [lifted.convert(v, None, None) for v in ("none", "NONE", "off", "3")] \
        == [0.0, 0.0, 0.0, 3.0]
    for value in ("0", "-1", "nan"):  # zero seconds is not "no limit"
        with pytest.raises(Exception, match="not a time limit.*none for no limit"):
            lifted.convert(value, None, None)


def test_each_row_gets_the_default_budget_unless_told_otherwise(tennis_csv, tmp_path,
                                                               monkeypatch):
    made: list[float] = []
    real = instance_module.Deadline

    def spy(seconds, *args, **kwargs):
        made.append(seconds)
        return real(seconds, *args, **kwargs)

    monkeypatch.setattr(instance_module, "Deadline", spy)
    args = ("explain", str(TENNIS_MODEL), "--data", str(tennis_csv), "--all-cxps", "-q")
    assert run(*args).exit_code == 0
    assert made == [10.0] * 5
    made.clear()
    assert run(*args, "--time-limit", "none").exit_code == 0
    assert made == []
    assert run(*args, "--time-limit", "2.5").exit_code == 0
    assert made == [2.5] * 5
    made.clear()
    out = tmp_path / "r.html"
    assert run("report", str(TENNIS_MODEL), "-d", str(tennis_csv), "-o", str(out)
               ).exit_code == 0
    assert made == [10.0] * 5
    made.clear()
    assert run("report", str(TENNIS_MODEL), "-d", str(tennis_csv), "-o", str(out),
               "--time-limit", "off").exit_code == 0
    assert made == []


def test_a_listing_cut_by_the_budget_is_marked_in_text_json_and_page(tennis_csv, tmp_path,
                                                                     monkeypatch):
    """On a clock moving 4 s per read, each row's 10 s pass before the SAT engine's
    enumeration (which reads the clock between its steps) lists a CXp: every row's listing
    is marked as stopped by the time limit; row 0 has 2 CXps, none listed."""
    StepClock(monkeypatch, 4.0)
    sat = ("--engine", "sat")
    text = run("explain", str(TENNIS_MODEL), "--data", str(tennis_csv), "--rows", "0:1",
               "--all-cxps", *sat)
    assert text.exit_code == 0, text.output
    assert "  all CXps (0 found before the time limit; more may exist; raise --time-limit):" \
        in text.stdout.splitlines()
    record = json.loads(run("explain", str(TENNIS_MODEL), "--data", str(tennis_csv),
                            "--rows", "0:1", "--all-cxps", "--format", "jsonl", *sat).stdout)
    assert record["cxps_stopped_by"] == "time_limit" and record["cxps_complete"] is False
    assert record["cxps"] == []
    out = tmp_path / "r.html"
    result = run("report", str(TENNIS_MODEL), "-d", str(tennis_csv), "-o", str(out), *sat)
    assert result.exit_code == 0, result.output
    assert "in 5 rows the listing of CXps stopped at the time limit (10 s per row; " \
           "--time-limit raises it)" in result.stdout
    page = out.read_text(encoding="utf-8")
    note = re.search(r'<p class="note" id="xdt-time-limited">(.*?)</p>', page, re.S).group(1)
    assert "In 5 of the 5 rows the listing of CXps stopped at the time limit (10 s per " \
           "row)" in html.unescape(note)
    data = page_data(page)
    assert data["time_limit"] == 10.0
    assert [r["cxps_stopped_by"] for r in data["records"]] == ["time_limit"] * 5
    assert data["rows"][0]["more"] == "… the enumeration was stopped by its time_limit: " \
                                      "there may be more"
    # without the budget, nothing is cut and nothing is marked
    result = run("report", str(TENNIS_MODEL), "-d", str(tennis_csv), "-o", str(out),
                 "--time-limit", "none", *sat)
    page = out.read_text(encoding="utf-8")
    assert "xdt-time-limited" not in page and "time limit" not in result.stdout
    data = page_data(page)
    assert data["time_limit"] is None
    assert [sorted(c["features"]) for c in data["records"][0]["cxps"]] == [["Humidity"],
                                                                          ["Outlook"]]


# ---------------------------------------------------------------------- Ctrl-C
def test_ctrl_c_in_report_writes_the_rows_finished(tennis_csv, tmp_path, monkeypatch):
    out = tmp_path / "r.html"
    out.write_text("an earlier report")
    interrupt_at(monkeypatch, 3)  # rows 0, 1, 2 are finished; row 3 is stopped
    result = run("report", str(TENNIS_MODEL), "-d", str(tennis_csv), "-o", str(out))
    assert result.exit_code == 130, result.output
    assert "Aborted!" not in result.output and "Traceback" not in result.output
    assert result.stderr.startswith(f"interrupted: wrote {out} with the 3 of 5 rows finished "
                                    "before Ctrl-C, marked as interrupted")
    page = out.read_text(encoding="utf-8")
    data = page_data(page)
    assert data["interrupted"] is True
    assert [r["row"] for r in data["records"]] == [0, 1, 2]
    assert [r["prediction"] for r in data["records"]] == ["no", "no", "yes"]
    note = re.search(r'id="xdt-interrupted">(.*?)</p>', page, re.S).group(1)
    assert "3 of the 5 rows to explain were finished" in note


def test_ctrl_c_in_report_before_any_row_keeps_the_old_file(tennis_csv, tmp_path,
                                                            monkeypatch):
    out = tmp_path / "r.html"
    out.write_text("an earlier report")
    interrupt_at(monkeypatch, 0)
    result = run("report", str(TENNIS_MODEL), "-d", str(tennis_csv), "-o", str(out))
    assert result.exit_code == 130
    assert result.stderr.startswith(f"interrupted: no report written ({out} is as it was): "
                                    "no row was finished")
    assert out.read_text() == "an earlier report"


def test_ctrl_c_in_demo_exits_130_with_a_message(monkeypatch):
    from xdt.cli import _demo_job

    def interrupted(**kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(_demo_job, "run_demo", interrupted)
    result = run("demo")
    assert result.exit_code == 130
    assert "Aborted!" not in result.output
    assert result.stderr == "interrupted: xdt demo stopped before its summary (it writes no " \
                            "file)\n"


def test_ctrl_c_in_any_other_command_exits_130_with_a_message(monkeypatch, tmp_path):
    import xdt

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(xdt, "load_model", interrupted)
    for command in (["redundancy", str(TENNIS_MODEL)],
                    ["encode", str(TENNIS_MODEL), "--instance", "{}", "-o",
                     str(tmp_path / "never.cnf")]):
        result = run(*command)
        assert result.exit_code == 130, (command, result.output)
        assert "Aborted!" not in result.output
        assert result.stderr == f"interrupted: xdt {command[0]} stopped before it finished\n"


# ---------------------------------------------------------------------- bad rows
def test_a_bad_row_is_reported_after_the_good_rows(bad_csv):
    result = run("explain", str(TENNIS_MODEL), "--data", str(bad_csv), "--rows", "0:5")
    assert result.exit_code == 1
    assert labels_printed(result.stdout) == [0, 1, 3]
    assert_clean_failure(result, "Error: 2 of the 5 selected rows not explained (the model "
                                 "cannot read them; the other rows are above): row 2: ",
                         "missing value", "; row 4: ", "'foggy'",
                         "or rerun with --skip-invalid to leave such rows out")
    jsonl = run("explain", str(TENNIS_MODEL), "--data", str(bad_csv), "--format", "jsonl")
    assert jsonl.exit_code == 1
    assert [json.loads(line)["row"] for line in jsonl.stdout.splitlines()] == [0, 1, 3, 5]


def test_skip_invalid_row_by_row(bad_csv, tmp_path):
    result = run("explain", str(TENNIS_MODEL), "--data", str(bad_csv), "--skip-invalid")
    assert result.exit_code == 0, result.output
    assert labels_printed(result.stdout) == [0, 1, 3, 5]
    assert result.stderr.startswith("skipped 2 invalid rows of 6: row 2: ")
    assert "; row 4: " in result.stderr and "'foggy'" in result.stderr
    side = tmp_path / "skipped.jsonl"
    result = run("explain", str(TENNIS_MODEL), "--data", str(bad_csv), "--skip-invalid",
                 "--invalid-output", str(side), "--format", "jsonl")
    assert result.exit_code == 0, result.output
    assert [json.loads(line)["row"] for line in result.stdout.splitlines()] == [0, 1, 3, 5]
    assert f"written with the reasons to {side}" in result.stderr
    skipped = [json.loads(line) for line in side.read_text().splitlines()]
    assert [r["row"] for r in skipped] == [2, 4]
    assert skipped[0]["values"] == {"Humidity": "high", "Outlook": None, "Wind": "weak"}
    assert "missing value" in skipped[0]["reason"] and "'foggy'" in skipped[1]["reason"]
    # an existing side file is replaced only with --force
    again = run("explain", str(TENNIS_MODEL), "--data", str(bad_csv), "--skip-invalid",
                "--invalid-output", str(side))
    assert_clean_failure(again, f"{side} exists", "--force")
    assert run("explain", str(TENNIS_MODEL), "--data", str(bad_csv), "--skip-invalid",
               "--invalid-output", str(side), "--force").exit_code == 0
    # with --instance there are no rows to skip
    refused = run("explain", str(TENNIS_MODEL), "--instance", '{"Outlook": "sunny", '
                  '"Humidity": "high", "Wind": "weak"}', "--skip-invalid")
    assert refused.exit_code == 2 and "with --instance, leave it out" in refused.output


def test_report_refuses_a_bad_row_before_work_or_lists_it(bad_csv, tmp_path, monkeypatch):
    from xdt.report import _html as report_html

    out = tmp_path / "r.html"
    real = report_html.explain_rows
    monkeypatch.setattr(report_html, "explain_rows",
                        lambda *a, **k: pytest.fail("explained before the rows were checked"))
    result = run("report", str(TENNIS_MODEL), "-d", str(bad_csv), "-o", str(out))
    assert_clean_failure(result, "row 2: ", "missing value",
                         "2 of the 6 selected rows cannot be read (rows 2, 4)",
                         "rerun with --skip-invalid to list them in the page as not "
                         "explained")
    assert not out.exists()
    monkeypatch.setattr(report_html, "explain_rows", real)
    result = run("report", str(TENNIS_MODEL), "-d", str(bad_csv), "-o", str(out),
                 "--skip-invalid")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"wrote {out}: 4 of 6 rows explained (4 with every "
                                    "certificate checked); 2 rows not explained, listed in "
                                    "the page (the model cannot read them): row 2: ")
    page = out.read_text(encoding="utf-8")
    data = page_data(page)
    assert [r["row"] for r in data["records"]] == [0, 1, 3, 5]
    assert [r["row"] for r in data["invalid"]] == [2, 4]
    listed = html.unescape(re.search(r'id="xdt-invalid">(.*?)</div>', page, re.S).group(1))
    assert "2 rows not explained" in listed and "row 4: " in listed and "'foggy'" in listed


# ---------------------------------------------------------------------- terminal safety
def test_terminal_safe_escapes_what_a_terminal_acts_on():
    assert common.terminal_safe("a\x1b]0;pwned\x07b\x1b[2J") == "a\\x1b]0;pwned\\x07b\\x1b[2J"
    assert common.terminal_safe("\x00\x08\r\x7f\x9b\x85") == "\\x00\\x08\\x0d\\x7f\\x9b\\x85"
    assert common.terminal_safe("a\u202eb\u2066\u2028") == "a\\u202eb\\u2066\\u2028"
    assert common.terminal_safe("keep\tthese\nand ünïcødé €") == "keep\tthese\nand ünïcødé €"
    value = "x\x1b[2J\x7f\x9b\u202e\n"
    text = common.json_safe(json.dumps(value, ensure_ascii=False))
    assert json.loads(text) == value  # the same JSON value
    assert common.terminal_safe(text) == text  # and nothing left to escape


HOSTILE = "age\x1b]0;pwned\x07"
CLEAR = "\x1b[2J"


@pytest.fixture
def hostile_model(tmp_path: Path) -> Path:
    """A tree whose feature name sets the terminal's title and whose category value and
    class clear the screen."""
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps({
        "format": "xdt-model/1", "kind": "tree",
        "features": [{"name": HOSTILE, "kind": "categorical",
                      "domain": ["young", f"old{CLEAR}"]}],
        "classes": ["no", f"yes{CLEAR}"],
        "root": {"feature": HOSTILE, "branches": [
            {"in": ["young"], "node": {"class": "no"}},
            {"in": [f"old{CLEAR}"], "node": {"class": f"yes{CLEAR}"}}]}}))
    return path


def assert_no_controls(text: str) -> None:
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", text), repr(text)


@pytest.mark.parametrize("where", ["feature", "category", "class"])
def test_a_name_with_a_line_break_is_refused_before_anything_is_printed(tmp_path, where):
    # a line feed in a name would forge lines of the output: "IF a\nAXp: forged"
    name = "a\nAXp: forged" if where == "feature" else "a"
    value = "old\nforged" if where == "category" else "old"
    label = "yes\nforged" if where == "class" else "yes"
    path = tmp_path / "lines.json"
    path.write_text(json.dumps({
        "format": "xdt-model/1", "kind": "tree",
        "features": [{"name": name, "kind": "categorical", "domain": ["young", value]}],
        "classes": ["no", label],
        "root": {"feature": name, "branches": [{"in": ["young"], "node": {"class": "no"}},
                                               {"in": [value], "node": {"class": label}}]}}))
    x = json.dumps({name: "young"})
    for command in (["explain", str(path), "--instance", x], ["redundancy", str(path)],
                    ["encode", str(path), "--instance", x, "-o", str(tmp_path / "q.cnf")]):
        result = run(*command)
        assert result.exit_code == 1, result.output
        assert "holds a line break" in result.stderr and "forged" not in result.stdout
        assert "\nforged" not in result.stderr and "\nAXp: forged" not in result.stderr


def test_fit_refuses_a_column_name_with_a_line_break(tmp_path):
    data = tmp_path / "lines.csv"
    data.write_text('"a\nforged",y\n1,no\n2,yes\n1,no\n2,yes\n', encoding="utf-8")
    result = run("fit", str(data), "--target", "y")
    assert result.exit_code == 1, result.output
    assert "holds a line break" in result.stderr and "forged" not in result.stdout


def test_names_and_values_from_files_are_escaped_when_printed(hostile_model, tmp_path):
    x = json.dumps({HOSTILE: f"old{CLEAR}"})
    result = run("explain", str(hostile_model), "--instance", x)
    assert result.exit_code == 0, result.output
    assert_no_controls(result.output)
    assert "instance: predicts yes\\x1b[2J" in result.stdout
    assert "age\\x1b]0;pwned\\x07 = old\\x1b[2J" in result.stdout
    # JSON keeps the exact names and values
    record = json.loads(run("explain", str(hostile_model), "--instance", x, "--format",
                            "jsonl").stdout)
    assert record["prediction"] == f"yes{CLEAR}" and record["axp"]["features"] == [HOSTILE]
    # an error message naming a value read from a file
    csv = tmp_path / f"rows{CLEAR}.csv"
    csv.write_text(f'"{HOSTILE}"\nyoung\nnew\x1b[31m\n', encoding="utf-8")
    result = run("explain", str(hostile_model), "--data", str(csv))
    assert result.exit_code == 1
    assert_no_controls(result.output)
    assert "row 1: " in result.stderr
    # tables and summaries of other commands, and a file name
    for command in (["redundancy", str(hostile_model), "--per-path"],
                    ["report", str(hostile_model), "-d", str(csv), "--skip-invalid", "-o",
                     str(tmp_path / f"r{CLEAR}.html")]):
        result = run(*command)
        assert result.exit_code == 0, result.output
        assert_no_controls(result.output)
        assert "\\x1b" in result.output, result.output
