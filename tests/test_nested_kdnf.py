"""Nested k-DNFs learned by the heuristic of Cooper, Bousdira & Carbonnel ("Interpretable
DNFs", IJCAI 2025, Section 6.1), and the Binarizer they are learned through.

Literals are numbered as in :mod:`xdt.learn._nested`: ``2 j`` is Boolean column ``j`` true,
``2 j + 1`` column ``j`` false. The hand-worked cases give every count in the comments.
"""

from __future__ import annotations

import itertools
import math

import hypothesis.strategies as st
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from sklearn.tree import DecisionTreeClassifier
from tiers import examples

import xdt
from xdt.errors import DataError, MissingValueError, ParameterError, UnknownCategoryError
from xdt.ir import Condition, NestedKDNF
from xdt.learn import Binarizer, NestedKDNFClassifier
from xdt.learn._nested import (
    candidate_terms,
    construct_matrix,
    literal_table,
    prefix_vectors,
    prune_terms,
    row_limit,
    select_terms,
)

A, NOT_A, B, NOT_B, C, NOT_C, D, NOT_D = range(8)


def truth_table() -> tuple[pd.DataFrame, np.ndarray]:
    """All 16 points of (a, b, c, d) and kappa = (a AND b) OR (c AND d) (the paper's first
    test, Section 6.3; its Example 2)."""
    X = np.array(list(itertools.product([0, 1], repeat=4)))
    y = (X[:, 0] & X[:, 1]) | (X[:, 2] & X[:, 3])
    return pd.DataFrame(X, columns=list("abcd")), y


# ---------------------------------------------------------------------------- the paper's test
def test_truth_table_is_learned_exactly_as_a_nested_2dnf_with_two_terms():
    X, y = truth_table()
    est = NestedKDNFClassifier(k=2).fit(X, y)
    assert est.score(X, y) == 1.0
    terms = {frozenset(str(c) for c in term) for term in est.model_.conditions}
    assert terms == {frozenset({"a = 1", "b = 1"}), frozenset({"c = 1", "d = 1"})}
    assert isinstance(est.model_, NestedKDNF) and est.model_.k == 2
    assert est.prefixes_.tolist() == [[2, 0], [0, 2]]
    assert est.to_ir() is est.model_


def test_to_ir_before_fit_says_to_fit():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        NestedKDNFClassifier(k=2).to_ir()


def test_cart_needs_depth_4_for_the_truth_table():
    X, y = truth_table()
    scores = {d: DecisionTreeClassifier(max_depth=d, random_state=0).fit(X, y).score(X, y)
              for d in (2, 3, 4)}
    assert scores[2] < 1.0 and scores[3] < 1.0
    assert scores[4] == 1.0


def test_algorithm_1_on_the_truth_table_by_hand():
    # 16 rows, 7 of class 1 (a b: 4 rows, c d: 4 rows, both: 1).
    # Row 0, j = 0 (limit 0): Ec1 - Ec0 of each single literal:
    #   a: 8 rows, class 1 = a b (4) + a !b c d (2) = 6, class 0 = 2 -> G = 4; b, c, d alike
    #   !a: 8 rows, class 1 = !a c d (2), class 0 = 6 -> G = -4; !b, !c, !d alike
    #   tie between a, b, c, d: the smallest literal number, a.
    # Row 0, j = 1 (a and !a excluded):
    #   a b: 4 rows, all class 1 -> G = 4
    #   a c: 4 rows, class 1 = a c (b or d) = 3, class 0 = 1 -> G = 2; a d alike
    #   a !b: class 1 = a !b c d = 1, class 0 = 3 -> G = -2;  a !c: 2 - 2 = 0; a !d: 0
    #   -> b.
    # Row 1, j = 0: limit = min(k - j, floor(2 (n - j) / i) - 1) = min(2, 7) = 2, so a and b
    #   (row 0, columns 0..1) are excluded; c and d tie at G = 4 -> c.
    # Row 1, j = 1: limit = min(1, floor(2 * 3 / 1) - 1) = 1: a excluded, and c, !c (row 1).
    #   c d: G = 4; c b: G = 2; c !a: class 1 = !a c d = 2, class 0 = 2 -> 0 -> d.
    X, y = truth_table()
    L = construct_matrix(literal_table(X.to_numpy().astype(bool)), y.astype(bool), k=2)
    assert L.tolist() == [[A, B], [C, D]]


