"""``xdt redundancy``: which paths of a tree are explanation-redundant (Izza, Ignatiev &
Marques-Silva), with the share of rows they hold; for a decision list (or a DNF), which
literals of the rules that fire on given rows are redundant, and which literals of earlier
rules an explanation needs (Ignatiev & Marques-Silva, SAT 2021)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import click

from xdt.cli import _common as common
from xdt.cli._app import main
from xdt.cli._common import (
    PROGRESS_MIN_ROWS,
    cli_errors,
    describe_features,
    echo,
    json_safe,
    load_model,
    parse_rows,
    read_labelled_csv,
    validate_rows,
)

# numpy, pandas, the engines and the learners are imported inside the command, so that
# `xdt --help` (and every command's --help) starts without them
if TYPE_CHECKING:
    from xdt.ir._decision_list import DecisionList
    from xdt.ir._dnf import DNF


# ---------------------------------------------------------------------- xdt redundancy
@main.command(short_help="Redundant literals of tree paths, or of decision-list rules.")
@click.argument("model_path", metavar="MODEL.json", type=click.Path(dir_okay=False))
@click.option("--data", "-d", metavar="DATA.csv", type=click.Path(dir_okay=False),
              help="Rows for %C_data (and %A with --target); columns by feature name. "
                   "Required for a decision list or DNF: the rows whose firing rules are "
                   "measured.")
@click.option("--target", "-t", metavar="COL",
              help="With --data: the column of true labels, for the accuracy %A on those "
                   "rows (default: the model's target, when the file has that column).")
@click.option("--rows", "-r", metavar="A:B",
              help="Decision lists and DNFs: row positions of --data as a python slice, e.g. "
                   "0:100 (0-based, B excluded). Default: all rows.")
@click.option("--per-path", is_flag=True,
              help="Trees: list every path: redundant or not, its rule and a "
                   "PI-explanation.")
@click.option("--per-rule", is_flag=True,
              help="Decision lists and DNFs: list every rule that fires on some row, with "
                   "its figures and its text.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="text: readable; json: the report as one object "
                                      "(for a decision list, with every row's analysis).")
@click.option("--quiet", "-q", is_flag=True,
              help="No progress bar (one is drawn only when standard error is a terminal).")
@cli_errors
def redundancy(model_path: str, data: str | None, target: str | None, rows: str | None,
               per_path: bool, per_rule: bool, fmt: str, quiet: bool) -> None:
    """Report the explanation-redundancy of a decision tree's paths, or of the rules of a
    decision list (or DNF) on the rows of --data.

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

    For a decision list (and a DNF, read as the list of its terms, each predicting its
    second class), on every row of --data (Ignatiev & Marques-Silva, "SAT-Based Rigorous
    Explanations for Decision Lists", SAT 2021): the rule that fires, an AXp found by
    deletion keeping the rule's features as long as possible (inside the rule's features
    and a minimum set of features that keeps every earlier rule false), the rule's
    literals left out of that AXp (redundant), and the AXp's features outside the rule
    (why no earlier rule fired). Prints the mean, median and largest share of redundant
    literals, the share of rows whose rule is not an AXp, of rows whose rule is not even
    sufficient (not a weak AXp: every AXp needs features of earlier rules), mean sizes,
    and the rows the default decides (no rule to measure), with %A when labels are found.
    --per-rule gives the figures of each rule over the rows it fires on.

    \b
    Examples:
      xdt redundancy model.json
      xdt redundancy model.json --data test.csv --target class
      xdt redundancy model.json --per-path --format json > redundancy.json
      xdt redundancy rules.json --data test.csv --per-rule
    """
    from xdt.explain._models import kind_name
    from xdt.ir._instances import as_frame
    from xdt.ir._protocol import PATHS, RULES, TERMS, offers
    from xdt.metrics import redundancy_report

    if target is not None and data is None:
        raise click.UsageError("--target names a column of --data; it needs --data DATA.csv")
    model = load_model(model_path)
    rules = (offers(model, RULES) or offers(model, TERMS))
    if rules and data is not None:
        if per_path:
            raise click.UsageError(
                f"--per-path lists the paths of a tree, and this model is a "
                f"{kind_name(model)}: use --per-rule")
        _rule_redundancy(model, model_path, data, target, rows, per_rule, fmt,
                         progress=not quiet and common.stderr_is_terminal())
        return
    if not offers(model, PATHS):
        kind = kind_name(model)
        why = (" (each AXp lies inside a true term of the DNF, or of its complement)"
               if "DNF" in kind else "")
        more = (f"; the redundancy of its rules is measured on rows: xdt redundancy "
                f"{model_path} --data DATA.csv" if rules else "")
        if offers(model, RULES):
            raise click.UsageError(
                f"{model_path} is a decision list: the redundancy of its rules is measured "
                "on the rows they fire on; give them with --data DATA.csv")
        raise click.ClickException(
            f"{model_path}: path redundancy (Izza et al.) is defined for the paths of "
            f"decision trees, and this model is a {kind}; its explanations come "
            f"from `xdt explain {model_path} --instance ...`{why}{more}")
    if per_rule or rows is not None:
        raise click.UsageError(
            f"{'--per-rule' if per_rule else '--rows'} is for decision lists and DNFs, and "
            f"{model_path} is a decision tree: --per-path lists its paths")
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
        echo(json_safe(json.dumps(out, indent=2, ensure_ascii=False)))
        return
    echo(f"{model_path}: tree of {describe_features(model)}")
    echo(str(report))
    if per_path:
        echo("paths:")
        for r in report.per_path:
            rule, pi = rules[r.path]
            if r.redundant:
                echo(f"  path {r.path}: redundant ({r.redundant_literals} of "
                     f"{r.n_literals} literals)")
                echo(f"    rule: {rule}")
                echo(f"    PI-explanation: {pi}")
            else:
                echo(f"  path {r.path}: not redundant (a PI-explanation)")
                echo(f"    rule: {rule}")


def _rule_redundancy(model: DecisionList | DNF, model_path: str, data: str,
                     target: str | None, rows: str | None, per_rule: bool, fmt: str,
                     progress: bool) -> None:
    """``xdt redundancy`` on a decision list or DNF: the rule-redundancy report of the rows
    of ``data`` (:func:`xdt.metrics.rule_redundancy_report`), with the accuracy on them when
    they carry labels."""
    from xdt.explain._models import kind_name
    from xdt.ir._instances import as_frame
    from xdt.ir._protocol import RULES, offers
    from xdt.metrics import rule_redundancy_report
    from xdt.metrics._redundancy import labelled_accuracy
    from xdt.metrics._rule_redundancy import as_decision_list

    frame, label = read_labelled_csv(model, data, target)
    positions = list(parse_rows(rows, len(frame)) if rows is not None else range(len(frame)))
    X = as_frame(model.features, frame).iloc[positions].reset_index(drop=True)
    validate_rows(model, X, range(len(X)))
    report = rule_redundancy_report(model, X, progress=progress and len(X) > PROGRESS_MIN_ROWS)
    accuracy, n_labelled = None, 0
    if label is not None:
        accuracy, n_labelled = labelled_accuracy([r.prediction for r in report.rows],
                                                 frame[label].iloc[positions].tolist())
    dl = as_decision_list(model)
    texts = [r.text(dl.target) for r in dl.rules()]
    if fmt == "json":
        out = {"model": model_path, "kind": kind_name(model), "data": data,
               "accuracy": accuracy, **report.to_dict(per_row=True)}
        for r in out["rules"]:
            r["text"] = texts[r["rule"]] if r["rule"] >= 0 else f"ELSE {dl.default}"
        for r in out["rows"]:  # positions in the CSV, not in the selection
            r["row"] = positions[r["row"]]
        echo(json_safe(json.dumps(out, indent=2, ensure_ascii=False, default=str)))
        return
    words = "" if offers(model, RULES) else " (its terms as rules, in order)"
    echo(f"{model_path}: {kind_name(model)} of {describe_features(model)}, "
         f"{dl.n_rules} rules, default {dl.default}{words}")
    shown = f"rows {rows} of {data}" if rows is not None else data
    echo(f"data                                    {shown} ({len(X)} rows)")
    if accuracy is not None:
        echo(f"accuracy                                {accuracy:.1f}% "
             f"({n_labelled} labelled rows)")
    echo(str(report))
    if per_rule:
        echo("per rule (%red, %max: mean and largest share of redundant literals; !AXp, "
             "!weak: rows where the rule is not an AXp, not a weak AXp; |WNE|: mean "
             "why-not-earlier features):")
        echo(report.rules_table(texts))
