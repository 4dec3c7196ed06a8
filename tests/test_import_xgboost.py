"""Fidelity of ``xdt.from_xgboost``: predictions and float32 margins equal XGBoost's own, bit
for bit, on every training row of real data, on points exactly on and one float32 / float64
step either side of every split condition, for binary and multi-class models, string
labels, categorical splits, crafted margins at the decision threshold, and through the file
round trip (XGBoost's JSON / UBJ file -> xdt-model/1 -> load_model)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from conftest import DATASETS, require_shared

import xdt
from xdt.errors import DataError, UnsupportedModelError
from xdt.ir._ensemble import TreeEnsemble

xgb = pytest.importorskip("xgboost")
from xdt.interop._xgboost import _zero_leaves, from_xgboost  # noqa: E402


def table(name: str) -> tuple[np.ndarray, np.ndarray]:
    frame = pd.read_csv(require_shared(DATASETS / name))
    return frame.iloc[:, :-1].to_numpy(np.float64), frame.iloc[:, -1].to_numpy()


def split_conditions(model) -> list[tuple[int, np.float32]]:
    """(feature, float32 split condition) of every numeric split of the model, from its
    JSON."""
    doc = json.loads(bytes(model.get_booster().save_raw("json")))
    out = set()
    for t in doc["learner"]["gradient_booster"]["model"]["trees"]:
        for i, child in enumerate(t["left_children"]):
            if child != -1 and t["split_type"][i] == 0:
                out.add((t["split_indices"][i], np.float32(t["split_conditions"][i])))
    return sorted(out)


def near_thresholds(model, ensemble: TreeEnsemble, X: np.ndarray) -> np.ndarray:
    """Rows of ``X`` with one column moved to each split condition ``t`` of the model, one
    float32 step and one float64 step either side of it, to the float64 midpoint between
    ``t`` and the float32 below it (which rounds to even) and one float64 step either side,
    and to the IR's threshold and one float64 step either side."""
    base = X[:4]
    rows = []
    for f, t in split_conditions(model):
        t32 = np.float32(t)
        values = {float(t32), float(np.nextafter(t32, np.float32(np.inf))),
                  float(np.nextafter(t32, np.float32(-np.inf))),
                  float(np.nextafter(float(t32), np.inf)),
                  float(np.nextafter(float(t32), -np.inf))}
        mid = (float(np.nextafter(t32, np.float32(-np.inf))) + float(t32)) / 2
        values |= {mid, float(np.nextafter(mid, np.inf)), float(np.nextafter(mid, -np.inf))}
        mid = ensemble.cells[f].thresholds
        below = mid[mid < float(t32)]
        if len(below):
            tau = float(below.max())
            values |= {tau, float(np.nextafter(tau, np.inf)), float(np.nextafter(tau, -np.inf))}
        for v in values:
            r = base.copy()
            r[:, f] = v
            rows.append(r)
    return np.vstack(rows)


def assert_same(model, ensemble: TreeEnsemble, X: np.ndarray, labels=None) -> None:
    lib = model.predict(X)
    expected = lib if labels is None else np.asarray(labels, dtype=object)[lib]
    assert ensemble.predict(X).tolist() == expected.tolist()
    # the float32 margins, bit for bit
    margins = model.predict(X, output_margin=True)
    ours = ensemble.decision_function(X)
    assert ours.dtype == np.float32
    assert np.array_equal(ours.view(np.uint32), margins.astype(np.float32).view(np.uint32))
    assert ensemble.reference(X).tolist() == expected.tolist()


@pytest.fixture(scope="module")
def banknote():
    X, y = table("banknote.csv")
    model = xgb.XGBClassifier(n_estimators=30, max_depth=4, learning_rate=0.3).fit(X, y)
    return X, y, model, from_xgboost(model, ["variance", "skewness", "curtosis", "entropy"])


def test_binary_banknote_every_row_and_every_threshold(banknote):
    X, _, model, ensemble = banknote
    assert ensemble.n_scores == 1 and ensemble.precision == "float32"
    assert ensemble.input_dtype == "float32"
    assert list(ensemble.features.names) == ["variance", "skewness", "curtosis", "entropy"]
    assert_same(model, ensemble, X)
    points = near_thresholds(model, ensemble, X)
    assert len(points) > 500
    assert_same(model, ensemble, points)


def test_threshold_is_the_float32_rounding_midpoint_below_the_split(banknote):
    """XGBoost goes left when float32(x) < t: the float64 values that round to the float32
    just below t go left, those that round to t go right."""
    X, _, model, ensemble = banknote
    f, t = split_conditions(model)[0]
    below = np.nextafter(t, np.float32(-np.inf))
    mid = (float(below) + float(t)) / 2
    taus = ensemble.cells[f].thresholds
    assert float(below) < taus[taus < float(t)].max() <= mid
    assert ensemble.features[f].name in ensemble.cells[f].describe(1)


def test_compas_and_pima_every_training_row(datasets_dir):
    for name in ("compas.csv", "indians-diabetes.csv"):
        X, y = table(name)
        model = xgb.XGBClassifier(n_estimators=25, max_depth=4).fit(X, y.astype(int))
        ensemble = from_xgboost(model)
        assert_same(model, ensemble, X)
        assert_same(model, ensemble, near_thresholds(model, ensemble, X))


