"""Behaviour of the public Explainer API: instance forms, errors, the Explanation value
object, the deletion order and engines."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from conftest import load_case

import xdt
from xdt.errors import (
    EngineNotAvailableError,
    InstanceShapeError,
    MissingFeatureError,
    MissingValueError,
    UnknownCategoryError,
    UnknownFeatureError,
    XdtError,
)

TENNIS_X = {"Humidity": "high", "Outlook": "overcast", "Wind": "weak"}
ZHOU_X = {"x": 0.9, "y": 0.2}
FIG3_X = {"x1": 1, "x2": 1, "x3": 1, "x4": 1}


def model(name: str):
    return xdt.load_model(load_case(name)["model"])


@pytest.fixture
def tennis():
    return xdt.Explainer(model("playtennis-multiedge"))


@pytest.fixture
def zhou():
    return xdt.Explainer(model("zhou-thresholds"))


def every_answer(ex: xdt.Explainer, x) -> tuple:
    """Everything the explainer says about ``x``, for comparing instance forms."""
    return (ex.predict(x), ex.axp(x), ex.cxp(x), tuple(ex.all_axps(x)), tuple(ex.all_cxps(x)),
            ex.smallest_axp(x), ex.axp(x, path_restricted=True),
            tuple(ex.all_axps(x, path_restricted=True)), ex.path_is_redundant(x),
            ex.relevant_features(x), ex.necessary_features(x), ex.path_features(x))


# ---------------------------------------------------------------------- instance forms
@pytest.mark.parametrize("name", ["playtennis-multiedge", "zhou-thresholds", "restaurant-tree",
                                  "izza-fig3-unrestricted"])
def test_instance_forms_agree(name):
    tree = model(name)
    ex = xdt.Explainer(tree)
    for q in load_case(name)["queries"]:
        x = q["instance"]
        as_list = [x[n] for n in tree.features.names]
        as_series = pd.Series(x)
        shuffled = dict(reversed(list(x.items())))
        reference = every_answer(ex, x)
        assert every_answer(ex, as_list) == reference
        assert every_answer(ex, tuple(as_list)) == reference
        assert every_answer(ex, as_series) == reference
        assert every_answer(ex, shuffled) == reference
        assert every_answer(xdt.Explainer(tree), as_series) == reference  # no shared cache
        assert reference[0] == q["prediction"]


def test_pandas_row_of_a_frame(zhou):
    frame = pd.DataFrame([{"y": 0.2, "x": 0.9}, {"y": 0.95, "x": 0.1}])
    assert zhou.axp(frame.iloc[0]).features == ("x",)
    assert zhou.axp(frame.iloc[1]).features == ("y",)


def test_pandas_row_with_a_target_column(zhou):
    frame = pd.DataFrame([{"y": 0.2, "x": 0.9, "class": "cross"}])
    assert zhou.axp(frame.iloc[0]).features == ("x",)
    # a dict is read like the row: by name, keys that are not features ignored
    assert zhou.axp({"y": 0.2, "x": 0.9, "class": "cross"}) == zhou.axp(frame.iloc[0])


def test_numpy_scalars_and_arrays(zhou):
    assert zhou.axp(np.array([0.9, 0.2])) == zhou.axp(ZHOU_X)
    assert zhou.axp({"x": np.float32(0.9), "y": np.float64(0.2)}) == zhou.axp(ZHOU_X)


# ---------------------------------------------------------------------- errors
@pytest.mark.parametrize(("x", "error"), [
    ({"Humidity": "high", "Outlook": "overcast"}, MissingFeatureError),
    ({"Humidity": "high", "Outlok": "overcast", "Wind": "weak"}, MissingFeatureError),
    ({**TENNIS_X, "Outlook": "foggy"}, UnknownCategoryError),
    ({**TENNIS_X, "Humidity": float("nan")}, MissingValueError),
    ({**TENNIS_X, "Wind": None}, MissingValueError),
    (["high", "overcast"], InstanceShapeError),
    (["high", "overcast", "weak", "hot"], InstanceShapeError),
    ("high overcast weak", InstanceShapeError),
])
def test_bad_instances(tennis, x, error):
    for call in (tennis.axp, tennis.cxp, tennis.all_axps, tennis.all_cxps,
                 tennis.path_is_redundant, tennis.predict):
        with pytest.raises(error) as info:
            call(x)
        assert isinstance(info.value, XdtError)
        assert str(info.value)  # a message, not an empty error


def test_bad_numeric_instances(zhou):
    with pytest.raises(MissingValueError):
        zhou.axp({"x": math.nan, "y": 0.2})
    with pytest.raises(MissingValueError):
        zhou.axp([0.9, np.nan])
    with pytest.raises(InstanceShapeError):
        zhou.axp([0.9])
    with pytest.raises(MissingFeatureError):
        zhou.axp(pd.Series({"x": 0.9}))


def test_errors_are_also_builtin_exceptions(tennis):
    with pytest.raises(ValueError):
        tennis.axp({"Humidity": "high", "Outlook": "overcast"})
    with pytest.raises(LookupError):
        tennis.is_weak_axp(TENNIS_X, ["Temperature"])


def test_unknown_feature_in_a_query(tennis):
    with pytest.raises(UnknownFeatureError):
        tennis.is_weak_axp(TENNIS_X, ["Temperature"])


# ---------------------------------------------------------------------- explanations
def test_playtennis_rule(tennis):
    axp = tennis.axp(TENNIS_X)
    assert axp.kind == "AXp"
    assert axp.features == ("Outlook",)
    assert axp.values == ("overcast",)
    assert axp.prediction == "yes"
    assert axp.rule == "IF Outlook = overcast THEN yes"
    assert str(axp) == axp.rule
    assert len(axp) == 1 and "Outlook" in axp and list(axp) == ["Outlook"]


def test_rule_names_the_target():
    doc = dict(load_case("playtennis-multiedge")["model"], target="play")
    ex = xdt.Explainer(xdt.load_model(doc))
    assert ex.axp(TENNIS_X).rule == "IF Outlook = overcast THEN play = yes"


def test_zhou_rule(zhou):
    axp = zhou.axp(ZHOU_X)
    assert axp.rule == "IF 0.64 < x THEN cross"
    assert axp.values == (0.9,)
    (cxp,) = zhou.all_cxps(ZHOU_X)
    assert cxp.kind == "CXp" and cxp.features == ("x",)
    assert cxp.counterexample_class == "circle"
    assert model("zhou-thresholds").predict([cxp.counterexample])[0] == "circle"
    assert cxp.counterexample["y"] == 0.2  # only the CXp's feature changed


def test_to_dict_is_json(tennis, zhou):
    for ex, x in ((tennis, TENNIS_X), (zhou, ZHOU_X), (zhou, {"x": np.float64(0.64),
                                                               "y": np.float32(0.5)})):
        for e in [ex.axp(x), ex.axp(x, path_restricted=True), *ex.all_cxps(x)]:
            d = e.to_dict()
            assert json.loads(json.dumps(d)) == d
            assert d["kind"] == e.kind
            assert d["features"] == list(e.features)
            assert d["rule"] == e.rule
            assert d["path_restricted"] == e.path_restricted
    d = tennis.all_cxps(TENNIS_X)[0].to_dict()
    assert d["counterexample_class"] == "no"
    assert d["counterexample"]["Outlook"] in ("rain", "sunny")


def test_int_labels_to_dict():
    ex = xdt.Explainer(model("izza-fig3-unrestricted"))
    d = ex.axp(FIG3_X).to_dict()
    assert d["prediction"] == 1 and isinstance(d["prediction"], int)
    assert json.loads(json.dumps(d)) == d


def test_equality_and_hash(tennis):
    a, b = tennis.axp(TENNIS_X), tennis.axp(dict(TENNIS_X))
    assert a == b and hash(a) == hash(b)
    assert len({a, b, tennis.smallest_axp(TENNIS_X)}) == 1
    restricted = tennis.axp(TENNIS_X, path_restricted=True)
    assert restricted.path_restricted and restricted != a  # same features, other setting
    (cxp,) = tennis.all_cxps(TENNIS_X)
    assert cxp != a and cxp.features == a.features
    other = tennis.axp({**TENNIS_X, "Wind": "strong"})  # Wind is irrelevant, but recorded
    assert other == a


def test_explanations_are_immutable(tennis):
    a = tennis.axp(TENNIS_X)
    with pytest.raises(AttributeError):
        a.features = ("Humidity",)


def test_path_restricted_literal_is_the_paths():
    """With a multi-value edge, a path-restricted AXp holds Outlook to the path's literal
    {rain, sunny}, not to the instance's value."""
    tree = model("playtennis-multiedge")
    ex = xdt.Explainer(tree)
    x = {"Humidity": "high", "Outlook": "rain", "Wind": "weak"}
    plain = ex.axp(x)
    restricted = ex.axp(x, path_restricted=True)
    assert plain.features == restricted.features == ("Humidity", "Outlook")
    outlook = tree.features.index("Outlook")
    rain_or_sunny = tree.cells[outlook].describe(0b110)
    assert restricted.literals[1] == rain_or_sunny
    assert plain.literals[1] == "Outlook = rain"


