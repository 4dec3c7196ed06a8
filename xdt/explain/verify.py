"""Verification of explanations, independent of the explanation engines.

Nothing here uses the path-walker (:mod:`xdt.explain.path`) or the hitting-set duality
(:mod:`xdt.explain.duality`); it works on the tree's nodes and on the model's cells only, so
the explainer's answers can be checked against it.

* :func:`reachable_classes` — the classes of the leaves reachable when each feature is held
  to a set of cells: a depth-first search over the tree's nodes that follows every branch
  consistent with the allowed cells (exact, polynomial).
* :func:`brute_force` (and :func:`brute_force_axps`, :func:`brute_force_cxps`) — every AXp and
  every CXp of an instance from the *definitions*, by predicting every point of the product
  of the features' cells and checking every subset of the candidate features (small trees
  only).
* :func:`check_axp` — whether a set of features is an AXp, with a concrete counterexample
  point for each feature whose removal lets a point of another class through.
* :func:`sample_points` / :func:`sample_counterexample` — random testing of entailment on
  points drawn from data and from the cell space.
* :func:`sat_entails`, :func:`sat_counterexample`, :func:`sat_reachable_classes` and
  :func:`check_axp_sat` — the same questions answered by a SAT solver on an own CNF of the
  tree's *nodes* (:class:`TreeCnf`), for trees too big for brute force. This encoding shares
  nothing with the SAT engine's (:mod:`xdt.explain.sat` encodes the tree's *paths* over
  order-encoded ordinal features): here every feature, ordinal ones included, is one-hot
  over its cells, and there is one variable per node saying that the point reaches it.

The brute force predicts through the tree's compiled tables (``tree.leaf_paths``), while
:func:`reachable_classes` and :func:`check_axp` walk the node objects (``tree.root``) and
compute each edge's cells from its threshold or value set: the two check each other.

Definitions (Izza, Ignatiev & Marques-Silva, "On Explaining Decision Trees", Section 2): for
an instance ``v`` predicted ``c``, a set ``S`` of features is a *weak AXp* when every point
agreeing with ``v`` on ``S`` is predicted ``c``, an *AXp* when it is a subset-minimal weak AXp,
and a *CXp* is a subset-minimal set ``T`` such that some point agreeing with ``v`` outside
``T`` is predicted another class. *Path-restricted* explanations draw only from the features
on ``v``'s path, each held to the path's literal (the intersection of the path's tests on it)
instead of ``v``'s cell.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from pysat.solvers import Solver, SolverNames

from xdt.ir.cells import CategoricalCells, IntervalCells, full_mask
from xdt.ir.instances import encode_instance
from xdt.ir.tree import CategoricalSplit, DecisionTree, Leaf, ThresholdSplit

MAX_POINTS = 200_000
"""Largest cell space :func:`brute_force` enumerates."""

MAX_CANDIDATES = 20
"""Largest number of candidate features :func:`brute_force` takes subsets of."""


# ---------------------------------------------------------------------- instance set-up
@dataclass(frozen=True)
class _Setting:
    values: tuple
    cells: tuple[int, ...]
    label: object
    candidates: tuple[int, ...]  # feature positions explanations are drawn from
    allowed: tuple[int, ...]  # per feature, the cells a fixed feature is held to


def _setting(tree: DecisionTree, x, path_restricted: bool) -> _Setting:
    values, cells = encode_instance(tree.features, tree.cells, x)
    path = tree.paths[int(tree.leaf_paths(np.asarray([cells], dtype=np.int64))[0])]
    if path_restricted:
        candidates = tuple(sorted(path.masks))
        allowed = tuple(path.masks.get(f, full_mask(c.n_cells)) for f, c in enumerate(tree.cells))
    else:
        candidates = tuple(range(len(tree.features)))
        allowed = tuple(1 << c for c in cells)
    return _Setting(values, cells, path.label, candidates, allowed)


def _positions(tree: DecisionTree, features: Iterable[str]) -> list[int]:
    if isinstance(features, str):
        features = [features]
    return [tree.features.index(name) for name in features]


# ---------------------------------------------------------------------- reachability (DFS)
def _edge_mask(cells, node, child_index: int) -> int:
    """Cells of the edge from ``node`` to its ``child_index``-th child, computed from the
    node itself (threshold or value set), not from the tree's compiled tables."""
    if isinstance(node, ThresholdSplit):
        assert isinstance(cells, IntervalCells)
        t = float(node.threshold)
        left = 0
        for j in range(cells.n_cells):
            if cells.bounds(j)[1] <= t:  # the whole cell (lo, hi] lies at or below t
                left |= 1 << j
        return left if child_index == 0 else full_mask(cells.n_cells) & ~left
    assert isinstance(cells, CategoricalCells)
    mask = 0
    for v in node.branches[child_index].values:
        mask |= 1 << cells.cell_of(v)
    return mask


