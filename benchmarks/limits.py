"""Whether ``time_limit`` holds: the overshoot of every long query, per engine, on large forests.

For each configuration (a scikit-learn ``RandomForestClassifier`` of 300-1,000 trees, depth
10-12, on letter or adult, the forests of issue 32's table) and each engine of tree
ensembles (``box``, ``sat``), one test row is explained by every query that takes a
``time_limit`` -- ``axp``, ``cxp``, ``delta_axp`` (under the empirical distribution of the
training rows and the row explained), ``all_axps``, ``all_cxps``, ``smallest_axp``,
``smallest_cxp``; ``axp_verify`` and ``cxp_verify`` (``verify=True``: the certificate's
re-check shares the deadline); the questions about a set of features, on the first half of
the features (``is_weak_axp``, ``is_axp``, ``is_cxp``, ``counterexample``) or on an AXp the
box engine finds first, untimed (``inflate``); ``relevant_features``,
``necessary_features`` and ``precision`` -- each with each of the configuration's limits,
one call at a time on a
fresh ``Explainer`` (so no query is answered from an earlier one's cache; the SAT engine's
encoding is the model's, built once before the first timed call and reported as ``setup``;
its solvers are loaded by the timed calls, a load the limit stops being continued by the next
call). Each call's CPU time
(``time.process_time``) and wall time (``time.perf_counter``) are measured, and the overshoot
over the limit is printed: ``cpu - limit`` and ``wall - limit`` (negative: the call ended
before its limit), beside how the call ended (``answer``, ``limit`` with the explanations
found so far, or ``ComputationLimitError``). The goal is an overshoot of at most 0.5 s in both
(on a quiet machine: the wall time of a loaded one counts the other processes' turns too).

    python benchmarks/limits.py             # issue 32's forests (about 10 min of CPU)
    python benchmarks/limits.py --quick     # one smaller forest, under a minute
    python benchmarks/limits.py --markdown  # the table in Markdown
    python benchmarks/limits.py --quick --engines box --queries relevant_features,inflate

Needs ../shared/datasets (letter, adult).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd
from _data import load
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import train_test_split

import xdt
from xdt.errors import ComputationLimitError, XdtError
from xdt.explain.engines import shared_encoding
from xdt.explain.queries import EmpiricalDistribution
from xdt.ir import TreeEnsemble

GOAL = 0.5
"""Seconds a call may run past its ``time_limit``."""
QUERIES = ("axp", "cxp", "delta_axp", "all_axps", "all_cxps", "smallest_axp", "smallest_cxp",
           "axp_verify", "cxp_verify", "is_weak_axp", "is_axp", "is_cxp", "counterexample",
           "inflate", "relevant_features", "necessary_features", "precision")
SET_QUERIES = ("is_weak_axp", "is_axp", "is_cxp", "counterexample")
"""The questions asked about a given set of features: the first half of the features."""
ENGINES = ("box", "sat")


@dataclass(frozen=True)
class Config:
    """One forest and the limits its calls are given (each query runs once per limit)."""

    dataset: str
    trees: int
    depth: int
    limits: tuple[float, ...]


FULL = (Config("letter", 1000, 10, (2.0,)), Config("letter", 300, 12, (3.0, 1.0)),
        Config("adult", 500, 12, (2.0,)))
"""Issue 32's forests: box ``all_cxps(time_limit=2)`` and SAT ``all_axps(time_limit=2)`` on
the 1,000-tree depth-10 letter forest, SAT ``all_cxps(time_limit=3)`` and box
``smallest_cxp(time_limit=1)`` on the 300-tree depth-12 one; and adult."""
QUICK = (Config("letter", 300, 7, (0.5,)),)
"""Fits in a minute with its fit and the SAT engine's setup."""

_START = time.perf_counter()


def say(text: str) -> None:
    print(f"[{time.perf_counter() - _START:6.1f} s] {text}", file=sys.stderr, flush=True)


def forest(config: Config, sample: int | None) -> tuple[TreeEnsemble, pd.DataFrame,
                                                       pd.DataFrame]:
    """The forest in xdt, its training rows and its test rows (numeric columns; category
    codes for adult's categorical ones; rows with a missing value dropped)."""
    ds = load(config.dataset)
    X, y = ds.X, ds.y
    keep = ~X.isna().any(axis=1).to_numpy()
    X, y = X[keep].copy(), y[keep]
    for c in ds.categorical:
        X[c] = X[c].cat.codes
    X = X.astype(np.float64).reset_index(drop=True)
    labels = y.astype(str).to_numpy()
    tr, te = train_test_split(np.arange(len(X)), test_size=0.3, random_state=0)
    if sample is not None:
        tr = tr[:sample]
    est = RandomForestClassifier(n_estimators=config.trees, max_depth=config.depth,
                                 random_state=0, n_jobs=1).fit(X.iloc[tr], labels[tr])
    model = xdt.from_sklearn(est, feature_names=list(X.columns))
    return model, X.iloc[tr].reset_index(drop=True), X.iloc[te].reset_index(drop=True)


