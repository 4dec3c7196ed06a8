"""The Jupyter view of a decision tree: a line of sizes and the tree drawn as SVG
(:func:`xdt.report.tree_svg`).

The IR draws nothing and imports no wing, so the view is attached to the model class from
here: :func:`attach` makes :func:`tree_html` the ``_repr_html_`` method of
:class:`~xdt.ir.DecisionTree`, which Jupyter (IPython's display) calls to show an object
as HTML. The package (``xdt/__init__.py``) calls :func:`attach` as soon as
:mod:`xdt.ir._tree` has been loaded, however it was imported, so that a tree shows itself as
a picture in every notebook; ``import xdt`` alone loads neither this module nor the IR.

This module imports no engine and not :mod:`xdt.ir._tree` (it is given the class).

Examples
--------
>>> from xdt.ir import DecisionTree, Feature, Leaf, ThresholdSplit
>>> t = DecisionTree([Feature("x", "ordinal")], ["lo", "hi"],
...                  ThresholdSplit("x", 0.5, Leaf("lo"), Leaf("hi")))
>>> view = t._repr_html_()   # what Jupyter shows: tree_html(t)
>>> "3 nodes, 2 leaves, depth 1" in view, view.count('class="xdt-node ')
(True, 3)
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from xdt.report import _svg as svg

if TYPE_CHECKING:
    from xdt.ir._tree import DecisionTree

__all__ = ["REPR_MAX_NODES", "attach", "tree_html"]

REPR_MAX_NODES = 1000
"""Trees with more nodes are not drawn in Jupyter (:func:`tree_html`)."""


def tree_html(tree: DecisionTree) -> str:
    """The tree as HTML, for Jupyter: a line of sizes and the tree drawn as SVG
    (:func:`xdt.report.tree_svg`, with element ids of its own, so that two pictures in
    one notebook do not share them); a tree of more than :data:`REPR_MAX_NODES` nodes is
    not drawn. Every text is escaped."""
    target = f", target {tree.target!r}" if tree.target else ""
    head = (f"<b>decision tree</b>: {len(tree.features)} features, {tree.n_nodes} nodes, "
            f"{tree.n_leaves} leaves, depth {tree.depth}, classes "
            f"{escape(', '.join(map(str, tree.classes)))}{escape(target)}")
    if tree.n_nodes > REPR_MAX_NODES:
        where = ("<code>xdt report</code> draws it" if tree.n_nodes <= svg.MAX_DRAWN_NODES
                 else "too many for a readable picture; <code>xdt report</code> lists "
                      "each row's path")
        picture = f"<div>(not drawn: more than {REPR_MAX_NODES} nodes; {where})</div>"
    else:
        picture = svg.tree_svg(tree, id_prefix=svg.next_prefix(), style=False)
    return f'<div class="xdt-decision-tree"><div>{head}</div>{picture}</div>'


def attach(tree_class: type) -> None:
    """Make :func:`tree_html` the Jupyter view (``_repr_html_``) of ``tree_class``
    (:class:`~xdt.ir.DecisionTree`). Idempotent."""
    tree_class._repr_html_ = tree_html  # type: ignore[attr-defined]