def test_row_limit_follows_algorithm_1():
    # limit = 0 on row 0, else min(k - j, floor(2 (n - j) / i) - 1), at least 0
    assert [row_limit(0, j, 3, 5) for j in range(3)] == [0, 0, 0]
    assert [row_limit(1, j, 3, 5) for j in range(3)] == [3, 2, 1]        # k - j binds
    assert [row_limit(2, j, 3, 3) for j in range(3)] == [2, 1, 0]        # 6//2-1, 4//2-1, 2//2-1
    assert [row_limit(3, j, 4, 4) for j in range(4)] == [1, 1, 0, 0]     # 8//3-1, 6//3-1, ...
    assert row_limit(2, 2, 4, 2) == 0                                    # k > n: clipped


# Counts of class 1 / class 0 rows per point (a, b, c) for the hand-worked case below.
COUNTS = {(1, 1, 1): (3, 0), (1, 1, 0): (3, 1), (1, 0, 1): (2, 1), (1, 0, 0): (1, 2),
          (0, 1, 1): (2, 0), (0, 1, 0): (0, 2), (0, 0, 1): (2, 1), (0, 0, 0): (0, 4)}


def hand_case(weighted: bool = False):
    """24 rows over (a, b, c): 13 of class 1, 11 of class 0 (COUNTS); either repeated rows
    or one row per (point, class) with its count as sample weight."""
    X, y, w = [], [], []
    for point, (pos, neg) in COUNTS.items():
        for label, count in ((1, pos), (0, neg)):
            if count:
                X += [point] if weighted else [point] * count
                y += [label] if weighted else [label] * count
                w += [count] if weighted else [1] * count
    return (pd.DataFrame(X, columns=list("abc")), np.array(y),
            np.array(w, dtype=float) if weighted else None)


def test_algorithm_1_excludes_the_first_columns_of_the_rows_above():
    # Single literals, class 1 / class 0:  a 9/4 (G 5), !a 4/7, b 8/3 (G 5), !b 5/8,
    #   c 9/2 (G 7), !c 4/9  -> l_00 = c.
    # Prefix c: c a 5/1 (G 4), c !a 4/1 (3), c b 5/0 (G 5), c !b 4/2 (2) -> l_01 = b.
    # Row 1, j = 0: limit = min(2, floor(2 * 3 / 1) - 1) = 2 excludes c and b (else c, G 7,
    #   again): a has G 5, !a -3, !b -3, !c -5 -> l_10 = a.
    # Row 1, j = 1: limit = min(1, floor(2 * 2 / 1) - 1) = 1 excludes only c; a, !a are the
    #   row's own. Prefix a: a b 6/1 (G 5), a !b 3/3 (0), a !c 4/3 (1) -> l_11 = b, which
    #   row 0 holds in column 1, beyond the limit.
    X, y, _ = hand_case()
    L = construct_matrix(literal_table(X.to_numpy().astype(bool)), y.astype(bool), k=2)
    assert L.tolist() == [[C, B], [A, B]]


def test_term_selection_and_pruning_on_the_hand_case():
    # Candidates of L = [[c, b], [a, b]], size 2 then 1: (2,0) c b; (1,1) c a; (0,2) a b;
    # (1,0) c; (0,1) a.  Class-1 rows: 111:3 110:3 101:2 100:1 011:2 001:2.
    #   c b  covers 111 (3/0), 011 (2/0):            P 5, Q 0 -> selected
    #   c a  covers 111, 101 (2/1); new 101:          P 2, Q 1 -> selected
    #   a b  covers 111, 110 (3/1); new 110:          P 3, Q 1 -> selected
    #   c    covers 111, 101, 011, 001 (2/1); new 001: P 2, Q 1 -> selected
    #   a    covers 1xx; new 100 (1/2):               P 1, Q 2 -> not selected (not pure)
    # Pruning, in order, against the other remaining terms:
    #   c b: all its rows are covered by c -> P 0 -> removed
    #   c a: likewise covered by c -> removed
    #   a b: not covered by c: 110 -> P 3, Q 1 -> kept
    #   c:   not covered by a b: 101, 011, 001 -> P 6, Q 2 -> kept
    X, y, _ = hand_case()
    T = literal_table(X.to_numpy().astype(bool))
    cands = candidate_terms(np.array([[C, B], [A, B]]))
    assert [(c.prefix, c.literals) for c in cands] == [
        ((2, 0), (C, B)), ((1, 1), (C, A)), ((0, 2), (A, B)), ((1, 0), (C,)), ((0, 1), (A,))]
    covers = [T[:, list(c.literals)].all(axis=1) for c in cands]
    chosen = select_terms(covers, y.astype(bool))
    assert chosen == [0, 1, 2, 3]
    kept = prune_terms([covers[t] for t in chosen], y.astype(bool))
    assert kept == [2, 3]

    est = NestedKDNFClassifier(k=2).fit(X, y)
    assert est.matrix_.tolist() == [[C, B], [A, B]]
    assert est.n_selected_ == 4
    assert est.prefixes_.tolist() == [[0, 2], [1, 0]]
    assert [str(r) for r in est.model_.rules()] == ["a = 1 AND b = 1", "c = 1"]
    # wrong: the class-0 rows of 110, 101, 001 (one each) and the class-1 row of 100
    assert est.score(X, y) == pytest.approx(20 / 24)


