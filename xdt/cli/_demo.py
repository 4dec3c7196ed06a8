"""``xdt demo``: the main job on German credit data shipped with xdt (:mod:`xdt.cli._demo_job`)."""

from __future__ import annotations

import click

from xdt.cli._app import main
from xdt.cli._common import cli_errors, echo, terminal_width


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

    Ctrl-C stops it with a message and exit code 130.
    """
    if write_examples is not None:
        from xdt.cli._demo_job import write_examples as write

        for path in write(write_examples, force=force):
            echo(f"wrote {path}")
        return
    try:
        from xdt.cli._demo_job import run_demo

        run_demo(show=show, width=terminal_width())
    except KeyboardInterrupt:  # as every command: a summary and code 130, not "Aborted!"
        echo("interrupted: xdt demo stopped before its summary (it writes no file)",
             err=True)
        raise SystemExit(130) from None
