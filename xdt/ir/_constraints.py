"""Background constraints on a model's feature space.

A model may carry constraints that say which points of its feature space exist (a domain
theory): the model is never asked about the others, and explanations should not rely on
them. Three forms, written over the IR's :class:`~xdt.ir.Condition` objects
(``sex = male``, ``age <= 30``, ``colour in {red, blue}``, ``1 < x <= 2``):

* :class:`Forbidden` — a combination no point has: ``NOT (sex = male AND pregnant = yes)``;
* :class:`Implication` — ``(c1 AND ...) -> (d1 OR ...)``:
  ``age <= 17 -> married = no``;
* :class:`Ordering` — between two ordinal features, ``x <= y`` or ``x < y``:
  ``years_at_job <= age``.

:func:`parse_constraint` reads these texts; :func:`constraint_from_dict` and
:meth:`Forbidden.to_dict` (etc.) the JSON entries of a model file's ``"constraints"`` list
(``encodings/README.md``). A model takes them with ``constraints=`` or
``model.with_constraints([...])``; :class:`Constraints` checks them against its features.

Cells under constraints
-----------------------
Explanations fix features to cells, so a constraint must be decided cell by cell. To make
that exact, a model with constraints cuts the cells of an ordinal feature at the bounds of
the constraints' conditions on it, and, for the features linked by orderings (a chain
``x <= y <= z`` links all three), at the thresholds of every feature so linked: those
features then share one partition of the real line, ``x <= y`` (or ``x < y``) is possible
for cells ``i`` of ``x`` and ``j`` of ``y`` exactly when ``i <= j`` (the cells are intervals
of reals), and a cell vector is allowed exactly when some real point of it satisfies every
constraint, for chains too (:meth:`Constraints.allows`). The model's predictions do not
change; its ordinal features may have more cells than its thresholds alone give.

"Every point agreeing with ``x`` on ``S``" in an AXp then means every such point that
satisfies the constraints (Izza, Ignatiev & Marques-Silva's definitions with the points
restricted to the constraints' models; PyXAI's "theories" and Gorji & Rubin, "Sufficient
reasons for classifier decisions in the presence of domain constraints", AAAI 2022, restrict
them the same way). Constrained explanations are xdt's extension of the engines; the SAT
engine encodes the constraints (:mod:`xdt.explain.engines._sat`), the path and box engines refuse a
constrained model.

Examples
--------
>>> from xdt.ir._constraints import parse_constraint
>>> parse_constraint("NOT (sex = male AND pregnant = yes)")
Forbidden(conditions=(Condition(feature='sex', values=('male',), above=None, upto=None), \
Condition(feature='pregnant', values=('yes',), above=None, upto=None)))
>>> str(parse_constraint("age <= 17 -> married = no"))
'age <= 17 -> married = no'
>>> parse_constraint("years_at_job <= age")
Ordering(left='years_at_job', right='age', strict=False)
"""

from __future__ import annotations

import math
import re
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from xdt.errors import (
    ConstraintFeatureError,
    ConstraintValueError,
    InvalidConstraintError,
    OrderingFeatureError,
)
from xdt.ir._cells import CategoricalCells, IntervalCells, full_mask
from xdt.ir._conditions import Condition, finite
from xdt.ir._features import FeatureSpace

# ---------------------------------------------------------------------- the three forms
_NOT = "\0not"
"""Marks the values of a parsed ``f != v`` / ``f not in {...}`` until the domain is known."""


def _text(c: Condition) -> str:
    if c.values and c.values[0] == _NOT:
        rest = c.values[1:]
        return (f"{c.feature} != {rest[0]}" if len(rest) == 1
                else f"{c.feature} not in {{{', '.join(map(str, rest))}}}")
    return str(c)


def _conj(conditions: Sequence[Condition]) -> str:
    return " AND ".join(_text(c) for c in conditions)


@dataclass(frozen=True)
class Forbidden:
    """No point satisfies all of ``conditions`` together: ``NOT (c1 AND c2 AND ...)``."""

    conditions: tuple[Condition, ...]

    def __str__(self) -> str:
        return f"NOT ({_conj(self.conditions)})"

    def to_dict(self) -> dict:
        """The JSON entry: ``{"forbidden": [<condition>, ...]}``."""
        return {"forbidden": [c.to_dict() for c in self.conditions]}

    @property
    def features(self) -> tuple[str, ...]:
        """The names of the features the constraint mentions, in order of appearance."""
        return tuple(dict.fromkeys(c.feature for c in self.conditions))


