"""The HTML audit report: a model's formal explanations of data rows, in one self-contained
page an auditor can open and send on.

:func:`explain_rows` explains the selected rows with :class:`xdt.Explainer` (one AXp and
all CXps per row, up to ``max_cxps``), through the one table function
:func:`xdt.run.explain_table`, and re-checks every explanation's certificate with
the model's own ``predict`` (:func:`xdt.explain.checks.check_certificates`, one
``predict`` call per chunk of rows). :func:`build_report` lays the results out as a page:

* the model summary (kind, size, classes, features);
* for a decision tree, the tree as SVG (:mod:`xdt.report._svg`) with the selected row's path,
  AXp and CXps highlighted; for a DNF the terms, for a decision list its rules, for a tree
  ensemble its sizes, as text;
* the explanation-redundancy of the tree's paths (:func:`xdt.metrics.redundancy_report`,
  Izza, Ignatiev & Marques-Silva, "On Explaining Decision Trees", Table 1), or of a
  decision list's firing rules (:func:`xdt.metrics.rule_redundancy_report`);
* the formal feature importance: in how many of the rows' AXps each feature is, as bars;
* the table of rows (row, prediction, label, AXp, CXps, certificate checked), sortable,
  filterable, and selectable (a click highlights the row in the tree).

The page loads nothing: its style sheet and script are inline (:mod:`xdt.report._assets`),
with no font, image or link to the network, and its Content-Security-Policy allows only
that one style sheet and script (by their SHA-256), so nothing else can run or load even if
the page is edited. Every text from the model or the data (feature names, categories,
labels) is escaped; the rows' data for the script is JSON in which ``<``, ``>`` and ``&``
are written as ``\\u003c``, ``\\u003e``, ``\\u0026``; it holds each row's record
(``records``: the schema ``xdt-explanation/1`` of :func:`xdt.run.explanation_record`, no
certificates, :func:`page_record`) beside what the script shows. Only the first ``max_rows`` rows of
the selection are explained (default :data:`DEFAULT_MAX_ROWS`, a page of a few MB at
most), and the page says how many of how many.

Examples
--------
>>> import pandas as pd, xdt
>>> from xdt.report import build_report, write_report
>>> model = xdt.load_model("encodings/examples/playtennis.json")  # doctest: +SKIP
>>> rows = pd.DataFrame({"Outlook": ["sunny", "overcast"], "Humidity": ["high", "high"],
...                      "Wind": ["weak", "strong"]})
>>> page = build_report(model, rows)  # doctest: +SKIP
>>> write_report(model, rows, "report.html")  # doctest: +SKIP
"""

from __future__ import annotations

import base64
import datetime as _dt
import hashlib
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from xdt._version import __version__
from xdt.errors import CertificateError, ParameterError
from xdt.explain import Explainer, ExplanationList
from xdt.explain._explanation import Explanation
from xdt.explain._models import Model, describe, kind_name
from xdt.explain.checks._certificates import check_certificates
from xdt.explain.engines._deadline import Deadline, EnumerationStopped, running
from xdt.ir._instances import as_frame
from xdt.ir._protocol import PATHS, RULES, TERMS, TREES, offers
from xdt.ir._values import format_number, to_python
from xdt.metrics import (
    RedundancyReport,
    RuleRedundancyReport,
    redundancy_report,
    rule_redundancy_report,
)
from xdt.metrics._redundancy import missing_label
from xdt.report import _svg as svg
from xdt.report._assets import PAGE_CSS, PAGE_JS
from xdt.run._instance import InstanceExplanation
from xdt.run._record import explanation_record
from xdt.run._records import invalid_rows
from xdt.run._table import explain_table

__all__ = ["DEFAULT_MAX_CXPS", "DEFAULT_MAX_ROWS", "Report", "ReportInterrupted", "RowResult",
           "build_report", "explain_rows", "write_report"]

DEFAULT_MAX_ROWS = 1000
"""Rows a report explains unless told otherwise: the first of the selection."""
DEFAULT_MAX_CXPS = 20
"""CXps listed per row unless told otherwise (the row says when more exist)."""
MAX_TREE_NODES = svg.MAX_DRAWN_NODES
"""Trees with more nodes are summarised, not drawn (a picture past this size is unreadable
and heavy)."""
MAX_VALUES = 30
"""Rows of models with at most this many features carry every value to the page; others,
the values of the features on the path and in the explanations."""
MAX_TERMS = 200
"""Terms of a DNF listed in the summary."""
MAX_BARS = 40
"""Features drawn in the importance chart (the most frequent)."""
CHECK_ROWS = 64
"""Rows whose certificates are re-checked together (one ``model.predict`` call)."""
ID_PREFIX = "xdt-"


@dataclass
class RowResult:
    """The explanations of one row.

    Attributes
    ----------
    position : int
        0-based position of the row in the data.
    prediction : object
        The model's class for the row.
    label : object or None
        The row's true label, when the data has a target column (None where its cell is
        empty).
    axp : Explanation or None
        One AXp (the Explainer's default order: for a tree, the path's); None when the
        row's time limit passed before it was found (:attr:`axp_cut`).
    cxps : ExplanationList
        All CXps, smallest first, or the first ``max_cxps`` (``cxps.complete`` False).
    values : list of (str, str)
        Feature name and value, as the page shows them.
    path : list of int or None
        Decision trees: the node numbers of the row's path, root first (the numbering of
        :attr:`xdt.ir.Path.node`); None for other models.
    leaf : int or None
        Decision trees: the index of the row's path in ``model.paths``.
    path_redundant : bool or None
        Decision trees: whether the row's path is explanation-redundant.
    checked : bool
        Whether every certificate of the row (its AXp's and each CXp's) passed its re-check
        against the model's ``predict``.
    check_error : str
        Why a check failed, or that the time limit cut it off (empty when ``checked``).
    check_cut : bool
        Whether the row's time limit passed before its re-check ended (not ``checked``, not
        failed either).
    record : dict or None
        The row's record (:func:`xdt.run.explain_table`'s, schema ``xdt-explanation/1``,
        without certificates), as the one table function made it.
    """

    position: int
    prediction: object
    label: object
    axp: Explanation | None
    cxps: ExplanationList
    values: list[tuple[str, str]]
    path: list[int] | None = None
    leaf: int | None = None
    path_redundant: bool | None = None
    checked: bool = False
    check_error: str = ""
    record: dict | None = None
    check_cut: bool = False

    @property
    def axp_cut(self) -> bool:
        """Whether the row's time limit passed before its AXp was found (it has none)."""
        return self.axp is None

    @property
    def correct(self) -> bool | None:
        """Whether the prediction equals the label (compared as text too, so a CSV's ``1``
        matches a class ``"1"``); None without a label."""
        if self.label is None:
            return None
        return self.label == self.prediction or str(self.label) == str(self.prediction)


