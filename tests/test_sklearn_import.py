"""Import of scikit-learn trees: predictions equal scikit-learn's everywhere, including on
thresholds and one float32 ulp either side (scikit-learn compares float32(x) <= threshold)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreeClassifier

import xdt
from xdt.errors import NotFittedError, UnsupportedEstimatorError
from xdt.interop._sklearn_tree import float32_threshold
from xdt.interop._tabular import TabularEncoder
from xdt.ir import CategoricalSplit, Leaf, ThresholdSplit

F32 = np.float32


# ---------------------------------------------------------------------- float32 thresholds
def _key(x: np.ndarray) -> np.ndarray:
    """Float64 values as int64 keys in the same order (-0.0 and 0.0 share key 0)."""
    b = x.view(np.int64)
    return np.where(b >= 0, b, -(b & np.int64(0x7FFFFFFFFFFFFFFF)))


def _unkey(k: np.ndarray) -> np.ndarray:
    bits = np.where(k >= 0, k, (-k) | np.int64(-0x8000000000000000))
    return bits.astype(np.int64).view(np.float64)


def reference_tau(t: np.ndarray) -> np.ndarray:
    """The largest float64 ``x`` with ``float32(x) <= t``, by bisection over the float64s.

    ``float32(x) <= t`` is monotone in ``x`` (rounding is monotone), so it holds exactly
    below some largest float64; bisection over the ordered bit patterns finds it."""
    t = np.asarray(t, dtype=np.float64)
    below = t.astype(F32)
    below = np.nextafter(np.nextafter(below, F32(-np.inf)), F32(-np.inf)).astype(np.float64)
    above = t.astype(F32)
    above = np.nextafter(np.nextafter(above, F32(np.inf)), F32(np.inf)).astype(np.float64)
    assert np.all(below.astype(F32) <= t) and not np.any(above.astype(F32) <= t)
    lo, hi = _key(below), _key(above)  # holds at lo, fails at hi
    while np.any(hi - lo > 1):
        mid = lo + (hi - lo) // 2
        ok = _unkey(mid).astype(F32) <= t
        lo, hi = np.where(ok, mid, lo), np.where(ok, hi, mid)
    return _unkey(lo)


def random_thresholds(rng: np.random.Generator, n: int) -> np.ndarray:
    f32 = rng.normal(0, 10, n).astype(F32)
    nxt = np.nextafter(f32, F32(np.inf))
    midpoints = (f32.astype(np.float64) + nxt.astype(np.float64)) / 2  # exact ties
    return np.concatenate([
        f32.astype(np.float64),                              # float32 values
        midpoints,                                           # ties of float32 rounding
        np.nextafter(midpoints, np.inf), np.nextafter(midpoints, -np.inf),
        rng.normal(0, 1, n), rng.uniform(-1e6, 1e6, n),      # arbitrary float64s
        rng.normal(0, 1, n) * 10.0 ** rng.integers(-30, 30, n),
        np.round(rng.uniform(0, 100, n), 2),                 # decimal data
        [0.0, -0.0, 1e-45, -1e-45, 1e-40, 0.5, 1.5, 3e38, -3e38, 2.5, 1e-300],
    ])


def test_float32_threshold_matches_brute_force():
    ts = random_thresholds(np.random.default_rng(7), 2000)
    taus = np.asarray([float32_threshold(t) for t in ts])
    expected = reference_tau(ts)
    bad = np.flatnonzero(taus != expected)
    assert bad.size == 0, [(ts[i], taus[i], expected[i]) for i in bad[:5]]
    # the defining property at the boundary
    assert np.all(taus.astype(F32) <= ts)
    assert not np.any(np.nextafter(taus, np.inf).astype(F32) <= ts)


# ---------------------------------------------------------------------- data and probes
def make_data(rng: np.random.Generator, n: int = 300, n_features: int = 4,
              n_classes: int = 2) -> tuple[np.ndarray, np.ndarray]:
    X = rng.normal(0, 3, (n, n_features))
    X[:, 0] = np.round(X[:, 0], 1)  # some ties and decimal values
    X[:, 1] = rng.integers(0, 5, n)
    score = X[:, 0] + 0.5 * X[:, 1] - X[:, 2] * (X[:, 3] > 0) + rng.normal(0, 1, n)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1]))
    return X, y


def threshold_probes(t: float) -> list[float]:
    """Points exactly on ``t``, on its float32 neighbours and one float32 ulp either side,
    and float64 values between them."""
    a = F32(t)
    out = {float(t), float(np.nextafter(t, np.inf)), float(np.nextafter(t, -np.inf))}
    for s in (a, np.nextafter(a, F32(np.inf)), np.nextafter(a, F32(-np.inf)),
              np.nextafter(np.nextafter(a, F32(np.inf)), F32(np.inf)),
              np.nextafter(np.nextafter(a, F32(-np.inf)), F32(-np.inf))):
        out.add(float(s))
    fl = sorted(out)
    for lo, hi in zip(fl, fl[1:], strict=False):  # float64 values between the float32s
        mid = (lo + hi) / 2
        out.update({mid, float(np.nextafter(mid, np.inf)), float(np.nextafter(mid, -np.inf))})
    tau = float32_threshold(t)
    out.update({tau, float(np.nextafter(tau, np.inf))})
    return sorted(out)


def probe_rows(estimator, X: np.ndarray) -> np.ndarray:
    """For every split node: the training rows reaching it, with the tested feature set to
    each probe value around the node's threshold."""
    tree = estimator.tree_
    names = getattr(estimator, "feature_names_in_", None)
    paths = estimator.decision_path(X if names is None else pd.DataFrame(X, columns=names))
    paths = paths.tocsc()
    rows = []
    for node in np.flatnonzero(tree.children_left >= 0):
        reach = paths[:, node].nonzero()[0][:10]
        for v in threshold_probes(float(tree.threshold[node])):
            block = X[reach].copy()
            block[:, tree.feature[node]] = v
            rows.append(block)
    return np.vstack(rows)


