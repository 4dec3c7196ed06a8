"""``xdt report``: the HTML audit report of a model on rows of a CSV file.

The command reads the model and the CSV file as ``xdt explain --data`` does (the same
column types, the same checks of every selected row, the same error messages) and writes
:func:`xdt.report.build_report`'s page.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from xdt.cli._app import main
from xdt.cli._common import (
    DEFAULT_ROW_TIME_LIMIT,
    PROGRESS_MIN_ROWS,
    SecondsType,
    cli_errors,
    echo,
    load_model,
    parse_rows,
    read_labelled_csv,
    refuse_invalid_rows,
    resolve_time_limit,
    stderr_is_terminal,
)

if TYPE_CHECKING:
    from xdt.report._html import Report

# xdt.report._html.DEFAULT_MAX_ROWS and DEFAULT_MAX_CXPS, not imported: that module loads
# pandas and the engines, which `xdt --help` must not
DEFAULT_MAX_ROWS = 1000
DEFAULT_MAX_CXPS = 20


@main.command(short_help="Write an HTML audit report of a model on rows of a CSV file.")
@click.argument("model_path", metavar="MODEL.json", type=click.Path(dir_okay=False))
@click.option("--data", "-d", required=True, metavar="DATA.csv",
              type=click.Path(dir_okay=False),
              help="The rows to explain (columns by feature name; others ignored).")
@click.option("--output", "-o", required=True, metavar="REPORT.html",
              type=click.Path(dir_okay=False), help="The HTML file to write (replaced).")
@click.option("--rows", "-r", metavar="A:B",
              help="Row positions as a python slice, e.g. 0:100, 500:, -50: (0-based, B "
                   "excluded). Default: all rows, up to --max-rows.")
@click.option("--max-rows", type=click.IntRange(min=1), default=DEFAULT_MAX_ROWS,
              show_default=True, metavar="N",
              help="Explain at most the first N selected rows (the page says how many of "
                   "how many).")
@click.option("--max-cxps", type=click.IntRange(min=1), default=DEFAULT_MAX_CXPS,
              show_default=True, metavar="N",
              help="List at most N CXps per row (the row says when more exist).")
@click.option("--time-limit", type=SecondsType(no_limit=True), metavar="S",
              help=f"Seconds allowed to each row: its AXp and its listing of CXps "
                   f"(default {DEFAULT_ROW_TIME_LIMIT:g}; none: no limit). The page marks "
                   "the rows it cut short: an AXp not found, a listing stopped.")
@click.option("--target", "-t", metavar="COL",
              help="The column of true labels, for the accuracy and a label column "
                   "(default: the model's target, when the file has that column).")
@click.option("--engine", type=click.Choice(["auto", "path", "sat", "box"]), default="auto",
              show_default=True,
              help="path: decision trees; sat: any model; box: tree ensembles; auto: path for "
                   "a tree, box for a tree ensemble, sat for a DNF.")
@click.option("--title", metavar="TEXT", help="The page's title.")
@click.option("--skip-invalid", is_flag=True,
              help="Explain the rows the model can read and list the others (missing "
                   "value, unknown category, text for a number) in the page as not "
                   "explained, with their reasons. Without it, such a row stops the run "
                   "before any row is explained.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@cli_errors
def report(model_path: str, data: str, output: str, rows: str | None, max_rows: int,
           max_cxps: int, time_limit: float | None, target: str | None, engine: str,
           title: str | None, quiet: bool, skip_invalid: bool = False) -> None:
    """Write a self-contained HTML audit report of a model's explanations of data rows.

    For each selected row of DATA.csv: the prediction, one AXp (a minimal set of feature
    values that alone guarantee it) and its CXps (minimal sets of features whose change
    can change it), each with a certificate re-checked against the model's own predict. The page
    shows the model (kind, size, classes, features); for a decision tree the tree drawn as SVG,
    with the selected row's path, AXp and CXps highlighted (a DNF's terms, a decision list's
    rules in order, a tree ensemble's sizes are listed as text); the explanation-redundancy of
    the tree's paths; the formal feature importance (in how many rows' AXps each feature is);
    and a table of the rows that sorts (click a header), filters (the text box) and shows a row
    in the picture (click it). The file needs no network: style and script are inline, and it
    can be opened and sent on as it is.

    At most --max-rows rows are explained, the first of the selection (--rows), so that a
    large table gives a page of a few MB; the page says how many of how many. Each row
    may spend --time-limit seconds (default 10) on its AXp and listing its CXps (and as
    much again re-checking their certificates): a decision tree lists them all in
    milliseconds, a large forest can take minutes a row, so the default keeps a report of
    a forest in bounded time; the page says in which rows the listing was cut short, and
    shows a row whose AXp was not found in time as "AXp not found within the time limit".
    Only empty CSV cells are missing values ("NA", "None" are values); a row the
    model cannot read stops the run before any work, naming it, or, with --skip-invalid,
    is listed in the page as not explained. Row numbers are 0-based positions in the CSV.
    REPORT.html is replaced if it exists (it must not be MODEL.json or DATA.csv). Ctrl-C
    stops the run and writes the page of the rows finished so far, marked as interrupted
    (how many of how many), and exits with code 130.

    \b
    Examples:
      xdt report model.json --data german.csv -o report.html
      xdt report model.json --data german.csv --rows 0:200 -o first-200.html
      xdt report model.json --data big.csv --max-rows 5000 --max-cxps 5 -o big.html
    """
    from xdt._atomic import write_text
    from xdt.explain._models import kind_name
    from xdt.ir._instances import as_frame
    from xdt.ir._protocol import PATHS, offers
    from xdt.report._html import ReportInterrupted, build_report, explain_rows
    from xdt.run._outputs import check_output_file

    check_output_file(output, inputs=[model_path, data])  # before the work, not after it
    model = load_model(model_path)
    kind = kind_name(model)
    if engine == "path" and not offers(model, PATHS):
        other = "box or --engine sat" if kind == "tree ensemble" else "sat"
        raise click.UsageError(
            f"--engine path walks the paths of a decision tree, and {model_path} is a "
            f"{kind}: use --engine {other} (or leave --engine out: auto picks one)")
    if engine == "box" and kind != "tree ensemble":
        raise click.UsageError(
            f"--engine box explains tree ensembles, and {model_path} is a {kind}: use "
            "--engine path or sat (or leave --engine out: auto picks one)")
    frame, label = read_labelled_csv(model, data, target)
    X = as_frame(model.features, frame)
    selected = parse_rows(rows, len(X)) if rows is not None else range(len(X))
    positions = list(selected)[:max_rows]
    if not skip_invalid:
        refuse_invalid_rows(model, X, positions, "list them in the page as not explained")
    progress = not quiet and stderr_is_terminal() and len(positions) > PROGRESS_MIN_ROWS
    budget = resolve_time_limit(time_limit)
    try:
        result = explain_rows(model, frame, rows=list(selected), max_rows=max_rows,
                              max_cxps=max_cxps, time_limit=budget,
                              engine=None if engine == "auto" else engine, target=target,
                              progress=progress, on_invalid="skip")
    except ReportInterrupted as e:
        result = e.report
    except KeyboardInterrupt:  # before the rows: nothing to keep
        result = None
    if result is None or not result.rows and result.interrupted:
        echo(f"interrupted: no report written ({output} is as it was): no row was "
             "finished; explain fewer rows with --max-rows N or --rows A:B", err=True)
        raise SystemExit(130) from None
    page = build_report(model, frame, report=result, title=title, model_name=model_path,
                        data_name=data, selection=rows)
    write_text(output, page)
    echo(_summary(result, output, budget), err=result.interrupted)
    if result.interrupted:
        raise SystemExit(130)


def _summary(result: Report, output: str, budget: float | None) -> str:
    """What ``xdt report`` wrote: rows explained (of the rows to explain, when Ctrl-C
    stopped it), certificates checked, the rows not explained and why, and the rows whose
    listing the time limit cut short."""
    n = len(result.rows)
    checked = sum(r.checked for r in result.rows)
    if result.interrupted:
        planned = n if result.n_planned is None else result.n_planned
        text = (f"interrupted: wrote {output} with the {n} of {planned} rows finished "
                f"before Ctrl-C, marked as interrupted ({checked} with every certificate "
                "checked)")
    else:
        text = (f"wrote {output}: {n} of {result.n_data} rows explained ({checked} with "
                "every certificate checked)")
    k = len(result.invalid)
    if k:
        text += (f"; {k} row{'' if k == 1 else 's'} not explained, listed in the page (the "
                 f"model cannot read {'it' if k == 1 else 'them'}): " + "; ".join(
                     f"row {r['row']}: {r['reason']}" for r in result.invalid[:5])
                 + ("; ..." if k > 5 else ""))
    cut = result.time_limited
    if cut and budget is not None:
        no_axp = result.axp_cut
        text += (f"; in {cut} row{'' if cut == 1 else 's'} the listing of CXps stopped at "
                 f"the time limit ({budget:g} s per row; --time-limit raises it)"
                 + (f", {no_axp} of them before the AXp was found" if no_axp else ""))
    return text
