"""Charts of a model's explanations (optional: matplotlib, ``xdt[plot]``).

* :func:`plot_feature_importance` — formal feature importance: how often each feature is in
  the AXp of the rows of ``X``;
* :func:`plot_tradeoff` — accuracy and ``expl_avg`` against ``factor_expl`` (Souza et al.,
  Figure 2);
* :func:`plot_redundancy` — per path, the share of its literals that are explanation-redundant
  (:func:`xdt.explain.queries.path_redundancy`).

Every function returns the matplotlib ``Figure``; when ``ax`` is given it draws there and
returns ``ax.figure``.
"""

from __future__ import annotations

from collections import Counter

from xdt.errors import ParameterError
from xdt.ir._protocol import PATHS, offers
from xdt.plot._backend import PALETTE, PATH_COLOUR, figure_axes, needs_matplotlib, pyplot
from xdt.plot._tree_plot import _check_tree

__all__ = ["plot_feature_importance", "plot_redundancy", "plot_tradeoff"]


def _axp_counts(model, X) -> Counter:
    """How many rows of ``X`` have each feature in their AXp."""
    model = getattr(model, "tree_", model)
    from xdt.explain._explainer import Explainer

    ex = Explainer(model)
    counts: Counter = Counter({name: 0 for name in model.features.names})
    if offers(model, PATHS) and not model.constraints:  # the batch path-walker
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


@needs_matplotlib
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
    fig, ax = figure_axes(ax, (6.0, max(2.5, 0.35 * len(shown) + 1.2)))
    names = [f for _, f in shown][::-1]
    values = [c for c, _ in shown][::-1]
    ax.barh(names, values, color=PALETTE[10])
    ax.set_xlabel(f"rows whose AXp holds the feature (of {1 if isinstance(X, dict) else len(X)})")
    ax.set_title("formal feature importance (AXp frequency)")
    fig._xdt_counts = dict(counts)
    fig.tight_layout()
    return fig


@needs_matplotlib
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
    plt = pyplot()
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


@needs_matplotlib
def plot_redundancy(tree, *, ax=None):
    """Per path of ``tree``, the share of its literals that are explanation-redundant
    (:func:`xdt.explain.queries.path_redundancy`; dead paths are left out): one bar
    per path, red for a redundant path, labelled with the path's index.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from xdt.explain.queries._redundant_paths import path_redundancy

    tree = _check_tree(tree)
    analysis = path_redundancy(tree)
    fig, ax = figure_axes(ax, (max(6.0, 0.3 * len(analysis) + 2), 3.5))
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
