"""The common part of the models written with conditions: DNFs and decision lists.

A :class:`ConditionModel` is given its terms as conjunctions of
:class:`~xdt.ir.Condition` objects. It checks every condition against the feature
space, derives the cells of each feature (the thresholds its ordinal conditions and
background constraints use), compiles every term to an IR :class:`~xdt.ir.Term` of
cell-mask literals and keeps the terms as a flat :class:`~xdt.ir._term_table.TermTable`, which the
models' ``predict`` and the explainers evaluate over many rows at once. The subclasses say
what the terms mean: :class:`~xdt.ir.DNF` (some term holds),
:class:`~xdt.ir.DecisionList` (the first rule whose term holds).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence

import numpy as np

from xdt.errors import InvalidModelError, UnknownNodeFeatureError, ValueOutsideDomainError
from xdt.ir._cells import CategoricalCells, Cells, IntervalCells, full_mask
from xdt.ir._conditions import Condition
from xdt.ir._conditions import finite as _finite
from xdt.ir._constraints import Constraints, prepare
from xdt.ir._features import FeatureSpace
from xdt.ir._instances import encode_rows
from xdt.ir._protocol import Model
from xdt.ir._term_table import TermTable
from xdt.ir._terms import Literal, Term


class ConditionModel(Model):
    """A model whose terms are conjunctions of conditions (base of DNFs and decision lists).

    Subclasses call :meth:`_build` from their ``__init__`` once ``classes`` are checked.

    Attributes
    ----------
    features : FeatureSpace
    classes : tuple
    target : str or None
    cells : tuple of CategoricalCells / IntervalCells
        Per feature, the model's partition of its domain.
    conditions : tuple of tuple of Condition
        The terms as given.
    terms : tuple of Term
        The compiled terms (cell-mask literals), in order.
    table : TermTable
        The terms as flat arrays.
    constraints : Constraints or None
        Background constraints (:mod:`xdt.ir._constraints`).
    """

    features: FeatureSpace
    classes: tuple
    target: str | None

    def _build(self, terms: Sequence[Sequence[Condition]], where: Callable[[int], str],
               constraints: Iterable | None) -> None:
        """Check the conditions of ``terms`` (``where(p)`` names term ``p`` in messages),
        derive the cells, compile the terms and their table."""
        if len(self.features) == 0:
            raise InvalidModelError(f"a {self._name()} needs at least one feature")
        self.conditions: tuple[tuple[Condition, ...], ...] = tuple(tuple(t) for t in terms)
        thresholds: dict[int, list[float]] = {i: [] for i in range(len(self.features))}
        for p, term in enumerate(self.conditions):
            for cond in term:
                self._check_condition(cond, where(p), thresholds)
        cons, thresholds = prepare(constraints, self.features, thresholds)
        self.cells: tuple[Cells, ...] = tuple(
            IntervalCells(f.name, thresholds[i]) if f.is_ordinal
            else CategoricalCells(f.name, f.domain)
            for i, f in enumerate(self.features))
        self.constraints: Constraints | None = cons.bind(self.cells) if cons else None
        self.terms: tuple[Term, ...] = tuple(self._compile(term) for term in self.conditions)
        for p, term in enumerate(self.terms):
            if not term.is_consistent():
                empty = [self.features[f].name for f, m in term.masks().items() if m == 0]
                raise InvalidModelError(
                    f"the {self._term_word()} is inconsistent: its conditions on "
                    f"{', '.join(empty)} exclude each other, so no point satisfies it; drop "
                    f"the {self._term_word()} or fix a condition", where(p))
        self.table = TermTable(self.terms, self.cells)

    def _name(self) -> str:
        return type(self).__name__

    def _term_word(self) -> str:
        return "term"

    def _check_condition(self, cond: Condition, where: str,
                         thresholds: dict[int, list[float]]) -> None:
        if not isinstance(cond, Condition):
            raise InvalidModelError(f"not a condition: {cond!r}", where)
        if cond.feature not in self.features:
            raise UnknownNodeFeatureError(
                f"a condition names unknown feature {cond.feature!r}; the model's features "
                f"are: {', '.join(self.features.names)}", where)
        fi = self.features.index(cond.feature)
        feat = self.features[fi]
        if feat.is_ordinal:
            if cond.values is not None:
                raise InvalidModelError(
                    f"ordinal feature {feat.name!r} is tested by bounds ('gt' / 'le'), not by "
                    "values ('in'); or declare it categorical with a domain", where)
            bounds = [b for b in (cond.above, cond.upto) if b is not None]
            if not bounds:
                raise InvalidModelError(
                    f"the condition on {feat.name!r} has no bound; give 'gt', 'le' or both",
                    where)
            for b in bounds:
                if isinstance(b, bool) or not isinstance(b, int | float | np.number) \
                        or not _finite(b):
                    raise InvalidModelError(
                        f"bounds on {feat.name!r} must be finite numbers, got {b!r}", where)
            if cond.above is not None and cond.upto is not None \
                    and not float(cond.above) < float(cond.upto):
                raise InvalidModelError(
                    f"the condition {cond.above} < {feat.name} <= {cond.upto} is empty", where)
            thresholds[fi].extend(float(b) for b in bounds)
            return
        if cond.above is not None or cond.upto is not None:
            raise InvalidModelError(
                f"{feat.kind} feature {feat.name!r} is tested by values ('in'), not by "
                "bounds; or declare it ordinal", where)
        if isinstance(cond.values, str | bytes):
            raise InvalidModelError(
                f"the values of the condition on {feat.name!r} must be a sequence of domain "
                f"values, not the string {cond.values!r} (write ({cond.values!r},) for one)",
                where)
        if cond.values is None or len(cond.values) == 0:
            raise InvalidModelError(f"the condition on {feat.name!r} allows no value", where)
        domain = {v: True for v in feat.domain}
        for v in cond.values:
            if isinstance(v, bool) or not isinstance(v, Hashable) or v not in domain:
                raise ValueOutsideDomainError(
                    f"the condition on {feat.name!r} names {v!r}, which is not in the domain "
                    f"{list(feat.domain)}", where)

    def _compile(self, conditions: Sequence[Condition]) -> Term:
        return Term(tuple(self.literal(c) for c in conditions))

    def literal(self, cond: Condition) -> Literal:
        """The cell-mask literal of a condition of this model."""
        fi = self.features.index(cond.feature)
        cells = self.cells[fi]
        if isinstance(cells, CategoricalCells):
            mask = 0
            for v in cond.values or ():
                mask |= 1 << cells.cell_of(v)
            return Literal(fi, mask)
        lo = 0 if cond.above is None else int(np.searchsorted(cells.thresholds, cond.above)) + 1
        hi = cells.n_cells - 1 if cond.upto is None else int(
            np.searchsorted(cells.thresholds, cond.upto))
        return Literal(fi, full_mask(hi + 1) & ~full_mask(lo))

    def encode(self, X) -> np.ndarray:
        """Cells of the rows of ``X``: shape (n, n_features), int64 (see
        :meth:`xdt.ir.DecisionTree.encode` for the accepted forms and errors)."""
        return encode_rows(self.features, self.cells, X)

    def satisfied_terms(self, cells: np.ndarray) -> np.ndarray:
        """Which terms hold at each row of ``cells`` (shape (n, F)): bool, shape (n, terms)."""
        return self.table.satisfied(cells)

    def predict_cells(self, cells: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def predict_index(self, X) -> np.ndarray:
        """Class index (position in :attr:`classes`) per row of ``X``; shape (n,), int64."""
        return self.predict_cells(self.encode(X))

    def predict(self, X) -> np.ndarray:
        """Predicted class label per row of ``X``; shape (n,) (int64 for integer labels)."""
        labels = np.asarray(self.classes, dtype=object)
        out = labels[self.predict_index(X)]
        if all(isinstance(c, int) for c in self.classes):
            return out.astype(np.int64)
        return out

    @property
    def k(self) -> int:
        """Largest number of conditions in a term."""
        return max((len(t) for t in self.conditions), default=0)
