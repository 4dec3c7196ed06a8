"""Fidelity of the rule-learner importers ``xdt.from_imodels`` (greedy rule list, OneR,
Bayesian rule list and rule set) and ``xdt.from_wittgenstein`` (RIPPER, IREP): the imported
decision list or DNF predicts what the learner's own ``predict`` returns on every training and
test row of real data (compas, german with its categories, banknote), and on rows moved to,
and one float64 step either side of, every cut point and bin edge; hand-made rule lists and
rule sets import as the known rules (strict tests, ties at 1/2, bins closed on the right,
rules that can never fire); and what the IR cannot hold is refused with the errors of
:mod:`xdt.errors`."""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import DATASETS, require_package, require_shared
from tiers import sweep

import xdt
from xdt.errors import (
    DataError,
    NotFittedError,
    ParameterError,
    UnknownCategoryError,
    UnsupportedEstimatorError,
)
from xdt.interop._rule_terms import below
from xdt.interop._tabular import TabularEncoder
from xdt.ir._conditions import Condition
from xdt.ir._decision_list import DecisionList
from xdt.ir._dnf import DNF

imodels = require_package("imodels", "rules")
lw = require_package("wittgenstein", "rules")
from wittgenstein.base import Cond, Rule, Ruleset  # noqa: E402
from wittgenstein.discretize import BinTransformer  # noqa: E402

# wittgenstein's own warnings under pandas 3 (select_dtypes of 'str'), and its notices
pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::RuntimeWarning",
                                        "ignore::DeprecationWarning")


def table(name: str, target: str | None = None) -> tuple[pd.DataFrame, pd.Series]:
    frame = pd.read_csv(require_shared(DATASETS / name))
    target = target or frame.columns[-1]
    return frame.drop(columns=target), frame[target]


def split(X: pd.DataFrame, y: pd.Series, rows: int | None = None):
    """Training rows (two in three) and test rows (the third), of the first ``rows``."""
    X, y = X.iloc[:rows].reset_index(drop=True), y.iloc[:rows].reset_index(drop=True)
    test = np.arange(len(X)) % 3 == 2
    return (X[~test].reset_index(drop=True), y[~test].reset_index(drop=True),
            X[test].reset_index(drop=True), y[test].reset_index(drop=True))


def moved(X: pd.DataFrame, cuts: dict[str, list[float]], base: int = 10) -> pd.DataFrame:
    """The first ``base`` rows of ``X`` with one column moved to each cut ``t``, and to one
    float64 step below and above it."""
    rows = []
    for name, ts in cuts.items():
        for t in ts:
            for v in (t, float(np.nextafter(t, -np.inf)), float(np.nextafter(t, np.inf))):
                r = X.iloc[:base].astype({name: np.float64}).copy()
                r[name] = v
                rows.append(r)
    return pd.concat(rows, ignore_index=True)


def witt_fit(cls, X, y, pos, **kw):
    model = cls(random_state=0, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X, y, pos_class=pos)  # wittgenstein's fit returns None
    return model


def witt_labels(model, dnf: DNF, X) -> list:
    """wittgenstein's predictions as the DNF's labels (True: the positive class)."""
    return [dnf.classes[int(p)] for p in model.predict(X)]


def bin_edges(model) -> dict[str, list[float]]:
    """The finite edges of every bin wittgenstein's pandas engine made, by column."""
    bt = model.bin_transformer_
    return {f: sorted({e for lab in labels for e in bt._str_to_floor_ceil(lab, f)
                       if np.isfinite(e)}) for f, labels in bt.bins_.items()}


# --- imodels: greedy rule list, OneR --------------------------------------------------------

GREEDY = [imodels.GreedyRuleListClassifier, imodels.OneRClassifier]


@pytest.mark.parametrize("learner", GREEDY)
@pytest.mark.parametrize("name", sweep(["compas.csv", "banknote.csv"]))
def test_greedy_lists_predict_as_imodels_on_every_row(learner, name):
    X, y = table(name)
    Xtr, ytr, Xte, _ = split(X, y)
    est = learner(max_depth=4).fit(Xtr, ytr)
    dl = xdt.from_imodels(est, X=Xtr, target="y")
    assert isinstance(dl, DecisionList) and dl.classes == (0, 1)
    assert dl.n_rules == len(est.rules_) - 1
    for rows in (Xtr, Xte):
        assert dl.predict(rows).tolist() == est.predict(rows).tolist()
    cuts = {str(est.feature_names_[int(e["index_col"])]): [float(e["cutoff"])]
            for e in est.rules_[:-1]}
    probe = moved(X.astype(np.float64), cuts)  # x >= t on t, one step below and above
    ordinal = xdt.from_imodels(est)  # every column ordinal, so any number is accepted
    assert ordinal.predict(probe).tolist() == est.predict(probe).tolist()


@pytest.mark.parametrize("learner", GREEDY)
def test_greedy_lists_on_one_hot_german_read_as_categories(learner):
    X, y = table("german.csv", "class")
    Xtr, ytr, Xte, _ = split(X, y)
    enc = TabularEncoder().fit(X)
    est = learner(max_depth=5).fit(enc.transform(Xtr), ytr)
    dl = xdt.from_imodels(est, encoder=enc, target="class")
    assert dl.classes == ("bad", "good")  # imodels' classes_, its predict's labels
    for rows in (Xtr, Xte):
        assert dl.predict(rows).tolist() == est.predict(enc.transform(rows)).tolist()
    categorical = {f.name for f in dl.features if f.kind == "categorical"}
    tested = [c for t in dl.conditions for c in t]
    assert tested and all((c.values is not None) == (c.feature in categorical)
                          for c in tested)  # indicators read back as values, not codes