def test_sample_weights_count_like_repeated_rows():
    X, y, _ = hand_case()
    Xw, yw, w = hand_case(weighted=True)
    a = NestedKDNFClassifier(k=2).fit(X, y)
    b = NestedKDNFClassifier(k=2).fit(Xw, yw, sample_weight=w)
    assert a.matrix_.tolist() == b.matrix_.tolist()
    assert a.prefixes_.tolist() == b.prefixes_.tolist()


def test_select_terms_pure_rule_and_stop():
    y = np.array([1, 1, 1, 0, 0], dtype=bool)
    rows = [{0, 1}, {0, 3}, {1}, {2, 3, 4}, {2, 3}, {2}, {2}]
    covers = [np.isin(np.arange(5), list(r)) for r in rows]
    # t0: P 2, Q 0 -> selected (covers rows 0, 1)
    # t1: new row 3 only: P 0 -> no; covers a class-0 row -> not pure
    # t2: nothing new (P 0), but covers a class-1 row and no class-0 row -> selected (pure)
    # t3: P 1, Q 2 -> no;  t4: P 1, Q 1 -> no (Q < P fails)
    # t5: P 1, Q 0 -> selected; every class-1 row is covered: stop (t6, pure, not evaluated)
    assert select_terms(covers, y) == [0, 2, 5]


def test_prune_terms_q_at_least_p_and_one_pass():
    y = np.array([1, 1, 1, 1, 0, 0], dtype=bool)

    def cover(rows):
        return np.isin(np.arange(6), list(rows))

    # t0 (0, 1, 2, 4, 5), selected first with P 3, Q 2; the others cover 0, 1, 3, so only
    # rows 2, 4, 5 are its own: P 1, Q 2 -> removed. t1 (0, 1) and t2 (3) keep P 2 and P 1.
    assert prune_terms([cover({0, 1, 2, 4, 5}), cover({0, 1}), cover({3})], y) == [1, 2]
    # two terms covering the same rows: the first goes (P 0), the second then has the rows
    # to itself and stays
    assert prune_terms([cover({0}), cover({0})], y) == [1]


def test_candidate_terms_skip_inconsistent_padded_and_repeated_terms():
    # row 1 starts with !a: (1, 1) = a !a is inconsistent
    got = [(c.prefix, c.literals) for c in candidate_terms(np.array([[A, B], [NOT_A, C]]))]
    assert got == [((2, 0), (A, B)), ((0, 2), (NOT_A, C)), ((1, 0), (A,)), ((0, 1), (NOT_A,))]
    # a padded row [a, a]: (2, 0) is the term a, evaluated at size 1
    got = [c.prefix for c in candidate_terms(np.array([[A, A], [B, C]]))]
    assert got == [(1, 1), (0, 2), (1, 0), (0, 1)]
    # rows [a, b] and [b, a]: a b once
    got = [(c.prefix, c.literals) for c in candidate_terms(np.array([[A, B], [B, A]]))]
    assert got == [((2, 0), (A, B)), ((1, 0), (A,)), ((0, 1), (B,))]


def test_prefix_vectors():
    assert list(prefix_vectors(3, 2)) == [(2, 0, 0), (1, 1, 0), (1, 0, 1), (0, 2, 0),
                                          (0, 1, 1), (0, 0, 2)]
    # sizes k..1 together: C(2k, k) - 1 vectors
    assert sum(len(list(prefix_vectors(6, s))) for s in range(1, 7)) == math.comb(12, 6) - 1