def _children(node) -> list:
    if isinstance(node, ThresholdSplit):
        return [node.left, node.right]
    return [b.node for b in node.branches]


def _reachable_leaves(tree: DecisionTree, allowed: Sequence[int]):
    """Yield ``(label, masks)`` for every leaf reachable inside ``allowed``, where ``masks``
    is, per feature, the cells of ``allowed`` that also satisfy every test on the way.
    Nothing is reachable when some feature has no allowed cell (there is no point at all),
    even if that feature is never tested."""
    if not all(allowed):
        return
    stack = [(tree.root, tuple(allowed))]
    while stack:
        node, masks = stack.pop()
        if isinstance(node, Leaf):
            yield node.label, masks
            continue
        assert isinstance(node, ThresholdSplit | CategoricalSplit)
        fi = tree.features.index(node.feature)
        cells = tree.cells[fi]
        for k, child in reversed(list(enumerate(_children(node)))):
            narrowed = masks[fi] & _edge_mask(cells, node, k)
            if narrowed:
                stack.append((child, masks[:fi] + (narrowed,) + masks[fi + 1:]))


def reachable_classes(tree: DecisionTree, allowed: Sequence[int]) -> set:
    """The class labels of the leaves some point inside ``allowed`` reaches.

    Parameters
    ----------
    tree : DecisionTree
    allowed : sequence of int, one per feature
        Bit mask of the cells each feature may take (``full_mask(n_cells)`` for a free
        feature, ``1 << cell`` for a feature fixed to one cell).

    Returns
    -------
    set
        Labels of the reachable leaves.

    Notes
    -----
    A depth-first search from ``tree.root`` that narrows, along each branch, the allowed
    cells of the tested feature to those the branch takes, and abandons a branch whose
    feature is left with no cell. Because the allowed set is a product of per-feature cell
    sets and every test constrains one feature, a leaf is reached exactly when some point of
    ``allowed`` reaches it: the search is exact, also for features tested several times on
    a path. It visits each node at most once: O(n_nodes * (n_features + max cells)) time.
    """
    return {label for label, _ in _reachable_leaves(tree, allowed)}


def _point(tree: DecisionTree, setting: _Setting, masks: Sequence[int]) -> dict:
    """A concrete point (name -> value) inside the per-feature cell sets ``masks``: the
    instance's own value where its cell is allowed, else a value of the lowest allowed cell."""
    out = {}
    for f, (c, m) in enumerate(zip(tree.cells, masks, strict=True)):
        if (m >> setting.cells[f]) & 1:
            out[c.name] = setting.values[f]
        else:
            out[c.name] = c.value((m & -m).bit_length() - 1)
    return out


def _find_other(tree: DecisionTree, setting: _Setting, allowed: Sequence[int]) -> dict | None:
    for label, masks in _reachable_leaves(tree, allowed):
        if label != setting.label:
            return _point(tree, setting, masks)
    return None


def _fixed_allowed(tree: DecisionTree, setting: _Setting, fixed: Iterable[int]) -> list[int]:
    allowed = [full_mask(c.n_cells) for c in tree.cells]
    for f in fixed:
        allowed[f] = setting.allowed[f]
    return allowed


