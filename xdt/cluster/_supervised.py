"""Interpretable supervised clustering with decision trees.

The method of "Using Decision Trees for Interpretable Supervised Clustering" (the paper in
``shared/papers/interpretable-supervised-clustering-decision-trees.txt``): to describe the
rows of one *target class* by a few readable rules, train a shallow decision tree on the
data, rank **every node** of it (internal nodes included, not just leaves) by the F-beta
score of "the node's rows are the cluster" against the target class (Section "Searching for
Clusters Using Decision Trees", Listing 2), and keep the best node's path as a rule. More
clusters come either from the same tree (nodes that are neither ancestors nor descendants of
the chosen ones) or, as the paper recommends, by removing the best node's rows and
retraining on the rest ("node removal", Section "Best node selection"). Symbolic columns can
be reordered by their rate of the target class so that one threshold test on the order
selects a whole set of values (Section "Ordinal encoding"), and the stability of the
clusters is estimated by bagging (Section "Evaluating Stability of Clusters").

Examples
--------
>>> import pandas as pd
>>> from xdt.cluster import SupervisedClusters
>>> X = pd.DataFrame({"colour": ["red", "red", "blue", "blue", "green", "green"],
...                   "size": [1, 2, 3, 4, 5, 6]})
>>> sc = SupervisedClusters(target_class=1, n_clusters=1).fit(X, [1, 1, 0, 0, 0, 0])
>>> print(sc.clusters_[0].rule)
colour = red
"""

from __future__ import annotations

import copy
import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, clone

from xdt.errors import DataError, MissingValueError, NotFittedError, ParameterError
from xdt.ir._cells import IntervalCells, cells_of
from xdt.ir._dnf import Condition
from xdt.ir._protocol import PATHS, offers
from xdt.ir._terms import Literal, Term
from xdt.ir._tree import DecisionTree, Leaf, ThresholdSplit
from xdt.ir._values import to_python
from xdt.learn._data import check_int

__all__ = ["Cluster", "SupervisedClusters", "f_beta"]

STRATEGIES = ("retrain", "single-tree")


def f_beta(precision: float, recall: float, beta: float) -> float:
    """The F-beta score ``(1 + b^2) P R / (b^2 P + R)`` (0 when ``P = R = 0``).

    The paper's ranking metric (Section "Searching for Clusters Using Decision Trees"); it
    prints the numerator as ``precision + recall``, a typo: the standard F-measure, used
    here, has their product. Recall weighs ``beta`` times as much as precision: ``beta < 1``
    prefers purer, smaller clusters (the paper's ``F-0.33``), ``beta > 1`` larger ones.
    """
    b2 = beta * beta
    den = b2 * precision + recall
    return 0.0 if den <= 0 else (1 + b2) * precision * recall / den


# ---------------------------------------------------------------------- clusters
@dataclass(eq=False)
class Cluster:
    """One extracted cluster: a node of a decision tree and its path as a rule.

    Attributes
    ----------
    rank : int
        Position in the ranked list, from 1.
    term : xdt.ir.Term
        The node's path literals on the features the tree saw (after the preprocessor, when
        there is one), merged to one literal per feature, in order of first test; the cells
        are those of :attr:`tree`.
    conditions : tuple of xdt.ir.Condition
        The same rule on the *original* columns, one condition per column.
    rule : str
        The rule as text in the original values (``Sex = female AND Pclass <= 2``); a
        categorical condition reads ``col not in {...}`` when that is shorter.
    size : int
        Rows of the fitted data the rule matches.
    n_target : int
        Of them, rows of the target class.
    precision, recall, f_beta, coverage : float
        On the whole fitted data: ``n_target / size``, ``n_target`` over *all* target rows,
        the F-beta of the two, and ``size`` over all rows.
    mask : numpy.ndarray of bool, shape (n_rows,)
        The rows of the fitted data the rule matches.
    node_size, node_precision, node_recall, node_f_beta
        The same on the data the node's tree was trained on, where the node was ranked
        (the paper's ranking). For ``strategy="retrain"`` that is the rows left after removing
        the earlier clusters' nodes (recall against the target rows left); for the first
        cluster and for ``"single-tree"``, the whole data, so they equal the full metrics.
    round : int
        Which tree the node comes from (0-based; always 0 for ``"single-tree"``).
    tree : xdt.ir.DecisionTree
        That tree.
    stability : float or None
        The bagging stability score, once :meth:`SupervisedClusters.stability` has run.
    """

    rank: int
    term: Term
    conditions: tuple[Condition, ...]
    rule: str
    size: int
    n_target: int
    precision: float
    recall: float
    f_beta: float
    coverage: float
    mask: np.ndarray = field(repr=False)
    node_size: int
    node_precision: float
    node_recall: float
    node_f_beta: float
    round: int
    tree: DecisionTree = field(repr=False)
    stability: float | None = None
    _view: _View | None = field(default=None, repr=False)

    def matches(self, X) -> np.ndarray:
        """Which rows of ``X`` (a DataFrame with the original columns, or an array in their
        order) satisfy the rule; bool array of shape (n,). Unseen categories and missing
        values satisfy no condition on their column."""
        assert self._view is not None
        frame = self._view.frame(X)
        return self._view.matches(self, frame)

    def to_dict(self) -> dict:
        """The cluster's rule and numbers as plain JSON-ready values."""
        out = {"rank": self.rank, "rule": self.rule,
               "conditions": [c.to_dict() for c in self.conditions],
               "size": self.size, "n_target": self.n_target,
               "precision": self.precision, "recall": self.recall, "f_beta": self.f_beta,
               "coverage": self.coverage, "round": self.round,
               "node_size": self.node_size, "node_precision": self.node_precision,
               "node_recall": self.node_recall, "node_f_beta": self.node_f_beta}
        if self.stability is not None:
            out["stability"] = self.stability
        return _plain(out)

    def __str__(self) -> str:
        return (f"#{self.rank} {self.rule}: precision {self.precision:.3f}, recall "
                f"{self.recall:.3f}, F-beta {self.f_beta:.3f}, size {self.size}")


