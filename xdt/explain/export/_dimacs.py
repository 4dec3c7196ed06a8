"""DIMACS CNF of one explanation query, for any SAT solver.

:func:`dimacs_text` and :func:`write_dimacs` write the formula that the SAT engine
(:class:`~xdt.explain.engines.SatOracle`) holds for one (model, instance) pair: the model's
cell space (one-hot and order clauses), "the model predicts another class than the instance's"
and one selector variable per feature, ``s_F -> (x_F in A_F)``, where ``A_F`` is the
instance's cell (or, path-restricted, the literal of the instance's path on ``F``). It is
exactly :attr:`SatOracle.clauses <xdt.explain.engines.SatOracle.clauses>`, with the same
variable numbering, written without starting a solver. (The engine itself keeps the model's clauses
in one solver per class, shared by every instance, and poses the selectors' effect as
assumptions on the cell variables; assuming selectors here asks the same.)

The model is a decision tree, a DNF (nested k-DNFs included) or a decision list; see
:mod:`xdt.explain.engines._sat` for how each is encoded — for a DNF whose instance is predicted
``classes[0]``, "another class" is "some term holds", with one ``c var N term p of class
... holds`` auxiliary variable per term; for a decision list, one ``c var N rule i of the
decision list holds`` variable per rule.

How to use the file (Izza, Ignatiev & Marques-Silva, "On Explaining Decision Trees",
Section 4: a set of feature literals entails the prediction when no point satisfying them
reaches a leaf of another class):

* with every selector assumed true the formula is UNSAT: the instance's values entail its
  prediction;
* a set ``S`` of features is a **weak AXp** exactly when the formula plus the unit clauses
  ``s_F`` (``F`` in ``S``) is UNSAT; when it is SAT, the model is a counterexample: a point
  agreeing with the instance on ``S`` that the model classifies differently;
* ``S`` is an **AXp** when it is a weak AXp and no ``S`` minus one feature is one; ``T`` is
  a **CXp** when assuming the selectors of the features outside ``T`` gives SAT and adding
  back any one feature of ``T`` gives UNSAT.

The header's comment lines say what every variable means. Lines meant for programs carry
JSON: ``c instance {...}``, ``c prediction ...``, ``c selectors {"feature": var, ...}``,
``c features [...]``, and each ``c var N <meaning><TAB>{...}`` line (after the tab; JSON
never contains a raw tab). :func:`parse_dimacs` reads a file back, and
:meth:`CnfQuery.decode` turns a solver's model into a point (feature name -> value) from
those comments alone.

Examples
--------
>>> import xdt
>>> from xdt.explain.export._dimacs import dimacs_text, parse_dimacs
>>> from xdt.ir import DecisionTree, Feature, Leaf, ThresholdSplit
>>> tree = DecisionTree([Feature("x", "ordinal"), Feature("y", "ordinal")],
...     ["circle", "cross"], ThresholdSplit("y", 0.73, ThresholdSplit("x", 0.64,
...     Leaf("circle"), Leaf("cross")), Leaf("cross")))
>>> q = parse_dimacs(dimacs_text(tree, {"x": 0.9, "y": 0.2}))
>>> q.selectors, q.prediction
({'x': 3, 'y': 4}, 'cross')
>>> q.variables[1]["text"], q.variables[3]["text"]
('x > 0.64', 'selector of x: fixes 0.64 < x')
>>> q.clauses   # not cross (2 paths), then the selectors
[[2, -1], [-2], [-3, 1], [-4, -2]]
>>> q.decode([-1, -2, 4])   # x <= 0.64 and y <= 0.73: a circle
{'x': 0.64, 'y': 0.2}

Reference: Izza, Ignatiev & Marques-Silva, "On Explaining Decision Trees" (2020), Sections
2 and 4; Ignatiev, Narodytska & Marques-Silva, "Abduction-Based Explanations for Machine
Learning Models", AAAI 2019 (AXps by SAT oracle calls).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from xdt._atomic import write_text
from xdt.errors import DataError, NoSelectorError, ParameterError, UnsupportedModelError
from xdt.explain._models import (
    Model,
    check_instance,
    describe,
    predict_one,
    tree_only,
)
from xdt.explain.engines._ensemble_sat import EnsembleEncoding
from xdt.explain.engines._instance_oracle import held_cells
from xdt.explain.engines._registry import encoding_class
from xdt.explain.engines._sat import ModelEncoding
from xdt.ir._cells import IntervalCells, full_mask
from xdt.ir._instances import encode_instance
from xdt.ir._protocol import PATHS, TREES, offers
from xdt.ir._values import to_python

FORMAT = "xdt-dimacs/1"
"""Name and version of the comment conventions, written in the first line."""



ENSEMBLE_VARS = ("leaf", "order", "beats", "count", "more")
"""Kinds of variables of a tree ensemble's query (see
:class:`~xdt.explain.engines.EnsembleEncoding`): a tree reaches a leaf, a tree's value
on a score is at least a level, a class is predicted before the instance's, at least ``j`` of
the first ``i`` trees vote a class, a class has more votes than the instance's (by ``j``)."""


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _one_line(text: str) -> str:
    """Text safe for one comment line, before the tab that starts its JSON."""
    return " ".join(str(text).split())


