"""Table 1 of Izza, Ignatiev & Marques-Silva, "On Explaining Decision Trees", with stand-ins
for the paper's learners.

The paper measures the explanation-redundant paths (%R) of trees learned by IAI (optimal
trees of depth <= 6) and ITI (incremental trees, pruning on). Neither tool is available
here, so each is replaced by learners that resemble it, on the datasets of the paper's
Table 1 that are in ../shared/datasets (MANIFEST.csv names the paper; mortality is not
there, the raw UCI adult is replaced by adult-xreason, the paper's discretised 12-feature
Adult; anneal's missing values are a category of their own, "?"), each with --seeds
train/test splits (70/30, stratified; seed = split and tree seed):

  in place of IAI (trees of depth <= 6)
  * sk6      scikit-learn's CART, max depth 6, as imported (``xdt.interop._fit.fit_sklearn_tree``);
  * sk6+m    the same trees with same-class sibling leaves merged
             (``DecisionTree.merge_leaves``; predictions unchanged, checked on the test rows);
  * cart6    xdt's CART (``xdt.learn.CARTClassifier``), max depth 6, native categorical tests,
             same-class sibling leaves merged by the learner;
  * streedD  an optimal tree: STreeD (``pystreed.STreeDClassifier``, accuracy objective, no
             complexity penalty) of depth D (--streed-depths, default 3,4,6) on the one-hot
             columns of ``TabularEncoder`` (numeric columns binarised by pystreed at its default
             5 quantile cut points), imported with ``xdt.from_pystreed`` and merged; a fit that
             does not prove optimality within --streed-time seconds (pystreed's wall-clock
             limit, default 10) is reported "-", and then no deeper tree is tried on that
             split; fitted on the first --streed-seeds splits only (default 2);
  in place of ITI (pruned trees)
  * skU      scikit-learn's CART of unbounded depth, unpruned (kept for comparison: ITI prunes);
  * ccp      scikit-learn's CART with cost-complexity pruning, ``ccp_alpha`` chosen by 5-fold
             stratified cross-validation (accuracy; ties: the smaller tree) on the training
             rows, among up to 200 alphas midway between the breakpoints of its pruning path;
             ccp+m: the same trees merged.

Per learner, ``xdt.metrics.redundancy_report`` gives the paper's columns, averaged over the
seeds: D, #N, %A, #P, %R, %C (feature space covered by redundant paths: only for
all-categorical data, "-" otherwise), %C_data (test rows on redundant paths), %m, %M, %avg;
``ms`` is the mean CPU time of ``path_redundancy`` per tree. The headline tables give %R, #N
and %A of every learner beside the paper's IAI and ITI columns, and the average over the
datasets; --detail adds each learner's table of all columns.

Datasets whose MANIFEST kinds are all categorical/boolean get every integer-coded column of
more than two values declared categorical (multi-way splits, so %C is defined); elsewhere
numeric columns are ordinal. CPU times (``time.process_time``) are printed, per learner and
in total.

Run from the project root (needs ../shared/datasets):

    python benchmarks/redundancy_table.py [--seeds 10] [--datasets car,compas,...] [--quick]
"""

from __future__ import annotations

import argparse
import math
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from xdt.explain.queries._redundant_paths import path_redundancy
from xdt.interop._fit import FitResult, fit_sklearn_tree, fit_tree
from xdt.interop._sklearn import from_sklearn
from xdt.ir import DecisionTree
from xdt.metrics import redundancy_report

