"""The main job of ``xdt demo``, end to end on German credit data shipped with xdt.

1. Read ``xdt/data/german.csv.gz`` (UCI Statlog German credit, 1000 rows, 14 categorical and
   7 numeric features; see ``xdt/data/README.md``).
2. Fit two depth-6 trees on the same stratified 70% split (seed 0) with
   :func:`xdt.interop.fit_tree`: SER-DT (:class:`xdt.learn.SERDTClassifier`,
   ``factor_expl`` 0.97; Souza, Cicalese, Laber & Molinaro, "Decision Trees with Short
   Explainable Rules", NeurIPS 2022) and CART (:class:`xdt.learn.CARTClassifier`, greedy
   Gini); string columns are categorical features.
3. Print them side by side: test accuracy, worst-case and average depth and explanation
   size (distinct features on a leaf's path; averages weighted by the training rows) and
   leaves.
4. Explain every test row on the SER-DT tree with the path engine (Izza, Ignatiev &
   Marques-Silva, "On Explaining Decision Trees"): one AXp (:meth:`xdt.Explainer.axp`), all
   CXps (:meth:`xdt.Explainer.all_cxps`) and whether the row's path is
   explanation-redundant (:meth:`xdt.Explainer.path_is_redundant`).
5. Print a table of the first rows and a summary over all test rows.

Examples
--------
>>> from xdt.cli._demo_job import run_demo
>>> result = run_demo(show=0, echo=lambda line: None)   # doctest: +SKIP
>>> result.n_rows                                        # doctest: +SKIP
300
>>> [c.learner for c in result.comparison]               # doctest: +SKIP
['ser-dt', 'cart']
"""

from __future__ import annotations

import gzip
import json
import statistics
import textwrap
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path

import numpy as np
import pandas as pd

from xdt._atomic import atomic_path, write_bytes, write_text
from xdt.cli._common import describe_features, echo, pack_tokens, wrap_rule
from xdt.errors import OutputExistsError
from xdt.explain import Explainer
from xdt.interop._datasets import GERMAN, TITANIC, load_german
from xdt.interop._fit import FACTOR_EXPL, FitResult, fit_tree
from xdt.ir._tree import DecisionTree
from xdt.ir._values import to_python
from xdt.run._outputs import output_error

#: Poole & Mackworth's "reads" tree, the worked example of Izza et al.'s appendix A.2.
READS = files("xdt").joinpath("data/reads.json")
#: How many copies of German credit make ``big.csv`` of :func:`write_examples`.
BIG_COPIES = 20
TARGET = "class"
#: The settings of the demo's trees (those of Souza et al.'s Table 1).
MAX_DEPTH = 6
TEST_SIZE = 0.3
SEED = 0
#: The learners of the side-by-side table, the explained one first, with their labels.
LEARNERS = (("ser-dt", f"SER-DT (factor_expl {FACTOR_EXPL})"), ("cart", "CART (greedy Gini)"))


