"""The clustering fit reads its table once and ranks nodes in one compiled pass, with the
same clusters, rules, scores and training rows as the code it replaced.

References kept here: the fit as it was (every round took its rows of the original table,
adapted the view to them and transformed them; every node's rows were a mask made edge by
edge from ``tree.encode``), the Preprocessor's value-by-value reading of categorical
columns, and, on Adult and Titanic, the numbers the replaced code gave (``REFERENCE``:
clusters, the ``ranking_`` table and the frames the tree learner received in every round).
"""

from __future__ import annotations

import copy
import hashlib
import math
import numbers
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from conftest import DATASETS, require_shared
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference.cluster import training_frame
from tiers import examples

import xdt.cluster._supervised as cluster
from xdt.cluster._preprocess import (
    MISSING,
    ColumnTreatment,
    Preprocessor,
    _bins,
    _factorize,
    _looks_like_dates,
    _parse_dates,
    _plain,
    _sort_key,
)
from xdt.cluster._supervised import SupervisedClusters, _rows_of, _same, tree_nodes
from xdt.errors import UnknownCategoryError
from xdt.interop._columns import _named_like_an_id, id_column_reason
from xdt.ir import CategoricalSplit, DecisionTree, Feature, Leaf, ThresholdSplit
from xdt.ir._terms import Literal
from xdt.ir._tree import Branch
from xdt.learn._cart import CARTClassifier


# ---------------------------------------------------------------------- what a fit gives
class Recording(CARTClassifier):
    """CARTClassifier keeping the ``(X, y)`` of every fit (shared by the clones)."""

    seen: list[tuple[pd.DataFrame, np.ndarray]] = []

    def fit(self, X, y, sample_weight=None):
        Recording.seen.append((X.copy(), np.asarray(y).copy()))
        return super().fit(X, y, sample_weight)


def frame_digest(X: pd.DataFrame) -> str:
    """A digest of a training frame: column names, and per column its values (a
    categorical's codes and the text of its categories, in order; others their dtype and
    bytes)."""
    h = hashlib.sha256()
    for name in X.columns:
        col = X[name]
        h.update(str(name).encode())
        if isinstance(col.dtype, pd.CategoricalDtype):
            h.update(repr([str(c) for c in col.cat.categories]).encode())
            h.update(col.cat.codes.to_numpy().astype(np.int64).tobytes())
        else:
            h.update(str(col.dtype).encode())
            h.update(np.ascontiguousarray(col.to_numpy()).tobytes())
    return h.hexdigest()[:16]


def _py(v):
    return v.item() if isinstance(v, np.generic) else v


def fit_digest(sc: SupervisedClusters, seen: list) -> dict:
    """What must not change: each cluster's rule, numbers and rows, the ranking of every
    node, and the rows and columns the tree learner received in every round."""
    ranking = "\n".join(repr(tuple(_py(v) for v in row))
                        for row in sc.ranking_.itertuples(index=False))
    return {
        "clusters": [[c.rule, c.size, c.n_target, c.node_size, c.round, repr(c.f_beta),
                      repr(c.node_f_beta),
                      hashlib.sha256(np.packbits(c.mask).tobytes()).hexdigest()[:12]]
                     for c in sc.clusters_],
        "ranking": hashlib.sha256(ranking.encode()).hexdigest()[:16],
        "n_ranking": len(sc.ranking_),
        "train": [frame_digest(X) + ":" + hashlib.sha256(
            np.asarray(y, dtype=np.int64).tobytes()).hexdigest()[:8] for X, y in seen],
    }


def run(params: dict, X, y, fallback: bool = False) -> dict:
    depth = params.pop("max_depth", 3)
    Recording.seen = []
    with mock.patch.object(cluster, "_default_reordering",
                           (lambda cls: None) if fallback else cluster._default_reordering):
        sc = SupervisedClusters(learner=Recording(max_depth=depth, merge_leaves=False),
                                **params).fit(X, y)
    return fit_digest(sc, Recording.seen)


# ---------------------------------------------------------------------- the data
def _adult():
    X = (pd.read_csv(require_shared(DATASETS / "adult.csv.gz")).dropna()
         .reset_index(drop=True).drop(columns="income"))
    y = ((X.education.isin(["Bachelors", "Masters", "Doctorate"]) & (X.age > 40))
         | (X.occupation.isin(["Craft-repair", "Transport-moving", "Handlers-cleaners"])
            & (X["hours-per-week"] > 45))
         | (X["marital-status"].isin(["Divorced", "Separated", "Widowed"])
            & (X.sex == "Female") & (X.age <= 35))).to_numpy()
    flip = np.random.default_rng(0).random(len(y)) < 0.02
    return X, np.where(flip, ~y, y).astype(int)


def _titanic(columns: bool):
    df = pd.read_csv(require_shared(DATASETS / "titanic.csv"))
    if columns:
        return df[["Pclass", "Sex", "SibSp", "Parch", "Fare"]], df["Survived"]
    return df.drop(columns="Survived"), df["Survived"]


