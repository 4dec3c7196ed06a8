"""The ``xdt`` command line.

::

    xdt fit DATA.csv --target COL [-o MODEL.json]   learn a tree (CART, SER-DT), measure, save
    xdt explain MODEL.json --instance '{...}'       explain one prediction (AXp, CXps)
    xdt explain MODEL.json --data DATA.csv          explain many rows (text or JSON lines)
    xdt encode MODEL.json --instance '{...}' -o Q.cnf  the SAT query of one instance (DIMACS)
    xdt crosscheck MODEL.json --data DATA.csv       path engine vs SAT engine, row by row
    xdt redundancy MODEL.json [--data DATA.csv -t COL]  redundant paths (Izza et al. Table 1)
    xdt import FILE --from xgboost|lightgbm -o MODEL.json  a boosted model as an xdt model
    xdt demo                                        the whole job on a shipped dataset

Errors of the user's making (a missing file, an unknown feature, a NaN, a malformed model)
end with the message of the :mod:`xdt.errors` exception and a non-zero exit code, never a
traceback: every command catches :class:`~xdt.errors.XdtError` at its boundary.
"""

from __future__ import annotations

import contextlib
import functools
import json
import shutil
import sys
import textwrap
from collections import Counter
from collections.abc import Callable, Generator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

import xdt
from xdt.errors import DataError, InstanceError, XdtError
from xdt.interop.learners import FACTOR_EXPL, LEARNER_NAMES, LEARNERS
from xdt.report.command import report

# numpy, pandas, the engines and the learners are imported by the commands that use them, so
# that `xdt --help` (and every command's --help) starts without them
if TYPE_CHECKING:
    import pandas as pd

    from xdt.explain import Explainer
    from xdt.explain.models import Model
    from xdt.interop.fit import FitResult
    from xdt.ir.tree import DecisionTree

F = TypeVar("F", bound=Callable[..., Any])

#: Rows above which ``xdt explain`` shows a progress bar (unless ``--quiet``).
PROGRESS_MIN_ROWS = 20


# ---------------------------------------------------------------------- shared helpers
def cli_errors(fn: F) -> F:
    """Turn xdt's errors, and missing files, into click errors (message, exit code 1)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except click.ClickException:
            raise
        except (XdtError, FileNotFoundError, IsADirectoryError, PermissionError) as e:
            raise click.ClickException(_message(e)) from None

    return wrapper  # type: ignore[return-value]


def _message(e: BaseException) -> str:
    if isinstance(e, OSError) and e.filename is not None and e.strerror:
        return f"{e.strerror}: {e.filename}"
    return str(e)


def read_csv(path: str | Path, dtype: dict | None = None) -> pd.DataFrame:
    """Read a CSV file (``.gz`` and other compressions by extension) into a DataFrame.

    Only empty cells are missing values; text such as ``NA`` or ``None`` is kept as a value.

    A line with fewer fields than the header is read with its last cells empty (missing
    values, which the commands report by row).

    Raises
    ------
    FileNotFoundError
        No file at ``path``.
    FieldCountError
        A line has more fields than the header (:mod:`xdt.interop.csvfile`; the message
        names the line, 1-based with the header as line 1).
    DataError
        The file is empty, not parseable as CSV, not text, has no rows, or is a damaged
        compressed file (``.gz`` that ends early or is not gzip).
    """
    import pandas as pd

    from xdt.interop import csvfile

    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no data file at {str(path)!r}")
    try:
        csvfile.check_first_line(path)  # pandas would read its extra field as a row label
        # only empty cells are missing: text such as "None" or "NA" is a category's name
        # (e.g. Capital Gain = None in the discretised Adult data); low_memory=False reads
        # each column in one piece, so a column with text among numbers gets one type
        # (the rows' own checks then name the bad value) and pandas warns of nothing
        frame = pd.read_csv(path, dtype=dtype, keep_default_na=False, na_values=[""],
                            low_memory=False)
    except XdtError:  # FieldCountError from the first line's check
        raise
    except (EOFError, OSError) as e:  # a damaged .gz/.bz2/.xz/.zip file (not a missing one)
        raise DataError(f"{path}: cannot read it ({e or type(e).__name__}); the file is "
                        "damaged or not in the compression its name says") from None
    except pd.errors.EmptyDataError:
        raise DataError(f"{path}: the file is empty; a CSV file with a header row is "
                        "expected") from None
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as e:
        if isinstance(e, pd.errors.ParserError):
            csvfile.find_long_line(path)  # pandas counts records, not lines
        raise DataError(f"{path}: cannot read it as CSV ({e})") from None
    if len(frame) == 0:
        raise DataError(f"{path}: the file has a header but no rows")
    return frame


def pack_tokens(tokens: Sequence[str], width: int, max_lines: int | None = None,
                indent: int = 0) -> list[str]:
    """Pack ``tokens`` (joined by spaces) into lines of at most ``width`` characters.

    A token longer than a line is broken at spaces. With ``max_lines``, what does not fit
    is dropped and the last kept line ends with ``... (+k more)`` (``k`` tokens not shown
    at all). Lines after the first are meant to be shown ``indent`` characters further
    right, so they get ``width - indent`` characters.

    >>> pack_tokens(["{alpha}", "{beta, gamma}", "{delta}", "{epsilon}"], 24, max_lines=1)
    ['{alpha} ... (+3 more)']
    """
    width = max(width, 20)
    pieces = [(piece, k) for k, tok in enumerate(tokens)
              for piece in textwrap.wrap(tok, width - indent, break_on_hyphens=False) or [""]]
    lines: list[list[tuple[str, int]]] = [[]]

    def length(line: list[tuple[str, int]]) -> int:
        return sum(len(p) for p, _ in line) + max(len(line) - 1, 0)

    for piece, k in pieces:
        room = width - (indent if len(lines) > 1 else 0)
        if lines[-1] and length(lines[-1]) + 1 + len(piece) > room:
            lines.append([])
        lines[-1].append((piece, k))
    if max_lines is not None and len(lines) > max_lines:
        lines = lines[:max_lines]
        last = lines[-1]
        room = width - (indent if max_lines > 1 else 0)
        while True:
            kept = sum(len(line) for line in lines)
            cut = {k for _, k in pieces[kept:]}  # tokens with a piece not shown
            more = len(cut)
            tail = f"... (+{more} more)"
            if not last or length(last) + 1 + len(tail) <= room:
                break
            last.pop()
        last.append((tail, -1))
    return [" ".join(p for p, _ in line) for line in lines]


def wrap_rule(rule: str, width: int, max_lines: int | None = None, indent: int = 0
              ) -> list[str]:
    """Lines of at most ``width`` characters, breaking a rule after ``AND`` where possible
    (see :func:`pack_tokens` for ``max_lines`` and ``indent``).

    >>> wrap_rule("IF a = 1 AND b = 2 AND c = 3 THEN yes", 24)
    ['IF a = 1 AND b = 2 AND', 'c = 3 THEN yes']
    """
    parts = rule.split(" AND ")
    tokens = [p + (" AND" if i < len(parts) - 1 else "") for i, p in enumerate(parts)]
    return pack_tokens(tokens, width, max_lines, indent)


def terminal_width(limit: int = 100) -> int:
    """The terminal's width, at most ``limit`` and at least 60 columns."""
    return max(60, min(limit, shutil.get_terminal_size((limit, 24)).columns))


def describe_features(model: Model) -> str:
    """``21 features (13 categorical, 7 ordinal, 1 binary)``."""
    kinds = Counter(f.kind for f in model.features)
    detail = ", ".join(f"{kinds[k]} {k}" for k in ("categorical", "ordinal", "binary") if kinds[k])
    return f"{len(model.features)} features ({detail})"


def _outcome(model: Model, label: object) -> str:
    return f"{model.target} = {label}" if model.target else str(label)


