"""Fit time of ``SupervisedClusters(strategy="retrain")`` against scikit-learn fitting the
same sequence of trees on the same rows.

The data and settings are those of ``benchmarks/cluster_speed.py`` (and
``tests/test_cluster.py``): adult (../shared/datasets/adult.csv.gz, rows with a missing
value dropped: 30,162 rows, 14 columns), relabelled so that the positive class is the union
of three rule-defined groups, 2% of the labels flipped (``numpy.random.default_rng(0)``);
and the same rows and labels resampled with replacement to 300,000 rows
(``numpy.random.default_rng(0).choice``). The clusterer is
``SupervisedClusters(1, n_clusters=3, reorder=...)`` (default learner
``CARTClassifier(max_depth=3, merge_leaves=False)``), with ``reorder=True`` (xdt's
``Preprocessor``: percentile bins, symbolic reordering in every round) and ``reorder=False``
(the columns as they are, native categorical splits).

For each setting, one fit with a recording learner (a ``CARTClassifier`` that keeps the
``X, y`` of each ``fit`` call) gives the sequence of training sets of the retraining rounds
exactly as the tree learner received them. scikit-learn's
``DecisionTreeClassifier(max_depth=3, random_state=0)`` is then timed fitting that sequence
(categorical columns one-hot encoded with ``pandas.get_dummies``, float64, prepared before
the clock), against the whole ``SupervisedClusters.fit`` (default learner, nothing
recorded): CPU time (``time.process_time``), the two interleaved ``repeats`` times, medians.
A third fit in each repeat, with a learner that adds up the CPU time of its own ``fit``
calls, tells how much of the clustering fit is the tree fits.

Rows: ``data``, ``rows``, ``reorder``, ``xdt_s``, ``sklearn_s``, ``ratio`` (xdt / sklearn)
and ``goal`` (``"<= 2"``), plus ``rounds`` (trees fitted), ``met``, ``tree_fits_s`` (CPU
seconds inside the tree learner's ``fit``), ``tree_share`` (their share of that fit) and
``trees_ratio`` (``tree_fits_s / sklearn_s``: the tree fits alone against scikit-learn's).

Run from the project root (needs ../shared/datasets):

    python benchmarks/_fit_cluster.py [--repeats 3] [--markdown]
"""

from __future__ import annotations

import argparse
import statistics
import time
from functools import cache

import cluster_speed
import numpy as np
import pandas as pd
from _data import show
from sklearn.tree import DecisionTreeClassifier

from xdt.cluster import SupervisedClusters
from xdt.learn._cart import CARTClassifier

DEPTH = 3
N_CLUSTERS = 3
LARGE = 300_000
GOAL = 2.0


class RecordingCART(CARTClassifier):
    """``CARTClassifier`` that appends the ``(X, y)`` of each ``fit`` to :attr:`seen` (a
    class attribute, shared by the clones ``SupervisedClusters`` makes)."""

    seen: list[tuple[pd.DataFrame, np.ndarray]] = []

    def fit(self, X, y, sample_weight=None):
        RecordingCART.seen.append((X.copy(), np.asarray(y).copy()))
        return super().fit(X, y, sample_weight)


class TimedCART(CARTClassifier):
    """``CARTClassifier`` adding the CPU time of each ``fit`` to :attr:`spent`."""

    spent = 0.0

    def fit(self, X, y, sample_weight=None):
        t0 = time.process_time()
        try:
            return super().fit(X, y, sample_weight)
        finally:
            TimedCART.spent += time.process_time() - t0


@cache
def planted(rows: int | None = None) -> tuple[pd.DataFrame, np.ndarray]:
    """Adult's feature columns and the planted labels (``cluster_speed.planted``); with
    ``rows``, resampled with replacement to that many rows (``default_rng(0)``)."""
    X, y, _ = cluster_speed.planted()
    if rows is not None:
        idx = np.random.default_rng(0).choice(len(X), size=rows, replace=True)
        X, y = X.iloc[idx].reset_index(drop=True), y[idx]
    return X, y