@dataclass
class Report:
    """What :func:`explain_rows` found, and what the page shows.

    Attributes
    ----------
    model : DecisionTree, DNF, NestedKDNF, DecisionList or TreeEnsemble
    rows : list of RowResult
        In the order of the selection.
    n_data : int
        Rows in the data.
    n_selected : int
        Rows selected (``rows=``) before the ``max_rows`` limit.
    engine : str
        The Explainer's engine.
    importance : dict of str to int
        Per feature (model order), in how many rows' AXp it is.
    redundancy : RedundancyReport or None
        Decision trees: the redundancy of the paths (%C_data and %A over the explained rows).
    rule_redundancy : RuleRedundancyReport or None
        Decision lists: the redundancy of the firing rules over the explained rows
        (:func:`xdt.metrics.rule_redundancy_report`).
    nodes : list of DrawnNode or None
        Decision trees: the laid-out nodes of the picture.
    invalid : list of dict
        The rows of the selection left out because the model cannot read them
        (``on_invalid="skip"``), each ``{"row": position, "reason": text, "values": {...}}``.
    interrupted : bool
        Ctrl-C stopped the run: ``rows`` holds the rows finished before it.
    n_planned : int or None
        Rows the run was to explain (the selection up to ``max_rows``, with the invalid
        ones); None: ``len(rows)``.
    time_limit : float or None
        Seconds each row was allowed for its AXp and its enumeration of CXps (None: no
        limit).
    """

    model: Model
    rows: list[RowResult]
    n_data: int
    n_selected: int
    engine: str
    importance: dict[str, int] = field(default_factory=dict)
    redundancy: RedundancyReport | None = None
    nodes: list[svg.DrawnNode] | None = None
    rule_redundancy: RuleRedundancyReport | None = None
    invalid: list[dict] = field(default_factory=list)
    interrupted: bool = False
    n_planned: int | None = None
    time_limit: float | None = None

    @property
    def time_limited(self) -> int:
        """Rows the time limit cut short: their AXp was not found, or their listing of CXps
        stopped."""
        return sum(r.axp_cut or r.cxps.stopped_by == "time_limit" for r in self.rows)

    @property
    def axp_cut(self) -> int:
        """Rows whose AXp the time limit cut off (they show none)."""
        return sum(r.axp_cut for r in self.rows)

    @property
    def accuracy(self) -> float | None:
        """Share (in [0, 100]) of the explained rows whose prediction equals their label;
        None without labels."""
        marks = [r.correct for r in self.rows if r.correct is not None]
        return 100.0 * sum(marks) / len(marks) if marks else None


class ReportInterrupted(KeyboardInterrupt):
    """:func:`explain_rows` was stopped by Ctrl-C; ``report`` holds the rows finished before
    it (``report.interrupted`` True), ready for :func:`build_report`."""

    def __init__(self, report: Report):
        self.report = report
        super().__init__("interrupted")


# ---------------------------------------------------------------------- explaining
def _positions(rows: object, n: int) -> list[int]:
    """Row positions of ``rows`` (None: all; a slice, range or sequence of ints; negative
    counts from the end)."""
    if rows is None:
        return list(range(n))
    if isinstance(rows, slice):
        return list(range(n)[rows])
    if isinstance(rows, range):
        rows = list(rows)
    if isinstance(rows, int | np.integer) and not isinstance(rows, bool):
        rows = [rows]
    if not isinstance(rows, Sequence | np.ndarray) or isinstance(rows, str):
        raise ParameterError(f"rows must be None, a slice, a range or a sequence of row "
                             f"positions, got {type(rows).__name__}")
    out = []
    for r in rows:
        if isinstance(r, bool) or not isinstance(r, int | np.integer):
            raise ParameterError(f"rows must hold integer row positions, got {r!r}")
        if not -n <= r < n:
            raise ParameterError(f"row {int(r)} is out of range; the data has {n} rows")
        out.append(int(r) % n)
    return out


def _shown(v: object) -> str:
    v = to_python(v)
    return format_number(v) if isinstance(v, float) else str(v)


def _check_rows(model: Model, results: Sequence[RowResult],
                time_limit: float | None = None) -> None:
    """Re-check the certificates of ``results`` against ``model.predict``, all in one call;
    when one fails, row by row, to say which. With ``time_limit``, each row's re-check gets
    the row's time limit (the batch, as many times it): a row whose re-check it cuts off is
    not checked (``check_cut``)."""
    def explanations(r: RowResult) -> list[Explanation]:
        return [*([] if r.axp is None else [r.axp]), *r.cxps]

    def check(rows: Sequence[RowResult]) -> None:
        seconds = None if time_limit is None else time_limit * len(rows)
        with running(None if seconds is None else Deadline(seconds)):
            check_certificates(model, [e for r in rows for e in explanations(r)],
                               rows=[r.position for r in rows for _ in explanations(r)])

    try:
        check(results)
    except (CertificateError, EnumerationStopped):
        for r in results:
            try:
                check([r])
            except CertificateError as e:
                r.checked, r.check_error = False, str(e)
            except EnumerationStopped:
                r.checked, r.check_cut = False, True
                r.check_error = (f"not re-checked within the time limit "
                                 f"({format_number(time_limit)} s)")
            else:
                r.checked = True
        return
    for r in results:
        r.checked = True


