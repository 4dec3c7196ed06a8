"""Fit time (and peak memory) of xdt's learners against scikit-learn, in one run.

Trees. ``CARTClassifier`` and ``SERDTClassifier(factor_expl=0.97)`` against
``sklearn.tree.DecisionTreeClassifier(random_state=0)``, each at ``max_depth=6`` and
unbounded, without sample weights, on:

  * ``synthetic-2`` / ``synthetic-10``: ``sklearn.datasets.make_classification`` with 20
    numeric features (10 informative, 4 redundant), 2 / 10 classes, ``random_state=0``; the
    same float64 array for all (scikit-learn's float32 conversion is inside its fit);
  * ``adult``: ../shared/datasets/adult.csv.gz, rows with a missing value dropped (30,162),
    resampled with ``numpy.random.default_rng(0)`` to each row count (without replacement
    below 30,162, with above); xdt gets the DataFrame with its 8 string columns as pandas
    ``category`` columns (native categorical splits), scikit-learn the one-hot float64
    array (``pandas.get_dummies``, made before any clock starts);
  * ``adult-onehot``: that one-hot array for all three;
  * ``kr-vs-kp-bin``: the 73 binary columns of ../shared/datasets/kr-vs-kp-bin.csv (3,196
    rows) resampled the same way, one float64 array for all three.

Each cell fits the three learners in turn (interleaved) ``--repeats`` times (3; 1 from 10^6
rows, ``--repeats-large``) and reports the median CPU time (``time.process_time``: the
machine is shared) and the ratios to scikit-learn beside the goals (CART <= 1.0x, SER-DT <=
1.5x). A warm-up fit first loads (or compiles) the kernels. From ``--memory-rows`` (10^6)
rows, one more fit per learner measures its peak memory: the growth of the peak resident set
during the fit, in a new process that makes the data again (Linux ``/proc/self/clear_refs``
resets the peak, ``VmHWM`` reads it), against scikit-learn's (goal <= 2x).

Nested k-DNFs (``benchmarks/_fit_nested.py``) and supervised clustering
(``benchmarks/_fit_cluster.py``) print their tables after the trees' (skip them with
``--trees-only``). ``--profile`` then runs cProfile on the slowest cell's CART and SER-DT
fits.

Run from the project root (needs ../shared/datasets; the full run takes about 20 minutes):

    python benchmarks/fit_speed.py [--rows 10000,100000,1000000] [--markdown]
    python benchmarks/fit_speed.py --rows 10000 --data adult --depths none --profile
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import math
import multiprocessing
import os
import pstats
import sys
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd
import sklearn
from _data import DATASETS, show
from sklearn.datasets import make_classification
from sklearn.tree import DecisionTreeClassifier
from tqdm import tqdm

from xdt.learn import CARTClassifier, SERDTClassifier

FACTOR_EXPL = 0.97
ROWS = "10000,100000,1000000"
LARGE = 1_000_000
LEARNERS = ("sklearn", "CART", "SER-DT")
GOALS = {"CART": 1.0, "SER-DT": 1.5}
MEMORY_GOAL = 2.0
KINDS = ("synthetic-2", "synthetic-10", "adult", "adult-onehot", "kr-vs-kp-bin")
DEPTHS = "6,none"


@dataclass
class Data:
    """One dataset at one row count, in the form each learner gets."""

    kind: str
    rows: int
    features: str
    X_xdt: np.ndarray | pd.DataFrame
    X_sklearn: np.ndarray
    y: np.ndarray


@cache
def adult_frame() -> pd.DataFrame:
    return pd.read_csv(DATASETS / "adult.csv.gz").dropna().reset_index(drop=True)


@cache
def krkp_frame() -> pd.DataFrame:
    return pd.read_csv(DATASETS / "kr-vs-kp-bin.csv")


def resample(frame: pd.DataFrame, rows: int) -> pd.DataFrame:
    idx = np.random.default_rng(0).choice(len(frame), size=rows, replace=rows > len(frame))
    return frame.iloc[idx].reset_index(drop=True)


def make_data(kind: str, rows: int) -> Data:
    if kind.startswith("synthetic"):
        classes = int(kind.split("-")[1])
        X, y = make_classification(n_samples=rows, n_features=20, n_informative=10,
                                   n_redundant=4, n_classes=classes, random_state=0)
        return Data(kind, rows, f"20 numeric, {classes} classes", X, X, y)
    if kind == "kr-vs-kp-bin":
        frame = resample(krkp_frame(), rows)
        y = frame.pop(frame.columns[-1]).to_numpy()
        X = frame.to_numpy(dtype=np.float64)
        return Data(kind, rows, f"{X.shape[1]} binary", X, X, y)
    frame = resample(adult_frame(), rows)
    y = frame.pop("income").to_numpy()
    cats = [c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c])]
    X_sk = pd.get_dummies(frame, columns=cats, dtype=np.float64).to_numpy()
    if kind == "adult-onehot":
        return Data(kind, rows, f"{X_sk.shape[1]} one-hot", X_sk, X_sk, y)
    X = frame.astype(dict.fromkeys(cats, "category"))
    return Data(kind, rows, f"{frame.shape[1]} ({len(cats)} categorical; sklearn "
                f"{X_sk.shape[1]} one-hot)", X, X_sk, y)


def estimator(learner: str, depth: int | None):
    if learner == "sklearn":
        return DecisionTreeClassifier(max_depth=depth, random_state=0)
    if learner == "CART":
        return CARTClassifier(max_depth=depth)
    return SERDTClassifier(factor_expl=FACTOR_EXPL, max_depth=depth)


def leaves(est) -> int:
    return int(est.get_n_leaves())


def fit_cpu(learner: str, data: Data, depth: int | None) -> tuple[float, int]:
    """CPU seconds of one fit, and the tree's number of leaves."""
    X = data.X_sklearn if learner == "sklearn" else data.X_xdt
    est = estimator(learner, depth)
    gc.collect()
    t0 = time.process_time()
    est.fit(X, data.y)
    return time.process_time() - t0, leaves(est)