#: name -> (data, SupervisedClusters parameters (max_depth: the learner's), fallback
#: reordering without xdt's preprocessor). Titanic's Cabin is kept with its codes
#: (``keep``), as the replaced code read it (it is reduced to known / missing by default).
SETTINGS = {
    "adult reorder": ("adult", {"target_class": 1, "n_clusters": 3, "reorder": True}, False),
    "adult plain": ("adult", {"target_class": 1, "n_clusters": 3}, False),
    "adult single-tree": ("adult", {"target_class": 1, "n_clusters": 4, "reorder": True,
                                    "strategy": "single-tree", "beta": 0.33,
                                    "min_size": 50}, False),
    "adult depth 5": ("adult", {"target_class": 1, "n_clusters": 5, "reorder": True,
                                "beta": 0.33, "max_depth": 5}, False),
    "adult fallback": ("adult", {"target_class": 1, "n_clusters": 3, "reorder": True}, True),
    "titanic 100 bins": ("titanic", {"target_class": 1, "n_clusters": 3,
                                     "preprocessor": Preprocessor(n_bins=100, keep=["Cabin"])},
                         False),
    "titanic 8 clusters": ("titanic", {"target_class": 1, "n_clusters": 8,
                                       "preprocessor": Preprocessor(keep=["Cabin"])}, False),
    "titanic reorder": ("titanic", {"target_class": 1, "n_clusters": 4, "reorder": True,
                                    "preprocessor": Preprocessor(n_bins=100, reorder=True,
                                                                 positive=1, keep=["Cabin"])},
                        False),
    "titanic columns": ("titanic5", {"target_class": 1, "n_clusters": 3}, False),
    "titanic single-tree": ("titanic5", {"target_class": "1", "n_clusters": 3,
                                         "strategy": "single-tree"}, False),
    "titanic fallback": ("titanic5", {"target_class": 1, "n_clusters": 3, "reorder": True},
                         True),
}

