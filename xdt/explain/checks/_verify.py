"""Verification of explanations, independent of the explanation engines.

Nothing here uses the path-walker (:mod:`xdt.explain.engines._path`), the SAT engine's encoding
(:mod:`xdt.explain.engines._sat`) or the hitting-set duality (:mod:`xdt.explain.queries._duality`);
it works on the tree's nodes, the DNF's terms and the model's cells only, so the explainer's answers
can be checked against it. Every function takes a decision tree or a DNF (nested k-DNFs are
DNFs).

* :func:`reachable_classes` — the classes of the points inside a box (each feature held to
  a set of cells). For a tree: a depth-first search over the nodes that follows every
  branch consistent with the allowed cells (exact, polynomial). For a DNF:
  :func:`counterexample_in_box` — ``classes[1]`` is reachable when some term meets the box
  (polynomial); ``classes[0]`` when the box is not covered by the terms, found by splitting
  the box around one term at a time (exact; exponential in the worst case, as deciding it
  is coNP-hard).
* :func:`brute_force` (and :func:`brute_force_axps`, :func:`brute_force_cxps`) — every AXp and
  every CXp of an instance from the *definitions*, by predicting every point of the product
  of the features' cells and checking every subset of the candidate features (small models
  only).
* :func:`check_axp` — whether a set of features is an AXp, with a concrete counterexample
  point for each feature whose removal lets a point of another class through.
* :func:`sample_points` / :func:`sample_counterexample` — random testing of entailment on
  points drawn from data and from the cell space.
* :func:`sat_entails`, :func:`sat_counterexample`, :func:`sat_reachable_classes` and
  :func:`check_axp_sat` — the same questions answered by a SAT solver on an own CNF: of the
  tree's *nodes* (:class:`TreeCnf`), or of the DNF's terms with a variable per term that
  is *equivalent* to it (:class:`DnfCnf`), for models too big for brute force. These
  encodings share nothing with the SAT engine's (:mod:`xdt.explain.engines._sat` encodes a tree's
  *paths* and a DNF's terms over order-encoded ordinal features, with one-way term
  variables): here every feature, ordinal ones included, is one-hot over its cells.

The brute force predicts through the model's compiled tables (``model.predict_cells``),
while :func:`reachable_classes` and :func:`check_axp` walk a tree's node objects
(``tree.root``), computing each edge's cells from its threshold or value set, or split
boxes around a DNF's terms: the two check each other.

Definitions (Izza, Ignatiev & Marques-Silva, "On Explaining Decision Trees", Section 2;
the same for DNFs, Cooper, Bousdira & Carbonnel, "Interpretable DNFs", IJCAI 2025,
Section 2): for an instance ``v`` predicted ``c``, a set ``S`` of features is a *weak AXp*
when every point agreeing with ``v`` on ``S`` is predicted ``c``, an *AXp* when it is a
subset-minimal weak AXp, and a *CXp* is a subset-minimal set ``T`` such that some point
agreeing with ``v`` outside ``T`` is predicted another class. *Path-restricted* explanations
(trees only) draw only from the features on ``v``'s path, each held to the path's literal
(the intersection of the path's tests on it) instead of ``v``'s cell.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from pysat.solvers import Solver, SolverNames

from xdt.errors import BruteForceLimitError, EngineNotAvailableError, ParameterError
from xdt.explain.engines import _deadline
from xdt.ir._cells import CategoricalCells, IntervalCells, full_mask
from xdt.ir._decision_list import DecisionList
from xdt.ir._dnf import DNF
from xdt.ir._ensemble import TreeEnsemble
from xdt.ir._instances import encode_instance
from xdt.ir._protocol import PATHS, RULES, TREES, offers
from xdt.ir._tree import CategoricalSplit, DecisionTree, Leaf, ThresholdSplit

Model = DecisionTree | DNF | DecisionList | TreeEnsemble
"""The models the checks take (tree ensembles by enumerating or sampling their cell
space: :func:`brute_force`, :func:`counterexample_in_box`, :func:`sample_box_counterexample`,
:func:`reference_counterexample`)."""

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


def _class_index(model: Model, cells: Sequence[int]) -> int:
    """The class index the model predicts for one point given by its cells."""
    return int(model.predict_cells(np.asarray([cells], dtype=np.int64))[0])


def _setting(model: Model, x, path_restricted: bool) -> _Setting:
    values, cells = encode_instance(model.features, model.cells, x)
    if path_restricted:
        if not offers(model, PATHS):
            raise EngineNotAvailableError(
                "path-restricted explanations read the instance's path in a decision tree; "
                f"a {type(model).__name__} has no paths: check it with path_restricted=False")
        path = model.paths[int(model.leaf_paths(np.asarray([cells], dtype=np.int64))[0])]
        candidates = tuple(sorted(path.masks))
        allowed = tuple(path.masks.get(f, full_mask(c.n_cells))
                        for f, c in enumerate(model.cells))
    else:
        candidates = tuple(range(len(model.features)))
        allowed = tuple(1 << c for c in cells)
    label = model.classes[_class_index(model, cells)]
    return _Setting(values, cells, label, candidates, allowed)


def _positions(model: Model, features: Iterable[str]) -> list[int]:
    if isinstance(features, str):
        features = [features]
    return [model.features.index(name) for name in features]


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


# ---------------------------------------------------------------------- DNFs: box search
def _dnf_terms(model: DNF) -> list[dict[int, int]]:
    """The DNF's terms as ``{feature: cells}`` (the intersection of a term's conditions on
    each feature), recomputed from its compiled literals."""
    out = []
    for term in model.terms:
        masks: dict[int, int] = {}
        for lit in term.literals:
            masks[lit.feature] = masks.get(lit.feature, lit.cells) & lit.cells
        out.append(masks)
    return out


def _meets(term: dict[int, int], box: Sequence[int]) -> bool:
    return all(m & box[f] for f, m in term.items())


def _pick(box: Sequence[int], prefer: Sequence[int] | None) -> tuple[int, ...]:
    """A point of the box: ``prefer``'s cell where the box allows it, else the lowest."""
    return tuple(c if prefer is not None and (m >> prefer[f]) & 1 else (m & -m).bit_length() - 1
                 for f, (m, c) in enumerate(zip(box, prefer or box, strict=True)))