def _plain(obj):
    if isinstance(obj, dict):
        return {k: _plain(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_plain(v) for v in obj]
    if isinstance(obj, np.generic):
        return obj.item()
    return obj


# ---------------------------------------------------------------------- views of the data
def _format_values(values: Sequence) -> str:
    return "{" + ", ".join(str(v) for v in values) + "}"


def describe_values(name: str, allowed: Sequence, excluded: Sequence) -> str:
    """``name = v``, ``name != v``, ``name in {...}`` or ``name not in {...}``, the shortest
    that says which values are allowed (``excluded``: the other known values)."""
    if len(allowed) == 1:
        return f"{name} = {allowed[0]}"
    if len(excluded) == 1:
        return f"{name} != {excluded[0]}"
    pos = f"{name} in {_format_values(allowed)}"
    neg = f"{name} not in {_format_values(excluded)}"
    return neg if len(neg) < len(pos) else pos


def join_conditions(texts: Sequence[str]) -> str:
    """A conjunction of condition texts, ``A AND B``; a text holding ``or`` is put in
    parentheses; no condition reads ``(all rows)``."""
    if not texts:
        return "(all rows)"
    return " AND ".join(f"({t})" if " or " in t and not t.startswith("(") else t
                        for t in texts)


def _interval(cells: IntervalCells, mask: int) -> tuple[float | None, float | None]:
    cs = list(cells_of(mask))
    lo, _ = cells.bounds(cs[0])
    _, hi = cells.bounds(cs[-1])
    return (None if math.isinf(lo) else lo), (None if math.isinf(hi) else hi)


def _holds(cond: Condition, column: pd.Series) -> np.ndarray:
    """Rows of ``column`` satisfying ``cond`` (missing values satisfy nothing)."""
    if cond.values is not None:
        values = list(cond.values)
        out = column.isin(values).to_numpy(dtype=bool)
        return out & ~column.isna().to_numpy()
    x = pd.to_numeric(column, errors="coerce").to_numpy(dtype=np.float64)
    ok = ~np.isnan(x)
    if cond.above is not None:
        ok &= x > cond.above
    if cond.upto is not None:
        ok &= x <= cond.upto
    return ok


class _View:
    """How the learner sees the data, and how its literals read in the original columns.

    ``fit`` on the rows a tree is trained on, ``transform`` them for the learner, then
    ``literal`` turns one merged literal of the tree back into a condition and its text.
    """

    def __init__(self, columns: list[str]):
        self.columns = columns

    def frame(self, X) -> pd.DataFrame:
        """``X`` as a DataFrame with the fitted column names."""
        if isinstance(X, pd.DataFrame):
            missing = [c for c in self.columns if c not in X.columns]
            if missing:
                raise DataError(f"X lacks the column(s) {missing} the clusters were fitted on")
            return X
        arr = np.asarray(X, dtype=object)
        if arr.ndim != 2 or arr.shape[1] != len(self.columns):
            raise DataError(f"X must have {len(self.columns)} columns ({', '.join(self.columns)})"
                            f", got shape {arr.shape}")
        return pd.DataFrame(arr, columns=self.columns).infer_objects()

    def fit(self, X: pd.DataFrame, y: np.ndarray) -> _View:
        """Fit on the whole table, once: domains, bins, groups, dropped columns."""
        return self

    def refit_round(self, X: pd.DataFrame, y: np.ndarray) -> None:
        """Adapt to the rows of one retraining round (symbolic reordering), keeping the
        table's domains."""

    def transform(self, X: pd.DataFrame) -> pd.DataFrame:
        return X

    def prepare(self, X: pd.DataFrame) -> object:
        """What :meth:`training_frame` needs of the fitted table ``X``, read once per fit
        (called right after :meth:`fit`, with the same ``X``) and handed back in every round;
        here ``X`` itself."""
        return X

    def training_frame(self, table: object, rows: np.ndarray, y: np.ndarray) -> pd.DataFrame:
        """The rows of one round as the learner gets them: the table's rows ``rows`` (bool,
        shape (n,)), after adapting the view to them and their labels ``y`` (int64 0/1,
        shape (rows.sum(),)); ``table`` is what :meth:`prepare` returned.

        Each view gives exactly ``refit_round(sub, y)`` then ``transform(sub)`` with ``sub``
        the rows taken from the table (index 0..m-1), in its own faster way (reading the
        table once, then taking rows of it); the tests compare it with that plain way.
        """
        raise NotImplementedError

    def literal(self, tree: DecisionTree, fi: int, mask: int) -> tuple[Condition, str]:
        raise NotImplementedError

    def matches(self, cluster: Cluster, X: pd.DataFrame) -> np.ndarray:
        out = np.ones(len(X), dtype=bool)
        for cond in cluster.conditions:
            out &= _holds(cond, X[cond.feature])
        return out


class _RawView(_View):
    """The columns as they are: the learner's own categorical tests (``x = v``) and
    thresholds. Text columns are given the table's categories, so that ``x != v`` on the
    rows of a retraining round means the same rows on the whole table."""

    def fit(self, X: pd.DataFrame, y: np.ndarray) -> _View:
        """The table's values of each text column (in order of first appearance), each
        column hashed once (``pandas.factorize``; its codes are kept for :meth:`prepare`)."""
        self._check_missing(X)
        self.categories: dict[str, list] = {}
        self._fitted_codes = (X, {})
        for name in X.columns:
            col = X[name]
            if not (pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col)):
                codes, uniques = pd.factorize(col)
                self.categories[name] = list(uniques)
                self._fitted_codes[1][name] = codes
        return self

    @staticmethod
    def _check_missing(X: pd.DataFrame) -> None:
        bad = [c for c in X.columns if X[c].isna().any()]
        if bad:
            raise MissingValueError(
                f"column(s) {bad} have missing values; impute or drop them, or pass "
                "preprocessor=xdt.cluster.Preprocessor(...) to treat them")

    def transform(self, X: pd.DataFrame) -> pd.DataFrame:
        """``X`` with each text column a pandas categorical of the table's values (an object
        index of them: the learner reads such a column's values without converting
        them)."""
        self._check_missing(X)
        out = X.copy()
        for name, categories in getattr(self, "categories", {}).items():
            out[name] = pd.Categorical(X[name], categories=pd.Index(categories, dtype=object))
        return out

    def prepare(self, X: pd.DataFrame) -> pd.DataFrame:
        """The whole table transformed once, as :meth:`transform` does (each value hashed
        once: ``pandas.factorize``, by :meth:`fit` when ``X`` is the table it was given, then
        each distinct value's category); a round takes its rows (transforming is row by
        row, so taking rows of the transformed table gives the transform of the rows)."""
        fitted, self._fitted_codes = getattr(self, "_fitted_codes", None), None
        known = fitted[1] if fitted is not None and fitted[0] is X else {}
        out = X.copy()
        for name, categories in getattr(self, "categories", {}).items():
            if name in known:   # fit's codes: positions in categories already
                where = known[name]
            else:
                codes, uniques = pd.factorize(X[name])
                at = {v: i for i, v in enumerate(categories)}
                where = np.asarray([at[v] for v in uniques], dtype=np.int64)[codes]
            out[name] = pd.Categorical.from_codes(where,
                                                  categories=pd.Index(categories, dtype=object))
        return out

    def training_frame(self, table: object, rows: np.ndarray, y: np.ndarray) -> pd.DataFrame:
        assert isinstance(table, pd.DataFrame)
        return table.take(np.flatnonzero(rows)).reset_index(drop=True)

    def literal(self, tree: DecisionTree, fi: int, mask: int) -> tuple[Condition, str]:
        cells = tree.cells[fi]
        name = tree.features[fi].name
        if isinstance(cells, IntervalCells):
            lo, hi = _interval(cells, mask)
            return Condition(name, above=lo, upto=hi), cells.describe(mask)
        allowed = [cells.domain[j] for j in cells_of(mask)]
        excluded = [v for j, v in enumerate(cells.domain) if not (mask >> j) & 1]
        return Condition(name, tuple(allowed)), describe_values(name, allowed, excluded)