@dataclass
class CnfQuery:
    """The CNF of one (model, instance) explanation query and what its variables mean.

    Attributes
    ----------
    clauses : list of list of int
        The clauses, as DIMACS literals (the same list as
        :attr:`SatOracle.clauses <xdt.explain.engines.SatOracle.clauses>`).
    n_vars : int
        Number of variables (the largest variable number).
    selectors : dict[str, int]
        Selector variable of each *candidate* feature, by name: every feature, or for
        path-restricted explanations the features tested on the instance's path (the
        selectors of the others hold no clause).
    variables : dict[int, dict]
        Per variable, its meaning as a JSON-ready dict with ``"type"`` one of ``"cell"``
        (``{"feature", "cell", "value"}``: a one-hot feature takes this value), ``"gt"``
        (``{"feature", "index", "threshold"}``: an ordinal feature is above the threshold),
        ``"selector"`` (``{"feature", "holds", "candidate"}``), ``"term"`` (``{"class",
        "term", "rule"}``: term number ``term`` of the model, which implies ``class``, holds;
        for a DNF predicting its first class), ``"rule"`` (``{"class", "rule",
        "conditions"}``: rule number ``rule`` of a decision list holds; it predicts ``class``
        when no earlier rule holds) or ``"aux"`` (``{"feature"}``: an auxiliary
        variable of the exactly-one constraint on a feature), plus ``"text"``, the readable
        meaning.
    features : list of dict
        ``{"name", "kind"}`` per feature, in model order.
    instance : dict
        The instance, feature name -> value.
    prediction : object
        The model's class for the instance.
    path_restricted : bool
    model_summary : str
        One readable line describing the model (and where it came from).
    """

    clauses: list[list[int]]
    n_vars: int
    selectors: dict[str, int]
    variables: dict[int, dict]
    features: list[dict]
    instance: dict
    prediction: object
    path_restricted: bool = False
    model_summary: str = ""
    comments: list[str] = field(default_factory=list, repr=False)

    # ------------------------------------------------------------------ use
    def assumptions(self, features: Iterable[str]) -> list[int]:
        """The selector literals fixing ``features`` (names), to assume or add as units.

        Raises
        ------
        NoSelectorError
            (a ``KeyError``) For a name that is not a candidate feature.
        """
        if isinstance(features, str):
            features = [features]
        out = []
        for name in features:
            if name not in self.selectors:
                raise NoSelectorError(f"{name!r} has no selector here; the candidate features "
                                      f"are: {', '.join(self.selectors)}")
            out.append(self.selectors[name])
        return out

    def decode(self, assignment: Iterable[int]) -> dict:
        """The point (feature name -> value) a satisfying assignment describes.

        Uses only the variable meanings (so it works on a :func:`parse_dimacs` result): a
        one-hot feature takes the value of its true cell variable; an ordinal feature lies
        above the thresholds whose ``gt`` variable is true and at or below the others — it
        keeps the instance's value when that lies in the same interval, else takes a value
        of the interval (a whole number where the interval holds one). A feature without
        variables (an ordinal feature no test reads) keeps the instance's value.

        Parameters
        ----------
        assignment : iterable of int
            Signed literals of a model, e.g. ``solver.get_model()``; variables missing
            from it count as false.

        Raises
        ------
        ParameterError
            When the assignment sets no cell variable, or two, for a one-hot feature.
        """
        true = {v for v in assignment if v > 0}
        chosen: dict[str, list] = {}
        thresholds: dict[str, list[tuple[float, bool]]] = {}
        for v, meaning in self.variables.items():
            kind, name = meaning["type"], meaning.get("feature")
            if kind == "cell" and v in true:
                chosen.setdefault(name, []).append(meaning["value"])
            elif kind == "gt":
                thresholds.setdefault(name, []).append((meaning["threshold"], v in true))
        point = {}
        for feat in self.features:
            name = feat["name"]
            if name in thresholds:
                point[name] = self._ordinal_value(name, sorted(thresholds[name]))
            elif name in chosen:
                if len(chosen[name]) != 1:
                    raise ParameterError(f"the assignment gives feature {name!r} the values "
                                         f"{chosen[name]}; exactly one is expected")
                point[name] = chosen[name][0]
            elif any(m["type"] == "cell" and m["feature"] == name
                     for m in self.variables.values()):
                raise ParameterError(f"the assignment sets no value of feature {name!r}; give "
                                     "a model of the query's clauses")
            else:
                point[name] = self.instance[name]
        return point

    def _ordinal_value(self, name: str, thresholds: list[tuple[float, bool]]) -> object:
        ts = [t for t, _ in thresholds]
        cell = sum(above for _, above in thresholds)  # order clauses: a prefix is true
        cells = IntervalCells(name, ts)
        here = self.instance.get(name)
        if isinstance(here, int | float) and not isinstance(here, bool):
            if cells.cell_of(here) == cell:
                return here
        return cells.value(cell)

    # ------------------------------------------------------------------ output
    def to_text(self) -> str:
        """The DIMACS text: the header comments, ``p cnf``, one clause per line."""
        lines = [f"c {line}" if line else "c" for line in self.comments]
        lines.append(f"p cnf {self.n_vars} {len(self.clauses)}")
        lines.extend(" ".join(map(str, c + [0])) for c in self.clauses)
        return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------- building
