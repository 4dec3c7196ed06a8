"""``xdt import``: an XGBoost or LightGBM model file as an xdt model, checked against it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from xdt.cli._app import main
from xdt.cli._common import (
    check_one_line_names,
    cli_errors,
    describe_features,
    echo,
    split_names,
)
from xdt.errors import DataError

# ---------------------------------------------------------------------- xdt import
IMPORTERS = {"xgboost": "from_xgboost", "lightgbm": "from_lightgbm"}


def _feature_names_option(features_file: str | None, names: list[str]) -> list[str] | None:
    """The feature names of ``--features FILE`` (one a line) or ``--feature-names a,b``."""
    if features_file is not None and names:
        raise click.UsageError("give the feature names once: --features FILE or "
                               "--feature-names a,b,c, not both")
    if features_file is None:
        return names or None
    try:
        text = Path(features_file).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise click.UsageError(f"no feature-name file at {features_file!r}") from None
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        raise click.UsageError(f"{features_file} holds no feature names; write one a line")
    return lines


def probe_points(model: Any) -> list[list]:
    """Points at, and one float64 / float32 step either side of, every threshold of an
    ensemble (one feature moved at a time from a base point), and every value of each
    categorical feature: where an importer's comparisons would show a difference."""
    import numpy as np

    base = [cells.value(0) if feature.is_ordinal else feature.domain[0]
            for feature, cells in zip(model.features, model.cells, strict=True)]
    out = [list(base)]
    for f, (feature, cells) in enumerate(zip(model.features, model.cells, strict=True)):
        if feature.is_ordinal:
            values: set = set()
            for t in cells.thresholds.tolist():
                t32 = np.float32(t)
                values |= {t, float(np.nextafter(t, np.inf)), float(np.nextafter(t, -np.inf)),
                           float(np.nextafter(t32, np.float32(np.inf))),
                           float(np.nextafter(t32, np.float32(-np.inf)))}
        else:
            values = set(feature.domain)
        # a step past float32's largest value is infinite: no row holds it
        values = {v for v in values if not isinstance(v, float) or np.isfinite(v)}
        for v in sorted(values, key=str):
            row = list(base)
            row[f] = v
            out.append(row)
    return out


@main.command("import", short_help="Import an XGBoost or LightGBM model file as an xdt model.")
@click.argument("model_file", metavar="FILE", type=click.Path(dir_okay=False))
@click.option("--from", "library", required=True, type=click.Choice(sorted(IMPORTERS)),
              help="The library that wrote FILE.")
@click.option("--features", "features_file", metavar="NAMES.txt",
              type=click.Path(dir_okay=False),
              help="The feature names, one a line, in column order (default: those in FILE, "
                   "else f0, f1, ... / Column_0, ...).")
@click.option("--feature-names", metavar="A,B,C", callback=split_names,
              help="The feature names as one comma-separated list (instead of --features).")
@click.option("--classes", metavar="A,B,C", callback=split_names,
              help="The class labels in the library's class order (the files keep none; "
                   "default 0, 1, ...).")
@click.option("--target", "-t", metavar="NAME", help="Name of the predicted variable.")
@click.option("--output", "-o", required=True, metavar="MODEL.json",
              type=click.Path(dir_okay=False, writable=True),
              help="Where to write the model (xdt-model/1 JSON, kind tree-ensemble).")
@cli_errors
def import_model(model_file: str, library: str, features_file: str | None,
                 feature_names: list[str], classes: list[str], target: str | None,
                 output: str) -> None:
    """Read a boosted-trees model from the library's own file and write it as an xdt model.

    \b
    Files (never pickles):
      xgboost   the JSON (or UBJ) file of XGBClassifier/Booster.save_model("m.json")
      lightgbm  the text file of Booster.save_model("m.txt"), or the JSON of
                json.dump(booster.dump_model(), f)

    The model becomes a tree ensemble of additive margins (kind tree-ensemble) that predicts
    exactly what the library predicts: XGBoost's float32 comparisons and sums, LightGBM's
    float64 ones, and each library's tie rule (xdt.from_xgboost, xdt.from_lightgbm). As a
    check, the imported model and the library predict the same class on points at, and one
    float64 / float32 step either side of, every threshold, and on every category (not for a
    LightGBM JSON dump, which LightGBM cannot load). Models xdt cannot represent exactly
    (regression or ranking objectives, multi-output, LightGBM's multiclassova, rf mode,
    linear trees, zero-as-missing splits against their threshold) are refused with the
    reason. Before the library reads FILE, xdt checks its structure (children in range and
    reached once, features below the feature count, finite thresholds, tree_info and
    categories consistent, counts the file can hold) and refuses a damaged or crafted file
    naming the tree and node. Model files over 512 MiB are refused before they are read
    (raise the limit with the environment variable XDT_MAX_MODEL_BYTES). `xdt explain
    MODEL.json` then reads the written file.

    \b
    Examples:
      xdt import model.json --from xgboost --feature-names age,income -o xdt-model.json
      xdt import model.txt --from lightgbm --classes no,yes -o xdt-model.json
      xdt import model.ubj --from xgboost --features names.txt -o xdt-model.json
    """
    import numpy as np

    from xdt.run._outputs import check_output_file

    check_output_file(output, inputs=[model_file, *([features_file] if features_file else [])])
    names = _feature_names_option(features_file, feature_names)
    import xdt.interop

    importer = getattr(xdt.interop, IMPORTERS[library])
    model = importer(model_file, names, classes=classes or None, target=target)
    checked = ""
    if model.reference is not None:
        points = probe_points(model)
        ours = model.predict(points)
        theirs = model.reference(np.asarray(points, dtype=object))
        differ = [i for i, (a, b) in enumerate(zip(ours, theirs, strict=True)) if a != b]
        if differ:
            raise DataError(
                f"the imported model predicts differently from {library} on "
                f"{len(differ)} of {len(points)} points at its thresholds (first: "
                f"{points[differ[0]]}); if {model_file} is the library's own file, unedited, "
                "this is a bug in xdt's importer, please report it; else save the model again "
                "with the library")
        checked = f"; predicts like {library} on {len(points)} points at every threshold"
    check_one_line_names(model, model_file)
    xdt.save_model(model, output)  # through a temporary file renamed into place
    per_class = "1 margin" if model.n_scores == 1 else f"{model.n_scores} margins"
    echo(f"read {model_file}: {library} {model.source.get('objective')}, "
         f"{model.n_trees} trees ({model.n_nodes} nodes, depth {model.depth}), "
         f"{describe_features(model)}, classes {', '.join(map(str, model.classes))} "
         f"({per_class}, {model.precision} sums){checked}")
    echo(f"saved {output}")
    echo(f"next: xdt explain {output} --instance '{{...}}'")
