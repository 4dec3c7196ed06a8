"""xdt's explanations of tree ensembles against PyXAI, in one run: one table of times and ratios.

Every time is CPU time (``time.process_time_ns``; for PyXAI plus the CPU of the processes it
waits for, its MUSer run), taken in the same run as the peer's, on the same rows of the same
fitted model; benchmarks/README.md describes every line, column and target. Sections (each
prints its rows of the one table):

1. **Random forests** (``RandomForestClassifier(n_estimators=100, max_depth=6,
   random_state=0)`` on compas, banknote and pima): on each of ``--rows`` distinct test rows,
   interleaved row by row, one AXp with a reused ``Explainer`` (``xdt.from_sklearn``), then
   PyXAI's ``sufficient_reason()`` on the same row of the same forest. Beside them, RFxpl's
   medians on the same datasets as quoted reference figures (289 / 540 / 1,279 ms per AXp,
   not re-run here).
2. **XGBoost** (``XGBClassifier(n_estimators=50, max_depth=4, random_state=0)``: 50 trees
   per class) on six of XReason's datasets (compas, german, recidivism, lending and
   adult-xreason, binary; zoo, 7 classes: 350 trees): one AXp with a reused ``Explainer``
   (``xdt.from_xgboost``), then PyXAI's boosted-tree explainer on the same row:
   ``tree_specific_reason()`` (PyXAI 2.0.1 has no ``sufficient_reason`` for boosted trees:
   its ``ExplainerBT`` inherits the base class's, which raises ``NotImplementedError``; a
   tree-specific reason is the abductive explanation it computes, a greedy one, the
   smallest of ``n_iterations=50`` randomised runs by default).
3. **Growth** on compas: random forests of 10, 100 and 500 trees of depth 3, 6 and 8, median
   one AXp (xdt only).

Categorical columns (german, recidivism, lending, adult-xreason, zoo) are given to every
library as their category codes (``benchmarks/_data.py``'s category order), as numbers: the
models split them by thresholds, and every feature of the data is one feature of the model,
so that xdt's AXps and PyXAI's reasons (mapped to features) are sets of the same features.

Every answer timed is checked, and the script stops with the row and the answer when one of
xdt's is wrong: each xdt AXp must keep the library's ``predict`` on ``--samples`` random
points that agree with the row on its features (the other features drawn from the column's
values in the data, from the model's thresholds and from one float32 and one float64 step
either side of each), and must be subset-minimal (``Explainer.is_axp``). PyXAI's reasons,
mapped to the features they test, are checked the same way (sampling through the library's
``predict``, and exactly with ``Explainer.is_weak_axp``) against the model each library
predicts with, and counted, never stopped on: PyXAI explains a random forest by the majority
vote of its trees, scikit-learn predicts by averaging their class probabilities (soft
voting), so on some rows PyXAI explains another prediction than scikit-learn's; its reasons
are then checked against the forest's majority vote too (``TreeEnsemble(..., "vote")`` of the
same trees). Where they are weak AXps, they are also reduced by deletion to subset-minimal
AXps and compared with xdt's. The notes under the table give the counts.

Run from the project root (needs ../shared/datasets); PyXAI in its own virtual environment
(benchmarks/README.md), xdt from the source tree:

    PYTHONPATH=. /tmp/benchvenv/bin/python benchmarks/ensembles.py --markdown
    python benchmarks/ensembles.py --no-pyxai                                   # no PyXAI
    python benchmarks/ensembles.py --quick --no-pyxai                           # seconds
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from _data import load
from engines import (
    Line,
    agree,
    cpu_ns_with_children,
    load_pyxai,
    median_ratio,
    print_report,
    progress,
    pyxai_explainer,
    scratch_directory,
    timed,
)
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import train_test_split

import xdt
from xdt.ir._cells import IntervalCells
from xdt.ir._ensemble import TreeEnsemble

DATASET = {"compas": "compas", "banknote": "banknote", "pima": "indians-diabetes",
           "german": "german", "recidivism": "recidivism", "lending": "lending",
           "adult-xreason": "adult-xreason", "adult": "adult", "zoo": "zoo"}
"""Short name -> the dataset's name in MANIFEST.csv."""
RF_DATASETS = ("compas", "banknote", "pima")
RF_TARGET = {"compas": 0.050, "pima": 0.250}
"""CPU seconds one median AXp may take on the 100-tree depth-6 forest."""
RFXPL_MS = {"compas": 289, "banknote": 540, "pima": 1279}
"""RFxpl's median ms per AXp on the same forests (quoted in the issue, not re-run)."""
XGB_DATASETS = ("compas", "german", "recidivism", "lending", "adult-xreason", "zoo")
XGB_TARGET = 0.100
GROWTH_TREES = (10, 100, 500)
GROWTH_DEPTHS = (3, 6, 8)
PYXAI_RATIO = 5.0
MIN_ROWS = 10


