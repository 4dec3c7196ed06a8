"""Hostile XGBoost and LightGBM files are refused by xdt before the libraries' own readers see
them (those can crash the process: SIGSEGV, SIGABRT), each with a specific
:mod:`xdt.errors` exception that names what is wrong and where; trees of any depth import
without recursion; model files have a size limit checked before they are read.

Each hostile file is made here from a small real model saved by the library, then corrupted
as in issue 32's table. The files that could crash a loader are imported in one child
process per library, so that a regression fails a test rather than killing pytest.
"""

from __future__ import annotations

import doctest
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import xdt
from xdt.errors import ModelFormatError, ModelSizeError, ParameterError, UnsupportedModelError
from xdt.interop import _tree_walk, _ubjson
from xdt.interop._tree_walk import build_tree
from xdt.interop._ubjson import decode
from xdt.ir import _file_size
from xdt.ir._json_io import _nesting
from xdt.ir._tree import Leaf, ThresholdSplit

xgb = pytest.importorskip("xgboost")
lgb = pytest.importorskip("lightgbm")

ROOT = Path(__file__).resolve().parent.parent
RNG = np.random.default_rng(0)
X = RNG.normal(size=(300, 4))
Y = (X[:, 0] + X[:, 1] > 0).astype(int)


# ------------------------------------------------------------------ the real small models
@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    """Small real models as their libraries save them."""
    d = tmp_path_factory.mktemp("models")
    out = {}
    m = xgb.XGBClassifier(n_estimators=3, max_depth=2).fit(X, Y)
    out["x.json"], out["x.ubj"] = d / "x.json", d / "x.ubj"
    m.save_model(out["x.json"])
    m.save_model(out["x.ubj"])
    a = RNG.integers(0, 6, 300)
    frame = pd.DataFrame({"a": pd.Categorical(a), "b": X[:, 1]})
    yc = (np.isin(a, [1, 3, 4]) ^ (X[:, 1] > 1)).astype(int)
    out["xc.json"] = d / "xc.json"
    xgb.XGBClassifier(n_estimators=2, max_depth=2, enable_categorical=True,
                      max_cat_to_onehot=1).fit(frame, yc).save_model(out["xc.json"])
    out["xm.json"] = d / "xm.json"
    xgb.XGBClassifier(n_estimators=2, max_depth=2).fit(X, Y + (X[:, 2] > 0.5)).save_model(
        out["xm.json"])
    out["l.txt"] = d / "l.txt"
    lgb.LGBMClassifier(n_estimators=3, num_leaves=4, verbose=-1).fit(X, Y).booster_.save_model(
        out["l.txt"])
    out["lc.txt"] = d / "lc.txt"
    lgb.LGBMClassifier(n_estimators=2, num_leaves=4, verbose=-1, min_data_per_group=5,
                       cat_smooth=1, max_cat_to_onehot=1).fit(
        pd.DataFrame({"a": a, "b": X[:, 1]}), yc,
        categorical_feature=["a"]).booster_.save_model(out["lc.txt"])
    return out


def xgb_doc(path: Path) -> dict:
    return json.loads(path.read_text())


def tree(doc: dict, k: int = 0) -> dict:
    return doc["learner"]["gradient_booster"]["model"]["trees"][k]


def fix_tree_sizes(text: str) -> str:
    """The text with ``tree_sizes`` rewritten to the trees' true lengths (so that only the
    corruption made on purpose is wrong)."""
    end = text.find("\nend of trees")
    starts = [m.start() + 1 for m in re.finditer(r"\nTree=", text[:end + 1])]
    sizes = [len(text[a:b].encode()) for a, b in zip(starts, starts[1:] + [end + 1],
                                                       strict=True)]
    return re.sub(r"tree_sizes=.*", "tree_sizes=" + " ".join(map(str, sizes)), text, count=1)


