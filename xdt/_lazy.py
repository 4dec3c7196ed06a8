"""Public names of a package imported on first use (PEP 562), so that importing the package
-- or one of its modules -- loads no more than it needs, and no import ring forms between a
package and the modules its names come from."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any


def lazy_names(package: str, where: Mapping[str, str], submodules: Sequence[str] = ()
               ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for the package named ``package``.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    where : mapping of str to str
        Public name -> the module it is defined in.
    submodules : sequence of str
        Subpackages reachable as attributes, imported on first access.

    Returns
    -------
    (callable, callable)
        The package's ``__getattr__`` (imports the name's module on first access, keeps the
        value as an attribute; :class:`AttributeError` for any other name) and ``__dir__``.
    """
    namespace = sys.modules[package].__dict__

    def __getattr__(name: str) -> Any:  # noqa: N807 - the module hook's name
        if name in where:
            value = getattr(importlib.import_module(where[name]), name)
        elif name in submodules:
            value = importlib.import_module(f"{package}.{name}")
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        namespace[name] = value
        return value

    def __dir__() -> list[str]:  # noqa: N807 - the module hook's name
        return sorted(set(namespace) | set(where) | set(submodules))

    return __getattr__, __dir__