# ---------------------------------------------------------------------------- data, models
def numeric(name: str) -> tuple[pd.DataFrame, np.ndarray, list[str]]:
    """The feature columns of one dataset as float64 numbers (category codes for the
    categorical ones), the class codes ``0..k-1`` and the class labels.

    adult: its rows with a missing value dropped (30,162 rows). Raises SystemExit when the
    dataset is absent (``_data.load``)."""
    ds = load(DATASET[name])
    X, y = ds.X, ds.y
    if ds.n_missing:
        keep = ~X.isna().any(axis=1).to_numpy()
        X, y = X[keep], y[keep]
    X = X.copy()
    for c in ds.categorical:
        X[c] = X[c].cat.codes
    labels, codes = np.unique(y.astype(str).to_numpy(), return_inverse=True)
    return X.astype(np.float64).reset_index(drop=True), codes, [str(v) for v in labels]


@dataclass
class Fitted:
    """A fitted ensemble, the same model in xdt, and the distinct test rows to explain."""

    label: str
    library: str  # "scikit-learn" or "xgboost"
    est: object
    model: TreeEnsemble
    frame: pd.DataFrame  # every row of the dataset (the numbers the libraries read)
    test: np.ndarray = field(repr=False)  # distinct test rows (by cell vector), float64

    @property
    def columns(self) -> list[str]:
        return list(self.frame.columns)

    def predict(self, X: np.ndarray) -> np.ndarray:
        """The library's own predict (class codes) on rows in feature order."""
        return np.asarray(self.est.predict(X)).astype(np.int64)

    def row(self, i: int) -> dict:
        """Test row ``i`` as the instance xdt explains."""
        return dict(zip(self.columns, self.test[i].tolist(), strict=True))


def _split(name: str, cache: dict) -> tuple[pd.DataFrame, np.ndarray, np.ndarray, np.ndarray]:
    if name not in cache:
        cache[name] = numeric(name)
    frame, y, _ = cache[name]
    tr, te = train_test_split(np.arange(len(frame)), test_size=0.3, random_state=0)
    return frame, y, tr, te


def _distinct(model: TreeEnsemble, rows: np.ndarray, n: int) -> np.ndarray:
    """The first ``n`` rows of ``rows`` with distinct cell vectors (no row is explained from a
    cache)."""
    _, first = np.unique(model.encode(rows), axis=0, return_index=True)
    return rows[np.sort(first)[:n]]


def fit_forest(name: str, n_trees: int, depth: int, n_test: int, cache: dict) -> Fitted:
    """A scikit-learn random forest on 70% of the rows and the same forest in xdt."""
    frame, y, tr, te = _split(name, cache)
    X = frame.to_numpy(np.float64)
    est = RandomForestClassifier(n_estimators=n_trees, max_depth=depth, random_state=0,
                                 n_jobs=1).fit(X[tr], y[tr])
    model = xdt.from_sklearn(est, feature_names=list(frame.columns))
    return Fitted(f"{name} RF {n_trees}x depth {depth}", "scikit-learn", est, model, frame,
                  _distinct(model, X[te], n_test))


def fit_xgboost(name: str, n_trees: int, depth: int, n_test: int, cache: dict) -> Fitted:
    """An XGBoost classifier on 70% of the rows and the same model in xdt."""
    import xgboost

    frame, y, tr, te = _split(name, cache)
    X = frame.to_numpy(np.float64)
    est = xgboost.XGBClassifier(n_estimators=n_trees, max_depth=depth, random_state=0,
                                n_jobs=1).fit(X[tr], y[tr])
    model = xdt.from_xgboost(est, feature_names=list(frame.columns))
    return Fitted(f"{name} XGBoost {n_trees}/class depth {depth}", "xgboost", est, model,
                  frame, _distinct(model, X[te], n_test))


