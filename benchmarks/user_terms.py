"""What each query on the user's terms costs, against the plain AXp on the same rows.

On decision trees fitted by xdt's CART (depth 6, native categorical features) on compas,
adult-xreason and german (``../shared/datasets``), for each test row, interleaved: the plain
one AXp by deletion, then each query of the table, each on its own reused ``Explainer`` (so
every call builds the row's oracle once, as a first call on a row does). Times are CPU time
(``time.process_time_ns``), per call; each line gives the median of its time and the median
over the rows of its per-row ratio to the plain AXp of the same row and engine. Certificates
are off (``certificates=False``): these are the searches' costs; ``verify=True`` adds the
certificate checks (see ``engines.py``).

Queries:

* ``axp exclude=S``: one AXp avoiding the sensitive features S (rows with no such AXp raise
  ``NoExplanationError``, which is timed too, and counted);
* ``all_cxps`` and ``all_cxps immutable=A``: all CXps, and the actionable ones leaving the
  features A alone;
* ``smallest_axp`` (unit weights) and ``smallest_axp weights=W``, ``smallest_cxp weights=W``:
  W gives each feature the number of its cells (checking a many-valued feature costs more);
  cheapest explanations by RC2 implicit hitting sets;
* ``all_axps`` and ``all_axps weights=W`` (cheapest first), capped at 50 per row;
* under the background constraints of :data:`CONSTRAINTS` (facts of the data: one-hot
  groups, definitions; the SAT engine only, which enforces them): one AXp, a smallest AXp
  and all AXps (capped at 50), against the SAT engine's plain AXp; the notes count the rows
  whose constrained AXp is shorter than the plain one (same deletion order) and the rows
  that violate a constraint (skipped);
* ``delta_axp 0.95`` under the product of the training rows' marginals (path engine only:
  the precision is computed over the tree's paths, whatever the engine), with ``exclude=S``
  too, and ``coverage`` of the plain AXp on the training rows (the AXp's time excluded),
  given the DataFrame (read and encoded at each call) or an ``EmpiricalDistribution`` of it
  (encoded once).

Each ratio is measured against the plain AXp of the path engine, and for the SAT engine
against the SAT engine's plain AXp.

    python benchmarks/user_terms.py [--rows 60] [--markdown] [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import DATASETS  # noqa: E402

import xdt  # noqa: E402
from xdt.errors import NoExplanationError  # noqa: E402
from xdt.explain.queries._probability import EmpiricalDistribution, ProductDistribution  # noqa: E402
from xdt.interop._fit import fit_tree  # noqa: E402

RACES = ["African_American", "Asian", "Hispanic", "Native_American", "Other"]
CONSTRAINTS = {
    # dataset: background constraints true of the data (one-hot groups, definitions)
    "compas": ["NOT (Age_Above_FourtyFive = 1 AND Age_Below_TwentyFive = 1)"]
    + [f"NOT ({a} = 1 AND {b} = 1)" for i, a in enumerate(RACES) for b in RACES[i + 1:]],
    "adult-xreason": ["NOT (Relationship = Husband AND Sex = Female)",
                      "NOT (Relationship = Wife AND Sex = Male)",
                      "Relationship in {Husband, Wife} -> Marital Status = Married"],
    "german": ["age_cat = young -> age <= 25.5", "age_cat = old -> age > 25.5"],
}
CASES = {
    # dataset: (file, target, sensitive features excluded from AXps, immutable features)
    "compas": ("compas.csv", "Two_yr_Recidivism",
               ["African_American", "Asian", "Hispanic", "Native_American", "Other",
                "Female"], ["Age_Above_FourtyFive", "Age_Below_TwentyFive", "Female"]),
    "adult-xreason": ("adult-xreason.csv.gz", "Target", ["Race", "Sex"],
                      ["Age", "Race", "Sex", "Country"]),
    "german": ("german.csv", "class", ["personal_status", "age", "age_cat", "foreign_worker"],
               ["age", "age_cat", "personal_status", "foreign_worker"]),
}
MAX_LISTED = 50


@dataclass
class Line:
    """The per-row times of one query, and of the plain AXp it is compared with."""

    engine: str
    query: str
    times: list[float] = field(default_factory=list)
    ratios: list[float] = field(default_factory=list)
    notes: dict[str, int] = field(default_factory=dict)


def cpu(fn: Callable[..., object], *args: object) -> tuple[float, object]:
    start = time.process_time_ns()
    try:
        out = fn(*args)
    except NoExplanationError as e:
        out = e
    return (time.process_time_ns() - start) / 1e9, out


def queries(model, sensitive: list[str], immutable: list[str], engine: str,
            train: pd.DataFrame) -> dict:
    weights = {c.name: c.n_cells for c in model.cells}
    extra = {}
    if engine == "path":
        dist = ProductDistribution.from_data(train, model)
        extra = {
            "delta_axp 0.95": lambda ex, x: ex.delta_axp(x, 0.95, distribution=dist),
            "delta_axp 0.95 exclude=S": lambda ex, x: ex.delta_axp(
                x, 0.95, distribution=dist, exclude=sensitive),
            "coverage of the AXp (DataFrame)": _Coverage(train),
            "coverage of the AXp (rows read once)": _Coverage(
                EmpiricalDistribution(train, model)),
        }
    return extra | {
        "axp exclude=S": lambda ex, x: ex.axp(x, exclude=sensitive),
        "all_cxps": lambda ex, x: ex.all_cxps(x),
        "all_cxps immutable=A": lambda ex, x: ex.all_cxps(x, immutable=immutable),
        "smallest_axp": lambda ex, x: ex.smallest_axp(x),
        "smallest_axp weights=W": lambda ex, x: ex.smallest_axp(x, weights=weights),
        "smallest_cxp weights=W": lambda ex, x: ex.smallest_cxp(x, weights=weights),
        "all_axps (<= 50)": lambda ex, x: ex.all_axps(x, max_count=MAX_LISTED),
        "all_axps weights=W (<= 50)": lambda ex, x: ex.all_axps(x, weights=weights,
                                                                 max_count=MAX_LISTED),
    }


class _Coverage:
    """``coverage`` of a row's plain AXp on the training rows: the AXp is computed first and
    not timed (``prepare``)."""

    def __init__(self, train: pd.DataFrame | EmpiricalDistribution):
        self.train = train

    def prepare(self, ex, x):
        return ex.axp(x)

    def __call__(self, explanation):
        return explanation.coverage(self.train)


def constrained(model, rows: list[dict]) -> list[Line]:
    """The SAT engine's queries under ``model``'s background constraints, against its plain
    AXp on the unconstrained model."""
    from xdt.errors import ConstraintViolationError

    plain_ex = xdt.Explainer(model.with_constraints(None), "sat", certificates=False)
    qs = {"axp under constraints": lambda ex, x: ex.axp(x),
          "smallest_axp under constraints": lambda ex, x: ex.smallest_axp(x),
          "all_axps under constraints (<= 50)": lambda ex, x: ex.all_axps(
              x, max_count=MAX_LISTED)}
    exs = {q: xdt.Explainer(model, "sat", certificates=False) for q in qs}
    mine = {q: Line("sat", q) for q in qs}
    mine["axp under constraints"].notes = {"shorter": 0, "violate a constraint": 0}
    for i, x in enumerate(rows):
        try:
            exs["axp under constraints"].predict(x)
        except ConstraintViolationError:
            line = mine["axp under constraints"]
            line.notes["violate a constraint"] += 1
            continue
        base, plain = cpu(plain_ex.axp, x)
        got = {q: cpu(fn, exs[q], x) for q, fn in qs.items()}
        if i == 0:
            continue
        for q, (t, _) in got.items():
            mine[q].times.append(t)
            mine[q].ratios.append(t / base if base > 0 else float("nan"))
        if len(got["axp under constraints"][1]) < len(plain):
            mine["axp under constraints"].notes["shorter"] += 1
    for ex in (plain_ex, *exs.values()):
        ex.close()
    return list(mine.values())


def run(name: str, n_rows: int, engines: tuple[str, ...]) -> tuple[list[Line], str]:
    file, target, sensitive, immutable = CASES[name]
    frame = pd.read_csv(DATASETS / file, keep_default_na=False)
    fitted = fit_tree(frame, target, max_depth=6)
    model = fitted.model
    rows = fitted.test.drop(columns=target).drop_duplicates().iloc[:n_rows + 1]
    rows = rows.to_dict("records")
    lines: list[Line] = []
    for engine in engines:
        plain_ex = xdt.Explainer(model, engine, certificates=False)
        qs = queries(model, sensitive, immutable, engine, fitted.train)
        exs = {q: xdt.Explainer(model, engine, certificates=False) for q in qs}
        mine = {q: Line(engine, q) for q in qs}
        for i, x in enumerate(rows):
            base, _ = cpu(plain_ex.axp, x)
            got = {}
            for q, fn in qs.items():
                got[q] = (cpu(fn, fn.prepare(exs[q], x)) if isinstance(fn, _Coverage)
                          else cpu(fn, exs[q], x))
            if i == 0:
                continue  # warm-up row: compilation and first-call costs
            for q, (t, out) in got.items():
                line = mine[q]
                line.times.append(t)
                line.ratios.append(t / base if base > 0 else float("nan"))
                if isinstance(out, NoExplanationError):
                    what = "no delta-AXp avoids S" if "delta" in q else "no AXp avoids S"
                    line.notes[what] = line.notes.get(what, 0) + 1
            mine.setdefault("axp", Line(engine, "axp (plain)")).times.append(base)
        lines.append(mine.pop("axp"))
        lines += mine.values()
        for ex in (plain_ex, *exs.values()):
            ex.close()
        if engine == "sat":
            lines += constrained(model.with_constraints(CONSTRAINTS[name]), rows)
    about = (f"{name}: CART depth 6, {len(model.paths)} paths, {len(model.features)} "
             f"features; {len(rows) - 1} test rows; S = {', '.join(sensitive)}; "
             f"A = {', '.join(immutable)}")
    return lines, about


def table(lines: list[Line], markdown: bool) -> str:
    head = ["engine", "query", "median CPU s", "median ratio to plain AXp", "notes"]
    body = []
    for ln in lines:
        ratio = ("1 (the reference)" if not ln.ratios
                 else f"{statistics.median(ln.ratios):.2f}x")
        notes = ", ".join(f"{k}: {v} rows" for k, v in ln.notes.items())
        body.append([ln.engine, ln.query, f"{statistics.median(ln.times):.2e}", ratio, notes])
    if markdown:
        out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        out += ["| " + " | ".join(r) + " |" for r in body]
        return "\n".join(out)
    widths = [max(len(r[i]) for r in [head, *body]) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True))
                     for r in [head, *body])


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=60, help="test rows per dataset (60)")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--quick", action="store_true", help="compas only, 8 rows, path engine")
    args = ap.parse_args(argv)
    names = ["compas"] if args.quick else list(CASES)
    n_rows = 8 if args.quick else args.rows
    engines = ("path",) if args.quick else ("path", "sat")
    start = time.process_time()
    for name in names:
        lines, about = run(name, n_rows, engines)
        print(f"\n{about}\n")
        print(table(lines, args.markdown))
    print(f"\ntotal CPU time: {time.process_time() - start:.1f} s")


if __name__ == "__main__":
    main()
