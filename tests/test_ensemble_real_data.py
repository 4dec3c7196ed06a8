"""Real datasets (../shared/datasets): explanations of random forests (scikit-learn) and
boosted trees (XGBoost), checked through each library's own ``predict``, not through xdt.

For a small forest and a small XGBoost model on each of compas, banknote, pima, adult and
german, and a few distinct rows of each:

* every AXp ``Explainer.axp`` returns keeps the library's prediction on many random points
  that agree with the row on the AXp's features: the other features take values drawn from
  the column's values in the data and from the *library's own* thresholds, exactly on them
  and one float32 and one float64 step either side (where the comparisons of scikit-learn,
  ``float32(x) <= t``, and XGBoost, ``float32(x) < t``, decide);
* dropping any one feature of it lets the library's prediction change at a point xdt gives
  (the counterexample of the CXp-check ``Explainer.counterexample``), checked by the library;
* every CXp ``Explainer.all_cxps`` returns has a counterexample that the library predicts
  otherwise, and so does the row with only the CXp's features set to the counterexample's
  values.

Categorical columns (german, adult) are given to both libraries as category codes.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import RandomForestClassifier
from tiers import sweep

import xdt

DATASETS = {"compas": "compas.csv", "banknote": "banknote.csv",
            "pima": "indians-diabetes.csv", "adult": "adult.csv.gz", "german": "german.csv"}
ROWS = 6
SAMPLES = 1000
ADULT_ROWS = 5000
"""adult is fitted on a random part of its rows (the checks do not need all 30,162)."""


def need_xgboost():
    """The xgboost module; skips (outside CI) or fails (under CI=true, where the test extra
    installs it) when it is not installed."""
    try:
        import xgboost
    except ImportError:
        message = "xgboost is not installed: pip install -e '.[test]' (or '.[xgboost]')"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    return xgboost


def read(datasets_dir, name: str) -> tuple[pd.DataFrame, np.ndarray]:
    """Feature columns as float64 (category codes for the string columns; adult: rows with a
    missing value dropped, then a random part) and class codes ``0..k-1``."""
    frame = pd.read_csv(datasets_dir / DATASETS[name])
    if name == "adult":
        frame = frame.dropna().sample(ADULT_ROWS, random_state=0).reset_index(drop=True)
    target = frame.pop(frame.columns[-1])
    for c in frame.columns:
        if not pd.api.types.is_numeric_dtype(frame[c]):
            frame[c] = pd.Categorical(frame[c].astype(str)).codes
    _, y = np.unique(target.astype(str).to_numpy(), return_inverse=True)
    return frame.astype(np.float64), y


def library_thresholds(est, n_features: int) -> list[np.ndarray]:
    """Per column, every threshold the fitted library model tests, read from the library."""
    found: list[list[float]] = [[] for _ in range(n_features)]
    if isinstance(est, RandomForestClassifier):
        for tree in est.estimators_:
            t = tree.tree_
            for f, v in zip(t.feature, t.threshold, strict=True):
                if f >= 0:
                    found[f].append(float(v))
    else:
        table = est.get_booster().trees_to_dataframe()
        for f, v in zip(table["Feature"], table["Split"], strict=True):
            if f != "Leaf":
                found[int(f[1:])].append(float(v))
    return [np.unique(np.asarray(v, dtype=np.float64)) for v in found]


def value_pools(X: np.ndarray, est) -> list[np.ndarray]:
    """Per column, the values a sampled point may take (module docstring)."""
    pools = []
    for f, t in enumerate(library_thresholds(est, X.shape[1])):
        t32 = t.astype(np.float32)
        pool = np.concatenate([
            np.unique(X[:, f]), t, np.nextafter(t, -np.inf), np.nextafter(t, np.inf),
            np.nextafter(t32, np.float32(-np.inf)).astype(np.float64),
            np.nextafter(t32, np.float32(np.inf)).astype(np.float64)])
        pools.append(np.unique(pool))
    return pools


@pytest.fixture(scope="module")
def fitted():
    """One fit per (dataset, library) for the whole module."""
    cache: dict = {}

    def get(datasets_dir, name: str, library: str):
        if (name, library) not in cache:
            frame, y = read(datasets_dir, name)
            X = frame.to_numpy()
            names = list(frame.columns)
            if library == "sklearn":
                est = RandomForestClassifier(n_estimators=10, max_depth=4, random_state=0,
                                             n_jobs=1).fit(X, y)
                model = xdt.from_sklearn(est, feature_names=names)
            else:
                est = need_xgboost().XGBClassifier(n_estimators=10, max_depth=3,
                                                   random_state=0, n_jobs=1).fit(X, y)
                model = xdt.from_xgboost(est, feature_names=names)
            _, first = np.unique(model.encode(X), axis=0, return_index=True)
            rows = np.random.default_rng(0).choice(np.sort(first), ROWS, replace=False)
            cache[name, library] = X, names, est, model, rows, value_pools(X, est)
        return cache[name, library]

    return get


def as_row(names: list[str], values: np.ndarray) -> dict:
    return dict(zip(names, values.tolist(), strict=True))


def point_of(names: list[str], counterexample: dict) -> np.ndarray:
    """A counterexample (feature -> value) as a row in feature order."""
    return np.array([float(counterexample[n]) for n in names], dtype=np.float64)


LIBRARIES = ["sklearn", "xgboost"]
LIBRARY_IDS = ["random-forest", "xgboost"]


@pytest.mark.parametrize("library", LIBRARIES, ids=LIBRARY_IDS)
@pytest.mark.parametrize("name", sweep(list(DATASETS)))
def test_ensemble_predicts_like_the_library(datasets_dir, fitted, name, library):
    X, names, est, model, _, _ = fitted(datasets_dir, name, library)
    assert model.predict(X).tolist() == est.predict(X).tolist()


@pytest.mark.parametrize("library", LIBRARIES, ids=LIBRARY_IDS)
@pytest.mark.parametrize("name", sweep(list(DATASETS)))
def test_axps_keep_the_library_prediction(datasets_dir, fitted, name, library):
    X, names, est, model, rows, pools = fitted(datasets_dir, name, library)
    ex = xdt.Explainer(model, certificates=False)
    rng = np.random.default_rng(1)
    for i in rows:
        x = X[i]
        want = est.predict(x[None, :])[0]
        axp = ex.axp(as_row(names, x))
        assert axp.prediction == want
        fixed = [names.index(f) for f in axp.features]
        points = np.empty((SAMPLES, len(names)))
        for f, pool in enumerate(pools):
            points[:, f] = x[f] if f in fixed else pool[rng.integers(0, len(pool), SAMPLES)]
        changed = np.flatnonzero(est.predict(points) != want)
        assert len(changed) == 0, (i, axp.features, points[changed[:1]].tolist())
        for f in axp.features:  # subset-minimal: without f, the library's class can change
            rest = [g for g in axp.features if g != f]
            other = ex.counterexample(as_row(names, x), rest)
            assert other is not None, (i, axp.features, f)
            p = point_of(names, other)
            assert all(p[names.index(g)] == x[names.index(g)] for g in rest)
            assert est.predict(p[None, :])[0] != want, (i, axp.features, f, other)
    ex.close()


@pytest.mark.parametrize("library", LIBRARIES, ids=LIBRARY_IDS)
@pytest.mark.parametrize("name", sweep(list(DATASETS)))
def test_cxp_counterexamples_flip_the_library_prediction(datasets_dir, fitted, name,
                                                          library):
    X, names, est, model, rows, _ = fitted(datasets_dir, name, library)
    ex = xdt.Explainer(model)
    n_cxps = 0
    for i in rows:
        x = X[i]
        want = est.predict(x[None, :])[0]
        for cxp in ex.all_cxps(as_row(names, x), max_count=20):
            n_cxps += 1
            p = point_of(names, cxp.counterexample)
            assert est.predict(p[None, :])[0] != want, (i, cxp.features, cxp.counterexample)
            moved = x.copy()  # the row, only the CXp's features changed
            for f in cxp.features:
                moved[names.index(f)] = p[names.index(f)]
            assert est.predict(moved[None, :])[0] != want, (i, cxp.features, moved.tolist())
    ex.close()
    assert n_cxps >= len(rows)  # every prediction can be changed by some features
