"""xdt's explanations of decision lists against xdl-tool, the peer of the field, in one run.

xdl-tool (Ignatiev & Marques-Silva, "SAT-Based Rigorous Explanations for Decision Lists",
SAT 2021; github.com/alexeyignatiev/xdl-tool) computes AXps and CXps of decision lists with
PySAT: one CNF per class ("the first rule that fires is of another class"), the instance as
assumptions, an AXp by linear deletion from the solver's core (MUS), all AXps by
hitting-set duality (Hitman), all CXps by CLD-style MCS enumeration. It reads lists in the
text format of the ``minds`` tool (``c* cover: 'f: v', not 'g: w' => class: c``, the default
``c* cover: true => class: c``) and takes every feature's domain from a CSV file.

This script learns decision lists whose conditions are ``feature == value`` or ``feature !=
value`` (so that both tools read the same model), writes each in xdl-tool's format (with a
CSV holding exactly xdt's domain of every feature), loads it in xdl-tool in-process (its
``Data``, ``DecisionList``, ``DLEncoding`` and ``DLExplainer`` classes, as its ``xdl.py``
does), and explains the same test rows with both:

* learners: imodels' ``GreedyRuleListClassifier`` (``greedy``, max depth 8) and
  ``BayesianRuleListClassifier`` (``brl``, rules of up to 2 items) on the one-hot columns of
  ``TabularEncoder`` (every column categorical), imported with ``xdt.from_imodels(est,
  encoder=...)``; wittgenstein's ``RIPPER`` (``ripper``) for the rarer class, its rule set
  read as a list (``xdt.metrics._rule_redundancy.as_decision_list``). A condition ``x in {v}``
  is ``x == v``, ``x in D - {v}`` is ``x != v``; a list with any other condition is skipped
  (with the reason). Datasets with more than two classes: the training rows' most frequent
  class against the rest. At most ``--max-train`` training rows, ``--rows`` distinct test
  rows (by cell vector) plus one warm-up row.
* xdt: ``Explainer(dl, certificates=False)``, one reused per call kind: ``axp(x)`` (its
  default deletion order), and with ``--all`` ``all_axps(x)`` and ``all_cxps(x)``.
* xdl-tool: one ``DLExplainer`` per call kind over one ``DLEncoding`` (options of its CLI
  left at their defaults: pairwise cardinality encoding, Glucose 3, no core reduction):
  ``explain(inst)`` (one AXp), ``explain(inst, xnum=-1)`` (all AXps), ``explain(inst,
  xtype="con", xnum=-1)`` (all CXps), the instance as its CLI reads it (``f=v`` strings).

Timing: CPU time (``time.process_time_ns``, less the clock's own cost) of each call alone;
interleaved per row (on even rows xdt's calls come first, on odd rows xdl-tool's); the
columns are medians over the rows of each side's times and the ratio is the median of the
per-row ratios xdt / xdl-tool. Warm-up is reported apart, never in the per-row medians:
``setup`` is, per list, building the explainers (xdt: ``Explainer``; xdl-tool:
``DLEncoding`` and its ``DLExplainer``s, its SAT solvers; reading its files not timed) plus
the first AXp, on a warm-up row that is not timed again. Before the first list, one tiny
list is explained by both tools, so module loading is in neither.

Agreement, per row: both predict the same class; xdt's AXp is an AXp for xdl-tool (checked
with xdl-tool's own encoding and solver: UNSAT under the AXp's assumptions, SAT with any
one dropped) and xdl-tool's AXp is an AXp for xdt (``Explainer.is_axp``); with ``--all``,
the two sets of all AXps are equal, and so are the sets of all CXps. Any disagreement is
printed with the list in xdl-tool's format and the instance, and the script exits with
status 1.

xdl-tool is imported at run time from ``--xdl DIR`` or the environment variable
``XDL_TOOL`` (a checkout of github.com/alexeyignatiev/xdl-tool; it needs pandas,
python-sat and six, which xdt's environment has). Without it the script says so and measures
xdt alone (the xdl-tool columns are "-").

Run from the project root (needs ../shared/datasets, imodels and wittgenstein):

    python benchmarks/dl_engines.py --xdl /tmp/xdl-tool --all --markdown   # a few minutes
    python benchmarks/dl_engines.py --quick                                 # seconds
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
from _data import for_encoder, impute, load, markdown, split

import xdt
from xdt.interop._tabular import TabularEncoder
from xdt.ir import Feature
from xdt.ir._conditions import Condition
from xdt.ir._decision_list import DecisionList
from xdt.metrics._rule_redundancy import as_decision_list

DEFAULT_DATASETS = ("car", "house-votes-84", "monk1", "monk2", "monk3", "tic-tac-toe",
                    "zoo", "spect", "kr-vs-kp", "mushroom", "soybean", "splice")
LEARNERS = ("greedy", "brl", "ripper")
XDL_MODULES = ("data", "dlist", "enc", "exp", "options")
SAFE = re.compile(r"^[A-Za-z0-9_.+\-]+$")
"""Names and values xdl-tool's parsers read back unchanged (no ``,``, ``=``, ``:``, quote or
space); others are written as ``f<i>`` / ``v<j>``."""


# ---------------------------------------------------------------------------- clocks
def _clock_overhead() -> int:
    pairs = []
    for _ in range(2000):
        t0 = time.process_time_ns()
        pairs.append(time.process_time_ns() - t0)
    return int(statistics.median(pairs))


CLOCK_NS = _clock_overhead()


def timed(fn: Callable[[], object]) -> tuple[float, object]:
    """``(CPU seconds, fn())`` for one call, less the clock's own cost."""
    t0 = time.process_time_ns()
    out = fn()
    return max(time.process_time_ns() - t0 - CLOCK_NS, 1) / 1e9, out


