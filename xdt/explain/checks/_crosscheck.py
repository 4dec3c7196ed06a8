"""Cross-checking the two explanation engines against each other, row by row.

The path-walker (``engine="path"``, polynomial, trees only) and the SAT oracle
(``engine="sat"``, PySAT) compute the same mathematical objects by independent means, so on
every instance they must agree: each engine's AXp must be an AXp for the other (a weak AXp,
subset-minimal), each one's CXp a CXp for the other, the sets of all AXps and all CXps must
be equal, and both must say the same about whether the instance's path is
explanation-redundant. :func:`crosscheck` runs both on every row of a table and returns a
:class:`CrosscheckReport`.

Every disagreement comes down to one entailment question — does fixing the features of
``S`` entail the prediction? — on which one engine says yes and the other produces a point
agreeing with the instance on ``S``. The report gives that point with the class that the
model's own ``predict`` assigns it (and whether it really agrees with the instance on
``S``), which settles, independently of both engines, which one is wrong.

Definitions: Izza, Ignatiev & Marques-Silva, "On Explaining Decision Trees" (2020),
Section 2 (AXps, CXps, path-restricted explanations, explanation-redundant paths) and
Section 5 (polynomial-time CXps, AXps by hitting-set duality).

Examples
--------
>>> import xdt
>>> from xdt.ir import DecisionTree, Feature, Leaf, ThresholdSplit
>>> tree = DecisionTree([Feature("x", "ordinal"), Feature("y", "ordinal")],
...     ["circle", "cross"], ThresholdSplit("y", 0.73, ThresholdSplit("x", 0.64,
...     Leaf("circle"), Leaf("cross")), Leaf("cross")))
>>> report = xdt.crosscheck(tree, [{"x": 0.9, "y": 0.2}, {"x": 0.1, "y": 0.95}])
>>> report.ok, report.rows, report.agreements["all_axps"]
(True, 2, 2)
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial

import numpy as np
import pandas as pd

from xdt.errors import (
    ComputationLimitError,
    DataError,
    EngineNotAvailableError,
    UnsupportedModelError,
    XdtError,
)
from xdt.explain._explainer import Explainer
from xdt.explain._models import is_constrained, kind_name
from xdt.explain.engines._sat import DEFAULT_SOLVER
from xdt.ir._cells import full_mask
from xdt.ir._decision_list import DecisionList
from xdt.ir._dnf import DNF
from xdt.ir._ensemble import TreeEnsemble
from xdt.ir._instances import as_frame, encode_instance
from xdt.ir._protocol import PATHS, RULES, TERMS, TREES, offers
from xdt.ir._tree import DecisionTree
from xdt.ir._values import to_python

ENGINES = ("path", "sat")

CHECKS: dict[str, str] = {
    "path_axp": "path's AXp is an AXp for sat",
    "sat_axp": "sat's AXp is an AXp for path",
    "path_cxp": "path's CXp is a CXp for sat",
    "sat_cxp": "sat's CXp is a CXp for path",
    "all_axps": "all AXps: same sets",
    "all_cxps": "all CXps: same sets",
    "path_redundant": "path redundancy: same answer",
}
"""The checks made on every row, by key, with their readable names."""

ENUMERATION_CHECKS = ("all_axps", "all_cxps")



def _other(engine: str) -> str:
    return "sat" if engine == "path" else "path"


def _set(names: Iterable[str]) -> str:
    return "{" + ", ".join(names) + "}"


# ---------------------------------------------------------------------- report objects
@dataclass
class Counterexample:
    """A concrete point that settles an entailment question between the engines.

    Attributes
    ----------
    point : dict
        Feature name -> value.
    predicted : object
        The class the model's own ``predict`` gives the point (not either engine's word).
    source : {"path", "sat"}
        The engine that produced the point.
    fixed : tuple of str
        The features on which the point is meant to agree with the instance (held to the
        instance's cell, or to the path's literal for path-restricted explanations).
    genuine : bool
        Whether the point is a real counterexample: the model classifies it differently
        from the instance *and* it agrees with the instance on ``fixed``.
    refutes : {"path", "sat"}
        The engine the point proves wrong: the one that claimed that fixing ``fixed``
        entails the prediction when the point is genuine, else ``source`` itself.
    """

    point: dict
    predicted: object
    source: str
    fixed: tuple[str, ...]
    genuine: bool
    refutes: str

    def describe(self, prediction: object) -> list[str]:
        """Two readable lines: the point, and what ``model.predict`` makes of it."""
        shown = ", ".join(f"{k}: {to_python(v)}" for k, v in self.point.items())
        head = f"counterexample from {self.source}, {_set(self.fixed)} fixed: {{{shown}}}"
        if self.genuine:
            return [head, f"model.predict gives {to_python(self.predicted)}, not "
                          f"{to_python(prediction)}: fixing {_set(self.fixed)} does not entail the "
                          f"prediction, so {self.refutes} is wrong"]
        return [head, f"model.predict gives {to_python(self.predicted)}: not a counterexample "
                      f"(same class, or off the fixed features), so {self.refutes} is wrong"]

    def to_dict(self) -> dict:
        return {"point": {k: to_python(v) for k, v in self.point.items()},
                "predicted": to_python(self.predicted), "source": self.source,
                "fixed": list(self.fixed), "genuine": self.genuine, "refutes": self.refutes}


@dataclass
class Disagreement:
    """One check on which the engines disagree, on one row.

    Attributes
    ----------
    row : object
        The row: its index label for a DataFrame, its position for a list of dicts.
    check : str
        A key of :data:`CHECKS`.
    path, sat : object
        Each engine's answer, JSON-ready: a list of feature names (an explanation), a list
        of such lists (an enumeration), ``None`` (no CXp) or a bool (whether the other
        engine's explanation is an AXp/CXp for this one; whether the path is redundant).
    detail : str
        What went wrong, in words.
    counterexample : Counterexample or None
        The point that settles the question, when there is one (an enumeration that misses
        an explanation its own engine confirms has none).
    refutes : {"path", "sat", None}
        The engine found wrong, when the evidence says.
    """

    row: object
    check: str
    path: object
    sat: object
    detail: str
    counterexample: Counterexample | None = None
    refutes: str | None = None

    def describe(self, prediction: object | None = None) -> list[str]:
        shown = {"path": _show(self.check, self.path), "sat": _show(self.check, self.sat)}
        if self.check.endswith("_cxp") and None in (self.path, self.sat):
            judge = "sat" if self.path is None else "path"  # it denies "no CXp"
            shown[judge] = "some CXp exists"
        lines = [f"- row {self.row}: {CHECKS[self.check]}",
                 f"    path: {shown['path']}", f"    sat:  {shown['sat']}",
                 f"    {self.detail}"]
        if self.counterexample is not None:
            lines += [f"    {line}" for line in self.counterexample.describe(prediction)]
        return lines

    def to_dict(self) -> dict:
        return {"row": to_python(self.row), "check": self.check, "path": self.path,
                "sat": self.sat, "detail": self.detail, "refutes": self.refutes,
                "counterexample": (None if self.counterexample is None
                                   else self.counterexample.to_dict())}


Evidence = tuple[str, Counterexample | None, str | None]
"""``(detail, counterexample, engine refuted)`` of a disagreement."""


def _show(check: str, answer: object) -> str:
    """An engine's answer for one check, in words."""
    if isinstance(answer, bool):
        if check == "path_redundant":
            return "redundant" if answer else "not redundant"
        kind = "an AXp" if check.endswith("axp") else "a CXp"
        return f"is {kind}" if answer else f"not {kind}"
    if answer is None:
        return "no CXp"
    if isinstance(answer, list) and all(isinstance(a, list) for a in answer):
        return f"{len(answer)}: " + ", ".join(_set(a) for a in answer)
    if isinstance(answer, list):
        return _set(answer)
    return str(answer)


@dataclass
class CrosscheckReport:
    """What :func:`crosscheck` found.

    Attributes
    ----------
    rows : int
        Rows checked.
    agreements : dict[str, int]
        Per check (a key of :data:`CHECKS`), the rows on which the engines agree.
    checked : dict[str, int]
        Per check, the rows on which it was made (0 for the enumerations with
        ``enumerate=False``; rows whose enumeration hit ``time_limit`` are not counted).
    disagreements : list of Disagreement
    times : dict[str, list[float]]
        Per engine, seconds spent on each row computing its own answers (AXp, CXp, all
        AXps, all CXps, path redundancy; not the cross-checks).
    path_restricted, enumerate : bool
    solver : str
        The SAT engine's solver.
    model : str
        A description of the model.
    predictions : dict
        Row -> the predicted class, for rows with a disagreement.
    interrupted : bool
        True when the run was interrupted (Ctrl-C) after ``rows`` of ``requested`` rows:
        everything above is about the rows checked in full (see
        :class:`CrosscheckInterrupted`).
    requested : int
        Rows asked for.
    """

    rows: int = 0
    agreements: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CHECKS, 0))
    checked: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CHECKS, 0))
    disagreements: list[Disagreement] = field(default_factory=list)
    times: dict[str, list[float]] = field(default_factory=lambda: {e: [] for e in ENGINES})
    path_restricted: bool = False
    enumerate: bool = True
    solver: str = DEFAULT_SOLVER
    model: str = ""
    predictions: dict = field(default_factory=dict)
    partial: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(sorted(ENUMERATION_CHECKS), 0))
    interrupted: bool = False
    requested: int = 0

    @property
    def ok(self) -> bool:
        """True when no disagreement was found (see :attr:`complete` for how much was
        compared)."""
        return not self.disagreements

    @property
    def complete(self) -> bool:
        """True when every check was made on every row: the run was not interrupted, and no
        enumeration was stopped by the time limit (stopped ones are only checked
        explanation by explanation)."""
        return not self.interrupted and not any(self.partial.values())

    def median_time(self, engine: str) -> float:
        """Median seconds per row of ``engine`` (NaN with no rows)."""
        t = self.times[engine]
        return float(np.median(t)) if t else math.nan

    def total_time(self, engine: str) -> float:
        """Total seconds of ``engine`` over all rows."""
        return float(sum(self.times[engine]))

    def to_dict(self) -> dict:
        """A JSON-ready dict of the report."""
        return {
            "ok": self.ok, "complete": self.complete, "partial": dict(self.partial),
            "rows": self.rows, "interrupted": self.interrupted,
            "rows_requested": self.requested, "model": self.model,
            "path_restricted": self.path_restricted, "enumerate": self.enumerate,
            "solver": self.solver,
            "checks": {k: {"name": CHECKS[k], "checked": self.checked[k],
                           "agree": self.agreements[k]} for k in CHECKS},
            "disagreements": [d.to_dict() for d in self.disagreements],
            "time": {e: {"median_s": self.median_time(e) if self.rows else None,
                         "total_s": self.total_time(e)} for e in ENGINES},
        }

    def summary(self) -> str:
        """A readable account: one line per check, times, and every disagreement."""
        scope = "path-restricted" if self.path_restricted else "unrestricted"
        lines = [f"crosscheck: path engine vs SAT engine ({self.solver}), {scope} "
                 f"explanations, {self.rows} row{'' if self.rows == 1 else 's'}"]
        if self.model:
            lines.append(f"model: {self.model}")
        width = max(len(name) for name in CHECKS.values())
        lines.append(f"  {'check':<{width}}  agree")
        for key, name in CHECKS.items():
            if key in ENUMERATION_CHECKS and not self.enumerate:
                lines.append(f"  {name:<{width}}  skipped (--no-enumerate)")
                continue
            skipped = self.rows - self.checked[key]
            tail = (f"  ({skipped} stopped by the time limit: each explanation found was "
                    "checked by the other engine)" if skipped else "")
            lines.append(f"  {name:<{width}}  {self.agreements[key]}/{self.checked[key]}{tail}")
        lines.append(f"  {'time per row':<{width}}  median      total")
        for e in ENGINES:
            med = self.median_time(e) if self.rows else math.nan
            lines.append(f"  {e:<{width}}  {_ms(med):>9}  {_ms(self.total_time(e)):>9}")
        stopped = sum(self.partial.values())
        if self.interrupted:
            lines.append(f"INTERRUPTED after {self.rows} of {self.requested} rows: the counts "
                         "above are of the rows checked in full"
                         + ("; no disagreement on them" if self.ok else ""))
        elif self.ok and not stopped:
            lines.append("OK: the engines agree on every check of every row")
        elif self.ok:
            lines.append(f"INCOMPLETE: no disagreement, but {stopped} enumeration(s) were "
                         "stopped by the time limit and their sets could not be compared")
        if not self.ok:
            n = len(self.disagreements)
            lines.append(f"{n} DISAGREEMENT{'' if n == 1 else 'S'}:")
            for d in self.disagreements:
                lines += d.describe(self.predictions.get(d.row))
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()


