"""``xdt report``: the HTML audit report of a model on rows of a CSV file.

The command reads the model and the CSV file as ``xdt explain --data`` does (the same
column types, the same checks of every selected row, the same error messages) and writes
:func:`xdt.report.build_report`'s page.
"""

from __future__ import annotations

import click

import xdt
from xdt.cli._app import main
from xdt.cli._common import (
    PROGRESS_MIN_ROWS,
    SecondsType,
    cli_errors,
    parse_rows,
    read_labelled_csv,
    stderr_is_terminal,
    validate_rows,
)

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
@click.option("--time-limit", type=SecondsType(), metavar="S",
              help="Seconds allowed to each row's enumeration of CXps.")
@click.option("--target", "-t", metavar="COL",
              help="The column of true labels, for the accuracy and a label column "
                   "(default: the model's target, when the file has that column).")
@click.option("--engine", type=click.Choice(["auto", "path", "sat", "box"]), default="auto",
              show_default=True,
              help="path: decision trees; sat: any model; box: tree ensembles; auto: path for "
                   "a tree, box for a tree ensemble, sat for a DNF.")
@click.option("--title", metavar="TEXT", help="The page's title.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@cli_errors
def report(model_path: str, data: str, output: str, rows: str | None, max_rows: int,
           max_cxps: int, time_limit: float | None, target: str | None, engine: str,
           title: str | None, quiet: bool) -> None:
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
    large table gives a page of a few MB; the page says how many of how many. Only empty
    CSV cells are missing values ("NA", "None" are values). Row numbers are 0-based
    positions in the CSV. REPORT.html is replaced if it exists (it must not be MODEL.json
    or DATA.csv); Ctrl-C stops the run, writes nothing and exits with code 130.

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
    from xdt.report._html import build_report, explain_rows
    from xdt.run._outputs import check_output_file

    check_output_file(output, inputs=[model_path, data])  # before the work, not after it
    model = xdt.load_model(model_path)
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
    validate_rows(model, X, positions)
    progress = not quiet and stderr_is_terminal() and len(positions) > PROGRESS_MIN_ROWS
    try:
        result = explain_rows(model, frame, rows=list(selected), max_rows=max_rows,
                              max_cxps=max_cxps, time_limit=time_limit,
                              engine=None if engine == "auto" else engine, target=target,
                              progress=progress)
    except KeyboardInterrupt:  # as xdt explain and crosscheck: a message and code 130
        click.echo(f"interrupted: no report written ({output} is as it was); explain fewer "
                   "rows with --max-rows N or --rows A:B", err=True)
        raise SystemExit(130) from None
    page = build_report(model, frame, report=result, title=title, model_name=model_path,
                        data_name=data, selection=rows)
    write_text(output, page)
    n = len(result.rows)
    click.echo(f"wrote {output}: {n} of {result.n_data} rows explained "
               f"({sum(r.checked for r in result.rows)} with every certificate checked)")
