"""The batch path-walker (:mod:`xdt.explain.engines._vectorised`) gives, row by row, the same AXp
and CXps as the per-row path engine, whatever the chunking."""

from __future__ import annotations

import hypothesis.strategies as st
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from reference.batch import (
    MAX_WORD_FEATURES,
    deletion_axps,
    distinct_sets,
    minimal_sets_batch,
    word_dtype,
)
from test_properties import big_instance_strategy, big_trees, instance_strategy, trees
from tiers import examples

import xdt
from xdt.errors import (
    EngineNotAvailableError,
    InstanceShapeError,
    MissingFeatureError,
    MissingValueError,
    UnknownCategoryError,
)
from xdt.explain.engines._vectorised import explain_batch
from xdt.ir import DNF, Branch, CategoricalSplit, Condition, DecisionTree, Feature, Leaf

COLUMNS = ["prediction", "axp", "axp_size", "cxps", "n_cxps"]


def per_row(model, rows) -> pd.DataFrame:
    """The per-row path engine's answers, in the batch's columns."""
    ex = xdt.Explainer(model, engine="path", certificates=False)
    out = []
    for x in rows:
        axp = ex.axp(x).features
        cxps = [e.features for e in ex.all_cxps(x)]
        out.append({"prediction": ex.predict(x), "axp": axp, "axp_size": len(axp),
                    "cxps": cxps, "n_cxps": len(cxps)})
    return pd.DataFrame.from_records(out, columns=COLUMNS)


def assert_same(batch: pd.DataFrame, expected: pd.DataFrame) -> None:
    assert list(batch.columns) == COLUMNS
    assert len(batch) == len(expected)
    for i in range(len(expected)):
        assert batch.iloc[i].to_dict() == expected.iloc[i].to_dict(), f"row {i}"


@st.composite
def tree_and_rows(draw, big: bool = False):
    tree = draw(big_trees(max_nodes=200) if big else trees())
    rows_of = big_instance_strategy(tree) if big else instance_strategy(tree)
    rows = draw(st.lists(rows_of, min_size=1, max_size=12))
    return tree, rows


@settings(max_examples=examples(150), suppress_health_check=[HealthCheck.too_slow])
@given(tree_and_rows(), st.sampled_from([None, 1, 3]), st.booleans())
def test_batch_equals_per_row_engine_on_random_trees(case, chunk_rows, dedupe):
    tree, rows = case
    batch = xdt.Explainer(tree).explain_batch(rows, chunk_rows=chunk_rows, dedupe=dedupe)
    assert_same(batch, per_row(tree, rows))


@settings(max_examples=examples(30), suppress_health_check=[HealthCheck.too_slow,
                                                  HealthCheck.data_too_large])
@given(tree_and_rows(big=True))
def test_batch_equals_per_row_engine_on_big_trees(case):
    """Deep trees with retested features and dead leaves."""
    tree, rows = case
    assert_same(explain_batch(tree, rows), per_row(tree, rows))


@pytest.fixture(scope="module")
def german_tree():
    from xdt.cli._demo_job import load_german
    from xdt.interop._fit import fit_tree

    frame = load_german()
    fit = fit_tree(frame, "class", learner="sklearn", max_depth=6, seed=0)
    return fit.model, frame.drop(columns=["class"])


def test_batch_equals_per_row_engine_on_german_data(german_tree):
    model, X = german_tree
    batch = xdt.Explainer(model).explain_batch(X)
    rows = [X.iloc[i] for i in range(len(X))]
    assert_same(batch.reset_index(drop=True), per_row(model, rows))
    assert (batch["prediction"].to_numpy() == model.predict(X)).all()
    assert batch.index.equals(X.index)


@pytest.mark.slow
def test_batch_on_a_cart_tree_of_unbounded_depth(german_tree):
    from xdt.cli._demo_job import load_german
    from xdt.learn import CARTClassifier

    frame = load_german().iloc[:400]
    X, y = frame.drop(columns=["class"]), frame["class"]
    model = CARTClassifier(max_depth=None).fit(X, y).tree_
    batch = explain_batch(model, X)
    assert_same(batch, per_row(model, [X.iloc[i] for i in range(len(X))]))


def test_chunking_does_not_change_the_answers(german_tree):
    model, X = german_tree
    X = X.iloc[:120]
    whole = explain_batch(model, X)
    for chunk in (1, 7, len(X), 10**6):
        pd.testing.assert_frame_equal(explain_batch(model, X, chunk_rows=chunk), whole)
    pd.testing.assert_frame_equal(explain_batch(model, X, max_memory=1), whole)  # 1 row
    pd.testing.assert_frame_equal(explain_batch(model, X, dedupe=False, chunk_rows=7), whole)
    pd.testing.assert_frame_equal(explain_batch(model, X, max_memory=10**5, chunk_rows=9),
                                  whole)


def test_what_and_records(german_tree):
    model, X = german_tree
    X = X.iloc[:30]
    whole = explain_batch(model, X)
    only_axp = explain_batch(model, X, what="axp")
    assert list(only_axp.columns) == ["prediction", "axp", "axp_size"]
    pd.testing.assert_frame_equal(only_axp, whole[["prediction", "axp", "axp_size"]])
    only_cxps = explain_batch(model, X, what=["cxps"])
    pd.testing.assert_frame_equal(only_cxps, whole[["prediction", "cxps", "n_cxps"]])
    records = explain_batch(model, X, as_frame=False, chunk_rows=4)
    assert not isinstance(records, pd.DataFrame)
    assert list(records) == whole.to_dict("records")


