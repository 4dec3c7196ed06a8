"""benchmarks/fit_speed.py runs: a small run exits cleanly and prints its tables, with the
leaves of each learner's tree (the trees are real) and a ratio for every goal. Nothing here
reads the times it prints."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_fit_speed_small_run_prints_its_tables(datasets_dir):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "benchmarks/fit_speed.py", "--rows", "300", "--data",
         "synthetic-10,adult,kr-vs-kp-bin", "--depths", "3,none", "--repeats", "1",
         "--memory-rows", "301", "--trees-only", "--quiet"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    lines = [ln for ln in out.splitlines() if ln.strip().startswith(
        ("synthetic-10", "adult", "kr-vs-kp-bin"))]
    assert len(lines) == 6                    # 3 data sets x 2 depths
    for line in lines[:6]:
        leaves = line.split()[-1].split("/")   # sklearn/CART/SER-DT
        assert len(leaves) == 3 and all(int(v) >= 1 for v in leaves)
    assert "goal CART <= 1x scikit-learn's CPU time: met in" in out
    assert "goal SER-DT <= 1.5x scikit-learn's CPU time: met in" in out
    assert "goal peak memory <= 2x scikit-learn's: not measured" in out   # below 301 rows


@pytest.mark.slow
def test_fit_speed_measures_peak_memory_in_new_processes(datasets_dir):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "benchmarks/fit_speed.py", "--rows", "2000", "--data",
         "kr-vs-kp-bin", "--depths", "none", "--repeats", "1", "--memory-rows", "2000",
         "--trees-only", "--quiet"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [ln for ln in done.stdout.splitlines() if ln.strip().startswith("kr-vs-kp-bin")]
    if Path("/proc/self/clear_refs").exists():
        assert len(rows) == 2                 # the time row and the memory row
        assert "goal peak memory <= 2x scikit-learn's: " in done.stdout
