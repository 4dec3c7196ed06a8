"""Property-based tests: on random decision trees over mixed binary / categorical / ordinal
features, the path-walker's explanations equal a brute-force enumeration over the cell space
(xdt.explain.checks._verify), for random instances, path-restricted or not."""

from __future__ import annotations

import hypothesis.strategies as st
from hypothesis import HealthCheck, event, given, settings, target
from tiers import examples

from xdt import Explainer
from xdt.explain.checks import _verify as verify
from xdt.explain.engines._oracle import EntailmentOracle, bits
from xdt.explain.engines._path import PathOracle
from xdt.explain.queries import _duality as duality
from xdt.ir import Branch, CategoricalSplit, DecisionTree, Feature, Leaf, ThresholdSplit
from xdt.ir._cells import full_mask
from xdt.ir._instances import encode_instance

THRESHOLDS = (0.5, 1.5, 2.5, 3.5)  # a small set, so features get retested on a path
ORDINAL_VALUES = (0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, -7.25, 12.0)
CLASS_LABELS = (("no", "yes", "maybe"), (0, 1, 2), (7, -3, 42), ("b", "a", "c"))
ORDERS = ("features", "reverse", "path")


@st.composite
def features_strategy(draw, min_features: int = 2, max_features: int = 5):
    n = draw(st.integers(min_features, max_features))
    out = []
    for i in range(n):
        kind = draw(st.sampled_from(("binary", "categorical", "ordinal")))
        if kind == "categorical":
            size = draw(st.integers(2, 4))
            domain = draw(st.sampled_from((tuple("abcd"[:size]), tuple(range(10, 10 + size)),
                                           ("red", "green", 3, 4.5)[:size])))
            out.append(Feature(f"f{i}", "categorical", domain))
        else:
            out.append(Feature(f"f{i}", kind))
    return out


@st.composite
def partition(draw, domain):
    """A random partition of ``domain`` into 2..len(domain) non-empty blocks."""
    k = len(domain)
    blocks = draw(st.lists(st.integers(0, k - 1), min_size=k, max_size=k))
    if len(set(blocks)) < 2:
        blocks = [0] + [1] * (k - 1)
    groups: dict[int, list] = {}
    for v, b in zip(domain, blocks, strict=True):
        groups.setdefault(b, []).append(v)
    return [tuple(vs) for _, vs in sorted(groups.items())]


@st.composite
def node_strategy(draw, features, classes, depth, level=0):
    """A random subtree of depth <= ``depth``; the top two levels always split."""
    if depth == 0 or (level >= 2 and draw(st.integers(0, 3)) == 0):
        return Leaf(draw(st.sampled_from(classes)))
    feat = draw(st.sampled_from(features))

    def child():
        return draw(node_strategy(features, classes, depth - 1, level + 1))

    if feat.kind == "ordinal":
        return ThresholdSplit(feat.name, draw(st.sampled_from(THRESHOLDS)), child(), child())
    blocks = draw(partition(feat.domain))
    return CategoricalSplit(feat.name, tuple(Branch(vs, child()) for vs in blocks))


@st.composite
def trees(draw):
    features = draw(features_strategy())
    labels = draw(st.sampled_from(CLASS_LABELS))
    classes = labels[:draw(st.integers(2, 3))]
    root = draw(node_strategy(features, classes, draw(st.sampled_from((4, 3, 2, 4, 1)))))
    return DecisionTree(features, classes, root)


BIG_THRESHOLDS = tuple(k + 0.5 for k in range(9))  # few: ordinal features get retested


@st.composite
def big_node_strategy(draw, features, classes, depth, budget: list[int], level=0):
    """A random subtree of depth <= ``depth`` using at most about ``budget[0]`` more nodes
    (the budget is shared by the whole tree); the top three levels always split."""
    if depth == 0 or budget[0] <= 0 or (level >= 3 and draw(st.integers(0, 5)) == 0):
        return Leaf(draw(st.sampled_from(classes)))
    feat = draw(st.sampled_from(features))
    if feat.kind == "ordinal":
        threshold = draw(st.sampled_from(BIG_THRESHOLDS))
        budget[0] -= 2
        left = draw(big_node_strategy(features, classes, depth - 1, budget, level + 1))
        right = draw(big_node_strategy(features, classes, depth - 1, budget, level + 1))
        return ThresholdSplit(feat.name, threshold, left, right)
    blocks = draw(partition(feat.domain))
    budget[0] -= len(blocks)
    return CategoricalSplit(feat.name, tuple(
        Branch(vs, draw(big_node_strategy(features, classes, depth - 1, budget, level + 1)))
        for vs in blocks))


