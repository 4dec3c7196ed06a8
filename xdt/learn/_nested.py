"""Learning nested k-DNFs: the heuristic of Cooper, Bousdira & Carbonnel, "Interpretable
DNFs", IJCAI 2025, Section 6.1 (Algorithm 1 and the two steps after it).

A nested k-DNF (their Section 4) is given by a ``k x k`` matrix ``L`` of literals and, per
term ``p``, row prefix lengths ``r_p1 .. r_pk`` with ``sum_i r_pi <= k``: term ``p`` is the
conjunction, over rows ``i``, of the ``r_pi`` leftmost literals of row ``i``. Every nested
k-DNF is k-AXp-interpretable (their Proposition 2): every prediction has an abductive
explanation of at most ``k`` features.

The heuristic works on Boolean features. A data set of ``m`` Boolean columns has ``2 m``
literals, numbered here ``2 j`` (column ``j`` true) and ``2 j + 1`` (column ``j`` false), so
the negation of literal ``l`` is ``l ^ 1``. Its three steps:

1. :func:`construct_matrix` — Algorithm 1: ``L`` row by row, each literal maximising
   ``G = Ec1 - Ec0`` of the row's prefix it completes;
2. :func:`candidate_terms` and :func:`select_terms` — the terms, from size ``k`` down to 1,
   kept when they cover more new class-1 than class-0 examples (or are pure);
3. :func:`prune_terms` — each term re-evaluated against all the others.

:class:`NestedKDNFClassifier` runs them on a table binarised by
:class:`~xdt.learn.Binarizer` and returns the model as an :class:`xdt.ir.NestedKDNF` over the
*original* features.

The three steps run in compiled kernels (:mod:`xdt.learn._nested_kernels`) over flat arrays
made once per fit: the literal table as bytes, its row bitsets, and per literal its feature
and cell mask words.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state

from xdt.errors import DataError, ParameterError
from xdt.ir._dnf import Condition, NestedKDNF
from xdt.learn import _nested_kernels as kernels
from xdt.learn._base import LearnerNotFittedError, _select_rows
from xdt.learn._binarize import Binarizer, _check_n_thresholds
from xdt.learn._data import label_for_ir, read_labels, read_sample_weight, read_training_data

__all__ = ["NestedKDNFClassifier", "CandidateTerm", "construct_matrix", "candidate_terms",
           "literal_table", "prefix_vectors", "prune_terms", "row_limit", "select_terms"]

TARGETS = ("positive", "negative")


# ---------------------------------------------------------------------------- literals
def literal_table(B: np.ndarray) -> np.ndarray:
    """The truth value of every literal on every row.

    Parameters
    ----------
    B : numpy.ndarray of shape (n, m), bool
        Boolean columns.

    Returns
    -------
    numpy.ndarray of shape (n, 2 m), bool
        Column ``2 j`` is ``B[:, j]``, column ``2 j + 1`` its negation.
    """
    B = np.asarray(B, dtype=bool)
    T = np.empty((B.shape[0], 2 * B.shape[1]), dtype=bool)
    T[:, 0::2] = B
    T[:, 1::2] = ~B
    return T


def _default_cells(n_literals: int) -> tuple[np.ndarray, np.ndarray]:
    """Each column its own binary feature: literal ``2 j`` allows cell 1, ``2 j + 1`` cell 0."""
    lit = np.arange(n_literals, dtype=np.int64)
    return lit // 2, np.where(lit % 2 == 0, 0b10, 0b01).astype(np.uint64)


def _cell_words(cells: Sequence[int] | np.ndarray) -> np.ndarray:
    """The cell masks of the literals (non-negative ints) as uint64 words, shape (L, CW):
    cell ``c`` at bit ``c % 64`` of word ``c // 64``, ``CW`` words enough for the widest."""
    try:
        return np.asarray(cells, dtype=np.uint64).reshape(-1, 1)
    except OverflowError:       # a feature with more than 64 cells
        ints = [int(c) for c in cells]
        n_words = max(1, (max(ints).bit_length() + 63) // 64)
        out = np.zeros((len(ints), n_words), dtype=np.uint64)
        for lit, c in enumerate(ints):
            for w in range(n_words):
                out[lit, w] = (c >> (64 * w)) & 0xFFFFFFFFFFFFFFFF
        return out


def _literal_arrays(n_literals: int, literal_feature: np.ndarray | None,
                    literal_cells: Sequence[int] | None) -> tuple[np.ndarray, np.ndarray, int]:
    """The kernels' view of the literals: per literal its feature numbered ``0 .. F-1``
    (int64 (L,)) and its cell mask words (uint64 (L, CW)), and ``F``.

    Raises
    ------
    DataError
        ``literal_feature``/``literal_cells`` do not give every literal.
    """
    if literal_feature is None or literal_cells is None:
        literal_feature, literal_cells = _default_cells(n_literals)
    feature = np.asarray(literal_feature)
    if len(feature) < n_literals or len(literal_cells) < n_literals:
        raise DataError(f"literal_feature and literal_cells must give each of the "
                        f"{n_literals} literals its feature and cells, got "
                        f"{len(feature)} and {len(literal_cells)} entries")
    ids, numbered = np.unique(feature[:n_literals], return_inverse=True)
    return (numbered.reshape(-1).astype(np.int64), _cell_words(literal_cells[:n_literals]),
            len(ids))


# ---------------------------------------------------------------------------- Algorithm 1
def row_limit(i: int, j: int, k: int, n: int) -> int:
    """How many leftmost columns of the rows above row ``i`` are forbidden for ``l_ij``.

    Algorithm 1, lines 3-7 (Cooper, Bousdira & Carbonnel, IJCAI 2025, Section 6.1):
    ``limit = 0`` for the first row, else ``min(k - j, floor(2 (n - j) / i) - 1)``, where
    ``n`` is the number of Boolean features. The text explains the two terms: the literals
    of the first ``k - j`` columns of the rows already chosen are forbidden, "provided that
    at least one literal remains available": ``2 (n - j)`` literals remain once the ``j``
    literals before ``l_ij`` in its row and their negations are excluded, and forbidding
    ``limit`` columns of ``i`` rows forbids at most ``i * limit <= 2 (n - j) - i`` of them.
    Clipped at 0 (when ``k > n``).

    Examples
    --------
    >>> [row_limit(1, j, 3, 3) for j in range(3)], [row_limit(2, j, 3, 3) for j in range(3)]
    ([3, 2, 1], [2, 1, 0])
    """
    if i == 0:
        return 0
    return max(0, min(k - j, (2 * (n - j)) // i - 1))


def construct_matrix(T: np.ndarray, y: np.ndarray, k: int, weight: np.ndarray | None = None,
                     literal_feature: np.ndarray | None = None,
                     literal_cells: Sequence[int] | None = None,
                     random_state=None) -> np.ndarray:
    """Algorithm 1 of Cooper, Bousdira & Carbonnel (IJCAI 2025, Section 6.1): the ``k x k``
    matrix ``L``, row by row, left to right.

    ``l_ij`` is the literal with the greatest ``G = Ec1(l_i0 .. l_ij) - Ec0(l_i0 .. l_ij)``
    (the weight of the class-1, minus that of the class-0, training rows satisfying the
    row's first ``j + 1`` literals), among the literals

    * that are neither one of the ``j`` literals before it in row ``i`` nor their negation
      (for Boolean features; with ``literal_feature``/``literal_cells``, more generally: that
      keep the row's prefix consistent and are not implied by it — e.g. ``x <= 3`` is not
      taken after ``x <= 2``, ``colour = red`` not after ``colour = blue``);
    * and not in the first ``limit`` columns of the rows above (:func:`row_limit`); when that
      leaves no literal, ``limit`` is lowered until one remains, as the paper's text says.

    Ties go to the smallest literal number (``random_state=None``) or to a literal drawn
    uniformly among the tied ones (``random_state.choice`` of the tied literal numbers,
    increasing). When no literal is left at all (``k`` larger than the
    number of Boolean features), ``l_ij`` repeats ``l_i,j-1``: a longer prefix of the row
    then adds nothing (the padding of the paper's Example 4).

    Parameters
    ----------
    T : numpy.ndarray of shape (n, 2 m), bool
        Literal truth values (:func:`literal_table`).
    y : numpy.ndarray of shape (n,), bool
        True for class 1 (the class the DNF describes).
    k : int
    weight : numpy.ndarray of shape (n,), optional
        Row weights (default 1): ``Ec1``/``Ec0`` are sums of weights.
    literal_feature, literal_cells : optional
        Per literal, the original feature and the bit mask of its cells
        (:meth:`xdt.learn.Binarizer.literal_cells`); default: every column a feature of its
        own.
    random_state : None, int or numpy.random.RandomState

    Returns
    -------
    numpy.ndarray of shape (k, k), int64
        Literal numbers.

    Raises
    ------
    DataError
        ``T`` has no literal; ``literal_feature``/``literal_cells`` give fewer literals
        than ``T`` has.

    Notes
    -----
    Runs in :func:`xdt.learn._nested_kernels.fill_matrix`; ``Ec1 - Ec0`` is summed over the
    rows in order, so with weights whose sums are exact (integers, repeated rows) the ties
    are those of exact arithmetic.
    ParameterError
        ``k < 1``.
    """
    T = np.asarray(T, dtype=bool)
    n_rows, n_lit = T.shape
    if n_lit == 0:
        raise DataError("there is no literal to build the matrix from (no Boolean feature)")
    if k < 1:
        raise ParameterError(f"k must be >= 1, got {k}")
    w = np.ones(n_rows) if weight is None else np.asarray(weight, dtype=np.float64)
    signed = np.where(np.asarray(y, dtype=bool), w, -w)
    feature, cells, n_features = _literal_arrays(n_lit, literal_feature, literal_cells)
    rng = None if random_state is None else check_random_state(random_state)
    return _matrix(_as_bytes(T), signed, int(k), feature, cells, n_features, rng)


def _as_bytes(T: np.ndarray) -> np.ndarray:
    """A bool table as C-ordered uint8 (the kernels' literal table), without a copy when
    it is one already."""
    return np.ascontiguousarray(T, dtype=bool).view(np.uint8)


def _matrix(T8: np.ndarray, signed: np.ndarray, k: int, feature: np.ndarray,
            cells: np.ndarray, n_features: int, rng) -> np.ndarray:
    """Algorithm 1 by :func:`xdt.learn._nested_kernels.fill_matrix`; a tie between several
    literals goes back to ``rng`` (``rng.choice`` of the tied literal numbers, increasing,
    as the numpy version drew), then the kernel goes on from the next cell."""
    L = np.zeros((k, k), dtype=np.int64)
    ties = np.empty(T8.shape[1], dtype=np.int64)
    start = 0
    while True:
        cell, n_ties = kernels.fill_matrix(T8, signed, k, feature, cells, n_features,
                                           T8.shape[1] // 2, L, start, rng is not None, ties)
        if cell >= k * k:
            return L
        L.flat[cell] = int(rng.choice(ties[:n_ties].copy()))
        start = cell + 1


# ---------------------------------------------------------------------------- the terms
def prefix_vectors(k: int, s: int) -> Iterator[tuple[int, ...]]:
    """Every ``(r_1, .., r_k)`` with ``0 <= r_i <= k`` and ``sum = s``, lexicographically
    descending (``(s, 0, .., 0)`` first: the rows built first come first).

    >>> list(prefix_vectors(2, 2))
    [(2, 0), (1, 1), (0, 2)]
    """
    def rec(pos: int, left: int) -> Iterator[tuple[int, ...]]:
        if pos == k - 1:
            if left <= k:
                yield (left,)
            return
        for v in range(min(left, k), -1, -1):
            for rest in rec(pos + 1, left - v):
                yield (v, *rest)

    if k >= 1:
        yield from rec(0, s)


@dataclass(frozen=True)
class CandidateTerm:
    """A term of the nested k-DNF of a matrix: its row prefix lengths and its literals (in
    row order, without repeats)."""

    prefix: tuple[int, ...]
    literals: tuple[int, ...]


def candidate_terms(matrix: np.ndarray, literal_feature: np.ndarray | None = None,
                    literal_cells: Sequence[int] | None = None) -> list[CandidateTerm]:
    """The terms the heuristic evaluates, in its order (Cooper, Bousdira & Carbonnel, IJCAI
    2025, Section 6.1, second step): "one term at a time, starting with terms of size k and
    decreasing down to size 1", only the consistent ones.

    A term's size is ``sum_i r_i``; terms of one size come in the lexicographically
    descending order of ``(r_1, .., r_k)`` (:func:`prefix_vectors`). Skipped:

    * inconsistent terms (a literal and its negation; on the original features, e.g.
      ``x <= 2`` and ``3 < x``, or two values of one categorical feature);
    * terms whose prefix vector is not minimal: some row's last literal adds nothing (it is
      already in the term, or implied by it), so the same term has a smaller size and is
      evaluated there;
    * repeats of a term already listed (two prefix vectors giving the same literals).

    Parameters
    ----------
    matrix : numpy.ndarray of shape (k, k), int
        Literal numbers (:func:`construct_matrix`).
    literal_feature, literal_cells : optional
        As in :func:`construct_matrix`.

    Returns
    -------
    list of CandidateTerm

    Raises
    ------
    DataError
        ``matrix`` holds a literal that ``literal_feature``/``literal_cells`` do not give.

    Notes
    -----
    Runs in :func:`xdt.learn._nested_kernels.candidate_terms` (terms compared as sorted
    ``(feature, cell mask)`` pairs, through a hash table).
    """
    L = np.asarray(matrix, dtype=np.int64)
    k = L.shape[0]
    if k == 0:
        return []
    prefixes, literals, sizes = _candidate_arrays(L, literal_feature, literal_cells)
    return [CandidateTerm(r, tuple(literals[t, :sizes[t]].tolist()))
            for t, r in enumerate(prefixes)]


@cache
def _prefix_table(k: int) -> tuple[np.ndarray, list[tuple[int, ...]]]:
    """Every prefix vector of sizes ``k`` down to 1 in evaluation order: int64 (P, k), and
    the same as tuples."""
    vectors = [r for s in range(k, 0, -1) for r in prefix_vectors(k, s)]
    table = np.array(vectors, dtype=np.int64).reshape(-1, k)
    table.flags.writeable = False
    return table, vectors


def _candidate_arrays(L: np.ndarray, literal_feature, literal_cells, tables=None
                      ) -> tuple[list[tuple[int, ...]], np.ndarray, np.ndarray]:
    """The candidate terms of ``L`` by :func:`xdt.learn._nested_kernels.candidate_terms`,
    in evaluation order: their prefix vectors (tuples), their literals (int64 (P, k), in
    row order without repeats, padded) and the number of literals of each (int64 (P,)).

    ``tables``: ``(feature, cells)`` from :func:`_literal_arrays`, when already made.
    """
    k = L.shape[0]
    if tables is None:
        n_lit = int(L.max()) + 2 if literal_feature is None or literal_cells is None \
            else len(literal_feature)
        feature, cells, _ = _literal_arrays(n_lit, literal_feature, literal_cells)
    else:
        feature, cells = tables
    if L.size and (L.min() < 0 or L.max() >= len(feature)):
        raise DataError(f"the matrix holds literal {int(L.max())}, but literal_feature and "
                        f"literal_cells describe {len(feature)} literals")
    table, vectors = _prefix_table(k)
    n = len(table)
    index = np.empty(n, dtype=np.int64)
    literals = np.empty((n, k), dtype=np.int64)
    sizes = np.empty(n, dtype=np.int64)
    kept = kernels.candidate_terms(L, table, feature, cells, index, literals, sizes)
    return [vectors[p] for p in index[:kept].tolist()], literals[:kept], sizes[:kept]


def _weights(y: np.ndarray, weight: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    y = np.asarray(y, dtype=bool)
    w = np.ones(len(y)) if weight is None else np.asarray(weight, dtype=np.float64)
    return np.where(y, w, 0.0), np.where(y, 0.0, w)


def select_terms(coverages: Iterable[np.ndarray], y: np.ndarray,
                 weight: np.ndarray | None = None) -> list[int]:
    """The second step of the heuristic (Cooper, Bousdira & Carbonnel, IJCAI 2025,
    Section 6.1): which of the candidate terms, evaluated in order, to select.

    With ``P`` (``Q``) the weight of the class-1 (class-0) rows that satisfy the term and
    are not covered by the terms selected before it, a term is selected when ``P > 0`` and
    ``Q < P``, or when it covers some class-1 row and no class-0 row (whether or not those
    rows are already covered). The evaluation stops once every class-1 row is covered or the
    terms run out.

    Parameters
    ----------
    coverages : iterable of numpy.ndarray of shape (n,), bool
        Which rows each candidate term covers, in evaluation order (may be lazy: stops being
        consumed once the class-1 rows are covered).
    y : numpy.ndarray of shape (n,), bool
        True for class 1.
    weight : numpy.ndarray of shape (n,), optional
        Row weights (default 1); a row of weight 0 counts as absent.

    Returns
    -------
    list of int
        Positions of the selected terms, increasing.
    """
    pos_w, neg_w = _weights(y, weight)
    todo = pos_w > 0
    covered = np.zeros(len(pos_w), dtype=bool)
    chosen: list[int] = []
    if not todo.any():
        return chosen
    for t, cover in enumerate(coverages):
        cover = np.asarray(cover, dtype=bool)
        new = cover & ~covered
        p, q = float(pos_w @ new), float(neg_w @ new)
        pure = float(pos_w @ cover) > 0 and float(neg_w @ cover) == 0
        if (p > 0 and q < p) or pure:
            chosen.append(t)
            covered |= cover
            if covered[todo].all():
                break
    return chosen


def prune_terms(coverages: Sequence[np.ndarray], y: np.ndarray,
                weight: np.ndarray | None = None) -> list[int]:
    """The pruning step of the heuristic (Cooper, Bousdira & Carbonnel, IJCAI 2025,
    Section 6.1): each selected term, in order, is evaluated "against all other terms, not
    just the previously selected terms", and removed when ``P = 0`` or ``Q >= P``, where
    ``P`` (``Q``) is now the weight of the class-1 (class-0) rows it covers that no *other*
    remaining term covers. One pass; a removed term no longer counts for the terms after it.

    Parameters
    ----------
    coverages : sequence of numpy.ndarray of shape (n,), bool
        Rows covered by each selected term.
    y, weight
        As in :func:`select_terms`.

    Returns
    -------
    list of int
        Positions (in ``coverages``) of the terms kept, increasing.
    """
    pos_w, neg_w = _weights(y, weight)
    covs = [np.asarray(c, dtype=bool) for c in coverages]
    count = np.zeros(len(pos_w), dtype=np.int64)
    for c in covs:
        count += c
    kept: list[int] = []
    for t, c in enumerate(covs):
        only = c & (count - c == 0)
        p, q = float(pos_w @ only), float(neg_w @ only)
        if p == 0 or q >= p:
            count -= c
        else:
            kept.append(t)
    return kept


def _learn(T: np.ndarray, y: np.ndarray, k: int, weight: np.ndarray, literal_feature,
           literal_cells, random_state, prune: bool
           ) -> tuple[np.ndarray, list[CandidateTerm], int]:
    """The three steps on literal table ``T`` (bool (n, L)) with compiled kernels: the same
    matrix, terms and selection as :func:`construct_matrix`, :func:`candidate_terms`,
    :func:`select_terms` (on the candidates' coverages) and :func:`prune_terms` (on the
    selected terms' coverages), made once from flat arrays.

    ``weight`` (float64 (n,)) must be positive (the estimator drops rows of weight 0).
    Returns the matrix, the kept terms and the number selected before pruning.
    """
    T8 = _as_bytes(T)
    feature, cells, n_features = _literal_arrays(T8.shape[1], literal_feature, literal_cells)
    rng = None if random_state is None else check_random_state(random_state)
    L = _matrix(T8, np.where(y, weight, -weight), k, feature, cells, n_features, rng)
    prefixes, literals, sizes = _candidate_arrays(L, None, None, (feature, cells))
    bits = kernels.pack_rows(T8)
    pos = kernels.pack_mask(y.view(np.uint8))
    neg = kernels.pack_mask((~y).view(np.uint8))
    chosen = np.empty(len(prefixes), dtype=np.int64)
    n_chosen = kernels.select_terms(bits, literals, sizes, pos, neg, weight,
                                    bool((weight == 1.0).all()), chosen)
    chosen = chosen[:n_chosen]
    if prune and n_chosen:
        kept = np.empty(n_chosen, dtype=np.int64)
        n_kept = kernels.prune_terms(bits, literals, sizes, chosen, pos, neg, weight, kept)
        terms = chosen[kept[:n_kept]]
    else:
        terms = chosen
    return L, [CandidateTerm(prefixes[t], tuple(literals[t, :sizes[t]].tolist()))
               for t in terms.tolist()], n_chosen


def _term_cover(T: np.ndarray, literals: Sequence[int]) -> np.ndarray:
    return T[:, list(literals)].all(axis=1) if len(literals) else np.ones(len(T), dtype=bool)


# ---------------------------------------------------------------------------- estimator
class NestedKDNFClassifier(ClassifierMixin, BaseEstimator):
    """Nested k-DNF classifier (Cooper, Bousdira & Carbonnel, "Interpretable DNFs", IJCAI
    2025): the heuristic of their Section 6.1 on Boolean features made by
    :class:`~xdt.learn.Binarizer`, emitting an :class:`xdt.ir.NestedKDNF` over the original
    features, so that every prediction has an abductive explanation of at most ``k``
    features (their Proposition 2) and explanations read ``age <= 37.5``, ``colour = red``.

    Binary classification only. ``target="positive"`` learns a nested k-DNF of
    ``classes_[1]`` (column "DNF" of the paper's Table 2); ``target="negative"`` learns one of
    ``classes_[0]``, the complement (column "DNF-bar"), and emits a model whose ``classes``
    are swapped — it predicts ``classes_[0]`` when one of its terms holds — so the labels are
    right either way.

    The three steps (see :mod:`xdt.learn._nested`): :func:`construct_matrix` (Algorithm 1),
    :func:`candidate_terms` + :func:`select_terms`, :func:`prune_terms`. Choices where the
    paper leaves room, all documented in those functions: literals ``2 j`` / ``2 j + 1``
    (column ``j`` true / false) and ties to the smallest number; the order of the terms of one
    size (lexicographically descending prefix vectors); a term is evaluated once, at its
    smallest prefix vector; on features with more than two values (thresholds, one-hot
    columns), "consistent" and "not the same literal or its negation" are decided on the
    original feature. ``sample_weight`` weighs the counts ``Ec1``, ``Ec0``, ``P``, ``Q``.

    Cost: ``k^2`` passes over the literal table for the matrix, then up to ``C(2k, k) - 1``
    candidate terms (923 for ``k = 6``), each an AND of at most ``k`` Boolean columns. The
    three steps run in compiled kernels (:mod:`xdt.learn._nested_kernels`) over the literal
    table and its row bitsets, made once per fit (``benchmarks/_fit_nested.py`` times a fit
    against a depth-``k`` scikit-learn tree).

    Parameters
    ----------
    k : int, default 3
        Size of the matrix; every term has at most ``k`` conditions.
    target : {"positive", "negative"}, default "positive"
        The class whose nested k-DNF is learned: ``classes_[1]`` or ``classes_[0]``.
    n_thresholds : int or None, default 4
        Thresholds per numeric column (:class:`~xdt.learn.Binarizer`); 0/1 and ``bool``
        columns stay binary features.
    categorical_features : list of str or int, or bool mask, optional
        Numeric columns to treat as categorical.
    prune : bool, default True
        Run the pruning step.
    random_state : None, int or numpy.random.RandomState, default None
        ``None``: deterministic (ties of Algorithm 1 to the smallest literal number); else
        ties broken at random (the paper reports runs that differ by randomness).

    Attributes
    ----------
    model_ : xdt.ir.NestedKDNF
        The fitted model over the original features (explain it with
        :class:`xdt.Explainer`, save it with :func:`xdt.save_model`).
    binarizer_ : Binarizer
        The fitted binarizer.
    matrix_ : numpy.ndarray of shape (k, k), int64
        Algorithm 1's matrix as literal numbers (:meth:`Binarizer.condition`).
    prefixes_ : numpy.ndarray of shape (n_terms, k), int64
        Row prefix lengths of the kept terms.
    term_literals_ : list of tuple of int
        The literals of each kept term.
    n_selected_ : int
        Terms selected before pruning.
    target_class_ : object
        The class the terms describe (``classes_[1]``, or ``classes_[0]`` for "negative").
    classes_ : numpy.ndarray of shape (2,)
    n_features_in_ : int
    feature_names_in_ : numpy.ndarray of str
        Only when ``X`` was a DataFrame with string column names.

    Examples
    --------
    >>> import itertools, numpy as np
    >>> from xdt.learn import NestedKDNFClassifier
    >>> X = np.array(list(itertools.product([0, 1], repeat=4)))
    >>> y = (X[:, 0] & X[:, 1]) | (X[:, 2] & X[:, 3])
    >>> est = NestedKDNFClassifier(k=2).fit(X, y)
    >>> [str(rule) for rule in est.model_.rules()]
    ['x0 = 1 AND x1 = 1', 'x2 = 1 AND x3 = 1']
    >>> est.score(X, y)
    1.0
    """

    def __init__(self, k: int = 3, target: str = "positive", n_thresholds: int | None = 4,
                 categorical_features=None, prune: bool = True, random_state=None):
        self.k = k
        self.target = target
        self.n_thresholds = n_thresholds
        self.categorical_features = categorical_features
        self.prune = prune
        self.random_state = random_state

    def _check_params(self) -> None:
        k = self.k
        if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1:
            raise ParameterError(f"k must be an integer >= 1, got {k!r}")
        if self.target not in TARGETS:
            raise ParameterError(f"target must be 'positive' (a nested k-DNF of classes_[1]) "
                                 f"or 'negative' (of classes_[0]), got {self.target!r}")
        _check_n_thresholds(self.n_thresholds)

    def fit(self, X, y, sample_weight=None):
        """Learn a nested k-DNF of ``target`` from ``X`` and ``y``.

        Parameters
        ----------
        X : array-like of shape (n, n_features) or pandas.DataFrame
            Numbers, categories (strings, pandas ``category``), booleans; binarised by
            :class:`~xdt.learn.Binarizer`. No missing values.
        y : array-like of shape (n,)
            Two class labels. The name of a pandas Series becomes the model's ``target``.
        sample_weight : array-like of shape (n,), optional
            Non-negative weights (default 1): they weigh every count of the heuristic (and
            the quantiles of the thresholds). Rows of weight 0 are ignored.

        Returns
        -------
        self

        Raises
        ------
        MissingValueError
            ``X`` or ``y`` has missing values.
        DataError
            ``y`` does not have exactly two classes (with positive weight); bad weights;
            infinite values; sparse input.
        ParameterError
            ``k`` not an integer >= 1, ``target`` not "positive"/"negative", bad
            ``n_thresholds``.
        InstanceShapeError
            ``X`` is not 2-d, or ``y`` does not have one label per row.
        """
        self._check_params()
        data = read_training_data(X, self.categorical_features)
        n = data.n_rows
        classes, codes = read_labels(y, n)
        if len(classes) == 1:
            raise DataError(f"y has only one class ({classes[0]!r}); {type(self).__name__} "
                            "needs rows of two classes")
        if len(classes) != 2:
            shown = ", ".join(repr(c) for c in classes.tolist()[:10])
            more = ", ..." if len(classes) > 10 else ""
            raise DataError(
                f"Only binary classification is supported. {type(self).__name__} learns two "
                f"classes, but y has {len(classes)}: {shown}{more}; merge them into two first "
                "(e.g. one class against the rest)")
        weight = read_sample_weight(sample_weight, n)
        keep = weight > 0
        if not keep.all():      # scikit-learn's convention: weight 0 = not in the data
            data = _select_rows(data, keep)
            codes, weight = codes[keep], weight[keep]
        present = np.unique(codes)
        if len(present) < 2:
            raise DataError(
                f"y has only one class with positive sample weight ({classes[present[0]]!r}); "
                f"{type(self).__name__} needs rows of both classes {classes.tolist()}")
        ir_classes = [label_for_ir(c) for c in classes]
        if ir_classes[0] == ir_classes[1]:
            raise DataError(f"class labels {classes.tolist()} are not distinct as text; "
                            "use distinct strings or integers")
        learn_index = 1 if self.target == "positive" else 0
        y_learn = codes == learn_index

        binarizer = Binarizer(n_thresholds=self.n_thresholds,
                              categorical_features=self.categorical_features)
        B = binarizer._fit_data(data, weight)
        T = literal_table(B)
        k = int(self.k)
        if T.shape[1]:
            feature, cells = binarizer.literal_cells()
            L, terms, self.n_selected_ = _learn(T, y_learn, k, weight, feature, cells,
                                                self.random_state, bool(self.prune))
            matrix = [[binarizer.condition(int(lit)) for lit in row] for row in L]
        else:                   # no Boolean column (constant features): no term
            L = np.zeros((k, k), dtype=np.int64)
            terms = []
            self.n_selected_ = 0
            matrix = [[_filler(binarizer, data)] * k for _ in range(k)]
        target = str(y.name) if isinstance(y, pd.Series) and y.name is not None else None
        ir = (ir_classes if learn_index == 1 else ir_classes[::-1])
        self.model_ = NestedKDNF(binarizer.features_, ir, matrix,
                                 [list(t.prefix) for t in terms], target=target)
        self.binarizer_ = binarizer
        self.matrix_ = L
        self.prefixes_ = np.array([t.prefix for t in terms], dtype=np.int64).reshape(-1, k)
        self.term_literals_ = [t.literals for t in terms]
        self.target_class_ = classes[learn_index]
        self._learn_index = learn_index
        self.classes_ = classes
        self.n_features_in_ = binarizer.n_features_in_
        if hasattr(binarizer, "feature_names_in_"):
            self.feature_names_in_ = binarizer.feature_names_in_
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        return self

    # ------------------------------------------------------------------ prediction
    def _check_fitted(self) -> None:
        if not hasattr(self, "model_"):
            raise LearnerNotFittedError(
                f"this {type(self).__name__} is not fitted yet; call fit(X, y) first")

    def satisfied_terms(self, X) -> np.ndarray:
        """Which terms hold at each row of ``X``: bool, shape (n, n_terms).

        Raises
        ------
        NotFittedError, InstanceError
            (shape, missing value, unknown category: see :meth:`Binarizer.cell_codes`)
        """
        self._check_fitted()
        T = literal_table(self.binarizer_.transform(X))
        out = np.empty((len(T), len(self.term_literals_)), dtype=bool)
        for p, lits in enumerate(self.term_literals_):
            out[:, p] = _term_cover(T, lits)
        return out

    def predict(self, X) -> np.ndarray:
        """The predicted class of each row of ``X``; shape (n,), values from ``classes_``:
        ``target_class_`` where some term holds, the other class elsewhere (the same as
        ``model_.predict(X)``).

        Raises
        ------
        NotFittedError, InstanceError
        """
        holds = self.satisfied_terms(X).any(axis=1)
        index = holds if self._learn_index == 1 else ~holds
        return self.classes_[index.astype(np.int64)]

    def predict_proba(self, X) -> np.ndarray:
        """Hard class probabilities: 1 for the predicted class, 0 for the other (a nested
        k-DNF holds or not; it has no scores).

        Returns
        -------
        numpy.ndarray of shape (n, 2), float64, columns in ``classes_`` order.
        """
        pred = self.predict(X)
        return (pred[:, None] == self.classes_[None, :]).astype(np.float64)

    def to_ir(self) -> NestedKDNF:
        """The fitted model (same as ``model_``).

        Raises
        ------
        NotFittedError
        """
        self._check_fitted()
        return self.model_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        tags.input_tags.allow_nan = False
        tags.classifier_tags.multi_class = False
        return tags


def _filler(binarizer: Binarizer, data) -> Condition:
    """A condition true on every training row, for the cells of a matrix with no literal."""
    feat = binarizer.features_[0]
    if feat.is_ordinal:  # the ordinal column of feature 0
        column = int(np.flatnonzero(data.ordinal_features == 0)[0])
        return Condition(feat.name, upto=float(data.ordinal[:, column].max()))
    return Condition(feat.name, tuple(feat.domain))
