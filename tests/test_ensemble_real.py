"""The ensemble SAT engine on real data: a scikit-learn random forest and an XGBoost model
on compas and banknote, imported by xdt's importers (which carry the library's own
``predict`` as ``model.reference``). Every AXp is checked by sampling points that agree on
it through the library's ``predict``; every witness of its certificate and every CXp's
counterexample is predicted another class by the library itself."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import DATASETS, require_shared

import xdt
from xdt.explain.checks import _verify as verify

sklearn = pytest.importorskip("sklearn.ensemble")


def _fit(kind: str, X: pd.DataFrame, y: pd.Series):
    if kind == "forest":
        est = sklearn.RandomForestClassifier(n_estimators=12, max_depth=5,
                                             random_state=0).fit(X, y)
        return xdt.from_sklearn(est, X=X)
    xgboost = pytest.importorskip("xgboost")
    from xdt.interop._xgboost import from_xgboost

    est = xgboost.XGBClassifier(n_estimators=10, max_depth=3, random_state=0)
    return from_xgboost(est.fit(X, pd.factorize(y, sort=True)[0]))


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["forest", "xgboost"])
@pytest.mark.parametrize("name", ["compas", "banknote"])
def test_axps_and_cxps_hold_under_the_library_predict(name, kind):
    frame = pd.read_csv(require_shared(DATASETS / f"{name}.csv"))
    X, y = frame.iloc[:, :-1].astype(float), frame.iloc[:, -1]
    model = _fit(kind, X, y)
    assert model.reference is not None

    def library(points) -> list:
        rows = np.asarray([[p[n] for n in X.columns] for p in points], dtype=np.float64)
        return list(model.reference(rows))

    ex = xdt.Explainer(model, engine="sat")
    rng = np.random.default_rng(0)
    for x in X.sample(4, random_state=1).to_dict("records"):
        label = library([x])[0]
        axp = ex.axp(x, verify=True)  # witnesses re-checked with the library too
        assert axp.verified and axp.prediction == label
        assert verify.reference_counterexample(model, x, axp.features, 300, rng=rng,
                                               data=X) is None
        witnesses = list(axp.certificate.witnesses.values())
        assert all(p != label for p in library([w.point for w in witnesses]))
        cxp = ex.cxp(x, verify=True)
        if cxp is not None:
            assert library([cxp.counterexample])[0] != label
