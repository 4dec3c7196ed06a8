"""The compiled kernels (:mod:`xdt.explain.engines._kernels`) against independent implementations:
the numpy formulation of the batch path-walker, the SAT engine on trees of more than 64
features (multiword bitsets), and the exact instance reader."""

from __future__ import annotations

import math
import pickle

import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from reference.batch import BatchPlan, deletion_axps, distinct_sets, minimal_sets_batch
from test_properties import instance_strategy, trees
from tiers import examples

import xdt
from xdt.explain import _explainer as explainer_module
from xdt.explain.engines import _compiled as compiled_module
from xdt.explain.engines._compiled import CompiledTree, NumberReader, masks_of
from xdt.explain.engines._oracle import bits
from xdt.explain.engines._vectorised import explain_batch
from xdt.explain.engines._vectorised import explain_rows as kernel_rows
from xdt.explain.queries import _duality as duality
from xdt.ir import Branch, CategoricalSplit, DecisionTree, Feature, Leaf, ThresholdSplit
from xdt.ir._instances import encode_instance


@st.composite
def tree_and_rows(draw):
    tree = draw(trees())
    rows = draw(st.lists(instance_strategy(tree), min_size=1, max_size=10))
    return tree, rows


def numpy_reference(tree, cells):
    """Leaves, AXp masks and per-row sets of CXps from the numpy formulation."""
    plan = BatchPlan(tree)
    leaf = tree.leaf_paths(cells)
    d = distinct_sets(plan.disagreements(cells, leaf))
    cx = minimal_sets_batch(d)
    ax = deletion_axps(cx, plan.orders[leaf], plan.n_features)
    pad = int(np.iinfo(plan.dtype).max)
    return (leaf.tolist(), ax.tolist(),
            [{m for m in row if m != pad} for row in cx.tolist()])


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree_and_rows())
def test_kernels_equal_the_numpy_formulation(case):
    tree, rows = case
    cells = tree.encode(rows)
    leaves, axps, counts, words = kernel_rows(CompiledTree(tree), cells)
    flat = masks_of(words)
    at, cxps = 0, []
    for n in counts.tolist():
        cxps.append(set(flat[at:at + n]))
        assert len(cxps[-1]) == n  # no repeats
        at += n
    assert (leaves.tolist(), masks_of(axps), cxps) == numpy_reference(tree, cells)
    by_slices = kernel_rows(CompiledTree(tree), cells, True, False)  # no D_p: slices
    assert by_slices[0].tolist() == leaves.tolist()
    assert masks_of(by_slices[1]) == masks_of(axps)


def test_literal_walk_equals_the_tables(monkeypatch):
    """Trees whose tables would be too big walk the literals instead: same answers."""
    tree = wide_tree(np.random.default_rng(1), n_features=20, depth=7)
    rows = random_rows(tree, np.random.default_rng(2), 40)
    with_tables = explain_batch(tree, rows, dedupe=False)
    cells = tree.encode(rows)
    per_row = [xdt.Explainer(tree, certificates=False).axp(r).features for r in rows]
    monkeypatch.setattr(compiled_module, "MAX_TABLE_WORDS", 0)
    walked = CompiledTree(tree)
    assert walked.excl.size == 0  # the literal walk is in use
    leaves, axps, counts, words = kernel_rows(walked, cells)
    assert leaves.tolist() == tree.leaf_paths(cells).tolist()
    names = tree.features.names
    assert [tuple(names[f] for f in bits(m)) for m in masks_of(axps)] == per_row
    assert counts.tolist() == with_tables["n_cxps"].tolist()
    assert [tuple(names[f] for f in bits(m)) for m in masks_of(axps)] == list(
        with_tables["axp"])


# ---------------------------------------------------------------- more than 64 features
def wide_tree(rng, n_features: int, depth: int, n_classes: int = 3,
              wide_categories: bool = True) -> DecisionTree:
    """A random tree over ordinal features and categorical ones (some with more than 64
    values, so cell sets take several words), ``n_classes`` classes."""
    feats, domains = [], {}
    for i in range(n_features):
        if i % 3 == 2:
            size = 70 if wide_categories and i % 9 == 2 else int(rng.integers(2, 6))
            domains[f"c{i}"] = list(range(size))
            feats.append(Feature(f"c{i}", "categorical", tuple(range(size))))
        else:
            feats.append(Feature(f"x{i}", "ordinal"))
    classes = [f"k{j}" for j in range(n_classes)]

    def grow(level: int):
        if level == depth or (level > 2 and rng.random() < 0.2):
            return Leaf(classes[int(rng.integers(n_classes))])
        f = feats[int(rng.integers(n_features))]
        if f.name in domains:
            values = domains[f.name]
            cut = rng.random(len(values)) < 0.5
            cut[0], cut[-1] = True, False  # both branches non-empty
            left = tuple(v for v, c in zip(values, cut, strict=True) if c)
            right = tuple(v for v, c in zip(values, cut, strict=True) if not c)
            return CategoricalSplit(f.name, (Branch(left, grow(level + 1)),
                                             Branch(right, grow(level + 1))))
        return ThresholdSplit(f.name, float(rng.integers(-9, 10)) / 2,
                              grow(level + 1), grow(level + 1))

    return DecisionTree(feats, classes, grow(0))


