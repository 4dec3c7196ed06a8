"""Trees imported from scikit-learn compare float32 values: their counterexample values stay
within float32's finite range (and print short), and instance values beyond it, which
scikit-learn's ``predict`` rejects, are rejected too."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.tree import DecisionTreeClassifier
from tiers import examples

import xdt
from xdt.errors import InstanceError, InvalidRowError, ValueOutOfRangeError
from xdt.interop._sklearn_tree import float32_threshold
from xdt.ir import IntervalCells
from xdt.run import explain_table

F32 = np.float32
F32_MAX = float(np.finfo(F32).max)  # 3.4028234663852886e+38


def sk_predict(est: DecisionTreeClassifier, X: pd.DataFrame) -> np.ndarray:
    """``est.predict(X)`` without numpy's overflow warnings (its finiteness check sums the
    huge values)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return est.predict(X)


@pytest.fixture(scope="module")
def huge():
    """A tree on columns with values up to 3.3e38 (float32's largest is ~3.4028e38): its
    thresholds on ``huge`` are the midpoints -3.35e38, -1.15e38 and 2e38, on ``top`` 3.15e38
    (the decimal midpoints; the float32 tests are their neighbours)."""
    values = np.array([-3.4e38, -3.3e38, 1e38, 3.0e38])
    classes = np.array([0, 1, 0, 1])
    rng = np.random.default_rng(0)
    pick = rng.integers(len(values), size=200)
    pick[: len(values)] = np.arange(len(values))  # every value at least once
    top = np.where(np.arange(200) % 2 == 0, 3.0e38, 3.3e38)
    X = pd.DataFrame({"huge": values[pick], "top": top})
    y = pd.Series(classes[pick] ^ (top == 3.3e38), name="y")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # sums of squares overflow
        est = DecisionTreeClassifier(random_state=0).fit(X, y)
    assert (sk_predict(est, X) == y).all()
    return est, xdt.from_sklearn(est, X=X, target="y"), X


def test_the_thresholds_are_the_known_midpoints(huge):
    est, model, _ = huge
    tests = zip(est.tree_.threshold, est.tree_.feature, strict=True)
    assert sorted({round(float(t), -36) for t, f in tests if f == 0}) == \
        [-3.35e38, -1.15e38, 2e38]
    cells = model.cells[0]
    assert [cells.describe(1 << j) for j in (2, 3)] == \
        ["-1.15e+38 < huge <= 2e+38", "2e+38 < huge"]
    assert model.cells[1].describe(0b10) == "3.15e+38 < top"


def test_every_counterexample_is_accepted_by_sklearn_and_changes_its_class(huge):
    est, model, X = huge
    ex = xdt.Explainer(model)
    seen = set()
    for x in X.drop_duplicates().to_dict("records"):
        before = model.predict(pd.DataFrame([x]))[0]
        for c in ex.all_cxps(x):
            point = pd.DataFrame([c.counterexample])[list(X.columns)]
            assert (point.abs() <= F32_MAX).all(axis=None)
            assert sk_predict(est, point)[0] == c.counterexample_class != before
            assert model.predict(point)[0] == c.counterexample_class
            seen.update(v for f, v in c.counterexample.items() if f in c.features)
    # in (-3.35e38, -1.15e38] the value is -1.15e+38, not its float32 image
    # -1.1499999987270714e+38; above 3.15e38 the shortest float32-finite value is 3.2e+38
    # (4e+38 would overflow)
    assert {-1.15e38, 3.2e38} <= seen


def test_counterexamples_print_short_inside_float32_range(huge):
    _, model, _ = huge
    cells = model.cells[0]
    assert [cells.value(j) for j in range(cells.n_cells)] == \
        [-3.3499999e38, -1.15e38, 2e38, 3e38]
    assert [model.cells[1].value(j) for j in range(2)] == [3.15e38, 3.2e38]
    ex = xdt.Explainer(model)
    texts = [str(c) for c in ex.all_cxps({"huge": 1e38, "top": 3.0e38})]
    assert texts == ["CHANGE huge (now 1e+38; e.g. to -1.15e+38) => y = 1",
                     "CHANGE top (now 3e+38; e.g. to 3.2e+38) => y = 1"]


