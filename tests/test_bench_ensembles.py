"""benchmarks/ensembles.py runs: its smoke run exits cleanly and prints the one table.

The script stops with a non-zero status when one of xdt's AXps it times does not keep the
library's own ``predict`` on the points it samples (or is not subset-minimal), so a clean
exit also means that every AXp of the smoke run (a small random forest and a small XGBoost
model on compas) passed those checks. Nothing here reads the times it prints.
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
def test_ensembles_quick_run_prints_its_table(datasets_dir):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "benchmarks/ensembles.py", "--quick", "--no-pyxai", "--markdown"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    assert "PyXAI not used (--no-pyxai)" in out
    assert "| " + " | ".join(HEADERS) + " |" in out
    for what in ("| one AXp, reused Explainer: CPU seconds | compas RF 10x depth 3 |",
                 "| one AXp, reused Explainer / PyXAI sufficient_reason | compas RF 10x",
                 "| one AXp, reused Explainer: CPU seconds | compas XGBoost 5/class depth 3 |",
                 "| one AXp, reused Explainer / PyXAI tree_specific_reason | compas XGBoost",
                 "| growth: one AXp, reused Explainer (3 rows): CPU seconds | compas RF 10x"):
        assert what in out, what
    assert "every xdt AXp kept the library's predict on 200 sampled agreeing points" in out