# ---------------------------------------------------------------------------- memory
def _status(key: str) -> int:
    """A ``/proc/self/status`` field in bytes (``VmRSS``, ``VmHWM``)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
    raise KeyError(key)


def memory_supported() -> bool:
    try:
        Path("/proc/self/clear_refs").write_text("5")
        _status("VmHWM")
        return True
    except OSError:
        return False


def _peak_in_this_process(learner: str, kind: str, rows: int, depth: int | None) -> float:
    data = make_data(kind, rows)
    warm_up()
    X = data.X_sklearn if learner == "sklearn" else data.X_xdt
    est = estimator(learner, depth)
    gc.collect()
    Path("/proc/self/clear_refs").write_text("5")   # the peak is now the current RSS
    before = _status("VmRSS")
    est.fit(X, data.y)
    return float(_status("VmHWM") - before)


def fit_peak(learner: str, data: Data, depth: int | None) -> float:
    """Growth of the peak resident set during one fit, in bytes, measured in a new process
    (which makes the data again): in this one, memory freed by earlier fits and kept by the
    allocator would hide the fit's own."""
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return pool.apply(_peak_in_this_process, (learner, data.kind, data.rows, depth))


# ---------------------------------------------------------------------------- report
def fmt(v: float, digits: int = 3) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return f"{v:.{digits}g}" if abs(v) < 10 ** digits else f"{v:.0f}"


def depth_name(depth: int | None) -> str:
    return "unbounded" if depth is None else str(depth)


def ratio_of(a: float, b: float) -> float:
    """``a / b``, NaN where ``b`` is 0 (a peak too small for the page-level measure)."""
    return a / b if b else math.nan


def goal(ratio: float, limit: float) -> str:
    if math.isnan(ratio):
        return "-"
    return f"{ratio:.2f} {'ok' if ratio <= limit else 'MISSED'}"


def times_table(results: list[dict]) -> pd.DataFrame:
    rows = []
    for r in results:
        t = r["seconds"]
        row = {"data": r["kind"], "rows": r["rows"], "depth": depth_name(r["depth"]),
               "features": r["features"], "repeats": r["repeats"]}
        row |= {f"{lr} s": fmt(t.get(lr, math.nan)) for lr in LEARNERS}
        row |= {f"{lr}/sklearn (<= {lim:g})":
                goal(t.get(lr, math.nan) / t.get("sklearn", math.nan), lim)
                for lr, lim in GOALS.items()}
        row["leaves sklearn/CART/SER-DT"] = "/".join(str(r["leaves"].get(lr, "-"))
                                                     for lr in LEARNERS)
        rows.append(row)
    return pd.DataFrame(rows)


