"""What the tests of ``time_limit`` share (tests/test_limits.py, tests/test_limits_faces.py):
clocks that never read the wall clock, and the small models they run on."""

from __future__ import annotations

import itertools

from sklearn.datasets import make_classification
from sklearn.ensemble import RandomForestClassifier
from sklearn.tree import DecisionTreeClassifier

import xdt
from xdt.explain import Deadline
from xdt.explain.queries import EmpiricalDistribution


def fake_clock(readings: int):
    """A clock that reads 0 ``readings`` times, then 100 (seconds) for ever. A deadline of a
    few seconds made on it reads it once when made, so it has passed from its check number
    ``readings`` on (1: at once)."""
    return itertools.chain(itertools.repeat(0.0, readings), itertools.repeat(100.0)).__next__


def never() -> Deadline:
    """A deadline that never passes (its clock stands still)."""
    return Deadline(1e6, clock=lambda: 0.0)


class SetClock:
    """A clock that reads ``t``, set by the test."""

    def __init__(self):
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def make_forest():
    """A 12-tree forest over 6 features and 3 classes, 3 of its rows, and the empirical
    distribution of its 300 training rows."""
    X, y = make_classification(n_samples=300, n_features=6, n_informative=4, n_classes=3,
                               random_state=0)
    est = RandomForestClassifier(n_estimators=12, max_depth=5, random_state=0).fit(X, y)
    names = [f"f{i}" for i in range(X.shape[1])]
    model = xdt.from_sklearn(est, feature_names=names)
    rows = [dict(zip(names, r.tolist(), strict=True)) for r in X[:3]]
    return model, rows, EmpiricalDistribution(X, model)


def make_small_tree():
    """A depth-4 tree over 5 features, small enough for the brute force, 4 of its rows and
    the empirical distribution of its 200 training rows."""
    X, y = make_classification(n_samples=200, n_features=5, n_informative=3, random_state=1)
    names = [f"g{i}" for i in range(X.shape[1])]
    model = xdt.from_sklearn(DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, y),
                             feature_names=names)
    rows = [dict(zip(names, r.tolist(), strict=True)) for r in X[:4]]
    return model, rows, EmpiricalDistribution(X, model)