def _point_in_term(terms: list[dict[int, int]], box: Sequence[int],
                   prefer: Sequence[int] | None) -> tuple[int, ...] | None:
    """A point of the box where some term holds, or ``None`` (polynomial)."""
    for term in terms:
        if _meets(term, box):
            return _pick([m & term.get(f, m) for f, m in enumerate(box)], prefer)
    return None


def _first_rule_point(model: DecisionList, terms: list[dict[int, int]], box: Sequence[int],
                      wanted, prefer: Sequence[int] | None) -> tuple[int, ...] | None:
    """A point of the box where the first rule of the decision list that fires (or the
    default, when none does) is of a class index for which ``wanted`` is true; ``None``
    when there is none. Rule ``i`` decides at a point when the point is inside its term and
    outside the terms before it: :func:`_point_outside_terms` of the earlier terms, in the
    box narrowed to rule ``i``."""
    for i, c in enumerate(model.rule_class.tolist()):
        if not wanted(c) or not _meets(terms[i], box):
            continue
        inside = [m & terms[i].get(f, m) for f, m in enumerate(box)]
        point = _point_outside_terms(terms[:i], inside, prefer)
        if point is not None:
            return point
    if wanted(model.default_class):
        return _point_outside_terms(terms, box, prefer)
    return None


def _point_outside_terms(terms: list[dict[int, int]], box: Sequence[int],
                         prefer: Sequence[int] | None) -> tuple[int, ...] | None:
    """A point of the box where no term holds, or ``None``.

    Drop the terms that miss the box; with none left, any point of the box will do; if one
    term contains the whole box, there is none. Otherwise split on the live term ``t``
    with the fewest features whose cells in the box reach outside ``t``: the points of the
    box outside ``t`` are the disjoint union, over those features ``f`` in turn, of the
    sub-boxes where the features before ``f`` satisfy ``t`` and ``f`` does not; each is
    searched for a point outside the other terms. Exact; exponential in the number of
    terms in the worst case (deciding it is coNP-hard).
    """
    # a depth-first search over an explicit stack of branch generators: one level per term
    # split on, and a DNF may have thousands of terms
    stack: list[Iterator[tuple[list[dict[int, int]], list[int]]]] = [iter([(terms, list(box))])]
    while stack:
        branch = next(stack[-1], None)
        if branch is None:
            stack.pop()
            continue
        here, sub = branch
        live = []
        for t in here:
            if not _meets(t, sub):
                continue
            sticking_out = [f for f, m in t.items() if sub[f] & ~m]
            if not sticking_out:
                break  # the term covers the sub-box
            live.append((len(sticking_out), sticking_out, t))
        else:
            if not live:
                return _pick(sub, prefer)
            _, split_on, first = min(live, key=lambda item: item[0])
            stack.append(_outside_branches([t for _, _, t in live if t is not first], sub,
                                           split_on, first))
    return None


def _outside_branches(rest: list[dict[int, int]], box: list[int], split_on: list[int],
                      first: dict[int, int]) -> Iterator[tuple[list[dict[int, int]], list[int]]]:
    """The sub-boxes of ``box`` outside the term ``first``, in the order
    :func:`_point_outside_terms` searches them: for each feature ``f`` of ``split_on``, the
    features before it inside ``first`` and ``f`` outside it. Each is paired with the terms
    still to avoid (``rest``)."""
    prefix = list(box)
    for f in split_on:
        yield rest, prefix[:f] + [prefix[f] & ~first[f]] + prefix[f + 1:]
        prefix[f] &= first[f]


def counterexample_in_box(model: Model, held: Mapping[int, int], class_index: int,
                          prefer: Sequence[int] | None = None) -> tuple[int, ...] | None:
    """Cells of a point inside the box ``held`` that ``model`` does not predict as
    ``class_index``, or ``None`` when every point of the box is of that class.

    Parameters
    ----------
    model : DecisionTree or DNF
    held : mapping of int to int
        Feature position -> bit mask of the cells it may take; features not listed are free.
    class_index : int
        Position of the class in ``model.classes``.
    prefer : sequence of int, optional
        Cells (one per feature) to keep where the box allows it, e.g. the instance's.

    Notes
    -----
    With background constraints (``model.constraints``), only the points they allow count:
    every point of the box is enumerated, those the constraints exclude dropped
    (:meth:`~xdt.ir._constraints.Constraints.allows`), when there are at most
    :data:`MAX_POINTS`; else, for a tree or a DNF, one SAT call on the checks' own CNF with
    the constraints (:func:`sat_counterexample`).
    For a tree ensemble, every point of the box, predicted by ``model.predict_cells``
    (exact; the box must hold at most :data:`MAX_POINTS` points, else
    :class:`~xdt.errors.BruteForceLimitError`: use
    :func:`sample_box_counterexample`). For a tree, the depth-first search of
    :func:`reachable_classes`. For a DNF predicting
    ``classes[1]``: a point of the box where no term holds, by splitting the box around one
    term at a time (exact, exponential in the worst case); predicting ``classes[0]``: a
    point of the box inside a term meeting it (polynomial). For a decision list: for each
    rule of another class (and the default, if of another class), a point of the box inside
    that rule and outside every earlier rule, by the same splitting (exact, exponential in
    the worst case). The terms are read from the compiled literals; nothing is shared with
    the SAT engine.
    """
    box = [full_mask(c.n_cells) for c in model.cells]
    for f, m in held.items():
        box[f] = int(m)
    if not all(box):
        return None
    if getattr(model, "constraints", None):
        return _constrained_box_point(model, box, class_index, prefer)
    if offers(model, TREES):
        return _ensemble_box_point(model, box, class_index, prefer)
    if offers(model, PATHS):
        label = model.classes[class_index]
        for leaf_label, masks in _reachable_leaves(model, box):
            if leaf_label != label:
                return _pick(masks, prefer)
        return None
    terms = _dnf_terms(model)
    if offers(model, RULES):
        return _first_rule_point(model, terms, box, lambda c: c != class_index, prefer)
    if class_index == 1:
        return _point_outside_terms(terms, box, prefer)
    return _point_in_term(terms, box, prefer)


