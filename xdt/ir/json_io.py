"""The JSON model format ``xdt-model/1``: loading, validating and saving models.

The schema is documented in ``encodings/README.md`` and shipped as a JSON Schema in
``encodings/xdt-model-1.schema.json``. A document is an object::

    {"format": "xdt-model/1", "kind": "tree",
     "features": [{"name": "x", "kind": "ordinal"},
                  {"name": "colour", "kind": "categorical", "domain": ["red", "blue"]},
                  {"name": "b", "kind": "binary"}],
     "classes": ["no", "yes"],
     "target": "play",                      # optional
     "root": <node>}

where a node is a leaf ``{"class": c}``, a numeric split
``{"feature": f, "threshold": t, "left": <node>, "right": <node>}`` (``x <= t`` goes left) or
a categorical split ``{"feature": f, "branches": [{"in": [values], "node": <node>}, ...]}``.
Kind ``dnf`` is reserved for a later version and rejected with
:class:`~xdt.errors.UnsupportedModelError`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path as FilePath

from xdt.errors import InvalidModelError, ModelFormatError, UnsupportedModelError
from xdt.ir.features import Feature
from xdt.ir.tree import Branch, CategoricalSplit, DecisionTree, Leaf, Node, ThresholdSplit, _fmt

FORMAT = "xdt-model/1"
KNOWN_KINDS = ("tree", "dnf")
_TREE_KEYS = {"format", "kind", "features", "classes", "root", "target"}


def load_model(source) -> DecisionTree:
    """Load and validate an ``xdt-model/1`` model.

    Parameters
    ----------
    source : str, os.PathLike or dict
        A path to a JSON file, or the already-parsed JSON object.

    Returns
    -------
    DecisionTree

    Raises
    ------
    ModelFormatError
        Unreadable JSON, a missing or unknown ``format`` or ``kind``, wrong field types.
    UnsupportedModelError
        A kind of the format this version cannot use yet (``dnf``).
    InvalidModelError, UnknownFeatureError
        The model breaks a rule of the IR (see :class:`~xdt.ir.tree.DecisionTree`).
    FileNotFoundError
        ``source`` names no file.
    """
    if isinstance(source, Mapping):
        doc = source
    elif isinstance(source, str) and source.lstrip().startswith(("{", "[")):
        raise ModelFormatError(
            "load_model was given JSON text, not a path; pass json.loads(text) (a dict) or "
            "the path of the file")
    elif isinstance(source, str | os.PathLike):
        path = FilePath(source)
        if path.is_dir():
            raise ModelFormatError(f"{str(path)!r} is a directory, not a model file")
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise FileNotFoundError(f"no model file at {str(path)!r}") from None
        except UnicodeDecodeError:
            raise ModelFormatError(f"{path}: not a UTF-8 text file; an xdt model is JSON") \
                from None
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as e:
            raise ModelFormatError(
                f"{path}: not valid JSON ({e}); an xdt model is a JSON object with "
                f"\"format\": \"{FORMAT}\"") from None
    else:
        raise ModelFormatError(
            f"load_model takes a file path or a dict, got {type(source).__name__}")
    return model_from_dict(doc)


def model_from_dict(doc: Mapping) -> DecisionTree:
    """Build a model from a parsed ``xdt-model/1`` object; errors as in :func:`load_model`."""
    if not isinstance(doc, Mapping):
        raise ModelFormatError(f"an xdt model is a JSON object, got {type(doc).__name__}")
    fmt = doc.get("format")
    if fmt is None:
        hint = (" (this looks like a document holding a model under \"model\": pass "
                "doc[\"model\"])" if isinstance(doc.get("model"), Mapping) else "")
        raise ModelFormatError(
            f"the model has no \"format\" field; add \"format\": \"{FORMAT}\"{hint}")
    if fmt != FORMAT:
        raise ModelFormatError(
            f"unknown model format {fmt!r}; this version of xdt reads \"{FORMAT}\"")
    kind = doc.get("kind")
    if kind not in KNOWN_KINDS:
        raise ModelFormatError(
            f"unknown model kind {kind!r}; \"{FORMAT}\" models are of kind "
            f"{' or '.join(map(repr, KNOWN_KINDS))}")
    if kind != "tree":
        raise UnsupportedModelError(
            f"model kind {kind!r} is not yet supported by this version of xdt (only 'tree' "
            "models can be loaded for now)")
    extra = set(doc) - _TREE_KEYS
    if extra:
        raise ModelFormatError(
            f"unknown field(s) {sorted(extra)} in a tree model; allowed: {sorted(_TREE_KEYS)}")
    for key in ("features", "classes", "root"):
        if key not in doc:
            raise ModelFormatError(f"the tree model has no {key!r} field")
    if not isinstance(doc["features"], list) or not isinstance(doc["classes"], list):
        raise ModelFormatError("'features' and 'classes' must be JSON lists")
    features = [_feature_from_dict(f, k) for k, f in enumerate(doc["features"])]
    target = doc.get("target")
    if target is not None and not isinstance(target, str):
        raise ModelFormatError(f"'target' must be a string, got {target!r}")
    return DecisionTree(features, doc["classes"], _node_from_dict(doc["root"], "root"),
                        target=target)


def _feature_from_dict(d, k: int) -> Feature:
    if not isinstance(d, Mapping) or "name" not in d or "kind" not in d:
        raise ModelFormatError(
            f"features[{k}] must be an object with 'name' and 'kind', got {d!r}")
    extra = set(d) - {"name", "kind", "domain"}
    if extra:
        raise ModelFormatError(f"features[{k}] has unknown field(s) {sorted(extra)}")
    domain = d.get("domain")
    if domain is not None and not isinstance(domain, list):
        raise ModelFormatError(f"features[{k}].domain must be a list, got {domain!r}")
    return Feature(d["name"], d["kind"], tuple(domain) if domain is not None else None)


def _node_from_dict(d, where: str) -> Node:
    # Iterative over an explicit stack would be longer; JSON nesting is bounded by the
    # parser's own recursion, so recursion here is no new limit.
    if not isinstance(d, Mapping):
        raise InvalidModelError(f"a node must be a JSON object, got {d!r}", where)
    keys = set(d)
    if keys == {"class"}:
        return Leaf(d["class"])
    if keys == {"feature", "threshold", "left", "right"}:
        return ThresholdSplit(d["feature"], d["threshold"],
                              _node_from_dict(d["left"], f"{where} > {d['feature']} <= "
                                                         f"{d['threshold']}"),
                              _node_from_dict(d["right"], f"{where} > {d['feature']} > "
                                                          f"{d['threshold']}"))
    if keys == {"feature", "branches"}:
        if not isinstance(d["branches"], list):
            raise InvalidModelError("'branches' must be a list", where)
        branches = []
        for k, b in enumerate(d["branches"]):
            if not isinstance(b, Mapping) or set(b) != {"in", "node"} \
                    or not isinstance(b["in"], list):
                raise InvalidModelError(
                    f"branch {k} must be {{\"in\": [values], \"node\": ...}}, got {b!r}", where)
            values = ", ".join(_fmt(v) for v in b["in"])  # the node's name, as in tree.py
            branches.append(Branch(tuple(b["in"]), _node_from_dict(
                b["node"], f"{where} > {d['feature']} in {{{values}}}")))
        return CategoricalSplit(d["feature"], tuple(branches))
    raise InvalidModelError(
        f"unrecognised node with fields {sorted(keys)}; a node is a leaf {{\"class\": c}}, "
        "a numeric split {\"feature\", \"threshold\", \"left\", \"right\"} or a categorical "
        "split {\"feature\", \"branches\"}", where)


def model_to_dict(model: DecisionTree) -> dict:
    """The ``xdt-model/1`` JSON object of a model (inverse of :func:`model_from_dict`)."""
    if not isinstance(model, DecisionTree):
        raise UnsupportedModelError(
            f"cannot save a {type(model).__name__}; only DecisionTree models can be saved")
    out: dict = {"format": FORMAT, "kind": "tree",
                 "features": [f.to_dict() for f in model.features],
                 "classes": list(model.classes)}
    if model.target is not None:
        out["target"] = model.target
    out["root"] = _node_to_dict(model.root)
    return out


def _node_to_dict(node: Node) -> dict:
    if isinstance(node, Leaf):
        return {"class": node.label}
    if isinstance(node, ThresholdSplit):
        return {"feature": node.feature, "threshold": node.threshold,
                "left": _node_to_dict(node.left), "right": _node_to_dict(node.right)}
    return {"feature": node.feature,
            "branches": [{"in": list(b.values), "node": _node_to_dict(b.node)}
                         for b in node.branches]}


def save_model(model: DecisionTree, path) -> None:
    """Write ``model`` as an ``xdt-model/1`` JSON file at ``path`` (UTF-8, indented).

    Raises
    ------
    UnsupportedModelError
        For a model kind that cannot be saved yet.
    """
    text = json.dumps(model_to_dict(model), indent=1, ensure_ascii=False)
    FilePath(path).write_text(text + "\n", encoding="utf-8")
