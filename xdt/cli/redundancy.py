"""``xdt redundancy``: which paths of a tree are explanation-redundant (Izza, Ignatiev &
Marques-Silva), with the share of rows they hold."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import click

import xdt
from xdt.cli.app import main
from xdt.cli.common import (
    cli_errors,
    describe_features,
    read_labelled_csv,
    validate_rows,
)

# numpy, pandas, the engines and the learners are imported inside the command, so that
# `xdt --help` (and every command's --help) starts without them
if TYPE_CHECKING:
    pass


# ---------------------------------------------------------------------- xdt redundancy
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
        frame, label = read_labelled_csv(model, data, target)
        X = as_frame(model.features, frame)
        validate_rows(model, X, range(len(X)))
        if label is not None:
            y = frame[label].tolist()
    report = redundancy_report(model, X, y, data=data)
    rules = {r.path: (model.path_rule(r.path, r.features),
                      model.path_rule(r.path, r.pi_explanation)) for r in report.per_path}
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
