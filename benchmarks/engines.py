"""xdt's explanation engines against their peers, in one run: one table of ratios and targets.

Every time is CPU time (``time.process_time_ns``; for PyXAI plus the CPU of the processes it
waits for, its Open-WBO runs), taken in the same run as the peer's, on the same rows of the
same scikit-learn tree; benchmarks/README.md describes every line, column and target.
Sections (each prints its rows of the one table):

1. **Per call, against PyXAI 2.x** (compas, adult-xreason, german at depth 6 and unbounded;
   adult unbounded): on each of ``--rows`` distinct test rows, interleaved row by row — xdt
   (one AXp with a reused ``Explainer`` and with a fresh one per call, the instance as a
   pandas row and as a dict; all CXps and a smallest AXp with a reused ``Explainer``), then
   PyXAI on the same row (``set_instance`` plus ``sufficient_reason()``,
   ``contrastive_reason(n=ALL)``, ``minimal_sufficient_reason()``). Each call is timed
   alone, less the clock's own cost; every call kind has its own reused ``Explainer``, and
   the rows are distinct cell vectors, so no call is answered from a cache. The ratio is the
   median over rows of PyXAI's time over xdt's.
2. **Batch against scikit-learn predict**: ``Explainer.explain_batch(X, what="axp",
   dedupe=False)`` on every row of the dataset (raw rows, as read), against
   ``predict`` of the same fitted tree on the same rows, already encoded as the float64
   matrix scikit-learn was fitted on (encoding not timed); the two calls alternate, the
   ratio is the median of batch / predict. Also kr-vs-kp-bin (73 binary features) and
   one-hot adult (``pandas.get_dummies``, 104 features), beside adult with its 14 features.
3. **All CXps of 10^6 distinct rows** of the depth-6 adult-xreason tree (each column drawn
   from the dataset's values independently, duplicates dropped), ``dedupe=False``, against
   ``predict``; and the resident memory per row of the batch (AXp and all CXps).
4. **SAT engine against a plain PySAT baseline** (``pysat_baseline.py``): trees of adult's
   six numeric columns with ``max_leaf_nodes`` 500 and 4152 (999 and 8,303 nodes), one AXp
   per row with ``Explainer(model, engine="sat")`` fresh per row and reused, and random
   DNFs of 200 and 2,000 terms over 40 binary features (``order="features"`` on both sides),
   interleaved row by row; the ratio is the median of xdt / baseline.
5. **First-call cost** (numba compilation): two new processes, one with an empty numba
   cache (``NUMBA_CACHE_DIR``) and one with the cache the first filled, each timing its
   first calls; and the same calls once warm in one process.

Every engine timed is checked to give the same answers on the rows it times, and the script
stops with the row and both answers when one does not: the per-call variants give the same
AXp, and the batch ``Explainer.axp``'s (on every row, unless that would take more than
``--check-budget``: then a random part, and a note says how many); the SAT engine, the
baseline and the path engine give the same AXp; the batch's all CXps equal
``Explainer.all_cxps`` on a sample of the 10^6 rows. PyXAI explains
over conditions (``x > t``), not features: mapped to the features they test, its
sufficient and minimal sufficient reasons must be weak AXps (the latter no smaller than
xdt's smallest AXp), and the subset-minimal sets of its contrastive reasons must be xdt's
CXps.

Run from the project root (needs ../shared/datasets); PyXAI in its own virtual environment
(benchmarks/README.md), xdt from the source tree:

    PYTHONPATH=. /tmp/benchvenv/bin/python benchmarks/engines.py --markdown   # < 10 min
    python benchmarks/engines.py --no-pyxai                                   # no PyXAI
    python benchmarks/engines.py --quick --no-pyxai                           # seconds
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import gc
import io
import json
import math
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from _data import DATASETS, markdown
from pysat_baseline import DnfBaseline, TreeBaseline
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

import xdt
from xdt.interop._tabular import TabularEncoder
from xdt.ir import DNF, Condition, Feature

FILES = {"compas": "compas.csv", "german": "german.csv",
         "adult-xreason": "adult-xreason.csv.gz", "adult": "adult.csv.gz",
         "kr-vs-kp-bin": "kr-vs-kp-bin.csv"}
PYXAI_TREES = (("compas", 6), ("compas", None), ("adult-xreason", 6), ("adult-xreason", None),
               ("german", 6), ("german", None), ("adult", None))
BATCH_TREES = PYXAI_TREES + (("adult", 6), ("kr-vs-kp-bin", 6), ("adult-onehot", 6))
SAT_LEAVES = (500, 4152)
DNF_TERMS = (200, 2000)
DNF_FEATURES = 40
MIN_ROWS = 20
"""Rows timed per tree against PyXAI at the least, whatever ``--per-call-budget`` says."""
BIG_TREE = 3000
"""Unbounded trees with at least this many nodes get the issue's large-tree targets."""


# ---------------------------------------------------------------------------- clocks
def cpu_ns() -> int:
    """CPU time of this process, in ns."""
    return time.process_time_ns()


def cpu_ns_with_children() -> int:
    """CPU time of this process and of the child processes it has waited for, in ns."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time_ns() + round((r.ru_utime + r.ru_stime) * 1e9)


def _clock_overhead() -> int:
    """What two back-to-back reads of :func:`cpu_ns` measure (ns): the clock's own cost,
    taken off every single-call time."""
    pairs = []
    for _ in range(2000):
        t0 = cpu_ns()
        pairs.append(cpu_ns() - t0)
    return int(statistics.median(pairs))


CLOCK_NS = _clock_overhead()


def timed(fn: Callable[[], object]) -> tuple[float, object]:
    """``(CPU seconds, fn())`` for one call, less the clock's own cost."""
    t0 = cpu_ns()
    out = fn()
    return max(cpu_ns() - t0 - CLOCK_NS, 1) / 1e9, out