# ---------------------------------------------------------------------- check one AXp
@dataclass(frozen=True)
class AxpCheck:
    """The report of :func:`check_axp`.

    Attributes
    ----------
    features : tuple of str
        The checked set, in the model's feature order.
    prediction : str or int
        The instance's prediction.
    entails : bool
        Whether fixing ``features`` entails the prediction (it is a weak AXp).
    reachable : set
        Classes reachable with ``features`` fixed (``{prediction}`` when ``entails``).
    counterexample : dict or None
        When not ``entails``: a point agreeing with the instance on ``features`` that
        ``tree.predict`` assigns another class.
    drop_counterexamples : dict
        Per feature ``f`` of the set: a point (name -> value) agreeing with the instance on
        the other features of the set and predicted another class, or ``None`` when the set
        without ``f`` still entails the prediction (then the set is not minimal).
    """

    features: tuple[str, ...]
    prediction: object
    entails: bool
    reachable: set = field(compare=False)
    counterexample: dict | None = field(compare=False)
    drop_counterexamples: dict = field(compare=False)

    @property
    def minimal(self) -> bool:
        """No feature can be dropped with the rest still entailing the prediction."""
        return all(p is not None for p in self.drop_counterexamples.values())

    @property
    def is_axp(self) -> bool:
        """A weak AXp that is subset-minimal."""
        return self.entails and self.minimal


def check_axp(tree: DecisionTree, x, features: Iterable[str], *,
              path_restricted: bool = False) -> AxpCheck:
    """Check that ``features`` is an AXp of ``tree``'s prediction for ``x``, independently.

    Parameters
    ----------
    tree : DecisionTree
    x : dict, sequence or pandas Series
        The instance (as for :class:`xdt.Explainer`).
    features : iterable of str
        The feature names (or an :class:`~xdt.explain.explanation.Explanation`).
    path_restricted : bool
        Hold fixed features to the literals of ``x``'s path instead of ``x``'s cells.

    Returns
    -------
    AxpCheck
        ``entails`` from :func:`reachable_classes`; for each feature of the set, a concrete
        counterexample point built from a reachable leaf of another class once that feature
        is freed (or ``None``).

    Notes
    -----
    ``1 + |features|`` depth-first searches: O((1 + k) * n_nodes * n_features) for a set of
    ``k`` features. Minimality is only checked feature by feature, which suffices because
    entailment is monotone in the set of fixed features. The points are built from cell
    values (:meth:`IntervalCells.value`, the domain values) and the instance's own values;
    callers may confirm them with ``tree.predict``.
    """
    s = _setting(tree, x, path_restricted)
    fixed = sorted(set(_positions(tree, features)))
    allowed = _fixed_allowed(tree, s, fixed)
    reachable = reachable_classes(tree, allowed)
    entails = reachable == {s.label}
    drops = {}
    for f in fixed:
        rest = [g for g in fixed if g != f]
        drops[tree.features[f].name] = _find_other(tree, s, _fixed_allowed(tree, s, rest))
    return AxpCheck(
        features=tuple(tree.features[f].name for f in fixed),
        prediction=s.label,
        entails=entails,
        reachable=reachable,
        counterexample=None if entails else _find_other(tree, s, allowed),
        drop_counterexamples=drops)


# ---------------------------------------------------------------------- brute force
@dataclass(frozen=True)
class BruteForce:
    """Every AXp and CXp of one instance, from the definitions (see :func:`brute_force`).

    Attributes
    ----------
    prediction : str or int
    candidates : frozenset of str
        The features explanations are drawn from.
    axps, cxps : frozenset of frozenset of str
    """

    prediction: object
    candidates: frozenset
    axps: frozenset
    cxps: frozenset
    _names: tuple = field(repr=False)
    _entailing: frozenset = field(repr=False)  # candidate subsets (bit masks) that entail

    def _mask(self, features: Iterable[str]) -> int:
        if isinstance(features, str):
            features = [features]
        m = 0
        for name in features:
            m |= 1 << self._names.index(name)
        return m

    def is_weak_axp(self, features: Iterable[str]) -> bool:
        """Whether fixing ``features`` entails the prediction (features outside the
        candidates are ignored: they are never fixed)."""
        cand = self._mask(self.candidates)
        return (self._mask(features) & cand) in self._entailing

    def is_axp(self, features: Iterable[str]) -> bool:
        return frozenset(features) in self.axps

    def is_cxp(self, features: Iterable[str]) -> bool:
        return frozenset(features) in self.cxps

    @property
    def relevant(self) -> frozenset:
        """Features in some AXp."""
        return frozenset().union(*self.axps)

    @property
    def necessary(self) -> frozenset:
        """Features in every AXp."""
        return frozenset.intersection(*self.axps) if self.axps else frozenset()


