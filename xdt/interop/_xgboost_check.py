"""Read an XGBoost model file (JSON or UBJ) and check its structure before XGBoost sees it.

XGBoost's own reader trusts the file: categories past their list, a child past the node
count or a node that is its own ancestor can crash the process (SIGSEGV, SIGABRT). xdt reads
the file itself (:func:`read_document`, within the size limit of :mod:`xdt.ir._file_size`)
and :func:`check_document` holds it to what XGBoost writes; XGBoost then reads the checked
document, re-written as JSON, so that both read the same values. The rules:

* ``learner_model_param``: ``num_feature`` at least 1 and no more than the file can describe
  (the features the trees use, the names it stores, or one per byte of the file), a
  ``num_class`` no larger than the number of trees (or 2), ``num_target`` 1;
* ``gradient_booster``: ``gbtree``; ``trees``, ``tree_info`` and ``iteration_indptr`` agree,
  every ``tree_info`` entry names a class (output group) of the model;
* each tree: every per-node list (``left_children``, ``right_children``, ``parents``,
  ``split_indices``, ``split_conditions``, ``default_left``, ``split_type``,
  ``base_weights``, ``loss_changes``, ``sum_hessian``) has ``num_nodes`` entries of the
  right type; children are ``-1`` together (a leaf) or two nodes ``1 .. num_nodes - 1``;
  walked from the root, each node is reached once (no cycle, no shared child) and names its
  parent; features are below ``num_feature``; ``split_conditions`` (thresholds and leaf
  values) are finite float32 numbers;
* categorical splits: ``categories_nodes``, ``categories_segments`` and
  ``categories_sizes`` agree, name categorical nodes, stay within ``categories``, whose codes
  are below the size of the feature's category list (``cats``) when the model has one;
* ``cats`` (the category lists of a model fitted on pandas categoricals): offsets, segments
  and sorted indices within their lists.

Each broken rule raises :class:`~xdt.errors.ModelFormatError` naming the tree and node.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from xdt.errors import ModelFormatError, UnsupportedModelError
from xdt.interop._model_checks import (
    FLOAT32_MAX,
    bounded_count,
    child,
    corrupt,
    integer,
    number,
    parse_json,
)
from xdt.interop._ubjson import decode
from xdt.ir._file_size import check_model_size

__all__ = ["check_document", "read_document"]

SAVE = "save the model with save_model('model.json')"
ROOT_PARENT = (2147483647, -1)
"""The ``parents`` entry of the root, as XGBoost writes it."""
INT_LISTS = ("left_children", "right_children", "parents", "split_indices", "default_left")
FLOAT_LISTS = ("split_conditions", "base_weights", "loss_changes", "sum_hessian")
#: Category codes XGBoost can hold (codes are compared as float32, exact below 2**24).
MAX_CATEGORY = 2**24


def read_document(data: bytes, source: str, max_bytes: int | None = None) -> dict:
    """The JSON object of an XGBoost model file's bytes (JSON, or UBJ), unchecked.

    Raises
    ------
    ModelSizeError
        Over the size limit.
    UnsupportedModelError
        Neither JSON nor UBJ: XGBoost cannot read it either.
    ModelFormatError
        Broken UBJ, or JSON nested too deep.
    """
    check_model_size(len(data), source, max_bytes)
    if data[:1] == b"{" and data[1:2] in (b"i", b"U", b"I", b"l", b"L", b"$", b"#", b"N"):
        doc = decode(data, source)     # UBJ: a length marker, where JSON has a '"'

    else:
        doc = parse_json(data, source, "XGBoost", SAVE)
    if not isinstance(doc, Mapping) or not isinstance(doc.get("learner"), Mapping):
        raise UnsupportedModelError(
            f"{source}: XGBoost cannot read it as a model file (no 'learner' object); {SAVE}")
    return dict(doc)


def check_document(doc: Mapping, source: str, size: int, named: int = 0) -> None:
    """Check an XGBoost model document (the rules of the module docstring).

    Parameters
    ----------
    doc : Mapping
        The parsed JSON (``Booster.save_raw("json")`` or a model file).
    source : str
        What to name in messages (the path, or ``"the model"``).
    size : int
        The document's size in bytes (bounds the counts it may claim).
    named : int
        The number of feature names the caller gives (they count as described features).

    Raises
    ------
    ModelFormatError
        A broken rule, naming the tree and node.
    UnsupportedModelError
        A kind of model xdt does not import (multi-output, gblinear, dart, vector leaves).
    """
    learner = child(doc, "learner", source, "")
    params = child(learner, "learner_model_param", source, "learner")
    where = "learner_model_param"
    n_targets = integer(params.get("num_target", "1") or "1", source, where, "num_target", 1,
                        text=True)
    if n_targets > 1:
        raise UnsupportedModelError(
            f"the model has {n_targets} targets; xdt imports single-output classifiers")
    booster = child(learner, "gradient_booster", source, "learner")
    if booster.get("name") != "gbtree":
        raise UnsupportedModelError(
            f"the booster is {booster.get('name')!r}; xdt imports tree boosters (gbtree), not "
            "gblinear or dart (whose trees carry weights)")
    model = child(booster, "model", source, "gradient_booster")
    trees = child(model, "trees", source, "model", list)
    n_features = integer(params.get("num_feature"), source, where, "num_feature", 1,
                         text=True)
    n_class = integer(params.get("num_class", "0") or "0", source, where, "num_class", 0,
                      max(len(trees), 2) + 1, text=True)
    groups = max(n_class, 1)
    tree_info = child(model, "tree_info", source, "model", list)
    if len(tree_info) != len(trees):
        raise corrupt(source, "model", f"tree_info has {len(tree_info):,} entries for "
                                       f"{len(trees):,} trees")
    for i, g in enumerate(tree_info):
        integer(g, source, f"tree_info[{i}]", "the class (output group) of the tree", 0,
                groups)
    declared = (model.get("gbtree_model_param") or {}).get("num_trees")
    if declared is not None and integer(declared, source, "gbtree_model_param",
                                        "num_trees", text=True) != len(trees):
        raise corrupt(source, "gbtree_model_param",
                      f"num_trees is {declared}, but the model has {len(trees):,} trees")
    _check_indptr(model.get("iteration_indptr"), len(trees), source)
    names = learner.get("feature_names") or []
    types = learner.get("feature_types") or []
    for key, values in (("feature_names", names), ("feature_types", types)):
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values) \
                or len(values) not in (0, n_features):
            raise corrupt(source, "learner", f"{key} must be a list of {n_features:,} strings")
    for j, name in enumerate(names):
        if any(c in name for c in "[]<"):
            raise corrupt(source, "learner", f"feature_names[{j}] is {name!r}, which holds "
                                             "'[', ']' or '<' (XGBoost refuses such names)")
    category_counts = _check_cats(model.get("cats"), n_features, source)
    used = 0
    for k, t in enumerate(trees):
        used = max(used, _check_tree(t, k, n_features, types, category_counts, size, source))
    bounded_count(n_features - used, max(len(names), named), size, source,
                  f"num_feature says {n_features:,} input columns, but the trees use only "
                  f"the first {used:,} and the file names "
                  f"{len(names) if names else 'none'}: the unused unnamed columns",
                  "xdt builds one feature per input column. If the model does have that "
                  "many, pass all their names (feature_names=...); else the file was edited")


def _check_indptr(indptr: object, n_trees: int, source: str) -> None:
    if indptr is None:
        return
    where = "iteration_indptr"
    if not isinstance(indptr, list) or not indptr:
        raise corrupt(source, "model", "iteration_indptr must be a non-empty list")
    last = 0
    for i, v in enumerate(indptr):
        v = integer(v, source, f"{where}[{i}]", "the first tree of an iteration", last,
                    n_trees + 1)
        if i == 0 and v != 0:
            raise corrupt(source, where, "the first iteration must start at tree 0")
        last = v
    if last != n_trees:
        raise corrupt(source, where, f"the iterations end at tree {last:,}, but the model has "
                                     f"{n_trees:,} trees")


def _check_cats(cats: object, n_features: int, source: str) -> dict[int, int]:
    """Feature -> the number of categories in the model's own category list (features with
    a list only: ``num_feature`` is not yet known to be within the file's means)."""
    counts: dict[int, int] = {}
    if cats is None or cats == {}:
        return counts
    enc = child({"cats": cats}, "cats", source, "model").get("enc") or []
    if not isinstance(enc, list) or len(enc) > n_features:
        raise corrupt(source, "cats", f"enc must be a list of at most {n_features:,} entries")
    for f, e in enumerate(enc):
        where = f"cats, feature {f}"
        if not isinstance(e, Mapping):
            raise corrupt(source, where, "an entry of enc must be an object")
        values = e.get("values") or []
        offsets = e.get("offsets") or []
        if not isinstance(values, list) or not isinstance(offsets, list):
            raise corrupt(source, where, "values and offsets must be lists")
        if offsets:     # strings: UTF-8 bytes cut at the offsets
            last = 0
            for i, o in enumerate(offsets):
                last = integer(o, source, where, f"offsets[{i}]", last, len(values) + 1)
            if offsets[0] != 0 or last != len(values):
                raise corrupt(source, where, "offsets must run from 0 to the number of bytes")
            for i, v in enumerate(values):
                integer(v, source, where, f"byte {i} of the category names", 0, 256)
            try:
                bytes(values).decode("utf-8")
            except UnicodeDecodeError:
                raise corrupt(source, where, "the category names are not UTF-8") from None
            counts[f] = len(offsets) - 1
        elif values:
            for i, v in enumerate(values):
                if isinstance(v, bool) or not isinstance(v, int | float | str):
                    raise corrupt(source, where, f"category {i} must be a number or a string")
                if isinstance(v, float):
                    number(v, source, where, f"category {i}")
            counts[f] = len(values)
    segments = cats.get("feature_segments") if isinstance(cats, Mapping) else None
    order = cats.get("sorted_idx") if isinstance(cats, Mapping) else None
    if segments is not None or order is not None:
        if not isinstance(segments, list) or not isinstance(order, list) \
                or len(segments) != (len(enc) + 1 if enc or segments else 0):
            raise corrupt(source, "cats", "feature_segments must have one entry per feature "
                                          "of enc, and one more")
        last = 0
        for i, s in enumerate(segments):
            s = integer(s, source, "cats", f"feature_segments[{i}]", last, len(order) + 1)
            if i and s - last != counts.get(i - 1, 0):
                raise corrupt(source, "cats", f"feature {i - 1} has {counts.get(i - 1, 0)} "
                                              f"categories, but a segment of {s - last}")
            last = s
        if segments and (segments[0] != 0 or last != len(order)):
            raise corrupt(source, "cats", "feature_segments must run from 0 to the length "
                                          "of sorted_idx")
        for f in range(len(enc)):
            for i in range(segments[f], segments[f + 1]):
                integer(order[i], source, "cats", f"sorted_idx[{i}]", 0,
                        segments[f + 1] - segments[f])
    return counts


