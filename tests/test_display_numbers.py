"""Numbers in readable text: thresholds shown as the shortest decimal that sends every value
the model compares the same way, example values of counterexamples that lie in their cells,
and 0/1 columns of scikit-learn trees imported as binary features."""

from __future__ import annotations

import json
import re
from decimal import ROUND_FLOOR, Decimal
from pathlib import Path

import jsonschema
import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st
from sklearn.tree import DecisionTreeClassifier

import xdt
import xdt.plot
from xdt.cli import main
from xdt.errors import (
    ModelFormatError,
    ParameterError,
    UnknownCategoryError,
    UnknownFeatureError,
    UnsupportedEstimatorError,
)
from xdt.interop._sklearn_tree import float32_threshold
from xdt.interop._tabular import TabularEncoder
from xdt.ir import (
    CategoricalSplit,
    DecisionTree,
    Feature,
    IntervalCells,
    Leaf,
    ThresholdSplit,
    model_from_dict,
    model_to_dict,
)
from xdt.ir._values import display_threshold, float32_below

F32 = np.float32
SCHEMA = json.loads((Path(__file__).resolve().parent.parent / "encodings"
                     / "xdt-model-1.schema.json").read_text(encoding="utf-8"))


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def float32_neighbours(t: float, k: int = 4) -> list[float]:
    """The float32 values within ``k`` float32 steps of ``t`` (as float64)."""
    v = F32(float32_below(t))
    out = []
    lo = hi = v
    for _ in range(k):
        lo = np.nextafter(lo, F32(-np.inf))
        hi = np.nextafter(hi, F32(np.inf))
    x = lo
    while x <= hi:
        if np.isfinite(x):
            out.append(float(x))
        x = np.nextafter(x, F32(np.inf))
    return out


def float64_neighbours(t: float, k: int = 4) -> list[float]:
    lo = hi = t
    for _ in range(k):
        lo, hi = float(np.nextafter(lo, -np.inf)), float(np.nextafter(hi, np.inf))
    out, x = [], lo
    while x <= hi:
        out.append(x)
        x = float(np.nextafter(x, np.inf))
    return out


def significant_digits(text: str) -> int:
    mantissa = text.lower().split("e")[0].lstrip("-").replace(".", "").strip("0")
    return max(len(mantissa), 1)


# ---------------------------------------------------------------------- display_threshold
@pytest.mark.parametrize("t, dtype, shown", [
    (0.5000000298023224, "float32", "0.5"),      # float32_threshold(0.5)
    (17.500000953674316, "float32", "17.5"),
    (4.500000238418579, "float32", "4.5"),
    (1297.0000610351562, "float32", "1297"),
    (26.5, "float32", "26.5"),
    (26.5, "float64", "26.5"),
    (0.5000000298023224, "float64", "0.5000000298023224"),  # a float64 model sees 0.50000001
    (0.15000000000000002, "float64", "0.15000000000000002"),  # 0.15 reads back lower
    (-3.0, "float64", "-3"),
])
def test_display_threshold_fixed_cases(t, dtype, shown):
    assert display_threshold(t, dtype) == shown


def test_display_threshold_of_imported_scikit_learn_thresholds():
    """float32_threshold(0.5) = 0.5000000298023224: float32(0.5) = 0.5 goes left and the next
    float32, 0.50000006, right, as with 0.5; so 0.5 is the shortest such decimal."""
    tau = float32_threshold(0.5)
    assert tau == 0.5000000298023224
    assert float(np.nextafter(F32(0.5), F32(1))) > tau
    assert display_threshold(tau, "float32") == "0.5"
    # scikit-learn sends 0.73 itself right of the test 0.73 (float32(0.73) = 0.73000002), so
    # the rule must not read x <= 0.73: the left side ends at the float32 0.72999996
    tau = float32_threshold(0.73)
    assert display_threshold(tau, "float32") == "0.72999998"
    assert float(F32(0.73)) > 0.73 and float(F32(0.72999998)) <= 0.73


