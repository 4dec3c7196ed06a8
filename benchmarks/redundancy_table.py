"""The shape of Table 1 of Izza, Ignatiev & Marques-Silva, "On Explaining Decision Trees".

For every dataset of the paper in ../shared/datasets (MANIFEST.csv: `paper` names "Izza et al.
On Explaining Decision Trees"; binarised "extra" variants are left out), and each of
--seeds train/test splits (70/30, stratified, seed = split and tree seed), fit two
scikit-learn trees with `xdt.interop.fit.fit_sklearn_tree`:

  * max depth 6, in place of the paper's IAI (optimal trees of depth <= 6);
  * unbounded depth, in place of the paper's ITI (deep, lightly pruned trees).

Then `xdt.metrics.redundancy_report` gives the paper's columns, averaged over the seeds:
D, #N, %A, #P, %R, %C (feature space covered by redundant paths: only for all-categorical
data, "-" otherwise), %C_data (test rows on redundant paths), %m, %M, %avg; `ms` is the
mean time of `path_redundancy` per tree. The paper's %R is printed beside ours, and the
closing lines compare the average %R over datasets with the paper's 32.1% (IAI) / 46.9% (ITI).

Datasets whose MANIFEST kinds are all categorical/boolean get every integer-coded column of
more than two values declared categorical (multi-way splits, so %C is defined); elsewhere
numeric columns are ordinal. Datasets with missing values are skipped, with the reason.

Run from the project root (needs ../shared/datasets):

    python benchmarks/redundancy_table.py [--seeds 10] [--datasets car,compas,...]
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import numpy as np
import pandas as pd

from xdt.explain.redundant_paths import path_redundancy
from xdt.interop.fit import fit_sklearn_tree
from xdt.metrics import redundancy_report

DATASETS = Path(__file__).resolve().parent.parent.parent / "shared" / "datasets"
PAPER = "Izza et al. On Explaining Decision Trees"
# %R of Table 1 (IAI, ITI), by the paper's dataset name
PAPER_R = {
    "adult": (33, 75), "anneal": (26, 25), "backache": (33, 80), "bank": (5, 69),
    "biodegradation": (30, 50), "cancer": (36, 54), "car": (86, 65), "colic": (46, 33),
    "compas": (17, 66), "contraceptive": (8, 27), "dermatology": (23, 22),
    "divorce": (50, 33), "german": (38, 46), "heart-c": (36, 87), "heart-h": (31, 61),
    "kr-vs-kp": (80, 79), "lending": (73, 69), "letter": (1, 6), "lymphography": (35, 9),
    "mortality": (8, 61), "mushroom": (80, 50), "pendigits": (0, 25), "promoters": (0, 20),
    "recidivism": (28, 53), "seismic_bumps": (42, 60), "shuttle": (28, 33), "soybean": (9, 22),
    "spambase": (37, 76), "spect": (60, 87), "splice": (0, 0),
}
PAPER_AVG_R = {6: 32.1, None: 46.9}
ALIASES = {"adult-xreason": "adult"}
COLS = ["D", "#N", "%A", "#P", "%R", "%C", "%C_data", "%m", "%M", "%avg"]


def paper_datasets() -> pd.DataFrame:
    manifest = pd.read_csv(DATASETS / "MANIFEST.csv")
    keep = manifest["paper"].fillna("").map(
        lambda s: PAPER in [p.strip() for p in s.split(";")])
    return manifest[keep].reset_index(drop=True)


def load(entry: pd.Series) -> tuple[pd.DataFrame | None, str]:
    """The dataset's frame (or None) and the categorical columns or the reason to skip."""
    notes = str(entry["notes"]) if isinstance(entry["notes"], str) else ""
    if "keep_default_na=False" in notes:
        frame = pd.read_csv(DATASETS / entry["file"], keep_default_na=False, na_values=[""])
    else:
        frame = pd.read_csv(DATASETS / entry["file"])
    n_missing = int(frame.drop(columns=[entry["target"]]).isna().sum().sum())
    if n_missing or frame[entry["target"]].isna().any():
        return None, f"{n_missing} missing feature values (and/or missing labels)"
    return frame, ""