def explain_rows(model: Model, data: Any, *, rows: object = None,
                 max_rows: int | None = DEFAULT_MAX_ROWS,
                 max_cxps: int | None = DEFAULT_MAX_CXPS, time_limit: float | None = None,
                 engine: str | None = None, target: str | None = None,
                 progress: bool = False, on_invalid: str = "raise") -> Report:
    """Explain rows of ``data``: one AXp and the CXps of each, certificates re-checked.

    Parameters
    ----------
    model : DecisionTree, DNF, NestedKDNF or TreeEnsemble
    data : pandas.DataFrame, list of dicts or 2-d array of shape (n, n_features)
        The rows (a DataFrame by column name, other columns ignored; see
        :func:`xdt.ir._instances.as_frame`).
    rows : slice, range, sequence of int or None
        Positions of the rows to explain (default: all), of which the first ``max_rows``
        are explained.
    max_rows : int or None
        Most rows explained (default :data:`DEFAULT_MAX_ROWS`; None: no limit).
    max_cxps : int or None
        Most CXps listed per row (default :data:`DEFAULT_MAX_CXPS`; None: all).
    time_limit : float, optional
        Seconds allowed to each row, its AXp and its enumeration of CXps (None: no
        limit). A row whose AXp it cuts off has none (``axp`` None, shown as "AXp not
        found within the time limit (N s)"), and the report goes on with the next row; a
        listing it cuts short is marked (``cxps.stopped_by == "time_limit"``); the page
        says in how many rows. The re-check of a row's certificates gets it too, apart: a
        re-check it cuts off leaves the row not checked (``check_cut``), not failed.
    engine : {"auto", "path", "sat", "box"} or None
        The :class:`~xdt.explain.Explainer`'s engine (default: chosen from the model).
    target : str, optional
        The column of true labels in a DataFrame ``data`` (default: the model's target,
        when ``data`` has that column). A row whose label is missing (None, NaN) has none:
        it is left out of the accuracy.
    progress : bool
        Show a progress bar (tqdm, on stderr) of the rows explained.
    on_invalid : {"raise", "skip"}
        A selected row the model cannot read (missing value, unknown category, text for a
        number): "raise" (default) raises before any row is explained; "skip" explains the
        others and lists it, with its reason, in ``Report.invalid`` (the page shows it as
        not explained).

    Returns
    -------
    Report

    Raises
    ------
    ReportInterrupted
        (a ``KeyboardInterrupt``) on Ctrl-C, with the report of the rows finished before
        it.
    ParameterError
        Bad ``rows``, ``max_rows``, ``max_cxps`` or ``on_invalid``, or a ``target`` column
        ``data`` lacks.
    MissingFeatureError, InstanceError
        A feature without a column; with "raise", a value the model cannot read (missing,
        unknown category, text for a number) in a selected row.
    EngineNotAvailableError
        An engine that cannot explain the model.
    """
    from tqdm import tqdm

    for name, v in (("max_rows", max_rows), ("max_cxps", max_cxps)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 1):
            raise ParameterError(f"{name} must be a positive integer or None, got {v!r}")
    if on_invalid not in ("raise", "skip"):
        raise ParameterError(f"on_invalid must be 'raise' or 'skip', got {on_invalid!r}")
    frame = as_frame(model.features, data)
    n_data = len(frame)
    selected = _positions(rows, n_data)
    planned = selected if max_rows is None else selected[:max_rows]
    invalid = invalid_rows(model, frame, planned) if on_invalid == "skip" else []
    skipped = {r["row"] for r in invalid}
    positions = [p for p in planned if p not in skipped]
    labels: list | None = None
    if isinstance(data, pd.DataFrame):
        column = target if target is not None else getattr(model, "target", None)
        if target is not None and target not in data.columns:
            raise ParameterError(f"target column {target!r} is not in the data; its columns "
                                 f"are: {', '.join(map(str, data.columns))}")
        if column is not None and column in data.columns:
            labels = [None if missing_label(v) else v for v in
                      data[column].reset_index(drop=True).iloc[positions].tolist()]
    part = frame.iloc[positions].reset_index(drop=True)
    cells = model.encode(part) if len(part) else np.zeros((0, len(model.features)), int)
    tree = model if offers(model, PATHS) else None
    nodes = svg.layout(tree) if tree is not None and tree.n_nodes <= MAX_TREE_NODES else None
    redundant: dict[int, bool] = {}
    leaves: list[int] = []
    if tree is not None and not tree.constraints:  # redundancy ignores constraints: left out
        redundant = {p.path: p.redundant for p in redundancy_report(tree).per_path}
    if tree is not None:
        leaves = tree.leaf_paths(cells).tolist() if len(part) else []
    names = model.features.names
    explainer = Explainer(model, None if engine == "auto" else engine)
    results: list[RowResult] = []
    pending: list[RowResult] = []
    bar = tqdm(total=len(positions), desc="explaining", unit="row", disable=not progress,
               leave=False)

    def collect(record: dict, found: InstanceExplanation, x: dict) -> None:
        """Keep the row explained (the ``i``-th of the selection) as a RowResult; re-check
        the certificates of every :data:`CHECK_ROWS` rows."""
        nonlocal pending
        i = len(results)
        axp, cxps = found.axp, found.cxps  # no AXp: the row's time limit cut it off
        path = leaf = None
        if tree is not None:
            leaf = leaves[i]
            if nodes is not None:
                path = svg.node_path(nodes, cells[i])
        shown = set(range(len(names))) if len(names) <= MAX_VALUES else {
            names.index(f) for e in (axp, *cxps) if e is not None for f in e.features} | (
            set(tree.paths[leaf].masks) if tree is not None and leaf is not None else set())
        values = [(names[f], _shown(x[names[f]])) for f in sorted(shown)]
        prediction = axp.prediction if axp is not None else explainer.predict(x)
        r = RowResult(positions[i], prediction, None if labels is None else labels[i],
                      axp, cxps, values, path, leaf,
                      None if leaf is None else redundant.get(leaf), record=record)
        results.append(r)
        pending.append(r)
        if len(pending) >= CHECK_ROWS:
            _check_rows(model, pending, time_limit)
            pending = []
        bar.update(1)

    interrupted = False
    try:
        try:
            # one AXp and all CXps (at most max_cxps) per row, by the one table function
            explain_table(model, part.set_axis(positions), engine=explainer,
                          options={"all_cxps": True, "max_count": max_cxps,
                                   "time_limit": time_limit, "certificates": False},
                          on_row=collect, progress=False)
        except KeyboardInterrupt:  # the rows finished are kept; the current one is not
            interrupted = True
        if pending:
            _check_rows(model, pending, time_limit)
    finally:
        bar.close()
        explainer.close()
    done = part.iloc[:len(results)]  # the rows explained: all of them, unless interrupted
    counts = Counter({name: 0 for name in names})
    for r in results:
        if r.axp is not None:
            counts.update(r.axp.features)
    redundancy = None
    if tree is not None and not tree.constraints:
        redundancy = redundancy_report(tree, done, None if labels is None else
                                       labels[:len(results)]) if len(done) else \
            redundancy_report(tree)
    rules = (rule_redundancy_report(model, done)
             if offers(model, RULES) and len(done) else None)
    report = Report(model, results, n_data, len(selected), explainer.engine,
                    {name: counts[name] for name in names}, redundancy, nodes, rules,
                    invalid=invalid, interrupted=interrupted, n_planned=len(planned),
                    time_limit=time_limit)
    if interrupted:
        raise ReportInterrupted(report)
    return report