def loop_time(fn: Callable[[], object], min_seconds: float) -> float:
    """CPU seconds per call of ``fn``, calling it until ``min_seconds`` have passed."""
    n, t0 = 0, cpu_ns()
    while True:
        fn()
        n += 1
        t = (cpu_ns() - t0) / 1e9
        if t >= min_seconds:
            return t / n


class Peak:
    """Peak resident memory of a call above the resident size before it, in bytes.

    Linux: resets the high-water mark (``/proc/self/clear_refs``) and reads ``VmHWM``, so
    compiled code's allocations count; elsewhere: tracemalloc's peak (numpy's allocations).
    """

    def __init__(self) -> None:
        self.kind = "resident"
        try:
            with open("/proc/self/clear_refs", "w") as f:
                f.write("5")
            self._status("VmHWM")
        except OSError:
            self.kind = "traced"

    @staticmethod
    def _status(key: str) -> int:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024
        raise OSError(key)

    def measure(self, fn: Callable[[], object]) -> tuple[int, object, float]:
        """``(peak bytes above the start, fn(), CPU seconds of fn alone)``: the
        collection and trimming before the call are not timed."""
        if self.kind == "traced":
            tracemalloc.start()
            try:
                t0 = cpu_ns()
                out = fn()
                seconds = (cpu_ns() - t0) / 1e9
                return tracemalloc.get_traced_memory()[1], out, seconds
            finally:
                tracemalloc.stop()
        gc.collect()
        with contextlib.suppress(OSError, AttributeError):  # glibc: give freed memory back
            ctypes.CDLL("libc.so.6").malloc_trim(0)
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        before = self._status("VmRSS")
        t0 = cpu_ns()
        out = fn()
        seconds = (cpu_ns() - t0) / 1e9
        return self._status("VmHWM") - before, out, seconds


# ---------------------------------------------------------------------------- the table
@dataclass
class Line:
    """One row of the table: xdt's time, the peer's, the ratio and the target.

    ``faster``: the ratio is peer / xdt and must reach ``target``; otherwise xdt / peer,
    which must not exceed it."""

    what: str
    tree: str
    nodes: int | str
    xdt: float | None
    peer: float | None
    ratio: float | None
    target: float | None = None
    faster: bool = False

    def cells(self) -> dict:
        met = "-"
        if self.target is not None and self.ratio is not None:
            ok = self.ratio >= self.target if self.faster else self.ratio <= self.target
            met = "ok" if ok else "MISSED"
        target = "-" if self.target is None else (
            f"{'>=' if self.faster else '<='} {self.target:g}")
        return {"what": self.what, "tree": self.tree, "nodes": self.nodes,
                "xdt": seconds(self.xdt), "peer": seconds(self.peer),
                "ratio": "-" if self.ratio is None else f"{self.ratio:.3g}",
                "target": target, "met": met}


def seconds(s: float | None) -> str:
    """A duration with its unit, three significant digits."""
    if s is None:
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s * 1e9:.3g} ns"


def median_ratio(num: Sequence[float], den: Sequence[float]) -> float:
    """Median over rows of ``num[i] / den[i]``."""
    return statistics.median(a / b for a, b in zip(num, den, strict=True))


class Disagreement(SystemExit):
    """Two engines gave different answers on a row: the benchmark stops."""


def agree(ok: bool, what: str, row: object, *answers: object) -> None:
    if not ok:
        raise Disagreement(f"engines disagree ({what}) on row {row}: "
                           + " | ".join(map(repr, answers)))


# ---------------------------------------------------------------------------- trees
@dataclass
class Tree:
    """A fitted scikit-learn tree, the same tree in xdt, and the rows to explain."""

    name: str
    depth: int | None
    est: DecisionTreeClassifier
    enc: TabularEncoder
    model: xdt.DecisionTree
    frame: pd.DataFrame  # every row of the dataset, raw (xdt's input)
    test: pd.DataFrame  # distinct test rows (by cell vector), raw
    onehot: np.ndarray = field(repr=False)  # frame as scikit-learn reads it

    @property
    def label(self) -> str:
        return f"{self.name} {'depth 6' if self.depth == 6 else 'unbounded'}"

    @property
    def n_features(self) -> int:
        return len(self.model.features)


def read(name: str) -> tuple[pd.DataFrame, np.ndarray, str]:
    """Feature columns, class codes 0..k-1 and the target column name of one dataset.

    adult: its rows with a missing value dropped (30,162 rows); "adult-onehot": those rows
    one-hot encoded by ``pandas.get_dummies`` (104 columns). The others are read with
    ``keep_default_na=False`` (adult-xreason's "None" is a category).
    """
    base = "adult" if name == "adult-onehot" else name
    if base == "adult":
        frame = pd.read_csv(DATASETS / FILES[base]).dropna().reset_index(drop=True)
    else:
        frame = pd.read_csv(DATASETS / FILES[base], keep_default_na=False)
    target = frame.columns[-1]
    # class codes 0..k-1: PyXAI 2.0.1's sufficient_reason compares the class *label* of the
    # instance with the class *index* its leaves store; with codes both agree
    _, y = np.unique(frame.pop(target).astype(str).to_numpy(), return_inverse=True)
    if name == "adult-onehot":
        frame = pd.get_dummies(frame)
    return frame, y, target


