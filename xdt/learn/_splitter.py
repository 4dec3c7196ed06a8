"""The vocabulary of tree growth, and the sums over a node's rows that SER-DT's three-way
split reads.

A learner's tree is grown by the compiled kernel of :mod:`xdt.learn._kernels`
(:func:`xdt.learn._growth.grow_compiled`); this module holds what the kernel's Python side and
the learners share: a node's training rows (:class:`Node`), a binary test (:class:`Split`),
a rule's decision at a node (:class:`Plan`), the threshold written between two values
(:func:`midpoint`), and :class:`TrainingRows`, whose per-node sums serve SER-DT's three-way
split (:func:`xdt.learn._serdt.three_way_split`), the one choice the kernel hands back to
Python.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

import numpy as np

from xdt.learn._data import TrainingData

#: Scores closer than this are ties (impurities are at most log2(k), so this is far below
#: any real difference and far above the rounding of the cumulative sums).
TIE = 1e-12


@dataclass
class Node:
    """The training rows of one node during growth.

    Attributes
    ----------
    rows : numpy.ndarray of shape (m,), intp
        Row numbers (into the training data).
    order : numpy.ndarray of shape (n_ordinal, m), intp
        Per ordinal column, ``rows`` sorted by that column's value (stable).
    class_weight, class_count : numpy.ndarray of shape (k,), float64
        Weight and number of the node's rows per class.
    wpm_total : float
        Total of the node's ``wpm`` weights (the sample weights unless the learner gave the
        splitter separate ones).
    depth : int
        Number of tests above the node.
    path_features : frozenset of int
        Positions of the features tested on the path from the root.
    """

    rows: np.ndarray
    order: np.ndarray
    class_weight: np.ndarray
    class_count: np.ndarray
    depth: int
    path_features: frozenset[int]
    wpm_total: float = 0.0

    @property
    def weight(self) -> float:
        """Total sample weight of the node's rows."""
        return float(self.class_weight.sum())

    @property
    def size(self) -> int:
        """Number of the node's rows."""
        return len(self.rows)


@dataclass(frozen=True)
class Split:
    """A binary test at a node.

    ``feature`` is the position of the IR feature. Ordinal: rows with ``x <= threshold`` go
    left. Categorical/binary: rows whose value is the domain value number ``category`` go
    left (the ``x = v`` branch), the others right.
    """

    feature: int
    threshold: float | None = None
    category: int | None = None



@dataclass(frozen=True)
class Plan:
    """A rule's decision at a node: ``split`` there, and ``then_right`` (if not ``None``) on
    its right child before the rule is asked again (SER-DT's three-way split is two binary
    tests on one feature, Souza et al., NeurIPS 2022, Algorithm 1, line 8)."""

    split: Split
    then_right: Split | None = None


def midpoint(lo: float, hi: float) -> float:
    """A threshold ``t`` with ``lo <= t < hi``: their midpoint, written with one decimal
    place more than the two values have (``26.5`` between 26 and 27, ``54`` between 48 and
    60, ``0.15`` rather than the float sum ``0.15000000000000002`` between 0.1 and 0.2), so
    rules print short and exact; or ``lo`` when no float lies between (adjacent floats)."""
    lo, hi = float(lo), float(hi)
    t = lo / 2.0 + hi / 2.0
    if not lo < t < hi:
        return lo
    places = max(_decimal_places(lo), _decimal_places(hi)) + 1
    r = round(t, places)
    return r if lo < r < hi else t


def _decimal_places(v: float) -> int:
    """Digits after the decimal point in the shortest repr of ``v`` (0 for whole numbers)."""
    exponent = Decimal(repr(v)).as_tuple().exponent
    return max(0, -exponent) if isinstance(exponent, int) else 0


class TrainingRows:
    """The training data of one fit, read node by node: per node, the class counts and
    weights of the rows holding each value of a feature (what
    :func:`~xdt.learn._serdt.three_way_split` needs).

    Parameters
    ----------
    data : TrainingData
        The columns (:func:`xdt.learn._data.read_training_data`).
    y : numpy.ndarray of shape (n,), int64
        Class number of each row, in ``0 .. n_classes-1``.
    weight : numpy.ndarray of shape (n,), float64
        Positive sample weights.
    n_classes : int
    min_samples_leaf : int
        Least number of rows on each side of a test.
    wpm_weight : numpy.ndarray of shape (n,), float64, optional
        The weights ``w`` of ``wpm = P * w`` when they differ from ``weight`` (SER-DT's
        preprocessed weights).
    """

    def __init__(self, data: TrainingData, y: np.ndarray, weight: np.ndarray, n_classes: int,
                 min_samples_leaf: int = 1, wpm_weight: np.ndarray | None = None):
        self.data = data
        self.n = len(y)
        self.k = n_classes
        self.min_samples_leaf = min_samples_leaf
        self.y = np.asarray(y, dtype=np.int64)
        self.weight = np.asarray(weight, dtype=np.float64)
        self.wpm_weight = None if wpm_weight is None else np.asarray(wpm_weight,
                                                                      dtype=np.float64)
        self.values = data.ordinal.T                                 # (n_ordinal, n)
        self.codes = data.codes                                     # (n, n_categorical)
        self.domain_sizes = np.asarray(
            [len(data.features[f].domain) for f in data.categorical_features],
            dtype=np.int64)

    def ordinal_runs(self, node: Node, feature: int) -> tuple[np.ndarray, np.ndarray,
                                                               np.ndarray]:
        """The node's distinct values of an ordinal feature, ascending, with the class counts
        (shape (r, k), float64) and class weights (shape (r, k); the ``wpm`` weights) of the
        rows holding each."""
        j = int(np.flatnonzero(self.data.ordinal_features == feature)[0])
        order = node.order[j]
        values = self.values[j, order]
        starts = np.concatenate([[True], values[1:] != values[:-1]])
        run = np.cumsum(starts) - 1
        n_runs = int(run[-1]) + 1
        slot = run * self.k + self.y[order]
        size = n_runs * self.k
        counts = np.bincount(slot, minlength=size).reshape(n_runs, self.k).astype(np.float64)
        weights = np.bincount(slot, self._wpm_weights()[order],
                              minlength=size).reshape(n_runs, self.k)
        return values[starts], counts, weights

    def category_sums(self, node: Node, feature: int) -> tuple[np.ndarray, np.ndarray]:
        """Class counts and class weights (the ``wpm`` weights), shape (domain size, k), per
        value of a categorical feature among the node's rows."""
        j = int(np.flatnonzero(self.data.categorical_features == feature)[0])
        size = int(self.domain_sizes[j])
        slot = self.codes[node.rows, j] * self.k + self.y[node.rows]
        counts = np.bincount(slot, minlength=size * self.k).reshape(size, self.k)
        weights = np.bincount(slot, self._wpm_weights()[node.rows],
                              minlength=size * self.k).reshape(size, self.k)
        return counts.astype(np.float64), weights

    def _wpm_weights(self) -> np.ndarray:
        return self.weight if self.wpm_weight is None else self.wpm_weight
