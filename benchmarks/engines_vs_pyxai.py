"""xdt's path and SAT engines against PyXAI on scikit-learn decision trees of real datasets.

For each dataset and depth limit (6 and unbounded) one scikit-learn DecisionTreeClassifier is
fitted on 70% of the rows (categorical columns one-hot encoded by xdt's TabularEncoder; the
classes coded 0..k-1, see fit()). The SAME fitted tree is given to both tools: to xdt
through ``xdt.from_sklearn(est, encoder=...)`` (categorical features back as categorical
splits), to PyXAI through ``Learning.ModelIO.import_models(est)`` (PyXAI sees the numeric
one-hot matrix). Then, for each of the first --rows test rows, four queries are timed, each
on every tool:

  query    xdt (engine "path" and "sat")   PyXAI 2.x
  AXp      Explainer.axp                   sufficient_reason()
  minAXp   Explainer.smallest_axp          minimal_sufficient_reason()
  CXps     Explainer.all_cxps              contrastive_reason(n=Explaining.ALL)
  AXps     Explainer.all_axps              sufficient_reason(n=Explaining.ALL)

What a time includes. xdt: a fresh ``Explainer(model, engine=...)`` per row and per query,
used in a ``with`` block, so nothing is cached between queries: the time covers reading the
instance, building its oracle (for "sat": encoding the tree to CNF, starting the PySAT solver,
and releasing it) and the query. PyXAI: one explainer per tree (built once, like the imported
model), and per row and query ``set_instance(row)`` plus the query; PyXAI derives its CNF
from the tree inside every query, so it caches nothing between queries either. PyXAI's
history of reasons (kept for its GUI) is switched off, which only makes PyXAI faster; its
minimal_sufficient_reason runs the Open-WBO executable it ships, so its time includes
starting that process. --time-limit bounds each enumeration of all AXps/CXps: xdt checks it
between explanations; PyXAI counts only its SAT solver's time against it.

Agreement. PyXAI explains over Boolean conditions ``x > t`` (one per threshold; a one-hot
column is a condition of its own), xdt over features. Each PyXAI reason is mapped to the set
of original features its conditions test. PyXAI's DT reasons are prime implicants over the
conditions taken as independent variables; as feature sets they include the AXps, and may
include supersets of AXps too (a reason may keep part of one feature's conditions and part
of another's). On trees without dead paths (scikit-learn never makes one) the subset-minimal
feature sets of PyXAI's sufficient (contrastive) reasons are exactly the AXps (CXps), so the
script counts the rows where those agree with xdt ("=min"), and where the mapped sets are
equal without any minimisation ("=raw"). Rows where an enumeration hit --time-limit are left
out of that comparison and counted. Also counted: rows where PyXAI's one sufficient reason is,
as a feature set, an AXp (it may be a superset of one), and rows where PyXAI's minimal
sufficient reason has as many features as xdt's smallest AXp (PyXAI minimises the number of
conditions, not of features, so it may have more).

Run from the project root (needs ../shared/datasets); PyXAI is optional: without it, or when it
fails on a tree, the reason is printed and the xdt columns are still measured. See
benchmarks/README.md for the virtual environment to install PyXAI in.

    python benchmarks/engines_vs_pyxai.py [--rows 100] [--datasets compas,german,...]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

import xdt
from xdt.interop.tabular import TabularEncoder

DATASETS = Path(__file__).resolve().parent.parent.parent / "shared" / "datasets"
CHOICES = {
    "compas": "compas.csv",
    "german": "german.csv",
    "banknote": "banknote.csv",
    "adult-xreason": "adult-xreason.csv.gz",
    "iris": "iris.csv",
}
DEFAULT_DATASETS = "compas,german,banknote,adult-xreason"
QUERIES = ("AXp", "minAXp", "CXps", "AXps")
ENGINES = ("path", "sat")


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


# ---------------------------------------------------------------------------- one tree
@dataclass
class Tree:
    name: str
    max_depth: int | None
    est: DecisionTreeClassifier
    enc: TabularEncoder
    model: xdt.DecisionTree
    rows: list  # pandas Series, for xdt
    numeric: np.ndarray  # the same rows as PyXAI reads them (one-hot, float32-rounded)


def fit(name: str, max_depth: int | None, n_rows: int) -> Tree:
    frame = pd.read_csv(DATASETS / CHOICES[name], keep_default_na=False)
    target = frame.columns[-1]
    # class codes 0..k-1: PyXAI 2.0.1's sufficient_reason compares the class *label* of the
    # instance with the class *index* its leaves store, so with string labels (e.g. "good")
    # no leaf matches and it returns the instance's whole path; with codes both agree
    _, y = np.unique(frame.pop(target).astype(str).to_numpy(), return_inverse=True)
    y = pd.Series(y, index=frame.index)
    enc = TabularEncoder().fit(frame)
    tr, te = train_test_split(np.arange(len(frame)), test_size=0.3, random_state=0)
    est = DecisionTreeClassifier(max_depth=max_depth, random_state=0)
    est.fit(enc.transform(frame.iloc[tr]), y.iloc[tr])
    model = xdt.from_sklearn(est, encoder=enc, target=target)
    test = frame.iloc[te[:n_rows]].reset_index(drop=True)
    assert (model.predict(test) == est.predict(enc.transform(test))).all()
    # scikit-learn tests float32(x) <= t; PyXAI tests x > t on the values it is given, so it
    # gets the float32-rounded values and follows the same branch as scikit-learn
    numeric = enc.transform(test).astype(np.float32).astype(np.float64)
    return Tree(name, max_depth, est, enc, model, [test.iloc[i] for i in range(len(test))],
                numeric)


def xdt_query(model, engine: str, row, query: str, time_limit: float):
    """(seconds, list of feature-name sets, complete) for one query on a fresh Explainer."""
    t0 = time.perf_counter()
    with xdt.Explainer(model, engine=engine) as ex:
        if query == "AXp":
            out, complete = [ex.axp(row)], True
        elif query == "minAXp":
            out, complete = [ex.smallest_axp(row)], True
        elif query == "CXps":
            out = ex.all_cxps(row, time_limit=time_limit)
            complete = out.complete
        else:
            out = ex.all_axps(row, time_limit=time_limit)
            complete = out.complete
    seconds = time.perf_counter() - t0
    return seconds, [frozenset(e.features) for e in out], complete


class PyxaiSide:
    """PyXAI's explainer of one tree, and the map from its conditions to xdt features."""

    def __init__(self, tree: Tree, pyxai):
        self.learning, self.explaining = pyxai
        with contextlib.redirect_stdout(io.StringIO()):
            # the data (test rows, with the target last) give PyXAI the column names; without
            # them it names only as many columns as the tree uses, and fails on the others
            data = pd.DataFrame(tree.numeric, columns=tree.enc.encoded_names_)
            data["target"] = tree.est.predict(tree.numeric)
            _, models = self.learning.ModelIO.import_models(tree.est, data,
                                                            instances_type="tabular")
            self.model = models[0] if isinstance(models, list | tuple) else models
            self.explainer = self.explaining.initialize(self.model, instance=tree.numeric[0])
        # PyXAI keeps a history of every reason it returns, each converted to conditions, for
        # its GUI; that is not part of explaining, grows without bound over an enumeration of
        # thousands of reasons, and costs 15-35% of the time of one: switch it off
        visualisation = getattr(self.explainer, "_visualisation", None)
        if visualisation is not None:
            visualisation._do_history = False
        names = [f.name for f in tree.enc.features_]
        # PyXAI numbers the (encoded) columns from 1
        self.feature_of_column = {j + 1: names[f] for j, (f, _) in enumerate(tree.enc.columns_)}
        self.mismatch = sum(str(self.explainer.predict(x)) != str(p)
                            for x, p in zip(tree.numeric, tree.est.predict(tree.numeric),
                                            strict=True))

    def features(self, reason) -> frozenset:
        return frozenset(self.feature_of_column[j] for j in self.model.get_id_features(reason))

    def query(self, x: np.ndarray, query: str, time_limit: float):
        """(seconds, list of feature-name sets, complete) for one query."""
        ex, ALL = self.explainer, self.explaining.ALL
        t0 = time.perf_counter()
        ex.set_instance(x)
        complete = True
        if query == "AXp":
            reasons = [ex.sufficient_reason()]
        elif query == "minAXp":
            reasons = [ex.minimal_sufficient_reason()]
        elif query == "CXps":
            reasons = list(ex.contrastive_reason(n=ALL))
        else:
            reasons = list(ex.sufficient_reason(n=ALL, time_limit=time_limit))
            complete = ex.elapsed_time != self.explaining.TIMEOUT
        seconds = time.perf_counter() - t0
        return seconds, [self.features(r) for r in reasons], complete