def random_rows(tree, rng, n: int) -> list[dict]:
    rows = []
    for _ in range(n):
        row = {}
        for f, c in zip(tree.features, tree.cells, strict=True):
            if f.kind == "ordinal":
                row[f.name] = float(rng.integers(-12, 13)) / 2
            else:
                row[f.name] = c.domain[int(rng.integers(c.n_cells))]
        rows.append(row)
    return rows


@pytest.mark.parametrize("n_features", [70, 150])
def test_wide_trees_agree_with_the_sat_engine(n_features):
    """Multiword bitsets: the batch and per-row kernels give the SAT engine's AXp (same
    order) and CXps on trees of 70 and 150 features, three classes."""
    tree = wide_tree(np.random.default_rng(n_features), n_features, depth=9)
    assert max(c.n_cells for c in tree.cells) == 70
    rows = random_rows(tree, np.random.default_rng(0), 12)
    batch = explain_batch(tree, rows, dedupe=False)
    assert list(explain_batch(tree, rows, what="axp", dedupe=False)["axp"]) == list(
        batch["axp"])  # feature slices (what="axp") and disagreement sets agree
    path = xdt.Explainer(tree, certificates=False)
    with xdt.Explainer(tree, engine="sat", certificates=False) as sat:
        for i, x in enumerate(rows):
            assert batch["prediction"][i] == sat.predict(x)
            axp = sat.axp(x, order="path").features
            assert batch["axp"][i] == axp == path.axp(x).features
            cxps = {frozenset(e.features) for e in sat.all_cxps(x)}
            assert {frozenset(c) for c in batch["cxps"][i]} == cxps
            assert {frozenset(e.features) for e in path.all_cxps(x)} == cxps
    assert batch["axp_size"].max() > 0
    assert max(f for e in batch["axp"] for f in map(tree.features.names.index, e)) >= 64 or \
        max(f for row in batch["cxps"] for c in row
            for f in map(tree.features.names.index, c)) >= 64  # bits past the first word


# ---------------------------------------------------------------- reading numbers
def test_number_reader_equals_the_exact_reader():
    rng = np.random.default_rng(3)
    tree = wide_tree(rng, 12, depth=6, wide_categories=False)
    reader = NumberReader(tree.cells)
    assert reader.usable
    thresholds = sorted({t for c in tree.cells if hasattr(c, "thresholds")
                         for t in c.thresholds.tolist()})
    for row in random_rows(tree, rng, 200) + [
            {n: (thresholds[i % len(thresholds)] if n.startswith("x") else 0)
             for i, n in enumerate(tree.features.names)}]:
        values = np.asarray([row[n] for n in tree.features.names], dtype=np.float64)
        _, exact = encode_instance(tree.features, tree.cells, row)
        assert tuple(reader.cells(values).tolist()) == exact
    first_ordinal = next(i for i, f in enumerate(tree.features) if f.kind == "ordinal")
    first_categorical = next(i for i, f in enumerate(tree.features) if f.kind != "ordinal")
    for bad, at in ((math.nan, first_ordinal), (math.inf, first_ordinal),
                    (0.5, first_categorical), (99.0, first_categorical)):
        values = np.zeros(len(tree.cells))
        values[at] = bad
        assert reader.cells(values) is None  # left to the exact reader and its errors


def test_number_reader_keeps_the_float32_limit():
    from xdt.ir._cells import IntervalCells

    reader = NumberReader([IntervalCells("x", [0.5], input_dtype="float32")])
    assert reader.cells(np.asarray([3e38])).tolist() == [1]
    assert reader.cells(np.asarray([3.5e38])) is None  # beyond float32: the exact error