class CrosscheckInterrupted(KeyboardInterrupt):
    """:func:`crosscheck` was interrupted (Ctrl-C, or another ``KeyboardInterrupt``).

    It is a ``KeyboardInterrupt``, so code that does not look at it stops as usual.

    Attributes
    ----------
    report : CrosscheckReport
        The report of the rows checked in full before the interruption
        (``report.interrupted`` is True; ``report.rows`` of ``report.requested``); the row
        under way is left out.
    """

    def __init__(self, report: CrosscheckReport):
        self.report = report
        super().__init__(f"crosscheck interrupted after {report.rows} of {report.requested} "
                         "rows")


def _ms(seconds: float) -> str:
    if math.isnan(seconds):
        return "n/a"
    return f"{seconds * 1e3:.2f} ms" if seconds < 1 else f"{seconds:.2f} s"


# ---------------------------------------------------------------------- one row
class _Row:
    """Both engines' answers on one row, and the evidence for any disagreement."""

    def __init__(self, model: DecisionTree, engines: dict[str, Explainer], x: dict,
                 label: object, path_restricted: bool):
        self.model = model
        self.engines = engines
        self.x = x
        self.label = label
        self.pr = path_restricted
        self.names = list(model.features.names)
        _, self.cells = encode_instance(model.features, model.cells, x)
        path = model.paths[int(model.leaf_paths(np.asarray([self.cells]))[0])]
        self.prediction = path.label
        self.path_names = [self.names[f] for f in path.features]
        # the cells each feature is held to, unrestricted and path-restricted
        self.allowed = {False: [1 << c for c in self.cells],
                        True: [path.masks.get(f, full_mask(c.n_cells))
                               for f, c in enumerate(model.cells)]}
        self.universe = (self.ordered(self.path_names) if path_restricted
                         else tuple(self.names))

    # --------------------------------------------------------------- evidence
    def ordered(self, features: Iterable[str]) -> tuple[str, ...]:
        s = set(features)
        return tuple(n for n in self.names if n in s)

    def probe(self, source: str, fixed: Iterable[str], claimer: str,
              pr: bool | None = None) -> Counterexample | None:
        """``source``'s counterexample to "fixing ``fixed`` entails the prediction" (claimed
        by ``claimer``), checked against the model itself; ``None`` when ``source`` finds
        none. ``pr``: path-restricted (default: the row's setting)."""
        pr = self.pr if pr is None else pr
        fixed = self.ordered(fixed)
        point = self.engines[source].counterexample(self.x, fixed, path_restricted=pr)
        if point is None:
            return None
        predicted = to_python(self.model.predict([point])[0])
        _, cells = encode_instance(self.model.features, self.model.cells, point)
        agrees = all((self.allowed[pr][self.names.index(n)] >> cells[self.names.index(n)]) & 1
                     for n in fixed)
        genuine = bool(predicted != to_python(self.prediction) and agrees)
        return Counterexample({k: to_python(v) for k, v in point.items()}, predicted, source,
                              fixed, genuine, claimer if genuine else source)

    def weak(self, engine: str, fixed: Iterable[str], pr: bool | None = None) -> bool:
        return self.engines[engine].is_weak_axp(
            self.x, self.ordered(fixed), path_restricted=self.pr if pr is None else pr)

    def refute_axp(self, claimer: str, axp: Sequence[str]) -> Evidence:
        """Evidence on "``axp`` is an AXp", claimed by ``claimer`` and denied by the other."""
        judge = _other(claimer)
        shown = _set(axp)
        cx = self.probe(judge, axp, claimer)
        if cx is not None:
            return f"{judge} says fixing {shown} does not entail the prediction", cx, cx.refutes
        for f in axp:
            rest = [n for n in axp if n != f]
            if self.weak(judge, rest):
                cx = self.probe(claimer, rest, judge)
                if cx is None:
                    return (f"{shown} is not minimal: without {f} it still entails the "
                            f"prediction, by both engines ({claimer} contradicts itself)",
                            None, claimer)
                return (f"{judge} says {shown} is not minimal: without {f} it still entails "
                        "the prediction", cx, cx.refutes)
        return (f"{judge} denies that {shown} is an AXp, but its own entailment answers say it "
                "is one (it contradicts itself)", None, judge)

    def refute_cxp(self, claimer: str, cxp: Sequence[str] | None) -> Evidence:
        """Evidence on "``cxp`` is a CXp" (or, for ``None``, "there is no CXp"), claimed by
        ``claimer`` and denied by the other."""
        judge = _other(claimer)
        if cxp is None:
            cx = self.probe(judge, [], claimer)
            if cx is not None:
                return (f"{claimer} finds no CXp (nothing can change the prediction), but "
                        f"{judge} changes it with every feature free", cx, cx.refutes)
            return (f"both engines find that nothing changes the prediction, yet {judge} "
                    "denies it (it contradicts itself)", None, judge)
        shown = _set(cxp)
        off = [n for n in cxp if n not in self.universe]
        if off:
            return (f"{shown} has feature(s) {off} off the instance's path: not a "
                    "path-restricted CXp", None, claimer)
        keep = [n for n in self.universe if n not in cxp]
        if self.weak(judge, keep):
            cx = self.probe(claimer, keep, judge)
            if cx is None:
                return (f"freeing {shown} cannot change the prediction, by both engines "
                        f"({claimer} contradicts itself)", None, claimer)
            return f"{judge} says freeing {shown} cannot change the prediction", cx, cx.refutes
        for f in cxp:
            smaller = [n for n in cxp if n != f]
            held = [n for n in self.universe if n not in smaller]
            if not self.weak(judge, held):
                cx = self.probe(judge, held, claimer)
                detail = (f"{judge} says {shown} is not minimal: freeing it without {f} "
                          "already changes the prediction")
                if cx is None:
                    return f"{detail}, yet finds no point doing so", None, judge
                return detail, cx, cx.refutes
        return (f"{judge} denies that {shown} is a CXp, but its own entailment answers say it "
                "is one (it contradicts itself)", None, judge)