class _ReorderView(_RawView):
    """xdt's own symbolic reordering (the fallback when no preprocessor is given): the values
    of each categorical column are numbered by their rate of the target class in the whole
    table (ascending; ties by frequency, then by name), so that one threshold
    ``x <= t`` on the numbers selects the set of values of lowest (or highest) rate (the
    paper's Section "Ordinal encoding")."""

    def fit(self, X: pd.DataFrame, y: np.ndarray) -> _View:
        from xdt.learn._data import read_training_data

        self._check_missing(X)
        data = read_training_data(X)
        self.values = {f.name: list(pd.unique(X[f.name])) for f in data.features
                       if f.kind == "categorical"}
        self.refit_round(X, y)
        return self

    def refit_round(self, X: pd.DataFrame, y: np.ndarray) -> None:
        """Order each categorical column's values (all the table's) by their rate of the
        target class in these rows; values absent from them come first."""
        self.order: dict[str, list] = {}
        for name, values in self.values.items():
            stats = pd.DataFrame({"v": X[name].to_numpy(dtype=object), "t": y}).groupby(
                "v", sort=False)["t"].agg(["mean", "size"])
            rate = {v: (stats.at[v, "mean"], -stats.at[v, "size"]) if v in stats.index
                    else (-1.0, 0) for v in values}
            self.order[name] = sorted(values, key=lambda v: (*rate[v], str(v)))

    def transform(self, X: pd.DataFrame) -> pd.DataFrame:
        self._check_missing(X)
        out = X.copy()
        for name, order in self.order.items():
            code = {v: i for i, v in enumerate(order)}
            out[name] = X[name].map(code).astype(np.float64)
        return out

    def prepare(self, X: pd.DataFrame) -> _Positions:
        """The other columns, and per reordered column the position of each row's value in
        :attr:`values` (the table's values), read once."""
        names = list(self.values)
        positions = np.empty((len(X), len(names)), dtype=np.int64)
        for c, name in enumerate(names):
            codes, uniques = pd.factorize(X[name])
            at = {v: i for i, v in enumerate(self.values[name])}
            positions[:, c] = np.asarray([at[v] for v in uniques], dtype=np.int64)[codes]
        return _Positions(X.drop(columns=names), names, positions, list(X.columns))

    def training_frame(self, table: object, rows: np.ndarray, y: np.ndarray) -> pd.DataFrame:
        assert isinstance(table, _Positions)
        orders, frame = table.round(rows, y, self.values)
        self.order = {name: [self.values[name][i] for i in ordered]
                      for name, ordered in orders.items()}
        return frame

    def literal(self, tree: DecisionTree, fi: int, mask: int) -> tuple[Condition, str]:
        name = tree.features[fi].name
        if name not in self.order:
            return super().literal(tree, fi, mask)
        cells = tree.cells[fi]
        order = self.order[name]
        inside = [(mask >> cells.cell_of(float(i))) & 1 for i in range(len(order))]
        allowed = [v for v, ok in zip(order, inside, strict=True) if ok]
        excluded = [v for v, ok in zip(order, inside, strict=True) if not ok]
        return Condition(name, tuple(allowed)), describe_values(name, allowed, excluded)


class _PreprocessorView(_View):
    """Through a :class:`xdt.cluster.Preprocessor` (or a transformer with ``fit``,
    ``transform``, ``transformed_values(column)``, ``condition(column, codes)``,
    ``describe(column, codes)`` and ``evaluate(column, codes, X)``): the learner sees its
    codes, each literal's set of codes reads back in the original values, and rows are
    matched on their original values by ``evaluate`` (so the preprocessor's treatment of
    missing values applies, and values it never saw match no code)."""

    def __init__(self, columns: list[str], pre, reorder: bool = False):
        super().__init__(columns)
        self.pre = pre
        self.reorder = reorder
        self.order: dict[str, list] = {}

    def fit(self, X: pd.DataFrame, y: np.ndarray) -> _View:
        """Fit the preprocessor; with ``fit_transform`` (xdt's reads each column once for
        both), keep its transform of ``X`` for :meth:`prepare`."""
        fit_transform = getattr(self.pre, "fit_transform", None)
        if fit_transform is None:
            self.pre.fit(X, y)
            self._fitted = None
        else:
            self._fitted = (X, fit_transform(X, y))
        self._nominal = [c for c, t in getattr(self.pre, "columns_", {}).items()
                         if getattr(t, "kind", None) == "nominal"] if self.reorder else []
        return self

    def refit_round(self, X: pd.DataFrame, y: np.ndarray) -> None:
        """Symbolic reordering on this round's rows: the codes of each nominal column (all
        the table's) ordered by their rate of the target class (absent codes first)."""
        if not self.reorder:
            return
        Xt = self.pre.transform(X)
        self.order = {}
        for name in self._nominal:
            codes = list(self.pre.transformed_values(name))
            stats = pd.DataFrame({"v": Xt[name].astype(object).to_numpy(), "t": y}).groupby(
                "v", sort=False)["t"].agg(["mean", "size"])
            rate = {c: (stats.at[c, "mean"], -stats.at[c, "size"]) if c in stats.index
                    else (-1.0, 0) for c in codes}
            self.order[name] = sorted(codes, key=lambda c: (*rate[c], str(c)))

    def transform(self, X: pd.DataFrame) -> pd.DataFrame:
        out = self.pre.transform(X)
        if not isinstance(out, pd.DataFrame):
            raise DataError(f"the preprocessor {type(self.pre).__name__} must return a "
                            "DataFrame from transform")
        for name, order in self.order.items():
            rank = {c: float(i) for i, c in enumerate(order)}
            out[name] = out[name].astype(object).map(rank).astype(np.float64)
        return out

    def prepare(self, X: pd.DataFrame) -> _Positions:
        """The preprocessor's transform of the whole table, once (it is row by row, so a
        round takes its rows); with reordering, per nominal column the position of each
        row's code in ``transformed_values`` (-1 for a value that is not one of them)."""
        fitted, self._fitted = getattr(self, "_fitted", None), None
        out = fitted[1] if fitted is not None and fitted[0] is X else self.pre.transform(X)
        if not isinstance(out, pd.DataFrame):
            raise DataError(f"the preprocessor {type(self.pre).__name__} must return a "
                            "DataFrame from transform")
        positions = np.empty((len(out), len(self._nominal)), dtype=np.int64)
        for c, name in enumerate(self._nominal):
            codes = list(self.pre.transformed_values(name))
            col = out[name]
            if isinstance(col.dtype, pd.CategoricalDtype) \
                    and list(col.cat.categories) == codes:
                positions[:, c] = col.cat.codes.to_numpy()
                continue
            found, uniques = pd.factorize(col.astype(object))
            at = {v: i for i, v in enumerate(codes)}
            table = np.asarray([at.get(u, -1) for u in uniques] + [-1], dtype=np.int64)
            positions[:, c] = table[found]
        return _Positions(out.drop(columns=self._nominal), list(self._nominal), positions,
                          list(out.columns))

    def training_frame(self, table: object, rows: np.ndarray, y: np.ndarray) -> pd.DataFrame:
        assert isinstance(table, _Positions)
        if not self.reorder:
            return table.rest.take(np.flatnonzero(rows)).reset_index(drop=True)
        codes = {name: list(self.pre.transformed_values(name)) for name in self._nominal}
        orders, frame = table.round(rows, y, codes)
        self.order = {name: [codes[name][i] for i in ordered]
                      for name, ordered in orders.items()}
        return frame

    def codes(self, tree: DecisionTree, fi: int, mask: int) -> tuple[str, list]:
        """The column and the transformed values a literal ``(fi, mask)`` of ``tree`` allows."""
        name = tree.features[fi].name
        cells = tree.cells[fi]
        if name in self.order and isinstance(cells, IntervalCells):
            order = self.order[name]
            codes = [c for i, c in enumerate(order) if (mask >> cells.cell_of(float(i))) & 1]
            return name, [c.item() if isinstance(c, np.generic) else c for c in codes]
        if isinstance(cells, IntervalCells):
            codes = [c for c in self.pre.transformed_values(name)
                     if (mask >> cells.cell_of(float(c))) & 1]
        else:
            codes = [cells.domain[j] for j in cells_of(mask)]
        return name, [c.item() if isinstance(c, np.generic) else c for c in codes]

    def literal(self, tree: DecisionTree, fi: int, mask: int) -> tuple[Condition | None, str]:
        name, codes = self.codes(tree, fi, mask)
        try:
            cond = self.pre.condition(name, codes)
        except ParameterError:
            # only the missing bin, or bins that are not one interval: no single Condition;
            # the rule's text and its matching (``evaluate``) still say exactly which rows
            cond = None
        return cond, self.pre.describe(name, codes)

    def matches(self, cluster: Cluster, X: pd.DataFrame) -> np.ndarray:
        out = np.ones(len(X), dtype=bool)
        for lit in cluster.term.literals:
            name, codes = self.codes(cluster.tree, lit.feature, lit.cells)
            out &= np.asarray(self.pre.evaluate(name, codes, X), dtype=bool)
        return out