def test_hand_made_greedy_list_imports_as_its_rules():
    """Strict tests either side of the cut, flipped rules, a probability of exactly 1/2
    (imodels' argmax gives class 0), string labels."""
    est = imodels.GreedyRuleListClassifier()
    est.rules_ = [
        {"col": "age", "index_col": 1, "cutoff": 30.0, "flip": False, "val_right": 0.8,
         "val": 0.2},
        {"col": "smoker", "index_col": 0, "cutoff": 0.5, "flip": True, "val_right": 0.5,
         "val": 0.4},
        {"col": "age", "index_col": 1, "cutoff": 20.0, "flip": True, "val_right": 0.9,
         "val": 0.3},
        {"val": 0.3},
    ]
    est.classes_ = np.array(["no", "yes"])
    est.n_features_in_, est.feature_names_ = 2, ["smoker", "age"]
    X = np.array([[s, a] for s in (0, 1) for a in (10, below(20), 20, 25, below(30), 30, 40)])
    dl = xdt.from_imodels(est, X=X, target="sick")
    assert dl.conditions == ((Condition("age", above=below(30.0)),),
                                  (Condition("smoker", (0,)),),
                                  (Condition("age", upto=below(20.0)),))
    assert dl.rule_labels == ("yes", "no", "yes") and dl.default == "no"
    assert dl.predict(X).tolist() == est.predict(X).tolist()
    assert dl.predict([[1, 30.0], [1, below(30)], [1, 20.0], [1, below(20)]]).tolist() == \
        ["yes", "no", "no", "yes"]
    assert dl.firing([[0, 30.0], [0, 29.0], [1, 25.0]]).tolist() == [0, 1, -1]


# --- imodels: Bayesian rule list and rule set -------------------------------------------------

def bin_compas(rows: int = 1200, columns: int = 12):
    X, y = table("compas-discretized-bin.csv")
    return split(X.iloc[:, :columns], y, rows)


def test_bayesian_rule_list_predicts_as_imodels_on_every_row():
    Xtr, ytr, Xte, _ = bin_compas()
    est = imodels.BayesianRuleListClassifier(max_iter=500, n_chains=2, minsupport=0.05,
                                             random_state=0).fit(Xtr, ytr)
    dl = xdt.from_imodels(est)
    assert all(f.kind == "binary" for f in dl.features)
    assert dl.n_rules == list(est.d_star).index(0)  # the null rule is the default
    for rows in (Xtr, Xte):
        assert dl.predict(rows).tolist() == est.predict(rows).tolist()


def test_bayesian_rule_list_over_one_hot_categories():
    X, y = table("german.csv", "class")
    X = X[["checking_status", "credit_history", "savings_status", "employment", "housing"]]
    Xtr, ytr, Xte, _ = split(X, y)
    enc = TabularEncoder().fit(X)
    est = imodels.BayesianRuleListClassifier(max_iter=500, n_chains=2, minsupport=0.1,
                                             random_state=0).fit(enc.transform(Xtr), ytr)
    dl = xdt.from_imodels(est, encoder=enc, target="class")
    assert dl.classes == ("bad", "good")
    for rows in (Xtr, Xte):
        assert dl.predict(rows).tolist() == est.predict(enc.transform(rows)).tolist()
    assert all(c.values is not None for t in dl.conditions for c in t)


def test_bayesian_rule_set_is_a_dnf_that_predicts_as_imodels():
    Xtr, ytr, Xte, _ = bin_compas(columns=8)
    est = imodels.BayesianRuleSetClassifier(n_rules=30, maxlen=2, num_iterations=200,
                                            num_chains=1, random_state=0).fit(Xtr, ytr)
    dnf = xdt.from_imodels(est)
    assert isinstance(dnf, DNF) and dnf.classes == (0, 1)
    assert len(dnf.conditions) == len(est.rules_)
    for rows in (Xtr, Xte):  # its predict reads a DataFrame by name, an array by position
        assert dnf.predict(rows).tolist() == est.predict(rows).tolist()
        assert dnf.predict(rows).tolist() == est.predict(rows.to_numpy()).tolist()


def test_hand_made_bayesian_rule_set_and_list():
    """Items c (c = 1) and c_neg (c = 0); a rule that tests both never holds; the rule set's
    predict returns class codes, the DNF its classes_; the rule list stops at the null rule
    and gives class 1 from a posterior of exactly 1/2."""
    est = imodels.BayesianRuleSetClassifier()
    est.rules_ = [["a", "b_neg"], ["c"], ["a", "a_neg"]]
    est.attr_names_orig, est.n_features_in_ = ["a", "b", "c"], 3
    est.classes_ = np.array(["low", "high"])
    dnf = xdt.from_imodels(est, target="risk")
    assert dnf.conditions == ((Condition("a", (1,)), Condition("b", (0,))),
                              (Condition("c", (1,)),))
    X = np.array([[a, b, c] for a in (0, 1) for b in (0, 1) for c in (0, 1)])
    assert dnf.predict(X).tolist() == est.classes_[est.predict(X)].tolist()

    brl = imodels.BayesianRuleListClassifier()
    brl.feature_placeholders = np.array(["X_0", "X_1", "X_2"])
    brl.feature_names, brl.n_features_in_ = np.array(["a", "b", "c"]), 3
    brl.itemsets = ["null", ("X_0",), ("X_1", "X_2"), ("X_2",)]
    brl.d_star, brl.theta = [2, 1, 0, 3], [0.5, 0.2, 0.7, 0.9]
    brl.classes_ = np.array([0, 1])
    dl = xdt.from_imodels(brl)
    assert dl.conditions == ((Condition("b", (1,)), Condition("c", (1,))),
                                  (Condition("a", (1,)),))
    assert dl.rule_labels == (1, 0) and dl.default == 1
    assert dl.predict(X).tolist() == brl.predict(X).tolist()


# --- imodels: what is refused -----------------------------------------------------------------