def _names(explanation) -> list[str] | None:
    return None if explanation is None else list(explanation.features)


def _sets(explanations) -> set[frozenset[str]]:
    return {frozenset(e.features) for e in explanations}


def _listed(sets: Iterable[frozenset[str]], names: Sequence[str]) -> list[list[str]]:
    order = {n: i for i, n in enumerate(names)}
    rows = [sorted(s, key=order.__getitem__) for s in sets]
    return sorted(rows, key=lambda r: (len(r), [order[n] for n in r]))


def _check_row(row: _Row, report: CrosscheckReport, do_enumerate: bool,
               time_limit: float | None) -> None:
    pr, x = row.pr, row.x
    answers: dict[str, dict] = {}
    for e, ex in row.engines.items():
        start = time.perf_counter()
        a: dict = {"axp": ex.axp(x, path_restricted=pr), "cxp": ex.cxp(x, path_restricted=pr),
                   "redundant": ex.path_is_redundant(x)}
        if do_enumerate:
            a["all_axps"] = ex.all_axps(x, path_restricted=pr, time_limit=time_limit)
            a["all_cxps"] = ex.all_cxps(x, path_restricted=pr, time_limit=time_limit)
        report.times[e].append(time.perf_counter() - start)
        answers[e] = a

    found: list[Disagreement] = []

    def agree(check: str) -> None:
        report.checked[check] += 1
        report.agreements[check] += 1

    def disagree(check: str, path: object, sat: object, detail: str,
                 cx: Counterexample | None, refutes: str | None) -> None:
        report.checked[check] += 1
        found.append(Disagreement(row.label, check, path, sat, detail, cx, refutes))

    for e in ENGINES:
        judge = row.engines[_other(e)]
        axp = answers[e]["axp"]
        if judge.is_axp(x, axp.features, path_restricted=pr):
            agree(f"{e}_axp")
        else:
            answer = {e: _names(axp), _other(e): False}
            disagree(f"{e}_axp", answer["path"], answer["sat"],
                     *row.refute_axp(e, list(axp.features)))
        cxp = answers[e]["cxp"]
        if cxp is None:
            confirmed = judge.is_weak_axp(x, [], path_restricted=pr)
        else:
            confirmed = judge.is_cxp(x, cxp.features, path_restricted=pr)
        if confirmed:
            agree(f"{e}_cxp")
        else:
            answer = {e: _names(cxp), _other(e): False}
            disagree(f"{e}_cxp", answer["path"], answer["sat"],
                     *row.refute_cxp(e, None if cxp is None else list(cxp.features)))

    if do_enumerate:
        for key, kind in (("all_axps", "AXp"), ("all_cxps", "CXp")):
            lists = {e: answers[e][key] for e in ENGINES}
            if not all(lst.complete for lst in lists.values()):
                # stopped by the time limit: the sets cannot be compared, but each
                # explanation found must still be one for the other engine
                report.partial[key] += 1
                for e in ENGINES:
                    judge = row.engines[_other(e)]
                    confirm = judge.is_axp if kind == "AXp" else judge.is_cxp
                    for expl in lists[e]:
                        if not confirm(x, list(expl.features), path_restricted=pr):
                            s = list(expl.features)
                            detail, cx, refutes = (row.refute_axp(e, s) if kind == "AXp"
                                                   else row.refute_cxp(e, s))
                            disagree(key, _listed(_sets(lists["path"]), row.names),
                                     _listed(_sets(lists["sat"]), row.names),
                                     f"{e}'s partial enumeration lists {_set(s)}; {detail}",
                                     cx, refutes)
                            break
                continue
            sets = {e: _sets(lists[e]) for e in ENGINES}
            if sets["path"] == sets["sat"]:
                agree(key)
                continue
            only = {e: sorted(sets[e] - sets[_other(e)], key=lambda s: (len(s), sorted(s)))
                    for e in ENGINES}
            differences = "; ".join(
                f"{kind}s found by {e} only: {', '.join(_set(row.ordered(t)) for t in only[e])}"
                for e in ENGINES if only[e])
            for e in ENGINES:
                extra = only[e]
                if not extra:
                    continue
                s = list(row.ordered(extra[0]))
                judge = _other(e)
                confirm = (row.engines[judge].is_axp if kind == "AXp"
                           else row.engines[judge].is_cxp)
                article = "an" if kind == "AXp" else "a"
                if confirm(x, s, path_restricted=pr):
                    detail = (f"{judge}'s enumeration misses {_set(s)}, which {judge} itself "
                              f"confirms is {article} {kind}")
                    cx, refutes = None, judge
                else:
                    detail, cx, refutes = (row.refute_axp(e, s) if kind == "AXp"
                                           else row.refute_cxp(e, s))
                disagree(key, _listed(sets["path"], row.names), _listed(sets["sat"], row.names),
                         f"{differences}; {detail}", cx, refutes)
                break

    red = {e: answers[e]["redundant"] for e in ENGINES}
    if red["path"] == red["sat"]:
        agree("path_redundant")
    else:
        claimer = "path" if red["path"] else "sat"  # claims: some path feature can be dropped
        path_names = row.path_names
        own = {e: False for e in ENGINES}  # redundancy by each engine's entailment answers
        cx, refutes, detail = None, None, ""
        for f in path_names:
            rest = [n for n in path_names if n != f]
            answers_f = {e: row.weak(e, rest, pr=True) for e in ENGINES}
            for e in ENGINES:
                own[e] |= answers_f[e]
            if answers_f["path"] != answers_f["sat"] and cx is None:
                doubter = "path" if not answers_f["path"] else "sat"
                cx = row.probe(doubter, rest, _other(doubter), pr=True)
                refutes = None if cx is None else cx.refutes
                detail = (f"without {f}, the path's other literals entail the prediction "
                          f"for {_other(doubter)}, not for {doubter}")
        if cx is None:
            liar = next((e for e in ENGINES if own[e] != red[e]), None)
            refutes = liar
            detail = (f"{claimer} says the path is redundant, {_other(claimer)} that it is not"
                      + (f"; {liar}'s own entailment answers say the opposite (it contradicts "
                         "itself)" if liar else ""))
        disagree("path_redundant", red["path"], red["sat"], detail, cx, refutes)

    if found:
        report.disagreements.extend(found)
        report.predictions[row.label] = to_python(row.prediction)


