"""The HTML audit report of a model's explanations, the tree as SVG, its Jupyter view.

The view is attached to the IR's DecisionTree from here (:mod:`xdt.report.jupyter`)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from xdt.report.html import build_report, write_report

__all__ = ["build_report", "write_report"]

# imported on first use, so that xdt.report.svg and xdt.report.jupyter (the tree's Jupyter
# view, loaded with xdt.ir.tree) load no engine


def __getattr__(name: str) -> Any:
    """:func:`build_report` and :func:`write_report`, from :mod:`xdt.report.html` on first
    use."""
    if name in __all__:
        value = getattr(importlib.import_module("xdt.report.html"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'xdt.report' has no attribute {name!r}")
