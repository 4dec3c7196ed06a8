"""Redundant literals of the firing rules of learned rule lists, beside xdl-tool's statistics.

Ignatiev & Marques-Silva, "SAT-Based Rigorous Explanations for Decision Lists" (SAT 2021,
experiments) compare, for every instance, the rule of a decision list that fires with an AXp
(abductive explanation) of the prediction: on average 12.1% of the firing rule's literals are
redundant (median 6.9%, at most 49%), and an explanation may need literals of earlier rules
("why not an earlier rule"). Their lists come from other learners (xdl reads lists in the
format of the ``minds`` tool); this script measures the same shape on rule lists learned
here by the learners xdt imports, on the binary datasets of ../shared/datasets that the
paper's UCI/PennML sources share:

* ``greedy``  imodels' ``GreedyRuleListClassifier`` (max depth 5: up to 5 one-test rules),
              fitted on ``TabularEncoder``'s columns (one-hot categories, numbers as they
              are) and imported with ``xdt.from_imodels(est, encoder=...)``;
* ``oner``    imodels' ``OneRClassifier``, the same way;
* ``brl``     imodels' ``BayesianRuleListClassifier`` (rules of up to 2 items, minimum
              support 0.1, --brl-iter MCMC iterations per chain, default 5000 instead of
              imodels' 50000 to keep the run short) over 0/1 columns: every column is
              categorical, numeric ones cut into 4 bins at the training quartiles, and one-hot
              encoded; imported with ``xdt.from_imodels(est, encoder=...)``;
* ``ripper``  wittgenstein's ``RIPPER`` (seeded) for the training rows' rarer class, a rule
              set: a DNF, imported with ``xdt.from_wittgenstein`` and read as the list of
              its rules (each of the positive class, the negative class as default).

Per dataset: the 70/30 split of ``_data.split`` (seed --seed), missing cells imputed with the
training median/mode, at most --max-train training rows and --rows test rows (the first of
the shuffled split). Datasets whose MANIFEST kinds are all categorical/boolean get their
integer-coded columns of more than two values declared categorical. On the test rows,
``xdt.metrics.rule_redundancy_report`` gives, per row, the firing rule, an AXp that keeps the
rule's features as long as possible, the rule's redundant literals, the AXp's features from
earlier rules (why not earlier) and whether the rule is an AXp (see its module for the
definitions). Columns:

====== ====================================================================================
rules  rules of the list (the default not counted)
lits   mean literals of the firing rule (rule rows)
%A     test accuracy
%def   test rows decided by the default (no rule fires: nothing to measure)
mean%  mean share of redundant literals of the firing rule (rule rows); med%, max% likewise
%red   rule rows whose firing rule has a redundant literal
%!AXp  rule rows whose firing rule is not an AXp
%WNE   rule rows whose firing rule is not even a weak AXp: every AXp needs features of
       earlier rules (why not earlier)
|AXp|  mean AXp size (rule rows)
ms/row CPU milliseconds (``time.process_time``) of the report per test row (the SAT
       encoding included; rows with the same cells are analysed once)
fit s  CPU seconds of the fit
====== ====================================================================================

The summary gives, per learner and for all, the mean, median and largest share over the
pooled rule rows of every dataset, and over the lists (the mean share of each (dataset,
learner) list: the issue does not say which of the two readings xdl-tool's figures are),
beside xdl-tool's mean 12.1%, median 6.9% and maximum 49%.

Run from the project root (needs ../shared/datasets, imodels and wittgenstein):

    python benchmarks/rule_redundancy.py [--datasets compas,german] [--learners greedy,brl]
                                         [--rows 500] [--markdown] [--quick]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings

import numpy as np
import pandas as pd
from _data import for_encoder, impute, load, manifest, show, split

import xdt
from xdt.metrics import rule_redundancy_report
from xdt.metrics._rule_redundancy import XDL_TOOL

DEFAULT_DATASETS = ("compas", "adult-xreason", "german", "recidivism", "lending",
                    "house-votes-84", "kr-vs-kp", "mushroom", "monk1", "monk2", "monk3")
LEARNERS = ("greedy", "oner", "brl", "ripper")


def prepare(name: str, seed: int, max_train: int, rows: int):
    """The train and test frames and labels of dataset ``name``, and its categorical
    columns."""
    ds = load(name)
    kinds = manifest().set_index("name").loc[name, "feature_kinds"]
    if all(k.split(":")[0] in ("categorical", "boolean") for k in kinds.split(";")):
        for c in ds.X.columns:
            if c not in ds.categorical and ds.X[c].nunique() > 2:
                ds.X[c] = pd.Categorical(ds.X[c].map(lambda v: v if pd.isna(v) else str(v)))
                ds.categorical.append(c)
    X_train, X_test, y_train, y_test, _ = split(ds, seed)
    X_train, X_test, _ = impute(X_train, X_test)
    return (X_train.iloc[:max_train].reset_index(drop=True),
            X_test.iloc[:rows].reset_index(drop=True),
            y_train.iloc[:max_train].to_numpy(), y_test.iloc[:rows].to_numpy(),
            list(ds.categorical))


def binned(X: pd.DataFrame, X_train: pd.DataFrame, categorical: list[str]) -> pd.DataFrame:
    """``X`` with every numeric column of more than two values cut into 4 bins at the
    training quartiles (``q0`` .. ``q3``), all columns as objects (for BRL's 0/1 items)."""
    out = for_encoder(X).copy()
    for c in X.columns:
        if c in categorical or X_train[c].nunique() <= 2:
            continue
        edges = np.unique(np.quantile(X_train[c].astype(float), [0.25, 0.5, 0.75]))
        out[c] = [f"q{i}" for i in np.searchsorted(edges, X[c].astype(float), side="left")]
    return out.astype(object)


def fit(learner: str, X_train: pd.DataFrame, y_train: np.ndarray, X_test: pd.DataFrame,
        categorical: list[str], seed: int, brl_iter: int):
    """``(model, the test rows as the model reads them, CPU seconds of the fit)``."""
    import imodels

    from xdt.interop._tabular import TabularEncoder
    classes = sorted(set(y_train.tolist()), key=str)
    if len(classes) != 2:
        raise SystemExit(f"{len(classes)} classes: the rule learners here are binary")
    y01 = (y_train == classes[1]).astype(int)
    started = time.process_time()
    if learner in ("greedy", "oner"):
        encoder = TabularEncoder(categorical).fit(for_encoder(pd.concat([X_train, X_test])))
        est = (imodels.GreedyRuleListClassifier(max_depth=5) if learner == "greedy"
               else imodels.OneRClassifier())
        est.fit(encoder.transform(for_encoder(X_train)), y01)
        seconds = time.process_time() - started
        return xdt.from_imodels(est, encoder=encoder), for_encoder(X_test), seconds
    if learner == "brl":
        B_train, B_test = (binned(X, X_train, categorical) for X in (X_train, X_test))
        both = pd.concat([B_train, B_test])
        binary = [c for c in both.columns if set(pd.unique(both[c])) <= {0, 1}]
        encoder = TabularEncoder([c for c in both.columns if c not in binary]).fit(both)
        est = imodels.BayesianRuleListClassifier(max_iter=brl_iter, random_state=seed)
        est.fit(encoder.transform(B_train), y01, feature_names=encoder.encoded_names_)
        seconds = time.process_time() - started
        return xdt.from_imodels(est, encoder=encoder), B_test, seconds
    import wittgenstein

    counts = {c: int(np.sum(y_train == c)) for c in classes}
    pos = min(classes, key=lambda c: (counts[c], str(c)))
    neg = classes[1] if pos == classes[0] else classes[0]
    frame = X_train.astype({c: object for c in categorical})
    est = wittgenstein.RIPPER(random_state=seed)
    est.fit(frame.assign(__label__=y_train), class_feat="__label__", pos_class=pos)
    seconds = time.process_time() - started
    rows = pd.concat([X_train, X_test]).astype({c: object for c in categorical})
    model = xdt.from_wittgenstein(est, X=rows, classes=[neg, pos])
    return model, X_test.astype({c: object for c in categorical}), seconds


def run(name: str, learner: str, args) -> tuple[dict, list[float], tuple[int, int, int]]:
    """One (dataset, learner) row of the table, its rule rows' shares of redundant literals
    (percent), and the counts (rule not an AXp, rule not a weak AXp, rule rows)."""
    X_train, X_test, y_train, y_test, categorical = prepare(name, args.seed, args.max_train,
                                                            args.rows)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model, rows, fit_seconds = fit(learner, X_train, y_train, X_test, categorical,
                                       args.seed, args.brl_iter)
    classes = sorted(set(y_train.tolist()), key=str)
    predicted = model.predict(rows)
    if learner != "ripper":  # imodels' models predict 0/1 for classes[0]/classes[1]
        predicted = np.asarray(classes, dtype=object)[np.asarray(predicted, dtype=int)]
    accuracy = 100.0 * float(np.mean([str(a) == str(b)
                                      for a, b in zip(predicted, y_test, strict=True)]))
    report = rule_redundancy_report(model, rows)
    shares = [100.0 * r.redundant_share for r in report.rows if r.redundant_share is not None]

    def fmt(v: float | None, spec: str = ".1f") -> str:
        return "-" if v is None else format(v, spec)

    out = {"dataset": name, "learner": learner, "rules": report.n_rules,
           "lits": fmt(report.mean_literals, ".2f"), "%A": fmt(accuracy),
           "rows": report.n_rows,
           "%def": fmt(100.0 * report.n_default_rows / report.n_rows if report.n_rows
                       else None),
           "mean%": fmt(report.pct_mean), "med%": fmt(report.pct_median),
           "max%": fmt(report.pct_max), "%red": fmt(report.pct_rows_redundant),
           "%!AXp": fmt(report.pct_not_axp), "%WNE": fmt(report.pct_not_weak_axp),
           "|AXp|": fmt(report.mean_axp, ".2f"),
           "ms/row": fmt(1000 * report.cpu_seconds / max(report.n_rows, 1), ".2f"),
           "fit s": fmt(fit_seconds, ".2f")}
    flags = [r for r in report.rows if r.rule >= 0]
    return out, shares, (sum(not r.rule_is_axp for r in flags),
                         sum(not r.rule_is_weak_axp for r in flags), len(flags))


def summary(pooled: dict[str, tuple[list[float], tuple[int, int, int], list[float]]]
            ) -> pd.DataFrame:
    """Per learner and over all: the statistics of the pooled rule rows, and the mean,
    median and largest of the (dataset, learner) mean shares, beside xdl-tool's."""
    def stat(values: list[float], how) -> str:
        return f"{how(values):.1f}" if values else "-"

    lines = []
    for who, (shares, (not_axp, not_weak, n), cells) in pooled.items():
        lines.append({"learner": who, "rule rows": n, "mean%": stat(shares, np.mean),
                      "med%": stat(shares, np.median), "max%": stat(shares, np.max),
                      "%!AXp": f"{100.0 * not_axp / n:.1f}" if n else "-",
                      "%WNE": f"{100.0 * not_weak / n:.1f}" if n else "-",
                      "lists": len(cells), "lists mean%": stat(cells, np.mean),
                      "lists med%": stat(cells, np.median),
                      "lists max%": stat(cells, np.max)})
    paper = (f"{XDL_TOOL['mean']:.1f}", f"{XDL_TOOL['median']:.1f}", f"{XDL_TOOL['max']:.1f}")
    lines.append({"learner": "xdl-tool (SAT 2021)", "rule rows": "-", "mean%": paper[0],
                  "med%": paper[1], "max%": paper[2], "%!AXp": "-", "%WNE": "-",
                  "lists": "-", "lists mean%": paper[0], "lists med%": paper[1],
                  "lists max%": paper[2]})
    return pd.DataFrame(lines)


def warm_up() -> None:
    """One report on a one-rule list, so that the first timed report does not pay for
    loading the SAT solver's modules."""
    from xdt.ir import Feature
    from xdt.ir._conditions import Condition
    from xdt.ir._decision_list import DecisionList

    dl = DecisionList([Feature("a", "binary")], [0, 1], [([Condition("a", (1,))], 1)], 0)
    rule_redundancy_report(dl, [[0], [1]])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default=",".join(DEFAULT_DATASETS))
    parser.add_argument("--learners", default=",".join(LEARNERS))
    parser.add_argument("--rows", type=int, default=500, help="test rows per dataset")
    parser.add_argument("--max-train", type=int, default=5000, help="training rows at most")
    parser.add_argument("--brl-iter", type=int, default=5000,
                        help="MCMC iterations per chain of BRL")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--markdown", action="store_true", help="tables as Markdown")
    parser.add_argument("--quick", action="store_true",
                        help="compas only, 60 test rows, BRL at 300 iterations: seconds")
    args = parser.parse_args()
    if args.quick:
        args.datasets, args.rows, args.brl_iter = "compas", 60, 300
    learners = args.learners.split(",")
    unknown = [w for w in learners if w not in LEARNERS]
    if unknown:
        raise SystemExit(f"unknown learner(s) {unknown}; choose among {', '.join(LEARNERS)}")
    warm_up()
    started = time.process_time()
    table = []
    pooled: dict[str, tuple[list[float], list[int], list[float]]] = {}
    for name in args.datasets.split(","):
        for learner in learners:
            print(f"[{time.process_time() - started:7.1f} s] {name} {learner}",
                  file=sys.stderr, flush=True)
            line, shares, counts = run(name, learner, args)
            table.append(line)
            for who in (learner, "all"):
                s, c, cells = pooled.setdefault(who, ([], [0, 0, 0], []))
                s.extend(shares)
                for k in range(3):
                    c[k] += counts[k]
                if shares:
                    cells.append(float(np.mean(shares)))
    pooled = {w: (pooled[w][0], tuple(pooled[w][1]), pooled[w][2])
              for w in [*learners, "all"] if w in pooled}
    show(f"Redundant literals of the firing rule, per dataset and learner (test rows; seed "
         f"{args.seed})", pd.DataFrame(table), args.markdown)
    show("Shares of redundant literals pooled over the rule rows of every dataset, and over the "
         "lists (each list's mean share), beside xdl-tool's published figures",
         summary(pooled), args.markdown)
    print(f"\ntotal CPU time: {time.process_time() - started:.1f} s")


if __name__ == "__main__":
    main()