@pytest.mark.parametrize("learner, why", [
    (imodels.SlipperClassifier, "SLIPPER .*weighted vote.*RIPPER"),
    (imodels.BoostedRulesClassifier, "weighted vote"),
    (imodels.SkopeRulesClassifier, "weighted vote"),
    (imodels.FPSkopeClassifier, "weighted vote"),
    (imodels.RuleFitClassifier, "linear model"),
    (imodels.FPLassoClassifier, "linear model"),
    (imodels.RuleFitRegressor, "regressor"),
])
def test_imodels_votes_of_rules_are_refused_with_the_reason(learner, why):
    with pytest.raises(UnsupportedEstimatorError, match=why) as err:
        xdt.from_imodels(learner())
    assert "neither a decision list" in str(err.value) or why == "regressor"


def test_imodels_errors():
    with pytest.raises(UnsupportedEstimatorError, match="not object"):
        xdt.from_imodels(object())
    with pytest.raises(UnsupportedEstimatorError, match="xdt.from_sklearn"):
        xdt.from_imodels(imodels.GreedyTreeClassifier())
    for unfitted in (imodels.GreedyRuleListClassifier(), imodels.OneRClassifier(),
                     imodels.BayesianRuleListClassifier(),
                     imodels.BayesianRuleSetClassifier()):
        with pytest.raises(NotFittedError, match="not fitted"):
            xdt.from_imodels(unfitted)
    X, y = table("compas.csv")
    est = imodels.GreedyRuleListClassifier(max_depth=2).fit(X, y)
    with pytest.raises(UnsupportedEstimatorError, match="2 feature names"):
        xdt.from_imodels(est, ["a", "b"])
    enc = TabularEncoder().fit(X)
    with pytest.raises(ParameterError, match="not both"):
        xdt.from_imodels(est, list(X.columns), encoder=enc)
    with pytest.raises(ParameterError, match="TabularEncoder"):
        xdt.from_imodels(est, encoder="not an encoder")


def test_missing_packages_say_which_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "imodels", None)
    with pytest.raises(UnsupportedEstimatorError, match=r"pip install 'xdt\[rules\]'"):
        xdt.from_imodels(object())
    monkeypatch.setitem(sys.modules, "wittgenstein.abstract_ruleset_classifier", None)
    with pytest.raises(UnsupportedEstimatorError, match=r"pip install 'xdt\[rules\]'"):
        xdt.from_wittgenstein(object())


# --- wittgenstein: RIPPER, IREP ---------------------------------------------------------------

WITT = [lw.RIPPER, lw.IREP]


@pytest.mark.parametrize("learner", WITT)
def test_ripper_and_irep_on_compas_predict_as_wittgenstein(learner):
    """Binned counts (Number_of_Priors) and 0/1 columns; every edge of every bin probed."""
    X, y = table("compas.csv")
    Xtr, ytr, Xte, _ = split(X, y, rows=1800 if learner is lw.RIPPER else None)  # RIPPER: slower
    model = witt_fit(learner, Xtr, ytr, 1)
    assert len(model.ruleset_) > 1
    dnf = xdt.from_wittgenstein(model, Xtr, target="recid")
    assert isinstance(dnf, DNF) and dnf.classes == (0, 1)
    assert len(dnf.conditions) == len(model.ruleset_)
    kinds = {f.name: f.kind for f in dnf.features}
    assert kinds["Number_of_Priors"] == "ordinal" and kinds["Female"] == "binary"
    for rows in (Xtr, Xte):
        assert dnf.predict(rows).tolist() == witt_labels(model, dnf, rows)
    probe = moved(X, bin_edges(model))
    assert dnf.predict(probe).tolist() == witt_labels(model, dnf, probe)


@pytest.mark.parametrize("learner", WITT)
def test_ripper_and_irep_on_german_categories_and_bins(learner):
    X, y = table("german.csv", "class")
    Xtr, ytr, Xte, _ = split(X, y, rows=600 if learner is lw.RIPPER else None)
    model = witt_fit(learner, Xtr, ytr, "bad")
    assert len(model.ruleset_) > 1
    dnf = xdt.from_wittgenstein(model, X, target="class")
    assert dnf.classes == ("not bad", "bad")
    named = xdt.from_wittgenstein(model, X, classes=["good", "bad"])
    assert named.classes == ("good", "bad")
    kinds = {f.name: f.kind for f in dnf.features}
    assert kinds["duration"] == kinds["age"] == "ordinal"
    assert kinds["checking_status"] == kinds["installment_commitment"] == "categorical"
    for rows in (Xtr, Xte):
        assert dnf.predict(rows).tolist() == witt_labels(model, dnf, rows)
    probe = moved(X, bin_edges(model), base=5)
    assert dnf.predict(probe).tolist() == witt_labels(model, dnf, probe)


def test_ripper_on_banknote_every_column_binned_needs_no_rows():
    X, y = table("banknote.csv")
    Xtr, ytr, Xte, _ = split(X, y)
    model = witt_fit(lw.IREP, Xtr, ytr, 0)
    dnf = xdt.from_wittgenstein(model)  # every column binned: X not needed
    assert dnf.classes == ("not 0", 0)
    assert all(f.kind == "ordinal" for f in dnf.features)
    for rows in (Xtr, Xte):
        assert dnf.predict(rows).tolist() == witt_labels(model, dnf, rows)
    probe = moved(X, bin_edges(model), base=3)
    assert dnf.predict(probe).tolist() == witt_labels(model, dnf, probe)


def test_wittgenstein_numpy_engine_bins_are_closed_on_the_left():
    """wittgenstein's "numpy" engine bins by numpy.digitize: t_k <= x < t_k+1."""
    X, y = table("banknote.csv")
    bt = BinTransformer(n_discretize_bins=5, engine="numpy")
    model = witt_fit(lw.IREP, bt.fit_transform(X), y, 0)
    model.bin_transformer_ = bt  # predict bins raw rows with it
    dnf = xdt.from_wittgenstein(model)
    assert dnf.predict(X).tolist() == witt_labels(model, dnf, X)
    cuts = {f: [float(t) for t in ts] for f, ts in bt.thresholds_.items()}
    probe = moved(X, cuts, base=3)
    assert dnf.predict(probe).tolist() == witt_labels(model, dnf, probe)