def box_size(box: Sequence[int]) -> int:
    """The number of points of a box (one cell mask per feature)."""
    n = 1
    for m in box:
        n *= int(m).bit_count()
    return n


def box_points(box: Sequence[int]) -> np.ndarray:
    """Every point of a box (one cell mask per feature), shape (N, F), int64, the first
    feature varying slowest. Any number of features (no ``numpy.meshgrid``, which stops at
    32 dimensions)."""
    axes = [np.asarray([j for j in range(int(m).bit_length()) if (int(m) >> j) & 1],
                       dtype=np.int64) for m in box]
    n = math.prod(len(a) for a in axes)
    out = np.empty((n, len(axes)), dtype=np.int64)
    if n == 0:
        return out
    before = 1
    for f, a in enumerate(axes):
        after = n // (before * len(a))
        out[:, f] = np.tile(np.repeat(a, after), before)
        before *= len(a)
    return out


def _constrained_box_point(model: Model, box: Sequence[int], class_index: int,
                           prefer: Sequence[int] | None) -> tuple[int, ...] | None:
    """:func:`counterexample_in_box` for a model with background constraints: a point of
    the box the constraints allow, of another class (the closest to ``prefer``)."""
    if box_size(box) > MAX_POINTS:
        if offers(model, TREES):
            raise BruteForceLimitError(
                f"the box has {box_size(box)} points, more than the limit of {MAX_POINTS} for "
                "enumerating a tree ensemble's points", limit="max_points")
        return sat_counterexample(model, dict(enumerate(box)), model.classes[class_index])
    points = box_points(box)
    points = points[model.constraints.allows(points)]
    other = points[np.asarray(model.predict_cells(points)) != class_index]
    if not len(other):
        return None
    if prefer is not None:
        other = other[np.argsort((other != np.asarray(prefer)).sum(axis=1), kind="stable")]
    return tuple(int(c) for c in other[0])


def _ensemble_box_point(model: TreeEnsemble, box: Sequence[int], class_index: int,
                        prefer: Sequence[int] | None) -> tuple[int, ...] | None:
    """A point of the box of another class than ``class_index``, by predicting every point
    of the box (``predict_cells``); the one closest to ``prefer`` (fewest cells changed)."""
    n = box_size(box)
    if n > MAX_POINTS:
        raise BruteForceLimitError(
            f"the box has {n} points, more than the limit of {MAX_POINTS} for enumerating a "
            "tree ensemble's points; use sample_box_counterexample (evidence, not proof)",
            limit="max_points")
    points = box_points(box)
    other = points[predict_polled(model, points) != class_index]
    if not len(other):
        return None
    if prefer is not None:
        other = other[np.argsort((other != np.asarray(prefer)).sum(axis=1), kind="stable")]
    return tuple(int(c) for c in other[0])


POLL_POINTS = 4096
"""Points predicted per ``model.predict_cells`` call by :func:`predict_polled` under an
active deadline (between calls, the deadline is polled)."""


def predict_polled(model: Model, points: np.ndarray) -> np.ndarray:
    """``model.predict_cells(points)`` (class positions, shape (N,)); under an active
    deadline (:mod:`xdt.explain.engines._deadline`), :data:`POLL_POINTS` points at a time,
    raising :class:`~xdt.explain.engines._deadline.EnumerationStopped` once it has passed,
    so that a check run inside a limited call (``verify=True``) shares its deadline."""
    if _deadline.active() is None or len(points) <= POLL_POINTS:
        _deadline.check()
        return np.asarray(model.predict_cells(points))
    parts = []
    for start in range(0, len(points), POLL_POINTS):
        _deadline.check()
        parts.append(np.asarray(model.predict_cells(points[start:start + POLL_POINTS])))
    return np.concatenate(parts)


def sample_box_counterexample(model: Model, box: Sequence[int], class_index: int,
                              n: int = 2000, *, rng: np.random.Generator | None = None,
                              reference: bool = True) -> tuple[int, ...] | None:
    """Cells of a random point of the box (one cell mask per feature) that the model does
    not predict as ``class_index``, or ``None`` when none of ``n`` sampled points does.

    Each point is predicted by ``model.predict_cells`` and, when ``reference`` and the
    model has a :attr:`~xdt.ir.TreeEnsemble.reference` (the library's own
    ``predict``), also by the library on a value of each cell: a point either gives another
    class counts. A ``None`` is evidence, not proof, of entailment. O(n * F) draws plus one
    prediction call each. With background constraints, the sampled points they exclude are
    dropped.
    """
    rng = rng if rng is not None else np.random.default_rng(0)
    cols = []
    for m in box:
        cells = np.asarray([j for j in range(int(m).bit_length()) if (int(m) >> j) & 1],
                           dtype=np.int64)
        cols.append(cells[rng.integers(len(cells), size=n)])
    points = np.stack(cols, axis=1)
    if getattr(model, "constraints", None):  # only the points the constraints allow
        points = points[model.constraints.allows(points)]
    bad = predict_polled(model, points) != class_index
    ref = getattr(model, "reference", None) if reference else None
    if ref is not None:
        rows = reference_rows(model, [[c.value(int(j)) for c, j in zip(model.cells, p,
                                                                      strict=True)]
                                      for p in points])
        labels = np.asarray(model.classes, dtype=object)
        bad |= np.asarray(ref(rows), dtype=object) != labels[class_index]
    hits = np.flatnonzero(bad)
    return None if not len(hits) else tuple(int(c) for c in points[hits[0]])


