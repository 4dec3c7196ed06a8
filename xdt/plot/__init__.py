"""Pictures of models and their explanations.

A tree with an instance's path, AXp and CXps (DOT or matplotlib), the formal feature
importance, the accuracy / explanation-size trade-off, and the redundant paths of a tree.

matplotlib (``pip install "xdt[plot]"``) is needed by the ``plot_*`` functions only; without
it they raise :class:`PlotDependencyError`. :func:`to_dot` needs none.
"""

from xdt.plot._backend import PlotDependencyError
from xdt.plot._charts import plot_feature_importance, plot_redundancy, plot_tradeoff
from xdt.plot._tree_plot import plot_tree, to_dot

__all__ = ["PlotDependencyError", "plot_feature_importance", "plot_redundancy",
           "plot_tradeoff", "plot_tree", "to_dot"]
