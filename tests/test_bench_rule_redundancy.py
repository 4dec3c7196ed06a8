"""benchmarks/rule_redundancy.py --quick runs the imported rule learners on compas and prints
its tables (its times are not read)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import require_package

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_rule_redundancy_benchmark_prints_its_tables(datasets_dir):
    require_package("imodels", "rules")
    require_package("wittgenstein", "rules")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "benchmarks/rule_redundancy.py", "--quick"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[3].split() == ["dataset", "learner", "rules", "lits", "%A", "rows", "%def",
                                "mean%", "med%", "max%", "%red", "%!AXp", "%WNE", "|AXp|",
                                "ms/row", "fit", "s"]
    rows = [line.split() for line in lines[4:8]]
    assert [r[:2] for r in rows] == [["compas", learner]
                                     for learner in ("greedy", "oner", "brl", "ripper")]
    for r in rows:
        assert r[5] == "60"  # test rows
        shares = [float(v) for v in r[7:10] if v != "-"]
        assert all(0.0 <= v <= 100.0 for v in shares)
    assert any("xdl-tool (SAT 2021)" in line and "12.1" in line for line in lines)
    assert lines[-1].startswith("total CPU time:")