def _show_version(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    """``xdt --version``: the version is read from the package's metadata only when asked."""
    if value and not ctx.resilient_parsing:
        click.echo(f"xdt {xdt.__version__}")
        ctx.exit()


# ---------------------------------------------------------------------- the command group
@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("-V", "--version", is_flag=True, expose_value=False, is_eager=True,
              callback=_show_version,
              help="Show the version and exit.")
def main() -> None:
    """xdt: formal explanations (AXp, CXp) of the predictions of decision trees and DNFs.

    An AXp (abductive explanation) is a subset-minimal set of feature values that is enough,
    on its own, for the prediction; a CXp (contrastive explanation) is a subset-minimal set
    of features whose change can change it. Both are proved, not estimated.

    \b
    Start with:
      xdt demo                                      # the whole job on German credit
      xdt fit data.csv --target class -o model.json # or --learner ser-dt
      xdt explain model.json --data data.csv --rows 0:5

    Run `xdt COMMAND --help` for the options of each command.
    """


# ---------------------------------------------------------------------- xdt fit
def _split_names(ctx: click.Context, param: click.Parameter, value: str | None) -> list[str]:
    if not value:
        return []
    names = [n.strip() for n in value.split(",")]
    if any(not n for n in names):
        raise click.BadParameter(f"empty column name in {value!r}; write COL1,COL2")
    return names


def mostly_numeric_text(frame: pd.DataFrame, declared: set[str]) -> list[str]:
    """Warnings for text columns whose values are numbers but for a few (such as ``NA``):
    they become categorical features, which is rarely what was meant."""
    import numpy as np
    import pandas as pd

    out = []
    for name in frame.columns:
        col = frame[name]
        if name in declared or pd.api.types.is_numeric_dtype(col) \
                or pd.api.types.is_bool_dtype(col):
            continue
        numbers = pd.to_numeric(col, errors="coerce")
        bad = numbers.isna() & col.notna()
        if numbers.notna().mean() >= 0.8 and bad.any():
            first = int(np.flatnonzero(bad.to_numpy())[0])
            out.append(
                f"column {name!r} is read as categorical because {int(bad.sum())} of its "
                f"values are not numbers (e.g. {col.iloc[first]!r} in row {first}); if they "
                "stand for missing values, leave those cells empty; to make the column "
                "categorical on purpose, name it in --categorical")
    return out


class DepthType(click.ParamType):
    """A tree depth: an integer >= 0 (0: a single leaf), or ``none`` for no limit."""

    name = "depth"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> int | None:
        if value is None or (isinstance(value, int) and not isinstance(value, bool)
                             and value >= 0):
            return value
        text = str(value).strip().lower()
        if text in ("none", "unlimited"):
            return None
        try:
            depth = int(text)
        except ValueError:
            depth = -1
        if depth > 2**31 - 1:
            self.fail(f"{value!r} is too deep; give at most {2**31 - 1} or 'none' (no limit)",
                      param, ctx)
        if depth < 0:
            self.fail(f"{value!r} is not a depth; give an integer >= 0 (0: a single leaf) or "
                      "'none' (no limit)", param, ctx)
        return depth


class SecondsType(click.ParamType):
    """A time limit: a positive, finite number of seconds (``nan`` and ``inf`` refused)."""

    name = "seconds"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> float:
        import math

        try:
            seconds = float(value)
        except (TypeError, ValueError):
            seconds = math.nan
        if not (math.isfinite(seconds) and seconds > 0):
            self.fail(f"{value!r} is not a time limit; give a positive number of seconds "
                      "(leave the option out for no limit)", param, ctx)
        return seconds


def _unit_interval(ctx: click.Context, param: click.Parameter, value: float | None
                   ) -> float | None:
    """Reject NaN, which click's FloatRange lets through."""
    if value is not None and value != value:
        raise click.BadParameter("nan is not a number in the range", ctx, param)
    return value


#: ``(label, key of fit_report, note)`` of the rows of ``xdt fit``'s metrics table.
_FIT_ROWS = (
    ("train accuracy", "train_accuracy", ""),
    ("test accuracy", "test_accuracy", ""),
    ("depth_wc", "depth_wc", "tests on the longest root-to-leaf path"),
    ("depth_avg", "depth_avg", "tests on a leaf's path, mean weighted by training rows"),
    ("expl_wc", "expl_wc", "distinct features on a leaf's path (explanation size), "
                           "worst case"),
    ("expl_avg", "expl_avg", "distinct features on a leaf's path, mean weighted by "
                             "training rows"),
    ("leaves", "leaves", ""),
    ("nodes", "nodes", "tests and leaves"),
    ("fallback splits", "fallback_splits", "three-way splits, where no balanced test existed"),
    ("fit time", "fit_seconds", ""),
)


def fit_report(result: FitResult, data: str, frame: pd.DataFrame, max_depth: int | None,
               factor_expl: float, seed: int, output: str | None) -> dict:
    """The JSON-ready summary of one ``xdt fit`` run: what ``--format json`` prints.

    ``frame`` is the whole table (its target column gives the classes of the data, which
    may be more than the tree's when a class has no training row); ``factor_expl`` is
    reported for SER-DT only. The sizes are weighted by the training rows.
    """
    from xdt.ir.values import to_python

    model = result.model
    kinds = Counter(f.kind for f in model.features)
    sizes = result.sizes
    return {
        "data": data, "rows": len(frame),
        "features": {"total": len(model.features),
                     **{k: kinds[k] for k in ("categorical", "ordinal", "binary")}},
        "target": result.target,
        "classes": sorted((to_python(v) for v in frame[result.target].unique()), key=str),
        "split": {"train": len(result.train), "test": len(result.test),
                  "stratified": result.stratified, "seed": seed},
        "learner": result.learner, "max_depth": max_depth,
        "factor_expl": factor_expl if result.learner == "ser-dt" else None,
        "train_accuracy": result.train_accuracy, "test_accuracy": result.test_accuracy,
        "depth_wc": sizes.depth_wc, "depth_avg": sizes.depth_avg,
        "expl_wc": sizes.expl_wc, "expl_avg": sizes.expl_avg,
        "sizes_weighted_by": "training rows",
        "leaves": model.n_leaves, "nodes": model.n_nodes,
        "fallback_splits": result.n_fallback_splits,
        "fit_seconds": result.fit_seconds,
        "dropped_columns": dict(result.dropped_columns),
        "output": output,
    }


def format_fit_table(report: dict) -> list[str]:
    """The aligned ``label  value  note`` lines of ``xdt fit``'s metrics."""
    cells = []
    for label, key, note in _FIT_ROWS:
        value = report[key]
        if key == "fallback_splits" and report["learner"] != "ser-dt":
            continue
        if key == "test_accuracy" and value is None:
            text, note = "n/a", "no test rows (--test-size 0)"
        elif key == "fit_seconds":
            text, note = f"{value:.3f}", (f"seconds, the learner's fit on the "
                                          f"{report['split']['train']} training rows")
        elif isinstance(value, float):
            text = f"{value:.3f}"
        else:
            text = str(value)
        cells.append((label, text, note))
    label_w = max(len(c[0]) for c in cells)
    value_w = max(len(c[1]) for c in cells)
    return [f"  {label:<{label_w}}  {text:>{value_w}}" + (f"  {note}" if note else "")
            for label, text, note in cells]


@main.command(short_help="Learn a decision tree (CART or SER-DT) from a CSV file.")
@click.argument("data", metavar="DATA.csv", type=click.Path(dir_okay=False))
@click.option("--target", "-t", required=True, metavar="COL",
              help="The column to predict (the class).")
@click.option("--learner", "-l", type=click.Choice(LEARNERS),
              default="cart", show_default=True,
              help="cart: greedy Gini; ser-dt: short explainable rules (Souza et al.); "
                   "sklearn: scikit-learn's tree, imported.")
@click.option("--factor-expl", type=click.FloatRange(0.0, 1.0), metavar="F",
              callback=_unit_interval,
              help=f"ser-dt only: in [0, 1], weighs tests on features already on the path "
                   f"(lower: shorter explanations). Default {FACTOR_EXPL}.")
@click.option("--max-depth", default="6", show_default=True, type=DepthType(), metavar="D",
              help="Most tests on a path: an integer >= 0 (0: a single leaf), or none (no "
                   "limit).")
@click.option("--test-size", default=0.3, show_default=True, metavar="F",
              type=click.FloatRange(0.0, 1.0, max_open=True), callback=_unit_interval,
              help="Share of rows held out to measure accuracy (0 keeps all for training).")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0, 2**32 - 1),
              metavar="S",
              help="Random seed of the train/test split (and of the sklearn learner).")
@click.option("--categorical", metavar="COL1,COL2", callback=_split_names,
              help="Integer-coded columns to treat as categorical (string columns always are).")
@click.option("--keep", metavar="COL1,COL2", callback=_split_names,
              help="Id-like columns to use as features all the same (by default id and name "
                   "columns are dropped).")
@click.option("--drop", metavar="COL1,COL2", callback=_split_names,
              help="Columns to leave out, whatever they hold.")
