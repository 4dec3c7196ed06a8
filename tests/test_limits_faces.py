"""``time_limit`` in the faces over the queries, on fake clocks: ``explain_batch``, the
``verify=True`` re-checks (which share their call's deadline), the HTML report's row budget
(a row whose AXp or whose re-check it cuts off) and the cross-checks. The queries and engines
themselves: tests/test_limits.py."""

from __future__ import annotations

import numpy as np
import pytest
from limitcases import SetClock, fake_clock, make_forest, make_small_tree, never

import xdt
from xdt.errors import ComputationLimitError
from xdt.explain import Deadline, Explainer
from xdt.explain.engines import _deadline
from xdt.ir import Feature


@pytest.fixture(scope="module")
def forest():
    return make_forest()


@pytest.fixture(scope="module")
def small_tree():
    return make_small_tree()


# ---------------------------------------------------------------- the batch path-walker
def test_explain_batch_polls_between_slices_and_gives_no_table_with_rows_missing(
        small_tree, monkeypatch):
    from xdt.explain.engines import _vectorised

    model, rows, _ = small_tree
    ex = Explainer(model)
    X = rows * 5  # 20 rows
    plain = ex.explain_batch(X)
    assert plain.equals(ex.explain_batch(X, time_limit=never()))
    with pytest.raises(ComputationLimitError, match="explain_batch") as e:
        ex.explain_batch(X, time_limit=Deadline(5.0, clock=fake_clock(1)))
    assert e.value.limit == "time_limit"
    monkeypatch.setattr(_vectorised, "LIMITED_ROWS", 3)
    given = []
    with pytest.raises(ComputationLimitError):  # reading X polls twice, then each slice
        for record in ex.explain_batch(X, as_frame=False,
                                       time_limit=Deadline(5.0, clock=fake_clock(5))):
            given.append(record)
    assert len(given) == 6  # two slices of 3 rows, as without a limit
    assert [r["axp"] for r in given] == plain["axp"].tolist()[:6]


# ---------------------------------------------------------------- the verify=True re-checks
@pytest.mark.parametrize("engine", ["path", "sat"])
def test_the_verify_recheck_shares_the_query_deadline(small_tree, engine, monkeypatch):
    """The deadline passes just as the certificate's re-check starts: the call raises, as
    the re-check polls the query's deadline."""
    from xdt.explain import _explainer

    model, rows, _ = small_tree
    clock = SetClock()
    real = _explainer.check_certificates

    def late(*args, **kw):
        clock.t = 100.0
        return real(*args, **kw)

    monkeypatch.setattr(_explainer, "check_certificates", late)
    ex = Explainer(model, engine=engine)
    x = rows[0]
    for call in (lambda d: ex.axp(x, verify=True, time_limit=d),
                 lambda d: ex.cxp(x, verify=True, time_limit=d),
                 lambda d: ex.inflate(x, ex.axp(x), verify=True, time_limit=d)):
        clock.t = 0.0
        with pytest.raises(ComputationLimitError, match="time limit"):
            call(Deadline(5.0, clock=clock))
    monkeypatch.setattr(_explainer, "check_certificates", real)
    clock.t = 0.0
    assert ex.axp(x, verify=True, time_limit=Deadline(5.0, clock=clock)).verified


def test_a_delta_axp_recheck_shares_its_deadline(small_tree, monkeypatch):
    from xdt.explain.queries import _probability

    model, rows, dist = small_tree
    clock = SetClock()
    real = _probability.check_precision_certificate

    def late(*args, **kw):
        clock.t = 100.0
        return real(*args, **kw)

    monkeypatch.setattr(_probability, "check_precision_certificate", late)
    with pytest.raises(ComputationLimitError, match="delta-AXp"):
        Explainer(model).delta_axp(rows[0], 0.9, distribution=dist, verify=True,
                                   time_limit=Deadline(5.0, clock=clock))


def test_a_box_enumeration_in_a_check_predicts_in_polled_slices(forest, monkeypatch):
    from xdt.explain.checks import _verify

    model, rows, _ = forest
    monkeypatch.setattr(_verify, "POLL_POINTS", 10)
    points = np.zeros((35, len(model.features)), dtype=np.int64)
    with _deadline.running(never()):
        assert (_verify.predict_polled(model, points) == model.predict_cells(points)).all()
    with _deadline.running(Deadline(5.0, clock=fake_clock(3))):
        with pytest.raises(_deadline.EnumerationStopped):
            _verify.predict_polled(model, points)


