"""What the quick tier leaves unexercised: package modules and public functions whose code no
test of ``python -m pytest`` runs.

The quick tier (tests/tiers.py) must keep at least one test of every module and every public
function of the package. This script runs it under coverage.py and lists, from the lines it
ran:

* the modules of ``xdt/`` none of whose functions ran (a module of constants only counts as
  run once imported; a module of compiled kernels only is listed apart);
* the public functions: each name in a package's ``__all__`` that is a function, and each
  public method of a class there, whose body never ran. Compiled kernels (numba) run as
  machine code, which coverage cannot see; they are listed apart and checked through the
  functions that call them.

Run from the project root, with the test extra installed (it brings coverage)::

    python tests/tier_coverage.py                  # runs the quick tier under coverage
    python tests/tier_coverage.py --data .coverage # reads an earlier run's data file

Exit status 1 when something is unexercised, 0 otherwise.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import inspect
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "xdt"


@dataclass(frozen=True)
class Body:
    """A function's body: its file and the lines from its first statement to its end."""

    name: str
    path: str
    first: int
    last: int


def run_quick_tier(data_file: Path) -> None:
    """``coverage run -m pytest`` (the quick tier) over the package, into ``data_file``."""
    command = [sys.executable, "-m", "coverage", "run", f"--data-file={data_file}",
               f"--source={PACKAGE}", "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    done = subprocess.run(command, cwd=ROOT, check=False)
    if done.returncode != 0:
        sys.exit(f"the quick tier failed under coverage (exit {done.returncode})")


def executed_lines(data_file: Path) -> dict[str, set[int]]:
    import coverage

    data = coverage.CoverageData(basename=str(data_file))
    data.read()
    return {str(Path(f).resolve()): set(data.lines(f) or ()) for f in data.measured_files()}


@cache
def function_bodies(path: Path) -> dict[int, Body]:
    """Every function of the file at ``path`` by the line of its ``def`` (decorators
    excluded), with the lines of its body."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if len(body) > 1 and isinstance(body[0], ast.Expr) \
                    and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                body = body[1:]  # the docstring is not a statement that runs
            found[node.lineno] = Body(node.name, str(path.resolve()), body[0].lineno,
                                      node.end_lineno or body[-1].lineno)
    return found


def ran(body: Body, lines: dict[str, set[int]]) -> bool:
    return any(body.first <= n <= body.last for n in lines.get(body.path, ()))


def is_kernel(obj: object) -> bool:
    return type(obj).__module__.startswith("numba")


def compiled_functions(path: Path) -> set[str]:
    """The names of the module-level functions of ``path`` that are compiled kernels."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    if parts[-1] == "__main__":
        return set()
    module = importlib.import_module(".".join(parts))
    return {name for name, obj in vars(module).items()
            if is_kernel(obj) and getattr(obj, "__module__", None) == module.__name__}


def public_functions() -> tuple[dict[str, object], list[str]]:
    """Public name -> function object, for every function in a package's ``__all__`` and
    every public method of a class there; and the compiled kernels among them, by name."""
    functions: dict[tuple[str, int], tuple[str, object]] = {}
    kernels: list[str] = []
    for init in sorted(PACKAGE.rglob("__init__.py")):
        package = ".".join(init.parent.relative_to(ROOT).parts)
        module = importlib.import_module(package)
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            qualified = f"{package}.{name}"
            if is_kernel(obj):
                kernels.append(qualified)
            elif inspect.isfunction(inspect.unwrap(obj)):
                functions.setdefault(_key(obj), (qualified, obj))
            elif inspect.isclass(obj) and obj.__module__.startswith("xdt"):
                for attr, member in vars(obj).items():
                    if attr.startswith("_"):
                        continue
                    if isinstance(member, staticmethod | classmethod):
                        member = member.__func__
                    elif isinstance(member, property):
                        member = member.fget
                    if inspect.isfunction(inspect.unwrap(member)):
                        functions.setdefault(_key(member), (f"{qualified}.{attr}", member))
    return {q: f for q, f in functions.values()}, sorted(set(kernels))


def _key(function: object) -> tuple[str, int]:
    code = inspect.unwrap(function).__code__
    return code.co_filename, code.co_firstlineno


def body_of(function: object) -> Body | None:
    code = inspect.unwrap(function).__code__
    path = Path(code.co_filename)
    if not path.is_relative_to(PACKAGE):
        return None
    bodies = function_bodies(path)
    # co_firstlineno is the first decorator's line; the def follows the decorators
    return next((bodies[n] for n in sorted(bodies) if n >= code.co_firstlineno), None)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, help="read this coverage data file instead of "
                        "running the quick tier")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    os.chdir(ROOT)
    if args.data:
        lines = executed_lines(args.data)
    else:
        with tempfile.TemporaryDirectory() as folder:
            data_file = Path(folder) / ".coverage"
            run_quick_tier(data_file)
            lines = executed_lines(data_file)

    idle_modules, compiled = [], []
    modules = sorted(PACKAGE.rglob("*.py"))
    for path in modules:
        kernels = compiled_functions(path)
        bodies = [b for b in function_bodies(path).values() if b.name not in kernels]
        done = lines.get(str(path.resolve()), set())
        if kernels and not bodies:
            compiled.append(str(path.relative_to(ROOT)))
        elif not done or (bodies and not any(ran(b, lines) for b in bodies)):
            idle_modules.append(str(path.relative_to(ROOT)))

    functions, kernels = public_functions()
    idle = sorted(name for name, f in functions.items()
                  if (body := body_of(f)) is not None and not ran(body, lines))

    print(f"modules of xdt/: {len(modules)}; compiled kernels only (run as machine code, "
          f"checked through their callers): {', '.join(compiled)}")
    print(f"modules of which no test of the quick tier runs a function: {len(idle_modules)}")
    for name in idle_modules:
        print(f"  {name}")
    print(f"public functions and methods: {len(functions)}, never run by the quick tier: "
          f"{len(idle)}")
    for name in idle:
        print(f"  {name}")
    if kernels:
        print(f"compiled kernels in an __all__ (run as machine code, not traced): "
              f"{', '.join(kernels)}")
    return 1 if idle_modules or idle else 0


if __name__ == "__main__":
    sys.exit(main())