@dataclass(frozen=True)
class Implication:
    """Every point satisfying all of ``premises`` satisfies one of ``conclusions``:
    ``c1 AND ... -> d1 OR ...``."""

    premises: tuple[Condition, ...]
    conclusions: tuple[Condition, ...]

    def __str__(self) -> str:
        return f"{_conj(self.premises)} -> {' OR '.join(_text(c) for c in self.conclusions)}"

    def to_dict(self) -> dict:
        """The JSON entry: ``{"if": [<condition>, ...], "then": [<condition>, ...]}``
        (``then`` is a disjunction)."""
        return {"if": [c.to_dict() for c in self.premises],
                "then": [c.to_dict() for c in self.conclusions]}

    @property
    def features(self) -> tuple[str, ...]:
        """The names of the features the constraint mentions, in order of appearance."""
        return tuple(dict.fromkeys(c.feature for c in self.premises + self.conclusions))


@dataclass(frozen=True)
class Ordering:
    """Ordinal feature ``left`` is at most (``strict``: below) ordinal feature ``right``."""

    left: str
    right: str
    strict: bool = False

    def __str__(self) -> str:
        return f"{self.left} {'<' if self.strict else '<='} {self.right}"

    def to_dict(self) -> dict:
        """The JSON entry: ``{"ordering": [left, right]}``, with ``"strict": true`` for
        ``left < right``."""
        out: dict = {"ordering": [self.left, self.right]}
        if self.strict:
            out["strict"] = True
        return out

    @property
    def features(self) -> tuple[str, ...]:
        """The names of the features the constraint mentions, in order of appearance."""
        return (self.left, self.right)


Constraint = Forbidden | Implication | Ordering
"""A background constraint."""


# ---------------------------------------------------------------------- text syntax
_SYNTAX = ("a constraint is written 'NOT (c1 AND c2 ...)' (a forbidden combination), "
           "'c1 AND ... -> d1 OR ...' (an implication) or 'x <= y' / 'x < y' (an ordering of "
           "two ordinal features), where a condition is 'f = v', 'f != v', 'f in {v, w}', "
           "'f <= t', 'f > t', 't < f' or 't < f <= u'")
_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")


def _is_number(text: str) -> bool:
    return bool(_NUMBER.match(text.strip()))


def _value(text: str) -> object:
    """A value as written: quotes stripped; the text itself otherwise (resolved against the
    feature's domain by :class:`Constraints`)."""
    t = text.strip()
    if len(t) >= 2 and t[0] == t[-1] and t[0] in "'\"":
        return t[1:-1]
    return t


def _split_top(text: str, word: str) -> list[str]:
    """``text`` split at the keyword ``word`` (surrounded by spaces) outside braces."""
    parts, depth, start, i = [], 0, 0, 0
    key = f" {word} "
    while i < len(text):
        ch = text[i]
        if ch in "{(":
            depth += 1
        elif ch in "})":
            depth -= 1
        elif depth == 0 and text.startswith(key, i):
            parts.append(text[start:i])
            i += len(key)
            start = i
            continue
        i += 1
    parts.append(text[start:])
    return [p.strip() for p in parts]