def test_hand_made_ruleset_imports_as_its_rules():
    """The first bin "<b" is x <= b (closed), "a - b" is a < x <= b, ">a" is a < x; a rule
    with two bins of one column never fires and is left out; equality on text and 0/1."""
    X = pd.DataFrame({"age": np.arange(1, 21) * 1.0,
                      "smoker": [0, 1] * 10,
                      "colour": ["red", "blue", "green", "blue"] * 5})
    y = [0] * 10 + [1] * 10
    model = witt_fit(lw.RIPPER, X, y, 1, n_discretize_bins=4)
    assert model.bin_transformer_.bins_ == {
        "age": ["<5.75", "5.75 - 10.5", "10.5 - 15.25", ">15.25"]}
    model.ruleset_ = Ruleset([Rule([Cond("age", "<5.75"), Cond("smoker", 1)]),
                              Rule([Cond("age", "5.75 - 10.5"), Cond("colour", "red")]),
                              Rule([Cond("age", ">15.25")]),
                              Rule([Cond("age", "<5.75"), Cond("age", ">15.25")])])
    dnf = xdt.from_wittgenstein(model, X, target="sick")
    assert dnf.conditions == (
        (Condition("age", upto=5.75), Condition("smoker", (1,))),
        (Condition("age", above=5.75, upto=10.5), Condition("colour", ("red",))),
        (Condition("age", above=15.25),))
    assert [f.kind for f in dnf.features] == ["ordinal", "binary", "categorical"]
    assert dnf.features[2].domain == ("blue", "green", "red")
    up = float(np.nextafter(5.75, np.inf))
    rows = pd.DataFrame({"age": [5.75, up, 10.5, 15.25, float(np.nextafter(15.25, np.inf))],
                         "smoker": [1, 1, 0, 1, 0], "colour": ["blue", "red", "red", "red",
                                                               "green"]})
    assert dnf.predict(rows).tolist() == [1, 1, 1, 0, 1]
    assert dnf.predict(rows).tolist() == witt_labels(model, dnf, rows)
    assert dnf.predict(X).tolist() == witt_labels(model, dnf, X)
    with pytest.raises(UnknownCategoryError):  # wittgenstein would find no rule on it
        dnf.predict(rows.assign(colour="purple"))


def test_empty_and_universal_rulesets():
    X = pd.DataFrame({"x": [0, 1, 0, 1], "c": ["a", "b", "a", "b"]})
    model = witt_fit(lw.IREP, X, [0, 1, 0, 1], 1)
    model.ruleset_ = Ruleset([])
    assert xdt.from_wittgenstein(model, X).predict(X).tolist() == [0, 0, 0, 0]
    model.ruleset_ = Ruleset([Rule([Cond("x", 1)]), Rule([])])
    dnf = xdt.from_wittgenstein(model, X)
    assert dnf.predict(X).tolist() == [1, 1, 1, 1] == witt_labels(model, dnf, X)


def test_array_fitted_model_names_its_features_by_position():
    X, y = table("compas.csv")
    A = X.iloc[:900].to_numpy()
    model = witt_fit(lw.IREP, A, y.iloc[:900].to_numpy(), 1)
    dnf = xdt.from_wittgenstein(model, A, feature_names=list(X.columns))
    assert dnf.features.names == tuple(X.columns) or list(dnf.features.names) == list(X.columns)
    assert dnf.predict(A).tolist() == witt_labels(model, dnf, A)
    by_number = xdt.from_wittgenstein(model, A)
    assert list(by_number.features.names) == [str(i) for i in range(A.shape[1])]


def test_wittgenstein_errors():
    with pytest.raises(UnsupportedEstimatorError, match="not GreedyRuleListClassifier"):
        xdt.from_wittgenstein(imodels.GreedyRuleListClassifier())
    with pytest.raises(NotFittedError, match="not fitted"):
        xdt.from_wittgenstein(lw.RIPPER())
    X, y = table("german.csv", "class")
    model = witt_fit(lw.IREP, X, y, "bad")
    with pytest.raises(ParameterError, match="pass the training rows as X"):
        xdt.from_wittgenstein(model)
    with pytest.raises(DataError, match="columns"):
        xdt.from_wittgenstein(model, X.to_numpy()[:, :3])
    with pytest.raises(DataError, match="no column"):
        xdt.from_wittgenstein(model, X.drop(columns="checking_status"))
    with pytest.raises(ParameterError, match="distinct names"):
        xdt.from_wittgenstein(model, X, ["a", "b"])
    with pytest.raises(ParameterError, match="2 distinct labels"):
        xdt.from_wittgenstein(model, X, classes=["good"])
    model.ruleset_ = Ruleset([Rule([Cond("nowhere", 1)])])
    with pytest.raises(UnsupportedEstimatorError, match="nowhere"):
        xdt.from_wittgenstein(model, X)


# --- explanations and the README ------------------------------------------------------------

def test_imported_rules_are_explained():
    X, y = table("german.csv", "class")
    X, y = X.iloc[:400], y.iloc[:400]
    model = witt_fit(lw.IREP, X, y, "bad")
    dnf = xdt.from_wittgenstein(model, X, classes=["good", "bad"], target="class")
    enc = TabularEncoder().fit(X)
    est = imodels.GreedyRuleListClassifier(max_depth=3).fit(enc.transform(X), y)
    dl = xdt.from_imodels(est, encoder=enc, target="class")
    for imported in (dnf, dl):
        ex = xdt.Explainer(imported)
        for i in range(3):
            axp = ex.axp(X.iloc[i])
            assert axp.prediction == imported.predict(X.iloc[[i]])[0]