@given(st.floats(min_value=-1e38, max_value=1e38),
       st.lists(st.floats(width=32, allow_nan=False, allow_infinity=False), max_size=20))
def test_float32_display_puts_every_float32_value_on_the_same_side(t, others):
    """For a scikit-learn threshold t (imported as tau = float32_threshold(t)), the shown
    decimal d, read back, sends every float32 value v the same way as the model
    (float32(v) <= t), d itself goes left, and no decimal with fewer digits would do."""
    tau = float32_threshold(t)
    text = display_threshold(tau, "float32")
    d = float(text)
    assert d <= tau and float(F32(d)) <= t                 # d itself goes left
    for v in float32_neighbours(tau) + [float(F32(v)) for v in others]:
        assert (v <= d) == (v <= tau) == (float(F32(v)) <= t)
    k = significant_digits(text)
    if k > 1:  # shortest: the largest decimal of k-1 digits not above tau is too low
        exact = Decimal(tau)
        fewer = exact.quantize(Decimal(1).scaleb(exact.adjusted() - k + 2), rounding=ROUND_FLOOR)
        assert float(fewer) < float32_below(tau)


@given(st.floats(allow_nan=False, allow_infinity=False),
       st.lists(st.floats(allow_nan=False, allow_infinity=False), max_size=20))
def test_float64_display_reads_back_as_the_threshold(t, others):
    text = display_threshold(t, "float64")
    d = float(text)
    assert d == t
    for v in float64_neighbours(t) + others:
        assert (v <= d) == (v <= t)


# ---------------------------------------------------------------------- cell values
@given(st.lists(st.floats(min_value=-1.7e308, max_value=1.7e308), min_size=1, max_size=6),
       st.sampled_from(["float64", "float32"]))
def test_every_cell_value_prints_as_a_value_of_its_cell(thresholds, dtype):
    """The example value of each cell, printed as rules print it and read back, is in the
    cell (the value shown in CXps is never on the wrong side of a threshold)."""
    if dtype == "float32":  # scikit-learn's thresholds, in float32's range
        thresholds = [float32_threshold(np.clip(t, -3e38, 3e38)) for t in thresholds]
    cells = IntervalCells("x", thresholds, dtype)
    for j in range(cells.n_cells):
        v = cells.value(j)
        lo, hi = cells.bounds(j)
        assert lo < v <= hi
        assert cells.cell_of(float(repr(v))) == j


def test_cell_values_are_short():
    assert IntervalCells("x", [1e308]).value(1) == 1.1e308          # not 1.0000000000000002e308
    assert IntervalCells("x", [0.64]).value(0) == 0.64
    f32 = IntervalCells("x", [float32_threshold(0.5), float32_threshold(0.75)], "float32")
    assert [f32.value(j) for j in range(3)] == [0.5, 0.75, 1.0]   # not 0.7500000298023224


# ---------------------------------------------------------------------- counterexamples
HUGE = {"format": "xdt-model/1", "kind": "tree",
        "features": [{"name": "x", "kind": "ordinal"}], "classes": ["a", "b"],
        "root": {"feature": "x", "threshold": 1e308,
                 "left": {"class": "a"}, "right": {"class": "b"}}}


def shown_examples(text: str) -> dict[str, float]:
    """Feature -> the number a CXp text proposes ("CHANGE x (now 1.0; e.g. to 2) => b")."""
    return {m.group(1): float(m.group(2))
            for m in re.finditer(r"(\w+) \(now [^;]*; e\.g\. to ([-+0-9.e]+)\)", text)}


def test_counterexample_near_the_largest_float_is_printed_in_its_cell(tmp_path):
    model = model_from_dict(HUGE)
    cxp = xdt.Explainer(model).cxp({"x": 1.0})
    assert cxp.rule == "CHANGE x (now 1.0; e.g. to 1.1e+308) => b"
    assert model.predict([[shown_examples(cxp.rule)["x"]]]).tolist() == ["b"]
    path = tmp_path / "huge.json"
    path.write_text(json.dumps(HUGE))
    result = run("explain", str(path), "--instance", '{"x": 1.0}')
    assert result.exit_code == 0, result.output
    assert "CXp: CHANGE x (now 1.0; e.g. to 1.1e+308) => b" in result.stdout
    assert model.predict([[shown_examples(result.stdout)["x"]]]).tolist() == ["b"]


