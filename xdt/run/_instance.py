"""The explanations of one instance, as the fields of its record: the per-row engine of
:func:`xdt.run.explain_table` (``engine=`` an :class:`~xdt.explain.Explainer` or its engine's
name), of ``xdt explain`` row by row and of the HTML report.

:func:`explain_instance` runs an :class:`~xdt.explain.Explainer`'s queries on one instance --
the prediction and what decided it, one AXp, one CXp or all CXps, all AXps, on the user's
terms (``exclude``, ``immutable``, ``weights``), within one time limit -- and returns the
fields of the row's record (:func:`xdt.run.explanation_record`) with the
explanations themselves (:class:`InstanceExplanation`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from xdt.errors import ComputationLimitError, NoExplanationError
from xdt.explain._explainer import EnumerationInterrupted, Explainer
from xdt.explain._explanation import Explanation
from xdt.explain.queries._duality import Deadline
from xdt.ir._instances import encode_instance
from xdt.ir._protocol import PATHS, RULES, TREES, offers
from xdt.ir._values import to_python

__all__ = ["ExplainInterrupted", "InstanceExplanation", "explain_instance"]


@dataclass
class InstanceExplanation:
    """What :func:`explain_instance` found for one instance.

    Attributes
    ----------
    fields : dict
        The fields of its record, JSON-ready (explanations as dicts): see
        :func:`explain_instance`.
    axp : Explanation or None
        The one AXp (None when none avoids the excluded features, or its search stopped).
    cxps : list of Explanation
        The one CXp (or none), or all CXps with ``all_cxps`` (an
        :class:`~xdt.explain.ExplanationList`, with how its enumeration ended).
    axps : list of Explanation or None
        All AXps, with ``all_axps`` (an ``ExplanationList``).
    """

    fields: dict
    axp: Explanation | None = None
    cxps: list = field(default_factory=list)
    axps: list | None = None


class ExplainInterrupted(KeyboardInterrupt):
    """:func:`explain_instance` was interrupted (Ctrl-C); ``record`` holds what was done: the
    keys computed so far, an interrupted enumeration with the explanations it had found
    (``axps_complete``/``cxps_complete`` False, ``..._stopped_by`` ``"interrupted"``), and
    ``"interrupted": True``."""

    def __init__(self, record: dict):
        self.record = record
        super().__init__("interrupted")


def explain_instance(explainer: Explainer, x: object, *, all_axps: bool = False,
                     all_cxps: bool = False, path_restricted: bool = False,
                     inflate: bool = False, verify: bool = False,
                     max_count: int | None = None, time_limit: float | None = None,
                     on_found: Callable[[str, int], None] | None = None,
                     certificates: bool = True, exclude: Sequence[str] | None = None,
                     immutable: Sequence[str] | None = None,
                     weights: dict | None = None) -> InstanceExplanation:
    """The explanations of one instance, as the fields of its record and as objects.

    Parameters
    ----------
    max_count : int, optional
        Most explanations listed by each enumeration.
    time_limit : float, optional
        Seconds allowed to the whole instance: one :class:`~xdt.explain.queries.Deadline`,
        started first, is shared by the single AXp and CXp, the enumerations, the
        re-checking of their certificates and the making of their records, each as it is
        found. When it passes before the AXp is found, ``axp`` is ``None`` and ``no_axp``
        says so (``stopped_by: "time_limit"``); before the CXp, ``cxp_stopped`` does.
    on_found : callable, optional
        ``on_found(kind, count)`` as each enumeration finds an explanation (``kind``
        ``"AXp"`` or ``"CXp"``, ``count`` found so far), e.g. for a progress counter.
    certificates : bool
        Give each explanation's certificate in the record (``False``: ``None``, for output
        that does not show them).
    exclude, immutable : sequence of str, optional
        Features the AXps may not use, and features the CXps may not change
        (:mod:`xdt.explain.queries._preferences`).
    weights : dict, optional
        Feature name -> cost: the one AXp and CXp are then cheapest ones
        (``smallest_axp`` / ``smallest_cxp``, with their optimality certificates), and the
        enumerations list them cheapest first.

    Returns
    -------
    InstanceExplanation
        The explanations (``axp``, ``cxps``, ``axps``) and the record's ``fields``:
        ``prediction``; for a tree ``path`` (features tested, root first, one entry per
        test), ``path_length`` (tests on the path) and ``path_redundant``; for a DNF
        ``true_terms`` (the numbers of the terms that hold, each with its ``rule``); for a
        decision list ``firing_rule`` (``rule``: the number of the rule that fires, or
        ``None`` for the default; ``text``: the rule);
        ``path_restricted``,
        ``axp`` (one AXp, :meth:`Explanation.to_dict`), ``axps`` (all AXps, only with
        ``all_axps``) and ``cxps`` (one CXp, or all of them with ``all_cxps``; empty when no
        change of features changes the prediction); with the enumerations
        ``axps_complete`` / ``cxps_complete`` (False when ``max_count``, ``time_limit`` or
        an interruption cut them short) and ``axps_stopped_by`` / ``cxps_stopped_by``
        (``None``, ``"max_count"``: more exist, ``"time_limit"`` or ``"interrupted"``).
        With ``verify`` every explanation's certificate is re-checked against the model's
        ``predict`` first, and each explanation's ``verified`` says whether it was: only
        those of an enumeration whose time limit passed before their check are not. With
        ``inflate`` the AXp is widened to maximal cell sets. When no AXp avoids the
        ``exclude`` features, ``axp`` is ``None`` and ``no_axp`` says why (with its
        ``counterexample``).

    Raises
    ------
    ExplainInterrupted
        On Ctrl-C, with the partial record.
    """
    model = explainer.model
    deadline = None if time_limit is None else Deadline(time_limit)
    out: dict = {}
    complete: dict = {}
    running = None  # the enumeration under way, for a partial record
    single_cxp: list | None = None  # the one CXp's record, without all_cxps
    found = InstanceExplanation(out)

    built: dict = {}  # (kind, features) -> record of an enumerated explanation

    def counted(kind: str) -> Callable[[int, Explanation], None]:
        def made(count: int, explanation: Explanation) -> None:
            # its record is made as it is found, so that the time limit covers it too
            built[kind, explanation.features] = explanation.to_dict(certificates)
            if on_found is not None:
                on_found(kind, count)
        return made

    def record(e: Explanation) -> dict:
        d = built.pop((e.kind, e.features), None) or e.to_dict(certificates)
        d["verified"] = e.verified  # re-checked after it was found, or not
        return d

    def enumeration(key: str, listed: Sequence, done: bool, stopped: str | None) -> None:
        out[key] = [record(e) for e in listed]
        setattr(found, key, listed)
        complete[f"{key}_complete"] = done
        complete[f"{key}_stopped_by"] = stopped

    try:
        _, cells = encode_instance(model.features, model.cells, x)
        out["prediction"] = to_python(explainer.predict(x))
        if offers(model, PATHS):
            path = model.paths[int(model.leaf_paths(np.asarray([cells]))[0])]
            names = model.features.names
            out.update({"path": [names[lit.feature] for lit in path.term.literals],
                        "path_length": len(path),
                        "path_redundant": explainer.path_is_redundant(x)})
        elif offers(model, TREES):  # the scores the class is decided on
            scores = model.scores_of_leaves(model.leaves(np.asarray([cells])))[0]
            out["scores"] = [float(v) for v in scores]
        elif offers(model, RULES):
            first = int(model.firing_cells(np.asarray([cells]))[0])
            out["firing_rule"] = (
                {"rule": None, "text": model.lines()[-1]} if first < 0 else
                {"rule": first, "text": model.rules()[first].text(model.target)})
        else:
            true = np.flatnonzero(model.satisfied_terms(np.asarray([cells]))[0])
            rules = model.rules()
            out["true_terms"] = [{"term": int(p), "rule": str(rules[p])} for p in true]
        out["path_restricted"] = path_restricted
        if exclude:
            out["exclude"] = list(exclude)
        if immutable:
            out["immutable"] = list(immutable)
        if weights is not None:
            out["weights"] = {k: to_python(v) for k, v in weights.items()}
        try:
            one_axp = (explainer.axp(x, path_restricted=path_restricted, inflate=inflate,
                                     verify=verify, exclude=exclude,
                                     time_limit=deadline)
                       if weights is None else
                       explainer.smallest_axp(x, path_restricted=path_restricted,
                                              inflate=inflate, verify=verify,
                                              exclude=exclude, weights=weights,
                                              time_limit=deadline))
            out["axp"] = one_axp.to_dict(certificates)
            found.axp = one_axp
        except NoExplanationError as e:
            out["axp"] = None
            out["no_axp"] = {"reason": str(e), "counterexample": {
                k: to_python(v) for k, v in (e.counterexample or {}).items()},
                "counterexample_class": to_python(e.counterexample_class)}
        except ComputationLimitError as e:  # the time limit passed before an AXp was found
            out["axp"] = None
            out["no_axp"] = {"reason": str(e), "stopped_by": "time_limit"}
        if not all_cxps:  # before the enumerations, which take what time is left
            try:
                one = (explainer.cxp(x, path_restricted=path_restricted, verify=verify,
                                     immutable=immutable, time_limit=deadline)
                       if weights is None else
                       explainer.smallest_cxp(x, path_restricted=path_restricted,
                                              verify=verify, immutable=immutable,
                                              weights=weights, time_limit=deadline))
                single_cxp = [] if one is None else [one.to_dict(certificates)]
                found.cxps = [] if one is None else [one]
            except ComputationLimitError as e:
                single_cxp = []
                complete["cxps_complete"] = False
                complete["cxps_stopped_by"] = "time_limit"
                out["cxp_stopped"] = str(e)
        limits = {"path_restricted": path_restricted, "verify": verify,
                  "max_count": max_count, "time_limit": deadline, "weights": weights}
        if all_axps:
            running = "axps"
            axps = explainer.all_axps(x, on_found=counted("AXp"), exclude=exclude, **limits)
            enumeration("axps", axps, axps.complete, axps.stopped_by)
        if all_cxps:
            running = "cxps"
            cxps = explainer.all_cxps(x, on_found=counted("CXp"), immutable=immutable,
                                      **limits)
            enumeration("cxps", cxps, cxps.complete, cxps.stopped_by)
        else:
            out["cxps"] = single_cxp
    except KeyboardInterrupt as e:
        if isinstance(e, EnumerationInterrupted):
            assert running is not None
            enumeration(running, e.found, False, "interrupted")
        if single_cxp is not None:
            out["cxps"] = single_cxp
        raise ExplainInterrupted({**out, **complete, "interrupted": True}) from None
    out.update(complete)  # False when --max-count / --time-limit cut an enumeration
    return found


