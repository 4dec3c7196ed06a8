"""Model files nested deeper than ``json.loads`` goes load too (issue 32: a model file of any
depth within the size limit): a categorical chain of 10,000 levels (30,000 JSON levels) and
a one-feature ordinal chain of 30,000 load, predict as built and round-trip; the iterative
parser gives what ``json.loads`` gives; malformed deep files get ``ModelFormatError`` naming
where."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from test_deep_trees import one_feature_chain

import xdt
from xdt.errors import ModelFormatError
from xdt.ir import DecisionTree, Feature, Leaf
from xdt.ir._deep_json import DeepJSONError, RepeatedKeyDeep, loads_deep
from xdt.ir._json_io import MAX_NESTING, _nesting
from xdt.ir._tree import Branch, CategoricalSplit


def categorical_chain(depth: int) -> DecisionTree:
    """Node ``i`` tests ``c{i} in {p}``: then a leaf ``a`` (``i`` even) or ``b`` (odd),
    else (``q``) the rest of the chain; the last leaf is ``b``."""
    node: object = Leaf("b")
    for i in reversed(range(depth)):
        node = CategoricalSplit(f"c{i}", (Branch(("p",), Leaf("a" if i % 2 == 0 else "b")),
                                          Branch(("q",), node)))
    return DecisionTree([Feature(f"c{i}", "categorical", ("p", "q")) for i in range(depth)],
                        ["a", "b"], node)


def beyond_json_loads(path) -> bool:
    """Whether ``json.loads`` (with the loader's recursion room) cannot read the file."""
    try:
        with _nesting(MAX_NESTING):
            json.loads(path.read_text())
    except RecursionError:
        return True
    return False


@pytest.fixture(scope="module")
def ordinal_file(tmp_path_factory):
    tree = DecisionTree([Feature("x", "ordinal")], ["a", "b"], one_feature_chain(30_000))
    path = tmp_path_factory.mktemp("deep") / "ordinal.json"
    xdt.save_model(tree, path)
    return tree, path


def test_a_categorical_chain_of_10000_levels_loads_predicts_and_round_trips(tmp_path):
    depth = 10_000
    tree = categorical_chain(depth)
    path = tmp_path / "categorical.json"
    xdt.save_model(tree, path)
    assert beyond_json_loads(path)
    loaded = xdt.load_model(path)
    assert loaded.root == tree.root and loaded.depth == depth
    # row i: c_i = p, every other c = q -> leaf i; all q -> the last leaf
    rows = pd.DataFrame([["q"] * i + ["p"] + ["q"] * (depth - i - 1) for i in (0, 1, 4_998, 9_999)]
                        + [["q"] * depth], columns=[f"c{i}" for i in range(depth)])
    assert loaded.predict(rows).tolist() == ["a", "b", "a", "b", "b"]
    again = tmp_path / "again.json"
    xdt.save_model(loaded, again)
    assert again.read_text() == path.read_text()


def test_a_one_feature_ordinal_chain_of_30000_loads_predicts_and_round_trips(ordinal_file,
                                                                             tmp_path):
    tree, path = ordinal_file
    assert beyond_json_loads(path)
    loaded = xdt.load_model(path)
    assert loaded.root == tree.root and loaded.depth == 30_000
    x = np.array([[0.0], [1.0], [29_998.0], [29_999.0], [40_000.0]])
    assert loaded.predict(x).tolist() == ["a", "b", "a", "b", "b"]
    again = tmp_path / "again.json"
    xdt.save_model(loaded, again)
    assert again.read_text() == path.read_text()


def test_a_malformed_deep_file_names_the_line_and_column(ordinal_file, tmp_path):
    _, path = ordinal_file
    text = path.read_text()
    at = text.index('"threshold": 20000.5')
    bad = text[:at] + "," + text[at:]  # an extra comma, 20,000 levels down
    broken = tmp_path / "broken.json"
    broken.write_text(bad)
    line = bad.count("\n", 0, at) + 1
    with pytest.raises(ModelFormatError, match=rf"broken.json: not valid JSON \(.*line {line} "
                       r"column \d+ \(char \d+\)\); an xdt model is a JSON object"):
        xdt.load_model(broken)
    cut = tmp_path / "cut.json"
    cut.write_text(text[:text.index('"threshold": 25000.5')])  # ends 25,000 levels down
    with pytest.raises(ModelFormatError, match="cut.json: not valid JSON .*ends early"):
        xdt.load_model(cut)


def test_a_deep_repeated_key_is_named_with_its_place(ordinal_file, tmp_path):
    _, path = ordinal_file
    text = path.read_text()
    at = text.index('"threshold": 25000.5')
    bad = text[:at] + '"feature": "x", ' + text[at:]
    repeated = tmp_path / "repeated.json"
    repeated.write_text(bad)
    with pytest.raises(ModelFormatError, match=r"repeated.json: key 'feature' appears twice in "
                       r"the object at root\.right\.right.*\(24,9\d\d levels\).*\.right; each "
                       r"key may appear once"):
        xdt.load_model(repeated)


@pytest.mark.parametrize("text", [
    '{"a": [1, -0.0, 0.1, 1e400, -1e400, 5e-324, 2.5e-330, 1.7976931348623157e308, 1E5]}',
    '[123456789012345678901234567890, -98765432109876543210, 3.0000000000000004, 0]',
    '{"s": "caf\\u00e9 \\ud83d\\ude00 \\"q\\" \\\\ \\n", "e": {}, "l": [], "n": null, '
    '"t": true, "f": false}',
    '"top"', "42", "[[[[[]]]]]",
])
def test_the_iterative_parser_gives_what_json_loads_gives(text):
    got, want = loads_deep(text.encode()), json.loads(text)
    assert got == want
    assert repr(got) == repr(want)  # the same types and floats, -0.0 and inf included
    if isinstance(want, dict) and "a" in want:
        assert [math.copysign(1, v) for v in got["a"]] == [math.copysign(1, v)
                                                           for v in want["a"]]


def test_the_iterative_parser_refuses_what_is_not_json():
    with pytest.raises(RepeatedKeyDeep) as e:
        loads_deep(b'{"a": [{"b": 1, "b": 2}]}')
    assert (e.value.key, e.value.place) == ("b", "a[0]")
    with pytest.raises(DeepJSONError, match=r"line 2 column 5 \(char 10\)"):  # as json says
        loads_deep(b'{"a":\n [1,,2]}')