def reference_rows(model: Model, rows: Sequence[Sequence]) -> np.ndarray:
    """Rows of feature values in feature order as the library's ``predict`` takes them
    (:attr:`~xdt.ir.TreeEnsemble.reference`): float64, or object when a value is
    not a number (a category label)."""
    try:
        return np.asarray(rows, dtype=np.float64).reshape(-1, len(model.features))
    except (TypeError, ValueError):
        return np.asarray(rows, dtype=object).reshape(-1, len(model.features))


def reference_counterexample(model: Model, x, features: Iterable[str], n: int = 500, *,
                             rng: np.random.Generator | None = None, data=None
                             ) -> dict | None:
    """A sampled point agreeing with ``x`` on ``features`` that the library's own
    ``predict`` (``model.reference``, when set; else ``model.predict``) assigns another
    class than it assigns ``x``, or ``None`` when none of the ``n`` points
    (:func:`sample_points`, half drawn from ``data`` when given) does. Checks an AXp of an
    imported ensemble against the library itself; evidence, not proof."""
    ref = getattr(model, "reference", None)
    points = sample_points(model, x, list(features), n, rng=rng, data=data)
    names = list(model.features.names)
    values, _ = encode_instance(model.features, model.cells, x)
    if ref is None:
        label = _setting(model, x, False).label
        got = np.asarray(model.predict(points), dtype=object)
    else:
        label = np.asarray(ref(reference_rows(model, [list(values)])), dtype=object)[0]
        got = np.asarray(ref(reference_rows(model, points[names].to_numpy(dtype=object)
                                            .tolist())), dtype=object)
    differs = np.flatnonzero(got != label)
    return None if differs.size == 0 else points.iloc[int(differs[0])].to_dict()


def reachable_classes(model: Model, allowed: Sequence[int]) -> set:
    """The class labels of the points inside ``allowed``.

    Parameters
    ----------
    model : DecisionTree or DNF
    allowed : sequence of int, one per feature
        Bit mask of the cells each feature may take (``full_mask(n_cells)`` for a free
        feature, ``1 << cell`` for a feature fixed to one cell).

    Returns
    -------
    set
        For a tree, the labels of the reachable leaves; for a DNF, its classes that some
        point of ``allowed`` gets.

    Notes
    -----
    For a tree, a depth-first search from ``tree.root`` that narrows, along each branch,
    the allowed cells of the tested feature to those the branch takes, and abandons a
    branch whose feature is left with no cell. Because the allowed set is a product of
    per-feature cell sets and every test constrains one feature, a leaf is reached exactly
    when some point of ``allowed`` reaches it: the search is exact, also for features tested
    several times on a path. It visits each node at most once: O(n_nodes * (n_features +
    max cells)) time. For a DNF, :func:`counterexample_in_box` once per class.
    """
    if getattr(model, "constraints", None):  # the classes of the points they allow
        return _constrained_classes(model, allowed)
    if offers(model, TREES):
        points = box_points(allowed) if all(allowed) else np.zeros((0, len(allowed)),
                                                                   dtype=np.int64)
        if len(points) > MAX_POINTS:
            raise BruteForceLimitError(f"the box has {len(points)} points, more than the limit "
                                       f"of {MAX_POINTS} for enumerating a tree ensemble's "
                                       "points", limit="max_points")
        return {model.classes[int(c)] for c in np.unique(model.predict_cells(points))}
    if offers(model, PATHS):
        return {label for label, _ in _reachable_leaves(model, allowed)}
    if offers(model, RULES):
        if not all(allowed):
            return set()
        terms = _dnf_terms(model)
        return {label for c, label in enumerate(model.classes)
                if _first_rule_point(model, terms, list(allowed), lambda k, c=c: k == c,
                                     None) is not None}
    held = dict(enumerate(allowed))
    return {label for c, label in enumerate(model.classes)
            if counterexample_in_box(model, held, 1 - c) is not None}


def _constrained_classes(model: Model, allowed: Sequence[int]) -> set:
    """:func:`reachable_classes` of a model with background constraints: the classes of the
    points of ``allowed`` they allow (enumerated up to :data:`MAX_POINTS`, else by SAT on
    the checks' own CNF for a tree or a DNF)."""
    if not all(allowed):
        return set()
    if box_size(allowed) > MAX_POINTS:
        if offers(model, TREES):
            raise BruteForceLimitError(f"the box has {box_size(allowed)} points, more than the "
                                       f"limit of {MAX_POINTS} for enumerating a tree "
                                       "ensemble's points", limit="max_points")
        return sat_reachable_classes(model, list(allowed))
    points = box_points(allowed)
    points = points[model.constraints.allows(points)]
    return {model.classes[int(c)] for c in np.unique(model.predict_cells(points))}


def _point(model: Model, setting: _Setting, masks: Sequence[int]) -> dict:
    """A concrete point (name -> value) inside the per-feature cell sets ``masks``: the
    instance's own value where its cell is allowed, else a value of the lowest allowed cell."""
    out = {}
    for f, (c, m) in enumerate(zip(model.cells, masks, strict=True)):
        if (m >> setting.cells[f]) & 1:
            out[c.name] = setting.values[f]
        else:
            out[c.name] = c.value((m & -m).bit_length() - 1)
    constraints = getattr(model, "constraints", None)
    if constraints and constraints.linked:  # values of ordered features that keep the order
        point = [model.cells[f].cell_of(out[c.name]) for f, c in enumerate(model.cells)]
        for f, v in constraints.realize(setting.values, setting.cells, point).items():
            out[model.cells[f].name] = v
    return out


