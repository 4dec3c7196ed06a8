"""The leaf and order clauses of a tree ensemble's SAT encoding, built tree by tree.

:class:`~xdt.explain.engines.EnsembleEncoding` encodes every consistent leaf ``y[t,i]`` of
every tree and the order variables of its values (see
:mod:`xdt.explain.engines._ensemble_sat`). For a forest of a thousand deep trees that is
millions of clauses and tens of seconds, so the work is cut into one step per tree
(:meth:`TreeByTree.step`), each of which numbers the tree's variables and keeps its clauses
and tables apart; :meth:`TreeByTree.finish_stage` then joins them, one kind of table at a
time, and :meth:`TreeByTree.publish` hands them to the encoding. Between steps and stages
the active deadline may stop the build; what is done stays, and the next call goes
on from the next tree, so repeated calls under a short ``time_limit`` finish it. A step is
never cut half-way (the deadline is polled between steps only), and the encoding is used
only once :meth:`TreeByTree.publish` has run.

Per tree ``t`` with consistent leaves ``i`` (rows of the tree's block):

* the leaf variable ``y[t,i]``, the clauses ``y -> l`` of its path's literals and
  ``OR_i y[t,i]``;
* per ordinal feature the first and last cell its path admits, per one-hot feature the
  cells it admits (for :meth:`~xdt.explain.engines.EnsembleEncoding.bounded`);
* per score ``s``, the distinct leaf values (levels), each leaf's rank, the order
  variables ``o[t,s,j]`` (``j >= 1``) and their clauses, made with numpy in one go per
  ``(t, s)`` and in the order a loop over the leaves would give.

Clauses are tuples: the garbage collector stops tracking a tuple of integers once it has
seen it, whereas it walks every list at each full collection, and with millions of clauses
a full collection during a query took seconds past its ``time_limit``.
"""

from __future__ import annotations

from itertools import chain
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from xdt.explain.engines._ensemble_sat import EnsembleEncoding


