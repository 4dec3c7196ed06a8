"""Decision lists in the IR: ordered rules, the first that fires decides.

A :class:`DecisionList` is ``IF t_1 THEN c_1 ELSE IF t_2 THEN c_2 ... ELSE c_default``: each
rule is a term (a conjunction of :class:`~xdt.ir.Condition` objects, as in a DNF)
and a class; a point gets the class of the first rule whose term holds there, or the default
class when none does (Rivest, "Learning Decision Lists", Machine Learning 2(3), 1987). Any
number of classes; several rules may share a class, and the default class may also be the
class of some rules.

Like a DNF, a decision list derives the cells of each feature from its conditions and
compiles every rule's term to an IR :class:`~xdt.ir.Term` of cell-mask literals, kept
as a flat :class:`~xdt.ir._term_table.TermTable` that :meth:`DecisionList.predict` evaluates over
many rows at once.

Rule sets
---------
A rule set is *unordered*: its rules fire together. Its meaning, and how xdt holds it:

* an unordered set of rules of *one* class, with the other class when none fires (RIPPER,
  IREP, a positive-class rule set) is a DNF: :class:`~xdt.ir.DNF`;
* a multi-class rule set whose conflicts (several classes fire at one point) are resolved by a
  *fixed priority of rules or classes* (RIPPER's multi-class mode learns the classes in order
  of increasing frequency and tries their rules in that order; a learner that breaks ties by
  rule rank) is the decision list of its rules in priority order:
  :meth:`DecisionList.from_rule_sets`;
* a rule set whose conflicts are resolved by *adding* the rules' weights or class counts
  (CN2's unordered mode, boosted rules such as SLIPPER) is neither: its prediction is a
  threshold of a sum, and xdt refuses it rather than change its meaning.

Examples
--------
>>> from xdt.ir import Feature
>>> from xdt.ir._conditions import Condition
>>> from xdt.ir._decision_list import DecisionList
>>> dl = DecisionList([Feature("age", "ordinal"), Feature("smoker", "binary")],
...                   ["low", "high"],
...                   [([Condition("age", upto=30)], "low"),
...                    ([Condition("smoker", (1,))], "high")],
...                   default="low", target="risk")
>>> dl.predict([[25, 1], [50, 1], [50, 0]]).tolist()
['low', 'high', 'low']
>>> dl.firing([[25, 1], [50, 1], [50, 0]]).tolist()
[0, 1, -1]
>>> print(dl)
IF age <= 30 THEN risk = low
ELSE IF smoker = 1 THEN risk = high
ELSE risk = low
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from xdt.errors import InvalidModelError
from xdt.ir._condition_model import ConditionModel
from xdt.ir._conditions import Condition
from xdt.ir._features import FeatureSpace, check_classes
from xdt.ir._protocol import RULES, target_text


@dataclass(frozen=True)
class ListRule:
    """One rule of a decision list: ``IF conditions THEN label`` (``str(rule)``)."""

    conditions: tuple[Condition, ...]
    label: object

    def text(self, target: str | None = None) -> str:
        """``"IF a AND b THEN target = label"`` (``"class = label"`` without a target)."""
        body = " AND ".join(str(c) for c in self.conditions) if self.conditions else "TRUE"
        return f"IF {body} THEN {target or 'class'} = {self.label}"

    def __str__(self) -> str:
        return self.text()


class DecisionList(ConditionModel):
    """Ordered rules, first match wins, and a default class (any number of classes).

    Parameters
    ----------
    features : sequence of Feature, or FeatureSpace
    classes : sequence of str/int
        The class labels, at least one (distinct strings or integers).
    rules : sequence of (sequence of Condition, label) pairs
        In order: the term of each rule (a conjunction; an empty one always holds) and the
        class label it predicts, one of ``classes``. :class:`ListRule` objects are accepted
        too.
    default : label
        The class predicted where no rule fires; one of ``classes``.
    target : str, optional
        Name of the predicted attribute, used in readable rules.
    constraints : iterable of Constraint, str or dict, optional
        Background constraints on the feature space (:mod:`xdt.ir._constraints`), as for
        :class:`~xdt.ir.DecisionTree`.

    Raises
    ------
    InvalidModelError
        No class, repeated classes, a rule that is not a (conditions, label) pair, a label or
        default that is not in ``classes``; a condition of the wrong form for its feature, or
        a rule whose term is inconsistent (it could never fire: drop it). The message names
        the rule by its position.
    ValueOutsideDomainError
        A condition names a value outside the feature's domain.
    UnknownNodeFeatureError
        A condition names a feature the model does not have.

    Attributes
    ----------
    cells : tuple of CategoricalCells / IntervalCells
        Per feature, the model's partition of its domain.
    conditions : tuple of tuple of Condition
        The rules' terms as given, in order.
    terms : tuple of Term
        The compiled terms, in order.
    rule_class : ndarray of int64, shape (rules,)
        The class index (position in ``classes``) of each rule.
    default_class : int
        The class index of the default.
    table : TermTable
        The terms as flat arrays.

    Notes
    -----
    Prediction: one vectorised pass over the rows and the rules' literals (``O(n L)`` for
    ``L`` literals). Explanations come from the SAT engine (:mod:`xdt.explain.engines._sat`, which
    encodes "the first rule that fires is of another class"; computing one AXp of a decision
    list is hard in general, Ignatiev & Marques-Silva, "SAT-Based Rigorous Explanations for
    Decision Lists", SAT 2021, Section 3).
    """

    kind = "decision-list"
    kind_name = "decision list"
    capabilities = frozenset({RULES})

    def __init__(self, features, classes: Sequence, rules: Sequence, default: object,
                 target: str | None = None, *, constraints: Iterable | None = None):
        self.features = features if isinstance(features, FeatureSpace) else FeatureSpace(features)
        self.classes = tuple(classes)
        self.target = target
        check_classes(self.classes)
        index = {c: i for i, c in enumerate(self.classes)}
        terms: list[tuple[Condition, ...]] = []
        labels: list[int] = []
        if isinstance(rules, str | bytes | Mapping) or not isinstance(rules, Iterable):
            raise InvalidModelError(
                f"the rules of a decision list are a sequence of (conditions, class label) "
                f"pairs, in order, got {rules!r}")
        for p, rule in enumerate(rules):
            if isinstance(rule, ListRule):
                conditions, label = rule.conditions, rule.label
            elif isinstance(rule, Sequence) and not isinstance(rule, str) and len(rule) == 2:
                conditions, label = rule
            else:
                raise InvalidModelError(
                    f"a rule is a pair (conditions, class label), got {rule!r}", f"rule {p}")
            if isinstance(conditions, Condition | str | bytes) \
                    or not isinstance(conditions, Sequence):
                raise InvalidModelError(
                    f"the conditions of a rule are a list of Condition (e.g. "
                    f"[Condition('age', upto=30)]), got {conditions!r}", f"rule {p}")
            labels.append(self._class_index(index, label, f"rule {p}"))
            terms.append(tuple(conditions))
        self.default_class = self._class_index(index, default, "default")
        self.rule_class = np.asarray(labels, dtype=np.int64)
        self._build(terms, lambda p: f"rule {p}", constraints)

    @staticmethod
    def _class_index(index: Mapping, label: object, where: str) -> int:
        k = None
        if not isinstance(label, bool):  # True == 1 in Python, not in JSON (as tree leaves)
            try:
                k = index[label]
            except (KeyError, TypeError):  # TypeError: an unhashable label
                pass
        if k is None:
            raise InvalidModelError(
                f"class {label!r} is not one of the model's classes {list(index)}", where)
        return k

    def _name(self) -> str:
        return "decision list"

    def _term_word(self) -> str:
        return "rule"

    @classmethod
    def from_rule_sets(cls, features, classes: Sequence, rule_sets: Mapping[object, Sequence],
                       default: object, order: Sequence | None = None,
                       target: str | None = None, *,
                       constraints: Iterable | None = None) -> DecisionList:
        """The decision list of a multi-class rule set whose conflicts a class priority
        resolves: the rules of ``order[0]`` first, then those of ``order[1]``, ...

        Parameters
        ----------
        features, classes, default, target, constraints
            As :class:`DecisionList`.
        rule_sets : mapping of label to sequence of sequences of Condition
            Per class, its terms (an unordered DNF of that class).
        order : sequence of labels, optional
            The priority of the classes (default: the order of ``rule_sets``); each class
            of ``rule_sets`` once.

        Raises
        ------
        InvalidModelError
            ``order`` does not list the classes of ``rule_sets`` exactly once; the errors of
            :class:`DecisionList`.

        Notes
        -----
        RIPPER's multi-class mode (Cohen, "Fast Effective Rule Induction", ICML 1995,
        Section 4) learns the classes in order of increasing frequency, each against the
        rest, and classifies by the first class one of whose rules fires: exactly this list.
        """
        if not isinstance(rule_sets, Mapping):
            raise InvalidModelError(
                f"rule_sets maps each class label to its terms (a list of lists of "
                f"Condition), got {type(rule_sets).__name__}")
        for label, terms in rule_sets.items():
            if isinstance(terms, Condition | str | bytes) or not isinstance(terms, Sequence) \
                    or any(isinstance(t, Condition) for t in terms):
                raise InvalidModelError(
                    f"the rule set of class {label!r} must be a list of terms, each a list of "
                    f"Condition (e.g. [[Condition('a', (1,))]]), got {terms!r}")
        order = list(rule_sets) if order is None else list(order)
        if sorted(map(repr, order)) != sorted(map(repr, rule_sets)) \
                or len(set(map(repr, order))) != len(order):
            raise InvalidModelError(
                f"the class order {order!r} must list each class of the rule sets "
                f"({list(rule_sets)!r}) exactly once")
        rules = [(term, label) for label in order for term in rule_sets[label]]
        return cls(features, classes, rules, default, target=target, constraints=constraints)

    def with_constraints(self, constraints: Iterable | None) -> DecisionList:
        """The same decision list carrying the background ``constraints``
        (:mod:`xdt.ir._constraints`) instead of its own; ``None`` or ``[]`` for none."""
        return DecisionList(self.features, self.classes, self.rules(), self.default,
                            target=self.target, constraints=constraints)

    # ------------------------------------------------------------------ prediction
    def firing_cells(self, cells: np.ndarray) -> np.ndarray:
        """Index of the first rule that fires at each row of ``cells`` (shape (n, F)),
        ``-1`` where none does (the default decides); shape (n,), int64."""
        sat = self.satisfied_terms(cells)
        if sat.shape[1] == 0:
            return np.full(len(sat), -1, dtype=np.int64)
        first = np.argmax(sat, axis=1)
        return np.where(sat[np.arange(len(sat)), first], first, -1).astype(np.int64)

    def firing(self, X) -> np.ndarray:
        """Index of the first rule that fires at each row of ``X`` (the forms of
        :meth:`predict`), ``-1`` where none does; shape (n,), int64."""
        return self.firing_cells(self.encode(X))

    def predict_point(self, cells) -> int:
        """Class index of one point given by its cells (a sequence of F ints): the term
        table's answer at that point (:meth:`~xdt.ir._term_table.TermTable.at`, kept for the
        next question about the same point)."""
        terms = self.table.at(cells)[1]
        fired = int(terms.argmax()) if len(terms) else 0
        if len(terms) and terms[fired]:
            return int(self.rule_class[fired])
        return self.default_class

    def predict_one(self, cells) -> int:
        """Class index of one point given by its cells (:meth:`predict_point`)."""
        return self.predict_point(cells)

    def implying_terms(self, c: int) -> None:
        """``None``: a rule implies its class only together with the negations of the rules
        before it, which are not terms."""
        return None

    def describe(self) -> str:
        """One readable line: the kind of model and its sizes."""
        return (f"decision list, {len(self.features)} features, {self.n_rules} rules of at "
                f"most {self.k} conditions, classes {list(self.classes)}, default "
                f"{self.default!r}{target_text(self)}")

    def predict_cells(self, cells: np.ndarray) -> np.ndarray:
        """Class index per row of ``cells`` (shape (n, F)); shape (n,), int64."""
        first = self.firing_cells(cells)
        out = np.full(len(first), self.default_class, dtype=np.int64)
        fired = first >= 0
        out[fired] = self.rule_class[first[fired]]
        return out

    # ------------------------------------------------------------------ structure
    @property
    def default(self) -> object:
        """The default class label."""
        return self.classes[self.default_class]

    @property
    def n_rules(self) -> int:
        """The number of rules (the default not counted)."""
        return len(self.conditions)

    @property
    def rule_labels(self) -> tuple:
        """The class label of each rule, in order."""
        return tuple(self.classes[c] for c in self.rule_class.tolist())

    def rules(self) -> list[ListRule]:
        """The rules, in order (the default is :attr:`default`)."""
        return [ListRule(t, self.classes[c])
                for t, c in zip(self.conditions, self.rule_class.tolist(), strict=True)]

    def lines(self) -> list[str]:
        """The list as text, one line per rule (``IF ... THEN ...``, then ``ELSE IF ...``)
        and a last line for the default (``ELSE target = c``)."""
        target = self.target or "class"
        lines = [("ELSE " if p else "") + r.text(target) for p, r in enumerate(self.rules())]
        lines.append(("ELSE " if lines else "") + f"{target} = {self.default}")
        return lines

    def to_text(self) -> str:
        """The list as ``IF ... THEN ...`` / ``ELSE IF ...`` / ``ELSE ...`` lines."""
        return "\n".join(self.lines())

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        return (f"DecisionList(features={len(self.features)}, classes={list(self.classes)}, "
                f"rules={self.n_rules}, default={self.default!r})")
