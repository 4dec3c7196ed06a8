"""Learners that emit xdt's IR: CART and SER-DT decision trees, nested k-DNFs.

* :class:`CARTClassifier` — the greedy Gini tree (Breiman et al. 1984), the baseline of
  Souza et al. (NeurIPS 2022).
* :class:`SERDTClassifier` — Short Explainable Rules decision trees (Souza, Cicalese, Laber &
  Molinaro, "Decision Trees with Short Explainable Rules", NeurIPS 2022, Algorithm 1 with
  the practical rules of Section 6).
* :class:`NestedKDNFClassifier` — nested k-DNFs (Cooper, Bousdira & Carbonnel,
  "Interpretable DNFs", IJCAI 2025, Section 6.1), learned on the Boolean columns of a
  :class:`Binarizer`, which keeps the condition on the original feature behind every column.

The trees follow scikit-learn's estimator conventions and keep the fitted tree as an
:class:`xdt.ir.DecisionTree` (``est.tree_``), so everything in :mod:`xdt.explain` works on it;
the nested k-DNF learner keeps an :class:`xdt.ir.NestedKDNF` over the original features
(``est.model_``). Missing values are rejected: impute or drop them before fitting.
"""

from xdt.learn._binarize import Binarizer, BooleanColumn
from xdt.learn._cart import CARTClassifier
from xdt.learn._nested import NestedKDNFClassifier
from xdt.learn._serdt import SERDTClassifier

__all__ = ["Binarizer", "BooleanColumn", "CARTClassifier", "NestedKDNFClassifier",
           "SERDTClassifier"]