def write_examples(folder: str | Path, force: bool = False) -> list[Path]:
    """Write the files that the README's tour reads into ``folder`` (created if absent).

    ``german.csv`` (German credit, 1000 rows), ``titanic.csv`` (891 rows, the clustering
    example), ``reads.json`` (Poole & Mackworth's tree, Izza et al. appendix A.2), ``row.json``
    (German credit's first row without its class, an instance for ``--instance @row.json``)
    and ``big.csv`` (German credit repeated :data:`BIG_COPIES` times, 20,000 rows, for the
    chunked and Dask runs).

    Parameters
    ----------
    folder : str or Path
        Where to write; created with its parents when absent.
    force : bool
        Overwrite files of those names that are already there.

    Returns
    -------
    list of Path
        The files written, in the order above.

    Raises
    ------
    OutputExistsError
        A file of one of those names exists and ``force`` is false (nothing is written).
    OutputError
        The folder cannot be created or written.
    """
    folder = Path(folder)
    names = ("german.csv", "titanic.csv", "reads.json", "row.json", "big.csv")
    paths = [folder / name for name in names]
    existing = [p.name for p in paths if p.exists()]
    if existing and not force:
        raise OutputExistsError(f"{folder} already holds {', '.join(existing)}", folder,
                                existing, advice="choose another folder, or pass --force "
                                                 "to overwrite them")
    german = load_german()
    row = {k: to_python(v) for k, v in german.drop(columns=TARGET).iloc[0].items()}
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise output_error(e, folder / "german.csv") from None
    # each file through a temporary name renamed into place
    write_bytes(paths[0], gzip.decompress(GERMAN.read_bytes()))  # the files as shipped
    write_bytes(paths[1], gzip.decompress(TITANIC.read_bytes()))
    write_bytes(paths[2], READS.read_bytes())
    write_text(paths[3], json.dumps(row, indent=1) + "\n")
    with atomic_path(paths[4]) as tmp:
        pd.concat([german] * BIG_COPIES, ignore_index=True).to_csv(tmp, index=False)
    return paths


@dataclass
class RowResult:
    """The explanations of one test row."""

    row: int
    prediction: object
    path_length: int
    path_features: int
    redundant: bool
    axp_size: int
    axp_rule: str
    cxps: list[tuple[str, ...]]
    axp_ms: float
    cxps_ms: float


@dataclass
class LearnerSummary:
    """One row of the demo's side-by-side table: a learner's tree on the demo's split.

    ``depth_avg`` and ``expl_avg`` are weighted by the training rows (Souza et al., NeurIPS
    2022, Section 3).
    """

    learner: str
    label: str
    train_accuracy: float
    test_accuracy: float
    depth_wc: int
    depth_avg: float
    expl_wc: int
    expl_avg: float
    leaves: int
    nodes: int
    fit_seconds: float

    @classmethod
    def of(cls, fit: FitResult, label: str) -> LearnerSummary:
        """The summary of one :func:`~xdt.interop.fit_tree` result."""
        s = fit.sizes
        return cls(fit.learner, label, fit.train_accuracy, float(fit.test_accuracy or 0.0),
                   s.depth_wc, s.depth_avg, s.expl_wc, s.expl_avg, fit.model.n_leaves,
                   fit.model.n_nodes, fit.fit_seconds)


@dataclass
class DemoResult:
    """What :func:`run_demo` measured: the explained (SER-DT) tree's sizes and accuracy,
    the explanations' summary, ``comparison`` (one :class:`LearnerSummary` per learner of
    the side-by-side table, SER-DT first) and ``rows`` (one :class:`RowResult` per test
    row)."""

    n_rows: int
    n_nodes: int
    depth: int
    train_accuracy: float
    test_accuracy: float
    redundant_share: float
    mean_axp_size: float
    mean_path_length: float
    mean_path_features: float
    median_axp_ms: float
    median_cxps_ms: float
    total_s: float
    rows: list[RowResult] = field(repr=False, default_factory=list)
    comparison: list[LearnerSummary] = field(default_factory=list)


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000.0


def explain_rows(model: DecisionTree, frame: pd.DataFrame, features: list[str]
                 ) -> list[RowResult]:
    """Explain every row of ``frame`` (one AXp, all CXps, path redundancy), timing each call.

    Each timed call uses a fresh :class:`~xdt.Explainer`, so its time includes reading the
    instance and building its path oracle (no cache is shared between the calls).
    """
    paths = model.leaf_paths(model.encode(frame))
    out = []
    for pos, (label, x) in enumerate(zip(frame.index, frame[features].to_dict("records"),
                                         strict=True)):
        path = model.paths[int(paths[pos])]
        start = time.perf_counter()
        axp = Explainer(model).axp(x)
        axp_ms = _ms(start)
        start = time.perf_counter()
        cxps = Explainer(model).all_cxps(x)
        cxps_ms = _ms(start)
        redundant = Explainer(model).path_is_redundant(x)
        out.append(RowResult(int(label), path.label, len(path), len(path.masks), redundant,
                             len(axp), axp.rule,
                             [c.features for c in cxps], axp_ms, cxps_ms))
    return out