#: fit_digest of each setting, from the code this module's fast paths replaced
REFERENCE: dict[str, dict] = {
    "adult reorder": {
        "clusters": [
            ["education in {Bachelors, Doctorate, Masters} AND age > 40",
             3292, 3215, 3292, 0, "0.6947595894111291", "0.6947595894111291", "158d46cd9949"],
            ["hours-per-week > 45 AND occupation in {Craft-repair, Handlers-cleaners, "
             "Transport-moving}",
             1528, 1499, 1470, 1, "0.4002135896409024", "0.6837363679468942", "64d2c41801d0"],
            ["marital-status in {Divorced, Separated} AND age <= 35 AND sex = Female",
             830, 815, 820, 2, "0.23995289268364492", "0.7572906867356538", "6c810ba3bf6e"],
        ],
        "ranking": "9fe997d6262b2f08", "n_ranking": 45,
        "train": [
            "5e7e57e4d1c7b387:d8009ba3", "b0e59dc1849c6763:617565cd", "d4839ccf37447dd0:dc699f56",
        ],
    },
    "adult plain": {
        "clusters": [
            ["12.5 < education-num AND 40.5 < age AND education != Prof-school",
             3292, 3215, 3292, 0, "0.6947595894111291", "0.6947595894111291", "158d46cd9949"],
            ["45.5 < hours-per-week AND occupation = Craft-repair",
             851, 834, 812, 1, "0.2447901379512768", "0.447191011235955", "1811c1f7ea2d"],
            ["occupation != Transport-moving AND marital-status = Divorced AND age <= 35.5",
             1011, 649, 963, 2, "0.18611987381703468", "0.4130360205831904", "6a7134bb0589"],
        ],
        "ranking": "62532475cee3be6a", "n_ranking": 45,
        "train": [
            "f1ce6152c3779184:d8009ba3", "4c45f8c5faa377fd:617565cd", "4371616b860de9a1:cc856838",
        ],
    },
    "adult single-tree": {
        "clusters": [
            ["education in {Bachelors, Doctorate, Masters} AND age > 40",
             3292, 3215, 3292, 0, "0.9045364598666142", "0.9045364598666142", "158d46cd9949"],
            ["education not in {Bachelors, Doctorate, Masters} AND hours-per-week > 45 AND "
             "occupation in {Craft-repair, Exec-managerial, Handlers-cleaners, Prof-specialty, "
             "Transport-moving}",
             2535, 1437, 2535, 0, "0.5004094843605992", "0.5004094843605992", "928d135f04d4"],
            ["education not in {Bachelors, Doctorate, Masters} AND hours-per-week <= 45 AND "
             "marital-status in {Divorced, Separated}",
             3523, 706, 3523, 0, "0.18763514948468024", "0.18763514948468024", "3189e70f49c8"],
            ["education in {Bachelors, Doctorate, Masters} AND age <= 40 AND marital-status in "
             "{Divorced, Separated}",
             281, 88, 281, 0, "0.10488636411271335", "0.10488636411271335", "fac204ef1e39"],
        ],
        "ranking": "213f520c9f436ce2", "n_ranking": 15,
        "train": [
            "5e7e57e4d1c7b387:d8009ba3",
        ],
    },
    "adult depth 5": {
        "clusters": [
            ["education in {Bachelors, Doctorate, Masters} AND age > 40",
             3292, 3215, 3292, 0, "0.9045364598666142", "0.9045364598666142", "158d46cd9949"],
            ["hours-per-week > 45 AND occupation in {Craft-repair, Handlers-cleaners, "
             "Transport-moving}",
             1528, 1499, 1470, 1, "0.7634166749832721", "0.9037882112335051", "64d2c41801d0"],
            ["marital-status in {Divorced, Separated} AND age <= 35 AND sex = Female",
             830, 815, 820, 2, "0.6109040147949396", "0.927710238599477", "6c810ba3bf6e"],
            ["marital-status = Widowed AND age <= 35 AND sex = Female",
             28, 26, 28, 3, "0.04256369518197348", "0.3492221916716429", "a5f755357963"],
            ["native-country in {England, Jamaica, South}",
             237, 60, 187, 4, "0.07506340180242872", "0.04645045082782671", "d522ab18d7ac"],
        ],
        "ranking": "8081c4ed74481a64", "n_ranking": 283,
        "train": [
            "5e7e57e4d1c7b387:d8009ba3", "b0e59dc1849c6763:617565cd", "d4839ccf37447dd0:dc699f56",
            "c548b7173b6cb689:d9fde5ab", "3227f1416b4d2aaa:ad0d34c5",
        ],
    },
    "adult fallback": {
        "clusters": [
            ["education in {Bachelors, Masters, Doctorate} AND 40.5 < age",
             3292, 3215, 3292, 0, "0.6947595894111291", "0.6947595894111291", "158d46cd9949"],
            ["45.5 < hours-per-week AND occupation in {Handlers-cleaners, Craft-repair, "
             "Transport-moving}",
             1528, 1499, 1470, 1, "0.4002135896409024", "0.6837363679468942", "64d2c41801d0"],
            ["marital-status in {Divorced, Separated} AND age <= 35.5 AND sex = Female",
             830, 815, 820, 2, "0.23995289268364492", "0.7572906867356538", "6c810ba3bf6e"],
        ],
        "ranking": "c0c3a9f71b61fe45", "n_ranking": 45,
        "train": [
            "a40ae2fd315a3f68:d8009ba3", "a64842a5553c28b5:617565cd", "672f7cc603f23196:dc699f56",
        ],
    },
    "titanic 100 bins": {
        "clusters": [
            ["Sex = female",
             314, 233, 314, 0, "0.7103658536585367", "0.7103658536585367", "632bd6b812b5"],
            ["Cabin != (missing)",
             204, 136, 107, 1, "0.4981684981684981", "0.4166666666666667", "e7079a67c33a"],
            ["Age <= 3",
             30, 20, 14, 2, "0.10752688172043011", "0.23076923076923078", "75eb401e10d1"],
        ],
        "ranking": "c981c833dbd4e2b1", "n_ranking": 41,
        "train": [
            "9c02c8a6fde6713f:3b524029", "0e5e87968d0bd46f:215631d4", "6b9b41dfc738913b:41bc6be5",
        ],
    },
    "titanic 8 clusters": {
        "clusters": [
            ["Sex = female",
             314, 233, 314, 0, "0.7103658536585367", "0.7103658536585367", "632bd6b812b5"],
            ["Cabin != (missing)",
             204, 136, 107, 1, "0.4981684981684981", "0.4166666666666667", "e7079a67c33a"],
            ["Age <= 14 AND SibSp <= 1",
             44, 38, 14, 2, "0.19689119170984457", "0.3333333333333333", "796dabb931d9"],
            ["Pclass > 1",
             675, 206, 429, 3, "0.4051130776794493", "0.1875", "c6c1e41abac5"],
            ["Age <= 50 AND Fare <= 39.6875",
             520, 179, 6, 4, "0.41531322505800466", "0.6666666666666666", "2f41071c7ef0"],
            ["SibSp > 1",
             74, 20, 1, 5, "0.09615384615384615", "0.6666666666666666", "0c6ad9bdfdbf"],
            ["10.5 < Fare <= 27 AND Age is missing",
             42, 16, 2, 6, "0.08333333333333333", "0.6666666666666666", "b22222f95589"],
        ],
        "ranking": "ba4c820c42e60389", "n_ranking": 85,
        "train": [
            "52cf09293d74b8cb:3b524029", "7cc432abcb66cb90:215631d4", "3fda6472adec5bc9:41bc6be5",
            "9b6187f439894914:03e8a7a0", "67fba6ce7d6c23ab:e9e63127", "3bf963ec798db9d7:3a4582ba",
            "e453dad3e04dd88e:df121c58",
        ],
    },
    "titanic reorder": {
        "clusters": [
            ["Sex = female",
             314, 233, 314, 0, "0.7103658536585367", "0.7103658536585367", "632bd6b812b5"],
            ["Cabin not in {(missing), B77, C123, C124, C125, C126, C2, C52, C65, C68, C78, "
             "C83, A36, A5, A6, A7, B101, B102, B19, B3, B30, B37, B38, B39, B4, B41, B42, B50, "
             "B69, B71, B73, B78, B79, B80, B82 B84, D6, D7, D9, E10, E12, E17, E31, E34, E36, "
             "E38, E40, E46, E49, E50, E58, E63, E68, E77, F E69, F G63, F38, T}",
             137, 97, 69, 1, "0.4050104384133612", "0.38202247191011235", "92db4b54829b"],
            ["(Age > 3 or Age is missing) AND Pclass <= 1",
             214, 135, 62, 2, "0.48561151079136694", "0.23357664233576642", "93c0e4a1a501"],
            ["Age <= 3",
             30, 20, 14, 3, "0.10752688172043011", "0.2465753424657534", "75eb401e10d1"],
        ],
        "ranking": "45247904554fdfbb", "n_ranking": 54,
        "train": [
            "a58fccd0096d295e:3b524029", "ac3f6696af67e623:215631d4", "f4044a5b26630d3c:feaf7138",
            "30970e505099b7a3:0bcfe96f",
        ],
    },
    "titanic columns": {
        "clusters": [
            ["Sex = female",
             314, 233, 314, 0, "0.7103658536585367", "0.7103658536585367", "632bd6b812b5"],
            ["26.26875 < Fare AND SibSp <= 2.5",
             253, 157, 139, 1, "0.5277310924369748", "0.43548387096774194", "3aa87b8f7b7f"],
            ["0.5 < Parch AND SibSp <= 1.5 AND 8.46045 < Fare",
             152, 95, 28, 2, "0.3846153846153846", "0.3614457831325301", "42b35481a875"],
        ],
        "ranking": "e14db462850e51be", "n_ranking": 45,
        "train": [
            "defdd169d662cdc7:3b524029", "0c33459ddb9f8ca1:215631d4", "9d925bf063df8fca:76a92a0a",
        ],
    },
    "titanic single-tree": {
        "clusters": [
            ["Sex = female",
             314, 233, 314, 0, "0.7103658536585367", "0.7103658536585367", "632bd6b812b5"],
            ["Sex = male",
             577, 109, 577, 0, "0.23721436343852012", "0.23721436343852012", "ddca98164dcb"],
        ],
        "ranking": "5fca4e612db091d9", "n_ranking": 15,
        "train": [
            "defdd169d662cdc7:3b524029",
        ],
    },
    "titanic fallback": {
        "clusters": [
            ["Sex = female",
             314, 233, 314, 0, "0.7103658536585367", "0.7103658536585367", "632bd6b812b5"],
            ["26.26875 < Fare AND SibSp <= 2.5",
             253, 157, 139, 1, "0.5277310924369748", "0.43548387096774194", "3aa87b8f7b7f"],
            ["0.5 < Parch AND SibSp <= 1.5 AND 8.46045 < Fare",
             152, 95, 28, 2, "0.3846153846153846", "0.3614457831325301", "42b35481a875"],
        ],
        "ranking": "3b9975c72dfea4dd", "n_ranking": 45,
        "train": [
            "79303e27bbf86f49:3b524029", "c1ad83b796a5414e:215631d4", "40f5833b14c843b9:76a92a0a",
        ],
    },
}