def _summary(model: Model, source: str | None) -> str:
    where = f"{source}: " if source else ""
    if not offers(model, PATHS):
        return where + describe(model)
    target = f", target {model.target!r}" if model.target else ""
    return (f"{where}decision tree, {len(model.features)} features, {model.n_nodes} nodes, "
            f"depth {model.depth}, classes {list(map(to_python, model.classes))}{target}")


def _term_rule(model: Model, p: int) -> str:
    """Term ``p`` of a DNF as written (``a = 1 AND 2 < x``)."""
    rules = getattr(model, "rules", None)
    return str(rules()[p]) if rules is not None else f"path {p}"


def _meanings(model: Model, encoding: ModelEncoding, allowed: Sequence[int],
              universe: int) -> dict[int, dict]:
    names = model.features.names
    meanings: dict[int, dict] = {}
    owner: dict[int, int] = {}  # auxiliary variable -> feature of its cardinality clauses
    for clause in encoding.domain:
        feats = {obj[1] for obj in (encoding.pool.obj(abs(lit)) for lit in clause)
                 if isinstance(obj, tuple)}
        if len(feats) == 1:
            (f,) = feats
            for lit in clause:
                if encoding.pool.obj(abs(lit)) is None:
                    owner.setdefault(abs(lit), f)
    for v in range(1, encoding.pool.top + 1):
        obj = encoding.pool.obj(v)
        if isinstance(obj, tuple) and obj[0] == "cell":
            _, f, j = obj
            value = to_python(model.cells[f].value(j))
            meanings[v] = {"type": "cell", "feature": names[f], "cell": j, "value": value,
                           "text": f"{names[f]} = {value}"}
        elif isinstance(obj, tuple) and obj[0] == "gt":
            _, f, j = obj
            t = float(model.cells[f].thresholds[j])
            meanings[v] = {"type": "gt", "feature": names[f], "index": j, "threshold": t,
                           "text": f"{names[f]} > {t!r}"}
        elif isinstance(obj, tuple) and obj[0] == "selector":
            f = obj[1]
            candidate = bool((universe >> f) & 1)
            holds = model.cells[f].describe(allowed[f])
            if not candidate:
                text = (f"selector of {names[f]}: no clause ({names[f]} is not on the "
                        "instance's path)")
            elif allowed[f] == full_mask(model.cells[f].n_cells):
                text = f"selector of {names[f]}: no clause (no test reads {names[f]})"
            else:
                text = f"selector of {names[f]}: fixes {holds}"
            meanings[v] = {"type": "selector", "feature": names[f], "holds": holds,
                           "candidate": candidate, "text": text}
        elif isinstance(obj, tuple) and obj[0] == "term":
            _, c, p = obj
            label = to_python(model.classes[c])
            rule = _term_rule(model, p)
            meanings[v] = {"type": "term", "class": label, "term": p, "rule": rule,
                           "text": f"term {p} holds: {rule} (class {label})"}
        elif isinstance(obj, tuple) and obj[0] == "rule":
            i = obj[1]
            rule = model.rules()[i]
            label = to_python(rule.label)
            body = " AND ".join(str(c) for c in rule.conditions) or "TRUE"
            meanings[v] = {"type": "rule", "class": label, "rule": i, "conditions": body,
                           "text": f"rule {i} holds: {body} (class {label})"}
        elif isinstance(obj, tuple) and obj[0] in ENSEMBLE_VARS:
            meanings[v] = {"type": obj[0], "of": [to_python(o) for o in obj[1:]],
                           "text": encoding.describe_var(v)}
        else:
            f = owner.get(v)
            feat = None if f is None else names[f]
            text = ("auxiliary (exactly-one encoding)" if feat is None
                    else f"auxiliary of the exactly-one constraint on {feat}")
            meanings[v] = {"type": "aux", "feature": feat, "text": text}
    return meanings


