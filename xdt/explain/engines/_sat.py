"""The SAT oracle: entailment for any model the encoder knows, with PySAT.

Encoding (documented with a worked example in ``encodings/README.md``):

* **Cells.** A categorical or binary feature with ``k`` cells gets one variable per cell,
  ``[x = v_j]``, constrained to exactly one true (one-hot). An ordinal feature with
  thresholds ``t_0 < ... < t_{m-1}`` gets one variable per threshold, ``[x > t_j]``, with the
  order clauses ``[x > t_j] -> [x > t_{j-1}]`` (order encoding); cell ``j`` is
  ``[x > t_{j-1}] and not [x > t_j]``.
* **Literals.** ``x in S`` (a cell set) is the clause ``OR_{j in S} [x = v_j]`` for a one-hot
  feature; for an ordinal feature ``S`` is an interval of cells ``a..b`` and the literal is
  ``[x > t_{a-1}] and not [x > t_b]``. Its negation ``x not in S`` is a single clause in both
  cases.
* **"The prediction differs from class c".** The model lists, per class, the terms that
  imply it when it knows them (:func:`xdt.explain._models.implying_terms`): a decision
  tree's paths of each class, a DNF's terms for ``classes[1]``. Two encodings cover every
  model:

  - *the terms of c are listed*: every term of ``c`` is falsified — one clause per term,
    the disjunction of the negations of its literals (one literal per feature: the
    intersection of the term's tests on it). For a tree, its paths of class ``c``; for a
    DNF and ``c = classes[1]`` ("the DNF is false"), its terms;
  - *they are not, and the model is binary* (a DNF and ``c = classes[0]``, "the DNF is
    true"): some term of the other class holds — an auxiliary variable ``t_p`` per term
    ``p`` of the other class with ``t_p -> l`` for each literal ``l`` of ``p`` (one clause,
    or for an ordinal interval two unit implications), plus the clause ``OR_p t_p``. Only
    the direction ``t_p -> p`` is needed: a model of the formula makes some ``t_p`` true,
    hence term ``p`` true; conversely a point where term ``p`` holds extends to a model
    with ``t_p`` true.

  A *decision list* (:class:`~xdt.ir.DecisionList`) lists neither: a variable
  ``r_i`` per rule is made *equivalent* to its term (``r_i -> l`` for each literal ``l``, and
  ``OR_l not l OR r_i``), and "the first rule that fires is not of class c" is one clause per
  rule ``i`` of class ``c``, ``not r_i OR r_1 OR ... OR r_{i-1}`` (rule ``i`` is false or an
  earlier rule fires), plus ``r_1 OR ... OR r_m`` when ``c`` is the default class (some rule
  fires). Both directions of the equivalence are needed: ``r_j`` occurs positively for an
  earlier rule and negatively for a rule of ``c``.

  A DNF with no terms (always ``classes[0]``) gives the empty clause for "the DNF is true";
  a term with no literal (always true) gives the empty clause for "the DNF is false": the
  formula is then UNSAT, as it should be.
* **Background constraints** (:mod:`xdt.ir._constraints`, an xdt extension), when the model
  carries them, are part of the domain clauses (:meth:`ModelEncoding._constraint_clauses`):
  entailment then means "every point agreeing with the instance on ``S`` *and satisfying
  the constraints* is of class ``c``", and every model of the formula (a counterexample)
  satisfies them.
* **Instances as assumptions.** The clauses above depend on the model and the class only: they
  are built once per model (:func:`~xdt.explain.engines.shared_encoding`), and one
  incremental solver per (model, class, solver name) is loaded with ``domain + differs(c)``. An
  instance adds no clause: holding feature ``f`` to its allowed cells ``A_f`` (the instance's
  cell or, path-restricted, the path's literal) is a list of assumption literals
  (:meth:`ModelEncoding.fixing`): ``[x > t_{a-1}]`` and ``not [x > t_b]`` for an ordinal
  interval ``a..b``; ``[x = v_j]`` for one cell of a one-hot feature, and ``not [x = v_j]`` for
  each excluded cell of a larger set. Entailment of a set ``S`` of fixed features is one call
  under the assumptions of the features of ``S``: UNSAT means every point agreeing on ``S`` has
  class ``c``; a model is a counterexample. Learnt clauses follow from the shared clauses
  alone, so they are valid for every instance.
* **Selectors** exist only in the per-instance CNF written for other solvers
  (:mod:`xdt.explain.export._dimacs`, :attr:`SatOracle.clauses`): one variable ``s_f`` per feature
  with ``s_f -> (x_f in A_f)``; assuming the selectors of ``S`` there is the same query.

Time limits: under a caller's deadline (:mod:`xdt.explain.engines._deadline`) every solver
call is made in slices of a conflict budget (:func:`solve_within`: PySAT's ``conf_budget``
and ``solve_limited``; CaDiCaL 1.9.5 has no asynchronous ``interrupt``), with the deadline
polled between slices, and a solver is loaded in slices of clauses likewise; a call past the
deadline raises :class:`~xdt.explain.engines._deadline.EnumerationStopped`.

Lifetimes: a :class:`SatOracle` (one instance) is closed by :meth:`SatOracle.close` (it is a
context manager; a finaliser closes a forgotten one); the shared solvers belong to the
model's encoding, serve all its explainers, and are released when the model is
garbage-collected or by :func:`~xdt.explain.engines.release_solvers`. Each shared solver
answers one query at a time (a lock), so explainers of one model may run in several threads.

References: Izza, Ignatiev & Marques-Silva, "On Explaining Decision Trees", Section 4
(entailment of a set of literals); Ignatiev, Narodytska & Marques-Silva, "Abduction-Based
Explanations for Machine Learning Models", AAAI 2019 (AXps by SAT oracle calls); Cooper,
Bousdira & Carbonnel, "Interpretable DNFs", IJCAI 2025, Section 2 (a DNF's positive
decisions are implied by its terms, its negative ones by the terms of its complement,
which the encoding never has to list); Ignatiev & Marques-Silva, "SAT-Based Rigorous
Explanations for Decision Lists", SAT 2021, Section 3 (the encoding of a decision list's
first firing rule).
"""

