"""The vectorised numpy splitter: every candidate test of every feature of a node, scored at
once -- the reference the compiled growth kernel (:mod:`xdt.learn._kernels`) is compared with.

For a node holding ``m`` training rows, the splitter keeps, per ordinal feature, the node's
rows sorted by that feature (sorted once at the root, then partitioned stably at each split,
so no node ever sorts again). Cumulative sums along each sorted order give, for every feature
and every position ``i`` at once, the class weights of the left child of the test
"``x <=`` midpoint of the i-th and (i+1)-th sorted values": one (features x positions) array
per class, accumulated class by class into the impurity (:class:`reference.criteria.
Criterion`), so no Python loop runs over thresholds or rows and no classes axis is built.
Categorical (and binary) features are scored from one ``bincount`` of (feature, value, class)
triples: the test ``x = v`` against ``x != v`` for every value ``v``, the same tests one-hot
encoding would give.

A :class:`Block` carries the candidates' split impurity (``Gini(tau, nu)`` in Souza et al.'s
notation: children's impurities weighted by their share of the node's weight) and, when asked,
each child's ``wpm``; a learner's *scorer* turns a block into scores (``inf`` for a test it
does not allow) and :meth:`Splitter.best` returns the lowest. Ties are broken towards the
lower feature position, then the smaller threshold / earlier domain value, so fits are
deterministic.

The learners grow their trees with the compiled kernel, which makes the same choices node by
node; :mod:`reference.learners` grows them with this splitter instead, and the tests compare
the two. :class:`Splitter` is a :class:`xdt.learn._splitter.TrainingRows`, so SER-DT's
three-way split (:func:`xdt.learn._serdt.three_way_split`) reads it as it reads the kernel's
nodes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from xdt.learn._criteria import pair_count
from xdt.learn._data import TrainingData
from xdt.learn._splitter import TIE, Node, Split, TrainingRows, midpoint

from .criteria import CRITERION, MASS

#: Elements of the largest (features x positions) array built at once.
CHUNK = 1 << 22

#: An ordinal column with at most n / RUNS_BELOW distinct values is scored per run of equal
#: values rather than per position.
RUNS_BELOW = 8


@dataclass
class Block:
    """Candidate tests of a group of features at one node: row ``j`` holds the candidates
    of feature ``features[j]`` (rows in increasing feature position).

    Attributes
    ----------
    kind : {"ordinal", "categorical"}
    features : numpy.ndarray of shape (c,), int64
        Feature position of each row.
    position : numpy.ndarray broadcastable to (c, t), int64
        Ordinal: index, in the node's sorted order of the feature, of the last row sent left
        (the threshold lies between it and the next value). Categorical: the domain value
        number ``v`` of the test ``x = v``.
    impurity : numpy.ndarray of shape (c, t), float64
        Split impurity: the children's impurities weighted by their share of the weight.
    valid : numpy.ndarray of shape (c, t), bool
        Real candidates (rows on both sides, ``min_samples_leaf`` met).
    wpm_left, wpm_right : numpy.ndarray of shape (c, t), float64, or None
        The children's ``wpm`` (when the splitter was asked for it).
    """

    kind: str
    features: np.ndarray
    position: np.ndarray
    impurity: np.ndarray
    valid: np.ndarray
    wpm_left: np.ndarray | None = None
    wpm_right: np.ndarray | None = None


Scorer = Callable[[Block, Node], np.ndarray]


def _count(hit: np.ndarray) -> np.ndarray:
    """Cumulative counts of ``True`` along axis 1, as float64 (summed in int32, which numpy
    does about twice as fast; exact below 2^31 rows)."""
    return np.cumsum(hit, axis=1, dtype=np.int32).astype(np.float64)


def _small_int(values: np.ndarray, top: int) -> np.ndarray:
    """``values`` (non-negative, at most ``top``) in the smallest unsigned integer dtype:
    gathers of small arrays stay in the cache."""
    for dtype in (np.uint8, np.uint16, np.uint32):
        if top <= np.iinfo(dtype).max:
            return values.astype(dtype)
    return values.astype(np.int64)


class Splitter(TrainingRows):
    """Scores and applies binary tests on the training data of one fit.

    Parameters
    ----------
    data : TrainingData
        The columns (:func:`xdt.learn._data.read_training_data`).
    y : numpy.ndarray of shape (n,), int64
        Class number of each row, in ``0 .. n_classes-1``.
    weight : numpy.ndarray of shape (n,), float64
        Positive sample weights.
    n_classes : int
    criterion : {"gini", "entropy"}
    min_samples_leaf : int
        Least number of rows on each side of a test.
    with_wpm : bool
        Whether blocks carry the children's ``wpm`` (SER-DT).
    wpm_weight : numpy.ndarray of shape (n,), float64, optional
        The weights ``w`` of ``wpm = P * w`` when they differ from ``weight`` (SER-DT's
        preprocessed weights); impurities always use ``weight``.
    """

    def __init__(self, data: TrainingData, y: np.ndarray, weight: np.ndarray, n_classes: int,
                 criterion: str = "gini", min_samples_leaf: int = 1, with_wpm: bool = False,
                 wpm_weight: np.ndarray | None = None):
        self.data = data
        self.n = len(y)
        self.k = n_classes
        self.criterion = CRITERION[criterion]
        self.mass = MASS[criterion]
        self.min_samples_leaf = min_samples_leaf
        self.with_wpm = with_wpm
        self.y = np.asarray(y, dtype=np.int64)
        self.y_small = _small_int(self.y, n_classes - 1)
        self.weight = np.asarray(weight, dtype=np.float64)
        # equal weights: every sum is a count times one weight, and cumulative counts are
        # exact; impurities do not depend on the scale
        self.unit = float(self.weight[0]) if np.all(self.weight == self.weight[0]) else None
        self.wpm_weight = (None if wpm_weight is None or np.array_equal(wpm_weight, self.weight)
                           else np.asarray(wpm_weight, dtype=np.float64))
        self.values = np.ascontiguousarray(data.ordinal.T)          # (n_ordinal, n)
        # each ordinal column sorted once (stable); per column, dense ranks of its values (in
        # a small dtype) to find ties in a node's sorted order; None for a column without
        # ties, where every position is a candidate threshold
        self._root_order = np.argsort(self.values, axis=1, kind="stable").astype(
            np.intp, copy=False)
        self.ranks: list[np.ndarray | None] = []
        distinct = []
        for column, order in zip(self.values, self._root_order, strict=True):
            ordered = column[order]
            starts = np.ones(self.n, dtype=bool)
            starts[1:] = ordered[1:] != ordered[:-1]
            n_distinct = int(starts.sum())
            distinct.append(n_distinct)
            if n_distinct == self.n:
                self.ranks.append(None)
                continue
            rank = np.empty(self.n, dtype=np.int64)
            rank[order] = np.cumsum(starts) - 1
            self.ranks.append(_small_int(rank, n_distinct - 1))
        # columns with few distinct values are scored per run of equal values, the others
        # per position (then ties only mask positions out)
        few = np.asarray(distinct, dtype=np.int64) <= max(1, self.n // RUNS_BELOW)
        self._many = np.flatnonzero(~few)
        self._few = np.flatnonzero(few)
        self.codes = data.codes                                     # (n, n_categorical)
        sizes = [len(data.features[f].domain) for f in data.categorical_features]
        self.domain_sizes = np.asarray(sizes, dtype=np.int64)
        self.value_offsets = np.concatenate([[0], np.cumsum(self.domain_sizes)]).astype(np.int64)
        self._scratch = np.zeros(self.n, dtype=bool)

    # ------------------------------------------------------------------ nodes
    def root(self) -> Node:
        """The root node: all rows, each ordinal column sorted once (stable)."""
        rows = np.arange(self.n, dtype=np.intp)
        return self._node(rows, self._root_order, 0, frozenset())

    def _node(self, rows: np.ndarray, order: np.ndarray, depth: int,
              path_features: frozenset[int]) -> Node:
        y = self.y[rows]
        class_weight = np.bincount(y, self.weight[rows], minlength=self.k).astype(np.float64)
        wpm_total = (float(class_weight.sum()) if self.wpm_weight is None
                     else float(self.wpm_weight[rows].sum()))
        return Node(rows, order, class_weight,
                    np.bincount(y, minlength=self.k).astype(np.float64), depth, path_features,
                    wpm_total)

    def goes_left(self, node: Node, split: Split) -> np.ndarray:
        """Bool array of shape (m,): which of the node's rows the test sends left."""
        f = split.feature
        if split.threshold is not None:
            j = int(np.flatnonzero(self.data.ordinal_features == f)[0])
            return self.values[j, node.rows] <= split.threshold
        j = int(np.flatnonzero(self.data.categorical_features == f)[0])
        return self.codes[node.rows, j] == split.category

    def partition(self, node: Node, split: Split) -> tuple[Node, Node]:
        """The two children of ``node`` under ``split`` (sorted orders partitioned stably)."""
        left = self.goes_left(node, split)
        scratch = self._scratch
        scratch[node.rows] = left
        mask = scratch[node.order]
        n_left = int(left.sum())
        p = node.order.shape[0]
        left_order = node.order[mask].reshape(p, n_left)
        right_order = node.order[~mask].reshape(p, node.size - n_left)
        scratch[node.rows] = False
        path = node.path_features | {split.feature}
        return (self._node(node.rows[left], left_order, node.depth + 1, path),
                self._node(node.rows[~left], right_order, node.depth + 1, path))

    # ------------------------------------------------------------------ candidates
    def blocks(self, node: Node):
        """The node's candidate tests as :class:`Block` objects: ordinal features in chunks,
        then all categorical features in one block.

        Ordinal columns with many distinct values take every position of their sorted order
        as a candidate (:meth:`_ordinal_block`); columns with few take the boundaries between
        runs of equal values (:meth:`_runs_block`), whose cost does not grow with the number
        of classes times rows.
        """
        m = node.size
        if node.order.shape[0] and m >= 2:
            for group, make in ((self._many, self._ordinal_block),
                                (self._few, self._runs_block)):
                step = max(1, CHUNK // m)
                for start in range(0, len(group), step):
                    yield make(node, group[start:start + step])
        if self.codes.shape[1]:
            yield self._categorical_block(node)

    def _ordinal_block(self, node: Node, cols: np.ndarray) -> Block:
        """Candidates of ordinal columns ``cols``: after each position of each column's
        sorted order (real candidates where the next value differs)."""
        m = node.size
        order = node.order[cols, :-1]             # the rows that can end a left side
        classes = self.y_small[order]             # (c, m-1)
        n_left = np.arange(1, m, dtype=np.float64)
        crit = self.criterion
        if self.unit is not None:                 # counts; impurities are scale-free
            totals, total = node.class_count, float(m)
            w_left = n_left
            weights = None
        else:
            totals, total = node.class_weight, node.weight
            weights = self.weight[order]
            w_left = np.cumsum(weights, axis=1)
        w_right = total - w_left
        # wpm needs squared class *counts*; with equal weights and Gini they are the
        # criterion's own accumulators
        counted = self.with_wpm and (self.unit is None or crit.name != "gini")
        acc_left = acc_right = sq_left = sq_right = 0.0
        others = count_others = 0.0
        present = np.flatnonzero(node.class_count > 0)
        # the heaviest class is derived from the others: one cumulative sum fewer
        derived = int(present[np.argmax(totals[present])])
        for cls in present.tolist():
            if cls == derived:
                continue
            hit = classes == cls
            counts = (_count(hit)
                      if weights is None or counted else None)
            left = counts if weights is None else np.cumsum(np.where(hit, weights, 0.0), axis=1)
            others = others + left
            acc_left = acc_left + crit.term(left)
            # a class's weight right of the last row can round to -1e-16: entropy's
            # x log x is NaN there, which would drop the whole block
            acc_right = acc_right + crit.term(np.maximum(totals[cls] - left, 0.0))
            if counted:
                count_others = count_others + counts
                sq_left = sq_left + counts * counts
                rest = node.class_count[cls] - counts
                sq_right = sq_right + rest * rest
        left = np.maximum(w_left - others, 0.0)
        acc_left = acc_left + crit.term(left)
        acc_right = acc_right + crit.term(np.maximum(totals[derived] - left, 0.0))
        impurity = (crit.mass(w_left, acc_left) + crit.mass(w_right, acc_right)) / total
        impurity = np.broadcast_to(impurity, order.shape)
        msl = self.min_samples_leaf
        valid = np.broadcast_to((n_left >= msl) & (m - n_left >= msl), order.shape)
        tied = [j for j, col in enumerate(cols.tolist()) if self.ranks[col] is not None]
        if tied:
            valid = valid.copy()
            for j in tied:
                rank = self.ranks[int(cols[j])]
                assert rank is not None
                r = rank[node.order[cols[j]]]
                valid[j] &= r[1:] != r[:-1]
        block = Block("ordinal", self.data.ordinal_features[cols],
                      np.arange(m - 1), impurity, valid)
        if self.with_wpm:
            if counted:
                counts = n_left - count_others
                sq_left = sq_left + counts * counts
                rest = node.class_count[derived] - counts
                sq_right = sq_right + rest * rest
            else:
                sq_left, sq_right = acc_left, acc_right
            pairs_left = (n_left * n_left - sq_left) / 2.0
            pairs_right = ((m - n_left) ** 2 - sq_right) / 2.0
            if self.wpm_weight is not None:
                wpm_left = np.cumsum(self.wpm_weight[order], axis=1)
            else:
                wpm_left = w_left * (1.0 if self.unit is None else self.unit)
            block.wpm_left = pairs_left * wpm_left
            block.wpm_right = pairs_right * (node.wpm_total - wpm_left)
        return block

    def _runs_block(self, node: Node, cols: np.ndarray) -> Block:
        """Candidates of ordinal columns ``cols`` (few distinct values): one per boundary
        between runs of equal values in each column's sorted order.

        The class sums of every run of every column come from one ``bincount`` of
        (class, run) pairs, laid out class-major as a (k, runs) array; the candidates of
        column ``j`` fill row ``j`` of the block (padded with invalid entries).
        """
        m = node.size
        c = len(cols)
        order = node.order[cols]                                     # (c, m)
        ranks = np.empty((c, m), dtype=np.int64)
        for j, col in enumerate(cols.tolist()):
            rank = self.ranks[col]
            assert rank is not None
            ranks[j] = rank[order[j]]
        starts = np.ones((c, m), dtype=bool)
        starts[:, 1:] = ranks[:, 1:] != ranks[:, :-1]
        starts = starts.ravel()
        run = np.cumsum(starts, dtype=np.int64) - 1
        n_runs = int(run[-1]) + 1
        first = np.flatnonzero(starts)                               # flat start of each run
        owner = first // m                                           # row of each run
        slot = self.y[order].ravel() * n_runs + run
        size = self.k * n_runs
        counts = np.bincount(slot, minlength=size).reshape(self.k, n_runs).astype(np.float64)
        if self.unit is None:
            sums = np.bincount(slot, self.weight[order].ravel(), minlength=size)
            sums = sums.reshape(self.k, n_runs)
            totals, total = node.class_weight, node.weight
        else:
            sums, totals, total = counts, node.class_count, float(m)
        # a candidate is every run but the last of its row; its left side is the run and
        # the runs before it in the row
        cand = np.zeros(n_runs, dtype=bool)
        cand[:-1] = owner[1:] == owner[:-1]
        runs = np.flatnonzero(cand)
        row_first = run[np.arange(c) * m]                            # first run of each row

        def left_of(per_run: np.ndarray) -> np.ndarray:
            cum = np.cumsum(per_run, axis=1)
            base = np.where(row_first > 0, cum[:, np.maximum(row_first - 1, 0)], 0.0)
            return cum[:, runs] - base[:, owner[runs]]               # (k, q)

        left = left_of(sums)
        right = np.maximum(totals[:, None] - left, 0.0)
        left = np.maximum(left, 0.0)
        w_left = left.sum(axis=0)
        w_right = total - w_left
        crit = self.criterion
        impurity = (crit.mass(w_left, crit.term(left).sum(axis=0))
                    + crit.mass(w_right, crit.term(right).sum(axis=0))) / total
        n_left = first[runs + 1] - owner[runs] * m                   # rows on the left
        msl = self.min_samples_leaf
        ok = (n_left >= msl) & (m - n_left >= msl)
        row = owner[runs]
        col = runs - row_first[row]                                  # candidate number in row
        width = int(col.max()) + 1 if len(runs) else 1

        def scatter(values: np.ndarray, fill: float | int | bool) -> np.ndarray:
            out = np.full((c, width), fill, dtype=np.asarray(values).dtype)
            out[row, col] = values
            return out

        block = Block("ordinal", self.data.ordinal_features[cols], scatter(n_left - 1, 0),
                      scatter(impurity, np.inf), scatter(ok, False))
        if self.with_wpm:
            left_counts = left if self.unit is not None else left_of(counts)
            pairs_left = pair_count(left_counts.T)
            pairs_right = pair_count((node.class_count[:, None] - left_counts).T)
            if self.wpm_weight is not None:
                per_run = np.bincount(run, self.wpm_weight[order].ravel(), minlength=n_runs)
                wpm_left = left_of(per_run[None, :])[0]
            else:
                wpm_left = w_left * (1.0 if self.unit is None else self.unit)
            block.wpm_left = scatter(pairs_left * wpm_left, np.inf)
            block.wpm_right = scatter(pairs_right * (node.wpm_total - wpm_left), np.inf)
        return block

    def _categorical_block(self, node: Node) -> Block:
        """Candidates ``x = v`` of every categorical column, from one ``bincount`` of
        (column, value, class) triples; row j, column v is the test ``x_j = v``."""
        rows = node.rows
        p = self.codes.shape[1]
        width = int(self.domain_sizes.max())
        n_values = int(self.value_offsets[-1])
        slot = (self.codes[rows] + self.value_offsets[:-1][None, :]) * self.k \
            + self.y[rows][:, None]                                   # (m, p)
        size = n_values * self.k
        weights = np.bincount(slot.ravel(), np.repeat(self.weight[rows], p), minlength=size)
        counts = np.bincount(slot.ravel(), minlength=size).astype(np.float64)
        feature = np.repeat(np.arange(p), self.domain_sizes)
        value = np.arange(n_values) - self.value_offsets[:-1][feature]
        left = np.zeros((p, width, self.k))
        left_counts = np.zeros((p, width, self.k))
        left[feature, value] = weights.reshape(-1, self.k)
        left_counts[feature, value] = counts.reshape(-1, self.k)
        right = node.class_weight - left
        w_left = left.sum(axis=-1)
        w_right = node.weight - w_left
        n_left = left_counts.sum(axis=-1)
        msl = max(1, self.min_samples_leaf)
        valid = (n_left >= msl) & (node.size - n_left >= msl)
        valid &= np.arange(width)[None, :] < self.domain_sizes[:, None]
        # a two-value feature has one test, not two mirrored ones: keep "x = second value"
        valid[self.domain_sizes == 2, 0] = False
        with np.errstate(divide="ignore", invalid="ignore"):
            impurity = (self.mass(left, w_left) + self.mass(right, w_right)) / node.weight
        block = Block("categorical", self.data.categorical_features, np.arange(width),
                      impurity, valid)
        if self.with_wpm:
            if self.wpm_weight is not None:
                per_value = np.bincount((slot // self.k).ravel(),
                                        np.repeat(self.wpm_weight[rows], p),
                                        minlength=n_values)
                wpm_left = np.zeros((p, width))
                wpm_left[feature, value] = per_value
            else:
                wpm_left = w_left
            block.wpm_left = pair_count(left_counts) * wpm_left
            block.wpm_right = pair_count(node.class_count - left_counts) * (node.wpm_total
                                                                             - wpm_left)
        return block

    def best(self, node: Node, scorer: Scorer) -> Split | None:
        """The candidate test with the lowest score (``None`` when every score is ``inf``).

        ``scorer(block, node)`` returns scores of the block's shape; ``inf`` rules a test
        out. Among scores within :data:`TIE` of the lowest, the lowest split impurity wins,
        then the lowest feature position, then the smaller threshold (ordinal) or earlier
        domain value (categorical).
        """
        found: list[tuple[float, float, int, int, Block]] = []
        for block in self.blocks(node):
            scores = np.where(block.valid, scorer(block, node), np.inf)
            low = scores.min() if scores.size else np.inf
            if not np.isfinite(low):
                continue
            near = scores <= low + TIE
            # among equal scores the lower split impurity wins (a factor_expl of 0 makes all
            # tests on path features score 0)
            impurity = np.where(near, block.impurity, np.inf)
            least = float(impurity.min())
            near &= impurity <= least + TIE
            r = int(np.argmax(near.any(axis=1)))  # rows are in increasing feature position
            i = int(np.argmax(near[r]))
            position = int(np.broadcast_to(block.position, scores.shape)[r, i])
            found.append((float(low), least, int(block.features[r]), position, block))
        if not found:
            return None
        low = min(f[0] for f in found)
        found = [f for f in found if f[0] <= low + TIE]
        least = min(f[1] for f in found)
        _, _, feature, position, block = min((f for f in found if f[1] <= least + TIE),
                                             key=lambda f: f[2])
        if block.kind == "categorical":
            return Split(feature, category=position)
        return Split(feature, threshold=self.threshold(node, feature, position))

    def threshold(self, node: Node, feature: int, i: int) -> float:
        """The midpoint between the node's ``i``-th and ``(i+1)``-th sorted values of an
        ordinal feature, nudged down to the lower value when rounding would reach the upper
        one (so ``x <= t`` separates them exactly)."""
        j = int(np.flatnonzero(self.data.ordinal_features == feature)[0])
        lo, hi = self.values[j, node.order[j, i:i + 2]]
        return midpoint(lo, hi)

    def impurity(self, node: Node) -> float:
        """The node's own impurity (weighted by its rows' weights)."""
        return float(self.mass(node.class_weight) / node.weight)
