"""``xdt explain``: explain a saved model's predictions (AXps, CXps), one instance or many rows
(per row, batched, chunked to a file, or on a Dask cluster)."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Callable, Generator, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from xdt.cli import _common as common
from xdt.cli._app import main
from xdt.cli._common import (
    DEFAULT_ROW_TIME_LIMIT,
    PROGRESS_MIN_ROWS,
    SecondsType,
    cli_errors,
    echo,
    explain_one,
    json_safe,
    load_model,
    outcome,
    parse_instance,
    parse_rows,
    read_model_csv,
    validate_rows,
)
from xdt.errors import DataError, NoExplanationError, XdtError

# numpy, pandas, the engines and the learners are imported inside the command, so that
# `xdt --help` (and every command's --help) starts without them
if TYPE_CHECKING:
    import pandas as pd

    from xdt.explain import Explainer
    from xdt.explain._models import Model
    from xdt.ir._tree import DecisionTree


DEFAULT_MAX_COUNT = 1000
"""``xdt explain --all-axps/--all-cxps`` lists at most this many of each per row unless
``--max-count`` says otherwise (the Python API has no default cap)."""


def _why(record: dict) -> str:
    """What decided the prediction: the path (a tree), the true terms (a DNF), the firing
    rule (a decision list) or the scores (a tree ensemble)."""
    if "firing_rule" in record:
        fired = record["firing_rule"]
        if fired["rule"] is None:
            return f"no rule fires: {fired['text']}"
        return f"rule {fired['rule']} fires: {fired['text']}"
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
    lines += [f"    - {e['rule']}" + (f"  [cost {e['cost']:g}]" if "cost" in e else "")
              + (f"  [not verified: {why}]" if bad else "")
              + (f"  [coverage {_coverage_text(e['coverage'])}]" if "coverage" in e else "")
              for e, bad in zip(items, unverified, strict=True)]
    return lines


def _share(value: dict) -> str:
    """A share of a record (``{"exact": "p/q", "float": x}``) as short text."""
    from fractions import Fraction

    from xdt.explain._explanation import format_share

    return format_share(Fraction(value["exact"]))


def _coverage_text(cov: dict) -> str:
    """``0.81 of the space (product of the data's marginals), 8 of 10 rows (0.8)``."""
    text = f"{_share(cov['product'])} of the space (product of the data's marginals)"
    if cov.get("rows") is not None:
        text += f", {cov['covered']} of {cov['n_rows']} rows ({_share(cov['rows'])})"
    return text


def _probabilistic_lines(record: dict) -> list[str]:
    """The delta-AXp of a record beside its AXp, and the coverage of both."""
    lines = []
    delta = record.get("delta_axp")
    if "no_delta_axp" in record:
        lines.append(f"  delta-AXp: none; {record['no_delta_axp']}")
    if delta is not None:
        size = len(delta["features"])
        source = record.get("distribution", "")
        lines.append(f"  delta-AXp ({size} feature{'' if size == 1 else 's'}, precision "
                     f"{_share(delta['precision'])} >= {_share(delta['delta'])}"
                     f"{', ' + source if source else ''}): {delta['rule']}")
        if delta.get("drops"):
            lines.append("    precision without each feature: " + ", ".join(
                f"{k} {_share(v)}" for k, v in delta["drops"].items()))
    for key, name in (("axp", "AXp"), ("delta_axp", "delta-AXp")):
        if key in record and record[key] is not None and "coverage" in record[key]:
            lines.append(f"    coverage of the {name}: "
                         f"{_coverage_text(record[key]['coverage'])}")
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
    lines = [f"{label}: predicts {outcome(model, record['prediction'])}"
             + (f" ({_why(record)})" if "path_restricted" in record else "") + interrupted]
    if "axp" not in record:
        return lines
    axp = record["axp"]
    if axp is None:
        none = record["no_axp"]
        lines.append(f"  {pr}AXp: not found: {none['reason']}" if none.get("stopped_by")
                     else f"  {pr}AXp: none; {none['reason']}")
    else:
        size = len(axp["features"])
        widened = ", inflated" if axp.get("inflated") else ""
        lines.append(f"  {pr}AXp ({size} feature{'' if size == 1 else 's'}{widened}"
                     f"{_cost(axp)}): {axp['rule']}")
    lines += _probabilistic_lines(record)
    if "axps" in record:
        lines += _listing(record, "axps", f"all {pr}AXps", verify)
    if "cxps" not in record:
        return lines
    cxps = record["cxps"]
    if all_cxps and (cxps or not record.get("cxps_complete", True)):
        lines += _listing(record, "cxps", f"all {pr}CXps", verify)
    elif "cxp_stopped" in record:
        lines.append(f"  {pr}CXp: not found: {record['cxp_stopped']}")
    elif not cxps and record.get("immutable"):
        lines.append(f"  {pr}CXp: none leaves {', '.join(record['immutable'])} alone (no "
                     "change of the other features changes the prediction)")
    elif not cxps:
        lines.append(f"  {pr}CXp: none (no change of features changes the prediction)")
    else:
        lines.append(f"  {pr}CXp{_cost(cxps[0], ' (', ')')}: {cxps[0]['rule']}")
    return lines


def _cost(e: dict, before: str = ", ", after: str = "") -> str:
    """The cost of a cheapest explanation's record, and the bound that proves it."""
    if "cost" not in e:
        return ""
    bound = (e.get("optimality") or {}).get("lower_bound")
    proof = f", optimal: lower bound {bound:g}" if bound is not None else ", cheapest"
    return f"{before}cost {e['cost']:g}{proof}{after}"


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
@click.option("--exclude", metavar="COL,...",
              help="Features the AXps may not use (held free), e.g. race,sex.")
@click.option("--immutable", metavar="COL,...",
              help="Features the CXps may not change (held at the instance's values), e.g. "
                   "age: actionable CXps.")
@click.option("--weights", metavar="JSON",
              help="Feature -> cost (others cost 1), a JSON object or @file.json: the AXp and "
                   "the CXp are then cheapest ones, proven optimal; lists go cheapest first.")
@click.option("--max-count", type=click.IntRange(min=1), metavar="N",
              help=f"With --all-axps/--all-cxps: list at most N of each per row (default "
                   f"{DEFAULT_MAX_COUNT}); the output says when more exist.")
@click.option("--time-limit", type=SecondsType(no_limit=True), metavar="S",
              help=f"Seconds allowed to each row (and --instance) for its AXp and CXp, "
                   f"its enumerations (--all-axps/--all-cxps, --weights) and the "
                   f"re-checking of their certificates together (default "
                   f"{DEFAULT_ROW_TIME_LIMIT:g}; none: no limit). The output marks what it "
                   "cut short.")
@click.option("--engine", type=click.Choice(["auto", "path", "sat", "box"]), default="auto",
              show_default=True,
              help="path: polynomial path-walker (trees); sat: PySAT oracle (any model); "
                   "box: exact branch and bound (tree ensembles); auto: path for a tree, box "
                   "for a tree ensemble, sat for a DNF or a decision list and for a model file "
                   "with background "
                   "\"constraints\" (only sat takes them into account).")
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
                   "no certificates); --data is read, explained and written to --output "
                   "chunk by chunk, so memory does not grow with its length.")