DATASETS = Path(__file__).resolve().parent.parent.parent / "shared" / "datasets"
PAPER = "Izza et al. On Explaining Decision Trees"
# Table 1 of the paper, by its dataset name: (#N, %A, %R) of IAI, then of ITI
PAPER_T1 = {
    "adult": (83, 78, 33, 509, 73, 75), "anneal": (29, 99, 26, 31, 100, 25),
    "backache": (17, 72, 33, 9, 91, 80), "bank": (113, 88, 5, 1467, 86, 69),
    "biodegradation": (19, 65, 30, 71, 76, 50), "cancer": (37, 87, 36, 21, 84, 54),
    "car": (43, 96, 86, 57, 98, 65), "colic": (55, 81, 46, 17, 80, 33),
    "compas": (77, 34, 17, 183, 37, 66), "contraceptive": (99, 49, 8, 385, 48, 27),
    "dermatology": (33, 90, 23, 17, 95, 22), "divorce": (15, 90, 50, 5, 96, 33),
    "german": (25, 61, 38, 99, 72, 46), "heart-c": (43, 65, 36, 15, 75, 87),
    "heart-h": (37, 59, 31, 25, 77, 61), "kr-vs-kp": (49, 96, 80, 67, 99, 79),
    "lending": (45, 73, 73, 507, 65, 69), "letter": (127, 58, 1, 4857, 68, 6),
    "lymphography": (61, 76, 35, 21, 86, 9), "mortality": (111, 74, 8, 865, 76, 61),
    "mushroom": (39, 100, 80, 23, 100, 50), "pendigits": (121, 88, 0, 937, 85, 25),
    "promoters": (3, 90, 0, 9, 81, 20), "recidivism": (105, 61, 28, 611, 51, 53),
    "seismic_bumps": (37, 89, 42, 39, 93, 60), "shuttle": (63, 99, 28, 159, 99, 33),
    "soybean": (63, 88, 9, 71, 89, 22), "spambase": (63, 75, 37, 143, 91, 76),
    "spect": (45, 82, 60, 15, 86, 87), "splice": (7, 50, 0, 177, 55, 0),
}
# the paper's own averages of %R, over its 30 datasets (Section 6)
PAPER_AVG_R = {"IAI": 32.1, "ITI": 46.9}
# our dataset -> the paper's name; datasets of Table 1 not compared, with the reason
ALIASES = {"adult-xreason": "adult"}
LEFT_OUT = {
    "adult": "raw UCI adult (14 features, 4262 missing values); the paper's 12-feature "
             "discretised Adult is adult-xreason",
    "mortality": "not in ../shared/datasets",
}
COLS = ["D", "#N", "%A", "#P", "%R", "%C", "%C_data", "%m", "%M", "%avg"]
CV_FOLDS = 5
CCP_CANDIDATES = 200


def paper_datasets() -> pd.DataFrame:
    """The MANIFEST rows of the datasets of the paper's Table 1 (by ``ALIASES``)."""
    manifest = pd.read_csv(DATASETS / "MANIFEST.csv")
    of_paper = manifest["paper"].fillna("").map(
        lambda s: PAPER in [p.strip() for p in s.split(";")])
    in_table = manifest["name"].map(lambda n: ALIASES.get(n, n) in PAPER_T1)
    return manifest[of_paper & in_table].reset_index(drop=True)


def load(entry: pd.Series) -> tuple[pd.DataFrame | None, list[str], str]:
    """The dataset's frame (or None), its categorical columns, and why it was left out or
    what was done to it."""
    name = entry["name"]
    if name in LEFT_OUT:
        return None, [], LEFT_OUT[name]
    notes = str(entry["notes"]) if isinstance(entry["notes"], str) else ""
    if "keep_default_na=False" in notes:
        frame = pd.read_csv(DATASETS / entry["file"], keep_default_na=False, na_values=[""])
    else:
        frame = pd.read_csv(DATASETS / entry["file"])
    target = entry["target"]
    if frame[target].isna().any():
        return None, [], "missing labels"
    holes = [c for c in frame.columns if c != target and frame[c].isna().any()]
    cats = categorical_columns(entry, frame)
    note = ""
    if holes:  # anneal: "?" is mostly "not applicable"; a category of its own, as in ARFF
        n = int(frame[holes].isna().sum().sum())
        for c in holes:
            frame[c] = frame[c].map(lambda v: "?" if pd.isna(v) else str(v))
        note = f"{n} missing values in {len(holes)} columns: '?' is a category of its own"
    return frame, [c for c in cats if c not in holes], note


def categorical_columns(entry: pd.Series, frame: pd.DataFrame) -> list[str]:
    kinds = {k.split(":")[0] for k in str(entry["feature_kinds"]).split(";")}
    if not kinds <= {"categorical", "boolean"}:
        return []
    return [c for c in frame.columns if c != entry["target"]
            and pd.api.types.is_numeric_dtype(frame[c]) and frame[c].nunique() > 2]


