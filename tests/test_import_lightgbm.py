"""Fidelity of ``xdt.from_lightgbm``: predictions and float64 raw scores equal LightGBM's own,
bit for bit, on every training row of real data, on points exactly on and one float32 /
float64 step either side of every threshold, binary and multi-class, string labels,
categorical bitsets, the decision threshold at crafted scores, early stopping, refused
models, and the file round trip (text model / JSON dump -> xdt-model/1 -> load_model)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from conftest import DATASETS, require_shared
from tiers import sweep

import xdt
from xdt.errors import DataError, UnsupportedModelError
from xdt.ir._ensemble import TreeEnsemble

lgb = pytest.importorskip("lightgbm")
from xdt.interop._lightgbm import _stub, from_lightgbm  # noqa: E402


def table(name: str) -> tuple[np.ndarray, np.ndarray]:
    frame = pd.read_csv(require_shared(DATASETS / name))
    return frame.iloc[:, :-1].to_numpy(np.float64), frame.iloc[:, -1].to_numpy()


def fit(X, y, **kw):
    return lgb.LGBMClassifier(verbose=-1, **kw).fit(X, y)


def near_thresholds(ensemble: TreeEnsemble, X: np.ndarray) -> np.ndarray:
    """Rows of ``X`` with one column moved to every threshold ``t``, one float64 step and one
    float32 step either side of it."""
    base = X[:3]
    rows = []
    for f, cells in enumerate(ensemble.cells):
        if ensemble.features[f].is_ordinal:
            for t in cells.thresholds:
                t32 = np.float32(t)
                for v in {t, np.nextafter(t, np.inf), np.nextafter(t, -np.inf),
                          float(np.nextafter(t32, np.float32(np.inf))),
                          float(np.nextafter(t32, np.float32(-np.inf)))}:
                    r = base.copy()
                    r[:, f] = v
                    rows.append(r)
    return np.vstack(rows)


def assert_same(model, ensemble: TreeEnsemble, X) -> None:
    assert ensemble.predict(X).tolist() == model.predict(X).tolist()
    raw = model.predict(X, raw_score=True)
    ours = ensemble.decision_function(X)
    assert ours.dtype == np.float64
    assert np.array_equal(ours.view(np.uint64), np.asarray(raw, np.float64).view(np.uint64))
    assert ensemble.reference(X).tolist() == model.predict(X).tolist()


@pytest.mark.parametrize("name", sweep(["banknote.csv", "indians-diabetes.csv", "compas.csv"]))
def test_binary_every_training_row_and_threshold(name):
    X, y = table(name)
    model = fit(X, y, n_estimators=30, num_leaves=12)
    ensemble = from_lightgbm(model)
    assert ensemble.n_scores == 1 and ensemble.precision == "float64"
    assert ensemble.input_dtype == "float64"
    assert_same(model, ensemble, X)
    points = near_thresholds(ensemble, X)
    assert len(points) > 30
    assert_same(model, ensemble, points)


def test_string_labels_and_feature_names():
    X, y = table("banknote.csv")
    labels = np.where(y == 1, "forged", "genuine")
    frame = pd.DataFrame(X, columns=["variance", "skewness", "curtosis", "entropy"])
    model = fit(frame, labels, n_estimators=10, num_leaves=6)
    ensemble = from_lightgbm(model)
    assert ensemble.classes == ("forged", "genuine")
    assert list(ensemble.features.names) == ["variance", "skewness", "curtosis", "entropy"]
    assert ensemble.predict(X).tolist() == model.predict(frame).tolist()


def test_binary_decision_threshold_is_the_library_flip_point():
    """LGBMClassifier.predict is argmax([1 - p, p]): scores just above 0 still give p = 0.5.
    The imported threshold is positive, LightGBM predicts 0 on it and 1 one float64 step
    above, checked on one-leaf models holding exactly those scores."""
    X, y = table("banknote.csv")
    ensemble = from_lightgbm(fit(X, y, n_estimators=3))
    t = ensemble.threshold
    assert 0.0 < t < 1e-15
    row = np.zeros((1, 1))
    for v, expected in [(t, 0), (np.nextafter(t, 1.0), 1), (0.0, 0), (-0.0, 0),
                        (np.nextafter(t, -1.0), 0), (5e-324, 0)]:
        booster = lgb.Booster(model_str=_stub("binary sigmoid:1", float(v)))
        p = booster.predict(row)
        library = int(np.argmax(np.column_stack([1.0 - p, p]), axis=1)[0])
        assert library == expected
        assert int(ensemble.decide(np.array([[v]]))[0]) == expected


def test_multiclass_every_training_row_and_threshold():
    X, y = table("iris.csv")
    labels = np.array(["setosa", "versicolor", "virginica"], dtype=object)[
        np.unique(y, return_inverse=True)[1]]
    model = fit(X, labels, n_estimators=15, num_leaves=5)
    ensemble = from_lightgbm(model)
    assert ensemble.classes == ("setosa", "versicolor", "virginica")
    assert ensemble.n_scores == 3
    assert_same(model, ensemble, X)
    assert_same(model, ensemble, near_thresholds(ensemble, X))


def test_categorical_bitsets_pandas_and_codes():
    rng = np.random.default_rng(4)
    colour = rng.choice(["red", "green", "blue", "grey", "pink"], 1000)
    size = rng.normal(size=1000)
    y = (np.isin(colour, ["red", "blue", "pink"]) ^ (size > 0.2)).astype(int)
    frame = pd.DataFrame({"colour": pd.Categorical(colour), "size": size})
    model = fit(frame, y, n_estimators=10, num_leaves=6, min_child_samples=5,
                min_data_per_group=5, cat_smooth=1)
    ensemble = from_lightgbm(model)
    assert ensemble.features[0].kind == "categorical"
    assert set(ensemble.features[0].domain) == {"red", "green", "blue", "grey", "pink"}
    rows = frame.to_numpy(object)
    assert ensemble.predict(rows).tolist() == model.predict(frame).tolist()
    np.testing.assert_array_equal(ensemble.decision_function(rows),
                                  model.predict(frame, raw_score=True))
    # integer codes in a numpy array, declared categorical
    codes = frame.colour.cat.codes.to_numpy().astype(np.float64)
    Xc = np.column_stack([codes, size])
    model = fit(Xc, y, n_estimators=10, num_leaves=6, min_child_samples=5,
                min_data_per_group=5, cat_smooth=1, categorical_feature=[0])
    ensemble = from_lightgbm(model)
    assert ensemble.features[0].domain == (0, 1, 2, 3, 4)
    assert_same(model, ensemble, Xc)


def test_early_stopping_imports_the_trees_lightgbm_predicts_with():
    X, y = table("banknote.csv")
    model = lgb.LGBMClassifier(n_estimators=200, verbose=-1).fit(
        X[::2], y[::2], eval_set=[(X[1::2], y[1::2])],
        callbacks=[lgb.early_stopping(5, verbose=False)])
    assert 0 < model.best_iteration_ < 200
    ensemble = from_lightgbm(model)
    assert ensemble.n_trees == model.best_iteration_
    assert_same(model, ensemble, X)


@pytest.mark.parametrize("form", ["text", "dump"])
def test_file_round_trip(tmp_path, form):
    X, y = table("indians-diabetes.csv")
    model = fit(X, y, n_estimators=20, num_leaves=10)
    path = tmp_path / "model.txt"
    if form == "text":
        model.booster_.save_model(path)
    else:
        path.write_text(json.dumps(model.booster_.dump_model()))
    imported = from_lightgbm(path, classes=["no", "yes"])
    assert (imported.reference is None) == (form == "dump")
    out = tmp_path / "xdt.json"
    xdt.save_model(imported, out)
    back = xdt.load_model(out)
    assert isinstance(back, TreeEnsemble) and back.source["library"] == "lightgbm"
    points = np.vstack([X, near_thresholds(back, X)])
    expected = np.array(["no", "yes"], dtype=object)[model.predict(points)]
    assert back.predict(points).tolist() == expected.tolist()


def test_unsupported_models_and_bad_input(tmp_path):
    X, y = table("banknote.csv")
    with pytest.raises(UnsupportedModelError, match="not a classifier"):
        from_lightgbm(lgb.LGBMRegressor(n_estimators=2, verbose=-1).fit(X, y))
    booster = lgb.train({"objective": "regression", "verbose": -1}, lgb.Dataset(X, y), 2)
    with pytest.raises(UnsupportedModelError, match="'regression' is not a classification"):
        from_lightgbm(booster)
    with pytest.raises(UnsupportedModelError, match="multiclassova"):
        from_lightgbm(fit(X, y % 2 + (X[:, 0] > 0), objective="multiclassova",
                          n_estimators=2))
    with pytest.raises(UnsupportedModelError, match="averages its trees"):
        from_lightgbm(fit(X, y, boosting_type="rf", n_estimators=2, subsample=0.5,
                          subsample_freq=1))
    with pytest.raises(UnsupportedModelError, match="linear tree"):
        from_lightgbm(fit(X, y, linear_tree=True, n_estimators=2))
    with pytest.raises(UnsupportedModelError, match="not fitted"):
        from_lightgbm(lgb.LGBMClassifier())
    model = fit(X, y, n_estimators=2)
    with pytest.raises(DataError, match="4 input columns"):
        from_lightgbm(model, ["a"])
    with pytest.raises(DataError, match="2 classes"):
        from_lightgbm(model, classes=["a"])
    with pytest.raises(FileNotFoundError):
        from_lightgbm(tmp_path / "none.txt")
    (tmp_path / "bad.txt").write_text("not a model\n")
    with pytest.raises(UnsupportedModelError, match="cannot read it"):
        from_lightgbm(tmp_path / "bad.txt")


def test_zero_as_missing_against_the_threshold_is_refused():
    """missing_type 'Zero' sends |x| <= 1e-35 the default way. A split whose threshold sends
    zero the other way cannot be a threshold test: refused, never a silent difference."""
    rng = np.random.default_rng(0)
    x = np.where(rng.random(600) < 0.3, 0.0, rng.normal(size=600))
    y = ((x > -0.5) & (x != 0.0)).astype(int)
    model = fit(x[:, None], y, n_estimators=3, zero_as_missing=True, min_child_samples=5)
    dump = model.booster_.dump_model()
    kinds = set()
    stack = [t["tree_structure"] for t in dump["tree_info"]]
    while stack:
        node = stack.pop()
        if "split_feature" in node:
            kinds.add(node["missing_type"])
            stack += [node["left_child"], node["right_child"]]
    assert kinds == {"Zero"}
    probe = np.array([[0.0], [1e-36], [-1e-36]])
    library = model.predict(probe)
    try:
        ensemble = from_lightgbm(model)
    except UnsupportedModelError as e:
        assert "missing_type 'Zero'" in str(e)
    else:   # every Zero split agrees with its threshold: then predictions agree
        assert ensemble.predict(probe).tolist() == library.tolist()
        assert_same(model, ensemble, x[:, None])


def test_adult_categorical_every_training_row():
    frame = pd.read_csv(require_shared(DATASETS / "adult.csv.gz")).iloc[:4000]
    y = frame.pop("income").str.strip().str.startswith(">").astype(int).to_numpy()
    for c in frame.columns:
        if not pd.api.types.is_numeric_dtype(frame[c]):
            frame[c] = pd.Categorical(frame[c].fillna("unknown"))
    model = fit(frame, y, n_estimators=20)
    ensemble = from_lightgbm(model)
    assert ensemble.features["workclass"].domain[-1] == "unknown"
    rows = frame.to_numpy(object)
    assert ensemble.predict(rows).tolist() == model.predict(frame).tolist()
    assert np.array_equal(ensemble.decision_function(rows),
                          model.predict(frame, raw_score=True))
    assert ensemble.reference(rows).tolist() == model.predict(frame).tolist()


def multiclass_stub(scores: list[float]) -> str:
    """A LightGBM text model of one iteration of one-leaf trees, tree k holding scores[k]."""
    head, rest = _stub(f"multiclass num_class:{len(scores)}", 0.0).split("\nTree=0\n", 1)
    tree = "Tree=0\n" + rest[:rest.index("end of trees")]
    head = head.replace("num_class=1", f"num_class={len(scores)}").replace(
        "num_tree_per_iteration=1", f"num_tree_per_iteration={len(scores)}")
    trees = "".join(tree.replace("Tree=0", f"Tree={k}").replace("leaf_value=0.0",
                                                              f"leaf_value={v!r}")
                    for k, v in enumerate(scores))
    return head + "\n" + trees + "end of trees\n\npandas_categorical:null\n"


def test_multiclass_ties_differ_from_the_scores_argmax_only_within_2_pow_minus_51():
    """LightGBM's multiclass predict is the first largest float64 softmax probability: two
    scores a few float64 steps apart can get equal probabilities (the library then predicts
    the first), where the IR predicts the larger score. Crafted scores on one-leaf models:
    they differ, and only when the two largest scores are less than 2**-51 apart, as the
    importer's docstring says."""
    rng = np.random.default_rng(0)
    row = np.zeros((1, 1))
    gaps, differ = [], []
    for x in rng.normal(size=120) * 3:
        a = b = float(x)
        for _ in range(int(rng.integers(1, 12))):
            b = float(np.nextafter(b, np.inf))
        for scores in ([a, b, a - 0.3], [b, a, a - 0.3]):
            booster = lgb.Booster(model_str=multiclass_stub(scores))
            assert booster.predict(row, raw_score=True)[0].tolist() == scores
            differ.append(int(np.argmax(booster.predict(row)[0])) != int(np.argmax(scores)))
            gaps.append(b - a)
    differ_, gaps_ = np.array(differ), np.array(gaps)
    assert differ_.any()
    assert gaps_[differ_].max() < 2.0 ** -51
