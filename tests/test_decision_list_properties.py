"""Property tests of decision lists (xdt.ir._decision_list): on random lists over mixed binary /
categorical / ordinal features, every Explainer method equals the definitions, worked out here
over the whole cell space with an evaluator of our own, and so do the independent checks of
xdt.explain.checks._verify (brute force, box search, the chained CNF of DecisionListCnf).

The evaluator (:func:`first_match`) reads the rules' Conditions on feature *values* (``v in
values``, ``above < v <= upto``), first match wins, and knows nothing of the model's cells,
compiled terms or CNF; the cell space is built from the bounds the rules use (a value at
each bound, one above the largest, and for a categorical feature its domain). So a wrong
compilation of a rule, a wrong cell or a wrong encoding shows up as a disagreement."""

from __future__ import annotations

import itertools
from fractions import Fraction

import hypothesis.strategies as st
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from test_properties import CLASS_LABELS, features_strategy
from tiers import examples

import xdt
from xdt.errors import ConstraintViolationError, NoExplanationError
from xdt.explain.checks import _verify as verify
from xdt.explain.checks._certificates import check_certificate
from xdt.explain.queries._probability import EmpiricalDistribution
from xdt.explain.queries._term_order import decision_list_weak_axp
from xdt.ir import Condition
from xdt.ir._cells import full_mask
from xdt.ir._constraints import Forbidden
from xdt.ir._decision_list import DecisionList

THRESHOLDS = (0.5, 1.5, 2.5, 3.5)
ORDINAL_VALUES = (-1.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 7.0)  # bounds and between

QUIET = [HealthCheck.too_slow, HealthCheck.filter_too_much]
SOME = settings(max_examples=examples(120), deadline=None, suppress_health_check=QUIET)
FEW = settings(max_examples=examples(50), deadline=None, suppress_health_check=QUIET)


# ---------------------------------------------------------------------- random lists
def rotated(items, by: int) -> list:
    by %= len(items)
    return list(items[by:]) + list(items[:by])


@st.composite
def conditions(draw, feature, shift: int = 0):
    """A random condition on ``feature``: a non-empty value set (now and then the whole
    domain: a condition always true), or ``x <= t``, ``t < x`` or ``a < x <= b``. The
    choices are rotated by ``shift`` so that the simplest draws differ from rule to rule."""
    if feature.kind != "ordinal":
        n = len(feature.domain)
        size = n if draw(st.integers(0, 9)) == 0 else min(draw(st.sampled_from((1, 2, 1, 3))),
                                                          n - 1)
        values = rotated(draw(st.permutations(feature.domain)), shift)[:size]
        return Condition(feature.name, tuple(values))
    form = rotated(("upto", "above", "between"), shift)[draw(st.integers(0, 2))]
    t = rotated(THRESHOLDS, shift)
    if form == "upto":
        return Condition(feature.name, upto=draw(st.sampled_from(t)))
    if form == "above":
        return Condition(feature.name, above=draw(st.sampled_from(t)))
    a, b = sorted(draw(st.lists(st.sampled_from(t), min_size=2, max_size=2, unique=True)))
    return Condition(feature.name, above=a, upto=b)


@st.composite
def decision_lists(draw, max_rules: int = 6):
    """Up to ``max_rules`` rules (0 to 3 conditions on distinct features; an empty one always
    holds) over 2-5 mixed features, 2-3 classes, and a default class.

    Sizes are sampled, not drawn as integers (which favour the bounds), and the features,
    values and classes of rule ``i`` are rotated by ``i``: hypothesis's simplest draws then
    give lists whose rules differ and whose classes alternate, rather than one rule
    repeated (a constant model)."""
    features = draw(features_strategy(2, 5))
    classes = draw(st.sampled_from(CLASS_LABELS))[:draw(st.integers(2, 3))]
    n_rules = draw(st.sampled_from(range(max_rules, -1, -1)))
    rules = []
    for i in range(n_rules):
        k = draw(st.sampled_from((2, 1, 2, 3, 1, 2, 3, 1, 2, 0)))
        chosen = rotated(draw(st.permutations(features)), i)[:k]
        label = classes[(i + draw(st.integers(0, len(classes) - 1))) % len(classes)]
        rules.append(([draw(conditions(f, i)) for f in chosen], label))
    default = classes[(n_rules + draw(st.integers(0, len(classes) - 1))) % len(classes)]
    return DecisionList(features, classes, rules, default)


