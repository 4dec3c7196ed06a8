"""The ensemble SAT engine on real data: scikit-learn random forests on compas and banknote,
rebuilt in the IR leaf by leaf; every AXp is checked by sampling
points that agree on it through the forest's own ``predict``, every CXp's counterexample
flips it there too, and the IR reproduces ``predict`` on every training row."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import DATASETS, require_shared

import xdt
from xdt.explain import verify
from xdt.interop.sklearn import float32_threshold
from xdt.ir import DecisionTree, Feature, Leaf, ThresholdSplit
from xdt.ir.ensemble import TreeEnsemble

sklearn = pytest.importorskip("sklearn.ensemble")


def _forest_in_the_ir(rf, names: list[str]) -> TreeEnsemble:
    """A fitted RandomForestClassifier as a "proba" TreeEnsemble: each leaf holds the
    tree's predict_proba row (value / value.sum(), as scikit-learn computes it), summed in
    tree order and divided by the number of trees; inputs compared as scikit-learn does,
    ``float32(x) <= t`` (:func:`~xdt.interop.sklearn.float32_threshold`)."""
    fs = [Feature(n, "ordinal") for n in names]
    classes = [int(c) for c in rf.classes_]

    def node(t, i):
        if t.children_left[i] < 0:
            v = t.value[i][0]
            v = v / v.sum()
            return Leaf(classes[int(np.argmax(v))], tuple(float(a) for a in v))
        return ThresholdSplit(names[t.feature[i]], float32_threshold(float(t.threshold[i])),
                              node(t, t.children_left[i]), node(t, t.children_right[i]))

    trees = [DecisionTree(fs, classes, node(est.tree_, 0), input_dtype="float32")
             for est in rf.estimators_]
    return TreeEnsemble(fs, classes, trees, "proba", divisor=len(trees),
                        input_dtype="float32",
                        reference=lambda rows: rf.predict(np.asarray(rows, dtype=np.float64)))


@pytest.mark.slow
@pytest.mark.parametrize("name, n_trees, depth", [("compas", 12, 5), ("banknote", 12, 4)])
def test_forest_axps_hold_under_the_forest_own_predict(name, n_trees, depth):
    frame = pd.read_csv(require_shared(DATASETS / f"{name}.csv"))
    X, y = frame.iloc[:, :-1].astype(float), frame.iloc[:, -1]
    rf = sklearn.RandomForestClassifier(n_estimators=n_trees, max_depth=depth,
                                        random_state=0).fit(X.to_numpy(), y)
    model = _forest_in_the_ir(rf, list(X.columns))
    assert model.predict(X).tolist() == rf.predict(X.to_numpy()).tolist()
    ex = xdt.Explainer(model)
    rng = np.random.default_rng(0)
    for x in X.sample(4, random_state=1).to_dict("records"):
        axp = ex.axp(x, verify=True)
        assert axp.verified
        assert verify.reference_counterexample(model, x, axp.features, 300, rng=rng,
                                               data=X) is None
        # each feature is needed: the certificate's witness flips the forest itself
        for w in axp.certificate.witnesses.values():
            row = np.asarray([[w.point[n] for n in X.columns]], dtype=np.float64)
            assert rf.predict(row)[0] == w.label != rf.predict(
                np.asarray([[x[n] for n in X.columns]]))[0]
        cxp = ex.cxp(x, verify=True)
        if cxp is not None:
            row = np.asarray([[cxp.counterexample[n] for n in X.columns]], dtype=np.float64)
            assert rf.predict(row)[0] != rf.predict(np.asarray([[x[n] for n in X.columns]]))[0]