# ---------------------------------------------------------------------------- the model
def mixed_frame(n: int = 200, seed: int = 0) -> tuple[pd.DataFrame, pd.Series]:
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "age": rng.integers(18, 80, n),
        "income": rng.normal(50.0, 15.0, n).round(1),
        "colour": rng.choice(["red", "green", "blue"], n),
        "member": rng.random(n) < 0.5,
        "flag": rng.integers(0, 2, n),
    })
    score = ((X["age"] > 40) & (X["colour"] == "red")) | (X["member"] & (X["income"] > 55))
    noise = rng.random(n) < 0.05
    return X, pd.Series(np.where(score ^ noise, "yes", "no"), name="buy")


def test_model_is_over_the_original_features_and_predicts_like_the_estimator():
    X, y = mixed_frame()
    est = NestedKDNFClassifier(k=3).fit(X, y)
    model = est.model_
    assert [f.name for f in model.features] == list(X.columns)
    assert [f.kind for f in model.features] == ["ordinal", "ordinal", "categorical", "binary",
                                                "binary"]
    assert model.classes == ("no", "yes") and model.target == "buy"
    np.testing.assert_array_equal(model.predict(X), est.predict(X))
    np.testing.assert_array_equal(model.to_dnf().predict(X), est.predict(X))
    text = " ".join(str(r) for r in model.rules())
    assert "age" in text and ("<" in text or "=" in text)
    assert est.score(X, y) > 0.8
    proba = est.predict_proba(X)
    assert set(np.unique(proba)) <= {0.0, 1.0}
    np.testing.assert_array_equal(est.classes_[proba.argmax(axis=1)], est.predict(X))


def test_model_round_trips_through_json(tmp_path):
    X, y = mixed_frame()
    est = NestedKDNFClassifier(k=3, target="negative").fit(X, y)
    path = tmp_path / "nested.json"
    xdt.save_model(est.model_, path)
    loaded = xdt.load_model(path)
    assert isinstance(loaded, NestedKDNF)
    np.testing.assert_array_equal(loaded.predict(X), est.predict(X))


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5, 6])
def test_terms_have_at_most_k_conditions_and_prefix_sums_at_most_k(k):
    X, y = mixed_frame(seed=k)
    est = NestedKDNFClassifier(k=k).fit(X, y)
    assert est.matrix_.shape == (k, k)
    assert all(len(term) <= k for term in est.model_.conditions)
    assert all(sum(r) <= k and len(r) == k for r in est.model_.prefixes)
    for r, term in zip(est.model_.prefixes, est.model_.conditions, strict=True):
        expected = [est.binarizer_.condition(int(lit))
                    for i in range(k) for lit in est.matrix_[i, :r[i]]]
        assert list(term) == expected
        assert len(set(term)) == len(term)         # no condition repeated in a term


def test_target_negative_learns_the_complement_with_the_right_labels():
    X, y = mixed_frame()
    neg = NestedKDNFClassifier(k=3, target="negative").fit(X, y)
    assert neg.target_class_ == "no"
    assert neg.model_.classes == ("yes", "no")          # "no" where a term holds
    holds = neg.satisfied_terms(X).any(axis=1)
    np.testing.assert_array_equal(neg.predict(X), np.where(holds, "no", "yes"))
    np.testing.assert_array_equal(neg.model_.predict(X), neg.predict(X))
    # the same terms as learning class 1 of the relabelled data
    swap = {"yes": "no", "no": "yes"}
    pos = NestedKDNFClassifier(k=3).fit(X, y.map(swap))
    assert pos.prefixes_.tolist() == neg.prefixes_.tolist()
    assert [str(r) for r in pos.model_.rules()] == [str(r) for r in neg.model_.rules()]
    np.testing.assert_array_equal(pos.predict(X), [swap[v] for v in neg.predict(X)])


@settings(max_examples=examples(60))
@given(st.integers(2, 40), st.integers(1, 6), st.integers(1, 5),
       st.sampled_from(["positive", "negative"]), st.integers(0, 2**32 - 1))
