"""Certificates: evidence, checkable with the model's own ``predict``, for every explanation.

Every :class:`~xdt.explain.Explanation` returned by :class:`xdt.Explainer`
(either engine) carries a certificate in its ``certificate`` attribute:

* **CXp** (:class:`CxpCertificate`): a *witness point* that agrees with the instance outside
  the CXp's features and that the model predicts another class. For path-restricted CXps the
  features of the instance's path outside the CXp may move within their path literal (and
  features off the path are free: path-restricted explanations never fix them).
* **AXp** (:class:`AxpCertificate`):

  - *minimality*: for each feature ``f`` of the AXp, a witness point that lies in the held
    cells of every other feature of the AXp (the instance's cell, the path's literal, or the
    widened set of an inflated AXp) and that the model predicts another class — so freeing
    ``f`` alone admits another class;
  - *entailment*: for the path engine a :class:`PathProof`, the list of every path of another
    class with the fixed feature whose literal on that path excludes the held cells (dead
    paths, which no point reaches, are listed with the feature whose tests contradict);
    for the SAT engine a :class:`SatProof`, the statement that the solver answered UNSAT
    under the selectors of the AXp's features (or, for an inflated AXp, under assumptions
    holding each feature to its widened cells);
  - for an inflated AXp, *maximality*: per feature, for each cell that could be added (the
    neighbours of an ordinal interval, the other values of a categorical feature), a point
    of another class inside the widened sets plus that cell.

:func:`check_certificate` re-checks a certificate against ``model.predict`` (and the model's
cells and paths), without the engines: every witness point is predicted as claimed and lies
where it must; a path proof blocks every path it lists with the feature it names, and lists
every path of another class. Entailment over a large cell space cannot be checked by
``predict`` alone: a SAT proof is re-checked with the path-walker
(:class:`~xdt.explain.engines.PathOracle`, an independent engine) when the model is a tree,
and for a DNF by :func:`xdt.explain.checks._verify.sat_counterexample`, another solver on another
CNF (:class:`~xdt.explain.checks._verify.DnfCnf`: one-hot ordinal features, a variable equivalent to
each term), which shares nothing with the SAT engine's encoding. For a tree ensemble there is no
independent proof object: the SAT engine's UNSAT answers rest on the lemmas it generated
lazily (:mod:`xdt.explain.engines._ensemble_sat`), and the check re-examines the box instead — every
point of it with the IR's ``predict_cells`` when it has at most
:data:`xdt.explain.checks._verify.MAX_POINTS` points (exact), else :data:`ENSEMBLE_SAMPLES` random
points of it (evidence, not proof). When the ensemble carries the library's own ``predict``
(``model.reference``, set by the importers), every witness point and the instance are also
predicted by the library, and a point the library predicts otherwise than the IR fails the
check; the sampled box points are predicted by it too. Every model kind is handled
the same way otherwise: classes come from the model's own prediction (``model.predict`` on
the points, ``predict_cells`` on cells).

For a model with background constraints (:mod:`xdt.ir._constraints`, an xdt extension)
every witness point satisfies them, and the check re-verifies that too (each point's values
against every constraint); a SAT proof of a tree or a DNF is re-checked on the checks' own
one-hot CNF with the constraints (:class:`~xdt.explain.checks._verify.TreeCnf`,
:class:`~xdt.explain.checks._verify.DnfCnf`), not with the path-walker, which ignores them. A CXp's
witness keeps the instance's values outside the CXp, except that a feature in an ordering
``x < y`` may move inside the instance's cell when the instance's value leaves no room for
the order (features are fixed to cells). ``Explainer`` methods run the check before
returning when given ``verify=True``.

Everything is plain data (dicts, tuples, named tuples of scalars): ``to_dict()`` gives JSON,
where an AXp's witness points are given by their changes from the instance
(:meth:`AxpCertificate.to_dict`).

References
----------
Izza, Ignatiev & Marques-Silva, "On Explaining Decision Trees" (arXiv:2010.11034), Section 4
(a set of features entails the prediction iff it blocks every path of another class);
Ignatiev, Narodytska & Marques-Silva, "Abduction-Based Explanations for Machine Learning
Models", AAAI 2019 (entailment as unsatisfiability); Izza, Ignatiev, Stuckey & Marques-Silva,
"Delivering Inflated Explanations", AAAI 2024 (inflated explanations).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from xdt.errors import CertificateError, ComputationLimitError
from xdt.explain._models import Model, point_values, predict_cells, predict_one
from xdt.explain.engines import _deadline
from xdt.explain.engines._oracle import EntailmentOracle, bits
from xdt.ir._cells import IntervalCells, cells_of, full_mask
from xdt.ir._ensemble import TreeEnsemble
from xdt.ir._instances import encode_instance
from xdt.ir._protocol import PATHS, RULES, TREES, offers
from xdt.ir._tree import DecisionTree
from xdt.ir._values import to_python


class Witness(NamedTuple):
    """A point (feature name -> value) and the class the model predicts for it."""

    point: dict
    label: object


class Widening(NamedTuple):
    """A cell that cannot be added to a feature's set of an inflated AXp, and why: ``point``,
    inside the widened sets with ``cell`` added to this feature (``literal``), is predicted
    ``label``, another class."""

    cell: int
    literal: str
    point: dict
    label: object


class BlockedPath(NamedTuple):
    """One path of another class in a :class:`PathProof`.

    ``path`` is its index in ``model.paths``, ``leaf_class`` its class, ``feature`` the fixed
    feature whose literal on the path excludes the cells the feature is held to; with
    ``dead=True`` the path is unreachable because its own tests on ``feature`` contradict.
    """

    path: int
    leaf_class: object
    feature: str
    dead: bool = False


@dataclass(frozen=True)
class PathProof:
    """Entailment by the path-walker: every path of another class is blocked."""

    blocked: tuple[BlockedPath, ...]
    engine: str = "path"

    def to_dict(self) -> dict:
        return {"engine": self.engine,
                "blocked": [{"path": b.path, "class": to_python(b.leaf_class),
                             "feature": b.feature, "dead": b.dead} for b in self.blocked]}


@dataclass(frozen=True)
class SatProof:
    """Entailment by the SAT engine: the solver answered UNSAT.

    ``assumptions`` is ``"selectors"`` (each feature fixed to its allowed cells by its
    selector variable) or ``"cells"`` (held to widened cell sets, for inflated AXps).
    """

    solver: str
    features: tuple[str, ...]
    assumptions: str = "selectors"
    answer: str = "UNSAT"
    engine: str = "sat"

    @property
    def statement(self) -> str:
        feats = ", ".join(self.features) if self.features else "no feature"
        if self.assumptions == "selectors":
            return f"{self.answer} under the selectors of {feats} (solver {self.solver})"
        return (f"{self.answer} under assumptions holding {feats} to their widened cells "
                f"(solver {self.solver})")

    def to_dict(self) -> dict:
        return {"engine": self.engine, "solver": self.solver, "answer": self.answer,
                "assumptions": self.assumptions, "features": list(self.features),
                "statement": self.statement}


@dataclass(frozen=True)
class BoxProof:
    """Entailment by the box engine of tree ensembles (:mod:`xdt.explain.engines._ensemble_box`):
    its exact branch and bound over the AXp's box found no point of another class.

    ``assumptions`` is ``"selectors"`` (each feature fixed to the instance's cell) or
    ``"cells"`` (held to widened cell sets, for inflated AXps). The check re-asks the other
    engine (the SAT engine), which shares nothing with the box search but the IR."""

    features: tuple[str, ...]
    assumptions: str = "selectors"
    answer: str = "no point of another class"
    engine: str = "box"

    @property
    def statement(self) -> str:
        feats = ", ".join(self.features) if self.features else "no feature"
        held = "fixed" if self.assumptions == "selectors" else "held to their widened cells"
        return f"{self.answer} in the box of {feats} {held} (branch and bound)"

    def to_dict(self) -> dict:
        return {"engine": self.engine, "answer": self.answer,
                "assumptions": self.assumptions, "features": list(self.features),
                "statement": self.statement}


@dataclass(frozen=True)
class AxpCertificate:
    """Evidence for an AXp (see the module docstring).

    Attributes
    ----------
    instance : dict
        The explained instance (feature name -> value).
    prediction : str or int
        Its predicted class.
    held : dict of str to tuple of int
        Per feature of the AXp, the cells (numbers) it is held to.
    witnesses : dict of str to Witness
        Per feature of the AXp, a point inside the held cells of the AXp's other features
        that the model predicts another class.
    proof : PathProof or SatProof
        The proof of entailment.
    widening : dict of str to tuple of Widening
        For an inflated AXp: per feature, why no further cell can be added. Empty otherwise.
    path_restricted, inflated : bool
    """

    instance: dict
    prediction: object
    held: dict
    witnesses: dict
    proof: PathProof | SatProof | BoxProof
    widening: dict = field(default_factory=dict)
    path_restricted: bool = False
    inflated: bool = False
    kind: str = "AXp"

    def to_dict(self) -> dict:
        """The certificate as JSON-ready data: ``instance`` in full, and every other point
        (a witness, a widening's point) as its ``changes``, the features whose values
        differ from ``instance`` (name -> value; the point is ``instance`` updated with
        them). A point per feature of the AXp would repeat the whole instance each time:
        on a model with hundreds of features that is most of the output."""
        inst = self.instance
        out = {"kind": self.kind, "instance": _plain_point(inst),
               "prediction": to_python(self.prediction),
               "path_restricted": self.path_restricted, "inflated": self.inflated,
               "held": {k: list(v) for k, v in self.held.items()},
               "witnesses": {k: {"changes": _changes(w.point, inst),
                                 "class": to_python(w.label)}
                             for k, w in self.witnesses.items()},
               "proof": self.proof.to_dict()}
        if self.inflated:
            out["widening"] = {
                k: [{"cell": w.cell, "literal": w.literal, "changes": _changes(w.point, inst),
                     "class": to_python(w.label)} for w in ws]
                for k, ws in self.widening.items()}
        return out


@dataclass(frozen=True)
class CxpCertificate:
    """Evidence for a CXp: a witness point of another class that changes only the CXp's
    features (path-restricted: the path's other features stay within their literals)."""

    instance: dict
    prediction: object
    witness: dict
    witness_class: object
    path_restricted: bool = False
    kind: str = "CXp"

    @property
    def note(self) -> str:
        if self.path_restricted:
            return ("path-restricted: the witness may move the features of the instance's "
                    "path outside the CXp within their path literals, and features off the "
                    "path freely")
        return "the witness equals the instance outside the CXp's features"

    def to_dict(self) -> dict:
        return {"kind": self.kind, "instance": _plain_point(self.instance),
                "prediction": to_python(self.prediction), "path_restricted": self.path_restricted,
                "witness": _plain_point(self.witness),
                "witness_class": to_python(self.witness_class), "note": self.note}


Certificate = AxpCertificate | CxpCertificate


# ---------------------------------------------------------------------- building
def _labels(model: Model, points: Sequence[Sequence[int]]) -> list:
    """The class labels of points given by their cells, by the model's own prediction."""
    if not points:
        return []
    return [model.classes[int(i)] for i in predict_cells(model, points)]


def axp_certificate(model: Model, oracle: EntailmentOracle, *, values: Sequence,
                    cells: Sequence[int], prediction: int, allowed: Sequence[int], mask: int,
                    held: dict[int, int], engine: str, solver: str | None = None,
                    path_restricted: bool = False,
                    rejected: dict[int, list[tuple[int, tuple[int, ...]]]] | None = None,
                    ) -> AxpCertificate:
    """Build the certificate of the AXp ``mask`` from the engine that found it.

    Parameters
    ----------
    model : DecisionTree or DNF
    oracle : EntailmentOracle
        The engine's oracle for this instance.
    values, cells : sequences, one per feature
        The instance's values and cells.
    prediction : int
        The predicted class index.
    allowed : sequence of int
        Per feature, the cells a fixed feature is held to (instance cell or path literal).
    mask : int
        The AXp (bit mask of feature positions).
    held : dict of int to int
        Per feature of the AXp, the cells it is held to (``allowed``, or widened sets).
    engine : {"path", "sat"}
    solver : str, optional
        The SAT solver's name (SAT engine).
    rejected : dict, optional
        For inflated AXps: per feature, ``(cell, counterexample cells)`` for each cell that
        could not be added (from :func:`xdt.explain.queries.inflate`).

    Raises
    ------
    CertificateError
        When the engine cannot produce the evidence (the set is not minimal, or does not
        entail the prediction): the explanation is wrong.
    """
    names = model.features.names
    label = model.classes[prediction]
    instance = {names[f]: values[f] for f in range(len(names))}
    feats = bits(mask)

    def fail(reason: str) -> CertificateError:
        return CertificateError(
            f"cannot certify the AXp {{{', '.join(names[f] for f in feats)}}} of {instance}: "
            f"{reason}", row=instance, reason=reason)

    points = []
    for f in feats:
        p = oracle.counterexample(mask & ~(1 << f))
        if p is None:
            raise fail(f"without {names[f]} the other features still entail the prediction "
                       "(not minimal)")
        points.append(p)
    extra: list[tuple[int, int, tuple[int, ...]]] = []
    for f, items in (rejected or {}).items():
        extra.extend((f, c, p) for c, p in items)
    labels = _labels(model, points + [p for _, _, p in extra])
    witnesses = {names[f]: Witness(point_values(model, values, cells, p), lab)
                 for f, p, lab in zip(feats, points, labels[:len(points)], strict=True)}
    widening: dict[str, tuple[Widening, ...]] = {}
    if rejected is not None:
        for f in feats:
            widening[names[f]] = ()
        for (f, c, p), lab in zip(extra, labels[len(points):], strict=True):
            lit = model.cells[f].describe(held[f] | (1 << c))
            widening[names[f]] += (Widening(c, lit, point_values(model, values, cells, p), lab),)
    proof: PathProof | SatProof | BoxProof
    if engine == "path":
        blocked = oracle.entailment_proof(held)  # type: ignore[attr-defined]
        if blocked is None:
            raise fail("a path of another class is not blocked (no entailment)")
        make = tuple.__new__  # BlockedPath(...) without the Python-level __new__: fast
        proof = PathProof(tuple(make(BlockedPath, (p.index, p.label, names[f], dead))
                                for p, f, dead in blocked))
    else:
        inflated = any(held[f] != allowed[f] for f in feats)
        ok = oracle.entails_cells(held) if inflated else oracle.entails(mask)
        if not ok:
            raise fail(f"the {engine} engine finds a point of another class (no entailment)")
        if engine == "box":
            proof = BoxProof(tuple(names[f] for f in feats), "cells" if inflated else
                             "selectors")
        else:
            proof = SatProof(solver or "?", tuple(names[f] for f in feats),
                             "cells" if inflated else "selectors")
    return AxpCertificate(
        instance=instance, prediction=label,
        held={names[f]: tuple(cells_of(held[f])) for f in feats},
        witnesses=witnesses, proof=proof, widening=widening,
        path_restricted=path_restricted, inflated=rejected is not None)


def cxp_certificate(model: Model, *, values: Sequence, prediction: int,
                    witness: dict, witness_class: object,
                    path_restricted: bool = False) -> CxpCertificate:
    """The certificate of a CXp from its counterexample point (name -> value) and class."""
    names = model.features.names
    return CxpCertificate(
        instance={names[f]: values[f] for f in range(len(names))},
        prediction=model.classes[prediction], witness=dict(witness),
        witness_class=witness_class, path_restricted=path_restricted)


# ---------------------------------------------------------------------- checking
def check_certificate(model: Model, explanation, *, row: object = None) -> None:
    """Re-check an explanation's certificate against ``model.predict``, not the engines.

    Parameters
    ----------
    model : DecisionTree or DNF
        The explained model.
    explanation : Explanation
        An explanation with its ``certificate``.
    row : object, optional
        How to name the instance in an error (a row number or label); default: the
        instance's values.

    Raises
    ------
    CertificateError
        Naming the row and what failed, when:

        * the instance is not predicted the explanation's class;
        * the model carries background constraints (:mod:`xdt.ir._constraints`) and the
          instance or a witness point violates one;
        * CXp: the witness is not the explanation's counterexample, is predicted the
          explained class (or not its stated class), or differs from the instance outside
          the CXp's features (path-restricted: leaves a path literal);
        * AXp: the held cells are not the instance's cell / path literal (for an inflated
          AXp: do not contain it, or differ from the explanation's ``cells``); a feature's
          witness is missing, predicted the explained class, or leaves the held cells of
          the other features; a path proof lists a path that is not of another class or
          not blocked by the named feature, or misses a path of another class; a SAT proof
          does not hold according to the path-walker (trees) or to the checks' own CNF
          (DNFs); an inflated AXp lacks a widening witness for a cell that
          could be added, or the witness is wrong; a path-restricted explanation of a DNF.

    Notes
    -----
    Witness points are checked with ``model.predict``; their cells with the model's cells
    (``cell_of``). A path proof is checked by iterating ``model.paths`` and intersecting each
    path's literal with the held cells: O(total path length). A SAT proof states
    unsatisfiability, which ``predict`` cannot confirm on a large cell space; for a tree it
    is re-checked with the path-walker (:class:`~xdt.explain.engines.PathOracle`), an engine
    independent of the SAT encoding, and for a DNF with
    :func:`xdt.explain.checks._verify.sat_counterexample` (glucose on
    :class:`~xdt.explain.checks._verify.DnfCnf`, a CNF independent of the SAT engine's).
    """
    check_certificates(model, [explanation], rows=[row])


def check_certificates(model: Model, explanations: Sequence, *,
                       rows: Sequence | None = None) -> None:
    """:func:`check_certificate` for several explanations, with one ``model.predict`` call
    for all their points.

    Parameters
    ----------
    rows : sequence, optional
        One row name per explanation (for the errors).
    """
    explanations = list(explanations)
    rows = list(rows) if rows is not None else [None] * len(explanations)
    plans = []
    for e, r in zip(explanations, rows, strict=True):
        _deadline.check()  # the deadline of the call whose answers these are, if any
        plans.append(_plan(model, e, r))
    points = [p for _, plan_points, _, _ in plans for p in plan_points]
    _deadline.check()
    got = model.predict(points) if points else []
    ref = getattr(model, "reference", None)
    if ref is not None and points:
        got = _with_reference(model, ref, points, got)
    start = 0
    for fail, plan_points, claims, proof_check in plans:
        preds = got[start:start + len(plan_points)]
        start += len(plan_points)
        for claim, pred in zip(claims, preds, strict=True):
            reason = claim(pred)
            if reason is not None:
                raise fail(reason)
        _deadline.check()
        proof_check()


def _with_reference(model: Model, ref, points: list[dict], got) -> list:
    """The predictions of ``points`` where the library's own ``predict`` (``ref``) agrees
    with the IR's ``got``; where it does not, a :class:`_Disagreement` that every claim on
    the point rejects (a certificate is then not re-checked by the library)."""
    from xdt.explain.checks._verify import reference_rows

    names = model.features.names
    theirs = ref(reference_rows(model, [[p[n] for n in names] for p in points]))
    return [g if _same(g, r) else _Disagreement(g, r)
            for g, r in zip(list(got), list(theirs), strict=True)]


class _Disagreement:
    """A point the IR and the library predict differently: equal to nothing."""

    def __init__(self, ours: object, theirs: object):
        self.ours, self.theirs = ours, theirs

    def __eq__(self, other: object) -> bool:
        return False

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (f"{to_python(self.ours)!r} by the IR but {to_python(self.theirs)!r} by the "
                "library's own predict (model.reference)")


def _plan(model: Model, explanation, row: object):
    """:func:`_plan_certificate`, with the checks of the explanation's optimality certificate
    (:meth:`xdt.explain.checks.OptimalityCertificate.plan`) when it has one."""
    fail, points, claims, proof_check = _plan_certificate(model, explanation, row)
    optimal = getattr(explanation, "optimality", None)
    if optimal is None:
        return fail, points, claims, proof_check
    if not callable(getattr(optimal, "plan", None)):
        raise fail(f"its optimality is a {type(optimal).__name__}, not an optimality "
                   "certificate")
    values, cells = encode_instance(model.features, model.cells, explanation.certificate.instance)
    path = (model.paths[int(model.leaf_paths(np.asarray([cells], dtype=np.int64))[0])]
            if offers(model, PATHS) else None)
    more_points, more_claims, more_check = optimal.plan(model, explanation, fail, values,
                                                        cells, path)

    def both() -> None:
        proof_check()
        more_check()

    return fail, [*points, *more_points], [*claims, *more_claims], both


def _plan_certificate(model: Model, explanation, row: object):
    """The checks of one certificate that need no prediction (done here, raising), the
    points to predict with one claim per point (``claim(prediction)`` gives the reason of a
    failure or ``None``), and the check of the proof of entailment, to run after the
    claims. Returns ``(fail, points, claims, proof_check)``."""
    cert = explanation.certificate
    names = model.features.names
    feats = list(explanation.features)
    target = explanation.prediction

    def fail(reason: str) -> CertificateError:
        who = row if row is not None else (
            _plain_point(cert.instance) if cert is not None else "?")
        return CertificateError(
            f"row {who}: the certificate of the {explanation.kind} {{{', '.join(feats)}}} "
            f"fails: {reason}", row=who, reason=reason)

    if cert is None:
        raise fail("the explanation has no certificate")
    if cert.kind != explanation.kind:
        raise fail(f"a {cert.kind} certificate on a {explanation.kind}")
    if set(cert.instance) != set(names):
        raise fail("the certificate's instance does not give every feature of the model")
    values, cells = encode_instance(model.features, model.cells, cert.instance)
    for name, v in zip(explanation.features, explanation.values, strict=True):
        if not _same(cert.instance[name], v):
            raise fail(f"the instance's {name} is {cert.instance[name]!r}, the explanation "
                       f"says {v!r}")
    if explanation.path_restricted and not offers(model, PATHS):
        raise fail("a path-restricted explanation of a model without paths (path-restricted "
                   "explanations exist for decision trees only)")
    path = (model.paths[int(model.leaf_paths(np.asarray([cells], dtype=np.int64))[0])]
            if offers(model, PATHS) else None)

    def instance_claim(pred) -> str | None:
        if not _same(pred, target):
            return f"model.predict gives {to_python(pred)!r} for the instance, not {target!r}"
        return None

    def witness_claim(what: str, point: dict, label: object):
        def claim(pred) -> str | None:
            if _same(pred, target):
                return (f"model.predict gives the explained class {to_python(pred)!r} for {what}, "
                        f"{_plain_point(point)}")
            if not _same(pred, label):
                return (f"model.predict gives {to_python(pred)!r} for {what}, not the stated "
                        f"{label!r}")
            return None
        return claim

    constraints = getattr(model, "constraints", None)

    def complete(what: str, point: dict) -> None:
        if set(point) != set(names):
            raise fail(f"{what} does not give every feature of the model")
        if constraints:
            row = [point[n] for n in names]
            broken = constraints.violated(row, encode_instance(model.features, model.cells,
                                                               row)[1])
            if broken is not None:
                raise fail(f"{what} violates the background constraint {str(broken)!r}")

    if constraints:
        complete("the instance", cert.instance)

    # ------------------------------------------------------------------ CXp
    if explanation.kind == "CXp":
        if not (_same_point(cert.witness, explanation.counterexample)
                and _same(cert.witness_class, explanation.counterexample_class)):
            raise fail("the witness is not the explanation's counterexample")
        complete("the witness", cert.witness)
        for f, name in enumerate(names):
            if name in feats:
                continue
            if explanation.path_restricted:
                if f in path.masks and not (path.masks[f] >> model.cells[f].cell_of(
                        cert.witness[name])) & 1:
                    raise fail(f"the witness moves {name} to {cert.witness[name]!r}, outside "
                               "its path literal")
            elif not _same(cert.witness[name], cert.instance[name]) and not (
                    constraints and f in constraints.linked
                    and model.cells[f].cell_of(cert.witness[name]) == cells[f]):
                raise fail(f"the witness changes {name} ({cert.instance[name]!r} -> "
                           f"{cert.witness[name]!r}), which is not in the CXp")
        return fail, [cert.instance, cert.witness], [
            instance_claim, witness_claim("the witness", cert.witness, cert.witness_class)], \
            lambda: None
    # ------------------------------------------------------------------ AXp
    pos = [names.index(n) for n in feats]
    base = {}
    for f in pos:
        if explanation.path_restricted:
            if f not in path.masks:
                raise fail(f"{names[f]} is not on the instance's path (path-restricted)")
            base[f] = path.masks[f]
        else:
            base[f] = 1 << cells[f]
    if set(cert.held) != set(feats):
        raise fail("the held cells do not name exactly the AXp's features")
    held = {f: _mask(cert.held[names[f]]) for f in pos}
    stated = dict(zip(pos, explanation.cells, strict=False)) if explanation.cells else None
    for f in pos:
        if explanation.inflated:
            if base[f] & ~held[f]:
                raise fail(f"the widened cells of {names[f]} do not contain the instance's "
                           "allowed cells")
        elif held[f] != base[f]:
            raise fail(f"{names[f]} is held to cells {list(cells_of(held[f]))}, not to the "
                       f"instance's {list(cells_of(base[f]))}")
        if stated is not None and stated[f] != held[f]:
            raise fail(f"the certificate holds {names[f]} to other cells than the explanation")
    points: list[dict] = [cert.instance]
    claims = [instance_claim]

    def witness(what: str, w, inside: dict[int, int]) -> None:
        complete(what, w.point)
        for g, m in inside.items():
            if not (m >> model.cells[g].cell_of(w.point[names[g]])) & 1:
                raise fail(f"{what} sets {names[g]} = {w.point[names[g]]!r}, outside the "
                           f"cells {names[g]} is held to")
        points.append(w.point)
        claims.append(witness_claim(what, w.point, w.label))

    for f in pos:
        w = cert.witnesses.get(names[f])
        if w is None:
            raise fail(f"no witness that freeing {names[f]} admits another class")
        witness(f"the witness for freeing {names[f]}", w,
                {g: held[g] for g in pos if g != f})
    if explanation.inflated:
        for f in pos:
            given = {w.cell: w for w in cert.widening.get(names[f], ())}
            for c in addable_cells(model.cells[f], held[f]):
                w = given.get(c)
                if w is None:
                    raise fail(f"no witness that adding cell {c} to {names[f]} admits "
                               "another class (the widened set may not be maximal)")
                witness(f"the widening witness for adding cell {c} to {names[f]}", w,
                        {**held, f: held[f] | (1 << c)})
    return fail, points, claims, lambda: _check_proof(model, explanation, held, cells, path,
                                                      values, fail)


def _check_proof(model: Model, explanation, held: dict[int, int], cells, path, values,
                 fail) -> None:
    """The proof of entailment of an AXp's certificate."""
    names = model.features.names
    feats = list(explanation.features)
    target = explanation.prediction
    proof = explanation.certificate.proof
    if isinstance(proof, PathProof):
        if not offers(model, PATHS):
            raise fail("a path proof for a model without paths (only decision trees have "
                       "path proofs)")
        _check_path_proof(model, proof, target, held, names, fail)
    elif isinstance(proof, SatProof):
        if proof.answer != "UNSAT" or list(proof.features) != feats:
            raise fail(f"the SAT proof is about {list(proof.features)} ({proof.answer}), not "
                       "an UNSAT answer for the AXp's features")
        if offers(model, TREES):
            point, checker = (None, None) if model.constraints else \
                _ensemble_other_engine(model, held, cells, "box")
            if checker is None:
                point, checker = _ensemble_box_check(model, held, cells)
        elif offers(model, PATHS) and model.constraints:
            from xdt.explain.checks._verify import sat_counterexample  # an independent CNF

            point = sat_counterexample(model, held, model.classes[predict_one(model, cells)])
            checker = ("the checks' own CNF of the tree and its background constraints "
                       "(verify.TreeCnf)")
        elif offers(model, PATHS):
            from xdt.explain.engines._path import PathOracle  # the independent engine

            universe = full_mask(len(names))
            allowed = [full_mask(c.n_cells) for c in model.cells]
            point = PathOracle(model, cells, allowed, universe,
                               path.class_index).counterexample_cells(held)
            checker = "the path-walker"
        else:
            from xdt.explain.checks._verify import sat_counterexample  # an independent CNF

            point = sat_counterexample(model, held, model.classes[predict_one(model, cells)])
            checker = ("the checks' own CNF of the decision list (verify.DecisionListCnf)"
                       if offers(model, RULES) else
                       "the checks' own CNF of the DNF (verify.DnfCnf)")
        if point is not None:
            other = point_values(model, values, cells, point)
            raise fail(f"the SAT proof says UNSAT, but {checker} finds a point of another "
                       f"class inside the held cells: {_plain_point(other)}")
    elif isinstance(proof, BoxProof):
        if list(proof.features) != feats:
            raise fail(f"the box proof is about {list(proof.features)}, not the AXp's "
                       "features")
        if not offers(model, TREES):
            raise fail("a box proof for a model that is not a tree ensemble")
        point, checker = _ensemble_other_engine(model, held, cells, "sat")
        if point is None:  # and every point of a small box; past the SAT limit, a sample
            from xdt.explain.checks import _verify as verify

            box = [held.get(f, full_mask(k.n_cells)) for f, k in enumerate(model.cells)]
            if checker is None or verify.box_size(box) <= verify.MAX_POINTS:
                point, checker = _ensemble_box_check(model, held, cells)
        if point is not None:
            other = point_values(model, values, cells, point)
            raise fail(f"the box engine found no point of another class, but {checker} "
                       f"finds one inside the held cells: {_plain_point(other)}")
    else:
        raise fail(f"unknown proof {type(proof).__name__}")


def _ensemble_other_engine(model: TreeEnsemble, held: dict[int, int], cells: Sequence[int],
                           engine: str) -> tuple[tuple[int, ...] | None, str | None]:
    """A point of another class in the box ``held`` of an ensemble instance, by the given
    engine (``"sat"`` or ``"box"``), and its name; ``(None, None)`` when the engine meets its
    limit (the box engine's :data:`~xdt.explain.engines._ensemble_box.MAX_BOXES`, the SAT engine's
    :data:`SAT_CHECK_ROUNDS`): then the caller checks otherwise."""
    c = int(model.predict_cells(np.asarray([cells], dtype=np.int64))[0])
    n = len(model.features)
    allowed = [1 << int(v) for v in cells]
    if engine == "sat":
        from xdt.explain.engines._sat_cache import shared_encoding

        oracle = shared_encoding(model).oracle(cells, allowed, full_mask(n), c)
        oracle.max_rounds = SAT_CHECK_ROUNDS
        try:
            return oracle.counterexample_cells(held), "the SAT engine"
        except ComputationLimitError:  # a hard box for the lazy arithmetic
            return None, None
    from xdt.explain.engines import _ensemble_box as ensemble_box

    try:
        point = ensemble_box.BoxOracle(model, cells, allowed, full_mask(n), c,
                                       max_boxes=ensemble_box.MAX_BOXES
                                       ).counterexample_cells(held)
    except ComputationLimitError:  # past its limit, with no fallback
        return None, None
    return point, "the box engine"


SAT_CHECK_ROUNDS = 100
"""Solver calls the SAT engine may make to re-check a box engine's AXp (its lazily added
arithmetic needs thousands on some forests over continuous features); past them the box is
enumerated when small, else sampled (:func:`_ensemble_box_check`)."""

ENSEMBLE_SAMPLES = 4000
"""Points of the box sampled to re-check an ensemble AXp's SAT proof when the box is too
large to enumerate (:data:`xdt.explain.checks._verify.MAX_POINTS`)."""


def _ensemble_box_check(model: TreeEnsemble, held: dict[int, int], cells: Sequence[int]
                        ) -> tuple[tuple[int, ...] | None, str]:
    """A point of another class in the box of an ensemble AXp, and what looked for it:
    every point of the box when it is small enough (exact), else a sample of
    :data:`ENSEMBLE_SAMPLES` points (evidence, not proof); by the IR's ``predict_cells`` and
    the library's own ``predict`` when ``model.reference`` is set."""
    from xdt.explain.checks import _verify as verify  # the independent checks

    c = int(model.predict_cells(np.asarray([cells], dtype=np.int64))[0])
    box = [held.get(f, full_mask(k.n_cells)) for f, k in enumerate(model.cells)]
    if verify.box_size(box) <= verify.MAX_POINTS:
        point = verify.counterexample_in_box(model, held, c, cells)
        if point is not None or model.reference is None:
            return point, "enumerating the box with model.predict_cells"
        return (verify.sample_box_counterexample(model, box, c, ENSEMBLE_SAMPLES),
                "sampling the box through the library's own predict (model.reference)")
    return (verify.sample_box_counterexample(model, box, c, ENSEMBLE_SAMPLES),
            "sampling the box (model.predict_cells, and model.reference when set)")


def _check_path_proof(model: DecisionTree, proof: PathProof, prediction: object,
                      held: dict[int, int], names, fail) -> None:
    """Every path listed is of another class and blocked by its feature; every path of
    another class is listed. Walks ``model.paths`` only."""
    listed = set()
    for b in proof.blocked:
        if not 0 <= b.path < len(model.paths):
            raise fail(f"the proof lists path {b.path}, which the tree does not have")
        p = model.paths[b.path]
        if not _same(p.label, b.leaf_class) or _same(p.label, prediction):
            raise fail(f"the proof lists path {b.path} as of class {b.leaf_class!r}; its leaf "
                       f"predicts {p.label!r} (the explained class is {prediction!r})")
        if b.feature not in names:
            raise fail(f"the proof names unknown feature {b.feature!r}")
        f = names.index(b.feature)
        if b.dead:
            if p.masks.get(f, -1) != 0:
                raise fail(f"the proof calls path {b.path} dead on {b.feature}, but its tests "
                           f"on {b.feature} are satisfiable")
        elif f not in held:
            raise fail(f"path {b.path} is said to be blocked by {b.feature}, which is not in "
                       "the AXp")
        elif f not in p.masks or p.masks[f] & held[f]:
            raise fail(f"path {b.path} (class {p.label!r}) is said to be blocked by "
                       f"{b.feature}, but its literal on {b.feature} admits the held cells")
        listed.add(b.path)
    missing = [p.index for p in model.paths
               if not _same(p.label, prediction) and p.index not in listed]
    if missing:
        raise fail(f"the proof does not cover the paths {missing} of another class")


def addable_cells(cells, mask: int) -> list[int]:
    """The cells one could add to the set ``mask`` of a feature: for an ordinal feature (an
    interval) its neighbours on the left and right; else every cell outside ``mask``."""
    n = cells.n_cells
    if isinstance(cells, IntervalCells):
        present = list(cells_of(mask))
        out = []
        if present and present[0] > 0:
            out.append(present[0] - 1)
        if present and present[-1] < n - 1:
            out.append(present[-1] + 1)
        return out
    return [j for j in range(n) if not (mask >> j) & 1]


# ---------------------------------------------------------------------- helpers
def _mask(cells: Sequence[int]) -> int:
    m = 0
    for j in cells:
        m |= 1 << int(j)
    return m


def _same(a: object, b: object) -> bool:
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def _same_point(a: dict | None, b: dict | None) -> bool:
    if a is None or b is None:
        return a is b
    return set(a) == set(b) and all(_same(a[k], b[k]) for k in a)



def _plain_point(point: dict) -> dict:
    return {k: to_python(v) for k, v in point.items()}


def _changes(point: dict, instance: dict) -> dict:
    """The values of ``point`` that differ from ``instance``'s (JSON-ready), in ``point``'s
    order; a feature ``instance`` lacks counts as changed."""
    missing = object()
    return {k: to_python(v) for k, v in point.items()
            if (w := instance.get(k, missing)) is not v and (w is missing or not _same(v, w))}
