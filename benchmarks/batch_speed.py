"""Speed of the batch path-walker (``Explainer.explain_batch``) against the per-row engine.

For each dataset and depth limit (6 and unbounded): fit a scikit-learn
DecisionTreeClassifier on 70% of the rows (categorical columns one-hot encoded, then mapped
back to categorical features), import it, and resample the dataset's rows (with
replacement, seed 0) to ``--rows`` rows (default 10^5). Then measure, in the same run:

* rows per second of the batch engine for one AXp per row (``what="axp"``) and for all
  CXps per row (``what="cxps"``), with the default deduplication of equal cell vectors
  (``dedup``) and without it (``dedupe=False``: every row explained);
* rows per second of the per-row path engine (``Explainer.axp`` / ``Explainer.all_cxps``,
  a fresh ``Explainer(model, certificates=False)`` per row and query, so nothing is
  cached) on the first ``--per-row`` rows (default 1000);
* the speed-ups (batch rows/s over per-row rows/s);
* the batch AXp time over scikit-learn's ``predict`` time on the same rows (already one-hot
  encoded: predict only) and over ``transform`` + ``predict``.

Before timing, the batch answers on the per-row sample are checked against the per-row
engine's (the script stops if they differ).

Run from the project root (needs ../shared/datasets):

    python benchmarks/batch_speed.py [--rows 100000] [--per-row 1000] [--markdown]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
from _data import show
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

import xdt
from xdt.interop.tabular import TabularEncoder

DATASETS = Path(__file__).resolve().parent.parent.parent / "shared" / "datasets"
# name -> file (MANIFEST: adult-xreason's 'None' is a category: read with
# keep_default_na=False, as every file here)
CHOICES = {
    "adult-xreason": "adult-xreason.csv.gz",
    "compas": "compas.csv",
    "german": "german.csv",
}


def best_of(fn, repeats: int) -> float:
    """The shortest of ``repeats`` timed calls of ``fn``, in seconds."""
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return min(out)


def per_row_time(model, rows: list, query: str) -> float:
    """Seconds for the per-row path engine to answer ``query`` on every row of ``rows``."""
    t0 = time.perf_counter()
    for x in rows:
        ex = xdt.Explainer(model, certificates=False)
        if query == "axp":
            ex.axp(x)
        else:
            ex.all_cxps(x)
    return time.perf_counter() - t0


def check_same(model, frame: pd.DataFrame, rows: list) -> None:
    """Stop when the batch answers differ from the per-row engine's on ``rows``."""
    ex = xdt.Explainer(model, certificates=False)
    for i, x in enumerate(rows):
        rec = frame.iloc[i]
        if (ex.axp(x).features != rec["axp"]
                or [e.features for e in ex.all_cxps(x)] != rec["cxps"]):
            raise SystemExit(f"batch and per-row engines differ on row {i}")


def run(name: str, max_depth: int | None, n_rows: int, n_per_row: int,
        repeats: int) -> tuple[dict, dict]:
    frame = pd.read_csv(DATASETS / CHOICES[name], keep_default_na=False)
    target = frame.columns[-1]
    y = frame.pop(target).astype(str)
    enc = TabularEncoder().fit(frame)
    tr, _ = train_test_split(np.arange(len(frame)), test_size=0.3, random_state=0)
    est = DecisionTreeClassifier(max_depth=max_depth, random_state=0)
    est.fit(enc.transform(frame.iloc[tr]), y.iloc[tr])
    model = xdt.from_sklearn(est, encoder=enc, target=target)
    rng = np.random.default_rng(0)
    X = frame.iloc[rng.integers(0, len(frame), n_rows)].reset_index(drop=True)
    distinct = len(np.unique(model.encode(X), axis=0))
    ex = xdt.Explainer(model)

    sample = [X.iloc[i] for i in range(min(n_per_row, n_rows))]
    check_same(model, ex.explain_batch(X.iloc[:len(sample)]), sample)

    t = {
        "axp": best_of(lambda: ex.explain_batch(X, what="axp"), repeats),
        "cxps": best_of(lambda: ex.explain_batch(X, what="cxps"), repeats),
        "axp nodedup": best_of(lambda: ex.explain_batch(X, what="axp", dedupe=False), 1),
        "cxps nodedup": best_of(lambda: ex.explain_batch(X, what="cxps", dedupe=False), 1),
    }
    t_row = {q: per_row_time(model, sample, q) / len(sample) for q in ("axp", "cxps")}
    onehot = enc.transform(X)
    t_pred = best_of(lambda: est.predict(onehot), repeats)
    t_enc_pred = best_of(lambda: est.predict(enc.transform(X)), repeats)
    rate = {k: n_rows / v for k, v in t.items()}
    row_rate = {q: 1 / v for q, v in t_row.items()}
    head = {"dataset": name, "depth≤": max_depth or "none", "nodes": model.n_nodes,
            "paths": len(model.paths), "rows": n_rows, "distinct": distinct}
    speed = dict(head, **{
        "AXp batch": f"{rate['axp']:.3g}", "AXp batch nodedup": f"{rate['axp nodedup']:.3g}",
        "AXp per-row": f"{row_rate['axp']:.3g}",
        "CXps batch": f"{rate['cxps']:.3g}",
        "CXps batch nodedup": f"{rate['cxps nodedup']:.3g}",
        "CXps per-row": f"{row_rate['cxps']:.3g}"})
    ratios = dict(head, **{
        "AXp speed-up": f"{rate['axp'] / row_rate['axp']:.3g}",
        "AXp speed-up nodedup": f"{rate['axp nodedup'] / row_rate['axp']:.3g}",
        "CXps speed-up": f"{rate['cxps'] / row_rate['cxps']:.3g}",
        "CXps speed-up nodedup": f"{rate['cxps nodedup'] / row_rate['cxps']:.3g}",
        "AXp/predict": f"{t['axp'] / t_pred:.3g}",
        "AXp/(transform+predict)": f"{t['axp'] / t_enc_pred:.3g}",
        "AXp nodedup/predict": f"{t['axp nodedup'] / t_pred:.3g}"})
    return speed, ratios


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=100_000, help="rows explained per tree")
    ap.add_argument("--per-row", type=int, default=1000,
                    help="rows timed with the per-row engine (and checked against the batch)")
    ap.add_argument("--datasets", default=",".join(CHOICES), help="comma-separated names")
    ap.add_argument("--repeats", type=int, default=3, help="best of this many batch runs")
    ap.add_argument("--markdown", action="store_true", help="print Markdown tables")
    args = ap.parse_args()
    t0 = time.perf_counter()
    results = [run(name, depth, args.rows, args.per_row, args.repeats)
               for name in args.datasets.split(",") for depth in (6, None)]
    with pd.option_context("display.width", 250, "display.max_columns", 30):
        show("Rows per second (batch on all rows; per-row engine on the first --per-row rows;"
             " nodedup: dedupe=False)", pd.DataFrame([s for s, _ in results]), args.markdown)
        show("Speed-ups (batch rows/s over per-row rows/s) and batch AXp time over "
             "scikit-learn predict time on the same rows", pd.DataFrame([r for _, r in results]),
             args.markdown)
    print(f"\ntotal {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
