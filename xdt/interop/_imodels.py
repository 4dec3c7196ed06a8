"""Import the rule lists, rule sets and tree sums of imodels (the ``imodels`` package) into
the IR.

imodels (Singh, Nasseri, Tan, Tang & Yu, "imodels: a python package for fitting interpretable
models", JOSS 6(61), 3192, 2021) fits interpretable models behind scikit-learn's interface.
Its binary rule lists become :class:`~xdt.ir.DecisionList` models, its
Bayesian rule sets :class:`~xdt.ir.DNF` models and its sums of trees (FIGS)
:class:`~xdt.ir.TreeEnsemble` models, each predicting what the learner's own
``predict`` returns on every row (checked on real data in ``tests/test_import_rules.py``,
and at import on the rows ``X`` given, where a difference is a
:class:`~xdt.errors.DataError`):

* ``GreedyRuleListClassifier`` (imodels' greedy rule list: CART stumps grown down one path,
  the branch with more of class 1 kept as a rule, the other split further). Its ``rules_``
  are dicts: every entry but the last is a rule that fires when ``x[index_col] >= cutoff``
  (``x < cutoff`` when ``flip``), and then predicts class 1 when ``1 - val_right < val_right``
  (its ``predict`` is the argmax of ``[1 - p, p]``, so a probability of exactly 1/2 gives
  class 0); the last entry's ``val`` decides when no rule fires. Rows are read as float64
  (``check_array``), so ``x >= t`` is ``below(t) < x`` and ``x < t`` is ``x <= below(t)``
  with ``below(t)`` the float64 just below ``t`` (:func:`xdt.interop._rule_terms.below`).
* ``OneRClassifier`` (Holte, "Very Simple Classification Rules Perform Well on Most Commonly
  Used Datasets", Machine Learning 11, 1993): the greedy rule list of the one feature whose
  list is the most accurate; read the same way.
* ``BayesianRuleListClassifier`` (Letham, Rudin, McCormick & Madigan, "Interpretable
  classifiers using rules and Bayesian analysis", Annals of Applied Statistics 9(3), 2015):
  over 0/1 columns; rule ``d_star[i]`` is the itemset ``itemsets[d_star[i]]`` (each item a
  column equal to 1), with posterior ``theta[i]`` of class 1, up to the null rule (itemset
  0, the default). ``predict`` gives class 1 when ``theta >= 1/2`` (its default
  ``threshold``).
* ``BayesianRuleSetClassifier`` (Wang, Rudin, Doshi-Velez, Liu, Klampfl & MacNeille, "A
  Bayesian Framework for Learning Rule Sets for Interpretable Classification", JMLR 18(70),
  2017): an unordered set of rules over 0/1 columns, an item ``c`` being ``c = 1`` and
  ``c_neg`` being ``c = 0``; class 1 when some rule holds, a DNF. Its ``predict`` returns the
  class *codes* 0/1 (not ``classes_``); the imported DNF predicts ``classes_[code]``.
* ``FIGSClassifier`` and ``FIGSClassifierCV`` (the FIGS it selected and refitted): FIGS,
  Fast Interpretable Greedy-tree Sums (Tan, Singh, Nasseri, Agarwal & Yu, "Fast
  interpretable greedy-tree sums", PNAS 122(7), 2025; arXiv:2201.11931), a sum of CART-like
  trees grown together. ``fit`` one-hot encodes ``y`` into one column per class (in the
  order of ``classes_``); every node of ``trees_`` sends ``x[feature] <= threshold`` left
  (``x`` the float64 row of ``check_array``), and a node without children is a leaf whose
  ``value`` holds one number per class (the mean residual it fitted). ``predict`` writes
  each tree's leaf values into ``preds[:, :, t]`` of a zero array and takes ``numpy.sum``
  over the trees, then ``numpy.argmax`` over the classes (the first largest sum: a tie
  gives the earlier class); no clip, no sigmoid (those are in ``predict_proba`` only).
  ``numpy.sum`` adds fewer than 8 numbers one after the other from 0.0, in tree order, but
  8 or more by pairwise summation (eight running sums, then added in a tree), which no
  chain of additions reproduces; so at most 7 trees are imported (refit with
  ``max_trees=7``), and then the sums are exactly the IR's: per class, 0.0 plus each tree's
  value in tree order. Several classes: ``"margin"`` with ``base`` 0.0 per class (its
  ``predict_proba`` is the softmax, as FIGS's); two classes: the IR's binary margin is one
  score but FIGS compares two separately rounded sums, so the ensemble is ``"proba"`` with
  ``divisor`` 1.0 (the same sums from 0.0 in tree order and the same argmax; its
  ``predict_proba`` is then the two sums, which FIGS's passes through a softmax). Models
  fitted with ``categorical_features=`` (FIGS's own one-hot encoding, whose column order is
  that of a Python set) are refused: encode with :class:`~xdt.interop.TabularEncoder`
  and import with ``encoder=``.

Refused, with the reason (:class:`~xdt.errors.UnsupportedEstimatorError`): models whose
rules *vote* -- ``SkopeRulesClassifier`` and ``FPSkopeClassifier`` (class 1 when the
precision-weighted share of the firing rules exceeds 1/2), ``BoostedRulesClassifier`` and
``SlipperClassifier`` (AdaBoost: the class with the largest sum of the weights of the rules
predicting it), ``RuleFitClassifier`` and ``FPLassoClassifier`` (a sparse linear model over
rules and features): each predicts a threshold of a weighted sum, which is neither a decision
list nor a DNF, and xdt refuses to change its meaning; regressors (no classes, FIGSRegressor
included); FIGS of more than 7 trees or fitted with ``categorical_features=`` (above);
imodels' other trees and other models.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np

from xdt.errors import (
    DataError,
    InstanceError,
    NotFittedError,
    ParameterError,
    UnsupportedEstimatorError,
)
from xdt.interop._rule_terms import below, check_same_predictions, satisfiable
from xdt.interop._sklearn_ensembles import _reference
from xdt.interop._sklearn_tree import class_label, column_split, estimator_classes, resolve_features
from xdt.interop._tabular import TabularEncoder, fitted_encoder
from xdt.interop._tree_walk import build_tree
from xdt.ir._conditions import Condition
from xdt.ir._decision_list import DecisionList
from xdt.ir._dnf import DNF
from xdt.ir._ensemble import Reference, TreeEnsemble
from xdt.ir._features import Feature
from xdt.ir._tree import DecisionTree, Leaf, Node

__all__ = ["from_imodels"]

#: The imodels classifiers :func:`from_imodels` imports (and their subclasses).
SUPPORTED = ("GreedyRuleListClassifier", "OneRClassifier", "BayesianRuleListClassifier",
             "BayesianRuleSetClassifier", "FIGSClassifier", "FIGSClassifierCV")

#: The most trees of a FIGS model that ``numpy.sum`` adds one after the other (see the module
#: documentation): from 8 on it sums pairwise, which a TreeEnsemble's chain cannot reproduce.
FIGS_MAX_TREES = 7

_VOTE = ("which is neither a decision list (first rule wins) nor a DNF (some rule wins), "
         "so xdt cannot import it without changing its predictions; learn a rule list "
         "(imodels' GreedyRuleListClassifier or BayesianRuleListClassifier), a rule set "
         "(imodels' BayesianRuleSetClassifier, wittgenstein's RIPPER: xdt.from_wittgenstein) "
         "or a sum of trees (imodels' FIGSClassifier, imported as a tree ensemble) instead")

#: Why the imodels rule models that are no rule list or rule set are refused, by class name.
REFUSED = {
    "SlipperClassifier": "SLIPPER (Cohen & Singer, AAAI 1999) boosts rules: each rule adds "
                         "its AdaBoost weight to the class it predicts and the class with the "
                         "largest sum wins, a weighted vote, " + _VOTE,
    "BoostedRulesClassifier": "BoostedRulesClassifier is AdaBoost over rules: each rule adds "
                              "its weight to the class it predicts and the class with the "
                              "largest sum wins, a weighted vote, " + _VOTE,
    "SkopeRulesClassifier": "Skope-rules predicts class 1 when the precision-weighted share "
                            "of its rules that fire exceeds 1/2, a weighted vote, " + _VOTE,
    "RuleFitClassifier": "RuleFit is a sparse linear model over rules and features (the sign "
                         "of a weighted sum), " + _VOTE,
    "FPLassoClassifier": "FPLasso is a sparse linear model over mined rules and features (the "
                         "sign of a weighted sum), " + _VOTE,
}


def _imodels():
    try:
        import imodels
    except ImportError:
        raise UnsupportedEstimatorError(
            "importing an imodels model needs the imodels package; install xdt's extra: "
            "pip install 'xdt[rules]'") from None
    return imodels


def _refusal(model) -> str:
    """Why ``model`` is not imported."""
    for cls in type(model).__mro__:
        if cls.__name__ in REFUSED:
            return f"{type(model).__name__}: {REFUSED[cls.__name__]}"
    kind = type(model).__name__
    if kind.endswith(("Regressor", "RegressorCV")):
        return f"{kind} is a regressor: it predicts numbers, not classes to explain"
    return (f"from_imodels imports fitted {', '.join(SUPPORTED)} models, not {kind}"
            + ("; imodels' trees that are scikit-learn trees import with xdt.from_sklearn, "
               "its sums of trees (FIGSClassifier) with xdt.from_imodels"
               if "Tree" in kind else ""))


def from_imodels(model, feature_names: Sequence[str] | None = None, *, X=None,
                 binary_features: Iterable[str] | None = None,
                 encoder: TabularEncoder | None = None, target: str | None = None
                 ) -> DecisionList | DNF | TreeEnsemble:
    """A :class:`~xdt.ir.DecisionList` (rule lists), a :class:`~xdt.ir.DNF`
    (rule sets) or a :class:`~xdt.ir.TreeEnsemble` (FIGS) from a fitted imodels
    classifier.

    The rules are read from the fitted model as the module documentation describes; the
    imported model predicts what ``model.predict`` returns. What a rule means, per learner:

    * greedy rule list, OneR: ``IF x >= t`` (or ``x < t``) ``THEN`` the class of the
      training rows that reached the rule and passed its test (class 1 when more than half
      are), first rule wins; else the class of the rows left;
    * Bayesian rule list: ``IF`` all its 0/1 columns are 1 ``THEN`` class 1 when the
      rule's posterior probability of class 1 is at least 1/2, first rule wins; else the
      null rule's class;
    * Bayesian rule set: class 1 when some rule holds (each item a column equal to 1, or
      to 0 for ``c_neg``), else class 0: no conflicts to resolve;
    * FIGS: per class, the sum of the values of the leaves the row reaches in each tree
      (``x <= t`` goes left), added in tree order from 0.0; the first class with the
      largest sum.

    Parameters
    ----------
    model : fitted imodels classifier
        A ``GreedyRuleListClassifier``, ``OneRClassifier``, ``BayesianRuleListClassifier``
        or ``BayesianRuleSetClassifier`` (binary: imodels fits them on two classes), or a
        ``FIGSClassifier`` or ``FIGSClassifierCV`` (any number of classes, at most
        :data:`FIGS_MAX_TREES` trees).
    feature_names : sequence of str, optional
        Names of the n columns the model was fitted on, in order. Defaults to the model's
        own names (those it prints its rules with: the DataFrame's columns, the
        ``feature_names`` given to ``fit``, else imodels' ``X0, X1, ...``). Not with
        ``encoder``.
    X : array-like or DataFrame, optional
        Rows the greedy rule list, OneR or FIGS was fitted on: the columns holding only 0 and 1
        become binary features (``x = 1`` rather than ``0.49999999999999994 < x``); the
        others are ordinal. The Bayesian models are over 0/1 columns: all their features are
        binary, ``X`` is not needed. A DataFrame must have exactly the model's columns (the
        feature names), read by name in any order; an array is read by position, and is
        refused for a model fitted on a DataFrame (``feature_names_in_``: it reads its
        columns by name, and an array shows no names). With ``encoder``, the frame's rows
        (the learner's input is ``encoder.transform(X)``). The imported model is checked
        against ``model.predict`` on every row of ``X`` (in the learner's input format):
        one predict each side.
    binary_features : iterable of str, optional
        Names of columns to import as binary (0/1) features, with or instead of ``X``.
    encoder : TabularEncoder, optional
        When the model was fitted on ``encoder.transform(frame)``: the features are
        ``encoder.features_``, a test on a one-hot indicator becomes a categorical
        condition (``colour = red``, or ``colour in {blue, green}``), and the model predicts
        on ``frame`` itself. Not with ``feature_names`` or ``binary_features``.
    target : str, optional
        Name of the predicted attribute, for readable rules.

    Returns
    -------
    DecisionList, DNF or TreeEnsemble
        Over the n features, with classes ``model.classes_`` (integral labels as ints,
        others as text). A DecisionList for the rule lists; a DNF ``[classes_[0],
        classes_[1]]`` for the rule set. Rules that can never fire (their tests on one
        feature exclude each other) are left out. A TreeEnsemble of FIGS's trees
        (``input_dtype="float64"``) for FIGS: ``"proba"`` with ``divisor`` 1.0 on two
        classes, ``"margin"`` with ``base`` 0.0 per class on more (see the module
        documentation), whose ``reference`` is FIGS's own ``predict``.

    Raises
    ------
    UnsupportedEstimatorError
        ``imodels`` is not installed; ``model`` is not one of the classifiers above (the
        message says why: a weighted vote of rules -- SLIPPER, boosted rules, Skope-rules,
        RuleFit -- is neither a decision list nor a DNF; a regressor, FIGSRegressor
        included, has no classes); a FIGS of more than :data:`FIGS_MAX_TREES` trees, fitted
        with ``categorical_features=`` or on one class; the number of feature names or
        encoder columns does not match the model; a Bayesian model's rule tests a column
        that the encoder made numeric; a rule list tests a binary column (or a one-hot
        indicator) at a cutoff that does not separate 0 from 1, so it was fitted on other
        values of that column (e.g. ``X``'s columns in another order); a rule set's column
        names collide with its negated items (``c`` and ``c_neg``).
    NotFittedError
        The model is not fitted (or its fit found no rule list); ``encoder`` is not fitted.
    ParameterError
        ``encoder`` together with ``feature_names`` or ``binary_features``; ``encoder``
        not a ``TabularEncoder``.
    UnknownFeatureError
        ``binary_features`` names a column the model does not have.
    DataError
        ``X`` has no rows; a DataFrame lacks a column of the model or has others (the
        message names them); an array has another number of columns than the model, or the
        model was fitted on a DataFrame; with ``encoder``, ``X`` is not a DataFrame the
        encoder transforms; or ``X`` does not match the model: the imported model and
        ``model.predict`` differ on one of its rows (the message names the first), or either
        refuses one.

    Examples
    --------
    >>> import numpy as np, xdt
    >>> from imodels import GreedyRuleListClassifier           # doctest: +SKIP
    >>> X = np.array([[0, 1.0], [1, 2.0], [1, 3.0], [0, 4.0]]); y = [0, 1, 1, 0]
    >>> est = GreedyRuleListClassifier(max_depth=2).fit(X, y)  # doctest: +SKIP
    >>> dl = xdt.from_imodels(est, ["smoker", "age"], X=X)     # doctest: +SKIP
    >>> print(dl)                                              # doctest: +SKIP
    IF smoker = 1 THEN class = 1
    ELSE class = 0
    >>> bool((dl.predict(X) == est.predict(X)).all())          # doctest: +SKIP
    True
    """
    imodels = _imodels()
    name = type(model).__name__
    if isinstance(model, imodels.FIGSClassifierCV):  # the FIGSClassifier it chose and refitted
        inner = getattr(model, "figs", None)
        fitted = inner is not None and bool(getattr(inner, "trees_", None))
        model, kind = (inner if fitted else model), "figs"
    elif isinstance(model, imodels.FIGSClassifier):
        fitted = bool(getattr(model, "trees_", None))
        kind = "figs"
    elif isinstance(model, imodels.GreedyRuleListClassifier):  # OneRClassifier too
        fitted = isinstance(getattr(model, "rules_", None), list)
        kind = "greedy"
    elif isinstance(model, imodels.BayesianRuleListClassifier):
        fitted = bool(getattr(model, "d_star", None)) and hasattr(model, "theta")
        kind = "brl"
    elif isinstance(model, imodels.BayesianRuleSetClassifier):
        fitted = hasattr(model, "rules_") and hasattr(model, "attr_names_orig")
        kind = "brs"
    else:
        raise UnsupportedEstimatorError(_refusal(model))
    if not fitted:
        raise NotFittedError(
            f"this {name} is not fitted (or its fit found no rule list); call fit(X, y) "
            "before importing it")
    if encoder is not None and (feature_names is not None or binary_features is not None):
        raise ParameterError(
            "give either encoder= or feature_names=/binary_features=, not both: the "
            "encoder names the features and decides their kinds")
    classes = estimator_classes(model)
    if kind == "figs":
        own = list(model.feature_names_)
    elif kind == "greedy":
        own = list(model.feature_names_)
    elif kind == "brl":
        own = list(model.feature_names)
    else:
        own = list(model.attr_names_orig)
    if encoder is None:
        feature_names = own if feature_names is None else feature_names
        names = [str(n) for n in feature_names]
        if len(names) != model.n_features_in_:
            raise UnsupportedEstimatorError(
                f"{len(names)} feature names for an estimator fitted on "
                f"{model.n_features_in_} features")
        check = _plain_rows(model, name, names, X) if X is not None else None
        X = check[0] if check is not None else None  # X's columns in the model's order
    else:
        check = _encoded_rows(model, name, encoder, X) if X is not None else None
        X = None  # the encoder decides the kinds
    if kind == "figs":
        imported = _figs(model, name, feature_names, X, binary_features, encoder, classes,
                         target)
    else:
        if len(classes) != 2:
            raise UnsupportedEstimatorError(
                f"this {type(model).__name__} was fitted on {len(classes)} classes {classes}; "
                "imodels' rule lists and rule sets are binary")
        if encoder is None and kind != "greedy":  # fitted on 0/1 columns
            binary_features, X = [str(n) for n in feature_names], None
        features, columns = resolve_features(model.n_features_in_, model, feature_names, X,
                                             binary_features, encoder)
        if kind == "greedy":
            imported = _greedy_list(model, features, columns, classes, target)
        elif kind == "brl":
            imported = _bayesian_list(model, features, columns, classes, target)
        else:
            imported = _bayesian_set(model, own, features, columns, classes, target)
    if check is not None:
        ours, theirs, index, advice = check
        if kind == "brs":  # its predict returns the class codes 0/1, not classes_
            def learner_predict():
                return [classes[int(c)] for c in model.predict(theirs)]
        else:
            def learner_predict():
                return [class_label(c) for c in model.predict(theirs)]
        check_same_predictions(imported, ours, learner_predict, name, index, advice)
    return imported


def _plain_rows(model, name: str, names: list[str], X) -> tuple:
    """``(rows for the imported model, the same rows in the learner's input format, their
    index, advice)`` from the ``X`` given to :func:`from_imodels` without an encoder.

    A DataFrame must have exactly the columns ``names`` (in any order: they are read by
    name). An array is read by position, so it is refused when the learner was fitted on a
    DataFrame (``feature_names_in_``): it reads its columns by name, and nothing would show
    that the array's columns are those, in that order.
    """
    import pandas as pd

    fitted_on = getattr(model, "feature_names_in_", None)
    if isinstance(X, pd.DataFrame):
        by_name = {str(c): c for c in X.columns}
        missing = [n for n in names if n not in by_name]
        extra = [c for c in X.columns if str(c) not in names]
        if missing or extra:
            wrong = "; ".join(([f"it lacks {missing}"] if missing else [])
                              + ([f"it has {extra} besides"] if extra else []))
            raise DataError(
                f"X must have exactly the columns of the {name} ({', '.join(names)}), in any "
                f"order: {wrong}; select or rename X's columns"
                + (" (or pass the rows as an array, their columns in the model's order)"
                   if fitted_on is None else ""))
        frame = X[[by_name[n] for n in names]].set_axis(names, axis=1)
        if len(frame) == 0:
            raise DataError("X has no rows; pass the rows the model was fitted on")
        theirs = (frame.set_axis(list(fitted_on), axis=1) if fitted_on is not None
                  else frame.to_numpy())
        return frame, theirs, X.index, (
            f"pass the rows the {name} was fitted on, with its columns "
            f"({', '.join(names)})")
    if fitted_on is not None:
        raise DataError(
            f"this {name} was fitted on a DataFrame and reads its columns by name "
            f"({', '.join(map(str, fitted_on))}); X is an array without column names, so "
            "nothing shows that its columns are those, in that order: pass X as a DataFrame "
            "with these columns (an array in that order as "
            "pd.DataFrame(X, columns=model.feature_names_in_))")
    arr = np.asarray(X)
    if arr.ndim != 2 or arr.shape[1] != len(names):
        raise DataError(f"X must be a table of rows x {len(names)} columns (those the "
                        f"estimator was fitted on, in order), got shape {arr.shape}")
    if len(arr) == 0:
        raise DataError("X has no rows; pass the rows the model was fitted on")
    return arr, arr, None, (
        f"pass the rows the {name} was fitted on, their {len(names)} columns in the order "
        f"it was fitted on ({', '.join(names)})")


def _encoded_rows(model, name: str, encoder, X) -> tuple:
    """As :func:`_plain_rows`, for ``encoder=``: ``X`` is a frame of the encoder's columns,
    the learner's input ``encoder.transform(X)``."""
    import pandas as pd

    encoder = fitted_encoder(encoder)
    if not isinstance(X, pd.DataFrame):
        raise DataError(
            f"with encoder=, X must be a DataFrame of the encoder's columns "
            f"({', '.join(map(str, encoder.feature_names))}), the rows before "
            f"encoder.transform, got {type(X).__name__}")
    if len(X) == 0:
        raise DataError("X has no rows; pass the rows the model was fitted on")
    advice = (f"pass the rows whose encoder.transform the {name} was fitted on, with the "
              f"encoder's columns ({', '.join(map(str, encoder.feature_names))})")
    try:
        theirs = encoder.transform(X)
    except (InstanceError, ValueError, TypeError) as err:
        raise DataError(f"encoder.transform refuses X ({err}); {advice}") from err
    fitted_on = getattr(model, "feature_names_in_", None)
    if fitted_on is not None:
        if len(fitted_on) != theirs.shape[1]:
            raise DataError(f"encoder.transform makes {theirs.shape[1]} columns but the "
                            f"{name} was fitted on {len(fitted_on)}; {advice}")
        theirs = pd.DataFrame(theirs, columns=list(fitted_on))
    return X, theirs, X.index, advice


def _class_1(p: float) -> bool:
    """Whether imodels' ``argmax([1 - p, p])`` is class 1 (NaN: class 0, as argmax)."""
    return bool(1.0 - p < p)


def _on_column(features: Sequence[Feature], column: tuple[int, object],
               values: Sequence[int]) -> tuple[Condition, ...] | None:
    """``column in values`` (``values`` a subset of ``(0, 1)``) on a binary column or a
    one-hot indicator, as conditions: ``()`` when it always holds, None when never."""
    fi, indicated = column
    f = features[fi]
    if not values:
        return None
    if len(values) == 2:
        return ()
    if f.kind == "ordinal":
        raise UnsupportedEstimatorError(
            f"the model tests column {f.name!r} as 0/1, but the encoder made it numeric; "
            "the model was fitted on other columns than encoder.transform(frame)")
    if indicated is None:
        return (Condition(f.name, (values[0],)),)
    if values[0] == 1:
        return (Condition(f.name, (indicated,)),)
    others = tuple(v for v in f.domain if v != indicated)
    return (Condition(f.name, others),) if others else None


def _threshold_test(features: Sequence[Feature], column: tuple[int, object], t: float,
                    at_least: bool) -> tuple[Condition, ...] | None:
    """``x >= t`` (``at_least``) or ``x < t`` on one float64 column, as conditions (as
    :func:`_on_column`)."""
    f = features[column[0]]
    if f.kind == "ordinal":
        bound = below(t)
        return (Condition(f.name, above=bound),) if at_least else (Condition(f.name,
                                                                             upto=bound),)
    if not 0.0 < t <= 1.0:  # the learner cuts between values it saw: 0 and 1 here
        shown = f.name if column[1] is None else f"{f.name}={column[1]}"
        raise UnsupportedEstimatorError(
            f"the model tests column {shown!r} at x {'>=' if at_least else '<'} {t}, which "
            "does not separate 0 from 1, so it was fitted on other values of that column "
            "than X's or the encoder's 0/1; check that X has the columns the model was "
            "fitted on, in that order, or import the column as ordinal (leave it out of "
            "binary_features)")
    return _on_column(features, column, [v for v in (0, 1) if (v >= t) == at_least])


def _greedy_list(model, features: list[Feature], columns: list, classes: list,
                 target: str | None) -> DecisionList:
    entries = model.rules_
    rules = []
    for e in entries[:-1]:
        j = int(e["index_col"])
        if not 0 <= j < len(columns):
            raise UnsupportedEstimatorError(
                f"a rule tests column {j}, but the model has {len(columns)} columns")
        conds = _threshold_test(features, columns[j], float(e["cutoff"]),
                                at_least=not e["flip"])
        if conds is not None:
            rules.append((conds, classes[_class_1(float(e["val_right"]))]))
    default = classes[_class_1(float(entries[-1]["val"]))] if entries else classes[0]
    return DecisionList(features, classes, rules, default, target=target)


def _bayesian_list(model, features: list[Feature], columns: list, classes: list,
                   target: str | None) -> DecisionList:
    place = {str(p): i for i, p in enumerate(model.feature_placeholders)}
    rules = []
    default = classes[0]
    for i, j in enumerate(model.d_star):
        label = classes[int(float(model.theta[i]) >= 0.5)]
        if int(j) == 0:  # the null rule: it holds everywhere, the rules after it never fire
            default = label
            break
        conds: list[Condition] | None = []
        for item in model.itemsets[int(j)]:
            if str(item) not in place:
                raise UnsupportedEstimatorError(
                    f"rule {i} tests {item!r}, which is not a column of the model")
            test = _on_column(features, columns[place[str(item)]], [1])
            if test is None:
                conds = None
                break
            conds += test
        if conds is not None and satisfiable(conds):
            rules.append((conds, label))
    return DecisionList(features, classes, rules, default, target=target)


def _bayesian_set(model, names: list, features: list[Feature], columns: list, classes: list,
                  target: str | None) -> DNF:
    items: dict[str, tuple[int, int]] = {}
    for i, name in enumerate(names):
        for item, value in ((str(name), 1), (str(name).strip() + "_neg", 0)):
            if item in items:
                raise UnsupportedEstimatorError(
                    f"the columns {names[items[item][0]]!r} and {name!r} both make the item "
                    f"{item!r} (a column and the negation c_neg of another), so the rule set "
                    "reads them together; rename the columns and refit")
            items[item] = (i, value)
    terms = []
    for p, rule in enumerate(model.rules_):
        conds: list[Condition] | None = []
        for item in rule:
            if str(item) not in items:
                raise UnsupportedEstimatorError(
                    f"rule {p} tests {item!r}, which is neither a column of the model nor "
                    "the negation (c_neg) of one")
            i, value = items[str(item)]
            test = _on_column(features, columns[i], [value])
            if test is None:
                conds = None
                break
            conds += test
        if conds is not None and satisfiable(conds):
            terms.append(conds)
    return DNF(features, classes, terms, target=target)


def _figs(model, name: str, feature_names, X, binary_features, encoder: TabularEncoder | None,
          classes: list, target: str | None) -> TreeEnsemble:
    """The TreeEnsemble of a fitted FIGSClassifier (see the module documentation)."""
    from importlib.metadata import PackageNotFoundError, version

    if getattr(model, "categorical_features_", None) is not None \
            or hasattr(model, "_encoder"):
        raise UnsupportedEstimatorError(
            f"this {name} was fitted with categorical_features=: FIGS one-hot encodes those "
            "columns itself and puts the others in the order of a Python set, which xdt "
            "cannot read back; encode the frame with xdt's TabularEncoder, fit FIGS on "
            "enc.transform(frame) and import it with encoder=enc")
    n_trees = len(model.trees_)
    if n_trees > FIGS_MAX_TREES:
        raise UnsupportedEstimatorError(
            f"this {name} has {n_trees} trees; FIGS's predict adds them with numpy.sum, which "
            f"adds up to {FIGS_MAX_TREES} numbers one after the other but more by pairwise "
            "summation, an order of rounding that a tree ensemble's sum in tree order does "
            f"not reproduce; refit with max_trees={FIGS_MAX_TREES} (or fewer)")
    k = int(model.n_outputs)
    if k < 2 or len(classes) != k:
        raise UnsupportedEstimatorError(
            f"this {name} was fitted on {len(classes)} class(es) {classes} and sums {k} "
            "score(s); an explanation needs at least two classes, one score each")
    by_score = [class_label(model._class_map[i]) for i in range(k)]
    if by_score != classes:  # pragma: no cover - FIGS orders its one-hot columns as classes_
        raise UnsupportedEstimatorError(
            f"this {name} sums its scores for the classes {by_score}, not in the order of "
            f"classes_ {classes}")
    features, columns = resolve_features(model.n_features_in_, model, feature_names, X,
                                         binary_features, encoder)
    trees = [DecisionTree(features, classes, _figs_root(root, features, columns, classes),
                          target=target, input_dtype="float64") for root in model.trees_]
    try:
        source = {"library": "imodels", "version": version("imodels"), "estimator": name}
    except PackageNotFoundError:  # pragma: no cover - imported, so installed
        source = {"library": "imodels", "estimator": name}
    if k == 2:  # two sums compared, not one margin: the IR's summed class scores
        ensemble = TreeEnsemble(features, classes, trees, "proba", divisor=1.0,
                                precision="float64", target=target, input_dtype="float64",
                                source=source)
    else:
        ensemble = TreeEnsemble(features, classes, trees, "margin", base=(0.0,) * k,
                                precision="float64", target=target, input_dtype="float64",
                                source=source)
    ensemble.reference = Reference(_reference, model, ensemble.features, encoder, classes)
    return ensemble


def _figs_root(root, features: list[Feature], columns: list, classes: list) -> Node:
    """The IR tree of one FIGS tree (``imodels.tree.figs.Node`` objects): ``x <= threshold``
    goes left; a node without children is a leaf of its ``value``, one number per class (and
    a missing child, which ``_predict_tree`` answers with its parent's value, the same)."""
    k = len(classes)

    def leaf(node) -> Leaf:
        row = tuple(float(v) for v in np.asarray(node.value, dtype=np.float64).reshape(-1))
        if len(row) != k:
            raise UnsupportedEstimatorError(
                f"a leaf of the FIGS model holds {len(row)} values for {k} classes")
        return Leaf(classes[int(np.argmax(row))], row)

    # a key is (node, as_leaf): a missing child is its parent's leaf
    def children(key: tuple) -> tuple[tuple, ...]:
        node, as_leaf = key
        if as_leaf or (node.left is None and node.right is None):
            return ()
        j, t = int(node.feature), float(node.threshold)
        if not 0 <= j < len(columns) or not math.isfinite(t):
            raise UnsupportedEstimatorError(
                f"a node of the FIGS model tests column {j} at {t}, but the model has "
                f"{len(columns)} columns and xdt needs a finite threshold")
        return tuple((node, True) if child is None else (child, False)
                     for child in (node.left, node.right))

    def make(key: tuple, kids: list[Node]) -> Node:
        node = key[0]
        if not kids:
            return leaf(node)
        t = float(node.threshold)
        return column_split(features, columns[int(node.feature)], t, kids[0], kids[1], t)

    return build_tree((root, False), children, make)
