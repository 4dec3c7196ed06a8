"""A decision tree drawn as SVG, every node and edge named so that a row's path, its AXp and
its CXps can be highlighted.

The layout is *tidy* (Reingold & Tilford, "Tidier Drawings of Trees", IEEE TSE 1981): one
row per depth, each subtree drawn once and then placed, as a rigid block, as close to its
left sibling as their contours (the left and right extent of each depth) allow, and every
parent centred above its first and last child. Extents are the widths of the node boxes and
of the edge labels above them, estimated from the length of their text, so labels of
neighbouring edges do not overlap.

Each node is a ``<g class="xdt-node">`` with ``id="{prefix}n{K}"`` (``K`` the node's preorder
number, the numbering of :attr:`xdt.ir.Path.node`), ``data-node``, ``data-f`` (the tested
feature's position, split nodes) or ``data-class`` (the class position, leaves), and the
edge into node ``K`` is a ``<g class="xdt-edge">`` with ``id="{prefix}e{K}"``, ``data-node``,
``data-parent`` and ``data-f`` (the parent's feature). Highlights are classes on those
groups: ``on-path`` (the nodes and edges of a row's path), ``axp`` (the path's nodes testing
a feature of the AXp, and the path's edge out of them) and ``cxp`` (every node testing a
feature of some CXp), as :func:`tree_svg` sets them and the report's script does on a click.

The module reads a tree only through its public attributes (``root``, ``features``,
``classes``, ``edges``, ``input_dtype``); it imports no engine and not :mod:`xdt.ir._tree`.
A tree's Jupyter view (:mod:`xdt.report._jupyter`) draws with it.

Examples
--------
>>> from xdt.ir import DecisionTree, Feature, Leaf, ThresholdSplit
>>> t = DecisionTree([Feature("x", "ordinal")], ["lo", "hi"],
...                  ThresholdSplit("x", 0.5, Leaf("lo"), Leaf("hi")))
>>> nodes = layout(t)
>>> [(n.id, n.text, n.edge) for n in nodes]
[(0, 'x', ''), (1, 'lo', '<= 0.5'), (2, 'hi', '> 0.5')]
>>> node_path(nodes, [1])
[0, 2]
>>> 'id="xdt-n2"' in tree_svg(t, path=[0, 2])
True
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from html import escape
from string import Template
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xdt.ir._tree import DecisionTree

__all__ = ["DrawnNode", "class_colours", "highlights", "layout", "next_prefix", "node_path",
           "tree_svg"]

MAX_DRAWN_NODES = 5000
"""Trees with more nodes are not drawn by the report (a picture past this size is unreadable
and heavy)."""
FONT_SIZE = 12
"""Font size of the labels, in pixels."""
CHAR_WIDTH = 7.2
"""Estimated width of one character at :data:`FONT_SIZE` (a little above the average of the
common sans-serif fonts, so that estimated boxes hold their text)."""
NODE_HEIGHT = 26
LEVEL_HEIGHT = 78
"""Vertical distance between the centres of two depths (room for an edge label between)."""
GAP = 16
"""Least horizontal space between two neighbouring boxes or labels."""
MARGIN = 12
MAX_LABEL = 28
"""Characters of a node's label drawn in full; a longer one is cut (with ``…``) and given
whole in its tooltip (``<title>``)."""
MAX_EDGE_LABEL = 20
"""The same for an edge's label (``in {a, b, c}``), which widens the drawing most."""
FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", Arial, sans-serif'
"""Fonts the system has: the picture loads none."""

#: Leaf fills (light) and borders (dark), one pair per class, in class order (cycled).
CLASS_COLOURS = (("#cfe2f3", "#3d6fa3"), ("#fbdcb8", "#b4641a"), ("#d4edca", "#3f8a2e"),
                 ("#f5caca", "#b03a3a"), ("#e3d7ee", "#7152a0"), ("#eadbd4", "#80563f"),
                 ("#f7d4e8", "#b04d88"), ("#e4e4c0", "#85852b"), ("#cbeef3", "#2a8a98"),
                 ("#e0e0e0", "#666666"))
SPLIT_FILL = "#f4f5f7"
SPLIT_STROKE = "#7a8190"
EDGE_STROKE = "#a3a8b3"