@st.composite
def big_trees(draw, max_nodes: int = 400):
    """Random trees of depth up to 8 with up to a few hundred nodes over 3-7 mixed features
    (features are retested on a path; dead leaves occur)."""
    features = draw(features_strategy(3, 7))
    labels = draw(st.sampled_from(CLASS_LABELS))
    classes = labels[:draw(st.integers(2, 3))]
    budget = [draw(st.integers(30, max_nodes))]
    depth = draw(st.integers(5, 8))
    return DecisionTree(features, classes,
                        draw(big_node_strategy(features, classes, depth, budget)))


def instance_strategy(tree, ordinal_values=ORDINAL_VALUES, low: float = -5, high: float = 5):
    """Instances of ``tree``: ordinal values from ``ordinal_values`` (thresholds and
    neighbours) or any float in ``[low, high]``; domain values otherwise."""
    values = []
    for f in tree.features:
        if f.kind == "ordinal":
            values.append(st.one_of(st.sampled_from(ordinal_values),
                                    st.floats(low, high, allow_nan=False)))
        else:
            values.append(st.sampled_from(f.domain))
    return st.tuples(*values).map(lambda vs: dict(zip(tree.features.names, vs, strict=True)))


@st.composite
def tree_and_instance(draw):
    tree = draw(trees())
    return tree, draw(instance_strategy(tree))


def names(explanations) -> set[frozenset[str]]:
    return {frozenset(e.features) for e in explanations}