# ---------------------------------------------------------------------------- checks
def value_pools(fitted: Fitted) -> list[np.ndarray]:
    """Per feature, the values a sampled point may take: the column's values in the data,
    and for an ordinal feature every threshold of the model with one float32 and one float64
    step either side of it (the points where the libraries' comparisons differ)."""
    pools = []
    for f, cells in enumerate(fitted.model.cells):
        values = [np.unique(fitted.frame.iloc[:, f].to_numpy(np.float64))]
        if isinstance(cells, IntervalCells) and len(cells.thresholds):
            t = cells.thresholds
            t32 = t.astype(np.float32)
            values += [t, np.nextafter(t, -np.inf), np.nextafter(t, np.inf),
                       np.nextafter(t32, np.float32(-np.inf)).astype(np.float64),
                       np.nextafter(t32, np.float32(np.inf)).astype(np.float64)]
        pool = np.unique(np.concatenate(values))
        pools.append(pool[np.isfinite(pool.astype(np.float32))])
    return pools


def counterexample_by_sampling(predict: Callable[[np.ndarray], np.ndarray], x: np.ndarray,
                               fixed: list[int], pools: list[np.ndarray], n: int,
                               rng: np.random.Generator, cls: int | None = None
                               ) -> np.ndarray | None:
    """A point among ``n`` random ones that agree with ``x`` on the columns ``fixed`` (the
    others drawn from ``pools``) that ``predict`` classifies otherwise than ``cls`` (default
    ``x``'s class), or None: then ``fixed`` passed as a weak AXp."""
    points = np.empty((n, len(x)), dtype=np.float64)
    for f, pool in enumerate(pools):
        points[:, f] = x[f] if f in fixed else pool[rng.integers(0, len(pool), n)]
    want = predict(x[None, :])[0] if cls is None else cls
    wrong = np.flatnonzero(predict(points) != want)
    return points[wrong[0]] if len(wrong) else None


def hard_vote(est: RandomForestClassifier) -> Callable[[np.ndarray], np.ndarray]:
    """The majority vote of a forest's trees (first class on ties), as PyXAI predicts."""

    def predict(X: np.ndarray) -> np.ndarray:
        X32 = np.asarray(X, dtype=np.float32)
        votes = np.zeros((len(X32), len(est.classes_)), dtype=np.int64)
        for tree in est.estimators_:
            votes[np.arange(len(X32)), tree.predict(X32).astype(np.int64)] += 1
        return np.argmax(votes, axis=1)

    return predict


def vote_model(model: TreeEnsemble) -> TreeEnsemble:
    """The same trees combined by majority vote of their leaves' classes."""
    return TreeEnsemble(model.features, model.classes, model.trees, "vote",
                        input_dtype=model.input_dtype, target=model.target)


def check_axp(fitted: Fitted, ex: xdt.Explainer, i: int, features: tuple,
              pools: list[np.ndarray], n_samples: int, rng: np.random.Generator) -> None:
    """Stop the run unless xdt's AXp of test row ``i`` keeps the library's predict on
    ``n_samples`` agreeing points and is subset-minimal."""
    x = fitted.test[i]
    fixed = [fitted.columns.index(f) for f in features]
    bad = counterexample_by_sampling(fitted.predict, x, fixed, pools, n_samples, rng)
    agree(bad is None, f"xdt's AXp keeps {fitted.library}'s predict ({fitted.label})", i,
          features, None if bad is None else bad.tolist())
    agree(ex.is_axp(fitted.row(i), features), f"xdt's AXp is subset-minimal ({fitted.label})",
          i, features)


# ---------------------------------------------------------------------------- PyXAI
class PyxaiEnsemble:
    """PyXAI's explainer of one forest or boosted model (history off), its reasons as xdt
    feature sets, and its predictions (class codes)."""

    def __init__(self, fitted: Fitted, pyxai):
        # scikit-learn and XGBoost compare float32(x) with their thresholds; PyXAI compares
        # the values it is given, so it gets them float32-rounded and takes the same branches
        self.rows = fitted.test.astype(np.float32).astype(np.float64)
        self.forest = fitted.library == "scikit-learn"
        with contextlib.redirect_stdout(io.StringIO()):
            # every row of the dataset: PyXAI counts the classes of data's target column
            every = fitted.frame.to_numpy(np.float32).astype(np.float64)
            data = pd.DataFrame(every, columns=fitted.columns)
            data["target"] = fitted.predict(every)
            # PyXAI names the classes in the order they first appear in that column, and on
            # a binary model then explains the other class when that order is not 0, 1
            # (see benchmarks/README.md): class 0 first
            data = data.sort_values("target", kind="stable")
            self.model, self.explainer = pyxai_explainer(pyxai, fitted.est, data, self.rows[0])
        self.columns = fitted.columns

    def predict(self, i: int) -> int:
        return int(self.explainer.predict(self.rows[i]))

    def query(self, i: int) -> tuple[float, frozenset]:
        """CPU seconds and the reason (as a feature set) of test row ``i``: a sufficient
        reason for a forest, a tree-specific reason for boosted trees."""
        ex = self.explainer
        with scratch_directory():
            t0 = cpu_ns_with_children()
            ex.set_instance(self.rows[i])
            reason = ex.sufficient_reason() if self.forest else ex.tree_specific_reason()
            t = (cpu_ns_with_children() - t0) / 1e9
        # PyXAI numbers the columns from 1, one id per condition of the reason
        return t, frozenset(self.columns[j - 1] for j in self.model.get_id_features(reason))