# ---------------------------------------------------------------------- the page
def _e(value: object) -> str:
    """``value`` as escaped HTML text."""
    return escape(str(value), quote=True)


def safe_json(value: object) -> str:
    """JSON that can sit inside a ``<script>`` element: ``<``, ``>``, ``&`` (and the line
    separators JavaScript once rejected) written as ``\\uXXXX`` escapes."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    for ch, code in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                     ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(ch, code)
    return text


def _hash(text: str) -> str:
    """The CSP source of an inline element's content: ``'sha256-...'``."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


def _pct(v: float | None, why: str = "n/a") -> str:
    return f"{v:.1f}%" if v is not None else why


def _cxps_text(cxps: ExplanationList) -> str:
    text = " ".join("{" + ", ".join(c.features) + "}" for c in cxps) or (
        "none" if cxps.complete else "none found")
    if not cxps.complete:
        text += " …" + ("(more exist)" if cxps.stopped_by == "max_count"
                        else f"(stopped by {cxps.stopped_by})")
    return text


def _more_text(cxps: ExplanationList) -> str:
    if cxps.complete:
        return ""
    if cxps.stopped_by == "max_count":
        return f"… more CXps exist (the first {len(cxps)} are listed)"
    return f"… the enumeration was stopped by its {cxps.stopped_by}: there may be more"


def _summary(report: Report, model_name: str | None) -> str:
    """The model card: kind, size, classes, features."""
    model = report.model
    classes = "".join(f'<span class="swatch c{i}">{_e(c)}</span>'
                      for i, c in enumerate(model.classes))
    kv = [("kind", kind_name(model)), ("model", describe(model))]
    if offers(model, PATHS):
        kv += [("size", f"{model.n_nodes} nodes, {model.n_leaves} leaves, depth "
                        f"{model.depth}")]
    elif offers(model, TREES):
        kv += [("size", f"{model.n_trees} trees ({model.combine}), {model.n_nodes} nodes, "
                        f"depth {model.depth}")]
    elif offers(model, RULES):
        kv += [("size", f"{model.n_rules} rules of at most {model.k} conditions, default "
                        f"{model.default}")]
    else:
        kv += [("size", f"{len(model.terms)} terms, k = {model.k}")]
    if model_name:
        kv.insert(0, ("file", model_name))
    if model.target:
        kv.append(("target", model.target))
    rows = "".join(f"<tr><td>{_e(k)}</td><td>{_e(v)}</td></tr>" for k, v in kv)
    rows += f"<tr><td>classes</td><td>{classes}</td></tr>"
    feats = []
    for f, cells in zip(model.features, model.cells, strict=True):
        if f.is_ordinal:
            what = f"{cells.n_cells - 1} threshold{'' if cells.n_cells == 2 else 's'}"
        else:
            dom = [str(v) for v in f.domain]
            what = ", ".join(dom[:12]) + (f", … ({len(dom)} values)" if len(dom) > 12 else "")
        feats.append(f'<li><b>{_e(f.name)}</b> <span class="meta">{_e(f.kind)}</span>: '
                     f"{_e(what)}</li>")
    return (f'<div class="card" id="xdt-model"><h2>Model</h2><table class="kv">{rows}</table>'
            f'<h3>{len(model.features)} features</h3><ul class="features">{"".join(feats)}'
            "</ul></div>")


def _class_css(n: int) -> str:
    """The classes' swatch colours (rules, not style attributes, which the page's
    Content-Security-Policy would block)."""
    return "".join(f".swatch.c{i} {{ background: {f}; border-color: {s}; }}\n"
                   for i, (f, s) in enumerate(svg.class_colours(n)))


