"""Every dotted name ``xdt.a.b`` that the package's docstrings, the READMEs, the documentation
site, the notebooks and the benchmarks mention names something that exists: a module, or an
attribute of one (a class's field or instance attribute counts). A module moved or renamed
leaves no reader sent to its old name.
"""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NAME = re.compile(r"(?<![\w.])xdt(?:\.[A-Za-z_]\w*)+")
#: text files that name xdt's modules for a reader (the tests are not among them)
SOURCES = ("README.md", "encodings/README.md", "notebooks/README.md", "benchmarks/README.md",
           "notebooks/*.ipynb", "benchmarks/*.py", "xdt/**/*.py", "docs/**/*.md")
#: file names that look like dotted names
FILES = re.compile(r"xdt\.(json|csv|html|svg|png|txt|cnf|egg-info)\b")


def _has(obj: object, name: str) -> bool:
    if hasattr(obj, name):
        return True
    if inspect.isclass(obj):  # a dataclass field without default, or a self.name attribute
        if name in getattr(obj, "__dataclass_fields__", {}) or \
                name in getattr(obj, "__annotations__", {}):
            return True
        try:
            source = inspect.getsource(obj)
        except (OSError, TypeError):
            return False
        return re.search(rf"\bself\.{name}\s*[:=]", source) is not None
    return False


def resolves(name: str) -> bool:
    """Whether ``name`` is an importable module, or attributes down from one."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for part in parts[i:]:
            if not _has(obj, part):
                return False
            obj = getattr(obj, part, None)
        return True
    return False


def mentions() -> dict[str, list[str]]:
    """Dotted xdt names, and where (file:line) each is mentioned."""
    found: dict[str, list[str]] = {}
    for pattern in SOURCES:
        for path in sorted(ROOT.glob(pattern)):
            text = path.read_text(encoding="utf-8")
            for m in NAME.finditer(text):
                if FILES.match(text, m.start()):
                    continue
                where = f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}"
                found.setdefault(m.group(0), []).append(where)
    return found


def test_the_probe_tells_real_names_from_gone_ones():
    assert resolves("xdt.explain.engines._vectorised.explain_rows")
    assert resolves("xdt.ir._tree.Path.node")  # a dataclass field
    assert resolves("xdt.ir._ensemble.TreeEnsemble.reference")  # an instance attribute
    assert not resolves("xdt.batch")
    assert not resolves("xdt.explain.engines._compiled.explain_rows")
    assert "xdt.batch.explain_dask" in NAME.findall("see :func:`xdt.batch.explain_dask`.")
    assert NAME.findall("a.xdt.b and model.xdt.json") == []


def test_every_dotted_name_the_docs_and_docstrings_mention_exists():
    gone = {name: where for name, where in mentions().items() if not resolves(name)}
    if gone:
        pytest.fail("names that no longer exist (moved or renamed?):\n" + "\n".join(
            f"  {name}: {', '.join(where[:3])}" for name, where in sorted(gone.items())))