@click.option("--output", "-o", metavar="PATH", type=click.Path(),
              help="With --batch: the JSON lines file (a directory for --output-format "
                   "parquet); with --workers/--scheduler: a directory, one file per partition.")
@click.option("--output-format", "out_fmt", type=click.Choice(["jsonl", "parquet"]),
              default="jsonl", show_default=True,
              help="Format of the --batch/--workers/--scheduler output files.")
@click.option("--chunk-rows", type=click.IntRange(min=1), metavar="N",
              help="With --batch: rows read, explained and written together (default "
                   "5000); with the tree, they bound the run's memory.")
@click.option("--workers", type=click.IntRange(min=1), metavar="N",
              help="Explain on a local Dask cluster of N worker processes (needs "
                   'pip install "xdt[dask]"); implies --batch.')
@click.option("--scheduler", metavar="ADDRESS",
              help="Explain on an existing Dask cluster (e.g. tcp://host:8786); implies "
                   "--batch. --output must be on a file system the workers share.")
@click.option("--partitions", type=click.IntRange(min=1), metavar="N",
              help="With --workers/--scheduler: split the data into N partitions.")
@click.option("--skip-invalid", is_flag=True,
              help="With --data: leave out the rows the model cannot read (unknown "
                   "category, missing value, text for a number) and go on; the skipped rows "
                   "and their reasons are listed on stderr at the end (row by row) or "
                   "written to OUT.invalid.jsonl next to --output OUT[.jsonl] (--batch, "
                   "--workers, --scheduler), or to --invalid-output. Without it, such a row "
                   "stops a batch run; row by row, the other rows are printed and the bad "
                   "ones reported after them, with exit code 1.")
@click.option("--invalid-output", metavar="PATH", type=click.Path(dir_okay=False),
              help="With --skip-invalid: the JSON lines file of the skipped rows.")
@click.option("--force", is_flag=True,
              help="With --batch/--workers/--scheduler: replace an existing --output file "
                   "(or the part files of an --output folder) and skipped-rows file (never "
                   "the model or data file of the run); row by row, an existing "
                   "--invalid-output file.")
@click.option("--delta", type=click.FloatRange(0, 1, min_open=True), metavar="D",
              help="Also give a locally minimal delta-AXp: features whose values keep the "
                   "prediction with probability >= D (0 < D <= 1) under the distribution of "
                   "--data (with --instance, --data is only that distribution's data), with "
                   "its exact precision, beside the AXp.")
