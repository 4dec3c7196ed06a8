"""Import the rule sets of wittgenstein's RIPPER and IREP (the ``wittgenstein`` package) into
the IR.

RIPPER (Cohen, "Fast Effective Rule Induction", ICML 1995) and IREP (Fürnkranz & Widmer,
"Incremental Reduced Error Pruning", ICML 1994) learn, for one *positive* class, an
unordered set of rules, each a conjunction of conditions: a row is predicted positive when
some rule covers it, and negative otherwise. That is a DNF, so the import is a
:class:`~xdt.ir.DNF` with classes ``[negative, positive]``, which predicts what the
learner's own ``predict`` returns (``True`` for the positive class) on every row (checked on
real data, and one float64 step either side of every bin edge, in
``tests/test_import_rules.py``; and at import on the rows ``X`` given, where a difference is
a :class:`~xdt.errors.DataError`). wittgenstein learns one class against the rest: the
negative class is "every other class".

How wittgenstein reads a row (``wittgenstein.preprocess``, ``wittgenstein.discretize``):

* **Binned numeric columns.** In ``fit``, each numeric column with more distinct values than
  ``n_discretize_bins`` (default 10) is cut into quantile bins (``pandas.qcut``; bins no
  training row falls in are dropped, the first bin is extended down to ``-inf`` and the last
  up to ``+inf``), kept as text labels in ``model.bin_transformer_.bins_``: ``"<b"`` (the
  first bin), ``"a - b"``, ``">a"`` (the last). Every row, in ``fit`` as in ``predict``, is
  binned by reading the labels back as intervals closed on the right (``pandas.cut``), so
  ``"<b"`` is ``x <= b`` (*not* ``x < b``: the label shows the bin's upper edge, included),
  ``"a - b"`` is ``a < x <= b`` and ``">a"`` is ``a < x``. A condition names one label, and
  becomes that interval on an ordinal feature, exactly (``above < x <= upto`` is the IR's
  form). A value outside every bin (in a dropped bin) is in none: no condition on that
  feature holds, as in the IR. Bins of wittgenstein's ``"numpy"`` engine
  (``thresholds_``, ``numpy.digitize``) are closed on the left, ``t_k <= x < t_{k+1}``, and
  become ``below(t_k) < x <= below(t_{k+1})`` (:func:`xdt.interop._rule_terms.below`).
* **Other columns** (text, booleans, numbers with few distinct values) are compared by
  equality: a condition ``x=v`` holds when the value equals ``v``. They become categorical
  features whose domain is the distinct values of the training rows (and every value a rule
  names), or binary features when those are 0 and 1 (``False``/``True``). Their domains are
  not in the model: pass the training rows as ``X``. A value outside the domain is refused
  by the imported model (:class:`~xdt.errors.UnknownCategoryError`), where wittgenstein
  would just find no rule on it.

wittgenstein's ``predict`` marks the covered rows by *index label*, so on a DataFrame whose
index repeats a label, every row with that label is predicted positive when one of them is
covered; predict on a frame with a unique index (``reset_index(drop=True)``) to compare.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from xdt.errors import (
    DataError,
    NotFittedError,
    ParameterError,
    UnsupportedEstimatorError,
)
from xdt.interop._rule_terms import below, check_same_predictions, satisfiable
from xdt.interop._sklearn_tree import class_label, named_classes
from xdt.ir._conditions import Condition
from xdt.ir._dnf import DNF
from xdt.ir._features import Feature
from xdt.ir._values import to_python

__all__ = ["from_wittgenstein"]


def _abstract_classifier():
    """wittgenstein's base class of RIPPER and IREP."""
    try:
        from wittgenstein.abstract_ruleset_classifier import AbstractRulesetClassifier
    except ImportError:
        raise UnsupportedEstimatorError(
            "importing a RIPPER or IREP model needs the wittgenstein package; install xdt's "
            "extra: pip install 'xdt[rules]'") from None
    return AbstractRulesetClassifier