def memory_table(results: list[dict]) -> pd.DataFrame:
    rows = []
    for r in results:
        m = r.get("peak")
        if not m:
            continue
        row = {"data": r["kind"], "rows": r["rows"], "depth": depth_name(r["depth"])}
        row |= {f"{lr} MB": fmt(m[lr] / 2**20) for lr in LEARNERS}
        row |= {f"{lr}/sklearn (<= {MEMORY_GOAL:g})":
                goal(ratio_of(m[lr], m["sklearn"]), MEMORY_GOAL)
                for lr in ("CART", "SER-DT")}
        rows.append(row)
    return pd.DataFrame(rows)


def goal_summary(results: list[dict]) -> None:
    for lr, lim in GOALS.items():
        ratios = [(r["seconds"][lr] / r["seconds"]["sklearn"], r) for r in results
                  if lr in r["seconds"] and "sklearn" in r["seconds"]]
        if not ratios:
            continue
        met = sum(q <= lim for q, _ in ratios)
        worst, at = max(ratios, key=lambda p: p[0])
        print(f"goal {lr} <= {lim:g}x scikit-learn's CPU time: met in {met} of {len(ratios)} "
              f"cells (worst {worst:.2f}x: {at['kind']}, {at['rows']} rows, depth "
              f"{depth_name(at['depth'])})")
    peaks = [(ratio_of(r["peak"][lr], r["peak"]["sklearn"]), lr, r) for r in results
             if r.get("peak") for lr in ("CART", "SER-DT")]
    peaks = [p for p in peaks if not math.isnan(p[0])]
    if not peaks:
        print(f"goal peak memory <= {MEMORY_GOAL:g}x scikit-learn's: not measured (see "
              "--memory-rows)")
    else:
        met = sum(q <= MEMORY_GOAL for q, _, _ in peaks)
        worst, lr, at = max(peaks, key=lambda p: p[0])
        print(f"goal peak memory <= {MEMORY_GOAL:g}x scikit-learn's: met in {met} of "
              f"{len(peaks)} (worst {worst:.2f}x: {lr}, {at['kind']}, depth "
              f"{depth_name(at['depth'])})")


def profile(data: Data, depth: int | None, md: bool) -> None:
    """cProfile of one CART and one SER-DT fit; top 15 functions by internal time."""
    for learner in ("CART", "SER-DT"):
        est = estimator(learner, depth)
        prof = cProfile.Profile()
        prof.enable()
        est.fit(data.X_xdt, data.y)
        prof.disable()
        print(f"\ncProfile: {learner} fit on {data.kind}, {data.rows} rows, depth {depth}; "
              "top 15 by internal time\n")
        if md:
            print("```")
        pstats.Stats(prof, stream=sys.stdout).strip_dirs().sort_stats("tottime") \
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


def parse_depths(arg: str) -> list[int | None]:
    out: list[int | None] = []
    for d in arg.split(","):
        d = d.strip().lower()
        if d in ("none", "unbounded"):
            out.append(None)
        elif d.isdigit() and int(d) > 0:
            out.append(int(d))
        else:
            raise SystemExit(f"--depths takes positive integers or 'none', got {d!r}")
    return out


