"""The split criteria the learners take, and SER-DT's pair counts.

* :data:`CRITERIA` -- the impurities a tree learner accepts: the Gini impurity
  ``1 - sum_c p_c^2`` of the weighted class distribution (Breiman et al., *Classification and
  Regression Trees*, 1984), the criterion of CART, and the Shannon entropy in bits. The
  growth kernel (:mod:`xdt.learn._kernels`) computes them.
* :func:`pair_count` and :func:`wpm` -- the number ``P(S)`` of pairs of objects of different
  classes and the weighted pairwise misclassification ``wpm(S) = P(S) * w(S)`` of Souza,
  Cicalese, Laber & Molinaro, "Decision Trees with Short Explainable Rules", NeurIPS 2022,
  Section 5. ``P`` counts objects (not weights), as in the paper; ``w(S)`` is their total
  weight. Both take class counts along the *last* axis, so one call scores a node or an
  array of candidate children.

Examples
--------
>>> import numpy as np
>>> float(pair_count(np.array([3, 1, 2])))   # 3*1 + 3*2 + 1*2
11.0
>>> float(wpm(np.array([3, 1, 2]), 6.0))
66.0
"""

from __future__ import annotations

import numpy as np

CRITERIA = ("gini", "entropy")


def pair_count(class_counts: np.ndarray) -> np.ndarray:
    """``P(S)``: pairs of objects of different classes, from class counts of shape (..., k).

    ``P = (n^2 - sum_c n_c^2) / 2`` with ``n = sum_c n_c``; exact in float64 up to 2^53.
    """
    counts = np.asarray(class_counts, dtype=np.float64)
    n = counts.sum(axis=-1)
    return (n * n - np.einsum("...k,...k->...", counts, counts)) / 2.0


def wpm(class_counts: np.ndarray, weight: np.ndarray | float) -> np.ndarray:
    """``wpm(S) = P(S) * w(S)`` (Souza et al., NeurIPS 2022, Section 5) from class counts of
    shape (..., k) and total weights of shape (...)."""
    return pair_count(class_counts) * np.asarray(weight, dtype=np.float64)