def cell_space(tree: DecisionTree, max_points: int = MAX_POINTS) -> np.ndarray:
    """Every point of the product of the features' cells, shape ``(N, n_features)``.

    Raises
    ------
    ValueError
        When ``N`` exceeds ``max_points``.
    """
    sizes = [c.n_cells for c in tree.cells]
    n = int(np.prod(sizes, dtype=object)) if sizes else 1
    if n > max_points:
        raise ValueError(
            f"the cell space of this tree has {n} points ({' x '.join(map(str, sizes))}), more "
            f"than the brute-force limit of {max_points}; use a smaller tree, or check "
            "explanations with check_axp (polynomial) instead")
    grids = np.meshgrid(*[np.arange(k, dtype=np.int64) for k in sizes], indexing="ij")
    return np.stack([g.reshape(-1) for g in grids], axis=1).reshape(n, len(sizes))


def brute_force(tree: DecisionTree, x, *, path_restricted: bool = False,
                max_points: int = MAX_POINTS) -> BruteForce:
    """All AXps and all CXps of ``tree``'s prediction for ``x``, by exhaustive enumeration.

    Parameters
    ----------
    tree : DecisionTree
    x : dict, sequence or pandas Series
        The instance.
    path_restricted : bool
        Candidates are the features on ``x``'s path, each held to the path's literal cell
        set ``path.masks[f]``; otherwise all features, each held to ``x``'s cell.
    max_points : int
        Size guard on the cell space.

    Returns
    -------
    BruteForce

    Raises
    ------
    ValueError
        When the cell space has more than ``max_points`` points, or there are more than
        ``MAX_CANDIDATES`` candidate features.

    Notes
    -----
    Every point of the cell space (``N`` = product of the features' cell counts) is
    predicted at once with ``tree.leaf_paths``. For each point of another class, the set of
    candidate features on which it lies outside the allowed cells is the set of fixed
    features it escapes; a set ``S`` entails the prediction exactly when no such point
    agrees with ``x`` on ``S``. Every one of the ``2^k`` subsets of the ``k`` candidates is
    tested against the distinct escape sets: O(N * F + 2^k * N) time, O(N * F) memory.
    AXps are the entailing subsets none of whose one-smaller subsets entails, CXps the
    subsets ``T`` whose complement does not entail while every complement of ``T`` minus
    one feature does (entailment is monotone, so one-feature checks give subset-minimality).
    """
    s = _setting(tree, x, path_restricted)
    if len(s.candidates) > MAX_CANDIDATES:
        raise ValueError(
            f"{len(s.candidates)} candidate features: too many subsets to enumerate (limit "
            f"{MAX_CANDIDATES})")
    points = cell_space(tree, max_points)
    class_of_path = np.asarray([p.class_index for p in tree.paths], dtype=np.int64)
    classes = class_of_path[tree.leaf_paths(points)]
    predicted = tree.classes.index(s.label)
    other = points[classes != predicted]
    k = len(s.candidates)
    escape = np.zeros(len(other), dtype=np.int64)  # bit j: outside candidate j's allowed set
    for j, f in enumerate(s.candidates):
        inside = (np.int64(s.allowed[f]) >> other[:, f]) & 1
        escape |= (1 - inside) << j
    escapes = np.unique(escape)
    subsets = np.arange(1 << k, dtype=np.int64)
    entails = np.ones(1 << k, dtype=bool)
    for e in escapes:
        entails &= (subsets & e) != 0
    full = (1 << k) - 1

    def ent(m: int) -> bool:
        return bool(entails[m])

    axps, cxps = [], []
    for m in range(1 << k):
        members = [j for j in range(k) if (m >> j) & 1]
        if ent(m) and not any(ent(m & ~(1 << j)) for j in members):
            axps.append(m)
        if not ent(full & ~m) and all(ent(full & ~(m & ~(1 << j))) for j in members):
            cxps.append(m)
    names = tree.features.names

    def named(m: int) -> frozenset:
        return frozenset(names[s.candidates[j]] for j in range(k) if (m >> j) & 1)

    def global_mask(m: int) -> int:
        return sum(1 << s.candidates[j] for j in range(k) if (m >> j) & 1)

    return BruteForce(
        prediction=s.label,
        candidates=frozenset(names[f] for f in s.candidates),
        axps=frozenset(named(m) for m in axps),
        cxps=frozenset(named(m) for m in cxps),
        _names=names,
        _entailing=frozenset(global_mask(m) for m in range(1 << k) if ent(m)))


