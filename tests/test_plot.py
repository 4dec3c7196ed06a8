"""xdt.plot: DOT text and matplotlib figures of trees and their formal explanations."""

from __future__ import annotations

import os
import re
from collections import Counter

import pandas as pd
import pytest

import xdt
from xdt.errors import ParameterError
from xdt.ir import DecisionTree, Feature, Leaf, ThresholdSplit
from xdt.plot import to_dot

try:
    import matplotlib
except ImportError:  # the test extra installs matplotlib; only a hand-made environment lacks it
    if os.environ.get("CI", "").lower() == "true":
        raise
    pytest.skip('needs pip install "xdt[plot]"', allow_module_level=True)
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from xdt.plot import (  # noqa: E402
    plot_feature_importance,
    plot_redundancy,
    plot_tradeoff,
    plot_tree,
)


@pytest.fixture(scope="module")
def german():
    from xdt.cli._demo_job import load_german
    from xdt.learn import CARTClassifier

    frame = load_german().iloc[:300]
    X, y = frame.drop(columns="class"), frame["class"]
    tree = CARTClassifier(max_depth=3).fit(X, y).tree_
    return tree, X


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _saved(fig, tmp_path, name):
    out = tmp_path / name
    fig.savefig(out)
    assert out.exists() and out.stat().st_size > 0
    return out


def _node_patches(fig):
    return [p for ax in fig.axes for p in ax.patches if p.get_gid() == "xdt-node"]


def _path_nodes(tree, x):
    """Preorder numbers of the nodes on x's path (Path.node numbering, walking the IR)."""
    from xdt.plot._tree_plot import _instance_path, _walk

    return _instance_path(tree, _walk(tree), x)


def test_to_dot_one_line_per_node_and_edge(german):
    tree, X = german
    dot = to_dot(tree)
    node_lines = re.findall(r"^  n(\d+) \[", dot, flags=re.M)
    edge_lines = re.findall(r"^  n(\d+) -> n(\d+) \[", dot, flags=re.M)
    assert sorted(map(int, node_lines)) == list(range(tree.n_nodes))
    assert len(edge_lines) == tree.n_nodes - 1
    assert dot.startswith("digraph") and dot.rstrip().endswith("}")
    # leaves carry their classes, at the preorder numbers of the paths
    for p in tree.paths:
        assert re.search(rf"^  n{p.node} \[label=\"[^\"]*{p.label}\"", dot, flags=re.M)
    # one fill colour per feature
    fills = {}
    for line in dot.splitlines():
        m = re.match(r'  n\d+ \[label="([^"]+)", shape="ellipse", fillcolor="([^"]+)"', line)
        if m:
            fills.setdefault(m.group(1), set()).add(m.group(2))
    assert fills and all(len(c) == 1 for c in fills.values())
    assert len({next(iter(c)) for c in fills.values()}) == len(fills)


def test_to_dot_highlights_path_and_axp(german):
    tree, X = german
    x = X.iloc[0].to_dict()
    ex = xdt.Explainer(tree)
    dot = to_dot(tree, x, explainer=ex)
    path = _path_nodes(tree, x)
    # the path ends at the leaf the tree sends x to
    leaf = tree.paths[int(tree.leaf_paths(tree.encode([x]))[0])]
    assert path[-1] == leaf.node and len(path) == len(leaf) + 1
    bold = {(int(a), int(b)) for a, b in
            re.findall(r"^  n(\d+) -> n(\d+) \[[^\]]*style=\"bold\"", dot, flags=re.M)}
    assert bold == set(zip(path, path[1:], strict=False))
    axp = set(ex.axp(x).features)
    thick = {int(i) for i in re.findall(r'^  n(\d+) \[[^\]]*penwidth="4"', dot, flags=re.M)}
    labels = dict(re.findall(r'^  n(\d+) \[label="([^"]+)"', dot, flags=re.M))
    assert thick == {i for i in path if labels[str(i)] in axp}
    assert thick  # the AXp is a non-empty subset of the path's features
    assert ", ".join(ex.axp(x).features) in dot


def test_plot_tree_draws_every_node(german, tmp_path):
    tree, X = german
    fig = plot_tree(tree)
    _saved(fig, tmp_path, "tree.png")
    assert len(_node_patches(fig)) == tree.n_nodes == fig._xdt_nodes
    legend = fig.axes[0].get_legend()
    tested = {tree.features.names[f] for p in tree.paths for f in p.features}
    assert {t.get_text() for t in legend.get_texts()} == tested