def test_printed_counterexamples_lie_in_their_cells(tmp_path):
    """On a scikit-learn tree (float32 thresholds) and on a float64 tree, every example
    value a CXp prints, read back, lies in the counterexample's cell and gets its class,
    in Python and on the command line."""
    rng = np.random.default_rng(3)
    X = pd.DataFrame({"u": np.round(rng.uniform(0, 1, 300), 3),
                      "w": rng.integers(16, 50, 300)})
    y = np.where((X["u"] > 0.37) & (X["w"] > 23), "p", "e")
    est = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, y)
    f64 = DecisionTree([Feature("u", "ordinal"), Feature("w", "ordinal")], ["e", "p"],
                       ThresholdSplit("u", 0.30000000000000004,
                                      Leaf("e"), ThresholdSplit("w", 23.25, Leaf("e"), Leaf("p"))))
    for model in (xdt.from_sklearn(est), f64):
        ex = xdt.Explainer(model)
        path = tmp_path / "model.json"
        xdt.save_model(model, path)
        csv = tmp_path / "rows.csv"
        X.iloc[:20].to_csv(csv, index=False)
        text = run("explain", str(path), "--data", str(csv), "--all-cxps").stdout
        for i in range(20):
            x = {c: X[c].iloc[i] for c in X.columns}
            for cxp in ex.all_cxps(x):
                assert cxp.rule in text
                shown = shown_examples(cxp.rule)
                assert set(shown) == set(cxp.features)
                point = dict(x, **shown)
                for name, v in shown.items():
                    f = model.features.index(name)
                    assert model.cells[f].cell_of(v) == \
                        model.cells[f].cell_of(cxp.counterexample[name])
                assert model.predict([point]).tolist() == [cxp.counterexample_class]


def test_float64_thresholds_are_not_rounded_on_the_command_line(tmp_path):
    """x <= 1.0000001 is not x <= 1: x = 1.00000005 goes left."""
    doc = dict(HUGE, root={"feature": "x", "threshold": 1.0000001,
                           "left": {"class": "a"}, "right": {"class": "b"}})
    path = tmp_path / "m.json"
    path.write_text(json.dumps(doc))
    result = run("explain", str(path), "--instance", '{"x": 1.00000005}')
    assert "AXp (1 feature): IF x <= 1.0000001 THEN a" in result.stdout, result.output


# ---------------------------------------------------------------------- scikit-learn rules
def wife_frame(n: int = 400, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"cap-shape_1": rng.integers(0, 2, n), "odor_3": rng.integers(0, 2, n),
                      "Wife_age": rng.integers(16, 50, n)})
    y = np.where((X["cap-shape_1"] == 1) & (X["Wife_age"] > 17), "yes", "no")
    y = np.where((X["odor_3"] == 1) & (X["Wife_age"] > 40), "yes", y)
    return X, y


def grid(X: pd.DataFrame) -> pd.DataFrame:
    """Every 0/1 combination of the indicators with every age from 10 to 60 (and halves)."""
    ages = np.arange(10, 60.5, 0.5)
    idx = pd.MultiIndex.from_product([[0, 1], [0, 1], ages], names=list(X.columns))
    return idx.to_frame(index=False)


