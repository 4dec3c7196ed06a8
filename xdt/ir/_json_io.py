"""The JSON model format ``xdt-model/1``: loading, validating and saving models.

The schema is documented in ``encodings/README.md`` and shipped as a JSON Schema in
``encodings/xdt-model-1.schema.json``. A document is an object::

    {"format": "xdt-model/1", "kind": "tree",
     "features": [{"name": "x", "kind": "ordinal"},
                  {"name": "colour", "kind": "categorical", "domain": ["red", "blue"]},
                  {"name": "b", "kind": "binary"}],
     "classes": ["no", "yes"],
     "target": "play",                      # optional
     "input_dtype": "float32",              # optional, trees only; default "float64"
     "root": <node>}

where a node is a leaf ``{"class": c}``, a numeric split
``{"feature": f, "threshold": t, "left": <node>, "right": <node>}`` (``x <= t`` goes left) or
a categorical split ``{"feature": f, "branches": [{"in": [values], "node": <node>}, ...]}``.

Kind ``dnf`` replaces ``root`` by ``"terms": [[<condition>, ...], ...]`` (``classes[1]`` when
some term holds); kind ``nested-kdnf`` by ``"matrix": [[<condition> x k] x k]`` and
``"terms": [[r_1, ..., r_k], ...]`` (row prefix lengths). A condition is
``{"feature": f, "in": [values]}`` (categorical/binary) or ``{"feature": f, "gt": a}``,
``{"feature": f, "le": b}``, ``{"feature": f, "gt": a, "le": b}`` (ordinal: ``a < x <= b``).

Kind ``decision-list`` (:class:`~xdt.ir.DecisionList`) replaces ``root`` by
``"rules": [{"if": [<condition>, ...], "then": c}, ...]`` (in order: the first rule whose
conditions all hold decides) and ``"default": c`` (the class when none does).

Kind ``tree-ensemble`` (:class:`~xdt.ir.TreeEnsemble`) replaces ``root`` by
``"trees": [<node>, ...]`` (one root per tree) and adds ``"combine"`` (``"vote"``,
``"proba"``, ``"margin"``) and the optional ``input_dtype``, ``precision``, ``base``,
``divisor``, ``threshold`` and ``source``; a leaf of its trees is
``{"class": c, "value": [numbers]}`` (``value`` may be left out for ``"vote"``).

Every kind may add ``"constraints"``: background constraints on the feature space
(:mod:`xdt.ir._constraints`), a list of ``{"forbidden": [<condition>, ...]}``,
``{"if": [<condition>, ...], "then": [<condition>, ...]}`` (``then`` is a disjunction) and
``{"ordering": [x, y]}`` (``x <= y``; ``"strict": true`` for ``x < y``) entries, or
their texts (``"NOT (sex = male AND pregnant = yes)"``). Numbers are
written with Python's shortest ``repr``, so every float reads back bit for bit.
"""

from __future__ import annotations

import json
import json.decoder
import json.scanner
import os
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path as FilePath

from xdt._atomic import write_text
from xdt.errors import (
    InvalidModelError,
    ModelFormatError,
    UnsupportedModelError,
)
from xdt.ir._constraints import constraint_from_dict
from xdt.ir._decision_list import DecisionList
from xdt.ir._dnf import DNF, Condition, NestedKDNF
from xdt.ir._ensemble import COMBINES, PRECISIONS, TreeEnsemble
from xdt.ir._features import Feature
from xdt.ir._file_size import read_model_file
from xdt.ir._json_text import dumps
from xdt.ir._tree import (
    Branch,
    CategoricalSplit,
    DecisionTree,
    Leaf,
    Node,
    ThresholdSplit,
    _where,
)
from xdt.ir._values import INPUT_DTYPES, to_python