def instances(model):
    values = [st.sampled_from(ORDINAL_VALUES) if f.kind == "ordinal"
              else st.sampled_from(f.domain) for f in model.features]
    return st.tuples(*values).map(lambda vs: dict(zip(model.features.names, vs, strict=True)))


@st.composite
def list_and_instance(draw, max_rules: int = 6):
    """A random list and instance; lists that predict one class everywhere (AXp = {}, no
    CXp) are kept one time in five only."""
    model = draw(decision_lists(max_rules))
    if len(set(Space(model).labels)) == 1:
        assume(draw(st.integers(0, 4)) == 0)
    return model, draw(instances(model))


# ---------------------------------------------------------------------- our own semantics
def holds(cond: Condition, value) -> bool:
    if cond.values is not None:
        return value in cond.values
    return ((cond.above is None or cond.above < value)
            and (cond.upto is None or value <= cond.upto))


def first_match(model: DecisionList, point: dict):
    """The label of the first rule all of whose conditions hold at ``point``, else the
    default: the meaning of a decision list, read off its Conditions."""
    for rule in model.rules():
        if all(holds(c, point[c.feature]) for c in rule.conditions):
            return rule.label
    return model.default


def bounds(model: DecisionList) -> dict[str, list[float]]:
    out: dict[str, set] = {f.name: set() for f in model.features if f.kind == "ordinal"}
    for term in model.conditions:
        for c in term:
            if c.values is None:
                out[c.feature].update(b for b in (c.above, c.upto) if b is not None)
    return {name: sorted(bs) for name, bs in out.items()}


class Space:
    """Every point of a decision list's cell space, built from its rules' bounds, with our
    own cell index per value (an ordinal value's cell: how many bounds lie below it)."""

    def __init__(self, model: DecisionList):
        self.model = model
        self.names = list(model.features.names)
        self.bounds = bounds(model)
        axes = []
        for f in model.features:
            if f.kind == "ordinal":
                bs = self.bounds[f.name]
                axes.append(list(bs) + [(bs[-1] if bs else 0.0) + 1.0])
            else:
                axes.append(list(f.domain))
        self.points = [dict(zip(self.names, vs, strict=True))
                       for vs in itertools.product(*axes)]
        self.labels = [first_match(model, p) for p in self.points]
        self.cells = [self.cell(p) for p in self.points]

    def cell(self, point: dict) -> tuple[int, ...]:
        out = []
        for f in self.model.features:
            v = point[f.name]
            if f.kind == "ordinal":
                out.append(sum(1 for b in self.bounds[f.name] if b < v))
            else:
                out.append(list(f.domain).index(v))
        return tuple(out)

    def escapes(self, x: dict, keep=lambda p: True) -> tuple[object, set[frozenset[int]]]:
        """The label of ``x`` and, for every point of another class (that ``keep``
        accepts), the set of features on which it differs from ``x``."""
        label, cx = first_match(self.model, x), self.cell(x)
        return label, {frozenset(f for f in range(len(cx)) if c[f] != cx[f])
                       for p, c, y in zip(self.points, self.cells, self.labels, strict=True)
                       if y != label and keep(p)}

    def explanations(self, x: dict, keep=lambda p: True) -> tuple[set, set]:
        """All AXps and all CXps of ``x`` by the definitions: ``S`` entails the prediction
        when every point of another class differs from ``x`` somewhere in ``S``."""
        _, escapes = self.escapes(x, keep)
        n = len(self.names)
        subsets = [frozenset(S) for r in range(n + 1)
                   for S in itertools.combinations(range(n), r)]
        weak = [S for S in subsets if all(S & e for e in escapes)]
        free = [T for T in subsets if not all((frozenset(range(n)) - T) & e for e in escapes)]

        def named(sets):
            return {frozenset(self.names[f] for f in S) for S in sets}

        return (named(S for S in weak if not any(T < S for T in weak)),
                named(T for T in free if not any(U < T for U in free)))

    def entails(self, x: dict, masks: dict[str, int]) -> bool:
        """Whether every point whose cell of each named feature is in its mask gets ``x``'s
        label."""
        label = first_match(self.model, x)
        where = [self.names.index(n) for n in masks]
        return all(y == label for c, y in zip(self.cells, self.labels, strict=True)
                   if all((masks[n] >> c[f]) & 1 for n, f in zip(masks, where, strict=True)))