def test_binary_decision_threshold_is_the_library_flip_point():
    """XGBClassifier.predict is ``sigmoid(margin) > 0.5`` in float32, which is not
    ``margin > 0``: margins just above 0 still round to probability 0.5. A one-tree model
    with base_score 0.5 (base margin 0) whose leaves are set to margins around the imported
    threshold: the library and the IR agree on both sides of it."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3))
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(int)
    model = xgb.XGBClassifier(n_estimators=1, max_depth=3, base_score=0.5).fit(X, y)
    threshold = from_xgboost(model).threshold
    assert 0.0 < threshold < 1e-6          # a margin in (0, threshold] is predicted 0
    t32 = np.float32(threshold)
    up = np.nextafter(t32, np.float32(1))
    values = [t32, up, np.nextafter(up, np.float32(1)), np.nextafter(t32, np.float32(-1)),
              np.float32(0.0), np.float32(-0.0), np.float32(1e-45), np.float32(-1e-45)]
    doc = json.loads(bytes(model.get_booster().save_raw("json")))
    tree = doc["learner"]["gradient_booster"]["model"]["trees"][0]
    leaves = [i for i, c in enumerate(tree["left_children"]) if c == -1]
    for i, v in zip(leaves, values, strict=False):
        tree["split_conditions"][i] = float(v)
        tree["base_weights"][i] = float(v)
    booster = xgb.Booster()
    booster.load_model(bytearray(json.dumps(doc).encode()))
    ensemble = from_xgboost(booster)
    assert ensemble.threshold == threshold
    lib = (booster.predict(xgb.DMatrix(X)) > 0.5).astype(int)
    margins = booster.predict(xgb.DMatrix(X), output_margin=True)
    assert set(margins.tolist()) >= {float(t32), float(up)}   # rows on both sides
    assert ensemble.predict(X).tolist() == lib.tolist()
    assert lib[margins == t32].tolist() == [0] * int((margins == t32).sum())
    assert set(lib[margins == up].tolist()) == {1}


@pytest.mark.parametrize("objective", ["multi:softprob", "multi:softmax"])
def test_multiclass_string_labels(objective):
    X, y = table("iris.csv")
    names, codes = np.unique(y, return_inverse=True)
    model = xgb.XGBClassifier(n_estimators=15, max_depth=3, objective=objective).fit(X, codes)
    ensemble = from_xgboost(model, classes=[str(n) for n in names])
    assert ensemble.classes == tuple(str(n) for n in names) and ensemble.n_scores == 3
    assert all(isinstance(c, str) for c in ensemble.predict(X[:3]))
    assert_same(model, ensemble, X, labels=[str(n) for n in names])
    assert_same(model, ensemble, near_thresholds(model, ensemble, X),
                labels=[str(n) for n in names])


def test_softprob_ties_differ_from_the_margins_argmax_only_within_2_pow_minus_22():
    """multi:softprob predicts the first largest float32 *probability*: two margins a few
    float32 steps apart can get equal probabilities, and the library then predicts the
    first, where the argmax of the margins (the IR's rule) picks the larger. Crafted margins
    (base_margin on the model with zero leaves): they differ, and only when the two largest
    margins are less than 2**-22 apart, as the importer's docstring says."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 2))
    model = xgb.XGBClassifier(n_estimators=1, max_depth=1).fit(X, rng.integers(0, 4, 300))
    zero = _zero_leaves(xgb, json.loads(bytes(model.get_booster().save_raw("json"))))
    rows = []
    for x in rng.normal(size=2000) * 3:
        a = np.float32(x)
        b = a
        for _ in range(int(rng.integers(1, 40))):
            b = np.nextafter(b, np.float32(np.inf))
        o = np.float32(x - rng.uniform(0, 0.5))
        rows += [[a, b, o, o], [b, a, o, o], [o, a, b, o]]
    margins = np.array(rows, dtype=np.float32)
    probs = zero.predict(xgb.DMatrix(np.zeros((len(margins), 2)), base_margin=margins))
    differ = np.argmax(probs, axis=1) != np.argmax(margins, axis=1)
    top = np.sort(margins, axis=1).astype(np.float64)
    gap = top[:, -1] - top[:, -2]
    assert differ.any()
    assert gap[differ].max() < 2.0 ** -22
    assert not differ[gap >= 2.0 ** -22].any()


def test_categorical_splits_pandas_categories():
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"colour": pd.Categorical(rng.choice(["red", "green", "blue", "grey"],
                                                              800)),
                          "size": rng.normal(size=800)})
    y = (frame.colour.isin(["red", "blue"]) ^ (frame["size"] > 0.3)).astype(int)
    model = xgb.XGBClassifier(n_estimators=8, max_depth=3, enable_categorical=True,
                              tree_method="hist", max_cat_to_onehot=1).fit(frame, y)
    ensemble = from_xgboost(model)
    colour = ensemble.features[0]
    assert colour.kind == "categorical"
    assert set(colour.domain) == {"red", "green", "blue", "grey"}
    assert any(tree.root.__class__.__name__ == "CategoricalSplit" or tree.depth
               for tree in ensemble.trees)
    rows = frame.to_numpy(object)
    assert ensemble.predict(rows).tolist() == model.predict(frame).tolist()
    np.testing.assert_array_equal(ensemble.decision_function(rows),
                                  model.predict(frame, output_margin=True))