FORMAT = "xdt-model/1"
KNOWN_KINDS = ("tree", "dnf", "nested-kdnf", "decision-list", "tree-ensemble")
_COMMON_KEYS = {"format", "kind", "features", "classes", "target", "constraints"}
_KEYS = {"tree": _COMMON_KEYS | {"root", "input_dtype"}, "dnf": _COMMON_KEYS | {"terms"},
         "nested-kdnf": _COMMON_KEYS | {"k", "matrix", "terms"},
         "decision-list": _COMMON_KEYS | {"rules", "default"},
         "tree-ensemble": _COMMON_KEYS | {"input_dtype", "combine", "precision", "base",
                                          "divisor", "threshold", "source", "trees"}}
_REQUIRED = {"tree": ("features", "classes", "root"), "dnf": ("features", "classes", "terms"),
             "nested-kdnf": ("features", "classes", "matrix", "terms"),
             "decision-list": ("features", "classes", "rules", "default"),
             "tree-ensemble": ("features", "classes", "combine", "trees")}
Model = DecisionTree | DNF | DecisionList | TreeEnsemble


#: Nesting depth of JSON documents that load_model reads with json.loads (a tree of depth d
#: nests about d levels, 3d with categorical splits); deeper documents are read by the
#: iterative parser of xdt.ir._deep_json instead (at any depth).
MAX_NESTING = 20_000


@contextmanager
def _nesting(levels: int) -> Iterator[None]:
    """Room for ``levels`` nested calls: Python's json module and the tree builders recurse
    once per level of a model, and learned trees can be deeper than the default limit."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, levels + 1000))
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def load_model(source, *, max_bytes: int | None = None) -> Model:
    """Load and validate an ``xdt-model/1`` model.

    Parameters
    ----------
    source : str, os.PathLike or dict
        A path to a JSON file, or the already-parsed JSON object.
    max_bytes : int, optional
        The largest file read, in bytes, checked (``os.stat``) before it is read: default
        512 MiB, or the environment variable ``XDT_MAX_MODEL_BYTES`` when set
        (:mod:`xdt.ir._file_size`).

    Returns
    -------
    DecisionTree, DNF, NestedKDNF, DecisionList or TreeEnsemble

    Raises
    ------
    ModelFormatError
        Unreadable JSON, a missing or unknown ``format`` or ``kind``, wrong field types.
    InvalidModelError, UnknownFeatureError
        The model breaks a rule of the IR (see :class:`~xdt.ir.DecisionTree`,
        :class:`~xdt.ir.DNF`, :class:`~xdt.ir.NestedKDNF` and
        :class:`~xdt.ir.TreeEnsemble`); an error inside tree ``t`` of an ensemble
        has ``where`` ``"trees[t] > root > ..."``.
    ModelSizeError
        (a ``ModelFormatError``) The file is larger than ``max_bytes``.
    MissingFileError
        (a ``FileNotFoundError``) ``source`` names no file.

    A file whose JSON repeats a key within one object is a ``ModelFormatError`` that names
    the key, the line and the object's place in the document (JSON readers would keep only
    one of the values, silently).
    """
    if isinstance(source, Mapping):
        doc = source
    elif isinstance(source, str) and source.lstrip().startswith(("{", "[")):
        raise ModelFormatError(
            "load_model was given JSON text, not a path; pass json.loads(text) (a dict) or "
            "the path of the file")
    elif isinstance(source, str | os.PathLike):
        path = FilePath(source)
        try:
            text = read_model_file(path, max_bytes=max_bytes).decode("utf-8")
        except UnicodeDecodeError:
            raise ModelFormatError(f"{path}: not a UTF-8 text file; an xdt model is JSON") \
                from None
        try:
            with _nesting(MAX_NESTING):
                doc = json.loads(text, object_pairs_hook=unique_keys)
        except RepeatedKey as e:
            raise ModelFormatError(f"{path}{_repeated_key_message(text, e.key)}") from None
        except RecursionError:  # deeper than json.loads goes: parse it without recursion
            doc = _load_deep(path, text)
        except json.JSONDecodeError as e:
            raise ModelFormatError(
                f"{path}: not valid JSON ({e}); an xdt model is a JSON object with "
                f"\"format\": \"{FORMAT}\"") from None
    else:
        raise ModelFormatError(
            f"load_model takes a file path or a dict, got {type(source).__name__}")
    return model_from_dict(doc)


def _load_deep(path: FilePath, text: str) -> object:
    """The document ``text`` (of the file ``path``), nested deeper than :func:`json.loads`
    goes, read by :func:`xdt.ir._deep_json.loads_deep`; errors as for a shallow one."""
    from xdt.ir._deep_json import DeepJSONError, RepeatedKeyDeep, loads_deep  # ijson: rare

    try:
        return loads_deep(text.encode("utf-8"))
    except RepeatedKeyDeep as e:
        place = f"the object at {e.place}" if e.place else "the top-level object"
        raise ModelFormatError(
            f"{path}: key {e.key!r} appears twice in {place}; each key may appear once in "
            "an object (a JSON reader keeps only one of the values): remove or rename the "
            "copy") from None
    except DeepJSONError as e:
        raise ModelFormatError(
            f"{path}: not valid JSON ({e}); an xdt model is a JSON object with "
            f"\"format\": \"{FORMAT}\"") from None


class RepeatedKey(Exception):
    """A JSON object of the text names ``key`` twice (raised by :func:`unique_keys`)."""

    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def unique_keys(pairs: list[tuple[str, object]]) -> dict:
    """``object_pairs_hook`` of :func:`json.loads`: the object as a dict, or
    :class:`RepeatedKey` for the first key that appears twice in it."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise RepeatedKey(key)
            seen.add(key)
    return out


