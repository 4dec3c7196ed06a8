"""The layout of the package shows its architecture: one folder per wing, each saying its job;
the wings import the IR and never each other beyond the few edges below; no two files import
each other, directly or in a ring -- counting imports inside functions too (only imports
under ``if TYPE_CHECKING:`` are left out: they never run)."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from functools import cache
from pathlib import Path

import networkx as nx
import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "xdt"

#: Wing -> the wings (and top-level modules) its files may import. ``xdt`` is the package's
#: own ``__init__`` (the version); the faces (run, plot, report, cli) sit over the wings.
ALLOWED = {
    # ``_atomic`` writes a file through a temporary name renamed into place: every wing that
    # writes files uses it
    "ir": {"errors", "_atomic"},
    "explain": {"ir", "errors", "_lazy", "_numba", "_version", "_atomic"},
    "learn": {"ir", "errors", "_numba"},
    "metrics": {"ir", "explain", "errors"},
    # fit_tree (interop/fit.py) fits the learners on a table and measures the tree
    "interop": {"ir", "learn", "metrics", "errors", "_lazy"},
    # supervised clustering grows the learners' trees on tables read as interop reads them
    "cluster": {"ir", "learn", "interop", "errors", "_numba"},
    "run": {"ir", "explain", "interop", "errors", "_atomic"},
    "plot": {"ir", "explain", "metrics", "errors"},
    # the report writes its page as the runners write theirs (xdt.run._outputs)
    "report": {"ir", "explain", "metrics", "interop", "plot", "run", "errors", "_lazy",
               "_version", "_atomic"},
    "cli": {"ir", "explain", "learn", "cluster", "metrics", "interop", "run", "plot", "report",
            "errors", "xdt", "_version", "_atomic"},
}

#: Imports inside a function that a wing may make beyond ALLOWED: none. The IR imports no wing,
#: not even lazily: a tree's Jupyter view (``DecisionTree._repr_html_``, drawn by the report's
#: renderer) is attached from the report wing (xdt/report/_jupyter.py) by the package's
#: ``__init__`` once xdt.ir._tree is loaded.
LAZY_ALLOWED: dict[str, set[str]] = {}

WINGS = set(ALLOWED)

#: Sub-wing of ``xdt/explain/`` -> the sub-wings its files may import. ``models`` is what the
#: engines need from each kind of model; ``face`` is the package's own modules (the
#: ``Explainer`` and the ``Explanation`` it returns). Engines know models only; queries are
#: built on engines; checks stand beside them (the cross-check drives the ``Explainer`` with
#: each engine); exports write an engine's encoding.
EXPLAIN_ALLOWED = {
    "models": set(),
    "engines": {"models"},
    "queries": {"models", "engines"},
    "checks": {"models", "engines", "queries", "face"},
    "export": {"models", "engines"},
    "face": {"models", "engines", "queries", "checks", "export"},
}

#: Each sub-wing of ``xdt/explain/`` is a package; the rest of its modules are its face.
EXPLAIN_PACKAGES = {"engines", "queries", "checks", "export"}


def _modules() -> dict[str, Path]:
    mods = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        mods[".".join(parts)] = path
    return mods


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    skip = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for inner in node.body:
                skip.update(id(n) for n in ast.walk(inner))
    return skip


def _imports(mods: dict[str, Path]) -> list[tuple[str, str, bool]]:
    """(importer, imported module, inside a function) for every runtime import of xdt."""
    edges = []
    for name, path in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = _type_checking_nodes(tree)
        in_function = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                in_function.update(id(n) for n in ast.walk(node) if n is not node)
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
                    and (node.module == "xdt" or node.module.startswith("xdt.")):
                subs = [f"{node.module}.{a.name}" for a in node.names
                        if f"{node.module}.{a.name}" in mods]
                # ``from pkg import submodule`` imports the submodule, not the package's names
                targets = subs if len(subs) == len(node.names) else [node.module, *subs]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names
                           if a.name == "xdt" or a.name.startswith("xdt.")]
            for target in targets:
                while target not in mods:  # ``import xdt.a.b`` of a name, not a module
                    target = target.rpartition(".")[0]
                if target != name:
                    edges.append((name, target, id(node) in in_function))
    return edges


@cache
def _project_imports() -> tuple[tuple[str, str, bool], ...]:
    """:func:`_imports` of the package, parsed once for every test of this module."""
    return tuple(_imports(_modules()))


def _wing(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "xdt"


def test_every_wing_is_a_folder_whose_docstring_says_its_job():
    for wing in sorted(WINGS):
        init = PACKAGE / wing / "__init__.py"
        assert init.is_file(), f"xdt/{wing}/ is not a package"
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        assert doc and doc.splitlines()[0].strip().endswith("."), \
            f"xdt/{wing}/__init__.py needs a docstring whose first line says the wing's job"
    loose = sorted(p.name for p in PACKAGE.glob("*.py")
                   if p.name not in {"__init__.py", "__main__.py", "errors.py", "_lazy.py",
                                     "_numba.py", "_version.py", "_atomic.py"})
    assert loose == [], f"modules loose at the top of the package: {loose}"


def test_no_import_cycle_between_files():
    graph = nx.DiGraph((a, b) for a, b, _ in _project_imports())
    cycles = sorted(nx.simple_cycles(graph), key=len)
    assert cycles == [], f"import cycles: {cycles[:5]}"


def test_the_probe_finds_cycles_and_lazy_imports():
    """The checker is not blind: a ring through a function-level import is found."""
    mods = {"xdt.a": None, "xdt.b": None}
    source = {"xdt.a": "from xdt.b import f\n", "xdt.b": "def g():\n    import xdt.a\n"}

    class Fake:
        def __init__(self, text):
            self.text = text

        def read_text(self, encoding):
            return self.text

    fake = {k: Fake(v) for k, v in source.items()}
    edges = _imports(fake)
    assert sorted(edges) == [("xdt.a", "xdt.b", False), ("xdt.b", "xdt.a", True)]
    assert list(nx.simple_cycles(nx.DiGraph((a, b) for a, b, _ in edges)))
    del mods


@pytest.mark.parametrize("wing", sorted(WINGS))
def test_a_wing_imports_only_what_the_architecture_allows(wing):
    wrong = sorted({(a, b) for a, b, lazy in _project_imports()
                    if _wing(a) == wing and _wing(b) != wing
                    and _wing(b) not in ALLOWED[wing]
                    and not (lazy and _wing(b) in LAZY_ALLOWED.get(wing, set()))})
    assert wrong == [], f"xdt/{wing}/ imports outside what it may: {wrong}"


def _sub_wing(module: str) -> str | None:
    """The sub-wing of ``xdt/explain/`` a module belongs to, or None outside it."""
    parts = module.split(".")
    if parts[:2] != ["xdt", "explain"]:
        return None
    if len(parts) > 3 or (len(parts) == 3 and parts[2] in EXPLAIN_PACKAGES):
        return parts[2]
    return "models" if parts[-1] == "_models" else "face"


def test_explain_is_split_into_sub_wings_whose_docstrings_say_their_job():
    loose = sorted(p.stem for p in (PACKAGE / "explain").glob("*.py"))
    # the face: the Explainer, its answers, how it builds them (results), the parameter
    # descriptions its methods share (docstrings), and the model checks it reads; the
    # Explainer's query families beyond deletion are mixins beside it (explainer_enumeration,
    # explainer_smallest, explainer_probability, explainer_sets), so that each module stays
    # small
    assert loose == ["__init__", "_docstrings", "_explainer", "_explainer_enumeration",
                     "_explainer_probability", "_explainer_sets", "_explainer_smallest",
                     "_explanation", "_models", "_results"], loose
    for sub in sorted(EXPLAIN_PACKAGES):
        init = PACKAGE / "explain" / sub / "__init__.py"
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        assert doc and doc.splitlines()[0].strip(), f"xdt/explain/{sub}/ needs a docstring"
    assert set(EXPLAIN_ALLOWED) == EXPLAIN_PACKAGES | {"models", "face"}


@pytest.mark.parametrize("sub", sorted(EXPLAIN_ALLOWED))
def test_an_explain_sub_wing_imports_only_what_the_map_allows(sub):
    wrong = sorted({(a, b) for a, b, _ in _project_imports()
                    if _sub_wing(a) == sub and _sub_wing(b) not in (None, sub)
                    and _sub_wing(b) not in EXPLAIN_ALLOWED[sub]})
    assert wrong == [], f"xdt/explain/ {sub} imports outside what it may: {wrong}"


def test_the_sub_wing_of_a_module():
    assert _sub_wing("xdt.explain.engines._path") == "engines"
    assert _sub_wing("xdt.explain._models") == "models"
    assert _sub_wing("xdt.explain._explainer") == "face"
    assert _sub_wing("xdt.explain") == "face"
    assert _sub_wing("xdt.ir._tree") is None


def test_no_two_modules_share_a_name_outside_the_commands_and_kernels():
    """Names say what a module is: one ``batch``, one ``tree``... The command modules of
    ``xdt/cli/`` are named after their commands, and each wing's compiled kernels are its
    ``kernels``; ``__init__`` is every package's."""
    seen: dict[str, list[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        if path.parent.name == "cli" or path.stem in {"__init__", "_kernels"}:
            continue
        seen.setdefault(path.stem, []).append(str(path.relative_to(PACKAGE.parent)))
    shared = {k: v for k, v in seen.items() if len(v) > 1}
    assert shared == {}, f"modules of the same name: {shared}"


def test_no_package_exports_a_name_that_hides_one_of_its_modules():
    """``xdt.explain.path_redundancy`` cannot be both a function and a module: importing the
    module would bind the package's attribute to one or the other, depending on order."""
    import importlib
    import pkgutil

    hidden = []
    for init in PACKAGE.rglob("__init__.py"):
        name = ".".join(init.parent.relative_to(PACKAGE.parent).parts)
        package = importlib.import_module(name)
        modules = {m.name for m in pkgutil.iter_modules(package.__path__)}
        for exported in getattr(package, "__all__", []):
            if exported in modules and not getattr(getattr(package, exported), "__path__", None) \
                    and getattr(package, exported).__name__ != f"{name}.{exported}":
                hidden.append(f"{name}.{exported}")
    assert hidden == []


#: The IR's model classes: a query asks a model for a capability (xdt.ir._protocol.offers),
#: never for one of these types.
MODEL_KINDS = {"DecisionTree", "DNF", "NestedKDNF", "DecisionList", "TreeEnsemble"}

#: Where a model's type may be asked: the IR itself, and the one place that registers engines
#: for kinds.
KIND_CHECKS_ALLOWED_IN = ("xdt/ir/", "xdt/explain/engines/_registry.py")

#: At most this many kind checks elsewhere (issue 31: 107 before the model protocol).
MAX_KIND_CHECKS = 25


def _kind_checks(source: str) -> list[int]:
    """Lines of ``isinstance(x, <an IR model class>)`` (alone, in a tuple or a union) and of
    calls to ``is_tree`` / ``is_ensemble`` / ``is_decision_list`` in ``source``."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
        if name == "isinstance" and len(node.args) == 2:
            used = {n.id for n in ast.walk(node.args[1]) if isinstance(n, ast.Name)}
            used |= {n.attr for n in ast.walk(node.args[1]) if isinstance(n, ast.Attribute)}
            if used & MODEL_KINDS:
                lines.append(node.lineno)
        elif name in {"is_tree", "is_ensemble", "is_decision_list"}:
            lines.append(node.lineno)
    return lines


def test_queries_ask_for_capabilities_not_model_types():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).as_posix()
        if rel.startswith(KIND_CHECKS_ALLOWED_IN):
            continue
        found += [f"{rel}:{line}" for line in _kind_checks(path.read_text(encoding="utf-8"))]
    assert len(found) <= MAX_KIND_CHECKS, f"{len(found)} model-type checks: {found}"


def test_the_kind_check_probe_finds_each_form():
    source = ("isinstance(m, DecisionTree)\nisinstance(m, DNF | DecisionList)\n"
              "isinstance(m, (ir.TreeEnsemble, int))\nis_tree(m)\nisinstance(m, int)\n"
              "offers(m, PATHS)\n")
    assert _kind_checks(source) == [1, 2, 3, 4]
def test_the_ir_gets_its_jupyter_view_from_the_report_wing():
    """A tree shows itself in Jupyter although the IR imports no wing: in a fresh interpreter,
    ``import xdt`` loads neither the IR nor the view; loading xdt.ir._tree (alone) gives
    DecisionTree the report wing's view as its ``_repr_html_``, and no more of the report."""
    code = ("import json, sys, xdt\n"
            "wings = lambda: sorted(m for m in sys.modules if m.startswith(('xdt.ir', "
            "'xdt.report')))\n"
            "before = wings()\n"
            "from xdt.ir._tree import DecisionTree\n"
            "view = DecisionTree._repr_html_\n"
            "print(json.dumps([before, view.__module__, view.__name__, "
            "[m for m in wings() if m.startswith('xdt.report')]]))\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(PACKAGE.parent), *filter(None, [os.environ.get("PYTHONPATH")])])}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env=env, check=False)
    assert proc.returncode == 0, proc.stderr
    before, module, name, report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert before == []
    assert (module, name) == ("xdt.report._jupyter", "tree_html")
    assert report == ["xdt.report", "xdt.report._jupyter", "xdt.report._svg"]