def fit(name: str, depth: int | None, n_test: int, cache: dict) -> Tree:
    """One scikit-learn tree on 70% of the rows (TabularEncoder's one-hot encoding), the same
    tree in xdt (``from_sklearn(est, encoder=...)``), and ``n_test`` distinct test rows."""
    if name not in cache:
        cache[name] = read(name)
    frame, y, target = cache[name]
    enc = TabularEncoder().fit(frame)
    onehot = enc.transform(frame)
    tr, te = train_test_split(np.arange(len(frame)), test_size=0.3, random_state=0)
    est = DecisionTreeClassifier(max_depth=depth, random_state=0).fit(onehot[tr], y[tr])
    model = xdt.from_sklearn(est, encoder=enc, target=target)
    test = frame.iloc[te]
    _, first = np.unique(model.encode(test), axis=0, return_index=True)
    test = test.iloc[np.sort(first)[:n_test]].reset_index(drop=True)
    return Tree(name, depth, est, enc, model, frame, test, onehot)


# ---------------------------------------------------------------------------- PyXAI
def load_pyxai():
    """PyXAI's ``(Learning, Explaining)`` modules, or ``(None, why)`` when it is unusable."""
    argv = sys.argv
    sys.argv = argv[:1]  # PyXAI and its dependency pycsp3 parse sys.argv when imported
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            from pyxai import Explaining, Learning, Tools
    except Exception as e:  # ImportError, or a broken install
        return None, f"{type(e).__name__}: {e}"
    finally:
        sys.argv = argv
    Tools.set_verbose(0)
    with contextlib.suppress(Exception):
        # pycsp3 (imported by PyXAI) compiles an empty CSP model at exit and prints a warning
        from pycsp3.compiler import Compilation
        Compilation.done = True
    return (Learning, Explaining), None


@contextlib.contextmanager
def scratch_directory():
    """Run in a temporary working directory: PyXAI's MaxSAT call writes ./tmp/*.wcnf."""
    here = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="xdt-bench-") as d:
        os.chdir(d)
        try:
            yield
        finally:
            os.chdir(here)


def pyxai_explainer(pyxai, est, data: pd.DataFrame, first_row) -> tuple[object, object]:
    """PyXAI's model of the fitted ``est`` (its ``ModelIO.import_models`` on ``data``, the
    target column last) and an explainer initialised on ``first_row``, with the history of
    reasons PyXAI keeps for its GUI switched off (it only slows the explainer down)."""
    learning, explaining = pyxai
    _, models = learning.ModelIO.import_models(est, data, instances_type="tabular")
    model = models[0] if isinstance(models, list | tuple) else models
    explainer = explaining.initialize(model, instance=first_row)
    visualisation = getattr(explainer, "_visualisation", None)
    if visualisation is not None:
        visualisation._do_history = False
    return model, explainer


class Pyxai:
    """PyXAI's explainer of one tree (history off), and its reasons as xdt feature sets."""

    def __init__(self, tree: Tree, pyxai):
        self.explaining = pyxai[1]
        # scikit-learn tests float32(x) <= t; PyXAI tests x > t on the values it is given, so
        # it gets the float32-rounded values and follows the same branch as scikit-learn
        self.rows = tree.enc.transform(tree.test).astype(np.float32).astype(np.float64)
        with contextlib.redirect_stdout(io.StringIO()):
            # data= (with the target last) names the columns; without it PyXAI names only as
            # many columns as the tree uses, and fails on a condition over a later one
            data = pd.DataFrame(self.rows, columns=tree.enc.encoded_names_)
            data["target"] = tree.est.predict(self.rows)
            self.model, self.explainer = pyxai_explainer(pyxai, tree.est, data, self.rows[0])
        names = [f.name for f in tree.enc.features_]
        # PyXAI numbers the (encoded) columns from 1
        self.feature_of_column = {j + 1: names[f] for j, (f, _) in enumerate(tree.enc.columns_)}
        wrong = sum(str(self.explainer.predict(x)) != str(p)
                    for x, p in zip(self.rows, tree.est.predict(self.rows), strict=True))
        if wrong:
            raise RuntimeError(f"PyXAI predicts another class than scikit-learn on {wrong} "
                               "row(s)")

    def features(self, reason) -> frozenset:
        return frozenset(self.feature_of_column[j] for j in self.model.get_id_features(reason))

    def query(self, i: int, what: str) -> tuple[float, list[frozenset]]:
        """CPU seconds and the reasons (as feature sets) of one query on test row ``i``."""
        ex = self.explainer
        with scratch_directory():
            t0 = cpu_ns_with_children()
            ex.set_instance(self.rows[i])
            if what == "axp":
                reasons = [ex.sufficient_reason()]
            elif what == "min":
                reasons = [ex.minimal_sufficient_reason()]
            else:
                reasons = list(ex.contrastive_reason(n=self.explaining.ALL))
            t = (cpu_ns_with_children() - t0) / 1e9
        return t, [self.features(r) for r in reasons]


def minimal(sets) -> set[frozenset]:
    sets = set(sets)
    return {s for s in sets if not any(t < s for t in sets)}