@click.option("--distribution", "distribution_kind", type=click.Choice(["product",
                                                                         "empirical"]),
              help="With --delta: product (default): the features independent, each as in "
                   "--data (decision trees only); empirical: the rows of --data (any model: "
                   "DNFs, decision lists and ensembles need it).")
@click.option("--coverage", is_flag=True,
              help="With --data: print the share of the feature space (product of the "
                   "data's marginals) and of the data's rows that each AXp covers.")
@cli_errors
def explain(model_path: str, instance: str | None, data: str | None, rows: str | None,
            all_axps: bool, all_cxps: bool, path_restricted: bool, inflate: bool,
            exclude: str | None, immutable: str | None, weights: str | None,
            max_count: int | None, time_limit: float | None, engine: str, solver: str,
            verify: bool, fmt: str, quiet: bool, batch: bool = False,
            output: str | None = None, out_fmt: str = "jsonl", chunk_rows: int | None = None,
            workers: int | None = None, scheduler: str | None = None,
            partitions: int | None = None, skip_invalid: bool = False,
            invalid_output: str | None = None, force: bool = False,
            delta: float | None = None, distribution_kind: str | None = None,
            coverage: bool = False) -> None:
    """Explain a model's predictions: why this class (AXp), what would change it (CXp).

    The model is a decision tree, a DNF, a nested k-DNF, a decision list or a tree
    ensemble (xdt-model/1 JSON, e.g. written by `xdt import`); a DNF and a decision list
    are explained by the SAT engine and a tree
    ensemble by the box engine (--engine auto picks them; --engine sat for an ensemble),
    and --path-restricted is for trees only. Give one instance with --instance, or rows
    of a CSV file with --data. For each, prints the prediction, the length of its path in
    the tree (for a DNF: the terms that hold; for a decision list: the rule that fires),
    one AXp (a minimal set of feature values
    that alone guarantee the prediction, as a rule) and one CXp (a minimal set of features
    whose change can change the prediction, with an example); --all-cxps and
    --all-axps list all of them, at most --max-count (1000 by default) of each per row.
    --time-limit S bounds the whole wait for a row: its enumerations, the re-checking of
    their certificates and the making of their records share the S seconds (10 by
    default, so that a large forest cannot hold a run for hours; none: no limit).
    The output says when an enumeration was cut short, and by what. On a terminal, a counter on
    stderr shows how many have been found while a row enumerates (not with -q). Every
    explanation carries a certificate (witness points, and the proof of entailment) that
    is re-checked against the model's own predictions before it is printed (--no-verify
    skips this); jsonl output includes it (an AXp's witness points as their "changes"
    from the certificate's "instance"),
    with "verified" per explanation. An explanation whose check the time limit cut
    off is printed marked "not verified: time limit". Ctrl-C prints the rows done and
    what the interrupted row had found (marked incomplete), and exits with code 130. A row
    the model cannot read (an empty cell, an unknown category) does not stop the others:
    they are printed, then the bad rows are named with their reasons (exit code 1);
    --skip-invalid leaves them out and lists them on stderr at the end (or writes them to
    --invalid-output), exit code 0. Only
    empty CSV cells are missing values ("NA", "None" are values). Text output shows each
    threshold as the shortest decimal that puts every value the model compares on the
    same side (scikit-learn's float32 test 17.500000953674316 as 17.5); --format jsonl
    keeps exact values, one record per row in the schema xdt-explanation/1 (the record
    --batch writes too; encodings/xdt-explanation-1.schema.json). Row numbers are 0-based
    positions in the CSV.

    On the user's terms: --exclude COL,... gives AXps that do not use those features (or
    says that none exists, with a point showing it); --immutable COL,... gives CXps that
    leave those features at the instance's values; --weights '{"COL": cost}' makes the AXp
    and the CXp cheapest ones (minimum total weight, with the lower bound that proves it)
    and orders the lists by cost.

    \b
    Examples:
      xdt explain model.json --instance '{"x": 0.9, "y": 0.2}'
      xdt explain model.json --data compas.csv --rows 0:3 --exclude African_American,Female
      xdt explain model.json --data compas.csv --rows 0:3 --immutable Age_Above_FourtyFive \\
          --weights '{"Number_of_Priors": 5}' --all-cxps
      xdt explain model.json --instance @instance.json --all-axps --all-cxps
      xdt explain model.json --data german.csv --rows 0:10
      xdt explain model.json --data german.csv --format jsonl > explanations.jsonl
      xdt explain model.json --data german.csv --rows 0:5 --engine sat --inflate
      xdt explain model.json --instance @x.json --delta 0.95 --data train.csv --coverage

    --delta D adds a delta-AXp (Izza et al., IJAR 2023): a locally minimal set of features
    whose values give the prediction with probability at least D, under the product of the
    per-feature distributions of --data (--distribution empirical: its rows), printed with
    its exact precision and the precision after dropping each of its features (each below
    D). With --instance, --data is the distribution's data; with --data alone, its rows are
    both explained and the distribution; --exclude holds for it too. --coverage prints the
    share of the feature space and of the rows of --data that each AXp's rule covers.

    Large tables (decision trees): --batch runs the vectorised batch path-walker (one AXp,
    the one of the per-row engine, and all CXps per row; no certificates) and writes one JSON
    object per row to --output as each chunk is done. It streams --data: it reads
    --chunk-rows rows (default 5000), explains and writes them, and drops them before
    reading the next, so that its memory does not grow with the file's length (the progress
    bar counts the rows done; --rows reads the file once more first, to count its rows).
    Every cell of a feature's column is read by one rule, whatever the chunk. --workers N
    runs it on a local Dask
    cluster of N processes, --scheduler ADDRESS on an existing one, writing one file per
    partition into the --output directory. Ctrl-C stops cleanly: the rows written so far
    are complete, and their number is printed. A row the model cannot read stops the run
    with a message naming it and what was written; --skip-invalid writes such rows to a
    side file instead and goes on. An existing --output is replaced only with --force, and
    never when it is the model or data file. A run holds OUT.lock beside --output OUT while
    it runs: a second run to the same output is refused with the first one's process id.
    A full disk stops the run with complete records only, and says how many rows are on
    disk.

    \b
      xdt explain model.json --data big.csv --batch --output explanations.jsonl
      xdt explain model.json --data 'big-*.csv' --workers 4 --output explanations/
    """
    from xdt.explain import Explainer
    from xdt.explain._models import kind_name
    from xdt.ir._protocol import PATHS, offers

    probabilistic = delta is not None or coverage
    if distribution_kind is not None and delta is None:
        raise click.UsageError("--distribution says how --delta measures precision; add "
                               "--delta D, or leave it out")
    if probabilistic and data is None:
        raise click.UsageError(f"{'--delta' if delta is not None else '--coverage'} "
                               "measures over a dataset: add --data DATA.csv")
    if (instance is None) == (data is None) and not (probabilistic and instance is not None):
        raise click.UsageError("give exactly one of --instance JSON or --data DATA.csv")
    if batch or workers is not None or scheduler is not None:
        _explain_batch_cli(model_path, data, rows, output, out_fmt, chunk_rows, workers,
                           scheduler, partitions, quiet,
                           {"--all-axps": all_axps, "--path-restricted": path_restricted,
                            "--inflate": inflate, "--max-count": max_count is not None,
                            "--time-limit": time_limit is not None,
                            "--engine sat": engine == "sat",
                            "--exclude": exclude is not None,
                            "--immutable": immutable is not None,
                            "--weights": weights is not None,
                            "--delta": delta is not None, "--coverage": coverage},
                           skip_invalid=skip_invalid, invalid_output=invalid_output,
                           force=force)
        return
    batch_only = [name for name, v in (("--output", output), ("--chunk-rows", chunk_rows),
                                       ("--partitions", partitions),
                                       ("--force", None if invalid_output is not None
                                        else force or None)) if v is not None]
    if batch_only:
        raise click.UsageError(f"{', '.join(batch_only)}: only with --batch, --workers or "
                               "--scheduler")
    if instance is not None and skip_invalid:
        raise click.UsageError("--skip-invalid leaves out rows of --data the model cannot "
                               "read; with --instance, leave it out")
    if invalid_output is not None and not skip_invalid:
        raise click.UsageError("--invalid-output names the file of the rows --skip-invalid "
                               "leaves out; add --skip-invalid, or leave it out")
    if rows is not None and (data is None or instance is not None):
        raise click.UsageError("--rows selects rows of --data to explain; it needs --data "
                               "DATA.csv without --instance")
    if max_count is None:
        max_count = DEFAULT_MAX_COUNT
    model = load_model(model_path)
    if not offers(model, PATHS):
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
    measures = None
    if delta is not None and not 0 < delta <= 1:  # click's FloatRange lets nan through
        raise click.BadParameter(f"{delta} is not a number in (0, 1]", param_hint="'--delta'")
    if probabilistic:
        assert data is not None
        measures = _measures(model, data, delta, distribution_kind or "product", coverage)
    skipping = _InvalidRows(skip_invalid, invalid_output, force)
    skipping.check([model_path, *([data] if data is not None else [])])
    with Explainer(model, engine=None if engine == "auto" else engine,
                   solver=solver) as explainer:
        _explain_all(explainer, model, instance, None if instance is not None else data,
                     rows, fmt, quiet,
                     {"all_axps": all_axps, "all_cxps": all_cxps,
                      "path_restricted": path_restricted, "inflate": inflate, "verify": verify,
                      "max_count": max_count, "time_limit": common.resolve_time_limit(time_limit),
                      **_terms(model, exclude, immutable, weights)}, measures,
                     invalid=skipping)