def test_plot_tree_instance_and_max_depth(german, tmp_path):
    tree, X = german
    x = X.iloc[1].to_dict()
    ex = xdt.Explainer(tree)
    fig = plot_tree(tree, x)
    _saved(fig, tmp_path, "tree_x.png")
    assert len(_node_patches(fig)) == tree.n_nodes
    title = fig.axes[0].get_title(loc="left")
    assert "AXp: {" + ", ".join(ex.axp(x).features) + "}" in title
    for c in ex.all_cxps(x):
        assert "{" + ", ".join(c.features) + "}" in title
    thick = [p for p in _node_patches(fig) if p.get_linewidth() == 3.5]
    assert len(thick) == sum(
        1 for i in _path_nodes(tree, x)
        if not isinstance(n := _node_of(tree, i), Leaf) and n.feature in ex.axp(x).features)
    fig1 = plot_tree(tree, max_depth=1)
    _saved(fig1, tmp_path, "tree_d1.png")
    assert len(_node_patches(fig1)) == 1 + (0 if isinstance(tree.root, Leaf)
                                            else len(tree.edges(tree.root)))


def _node_of(tree, i):
    from xdt.plot._tree_plot import _walk

    return _walk(tree)[i].node


def test_plot_feature_importance_counts(german, tmp_path):
    tree, X = german
    rows = X.iloc[:40]
    fig = plot_feature_importance(tree, rows)
    _saved(fig, tmp_path, "importance.png")
    ex = xdt.Explainer(tree)
    direct = Counter()
    for x in rows.to_dict(orient="records"):
        direct.update(ex.axp(x).features)
    assert {f: c for f, c in fig._xdt_counts.items() if c} == dict(direct)
    bars = fig.axes[0].patches
    assert len(bars) == len(direct)
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert {lab: round(b.get_width()) for lab, b in zip(labels, bars, strict=True)} \
        == dict(direct)


def test_plot_feature_importance_dnf(tmp_path):
    from xdt.ir import DNF, Condition

    bits = [Feature(n, "binary") for n in "abc"]
    model = DNF(bits, [0, 1], [[Condition("a", (1,)), Condition("b", (1,))],
                               [Condition("c", (1,))]])
    rows = pd.DataFrame([{"a": a, "b": b, "c": c} for a in (0, 1) for b in (0, 1)
                         for c in (0, 1)])
    fig = plot_feature_importance(model, rows)
    _saved(fig, tmp_path, "importance_dnf.png")
    ex = xdt.Explainer(model)
    direct = Counter()
    for x in rows.to_dict(orient="records"):
        direct.update(ex.axp(x).features)
    assert len(fig.axes[0].patches) == len(direct)
    assert {f: c for f, c in fig._xdt_counts.items() if c} == dict(direct)


def test_plot_tradeoff(tmp_path):
    results = pd.DataFrame({"factor_expl": [0.8, 0.8, 0.9, 1.0],
                            "accuracy": [0.7, 0.72, 0.74, 0.75],
                            "expl_avg": [2.0, 2.2, 2.6, 3.1]})
    fig = plot_tradeoff(results)
    _saved(fig, tmp_path, "tradeoff.png")
    assert len(fig.axes) == 2
    for ax, metric in zip(fig.axes, ("accuracy", "expl_avg"), strict=True):
        (line,) = ax.get_lines()
        assert list(line.get_xdata()) == [0.8, 0.9, 1.0]
        expected = results.groupby("factor_expl")[metric].mean().tolist()
        assert list(line.get_ydata()) == pytest.approx(expected)
    with pytest.raises(ParameterError, match="expl_avg"):
        plot_tradeoff(results.drop(columns="expl_avg"))


def test_plot_redundancy(german, tmp_path):
    from xdt.explain.queries._redundant_paths import path_redundancy

    tree, _ = german
    fig = plot_redundancy(tree)
    _saved(fig, tmp_path, "redundancy.png")
    analysis = path_redundancy(tree)
    bars = fig.axes[0].patches
    assert len(bars) == len(analysis) == sum(p.consistent for p in tree.paths)
    assert [b.get_height() for b in bars] == pytest.approx(
        [r.redundant_share for r in analysis])