# ---------------------------------------------------------------------------- xdl-tool
def load_xdl(directory: str | None) -> tuple[SimpleNamespace | None, str]:
    """xdl-tool's modules imported from ``directory``, or ``(None, why not)``."""
    if not directory:
        return None, "no --xdl DIR and no XDL_TOOL in the environment"
    path = Path(directory).expanduser().resolve()
    if not (path / "xdl.py").is_file():
        return None, f"{path} holds no xdl.py (not an xdl-tool checkout)"
    sys.path.insert(0, str(path))  # its modules import each other by plain names
    try:
        mods = {m: importlib.import_module(m) for m in XDL_MODULES}
    except Exception as e:  # ImportError (pandas, python-sat, six), or a broken checkout
        return None, f"importing xdl-tool from {path} failed: {type(e).__name__}: {e}"
    stray = [m for m, mod in mods.items()
             if Path(getattr(mod, "__file__", "")).resolve().parent != path]
    if stray:
        return None, (f"modules {stray} were already imported from elsewhere, not from "
                      f"{path}")
    return SimpleNamespace(**mods, path=path), ""


@dataclass
class XdlForm:
    """A decision list in xdl-tool's terms: its files and the name maps both ways."""

    names: dict[str, str]  # xdt feature -> xdl name
    values: dict[tuple[str, object], str]  # (xdt feature, value) -> xdl value text
    back: dict[str, str]  # xdl name -> xdt feature
    labels: dict[object, str]  # xdt class -> xdl class value text
    text: str  # the list in xdl-tool's (minds) format
    csv: str  # a data file whose values are exactly xdt's domains
    target: str


def xdl_rules(dl: DecisionList) -> tuple[list, object] | str:
    """The rules of ``dl`` as ``([([(feature, value, positive), ...], label), ...],
    default)``, or why they have no xdl-tool form. A condition on a feature of one value
    always holds and is left out (xdl-tool would read such a feature as a free Boolean
    variable); rules after a rule without conditions never fire: that rule becomes the
    default."""
    feats = {f.name: f for f in dl.features}
    rules, default = [], dl.classes[dl.default_class]
    for conds, k in zip(dl.conditions, dl.rule_class, strict=True):
        label = dl.classes[int(k)]
        if not conds:
            default = label
            break
        lits = []
        for c in conds:
            f = feats[c.feature]
            if c.values is None:
                return f"condition {c} on an ordinal feature"
            if len(f.domain) < 2:  # always true; xdl-tool would read a free variable
                continue
            if len(c.values) == 1:
                lits.append((f.name, c.values[0], True))
            elif len(f.domain) - len(set(c.values)) == 1:
                lits.append((f.name, next(v for v in f.domain if v not in c.values), False))
            else:
                return f"condition {c}: a set of values, neither 'x == v' nor 'x != v'"
        if not lits:  # every condition always holds
            default = label
            break
        rules.append((lits, label))
    return rules, default


