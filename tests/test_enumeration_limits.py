"""Enumerations that explode stay bounded and visible: the default cap of ``xdt explain``,
the per-found callback and counter, one deadline covering enumeration and certificate
checks (with a fake clock: no wall-clock assertion), and Ctrl-C in ``explain`` and
``crosscheck`` printing what was done.

The model: the tree of ``(a0 AND b0) OR ... OR (a{k-1} AND b{k-1})`` over binary features.
At the all-zeros instance (class 0) its AXps are the ``2**k`` sets holding one feature of
each pair (each pair must be falsified, and one zero does it), and its CXps the ``k`` pairs
``{ai, bi}`` (freeing both of a pair lets that term hold); at the all-ones instance
(class 1) the AXps are the ``k`` pairs and the CXps the ``2**k`` one-of-each-pair sets.
"""

from __future__ import annotations

import importlib
import itertools
import json
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner, Result

import xdt
import xdt.cli._common as cli_common
import xdt.cli._explain as cli
from xdt.cli import main
from xdt.explain import Deadline, EnumerationInterrupted, Explainer
from xdt.explain import _explainer as explainer_module
from xdt.explain._explanation import Explanation
from xdt.explain.checks._crosscheck import CrosscheckInterrupted
from xdt.ir import model_from_dict

K = 4  # 16 AXps at the all-zeros instance
# xdt.crosscheck is the function; its module is xdt.explain.checks._crosscheck
crosscheck_module = importlib.import_module("xdt.explain.checks._crosscheck")


def pairs_tree(k: int) -> dict:
    """The xdt-model/1 document of the tree of ``OR_i (ai AND bi)``."""

    def node(i: int) -> dict:
        if i == k:
            return {"class": 0}
        return {"feature": f"a{i}", "branches": [
            {"in": [0], "node": node(i + 1)},
            {"in": [1], "node": {"feature": f"b{i}", "branches": [
                {"in": [0], "node": node(i + 1)}, {"in": [1], "node": {"class": 1}}]}}]}

    features = [{"name": f"{c}{i}", "kind": "binary"} for i in range(k) for c in "ab"]
    return {"format": "xdt-model/1", "kind": "tree", "features": features,
            "classes": [0, 1], "root": node(0)}


def one_of_each_pair(k: int) -> set[frozenset[str]]:
    return {frozenset(f"{c}{i}" for i, c in enumerate(choice))
            for choice in itertools.product("ab", repeat=k)}


def pairs(k: int) -> set[frozenset[str]]:
    return {frozenset((f"a{i}", f"b{i}")) for i in range(k)}


ZEROS = {f"{c}{i}": 0 for i in range(K) for c in "ab"}
ONES = {f"{c}{i}": 1 for i in range(K) for c in "ab"}


@pytest.fixture
def tree() -> xdt.DecisionTree:
    return model_from_dict(pairs_tree(K))


@pytest.fixture
def model_file(tmp_path: Path) -> Path:
    path = tmp_path / "pairs.json"
    path.write_text(json.dumps(pairs_tree(K)))
    return path


@pytest.fixture
def zeros_csv(tmp_path: Path) -> Path:
    path = tmp_path / "zeros.csv"
    pd.DataFrame([ZEROS] * 3).to_csv(path, index=False)
    return path