def from_wittgenstein(model, X=None, feature_names: Sequence[str] | None = None, *,
                      classes: Sequence | None = None, target: str | None = None) -> DNF:
    """A :class:`~xdt.ir.DNF` from a fitted ``wittgenstein.RIPPER`` or
    ``wittgenstein.IREP``.

    The rule set that RIPPER (Cohen, ICML 1995) or IREP (Fürnkranz & Widmer, ICML 1994)
    learned for the positive class ``model.pos_class``: a row is of the positive class
    when some rule covers it (all the rule's conditions hold), else of the negative class;
    the rules are unordered and never conflict. Each condition is read as the module
    documentation describes: a bin of a numeric column becomes an interval on an ordinal
    feature (``"<1.0"`` is ``x <= 1``), and an equality on another column a categorical (or
    binary) condition.

    Parameters
    ----------
    model : fitted wittgenstein.RIPPER or wittgenstein.IREP
        Any of their parameters; fitted on a DataFrame (features named by its columns) or
        an array (features named ``0, 1, ...``), or made with ``init_ruleset``.
    X : DataFrame or 2-D array, optional
        Rows with exactly the model's columns (``model.trainset_features_``), normally the
        training rows: the distinct values of each column wittgenstein did not bin make its
        domain. Needed unless every column was binned. A DataFrame's columns are found by
        name (in any order; besides them only the label column ``model.class_feat``, which
        wittgenstein's ``predict`` drops too); an array's by position, which only a model
        fitted on an array (columns ``0, 1, ...``) accepts. The imported DNF is checked
        against ``model.predict`` on these rows (their index reset, as wittgenstein marks
        covered rows by index label; rows with a missing value, which the DNF refuses, left
        out): one predict each side.
    feature_names : sequence of str, optional
        Names of the features, one per column of ``model.trainset_features_``, in that
        order (default: those column names, as text).
    classes : sequence of two labels, optional
        ``[negative, positive]``, text or integers (not booleans: xdt's class labels are
        not). Default: ``[0, 1]`` when the positive class is ``1`` or ``True``, ``[1, 0]``
        when it is ``False`` (a target of booleans: the labels are its values as 0/1), else
        ``["not <pos>", <pos>]`` (as wittgenstein's ``predict_proba`` names them).
    target : str, optional
        Name of the predicted attribute, for readable rules.

    Returns
    -------
    DNF
        Over one feature per column of ``model.trainset_features_``: ordinal for the binned
        columns, else categorical (binary for 0/1 columns). Its ``predict`` returns
        ``classes[1]`` exactly where ``model.predict`` returns ``True``. Rules that can
        never hold (two bins of one column, a label that is no bin) are left out; an empty
        rule set predicts the negative class everywhere, a rule with no condition the
        positive class.

    Raises
    ------
    UnsupportedEstimatorError
        ``wittgenstein`` is not installed; ``model`` is not a wittgenstein rule-set
        classifier (``None``: wittgenstein's ``fit`` returns None, pass the fitted object);
        a rule tests a column the model does not list; a bin label cannot be read as an
        interval.
    NotFittedError
        The model is not fitted.
    ParameterError
        ``X`` is missing while a column is compared by equality; ``feature_names`` of
        another length than the columns, or repeated; ``classes`` not two distinct labels,
        or booleans.
    InvalidModelError
        ``classes`` that print alike (``[1, "1"]``).
    DataError
        ``X`` lacks a column of the model, has other columns (a DataFrame) or another
        number of columns (an array), has no rows, is an array for a model fitted on a
        DataFrame, or does not match the model: the DNF and ``model.predict`` differ on one
        of its rows (the message names the first), or either refuses one.

    Examples
    --------
    >>> import pandas as pd, xdt
    >>> import wittgenstein as lw                                   # doctest: +SKIP
    >>> X = pd.DataFrame({"age": [20, 25, 30, 35, 40, 45, 50, 55, 60, 65, 70, 75],
    ...                   "smoker": [1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0]})
    >>> y = [0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 1, 1]
    >>> ripper = lw.RIPPER(random_state=0)                          # doctest: +SKIP
    >>> ripper.fit(X, y, pos_class=1)  # returns None: keep ripper  # doctest: +SKIP
    >>> dnf = xdt.from_wittgenstein(ripper, X, target="sick")      # doctest: +SKIP
    >>> bool((dnf.predict(X) == ripper.predict(X)).all())           # doctest: +SKIP
    True
    """
    if model is None:
        raise UnsupportedEstimatorError(
            "from_wittgenstein got None: wittgenstein's fit returns None; pass the fitted "
            "RIPPER/IREP object itself (ripper = lw.RIPPER(); ripper.fit(X, y, pos_class=...); "
            "xdt.from_wittgenstein(ripper, X))")
    if not isinstance(model, _abstract_classifier()):
        raise UnsupportedEstimatorError(
            f"from_wittgenstein imports fitted wittgenstein.RIPPER and wittgenstein.IREP "
            f"models, not {type(model).__name__}")
    if getattr(model, "ruleset_", None) is None or not hasattr(model, "pos_class"):
        raise NotFittedError(
            f"this {type(model).__name__} is not fitted; call fit(X, y, pos_class=...) before "
            "importing it")
    keys = list(getattr(model, "trainset_features_", None)
                or model.ruleset_.get_selected_features())
    names = [str(k) for k in keys] if feature_names is None else [str(n) for n in
                                                                  feature_names]
    if len(names) != len(keys) or len(set(names)) != len(names):
        raise ParameterError(
            f"feature_names must give {len(keys)} distinct names, one per column of the "
            f"model ({', '.join(map(str, keys))}), got {names}")
    bins, thresholds, parser = _bins(model)
    learner = type(model).__name__
    rows = index = None
    if X is not None:
        rows, index = _rows(X, keys, getattr(model, "class_feat", None), learner)

    rules = [list(rule.conds) for rule in model.ruleset_.rules]
    unknown = sorted({str(c.feature) for r in rules for c in r if c.feature not in keys})
    if unknown:
        raise UnsupportedEstimatorError(
            f"the rules test {unknown}, which are not columns of the model "
            f"({', '.join(map(str, keys))})")
    equal = [k for k in keys if k not in bins]
    if equal and rows is None:
        raise ParameterError(
            f"wittgenstein compares column(s) {[str(k) for k in equal]} by equality (it did not "
            "bin them), so their values are not in the model: pass the training rows as X")
    named = {k: [to_python(c.val) for r in rules for c in r if c.feature == k] for k in equal}
    domains = _domains(rows, named) if equal else {}

    features, read = [], {}
    for k, name in zip(keys, names, strict=True):
        if k in bins:
            features.append(Feature(name, "ordinal"))
            read[k] = _bin_reader(name, k, list(bins[k]), thresholds.get(k), parser)
        else:
            domain = domains[k]
            binary = set(domain) <= {0, 1} and all(type(v) is int for v in domain)
            features.append(Feature(name, "binary") if binary
                            else Feature(name, "categorical", tuple(domain)))
            read[k] = _equality_reader(name)
    terms = []
    for rule in rules:
        conds: list[Condition] = []
        for c in rule:
            cond = read[c.feature](c.val)
            if cond is None:  # never holds: the rule never fires
                break
            conds += cond
        else:
            if satisfiable(conds):
                terms.append(conds)

    pos = model.pos_class
    if classes is None:
        if isinstance(pos, bool | np.bool_):  # y of booleans: the other one is negative
            labels = [int(not pos), int(pos)]
        else:
            pos = class_label(pos)
            labels = [0, 1] if pos == 1 else [f"not {pos}", pos]
    else:
        if not isinstance(classes, str | bytes) and hasattr(classes, "__len__") and any(
                isinstance(c, bool | np.bool_) for c in classes):
            raise ParameterError(
                f"classes= must be text or integer labels, got {list(classes)}: xdt's class "
                "labels are not booleans (True would become 1 and False 0); name the classes "
                "[negative, positive], e.g. [0, 1] or ['no', 'yes']")
        labels = named_classes(classes, 2, "class: [negative, positive]")
    dnf = DNF(features, labels, terms, target=target)
    if rows is not None:
        _check_predictions(dnf, model, rows, index, labels, learner, keys)
    return dnf


