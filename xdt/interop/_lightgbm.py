"""Import LightGBM classifiers into the IR (:class:`~xdt.ir.TreeEnsemble`, ``"margin"``).

The importer reads LightGBM's own JSON dump (``Booster.dump_model()``; a text model file
written by ``save_model`` is read by LightGBM itself first), never a pickle, and checks each
floating-point rule against the library:

* **Splits.** LightGBM predicts on float64 values and goes left when ``x <= t`` with ``t`` a
  float64 (``decision_type "<="``): the IR's test, unchanged (``input_dtype="float64"``),
  except that LightGBM reads every ``|x| <= 1e-35`` as ``0.0`` first, so a threshold in
  ``[-1e-35, 1e-35)`` (LightGBM writes ``-1e-35`` for a split between the negative values
  and zero) becomes ``1e-35`` when ``0.0`` goes left and the float64 just below ``-1e-35``
  when it goes right.
  Missing values: ``missing_type "None"`` reads NaN as 0 and ``"NaN"`` sends NaN the default
  way; neither changes a number, and the IR refuses NaN when explaining. ``missing_type
  "Zero"`` sends every ``|x| <= 1e-35`` (float32's ``1e-35``) the default way: the import
  refuses it (:class:`~xdt.errors.UnsupportedModelError`) unless the threshold already sends
  all of them that way.
* **Categorical splits** (``decision_type "=="``, ``cat_threshold`` bitsets, dumped as
  ``"1||2"``): the listed categories go left, all others right (also unseen ones). The
  domain is the model's ``pandas_categorical`` list (a model fitted on pandas categoricals),
  else the integer codes LightGBM saw (``feature_infos``) and the splits name.
* **Scores.** Each tree adds its leaf value to the raw score of its class (tree ``i`` to
  class ``i % num_tree_per_iteration``) in float64, in tree order, from 0: the initial score
  (``boost_from_average``) is already folded into the first trees' leaves. Only the trees
  LightGBM predicts with are imported (``best_iteration`` when the model has one).
* **Decision.** ``LGBMClassifier.predict`` takes the argmax of ``[1 - p, p]`` with
  ``p = 1 / (1 + exp(-sigmoid * score))``: class 1 exactly when ``p > 1 - p``. The importer
  finds the largest float64 score predicted 0 by bisection with LightGBM's own ``predict``
  (on one-leaf models holding the score) and makes it the ensemble's ``threshold``.
  Multi-class (``multiclass``): the argmax of the softmax probabilities, which agrees with
  the argmax of the scores (the IR's rule) except when the two largest scores are less than
  ``2**-51`` apart, a few float64 steps (their probabilities round equal and LightGBM
  predicts the first; ``tests/test_import_lightgbm.py`` probes it with the library).
  ``verify=True`` re-checks certificates with LightGBM's own ``predict``.

Refused with :class:`~xdt.errors.UnsupportedModelError`: regression, ranking and
cross-entropy objectives, ``multiclassova`` (its per-class sigmoids round to 1.0 together for
scores above about 37, where its argmax is no longer the scores'), random-forest mode
(``average_output``), linear trees, and ``missing_type "Zero"`` splits that send values near 0
against their threshold.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np

from xdt.errors import (
    DataError,
    MissingFileError,
    ModelFormatError,
    UnsupportedModelError,
    XdtError,
)
from xdt.interop._lightgbm_check import FIX, SAVE, check_text
from xdt.interop._model_checks import bounded_count, integer, number, parse_json
from xdt.interop._sklearn_tree import class_label
from xdt.interop._tree_walk import build_tree
from xdt.ir._ensemble import Reference, TreeEnsemble, margin_leaf
from xdt.ir._features import Feature, FeatureSpace
from xdt.ir._file_size import read_model_file
from xdt.ir._json_io import MAX_NESTING, _nesting
from xdt.ir._tree import Branch, CategoricalSplit, DecisionTree, Node, ThresholdSplit

DUMP = "a malformed LightGBM model dump"
"""How the messages about a dump's nodes begin."""