CSS = Template("""
svg.xdt-tree text { font-family: $font; font-size: ${size}px; }
svg.xdt-tree .xdt-edge.on-path path { stroke: #c2185b; stroke-width: 3.5; }
svg.xdt-tree .xdt-edge.on-path text { font-weight: bold; fill: #8e0f43; }
svg.xdt-tree .xdt-edge.axp path { stroke: #e08a00; stroke-width: 5; }
svg.xdt-tree .xdt-node.on-path rect { stroke: #c2185b; stroke-width: 3; }
svg.xdt-tree .xdt-node.on-path text { font-weight: bold; }
svg.xdt-tree .xdt-node.axp rect { fill: #ffd166; stroke: #e08a00; stroke-width: 4; }
svg.xdt-tree .xdt-node.cxp rect { stroke-dasharray: 5 3; stroke: #6a3d9a; stroke-width: 3; }
svg.xdt-tree .xdt-node.on-path.cxp rect { stroke: #6a3d9a; }
""").substitute(font=FONT, size=FONT_SIZE)
"""The highlight styles (scoped to ``svg.xdt-tree``); the plain picture needs none."""


@dataclass
class DrawnNode:
    """One node of the drawing, in preorder (the numbering of ``DecisionTree`` paths'
    ``node``).

    Attributes
    ----------
    id, depth, parent : int
        Preorder number, depth (root 0), parent's number (-1 for the root).
    feature : int
        Position of the tested feature; -1 for a leaf.
    class_index : int
        Position of a leaf's class in ``tree.classes``; -1 for a split node.
    text, edge : str
        The node's label (the feature's name, or the leaf's class) and the label of the edge
        into it (``<= 2.5``, ``= sunny``, ``in {rain, sunny}``; ``""`` for the root).
    children : list of int
        Children's numbers, in branch order (``left`` first).
    masks : list of int
        Per child, the cells of :attr:`feature` that follow the edge to it.
    x, y, width : float
        Centre and box width, in pixels, once :func:`layout` has placed the node.
    """

    id: int
    depth: int
    parent: int
    feature: int
    class_index: int
    text: str
    edge: str
    children: list[int] = field(default_factory=list)
    masks: list[int] = field(default_factory=list)
    x: float = 0.0
    y: float = 0.0
    width: float = 0.0


def _cut(text: str, limit: int = MAX_LABEL) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _text_width(text: str) -> float:
    return CHAR_WIDTH * len(text)


def layout(tree: DecisionTree) -> list[DrawnNode]:
    """The nodes of ``tree`` in preorder, placed by the tidy layout (see the module
    docstring).

    Parameters
    ----------
    tree : DecisionTree

    Returns
    -------
    list of DrawnNode
        ``nodes[k]`` is node ``k``; ``x``, ``y`` are box centres, with the leftmost box at
        :data:`MARGIN` and the root's centre at ``MARGIN + NODE_HEIGHT / 2``.

    Notes
    -----
    O(n * depth) time for ``n`` nodes (each subtree's contour is merged into its parent's,
    depth by depth); no recursion, so any depth.
    """
    class_of = {c: i for i, c in enumerate(tree.classes)}
    index_of = {name: i for i, name in enumerate(tree.features.names)}
    nodes: list[DrawnNode] = []
    stack: list[tuple[object, int, int, str, int]] = [(tree.root, 0, -1, "", 0)]
    while stack:
        node, depth, parent, edge, mask = stack.pop()
        me = len(nodes)
        if parent >= 0:
            nodes[parent].children.append(me)
            nodes[parent].masks.append(mask)
        feature = getattr(node, "feature", None)
        if feature is None:  # a leaf
            label = node.label
            nodes.append(DrawnNode(me, depth, parent, -1, class_of[label], str(label), edge))
            continue
        nodes.append(DrawnNode(me, depth, parent, index_of[feature], -1, str(feature), edge))
        out = tree.edges(node)
        labels = node.edge_labels(tree.input_dtype)
        for (m, child), label in zip(reversed(out), reversed(labels), strict=True):
            stack.append((child, depth + 1, me, label, m))
    _place(nodes)
    return nodes


def _place(nodes: list[DrawnNode]) -> None:
    """Set ``x``, ``y`` and ``width`` of every node (the tidy layout)."""
    n = len(nodes)
    for d in nodes:
        d.width = _text_width(_cut(d.text)) + 18
    # contour[k][l]: (left, right) extent of depth l below node k, relative to k's centre
    contour: list[list[tuple[float, float]] | None] = [None] * n
    offset = [0.0] * n  # centre relative to the parent's centre
    for k in range(n - 1, -1, -1):  # children are numbered after their parent
        d = nodes[k]
        half = max(d.width, _text_width(_cut(d.edge, MAX_EDGE_LABEL)) + 8) / 2
        if not d.children:
            contour[k] = [(-half, half)]
            continue
        acc: list[tuple[float, float]] = []
        shifts: list[float] = []
        for c in d.children:
            cc = contour[c]
            assert cc is not None
            if not acc:
                s = 0.0
            else:
                s = max(acc[lv][1] - cc[lv][0] for lv in range(min(len(acc), len(cc)))) + GAP
            for lv, (a, b) in enumerate(cc):
                if lv < len(acc):
                    acc[lv] = (min(acc[lv][0], a + s), max(acc[lv][1], b + s))
                else:
                    acc.append((a + s, b + s))
            shifts.append(s)
            contour[c] = None
        mid = (shifts[0] + shifts[-1]) / 2
        for c, s in zip(d.children, shifts, strict=True):
            offset[c] = s - mid
        contour[k] = [(-half, half)] + [(a - mid, b - mid) for a, b in acc]
    root = contour[0]
    assert root is not None
    left = min(a for a, _ in root)
    xs = [0.0] * n
    for d in nodes:
        xs[d.id] = 0.0 if d.parent < 0 else xs[d.parent] + offset[d.id]
        d.x = xs[d.id] - left + MARGIN
        d.y = MARGIN + NODE_HEIGHT / 2 + d.depth * LEVEL_HEIGHT


