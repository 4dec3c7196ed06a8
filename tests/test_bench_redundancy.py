"""benchmarks/redundancy_table.py: its cost-complexity pruning of a fitted tree at many alphas
at once equals scikit-learn refitting with each ``ccp_alpha``."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import redundancy_table  # noqa: E402


@pytest.mark.parametrize("n_classes", [2, 3])
def test_pruned_predictions_equal_scikit_learn_refits(n_classes):
    rng = np.random.default_rng(n_classes)
    X = rng.normal(size=(400, 4))
    X[:, 3] = rng.integers(0, 2, 400)
    y = ((X[:, 0] + X[:, 3] + rng.normal(scale=0.8, size=400)) * n_classes / 2).astype(int)
    y = np.clip(y, 0, n_classes - 1)
    est = DecisionTreeClassifier(random_state=0).fit(X[:300], y[:300])
    breaks = np.unique(est.cost_complexity_pruning_path(X[:300], y[:300]).ccp_alphas)
    alphas = (breaks[:-1] + breaks[1:]) / 2
    assert len(alphas) > 10
    ours = redundancy_table.pruned_predictions(est, X[300:], alphas)
    for k, alpha in enumerate(alphas):
        ref = DecisionTreeClassifier(random_state=0, ccp_alpha=alpha).fit(X[:300], y[:300])
        assert est.classes_[ours[k]].tolist() == ref.predict(X[300:]).tolist(), alpha