def minimal(sets) -> set[frozenset]:
    sets = set(sets)
    return {s for s in sets if not any(t < s for t in sets)}


@dataclass
class Result:
    times: dict = field(default_factory=lambda: {})  # (tool, query) -> list of seconds
    agree: dict = field(default_factory=lambda: {})  # check -> rows where it holds
    checked: dict = field(default_factory=lambda: {})  # check -> rows where it was made
    incomplete: dict = field(default_factory=lambda: {})  # tool -> rows with a timeout
    sizes: dict = field(default_factory=lambda: {})  # what -> list of counts, one per row
    px_error: str | None = None

    def add(self, key, seconds):
        self.times.setdefault(key, []).append(seconds)

    def count(self, check, ok=True):
        self.agree[check] = self.agree.get(check, 0) + bool(ok)
        self.checked[check] = self.checked.get(check, 0) + 1

    def ratio(self, check) -> str:
        return f"{self.agree.get(check, 0)}/{self.checked.get(check, 0)}"


def run(tree: Tree, pyxai, time_limit: float) -> Result:
    res = Result()
    px = None
    if pyxai is not None:
        try:
            px = PyxaiSide(tree, pyxai)
        except Exception as e:
            res.px_error = f"PyXAI cannot import this tree: {type(e).__name__}: {e}"
        else:
            if px.mismatch:
                res.px_error = (f"PyXAI predicts another class than scikit-learn on "
                                f"{px.mismatch} row(s); PyXAI not compared")
    for i, row in enumerate(tree.rows):
        got = {}
        for query in QUERIES:
            for engine in ENGINES:
                s, sets, complete = xdt_query(tree.model, engine, row, query, time_limit)
                res.add((engine, query), s)
                got[engine, query] = (sets, complete)
            if px is not None and res.px_error is None:
                try:
                    with scratch_directory():
                        s, sets, complete = px.query(tree.numeric[i], query, time_limit)
                except Exception as e:
                    res.px_error = f"PyXAI failed on row {i}, {query}: {type(e).__name__}: {e}"
                    continue
                res.add(("pyxai", query), s)
                got["pyxai", query] = (sets, complete)
        compare(res, got)
    return res