from __future__ import annotations

import importlib.util
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from itertools import compress
from operator import itemgetter

from pysat.card import CardEnc, EncType
from pysat.formula import IDPool
from pysat.solvers import Solver, SolverNames

from xdt.errors import (
    EngineClosedError,
    EngineNotAvailableError,
    ParameterError,
    UnsupportedModelError,
)
from xdt.explain._models import Model, implying_terms
from xdt.explain.engines import _deadline
from xdt.explain.engines._oracle import EntailmentOracle, bits
from xdt.ir._cells import IntervalCells, full_mask
from xdt.ir._protocol import RULES, TREES, offers

DEFAULT_SOLVER = "cadical195"
UNUSABLE = {
    "kissat404": "does not support assumptions (it ignores them, so every entailment query "
                 "would drop its fixed features)",
    "lingeling": "does not support repeated assumptions (PySAT's Lingeling aborts the process "
                 "when assuming a variable an earlier call eliminated)",
}
"""PySAT solvers the SAT engine cannot use here (no incremental assumptions, or a missing
optional package), and why."""
if importlib.util.find_spec("pycryptosat") is None:
    UNUSABLE["cryptosat"] = "needs the pycryptosat package (pip install pycryptosat)"
_ALIASES = {k: getattr(SolverNames, k) for k in vars(SolverNames)
            if not k.startswith("_") and k not in UNUSABLE}
SOLVERS = tuple(sorted(k if k in a else a[-1] for k, a in _ALIASES.items()))
"""Names of the PySAT solvers the SAT engine accepts (each also under PySAT's aliases)."""


_KNOWN = frozenset(alias for aliases in _ALIASES.values() for alias in aliases)


def check_solver(name: str) -> str:
    """``name`` if PySAT knows a solver by that name that answers incremental queries under
    assumptions; else :class:`EngineNotAvailableError`."""
    if name not in _KNOWN:
        why = next((why for k, why in UNUSABLE.items() if name in getattr(SolverNames, k)),
                   None)
        what = f"SAT solver {name!r} {why}" if why else f"unknown SAT solver {name!r}"
        raise EngineNotAvailableError(f"{what}; PySAT offers: {', '.join(SOLVERS)}")
    return name


def _interval(mask: int) -> tuple[int, int]:
    """``(a, b)`` when ``mask`` is the run of cells ``a..b``; :class:`ParameterError`
    otherwise."""
    if mask > 0:
        a, b = (mask & -mask).bit_length() - 1, mask.bit_length() - 1
        if mask >> a == (1 << (b - a + 1)) - 1:
            return a, b
    raise ParameterError(f"cell set {bits(mask)} of an ordinal feature is not an interval; "
                         "hold an ordinal feature to a run of consecutive cells")


FIRST_BUDGET = 128
"""Conflicts of the first slice of a solver call under a deadline (:func:`solve_within`)."""
SLICE_SECONDS = 0.05
"""A slice that ended within this many seconds without an answer doubles the next slice's
conflict budget; a slower one keeps it, so one slice takes about this long at most (twice
it, as the doubling overshoots)."""
LOAD_SLICE = 20_000
"""Clauses loaded into a new solver between two polls of the deadline."""