# ---------------------------------------------------------------------- the entry point
def _rows(model: DecisionTree, X) -> tuple[list[object], list[dict]]:
    """``(labels, instances)`` of the rows of ``X``, feature columns only."""
    names = list(model.features.names)
    if isinstance(X, pd.DataFrame):
        labels = list(X.index)
        frame = as_frame(model.features, X)
    else:
        if isinstance(X, Mapping) or isinstance(X, pd.Series):
            X = [X]
        rows = list(X)
        labels = list(range(len(rows)))  # as_frame ignores keys that are not features
        frame = as_frame(model.features, rows) if rows else pd.DataFrame(columns=names)
    records = [{k: to_python(v) for k, v in r.items()} for r in frame.to_dict("records")]
    return labels, records


def crosscheck(model: DecisionTree, X, *, path_restricted: bool = False,
               enumerate: bool = True, solver: str = DEFAULT_SOLVER,
               progress: bool = False, time_limit: float | None = None) -> CrosscheckReport:
    """Run the path engine and the SAT engine on every row of ``X`` and compare them.

    For each row: the AXp and the CXp of each engine must be an AXp / a CXp for the other
    engine (:meth:`Explainer.is_axp`, :meth:`Explainer.is_cxp`; "no CXp" must be confirmed
    too); the sets of all AXps and of all CXps must be equal (with ``enumerate``); both
    engines must agree on :meth:`Explainer.path_is_redundant`. Definitions: Izza, Ignatiev
    & Marques-Silva, "On Explaining Decision Trees", Sections 2 and 5.

    Parameters
    ----------
    model : DecisionTree
    X : pandas.DataFrame, list of dicts, or 2-d sequence in feature order
        The rows; columns that are not features (e.g. the target) are ignored.
    path_restricted : bool
        Compare path-restricted explanations (the literals of each row's path).
    enumerate : bool
        Also compare all AXps and all CXps (enumeration; the costly part).
    solver : str
        The SAT engine's PySAT solver.
    progress : bool
        Draw a progress bar (tqdm) on standard error.
    time_limit : float, optional
        Seconds allowed to each enumeration; a row whose enumeration is stopped is not
        counted in that check (see :attr:`CrosscheckReport.checked`). For a tree
        ensemble, a DNF or a decision list, each engine's one AXp and one CXp of a row get
        it too: an answer it cuts off (:class:`~xdt.errors.ComputationLimitError`) leaves
        the checks that need it out for that row, so every row is bounded.

    Returns
    -------
    CrosscheckReport
        ``report.ok`` is True when the engines agree everywhere; each disagreement names
        the row and the check, gives both answers and, where one exists, a counterexample
        point checked with ``model.predict``.

    A :class:`~xdt.ir.TreeEnsemble` has no path engine: its SAT engine is
    compared with an independent checker instead (:func:`crosscheck_ensemble`, which
    returns an :class:`EnsembleCrosscheckReport`); so are a DNF, a nested k-DNF and a
    decision list (:func:`crosscheck_rules`).

    Raises
    ------
    CrosscheckInterrupted
        On ``KeyboardInterrupt`` (Ctrl-C); its ``report`` covers the rows checked in full.
    EngineNotAvailableError
        With ``path_restricted`` on a model that is not a decision tree (it has no
        single path).
    UnsupportedModelError
        When ``model`` is not a model at all.
    DataError
        For a row the model cannot read (the message names the row).
    MissingFeatureError
        When a feature column is missing from ``X``.
    """
    if (offers(model, TERMS) or offers(model, RULES)):
        return crosscheck_rules(model, X, enumerate=enumerate, solver=solver,
                                progress=progress, time_limit=time_limit,
                                path_restricted=path_restricted)
    if is_constrained(model):
        raise _constrained(model)
    if offers(model, TREES):
        return crosscheck_ensemble(model, X, enumerate=enumerate, solver=solver,
                                   progress=progress, time_limit=time_limit,
                                   path_restricted=path_restricted)
    if not offers(model, PATHS):
        raise UnsupportedModelError(
            f"crosscheck compares the engines on decision trees, not on "
            f"{type(model).__name__}")
    do_enumerate = enumerate
    labels, records = _rows(model, X)
    if not records:
        raise DataError("there are no rows to crosscheck")
    report = CrosscheckReport(path_restricted=bool(path_restricted), enumerate=do_enumerate,
                              solver=solver, model=_describe(model), requested=len(records))
    from tqdm import tqdm

    with Explainer(model, "path") as by_path, Explainer(model, "sat", solver=solver) as by_sat:
        engines = {"path": by_path, "sat": by_sat}
        bar = tqdm(total=len(records), desc="crosschecking", unit="row", file=sys.stderr,
                   disable=not progress, leave=False, dynamic_ncols=True)
        try:
            for label, x in zip(labels, records, strict=True):
                try:
                    row = _Row(model, engines, x, label, bool(path_restricted))
                except XdtError as e:
                    raise DataError(f"row {label}: {e}") from None
                before = _snapshot(report)
                try:
                    _check_row(row, report, do_enumerate, time_limit)
                except KeyboardInterrupt:
                    _restore(report, before)  # keep only the rows checked in full
                    report.interrupted = True
                    raise CrosscheckInterrupted(report) from None
                report.rows += 1
                bar.update(1)
                if report.disagreements:
                    bar.set_postfix(disagreements=len(report.disagreements))
        except KeyboardInterrupt as e:
            if isinstance(e, CrosscheckInterrupted):
                raise
            report.interrupted = True
            raise CrosscheckInterrupted(report) from None
        finally:
            bar.close()
    return report