def brute_force_axps(tree: DecisionTree, x, path_restricted: bool = False,
                     max_points: int = MAX_POINTS) -> set[frozenset[str]]:
    """All AXps of ``tree``'s prediction for ``x`` as sets of feature names, by brute force.

    See :func:`brute_force` (same parameters, errors and complexity).
    """
    return set(brute_force(tree, x, path_restricted=path_restricted,
                           max_points=max_points).axps)


def brute_force_cxps(tree: DecisionTree, x, path_restricted: bool = False,
                     max_points: int = MAX_POINTS) -> set[frozenset[str]]:
    """All CXps of ``tree``'s prediction for ``x`` as sets of feature names, by brute force.

    See :func:`brute_force` (same parameters, errors and complexity).
    """
    return set(brute_force(tree, x, path_restricted=path_restricted,
                           max_points=max_points).cxps)


# ---------------------------------------------------------------------- random testing
def _random_values(cells, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` values of uniformly drawn cells: domain values, or numbers inside the
    intervals (the cell's :meth:`~IntervalCells.value` where a draw would leave it)."""
    drawn = rng.integers(cells.n_cells, size=n)
    if isinstance(cells, CategoricalCells):
        return np.asarray(cells.domain, dtype=object)[drawn]
    bounds = np.asarray([cells.bounds(j) for j in range(cells.n_cells)], dtype=np.float64)
    lo, hi = bounds[drawn, 0], bounds[drawn, 1]
    u = rng.uniform(0.0, 1.0, n)
    e = rng.exponential(1.0, n)
    with np.errstate(invalid="ignore"):
        v = np.where(np.isfinite(lo) & np.isfinite(hi), lo + (hi - lo) * u,
                     np.where(np.isfinite(hi), hi - e, np.where(np.isfinite(lo), lo + e,
                                                                rng.normal(size=n))))
    inside = np.searchsorted(cells.thresholds, v, side="left") == drawn
    fallback = np.asarray([cells.value(j) for j in range(cells.n_cells)], dtype=np.float64)
    return np.where(inside, v, fallback[drawn])


def sample_points(tree: DecisionTree, x, features: Iterable[str], n: int = 200, *,
                  rng: np.random.Generator | None = None, data=None):
    """``n`` random points agreeing with ``x`` on ``features``, as a pandas DataFrame with
    one column per feature.

    Every other feature is drawn independently per point: for half of the points (when
    ``data``, a DataFrame with the features as columns, is given) from the values of that
    column of ``data``, otherwise from a uniformly drawn cell of the model (a domain value,
    or a number inside the interval).

    Notes
    -----
    O(n * n_features) time, vectorised per feature.
    """
    import pandas as pd

    rng = rng if rng is not None else np.random.default_rng(0)
    values, _ = encode_instance(tree.features, tree.cells, x)
    fixed = set(_positions(tree, features))
    from_data = np.zeros(n, dtype=bool)
    if data is not None:
        from_data[::2] = True
    columns = {}
    for f, c in enumerate(tree.cells):
        if f in fixed:
            col = np.empty(n, dtype=object)
            col[:] = [values[f]] * n
        else:
            col = _random_values(c, n, rng).astype(object)
            if from_data.any():
                source = data[c.name].to_numpy(dtype=object)
                col[from_data] = source[rng.integers(len(source), size=int(from_data.sum()))]
        columns[c.name] = col
    return pd.DataFrame(columns)


def sample_counterexample(tree: DecisionTree, x, features: Iterable[str], n: int = 200, *,
                          rng: np.random.Generator | None = None, data=None) -> dict | None:
    """A sampled point agreeing with ``x`` on ``features`` that ``tree.predict`` assigns
    another class, or ``None`` when none of the ``n`` points (see :func:`sample_points`)
    changes the prediction. A ``None`` is evidence, not proof, of entailment.

    Notes
    -----
    One vectorised ``tree.predict`` call on the ``n`` points.
    """
    label = _setting(tree, x, False).label
    points = sample_points(tree, x, list(features), n, rng=rng, data=data)
    differs = np.flatnonzero(tree.predict(points) != label)
    return None if differs.size == 0 else points.iloc[int(differs[0])].to_dict()


# ---------------------------------------------------------------------- SAT entailment
DEFAULT_SAT_SOLVER = "glucose4"
"""PySAT solver of the SAT checks (deliberately not the SAT engine's default, CaDiCaL)."""


class TreeCnf:
    """A CNF of a decision tree's nodes over one-hot cell variables.

    Independent of the SAT engine's encoding (:class:`xdt.explain.sat.ModelEncoding`, which
    encodes paths, with an order encoding for ordinal features): it walks the node objects
    from ``tree.root`` and computes each edge's cells from the node's threshold or value set.

    Parameters
    ----------
    tree : DecisionTree

    Attributes
    ----------
    cell_vars : list of list of int
        ``cell_vars[f][j]``: feature ``f`` lies in cell ``j``. Exactly one per feature (an
        at-least-one clause; pairwise at-most-one up to 5 cells, a sequential counter above),
        for every feature, ordinal ones included.
    node_vars : list of int
        One per node occurrence, in preorder: the point reaches the node.
    class_vars : list of int
        One per class of ``tree.classes``: the point reaches a leaf of that class.
    clauses : list of list of int
        * the root is reached;
        * a reached split node has at least one reached child, and at most one (pairwise);
        * a reached child has a reached parent and lies in the cells of its edge
          (``[-child, cell_j for j in edge]``);
        * a reached leaf sets its class variable; a class variable needs a reached leaf of
          its class.

    Notes
    -----
    Under these clauses, for any assignment of the cell variables (a point), the reached
    node variables are exactly the nodes on the point's path: the root is reached; a reached
    split node's children have disjoint edges covering every cell, so exactly one child's
    edge holds the point's cell and that child is forced; and a child can only be reached
    through its parent along an edge holding the point. Hence the class variable ``y_k`` can
    be true exactly when the point's leaf is of class ``k``, and "every point in these cell
    sets gets class ``c``" is the unsatisfiability of the clauses under the assumptions
    ``not y_c`` and ``not cell_vars[f][j]`` for every excluded cell.

    Size: ``n_nodes + sum(n_cells) + n_classes`` variables plus fewer than ``sum(n_cells)``
    counter variables; clauses with O(n_nodes * max_cells + sum(n_cells)) literals in all
    (each edge clause lists the cells of its edge); built in linear time in that size.
    """

    def __init__(self, tree: DecisionTree):
        self.tree = tree
        self._top = 0
        self.clauses: list[list[int]] = []
        self.cell_vars = [[self._new() for _ in range(c.n_cells)] for c in tree.cells]
        self.class_vars = [self._new() for _ in tree.classes]
        self.node_vars: list[int] = []
        for lits in self.cell_vars:
            self._exactly_one(lits)
        leaves_of: list[list[int]] = [[] for _ in tree.classes]
        # (node, its variable); each occurrence gets a fresh variable, even if node objects
        # are shared between subtrees
        root = self._new()
        self.node_vars.append(root)
        self.clauses.append([root])
        stack = [(tree.root, root)]
        while stack:
            node, var = stack.pop()
            if isinstance(node, Leaf):
                k = tree.classes.index(node.label)
                self.clauses.append([-var, self.class_vars[k]])
                leaves_of[k].append(var)
                continue
            assert isinstance(node, ThresholdSplit | CategoricalSplit)
            fi = tree.features.index(node.feature)
            kids = []
            for k, child in enumerate(_children(node)):
                cv = self._new()
                self.node_vars.append(cv)
                kids.append(cv)
                edge = _edge_mask(tree.cells[fi], node, k)
                self.clauses.append([-cv, var])
                self.clauses.append([-cv] + [self.cell_vars[fi][j] for j in range(
                    tree.cells[fi].n_cells) if (edge >> j) & 1])
                stack.append((child, cv))
            self.clauses.append([-var] + kids)
            self.clauses.extend([-a, -b] for i, a in enumerate(kids) for b in kids[i + 1:])
        for k, y in enumerate(self.class_vars):
            self.clauses.append([-y] + leaves_of[k])

    @property
    def n_vars(self) -> int:
        return self._top

    def _new(self) -> int:
        self._top += 1
        return self._top

    def _exactly_one(self, lits: list[int]) -> None:
        self.clauses.append(list(lits))
        if len(lits) <= 5:
            self.clauses.extend([-a, -b] for i, a in enumerate(lits) for b in lits[i + 1:])
            return
        # sequential counter (Sinz 2005): s_i = "one of x_1..x_i is true"
        s = [self._new() for _ in range(len(lits) - 1)]
        self.clauses.append([-lits[0], s[0]])
        for i in range(1, len(lits) - 1):
            self.clauses.extend([[-lits[i], s[i]], [-s[i - 1], s[i]], [-lits[i], -s[i - 1]]])
        self.clauses.append([-lits[-1], -s[-1]])

    def held_assumptions(self, held: Mapping[int, int]) -> list[int]:
        """Assumptions holding each feature ``f`` of ``held`` (position -> cell mask) to its
        cells: the negated variables of the excluded cells (any cell set, ordinal or not)."""
        return [-v for f, mask in held.items()
                for j, v in enumerate(self.cell_vars[f]) if not (mask >> j) & 1]

    def decode(self, model: Sequence[int]) -> tuple[int, ...]:
        """The cell of every feature in a satisfying assignment (signed literals)."""
        true = {v for v in model if v > 0}
        return tuple(next(j for j, v in enumerate(lits) if v in true)
                     for lits in self.cell_vars)


Held = Mapping[str, int] | Mapping[int, int] | Sequence[int]
"""Cell sets features are held to: by feature name or position, or one mask per feature."""


def _held_positions(tree: DecisionTree, held: Held) -> dict[int, int]:
    """``held`` as position -> mask: a mapping keyed by feature name or position, or a
    sequence of one mask per feature (as :func:`reachable_classes` takes)."""
    if isinstance(held, Mapping):
        return {(tree.features.index(f) if isinstance(f, str) else int(f)): int(m)
                for f, m in held.items()}
    masks = list(held)
    if len(masks) != len(tree.features):
        raise ValueError(f"held: {len(masks)} masks for {len(tree.features)} features")
    return dict(enumerate(int(m) for m in masks))


_NOT_INCREMENTAL = frozenset(SolverNames.kissat404 + SolverNames.lingeling)
"""PySAT solvers that cannot take assumptions over several calls (Kissat ignores them;
Lingeling aborts on a variable it eliminated)."""


def _open_solver(cnf: TreeCnf, solver: str) -> Solver:
    if solver in _NOT_INCREMENTAL:
        raise ValueError(f"SAT solver {solver!r} cannot solve under assumptions repeatedly; "
                         f"use another one, e.g. {DEFAULT_SAT_SOLVER!r}")
    return Solver(name=solver, bootstrap_with=cnf.clauses)


def _other_class_point(s: Solver, cnf: TreeCnf, held: Mapping[int, int],
                       class_index: int) -> tuple[int, ...] | None:
    if s.solve(assumptions=cnf.held_assumptions(held) + [-cnf.class_vars[class_index]]):
        return cnf.decode(s.get_model())
    return None


def _sat_classes(s: Solver, cnf: TreeCnf, held: Mapping[int, int]) -> set:
    base = cnf.held_assumptions(held)
    return {label for label, y in zip(cnf.tree.classes, cnf.class_vars, strict=True)
            if s.solve(assumptions=base + [y])}


def sat_counterexample(tree: DecisionTree, held: Held, label: str | int, *,
                       solver: str = DEFAULT_SAT_SOLVER) -> tuple[int, ...] | None:
    """Cells of a point inside the ``held`` cell sets that ``tree`` does not predict as
    ``label``, or ``None`` when there is none; by one SAT call on :class:`TreeCnf`.

    Parameters
    ----------
    tree : DecisionTree
    held : mapping or sequence of int
        Per feature (by name or position), the bit mask of the cells it may take; features
        not listed are free. Or a sequence of one mask per feature. Any cell set is allowed,
        also a non-interval one for an ordinal feature.
    label : str or int
        A class label of ``tree``.
    solver : str
        PySAT solver name (default ``"glucose4"``).

    Returns
    -------
    tuple of int or None
        One cell per feature.

    Notes
    -----
    Builds the CNF (size O(n_nodes * max_cells + sum(n_cells))) and solves it once under
    assumptions, inside a ``with`` block that releases the solver.
    """
    cnf = TreeCnf(tree)
    positions = _held_positions(tree, held)
    with _open_solver(cnf, solver) as s:
        return _other_class_point(s, cnf, positions, tree.classes.index(label))


def sat_entails(tree: DecisionTree, held: Held, label: str | int, *,
                solver: str = DEFAULT_SAT_SOLVER) -> bool:
    """True when every point inside the ``held`` cell sets is predicted ``label`` (the SAT
    counterpart of ``reachable_classes(...) <= {label}``); see :func:`sat_counterexample`
    for the parameters and the cost.

    Examples
    --------
    >>> from xdt.ir import DecisionTree, Feature, Leaf, ThresholdSplit
    >>> tree = DecisionTree([Feature("x", "ordinal")], ["a", "b"],
    ...                     ThresholdSplit("x", 1.0, Leaf("a"), Leaf("b")))
    >>> sat_entails(tree, {"x": 0b01}, "a"), sat_entails(tree, {}, "a")
    (True, False)
    """
    return sat_counterexample(tree, held, label, solver=solver) is None


def sat_reachable_classes(tree: DecisionTree, held: Held, *,
                          solver: str = DEFAULT_SAT_SOLVER) -> set:
    """The class labels of the points inside the ``held`` cell sets (the SAT counterpart of
    :func:`reachable_classes`): one SAT call per class on one solver, released on return.
    ``held`` and ``solver`` as in :func:`sat_counterexample`."""
    cnf = TreeCnf(tree)
    positions = _held_positions(tree, held)
    with _open_solver(cnf, solver) as s:
        return _sat_classes(s, cnf, positions)


def check_axp_sat(tree: DecisionTree, x, features: Iterable[str], *,
                  path_restricted: bool = False,
                  solver: str = DEFAULT_SAT_SOLVER) -> AxpCheck:
    """Check that ``features`` is an AXp of ``tree``'s prediction for ``x`` with SAT calls.

    The same check and report as :func:`check_axp`, with every entailment question answered
    by a SAT solver on :class:`TreeCnf` instead of a depth-first search: for trees of any
    size (no cell-space enumeration), and independent of both explanation engines.

    Parameters
    ----------
    tree : DecisionTree
    x : dict, sequence or pandas Series
        The instance.
    features : iterable of str
        Feature names (or an :class:`~xdt.explain.explanation.Explanation`).
    path_restricted : bool
        Hold fixed features to the literals of ``x``'s path instead of ``x``'s cells.
    solver : str
        PySAT solver name (default ``"glucose4"``).

    Returns
    -------
    AxpCheck
        ``entails`` from one SAT call; ``reachable`` from one call per class; for each
        feature of the set, the point of a satisfying assignment once that feature is freed
        (the instance's own value where its cell is kept, else a value of the model's cell),
        or ``None`` when the rest still entails the prediction.

    Notes
    -----
    One CNF (see :class:`TreeCnf` for its size) and one solver, kept for all
    ``n_classes + 2 + k`` incremental calls under assumptions for a set of ``k`` features,
    and released on return (also on errors). Minimality is checked feature by feature,
    which suffices because entailment is monotone in the set of fixed features.
    """
    st = _setting(tree, x, path_restricted)
    fixed = sorted(set(_positions(tree, features)))
    cnf = TreeCnf(tree)
    c = tree.classes.index(st.label)

    def held(fs: Iterable[int]) -> dict[int, int]:
        return {f: st.allowed[f] for f in fs}

    def point(cells: tuple[int, ...] | None) -> dict | None:
        return None if cells is None else _point(tree, st, [1 << j for j in cells])

    with _open_solver(cnf, solver) as s:
        reachable = _sat_classes(s, cnf, held(fixed))
        other = _other_class_point(s, cnf, held(fixed), c)
        drops = {tree.features[f].name:
                 point(_other_class_point(s, cnf, held(g for g in fixed if g != f), c))
                 for f in fixed}
    return AxpCheck(
        features=tuple(tree.features[f].name for f in fixed),
        prediction=st.label,
        entails=other is None,
        reachable=reachable,
        counterexample=point(other),
        drop_counterexamples=drops)
