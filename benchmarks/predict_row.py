"""One-row ``model.predict`` on a pandas row against scikit-learn's one-row ``predict``.

For each dataset and depth limit: a scikit-learn ``DecisionTreeClassifier`` fitted on the
training split (``_data.split``, missing cells imputed, categorical columns one-hot encoded
by ``TabularEncoder``) and the same tree in xdt (``xdt.from_sklearn(est, encoder=...)``).
On each of ``--rows`` test rows, interleaved row by row (the side that goes first
alternates):

* xdt: ``model.predict(row)``, ``row`` the raw test row as a pandas Series
  (``X_test.iloc[i]``: strings and numbers, as read), ``--repeat`` calls;
* scikit-learn: ``est.predict(one)``, ``one`` the same row as the (1, n) float64 matrix it
  was fitted on (the one-hot encoding made beforehand, not timed), ``--repeat`` calls.

CPU time (``time.process_time``) per call; each side's median, and the ratio, the median
over rows of xdt / scikit-learn, beside its target (<= 3). For information, the same with
the row as a dict (``row.to_dict()``) and as a one-row DataFrame (``X_test.iloc[[i]]``).
Every row's prediction is checked against scikit-learn's.

Run from the project root (needs ../shared/datasets):

    python benchmarks/predict_row.py [--rows 200] [--repeat 20] [--markdown]
    python benchmarks/predict_row.py --quick      # compas and german at depth 6, seconds
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable

import numpy as np
import pandas as pd
from _data import for_encoder, impute, load, markdown, split
from sklearn.tree import DecisionTreeClassifier

import xdt
from xdt.interop._tabular import TabularEncoder

DATASETS = ("compas", "adult", "german")
"""compas: numeric columns only; adult and german: string columns among numbers."""
DEPTHS = (6, None)
TARGET = 3.0
"""One-row ``predict`` on a pandas row: at most this many times scikit-learn's."""


def per_call(fn: Callable[[object], object], arg: object, repeat: int) -> float:
    """CPU seconds per call of ``fn(arg)``, over ``repeat`` calls."""
    t0 = time.process_time()
    for _ in range(repeat):
        fn(arg)
    return (time.process_time() - t0) / repeat


def run(name: str, depth: int | None, n_rows: int, repeat: int) -> list[dict]:
    """The table's lines of one dataset and depth limit."""
    ds = load(name)
    X_train, X_test, y_train, _, _ = split(ds, seed=0)
    X_train, X_test, _ = impute(X_train, X_test)
    X_train, X_test = for_encoder(X_train), for_encoder(X_test).reset_index(drop=True)
    enc = TabularEncoder().fit(X_train)
    est = DecisionTreeClassifier(max_depth=depth, random_state=0)
    est.fit(enc.transform(X_train), y_train.to_numpy())
    model = xdt.from_sklearn(est, encoder=enc)
    X_test = X_test.iloc[:n_rows]
    onehot = enc.transform(X_test)
    assert (model.predict(X_test) == est.predict(onehot)).all()
    forms: dict[str, Callable[[int], object]] = {
        "pandas row (Series)": lambda i: X_test.iloc[i],
        "dict": lambda i: X_test.iloc[i].to_dict(),
        "one-row DataFrame": lambda i: X_test.iloc[[i]],
    }
    times: dict[str, list[float]] = {form: [] for form in forms}
    sk_times: list[float] = []
    for i in range(len(X_test)):
        one = onehot[i:i + 1]
        expected = est.predict(one)[0]
        rows = {form: make(i) for form, make in forms.items()}
        for form, row in rows.items():
            got = model.predict(row)
            if got.tolist() != [expected]:
                raise SystemExit(f"{name}: row {i} ({form}) predicted {got.tolist()}, "
                                 f"scikit-learn {expected!r}")
        order = list(rows) if i % 2 else list(rows)[::-1]
        if i % 2:
            sk_times.append(per_call(est.predict, one, repeat))
        for form in order:
            times[form].append(per_call(model.predict, rows[form], repeat))
        if not i % 2:
            sk_times.append(per_call(est.predict, one, repeat))
    label = f"{name} {'depth 6' if depth == 6 else 'unbounded'}"
    kinds = sorted({f.kind for f in model.features})
    out = []
    for form, xs in times.items():
        ratio = statistics.median(a / b for a, b in zip(xs, sk_times, strict=True))
        target = TARGET if form == "pandas row (Series)" else None
        out.append({"tree": label, "nodes": model.n_nodes,
                    "features": f"{len(model.features)} ({', '.join(kinds)})",
                    "xdt predict of": form, "xdt": us(statistics.median(xs)),
                    "sklearn": us(statistics.median(sk_times)), "ratio": f"{ratio:.2f}",
                    "target": "-" if target is None else f"<= {target:g}",
                    "met": "-" if target is None else ("ok" if ratio <= target else "MISSED")})
    return out


def us(seconds: float) -> str:
    """CPU seconds as microseconds, three significant digits."""
    return f"{seconds * 1e6:.3g} µs"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=200, help="test rows timed per tree (200)")
    ap.add_argument("--repeat", type=int, default=20,
                    help="calls per timing of one row and side (20)")
    ap.add_argument("--datasets", default=",".join(DATASETS), help="comma-separated names")
    ap.add_argument("--quick", action="store_true",
                    help="compas and german at depth 6, 20 rows, 5 calls: seconds")
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = ap.parse_args()
    t_start, cpu_start = time.perf_counter(), time.process_time()
    trees = [(name, depth) for name in args.datasets.split(",") for depth in DEPTHS]
    if args.quick:
        args.rows, args.repeat, trees = 20, 5, [("compas", 6), ("german", 6)]
    lines = []
    for name, depth in trees:
        lines += run(name, depth, args.rows, args.repeat)
        print(f"  {name} depth {depth}: done", file=sys.stderr, flush=True)
    table = pd.DataFrame(lines)
    print("\nOne-row predict: CPU time per call (medians over rows); ratio: median over rows "
          "of xdt / scikit-learn\n")
    if args.markdown:
        print(markdown(table))
    else:
        with pd.option_context("display.width", 200, "display.max_columns", 20):
            print(table.to_string(index=False))
    print(f"\nxdt {xdt.__version__}, numpy {np.__version__}, pandas {pd.__version__}; total "
          f"{time.perf_counter() - t_start:.0f} s wall, {time.process_time() - cpu_start:.0f} s "
          "CPU")


if __name__ == "__main__":
    main()