def names(explanations) -> set[frozenset[str]]:
    return {frozenset(e.features) for e in explanations}


# ---------------------------------------------------------------------- every method
@SOME
@given(list_and_instance(), st.data())
def test_every_explainer_method_equals_the_definitions(case, data):
    model, x = case
    space = Space(model)
    axps, cxps = space.explanations(x)
    label = first_match(model, x)
    event(f"{len(axps)} AXps, {len(cxps)} CXps")
    # the model's own predict and the brute force of xdt.explain.checks._verify agree with ours
    assert model.predict([x])[0] == label
    assert np.array_equal(model.predict(space.points).astype(object),
                          np.asarray(space.labels, dtype=object))
    bf = verify.brute_force(model, x)
    assert (bf.prediction, set(bf.axps), set(bf.cxps)) == (label, axps, cxps)
    with xdt.Explainer(model) as ex:
        assert ex.engine == "sat" and ex.predict(x) == label
        assert names(ex.all_axps(x)) == axps
        assert names(ex.all_cxps(x)) == cxps
        for order in (None, "term", "features", "reverse", list(reversed(space.names))):
            assert frozenset(ex.axp(x, order=order).features) in axps
            one = ex.cxp(x, order=order)
            assert (one is None) == (not cxps)
            assert one is None or frozenset(one.features) in cxps
        smallest = ex.smallest_axp(x)
        assert frozenset(smallest.features) in axps
        assert len(smallest) == min(len(a) for a in axps)
        small_cxp = ex.smallest_cxp(x)
        assert (small_cxp is None) == (not cxps)
        if cxps:
            assert frozenset(small_cxp.features) in cxps
            assert len(small_cxp) == min(len(c) for c in cxps)
        assert set(ex.relevant_features(x)) == set().union(*axps)
        assert set(ex.necessary_features(x)) == frozenset.intersection(*axps)
        for _ in range(3):
            subset = frozenset(data.draw(st.sets(st.sampled_from(space.names))))
            weak = any(a <= subset for a in axps)
            assert ex.is_weak_axp(x, subset) == weak == bf.is_weak_axp(subset)
            assert ex.is_axp(x, subset) == (subset in axps)
            assert ex.is_cxp(x, subset) == (subset in cxps)
            point = ex.counterexample(x, subset)
            assert (point is None) == weak
            if point is not None:  # agrees with x on the subset, and is of another class
                assert first_match(model, point) != label
                assert all(space.cell(point)[space.names.index(n)]
                           == space.cell(x)[space.names.index(n)] for n in subset)


@SOME
@given(list_and_instance())
def test_certificates_inflation_and_the_default_order(case):
    model, x = case
    space = Space(model)
    axps, cxps = space.explanations(x)
    label = first_match(model, x)
    with xdt.Explainer(model) as ex:
        axp = ex.axp(x, verify=True)
        assert axp.verified and frozenset(axp.features) in axps
        for name, witness in axp.certificate.witnesses.items():  # freeing it alone breaks it
            assert witness.label != label == axp.prediction
            assert first_match(model, witness.point) == witness.label
            assert all(witness.point[n] == x[n] for n in axp.features if n != name)
        cxp = ex.cxp(x, verify=True)
        if cxp is not None:
            point = cxp.counterexample
            assert first_match(model, point) == cxp.counterexample_class != label
            assert all(point[n] == x[n] for n in space.names if n not in cxp.features)
        ex.all_axps(x, verify=True)
        ex.all_cxps(x, verify=True)
        ex.smallest_axp(x, verify=True)
        ex.smallest_cxp(x, verify=True)
        inflated = ex.axp(x, inflate=True, verify=True)
        check_certificate(model, inflated)
        assert inflated.inflated and inflated.features == axp.features
        masks = dict(zip(inflated.features, inflated.cells, strict=True))
        mine = space.cell(x)
        for n, m in masks.items():
            assert (m >> mine[space.names.index(n)]) & 1  # holds the instance's cell
        assert space.entails(x, masks)  # every point of the inflated box: same class
        for n, m in masks.items():  # maximal: no cell (ordinal: no neighbour) can be added
            f = space.names.index(n)
            n_cells = model.cells[f].n_cells
            if model.features[f].kind == "ordinal":
                lo, hi = (m & -m).bit_length() - 1, m.bit_length() - 1
                assert m == full_mask(hi + 1) & ~full_mask(lo)  # an interval
                extra = [j for j in (lo - 1, hi + 1) if 0 <= j < n_cells]
            else:
                extra = [j for j in range(n_cells) if not (m >> j) & 1]
            for j in extra:
                assert not space.entails(x, {**masks, n: m | (1 << j)})
    # the default ("term") order keeps the AXp inside the weak AXp read off the rules
    cells = model.encode([x])[0]
    weak = frozenset(space.names[f] for f in decision_list_weak_axp(model, cells))
    assert any(a <= weak for a in axps)
    with xdt.Explainer(model) as ex:
        assert frozenset(ex.axp(x).features) <= weak