SETTINGS = settings(max_examples=examples(400), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(tree_and_instance(), st.booleans())
def test_all_axps_and_cxps_equal_brute_force(case, restricted):
    tree, x = case
    ex = Explainer(tree)
    bf = verify.brute_force(tree, x, path_restricted=restricted)
    axps = names(ex.all_axps(x, path_restricted=restricted))
    cxps = names(ex.all_cxps(x, path_restricted=restricted))
    assert axps == bf.axps
    assert cxps == bf.cxps
    # duality: every AXp hits every CXp
    assert all(a & c for a in axps for c in cxps)
    for order in ORDERS:
        assert frozenset(ex.axp(x, path_restricted=restricted, order=order).features) in axps
    for order in ORDERS:
        one = ex.cxp(x, path_restricted=restricted, order=order)
        if bf.cxps:
            assert frozenset(one.features) in cxps
        else:
            assert one is None
    smallest = ex.smallest_axp(x, path_restricted=restricted)
    assert len(smallest) == min(len(a) for a in bf.axps)
    assert frozenset(smallest.features) in bf.axps
    assert set(ex.relevant_features(x, path_restricted=restricted)) == bf.relevant
    assert set(ex.necessary_features(x, path_restricted=restricted)) == bf.necessary


@SETTINGS
@given(tree_and_instance())
def test_path_redundancy_equals_brute_force(case):
    tree, x = case
    ex = Explainer(tree)
    bf = verify.brute_force(tree, x, path_restricted=True)
    path = frozenset(ex.path_features(x))
    assert bf.candidates == path
    assert ex.path_is_redundant(x) == (bf.axps != {path})


@SETTINGS
@given(tree_and_instance(), st.booleans(), st.data())
def test_membership_queries_equal_brute_force(case, restricted, data):
    tree, x = case
    ex = Explainer(tree)
    bf = verify.brute_force(tree, x, path_restricted=restricted)
    for _ in range(4):
        subset = data.draw(st.sets(st.sampled_from(tree.features.names)))
        inside = frozenset(s for s in subset if s in bf.candidates)
        assert ex.is_weak_axp(x, inside, path_restricted=restricted) == bf.is_weak_axp(inside)
        assert ex.is_axp(x, inside, path_restricted=restricted) == bf.is_axp(inside)
        assert ex.is_cxp(x, inside, path_restricted=restricted) == bf.is_cxp(inside)
    for a in bf.axps:  # and the known answers themselves
        assert ex.is_axp(x, a, path_restricted=restricted)
        assert ex.is_weak_axp(x, a, path_restricted=restricted)
        for f in a:
            assert not ex.is_weak_axp(x, a - {f}, path_restricted=restricted)
    for c in bf.cxps:
        assert ex.is_cxp(x, c, path_restricted=restricted)


@SETTINGS
@given(tree_and_instance(), st.booleans())
def test_cxp_counterexamples_change_the_prediction(case, restricted):
    tree, x = case
    ex = Explainer(tree)
    prediction = ex.predict(x)
    allowed = None
    if restricted:
        path = tree.paths[int(tree.leaf_paths(tree.encode([x]))[0])]
        allowed = path.masks
    for cxp in ex.all_cxps(x, path_restricted=restricted):
        point = cxp.counterexample
        assert point is not None
        assert cxp.counterexample_class != prediction
        assert tree.predict([point])[0] == cxp.counterexample_class
        # the point changes only the CXp's features (within the path's literals otherwise)
        for f, name in enumerate(tree.features.names):
            if name in cxp.features:
                continue
            if restricted and f in allowed:
                assert (allowed[f] >> tree.cells[f].cell_of(point[name])) & 1
            elif not restricted:
                assert point[name] == x[name]


@SETTINGS
@given(tree_and_instance(), st.booleans())
def test_axps_pass_the_independent_check(case, restricted):
    tree, x = case
    ex = Explainer(tree)
    for axp in ex.all_axps(x, path_restricted=restricted):
        report = verify.check_axp(tree, x, axp.features, path_restricted=restricted)
        assert report.is_axp
        for point in report.drop_counterexamples.values():
            assert tree.predict([point])[0] != report.prediction


class HiddenCxps(EntailmentOracle):
    """An oracle that answers entailment but does not list its CXps, so the generic
    hitting-set loop of :func:`duality.enumerate_axps` has to discover them."""

    def __init__(self, inner: EntailmentOracle):
        self.inner = inner
        self.universe = inner.universe

    def entails(self, fixed: int) -> bool:
        return self.inner.entails(fixed)

    def counterexample(self, fixed: int):
        return self.inner.counterexample(fixed)

    def counterexample_cells(self, held):
        return self.inner.counterexample_cells(held)

    def all_cxps(self):
        return None


def path_oracle(tree, x, restricted: bool) -> PathOracle:
    _, cells = encode_instance(tree.features, tree.cells, x)
    path = tree.paths[int(tree.leaf_paths([cells])[0])]
    if restricted:
        allowed = [path.masks.get(f, full_mask(c.n_cells)) for f, c in enumerate(tree.cells)]
        universe = sum(1 << f for f in path.masks)
    else:
        allowed = [1 << c for c in cells]
        universe = full_mask(len(cells))
    return PathOracle(tree, cells, allowed, universe, path.class_index)


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree_and_instance(), st.booleans())
def test_generic_duality_loop(case, restricted):
    tree, x = case
    hidden = HiddenCxps(path_oracle(tree, x, restricted))
    bf = verify.brute_force(tree, x, path_restricted=restricted)

    def named(masks):
        return {frozenset(tree.features.names[f] for f in bits(m)) for m in masks}

    axps = list(duality.enumerate_axps(hidden))
    assert len(axps) == len(set(axps))
    assert named(axps) == bf.axps
    sizes = [m.bit_count() for m in axps]
    assert sizes == sorted(sizes)  # smallest first
    assert named(duality.enumerate_cxps(hidden)) == bf.cxps
    assert duality.smallest_axp(hidden).bit_count() == min(len(a) for a in bf.axps)