def parse_condition(text: str) -> Condition:
    """One condition from its text: ``sex = male``, ``sex != male``, ``colour in {red,
    blue}``, ``age <= 30``, ``age > 30``, ``30 < age``, ``18 < age <= 30``.

    Values are kept as written (strings, quotes stripped); bounds are numbers. The
    constraint's model resolves a value to its domain (``"1"`` to the number ``1``).

    Raises
    ------
    InvalidConstraintError
        Text of no such form (``age < 30`` or ``age >= 30`` included: an ordinal condition
        is right-closed, ``x <= t``, as the IR's cells are).
    """
    t = text.strip()
    if t.startswith("(") and t.endswith(")"):
        t = t[1:-1].strip()
    m = re.match(r"^(.+?)\s+(not\s+in|in)\s*\{(.*)\}$", t)
    if m:
        values = tuple(_value(v) for v in m.group(3).split(",") if v.strip())
        if m.group(2) != "in":
            return Condition(m.group(1).strip(), values=(_NOT,) + values)
        return Condition(m.group(1).strip(), values=values)
    m = re.match(r"^(\S+)\s*<\s*(.+?)\s*<=\s*(\S+)$", t)
    if m and _is_number(m.group(1)) and _is_number(m.group(3)):
        return Condition(m.group(2).strip(), above=float(m.group(1)), upto=float(m.group(3)))
    m = re.match(r"^(.+?)\s*(<=|>=|!=|==|=|<|>)\s*(.+)$", t)
    if not m:
        raise InvalidConstraintError(f"cannot read the condition {text!r}; {_SYNTAX}")
    lhs, op, rhs = m.group(1).strip(), m.group(2), m.group(3).strip()
    if op in ("=", "=="):
        return Condition(lhs, values=(_value(rhs),))
    if op == "!=":
        return Condition(lhs, values=(_NOT, _value(rhs)))
    if op == "<=" and _is_number(rhs):
        return Condition(lhs, upto=float(rhs))
    if op == ">" and _is_number(rhs):
        return Condition(lhs, above=float(rhs))
    if op == "<" and _is_number(lhs):
        return Condition(rhs, above=float(lhs))
    hint = {"<": f"write '{lhs} <= t' with the largest value allowed",
            ">=": f"write '{lhs} > t' with the largest value not allowed"}.get(
        op, "a bound must be a number")
    raise InvalidConstraintError(
        f"cannot read the condition {text!r}: an ordinal condition is 'f <= t', 'f > t' or "
        f"'t < f <= u' (cells are right-closed intervals); {hint}")


def parse_constraint(text: str) -> Constraint:
    """A constraint from its text (see the module docstring).

    Forms: ``NOT (c1 AND c2 ...)``; ``c1 AND ... -> d1 OR ...`` (also ``=>``, or
    ``IF c1 AND ... THEN d1 OR ...``); ``x <= y``, ``x < y``, ``x >= y``, ``x > y`` between
    two features (an ordering: a number on the right makes it a condition instead).

    Raises
    ------
    InvalidConstraintError
        The text has none of these forms; the message shows them.
    """
    if not isinstance(text, str):
        raise InvalidConstraintError(f"a constraint's text must be a string, got {text!r}")
    t = " ".join(text.split())
    m = re.match(r"^NOT\s*\((.*)\)$", t, re.IGNORECASE)
    if m:
        return Forbidden(tuple(parse_condition(c) for c in _split_top(m.group(1), "AND")))
    m = re.match(r"^IF\s+(.*)\s+THEN\s+(.*)$", t)
    if m:
        left, right = m.group(1), m.group(2)
    else:
        arrow = next((a for a in ("->", "=>") if a in t), None)
        if arrow is None:
            m = re.match(r"^([^\s<>=!{}]+)\s*(<=|<|>=|>)\s*([^\s<>=!{}]+)$", t)
            if m and not _is_number(m.group(1)) and not _is_number(m.group(3)):
                a, op, b = m.groups()
                if op in (">=", ">"):
                    a, b = b, a
                return Ordering(a, b, strict=op in ("<", ">"))
            hint = (f"; to forbid the combination, write 'NOT ({t})'"
                    if " AND " in t or re.search(r"(^|[^<>!=])=($|[^=])", t) else "")
            raise InvalidConstraintError(f"cannot read the constraint {text!r}; {_SYNTAX}{hint}")
        left, right = t.split(arrow, 1)
    return Implication(tuple(parse_condition(c) for c in _split_top(left.strip(), "AND")),
                       tuple(parse_condition(c) for c in _split_top(right.strip(), "OR")))


def forbidden(text: str) -> Forbidden:
    """The forbidden combination of the conditions in ``text``, joined by ``AND``:
    ``forbidden("sex = male AND pregnant = yes")``."""
    return Forbidden(tuple(parse_condition(c) for c in _split_top(" ".join(text.split()),
                                                                    "AND")))