def _snapshot(report: CrosscheckReport) -> tuple:
    """What :func:`_check_row` changes in ``report``, to undo an interrupted row."""
    return (dict(report.agreements), dict(report.checked), dict(report.partial),
            {e: len(t) for e, t in report.times.items()}, len(report.disagreements),
            dict(report.predictions))


def _restore(report: CrosscheckReport, snapshot: tuple) -> None:
    agreements, checked, partial, n_times, n_disagreements, predictions = snapshot
    report.agreements, report.checked, report.partial = agreements, checked, partial
    for e, n in n_times.items():
        del report.times[e][n:]
    del report.disagreements[n_disagreements:]
    report.predictions = predictions


def _constrained(model) -> EngineNotAvailableError:
    """The error of a crosscheck of a model with background constraints: only the SAT engine
    takes them into account, so there is no second engine to compare it with."""
    return EngineNotAvailableError(
        f"crosscheck compares two engines, and this {kind_name(model)} carries background "
        f"constraints ({len(model.constraints)}), which only the SAT engine takes into "
        "account; check its explanations instead with verify=True (certificates re-checked "
        "with model.predict and the constraints) or, on a small model, against "
        "xdt.explain.checks.brute_force (which enumerates the points the constraints allow)")


def _describe(model: DecisionTree) -> str:
    target = f", target {model.target!r}" if model.target else ""
    return (f"decision tree, {len(model.features)} features, {model.n_nodes} nodes, depth "
            f"{model.depth}, {len(model.classes)} classes{target}")


