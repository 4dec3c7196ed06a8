"""Import of scikit-learn tree ensembles: predictions equal the estimator's own ``predict``
on every training row, on every threshold of every tree and one float32 / float64 step
either side, and on crafted near-tie scores (the library's order, precision and tie rule)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import (
    AdaBoostClassifier,
    BaggingClassifier,
    ExtraTreesClassifier,
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    HistGradientBoostingClassifier,
    HistGradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from sklearn.linear_model import LogisticRegression

import xdt
from xdt.errors import MissingValueError, NotFittedError, UnsupportedEstimatorError
from xdt.ir import CategoricalSplit
from xdt.ir._ensemble import TreeEnsemble

DATA = "/work/shared/datasets"


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    """HistGradientBoosting's OpenMP threads spin on a busy 2-core machine (seconds per
    fit); one thread keeps every test fast and changes no result."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        yield
F32 = np.float32
TINY = float(np.nextafter(0.0, 1.0))


def load(name: str, n: int | None = None) -> tuple[pd.DataFrame, pd.Series]:
    df = pd.read_csv(f"{DATA}/{name}")
    if n is not None:
        df = df.iloc[:n]
    return df.iloc[:, :-1], df.iloc[:, -1]


def labels_of(est, X) -> np.ndarray:
    """``est.predict`` as IR labels (str or int)."""
    from xdt.interop._sklearn_tree import class_label

    return np.asarray([class_label(v) for v in est.predict(X)], dtype=object)


def same(model: TreeEnsemble, est, X) -> None:
    """The imported model predicts what ``est.predict`` predicts on every row of ``X``."""
    ours = np.asarray(model.predict(np.asarray(X, dtype=np.float64)), dtype=object)
    theirs = labels_of(est, X)
    bad = np.flatnonzero(ours != theirs)
    assert bad.size == 0, f"{bad.size} of {len(ours)} rows differ, first {bad[:5]}"


def threshold_values(thresholds: np.ndarray) -> np.ndarray:
    """Every threshold ``t``, one float64 step either side, and ``float32(t)`` with one
    float32 step either side of it (scikit-learn's trees compare ``float32(x) <= t``)."""
    t = np.unique(np.asarray(thresholds, dtype=np.float64))
    t32 = t.astype(F32)
    return np.unique(np.concatenate([
        t, np.nextafter(t, -np.inf), np.nextafter(t, np.inf),
        t32.astype(np.float64), np.nextafter(t32, F32(-np.inf)).astype(np.float64),
        np.nextafter(t32, F32(np.inf)).astype(np.float64)]))


def sk_thresholds(est) -> dict[int, np.ndarray]:
    """Per input column, the thresholds of all the ensemble's trees."""
    out: dict[int, list] = {}
    if isinstance(est, HistGradientBoostingClassifier):
        cat = est.is_categorical_
        # with categorical features the predictors see them first (ColumnTransformer order)
        order = np.arange(est.n_features_in_) if cat is None else \
            np.concatenate([np.flatnonzero(cat), np.flatnonzero(~cat)])
        for predictors in est._predictors:
            for p in predictors:
                n = p.nodes[(p.nodes["is_leaf"] == 0) & (p.nodes["is_categorical"] == 0)]
                for f, t in zip(n["feature_idx"], n["num_threshold"], strict=True):
                    out.setdefault(int(order[f]), []).append(float(t))
        return {f: np.asarray(v) for f, v in out.items()}
    trees = est.estimators_
    trees = trees.ravel() if isinstance(trees, np.ndarray) else trees
    for e in trees:
        tr = e.tree_
        inner = tr.children_left >= 0
        for f, t in zip(tr.feature[inner], tr.threshold[inner], strict=True):
            out.setdefault(int(f), []).append(float(t))
    return {f: np.asarray(v) for f, v in out.items()}


def threshold_rows(est, model: TreeEnsemble, X: pd.DataFrame, n_base: int = 3) -> pd.DataFrame:
    """Rows of ``X`` (a few) with one ordinal column set to each threshold value."""
    base = X.iloc[np.linspace(0, len(X) - 1, n_base).astype(int)].to_numpy(np.float64)
    parts = []
    for f, ts in sk_thresholds(est).items():
        if model.features[f].kind != "ordinal":
            continue
        vals = threshold_values(ts)
        rows = np.repeat(base, len(vals), axis=0)
        rows[:, f] = np.tile(vals, n_base)
        parts.append(rows)
    return pd.DataFrame(np.concatenate(parts), columns=X.columns)