def assert_same_predictions(estimator, tree, X: np.ndarray, feature_names=None) -> None:
    theirs = estimator.predict(pd.DataFrame(X, columns=feature_names)
                               if feature_names is not None else X)
    ours = tree.predict(X)
    assert len(ours) == len(theirs)
    assert ours.tolist() == theirs.tolist()  # 1 == 1.0 and 'a' == np.str_('a')


CLASSIFIERS = [
    pytest.param(lambda: DecisionTreeClassifier(random_state=0), id="cart"),
    pytest.param(lambda: DecisionTreeClassifier(max_depth=4, criterion="entropy",
                                                random_state=1), id="entropy-d4"),
    pytest.param(lambda: ExtraTreeClassifier(random_state=2), id="extra-tree"),
]


@pytest.mark.parametrize("make", CLASSIFIERS)
@pytest.mark.parametrize(("n_classes", "labels"), [
    (2, None), (2, np.array(["neg", "pos"])), (3, np.array([10, -2, 7])),
    (4, np.array(["a", "b", "c", "d"])), (3, np.array([0.0, 1.0, 2.0])),
])
def test_predictions_on_training_rows_and_thresholds(make, n_classes, labels):
    rng = np.random.default_rng(n_classes)
    X, y = make_data(rng, n_classes=n_classes)
    if labels is not None:
        y = labels[y]
    est = make().fit(X, y)
    tree = xdt.from_sklearn(est)
    assert tree.features.names == ("x0", "x1", "x2", "x3")
    assert list(tree.classes) == est.classes_.tolist()
    assert tree.n_leaves == est.get_n_leaves()
    assert tree.depth == est.get_depth()
    assert_same_predictions(est, tree, X)
    probes = probe_rows(est, X)
    assert len(probes) > 100
    assert_same_predictions(est, tree, probes)


def test_probes_exercise_float32_rounding():
    """On scikit-learn's thresholds (float64 midpoints of float32 values), a naive float64
    comparison x <= t disagrees with float32(x) <= t on some probes: the tests above would
    catch an importer that ignored the float32 cast."""
    X, y = make_data(np.random.default_rng(1))
    est = DecisionTreeClassifier(random_state=0).fit(X, y)
    thresholds = est.tree_.threshold[est.tree_.children_left >= 0]
    differing = [t for t in thresholds
                 if any((v <= t) != (F32(v) <= t) for v in threshold_probes(float(t)))]
    assert len(differing) >= len(thresholds) // 2


def test_label_types():
    rng = np.random.default_rng(3)
    X, y = make_data(rng, n_classes=3)
    est = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, np.array([5, 6, 9])[y])
    tree = xdt.from_sklearn(est)
    assert tree.classes == (5, 6, 9) and all(type(c) is int for c in tree.classes)
    assert tree.predict(X).dtype == np.int64
    est = DecisionTreeClassifier(max_depth=3, random_state=0).fit(
        X, np.array(["lo", "mid", "hi"])[y])
    assert xdt.from_sklearn(est).classes == ("hi", "lo", "mid")  # sklearn sorts classes_


def test_boolean_labels_become_0_1_and_compare_equal():
    rng = np.random.default_rng(4)
    X, y = make_data(rng, n_classes=2)
    est = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y == 1)
    tree = xdt.from_sklearn(est)
    assert tree.classes == (0, 1)
    assert (tree.predict(X) == est.predict(X)).all()