@SOME
@given(list_and_instance(), st.data())
def test_weights_limits_exclude_and_immutable(case, data):
    model, x = case
    space = Space(model)
    axps, cxps = space.explanations(x)
    weights = {n: data.draw(st.integers(1, 5)) for n in space.names}

    def cost(s):
        return sum(weights[n] for n in s)

    with xdt.Explainer(model) as ex:
        cheapest = ex.smallest_axp(x, weights=weights, verify=True)
        assert frozenset(cheapest.features) in axps
        assert cheapest.cost == cost(cheapest.features) == min(cost(a) for a in axps)
        cheap_cxp = ex.smallest_cxp(x, weights=weights, verify=True)
        assert (cheap_cxp is None) == (not cxps)
        if cxps:
            assert cheap_cxp.cost == min(cost(c) for c in cxps)
        by_weight = ex.all_axps(x, weights=weights)
        assert names(by_weight) == axps
        assert [e.cost for e in by_weight] == sorted(cost(a) for a in axps)
        one = ex.all_axps(x, max_count=1)
        assert len(one) == 1 and frozenset(one[0].features) in axps
        assert one.complete == (len(axps) == 1)
        one = ex.all_cxps(x, max_count=1)
        assert len(one) == min(1, len(cxps))
        assert one.complete == (len(cxps) <= 1)
        exclude = data.draw(st.sets(st.sampled_from(space.names), max_size=2))
        avoiding = {a for a in axps if not a & exclude}
        assert names(ex.all_axps(x, exclude=exclude)) == avoiding
        if avoiding:
            assert frozenset(ex.axp(x, exclude=exclude).features) in avoiding
            assert len(ex.smallest_axp(x, exclude=exclude)) == min(len(a) for a in avoiding)
        else:
            with pytest.raises(NoExplanationError, match="no AXp of the prediction"):
                ex.axp(x, exclude=exclude)
        immutable = data.draw(st.sets(st.sampled_from(space.names), max_size=2))
        actionable = {c for c in cxps if not c & immutable}
        assert names(ex.all_cxps(x, immutable=immutable)) == actionable
        one = ex.cxp(x, immutable=immutable, verify=True)
        assert (one is None) == (not actionable)
        if one is not None:
            assert frozenset(one.features) in actionable
            assert all(one.counterexample[n] == x[n] for n in immutable)


@FEW
@given(list_and_instance(max_rules=4), st.sampled_from((Fraction(1), Fraction(3, 4),
                                                        Fraction(1, 2))))
def test_delta_axp_under_the_uniform_distribution_of_the_cell_space(case, delta):
    """An empirical distribution holding every point of the cell space once: the precision
    of ``S`` is the share of the points agreeing with ``x`` on ``S`` that get ``x``'s
    class, counted here; a delta-AXp keeps it >= delta and loses it by dropping any one
    feature; with delta = 1 it is an AXp."""
    model, x = case
    space = Space(model)
    axps, _ = space.explanations(x)
    label, mine = first_match(model, x), space.cell(x)

    def precision(S) -> Fraction:
        where = [space.names.index(n) for n in S]
        agree = [y for c, y in zip(space.cells, space.labels, strict=True)
                 if all(c[f] == mine[f] for f in where)]
        return Fraction(sum(y == label for y in agree), len(agree))

    dist = EmpiricalDistribution(pd.DataFrame(space.points), model)
    with xdt.Explainer(model) as ex:
        e = ex.delta_axp(x, delta, distribution=dist, verify=True)
        assert e.precision == precision(e.features) >= delta
        for n in e.features:
            assert precision(set(e.features) - {n}) < delta
        assert e.certificate.drops == {n: precision(set(e.features) - {n}) for n in e.features}
        if delta == 1:
            assert frozenset(e.features) in axps
        assert ex.precision(x, e.features, distribution=dist) == e.precision


