"""``xdt crosscheck``: the path engine against the SAT engine (or the box engine against the SAT
engine for ensembles, an independent CNF for DNFs and decision lists) on the rows of a
table."""

from __future__ import annotations

import json

import click

from xdt.cli import _common as common
from xdt.cli._app import main
from xdt.cli._common import (
    PROGRESS_MIN_ROWS,
    SecondsType,
    cli_errors,
    echo,
    json_safe,
    load_model,
    parse_rows,
    read_model_csv,
    validate_rows,
)


# ---------------------------------------------------------------------- xdt crosscheck
@main.command(short_help="Cross-check the explanation engines (or a checker) on data.")
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
              help="Seconds allowed to each enumeration, and on a tree ensemble, DNF or "
                   "decision list to each engine's AXp and CXp of a row; what it stops is "
                   "not compared.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="text: readable summary; json: the whole report.")
@click.option("--quiet", "-q", is_flag=True,
              help="No progress bar (one is drawn only when standard error is a terminal).")
@click.pass_context
@cli_errors
def crosscheck(ctx: click.Context, model_path: str, data: str, rows: str | None,
               path_restricted: bool, no_enumerate: bool, solver: str,
               time_limit: float | None, fmt: str, quiet: bool) -> None:
    """Check a model's explanations on every row of a CSV file, by two independent means.

    For a decision tree, runs the path engine (the polynomial path-walker) and the SAT engine
    (PySAT) on each row and checks that each engine's AXp is an AXp for the other, each one's
    CXp a CXp for the other, that they find the same sets of all AXps and all CXps, and agree on
    whether the row's path is redundant. Prints the agreements per check, the time per row of
    each engine, and every disagreement with both answers and a counterexample point checked
    with the model's own prediction. Row numbers are 0-based positions in the CSV.

    A DNF, nested k-DNF or decision list has no path engine: its SAT engine's AXp and CXp
    are checked on a CNF of the checks' own (one-hot cells, a variable per term or rule,
    another solver) and, when the cell space is small, all AXps and CXps against brute
    force (e.g. xdt crosscheck rules.json --data test.csv).

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
    from xdt.explain.checks._crosscheck import crosscheck as run_crosscheck
    from xdt.ir._instances import as_frame

    model = load_model(model_path)
    frame = as_frame(model.features, read_model_csv(data, model))
    positions = parse_rows(rows, len(frame)) if rows is not None else range(len(frame))
    validate_rows(model, frame, positions)
    from xdt.explain.checks._crosscheck import CrosscheckInterrupted

    try:
        report = run_crosscheck(model, frame.iloc[list(positions)],
                                path_restricted=path_restricted, enumerate=not no_enumerate,
                                solver=solver, time_limit=time_limit,
                                progress=not quiet and common.stderr_is_terminal()
                                and len(positions) > PROGRESS_MIN_ROWS)
    except CrosscheckInterrupted as e:  # Ctrl-C: the rows checked in full so far
        report = e.report
    report.model = f"{model_path}: {report.model}"
    if fmt == "json":
        echo(json_safe(json.dumps(report.to_dict(), indent=2, ensure_ascii=False)))
    else:
        echo(report.summary())
    if report.interrupted:
        echo(f"interrupted: {report.rows} of {report.requested} rows checked", err=True)
        raise SystemExit(130)
    if not report.ok:
        ctx.exit(1)