def _terms(model: Model, exclude: str | None, immutable: str | None,
           weights: str | None) -> dict:
    """``--exclude``, ``--immutable`` and ``--weights``, read and checked against the model's
    features before any row is explained (a mistake is a usage error, not a row's)."""
    from xdt.explain.queries._preferences import feature_weights

    out = {"exclude": _names(exclude, "--exclude"),
           "immutable": _names(immutable, "--immutable"),
           "weights": None if weights is None else common.parse_instance(
               weights, "--weights", '{"age": 3, "income": 0.5}', "feature name to cost")}
    for option, names in (("--exclude", out["exclude"]), ("--immutable", out["immutable"]),
                          ("--weights", list(out["weights"] or ()))):
        unknown = [n for n in names or () if n not in model.features]
        if unknown:
            raise click.BadParameter(
                f"unknown feature(s) {', '.join(map(repr, unknown))}; the model's features "
                f"are: {', '.join(model.features.names)}", param_hint=f"'{option}'")
    try:
        feature_weights(model.features, out["weights"])
    except XdtError as e:
        raise click.BadParameter(str(e), param_hint="'--weights'") from None
    return out


def _names(text: str | None, option: str) -> list[str] | None:
    """The feature names of a comma-separated option."""
    if text is None:
        return None
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise click.BadParameter("give feature names separated by commas, e.g. race,sex",
                                 param_hint=f"'{option}'")
    return names