@dataclass
class PeerCounts:
    """What PyXAI's answers were, row by row (the notes under the table)."""

    rows: int = 0
    other_prediction: int = 0  # PyXAI predicts another class than the library
    not_vote: int = 0  # forests: PyXAI predicts another class than the trees' majority vote
    not_weak: int = 0  # not a weak AXp of the library's model (exact, xdt's is_weak_axp)
    not_weak_sampled: int = 0  # ... and a sampled point of another class shows it
    not_weak_vote: int = 0  # forests: not a weak AXp of the majority vote either
    axp: int = 0  # a subset-minimal AXp of the library's model (feature level)
    same: int = 0  # the same feature set as xdt's AXp
    reduced_same: int = 0  # reduced to a subset-minimal AXp (deletion): xdt's AXp
    sizes: list = field(default_factory=list)  # (PyXAI's features, reduced, xdt's)

    def note(self, label: str, forest: bool) -> str:
        what = "sufficient_reason" if forest else "tree_specific_reason"
        out = (f"{label}: PyXAI {what} on {self.rows} rows: predicts another class than "
               f"{'scikit-learn' if forest else 'XGBoost'} on {self.other_prediction}"
               + (f" (than the majority vote of scikit-learn's trees on {self.not_vote})"
                  if forest else "")
               + f"; its reason (as features) is not a weak AXp of the library's model on "
               f"{self.not_weak} (a sampled point shows it on {self.not_weak_sampled})")
        if forest:
            out += f", nor of the forest's majority vote on {self.not_weak_vote}"
        if self.sizes:
            px, reduced, ours = zip(*self.sizes, strict=True)
            out += (f"; a subset-minimal AXp on {self.axp}, xdt's AXp on {self.same}; reduced "
                    f"to a subset-minimal AXp (deletion, where it is a weak AXp), xdt's AXp on "
                    f"{self.reduced_same}; median size {statistics.median(px):g} features, "
                    f"reduced {statistics.median(reduced):g} (xdt's AXp: "
                    f"{statistics.median(ours):g})")
        return out


def check_peer(fitted: Fitted, px: PyxaiEnsemble, checks: dict, i: int, reason: frozenset,
               ours: tuple, pools: list[np.ndarray], n_samples: int,
               rng: np.random.Generator, counts: PeerCounts) -> None:
    """Check PyXAI's reason of test row ``i`` (counted, never stopping the run)."""
    counts.rows += 1
    x, row = fitted.test[i], fitted.row(i)
    theirs = px.predict(i)
    counts.other_prediction += theirs != fitted.predict(x[None, :])[0]
    if px.forest:
        counts.not_vote += theirs != hard_vote(fitted.est)(x[None, :])[0]
    fixed = [fitted.columns.index(f) for f in reason]
    reduced = set(reason)
    if not checks["model"].is_weak_axp(row, reason):
        counts.not_weak += 1
        if counterexample_by_sampling(fitted.predict, x, fixed, pools, n_samples,
                                      rng) is not None:
            counts.not_weak_sampled += 1
    else:
        counts.axp += checks["model"].is_axp(row, reason)
        for f in [g for g in fitted.columns if g in reason]:  # deletion, feature order
            if checks["model"].is_weak_axp(row, reduced - {f}):
                reduced.discard(f)
        counts.reduced_same += reduced == set(ours)
    if "vote" in checks and not checks["vote"].is_weak_axp(row, reason):
        counts.not_weak_vote += 1
    counts.same += reason == frozenset(ours)
    counts.sizes.append((len(reason), len(reduced), len(ours)))