def test_readme_rules_block_runs_as_written():
    from mdblocks import readme_block

    block = readme_block("import wittgenstein")
    scope: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec("import xdt\n" + block, scope)  # noqa: S102 - the README's own example
    dnf, ripper, X = scope["dnf"], scope["ripper"], scope["X"]
    assert dnf.predict(X).tolist() == [dnf.classes[int(p)] for p in ripper.predict(X)]
    assert str(dnf.rules()[0]) == "checking_status = <0 AND job = skilled AND 36 < duration"
    dl, est = scope["dl"], scope["est"]
    assert dl.predict(X).tolist() == est.predict(scope["enc"].transform(X)).tolist()
    assert str(dl) == (
        "IF checking_status = no checking THEN class = good\n"
        "ELSE IF duration < 22.5 THEN class = good\n"
        "ELSE IF savings_status in {100<=X<500, 500<=X<1000, >=1000, no known savings} "
        "THEN class = good\n"
        "ELSE class = bad")
    assert xdt.Explainer(dl).axp(X.iloc[0]).rule == \
        "IF duration < 22.5 THEN class = good"


# --- imodels: FIGS, a sum of trees imported as a TreeEnsemble -------------------------------

from imodels.tree.figs import Node as FigsNode  # noqa: E402

from xdt.interop._imodels import FIGS_MAX_TREES  # noqa: E402
from xdt.ir._ensemble import TreeEnsemble  # noqa: E402
from xdt.ir._tree import CategoricalSplit, ThresholdSplit  # noqa: E402


def figs_cuts(est, names) -> dict[str, list[float]]:
    """Every threshold FIGS tests, by column name."""
    cuts: dict[str, set[float]] = {}
    stack = list(est.trees_)
    while stack:
        node = stack.pop()
        if node.left is not None or node.right is not None:
            cuts.setdefault(str(names[int(node.feature)]), set()).add(float(node.threshold))
            stack += [c for c in (node.left, node.right) if c is not None]
    return {k: sorted(v) for k, v in cuts.items()}


@pytest.mark.parametrize("name, rules", sweep([("compas.csv", 15), ("banknote.csv", 12),
                                               ("iris.csv", 10)]))
def test_figs_predicts_as_imodels_on_every_row_and_at_every_threshold(name, rules):
    X, y = table(name)
    Xtr, ytr, Xte, _ = split(X, y)
    est = imodels.FIGSClassifier(max_rules=rules, max_trees=4, random_state=0).fit(Xtr, ytr)
    model = xdt.from_imodels(est, target="y")
    assert isinstance(model, TreeEnsemble) and model.n_trees == len(est.trees_)
    assert list(model.classes) == est.classes_.tolist()
    assert model.combine == ("proba" if len(model.classes) == 2 else "margin")
    for rows in (Xtr, Xte):
        assert model.predict(rows).tolist() == est.predict(rows).tolist()
    cuts = figs_cuts(est, list(X.columns))
    assert cuts
    probe = moved(X.astype(np.float64), cuts)  # x <= t on t, one float64 step either side
    assert model.predict(probe).tolist() == est.predict(probe).tolist()
    assert model.reference(probe.to_numpy()).tolist() == est.predict(probe).tolist()


def test_figs_on_one_hot_german_reads_categories_and_is_explained():
    X, y = table("german.csv", "class")
    Xtr, ytr, Xte, _ = split(X, y)
    enc = TabularEncoder().fit(X)
    est = imodels.FIGSClassifier(max_rules=12, max_trees=3, random_state=0).fit(
        enc.transform(Xtr), ytr)
    model = xdt.from_imodels(est, encoder=enc, target="class")
    assert model.classes == ("bad", "good")
    for rows in (Xtr, Xte):
        assert model.predict(rows).tolist() == est.predict(enc.transform(rows)).tolist()
    splits = [tree.root for tree in model.trees]
    kinds = set()
    while splits:
        node = splits.pop()
        if isinstance(node, ThresholdSplit):
            kinds.add(model.features[node.feature].kind)
            splits += [node.left, node.right]
        elif isinstance(node, CategoricalSplit):
            kinds.add(model.features[node.feature].kind)
            splits += [b.node for b in node.branches]
    assert kinds == {"ordinal", "categorical"}  # indicator tests read back as categories
    ex = xdt.Explainer(model)  # the box engine
    for i in range(3):
        axp = ex.axp(Xte.iloc[i], verify=True)
        assert axp.prediction == est.predict(enc.transform(Xte.iloc[[i]]))[0]


def test_figs_classifier_cv_imports_the_model_it_chose():
    X, y = table("compas.csv")
    cv = imodels.FIGSClassifierCV(n_rules_list=[4, 8], n_trees_list=[2], depth_list=[3],
                                  cv=2).fit(X.iloc[:600], y.iloc[:600])
    model = xdt.from_imodels(cv)
    assert model.n_trees == len(cv.figs.trees_)
    assert model.predict(X).tolist() == cv.predict(X).tolist()
    ex = xdt.Explainer(model)
    for i in range(3):
        assert ex.axp(X.iloc[i], verify=True).prediction == cv.predict(X.iloc[[i]])[0]


def hand_made_figs(trees, classes=(0, 1)) -> imodels.FIGSClassifier:
    """A FIGSClassifier over two columns ``a``, ``b`` holding ``trees`` (FIGS nodes)."""
    est = imodels.FIGSClassifier()
    est.trees_ = list(trees)
    est.classes_ = np.array(classes)
    est._class_map = dict(enumerate(classes))
    est.n_outputs = len(classes)
    est.n_features_in_ = 2
    est.feature_names_ = ["a", "b"]
    return est


def stump(feature: int, t: float, left, right) -> FigsNode:
    return FigsNode(feature=feature, threshold=t, value=np.zeros(len(left)),
                    left=FigsNode(value=np.array(left, dtype=float)),
                    right=FigsNode(value=np.array(right, dtype=float)))