@pytest.mark.parametrize("value", [4e38, -4e38, 3.5e38, 1e300])
def test_values_beyond_float32_are_rejected_as_sklearn_does(huge, value):
    est, model, _ = huge
    x = {"huge": value, "top": 3.0e38}
    with pytest.raises(ValueError, match="too large for dtype"):
        sk_predict(est, pd.DataFrame([x]))
    message = f"feature 'huge' has value {value:g}, beyond the float32 range " \
              "(|x| <= 3.4028235e+38) that the tree compares"
    with pytest.raises(ValueOutOfRangeError) as e:
        model.predict(pd.DataFrame([x]))
    assert str(e.value).startswith(message)
    assert isinstance(e.value, InstanceError)
    with pytest.raises(ValueOutOfRangeError, match="beyond the float32 range"):
        xdt.Explainer(model).axp(x)
    with pytest.raises(ValueOutOfRangeError, match="beyond the float32 range"):
        xdt.Explainer(model).all_cxps(x)
    rows = pd.DataFrame([{"huge": 0.0, "top": 3.0e38}, x, x])
    with pytest.raises(ValueOutOfRangeError, match=r"\(row 1\), beyond the float32 range"):
        model.predict(rows)
    with pytest.raises(InvalidRowError) as e:
        explain_table(model, rows, progress=False)
    assert e.value.row == 1 and "beyond the float32 range" in e.value.reason


@pytest.mark.parametrize("value", [math.inf, -math.inf])
def test_infinite_values_are_rejected_as_sklearn_does(huge, value):
    est, model, _ = huge
    x = {"huge": value, "top": 3.0e38}
    with pytest.raises(ValueError, match="infinity"):
        sk_predict(est, pd.DataFrame([x]))
    with pytest.raises(ValueOutOfRangeError, match="has value -?inf; xdt models compare finite"):
        model.predict(pd.DataFrame([x]))
    with pytest.raises(ValueOutOfRangeError, match="finite"):
        xdt.Explainer(model).axp(x)


@pytest.mark.parametrize("value", [3.4e38, -3.4e38, F32_MAX, 3.4028235e38, -3.4028235e38])
def test_values_rounding_to_float32_max_are_accepted_like_sklearn(huge, value):
    est, model, _ = huge
    point = pd.DataFrame([{"huge": value, "top": 3.0e38}])
    assert model.predict(point)[0] == sk_predict(est, point)[0]


def test_float64_models_accept_values_beyond_float32():
    cells = IntervalCells("x", [1e300])
    assert [cells.cell_of(v) for v in (4e38, 1e300, 1.5e300)] == [0, 0, 1]
    with pytest.raises(ValueOutOfRangeError):
        cells.cell_of(math.inf)


def _float32_tests(draw_values: list[float]) -> list[float]:
    """The thresholds scikit-learn may choose between consecutive float32 values ``a < b``
    of a column: the midpoint (float64), or ``a`` itself when the midpoint rounds to ``b``."""
    vs = sorted(set(draw_values))
    return vs[:-1] + [(a + b) / 2 for a, b in zip(vs, vs[1:], strict=False)]


near_max = st.floats(min_value=float(F32(3.0e38)), max_value=F32_MAX, width=32)


@settings(max_examples=examples(150), deadline=None)
@given(st.lists(st.one_of(near_max, near_max.map(lambda v: -v),
                          st.floats(-1e3, 1e3, width=32)), min_size=2, max_size=6))
def test_every_cell_value_is_float32_finite_and_on_its_side(values):
    tests = _float32_tests(values)  # what scikit-learn compares float32(x) with
    cells = IntervalCells("x", [float32_threshold(t) for t in tests], "float32")
    for j in range(cells.n_cells):
        v = cells.value(j)
        assert abs(v) <= F32_MAX and math.isfinite(float(F32(v)))
        assert cells.cell_of(v) == j
        lo, hi = cells.bounds(j)
        below = [t for t in tests if float32_threshold(t) <= lo]
        above = [t for t in tests if float32_threshold(t) >= hi]
        assert all(float(F32(v)) > t for t in below)  # right of every test below the cell
        assert all(float(F32(v)) <= t for t in above)  # left of every test above it