def clusterer(reorder: bool, learner=None) -> SupervisedClusters:
    return SupervisedClusters(1, n_clusters=N_CLUSTERS, max_depth=DEPTH, reorder=reorder,
                              learner=learner)


def training_sets(X: pd.DataFrame, y: np.ndarray, reorder: bool
                  ) -> tuple[list[tuple[pd.DataFrame, np.ndarray]], list[str]]:
    """The ``(X, y)`` each retraining round gave the tree learner, and the fitted rules."""
    RecordingCART.seen = []
    sc = clusterer(reorder, RecordingCART(max_depth=DEPTH, merge_leaves=False)).fit(X, y)
    seen, RecordingCART.seen = RecordingCART.seen, []
    return seen, [c.rule for c in sc.clusters_]


def one_hot(X: pd.DataFrame) -> np.ndarray:
    """``X`` for scikit-learn: categorical (and text) columns one-hot, float64 (n, m)."""
    cats = [c for c in X.columns if not (pd.api.types.is_numeric_dtype(X[c])
                                         or pd.api.types.is_bool_dtype(X[c]))]
    return pd.get_dummies(X, columns=cats, dtype=np.float64).to_numpy(dtype=np.float64)


def cluster_rows(repeats: int = 3) -> list[dict]:
    """One row per (data, reorder): median CPU seconds of ``SupervisedClusters.fit`` and of
    scikit-learn fitting the same training sets, their ratio and the goal (see the module
    docstring)."""
    out = []
    for data, rows in (("adult", None), ("adult resampled", LARGE)):
        X, y = planted(rows)
        for reorder in (True, False):
            seen, rules = training_sets(X, y, reorder)
            encoded = [(one_hot(Xt), yt) for Xt, yt in seen]
            sc = clusterer(reorder).fit(X, y)          # warm-up (kernels, caches)
            if [c.rule for c in sc.clusters_] != rules:
                raise SystemExit("the recording learner changed the clusters")
            xdt_t, sk_t, tree_t, share = [], [], [], []
            for _ in range(max(1, repeats)):
                t0 = time.process_time()
                clusterer(reorder).fit(X, y)
                xdt_t.append(time.process_time() - t0)
                t0 = time.process_time()
                for Xs, ys in encoded:
                    DecisionTreeClassifier(max_depth=DEPTH, random_state=0).fit(Xs, ys)
                sk_t.append(time.process_time() - t0)
                TimedCART.spent = 0.0
                t0 = time.process_time()
                clusterer(reorder, TimedCART(max_depth=DEPTH, merge_leaves=False)).fit(X, y)
                tree_t.append(TimedCART.spent)
                share.append(TimedCART.spent / (time.process_time() - t0))
            xs, ss = statistics.median(xdt_t), statistics.median(sk_t)
            ratio = xs / ss
            out.append({"data": data, "rows": len(X), "reorder": reorder,
                        "rounds": len(seen), "xdt_s": round(xs, 3),
                        "sklearn_s": round(ss, 3), "ratio": round(ratio, 2),
                        "goal": "<= 2", "met": "ok" if ratio <= GOAL else "MISSED",
                        "tree_fits_s": round(statistics.median(tree_t), 3),
                        "tree_share": round(statistics.median(share), 2),
                        "trees_ratio": round(statistics.median(tree_t) / ss, 2)})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="interleaved fits (median)")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = parser.parse_args()
    show(f"SupervisedClusters(strategy='retrain', n_clusters={N_CLUSTERS}, max_depth={DEPTH})"
         f" against scikit-learn on the same training sets (CPU s, median of "
         f"{args.repeats})", pd.DataFrame(cluster_rows(args.repeats)), args.markdown)


if __name__ == "__main__":
    main()