def test_feature_names_from_a_frame_or_given():
    rng = np.random.default_rng(4)
    X, y = make_data(rng)
    names = ["age", "visits", "dose", "weight"]
    frame = pd.DataFrame(X, columns=names)
    est = DecisionTreeClassifier(max_depth=5, random_state=0).fit(frame, y)
    tree = xdt.from_sklearn(est)
    assert tree.features.names == tuple(names)
    assert all(f.kind == "ordinal" for f in tree.features)
    assert tree.predict(frame).tolist() == est.predict(frame).tolist()
    shuffled = frame[names[::-1]]  # by column name, not position
    assert tree.predict(shuffled).tolist() == est.predict(frame).tolist()
    assert_same_predictions(est, tree, probe_rows(est, frame.to_numpy()), names)

    est = DecisionTreeClassifier(max_depth=5, random_state=0).fit(X, y)
    tree = xdt.from_sklearn(est, feature_names=names)
    assert tree.features.names == tuple(names)
    assert_same_predictions(est, tree, X)
    with pytest.raises(UnsupportedEstimatorError):
        xdt.from_sklearn(est, feature_names=names[:3])


def test_imported_tree_explains():
    """An imported tree's explanations pass the independent check."""
    from xdt.explain.checks import _verify as verify
    rng = np.random.default_rng(5)
    X, y = make_data(rng, n_classes=3)
    est = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, y)
    tree = xdt.from_sklearn(est)
    ex = xdt.Explainer(tree)
    for row in X[:20]:
        for axp in ex.all_axps(row):
            assert verify.check_axp(tree, row, axp.features).is_axp


# ---------------------------------------------------------------------- errors
def test_unfitted_estimator():
    with pytest.raises(NotFittedError) as info:
        xdt.from_sklearn(DecisionTreeClassifier())
    assert "fit" in str(info.value)


def test_regressor():
    X, y = make_data(np.random.default_rng(6))
    with pytest.raises(UnsupportedEstimatorError) as info:
        xdt.from_sklearn(DecisionTreeRegressor(max_depth=2).fit(X, y.astype(float)))
    assert "DecisionTreeRegressor" in str(info.value)
    with pytest.raises(UnsupportedEstimatorError):
        xdt.from_sklearn(DecisionTreeRegressor())  # unfitted, still the wrong kind


def test_not_an_estimator():
    with pytest.raises(UnsupportedEstimatorError):
        xdt.from_sklearn(object())


def test_split_on_missingness_is_rejected():
    X = np.array([[np.nan], [np.nan], [np.nan], [1.0], [2.0], [3.0]])
    y = [1, 1, 1, 0, 0, 0]
    est = DecisionTreeClassifier(random_state=0).fit(X, y)
    assert np.isinf(est.tree_.threshold[0])  # scikit-learn split "missing" from "present"
    with pytest.raises(UnsupportedEstimatorError) as info:
        xdt.from_sklearn(est)
    assert "missing" in str(info.value)


def test_nan_in_training_without_a_missingness_split():
    """A tree fitted with NaN whose splits are ordinary thresholds is imported; it predicts
    like scikit-learn on present values."""
    rng = np.random.default_rng(8)
    X, y = make_data(rng)
    X_nan = X.copy()
    X_nan[rng.random(X.shape) < 0.05] = np.nan
    est = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X_nan, y)
    # the premise of the test: every split is an ordinary finite threshold
    assert np.all(np.isfinite(est.tree_.threshold[est.tree_.children_left >= 0]))
    tree = xdt.from_sklearn(est)
    assert_same_predictions(est, tree, X)


def test_multi_output_rejected():
    X, y = make_data(np.random.default_rng(9))
    est = DecisionTreeClassifier(max_depth=2).fit(X, np.stack([y, 1 - y], axis=1))
    with pytest.raises(UnsupportedEstimatorError):
        xdt.from_sklearn(est)


# ---------------------------------------------------------------------- tabular data
def mixed_frame(rng: np.random.Generator, n: int = 400) -> tuple[pd.DataFrame, np.ndarray]:
    colour = rng.choice(["red", "green", "blue", "grey"], n)
    size = np.round(rng.uniform(0, 10, n), 2)
    member = rng.integers(0, 2, n)
    city = rng.choice(["Paris", "Lyon", "Nice"], n)
    score = ((colour == "red") * 2 + (colour == "blue") - (city == "Nice") * 1.5
             + size / 4 + member + rng.normal(0, 0.7, n))
    y = np.where(score > 3, "buy", np.where(score > 1.5, "wait", "skip"))
    frame = pd.DataFrame({"colour": colour, "size": size, "member": member, "city": city})
    return frame, y