def compare(res: Result, got: dict) -> None:
    """Count, for one row, the checks that hold (see the module docstring)."""
    ok = {k: c for k, (_, c) in got.items()}
    for tool in ("path", "sat", "pyxai"):
        if any(not ok.get((tool, q), True) for q in QUERIES):
            res.incomplete[tool] = res.incomplete.get(tool, 0) + 1
    sets = {k: s for k, (s, _) in got.items()}
    res.sizes.setdefault("AXps", []).append(len(sets["path", "AXps"]))
    if ("pyxai", "AXps") in sets:
        res.sizes.setdefault("px reasons", []).append(len(sets["pyxai", "AXps"]))
    for q in ("AXps", "CXps"):
        if ok["path", q] and ok["sat", q]:
            res.count(f"{q} path=sat", set(sets["path", q]) == set(sets["sat", q]))
    res.count("minAXp size path=sat",
              len(sets["path", "minAXp"][0]) == len(sets["sat", "minAXp"][0]))
    if ("pyxai", "AXps") not in got or ("pyxai", "CXps") not in got:
        return
    for q in ("AXps", "CXps"):
        if ok["path", q] and ok["pyxai", q]:
            res.count(f"{q} =min", minimal(sets["pyxai", q]) == set(sets["path", q]))
            res.count(f"{q} =raw", set(sets["pyxai", q]) == set(sets["path", q]))
    if ok["path", "AXps"]:
        res.count("px AXp is AXp", sets["pyxai", "AXp"][0] in set(sets["path", "AXps"]))
    if ("pyxai", "minAXp") in got:
        res.count("minAXp size =",
                  len(sets["pyxai", "minAXp"][0]) == len(sets["path", "minAXp"][0]))