def test_sklearn_rules_show_short_thresholds_and_keep_exact_ones(tmp_path):
    X, y = wife_frame()
    est = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, y)
    model = xdt.from_sklearn(est, target="class")
    assert model.input_dtype == "float32"
    rule = xdt.Explainer(model).axp({"cap-shape_1": 1, "odor_3": 0, "Wife_age": 30}).rule
    assert rule == "IF 0.5 < cap-shape_1 AND 17.5 < Wife_age <= 40.5 THEN class = yes"
    doc = model_to_dict(model)
    assert doc["input_dtype"] == "float32"
    thresholds = []
    stack = [doc["root"]]
    while stack:
        node = stack.pop()
        if "threshold" in node:
            thresholds.append(node["threshold"])
            stack += [node["left"], node["right"]]
    assert 17.500000953674316 in thresholds and 0.5000000298023224 in thresholds
    jsonschema.validate(doc, SCHEMA)
    path = tmp_path / "m.json"
    xdt.save_model(model, path)
    again = xdt.load_model(path)
    assert model_to_dict(again) == doc and again.input_dtype == "float32"
    assert str(xdt.Explainer(again).axp({"cap-shape_1": 1, "odor_3": 0,
                                         "Wife_age": 30})) == rule


def test_input_dtype_in_model_files():
    doc = dict(HUGE, input_dtype="float32")
    assert model_to_dict(model_from_dict(doc)) == doc
    assert "input_dtype" not in model_to_dict(model_from_dict(HUGE))   # float64: not written
    with pytest.raises(ModelFormatError, match="input_dtype"):
        model_from_dict(dict(HUGE, input_dtype="float16"))
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(dict(HUGE, input_dtype="float16"), SCHEMA)


def test_sklearn_tree_plot_labels_match_rules():
    X, y = wife_frame()
    model = xdt.from_sklearn(DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y))
    dot = xdt.plot.to_dot(model)
    assert 'label="<= 17.5"' in dot and "17.500000953674316" not in dot
    big = DecisionTree([Feature("x", "ordinal")], ["a", "b"],
                       ThresholdSplit("x", 1234567.5, Leaf("a"), Leaf("b")))
    assert 'label="<= 1234567.5"' in xdt.plot.to_dot(big)      # not 1.23457e+06


# ---------------------------------------------------------------------- binary features
def test_sklearn_01_columns_become_binary_features_from_the_training_rows():
    X, y = wife_frame()
    est = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, y)
    model = xdt.from_sklearn(est, X=X, target="class")
    assert [(f.name, f.kind) for f in model.features] == \
        [("cap-shape_1", "binary"), ("odor_3", "binary"), ("Wife_age", "ordinal")]
    ex = xdt.Explainer(model)
    assert ex.axp({"cap-shape_1": 1, "odor_3": 0, "Wife_age": 30}).rule == \
        "IF cap-shape_1 = 1 AND 17.5 < Wife_age <= 40.5 THEN class = yes"
    assert ex.axp({"cap-shape_1": 0, "odor_3": 0, "Wife_age": 30}).rule == \
        "IF cap-shape_1 = 0 AND 17.5 < Wife_age <= 40.5 THEN class = no"
    rows = grid(X)
    assert model.predict(rows).tolist() == est.predict(rows).tolist()
    # an array of the same rows works as well, with names from the estimator; an estimator
    # fitted on an array takes its names from the frame
    assert xdt.from_sklearn(est, X=X.to_numpy()).features == model.features
    on_array = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X.to_numpy(), y)
    assert xdt.from_sklearn(on_array, X=X).features == model.features
    # a binary feature takes 0 and 1 only, though scikit-learn would send 0.5 left
    with pytest.raises(UnknownCategoryError, match=r"cap-shape_1.*0\.5.*\[0, 1\]"):
        model.predict([{"cap-shape_1": 0.5, "odor_3": 0, "Wife_age": 30}])
    with pytest.raises(UnknownCategoryError):
        ex.axp({"cap-shape_1": 2, "odor_3": 0, "Wife_age": 30})


def test_binary_features_declared_by_name():
    X, y = wife_frame()
    est = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, y)
    model = xdt.from_sklearn(est, binary_features=["odor_3"])
    assert [f.kind for f in model.features] == ["ordinal", "binary", "ordinal"]
    assert model.predict(grid(X)).tolist() == est.predict(grid(X)).tolist()
    assert [f.kind for f in xdt.from_sklearn(est).features] == ["ordinal"] * 3  # cannot tell
    with pytest.raises(UnknownFeatureError, match="odour"):
        xdt.from_sklearn(est, binary_features=["odour"])
    # a column the tree tests at 30.5 was not 0/1 when it was fitted
    with pytest.raises(UnsupportedEstimatorError, match="Wife_age"):
        xdt.from_sklearn(est, binary_features=["Wife_age"])
    with pytest.raises(ParameterError, match="encoder"):
        xdt.from_sklearn(est, X=X, encoder=TabularEncoder().fit(X))


