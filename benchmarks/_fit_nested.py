"""Fit time of xdt's NestedKDNFClassifier against a depth-k scikit-learn tree, k = 2..6.

On kr-vs-kp-bin (3,196 rows, 73 Boolean columns) and on every binarised set of the paper's
Table 2 that ``nested_kdnf_table2.py`` uses (read with its ``load_binary``: the Boolean
columns as a DataFrame, the two-class label, one class against the rest where the set has
more), all rows, for each k: ``NestedKDNFClassifier(k=k)`` (what that script fits for its
``DNF`` column: a nested k-DNF of class 1, deterministic ties; timed from the DataFrame, so
its time includes reading the table and binarising it) and
``DecisionTreeClassifier(max_depth=k, random_state=0)`` (on the same rows as a numpy array,
as that script gives it). CPU time (``time.process_time``), the two fits interleaved (A, B,
A, B, ...), the median of ``repeats`` fits each, after one untimed fit of each (numba's
kernels loaded, caches warm). The goal: nested / scikit-learn <= 3.

:func:`nested_rows` returns the table as rows (for ``fit_speed.py``); run from the project
root to print it:

    python benchmarks/_fit_nested.py [--repeats 5] [--k 2,3,4,5,6] [--datasets a,b]
                                     [--markdown] [--profile kr-vs-kp-bin:6]
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import pstats
import statistics
import sys
import time

import pandas as pd
from _data import show
from nested_kdnf_table2 import dataset_names, load_binary
from sklearn.tree import DecisionTreeClassifier

from xdt.learn import NestedKDNFClassifier

GOAL = 3.0
KS = (2, 3, 4, 5, 6)
EXTRA = ("kr-vs-kp-bin",)


def datasets() -> list[str]:
    """kr-vs-kp-bin, then the binarised sets of nested_kdnf_table2.py (MANIFEST order)."""
    return [*EXTRA, *dataset_names("", quick=False)]


def _cpu(fit) -> float:
    gc.collect()
    t0 = time.process_time()
    fit()
    return time.process_time() - t0


def nested_rows(repeats: int = 5, ks=KS, names: list[str] | None = None) -> list[dict]:
    """The timing table, one row per dataset and k.

    Parameters
    ----------
    repeats : int
        Timed fits of each learner per cell (medians are reported).
    ks : iterable of int
        The values of k (default 2..6).
    names : list of str, optional
        MANIFEST names (default :func:`datasets`).

    Returns
    -------
    list of dict
        ``{data, rows, k, nested_s, sklearn_s, ratio, goal}``: CPU seconds (medians),
        ``ratio = nested_s / sklearn_s`` and ``goal = "<= 3"``.
    """
    out = []
    for name in names or datasets():
        X, y = load_binary(name)
        Xa = X.to_numpy()
        for k in ks:
            def nested(k=k, X=X, y=y):
                NestedKDNFClassifier(k=k).fit(X, y)

            def tree(k=k, Xa=Xa, y=y):
                DecisionTreeClassifier(max_depth=k, random_state=0).fit(Xa, y)

            nested(), tree()                    # warm-up, not timed
            a, b = [], []
            for _ in range(repeats):
                a.append(_cpu(nested))
                b.append(_cpu(tree))
            na, sb = statistics.median(a), statistics.median(b)
            out.append({"data": name, "rows": len(X), "k": k, "nested_s": na, "sklearn_s": sb,
                        "ratio": na / sb if sb > 0 else float("inf"), "goal": f"<= {GOAL:g}"})
    return out


def table(rows: list[dict]) -> pd.DataFrame:
    """The rows for printing: milliseconds, ratio with ok / MISSED."""
    return pd.DataFrame([{"data": r["data"], "rows": r["rows"], "k": r["k"],
                          "nested ms": f"{1000 * r['nested_s']:.2f}",
                          "sklearn ms": f"{1000 * r['sklearn_s']:.2f}",
                          "ratio": f"{r['ratio']:.2f}",
                          "goal": f"{r['goal']} {'ok' if r['ratio'] <= GOAL else 'MISSED'}"}
                         for r in rows])


def profile(name: str, k: int) -> None:
    """cProfile of one ``NestedKDNFClassifier(k=k).fit`` on ``name``; top 20 by own time."""
    X, y = load_binary(name)
    NestedKDNFClassifier(k=k).fit(X, y)
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(5):
        NestedKDNFClassifier(k=k).fit(X, y)
    prof.disable()
    print(f"\ncProfile: 5 fits of NestedKDNFClassifier(k={k}) on {name}; top 20 by tottime\n")
    pstats.Stats(prof, stream=sys.stdout).strip_dirs().sort_stats("tottime").print_stats(20)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--k", default=",".join(map(str, KS)))
    ap.add_argument("--datasets", default="", help="comma-separated MANIFEST names "
                    "(default: kr-vs-kp-bin and the sets of nested_kdnf_table2.py)")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--profile", default="", metavar="NAME:K",
                    help="also profile one fit, e.g. kr-vs-kp-bin:6")
    args = ap.parse_args()
    ks = [int(v) for v in args.k.split(",")]
    names = [n.strip() for n in args.datasets.split(",") if n.strip()] or None
    rows = nested_rows(args.repeats, ks, names)
    show(f"NestedKDNFClassifier(k).fit vs DecisionTreeClassifier(max_depth=k).fit, CPU time, "
         f"median of {args.repeats} interleaved fits", table(rows), args.markdown)
    worst = max(rows, key=lambda r: r["ratio"])
    met = sum(r["ratio"] <= GOAL for r in rows)
    print(f"\ngoal nested <= {GOAL:g}x scikit-learn: met on {met} of {len(rows)} "
          f"(worst {worst['ratio']:.2f}x, {worst['data']} k = {worst['k']})")
    if args.profile:
        name, k = args.profile.rsplit(":", 1)
        profile(name, int(k))


if __name__ == "__main__":
    main()