def solve_within(solver: Solver, assumptions: list[int]) -> bool:
    """``solver.solve(assumptions=assumptions)``, and under an active deadline
    (:func:`xdt.explain.engines._deadline.active`) in slices of a conflict budget (the first
    :data:`FIRST_BUDGET` conflicts, then doubled while slices stay under
    :data:`SLICE_SECONDS`), the deadline polled before each slice. The solver keeps what it
    learnt between slices, so the answer is the unlimited call's.

    Raises
    ------
    EnumerationStopped
        When the deadline passes before an answer (the solver stays usable).
    """
    deadline = _deadline.active()
    if deadline is None:
        return solver.solve(assumptions=assumptions)
    budget = FIRST_BUDGET
    while True:
        deadline.check()
        try:
            solver.conf_budget(budget)
        except NotImplementedError:  # a solver without budgets: one unbounded call
            return solver.solve(assumptions=assumptions)
        started = time.monotonic()
        answer = solver.solve_limited(assumptions=assumptions)
        if answer is not None:
            return answer
        if time.monotonic() - started < SLICE_SECONDS:
            budget *= 2


def load_solver(name: str, clauses: list[list[int]]) -> Solver:
    """A new PySAT solver ``name`` holding ``clauses``, loaded :data:`LOAD_SLICE` clauses at a
    time with the active deadline polled in between (a solver stopped half loaded is
    deleted; :class:`~xdt.explain.engines._deadline.EnumerationStopped` is raised)."""
    solver = Solver(name=name)
    try:
        for i in range(0, len(clauses), LOAD_SLICE):
            if i:
                _deadline.check()
            solver.append_formula(clauses[i:i + LOAD_SLICE])
    except BaseException:
        solver.delete()
        raise
    return solver


class SharedSolver:
    """One incremental PySAT solver over a fixed clause list, used by one thread at a time.

    The solver is started on first use and can be released (:meth:`release`) and started
    again; every call runs under a lock, so the oracles of several threads can share it.
    Starting it loads the clauses :data:`LOAD_SLICE` at a time with the active deadline
    polled in between; a load the deadline stops is kept, and the next call continues it
    (a solver is used only once fully loaded).

    Parameters
    ----------
    name : str
        The PySAT solver name.
    clauses : list of clauses
        What the solver is loaded with (the domain clauses and one ``differs(c)``).
    """

    __slots__ = ("name", "clauses", "lock", "_solver", "starts", "_loading", "_loaded",
                 "__weakref__")

    def __init__(self, name: str, clauses: list[list[int]]):
        self.name = name
        self.clauses = clauses
        self.lock = threading.Lock()
        self._solver: Solver | None = None
        self.starts = 0  # how many times a solver was started (1 unless released)
        self._loading: Solver | None = None  # a solver whose load a deadline stopped
        self._loaded = 0  # how many clauses it holds

    @property
    def alive(self) -> bool:
        """Whether a solver is running (started and not released)."""
        return self._solver is not None

    def _start(self) -> Solver:
        """The solver, loaded with :attr:`clauses`: a new one, or the one whose load a
        deadline stopped, continued. At least one slice is loaded per call, so repeated
        calls under short deadlines finish the load.

        Raises
        ------
        EnumerationStopped
            When the deadline passes before every clause is loaded (the load is kept)."""
        solver = self._loading
        if solver is None:
            solver = self._loading = Solver(name=self.name)
            self._loaded = 0
        parts = self._parts()
        total = sum(len(part) for part in parts)
        while self._loaded < total:
            offset = self._loaded
            for part in parts:  # the part the next clause is in
                if offset < len(part):
                    break
                offset -= len(part)
            piece = part[offset:offset + LOAD_SLICE]
            solver.append_formula(piece)
            self._loaded += len(piece)
            if self._loaded < total and _deadline.expired():
                raise _deadline.EnumerationStopped(
                    f"the SAT solver has {self._loaded:,} of {total:,} clauses loaded; "
                    "calling again continues it")
        self._loading = None
        self._solver = solver
        self.starts += 1
        return solver

    def _parts(self) -> list:
        """The clause lists loaded into a new solver, in order: :attr:`clauses`."""
        return [self.clauses]

    def satisfiable(self, assumptions: list[int]) -> bool:
        """Whether the clauses are satisfiable under ``assumptions`` (:func:`solve_within`:
        under a deadline, in budgeted slices)."""
        with self.lock:
            return solve_within(self._solver or self._start(), assumptions)

    def solve(self, assumptions: list[int], model: bool = False) -> tuple[bool, list[int] | None]:
        """``(satisfiable, model)`` under ``assumptions``; the model (``get_model()``, one
        signed literal per variable) only when asked for and satisfiable."""
        with self.lock:
            solver = self._solver or self._start()
            sat = solve_within(solver, assumptions)
            return sat, (solver.get_model() if sat and model else None)

    def release(self, wait: bool = True) -> None:
        """Delete the solver (idempotent); the next call starts a new one.

        With ``wait=False`` (from finalisers, which garbage collection may run inside any
        call) a solver busy in another call is left alone instead of waited for; PySAT
        frees it with this object."""
        if not self.lock.acquire(blocking=wait):
            return
        try:
            if self._solver is not None:
                self._solver.delete()
                self._solver = None
            if self._loading is not None:
                self._loading.delete()
                self._loading = None
        finally:
            self.lock.release()


