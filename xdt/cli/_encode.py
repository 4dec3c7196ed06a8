"""``xdt encode``: write the SAT query of one instance as DIMACS CNF (WCNF for sums of trees)."""

from __future__ import annotations

import click

from xdt.cli._app import main
from xdt.cli._common import cli_errors, echo, load_model, outcome, parse_instance


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

    The model is a decision tree, a DNF, a nested k-DNF, a decision list or a voting tree
    ensemble (--path-restricted: trees only); an ensemble of summed probabilities or margins has
    no exact CNF: write its MaxSAT query with xdt.explain.export.write_wcnf.
    The formula holds for the points the model classifies differently from the instance,
    with one selector variable per feature: assuming it fixes the feature to the instance's
    value. With all selectors assumed (as unit clauses) it is UNSAT. A set S of features is
    a weak AXp (fixing S alone entails the prediction) exactly when the formula plus the
    unit clauses of S's selectors is UNSAT; when SAT, the model is a counterexample point.
    Comment lines name every variable (feature = value, x > threshold, selector of F, term
    p holds, rule i of a decision list holds, auxiliary) and list the selectors as JSON
    (`c selectors {...}`).

    \b
    Examples:
      xdt encode model.json --instance '{"x": 0.9, "y": 0.2}' -o query.cnf
      xdt encode model.json -i @instance.json --path-restricted -o - | grep '^c selectors'
    """
    from xdt._atomic import write_text
    from xdt.explain._models import kind_name
    from xdt.explain.export._dimacs import encode_query
    from xdt.ir._protocol import PATHS, offers
    from xdt.run._outputs import check_output_file

    if output != "-":
        read = [model_path, *([instance[1:]] if instance.startswith("@") else [])]
        check_output_file(output, inputs=read)
    model = load_model(model_path)
    if path_restricted and not offers(model, PATHS):
        raise click.UsageError(
            f"--path-restricted holds features to the instance's path in a decision tree, and "
            f"{model_path} is a {kind_name(model)}, which has no paths: leave it out")
    query = encode_query(model, parse_instance(instance), path_restricted=path_restricted,
                         source=model_path)
    text = query.to_text()
    if output == "-":
        echo(text, nl=False)
        return
    write_text(output, text)
    selectors = " ".join(f"{name}={v}" for name, v in query.selectors.items())
    echo(f"wrote {output}: {query.n_vars} variables, {len(query.clauses)} clauses; "
         f"prediction {outcome(model, query.prediction)}")
    echo(f"selectors: {selectors}")
    echo("all selectors as unit clauses: UNSAT; the selectors of a set S: UNSAT exactly "
         "when S is a weak AXp")