@pytest.fixture(scope="module")
def data():
    cache: dict = {}

    def get(name: str):
        if name not in cache:
            cache[name] = (_adult() if name == "adult" else _titanic(name == "titanic5"))
        return cache[name]
    return get


@pytest.mark.parametrize("name", list(SETTINGS))
def test_same_clusters_ranking_and_training_rows_as_the_replaced_code(name, data):
    source, params, fallback = SETTINGS[name]
    X, y = data(source)
    assert run(copy.deepcopy(params), X, y, fallback) == REFERENCE[name]


# ---------------------------------------------------------------------- the fit as it was
class _ReferenceNode:
    def __init__(self, number, parent, literals, rows, target):
        self.number, self.parent, self.literals, self.rows = number, parent, literals, rows
        self.size = int(rows.sum())
        self.n_target = int((rows & target).sum())


def reference_nodes(tree: DecisionTree, cells: np.ndarray, target: np.ndarray) -> list:
    """Every node in preorder with the rows (of ``cells``, from ``tree.encode``) reaching
    it, a mask per edge over all rows: the replaced ``tree_nodes``."""
    n = len(cells)
    out: list = []
    stack = [(tree.root, -1, (), np.ones(n, dtype=bool))]
    while stack:
        node, parent, lits, rows = stack.pop()
        me = len(out)
        out.append(_ReferenceNode(me, parent, lits, rows, target))
        if isinstance(node, Leaf):
            continue
        fi = tree.features.index(node.feature)
        n_cells = tree.cells[fi].n_cells
        col = cells[:, fi]
        for emask, child in reversed(tree.edges(node)):
            allowed = np.array([(emask >> c) & 1 for c in range(n_cells)], dtype=bool)
            stack.append((child, me, lits + (Literal(fi, emask),), rows & allowed[col]))
    return out


class ReferenceClusters(SupervisedClusters):
    """The fit as it was: each round takes its rows of the original table, then the view's
    ``refit_round`` and ``transform`` (:func:`reference.cluster.training_frame`, the plain
    path); node rows by :func:`reference_nodes`."""

    def _prepare(self, frame, is_target):
        self._shared_view = self._view(self.columns_, self.target_class_)
        self._shared_view.fit(frame.reset_index(drop=True), is_target.astype(np.int64))
        return frame

    def _train(self, table, is_target, rows, round_):
        view = copy.copy(self._shared_view)
        yb = is_target[rows].astype(np.int64)
        Xt = training_frame(view, table, rows, yb)
        est = self._learner()
        est.fit(Xt, yb)
        self.trees_.append(est.tree_)
        return view, est.tree_, reference_nodes(est.tree_, est.tree_.encode(Xt),
                                                yb.astype(bool))


