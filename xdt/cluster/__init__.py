"""Interpretable supervised clustering with decision trees, and its preprocessing of tables.

* :class:`SupervisedClusters` — F-beta ranking of tree nodes, iterative extraction with
  removal and retraining, rules as text (:mod:`xdt.cluster._supervised`);
* :class:`Preprocessor` — binning, grouping, symbolic reordering, invertible for reports
  (:mod:`xdt.cluster._preprocess`);
* :mod:`xdt.cluster._kernels` — the compiled node statistics.
"""

from xdt.cluster._preprocess import Preprocessor
from xdt.cluster._supervised import Cluster, SupervisedClusters, f_beta

__all__ = ["Cluster", "Preprocessor", "SupervisedClusters", "f_beta"]