def test_mushroom_bin_imported_with_binary_features(datasets_dir):
    frame = pd.read_csv(datasets_dir / "mushroom-bin.csv.gz")
    X, y = frame.drop(columns="class"), frame["class"]
    est = DecisionTreeClassifier(max_depth=5, random_state=0).fit(X, y)
    model = xdt.from_sklearn(est, X=X, target="class")
    assert all(f.kind == "binary" for f in model.features)
    assert model.predict(X).tolist() == est.predict(X).tolist()
    ex = xdt.Explainer(model)
    for i in range(0, len(X), 997):
        rule = ex.axp(X.iloc[i]).rule
        assert re.fullmatch(r"IF (\S+ = [01])( AND \S+ = [01])* THEN class = \S+", rule), rule
    root = model.root
    assert isinstance(root, CategoricalSplit) and [b.values for b in root.branches] == \
        [(0,), (1,)]


# ------------------------------------------------------------ thresholds of xdt's own learners
@pytest.mark.parametrize("lo, hi, shown", [(26, 27, 26.5), (0.1, 0.2, 0.15), (-3.2, -3.1, -3.15),
                                           (5, 5.0001, 5.00005), (1.0, 1.0000000000000002, 1.0),
                                           (48, 60, 54)])
def test_learned_thresholds_are_short_midpoints(lo, hi, shown):
    from xdt.learn._splitter import midpoint

    t = midpoint(lo, hi)
    assert t == shown and lo <= t < hi


def test_learned_tree_rule_reads_the_short_threshold():
    from xdt.learn import CARTClassifier

    # the float64 midpoint of 0.1 and 0.2 is 0.15000000000000002; 0.15 splits them the same
    X = pd.DataFrame({"x": [0.1, 0.1, 0.2, 0.2]})
    est = CARTClassifier().fit(X, ["a", "a", "b", "b"])
    assert xdt.Explainer(est.tree_).axp({"x": 0.1}).rule == "IF x <= 0.15 THEN a"


def test_a_learners_strict_tests_read_as_written():
    # imodels' rule lists test x >= 1.5, imported exactly as 1.4999999999999998 < x (the
    # float64 just below 1.5): shown as the learner wrote it, and still meaning the same
    import math

    from xdt.ir import Condition, DecisionList, Feature
    from xdt.ir._values import strict_threshold

    below = math.nextafter(1.5, -math.inf)
    assert below == 1.4999999999999998 and strict_threshold(below) == 1.5
    assert strict_threshold(1.5) is None and strict_threshold(26.5) is None
    assert strict_threshold(below, "float32") is None
    dl = DecisionList([Feature("x", "ordinal")], ["lo", "hi"],
                      [([Condition("x", above=below)], "hi"),
                       ([Condition("x", upto=math.nextafter(0.5, -math.inf))], "lo"),
                       ([Condition("x", above=0.25, upto=below)], "hi")], default="lo")
    assert [str(r.conditions[0]) for r in dl.rules()] == [
        "1.5 <= x", "x < 0.5", "0.25 < x < 1.5"]
    # 1.5 fires rule 0; just below 1.5 and 0.5 fire rule 2; 0.49 and 0.3 rule 1
    assert dl.predict([[1.5], [below], [0.49], [0.5], [0.3]]).tolist() == [
        "hi", "hi", "lo", "hi", "lo"]
    # cells (-inf, .25], (.25, .5), [.5, 1.5), [1.5, inf)
    assert dl.cells[0].describe(0b1000) == "1.5 <= x"
    assert dl.cells[0].describe(0b0011) == "x < 0.5"