@dataclass
class _Positions:
    """A table read once for the retraining rounds of symbolic reordering: the columns that
    are not reordered (``rest``), and per reordered column (``names``) the position of each
    row's value in the column's list of values (``positions``, int64 (n, len(names)); -1:
    none of them).

    :meth:`round` gives the views' ``refit_round`` order of one round's rows, from counts
    (one compiled pass over the rows, :func:`xdt.cluster._kernels.count_values`) instead of a
    ``groupby`` per column, and those rows with each reordered column as the rank of its
    value in that order (float64; NaN for -1), the columns in the table's order: the frame
    their ``transform`` gives.
    """

    rest: pd.DataFrame
    names: list[str]
    positions: np.ndarray
    columns: list[str]

    def round(self, rows: np.ndarray, y: np.ndarray, values: Mapping[str, Sequence]
              ) -> tuple[dict[str, list[int]], pd.DataFrame]:
        """For the rows ``rows`` (bool, shape (n,)) and their target ``y`` (0/1, shape (m,)):
        per reordered column (``values``: column -> its list of values, for every name of
        :attr:`names`) the positions of its values in the order of their rate of ``y``
        ascending, then larger count first, then by text (``str``), values absent from the
        rows first; and the rows (index 0..m-1) with those columns as ranks."""
        from xdt.cluster._kernels import count_values, ranked

        idx = np.flatnonzero(rows)
        taken = self.rest.take(idx).reset_index(drop=True)
        width = max((len(values[name]) for name in self.names), default=0)
        size, hits = count_values(self.positions, idx, np.asarray(y, dtype=np.int64), width)
        orders: dict[str, list[int]] = {}
        rank = np.full((len(self.names), max(width, 1)), np.nan)
        for c, name in enumerate(self.names):
            vals = values[name]
            k = len(vals)
            key = [(float(hits[c, i] / size[c, i]), -int(size[c, i])) if size[c, i]
                   else (-1.0, 0) for i in range(k)]
            orders[name] = sorted(range(k), key=lambda i: (*key[i], str(vals[i])))
            rank[c, np.asarray(orders[name], dtype=np.int64)] = np.arange(k, dtype=np.float64)
        out = ranked(self.positions, idx, rank)
        at = {name: c for c, name in enumerate(self.names)}
        data = {c: out[at[c]] if c in at else taken[c] for c in self.columns}
        return orders, pd.DataFrame(data, index=taken.index, copy=False)


# ---------------------------------------------------------------------- tree nodes
@dataclass
class _Node:
    """One node of a tree: its preorder number, its parent's (-1 for the root), its path's
    literals, and the training rows that reach it (``size`` of them, ``n_target`` of the
    target class): those whose deepest node (``deepest``, int64 per row, shared by the
    tree's nodes) is in its subtree, the numbers ``number .. end``."""

    number: int
    parent: int
    literals: tuple[Literal, ...]
    size: int
    n_target: int
    end: int
    deepest: np.ndarray = field(repr=False)

    @property
    def rows(self) -> np.ndarray:
        """Which training rows reach the node: bool, shape (n,)."""
        return (self.deepest >= self.number) & (self.deepest <= self.end)