# ---------------------------------------------------------------------------- 1. per call
def per_call_section(tree: Tree, pyxai, n_rows: int, budget: float
                     ) -> tuple[list[Line], int]:
    """One AXp (reused/fresh Explainer, pandas row/dict), all CXps and a smallest AXp, each
    against PyXAI, interleaved per row (see the module docstring), on up to ``n_rows`` rows:
    fewer (at least :data:`MIN_ROWS`) when they take more than ``budget`` CPU seconds. The
    lines and the number of rows timed."""
    model = tree.model
    rows = [tree.test.iloc[i] for i in range(len(tree.test))]
    dicts = [r.to_dict() for r in rows]
    # one reused Explainer per call kind: each sees every row once, so none answers from the
    # oracle another call left in its cache
    reused = {k: xdt.Explainer(model) for k in ("row", "dict", "cxps", "min", "verify")}
    calls: dict[str, Callable[[int], object]] = {
        "AXp, reused Explainer, pandas row": lambda i: reused["row"].axp(rows[i]),
        "AXp, reused Explainer, dict": lambda i: reused["dict"].axp(dicts[i]),
        "AXp, fresh Explainer, pandas row": lambda i: xdt.Explainer(model).axp(rows[i]),
        "AXp, fresh Explainer, dict": lambda i: xdt.Explainer(model).axp(dicts[i]),
        "AXp, verify=True, reused Explainer, pandas row":
            lambda i: reused["verify"].axp(rows[i], verify=True),
        "all CXps, reused Explainer, pandas row": lambda i: reused["cxps"].all_cxps(rows[i]),
        "smallest AXp, reused Explainer, pandas row":
            lambda i: reused["min"].smallest_axp(rows[i]),
    }
    peer_of = {"AXp": "axp", "all CXps": "cxps", "smallest AXp": "min"}
    check = xdt.Explainer(model, certificates=False)
    px, px_error = None, None
    if pyxai is not None:
        try:
            px = Pyxai(tree, pyxai)
            for what in peer_of.values():  # warm-up, untimed
                px.query(0, what)
        except Exception as e:
            px_error = f"{type(e).__name__}: {e}"[:200]
            px = None
    for fn in calls.values():  # warm-up on row 0, untimed; rows 1.. are timed
        fn(0)
    times: dict[str, list[float]] = {what: [] for what in calls}
    peer: dict[str, list[float]] = {w: [] for w in peer_of.values()}
    t0 = cpu_ns_with_children()
    for i in range(1, min(n_rows + 1, len(rows))):
        if i > MIN_ROWS and (cpu_ns_with_children() - t0) / 1e9 > budget:
            break
        got = {}
        for kind, peer_what in peer_of.items():
            kinds = [what for what in calls if what.split(",")[0] == kind]
            # the variants take turns to come first after PyXAI's call (colder caches)
            for what in kinds[i % len(kinds):] + kinds[:i % len(kinds)]:
                t, got[what] = timed(lambda fn=calls[what], i=i: fn(i))
                times[what].append(t)
            if px is not None:
                peer[peer_what].append(check_pyxai(px, check, rows[i], i, peer_what, got))
        axps = {got[w].features for w in calls if w.startswith("AXp")}
        agree(len(axps) == 1, "AXp: reused/fresh Explainer, pandas row/dict", i, *axps)
    lines = []
    verified = "AXp, verify=True, reused Explainer, pandas row"
    for what in calls:
        if what == verified:
            continue
        kind = what.split(",")[0]
        p = peer[peer_of[kind]]
        target = None
        if "reused Explainer, pandas row" in what:
            target = 500.0 if kind == "AXp" and tree.model.n_nodes >= BIG_TREE else 50.0
        lines.append(Line(f"{what} / PyXAI {PEER_NAME[kind]}", tree.label, model.n_nodes,
                          statistics.median(times[what]),
                          statistics.median(p) if p else None,
                          median_ratio(p, times[what]) if p else None, target, faster=True))
    plain = times["AXp, reused Explainer, pandas row"]
    lines.append(Line("AXp verify=True (certificate made and checked with model.predict) / "
                      "AXp, reused Explainer, pandas row", tree.label, model.n_nodes,
                      statistics.median(times[verified]), statistics.median(plain),
                      median_ratio(times[verified], plain), 2.0))
    if px_error:
        print(f"PyXAI failed on {tree.label}: {px_error}", flush=True)
    return lines, len(times["AXp, fresh Explainer, dict"])


PEER_NAME = {"AXp": "sufficient_reason", "all CXps": "contrastive_reason(n=ALL)",
             "smallest AXp": "minimal_sufficient_reason"}


def check_pyxai(px: Pyxai, check: xdt.Explainer, row, i: int, what: str, got: dict) -> float:
    """Time PyXAI's query on row ``i`` and check its answer against xdt's (module docstring)."""
    t, reasons = px.query(i, what)
    if what == "cxps":
        ours = {frozenset(e.features) for e in got["all CXps, reused Explainer, pandas row"]}
        agree(minimal(reasons) == ours, "CXps: PyXAI's minimal contrastive reasons", i,
              sorted(map(sorted, minimal(reasons))), sorted(map(sorted, ours)))
    else:
        s = reasons[0]
        agree(check.is_weak_axp(row, s), f"PyXAI's {what} reason is a weak AXp", i, sorted(s))
        if what == "min":
            n = len(got["smallest AXp, reused Explainer, pandas row"].features)
            agree(len(s) >= n, "PyXAI's minimal reason is no smaller than xdt's smallest AXp",
                  i, sorted(s), n)
    return t


