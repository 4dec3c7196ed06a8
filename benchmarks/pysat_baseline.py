"""A plain PySAT deletion baseline for AXps of scikit-learn trees and of DNFs (benchmarks only).

The least a SAT-based explainer has to do, written directly against PySAT and independent of
xdt, so that ``benchmarks/engines.py`` can measure how far xdt's SAT engine is from it and
check that both return the same AXps.

Trees (:class:`TreeBaseline`, a fitted ``DecisionTreeClassifier`` over numeric columns):

* **Order encoding.** Feature ``f`` with the sorted distinct thresholds ``t_0 < ... <
  t_{m-1}`` of the tree's tests on it gets one variable per threshold, ``[x_f > t_j]``,
  with the clauses ``[x_f > t_j] -> [x_f > t_{j-1}]``. The instance's cell on ``f`` is the
  number ``c`` of thresholds it exceeds; fixing ``f`` is the (at most two) assumption
  literals ``[x_f > t_{c-1}]`` and ``not [x_f > t_c]``. scikit-learn sends a row left
  when ``float32(x) <= t``, so the cell is computed on ``float32(x)``.
* **"The prediction differs from class c".** The leaves partition the input space, so
  another class is predicted exactly when every path of class ``c`` is falsified (some path
  of another class holds): one clause per path of class ``c``, the disjunction of the
  negations of its bounds on each feature it tests (``lo < x_f <= hi`` in cells).
* **One solver per tree and class**, built once (:meth:`TreeBaseline.__init__`); an instance
  only sets assumptions.
* **Deletion** (:meth:`TreeBaseline.axp`): start from every feature fixed and try to free
  each feature in turn, in xdt's default ``"path"`` order (the features the instance's
  path does not test, in column order, then the path's features in order of first test
  from the root); a feature stays free when the solver says UNSAT (the other features
  still entail the prediction).

DNFs (:class:`DnfBaseline`, terms over binary features, ``1`` when some term holds):

* one variable per feature (true: value 1); a term is a list of ``(feature, value)``;
* class 1 predicted ("the DNF is true"), "differs" is "the DNF is false": one clause per
  term, the negations of its literals;
* class 0 predicted, "differs" is "the DNF is true": an auxiliary variable ``t_p`` per term
  with ``t_p -> l`` for each of its literals, and the clause ``OR_p t_p``;
* one solver per class, the instance as assumptions (one literal per feature), deletion in
  the order given.

References: Ignatiev, Narodytska & Marques-Silva, "Abduction-Based Explanations for Machine
Learning Models", AAAI 2019 (AXps by deletion with a SAT oracle); Izza, Ignatiev &
Marques-Silva, "On Explaining Decision Trees", Section 4.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from pysat.solvers import Solver

SOLVER = "cadical195"
"""The PySAT solver of the baseline (xdt's default too)."""


class TreeBaseline:
    """AXps of a fitted scikit-learn classifier tree over numeric columns, by deletion.

    Parameters
    ----------
    est : sklearn.tree.DecisionTreeClassifier, fitted
        Its columns are taken as ordinal features, in column order.
    solver : str
        PySAT solver name.

    Attributes
    ----------
    thresholds : list of numpy.ndarray
        Per feature, its distinct thresholds in increasing order (float64, as scikit-learn
        stores them).
    n_clauses : int
        Clauses over all solvers (order clauses once per solver).
    """

    def __init__(self, est, solver: str = SOLVER):
        t = est.tree_
        self.n_features = int(est.n_features_in_)
        self._left, self._right = t.children_left, t.children_right
        self._feature, self._threshold = t.feature, t.threshold
        self._leaf_class = np.argmax(t.value[:, 0, :], axis=1)
        internal = self._left >= 0
        self.thresholds = [np.unique(self._threshold[internal & (self._feature == f)])
                           for f in range(self.n_features)]
        self._var: list[list[int]] = []  # _var[f][j] = [x_f > t_j]
        top = 0
        for ts in self.thresholds:
            self._var.append(list(range(top + 1, top + 1 + len(ts))))
            top += len(ts)
        order = [[-v[j], v[j - 1]] for v in self._var for j in range(1, len(v))]
        blocked: dict[int, list[list[int]]] = {c: [] for c in range(len(est.classes_))}
        for leaf, bounds in self._paths():
            blocked[int(self._leaf_class[leaf])].append(self._negation(bounds))
        self._solvers = {c: Solver(name=solver, bootstrap_with=order + clauses)
                         for c, clauses in blocked.items()}
        self.n_clauses = sum(len(order) + len(c) for c in blocked.values())

    def _paths(self):
        """``(leaf, {feature: (lo, hi)})`` for every leaf: the path's cells ``lo..hi`` on
        every feature it tests."""
        stack = [(0, {})]
        while stack:
            node, bounds = stack.pop()
            if self._left[node] < 0:
                yield node, bounds
                continue
            f = int(self._feature[node])
            j = int(np.searchsorted(self.thresholds[f], self._threshold[node]))
            lo, hi = bounds.get(f, (0, len(self.thresholds[f])))
            stack.append((int(self._left[node]), {**bounds, f: (lo, min(hi, j))}))
            stack.append((int(self._right[node]), {**bounds, f: (max(lo, j + 1), hi)}))

    def _negation(self, bounds: dict[int, tuple[int, int]]) -> list[int]:
        """One clause: the path's cells ``lo..hi`` do not hold on some feature."""
        clause = []
        for f, (lo, hi) in bounds.items():
            if lo > 0:
                clause.append(-self._var[f][lo - 1])
            if hi < len(self.thresholds[f]):
                clause.append(self._var[f][hi])
        return clause

    def cells(self, x: Sequence[float]) -> list[int]:
        """The instance's cell per feature: how many thresholds ``float32(x_f)`` exceeds."""
        x32 = np.asarray(x, dtype=np.float32).astype(np.float64)
        return [int(np.searchsorted(ts, v, side="left")) for ts, v in zip(self.thresholds, x32,
                                                                            strict=True)]

    def predict(self, x: Sequence[float]) -> int:
        """Class index of the leaf ``x`` reaches."""
        return int(self._leaf_class[self._leaf(x)[0]])

    def _leaf(self, x: Sequence[float]) -> tuple[int, list[int]]:
        """The leaf ``x`` reaches and the features its path tests, in order of first test."""
        x32 = np.asarray(x, dtype=np.float32)
        node, tested = 0, []
        while self._left[node] >= 0:
            f = int(self._feature[node])
            if f not in tested:
                tested.append(f)
            node = int(self._left[node] if x32[f] <= self._threshold[node]
                       else self._right[node])
        return node, tested

    def path_order(self, x: Sequence[float]) -> list[int]:
        """xdt's default deletion order ``"path"``: the features off ``x``'s path, in column
        order, then the path's features from the root down."""
        _, tested = self._leaf(x)
        return [f for f in range(self.n_features) if f not in tested] + tested

    def _fixing(self, f: int, cell: int) -> list[int]:
        lits = []
        if cell > 0:
            lits.append(self._var[f][cell - 1])
        if cell < len(self.thresholds[f]):
            lits.append(-self._var[f][cell])
        return lits

    def axp(self, x: Sequence[float], order: Sequence[int] | None = None) -> tuple[int, ...]:
        """The AXp of ``x`` by deletion in ``order`` (default: :meth:`path_order`): the
        feature positions kept, in increasing order."""
        leaf, tested = self._leaf(x)
        solver = self._solvers[int(self._leaf_class[leaf])]
        if order is None:
            order = [f for f in range(self.n_features) if f not in tested] + tested
        fixing = [self._fixing(f, c) for f, c in enumerate(self.cells(x))]
        kept = set(range(self.n_features))
        for f in order:
            kept.discard(f)
            if not fixing[f]:
                continue  # the tree never tests f: freeing it changes nothing
            if solver.solve(assumptions=[v for g in kept for v in fixing[g]]):
                kept.add(f)  # freeing f admits another class: f stays
        return tuple(sorted(kept))

    def close(self) -> None:
        """Release the solvers."""
        for s in self._solvers.values():
            s.delete()
        self._solvers = {}


class DnfBaseline:
    """AXps of a DNF over binary features (``1`` when some term holds), by deletion.

    Parameters
    ----------
    n_features : int
    terms : sequence of sequences of (feature, value)
        Each term a conjunction of ``x_feature = value`` (value 0 or 1).
    solver : str
        PySAT solver name.
    """

    def __init__(self, n_features: int, terms: Sequence[Sequence[tuple[int, int]]],
                 solver: str = SOLVER):
        self.n_features = n_features
        self.terms = [list(t) for t in terms]

        def lit(f: int, v: int) -> int:
            return f + 1 if v else -(f + 1)

        false = [[-lit(f, v) for f, v in t] for t in self.terms]  # "the DNF is false"
        true: list[list[int]] = []  # "the DNF is true": t_p -> its literals, OR_p t_p
        aux = [n_features + 1 + p for p in range(len(self.terms))]
        for t_p, term in zip(aux, self.terms, strict=True):
            true.extend([-t_p, lit(f, v)] for f, v in term)
        true.append(aux)
        self._lit = lit
        self._solvers = {1: Solver(name=solver, bootstrap_with=false),
                         0: Solver(name=solver, bootstrap_with=true)}

    def predict(self, x: Sequence[int]) -> int:
        """1 when some term holds at ``x``, else 0."""
        return int(any(all(x[f] == v for f, v in t) for t in self.terms))

    def axp(self, x: Sequence[int], order: Sequence[int]) -> tuple[int, ...]:
        """The AXp of ``x`` by deletion in ``order``: the features kept, increasing."""
        solver = self._solvers[self.predict(x)]
        fixing = [self._lit(f, int(v)) for f, v in enumerate(x)]
        kept = set(range(self.n_features))
        for f in order:
            kept.discard(f)
            if solver.solve(assumptions=[fixing[g] for g in kept]):
                kept.add(f)
        return tuple(sorted(kept))

    def close(self) -> None:
        """Release the solvers."""
        for s in self._solvers.values():
            s.delete()
        self._solvers = {}