def measure(model: DecisionTree, test: pd.DataFrame, labels) -> dict:
    """The Table 1 columns of one tree on the test rows, and the CPU time of the test."""
    t0 = time.process_time()
    path_redundancy(model)
    elapsed = time.process_time() - t0
    report = redundancy_report(model, test, labels)
    row = {name: v for name, v in report.to_dict().items() if name in COLS}
    row["ms"] = 1000 * elapsed
    return row


def same_predictions(a: DecisionTree, b: DecisionTree, rows: pd.DataFrame, what: str) -> None:
    if not np.array_equal(a.predict_index(rows), b.predict_index(rows)):
        raise RuntimeError(f"{what} changed a prediction; this is a bug in xdt")


def pruned_predictions(estimator, X: np.ndarray, alphas: np.ndarray) -> np.ndarray:
    """Class index per row of ``X`` for the minimal cost-complexity subtree of the fitted
    ``estimator`` at each alpha; shape (len(alphas), n).

    Bottom-up, for all alphas at once: a node stays a split when its children's best cost is
    below its own ``R(t) + alpha`` (``R(t)``: impurity times the node's share of the training
    weight, as scikit-learn's pruning counts it); a row's class is that of the highest node
    on its path that became a leaf. At an alpha strictly between two breakpoints of the
    pruning path this is the subtree ``DecisionTreeClassifier(ccp_alpha=alpha)`` keeps, with
    one fit serving every alpha (scikit-learn would refit the whole tree for each)."""
    t = estimator.tree_
    left, right = t.children_left, t.children_right
    r = t.impurity * t.weighted_n_node_samples / t.weighted_n_node_samples[0]
    order = []  # preorder: parents before children
    stack = [0]
    while stack:
        n = stack.pop()
        order.append(n)
        if left[n] >= 0:
            stack.extend((int(right[n]), int(left[n])))
    cost = r[None, :] + alphas[:, None]          # (alphas, nodes)
    stop = np.ones_like(cost, dtype=bool)        # the node is a leaf of the pruned tree
    for n in reversed(order):
        if left[n] >= 0:
            below = cost[:, left[n]] + cost[:, right[n]]
            keep = below < cost[:, n]
            cost[:, n] = np.where(keep, below, cost[:, n])
            stop[:, n] = ~keep
    rep = np.tile(np.arange(t.node_count), (len(alphas), 1))  # highest stopped ancestor
    cols = np.arange(len(alphas))
    for n in order:
        if left[n] >= 0:
            up = rep[:, n]
            cut = stop[cols, up]
            for c in (left[n], right[n]):
                rep[:, c] = np.where(cut, up, c)
    classes = np.argmax(t.value[:, 0, :], axis=1)
    reached = estimator.apply(X)
    return classes[rep[:, reached]]


def fit_ccp(fit: FitResult, seed: int) -> tuple[DecisionTree, float]:
    """scikit-learn's tree pruned at the ``ccp_alpha`` of best 5-fold cross-validated
    accuracy on the training rows (ties: the larger alpha, the smaller tree), imported."""
    from sklearn.model_selection import StratifiedKFold
    from sklearn.tree import DecisionTreeClassifier

    enc, target = fit.encoder, fit.target
    X = enc.transform(fit.train)
    y = fit.train[target].to_numpy()
    path = DecisionTreeClassifier(random_state=seed).cost_complexity_pruning_path(X, y)
    breaks = np.unique(np.clip(path.ccp_alphas, 0.0, None))
    # midway between breakpoints (no ties), at most CCP_CANDIDATES of them, evenly spread
    # over the sequence of subtrees
    alphas = (breaks[:-1] + breaks[1:]) / 2
    if len(alphas) > CCP_CANDIDATES:
        alphas = alphas[np.unique(np.linspace(0, len(alphas) - 1, CCP_CANDIDATES).round()
                                  .astype(int))]
    counts = pd.Series(y).value_counts()
    folds = min(CV_FOLDS, int(counts.min())) if counts.min() >= 2 else 0
    if folds >= 2 and len(alphas) > 0:
        hits = np.zeros(len(alphas))
        cv = StratifiedKFold(folds, shuffle=True, random_state=seed)
        for tr, va in cv.split(X, y):
            est = DecisionTreeClassifier(random_state=seed).fit(X[tr], y[tr])
            pred = pruned_predictions(est, X[va], alphas)
            hits += (est.classes_[pred] == y[va]).sum(axis=1)
        best = np.flatnonzero(hits == hits.max())[-1]
        alpha = float(alphas[best])
    else:
        alpha = 0.0
    est = DecisionTreeClassifier(random_state=seed, ccp_alpha=alpha).fit(X, y)
    model = from_sklearn(est, encoder=enc, target=str(target))
    test = fit.test
    theirs = est.predict(enc.transform(test))
    if [str(v) for v in model.predict(test)] != [str(v) for v in theirs]:
        raise RuntimeError("the pruned tree's import disagrees with scikit-learn; a bug in xdt")
    return model, alpha