class TreeByTree:
    """The resumable build of an :class:`~xdt.explain.engines.EnsembleEncoding`'s leaf
    and order clauses: :attr:`done` trees are encoded; :meth:`step` encodes the next one,
    :meth:`finish` sets the encoding's attributes once all are.

    Parameters
    ----------
    encoding : EnsembleEncoding
        Its cell variables (:meth:`~xdt.explain.engines.ModelEncoding.inside`), variable
        pool and model are used; its leaf attributes are set by :meth:`finish`.
    """

    def __init__(self, encoding: EnsembleEncoding):
        self.encoding = encoding
        self.n_trees = encoding.n_trees
        self.done = 0
        self.ys: list[np.ndarray] = []            # per tree: its leaves' variables
        self.paths: list[np.ndarray] = []         # and their path indices
        self.values: list[np.ndarray] = []        # shape (n_t, n_scores)
        self.path_clauses: list[list[tuple[int, ...]]] = []
        self.order_clauses: list[list[tuple[int, ...]]] = []
        self.rank: list[np.ndarray] = []          # shape (n_t, n_scores)
        self.order_var: list[np.ndarray] = []     # shape (n_t, n_scores, 2)
        self.levels: list[list[np.ndarray]] = []  # per tree, per score
        self.level_vars: list[list[list[int]]] = []
        self.first: list[np.ndarray] = []         # shape (n_features, n_t)
        self.last: list[np.ndarray] = []
        self.admits: list[dict[int, np.ndarray]] = []  # one-hot features: (n_t, n_cells)
        self._joined: dict = {}  # what the stages of finish have joined so far
        self._stage = 0  # stages run

    def step(self) -> None:
        """Encode tree :attr:`done` and count it done (all or nothing: what it makes is
        kept only at its end; the variables it numbered are numbered again the same by the
        pool if it is run again)."""
        enc = self.encoding
        model = enc.model
        t = self.done
        pool_id = enc.pool.id
        ordinal = enc._ordinal
        inside = enc.inside
        fixing = enc.fixing
        clauses: list[tuple[int, ...]] = []
        own: list[int] = []
        paths: list[int] = []
        bounds: list[tuple[int, int, int, int]] = []  # (feature, row, first, last)
        onehot: list[tuple[int, int, int]] = []        # (feature, row, mask)
        for i, masks in model.tree_terms(t):
            if not all(masks.values()):
                continue  # a dead path: no point reaches it
            y = pool_id(("leaf", t, i))
            row = len(own)
            own.append(y)
            paths.append(i)
            for f, mask in masks.items():
                if ordinal[f]:
                    clauses.extend((-y, lit) for lit in fixing(f, mask))
                    bounds.append((f, row, (mask & -mask).bit_length() - 1,
                                   mask.bit_length() - 1))
                else:
                    clauses.extend((-y, *clause) for clause in inside(f, mask))
                    onehot.append((f, row, mask))
        clauses.append(tuple(own))
        n = len(own)
        ys = np.asarray(own, dtype=np.int64)
        rows = np.asarray(paths, dtype=np.int64)
        values = np.asarray(model.values[t], dtype=enc.dtype)[rows].reshape(n, enc.n_scores)
        cells = enc.cells
        first = np.zeros((len(cells), n), dtype=np.int64)
        last = np.repeat(np.asarray([c.n_cells - 1 for c in cells], dtype=np.int64)[:, None],
                         n, axis=1)
        if bounds:
            f_, r_, a_, b_ = np.asarray(bounds, dtype=np.int64).T
            first[f_, r_] = a_
            last[f_, r_] = b_
        admits = {f: np.ones((n, c.n_cells), dtype=bool)
                  for f, c in enumerate(cells) if not ordinal[f]}
        for f, row, mask in onehot:
            admits[f][row] = [(mask >> j) & 1 for j in range(cells[f].n_cells)]
        orders, rank, order_var, levels, level_vars = self._orders(t, ys, values)
        # the tree is done: keep what it made
        self.ys.append(ys)
        self.paths.append(rows)
        self.values.append(values)
        self.path_clauses.append(clauses)
        self.order_clauses.append(orders)
        self.rank.append(rank)
        self.order_var.append(order_var)
        self.levels.append(levels)
        self.level_vars.append(level_vars)
        self.first.append(first)
        self.last.append(last)
        self.admits.append(admits)
        self.done += 1

    def _orders(self, t: int, ys: np.ndarray, values: np.ndarray):
        """Tree ``t``'s order variables and clauses (see the module docstring)."""
        pool_id = self.encoding.pool.id
        n, n_scores = values.shape
        clauses: list[tuple[int, ...]] = []
        rank = np.zeros((n, n_scores), dtype=np.int64)
        order_var = np.zeros((n, n_scores, 2), dtype=np.int64)  # o[r], o[r+1]
        levels: list[np.ndarray] = []
        level_vars: list[list[int]] = []
        pair = np.empty((n, 2, 2), dtype=np.int64)
        pair[:, :, 0] = -ys[:, None]
        for s in range(n_scores):
            lv, r = np.unique(values[:, s], return_inverse=True)
            r = r.reshape(-1)
            levels.append(lv)
            if len(lv) == 1:
                level_vars.append([0])
                continue
            ovars = [0] + [pool_id(("order", t, s, j)) for j in range(1, len(lv))]
            level_vars.append(ovars)
            clauses.extend((-ovars[j], ovars[j - 1]) for j in range(2, len(lv)))
            table = np.asarray(ovars + [0], dtype=np.int64)
            up, above = table[r], table[r + 1]  # 0 where there is no such level
            rank[:, s] = r
            order_var[:, s, 0] = up
            order_var[:, s, 1] = above
            pair[:, 0, 1] = up
            pair[:, 1, 1] = -above
            keep = np.stack([up != 0, above != 0], axis=1)
            ys_, os_ = pair[keep].T.tolist()  # per leaf: y -> o[r], y -> not o[r+1]
            clauses.extend(zip(ys_, os_, strict=True))
        return clauses, rank, order_var, levels, level_vars

    @property
    def stages_left(self) -> int:
        """Pieces of :meth:`finish` still to run (each joins one kind of table, a fraction
        of a second for a thousand deep trees; the deadline is polled between them)."""
        return len(self._stages) - self._stage

    @property
    def _stages(self):
        return (self._join_leaves, self._join_path_clauses, self._join_order_clauses,
                self._join_leaf_clauses, self._join_levels, self._join_cells)

    def finish_stage(self) -> None:
        """Run the next piece of :meth:`finish` (all trees done); its results are kept
        apart until :meth:`publish`."""
        self._joined.update(self._stages[self._stage]())
        self._stage += 1

    def finish(self) -> None:
        """Every piece left, then :meth:`publish`."""
        while self.stages_left:
            self.finish_stage()
        self.publish()

    def publish(self) -> None:
        """Set the encoding's leaf attributes from the joined tables (every stage run)."""
        enc = self.encoding
        for name, value in self._joined.items():
            setattr(enc, name, value)

    def _join_leaves(self) -> dict:
        enc = self.encoding
        counts = [len(ys) for ys in self.ys]
        leaf_vars = np.concatenate(self.ys) if counts else np.zeros(0, dtype=np.int64)
        leaf_tree = np.repeat(np.arange(self.n_trees, dtype=np.int64), counts)
        return {
            "leaf_vars": leaf_vars, "leaf_tree": leaf_tree,
            "leaf_path": (np.concatenate(self.paths) if counts
                          else np.zeros(0, dtype=np.int64)),
            "leaf_values": (np.concatenate(self.values) if counts
                            else np.zeros((0, enc.n_scores), dtype=enc.dtype)),
            "rank": np.concatenate(self.rank), "order_var": np.concatenate(self.order_var),
            "_positions": leaf_vars - 1,
            "_last_leaf": int(leaf_vars.max()) if len(leaf_vars) else 0,
            "_starts": np.searchsorted(leaf_tree, np.arange(self.n_trees))}

    def _join_path_clauses(self) -> dict:
        return {"path_clauses": list(chain.from_iterable(self.path_clauses))}

    def _join_order_clauses(self) -> dict:
        return {"order_clauses": list(chain.from_iterable(self.order_clauses))}

    def _join_leaf_clauses(self) -> dict:
        joined = self._joined
        return {"leaf_clauses": joined["path_clauses"] + joined["order_clauses"]}

    def _join_levels(self) -> dict:
        """Per tree and score, the levels padded with +inf, and their order variables."""
        enc = self.encoding
        n_scores = enc.n_scores
        width = max(len(lv) for row in self.levels for lv in row)
        table = np.full((n_scores, self.n_trees, width), np.inf)
        ids = np.zeros((n_scores, self.n_trees, width + 1), dtype=np.int64)
        count = np.zeros((n_scores, self.n_trees), dtype=np.int64)
        for t, row in enumerate(self.levels):
            for s, lv in enumerate(row):
                table[s, t, :len(lv)] = lv
                ids[s, t, :len(lv)] = self.level_vars[t][s]
                count[s, t] = len(lv)
        return {
            "levels": self.levels, "level_vars": self.level_vars,
            "high": np.asarray([[lv[-1] for lv in row] for row in self.levels],
                               dtype=enc.dtype).reshape(self.n_trees, n_scores),
            "low": np.asarray([[lv[0] for lv in row] for row in self.levels],
                              dtype=enc.dtype).reshape(self.n_trees, n_scores),
            "level_table": table, "level_ids": ids, "level_count": count}

    def _join_cells(self) -> dict:
        """Per feature, which cells each leaf's path admits: for an ordinal feature the
        interval [first, last]; for a one-hot one a (n_leaves, n_cells) table."""
        enc = self.encoding
        return {
            "first": list(np.concatenate(self.first, axis=1)),
            "last": list(np.concatenate(self.last, axis=1)),
            "admits": [None if enc._ordinal[f] else np.concatenate([a[f] for a in self.admits])
                       for f in range(len(enc.cells))]}