def test_random_boolean_data(n, m, k, target, seed):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.integers(0, 2, (n, m)), columns=[f"f{i}" for i in range(m)])
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    est = NestedKDNFClassifier(k=k, target=target).fit(X, y)
    pred = est.predict(X)
    np.testing.assert_array_equal(est.model_.predict(X), pred)
    np.testing.assert_array_equal(est.model_.to_dnf().predict(X), pred)
    assert all(len(t) <= k for t in est.model_.conditions)
    assert all(sum(r) <= k for r in est.model_.prefixes)
    # pruning keeps a term only if it has class-1 rows of its own; removing other terms
    # afterwards only adds to them, so every kept term still has some
    learned = y == (1 if target == "positive" else 0)
    cover = est.satisfied_terms(X)
    for p in range(cover.shape[1]):
        others = np.delete(cover, p, axis=1).any(axis=1)
        assert (cover[:, p] & ~others & learned).any()


def test_k_larger_than_the_number_of_boolean_features():
    X = pd.DataFrame({"a": [0, 0, 1, 1, 0, 1], "b": [0, 1, 0, 1, 1, 1]})
    y = np.array([0, 0, 0, 1, 0, 1])
    est = NestedKDNFClassifier(k=4).fit(X, y)
    assert est.score(X, y) == 1.0
    assert [str(r) for r in est.model_.rules()] == ["a = 1 AND b = 1"]
    assert all(len(set(t)) == len(t) for t in est.model_.conditions)


def test_constant_features_give_an_empty_model():
    X = pd.DataFrame({"a": [3.0, 3.0, 3.0, 3.0]})
    est = NestedKDNFClassifier(k=2).fit(X, ["p", "q", "q", "p"])
    assert est.model_.conditions == ()
    assert est.predict(X).tolist() == ["p"] * 4


def test_random_tie_breaking_is_reproducible():
    X, y = truth_table()
    runs = {tuple(map(tuple, NestedKDNFClassifier(k=2, random_state=s).fit(X, y).matrix_))
            for s in range(20)}
    assert len(runs) > 1                                # ties a, b, c, d broken differently
    a = NestedKDNFClassifier(k=2, random_state=3).fit(X, y)
    b = NestedKDNFClassifier(k=2, random_state=3).fit(X, y)
    assert a.matrix_.tolist() == b.matrix_.tolist()
    assert all(NestedKDNFClassifier(k=2, random_state=s).fit(X, y).score(X, y) == 1.0
               for s in range(10))


def test_generalised_exclusion_on_thresholds_and_categories():
    # one numeric column, thresholds 1.5, 2.5, 3.5: a row never continues x <= 1.5 with
    # x <= 2.5 (implied) or 2.5 < x (inconsistent)
    X = pd.DataFrame({"x": [1, 2, 3, 4] * 5, "colour": ["r", "g", "b", "r", "g"] * 4})
    y = np.array([1, 0, 0, 1] * 5)
    est = NestedKDNFClassifier(k=3, n_thresholds=None).fit(X, y)
    feature, cells = est.binarizer_.literal_cells()
    for row in est.matrix_:
        masks: dict[int, int] = {}
        for j, lit in enumerate(row):
            if j and lit == row[j - 1]:
                continue                              # padding
            f, m = int(feature[lit]), cells[lit]
            if f in masks:
                assert masks[f] & m != 0 and masks[f] & ~m != 0
            masks[f] = masks.get(f, m) & m
    np.testing.assert_array_equal(est.model_.predict(X), est.predict(X))


# ---------------------------------------------------------------------------- errors
def test_errors():
    X, y = truth_table()
    with pytest.raises(DataError, match=r"3: 'a', 'b', 'c'"):
        NestedKDNFClassifier().fit(X, np.array(["a", "b", "c", "a"] * 4))
    with pytest.raises(DataError, match="only one class"):
        NestedKDNFClassifier().fit(X, np.zeros(16))
    bad = X.astype(float)
    bad.iloc[3, 1] = np.nan
    with pytest.raises(MissingValueError, match="'b'"):
        NestedKDNFClassifier().fit(bad, y)
    with pytest.raises(MissingValueError):
        Binarizer().fit(bad)
    with pytest.raises(ParameterError, match="k must be an integer >= 1"):
        NestedKDNFClassifier(k=0).fit(X, y)
    with pytest.raises(ParameterError, match="target must be"):
        NestedKDNFClassifier(target="both").fit(X, y)
    with pytest.raises(ParameterError, match="n_thresholds"):
        NestedKDNFClassifier(n_thresholds=0).fit(X, y)
    est = NestedKDNFClassifier(k=2).fit(X, y)
    with pytest.raises(UnknownCategoryError):     # binary features take 0 and 1 only
        est.predict(X.replace({0: 2}))
    with pytest.raises(MissingValueError):
        est.predict(bad)
    with pytest.raises(xdt.errors.NotFittedError):
        NestedKDNFClassifier().predict(X)