@st.composite
def tables(draw):
    """Small tables with numbers, text (some values rare), a bool column, and the
    parameters of a fit; missing values only where a preprocessor treats them."""
    n = draw(st.integers(12, 120))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    pre = draw(st.sampled_from([None, "default", "bins"]))
    reorder = draw(st.booleans())
    X = pd.DataFrame({
        "a": rng.integers(0, draw(st.integers(2, 40)), n),
        "f": np.round(rng.normal(size=n), draw(st.integers(0, 2))),
        "t": rng.choice(list("pqrstuvw")[:draw(st.integers(2, 8))], n),
        "u": rng.choice(["x1", "x2", "x3"], n, p=[0.6, 0.3, 0.1]),
        "b": rng.random(n) < 0.5,
    })
    if pre is not None and draw(st.booleans()):
        X.loc[rng.random(n) < 0.15, "t"] = None
        X.loc[rng.random(n) < 0.15, "f"] = np.nan
    if draw(st.booleans()):
        X["t"] = X["t"].astype("category")
    y = np.where(((X.a > X.a.median()) & X.t.isin(["p", "q"])).to_numpy()
                 ^ (rng.random(n) < 0.2), 1, 0)
    if y.min() == y.max():
        y[0] = 1 - y[0]
    params = {"target_class": 1, "n_clusters": draw(st.integers(1, 4)),
              "max_depth": draw(st.integers(1, 3)), "reorder": reorder,
              "strategy": draw(st.sampled_from(["retrain", "single-tree"])),
              "beta": draw(st.sampled_from([0.33, 1.0, 2.0])),
              "min_size": draw(st.sampled_from([1, 5]))}
    if pre == "default":
        params["preprocessor"] = Preprocessor()
    elif pre == "bins":
        params["preprocessor"] = Preprocessor(n_bins=5, max_categories=4, n_groups=2)
    return X, y, params, draw(st.booleans()) and pre is None and reorder


def _fit_recorded(cls, X, y, params, fallback):
    Recording.seen = []
    depth = params["max_depth"]
    with mock.patch.object(cluster, "_default_reordering",
                           (lambda c: None) if fallback else cluster._default_reordering):
        sc = cls(learner=Recording(max_depth=depth, merge_leaves=False), **params).fit(X, y)
    return sc, Recording.seen


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables())
def test_fit_equals_the_fit_as_it_was(case):
    X, y, params, fallback = case
    fast, fast_seen = _fit_recorded(SupervisedClusters, X, y, copy.deepcopy(params), fallback)
    ref, ref_seen = _fit_recorded(ReferenceClusters, X, y, copy.deepcopy(params), fallback)
    assert len(fast_seen) == len(ref_seen)
    for (a, ya), (b, yb) in zip(fast_seen, ref_seen, strict=True):
        pd.testing.assert_frame_equal(a, b)
        assert np.array_equal(ya, yb)
    pd.testing.assert_frame_equal(fast.ranking_, ref.ranking_)
    assert [(c.rule, c.size, c.n_target, c.node_size, c.round, c.f_beta, c.node_f_beta,
             c.conditions) for c in fast.clusters_] == \
        [(c.rule, c.size, c.n_target, c.node_size, c.round, c.f_beta, c.node_f_beta,
          c.conditions) for c in ref.clusters_]
    for a, b in zip(fast.clusters_, ref.clusters_, strict=True):
        assert np.array_equal(a.mask, b.mask)
        assert np.array_equal(a.matches(X), b.matches(X))


# ---------------------------------------------------------------------- node rows
def _fixed_tree() -> DecisionTree:
    """x <= 5.5 ? (c = a ? L1 : L2) : (x <= 8.5 ? R1 : R2)."""
    return DecisionTree(
        [Feature("x", "ordinal"), Feature("c", "categorical", ("a", "b"))], [0, 1],
        ThresholdSplit("x", 5.5,
                       CategoricalSplit("c", (Branch(("a",), Leaf(1)), Branch(("b",), Leaf(0)))),
                       ThresholdSplit("x", 8.5, Leaf(1), Leaf(0))))


def test_node_rows_of_a_hand_made_tree():
    X = pd.DataFrame({"x": np.arange(1, 11),
                      "c": ["a", "a", "a", "b", "b", "a", "b", "b", "a", "a"]})
    target = np.array([1, 1, 1, 0, 0, 1, 1, 0, 0, 0], dtype=bool)
    tree = _fixed_tree()
    # preorder 0 root, 1 (x <= 5.5), 2 (c = a), 3 (c = b), 4 (x > 5.5), 5, 6; by hand:
    rows = {0: range(10), 1: range(5), 2: range(3), 3: [3, 4], 4: range(5, 10),
            5: [5, 6, 7], 6: [8, 9]}
    for given_as in (X, tree.encode(X)):
        nodes = tree_nodes(tree, given_as, target)
        assert [nd.parent for nd in nodes] == [-1, 0, 1, 1, 0, 4, 4]
        assert [nd.end for nd in nodes] == [6, 3, 2, 3, 6, 5, 6]
        for nd in nodes:
            assert np.flatnonzero(nd.rows).tolist() == list(rows[nd.number])
            assert nd.size == len(rows[nd.number])
            assert nd.n_target == int(target[list(rows[nd.number])].sum())
    assert [nd.n_target for nd in tree_nodes(tree, X)] == [0] * 7


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(), st.sampled_from([2, 4, None]))
def test_node_rows_equal_the_masks_edge_by_edge(case, depth):
    X, y, _, _ = case
    X = X.fillna({"f": 0.0})
    if isinstance(X.t.dtype, pd.CategoricalDtype):
        X["t"] = X.t.cat.add_categories(["none"]).fillna("none")
    else:
        X["t"] = X.t.fillna("none")
    X["t2"] = X.t.astype(str).astype("category")       # categories of a pandas column
    tree = CARTClassifier(max_depth=depth, merge_leaves=False).fit(X, y).tree_
    target = y.astype(bool)
    fast = tree_nodes(tree, X, target)
    ref = reference_nodes(tree, tree.encode(X), target)
    assert len(fast) == len(ref)
    for a, b in zip(fast, ref, strict=True):
        assert (a.number, a.parent, a.literals, a.size, a.n_target) == \
            (b.number, b.parent, b.literals, b.size, b.n_target)
        assert np.array_equal(a.rows, b.rows)