def check_everywhere(est, rows: pd.DataFrame, **kw) -> TreeEnsemble:
    """Import ``est`` and compare on every row of ``rows`` and on its threshold rows."""
    model = xdt.from_sklearn(est, **kw)
    assert isinstance(model, TreeEnsemble)
    same(model, est, rows)
    T = threshold_rows(est, model, rows)
    assert len(T) > 500
    same(model, est, T)
    assert model.reference is not None
    assert np.array_equal(np.asarray(model.reference(T.to_numpy()), dtype=object),
                          labels_of(est, T))
    return model


# ---------------------------------------------------------------------- forests
FORESTS = [RandomForestClassifier, ExtraTreesClassifier]


@pytest.mark.parametrize("cls", FORESTS)
def test_forest_banknote_string_labels_every_row_and_threshold(cls):
    X, y = load("banknote.csv")
    y = y.map({0: "genuine", 1: "forged"})
    est = cls(n_estimators=100, max_depth=6, random_state=0).fit(X, y)
    model = check_everywhere(est, X)
    assert model.combine == "proba" and model.n_trees == 100 and model.divisor == 100.0
    assert model.classes == ("forged", "genuine")
    assert list(model.features.names) == list(X.columns)
    assert model.source["estimator"] == cls.__name__
    # predict_proba is sklearn's exactly (same sums, same order, same division)
    assert np.array_equal(model.predict_proba(X.to_numpy()), est.predict_proba(X))


@pytest.mark.parametrize("cls", FORESTS)
def test_forest_multiclass_every_row_and_threshold(cls):
    X, y = load("cardiotocography-10class.csv")
    est = cls(n_estimators=30, max_depth=6, random_state=1).fit(X, y)
    model = check_everywhere(est, X)
    assert len(model.classes) == 10
    assert np.array_equal(model.predict_proba(X.to_numpy()), est.predict_proba(X))


def test_forest_compas_binary_features_and_class_weight():
    X, y = load("compas.csv")
    est = RandomForestClassifier(n_estimators=100, max_depth=6, class_weight="balanced",
                                 random_state=0).fit(X, y)
    model = check_everywhere(est, X, X=X)
    kinds = {f.name: f.kind for f in model.features}
    assert kinds["Number_of_Priors"] == "ordinal" and kinds["Female"] == "binary"