class _Repeats(dict):
    """An object of the JSON text that repeats ``key``; ``start`` is the offset of its ``{``."""

    key: str
    start: int | None = None


def _repeated_key_message(text: str, key: str) -> str:
    """``", line 7: key 'threshold' appears twice in the object at root.left; ..."``.

    Parses ``text`` again with the pure-Python scanner (only on this error path) to find the
    first object that repeats a key, its line, and its path from the top of the document.
    """
    def mark(pairs: list[tuple[str, object]]) -> dict:
        try:
            return unique_keys(pairs)
        except RepeatedKey as e:
            out = _Repeats(pairs)
            out.key = e.key
            return out

    def parse_object(s_and_end, *args):
        obj, end = json.decoder.JSONObject(s_and_end, *args)
        if isinstance(obj, _Repeats) and obj.start is None:
            obj.start = s_and_end[1] - 1
        return obj, end

    fix = ("; each key may appear once in an object (a JSON reader keeps only one of the "
           "values): remove or rename the copy")
    decoder = json.JSONDecoder(object_pairs_hook=mark)
    decoder.parse_object = parse_object
    decoder.scan_once = json.scanner.py_make_scanner(decoder)
    try:
        with _nesting(MAX_NESTING):
            doc = decoder.decode(text)
    except (RecursionError, ValueError):  # pragma: no cover - the fast parse read it
        return f": key {key!r} appears twice in one object{fix}"
    stack: list[tuple[object, str]] = [(doc, "")]
    while stack:  # depth first, in document order
        node, where = stack.pop()
        if isinstance(node, _Repeats):
            assert node.start is not None
            offset = _second_key_offset(text, node.start, node.key)
            line = text.count("\n", 0, offset) + 1
            place = f"the object at {where}" if where else "the top-level object"
            return f", line {line}: key {node.key!r} appears twice in {place}{fix}"
        if isinstance(node, dict):
            stack.extend((v, f"{where}.{k}" if where else str(k))
                         for k, v in reversed(node.items()))
        elif isinstance(node, list):
            stack.extend((v, f"{where}[{i}]") for i, v in reversed(list(enumerate(node))))
    return f": key {key!r} appears twice in one object{fix}"  # pragma: no cover