def _table(rows: list[RowResult], width: int, echo: Callable[[str], None]) -> None:
    pred_w = max(10, *(len(str(r.prediction)) for r in rows))
    head = f"{'row':>5}  {'prediction':<{pred_w}}  {'path':>4}  {'AXp':>3}  "
    indent = " " * len(head)
    text_w = max(width - len(head), 30)
    echo(f"{head}AXp: a rule that alone guarantees the prediction")
    echo(f"{indent}CXps: sets of features whose change can change it")
    echo("-" * (len(head) + text_w))
    for r in rows:
        mark = "*" if r.redundant else " "
        lead = (f"{r.row:>5}  {str(r.prediction):<{pred_w}}  {r.path_length:>3}{mark}  "
                f"{r.axp_size:>3}  ")
        rule = wrap_rule(r.axp_rule, text_w, max_lines=3, indent=2)
        echo(lead + rule[0])
        for line in rule[1:]:
            echo(indent + "  " + line)
        sets = ["{" + ", ".join(c) + "}" for c in r.cxps]
        label = f"CXps ({len(sets)}):" if sets else "CXps: none"
        for line in pack_tokens([label, *sets], text_w, max_lines=2, indent=2):
            echo(indent + ("" if line.startswith("CXps") else "  ") + line)
    for note in ("path: tests on the row's path; * the path is redundant (a test on it can "
                 "be dropped and the rest still entails the prediction).",
                 "AXp: its number of features. Each threshold is shown as the shortest "
                 "decimal that puts every value the model compares on the same side; "
                 "`xdt explain --format jsonl` gives exact ones."):
        for line in textwrap.wrap(note, width, initial_indent="  ", subsequent_indent="  "):
            echo(line)


def _echo_wrapped(echo: Callable[[str], None], text: str, width: int, indent: int) -> None:
    lead = text[:indent]
    for line in textwrap.wrap(text[indent:], width, break_on_hyphens=False,
                              initial_indent=lead, subsequent_indent=" " * indent):
        echo(line)


def comparison_table(rows: list[LearnerSummary], n_train: int) -> list[str]:
    """The side-by-side lines of the learners (test accuracy, sizes, leaves), aligned, then
    one line of legend (to wrap)."""
    head = ("learner", "test acc", "depth_wc", "depth_avg", "expl_wc", "expl_avg", "leaves")
    cells = [(r.label, f"{r.test_accuracy:.3f}", str(r.depth_wc), f"{r.depth_avg:.2f}",
              str(r.expl_wc), f"{r.expl_avg:.2f}", str(r.leaves)) for r in rows]
    widths = [max(len(c[i]) for c in [head, *cells]) for i in range(len(head))]

    def line(c: tuple[str, ...]) -> str:
        return "  " + "  ".join([c[0].ljust(widths[0])] + [v.rjust(w) for v, w in
                                                             zip(c[1:], widths[1:], strict=True)])

    return [line(head), *(line(c) for c in cells),
            f"  depth: tests on a leaf's path; expl: its distinct features (explanation size); "
            f"_wc: worst case; _avg: mean weighted by the {n_train} training rows."]