def tree_nodes(tree: DecisionTree, X: pd.DataFrame | np.ndarray,
               target: np.ndarray | None = None) -> list[_Node]:
    """Every node of ``tree`` in preorder, with its path's literals, the rows of ``X`` that
    reach it, their number and (given ``target``, bool of shape (n,)) how many of them are
    target rows.

    ``X`` is the learner's training frame or the cells of its rows (int64 (n, F), from
    ``tree.encode``). Only the features the tree tests are read: a threshold test
    ``x <= t`` on a numeric column compares the numbers themselves (the cell of ``x`` is at
    most ``t``'s exactly when ``x <= t``: :class:`~xdt.ir.IntervalCells` puts ``t`` at the
    top of its cell), any other test goes through ``tree.cells[f].encode`` (which raises on
    values the tree cannot route: missing, unknown, not finite). Then one compiled pass
    (:func:`xdt.cluster._kernels.route`) sends every row down the tree.
    """
    from xdt.cluster._kernels import NodeTable, route

    n = len(X)
    # preorder, children in edge order
    visited: list[tuple[object, int, tuple[Literal, ...], list]] = []
    children: list[list[int]] = []
    stack = [(tree.root, -1, ())]
    while stack:
        node, parent, lits = stack.pop()
        me = len(visited)
        edges = [] if isinstance(node, Leaf) else tree.edges(node)
        visited.append((node, parent, lits, edges))
        children.append([])
        if parent >= 0:
            children[parent].append(me)
        if edges:
            fi = tree.features.index(node.feature)
            for emask, child in reversed(edges):
                stack.append((child, me, lits + (Literal(fi, emask),)))
    n_nodes = len(visited)
    end = list(range(n_nodes))
    for u in range(n_nodes - 1, -1, -1):
        if children[u]:
            end[u] = end[children[u][-1]]

    values: dict[int, np.ndarray] = {}     # feature -> float64 numbers (threshold tests)
    cells: dict[int, np.ndarray] = {}      # feature -> int64 cells (other tests)

    def numbers(fi: int) -> np.ndarray | None:
        if fi not in values:
            got = None
            if isinstance(X, pd.DataFrame):
                raw = X[tree.features[fi].name].to_numpy()
                if raw.dtype.kind in "iuf":
                    v = raw.astype(np.float64)
                    if bool((np.abs(v) <= tree.cells[fi].limit).all()):   # finite, in range
                        got = v
            values[fi] = got
        return values[fi]

    def cells_of_feature(fi: int) -> np.ndarray:
        if fi not in cells:
            if isinstance(X, np.ndarray):
                cells[fi] = np.asarray(X[:, fi], dtype=np.int64)
            else:
                cells[fi] = _encode(tree.cells[fi], X[tree.features[fi].name])
        return cells[fi]

    kind = np.zeros(n_nodes, dtype=np.int64)
    column = np.zeros(n_nodes, dtype=np.int64)
    threshold = np.zeros(n_nodes, dtype=np.float64)
    left = np.zeros(n_nodes, dtype=np.int64)
    right = np.zeros(n_nodes, dtype=np.int64)
    offset = np.zeros(n_nodes, dtype=np.int64)
    table: list[int] = []
    value_slot: dict[int, int] = {}
    cell_slot: dict[int, int] = {}
    for u, (node, _, _, edges) in enumerate(visited):
        if not edges:
            continue
        fi = tree.features.index(node.feature)
        fcells = tree.cells[fi]
        if isinstance(node, ThresholdSplit) and isinstance(fcells, IntervalCells):
            t = float(node.threshold)
            j = int(np.searchsorted(fcells.thresholds, t))
            if j < len(fcells.thresholds) and fcells.thresholds[j] == t \
                    and numbers(fi) is not None:
                kind[u], threshold[u] = 1, t
                column[u] = value_slot.setdefault(fi, len(value_slot))
                left[u], right[u] = children[u][0], children[u][1]
                continue
        kind[u] = 2
        column[u] = cell_slot.setdefault(fi, len(cell_slot))
        offset[u] = len(table)
        segment = [-1] * fcells.n_cells
        for (emask, _), child in zip(edges, children[u], strict=True):
            for c in cells_of(emask):
                segment[c] = child
        table += segment
    value_rows = np.empty((len(value_slot), n), dtype=np.float64)
    for fi, k in value_slot.items():
        value_rows[k] = values[fi]
    cell_rows = np.empty((len(cell_slot), n), dtype=np.int64)
    for fi, k in cell_slot.items():
        cell_rows[k] = cells_of_feature(fi)
    hits = (np.zeros(n, dtype=np.int64) if target is None
            else np.asarray(target, dtype=np.int64))
    parents = np.asarray([parent for _, parent, _, _ in visited], dtype=np.int64)
    nodes = NodeTable(kind, column, threshold, left, right, offset,
                      np.asarray(table, dtype=np.int64), parents)
    size, n_target, deepest = route(nodes, value_rows, cell_rows, hits)
    return [_Node(u, parent, lits, int(size[u]), int(n_target[u]), end[u], deepest)
            for u, (_, parent, lits, _) in enumerate(visited)]


def _encode(cells, col: pd.Series) -> np.ndarray:
    """``cells.encode(col)``; for a pandas categorical column without missing values, from
    its codes: the cell of each category that occurs (``cells.cell_of``, as ``encode`` does
    for each distinct value)."""
    if isinstance(col.dtype, pd.CategoricalDtype):
        codes = col.cat.codes.to_numpy().astype(np.int64)
        if len(codes) and codes.min() >= 0:
            categories = col.cat.categories
            table = np.full(len(categories), -1, dtype=np.int64)
            for k in np.flatnonzero(np.bincount(codes, minlength=len(categories))):
                table[k] = cells.cell_of(categories[k])
            return table[codes]
    return cells.encode(col)


def _merged_term(literals: tuple[Literal, ...]) -> Term:
    term = Term(literals)
    masks = term.masks()
    return Term(tuple(Literal(f, masks[f]) for f in term.features))