def run_in_child(cases: list[tuple[str, str, str]]) -> dict[str, tuple[str, str]]:
    """Import each ``(name, function, path)`` in one child process: name -> (error class,
    message). A crash of the child fails the test, naming the case it died on."""
    code = (
        "import json, sys, xdt\n"
        "for name, fn, path in json.loads(sys.argv[1]):\n"
        "    print(json.dumps([name, 'started']), flush=True)\n"
        "    try:\n"
        "        getattr(xdt, fn)(path)\n"
        "        print(json.dumps([name, 'imported', '']), flush=True)\n"
        "    except Exception as e:\n"
        "        print(json.dumps([name, type(e).__name__, str(e)]), flush=True)\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", code, json.dumps(cases)], capture_output=True,
                          text=True, env=env, timeout=600)
    rows = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("[")]
    done = {r[0]: (r[1], r[2]) for r in rows if r[1] != "started"}
    started = [r[0] for r in rows if r[1] == "started"]
    assert proc.returncode == 0, (f"the child process ended with {proc.returncode} on case "
                                  f"{started[-1] if started else None}: {proc.stderr[-2000:]}")
    return done


# --------------------------------------------------------------------------------- XGBoost
def xgboost_cases(files: dict[str, Path], d: Path) -> dict[str, tuple[Path, str, str]]:
    """name -> (hostile file, expected error class, a key phrase of its message)."""
    out = {}

    def edit(name, source, change, error, phrase, text=False):
        if text:
            body = change(files[source].read_text())
        else:
            doc = xgb_doc(files[source])
            change(doc)
            body = json.dumps(doc)
        path = d / f"{name}.json"
        path.write_text(body)
        out[name] = (path, error, phrase)

    edit("categories_sizes", "xc.json",
         lambda doc: tree(doc).update(categories_sizes=[10**6]), "ModelFormatError",
         "categories_sizes entry (with segment 0) is 1,000,000, out of range")
    edit("tree_info_binary", "x.json",
         lambda doc: doc["learner"]["gradient_booster"]["model"].update(tree_info=[0, 5, 0]),
         "ModelFormatError", "tree_info[1]: the class (output group) of the tree is 5")
    edit("tree_info_multiclass", "xm.json",
         lambda doc: doc["learner"]["gradient_booster"]["model"]["tree_info"].__setitem__(
             1, 3), "ModelFormatError", "tree_info[1]: the class (output group) of the tree is 3")
    edit("split_indices", "x.json", lambda doc: tree(doc)["split_indices"].__setitem__(0, 9),
         "ModelFormatError", "tree 0, node 0: the split feature (split_indices) is 9")
    edit("left_children", "x.json",
         lambda doc: tree(doc)["left_children"].__setitem__(0, 99),
         "ModelFormatError", "tree 0, node 0: the left child is 99, out of range")
    # node 1's left child becomes node 2, a child of the root too: reached twice
    edit("shared_child", "x.json", lambda doc: tree(doc)["left_children"].__setitem__(1, 2),
         "ModelFormatError", "tree 0, node 2: reached twice from the root")
    edit("own_child", "x.json", lambda doc: tree(doc)["left_children"].__setitem__(1, 1),
         "ModelFormatError", "tree 0, node 1: reached twice from the root")
    edit("root_as_child", "x.json", lambda doc: tree(doc)["left_children"].__setitem__(1, 0),
         "ModelFormatError", "tree 0, node 1: its children are nodes 0 and")
    edit("threshold_1e300", "x.json",
         lambda doc: tree(doc)["split_conditions"].__setitem__(0, 1e300), "ModelFormatError",
         "tree 0, node 0: the threshold (split_conditions) is 1e+300, beyond the float32 range")

    def number_text(replacement):
        def change(text):
            doc = json.loads(text)
            tree(doc)["split_conditions"][0] = "@@"
            return json.dumps(doc).replace('"@@"', replacement)
        return change

    edit("threshold_400_zeros", "x.json", number_text("1" + "0" * 400), "ModelFormatError",
         "tree 0, node 0: the threshold (split_conditions) is infinite", text=True)
    edit("threshold_nan", "x.json", number_text("NaN"), "ModelFormatError",
         "tree 0, node 0: the threshold (split_conditions) is NaN", text=True)

    def digits(text):
        doc = json.loads(text)
        tree(doc)["split_indices"][0] = "@@"
        return json.dumps(doc).replace('"@@"', "7" * 5000)

    edit("integer_5000_digits", "x.json", digits, "ModelFormatError",
         "tree 0, node 0: the split feature (split_indices) must be an integer", text=True)
    edit("num_feature_1e8", "x.json",
         lambda doc: doc["learner"]["learner_model_param"].update(num_feature="100000000"),
         "ModelFormatError", "num_feature says 100,000,000 input columns, but the trees use "
                             "only the first 2")
    edit("num_nodes", "x.json",
         lambda doc: tree(doc)["tree_param"].update(num_nodes="6"),
         "ModelFormatError", "tree 0: left_children has 7 entries for 6 nodes")
    edit("category_code", "xc.json",
         lambda doc: tree(doc)["categories"].__setitem__(0, 10**6), "ModelFormatError",
         "category code of feature 0 (it has 6 categories) is 1,000,000")
    return out