# ---------------------------------------------------------------------- order, engines
def test_order_selects_the_axp():
    """Izza et al. Example 7: two AXps, {x1, x3} and {x2, x3, x4}. A feature tried earlier
    for removal is more likely to be left out."""
    ex = xdt.Explainer(model("izza-fig3-unrestricted"))
    assert {frozenset(e.features) for e in ex.all_axps(FIG3_X)} == \
        {frozenset({"x1", "x3"}), frozenset({"x2", "x3", "x4"})}
    assert ex.axp(FIG3_X, order="features").features == ("x2", "x3", "x4")
    assert ex.axp(FIG3_X, order="reverse").features == ("x1", "x3")
    assert ex.axp(FIG3_X, order="path").features == ("x1", "x3")  # off-path x2, x4 go first
    assert ex.axp(FIG3_X, order=["x1"]).features == ("x2", "x3", "x4")
    assert ex.axp(FIG3_X, order=["x2", "x4"]).features == ("x1", "x3")
    assert ex.smallest_axp(FIG3_X).features == ("x1", "x3")


def test_bad_order():
    ex = xdt.Explainer(model("izza-fig3-unrestricted"))
    with pytest.raises(ValueError):
        ex.axp(FIG3_X, order="random")
    with pytest.raises(UnknownFeatureError):
        ex.axp(FIG3_X, order=["x9"])
    with pytest.raises(ValueError, match="order must be"):
        ex.axp(FIG3_X, order=3)
    # None is the model's own order: the path for a tree, so the same AXp as "path"
    assert ex.axp(FIG3_X, order=None) == ex.axp(FIG3_X, order="path") == ex.axp(FIG3_X)
    # "term" on a tree keeps the AXp inside the instance's path too
    assert ex.axp(FIG3_X, order="term") == ex.axp(FIG3_X, order="path")


