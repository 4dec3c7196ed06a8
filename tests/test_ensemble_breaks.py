"""Defects found by auditing the tree-ensemble importers and engines, one test each."""

from __future__ import annotations

import numpy as np
import pytest

import xdt

ZERO = float(np.float32(1e-35))  # LightGBM's kZeroThreshold


@pytest.mark.parametrize("labels", [(0, 1, 1), (0, 0, 1)])
def test_lightgbm_reads_values_within_1e35_of_zero_as_zero(labels):
    """LightGBM splits negatives from zero at -1e-35 (and zero from positives at 1e-35),
    and reads every |x| <= 1e-35 as 0.0 first: x = -1e-35 goes where 0.0 goes."""
    lgb = pytest.importorskip("lightgbm")
    X = np.repeat([[-1.0], [0.0], [1.0]], 30, axis=0)
    y = np.repeat(labels, 30)
    est = lgb.LGBMClassifier(n_estimators=2, num_leaves=2, min_child_samples=5,
                             verbose=-1).fit(X, y)
    rows = np.array([[-2e-35], [float(np.nextafter(-ZERO, -1.0))], [-ZERO], [-5e-36], [-0.0],
                     [0.0], [5e-36], [ZERO], [float(np.nextafter(ZERO, 1.0))], [2e-35]])
    model = xdt.from_lightgbm(est)
    assert model.predict(rows).tolist() == est.predict(rows).tolist()
    raw = est.predict(rows, raw_score=True)
    assert model.decision_function(rows).tolist() == raw.tolist()
    # -1e-35 and 1e-35 score as 0.0 does, -2e-35 as -1.0, 2e-35 as 1.0
    assert raw[[2, 7]].tolist() == [raw[5]] * 2
    assert raw[[0, 9]].tolist() == est.predict([[-1.0], [1.0]], raw_score=True).tolist()
    # every cell's representative value too (what verify=True samples through LightGBM)
    values = np.array([[model.cells[0].value(j)] for j in range(model.cells[0].n_cells)])
    assert model.decision_function(values).tolist() == est.predict(values,
                                                                   raw_score=True).tolist()
