"""Learners that emit xdt's IR: CART and SER-DT decision trees.

* :class:`CARTClassifier` — the greedy Gini tree (Breiman et al. 1984), the baseline of
  Souza et al. (NeurIPS 2022).
* :class:`SERDTClassifier` — Short Explainable Rules decision trees (Souza, Cicalese, Laber &
  Molinaro, "Decision Trees with Short Explainable Rules", NeurIPS 2022, Algorithm 1 with
  the practical rules of Section 6).

Both follow scikit-learn's estimator conventions and keep the fitted tree as an
:class:`xdt.ir.DecisionTree` (``est.tree_``), so everything in :mod:`xdt.explain` works on it.
Missing values are rejected: impute or drop them before fitting.
"""

from xdt.learn.cart import CARTClassifier
from xdt.learn.serdt import SERDTClassifier

__all__ = ["CARTClassifier", "SERDTClassifier"]