# ---------------------------------------------------------------------------- 2. batch
def batch_vs_predict(tree: Tree, budget: float, repeats: int, check_budget: float
                     ) -> tuple[Line, float, str | None]:
    """Batch AXp (dedupe=False) of the dataset's rows over ``predict`` on the same rows;
    the line, the ratio and a note when not every row could be checked (:func:`check_batch`).
    Rows are cut (and the line says so) when the batch would take more than ``budget`` CPU
    seconds."""
    ex = xdt.Explainer(tree.model)
    X, onehot = tree.frame, tree.onehot
    # the time of a batch is about fixed + n * per_row: two probes give both
    probes = [min(len(X), 250), min(len(X), 500)]
    ex.explain_batch(X.iloc[:probes[0]], what="axp", dedupe=False)  # first-call costs
    t = [timed(lambda n=n: ex.explain_batch(X.iloc[:n], what="axp", dedupe=False))[0]
         for n in probes]
    per_row = max((t[1] - t[0]) / max(probes[1] - probes[0], 1), t[1] / probes[1] / 10)
    n = len(X)
    if t[1] + (n - probes[1]) * per_row > budget:
        n = max(probes[1], int(probes[1] + (budget - t[1]) / per_row))
        X, onehot = X.iloc[:n], onehot[:n]
    t_b, t_p, out = [], [], None
    for _ in range(repeats):
        t0 = cpu_ns()
        out = ex.explain_batch(X, what="axp", dedupe=False)
        t_b.append((cpu_ns() - t0) / 1e9)
        t_p.append(loop_time(lambda: tree.est.predict(onehot), 0.05))
        if sum(t_b) >= budget / 2:
            break
    note = check_batch(tree, X, out, check_budget)
    ratio = median_ratio(t_b, t_p)
    if tree.n_features > 63:
        target = 10.0
    else:
        target = 5.0 if tree.depth == 6 else 50.0
    rows = f"{n:,} rows" + ("" if n == len(tree.frame) else f" of {len(tree.frame):,}")
    label = tree.label if tree.name != "adult-onehot" else "adult one-hot depth 6"
    return Line(f"explain_batch AXp, dedupe=False, {rows} ({tree.n_features} features) / "
                "sklearn predict", label, tree.model.n_nodes, statistics.median(t_b),
                statistics.median(t_p), ratio, target), ratio, note


def check_batch(tree: Tree, X: pd.DataFrame, out: pd.DataFrame, budget: float) -> str | None:
    """Check that the batch's AXps equal ``Explainer.axp``'s and its predictions
    scikit-learn's, on every row: each distinct cell vector once, in random order, until
    ``budget`` CPU seconds have passed. ``None`` when every row was checked, else a note
    of how many were."""
    pred = tree.est.predict(tree.onehot[:len(X)])
    bad = np.flatnonzero(out["prediction"].to_numpy() != pred)
    agree(len(bad) == 0, "batch prediction = sklearn predict", bad[:1],
          out["prediction"].iloc[bad[:1]].tolist(), pred[bad[:1]].tolist())
    _, first, inverse = np.unique(tree.model.encode(X), axis=0, return_index=True,
                                  return_inverse=True)
    inverse = inverse.reshape(-1)
    axps = out["axp"].to_numpy()
    ex = xdt.Explainer(tree.model, certificates=False)
    t0, checked = cpu_ns(), np.zeros(len(first), dtype=bool)
    for g in np.random.default_rng(0).permutation(len(first)):
        if (cpu_ns() - t0) / 1e9 > budget:
            break
        ref = ex.axp(X.iloc[first[g]]).features
        rows = np.flatnonzero(inverse == g)
        wrong = [i for i in rows if axps[i] != ref]
        agree(not wrong, "batch AXp = Explainer.axp", wrong[:1], axps[wrong[0]] if wrong
              else None, ref)
        checked[g] = True
    if checked.all():
        return None
    return (f"{tree.label}: the batch's AXps checked against Explainer.axp on "
            f"{int(np.isin(inverse, np.flatnonzero(checked)).sum()):,} of {len(X):,} rows "
            f"({int(checked.sum()):,} of {len(first):,} distinct cell vectors, random; "
            f"--check-budget {budget:g} s)")


def distinct_rows(frame: pd.DataFrame, n: int, seed: int = 0) -> pd.DataFrame:
    """``n`` distinct rows, each column drawn independently from ``frame``'s values."""
    rng = np.random.default_rng(seed)
    out = pd.DataFrame(columns=frame.columns)
    while len(out) < n:
        more = pd.DataFrame({c: frame[c].to_numpy()[rng.integers(0, len(frame), n)]
                             for c in frame.columns})
        out = pd.concat([out, more], ignore_index=True).drop_duplicates(ignore_index=True)
    # the empty start makes every column object: give them back the frame's dtypes, as a
    # table read from a file has
    return out.iloc[:n].reset_index(drop=True).astype(frame.dtypes.to_dict())


