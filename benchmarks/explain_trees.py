"""Explaining scikit-learn trees on real datasets with the path engine.

For each dataset and depth limit: fit a scikit-learn DecisionTreeClassifier on 70% of the
rows (categorical columns one-hot encoded, then mapped back to categorical features), import
it, and explain every test row (up to --rows). Prints one table row per tree:

  nodes, depth, paths, share of redundant paths (each leaf's path tested once),
  rows explained, share of rows whose path is redundant, mean path length, mean AXp size,
  median time per AXp / all CXps / all AXps, and the ratio of the AXp time to the time
  scikit-learn takes to predict one row (the peer measured in the same run).

Run from the project root (needs ../shared/datasets):

    python benchmarks/explain_trees.py [--rows 300] [--datasets german,compas,...]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

import xdt
from xdt.interop._tabular import TabularEncoder

DATASETS = Path(__file__).resolve().parent.parent.parent / "shared" / "datasets"
# name -> (file, integer-coded columns to treat as categorical: "all" or a list)
CHOICES = {
    "german": ("german.csv", []),
    "car": ("car.csv", "all"),
    "compas": ("compas.csv", []),
    "adult-xreason": ("adult-xreason.csv.gz", []),
    "iris": ("iris.csv", []),
    "cardiotocography": ("cardiotocography.csv", []),
    "banknote": ("banknote.csv", []),
}


def instance_on_path(model: xdt.DecisionTree, path) -> dict:
    """A point reaching ``path``'s leaf: the lowest allowed cell of every tested feature."""
    point = {}
    for f, cells in enumerate(model.cells):
        mask = path.masks.get(f, 1)
        cell = (mask & -mask).bit_length() - 1
        point[cells.name] = cells.value(cell)
    return point


def ms(seconds: list[float]) -> float:
    return 1000 * statistics.median(seconds)


def run(name: str, max_depth: int | None, n_rows: int) -> dict:
    file, categorical = CHOICES[name]
    frame = pd.read_csv(DATASETS / file, keep_default_na=False)
    target = frame.columns[-1]
    y = frame.pop(target).astype(str)
    cats = list(frame.columns) if categorical == "all" else categorical
    enc = TabularEncoder(categorical=cats).fit(frame)
    tr, te = train_test_split(np.arange(len(frame)), test_size=0.3, random_state=0)
    est = DecisionTreeClassifier(max_depth=max_depth, random_state=0)
    est.fit(enc.transform(frame.iloc[tr]), y.iloc[tr])
    model = xdt.from_sklearn(est, encoder=enc, target=target)
    test = frame.iloc[te[:n_rows]].reset_index(drop=True)
    assert (model.predict(test) == est.predict(enc.transform(test))).all()

    ex = xdt.Explainer(model)
    live = [p for p in model.paths if p.consistent]
    redundant_paths = sum(ex.path_is_redundant(instance_on_path(model, p)) for p in live)

    t_axp, t_cxps, t_axps, sizes, lengths, redundant_rows = [], [], [], [], [], 0
    rows = [test.iloc[i] for i in range(len(test))]
    for row in rows:
        # a fresh Explainer per measurement: each time includes reading the instance and
        # building its path oracle, nothing is reused from a cache
        t0 = time.perf_counter()
        axp = xdt.Explainer(model).axp(row)
        t1 = time.perf_counter()
        xdt.Explainer(model).all_cxps(row)
        t2 = time.perf_counter()
        ex = xdt.Explainer(model)
        ex.all_axps(row)
        t3 = time.perf_counter()
        t_axp.append(t1 - t0)
        t_cxps.append(t2 - t1)
        t_axps.append(t3 - t2)
        sizes.append(len(axp))
        lengths.append(len(ex.path_features(row)))
        redundant_rows += ex.path_is_redundant(row)

    one = enc.transform(test.iloc[:1])
    t_pred = []
    for _ in range(200):
        t0 = time.perf_counter()
        est.predict(one)
        t_pred.append(time.perf_counter() - t0)
    return {
        "dataset": name, "max_depth": max_depth or "none", "nodes": model.n_nodes,
        "depth": model.depth, "paths": len(live),
        "%R paths": round(100 * redundant_paths / len(live), 1),
        "rows": len(rows), "%R rows": round(100 * redundant_rows / len(rows), 1),
        "path len": round(float(np.mean(lengths)), 2), "AXp size": round(float(np.mean(sizes)), 2),
        "AXp ms": round(ms(t_axp), 3), "CXps ms": round(ms(t_cxps), 3),
        "AXps ms": round(ms(t_axps), 3),
        "AXp/sk-predict": round(statistics.median(t_axp) / statistics.median(t_pred), 2),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=300, help="test rows explained per tree")
    ap.add_argument("--datasets", default=",".join(CHOICES), help="comma-separated names")
    args = ap.parse_args()
    table = [run(name, depth, args.rows)
             for name in args.datasets.split(",") for depth in (6, None)]
    with pd.option_context("display.width", 200, "display.max_columns", 30):
        print(pd.DataFrame(table).to_string(index=False))


if __name__ == "__main__":
    main()
