"""benchmarks/predict_row.py --quick runs and prints its table (its times are not read)."""

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DATASETS, require_shared

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_predict_row_benchmark_quick_run():
    require_shared(DATASETS / "compas.csv")
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "predict_row.py"),
                          "--quick"], capture_output=True, text=True, check=True,
                         timeout=600).stdout
    for tree in ("compas depth 6", "german depth 6"):
        for form in ("pandas row (Series)", "dict", "one-row DataFrame"):
            assert any(tree in line and form in line for line in out.splitlines()), (tree,
                                                                                      form)
    assert "<= 3" in out
