"""The compiled kernels where numba cannot keep its cache on disk (a read-only install and
home folder, e.g. a container run as an unprivileged user): xdt imports and answers, and
says how to keep the compiled kernels between runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Every cache folder numba tries is refused, as the operating system refuses a read-only
# one (numba checks a folder by creating it and a temporary file in it).
SCRIPT = r"""
import json, warnings
import numba.core.caching as caching

def refuse(self):
    raise PermissionError(13, "Permission denied", self.get_cache_path())

caching._CacheLocator.ensure_cache_path = refuse
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import numpy as np
    from xdt.explain.engines import _kernels as kernels
nodes = np.array([[0, 0, -1], [-1, 0, 0], [-1, 0, 1]], dtype=np.int64)
children = np.array([1, 2], dtype=np.int64)
print(json.dumps({
    "leaves": [int(kernels.leaf_of(nodes, children, np.array([c], dtype=np.int64)))
               for c in (0, 1)],
    "warnings": [str(w.message) for w in caught if "NUMBA_CACHE_DIR" in str(w.message)],
}))
"""


def test_kernels_work_without_a_writable_cache_folder():
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("NUMBA_DISABLE_JIT", None)
    env.pop("NUMBA_CACHE_DIR", None)
    run = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                         env=env, timeout=300)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout.splitlines()[-1])
    assert out["leaves"] == [0, 1]  # cell 0 goes to the first leaf, cell 1 to the second
    assert len(out["warnings"]) == 1  # once, not once per kernel
    assert "compiled again in every process" in out["warnings"][0]