# ---------------------------------------------------------------------- the estimator
class SupervisedClusters(BaseEstimator):
    """Interpretable supervised clusters of one class, from decision-tree nodes.

    The method of "Using Decision Trees for Interpretable Supervised Clustering": every node
    of a shallow decision tree (internal nodes included) is a candidate cluster, ranked by
    the F-beta score of its rows against the target class (Listing 2); its path is the
    cluster's rule. The target class may be a minority in the chosen node (the paper's
    "weak clusters"): nodes are ranked by F-beta, not by their predicted class.

    Parameters
    ----------
    target_class : object
        The class whose rows are clustered (a value of ``y``; ``"1"`` also finds ``1``).
    n_clusters : int, default 3
        Most clusters to extract. Fewer are returned when no node has a target row left.
    beta : float, default 1.0
        The F-beta parameter (> 0): recall weighs ``beta`` times as much as precision. The
        paper uses 1 and 0.33 (purer clusters).
    max_depth : int, default 3
        Depth of the default learner's trees (the paper's trees have 3 levels).
    strategy : {"retrain", "single-tree"}, default "retrain"
        ``"retrain"``: take the best node, remove its rows, retrain on the rest, repeat (the
        paper's recommendation: later clusters are denser). ``"single-tree"``: the best
        nodes of one tree that are neither ancestors nor descendants of a chosen node.
    learner : estimator, optional
        Any classifier whose ``fit`` leaves an :class:`xdt.ir.DecisionTree` in ``tree_``
        (cloned for each tree). Default: ``CARTClassifier(max_depth=max_depth,
        merge_leaves=False)`` (merging same-class leaves would hide nodes).
    min_size : int, default 1
        Least number of rows of a candidate node (of the data its tree is trained on).
    reorder : bool, default False
        Number the values of each categorical column by their rate of the target class
        before training, so a threshold test selects a set of values (the paper's symbolic
        reordering, Section "Ordinal encoding"). Without ``preprocessor``, xdt's
        ``Preprocessor(n_bins=100, reorder=True)`` (:mod:`xdt.cluster._preprocess`: percentile
        bins of numeric columns, missing values as a category or bin, id columns dropped)
        is used when it is available, else a built-in reordering of the categorical
        columns only.
    preprocessor : transformer, optional
        A :class:`xdt.cluster.Preprocessor` (or a transformer with ``fit``,
        ``transform``, ``condition(column, codes)`` and ``describe(column, codes)``). It is
        cloned and fitted once, on the whole table (bins, groups, orders and dropped columns
        are the table's, in every retraining round), so a rule's text and its conditions
        select the same rows of the table; rules are read back through it in the original
        values. With ``reorder=True`` its ``reorder`` and ``positive``
        parameters are set.
    include_root : bool, default False
        Rank the root too (its rule is empty: the whole data).

    Attributes
    ----------
    clusters_ : list of Cluster
        The clusters, best first.
    n_rows_, n_target_ : int
        Rows of the fitted data, and of them rows of the target class.
    target_ : numpy.ndarray of bool
        Which fitted rows are of the target class.
    trees_ : list of xdt.ir.DecisionTree
        The trained trees (one per round for ``"retrain"``).
    ranking_ : pandas.DataFrame
        Every node of every tree (the root included, as ``(all rows)``), with its rule and
        its ``size``, ``n_target``, ``precision``, ``recall`` and ``f_beta`` on the data its
        tree was trained on (the paper's ranking), and whether it was ``chosen``; ``node`` is
        its preorder number in ``trees_[round]``.
    stability_ : list of float
        Per cluster, the bagging stability, after :meth:`stability`.
    stability_score_ : float
        Their mean, after :meth:`stability`.

    Notes
    -----
    Nodes are ranked on the data their tree was trained on (for ``"retrain"``: the rows not
    removed yet, recall against the target rows among them), as in the paper; the reported
    ``precision``, ``recall``, ``f_beta``, ``size`` and ``coverage`` of each cluster are
    then measured on the *whole* fitted data: all rows matching its rule, recall against
    *all* target rows (the node's own numbers are kept as ``node_*``). Later clusters of
    ``"retrain"`` may overlap earlier ones on the removed rows; :meth:`predict` assigns each
    row to its first matching cluster.
    """

    def __init__(self, target_class: object = 1, n_clusters: int = 3, beta: float = 1.0,
                 max_depth: int = 3, strategy: str = "retrain", learner=None,
                 min_size: int = 1, reorder: bool = False, preprocessor=None,
                 include_root: bool = False):
        self.target_class = target_class
        self.n_clusters = n_clusters
        self.beta = beta
        self.max_depth = max_depth
        self.strategy = strategy
        self.learner = learner
        self.min_size = min_size
        self.reorder = reorder
        self.preprocessor = preprocessor
        self.include_root = include_root

    # ------------------------------------------------------------------ checks
    def _check_params(self) -> None:
        b = self.beta
        if isinstance(b, bool) or not isinstance(b, numbers.Real) or not math.isfinite(b) \
                or b <= 0:
            raise ParameterError(f"beta must be a finite number > 0, got {b!r}")
        check_int("n_clusters", self.n_clusters, 1)
        check_int("min_size", self.min_size, 1)
        if self.strategy not in STRATEGIES:
            raise ParameterError(f"strategy must be one of {', '.join(STRATEGIES)}, got "
                                 f"{self.strategy!r}")
        d = self.max_depth
        if d is not None and (isinstance(d, bool) or not isinstance(d, numbers.Integral)
                              or d < 1):
            raise ParameterError(f"max_depth must be None or an integer >= 1 (a tree of "
                                 f"depth 0 has no node to rank), got {d!r}")

    def _read(self, X, y) -> tuple[pd.DataFrame, np.ndarray, object]:
        if isinstance(X, pd.DataFrame):
            frame = X.reset_index(drop=True)
            frame.columns = [str(c) for c in frame.columns]
        else:
            arr = np.asarray(X)
            if arr.ndim != 2:
                raise DataError(f"X must be 2-d (rows x columns), got shape {arr.shape}")
            frame = pd.DataFrame(arr, columns=[f"x{i}" for i in range(arr.shape[1])])
            if arr.dtype == object:
                frame = frame.infer_objects()
        raw = y.to_numpy() if isinstance(y, pd.Series) else y
        # numbers and booleans stay a numeric array (read as Python values where compared)
        labels = raw if isinstance(raw, np.ndarray) and raw.dtype.kind in "biuf" \
            else np.asarray(raw, dtype=object)
        if labels.ndim != 1 or len(labels) != len(frame):
            raise DataError(f"y must have one label per row of X ({len(frame)}), got shape "
                            f"{labels.shape}")
        if len(frame) == 0:
            raise DataError("the data is empty: X has no rows")
        if frame.shape[1] == 0:
            raise DataError("X has no columns to build rules on")
        seen = (pd.unique(labels).tolist() if labels.dtype != object
                else list(pd.unique(pd.Series(labels))))
        target = self.target_class
        if not any(_same(v, target) for v in seen):
            by_text = [v for v in seen if str(v) == str(target)]
            if len(by_text) != 1:
                shown = ", ".join(map(repr, seen[:20])) + (", ..." if len(seen) > 20 else "")
                raise DataError(f"target class {target!r} is not a value of y; its values "
                                f"are: {shown}")
            target = by_text[0]
        return frame, _rows_of(labels, target), target

    def _view(self, columns: list[str], target: object) -> _View:
        pre = self.preprocessor
        if pre is None and self.reorder:
            try:
                from xdt.cluster._preprocess import Preprocessor
            except ImportError:
                return _ReorderView(columns)
            pre = _default_reordering(Preprocessor)
            if pre is None:
                return _ReorderView(columns)
        if pre is None:
            return _RawView(columns)
        pre = clone(pre)
        params = pre.get_params() if hasattr(pre, "get_params") else {}
        reorder = bool(self.reorder or params.get("reorder"))
        if reorder and "reorder" in params:
            # the table's domains and groups come from the preprocessor, fitted once; the
            # order follows the rows of each retraining round (refit_round)
            pre.set_params(reorder=False)
        return _PreprocessorView(columns, pre, reorder=reorder)

    def _learner(self):
        if self.learner is None:
            from xdt.learn._cart import CARTClassifier

            return CARTClassifier(max_depth=self.max_depth, merge_leaves=False)
        return clone(self.learner)

    # ------------------------------------------------------------------ fitting
    def fit(self, X, y) -> SupervisedClusters:
        """Extract and rank the clusters of ``target_class`` in ``X``.

        Parameters
        ----------
        X : pandas.DataFrame or array-like of shape (n, n_features)
            The rows; string / categorical columns are symbolic, numeric ones ordinal.
            Without a preprocessor, no missing values.
        y : array-like of shape (n,)
            Class labels.

        Returns
        -------
        self

        Raises
        ------
        ParameterError
            ``beta`` <= 0, ``n_clusters`` < 1, unknown ``strategy``, ...
        DataError
            Empty data, ``y`` of the wrong length, ``target_class`` not in ``y``, every row
            of ``target_class`` (nothing to separate it from), a learner without ``tree_``.
        MissingValueError
            Missing values without a preprocessor to treat them.
        """
        self._check_params()
        frame, is_target, target = self._read(X, y)
        if is_target.all():
            raise DataError(f"every row ({len(frame)} of {len(frame)}) is of the class "
                            f"{to_python(target)!r}: there is nothing to separate it from; "
                            "the clusters of a class need rows of other classes too")
        self.target_class_ = target
        self.columns_ = list(frame.columns)
        self.n_rows_ = len(frame)
        self.target_ = is_target
        self.n_target_ = int(is_target.sum())
        self.clusters_: list[Cluster] = []
        self.trees_: list[DecisionTree] = []
        self._ranking_rows: list[dict] = []
        for attr in ("stability_", "stability_score_"):
            if hasattr(self, attr):
                delattr(self, attr)
        if self.strategy == "single-tree":
            self._fit_single(frame, is_target)
        else:
            self._fit_retrain(frame, is_target)
        self.ranking_ = pd.DataFrame(self._ranking_rows, columns=[
            "round", "node", "depth", "rule", "size", "n_target", "precision", "recall",
            "f_beta", "chosen"])
        del self._ranking_rows
        return self

    def _record(self, view: _View, tree: DecisionTree, nodes: list[_Node],
                is_target: np.ndarray, round_: int) -> None:
        """Add every node of one tree, with its F-beta on the tree's data, to ``ranking_``."""
        total = max(int(is_target.sum()), 1)
        texts: dict[tuple[int, int], str] = {}       # children repeat their parents' tests
        for node in nodes:
            size, tp = node.size, node.n_target
            p = tp / size if size else 0.0
            term = _merged_term(node.literals)
            for lit in term.literals:
                if (lit.feature, lit.cells) not in texts:
                    texts[lit.feature, lit.cells] = view.literal(tree, lit.feature,
                                                                 lit.cells)[1]
            rule = join_conditions([texts[lit.feature, lit.cells] for lit in term.literals])
            self._ranking_rows.append({
                "round": round_, "node": node.number, "depth": len(node.literals),
                "rule": rule, "size": size, "n_target": tp, "precision": p,
                "recall": tp / total, "f_beta": f_beta(p, tp / total, float(self.beta)),
                "chosen": False})

    def _mark_chosen(self, round_: int, node: _Node) -> None:
        for row in self._ranking_rows:
            if row["round"] == round_ and row["node"] == node.number:
                row["chosen"] = True

    def _prepare(self, frame: pd.DataFrame, is_target: np.ndarray) -> object:
        """Fit the one view of every round on the whole table and read the table through it
        once; returns what :meth:`_View.training_frame` takes (kept only while fitting)."""
        # one view for every round, fitted on the whole table: its domains, bins, groups,
        # orders and dropped columns are the table's, so a rule's text ("x != v",
        # "x not in {...}") means the same rows on the whole table as its conditions
        # (symbolic reordering alone follows the rows of each round, on the table's values)
        self._shared_view = self._view(self.columns_, self.target_class_)
        table = frame.reset_index(drop=True)
        self._shared_view.fit(table, is_target.astype(np.int64))
        return self._shared_view.prepare(table)

    def _train(self, table: object, is_target: np.ndarray, rows: np.ndarray,
               round_: int) -> tuple[_View, DecisionTree, list[_Node]]:
        """Train round ``round_``'s tree on the rows ``rows`` (bool, shape (n,)) of the table
        (``table``: from :meth:`_prepare`); its view, tree and ranked-to-be nodes."""
        view = copy.copy(self._shared_view)
        yb = is_target[rows].astype(np.int64)
        Xt = view.training_frame(table, rows, yb)
        est = self._learner()
        est.fit(Xt, yb)
        tree = getattr(est, "tree_", None)
        if not offers(tree, PATHS):
            raise DataError(f"the learner {type(est).__name__} left no xdt DecisionTree in "
                            "tree_; use an xdt learner (CARTClassifier, SERDTClassifier)")
        self.trees_.append(tree)
        nodes = tree_nodes(tree, Xt, yb.astype(bool))
        return view, tree, nodes

    def _ranked(self, nodes: list[_Node], is_target: np.ndarray) -> list[tuple[float, _Node]]:
        total = int(is_target.sum())
        scored = []
        for node in nodes:
            if node.parent < 0 and not self.include_root:
                continue
            size, tp = node.size, node.n_target
            if tp == 0 or size < self.min_size:
                continue
            score = f_beta(tp / size, tp / total, float(self.beta))
            scored.append((score, node))
        # best F-beta first; ties: shorter rule, then larger node, then preorder
        scored.sort(key=lambda s: (-s[0], len(s[1].literals), -s[1].size, s[1].number))
        return scored

    def _cluster(self, frame: pd.DataFrame, is_target: np.ndarray, view: _View,
                 tree: DecisionTree, node: _Node, node_target: np.ndarray,
                 round_: int) -> Cluster:
        term = _merged_term(node.literals)
        conds, texts = [], []
        for lit in term.literals:
            cond, text = view.literal(tree, lit.feature, lit.cells)
            if cond is not None:  # None: every non-missing value (the preprocessor's)
                conds.append(cond)
            texts.append(text)
        size_n, tp_n = node.size, node.n_target
        pn, rn = tp_n / size_n, tp_n / max(int(node_target.sum()), 1)
        beta = float(self.beta)
        cluster = Cluster(
            rank=len(self.clusters_) + 1, term=term, conditions=tuple(conds),
            rule=join_conditions(texts), size=0, n_target=0,
            precision=0.0, recall=0.0, f_beta=0.0, coverage=0.0,
            mask=np.zeros(len(frame), dtype=bool), node_size=size_n, node_precision=pn,
            node_recall=rn, node_f_beta=f_beta(pn, rn, beta), round=round_, tree=tree,
            _view=view)
        mask = view.matches(cluster, frame)
        size = int(mask.sum())
        tp = int((mask & is_target).sum())
        p = tp / size if size else 0.0
        r = tp / max(int(is_target.sum()), 1)
        cluster.mask, cluster.size, cluster.n_target = mask, size, tp
        cluster.precision, cluster.recall, cluster.f_beta = p, r, f_beta(p, r, beta)
        cluster.coverage = size / len(frame)
        return cluster

    def _fit_single(self, frame: pd.DataFrame, is_target: np.ndarray) -> None:
        rows = np.ones(len(frame), dtype=bool)
        view, tree, nodes = self._train(self._prepare(frame, is_target), is_target, rows, 0)
        self._record(view, tree, nodes, is_target, 0)
        parent = {n.number: n.parent for n in nodes}
        blocked: set[int] = set()
        for _, node in self._ranked(nodes, is_target):
            if len(self.clusters_) >= self.n_clusters:
                break
            if node.number in blocked:
                continue
            self.clusters_.append(self._cluster(frame, is_target, view, tree, node, is_target, 0))
            self._mark_chosen(0, node)
            up = node.parent  # block ancestors ...
            while up >= 0:
                blocked.add(up)
                up = parent[up]
            for other in nodes:  # ... and descendants
                a = other.parent
                while a >= 0:
                    if a == node.number:
                        blocked.add(other.number)
                        break
                    a = parent[a]
            blocked.add(node.number)

    def _fit_retrain(self, frame: pd.DataFrame, is_target: np.ndarray) -> None:
        remaining = np.ones(len(frame), dtype=bool)
        table = self._prepare(frame, is_target)
        for round_ in range(int(self.n_clusters)):
            if not (remaining & is_target).any():
                break  # no target row left
            view, tree, nodes = self._train(table, is_target, remaining, round_)
            left_target = is_target[remaining]
            self._record(view, tree, nodes, left_target, round_)
            ranked = self._ranked(nodes, left_target)
            if not ranked:
                break
            node = ranked[0][1]
            self.clusters_.append(self._cluster(frame, is_target, view, tree, node,
                                                left_target, round_))
            self._mark_chosen(round_, node)
            idx = np.flatnonzero(remaining)
            remaining[idx[node.rows]] = False

    # ------------------------------------------------------------------ using the clusters
    def _check_fitted(self) -> None:
        if not hasattr(self, "clusters_"):
            raise NotFittedError("this SupervisedClusters is not fitted yet; call fit(X, y) "
                                 "first")

    def matches(self, X) -> np.ndarray:
        """Which rows of ``X`` each cluster's rule matches: bool array (n, n_clusters)."""
        self._check_fitted()
        frame = _View(self.columns_).frame(X).reset_index(drop=True)
        out = np.zeros((len(frame), len(self.clusters_)), dtype=bool)
        for j, c in enumerate(self.clusters_):
            out[:, j] = c.matches(frame)
        return out

    def predict(self, X) -> np.ndarray:
        """The first cluster (in rank order) whose rule each row of ``X`` satisfies.

        Returns
        -------
        numpy.ndarray of shape (n,), int64
            The position of the cluster in :attr:`clusters_` (its rank minus 1), or -1 when
            no rule matches.
        """
        m = self.matches(X)
        out = np.full(len(m), -1, dtype=np.int64)
        for j in reversed(range(m.shape[1])):
            out[m[:, j]] = j
        return out

    def to_frame(self) -> pd.DataFrame:
        """The clusters as a table: rank, rule, size, precision, recall, f_beta, coverage
        (and stability, once :meth:`stability` has run)."""
        self._check_fitted()
        cols = ["rank", "rule", "size", "precision", "recall", "f_beta", "coverage"]
        stab = hasattr(self, "stability_")
        rows = []
        for c in self.clusters_:
            row = [c.rank, c.rule, c.size, c.precision, c.recall, c.f_beta, c.coverage]
            if stab:
                row.append(c.stability)
            rows.append(row)
        return pd.DataFrame(rows, columns=cols + (["stability"] if stab else []))

    def stability(self, X, y, n_samples: int = 20, sample_frac: float = 0.8,
                  bootstrap: bool = False, on: str = "sample",
                  random_state: int | np.random.Generator | None = None) -> float:
        """The bagging stability of the clusters (the paper's Section "Evaluating Stability
        of Clusters").

        ``n_samples`` times, draw a sample ``D_k`` of the rows (``sample_frac`` of them,
        without replacement; with ``bootstrap=True`` with replacement, distinct rows kept),
        extract clusters from it with the same parameters, and score each original cluster
        ``c_i`` by its best Jaccard overlap ``max_j |c_i ∩ c'_j| / |c_i ∪ c'_j|`` with the
        sample's clusters ``c'_j``. The sets are the rows of ``D_k`` the two rules match
        (``on="sample"``, the default: the paper's formula, ``S(c(D), c'(D_k)) = |c(D_k) ∩
        c'(D_k)| / |c(D_k) ∪ c'(D_k)|``), or all the rows of ``X`` they match (``on="full"``,
        a variant of ours: it also counts how the two rules differ on the rows left out of
        the sample, those the sample's clusters were not fitted on). A cluster's stability
        is its mean score over the samples (``S(c_i) = 1/N sum_k max_j ...``); the returned
        score is their mean over the clusters.

        Parameters
        ----------
        X, y
            The data the clusters were fitted on (or data like it).
        n_samples : int, default 20
        sample_frac : float in (0, 1], default 0.8
        bootstrap : bool, default False
        on : {"sample", "full"}, default "sample"
            The rows the overlap is counted on: the sample's (the paper's) or all of them.
        random_state : int or numpy Generator, optional

        Returns
        -------
        float
            The mean stability over the clusters (0 when there is none); the per-cluster
            scores are in :attr:`stability_` and each ``Cluster.stability``.
        """
        self._check_fitted()
        if isinstance(n_samples, bool) or not isinstance(n_samples, numbers.Integral) \
                or n_samples < 1:
            raise ParameterError(f"n_samples must be an integer >= 1, got {n_samples!r}")
        if not isinstance(sample_frac, numbers.Real) or not 0 < sample_frac <= 1:
            raise ParameterError(f"sample_frac must be in (0, 1], got {sample_frac!r}")
        if on not in ("full", "sample"):
            raise ParameterError(f"on must be 'full' or 'sample', got {on!r}")
        frame, _, _ = self._read(X, y)
        labels = np.asarray(y.to_numpy() if isinstance(y, pd.Series) else y, dtype=object)
        mine = self.matches(frame)
        n = len(frame)
        m = max(1, int(round(sample_frac * n)))
        rng = np.random.default_rng(random_state)
        scores = np.zeros((int(n_samples), len(self.clusters_)))
        for k in range(int(n_samples)):
            idx = rng.choice(n, size=m, replace=bool(bootstrap))
            idx = np.unique(idx)
            other = clone(self)
            try:
                other.fit(frame.iloc[idx], labels[idx])
            except DataError:
                continue  # e.g. no target row in the sample: nothing matches
            theirs = other.matches(frame)
            keep = np.zeros(n, dtype=bool)
            keep[idx] = True
            for i in range(mine.shape[1]):
                a = mine[:, i] if on == "full" else mine[:, i] & keep
                best = 0.0
                for j in range(theirs.shape[1]):
                    b = theirs[:, j] if on == "full" else theirs[:, j] & keep
                    union = int((a | b).sum())
                    s = 1.0 if union == 0 else int((a & b).sum()) / union
                    best = max(best, s)
                scores[k, i] = best
        per = scores.mean(axis=0) if len(self.clusters_) else np.zeros(0)
        self.stability_ = [float(s) for s in per]
        for c, s in zip(self.clusters_, self.stability_, strict=True):
            c.stability = s
        self.stability_score_ = float(per.mean()) if len(per) else 0.0
        return self.stability_score_


