"""k-AXp-interpretability: exact certificate complexity, and the induced-matching criterion of
DNFs. From Cooper, Bousdira & Carbonnel, "Interpretable DNFs", IJCAI 2025.

* A classifier is **k-AXp-interpretable** when every instance has an AXp (abductive
  explanation, Definition 1) of at most ``k`` features (Definition 2). The least such ``k``
  is the classifier's **certificate complexity** (Section 2; by their Proposition 1, for a
  binary classifier over boolean features it is the least ``k`` for which both the
  classifier and its complement are k-DNFs). :func:`certificate_complexity` computes it
  exactly, by enumeration over the model's cell space; :func:`is_k_axp_interpretable` asks
  whether it is at most ``k``.
* For a DNF ``D``, the bipartite graph ``G_D`` joins every literal of ``D`` to the terms that
  contain it (:func:`literal_term_graph`). When ``D`` is a k-DNF and the largest induced
  matching of ``G_D`` has at most ``k`` edges, ``D`` is k-AXp-interpretable (Section 4,
  Lemma 2): :func:`max_induced_matching` computes that matching exactly (MaxSAT) and
  :func:`mim_criterion` applies the lemma. Nested k-DNFs always pass it (Proposition 2).
  The criterion is only *sufficient*: ``(a AND b) OR (NOT a AND b) OR c`` computes
  ``b OR c``, of certificate complexity 2, yet its graph has an induced matching of 3 edges.

Features of any kind
--------------------
The paper works over boolean features. xdt works over **cells** (see :mod:`xdt.ir._cells`):
an instance is one cell per feature, and fixing a feature fixes its cell — points of the
same cells are indistinguishable to the model, so AXps over the cell space are exactly the
AXps over feature values. For the graph, a *literal* of a DNF is one of its conditions as a
set of cells, with an ordinal interval ``a < x <= b`` split into its one-sided parts
``a < x`` and ``x <= b`` (the literals of the usual binarisation of thresholds, which the
paper's remark on non-boolean features points to, and the same literals
:meth:`xdt.ir.DNF.complement` negates); a condition every value meets (``b in {0, 1}``) is
no literal. Conditions equal as sets of cells are one literal. For binary features the
literals are exactly the paper's ``x = 0`` / ``x = 1``. The size of a term is the number of
*features* it tests (``1 < x AND x <= 3`` counts once). Lemma 2 then holds as stated: the
negation of a literal is again one literal (the other cells of its feature), so a minimal
transversal of ``t`` literals gives a term of the complement that tests at most ``t``
features.

Examples
--------
>>> from xdt.ir import DNF, Condition, Feature
>>> bits = [Feature(n, "binary") for n in "abcd"]
>>> d = DNF(bits, [0, 1], [[Condition("a", (1,)), Condition("b", (1,))],
...                        [Condition("c", (1,)), Condition("d", (1,))]])
>>> certificate_complexity(d), is_k_axp_interpretable(d, 1)
(2, False)
>>> size, matching = max_induced_matching(literal_term_graph(d))
>>> size, mim_criterion(d, 2)
(2, True)
"""

from __future__ import annotations

import itertools
import math
import threading
import time

import networkx as nx
import numpy as np

from xdt.errors import (
    ComputationLimitError,
    EngineNotAvailableError,
    NotFittedError,
    ParameterError,
    UnsupportedEstimatorError,
)
from xdt.ir._cells import full_mask
from xdt.ir._dnf import DNF
from xdt.ir._protocol import PATHS, TERMS, offers
from xdt.ir._terms import Literal

__all__ = ["DEFAULT_MAX_EDGES", "DEFAULT_MAX_POINTS", "DEFAULT_MAX_WORK",
           "certificate_complexity", "is_induced_matching", "is_k_axp_interpretable",
           "literal_term_graph", "max_induced_matching", "mim_criterion", "term_literals"]

DEFAULT_MAX_POINTS = 2 ** 20
"""Default largest cell space (number of points) :func:`certificate_complexity` enumerates."""
DEFAULT_MAX_WORK = 2 ** 33
"""Default largest number of table entries :func:`certificate_complexity` visits (about
ten seconds to a minute); parity of 16 bits needs ``2**32``."""
DEFAULT_MAX_EDGES = 5000
"""Default largest number of edges :func:`max_induced_matching` accepts."""

_CHUNK = 1 << 16  # rows predicted at once when building the truth table