ZERO_THRESHOLD = float(np.float32(1e-35))
"""LightGBM's ``kZeroThreshold`` (``1e-35f``): ``|x|`` up to it counts as zero."""


def _lightgbm():
    try:
        import lightgbm
    except ImportError:
        raise UnsupportedModelError(
            "importing a LightGBM model needs the lightgbm package; install xdt's extra: "
            "pip install 'xdt[lightgbm]'") from None
    return lightgbm


def _dump(model_or_path, named: int = 0,
          max_bytes: int | None = None) -> tuple[dict, object | None, str]:
    """(JSON dump, Booster or None, model class) of an LGBMClassifier, a Booster, a text
    model file (checked by :func:`~xdt.interop._lightgbm_check.check_text` before LightGBM
    reads it) or a JSON dump file (or dict)."""
    lgb = _lightgbm()
    if isinstance(model_or_path, Mapping):
        return dict(model_or_path), None, "dump"
    if isinstance(model_or_path, str | os.PathLike):
        path = Path(model_or_path)
        if not path.is_file() and not path.is_dir():
            raise MissingFileError(f"no LightGBM model file at {str(path)!r}", path=str(path))
        text = read_model_file(path, "LightGBM model", max_bytes).decode(
            "utf-8", errors="replace")
        if text.lstrip().startswith("{"):
            return parse_json(text, str(path), "LightGBM", SAVE), None, "dump"
        check_text(text, str(path), named)
        try:
            booster = lgb.Booster(model_str=text)
        except (lgb.basic.LightGBMError, ValueError) as e:
            raise UnsupportedModelError(
                f"{path}: LightGBM cannot read it as a model file ({str(e).splitlines()[0]}); "
                f"{SAVE}") from None
        return booster.dump_model(), booster, "Booster"
    if isinstance(model_or_path, lgb.Booster):
        return model_or_path.dump_model(), model_or_path, "Booster"
    if isinstance(model_or_path, lgb.LGBMModel):
        if not isinstance(model_or_path, lgb.LGBMClassifier):
            raise UnsupportedModelError(
                f"{type(model_or_path).__name__} is not a classifier; xdt imports "
                "LGBMClassifier models (binary or multi-class)")
        if not getattr(model_or_path, "fitted_", False):
            raise UnsupportedModelError("the LGBMClassifier is not fitted; fit it first")
        booster = model_or_path.booster_
        return booster.dump_model(), booster, type(model_or_path).__name__
    raise UnsupportedModelError(
        f"from_lightgbm takes an LGBMClassifier, a Booster, the path of a model file saved "
        f"by LightGBM or of its JSON dump, got {type(model_or_path).__name__}")


def _objective(dump: dict) -> tuple[str, int, float]:
    """(objective name, number of classes, sigmoid parameter) of the dump."""
    words = str(dump.get("objective", "")).split()
    name = words[0] if words else ""
    opts = dict(w.split(":", 1) for w in words[1:] if ":" in w)
    if name == "binary":
        return name, 2, float(opts.get("sigmoid", 1.0))
    if name == "multiclass":
        return name, int(opts.get("num_class", dump.get("num_class", 0))), 1.0
    if name == "multiclassova":
        raise UnsupportedModelError(
            "objective 'multiclassova' is not imported: its prediction is the argmax of "
            "per-class sigmoids, which round to 1.0 together for scores above about 37, so it "
            "is not the argmax of the scores; train with objective='multiclass'")
    raise UnsupportedModelError(
        f"objective {name or dump.get('objective')!r} is not a classification objective xdt "
        "imports; use 'binary' or 'multiclass'")