class FakeClock:
    """A clock that moves only when told; patched into :meth:`Deadline.now`."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch):
        self.t = 0.0
        monkeypatch.setattr(Deadline, "now", lambda deadline: self.t)


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def lines_of(result: Result) -> list[str]:
    return result.stdout.splitlines()


# ---------------------------------------------------------------------- the model itself
def test_the_pairs_tree_has_the_known_explanations(tree):
    with Explainer(tree) as ex:
        assert {frozenset(e.features) for e in ex.all_axps(ZEROS)} == one_of_each_pair(K)
        assert {frozenset(e.features) for e in ex.all_cxps(ZEROS)} == pairs(K)
        assert {frozenset(e.features) for e in ex.all_axps(ONES)} == pairs(K)
        assert {frozenset(e.features) for e in ex.all_cxps(ONES)} == one_of_each_pair(K)


# ---------------------------------------------------------------------- on_found
@pytest.mark.parametrize("engine", ["path", "sat"])
@pytest.mark.parametrize("what, x, expected", [("all_axps", ZEROS, 2 ** K),
                                               ("all_cxps", ONES, 2 ** K),
                                               ("all_cxps", ZEROS, K)])
def test_on_found_is_called_once_per_explanation_with_increasing_counts(tree, engine, what,
                                                                        x, expected):
    calls = []
    with Explainer(tree, engine=engine) as ex:
        found = getattr(ex, what)(x, on_found=lambda n, e: calls.append((n, e)))
    assert [n for n, _ in calls] == list(range(1, expected + 1))
    assert {frozenset(e.features) for _, e in calls} == {frozenset(e.features) for e in found}
    assert len(found) == expected and found.complete


def test_on_found_stops_counting_at_max_count(tree):
    calls = []
    with Explainer(tree) as ex:
        found = ex.all_axps(ZEROS, max_count=5, on_found=lambda n, e: calls.append(n))
    assert calls == [1, 2, 3, 4, 5]
    assert len(found) == 5 and not found.complete and found.stopped_by == "max_count"


# ---------------------------------------------------------------------- the deadline
def test_deadline_with_a_fake_clock():
    now = [100.0]
    d = Deadline(5, clock=lambda: now[0])
    assert not d.expired() and not d() and d.remaining() == 5
    now[0] = 104.0
    assert d.remaining() == 1 and not d()
    now[0] = 105.5
    assert d.expired() and d() and d.remaining() == 0
    with pytest.raises(ValueError, match="positive, finite number of seconds"):
        Deadline(0)


def test_verification_shares_the_deadline_and_says_what_it_did_not_check(tree, monkeypatch):
    """The clock passes the deadline when the 10th AXp is found; certificates are checked
    in batches of 4, so the first 8 were checked, the 9th was waiting for its batch and the
    10th came after the deadline: both are returned, not verified."""
    clock = FakeClock(monkeypatch)
    monkeypatch.setattr(explainer_module, "VERIFY_BATCH", (4, 4))

    def tick(count, explanation):
        if count == 10:
            clock.t = 11.0

    with Explainer(tree) as ex:
        found = ex.all_axps(ZEROS, verify=True, time_limit=Deadline(10), on_found=tick)
        assert len(found) == 10 and not found.complete and found.stopped_by == "time_limit"
        assert sum(e.verified for e in found) == 8
        for e in found:  # every one listed is an AXp, verified or not
            assert frozenset(e.features) in one_of_each_pair(K)
            assert ex.is_axp(ZEROS, e.features)


def test_the_search_stops_when_the_time_left_only_covers_the_checks(tree, monkeypatch):
    """Checking a certificate costs 1 s on a fake clock, finding one nothing; a 10 s
    limit, batches of 4. After checks at the 4th and 8th AXps (clock 8 s), the 9th and
    10th fit in the 2 s left, the 11th would not: the search stops, 2 more are checked
    (clock 10 s) and the 11th is returned unverified. The deadline is never overrun."""
    clock = FakeClock(monkeypatch)
    monkeypatch.setattr(explainer_module, "VERIFY_BATCH", (4, 4))
    check = explainer_module.check_certificates

    def costly(model, explanations, **kwargs):
        check(model, explanations, **kwargs)
        clock.t += len(explanations)

    monkeypatch.setattr(explainer_module, "check_certificates", costly)
    with Explainer(tree) as ex:
        found = ex.all_axps(ZEROS, verify=True, time_limit=Deadline(10))
    assert len(found) == 11 and found.stopped_by == "time_limit"
    assert sum(e.verified for e in found) == 10
    assert clock.t == 10


def test_a_shared_deadline_passed_stops_the_next_enumeration_unverified(tree, monkeypatch):
    clock = FakeClock(monkeypatch)
    with Explainer(tree) as ex:
        deadline = Deadline(10)
        clock.t = 10.5
        cxps = ex.all_cxps(ZEROS, verify=True, time_limit=deadline)
    # the path engine lists the CXps at once: the first one is built, then the deadline
    # is seen; it is returned without its certificate check
    assert len(cxps) == 1 and cxps.stopped_by == "time_limit"
    assert not cxps[0].verified and frozenset(cxps[0].features) in pairs(K)


def test_without_a_time_limit_every_explanation_is_verified(tree):
    with Explainer(tree) as ex:
        found = ex.all_axps(ZEROS, verify=True)
        assert len(found) == 2 ** K and all(e.verified for e in found)
        assert not any(e.verified for e in ex.all_axps(ZEROS))  # verify=False
        assert ex.axp(ZEROS, verify=True).verified


# ---------------------------------------------------------------------- Ctrl-C, API
def test_an_interrupted_enumeration_keeps_what_it_found(tree):
    def interrupt(count, explanation):
        if count == 5:
            raise KeyboardInterrupt

    with Explainer(tree) as ex:
        with pytest.raises(EnumerationInterrupted) as info:
            ex.all_axps(ZEROS, verify=True, on_found=interrupt)
        assert isinstance(info.value, KeyboardInterrupt)
        found = info.value.found
        assert len(found) == 5 and not found.complete and found.stopped_by == "interrupted"
        assert all(frozenset(e.features) in one_of_each_pair(K) for e in found)
        assert not any(e.verified for e in found)  # the first batch of checks had not run
        assert len(ex.all_axps(ZEROS)) == 2 ** K  # the explainer still works


# ---------------------------------------------------------------------- the CLI
def test_explain_caps_listings_by_default_and_says_more_exist(model_file, monkeypatch):
    assert cli.DEFAULT_MAX_COUNT == 1000
    assert "(default 1000)" in " ".join(run("explain", "--help").stdout.split())
    monkeypatch.setattr(cli, "DEFAULT_MAX_COUNT", 5)  # a cap below the 16 AXps
    x = json.dumps(ZEROS)
    text = run("explain", str(model_file), "--instance", x, "--all-axps")
    assert text.exit_code == 0, text.output
    assert "  all AXps (5 listed; more exist; raise --max-count):" in lines_of(text)
    assert sum(line.startswith("    - IF ") for line in lines_of(text)) == 5
    record = json.loads(run("explain", str(model_file), "--instance", x, "--all-axps",
                            "--all-cxps", "--format", "jsonl").stdout)
    assert len(record["axps"]) == 5 and record["axps_complete"] is False
    assert record["axps_stopped_by"] == "max_count"
    assert len(record["cxps"]) == K and record["cxps_complete"] is True
    assert record["cxps_stopped_by"] is None
    assert all(e["verified"] for e in record["axps"] + record["cxps"])
    full = json.loads(run("explain", str(model_file), "--instance", x, "--all-axps",
                          "--max-count", "16", "--format", "jsonl").stdout)
    assert len(full["axps"]) == 16 and full["axps_complete"] is True
    assert {frozenset(e["features"]) for e in full["axps"]} == one_of_each_pair(K)


def test_explain_time_limit_covers_verification_and_marks_the_unverified(model_file,
                                                                         monkeypatch):
    """A fake clock moves one second per explanation built: the row's 10 s go to the one
    AXp (1 s) and 9 of the AXps; the 10th AXp is found after the deadline, so the
    enumeration stops; certificates were checked in batches of 4 (8 of them), the 2 others
    are printed as not verified; the CXp enumeration, after the deadline, stops at its
    first CXp, not verified either."""
    clock = FakeClock(monkeypatch)
    monkeypatch.setattr(explainer_module, "VERIFY_BATCH", (4, 4))
    build = Explainer._explanation

    def slow(self, *args, **kwargs):
        clock.t += 1.0
        return build(self, *args, **kwargs)

    monkeypatch.setattr(Explainer, "_explanation", slow)
    x = json.dumps(ZEROS)
    record = json.loads(run("explain", str(model_file), "--instance", x, "--all-axps",
                            "--all-cxps", "--time-limit", "10.5", "--format",
                            "jsonl").stdout)
    assert record["axp"]["verified"] is True
    assert len(record["axps"]) == 10 and record["axps_stopped_by"] == "time_limit"
    assert [e["verified"] for e in record["axps"]].count(False) == 2
    assert len(record["cxps"]) == 1 and record["cxps_stopped_by"] == "time_limit"
    assert record["cxps"][0]["verified"] is False
    clock.t = 0.0
    text = lines_of(run("explain", str(model_file), "--instance", x, "--all-axps",
                        "--all-cxps", "--time-limit", "10.5"))
    assert ("  all AXps (10 found before the time limit; more may exist; raise --time-limit;"
            " 2 not verified (time limit)):") in text
    assert sum(line.endswith("  [not verified: time limit]") for line in text) == 3
    cxp_head = text.index("  all CXps (1 found before the time limit; more may exist; raise "
                          "--time-limit; 1 not verified (time limit)):")
    assert text[cxp_head + 1].endswith("  [not verified: time limit]")


def test_explain_jsonl_time_limit_covers_building_the_records(model_file, monkeypatch):
    """Finding and checking cost nothing on a fake clock; writing an explanation's record
    (with its certificate) costs 1 s. The row's 10.5 s go to the one AXp's and the one
    CXp's records (2 s), then to the AXps' records as they are found: the 9th ends at
    11 s, past the deadline, so the enumeration stops there, with 9 of the 16 AXps. No
    record is written after the deadline (the clock stays at 11 s); the AXps checked in
    the batches of 4 are marked verified, the 9th is not."""
    clock = FakeClock(monkeypatch)
    monkeypatch.setattr(explainer_module, "VERIFY_BATCH", (4, 4))
    to_dict = Explanation.to_dict

    def slow(self, *args, **kwargs):
        clock.t += 1.0
        return to_dict(self, *args, **kwargs)

    monkeypatch.setattr(Explanation, "to_dict", slow)
    out = run("explain", str(model_file), "--instance", json.dumps(ZEROS), "--all-axps",
              "--time-limit", "10.5", "--format", "jsonl")
    assert out.exit_code == 0, out.output
    record = json.loads(out.stdout)
    assert clock.t == 11.0
    assert len(record["axps"]) == 9 and record["axps_stopped_by"] == "time_limit"
    assert [e["verified"] for e in record["axps"]].count(False) == 1
    assert all(e["certificate"]["witnesses"] for e in record["axps"])


def test_explain_shows_a_counter_of_the_explanations_found(model_file, monkeypatch):
    seen: list[tuple[str, int]] = []
    count = cli._FoundCounter.__call__

    def record(self, kind, n):
        seen.append((kind, n))
        count(self, kind, n)

    monkeypatch.setattr(cli._FoundCounter, "__call__", record)
    monkeypatch.setattr(cli_common, "stderr_is_terminal", lambda: True)
    x = json.dumps(ZEROS)
    shown = run("explain", str(model_file), "--instance", x, "--all-axps", "--all-cxps")
    assert shown.exit_code == 0, shown.output
    assert seen == [("AXp", n) for n in range(1, 17)] + [("CXp", n) for n in range(1, K + 1)]
    assert "instance: AXps found" in shown.stderr and "/1000" in shown.stderr
    assert "instance: CXps found" in shown.stderr
    quiet = run("explain", str(model_file), "--instance", x, "--all-axps", "-q")
    assert quiet.exit_code == 0 and quiet.stderr == ""
    monkeypatch.setattr(cli_common, "stderr_is_terminal", lambda: False)  # e.g. redirected
    plain = run("explain", str(model_file), "--instance", x, "--all-axps")
    assert plain.exit_code == 0 and plain.stderr == ""


def interrupt_on_call(monkeypatch, owner, name: str, k: int) -> None:
    """Make ``owner.name`` raise KeyboardInterrupt on its ``k``-th call."""
    original = getattr(owner, name)
    calls = [0]

    def wrapper(*args, **kwargs):
        calls[0] += 1
        if calls[0] == k:
            raise KeyboardInterrupt
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, wrapper)


def test_ctrl_c_in_explain_prints_the_rows_done_and_the_partial_row(model_file, zeros_csv,
                                                                    monkeypatch):
    """Each row builds 18 explanations: its AXp, its CXp, its 16 AXps. The 26th build is
    row 1's 6th AXp: row 0 is printed whole, row 1 with its AXp, the 5 AXps found (none
    verified: their first batch of checks had not run) and its CXp, marked interrupted."""
    interrupt_on_call(monkeypatch, Explainer, "_explanation", 18 + 2 + 6)
    result = run("explain", str(model_file), "--data", str(zeros_csv), "--all-axps")
    assert result.exit_code == 130, result.output
    out = lines_of(result)
    assert "Aborted!" not in result.output
    assert out[0] == "row 0: predicts 0 (path of 4 tests)" and "  all AXps (16):" in out
    partial = out.index("row 1: predicts 0 (path of 4 tests) (interrupted)")
    assert out[partial + 1].startswith("  AXp (4 features): IF ")
    assert out[partial + 2] == ("  all AXps (5 found before the interruption; more may exist;"
                                " 5 not verified (interrupted)):")
    assert all(line.endswith("  [not verified: interrupted]")
               for line in out[partial + 3:partial + 8])
    assert out[partial + 8].startswith("  CXp: CHANGE ") and len(out) == partial + 9
    assert ("interrupted: 1 of 3 rows explained; row 1 is incomplete (what it had found is "
            "shown)") in result.stderr


def test_ctrl_c_in_explain_jsonl_marks_the_partial_record(model_file, zeros_csv, monkeypatch):
    interrupt_on_call(monkeypatch, Explainer, "_explanation", 18 + 2 + 6)
    result = run("explain", str(model_file), "--data", str(zeros_csv), "--all-axps",
                 "--format", "jsonl")
    assert result.exit_code == 130, result.output
    records = [json.loads(line) for line in lines_of(result)]
    assert [r["row"] for r in records] == [0, 1]
    assert "interrupted" not in records[0] and len(records[0]["axps"]) == 16
    last = records[1]
    assert last["interrupted"] is True and last["axps_complete"] is False
    assert last["axps_stopped_by"] == "interrupted" and len(last["axps"]) == 5
    assert {frozenset(e["features"]) for e in last["axps"]} <= one_of_each_pair(K)
    assert [frozenset(e["features"]) for e in last["cxps"]] == [
        frozenset(e["features"]) for e in records[0]["cxps"]]
    assert list(last) == list(records[0]) + ["interrupted"]


def test_ctrl_c_between_rows_of_explain(model_file, zeros_csv, monkeypatch):
    interrupt_on_call(monkeypatch, cli, "explain_one", 3)
    result = run("explain", str(model_file), "--data", str(zeros_csv))
    assert result.exit_code == 130, result.output
    assert [line for line in lines_of(result) if line.startswith("row ")] == [
        "row 0: predicts 0 (path of 4 tests)", "row 1: predicts 0 (path of 4 tests)"]
    assert "interrupted: 2 of 3 rows explained" in result.stderr


@pytest.fixture
def five_rows_csv(tmp_path: Path) -> Path:
    path = tmp_path / "five.csv"
    rows = [ZEROS, ONES, {**ZEROS, "a0": 1}, {**ONES, "b1": 0}, {**ZEROS, "b3": 1}]
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def test_ctrl_c_in_crosscheck_keeps_the_rows_checked_in_full(tree, monkeypatch):
    """The 3rd row is interrupted after it has counted one check: the report holds the 2
    rows checked in full, with that count undone."""
    check_row = crosscheck_module._check_row
    calls = [0]

    def third_interrupted(row, report, *args):
        calls[0] += 1
        if calls[0] == 3:
            report.checked["path_axp"] += 1
            report.agreements["path_axp"] += 1
            raise KeyboardInterrupt
        check_row(row, report, *args)

    monkeypatch.setattr(crosscheck_module, "_check_row", third_interrupted)
    rows = [ZEROS, ONES, {**ZEROS, "a0": 1}, {**ONES, "b1": 0}]
    with pytest.raises(CrosscheckInterrupted) as info:
        xdt.crosscheck(tree, rows)
    report = info.value.report
    assert isinstance(info.value, KeyboardInterrupt)
    assert report.interrupted and report.rows == 2 and report.requested == 4
    assert report.checked == dict.fromkeys(report.checked, 2)
    assert report.agreements == report.checked and len(report.times["path"]) == 2
    assert report.ok and not report.complete


def test_ctrl_c_in_crosscheck_prints_the_table_so_far(model_file, five_rows_csv, monkeypatch):
    interrupt_on_call(monkeypatch, crosscheck_module, "_check_row", 3)
    result = run("crosscheck", str(model_file), "--data", str(five_rows_csv))
    assert result.exit_code == 130, result.output
    out = lines_of(result)
    assert "  all AXps: same sets           2/2" in out
    assert ("INTERRUPTED after 2 of 5 rows: the counts above are of the rows checked in full;"
            " no disagreement on them") in out
    assert not any(line.startswith("OK:") for line in out)
    assert "interrupted: 2 of 5 rows checked" in result.stderr
    interrupt_on_call(monkeypatch, crosscheck_module, "_check_row", 2)
    report = json.loads(run("crosscheck", str(model_file), "--data", str(five_rows_csv),
                            "--format", "json").stdout)
    assert report["interrupted"] is True and report["rows"] == 1
    assert report["rows_requested"] == 5 and report["complete"] is False
