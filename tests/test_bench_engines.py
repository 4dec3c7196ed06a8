"""benchmarks/engines.py runs: its smoke run exits cleanly and prints the one table.

The script stops with a non-zero status when two engines give different AXps (or CXps) on a
row it times, so a clean exit also means that the path engine, its batch form, the SAT
engine and the PySAT baseline of benchmarks/pysat_baseline.py agreed on every row of the
smoke run. Nothing here reads the times it prints.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HEADERS = ["what", "tree", "nodes", "xdt", "peer", "ratio", "target", "met"]


@pytest.mark.slow
def test_engines_quick_run_prints_its_table(datasets_dir):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "benchmarks/engines.py", "--quick", "--no-pyxai", "--markdown"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    assert "PyXAI not used (--no-pyxai)" in out
    assert "| " + " | ".join(HEADERS) + " |" in out
    for what in ("AXp, reused Explainer, pandas row / PyXAI sufficient_reason",
                 "explain_batch AXp, dedupe=False",
                 "all CXps, explain_batch, dedupe=False, 10,000 distinct rows",
                 "SAT engine AXp, fresh Explainer per row / PySAT baseline",
                 "DNF 200 terms"):
        assert what in out, what
    assert "memory, explain_batch cxps, 10,000 rows" in out