def xdl_form(dl: DecisionList) -> XdlForm | str:
    """``dl`` written in xdl-tool's format (see :func:`xdl_rules`), or why it cannot be."""
    got = xdl_rules(dl)
    if isinstance(got, str):
        return got
    rules, default = got
    if not rules:
        return "no rule but the default"
    names, values = {}, {}
    for i, f in enumerate(dl.features):
        names[f.name] = f.name if SAFE.match(f.name) else f"f{i}"
        texts = [str(v) for v in f.domain]
        safe = all(SAFE.match(t) for t in texts) and len(set(texts)) == len(texts)
        for j, v in enumerate(f.domain):
            values[f.name, v] = texts[j] if safe else f"v{j}"
    target = "class"
    while target in names.values():
        target = "_" + target
    labels = {c: (str(c) if SAFE.match(str(c)) else f"c{j}")
              for j, c in enumerate(dl.classes)}

    def lit(f: str, v: object, pos: bool) -> str:
        item = f"'{names[f]}: {values[f, v]}'"
        return item if pos else "not " + item

    lines = [f"c* cover: {', '.join(lit(*x) for x in lits)} => {target}: {labels[label]}"
             for lits, label in rules]
    lines.append(f"c* cover: true => {target}: {labels[default]}")
    lines.append(f"c* cover size: {len(rules) + 1}")
    width = max(len(f.domain) for f in dl.features)
    rows = [",".join([*(names[f.name] for f in dl.features), target])]
    for i in range(width):  # every value of every domain appears: xdl-tool's domains
        cells = [values[f.name, f.domain[min(i, len(f.domain) - 1)]] for f in dl.features]
        rows.append(",".join([*cells, labels[dl.classes[i % len(dl.classes)]]]))
    return XdlForm(names, values, {v: k for k, v in names.items()}, labels,
                   "\n".join(lines) + "\n",
                   "\n".join(rows) + "\n", target)


class Xdl:
    """xdl-tool on one decision list: its encoding and one explainer per call kind."""

    def __init__(self, xdl: SimpleNamespace, form: XdlForm, kinds: Sequence[str]):
        self.form = form
        with tempfile.TemporaryDirectory(prefix="xdt-xdl-") as d:
            model, data = Path(d) / "model.cn2", Path(d) / "data.csv"
            model.write_text(form.text)
            data.write_text(form.csv)
            self.dlist = xdl.dlist.DecisionList(
                from_file=str(model), data=xdl.data.Data(filename=str(data), separator=","))
        # xdl-tool builds one encoding per class *of a rule* (DLEncoding iterates
        # dlist.by_class, a defaultdict): when the default's class has no rule, an instance
        # the default decides has no oracle (KeyError). Reading the entry creates it (empty),
        # so that class is encoded too: "some rule fires" (its encode(default=True)).
        self.dlist.by_class[self.dlist.default]  # noqa: B018
        self.options = xdl.options.Options(None)  # the CLI's defaults, no command line
        self.options.cenc = xdl.options.encmap[self.options.cenc]
        self.xdl, self.kinds = xdl, kinds
        self.explainers: dict[str, object] = {}

    def build(self) -> None:
        """The encoding and the explainers (their SAT solvers): timed as setup."""
        self.encoding = self.xdl.enc.DLEncoding(self.dlist, self.options)
        self.explainers = {k: self.xdl.exp.DLExplainer(self.dlist, self.encoding, self.options)
                           for k in self.kinds}

    def instance(self, x: dict) -> tuple[str, ...]:
        """``x`` as xdl-tool's CLI reads an instance: ``f=v`` strings."""
        f = self.form
        return tuple(f"{f.names[n]}={f.values[n, v]}" for n, v in x.items())

    def features(self, expl: Sequence[int]) -> frozenset[str]:
        """The xdt feature names of an explanation (assumption literals)."""
        pool = self.encoding.vars
        return frozenset(self.form.back[pool.obj(lit).feat] for lit in expl)

    def axp(self, inst: tuple[str, ...]) -> list:
        return self.explainers["axp"].explain(inst, smallest=False, xtype="abd", xnum=1)[0]

    def all_axps(self, inst: tuple[str, ...]) -> list:
        return self.explainers["all_axps"].explain(inst, smallest=False, xtype="abd", xnum=-1)

    def all_cxps(self, inst: tuple[str, ...]) -> list:
        return self.explainers["all_cxps"].explain(inst, smallest=False, xtype="con", xnum=-1)

    def label(self, inst: tuple[str, ...]) -> str:
        """xdl-tool's prediction (the class value text)."""
        fv = self.xdl.dlist.FeatureValue
        return str(self.dlist.execute([fv(*s.split("=")) for s in inst]).val)

    def is_axp(self, inst: tuple[str, ...], features: frozenset[str]) -> bool:
        """Whether ``features`` is an AXp by xdl-tool's encoding: its oracle for the
        prediction is UNSAT under their assumptions and SAT with any one dropped."""
        ex = self.explainers["check"]
        ex.prepare_oracle(inst)  # picks the oracle of the predicted class
        fixed = [h for h in ex.hypos if self.form.back[self.encoding.vars.obj(h).feat]
                 in features]
        return not ex.oracle.solve(assumptions=fixed) and all(
            ex.oracle.solve(assumptions=fixed[:i] + fixed[i + 1:]) for i in range(len(fixed)))

    def close(self) -> None:
        for ex in self.explainers.values():
            for oracle in ex.oracles.values():
                oracle.delete()
            ex.oracles = {}