def encode_query(model: Model, x, *, path_restricted: bool = False,
                 source: str | None = None) -> CnfQuery:
    """The CNF of the explanation query of ``x`` on ``model``, with its variable meanings.

    Parameters
    ----------
    model : DecisionTree, DNF, NestedKDNF or DecisionList
    x : dict, sequence or pandas Series
        The instance, read as :class:`~xdt.Explainer` reads it.
    path_restricted : bool
        Selectors hold each feature of the instance's path to the path's literal instead of
        the instance's cell (Izza et al., Section 2); the candidates are the path's features.
        Trees only.
    source : str, optional
        Where the model came from (a file name), for the header.

    Returns
    -------
    CnfQuery

    Raises
    ------
    UnsupportedModelError
        For a model the SAT encoder does not know.
    EngineNotAvailableError
        For ``path_restricted`` on a model that is not a tree (it has no paths).
    InstanceError
        (and subclasses) for an instance the model cannot read.
    """
    if not isinstance(model, Model):
        raise UnsupportedModelError(
            "xdt can write the CNF of decision trees, DNFs, nested k-DNFs, decision lists and "
            f"voting tree ensembles, not of {type(model).__name__}")
    if offers(model, TREES) and model.combine != "vote":
        raise UnsupportedModelError(
            f"a {model.combine} tree ensemble decides by float sums, which have no exact CNF "
            "here; write its MaxSAT query instead (xdt.explain.export.wcnf_text / "
            "write_wcnf)")
    if path_restricted and not offers(model, PATHS):
        raise tree_only("a path-restricted query",
                        "write the query without --path-restricted / path_restricted", model)
    values, cells = encode_instance(model.features, model.cells, x)
    check_instance(model, values, cells)  # the constraint clauses would make it vacuous
    if offers(model, PATHS):
        path = model.paths[int(model.leaf_paths(np.asarray([cells]))[0])]
        prediction = path.class_index
    else:
        path, prediction = None, predict_one(model, cells)
    allowed, universe = held_cells(model, cells, path if path_restricted else None)
    encoding = encoding_class(model)(model)
    # SatOracle.clauses, in the same order and numbering; for a vote, the complete form.
    differs = (encoding.votes_differ(prediction) if isinstance(encoding, EnsembleEncoding)
               else encoding.differs(prediction))
    selectors = [encoding.pool.id(("selector", f)) for f in range(len(cells))]
    clauses = [list(c) for c in encoding.domain + differs] + [
        [-s] + clause for f, s in enumerate(selectors)
        for clause in encoding.inside(f, allowed[f])]
    names = model.features.names
    n_vars = max([encoding.pool.top] + [abs(lit) for c in clauses for lit in c])
    query = CnfQuery(
        clauses=clauses, n_vars=n_vars,
        selectors={names[f]: selectors[f] for f in range(len(cells)) if (universe >> f) & 1},
        variables=_meanings(model, encoding, allowed, universe),
        features=[{"name": f.name, "kind": f.kind} for f in model.features],
        instance={n: to_python(v) for n, v in zip(names, values, strict=True)},
        prediction=to_python(model.classes[prediction]),
        path_restricted=bool(path_restricted),
        model_summary=_summary(model, source))
    query.comments = _header(query)
    return query


