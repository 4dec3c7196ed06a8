"""Pictures of trees and their formal explanations (optional: matplotlib, ``xdt[plot]``).

* :func:`to_dot` — Graphviz DOT text of a tree (no Graphviz or matplotlib needed): nodes
  labelled with their tests and classes, coloured by feature (one colour per feature, as in
  Souza et al.'s Figure 1), and for an instance its path in bold and its AXp's nodes marked;
* :func:`plot_tree` — the same drawn with matplotlib (layered layout: leaves left to right in
  depth-first order, each node above the middle of its children, one row per depth);
* :func:`plot_feature_importance` — formal feature importance: how often each feature is in
  the AXp of the rows of ``X``;
* :func:`plot_tradeoff` — accuracy and ``expl_avg`` against ``factor_expl`` (Souza et al.,
  Figure 2);
* :func:`plot_redundancy` — per path, the share of its literals that are explanation-redundant
  (:func:`xdt.explain.redundancy.path_redundancy`).

matplotlib is imported only when a ``plot_*`` function is called; every one of them checks
for it first, before looking at its arguments, through one gate (:func:`_needs_matplotlib`),
and without it raises :class:`PlotDependencyError` (an ``ImportError``) saying
``pip install "xdt[plot]"``. :func:`to_dot` needs no matplotlib.
Every ``plot_*`` function returns the matplotlib ``Figure``; when ``ax`` is given it draws
there and returns ``ax.figure``.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from xdt.errors import ParameterError, XdtError
from xdt.ir.tree import CategoricalSplit, DecisionTree, Leaf, Node, ThresholdSplit
from xdt.ir.values import display_threshold

__all__ = ["PlotDependencyError", "plot_feature_importance", "plot_redundancy",
           "plot_tradeoff", "plot_tree", "to_dot"]

#: One colour per feature (tab20, light shades first), in order of first test in the tree.
PALETTE = ("#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94", "#f7b6d2",
           "#dbdb8d", "#9edae5", "#c7c7c7", "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
           "#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#17becf", "#7f7f7f")
LEAF_COLOUR = "#ffffff"
PATH_COLOUR = "#d62728"


class PlotDependencyError(XdtError, ImportError):
    """matplotlib, needed by the ``xdt.plot`` drawing functions, is not installed."""


def _pyplot():
    """``matplotlib.pyplot``, the one place xdt.plot imports it.

    Raises
    ------
    PlotDependencyError
        matplotlib is not installed (or cannot be imported).
    """
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise PlotDependencyError(
            f'xdt.plot needs matplotlib ({exc}): pip install "xdt[plot]" (or pip install '
            f'"matplotlib>=3.7"); to_dot works without it') from exc
    return plt


_F = TypeVar("_F", bound=Callable)


def _needs_matplotlib(func: _F) -> _F:
    """Decorator of every public drawing function: import matplotlib (:func:`_pyplot`) before
    anything else, so that without it each raises :class:`PlotDependencyError` at once."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        _pyplot()
        return func(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


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


def _fmt_value(v: object) -> str:
    return str(v)


def _edge_labels(node: Node, input_dtype: str) -> list[str]:
    if isinstance(node, ThresholdSplit):
        t = display_threshold(node.threshold, input_dtype)  # as the rules show it
        return [f"<= {t}", f"> {t}"]
    labels = []
    for b in node.branches:
        vals = [_fmt_value(v) for v in b.values]
        labels.append(f"= {vals[0]}" if len(vals) == 1 else "in {" + ", ".join(vals) + "}")
    return labels


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
            for child, label in reversed(list(zip(kids, _edge_labels(node, tree.input_dtype),
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
    if not isinstance(tree, DecisionTree):
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
        from xdt.explain.explainer import Explainer

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
def _axes(ax, figsize):
    plt = _pyplot()
    if ax is None:
        fig, ax = plt.subplots(figsize=figsize)
    return ax.figure, ax


def _layout(nodes: list[_Node], max_depth: int | None) -> dict[int, tuple[float, float]]:
    """x by in-order leaf position, y = -depth; only nodes at depth <= max_depth."""
    pos: dict[int, tuple[float, float]] = {}
    next_leaf = [0.0]

    def place(i: int) -> float:
        n = nodes[i]
        kids = [] if (max_depth is not None and n.depth >= max_depth) else n.children
        if not kids:
            x = next_leaf[0]
            next_leaf[0] += 1.0
        else:
            xs = [place(c) for c in kids]
            x = (xs[0] + xs[-1]) / 2
        pos[i] = (x, -float(n.depth))
        return x

    import sys

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 4 * len(nodes) + 100))
    try:
        place(0)
    finally:
        sys.setrecursionlimit(limit)
    return pos


@_needs_matplotlib
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
    fig, ax = _axes(ax, (max(6.0, 1.7 * width), max(3.0, 1.4 * (depth + 1))))
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


def _axp_counts(model, X) -> Counter:
    """How many rows of ``X`` have each feature in their AXp."""
    model = getattr(model, "tree_", model)
    from xdt.explain.explainer import Explainer

    ex = Explainer(model)
    counts: Counter = Counter({name: 0 for name in model.features.names})
    if isinstance(model, DecisionTree):
        frame = ex.explain_batch(X, what="axp")
        for axp in frame["axp"]:
            counts.update(axp)
        return counts
    for x in _rows(X):
        counts.update(ex.axp(x).features)
    return counts


def _rows(X):
    import pandas as pd

    if isinstance(X, pd.DataFrame):
        return X.to_dict(orient="records")
    if isinstance(X, dict):
        return [X]
    return list(X)


@_needs_matplotlib
def plot_feature_importance(model, X, *, ax=None):
    """Formal feature importance: per feature, the number of rows of ``X`` whose AXp holds it.

    Trees (or fitted xdt learners) are explained at once by
    ``Explainer(model).explain_batch(X, what="axp")``; DNFs row by row with
    ``Explainer(model).axp``. Only features with a non-zero count get a bar (one horizontal
    bar each, most frequent at the top); the counts of all features are in
    ``fig._xdt_counts`` (a dict, feature order).

    Returns
    -------
    matplotlib.figure.Figure
    """
    counts = _axp_counts(model, X)
    shown = sorted(((c, f) for f, c in counts.items() if c), key=lambda t: (-t[0], t[1]))
    fig, ax = _axes(ax, (6.0, max(2.5, 0.35 * len(shown) + 1.2)))
    names = [f for _, f in shown][::-1]
    values = [c for c, _ in shown][::-1]
    ax.barh(names, values, color=PALETTE[10])
    ax.set_xlabel(f"rows whose AXp holds the feature (of {1 if isinstance(X, dict) else len(X)})")
    ax.set_title("formal feature importance (AXp frequency)")
    fig._xdt_counts = dict(counts)
    fig.tight_layout()
    return fig


@_needs_matplotlib
def plot_tradeoff(results, *, axes=None):
    """Accuracy and ``expl_avg`` against ``factor_expl``, in two panels (Souza et al., Figure 2).

    Parameters
    ----------
    results : pandas.DataFrame
        Columns ``factor_expl``, ``accuracy``, ``expl_avg``; several rows per factor (seeds,
        datasets) are averaged.
    axes : pair of matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    import pandas as pd

    if not isinstance(results, pd.DataFrame):
        raise ParameterError(f"results must be a pandas DataFrame, got "
                             f"{type(results).__name__}")
    missing = [c for c in ("factor_expl", "accuracy", "expl_avg") if c not in results.columns]
    if missing:
        raise ParameterError(f"results lacks the columns {missing}; it has "
                             f"{list(results.columns)}")
    if len(results) == 0:
        raise ParameterError("results is empty")
    plt = _pyplot()
    mean = (results.groupby("factor_expl", sort=True)[["accuracy", "expl_avg"]].mean()
            .reset_index())
    if axes is None:
        fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    else:
        fig = axes[0].figure
    for ax, metric, label in ((axes[0], "accuracy", "accuracy"),
                              (axes[1], "expl_avg", "mean explanation size (expl_avg)")):
        ax.plot(mean["factor_expl"], mean[metric], marker="o")
        ax.set_xlabel("factor_expl")
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
    fig.suptitle("accuracy / explanation size trade-off (cf. Souza et al. 2022, Figure 2)")
    fig.tight_layout()
    return fig


@_needs_matplotlib
def plot_redundancy(tree, *, ax=None):
    """Per path of ``tree``, the share of its literals that are explanation-redundant
    (:func:`xdt.explain.redundancy.path_redundancy`; dead paths are left out): one bar per
    path, red for a redundant path, labelled with the path's index.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from xdt.explain.redundancy import path_redundancy

    tree = _check_tree(tree)
    analysis = path_redundancy(tree)
    fig, ax = _axes(ax, (max(6.0, 0.3 * len(analysis) + 2), 3.5))
    xs = list(range(len(analysis)))
    ax.bar(xs, [r.redundant_share for r in analysis],
           color=[PATH_COLOUR if r.redundant else PALETTE[10] for r in analysis])
    ax.set_xticks(xs, [str(r.path) for r in analysis],
                  fontsize=8 if len(xs) <= 40 else 5)
    ax.set_ylim(0, 1)
    ax.set_xlabel("path")
    ax.set_ylabel("redundant share of literals")
    n_red = sum(r.redundant for r in analysis)
    ax.set_title(f"explanation-redundant paths: {n_red} of {len(analysis)}")
    fig.tight_layout()
    return fig
