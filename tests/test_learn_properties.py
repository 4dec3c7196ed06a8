"""Property tests of the learners on random data: every fitted tree classifies its training
rows as its leaves say, explanation size never exceeds depth, the structural rules hold, and
SER-DT with factor_expl = 1 is CART wherever CART's tests are all balanced."""

from __future__ import annotations

import hypothesis.strategies as st
import numpy as np
import pandas as pd
from hypothesis import event, given, settings
from tiers import examples

from xdt import Explainer
from xdt.ir import CategoricalSplit, Leaf, ThresholdSplit
from xdt.learn import CARTClassifier, SERDTClassifier
from xdt.learn._criteria import wpm
from xdt.metrics import leaf_depths, leaf_explanation_sizes


@st.composite
def datasets(draw):
    """A small table of ordinal (tied integers or floats), categorical (strings) and bool
    columns, labels of 2-4 classes, and positive weights."""
    n = draw(st.integers(4, 60))
    n_features = draw(st.integers(1, 4))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    columns = {}
    for j in range(n_features):
        kind = draw(st.sampled_from(("int", "float", "cat", "bool")))
        if kind == "int":
            columns[f"f{j}"] = rng.integers(0, draw(st.integers(1, 5)), n).astype(float)
        elif kind == "float":
            columns[f"f{j}"] = rng.normal(size=n).round(draw(st.integers(0, 3)))
        elif kind == "cat":
            columns[f"f{j}"] = rng.choice(list("abcd")[:draw(st.integers(1, 4))], n)
        else:
            columns[f"f{j}"] = rng.random(n) < 0.5
    frame = pd.DataFrame(columns)
    k = draw(st.integers(2, 4))
    # labels depend on the first column a little, so trees have something to find
    noise = rng.integers(0, k, n)
    signal = pd.factorize(frame.iloc[:, 0])[0] % k
    y = np.where(rng.random(n) < 0.6, signal, noise)
    weights = rng.uniform(0.2, 3.0, n) if draw(st.booleans()) else None
    return frame, np.asarray([f"c{v}" for v in y]), weights


learners = st.one_of(
    st.builds(CARTClassifier, max_depth=st.sampled_from((0, 1, 2, 3, 5, None)),
              min_samples_leaf=st.integers(1, 3), criterion=st.sampled_from(("gini",
                                                                              "entropy"))),
    st.builds(SERDTClassifier, factor_expl=st.sampled_from((0.0, 0.5, 0.97, 1.0)),
              max_depth=st.sampled_from((0, 1, 2, 3, 5, None)),
              min_samples_leaf=st.integers(1, 3)))


def node_rows(tree, frame: pd.DataFrame):
    """Yield ``(node, row mask, depth)`` for every node of an IR tree, routing ``frame``."""
    stack = [(tree.root, np.ones(len(frame), dtype=bool), 0)]
    while stack:
        node, mask, depth = stack.pop()
        yield node, mask, depth
        if isinstance(node, ThresholdSplit):
            left = frame[node.feature].to_numpy(dtype=float) <= node.threshold
            stack += [(node.left, mask & left, depth + 1), (node.right, mask & ~left, depth + 1)]
        elif isinstance(node, CategoricalSplit):
            col = frame[node.feature].map(lambda v: int(v) if isinstance(v, bool | np.bool_)
                                          else v)
            for b in node.branches:
                stack.append((b.node, mask & col.isin(b.values).to_numpy(), depth + 1))


