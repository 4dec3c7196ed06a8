"""Check a LightGBM text model before LightGBM's reader sees it.

LightGBM reads the trees of a text model in parallel threads, where any error it meets (a
NaN or ``1e400`` threshold, a count that does not match its list) ends the whole process
(``std::terminate``, SIGABRT), and a node that is its own child or a feature past the
feature count crashes it later (SIGSEGV). :func:`check_text` holds the text to what
LightGBM writes, so that only such a text reaches it:

* the header: ``max_feature_idx`` with as many ``feature_names`` and ``feature_infos``,
  ``num_class`` and ``num_tree_per_iteration`` at least 1 (equal for ``multiclass``), a
  tree count that is a multiple of ``num_tree_per_iteration``, ``tree_sizes`` equal to the
  trees' lengths in bytes, ``Tree=0, 1, ...`` in order, an ``end of trees`` line, and a
  ``pandas_categorical`` line of JSON lists;
* each tree: ``num_leaves`` at least 1; each list (``split_feature``, ``threshold``,
  ``decision_type``, ``left_child``, ``right_child``, ``split_gain``, ``internal_*``:
  ``num_leaves - 1`` entries; ``leaf_*``: ``num_leaves``) of plain decimal numbers;
  finite thresholds and leaf values; split features up to ``max_feature_idx``; children
  that are internal nodes ``1 .. num_leaves - 2`` or leaves ``-1 .. -num_leaves``, each
  reached once from the root; decision types LightGBM knows; categorical splits
  (``num_cat``, ``cat_boundaries``, ``cat_threshold``) within their lists; no linear
  trees (xdt does not import them).

A broken rule raises :class:`~xdt.errors.ModelFormatError` naming the tree and node.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from xdt.errors import UnsupportedModelError
from xdt.interop._model_checks import bounded_count, corrupt, integer, number, parse_json

__all__ = ["check_text", "tree_blocks"]

SAVE = "save the model with save_model('model.txt') or dump_model()"
FIX = "the file is damaged or was edited; save the model again with save_model('model.txt')"
_FLOAT = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_INT = re.compile(r"[+-]?\d{1,18}")
#: Lists of a tree with one entry per internal node, per leaf; and which hold integers.
INNER = ("split_feature", "split_gain", "threshold", "decision_type", "left_child",
         "right_child", "internal_value", "internal_weight", "internal_count")
LEAVES = ("leaf_value", "leaf_weight", "leaf_count")
INTEGERS = ("split_feature", "decision_type", "left_child", "right_child", "internal_count",
            "leaf_count")
REQUIRED = ("split_feature", "threshold", "decision_type", "left_child", "right_child")


def _pairs(lines: list[str], source: str, where: str) -> dict[str, str]:
    """``key=value`` lines as a dict; a repeated key or a line of another form is refused
    (LightGBM would keep one of them, and xdt could check the other)."""
    out: dict[str, str] = {}
    for line in lines:
        if not line:
            continue
        key, eq, value = line.partition("=")
        if not eq or "=" in value and key != "feature_names":
            raise corrupt(source, where, f"a line that is not key=value: {line[:40]!r}", FIX)
        if key in out:
            raise corrupt(source, where, f"{key!r} is given twice", FIX)
        out[key] = value
    return out


def _numbers(text: str, source: str, where: str, key: str, count: int) -> list[str]:
    tokens = text.split(" ") if text else []
    if len(tokens) != count:
        raise corrupt(source, where, f"{key} has {len(tokens):,} entries, where "
                                     f"num_leaves says {count:,}", FIX)
    pattern = _INT if key in INTEGERS else _FLOAT
    for i, tok in enumerate(tokens):
        if not pattern.fullmatch(tok):
            kind = "an integer" if key in INTEGERS else "a decimal number"
            raise corrupt(source, f"{where}, node {i}",
                          f"{key} entry {tok[:30]!r} is not {kind}", FIX)
    return tokens


def tree_blocks(text: str, source: str) -> tuple[list[str], list[tuple[int, int]]]:
    """The header lines, and the (start, end) character offsets of each ``Tree=`` block."""
    end = text.find("\nend of trees")
    if end < 0:
        # LightGBM aborts the whole process (not an exception) on a cut-off file
        raise UnsupportedModelError(
            f"{source}: LightGBM cannot read it as a model file (no 'end of trees' line: "
            f"the file is cut off, or not a LightGBM text model); {SAVE}")
    starts = [m.start() + 1 for m in re.finditer(r"\nTree=", text[:end + 1])]
    header = text[:starts[0] if starts else end].split("\n")
    bounds = list(zip(starts, starts[1:] + [end + 1], strict=True))
    return [line.rstrip("\r") for line in header], bounds


def check_text(text: str, source: str, named: int = 0) -> None:
    """Check a LightGBM text model (the rules of the module docstring).

    Parameters
    ----------
    text : str
        The whole model text, as LightGBM will read it.
    source : str
        What to name in messages (the path).
    named : int
        The number of feature names the caller gives.

    Raises
    ------
    ModelFormatError
        A broken rule, naming the tree and node.
    UnsupportedModelError
        Not a LightGBM text model (no ``end of trees``), or a linear tree.
    """
    lines, blocks = tree_blocks(text, source)
    head = _pairs(lines[1:], source, "header")
    size = len(text.encode("utf-8"))
    n_features = integer(_int(head.get("max_feature_idx"), source, "max_feature_idx"),
                         source, "header", "max_feature_idx", 0) + 1
    names = head.get("feature_names", "").split(" ") if head.get("feature_names") else []
    infos = head.get("feature_infos", "").split(" ") if head.get("feature_infos") else []
    if len(names) != n_features or len(infos) not in (0, n_features):
        raise corrupt(source, "header", f"max_feature_idx says {n_features:,} features, but "
                                        f"feature_names lists {len(names):,} and "
                                        f"feature_infos {len(infos):,}", FIX)
    bounded_count(n_features, max(len(names), named), size, source, "the feature count", FIX)
    for j, name in enumerate(names):
        if any(c in '"\\' or ord(c) < 0x20 for c in name):
            raise corrupt(source, "header", f"feature_names[{j}] is {name!r}, which holds a "
                                            "quote, a backslash or a control character "
                                            "(LightGBM writes it unescaped into the JSON of "
                                            "its dump, which cannot then be read)", FIX)
    n_class = integer(_int(head.get("num_class", "1"), source, "num_class"), source, "header",
                      "num_class", 1, max(len(blocks), 1) + 2)
    per_iteration = integer(_int(head.get("num_tree_per_iteration", "1"), source,
                                 "num_tree_per_iteration"), source, "header",
                            "num_tree_per_iteration", 1, max(len(blocks), 1) + 1)
    if str(head.get("objective", "")).split(" ")[0] == "multiclass" and per_iteration != n_class:
        raise corrupt(source, "header", f"num_tree_per_iteration is {per_iteration}, but a "
                                        f"multiclass model of {n_class} classes has as many "
                                        "trees per iteration", FIX)
    if len(blocks) % per_iteration:
        raise corrupt(source, "header", f"{len(blocks):,} trees are not whole iterations of "
                                        f"{per_iteration} trees", FIX)
    _check_sizes(head.get("tree_sizes"), text, blocks, source)
    for k, (a, b) in enumerate(blocks):
        _check_tree(text[a:b], k, n_features, source)
    _check_pandas(text, n_features, source)


def _int(value: str | None, source: str, key: str) -> int:
    if value is None or not _INT.fullmatch(value.strip()):
        raise corrupt(source, "header", f"{key} must be an integer, got {value!r}", FIX)
    return int(value)


def _check_sizes(sizes: str | None, text: str, blocks: list[tuple[int, int]],
                 source: str) -> None:
    """``tree_sizes``: LightGBM reads each tree at the offsets these add up to."""
    if sizes is None:
        return
    tokens = sizes.split(" ") if sizes else []
    actual = [len(text[a:b].encode("utf-8")) for a, b in blocks]
    if len(tokens) != len(blocks) or not all(_INT.fullmatch(t) for t in tokens) \
            or [int(t) for t in tokens] != actual:
        raise corrupt(source, "header", f"tree_sizes does not give the lengths of the "
                                        f"{len(blocks):,} trees in bytes", FIX)


def _check_tree(block: str, k: int, n_features: int, source: str) -> None:
    tree = f"tree {k}"
    lines = [line.rstrip("\r") for line in block.split("\n")]
    if lines[0] != f"Tree={k}":
        raise corrupt(source, tree, f"the tree's first line is {lines[0][:30]!r}, not "
                                    f"'Tree={k}'", FIX)
    kv = _pairs(lines[1:], source, tree)
    n = integer(_int(kv.get("num_leaves"), source, "num_leaves"), source, tree, "num_leaves",
                1, len(block) + 1)
    if kv.get("is_linear", "0") != "0":
        raise UnsupportedModelError(
            f"tree {k} is a linear tree (linear_tree=True); xdt imports constant leaves only")
    values = {key: _numbers(kv[key], source, tree, key, n) for key in LEAVES if key in kv}
    if "leaf_value" not in values:
        raise corrupt(source, tree, "it has no leaf_value line", FIX)
    for i, v in enumerate(values["leaf_value"]):
        number(float(v), source, f"{tree}, leaf {i}", "the leaf value")
    number(float(_numbers(kv.get("shrinkage", "1"), source, tree, "shrinkage", 1)[0]), source,
           tree, "shrinkage")
    if n == 1:
        return
    for key in REQUIRED:
        if key not in kv:
            raise corrupt(source, tree, f"it has no {key} line", FIX)
    lists = {key: _numbers(kv[key], source, tree, key, n - 1) for key in INNER if key in kv}
    n_cat = integer(_int(kv.get("num_cat", "0"), source, "num_cat"), source, tree, "num_cat",
                    0, n)
    bounds = _check_categories(kv, n_cat, source, tree)
    feats = [int(v) for v in lists["split_feature"]]
    kinds = [int(v) for v in lists["decision_type"]]
    left = [int(v) for v in lists["left_child"]]
    right = [int(v) for v in lists["right_child"]]
    for i in range(n - 1):
        node = f"{tree}, node {i}"
        integer(feats[i], source, node, "split_feature", 0, n_features)
        kind = integer(kinds[i], source, node, "decision_type", 0, 12)
        if kind >> 2 == 3:
            raise corrupt(source, node, f"decision_type {kind} names no missing-value rule", FIX)
        if kind & 1:    # categorical: the threshold is the split's index in cat_boundaries
            t = lists["threshold"][i]
            if not _INT.fullmatch(t):
                raise corrupt(source, node, f"a categorical split's threshold {t!r} is not "
                                            "an index", FIX)
            integer(int(t), source, node, "the index of its categories (threshold)", 0,
                    len(bounds) - 1 if bounds else 0)
        else:
            number(float(lists["threshold"][i]), source, node, "the threshold")
        for key in INNER:
            if key in lists and key not in INTEGERS and key != "threshold":
                number(float(lists[key][i]), source, node, key)
    _check_children(left, right, n, source, tree)


def _check_categories(kv: Mapping, n_cat: int, source: str, tree: str) -> list[int]:
    """``cat_boundaries`` (``num_cat + 1`` offsets from 0) within ``cat_threshold``."""
    if n_cat == 0:
        return []
    if "cat_boundaries" not in kv or "cat_threshold" not in kv:
        raise corrupt(source, tree, "num_cat is not 0, but cat_boundaries or cat_threshold "
                                    "is missing", FIX)
    tokens = kv["cat_boundaries"].split(" ")
    words = kv["cat_threshold"].split(" ") if kv["cat_threshold"] else []
    if len(tokens) != n_cat + 1 or not all(_INT.fullmatch(t) for t in tokens):
        raise corrupt(source, tree, f"cat_boundaries must hold num_cat + 1 = {n_cat + 1} "
                                    "integers", FIX)
    bounds = [int(t) for t in tokens]
    if bounds[0] != 0 or any(b < a for a, b in zip(bounds, bounds[1:], strict=False)) \
            or bounds[-1] != len(words):
        raise corrupt(source, tree, f"cat_boundaries must rise from 0 to the {len(words):,} "
                                    "entries of cat_threshold", FIX)
    for w in words:
        if not _INT.fullmatch(w) or not 0 <= int(w) < 2**32:
            raise corrupt(source, tree, f"cat_threshold entry {w[:30]!r} is not a 32-bit "
                                        "word", FIX)
    return bounds


def _check_children(left: list[int], right: list[int], n: int, source: str,
                    tree: str) -> None:
    """Children are internal nodes ``1 .. n - 2`` or leaves ``~0 .. ~(n - 1)``, each reached
    exactly once from the root."""
    inner_seen = bytearray(n - 1)
    leaf_seen = bytearray(n)
    inner_seen[0] = 1
    stack = [0]
    reached = 1
    while stack:
        i = stack.pop()
        for c in (left[i], right[i]):
            node = f"{tree}, node {i}"
            if c >= 0:
                if not 1 <= c < n - 1:
                    raise corrupt(source, node, f"its child {c} is " + (
                        "the root, which no node may have as a child" if c == 0 else
                        f"past the {n - 1} internal nodes"), FIX)
                if inner_seen[c]:
                    raise corrupt(source, node, f"its child {c} is reached twice from the "
                                                "root: the children form a cycle or share a "
                                                "node", FIX)
                inner_seen[c] = 1
                reached += 1
                stack.append(c)
            else:
                leaf = integer(~c, source, node, f"a child leaf ({c} is leaf ~{c})", 0, n)
                if leaf_seen[leaf]:
                    raise corrupt(source, node, f"leaf {leaf} is reached twice from the root",
                                  FIX)
                leaf_seen[leaf] = 1
    if reached != n - 1 or not all(leaf_seen):
        raise corrupt(source, tree, "some nodes are not reached from the root", FIX)


def _check_pandas(text: str, n_features: int, source: str) -> None:
    """The ``pandas_categorical:`` line (JSON) that lightgbm's Python package reads."""
    at = text.rfind("\npandas_categorical:")
    if at < 0:
        return
    line = text[at + len("\npandas_categorical:"):].split("\n", 1)[0].rstrip("\r")
    value = parse_json(line, source, "LightGBM", SAVE)
    if value is None:
        return
    if not isinstance(value, list) or len(value) > n_features or not all(
            isinstance(v, list) and all(isinstance(x, str | int | float) for x in v)
            for v in value):
        raise corrupt(source, "pandas_categorical", "it must be a list of category lists, "
                                                    "one per categorical feature", FIX)
    for v in value:
        for x in v:
            if isinstance(x, float):
                number(x, source, "pandas_categorical", "a category")