def _rows(X, keys: list, class_feat, learner: str) -> tuple[pd.DataFrame, pd.Index]:
    """``X`` as a DataFrame of the model's columns ``keys`` (in that order, index reset), and
    X's own index (the labels of its rows).

    A DataFrame must have the model's columns (each named by its key or the key as text),
    and no others but ``class_feat`` (the label column, which wittgenstein's ``predict``
    drops too). An array is read by position, which is how wittgenstein reads one only when
    it was fitted on an array (columns ``0, 1, ...``); for a model fitted on a DataFrame it
    is refused: nothing shows that its columns are the model's, in that order.

    Raises
    ------
    DataError
        ``X`` lacks a column of the model, has others, has another number of columns, has
        no rows, or is an array for a model fitted on a DataFrame.
    """
    shown = ", ".join(map(str, keys))
    if isinstance(X, pd.DataFrame):
        cols, used = [], set()
        for k in keys:
            col = k if k in X.columns else str(k) if str(k) in X.columns else None
            cols.append(col)
            used.add(col)
        missing = [str(k) for k, c in zip(keys, cols, strict=True) if c is None]
        extra = [c for c in X.columns if c not in used and c != class_feat]
        if missing or extra:
            wrong = "; ".join(([f"X has no column(s) {missing}"] if missing else [])
                              + ([f"X has the column(s) {extra} besides"] if extra else []))
            raise DataError(
                f"{wrong}: X must have exactly the model's columns ({shown}), in any order; "
                "select or rename X's columns")
        frame = X[cols].set_axis(keys, axis=1)
        index = X.index
    else:
        if keys != list(range(len(keys))):
            raise DataError(
                f"this {learner} was fitted on a DataFrame and finds its columns by name "
                f"({shown}); X is an array without column names, so nothing shows that its "
                "columns are those, in that order: pass X as a DataFrame with these columns")
        arr = np.asarray(X, dtype=object)
        if arr.ndim != 2 or arr.shape[1] != len(keys):
            raise DataError(f"X must be a table of rows x {len(keys)} columns (the model's "
                            f"{shown}), got shape {arr.shape}")
        frame = pd.DataFrame(X).set_axis(keys, axis=1)
        index = None
    if len(frame) == 0:
        raise DataError("X has no rows; pass the rows the model was fitted on")
    return frame.reset_index(drop=True), index


