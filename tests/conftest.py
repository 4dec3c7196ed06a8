"""Shared fixtures: the worked cases and datasets in ../shared; the two tiers (tiers.py).

Tests that need ../shared skip with a clear reason where it is absent (a fresh clone outside
the project's workspace), but fail under CI (CI=true), where it must be present.
"""

from __future__ import annotations

import importlib
import json
import os
from pathlib import Path

import pytest
import tiers
from hypothesis import settings

# Property tests draw the same examples on every run, so CI is deterministic; set
# HYPOTHESIS_PROFILE=explore for fresh random examples on each run.
settings.register_profile("deterministic", derandomize=True, deadline=None)
settings.register_profile("explore", deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))



def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--thorough", action="store_true",
        help="run the thorough tier (tests/tiers.py): the tests marked slow and the property "
             "tests at their full budgets; without it, the quick tier runs")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "slow: the thorough tier only (python -m pytest --thorough; tests/tiers.py): "
                   "whole-artefact runs, and every case but the first of a real-data sweep")
    tiers.thorough = config.getoption("--thorough")


@pytest.hookimpl(tryfirst=True)  # before -k and -m deselect: the tier is chosen first
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    ids = tiers.named(config.args, config.rootpath)
    keep = [i for i in items if tiers.in_tier(i, tiers.thorough) or tiers.is_named(i.nodeid, ids)]
    if len(keep) < len(items):
        kept = set(keep)
        config.hook.pytest_deselected(items=[i for i in items if i not in kept])
        items[:] = keep


SHARED = Path(__file__).resolve().parent.parent.parent / "shared"
CASES = SHARED / "cases" / "worked"
DATASETS = SHARED / "datasets"


def require_shared(path: Path) -> Path:
    """``path`` if it exists; else skip (outside CI) or fail (under CI=true)."""
    if path.exists():
        return path
    message = f"{path} is absent: these tests need the shared cases/datasets beside the repo"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message)
    pytest.skip(message)


def require_package(name: str, extra: str):
    """The module ``name`` if it imports; else skip (outside CI) or fail (under CI=true,
    where ``pip install -e ".[test]"`` installs it, through xdt's ``extra``)."""
    try:
        return importlib.import_module(name)
    except ImportError:
        message = f"{name} is not installed: pip install -e \".[{extra}]\""
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message, allow_module_level=True)


ABSENT = "shared-cases-absent"
"""The one case name listed when ../shared is absent: tests parametrized over the cases then
still run once, and :func:`load_case` skips (or, under CI, fails) with the reason."""


def load_case(name: str) -> dict:
    """A worked case by file stem; call it inside a test, never at collection time."""
    return json.loads((require_shared(CASES) / f"{name}.json").read_text())


def case_names(kind: str | None = None) -> list[str]:
    """Stems of the worked cases (of one model kind), or ``[ABSENT]`` without ../shared."""
    if not CASES.exists():
        return [ABSENT]
    return sorted(p.stem for p in CASES.glob("*.json")
                  if kind is None or json.loads(p.read_text())["model"]["kind"] == kind)


def tree_case_names() -> list[str]:
    return case_names("tree")


@pytest.fixture
def datasets_dir() -> Path:
    return require_shared(DATASETS)


@pytest.fixture(scope="module")
def tour(tmp_path_factory) -> Path:
    """The README's files (``xdt demo``'s examples) and a depth-3 CART tree of German credit
    (``model.json``), fitted by ``xdt fit``."""
    from clitools import run

    from xdt.cli._demo_job import write_examples

    folder = tmp_path_factory.mktemp("tour")
    write_examples(folder)
    result = run("fit", str(folder / "german.csv"), "-t", "class", "--max-depth", "3",
                 "-o", str(folder / "model.json"))
    assert result.exit_code == 0, result.output
    return folder