def million_section(tree: Tree, n: int, n_check: int) -> tuple[list[Line], list[str]]:
    """All CXps (and one AXp) of ``n`` distinct rows, against predict; memory per row."""
    X = distinct_rows(tree.frame, n)
    onehot = tree.enc.transform(X)
    ex = xdt.Explainer(tree.model)
    ex.explain_batch(X.iloc[:10], dedupe=False)  # warm-up, untimed: the first-call costs
    peak = Peak()
    lines, notes, t = [], [], {}
    for what in ("cxps", "axp"):
        mem, out, t[what] = peak.measure(
            lambda what=what: ex.explain_batch(X, what=what, dedupe=False))
        notes.append(f"memory, explain_batch {what}, {n:,} rows: {mem / 2**20:.0f} MiB peak "
                     f"{peak.kind} above the start, {mem / n:.0f} B per row (the result "
                     "included; the input rows are not)")
        if what == "cxps":
            rng = np.random.default_rng(1)
            one = xdt.Explainer(tree.model, certificates=False)
            for i in rng.choice(n, min(n, n_check), replace=False):
                ours = [e.features for e in one.all_cxps(X.iloc[i])]
                agree(ours == out["cxps"].iloc[i], "batch CXps = Explainer.all_cxps", i,
                      out["cxps"].iloc[i], ours)
        del out
    t_pred = statistics.median(timed(lambda: tree.est.predict(onehot))[0] for _ in range(5))
    nodes = tree.model.n_nodes
    what = f"all CXps, explain_batch, dedupe=False, {n:,} distinct rows"
    lines.append(Line(f"{what}: CPU seconds", tree.label, nodes, t["cxps"], None, t["cxps"],
                      60.0 if n >= 10**6 else None))
    lines.append(Line(f"{what} / sklearn predict", tree.label, nodes, t["cxps"], t_pred,
                      t["cxps"] / t_pred, 10.0))
    lines.append(Line(f"one AXp, explain_batch, dedupe=False, {n:,} distinct rows / sklearn "
                      "predict", tree.label, nodes, t["axp"], t_pred, t["axp"] / t_pred, None))
    return lines, notes


# ---------------------------------------------------------------------------- 4. SAT engine
def in_turn(j: int, *calls: Callable[[], object]) -> list[tuple[float, object]]:
    """``(CPU seconds, result)`` of each call on one row, run in a rotated order (row ``j``
    starts with call ``j mod n``): a solver answers a query faster right after a similar
    one, so no call may always come second."""
    n = len(calls)
    out: list[tuple[float, object] | None] = [None] * n
    for k in range(n):
        i = (j + k) % n
        out[i] = timed(calls[i])
    return out  # type: ignore[return-value]


def sat_tree_section(frame: pd.DataFrame, y: np.ndarray, leaves: int, n_rows: int
                     ) -> list[Line]:
    """xdt's SAT engine (fresh and reused Explainer) against the PySAT baseline, one AXp per
    row, on a tree of adult's numeric columns with ``max_leaf_nodes=leaves``."""
    num = frame.select_dtypes("number")
    X = num.to_numpy(np.float64)
    est = DecisionTreeClassifier(max_leaf_nodes=leaves, random_state=0).fit(X, y)
    model = xdt.from_sklearn(est, feature_names=list(num.columns))
    base = TreeBaseline(est)
    _, first = np.unique(model.encode(num), axis=0, return_index=True)
    idx = np.sort(first)[:n_rows + 1]
    rows = [num.iloc[i] for i in idx]
    reused = xdt.Explainer(model, engine="sat")
    path = xdt.Explainer(model, certificates=False)

    def fresh(row):
        with xdt.Explainer(model, engine="sat") as ex:
            return ex.axp(row)

    fresh(rows[0]), reused.axp(rows[0]), base.axp(X[idx[0]])  # warm-up, untimed
    t_f, t_r, t_b = [], [], []
    for j in range(1, len(idx)):
        row, x = rows[j], X[idx[j]]
        (t, a_f), (u, a_r), (v, a_b) = in_turn(
            j, lambda row=row: fresh(row), lambda row=row: reused.axp(row),
            lambda x=x: base.axp(x))
        t_f.append(t)
        t_r.append(u)
        t_b.append(v)
        names = tuple(num.columns[f] for f in a_b)
        ref = path.axp(row).features
        agree(a_f.features == a_r.features == names == ref,
              "AXp: SAT fresh / SAT reused / baseline / path engine", int(idx[j]),
              a_f.features, a_r.features, names, ref)
    reused.close()
    base.close()
    label, nodes = f"adult numeric, max_leaf_nodes={leaves}", model.n_nodes
    return [
        Line("SAT engine AXp, fresh Explainer per row / PySAT baseline", label, nodes,
             statistics.median(t_f), statistics.median(t_b), median_ratio(t_f, t_b), 2.0),
        Line("SAT engine AXp, reused Explainer / PySAT baseline", label, nodes,
             statistics.median(t_r), statistics.median(t_b), median_ratio(t_r, t_b), 2.0),
        Line("SAT engine AXp, fresh Explainer / reused Explainer", label, nodes,
             statistics.median(t_f), statistics.median(t_r), median_ratio(t_f, t_r), 1.5),
    ]


def random_dnf(n_terms: int, n_features: int, seed: int = 0
               ) -> tuple[DNF, list[list[tuple[int, int]]]]:
    """A DNF of ``n_terms`` random terms over ``n_features`` binary features: each term fixes
    ``k`` distinct features to random values, ``k = round(log2(n_terms / ln 2))`` (8 for 200
    terms, 11 for 2,000), so that about half of the points are predicted 1."""
    rng = np.random.default_rng(seed)
    k = round(math.log2(n_terms / math.log(2)))
    terms = [[(int(f), int(rng.integers(2))) for f in rng.choice(n_features, k, replace=False)]
             for _ in range(n_terms)]
    names = [f"x{i}" for i in range(n_features)]
    dnf = DNF([Feature(n, "binary") for n in names], [0, 1],
              [[Condition(names[f], (v,)) for f, v in t] for t in terms])
    return dnf, terms