class ModelEncoding:
    """The CNF of a model's cell space and of "the prediction differs from class c", and the
    incremental solvers over it.

    Built once per model: :func:`~xdt.explain.engines.shared_encoding` keeps one per
    model object for every
    :class:`~xdt.Explainer` and instance of it, and :meth:`solver` one incremental solver
    per (class, solver name) over ``domain + differs(c)``. An instance never adds a clause:
    :class:`SatOracle` poses it as assumptions on the cell variables (:meth:`fixing`).

    Parameters
    ----------
    model : DecisionTree or DNF
        Held by the encoding (:func:`~xdt.explain.engines.shared_encoding` holds it
        weakly instead, so that the cache does not keep a model alive).
    lazy : bool, default False
        For kinds whose encoding takes long to build (tree ensembles:
        :class:`~xdt.explain.engines.EnsembleEncoding`), build it on first use
        (:meth:`build`); the clauses here are cheap and always built at once.

    Attributes
    ----------
    model : DecisionTree or DNF
    pool : IDPool
        Variable numbering; ``pool.obj(v)`` names variable ``v``: ``("cell", f, j)``,
        ``("gt", f, j)`` (ordinal ``x_f > t_j``), ``("term", c, p)`` (term ``p`` of class
        index ``c`` holds; see the module docstring), ``("rule", i)`` (rule ``i`` of a
        decision list holds), ``("selector", f)`` (only in the
        per-instance CNF written for export, :attr:`SatOracle.clauses`) or auxiliary
        cardinality variables (``None``).
    domain : list of clauses
        One-hot and order clauses.
    cell_literals : list of list of list of int
        ``cell_literals[f][j]``: the assumption literals that put feature ``f`` in cell
        ``j`` (``[x_f = v_j]``; or ``[x_f > t_{j-1}]`` and ``not [x_f > t_j]``, those that
        exist).

    Raises
    ------
    UnsupportedModelError
        For a model the encoder does not know.
    """

    def __init__(self, model: Model, *, lazy: bool = False):
        if not isinstance(model, Model):
            raise UnsupportedModelError(
                "the SAT encoder knows decision trees, tree ensembles, DNFs, nested k-DNFs "
                f"and decision lists; cannot encode {type(model).__name__}")
        if offers(model, TREES) and type(self).differs is ModelEncoding.differs:
            raise UnsupportedModelError(
                "a tree ensemble is encoded by "
                "xdt.explain.engines.EnsembleEncoding (use "
                "xdt.explain.engines.shared_encoding(model))")
        self._ref = weakref.ref(model)
        self._held: Model | None = model
        self.cells = model.cells
        self.pool = IDPool()
        self.domain: list[list[int]] = []
        self._differs: dict[int, list[list[int]]] = {}
        self._ordinal = [isinstance(c, IntervalCells) for c in self.cells]
        self._vars: list[list[int]] = []  # per feature: its gt or cell variables, in order
        self.cell_literals: list[list[list[int]]] = []
        for f, cells in enumerate(self.cells):
            n = cells.n_cells
            if self._ordinal[f]:
                gts = [self.pool.id(("gt", f, j)) for j in range(n - 1)]
                self.domain.extend([[-gts[j], gts[j - 1]] for j in range(1, len(gts))])
                self._vars.append(gts)
                self.cell_literals.append(
                    [([gts[j - 1]] if j > 0 else []) + ([-gts[j]] if j < n - 1 else [])
                     for j in range(n)])
            else:
                lits = [self.pool.id(("cell", f, j)) for j in range(n)]
                self.domain.extend(self._exactly_one(lits))
                self._vars.append(lits)
                self.cell_literals.append([[v] for v in lits])
        self._fixing: dict[tuple[int, int], list[int]] = {}
        constraints = getattr(model, "constraints", None)
        if constraints:
            self.domain.extend(self._constraint_clauses(constraints))
        self._lock = threading.RLock()
        self._solvers: dict[tuple[int, str], SharedSolver] = {}
        self._finalizer = weakref.finalize(self, _release_all, self._solvers)

    def _constraint_clauses(self, constraints) -> list[list[int]]:
        """Clauses of the model's background constraints (:mod:`xdt.ir._constraints`), over
        the cell variables: per forbidden combination or implication ``(when, unless)``, one
        clause ``OR_{l in when} not l OR OR_{l in unless} l`` (``not l`` is
        :meth:`outside`; ``l`` is one clause for a one-hot feature or a one-sided interval,
        else an auxiliary variable ``("cond", f, mask)`` implying both of its bounds); per
        ordering of ``x`` and ``y`` (which share their thresholds), ``[x > t_j] ->
        [y > t_j]`` for every ``j``: ``x``'s cell is at most ``y``'s, which is exactly when
        some real ``x <= y`` (or ``x < y``) lies in the two cells."""
        out: list[list[int]] = []
        for when, unless in constraints.rules:
            clause: list[int] = []
            for f, mask in when:
                clause.extend(self.outside(f, mask))
            satisfied = False
            for f, mask in unless:
                if mask == full_mask(self.cells[f].n_cells):
                    satisfied = True
                    break
                if not self._ordinal[f]:
                    clause.extend(self._vars[f][j] for j in bits(mask))
                    continue
                lits = self.fixing(f, mask)
                if len(lits) == 1:
                    clause.append(lits[0])
                    continue
                aux = self.pool.id(("cond", f, mask))
                out.extend([-aux, lit] for lit in lits)
                clause.append(aux)
            if not satisfied:
                out.append(clause)
        for a, b, _ in constraints.orders:
            out.extend([-ga, gb] for ga, gb in zip(self._vars[a], self._vars[b], strict=True))
        return out

    @property
    def model(self) -> Model:
        model = self._ref()
        if model is None:
            raise EngineClosedError("the model of this SAT encoding has been garbage-collected; "
                                    "keep a reference to the model while using its encoding")
        return model

    def _exactly_one(self, lits: list[int]) -> list[list[int]]:
        if len(lits) <= 6:
            enc = CardEnc.equals(lits=lits, bound=1, encoding=EncType.pairwise)
        else:
            enc = CardEnc.equals(lits=lits, bound=1, vpool=self.pool, encoding=EncType.seqcounter)
        return [list(c) for c in enc.clauses]

    complete = True
    """Whether the encoding is built (see :meth:`build`)."""

    def build(self) -> None:
        """Finish building the encoding (a no-op here: it is built when made; kinds built on
        first use, such as tree ensembles, override it)."""

    # ------------------------------------------------------------------ solvers
    def solver(self, c: int, name: str = DEFAULT_SOLVER) -> SharedSolver:
        """The incremental solver over ``domain + differs(c)`` (one per class and solver
        name, made on first use and kept until :meth:`release`)."""
        key = (c, name)
        shared = self._solvers.get(key)
        if shared is None:
            with self._lock:
                shared = self._solvers.get(key)
                if shared is None:
                    shared = self._new_solver(c, name)
                    self._solvers[key] = shared
        return shared

    def _new_solver(self, c: int, name: str) -> SharedSolver:
        """A solver over ``domain + differs(c)`` (kinds of models with other solvers, such as
        the lazily refined ones of tree ensembles, override it)."""
        return SharedSolver(name, self.domain + self.differs(c))

    def oracle(self, cells: Sequence[int], allowed: Sequence[int], universe: int,
               prediction: int, solver: str = DEFAULT_SOLVER) -> SatOracle:
        """The entailment oracle of one instance on this encoding's solvers (the parameters
        of :class:`SatOracle`)."""
        return SatOracle(self, cells, allowed, universe, prediction, solver=solver)

    def release(self) -> None:
        """Delete the running solvers (idempotent), waiting for a query in progress. They
        start again on the next query, so this frees memory without closing any oracle."""
        _release_all(self._solvers, wait=True)

    # ------------------------------------------------------------------ literals
    def is_ordinal(self, f: int) -> bool:
        return self._ordinal[f]

    def inside(self, f: int, mask: int) -> list[list[int]]:
        """Clauses meaning ``x_f in mask`` (a cell set; an interval for ordinal features)."""
        n = self.cells[f].n_cells
        if mask == full_mask(n):
            return []
        if not self._ordinal[f]:
            return [[self._vars[f][j] for j in bits(mask)]]
        return [[lit] for lit in self.fixing(f, mask)]

    def outside(self, f: int, mask: int) -> list[int]:
        """One clause meaning ``x_f not in mask``."""
        if not self._ordinal[f]:
            return [v for j, v in enumerate(self._vars[f]) if not (mask >> j) & 1]
        return [-lit for lit in self.fixing(f, mask)]

    def fixing(self, f: int, mask: int) -> list[int]:
        """Assumption literals meaning ``x_f in mask`` (a cell set; a non-empty interval
        for ordinal features): for an ordinal interval ``a..b``, ``[x > t_{a-1}]`` and
        ``not [x > t_b]`` (those that exist); for a one-hot feature, ``[x = v_j]`` for a
        single cell, else ``not [x = v_j]`` for every excluded cell (the exactly-one
        constraint does the rest). Empty for the set of every cell. Cached per
        ``(f, mask)``; do not modify the list returned.

        Raises
        ------
        ParameterError
            For an ordinal cell set that is not an interval (or is empty), or a mask
            naming cells the feature does not have.
        """
        key = (f, mask)
        lits = self._fixing.get(key)
        if lits is not None:
            return lits
        n = self.cells[f].n_cells
        if mask < 0 or mask > full_mask(n):
            raise ParameterError(f"cell mask {mask:#b} is not a set of the {n} cells of "
                                 f"feature {f}")
        if mask == full_mask(n):
            lits = []
        elif self._ordinal[f]:
            a, b = _interval(mask)
            gts = self._vars[f]
            lits = ([gts[a - 1]] if a > 0 else []) + ([-gts[b]] if b < n - 1 else [])
        elif mask and mask & (mask - 1) == 0:
            lits = [self._vars[f][mask.bit_length() - 1]]
        else:
            lits = [-v for j, v in enumerate(self._vars[f]) if not (mask >> j) & 1]
        self._fixing[key] = lits
        return lits

    def fixings(self, cells: Sequence[int], allowed: Sequence[int]) -> list[list[int]]:
        """Per feature, the assumption literals holding it to ``allowed[f]``; for the
        instance's own cell (``allowed[f] == 1 << cells[f]``) :attr:`cell_literals`."""
        table = self.cell_literals
        return [table[f][c] if a == 1 << c else self.fixing(f, a)
                for f, (c, a) in enumerate(zip(cells, allowed, strict=True))]

    def differs(self, c: int) -> list[list[int]]:
        """Clauses meaning "the model does not predict class index ``c``" (see the module
        docstring): every listed term of ``c`` falsified, or, when the model does not list
        them and is binary, some term of the other class true; for a decision list, the
        first rule that fires is of another class."""
        if c not in self._differs:
            with self._lock:
                if c not in self._differs:
                    if offers(self.model, RULES):
                        self._differs[c] = self._first_rule_differs(c)
                        return self._differs[c]
                    terms = implying_terms(self.model, c)
                    if terms is not None:
                        self._differs[c] = [self.falsified(masks) for _, masks in terms]
                    else:
                        self._differs[c] = self._some_term(1 - c)
        return self._differs[c]

    def falsified(self, masks: dict[int, int]) -> list[int]:
        """One clause meaning "the term ``masks`` (feature -> cells) does not hold"."""
        clause: list[int] = []
        for f, mask in masks.items():
            clause.extend(self.outside(f, mask))
        return clause

    def rule_definitions(self) -> list[list[int]]:
        """Clauses making ``("rule", i)`` equivalent to rule ``i`` of a decision list:
        ``r_i -> l`` per literal ``l`` and ``(OR_l not l) OR r_i``."""
        clauses: list[list[int]] = []
        for i, term in enumerate(self.model.terms):
            r = self.pool.id(("rule", i))
            masks = term.masks()
            for f, mask in masks.items():
                clauses.extend([-r] + clause for clause in self.inside(f, mask))
            clauses.append(self.falsified(masks) + [r])
        return clauses

    def _first_rule_differs(self, c: int) -> list[list[int]]:
        """Clauses meaning "the first rule of the decision list that fires is not of class
        index ``c``, and when none fires the default is not ``c``" (module docstring)."""
        model = self.model
        rules = [self.pool.id(("rule", i)) for i in range(model.n_rules)]
        clauses = self.rule_definitions()
        for i, label in enumerate(model.rule_class.tolist()):
            if label == c:
                clauses.append([-rules[i]] + rules[:i])
        if model.default_class == c:
            clauses.append(list(rules))
        return clauses

    def _some_term(self, other: int) -> list[list[int]]:
        """Clauses meaning "some listed term of class index ``other`` holds": ``t_p -> l``
        for every literal ``l`` of term ``p``, and ``OR_p t_p``."""
        model = self.model
        if len(model.classes) != 2:
            raise UnsupportedModelError(
                "the SAT encoder needs the terms of every class of a model with more than two "
                "classes")
        terms = implying_terms(model, other)
        if terms is None:
            raise UnsupportedModelError(
                f"{type(model).__name__} lists the terms of neither class; the SAT "
                "encoder cannot say when its prediction differs")
        clauses: list[list[int]] = []
        some: list[int] = []
        for p, masks in terms:
            t = self.pool.id(("term", other, p))
            some.append(t)
            for f, mask in masks.items():
                clauses.extend([-t] + clause for clause in self.inside(f, mask))
        clauses.append(some)
        return clauses

    def selectors(self) -> list[int]:
        """The selector variable ``("selector", f)`` of every feature (numbered on first
        use, after the variables already in the pool), for the per-instance CNF that
        :mod:`xdt.explain.export._dimacs` writes; the solvers never see them."""
        with self._lock:
            return [self.pool.id(("selector", f)) for f in range(len(self.cells))]

    def decode(self, assignment: Sequence[int]) -> tuple[int, ...]:
        """The cell of every feature in a satisfying assignment of the domain clauses.

        ``assignment`` lists signed literals, e.g. ``solver.get_model()`` (variable ``v``
        at position ``v - 1``; any other order is accepted too); variables missing from it
        count as false. Ordinal: the number of thresholds exceeded (a prefix of the
        ``[x > t_j]``, by the order clauses: found by bisection); one-hot: the true cell.
        """
        a = assignment if isinstance(assignment, list) else list(assignment)
        n = len(a)
        if n and (abs(a[0]) != 1 or abs(a[-1]) != n):  # not positional: index it
            top = max(abs(lit) for lit in a)
            positional = [-(v + 1) for v in range(top)]
            for lit in a:
                if lit > 0:
                    positional[lit - 1] = lit
            a, n = positional, top
        out = []
        for f, vs in enumerate(self._vars):
            if self._ordinal[f]:
                lo, hi = 0, len(vs)
                while lo < hi:
                    mid = (lo + hi) // 2
                    v = vs[mid]
                    if v <= n and a[v - 1] > 0:
                        lo = mid + 1
                    else:
                        hi = mid
                out.append(lo)
            else:
                out.append(next(j for j, v in enumerate(vs) if v <= n and a[v - 1] > 0))
        return tuple(out)

    def describe_var(self, v: int) -> str:
        """What variable ``v`` means, for DIMACS comments."""
        obj = self.pool.obj(v)
        if isinstance(obj, tuple) and obj[0] == "cell":
            cells = self.cells[obj[1]]
            return f"{cells.name} = {cells.value(obj[2])}"
        if isinstance(obj, tuple) and obj[0] == "gt":
            cells = self.cells[obj[1]]
            return f"{cells.name} > {float(cells.thresholds[obj[2]])!r}"
        if isinstance(obj, tuple) and obj[0] == "selector":
            return f"selector: fixes {self.model.features[obj[1]].name} to the instance's cell"
        if isinstance(obj, tuple) and obj[0] == "cond":
            cells = self.cells[obj[1]]
            return f"constraint condition: {cells.describe(obj[2])}"
        if isinstance(obj, tuple) and obj[0] == "term":
            return f"term {obj[2]} of class {self.model.classes[obj[1]]!r} holds"
        if isinstance(obj, tuple) and obj[0] == "rule":
            return f"rule {obj[1]} of the decision list holds"
        return "auxiliary (cardinality encoding)"

    def __repr__(self) -> str:
        running = sorted(f"{c}:{name}" for (c, name), s in self._solvers.items() if s.alive)
        return (f"ModelEncoding({self.pool.top} variables, {len(self.domain)} domain clauses, "
                f"solvers running: {', '.join(running) or 'none'})")