def test_hostile_xgboost_files_are_refused_before_xgboost_reads_them(files, tmp_path):
    cases = xgboost_cases(files, tmp_path)
    results = run_in_child([(name, "from_xgboost", str(path))
                            for name, (path, _, _) in cases.items()])
    for name, (_, error, phrase) in cases.items():
        got, message = results[name]
        assert got == error, (name, got, message)
        assert phrase in message, (name, message)
        assert "edited" in message, (name, message)   # and what to do


def test_a_1e300_threshold_is_named_as_written_not_as_inf(files, tmp_path):
    """Issue 32, row 15: it was reported as "value inf (row 45)". (The file is refused before
    XGBoost reads it, so this runs in the test process.)"""
    doc = xgb_doc(files["x.json"])
    tree(doc)["split_conditions"][2] = 1e300
    (tmp_path / "m.json").write_text(json.dumps(doc))
    with pytest.raises(ModelFormatError) as e:
        xdt.from_xgboost(tmp_path / "m.json")
    assert "tree 0, node 2: the threshold (split_conditions) is 1e+300" in str(e.value)
    assert "value inf" not in str(e.value) and "bug in xdt" not in str(e.value)


def test_what_xgboost_refuses_after_loading_is_an_xdt_error(files, tmp_path):
    """XGBoost loads these files, then refuses them when it predicts (a base_score outside
    the logistic's (0, 1), or of the wrong length) or builds a DMatrix (a stored feature
    name holding '[', ']' or '<'): a bare XGBoostError or ValueError, before."""
    cases = {
        "base_score_2": ("learner_model_param", {"base_score": "2"}),
        "base_score_3_values": ("learner_model_param", {"base_score": "[0.5,0.5,0.5]"}),
        "bracket_names": ("learner", {"feature_names": ["a[0]", "b", "c", "d"],
                                      "feature_types": ["float"] * 4})}
    for name, (where, change) in cases.items():
        doc = xgb_doc(files["x.json"])
        (doc["learner"] if where == "learner" else doc["learner"][where]).update(change)
        (tmp_path / f"{name}.json").write_text(json.dumps(doc))
    results = run_in_child([(name, "from_xgboost", str(tmp_path / f"{name}.json"))
                            for name in cases])
    assert results["base_score_2"][0] == "UnsupportedModelError"
    assert "base_score must be in (0,1)" in results["base_score_2"][1]
    assert results["base_score_3_values"][0] == "UnsupportedModelError"
    assert results["bracket_names"] == (
        "ModelFormatError", f"{tmp_path / 'bracket_names.json'}: learner: feature_names[0] "
        "is 'a[0]', which holds '[', ']' or '<' (XGBoost refuses such names); the file is "
        "damaged or was edited; save the model again with the library")


def test_feature_count_is_bounded_and_names_given_pay_for_it(files, tmp_path):
    """Issue 32, row 7: 10**8 features claimed by a 3 KB file are refused at once; the normal
    case keeps every input column, used or not."""
    model = xdt.from_xgboost(files["x.json"])
    assert model.features.names == ("f0", "f1", "f2", "f3")   # f2, f3 used by no tree
    doc = xgb_doc(files["x.json"])
    doc["learner"]["learner_model_param"]["num_feature"] = "2000"
    (tmp_path / "m.json").write_text(json.dumps(doc))
    assert (tmp_path / "m.json").stat().st_size > 2000          # 2,000 columns: one a byte
    assert len(xdt.from_xgboost(tmp_path / "m.json").features) == 2000