def _measures(model: Model, data: str, delta: float | None, kind: str,
              coverage: bool) -> dict:
    """What ``--delta`` and ``--coverage`` measure with: the distribution of ``--data``
    (read once) and the frame of its rows."""
    from xdt.explain._models import kind_name
    from xdt.explain.queries._probability import EmpiricalDistribution
    from xdt.ir._protocol import PATHS, offers

    if delta is not None and kind == "product" and not offers(model, PATHS):
        raise click.UsageError(
            f"--delta with the product distribution is computed exactly for decision trees, "
            f"and the model is a {kind_name(model)}: add --distribution empirical (the rows "
            "of --data)")
    frame = read_model_csv(data, model)
    validate_rows(model, frame, range(len(frame)))  # names the first bad row, as --data does
    try:
        empirical = EmpiricalDistribution(frame, model)
    except XdtError as e:
        raise DataError(f"{data}: {e}") from None
    dist = empirical if kind == "empirical" else empirical.marginals()
    what = (f"empirical distribution of {empirical.n_rows} rows" if kind == "empirical"
            else f"product distribution of {empirical.n_rows} rows")
    return {"delta": delta, "distribution": dist, "coverage": empirical if coverage else None,
            "what": what}


def _add_measures(record: dict, explainer: Explainer, x: object, measures: dict,
                  verify: bool, certificates: bool) -> None:
    """Add to a record of :func:`explain_one` the delta-AXp (``delta_axp``, with the
    ``distribution`` it was measured under) and the coverage of its AXps."""
    from xdt.explain.queries._probability import fraction_dict, region_coverage

    e = None
    if measures["delta"] is not None:
        try:
            e = explainer.delta_axp(x, measures["delta"],
                                    distribution=measures["distribution"], verify=verify,
                                    exclude=record.get("exclude"))
        except NoExplanationError as err:
            record["delta_axp"] = None
            record["no_delta_axp"] = str(err)
            record["distribution"] = measures["what"]
    if e is not None:
        record["delta_axp"] = e.to_dict(certificates)
        if e.certificate is not None:  # the precision without each feature, below delta
            record["delta_axp"]["drops"] = {k: fraction_dict(v)
                                            for k, v in e.certificate.drops.items()}
        record["distribution"] = measures["what"]
    data = measures["coverage"]
    if data is None:
        return
    cells = explainer.model.cells
    for item in [record.get("axp"), record.get("delta_axp"), *record.get("axps", [])]:
        if item is not None:
            held = [sum(1 << j for j in c) for c in item["cells"]]
            item["coverage"] = region_coverage(cells, item["features"], held, data).to_dict()


