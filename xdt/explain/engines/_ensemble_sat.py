"""The SAT engine for tree ensembles: entailment decided exactly as the library decides.

A :class:`~xdt.ir.TreeEnsemble` predicts by summing, in floating point and in tree
order, values its trees' leaves hold, then comparing the sums
(:meth:`~xdt.ir.TreeEnsemble.predict_cells`). The engine answers "does fixing
these features entail the prediction ``c``?" for exactly that arithmetic, ties included.

Encoding (on top of :class:`~xdt.explain.engines.ModelEncoding`'s cell variables and domain
clauses, so instances are posed as the same assumptions as for a tree):

* **Leaves.** A variable ``y[t,i]`` per consistent path ``i`` of tree ``t`` (its masks in the
  ensemble's cells, :meth:`~xdt.ir.TreeEnsemble.tree_terms`), with
  ``y[t,i] -> l`` for every literal ``l`` of the path and one clause ``OR_i y[t,i]`` per
  tree. A tree's paths partition the cell space, so in every model exactly one ``y[t,i]``
  per tree is true: the leaf the point reaches (Izza & Marques-Silva, "On Explaining Random
  Forests with SAT", IJCAI 2021, Section 4).
* **Order variables.** Per tree ``t`` and score ``s``, the distinct values
  ``w_0 < ... < w_{m-1}`` of its consistent leaves on ``s``; ``o[t,s,j]`` (``j >= 1``)
  means "the leaf's value on ``s`` is ``>= w_j``", with ``o[t,s,j] -> o[t,s,j-1]``,
  ``y[t,i] -> o[t,s,r]`` and ``y[t,i] -> not o[t,s,r+1]`` for the rank ``r`` of leaf ``i``'s
  value. So "tree ``t``'s leaf is higher on ``s`` than value ``w_r``" is one literal.
* **"The prediction differs from c".** ``numpy.argmax`` returns the first largest score, so
  class ``k`` is predicted instead of ``c`` when some ``k`` *beats* ``c``: ``S_k > S_c``, or
  ``S_k == S_c`` and ``k < c``. One variable ``d_k`` per ``k != c`` and the clause
  ``OR_k d_k``. A binary margin has one score ``S`` and a threshold: ``classes[0]`` beats
  ``classes[1]`` when ``S <= threshold``, ``classes[1]`` beats ``classes[0]`` when
  ``S > threshold`` (one ``d``).
* **The arithmetic, lazily** (lazy clause generation: Ohrimenko, Stuckey & Codish,
  "Propagation via lazy clause generation", Constraints 14, 2009). What ``d_k`` means is
  never encoded in full; the solver is asked, the leaves of its model are read, and the
  scores computed exactly as the IR computes them. If the class differs, the model is a
  counterexample. If not, for each ``d_k`` the solver made true the engine adds a *lemma*
  ``not d_k OR better_k(t_1) OR ... OR better_k(t_m)`` and asks again, where ``better_k(t)``
  says that tree ``t``'s leaf is better for ``k`` against ``c`` than its current one (higher
  on ``k`` or lower on ``c``: two order literals).

  Why a lemma is valid for every point of the cell space: floating-point addition, the
  division by a positive constant and the comparisons are monotone in every summand. Let
  every tree outside ``{t_1..t_m}`` take its most ``k``-favourable values (its largest value
  on ``k`` and its smallest on ``c``, over its consistent leaves, chosen independently) and
  the trees ``t_j`` their current leaf's values; if even then ``k`` does not beat ``c``
  (evaluated exactly, in tree order and precision), then at every point where no ``t_j``
  is better for ``k``, ``S_k`` is no larger and ``S_c`` no smaller than there, and ``k``
  does not beat ``c``. The set ``{t_j}`` is chosen small: trees by decreasing gap between
  their current and their extreme values, the shortest prefix that still keeps ``k`` from
  beating ``c`` (binary search; keeping all trees is the current model, which does). When
  even all trees at their extremes do not let ``k`` beat ``c``, the lemma is the unit
  clause ``not d_k``. A second lemma from the same model holds every tree at a value better
  for ``k`` than its current one by an equal share of the margin (rounded to a level, and
  checked exactly): "some tree improves by at least its share" — valid by the same
  argument, with the held values in place of the current ones. A third lemma is a box:
  ``not d_k OR x not in B`` for a box of cells ``B`` around the model's point, widened
  feature by feature while per-tree bounds inside it still keep ``k`` behind (see
  :meth:`EnsembleEncoding.bounded`): at most two literals per feature, and it removes a
  whole region of the cell space at once. Every lemma excludes the
  solver's current model (no tree beats its current value there), so the loop ends; and
  every point of another class satisfies all lemmas (with ``d_k`` true for a ``k``
  that beats ``c``), so UNSAT means entailment. Lemmas depend on the model and the class
  only: they stay in the shared solver of (model, class, solver name) and make later
  queries, of any instance, faster (Ignatiev et al., "Using MaxSAT for Efficient
  Explanations of Tree Ensembles", AAAI 2022, encode the same sums as weighted clauses in
  exact real arithmetic; here the library's floats decide).

A vote is the special case of one-hot leaf values, counted exactly. Certificates for
ensembles: a counterexample is a point re-checked with the IR's ``predict`` (and the
library's, :attr:`~xdt.ir.TreeEnsemble.reference`, when set); an AXp's entailment
rests on the solver's UNSAT answers under the lazily grown clauses, for which there is no
independent proof object — :func:`xdt.explain.checks.check_certificate` re-checks it
by enumerating the box when it is small and by sampling otherwise
(:func:`xdt.explain.checks._verify.sample_box_counterexample`).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Sequence
from fractions import Fraction

import numpy as np

from xdt.errors import ComputationLimitError, EngineClosedError, UnsupportedModelError
from xdt.explain.engines import _deadline
from xdt.explain.engines._ensemble_build import TreeByTree
from xdt.explain.engines._oracle import bits
from xdt.explain.engines._sat import (
    DEFAULT_SOLVER,
    ModelEncoding,
    SatOracle,
    SharedSolver,
    solve_within,
)
from xdt.ir._cells import full_mask
from xdt.ir._ensemble import TreeEnsemble
from xdt.ir._protocol import TREES, offers

WITNESSES = 16
"""Points of another class an oracle keeps, to answer later queries whose box holds one."""


class LazySolver(SharedSolver):
    """A :class:`~xdt.explain.engines._sat.SharedSolver` that grows its clauses with lemmas between
    calls (kept in :attr:`clauses`, so a released solver starts again with them).

    Made with ``clauses`` and ``phases``, or with ``source=(ref, c)``: a weak reference to
    an :class:`EnsembleEncoding` and a class, whose ``domain + differs(c)`` and
    ``phases(c)`` are taken when the solver first starts (so that making the solver
    builds nothing; the encoding is built by then, under the query's deadline). Then
    :attr:`clauses` holds the lemmas only, and the encoding's lists are loaded as they are,
    not copied (millions of clauses for a large forest)."""

    __slots__ = ("phases", "lemmas", "rounds", "_source", "_base")

    def __init__(self, name: str, clauses: list[list[int]] | None = None,
                 phases: list[int] | None = None, source: tuple | None = None):
        super().__init__(name, clauses)  # type: ignore[arg-type]
        self.phases = phases or []
        self.lemmas = 0  # lemmas added so far
        self.rounds = 0  # solver calls made so far
        self._source = source
        self._base: list = []  # with a source: the encoding's domain, leaf and beats clauses

    def _parts(self) -> list:
        return [*self._base, self.clauses]

    def _start(self):
        if self.clauses is None:
            ref, c = self._source
            encoding = ref()
            if encoding is None:
                raise EngineClosedError("the encoding of this solver has been "
                                        "garbage-collected; make a new Explainer")
            encoding.build()
            self._base = [encoding.domain, encoding.leaf_clauses,
                          [list(encoding.beats_vars(c).values())]]  # = domain + differs(c)
            self.phases = encoding.phases(c)
            self.clauses = []
        solver = super()._start()
        if self.phases:
            solver.set_phases(self.phases)
        return solver

    def solve_lazily(self, assumptions: list[int],
                     refine: Callable[[list[int]], list[list[int]] | None],
                     max_rounds: int | None = None) -> list[int] | None:
        """A model satisfying the clauses under ``assumptions`` that ``refine`` accepts
        (returns ``None`` for), or ``None`` when there is none. ``refine(model)`` returns the
        lemmas that exclude a rejected model; they are added and the solver asked again.

        Under a deadline (:mod:`xdt.explain.engines._deadline`) each round polls it and each
        solver call is budgeted (:func:`~xdt.explain.engines._sat.solve_within`).

        Raises
        ------
        ComputationLimitError
            After ``max_rounds`` solver calls without an answer (the lemmas found so far
            are kept).
        EnumerationStopped
            When the deadline passes first (the lemmas found so far are kept)."""
        with self.lock:
            solver = self._solver or self._start()
            rounds = 0
            while True:
                if max_rounds is not None and rounds >= max_rounds:
                    raise ComputationLimitError(
                        f"the SAT engine made {rounds} solver calls on one query without an "
                        "answer", "max_rounds")
                _deadline.check()
                rounds += 1
                self.rounds += 1
                if not solve_within(solver, assumptions):
                    return None
                model = solver.get_model()
                lemmas = refine(model)
                if lemmas is None:
                    return model
                for clause in lemmas:
                    solver.add_clause(clause)
                    self.clauses.append(clause)
                self.lemmas += len(lemmas)


class EnsembleEncoding(ModelEncoding):
    """The CNF of a tree ensemble's cells and leaves, and its lazily refined solvers.

    Parameters
    ----------
    model : TreeEnsemble
    lazy : bool, default False
        Build only the cell variables now and the leaves' clauses on first use
        (:meth:`build`, under the deadline of the query that needs them), as
        :func:`~xdt.explain.engines.shared_encoding` does; by default they are built here.

    Attributes
    ----------
    leaf_vars : numpy.ndarray of int64, shape (n_leaves,)
        The variable ``y[t,i]`` of every consistent leaf, tree by tree (tree ``leaf_tree``,
        path index ``leaf_path``).
    leaf_values : numpy.ndarray, shape (n_leaves, n_scores)
        Their values, in the ensemble's precision.
    path_clauses : list of clauses
        ``y -> literal`` of every path and ``OR_i y[t,i]`` per tree.
    order_clauses : list of clauses
        The order variables' clauses.
    leaf_clauses : list of clauses
        Both.

    ``pool.obj(v)`` also names ``("leaf", t, i)``, ``("order", t, s, j)`` and
    ``("beats", c, k)`` (``d_k`` of the solver of class ``c``).
    """

    def __init__(self, model: TreeEnsemble, *, lazy: bool = False):
        if not offers(model, TREES):
            raise UnsupportedModelError(
                f"EnsembleEncoding encodes tree ensembles, not {type(model).__name__}")
        super().__init__(model, lazy=lazy)
        self.n_trees = model.n_trees
        self.n_scores = model.n_scores
        self.dtype = np.dtype(model.precision)
        self.start = model.start_scores()
        self.divisor = (self.dtype.type(model.score_divisor)
                        if model.score_divisor != 1.0 else None)
        self.threshold = self.dtype.type(model.threshold)
        self._work: TreeByTree | None = TreeByTree(self)
        self._build_lock = threading.Lock()
        if not lazy:
            self.build()

    # ------------------------------------------------------------------ the build
    @property
    def complete(self) -> bool:
        """Whether the leaf and order clauses are built (:meth:`build`)."""
        return self._work is None

    @property
    def trees_built(self) -> int:
        """How many trees the build has encoded so far (``n_trees`` once complete)."""
        work = self._work
        return self.n_trees if work is None else work.done

    def build(self) -> None:
        """Build the leaf and order clauses, tree by tree
        (:class:`~xdt.explain.engines._ensemble_build.TreeByTree`); a no-op once complete.

        Under an active deadline (:mod:`xdt.explain.engines._deadline`) it is polled after
        each tree (so each call encodes one tree at least); when it passes, the trees
        encoded so far are kept and the next call continues with the next tree, so that
        repeated calls under a short ``time_limit`` finish a large forest's encoding. The
        leaves' attributes (``leaf_vars``, ``leaf_clauses``, ...) exist only once the build
        is complete. One thread builds at a time; another waits for it until its own
        deadline passes.

        Raises
        ------
        EnumerationStopped
            When the deadline passes first; its message says how many trees are built.
        """
        if self._work is None:
            return
        if not self._build_lock.acquire(blocking=False):
            deadline = _deadline.active()
            if not (self._build_lock.acquire() if deadline is None
                    else self._build_lock.acquire(timeout=deadline.remaining())):
                raise _deadline.EnumerationStopped(self._progress("another call is building it"))
        try:
            work = self._work
            if work is None:  # another thread finished it meanwhile
                return
            try:
                while work.done < self.n_trees:
                    with self._lock:  # the variable pool is shared with the solvers' users
                        work.step()
                    _deadline.check()
                while work.stages_left:  # then join the trees' parts, a table at a time
                    work.finish_stage()
                    if work.stages_left:
                        _deadline.check()
            except _deadline.EnumerationStopped:
                raise _deadline.EnumerationStopped(self._progress(
                    "calling again continues it")) from None
            with self._lock:
                work.publish()
                self._work = None
        finally:
            self._build_lock.release()

    def _progress(self, then: str) -> str:
        work = self._work
        joining = (f", {work.stages_left} of its tables left to join"
                   if work is not None and work.done == self.n_trees else "")
        return (f"the SAT encoding of this ensemble has {self.trees_built:,} of "
                f"{self.n_trees:,} trees built{joining}; {then}")

    # ------------------------------------------------------------------ arithmetic
    def scores(self, values: np.ndarray) -> np.ndarray:
        """The scores of value rows, exactly as :meth:`TreeEnsemble.scores_of_leaves`:
        ``values`` has shape (..., n_trees, n_scores) (one row per tree, in tree order);
        summed from the start (the base margin, or zeros) tree after tree in the
        ensemble's precision (``numpy.add.accumulate`` is sequential), then divided."""
        lead = values.shape[:-2]
        start = np.broadcast_to(self.start, lead + (1, self.n_scores))
        total = np.add.accumulate(np.concatenate([start, values], axis=-2), axis=-2,
                                  dtype=self.dtype)[..., -1, :]
        if self.divisor is not None:
            total = total / self.divisor
        return total

    def beats(self, scores: np.ndarray, k: int, c: int) -> np.ndarray:
        """Whether class ``k`` is predicted before class ``c`` on score rows (shape
        (..., n_scores)): for several scores, ``S_k > S_c`` or a tie with ``k < c``
        (``numpy.argmax`` takes the first largest); for a binary margin, ``S <= threshold``
        (``k = 0``) or ``S > threshold`` (``k = 1``)."""
        if self.n_scores == 1:
            s = scores[..., 0]
            return s > self.threshold if k == 1 else s <= self.threshold
        a, b = scores[..., k], scores[..., c]
        return (a > b) | ((a == b) & (k < c))

    def decide(self, scores: np.ndarray) -> int:
        """The class index of one score vector (the IR's :meth:`TreeEnsemble.decide`)."""
        if self.n_scores == 1:
            return int(scores[0] > self.threshold)
        return int(np.argmax(scores))

    def _sides(self, k: int, c: int) -> tuple[int | None, int | None]:
        """``(up, down)``: the score whose rise helps ``k`` against ``c`` and the score whose
        fall does (``None``: no such score)."""
        if self.n_scores == 1:
            return (0, None) if k == 1 else (None, 0)
        return k, c

    # ------------------------------------------------------------------ CNF
    def beats_vars(self, c: int) -> dict[int, int]:
        """The variable ``d_k`` of every class ``k`` that can be predicted instead of
        ``c``, in the solver of class ``c``."""
        with self._lock:  # the pool is shared with the build and other threads
            return {k: self.pool.id(("beats", c, k))
                    for k in range(len(self.model.classes)) if k != c}

    def differs(self, c: int) -> list[list[int]]:
        """The leaf and order clauses and ``OR_k d_k``; the meaning of ``d_k`` ("``k`` beats
        ``c``") is added lazily by the solver of class ``c`` (see the module docstring).
        Builds the encoding first (:meth:`build`)."""
        self.build()
        if c not in self._differs:
            with self._lock:
                if c not in self._differs:
                    self._differs[c] = self.leaf_clauses + [list(self.beats_vars(c).values())]
        return self._differs[c]

    def _new_solver(self, c: int, name: str) -> LazySolver:
        """The lazily refined solver of class ``c`` (see the module docstring); its clauses
        are taken from the encoding when it starts, so making it builds nothing."""
        return LazySolver(name, source=(weakref.ref(self), c))

    def phases(self, c: int) -> list[int]:
        """The solver's preferred values of the order variables for class ``c``: every
        tree's value high on the other classes' scores and low on ``c``'s (for a binary
        margin: the side that leads away from ``c``). Its models then lie where another
        class is closest to winning, so each either is a counterexample or gives a lemma
        that rules out much."""
        self.build()
        out = []
        for t in range(self.n_trees):
            for s in range(self.n_scores):
                toward = (s != c) if self.n_scores > 1 else (c == 0)
                out.extend(v if toward else -v for v in self.level_vars[t][s][1:])
        return out

    def oracle(self, cells: Sequence[int], allowed: Sequence[int], universe: int,
               prediction: int, solver: str = DEFAULT_SOLVER) -> EnsembleOracle:
        """The oracle of one instance (arguments of :class:`EnsembleOracle`), on this
        encoding's shared solvers."""
        return EnsembleOracle(self, cells, allowed, universe, prediction, solver=solver)

    # ------------------------------------------------------------------ lemmas
    def leaves_of(self, assignment: list[int]) -> np.ndarray:
        """Positions (in :attr:`leaf_vars`) of the leaves true in a solver model, one per
        tree in tree order."""
        a = np.asarray(assignment[:self._last_leaf], dtype=np.int64)
        return np.flatnonzero(a[self._positions] > 0)

    def bounded(self, held: dict[int, int], c: int) -> bool:
        """True when no class can beat ``c`` inside the box ``held`` (feature -> cells),
        shown without the solver: every tree at its most favourable value for ``k`` among
        the leaves the box admits (each tree on its own), evaluated exactly, still leaves
        ``k`` behind ``c``, for every ``k`` (by monotonicity, as for the lemmas). False
        means "not shown", not "not entailed"."""
        ok = np.ones(len(self.leaf_vars), dtype=bool)
        for f, mask in held.items():
            if self._ordinal[f]:  # an interval a..b
                a, b = (mask & -mask).bit_length() - 1, mask.bit_length() - 1
                ok &= (self.first[f] <= b) & (self.last[f] >= a)
            else:
                cols = [j for j in range(self.cells[f].n_cells) if (mask >> j) & 1]
                ok &= self.admits[f][:, cols[0]] if len(cols) == 1 else \
                    self.admits[f][:, cols].any(axis=1)
        return all(self._behind(ok, k, c) for k in range(len(self.model.classes)) if k != c)

    def _behind(self, ok: np.ndarray, k: int, c: int) -> bool:
        """Whether ``k`` stays behind ``c`` with every tree at its most favourable value
        for ``k`` among the leaves ``ok`` marks (at least one per tree)."""
        up, down = self._sides(k, c)
        best = np.zeros((self.n_trees, self.n_scores), dtype=self.dtype)
        if up is not None:
            vals = np.where(ok, self.leaf_values[:, up], -np.inf).astype(self.dtype)
            best[:, up] = np.maximum.reduceat(vals, self._starts)
        if down is not None:
            vals = np.where(ok, self.leaf_values[:, down], np.inf).astype(self.dtype)
            best[:, down] = np.minimum.reduceat(vals, self._starts)
        return not self.beats(self.scores(best), k, c)

    def box_lemma(self, point: Sequence[int], k: int, c: int) -> list[int]:
        """``not d_k OR x not in B`` for a box ``B`` of cells around ``point`` (where ``k``
        does not beat ``c``) inside which :meth:`bounded` shows that ``k`` never beats
        ``c``: each ordinal feature's interval widened in turn, down then up, as far as
        that stays shown (galloping, then bisection); one-hot features keep their cell.
        Valid everywhere (the box is a statement about the model alone) and short: at most
        two literals per feature. It removes a whole box of points at once, where the
        leaf lemmas remove one combination of leaves."""
        n = len(self.leaf_vars)
        rows = [np.ones(n, dtype=bool)] * len(self.cells)
        span = []
        for f, j in enumerate(point):
            if self._ordinal[f]:
                rows[f] = (self.first[f] <= j) & (self.last[f] >= j)
            else:
                rows[f] = self.admits[f][:, j]
            span.append([j, j])
        for f, cells in enumerate(self.cells):
            if not self._ordinal[f] or cells.n_cells == 1:
                continue
            others = np.logical_and.reduce([rows[g] for g in range(len(rows)) if g != f]) \
                if len(rows) > 1 else np.ones(n, dtype=bool)

            def shown(a: int, b: int, f=f, others=others) -> bool:
                return self._behind(others & (self.first[f] <= b) & (self.last[f] >= a), k, c)

            a, b = span[f]
            lo, step = a, 1  # the lowest start that stays shown, by galloping then halving
            while lo - step >= 0 and shown(lo - step, b):
                lo -= step
                step *= 2
            while step > 1:
                step //= 2
                if lo - step >= 0 and shown(lo - step, b):
                    lo -= step
            hi, step = b, 1
            top = cells.n_cells - 1
            while hi + step <= top and shown(lo, hi + step):
                hi += step
                step *= 2
            while step > 1:
                step //= 2
                if hi + step <= top and shown(lo, hi + step):
                    hi += step
            span[f] = [lo, hi]
            rows[f] = (self.first[f] <= hi) & (self.last[f] >= lo)
        lits = [-self.pool.id(("beats", c, k))]
        for f, (a, b) in enumerate(span):
            mask = ((1 << (b + 1)) - 1) & ~((1 << a) - 1)
            if mask != full_mask(self.cells[f].n_cells):
                lits.extend(self.outside(f, mask))
        return lits

    def refiner(self, c: int) -> Callable[[list[int]], list[list[int]] | None]:
        """``refine(model)`` for :meth:`LazySolver.solve_lazily` on the solver of class
        ``c``: ``None`` when the model's leaves give another class than ``c`` (a
        counterexample), else one lemma per ``d_k`` the model makes true."""
        self.build()
        d = self.beats_vars(c)
        d_pos = {k: v - 1 for k, v in d.items()}

        def refine(assignment: list[int]) -> list[list[int]] | None:
            leaves = self.leaves_of(assignment)
            current = self.leaf_values[leaves]
            if self.decide(self.scores(current)) != c:
                return None
            out = []
            point = self.decode(assignment)
            for k, p in d_pos.items():
                if assignment[p] > 0:
                    out.append(self.lemma(leaves, current, k, c))
                    if _deadline.expired():
                        # the lemmas so far exclude this model; with 26 classes a round's
                        # box lemmas take seconds, so the round ends here and the loop's
                        # poll stops the call
                        break
                    spread = self.spread_lemma(current, k, c)
                    if spread is not None:
                        out.append(spread)
                    out.append(self.box_lemma(point, k, c))
            return out

        return refine

    def spread_lemma(self, current: np.ndarray, k: int, c: int) -> list[int] | None:
        """A second lemma from the same model: every tree held at a value better for ``k``
        than its current one by an equal share of the margin by which ``k`` stays behind
        (rounded down to a level), so it says "some tree improves by at least its share";
        checked exactly, ``None`` when the shares are too small or rounding defeats them."""
        up, down = self._sides(k, c)
        total = self.scores(current)
        if self.n_scores == 1:
            room = (float(total[0]) - float(self.threshold) if up is None
                    else float(self.threshold) - float(total[0]))
        else:
            room = float(total[c]) - float(total[k])
        if self.divisor is not None:
            room *= float(self.divisor)
        share = room / (self.n_trees * ((up is not None) + (down is not None)))
        trees = np.arange(self.n_trees)
        for _ in range(2):
            if not share > 0:
                return None
            trial = current.copy()
            lits: list[np.ndarray] = []
            if up is not None:
                table = self.level_table[up]
                j = (table <= current[:, up].astype(np.float64)[:, None] + share).sum(axis=1) - 1
                trial[:, up] = table[trees, j]
                ids = self.level_ids[up][trees, j + 1]
                lits.append(ids[(j + 1 < self.level_count[up]) & (ids != 0)])
            if down is not None:
                table = self.level_table[down]
                j = (table < current[:, down].astype(np.float64)[:, None] - share).sum(axis=1)
                trial[:, down] = table[trees, j]
                ids = self.level_ids[down][trees, j]
                lits.append(-ids[(j > 0) & (ids != 0)])
            if not self.beats(self.scores(trial), k, c):
                return [-self.pool.id(("beats", c, k))] + np.concatenate(lits).tolist()
            share /= 2
        return None

    def lemma(self, leaves: np.ndarray, current: np.ndarray, k: int, c: int) -> list[int]:
        """The lemma ``not d_k OR OR_{t in T'} better_k(t)`` for the current leaves (where
        ``k`` does not beat ``c``); see the module docstring."""
        up, down = self._sides(k, c)
        n = self.n_trees
        gap = np.zeros(n, dtype=np.float64)
        best = current.copy()
        if up is not None:
            best[:, up] = self.high[:, up]
            gap += self.high[:, up].astype(np.float64) - current[:, up]
        if down is not None:
            best[:, down] = self.low[:, down]
            gap += current[:, down].astype(np.float64) - self.low[:, down]
        d = self.pool.id(("beats", c, k))
        if not self.beats(self.scores(best), k, c):
            return [-d]
        order = np.argsort(-gap, kind="stable")
        lo, hi = 1, n  # the shortest held prefix keeping k from beating c is in [lo, hi]
        while lo < hi:
            mid = (lo + hi) // 2
            trial = best.copy()
            held = order[:mid]
            trial[held] = current[held]
            if self.beats(self.scores(trial), k, c):
                lo = mid + 1
            else:
                hi = mid
        held = order[:lo]
        rows = leaves[held]
        lits = [-d]
        if up is not None:
            o = self.order_var[rows, up, 1]
            lits.extend(o[o != 0].tolist())
        if down is not None:
            o = self.order_var[rows, down, 0]
            lits.extend((-o[o != 0]).tolist())
        return lits

    # ------------------------------------------------------------------ complete forms
    def votes_differ(self, c: int) -> list[list[int]]:
        """A complete CNF of "the vote does not give class ``c``" (for export; the solvers
        use the lazy form): the leaf clauses, per class ``k`` a sequential counter of the
        trees voting ``k`` (``("count", k, i, j)``: at least ``j`` of the first ``i`` trees,
        defined in both directions; Sinz, "Towards an optimal CNF encoding of Boolean
        cardinality constraints", CP 2005), and ``d_k -> OR_j z_{k,j}`` with
        ``z_{k,j} -> (count_k >= j and not count_c >= j')`` (``j' = j`` when ``k > c``,
        ``j + 1`` when ``k < c``: ties go to the first class), and ``OR_k d_k``.

        Raises
        ------
        UnsupportedModelError
            For an ensemble that is not a vote.
        """
        model = self.model
        if model.combine != "vote":
            raise UnsupportedModelError(
                f"a {model.combine} ensemble's float sums have no exact CNF here; write its "
                "MaxSAT form instead (xdt.explain.export.wcnf_text)")
        self.build()
        clauses = list(self.leaf_clauses)
        ge: dict[int, list] = {}
        bounds = np.searchsorted(self.leaf_tree, np.arange(self.n_trees + 1))
        for k in range(len(model.classes)):
            lits: list[int] = []
            always = 0
            for t in range(self.n_trees):
                lo, hi = int(bounds[t]), int(bounds[t + 1])
                if self.low[t, k] == 1:
                    always += 1
                elif self.high[t, k] == 1:
                    lits.append(int(self.order_var[lo + int(np.argmax(
                        self.leaf_values[lo:hi, k])), k, 0]))
            counted = _counter(lits, self.pool, k, clauses)
            ge[k] = [True] * (always + 1) + counted[1:] + [False]  # ge[k][j]: >= j votes
        d = self.beats_vars(c)
        for k, dk in d.items():
            zs = []
            top = len(ge[k]) - 1
            for j in range(0 if k < c else 1, top):
                a = ge[k][j]
                jc = j + 1 if k < c else j
                b = ge[c][jc] if jc < len(ge[c]) else False
                if a is False or b is True:
                    continue
                z = self.pool.id(("more", c, k, j))
                if a is not True:
                    clauses.append([-z, a])
                if b is not False:
                    clauses.append([-z, -b])
                zs.append(z)
            clauses.append([-dk] + zs)
        clauses.append(list(d.values()))
        return clauses

    def advantage(self, k: int, c: int) -> tuple[dict[int, int], int, int, bool]:
        """The exact integer form of "how much class ``k`` leads class ``c``" in real
        arithmetic, for the MaxSAT export: ``(weights, offset, scale, strict)`` where, at a
        point whose trees reach leaves ``y``, the lead is ``(offset + sum of weights[y]) /
        scale`` (every weight >= 0: each tree's values shifted by its smallest), and ``k``
        wins in exact arithmetic when the lead is ``> 0`` (``strict``) or ``>= 0``.

        The lead is ``S_k - S_c`` (the division of averaged probabilities is dropped: it
        does not change the order); for a binary margin ``S - threshold`` (``k = 1``) or
        ``threshold - S`` (``k = 0``). Every float is a dyadic rational ``m * 2**e``, so a
        power of two makes all of them integers without rounding."""
        self.build()
        up, down = self._sides(k, c)
        n = len(self.leaf_vars)
        lead = [Fraction(0)] * n
        const = Fraction(0)
        if up is not None:
            lead = [a + Fraction(float(v)) for a, v in zip(lead, self.leaf_values[:, up],
                                                           strict=True)]
            const += Fraction(float(self.start[up]))
        if down is not None:
            lead = [a - Fraction(float(v)) for a, v in zip(lead, self.leaf_values[:, down],
                                                           strict=True)]
            const -= Fraction(float(self.start[down]))
        if self.n_scores == 1:
            t = Fraction(float(self.threshold))
            const += -t if up is not None else t
        bounds = np.searchsorted(self.leaf_tree, np.arange(self.n_trees + 1))
        shifted = list(lead)
        for tree in range(self.n_trees):
            lo, hi = int(bounds[tree]), int(bounds[tree + 1])
            least = min(lead[lo:hi])
            const += least
            shifted[lo:hi] = [v - least for v in lead[lo:hi]]
        scale = max(f.denominator for f in shifted + [const])  # a power of two
        weights = {int(y): int(f * scale)
                   for y, f in zip(self.leaf_vars.tolist(), shifted, strict=True)}
        strict = (k > c) if self.n_scores > 1 else (up is not None)
        return weights, int(const * scale), scale, strict

    def describe_var(self, v: int) -> str:
        obj = self.pool.obj(v)
        model = self.model
        if isinstance(obj, tuple) and obj[0] == "leaf":
            return f"tree {obj[1]} reaches the leaf of its path {obj[2]}"
        if isinstance(obj, tuple) and obj[0] == "order":
            return f"tree {obj[1]}'s leaf value on score {obj[2]} is at least its level {obj[3]}"
        if isinstance(obj, tuple) and obj[0] == "beats":
            return (f"class {model.classes[obj[2]]!r} is predicted before "
                    f"{model.classes[obj[1]]!r}")
        if isinstance(obj, tuple) and obj[0] == "count":
            return (f"at least {obj[3]} of the first {obj[2]} trees that can vote "
                    f"{model.classes[obj[1]]!r} vote it")
        if isinstance(obj, tuple) and obj[0] == "more":
            return (f"class {model.classes[obj[2]]!r} has at least {obj[3]} votes and "
                    f"{model.classes[obj[1]]!r} too few to win against it")
        return super().describe_var(v)


class EnsembleOracle(SatOracle):
    """Entailment for one instance of a tree ensemble:
    :class:`~xdt.explain.engines.SatOracle`'s assumptions, answered by the lazily refined
    solver of the instance's class (:meth:`EnsembleEncoding.refiner`)."""

    encoding: EnsembleEncoding

    def __init__(self, encoding: EnsembleEncoding, cells: Sequence[int],
                 allowed: Sequence[int], universe: int, prediction: int,
                 solver: str = DEFAULT_SOLVER):
        super().__init__(encoding, cells, allowed, universe, prediction, solver=solver)
        self._refine: Callable | None = None  # encoding.refiner(prediction), once built
        self.max_rounds: int | None = None  # solver calls per query (None: no limit)
        self._witnesses: list[tuple[int, ...]] = []  # points of another class, newest first

    @property
    def clauses(self) -> list[list[int]]:
        """The per-instance CNF equivalent to this oracle, with selectors (see
        :attr:`SatOracle.clauses <xdt.explain.engines.SatOracle.clauses>`): for a vote, the
        complete form :meth:`EnsembleEncoding.votes_differ`. The solver's own clauses are
        not equivalent (their arithmetic is added lazily), so sums have no such CNF:
        :class:`~xdt.errors.UnsupportedModelError` points to the MaxSAT form."""
        enc = self.encoding
        return enc.domain + enc.votes_differ(self.prediction) + [
            [-s] + clause for f, s in enumerate(self.selectors)
            for clause in enc.inside(f, self.allowed[f])]

    def _lazy(self, assumptions: list[int], held: dict[int, int]) -> tuple[int, ...] | None:
        """Cells of a point of another class inside the box ``held`` (whose assumption
        literals are ``assumptions``), or ``None``. Before the solver: a point of another
        class found earlier for this instance that lies in the box answers at once, and so
        does :meth:`EnsembleEncoding.bounded` when it shows that no class can win."""
        for point in self._witnesses:
            if all((m >> point[f]) & 1 for f, m in held.items()):
                return point
        shared = self._open()
        self.encoding.build()  # on the first query, under its deadline (resumable)
        if self._refine is None:
            self._refine = self.encoding.refiner(self.prediction)
        if self.encoding.bounded(held, self.prediction):
            return None
        model = shared.solve_lazily(assumptions, self._refine,  # type: ignore[attr-defined]
                                    self.max_rounds)
        if model is None:
            return None
        point = self.encoding.decode(model)
        self._witnesses.insert(0, point)
        del self._witnesses[WITNESSES:]
        return point

    def _held(self, fixed: int) -> dict[int, int]:
        allowed = self.allowed
        return {f: allowed[f] for f in bits(fixed)}

    def entails(self, fixed: int) -> bool:
        return self._lazy(self._assumptions(fixed), self._held(fixed)) is None

    def counterexample(self, fixed: int) -> tuple[int, ...] | None:
        return self._lazy(self._assumptions(fixed), self._held(fixed))

    def counterexample_cells(self, held: dict[int, int]) -> tuple[int, ...] | None:
        assumptions: list[int] = []
        for f, mask in held.items():
            assumptions += self.encoding.fixing(f, mask)
        return self._lazy(assumptions, dict(held))


def _counter(lits: list[int], pool, k: int, clauses: list[list[int]]) -> list:
    """Sequential counter over ``lits``, defined in both directions (appended to
    ``clauses``): returns ``ge`` with ``ge[j]`` the literal of "at least ``j`` of ``lits``
    are true" (``ge[0]`` is ``True``), ``j = 0..len(lits)``."""
    prev: list = [True]  # ge over the first i - 1 inputs; beyond its end: False
    for i, x in enumerate(lits, start=1):
        cur: list = [True]
        for j in range(1, i + 1):
            a = prev[j] if j < len(prev) else False  # >= j among the first i - 1
            b = prev[j - 1]  # >= j - 1 among them
            if a is True:
                cur.append(True)
                continue
            s = pool.id(("count", k, i, j))
            # s <-> a or (x and b)
            if a is not False:
                clauses.append([-a, s])
            if b is True:
                clauses.append([-x, s])
            elif b is not False:
                clauses.append([-x, -b, s])
            clauses.append([-s] + ([a] if a is not False else []) + [x])
            if b is not True:
                clauses.append([-s] + ([a] if a is not False else [])
                               + ([b] if b is not False else []))
            cur.append(s)
        prev = cur
    return prev