# ---------------------------------------------------------------------- JSON
def _condition_from_dict(d: object, where: str) -> Condition:
    if not isinstance(d, Mapping) or "feature" not in d:
        raise InvalidConstraintError(
            f"a condition is {{\"feature\": f, \"in\": [values]}} or {{\"feature\": f, "
            f"\"gt\": a, \"le\": b}} (either bound may be left out), got {d!r}", where)
    keys = set(d) - {"feature"}
    if keys == {"in"} and isinstance(d["in"], list):
        return Condition(d["feature"], tuple(d["in"]))
    if keys and keys <= {"gt", "le"}:
        bounds = {k: d[k] for k in keys}
        bad = {k: v for k, v in bounds.items()
               if isinstance(v, bool) or not isinstance(v, int | float)}
        if bad:
            raise InvalidConstraintError(
                f"the condition on {d['feature']!r} has a bound that is not a number: "
                f"{bad}; give 'gt' and/or 'le' as numbers (leave out a bound there is not)",
                where)
        return Condition(d["feature"], above=d.get("gt"), upto=d.get("le"))
    raise InvalidConstraintError(
        f"unrecognised condition {dict(d)!r}; use 'in' (a list of values, categorical/binary) "
        "or 'gt' and/or 'le' (ordinal)", where)


def _conditions(value: object, where: str) -> tuple[Condition, ...]:
    if not isinstance(value, list):
        raise InvalidConstraintError(f"must be a JSON list of conditions, got {value!r}", where)
    return tuple(_condition_from_dict(c, f"{where}[{i}]") for i, c in enumerate(value))


def constraint_from_dict(entry: object, where: str = "constraint") -> Constraint:
    """A constraint from its JSON entry: ``{"forbidden": [...]}``, ``{"if": [...], "then":
    [...]}``, ``{"ordering": [x, y], "strict": false}``, or a string in the text syntax
    (:func:`parse_constraint`).

    Raises
    ------
    InvalidConstraintError
        A malformed entry; ``where`` (e.g. ``constraints[2]``) names it.
    """
    if isinstance(entry, str):
        try:
            return parse_constraint(entry)
        except InvalidConstraintError as e:
            raise InvalidConstraintError(str(e), where) from None
    if not isinstance(entry, Mapping):
        raise InvalidConstraintError(
            f"a constraint is a JSON object or a string, got {entry!r}", where)
    keys = set(entry)
    if keys == {"forbidden"}:
        return Forbidden(_conditions(entry["forbidden"], f"{where}.forbidden"))
    if keys == {"if", "then"}:
        return Implication(_conditions(entry["if"], f"{where}.if"),
                           _conditions(entry["then"], f"{where}.then"))
    if keys in ({"ordering"}, {"ordering", "strict"}):
        pair = entry["ordering"]
        strict = entry.get("strict", False)
        if not (isinstance(pair, list) and len(pair) == 2
                and all(isinstance(n, str) for n in pair)):
            raise InvalidConstraintError(
                f"'ordering' must be a list of two feature names [x, y] (x <= y), got {pair!r}",
                where)
        if not isinstance(strict, bool):
            raise InvalidConstraintError(f"'strict' must be true or false, got {strict!r}",
                                         where)
        return Ordering(pair[0], pair[1], strict)
    raise InvalidConstraintError(
        f"unrecognised constraint fields {sorted(keys)}; a constraint is {{\"forbidden\": "
        "[conditions]}, {\"if\": [conditions], \"then\": [conditions]} or {\"ordering\": "
        "[x, y], \"strict\": false}", where)


def as_constraint(item: object, where: str = "constraint") -> Constraint:
    """``item`` as a constraint: a constraint object, its text or its JSON entry."""
    if isinstance(item, Forbidden | Implication | Ordering):
        return item
    return constraint_from_dict(item, where)


# ---------------------------------------------------------------------- bound to a model
Rule = tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]
"""A constraint on cells: ``(when, unless)``, each a tuple of ``(feature, cell mask)``
literals; a point violates it when every ``when`` literal holds and no ``unless`` one."""