def _rows_card(report: Report, data_name: str | None, selection: str | None) -> str:
    n, total, sel = len(report.rows), report.n_data, report.n_selected
    what = f"{n:,} of {total:,} rows explained"
    parts = [f'<p id="xdt-count"><b>{_e(what)}</b>']
    if data_name:
        parts.append(f" from <code>{_e(data_name)}</code>")
    parts.append("</p>")
    if selection:
        parts.append(f"<p>Selection: rows <code>{_e(selection)}</code> ({sel:,} rows).</p>")
    planned = n if report.n_planned is None else report.n_planned
    if report.interrupted:
        parts.append(f'<p class="note" id="xdt-interrupted"><b>Interrupted</b> (Ctrl-C): '
                     f"{n:,} of the {planned:,} rows to explain were finished; the others "
                     "are not in this report.</p>")
    if planned < sel:
        parts.append(f'<p class="note">Only the first {planned:,} of the {sel:,} selected '
                     "rows are explained (the row limit); choose others with "
                     "<code>--rows A:B</code>, or raise the limit with <code>--max-rows N"
                     "</code>.</p>")
    parts.append(_invalid_part(report.invalid))
    cut = report.time_limited
    if cut:
        budget = ("" if report.time_limit is None
                  else f" ({format_number(report.time_limit)} s per row)")
        no_axp = report.axp_cut
        axps = (f"{no_axp:,} of them {'has' if no_axp == 1 else 'have'} no AXp "
                f"(&ldquo;{_e(axp_cut_text(report))}&rdquo; in the table), and "
                if no_axp else "")
        parts.append(f'<p class="note" id="xdt-time-limited">In {cut:,} of the {n:,} rows the '
                     f"listing of CXps stopped at the time limit{_e(budget)}: {axps}those rows "
                     "may have more CXps than listed (marked &hellip; in the table); raise it "
                     "with <code>--time-limit S</code>, or <code>--time-limit none</code> for "
                     "no limit.</p>")
    checked = sum(r.checked for r in report.rows)
    unchecked = sum(r.check_cut for r in report.rows)
    late = (f" ({unchecked:,} not re-checked within the time limit)" if unchecked else "")
    parts.append(f"<p>Engine: <code>{_e(report.engine)}</code>. Certificates re-checked with "
                 f"the model's own predict: {checked:,} of {n:,} rows passed{late}.</p>")
    acc = report.accuracy
    if acc is not None:
        labelled = sum(r.label is not None for r in report.rows)
        some = f" ({labelled:,} of the {n:,} rows have one)" if labelled < n else ""
        parts.append(f"<p>Accuracy on these rows (their labels{some}): {acc:.1f}%.</p>")
    sizes = [len(r.axp) for r in report.rows if r.axp is not None]
    if sizes:
        line = f"Mean AXp size {np.mean(sizes):.2f} features (max {max(sizes)})"
        if len(sizes) < n:
            line += f" over the {len(sizes):,} rows with one"
        if report.rows[0].leaf is not None and offers(report.model, PATHS):
            lengths = [len(report.model.paths[r.leaf].features) for r in report.rows
                       if r.axp is not None]
            line += f", against {np.mean(lengths):.2f} features on the paths"
        n_cxps = [len(r.cxps) for r in report.rows]
        line += f"; mean number of CXps {np.mean(n_cxps):.2f}."
        parts.append(f"<p>{_e(line)}</p>")
    return f'<div class="card" id="xdt-data-card"><h2>Rows</h2>{"".join(parts)}</div>'


MAX_INVALID_SHOWN = 50
"""Rows not explained (the model cannot read them) listed by name on the page."""


def _invalid_part(invalid: Sequence[dict]) -> str:
    """The rows left out because the model cannot read them, with the reason of each."""
    if not invalid:
        return ""
    k = len(invalid)
    items = "".join(f"<li>row {r['row']}: {_e(r['reason'])}</li>"
                    for r in invalid[:MAX_INVALID_SHOWN])
    more = (f"<li>… and {k - MAX_INVALID_SHOWN:,} more</li>" if k > MAX_INVALID_SHOWN
            else "")
    return (f'<div class="note" id="xdt-invalid"><p><b>{k:,} row{"" if k == 1 else "s"} not '
            f"explained</b>: the model cannot read {'it' if k == 1 else 'them'} (a missing "
            f"value, an unknown category, text for a number):</p><ul>{items}{more}</ul></div>")


def _rule_redundancy_card(r: RuleRedundancyReport) -> str:
    """The firing rules against the rows' AXps (a decision list)."""
    def pct(v: float | None) -> str:
        return _pct(v, "n/a (no rule row)")

    rows = [("rows: a rule fires / the default decides",
             f"{r.n_rule_rows} / {r.n_default_rows}"),
            ("redundant literals of the firing rule: mean / median / max",
             " / ".join(pct(v) for v in (r.pct_mean, r.pct_median, r.pct_max))),
            ("rows whose firing rule is not an AXp", pct(r.pct_not_axp)),
            ("rows whose firing rule is not even a weak AXp", pct(r.pct_not_weak_axp)),
            ("mean why-not-earlier features in the AXp",
             "n/a (no rule row)" if r.mean_why_not_earlier is None
             else f"{r.mean_why_not_earlier:.2f}")]
    body = "".join(f"<tr><td>{_e(k)}</td><td>{_e(v)}</td></tr>" for k, v in rows)
    return (f'<div class="card" id="xdt-redundancy"><h2>Redundancy of the firing rules</h2>'
            f'<table class="kv">{body}</table><p class="meta">The rule that fires is no '
            "explanation: its literals may not all be needed, and it does not say why the "
            "earlier rules did not fire. Over the explained rows, the AXp that keeps the "
            "rule's features longest against the rule (xdt.metrics.rule_redundancy_report); "
            "Ignatiev &amp; Marques-Silva, &ldquo;SAT-Based Rigorous Explanations for "
            "Decision Lists&rdquo;, SAT 2021.</p></div>")


