"""Fit time of xdt's CART and SER-DT learners against scikit-learn's DecisionTreeClassifier.

All three fit trees of depth <= 6 (``CARTClassifier(max_depth=6)``,
``SERDTClassifier(factor_expl=0.97, max_depth=6)``, ``DecisionTreeClassifier(max_depth=6,
random_state=0)``), without sample weights, in the same run, on:

  * synthetic data: ``sklearn.datasets.make_classification`` with 20 numeric features (10
    informative, 4 redundant), 2 and 10 classes, ``random_state=0``; every learner gets the
    same float64 array (scikit-learn's float32 conversion is inside its timed fit);
  * adult (../shared/datasets/adult.csv.gz, the rows with a missing value dropped: 30,162
    rows, 6 numeric and 8 string columns, 2 classes), sampled with ``seed 0`` to each row
    count (without replacement below 30,162 rows, with replacement above); xdt's learners
    get the DataFrame with its string columns as pandas ``category`` columns (native
    categorical splits), scikit-learn gets the one-hot encoded float64 array
    (``pandas.get_dummies``, made before the clock starts).

Each time is the best of --repeats fits (3 by default; --repeats-large, 1 by default, from
10^6 rows). The table gives seconds, the ratios CART/scikit-learn and SER-DT/scikit-learn
beside the goals (CART <= 1.5x, SER-DT <= 2x) and the number of leaves of each tree (a
check that the trees are alike); a second table gives how each time grows when the rows
grow (t(10n)/t(n): 10 for linear time). --profile then runs cProfile on one CART and one
SER-DT fit at the largest row count and prints the 15 functions with the most cumulative
time.

Run from the project root (needs ../shared/datasets for adult; the full run, three sizes
up to 10^6 rows, takes minutes):

    python benchmarks/fit_speed.py [--rows 10000,100000,1000000] [--repeats 3] [--markdown]
    python benchmarks/fit_speed.py --rows 100000 --profile
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import math
import os
import pstats
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import numpy as np
import pandas as pd
import sklearn
from _data import DATASETS, show
from sklearn.datasets import make_classification
from sklearn.tree import DecisionTreeClassifier
from tqdm import tqdm

from xdt.learn import CARTClassifier, SERDTClassifier

DEPTH = 6
FACTOR_EXPL = 0.97
ROWS = "10000,100000,1000000"
LARGE = 1_000_000
LEARNERS = ("sklearn", "CART", "SER-DT")
GOALS = {"CART": 1.5, "SER-DT": 2.0}
KINDS = ("synthetic-2", "synthetic-10", "adult")


@dataclass
class Data:
    """One dataset at one row count, in the form each learner gets."""

    kind: str
    rows: int
    classes: int
    features: str
    X_xdt: np.ndarray | pd.DataFrame
    X_sklearn: np.ndarray
    y: np.ndarray


@cache
def adult_frame() -> pd.DataFrame:
    return pd.read_csv(DATASETS / "adult.csv.gz").dropna().reset_index(drop=True)


def make_data(kind: str, rows: int) -> Data:
    if kind.startswith("synthetic"):
        classes = int(kind.split("-")[1])
        X, y = make_classification(n_samples=rows, n_features=20, n_informative=10,
                                   n_redundant=4, n_classes=classes, random_state=0)
        return Data(kind, rows, classes, "20 numeric", X, X, y)
    full = adult_frame()
    idx = np.random.default_rng(0).choice(len(full), size=rows, replace=rows > len(full))
    frame = full.iloc[idx].reset_index(drop=True)
    y = frame.pop("income").to_numpy()
    cats = [c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c])]
    X_sk = pd.get_dummies(frame, columns=cats, dtype=np.float64).to_numpy()
    X = frame.astype(dict.fromkeys(cats, "category"))
    return Data(kind, rows, 2, f"{frame.shape[1]} ({len(cats)} categorical, "
                f"{X_sk.shape[1]} one-hot)", X, X_sk, y)


def estimator(learner: str):
    if learner == "sklearn":
        return DecisionTreeClassifier(max_depth=DEPTH, random_state=0)
    if learner == "CART":
        return CARTClassifier(max_depth=DEPTH)
    return SERDTClassifier(factor_expl=FACTOR_EXPL, max_depth=DEPTH)


def leaves(est) -> int:
    return int(est.get_n_leaves()) if isinstance(est, DecisionTreeClassifier) \
        else int(est.tree_.n_leaves)


def best_time(learner: str, data: Data, repeats: int, tick: Callable[[], None]
              ) -> tuple[float, int]:
    """Best fit time of ``repeats`` fits (seconds), and the tree's number of leaves."""
    X = data.X_sklearn if learner == "sklearn" else data.X_xdt
    best, est = math.inf, None
    for _ in range(repeats):
        est = estimator(learner)
        gc.collect()
        t0 = time.perf_counter()
        est.fit(X, data.y)
        best = min(best, time.perf_counter() - t0)
        tick()
    return best, leaves(est)