def _find_other(model: Model, setting: _Setting, allowed: Sequence[int]) -> dict | None:
    point = counterexample_in_box(model, dict(enumerate(allowed)),
                                  model.classes.index(setting.label), setting.cells)
    return None if point is None else _point(model, setting, [1 << j for j in point])


def _fixed_allowed(model: Model, setting: _Setting, fixed: Iterable[int]) -> list[int]:
    allowed = [full_mask(c.n_cells) for c in model.cells]
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
        ``model.predict`` assigns another class.
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


def check_axp(model: Model, x, features: Iterable[str], *,
              path_restricted: bool = False) -> AxpCheck:
    """Check that ``features`` is an AXp of ``model``'s prediction for ``x``, independently.

    Parameters
    ----------
    model : DecisionTree or DNF
    x : dict, sequence or pandas Series
        The instance (as for :class:`xdt.Explainer`).
    features : iterable of str
        The feature names (or an :class:`~xdt.explain.Explanation`).
    path_restricted : bool
        Hold fixed features to the literals of ``x``'s path instead of ``x``'s cells (trees
        only).

    Returns
    -------
    AxpCheck
        ``entails`` from :func:`reachable_classes`; for each feature of the set, a concrete
        counterexample point of another class once that feature is freed (from a reachable
        leaf of a tree, or :func:`counterexample_in_box` for a DNF), or ``None``.

    Notes
    -----
    For a tree, ``1 + |features|`` depth-first searches: O((1 + k) * n_nodes * n_features)
    for a set of ``k`` features; for a DNF, as many box searches
    (:func:`counterexample_in_box`). Minimality is only checked feature by feature, which
    suffices because entailment is monotone in the set of fixed features. The points are
    built from cell values (:meth:`IntervalCells.value`, the domain values) and the
    instance's own values;
    callers may confirm them with ``model.predict``.
    """
    s = _setting(model, x, path_restricted)
    fixed = sorted(set(_positions(model, features)))
    allowed = _fixed_allowed(model, s, fixed)
    reachable = reachable_classes(model, allowed)
    entails = reachable == {s.label}
    drops = {}
    for f in fixed:
        rest = [g for g in fixed if g != f]
        drops[model.features[f].name] = _find_other(model, s, _fixed_allowed(model, s, rest))
    return AxpCheck(
        features=tuple(model.features[f].name for f in fixed),
        prediction=s.label,
        entails=entails,
        reachable=reachable,
        counterexample=None if entails else _find_other(model, s, allowed),
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


def cell_space(model: Model, max_points: int = MAX_POINTS) -> np.ndarray:
    """Every point of the product of the features' cells, shape ``(N, n_features)``.

    Raises
    ------
    BruteForceLimitError
        (a ``ValueError``) When ``N`` exceeds ``max_points``.
    """
    sizes = [c.n_cells for c in model.cells]
    n = int(np.prod(sizes, dtype=object)) if sizes else 1
    if n > max_points:
        raise BruteForceLimitError(
            f"the cell space of this model has {n} points ({' x '.join(map(str, sizes))}), more "
            f"than the brute-force limit of {max_points}; use a smaller model, or check "
            "explanations with check_axp (polynomial) instead", limit="max_points")
    grids = np.meshgrid(*[np.arange(k, dtype=np.int64) for k in sizes], indexing="ij")
    return np.stack([g.reshape(-1) for g in grids], axis=1).reshape(n, len(sizes))


def brute_force(model: Model, x, *, path_restricted: bool = False,
                max_points: int = MAX_POINTS) -> BruteForce:
    """All AXps and all CXps of ``model``'s prediction for ``x``, by exhaustive enumeration.

    Parameters
    ----------
    model : DecisionTree or DNF
    x : dict, sequence or pandas Series
        The instance.
    path_restricted : bool
        Candidates are the features on ``x``'s path, each held to the path's literal cell
        set ``path.masks[f]`` (trees only); otherwise all features, each held to ``x``'s
        cell.
    max_points : int
        Size guard on the cell space.

    Returns
    -------
    BruteForce

    Raises
    ------
    BruteForceLimitError
        (a ``ValueError``) When the cell space has more than ``max_points`` points, or there
        are more than ``MAX_CANDIDATES`` candidate features.

    Notes
    -----
    With background constraints (``model.constraints``), the points they exclude
    (:meth:`~xdt.ir._constraints.Constraints.allows`) are dropped first: explanations are
    then those of the points that exist. Every point of the cell space (``N`` = product of
    the features' cell counts) is predicted at once with ``model.predict_cells`` (a
    tree's compiled node tables, a DNF's term-by-term test). For each point of another
    class, the set of candidate features on which it lies outside the allowed cells is the
    set of fixed features it escapes; a set ``S`` entails the prediction exactly when no such point
    agrees with ``x`` on ``S``. Every one of the ``2^k`` subsets of the ``k`` candidates is
    tested against the distinct escape sets: O(N * F + 2^k * N) time, O(N * F) memory.
    AXps are the entailing subsets none of whose one-smaller subsets entails, CXps the
    subsets ``T`` whose complement does not entail while every complement of ``T`` minus
    one feature does (entailment is monotone, so one-feature checks give subset-minimality).
    """
    s = _setting(model, x, path_restricted)
    if len(s.candidates) > MAX_CANDIDATES:
        raise BruteForceLimitError(
            f"{len(s.candidates)} candidate features: too many subsets to enumerate (limit "
            f"{MAX_CANDIDATES}); check explanations with check_axp (polynomial) instead",
            limit="MAX_CANDIDATES")
    points = cell_space(model, max_points)
    if getattr(model, "constraints", None):  # the points the background constraints allow
        points = points[model.constraints.allows(points)]
    classes = np.asarray(model.predict_cells(points), dtype=np.int64)
    predicted = model.classes.index(s.label)
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
    names = model.features.names

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


def brute_force_axps(model: Model, x, path_restricted: bool = False,
                     max_points: int = MAX_POINTS) -> set[frozenset[str]]:
    """All AXps of ``model``'s prediction for ``x`` as sets of feature names, by brute force.

    See :func:`brute_force` (same parameters, errors and complexity).
    """
    return set(brute_force(model, x, path_restricted=path_restricted,
                           max_points=max_points).axps)


def brute_force_cxps(model: Model, x, path_restricted: bool = False,
                     max_points: int = MAX_POINTS) -> set[frozenset[str]]:
    """All CXps of ``model``'s prediction for ``x`` as sets of feature names, by brute force.

    See :func:`brute_force` (same parameters, errors and complexity).
    """
    return set(brute_force(model, x, path_restricted=path_restricted,
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


def sample_points(model: Model, x, features: Iterable[str], n: int = 200, *,
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
    values, _ = encode_instance(model.features, model.cells, x)
    fixed = set(_positions(model, features))
    from_data = np.zeros(n, dtype=bool)
    if data is not None:
        from_data[::2] = True
    columns = {}
    for f, c in enumerate(model.cells):
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


def sample_counterexample(model: Model, x, features: Iterable[str], n: int = 200, *,
                          rng: np.random.Generator | None = None, data=None) -> dict | None:
    """A sampled point agreeing with ``x`` on ``features`` that ``model.predict`` assigns
    another class, or ``None`` when none of the ``n`` points (see :func:`sample_points`)
    changes the prediction. A ``None`` is evidence, not proof, of entailment.

    Notes
    -----
    One vectorised ``model.predict`` call on the ``n`` points.
    """
    label = _setting(model, x, False).label
    points = sample_points(model, x, list(features), n, rng=rng, data=data)
    differs = np.flatnonzero(model.predict(points) != label)
    return None if differs.size == 0 else points.iloc[int(differs[0])].to_dict()


# ---------------------------------------------------------------------- SAT entailment
DEFAULT_SAT_SOLVER = "glucose4"
"""PySAT solver of the SAT checks (deliberately not the SAT engine's default, CaDiCaL)."""


class _OneHotCnf:
    """Shared part of :class:`TreeCnf` and :class:`DnfCnf`: one-hot cell variables for every
    feature (ordinal ones included) and one class variable per class."""

    model: Model
    cell_vars: list[list[int]]
    class_vars: list[int]
    clauses: list[list[int]]

    def _start(self, model: Model) -> None:
        self.model = model
        self._top = 0
        self.clauses = []
        self.cell_vars = [[self._new() for _ in range(c.n_cells)] for c in model.cells]
        self.class_vars = [self._new() for _ in model.classes]
        for lits in self.cell_vars:
            self._exactly_one(lits)
        constraints = getattr(model, "constraints", None)
        if constraints:
            self._constraints(constraints)

    def _constraints(self, constraints) -> None:
        """The model's background constraints over the one-hot cell variables (independent
        of the SAT engine's order encoding): per rule ``(when, unless)`` the clause "some
        ``when`` literal fails or some ``unless`` literal holds", each literal a disjunction
        of cell variables; per ordering ``x <= y`` (shared cells), ``[x = i] -> OR_{j >= i}
        [y = j]``."""
        for when, unless in constraints.rules:
            clause = [v for f, m in when for j, v in enumerate(self.cell_vars[f])
                      if not (m >> j) & 1]
            clause += [v for f, m in unless for j, v in enumerate(self.cell_vars[f])
                       if (m >> j) & 1]
            self.clauses.append(clause)
        for a, b, _ in constraints.orders:
            ys = self.cell_vars[b]
            self.clauses.extend([-x] + ys[i:] for i, x in enumerate(self.cell_vars[a]))

    @property
    def n_vars(self) -> int:
        return self._top

    def _new(self) -> int:
        self._top += 1
        return self._top

    def _equivalent(self, term: Mapping[int, int]) -> int:
        """A new variable ``t`` equivalent to ``term`` (feature -> allowed cells):
        ``-t OR (OR_{j in p_f} [f = j])`` per feature, and ``t OR OR_f OR_{j not in p_f}
        [f = j]`` (if every literal holds, so does ``t``)."""
        t = self._new()
        back = [t]
        for f, mask in term.items():
            self.clauses.append([-t] + [v for j, v in enumerate(self.cell_vars[f])
                                        if (mask >> j) & 1])
            back.extend(v for j, v in enumerate(self.cell_vars[f]) if not (mask >> j) & 1)
        self.clauses.append(back)
        return t

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


class TreeCnf(_OneHotCnf):
    """A CNF of a decision tree's nodes over one-hot cell variables.

    Independent of the SAT engine's encoding (:class:`xdt.explain.engines.ModelEncoding`, which
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
        self._start(tree)
        self.node_vars: list[int] = []
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


class DnfCnf(_OneHotCnf):
    """A CNF of a DNF over one-hot cell variables, with a variable *equivalent* to each term.

    Independent of the SAT engine's encoding (:class:`xdt.explain.engines.ModelEncoding`, which
    uses an order encoding for ordinal features and, for "the DNF is true", term variables
    that only imply their terms): it reads the terms' cell masks from the DNF's compiled
    literals.

    Parameters
    ----------
    dnf : DNF

    Attributes
    ----------
    cell_vars, class_vars, clauses
        As :class:`TreeCnf` (``class_vars``: ``[y_0, y_1]``, the point is predicted
        ``classes[0]`` / ``classes[1]``).
    term_vars : list of int
        One per term: ``t_p <-> AND_f OR_{j in p_f} cell_vars[f][j]``, where ``p_f`` is the
        intersection of term ``p``'s conditions on feature ``f``.

    Notes
    -----
    Clauses: ``-t_p OR (OR_{j in p_f} [f = j])`` per constrained feature ``f`` of ``p``, and
    ``t_p OR OR_f OR_{j not in p_f} [f = j]`` (if every literal holds, so does ``t_p``);
    ``y_1 <-> OR_p t_p`` and ``y_0 <-> not y_1``. With the one-hot constraints, for any point
    ``y_c`` is true exactly when the DNF predicts ``classes[c]``. Size: ``sum(n_cells) + 2 +
    n_terms`` variables (plus counter variables for features of more than 5 cells), and
    clauses with O(n_terms * sum(n_cells)) literals.
    """

    def __init__(self, dnf: DNF):
        self._start(dnf)
        self.term_vars = [self._equivalent(term) for term in _dnf_terms(dnf)]
        y0, y1 = self.class_vars
        self.clauses.append([-y1] + self.term_vars)
        self.clauses.extend([-t, y1] for t in self.term_vars)
        self.clauses.extend([[y0, y1], [-y0, -y1]])


class DecisionListCnf(_OneHotCnf):
    """A CNF of a decision list over one-hot cell variables, with variables *equivalent* to
    each rule's term, to "no rule up to ``i`` fires" and to each class.

    Independent of the SAT engine's encoding (:class:`xdt.explain.engines.ModelEncoding`, which
    uses an order encoding for ordinal features and one clause per rule of a class saying
    "an earlier rule fires or this one does not"): this one chains the rules.

    Parameters
    ----------
    model : DecisionList

    Attributes
    ----------
    cell_vars, class_vars, clauses
        As :class:`TreeCnf` (``class_vars[c]``: the list predicts ``classes[c]``).
    term_vars : list of int
        ``t_i``, equivalent to rule ``i``'s term (as :class:`DnfCnf`).
    none_vars : list of int
        ``n_i <-> n_{i-1} AND not t_i`` (``n_{-1}`` true): no rule up to ``i`` fires.

    Notes
    -----
    Rule ``i`` decides exactly when ``n_{i-1} AND t_i``; ``y_c`` is equivalent to the
    disjunction of that for the rules of class ``c``, and of ``n_{m-1}`` (no rule fires)
    when ``c`` is the default. With the one-hot constraints, for any point exactly one
    ``y_c`` is true: the list's prediction. Size: ``sum(n_cells) + 3 n_rules + n_classes``
    variables (plus counter variables), clauses with O(n_rules * sum(n_cells)) literals.
    """

    def __init__(self, model: DecisionList):
        self._start(model)
        self.term_vars: list[int] = []
        self.none_vars: list[int] = []
        deciding: list[list[int]] = [[] for _ in model.classes]
        before: int | None = None  # n_{i-1}; None: true
        for i, term in enumerate(_dnf_terms(model)):
            t = self._equivalent(term)
            self.term_vars.append(t)
            d = self._new()  # rule i decides: n_{i-1} AND t_i
            self.clauses.extend([[-d, t], [d, -t] + ([-before] if before else [])])
            if before:
                self.clauses.append([-d, before])
            deciding[int(model.rule_class[i])].append(d)
            n = self._new()  # n_i <-> n_{i-1} AND not t_i
            self.clauses.extend([[-n, -t], [n, t] + ([-before] if before else [])])
            if before:
                self.clauses.append([-n, before])
            self.none_vars.append(n)
            before = n
        if before is None:  # no rules: the default always
            always = self._new()
            self.clauses.append([always])
            before = always
        deciding[model.default_class].append(before)
        for y, ds in zip(self.class_vars, deciding, strict=True):
            self.clauses.append([-y] + ds)
            self.clauses.extend([-d, y] for d in ds)


def _cnf(model: Model) -> _OneHotCnf:
    """The checks' own CNF of ``model``: :class:`TreeCnf`, :class:`DnfCnf` or
    :class:`DecisionListCnf`."""
    if offers(model, PATHS):
        return TreeCnf(model)
    if offers(model, RULES):
        return DecisionListCnf(model)
    return DnfCnf(model)


Held = Mapping[str, int] | Mapping[int, int] | Sequence[int]
"""Cell sets features are held to: by feature name or position, or one mask per feature."""


def _held_positions(model: Model, held: Held) -> dict[int, int]:
    """``held`` as position -> mask: a mapping keyed by feature name or position, or a
    sequence of one mask per feature (as :func:`reachable_classes` takes)."""
    if isinstance(held, Mapping):
        return {(model.features.index(f) if isinstance(f, str) else int(f)): int(m)
                for f, m in held.items()}
    masks = list(held)
    if len(masks) != len(model.features):
        raise ParameterError(f"held: {len(masks)} masks for {len(model.features)} features; "
                             "give one cell mask per feature, or a mapping")
    return dict(enumerate(int(m) for m in masks))


_NOT_INCREMENTAL = frozenset(SolverNames.kissat404 + SolverNames.lingeling)
"""PySAT solvers that cannot take assumptions over several calls (Kissat ignores them;
Lingeling aborts on a variable it eliminated)."""


def _open_solver(cnf: _OneHotCnf, solver: str) -> Solver:
    if solver in _NOT_INCREMENTAL:
        raise EngineNotAvailableError(f"SAT solver {solver!r} cannot solve under assumptions "
                                      f"repeatedly; use another one, e.g. "
                                      f"{DEFAULT_SAT_SOLVER!r}")
    return Solver(name=solver, bootstrap_with=cnf.clauses)


def _other_class_point(s: Solver, cnf: _OneHotCnf, held: Mapping[int, int],
                       class_index: int) -> tuple[int, ...] | None:
    if s.solve(assumptions=cnf.held_assumptions(held) + [-cnf.class_vars[class_index]]):
        return cnf.decode(s.get_model())
    return None


def _sat_classes(s: Solver, cnf: _OneHotCnf, held: Mapping[int, int]) -> set:
    base = cnf.held_assumptions(held)
    return {label for label, y in zip(cnf.model.classes, cnf.class_vars, strict=True)
            if s.solve(assumptions=base + [y])}


def sat_counterexample(model: Model, held: Held, label: str | int, *,
                       solver: str = DEFAULT_SAT_SOLVER) -> tuple[int, ...] | None:
    """Cells of a point inside the ``held`` cell sets that ``model`` does not predict as
    ``label``, or ``None`` when there is none; by one SAT call on :class:`TreeCnf` (a
    tree), :class:`DnfCnf` (a DNF) or :class:`DecisionListCnf` (a decision list).

    Parameters
    ----------
    model : DecisionTree or DNF
    held : mapping or sequence of int
        Per feature (by name or position), the bit mask of the cells it may take; features
        not listed are free. Or a sequence of one mask per feature. Any cell set is allowed,
        also a non-interval one for an ordinal feature.
    label : str or int
        A class label of ``model``.
    solver : str
        PySAT solver name (default ``"glucose4"``).

    Returns
    -------
    tuple of int or None
        One cell per feature.

    Notes
    -----
    Builds the CNF (size O(n_nodes * max_cells + sum(n_cells)) for a tree, O(n_terms *
    sum(n_cells)) for a DNF) and solves it once under assumptions, inside a ``with`` block
    that releases the solver.
    """
    cnf = _cnf(model)
    positions = _held_positions(model, held)
    with _open_solver(cnf, solver) as s:
        return _other_class_point(s, cnf, positions, model.classes.index(label))


def sat_entails(model: Model, held: Held, label: str | int, *,
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
    return sat_counterexample(model, held, label, solver=solver) is None


def sat_reachable_classes(model: Model, held: Held, *,
                          solver: str = DEFAULT_SAT_SOLVER) -> set:
    """The class labels of the points inside the ``held`` cell sets (the SAT counterpart of
    :func:`reachable_classes`): one SAT call per class on one solver, released on return.
    ``held`` and ``solver`` as in :func:`sat_counterexample`."""
    cnf = _cnf(model)
    positions = _held_positions(model, held)
    with _open_solver(cnf, solver) as s:
        return _sat_classes(s, cnf, positions)


def check_axp_sat(model: Model, x, features: Iterable[str], *,
                  path_restricted: bool = False,
                  solver: str = DEFAULT_SAT_SOLVER) -> AxpCheck:
    """Check that ``features`` is an AXp of ``model``'s prediction for ``x`` with SAT calls.

    The same check and report as :func:`check_axp`, with every entailment question answered
    by a SAT solver on :class:`TreeCnf` (:class:`DnfCnf` for a DNF) instead of a search:
    for models of any size (no cell-space enumeration), and independent of both explanation
    engines.

    Parameters
    ----------
    model : DecisionTree or DNF
    x : dict, sequence or pandas Series
        The instance.
    features : iterable of str
        Feature names (or an :class:`~xdt.explain.Explanation`).
    path_restricted : bool
        Hold fixed features to the literals of ``x``'s path instead of ``x``'s cells (trees
        only).
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
    One CNF (see :class:`TreeCnf` and :class:`DnfCnf` for its size) and one solver, kept for all
    ``n_classes + 2 + k`` incremental calls under assumptions for a set of ``k`` features,
    and released on return (also on errors). Minimality is checked feature by feature,
    which suffices because entailment is monotone in the set of fixed features.
    """
    st = _setting(model, x, path_restricted)
    fixed = sorted(set(_positions(model, features)))
    cnf = _cnf(model)
    c = model.classes.index(st.label)

    def held(fs: Iterable[int]) -> dict[int, int]:
        return {f: st.allowed[f] for f in fs}

    def point(cells: tuple[int, ...] | None) -> dict | None:
        return None if cells is None else _point(model, st, [1 << j for j in cells])

    with _open_solver(cnf, solver) as s:
        reachable = _sat_classes(s, cnf, held(fixed))
        other = _other_class_point(s, cnf, held(fixed), c)
        drops = {model.features[f].name:
                 point(_other_class_point(s, cnf, held(g for g in fixed if g != f), c))
                 for f in fixed}
    return AxpCheck(
        features=tuple(model.features[f].name for f in fixed),
        prediction=st.label,
        entails=other is None,
        reachable=reachable,
        counterexample=point(other),
        drop_counterexamples=drops)


def is_cxp_sat(model: Model, x, features: Iterable[str], *,
               solver: str = DEFAULT_SAT_SOLVER) -> bool:
    """Whether ``features`` is a CXp of ``model``'s prediction for ``x``, by SAT calls on the
    checks' own CNF (:class:`TreeCnf`, :class:`DnfCnf` or :class:`DecisionListCnf`),
    independent of both explanation engines.

    A set ``T`` is a CXp when some point agreeing with ``x`` outside ``T`` is predicted
    another class, and, for each ``t`` in ``T``, every point agreeing with ``x`` outside
    ``T`` and on ``t`` keeps the prediction (Izza, Ignatiev & Marques-Silva, "On Explaining
    Decision Trees", Section 2): ``1 + |T|`` incremental calls on one solver.

    Parameters
    ----------
    model : DecisionTree, DNF or DecisionList
    x : dict, sequence or pandas Series
        The instance.
    features : iterable of str
        Feature names (or an :class:`~xdt.explain.Explanation`).
    solver : str
        PySAT solver name (default ``"glucose4"``).
    """
    st = _setting(model, x, False)
    changed = set(_positions(model, features))
    kept = [f for f in range(len(model.features)) if f not in changed]
    cnf = _cnf(model)
    c = model.classes.index(st.label)
    with _open_solver(cnf, solver) as s:
        if _other_class_point(s, cnf, {f: st.allowed[f] for f in kept}, c) is None:
            return False
        return all(_other_class_point(s, cnf, {f: st.allowed[f] for f in kept + [t]}, c)
                   is None for t in changed)
