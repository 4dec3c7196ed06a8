"""Tree-level metrics of interpretability.

* :mod:`xdt.metrics.size` — depth and explanation size, worst case and weighted average
  (Souza, Cicalese, Laber & Molinaro, "Decision Trees with Short Explainable Rules",
  NeurIPS 2022, Section 3): :func:`tree_sizes`, :func:`depth_wc`, :func:`depth_avg`,
  :func:`expl_wc`, :func:`expl_avg` and the per-leaf :func:`leaf_depths`,
  :func:`leaf_explanation_sizes`, :func:`leaf_weights`.
* :mod:`xdt.metrics.redundancy` — explanation-redundancy of a tree's paths (Table 1 of
  Izza, Ignatiev & Marques-Silva, "On Explaining Decision Trees"):
  :func:`redundancy_report`, :func:`covered_share`.
"""

from xdt.metrics.redundancy import RedundancyReport, covered_share, redundancy_report
from xdt.metrics.size import (
    TreeSizes,
    depth_avg,
    depth_wc,
    expl_avg,
    expl_wc,
    leaf_depths,
    leaf_explanation_sizes,
    leaf_weights,
    tree_sizes,
)

__all__ = [
    "RedundancyReport", "TreeSizes", "covered_share", "depth_avg", "depth_wc", "expl_avg",
    "expl_wc", "leaf_depths", "leaf_explanation_sizes", "leaf_weights", "redundancy_report",
    "tree_sizes",
]