# ---------------------------------------------------------------------- reading the labels
labels = st.one_of(st.integers(-2, 2), st.booleans(), st.sampled_from(["1", "a", "b"]),
                   st.sampled_from([1.0, 0.5, math.nan]), st.none())


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(labels, min_size=1, max_size=30), labels)
def test_target_rows_equal_the_label_by_label_comparison(values, target):
    arr = np.empty(len(values), dtype=object)
    for i, v in enumerate(values):
        arr[i] = v
    expected = [_same(v, target) for v in arr]
    assert _rows_of(arr, target).tolist() == expected
    for kind in (np.int64, np.float64, np.bool_):     # numeric labels, as numbers
        try:
            numeric = np.asarray(values, dtype=kind)
        except (TypeError, ValueError):
            continue
        assert _rows_of(numeric, target).tolist() == \
            [_same(v, target) for v in numeric.tolist()]


# ---------------------------------------------------------------------- the Preprocessor as it was
def _old_looks_like_dates(col: pd.Series, threshold: float) -> bool:
    counts = col.dropna().value_counts()
    if len(counts) == 0 or not all(isinstance(v, str) for v in counts.index[:1000]):
        return False
    counts = counts.iloc[:5000]
    values = pd.Series(counts.index, dtype=object)
    weight = counts.to_numpy(dtype=np.float64) / counts.sum()
    numbers_ = pd.to_numeric(values, errors="coerce").notna().to_numpy()
    if weight[numbers_].sum() >= threshold:
        return False
    return bool(weight[_parse_dates(values).notna().to_numpy()].sum() >= threshold)


def _old_id_column_reason(col: pd.Series, kind: str):
    n = len(col)
    if n < 2 or col.isna().any():
        return None
    if kind == "categorical" and not isinstance(col.dtype, pd.CategoricalDtype):
        counts = col.value_counts(dropna=False)
        if len(counts) == n:
            return f"all {n} values are distinct (an id or name)"
        own = int((counts == 1).sum())
        if 2 * own > n and own >= 20:
            return f"{own} of the {n} rows have a value no other row has (an id or code)"
    if kind == "numeric" and pd.api.types.is_integer_dtype(col.dtype) and col.nunique() == n:
        if (np.diff(np.sort(col.to_numpy())) == 1).all() \
                and _named_like_an_id(str(col.name), loosely=True):
            return f"{n} distinct consecutive integers (a row id)"
        if _named_like_an_id(str(col.name), loosely=False):
            return f"{n} distinct integers in a column named like an id (a row id)"
    return None