# ---------------------------------------------------------------------- tree ensembles
ENSEMBLE_CHECKS: dict[str, str] = {
    "axp": "the AXp is an AXp (brute force) / no sampled point refutes it",
    "cxp": "the CXp is a CXp (brute force) / its counterexample flips the prediction",
    "all_axps": "all AXps: the brute force's sets",
    "all_cxps": "all CXps: the brute force's sets",
    "engines": "the box engine's AXp and CXp are the SAT engine's (same deletion order)",
}
"""The checks :func:`crosscheck_ensemble` makes on every row."""

RULE_CHECKS: dict[str, str] = {
    "axp": "the AXp is an AXp for the checks' own CNF",
    "cxp": "the CXp is a CXp for the checks' own CNF",
    "all_axps": "all AXps: the brute force's sets",
    "all_cxps": "all CXps: the brute force's sets",
}
"""The checks :func:`crosscheck_rules` makes on every row."""


@dataclass
class EnsembleDisagreement:
    """A row on which the SAT engine and the independent checker disagree.

    ``point`` (when given) is a concrete point, with the class the model's own ``predict``
    (and the library's, when the ensemble carries it) gives it, that settles the question.
    """

    row: object
    check: str
    detail: str
    point: dict | None = None
    predicted: object = None

    def to_dict(self) -> dict:
        return {"row": to_python(self.row), "check": self.check, "detail": self.detail,
                "point": self.point, "predicted": to_python(self.predicted)}


@dataclass
class EnsembleCrosscheckReport:
    """What :func:`crosscheck_ensemble` found.

    Attributes
    ----------
    checker : {"brute force", "sampling"}
        The independent checker: every point of the cell space predicted by the IR's
        ``predict_cells`` (exact), or, for a cell space too large, points sampled around
        each explanation and predicted by ``model.predict`` and the library's own
        ``predict`` when the ensemble carries it (evidence, not proof).
    rows, requested : int
    checked, agreements : dict of str to int
        Per check (a key of :data:`ENSEMBLE_CHECKS`), the rows checked and agreed on.
    disagreements : list of EnsembleDisagreement
    times : list of float
        Seconds of the SAT engine per row.
    descriptions : dict of str to str
        What each check says (:data:`ENSEMBLE_CHECKS`, or :data:`RULE_CHECKS` for
        :func:`crosscheck_rules`).
    """

    checker: str
    model: str
    solver: str
    requested: int
    enumerate: bool = True
    rows: int = 0
    checked: dict = field(default_factory=lambda: {k: 0 for k in ENSEMBLE_CHECKS})
    agreements: dict = field(default_factory=lambda: {k: 0 for k in ENSEMBLE_CHECKS})
    disagreements: list = field(default_factory=list)
    times: list = field(default_factory=list)
    interrupted: bool = False
    descriptions: dict = field(default_factory=lambda: dict(ENSEMBLE_CHECKS))

    @property
    def ok(self) -> bool:
        return not self.disagreements

    def to_dict(self) -> dict:
        return {"model": self.model, "checker": self.checker, "solver": self.solver,
                "rows": self.rows, "requested": self.requested, "ok": self.ok,
                "checked": dict(self.checked), "agreements": dict(self.agreements),
                "median_ms": (float(np.median(self.times)) * 1e3 if self.times
                              else float("nan")),
                "disagreements": [d.to_dict() for d in self.disagreements]}

    def summary(self) -> str:
        lines = [f"crosscheck: SAT engine ({self.solver}) vs {self.checker}, {self.rows} "
                 f"row(s) of {self.model}"]
        for k, text in self.descriptions.items():
            if self.checked[k]:
                lines.append(f"  {text}: {self.agreements[k]}/{self.checked[k]}")
        if self.times:
            lines.append(f"  SAT engine: median {_ms(float(np.median(self.times)))} per row")
        for d in self.disagreements:
            where = f" (point {d.point}, predicted {to_python(d.predicted)!r})" if d.point else ""
            lines.append(f"  row {d.row}, {d.check}: {d.detail}{where}")
        lines.append("OK: no disagreement" if self.ok
                     else f"{len(self.disagreements)} disagreement(s)")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()