# ---------------------------------------------------------------------------- report
def ms(seconds: list[float] | None) -> float:
    return float("nan") if not seconds else 1000 * statistics.median(seconds)


def fmt(v: float) -> str:
    if v != v:  # NaN
        return "-"
    return f"{v:.3g}" if v < 100 else f"{v:.0f}"


def tables(trees: list[Tree], results: list[Result]) -> list[tuple[str, pd.DataFrame]]:
    with_px = any(("pyxai", q) in r.times for r in results for q in QUERIES)
    tools = (*ENGINES, "pyxai") if with_px else ENGINES
    times, ratios, agree = [], [], []
    for t, r in zip(trees, results, strict=True):
        head = {"dataset": t.name, "depth≤": t.max_depth or "none", "nodes": t.model.n_nodes,
                "rows": len(t.rows)}
        times.append(head | {f"{q} {tool}": fmt(ms(r.times.get((tool, q))))
                             for q in QUERIES for tool in tools})
        ratios.append(head | {f"{q} px/{e}": fmt(ms(r.times.get(("pyxai", q)))
                                                 / ms(r.times.get((e, q))))
                              for q in QUERIES for e in ENGINES})
        row = head | {"path=sat AXps": r.ratio("AXps path=sat"),
                      "path=sat CXps": r.ratio("CXps path=sat"),
                      "path=sat min": r.ratio("minAXp size path=sat"),
                      "#AXps": fmt(statistics.median(r.sizes.get("AXps", [float("nan")])))}
        if with_px:
            row["#px reasons"] = fmt(statistics.median(r.sizes.get("px reasons", [float("nan")])))
            row |= {"AXps =min": r.ratio("AXps =min"), "AXps =raw": r.ratio("AXps =raw"),
                    "CXps =min": r.ratio("CXps =min"), "CXps =raw": r.ratio("CXps =raw"),
                    "px AXp is AXp": r.ratio("px AXp is AXp"),
                    "px min size =": r.ratio("minAXp size =")}
        row["timeouts xdt/px"] = "{}/{}".format(
            max(r.incomplete.get("path", 0), r.incomplete.get("sat", 0)),
            r.incomplete.get("pyxai", 0) if with_px else "-")
        agree.append(row)
    out = [("Median time per instance (ms); a fresh xdt Explainer per query",
            pd.DataFrame(times))]
    if with_px:
        out.append(("PyXAI time / xdt time (>1: xdt is faster)", pd.DataFrame(ratios)))
    out.append(("Agreement (rows where it holds / rows compared)", pd.DataFrame(agree)))
    return out


def markdown(frame: pd.DataFrame) -> str:
    cols = [str(c) for c in frame.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(str(v) for v in row) + " |" for row in frame.itertuples(False)]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=100, help="test rows explained per tree")
    ap.add_argument("--datasets", default=DEFAULT_DATASETS,
                    help=f"comma-separated, among {', '.join(CHOICES)}")
    ap.add_argument("--time-limit", type=float, default=10.0,
                    help="seconds allowed to one enumeration of all AXps or CXps (per tool)")
    ap.add_argument("--no-pyxai", action="store_true", help="measure xdt only")
    ap.add_argument("--markdown", action="store_true", help="print Markdown tables")
    args = ap.parse_args()

    pyxai, why = (None, "--no-pyxai") if args.no_pyxai else load_pyxai()
    if pyxai is None:
        print(f"PyXAI not used ({why}); measuring xdt only.\n")
    trees, results = [], []
    for name in args.datasets.split(","):
        for depth in (6, None):
            tree = fit(name, depth, args.rows)
            res = run(tree, pyxai, args.time_limit)
            if res.px_error:
                print(f"{name}, max_depth={depth}: {res.px_error}\n")
            trees.append(tree)
            results.append(res)
    with pd.option_context("display.width", 250, "display.max_columns", 40):
        for title, frame in tables(trees, results):
            print(f"{title}:\n")
            print(markdown(frame) if args.markdown else frame.to_string(index=False))
            print()


if __name__ == "__main__":
    main()
