"""What a delta-AXp costs beside the plain AXp, and how much shorter it is, on real data.

Per dataset, xdt's CART (``xdt.learn.CARTClassifier``, --depth, default 8) is fitted on every
row (missing cells imputed by ``_data.impute``: median / mode); the first --rows rows are
explained four ways:

* ``AXp``      ``Explainer.axp`` (the path-walker), the baseline;
* ``d-prod``   ``Explainer.delta_axp(x, delta, distribution=...)`` under the product of the
               data's per-feature distributions (``EmpiricalDistribution.marginals()``, as
               ``ProductDistribution.from_data``; exact precision: a sum over paths);
* ``d-emp``    the same under ``EmpiricalDistribution`` (the rows themselves);
* ``+verify``  ``d-prod`` with ``verify=True`` (every precision recomputed by enumeration or
               over the leaf boxes with ``model.predict``).

For each: mean size, mean CPU milliseconds per row (``time.process_time``), and, for the
delta-AXps, the share of rows where it is strictly shorter than the AXp; then the mean
coverage (share of rows of the data in the rule's region) of the AXp and of the product
delta-AXp. The distributions are built once per dataset (their CPU time is printed apart).

Run from the project root (needs ../shared/datasets):

    python benchmarks/delta_axp.py [--datasets compas,adult,german] [--rows 200]
                                   [--delta 0.95] [--depth 8]
"""

from __future__ import annotations

import argparse
import time

from _data import impute, load

import xdt
from xdt.explain.queries._probability import EmpiricalDistribution
from xdt.learn import CARTClassifier

DEFAULT_DATASETS = ("compas", "adult", "german")


def run(name: str, rows: int, delta: float, depth: int) -> dict:
    ds = load(name)
    X, _, _ = impute(ds.X, ds.X)
    tree = CARTClassifier(max_depth=depth).fit(X, ds.y).tree_
    ex = xdt.Explainer(tree, certificates=False)
    started = time.process_time()
    empirical = EmpiricalDistribution(X, tree)
    product = empirical.marginals()
    build = time.process_time() - started
    xs = [X.iloc[i] for i in range(min(rows, len(X)))]
    out: dict = {"dataset": name, "rows": len(xs), "nodes": tree.n_nodes,
                 "build_ms": 1000 * build}
    ex.axp(xs[0])  # the compiled kernels, loaded once, are not the AXp's cost

    def timed(key: str, call) -> list:
        started = time.process_time()
        made = [call(x) for x in xs]
        out[f"{key}_ms"] = 1000 * (time.process_time() - started) / len(xs)
        out[f"{key}_size"] = sum(len(e) for e in made) / len(xs)
        return made

    axps = timed("axp", ex.axp)
    prod = timed("prod", lambda x: ex.delta_axp(x, delta, distribution=product))
    emp = timed("emp", lambda x: ex.delta_axp(x, delta, distribution=empirical))
    timed("verify", lambda x: ex.delta_axp(x, delta, distribution=product, verify=True))
    out["prod_shorter"] = sum(len(d) < len(a) for d, a in zip(prod, axps, strict=True)) / len(xs)
    out["emp_shorter"] = sum(len(d) < len(a) for d, a in zip(emp, axps, strict=True)) / len(xs)
    out["axp_cov"] = sum(float(e.coverage(empirical).rows) for e in axps) / len(xs)
    out["prod_cov"] = sum(float(e.coverage(empirical).rows) for e in prod) / len(xs)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", default=",".join(DEFAULT_DATASETS))
    parser.add_argument("--rows", type=int, default=200)
    parser.add_argument("--delta", type=float, default=0.95)
    parser.add_argument("--depth", type=int, default=8)
    args = parser.parse_args(argv)
    total = time.process_time()
    print(f"delta = {args.delta}, CART depth {args.depth}, first {args.rows} rows; sizes are "
          "means, ms = CPU milliseconds per row")
    head = (f"{'dataset':<9} {'nodes':>5} {'AXp':>5} {'d-prod':>6} {'d-emp':>6} "
            f"{'shorter':>13} {'AXp ms':>7} {'d-prod':>7} {'d-emp':>7} {'+verify':>8} "
            f"{'cov AXp':>8} {'cov d':>7} {'dist ms':>8}")
    print(head)
    for name in args.datasets.split(","):
        r = run(name, args.rows, args.delta, args.depth)
        print(f"{r['dataset']:<9} {r['nodes']:>5} {r['axp_size']:>5.2f} {r['prod_size']:>6.2f} "
              f"{r['emp_size']:>6.2f} {100 * r['prod_shorter']:>5.0f}% /"
              f"{100 * r['emp_shorter']:>4.0f}% {r['axp_ms']:>7.2f} {r['prod_ms']:>7.2f} "
              f"{r['emp_ms']:>7.2f} "
              f"{r['verify_ms']:>8.1f} {100 * r['axp_cov']:>7.2f}% {100 * r['prod_cov']:>6.2f}% "
              f"{r['build_ms']:>8.1f}")
    print("shorter: rows whose delta-AXp is shorter than the AXp (product / empirical); cov: "
          "mean share of the data's rows in the rule's region")
    print(f"total CPU time: {time.process_time() - total:.1f} s")


if __name__ == "__main__":
    main()