def from_lightgbm(model_or_path, feature_names: Sequence[str] | None = None, *,
                  classes: Sequence | None = None, target: str | None = None,
                  max_bytes: int | None = None) -> TreeEnsemble:
    """A :class:`~xdt.ir.TreeEnsemble` (``"margin"``, float64) from a LightGBM model.

    Parameters
    ----------
    model_or_path : lightgbm.LGBMClassifier, lightgbm.Booster, dict, str or os.PathLike
        A fitted classifier or booster, the path of its text model file (``save_model``) or
        of its JSON dump (``json.dump(booster.dump_model(), f)``), or that dump as a dict.
        Objectives ``binary`` and ``multiclass``.
    feature_names : sequence of str, optional
        Names of the input columns, in order; default the names in the model.
    classes : sequence of str or int, optional
        The class labels in the order of LightGBM's class indices; default the classifier's
        ``classes_``, else ``0 .. k-1`` (a booster or file keeps no labels).
    target : str, optional
        Name of the predicted variable.
    max_bytes : int, optional
        The largest model file read, in bytes, checked before it is read: default 512 MiB,
        or the environment variable ``XDT_MAX_MODEL_BYTES`` (:mod:`xdt.ir._file_size`).

    Returns
    -------
    TreeEnsemble
        ``combine="margin"``, ``precision="float64"``; one score for a binary model, one per
        class otherwise; ``threshold`` LightGBM's own tie rule. ``reference`` is LightGBM's
        prediction of rows in feature order (not set for a JSON dump, which LightGBM cannot
        load); ``source`` names the library, version, model class and objective.

    Raises
    ------
    UnsupportedModelError
        lightgbm is not installed; an objective, mode or split xdt cannot represent (see
        the module docstring).
    ModelFormatError
        The text model or dump breaks LightGBM's format: a child out of range or reached
        twice, a ``split_feature`` past the feature count, a threshold or leaf value that is
        not a finite number, a list that does not match ``num_leaves``, categories past
        their lists, more features than the file can describe. xdt checks a text model
        before LightGBM reads it (its reader can end the process on them); the message
        names the tree and node. A :class:`~xdt.errors.ModelSizeError` for a file over
        ``max_bytes``. (A dump's broken nodes are an ``UnsupportedModelError``, "a
        malformed LightGBM model dump: tree t, split s: ...", as they always were.)
    DataError
        ``feature_names`` or ``classes`` of the wrong length, or repeated.
    MissingFileError
        (a ``FileNotFoundError``) No file at the path.
    """
    lgb = _lightgbm()
    named = len(feature_names) if feature_names is not None else 0
    dump, booster, kind = _dump(model_or_path, named, max_bytes)
    if not isinstance(dump, Mapping):
        raise UnsupportedModelError(
            f"not a LightGBM model dump: a JSON {type(dump).__name__}, not an object; {SAVE}")
    if not isinstance(dump.get("tree_info"), list) or "objective" not in dump:
        hint = (" (it is an XGBoost model: import it with from_xgboost)" if "learner" in dump
                else "")
        raise UnsupportedModelError(
            f"not a LightGBM model dump: it has no 'tree_info' and 'objective'{hint}; pass "
            "booster.dump_model() or the file written by save_model")
    objective, n_classes, sigmoid = _objective(dump)
    if dump.get("average_output"):
        raise UnsupportedModelError(
            "the model averages its trees (boosting='rf'); xdt imports gradient-boosted "
            "LightGBM models (gbdt, goss)")
    if classes is None:
        fitted = getattr(model_or_path, "classes_", None)
        classes = list(fitted) if fitted is not None else list(range(n_classes))
    classes = [class_label(c) for c in classes]
    if len(classes) != n_classes or len(set(classes)) != n_classes:
        raise DataError(f"the model has {n_classes} classes; give as many distinct class "
                        f"labels, in the order of LightGBM's class indices, got {classes}")
    stored = list(dump.get("feature_names") or [])
    n_features = integer(dump.get("max_feature_idx", len(stored) - 1), DUMP, "",
                         "max_feature_idx", 0) + 1
    bounded_count(n_features, max(len(stored), named), _size(dump), DUMP,
                  "the feature count (max_feature_idx + 1)",
                  "pass the features' names (feature_names=...) if the model has that many")
    names = list(feature_names) if feature_names is not None else (
        stored or [f"Column_{j}" for j in range(n_features)])
    if len(names) != n_features or len(set(names)) != len(names):
        raise DataError(f"the model has {n_features} input columns; give as many distinct "
                        f"feature names, got {names}")
    trees_doc = dump["tree_info"]
    if not trees_doc:
        raise UnsupportedModelError("the model has no trees; train it for at least one round")
    try:
        domains = _domains(dump, trees_doc, n_features)
        features = FeatureSpace([
            Feature(n, "categorical", domains[j]) if domains[j] is not None
            else Feature(n, "ordinal") for j, n in enumerate(names)])
        n_scores = 1 if n_classes == 2 else n_classes
        per_iteration = int(dump.get("num_tree_per_iteration", n_scores))
        trees = [DecisionTree(features, classes,
                              _tree(t["tree_structure"], features, classes, n_scores,
                                    i % per_iteration, i),
                              target=target)
                 for i, t in enumerate(trees_doc)]
    except ModelFormatError as e:   # a node breaks the format: named in the message
        raise UnsupportedModelError(str(e)) from None
    except (KeyError, TypeError, ValueError, IndexError, AttributeError,
            OverflowError) as e:
        if isinstance(e, XdtError):
            raise
        raise UnsupportedModelError(
            f"a malformed LightGBM model dump ({type(e).__name__}: {e}); pass "
            "booster.dump_model() or the file written by save_model, unedited") from None
    threshold = _binary_threshold(lgb, dump["objective"]) if n_scores == 1 else 0.0
    source = {"library": "lightgbm", "version": lgb.__version__, "model": kind,
              "objective": objective}
    if n_scores == 1 and sigmoid != 1.0:
        source["sigmoid"] = sigmoid
    reference = (Reference(_reference, booster, features, classes) if booster is not None
                 else None)
    return TreeEnsemble(features, classes, trees, "margin", precision="float64",
                        threshold=threshold, target=target, source=source,
                        reference=reference)