# ---------------------------------------------------------------------------- timing
def explain_rows(fitted: Fitted, pyxai, n_rows: int, budget: float, n_samples: int,
                 seed: int = 0) -> tuple[list[float], list[float], PeerCounts | None, str]:
    """One AXp per test row (reused Explainer), then PyXAI's reason on the same row, each
    checked (module docstring): xdt's times, PyXAI's (empty without it), PyXAI's counts and
    a note of what failed. Rows beyond ``budget`` CPU seconds are not timed (but at least
    :data:`MIN_ROWS`); the first row is a warm-up."""
    rng = np.random.default_rng(seed)
    pools = value_pools(fitted)
    ex = xdt.Explainer(fitted.model)
    checks = {"model": xdt.Explainer(fitted.model, certificates=False)}
    px, failed = None, ""
    if pyxai is not None:
        try:
            px = PyxaiEnsemble(fitted, pyxai)
            px.query(0)  # warm-up, untimed
        except Exception as e:  # PyXAI failed on this model: keep xdt's columns
            failed = f"PyXAI failed on {fitted.label}: {type(e).__name__}: {e}"[:300]
            px = None
    if px is not None and px.forest:
        checks["vote"] = xdt.Explainer(vote_model(fitted.model), certificates=False)
    counts = PeerCounts() if px is not None else None
    ex.axp(fitted.row(0))  # warm-up, untimed
    ours: list[float] = []
    theirs: list[float] = []
    t0 = cpu_ns_with_children()
    for i in range(1, len(fitted.test)):
        if len(ours) >= n_rows or (len(ours) >= MIN_ROWS
                                   and (cpu_ns_with_children() - t0) / 1e9 > budget):
            break
        row = fitted.row(i)
        t, axp = timed(lambda row=row: ex.axp(row))
        ours.append(t)
        if px is not None:
            t_px, reason = px.query(i)
            theirs.append(t_px)
        check_axp(fitted, checks["model"], i, axp.features, pools, n_samples, rng)
        if px is not None:
            check_peer(fitted, px, checks, i, reason, axp.features, pools, n_samples, rng,
                       counts)
    for e in (ex, *checks.values()):
        e.close()
    return ours, theirs, counts, failed


def peer_lines(fitted: Fitted, ours: list[float], theirs: list[float], what: str,
               target: float | None) -> list[Line]:
    nodes = fitted.model.n_nodes
    return [Line(f"one AXp, reused Explainer / PyXAI {what}", fitted.label, nodes,
                 statistics.median(ours), statistics.median(theirs) if theirs else None,
                 median_ratio(theirs, ours) if theirs else None, target, faster=True)]


def forest_section(name: str, pyxai, args, cache: dict) -> tuple[list[Line], list[str]]:
    """Section 1 on one dataset: the lines and the notes."""
    fitted = fit_forest(name, args.trees, args.depth, args.rows + 1, cache)
    ours, theirs, counts, failed = explain_rows(fitted, pyxai, args.rows, args.budget,
                                                args.samples)
    med = statistics.median(ours)
    lines = [Line("one AXp, reused Explainer: CPU seconds", fitted.label,
                  fitted.model.n_nodes, med, None, med, RF_TARGET.get(name))]
    lines += peer_lines(fitted, ours, theirs, "sufficient_reason", PYXAI_RATIO)
    if name in RFXPL_MS and (args.trees, args.depth) == (100, 6):
        ref = RFXPL_MS[name] / 1000
        lines.append(Line("one AXp, reused Explainer / RFxpl (quoted median, not re-run)",
                          fitted.label, fitted.model.n_nodes, med, ref, ref / med, None,
                          faster=True))
    notes = [f"{fitted.label}: {len(ours)} rows timed, {fitted.model.n_nodes:,} nodes"]
    X = fitted.frame.to_numpy(np.float64)
    soft, hard = fitted.predict(X), hard_vote(fitted.est)(X)
    notes.append(f"{fitted.label}: the majority vote of the trees predicts another class than "
                 f"scikit-learn (averaged probabilities) on {int((soft != hard).sum())} of "
                 f"{len(X):,} rows of the dataset")
    notes += [counts.note(fitted.label, True)] if counts else []
    notes += [failed] if failed else []
    return lines, notes


