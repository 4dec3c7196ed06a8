"""Inflated explanations (xdt.explain.queries._inflate; Izza, Ignatiev, Stuckey & Marques-Silva,
"Delivering Inflated Explanations", AAAI 2024): each feature of an AXp widened to a maximal
cell set that still entails the prediction. Checked against the independent depth-first
search of xdt.explain.checks._verify and against brute force over the cell space with
model.predict."""

from __future__ import annotations

import json

import hypothesis.strategies as st
import numpy as np
import pandas as pd
import pytest
from conftest import load_case
from hypothesis import HealthCheck, given, settings
from test_properties import tree_and_instance
from tiers import examples

import xdt
from xdt.explain.checks import _verify as verify
from xdt.ir import Branch, CategoricalSplit, DecisionTree, Feature, Leaf, ThresholdSplit
from xdt.ir._cells import IntervalCells, cells_of, full_mask

ENGINES = ("path", "sat")
TENNIS_X = {"Humidity": "high", "Outlook": "overcast", "Wind": "weak"}
ZHOU_X = {"x": 0.9, "y": 0.2}


def model(name: str):
    return xdt.load_model(load_case(name)["model"])


def colour_tree() -> DecisionTree:
    """x <= 0.5: no; 0.5 < x <= 2.3: by colour (red: yes; blue: yes, split again at 1.5;
    green/yellow: no); x > 2.3: no."""
    colour = CategoricalSplit("colour", (
        Branch(("red",), Leaf("yes")),
        Branch(("blue",), ThresholdSplit("x", 1.5, Leaf("yes"), Leaf("yes"))),
        Branch(("green", "yellow"), Leaf("no"))))
    return DecisionTree(
        [Feature("x", "ordinal"), Feature("colour", "categorical",
                                          ("red", "blue", "green", "yellow"))],
        ["no", "yes"],
        ThresholdSplit("x", 0.5, Leaf("no"), ThresholdSplit("x", 2.3, colour, Leaf("no"))))


# ---------------------------------------------------------------------- worked cases
@pytest.mark.parametrize("engine", ENGINES)
def test_zhou_inflated_axp_is_already_maximal(engine):
    """Zhou's tree (y <= 0.73 -> (x <= 0.64 -> circle else cross) else cross), x=0.9, y=0.2:
    the AXp {x} holds x to its cell 0.64 < x, the rightmost one; the only cell to add is
    x <= 0.64, where (with y = 0.2) the tree says circle. So the inflated AXp is the AXp."""
    tree = model("zhou-thresholds")
    ex = xdt.Explainer(tree, engine=engine)
    plain = ex.axp(ZHOU_X)
    infl = ex.axp(ZHOU_X, inflate=True, verify=True)
    assert infl.rule == plain.rule == "IF 0.64 < x THEN cross"
    assert infl.literals == ("0.64 < x",)
    assert infl.inflated and not plain.inflated
    assert infl.cells == plain.cells == (0b10,)
    assert infl != plain  # equality tells an inflated explanation from a plain one
    assert ex.smallest_axp(ZHOU_X, inflate=True) == infl
    assert "inflated" in repr(infl)
    (w,) = infl.certificate.widening["x"]
    assert w.cell == 0 and tree.predict([w.point])[0] == "circle"
    assert tree.predict([{"x": 0.64, "y": 0.2}])[0] == "circle"  # by hand


@pytest.mark.parametrize("engine", ENGINES)
def test_playtennis_inflates_to_overcast_only(engine):
    """Humidity=high, Outlook=overcast, Wind=weak: the AXp {Outlook} cannot take rain or
    sunny: with Humidity free (high), both are predicted 'no'."""
    tree = model("playtennis-multiedge")
    ex = xdt.Explainer(tree, engine=engine)
    infl = ex.axp(TENNIS_X, inflate=True, verify=True)
    assert infl.features == ("Outlook",)
    assert infl.literals == ("Outlook = overcast",)
    assert infl.rule == "IF Outlook = overcast THEN yes"
    assert infl.conditions == {"Outlook": "Outlook = overcast"}
    # by hand: adding rain or sunny admits 'no'
    assert list(tree.predict([{**TENNIS_X, "Outlook": "rain"},
                              {**TENNIS_X, "Outlook": "sunny"}])) == ["no", "no"]
    widening = infl.certificate.widening["Outlook"]
    assert {w.point["Outlook"] for w in widening} == {"rain", "sunny"}
    assert all(w.label == "no" for w in widening)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("order", [None, ["x", "colour"], ["colour", "x"]])
def test_interval_and_value_set(engine, order):
    """x = 1.0, colour = red: the AXp {x, colour} widens to 0.5 < x <= 2.3 (x <= 0.5 and
    x > 2.3 are 'no') and colour in {red, blue} (green and yellow are 'no')."""
    tree = colour_tree()
    ex = xdt.Explainer(tree, engine=engine)
    x = {"x": 1.0, "colour": "red"}
    assert ex.axp(x).rule == "IF 0.5 < x <= 1.5 AND colour = red THEN yes"
    infl = (ex.axp(x, inflate=True, verify=True) if order is None
            else ex.inflate(x, ["x", "colour"], order=order, verify=True))
    assert infl.rule == "IF 0.5 < x <= 2.3 AND colour in {red, blue} THEN yes"
    assert infl.literals == ("0.5 < x <= 2.3", "colour in {red, blue}")
    assert infl.cells == (0b0110, 0b0011)
    # by hand: each excluded cell admits 'no'
    assert list(tree.predict([{"x": 0.5, "colour": "red"}, {"x": 2.4, "colour": "red"},
                              {"x": 1.0, "colour": "green"}, {"x": 1.0, "colour": "yellow"}])
                ) == ["no"] * 4
    assert list(tree.predict([{"x": 2.3, "colour": "blue"}, {"x": 0.6, "colour": "blue"}])
                ) == ["yes", "yes"]
    d = infl.to_dict()
    assert json.loads(json.dumps(d)) == d
    assert d["inflated"] is True and d["cells"] == [[1, 2], [0, 1]]
    assert set(d["certificate"]["widening"]) == {"x", "colour"}


