"""The HTML audit report of a model's explanations, the tree as SVG, its Jupyter view.

The view is attached to the IR's DecisionTree from here (:mod:`xdt.report._jupyter`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdt._lazy import lazy_names

if TYPE_CHECKING:
    from xdt.report._html import build_report, write_report
    from xdt.report._svg import tree_svg

#: Public name -> its module, imported on first use, so that xdt.report._svg and
#: xdt.report._jupyter (the tree's Jupyter view, loaded with xdt.ir._tree) load no engine.
_WHERE = {"build_report": "xdt.report._html", "tree_svg": "xdt.report._svg",
          "write_report": "xdt.report._html"}

__all__ = ["build_report", "tree_svg", "write_report"]

__getattr__, __dir__ = lazy_names(__name__, _WHERE)