def _header(q: CnfQuery) -> list[str]:
    from xdt._version import __version__

    pred = _json(q.prediction)
    scope = ("path-restricted (each selector holds its feature to the literal of the "
             "instance's path; candidates: the path's features)" if q.path_restricted
             else "unrestricted (each selector fixes its feature to the instance's value)")
    lines = [
        f"{FORMAT}: one explanation query of a model, written by xdt {__version__}",
        f"model: {_one_line(q.model_summary)}",
        f"explanations: {scope}",
        "",
        f"The formula holds for the points that the model classifies differently from {pred}",
        "and that agree with the instance on every feature whose selector is true.",
        "How to use it:",
        "- assuming all selectors true (unit clauses) gives UNSAT: fixing every feature to",
        "  the instance's value entails the prediction;",
        "- a set S of features is a weak AXp when the formula plus the unit clauses of the",
        "  selectors of S is UNSAT (S alone entails the prediction); SAT means no, and the",
        "  model is a counterexample point (read it with the `c var` lines);",
        "- S is an AXp when it is a weak AXp and no S minus one feature is; T is a CXp when",
        "  the selectors of the features outside T give SAT and adding any one of T gives UNSAT.",
        "Lines for programs: `c instance`, `c prediction`, `c features` and `c selectors` carry",
        "JSON; each `c var N` line gives the meaning of variable N, then a tab and JSON.",
        "",
        f"instance {_json(q.instance)}",
        f"prediction {pred}",
        f"features {_json(q.features)}",
        f"selectors {_json(q.selectors)}",
    ]
    for v, meaning in q.variables.items():
        payload = {k: val for k, val in meaning.items() if k != "text"}
        lines.append(f"var {v} {_one_line(meaning['text'])}\t{_json(payload)}")
    return lines


def dimacs_text(model: Model, x, *, path_restricted: bool = False,
                source: str | None = None) -> str:
    """The DIMACS text of the explanation query of ``x`` (see :func:`encode_query`)."""
    return encode_query(model, x, path_restricted=path_restricted, source=source).to_text()


def write_dimacs(model: Model, x, path: str | os.PathLike, *,
                 path_restricted: bool = False, source: str | None = None) -> CnfQuery:
    """Write the DIMACS CNF of the explanation query of ``x`` on ``model`` to ``path``.

    Parameters
    ----------
    model, x, path_restricted, source
        As for :func:`encode_query`.
    path : str or path-like
        The file to write (UTF-8; through a temporary file renamed into place, so that a
        failure leaves what was there).

    Returns
    -------
    CnfQuery
        What was written (variables, clauses, selectors), for reporting.

    Raises
    ------
    OutputError
        ``path`` cannot be written (or the text cannot be encoded:
        :class:`~xdt.errors.OutputEncodingError`); the file there is untouched.
    """
    query = encode_query(model, x, path_restricted=path_restricted, source=source)
    write_text(path, query.to_text())
    return query


# ---------------------------------------------------------------------- reading back
def parse_dimacs(text: str) -> CnfQuery:
    """Read a DIMACS text written by :func:`dimacs_text` back into a :class:`CnfQuery`.

    Only the file is read: variable meanings, selectors, instance and prediction come from
    the comment lines, so :meth:`CnfQuery.decode` works on the model of any external solver.

    Raises
    ------
    DataError
        When the text lacks the ``p cnf`` line or the xdt comment lines.
    """
    comments: list[str] = []
    clauses: list[list[int]] = []
    n_vars = None
    fields: dict[str, object] = {}
    variables: dict[int, dict] = {}
    summary = ""
    restricted = False
    pending: list[int] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if line.startswith("c"):
            body = raw[2:] if raw.startswith("c ") else ""
            comments.append(body)
            key, _, rest = body.partition(" ")
            if key in ("instance", "prediction", "features", "selectors"):
                fields[key] = json.loads(rest)
            elif key == "var":
                num, _, tail = rest.partition(" ")
                text_part, _, payload = tail.rpartition("\t")
                variables[int(num)] = {**json.loads(payload), "text": text_part}
            elif key == "model:":
                summary = rest
            elif key == "explanations:":
                restricted = rest.startswith("path-restricted")
            continue
        if line.startswith("p"):
            parts = line.split()
            n_vars = int(parts[2])
            continue
        for tok in line.split():
            lit = int(tok)
            if lit == 0:
                clauses.append(pending)
                pending = []
            else:
                pending.append(lit)
    if n_vars is None:
        raise DataError("no 'p cnf' line: this is not a DIMACS CNF text")
    missing = [k for k in ("instance", "prediction", "features", "selectors") if k not in fields]
    if missing:
        raise DataError(f"no 'c {missing[0]}' line: this file was not written by xdt encode")
    return CnfQuery(clauses=clauses, n_vars=n_vars,
                    selectors=dict(fields["selectors"]),  # type: ignore[arg-type]
                    variables=variables, features=list(fields["features"]),  # type: ignore
                    instance=dict(fields["instance"]),  # type: ignore[arg-type]
                    prediction=fields["prediction"], path_restricted=restricted,
                    model_summary=summary, comments=comments)