@given(datasets(), learners)
@settings(max_examples=examples(120))
def test_fitted_trees_keep_the_rules(data, est):
    frame, y, w = data
    est.fit(frame, y, sample_weight=w)
    tree = est.tree_
    weights = np.ones(len(y)) if w is None else w
    codes = np.searchsorted(est.classes_, y)
    # every training row reaches the leaf the tree's own routing says, and each leaf predicts
    # the weighted majority of the training rows reaching it
    leaf = est.apply(frame)
    sums = np.zeros((tree.n_leaves, len(est.classes_)))
    np.add.at(sums, (leaf, codes), weights)
    assert np.allclose(sums, est.leaf_class_weights_)
    assert [p.class_index for p in tree.paths] == np.argmax(sums, axis=1).tolist()
    assert np.array_equal(est.predict(frame), est.classes_[np.argmax(sums, axis=1)[leaf]])
    # explanation size <= depth for every leaf; depth within the limit
    assert (leaf_explanation_sizes(tree) <= leaf_depths(tree)).all()
    if est.max_depth is not None:
        assert tree.depth <= est.max_depth
    # splitting never lowers the weighted training accuracy below the majority's share
    correct = weights[est.predict(frame) == y].sum()
    assert correct >= np.bincount(codes, weights).max() - 1e-9
    for node, mask, _ in node_rows(tree, frame):
        if isinstance(node, Leaf):
            continue
        children = ([node.left, node.right] if isinstance(node, ThresholdSplit)
                    else [b.node for b in node.branches])
        # each side of a test holds at least min_samples_leaf training rows
        for child, child_mask, _ in [(c, m, d) for c, m, d in node_rows(tree, frame)
                                     if any(c is ch for ch in children)]:
            del child
            assert (child_mask & mask).sum() >= est.min_samples_leaf
        # merged: no two sibling leaves predict the same class
        if all(isinstance(c, Leaf) for c in children):
            assert len({c.label for c in children}) == len(children)


def all_tests_balanced(tree, frame: pd.DataFrame, y: np.ndarray) -> bool:
    """Whether every test of ``tree`` is balanced on the rows reaching it (unit weights):
    ``max(wpm(left), wpm(right)) <= wpm(node) / 2``."""
    labels = np.unique(y)

    def wpm_of(mask):
        counts = np.array([(y[mask] == c).sum() for c in labels], dtype=float)
        return float(wpm(counts, counts.sum()))

    nodes = {id(n): m for n, m, _ in node_rows(tree, frame)}
    for node, mask, _ in node_rows(tree, frame):
        if isinstance(node, ThresholdSplit):
            sides = [nodes[id(node.left)], nodes[id(node.right)]]
        elif isinstance(node, CategoricalSplit):
            sides = [nodes[id(b.node)] for b in node.branches]
        else:
            continue
        if max(wpm_of(s) for s in sides) > wpm_of(mask) / 2 * (1 + 1e-12):
            return False
    return True


@given(datasets(), st.sampled_from((1, 2, 3, None)))
@settings(max_examples=examples(150))
def test_serdt_with_factor_one_is_cart_when_cart_is_balanced(data, depth):
    frame, y, _ = data
    cart = CARTClassifier(max_depth=depth, merge_leaves=False).fit(frame, y)
    ser = SERDTClassifier(factor_expl=1.0, max_depth=depth, merge_leaves=False).fit(frame, y)
    balanced = all_tests_balanced(cart.tree_, frame, y)
    event(f"CART tests all balanced: {balanced}")
    if balanced:
        assert ser.tree_.root == cart.tree_.root
        assert ser.n_fallback_splits_ == 0


def test_serdt_with_factor_one_is_cart_on_a_balanced_case():
    # a case where every CART test is balanced, so the property above is not vacuous:
    # four well separated classes on two features
    rng = np.random.default_rng(0)
    centres = np.array([[0, 0], [0, 10], [10, 0], [10, 10]])
    X = np.repeat(centres, 25, axis=0) + rng.normal(size=(100, 2))
    frame = pd.DataFrame(X, columns=["a", "b"])
    y = np.repeat(["w", "x", "y", "z"], 25)
    cart = CARTClassifier(merge_leaves=False).fit(frame, y)
    assert all_tests_balanced(cart.tree_, frame, y)
    assert cart.tree_.n_leaves == 4
    ser = SERDTClassifier(factor_expl=1.0, merge_leaves=False).fit(frame, y)
    assert ser.tree_.root == cart.tree_.root


@given(datasets())
@settings(max_examples=examples(25))
def test_both_engines_explain_learned_trees_alike(data):
    frame, y, w = data
    tree = SERDTClassifier(max_depth=3).fit(frame, y, sample_weight=w).tree_
    row = frame.iloc[0].to_dict()
    with Explainer(tree) as path, Explainer(tree, engine="sat") as sat:
        assert set(path.axp(row).features) == set(sat.axp(row).features) or \
            path.is_axp(row, sat.axp(row).features)
        assert {frozenset(c.features) for c in path.all_cxps(row)} == \
            {frozenset(c.features) for c in sat.all_cxps(row)}
