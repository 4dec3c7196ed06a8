"""How the batch path-walker scales: against PyXAI, with the rows, with the tree, against predict.

One run measures four things (each time is of xdt's batch engine
``Explainer(model).explain_batch(X, what=..., dedupe=False)``, every row explained, unless
said otherwise; a batch time includes reading the rows, ``model.encode``):

1. **Against PyXAI** (skipped, with the reason, when PyXAI cannot be imported): on the
   scikit-learn trees of engines_vs_pyxai.py (adult-xreason, compas, german; depth 6 and
   unbounded; classes coded 0..k-1, the same fitted tree given to both tools), the time per
   row of PyXAI's ``sufficient_reason()`` (``set_instance`` plus the query, on the first
   ``--pyxai-rows`` test rows), of xdt's per-row path engine (``Explainer.axp``, a fresh
   ``Explainer(model, certificates=False)`` per row, on the first ``--per-row`` test rows)
   and of the batch AXp (``--rows`` rows resampled from the dataset; per-row time = total /
   rows), with PyXAI / batch beside the targets (>= 1000x on depth-6 trees, >= 10,000x on
   unbounded trees of several thousand nodes).
2. **Growth with the rows**: one depth-6 tree of adult-xreason, 10^3 .. 10^6 rows resampled
   from the dataset: time, rows/s and peak memory (tracemalloc, in a second run of the same
   call: the timed run is not traced) of the batch AXp and all CXps; target: all CXps of
   10^6 rows in under 60 s (one core).
3. **Growth with the tree**: scikit-learn trees of adult (32,561 rows, 6 numeric columns)
   with ``max_leaf_nodes`` 5, 50, 500, 5000 (about 10, 100, 1,000, 10,000 nodes), on
   ``--tree-rows`` resampled rows: batch AXp and all CXps time per row.
4. **Cost relative to predict**: per tree of 1 and 3, batch AXp time over scikit-learn's
   ``predict`` on the same rows already one-hot encoded (best of ``--repeats``); target
   within 20x. The deduplicating batch (``dedupe=True``, the default; the resampled rows
   repeat) is shown beside, in tables 1 and 4.

Run from the project root (needs ../shared/datasets); for the PyXAI table, in the virtual
environment of benchmarks/README.md:

    /tmp/benchvenv/bin/python benchmarks/scale.py --markdown
    python benchmarks/scale.py --quick
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import io
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd
from _data import show
from engines_vs_pyxai import PyxaiSide, fit, load_pyxai, scratch_directory
from sklearn.tree import DecisionTreeClassifier

import xdt
from xdt.interop.tabular import TabularEncoder

DATASETS = Path(__file__).resolve().parent.parent.parent / "shared" / "datasets"
PYXAI_DATASETS = ("adult-xreason", "compas", "german")
FILES = {"adult-xreason": "adult-xreason.csv.gz", "compas": "compas.csv",
         "german": "german.csv", "adult": "adult.csv.gz"}
TARGET_PYXAI = {6: 1_000, None: 10_000}
TARGET_MILLION_S = 60.0
TARGET_PREDICT = 20.0


def best_of(fn, repeats: int) -> float:
    """The shortest of ``repeats`` timed calls of ``fn``, in seconds."""
    out = []
    for _ in range(repeats):
        gc.collect()
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return min(out)


def peak_bytes(fn) -> int:
    """Peak memory traced by tracemalloc while ``fn`` runs (numpy reports to it)."""
    gc.collect()
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def read(name: str) -> tuple[pd.DataFrame, np.ndarray, str]:
    """Feature columns, class codes 0..k-1 and the target name of one dataset."""
    frame = pd.read_csv(DATASETS / FILES[name], keep_default_na=False)
    target = frame.columns[-1]
    _, y = np.unique(frame.pop(target).astype(str).to_numpy(), return_inverse=True)
    return frame, y, target


def resample(frame: pd.DataFrame, n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return frame.iloc[rng.integers(0, len(frame), n)].reset_index(drop=True)


def fmt(v: float) -> str:
    return f"{v:.3g}"


def verdict(ok: bool) -> str:
    return "ok" if ok else "MISSED"


def predict_row(model, est, enc, X: pd.DataFrame, repeats: int, head: dict
                ) -> tuple[dict, float, float]:
    """Batch AXp time over scikit-learn predict time on the same (encoded) rows: the table
    row, and the batch AXp seconds per row without and with deduplication."""
    ex = xdt.Explainer(model)
    onehot = enc.transform(X)
    t_pred = best_of(lambda: est.predict(onehot), repeats)
    t_nd = best_of(lambda: ex.explain_batch(X, what="axp", dedupe=False), repeats)
    t_dd = best_of(lambda: ex.explain_batch(X, what="axp"), repeats)
    r = t_nd / t_pred
    row = dict(head, **{"rows": len(X), "predict µs/row": fmt(1e6 * t_pred / len(X)),
                        "AXp batch µs/row": fmt(1e6 * t_nd / len(X)),
                        "AXp/predict": fmt(r), "target": f"<= {TARGET_PREDICT:g}",
                        "met": verdict(r <= TARGET_PREDICT),
                        "AXp dedup/predict": fmt(t_dd / t_pred)})
    return row, t_nd / len(X), t_dd / len(X)


# ---------------------------------------------------------------------------- 1. PyXAI
def per_row_time(model, rows: list, engine: str, what: str) -> float:
    """Mean seconds per row of one AXp (``what="axp"``) or all CXps with a fresh
    ``Explainer(model, engine=engine, certificates=False)`` per row (nothing cached)."""
    t0 = time.perf_counter()
    for x in rows:
        with xdt.Explainer(model, engine=engine, certificates=False) as ex:
            ex.axp(x) if what == "axp" else ex.all_cxps(x)
    return (time.perf_counter() - t0) / max(1, len(rows))


def against_pyxai(args, pyxai, predict_rows: list) -> list[dict]:
    rows = []
    for name in args.datasets.split(","):
        for depth in (6, None):
            n_test = max(args.pyxai_rows, args.per_row)
            tree = fit(name, depth, n_test)
            frame, _, _ = read(name)
            X = resample(frame, args.rows)
            head = {"dataset": name, "depth≤": depth or "none", "nodes": tree.model.n_nodes}
            pred, t_batch, t_dedup = predict_row(tree.model, tree.est, tree.enc, X,
                                                 args.repeats, head)
            predict_rows.append(pred)
            sample = tree.rows[:args.per_row]
            t_path = per_row_time(tree.model, sample, "path", "axp")
            # the SAT engine on fewer rows: it builds and releases a solver per row
            sat_sample = sample[:args.sat_rows]
            t_sat = per_row_time(tree.model, sat_sample, "sat", "axp")
            t_cx_batch = best_of(lambda X=X, m=tree.model: xdt.Explainer(m).explain_batch(
                X, what="cxps", dedupe=False), args.repeats) / len(X)
            t_cx_path = per_row_time(tree.model, sample, "path", "cxps")
            t_cx_sat = per_row_time(tree.model, sat_sample, "sat", "cxps")
            row = dict(head, **{"batch rows": len(X), "AXp batch µs": fmt(1e6 * t_batch),
                                "AXp path µs": fmt(1e6 * t_path),
                                "AXp sat µs": fmt(1e6 * t_sat),
                                "CXps batch µs": fmt(1e6 * t_cx_batch),
                                "CXps path µs": fmt(1e6 * t_cx_path),
                                "CXps sat µs": fmt(1e6 * t_cx_sat),
                                "path/batch AXp": fmt(t_path / t_batch),
                                "sat/batch AXp": fmt(t_sat / t_batch),
                                "sat/batch CXps": fmt(t_cx_sat / t_cx_batch)})
            if pyxai is not None:
                try:
                    with scratch_directory(), contextlib.redirect_stdout(io.StringIO()):
                        px = PyxaiSide(tree, pyxai)
                        pts = [px.query(x, "AXp", 0)[0]
                               for x in tree.numeric[:args.pyxai_rows]]
                    t_px = float(np.mean(pts))
                    ratio = t_px / t_batch
                    target = TARGET_PYXAI[depth]
                    row.update({"pyxai rows": len(pts), "AXp pyxai µs": fmt(1e6 * t_px),
                                "pyxai/path": fmt(t_px / t_path),
                                "pyxai/batch": fmt(ratio), "target": f">= {target:,}",
                                "met": verdict(ratio >= target),
                                "pyxai/batch dedup": fmt(t_px / t_dedup)})
                except Exception as e:  # PyXAI failing on one tree keeps the xdt columns
                    row["pyxai"] = f"{type(e).__name__}: {e}"[:60]
            rows.append(row)
            print(f"  [1] {name} depth {depth}: done", flush=True)
    return rows


# ---------------------------------------------------------------------------- 2. rows
def growth_rows(args) -> tuple[list[dict], float | None]:
    frame, y, target = read("adult-xreason")
    enc = TabularEncoder().fit(frame)
    est = DecisionTreeClassifier(max_depth=6, random_state=0).fit(enc.transform(frame), y)
    model = xdt.from_sklearn(est, encoder=enc, target=target)
    ex = xdt.Explainer(model)
    out, million = [], None
    prev = None
    for n in args.growth_rows:
        X = resample(frame, n)
        row = {"rows": n, "nodes": model.n_nodes}
        for what, label in (("axp", "AXp"), ("cxps", "CXps")):
            def call(what=what, X=X):
                return ex.explain_batch(X, what=what, dedupe=False)
            t = best_of(call, 1 if n >= 10**6 else args.repeats)
            mem = peak_bytes(call)
            row.update({f"{label} s": fmt(t), f"{label} rows/s": fmt(n / t),
                        f"{label} peak MB": fmt(mem / 2**20)})
            if label == "CXps":
                row["CXps time x"] = fmt(t / prev[1]) if prev is not None else ""
                prev = (n, t)
                if n == 10**6:
                    million = t
        out.append(row)
        print(f"  [2] {n} rows: done", flush=True)
    return out, million


# ---------------------------------------------------------------------------- 3. tree size
def growth_tree(args, predict_rows: list) -> list[dict]:
    frame, y, target = read("adult")
    enc = TabularEncoder().fit(frame)
    onehot = enc.transform(frame)
    X = resample(frame, args.tree_rows)
    out = []
    for leaves in args.leaves:
        est = DecisionTreeClassifier(max_leaf_nodes=leaves, random_state=0).fit(onehot, y)
        model = xdt.from_sklearn(est, encoder=enc, target=target)
        ex = xdt.Explainer(model)
        head = {"max_leaf_nodes": leaves, "nodes": model.n_nodes,
                "paths": len(model.paths), "depth": est.get_depth()}
        row = dict(head, rows=len(X))
        for what, label in (("axp", "AXp"), ("cxps", "CXps")):
            t = best_of(lambda ex=ex, what=what: ex.explain_batch(X, what=what,
                                                                 dedupe=False),
                        args.repeats)
            row[f"{label} µs/row"] = fmt(1e6 * t / len(X))
            row[f"{label} rows/s"] = fmt(len(X) / t)
        out.append(row)
        predict_rows.append(predict_row(model, est, enc, X, args.repeats,
                                        {"dataset": "adult", "depth≤": f"leaves {leaves}",
                                         "nodes": model.n_nodes})[0])
        print(f"  [3] max_leaf_nodes {leaves}: done", flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=100_000,
                    help="batch rows per tree against PyXAI and predict (table 1, 4)")
    ap.add_argument("--pyxai-rows", type=int, default=30, help="rows timed with PyXAI")
    ap.add_argument("--per-row", type=int, default=300, help="rows timed with the path engine")
    ap.add_argument("--sat-rows", type=int, default=50, help="rows timed with the SAT engine")
    ap.add_argument("--datasets", default=",".join(PYXAI_DATASETS),
                    help="comma-separated datasets against PyXAI")
    ap.add_argument("--growth-rows", default="1000,10000,100000,1000000",
                    help="row counts of table 2")
    ap.add_argument("--leaves", default="5,50,500,5000",
                    help="max_leaf_nodes values of table 3")
    ap.add_argument("--tree-rows", type=int, default=10_000, help="rows of table 3")
    ap.add_argument("--repeats", type=int, default=3, help="best of this many runs")
    ap.add_argument("--no-pyxai", action="store_true", help="skip table 1's PyXAI columns")
    ap.add_argument("--quick", action="store_true",
                    help="smoke run: german only, 10^4 batch rows, up to 10^4 rows in "
                         "table 2, up to 500 leaves in table 3")
    ap.add_argument("--markdown", action="store_true", help="print Markdown tables")
    args = ap.parse_args()
    if args.quick:
        args.rows, args.pyxai_rows, args.per_row, args.repeats = 10_000, 10, 50, 1
        args.sat_rows = 10
        args.datasets, args.growth_rows, args.leaves = "german", "1000,10000", "5,50,500"
    args.growth_rows = [int(v) for v in args.growth_rows.split(",")]
    args.leaves = [int(v) for v in args.leaves.split(",")]
    t0 = time.perf_counter()

    pyxai, why = (None, "--no-pyxai") if args.no_pyxai else load_pyxai()
    predict_rows: list[dict] = []
    table1 = against_pyxai(args, pyxai, predict_rows)
    table2, million = growth_rows(args)
    table3 = growth_tree(args, predict_rows)

    with pd.option_context("display.width", 250, "display.max_columns", 30):
        if pyxai is None:
            print(f"\nPyXAI not available ({why}): table 1 has xdt's columns only")
        show("1. One AXp and all CXps per row: the batch engine against the per-row path and "
             "SAT engines and PyXAI's sufficient_reason(): mean time per row (PyXAI and the "
             "per-row engines on test rows; the batch, dedupe=False, on resampled rows)",
             pd.DataFrame(table1), args.markdown)
        show("2. Growth with the rows (adult-xreason, depth 6, dedupe=False; peak traced "
             "memory of a second run; CXps time x: over the previous row count)",
             pd.DataFrame(table2), args.markdown)
        if million is not None:
            print(f"\nall CXps of 10^6 rows: {million:.1f} s (target < {TARGET_MILLION_S:g} s:"
                  f" {verdict(million < TARGET_MILLION_S)})")
        show("3. Growth with the tree (adult, max_leaf_nodes, dedupe=False)",
             pd.DataFrame(table3), args.markdown)
        show("4. Batch AXp time (dedupe=False) over scikit-learn predict time on the same "
             "rows, one-hot encoded (dedup: dedupe=True)", pd.DataFrame(predict_rows),
             args.markdown)
    print(f"\ntotal {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