def read_dimacs(path: str | os.PathLike) -> CnfQuery:
    """:func:`parse_dimacs` of the file at ``path``."""
    return parse_dimacs(Path(path).read_text(encoding="utf-8"))


# ---------------------------------------------------------------------- MaxSAT (WCNF)
@dataclass
class WcnfQuery:
    """The MaxSAT form of one explanation query of a tree ensemble against one class.

    Hard clauses: the cell space, "each tree reaches exactly the leaf of its path" and the
    selectors (as in :func:`encode_query`); soft clauses: one unit clause ``[y]`` per leaf
    ``y``, weighted by that leaf's exact contribution to the lead of class ``against`` over
    the instance's prediction (Ignatiev, Izza, Stuckey & Marques-Silva, "Using MaxSAT for
    Efficient Explanations of Tree Ensembles", AAAI 2022, Section 4).

    Attributes
    ----------
    hard : list of clauses
    soft : list of (clause, weight)
        Positive integer weights (exact, possibly beyond 64 bits).
    n_vars : int
    selectors : dict[str, int]
    instance, prediction, against
        The instance, its predicted class and the class it is tested against.
    offset, scale : int
        At an optimum with satisfied soft weight ``W``, the largest lead of ``against``
        over ``prediction`` is ``(offset + W) / scale`` in exact real arithmetic.
    strict : bool
        ``against`` wins when the lead is ``> 0`` (True) or ``>= 0`` (False: it wins ties).
    comments : list of str
    """

    hard: list
    soft: list
    n_vars: int
    selectors: dict
    instance: dict
    prediction: object
    against: object
    offset: int
    scale: int
    strict: bool
    comments: list = field(default_factory=list)

    def to_text(self) -> str:
        """The classic ``p wcnf`` format: hard clauses carry the weight ``top`` (one more
        than all soft weights together), each line ``weight lit ... 0``."""
        top = sum(w for _, w in self.soft) + 1
        lines = [f"c {c}" if c else "c" for c in self.comments]
        lines.append(f"p wcnf {self.n_vars} {len(self.hard) + len(self.soft)} {top}")
        lines.extend(f"{top} {' '.join(map(str, c))} 0" for c in self.hard)
        lines.extend(f"{w} {' '.join(map(str, c))} 0" for c, w in self.soft)
        return "\n".join(lines) + "\n"