def test_retested_features_and_dead_leaves():
    """A hand-made tree: an ordinal feature retested on a path (with a dead leaf) and a
    categorical feature re-split by multi-value branches."""
    feats = [Feature("x", "ordinal"), Feature("c", "categorical", ("a", "b", "c", "d")),
             Feature("b", "binary")]
    root = ThresholdSplit("x", 2.5,
                          ThresholdSplit("x", 3.5, Leaf("p"), Leaf("q")),  # x > 3.5: dead
                          CategoricalSplit("c", (
                              Branch(("a", "b"), CategoricalSplit("c", (
                                  Branch(("a", "c"), Leaf("q")),
                                  Branch(("b", "d"), CategoricalSplit("b", (
                                      Branch((0,), Leaf("p")), Branch((1,), Leaf("r")))))))),
                              Branch(("c", "d"), Leaf("p")))))
    tree = DecisionTree(feats, ["p", "q", "r"], root)
    assert [p.consistent for p in tree.paths].count(False) == 1
    ex = Explainer(tree)
    for x in ({"x": 1.0, "c": "a", "b": 1}, {"x": 3.0, "c": "b", "b": 0},
              {"x": 2.5, "c": "d", "b": 1}, {"x": 9.0, "c": "b", "b": 1}):
        for restricted in (False, True):
            bf = verify.brute_force(tree, x, path_restricted=restricted)
            assert names(ex.all_axps(x, path_restricted=restricted)) == bf.axps
            assert names(ex.all_cxps(x, path_restricted=restricted)) == bf.cxps
    # x <= 2.5 alone entails 'p': the 'q' leaf below it (x > 3.5) is dead
    assert names(ex.all_axps({"x": 1.0, "c": "a", "b": 1})) == {frozenset({"x"})}


# ---------------------------------------------------------------------- the SAT engine
BRUTE_FORCE_POINTS = 50_000
"""Largest cell space the big-tree tests also enumerate by brute force."""


def cell_space_size(tree) -> int:
    n = 1
    for c in tree.cells:
        n *= c.n_cells
    return n


def big_instance_strategy(tree):
    return instance_strategy(tree, BIG_THRESHOLDS + (0.0, 4.0, 9.0, -3.0), -1, 10)


@st.composite
def big_tree_and_instance(draw):
    tree = draw(big_trees())
    return tree, draw(big_instance_strategy(tree))


BIG = settings(max_examples=examples(70), deadline=None,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@BIG
@given(big_tree_and_instance(), st.data())
def test_sat_path_and_brute_force_agree_on_big_trees(case, data):
    """The SAT engine, the path engine and (on small cell spaces) brute force give the same
    AXps and CXps; each engine's explanations are explanations for the other."""
    tree, x = case
    target(float(tree.n_nodes), label="nodes")  # steer towards trees of hundreds of nodes
    small = cell_space_size(tree) <= BRUTE_FORCE_POINTS
    event("with brute force" if small else "cell space too big for brute force")
    event(f"nodes: {'<50' if tree.n_nodes < 50 else '50-149' if tree.n_nodes < 150 else '150+'}")
    path = Explainer(tree)
    with Explainer(tree, engine="sat") as sat:
        prediction = sat.predict(x)
        assert prediction == path.predict(x)
        for restricted in (False, True):
            kw = {"path_restricted": restricted}
            sat_axps, path_axps = sat.all_axps(x, **kw), path.all_axps(x, **kw)
            sat_cxps, path_cxps = sat.all_cxps(x, **kw), path.all_cxps(x, **kw)
            assert sat_axps.complete and sat_cxps.complete
            assert names(sat_axps) == names(path_axps)
            assert names(sat_cxps) == names(path_cxps)
            assert len(sat_axps) == len(names(sat_axps))  # no duplicates
            if small:
                bf = verify.brute_force(tree, x, path_restricted=restricted,
                                        max_points=BRUTE_FORCE_POINTS)
                assert names(sat_axps) == bf.axps
                assert names(sat_cxps) == bf.cxps
            smallest = min(len(a) for a in path_axps)
            assert len(sat.smallest_axp(x, **kw)) == len(path.smallest_axp(x, **kw)) == smallest
            for order in ORDERS:
                for one, other in ((sat, path), (path, sat)):
                    axp = one.axp(x, order=order, **kw)
                    assert other.is_axp(x, axp.features, **kw), (order, axp)
                    cxp = one.cxp(x, order=order, **kw)
                    if cxp is None:
                        assert not path_cxps
                    else:
                        assert other.is_cxp(x, cxp.features, **kw), (order, cxp)
            for cxp in sat_cxps:  # the SAT models are real counterexamples
                assert cxp.counterexample_class != prediction
                assert tree.predict([cxp.counterexample])[0] == cxp.counterexample_class
            for _ in range(3):
                subset = data.draw(st.sets(st.sampled_from(tree.features.names)))
                assert sat.is_weak_axp(x, subset, **kw) == path.is_weak_axp(x, subset, **kw)
        assert sat.path_is_redundant(x) == path.path_is_redundant(x)