def crosscheck_ensemble(model: TreeEnsemble, X, *, enumerate: bool = True,
                        solver: str = DEFAULT_SOLVER, progress: bool = False,
                        time_limit: float | None = None, path_restricted: bool = False,
                        samples: int = 500, max_points: int | None = None
                        ) -> EnsembleCrosscheckReport:
    """Compare the SAT engine's explanations of a tree ensemble with an independent checker,
    row by row.

    When the cell space has at most ``max_points`` points (default
    :data:`xdt.explain.checks._verify.MAX_POINTS`) and at most
    :data:`~xdt.explain.checks._verify.MAX_CANDIDATES` features, the checker is the brute force
    (:func:`xdt.explain.checks.brute_force`: every point predicted by ``predict_cells``,
    every subset of features tested from the definitions): the AXp and CXp must be among
    its AXps and CXps and, with ``enumerate``, all AXps and all CXps must equal its sets.
    Otherwise the checker samples: ``samples`` points agreeing with the instance on the
    AXp (:func:`xdt.explain.checks._verify.reference_counterexample`, through the library's own
    ``predict`` when ``model.reference`` is set) must all keep the prediction, and the
    CXp's counterexample must be predicted another class by ``model.predict`` and the
    library. The SAT engine shares nothing with either checker but the model's cells. On
    every row the box engine (:mod:`xdt.explain.engines._ensemble_box`, exact branch and bound) must
    also find the SAT engine's AXp and CXp: both are exact and delete features in the same
    order, so any difference is a fault of one of them.

    Parameters are those of :func:`crosscheck`; ``samples`` points per AXp when sampling.

    Raises
    ------
    EngineNotAvailableError
        For ``path_restricted`` (an ensemble has no single path).
    DataError
        When there are no rows, or a row the model cannot read.
    """
    from xdt.explain.checks import _verify as verify

    if is_constrained(model):
        raise _constrained(model)
    limit, exhaustive, labels, records = _checker_rows(model, X, path_restricted, max_points)
    from xdt.explain._models import describe

    report = EnsembleCrosscheckReport("brute force" if exhaustive else "sampling",
                                      describe(model), solver, len(records),
                                      enumerate=bool(enumerate))
    ref = model.reference

    def predicted(point: dict) -> tuple[object, bool]:
        ours = to_python(model.predict([point])[0])
        if ref is None:
            return ours, True
        theirs = to_python(ref(verify.reference_rows(
            model, [[point[n] for n in model.features.names]]))[0])
        return ours, ours == theirs

    from tqdm import tqdm

    bar = tqdm(total=len(records), desc="crosschecking", unit="row", file=sys.stderr,
               disable=not progress, leave=False, dynamic_ncols=True)
    box = Explainer(model, "box", certificates=False)
    with Explainer(model, "sat", solver=solver, certificates=False) as ex:
        for label, x in zip(labels, records, strict=True):
            bar.update(1)
            prediction, axp, cxp, lists = _sat_answers(ex, label, x, enumerate and exhaustive,
                                                       time_limit, report.times)

            def tally(check: str, ok: bool, detail: str = "", point: dict | None = None,
                      cls: object = None, row=label) -> None:
                report.checked[check] += 1
                if ok:
                    report.agreements[check] += 1
                else:
                    report.disagreements.append(
                        EnsembleDisagreement(row, check, detail, point, cls))

            # both engines are exact and delete in the same order: the same sets
            b_axp = _within(partial(box.axp, x), time_limit)
            b_cxp = _within(partial(box.cxp, x), time_limit)
            if CUT not in (axp, cxp, b_axp, b_cxp):
                tally("engines", b_axp.features == axp.features
                      and (b_cxp is None) == (cxp is None)
                      and (cxp is None or b_cxp.features == cxp.features),
                      f"box engine: AXp {_set(b_axp.features)}, CXp "
                      f"{_set(b_cxp.features) if b_cxp else 'none'}; SAT engine: AXp "
                      f"{_set(axp.features)}, CXp {_set(cxp.features) if cxp else 'none'}")
            if exhaustive:
                bf = verify.brute_force(model, x, max_points=limit)
                if axp is not CUT:
                    tally("axp", frozenset(axp.features) in bf.axps,
                          f"{_set(axp.features)} is not an AXp by brute force")
                if cxp is not CUT:
                    tally("cxp", (cxp is None and not bf.cxps)
                          or (cxp is not None and frozenset(cxp.features) in bf.cxps),
                          f"{_set(cxp.features) if cxp else 'no CXp'}: not so by brute force")
                for key, truth in (("all_axps", bf.axps), ("all_cxps", bf.cxps)):
                    if key in lists and lists[key].complete:
                        got = _sets(lists[key])
                        tally(key, got == set(truth),
                              f"SAT lists {_listed(got, model.features.names)}, brute force "
                              f"{_listed(truth, model.features.names)}")
            else:
                if axp is not CUT:
                    point = verify.reference_counterexample(model, x, axp.features, samples)
                    cls = None if point is None else predicted(point)[0]
                    tally("axp", point is None, f"a point agreeing on {_set(axp.features)} "
                          "has another class", point, cls)
                if cxp is not None and cxp is not CUT:
                    cx = cxp.counterexample
                    cls, same = predicted(cx)
                    moved = [n for n in model.features.names
                             if n not in cxp.features and cx[n] != x[n]]
                    tally("cxp", same and cls != to_python(prediction) and not moved,
                          f"the counterexample of {_set(cxp.features)} does not flip the "
                          "prediction (or the library disagrees, or it moves "
                          f"{moved})", cx, cls)
            report.rows += 1
    bar.close()
    return report


def _checker_rows(model, X, path_restricted: bool, max_points: int | None
                  ) -> tuple[int, bool, list, list]:
    """What a crosscheck against an independent checker (:func:`crosscheck_ensemble`,
    :func:`crosscheck_rules`) starts from: the point limit of the brute force, whether the
    cell space is within it (and the features few enough), the rows' labels and records.
    Refuses ``path_restricted`` (the model has no single path) and an empty table."""
    from xdt.explain._models import tree_only
    from xdt.explain.checks import _verify as verify

    if path_restricted:
        raise tree_only("path-restricted crosscheck", "crosscheck it without "
                        "path_restricted", model)
    limit = verify.MAX_POINTS if max_points is None else max_points
    size = int(np.prod([c.n_cells for c in model.cells], dtype=object))
    exhaustive = size <= limit and len(model.features) <= verify.MAX_CANDIDATES
    labels, records = _rows(model, X)
    if not records:
        raise DataError("there are no rows to crosscheck")
    return limit, exhaustive, labels, records


