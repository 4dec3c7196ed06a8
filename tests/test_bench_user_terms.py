"""benchmarks/user_terms.py --quick runs and prints its table (its times are not read)."""

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DATASETS, require_shared

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_user_terms_benchmark_quick_run():
    require_shared(DATASETS / "compas.csv")
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "user_terms.py"),
                          "--quick"], capture_output=True, text=True, check=True,
                         timeout=600).stdout
    assert "compas: CART depth 6" in out
    for query in ("axp (plain)", "axp exclude=S", "all_cxps immutable=A",
                  "smallest_axp weights=W", "smallest_cxp weights=W", "delta_axp 0.95",
                  "coverage of the AXp (rows read once)"):
        assert f"path    {query}" in out, query
    assert "1 (the reference)" in out
