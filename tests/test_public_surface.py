"""The public surface: each package's ``__all__`` lists its public names, every module is private
(underscored, as scikit-learn's are), and the API reference documents exactly ``__all__``."""

from __future__ import annotations

import importlib
import re
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "xdt"

#: Modules that are public as they are: the error hierarchy (``xdt.errors``, in ``xdt.__all__``),
#: and the files every package has.
PUBLIC_MODULES = {"__init__.py", "__main__.py", "errors.py"}


def _packages() -> list[str]:
    return sorted(".".join(p.parent.relative_to(ROOT).parts) for p in PACKAGE.rglob("__init__.py"))


def _resolve(dotted: str) -> object:
    """The object named ``dotted``: the longest importable module prefix, then attributes."""
    parts = dotted.split(".")
    for k in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:k]))
        except ImportError:
            continue
        for name in parts[k:]:
            obj = getattr(obj, name)
        return obj
    raise ImportError(dotted)


def _members(module: types.ModuleType) -> list[object]:
    return [getattr(module, name) for name in module.__all__]


def _public() -> dict[int, str]:
    """id -> a name, for every object in some package's ``__all__`` (and the ``__all__`` of a
    public module listed there, such as ``xdt.errors``)."""
    out: dict[int, str] = {}
    for package in _packages():
        module = importlib.import_module(package)
        for name, obj in zip(module.__all__, _members(module), strict=True):
            if isinstance(obj, types.ModuleType):
                out.update({id(o): f"{obj.__name__}.{n}"
                            for n, o in zip(obj.__all__, _members(obj), strict=True)})
            elif name != "__version__":
                out[id(obj)] = f"{package}.{name}"
    return out


def _documented() -> dict[int, str]:
    """id -> the name a ``:::`` line of the API reference gives it; a module's line documents
    the names of its ``__all__``."""
    out: dict[int, str] = {}
    for page in sorted((ROOT / "docs" / "api").glob("*.md")):
        for target in re.findall(r"^::: (\S+)", page.read_text(encoding="utf-8"), re.M):
            obj = _resolve(target)
            if isinstance(obj, types.ModuleType):
                out.update({id(o): f"{target}.{n}"
                            for n, o in zip(obj.__all__, _members(obj), strict=True)})
            else:
                out[id(obj)] = target
    return out


@pytest.mark.parametrize("package", _packages())
def test_every_package_lists_its_public_names(package):
    module = importlib.import_module(package)
    assert isinstance(getattr(module, "__all__", None), list), f"{package} has no __all__"
    assert len(set(module.__all__)) == len(module.__all__)
    for name in module.__all__:
        assert hasattr(module, name), f"{package}.__all__ names {name!r}, which it lacks"


def test_every_module_is_private():
    public = sorted(str(p.relative_to(ROOT)) for p in PACKAGE.rglob("*.py")
                    if p.name not in PUBLIC_MODULES and not p.name.startswith("_"))
    assert public == [], f"modules outside every __all__ must be underscored: {public}"


def test_the_api_reference_documents_exactly_the_public_names():
    public, documented = _public(), _documented()
    missing = sorted(public[i] for i in set(public) - set(documented))
    extra = sorted(documented[i] for i in set(documented) - set(public))
    assert (missing, extra) == ([], []), \
        f"public but not in docs/api: {missing}; in docs/api but in no __all__: {extra}"


def test_the_probe_resolves_names_and_reads_pages():
    """The checker is not blind: it resolves a dotted name to the object, and a package's line
    to the names of its __all__."""
    import xdt.explain

    assert _resolve("xdt.explain.Explainer") is xdt.explain.Explainer
    assert id(xdt.explain.Explainer) in _public()
    assert id(xdt.explain.Explainer) in _documented()