class OldPreprocessor(Preprocessor):
    """The Preprocessor reading categorical columns value by value, as it did."""

    @staticmethod
    def _labels(col: pd.Series) -> pd.Series:
        obj = col.astype(object)
        missing = obj.isna().to_numpy()
        out = [MISSING if m else _plain(v) for v, m in zip(obj.to_numpy(), missing,
                                                            strict=True)]
        return pd.Series(out, index=col.index, dtype=object)

    def _kind(self, name, col, forced, values=None) -> str:
        if name in forced:
            return "categorical"
        dtype = col.dtype
        if pd.api.types.is_bool_dtype(dtype) and not col.isna().any():
            return "binary"
        if pd.api.types.is_datetime64_any_dtype(dtype):
            return "date"
        if isinstance(dtype, pd.CategoricalDtype):
            return "categorical"
        if pd.api.types.is_numeric_dtype(dtype):
            return "numeric"
        present = col.dropna()
        if len(present) and all(isinstance(v, bool | np.bool_) for v in present):
            return "binary" if len(present) == len(col) else "categorical"
        if len(present) and all(isinstance(v, numbers.Real) and not isinstance(v, bool)
                                for v in present):
            return "numeric"
        if _old_looks_like_dates(col, float(self.date_threshold)):
            return "date"
        return "categorical"

    def _fit(self, X, y, values):
        from xdt.cluster._preprocess import _as_frame, _columns_arg

        self._check_params()
        frame = _as_frame(X)
        names = [str(c) for c in frame.columns]
        forced = _columns_arg("categorical", self.categorical, names)
        ordinal = _columns_arg("ordinal", self.ordinal, names)
        reorder = _columns_arg("reorder", self.reorder, names)
        positive_rows = self._positive_rows(y, len(frame)) if reorder else None
        self.columns_, self.dropped_ = {}, {}
        for name in names:
            col = frame[name]
            kind = self._kind(name, col, forced)
            asked = [name for chosen, value in ((ordinal, self.ordinal),
                                                (reorder, self.reorder))
                     if value is not True and name in chosen]
            if self.drop_ids and not asked and (reason := _old_id_column_reason(col, kind)):
                self.dropped_[name] = reason
                continue
            if kind == "binary":
                t = ColumnTreatment(name, "binary", (False, True))
            elif kind == "numeric":
                t = self._fit_numeric(name, col)
            elif kind == "date":
                t = self._fit_date(name, col)
            else:
                t = self._fit_categorical(name, col, self.grouping,
                                          name in ordinal or name in reorder,
                                          positive_rows if name in reorder else None)
            object.__setattr__(t, "_index", {c: i for i, c in enumerate(t.codes)})
            self.columns_[name] = t
        self.feature_names_in_ = np.asarray(names, dtype=object)
        self.n_features_in_ = len(names)
        return frame

    def _fit_categorical(self, name, col, method, ordinal, positive_rows, values=None):
        from xdt.cluster._preprocess import group_values

        values = self._labels(col)
        counts = values.value_counts(sort=False)
        if isinstance(col.dtype, pd.CategoricalDtype):
            natural = [_plain(v) for v in col.dtype.categories if _plain(v) in counts.index]
        else:
            natural = sorted((v for v in counts.index if v != MISSING), key=_sort_key)
        if MISSING in counts.index:
            natural.append(MISSING)
        grouping = None
        if len(natural) > int(self.max_categories):
            grouping = method
            groups = group_values(natural, [int(counts[v]) for v in natural],
                                  int(self.n_groups), method)
        else:
            groups = [[v] for v in natural]
        reordered = positive_rows is not None
        if reordered:
            keyed = [(float(positive_rows[values.isin(g).to_numpy()].mean()), i)
                     for i, g in enumerate(groups)]
            groups = [groups[i] for _, i in sorted(keyed)]
        groups_t = tuple(tuple(g) for g in groups)
        order = tuple(v for g in groups_t for v in g)
        missing_at = next((i for i, g in enumerate(groups_t) if MISSING in g), None)
        if ordinal or reordered:
            codes: tuple = tuple(range(len(groups_t)))
            kind = "ordinal"
        else:
            codes = tuple(g[0] if len(g) == 1 else f"<group {i}>"
                          for i, g in enumerate(groups_t))
            kind = "nominal"
        return ColumnTreatment(name, kind, codes, groups=groups_t, order=order,
                               grouping=grouping, reordered=reordered,
                               missing_code=None if missing_at is None else codes[missing_at])

    def _transform_column(self, t, col, factorized=None):
        if t.kind == "binary" or t.is_binned:
            if t.is_binned and t.kind == "numeric":
                values = self._numbers(t.name, col)
                missing = np.isnan(values)
                codes = np.searchsorted(np.asarray(t.cuts, dtype=np.float64), values,
                                        side="left").astype(np.int64)
                if missing.any():
                    if t.missing_code is None:
                        raise UnknownCategoryError(f"{t.name}: missing")
                    codes[missing] = t.missing_code
                return pd.Series(codes, index=col.index, dtype=np.int64)
            return super()._transform_column(t, col)
        labels = self._labels(col)
        lookup = {v: t.codes[i] for i, g in enumerate(t.groups) for v in g}
        unseen = sorted({v for v in labels if v not in lookup}, key=_sort_key)
        if unseen:
            raise UnknownCategoryError(f"{t.name}: {unseen[:5]}")
        mapped = [lookup[v] for v in labels]
        if t.kind == "ordinal":
            return pd.Series(mapped, index=col.index, dtype=np.int64)
        return pd.Series(pd.Categorical(mapped, categories=list(t.codes)), index=col.index)

    def evaluate(self, column, codes, X):
        t = self._treatment(column)
        if t.is_binned or t.kind == "binary":
            return super().evaluate(column, codes, X)
        conds = self.conditions(column, codes)
        labels = self._labels(X[column])
        return labels.isin(conds[0].values).to_numpy() if conds else np.zeros(len(X), bool)


cells = st.one_of(st.sampled_from(["red", "blue", "green", "(missing)", "2020-01-01"]),
                  st.integers(-3, 3), st.booleans(), st.sampled_from([1.0, 2.5, -0.0]),
                  st.none(), st.just(math.nan))