def run_demo(show: int = 15, width: int = 100,
             echo: Callable[[str], None] = echo) -> DemoResult:
    """Run the demo and print, through ``echo``, the side-by-side table of SER-DT and CART,
    the explanations of ``show`` test rows on the SER-DT tree and their summary.

    Parameters
    ----------
    show : int
        Number of test rows in the table (0: summary only).
    width : int
        Line width of the output (the table wraps long rules to it).
    echo : callable
        Where lines go (default: standard output).

    Returns
    -------
    DemoResult
    """
    t0 = time.perf_counter()
    frame = load_german()
    fits = {name: fit_tree(frame, TARGET, learner=name, max_depth=MAX_DEPTH,
                           factor_expl=FACTOR_EXPL if name == "ser-dt" else None,
                           test_size=TEST_SIZE, seed=SEED)
            for name, _ in LEARNERS}
    fit_s = time.perf_counter() - t0
    fit = fits["ser-dt"]
    model = fit.model
    comparison = [LearnerSummary.of(fits[name], label) for name, label in LEARNERS]
    echo("xdt demo: formal explanations of a decision tree's predictions on German credit")
    for text in (
            f"  data:         {GERMAN.name} (UCI Statlog German credit, shipped with xdt): "
            f"{len(frame)} rows, {describe_features(model)}, target '{TARGET}' "
            f"({', '.join(map(str, model.classes))}); "
            f"{'stratified ' if fit.stratified else ''}70/30 split (seed {SEED}): "
            f"{len(fit.train)} train / {len(fit.test)} test rows",
            f"  trees:        depth <= {MAX_DEPTH}, by SER-DT (short explainable rules, Souza, "
            "Cicalese, Laber & Molinaro, NeurIPS 2022) and by CART (greedy Gini):"):
        _echo_wrapped(echo, text, width, 16)
    echo("")
    *table, legend = comparison_table(comparison, len(fit.train))
    for text in table:  # not wrapped: a row stays on one line
        echo(text)
    _echo_wrapped(echo, legend, width, 2)
    echo("")
    _echo_wrapped(echo, "  explanations: one AXp, all CXps and path redundancy for each of the "
                  f"{len(fit.test)} test rows on the SER-DT tree (train accuracy "
                  f"{fit.train_accuracy:.3f}, {model.n_nodes} nodes), by the path engine "
                  "(Izza, Ignatiev & Marques-Silva, 'On Explaining Decision Trees')", width, 16)
    echo("")

    t1 = time.perf_counter()
    features = list(model.features.names)
    rows = explain_rows(model, fit.test.sort_index(), features)
    explain_s = time.perf_counter() - t1
    if show:
        _table(rows[:show], width, echo)
        echo("")

    n = len(rows)
    redundant = sum(r.redundant for r in rows)
    result = DemoResult(
        n_rows=n, n_nodes=model.n_nodes, depth=model.depth,
        train_accuracy=fit.train_accuracy, test_accuracy=float(fit.test_accuracy or 0.0),
        redundant_share=redundant / n,
        mean_axp_size=float(np.mean([r.axp_size for r in rows])),
        mean_path_length=float(np.mean([r.path_length for r in rows])),
        mean_path_features=float(np.mean([r.path_features for r in rows])),
        median_axp_ms=statistics.median(r.axp_ms for r in rows),
        median_cxps_ms=statistics.median(r.cxps_ms for r in rows),
        total_s=time.perf_counter() - t0, rows=rows, comparison=comparison)
    mean_cxps = float(np.mean([len(r.cxps) for r in rows]))
    summary = [
        f"Summary over all {n} test rows",
        f"  redundant paths:          {redundant} of {n} rows ({100 * result.redundant_share:.1f}%)"
        " have a path with a test that can be dropped",
        f"  mean AXp size:            {result.mean_axp_size:.2f} features, vs mean path length "
        f"{result.mean_path_length:.2f} tests ({result.mean_path_features:.2f} distinct "
        "features)",
        f"  mean number of CXps:      {mean_cxps:.2f}",
        f"  median time per AXp:      {result.median_axp_ms:.3f} ms",
        f"  median time per all-CXps: {result.median_cxps_ms:.3f} ms (times include reading "
        "the instance and building its path oracle)",
        f"  total time:               {result.total_s:.2f} s (read and fit {fit_s:.2f} s, "
        f"explain {explain_s:.2f} s)",
    ]
    for text in summary:
        _echo_wrapped(echo, text, width, 28 if text.startswith("  ") else 0)
    return result