def sat_dnf_section(n_terms: int, n_rows: int) -> list[Line]:
    """xdt's SAT engine on a random DNF (fresh and reused Explainer, ``order="features"``)
    against the PySAT baseline (same order), interleaved per row."""
    dnf, terms = random_dnf(n_terms, DNF_FEATURES)
    base = DnfBaseline(DNF_FEATURES, terms)
    names = list(dnf.features.names)
    points = np.random.default_rng(1).integers(0, 2, (n_rows + 1, DNF_FEATURES))
    order = list(range(DNF_FEATURES))
    reused = xdt.Explainer(dnf)

    def fresh(x):
        with xdt.Explainer(dnf) as ex:
            return ex.axp(x, order="features")

    def as_dict(p):
        return {n: int(v) for n, v in zip(names, p, strict=True)}

    x0 = as_dict(points[0])
    fresh(x0), reused.axp(x0, order="features"), base.axp(points[0], order)  # warm-up
    t_f, t_r, t_b, positive = [], [], [], 0
    for j in range(1, len(points)):
        x = as_dict(points[j])
        (t, a_f), (u, a_r), (v, a_b) = in_turn(
            j, lambda x=x: fresh(x), lambda x=x: reused.axp(x, order="features"),
            lambda p=points[j]: base.axp(p, order))
        t_f.append(t)
        t_r.append(u)
        t_b.append(v)
        positive += base.predict(points[j])
        b = tuple(names[f] for f in a_b)
        agree(a_f.features == a_r.features == b and a_f.prediction == base.predict(points[j]),
              "DNF AXp: SAT fresh / SAT reused / baseline", j, a_f.features, a_r.features, b)
    reused.close()
    base.close()
    label = f"DNF {n_terms:,} terms, {DNF_FEATURES} binary ({positive}/{len(t_f)} rows 1)"
    nodes = f"{n_terms} terms"
    return [
        Line("SAT engine AXp, fresh Explainer per row / PySAT baseline", label, nodes,
             statistics.median(t_f), statistics.median(t_b), median_ratio(t_f, t_b), 3.0),
        Line("SAT engine AXp, reused Explainer / PySAT baseline", label, nodes,
             statistics.median(t_r), statistics.median(t_b), median_ratio(t_r, t_b), 3.0),
    ]


# ---------------------------------------------------------------------------- 5. first calls
FIRST_CALLS = """
import json, sys, time
import numpy as np, pandas as pd
from sklearn.tree import DecisionTreeClassifier
frame = pd.read_csv(sys.argv[1], keep_default_na=False)
y = np.unique(frame.pop(frame.columns[-1]).astype(str), return_inverse=True)[1]
out = {}
def timed(key, fn):
    t0 = time.process_time_ns()
    v = fn()
    out[key] = (time.process_time_ns() - t0) / 1e9
    return v
timed("import", lambda: __import__("xdt.interop._tabular") and __import__("xdt").Explainer)
import xdt
from xdt.interop._tabular import TabularEncoder
enc = TabularEncoder().fit(frame)
est = DecisionTreeClassifier(max_depth=6, random_state=0).fit(enc.transform(frame), y)
model = timed("from_sklearn", lambda: xdt.from_sklearn(est, encoder=enc))
rows = [frame.iloc[i] for i in range(2)]
for warm, r, X in (("", rows[0], frame.iloc[:100]), ("warm ", rows[1], frame.iloc[100:200])):
    timed(warm + "axp", lambda: xdt.Explainer(model).axp(r))
    timed(warm + "all_cxps", lambda: xdt.Explainer(model).all_cxps(r))
    timed(warm + "smallest_axp", lambda: xdt.Explainer(model).smallest_axp(r))
    timed(warm + "explain_batch", lambda: xdt.Explainer(model).explain_batch(X))
    timed(warm + "sat axp", lambda: xdt.Explainer(model, engine="sat").axp(r))
out["numba"] = sys.modules["numba"].__version__ if "numba" in sys.modules else ""
print(json.dumps(out))
"""
"""The child process of :func:`compile_cost`: CPU seconds of importing xdt and of the first
calls on the depth-6 compas tree (``explain_batch``: 100 rows), then of the same calls once
warm (another row; the next 100 rows); one JSON object on stdout."""


