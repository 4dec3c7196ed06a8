"""Real datasets (../shared/datasets): scikit-learn trees fitted through TabularEncoder and
imported predict exactly like scikit-learn on every row, and on a sample of rows every AXp the
explainer returns is checked independently (xdt.explain.checks._verify): fixing its features entails
the prediction (depth-first search over the tree; random points with those features fixed
never change the prediction, by the imported tree nor by scikit-learn), and dropping any one
of its features lets through a concrete point of another class."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.tree import DecisionTreeClassifier
from tiers import sweep

import xdt
from xdt.explain.checks import _verify as verify
from xdt.interop._tabular import TabularEncoder

DATASETS = [
    "german",            # string categoricals + numeric, 2 classes
    "banknote",          # numeric, 2 classes
    "iris",              # numeric, 3 classes
    "cardiotocography",  # numeric, 3 classes, 21 features
]
ROWS = 30
SAMPLES = 200


def load(datasets_dir, name: str) -> tuple[pd.DataFrame, np.ndarray]:
    frame = pd.read_csv(datasets_dir / f"{name}.csv")
    return frame.iloc[:, :-1], frame.iloc[:, -1].to_numpy()  # target: the last column


@pytest.fixture(scope="module")
def fitted():
    """Fit once per (dataset, depth) for the whole module."""
    cache: dict = {}

    def get(datasets_dir, name: str, depth):
        if (name, depth) not in cache:
            X, y = load(datasets_dir, name)
            enc = TabularEncoder().fit(X)
            est = DecisionTreeClassifier(max_depth=depth, random_state=0)
            est.fit(enc.transform(X), y)
            target = pd.read_csv(datasets_dir / f"{name}.csv", nrows=0).columns[-1]
            cache[name, depth] = X, y, enc, est, xdt.from_sklearn(est, encoder=enc,
                                                                    target=target)
        return cache[name, depth]

    return get


def test_datasets_cover_the_kinds(datasets_dir, fitted):
    kinds = set()
    n_classes = set()
    for name in DATASETS:
        X, y, enc, _, _ = fitted(datasets_dir, name, 6)
        kinds |= {f.kind for f in enc.features_}
        n_classes.add(len(set(y)))
    assert {"categorical", "ordinal"} <= kinds
    assert max(n_classes) >= 3


@pytest.mark.parametrize("depth", [6, None], ids=["depth6", "unbounded"])
@pytest.mark.parametrize("name", sweep(DATASETS))
def test_imported_tree_predicts_like_sklearn(datasets_dir, fitted, name, depth):
    X, y, enc, est, tree = fitted(datasets_dir, name, depth)
    assert tree.n_leaves == est.get_n_leaves() and tree.depth == est.get_depth()
    assert tree.features.names == tuple(X.columns)
    assert tree.predict(X).tolist() == est.predict(enc.transform(X)).tolist()
    if depth is None:  # an unbounded tree fits its training data (up to duplicate rows)
        assert np.mean(tree.predict(X) == y) > 0.95


@pytest.mark.parametrize("depth", sweep([6, None]), ids=["depth6", "unbounded"])
@pytest.mark.parametrize("name", sweep(DATASETS))
def test_axps_checked_independently(datasets_dir, fitted, name, depth):
    X, y, enc, est, tree = fitted(datasets_dir, name, depth)
    ex = xdt.Explainer(tree)
    rng = np.random.default_rng(0)
    rows = rng.choice(len(X), size=ROWS, replace=False)
    checked = caught = 0
    for r in rows:
        x = X.iloc[r]
        prediction = ex.predict(x)
        assert prediction == est.predict(enc.transform(X.iloc[[r]]))[0]
        axps = {ex.axp(x), ex.axp(x, order="features"), *ex.all_axps(x)}
        drops, samples = [], []
        for axp in axps:
            report = verify.check_axp(tree, x, axp.features)
            assert report.prediction == prediction
            assert report.entails, (r, axp.features, report.reachable)
            assert report.minimal, (r, axp.features, report.drop_counterexamples)
            # dropping any one feature: a concrete point that agrees with x on the rest of
            # the AXp (and is of another class: checked below, in one batch per row)
            for dropped, point in report.drop_counterexamples.items():
                assert all(point[f] == x[f] for f in axp.features if f != dropped)
                drops.append(point)
            # random points with the AXp's features fixed
            samples.append(verify.sample_points(tree, x, axp.features, SAMPLES, rng=rng,
                                                data=X))
            checked += 1
        if drops:
            drops = pd.DataFrame(drops, columns=X.columns)
            assert not np.any(tree.predict(drops) == prediction)
            assert not np.any(est.predict(enc.transform(drops)) == prediction)
        samples = pd.concat(samples, ignore_index=True)
        assert np.all(tree.predict(samples) == prediction)
        assert np.all(est.predict(enc.transform(samples)) == prediction)
        # the sampler has teeth: without one of its features it often finds a counterexample
        smallest = min(axps, key=len)
        if len(smallest):
            caught += verify.sample_counterexample(
                tree, x, smallest.features[1:], SAMPLES, rng=rng, data=X) is not None
        # the CXps' counterexamples are real
        cxps = ex.all_cxps(x)
        if cxps:
            points = pd.DataFrame([c.counterexample for c in cxps], columns=X.columns)
            assert tree.predict(points).tolist() == [c.counterexample_class for c in cxps]
            assert all(c.counterexample_class != prediction for c in cxps)
    assert checked >= ROWS
    assert caught >= ROWS // 2, caught


@pytest.mark.parametrize("name", ["german", "cardiotocography"])
def test_path_restricted_axps_checked_independently(datasets_dir, fitted, name):
    X, y, enc, est, tree = fitted(datasets_dir, name, 6)
    ex = xdt.Explainer(tree)
    rows = np.random.default_rng(1).choice(len(X), size=ROWS, replace=False)
    for r in rows:
        x = X.iloc[r]
        path = set(ex.path_features(x))
        restricted = ex.all_axps(x, path_restricted=True)
        for axp in restricted:
            assert set(axp.features) <= path
            report = verify.check_axp(tree, x, axp.features, path_restricted=True)
            assert report.is_axp
        redundant = ex.path_is_redundant(x)
        assert redundant == ({frozenset(a.features) for a in restricted} != {frozenset(path)})