def _stump_forest(values: list[list[list[float]]]) -> RandomForestClassifier:
    """A forest of depth-1 trees on 3 features whose leaf values are set by hand:
    ``values[t]`` = [left leaf probabilities, right leaf probabilities]."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    est = RandomForestClassifier(n_estimators=len(values), max_depth=1, bootstrap=False,
                                 random_state=0).fit(X, y)
    for e, (lo, hi) in zip(est.estimators_, values, strict=True):
        tr = e.tree_
        v = tr.value
        v[tr.children_left[0], 0, :] = lo
        v[tr.children_right[0], 0, :] = hi
    return est


def grid(est) -> np.ndarray:
    """Every combination of a point below / above each threshold, per feature."""
    th = sk_thresholds(est)
    axes = []
    for f in range(est.n_features_in_):
        ts = np.unique(th.get(f, np.array([0.0])))
        axes.append(np.concatenate([ts - 1.0, ts + 1.0, ts]))
    mesh = np.meshgrid(*axes, indexing="ij")
    return np.column_stack([m.ravel() for m in mesh])


def test_forest_near_ties_decide_in_tree_order_and_first_class():
    # class 0 sums 0.3 + 0.2 + 0.1 = 0.6, class 1 sums 0.1 + 0.2 + 0.3 = 0.6000000000000001:
    # equal over the reals (a tie: class 0), but sklearn's float64 sum in tree order gives
    # class 1; summed in the other order it would give class 0. Exact ties go to class 0.
    est = _stump_forest([[[0.3, 0.1], [0.5, 0.5]],
                         [[0.2, 0.2], [0.25, 0.25]],
                         [[0.1, 0.3], [0.125, 0.125]]])
    model = xdt.from_sklearn(est)
    G = grid(est)
    same(model, est, G)
    proba = est.predict_proba(G)
    assert np.array_equal(model.predict_proba(G), proba)
    assert np.any(proba[:, 0] == proba[:, 1])          # exact ties were hit ...
    assert np.any(est.predict(G) == 1) and np.any(est.predict(G) == 0)
    assert (0.3 + 0.2 + 0.1) / 3 < (0.1 + 0.2 + 0.3) / 3  # ... and the order-dependent case


def test_forest_reference_sums_in_tree_order_whatever_n_jobs():
    # With n_jobs=2 sklearn sums the trees from two threads in a varying order, and on
    # these order-dependent sums its predict changes from call to call; the reference the
    # certificates are checked with must decide as the imported model does, every time.
    est = _stump_forest([[[0.3, 0.1], [0.5, 0.5]],
                         [[0.2, 0.2], [0.25, 0.25]],
                         [[0.1, 0.3], [0.125, 0.125]]] * 4)
    est.n_jobs = 2
    model = xdt.from_sklearn(est)
    G = grid(est)
    ours = model.predict(G)
    for _ in range(50):
        assert np.array_equal(model.reference(G), ours)
    assert est.n_jobs == 2


def test_forest_with_encoder_and_given_feature_names():
    df = pd.read_csv(f"{DATA}/adult.csv.gz", nrows=2000).dropna()
    frame = df[["age", "workclass", "sex", "hours-per-week"]]
    from xdt.interop._tabular import TabularEncoder

    enc = TabularEncoder().fit(frame)
    est = RandomForestClassifier(n_estimators=20, max_depth=5, random_state=0)
    est.fit(enc.transform(frame), df["income"])
    model = xdt.from_sklearn(est, encoder=enc)
    assert [f.kind for f in model.features] == ["ordinal", "categorical", "categorical",
                                                "ordinal"]
    rows = frame.astype(object).to_numpy()
    theirs = labels_of(est, enc.transform(frame))
    assert np.array_equal(np.asarray(model.predict(rows), dtype=object), theirs)
    assert np.array_equal(np.asarray(model.reference(rows), dtype=object), theirs)

    X, y = load("banknote.csv")
    est = ExtraTreesClassifier(n_estimators=5, max_depth=3, random_state=0)
    est.fit(X.to_numpy(), y)
    model = xdt.from_sklearn(est, ["a", "b", "c", "d"])
    assert list(model.features.names) == ["a", "b", "c", "d"]
    same(model, est, X.to_numpy())


# ---------------------------------------------------------------------- gradient boosting
def test_gb_binary_pima_every_row_and_threshold():
    X, y = load("indians-diabetes.csv")
    y = y.map({0: "neg", 1: "pos"})
    est = GradientBoostingClassifier(n_estimators=60, max_depth=3, learning_rate=0.1,
                                     random_state=0).fit(X, y)
    model = check_everywhere(est, X)
    assert model.combine == "margin" and model.n_scores == 1
    assert model.threshold == -TINY  # probed: predict is "score >= 0"
    assert np.array_equal(model.decision_function(X.to_numpy()), est.decision_function(X))
    assert np.allclose(model.predict_proba(X.to_numpy()), est.predict_proba(X), rtol=0,
                       atol=1e-12)


def test_gb_multiclass_every_row_and_threshold():
    X, y = load("iris.csv")
    y = y.map({0: "setosa", 1: "versicolor", 2: "virginica"})
    est = GradientBoostingClassifier(n_estimators=40, max_depth=3, subsample=0.8,
                                     random_state=0).fit(X, y)
    model = check_everywhere(est, X)
    assert model.n_scores == 3 and model.n_trees == 120
    assert np.array_equal(model.decision_function(X.to_numpy()), est.decision_function(X))
    assert np.allclose(model.predict_proba(X.to_numpy()), est.predict_proba(X), rtol=0,
                       atol=1e-12)


def test_gb_exponential_loss_and_zero_init():
    X, y = load("banknote.csv")
    est = GradientBoostingClassifier(n_estimators=30, max_depth=2, loss="exponential",
                                     init="zero", random_state=0).fit(X, y)
    model = check_everywhere(est, X)
    assert model.base == (0.0,)


def _stump_gb(cls, n_classes: int, n_stages: int):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(90, 3))
    y = np.arange(90) % n_classes
    if cls is GradientBoostingClassifier:
        est = cls(n_estimators=n_stages, max_depth=1, learning_rate=1.0, random_state=0)
    else:
        est = cls(max_iter=n_stages, max_depth=2, learning_rate=1.0, early_stopping=False,
                  min_samples_leaf=5, random_state=0)
    return est.fit(X, y)


def _set_gb_leaves(est, pool: list[float], rng: np.random.Generator) -> None:
    """Overwrite every leaf value of a fitted (Hist)GradientBoostingClassifier with values
    from ``pool`` (learning_rate is 1.0, so they are added as they are) and its base with
    zeros."""
    if isinstance(est, GradientBoostingClassifier):
        est.init_ = "zero"
        for e in est.estimators_.ravel():
            v = e.tree_.value
            leaves = np.flatnonzero(e.tree_.children_left < 0)
            v[leaves, 0, 0] = rng.choice(pool, len(leaves))
    else:
        est._baseline_prediction = np.zeros_like(est._baseline_prediction)
        for predictors in est._predictors:
            for p in predictors:
                leaves = np.flatnonzero(p.nodes["is_leaf"])
                p.nodes["value"][leaves] = rng.choice(pool, len(leaves))


# Sums of these in tree order hit 0.0 exactly where the reals do not
# (0.1 + 0.2 - 0.30000000000000004 == 0.0 but reversed it is -2.8e-17), and +-TINY.
POOL = [0.1, 0.2, -0.30000000000000004, 0.0, -0.0, TINY, -TINY, 0.3, -0.1, -0.2]


@pytest.mark.parametrize("cls", [GradientBoostingClassifier, HistGradientBoostingClassifier])
def test_binary_margins_at_zero_follow_the_library_rule(cls):
    est = _stump_gb(cls, 2, 3)
    rng = np.random.default_rng(0)
    hits = 0
    for _ in range(15):
        _set_gb_leaves(est, POOL, rng)
        model = xdt.from_sklearn(est)
        G = grid(est)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            scores = est.decision_function(G)
        assert np.array_equal(model.decision_function(G), scores)
        same(model, est, G)
        hits += int(np.any(scores == 0.0))
    assert hits > 0  # scores exactly at zero were decided (GB: classes_[1], HGB: classes_[0])
    assert model.threshold == (-TINY if cls is GradientBoostingClassifier else 0.0)


@pytest.mark.parametrize("cls", [GradientBoostingClassifier, HistGradientBoostingClassifier])
def test_multiclass_margin_ties_go_to_the_first_class(cls):
    est = _stump_gb(cls, 3, 2)
    rng = np.random.default_rng(1)
    ties = 0
    for _ in range(15):
        _set_gb_leaves(est, [0.1, 0.2, 0.30000000000000004, 0.3, 0.0], rng)
        model = xdt.from_sklearn(est)
        G = grid(est)
        scores = est.decision_function(G)
        assert np.array_equal(model.decision_function(G), scores)
        same(model, est, G)
        top = scores.max(axis=1, keepdims=True)
        ties += int(np.any((scores == top).sum(axis=1) > 1))
    assert ties > 0


# ---------------------------------------------------------------------- histogram GB
def test_hgb_binary_pima_every_row_and_threshold():
    X, y = load("indians-diabetes.csv")
    est = HistGradientBoostingClassifier(max_iter=60, max_depth=6, early_stopping=False,
                                         random_state=0).fit(X, y)
    model = check_everywhere(est, X)
    assert model.input_dtype == "float64" and model.threshold == 0.0  # probed: "> 0"
    assert np.array_equal(model.decision_function(X.to_numpy()), est.decision_function(X))
    assert np.allclose(model.predict_proba(X.to_numpy()), est.predict_proba(X), rtol=0,
                       atol=1e-12)


def test_hgb_multiclass_every_row_and_threshold():
    X, y = load("cardiotocography-10class.csv")
    y = y.map(lambda v: f"c{v}")
    est = HistGradientBoostingClassifier(max_iter=15, max_depth=4, early_stopping=False,
                                         random_state=0).fit(X, y)
    model = check_everywhere(est, X)
    assert model.n_scores == 10
    assert np.array_equal(model.decision_function(X.to_numpy()), est.decision_function(X))


def test_hgb_categorical_features_become_categorical_splits():
    df = pd.read_csv(f"{DATA}/adult.csv.gz", nrows=3000).dropna()
    cats = ["workclass", "education", "marital-status", "occupation", "race", "sex"]
    nums = ["age", "education-num", "capital-gain", "hours-per-week"]
    X = df[cats + nums].copy()
    for c in cats:
        X[c] = X[c].astype("category")
    y = df["income"]
    est = HistGradientBoostingClassifier(max_iter=40, max_depth=4, early_stopping=False,
                                         categorical_features="from_dtype",
                                         random_state=0).fit(X, y)
    model = xdt.from_sklearn(est)
    kinds = {f.name: f.kind for f in model.features}
    assert [kinds[c] for c in cats] == ["categorical"] * len(cats)
    assert set(model.features[model.features.index("sex")].domain) == {"Male", "Female"}
    splits = [n for t in model.trees for n in _nodes(t.root) if isinstance(n, CategoricalSplit)]
    assert splits
    rows = X.astype(object).to_numpy()
    ours = np.asarray(model.predict(rows), dtype=object)
    assert np.array_equal(ours, labels_of(est, X))
    assert np.array_equal(np.asarray(model.reference(rows), dtype=object), ours)
    assert np.array_equal(model.decision_function(rows), est.decision_function(X))


def test_hgb_integer_coded_categorical_on_arrays():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=500), rng.integers(0, 5, 500)])
    y = np.where((X[:, 1] % 2 == 0) ^ (X[:, 0] > 0), "yes", "no")
    est = HistGradientBoostingClassifier(max_iter=20, categorical_features=[1],
                                         random_state=0).fit(X, y)
    model = xdt.from_sklearn(est, feature_names=["size", "colour"])
    # the predictors see the categorical column first; the model keeps the input order
    assert [f.kind for f in model.features] == ["ordinal", "categorical"]
    assert model.features[1].domain == (0, 1, 2, 3, 4)
    same(model, est, X)
    T = threshold_rows(est, model, pd.DataFrame(X, columns=["size", "colour"])).to_numpy()
    same(model, est, T)


def _nodes(root):
    stack = [root]
    while stack:
        n = stack.pop()
        yield n
        if hasattr(n, "left"):
            stack += [n.left, n.right]
        elif hasattr(n, "branches"):
            stack += [b.node for b in n.branches]


def test_hgb_fitted_with_missing_values_refuses_nan_rows():
    X, y = load("indians-diabetes.csv")
    X = X.copy()
    X.loc[X.index[::7], "Body mass index"] = np.nan
    est = HistGradientBoostingClassifier(max_iter=20, early_stopping=False,
                                         random_state=0).fit(X, y)
    model = xdt.from_sklearn(est)
    present = X.dropna()
    same(model, est, present)
    with pytest.raises(MissingValueError):
        model.predict(X.to_numpy()[:10])


# ---------------------------------------------------------------------- errors
@pytest.mark.parametrize("est", [RandomForestRegressor(n_estimators=2),
                                 GradientBoostingRegressor(n_estimators=2),
                                 HistGradientBoostingRegressor(max_iter=2)])
def test_regressors_are_refused(est):
    X, y = load("iris.csv")
    est.fit(X, y)
    with pytest.raises(UnsupportedEstimatorError, match="regression"):
        xdt.from_sklearn(est)


@pytest.mark.parametrize("est", [BaggingClassifier(n_estimators=2),
                                 AdaBoostClassifier(n_estimators=2)])
def test_other_ensembles_are_refused(est):
    X, y = load("iris.csv")
    est.fit(X, y)
    with pytest.raises(UnsupportedEstimatorError, match="RandomForestClassifier"):
        xdt.from_sklearn(est)


@pytest.mark.parametrize("est", [RandomForestClassifier(), GradientBoostingClassifier(),
                                 HistGradientBoostingClassifier()])
def test_unfitted_is_refused(est):
    with pytest.raises(NotFittedError, match="fit"):
        xdt.from_sklearn(est)


def test_multi_output_forest_is_refused():
    X, y = load("iris.csv")
    est = RandomForestClassifier(n_estimators=2).fit(X, np.column_stack([y, y]))
    with pytest.raises(UnsupportedEstimatorError, match="multi-output"):
        xdt.from_sklearn(est)


def test_gb_with_a_row_dependent_init_is_refused():
    X, y = load("iris.csv")
    est = GradientBoostingClassifier(n_estimators=2, init=LogisticRegression(max_iter=500))
    est.fit(X, y)
    with pytest.raises(UnsupportedEstimatorError, match="init"):
        xdt.from_sklearn(est)