def _size(dump: Mapping) -> int:
    """The length in bytes of a dump as JSON (what it can describe)."""
    try:
        with _nesting(MAX_NESTING):
            return len(json.dumps(dump, default=str))
    except (TypeError, ValueError, RecursionError):
        return 0


def _domains(dump: dict, trees_doc: list[dict], n_features: int) -> list[tuple | None]:
    """Per feature: its domain when categorical, else None."""
    used: dict[int, set[int]] = {}
    stack = [t["tree_structure"] for t in trees_doc]
    while stack:
        node = stack.pop()
        if "split_feature" not in node:
            continue
        if node.get("decision_type") == "==":
            used.setdefault(int(node["split_feature"]), set()).update(
                _split_codes(node, f"tree structure, split {node.get('split_index')}"))
        stack += [node["left_child"], node["right_child"]]
    infos = dump.get("feature_infos") or {}
    stored = list(dump.get("feature_names") or [])
    pandas = list(dump.get("pandas_categorical") or [])
    out: list[tuple | None] = []
    k = 0
    for j in range(n_features):
        info = infos.get(stored[j]) if j < len(stored) else None
        seen = list(info.get("values") or []) if isinstance(info, Mapping) else []
        if not seen and j not in used:
            out.append(None)
            continue
        if k < len(pandas) and pandas[k] is not None:
            out.append(tuple(v.item() if isinstance(v, np.generic) else v for v in pandas[k]))
        else:
            out.append(tuple(sorted({int(v) for v in seen if int(v) >= 0} | used.get(j, set()))))
        k += 1
    return out