def test_ubj_files_are_read_and_checked_by_xdt(files, tmp_path):
    data = files["x.ubj"].read_bytes()
    booster = xgb.Booster()
    booster.load_model(str(files["x.ubj"]))
    theirs = json.loads(bytes(booster.save_raw("json")))
    ours = decode(data)
    t32 = np.float32
    assert [t32(v) for v in tree(ours)["split_conditions"]] == \
        [t32(v) for v in tree(theirs)["split_conditions"]]
    assert tree(ours)["left_children"] == tree(theirs)["left_children"]
    model = xdt.from_xgboost(files["x.ubj"])
    assert model.predict(X).tolist() == booster.predict(xgb.DMatrix(X)).round().astype(
        int).tolist()
    (tmp_path / "cut.ubj").write_bytes(data[:len(data) // 2])
    with pytest.raises(ModelFormatError, match="not a valid UBJSON model file"):
        xdt.from_xgboost(tmp_path / "cut.ubj")
    # an array claiming 2**40 numbers in a 20-byte file
    with pytest.raises(ModelFormatError, match="a length of 1,099,511,627,776"):
        decode(b"[$d#L" + (2**40).to_bytes(8, "big") + b"\x00" * 8)
    with pytest.raises(ModelFormatError, match="nested deeper than 64"):
        decode(b"[" * 100 + b"]" * 100)
    assert doctest.testmod(_ubjson).failed == 0


def chain_document(base: dict, depth: int) -> dict:
    """An XGBoost tree that is a chain of ``depth`` splits: node ``i`` sends ``x_{i%2} <
    i`` left to a leaf and the rest right to node ``i + 1``."""
    n = 2 * depth + 1
    left, right = [-1] * n, [-1] * n
    parents, feat, cond = [2147483647] * n, [0] * n, [0.0] * n
    for i in range(depth):
        left[i], right[i] = depth + i, (i + 1 if i + 1 < depth else 2 * depth)
        parents[left[i]] = parents[right[i]] = i
        feat[i], cond[i] = i % 2, float(i)
        cond[depth + i] = 0.01 * (i % 7 - 3)
    cond[2 * depth] = 0.5
    doc = json.loads(json.dumps(base))
    tree(doc).update(left_children=left, right_children=right, parents=parents,
                     split_indices=feat, split_conditions=cond, default_left=[0] * n,
                     split_type=[0] * n, base_weights=[0.0] * n, loss_changes=[0.0] * n,
                     sum_hessian=[1.0] * n)
    tree(doc)["tree_param"]["num_nodes"] = str(n)
    return doc


def test_an_xgboost_tree_deeper_than_the_recursion_limit_imports(files, tmp_path):
    """Issue 32, row 8: trees deeper than about 1,000 raised RecursionError."""
    depth = sys.getrecursionlimit() + 200
    (tmp_path / "deep.json").write_text(json.dumps(chain_document(xgb_doc(files["x.json"]),
                                                                  depth)))
    model = xdt.from_xgboost(tmp_path / "deep.json")
    assert model.depth == depth
    booster = xgb.Booster()
    booster.load_model(str(tmp_path / "deep.json"))
    rows = np.random.default_rng(1).uniform(-5, depth + 5, size=(300, 4))
    assert model.predict(rows).tolist() == \
        (booster.predict(xgb.DMatrix(rows)) > 0.5).astype(int).tolist()


# -------------------------------------------------------------------------------- LightGBM
def lightgbm_cases(files: dict[str, Path], d: Path) -> dict[str, tuple[Path, str, str]]:
    out = {}

    def edit(name, source, old, new, error, phrase, sizes=True):
        text = files[source].read_text()
        first_tree = text.index("Tree=0")
        at = text.index(old, first_tree)
        text = text[:at] + new + text[at + len(old):]
        path = d / f"{name}.txt"
        path.write_text(fix_tree_sizes(text) if sizes else text)
        out[name] = (path, error, phrase)

    def line(source, key, k=0):
        text = files[source].read_text()
        block = text[text.index(f"Tree={k}"):]
        return re.search(rf"^{key}=.*$", block, re.M).group(0)

    left = line("l.txt", "left_child")
    values = left.split("=")[1].split()
    own = values.copy()
    own[0] = "0"
    edit("root_as_child", "l.txt", left, "left_child=" + " ".join(own), "ModelFormatError",
         "tree 0, node 0: its child 0 is the root")
    internal = next(i for i, v in enumerate(values) if int(v) > 0)
    own = values.copy()
    own[int(values[internal])] = values[internal]  # that node's left child is itself
    edit("own_child", "l.txt", left, "left_child=" + " ".join(own), "ModelFormatError",
         "is reached twice from the root")
    feat = line("l.txt", "split_feature")
    parts = feat.split("=")[1].split()
    edit("split_feature", "l.txt", feat, "split_feature=9 " + " ".join(parts[1:]),
         "ModelFormatError", "tree 0, node 0: split_feature is 9, out of range")
    edit("split_feature_digits", "l.txt", feat, "split_feature=" + "7" * 5000 + " "
         + " ".join(parts[1:]), "ModelFormatError", "is not an integer")
    thr = line("l.txt", "threshold")
    rest = " ".join(thr.split("=")[1].split()[1:])
    edit("threshold_nan", "l.txt", thr, "threshold=nan " + rest, "ModelFormatError",
         "tree 0, node 0: threshold entry 'nan' is not a decimal number")
    edit("threshold_1e400", "l.txt", thr, "threshold=1e400 " + rest, "ModelFormatError",
         "tree 0, node 0: the threshold is infinite")
    edit("threshold_400_zeros", "l.txt", thr, "threshold=1" + "0" * 400 + " " + rest,
         "ModelFormatError", "tree 0, node 0: the threshold is infinite")
    leaves = line("l.txt", "num_leaves")
    edit("num_leaves", "l.txt", leaves, "num_leaves=100000000", "ModelFormatError",
         "tree 0: num_leaves is 100,000,000, out of range")
    edit("num_leaves_one_more", "l.txt", leaves, "num_leaves=5", "ModelFormatError",
         "where num_leaves says 5")
    edit("tree_sizes", "l.txt", thr, "threshold=0.5 " + rest, "ModelFormatError",
         "tree_sizes does not give the lengths", sizes=False)
    bounds = line("lc.txt", "cat_boundaries")
    edit("cat_boundaries", "lc.txt", bounds, "cat_boundaries=0 1000000", "ModelFormatError",
         "cat_boundaries must rise from 0 to the 1 entries of cat_threshold")
    kinds = line("lc.txt", "decision_type").split("=")[1].split()
    cat_node = next(i for i, v in enumerate(kinds) if int(v) & 1)
    cthr = line("lc.txt", "threshold")
    tokens = cthr.split("=")[1].split()
    tokens[cat_node] = "7"
    edit("category_index", "lc.txt", cthr, "threshold=" + " ".join(tokens), "ModelFormatError",
         f"tree 0, node {cat_node}: the index of its categories (threshold) is 7")
    edit("no_end", "l.txt", "end of trees", "", "UnsupportedModelError",
         "no 'end of trees' line", sizes=False)
    return out


def test_hostile_lightgbm_files_are_refused_before_lightgbm_reads_them(files, tmp_path):
    cases = lightgbm_cases(files, tmp_path)
    results = run_in_child([(name, "from_lightgbm", str(path))
                            for name, (path, _, _) in cases.items()])
    for name, (_, error, phrase) in cases.items():
        got, message = results[name]
        assert got == error, (name, got, message)
        assert phrase in message, (name, message)


@pytest.mark.parametrize("name", ['Co"l', "Co\\l", "Col\x1b]0;x\x07"])
def test_a_lightgbm_feature_name_its_json_dump_cannot_hold_is_refused(files, tmp_path, name):
    """LightGBM writes feature names unescaped into the JSON of ``dump_model``, which
    ``json.loads`` then refused: a bare JSONDecodeError, before."""
    text = files["l.txt"].read_text().replace("feature_names=Column_0",
                                              f"feature_names={name}", 1)
    (tmp_path / "m.txt").write_text(text)
    with pytest.raises(ModelFormatError, match=r"header: feature_names\[0\] is .*, which "
                                               "holds a quote, a backslash or a control"):
        xdt.from_lightgbm(tmp_path / "m.txt")


def test_hostile_lightgbm_dumps(files, tmp_path):
    booster = lgb.Booster(model_file=str(files["l.txt"]))
    dump = booster.dump_model()
    root = dump["tree_info"][0]["tree_structure"]
    bad = json.loads(json.dumps(dump))
    bad["tree_info"][0]["tree_structure"]["split_feature"] = 9
    with pytest.raises(UnsupportedModelError, match="malformed LightGBM model dump: tree 0, "
                                                    "split 0: split_feature is 9"):
        xdt.from_lightgbm(bad)
    bad = json.loads(json.dumps(dump))
    bad["tree_info"][0]["tree_structure"]["threshold"] = float("inf")
    with pytest.raises(UnsupportedModelError, match="the threshold is infinite"):
        xdt.from_lightgbm(bad)
    bad = json.loads(json.dumps(dump))
    bad["max_feature_idx"] = 10**8
    bad.pop("feature_names")
    with pytest.raises(ModelFormatError, match="the feature count"):
        xdt.from_lightgbm(bad)
    (tmp_path / "nested.json").write_text('{"a": ' + "[" * 30000 + "]" * 30000 + "}")
    with pytest.raises(ModelFormatError, match="nests deeper than 20,000 levels"):
        xdt.from_lightgbm(tmp_path / "nested.json")
    # a chain deeper than the recursion limit imports, from a dict and from its file
    depth = sys.getrecursionlimit() + 200
    node = {"leaf_index": depth, "leaf_value": 0.5}
    for i in reversed(range(depth)):
        node = {"split_index": i, "split_feature": i % 2, "threshold": float(i),
                "decision_type": "<=", "default_left": True, "missing_type": "None",
                "left_child": {"leaf_index": i, "leaf_value": 0.01 * (i % 7 - 3)},
                "right_child": node}
    deep = {k: v for k, v in dump.items() if k != "tree_info"}
    deep["tree_info"] = [{"tree_index": 0, "num_leaves": depth + 1, "tree_structure": node}]
    model = xdt.from_lightgbm(deep)
    assert model.depth == depth
    rows = np.random.default_rng(2).uniform(-5, depth + 5, size=(100, 4))

    def score(r) -> float:      # the chain walked by hand: the first i with x_{i%2} <= i
        return next((0.01 * (i % 7 - 3) for i in range(depth) if r[i % 2] <= i), 0.5)

    assert model.predict(rows).tolist() == [int(score(r) > 0) for r in rows]
    assert root["split_feature"] in range(4)   # the real dump's root is a split
    with _nesting(4 * depth):     # json's encoder recurses once per level
        (tmp_path / "deep.json").write_text(json.dumps(deep))
    assert xdt.from_lightgbm(tmp_path / "deep.json").depth == depth


# ----------------------------------------------------------------------- the size limit
def test_model_files_have_a_size_limit_checked_before_reading(files, tmp_path, monkeypatch):
    """Issue 32, row 12."""
    playtennis = ROOT / "encodings" / "examples" / "playtennis.json"
    size = playtennis.stat().st_size
    assert xdt.load_model(playtennis, max_bytes=size).classes == ("no", "yes")
    with pytest.raises(ModelSizeError, match=f"is {size:,} bytes, over the limit of 100 bytes"
                       ) as e:
        xdt.load_model(playtennis, max_bytes=100)
    assert e.value.size == size and e.value.limit == 100
    assert "max_bytes=" in str(e.value) and "XDT_MAX_MODEL_BYTES=" in str(e.value)
    assert isinstance(e.value, ModelFormatError)
    monkeypatch.setenv("XDT_MAX_MODEL_BYTES", "100")
    with pytest.raises(ModelSizeError, match="over the limit of 100 bytes"):
        xdt.load_model(playtennis)
    with pytest.raises(ModelSizeError, match="over the limit of 100 bytes"):
        xdt.from_xgboost(files["x.json"])
    with pytest.raises(ModelSizeError, match="over the limit of 100 bytes"):
        xdt.from_lightgbm(files["l.txt"])
    assert xdt.from_xgboost(files["x.json"], max_bytes=10**6).n_trees == 3
    monkeypatch.setenv("XDT_MAX_MODEL_BYTES", "lots")
    with pytest.raises(ParameterError, match="XDT_MAX_MODEL_BYTES='lots'"):
        xdt.load_model(playtennis)
    monkeypatch.delenv("XDT_MAX_MODEL_BYTES")
    assert _file_size.model_size_limit() == 512 * 2**20
    with pytest.raises(ParameterError, match="max_bytes must be a positive"):
        xdt.load_model(playtennis, max_bytes=0)
    assert doctest.testmod(_file_size).failed == 0


def test_the_size_limit_applies_on_the_command_line(tmp_path):
    playtennis = ROOT / "encodings" / "examples" / "playtennis.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDT_MAX_MODEL_BYTES": "100"}
    proc = subprocess.run([sys.executable, "-m", "xdt", "explain", str(playtennis),
                           "--instance", '{"Outlook": "sunny", "Humidity": "high", '
                                         '"Wind": "weak"}'],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 1, proc.stderr
    assert "over the limit of 100 bytes" in proc.stderr + proc.stdout
    assert "XDT_MAX_MODEL_BYTES=" in proc.stderr + proc.stdout
    assert "Traceback" not in proc.stderr + proc.stdout


def test_xdt_import_refuses_a_hostile_file_without_a_traceback(files, tmp_path):
    text = files["l.txt"].read_text()
    at = text.index("num_leaves=", text.index("Tree=0"))
    end = text.index("\n", at)
    (tmp_path / "bad.txt").write_text(fix_tree_sizes(text[:at] + "num_leaves=100000000"
                                                     + text[end:]))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "xdt", "import", str(tmp_path / "bad.txt"),
                           "--from", "lightgbm", "-o", str(tmp_path / "out.json")],
                          capture_output=True, text=True, env=env, timeout=300)
    output = proc.stderr + proc.stdout
    assert proc.returncode == 1, output
    assert "tree 0: num_leaves is 100,000,000, out of range" in output
    assert "Traceback" not in output and not (tmp_path / "out.json").exists()


