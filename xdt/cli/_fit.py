"""``xdt fit``: learn a decision tree (CART or SER-DT) from a CSV file, measure it, save it."""

from __future__ import annotations

import json
from collections import Counter
from typing import TYPE_CHECKING, Any

import click

import xdt
from xdt.cli._app import main
from xdt.cli._common import (
    check_one_line_names,
    cli_errors,
    describe_features,
    echo,
    json_safe,
    read_csv,
    split_names,
)
from xdt.errors import DataError
from xdt.interop._learners import FACTOR_EXPL, LEARNER_NAMES, LEARNERS

# numpy, pandas, the engines and the learners are imported inside the command, so that
# `xdt --help` (and every command's --help) starts without them
if TYPE_CHECKING:
    import pandas as pd

    from xdt.interop._fit import FitResult


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
    from xdt.ir._values import to_python

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
@click.option("--categorical", metavar="COL1,COL2", callback=split_names,
              help="Integer-coded columns to treat as categorical (string columns always are).")
@click.option("--keep", metavar="COL1,COL2", callback=split_names,
              help="Id-like columns to use as features all the same (by default id and name "
                   "columns are dropped).")
@click.option("--drop", metavar="COL1,COL2", callback=split_names,
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
    from xdt.interop._fit import fit_tree
    from xdt.run._outputs import check_output_file

    if output is not None:
        check_output_file(output, inputs=[data])  # before the fit, not after it
    if factor_expl is not None and learner != "ser-dt":
        raise click.UsageError(f"--factor-expl is a parameter of SER-DT; it needs --learner "
                               f"ser-dt (the learner is {learner})")
    if learner == "sklearn" and max_depth == 0:
        raise click.UsageError("--max-depth 0 (a single leaf) is not available with "
                               "--learner sklearn: scikit-learn's trees have depth >= 1")
    factor = FACTOR_EXPL if factor_expl is None else factor_expl
    frame = read_csv(data)
    broken = [c for c in frame.columns if "\n" in str(c)]
    if broken:  # a name the model would keep, and the commands print on their lines
        raise DataError(f"{data}: the column name {broken[0]!r} holds a line break, which "
                        "would break the lines xdt prints; rename it (one line of text)")
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
        echo(f"warning: {warning}", err=True)
    model = check_one_line_names(result.model, data)
    if output is not None:
        xdt.save_model(model, output)  # through a temporary file renamed into place
    report = fit_report(result, data, frame, max_depth, factor, seed, output)
    labels = [str(c) for c in report["classes"]]
    trained = set(result.train[target].unique())
    unseen = sorted({str(c) for c in frame[target].unique() if c not in trained})
    if unseen:
        echo(f"warning: class(es) {', '.join(unseen)} have no training row (too rare "
             "for the split); the tree cannot predict them", err=True)
    if len(model.classes) == 1:
        echo(f"warning: every training row has class {model.classes[0]}; the tree is a "
             "single leaf", err=True)
    if fmt == "json":
        echo(json_safe(json.dumps(report, indent=2, ensure_ascii=False)))
        return
    echo(f"read {data}: {len(frame)} rows, {describe_features(model)}, "
         f"target {target!r} with {len(labels)} class{'es' if len(labels) != 1 else ''} "
         f"({', '.join(labels)})")
    if result.dropped_columns:
        echo("dropped columns: " + ", ".join(
            f"{k} ({v})" for k, v in result.dropped_columns.items()) + "; --keep COL uses "
            "one as a feature")
    how = "stratified" if result.stratified else "not stratified"
    echo(f"split: {len(result.train)} train / {len(result.test)} test rows "
         f"({how}, seed {seed})")
    params = [f"max depth {'none' if max_depth is None else max_depth}"]
    if learner == "ser-dt":
        params.insert(0, f"factor_expl {factor:g}")
    echo(f"learner: {LEARNER_NAMES[learner]}, {', '.join(params)}")
    for line in format_fit_table(report):
        echo(line)
    echo("check: the xdt tree predicts exactly like the fitted learner on every row")
    if output is None:
        echo("model not saved (give -o MODEL.json to save it)")
        return
    echo(f"saved {output}")
    echo(f"next: xdt explain {output} --data {data} --rows 0:5")