def _check_predictions(dnf: DNF, model, rows: pd.DataFrame, index, labels: list,
                       learner: str, keys: list) -> None:
    """Check that ``dnf`` predicts on ``rows`` (as from :func:`_rows`: the model's columns,
    index reset, which wittgenstein's ``predict`` needs, as it marks covered rows by index
    label) what ``model.predict`` does. Rows with a missing value, which the DNF refuses
    (wittgenstein finds no rule on them), are left out."""
    complete = ~rows.isna().any(axis=1).to_numpy()
    if not complete.all():
        rows = rows[complete].reset_index(drop=True)
        index = (pd.RangeIndex(len(complete)) if index is None else index)[complete]
        if len(rows) == 0:
            return
    ours = rows.set_axis(list(dnf.features.names), axis=1)
    check_same_predictions(
        dnf, ours, lambda: [labels[int(bool(p))] for p in model.predict(rows)], learner,
        index, f"pass the rows the {learner} was fitted on, with its columns "
                f"({', '.join(map(str, keys))})")


def _bins(model) -> tuple[dict, dict, object]:
    """The model's bin labels per binned column, the thresholds of the columns its
    ``"numpy"`` engine binned, and the transformer that reads its labels back."""
    from wittgenstein.discretize import BinTransformer

    bt = getattr(model, "bin_transformer_", None)
    if isinstance(bt, dict):  # the form of models pickled by wittgenstein < 0.3
        bt = BinTransformer()
        bt.bins_ = dict(model.bin_transformer_)
    if bt is None:
        return {}, {}, None
    return dict(getattr(bt, "bins_", None) or {}), dict(getattr(bt, "thresholds_", None)
                                                        or {}), bt


def _bin_reader(name: str, key, labels: list[str], thresholds, parser):
    """The conditions (``()`` always, None never) of ``column = label`` on a binned column."""

    def read(label) -> tuple[Condition, ...] | None:
        if not isinstance(label, str) or label not in labels:
            return None  # wittgenstein compares the bin's label: nothing else matches
        k = labels.index(label)
        if thresholds is not None:  # numpy.digitize: t[k] <= x < t[k+1], open ends
            t = [float(v) for v in thresholds]
            lo = below(t[k]) if k > 0 else None
            hi = below(t[k + 1]) if k < len(labels) - 1 else None
        else:  # pandas.cut on the labels read back: floor < x <= ceil
            try:
                floor, ceil = parser._str_to_floor_ceil(label, key)
            except (TypeError, ValueError):
                raise UnsupportedEstimatorError(
                    f"wittgenstein's bin {label!r} of column {name!r} cannot be read as an "
                    "interval") from None
            lo = float(floor) if math.isfinite(floor) else None
            hi = float(ceil) if math.isfinite(ceil) else None
        if lo is None and hi is None:
            return ()
        return (Condition(name, above=lo, upto=hi),)

    return read


def _value(v: object) -> object:
    """A domain value as the IR keeps it: numpy scalars as Python ones, booleans as 0/1,
    integral floats as ints."""
    v = to_python(v)
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return v


def _equality_reader(name: str):
    """The conditions (None: never) of ``column == value`` on a column wittgenstein did not
    bin."""

    def read(value) -> tuple[Condition, ...] | None:
        if pd.isna(value):
            return None  # NaN equals nothing
        return (Condition(name, (_value(value),)),)

    return read


def _domains(rows: pd.DataFrame, named: dict) -> dict:
    """Per column of ``named`` (a key of the model), the sorted distinct values of ``rows``
    (from :func:`_rows`) in it and the values its rules name."""
    out = {}
    for k, values in named.items():
        seen = {_value(v) for v in pd.unique(rows[k].dropna())}
        seen |= {_value(v) for v in values if not pd.isna(v)}
        out[k] = sorted(seen, key=lambda v: (0, v, "") if isinstance(v, int | float)
                        else (1, 0, str(v)))
    return out
