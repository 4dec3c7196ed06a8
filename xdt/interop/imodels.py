"""Import the rule lists and rule sets of imodels (the ``imodels`` package) into the IR.

imodels (Singh, Nasseri, Tan, Tang & Yu, "imodels: a python package for fitting interpretable
models", JOSS 6(61), 3192, 2021) fits interpretable models behind scikit-learn's interface.
Its binary rule lists become :class:`~xdt.ir.decision_list.DecisionList` models and its
Bayesian rule sets :class:`~xdt.ir.dnf.DNF` models, each predicting what the learner's own
``predict`` returns on every row (checked on real data in ``tests/test_import_rules.py``):

* ``GreedyRuleListClassifier`` (imodels' greedy rule list: CART stumps grown down one path,
  the branch with more of class 1 kept as a rule, the other split further). Its ``rules_``
  are dicts: every entry but the last is a rule that fires when ``x[index_col] >= cutoff``
  (``x < cutoff`` when ``flip``), and then predicts class 1 when ``1 - val_right < val_right``
  (its ``predict`` is the argmax of ``[1 - p, p]``, so a probability of exactly 1/2 gives
  class 0); the last entry's ``val`` decides when no rule fires. Rows are read as float64
  (``check_array``), so ``x >= t`` is ``below(t) < x`` and ``x < t`` is ``x <= below(t)``
  with ``below(t)`` the float64 just below ``t`` (:func:`xdt.interop.rule_terms.below`).
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

Refused, with the reason (:class:`~xdt.errors.UnsupportedEstimatorError`): models whose
rules *vote* -- ``SkopeRulesClassifier`` and ``FPSkopeClassifier`` (class 1 when the
precision-weighted share of the firing rules exceeds 1/2), ``BoostedRulesClassifier`` and
``SlipperClassifier`` (AdaBoost: the class with the largest sum of the weights of the rules
predicting it), ``RuleFitClassifier`` and ``FPLassoClassifier`` (a sparse linear model over
rules and features): each predicts a threshold of a weighted sum, which is neither a decision
list nor a DNF, and xdt refuses to change its meaning; regressors (no classes); imodels'
trees and other models.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from xdt.errors import NotFittedError, ParameterError, UnsupportedEstimatorError
from xdt.interop.rule_terms import below, satisfiable
from xdt.interop.sklearn_tree import estimator_classes, resolve_features
from xdt.interop.tabular import TabularEncoder
from xdt.ir.conditions import Condition
from xdt.ir.decision_list import DecisionList
from xdt.ir.dnf import DNF
from xdt.ir.features import Feature

__all__ = ["from_imodels"]

#: The imodels classifiers :func:`from_imodels` imports (and their subclasses).
SUPPORTED = ("GreedyRuleListClassifier", "OneRClassifier", "BayesianRuleListClassifier",
             "BayesianRuleSetClassifier")

_VOTE = ("which is neither a decision list (first rule wins) nor a DNF (some rule wins), "
         "so xdt cannot import it without changing its predictions; learn a rule list "
         "(imodels' GreedyRuleListClassifier or BayesianRuleListClassifier) or a rule set "
         "(imodels' BayesianRuleSetClassifier, wittgenstein's RIPPER: xdt.from_wittgenstein) "
         "instead")

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
    if kind.endswith("Regressor"):
        return f"{kind} is a regressor: it predicts numbers, not classes to explain"
    return (f"from_imodels imports fitted {', '.join(SUPPORTED)} models, not {kind}"
            + ("; imodels' trees that are scikit-learn trees import with xdt.from_sklearn"
               if "Tree" in kind else ""))


def from_imodels(model, feature_names: Sequence[str] | None = None, *, X=None,
                 binary_features: Iterable[str] | None = None,
                 encoder: TabularEncoder | None = None, target: str | None = None
                 ) -> DecisionList | DNF:
    """A :class:`~xdt.ir.decision_list.DecisionList` (rule lists) or a
    :class:`~xdt.ir.dnf.DNF` (rule sets) from a fitted imodels classifier.

    The rules are read from the fitted model as the module documentation describes; the
    imported model predicts what ``model.predict`` returns. What a rule means, per learner:

    * greedy rule list, OneR: ``IF x >= t`` (or ``x < t``) ``THEN`` the class of the
      training rows that reached the rule and passed its test (class 1 when more than half
      are), first rule wins; else the class of the rows left;
    * Bayesian rule list: ``IF`` all its 0/1 columns are 1 ``THEN`` class 1 when the
      rule's posterior probability of class 1 is at least 1/2, first rule wins; else the
      null rule's class;
    * Bayesian rule set: class 1 when some rule holds (each item a column equal to 1, or
      to 0 for ``c_neg``), else class 0: no conflicts to resolve.

    Parameters
    ----------
    model : fitted imodels classifier
        A ``GreedyRuleListClassifier``, ``OneRClassifier``, ``BayesianRuleListClassifier``
        or ``BayesianRuleSetClassifier`` (binary: imodels fits them on two classes).
    feature_names : sequence of str, optional
        Names of the n columns the model was fitted on, in order. Defaults to the model's
        own names (those it prints its rules with: the DataFrame's columns, the
        ``feature_names`` given to ``fit``, else imodels' ``X0, X1, ...``). Not with
        ``encoder``.
    X : array-like or DataFrame, optional
        Rows the greedy rule list or OneR was fitted on: the columns holding only 0 and 1
        become binary features (``x = 1`` rather than ``0.49999999999999994 < x``); the
        others are ordinal. The Bayesian models are over 0/1 columns: all their features are
        binary, ``X`` is not needed.
    binary_features : iterable of str, optional
        Names of columns to import as binary (0/1) features, with or instead of ``X``.
    encoder : TabularEncoder, optional
        When the model was fitted on ``encoder.transform(frame)``: the features are
        ``encoder.features_``, a test on a one-hot indicator becomes a categorical
        condition (``colour = red``, or ``colour in {blue, green}``), and the model predicts
        on ``frame`` itself. Not with ``feature_names``, ``X`` or ``binary_features``.
    target : str, optional
        Name of the predicted attribute, for readable rules.

    Returns
    -------
    DecisionList or DNF
        Over the n features, with classes ``model.classes_`` (integral labels as ints,
        others as text). A DecisionList for the rule lists; a DNF ``[classes_[0],
        classes_[1]]`` for the rule set. Rules that can never fire (their tests on one
        feature exclude each other) are left out.

    Raises
    ------
    UnsupportedEstimatorError
        ``imodels`` is not installed; ``model`` is not one of the classifiers above (the
        message says why: a weighted vote of rules -- SLIPPER, boosted rules, Skope-rules,
        RuleFit -- is neither a decision list nor a DNF); the number of feature names or
        encoder columns does not match the model; a Bayesian model's rule tests a column
        that the encoder made numeric; a rule set's column names collide with its negated
        items (``c`` and ``c_neg``).
    NotFittedError
        The model is not fitted (or its fit found no rule list); ``encoder`` is not fitted.
    ParameterError
        ``encoder`` together with ``feature_names``, ``X`` or ``binary_features``; ``encoder``
        not a ``TabularEncoder``.
    UnknownFeatureError
        ``binary_features`` names a column the model does not have.
    DataError
        ``X`` has no rows or another number of columns than the model.

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
    >>> (dl.predict(X) == est.predict(X)).all()                # doctest: +SKIP
    True
    """
    imodels = _imodels()
    if isinstance(model, imodels.GreedyRuleListClassifier):  # OneRClassifier too
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
            f"this {type(model).__name__} is not fitted (or its fit found no rule list); call "
            "fit(X, y) before importing it")
    if encoder is not None and (feature_names is not None or X is not None
                                or binary_features is not None):
        raise ParameterError(
            "give either encoder= or feature_names=/X=/binary_features=, not both: the "
            "encoder names the features and decides their kinds")
    classes = estimator_classes(model)
    if len(classes) != 2:
        raise UnsupportedEstimatorError(
            f"this {type(model).__name__} was fitted on {len(classes)} classes {classes}; "
            "imodels' rule lists and rule sets are binary")
    if kind == "greedy":
        own = list(model.feature_names_)
    elif kind == "brl":
        own = list(model.feature_names)
    else:
        own = list(model.attr_names_orig)
    if encoder is None:
        feature_names = own if feature_names is None else feature_names
        if kind != "greedy":  # fitted on 0/1 columns
            binary_features, X = [str(n) for n in feature_names], None
    features, columns = resolve_features(model.n_features_in_, model, feature_names, X,
                                         binary_features, encoder)
    if kind == "greedy":
        return _greedy_list(model, features, columns, classes, target)
    if kind == "brl":
        return _bayesian_list(model, features, columns, classes, target)
    return _bayesian_set(model, own, features, columns, classes, target)


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