def _explain_batch_cli(model_path: str, data: str | None, rows: str | None,
                       output: str | None, out_fmt: str, chunk_rows: int | None,
                       workers: int | None, scheduler: str | None, partitions: int | None,
                       quiet: bool, unsupported: dict[str, bool], *,
                       skip_invalid: bool = False, invalid_output: str | None = None,
                       force: bool = False) -> None:
    """``xdt explain --batch / --workers / --scheduler``: see :mod:`xdt.run`."""
    from xdt.errors import InvalidRowError, OutputExistsError
    from xdt.explain._models import kind_name
    from xdt.run import _records as records
    from xdt.run import _table as table

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
    model = load_model(model_path)
    from xdt.ir._protocol import PATHS, offers

    if not offers(model, PATHS):
        raise click.UsageError(f"the batch path-walker explains decision trees, and "
                               f"{model_path} is a {kind_name(model)}: leave out --batch, "
                               "--workers and --scheduler (the SAT engine explains it)")
    if model.constraints:
        raise click.UsageError(f"the batch path-walker does not take background constraints "
                               f"into account, and {model_path} carries "
                               f"{len(model.constraints)}: leave out --batch, --workers and "
                               "--scheduler (the SAT engine explains it row by row)")
    on_invalid = "skip" if skip_invalid else "raise"
    side = (Path(invalid_output) if invalid_output is not None
            else records.default_invalid_output(output)) if skip_invalid else None
    try:  # before reading the data or starting a cluster
        records.check_output(output, directory=distributed or out_fmt == "parquet",
                             overwrite=force, invalid_output=side,
                             inputs=[model_path, *table.input_files(data), data])
        if distributed:
            summary = _explain_on_dask(model, data, output, out_fmt, workers, scheduler,
                                       partitions, quiet, on_invalid=on_invalid,
                                       invalid_output=side, force=force)
        else:
            chunk = chunk_rows or records.DEFAULT_CHUNK_ROWS
            stream = (table.read_chunks(model, data, chunk) if rows is None
                      else _selected_rows(model, data, rows, chunk))
            summary = table.explain_table(model, stream, output=output, fmt=out_fmt,
                                          progress=not quiet and common.stderr_is_terminal(),
                                          chunk_rows=chunk, on_invalid=on_invalid,
                                          invalid_output=side, overwrite=force)
    except records.BatchInterrupted as e:
        echo(_interrupted_text(e, output, distributed, remote=scheduler is not None),
             err=True)
        raise SystemExit(130) from None
    except KeyboardInterrupt:
        echo("interrupted: 0 rows written", err=True)
        raise SystemExit(130) from None
    except InvalidRowError as e:
        raise click.ClickException(f"{e.detail}; fix the row, or rerun with --skip-invalid "
                                   "to leave such rows out") from None
    except OutputExistsError as e:
        raise click.ClickException(f"{e.detail}; use --force to replace it, or choose "
                                   "another path") from None
    assert isinstance(summary, records.BatchSummary)
    where = output if len(summary.outputs) != 1 else summary.outputs[0]
    n_files, n_parts = len(summary.outputs), summary.partitions
    unit = "partition" if distributed else "chunk"
    skipped = (f"; skipped {summary.skipped} invalid row{'' if summary.skipped == 1 else 's'}"
               f", written with the reasons to {summary.invalid_output}"
               if summary.skipped else "")
    echo(f"wrote {summary.rows} rows to {where} ({n_files} file"
         f"{'' if n_files == 1 else 's'}, {n_parts} {unit}"
         f"{'' if n_parts == 1 else 's'}) in {summary.seconds:.2f} s{skipped}", err=True)


def _selected_rows(model: DecisionTree, data: str, rows: str, chunk_rows: int
                   ) -> Iterator[pd.DataFrame]:
    """The rows of ``--rows`` of the CSV file ``data``, streamed in chunks: the file's rows
    are counted first (one more pass, one chunk in memory), for a slice from the end."""
    from xdt.run import _table as table

    n = sum(len(c) for c in table.read_chunks(model, data, chunk_rows))
    selected = parse_rows(rows, n)
    for frame in table.read_chunks(model, data, chunk_rows):
        if frame.index[0] >= selected.stop:
            return
        keep = frame.loc[selected.start:selected.stop - 1]
        if len(keep):
            yield keep