# ---------------------------------------------------------------------- argument checks
def _check_count(value: object, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum:
        raise ParameterError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _deadline(time_limit: object) -> float | None:
    if time_limit is None:
        return None
    if isinstance(time_limit, bool) or not isinstance(time_limit, int | float) \
            or not math.isfinite(time_limit) or time_limit <= 0:
        raise ParameterError(
            f"time_limit must be a positive number of seconds or None, got {time_limit!r}")
    return time.monotonic() + float(time_limit)


def _out_of_time(deadline: float | None, time_limit: float | None, what: str) -> None:
    if deadline is not None and time.monotonic() > deadline:
        raise ComputationLimitError(
            f"{what} reached its time limit of {time_limit} s without an answer; raise "
            "time_limit or use a smaller model", limit="time_limit")


# ---------------------------------------------------------------------- the truth table
def _inner_model(model: object) -> object | None:
    """The xdt model itself, or a fitted learner's (``model_``, ``tree_`` or ``dnf_``)."""
    if (offers(model, TERMS) or offers(model, PATHS)):
        return model
    for attribute in ("model_", "tree_", "dnf_"):
        inner = getattr(model, attribute, None)
        if (offers(inner, TERMS) or offers(inner, PATHS)):
            return inner
    return None


def _not_supported(model: object, needs: str) -> Exception:
    name = type(model).__name__
    if hasattr(model, "fit") and hasattr(model, "get_params"):
        return NotFittedError(
            f"this {name} has no fitted model (no model_ or tree_ attribute); call fit first "
            "(a scikit-learn tree: import it with xdt.from_sklearn(estimator))")
    return UnsupportedEstimatorError(f"{needs}, got {name}")


def _classifier(model: object):
    """``(model, cells, predict_cells, tested features)`` of a model (a learner's own)."""
    inner = _inner_model(model)
    if inner is None:
        if not (hasattr(model, "cells") and hasattr(model, "predict_cells")):
            raise _not_supported(
                model, "expected an xdt model (DNF, NestedKDNF, DecisionTree, a fitted xdt "
                "learner, any model with cells and predict_cells) or a truth table (an "
                "integer numpy array)")
        inner = model
    cells = tuple(inner.cells)
    if hasattr(inner, "predict_cells"):
        predict = inner.predict_cells
    else:  # a DecisionTree of a version without predict_cells
        index = np.asarray([p.class_index for p in inner.paths], dtype=np.int64)

        def predict(rows: np.ndarray) -> np.ndarray:
            return index[inner.leaf_paths(rows)]
    tested: set[int] | None = None
    if offers(inner, PATHS):
        tested = {f for p in inner.paths for f in p.masks}
    elif isinstance(getattr(inner, "terms", None), tuple) and all(
            hasattr(t, "literals") for t in inner.terms):
        tested = {lit.feature for t in inner.terms for lit in t.literals
                  if lit.cells != full_mask(cells[lit.feature].n_cells)}
    used = sorted(tested) if tested is not None else list(range(len(cells)))
    return inner, cells, predict, [f for f in used if cells[f].n_cells > 1]


def _truth_table(model: object, max_points: int, deadline: float | None,
                 time_limit: float | None) -> np.ndarray:
    """The class index at every point of the cell space of the features the model tests:
    an integer array of shape ``(c_1, ..., c_m)``."""
    if not isinstance(model, np.ndarray) and getattr(_inner_model(model), "constraints", None):
        raise EngineNotAvailableError(
            "the certificate complexity is computed over the whole cell space, and this model "
            "carries background constraints (xdt.ir._constraints), which exclude some of its "
            "points; the measure does not take them into account: compute it on "
            "model.with_constraints(None), or take smallest_axp's sizes row by row with "
            "xdt.Explainer(model)")
    if isinstance(model, np.ndarray):
        if not (np.issubdtype(model.dtype, np.integer) or model.dtype == bool):
            raise ParameterError(
                f"a truth table must be an array of class indices (integers), got dtype "
                f"{model.dtype}")
        if model.size == 0:
            raise ParameterError(f"a truth table needs at least one point, got shape "
                                 f"{model.shape}")
        if model.size > max_points:
            raise ComputationLimitError(
                f"the truth table has {model.size} points, more than max_points = "
                f"{max_points}", limit="max_points")
        return _compact(np.asarray(model, dtype=np.int64))
    inner, cells, predict, used = _classifier(model)
    shape = tuple(cells[f].n_cells for f in used)
    n_points = math.prod(shape)
    if n_points > max_points:
        sizes = " x ".join(str(c) for c in shape)
        raise ComputationLimitError(
            f"the cell space of the {len(used)} feature(s) the model tests has {n_points} "
            f"points ({sizes} cells), more than max_points = {max_points}: the exact "
            "certificate complexity enumerates every point and every set of features; raise "
            "max_points, or use a model over fewer features or thresholds", limit="max_points")
    if offers(inner, TERMS):
        return _dnf_table(inner, used, shape, deadline, time_limit)
    table = np.empty(n_points, dtype=np.int64)
    for start in range(0, n_points, _CHUNK):
        stop = min(start + _CHUNK, n_points)
        rows = np.zeros((stop - start, len(cells)), dtype=np.int64)
        if used:
            rows[:, used] = np.stack(np.unravel_index(np.arange(start, stop), shape), axis=1)
        table[start:stop] = predict(rows)
        _out_of_time(deadline, time_limit, "certificate_complexity")
    return _compact(table.reshape(shape))


def _dnf_table(dnf: DNF, used: list[int], shape: tuple[int, ...], deadline: float | None,
               time_limit: float | None) -> np.ndarray:
    """The truth table of a DNF, term by term: ``classes[1]`` (1) on the box of cells where
    a term holds (the same predictions as ``predict_cells``, in time the sum of the boxes'
    sizes rather than points x literals)."""
    table = np.zeros(shape, dtype=np.uint8)
    axis = {f: a for a, f in enumerate(used)}
    for p, term in enumerate(dnf.terms):
        index: list = [slice(None)] * len(used)
        for f, mask in term.masks().items():
            if f in axis:
                index[axis[f]] = [c for c in range(shape[axis[f]]) if (mask >> c) & 1]
        table[np.ix_(*[np.arange(c)[i] for c, i in zip(shape, index, strict=True)])] = 1
        if p % 256 == 255:
            _out_of_time(deadline, time_limit, "certificate_complexity")
    return table


def _compact(table: np.ndarray) -> np.ndarray:
    """The table in the narrowest integer type (the transposed copies are then cheaper)."""
    low, high = int(table.min()), int(table.max())
    return table.astype(np.result_type(np.min_scalar_type(low), np.min_scalar_type(high)))


def _relevant(table: np.ndarray) -> np.ndarray:
    """The table without the axes it does not depend on (a feature the classifier ignores
    is in no AXp, so dropping it changes no smallest AXp)."""
    table = table.reshape(tuple(c for c in table.shape if c > 1))
    axis = 0
    while axis < table.ndim:
        if (table.min(axis=axis) == table.max(axis=axis)).all():
            table = table.take(0, axis=axis)
        else:
            axis += 1
    return table


def _smallest_level(table: np.ndarray, up_to: int | None, max_work: int,
                    deadline: float | None, time_limit: float | None) -> int:
    """The least ``s`` such that every point has a weak AXp of ``s`` features; stops after
    level ``up_to`` and returns ``up_to + 1`` when points are left without one."""
    n = table.ndim
    if n == 0 or table.min() == table.max():
        return 0
    shape = table.shape
    n_points = table.size
    resolved = np.zeros(shape, dtype=bool)
    work = 0
    top = n if up_to is None else min(n, up_to)
    for s in range(1, top + 1):
        if s == n:  # every point still open needs every (relevant) feature
            return n
        level = math.comb(n, s) * n_points
        if work + level > max_work:
            raise ComputationLimitError(
                f"the certificate complexity is at least {s}; proving more needs "
                f"{work + level} table visits, more than max_work = {max_work} "
                f"({n} relevant features, {n_points} points); raise max_work or use a "
                "smaller model", limit="max_work")
        for i, subset in enumerate(itertools.combinations(range(n), s)):
            rest = tuple(a for a in range(n) if a not in subset)
            block = math.prod(shape[a] for a in subset)
            # one row per assignment of the subset's axes: the points sharing it
            rows = np.ascontiguousarray(table.transpose(subset + rest)).reshape(block, -1)
            constant = rows.min(axis=1) == rows.max(axis=1)
            np.logical_or(resolved,
                          constant.reshape([shape[a] if a in subset else 1 for a in range(n)]),
                          out=resolved)
            if i % 16 == 15:
                _out_of_time(deadline, time_limit, "certificate_complexity")
                if resolved.all():
                    return s
        work += level
        _out_of_time(deadline, time_limit, "certificate_complexity")
        if resolved.all():
            return s
    return top + 1


def certificate_complexity(model, *, max_points: int = DEFAULT_MAX_POINTS,
                           max_work: int = DEFAULT_MAX_WORK,
                           time_limit: float | None = None) -> int:
    """The certificate complexity of a classifier: the largest, over all instances, of the
    size of a smallest AXp — exact.

    Cooper, Bousdira & Carbonnel, "Interpretable DNFs", IJCAI 2025, Section 2: a set ``S`` of
    features is a weak AXp of instance ``v`` when every point agreeing with ``v`` on ``S``
    gets ``v``'s class (Definition 1); the classifier is k-AXp-interpretable when every
    instance has an AXp of at most ``k`` features (Definition 2), and the least such ``k`` is
    its certificate complexity (for boolean classifiers, the least ``k`` for which it and its
    complement are k-DNFs, Proposition 1). Any number of classes is allowed.

    Method: the whole truth table, an array of shape ``(c_1, ..., c_m)`` of class indices
    over the cells of the ``m`` features the model tests, is built with the model's
    ``predict_cells``; features the table does not depend on are dropped (they are in no
    AXp), leaving ``n`` relevant ones. Then, for ``s = 1, 2, ...`` and every set ``S`` of
    ``s`` features, ``S`` is a weak AXp at exactly the points whose slice (the points that
    agree with them on ``S``) has one class — a minimum equal to the maximum over the axes
    outside ``S``, vectorised with numpy. The answer is the first ``s`` at which every point
    has such an ``S`` (a superset of a weak AXp is one). Cost: ``C(n, s)`` times the table
    size per level ``s`` — up to ``2**n`` times the table size (``4**n`` for ``n`` binary
    features). Measured on parity, the worst case (every level): 0.01 s for 10 binary
    features, 0.1 s for 12, 1.1 s for 14, 15 s for 16; a function of certificate complexity
    ``c`` over 20 features needs the levels up to ``c`` only (2 s for ``c <= 3``).

    Parameters
    ----------
    model : DNF, NestedKDNF, DecisionTree, fitted xdt learner, or numpy.ndarray
        Any model with ``cells`` and ``predict_cells``; a fitted xdt learner (its ``model_``
        or ``tree_`` is used); or directly a truth table: an integer array of class indices of shape
        ``(c_1, ..., c_n)``, one axis per feature and one entry per cell.
    max_points : int, default ``2**20``
        Largest cell space (product of the tested features' numbers of cells) to enumerate.
    max_work : int, default ``2**33``
        Largest number of table entries to visit (the sum of ``C(n, s) x table size`` over
        the levels ``s`` needed); checked before each level.
    time_limit : float, optional
        Seconds; checked while building the table and between sets of features.

    Returns
    -------
    int
        Between 0 (a constant classifier) and the number of features the model depends on.

    Raises
    ------
    ComputationLimitError
        The cell space exceeds ``max_points`` (``error.limit == "max_points"``), the next
        level would exceed ``max_work`` (``"max_work"``; the message gives the lower bound
        proved so far), or ``time_limit`` passed (``"time_limit"``).
    UnsupportedEstimatorError
        ``model`` is not a model xdt can enumerate (a ``TypeError``).
    NotFittedError
        ``model`` is an xdt learner that has not been fitted.
    ParameterError
        A limit is not a positive number; a truth table that is not integer or is empty.

    Examples
    --------
    >>> import numpy as np
    >>> parity = np.indices((2, 2, 2)).sum(axis=0) % 2
    >>> certificate_complexity(parity)
    3
    """
    max_points = _check_count(max_points, "max_points", 1)
    max_work = _check_count(max_work, "max_work", 1)
    deadline = _deadline(time_limit)
    table = _relevant(_truth_table(model, max_points, deadline, time_limit))
    return _smallest_level(table, None, max_work, deadline, time_limit)


def is_k_axp_interpretable(model, k: int, *, max_points: int = DEFAULT_MAX_POINTS,
                           max_work: int = DEFAULT_MAX_WORK,
                           time_limit: float | None = None) -> bool:
    """Whether every instance has an AXp of at most ``k`` features (Cooper, Bousdira &
    Carbonnel, "Interpretable DNFs", IJCAI 2025, Definition 2): exactly
    ``certificate_complexity(model) <= k``.

    Only the levels ``s <= k`` of :func:`certificate_complexity` are enumerated, so this is
    cheaper than the certificate complexity when ``k`` is small. Same parameters, limits and
    errors as :func:`certificate_complexity`; ``k`` must be an integer >= 0
    (:class:`~xdt.errors.ParameterError` otherwise).
    """
    k = _check_count(k, "k", 0)
    max_points = _check_count(max_points, "max_points", 1)
    max_work = _check_count(max_work, "max_work", 1)
    deadline = _deadline(time_limit)
    table = _relevant(_truth_table(model, max_points, deadline, time_limit))
    if k >= table.ndim:
        return True
    return _smallest_level(table, k, max_work, deadline, time_limit) <= k


# ---------------------------------------------------------------------- the graph G_D
def _require_dnf(dnf: object, what: str) -> DNF:
    inner = _inner_model(dnf)
    if offers(inner, TERMS):
        return inner
    raise _not_supported(
        dnf, f"{what} needs an xdt DNF (xdt.ir.DNF or NestedKDNF, or a fitted nested k-DNF "
        "learner); the criterion of Lemma 2 is about a DNF's terms (for any model, use "
        "certificate_complexity)")


def term_literals(dnf: DNF) -> list[tuple[Literal, ...]]:
    """The literals of each term of a DNF, as vertices of ``G_D`` (Cooper, Bousdira &
    Carbonnel, IJCAI 2025, Section 4).

    Each condition becomes its one-sided parts (:meth:`xdt.ir.Condition.split`), each
    part the IR :class:`~xdt.ir.Literal` of its cells; parts that every value meets are
    left out, and a literal is listed once per term.

    Returns
    -------
    list of tuple of Literal
        One tuple per term, in the order of ``dnf.terms``.

    Raises
    ------
    UnsupportedEstimatorError
        ``dnf`` is not a DNF (a ``TypeError``).
    """
    dnf = _require_dnf(dnf, "term_literals")
    out = []
    for term in dnf.conditions:
        lits: dict[Literal, None] = {}
        for cond in term:
            for part in cond.split():
                lit = dnf.literal(part)
                if lit.cells != full_mask(dnf.cells[lit.feature].n_cells):
                    lits[lit] = None
        out.append(tuple(lits))
    return out


def literal_term_graph(dnf: DNF) -> nx.Graph:
    """The bipartite graph ``G_D`` of a DNF ``D``: one vertex per literal of ``D``, one per
    term, and an edge when the literal is in the term (Cooper, Bousdira & Carbonnel,
    "Interpretable DNFs", IJCAI 2025, Section 4, before Lemma 2).

    Literals are those of :func:`term_literals` (ordinal intervals split into one-sided
    parts; see the module's notes).

    Parameters
    ----------
    dnf : DNF or NestedKDNF
        Or a fitted nested k-DNF learner (its ``model_``).

    Returns
    -------
    networkx.Graph
        Literal vertices are :class:`~xdt.ir.Literal` objects with attributes
        ``bipartite=0``, ``kind="literal"``, ``label`` (readable: ``"a = 1"``,
        ``"x <= 2.5"``) and ``feature`` (its name); term vertices are the terms' positions
        (``int``) with ``bipartite=1``, ``kind="term"``, ``label`` (``"term 0"``) and
        ``rule`` (the term as written). Every term is a vertex, even one without literals.

    Raises
    ------
    UnsupportedEstimatorError
        ``dnf`` is not a DNF (a ``TypeError``).
    """
    dnf = _require_dnf(dnf, "literal_term_graph")
    graph = nx.Graph(name=f"G_D of {dnf!r}")
    for p, (lits, rule) in enumerate(zip(term_literals(dnf), dnf.rules(), strict=True)):
        graph.add_node(p, bipartite=1, kind="term", label=f"term {p}", rule=str(rule))
        for lit in lits:
            if lit not in graph:
                cells = dnf.cells[lit.feature]
                graph.add_node(lit, bipartite=0, kind="literal",
                               label=cells.describe(lit.cells), feature=cells.name)
            graph.add_edge(lit, p)
    return graph


def _edges(graph: nx.Graph) -> list[tuple]:
    """The graph's edges, once each, without self-loops; a bipartite=0 end first."""
    seen: dict[frozenset, tuple] = {}
    for u, v in graph.edges():
        if u == v:
            continue
        if graph.nodes[u].get("bipartite") == 1 and graph.nodes[v].get("bipartite") == 0:
            u, v = v, u
        seen.setdefault(frozenset((u, v)), (u, v))
    return list(seen.values())


def is_induced_matching(graph: nx.Graph, edges) -> bool:
    """Whether ``edges`` (pairs of vertices) form an induced matching of ``graph``: they are
    edges of the graph, no two share a vertex, and no edge of the graph joins two of them."""
    edges = [tuple(e) for e in edges]
    if any(len(e) != 2 or not graph.has_edge(*e) or e[0] == e[1] for e in edges):
        return False
    ends = [set(e) for e in edges]
    if len(set().union(*ends)) != 2 * len(edges):
        return False
    owner = {v: i for i, e in enumerate(ends) for v in e}
    return not any(owner.get(w, i) != i for i, e in enumerate(ends)
                   for v in e for w in graph.neighbors(v))


def max_induced_matching(graph: nx.Graph, *, time_limit: float | None = None,
                         max_edges: int = DEFAULT_MAX_EDGES) -> tuple[int, list[tuple]]:
    """A maximum induced matching of a graph, exactly: its size ``mim(G)`` and its edges.

    An induced matching is a set of edges no two of which share a vertex or are joined by an
    edge of the graph (Cooper, Bousdira & Carbonnel, "Interpretable DNFs", IJCAI 2025,
    Section 4). It is a maximum independent set of the conflict graph of the edges, solved
    with PySAT's RC2 MaxSAT solver (with at-most-one detection, ``adapt=True``): one
    variable per edge, a soft unit clause per edge, and a hard clause ``NOT e OR NOT f`` for
    every conflicting pair (two edges touching the two ends of one graph edge, or one
    vertex).

    Parameters
    ----------
    graph : networkx.Graph
        Undirected; self-loops are ignored (they are in no matching).
    time_limit : float, optional
        Seconds for the MaxSAT solver.
    max_edges : int, default 5000
        Largest number of edges accepted. The problem is NP-hard; graphs of DNFs learned in
        practice (hundreds of edges) solve in well under a second.

    Returns
    -------
    size : int
    edges : list of tuple
        The matching's edges; for a graph of :func:`literal_term_graph`, ``(literal, term)``.

    Raises
    ------
    ComputationLimitError
        More than ``max_edges`` edges (``error.limit == "max_edges"``), or the time limit
        passed (``"time_limit"``).
    UnsupportedEstimatorError
        ``graph`` is not an undirected networkx graph (a ``TypeError``).
    """
    edges, conflicts = _conflicts(graph, max_edges, time_limit)
    return _solve(edges, conflicts, time_limit)


def _conflicts(graph: nx.Graph, max_edges: object, time_limit: object
               ) -> tuple[list[tuple], set[tuple[int, int]]]:
    """The graph's edges (numbered from 1 in the pairs) and their conflicting pairs ``(i, j)``,
    ``i < j``: edges that touch the two ends of one graph edge (or one vertex)."""
    if not isinstance(graph, nx.Graph) or graph.is_directed():
        raise UnsupportedEstimatorError(
            f"max_induced_matching needs an undirected networkx.Graph (e.g. "
            f"literal_term_graph(dnf)), got {type(graph).__name__}")
    max_edges = _check_count(max_edges, "max_edges", 0)
    _deadline(time_limit)
    edges = _edges(graph)
    if len(edges) > max_edges:
        raise ComputationLimitError(
            f"the graph has {len(edges)} edges, more than max_edges = {max_edges}; raise "
            "max_edges (the exact maximum induced matching is NP-hard) or use a smaller "
            "model", limit="max_edges")
    incident: dict = {}
    for i, (u, v) in enumerate(edges, start=1):
        incident.setdefault(u, []).append(i)
        incident.setdefault(v, []).append(i)
    conflicts: set[tuple[int, int]] = set()
    for u, v in edges:
        conflicts.update(itertools.combinations(sorted(set(incident[u]) | set(incident[v])), 2))
    return edges, conflicts


def _greedy(n_edges: int, conflicts: set[tuple[int, int]]) -> int:
    """The size of an induced matching found greedily (edges by fewest conflicts first): a
    lower bound of ``mim``."""
    degree = [0] * (n_edges + 1)
    neighbours: list[list[int]] = [[] for _ in range(n_edges + 1)]
    for a, b in conflicts:
        degree[a] += 1
        degree[b] += 1
        neighbours[a].append(b)
        neighbours[b].append(a)
    blocked = [False] * (n_edges + 1)
    size = 0
    for e in sorted(range(1, n_edges + 1), key=degree.__getitem__):
        if not blocked[e]:
            size += 1
            for f in neighbours[e]:
                blocked[f] = True
    return size


def _solve(edges: list[tuple], conflicts: set[tuple[int, int]],
           time_limit: float | None) -> tuple[int, list[tuple]]:
    """A maximum independent set of the conflict graph, with RC2."""
    from pysat.examples.rc2 import RC2
    from pysat.formula import WCNF

    if not edges:
        return 0, []
    wcnf = WCNF()
    for a, b in sorted(conflicts):
        wcnf.append([-a, -b])
    for i in range(1, len(edges) + 1):
        wcnf.append([i], weight=1)
    # adapt: the at-most-one constraints are found and relaxed as one (orders of magnitude
    # faster here than plain RC2 or a clique branch and bound)
    with RC2(wcnf, adapt=True, exhaust=True, minz=True) as rc2:
        timer = None
        if time_limit is not None:
            timer = threading.Timer(float(time_limit), rc2.interrupt)
            timer.start()
        try:
            model = rc2.compute(expect_interrupt=timer is not None)
        finally:
            if timer is not None:
                timer.cancel()
                timer.join()
    if model is None:  # the hard clauses are satisfiable (no edge): only a time-out
        raise ComputationLimitError(
            f"max_induced_matching reached its time limit of {time_limit} s ({len(edges)} "
            "edges) without an answer; raise time_limit", limit="time_limit")
    chosen = [edges[lit - 1] for lit in model if 0 < lit <= len(edges)]
    return len(chosen), chosen


def mim_criterion(dnf: DNF, k: int, *, time_limit: float | None = None,
                  max_edges: int = DEFAULT_MAX_EDGES) -> bool:
    """The sufficient condition of Lemma 2 (Cooper, Bousdira & Carbonnel, "Interpretable
    DNFs", IJCAI 2025, Section 4) for a DNF to be k-AXp-interpretable: every term tests at
    most ``k`` features (``D`` is a k-DNF) and ``mim(G_D) <= k``.

    True proves ``certificate_complexity(dnf) <= k`` (every minimal transversal of the
    terms, hence every term of the complement, then has at most ``k`` literals). False
    proves nothing: the criterion is sufficient, not necessary — ``(a AND b) OR (NOT a AND
    b) OR c`` is the function ``b OR c`` of certificate complexity 2, yet ``G_D`` has the
    induced matching ``{a - term 0, NOT a - term 1, c - term 2}``; a k-AXp-interpretable
    function can also be written with terms longer than ``k``. Use
    :func:`is_k_axp_interpretable` for the exact answer on small feature spaces. Every nested
    k-DNF passes (Proposition 2).

    Parameters
    ----------
    dnf : DNF or NestedKDNF
    k : int
        >= 0.
    time_limit, max_edges
        As :func:`max_induced_matching` (not used when the number of terms or of literals
        is at most ``k``, which bounds ``mim(G_D)``).

    Raises
    ------
    UnsupportedEstimatorError
        ``dnf`` is not a DNF (a ``TypeError``); :class:`~xdt.errors.NotFittedError` for an
        unfitted learner.
    ParameterError
        ``k`` is not an integer >= 0.
    ComputationLimitError
        As :func:`max_induced_matching`.
    """
    dnf = _require_dnf(dnf, "mim_criterion")
    k = _check_count(k, "k", 0)
    terms = term_literals(dnf)
    if any(len({lit.feature for lit in t}) > k for t in terms):
        return False
    n_literals = len({lit for t in terms for lit in t})
    if min(sum(1 for t in terms if t), n_literals) <= k:
        return True
    edges, conflicts = _conflicts(literal_term_graph(dnf), max_edges, time_limit)
    if _greedy(len(edges), conflicts) > k:  # an induced matching of k + 1 edges: mim > k
        return False
    size, _ = _solve(edges, conflicts, time_limit)
    return size <= k
