"""The two tiers of the suite (tests/tiers.py): what each selects, and the budgets of the
property tests. The selection is checked on a small suite of its own, collected by pytest
in a new process with this suite's conftest.py."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import tiers

TESTS = Path(__file__).resolve().parent

pytest_plugins = ["pytester"]


def test_quick_budgets_are_a_fifth_at_least_ten_never_more_than_full(monkeypatch):
    monkeypatch.setattr(tiers, "thorough", False)
    assert [tiers.examples(n) for n in (300, 150, 60, 40, 10, 5)] == [60, 30, 12, 10, 10, 5]
    monkeypatch.setattr(tiers, "thorough", True)
    assert [tiers.examples(n) for n in (300, 150, 60, 40, 10, 5)] == [300, 150, 60, 40, 10, 5]


def test_a_sweep_runs_its_first_case_quick_and_the_rest_thorough():
    first, *rest = tiers.sweep(["german", "iris", pytest.param("adult", id="big")])
    assert first == "german"
    assert [p.values for p in rest] == [("iris",), ("adult",)]
    assert [[m.name for m in p.marks] for p in rest] == [["slow"], ["slow"]]
    assert rest[1].id == "big"
    pairs = tiers.sweep([("compas.csv", 15), ("iris.csv", 10)])
    assert pairs[0] == ("compas.csv", 15) and pairs[1].values == ("iris.csv", 10)
    assert len(tiers.sweep(["a", "b", "c"], quick=2)[1]) == 1  # "b" stays plain


def test_named_node_ids_are_made_relative_to_the_root(tmp_path):
    (tmp_path / "tests").mkdir()
    ids = tiers.named([str(tmp_path / "tests" / "test_a.py") + "::test_x[1]", "tests",
                       "-q", "/elsewhere/test_b.py::test_y"], tmp_path)
    assert ids == ["tests/test_a.py::test_x[1]"]
    assert tiers.is_named("tests/test_a.py::test_x[1]", ids)
    base = ["tests/test_a.py::test_x"]
    assert tiers.is_named("tests/test_a.py::test_x[2]", base)
    assert tiers.is_named("tests/test_a.py::test_x", base)
    assert not tiers.is_named("tests/test_a.py::test_xy", base)


SUITE = '''
import pytest
from hypothesis import given, settings, strategies as st
from tiers import examples, sweep

DRAWN = []


def test_plain():
    pass


@pytest.mark.slow
def test_artefact():
    pass


@pytest.mark.parametrize("name", sweep(["first", "second"]))
def test_sweep(name):
    pass


@settings(max_examples=examples(100), database=None)
@given(st.integers())
def test_property(n):
    DRAWN.append(n)


def test_budget_drawn():
    print("drawn", len(DRAWN))


@pytest.mark.slow
def test_budget_drawn_in_the_thorough_tier():
    print("drawn", len(DRAWN))
'''


@pytest.fixture
def suite(pytester, monkeypatch):
    """A small suite under this suite's conftest.py, with tests/ importable."""
    pytester.makeconftest((TESTS / "conftest.py").read_text(encoding="utf-8"))
    pytester.makepyfile(test_suite=SUITE)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        [str(TESTS), *filter(None, [os.environ.get("PYTHONPATH")])]))
    return pytester


def ran(result) -> list[str]:
    """The tests that passed, by name, from the short summary (``-rA``)."""
    return sorted(line.split("::")[1] for line in result.outlines
                  if line.startswith("PASSED test_suite.py::"))


def test_the_tiers_select_from_a_suite_and_together_run_all_of_it(suite):
    quick = suite.runpytest_subprocess("-rA", "-p", "no:cacheprovider")
    assert quick.ret == 0
    assert ran(quick) == ["test_budget_drawn", "test_plain", "test_property",
                          "test_sweep[first]"]
    quick.stdout.fnmatch_lines(["*drawn 20*", "*4 passed, 3 deselected*"])

    thorough = suite.runpytest_subprocess("-rA", "-p", "no:cacheprovider", "--thorough")
    assert thorough.ret == 0
    assert ran(thorough) == ["test_artefact", "test_budget_drawn_in_the_thorough_tier",
                             "test_property", "test_sweep[second]"]
    thorough.stdout.fnmatch_lines(["*drawn 100*", "*4 passed, 3 deselected*"])

    named = suite.runpytest_subprocess("-rA", "-p", "no:cacheprovider",
                                       "test_suite.py::test_artefact")
    assert named.ret == 0 and ran(named) == ["test_artefact"]  # named: runs in any tier
