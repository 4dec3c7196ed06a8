"""Fidelity of the optimal-tree importers ``xdt.from_pystreed`` (STreeD) and ``xdt.from_dl85``
(DL8.5): the imported tree predicts what the learner's own ``predict`` returns on every row of
real data (one-hot car regrouped into categorical features, binarised monk1, numeric iris
through STreeD's thresholds) and of random data (hypothesis); an AXp of an imported tree is
checked against the learner itself over the whole feature space; and the settings the IR
cannot hold are refused with the errors of :mod:`xdt.errors`."""

from __future__ import annotations

import itertools
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import DATASETS, require_package, require_shared
from hypothesis import given, settings
from hypothesis import strategies as st
from tiers import examples

import xdt
from xdt.errors import (
    NotFittedError,
    ParameterError,
    UnknownCategoryError,
    UnknownFeatureError,
    UnsupportedEstimatorError,
)
from xdt.interop._tabular import TabularEncoder

pystreed = require_package("pystreed", "optimal")
pydl85 = require_package("pydl85", "optimal")


def table(name: str) -> tuple[pd.DataFrame, pd.Series]:
    frame = pd.read_csv(require_shared(DATASETS / name))
    return frame.iloc[:, :-1], frame.iloc[:, -1]


def car() -> tuple[pd.DataFrame, np.ndarray, TabularEncoder]:
    """car (integer-coded categories, all 1,728 points of its space) and an encoder that
    one-hot encodes every column."""
    X, y = table("car.csv")
    return X, y.to_numpy(), TabularEncoder(categorical=list(X.columns)).fit(X)


def streed(**kw):
    return pystreed.STreeDClassifier(**kw)


def fit(model, X, y):
    with warnings.catch_warnings():  # pystreed's own FutureWarnings from scikit-learn
        warnings.simplefilter("ignore")
        return model.fit(X, y)


# --- STreeD -----------------------------------------------------------------------------

@pytest.mark.parametrize("depth", [2, 4])
def test_streed_car_one_hot_regrouped(depth):
    X, y, enc = car()
    model = fit(streed(max_depth=depth), enc.transform(X), y)
    tree = xdt.from_pystreed(model, encoder=enc, target="class")
    assert [f.kind for f in tree.features] == ["categorical"] * 6
    assert tree.classes == (0, 1, 2, 3)
    assert tree.depth == model.get_depth()
    assert tree.n_leaves == model.get_n_leaves()
    assert tree.predict(X).tolist() == list(model.predict(enc.transform(X)))
    # every split tests one category against the others
    assert "=" in tree.path_rule(0)
    names = ["unacc", "acc", "good", "vgood"]
    named = xdt.from_pystreed(model, encoder=enc, classes=names)
    assert named.predict(X).tolist() == [names[c] for c in model.predict(enc.transform(X))]


def test_streed_binarised_monk1_and_names():
    X, y = table("monk1-bin.csv")
    model = fit(streed(max_depth=3), X.to_numpy(), y.to_numpy())
    tree = xdt.from_pystreed(model, list(X.columns))
    assert [f.name for f in tree.features] == list(X.columns)
    assert {f.kind for f in tree.features} == {"binary"}
    assert tree.predict(X.to_numpy()).tolist() == list(model.predict(X.to_numpy()))
    # a DataFrame fit: features by name, in the frame's order when named
    model = fit(streed(max_depth=3), X, y)
    tree = xdt.from_pystreed(model, list(X.columns))
    assert tree.predict(X).tolist() == list(model.predict(X))


def test_streed_numeric_iris_through_its_thresholds():
    """STreeD binarises numeric columns at cut points of its own: each test is a threshold
    split at that cut point, and rows exactly on each cut point and one float64 step either
    side go as STreeD sends them."""
    X, y = table("iris.csv")
    model = fit(streed(max_depth=3, n_thresholds=7), X, y)
    tree = xdt.from_pystreed(model, list(X.columns))
    assert {f.kind for f in tree.features} == {"ordinal"}
    assert tree.predict(X).tolist() == list(model.predict(X))
    cont = model.binarizer_.continuous_binarizer
    rows = []
    for jj, col in enumerate(model.binarizer_.continuous_columns):
        for c in cont.thresholds_[jj]:
            for v in (c, np.nextafter(c, -np.inf), np.nextafter(c, np.inf)):
                row = X.iloc[::15].copy()
                row[col] = v
                rows.append(row)
    near = pd.concat(rows, ignore_index=True)
    assert tree.predict(near).tolist() == list(model.predict(near))
    cuts = {float(c) for jj in range(len(cont.thresholds_)) for c in cont.thresholds_[jj]}
    assert {float(t) for cells in tree.cells for t in cells.thresholds} <= cuts
    assert "<=" in tree.path_rule(0)


