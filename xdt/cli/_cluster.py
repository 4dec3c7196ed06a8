"""``xdt cluster``: supervised clusters of one class as short rules, ranked by F-beta."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import click

from xdt.cli._app import main
from xdt.cli._common import cli_errors, echo, json_safe, read_csv, split_names
from xdt.errors import DataError

# numpy, pandas, the engines and the learners are imported inside the command, so that
# `xdt --help` (and every command's --help) starts without them
if TYPE_CHECKING:
    import pandas as pd


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
@click.option("--categorical", metavar="COL1,COL2", callback=split_names,
              help="Integer-coded columns to treat as categorical (rules x = v, x in {...}; "
                   "string columns always are).")
@click.option("--keep", metavar="COL1,COL2", callback=split_names,
              help="Columns to use even when they look like ids or codes (the preprocessor "
                   "drops those, or reduces them to known / missing, saying why).")
@click.option("--stability", "n_stability", default=0, show_default=True,
              type=click.IntRange(min=0), metavar="N",
              help="Estimate each cluster's stability on N subsamples of 80% (0: no): the paper's "
                   "formula, both rules compared on the subsample's rows.")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0, 2**32 - 1),
              metavar="S", help="Random seed of the stability subsamples.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="text: aligned table; json: one JSON object.")
@cli_errors
def cluster(data: str, target: str, positive: str, beta: float, n_clusters: int,
            max_depth: int, strategy: str, reorder: bool, bins: int, categorical: list[str],
            keep: list[str], n_stability: int, seed: int, fmt: str) -> None:
    """Describe the rows of one class by a few readable rules (supervised clusters).

    The method of "Using Decision Trees for Interpretable Supervised Clustering": trains a
    shallow CART tree, ranks every node (internal ones too) by the F-beta score of its rows
    against the class, keeps the best node's path as a rule, removes its rows and retrains
    (--strategy retrain), up to N clusters. Columns go through xdt's preprocessor
    (xdt.cluster._preprocess: percentile bins, id-like columns dropped unless named in
    --keep, and a column whose filled cells alone are id-like reduced to known / missing,
    missing values as a category or bin; with --reorder, symbolic reordering;
    --categorical names integer-coded categories), so rules read in the original values.
    Precision, recall (against all rows of the class), F-beta, size and coverage are
    measured on the whole file; --stability N adds the bagging stability score (mean best
    Jaccard overlap with the clusters of N subsamples). A file whose rows are all of the
    class is refused: there is nothing to separate.

    \b
    Examples:
      xdt cluster titanic.csv --target Survived --positive 1
      xdt cluster titanic.csv -t Survived -p 1 --categorical Pclass
      xdt cluster adult.csv --target income --positive '>50K' --reorder --beta 0.33
      xdt cluster titanic.csv -t Survived -p 1 --clusters 5 --stability 20 --format json
    """
    import time as _time

    from xdt.cluster import SupervisedClusters
    from xdt.ir._values import to_python

    frame = read_csv(data)
    if target not in frame.columns:
        raise click.UsageError(
            f"target column {target!r} is not in {data}; its columns are: "
            f"{', '.join(map(str, frame.columns))}")
    for option, names in (("--categorical", categorical), ("--keep", keep)):
        unknown = [c for c in names if c not in frame.columns or c == target]
        if unknown:
            what = ("is the target column" if unknown[0] == target
                    else f"is not a column of {data}; its columns are: "
                         f"{', '.join(map(str, frame.columns))}")
            raise click.BadParameter(f"{unknown[0]!r} {what}", param_hint=f"'{option}'")
    label = _positive_label(frame[target], positive, target)
    if frame[target].isna().any():
        raise DataError(f"column {target!r} has {int(frame[target].isna().sum())} empty "
                        "cell(s); every row needs a class: drop them first")
    X = frame.drop(columns=[target])
    y = frame[target]
    try:
        from xdt.cluster._preprocess import Preprocessor
    except ImportError:  # pragma: no cover - the preprocessor ships with xdt
        Preprocessor = None  # noqa: N806
    pre = None
    if Preprocessor is not None:
        pre = Preprocessor(n_bins=bins, reorder=reorder, positive=1 if reorder else None,
                           categorical=categorical or None, keep=keep or None)
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
    dropped, reduced = {}, {}
    view = sc.clusters_[0]._view if sc.clusters_ else getattr(sc, "_shared_view", None)
    if hasattr(view, "pre"):
        dropped = dict(getattr(view.pre, "dropped_", {}))
        reduced = dict(getattr(view.pre, "reduced_", {}))
    n_target = sc.n_target_
    if fmt == "json":
        doc = {"data": data, "rows": len(frame), "target": target, "positive": to_python(label),
               "n_target": n_target, "beta": beta, "max_depth": max_depth,
               "strategy": strategy, "reorder": reorder, "bins": bins,
               "dropped_columns": dropped, "reduced_columns": reduced,
               "clusters": [c.to_dict() for c in sc.clusters_],
               "stability": score, "fit_seconds": elapsed}
        echo(json_safe(json.dumps(doc, indent=2, ensure_ascii=False, default=str)))
        return
    echo(f"read {data}: {len(frame)} rows, {X.shape[1]} columns; {target} = {label} on "
         f"{n_target} rows ({100 * n_target / len(frame):.1f}%)")
    if dropped:
        echo("dropped columns: " + ", ".join(f"{k} ({v})" for k, v in dropped.items())
             + "; --keep COL uses one in the rules")
    if reduced:
        echo("reduced to known / missing: " + ", ".join(
            f"{k} ({v})" for k, v in reduced.items()) + "; --keep COL uses its values")
    echo(f"clusters of {target} = {label}: strategy {strategy}, beta {beta:g}, max depth "
         f"{max_depth}, reorder {'on' if reorder else 'off'}; {len(sc.clusters_)} "
         f"found in {elapsed:.2f} s")
    if not sc.clusters_:
        echo("no cluster: no test on the columns separates rows of the class from the "
             "others (the tree is a single leaf)")
        return
    for line in format_cluster_table(sc.to_frame()):
        echo(line)
    echo(f"  precision, recall (of all {n_target} rows of the class), F-beta, size and "
         "coverage on the whole file")
    if score is not None:
        echo(f"stability {score:.3f} (mean over clusters; best Jaccard overlap with the "
             f"clusters of {n_stability} subsamples of 80% on their rows, the paper's "
             f"formula; {elapsed_stab:.2f} s)")
