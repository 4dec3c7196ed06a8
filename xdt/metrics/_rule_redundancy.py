"""Explanation-redundancy of the rules of a decision list, row by row: how many literals of the
firing rule an AXp does without, and which literals of earlier rules it needs instead.

Ignatiev & Marques-Silva, "SAT-Based Rigorous Explanations for Decision Lists" (SAT 2021,
Section 3 and the experiments) observe that the rule that fires is no good explanation of a decision
list's prediction: some of its literals are redundant (on average 12.1% of them in their
experiments, median 6.9%, at most 49%), and it says nothing about why the earlier rules did
not fire. :func:`rule_redundancy_report` measures both on given rows.

Definitions
-----------
For a row ``x`` of a decision list with rules ``t_1 -> c_1, ..., t_m -> c_m`` and default
``c_0``:

* the **firing rule** ``r(x)`` is the first rule whose term holds at ``x`` (``-1``, the
  default, when none does); ``R(x)`` is the set of features it tests (empty for the
  default), ``L(x)`` its literals (a feature tested twice counts twice);
* ``H(x)`` is a minimum set of further features that, held at ``x``'s values together with
  ``R(x)``, keeps every earlier rule false (a minimum hitting set of the sets of features on
  which ``x`` falsifies each earlier rule that ``R(x)`` does not already falsify:
  :func:`xdt.explain.queries._term_order.decision_list_weak_axp`); ``R(x) | H(x)`` is a weak AXp:
  the same rule fires at every point that agrees with ``x`` on it;
* the **AXp** ``A(x)`` is the AXp found by deletion
(:func:`xdt.explain.queries.deletion_axp`:
  start from all features, drop each in turn while the rest still entails the prediction),
  trying the features outside ``R(x) | H(x)`` first, then those of ``H(x)``, then those of
  ``R(x)`` in the rule's order: the firing rule's features are kept as long as possible, and
  ``A(x)`` is a subset of ``R(x) | H(x)``;
* the **redundant literals** of the firing rule are those on features outside ``A(x)``; the
  row's **share of redundant literals** is their number over ``|L(x)|`` (rule rows with at
  least one literal);
* the **why-not-earlier** features are ``A(x) - R(x)``: features of earlier rules that the
  explanation needs;
* the firing rule **is a weak AXp** when ``R(x)`` alone entails the prediction; this holds
  exactly when ``A(x)`` is a subset of ``R(x)`` (fixing ``R(x)`` entails, so deletion drops
  every other feature; conversely a superset of an AXp entails), i.e. exactly when no
  why-not-earlier feature is needed. It does not depend on the deletion order: when the rule
  is no weak AXp, *every* AXp of ``x`` holds a feature outside the rule;
* the firing rule **is an AXp** when it is moreover minimal; this holds exactly when
  ``A(x) == R(x)`` (deletion from a weak AXp returns it unchanged exactly when it is
  minimal). Also independent of the order.

So the shares of rows whose rule is not an AXp, or is not even a weak AXp, are exact
properties of the model and the rows, whatever AXp is computed; the share of redundant
literals is that of the AXp defined above: when the rule is a weak AXp, ``A(x)`` is an AXp
inside the rule, and another AXp inside it may drop other literals, possibly another number
of them. Rows where no rule fires (the default decides) have no rule to measure: they are
counted apart, with the size of their AXp, which is all "why not earlier". A DNF (a rule
set of one class, e.g. RIPPER's) is read as the decision list of its terms in order, each
predicting the DNF's second class, with its first class as default: the
first term that holds is the firing rule, always a weak AXp.

Examples
--------
>>> from xdt.ir import Feature
>>> from xdt.ir._conditions import Condition
>>> from xdt.ir._decision_list import DecisionList
>>> dl = DecisionList([Feature(n, "binary") for n in "abc"], ["no", "yes"],
...                   [([Condition("a", (1,)), Condition("b", (1,))], "yes"),
...                    ([Condition("c", (1,))], "no")], default="yes")
>>> r = rule_redundancy_report(dl, [[1, 1, 1], [0, 1, 1], [0, 0, 0]])
>>> [(row.rule, row.redundant, row.why_not_earlier, row.rule_is_axp) for row in r.rows]
[(0, (), (), True), (1, (), ('a',), False), (-1, (), ('c',), False)]
>>> r.pct_not_weak_axp
50.0
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from xdt.errors import EngineNotAvailableError
from xdt.ir._decision_list import DecisionList
from xdt.ir._instances import as_frame
from xdt.ir._protocol import PATHS, RULES, TERMS, offers

__all__ = ["RowRuleRedundancy", "RuleRedundancy", "RuleRedundancyReport", "as_decision_list",
           "rule_redundancy_report"]

#: xdl-tool's published summary of redundant literals of firing rules (Ignatiev &
#: Marques-Silva, SAT 2021, experiments): mean, median and maximum share, in percent.
XDL_TOOL = {"mean": 12.1, "median": 6.9, "max": 49.0}


@dataclass(frozen=True)
class RowRuleRedundancy:
    """The redundancy analysis of one row (see the module's definitions).

    Attributes
    ----------
    row : int
        Position of the row in the given rows.
    prediction : object
        The predicted class label.
    rule : int
        Index of the firing rule, ``-1`` when no rule fires (the default decides).
    rule_features : tuple of str
        ``R(x)``: the features the firing rule tests, in the rule's order (empty for the
        default).
    n_literals : int
        ``|L(x)|``: the firing rule's literals (0 for the default).
    axp : tuple of str
        ``A(x)``, in feature order.
    redundant : tuple of str
        The firing rule's features outside ``A(x)``, in the rule's order.
    redundant_literals : int
        The firing rule's literals on those features.
    why_not_earlier : tuple of str
        ``A(x) - R(x)``, in feature order.
    rule_is_weak_axp, rule_is_axp : bool
        Whether ``R(x)`` entails the prediction, and whether it is moreover minimal.
    """

    row: int
    prediction: object
    rule: int
    rule_features: tuple[str, ...]
    n_literals: int
    axp: tuple[str, ...]
    redundant: tuple[str, ...]
    redundant_literals: int
    why_not_earlier: tuple[str, ...]
    rule_is_weak_axp: bool
    rule_is_axp: bool

    @property
    def redundant_share(self) -> float | None:
        """``redundant_literals / n_literals`` in [0, 1]; ``None`` for the default or a rule
        without literals (nothing to be redundant)."""
        return self.redundant_literals / self.n_literals if self.n_literals else None


@dataclass(frozen=True)
class RuleRedundancy:
    """One rule's figures over the rows it fires on (``rule == -1``: the default).

    Attributes
    ----------
    rule : int
    label : object
        The class the rule predicts.
    n_literals : int
    n_rows : int
        Rows it fires on.
    pct_mean, pct_max : float or None
        Mean and largest share of its literals that are redundant, in percent, over those
        rows (``None`` for the default, a rule without literals or without rows).
    n_not_axp, n_not_weak_axp : int
        Rows on which the rule is not an AXp, not even a weak AXp.
    mean_axp, mean_why_not_earlier : float or None
        Mean ``|A(x)|`` and ``|A(x) - R(x)|`` over those rows.
    """

    rule: int
    label: object
    n_literals: int
    n_rows: int
    pct_mean: float | None
    pct_max: float | None
    n_not_axp: int
    n_not_weak_axp: int
    mean_axp: float | None
    mean_why_not_earlier: float | None


def _pct(count: int, total: int) -> float | None:
    return 100.0 * count / total if total else None


def _mean(values: Sequence[float]) -> float | None:
    return float(np.mean(values)) if len(values) else None


@dataclass
class RuleRedundancyReport:
    """The rule-redundancy figures of a decision list on given rows
    (see :func:`rule_redundancy_report`).

    Percentages are in ``[0, 100]``; ``None`` where not defined (no row of that kind). The
    row shares are over *rule rows*: rows on which some rule fires (the default rows have no
    rule to measure and are counted apart).

    Attributes
    ----------
    n_rules : int
        Rules of the list (the default not counted).
    n_rows, n_rule_rows, n_default_rows : int
        Rows analysed; those on which a rule fires; those decided by the default.
    pct_mean, pct_median, pct_max : float or None
        Mean, median and largest share of redundant literals of the firing rule, over the
        rule rows whose rule has literals (xdl-tool's statistics).
    pct_rows_redundant : float or None
        Rule rows whose firing rule has at least one redundant literal.
    pct_not_axp : float or None
        Rule rows whose firing rule is not an AXp.
    pct_not_weak_axp : float or None
        Rule rows whose firing rule is not even a weak AXp: every AXp needs features of
        earlier rules (why not earlier).
    mean_literals, mean_axp, mean_why_not_earlier : float or None
        Over rule rows: mean ``|L(x)|``, ``|A(x)|`` and ``|A(x) - R(x)|``.
    mean_default_axp : float or None
        Mean ``|A(x)|`` over the default rows.
    cpu_seconds : float
        CPU time (``time.process_time``) of the analysis.
    rows : list of RowRuleRedundancy
        One entry per row, in the given order.
    rules : list of RuleRedundancy
        One entry per rule that fires on some row, in rule order, then the default
        (``rule == -1``) when it decides some row.
    """

    n_rules: int
    n_rows: int
    n_rule_rows: int
    n_default_rows: int
    pct_mean: float | None = None
    pct_median: float | None = None
    pct_max: float | None = None
    pct_rows_redundant: float | None = None
    pct_not_axp: float | None = None
    pct_not_weak_axp: float | None = None
    mean_literals: float | None = None
    mean_axp: float | None = None
    mean_why_not_earlier: float | None = None
    mean_default_axp: float | None = None
    cpu_seconds: float = 0.0
    rows: list[RowRuleRedundancy] = field(default_factory=list, repr=False)
    rules: list[RuleRedundancy] = field(default_factory=list, repr=False)

    SUMMARY = ("n_rules", "n_rows", "n_rule_rows", "n_default_rows", "pct_mean", "pct_median",
               "pct_max", "pct_rows_redundant", "pct_not_axp", "pct_not_weak_axp",
               "mean_literals", "mean_axp", "mean_why_not_earlier", "mean_default_axp",
               "cpu_seconds")

    def to_dict(self, per_row: bool = False, per_rule: bool = True) -> dict:
        """The summary by attribute name; with ``per_rule`` (default) also ``"rules"``, one
        dict per rule; with ``per_row``, ``"rows"``, one dict per row."""
        out: dict = {name: getattr(self, name) for name in self.SUMMARY}
        if per_rule:
            out["rules"] = [dict(vars(r)) for r in self.rules]
        if per_row:
            out["rows"] = [{**vars(r), "redundant_share": r.redundant_share}
                           for r in self.rows]
        return out

    def __str__(self) -> str:
        def pct(v: float | None, why: str = "no rule row") -> str:
            return f"{v:.1f}%" if v is not None else f"n/a ({why})"

        def num(v: float | None, why: str = "no rule row") -> str:
            return f"{v:.2f}" if v is not None else f"n/a ({why})"

        shares = "no rule row with literals"
        items = [
            ("rules", f"{self.n_rules} (and the default)"),
            ("rows", f"{self.n_rows}: {self.n_rule_rows} fire a rule, {self.n_default_rows} "
                     "the default"),
            ("redundant literals of the firing rule",
             f"mean {pct(self.pct_mean, shares)}, median {pct(self.pct_median, shares)}, "
             f"max {pct(self.pct_max, shares)}"),
            ("rows with a redundant literal", pct(self.pct_rows_redundant)),
            ("rows whose rule is not an AXp", pct(self.pct_not_axp)),
            ("rows whose rule is no weak AXp",
             f"{pct(self.pct_not_weak_axp)} (their AXps need why-not-earlier features)"),
            ("mean literals of the firing rule", num(self.mean_literals)),
            ("mean AXp size (rule rows)", num(self.mean_axp)),
            ("mean why-not-earlier features", num(self.mean_why_not_earlier)),
            ("mean AXp size (default rows)", num(self.mean_default_axp, "none")),
            ("CPU time", f"{self.cpu_seconds:.2f} s"),
        ]
        lines = [f"{label:<40}{value}" for label, value in items]
        return "\n".join(lines)

    def rules_table(self, texts: Sequence[str] | None = None) -> str:
        """The per-rule figures as a text table (``texts``: a readable form of each rule, by
        rule index, to print beside it)."""
        def f(v: float | None, spec: str) -> str:
            return "-" if v is None else format(v, spec)

        head = (f"{'rule':>7} {'rows':>6} {'lits':>4} {'%red':>6} {'%max':>6} {'!AXp':>5} "
                f"{'!weak':>5} {'|AXp|':>5} {'|WNE|':>5}")
        lines = [head]
        for r in self.rules:
            name = "default" if r.rule < 0 else str(r.rule)
            not_axp, not_weak = ((r.n_not_axp, r.n_not_weak_axp) if r.rule >= 0
                                 else ("-", "-"))  # no rule to be an AXp
            line = (f"{name:>7} {r.n_rows:>6} {r.n_literals:>4} {f(r.pct_mean, '.1f'):>6} "
                    f"{f(r.pct_max, '.1f'):>6} {not_axp:>5} {not_weak:>5} "
                    f"{f(r.mean_axp, '.2f'):>5} {f(r.mean_why_not_earlier, '.2f'):>5}")
            if texts is not None and r.rule >= 0:
                line += f"  {texts[r.rule]}"
            lines.append(line)
        return "\n".join(lines)


def as_decision_list(model) -> DecisionList:
    """``model`` as a decision list: itself, or a DNF's terms in order, each predicting its
    second class, with the first as default (a nested k-DNF through its DNF).

    Raises
    ------
    EngineNotAvailableError
        For any other model (a tree: use :func:`xdt.metrics.redundancy_report`).
    """
    if offers(model, RULES):
        return model
    if offers(model, TERMS) and hasattr(model, "to_dnf"):  # a nested k-DNF, through its DNF
        model = model.to_dnf()
    if offers(model, TERMS):
        return DecisionList(model.features, model.classes,
                            [(t, model.classes[1]) for t in model.conditions],
                            model.classes[0], target=model.target,
                            constraints=model.constraints)
    kind = getattr(model, "kind_name", type(model).__name__)
    instead = (": the redundancy of a tree's paths is xdt.metrics.redundancy_report"
               if offers(model, PATHS) else "")
    raise EngineNotAvailableError(
        f"rule redundancy is defined for decision lists and DNFs (rule sets), not for a "
        f"{kind}{instead}")


def rule_redundancy_report(model, X, *, progress: bool = False,
                           solver: str | None = None) -> RuleRedundancyReport:
    """Explanation-redundancy of a decision list's firing rules on the rows ``X``, as measured
    by xdl-tool (Ignatiev & Marques-Silva, "SAT-Based Rigorous Explanations for Decision
    Lists", SAT 2021, experiments).

    For every row: the firing rule, an AXp that keeps the rule's features as long as
    possible, the rule's redundant literals, the features of earlier rules the AXp needs
    (why not earlier), and whether the rule is an AXp or a weak AXp; see the module's
    definitions. Rows with the same cells are analysed once.

    Parameters
    ----------
    model : DecisionList, DNF or NestedKDNF
        A DNF is read as the decision list of its terms (:func:`as_decision_list`).
    X : array-like, DataFrame or list of dicts
        The rows (see :meth:`DecisionList.encode`); they must satisfy the model's background
        constraints, if any.
    progress : bool
        Show a progress bar (tqdm, on stderr) of the distinct rows analysed.
    solver : str, optional
        PySAT solver of the SAT engine (default: the engine's).

    Returns
    -------
    RuleRedundancyReport

    Raises
    ------
    EngineNotAvailableError
        For a model that is neither a decision list nor a DNF.
    InstanceError
        (and subclasses) when a row cannot be read against the model's features, or
        violates a background constraint (:class:`~xdt.errors.ConstraintViolationError`).

    Notes
    -----
    Per distinct row: one deletion (one SAT call under assumptions per feature, on one
    encoding of the list shared by every row) and one minimum hitting set over the earlier
    rules' falsified features (PySAT's Hitman; small, as rules are short). Computing one AXp
    of a decision list is hard in general (Ignatiev & Marques-Silva, Section 3).

    References
    ----------
    A. Ignatiev and J. Marques-Silva, "SAT-Based Rigorous Explanations for Decision Lists",
    SAT 2021 (Section 3: explanations of decision lists, and why the firing rule is not
    one; the experiments: the redundancy of the firing rules measured by xdl-tool).
    Y. Izza, A. Ignatiev and J. Marques-Silva, "On Explaining Decision Trees",
    arXiv:2010.11034, Section 4 (one AXp by deletion).
    """
    from xdt.explain._explainer import Explainer
    dl = as_decision_list(model)
    start = time.process_time()
    frame = as_frame(dl.features, X)
    cells = dl.encode(frame)
    firing = dl.firing_cells(cells) if len(cells) else np.zeros(0, dtype=np.int64)
    predicted = dl.predict_cells(cells) if len(cells) else np.zeros(0, dtype=np.int64)
    names = dl.features.names
    if len(cells):
        unique, first, inverse = np.unique(cells, axis=0, return_index=True,
                                           return_inverse=True)
        inverse = inverse.reshape(-1)
    else:
        unique, first, inverse = cells, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    values = frame.to_numpy(dtype=object)
    kwargs = {} if solver is None else {"solver": solver}
    per_cells: list[tuple] = []
    from tqdm import tqdm

    # Explainer.axp's default order for a decision list is the order of A(x): the features
    # outside R(x) | H(x), then H(x), then R(x) (xdt.explain.queries._term_order)
    with Explainer(dl, "sat", certificates=False, **kwargs) as ex, \
            tqdm(total=len(unique), desc="rule redundancy", unit="row",
                 disable=not progress) as bar:
        for u in range(len(unique)):
            rule = int(firing[first[u]])
            own = list(dl.terms[rule].features) if rule >= 0 else []
            axp = ex.axp(list(values[first[u]]))
            kept = {dl.features.index(name) for name in axp.features}
            per_cells.append((rule, own, kept))
            bar.update()
    rows = []
    for i in range(len(cells)):
        rule, own, kept = per_cells[inverse[i]]
        own_set = set(own)
        lits = dl.terms[rule].literals if rule >= 0 else ()
        rows.append(RowRuleRedundancy(
            row=i, prediction=dl.classes[int(predicted[i])], rule=rule,
            rule_features=tuple(names[f] for f in own), n_literals=len(lits),
            axp=tuple(names[f] for f in sorted(kept)),
            redundant=tuple(names[f] for f in own if f not in kept),
            redundant_literals=sum(1 for lit in lits if lit.feature not in kept),
            why_not_earlier=tuple(names[f] for f in sorted(kept - own_set)),
            rule_is_weak_axp=kept <= own_set, rule_is_axp=kept == own_set))
    report = _summarise(dl, rows)
    report.cpu_seconds = time.process_time() - start
    return report


def _summarise(dl: DecisionList, rows: list[RowRuleRedundancy]) -> RuleRedundancyReport:
    """The summary and per-rule figures of the per-row analyses."""
    fired = [r for r in rows if r.rule >= 0]
    default = [r for r in rows if r.rule < 0]
    shares = [100.0 * r.redundant_share for r in fired if r.redundant_share is not None]
    report = RuleRedundancyReport(
        n_rules=dl.n_rules, n_rows=len(rows), n_rule_rows=len(fired),
        n_default_rows=len(default), rows=rows)
    if shares:
        report.pct_mean = float(np.mean(shares))
        report.pct_median = float(np.median(shares))
        report.pct_max = float(np.max(shares))
    report.pct_rows_redundant = _pct(sum(1 for r in fired if r.redundant), len(fired))
    report.pct_not_axp = _pct(sum(1 for r in fired if not r.rule_is_axp), len(fired))
    report.pct_not_weak_axp = _pct(sum(1 for r in fired if not r.rule_is_weak_axp),
                                   len(fired))
    report.mean_literals = _mean([r.n_literals for r in fired])
    report.mean_axp = _mean([len(r.axp) for r in fired])
    report.mean_why_not_earlier = _mean([len(r.why_not_earlier) for r in fired])
    report.mean_default_axp = _mean([len(r.axp) for r in default])
    by_rule: dict[int, list[RowRuleRedundancy]] = {}
    for r in rows:
        by_rule.setdefault(r.rule, []).append(r)
    for rule in sorted(by_rule, key=lambda p: (p < 0, p)):
        on = by_rule[rule]
        mine = [100.0 * r.redundant_share for r in on if r.redundant_share is not None]
        report.rules.append(RuleRedundancy(
            rule=rule,
            label=dl.default if rule < 0 else dl.classes[int(dl.rule_class[rule])],
            n_literals=on[0].n_literals, n_rows=len(on),
            pct_mean=_mean(mine), pct_max=max(mine) if mine else None,
            n_not_axp=sum(1 for r in on if not r.rule_is_axp),
            n_not_weak_axp=sum(1 for r in on if not r.rule_is_weak_axp),
            mean_axp=_mean([len(r.axp) for r in on]),
            mean_why_not_earlier=_mean([len(r.why_not_earlier) for r in on])))
    return report