def _same(a: object, b: object) -> bool:
    try:
        return bool(a == b) and not (isinstance(a, bool) ^ isinstance(b, bool))
    except (TypeError, ValueError):
        return False


def _rows_of(labels: np.ndarray, target: object) -> np.ndarray:
    """``[_same(v, target) for v in labels]`` (bool, shape (n,)) for labels (an object array,
    or a numeric one, whose labels are read as Python numbers), with ``_same`` called once
    per distinct label: labels of one type are factorized (pandas takes equal values of
    different types, ``1`` and ``True``, as one, so labels of several types are compared
    one by one); missing labels one by one."""
    if labels.dtype != object:
        codes, uniques = pd.factorize(labels, use_na_sentinel=True)
        hit = [_same(u, target) for u in uniques.tolist()] + [_same(math.nan, target)]
        return np.asarray(hit, dtype=bool)[codes]
    kinds = set(map(type, labels))
    if len(kinds) > 1:
        return np.fromiter((_same(v, target) for v in labels), dtype=bool, count=len(labels))
    codes, uniques = pd.factorize(labels, use_na_sentinel=True)
    hit = np.asarray([_same(u, target) for u in uniques] + [False], dtype=bool)
    out = hit[codes]
    missing = np.flatnonzero(codes < 0)
    out[missing] = [_same(labels[i], target) for i in missing]
    return out


def _default_reordering(preprocessor_class):
    """``Preprocessor(n_bins=100, reorder=True, positive=1)`` (percentile bins, the paper's
    "percentile binning"; symbolic reordering by the target), or ``None`` when the class
    takes no such parameters."""
    try:
        return preprocessor_class(n_bins=100, reorder=True, positive=1)
    except TypeError:
        return None