def test_tabular_encoder_with_string_categoricals():
    frame, y = mixed_frame(np.random.default_rng(10))
    enc = TabularEncoder().fit(frame)
    kinds = {f.name: f.kind for f in enc.features_}
    assert kinds == {"colour": "categorical", "size": "ordinal", "member": "binary",
                     "city": "categorical"}
    est = DecisionTreeClassifier(max_depth=6, random_state=0).fit(enc.transform(frame), y)
    tree = xdt.from_sklearn(est, encoder=enc, target="decision")
    assert tree.features.names == ("colour", "size", "member", "city")
    # splits on colour/city are categorical, with the original values on the branches
    seen = {}
    stack = [tree.root]
    while stack:
        node = stack.pop()
        if isinstance(node, Leaf):
            continue
        if isinstance(node, ThresholdSplit):
            assert node.feature == "size"
            stack += [node.left, node.right]
            continue
        assert isinstance(node, CategoricalSplit)
        values = [v for b in node.branches for v in b.values]
        seen.setdefault(node.feature, set()).update(values)
        stack += [b.node for b in node.branches]
    assert set(seen) >= {"colour", "city"}
    assert seen["colour"] == {"red", "green", "blue", "grey"}
    assert seen["city"] == {"Paris", "Lyon", "Nice"}
    assert tree.predict(frame).tolist() == est.predict(enc.transform(frame)).tolist()
    # and on unseen rows, and around the thresholds on 'size'
    other, _ = mixed_frame(np.random.default_rng(11), 300)
    assert tree.predict(other).tolist() == est.predict(enc.transform(other)).tolist()
    sizes = [v for t in np.unique(est.tree_.threshold[est.tree_.children_left >= 0])
             for v in threshold_probes(float(t))]
    grid = other.iloc[np.arange(len(sizes)) % len(other)].assign(size=sizes)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no feature-name mismatch warnings from sklearn
        assert tree.predict(grid).tolist() == est.predict(enc.transform(grid)).tolist()
    rule = xdt.Explainer(tree).axp(frame.iloc[0]).rule
    assert rule.endswith(f"THEN decision = {y[0]}")


def test_tabular_encoder_with_boolean_column():
    """A boolean column becomes a binary feature (a feature's domain cannot hold bools)."""
    rng = np.random.default_rng(12)
    frame, y = mixed_frame(rng)
    frame["vip"] = rng.random(len(frame)) < 0.5
    y = np.where(frame["vip"], "buy", y)
    enc = TabularEncoder().fit(frame)
    assert {f.name: f.kind for f in enc.features_}["vip"] == "binary"
    est = DecisionTreeClassifier(max_depth=5, random_state=0).fit(enc.transform(frame), y)
    tree = xdt.from_sklearn(est, encoder=enc)
    assert tree.predict(frame).tolist() == est.predict(enc.transform(frame)).tolist()
    assert xdt.Explainer(tree).predict(frame.iloc[3]) == est.predict(enc.transform(frame))[3]


def test_integer_coded_categoricals():
    rng = np.random.default_rng(13)
    frame, y = mixed_frame(rng)
    frame["grade"] = rng.integers(1, 5, len(frame))
    y = np.where(frame["grade"] == 3, "skip", y)
    enc = TabularEncoder(categorical=["grade"]).fit(frame)
    grade = enc.features_[4]
    assert grade.kind == "categorical" and grade.domain == (1, 2, 3, 4)
    est = DecisionTreeClassifier(random_state=0).fit(enc.transform(frame), y)
    tree = xdt.from_sklearn(est, encoder=enc)
    assert tree.predict(frame).tolist() == est.predict(enc.transform(frame)).tolist()


def test_encoder_column_count_mismatch():
    frame, y = mixed_frame(np.random.default_rng(14))
    enc = TabularEncoder().fit(frame)
    est = DecisionTreeClassifier(max_depth=2).fit(frame[["size", "member"]], y)
    with pytest.raises(UnsupportedEstimatorError):
        xdt.from_sklearn(est, encoder=enc)


def test_unfitted_or_foreign_encoder_is_refused_by_name():
    from xdt.errors import ParameterError
    X = pd.DataFrame({"colour": ["red", "blue", "green"] * 10, "n": np.arange(30.0)})
    enc = TabularEncoder().fit(X)
    est = DecisionTreeClassifier(max_depth=2, random_state=0).fit(enc.transform(X),
                                                                 np.arange(30) % 2)
    with pytest.raises(NotFittedError, match="TabularEncoder is not fitted"):
        xdt.from_sklearn(est, encoder=TabularEncoder())
    with pytest.raises(ParameterError, match="not dict"):
        xdt.from_sklearn(est, encoder={})
    with pytest.raises(NotFittedError, match="TabularEncoder is not fitted"):
        TabularEncoder().transform(X)