def _split_codes(node: Mapping, where: str) -> set[int]:
    """The category codes a categorical split of the dump sends left (``"1||2"``)."""
    codes = set()
    for c in str(node["threshold"]).split("||"):
        if not c.strip().isdigit() or len(c.strip()) > 10:
            raise ModelFormatError(f"{DUMP}: {where}: category code {c[:30]!r} is not a "
                                   f"non-negative integer; {FIX}")
        codes.add(int(c))
    return codes


def _tree(root: dict, features: FeatureSpace, classes: list, n_scores: int, group: int,
          index: int) -> Node:
    """The IR root of one tree of the dump, its nodes checked, built without recursion."""
    passes: dict[int, Mapping] = {}

    def place(node: Mapping) -> str:
        return f"tree {index}, split {node.get('split_index')}"

    def children(node: Mapping) -> tuple[Mapping, ...]:
        if not isinstance(node, Mapping):
            raise ModelFormatError(f"{DUMP}: tree {index}: a node must be a JSON object, "
                                   f"got {type(node).__name__}; {FIX}")
        if "split_feature" not in node:
            return ()
        kids = (node["left_child"], node["right_child"])
        j = integer(node["split_feature"], DUMP, place(node), "split_feature", 0,
                    len(features))
        f = features[j]
        if node["decision_type"] == "==":
            left_codes = _split_codes(node, place(node))
            codes = _codes(f)
            goes_left = [c in left_codes for c in codes]
            if all(goes_left) or not any(goes_left):
                passes[id(node)] = kids[0] if all(goes_left) else kids[1]
                return (passes[id(node)],)
            return kids
        where = f"{place(node)} on {f.name!r}"
        if node["decision_type"] != "<=":
            raise UnsupportedModelError(f"{where}: unknown decision type "
                                        f"{node['decision_type']!r}")
        if not f.is_ordinal:
            raise UnsupportedModelError(f"{where}: a threshold split on a categorical feature")
        number(node["threshold"], DUMP, where, "the threshold")
        return kids

    def make(node: Mapping, kids: list[Node]) -> Node:
        if "split_feature" not in node:
            if "leaf_coeff" in node or "leaf_features" in node:
                raise UnsupportedModelError(
                    f"tree {index} is a linear tree (linear_tree=True); xdt imports constant "
                    "leaves only")
            value = number(node["leaf_value"], DUMP, f"tree {index}, leaf "
                                                           f"{node.get('leaf_index')}",
                           "the leaf value")
            return margin_leaf(classes, n_scores, group, value)
        if id(node) in passes:
            return kids[0]
        f = features[int(node["split_feature"])]
        where = f"tree {index}, split {node.get('split_index')} on {f.name!r}"
        if node["decision_type"] == "==":
            left_codes = _split_codes(node, where)
            codes = _codes(f)
            left = tuple(v for v, c in zip(f.domain, codes, strict=True) if c in left_codes)
            right = tuple(v for v, c in zip(f.domain, codes, strict=True)
                          if c not in left_codes)
            return CategoricalSplit(f.name, (Branch(left, kids[0]), Branch(right, kids[1])))
        t = float(node["threshold"])
        if -ZERO_THRESHOLD <= t < ZERO_THRESHOLD:
            # LightGBM reads every |x| <= 1e-35 as 0.0 before any split (its dense-row
            # reader drops them as zeros), so all of them go where 0.0 goes
            t = ZERO_THRESHOLD if t >= 0.0 else float(np.nextafter(-ZERO_THRESHOLD, -np.inf))
        if node.get("missing_type") == "Zero":
            zero_left = bool(node.get("default_left"))
            if (zero_left and not ZERO_THRESHOLD <= t) or (not zero_left and
                                                           not -ZERO_THRESHOLD > t):
                raise UnsupportedModelError(
                    f"{where}: missing_type 'Zero' sends every |x| <= 1e-35 "
                    f"{'left' if zero_left else 'right'}, against the threshold {t!r}; xdt "
                    "cannot represent that split. Train with zero_as_missing=False (the "
                    "default) or fill the zeros")
        return ThresholdSplit(f.name, t, kids[0], kids[1])

    return build_tree(root, children, make)