def categorical_columns(entry: pd.Series, frame: pd.DataFrame) -> list[str]:
    kinds = {k.split(":")[0] for k in str(entry["feature_kinds"]).split(";")}
    if not kinds <= {"categorical", "boolean"}:
        return []
    return [c for c in frame.columns if c != entry["target"]
            and pd.api.types.is_numeric_dtype(frame[c]) and frame[c].nunique() > 2]


def mean(values: list) -> float | None:
    vals = [v for v in values if v is not None]
    return float(np.mean(vals)) if vals else None


def run_one(frame: pd.DataFrame, target: str, cats: list[str], depth: int | None,
            seed: int) -> dict:
    fit = fit_sklearn_tree(frame, target, max_depth=depth, test_size=0.3, seed=seed,
                           categorical=cats)
    model = fit.model
    t0 = time.perf_counter()
    path_redundancy(model)
    elapsed = time.perf_counter() - t0
    report = redundancy_report(model, fit.test.drop(columns=[target]), fit.test[target])
    row = {name: v for name, v in report.to_dict().items() if name in COLS}
    row["ms"] = 1000 * elapsed
    return row


def fmt(v: float | None) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return f"{v:.1f}" if abs(v) < 100 else f"{v:.0f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=10, help="train/test splits per dataset")
    ap.add_argument("--datasets", default="", help="comma-separated names (default: all)")
    args = ap.parse_args()
    entries = paper_datasets()
    if args.datasets:
        wanted = [n.strip() for n in args.datasets.split(",")]
        unknown = sorted(set(wanted) - set(entries["name"]))
        if unknown:
            raise SystemExit(f"not datasets of the paper here: {unknown}")
        entries = entries[entries["name"].isin(wanted)]
    t_start = time.perf_counter()
    tables: dict = {6: [], None: []}
    for _, entry in entries.iterrows():
        frame, why = load(entry)
        if frame is None:
            print(f"skip {entry['name']}: {why}")
            continue
        cats = categorical_columns(entry, frame)
        for depth in (6, None):
            runs = [run_one(frame, entry["target"], cats, depth, s) for s in range(args.seeds)]
            row = {"dataset": entry["name"], "#F": frame.shape[1] - 1, "#S": len(frame)}
            row.update({c: mean([r[c] for r in runs]) for c in COLS + ["ms"]})
            paper = PAPER_R.get(ALIASES.get(entry["name"], entry["name"]))
            row["paper %R"] = None if paper is None else float(paper[0 if depth else 1])
            tables[depth].append(row)
    names = {6: "max depth 6 (stand-in for IAI)", None: "unbounded depth (stand-in for ITI)"}
    for depth, rows in tables.items():
        if not rows:
            continue
        frame = pd.DataFrame(rows)
        shown = frame.copy()
        for c in COLS + ["ms", "paper %R"]:
            shown[c] = shown[c].map(fmt)
        print(f"\n== scikit-learn trees, {names[depth]}; mean over {args.seeds} seed(s) ==")
        print(shown.to_string(index=False))
        both = frame.dropna(subset=["paper %R"])
        print(f"average %R over {len(frame)} datasets: {frame['%R'].mean():.1f}% "
              f"(paper, 30 datasets: {PAPER_AVG_R[depth]}%); on the {len(both)} datasets of "
              f"Table 1: ours {both['%R'].mean():.1f}%, paper's {both['paper %R'].mean():.1f}%")
        print(f"path_redundancy per tree: mean {frame['ms'].mean():.2f} ms, "
              f"max {frame['ms'].max():.2f} ms (largest tree {frame['#N'].max():.0f} nodes)")
    print(f"\ntotal time {time.perf_counter() - t_start:.1f} s")


if __name__ == "__main__":
    main()
