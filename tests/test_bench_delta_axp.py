"""benchmarks/delta_axp.py runs on one dataset and prints its table (its times are not read)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_delta_axp_benchmark_prints_its_table(datasets_dir):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "benchmarks/delta_axp.py", "--datasets", "compas", "--rows", "10"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[1].split()[:4] == ["dataset", "nodes", "AXp", "d-prod"]
    row = lines[2].split()
    assert row[0] == "compas" and row[1] == "209"
    axp, prod, emp = map(float, row[2:5])
    assert prod <= axp and emp <= axp  # the delta-AXps start from the AXp
    assert lines[-1].startswith("total CPU time:")