def wcnf_query(model, x, *, against=None, source: str | None = None) -> WcnfQuery:
    """The MaxSAT (WCNF) form of the explanation query of ``x`` on a tree ensemble.

    Parameters
    ----------
    model : TreeEnsemble
    x : dict, sequence or pandas Series
        The instance.
    against : class label, optional
        The class tested against the prediction; default: the other class of a binary
        model (required with more classes: one query per other class).
    source : str, optional
        Where the model came from, for the header.

    Returns
    -------
    WcnfQuery

    Notes
    -----
    The weights are the leaves' values as exact rationals (every float is ``m * 2**e``,
    so one power of two ``scale`` makes them all integers), each tree's shifted by its
    smallest so that all are non-negative (the shifts go into ``offset``). The formula is
    in exact real arithmetic, while xdt's engine (:mod:`xdt.explain.engines._ensemble_sat`) decides
    in the library's floating-point arithmetic (sums in tree order and precision): they agree
    except where a lead is within rounding of zero, and there the engine's answer is the
    library's. For a binary margin the lead is ``score - threshold`` (against
    ``classes[1]``) or ``threshold - score``; otherwise ``S_against - S_prediction``.

    Raises
    ------
    UnsupportedModelError
        When ``model`` is not a tree ensemble.
    ParameterError
        For an ``against`` that is not another class of the model.
    """
    if not offers(model, TREES):
        raise UnsupportedModelError(
            "the MaxSAT form is written for tree ensembles; write the CNF of a "
            f"{type(model).__name__} with dimacs_text")
    values, cells = encode_instance(model.features, model.cells, x)
    prediction = predict_one(model, cells)
    others = [k for k in range(len(model.classes)) if k != prediction]
    if against is None:
        if len(others) != 1:
            raise ParameterError(
                f"against: give the class to test against the prediction "
                f"{to_python(model.classes[prediction])!r}, one of "
                f"{[to_python(model.classes[k]) for k in others]}")
        k = others[0]
    else:
        k = next((j for j in others if model.classes[j] == against), None)
        if k is None:
            raise ParameterError(f"against: {against!r} is not another class than the "
                                 f"prediction {to_python(model.classes[prediction])!r}; use "
                                 f"one of {[to_python(model.classes[j]) for j in others]}")
    encoding = EnsembleEncoding(model)
    allowed = [1 << c for c in cells]
    selectors = [encoding.pool.id(("selector", f)) for f in range(len(cells))]
    hard = [list(c) for c in encoding.domain + encoding.path_clauses] + [
        [-s] + clause for f, s in enumerate(selectors)
        for clause in encoding.inside(f, allowed[f])]
    weights, offset, scale, strict = encoding.advantage(k, prediction)
    soft = [([y], w) for y, w in weights.items() if w > 0]
    names = model.features.names
    used = {abs(lit) for c in hard for lit in c} | set(weights)
    q = WcnfQuery(hard=hard, soft=soft, n_vars=max(used | {encoding.pool.top}),
                  selectors={names[f]: s for f, s in enumerate(selectors)},
                  instance={n: to_python(v) for n, v in zip(names, values, strict=True)},
                  prediction=to_python(model.classes[prediction]),
                  against=to_python(model.classes[k]), offset=offset, scale=scale,
                  strict=strict)
    wins = "> 0" if strict else ">= 0 (it wins ties)"
    q.comments = [
        f"{FORMAT} (MaxSAT): one explanation query of a tree ensemble",
        f"model: {_one_line(_summary(model, source))}",
        "Maximise the satisfied soft weight W. With the selectors of a set S of features as",
        f"unit hard clauses, the largest lead of class {_json(q.against)} over the prediction",
        f"{_json(q.prediction)} among the points agreeing with the instance on S is",
        f"(offset + W) / scale, in exact real arithmetic; {_json(q.against)} wins when it is "
        f"{wins}.",
        "So S entails the prediction against this class (exactly, in real arithmetic) when the",
        "optimum lead does not win. xdt's engine decides in the library's float arithmetic",
        "(sums in tree order and precision): the two agree unless the lead is within rounding",
        "of zero. With more than two classes, S is a weak AXp when it wins against none.",
        "",
        f"offset {offset}",
        f"scale {scale}",
        f"strict {_json(strict)}",
        f"instance {_json(q.instance)}",
        f"prediction {_json(q.prediction)}",
        f"against {_json(q.against)}",
        f"selectors {_json(q.selectors)}",
    ] + [f"var {v} {_one_line(encoding.describe_var(v))}" for v in range(1, q.n_vars + 1)
         if encoding.pool.obj(v) is not None and encoding.pool.obj(v)[0] != "order"]
    return q


def wcnf_text(model, x, *, against=None, source: str | None = None) -> str:
    """The WCNF text of :func:`wcnf_query`."""
    return wcnf_query(model, x, against=against, source=source).to_text()


def write_wcnf(model, x, path: str | os.PathLike, *, against=None,
               source: str | None = None) -> WcnfQuery:
    """Write :func:`wcnf_query` to ``path`` (UTF-8, through a temporary file renamed into
    place; :class:`~xdt.errors.OutputError` if it cannot be, the file there untouched);
    returns what was written."""
    query = wcnf_query(model, x, against=against, source=source)
    write_text(path, query.to_text())
    return query