def test_duplicate_rows_and_other_input_forms(german_tree):
    model, X = german_tree
    X = pd.concat([X.iloc[:5], X.iloc[:5]], ignore_index=True)
    frame = explain_batch(model, X)
    assert frame.iloc[:5].reset_index(drop=True).equals(frame.iloc[5:].reset_index(drop=True))
    as_dicts = explain_batch(model, X.to_dict("records"))
    pd.testing.assert_frame_equal(as_dicts, frame)
    one = explain_batch(model, X.iloc[0].to_dict())
    assert len(one) == 1 and one.iloc[0].to_dict() == frame.iloc[0].to_dict()
    empty = explain_batch(model, X.iloc[:0])
    assert len(empty) == 0 and list(empty.columns) == COLUMNS


def test_a_one_leaf_tree_has_empty_explanations():
    tree = DecisionTree([Feature("a", "binary")], ["yes"], Leaf("yes"))
    frame = explain_batch(tree, [[0], [1]])
    assert frame["axp"].tolist() == [(), ()]
    assert frame["cxps"].tolist() == [[], []]


def chain_tree(n: int) -> DecisionTree:
    """``yes`` exactly when b0 = b3 = b_last = 1, over ``n`` binary features."""
    feats = [Feature(f"b{i}", "binary") for i in range(n)]
    node: object = Leaf("no")
    for i in (n - 1, 3, 0):  # b0 = 1 and b3 = 1 and b_last = 1 -> yes
        node = CategoricalSplit(f"b{i}", (Branch((0,), Leaf("no")),
                                          Branch((1,), node if i != n - 1 else Leaf("yes"))))
    return DecisionTree(feats, ["no", "yes"], node)


@pytest.mark.parametrize("n", [MAX_WORD_FEATURES, MAX_WORD_FEATURES + 5])
def test_wide_trees(n):
    """63 features: one uint64 word, rows deduplicated without a single-number key; more:
    the per-row engine."""
    tree = chain_tree(n)
    rng = np.random.default_rng(0)
    rows = rng.integers(0, 2, size=(20, n))
    rows[:5, [0, 3, n - 1]] = 1
    rows[10:12] = rows[5]
    assert_same(explain_batch(tree, rows), per_row(tree, rows.tolist()))
    assert_same(explain_batch(tree, rows, chunk_rows=3), per_row(tree, rows.tolist()))


def test_kernels_on_hand_made_sets():
    pad = np.uint64(2**64 - 1)
    d = np.asarray([[0b011, 0b001, 0b011, 0b110], [0b100, 0b100, 0b100, 0b100]],
                   dtype=np.uint64)
    dist = distinct_sets(d.copy())
    assert dist.tolist() == [[1, 3, 6], [4, int(pad), int(pad)]]
    mins = minimal_sets_batch(dist)
    assert mins.tolist() == [[1, 6], [4, int(pad)]]
    orders = np.asarray([[0, 1, 2], [2, 1, 0]], dtype=np.int64)
    # row 0: drop 0? {1,2} misses {0} -> keep; drop 1 -> {0,2} hits both; drop 2 -> misses
    assert deletion_axps(mins, orders, 3).tolist() == [0b101, 0b100]
    small = np.asarray([[1, 6], [4, 2**16 - 1]], dtype=np.uint16)  # uint16: its own padding
    assert deletion_axps(small, orders, 3).tolist() == [0b101, 0b100]
    assert minimal_sets_batch(distinct_sets(d.astype(np.uint16))).tolist() == [
        [1, 6], [4, 2**16 - 1]]
    assert [word_dtype(n) for n in (0, 15, 16, 31, 32, 63)] == [
        np.uint16, np.uint16, np.uint32, np.uint32, np.uint64, np.uint64]
    with pytest.raises(ValueError):
        word_dtype(64)


def test_a_dnf_is_refused():
    dnf = DNF([Feature(n, "binary") for n in "ab"], [0, 1],
              [[Condition("a", (1,)), Condition("b", (1,))]])
    with pytest.raises(EngineNotAvailableError, match="decision trees.*SAT engine"):
        explain_batch(dnf, [[0, 1]])
    with xdt.Explainer(dnf) as ex, pytest.raises(EngineNotAvailableError, match="engine='sat'"):
        ex.explain_batch([[0, 1]])


def test_bad_rows_and_arguments(german_tree):
    model, X = german_tree
    with pytest.raises(MissingFeatureError):
        explain_batch(model, X.drop(columns=[X.columns[0]]))
    with pytest.raises(InstanceShapeError):
        explain_batch(model, np.zeros((2, 3)))
    bad = X.iloc[:2].copy()
    cat = next(c for c in X.columns if not pd.api.types.is_numeric_dtype(X[c]))
    bad[cat] = "no such value"
    with pytest.raises(UnknownCategoryError):
        explain_batch(model, bad)
    num = next(c for c in X.columns if pd.api.types.is_float_dtype(X[c])
               or pd.api.types.is_integer_dtype(X[c]))
    bad = X.iloc[:2].copy()
    bad[num] = bad[num].astype(float)
    bad.loc[bad.index[0], num] = np.nan
    with pytest.raises(MissingValueError):
        explain_batch(model, bad)
    for kwargs in ({"what": "axps"}, {"what": ()}, {"chunk_rows": 0}, {"chunk_rows": 1.5},
                   {"max_memory": -1}, {"chunk_rows": True}):
        with pytest.raises(ValueError):
            explain_batch(model, X.iloc[:2], **kwargs)