@pytest.mark.parametrize("suffix", ["json", "ubj"])
def test_file_round_trip(tmp_path, banknote, suffix):
    X, _, model, _ = banknote
    path = tmp_path / f"model.{suffix}"
    model.save_model(path)
    imported = from_xgboost(path, ["variance", "skewness", "curtosis", "entropy"],
                            classes=["genuine", "forged"])
    out = tmp_path / "xdt.json"
    xdt.save_model(imported, out)
    back = xdt.load_model(out)
    assert isinstance(back, TreeEnsemble)
    assert back.source["library"] == "xgboost"
    assert back.source["objective"] == "binary:logistic"
    expected = np.array(["genuine", "forged"], dtype=object)[model.predict(X)]
    points = np.vstack([X, near_thresholds(model, back, X)])
    expected = np.array(["genuine", "forged"], dtype=object)[model.predict(points)]
    assert back.predict(points).tolist() == expected.tolist()


def test_unsupported_models_and_bad_names(banknote, tmp_path):
    X, y, model, _ = banknote
    with pytest.raises(UnsupportedModelError, match="not a classifier"):
        from_xgboost(xgb.XGBRegressor(n_estimators=2).fit(X, y))
    booster = xgb.train({"objective": "reg:squarederror"}, xgb.DMatrix(X, y), 2)
    with pytest.raises(UnsupportedModelError, match="'reg:squarederror' is not a class"):
        from_xgboost(booster)
    with pytest.raises(UnsupportedModelError, match="gblinear"):
        from_xgboost(xgb.XGBClassifier(booster="gblinear", n_estimators=2).fit(X, y))
    with pytest.raises(DataError, match="4 input columns"):
        from_xgboost(model, ["a", "b"])
    with pytest.raises(DataError, match="2 classes"):
        from_xgboost(model, classes=["a", "b", "c"])
    with pytest.raises(FileNotFoundError):
        from_xgboost(tmp_path / "none.json")
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(UnsupportedModelError, match="cannot read it"):
        from_xgboost(tmp_path / "bad.json")
    with pytest.raises(UnsupportedModelError, match="takes an XGBClassifier"):
        from_xgboost(object())


def adult_frame() -> tuple[pd.DataFrame, np.ndarray]:
    """The first 4000 rows of adult, text columns as pandas categoricals (missing text as
    its own category)."""
    frame = pd.read_csv(require_shared(DATASETS / "adult.csv.gz")).iloc[:4000]
    y = frame.pop("income").str.strip().str.startswith(">").astype(int).to_numpy()
    for c in frame.columns:
        if not pd.api.types.is_numeric_dtype(frame[c]):
            frame[c] = pd.Categorical(frame[c].fillna("unknown"))
    return frame, y


def test_adult_categorical_every_training_row():
    frame, y = adult_frame()
    model = xgb.XGBClassifier(n_estimators=20, max_depth=4, enable_categorical=True,
                              tree_method="hist").fit(frame, y)
    ensemble = from_xgboost(model)
    assert ensemble.features["workclass"].kind == "categorical"
    rows = frame.to_numpy(object)
    assert ensemble.predict(rows).tolist() == model.predict(frame).tolist()
    margins = model.predict(frame, output_margin=True).astype(np.float32)
    assert np.array_equal(ensemble.decision_function(rows).view(np.uint32),
                          margins.view(np.uint32))


def test_numpy_category_codes_renamed_features_and_random_forest_mode():
    rng = np.random.default_rng(1)
    X = np.column_stack([rng.integers(0, 5, 800).astype(float), rng.normal(size=800)])
    y = (np.isin(X[:, 0], [1, 3]) ^ (X[:, 1] > 0)).astype(int)
    model = xgb.XGBClassifier(n_estimators=5, max_depth=3, enable_categorical=True,
                              feature_types=["c", "q"], tree_method="hist",
                              max_cat_to_onehot=1).fit(X, y)
    ensemble = from_xgboost(model)
    assert ensemble.features[0].domain == (0, 1, 2, 3, 4)
    assert_same(model, ensemble, X)
    # names given to the import differ from those stored: the reference still predicts
    frame = pd.DataFrame(X, columns=["a", "b"])
    model = xgb.XGBClassifier(n_estimators=5, max_depth=3).fit(frame, y)
    ensemble = from_xgboost(model, ["p", "q"])
    assert list(ensemble.features.names) == ["p", "q"]
    assert ensemble.reference(X).tolist() == model.predict(frame).tolist()
    # XGBRFClassifier: several trees per round, summed as well
    model = xgb.XGBRFClassifier(n_estimators=5, max_depth=3).fit(X, y)
    assert_same(model, from_xgboost(model), X)
