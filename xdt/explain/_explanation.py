"""The answers :class:`xdt.Explainer` returns: :class:`Explanation`, one explanation with its
evidence, and :class:`ExplanationList`, the explanations of an enumeration with how it ended
(:class:`EnumerationInterrupted` when Ctrl-C ended it).

Definitions (Izza, Ignatiev & Marques-Silva, "On Explaining Decision Trees", Section 2;
Ignatiev et al., AIxIA 2020): for an instance ``v`` predicted ``c``,

* a **weak AXp** is a set of features ``S`` such that every point agreeing with ``v`` on ``S``
  is predicted ``c``; an **AXp** (PI-explanation) is a subset-minimal weak AXp;
* a **CXp** is a subset-minimal set of features ``T`` such that some point agreeing with ``v``
  on every feature outside ``T`` is predicted another class;
* **path-restricted** explanations draw only from the features of ``v``'s path, each held to
  the path's literal (the intersection of the path's tests on it) instead of ``v``'s cell;
  a path is **explanation-redundant** when its literals are not a PI-explanation.

For a DNF (Cooper, Bousdira & Carbonnel, "Interpretable DNFs", IJCAI 2025, Section 2) the
definitions are the same; path-restricted explanations and path redundancy, which read a
tree's paths, do not apply, and the SAT engine is the one that explains it. So for a
decision list (Ignatiev & Marques-Silva, "SAT-Based Rigorous Explanations for Decision
Lists", SAT 2021): its firing rule alone may hold redundant literals and miss why the
earlier rules did not fire; its AXps do neither.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from html import escape
from typing import TYPE_CHECKING, Any

from xdt.ir._cells import cells_of
from xdt.ir._values import format_number, to_python

if TYPE_CHECKING:
    from xdt.explain.checks._certificates import Certificate
    from xdt.explain.queries._probability import Coverage


class Deferred:
    """A value an :class:`Explanation` computes on first access (its certificate, a CXp's
    counterexample): ``make()`` is called once, by the first reader, and its result kept.

    Several fields may share one ``make`` that returns all of them at once: give each its
    own :class:`Deferred` with the same ``make`` and a ``key`` into the returned dict."""

    __slots__ = ("_make", "key")

    def __init__(self, make: Callable[[], Any], key: str | None = None):
        self._make = make
        self.key = key

    def get(self) -> Any:
        value = self._make()
        return value if self.key is None else value[self.key]


def once(make: Callable[[], Any]) -> Callable[[], Any]:
    """``make``, called at most once: later calls return the first result."""
    box: list = []

    def cached() -> Any:
        if not box:
            box.append(make())
        return box[0]

    return cached


class _LazyField:
    """A dataclass field whose stored value may be a :class:`Deferred`, resolved (and then
    kept) on first read. Reading it is an ordinary attribute read afterwards."""

    def __init__(self, default: Any = None):
        self.default = default

    def __set_name__(self, owner: type, name: str) -> None:
        # kept in the instance's __dict__ under the field's own name (a data descriptor
        # comes first in attribute lookup), so vars(explanation) names the fields
        self.slot = name

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self.default
        value = obj.__dict__[self.slot]
        if type(value) is Deferred:
            value = value.get()
            obj.__dict__[self.slot] = value
        return value

    def __set__(self, obj: Any, value: Any) -> None:
        # the dataclass passes the field's default, this descriptor, when none is given
        obj.__dict__[self.slot] = self.default if value is self else value


@dataclass(frozen=True)
class Explanation:
    """An abductive (AXp), probabilistic abductive (delta-AXp) or contrastive (CXp)
    explanation of one prediction.

    Attributes
    ----------
    kind : {"AXp", "CXp", "delta-AXp"}
        A delta-AXp (:meth:`xdt.Explainer.delta_axp`) reads as an AXp (a rule) whose
        prediction holds with probability ``precision`` instead of 1.
    features : tuple of str
        The explanation's features, in the model's feature order.
    values : tuple
        The instance's value of each of those features.
    literals : tuple of str
        Per feature, the readable literal the explanation holds it to: the instance's cell
        (``0.64 < x``, ``Outlook = overcast``), for path-restricted explanations the path's
        literal (``Outlook in {rain, sunny}``), for inflated AXps the widened set
        (``0.5 < x <= 2.3``, ``colour in {red, blue}``).
    prediction : str or int
        The explained prediction.
    target : str or None
        Name of the predicted attribute, when the model knows it.
    path_restricted : bool
        Whether the explanation was drawn from the literals of the instance's path.
    counterexample : dict or None
        For a CXp: a point (feature name -> value) that changes only the CXp's features
        (within the path's literals, for path-restricted ones) and is predicted
        ``counterexample_class``. Not part of equality. Computed on first access.
    counterexample_class : str, int or None
    cells : tuple of int
        Per feature, the bit mask of the model's cells (``model.cells[f]``) the explanation
        holds it to — the sets ``literals`` describe (for a CXp: the instance's cells).
    inflated : bool
        Whether the AXp was inflated: each feature widened to a maximal entailing cell set
        (:mod:`xdt.explain.queries._inflate`). Part of equality, as are ``cells``.
    certificate : AxpCertificate, CxpCertificate or None
        Evidence checkable with the model's ``predict`` (:mod:`xdt.explain.checks._certificates`):
        witness points and, for an AXp, the proof of entailment. Not part of equality.
        Built on first access (or before the explanation is returned, with
        ``verify=True``), so an explanation whose certificate is never read does not pay
        for it.
    verified : bool
        Whether the certificate was re-checked against the model's ``predict``
        (:func:`~xdt.explain.checks.check_certificate`) before the explanation was
        returned: True for every explanation of a call with ``verify=True``, except those of
        an enumeration whose time limit passed (or that was interrupted) before their check.
        Not part of equality.
    cost : int, float or None
        With feature weights (``weights=``): the explanation's cost, the sum of its
        features' weights (:mod:`xdt.explain.queries._preferences`). ``None`` otherwise. Not part of
        equality.
    optimality : OptimalityCertificate or None
        For a cheapest explanation (``smallest_axp``, ``smallest_cxp``): the proof that no
        explanation of its kind costs less (:mod:`xdt.explain.checks._optimality`), checked with
        the certificate by ``verify=True``. Built on first access. Not part of equality.
    precision : Fraction or None
        For a delta-AXp: the exact probability that a point agreeing with the instance on
        its features gets its prediction (:mod:`xdt.explain.queries._probability`); None otherwise.
        Not part of equality.
    delta : Fraction or None
        For a delta-AXp: the least precision it was asked to keep. Not part of equality.
    model_cells : tuple of Cells or None
        The explained model's cells (``model.cells``), kept so that :meth:`coverage` can
        read data against them; set by :class:`~xdt.Explainer`. Not part of equality, not
        shown.
    """

    kind: str
    features: tuple[str, ...]
    values: tuple
    literals: tuple[str, ...]
    prediction: object
    target: str | None = None
    path_restricted: bool = False
    counterexample: dict | None = field(default=_LazyField(), compare=False, hash=False)
    counterexample_class: object = field(default=_LazyField(), compare=False, hash=False)
    cells: tuple[int, ...] = ()
    inflated: bool = False
    certificate: Certificate | None = field(default=_LazyField(), compare=False, hash=False,
                                            repr=False)
    verified: bool = field(default=False, compare=False, hash=False, repr=False)
    cost: int | float | None = field(default=None, compare=False, hash=False, repr=False)
    optimality: Any = field(default=_LazyField(), compare=False, hash=False, repr=False)
    precision: Fraction | None = field(default=None, compare=False, hash=False, repr=False)
    delta: Fraction | None = field(default=None, compare=False, hash=False, repr=False)
    model_cells: tuple | None = field(default=None, compare=False, hash=False, repr=False)

    @classmethod
    def of(cls, kind: str, features: tuple, values: tuple, literals: tuple, prediction: object,
           target: str | None, path_restricted: bool, counterexample: object,
           counterexample_class: object, cells: tuple, inflated: bool, certificate: object,
           verified: bool = False, cost: int | float | None = None,
           optimality: object = None) -> Explanation:
        """The explanation with these fields (each may be a :class:`Deferred` where the
        class allows it), made without the frozen dataclass's checks: the engines make
        many."""
        self = object.__new__(cls)
        self.__dict__.update(
            kind=kind, features=features, values=values, literals=literals,
            prediction=prediction, target=target, path_restricted=path_restricted,
            counterexample=counterexample, counterexample_class=counterexample_class,
            cells=cells, inflated=inflated, certificate=certificate, verified=verified,
            cost=cost, optimality=optimality)
        return self

    def __getstate__(self) -> dict:
        """For pickling: every deferred value computed, so the copy stands alone."""
        state = dict(self.__dict__)
        for key, value in state.items():
            if type(value) is Deferred:
                state[key] = value.get()
        return state

    def __len__(self) -> int:
        """Explanation size: number of features."""
        return len(self.features)

    def __iter__(self):
        return iter(self.features)

    def __contains__(self, name: object) -> bool:
        return name in self.features

    def _outcome(self, label: object) -> str:
        return f"{self.target} = {label}" if self.target else str(label)

    @property
    def rule(self) -> str:
        """The explanation as a readable rule.

        AXp: ``IF Outlook = overcast THEN play = yes``.
        CXp: ``CHANGE Outlook (now overcast; e.g. to rain) => play = no``; a number of the
        counterexample is printed exactly (:func:`~xdt.ir._values.format_number`), so it
        reads back as a value of the counterexample's cell (``e.g. to 1.1e+308``).
        """
        if self.kind != "CXp":  # abductive: AXp or delta-AXp
            cond = " AND ".join(self.literals) if self.literals else "TRUE"
            return f"IF {cond} THEN {self._outcome(self.prediction)}"
        changes = []
        for name, value in zip(self.features, self.values, strict=True):
            new = self.counterexample.get(name) if self.counterexample else None
            if isinstance(new, float):
                new = format_number(new)
            changes.append(f"{name} (now {value}; e.g. to {new})" if new is not None
                           else f"{name} (now {value})")
        outcome = (self._outcome(self.counterexample_class)
                   if self.counterexample_class is not None
                   else f"NOT {self._outcome(self.prediction)}")
        return f"CHANGE {' AND '.join(changes)} => {outcome}"

    def __str__(self) -> str:
        return self.rule

    @property
    def conditions(self) -> dict[str, str]:
        """Feature name -> the literal the explanation holds it to."""
        return dict(zip(self.features, self.literals, strict=True))

    def __repr__(self) -> str:
        scope = ", path-restricted" if self.path_restricted else ""
        scope += ", inflated" if self.inflated else ""
        scope += f", cost {self.cost:g}" if self.cost is not None else ""
        if self.precision is not None:
            scope += f", precision {format_share(self.precision)}"
            scope += f" >= {format_share(self.delta)}" if self.delta is not None else ""
        return f"<{self.kind}{scope}: {self.rule}>"

    def _repr_html_(self) -> str:
        """The explanation as HTML, for Jupyter: its kind and prediction, a table of its
        features (value and literal; for a CXp, the counterexample's value) and its rule.
        Every text is escaped."""
        scope = ", path-restricted" if self.path_restricted else ""
        scope += ", inflated" if self.inflated else ""
        checked = ", certificate checked" if self.verified else ""
        if self.precision is not None:
            checked = f", precision {format_share(self.precision)}" + checked
        size = f"{len(self)} feature{'' if len(self) == 1 else 's'}"
        head = (f"<b>{_html(self.kind)}</b>{scope} of the prediction "
                f"<code>{_html(self._outcome(self.prediction))}</code>: {size}{checked}")
        if self.kind != "CXp":  # abductive: AXp or delta-AXp
            cols = ("feature", "value", "held to")
            rows = [(f, v, lit) for f, v, lit in zip(self.features, self.values, self.literals,
                                                     strict=True)]
        else:
            cols = ("feature", "now", "e.g. changed to")
            cx = self.counterexample or {}
            rows = [(f, v, cx.get(f, "")) for f, v in zip(self.features, self.values,
                                                         strict=True)]
        table = ""
        if rows:
            th = "".join(f"<th>{c}</th>" for c in cols)
            td = "".join("<tr>" + "".join(f"<td>{_html(c)}</td>" for c in r) + "</tr>"
                         for r in rows)
            table = f"<table><thead><tr>{th}</tr></thead><tbody>{td}</tbody></table>"
        return (f'<div class="xdt-explanation"><div>{head}</div>{table}'
                f"<div><code>{_html(self.rule)}</code></div></div>")

    def to_dict(self, certificate: bool = True) -> dict:
        """A JSON-ready dict of the explanation; ``certificate=False`` leaves out the
        certificate (``"certificate": None``), which is most of its size."""
        out = {"kind": self.kind, "features": list(self.features),
               "values": [to_python(v) for v in self.values], "literals": list(self.literals),
               "prediction": to_python(self.prediction), "path_restricted": self.path_restricted,
               "inflated": self.inflated, "cells": [list(cells_of(m)) for m in self.cells],
               "rule": self.rule}
        if self.counterexample is not None:
            out["counterexample"] = {k: to_python(v) for k, v in self.counterexample.items()}
            out["counterexample_class"] = to_python(self.counterexample_class)
        if self.cost is not None:
            out["cost"] = self.cost
        if self.precision is not None:
            out["precision"] = {"exact": str(self.precision), "float": float(self.precision)}
            out["delta"] = (None if self.delta is None else
                            {"exact": str(self.delta), "float": float(self.delta)})
        out["certificate"] = (None if self.certificate is None or not certificate
                              else self.certificate.to_dict())
        if certificate and self.optimality is not None:
            out["optimality"] = self.optimality.to_dict()
        out["verified"] = self.verified
        return out

    def coverage(self, data) -> Coverage:
        """How general the explanation is: the share of the feature space (the product of
        per-feature marginals) and of a dataset's rows that its region covers — each of its
        features held to its cells (the instance's cell, the path's literal, an inflated
        AXp's widened set), the others free.

        Parameters
        ----------
        data : pandas.DataFrame, ProductDistribution or EmpiricalDistribution
            A DataFrame with a column per feature of the explanation (others ignored): the
            product of its columns' distributions over the model's cells, and its rows.
            A :class:`~xdt.explain.queries.ProductDistribution`: its measure only (no
            rows). An :class:`~xdt.explain.queries.EmpiricalDistribution`: its rows and
            their marginals.

        Returns
        -------
        Coverage
            ``product`` (Fraction), ``rows`` (Fraction or None), ``covered`` and ``n_rows``;
            see :func:`xdt.explain.queries.coverage`.

        Raises
        ------
        ParameterError
            For a CXp (no region), or a distribution over another model's cells.
        MissingFeatureError, DataError, InstanceError
            Data without a column of the explanation, without rows, or with a value the
            model cannot read (naming its row).
        """
        from xdt.explain.queries._probability import coverage

        return coverage(self, data)




def explanation_of(model: Any, literals: dict[tuple[int, int], str], kind: str,
                   feats: list[int], masks: tuple[int, ...], values: tuple, prediction: int,
                   path_restricted: bool, counterexample: object, counterexample_class: object,
                   certificate: object, inflated: bool, cost: object = None,
                   optimality: object = None) -> Explanation:
    """The :class:`Explanation` of ``model`` over the features at positions ``feats``, each
    held to the cells ``masks`` (bit masks, one per feature); ``values`` are the instance's
    (all of them, in feature order) and ``prediction`` its class index. The readable
    literals are read from ``literals`` (feature, cells) -> text, and the missing ones
    written there (:func:`literal_text`). The other fields are passed on as they are (each
    may be a :class:`Deferred`)."""
    names = model.features.names
    literal = literals.get
    made = Explanation.of(
        kind, tuple([names[f] for f in feats]), tuple([values[f] for f in feats]),
        tuple([literal((f, m)) or literal_text(model, literals, f, m)
               for f, m in zip(feats, masks, strict=True)]),
        model.classes[prediction], model.target, path_restricted, counterexample,
        counterexample_class, masks, inflated, certificate, cost=cost, optimality=optimality)
    made.__dict__["model_cells"] = model.cells  # for Explanation.coverage
    return made


def literal_text(model: Any, literals: dict[tuple[int, int], str], f: int, cells: int) -> str:
    """The readable literal ``model.cells[f].describe(cells)``, made once per model (and
    kept in ``literals`` for the other explainers of the model)."""
    key = (f, cells)
    text = literals.get(key)
    if text is None:
        text = literals[key] = model.cells[f].describe(cells)
    return text


def format_share(value: Fraction) -> str:
    """A probability as a short decimal, cut (not rounded) to 4 places so that it never
    reads above its value: ``0.9612``, ``0.9999`` for 19999/20000, ``1`` for 1."""
    if value.denominator == 1:
        return str(value.numerator)
    cut = Fraction(int(value * 10**4), 10**4)
    return format(float(cut), ".4f").rstrip("0").rstrip(".")


def _html(value: object) -> str:
    """``value`` as escaped HTML text (numbers as they read back)."""
    if isinstance(value, float):
        value = format_number(value)
    return escape(str(value), quote=True)


REPR_MAX_EXPLANATIONS = 50
"""Explanations an :class:`ExplanationList` shows in Jupyter."""


def explanations_html(explanations: list, complete: bool = True,
                      stopped_by: str | None = None) -> str:
    """HTML of a list of explanations (the Jupyter view of
    :class:`ExplanationList`): how many and how the enumeration
    ended, then each rule (the first :data:`REPR_MAX_EXPLANATIONS`). Every text is
    escaped."""
    kinds = sorted({e.kind for e in explanations})
    what = "/".join(kinds) if kinds else "explanation"
    n = len(explanations)
    end = ("complete" if complete else
           "stopped by max_count: more exist" if stopped_by == "max_count" else
           f"stopped by {_html(stopped_by)}: there may be more")
    items = "".join(f"<li><code>{_html(e.rule)}</code></li>"
                    for e in explanations[:REPR_MAX_EXPLANATIONS])
    more = (f"<div>… and {n - REPR_MAX_EXPLANATIONS} more</div>"
            if n > REPR_MAX_EXPLANATIONS else "")
    return (f'<div class="xdt-explanations"><div><b>{n} {what}{"" if n == 1 else "s"}</b> '
            f"({end})</div><ol>{items}</ol>{more}</div>")


class ExplanationList(list):
    """A list of :class:`Explanation` from an enumeration, with how it ended.

    Attributes
    ----------
    complete : bool
        True when the enumeration ran to its end: the list holds every explanation.
    stopped_by : {None, "max_count", "time_limit", "interrupted"}
        What stopped an incomplete enumeration ("interrupted": see
        :class:`EnumerationInterrupted`). With "max_count" another explanation is known to
        exist; with the others there may be more.
    """

    def __init__(self, items=(), complete: bool = True, stopped_by: str | None = None):
        super().__init__(items)
        self.complete = complete
        self.stopped_by = stopped_by

    def __repr__(self) -> str:
        tail = "" if self.complete else f", complete=False (stopped by {self.stopped_by})"
        return f"ExplanationList({list.__repr__(self)}{tail})"

    def _repr_html_(self) -> str:
        """The list as HTML, for Jupyter (:func:`~xdt.explain._explanation.explanations_html`)."""
        return explanations_html(self, self.complete, self.stopped_by)


class EnumerationInterrupted(KeyboardInterrupt):
    """An enumeration was interrupted (Ctrl-C, or another ``KeyboardInterrupt``).

    It is a ``KeyboardInterrupt``, so code that does not look at it stops as usual.

    Attributes
    ----------
    found : ExplanationList
        The explanations found before the interruption (``complete=False``,
        ``stopped_by="interrupted"``); those whose certificate check had not run have
        ``verified=False``.
    """

    def __init__(self, found: ExplanationList):
        self.found = found
        super().__init__(f"enumeration interrupted after {len(found)} explanation(s)")