def _redundancy_card(report: Report) -> str:
    r = report.redundancy
    model = report.model
    if report.rule_redundancy is not None:
        return _rule_redundancy_card(report.rule_redundancy)
    if r is None:
        if getattr(model, "constraints", None):
            text = ("Path explanation-redundancy (Izza et al.) is measured over the whole "
                    "feature space, and this model carries background constraints that "
                    "exclude some of its points: the measure would ignore them, so it is "
                    "left out. The explanations in the table respect the constraints.")
        elif offers(model, RULES):
            text = ("Path explanation-redundancy (Izza et al.) is defined for the paths of a "
                    "decision tree; this decision list has ordered rules instead. How many "
                    "of the firing rules' literals their AXps leave out, and which literals "
                    "of earlier rules they need, is what `xdt redundancy` reports for a "
                    "decision list; each row's AXp is shown in the table.")
        elif offers(model, TERMS):
            text = (f"Path explanation-redundancy (Izza et al.) is defined for the paths of a "
                    f"decision tree; this {kind_name(model)} has terms instead. Its terms have "
                    f"at most k = {model.k} conditions; each AXp is shown in the table.")
        else:
            text = (f"Path explanation-redundancy (Izza et al.) is defined for the paths of a "
                    f"decision tree; in this {kind_name(model)} no single path decides a "
                    "prediction.")
        return (f'<div class="card" id="xdt-redundancy"><h2>Explanation redundancy</h2>'
                f"<p>{_e(text)}</p></div>")
    rows = [("#P paths", f"{r.n_paths}"),
            ("%R redundant paths", f"{_pct(r.pct_redundant)} ({r.n_redundant} of "
                                   f"{r.n_paths})"),
            ("%C feature space they cover",
             _pct(r.pct_covered, "n/a (an ordinal feature: no finite space)")),
            ("%C_data explained rows on them", _pct(r.pct_covered_data, "n/a (no rows)")),
            ("%m / %avg / %M their redundant literals",
             " / ".join(_pct(v, "n/a") for v in (r.pct_min, r.pct_avg, r.pct_max))),
            ("D depth, #N nodes", f"{r.depth}, {r.n_nodes}")]
    if r.accuracy is not None:
        rows.append(("%A accuracy on the explained rows", _pct(r.accuracy)))
    body = "".join(f"<tr><td>{_e(k)}</td><td>{_e(v)}</td></tr>" for k, v in rows)
    return (f'<div class="card" id="xdt-redundancy"><h2>Explanation redundancy of the paths'
            f'</h2><table class="kv">{body}</table><p class="meta">A path is redundant when '
            "some of its tests can be dropped and the rest still guarantee its leaf's class "
            "(it is not a PI-explanation); Izza, Ignatiev &amp; Marques-Silva, &ldquo;On "
            "Explaining Decision Trees&rdquo;, Table 1.</p></div>")


def _importance_card(report: Report) -> str:
    counts = report.importance
    n = len(report.rows)
    ranked = sorted(((c, i, f) for i, (f, c) in enumerate(counts.items()) if c),
                    key=lambda t: (-t[0], t[1]))
    zero = [f for f, c in counts.items() if not c]
    shown = ranked[:MAX_BARS]
    bars = []
    for c, i, f in shown:
        share = 100 * c / max(n, 1)
        bars.append(
            f'<tr class="xdt-bar" data-f="{i}" data-count="{c}" title="{_e(f)}: in the AXp '
            f'of {c} of {n} rows"><td class="name">{_e(svg._cut(f))}</td><td class="bar">'
            f'<svg width="100%" height="12" aria-hidden="true"><rect width="100%" height="12" '
            f'fill="#eceef2"/><rect width="{share:.2f}%" height="12" fill="#4c78a8"/></svg>'
            f'</td><td class="num">{c} ({share:.0f}%)</td></tr>')
    chart = (f'<table class="bars" id="xdt-importance-chart">{"".join(bars)}</table>'
             if shown else "<p>No feature is in any AXp (every explained prediction holds "
             "whatever the values).</p>")
    notes = []
    if len(ranked) > MAX_BARS:
        notes.append(f"{len(ranked) - MAX_BARS} more features are in some AXp (fewer times).")
    if zero:
        listed = ", ".join(zero[:30]) + (f", … ({len(zero)} features)" if len(zero) > 30
                                         else "")
        notes.append(f"In no AXp: {listed}.")
    note = "".join(f'<p class="meta">{_e(t)}</p>' for t in notes)
    return (f'<div class="card" id="xdt-importance"><h2>Formal feature importance</h2>'
            f"<p>In how many of the {n:,} rows' AXps each feature is.</p>{chart}{note}</div>")


def _listed(texts: Sequence[str], what: str, start: int | None = None) -> str:
    """The first :data:`MAX_TERMS` of ``texts`` as an ordered list (numbered from
    ``start``), and how many more ``what`` there are."""
    items = "".join(f"<li><code>{_e(t)}</code></li>" for t in texts[:MAX_TERMS])
    more = (f'<p class="meta">… and {len(texts) - MAX_TERMS} more {what}.</p>'
            if len(texts) > MAX_TERMS else "")
    first = "" if start is None else f' start="{start}"'
    return f'<ol class="terms"{first}>{items}</ol>{more}'


def _text_model(report: Report) -> str:
    """For a model without one tree to draw: its terms (DNF), rules (decision list) or
    sizes (ensemble)."""
    model = report.model
    if offers(model, RULES):
        *rules, default = model.lines()
        return (f"<p>A decision list of {model.n_rules} rules: the first rule whose "
                f"conditions hold decides, else <b>{_e(model.default)}</b>. No tree to draw; "
                f"each row's explanations are listed beside it.</p>"
                f'{_listed(rules, "rules", start=0)}<p><code>{_e(default)}</code></p>')
    if offers(model, TERMS):
        rules = [str(r) for r in model.rules()]
        return (f"<p>{_e(kind_name(model))}: predicts <b>{_e(model.classes[1])}</b> when one of "
                f"its {len(rules)} terms holds, else <b>{_e(model.classes[0])}</b>. No tree to "
                f"draw; each row's explanations are listed beside it.</p>"
                f"{_listed(rules, 'terms')}")
    if offers(model, TREES):
        sizes = ", ".join(f"{t.n_nodes}" for t in model.trees[:30])
        more = ", …" if model.n_trees > 30 else ""
        return (f"<p>A tree ensemble of {model.n_trees} trees combined by "
                f"<code>{_e(model.combine)}</code>: no single tree decides a prediction, so "
                f"none is drawn; each row's explanations are listed beside it.</p>"
                f'<p class="meta">Nodes per tree: {_e(sizes)}{more}.</p>')
    tree = model
    return (f"<p>This tree has {tree.n_nodes:,} nodes, more than the {MAX_TREE_NODES:,} a "
            f"picture can show readably, so it is not drawn; each row's explanations and "
            f"path are listed beside it.</p>")