def compile_cost() -> list[str]:
    """The first-call cost lines: a new process with an empty numba cache, then one with
    the cache it filled; and the same calls warm."""
    keys = ("import", "from_sklearn", "axp", "all_cxps", "smallest_axp", "explain_batch",
            "sat axp")
    lines = []
    with tempfile.TemporaryDirectory(prefix="xdt-numba-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        runs = []
        for _ in range(2):
            done = subprocess.run([sys.executable, "-c", FIRST_CALLS,
                                   str(DATASETS / FILES["compas"])], env=env,
                                  capture_output=True, text=True, check=False)
            if done.returncode != 0:
                return [f"first-call cost: the child process failed: {done.stderr[-500:]}"]
            runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    numba = runs[0]["numba"]
    lines.append("numba " + (f"{numba} loaded by xdt" if numba else
                             "not loaded by this xdt (nothing is compiled)"))
    for title, r in (("first calls, new process, empty numba cache", runs[0]),
                     ("first calls, new process, warm numba cache", runs[1])):
        total = sum(r[k] for k in keys)
        lines.append(f"{title}: " + ", ".join(f"{k} {seconds(r[k])}" for k in keys)
                     + f"; total {seconds(total)} CPU")
    lines.append("the same calls once warm (second call, same process, another row): "
                 + ", ".join(f"{k} {seconds(runs[1]['warm ' + k])}" for k in keys[2:]))
    return lines


# ---------------------------------------------------------------------------- main
START = time.perf_counter()


def progress(message: str) -> None:
    """A progress line on stderr, with the seconds (wall clock) since the start."""
    print(f"  {time.perf_counter() - START:5.0f} s  {message}", file=sys.stderr, flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=100,
                    help="distinct test rows timed per tree against PyXAI (100)")
    ap.add_argument("--per-call-budget", type=float, default=60.0,
                    help=f"CPU seconds for the rows of one tree against PyXAI; beyond it, no "
                         f"more rows (but at least {MIN_ROWS}) (60)")
    ap.add_argument("--sat-rows", type=int, default=40,
                    help="rows timed per tree and DNF with the SAT engine (40)")
    ap.add_argument("--million", type=int, default=10**6,
                    help="distinct rows of the all-CXps batch (10^6)")
    ap.add_argument("--batch-budget", type=float, default=10.0,
                    help="CPU seconds one batch-vs-predict measurement may take; the rows are "
                         "cut to fit (10)")
    ap.add_argument("--check-budget", type=float, default=20.0,
                    help="CPU seconds the check of one batch against Explainer.axp may take; "
                         "beyond it, a random part of the rows is checked and a note says "
                         "how many (20)")
    ap.add_argument("--no-pyxai", action="store_true", help="measure without PyXAI")
    ap.add_argument("--quick", action="store_true",
                    help="smoke run of a few seconds: compas depth 6, kr-vs-kp-bin, a small "
                         "SAT tree and DNF, 10^4 rows, no first-call processes")
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = ap.parse_args()
    t_start, cpu_start = time.perf_counter(), time.process_time()
    pyxai_trees, batch_trees = PYXAI_TREES, BATCH_TREES
    leaves, terms, repeats = SAT_LEAVES, DNF_TERMS, 3
    if args.quick:
        args.rows, args.sat_rows, args.million = 5, 5, 10**4
        args.batch_budget, args.check_budget = 1.0, 1.0
        pyxai_trees, batch_trees = (("compas", 6),), (("compas", 6), ("kr-vs-kp-bin", 6))
        leaves, terms, repeats = (50,), (200,), 1
    pyxai, why = (None, "--no-pyxai") if args.no_pyxai else load_pyxai()
    if pyxai is None:
        print(f"PyXAI not used ({why}): its columns are empty; every other one is measured.",
              flush=True)
    cache: dict = {}
    lines: list[Line] = []
    notes: list[str] = []
    trees: dict[tuple, Tree] = {}
    for name, depth in dict.fromkeys(pyxai_trees + batch_trees):
        trees[name, depth] = fit(name, depth, args.rows + 1, cache)

    timed_rows = []
    for key in pyxai_trees:
        more, n = per_call_section(trees[key], pyxai, args.rows, args.per_call_budget)
        lines += more
        timed_rows.append(f"{trees[key].label} {n}")
        progress(f"[1] {trees[key].label}: done")
    notes.append("rows timed per call: " + ", ".join(timed_rows))
    ratios = {}
    for key in batch_trees:
        line, ratios[key], note = batch_vs_predict(trees[key], args.batch_budget, repeats,
                                                   args.check_budget)
        lines.append(line)
        notes += [note] if note else []
        progress(f"[2] batch {trees[key].label}: done")
    if ("adult-onehot", 6) in ratios and ("adult", 6) in ratios:
        a, b = trees["adult", 6], trees["adult-onehot", 6]
        lines.append(Line(f"batch/predict with {b.n_features} features over batch/predict "
                          f"with {a.n_features} (adult depth 6)", "adult one-hot depth 6",
                          b.model.n_nodes, None, None,
                          ratios["adult-onehot", 6] / ratios["adult", 6], 2.0))
    million, more = million_section(fit("adult-xreason", 6, 1, cache), args.million,
                                   100 if args.quick else 1000)
    lines += million
    notes += more
    progress("[3] distinct rows: done")
    adult, y, _ = read("adult")
    for n in leaves:
        lines += sat_tree_section(adult, y, n, args.sat_rows)
        progress(f"[4] SAT tree, max_leaf_nodes={n}: done")
    for n in terms:
        lines += sat_dnf_section(n, args.sat_rows)
        progress(f"[4] SAT DNF, {n} terms: done")
    notes += (["first-call cost: not measured with --quick"] if args.quick
              else compile_cost())

    print_report(lines, "CPU time per call (per batch for explain_batch and predict); ratio: "
                 "PyXAI / xdt for PyXAI rows (target: at least), xdt / peer for the others "
                 "(target: at most); medians of per-row ratios", notes, args.markdown,
                 t_start, cpu_start)


def print_report(lines: Sequence[Line], heading: str, notes: Sequence[str], as_markdown: bool,
                 t_start: float, cpu_start: float) -> None:
    """Print the table of ``lines`` under ``heading`` (markdown or plain text), the notes,
    and the run's wall and CPU seconds since ``t_start`` / ``cpu_start``."""
    table = pd.DataFrame([line.cells() for line in lines])
    print(f"\n{heading}\n")
    if as_markdown:
        print(markdown(table))
    else:
        with pd.option_context("display.width", 250, "display.max_colwidth", 90):
            print(table.to_string(index=False))
    print()
    for note in notes:
        print(note)
    print(f"\nxdt {xdt.__version__} from {Path(xdt.__file__).parent}; total "
          f"{time.perf_counter() - t_start:.0f} s wall, {time.process_time() - cpu_start:.0f} s "
          "CPU")


if __name__ == "__main__":
    main()
