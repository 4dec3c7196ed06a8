"""Path redundancy (xdt.explain.queries._redundant_paths, Algorithms 1-2 of Izza et al.) against an
independent brute force over leaf boxes, built from the raw tree and not through the IR's
cells, literals or paths.

A leaf's *box* is, per feature, what its path allows: an interval ``(lo, hi]`` of the reals
for an ordinal feature, a set of values for a categorical or binary one. A leaf is dead when
some feature's part of its box is empty. Two boxes meet when every feature's parts do. A live
path is redundant iff some feature it tests can be freed (its part of the box replaced by the
whole domain) while the relaxed box meets no live leaf box of another class; an extracted
PI-explanation must keep the box away from every other-class leaf (sufficient) and lose that
when any one more feature is freed (minimal).

The trees: random IR trees (hypothesis; boxes from walking the node objects) and seeded
scikit-learn trees fitted on random data with numeric, integer, binary and categorical
(one-hot) columns, whose boxes come from the estimator's ``tree_`` arrays and the encoder's
column map.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from test_properties import big_trees, trees
from tiers import examples

from xdt.explain.queries._redundant_paths import path_redundancy
from xdt.interop._fit import fit_sklearn_tree
from xdt.ir import DecisionTree, Leaf, ThresholdSplit

# a box: feature name -> (lo, hi) for an ordinal feature, frozenset of values otherwise
Box = dict[str, object]


def meets(a: Box, b: Box) -> bool:
    for name, part in a.items():
        other = b[name]
        if isinstance(part, tuple):
            if not max(part[0], other[0]) < min(part[1], other[1]):
                return False
        elif not part & other:
            return False
    return True


def empty(box: Box) -> bool:
    return any((not p[0] < p[1]) if isinstance(p, tuple) else not p for p in box.values())


class Leafbox:
    """One leaf of the raw tree: its class, its box and the features its path tests (in
    order of first test, with the number of tests)."""

    def __init__(self, label: object, box: Box, tested: list[str]):
        self.label = label
        self.box = box
        self.tested = list(dict.fromkeys(tested))
        self.n_tests = {f: tested.count(f) for f in self.tested}


def full_box(domains: dict[str, object]) -> Box:
    return {n: ((-math.inf, math.inf) if d is None else frozenset(d))
            for n, d in domains.items()}


def relaxed(leaf: Leafbox, free: set[str], domains: dict[str, object]) -> Box:
    whole = full_box(domains)
    return {n: (whole[n] if n in free else part) for n, part in leaf.box.items()}


def blocked(box: Box, label: object, live: list[Leafbox]) -> bool:
    """No live leaf of another class has a box that meets ``box``."""
    return not any(o.label != label and meets(box, o.box) for o in live)


def brute_force(leaves: list[Leafbox], domains: dict[str, object]) -> list[bool]:
    """Per live leaf (in the given order): is its path redundant?"""
    live = [leaf for leaf in leaves if not empty(leaf.box)]
    return [any(blocked(relaxed(leaf, {f}, domains), leaf.label, live) for f in leaf.tested)
            for leaf in live]


def check(leaves: list[Leafbox], domains: dict[str, object], report) -> None:
    """``report`` (path_redundancy of the same tree) agrees with the brute force, path by
    path, and its PI-explanations are sufficient and minimal by the boxes."""
    live_index = [k for k, leaf in enumerate(leaves) if not empty(leaf.box)]
    assert [r.path for r in report] == live_index
    live = [leaves[k] for k in live_index]
    expected = brute_force(leaves, domains)
    assert [r.redundant for r in report] == expected
    for r, leaf in zip(report, live, strict=True):
        assert list(r.features) == leaf.tested
        assert r.n_literals == sum(leaf.n_tests.values())
        free = set(leaf.tested) - set(r.pi_explanation)
        assert blocked(relaxed(leaf, free, domains), leaf.label, live), (r, leaf.box)
        for g in r.pi_explanation:
            assert not blocked(relaxed(leaf, free | {g}, domains), leaf.label, live), (r, g)
        assert r.redundant_literals == sum(leaf.n_tests[f] for f in free)


# ---------------------------------------------------------------- random IR trees


def ir_leaves(tree: DecisionTree) -> tuple[list[Leafbox], dict[str, object]]:
    """The boxes of ``tree``'s leaves, depth-first (left / first branch first), from the
    node objects: thresholds and branch value sets, no cells."""
    domains = {f.name: (None if f.kind == "ordinal" else tuple(f.domain))
               for f in tree.features}
    out: list[Leafbox] = []
    stack = [(tree.root, full_box(domains), [])]
    while stack:
        node, box, tested = stack.pop()
        if isinstance(node, Leaf):
            out.append(Leafbox(node.label, box, tested))
            continue
        name = node.feature
        if isinstance(node, ThresholdSplit):
            lo, hi = box[name]
            t = float(node.threshold)
            stack.append((node.right, {**box, name: (max(lo, t), hi)}, tested + [name]))
            stack.append((node.left, {**box, name: (lo, min(hi, t))}, tested + [name]))
            continue
        for b in reversed(node.branches):
            stack.append((b.node, {**box, name: box[name] & frozenset(b.values)},
                          tested + [name]))
    return out, domains


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trees())
def test_random_trees_match_the_leaf_box_brute_force(tree):
    leaves, domains = ir_leaves(tree)
    check(leaves, domains, path_redundancy(tree))


@settings(max_examples=examples(30), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(big_trees(max_nodes=200))
def test_big_random_trees_match_the_leaf_box_brute_force(tree):
    leaves, domains = ir_leaves(tree)
    check(leaves, domains, path_redundancy(tree))


# ---------------------------------------------------------------- scikit-learn trees


def random_frame(seed: int, n: int = 300) -> pd.DataFrame:
    """Numeric, integer, binary and categorical columns; labels from a noisy rule over some
    of them (3 classes for odd seeds)."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({
        "u": rng.normal(size=n).round(2),
        "k": rng.integers(0, 6, n),
        "flag": rng.integers(0, 2, n),
        "colour": rng.choice(["red", "green", "blue", "grey"], n),
        "size": rng.choice(["S", "M", "L"], n),
    })
    score = frame["u"] + (frame["colour"] == "red") - 0.3 * frame["k"] + frame["flag"]
    score = score + rng.normal(scale=0.7, size=n)
    if seed % 2:
        frame["y"] = np.where(score > 0.5, "hi", np.where(score > -1, "mid", "lo"))
    else:
        frame["y"] = np.where(score > 0, "hi", "lo")
    return frame