def _release_all(solvers: dict[tuple[int, str], SharedSolver], wait: bool = False) -> None:
    for shared in list(solvers.values()):
        shared.release(wait)


_BITS = bytes.maketrans(b"01", b"\0\1")
_FEW_FEATURES = 16
"""Up to this many features, an oracle concatenates its features' assumption lists in a
Python loop; above, it selects from the flattened list in C (faster for many features)."""


def _closed() -> None:
    """Finaliser of a :class:`SatOracle`: nothing to free, it only marks the oracle closed."""


class SatOracle(EntailmentOracle):
    """Entailment for one instance, by incremental SAT calls under assumptions on the
    model's shared solver for the instance's class (:meth:`ModelEncoding.solver`).

    The instance is posed purely as assumptions: fixing feature ``f`` to its allowed cells
    ``A_f`` assumes :meth:`ModelEncoding.fixing` ``(f, A_f)``; no clause is added, so the
    solver serves every instance of the model and class.

    Parameters
    ----------
    encoding : ModelEncoding
        Usually :func:`~xdt.explain.engines.shared_encoding` of the model.
    cells, allowed, universe, prediction
        As for :class:`~xdt.explain.engines.PathOracle`.
    solver : str
        A PySAT solver name (default ``"cadical195"``).

    Notes
    -----
    :meth:`close` (or leaving a ``with`` block, or garbage collection) closes the oracle:
    later queries raise :class:`~xdt.errors.EngineClosedError` (a ``RuntimeError``), and it
    stops holding the model and its solver.
    The solver itself belongs to the model's encoding and keeps serving the other oracles
    of the model; it is released with the model (or by
    :func:`~xdt.explain.engines.release_solvers`).
    """

    def __init__(self, encoding: ModelEncoding, cells: Sequence[int], allowed: Sequence[int],
                 universe: int, prediction: int, solver: str = DEFAULT_SOLVER):
        self.encoding = encoding
        self.cells = tuple(cells)
        self.allowed = tuple(allowed)
        self.universe = universe
        self.prediction = prediction
        self.solver_name = solver
        self._model: Model | None = encoding.model  # the model outlives its open oracles
        self._shared: SharedSolver | None = encoding.solver(prediction, solver)
        self._fix = encoding.fixings(self.cells, self.allowed)
        self._flat: list[int] | None = None  # with many features: the flattened literals
        self._owner: Callable[[bytes], tuple[int, ...]] | None = None  # and their features
        if len(self._fix) > _FEW_FEATURES:
            self._flat = [lit for lits in self._fix for lit in lits]
            if any(len(lits) != 1 for lits in self._fix):
                if len(self._flat) > 1:
                    self._owner = itemgetter(*(f for f, lits in enumerate(self._fix)
                                               for _ in lits))
                else:  # itemgetter of one item returns no tuple
                    self._flat = None
        self._finalizer = weakref.finalize(self, _closed)
        self.calls = 0

    @property
    def selectors(self) -> list[int]:
        """Selector variables, one per feature, of the per-instance CNF :attr:`clauses`."""
        return self.encoding.selectors()

    @property
    def clauses(self) -> list[list[int]]:
        """The per-instance CNF equivalent to this oracle, as :mod:`xdt.explain.export._dimacs`
        writes it: the solver's clauses (``domain + differs(prediction)``) plus, per
        feature, ``s_f -> x_f in A_f`` on a selector ``s_f``. Assuming the selectors of a
        set ``S`` there is the same query as this oracle's assumptions for ``S``."""
        enc = self.encoding
        return enc.domain + enc.differs(self.prediction) + [
            [-s] + clause for f, s in enumerate(self.selectors)
            for clause in enc.inside(f, self.allowed[f])]

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` has closed this oracle."""
        return self._shared is None

    def reopened(self) -> SatOracle:
        """This oracle while it is open; once closed, a new one for the same instance (on the
        model's shared solver). Certificates made on first access use it."""
        if self._shared is not None:
            return self
        return type(self)(self.encoding, self.cells, self.allowed, self.universe,
                          self.prediction, solver=self.solver_name)

    def _open(self) -> SharedSolver:
        shared = self._shared
        if shared is None:
            raise EngineClosedError("this SAT oracle has been closed; make a new one (or a new "
                                    "Explainer) to ask more")
        self.calls += 1
        return shared

    def _assumptions(self, fixed: int) -> list[int]:
        """The assumption literals of the features of ``fixed``: concatenated lists, or
        for many features a C-level selection (``compress``) of the flattened literals by
        the bits of ``fixed``."""
        if self._flat is None:
            fix = self._fix
            out: list[int] = []
            f = 0
            while fixed:
                if fixed & 1:
                    out += fix[f]
                fixed >>= 1
                f += 1
            return out
        selected = bin(fixed)[:1:-1].encode().translate(_BITS).ljust(len(self._fix), b"\0")
        if self._owner is not None:
            selected = self._owner(selected)
        return list(compress(self._flat, selected))

    def entails(self, fixed: int) -> bool:
        return not self._open().satisfiable(self._assumptions(fixed))

    def counterexample(self, fixed: int) -> tuple[int, ...] | None:
        sat, model = self._open().solve(self._assumptions(fixed), True)
        return self.encoding.decode(model) if sat else None  # type: ignore[arg-type]

    def counterexample_cells(self, held: dict[int, int]) -> tuple[int, ...] | None:
        shared = self._open()
        assumptions: list[int] = []
        for f, mask in held.items():
            assumptions += self.encoding.fixing(f, mask)
        sat, model = shared.solve(assumptions, True)
        return self.encoding.decode(model) if sat else None  # type: ignore[arg-type]

    def close(self) -> None:
        """Close the oracle (idempotent): later queries raise :class:`EngineClosedError`. The
        shared solver stays with the model's encoding for its other oracles."""
        self._shared = None
        self._model = None
        self._finalizer()

    def __enter__(self) -> SatOracle:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
