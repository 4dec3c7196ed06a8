"""DNF classifiers and nested k-DNFs in the IR.

A :class:`DNF` is a binary classifier: it predicts ``classes[1]`` when some of its terms
holds and ``classes[0]`` otherwise. A term is a conjunction of :class:`Condition` objects —
literals as written in a model file, over features of any kind:

* ``colour in {red, blue}``, ``b = 1`` (categorical and binary features: a set of domain
  values);
* ``x <= 2.5``, ``1 < x``, ``1 < x <= 2.5`` (ordinal features: bounds).

Like a tree, a DNF derives the cells of each feature from its conditions (the thresholds
its ordinal conditions use) and compiles every term to an IR :class:`~xdt.ir.Term` of
cell-mask literals, which the explainers read.

A :class:`NestedKDNF` (Cooper, Bousdira & Carbonnel, "Interpretable DNFs", IJCAI 2025,
Section 4) is a DNF given by a ``k x k`` matrix ``L`` of conditions and, per term ``p``, row
prefix lengths ``r_p1 .. r_pk`` with ``sum_i r_pi <= k``: term ``p`` is the conjunction, over
rows ``i``, of the ``r_pi`` leftmost conditions of row ``i``. Every nested k-DNF is
k-AXp-interpretable (their Proposition 2).

Examples
--------
>>> from xdt.ir import Feature
>>> from xdt.ir._dnf import DNF, Condition
>>> bits = [Feature(n, "binary") for n in "abcd"]
>>> f = DNF(bits, [0, 1], [[Condition("a", (1,)), Condition("b", (1,))],
...                        [Condition("c", (1,)), Condition("d", (1,))]])
>>> f.predict([[1, 1, 0, 0], [1, 0, 1, 0]]).tolist()
[1, 0]
>>> [str(t) for t in f.complement().rules()]
['a = 0 AND c = 0', 'a = 0 AND d = 0', 'b = 0 AND c = 0', 'b = 0 AND d = 0']
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from xdt.errors import InvalidModelError
from xdt.ir._condition_model import ConditionModel
from xdt.ir._conditions import Condition
from xdt.ir._features import FeatureSpace, check_classes
from xdt.ir._protocol import TERMS, TermMasks, target_text


@dataclass(frozen=True)
class Rule:
    """A readable term: its conditions joined by ``AND`` (``str(rule)``)."""

    conditions: tuple[Condition, ...]

    def __str__(self) -> str:
        return " AND ".join(str(c) for c in self.conditions) if self.conditions else "TRUE"


class DNF(ConditionModel):
    """A binary classifier: ``classes[1]`` when some term holds, else ``classes[0]``.

    Parameters
    ----------
    features : sequence of Feature, or FeatureSpace
    classes : sequence of two str/int
        ``classes[0]`` is predicted when no term holds, ``classes[1]`` when one does.
    terms : sequence of sequences of Condition
        The terms (conjunctions). An empty term always holds; no terms: always
        ``classes[0]``.
    target : str, optional
        Name of the predicted attribute, used in readable rules.
    constraints : iterable of Constraint, str or dict, optional
        Background constraints on the feature space (:mod:`xdt.ir._constraints`), as for
        :class:`~xdt.ir.DecisionTree`; kept in :attr:`constraints` (``None``: none).

    Raises
    ------
    InvalidModelError
        Not exactly two classes; a condition of the wrong form for its feature (values for
        an ordinal feature, bounds for a categorical one, empty value sets, bounds that are
        not finite or with ``above >= upto``); an inconsistent term (no point satisfies
        it). The message names the term by its position.
    ValueOutsideDomainError
        A condition names a value outside the feature's domain.
    UnknownNodeFeatureError
        A condition names a feature the model does not have.

    Attributes
    ----------
    cells : tuple of CategoricalCells / IntervalCells
        Per feature, the model's partition of its domain.
    terms : tuple of Term
        The compiled terms (cell-mask literals), in order.
    conditions : tuple of tuple of Condition
        The terms as given.
    table : TermTable
        The terms as flat arrays (one entry per term and constrained feature), which
        :meth:`satisfied_terms` and the explainers evaluate over many rows or terms at once.
    """

    kind = "dnf"
    kind_name = "DNF"
    capabilities = frozenset({TERMS})

    def __init__(self, features, classes: Sequence, terms: Sequence[Sequence[Condition]],
                 target: str | None = None, *, constraints: Iterable | None = None):
        self.features = features if isinstance(features, FeatureSpace) else FeatureSpace(features)
        self.classes = tuple(classes)
        self.target = target
        self._check_classes()
        self._build(terms, lambda p: f"term {p}", constraints)

    def with_constraints(self, constraints: Iterable | None) -> DNF:
        """The same DNF carrying the background ``constraints`` (:mod:`xdt.ir._constraints`)
        instead of its own; ``None`` or ``[]`` for none. ``self`` is unchanged."""
        return DNF(self.features, self.classes, self.conditions, target=self.target,
                   constraints=constraints)

    # ------------------------------------------------------------------ validation
    def _name(self) -> str:
        return "DNF"

    def _check_classes(self) -> None:
        if len(self.classes) != 2:
            raise InvalidModelError(
                f"a DNF is a binary classifier and needs exactly two classes "
                f"([class when no term holds, class when one does]), got {list(self.classes)}")
        check_classes(self.classes)

    # ------------------------------------------------------------------ prediction
    def implying_terms(self, c: int) -> list[TermMasks] | None:
        """Its consistent terms when ``c == 1`` (``(term index, masks)``): it predicts
        ``classes[1]`` exactly when one holds. ``None`` when ``c == 0``: the terms of the
        complement are the minimal transversals of these (Cooper, Bousdira & Carbonnel,
        "Interpretable DNFs", IJCAI 2025, Section 4), possibly exponentially many."""
        if c != 1:
            return None
        out = []
        for p, term in enumerate(self.terms):
            masks = term.masks()
            if all(masks.values()):
                out.append((p, masks))
        return out

    def describe(self) -> str:
        """One readable line: the kind of model and its sizes."""
        return (f"{self.kind_name}, {len(self.features)} features, {len(self.terms)} terms, "
                f"k = {self.k}, classes {list(self.classes)} (the second when a term "
                f"holds){target_text(self)}")

    def predict_cells(self, cells: np.ndarray) -> np.ndarray:
        """Class index (0 or 1) per row of ``cells`` (shape (n, F)); shape (n,), int64."""
        return self.satisfied_terms(cells).any(axis=1).astype(np.int64)

    # ------------------------------------------------------------------ structure
    @property
    def k(self) -> int:
        """Largest number of conditions in a term (the model is a k-DNF for this k)."""
        return max((len(t) for t in self.conditions), default=0)

    def rules(self) -> list[Rule]:
        """The terms as readable rules, in order."""
        return [Rule(t) for t in self.conditions]

    def complement(self, max_terms: int = 100_000) -> DNF:
        """A DNF of the complement: the same predictions, with ``classes`` swapped, so its
        terms describe the class ``classes[0]``.

        Its terms are the minimal transversals (hitting sets) of the terms, each taken as the
        conjunction of the negations of its literals (Cooper, Bousdira & Carbonnel, IJCAI
        2025, Section 4: the canonical expression of the complement); an interval condition
        counts as its two one-sided parts, and inconsistent terms are dropped. Minimal
        transversals are enumerated with PySAT's ``Hitman``.

        Raises
        ------
        InvalidModelError
            When the complement has more than ``max_terms`` terms.
        """
        from pysat.examples.hitman import Hitman

        atoms: dict[Condition, int] = {}
        sets: list[list[int]] = []
        always_true = False
        for term in self.conditions:
            ids = []
            for cond in term:
                for part in cond.split():
                    if part.values is not None and len(part.values) == len(
                            self.features[self.features.index(part.feature)].domain):
                        continue  # a condition every value meets
                    ids.append(atoms.setdefault(part, len(atoms) + 1))
            if not ids:
                always_true = True
            sets.append(ids)
        flipped = (self.classes[1], self.classes[0])
        if always_true:
            return DNF(self.features, flipped, [], target=self.target,
                       constraints=self.constraints)
        if not sets:
            return DNF(self.features, flipped, [[]], target=self.target,
                       constraints=self.constraints)
        by_id = {i: a for a, i in atoms.items()}
        out: list[tuple[Condition, ...]] = []
        seen: set = set()
        with Hitman(bootstrap_with=sets, htype="lbx") as hitman:
            for hitting in hitman.enumerate():
                negated = [by_id[i].negation(self.features[self.features.index(
                    by_id[i].feature)]) for i in sorted(hitting)]
                term = self._merge([c for c in negated if c is not None])
                if term is None or term in seen:
                    continue
                seen.add(term)
                out.append(term)
                if len(out) > max_terms:
                    raise InvalidModelError(
                        f"the complement has more than {max_terms} terms; raise max_terms or "
                        "use a smaller model")
        out.sort(key=lambda t: (len(t), [str(c) for c in t]))
        return DNF(self.features, flipped, out, target=self.target,
                   constraints=self.constraints)

    def _merge(self, conds: list[Condition]) -> tuple[Condition, ...] | None:
        """One condition per feature (the intersection), in feature order; ``None`` when
        the conjunction is inconsistent."""
        by_feature: dict[int, Condition] = {}
        for c in conds:
            fi = self.features.index(c.feature)
            old = by_feature.get(fi)
            by_feature[fi] = c if old is None else _intersect(old, c)
            if by_feature[fi] is None:
                return None
        return tuple(by_feature[f] for f in sorted(by_feature))

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(features={len(self.features)}, "
                f"classes={list(self.classes)}, terms={len(self.terms)}, k={self.k})")


def _intersect(a: Condition, b: Condition) -> Condition | None:
    """The conjunction of two conditions on one feature, or ``None`` when it is empty."""
    if a.values is not None and b.values is not None:
        both = tuple(v for v in a.values if v in b.values)
        return Condition(a.feature, both) if both else None
    lows = [x for x in (a.above, b.above) if x is not None]
    highs = [x for x in (a.upto, b.upto) if x is not None]
    lo = max(lows) if lows else None
    hi = min(highs) if highs else None
    if lo is not None and hi is not None and not lo < hi:
        return None
    return Condition(a.feature, above=lo, upto=hi)


class NestedKDNF(DNF):
    """A nested k-DNF (Cooper, Bousdira & Carbonnel, "Interpretable DNFs", IJCAI 2025,
    Section 4): term ``p`` is the conjunction over rows ``i`` of the ``r_pi`` leftmost
    conditions of row ``i`` of the ``k x k`` matrix ``L``.

    Parameters
    ----------
    features, classes, target
        As :class:`DNF`.
    matrix : sequence of k sequences of k Condition
        The matrix ``L``, row by row.
    prefixes : sequence of sequences of k int
        Per term, the row prefix lengths ``r_p1 .. r_pk``, each in ``0..k``, with
        ``sum_i r_pi <= k``.

    Raises
    ------
    InvalidModelError
        ``matrix`` is not ``k x k``; a prefix list has the wrong length, a length outside
        ``0..k`` or a sum above ``k``; an expanded term is inconsistent; and the errors of
        :class:`DNF`.
    """

    kind = "nested-kdnf"
    kind_name = "nested k-DNF"

    def __init__(self, features, classes: Sequence, matrix: Sequence[Sequence[Condition]],
                 prefixes: Sequence[Sequence[int]], target: str | None = None, *,
                 constraints: Iterable | None = None):
        self.matrix = tuple(tuple(row) for row in matrix)
        k = len(self.matrix)
        if k == 0:
            raise InvalidModelError("the matrix of a nested k-DNF needs at least one row")
        for i, row in enumerate(self.matrix):
            if len(row) != k:
                raise InvalidModelError(
                    f"the matrix must be {k} x {k} (k rows of k conditions); row {i} has "
                    f"{len(row)} condition(s)")
        self.prefixes = tuple(tuple(r) for r in prefixes)
        for p, r in enumerate(self.prefixes):
            where = f"term {p}"
            if len(r) != k:
                raise InvalidModelError(
                    f"needs {k} prefix lengths (one per row of the matrix), got {len(r)}", where)
            for i, length in enumerate(r):
                if isinstance(length, bool) or not isinstance(length, int | np.integer) \
                        or not 0 <= length <= k:
                    raise InvalidModelError(
                        f"prefix length of row {i} must be an integer in 0..{k}, got "
                        f"{length!r}", where)
            if sum(r) > k:
                raise InvalidModelError(
                    f"prefix lengths {list(r)} sum to {sum(r)} > k = {k}: the term would have "
                    f"more than {k} conditions", where)
        self.nested_k = k
        terms = [[cond for i, row in enumerate(self.matrix) for cond in row[:r[i]]]
                 for r in self.prefixes]
        super().__init__(features, classes, terms, target=target, constraints=constraints)
        seen_matrix: dict[int, list[float]] = {i: [] for i in range(len(self.features))}
        for i, row in enumerate(self.matrix):   # unused cells of L must be valid too
            for j, cond in enumerate(row):
                self._check_condition(cond, f"matrix[{i}][{j}]", seen_matrix)

    @property
    def k(self) -> int:
        """The k of the nested k-DNF (the size of its matrix)."""
        return self.nested_k

    def with_constraints(self, constraints: Iterable | None) -> NestedKDNF:
        """The same nested k-DNF carrying the background ``constraints`` instead of its
        own; ``None`` or ``[]`` for none. ``self`` is unchanged."""
        return NestedKDNF(self.features, self.classes, self.matrix, self.prefixes,
                          target=self.target, constraints=constraints)

    def to_dnf(self) -> DNF:
        """The same classifier as a plain :class:`DNF` (its expanded terms)."""
        return DNF(self.features, self.classes, self.conditions, target=self.target,
                   constraints=self.constraints)
