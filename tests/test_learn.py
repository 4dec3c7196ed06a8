"""The learners of xdt.learn: hand-worked cases of Souza et al. (NeurIPS 2022) — wpm, the
balanced-test condition, the three-way split, sibling merging — the estimators' conventions
and errors, and agreement with scikit-learn's splitter."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from reference.criteria import entropy, gini
from reference.splitter import Splitter

from xdt import Explainer, load_model, save_model
from xdt.errors import (
    DataError,
    InstanceError,
    InstanceShapeError,
    MissingValueError,
    NotFittedError,
    ParameterError,
    UnknownCategoryError,
)
from xdt.ir import Branch, CategoricalSplit, Leaf, ThresholdSplit
from xdt.learn import CARTClassifier, SERDTClassifier
from xdt.learn._criteria import pair_count, wpm
from xdt.learn._data import read_training_data
from xdt.learn._serdt import preprocess_weights, three_way_split
from xdt.learn._splitter import Split


def splitter_for(X, y, weight=None, with_wpm=True, criterion="gini") -> Splitter:
    data = read_training_data(np.asarray(X, dtype=float))
    classes, codes = np.unique(np.asarray(y), return_inverse=True)
    w = np.ones(len(codes)) if weight is None else np.asarray(weight, dtype=float)
    return Splitter(data, codes, w, len(classes), criterion, with_wpm=with_wpm)


# ---------------------------------------------------------------------- criteria
def test_pair_count_and_wpm_by_hand():
    # classes A, A, A, B, C, C: pairs of different classes 3*1 + 3*2 + 1*2 = 11
    assert pair_count(np.array([3, 1, 2])) == 11
    # wpm = P * w with w the total weight 0.5 * 6
    assert wpm(np.array([3, 1, 2]), 3.0) == 33
    assert pair_count(np.array([5, 0])) == 0          # a pure set has no misclassified pair
    assert gini(np.array([3.0, 1.0])) == pytest.approx(1 - 9 / 16 - 1 / 16)
    assert entropy(np.array([1.0, 1.0])) == pytest.approx(1.0)
    assert entropy(np.array([4.0, 0.0])) == 0.0


def test_block_wpm_of_every_threshold_by_hand():
    # x sorted: 0 0 1 2 with classes A B A B, unit weights. Thresholds after positions
    # 1 (x <= 0.5) and 2 (x <= 1.5); position 0 splits equal values and is not a candidate.
    sp = splitter_for([[0], [0], [1], [2]], list("ABAB"))
    node = sp.root()
    (block,) = list(sp.blocks(node))
    assert block.valid.tolist() == [[False, True, True]]
    # x <= 0.5: left {A, B}: P=1, w=2 -> 2; right {A, B}: 2
    # x <= 1.5: left {A, B, A}: P=2, w=3 -> 6; right {B}: 0
    assert block.wpm_left[0, 1:].tolist() == [2.0, 6.0]
    assert block.wpm_right[0, 1:].tolist() == [2.0, 0.0]
    # split impurity of x <= 0.5: 2/4 * 1/2 + 2/4 * 1/2
    assert block.impurity[0, 1] == pytest.approx(0.5)
    # x <= 1.5: 3/4 * (1 - 4/9 - 1/9) + 1/4 * 0 = 1/3
    assert block.impurity[0, 2] == pytest.approx(1 / 3)


def test_block_wpm_with_unequal_weights():
    # P counts rows, w sums weights (Section 5): left {A (w 3), B (w 1)} -> P=1, w=4
    sp = splitter_for([[0], [0], [1], [2]], list("ABAB"), weight=[3, 1, 1, 1])
    (block,) = list(sp.blocks(sp.root()))
    assert block.wpm_left[0, 1] == pytest.approx(4.0)
    assert block.wpm_right[0, 1] == pytest.approx(2.0)     # {A, B}, w = 2
    assert block.wpm_left[0, 2] == pytest.approx(2 * 5)    # {A, B, A}: P = 2, w = 5


# ---------------------------------------------------------------------- balanced tests
# Ten rows, eight of class A and two of B: wpm(S) = 8*2 * 10 = 160, half = 80.
# x1 = 1 isolates two A rows: the best Gini test (3/10) but not balanced — the right child
# {6 A, 2 B} has wpm 12 * 8 = 96 > 80. x2 = 1 holds {3 A, 1 B}: children wpm 5*1*6 = 30 and
# 3*1*4 = 12, balanced, with split Gini 0.1667 + 0.15 = 19/60, below the node's 0.32.
BALANCE_X = np.array([[1, 0], [1, 0], [0, 1], [0, 1], [0, 1], [0, 0], [0, 0], [0, 0],
                      [0, 1], [0, 0]], dtype=float)
BALANCE_Y = list("AAAAAAAABB")


def test_balanced_condition_by_hand():
    sp = splitter_for(BALANCE_X, BALANCE_Y)
    node = sp.root()
    assert wpm(node.class_count, node.weight) == 160
    blocks = list(sp.blocks(node))
    best = {int(b.features[j]): (float(b.impurity[j][b.valid[j]][0]),
                                 float(b.wpm_left[j][b.valid[j]][0]),
                                 float(b.wpm_right[j][b.valid[j]][0]))
            for b in blocks for j in range(len(b.features))}
    assert best[0][0] == pytest.approx(3 / 10)
    assert best[0][1:] == (96.0, 0.0)                         # x1 <= 0.5 keeps 6 A + 2 B
    assert best[1][0] == pytest.approx(19 / 60)
    assert best[1][1:] == (30.0, 12.0)


def test_serdt_takes_the_balanced_test_where_cart_takes_the_best_gini():
    # depth 1 and no merging: every child's majority is A, merging would leave one leaf
    cart = CARTClassifier(max_depth=1, merge_leaves=False).fit(BALANCE_X, BALANCE_Y)
    ser = SERDTClassifier(max_depth=1, merge_leaves=False).fit(BALANCE_X, BALANCE_Y)
    assert cart.tree_.root.feature == "x0"
    assert ser.tree_.root.feature == "x1"
    assert ser.n_fallback_splits_ == 0


# ---------------------------------------------------------------------- three-way split
# x: 0 -> A; 1 -> 3 A + 3 B; 2 -> B. wpm(S) = 16 * 8 = 128, half 64. Both thresholds leave
# a side of wpm 84 > 64: no balanced test, but x <= 0.5 lowers the Gini (0.4286 < 0.5).
# The heaviest group is x = 1; t* = 1 is the first value whose prefix has wpm > 64, so the
# three-way split is x < 1 (x <= 0.5), then x <= 1 (x <= 1.5) on the right child.
THREE_X = np.array([[0], [1], [1], [1], [1], [1], [1], [2]], dtype=float)
THREE_Y = list("AAAABBBB")


def test_three_way_split_by_hand():
    sp = splitter_for(THREE_X, THREE_Y)
    plan = three_way_split(sp, sp.root())
    assert plan is not None
    assert plan.split == Split(0, threshold=0.5)
    assert plan.then_right == Split(0, threshold=1.5)


def test_three_way_split_when_t_star_is_the_smallest_value():
    # x = 0 holds 4 A + 3 B (wpm 84 > 64 alone): S(x < 0) is empty, one test x <= 0.5
    sp = splitter_for([[0]] * 7 + [[1]], list("AAAABBBB"))
    plan = three_way_split(sp, sp.root())
    assert plan is not None and plan.split == Split(0, threshold=0.5)
    assert plan.then_right is None


def test_three_way_split_when_t_star_is_the_largest_value():
    # x = 0 -> B, x = 1 -> 4 A + 3 B: t* = 1 is the last value, one test x < 1
    sp = splitter_for([[0]] + [[1]] * 7, list("BAAAABBB"))
    plan = three_way_split(sp, sp.root())
    assert plan is not None and plan.split == Split(0, threshold=0.5)
    assert plan.then_right is None


def test_three_way_split_picks_the_attribute_with_the_lightest_heaviest_group():
    # feature 0 puts 3 A + 3 B in one group (wpm 54); feature 1 at most 2 A + 2 B (wpm 16)
    X = [[0, 0], [1, 0], [1, 0], [1, 1], [1, 1], [1, 1], [1, 1], [2, 2]]
    y = list("AAABABBB")
    sp = splitter_for(X, y)
    plan = three_way_split(sp, sp.root())
    assert plan is not None and plan.split.feature == 1


def test_serdt_grows_the_three_way_split():
    ser = SERDTClassifier(max_depth=None).fit(THREE_X, THREE_Y)
    assert ser.n_fallback_splits_ == 1
    # {3 A, 3 B} at x = 1 cannot be split further; its tie goes to the first class, A
    assert ser.tree_.root == ThresholdSplit(
        "x0", 0.5, Leaf("A"), ThresholdSplit("x0", 1.5, Leaf("A"), Leaf("B")))


def test_forced_second_test_respects_the_depth_limit():
    ser = SERDTClassifier(max_depth=1).fit(THREE_X, THREE_Y)
    assert ser.tree_.root == ThresholdSplit("x0", 0.5, Leaf("A"), Leaf("B"))


def test_no_gini_decrease_means_a_leaf():
    # XOR: no single test lowers the Gini impurity, so neither learner splits (Section 6)
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=float)
    y = ["a", "b", "b", "a"]
    for est in (CARTClassifier(), SERDTClassifier()):
        assert est.fit(X, y).tree_.root == Leaf("a")


# ---------------------------------------------------------------------- merging
# x0 separates {A A A B} from {B B B B}; below, x1 splits {A A} from {A B}: the Gini drops
# (0.375 -> 0.25) but both leaves predict A (a tie goes to the first class) and are merged.
MERGE_X = np.array([[0, 0], [0, 0], [0, 1], [0, 1], [1, 2], [1, 2], [1, 2], [1, 2]],
                   dtype=float)
MERGE_Y = list("AAABBBBB")


def test_sibling_leaves_of_one_class_are_merged():
    unmerged = CARTClassifier(merge_leaves=False).fit(MERGE_X, MERGE_Y)
    assert unmerged.tree_.root == ThresholdSplit(
        "x0", 0.5, ThresholdSplit("x1", 0.5, Leaf("A"), Leaf("A")), Leaf("B"))
    merged = CARTClassifier().fit(MERGE_X, MERGE_Y)
    assert merged.tree_.root == ThresholdSplit("x0", 0.5, Leaf("A"), Leaf("B"))
    assert merged.n_merged_ == 1
    assert merged.leaf_class_weights_.tolist() == [[3.0, 1.0], [0.0, 4.0]]
    assert np.array_equal(merged.predict(MERGE_X), unmerged.predict(MERGE_X))


def test_merging_cascades_bottom_up():
    from reference.grow import Grown, merge_leaves

    def leaf(cls):
        return Grown(np.eye(2)[cls], 1, 2)

    inner = Grown(np.array([2.0, 0.0]), 2, 1, Split(1, threshold=0.5), [leaf(0), leaf(0)])
    root = Grown(np.array([3.0, 0.0]), 3, 0, Split(0, threshold=0.5), [inner, leaf(0)])
    assert merge_leaves(root) == 2
    assert root.is_leaf


# ---------------------------------------------------------------------- weights
def test_weight_preprocessing():
    uniform = np.full(10, 0.1)
    assert np.array_equal(preprocess_weights(uniform), uniform)
    w = np.array([1.0, 1.0, 1e-9])           # w(O)/n^3 = (2 + 1e-9) / 27
    out = preprocess_weights(w)
    assert out[:2].tolist() == [1.0, 1.0]
    assert out[2] == pytest.approx((2 + 1e-9) / 27)
    assert np.allclose(preprocess_weights(w * 1000), out * 1000)   # scale invariant


def test_zero_weight_rows_are_ignored():
    X = np.array([[0.0], [1.0], [2.0], [3.0], [10.0]])
    y = ["a", "a", "b", "b", "a"]
    weighted = CARTClassifier().fit(X, y, sample_weight=[1, 1, 1, 1, 0])
    dropped = CARTClassifier().fit(X[:4], y[:4])
    assert weighted.tree_.root == dropped.tree_.root


def test_sample_weight_changes_the_majority():
    X = np.array([[0.0], [0.0], [0.0]])
    est = CARTClassifier().fit(X, ["a", "a", "b"], sample_weight=[1, 1, 5])
    assert est.predict([[0.0]]).tolist() == ["b"]
    assert est.predict_proba([[0.0]]).tolist() == [[2 / 7, 5 / 7]]


# ---------------------------------------------------------------------- factor_expl
def test_factor_expl_favours_a_feature_already_on_the_path():
    # Below the root test x0 <= 1.5 the left node holds 3 A + 4 B (Gini 24/49). Its balanced
    # tests: x0 <= 0.5 (split Gini 2/7 * 1/2 + 5/7 * 12/25 = 17/35) and x1 <= 0.5
    # (3/7 * 4/9 + 4/7 * 1/2 = 10/21). Plain Gini takes x1; with factor_expl 0.97 the test on
    # x0, already on the path, costs 0.97 * 17/35 = 0.4711 < 10/21 = 0.4762 and wins.
    X = np.array([[0, 1], [0, 1], [2, 0], [2, 1], [1, 0], [2, 1], [1, 0], [1, 1], [1, 1],
                  [1, 0]], dtype=float)
    y = list("ABABBAAABB")
    sp = splitter_for(X, y)
    node = sp.partition(sp.root(), Split(0, threshold=1.5))[0]
    scores = {f: sorted(set(b.impurity[j][b.valid[j]].round(12).tolist()))
              for b in sp.blocks(node) for j, f in enumerate(b.features.tolist())}
    assert scores[0] == [round(17 / 35, 12)]
    assert scores[1] == [round(10 / 21, 12)]
    plain = SERDTClassifier(factor_expl=1.0, max_depth=2, merge_leaves=False).fit(X, y)
    adjusted = SERDTClassifier(factor_expl=0.97, max_depth=2, merge_leaves=False).fit(X, y)
    assert plain.tree_.root.feature == adjusted.tree_.root.feature == "x0"
    assert plain.tree_.root.left.feature == "x1"
    assert adjusted.tree_.root.left == ThresholdSplit("x0", 0.5, Leaf("A"), Leaf("B"))
    assert plain.n_fallback_splits_ == adjusted.n_fallback_splits_ == 0


# ---------------------------------------------------------------------- categorical
def test_categorical_columns_are_split_natively():
    frame = pd.DataFrame({"colour": ["red", "red", "blue", "green", "blue", "green"],
                          "size": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]})
    y = ["yes", "yes", "no", "no", "no", "no"]
    est = CARTClassifier().fit(frame, y)
    assert est.tree_.root == CategoricalSplit(
        "colour", (Branch(("red",), Leaf("yes")), Branch(("blue", "green"), Leaf("no"))))
    assert est.feature_names_in_.tolist() == ["colour", "size"]
    rule = Explainer(est.tree_).axp({"colour": "red", "size": 9.0}).rule
    assert "colour = red" in rule
    with pytest.raises(UnknownCategoryError):
        est.predict(pd.DataFrame({"colour": ["purple"], "size": [1.0]}))


def test_integer_coded_categories_and_bool_columns():
    frame = pd.DataFrame({"code": [1, 1, 2, 3, 2, 3], "flag": [True, True, False, True,
                                                              False, False]})
    y = [0, 0, 1, 1, 1, 1]
    est = CARTClassifier(categorical_features=["code"]).fit(frame, y)
    kinds = {f.name: f.kind for f in est.tree_.features}
    assert kinds == {"code": "categorical", "flag": "binary"}
    assert est.tree_.root.feature == "code"


def test_pandas_category_dtype_declares_the_domain():
    frame = pd.DataFrame({"c": pd.Categorical(["a", "a", "b"], categories=["a", "b", "z"])})
    est = CARTClassifier().fit(frame, [1, 1, 0])
    assert est.tree_.features[0].domain == ("a", "b", "z")
    assert est.predict(pd.DataFrame({"c": ["z"]})).tolist() == [0]   # 'z' goes with != a


# ---------------------------------------------------------------------- estimator API
def test_fitted_tree_is_the_ir_and_round_trips(tmp_path):
    X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 1.0], [3.0, 0.0]])
    est = SERDTClassifier().fit(X, ["a", "a", "b", "b"])
    assert est.to_ir() is est.tree_
    save_model(est.tree_, tmp_path / "m.json")
    back = load_model(tmp_path / "m.json")
    assert back.predict(X).tolist() == est.predict(X).tolist()
    assert Explainer(back).axp([0.0, 1.0]).features == ("x0",)


def test_params_and_labels():
    est = SERDTClassifier(factor_expl=0.9, max_depth=3)
    assert est.get_params()["factor_expl"] == 0.9
    est.set_params(max_depth=2)
    assert est.max_depth == 2
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    fitted = est.fit(X, [2.0, 2.0, 7.0, 7.0])   # float labels: integers in the IR
    assert fitted.classes_.tolist() == [2.0, 7.0]
    assert fitted.tree_.classes == (2, 7)
    assert fitted.predict(X).tolist() == [2.0, 2.0, 7.0, 7.0]
    assert fitted.score(X, [2.0, 2.0, 7.0, 2.0]) == 0.75


@pytest.mark.parametrize("kwargs", [{"max_depth": -1}, {"min_samples_leaf": 0},
                                    {"criterion": "mse"}, {"factor_expl": 1.5}])
def test_bad_parameters(kwargs):
    with pytest.raises(ParameterError):
        SERDTClassifier(**kwargs).fit([[0.0], [1.0]], [0, 1])


def test_bad_data():
    with pytest.raises(MissingValueError, match="NaN"):
        CARTClassifier().fit([[0.0], [np.nan]], [0, 1])
    with pytest.raises(DataError, match="inf"):
        CARTClassifier().fit([[0.0], [np.inf]], [0, 1])
    with pytest.raises(DataError, match="continuous"):
        CARTClassifier().fit([[0.0], [1.0]], [0.5, 1.25])
    with pytest.raises(DataError, match="negative"):
        CARTClassifier().fit([[0.0], [1.0]], [0, 1], sample_weight=[1, -1])
    with pytest.raises(InstanceShapeError):
        CARTClassifier().fit([[0.0], [1.0]], [0, 1, 1])
    with pytest.raises(NotFittedError):
        CARTClassifier().predict([[0.0]])
    est = CARTClassifier().fit([[0.0], [1.0]], [0, 1])
    with pytest.raises(InstanceShapeError, match="expecting 1 features"):
        est.predict([[0.0, 1.0]])
    with pytest.raises(MissingValueError):
        est.predict([[np.nan]])


def test_min_samples_leaf():
    X = np.arange(10, dtype=float).reshape(-1, 1)
    y = ["a"] * 2 + ["b"] * 8
    assert CARTClassifier().fit(X, y).tree_.root.threshold == 1.5
    est = CARTClassifier(min_samples_leaf=3).fit(X, y)
    assert est.leaf_samples_.min() >= 3


def test_leaf_statistics_match_the_training_rows():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 4))
    y = (X[:, 0] + X[:, 1] ** 2 > 0.5).astype(int) + (X[:, 2] > 1)
    w = rng.uniform(0.5, 2.0, size=300)
    for est in (CARTClassifier(max_depth=4), SERDTClassifier(max_depth=4)):
        est.fit(X, y, sample_weight=w)
        leaf = est.apply(X)
        expected = np.zeros_like(est.leaf_class_weights_)
        np.add.at(expected, (leaf, y), w)
        assert np.allclose(est.leaf_class_weights_, expected)
        assert np.array_equal(est.leaf_samples_, np.bincount(leaf, minlength=len(expected)))
        # every leaf predicts its weighted majority
        labels = [p.class_index for p in est.tree_.paths]
        assert labels == np.argmax(expected, axis=1).tolist()


def test_balanced_tests_that_do_not_lower_the_gini_leave_the_three_way_split():
    # 4 A + 4 B (wpm 128, half 64). x0 halves the rows into {2 A, 2 B} twice: balanced
    # (wpm 16 each) but the Gini stays 1/2, so it is not permissible (Section 6). x1 isolates
    # one A: the Gini drops, but {3 A, 4 B} keeps wpm 84 > 64. With Gini-lowering tests and
    # no permissible balanced one, Algorithm 1 takes its three-way split: the attribute of
    # lightest heaviest group is x0 (16 against 84), whose split is the single test x0 <= 0.5.
    X = np.array([[0, 1], [0, 0], [0, 0], [0, 0], [1, 0], [1, 0], [1, 0], [1, 0]], dtype=float)
    y = list("AABBAABB")
    ser = SERDTClassifier(max_depth=None).fit(X, y)
    assert ser.n_fallback_splits_ == 1
    assert ser.tree_.root == ThresholdSplit(
        "x0", 0.5, ThresholdSplit("x1", 0.5, Leaf("B"), Leaf("A")), Leaf("A"))
    # CART starts with the only Gini-lowering test
    cart = CARTClassifier(max_depth=None).fit(X, y)
    assert cart.tree_.root.feature == "x1"


def test_three_way_split_on_a_categorical_feature_uses_its_indicators():
    # c = p: A; c = q: 3 A + 3 B; c = r: B (wpm 128, half 64). "c = q" is balanced (54 and 2)
    # but keeps the Gini at 1/2; "c = p" and "c = r" lower it but leave wpm 84. The indicator
    # of q has the lightest heaviest group (54 < 84): the three-way split is the test c = q.
    frame = pd.DataFrame({"c": list("pqqqqqqr")})
    y = list("AAAABBBB")
    ser = SERDTClassifier(max_depth=None).fit(frame, y)
    assert ser.n_fallback_splits_ == 1
    root = ser.tree_.root
    assert root.branches[0] == Branch(("q",), Leaf("A"))
    assert root.branches[1].values == ("p", "r")
    cart = CARTClassifier(max_depth=None).fit(frame, y)
    assert cart.tree_.root.branches[0].values == ("p",)


# ---------------------------------------------------------------------- reported faults
def test_duplicate_column_names_at_predict_are_refused():
    X = pd.DataFrame({"a": [1.0, 2, 3, 4, 5, 6], "b": [10.0, 20, 10, 20, 10, 20]})
    est = CARTClassifier().fit(X, [0, 0, 0, 1, 1, 1])
    twice = X.assign(junk=9.0)[["junk", "a", "b"]].rename(columns={"junk": "a"})
    with pytest.raises(InstanceError, match="more than one column named 'a'"):
        est.predict(twice)


def test_deep_learned_trees_save_and_load(tmp_path):
    X = np.arange(1500.0).reshape(-1, 1)
    y = np.arange(1500) % 2                       # alternating: a chain of depth 1499
    est = CARTClassifier(max_depth=None).fit(X, y)
    assert est.get_depth() == 1499 and est.get_n_leaves() == 1500
    save_model(est.tree_, tmp_path / "deep.json")
    back = load_model(tmp_path / "deep.json")
    assert back.depth == 1499
    assert np.array_equal(back.predict(X), y)


def test_reported_bad_inputs_get_xdt_errors():
    X = np.array([[0.0], [1.0], [2.0]])
    with pytest.raises(DataError, match="mixes labels of different types"):
        CARTClassifier().fit(X, np.array(["1", 1, 2], dtype=object))
    with pytest.raises(InstanceShapeError, match="one label per row"):
        CARTClassifier().fit(X, np.c_[[0, 1, 0], [0, 1, 0]])
    with pytest.raises(DataError, match="sample_weight must be numbers"):
        CARTClassifier().fit(X, [0, 1, 0], sample_weight="abc")
    with pytest.raises(ParameterError, match="merge_leaves"):
        CARTClassifier(merge_leaves="no").fit(X, [0, 1, 0])
    est = CARTClassifier().fit(X, [0, 1, 0])
    from scipy.sparse import csr_matrix
    with pytest.raises(DataError, match="sparse"):
        est.predict(csr_matrix(X))


def test_one_name_in_categorical_features():
    frame = pd.DataFrame({"num": [1, 2, 3, 1, 2, 3], "x": [0.0, 1, 2, 3, 4, 5]})
    est = CARTClassifier(categorical_features="num").fit(frame, list("aabaab"))
    assert est.tree_.features["num"].kind == "categorical"


def test_serdt_weight_preprocessing_only_reaches_wpm():
    # a weight below w(O)/n^3 is raised for wpm, but probabilities use the weights as given
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    w = [1, 1, 1, 1e-6]
    ser = SERDTClassifier(max_depth=0).fit(X, [0, 0, 1, 1], sample_weight=w)
    cart = CARTClassifier(max_depth=0).fit(X, [0, 0, 1, 1], sample_weight=w)
    assert np.allclose(ser.predict_proba(X[:1]), cart.predict_proba(X[:1]))
    assert np.allclose(ser.predict_proba(X[:1]), [[2 / (3 + 1e-6), (1 + 1e-6) / (3 + 1e-6)]])
    assert ser.leaf_weights_.tolist() == pytest.approx([3 + 1e-6])


@pytest.mark.parametrize("scale", [1e-200, 1.0, 1e250])
def test_weight_scale_does_not_change_the_tree(scale):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    base = SERDTClassifier(max_depth=4).fit(X, y)
    scaled = SERDTClassifier(max_depth=4).fit(X, y, sample_weight=np.full(200, scale))
    assert scaled.tree_.root == base.tree_.root
    assert np.isfinite(scaled.predict_proba(X)).all()
    assert scaled.leaf_weights_.sum() == pytest.approx(200 * scale)


def test_factor_expl_zero_still_prefers_lower_impurity_among_path_features():
    # with factor 0 every test on a feature already on the path scores 0; the tie goes to
    # the lower split impurity, not to the first threshold
    X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [5.0], [6.0], [7.0]])
    y = list("AABBBBAA")
    ser = SERDTClassifier(factor_expl=0.0, max_depth=2, merge_leaves=False).fit(X, y)
    plain = SERDTClassifier(factor_expl=1.0, max_depth=2, merge_leaves=False).fit(X, y)
    assert ser.tree_.root == plain.tree_.root