def test_redundant_tree_and_errors(tmp_path):
    t = DecisionTree([Feature("x", "ordinal"), Feature("y", "ordinal")], ["a", "b"],
                     ThresholdSplit("x", 1.0, Leaf("a"),
                                    ThresholdSplit("y", 1.0, Leaf("a"), Leaf("b"))))
    fig = plot_redundancy(t)
    assert len(fig.axes[0].patches) == 3
    assert len(_node_patches(plot_tree(t, {"x": 2.0, "y": 0.0}))) == 5
    dot = to_dot(t, {"x": 2.0, "y": 0.0})
    assert 'n0 -> n2 [label="> 1", style="bold"' in dot
    assert 'n2 -> n3 [label="<= 1", style="bold"' in dot
    with pytest.raises(ParameterError):
        plot_tree("not a tree")
    with pytest.raises(ParameterError):
        plot_tree(t, max_depth=-1)


# ---------------------------------------------------------------------- without matplotlib
@pytest.fixture()
def no_matplotlib(monkeypatch):
    """matplotlib made unimportable: every ``matplotlib*`` entry of ``sys.modules`` is None,
    so ``import matplotlib...`` raises ModuleNotFoundError as in an environment without it."""
    import sys

    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(ImportError):
        import matplotlib.pyplot  # noqa: F401
    with pytest.raises(ImportError):
        import matplotlib.collections  # noqa: F401


def test_every_plot_function_says_how_to_install_matplotlib(german, no_matplotlib):
    import xdt.plot
    from xdt.plot import PlotDependencyError

    tree, X = german
    calls = {
        "plot_tree": lambda: plot_tree(tree, X.iloc[0].to_dict()),
        "plot_feature_importance": lambda: plot_feature_importance(tree, X.iloc[:5]),
        "plot_tradeoff": lambda: plot_tradeoff(pd.DataFrame(
            {"factor_expl": [1.0], "accuracy": [0.7], "expl_avg": [2.0]})),
        "plot_redundancy": lambda: plot_redundancy(tree),
    }
    # every public drawing function of xdt.plot is here (a new one must be added)
    assert set(calls) == {n for n in xdt.plot.__all__ if n.startswith("plot_")}
    for name, call in calls.items():
        with pytest.raises(PlotDependencyError,
                           match=re.escape('pip install "xdt[plot]"')) as info:
            call()
        assert isinstance(info.value, ImportError), name     # except ImportError still works
        assert "to_dot works without it" in str(info.value), name


def test_to_dot_needs_no_matplotlib(german, no_matplotlib):
    tree, X = german
    dot = to_dot(tree, X.iloc[0].to_dict())
    assert dot.startswith("digraph")
    assert len(re.findall(r"^  n\d+ -> n\d+ \[", dot, flags=re.M)) == tree.n_nodes - 1


def test_layout_places_leaves_in_order_and_parents_between_their_first_and_last_child():
    from xdt.plot._tree_plot import _layout, _walk

    f = Feature("x", "ordinal")
    # (a | (b | c)): leaves at x = 0, 1, 2; the inner node over b, c at 1.5, the root at 0.75
    tree = DecisionTree([f], ["a", "b", "c"], ThresholdSplit(
        "x", 1.5, Leaf("a"), ThresholdSplit("x", 2.5, Leaf("b"), Leaf("c"))))
    pos = _layout(_walk(tree), None)
    assert sorted(pos.values()) == [(0.0, -1.0), (0.75, 0.0), (1.0, -2.0), (1.5, -1.0),
                                    (2.0, -2.0)]
    assert sorted(_layout(_walk(tree), 1).values()) == [(0.0, -1.0), (0.5, 0.0), (1.0, -1.0)]


def test_a_tree_deeper_than_the_recursion_limit_is_laid_out():
    import sys

    from xdt.plot._tree_plot import _layout, _walk

    # a chain: node i has a left leaf and its right edge going on down
    depth = 3 * sys.getrecursionlimit()
    node = Leaf("b")
    for i in reversed(range(depth)):
        node = ThresholdSplit("x", i + 0.5, Leaf("a"), node)
    pos = _layout(_walk(DecisionTree([Feature("x", "ordinal")], ["a", "b"], node)), None)
    assert len(pos) == 2 * depth + 1
    # the deepest node sits between leaves depth - 1 and depth, each parent halfway above
    assert max(y for _, y in pos.values()) == 0.0 and min(y for _, y in pos.values()) == -depth
    # leaf i sits at x = i (the last at x = depth); node i halfway between its leaf and
    # node i + 1, which gives the root this x
    x = depth - 0.5
    for i in reversed(range(depth - 1)):
        x = (i + x) / 2
    assert pos[0] == (x, 0.0)