def _interrupted_text(e: Any, output: str, distributed: bool, remote: bool) -> str:
    """What an interrupted batch run (``xdt.run.BatchInterrupted``) wrote."""
    from xdt.run import _distributed as on_dask
    from xdt.run import _records as records

    text = f"interrupted: {e.rows} rows written (complete records) to "
    if not distributed:
        text += ", ".join(e.outputs) or output
    elif e.partitions:
        text += (f"{output}: {on_dask.describe_partitions(e.partitions)} of {e.total} "
                 f"({records.describe_files(e.outputs)}); the others wrote no file")
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
    """Run :func:`xdt.run.explain_dask` on a local cluster of ``workers`` processes or on
    the cluster at ``scheduler``, with distributed's logs silenced (only xdt's messages
    reach the terminal). Interrupted, a local cluster is closed (its workers stopped) and
    the partition files on disk are what is reported."""
    from xdt.run import _distributed as on_dask
    from xdt.run import _records as records
    from xdt.run import _table as table

    _, distributed = on_dask.require_dask()
    try:
        with contextlib.ExitStack() as stack:
            if workers is not None:
                client = stack.enter_context(on_dask.local_cluster(workers))
            else:
                stack.enter_context(on_dask.quiet_dask_logs())
                problem = _address_problem(scheduler)
                if problem is not None:
                    raise click.BadParameter(
                        f"{scheduler!r} is not a scheduler address ({problem}); write it as "
                        "tcp://HOST:PORT, e.g. tcp://10.0.0.5:8786",
                        param_hint="'--scheduler'")
                try:
                    client = stack.enter_context(distributed.Client(scheduler, timeout="10s"))
                except OSError as e:
                    raise click.ClickException(f"cannot reach the Dask scheduler at "
                                               f"{scheduler!r} ({e})") from None
            return table.explain_dask(model, data, client=client, output=output, fmt=out_fmt,
                                   npartitions=partitions,
                                   progress=not quiet and common.stderr_is_terminal(),
                                   on_invalid=on_invalid, invalid_output=invalid_output,
                                   overwrite=force)
    except records.BatchInterrupted as e:
        if workers is None:
            raise
        done = on_dask.written_partitions(output, out_fmt)
        raise records.BatchInterrupted(sum(r for _, _, r in done), [p for _, p, _ in done],
                                  partitions=[k for k, _, _ in done], total=e.total,
                                  skipped=e.skipped, invalid_output=e.invalid_output) from None


def _address_problem(scheduler: str) -> str | None:
    """Why ``scheduler`` is not a Dask scheduler address (distributed's parser's words), or
    None. Checked before making a ``distributed.Client``: one made of a bad address stays
    this process's default client (and Dask's scheduler) after its error."""
    from distributed.comm import parse_address, parse_host_port
    from distributed.comm.registry import get_backend

    try:
        scheme, location = parse_address(scheduler)
        get_backend(scheme)
        if scheme in ("tcp", "tls", "ws", "wss"):
            parse_host_port(location)
    except (ValueError, TypeError) as e:
        return str(e)
    return None