def test_hand_made_figs_sums_in_tree_order_from_zero_and_ties_go_to_the_first_class():
    tiny = 2.0 ** -53  # 1 + tiny rounds back to 1 (to even); 1 + 2 * tiny does not
    # On a <= 0.5 and b <= 2 the class-1 sum is (((0 + 1) + tiny) + tiny) - 1 = 0 in tree
    # order, a tie with class 0's 0.0 (class 0 wins); summed backwards it is 2**-52 > 0.
    assert ((0.0 + 1.0) + tiny) + tiny - 1.0 == 0.0 < (((0.0 - 1.0) + tiny) + tiny) + 1.0
    trees = [stump(0, 0.5, [0.0, 1.0], [0.0, 1.0]),
             stump(0, 0.5, [0.0, tiny], [0.0, 0.25]),
             stump(1, 2.0, [0.0, tiny], [0.0, 2 * tiny]),
             stump(0, 0.5, [0.0, -1.0], [-0.5, -1.0])]
    est = hand_made_figs(trees)
    model = xdt.from_imodels(est)
    assert model.combine == "proba" and model.divisor == 1.0 and model.n_trees == 4
    rows = [[0.5, 0.0], [below(0.5), 0.0], [float(np.nextafter(0.5, 1)), 0.0],
            [0.5, 2.0], [0.0, float(np.nextafter(2.0, 3))], [1.0, 2.0]]
    expected = est.predict(np.array(rows))
    assert expected.tolist() == [0, 0, 1, 0, 1, 1]  # x <= t goes left; the tie is class 0
    assert model.predict(rows).tolist() == expected.tolist()
    assert model.trees[0].root.threshold == 0.5
    # a root that never split is one leaf: a constant added to every row
    flat = hand_made_figs([FigsNode(feature=-2, threshold=-2.0, value=np.array([0.4, 0.6])),
                           stump(1, 0.0, [0.2, 0.0], [-0.3, 0.0])], classes=("no", "yes"))
    model = xdt.from_imodels(flat)
    rows = [[0.0, 0.0], [0.0, 1.0], [5.0, -1.0]]
    assert model.predict(rows).tolist() == flat.predict(np.array(rows)).tolist() == \
        ["no", "yes", "no"]


def test_hand_made_multiclass_figs_is_a_margin_ensemble():
    trees = [stump(0, 1.0, [0.5, 0.25, 0.25], [0.125, 0.25, 0.625]),
             stump(1, 0.0, [0.25, 0.5, -0.5], [0.25, -0.125, -0.125])]
    est = hand_made_figs(trees, classes=("x", "y", "z"))
    model = xdt.from_imodels(est)
    assert model.combine == "margin" and model.base == (0.0, 0.0, 0.0)
    rows = np.array([[0.0, 0.0], [0.0, 1.0], [2.0, 0.0], [1.0, 0.0], [2.0, 1.0]])
    assert model.predict(rows).tolist() == est.predict(rows).tolist() == \
        ["x", "x", "y", "x", "z"]  # rows 0 and 3: x and y tie at 0.75, x is first
    np.testing.assert_allclose(model.predict_proba(rows), est.predict_proba(rows))


def test_figs_refusals_and_errors():
    for unfitted in (imodels.FIGSClassifier(), imodels.FIGSClassifierCV()):
        with pytest.raises(NotFittedError, match="not fitted"):
            xdt.from_imodels(unfitted)
    for regressor in (imodels.FIGSRegressor(), imodels.FIGSRegressorCV()):
        with pytest.raises(UnsupportedEstimatorError, match="is a regressor"):
            xdt.from_imodels(regressor)
    many = hand_made_figs([stump(0, float(i), [0.0, 0.1], [0.1, 0.0])
                           for i in range(FIGS_MAX_TREES + 1)])
    with pytest.raises(UnsupportedEstimatorError, match="pairwise.*max_trees=7"):
        xdt.from_imodels(many)
    assert xdt.from_imodels(hand_made_figs(many.trees_[:FIGS_MAX_TREES])).n_trees == 7
    X, y = table("compas.csv")
    X = X.iloc[:300].assign(group=np.where(X.Female.iloc[:300] == 1, "f", "m"))
    est = imodels.FIGSClassifier(max_rules=3).fit(X, y.iloc[:300],
                                                  categorical_features=["group"])
    with pytest.raises(UnsupportedEstimatorError, match="categorical_features=.*TabularEncoder"):
        xdt.from_imodels(est)
    one = imodels.FIGSClassifier(max_rules=3).fit(X.drop(columns="group"), np.zeros(300, int))
    with pytest.raises(UnsupportedEstimatorError, match="1 class"):
        xdt.from_imodels(one)
    est = imodels.FIGSClassifier(max_rules=3).fit(X.drop(columns="group"), y.iloc[:300])
    with pytest.raises(UnsupportedEstimatorError, match="2 feature names"):
        xdt.from_imodels(est, ["a", "b"])


# --- X must match the model: its columns, and the learner's own predict on its rows ----------
# (review findings: an X in another column order imported a wrong model; fit returns None;
# boolean class labels)

from xdt.errors import InvalidModelError  # noqa: E402
from xdt.interop._rule_terms import check_same_predictions  # noqa: E402


def test_docstring_examples_of_both_importers_run_as_written():
    import doctest

    from xdt.interop import _imodels as imodels_module
    from xdt.interop import _wittgenstein as witt_module

    for module, fn in ((imodels_module, xdt.from_imodels), (witt_module, xdt.from_wittgenstein)):
        doc = fn.__doc__.replace("# doctest: +SKIP", "")  # run what the docs skip
        test = doctest.DocTestParser().get_doctest(doc, dict(module.__dict__), fn.__name__,
                                                  None, 0)
        runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            runner.run(test, out=lambda _: None)
        assert runner.summarize(verbose=False) == (0, len(test.examples)), fn.__name__