def test_streed_feature_selection_and_default_order():
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(rng.normal(size=(300, 3)), columns=["a", "b", "c"])
    frame.insert(1, "flag", rng.integers(0, 2, 300))
    y = (frame["a"] + frame["b"] > 0).astype(int) + (frame["flag"] * (frame["c"] > 1))
    model = fit(streed(max_depth=3, max_num_binary_features=6), frame, y)
    tree = xdt.from_pystreed(model)  # 0/1 columns first, then the others
    assert [f.name for f in tree.features] == ["flag", "a", "b", "c"]
    assert [f.kind for f in tree.features] == ["binary", "ordinal", "ordinal", "ordinal"]
    assert tree.predict(frame).tolist() == list(model.predict(frame))
    tree = xdt.from_pystreed(model, list(frame.columns))
    assert [f.name for f in tree.features] == list(frame.columns)
    assert tree.predict(frame.to_numpy()).tolist() == list(model.predict(frame))


@settings(max_examples=examples(25))
@given(seed=st.integers(0, 2**32 - 1), n_bin=st.integers(1, 5), n_num=st.integers(0, 3),
       k=st.integers(2, 4), depth=st.integers(0, 3))
def test_streed_random_data(seed, n_bin, n_num, k, depth):
    rng = np.random.default_rng(seed)
    n = 60
    X = np.hstack([rng.integers(0, 2, (n, n_bin)).astype(float),
                   np.round(rng.normal(size=(n, n_num)), rng.integers(0, 3))])
    y = rng.integers(0, k, n)
    y[:k] = np.arange(k)  # every class present
    model = fit(streed(max_depth=depth, n_thresholds=3), X, y)
    tree = xdt.from_pystreed(model)
    assert tree.predict(X).tolist() == list(model.predict(X))
    other = np.hstack([rng.integers(0, 2, (n, n_bin)).astype(float),
                       rng.normal(size=(n, n_num))])
    assert tree.predict(other).tolist() == list(model.predict(other))


def axps_hold_for_the_learner(tree, own_predict, rows: pd.DataFrame) -> None:
    """An AXp of each row of the imported ``tree`` (re-checked by the Explainer,
    ``verify=True``) is, over the whole feature space (every combination of the domains),
    sufficient for the learner's own prediction (``own_predict`` of a frame) and minimal:
    freeing any one of its features lets the learner predict another class."""
    space = pd.DataFrame(list(itertools.product(*(f.domain for f in tree.features))),
                         columns=[f.name for f in tree.features])
    own = np.asarray(own_predict(space))
    explainer = xdt.Explainer(tree)
    for i in range(len(rows)):
        x = rows.iloc[i].to_dict()
        label = np.asarray(own_predict(rows.iloc[[i]]))[0]
        axp = explainer.axp(x, verify=True)
        assert axp.verified

        def agree(features, x=x):
            mask = np.ones(len(space), bool)
            for f in features:
                mask &= (space[f] == x[f]).to_numpy()
            return mask

        assert set(own[agree(axp.features)]) == {label}
        for f in axp.features:
            assert set(own[agree([g for g in axp.features if g != f])]) != {label}


def test_streed_axp_checked_against_the_learner():
    X, y, enc = car()
    model = fit(streed(max_depth=4), enc.transform(X), y)
    tree = xdt.from_pystreed(model, encoder=enc)
    axps_hold_for_the_learner(tree, lambda f: model.predict(enc.transform(f)),
                              X.iloc[[0, 100, 900, 1500]])


def test_streed_binary_feature_refuses_other_values():
    X, y = table("monk1-bin.csv")
    tree = xdt.from_pystreed(fit(streed(max_depth=2), X.to_numpy(), y.to_numpy()))
    row = X.to_numpy()[:1].copy()
    row[0, :] = 2
    with pytest.raises(UnknownCategoryError):
        tree.predict(row)


