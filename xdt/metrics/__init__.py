"""Metrics of interpretability: depth, explanation size, path redundancy, certificate complexity.

* :mod:`xdt.metrics._size` — depth and explanation size, worst case and weighted average
  (Souza, Cicalese, Laber & Molinaro, "Decision Trees with Short Explainable Rules",
  NeurIPS 2022, Section 3): :func:`tree_sizes`, :func:`depth_wc`, :func:`depth_avg`,
  :func:`expl_wc`, :func:`expl_avg` and the per-leaf :func:`leaf_depths`,
  :func:`leaf_explanation_sizes`, :func:`leaf_weights`.
* :mod:`xdt.metrics._redundancy` — explanation-redundancy of a tree's paths (Table 1 of
  Izza, Ignatiev & Marques-Silva, "On Explaining Decision Trees"):
  :func:`redundancy_report`, :func:`covered_share`.
* :mod:`xdt.metrics._rule_redundancy` — explanation-redundancy of the firing rules of a decision
  list (or DNF) row by row, as measured by xdl-tool (Ignatiev & Marques-Silva, "SAT-Based
  Rigorous Explanations for Decision Lists", SAT 2021): redundant literals, rules that are no
  AXp, and the "why not earlier" features: :func:`rule_redundancy_report`.
* :mod:`xdt.metrics._interpretability` — k-AXp-interpretability (Cooper, Bousdira &
  Carbonnel, "Interpretable DNFs", IJCAI 2025): the exact :func:`certificate_complexity` and
  :func:`is_k_axp_interpretable` of any model, and for DNFs the induced-matching criterion
  of their Lemma 2: :func:`literal_term_graph`, :func:`max_induced_matching`,
  :func:`mim_criterion`.
"""

from xdt.metrics._interpretability import (
    certificate_complexity,
    is_induced_matching,
    is_k_axp_interpretable,
    literal_term_graph,
    max_induced_matching,
    mim_criterion,
    term_literals,
)
from xdt.metrics._redundancy import RedundancyReport, covered_share, redundancy_report
from xdt.metrics._rule_redundancy import (
    RowRuleRedundancy,
    RuleRedundancy,
    RuleRedundancyReport,
    rule_redundancy_report,
)
from xdt.metrics._size import (
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
    "RedundancyReport", "RowRuleRedundancy", "RuleRedundancy", "RuleRedundancyReport",
    "TreeSizes", "certificate_complexity", "covered_share", "depth_avg",
    "depth_wc", "expl_avg", "expl_wc", "is_induced_matching", "is_k_axp_interpretable",
    "leaf_depths", "leaf_explanation_sizes", "leaf_weights", "literal_term_graph",
    "max_induced_matching", "mim_criterion", "redundancy_report", "rule_redundancy_report",
    "term_literals", "tree_sizes",
]
