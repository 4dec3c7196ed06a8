"""The two tiers of the test suite: what each runs, and the property tests' budgets.

* The **quick tier**, ``python -m pytest``: every test not marked ``slow``, the property tests
  (hypothesis) at a fifth of their budgets. Every module and public function of the
  package keeps at least one test here (``python tests/tier_coverage.py`` lists any it
  leaves unrun).
* The **thorough tier**, ``python -m pytest --thorough``: the tests marked ``slow`` (the
  whole-artefact runs: the documentation site and its pages, the notebooks, the README's
  command tour, the built wheel, the browser, the benchmarks' smoke runs, Dask clusters; and
  every dataset but the first of the real-data sweeps) and the property tests again, at their
  full budgets.

The two together run every test; CI runs both. A test named on the command line with its
``::`` node id runs in either tier.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import pytest
from hypothesis import is_hypothesis_test

ParameterSet = type(pytest.param(None))

#: The share of a property test's full budget (``max_examples``) that the quick tier draws,
#: and the fewest examples it draws.
QUICK_SHARE = 5
QUICK_FLOOR = 10

#: Set by conftest.py's ``pytest_configure`` from ``--thorough``, before any test module is
#: imported (their ``@settings(max_examples=examples(...))`` read it at import).
thorough = False


def examples(full: int) -> int:
    """The ``max_examples`` of a property test whose full budget is ``full``: ``full`` in the
    thorough tier; in the quick tier a fifth of it, at least ``QUICK_FLOOR`` (never more
    than ``full``)."""
    if thorough:
        return full
    return min(full, max(QUICK_FLOOR, full // QUICK_SHARE))


def sweep(values: Sequence, quick: int = 1) -> list:
    """Parameters of a sweep over real datasets (or other costly cases): the first ``quick``
    run in the quick tier, the rest are marked ``slow`` (the thorough tier). A tuple is the
    values of several arguments, as in ``pytest.mark.parametrize``."""
    out = []
    for k, value in enumerate(values):
        if k < quick:
            out.append(value)
        elif isinstance(value, ParameterSet):
            out.append(pytest.param(*value.values, marks=[*value.marks, pytest.mark.slow],
                                    id=value.id))
        elif isinstance(value, tuple):
            out.append(pytest.param(*value, marks=pytest.mark.slow))
        else:
            out.append(pytest.param(value, marks=pytest.mark.slow))
    return out


def is_property_test(item: pytest.Item) -> bool:
    return isinstance(item, pytest.Function) and is_hypothesis_test(item.obj)


def in_tier(item: pytest.Item, thorough_tier: bool) -> bool:
    """Whether ``item`` runs in the thorough tier (``thorough_tier``) or in the quick one."""
    slow = item.get_closest_marker("slow") is not None
    if thorough_tier:
        return slow or is_property_test(item)
    return not slow


def named(args: Iterable[str], rootpath: Path) -> list[str]:
    """The node ids (``path::name``, relative to ``rootpath``) named on the command line."""
    ids = []
    for arg in args:
        path, sep, rest = arg.partition("::")
        if not sep:
            continue
        full = Path(path).resolve()
        try:
            path = full.relative_to(rootpath).as_posix()
        except ValueError:
            continue
        ids.append(f"{path}::{rest}")
    return ids


def is_named(nodeid: str, ids: Iterable[str]) -> bool:
    return any(nodeid == i or nodeid.startswith((i + "[", i + "::")) for i in ids)
