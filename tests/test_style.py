"""The code base stays ruff-clean (rules in pyproject.toml)."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_clean():
    ruff = shutil.which("ruff")
    if ruff is None:
        pytest.fail("ruff is not installed; install the test extras: pip install -e '.[test]'")
    out = subprocess.run([ruff, "check", "xdt", "tests", "benchmarks"], cwd=ROOT,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


CLOCKS = {"time", "time_ns", "perf_counter", "perf_counter_ns", "monotonic", "monotonic_ns",
          "process_time", "process_time_ns", "thread_time", "thread_time_ns"}


def _clock_reads(source: str) -> list[tuple[int, str]]:
    """(line, what) of every read of a clock of the ``time`` module, and every ``timeit``."""
    import ast

    found = []
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Attribute) and node.attr in CLOCKS
                and isinstance(node.value, ast.Name) and node.value.id == "time"):
            found.append((node.lineno, f"time.{node.attr}"))
        elif isinstance(node, ast.ImportFrom) and node.module == "time":
            found += [(node.lineno, f"from time import {a.name}") for a in node.names
                      if a.name in CLOCKS]
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) \
                else [node.module or ""]
            found += [(node.lineno, f"import {n}") for n in names if n.split(".")[0] == "timeit"]
    return found


def test_clock_reads_are_found():
    assert _clock_reads("import time\nt = time.perf_counter()\ntime.sleep(0)\n") \
        == [(2, "time.perf_counter")]
    assert _clock_reads("from time import monotonic, sleep\nimport timeit\n") \
        == [(1, "from time import monotonic"), (2, "import timeit")]


def test_tests_read_no_clock():
    """Tests assert what is computed, never how long it took: on a busy machine a wall-clock
    bound fails for no fault of the code. Speed is measured in benchmarks/."""
    reads = [f"{path.relative_to(ROOT)}:{line}: {what}"
             for path in sorted((ROOT / "tests").glob("*.py"))
             for line, what in _clock_reads(path.read_text())]
    assert reads == [], "tests must not time themselves (move speed checks to benchmarks/):\n" \
        + "\n".join(reads)
