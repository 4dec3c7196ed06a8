"""Start-up cost: ``import xdt``, ``import xdt.cli`` and ``xdt --help`` (of every command) load
none of the heavy libraries, which the commands import when they run.

Each check runs in a fresh interpreter and reads its ``sys.modules``: deterministic, no
timing. (Measured on a 2-core machine: ``xdt --help`` about 0.2 s of CPU, half of it the
interpreter's own start, against 1.1 s when it loaded pandas and scikit-learn.)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import xdt
from xdt.cli import main

ROOT = Path(__file__).resolve().parent.parent

#: Libraries that neither ``import xdt`` nor any ``--help`` needs.
HEAVY = ("numpy", "pandas", "pyarrow", "scipy", "sklearn", "networkx", "numba", "dask",
         "distributed", "matplotlib", "pysat", "tqdm")

#: Prints the heavy top-level packages loaded after running ``code``.
PROBE = """
import json, sys
{code}
print(json.dumps(sorted({{m.split(".")[0] for m in sys.modules}} & set({heavy!r}))))
"""


def loaded_after(code: str) -> list[str]:
    """The heavy packages a fresh interpreter has loaded after running ``code``."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    proc = subprocess.run([sys.executable, "-c", PROBE.format(code=code, heavy=HEAVY)],
                          capture_output=True, text=True, timeout=120, env=env, check=False)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run_help(*args: str) -> str:
    """Code that runs ``python -m xdt ARGS --help`` (its output discarded)."""
    argv = ["xdt", *args, "--help"]
    return ("import contextlib, io, runpy\n"
            f"sys.argv = {argv!r}\n"
            "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
            "    runpy.run_module('xdt', run_name='__main__', alter_sys=True)")


def test_import_xdt_loads_no_heavy_library():
    assert loaded_after("import xdt") == []


def test_import_xdt_cli_loads_no_heavy_library():
    assert loaded_after("import xdt.cli") == []


@pytest.mark.parametrize("command", [[], *([name] for name in sorted(main.commands))],
                         ids=lambda command: " ".join(["xdt", *command]))
def test_help_loads_no_heavy_library(command):
    assert loaded_after(run_help(*command)) == []


def test_the_help_probe_sees_what_a_command_loads():
    """The probe is not blind: explaining one instance does load numpy and pandas."""
    model = ROOT / "encodings" / "examples" / "zhou.json"
    code = ("import contextlib, io\nfrom xdt.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
            f"    main(['explain', {str(model)!r}, '--instance', '{{\"x\": 0.9, \"y\": 0.2}}'])")
    assert {"numpy", "pandas"} <= set(loaded_after(code))


def test_lazy_names_of_the_package():
    from xdt import Explainer, crosscheck, load_model  # noqa: F401  (resolve on first use)

    assert Explainer is xdt.explain.Explainer
    assert load_model is xdt.ir.load_model
    assert set(xdt.__all__) <= set(dir(xdt))
    assert {"learn", "metrics", "cluster", "run", "plot"} <= set(dir(xdt))
    with pytest.raises(AttributeError, match="module 'xdt' has no attribute 'nothing'"):
        xdt.nothing  # noqa: B018


def test_crosscheck_stays_the_function_when_its_module_is_imported():
    code = ("import xdt.explain.checks._crosscheck\n"
            "from xdt.explain.checks._crosscheck import CHECKS\nimport xdt\n"
            "assert callable(xdt.crosscheck) and xdt.crosscheck.__name__ == 'crosscheck'\n"
            "assert sys.modules['xdt.explain.checks._crosscheck'].crosscheck is xdt.crosscheck")
    loaded_after(code)  # asserts inside; fails the run (non-zero exit) otherwise