def _codes(f: Feature) -> list[int]:
    """LightGBM's integer code of each domain value (its position for pandas categories)."""
    if all(isinstance(v, int) and not isinstance(v, bool) for v in f.domain) and \
            list(f.domain) == sorted(f.domain) and (not f.domain or f.domain[0] >= 0):
        return list(f.domain)
    return list(range(len(f.domain)))


def _stub(objective: str, value: float) -> str:
    """A LightGBM text model of one feature and one one-leaf tree holding ``value``."""
    return "\n".join([
        "tree", "version=v4", "num_class=1", "num_tree_per_iteration=1", "label_index=0",
        "max_feature_idx=0", f"objective={objective}", "feature_names=x", "feature_infos=none",
        "", "Tree=0", "num_leaves=1", "num_cat=0", "split_feature=", "split_gain=",
        "threshold=", "decision_type=", "left_child=", "right_child=",
        f"leaf_value={value!r}", "leaf_weight=", "leaf_count=0", "internal_value=",
        "internal_weight=", "internal_count=", "is_linear=0", "shrinkage=1", "", "",
        "end of trees", "", "pandas_categorical:null", ""])


def _binary_threshold(lgb, objective: str) -> float:
    """The largest float64 score that ``LGBMClassifier.predict``'s rule (the argmax of
    ``[1 - p, p]``) sends to class 0, by bisection over float64 values with LightGBM's own
    ``predict`` on one-leaf models holding the score."""
    row = np.zeros((1, 1))

    def class_1(key: int) -> bool:
        v = _from_key(key)
        booster = lgb.Booster(model_str=_stub(objective, v))
        if booster.predict(row, raw_score=True)[0] != v:
            raise UnsupportedModelError(  # pragma: no cover - a LightGBM that reads otherwise
                "this LightGBM does not read back a leaf value exactly; xdt cannot find its "
                "decision threshold")
        p = booster.predict(row)
        return bool(np.argmax(np.column_stack([1.0 - p, p]), axis=1)[0] == 1)

    lo, hi = _key(-4.0), _key(4.0)
    if class_1(lo) or not class_1(hi):
        raise UnsupportedModelError(  # pragma: no cover
            "the model's predictions do not turn from class 0 to class 1 between scores -4 "
            "and 4; xdt cannot find its decision threshold")
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if class_1(mid):
            hi = mid
        else:
            lo = mid
    return _from_key(lo)


def _key(v: float) -> int:
    """The order key of a float64: ``a < b`` exactly when ``key(a) < key(b)``."""
    b = int(np.array(v, dtype=np.float64).view(np.uint64))
    return b if b < 1 << 63 else -(b - (1 << 63)) - 1


def _from_key(k: int) -> float:
    b = k if k >= 0 else (1 << 63) | (-k - 1)
    return float(np.array(b, dtype=np.uint64).view(np.float64))


def _reference(booster, features: FeatureSpace, classes: list) -> Callable:
    """LightGBM's own prediction of rows in feature order, as class labels."""
    import pandas as pd

    labels = np.asarray(classes, dtype=object)
    integer = all(isinstance(c, int) for c in classes)
    categorical = [not f.is_ordinal for f in features]
    pandas = any(isinstance(v, str) for f in features if not f.is_ordinal for v in f.domain)

    def predict(X) -> np.ndarray:
        rows = np.asarray(X, dtype=object).reshape(-1, len(features))
        if pandas:
            data = pd.DataFrame({
                f.name: (pd.Categorical(rows[:, j], categories=list(f.domain))
                         if categorical[j] else rows[:, j].astype(np.float64))
                for j, f in enumerate(features)})
        else:
            data = rows.astype(np.float64)
        p = booster.predict(data)
        if p.ndim == 1:
            p = np.column_stack([1.0 - p, p])
        result = labels[np.argmax(p, axis=1)]
        return result.astype(np.int64) if integer else result

    return predict
