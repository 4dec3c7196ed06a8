"""Impurity criteria in numpy, vectorised over any number of candidate sets at once: the
reference splitter's (:mod:`reference.splitter`) and the tests' own Gini and entropy.

Every function takes class sums along the *last* axis, so one call scores a node, a vector
of candidate children, or a (features x thresholds) matrix of them.

* :func:`gini` -- Gini impurity ``1 - sum_c p_c^2`` of the weighted class distribution
  (Breiman et al., *Classification and Regression Trees*, 1984), the criterion of CART.
* :func:`entropy` -- Shannon entropy in bits of the weighted class distribution.

The ``*_mass`` functions give the *weighted* impurity ``w(S) * impurity(S)``: the sum of
the two children's masses divided by the parent's weight is the impurity of a split,
``Gini(tau, nu) = |S_L|/|S| Gini(S_L) + |S_R|/|S| Gini(S_R)`` in the notation of Souza et
al. (NeurIPS 2022).

Examples
--------
>>> import numpy as np
>>> gini(np.array([3.0, 1.0]))        # 1 - (3/4)^2 - (1/4)^2
0.375
"""

from __future__ import annotations

import numpy as np
from scipy.special import xlogy


def _total(class_sums: np.ndarray) -> np.ndarray:
    return class_sums.sum(axis=-1)


class Criterion:
    """An impurity as a sum over classes: ``mass(w, sum_c term(w_c))`` is ``w * impurity``
    for class weights ``w_c`` summing to ``w``. The splitter accumulates ``term`` class by
    class over (features x thresholds) arrays, never building a classes axis."""

    name = ""

    def term(self, x: np.ndarray) -> np.ndarray:
        """The per-class term of class weights ``x`` (any shape), summed over classes."""
        raise NotImplementedError

    def mass(self, total: np.ndarray, acc: np.ndarray) -> np.ndarray:
        """``w * impurity`` from the total weights ``total`` and the summed terms ``acc``
        (same shapes)."""
        raise NotImplementedError


class Gini(Criterion):
    """``w * Gini = w - sum_c w_c^2 / w``."""

    name = "gini"

    def term(self, x: np.ndarray) -> np.ndarray:
        return x * x

    def mass(self, total: np.ndarray, acc: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(total > 0, total - acc / np.where(total > 0, total, 1.0), 0.0)


class Entropy(Criterion):
    """``w * H = (w ln w - sum_c w_c ln w_c) / ln 2`` (H in bits)."""

    name = "entropy"

    def term(self, x: np.ndarray) -> np.ndarray:
        return xlogy(x, x)

    def mass(self, total: np.ndarray, acc: np.ndarray) -> np.ndarray:
        return (xlogy(total, total) - acc) / np.log(2.0)


CRITERION = {"gini": Gini(), "entropy": Entropy()}


def gini_mass(class_sums: np.ndarray, total: np.ndarray | None = None) -> np.ndarray:
    """``w * Gini`` for class-weight sums of shape (..., k); 0 where the total is 0."""
    w = _total(class_sums) if total is None else total
    return CRITERION["gini"].mass(w, np.einsum("...k,...k->...", class_sums, class_sums))


def entropy_mass(class_sums: np.ndarray, total: np.ndarray | None = None) -> np.ndarray:
    """``w * H`` (H in bits) for class-weight sums of shape (..., k); 0 where the total is 0."""
    w = _total(class_sums) if total is None else total
    return CRITERION["entropy"].mass(w, xlogy(class_sums, class_sums).sum(axis=-1))


MASS = {"gini": gini_mass, "entropy": entropy_mass}


def gini(class_sums: np.ndarray) -> np.ndarray | float:
    """Gini impurity of class-weight sums of shape (..., k)."""
    w = _total(class_sums)
    out = gini_mass(class_sums, w) / np.where(w > 0, w, 1.0)
    return float(out) if np.ndim(out) == 0 else out


def entropy(class_sums: np.ndarray) -> np.ndarray | float:
    """Entropy in bits of class-weight sums of shape (..., k)."""
    w = _total(class_sums)
    out = entropy_mass(class_sums, w) / np.where(w > 0, w, 1.0)
    return float(out) if np.ndim(out) == 0 else out