class Constraints(Sequence):
    """The background constraints of one model, checked against its features and bound to
    its cells.

    A model builds it (``DecisionTree(..., constraints=[...])``, ``model.with_constraints``);
    it is a sequence of the constraints (values resolved to the features' domains).

    Parameters
    ----------
    items : iterable of Constraint, str or dict
        Constraint objects, texts (:func:`parse_constraint`) or JSON entries.
    features : FeatureSpace

    Raises
    ------
    InvalidConstraintError
        A malformed constraint, an empty combination, a condition of the wrong form for its
        feature (values for an ordinal feature, bounds for a categorical one, a bound that
        is not a finite number, an empty interval), an ordering of a feature with itself,
        or orderings in a cycle through a strict one (``x < y <= x``: no point exists).
        ``where`` is ``constraints[i]``.
    ConstraintFeatureError
        A constraint names an unknown feature.
    ConstraintValueError
        A condition names a value outside its feature's domain.
    OrderingFeatureError
        An ordering names a feature that is not ordinal.

    Attributes
    ----------
    rules : tuple of Rule
        The forbidden combinations and implications on cells (after :meth:`bind`).
    orders : tuple of (int, int, bool)
        ``(left, right, strict)`` feature positions of the orderings.
    linked : dict of int to tuple of int
        Per ordinal feature in an ordering, every feature linked to it by orderings
        (itself included): they share one partition of the real line.
    """

    def __init__(self, items: Iterable, features: FeatureSpace):
        self.features = features
        out: list[Constraint] = []
        for i, item in enumerate(items):
            where = f"constraints[{i}]"
            out.append(self._resolve(as_constraint(item, where), where))
        self._items = tuple(out)
        self.orders = tuple((features.index(c.left), features.index(c.right), c.strict)
                            for c in out if isinstance(c, Ordering))
        self.linked = self._components()
        self._check_cycles()
        self.rules: tuple[Rule, ...] = ()
        self.cells: tuple | None = None

    # ------------------------------------------------------------------ sequence
    def __getitem__(self, i):
        return self._items[i]

    def __len__(self) -> int:
        return len(self._items)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Constraints) and self._items == other._items

    def __hash__(self) -> int:
        return hash(self._items)

    def __repr__(self) -> str:
        return f"Constraints({[str(c) for c in self._items]})"

    def to_list(self) -> list[dict]:
        """The JSON entries, as in a model file's ``"constraints"``."""
        return [c.to_dict() for c in self._items]

    # ------------------------------------------------------------------ checking
    def _feature(self, name: object, where: str, text: str) -> int:
        if not isinstance(name, str) or name not in self.features:
            raise ConstraintFeatureError(
                f"the constraint {text} names unknown feature {name!r}; the model's "
                f"features are: {', '.join(self.features.names)}", where)
        return self.features.index(name)

    def _resolve(self, c: Constraint, where: str) -> Constraint:
        text = repr(str(c))
        if isinstance(c, Ordering):
            for name in (c.left, c.right):
                f = self._feature(name, where, text)
                feat = self.features[f]
                if not feat.is_ordinal:
                    raise OrderingFeatureError(
                        f"the ordering {text} compares {feat.kind} feature {name!r}; orderings "
                        "compare ordinal (numeric) features: use a forbidden combination or "
                        "an implication over its values instead", where)
            if c.left == c.right:
                raise InvalidConstraintError(
                    f"the ordering {text} compares {c.left!r} with itself", where)
            return Ordering(c.left, c.right, bool(c.strict))
        if isinstance(c, Forbidden):
            if not c.conditions:
                raise InvalidConstraintError(
                    "a forbidden combination needs at least one condition", where)
            return Forbidden(tuple(self._condition(d, where, text) for d in c.conditions))
        if isinstance(c, Implication):
            if not c.conclusions:
                raise InvalidConstraintError(
                    "an implication needs at least one condition after '->' (to forbid the "
                    "premises, write NOT (...))", where)
            return Implication(tuple(self._condition(d, where, text) for d in c.premises),
                               tuple(self._condition(d, where, text) for d in c.conclusions))
        raise InvalidConstraintError(f"not a constraint: {c!r}", where)

    def _condition(self, d: Condition, where: str, text: str) -> Condition:
        if not isinstance(d, Condition):
            raise InvalidConstraintError(f"not a condition: {d!r}", where)
        f = self._feature(d.feature, where, text)
        feat = self.features[f]
        if feat.is_ordinal:
            if d.values is not None:
                raise InvalidConstraintError(
                    f"ordinal feature {feat.name!r} is tested by bounds ('{feat.name} <= t', "
                    f"'t < {feat.name}'), not by values, in {text}", where)
            bounds = [b for b in (d.above, d.upto) if b is not None]
            if not bounds:
                raise InvalidConstraintError(f"the condition on {feat.name!r} has no bound",
                                             where)
            for b in bounds:
                if isinstance(b, bool) or not isinstance(b, int | float | np.number) \
                        or not finite(b):
                    raise InvalidConstraintError(
                        f"bounds on {feat.name!r} must be finite numbers, got {b!r}", where)
            if d.above is not None and d.upto is not None and not d.above < d.upto:
                raise InvalidConstraintError(
                    f"the condition {d.above} < {feat.name} <= {d.upto} is empty", where)
            return Condition(feat.name, above=None if d.above is None else float(d.above),
                             upto=None if d.upto is None else float(d.upto))
        if d.above is not None or d.upto is not None:
            raise InvalidConstraintError(
                f"{feat.kind} feature {feat.name!r} is tested by values ('{feat.name} = v', "
                f"'{feat.name} in {{v, w}}'), not by bounds, in {text}", where)
        values = tuple(d.values or ())
        negate = bool(values) and values[0] == _NOT
        if negate:
            values = values[1:]
        if not values:
            raise InvalidConstraintError(f"the condition on {feat.name!r} allows no value",
                                         where)
        resolved = tuple(self._domain_value(feat, v, where, text) for v in values)
        if negate:
            resolved = tuple(v for v in feat.domain if v not in resolved)
            if not resolved:
                raise InvalidConstraintError(
                    f"the condition on {feat.name!r} excludes every value", where)
        return Condition(feat.name, values=resolved)

    @staticmethod
    def _domain_value(feat, v: object, where: str, text: str) -> object:
        domain = feat.domain
        if not isinstance(v, bool) and isinstance(v, Hashable):
            for d in domain:
                if type(d) is type(v) and d == v:
                    return d
            numeric = [d for d in domain if not isinstance(d, str)]
            if isinstance(v, str) and _is_number(v):  # a number as written in text
                numeric = [d for d in numeric if d == float(v)]
            elif isinstance(v, int | float):
                numeric = [d for d in numeric if d == v]
            else:
                numeric = []
            if numeric:
                return numeric[0]
        raise ConstraintValueError(
            f"the constraint {text} gives {feat.name!r} the value {v!r}, which is not in its "
            f"domain {list(domain)}", where)

    def _components(self) -> dict[int, tuple[int, ...]]:
        parent: dict[int, int] = {}

        def root(f: int) -> int:
            while parent.setdefault(f, f) != f:
                f = parent[f]
            return f

        for a, b, _ in self.orders:
            parent[root(a)] = root(b)
        groups: dict[int, list[int]] = {}
        for f in list(parent):
            groups.setdefault(root(f), []).append(f)
        return {f: tuple(sorted(g)) for g in groups.values() for f in g}

    def _check_cycles(self) -> None:
        """Refuse orderings in a cycle through a strict one (no real point satisfies them)."""
        succ: dict[int, list[int]] = {}
        for a, b, _ in self.orders:
            succ.setdefault(a, []).append(b)
        for a, b, strict in self.orders:
            if not strict:
                continue
            seen, stack = set(), [b]
            while stack:
                f = stack.pop()
                if f == a:
                    names = self.features.names
                    raise InvalidConstraintError(
                        f"the orderings put {names[a]!r} below {names[b]!r} and "
                        f"{names[b]!r} at most {names[a]!r}: no point satisfies them all")
                if f not in seen:
                    seen.add(f)
                    stack.extend(succ.get(f, ()))

    # ------------------------------------------------------------------ cells
    def thresholds(self, thresholds: Mapping[int, Sequence[float]]) -> dict[int, list[float]]:
        """The cuts of each ordinal feature under the constraints: its own ``thresholds``
        (the model's), the bounds of the constraints' conditions on it, and, for a feature
        linked by orderings, the cuts of every feature linked to it (see the module
        docstring). Other features keep theirs."""
        out = {f: [float(t) for t in ts] for f, ts in thresholds.items()}
        for c in self._items:
            if isinstance(c, Ordering):
                continue
            for d in (c.conditions if isinstance(c, Forbidden) else c.premises + c.conclusions):
                f = self.features.index(d.feature)
                if self.features[f].is_ordinal:
                    out.setdefault(f, []).extend(b for b in (d.above, d.upto) if b is not None)
        done: set[int] = set()
        for group in self.linked.values():
            if group[0] in done:
                continue
            done.update(group)
            union = sorted({t for f in group for t in out.get(f, ())})
            for f in group:
                out[f] = list(union)
        return out

    def bind(self, cells: Sequence) -> Constraints:
        """Compile the constraints to :attr:`rules` over ``cells`` (the model's cells, cut by
        :meth:`thresholds`); returns ``self``."""
        self.cells = tuple(cells)
        rules = []
        for c in self._items:
            if isinstance(c, Forbidden):
                rules.append((tuple(self._literal(d) for d in c.conditions), ()))
            elif isinstance(c, Implication):
                rules.append((tuple(self._literal(d) for d in c.premises),
                              tuple(self._literal(d) for d in c.conclusions)))
        self.rules = tuple(rules)
        for a, b, _ in self.orders:
            ta, tb = self.cells[a].thresholds, self.cells[b].thresholds
            assert np.array_equal(ta, tb), "linked features must share their cuts"
        return self

    def _literal(self, d: Condition) -> tuple[int, int]:
        f = self.features.index(d.feature)
        cells = self.cells[f]
        if isinstance(cells, CategoricalCells):
            mask = 0
            for v in d.values or ():
                mask |= 1 << cells.cell_of(v)
            return f, mask
        lo = 0 if d.above is None else int(np.searchsorted(cells.thresholds, d.above)) + 1
        hi = cells.n_cells - 1 if d.upto is None else int(
            np.searchsorted(cells.thresholds, d.upto))
        return f, full_mask(hi + 1) & ~full_mask(lo)

    def allows(self, cells: np.ndarray) -> np.ndarray:
        """Whether some real point of each row of ``cells`` (shape (n, F), the model's cells)
        satisfies every constraint; bool, shape (n,). Exact (see the module docstring)."""
        cells = np.asarray(cells, dtype=np.int64).reshape(-1, len(self.features))
        ok = np.ones(len(cells), dtype=bool)
        for when, unless in self.rules:
            bad = np.ones(len(cells), dtype=bool)
            for f, m in when:
                bad &= ((m >> cells[:, f]) & 1).astype(bool)
            for f, m in unless:
                bad &= ~((m >> cells[:, f]) & 1).astype(bool)
            ok &= ~bad
        for a, b, _ in self.orders:
            ok &= cells[:, a] <= cells[:, b]
        return ok

    def allows_one(self, cells: Sequence[int]) -> bool:
        """:meth:`allows` for one point."""
        return bool(self.allows(np.asarray([cells], dtype=np.int64))[0])

    def violated(self, values: Sequence, cells: Sequence[int]) -> Constraint | None:
        """The first constraint the point with these values (and their cells) violates, or
        ``None``. Conditions are decided on the cells (exact: the cells are cut at their
        bounds), orderings on the values."""
        row = list(cells)
        for c, (when, unless) in zip((c for c in self._items if not isinstance(c, Ordering)),
                                     self.rules, strict=True):
            if all((m >> row[f]) & 1 for f, m in when) and \
                    not any((m >> row[f]) & 1 for f, m in unless):
                return c
        for c, (a, b, strict) in zip((c for c in self._items if isinstance(c, Ordering)),
                                     self.orders, strict=True):
            x, y = float(values[a]), float(values[b])
            if (x >= y) if strict else (x > y):
                return c
        return None

    # ------------------------------------------------------------------ points
    def realize(self, values: Sequence, instance: Sequence[int],
                point: Sequence[int]) -> dict[int, float]:
        """Values for the ordinal features linked by orderings at a point given by its cells,
        that satisfy the orderings: the instance's own value where the point keeps the
        instance's cell (when that fits), else values inside the point's cells.

        Parameters
        ----------
        values, instance : sequences, one per feature
            The instance's values and cells.
        point : sequence of int
            The point's cells; :meth:`allows` must accept it.

        Returns
        -------
        dict of int to float
            Per linked feature, its value (other features are not listed: any value of
            their cell satisfies the constraints, which are exact on cells).
        """
        out: dict[int, float] = {}
        done: set[int] = set()
        for group in self.linked.values():
            if group[0] in done:
                continue
            done.update(group)
            edges = [(a, b, s) for a, b, s in self.orders if a in group]
            fixed = {f: float(values[f]) for f in group if point[f] == instance[f]}
            got = _order_values(self.cells, group, edges, point, fixed)
            if got is None:  # the instance's values do not fit: move them inside their cells
                got = _order_values(self.cells, group, edges, point, {})
            assert got is not None, "a point the constraints allow has ordered values"
            out.update(got)
        return out