def test_wittgenstein_none_says_fit_returns_none():
    with pytest.raises(UnsupportedEstimatorError,
                       match="got None: wittgenstein's fit returns None; pass the fitted "
                             "RIPPER/IREP object itself"):
        xdt.from_wittgenstein(None)


def compas_greedy(rows: int = 1500):
    X, y = table("compas.csv")
    X, y = X.iloc[:rows], y.iloc[:rows]
    return X, y, imodels.GreedyRuleListClassifier(max_depth=4).fit(X, y)


def test_imodels_x_must_have_the_model_columns():
    """The reviewer's case: columns reversed, as an array, made Number_of_Priors binary."""
    X, _, est = compas_greedy()
    reversed_ = X[X.columns[::-1]]
    with pytest.raises(DataError, match="fitted on a DataFrame.*pass X as a DataFrame"):
        xdt.from_imodels(est, X=reversed_.to_numpy())
    dl = xdt.from_imodels(est, X=reversed_)  # by name: the same model as with X
    same = xdt.from_imodels(est, X=X)
    assert str(dl) == str(same) and dl.features == same.features
    assert dl.features["Number_of_Priors"].kind == "ordinal"
    with pytest.raises(DataError, match=r"lacks \['Asian'.*'Misdemeanor'\]"):
        xdt.from_imodels(est, X=X.iloc[:, :5])
    with pytest.raises(DataError, match=r"has \['extra'\] besides"):
        xdt.from_imodels(est, X=X.assign(extra=1))
    with pytest.raises(DataError, match=r"lacks \['Number_of_Priors'.*has \['NUMBER_OF"):
        xdt.from_imodels(est, X=X.rename(columns=str.upper))
    with pytest.raises(DataError, match="no rows"):
        xdt.from_imodels(est, X=X.iloc[:0])
    # fitted on an array, the learner reads by position: an array in another order shows
    # itself where a 0/1 column is tested at a cutoff that does not separate 0 from 1
    # (on every compas row, as the reviewer: Number_of_Priors is cut at 1.5)
    A, y = (frame.to_numpy() for frame in table("compas.csv"))
    on_array = imodels.GreedyRuleListClassifier(max_depth=4).fit(A, y)
    assert xdt.from_imodels(on_array, X=A).predict(A).tolist() == on_array.predict(A).tolist()
    with pytest.raises(UnsupportedEstimatorError, match="'X0' at x >= 1.5, which does not "
                                                        "separate 0 from 1"):
        xdt.from_imodels(on_array, X=A[:, ::-1])
    with pytest.raises(DataError, match=r"lacks \['X0'.*array"):  # imodels' own names
        xdt.from_imodels(on_array, X=X)


class _Flipped(imodels.GreedyRuleListClassifier):
    """A greedy rule list whose predict disagrees with its rules on row 7, and counts its
    calls: as if imodels' predict read its rules otherwise than xdt."""

    calls = 0

    def predict(self, X):
        type(self).calls += 1
        out = super().predict(X)
        out[7] = 1 - out[7]
        return out


def test_imodels_import_is_checked_against_predict_once_each_side(monkeypatch):
    X, y, _ = compas_greedy()
    est = _Flipped(max_depth=4).fit(X, y)
    ours = []
    original = DecisionList.predict
    monkeypatch.setattr(DecisionList, "predict",
                        lambda self, rows: ours.append(len(rows)) or original(self, rows))
    _Flipped.calls = 0
    X = X.set_axis(range(100, 100 + len(X)))
    with pytest.raises(DataError, match=r"row 7 of X \(index 107\).*1 of 1500 rows differ.*"
                                        r"pass the rows"):
        xdt.from_imodels(est, X=X)
    assert _Flipped.calls == 1 and ours == [len(X)]  # one vectorised predict each side
    enc = TabularEncoder().fit(X)
    flipped = _Flipped(max_depth=3).fit(enc.transform(X), y)
    with pytest.raises(DataError, match="row 7 of X"):
        xdt.from_imodels(flipped, encoder=enc, X=X)


def test_imodels_encoder_with_x_is_checked_and_must_be_a_frame():
    X, y = table("german.csv", "class")
    X, y = X.iloc[:400], y.iloc[:400]
    enc = TabularEncoder().fit(X)
    est = imodels.GreedyRuleListClassifier(max_depth=3).fit(enc.transform(X), y)
    dl = xdt.from_imodels(est, encoder=enc, X=X)
    assert str(dl) == str(xdt.from_imodels(est, encoder=enc))
    with pytest.raises(DataError, match="with encoder=, X must be a DataFrame"):
        xdt.from_imodels(est, encoder=enc, X=enc.transform(X))
    with pytest.raises(DataError, match="encoder.transform refuses X"):
        xdt.from_imodels(est, encoder=enc, X=X.drop(columns="duration"))
    on_frame = imodels.GreedyRuleListClassifier(max_depth=3).fit(
        pd.DataFrame(enc.transform(X), columns=enc.encoded_names_), y)  # reads by name
    assert xdt.from_imodels(on_frame, encoder=enc, X=X).n_rules == on_frame.complexity_ - 1


def test_imodels_bayesian_and_figs_check_x_too():
    Xtr, ytr, _, _ = bin_compas(rows=600, columns=8)
    brs = imodels.BayesianRuleSetClassifier(n_rules=20, maxlen=2, num_iterations=50,
                                            num_chains=1, random_state=0).fit(Xtr, ytr)
    assert xdt.from_imodels(brs, X=Xtr[Xtr.columns[::-1]]).conditions == \
        xdt.from_imodels(brs).conditions
    with pytest.raises(DataError, match="fitted on a DataFrame"):
        xdt.from_imodels(brs, X=Xtr.to_numpy())
    with pytest.raises(DataError, match="X does not fit the imported model"):
        xdt.from_imodels(brs, X=Xtr.assign(**{Xtr.columns[0]: 2}))  # 0/1 columns only
    X, y = table("compas.csv")
    figs = imodels.FIGSClassifier(max_rules=6, max_trees=2, random_state=0).fit(
        X.iloc[:800], y.iloc[:800])
    model = xdt.from_imodels(figs, X=X[X.columns[::-1]])
    assert model.predict(X).tolist() == figs.predict(X).tolist()
    with pytest.raises(DataError, match="fitted on a DataFrame"):
        xdt.from_imodels(figs, X=X.to_numpy())