# ---------------------------------------------------------------------------- binarizer
def holds(cond: Condition, value) -> bool:
    """A condition evaluated on a raw value, independently of the binarizer."""
    if cond.values is not None:
        v = int(value) if isinstance(value, bool | np.bool_) else value
        return v in cond.values
    lo_ok = cond.above is None or float(value) > cond.above
    hi_ok = cond.upto is None or float(value) <= cond.upto
    return lo_ok and hi_ok


@st.composite
def frames(draw):
    n = draw(st.integers(1, 25))
    columns = {}
    for j in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["float", "int", "01", "bool", "str"]))
        if kind == "float":
            vals = draw(st.lists(st.floats(-1e3, 1e3, allow_nan=False), min_size=n,
                                 max_size=n))
        elif kind == "int":
            vals = draw(st.lists(st.integers(-5, 5), min_size=n, max_size=n))
        elif kind == "01":
            vals = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
        elif kind == "bool":
            vals = draw(st.lists(st.booleans(), min_size=n, max_size=n))
        else:
            vals = draw(st.lists(st.sampled_from(["red", "green", "blue", "grey"]),
                                 min_size=n, max_size=n))
        columns[f"c{j}"] = vals
    return pd.DataFrame(columns)


@settings(max_examples=examples(150))
@given(frames(), st.one_of(st.none(), st.integers(1, 6)))
def test_each_boolean_column_is_its_condition_on_the_original_row(X, n_thresholds):
    enc = Binarizer(n_thresholds=n_thresholds).fit(X)
    B = enc.transform(X)
    np.testing.assert_array_equal(B, enc.fit_transform(X))
    assert B.shape == (len(X), len(enc.columns_)) and B.dtype == bool
    assert enc.get_feature_names_out().tolist() == [c.name for c in enc.columns_]
    for j, col in enumerate(enc.columns_):
        name = enc.features_[col.feature].name
        assert col.condition.feature == name == col.negation.feature
        for r in range(len(X)):
            value = X[name].iloc[r]
            assert B[r, j] == holds(col.condition, value)
            assert (not B[r, j]) == holds(col.negation, value)
    for col in X.columns:                 # thresholds: at most n_thresholds per column
        n_cols = sum(enc.features_[c.feature].name == col for c in enc.columns_)
        if enc.features_[list(X.columns).index(col)].is_ordinal and n_thresholds:
            assert n_cols <= n_thresholds


def test_binarizer_kinds_and_names():
    X = pd.DataFrame({"age": [20, 30, 40, 50, 60], "colour": ["red", "blue", "red", "green",
                                                              "red"],
                      "yes_no": ["no", "yes", "no", "no", "yes"], "b": [0, 1, 1, 0, 1],
                      "t": [True, False, True, True, False], "const": ["k"] * 5})
    enc = Binarizer(n_thresholds=None).fit(X)
    assert [f.kind for f in enc.features_] == ["ordinal", "categorical", "categorical",
                                               "binary", "binary", "categorical"]
    assert enc.get_feature_names_out().tolist() == [
        "age <= 25", "age <= 35", "age <= 45", "age <= 55",
        "colour = blue", "colour = green", "colour = red",
        "yes_no = yes", "b = 1", "t = 1"]
    assert [str(c.negation) for c in enc.columns_[3:8]] == [
        "55 < age", "colour in {green, red}", "colour in {blue, red}",
        "colour in {blue, green}", "yes_no = no"]
    # quantile thresholds: 4 at most
    wide = pd.DataFrame({"x": np.arange(100.0)})
    enc = Binarizer().fit(wide)
    assert enc.get_feature_names_out().tolist() == ["x <= 19.5", "x <= 39.5", "x <= 59.5",
                                                    "x <= 79.5"]
    # already binarised data sets pass through unchanged
    bits = pd.DataFrame(np.random.default_rng(0).integers(0, 2, (30, 5)),
                        columns=[f"f{i}" for i in range(5)])
    enc = Binarizer().fit(bits)
    np.testing.assert_array_equal(enc.transform(bits), bits.to_numpy().astype(bool))
    assert all(f.kind == "binary" for f in enc.features_)