# ---------------------------------------------------------------------- constraints
@st.composite
def constrained_case(draw):
    model = draw(decision_lists())
    finite = [f for f in model.features if f.kind != "ordinal"]
    items = []
    for _ in range(draw(st.integers(1, 2))):
        if len(finite) < 2:
            break
        a, b = draw(st.permutations(finite))[:2]
        items.append(Forbidden((Condition(a.name, (draw(st.sampled_from(a.domain)),)),
                                Condition(b.name, (draw(st.sampled_from(b.domain)),)))))
    return model.with_constraints(items), items, draw(instances(model))


@SOME
@given(constrained_case())
def test_background_constraints_equal_the_definitions_over_the_allowed_points(case):
    model, items, x = case

    def allowed(point) -> bool:
        return not any(all(point[c.feature] in c.values for c in f.conditions) for f in items)

    assert isinstance(model, DecisionList) and len(model.constraints or ()) == len(items)
    if not allowed(x):
        with pytest.raises(ConstraintViolationError), xdt.Explainer(model) as ex:
            ex.axp(x)
        return
    space = Space(model)
    axps, cxps = space.explanations(x, keep=allowed)
    bf = verify.brute_force(model, x)
    assert (set(bf.axps), set(bf.cxps)) == (axps, cxps)
    with xdt.Explainer(model) as ex:
        assert ex.engine == "sat"
        assert names(ex.all_axps(x, verify=True)) == axps
        assert names(ex.all_cxps(x, verify=True)) == cxps
        assert frozenset(ex.axp(x, inflate=True, verify=True).features) in axps
        assert len(ex.smallest_axp(x)) == min(len(a) for a in axps)
        for e in ex.all_cxps(x):  # counterexamples are points the constraints allow
            assert allowed(e.counterexample)
            assert first_match(model, e.counterexample) != first_match(model, x)


# ---------------------------------------------------------------------- the checks
@SOME
@given(decision_lists(), st.data())
def test_box_search_and_the_chained_cnf_equal_enumeration(model, data):
    """verify.reachable_classes / counterexample_in_box (box search over the rules) and
    verify.sat_reachable_classes / sat_counterexample (DecisionListCnf) on random boxes of
    cells, against the classes of every point of the box by our evaluator."""
    space = Space(model)
    box = [data.draw(st.integers(1, full_mask(c.n_cells))) for c in model.cells]
    inside = [y for c, y in zip(space.cells, space.labels, strict=True)
              if all((m >> j) & 1 for m, j in zip(box, c, strict=True))]
    expected = set(inside)
    assert verify.reachable_classes(model, box) == expected
    assert verify.sat_reachable_classes(model, box) == expected
    held = dict(enumerate(box))
    for k, label in enumerate(model.classes):
        for point in (verify.counterexample_in_box(model, held, k),
                      verify.sat_counterexample(model, box, label)):
            assert (point is None) == (expected <= {label})
            if point is not None:
                assert all((m >> j) & 1 for j, m in zip(point, box, strict=True))
                values = {n: c.value(j) for n, c, j in zip(space.names, model.cells, point,
                                                           strict=True)}
                assert first_match(model, values) != label
        assert verify.sat_entails(model, box, label) == (expected <= {label})
    empty = list(box)
    empty[0] = 0
    assert verify.reachable_classes(model, empty) == set()


@FEW
@given(list_and_instance())
def test_check_axp_check_axp_sat_and_is_cxp_sat(case):
    model, x = case
    axps, cxps = Space(model).explanations(x)
    label = first_match(model, x)
    for axp in axps:
        for report in (verify.check_axp(model, x, axp), verify.check_axp_sat(model, x, axp)):
            assert report.is_axp and report.reachable == {label}
            for point in report.drop_counterexamples.values():
                assert first_match(model, point) != label
    for cxp in cxps:
        assert verify.is_cxp_sat(model, x, cxp)
        for f in cxp:  # CXps form an antichain: one feature less is none
            assert not verify.is_cxp_sat(model, x, cxp - {f})
    if cxps:
        none = verify.check_axp(model, x, [])
        assert not none.entails and first_match(model, none.counterexample) != label
        assert len(none.reachable) >= 2