@click.option("--output", "-o", metavar="MODEL.json",
              type=click.Path(dir_okay=False, writable=True),
              help="Write the model there (xdt-model/1 JSON); without it nothing is written.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="text: readable report; json: one JSON object.")
@cli_errors
def fit(data: str, target: str, learner: str, factor_expl: float | None,
        max_depth: int | None, test_size: float, seed: int, categorical: list[str],
        keep: list[str], drop: list[str], output: str | None, fmt: str) -> None:
    """Learn a decision tree from a CSV file, measure it, and save it as an xdt model.

    \b
    Learners (--learner):
      cart     CART: greedy Gini impurity splits, same-class sibling leaves merged
               (xdt.learn.CARTClassifier).
      ser-dt   SER-DT: short explainable rules (Souza, Cicalese, Laber & Molinaro,
               "Decision Trees with Short Explainable Rules", NeurIPS 2022): balanced
               splits that favour features already on the path by --factor-expl,
               for fewer distinct features per rule (xdt.learn.SERDTClassifier).
      sklearn  scikit-learn's DecisionTreeClassifier on one-hot columns, imported
               with xdt.from_sklearn (xdt's behaviour before its own learners).

    Fits the tree on a train split (stratified by class when possible), checks that the
    xdt model predicts exactly like the fitted learner on every row, and prints the train
    and test accuracy, the depth and explanation size of the tree (Souza et al.: tests,
    and distinct features, on a leaf's path; worst case and mean weighted by the training
    rows), its leaves and nodes, the fit time and, for SER-DT, its three-way fallback
    splits. With -o it writes the model as xdt-model/1 JSON. String columns become
    categorical features with their own values (splits read `purpose = car`, not codes);
    numeric columns become ordinal features (0/1 columns binary). Id and name columns are
    dropped, each named with why (all-distinct text such as names; text most of whose
    values occur once, such as ticket codes; distinct integers in a column named like an
    id): --keep COL keeps one, --drop COL leaves out any column. Missing values are not
    allowed: impute them first (or --drop the column).

    \b
    Examples:
      xdt fit german.csv --target class -o model.json
      xdt fit german.csv -t class --learner ser-dt --factor-expl 0.9 --max-depth 4
      xdt fit cars.csv -t acceptability --categorical doors,persons --format json
      xdt fit titanic.csv -t Survived --drop Cabin --keep Ticket
    """
    from xdt.interop.fit import fit_tree
    from xdt.outputs import check_output_file, write_output_file

    if output is not None:
        check_output_file(output)  # before the fit, not after it
    if factor_expl is not None and learner != "ser-dt":
        raise click.UsageError(f"--factor-expl is a parameter of SER-DT; it needs --learner "
                               f"ser-dt (the learner is {learner})")
    if learner == "sklearn" and max_depth == 0:
        raise click.UsageError("--max-depth 0 (a single leaf) is not available with "
                               "--learner sklearn: scikit-learn's trees have depth >= 1")
    factor = FACTOR_EXPL if factor_expl is None else factor_expl
    frame = read_csv(data)
    if target not in frame.columns:
        raise click.UsageError(
            f"target column {target!r} is not in {data}; its columns are: "
            f"{', '.join(map(str, frame.columns))}")
    result = fit_tree(frame, target, learner=learner, max_depth=max_depth,
                      factor_expl=factor if learner == "ser-dt" else None,
                      test_size=test_size, seed=seed, categorical=categorical,
                      keep=keep, drop=drop)
    features = frame.drop(columns=[target, *result.dropped_columns])
    for warning in mostly_numeric_text(features, set(categorical)):
        click.echo(f"warning: {warning}", err=True)
    model = result.model
    if output is not None:
        write_output_file(output, lambda path: xdt.save_model(model, path))
    report = fit_report(result, data, frame, max_depth, factor, seed, output)
    labels = [str(c) for c in report["classes"]]
    trained = set(result.train[target].unique())
    unseen = sorted({str(c) for c in frame[target].unique() if c not in trained})
    if unseen:
        click.echo(f"warning: class(es) {', '.join(unseen)} have no training row (too rare "
                   "for the split); the tree cannot predict them", err=True)
    if len(model.classes) == 1:
        click.echo(f"warning: every training row has class {model.classes[0]}; the tree is a "
                   "single leaf", err=True)
    if fmt == "json":
        click.echo(json.dumps(report, indent=2, ensure_ascii=False))
        return
    click.echo(f"read {data}: {len(frame)} rows, {describe_features(model)}, "
               f"target {target!r} with {len(labels)} class{'es' if len(labels) != 1 else ''} "
               f"({', '.join(labels)})")
    if result.dropped_columns:
        click.echo("dropped columns: " + ", ".join(
            f"{k} ({v})" for k, v in result.dropped_columns.items()) + "; --keep COL uses "
            "one as a feature")
    how = "stratified" if result.stratified else "not stratified"
    click.echo(f"split: {len(result.train)} train / {len(result.test)} test rows "
               f"({how}, seed {seed})")
    params = [f"max depth {'none' if max_depth is None else max_depth}"]
    if learner == "ser-dt":
        params.insert(0, f"factor_expl {factor:g}")
    click.echo(f"learner: {LEARNER_NAMES[learner]}, {', '.join(params)}")
    for line in format_fit_table(report):
        click.echo(line)
    click.echo("check: the xdt tree predicts exactly like the fitted learner on every row")
    if output is None:
        click.echo("model not saved (give -o MODEL.json to save it)")
        return
    click.echo(f"saved {output}")
    click.echo(f"next: xdt explain {output} --data {data} --rows 0:5")


# ---------------------------------------------------------------------- xdt explain
def parse_rows(spec: str, n: int) -> range:
    """Row positions selected by a python-like slice ``A:B`` (either side optional, negative
    counts from the end) or a single position ``A``, among ``n`` rows.

    Raises
    ------
    click.BadParameter
        A malformed slice, or a single position out of range.
    """
    text = spec.strip()
    try:
        if ":" in text:
            a, _, b = text.partition(":")
            if ":" in b:
                raise ValueError
            start = int(a) if a.strip() else None
            stop = int(b) if b.strip() else None
            selected = range(n)[slice(start, stop)]
            if len(selected) == 0:
                raise click.BadParameter(f"{spec!r} selects no rows; the data has {n} rows",
                                         param_hint="'--rows'")
            return selected
        i = int(text)
    except ValueError:
        raise click.BadParameter(f"{spec!r} is not a row slice; write A:B, A:, :B or A "
                                 "(0-based row positions, B excluded)",
                                 param_hint="'--rows'") from None
    if not -n <= i < n:
        raise click.BadParameter(f"row {i} is out of range; the data has {n} rows",
                                 param_hint="'--rows'")
    return range(n)[i:i + 1] if i >= 0 else range(n)[i:(i + 1) or None]


def parse_instance(text: str) -> dict:
    """The instance of ``--instance``: a JSON object, or ``@path`` to a file holding one."""
    source = "--instance"
    if text.startswith("@"):
        path = Path(text[1:])
        if not path.is_file():
            raise click.BadParameter(f"no file at {str(path)!r}", param_hint="'--instance'")
        source = str(path)
        text = path.read_text(encoding="utf-8")
    from xdt.ir.json_io import RepeatedKey, unique_keys

    try:
        value = json.loads(text, object_pairs_hook=unique_keys)
    except json.JSONDecodeError as e:
        raise click.BadParameter(
            f"{source} is not valid JSON ({e}); write an object such as "
            "'{\"age\": 31, \"purpose\": \"car\"}'", param_hint="'--instance'") from None
    except RepeatedKey as e:
        raise click.BadParameter(
            f"{source} names {e.key!r} twice; give each feature one value",
            param_hint="'--instance'") from None
    if not isinstance(value, dict):
        raise click.BadParameter(
            f"{source} must be a JSON object mapping feature name to value, got "
            f"{type(value).__name__}", param_hint="'--instance'")
    return value


def _csv_dtypes(model: Model) -> dict:
    """Read categorical features whose domain is all strings as strings (so ``"01"`` stays
    ``"01"``)."""
    return {f.name: str for f in model.features
            if f.kind == "categorical" and all(isinstance(v, str) for v in f.domain)}


DEFAULT_MAX_COUNT = 1000
"""``xdt explain --all-axps/--all-cxps`` lists at most this many of each per row unless
``--max-count`` says otherwise (the Python API has no default cap)."""

class ExplainInterrupted(KeyboardInterrupt):
    """:func:`explain_one` was interrupted (Ctrl-C); ``record`` holds what was done: the
    keys computed so far, an interrupted enumeration with the explanations it had found
    (``axps_complete``/``cxps_complete`` False, ``..._stopped_by`` ``"interrupted"``), and
    ``"interrupted": True``."""

    def __init__(self, record: dict):
        self.record = record
        super().__init__("interrupted")


def explain_one(explainer: Explainer, x: object, *, all_axps: bool = False,
                all_cxps: bool = False, path_restricted: bool = False, inflate: bool = False,
                verify: bool = False, max_count: int | None = None,
                time_limit: float | None = None,
                on_found: Callable[[str, int], None] | None = None,
                certificates: bool = True) -> dict:
    """The explanations of one instance, as a JSON-ready dict.

    Parameters
    ----------
    max_count : int, optional
        Most explanations listed by each enumeration.
    time_limit : float, optional
        Seconds allowed to the whole instance: one :class:`~xdt.explain.duality.Deadline`,
        started first, is shared by the enumerations, the re-checking of their
        certificates and the making of their records, each as it is found (the single AXp
        and CXp, polynomial, are always made and checked).
    on_found : callable, optional
        ``on_found(kind, count)`` as each enumeration finds an explanation (``kind``
        ``"AXp"`` or ``"CXp"``, ``count`` found so far), e.g. for a progress counter.
    certificates : bool
        Give each explanation's certificate in the record (``False``: ``None``, for output
        that does not show them).

    Returns
    -------
    dict
        ``prediction``; for a tree ``path`` (features tested, root first, one entry per
        test), ``path_length`` (tests on the path) and ``path_redundant``; for a DNF
        ``true_terms`` (the numbers of the terms that hold, each with its ``rule``);
        ``path_restricted``,
        ``axp`` (one AXp, :meth:`Explanation.to_dict`), ``axps`` (all AXps, only with
        ``all_axps``) and ``cxps`` (one CXp, or all of them with ``all_cxps``; empty when no
        change of features changes the prediction); with the enumerations
        ``axps_complete`` / ``cxps_complete`` (False when ``max_count``, ``time_limit`` or
        an interruption cut them short) and ``axps_stopped_by`` / ``cxps_stopped_by``
        (``None``, ``"max_count"``: more exist, ``"time_limit"`` or ``"interrupted"``).
        With ``verify`` every explanation's certificate is re-checked against the model's
        ``predict`` first, and each explanation's ``verified`` says whether it was: only
        those of an enumeration whose time limit passed before their check are not. With
        ``inflate`` the AXp is widened to maximal cell sets.

    Raises
    ------
    ExplainInterrupted
        On Ctrl-C, with the partial record.
    """
    import numpy as np

    from xdt.explain.duality import Deadline
    from xdt.explain.explainer import EnumerationInterrupted
    from xdt.explain.explanation import Explanation
    from xdt.ir.ensemble import TreeEnsemble
    from xdt.ir.instances import encode_instance
    from xdt.ir.tree import DecisionTree
    from xdt.ir.values import to_python

    model = explainer.model
    deadline = None if time_limit is None else Deadline(time_limit)
    out: dict = {}
    complete: dict = {}
    running = None  # the enumeration under way, for a partial record
    single_cxp: list | None = None  # the one CXp's record, without all_cxps

    built: dict = {}  # (kind, features) -> record of an enumerated explanation

    def counted(kind: str) -> Callable[[int, Explanation], None]:
        def found(count: int, explanation: Explanation) -> None:
            # its record is made as it is found, so that the time limit covers it too
            built[kind, explanation.features] = explanation.to_dict(certificates)
            if on_found is not None:
                on_found(kind, count)
        return found

    def record(e: Explanation) -> dict:
        d = built.pop((e.kind, e.features), None) or e.to_dict(certificates)
        d["verified"] = e.verified  # re-checked after it was found, or not
        return d

    def enumeration(key: str, found: Sequence, done: bool, stopped: str | None) -> None:
        out[key] = [record(e) for e in found]
        complete[f"{key}_complete"] = done
        complete[f"{key}_stopped_by"] = stopped

    try:
        _, cells = encode_instance(model.features, model.cells, x)
        out["prediction"] = to_python(explainer.predict(x))
        if isinstance(model, DecisionTree):
            path = model.paths[int(model.leaf_paths(np.asarray([cells]))[0])]
            names = model.features.names
            out.update({"path": [names[lit.feature] for lit in path.term.literals],
                        "path_length": len(path),
                        "path_redundant": explainer.path_is_redundant(x)})
        elif isinstance(model, TreeEnsemble):  # the scores the class is decided on
            scores = model.scores_of_leaves(model.leaves(np.asarray([cells])))[0]
            out["scores"] = [float(v) for v in scores]
        else:
            true = np.flatnonzero(model.satisfied_terms(np.asarray([cells]))[0])
            rules = model.rules()
            out["true_terms"] = [{"term": int(p), "rule": str(rules[p])} for p in true]
        out["path_restricted"] = path_restricted
        out["axp"] = explainer.axp(x, path_restricted=path_restricted, inflate=inflate,
                                   verify=verify).to_dict(certificates)
        if not all_cxps:  # before the enumerations, which take what time is left
            one = explainer.cxp(x, path_restricted=path_restricted, verify=verify)
            single_cxp = [] if one is None else [one.to_dict(certificates)]
        limits = {"path_restricted": path_restricted, "verify": verify,
                  "max_count": max_count, "time_limit": deadline}
        if all_axps:
            running = "axps"
            axps = explainer.all_axps(x, on_found=counted("AXp"), **limits)
            enumeration("axps", axps, axps.complete, axps.stopped_by)
        if all_cxps:
            running = "cxps"
            cxps = explainer.all_cxps(x, on_found=counted("CXp"), **limits)
            enumeration("cxps", cxps, cxps.complete, cxps.stopped_by)
        else:
            out["cxps"] = single_cxp
    except KeyboardInterrupt as e:
        if isinstance(e, EnumerationInterrupted):
            assert running is not None
            enumeration(running, e.found, False, "interrupted")
        if single_cxp is not None:
            out["cxps"] = single_cxp
        raise ExplainInterrupted({**out, **complete, "interrupted": True}) from None
    out.update(complete)  # False when --max-count / --time-limit cut an enumeration
    return out


def _why(record: dict) -> str:
    """What decided the prediction: the path (a tree), the true terms (a DNF) or the
    scores (a tree ensemble)."""
    if "scores" in record:
        return "scores " + ", ".join(format(v, ".17g") for v in record["scores"])
    if "true_terms" not in record:
        redundant = ", redundant" if record["path_redundant"] else ""
        return f"path of {record['path_length']} tests{redundant}"
    true = record["true_terms"]
    if not true:
        return "no term holds"
    if len(true) == 1:
        return f"term {true[0]['term']} holds: {true[0]['rule']}"
    return f"terms {', '.join(str(t['term']) for t in true)} hold"


def _listing(record: dict, key: str, title: str, verify: bool) -> list[str]:
    """The lines of one enumeration of a record: a head saying how many and, when it was
    cut short, by what and what to do; one line per explanation, each marked when its
    certificate was to be re-checked and was not."""
    items = record[key]
    n = len(items)
    stopped = record.get(f"{key}_stopped_by")
    if stopped is None and not record.get(f"{key}_complete", True):
        stopped = "max_count"
    head = {None: f"{n}",
            "max_count": f"{n} listed; more exist; raise --max-count",
            "time_limit": f"{n} found before the time limit; more may exist; raise "
                          "--time-limit",
            "interrupted": f"{n} found before the interruption; more may exist"}[stopped]
    why = "interrupted" if stopped == "interrupted" else "time limit"
    unverified = [not e.get("verified", False) for e in items] if verify else [False] * n
    if any(unverified):
        head += f"; {sum(unverified)} not verified ({why})"
    lines = [f"  {title} ({head}):"]
    lines += [f"    - {e['rule']}"
              + (f"  [not verified: {why}]" if bad else "")
              for e, bad in zip(items, unverified, strict=True)]
    return lines


def format_text(record: dict, model: Model, label: str, all_cxps: bool,
                verify: bool = False) -> list[str]:
    """Readable lines of one :func:`explain_one` record; a partial
    record (``"interrupted"``) shows what it holds. With ``verify`` (the explanations were
    to be re-checked), explanations whose check did not run are marked."""
    interrupted = " (interrupted)" if record.get("interrupted") else ""
    if "prediction" not in record:
        return [f"{label}: interrupted before its prediction"]
    pr = "path-restricted " if record.get("path_restricted") else ""
    lines = [f"{label}: predicts {_outcome(model, record['prediction'])}"
             + (f" ({_why(record)})" if "path_restricted" in record else "") + interrupted]
    if "axp" not in record:
        return lines
    axp = record["axp"]
    size = len(axp["features"])
    widened = ", inflated" if axp.get("inflated") else ""
    lines.append(f"  {pr}AXp ({size} feature{'' if size == 1 else 's'}{widened}): "
                 f"{axp['rule']}")
    if "axps" in record:
        lines += _listing(record, "axps", f"all {pr}AXps", verify)
    if "cxps" not in record:
        return lines
    cxps = record["cxps"]
    if all_cxps and (cxps or not record.get("cxps_complete", True)):
        lines += _listing(record, "cxps", f"all {pr}CXps", verify)
    elif not cxps:
        lines.append(f"  {pr}CXp: none (no change of features changes the prediction)")
    else:
        lines.append(f"  {pr}CXp: {cxps[0]['rule']}")
    return lines


def _validate_rows(model: Model, frame: pd.DataFrame, positions: Sequence[int]) -> None:
    """Check every selected row once, before any output; name the first bad row."""
    try:
        model.encode(frame.iloc[list(positions)])
    except InstanceError:
        for pos in positions:
            try:  # the same vectorised reading as above, one row at a time
                model.encode(frame.iloc[[pos]])
            except XdtError as e:
                raise DataError(f"row {pos}: {e}") from None
        raise


@main.command(short_help="Explain a saved model's predictions: AXps and CXps.")
@click.argument("model_path", metavar="MODEL.json", type=click.Path(dir_okay=False))
@click.option("--instance", "-i", metavar="JSON",
              help="One instance: a JSON object of feature -> value, or @file.json.")
@click.option("--data", "-d", metavar="DATA.csv", type=click.Path(dir_okay=False),
              help="Explain rows of a CSV file (columns by feature name; others ignored).")
@click.option("--rows", "-r", metavar="A:B",
              help="With --data: row positions as a python slice, e.g. 0:10, 50:, -5: "
                   "(0-based, B excluded). Default: all rows.")
@click.option("--all-axps", is_flag=True, help="List every AXp (can be many).")
@click.option("--all-cxps", is_flag=True, help="List every CXp, not just one.")
@click.option("--path-restricted", is_flag=True,
              help="Explain with the literals of the instance's path (Izza et al.).")
@click.option("--inflate", is_flag=True,
              help="Widen the AXp to maximal cell sets (x in an interval, colour in a set).")
@click.option("--max-count", type=click.IntRange(min=1), metavar="N",
              help=f"With --all-axps/--all-cxps: list at most N of each per row (default "
                   f"{DEFAULT_MAX_COUNT}); the output says when more exist.")
@click.option("--time-limit", type=SecondsType(), metavar="S",
              help="With --all-axps/--all-cxps: seconds allowed to each row, for its "
                   "enumerations and the re-checking of their certificates together.")
@click.option("--engine", type=click.Choice(["auto", "path", "sat", "box"]), default="auto",
              show_default=True,
              help="path: polynomial path-walker (trees); sat: PySAT oracle (any model); "
                   "box: exact branch and bound (tree ensembles); auto: path for a tree, box "
                   "for a tree ensemble, sat for a DNF.")
@click.option("--solver", default="cadical195", show_default=True, metavar="NAME",
              help="PySAT solver of the sat engine (e.g. glucose4, minisat22).")
@click.option("--verify/--no-verify", default=True, show_default=True,
              help="Re-check every explanation's certificate with the model's predict.")
@click.option("--format", "fmt", type=click.Choice(["text", "jsonl"]), default="text",
              show_default=True, help="text: readable; jsonl: one JSON object per row.")
@click.option("--quiet", "-q", is_flag=True,
              help="No progress bar, and no counter of the explanations found.")
@click.option("--batch", is_flag=True,
              help="With --data: the batch path-walker (trees; one AXp and all CXps per row, "
                   "no certificates), written chunk by chunk to --output.")
@click.option("--output", "-o", metavar="PATH", type=click.Path(),
              help="With --batch: the JSON lines file (a directory for --output-format "
                   "parquet); with --workers/--scheduler: a directory, one file per partition.")
@click.option("--output-format", "out_fmt", type=click.Choice(["jsonl", "parquet"]),
              default="jsonl", show_default=True,
              help="Format of the --batch/--workers/--scheduler output files.")
@click.option("--chunk-rows", type=click.IntRange(min=1), metavar="N",
              help="With --batch: rows explained and written together.")
@click.option("--workers", type=click.IntRange(min=1), metavar="N",
              help="Explain on a local Dask cluster of N worker processes (needs "
                   'pip install "xdt[dask]"); implies --batch.')
@click.option("--scheduler", metavar="ADDRESS",
              help="Explain on an existing Dask cluster (e.g. tcp://host:8786); implies "
                   "--batch. --output must be on a file system the workers share.")
@click.option("--partitions", type=click.IntRange(min=1), metavar="N",
              help="With --workers/--scheduler: split the data into N partitions.")
@click.option("--skip-invalid", is_flag=True,
              help="With --batch/--workers/--scheduler: leave out the rows the model cannot "
                   "read (unknown category, missing value, text for a number), write each "
                   "with its reason to OUT.invalid.jsonl next to --output OUT[.jsonl] (or "
                   "--invalid-output), and go on. Without it, such a row stops the run.")
@click.option("--invalid-output", metavar="PATH", type=click.Path(dir_okay=False),
              help="With --skip-invalid: the JSON lines file of the skipped rows.")
@click.option("--force", is_flag=True,
              help="With --batch/--workers/--scheduler: replace an existing --output file "
                   "(or the part files of an --output folder) and skipped-rows file.")
@cli_errors
def explain(model_path: str, instance: str | None, data: str | None, rows: str | None,
            all_axps: bool, all_cxps: bool, path_restricted: bool, inflate: bool,
            max_count: int | None, time_limit: float | None, engine: str, solver: str,
            verify: bool, fmt: str, quiet: bool, batch: bool = False,
            output: str | None = None, out_fmt: str = "jsonl", chunk_rows: int | None = None,
            workers: int | None = None, scheduler: str | None = None,
            partitions: int | None = None, skip_invalid: bool = False,
            invalid_output: str | None = None, force: bool = False) -> None:
    """Explain a model's predictions: why this class (AXp), what would change it (CXp).

    The model is a decision tree, a DNF, a nested k-DNF or a tree ensemble (xdt-model/1
    JSON, e.g. written by `xdt import`); a DNF is explained by the SAT engine and a tree
    ensemble by the box engine (--engine auto picks them; --engine sat for an ensemble),
    and --path-restricted is for trees only. Give one instance with --instance, or rows
    of a CSV file with --data. For each, prints the prediction, the length of its path in
    the tree (for a DNF: the terms that hold), one AXp (a minimal set of feature values
    that alone guarantee the prediction, as a rule) and one CXp (a minimal set of features
    whose change can change the prediction, with an example); --all-cxps and
    --all-axps list all of them, at most --max-count (1000 by default) of each per row.
    --time-limit S bounds the whole wait for a row: its enumerations, the re-checking of
    their certificates and the making of their records share the S seconds. The output
    says when an enumeration was cut short, and by what. On a terminal, a counter on
    stderr shows how many have been found while a row enumerates (not with -q). Every
    explanation carries a certificate (witness points, and the proof of entailment) that
    is re-checked against the model's own predictions before it is printed (--no-verify
    skips this); jsonl output includes it (an AXp's witness points as their "changes"
    from the certificate's "instance"),
    with "verified" per explanation. An explanation whose check the time limit cut
    off is printed marked "not verified: time limit". Ctrl-C prints the rows done and
    what the interrupted row had found (marked incomplete), and exits with code 130. Only
    empty CSV cells are missing values ("NA", "None" are values). Text output shows each
    threshold as the shortest decimal that puts every value the model compares on the
    same side (scikit-learn's float32 test 17.500000953674316 as 17.5); --format jsonl
    keeps exact values. Row numbers are 0-based positions in the CSV.

    \b
    Examples:
      xdt explain model.json --instance '{"x": 0.9, "y": 0.2}'
      xdt explain model.json --instance @instance.json --all-axps --all-cxps
      xdt explain model.json --data german.csv --rows 0:10
      xdt explain model.json --data german.csv --format jsonl > explanations.jsonl
      xdt explain model.json --data german.csv --rows 0:5 --engine sat --inflate

    Large tables (decision trees): --batch runs the vectorised batch path-walker (one AXp,
    the one of the per-row engine, and all CXps per row; no certificates) and writes one JSON
    object per row to --output as each chunk is done; --workers N runs it on a local Dask
    cluster of N processes, --scheduler ADDRESS on an existing one, writing one file per
    partition into the --output directory. Ctrl-C stops cleanly: the rows written so far
    are complete, and their number is printed. A row the model cannot read stops the run
    with a message naming it and what was written; --skip-invalid writes such rows to a
    side file instead and goes on. An existing --output is replaced only with --force.

    \b
      xdt explain model.json --data big.csv --batch --output explanations.jsonl
      xdt explain model.json --data 'big-*.csv' --workers 4 --output explanations/
    """
    from xdt.explain import Explainer
    from xdt.explain.models import kind_name
    from xdt.ir.tree import DecisionTree

    if (instance is None) == (data is None):
        raise click.UsageError("give exactly one of --instance JSON or --data DATA.csv")
    if batch or workers is not None or scheduler is not None:
        _explain_batch_cli(model_path, data, rows, output, out_fmt, chunk_rows, workers,
                           scheduler, partitions, quiet,
                           {"--all-axps": all_axps, "--path-restricted": path_restricted,
                            "--inflate": inflate, "--max-count": max_count is not None,
                            "--time-limit": time_limit is not None,
                            "--engine sat": engine == "sat"},
                           skip_invalid=skip_invalid, invalid_output=invalid_output,
                           force=force)
        return
    batch_only = [name for name, v in (("--output", output), ("--chunk-rows", chunk_rows),
                                       ("--partitions", partitions),
                                       ("--skip-invalid", skip_invalid or None),
                                       ("--invalid-output", invalid_output),
                                       ("--force", force or None)) if v is not None]
    if batch_only:
        raise click.UsageError(f"{', '.join(batch_only)}: only with --batch, --workers or "
                               "--scheduler")
    if rows is not None and data is None:
        raise click.UsageError("--rows selects rows of --data; it needs --data DATA.csv")
    if max_count is None:
        max_count = DEFAULT_MAX_COUNT
    model = xdt.load_model(model_path)
    if not isinstance(model, DecisionTree):
        kind = kind_name(model)
        if engine == "path":
            other = "box or --engine sat" if kind == "tree ensemble" else "sat"
            raise click.UsageError(
                f"--engine path walks the paths of a decision tree, and {model_path} is a "
                f"{kind}: use --engine {other} (or leave --engine out: auto picks one)")
        if path_restricted:
            raise click.UsageError(
                f"--path-restricted draws explanations from the instance's path in a decision "
                f"tree, and {model_path} is a {kind}, which has no paths: leave it out")
    if engine == "box" and kind_name(model) != "tree ensemble":
        raise click.UsageError(
            f"--engine box explains tree ensembles, and {model_path} is a {kind_name(model)}: "
            "use --engine path or sat (or leave --engine out: auto picks one)")
    with Explainer(model, engine=None if engine == "auto" else engine,
                   solver=solver) as explainer:
        _explain_all(explainer, model, instance, data, rows, fmt, quiet,
                     {"all_axps": all_axps, "all_cxps": all_cxps,
                      "path_restricted": path_restricted, "inflate": inflate, "verify": verify,
                      "max_count": max_count, "time_limit": time_limit})


def _explain_batch_cli(model_path: str, data: str | None, rows: str | None,
                       output: str | None, out_fmt: str, chunk_rows: int | None,
                       workers: int | None, scheduler: str | None, partitions: int | None,
                       quiet: bool, unsupported: dict[str, bool], *,
                       skip_invalid: bool = False, invalid_output: str | None = None,
                       force: bool = False) -> None:
    """``xdt explain --batch / --workers / --scheduler``: see :mod:`xdt.batch`."""
    from xdt import batch as xb
    from xdt.errors import InvalidRowError, OutputExistsError
    from xdt.explain.models import kind_name
    from xdt.ir.instances import as_frame
    from xdt.ir.tree import DecisionTree

    if data is None:
        raise click.UsageError("--batch, --workers and --scheduler explain rows of --data "
                               "DATA.csv, not --instance")
    if workers is not None and scheduler is not None:
        raise click.UsageError("give at most one of --workers N and --scheduler ADDRESS")
    bad = [name for name, on in unsupported.items() if on]
    if bad:
        raise click.UsageError(f"{', '.join(bad)} cannot be used with --batch/--workers/"
                               "--scheduler (the batch path-walker gives one AXp and all "
                               "CXps per row of a tree); leave them out")
    if output is None:
        raise click.UsageError("--batch, --workers and --scheduler need --output PATH")
    if output == "-":
        raise click.UsageError("--batch, --workers and --scheduler write files, not standard "
                               "output: give --output a file (out.jsonl) or folder (out/) path")
    if invalid_output is not None and not skip_invalid:
        raise click.UsageError("--invalid-output names the file of the rows --skip-invalid "
                               "leaves out; add --skip-invalid, or leave it out")
    distributed = workers is not None or scheduler is not None
    if distributed and rows is not None:
        raise click.UsageError("--rows is not available with --workers/--scheduler")
    if distributed and chunk_rows is not None:
        raise click.UsageError("--chunk-rows is for --batch; use --partitions with "
                               "--workers/--scheduler")
    if not distributed and partitions is not None:
        raise click.UsageError("--partitions goes with --workers or --scheduler")
    model = xdt.load_model(model_path)
    if not isinstance(model, DecisionTree):
        raise click.UsageError(f"the batch path-walker explains decision trees, and "
                               f"{model_path} is a {kind_name(model)}: leave out --batch, "
                               "--workers and --scheduler (the SAT engine explains it)")
    on_invalid = "skip" if skip_invalid else "raise"
    side = (Path(invalid_output) if invalid_output is not None
            else xb.default_invalid_output(output)) if skip_invalid else None
    try:  # before reading the data or starting a cluster
        xb.check_output(output, directory=distributed or out_fmt == "parquet",
                        overwrite=force, invalid_output=side)
        if distributed:
            summary = _explain_on_dask(model, data, output, out_fmt, workers, scheduler,
                                       partitions, quiet, on_invalid=on_invalid,
                                       invalid_output=side, force=force)
        else:
            frame = as_frame(model.features, read_csv(data, dtype=_csv_dtypes(model)))
            positions = parse_rows(rows, len(frame)) if rows is not None else range(len(frame))
            selected = frame.iloc[list(positions)] if rows is not None else frame
            summary = xb.explain_table(model, selected, output=output, fmt=out_fmt,
                                       progress=not quiet and _stderr_is_terminal(),
                                       chunk_rows=chunk_rows or xb.DEFAULT_CHUNK_ROWS,
                                       on_invalid=on_invalid, invalid_output=side,
                                       overwrite=force)
    except xb.BatchInterrupted as e:
        click.echo(_interrupted_text(e, output, distributed, remote=scheduler is not None),
                   err=True)
        raise SystemExit(130) from None
    except KeyboardInterrupt:
        click.echo("interrupted: 0 rows written", err=True)
        raise SystemExit(130) from None
    except InvalidRowError as e:
        raise click.ClickException(f"{e.detail}; fix the row, or rerun with --skip-invalid "
                                   "to leave such rows out") from None
    except OutputExistsError as e:
        raise click.ClickException(f"{e.detail}; use --force to replace it, or choose "
                                   "another path") from None
    assert isinstance(summary, xb.BatchSummary)
    where = output if len(summary.outputs) != 1 else summary.outputs[0]
    n_files, n_parts = len(summary.outputs), summary.partitions
    unit = "partition" if distributed else "chunk"
    skipped = (f"; skipped {summary.skipped} invalid row{'' if summary.skipped == 1 else 's'}"
               f", written with the reasons to {summary.invalid_output}"
               if summary.skipped else "")
    click.echo(f"wrote {summary.rows} rows to {where} ({n_files} file"
               f"{'' if n_files == 1 else 's'}, {n_parts} {unit}"
               f"{'' if n_parts == 1 else 's'}) in {summary.seconds:.2f} s{skipped}", err=True)


def _interrupted_text(e: Any, output: str, distributed: bool, remote: bool) -> str:
    """What an interrupted batch run (``xdt.batch.BatchInterrupted``) wrote."""
    from xdt import batch as xb

    text = f"interrupted: {e.rows} rows written (complete records) to "
    if not distributed:
        text += ", ".join(e.outputs) or output
    elif e.partitions:
        text += (f"{output}: {xb.describe_partitions(e.partitions)} of {e.total} "
                 f"({xb.describe_files(e.outputs)}); the others wrote no file")
    else:
        text += f"{output}: no partition file was written"
    if remote:
        text += " (partitions running on the cluster may still write theirs)"
    if e.skipped:
        text += f"; {e.skipped} invalid row{'' if e.skipped == 1 else 's'} skipped, in " \
                f"{e.invalid_output}"
    return text


def _explain_on_dask(model: DecisionTree, data: str, output: str, out_fmt: str,
                     workers: int | None, scheduler: str | None, partitions: int | None,
                     quiet: bool, *, on_invalid: str = "raise",
                     invalid_output: Path | None = None, force: bool = False) -> Any:
    """Run :func:`xdt.batch.explain_dask` on a local cluster of ``workers`` processes or on
    the cluster at ``scheduler``, with distributed's logs silenced (only xdt's messages
    reach the terminal). Interrupted, a local cluster is closed (its workers stopped) and
    the partition files on disk are what is reported."""
    from xdt import batch as xb

    _, distributed = xb.require_dask()
    try:
        with contextlib.ExitStack() as stack:
            if workers is not None:
                client = stack.enter_context(xb.local_cluster(workers))
            else:
                stack.enter_context(xb.quiet_dask_logs())
                try:
                    client = stack.enter_context(distributed.Client(scheduler, timeout="10s"))
                except OSError as e:
                    raise click.ClickException(f"cannot reach the Dask scheduler at "
                                               f"{scheduler!r} ({e})") from None
                except (ValueError, TypeError) as e:  # distributed's address parser
                    raise click.BadParameter(
                        f"{scheduler!r} is not a scheduler address ({e}); write it as "
                        "tcp://HOST:PORT, e.g. tcp://10.0.0.5:8786",
                        param_hint="'--scheduler'") from None
            return xb.explain_dask(model, data, client=client, output=output, fmt=out_fmt,
                                   npartitions=partitions,
                                   progress=not quiet and _stderr_is_terminal(),
                                   on_invalid=on_invalid, invalid_output=invalid_output,
                                   overwrite=force)
    except xb.BatchInterrupted as e:
        if workers is None:
            raise
        done = xb.written_partitions(output, out_fmt)
        raise xb.BatchInterrupted(sum(r for _, _, r in done), [p for _, p, _ in done],
                                  partitions=[k for k, _, _ in done], total=e.total,
                                  skipped=e.skipped, invalid_output=e.invalid_output) from None


def _explain_all(explainer: Explainer, model: Model, instance: str | None,
                 data: str | None, rows: str | None, fmt: str, quiet: bool,
                 options: dict) -> None:
    """Explain ``--instance`` or the selected rows, printing each record as it is done.

    While a row enumerates, a counter of the explanations found so far is drawn on a
    terminal's standard error (not with ``quiet``). On Ctrl-C, the interrupted row is
    printed with what it holds, marked incomplete, then how many rows were done; the exit
    code is 130."""
    from xdt.ir.instances import as_frame

    all_cxps, verify = options["all_cxps"], options["verify"]

    def show(record: dict, label: str, row: int | None, emit: Callable[[str], None]) -> None:
        if fmt == "jsonl":
            emit(json.dumps({"row": row, **record}, ensure_ascii=False))
        else:
            emit("\n".join(format_text(record, model, label, all_cxps, verify)))

    single = instance is not None
    if single:
        xs: list = [parse_instance(instance)]
        positions: Sequence[int] = [0]
    else:
        assert data is not None
        frame = as_frame(model.features, read_csv(data, dtype=_csv_dtypes(model)))
        positions = parse_rows(rows, len(frame)) if rows is not None else range(len(frame))
        _validate_rows(model, frame, positions)
        xs = frame.to_dict("records")

    def label_of(pos: int) -> str:
        return "instance" if single else f"row {pos}"

    counter = _FoundCounter(not quiet and _stderr_is_terminal(), options["max_count"])
    steps = _progress(positions, not quiet and _stderr_is_terminal()
                      and len(positions) > PROGRESS_MIN_ROWS)
    done = 0
    try:
        for pos, line in steps:
            counter.label = label_of(pos)
            try:
                record = explain_one(explainer, xs[pos], on_found=counter,
                                     certificates=fmt == "jsonl", **options)
            except XdtError as e:
                if single:
                    raise
                raise DataError(f"row {pos}: {e}") from None
            finally:
                counter.close()
            show(record, label_of(pos), None if single else pos, line)
            done += 1
    except KeyboardInterrupt as e:
        counter.close()
        steps.close()  # clears the rows' progress bar
        total = len(positions)
        where = f"{done} of {total} row{'' if total == 1 else 's'} explained"
        if isinstance(e, ExplainInterrupted):
            pos = positions[done]
            show(e.record, label_of(pos), None if single else pos, click.echo)
            where += f"; {label_of(pos)} is incomplete (what it had found is shown)"
        click.echo(f"interrupted: {where}", err=True)
        raise SystemExit(130) from None


def _stderr_is_terminal() -> bool:
    """Whether standard error is a terminal (where a live counter makes sense)."""
    return bool(getattr(sys.stderr, "isatty", lambda: False)())


class _FoundCounter:
    """``on_found(kind, count)`` for :func:`explain_one`: a tqdm counter on standard error
    of the explanations one enumeration of the current row (``label``) has found so far,
    out of ``total`` (the cap, when there is one). Does nothing unless ``show``."""

    def __init__(self, show: bool, total: int | None):
        self.show = show
        self.total = total
        self.label = ""
        self._bar: Any = None
        self._kind: str | None = None

    def __call__(self, kind: str, count: int) -> None:
        if not self.show:
            return
        if self._bar is None or kind != self._kind:
            self.close()
            from tqdm import tqdm

            self._bar = tqdm(desc=f"{self.label}: {kind}s found", unit=f" {kind}",
                             total=self.total, initial=count, file=sys.stderr,
                             dynamic_ncols=True, leave=False)
            self._kind = kind
        else:
            self._bar.update(count - self._bar.n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar, self._kind = None, None


def _progress(positions: Sequence[int], show: bool
              ) -> Generator[tuple[int, Callable[[str], None]], None, None]:
    """Yield ``(position, emit)``, where ``emit`` writes text to standard output.

    With ``show``, a progress bar is drawn on standard error; when standard output is a
    terminal too, ``emit`` clears and redraws the bar around each write so the two do not
    garble each other (redirected output is written as is).
    """
    if not show:
        for pos in positions:
            yield pos, click.echo
        return
    from tqdm import tqdm

    with tqdm(total=len(positions), desc="explaining", unit="row", file=sys.stderr,
              dynamic_ncols=True, leave=False) as bar:
        out = sys.stdout
        interleave = out.isatty() if hasattr(out, "isatty") else False

        def emit(text: str) -> None:
            if interleave:
                bar.write(text, file=out)
            else:
                click.echo(text)

        for pos in positions:
            yield pos, emit
            bar.update(1)


# ---------------------------------------------------------------------- xdt encode
@main.command(short_help="Write the SAT query of one instance as DIMACS CNF.")
@click.argument("model_path", metavar="MODEL.json", type=click.Path(dir_okay=False))
@click.option("--instance", "-i", required=True, metavar="JSON",
              help="The instance: a JSON object of feature -> value, or @file.json.")
@click.option("--output", "-o", required=True, metavar="OUT.cnf",
              type=click.Path(dir_okay=False, writable=True, allow_dash=True),
              help="Where to write the CNF; '-' for standard output.")
@click.option("--path-restricted", is_flag=True,
              help="Selectors hold each feature of the instance's path to the path's "
                   "literal (Izza et al.); only the path's features are candidates.")
@cli_errors
def encode(model_path: str, instance: str, output: str, path_restricted: bool) -> None:
    """Write the CNF of the SAT engine's query for one instance, for any SAT solver.

    The model is a decision tree, a DNF, a nested k-DNF or a voting tree ensemble
    (--path-restricted: trees only); an ensemble of summed probabilities or margins has
    no exact CNF: write its MaxSAT query with xdt.explain.dimacs.write_wcnf.
    The formula holds for the points the model classifies differently from the instance,
    with one selector variable per feature: assuming it fixes the feature to the instance's
    value. With all selectors assumed (as unit clauses) it is UNSAT. A set S of features is
    a weak AXp (fixing S alone entails the prediction) exactly when the formula plus the
    unit clauses of S's selectors is UNSAT; when SAT, the model is a counterexample point.
    Comment lines name every variable (feature = value, x > threshold, selector of F, term
    p holds, auxiliary) and list the selectors as JSON (`c selectors {...}`).

    \b
    Examples:
      xdt encode model.json --instance '{"x": 0.9, "y": 0.2}' -o query.cnf
      xdt encode model.json -i @instance.json --path-restricted -o - | grep '^c selectors'
    """
    from xdt.explain.dimacs import encode_query
    from xdt.explain.models import kind_name
    from xdt.ir.tree import DecisionTree
    from xdt.outputs import check_output_file, write_output_file

    if output != "-":
        check_output_file(output)
    model = xdt.load_model(model_path)
    if path_restricted and not isinstance(model, DecisionTree):
        raise click.UsageError(
            f"--path-restricted holds features to the instance's path in a decision tree, and "
            f"{model_path} is a {kind_name(model)}, which has no paths: leave it out")
    query = encode_query(model, parse_instance(instance), path_restricted=path_restricted,
                         source=model_path)
    text = query.to_text()
    if output == "-":
        click.echo(text, nl=False)
        return
    write_output_file(output, lambda path: path.write_text(text, encoding="utf-8"))
    selectors = " ".join(f"{name}={v}" for name, v in query.selectors.items())
    click.echo(f"wrote {output}: {query.n_vars} variables, {len(query.clauses)} clauses; "
               f"prediction {_outcome(model, query.prediction)}")
    click.echo(f"selectors: {selectors}")
    click.echo("all selectors as unit clauses: UNSAT; the selectors of a set S: UNSAT exactly "
               "when S is a weak AXp")


# ---------------------------------------------------------------------- xdt crosscheck
@main.command(short_help="Cross-check the path engine against the SAT engine on data.")
@click.argument("model_path", metavar="MODEL.json", type=click.Path(dir_okay=False))
@click.option("--data", "-d", required=True, metavar="DATA.csv",
              type=click.Path(dir_okay=False),
              help="Rows to check (columns by feature name; others ignored).")
@click.option("--rows", "-r", metavar="A:B",
              help="Row positions as a python slice, e.g. 0:100 (0-based, B excluded). "
                   "Default: all rows.")
@click.option("--path-restricted", is_flag=True,
              help="Compare path-restricted explanations (Izza et al.).")
@click.option("--no-enumerate", "no_enumerate", is_flag=True,
              help="Skip the comparison of all AXps and all CXps (the costly part).")
@click.option("--solver", default="cadical195", show_default=True, metavar="NAME",
              help="PySAT solver of the SAT engine, e.g. glucose4.")
@click.option("--time-limit", type=SecondsType(), metavar="S",
              help="Seconds allowed to each enumeration; rows it stops are not compared.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="text: readable summary; json: the whole report.")
@click.option("--quiet", "-q", is_flag=True,
              help="No progress bar (one is drawn only when standard error is a terminal).")
@click.pass_context
@cli_errors
def crosscheck(ctx: click.Context, model_path: str, data: str, rows: str | None,
               path_restricted: bool, no_enumerate: bool, solver: str,
               time_limit: float | None, fmt: str, quiet: bool) -> None:
    """Check that the two explanation engines agree on every row of a CSV file.

    Runs the path engine (the polynomial path-walker) and the SAT engine (PySAT) on each
    row and checks that each engine's AXp is an AXp for the other, each one's CXp a CXp for
    the other, that they find the same sets of all AXps and all CXps, and agree on whether
    the row's path is redundant. Prints the agreements per check, the time per row of each
    engine, and every disagreement with both answers and a counterexample point checked
    with the model's own prediction. Row numbers are 0-based positions in the CSV.

    A tree ensemble has no path engine: its SAT engine is checked against brute force over
    the cell space when that is small, else against points sampled around each AXp and
    CXp and predicted by the model (and the library, for an imported model).

    Exit code: 0 when the engines agree everywhere, 1 when there is any disagreement
    (or an error, with its message on stderr). Ctrl-C prints the report of the rows checked
    so far, saying after how many of how many rows it was interrupted, and exits with 130.

    \b
    Examples:
      xdt crosscheck model.json --data german.csv
      xdt crosscheck model.json --data german.csv --rows 0:200 --path-restricted
      xdt crosscheck model.json --data german.csv --no-enumerate --format json > report.json
    """
    from xdt.crosscheck import crosscheck as run_crosscheck
    from xdt.ir.ensemble import TreeEnsemble
    from xdt.ir.instances import as_frame
    from xdt.ir.tree import DecisionTree

    model = xdt.load_model(model_path)
    if not isinstance(model, DecisionTree | TreeEnsemble):
        from xdt.crosscheck import dnf_message

        raise click.ClickException(
            f"{model_path}: {dnf_message(model)}; e.g. xdt explain {model_path} --data "
            f"{data} (certificates are re-checked unless --no-verify)")
    frame = as_frame(model.features, read_csv(data, dtype=_csv_dtypes(model)))
    positions = parse_rows(rows, len(frame)) if rows is not None else range(len(frame))
    _validate_rows(model, frame, positions)
    from xdt.crosscheck import CrosscheckInterrupted

    try:
        report = run_crosscheck(model, frame.iloc[list(positions)],
                                path_restricted=path_restricted, enumerate=not no_enumerate,
                                solver=solver, time_limit=time_limit,
                                progress=not quiet and _stderr_is_terminal()
                                and len(positions) > PROGRESS_MIN_ROWS)
    except CrosscheckInterrupted as e:  # Ctrl-C: the rows checked in full so far
        report = e.report
    report.model = f"{model_path}: {report.model}"
    if fmt == "json":
        click.echo(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
    else:
        click.echo(report.summary())
    if report.interrupted:
        click.echo(f"interrupted: {report.rows} of {report.requested} rows checked", err=True)
        raise SystemExit(130)
    if not report.ok:
        ctx.exit(1)


# ---------------------------------------------------------------------- xdt redundancy
def path_rule(model: DecisionTree, path_index: int, features: Sequence[str]) -> str:
    """``IF a = 1 AND x <= 2 THEN class = yes``: the literals of path ``path_index`` on
    ``features`` (names, in the given order), then the path's leaf class."""
    from xdt.ir.values import to_python

    path = model.paths[path_index]
    names = model.features.names
    lits = [model.cells[f].describe(path.masks[f])
            for f in (names.index(n) for n in features)]
    head = f"IF {' AND '.join(lits)} THEN " if lits else "ALWAYS "
    return head + _outcome(model, to_python(path.label))


@main.command(short_help="Which paths of a tree are explanation-redundant.")
@click.argument("model_path", metavar="MODEL.json", type=click.Path(dir_okay=False))
@click.option("--data", "-d", metavar="DATA.csv", type=click.Path(dir_okay=False),
              help="Rows for %C_data (and %A with --target); columns by feature name.")
@click.option("--target", "-t", metavar="COL",
              help="With --data: the column of true labels, for the accuracy %A on those "
                   "rows (default: the model's target, when the file has that column).")
@click.option("--per-path", is_flag=True,
              help="List every path: redundant or not, its rule and a PI-explanation.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="text: readable; json: the report as one object.")
@cli_errors
def redundancy(model_path: str, data: str | None, target: str | None, per_path: bool,
               fmt: str) -> None:
    """Report the explanation-redundancy of a decision tree's paths.

    A path is redundant when some of its tests can be dropped and the rest still guarantee
    the leaf's class, i.e. it is not a PI-explanation (Izza, Ignatiev & Marques-Silva, "On
    Explaining Decision Trees"; linear-time check per path). Prints the columns of the
    paper's Table 1: depth D, nodes #N, accuracy %A on the --data rows (labels from
    --target, or the model's target column; the paper's test accuracy when they are test
    rows), paths #P, redundant paths %R, feature
    space covered by redundant paths %C (all-categorical trees only: each point of the
    product of the domains counts once), the share of the --data rows on redundant paths
    %C_data, and min/max/mean share of redundant literals of the redundant paths %m, %M,
    %avg. Rows whose label is not a class of the model count as wrongly predicted.
    --per-path lists each path with its rule and, for redundant ones, one PI-explanation
    (the path's rule with the redundant tests dropped).

    \b
    Examples:
      xdt redundancy model.json
      xdt redundancy model.json --data test.csv --target class
      xdt redundancy model.json --per-path --format json > redundancy.json
    """
    from xdt.explain.models import kind_name
    from xdt.ir.instances import as_frame
    from xdt.ir.tree import DecisionTree
    from xdt.metrics import redundancy_report

    if target is not None and data is None:
        raise click.UsageError("--target names a column of --data; it needs --data DATA.csv")
    model = xdt.load_model(model_path)
    if not isinstance(model, DecisionTree):
        kind = kind_name(model)
        why = (" (each AXp lies inside a true term of the DNF, or of its complement)"
               if "DNF" in kind else "")
        raise click.ClickException(
            f"{model_path}: path redundancy (Izza et al.) is defined for the paths of "
            f"decision trees, and this model is a {kind}; its explanations come "
            f"from `xdt explain {model_path} --instance ...`{why}")
    X = y = None
    if data is not None:
        # without --target, the model's own target column, when the file has it
        label = target if target is not None else getattr(model, "target", None)
        dtype = _csv_dtypes(model)
        if label is not None and all(isinstance(c, str) for c in model.classes):
            dtype[label] = str
        frame = read_csv(data, dtype=dtype)
        if target is not None and target not in frame.columns:
            raise click.UsageError(
                f"target column {target!r} is not in {data}; its columns are: "
                f"{', '.join(map(str, frame.columns))}")
        X = as_frame(model.features, frame)
        _validate_rows(model, X, range(len(X)))
        if label is not None and label in frame.columns:
            y = frame[label].tolist()
            if not set(model.classes) & set(y):
                click.echo(f"warning: no label of column {label!r} is a class of the model "
                           f"({', '.join(map(str, model.classes))}), so every row counts as "
                           "wrongly predicted; is it the target column?", err=True)
    report = redundancy_report(model, X, y, data=data)
    rules = {r.path: (path_rule(model, r.path, r.features),
                      path_rule(model, r.path, r.pi_explanation)) for r in report.per_path}
    if fmt == "json":
        out = {"model": model_path, **report.to_dict(per_path=per_path)}
        for entry in out.get("paths", []):
            entry["rule"], entry["pi_rule"] = rules[entry["path"]]
        click.echo(json.dumps(out, indent=2, ensure_ascii=False))
        return
    click.echo(f"{model_path}: tree of {describe_features(model)}")
    click.echo(str(report))
    if per_path:
        click.echo("paths:")
        for r in report.per_path:
            rule, pi = rules[r.path]
            if r.redundant:
                click.echo(f"  path {r.path}: redundant ({r.redundant_literals} of "
                           f"{r.n_literals} literals)")
                click.echo(f"    rule: {rule}")
                click.echo(f"    PI-explanation: {pi}")
            else:
                click.echo(f"  path {r.path}: not redundant (a PI-explanation)")
                click.echo(f"    rule: {rule}")


# ---------------------------------------------------------------------- xdt cluster
def _positive_label(values: pd.Series, positive: str, target: str) -> object:
    """The value of ``values`` whose text is ``positive`` (CSV labels are read as numbers or
    text; the option is text)."""
    import pandas as pd

    seen = list(pd.unique(values.dropna()))
    for v in seen:
        if str(v) == positive or (isinstance(v, float) and v.is_integer()
                                  and str(int(v)) == positive):
            return v
    shown = ", ".join(map(str, seen[:20])) + (", ..." if len(seen) > 20 else "")
    raise DataError(f"target class {positive!r} is not a value of column {target!r}; its "
                    f"values are: {shown}")


def format_cluster_table(frame: pd.DataFrame) -> list[str]:
    """The clusters as aligned text: numbers right-aligned, the rule last."""
    import pandas as pd

    stab = "stability" in frame.columns
    head = ["rank", "precision", "recall", "F-beta", "size", "coverage"] + (
        ["stability"] if stab else []) + ["rule"]
    rows = []
    for r in frame.itertuples(index=False):
        cells = [str(r.rank), f"{r.precision:.3f}", f"{r.recall:.3f}", f"{r.f_beta:.3f}",
                 str(r.size), f"{100 * r.coverage:.1f}%"]
        if stab:
            cells.append("-" if r.stability is None or pd.isna(r.stability)
                         else f"{r.stability:.3f}")
        cells.append(r.rule)
        rows.append(cells)
    widths = [max(len(x[i]) for x in [head] + rows) for i in range(len(head) - 1)]
    return ["  " + "  ".join(c.rjust(w) for c, w in zip(line[:-1], widths, strict=True))
            + "  " + line[-1] for line in [head] + rows]


@main.command(short_help="Supervised clusters of one class: short rules, ranked by F-beta.")
@click.argument("data", metavar="DATA.csv", type=click.Path(dir_okay=False))
@click.option("--target", "-t", required=True, metavar="COL", help="The class column.")
@click.option("--positive", "-p", required=True, metavar="VALUE",
              help="The class whose rows are clustered (a value of --target).")
@click.option("--beta", "-b", default=1.0, show_default=True, type=float, metavar="B",
              help="F-beta's beta (> 0): recall weighs B times as much as precision; "
                   "below 1 favours purer clusters (the paper also uses 0.33).")
@click.option("--clusters", "-k", "n_clusters", default=3, show_default=True,
              type=click.IntRange(min=1), metavar="N", help="Most clusters to extract.")
@click.option("--max-depth", default=3, show_default=True, type=click.IntRange(min=1),
              metavar="D", help="Depth of each decision tree.")
@click.option("--strategy", type=click.Choice(["retrain", "single-tree"]), default="retrain",
              show_default=True,
              help="retrain: remove the best node's rows and retrain (the paper's choice); "
                   "single-tree: best non-nested nodes of one tree.")
@click.option("--reorder", is_flag=True,
              help="Order each categorical column's values by their rate of the class, so "
                   "one test selects a set of values (symbolic reordering).")
@click.option("--bins", default=100, show_default=True, type=click.IntRange(min=1),
              metavar="N", help="Percentile bins of numeric columns (preprocessor).")
@click.option("--categorical", metavar="COL1,COL2", callback=_split_names,
              help="Integer-coded columns to treat as categorical (rules x = v, x in {...}; "
                   "string columns always are).")
@click.option("--stability", "n_stability", default=0, show_default=True,
              type=click.IntRange(min=0), metavar="N",
              help="Estimate each cluster's stability on N subsamples of 80% (0: no).")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0, 2**32 - 1),
              metavar="S", help="Random seed of the stability subsamples.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="text: aligned table; json: one JSON object.")
@cli_errors
def cluster(data: str, target: str, positive: str, beta: float, n_clusters: int,
            max_depth: int, strategy: str, reorder: bool, bins: int, categorical: list[str],
            n_stability: int, seed: int, fmt: str) -> None:
    """Describe the rows of one class by a few readable rules (supervised clusters).

    The method of "Using Decision Trees for Interpretable Supervised Clustering": trains a
    shallow CART tree, ranks every node (internal ones too) by the F-beta score of its rows
    against the class, keeps the best node's path as a rule, removes its rows and retrains
    (--strategy retrain), up to N clusters. Columns go through xdt's preprocessor
    (xdt.learn.preprocess: percentile bins, id-like columns dropped, missing values as a
    category or bin; with --reorder, symbolic reordering; --categorical names integer-coded
    categories), so rules read in the original values. Precision, recall (against all rows
    of the class), F-beta, size and coverage are measured on the whole file; --stability N
    adds the bagging stability score (mean best Jaccard overlap with the clusters of N
    subsamples). A file whose rows are all of the class is refused: there is nothing to
    separate.

    \b
    Examples:
      xdt cluster titanic.csv --target Survived --positive 1
      xdt cluster titanic.csv -t Survived -p 1 --categorical Pclass
      xdt cluster adult.csv --target income --positive '>50K' --reorder --beta 0.33
      xdt cluster titanic.csv -t Survived -p 1 --clusters 5 --stability 20 --format json
    """
    import time as _time

    from xdt.cluster import SupervisedClusters
    from xdt.ir.values import to_python

    frame = read_csv(data)
    if target not in frame.columns:
        raise click.UsageError(
            f"target column {target!r} is not in {data}; its columns are: "
            f"{', '.join(map(str, frame.columns))}")
    unknown = [c for c in categorical if c not in frame.columns or c == target]
    if unknown:
        what = ("is the target column" if unknown[0] == target
                else f"is not a column of {data}; its columns are: "
                     f"{', '.join(map(str, frame.columns))}")
        raise click.BadParameter(f"{unknown[0]!r} {what}", param_hint="'--categorical'")
    label = _positive_label(frame[target], positive, target)
    if frame[target].isna().any():
        raise DataError(f"column {target!r} has {int(frame[target].isna().sum())} empty "
                        "cell(s); every row needs a class: drop them first")
    X = frame.drop(columns=[target])
    y = frame[target]
    try:
        from xdt.learn.preprocess import Preprocessor
    except ImportError:  # pragma: no cover - the preprocessor ships with xdt
        Preprocessor = None  # noqa: N806
    pre = None
    if Preprocessor is not None:
        pre = Preprocessor(n_bins=bins, reorder=reorder, positive=1 if reorder else None,
                           categorical=categorical or None)
    else:
        missing = [str(c) for c in X.columns if X[c].isna().any()]
        if missing:
            raise DataError(f"column(s) {', '.join(missing)} have empty cells; fill or drop "
                            "them (xdt's preprocessor, which treats them, is not available)")
    sc = SupervisedClusters(label, n_clusters=n_clusters, beta=beta, max_depth=max_depth,
                            strategy=strategy, reorder=reorder, preprocessor=pre)
    start = _time.perf_counter()
    sc.fit(X, y)
    elapsed = _time.perf_counter() - start
    score = None
    if n_stability:
        start = _time.perf_counter()
        score = sc.stability(X, y, n_samples=n_stability, random_state=seed)
        elapsed_stab = _time.perf_counter() - start
    dropped = {}
    view = sc.clusters_[0]._view if sc.clusters_ else getattr(sc, "_shared_view", None)
    if hasattr(view, "pre"):
        dropped = dict(getattr(view.pre, "dropped_", {}))
    n_target = sc.n_target_
    if fmt == "json":
        doc = {"data": data, "rows": len(frame), "target": target, "positive": to_python(label),
               "n_target": n_target, "beta": beta, "max_depth": max_depth,
               "strategy": strategy, "reorder": reorder, "bins": bins,
               "dropped_columns": dropped,
               "clusters": [c.to_dict() for c in sc.clusters_],
               "stability": score, "fit_seconds": elapsed}
        click.echo(json.dumps(doc, indent=2, ensure_ascii=False, default=str))
        return
    click.echo(f"read {data}: {len(frame)} rows, {X.shape[1]} columns; {target} = {label} on "
               f"{n_target} rows ({100 * n_target / len(frame):.1f}%)")
    if dropped:
        click.echo("dropped columns: " + ", ".join(f"{k} ({v})" for k, v in dropped.items()))
    click.echo(f"clusters of {target} = {label}: strategy {strategy}, beta {beta:g}, max depth "
               f"{max_depth}, reorder {'on' if reorder else 'off'}; {len(sc.clusters_)} "
               f"found in {elapsed:.2f} s")
    if not sc.clusters_:
        click.echo("no cluster: no test on the columns separates rows of the class from the "
                   "others (the tree is a single leaf)")
        return
    for line in format_cluster_table(sc.to_frame()):
        click.echo(line)
    click.echo(f"  precision, recall (of all {n_target} rows of the class), F-beta, size and "
               "coverage on the whole file")
    if score is not None:
        click.echo(f"stability {score:.3f} (mean over clusters; best Jaccard overlap with the "
                   f"clusters of {n_stability} subsamples of 80%, {elapsed_stab:.2f} s)")


# ---------------------------------------------------------------------- xdt import
IMPORTERS = {"xgboost": "from_xgboost", "lightgbm": "from_lightgbm"}


def _feature_names_option(features_file: str | None, names: list[str]) -> list[str] | None:
    """The feature names of ``--features FILE`` (one a line) or ``--feature-names a,b``."""
    if features_file is not None and names:
        raise click.UsageError("give the feature names once: --features FILE or "
                               "--feature-names a,b,c, not both")
    if features_file is None:
        return names or None
    try:
        text = Path(features_file).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise click.UsageError(f"no feature-name file at {features_file!r}") from None
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        raise click.UsageError(f"{features_file} holds no feature names; write one a line")
    return lines


def probe_points(model: Any) -> list[list]:
    """Points at, and one float64 / float32 step either side of, every threshold of an
    ensemble (one feature moved at a time from a base point), and every value of each
    categorical feature: where an importer's comparisons would show a difference."""
    import numpy as np

    base = [cells.value(0) if feature.is_ordinal else feature.domain[0]
            for feature, cells in zip(model.features, model.cells, strict=True)]
    out = [list(base)]
    for f, (feature, cells) in enumerate(zip(model.features, model.cells, strict=True)):
        if feature.is_ordinal:
            values: set = set()
            for t in cells.thresholds.tolist():
                t32 = np.float32(t)
                values |= {t, float(np.nextafter(t, np.inf)), float(np.nextafter(t, -np.inf)),
                           float(np.nextafter(t32, np.float32(np.inf))),
                           float(np.nextafter(t32, np.float32(-np.inf)))}
        else:
            values = set(feature.domain)
        for v in sorted(values, key=str):
            row = list(base)
            row[f] = v
            out.append(row)
    return out


@main.command("import", short_help="Import an XGBoost or LightGBM model file as an xdt model.")
@click.argument("model_file", metavar="FILE", type=click.Path(dir_okay=False))
@click.option("--from", "library", required=True, type=click.Choice(sorted(IMPORTERS)),
              help="The library that wrote FILE.")
@click.option("--features", "features_file", metavar="NAMES.txt",
              type=click.Path(dir_okay=False),
              help="The feature names, one a line, in column order (default: those in FILE, "
                   "else f0, f1, ... / Column_0, ...).")
@click.option("--feature-names", metavar="A,B,C", callback=_split_names,
              help="The feature names as one comma-separated list (instead of --features).")
@click.option("--classes", metavar="A,B,C", callback=_split_names,
              help="The class labels in the library's class order (the files keep none; "
                   "default 0, 1, ...).")
@click.option("--target", "-t", metavar="NAME", help="Name of the predicted variable.")
@click.option("--output", "-o", required=True, metavar="MODEL.json",
              type=click.Path(dir_okay=False, writable=True),
              help="Where to write the model (xdt-model/1 JSON, kind tree-ensemble).")
@cli_errors
def import_model(model_file: str, library: str, features_file: str | None,
                 feature_names: list[str], classes: list[str], target: str | None,
                 output: str) -> None:
    """Read a boosted-trees model from the library's own file and write it as an xdt model.

    \b
    Files (never pickles):
      xgboost   the JSON (or UBJ) file of XGBClassifier/Booster.save_model("m.json")
      lightgbm  the text file of Booster.save_model("m.txt"), or the JSON of
                json.dump(booster.dump_model(), f)

    The model becomes a tree ensemble of additive margins (kind tree-ensemble) that predicts
    exactly what the library predicts: XGBoost's float32 comparisons and sums, LightGBM's
    float64 ones, and each library's tie rule (xdt.from_xgboost, xdt.from_lightgbm). As a
    check, the imported model and the library predict the same class on points at, and one
    float64 / float32 step either side of, every threshold, and on every category (not for a
    LightGBM JSON dump, which LightGBM cannot load). Models xdt cannot represent exactly
    (regression or ranking objectives, multi-output, LightGBM's multiclassova, rf mode,
    linear trees, zero-as-missing splits against their threshold) are refused with the
    reason. `xdt explain MODEL.json` then reads the written file.

    \b
    Examples:
      xdt import model.json --from xgboost --feature-names age,income -o xdt-model.json
      xdt import model.txt --from lightgbm --classes no,yes -o xdt-model.json
      xdt import model.ubj --from xgboost --features names.txt -o xdt-model.json
    """
    import numpy as np

    from xdt.outputs import check_output_file, write_output_file

    check_output_file(output)
    names = _feature_names_option(features_file, feature_names)
    module = __import__(f"xdt.interop.{library}", fromlist=[IMPORTERS[library]])
    importer = getattr(module, IMPORTERS[library])
    model = importer(model_file, names, classes=classes or None, target=target)
    checked = ""
    if model.reference is not None:
        points = probe_points(model)
        ours = model.predict(points)
        theirs = model.reference(np.asarray(points, dtype=object))
        differ = [i for i, (a, b) in enumerate(zip(ours, theirs, strict=True)) if a != b]
        if differ:
            raise DataError(
                f"the imported model predicts differently from {library} on "
                f"{len(differ)} of {len(points)} points at its thresholds (first: "
                f"{points[differ[0]]}); this is a bug in xdt's importer, please report it")
        checked = f"; predicts like {library} on {len(points)} points at every threshold"
    write_output_file(output, lambda path: xdt.save_model(model, path))
    per_class = "1 margin" if model.n_scores == 1 else f"{model.n_scores} margins"
    click.echo(f"read {model_file}: {library} {model.source.get('objective')}, "
               f"{model.n_trees} trees ({model.n_nodes} nodes, depth {model.depth}), "
               f"{describe_features(model)}, classes {', '.join(map(str, model.classes))} "
               f"({per_class}, {model.precision} sums){checked}")
    click.echo(f"saved {output}")
    click.echo(f"next: xdt explain {output} --instance '{{...}}'")


# ---------------------------------------------------------------------- xdt demo
@main.command(short_help="The main job: fit SER-DT and CART, explain on German credit.")
@click.option("--show", "-n", default=15, show_default=True, type=click.IntRange(min=0),
              metavar="N", help="How many test rows to show in the table (0: summary only).")
@click.option("--write-examples", metavar="DIR", type=click.Path(file_okay=False),
              help="Instead of the demo, write the README tour's files (german.csv, "
                   "titanic.csv, reads.json, row.json, big.csv) into DIR.")
@click.option("--force", is_flag=True, help="With --write-examples: overwrite those files.")
@cli_errors
def demo(show: int, write_examples: str | None, force: bool) -> None:
    """Fit two trees on German credit data shipped with xdt and explain one (a few seconds).

    Fits a SER-DT tree (short explainable rules, Souza et al., NeurIPS 2022; factor_expl
    0.97) and a CART tree (greedy Gini), both of depth <= 6, on the same stratified 70% of
    the 1000 rows of the UCI Statlog German credit data (seed 0), and prints them side by
    side: test accuracy, depth and explanation size (worst case, and mean weighted by the
    training rows) and leaves. Then explains every test row on the SER-DT tree with the
    path engine: one AXp, all CXps, and whether the row's path in the tree is redundant
    (some test on it can be dropped). Prints a table of the first N test rows and a summary
    over all of them: share of redundant paths, mean AXp size against mean path length,
    time per explanation.

    With --write-examples DIR it writes, instead, the files the README's tour reads:
    german.csv, titanic.csv (the clustering example), reads.json (a small tree), row.json
    (one instance) and big.csv (German credit x 20, for --batch and --workers).

    \b
    Example:
      xdt demo
      xdt demo --show 40
      xdt demo --write-examples tour && cd tour && xdt fit german.csv -t class -o model.json
    """
    if write_examples is not None:
        from xdt.demo import write_examples as write

        for path in write(write_examples, force=force):
            click.echo(f"wrote {path}")
        return
    from xdt.demo import run_demo

    run_demo(show=show, width=terminal_width())


main.add_command(report)

if __name__ == "__main__":  # pragma: no cover
    main()