def _check_tree(t: object, k: int, n_features: int, types: list, category_counts: dict,
                size: int, source: str) -> int:
    """Check tree ``k``; the number of features it uses (its largest feature index + 1)."""
    tree = f"tree {k}"
    if not isinstance(t, Mapping):
        raise corrupt(source, tree, "a tree must be a JSON object")
    param = child(t, "tree_param", source, tree)
    n = integer(param.get("num_nodes"), source, tree, "num_nodes", 1, size + 1, text=True)
    integer(param.get("num_feature", str(n_features)), source, tree, "num_feature", 0,
            n_features + 1, text=True)
    leaf_size = integer(param.get("size_leaf_vector", "1") or "1", source, tree,
                        "size_leaf_vector", 0, text=True)
    if leaf_size > 1:
        raise UnsupportedModelError(f"{tree} has vector leaves (size_leaf_vector "
                                    f"{leaf_size}); xdt imports single-output classifiers")
    lists = {}
    for key in INT_LISTS + FLOAT_LISTS + ("split_type",):
        if key == "split_type" and key not in t:
            lists[key] = [0] * n
            continue
        values = child(t, key, source, tree, list)
        if len(values) != n:
            raise corrupt(source, tree, f"{key} has {len(values):,} entries for {n:,} nodes "
                                        "(num_nodes)")
        lists[key] = values
    left, right, parents = lists["left_children"], lists["right_children"], lists["parents"]
    feat, cond, stype = lists["split_indices"], lists["split_conditions"], lists["split_type"]
    for key in FLOAT_LISTS[1:]:
        for i, v in enumerate(lists[key]):
            number(v, source, f"{tree}, node {i}", key)
    for i, v in enumerate(lists["default_left"]):
        integer(v, source, f"{tree}, node {i}", "default_left", 0, 2)
    used = 0
    inner = set()
    for i in range(n):
        node = f"{tree}, node {i}"
        lo = integer(left[i], source, node, "the left child", -1, n)
        hi = integer(right[i], source, node, "the right child", -1, n)
        integer(stype[i], source, node, "split_type", 0, 2)
        if (lo == -1) != (hi == -1):
            raise corrupt(source, node, f"one child is -1 (a leaf) and the other {max(lo, hi)}")
        if lo == -1:
            number(cond[i], source, node, "the leaf value (split_conditions)", FLOAT32_MAX)
            integer(feat[i], source, node, "split_indices", 0, 2**31)
            continue
        if lo == 0 or hi == 0 or lo == hi:
            raise corrupt(source, node, f"its children are nodes {lo} and {hi}: the root "
                                        "cannot be a child, and the two must differ")
        inner.add(i)
        f = integer(feat[i], source, node, "the split feature (split_indices)", 0, n_features)
        used = max(used, f + 1)
        number(cond[i], source, node, "the threshold (split_conditions)", FLOAT32_MAX)
        if stype[i] == 1 and (not types or types[f] != "c"):
            raise corrupt(source, node, f"a categorical split on feature {f}, which "
                                        "feature_types does not declare categorical")
    integer(parents[0], source, f"{tree}, node 0", "the root's parent", -1)
    if parents[0] not in ROOT_PARENT:
        raise corrupt(source, f"{tree}, node 0", f"the root's parent is {parents[0]}, not "
                                                 "2147483647 (none)")
    reached = bytearray(n)
    reached[0] = 1
    stack = [0]
    while stack:
        i = stack.pop()
        if i not in inner:
            continue
        for c in (left[i], right[i]):
            if reached[c]:
                raise corrupt(source, f"{tree}, node {c}",
                              f"reached twice from the root (again from node {i}): the "
                              "children form a cycle or share a node")
            if parents[c] != i:
                raise corrupt(source, f"{tree}, node {c}",
                              f"its parent is {parents[c]}, but node {i} names it as a child")
            reached[c] = 1
            stack.append(c)
    _check_categories(t, k, n, inner, stype, feat, category_counts, size, source)
    return used