def call(ex: xdt.Explainer, query: str, x: dict, limit: float,
         dist: EmpiricalDistribution, axp: tuple[str, ...] | None) -> str:
    """Run one query with ``time_limit=limit``; how it ended (``axp``: an AXp of ``x``, the
    set ``inflate`` widens)."""
    half = ex.model.features.names[:len(ex.model.features) // 2]
    try:
        if query == "delta_axp":
            got = ex.delta_axp(x, 0.95, distribution=dist, time_limit=limit)
        elif query in ("axp_verify", "cxp_verify"):
            got = getattr(ex, query[:3])(x, verify=True, time_limit=limit)
        elif query in SET_QUERIES:
            got = getattr(ex, query)(x, half, time_limit=limit)
        elif query == "inflate":
            got = ex.inflate(x, axp, time_limit=limit)
        elif query == "precision":
            got = ex.precision(x, half, distribution=dist, time_limit=limit)
        else:
            got = getattr(ex, query)(x, time_limit=limit)
    except ComputationLimitError as e:
        return f"ComputationLimitError ({e.limit})"
    except XdtError as e:  # an answer that is an error, within the limit
        return type(e).__name__
    if isinstance(got, list):
        stopped = getattr(got, "stopped_by", None)
        return f"{len(got)} found" + (f", stopped by {stopped}" if stopped else ", complete")
    if isinstance(got, bool | tuple):
        return f"answer {got!r}" if not isinstance(got, tuple) else f"{len(got)} features"
    return "answer" if got is not None else "None"


def measure(config: Config, engines: tuple[str, ...], queries: tuple[str, ...],
            sample: int | None) -> list[dict]:
    say(f"fitting {config.dataset} RF {config.trees} x depth {config.depth}")
    model, train, test = forest(config, sample)
    # the training rows and the explained row: some row lies in every set of its cells
    dist = EmpiricalDistribution(pd.concat([train, test.iloc[[0]]]), model)
    x = test.iloc[0].to_dict()
    axp = None
    if "inflate" in queries:  # the AXp to widen, found first and not timed
        axp = xdt.Explainer(model, engine="box", certificates=False).axp(x).features
    rows = []
    for engine in engines:
        cpu, wall = time.process_time(), time.perf_counter()
        xdt.Explainer(model, engine=engine).predict(x)  # the kernels' load
        if engine == "sat":  # else the first calls would build it, a few trees each
            shared_encoding(model).build()
        setup = (time.process_time() - cpu, time.perf_counter() - wall)
        say(f"  {engine}: setup {setup[0]:.1f} s CPU")
        for limit in config.limits:
            for query in queries:
                ex = xdt.Explainer(model, engine=engine, certificates=False)
                cpu, wall = time.process_time(), time.perf_counter()
                outcome = call(ex, query, x, limit, dist, axp)
                cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
                ex.close()
                say(f"  {engine} {query} ({limit:g} s): {cpu:.2f} s CPU, {wall:.2f} s wall, "
                    f"{outcome}")
                rows.append({"forest": f"{config.dataset} {config.trees}x{config.depth}",
                             "engine": engine, "query": query, "limit": limit,
                             "setup_cpu": setup[0], "cpu": cpu, "wall": wall,
                             "over_cpu": cpu - limit, "over_wall": wall - limit,
                             "outcome": outcome})
    return rows


def table(rows: list[dict], markdown: bool) -> str:
    head = ["forest", "engine", "setup CPU s", "query", "limit s", "CPU s", "wall s",
            "over CPU", "over wall", "held", "ended"]
    body = [[r["forest"], r["engine"], f"{r['setup_cpu']:.1f}", r["query"],
             f"{r['limit']:g}", f"{r['cpu']:.2f}",
             f"{r['wall']:.2f}", f"{r['over_cpu']:+.2f}", f"{r['over_wall']:+.2f}",
             "yes" if max(r["over_cpu"], r["over_wall"]) <= GOAL else
             ("CPU" if r["over_cpu"] <= GOAL else "no"), r["outcome"]] for r in rows]
    if markdown:
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        lines += ["| " + " | ".join(row) + " |" for row in body]
        return "\n".join(lines)
    widths = [max(len(str(c)) for c in col) for col in zip(head, *body, strict=True)]
    return "\n".join("  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True))
                     for row in [head, *body])


def main(argv: list[str] | None = None) -> list[dict]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="one 300-tree depth-7 letter forest on 2,000 rows, limit 0.5 s "
                    "(under a minute)")
    ap.add_argument("--engines", default=",".join(ENGINES), help="comma-separated engines")
    ap.add_argument("--queries", default=",".join(QUERIES), help="comma-separated queries")
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = ap.parse_args(argv)
    engines = tuple(e for e in args.engines.split(",") if e)
    queries = tuple(q for q in args.queries.split(",") if q)
    unknown = [q for q in queries if q not in QUERIES] + [e for e in engines if e not in ENGINES]
    if unknown:
        ap.error(f"unknown engine or query: {', '.join(unknown)}")
    rows: list[dict] = []
    for config in QUICK if args.quick else FULL:
        rows += measure(config, engines, queries, 2000 if args.quick else None)
    print(table(rows, args.markdown))
    worst = max(max(r["over_cpu"], r["over_wall"]) for r in rows)
    print(f"\nworst overshoot {worst:+.2f} s (goal <= {GOAL} s); CPU time "
          f"{time.process_time():.0f} s in all")
    return rows


if __name__ == "__main__":
    main()