def warm_up() -> None:
    """Load (or compile) the kernels before any clock starts."""
    X, y = make_classification(n_samples=200, n_features=5, random_state=0)
    frame = pd.DataFrame({"a": X[:, 0], "c": pd.Categorical(np.where(X[:, 1] > 0, "p", "q"))})
    for est in (CARTClassifier(), SERDTClassifier()):
        est.fit(X, y)
        est.fit(frame, y)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "),
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    ap.add_argument("--rows", default=ROWS, help=f"comma-separated row counts (default {ROWS})")
    ap.add_argument("--data", default=",".join(KINDS),
                    help=f"comma-separated, among {', '.join(KINDS)} (default: all)")
    ap.add_argument("--depths", default=DEPTHS,
                    help=f"comma-separated max_depth values, 'none' for unbounded ({DEPTHS})")
    ap.add_argument("--repeats", type=int, default=3,
                    help="fits per learner and cell below 10^6 rows; the median counts (3)")
    ap.add_argument("--repeats-large", type=int, default=1,
                    help="fits per learner and cell from 10^6 rows (1)")
    ap.add_argument("--memory-rows", type=int, default=LARGE,
                    help="measure peak memory from this many rows (10^6)")
    ap.add_argument("--trees-only", action="store_true",
                    help="skip the nested k-DNF and clustering tables")
    ap.add_argument("--profile", action="store_true",
                    help="then cProfile CART and SER-DT on the slowest cell (CART ratio)")
    ap.add_argument("--markdown", action="store_true", help="print Markdown tables")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    args = ap.parse_args()
    sizes = parse_rows(args.rows)
    depths = parse_depths(args.depths)
    kinds = [k.strip() for k in args.data.split(",") if k.strip()]
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown or not kinds:
        raise SystemExit(f"--data: choose among {', '.join(KINDS)}; got {args.data!r}")
    measure_memory = memory_supported()

    print(f"fit CPU time, SER-DT factor_expl {FACTOR_EXPL}; scikit-learn {sklearn.__version__}, "
          f"numpy {np.__version__}, pandas {pd.__version__}, {os.cpu_count()} cores"
          + ("" if measure_memory else "; peak memory not measurable here"))
    t_start = time.perf_counter()
    warm_up()
    results: list[dict] = []
    n_fits = sum(len(LEARNERS) * len(depths)
                 * ((args.repeats_large if n >= LARGE else args.repeats)
                    + (measure_memory and n >= args.memory_rows))
                 for n in sizes for _ in kinds)
    with tqdm(total=n_fits, disable=args.quiet, unit="fit", file=sys.stderr) as bar:
        for n in sizes:
            repeats = args.repeats_large if n >= LARGE else args.repeats
            for kind in kinds:
                data = make_data(kind, n)
                for depth in depths:
                    bar.set_postfix_str(f"{kind}, {n} rows, depth {depth}")
                    times: dict[str, list[float]] = {lr: [] for lr in LEARNERS}
                    res = {"kind": kind, "rows": n, "depth": depth, "features": data.features,
                           "repeats": repeats, "leaves": {}, "data": None}
                    for _ in range(repeats):
                        for lr in LEARNERS:
                            s, k = fit_cpu(lr, data, depth)
                            times[lr].append(s)
                            res["leaves"][lr] = k
                            bar.update()
                    res["seconds"] = {lr: float(np.median(v)) for lr, v in times.items()}
                    if measure_memory and n >= args.memory_rows:
                        res["peak"] = {}
                        for lr in LEARNERS:
                            res["peak"][lr] = fit_peak(lr, data, depth)
                            bar.update()
                    results.append(res)
                del data
    show("Trees: fit CPU time (s, median of the repeats) and ratios to scikit-learn "
         "(ok: goal met)", times_table(results), args.markdown)
    memory = memory_table(results)
    if len(memory):
        show("Trees: peak memory of one fit (growth of the peak resident set, MB)", memory,
             args.markdown)
    print()
    goal_summary(results)
    if not args.trees_only:
        from _fit_cluster import cluster_rows
        from _fit_nested import nested_rows

        show("Nested k-DNF: NestedKDNFClassifier.fit against a depth-k scikit-learn tree "
             "(CPU s, medians; goal <= 3x)", pd.DataFrame(nested_rows()), args.markdown)
        show("Supervised clustering, strategy='retrain': the whole fit against scikit-learn "
             "fitting the same sequence of trees on the same rows (CPU s, medians; goal <= 2x)",
             pd.DataFrame(cluster_rows()), args.markdown)
    if args.profile and results:
        worst = max(results, key=lambda r: r["seconds"]["CART"] / r["seconds"]["sklearn"])
        profile(make_data(worst["kind"], worst["rows"]), worst["depth"], args.markdown)
    print(f"\ntotal time {time.perf_counter() - t_start:.1f} s")


if __name__ == "__main__":
    main()