def node_path(nodes: Sequence[DrawnNode], cells: Sequence[int]) -> list[int]:
    """Numbers of the nodes a row with these cells (one per feature, as
    ``tree.encode`` gives them) passes, root first, leaf last."""
    k = 0
    out = [0]
    while nodes[k].feature >= 0:
        cell = int(cells[nodes[k].feature])
        d = nodes[k]
        for m, c in zip(d.masks, d.children, strict=True):
            if (m >> cell) & 1:
                k = c
                break
        else:  # pragma: no cover - cannot happen: a split's edges partition the cells (an
            # internal invariant, not bad input; this module imports no xdt.errors)
            raise AssertionError(f"no edge of node {k} takes cell {cell}")
        out.append(k)
    return out


_PREFIXES = itertools.count(1)


def next_prefix() -> str:
    """An id prefix no other picture of this process has (``xdt-t1-``, ``xdt-t2-``, ...),
    for pictures that share a page, such as a notebook's."""
    return f"xdt-t{next(_PREFIXES)}-"


def class_colours(n_classes: int) -> list[tuple[str, str]]:
    """``(fill, border)`` of each class's leaves."""
    return [CLASS_COLOURS[i % len(CLASS_COLOURS)] for i in range(n_classes)]


def _f(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def highlights(nodes: Sequence[DrawnNode], path: Iterable[int] = (),
               axp: Iterable[int] = (), cxp: Iterable[int] = ()
               ) -> tuple[dict[int, set[str]], dict[int, set[str]]]:
    """The highlight classes of the nodes and of the edges (by the number of the node they
    lead to) for a row's ``path`` (node numbers), the features of its AXp and of its CXps
    (positions): what the report's script sets on a click."""
    path = list(path)
    axp, cxp = set(axp), set(cxp)
    node_cls: dict[int, set[str]] = {}
    edge_cls: dict[int, set[str]] = {}
    for i, k in enumerate(path):
        node_cls.setdefault(k, set()).add("on-path")
        if k > 0:
            edge_cls.setdefault(k, set()).add("on-path")
        if nodes[k].feature in axp:
            node_cls[k].add("axp")
            if i + 1 < len(path):
                edge_cls.setdefault(path[i + 1], set()).add("axp")
    if cxp:
        for d in nodes:
            if d.feature in cxp:
                node_cls.setdefault(d.id, set()).add("cxp")
    return node_cls, edge_cls


def tree_svg(tree: DecisionTree, *, nodes: Sequence[DrawnNode] | None = None,
             path: Iterable[int] = (), axp: Iterable[int] = (), cxp: Iterable[int] = (),
             id_prefix: str = "xdt-", style: bool = True, legend: bool = True,
             standalone: bool = False) -> str:
    """The SVG picture of ``tree``.

    Parameters
    ----------
    tree : DecisionTree
    nodes : sequence of DrawnNode, optional
        ``layout(tree)``, when the caller has it already.
    path : iterable of int
        Node numbers of a row's path (:func:`node_path`), drawn highlighted.
    axp, cxp : iterable of int
        Positions of the features of the row's AXp, and of its CXps (see the module
        docstring for what is highlighted).
    id_prefix : str
        Prefix of the elements' ids (two pictures in one page need two prefixes).
    style : bool
        Include the highlight styles (:data:`CSS`) in a ``<style>`` element; a page that
        has them already leaves them out.
    legend : bool
        Draw the classes' colours above the tree.
    standalone : bool
        Add the SVG namespace, for a ``.svg`` file (inline in HTML it is not needed).

    Returns
    -------
    str
        One ``<svg class="xdt-tree">`` element; every text in it is escaped.
    """
    nodes = layout(tree) if nodes is None else nodes
    node_cls, edge_cls = highlights(nodes, path, axp, cxp)
    colours = class_colours(len(tree.classes))
    names = tree.features.names
    target = getattr(tree, "target", None)
    top = 0.0
    parts: list[str] = []
    if legend:
        x = float(MARGIN)
        items = [f'<text x="{MARGIN}" y="{MARGIN + 9}" fill="#444">classes:</text>']
        x += _text_width("classes:") + 8
        for i, c in enumerate(tree.classes):
            fill, stroke = colours[i]
            label = _cut(str(c))
            w = _text_width(label) + 14
            items.append(f'<rect x="{_f(x)}" y="{MARGIN - 4}" width="{_f(w)}" height="18" '
                         f'rx="4" fill="{fill}" stroke="{stroke}"/>'
                         f'<text x="{_f(x + w / 2)}" y="{MARGIN + 9}" text-anchor="middle">'
                         f'{escape(label)}</text>')
            x += w + 6
        parts.append(f'<g class="xdt-legend">{"".join(items)}</g>')
        top = 30.0
        legend_width = x + MARGIN
    else:
        legend_width = 0.0
    right = max(d.x + max(d.width, _text_width(_cut(d.edge, MAX_EDGE_LABEL)) + 8) / 2
                for d in nodes)
    width = max(right + MARGIN, legend_width)
    height = max(d.y for d in nodes) + NODE_HEIGHT / 2 + MARGIN + top
    h2 = NODE_HEIGHT / 2

    edges: list[str] = []
    for d in nodes:
        if d.parent < 0:
            continue
        p = nodes[d.parent]
        y1, y2 = p.y + h2 + top, d.y - h2 + top
        ym = (y1 + y2) / 2
        cls = " ".join(["xdt-edge", *sorted(edge_cls.get(d.id, ()))])
        full = f"{names[p.feature]} {d.edge}"
        edges.append(
            f'<g class="{cls}" id="{escape(id_prefix)}e{d.id}" data-node="{d.id}" '
            f'data-parent="{p.id}" data-f="{p.feature}"><title>{escape(full)}</title>'
            f'<path d="M{_f(p.x)} {_f(y1)} C{_f(p.x)} {_f(ym)} {_f(d.x)} {_f(ym)} '
            f'{_f(d.x)} {_f(y2)}" fill="none" stroke="{EDGE_STROKE}" stroke-width="1.5"/>'
            f'<text x="{_f(d.x)}" y="{_f(y2 - 8)}" text-anchor="middle" fill="#333" '
            f'stroke="#fff" stroke-width="4" paint-order="stroke" stroke-linejoin="round">'
            f'{escape(_cut(d.edge, MAX_EDGE_LABEL))}</text></g>')
    boxes: list[str] = []
    for d in nodes:
        cls = ["xdt-node", "xdt-leaf" if d.feature < 0 else "xdt-split",
               *sorted(node_cls.get(d.id, ()))]
        if d.feature < 0:
            fill, stroke = colours[d.class_index]
            data = f'data-class="{d.class_index}"'
            tip = f"{target} = {d.text}" if target else d.text
        else:
            fill, stroke = SPLIT_FILL, SPLIT_STROKE
            data = f'data-f="{d.feature}"'
            tip = f"node {d.id}: tests {d.text}"
        y = d.y + top
        boxes.append(
            f'<g class="{" ".join(cls)}" id="{escape(id_prefix)}n{d.id}" data-node="{d.id}" '
            f'{data} data-x="{_f(d.x)}" data-y="{_f(y)}"><title>{escape(tip)}</title>'
            f'<rect x="{_f(d.x - d.width / 2)}" y="{_f(y - h2)}" width="{_f(d.width)}" '
            f'height="{NODE_HEIGHT}" rx="{6 if d.feature >= 0 else 2}" fill="{fill}" '
            f'stroke="{stroke}" stroke-width="1.5"/>'
            f'<text x="{_f(d.x)}" y="{_f(y + 4)}" text-anchor="middle">'
            f'{escape(_cut(d.text))}</text></g>')
    ns = ' xmlns="http://www.w3.org/2000/svg"' if standalone else ""
    head = (f'<svg{ns} class="xdt-tree" width="{_f(width)}" height="{_f(height)}" '
            f'viewBox="0 0 {_f(width)} {_f(height)}" role="img" '
            f'aria-label="decision tree of {len(nodes)} nodes" font-family=\'{FONT}\' '
            f'font-size="{FONT_SIZE}">')
    css = f"<style>{CSS}</style>" if style else ""
    return (head + css + "".join(parts) + f'<g class="xdt-edges">{"".join(edges)}</g>'
            f'<g class="xdt-nodes">{"".join(boxes)}</g></svg>')