# ---------------------------------------------------------------------------- report
def fmt(v: float, digits: int = 3) -> str:
    if v is None or math.isnan(v):
        return "-"
    return f"{v:.{digits}g}" if abs(v) < 10 ** digits else f"{v:.0f}"


def goal(ratio: float, limit: float) -> str:
    if math.isnan(ratio):
        return "-"
    return f"{ratio:.2f} {'ok' if ratio <= limit else 'MISSED'}"


def times_table(results: list[dict]) -> pd.DataFrame:
    rows = []
    for r in results:
        t = r["seconds"]
        rows.append({"data": r["kind"], "rows": r["rows"], "classes": r["classes"],
                     "features": r["features"], "repeats": r["repeats"]}
                    | {f"{lr} s": fmt(t.get(lr, math.nan)) for lr in LEARNERS}
                    | {f"{lr}/sklearn (goal <= {lim:g})":
                       goal(t.get(lr, math.nan) / t.get("sklearn", math.nan), lim)
                       for lr, lim in GOALS.items()}
                    | {"leaves sklearn/CART/SER-DT": "/".join(
                        str(r["leaves"].get(lr, "-")) for lr in LEARNERS)})
    return pd.DataFrame(rows)


def growth_table(results: list[dict]) -> pd.DataFrame:
    rows = []
    for kind in KINDS:
        runs = sorted((r for r in results if r["kind"] == kind), key=lambda r: r["rows"])
        for a, b in zip(runs, runs[1:], strict=False):
            rows.append({"data": kind, "rows": f"{a['rows']} -> {b['rows']}",
                         "row ratio": fmt(b["rows"] / a["rows"])}
                        | {f"{lr} time ratio": fmt(b["seconds"].get(lr, math.nan)
                                                   / a["seconds"].get(lr, math.nan))
                           for lr in LEARNERS})
    return pd.DataFrame(rows)


def goal_summary(results: list[dict]) -> None:
    for lr, lim in GOALS.items():
        ratios = [(r["seconds"][lr] / r["seconds"]["sklearn"], r) for r in results
                  if lr in r["seconds"] and "sklearn" in r["seconds"]]
        if not ratios:
            print(f"goal {lr} <= {lim:g}x scikit-learn: no measurement")
            continue
        met = sum(q <= lim for q, _ in ratios)
        worst, at = max(ratios, key=lambda p: p[0])
        print(f"goal {lr} <= {lim:g}x scikit-learn: met on {met} of {len(ratios)} "
              f"(worst {worst:.2f}x, {at['kind']} at {at['rows']} rows)")