def _order_values(cells: Sequence, group: Sequence[int], edges: list[tuple[int, int, bool]],
                  point: Sequence[int], fixed: dict[int, float]) -> dict[int, float] | None:
    """Real values for the features of ``group`` inside their cells of ``point`` (one
    shared partition) satisfying ``edges`` (``a <= b`` or ``a < b``), with ``fixed`` values
    kept; ``None`` if there are none.

    Per cell, the free features first all take the cell's example value
    (:meth:`IntervalCells.value`); if that breaks an edge, the least solution of the
    difference constraints is taken, with values ``base + k * eps`` for an infinitesimal
    ``eps`` (``k`` counts the strict edges on the longest chain from ``base``), then ``eps``
    is made a real number small enough to keep the order."""
    out: dict[int, float] = {}
    by_cell: dict[int, list[int]] = {}
    for f in group:
        by_cell.setdefault(int(point[f]), []).append(f)
    for k, members in by_cell.items():
        cell: IntervalCells = cells[members[0]]
        floor, hi = cell.bounds(k)
        lo = floor
        inner = [(a, b, s) for a, b, s in edges if a in members and b in members]
        rep = float(cell.value(k))
        trial = {f: fixed.get(f, rep) for f in members}
        if all((trial[a] < trial[b]) if s else (trial[a] <= trial[b]) for a, b, s in inner):
            out.update(trial)
            continue
        if not math.isfinite(lo):  # a finite base below every value that matters
            lo = min([hi if math.isfinite(hi) else rep, *fixed.values()]) - 1.0
            lo_strict = 0
        else:
            lo_strict = 1
        # least solution over (base, k): longest paths from the lower bound, by relaxation
        val: dict[int, tuple[float, int]] = {
            f: ((fixed[f], 0) if f in fixed else (lo, lo_strict)) for f in members}
        for _ in range(len(members) + 1):
            changed = False
            for a, b, s in inner:
                need = (val[a][0], val[a][1] + (1 if s else 0))
                if need > val[b]:
                    if b in fixed:
                        return None
                    val[b] = need
                    changed = True
            if not changed:
                break
        else:
            return None
        if any(v > (hi, 0) for v in val.values()):
            return None
        bases = sorted({v[0] for v in val.values()} | ({hi} if math.isfinite(hi) else set()))
        top = max(v[1] for v in val.values()) + 1
        for f, (base, steps) in val.items():
            if steps == 0:
                out[f] = base
                continue
            above = [b for b in bases if b > base]
            gap = (above[0] - base) if above else 1.0
            out[f] = base + gap * steps / (top + 1)
        if not all(floor < out[f] <= hi for f in members):
            return None
        if not all((out[a] < out[b]) if s else (out[a] <= out[b]) for a, b, s in inner):
            return None
    return out


__all__ = ["Constraint", "Constraints", "Forbidden", "Implication", "Ordering",
           "as_constraint", "constraint_from_dict", "forbidden", "parse_condition",
           "parse_constraint"]


def prepare(items: Iterable | None, features: FeatureSpace,
            thresholds: Mapping[int, Sequence[float]]
            ) -> tuple[Constraints | None, Mapping[int, Sequence[float]]]:
    """For a model's constructor: its :class:`Constraints` (``None`` when ``items`` is
    ``None`` or empty) and its ordinal features' cuts under them
    (:meth:`Constraints.thresholds`); the model then builds its cells and calls
    :meth:`Constraints.bind`. A :class:`Constraints` of another model is read again
    (checked against these features)."""
    if items is None:
        return None, thresholds
    if isinstance(items, str | Mapping | Forbidden | Implication | Ordering):
        items = [items]
    items = list(items)
    if not items:
        return None, thresholds
    cs = Constraints(items, features)
    return cs, cs.thresholds(thresholds)