class _InvalidRows:
    """What ``xdt explain --data`` (row by row) does with the rows the model cannot read:
    without ``--skip-invalid``, the other rows are explained and printed, then the bad rows
    are reported with their reasons (exit code 1); with it, they are listed on standard
    error at the end (exit code 0) and, with ``--invalid-output``, written there as the
    batch run writes them (JSON lines of ``row``, ``reason``, ``values``)."""

    def __init__(self, skip: bool = False, output: str | None = None, force: bool = False):
        self.skip, self.output, self.force = skip, output, force

    def check(self, inputs: Sequence[str]) -> None:
        """Before any work: ``--invalid-output`` can be written, is not an input, and
        exists only with ``--force``."""
        from xdt.errors import OutputExistsError
        from xdt.run._outputs import check_output_file

        if self.output is None:
            return
        path = check_output_file(self.output, inputs=inputs)
        if path.exists() and not self.force:
            raise OutputExistsError(f"{path} exists (the skipped rows of an earlier run)",
                                    path, [str(path)], advice="use --force to replace it, "
                                                              "or choose another path")

    def finish(self, bad: Sequence[dict], total: int) -> None:
        """After the good rows: report ``bad`` (of ``total`` selected rows)."""
        if not bad:
            return
        k = len(bad)
        listed = "; ".join(f"row {r['row']}: {r['reason']}" for r in bad[:20]) + (
            f"; and {k - 20} more" if k > 20 else "")
        if not self.skip and k == total:  # no row printed: as a run of one bad row
            text = f"row {bad[0]['row']}: {bad[0]['reason']}"
            if k > 1:
                text += (f"; none of the {total} selected rows can be read (rows "
                         f"{', '.join(str(r['row']) for r in bad[:10])}"
                         f"{', ...' if k > 10 else ''}); fix them, or rerun with "
                         "--skip-invalid to leave such rows out")
            raise click.ClickException(text)
        if not self.skip:
            raise click.ClickException(
                f"{k} of the {total} selected rows not explained (the model cannot read "
                f"{'it' if k == 1 else 'them'}; the other rows are above): {listed}; fix "
                f"{'it' if k == 1 else 'them'}, or rerun with --skip-invalid to leave such "
                "rows out")
        where = ""
        if self.output is not None:
            from xdt._atomic import write_text

            write_text(self.output,
                       "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in bad))
            where = f", written with the reasons to {self.output}"
        echo(f"skipped {k} invalid row{'' if k == 1 else 's'} of {total}{where}: {listed}",
             err=True)


def _explain_all(explainer: Explainer, model: Model, instance: str | None,
                 data: str | None, rows: str | None, fmt: str, quiet: bool,
                 options: dict, measures: dict | None = None,
                 invalid: _InvalidRows | None = None) -> None:
    """Explain ``--instance`` or the selected rows (:func:`xdt.run.explain_table`, row by
    row with ``explainer``), printing each record as it is done.

    While a row enumerates, a counter of the explanations found so far is drawn on a
    terminal's standard error (not with ``quiet``). On Ctrl-C, the interrupted row is
    printed with what it holds, marked incomplete, then how many rows were done; the exit
    code is 130. The rows the model cannot read are left out and handled by ``invalid``
    (:class:`_InvalidRows`) once the others are printed."""
    from xdt.ir._instances import as_frame
    from xdt.run._instance import ExplainInterrupted
    from xdt.run._record import explanation_record
    from xdt.run._records import invalid_rows
    from xdt.run._table import explain_table

    all_cxps, verify = options["all_cxps"], options["verify"]

    def show(record: dict, label: str, emit: Callable[[str], None]) -> None:
        if fmt == "jsonl":
            emit(json_safe(json.dumps(record, ensure_ascii=False)))
        else:
            emit("\n".join(format_text(record, model, label, all_cxps, verify)))

    single = instance is not None
    counter = _FoundCounter(not quiet and common.stderr_is_terminal(), options["max_count"])

    def explained(x: object, label: str) -> dict:
        """The fields of the record of ``x``, with the measures of --delta/--coverage."""
        counter.label = label
        try:
            fields = explain_one(explainer, x, on_found=counter,
                                 certificates=fmt == "jsonl", **options)
            if measures is not None:
                _add_measures(fields, explainer, x, measures, options["verify"],
                              fmt == "jsonl")
            return fields
        finally:
            counter.close()

    if single:
        x = parse_instance(instance)
        try:
            fields = explained(x, "instance")
        except ExplainInterrupted as e:
            show(explanation_record(None, **e.record), "instance", echo)
            echo("interrupted: 0 of 1 row explained; instance is incomplete (what it "
                 "had found is shown)", err=True)
            raise SystemExit(130) from None
        except KeyboardInterrupt:
            echo("interrupted: 0 of 1 row explained", err=True)
            raise SystemExit(130) from None
        show(explanation_record(None, **fields), "instance", echo)
        return
    assert data is not None
    frame = as_frame(model.features, read_model_csv(data, model))
    selected = parse_rows(rows, len(frame)) if rows is not None else range(len(frame))
    bad = invalid_rows(model, frame, selected)
    skipped = {r["row"] for r in bad}
    positions = [p for p in selected if p not in skipped] if bad else selected
    invalid = invalid or _InvalidRows()
    steps = _progress(positions, not quiet and common.stderr_is_terminal()
                      and len(positions) > PROGRESS_MIN_ROWS)
    done = 0
    current: list = []  # the row being explained: (position, emit)

    def row_fields(explainer: Explainer, x: dict) -> dict:
        current[:] = next(steps)
        pos = current[0]
        try:
            return explained(x, f"row {pos}")
        except XdtError as e:
            raise DataError(f"row {pos}: {e}") from None

    def print_row(record: dict, found: object, x: dict) -> None:
        nonlocal done
        show(record, f"row {record['row']}", current[1])
        done += 1

    try:
        if len(positions):
            explain_table(model, frame.iloc[list(positions)], engine=explainer,
                          options=row_fields, on_row=print_row, progress=False)
        next(steps, None)  # the last row's step: the bar's last update
    except KeyboardInterrupt as e:
        counter.close()
        steps.close()  # clears the rows' progress bar
        total = len(positions)
        where = f"{done} of {total} row{'' if total == 1 else 's'} explained"
        if isinstance(e, ExplainInterrupted):
            pos = positions[done]
            show(explanation_record(pos, **e.record), f"row {pos}", echo)
            where += f"; row {pos} is incomplete (what it had found is shown)"
        if bad:
            where += (f"; {len(bad)} row{'' if len(bad) == 1 else 's'} the model cannot read "
                      f"left out ({', '.join(str(r['row']) for r in bad[:10])}"
                      f"{', ...' if len(bad) > 10 else ''})")
        echo(f"interrupted: {where}", err=True)
        raise SystemExit(130) from None
    finally:
        steps.close()
    invalid.finish(bad, len(selected))


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
            yield pos, echo
        return
    from tqdm import tqdm

    with tqdm(total=len(positions), desc="explaining", unit="row", file=sys.stderr,
              dynamic_ncols=True, leave=False) as bar:
        out = sys.stdout
        interleave = out.isatty() if hasattr(out, "isatty") else False

        def emit(text: str) -> None:
            if interleave:
                bar.write(common.terminal_safe(text), file=out)
            else:
                echo(text)

        for pos in positions:
            yield pos, emit
            bar.update(1)