def xgboost_section(name: str, pyxai, args, cache: dict) -> tuple[list[Line], list[str]]:
    """Section 2 on one dataset: the lines and the notes."""
    fitted = fit_xgboost(name, args.xgb_trees, args.xgb_depth, args.rows + 1, cache)
    ours, theirs, counts, failed = explain_rows(fitted, pyxai, args.rows, args.budget,
                                                args.samples)
    med = statistics.median(ours)
    lines = [Line("one AXp, reused Explainer: CPU seconds", fitted.label,
                  fitted.model.n_nodes, med, None, med, XGB_TARGET)]
    lines += peer_lines(fitted, ours, theirs, "tree_specific_reason", None)
    notes = [f"{fitted.label}: {len(ours)} rows timed, {fitted.model.n_nodes:,} nodes"]
    notes += [counts.note(fitted.label, False)] if counts else []
    notes += [failed] if failed else []
    return lines, notes


def growth_section(trees: tuple, depths: tuple, args, cache: dict) -> list[Line]:
    """Section 3: one AXp on compas forests of every size in ``trees`` x ``depths``."""
    lines = []
    for depth in depths:
        for n in trees:
            fitted = fit_forest("compas", n, depth, args.growth_rows + 1, cache)
            ours, _, _, _ = explain_rows(fitted, None, args.growth_rows, args.budget,
                                         args.samples)
            med = statistics.median(ours)
            lines.append(Line(f"growth: one AXp, reused Explainer ({len(ours)} rows): CPU "
                              "seconds", fitted.label, fitted.model.n_nodes, med, None, med))
            progress(f"[3] {fitted.label}: done")
    return lines


# ---------------------------------------------------------------------------- main
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=50,
                    help="distinct test rows timed per model against PyXAI (50)")
    ap.add_argument("--growth-rows", type=int, default=30,
                    help="distinct test rows timed per forest of the growth section (30)")
    ap.add_argument("--budget", type=float, default=60.0,
                    help=f"CPU seconds for the rows of one model; beyond it, no more rows "
                         f"(but at least {MIN_ROWS}) (60)")
    ap.add_argument("--samples", type=int, default=2000,
                    help="random agreeing points each AXp is checked on (2000)")
    ap.add_argument("--sections", default="forest,xgboost,growth",
                    help="the sections to run, comma-separated (forest,xgboost,growth)")
    ap.add_argument("--no-pyxai", action="store_true", help="measure without PyXAI")
    ap.add_argument("--quick", action="store_true",
                    help="smoke run of a few seconds: small models on compas, 5 rows")
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = ap.parse_args()
    t_start, cpu_start = time.perf_counter(), time.process_time()
    args.trees, args.depth, args.xgb_trees, args.xgb_depth = 100, 6, 50, 4
    rf_sets, xgb_sets = RF_DATASETS, XGB_DATASETS
    trees, depths = GROWTH_TREES, GROWTH_DEPTHS
    if args.quick:
        args.rows, args.growth_rows, args.samples = 5, 3, 200
        args.trees, args.depth, args.xgb_trees, args.xgb_depth = 10, 3, 5, 3
        rf_sets, xgb_sets, trees, depths = ("compas",), ("compas",), (10,), (3,)
    sections = set(args.sections.split(","))
    if sections - {"forest", "xgboost", "growth"}:
        ap.error(f"unknown section(s) {sorted(sections - {'forest', 'xgboost', 'growth'})}; "
                 "use forest, xgboost and growth")
    rf_sets = rf_sets if "forest" in sections else ()
    xgb_sets = xgb_sets if "xgboost" in sections else ()
    trees = trees if "growth" in sections else ()
    pyxai, why = (None, "--no-pyxai") if args.no_pyxai else load_pyxai()
    if pyxai is None:
        print(f"PyXAI not used ({why}): its columns are empty; every other one is measured.",
              flush=True)
    cache: dict = {}
    lines: list[Line] = []
    notes: list[str] = []
    for name in rf_sets:
        more, more_notes = forest_section(name, pyxai, args, cache)
        lines += more
        notes += more_notes
        progress(f"[1] random forest, {name}: done")
    for name in xgb_sets:
        more, more_notes = xgboost_section(name, pyxai, args, cache)
        lines += more
        notes += more_notes
        progress(f"[2] XGBoost, {name}: done")
    lines += growth_section(trees, depths, args, cache)

    notes.append(f"every xdt AXp kept the library's predict on {args.samples:,} sampled "
                 "agreeing points and was subset-minimal")
    print_report(lines, "CPU time per AXp (medians over rows); ratio: PyXAI (or RFxpl) / xdt "
                 "on peer lines (target: at least), the seconds on the others (target: at "
                 "most)", notes, args.markdown, t_start, cpu_start)


if __name__ == "__main__":
    main()