def profile(kind: str, rows: int, md: bool) -> None:
    """cProfile of one CART and one SER-DT fit; top 15 functions by cumulative time."""
    data = make_data(kind, rows)
    for learner in ("CART", "SER-DT"):
        est = estimator(learner)
        prof = cProfile.Profile()
        prof.enable()
        est.fit(data.X_xdt, data.y)
        prof.disable()
        print(f"\ncProfile: {learner} fit on {kind}, {rows} rows; top 15 by cumulative time\n")
        if md:
            print("```")
        pstats.Stats(prof, stream=sys.stdout).strip_dirs().sort_stats("cumulative") \
            .print_stats(15)
        if md:
            print("```")


# ---------------------------------------------------------------------------- main
def parse_rows(arg: str) -> list[int]:
    try:
        rows = sorted({int(float(r)) for r in arg.split(",") if r.strip()})
    except ValueError:
        raise SystemExit(f"--rows takes comma-separated row counts, got {arg!r}") from None
    if not rows or rows[0] < 10:
        raise SystemExit("--rows: each row count must be at least 10")
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "),
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    ap.add_argument("--rows", default=ROWS, help=f"comma-separated row counts (default {ROWS})")
    ap.add_argument("--data", default=",".join(KINDS),
                    help=f"comma-separated, among {', '.join(KINDS)} (default: all)")
    ap.add_argument("--repeats", type=int, default=3,
                    help="fits per learner and size below 10^6 rows; the best counts (3)")
    ap.add_argument("--repeats-large", type=int, default=1,
                    help="fits per learner and size from 10^6 rows (1)")
    ap.add_argument("--profile", action="store_true",
                    help="then cProfile one CART and one SER-DT fit at the largest size")
    ap.add_argument("--profile-data", default="synthetic-2", choices=KINDS,
                    help="the data of --profile (default synthetic-2)")
    ap.add_argument("--markdown", action="store_true", help="print Markdown tables")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    args = ap.parse_args()
    sizes = parse_rows(args.rows)
    kinds = [k.strip() for k in args.data.split(",") if k.strip()]
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown or not kinds:
        raise SystemExit(f"--data: choose among {', '.join(KINDS)}; got {args.data!r}")

    print(f"fit time, depth <= {DEPTH}, SER-DT factor_expl {FACTOR_EXPL}; scikit-learn "
          f"{sklearn.__version__}, numpy {np.__version__}, pandas {pd.__version__}, "
          f"{os.cpu_count()} cores")
    t_start = time.perf_counter()
    results: list[dict] = []
    failures: list[str] = []
    n_fits = sum(len(LEARNERS) * (args.repeats_large if n >= LARGE else args.repeats)
                 for n in sizes for _ in kinds)
    with tqdm(total=n_fits, disable=args.quiet, unit="fit", file=sys.stderr) as bar:
        for n in sizes:
            repeats = args.repeats_large if n >= LARGE else args.repeats
            for kind in kinds:
                bar.set_postfix_str(f"{kind}, {n} rows")
                data = make_data(kind, n)
                res = {"kind": kind, "rows": n, "classes": data.classes,
                       "features": data.features, "repeats": repeats, "seconds": {},
                       "leaves": {}}
                for learner in LEARNERS:
                    try:
                        s, k = best_time(learner, data, repeats, bar.update)
                    except Exception as e:  # one failed fit must not lose the others
                        failures.append(f"{learner}, {kind}, {n} rows: {type(e).__name__}: {e}")
                        continue
                    res["seconds"][learner], res["leaves"][learner] = s, k
                results.append(res)
                del data
    show("Fit time (s, best of the repeats) and ratios to scikit-learn (ok: goal met)",
         times_table(results), args.markdown)
    growth = growth_table(results)
    if len(growth):
        show("Growth of the fit time with the rows (t(more rows) / t(fewer rows))", growth,
             args.markdown)
    print()
    goal_summary(results)
    if failures:
        print(f"\n{len(failures)} learner/size(s) failed:")
        for line in failures:
            print(f"  {line}")
    if args.profile:
        profile(args.profile_data, sizes[-1], args.markdown)
    print(f"\ntotal time {time.perf_counter() - t_start:.1f} s")
    if failures:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
