"""One reader: every entry point -- the Explainer's queries on one instance, ``model.predict``
on a dict, a Series, a small and a large DataFrame, ``Explainer.explain_batch``, the chunked
runner (``xdt.run.explain_table``, in memory and to a file) and the command line -- accepts
the same values and refuses each bad one with the same error class, the rule of
:mod:`xdt.ir._cells`: an ordinal feature reads real numbers (not bools, not text), a
categorical or binary one the values of its domain (a number equal to one reads as it).

Files are text: a CSV field is read into a number once, when the file is read
(:func:`xdt.interop._csvfile.number_columns`), and the same rule then applies."""

from __future__ import annotations

import json
import math
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import xdt
import xdt.run as xb
from xdt.cli import main
from xdt.cli._common import read_csv
from xdt.errors import (
    InstanceError,
    InvalidRowError,
    MissingValueError,
    UnknownCategoryError,
    ValueOutOfRangeError,
    XdtError,
)
from xdt.interop._csvfile import number_columns
from xdt.ir import Branch, CategoricalSplit, DecisionTree, Feature, Leaf, ThresholdSplit

# x <= 0.5 -> no; else c = u -> yes, c = v -> no; b is read but never tested
TREE = DecisionTree([Feature("x", "ordinal"), Feature("b", "binary"),
                     Feature("c", "categorical", ("u", "v"))], ["no", "yes"],
                    ThresholdSplit("x", 0.5, Leaf("no"),
                               CategoricalSplit("c", (Branch(("u",), Leaf("yes")),
                                                      Branch(("v",), Leaf("no"))))))
BASE = {"x": 0.9, "b": 0, "c": "u"}

#: (feature, value, the error class, or None when the value is read)
CASES = [
    ("x", 0.1, None), ("x", 1, None), ("x", np.float32(0.7), None), ("x", np.int8(3), None),
    ("x", np.float64(0.2), None), ("x", Decimal("0.7"), None), ("x", Fraction(1, 2), None),
    ("x", True, InstanceError), ("x", np.True_, InstanceError), ("x", "5", InstanceError),
    ("x", "0.7", InstanceError), ("x", b"1", InstanceError), ("x", "abc", InstanceError),
    ("x", 1j, InstanceError), ("x", pd.Timestamp(0), InstanceError),
    ("x", None, MissingValueError), ("x", math.nan, MissingValueError),
    ("x", pd.NA, MissingValueError), ("x", math.inf, ValueOutOfRangeError),
    ("x", 2**1100, ValueOutOfRangeError),
    ("b", True, None), ("b", np.False_, None), ("b", 1.0, None), ("b", np.int64(1), None),
    ("b", Decimal(1), None), ("b", 2, UnknownCategoryError), ("b", "1", UnknownCategoryError),
    ("b", None, MissingValueError),
    ("c", "v", None), ("c", np.str_("v"), None), ("c", "w", UnknownCategoryError),
    ("c", 1, UnknownCategoryError), ("c", None, MissingValueError),
]


def outcome(call) -> tuple[type | None, object]:
    """``(None, result)`` or ``(the error class, the error)``; the chunked runner's
    :class:`InvalidRowError` counts as the reader's error it was raised from."""
    try:
        return None, call()
    except XdtError as e:
        if isinstance(e, InvalidRowError):
            assert isinstance(e.__cause__, InstanceError), e
            e = e.__cause__
        return type(e), e


def entry_points(row: dict, tmp_path) -> dict:
    """Each entry point, reading ``row`` (as the only row, or after a good one)."""
    ex = xdt.Explainer(TREE)
    two = pd.DataFrame([BASE, row], dtype=object)
    many = pd.DataFrame([BASE] * 40 + [row], dtype=object)  # read column by column

    def sat() -> object:
        with xdt.Explainer(TREE, engine="sat") as s:
            return s.axp(row)

    return {
        "Explainer.axp": lambda: ex.axp(row),
        "Explainer.all_cxps": lambda: ex.all_cxps(row),
        "Explainer.predict": lambda: ex.predict(row),
        "Explainer(engine='sat').axp": sat,
        "predict(dict)": lambda: TREE.predict(row),
        "predict(Series)": lambda: TREE.predict(pd.Series(row, dtype=object)),
        "predict(one-row frame)": lambda: TREE.predict(pd.DataFrame([row])),
        "predict(small frame)": lambda: TREE.predict(two),
        "predict(large frame)": lambda: TREE.predict(many),
        "predict([dict, dict])": lambda: TREE.predict([BASE, row]),
        "explain_batch": lambda: ex.explain_batch(two),
        "explain_batch(large frame)": lambda: ex.explain_batch(many),
        "run.explain_table": lambda: xb.explain_table(TREE, many, chunk_rows=16,
                                                      progress=False),
        "run.explain_table(output)": lambda: xb.explain_table(
            TREE, many, chunk_rows=16, progress=False, output=tmp_path / "out.jsonl",
            overwrite=True),
    }