def _table(report: Report) -> str:
    has_labels = any(r.label is not None for r in report.rows)
    is_tree = offers(report.model, PATHS)
    heads = [("row", "num"), ("prediction", "text")]
    if has_labels:
        heads.append(("label", "text"))
    heads += [("AXp", "text"), ("|AXp|", "num"), ("CXps", "text"), ("#CXps", "num")]
    if is_tree:
        heads.append(("path redundant", "text"))
    heads.append(("certificate checked", "text"))
    head = "".join(f'<th scope="col" data-type="{t}">{_e(h)}</th>' for h, t in heads)
    body = []
    for i, r in enumerate(report.rows):
        cells = [f'<td class="num">{r.position}</td>', f"<td>{_e(r.prediction)}</td>"]
        if has_labels:
            wrong = ' class="wrong"' if r.correct is False else ""
            cells.append(f"<td{wrong}>{_e('' if r.label is None else r.label)}</td>")
        if r.axp is None:
            cells += [f'<td class="mono">{_e(axp_cut_text(report))}</td>',
                      '<td class="num" data-sort="-1">&ndash;</td>']
        else:
            axp = " AND ".join(r.axp.literals) or "TRUE (any values)"
            cells += [f'<td class="mono">{_e(axp)}</td>', f'<td class="num">{len(r.axp)}</td>']
        cells += [f'<td class="mono">{_e(_cxps_text(r.cxps))}</td>',
                  f'<td class="num" data-sort="{len(r.cxps)}">{len(r.cxps)}'
                  f'{"+" if not r.cxps.complete else ""}</td>']
        if is_tree:
            cells.append(f"<td>{'yes' if r.path_redundant else 'no'}</td>")
        check = ('<td class="ok">yes</td>' if r.checked else
                 f'<td title="{_e(r.check_error)}">not checked (time limit)</td>'
                 if r.check_cut else
                 f'<td class="bad" title="{_e(r.check_error)}">no (failed)</td>')
        cells.append(check)
        body.append(f'<tr data-i="{i}" data-row="{r.position}" tabindex="0">'
                    f'{"".join(cells)}</tr>')
    return (f'<table class="rows" id="xdt-rows"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table>')


def page_record(r: RowResult) -> dict:
    """The record of a row of the report (schema ``xdt-explanation/1``, no certificates):
    its record as :func:`explain_rows` made it, or one made from its explanations, with
    the row's true ``label`` and each explanation's ``verified`` saying whether the
    report's re-check of its certificate passed."""
    computed = ("format", "row", "axp_size", "n_cxps")
    fields = ({k: v for k, v in r.record.items() if k not in computed}
              if r.record is not None else
              {"prediction": r.prediction, "axp": r.axp, "cxps": r.cxps,
               "cxps_complete": r.cxps.complete, "cxps_stopped_by": r.cxps.stopped_by})
    if r.label is not None:
        fields["label"] = r.label
    record = explanation_record(r.position, certificates=False, **fields)
    for e in [record["axp"], *record["cxps"]]:
        if e is not None:
            e["verified"] = r.checked
    return record


def axp_cut_text(report: Report) -> str:
    """What the page shows for a row whose AXp the time limit cut off."""
    budget = ("" if report.time_limit is None
              else f" ({format_number(report.time_limit)} s)")
    return f"AXp not found within the time limit{budget}"


def _row_data(report: Report) -> list[dict]:
    index = {name: i for i, name in enumerate(report.model.features.names)}
    tree = report.model if offers(report.model, PATHS) else None
    rules: dict[int, str] = {}
    out = []
    for r in report.rows:
        if tree is not None and r.leaf is not None and r.leaf not in rules:
            rules[r.leaf] = tree.path_rule(r.leaf)
        out.append({
            "r": r.position, "pred": str(to_python(r.prediction)),
            "label": None if r.label is None else str(to_python(r.label)), "ok": r.correct,
            "p": r.path, "a": [] if r.axp is None else [index[f] for f in r.axp.features],
            "c": [[index[f] for f in c.features] for c in r.cxps],
            "axp": None if r.axp is None else r.axp.rule,
            "cut": axp_cut_text(report) if r.axp is None else None,
            "cx": [c.rule for c in r.cxps], "more": _more_text(r.cxps),
            "red": r.path_redundant,
            "pr": rules.get(r.leaf) if r.leaf is not None else None,
            "pn": len(tree.paths[r.leaf]) if tree is not None and r.leaf is not None else None,
            "chk": "yes" if r.checked else (r.check_error if r.check_cut
                                            else f"FAILED: {r.check_error}"),
            "v": [list(kv) for kv in r.values]})
    return out


GLOSSARY = (
    ("AXp (abductive explanation, PI-explanation)",
     "A subset-minimal set of the row's feature values that alone guarantee the prediction: "
     "every point agreeing with the row on them is predicted the same class."),
    ("CXp (contrastive explanation)",
     "A subset-minimal set of features whose change (keeping the others) can change the "
     "prediction. Every AXp shares a feature with every CXp."),
    ("Certificate",
     "Evidence for an explanation that is re-checked with the model's own predict, not with "
     "the engines: witness points (one per AXp feature: freeing it alone admits another "
     "class; for a CXp, a point changing only its features and predicted another class) and "
     "the proof of entailment."),
    ("Formal feature importance",
     "In how many rows' AXps a feature is: how often its value is needed to guarantee a "
     "prediction."),
)