def test_check_same_predictions_names_the_first_differing_row():
    dl = xdt.from_imodels(compas_greedy(300)[2])
    X = table("compas.csv")[0].iloc[:20]
    theirs = dl.predict(X).tolist()
    check_same_predictions(dl, X, lambda: theirs, "learner", X.index, "advice")
    theirs[4] = 1 - theirs[4]
    theirs[9] = 1 - theirs[9]
    with pytest.raises(DataError, match=r"on row 4 of X the imported model predicts .* "
                                        r"\(2 of 20 rows differ\); advice"):
        check_same_predictions(dl, X, lambda: theirs, "learner", X.index, "advice")
    with pytest.raises(DataError, match="learner's own predict refuses X"):
        check_same_predictions(dl, X, lambda: int("x"), "learner", None, "advice")


def banknote_ripper():
    X, y = table("banknote.csv")
    X, y = X.iloc[::3].reset_index(drop=True), y.iloc[::3].reset_index(drop=True)
    return X, y, witt_fit(lw.RIPPER, X, y, 1)


def test_wittgenstein_x_must_have_the_model_columns_even_when_all_are_binned():
    X, _, model = banknote_ripper()
    assert set(model.bin_transformer_.bins_) == set(X.columns)  # every column binned
    with pytest.raises(DataError, match=r"no column\(s\) \['curtosis', 'entropy'\]"):
        xdt.from_wittgenstein(model, X.iloc[:, :2])
    with pytest.raises(DataError, match=r"no column\(s\) \['variance'.*\['VARIANCE'"):
        xdt.from_wittgenstein(model, X.rename(columns=str.upper))
    with pytest.raises(DataError, match=r"\['extra'\] besides"):
        xdt.from_wittgenstein(model, X.assign(extra=0))
    with pytest.raises(DataError, match="fitted on a DataFrame.*pass X as a DataFrame"):
        xdt.from_wittgenstein(model, X.to_numpy())
    with pytest.raises(DataError, match="no rows"):
        xdt.from_wittgenstein(model, X.iloc[:0])
    with pytest.raises(DataError, match="X does not fit the imported model"):
        xdt.from_wittgenstein(model, X.astype(object).assign(variance="high"))
    dnf = xdt.from_wittgenstein(model, X[X.columns[::-1]])  # by name, in any order
    assert dnf.conditions == xdt.from_wittgenstein(model).conditions
    # the label column wittgenstein's own predict drops is accepted, as in fit(df, class_feat=)
    framed = lw.IREP(random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        framed.fit(X.assign(label=model.predict(X)), class_feat="label", pos_class=True)
    assert xdt.from_wittgenstein(framed, X.assign(label=0)).classes == (0, 1)


def test_wittgenstein_import_is_checked_against_predict_on_a_reset_index():
    X, y = table("german.csv", "class")
    X, y = X.iloc[:300], y.iloc[:300]
    model = witt_fit(lw.IREP, X, y, "bad")
    repeated = X.set_axis([0] * len(X))  # wittgenstein marks covered rows by index label
    dnf = xdt.from_wittgenstein(model, repeated)
    assert dnf.predict(X).tolist() == witt_labels(model, dnf, X)
    calls = []
    truth = model.predict

    def flipped(rows):
        calls.append(len(rows))
        out = list(truth(rows))
        out[3] = not out[3]
        return out

    model.predict = flipped
    with pytest.raises(DataError, match=r"row 3 of X \(index 0\).*1 of 300 rows differ"):
        xdt.from_wittgenstein(model, repeated)
    assert calls == [300]  # one predict
    del model.predict
    gaps = X.astype({"job": object})
    gaps.loc[5, "job"] = None  # the DNF refuses rows with a missing value: left out
    assert xdt.from_wittgenstein(model, gaps).classes == ("not bad", "bad")


def test_wittgenstein_classes_are_not_booleans():
    X, y, model = banknote_ripper()
    for labels in ([False, True], [np.False_, np.True_], [0, True]):
        with pytest.raises(ParameterError, match="not booleans"):
            xdt.from_wittgenstein(model, X, classes=labels)
    with pytest.raises(InvalidModelError, match="print alike"):
        xdt.from_wittgenstein(model, X, classes=[1, "1"])
    # wittgenstein's own pos_class a boolean: the labels are the target's values as 0/1
    for pos, labels in ((True, (0, 1)), (False, (1, 0))):
        target = y == (1 if pos else 0)
        flag = witt_fit(lw.RIPPER, X, target, pos)
        dnf = xdt.from_wittgenstein(flag, X)
        assert dnf.classes == labels
        assert dnf.predict(X).tolist() == witt_labels(flag, dnf, X)


def test_a_figs_tree_deeper_than_the_recursion_limit_imports():
    # a chain: node i tests a <= i + 0.5; its left leaf is class i % 2, its right edge goes
    # on down; the last right edge is class 1. Row a = k reaches node k's left leaf.
    depth = 3 * sys.getrecursionlimit()
    node = FigsNode(value=np.array([0.0, 1.0]))
    for i in reversed(range(depth)):
        node = FigsNode(feature=0, threshold=i + 0.5, value=np.zeros(2),
                        left=FigsNode(value=np.array([1.0, 0.0] if i % 2 == 0 else [0.0, 1.0])),
                        right=node)
    model = xdt.from_imodels(hand_made_figs([node]))
    ks = [0, 1, 2, 999, 1000, depth - 1, depth + 5]
    assert model.predict([[k, 0.0] for k in ks]).tolist() == \
        [k % 2 if k < depth else 1 for k in ks]