def test_cxp_order():
    ex = xdt.Explainer(model("izza-fig3-unrestricted"))
    cxps = {frozenset(e.features) for e in ex.all_cxps(FIG3_X)}
    for order in ("features", "reverse", "path", ["x3", "x1"], ["x2"]):
        assert frozenset(ex.cxp(FIG3_X, order=order).features) in cxps


def test_unknown_engine_and_solver():
    with pytest.raises(EngineNotAvailableError) as info:
        xdt.Explainer(model("zhou-thresholds"), engine="bogus")
    assert "'path', 'sat'" in str(info.value)  # says what to use instead
    with pytest.raises(EngineNotAvailableError, match="unknown SAT solver 'nosat'"):
        xdt.Explainer(model("zhou-thresholds"), engine="sat", solver="nosat")


def test_engine_needs_a_model():
    with pytest.raises(EngineNotAvailableError, match="decision trees, DNFs"):
        xdt.Explainer(object())
    with pytest.raises(EngineNotAvailableError, match="xdt.load_model"):
        xdt.Explainer({"format": "xdt-model/1"})


def test_one_class_tree():
    """A tree whose leaves all predict one class: the empty set is the only AXp, no CXp."""
    from xdt.ir import DecisionTree, Feature, Leaf, ThresholdSplit
    tree = DecisionTree([Feature("x", "ordinal")], ["a", "b"],
                        ThresholdSplit("x", 1.0, Leaf("a"), Leaf("a")))
    ex = xdt.Explainer(tree)
    assert [e.features for e in ex.all_axps([0.0])] == [()]
    assert ex.axp([0.0]).rule == "IF TRUE THEN a"
    assert ex.all_cxps([0.0]) == [] and ex.cxp([0.0]) is None
    assert ex.path_is_redundant([0.0]) is True
    assert ex.relevant_features([0.0]) == () and ex.necessary_features([0.0]) == ()


@pytest.mark.parametrize("engine", ["path", "sat"])
def test_time_limit_stops_inside_the_search(engine):
    """izza-fig3 has 2 AXps and 3 CXps (the case file); a limit that has passed before the
    first check stops every enumeration, which then says it is incomplete."""
    with xdt.Explainer(model("izza-fig3-unrestricted"), engine=engine) as ex:
        for enumerate_ in (ex.all_axps, ex.all_cxps):
            cut = enumerate_(FIG3_X, time_limit=1e-9)
            assert cut.complete is False and cut.stopped_by == "time_limit"
            full = enumerate_(FIG3_X, time_limit=60)
            assert full.complete is True and len(full) in (2, 3)
            assert {e.features for e in cut} <= {e.features for e in full}


@pytest.mark.parametrize("bad", [{"max_count": 0}, {"max_count": -5}, {"max_count": "2"},
                                 {"max_count": True}, {"time_limit": 0}, {"time_limit": -1},
                                 {"time_limit": float("nan")}, {"time_limit": "x"}])
def test_bad_limits(bad):
    ex = xdt.Explainer(model("izza-fig3-unrestricted"))
    with pytest.raises(ValueError, match="must be a positive"):
        ex.all_axps(FIG3_X, **bad)