def test_string_categories_use_the_exact_reader():
    tree = DecisionTree([Feature("c", "categorical", ("a", "b"))], ["n", "y"],
                        CategoricalSplit("c", (Branch(("a",), Leaf("n")),
                                               Branch(("b",), Leaf("y")))))
    assert not NumberReader(tree.cells).usable
    assert xdt.Explainer(tree).axp({"c": "b"}).rule == "IF c = b THEN y"


# ---------------------------------------------------------------- lazy certificates
def test_certificates_are_built_on_first_access(monkeypatch):
    tree = wide_tree(np.random.default_rng(5), 8, depth=5, wide_categories=False)
    x = random_rows(tree, np.random.default_rng(6), 1)[0]
    made = []
    real = explainer_module.axp_certificate

    def counting(*args, **kwargs):
        made.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(explainer_module, "axp_certificate", counting)
    ex = xdt.Explainer(tree)
    axp = ex.axp(x)
    assert made == []
    cert = axp.certificate
    assert made == [1] and axp.certificate is cert and set(cert.witnesses) == set(axp)
    verified = ex.axp(x, verify=True)
    assert verified.verified and len(made) == 2  # verify builds and checks it at once
    copy = pickle.loads(pickle.dumps(ex.axp(x)))
    assert copy == axp and copy.certificate is not None and len(made) == 3
    cxp = ex.all_cxps(x)[0]
    assert ex.model.predict([cxp.counterexample])[0] == cxp.counterexample_class


# ---------------------------------------------------------------- minimum hitting sets
def smallest_by_brute_force(sets: list[int], n: int) -> int:
    from itertools import combinations

    for size in range(n + 1):
        for chosen in combinations(range(n), size):
            m = sum(1 << f for f in chosen)
            if all(s & m for s in sets):
                return size
    raise AssertionError("no hitting set")


@settings(max_examples=examples(300), deadline=None)
@given(st.integers(1, 10).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.integers(1, 2**n - 1), min_size=1, max_size=14))))
def test_minimum_hitting_set_is_smallest(case):
    n, sets = case
    hs = duality.minimum_hitting_set(sets)
    assert all(s & hs for s in sets)
    assert hs.bit_count() == smallest_by_brute_force(sets, n)


def test_minimum_hitting_set_on_wide_sets_and_the_maxsat_fallback(monkeypatch):
    # features 0, 70 and 130: three words; {70} alone hits the first two sets
    sets = [1 << 70 | 1, 1 << 70 | 1 << 130, 1 << 130 | 1 << 5, 1 << 5 | 1]
    hs = duality.minimum_hitting_set(sets)
    assert hs.bit_count() == 2 and all(s & hs for s in sets)
    monkeypatch.setattr(duality, "MHS_BUDGET", 1)  # the search gives up: Hitman answers
    hs = duality.minimum_hitting_set(sets)
    assert hs.bit_count() == 2 and all(s & hs for s in sets)


def test_entailment_by_kernel_equals_python(monkeypatch):
    """Entailment checks of many CXps run in a kernel: the same answers."""
    from xdt.explain.engines import _path as path_module

    tree = wide_tree(np.random.default_rng(7), 90, depth=9)
    rows = random_rows(tree, np.random.default_rng(8), 6)
    rng = np.random.default_rng(9)
    monkeypatch.setattr(path_module, "_FEW", 0)
    for x in rows:
        q = xdt.Explainer(tree, certificates=False)._query(x, False)
        for _ in range(50):
            fixed = int(rng.integers(0, 2**62)) | int(rng.integers(0, 2**28)) << 62
            assert q.oracle.entails(fixed) == all(d & fixed for d in q.oracle.all_cxps())
        assert q.oracle.entails(q.oracle.universe)


def test_sat_certificates_made_after_the_explainer_closed():
    """The SAT engine's certificates are made on first access too, with a new oracle when
    close() has closed the instance's."""
    from xdt.explain.checks._certificates import check_certificate
    from xdt.ir import DNF, Condition

    dnf = DNF([Feature(n, "binary") for n in "abcd"], [0, 1],
              [[Condition("a", (1,)), Condition("b", (1,))],
               [Condition("c", (1,)), Condition("d", (1,))]])
    x = {"a": 1, "b": 1, "c": 0, "d": 1}
    with xdt.Explainer(dnf) as ex:
        axp = ex.axp(x)
        cxps = ex.all_cxps(x)
    assert axp.features == ("a", "b")
    check_certificate(dnf, axp)  # made now, after close(), and checked with dnf.predict
    assert set(axp.certificate.witnesses) == {"a", "b"}
    for cxp in cxps:
        assert dnf.predict([cxp.counterexample])[0] == cxp.counterexample_class == 0
        check_certificate(dnf, cxp)