# ---------------------------------------------------------------- the report's row budget
def test_a_report_row_whose_axp_is_cut_says_so_and_the_report_goes_on(small_tree,
                                                                       monkeypatch):
    import json
    import re

    import pandas as pd

    from xdt.report import _html as report_html
    from xdt.run import _instance

    model, rows, _ = small_tree
    clocks = iter([lambda: 0.0, fake_clock(1), lambda: 0.0])  # row 1: passed at once

    def per_row(seconds):
        return Deadline(seconds, clock=next(clocks))

    monkeypatch.setattr(_instance, "Deadline", per_row)
    report = report_html.explain_rows(model, pd.DataFrame(rows[:3]), time_limit=2.0)
    assert [r.axp is None for r in report.rows] == [False, True, False]
    assert report.axp_cut == 1 and report.time_limited >= 1
    ex = Explainer(model)
    assert report.rows[0].axp.features == ex.axp(rows[0]).features
    assert report.rows[2].axp.features == ex.axp(rows[2]).features
    assert report.rows[1].prediction == ex.predict(rows[1])
    assert all(r.checked for r in report.rows)
    page = report_html.build_report(model, pd.DataFrame(rows[:3]), report=report)
    cut = "AXp not found within the time limit (2 s)"
    assert cut in page
    note = re.search(r'<p class="note" id="xdt-time-limited">(.*?)</p>', page, re.S).group(1)
    assert "1 of them has no AXp" in note
    data = json.loads(re.search(r'<script type="application/json" id="xdt-data">(.*?)'
                                r'</script>', page, re.S).group(1))
    assert data["rows"][1]["axp"] is None and data["rows"][1]["cut"] == cut
    assert data["rows"][1]["a"] == [] and data["rows"][0]["axp"] is not None
    assert data["records"][1]["axp"] is None
    assert data["records"][1]["no_axp"]["stopped_by"] == "time_limit"


# ---------------------------------------------------------------- the cross-checks
class Passed(Deadline):
    """A deadline made from a number of seconds that has passed at its first reading."""

    def __init__(self, seconds, clock=None):
        super().__init__(seconds, clock=fake_clock(1))


@pytest.mark.parametrize("engine_pair", ["ensemble", "rules"])
def test_a_crosscheck_leaves_out_the_checks_of_an_answer_the_limit_cut(forest, engine_pair,
                                                                       monkeypatch):
    from xdt.ir import DNF, Condition

    if engine_pair == "ensemble":
        model, rows, _ = forest
        rows = rows[:2]
    else:
        model = DNF([Feature(n, "binary") for n in "abcd"], [0, 1],
                    [[Condition("a", (1,)), Condition("b", (1,))],
                     [Condition("c", (1,)), Condition("d", (1,))]])
        rows = [{"a": 0, "b": 1, "c": 1, "d": 0}, {"a": 1, "b": 1, "c": 0, "d": 0}]
    plain = xdt.crosscheck(model, rows, enumerate=False, time_limit=5.0)
    assert plain.ok and plain.checked["axp"] == plain.checked["cxp"] == 2
    # each answer's own deadline has passed at once: no AXp or CXp, so none of their checks
    monkeypatch.setattr(_deadline, "Deadline", Passed)
    cut = xdt.crosscheck(model, rows, enumerate=False, time_limit=5.0)
    assert cut.ok and cut.rows == 2
    assert all(n == 0 for n in cut.checked.values())


def test_a_report_row_whose_recheck_is_cut_is_not_checked_rather_than_failed(small_tree,
                                                                               monkeypatch):
    import pandas as pd

    from xdt.report import _html as report_html

    model, rows, _ = small_tree
    real = report_html.check_certificates
    def late(model, explanations, *, rows=None):
        if 1 in (rows or []):  # row 1's re-check meets a deadline that has passed
            with _deadline.running(Deadline(5.0, clock=fake_clock(1))):
                return real(model, explanations, rows=rows)
        return real(model, explanations, rows=rows)

    monkeypatch.setattr(report_html, "check_certificates", late)
    report = report_html.explain_rows(model, pd.DataFrame(rows[:3]), time_limit=2.0)
    assert [r.checked for r in report.rows] == [True, False, True]
    assert [r.check_cut for r in report.rows] == [False, True, False]
    assert report.rows[1].axp is not None  # explained in full; only its re-check was cut
    page = report_html.build_report(model, pd.DataFrame(rows[:3]), report=report)
    assert "not checked (time limit)" in page and "no (failed)" not in page
    assert "2 of 3 rows passed (1 not re-checked within the time limit)" in page