def fit_streed(fit: FitResult, depth: int, time_limit: float) -> tuple[DecisionTree | None,
                                                                       np.ndarray, float]:
    """STreeD's optimal tree of ``depth`` on the one-hot training rows, imported and merged;
    None when optimality was not proved within ``time_limit`` seconds. Also the test labels
    as the tree's integer classes, and the fit's CPU seconds."""
    from pystreed import STreeDClassifier

    from xdt import from_pystreed

    enc, target = fit.encoder, fit.target
    labels, y = np.unique(fit.train[target].to_numpy(), return_inverse=True)
    model = STreeDClassifier(max_depth=depth, time_limit=time_limit)
    t0 = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pystreed's notes on the binarisation it does
        model.fit(enc.transform(fit.train), y)
    seconds = time.process_time() - t0
    lookup = {str(v): k for k, v in enumerate(labels)}
    test_y = np.array([lookup.get(str(v), -1) for v in fit.test[target]])
    if not model.fit_result.is_optimal():
        return None, test_y, seconds
    tree = from_pystreed(model, encoder=enc, target=str(target))
    ours = tree.predict_index(fit.test)
    theirs = np.searchsorted(np.asarray(tree.classes), model.predict(enc.transform(fit.test)))
    if not np.array_equal(ours, theirs):
        raise RuntimeError("the STreeD tree's import disagrees with pystreed; a bug in xdt")
    merged = tree.merge_leaves()
    same_predictions(tree, merged, fit.test, "merging STreeD's sibling leaves")
    return merged, test_y, seconds


class Learners:
    """The learners of the table, each ``(name, what it stands for)``, run on one split."""

    def __init__(self, streed_depths: list[int], streed_time: float, streed_seeds: int):
        self.streed_depths = streed_depths
        self.streed_time = streed_time
        self.streed_seeds = streed_seeds
        self.names = (["sk6", "sk6+m", "cart6"] + [f"streed{d}" for d in streed_depths]
                      + ["skU", "ccp", "ccp+m"])
        self.cpu = dict.fromkeys(self.names, 0.0)
        self.streed_failed: dict[str, list[str]] = {f"streed{d}": [] for d in streed_depths}

    def run(self, name: str, frame: pd.DataFrame, target: str, cats: list[str],
            seed: int) -> dict[str, dict | None]:
        out: dict[str, dict | None] = {}
        test = None

        def timed(learner: str, make: Callable[[], tuple[DecisionTree, object]]):
            t0 = time.process_time()
            model, labels = make()
            self.cpu[learner] += time.process_time() - t0
            return model, labels

        sk6, _ = timed("sk6", lambda: (fit_sklearn_tree(frame, target, 6, 0.3, seed, cats),
                                       None))
        test = sk6.test
        y = test[target]
        out["sk6"] = measure(sk6.model, test, y)
        merged, _ = timed("sk6+m", lambda: (sk6.model.merge_leaves(), None))
        same_predictions(sk6.model, merged, test, "merging scikit-learn's sibling leaves")
        out["sk6+m"] = measure(merged, test, y)
        cart, _ = timed("cart6", lambda: (fit_tree(frame, target, "cart", 6, None, 0.3, seed,
                                                   cats).model, None))
        out["cart6"] = measure(cart, test, y)
        failed = False
        for d in self.streed_depths:
            key = f"streed{d}"
            if seed >= self.streed_seeds:
                continue
            if failed:  # a shallower tree was not proved optimal in time: no deeper one
                self.streed_failed[key].append(f"{name} (seed {seed}, shallower)")
                out[key] = None
                continue
            t0 = time.process_time()
            tree, test_y, _ = fit_streed(sk6, d, self.streed_time)
            self.cpu[key] += time.process_time() - t0
            if tree is None:
                self.streed_failed[key].append(f"{name} (seed {seed})")
                out[key] = None
                failed = True
            else:
                out[key] = measure(tree, test, test_y)
        sku, _ = timed("skU", lambda: (fit_sklearn_tree(frame, target, None, 0.3, seed, cats)
                                       .model, None))
        out["skU"] = measure(sku, test, y)
        ccp, _ = timed("ccp", lambda: fit_ccp(sk6, seed))
        out["ccp"] = measure(ccp, test, y)
        ccpm, _ = timed("ccp+m", lambda: (ccp.merge_leaves(), None))
        same_predictions(ccp, ccpm, test, "merging the pruned tree's sibling leaves")
        out["ccp+m"] = measure(ccpm, test, y)
        return out


