"""benchmarks/dl_engines.py --quick runs xdt's side without xdl-tool and says so.

The peer (an xdl-tool checkout) is not available to the tests, so only xdt's half of the
benchmark runs: the lists are learned, written in xdl-tool's format (the constant ones
skipped) and explained by xdt; the xdl-tool columns stay empty. Nothing here reads the
times it prints.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import require_package

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_dl_engines_quick_run_without_xdl_tool(datasets_dir):
    require_package("imodels", "rules")
    require_package("wittgenstein", "rules")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("XDL_TOOL", None)
    done = subprocess.run(
        [sys.executable, "benchmarks/dl_engines.py", "--quick", "--markdown"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    assert "xdl-tool not used (no --xdl DIR and no XDL_TOOL in the environment)" in out
    header = next(line for line in out.splitlines() if line.startswith("| dataset |"))
    cols = [c.strip() for c in header.strip("|").split("|")]
    assert cols[:5] == ["dataset", "learner", "rules", "lits", "rows"]
    assert {"AXp xdt", "AXp xdl", "AXp xdt/xdl", "allAXp xdt", "allCXp xdt"} <= set(cols)
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in out.splitlines()
            if line.startswith("| monk1 |") or line.startswith("| car |")]
    assert [r[:2] for r in rows] == [["monk1", "greedy"], ["monk1", "ripper"],
                                     ["car", "greedy"], ["car", "ripper"]]
    timed = [dict(zip(cols, r, strict=True)) for r in rows if not r[2].startswith("skipped")]
    assert timed
    for r in timed:
        assert r["rows"] == "20"
        assert float(r["AXp xdt"]) > 0 and r["AXp xdl"] == "-" and r["xdl AXp ok"] == "-"
    assert "xdl-tool: not used" in out