@pytest.mark.parametrize(("feature", "value", "error"), CASES,
                         ids=[f"{f}={v!r}" for f, v, _ in CASES])
def test_every_entry_point_reads_a_value_alike(feature, value, error, tmp_path):
    row = {**BASE, feature: value}
    got = {name: outcome(call)[0] for name, call in entry_points(row, tmp_path).items()}
    assert got == dict.fromkeys(got, error)


def _json_value(value: object) -> bool:
    return type(value) in (int, float, str, bool) or value is None


@pytest.mark.parametrize(("feature", "value", "error"),
                         [c for c in CASES if _json_value(c[1])],
                         ids=[f"{f}={v!r}" for f, v, _ in CASES if _json_value(v)])
def test_the_command_line_reads_an_instance_alike(feature, value, error, tmp_path):
    """``xdt explain --instance JSON``: the same accept/refuse, with the message of the
    error ``Explainer.axp`` raises (so of the same class)."""
    model = tmp_path / "model.json"
    xdt.save_model(TREE, model)
    row = {**BASE, feature: value}
    result = CliRunner().invoke(main, ["explain", str(model), "--instance", json.dumps(row),
                                       "--format", "jsonl"])
    cls, e = outcome(lambda: xdt.Explainer(TREE).axp(row))
    assert cls is error
    if error is None:
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)["axp"]["features"] == list(e.features)
    else:
        assert result.exit_code == 1
        assert result.stderr.strip() == f"Error: {e}"


#: CSV fields of x, each read as pandas reads the file and then as a number where it is one
FIELDS = ["0.9", "5", "1e3", "-2", "abc", "", "inf", "True", "0x10"]


def test_a_csv_file_is_read_as_its_typed_values_everywhere(tmp_path):
    """A CSV field is text: it is read into a number once, when the file is read; then the
    rows of the file are read as the same typed values are anywhere else (the
    per-row command, ``--batch``, and the Python API on the typed rows)."""
    model = tmp_path / "model.json"
    xdt.save_model(TREE, model)
    data = tmp_path / "rows.csv"
    data.write_text("x,b,c\n" + "".join(f"{v},0,u\n" for v in FIELDS))
    typed = number_columns(TREE.features, read_csv(data))
    assert typed["x"].tolist()[:4] == [0.9, 5.0, 1000.0, -2.0]
    for i, field in enumerate(FIELDS):
        row = {k: (None if pd.isna(v) else v) for k, v in typed.iloc[i].items()}
        cls, e = outcome(lambda row=row: xdt.Explainer(TREE).axp(row))
        assert cls is {"abc": InstanceError, "": MissingValueError,
                       "inf": ValueOutOfRangeError, "True": InstanceError,
                       "0x10": InstanceError}.get(field), field
        per_row = CliRunner().invoke(main, ["explain", str(model), "--data", str(data),
                                            "--rows", f"{i}:{i + 1}", "--format", "jsonl"])
        batch = CliRunner().invoke(main, ["explain", str(model), "--data", str(data),
                                          "--rows", f"{i}:{i + 1}", "--batch", "-o",
                                          str(tmp_path / f"b{i}.jsonl")])
        if cls is None:
            assert per_row.exit_code == 0 and batch.exit_code == 0, field
            assert json.loads(per_row.stdout)["axp"]["features"] == list(e.features)
            continue
        # the same reader on the same typed row, as a table: its message, its class
        table_cls, table_error = outcome(lambda i=i: TREE.predict(typed.iloc[[i]]))
        assert table_cls is cls
        assert per_row.exit_code == 1 and batch.exit_code == 1, field
        assert per_row.stderr.strip() == f"Error: row {i}: {table_error}"
        assert f"row {i}: {table_error}" in batch.stderr


def test_the_readers_examples_run():
    import doctest

    from xdt.interop import _csvfile as csvfile
    from xdt.ir import _cells as cells

    for module in (cells, csvfile):
        assert doctest.testmod(module, optionflags=doctest.ELLIPSIS).failed == 0, module