def _check_categories(t: Mapping, k: int, n: int, inner: set, stype: list, feat: list,
                      category_counts: dict, size: int, source: str) -> None:
    tree = f"tree {k}"
    keys = ("categories_nodes", "categories_segments", "categories_sizes")
    nodes, segments, sizes = (t.get(key, []) for key in keys)
    values = t.get("categories", [])
    for key, v in zip(keys + ("categories",), (nodes, segments, sizes, values), strict=True):
        if not isinstance(v, list):
            raise corrupt(source, tree, f"{key} must be a list")
    if not len(nodes) == len(segments) == len(sizes):
        raise corrupt(source, tree, f"categories_nodes, categories_segments and "
                                    f"categories_sizes have {len(nodes)}, {len(segments)} and "
                                    f"{len(sizes)} entries; they must agree")
    listed = set()
    for j, (node, start, count) in enumerate(zip(nodes, segments, sizes, strict=True)):
        node = integer(node, source, tree, f"categories_nodes[{j}]", 0, n)
        where = f"{tree}, node {node}"
        if node not in inner or stype[node] != 1:
            raise corrupt(source, where, "categories_nodes names it, but it is not a "
                                         "categorical split")
        if node in listed:
            raise corrupt(source, where, "categories_nodes names it twice")
        listed.add(node)
        start = integer(start, source, where, "categories_segments entry", 0, len(values) + 1)
        integer(count, source, where, f"categories_sizes entry (with segment {start})", 0,
                len(values) - start + 1)
        f = feat[node]
        known = category_counts.get(f)
        limit = known if known is not None else min(MAX_CATEGORY, max(size, 2))
        for c in values[start:start + count]:
            integer(c, source, where, f"category code of feature {f}" + (
                f" (it has {known} categories)" if known is not None else ""), 0, limit)
    for i in inner:
        if stype[i] == 1 and i not in listed:
            raise corrupt(source, f"{tree}, node {i}",
                          "a categorical split that categories_nodes does not list")


def loadable(doc: Mapping) -> bytearray:
    """The checked document as the JSON bytes XGBoost reads (``Booster.load_model``)."""
    try:
        return bytearray(json.dumps(doc, allow_nan=False).encode("utf-8"))
    except ValueError:   # pragma: no cover - the checks refuse every non-finite number
        raise ModelFormatError("the model holds a number that is not finite") from None