# ---------------------------------------------------------------------------- data, lists
def prepare(name: str, seed: int, max_train: int, rows: int):
    """Train and test frames of ``name`` (every column as text: categorical), labels, and
    the two classes (the most frequent training class against the rest when more)."""
    ds = load(name)
    X_train, X_test, y_train, y_test, _ = split(ds, seed)
    X_train, X_test, _ = impute(X_train, X_test)
    X_train, X_test = (for_encoder(X).astype(str) for X in (X_train, X_test))
    y_train, y_test = (y.astype(str).to_numpy() for y in (y_train, y_test))
    if len(set(y_train)) > 2:
        top = pd.Series(y_train).value_counts().index[0]
        y_train, y_test = (np.where(y == top, top, "other") for y in (y_train, y_test))
    X_train, y_train = X_train.iloc[:max_train].reset_index(drop=True), y_train[:max_train]
    # distinct test rows (an explainer would answer a repeated row from its cache)
    X_test = X_test.drop_duplicates().iloc[:rows + 1].reset_index(drop=True)
    return X_train, X_test, y_train


def learn(learner: str, X_train: pd.DataFrame, X_test: pd.DataFrame, y_train: np.ndarray,
          seed: int, brl_iter: int) -> DecisionList:
    """One decision list over every column of ``X_train`` as a categorical feature."""
    both = pd.concat([X_train, X_test])
    classes = sorted(set(y_train.tolist()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if learner in ("greedy", "brl"):
            import imodels

            enc = TabularEncoder(list(both.columns)).fit(both)
            y01 = (y_train == classes[-1]).astype(int)
            onehot = enc.transform(X_train)
            if learner == "greedy":
                est = imodels.GreedyRuleListClassifier(max_depth=8).fit(onehot, y01)
            else:
                est = imodels.BayesianRuleListClassifier(max_iter=brl_iter, random_state=seed)
                est.fit(onehot, y01, feature_names=enc.encoded_names_)
            return xdt.from_imodels(est, encoder=enc)
        import wittgenstein

        counts = {c: int(np.sum(y_train == c)) for c in classes}
        pos = min(classes, key=lambda c: (counts[c], c))
        neg = next(c for c in classes if c != pos)
        est = wittgenstein.RIPPER(random_state=seed)
        est.fit(X_train.assign(__label__=y_train), class_feat="__label__", pos_class=pos)
        return as_decision_list(xdt.from_wittgenstein(est, X=both, classes=[neg, pos]))


# ---------------------------------------------------------------------------- one list
@dataclass
class Result:
    """Per-row outcomes of one decision list."""

    dataset: str
    learner: str
    rules: int = 0
    literals: int = 0
    skipped: str = ""
    setup: dict[str, float] = field(default_factory=dict)
    times: dict[str, list[float]] = field(default_factory=dict)  # "<tool> <kind>" -> s
    ok: dict[str, list[bool]] = field(default_factory=dict)  # check -> per row
    axp_sizes: dict[str, list[int]] = field(default_factory=dict)

    def add(self, key: str, value) -> None:
        self.times.setdefault(key, []).append(value)

    def check(self, key: str, value: bool) -> None:
        self.ok.setdefault(key, []).append(bool(value))


def disagreement(res: Result, form: XdlForm, x: dict, what: str, *answers) -> str:
    return (f"DISAGREEMENT ({what}) on {res.dataset} {res.learner}:\n  instance: {x}\n"
            + "".join(f"  {a}\n" for a in answers)
            + "  the list in xdl-tool's format:\n"
            + "".join("    " + line + "\n" for line in form.text.splitlines()))


def run_list(res: Result, dl: DecisionList, X_test: pd.DataFrame, xdl, kinds: Sequence[str],
             problems: list[str]) -> None:
    """Explain the test rows of one list with both tools (xdt alone when ``xdl`` is None)."""
    form = xdl_form(dl)
    if isinstance(form, str):
        res.skipped = form
        return
    res.rules = len(xdl_rules(dl)[0])
    res.literals = sum(len(lits) for lits, _ in xdl_rules(dl)[0])
    rows = [dict(zip(X_test.columns, r, strict=True)) for r in X_test.itertuples(index=False)]
    names = [f.name for f in dl.features]
    rows = [{n: r[n] for n in names} for r in rows]
    peer = Xdl(xdl, form, ("axp", "check", *kinds[1:])) if xdl is not None else None
    ex = {k: xdt.Explainer(dl, certificates=False) for k in kinds}
    checker = xdt.Explainer(dl, certificates=False)
    warm, rows = rows[0], rows[1:]
    res.setup["xdt"], first_axp = timed(lambda: xdt.Explainer(dl, certificates=False).axp(warm))
    if not first_axp.features:  # the empty set entails the prediction: one class everywhere
        res.skipped = (f"constant (class {first_axp.prediction} everywhere; xdl-tool's "
                       "extract_mus fails on it: no core)")
        res.setup.clear()
        return
    if peer is not None:
        def first() -> object:
            peer.build()
            return peer.axp(peer.instance(warm))
        res.setup["xdl"], _ = timed(first)
    calls = {"axp": lambda e, x: e.axp(x), "all_axps": lambda e, x: e.all_axps(x),
             "all_cxps": lambda e, x: e.all_cxps(x)}
    for i, x in enumerate(rows):
        inst = peer.instance(x) if peer is not None else None
        got: dict[str, object] = {}
        order = ("xdt", "xdl") if i % 2 == 0 else ("xdl", "xdt")
        for tool in order:
            for k in kinds:
                if tool == "xdt":
                    t, got["xdt", k] = timed(lambda k=k, x=x: calls[k](ex[k], x))
                elif peer is not None:
                    t, got["xdl", k] = timed(lambda k=k, i=inst: getattr(peer, k)(i))
                else:
                    continue
                res.add(f"{tool} {k}", t)
        a = frozenset(got["xdt", "axp"].features)
        res.axp_sizes.setdefault("xdt", []).append(len(a))
        if peer is None:
            continue
        res.check("prediction", peer.label(inst) == form.labels[checker.predict(x)])
        b = peer.features(got["xdl", "axp"])
        res.axp_sizes.setdefault("xdl", []).append(len(b))
        res.check("same AXp", a == b)
        ok1, ok2 = peer.is_axp(inst, a), checker.is_axp(x, b)
        res.check("xdt AXp is xdl AXp", ok1)
        res.check("xdl AXp is xdt AXp", ok2)
        if not ok1:
            problems.append(disagreement(res, form, x, "xdt's AXp is no AXp for xdl-tool",
                                         f"xdt AXp: {sorted(a)}", f"xdl AXp: {sorted(b)}"))
        if not ok2:
            problems.append(disagreement(res, form, x, "xdl-tool's AXp is no AXp for xdt",
                                         f"xdt AXp: {sorted(a)}", f"xdl AXp: {sorted(b)}"))
        for k in kinds[1:]:
            mine = {frozenset(e.features) for e in got["xdt", k]}
            theirs = {peer.features(e) for e in got["xdl", k]}
            res.check(f"same {k}", mine == theirs)
            if mine != theirs:
                problems.append(disagreement(
                    res, form, x, f"{k} differ",
                    f"xdt only: {sorted(map(sorted, mine - theirs))}",
                    f"xdl only: {sorted(map(sorted, theirs - mine))}"))
    if peer is not None:
        peer.close()
    for e in (*ex.values(), checker):
        e.close()


# ---------------------------------------------------------------------------- the table
def ms(values: Sequence[float] | None) -> str:
    return "-" if not values else f"{1000 * statistics.median(values):.3g}"


def ratio(num: Sequence[float] | None, den: Sequence[float] | None) -> str:
    if not num or not den:
        return "-"
    return f"{statistics.median(a / b for a, b in zip(num, den, strict=True)):.3g}"


def count(values: Sequence[bool] | None) -> str:
    return "-" if values is None else f"{sum(values)}/{len(values)}"


def cells(res: Result, kinds: Sequence[str]) -> dict:
    t = res.times
    rows = len(t.get("xdt axp", []))
    out = {"dataset": res.dataset, "learner": res.learner, "rules": res.rules or "-",
           "lits": res.literals or "-", "rows": rows if not res.skipped else "-",
           "pred =": count(res.ok.get("prediction")),
           "xdt AXp ok": count(res.ok.get("xdt AXp is xdl AXp")),
           "xdl AXp ok": count(res.ok.get("xdl AXp is xdt AXp")),
           "same AXp": count(res.ok.get("same AXp")),
           "size xdt": (f"{np.mean(res.axp_sizes['xdt']):.2f}"
                         if res.axp_sizes.get("xdt") else "-"),
           "size xdl": (f"{np.mean(res.axp_sizes['xdl']):.2f}"
                         if res.axp_sizes.get("xdl") else "-"),
           "setup xdt": ms([res.setup["xdt"]]) if "xdt" in res.setup else "-",
           "setup xdl": ms([res.setup["xdl"]]) if "xdl" in res.setup else "-",
           "AXp xdt": ms(t.get("xdt axp")), "AXp xdl": ms(t.get("xdl axp")),
           "AXp xdt/xdl": ratio(t.get("xdt axp"), t.get("xdl axp"))}
    for k, short in (("all_axps", "allAXp"), ("all_cxps", "allCXp")):
        if k in kinds:
            out[f"{short} ="] = count(res.ok.get(f"same {k}"))
            out[f"{short} xdt"] = ms(t.get(f"xdt {k}"))
            out[f"{short} xdl"] = ms(t.get(f"xdl {k}"))
            out[f"{short} xdt/xdl"] = ratio(t.get(f"xdt {k}"), t.get(f"xdl {k}"))
    if res.skipped:
        out["rules"], out["lits"] = f"skipped: {res.skipped}", "-"
    return out


def overall(results: Sequence[Result], kinds: Sequence[str]) -> dict:
    pooled = Result("all", "all")
    for r in results:
        for k, v in r.times.items():
            pooled.times.setdefault(k, []).extend(v)
        for k, v in r.ok.items():
            pooled.ok.setdefault(k, []).extend(v)
        for k, v in r.axp_sizes.items():
            pooled.axp_sizes.setdefault(k, []).extend(v)
    done = [r for r in results if not r.skipped]
    pooled.rules = sum(r.rules for r in done)
    pooled.literals = sum(r.literals for r in done)
    out = cells(pooled, kinds)
    out["learner"] = f"{len(done)} lists"
    for who in ("xdt", "xdl"):
        setups = [r.setup[who] for r in done if who in r.setup]
        out[f"setup {who}"] = ms(setups)
    return out


def warm_up(xdl) -> None:
    """Both tools explain a two-rule list once: module loading and first-call costs out of
    the timed lists."""
    feats = [Feature("a", "categorical", ("p", "q", "r")), Feature("b", "binary")]
    dl = DecisionList(feats, ["no", "yes"], [([Condition("a", ("p",))], "yes"),
                                             ([Condition("b", (1,))], "yes")], "no")
    x = {"a": "q", "b": 1}
    ex = xdt.Explainer(dl, certificates=False)
    ex.axp(x), ex.all_axps(x), ex.all_cxps(x)
    ex.close()
    if xdl is not None:
        peer = Xdl(xdl, xdl_form(dl), ("axp", "check", "all_axps", "all_cxps"))
        peer.build()
        inst = peer.instance(x)
        peer.axp(inst), peer.all_axps(inst), peer.all_cxps(inst)
        peer.close()


START = time.perf_counter()


def progress(message: str) -> None:
    print(f"  {time.perf_counter() - START:5.0f} s  {message}", file=sys.stderr, flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--xdl", default=os.environ.get("XDL_TOOL"),
                    help="directory of an xdl-tool checkout (default: $XDL_TOOL)")
    ap.add_argument("--datasets", default=",".join(DEFAULT_DATASETS))
    ap.add_argument("--learners", default=",".join(LEARNERS))
    ap.add_argument("--rows", type=int, default=200, help="distinct test rows per list (200)")
    ap.add_argument("--max-train", type=int, default=2000, help="training rows at most (2000)")
    ap.add_argument("--brl-iter", type=int, default=3000,
                    help="MCMC iterations per chain of BRL (3000)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--all", action="store_true",
                    help="also all AXps and all CXps of every row, with both tools")
    ap.add_argument("--quick", action="store_true",
                    help="smoke run: monk1 and car, greedy and ripper, 20 rows, --all")
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = ap.parse_args()
    if args.quick:
        args.datasets, args.learners, args.rows, args.all = "monk1,car", "greedy,ripper", 20, True
    learners = args.learners.split(",")
    unknown = [w for w in learners if w not in LEARNERS]
    if unknown:
        raise SystemExit(f"unknown learner(s) {unknown}; choose among {', '.join(LEARNERS)}")
    kinds = ("axp", "all_axps", "all_cxps") if args.all else ("axp",)
    t_start, cpu_start = time.perf_counter(), time.process_time()
    xdl, why = load_xdl(args.xdl)
    if xdl is None:
        print(f"xdl-tool not used ({why}): its columns are empty; xdt is measured alone. "
              "Give a checkout of github.com/alexeyignatiev/xdl-tool with --xdl DIR or "
              "XDL_TOOL=DIR.", flush=True)
    warm_up(xdl)
    results, problems = [], []
    for name in args.datasets.split(","):
        X_train, X_test, y_train = prepare(name, args.seed, args.max_train, args.rows)
        for learner in learners:
            res = Result(name, learner)
            started = time.process_time()
            dl = learn(learner, X_train, X_test, y_train, args.seed, args.brl_iter)
            fit_s = time.process_time() - started
            run_list(res, dl, X_test, xdl, kinds, problems)
            results.append(res)
            progress(f"{name} {learner}: fit {fit_s:.1f} s CPU, "
                     + (f"skipped ({res.skipped})" if res.skipped
                        else f"{res.rules} rules, {len(res.times.get('xdt axp', []))} rows"))
    table = pd.DataFrame([cells(r, kinds) for r in results] + [overall(results, kinds)])
    print("\nCPU ms per call (medians over rows; setup: explainers built + first AXp, on a "
          "warm-up row, not in the medians); xdt/xdl: median of per-row ratios; agreement: "
          "rows where it holds / rows\n")
    if args.markdown:
        print(markdown(table))
    else:
        with pd.option_context("display.width", 300, "display.max_colwidth", 60,
                               "display.max_columns", 40):
            print(table.to_string(index=False))
    print(f"\nxdl-tool: {xdl.path if xdl is not None else 'not used'}")
    print(f"xdt {xdt.__version__} from {Path(xdt.__file__).parent}; total "
          f"{time.perf_counter() - t_start:.0f} s wall, {time.process_time() - cpu_start:.0f} s "
          "CPU")
    if problems:
        print(f"\n{len(problems)} DISAGREEMENT(S) between xdt and xdl-tool:\n")
        for p in problems:
            print(p)
        raise SystemExit(1)
    if xdl is not None:
        print("xdt and xdl-tool agree on every row.")


if __name__ == "__main__":
    main()