def build_report(model: Model, data: Any, *, rows: object = None,
                 max_rows: int | None = DEFAULT_MAX_ROWS,
                 max_cxps: int | None = DEFAULT_MAX_CXPS, time_limit: float | None = None,
                 engine: str | None = None, target: str | None = None,
                 title: str | None = None, model_name: str | None = None,
                 data_name: str | None = None, selection: str | None = None,
                 progress: bool = False, report: Report | None = None) -> str:
    """The HTML audit report of ``model`` on rows of ``data`` (see the module docstring).

    Parameters
    ----------
    model, data, rows, max_rows, max_cxps, time_limit, engine, target, progress
        As in :func:`explain_rows`.
    title : str, optional
        The page's title (default: the model's kind and the data's name).
    model_name, data_name : str, optional
        Where the model and the data come from (file names), shown in the page.
    selection : str, optional
        The text of the selection (``"0:100"``), shown in the page.
    report : Report, optional
        The result of :func:`explain_rows` when the caller has it (``data`` and the
        explaining parameters are then not used).

    Returns
    -------
    str
        One HTML document: inline style and script, nothing loaded from elsewhere.

    Raises
    ------
    As :func:`explain_rows`.
    """
    if report is None:
        report = explain_rows(model, data, rows=rows, max_rows=max_rows, max_cxps=max_cxps,
                              time_limit=time_limit, engine=engine, target=target,
                              progress=progress)
    title = title or (f"{kind_name(model)}" + (f" on {data_name}" if data_name else ""))
    if report.nodes is not None:
        first = report.rows[0] if report.rows else None
        names = model.features.names
        picture = svg.tree_svg(
            model, nodes=report.nodes, id_prefix=ID_PREFIX, style=False,
            path=first.path if first else (),
            axp=[names.index(f) for f in first.axp.features]
            if first and first.axp is not None else (),
            cxp=sorted({names.index(f) for c in first.cxps for f in c.features})
            if first else ())
        tree_part = (
            '<div class="keys"><span><span class="key path"></span>the selected row\'s path'
            '</span><span><span class="key axp"></span>its tests on an AXp feature</span>'
            '<span><span class="key cxp"></span>tests on a CXp feature</span>'
            '<label><input type="checkbox" id="xdt-fit"> fit to width</label></div>'
            f'<div class="tree-box" id="xdt-tree-box">{picture}</div>')
    else:
        tree_part = f'<div class="tree-box" id="xdt-tree-box">{_text_model(report)}</div>'
    css = PAGE_CSS + _class_css(len(model.classes))
    js = PAGE_JS
    csp = (f"default-src 'none'; style-src {_hash(css)}; script-src {_hash(js)}; "
           "img-src data:; base-uri 'none'; form-action 'none'")
    when = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    data_json = safe_json({"prefix": ID_PREFIX, "features": list(model.features.names),
                           "rows": _row_data(report),
                           "records": [page_record(r) for r in report.rows],
                           "invalid": [{"row": r["row"], "reason": r["reason"]}
                                       for r in report.invalid],
                           "interrupted": report.interrupted,
                           "time_limit": report.time_limit})
    n = len(report.rows)
    glossary = "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in GLOSSARY)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{_e(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="xdt {_e(__version__)}">
<title>xdt report: {_e(title)}</title>
<link rel="icon" href="data:,">
<style>{css}</style>
</head>
<body>
<header>
<h1>Formal explanations: {_e(title)}</h1>
<p class="meta">Made by xdt {_e(__version__)} on {_e(when)}. Every explanation below is
proved (AXp, CXp), and its certificate re-checked with the model's own predict.</p>
</header>
<div class="cards">
{_summary(report, model_name)}
{_rows_card(report, data_name, selection)}
{_redundancy_card(report)}
{_importance_card(report)}
</div>
<h2>Explore the rows <span class="meta">(selected: <span id="xdt-selected">none</span>)</span>
</h2>
<div class="explore">
<div class="left">
{tree_part}
<div id="xdt-detail" aria-live="polite"><p>Click a row of the table.</p></div>
</div>
<div class="right">
<div class="table-tools"><input type="search" id="xdt-filter"
 placeholder="Filter rows: words of any column or value, or NAME=VALUE (prediction=bad)"
 aria-label="filter rows"><span class="meta">showing <span id="xdt-shown">{n} of {n}</span>
</span></div>
<div class="table-box">{_table(report)}</div>
<p class="meta">Click a header to sort, a row to show it in the picture. The filter keeps
the rows holding every word typed; <code>NAME=VALUE</code> (no spaces) keeps those whose column
or feature NAME is VALUE: <code>prediction=bad</code>, <code>|AXp|=2</code>.</p>
</div>
</div>
<footer><dl>{glossary}</dl></footer>
<script type="application/json" id="xdt-data">{data_json}</script>
<script>{js}</script>
</body>
</html>
"""


def write_report(model: Model, data: Any, path: str | Path, **options: Any) -> Path:
    """Write :func:`build_report` ``(model, data, **options)`` to ``path`` (UTF-8), through
    a temporary file renamed into place: a failure leaves the file that was there untouched.

    Returns
    -------
    pathlib.Path
        The file written.

    Raises
    ------
    OutputError
        ``path`` cannot be written (a missing folder, a folder, no permission...): checked
        before any row is explained, and again when writing; the message says what to do.
        :class:`~xdt.errors.OutputEncodingError` when the page holds text UTF-8 cannot
        encode (a lone surrogate in a name).
    Others
        As :func:`build_report`.
    """
    from xdt._atomic import write_text
    from xdt.run._outputs import check_output_file

    path = check_output_file(path)
    page = build_report(model, data, **options)
    write_text(path, page)
    return path