def test_streed_errors():
    X, y, enc = car()
    Z = enc.transform(X)
    with pytest.raises(NotFittedError, match="not fitted"):
        xdt.from_pystreed(streed())
    regressor = fit(pystreed.STreeDRegressor(max_depth=1), Z, y.astype(float))
    with pytest.raises(UnsupportedEstimatorError, match="no class labels"):
        xdt.from_pystreed(regressor)
    with pytest.raises(UnsupportedEstimatorError, match="costs or group"):
        xdt.from_pystreed(pystreed.STreeDCostSensitiveClassifier())
    from sklearn.tree import DecisionTreeClassifier
    with pytest.raises(UnsupportedEstimatorError, match="STreeDClassifier"):
        xdt.from_pystreed(DecisionTreeClassifier().fit(Z, y))
    # pystreed's own categorical binarisation: the domains are not in the model
    model = fit(streed(max_depth=2), X.to_numpy(), y)
    assert xdt.from_pystreed(model).predict(X.to_numpy()).tolist() == \
        list(model.predict(X.to_numpy()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = streed(max_depth=2).fit(X.to_numpy(), y, categorical=[0, 1])
    with pytest.raises(UnsupportedEstimatorError, match="TabularEncoder"):
        xdt.from_pystreed(model)
    model = fit(streed(max_depth=2), Z, y)
    with pytest.raises(UnsupportedEstimatorError, match="feature names"):
        xdt.from_pystreed(model, ["a", "b"])
    with pytest.raises(ParameterError, match="not both"):
        xdt.from_pystreed(model, list(enc.encoded_names_), encoder=enc)
    with pytest.raises(UnsupportedEstimatorError, match="encoder makes 12 columns"):
        xdt.from_pystreed(model, encoder=TabularEncoder(categorical=["buying", "maint"]).fit(X))
    with pytest.raises(ParameterError, match="4 distinct labels"):
        xdt.from_pystreed(model, encoder=enc, classes=["a", "a", "b", "c"])
    with pytest.raises(ParameterError, match="sequence of 4 labels.*'abcd'"):
        xdt.from_pystreed(model, encoder=enc, classes="abcd")  # 4 letters, not 4 labels
    frame = fit(streed(max_depth=2), pd.DataFrame(Z[:, :5], columns=list("abcde")), y)
    with pytest.raises(UnknownFeatureError, match="absent from feature_names"):
        xdt.from_pystreed(frame, list("abcdf"))


def test_importers_check_the_encoder_before_reading_it():
    """An unfitted encoder, or an object that is no TabularEncoder, is named as such, not met
    with an AttributeError from inside the importer."""
    X, y, enc = car()
    Z = enc.transform(X).astype(int)
    tree_model, dl85_model = fit(streed(max_depth=2), Z, y), fit(dl85(max_depth=2), Z, y)
    for load in (xdt.from_pystreed, xdt.from_dl85):
        model = tree_model if load is xdt.from_pystreed else dl85_model
        with pytest.raises(NotFittedError, match=r"TabularEncoder is not fitted.*fit\(frame\)"):
            load(model, encoder=TabularEncoder())
        with pytest.raises(ParameterError, match="encoder= takes a fitted TabularEncoder, not "
                                                 "OneHotEncoder"):
            from sklearn.preprocessing import OneHotEncoder
            load(model, encoder=OneHotEncoder().fit(X))


def test_missing_package_says_which_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pystreed", None)
    monkeypatch.setitem(sys.modules, "pydl85", None)
    with pytest.raises(UnsupportedEstimatorError, match=r"xdt\[optimal\]"):
        xdt.from_pystreed(object())
    with pytest.raises(UnsupportedEstimatorError, match=r"xdt\[optimal\]"):
        xdt.from_dl85(object(), ["a"])


# --- DL8.5 ------------------------------------------------------------------------------

def dl85(**kw):
    return pydl85.DL85Classifier(**kw)


@pytest.mark.parametrize("depth", [2, 3])
def test_dl85_car_one_hot_regrouped(depth):
    X, y, enc = car()
    Z = enc.transform(X).astype(int)
    model = fit(dl85(max_depth=depth), Z, y)
    tree = xdt.from_dl85(model, encoder=enc)
    assert [f.kind for f in tree.features] == ["categorical"] * 6
    assert tree.predict(X).tolist() == list(model.predict(Z))
    names = ["unacc", "acc", "good", "vgood"]
    named = xdt.from_dl85(model, encoder=enc, classes=names, target="class")
    assert named.predict(X).tolist() == [names[c] for c in model.predict(Z)]


def test_dl85_binarised_monk1():
    X, y = table("monk1-bin.csv")
    model = fit(dl85(max_depth=3), X.to_numpy(), y.to_numpy())
    tree = xdt.from_dl85(model, list(X.columns))
    assert tree.predict(X.to_numpy()).tolist() == list(model.predict(X.to_numpy()))
    assert tree.depth == model.depth_


@settings(max_examples=examples(25))
@given(seed=st.integers(0, 2**32 - 1), m=st.integers(1, 6), k=st.integers(2, 3),
       depth=st.integers(0, 3))
def test_dl85_random_data(seed, m, k, depth):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (50, m))
    y = rng.integers(0, k, 50)
    y[:k] = np.arange(k)
    model = fit(dl85(max_depth=depth), X, y)
    tree = xdt.from_dl85(model, [f"b{i}" for i in range(m)])
    every = np.array(list(itertools.product((0, 1), repeat=m)))
    assert tree.predict(every).tolist() == list(model.predict(every))


def test_dl85_axp_checked_against_the_learner():
    X, y, enc = car()
    model = fit(dl85(max_depth=3), enc.transform(X).astype(int), y)
    tree = xdt.from_dl85(model, encoder=enc)
    axps_hold_for_the_learner(tree, lambda f: model.predict(enc.transform(f).astype(int)),
                              X.iloc[[5, 700, 1600]])


def test_dl85_errors():
    X, y, enc = car()
    Z = enc.transform(X).astype(int)
    with pytest.raises(NotFittedError, match="not fitted"):
        xdt.from_dl85(dl85(), ["a"])
    with pytest.raises(UnsupportedEstimatorError, match="DL85Classifier"):
        xdt.from_dl85(streed(), ["a"])
    model = fit(dl85(max_depth=2), Z, y)
    with pytest.raises(ParameterError, match="feature_names"):
        xdt.from_dl85(model)
    with pytest.raises(ParameterError, match="not both"):
        xdt.from_dl85(model, list(enc.encoded_names_), encoder=enc)
    with pytest.raises(ParameterError, match="4 distinct labels"):
        xdt.from_dl85(model, encoder=enc, classes=["a", "b"])
    with pytest.raises(ParameterError, match="sequence of 4 labels"):
        xdt.from_dl85(model, encoder=enc, classes="abcd")
    with pytest.raises(UnsupportedEstimatorError, match="columns were named"):
        xdt.from_dl85(model, ["a"])
    with pytest.raises(UnsupportedEstimatorError, match="codes"):
        xdt.from_dl85(fit(dl85(max_depth=1), Z, y + 3), encoder=enc)
    empty = fit(dl85(max_depth=1), Z, y)
    empty.tree_ = None  # what fit leaves when its search finds no tree within max_error
    with pytest.raises(NotFittedError, match="found no tree"):
        xdt.from_dl85(empty, encoder=enc)

    def error(tids):
        return 0, 0.0

    custom = fit(dl85(max_depth=1, error_function=error), Z, y)
    with pytest.raises(UnsupportedEstimatorError, match="error_function"):
        xdt.from_dl85(custom, encoder=enc)
    # DL8.5 itself refuses other values than 0/1; an encoder whose column is numeric cannot
    # be the one the model was fitted through
    numeric = TabularEncoder().fit(pd.DataFrame({"n": [0, 1, 2, 3] * 5, "b": [0, 1] * 10}))
    bits = np.array([[0, 0], [1, 0], [0, 1], [1, 1]] * 5)
    model = fit(dl85(max_depth=1), bits, bits[:, 0])
    with pytest.raises(UnsupportedEstimatorError, match="0/1 columns only"):
        xdt.from_dl85(model, encoder=numeric)



def test_a_dl85_tree_deeper_than_the_recursion_limit_imports():
    # a chain over 0/1 columns: node j tests column j; 1 goes left to a leaf of class j % 2,
    # 0 goes on down; the last node's 0 is class 1. Row e_k (only column k set) reaches
    # node k's left leaf.
    depth = 3 * sys.getrecursionlimit()
    bits = np.array([[0, 0], [1, 0], [0, 1], [1, 1]] * 5)
    model = fit(dl85(max_depth=1), bits, bits[:, 0])
    node: dict = {"value": 1}
    for j in reversed(range(depth)):
        node = {"feat": j, "left": {"value": j % 2}, "right": node}
    model.tree_ = node
    tree = xdt.from_dl85(model, [f"c{j}" for j in range(depth)])
    ks = [0, 1, 999, 1000, depth - 1]
    rows = np.zeros((len(ks) + 1, depth), dtype=int)
    for r, k in enumerate(ks):
        rows[r, k] = 1
    assert tree.predict(rows).tolist() == [k % 2 for k in ks] + [1]

def test_readme_optimal_block_runs_as_written():
    from mdblocks import readme_block

    block = readme_block("STreeDClassifier")
    scope: dict = {}
    exec("import xdt\n" + block, scope)  # noqa: S102 - the README's own example
    model, est, enc, X, names = (scope[k] for k in ("model", "est", "enc", "X", "names"))
    assert model.predict(X).tolist() == names[est.predict(enc.transform(X))].tolist()
    assert xdt.Explainer(model).axp(X.iloc[0]).rule == (
        "IF duration <= 24 AND credit_history = critical/other existing credit "
        "THEN class = good")