def test_path_restricted_inflation_starts_from_the_path_literal():
    tree = model("playtennis-multiedge")
    x = {"Humidity": "high", "Outlook": "rain", "Wind": "weak"}
    for engine in ENGINES:
        ex = xdt.Explainer(tree, engine=engine)
        infl = ex.axp(x, path_restricted=True, inflate=True, verify=True)
        assert infl.path_restricted and infl.inflated
        assert infl.features == ("Humidity", "Outlook")
        outlook = tree.features.index("Outlook")
        assert infl.cells == (0b10, 0b110)  # high; {rain, sunny} (overcast says 'yes')
        assert infl.literals[1] == tree.cells[outlook].describe(0b110)


def test_inflate_needs_an_axp():
    ex = xdt.Explainer(colour_tree())
    x = {"x": 1.0, "colour": "red"}
    with pytest.raises(ValueError, match="not an AXp"):
        ex.inflate(x, ["x"])
    with pytest.raises(ValueError, match="not an AXp"):
        ex.inflate(x, ["x", "colour", "colour"][:1])
    axp = ex.axp(x)
    assert ex.inflate(x, axp) == ex.axp(x, inflate=True)


# ---------------------------------------------------------------------- random trees
def grid_labels(tree: DecisionTree) -> tuple[np.ndarray, np.ndarray]:
    """Every point of the cell space (as cells) and its label by ``tree.predict`` on values."""
    grid = verify.cell_space(tree)
    frame = pd.DataFrame({c.name: [c.value(int(j)) for j in grid[:, f]]
                          for f, c in enumerate(tree.cells)})
    return grid, tree.predict(frame)


def other_point(tree, grid, labels, masks, prediction) -> dict | None:
    """A point of the grid inside ``masks`` (one per feature) predicted another class."""
    inside = np.ones(len(grid), dtype=bool)
    for f, m in enumerate(masks):
        inside &= ((m >> grid[:, f]) & 1).astype(bool)
    hits = np.flatnonzero(inside & (labels != prediction))
    if hits.size == 0:
        return None
    row = grid[hits[0]]
    return {c.name: c.value(int(row[f])) for f, c in enumerate(tree.cells)}


def addable(cells, mask: int) -> list[int]:
    present = list(cells_of(mask))
    if isinstance(cells, IntervalCells):
        return [c for c in (present[0] - 1, present[-1] + 1) if 0 <= c < cells.n_cells]
    return [c for c in range(cells.n_cells) if not (mask >> c) & 1]


SETTINGS = settings(max_examples=examples(250), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(tree_and_instance(), st.booleans(), st.data())
def test_inflated_axps_entail_and_are_maximal(case, restricted, data):
    tree, x = case
    prediction = tree.predict([x])[0]
    grid, labels = grid_labels(tree)
    names = tree.features.names
    with xdt.Explainer(tree) as path_ex, xdt.Explainer(tree, engine="sat") as sat_ex:
        for axp in path_ex.all_axps(x, path_restricted=restricted):
            order = data.draw(st.permutations(axp.features))
            a = path_ex.inflate(x, axp, order=order, verify=True)
            b = sat_ex.inflate(x, axp, order=order, verify=True)
            assert a == b  # same AXp and order: the same widened sets from both engines
            assert a.inflated and a.features == axp.features and a.prediction == prediction
            masks = [full_mask(c.n_cells) for c in tree.cells]
            for name, before, after in zip(axp.features, axp.cells, a.cells, strict=True):
                f = names.index(name)
                assert before & ~after == 0  # widened, never narrowed
                if isinstance(tree.cells[f], IntervalCells):  # an interval
                    cs = list(cells_of(after))
                    assert cs == list(range(cs[0], cs[-1] + 1))
                masks[f] = after
            # entailment: independent DFS, and brute force with model.predict
            assert verify.reachable_classes(tree, masks) == {prediction}
            assert other_point(tree, grid, labels, masks, prediction) is None
            # maximality: adding any one cell to any feature admits another class
            for name in a.features:
                f = names.index(name)
                for c in addable(tree.cells[f], masks[f]):
                    wider = list(masks)
                    wider[f] |= 1 << c
                    assert verify.reachable_classes(tree, wider) != {prediction}
                    point = other_point(tree, grid, labels, wider, prediction)
                    assert point is not None
                    assert tree.predict([point])[0] != prediction
        one = path_ex.axp(x, path_restricted=restricted, inflate=True, verify=True)
        assert sat_ex.axp(x, path_restricted=restricted, inflate=True, verify=True) == one
        assert one.features == path_ex.axp(x, path_restricted=restricted).features
        small = path_ex.smallest_axp(x, path_restricted=restricted, inflate=True, verify=True)
        assert small.inflated and len(small) == len(
            path_ex.smallest_axp(x, path_restricted=restricted))