def _second_key_offset(text: str, start: int, key: str) -> int:
    """Offset in ``text`` of the second ``key`` among the members of the object whose ``{``
    is at ``start`` (the object is valid JSON)."""
    ws = json.decoder.WHITESPACE.match
    scan = json.JSONDecoder().scan_once
    seen = False
    i = ws(text, start + 1).end()
    while text.startswith('"', i):
        name, j = json.decoder.scanstring(text, i + 1)
        if name == key:
            if seen:
                return i
            seen = True
        j = ws(text, ws(text, j).end() + 1).end()  # past the ':'
        _, j = scan(text, j)
        j = ws(text, j).end()
        if not text.startswith(",", j):
            break
        i = ws(text, j + 1).end()
    return start  # pragma: no cover - the object repeats the key


def model_from_dict(doc: Mapping) -> Model:
    """Build a model from a parsed ``xdt-model/1`` object; errors as in :func:`load_model`."""
    try:
        with _nesting(MAX_NESTING):
            return _model_from_dict(doc)
    except RecursionError:
        raise ModelFormatError(f"the model nests deeper than {MAX_NESTING} levels") from None


def _model_from_dict(doc: Mapping) -> Model:
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
            f"{', '.join(map(repr, KNOWN_KINDS[:-1]))} or {KNOWN_KINDS[-1]!r}")
    extra = set(doc) - _KEYS[kind]
    if extra:
        raise ModelFormatError(
            f"unknown field(s) {sorted(extra)} in a {kind} model; allowed: "
            f"{sorted(_KEYS[kind])}")
    for key in _REQUIRED[kind]:
        if key not in doc:
            raise ModelFormatError(f"the {kind} model has no {key!r} field")
    if not isinstance(doc["features"], list) or not isinstance(doc["classes"], list):
        raise ModelFormatError("'features' and 'classes' must be JSON lists")
    features = [_feature_from_dict(f, k) for k, f in enumerate(doc["features"])]
    target = doc.get("target")
    if target is not None and not isinstance(target, str):
        raise ModelFormatError(f"'target' must be a string, got {target!r}")
    constraints = [constraint_from_dict(c, f"constraints[{i}]")
                   for i, c in enumerate(_list(doc.get("constraints", []), "'constraints'"))]
    if kind == "dnf":
        terms = _list(doc["terms"], "terms")
        return DNF(features, doc["classes"],
                   [[_condition_from_dict(c, f"terms[{p}][{q}]")
                     for q, c in enumerate(_list(t, f"terms[{p}]"))]
                    for p, t in enumerate(terms)], target=target, constraints=constraints)
    if kind == "nested-kdnf":
        matrix = [[_condition_from_dict(c, f"matrix[{i}][{j}]")
                   for j, c in enumerate(_list(row, f"matrix[{i}]"))]
                  for i, row in enumerate(_list(doc["matrix"], "matrix"))]
        if "k" in doc and doc["k"] != len(matrix):
            raise InvalidModelError(f"'k' is {doc['k']!r} but the matrix has {len(matrix)} "
                                    "rows; the matrix is k x k")
        prefixes = [_list(r, f"terms[{p}]") for p, r in enumerate(_list(doc["terms"], "terms"))]
        return NestedKDNF(features, doc["classes"], matrix, prefixes, target=target,
                          constraints=constraints)
    if kind == "decision-list":
        return DecisionList(features, doc["classes"],
                            [_rule_from_dict(r, f"rules[{p}]")
                             for p, r in enumerate(_list(doc["rules"], "rules"))],
                            doc["default"], target=target, constraints=constraints)
    input_dtype = doc.get("input_dtype", "float64")
    if input_dtype not in INPUT_DTYPES:
        raise ModelFormatError(f"'input_dtype' must be one of {', '.join(INPUT_DTYPES)} (the "
                               f"precision of the inputs the tree was fitted on), got "
                               f"{input_dtype!r}")
    if kind == "tree-ensemble":
        return _ensemble_from_dict(doc, features, target, input_dtype, constraints)
    return DecisionTree(features, doc["classes"], _node_from_dict(doc["root"]),
                        target=target, input_dtype=input_dtype, constraints=constraints)