def sklearn_leaves(fit) -> tuple[list[Leafbox], dict[str, object]]:
    """The boxes of the scikit-learn tree's leaves, depth-first (left first), from
    ``estimator.tree_`` (children, feature, threshold, value) and the encoder's column map
    (which original feature, and which value for a one-hot indicator, each column is)."""
    encoder, estimator = fit.encoder, fit.estimator
    features = encoder.features_
    domains = {f.name: (None if f.kind == "ordinal" else
                        (0, 1) if f.kind == "binary" else tuple(f.domain))
               for f in features}
    t = estimator.tree_
    out: list[Leafbox] = []
    stack = [(0, full_box(domains), [])]
    while stack:
        node, box, tested = stack.pop()
        if t.children_left[node] < 0:
            label = estimator.classes_[int(np.argmax(t.value[node][0]))]
            out.append(Leafbox(label, box, tested))
            continue
        fi, value = encoder.columns_[int(t.feature[node])]
        name = features[fi].name
        thr = float(t.threshold[node])
        part = box[name]
        if isinstance(part, tuple):  # a numeric column: x <= thr goes left
            left, right = (part[0], min(part[1], thr)), (max(part[0], thr), part[1])
        elif value is None:  # a 0/1 column
            left = frozenset(v for v in part if v <= thr)
            right = frozenset(v for v in part if v > thr)
        else:  # the indicator of ``value``: 0 goes left
            left, right = part - {value}, part & {value}
        stack.append((int(t.children_right[node]), {**box, name: right}, tested + [name]))
        stack.append((int(t.children_left[node]), {**box, name: left}, tested + [name]))
    return out, domains


def point_in(box: Box) -> dict[str, object]:
    """A row inside ``box``: the largest float32 value up to the upper end of an interval
    (scikit-learn compares float32 copies of the inputs with float64 thresholds), or one
    past its finite lower end; the smallest value of a set."""
    row = {}
    for name, part in box.items():
        if isinstance(part, tuple):
            lo, hi = part
            if math.isfinite(hi):
                v = np.float32(hi)
                row[name] = float(v if float(v) <= hi else np.nextafter(v, np.float32(-np.inf)))
            else:
                row[name] = lo + 1 if math.isfinite(lo) else 0.0
        else:
            row[name] = sorted(part, key=str)[0]
    return row


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("depth", [4, None])
def test_scikit_learn_trees_match_the_leaf_box_brute_force(seed, depth):
    frame = random_frame(seed)
    fit = fit_sklearn_tree(frame, "y", max_depth=depth, seed=seed,
                           categorical=["k"] if seed % 4 == 3 else None)
    leaves, domains = sklearn_leaves(fit)
    # the boxes are right: a row built inside each box reaches that leaf of the estimator
    rows = pd.DataFrame([point_in(leaf.box) for leaf in leaves])[list(domains)]
    reached = fit.estimator.apply(fit.encoder.transform(rows))
    leaf_ids = np.flatnonzero(fit.estimator.tree_.children_left < 0)
    dfs = [int(i) for i in sklearn_dfs_leaves(fit.estimator.tree_)]
    assert sorted(dfs) == leaf_ids.tolist()
    assert reached.tolist() == dfs
    model = fit.model
    assert [str(p.label) for p in model.paths] == [str(leaf.label) for leaf in leaves]
    report = path_redundancy(model)
    check(leaves, domains, report)
    # and the trees are varied enough to test something: some paths redundant, some not
    if depth is None or seed < 4:
        assert 0 < sum(r.redundant for r in report) < len(report), seed


def sklearn_dfs_leaves(t) -> list[int]:
    """The leaf node ids of a scikit-learn ``tree_`` depth-first, left first."""
    out, stack = [], [0]
    while stack:
        n = stack.pop()
        if t.children_left[n] < 0:
            out.append(n)
        else:
            stack.extend((int(t.children_right[n]), int(t.children_left[n])))
    return out