@st.composite
def columns(draw):
    """One column: text with missing cells, mixed objects (``1`` beside ``True`` and
    ``1.0``), a pandas category, integers, floats with NaN, or booleans."""
    n = draw(st.integers(2, 40))
    kind = draw(st.sampled_from(["text", "mixed", "category", "int", "float", "bool"]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if kind == "mixed":
        values = draw(st.lists(cells, min_size=n, max_size=n))
        col = pd.Series(values, dtype=object)
    elif kind in ("text", "category"):
        words = ["alpha", "beta", "gamma", "delta", "eps"][:draw(st.integers(1, 5))]
        col = pd.Series(rng.choice(words, n), dtype="str")
        col[rng.random(n) < 0.2] = None
        if kind == "category":
            col = col.astype("category")
    elif kind == "int":
        col = pd.Series(rng.integers(-5, draw(st.integers(-4, 400)), n))
    elif kind == "float":
        col = pd.Series(np.round(rng.normal(size=n), 1))
        col[rng.random(n) < 0.2] = np.nan
    else:
        col = pd.Series(rng.random(n) < 0.5)
    return col


@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(columns(), min_size=1, max_size=3), st.booleans(), st.booleans(),
       st.integers(1, 4))
def test_preprocessor_equals_its_value_by_value_reading(cols, reorder, categorical, groups):
    n = min(len(c) for c in cols)
    X = pd.DataFrame({f"c{i}": c.iloc[:n].reset_index(drop=True) for i, c in enumerate(cols)})
    y = (np.arange(n) % 3 == 0).astype(int)
    params = {"n_bins": 4, "max_categories": groups, "n_groups": 2,
              "reorder": reorder, "positive": 1,
              "categorical": [c for c in X.columns if categorical
                              and X[c].dtype.kind in "iub"]}
    try:
        old = OldPreprocessor(**params).fit(X, y)
    except Exception as e:  # noqa: BLE001 - the same error must come from both
        with pytest.raises(type(e)):
            Preprocessor(**params).fit(X, y)
        return
    new = Preprocessor(**params).fit(X, y)
    if new.reduced_:   # filled cells id-like: the reference never reduces; keep the values
        params["keep"] = list(new.reduced_)
        new = Preprocessor(**params).fit(X, y)
    assert new.columns_ == old.columns_ and new.dropped_ == old.dropped_
    for name in X.columns:      # equal values (-0.0 == 0.0: a hash table keeps the first)
        assert new._labels(X[name]).tolist() == old._labels(X[name]).tolist()
    expected = old.transform(X)
    pd.testing.assert_frame_equal(new.transform(X), expected)
    pd.testing.assert_frame_equal(Preprocessor(**params).fit_transform(X, y), expected)
    rng = np.random.default_rng(n)
    for name, t in new.columns_.items():
        for _ in range(3):
            pick = [c for c in t.codes if rng.random() < 0.5] or [t.codes[0]]
            assert _outcome(new.evaluate, name, pick, X) == _outcome(old.evaluate, name, pick, X)


def _outcome(f, *args) -> object:
    """``f(*args)`` as a list, or the type of the error it raises."""
    try:
        return np.asarray(f(*args)).tolist()
    except Exception as e:  # noqa: BLE001 - compared with the other reading's
        return type(e)


DATE_LIKE = ["2020-01-01", "01/02/2020", "May", "now", "today", "Private", "12", "3.5",
             "2020-01-01T00:00:00+01:00", "2020-01-01T00:00:00+02:00", "2021-13-01",
             "1 Jan 2020", "Jan 2020", "Monday", "1999", "20200101", "x", "10:00",
             "9999-01-01", "1500-01-01", "2020/01/01 10:00"]


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.sampled_from(DATE_LIKE), min_size=1, max_size=40),
       st.sampled_from([0.5, 0.8, 0.95, 1.0]))
def test_dates_are_recognised_as_before(cells_, threshold):
    """Parsing the most frequent values first and stopping once too many failed gives the
    answer of parsing them all (formats, words, numbers, time zones, out-of-range dates)."""
    col = pd.Series(cells_, dtype="str")
    expected = _old_looks_like_dates(col, threshold)
    assert _looks_like_dates(col, threshold) == expected
    assert _looks_like_dates(col, threshold, _factorize(col).value_counts()) == expected


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.integers(-50, 300), min_size=1, max_size=60),
       st.lists(st.floats(-60, 310, allow_nan=False), max_size=8))
def test_bins_from_a_table_of_the_integers_equal_searchsorted(values, cuts):
    raw = np.asarray(values, dtype=np.int64)
    cut = np.unique(np.asarray(cuts, dtype=np.float64))
    expected = np.searchsorted(cut, raw.astype(np.float64), side="left")
    assert _bins(cut, raw.astype(np.float64), raw).tolist() == expected.tolist()
    assert _bins(cut, raw.astype(np.float64)).tolist() == expected.tolist()


def test_id_columns_are_found_as_before():
    n = 30
    cols = [pd.Series(np.arange(n), name="PassengerId"), pd.Series(np.arange(n), name="idx"),
            pd.Series(np.arange(n) * 2, name="customer_id"),
            pd.Series(np.arange(n), name="Paid"), pd.Series([f"n{i}" for i in range(n)]),
            pd.Series([f"n{i % 25}" for i in range(n)]), pd.Series(["a", "b"] * 15)]
    for col in cols:
        for kind in ("numeric", "categorical"):
            assert id_column_reason(col, kind) == _old_id_column_reason(col, kind)


# ---------------------------------------------------------------------- read once
class CountingPreprocessor(Preprocessor):
    """Counts how often the table is read (``fit``, ``transform``, ``fit_transform``)."""

    calls: list[str] = []

    def fit(self, X, y=None):
        CountingPreprocessor.calls.append("fit")
        return super().fit(X, y)

    def transform(self, X):
        CountingPreprocessor.calls.append("transform")
        return super().transform(X)

    def fit_transform(self, X, y=None, **fit_params):
        CountingPreprocessor.calls.append("fit_transform")
        return super().fit_transform(X, y)


def test_the_table_is_read_once_per_fit_not_once_per_round():
    df = pd.read_csv(require_shared(DATASETS / "titanic.csv"))
    X, y = df.drop(columns="Survived"), df["Survived"]
    for reorder in (False, True):
        CountingPreprocessor.calls = []
        sc = SupervisedClusters(1, n_clusters=4, reorder=reorder,
                                preprocessor=CountingPreprocessor(n_bins=20)).fit(X, y)
        assert len(sc.trees_) == 4
        assert CountingPreprocessor.calls == ["fit_transform"]