# ------------------------------------------------------------------------- iterative walks
def test_build_tree_walks_a_chain_of_100000_without_recursion():
    depth = 100_000
    children = {i: (depth + i, i + 1) for i in range(depth - 1)}
    children[depth - 1] = (2 * depth - 1, 2 * depth)

    def kids(i):
        return children.get(i, ())

    def make(i, nodes):
        return Leaf(i) if not nodes else ThresholdSplit("x", float(i), *nodes)

    root = build_tree(0, kids, make)
    node, seen = root, 0
    while isinstance(node, ThresholdSplit):
        assert node.threshold == float(seen) and node.left.label == depth + seen
        node, seen = node.right, seen + 1
    assert seen == depth and node.label == 2 * depth
    assert doctest.testmod(_tree_walk).failed == 0


def test_unsupported_and_not_json_files_keep_their_messages(tmp_path):
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(UnsupportedModelError, match="cannot read it"):
        xdt.from_xgboost(tmp_path / "bad.json")
    (tmp_path / "text.json").write_text("not json")
    with pytest.raises(UnsupportedModelError, match="not valid JSON"):
        xdt.from_xgboost(tmp_path / "text.json")


def test_a_model_file_that_cannot_be_read_is_a_model_format_error(tmp_path, monkeypatch):
    import errno
    import pathlib

    path = tmp_path / "m.json"
    path.write_text("{}")

    def failing_open(self, *args, **kwargs):
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(pathlib.Path, "open", failing_open)
    with pytest.raises(ModelFormatError, match="cannot read the model file .*Input/output"):
        xdt.load_model(path)
