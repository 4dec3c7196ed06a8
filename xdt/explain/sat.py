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
  imply it when it knows them (:func:`xdt.explain.models.implying_terms`): a decision
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

  A DNF with no terms (always ``classes[0]``) gives the empty clause for "the DNF is true";
  a term with no literal (always true) gives the empty clause for "the DNF is false": the
  formula is then UNSAT, as it should be.
* **Selectors.** One variable ``s_i`` per feature with ``s_i -> (x_i in A_i)``, where ``A_i``
  is the instance's cell (or, path-restricted, the path's literal). Entailment of a set
  ``S`` of fixed features is one incremental call under the assumptions ``{s_i : i in S}``:
  UNSAT means every point agreeing on ``S`` has class ``c``; a model is a counterexample.

One solver is kept alive per (model, instance) and released by :meth:`SatOracle.close`
(:class:`SatOracle` is a context manager; a finaliser releases it if it is forgotten).

References: Izza, Ignatiev & Marques-Silva, "On Explaining Decision Trees", Section 4
(entailment of a set of literals); Ignatiev, Narodytska & Marques-Silva, "Abduction-Based
Explanations for Machine Learning Models", AAAI 2019 (AXps by SAT oracle calls); Cooper,
Bousdira & Carbonnel, "Interpretable DNFs", IJCAI 2025, Section 2 (a DNF's positive
decisions are implied by its terms, its negative ones by the terms of its complement,
which the encoding never has to list).
"""

from __future__ import annotations

import importlib.util
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field

from pysat.card import CardEnc, EncType
from pysat.formula import IDPool
from pysat.solvers import Solver, SolverNames

from xdt.errors import EngineNotAvailableError, UnsupportedModelError
from xdt.explain.models import MODEL_TYPES, Model, implying_terms
from xdt.explain.oracle import EntailmentOracle, bits
from xdt.ir.cells import IntervalCells, full_mask

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
    """``(a, b)`` when ``mask`` is the run of cells ``a..b``; ValueError otherwise."""
    cells = bits(mask)
    if not cells or cells[-1] - cells[0] + 1 != len(cells):
        raise ValueError(f"cell set {cells} of an ordinal feature is not an interval")
    return cells[0], cells[-1]


@dataclass
class ModelEncoding:
    """The CNF of a model's cell space and of "the prediction differs from class c".

    Built once per model; :class:`SatOracle` adds the selectors of one instance.

    Attributes
    ----------
    model : DecisionTree or DNF
    pool : IDPool
        Variable numbering; ``pool.obj(v)`` names variable ``v``: ``("cell", f, j)``,
        ``("gt", f, j)`` (ordinal ``x_f > t_j``), ``("term", c, p)`` (term ``p`` of class
        index ``c`` holds; see the module docstring), ``("selector", f)`` or auxiliary
        cardinality variables (``None``).
    domain : list of clauses
        One-hot and order clauses.

    Raises
    ------
    UnsupportedModelError
        For a model the encoder does not know.
    """

    model: Model
    pool: IDPool = field(default_factory=IDPool)
    domain: list[list[int]] = field(default_factory=list)
    _differs: dict[int, list[list[int]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.model, MODEL_TYPES):
            raise UnsupportedModelError(
                "the SAT encoder knows decision trees, DNFs and nested k-DNFs; cannot encode "
                f"{type(self.model).__name__}")
        for f, cells in enumerate(self.model.cells):
            if isinstance(cells, IntervalCells):
                gts = [self.pool.id(("gt", f, j)) for j in range(cells.n_cells - 1)]
                self.domain.extend([[-gts[j], gts[j - 1]] for j in range(1, len(gts))])
            else:
                lits = [self.pool.id(("cell", f, j)) for j in range(cells.n_cells)]
                self.domain.extend(self._exactly_one(lits))

    def _exactly_one(self, lits: list[int]) -> list[list[int]]:
        if len(lits) <= 6:
            enc = CardEnc.equals(lits=lits, bound=1, encoding=EncType.pairwise)
        else:
            enc = CardEnc.equals(lits=lits, bound=1, vpool=self.pool, encoding=EncType.seqcounter)
        return [list(c) for c in enc.clauses]

    # ------------------------------------------------------------------ literals
    def is_ordinal(self, f: int) -> bool:
        return isinstance(self.model.cells[f], IntervalCells)

    def inside(self, f: int, mask: int) -> list[list[int]]:
        """Clauses meaning ``x_f in mask`` (a cell set; an interval for ordinal features)."""
        n = self.model.cells[f].n_cells
        if mask == full_mask(n):
            return []
        if not self.is_ordinal(f):
            return [[self.pool.id(("cell", f, j)) for j in bits(mask)]]
        a, b = _interval(mask)
        out = []
        if a > 0:
            out.append([self.pool.id(("gt", f, a - 1))])
        if b < n - 1:
            out.append([-self.pool.id(("gt", f, b))])
        return out

    def outside(self, f: int, mask: int) -> list[int]:
        """One clause meaning ``x_f not in mask``."""
        n = self.model.cells[f].n_cells
        if not self.is_ordinal(f):
            return [self.pool.id(("cell", f, j)) for j in range(n) if not (mask >> j) & 1]
        a, b = _interval(mask)
        out = []
        if a > 0:
            out.append(-self.pool.id(("gt", f, a - 1)))
        if b < n - 1:
            out.append(self.pool.id(("gt", f, b)))
        return out

    def differs(self, c: int) -> list[list[int]]:
        """Clauses meaning "the model does not predict class index ``c``" (see the module
        docstring): every listed term of ``c`` falsified, or, when the model does not list
        them and is binary, some term of the other class true."""
        if c not in self._differs:
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

    def _some_term(self, other: int) -> list[list[int]]:
        """Clauses meaning "some listed term of class index ``other`` holds": ``t_p -> l``
        for every literal ``l`` of term ``p``, and ``OR_p t_p``."""
        if len(self.model.classes) != 2:
            raise UnsupportedModelError(
                "the SAT encoder needs the terms of every class of a model with more than two "
                "classes")
        terms = implying_terms(self.model, other)
        if terms is None:
            raise UnsupportedModelError(
                f"{type(self.model).__name__} lists the terms of neither class; the SAT "
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

    def decode(self, assignment: Sequence[int]) -> tuple[int, ...]:
        """The cell of every feature in a satisfying assignment (list of signed literals)."""
        true = {v for v in assignment if v > 0}
        out = []
        for f, cells in enumerate(self.model.cells):
            if self.is_ordinal(f):
                # order encoding: the cell is the number of thresholds exceeded
                out.append(sum(self.pool.id(("gt", f, j)) in true
                               for j in range(cells.n_cells - 1)))
            else:
                out.append(next(j for j in range(cells.n_cells)
                                if self.pool.id(("cell", f, j)) in true))
        return tuple(out)

    def describe_var(self, v: int) -> str:
        """What variable ``v`` means, for DIMACS comments."""
        obj = self.pool.obj(v)
        if isinstance(obj, tuple) and obj[0] == "cell":
            cells = self.model.cells[obj[1]]
            return f"{cells.name} = {cells.value(obj[2])}"
        if isinstance(obj, tuple) and obj[0] == "gt":
            cells = self.model.cells[obj[1]]
            return f"{cells.name} > {float(cells.thresholds[obj[2]])!r}"
        if isinstance(obj, tuple) and obj[0] == "selector":
            return f"selector: fixes {self.model.features[obj[1]].name} to the instance's cell"
        if isinstance(obj, tuple) and obj[0] == "term":
            return f"term {obj[2]} of class {self.model.classes[obj[1]]!r} holds"
        return "auxiliary (cardinality encoding)"


class SatOracle(EntailmentOracle):
    """Entailment by incremental SAT calls on one solver per (model, instance).

    Parameters
    ----------
    encoding : ModelEncoding
    cells, allowed, universe, prediction
        As for :class:`~xdt.explain.path.PathOracle`.
    solver : str
        A PySAT solver name (default ``"cadical195"``).
    """

    def __init__(self, encoding: ModelEncoding, cells: Sequence[int], allowed: Sequence[int],
                 universe: int, prediction: int, solver: str = DEFAULT_SOLVER):
        self.encoding = encoding
        self.cells = tuple(cells)
        self.allowed = tuple(allowed)
        self.universe = universe
        self.prediction = prediction
        self.selectors = [encoding.pool.id(("selector", f)) for f in range(len(self.cells))]
        self.clauses = encoding.domain + encoding.differs(prediction) + [
            [-s] + clause for f, s in enumerate(self.selectors)
            for clause in encoding.inside(f, self.allowed[f])]
        self._solver = Solver(name=solver, bootstrap_with=self.clauses)
        self._finalizer = weakref.finalize(self, self._solver.delete)
        self.calls = 0

    def _solve(self, fixed: int) -> bool:
        if not self._finalizer.alive:
            raise RuntimeError("this SAT oracle has been closed")
        self.calls += 1
        return self._solver.solve(assumptions=[self.selectors[f] for f in bits(fixed)])

    def entails(self, fixed: int) -> bool:
        return not self._solve(fixed)

    def counterexample(self, fixed: int) -> tuple[int, ...] | None:
        if not self._solve(fixed):
            return None
        return self.encoding.decode(self._solver.get_model())

    def counterexample_cells(self, held: dict[int, int]) -> tuple[int, ...] | None:
        if not self._finalizer.alive:
            raise RuntimeError("this SAT oracle has been closed")
        assumptions = []
        for f, mask in held.items():
            clauses = self.encoding.inside(f, mask)
            if any(len(c) != 1 for c in clauses):  # a one-hot set: exclude the other cells
                n = self.encoding.model.cells[f].n_cells
                clauses = [[-self.encoding.pool.id(("cell", f, j))]
                           for j in range(n) if not (mask >> j) & 1]
            assumptions.extend(c[0] for c in clauses)
        self.calls += 1
        if not self._solver.solve(assumptions=assumptions):
            return None
        return self.encoding.decode(self._solver.get_model())

    def close(self) -> None:
        """Release the solver (idempotent)."""
        self._finalizer()

    def __enter__(self) -> SatOracle:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