def mean(values: list) -> float | None:
    vals = [v for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
    return float(np.mean(vals)) if vals else None


def fmt(v: float | None) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return f"{v:.1f}" if abs(v) < 100 else f"{v:.0f}"


def headline(rows: list[dict], learners: list[str], column: str, paper: tuple[int, int]
             ) -> pd.DataFrame:
    """One column of every learner per dataset, beside the paper's IAI and ITI figures
    (``paper``: their positions in PAPER_T1), with the average row."""
    table = []
    for row in rows:
        line = {"dataset": row["dataset"], "IAI": row["paper"][paper[0]],
                "ITI": row["paper"][paper[1]]}
        for name in learners:
            result = row["learners"][name]
            line[name] = None if result is None else result[column]
        table.append(line)
    frame = pd.DataFrame(table)
    # each column's average over the datasets where it has a value
    average = {"dataset": f"average ({len(frame)})"}
    for c in frame.columns[1:]:
        average[c] = mean(frame[c].tolist())
    return pd.concat([frame, pd.DataFrame([average])], ignore_index=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=10, help="train/test splits per dataset")
    ap.add_argument("--datasets", default="", help="comma-separated names (default: all)")
    ap.add_argument("--streed-depths", default="3,4,6",
                    help="depths of the STreeD trees, increasing, comma-separated, each <= 6 "
                         "(default 3,4,6)")
    ap.add_argument("--streed-time", type=float, default=10.0,
                    help="pystreed's time limit per tree, in seconds of wall-clock time "
                         "(default 10)")
    ap.add_argument("--streed-seeds", type=int, default=2,
                    help="splits on which STreeD is fitted: the first N seeds (default 2)")
    ap.add_argument("--quick", action="store_true",
                    help="car and compas, 1 seed, STreeD at depth 3 only: a few seconds")
    ap.add_argument("--detail", action="store_true",
                    help="also print every learner's table of all Table 1 columns")
    args = ap.parse_args()
    if args.quick:
        args.datasets = args.datasets or "car,compas"
        args.seeds, args.streed_depths, args.streed_seeds = 1, "3", 1
    depths = [int(d) for d in args.streed_depths.split(",") if d.strip()]
    if any(not 1 <= d <= 6 for d in depths) or depths != sorted(set(depths)):
        raise SystemExit(f"--streed-depths must increase, each between 1 and 6, got {depths}")
    entries = paper_datasets()
    if args.datasets:
        wanted = [n.strip() for n in args.datasets.split(",")]
        unknown = sorted(set(wanted) - set(entries["name"]))
        if unknown:
            raise SystemExit(f"not datasets of the paper's Table 1 here: {unknown}")
        entries = entries[entries["name"].isin(wanted)]
    learners = Learners(depths, args.streed_time, min(args.streed_seeds, args.seeds))
    t_start = time.process_time()
    rows: list[dict] = []
    for _, entry in entries.iterrows():
        frame, cats, note = load(entry)
        if frame is None:
            print(f"left out {entry['name']}: {note}")
            continue
        if note:
            print(f"{entry['name']}: {note}")
        runs = [learners.run(entry["name"], frame, entry["target"], cats, s)
                for s in range(args.seeds)]
        per: dict[str, dict | None] = {}
        for name in learners.names:
            got = [r[name] for r in runs if name in r]
            if not got or any(g is None for g in got):
                per[name] = None  # STreeD did not finish on some split
                continue
            per[name] = {c: mean([g[c] for g in got]) for c in COLS + ["ms"]}
        rows.append({"dataset": entry["name"], "#F": frame.shape[1] - 1, "#S": len(frame),
                     "paper": PAPER_T1[ALIASES.get(entry["name"], entry["name"])],
                     "learners": per})
    missing = sorted(set(PAPER_T1) - {ALIASES.get(r["dataset"], r["dataset"]) for r in rows}
                     - set(LEFT_OUT) - {ALIASES.get(n, n) for n in LEFT_OUT})
    if missing and not args.datasets:
        print(f"not in ../shared/datasets: {', '.join(missing)}")
    if not rows:
        return
    names = learners.names
    streed = [n for n in names if n.startswith("streed")]
    seeds_note = (f"mean over {args.seeds} seed(s)"
                  + (f"; STreeD on the first {learners.streed_seeds}" if streed else ""))
    for title, column, paper in (("%R (redundant paths)", "%R", (2, 5)),
                                 ("#N (nodes)", "#N", (0, 3)),
                                 ("%A (test accuracy)", "%A", (1, 4))):
        table = headline(rows, names, column, paper)
        shown = table.copy()
        for c in shown.columns[1:]:
            shown[c] = shown[c].map(fmt)
        print(f"\n== {title}: the paper's IAI and ITI, and each learner; {seeds_note} ==")
        print(shown.to_string(index=False))
    for key, failed in learners.streed_failed.items():
        if failed:
            print(f"{key}: not proved optimal within {args.streed_time:g} s on "
                  f"{', '.join(failed)} (shown '-', left out of its average)")
    r_table = headline(rows, names, "%R", (2, 5))
    avg = r_table.iloc[-1]
    print(f"\naverage %R over the {len(rows)} datasets: paper IAI {avg['IAI']:.1f}%, ITI "
          f"{avg['ITI']:.1f}% (the paper's averages over its 30: {PAPER_AVG_R['IAI']}%, "
          f"{PAPER_AVG_R['ITI']}%)")
    print("  " + ", ".join(f"{n} {fmt(avg[n])}%" for n in names))
    body = r_table.iloc[:-1]
    for n in names:
        have = body[n].notna()
        if not have.all():
            ours, theirs = mean(body[n][have].tolist()), mean(body["IAI"][have].tolist())
            print(f"  {n} on the {int(have.sum())} datasets it finished: {fmt(ours)}% "
                  f"(paper IAI there: {fmt(theirs)}%)")
    print("CPU time per learner (fit, merge or import; s): "
          + ", ".join(f"{n} {learners.cpu[n]:.1f}" for n in names))
    if args.detail:
        for name in names:
            table = []
            for row in rows:
                result = row["learners"][name]
                line = {"dataset": row["dataset"], "#F": row["#F"], "#S": row["#S"]}
                line.update({c: (None if result is None else result[c]) for c in COLS + ["ms"]})
                table.append(line)
            shown = pd.DataFrame(table)
            for c in COLS + ["ms"]:
                shown[c] = shown[c].map(fmt)
            print(f"\n== {name}: all columns; {seeds_note} ==")
            print(shown.to_string(index=False))
    ms = [r["learners"][n]["ms"] for r in rows for n in names if r["learners"][n]]
    print(f"\npath_redundancy per tree: mean {np.mean(ms):.2f} ms, max {np.max(ms):.2f} ms (CPU)")
    print(f"total CPU time {time.process_time() - t_start:.1f} s")


if __name__ == "__main__":
    main()
