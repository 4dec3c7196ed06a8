"""Import XGBoost classifiers into the IR (:class:`~xdt.ir.TreeEnsemble`, ``"margin"``).

The importer reads XGBoost's own JSON model (``Booster.save_raw("json")``, the format of
``save_model("m.json")``; a ``.ubj`` file is read by XGBoost itself first), never a pickle,
and checks each floating-point rule against the library:

* **Splits.** XGBoost casts inputs to float32 and goes left when ``float32(x) < t`` (``t`` a
  float32 ``split_condition``), that is when ``float32(x) <= p`` with ``p`` the largest
  float32 below ``t``. The IR tests ``x <= tau`` on float64 values with
  ``tau = float32_threshold(p)`` (the largest float64 that rounds to a float32 ``<= p``,
  :func:`xdt.interop._sklearn_tree.float32_threshold`), so ``x <= tau`` exactly when XGBoost goes
  left, for every float64 ``x``, including points on ``t`` and one float32 / float64 step
  either side. (``p`` itself as the threshold would send the float64 values between ``p``
  and the rounding midpoint the wrong way.) The ensemble has ``input_dtype="float32"``, and
  its rules show ``x <= d`` with ``d`` the shortest decimal between ``p`` and ``tau``.
* **Categorical splits** (``enable_categorical``): the categories listed for a node go right,
  every other category left (also one XGBoost has never seen). A feature's domain is the
  model's own category list (``cats``, a model fitted on pandas categoricals), else the codes
  ``0 .. c`` up to the largest code any split names.
* **Scores.** Every tree adds its leaf value to the margin of its class (``tree_info``), in
  float32, in tree order, from the base margin; the base margin (``base_score`` through the
  objective's link: the logit for ``binary:logistic``, per class for ``multi:softprob``) is
  read from XGBoost itself: the margin of the same model with every leaf set to 0.
* **Decision.** ``XGBClassifier.predict`` predicts class 1 when the float32 probability is
  ``> 0.5``. The importer finds, by bisection over float32 values with XGBoost's own
  ``predict`` (``base_margin`` on the model with zero leaves), the largest float32 margin
  predicted 0 and makes it the ensemble's ``threshold`` (``score > threshold``).
  Multi-class: ``multi:softmax`` predicts the first largest margin, as the IR does;
  ``multi:softprob`` the first largest *probability* (softmax in float32). The two agree
  except when the two largest margins of a point are so close that their float32
  probabilities round equal, which needs them less than ``2**-22`` (about ``2.4e-7``) apart
  (``tests/test_import_xgboost.py`` probes it with the library): XGBoost then predicts the
  first of the two classes, the IR the one with the larger margin. Explanations are of the
  argmax of the margins; ``verify=True`` re-checks certificates with XGBoost's own rule
  (``reference``), so such a point cannot pass unnoticed.

Missing values (NaN, routed by ``default_left``) are not part of the IR: explaining a point
with a missing value raises :class:`~xdt.errors.MissingValueError`.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import re
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import numpy as np

from xdt.errors import DataError, MissingFileError, UnsupportedModelError
from xdt.interop._sklearn_tree import float32_threshold
from xdt.interop._tree_walk import build_tree
from xdt.interop._xgboost_check import check_document, loadable, read_document
from xdt.ir._ensemble import Reference, TreeEnsemble, margin_leaf
from xdt.ir._features import Feature, FeatureSpace
from xdt.ir._file_size import read_model_file
from xdt.ir._tree import Branch, CategoricalSplit, DecisionTree, Node, ThresholdSplit
from xdt.ir._values import float32_below

BINARY_OBJECTIVES = ("binary:logistic", "binary:logitraw", "binary:hinge")
MULTI_OBJECTIVES = ("multi:softprob", "multi:softmax")


def _xgboost():
    try:
        import xgboost
    except ImportError:
        raise UnsupportedModelError(
            "importing an XGBoost model needs the xgboost package; install xdt's extra: "
            "pip install 'xdt[xgboost]'") from None
    return xgboost


@contextlib.contextmanager
def _refused(xgb, source: str) -> Iterator[None]:
    """Turn an error of XGBoost reading or running the model of ``source`` into the
    :class:`UnsupportedModelError` that gives XGBoost's reason (its first line, without
    the C++ file and line)."""
    try:
        yield
    except xgb.core.XGBoostError as e:
        reason = re.sub(r"^\[[^\]]*\]\s*\S+:\d+:\s*", "", str(e).splitlines()[0])
        raise UnsupportedModelError(
            f"{source}: XGBoost cannot read it as a model file ({reason}); save the model "
            "with save_model('model.json')") from None


def _booster(model_or_path, named: int = 0, max_bytes: int | None = None):
    """The Booster of an XGBClassifier, a Booster, or a model file (JSON or UBJ), and what
    to call it; a file is read and checked (:mod:`xdt.interop._xgboost_check`) before
    XGBoost reads it."""
    xgb = _xgboost()
    if isinstance(model_or_path, str | os.PathLike):
        path = Path(model_or_path)
        if not path.is_file() and not path.is_dir():
            raise MissingFileError(f"no XGBoost model file at {str(path)!r}", path=str(path))
        data = read_model_file(path, "XGBoost model", max_bytes)
        doc = read_document(data, str(path), max_bytes)
        check_document(doc, str(path), len(data), named)
        booster = xgb.Booster()
        with _refused(xgb, str(path)):
            booster.load_model(loadable(doc))
        return booster, "Booster", str(path)
    if isinstance(model_or_path, xgb.Booster):
        return model_or_path, "Booster", "the model"
    if isinstance(model_or_path, xgb.XGBModel):
        if not isinstance(model_or_path, xgb.XGBClassifier):
            raise UnsupportedModelError(
                f"{type(model_or_path).__name__} is not a classifier; xdt imports "
                "XGBClassifier models (binary or multi-class)")
        try:
            return model_or_path.get_booster(), type(model_or_path).__name__, "the model"
        except xgb.core.XGBoostError:
            raise UnsupportedModelError("the XGBClassifier is not fitted; fit it first") \
                from None
    raise UnsupportedModelError(
        f"from_xgboost takes an XGBClassifier, a Booster or the path of a model file saved "
        f"by XGBoost, got {type(model_or_path).__name__}")


def _decode_cats(cats: dict | None, n_features: int) -> list[tuple | None]:
    """Per feature, the category values XGBoost recorded (pandas categoricals), or None."""
    out: list[tuple | None] = [None] * n_features
    if not cats or not cats.get("enc"):
        return out
    for f, enc in enumerate(cats["enc"][:n_features]):
        values = enc.get("values") or []
        offsets = enc.get("offsets") or []
        if not values:
            continue
        if offsets and len(offsets) > 1 and offsets[-1] == len(values) \
                and all(isinstance(v, int) for v in values):
            raw = bytes(values)   # strings: UTF-8 bytes cut at the offsets
            out[f] = tuple(raw[a:b].decode("utf-8") for a, b in zip(offsets, offsets[1:],
                                                                     strict=False))
        else:
            out[f] = tuple(v.item() if isinstance(v, np.generic) else v for v in values)
    return out


def _trees_json(doc: dict) -> tuple[dict, list[dict], list[int]]:
    learner = doc["learner"]
    booster = learner["gradient_booster"]
    if booster.get("name") != "gbtree":
        raise UnsupportedModelError(
            f"the booster is {booster.get('name')!r}; xdt imports tree boosters (gbtree), not "
            "gblinear or dart (whose trees carry weights)")
    model = booster["model"]
    return model, model["trees"], [int(k) for k in model["tree_info"]]


def from_xgboost(model_or_path, feature_names: Sequence[str] | None = None, *,
                 classes: Sequence | None = None, target: str | None = None,
                 max_bytes: int | None = None) -> TreeEnsemble:
    """A :class:`~xdt.ir.TreeEnsemble` (``"margin"``, float32) from an XGBoost model.

    Parameters
    ----------
    model_or_path : xgboost.XGBClassifier, xgboost.Booster, str or os.PathLike
        A fitted classifier or booster, or the path of a file written by its ``save_model``
        (JSON, or UBJ). Objectives: ``binary:logistic``, ``binary:logitraw``,
        ``binary:hinge``, ``multi:softprob``, ``multi:softmax``.
    feature_names : sequence of str, optional
        Names of the model's input columns, in order; default the names stored in the
        model, else ``f0, f1, ...``.
    classes : sequence of str or int, optional
        The class labels, in the order of XGBoost's class indices (XGBoost keeps no labels:
        its classes are ``0 .. k-1``); default those integers.
    target : str, optional
        Name of the predicted variable.
    max_bytes : int, optional
        The largest model file read, in bytes, checked before it is read: default 512 MiB,
        or the environment variable ``XDT_MAX_MODEL_BYTES`` (:mod:`xdt.ir._file_size`).

    Returns
    -------
    TreeEnsemble
        ``combine="margin"``, ``precision="float32"``, ``input_dtype="float32"``; one score
        for a binary model, one per class otherwise. ``reference`` is XGBoost's own
        prediction (``XGBClassifier.predict``'s rule on ``Booster.predict``) of rows in
        feature order, mapped to ``classes``; ``source`` names the library, its version, the
        model class and objective.

    Raises
    ------
    UnsupportedModelError
        xgboost is not installed; the model is a regressor, ranker, survival or multi-output
        model, a gblinear or dart booster, or unreadable.
    ModelFormatError
        The file (or model) breaks XGBoost's format: a child index out of range or reached
        twice, a feature index past ``num_feature``, a threshold that is not a finite
        float32, ``tree_info`` naming a class the model lacks, categories past their lists,
        more features than the file can describe. xdt checks these before XGBoost reads the
        file (its reader can crash the process on them); the message names the tree and
        node. A :class:`~xdt.errors.ModelSizeError` for a file over ``max_bytes``.
    DataError
        ``feature_names`` or ``classes`` of the wrong length, or repeated.
    MissingFileError
        (a ``FileNotFoundError``) No file at the path.
    """
    xgb = _xgboost()
    named = len(feature_names) if feature_names is not None else 0
    booster, kind, source = _booster(model_or_path, named, max_bytes)
    with _refused(xgb, source):  # XGBoost checks base_score only when it saves or predicts
        raw = bytes(booster.save_raw("json"))
    doc = json.loads(raw)
    check_document(doc, source, len(raw), named)
    learner = doc["learner"]
    objective = learner["objective"]["name"]
    params = learner["learner_model_param"]
    n_targets = int(params.get("num_target", "1") or 1)
    if n_targets > 1:
        raise UnsupportedModelError(
            f"the model has {n_targets} targets; xdt imports single-output classifiers")
    if objective not in BINARY_OBJECTIVES + MULTI_OBJECTIVES:
        raise UnsupportedModelError(
            f"objective {objective!r} is not a classification objective xdt imports; use "
            f"one of {', '.join(BINARY_OBJECTIVES + MULTI_OBJECTIVES)}")
    model, trees_doc, tree_info = _trees_json(doc)
    n_class = int(params.get("num_class", "0") or 0)
    n_classes = 2 if objective in BINARY_OBJECTIVES else n_class
    n_features = int(params["num_feature"])
    stored = list(learner.get("feature_names") or [])
    names = list(feature_names) if feature_names is not None else (
        stored or [f"f{j}" for j in range(n_features)])
    if len(names) != n_features or len(set(names)) != len(names):
        raise DataError(f"the model has {n_features} input columns; give as many distinct "
                        f"feature names, got {names}")
    if classes is None:
        classes = list(range(n_classes))
    classes = [c.item() if isinstance(c, np.generic) else c for c in classes]
    if len(classes) != n_classes or len(set(classes)) != n_classes:
        raise DataError(f"the model has {n_classes} classes; give as many distinct class "
                        f"labels, in the order of XGBoost's class indices, got {classes}")
    types = list(learner.get("feature_types") or ["float"] * n_features)
    domains = _categorical_domains(trees_doc, types, _decode_cats(model.get("cats"), n_features))
    features = FeatureSpace([
        Feature(n, "categorical", domains[j]) if domains[j] is not None else Feature(n, "ordinal")
        for j, n in enumerate(names)])
    n_scores = 1 if n_classes == 2 else n_classes
    trees = [DecisionTree(features, classes,
                          _tree(t, i, features, classes, n_scores, tree_info[i]),
                          target=target, input_dtype="float32")
             for i, t in enumerate(trees_doc)]
    if not trees:
        raise UnsupportedModelError("the model has no trees; train it for at least one round")
    probe = _probe_row(features)
    dmatrix = _dmatrix_maker(xgb, features, stored or None)
    with _refused(xgb, source):
        zero = _zero_leaves(xgb, doc)
        base = zero.predict(dmatrix(probe), output_margin=True).astype(np.float32).reshape(-1)
        threshold = _binary_threshold(zero, dmatrix, probe) if n_scores == 1 else 0.0
    source = {"library": "xgboost", "version": xgb.__version__, "model": kind,
              "objective": objective}
    return TreeEnsemble(features, classes, trees, "margin",
                        base=[float(b) for b in base[:n_scores]], precision="float32",
                        threshold=threshold, target=target, input_dtype="float32",
                        source=source,
                        reference=Reference(_reference, booster, features,
                                            stored or None, classes, objective))


def _categorical_domains(trees_doc: list[dict], types: list[str],
                         cats: list[tuple | None]) -> list[tuple | None]:
    """Per feature, its domain (categorical features, ``feature_types`` ``"c"``) or None."""
    largest: dict[int, int] = {}
    for t in trees_doc:
        segments, sizes, cat_nodes = (t.get("categories_segments", []),
                                      t.get("categories_sizes", []),
                                      t.get("categories_nodes", []))
        values = t.get("categories", [])
        for node, start, size in zip(cat_nodes, segments, sizes, strict=False):
            f = t["split_indices"][node]
            for c in values[start:start + size]:
                largest[f] = max(largest.get(f, 0), int(c))
    out: list[tuple | None] = []
    for j, kind in enumerate(types):
        if kind != "c":
            out.append(None)
        elif cats[j] is not None:
            out.append(cats[j])
        else:
            out.append(tuple(range(largest.get(j, 0) + 1)) if largest.get(j, 0) > 0
                       else (0, 1))
    return out


def _tree(t: dict, index: int, features: FeatureSpace, classes: list, n_scores: int,
          group: int) -> Node:
    """The IR root of one XGBoost tree (its JSON arrays, checked by
    :func:`~xdt.interop._xgboost_check.check_document`), built without recursion."""
    left, right = t["left_children"], t["right_children"]
    feat, cond, stype = t["split_indices"], t["split_conditions"], t.get("split_type")
    cat_sets: dict[int, set] = {}
    for node, start, size in zip(t.get("categories_nodes", []), t.get("categories_segments", []),
                                 t.get("categories_sizes", []), strict=False):
        cat_sets[node] = {int(c) for c in t["categories"][start:start + size]}
    # a categorical split with every category on one side is no split: its one child
    passes: dict[int, int] = {}

    def children(i: int) -> tuple[int, ...]:
        if left[i] == -1:
            return ()
        f = features[int(feat[i])]
        if stype is not None and stype[i] == 1:
            if f.is_ordinal:
                raise UnsupportedModelError(
                    f"node {i} of tree {index} splits {f.name!r} by categories, but "
                    "the model does not declare it categorical")
            codes = cat_sets.get(i, set())
            goes_right = [k in codes for k in range(len(f.domain))]
            if all(goes_right) or not any(goes_right):
                passes[i] = right[i] if all(goes_right) else left[i]
                return (passes[i],)
        elif not f.is_ordinal:
            raise UnsupportedModelError(
                f"node {i} of tree {index} compares categorical feature {f.name!r} "
                "with a threshold")
        return (left[i], right[i])

    def make(i: int, kids: list[Node]) -> Node:
        if left[i] == -1:
            return margin_leaf(classes, n_scores, group, float(np.float32(cond[i])))
        if i in passes:
            return kids[0]
        f = features[int(feat[i])]
        if stype is not None and stype[i] == 1:
            codes = cat_sets.get(i, set())
            right_values = tuple(v for k, v in enumerate(f.domain) if k in codes)
            left_values = tuple(v for k, v in enumerate(f.domain) if k not in codes)
            return CategoricalSplit(f.name, (Branch(left_values, kids[0]),
                                             Branch(right_values, kids[1])))
        tau = float32_threshold(float32_below(np.nextafter(np.float32(cond[i]),
                                                           np.float32(-np.inf))))
        return ThresholdSplit(f.name, tau, kids[0], kids[1])

    return build_tree(0, children, make)


def _zero_leaves(xgb, doc: dict):
    """The same model with every leaf value 0: its margin is the base margin."""
    zero = copy.deepcopy(doc)
    for t in zero["learner"]["gradient_booster"]["model"]["trees"]:
        for i, child in enumerate(t["left_children"]):
            if child == -1:
                t["split_conditions"][i] = 0.0
                t["base_weights"][i] = 0.0
    booster = xgb.Booster()
    booster.load_model(bytearray(json.dumps(zero).encode("utf-8")))
    return booster


def _probe_row(features: FeatureSpace) -> np.ndarray:
    return np.array([[f.domain[0] if not f.is_ordinal else 0.0 for f in features]],
                    dtype=object)


def _dmatrix_maker(xgb, features: FeatureSpace, names: list[str] | None) -> Callable:
    """Rows in feature order (categorical features: domain values) -> a DMatrix whose
    columns have the names stored in the model (``names``; XGBoost checks them), not the
    names given to the import."""
    import pandas as pd

    categorical = [not f.is_ordinal for f in features]
    columns = names if names is not None else [f"f{j}" for j in range(len(features))]

    def make(rows, base_margin=None):
        rows = np.asarray(rows, dtype=object).reshape(-1, len(features))
        if any(categorical):
            frame = pd.DataFrame({
                columns[j]: (pd.Categorical(rows[:, j], categories=list(f.domain))
                             if categorical[j] else rows[:, j].astype(np.float64))
                for j, f in enumerate(features)})
            return xgb.DMatrix(frame, enable_categorical=True, base_margin=base_margin)
        return xgb.DMatrix(rows.astype(np.float64), feature_names=names,
                           base_margin=base_margin)

    return make


def _from_keys(keys) -> np.ndarray:
    """float32 values from their order keys (the inverse of :func:`_key`)."""
    keys = np.asarray(keys, dtype=np.int64)
    bits = np.where(keys >= 0, keys, 0x80000000 | (-keys - 1)).astype(np.uint32)
    return bits.view(np.float32)


def _key(v: float) -> int:
    """The order key of a float32: ``a < b`` exactly when ``key(a) < key(b)`` (``-0.0`` just
    below ``+0.0``)."""
    b = int(np.array(v, dtype=np.float32).view(np.uint32))
    return b if b < 0x80000000 else -(b - 0x80000000) - 1


def _binary_threshold(zero, dmatrix: Callable, probe: np.ndarray) -> float:
    """The largest float32 margin that XGBoost's binary rule (``predict > 0.5``, as
    ``XGBClassifier.predict``) sends to class 0, found by bisection over float32 values with
    the library's own ``predict``: on the model with zero leaves, the margin of a row is the
    ``base_margin`` it is given (checked here)."""
    def class_1(keys: np.ndarray) -> np.ndarray:
        margins = _from_keys(keys)
        dm = dmatrix(np.repeat(probe, len(keys), axis=0), base_margin=margins)
        if not np.array_equal(zero.predict(dm, output_margin=True).astype(np.float32),
                              margins.astype(np.float32) + np.float32(0.0)):
            raise UnsupportedModelError(  # pragma: no cover - an XGBoost that sums otherwise
                "this XGBoost does not add base_margin to the trees as xdt expects; xdt "
                "cannot find its decision threshold")
        return zero.predict(dm) > 0.5

    lo, hi = _key(np.float32(-4.0)), _key(np.float32(4.0))
    ends = class_1(np.array([lo, hi]))
    if ends[0] or not ends[1]:
        raise UnsupportedModelError(  # pragma: no cover - every binary objective has one
            "the model's predictions do not turn from class 0 to class 1 between margins -4 "
            "and 4; xdt cannot find its decision threshold")
    while hi - lo > 1:   # class 0 at lo, class 1 at hi
        keys = np.unique(np.linspace(lo, hi, 66).astype(np.int64))
        ones = class_1(keys)
        first = int(np.argmax(ones))
        lo, hi = int(keys[first - 1]), int(keys[first])
    return float(_from_keys([lo])[0])


def _reference(booster, features: FeatureSpace, names: list[str] | None, classes: list,
               objective: str) -> Callable:
    labels = np.asarray(classes, dtype=object)
    integer = all(isinstance(c, int) for c in classes)
    dmatrix = _dmatrix_maker(_xgboost(), features, names)

    def predict(X) -> np.ndarray:
        out = booster.predict(dmatrix(X))
        if out.ndim > 1:
            index = np.argmax(out, axis=1)
        elif objective == "multi:softmax":
            index = out.astype(np.int64)
        else:
            index = (out > 0.5).astype(np.int64)
        result = labels[index]
        return result.astype(np.int64) if integer else result

    return predict
