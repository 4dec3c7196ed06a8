"""One rule for reading instances (xdt.ir._instances): a dict, a pandas Series, a one-row
DataFrame and a DataFrame are read by name -- every feature present, other keys or columns
(the target, an id) ignored -- and sequences by position, one value per feature."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import xdt
from xdt.cli import main
from xdt.errors import InstanceError, InstanceShapeError, MissingFeatureError
from xdt.ir import DecisionTree, Feature, Leaf, ThresholdSplit

# x <= 0.5 -> a; else y <= 0.5 -> b, else c. Reading (y, x) as (x, y) changes the class.
TREE = DecisionTree([Feature("x", "ordinal"), Feature("y", "ordinal")], ["a", "b", "c"],
                    ThresholdSplit("x", 0.5, Leaf("a"),
                                   ThresholdSplit("y", 0.5, Leaf("b"), Leaf("c"))),
                    target="label")
# a row of a wider table: an id first, the features in another order, then the target
ROW = {"id": 7, "y": 0.9, "x": 0.1, "label": "a"}
ROWS = [ROW, {"id": 8, "y": 0.1, "x": 0.9, "label": "b"},
        {"id": 9, "y": 0.6, "x": 0.7, "label": "c"}]


def answers(ex: xdt.Explainer, x) -> tuple:
    return (ex.predict(x), ex.axp(x), tuple(ex.all_axps(x)), tuple(ex.all_cxps(x)),
            ex.path_features(x))


def test_a_dict_and_a_series_with_the_target_and_an_id_are_read_alike():
    ex = xdt.Explainer(TREE)
    by_dict = answers(ex, ROW)
    assert by_dict == answers(ex, pd.Series(ROW))
    assert by_dict == answers(ex, pd.DataFrame(ROWS).iloc[0])
    assert by_dict == answers(ex, {"x": 0.1, "y": 0.9})      # the features alone
    assert by_dict[0] == "a"                                   # x = 0.1 <= 0.5
    assert by_dict[1].features == ("x",)


def test_the_sat_engine_reads_them_alike_too():
    with xdt.Explainer(TREE, engine="sat") as sat:
        assert sat.axp(ROW) == sat.axp(pd.Series(ROW))
        assert sat.axp(ROW).features == ("x",)


def test_predict_reads_a_series_a_one_row_frame_and_a_frame_by_name():
    assert TREE.predict(ROW).tolist() == ["a"]
    assert TREE.predict(pd.Series(ROW)).tolist() == ["a"]            # not (0.9, 0.1)
    assert TREE.predict(pd.Series({"y": 0.9, "x": 0.1})).tolist() == ["a"]
    assert TREE.predict(pd.DataFrame([ROW])).tolist() == ["a"]
    frame = pd.DataFrame(ROWS)
    assert TREE.predict(frame).tolist() == ["a", "b", "c"]
    assert TREE.predict(ROWS).tolist() == ["a", "b", "c"]              # a list of dicts
    assert TREE.predict([frame.iloc[i] for i in range(3)]).tolist() == ["a", "b", "c"]
    assert TREE.predict(frame).tolist() == frame["label"].tolist()


def test_sequences_are_read_by_position():
    assert TREE.predict([[0.1, 0.9]]).tolist() == ["a"]
    assert xdt.Explainer(TREE).predict([0.9, 0.1]) == "b"          # (x, y) = (0.9, 0.1)
    assert xdt.Explainer(TREE).predict(np.array([0.9, 0.1])) == "b"
    with pytest.raises(InstanceShapeError, match="has 3 values but the model has 2 features"):
        xdt.Explainer(TREE).predict([0.1, 0.9, "a"])


@pytest.mark.parametrize("form", [dict, pd.Series])
def test_a_missing_feature_names_the_ignored_keys(form):
    x = form({"x": 0.1, "yy": 0.9, "label": "a"})
    with pytest.raises(MissingFeatureError) as e:
        xdt.Explainer(TREE).axp(x)
    assert str(e.value) == (
        "the instance has no value for feature(s) ['y']; give a value for every feature: x, y; "
        "ignored, as they are not features: 'yy' (did you mean 'y'?), 'label'")
    with pytest.raises(MissingFeatureError, match="no value for feature"):
        TREE.predict(x)


def test_a_frame_without_a_feature_names_its_ignored_columns():
    frame = pd.DataFrame(ROWS).rename(columns={"y": "Y"})
    with pytest.raises(MissingFeatureError) as e:
        TREE.predict(frame)
    assert str(e.value) == (
        "the data has no column(s) ['y']; the model's features are: x, y; ignored, as they "
        "are not features: 'id', 'Y' (did you mean 'y'?), 'label'")


def test_many_ignored_keys_are_counted():
    x = {f"c{i}": i for i in range(8)} | {"x": 0.1}
    with pytest.raises(MissingFeatureError, match=r"'c3', 'c4' and 3 more$"):
        xdt.Explainer(TREE).predict(x)


def test_a_series_naming_a_feature_twice():
    with pytest.raises(InstanceError, match="more than one entry named 'x'"):
        xdt.Explainer(TREE).predict(pd.Series([0.1, 0.2, 0.9], index=["x", "x", "y"]))
    # a repeated name that is not a feature is ignored like any other
    assert xdt.Explainer(TREE).predict(pd.Series([1, 2, 0.1, 0.9],
                                                 index=["id", "id", "x", "y"])) == "a"


def test_the_command_line_reads_an_instance_with_the_target(tmp_path):
    model = tmp_path / "model.json"
    xdt.save_model(TREE, model)
    result = CliRunner().invoke(main, ["explain", str(model), "--instance", json.dumps(ROW),
                                       "--format", "jsonl"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["prediction"] == "a"
    csv = tmp_path / "rows.csv"
    pd.DataFrame(ROWS).to_csv(csv, index=False)
    result = CliRunner().invoke(main, ["explain", str(model), "--data", str(csv),
                                       "--format", "jsonl"])
    assert result.exit_code == 0, result.output
    assert [json.loads(line)["prediction"] for line in result.stdout.splitlines()] == \
        ["a", "b", "c"]


def test_the_command_line_refuses_an_instance_naming_a_feature_twice(tmp_path):
    # json.loads keeps the last value: {"x": 0.1, "x": 0.9} would silently be x = 0.9 -> "c"
    model = tmp_path / "model.json"
    xdt.save_model(TREE, model)
    text = '{"x": 0.1, "y": 0.9, "x": 0.9}'
    (tmp_path / "row.json").write_text(text)
    for given in (text, f"@{tmp_path / 'row.json'}"):
        result = CliRunner().invoke(main, ["explain", str(model), "--instance", given])
        assert result.exit_code == 2
        assert "names 'x' twice" in result.output and "Traceback" not in result.output


def test_an_integer_beyond_float64_is_out_of_range():
    """An int too large for a float64 (2**1100) is refused as out of range, by every reader,
    with the row it is in; not with Python's bare OverflowError."""
    from xdt.errors import ValueOutOfRangeError

    ex = xdt.Explainer(TREE)
    for engine_call in (ex.axp, ex.all_cxps, ex.predict):
        with pytest.raises(ValueOutOfRangeError, match="feature 'x' has an integer of 332 "
                                                       "digits, beyond"):
            engine_call({"x": 2**1100, "y": 0.2})
    frame = pd.DataFrame({"x": [0.1, -(2**1100)], "y": [0.2, 0.2]})
    for reader in (TREE.predict, ex.explain_batch):
        with pytest.raises(ValueOutOfRangeError, match=r"332 digits \(row 1\), beyond"):
            reader(frame)
    assert TREE.predict(pd.DataFrame({"x": [2**70, 0.1], "y": [0.2, 0.2]})).tolist() == [
        "b", "a"]  # large, but a float64: read as one


def test_complex_numbers_are_refused_like_text():
    """A complex value is not a number a threshold compares: refused by every reader
    (numpy's complex scalars and columns too, which float() silently cut to their real part)."""
    ex = xdt.Explainer(TREE)
    for x in ({"x": 1j, "y": 0.2}, {"x": np.complex128(0.9 + 1j), "y": 0.2},
              pd.Series({"x": 0.9 + 1j, "y": 0.2})):
        with pytest.raises(InstanceError, match="ordinal feature 'x' needs a number, got"):
            ex.axp(x)
    frame = pd.DataFrame({"x": [0.1, 0.9 + 1j], "y": [0.2, 0.2]})
    for reader in (TREE.predict, ex.explain_batch):
        with pytest.raises(InstanceError, match=r"ordinal feature 'x' needs real numbers, got "
                                                r"\(0\.9\+1j\) \(row 1\)"):
            reader(frame)