CUT = object()
"""Stands for an answer that the row's ``time_limit`` cut off (its checks are not made)."""


def _within(call, time_limit: float | None):
    """``call(time_limit=time_limit)``, or :data:`CUT` when the limit passes first."""
    try:
        return call(time_limit=time_limit)
    except ComputationLimitError as e:
        if e.limit != "time_limit":
            raise
        return CUT


def _sat_answers(ex: Explainer, label, x, lists: bool, time_limit: float | None,
                 times: list) -> tuple:
    """The SAT engine's answers on one row, for a crosscheck against a checker:
    ``(prediction, AXp, CXp, {"all_axps": ..., "all_cxps": ...} or {})``, the seconds they
    took appended to ``times``; a row the model cannot read is a DataError naming it. The
    AXp and the CXp are each given ``time_limit``: one it cuts off is :data:`CUT`."""
    try:
        prediction = ex.predict(x)
    except XdtError as e:
        raise DataError(f"row {label}: {e}") from None
    start = time.perf_counter()
    axp = _within(partial(ex.axp, x), time_limit)
    cxp = _within(partial(ex.cxp, x), time_limit)
    listed = ({"all_axps": ex.all_axps(x, time_limit=time_limit),
               "all_cxps": ex.all_cxps(x, time_limit=time_limit)} if lists else {})
    times.append(time.perf_counter() - start)
    return prediction, axp, cxp, listed


def crosscheck_rules(model: DNF | DecisionList, X, *, enumerate: bool = True,
                     solver: str = DEFAULT_SOLVER, progress: bool = False,
                     time_limit: float | None = None, path_restricted: bool = False,
                     max_points: int | None = None) -> EnsembleCrosscheckReport:
    """Compare the SAT engine's explanations of a DNF, nested k-DNF or decision list with
    an independent checker, row by row.

    These models have no path engine; the second opinion is the checks' own CNF
    (:class:`~xdt.explain.checks._verify.DnfCnf`,
    :class:`~xdt.explain.checks._verify.DecisionListCnf`: one-hot cells for every feature, a
    variable equivalent to each term, another SAT solver), which shares nothing with the SAT
    engine's encoding but the model's cells. On every row the SAT engine's AXp must be an AXp there
    (:func:`~xdt.explain.checks._verify.check_axp_sat`: it entails the prediction and no feature
    can be dropped) and its CXp a CXp (:func:`~xdt.explain.checks._verify.is_cxp_sat`). When the
    cell space has at most ``max_points`` points (default
    :data:`xdt.explain.checks._verify.MAX_POINTS`) and at most
    :data:`~xdt.explain.checks._verify.MAX_CANDIDATES` features, with ``enumerate`` all AXps and
    all CXps must also equal those of the brute force
    (:func:`xdt.explain.checks.brute_force`, every point predicted by ``predict_cells``).
    Background constraints are taken into account by all three.

    Parameters are those of :func:`crosscheck`; the report is an
    :class:`EnsembleCrosscheckReport` (its ``checker`` names the checker).

    Raises
    ------
    EngineNotAvailableError
        For ``path_restricted`` (these models have no paths).
    DataError
        When there are no rows, or a row the model cannot read.
    """
    from xdt.explain._models import describe
    from xdt.explain.checks import _verify as verify

    limit, exhaustive, labels, records = _checker_rows(model, X, path_restricted, max_points)
    checker = "the checks' own CNF" + (" and brute force" if exhaustive and enumerate else "")
    report = EnsembleCrosscheckReport(checker, describe(model), solver, len(records),
                                      enumerate=bool(enumerate),
                                      descriptions=dict(RULE_CHECKS))
    from tqdm import tqdm

    bar = tqdm(total=len(records), desc="crosschecking", unit="row", file=sys.stderr,
               disable=not progress, leave=False, dynamic_ncols=True)
    with Explainer(model, "sat", solver=solver, certificates=False) as ex:
        for label, x in zip(labels, records, strict=True):
            bar.update(1)
            prediction, axp, cxp, lists = _sat_answers(ex, label, x, enumerate and exhaustive,
                                                       time_limit, report.times)

            def tally(check: str, ok: bool, detail: str, point: dict | None = None,
                      row=label) -> None:
                report.checked[check] += 1
                if ok:
                    report.agreements[check] += 1
                else:
                    cls = None if point is None else to_python(model.predict([point])[0])
                    report.disagreements.append(
                        EnsembleDisagreement(row, check, detail, point, cls))

            if axp is not CUT:
                check = verify.check_axp_sat(model, x, axp.features)
                tally("axp", check.is_axp,
                      f"{_set(axp.features)} is not an AXp for the checks' own CNF "
                      f"({'not minimal' if check.entails else 'it does not entail'})",
                      check.counterexample)
            if cxp is CUT:
                pass
            elif cxp is None:  # no CXp: every feature fixed or free, the prediction stays
                tally("cxp", verify.sat_reachable_classes(model, {}) == {prediction},
                      "no CXp, but the checks' own CNF finds a point of another class")
            else:
                tally("cxp", verify.is_cxp_sat(model, x, cxp.features),
                      f"{_set(cxp.features)} is not a CXp for the checks' own CNF")
            if lists:
                bf = verify.brute_force(model, x, max_points=limit)
                for key, truth in (("all_axps", bf.axps), ("all_cxps", bf.cxps)):
                    if lists[key].complete:
                        got = _sets(lists[key])
                        tally(key, got == set(truth),
                              f"SAT lists {_listed(got, model.features.names)}, brute force "
                              f"{_listed(truth, model.features.names)}")
            report.rows += 1
    bar.close()
    return report