def _number(value, where: str) -> float | int:
    """A JSON number (not a boolean), else ModelFormatError naming ``where``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ModelFormatError(f"{where} must be a number, got {value!r}")
    return value


def _ensemble_from_dict(doc: Mapping, features: list[Feature], target: str | None,
                        input_dtype: str, constraints: list | None = None) -> TreeEnsemble:
    """The :class:`TreeEnsemble` of a ``tree-ensemble`` document (fields checked by type
    here; the rules of the IR by the ensemble and its trees)."""
    from xdt.ir._features import FeatureSpace

    combine = doc["combine"]
    if combine not in COMBINES:
        raise ModelFormatError(f"'combine' must be one of {', '.join(COMBINES)} (how the "
                               f"trees' leaves combine into a class), got {combine!r}")
    precision = doc.get("precision", "float64")
    if precision not in PRECISIONS:
        raise ModelFormatError(f"'precision' must be one of {', '.join(PRECISIONS)} (the "
                               f"type the scores are summed in), got {precision!r}")
    base = doc.get("base")
    if base is not None:
        base = [_number(b, f"base[{i}]") for i, b in enumerate(_list(base, "base"))]
    divisor = _number(doc.get("divisor", 1.0), "'divisor'")
    threshold = _number(doc.get("threshold", 0.0), "'threshold'")
    source = doc.get("source")
    if source is not None and not isinstance(source, Mapping):
        raise ModelFormatError(f"'source' must be a JSON object (library, version, model "
                               f"class), got {source!r}")
    space = FeatureSpace(features)
    trees = []
    for t, root in enumerate(_list(doc["trees"], "trees")):
        where = f"trees[{t}]"
        try:
            trees.append(DecisionTree(space, doc["classes"],
                                      _node_from_dict(root, values=True),
                                      target=target, input_dtype=input_dtype))
        except InvalidModelError as e:
            message = str(e)[len(e.where) + 2:] if e.where else str(e)
            raise type(e)(message, f"{where} > {e.where}" if e.where else where) from None
    return TreeEnsemble(space, doc["classes"], trees, combine, base=base,
                        precision=precision, divisor=divisor, threshold=threshold,
                        target=target, input_dtype=input_dtype, source=source,
                        constraints=constraints)


def _list(value, where: str) -> list:
    if not isinstance(value, list):
        raise ModelFormatError(f"{where} must be a JSON list, got {value!r}")
    return value


def _rule_from_dict(d, where: str) -> tuple[list[Condition], object]:
    if not isinstance(d, Mapping) or set(d) != {"if", "then"}:
        extra = sorted(set(d) - {"if", "then"}) if isinstance(d, Mapping) else []
        missing = sorted({"if", "then"} - set(d)) if isinstance(d, Mapping) else []
        why = (f"unknown field(s) {extra}" if extra else
               f"no {' or '.join(map(repr, missing))}" if missing else f"got {d!r}")
        raise InvalidModelError(
            f"a rule of a decision list is {{\"if\": [<condition>, ...], \"then\": class}}; "
            f"{why}", where)
    return ([_condition_from_dict(c, f"{where}.if[{q}]")
             for q, c in enumerate(_list(d["if"], f"{where}.if"))], d["then"])


def _condition_from_dict(d, where: str) -> Condition:
    if not isinstance(d, Mapping) or "feature" not in d:
        raise InvalidModelError(
            f"a condition is {{\"feature\": f, \"in\": [values]}} or {{\"feature\": f, "
            f"\"gt\": a, \"le\": b}} (either bound may be left out), got {d!r}", where)
    keys = set(d) - {"feature"}
    if keys == {"in"}:
        if not isinstance(d["in"], list):
            raise InvalidModelError(f"'in' must be a list of values, got {d['in']!r}", where)
        return Condition(d["feature"], tuple(d["in"]))
    if keys and keys <= {"gt", "le"}:
        return Condition(d["feature"], above=d.get("gt"), upto=d.get("le"))
    raise InvalidModelError(
        f"unrecognised condition fields {sorted(keys)}; use 'in' (categorical/binary) or "
        "'gt' and/or 'le' (ordinal)", where)


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


def _leaf_value(v, where: str) -> tuple:
    """The ``value`` of an ensemble's leaf: a list of numbers, kept as read (an integer
    stays an integer, so the file round trip is exact)."""
    if not isinstance(v, list) or not v or any(
            isinstance(x, bool) or not isinstance(x, int | float) for x in v):
        raise InvalidModelError(f"a leaf's 'value' must be a non-empty list of numbers (what "
                                f"the leaf adds to the scores), got {v!r}", where)
    return tuple(v)


def _node_from_dict(d, values: bool = False) -> Node:
    """The tree whose root node is the JSON object ``d``; ``values``: leaves may carry
    ``value`` (ensembles).

    Built with an explicit stack, so a tree of any depth loads in time and memory linear
    in its size: a node's place in the error messages (``root > x <= 1.5 > ...``) is kept
    as a chain of (parent's place, step) tuples and written out only for an error
    (:func:`xdt.ir._tree._where`). Nodes are checked in document order (a node, then its
    first child's subtree, ...), so the first error met is the one recursion would meet."""
    built: list[Node] = []
    # work: ("node", json, place) to check and build; ("split", json) to assemble a split
    # from its children on top of ``built``; ("branch", json, k, place) to check branch k
    work: list[tuple] = [("node", d, None)]
    while work:
        item = work.pop()
        if item[0] == "split":
            node = item[1]
            if "threshold" in node:
                right, left = built.pop(), built.pop()
                built.append(ThresholdSplit(node["feature"], node["threshold"], left, right))
            else:
                n = len(node["branches"])
                kids = built[len(built) - n:]
                del built[len(built) - n:]
                built.append(CategoricalSplit(node["feature"], tuple(
                    Branch(tuple(b["in"]), kid)
                    for b, kid in zip(node["branches"], kids, strict=True))))
            continue
        if item[0] == "branch":
            _, node, k, chain = item
            b = node["branches"][k]
            if not isinstance(b, Mapping) or set(b) != {"in", "node"} \
                    or not isinstance(b["in"], list):
                raise InvalidModelError(
                    f"branch {k} must be {{\"in\": [values], \"node\": ...}}, got {b!r}",
                    _where(chain))
            work.append(("node", b["node"], (chain, node["feature"], "in", b["in"])))
            continue
        _, node, chain = item
        if not isinstance(node, Mapping):
            raise InvalidModelError(f"a node must be a JSON object, got {node!r}", _where(chain))
        keys = set(node)
        if keys == {"class"}:
            built.append(Leaf(node["class"]))
        elif values and keys == {"class", "value"}:
            built.append(Leaf(node["class"], _leaf_value(node["value"], _where(chain))))
        elif keys == {"feature", "threshold", "left", "right"}:
            f, t = node["feature"], node["threshold"]
            work.append(("split", node))
            work.append(("node", node["right"], (chain, f, ">", t)))
            work.append(("node", node["left"], (chain, f, "<=", t)))
        elif keys == {"feature", "branches"}:
            if not isinstance(node["branches"], list):
                raise InvalidModelError("'branches' must be a list", _where(chain))
            work.append(("split", node))
            work.extend(("branch", node, k, chain)
                        for k in range(len(node["branches"]) - 1, -1, -1))
        else:
            leaf = ("{\"class\": c, \"value\": [numbers]}" if values else "{\"class\": c}")
            raise InvalidModelError(
                f"unrecognised node with fields {sorted(keys)}; a node is a leaf {leaf}, "
                "a numeric split {\"feature\", \"threshold\", \"left\", \"right\"} or a "
                "categorical split {\"feature\", \"branches\"}", _where(chain))
    return built[0]


def model_to_dict(model: Model) -> dict:
    """The ``xdt-model/1`` JSON object of a model (inverse of :func:`model_from_dict`)."""
    if not isinstance(model, DecisionTree | DNF | DecisionList | TreeEnsemble):
        raise UnsupportedModelError(
            f"cannot save a {type(model).__name__}; xdt saves DecisionTree, DNF, "
            "NestedKDNF, DecisionList and TreeEnsemble models")
    out: dict = {"format": FORMAT, "kind": model.kind,
                 "features": [f.to_dict() for f in model.features],
                 "classes": list(model.classes)}
    if model.target is not None:
        out["target"] = model.target
    if model.constraints:
        out["constraints"] = model.constraints.to_list()
    if isinstance(model, NestedKDNF):
        out["k"] = model.k
        out["matrix"] = [[c.to_dict() for c in row] for row in model.matrix]
        out["terms"] = [list(r) for r in model.prefixes]
    elif isinstance(model, DNF):
        out["terms"] = [[c.to_dict() for c in term] for term in model.conditions]
    elif isinstance(model, DecisionList):
        out["rules"] = [{"if": [c.to_dict() for c in rule.conditions], "then": rule.label}
                        for rule in model.rules()]
        out["default"] = model.default
    elif isinstance(model, TreeEnsemble):
        _ensemble_to_dict(model, out)
    else:
        if model.input_dtype != "float64":
            out["input_dtype"] = model.input_dtype
        out["root"] = _node_to_dict(model.root)
    return out


def _same_float(a: float, b: float) -> bool:
    """``a`` and ``b`` are the same float, bit for bit (``-0.0`` is not ``0.0``)."""
    return repr(float(a)) == repr(float(b))


def _ensemble_to_dict(model: TreeEnsemble, out: dict) -> None:
    """The ensemble's fields into ``out``; optional fields at their defaults are left out
    (as ``load_model`` reads an absent field)."""
    if model.input_dtype != "float64":
        out["input_dtype"] = model.input_dtype
    out["combine"] = model.combine
    if model.precision != "float64":
        out["precision"] = model.precision
    if model.combine == "margin" and any(not _same_float(b, 0.0) for b in model.base):
        out["base"] = list(model.base)
    if not _same_float(model.divisor, 1.0):
        out["divisor"] = model.divisor
    if not _same_float(model.threshold, 0.0):
        out["threshold"] = model.threshold
    if model.source:
        out["source"] = dict(model.source)
    out["trees"] = [_node_to_dict(tree.root) for tree in model.trees]


def _node_to_dict(root: Node) -> dict:
    """The JSON object of a subtree, built without recursion (learned trees can be deep)."""
    out: dict[int, dict] = {}
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        if isinstance(node, Leaf):
            out[id(node)] = {"class": node.label}
            if node.value is not None:
                out[id(node)]["value"] = [to_python(v) for v in node.value]
        elif not done:
            stack.append((node, True))
            children = ([node.left, node.right] if isinstance(node, ThresholdSplit)
                        else [b.node for b in node.branches])
            stack.extend((c, False) for c in children)
        elif isinstance(node, ThresholdSplit):
            out[id(node)] = {"feature": node.feature, "threshold": node.threshold,
                             "left": out.pop(id(node.left)), "right": out.pop(id(node.right))}
        else:
            out[id(node)] = {"feature": node.feature,
                             "branches": [{"in": list(b.values), "node": out.pop(id(b.node))}
                                          for b in node.branches]}
    return out[id(root)]


def save_model(model: Model, path) -> None:
    """Write ``model`` as an ``xdt-model/1`` JSON file at ``path`` (UTF-8, indented by one
    space per level; lines nested more than 100 levels down are indented as at level 100, so
    a tree of any depth is written in time and space linear in its size).

    The file is written to a temporary name in its folder and renamed into place once
    complete: on any failure the file that was at ``path`` is untouched.

    Raises
    ------
    UnsupportedModelError
        For a model kind that cannot be saved yet.
    OutputEncodingError
        A name or value of the model (e.g. a feature name holding a lone surrogate such as
        ``"\\ud800"``) cannot be written as UTF-8; the message shows it in its context.
    OutputError
        ``path`` cannot be written (missing folder, permission, full disk...).
    """
    text = dumps(model_to_dict(model), indent=1)  # json.dumps's text, at any depth
    write_text(path, text + "\n")
