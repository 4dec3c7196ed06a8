"""Pictures of trees and their formal explanations (optional: matplotlib, ``xdt[plot]``).

* :func:`to_dot` — Graphviz DOT text of a tree (no Graphviz or matplotlib needed): nodes
  labelled with their tests and classes, coloured by feature (one colour per feature, as in
  Souza et al.'s Figure 1), and for an instance its path in bold and its AXp's nodes marked;
* :func:`plot_tree` — the same drawn with matplotlib (layered layout: leaves left to right in
  depth-first order, each node above the middle of its children, one row per depth).

Every ``plot_*`` function returns the matplotlib ``Figure``; when ``ax`` is given it draws
there and returns ``ax.figure``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdt.errors import ParameterError, XdtError
from xdt.ir._protocol import PATHS, offers
from xdt.ir._tree import CategoricalSplit, DecisionTree, Leaf, Node, ThresholdSplit
from xdt.plot._backend import (
    LEAF_COLOUR,
    PALETTE,
    PATH_COLOUR,
    figure_axes,
    needs_matplotlib,
)

__all__ = ["plot_tree", "to_dot"]


# ---------------------------------------------------------------------------- tree walk
@dataclass
class _Node:
    """One node of the tree in preorder (the numbering of ``DecisionTree`` paths' ``node``)."""

    id: int
    node: Node
    depth: int
    parent: int
    edge: str  # label of the edge from the parent ("" for the root)
    children: list[int] = field(default_factory=list)
    on_path: bool = False

    @property
    def is_leaf(self) -> bool:
        return isinstance(self.node, Leaf)

    @property
    def feature(self) -> str | None:
        return None if self.is_leaf else self.node.feature


def _children(node: Node) -> list[Node]:
    if isinstance(node, ThresholdSplit):
        return [node.left, node.right]
    if isinstance(node, CategoricalSplit):
        return [b.node for b in node.branches]
    return []


def _walk(tree: DecisionTree) -> list[_Node]:
    """The tree's nodes in preorder, first branch first."""
    out: list[_Node] = []
    stack: list[tuple[Node, int, int, str]] = [(tree.root, 0, -1, "")]
    while stack:
        node, depth, parent, edge = stack.pop()
        me = _Node(len(out), node, depth, parent, edge)
        out.append(me)
        if parent >= 0:
            out[parent].children.append(me.id)
        kids = _children(node)
        if kids:
            for child, label in reversed(list(zip(kids, node.edge_labels(tree.input_dtype),
                                                  strict=True))):
                stack.append((child, depth + 1, me.id, label))
    return out


def _feature_colours(nodes: list[_Node]) -> dict[str, str]:
    colours: dict[str, str] = {}
    for n in nodes:
        if n.feature is not None and n.feature not in colours:
            colours[n.feature] = PALETTE[len(colours) % len(PALETTE)]
    return colours


def _check_tree(tree) -> DecisionTree:
    tree = getattr(tree, "tree_", tree)  # a fitted xdt learner
    if not offers(tree, PATHS):
        raise ParameterError(f"expected an xdt DecisionTree (or a fitted xdt learner), got "
                             f"{type(tree).__name__}")
    return tree


def _instance_path(tree: DecisionTree, nodes: list[_Node], x) -> list[int]:
    """Mark and return the node ids on ``x``'s path, root first."""
    cells = tree.encode(x)
    if cells.ndim == 2:
        if len(cells) != 1:
            raise ParameterError(f"instance: expected one row, got {len(cells)}")
        cells = cells[0]
    path = [0]
    while not nodes[path[-1]].is_leaf:
        n = nodes[path[-1]]
        fi = tree.features.index(n.feature)
        cell = int(cells[fi])
        for (mask, _child), cid in zip(tree.edges(n.node), n.children, strict=True):
            if (mask >> cell) & 1:
                path.append(cid)
                break
        else:  # pragma: no cover - the edges partition the cells
            raise XdtError("no edge takes the instance's cell")
    for i in path:
        nodes[i].on_path = True
    return path


def _node_label(n: _Node, tree: DecisionTree) -> str:
    if n.is_leaf:
        return f"{tree.target} = {n.node.label}" if tree.target else str(n.node.label)
    return n.feature


def _explainer(tree: DecisionTree, explainer):
    if explainer is None:
        from xdt.explain._explainer import Explainer

        explainer = Explainer(tree)
    return explainer


# ---------------------------------------------------------------------------- DOT
def _dot_quote(s: str) -> str:
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"') + '"'


def to_dot(tree, instance=None, explainer=None, *, name: str = "tree") -> str:
    """Graphviz DOT text of ``tree`` (render it with ``dot -Tpng``; no Graphviz needed here).

    Parameters
    ----------
    tree : DecisionTree, or a fitted xdt learner (its ``tree_``)
    instance : dict, sequence or one-row DataFrame, optional
        When given, the edges of its path are bold and red, the nodes of its path have a red
        border, and the nodes of the path testing a feature of its AXp have a thick border
        (``penwidth=4``); the AXp and the prediction are in the graph's label.
    explainer : xdt.Explainer, optional
        The explainer computing the AXp (default ``Explainer(tree)``).

    Returns
    -------
    str
        One ``nK [...]`` line per node (``K`` its preorder number, the numbering of
        ``Path.node``), one ``nP -> nC [...]`` line per edge. Split nodes are coloured by
        feature, leaves are white boxes.
    """
    tree = _check_tree(tree)
    nodes = _walk(tree)
    colours = _feature_colours(nodes)
    axp: tuple[str, ...] = ()
    title = ""
    if instance is not None:
        _instance_path(tree, nodes, instance)
        ex = _explainer(tree, explainer)
        e = ex.axp(instance)
        axp = e.features
        title = f"prediction {e.prediction}; AXp: {{{', '.join(axp)}}}"
    lines = [f"digraph {_dot_quote(name)} {{",
             '  node [fontname="Helvetica", style="filled"];',
             '  edge [fontname="Helvetica", fontsize=10];']
    if title:
        lines.append(f"  label={_dot_quote(title)}; labelloc=t;")
    for n in nodes:
        attrs = {"label": _node_label(n, tree)}
        if n.is_leaf:
            attrs.update(shape="box", fillcolor=LEAF_COLOUR)
        else:
            attrs.update(shape="ellipse", fillcolor=colours[n.feature])
        if n.on_path:
            attrs["color"] = PATH_COLOUR
            attrs["penwidth"] = "4" if n.feature in axp else "2"
        text = ", ".join(f"{k}={_dot_quote(v)}" for k, v in attrs.items())
        lines.append(f"  n{n.id} [{text}];")
    for n in nodes:
        if n.parent < 0:
            continue
        attrs = {"label": n.edge}
        if n.on_path:
            attrs.update(style="bold", color=PATH_COLOUR, penwidth="3")
        text = ", ".join(f"{k}={_dot_quote(v)}" for k, v in attrs.items())
        lines.append(f"  n{n.parent} -> n{n.id} [{text}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------- matplotlib


def _layout(nodes: list[_Node], max_depth: int | None) -> dict[int, tuple[float, float]]:
    """x by in-order leaf position, y = -depth; only nodes at depth <= max_depth."""
    pos: dict[int, tuple[float, float]] = {}
    next_leaf = 0.0
    # children before their parent, leaves left to right, over an explicit stack (a tree
    # may be deeper than Python's recursion limit)
    stack: list[tuple[int, bool]] = [(0, False)]
    while stack:
        i, done = stack.pop()
        n = nodes[i]
        kids = [] if (max_depth is not None and n.depth >= max_depth) else n.children
        if not kids:
            x, next_leaf = next_leaf, next_leaf + 1.0
        elif not done:
            stack.append((i, True))
            stack.extend((c, False) for c in reversed(kids))
            continue
        else:
            x = (pos[kids[0]][0] + pos[kids[-1]][0]) / 2
        pos[i] = (x, -float(n.depth))
    return pos


@needs_matplotlib
def plot_tree(tree, instance=None, *, ax=None, max_depth: int | None = None, explainer=None,
              fontsize: float | None = None):
    """Draw ``tree`` with matplotlib: nodes coloured by feature (legend of features), edges
    labelled with their tests, leaves with their classes.

    Parameters
    ----------
    tree : DecisionTree, or a fitted xdt learner
    instance : optional
        One instance: its path is drawn in thick red, the nodes of the path testing a feature
        of its AXp get a thick black border, and the title gives the prediction, the AXp and
        all CXps.
    ax : matplotlib Axes, optional
    max_depth : int, optional
        Draw only the nodes at depth ``<= max_depth``; a split node cut there is drawn
        with a trailing ``...``.
    explainer : xdt.Explainer, optional
        The explainer for ``instance`` (default ``Explainer(tree)``).

    Returns
    -------
    matplotlib.figure.Figure
        Each drawn node is one patch of the axes with gid ``"xdt-node"``; the count is also in
        ``fig._xdt_nodes``.
    """
    tree = _check_tree(tree)
    if max_depth is not None and (isinstance(max_depth, bool) or not isinstance(max_depth, int)
                                  or max_depth < 0):
        raise ParameterError(f"max_depth must be a non-negative integer or None, got "
                             f"{max_depth!r}")
    from matplotlib.collections import LineCollection
    from matplotlib.patches import FancyBboxPatch, Patch

    nodes = _walk(tree)
    colours = _feature_colours(nodes)
    axp: tuple[str, ...] = ()
    title = None
    if instance is not None:
        _instance_path(tree, nodes, instance)
        ex = _explainer(tree, explainer)
        e = ex.axp(instance)
        axp = e.features
        cxps = ex.all_cxps(instance)
        title = (f"prediction: {e.prediction}\nAXp: {{{', '.join(axp)}}}\nCXps: "
                 + "; ".join("{" + ", ".join(c.features) + "}" for c in cxps))
    pos = _layout(nodes, max_depth)
    width = max(x for x, _ in pos.values()) + 1
    depth = max(-y for _, y in pos.values())
    fig, ax = figure_axes(ax, (max(6.0, 1.7 * width), max(3.0, 1.4 * (depth + 1))))
    fs = fontsize or 8
    normal, highlighted = [], []
    for i, (x, y) in pos.items():
        n = nodes[i]
        if n.parent >= 0:
            seg = [pos[n.parent], (x, y)]
            (highlighted if n.on_path else normal).append(seg)
            px, py = pos[n.parent]
            ax.text((px + x) / 2, (py + y) / 2, n.edge, ha="center", va="center",
                    fontsize=fs * 0.85, color="#444444",
                    bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none",
                          "alpha": 0.8}, zorder=3)
    ax.add_collection(LineCollection(normal, colors="#888888", linewidths=1, zorder=1))
    if highlighted:
        ax.add_collection(LineCollection(highlighted, colors=PATH_COLOUR, linewidths=3,
                                         zorder=2))
    w, h = 0.8, 0.36
    drawn = 0
    for i, (x, y) in pos.items():
        n = nodes[i]
        cut = not n.is_leaf and max_depth is not None and n.depth >= max_depth
        label = _node_label(n, tree) + (" ..." if cut else "")
        face = LEAF_COLOUR if n.is_leaf else colours[n.feature]
        edge, lw = "#333333", 1.0
        if n.on_path:
            edge, lw = PATH_COLOUR, 2.0
            if n.feature in axp:
                edge, lw = "black", 3.5
        box = FancyBboxPatch((x - w / 2, y - h / 2), w, h, boxstyle="round,pad=0.02",
                             facecolor=face, edgecolor=edge, linewidth=lw, zorder=4)
        box.set_gid("xdt-node")
        ax.add_patch(box)
        ax.text(x, y, label, ha="center", va="center", fontsize=fs, zorder=5,
                fontweight="bold" if n.feature in axp and n.on_path else "normal")
        drawn += 1
    ax.set_xlim(-0.6, width - 0.4)
    ax.set_ylim(-depth - 0.6, 0.6)
    ax.set_axis_off()
    handles = [Patch(facecolor=c, edgecolor="#333333", label=f) for f, c in colours.items()]
    if handles:
        ax.legend(handles=handles, title="feature", loc="upper left",
                  bbox_to_anchor=(1.0, 1.0), fontsize=fs, title_fontsize=fs)
    if title:
        ax.set_title(title, fontsize=fs + 1, loc="left")
    fig._xdt_nodes = drawn
    return fig
