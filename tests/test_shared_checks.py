"""The project's shared check of the worked cases passes (path engine)."""

import subprocess
import sys

from conftest import SHARED, require_shared


def test_worked_cases_check_script():
    script = require_shared(SHARED / "checks" / "worked_cases.py")
    out = subprocess.run([sys.executable, str(script), "--engine", "path"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "WRONG" not in out.stdout
    assert "worked-case answers right" in out.stdout
