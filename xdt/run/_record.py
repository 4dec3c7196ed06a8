"""One record per explained row: the schema ``xdt-explanation/1`` and the function that builds
a record (:func:`explanation_record`).

Every output of explanations of rows writes this one record: ``xdt explain --format jsonl``,
``xdt explain --batch`` / ``--workers`` / ``--scheduler``, :func:`xdt.run.explain_table` and
:func:`xdt.run.explain_dask` (in memory, JSON lines or Parquet), and the data of the HTML
report (``xdt report``). The JSON Schema is ``encodings/xdt-explanation-1.schema.json``;
``docs/large-tables.md`` describes the fields. A record is a JSON object:

* ``format``: ``"xdt-explanation/1"``, the schema and its version (always first);
* ``row``: the row's label (its index label in a table, its 0-based position in a file;
  ``null`` for a lone ``--instance``), and ``prediction``, the model's class;
* ``axp``: one AXp (an explanation object, ``null`` when none avoids the excluded
  features), with ``axp_size``, its number of features; ``cxps``: the CXps (all of them, or
  one), with ``n_cxps``; ``axps``: all AXps, when asked;
* an **explanation object** always has ``features`` (names, in feature order); the per-row
  engines add ``kind``, ``values``, ``literals``, ``rule``, ``cells``, ``certificate``,
  ``verified`` and more (:meth:`xdt.explain.Explanation.to_dict`), the batch
  path-walker only ``kind`` and ``features``;
* what decided the prediction (``path``, ``path_length``, ``path_redundant`` for a tree,
  ``scores`` for a tree ensemble, ``firing_rule`` for a decision list, ``true_terms`` for a
  DNF), the user's terms (``exclude``, ``immutable``, ``weights``), how enumerations ended
  (``axps_complete``, ``axps_stopped_by``, ...), a delta-AXp (``delta_axp``) and the row's
  true ``label``, where the output has them.

Examples
--------
>>> explanation_record(7, prediction="good", axp=("duration", "age"), cxps=[("age",)])
... # doctest: +NORMALIZE_WHITESPACE
{'format': 'xdt-explanation/1', 'row': 7, 'prediction': 'good',
 'axp': {'kind': 'AXp', 'features': ['duration', 'age']}, 'axp_size': 2,
 'cxps': [{'kind': 'CXp', 'features': ['age']}], 'n_cxps': 1}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from xdt.errors import ParameterError
from xdt.explain._explanation import Explanation
from xdt.ir._values import to_python

__all__ = ["FIELDS", "RECORD_FORMAT", "SCHEMA_FILE", "explanation_object",
           "explanation_record", "explanation_records"]

RECORD_FORMAT = "xdt-explanation/1"
"""The value of every record's ``format`` field: the schema and its version."""
SCHEMA_FILE = "encodings/xdt-explanation-1.schema.json"
"""Where the JSON Schema of the record is, in the source repository."""

FIELDS = (
    "format", "row", "prediction", "label",
    "path", "path_length", "path_redundant", "scores", "firing_rule", "true_terms",
    "path_restricted", "exclude", "immutable", "weights",
    "axp", "axp_size", "no_axp", "delta_axp", "no_delta_axp", "distribution",
    "axps", "axps_complete", "axps_stopped_by",
    "cxps", "n_cxps", "cxps_complete", "cxps_stopped_by", "cxp_stopped",
    "interrupted",
)
"""The fields of a record, in the order a record writes them (see the schema)."""
_ORDER = {name: k for k, name in enumerate(FIELDS)}
_KINDS = {"axp": "AXp", "axps": "AXp", "cxps": "CXp", "delta_axp": "delta-AXp"}


def explanation_object(e: Explanation | Mapping | Sequence[str] | None, kind: str | None = None,
                       certificates: bool = True) -> dict | None:
    """An explanation as a record writes it.

    Parameters
    ----------
    e : Explanation, dict, sequence of str or None
        An :class:`~xdt.explain.Explanation` (written by its ``to_dict``), a
        dict already in that form (kept as it is), or the feature names of an explanation
        (``{"kind": kind, "features": [...]}``, as the batch path-walker gives them; the
        names are written as they are).
    kind : {"AXp", "CXp", "delta-AXp"}, optional
        The kind of an explanation given by its feature names.
    certificates : bool
        With an ``Explanation``: write its certificate (False: ``"certificate": null``).

    Returns
    -------
    dict or None
        None for None.
    """
    if e is None:
        return None
    if type(e) is tuple or type(e) is list:  # names: the batch path-walker's, many rows
        return {"features": list(e)} if kind is None else {"kind": kind, "features": list(e)}
    if isinstance(e, Explanation):
        return e.to_dict(certificates)
    if isinstance(e, Mapping):
        return dict(e)
    if isinstance(e, str):
        raise ParameterError(f"an explanation is a sequence of feature names, got the "
                             f"string {e!r}; write ({e!r},) for one feature")
    out: dict = {} if kind is None else {"kind": kind}
    out["features"] = list(e)
    return out


def explanation_record(row: object = None, *, certificates: bool = True,
                       **fields: Any) -> dict:
    """The record of one explained row (schema ``xdt-explanation/1``, see the module
    docstring): the one builder of every record xdt writes.

    Parameters
    ----------
    row : object
        The row's label (an index label, a 0-based position), or None.
    certificates : bool
        Write the certificates of explanations given as ``Explanation`` objects.
    **fields
        The record's fields (:data:`FIELDS`): ``prediction``; ``axp`` (an explanation:
        an ``Explanation``, its dict, or its feature names; or None), ``cxps`` and ``axps``
        (sequences of explanations), ``delta_axp``; and the others as they are written
        (``path``, ``scores``, ``axps_complete``, ...). ``axp_size`` and ``n_cxps`` are
        added with ``axp`` and ``cxps``.

    Returns
    -------
    dict
        JSON-ready (numpy scalars as Python scalars), fields in the order of
        :data:`FIELDS`, ``format`` first.

    Raises
    ------
    ParameterError
        A field the schema does not have (or ``format``, ``axp_size``, ``n_cxps``, which
        are written here).
    """
    bad = [k for k in fields if k not in _ORDER or k in ("format", "axp_size", "n_cxps")]
    if bad:
        given = [k for k in FIELDS[2:] if k not in ("axp_size", "n_cxps")]
        raise ParameterError(f"{', '.join(map(repr, bad))}: not a field a record takes; "
                             f"give {RECORD_FORMAT}'s fields: {', '.join(given)} "
                             f"({SCHEMA_FILE})")
    out: dict = {"format": RECORD_FORMAT, "row": to_python(row)}
    for key in sorted(fields, key=_ORDER.__getitem__):
        value = fields[key]
        if key in ("axp", "delta_axp"):
            value = explanation_object(value, _KINDS[key], certificates)
        elif key in ("axps", "cxps"):
            value = [explanation_object(e, _KINDS[key], certificates) for e in value]
        elif key in ("prediction", "label"):
            value = to_python(value)
        out[key] = value
        if key == "axp":
            out["axp_size"] = None if value is None else len(value["features"])
        elif key == "cxps":
            out["n_cxps"] = len(value)
    return out


def explanation_records(rows: Sequence, prediction: Sequence,
                        axp: Sequence[Sequence[str]] | None = None,
                        cxps: Sequence[Sequence[Sequence[str]]] | None = None) -> list[dict]:
    """The records of many rows explained by feature names (the batch path-walker's
    columns), column by column: what :func:`explanation_record` gives row by row
    (``explanation_record(rows[i], prediction=prediction[i], axp=axp[i], cxps=cxps[i])``),
    without its per-row checks.

    Equal explanations of one call are one object: the records of a table repeat a few
    distinct AXps and CXps many times (as the batch path-walker names each distinct one
    once), so they share them; copy a record's explanation before changing it.

    Parameters
    ----------
    rows, prediction : sequence, length n
        Each row's label and class.
    axp : sequence of sequences of str, length n, optional
        Each row's AXp, by feature names.
    cxps : sequence of sequences of sequences of str, length n, optional
        Each row's CXps, by feature names.

    Returns
    -------
    list of dict
        n records.

    >>> explanation_records([0], ["good"], [("age",)], [[("age",)]]) == [explanation_record(
    ...     0, prediction="good", axp=("age",), cxps=[("age",)])]
    True
    """
    fmt = RECORD_FORMAT
    out = [{"format": fmt, "row": to_python(r), "prediction": to_python(p)}
           for r, p in zip(rows, prediction, strict=True)]
    made: dict[tuple[str, tuple], dict] = {}

    def named(kind: str, names: Sequence[str]) -> dict:
        key = (kind, tuple(names))
        e = made.get(key)
        if e is None:
            e = made[key] = {"kind": kind, "features": list(names)}
        return e

    if axp is not None:
        for record, a in zip(out, axp, strict=True):
            record["axp"] = named("AXp", a)
            record["axp_size"] = len(a)
    if cxps is not None:
        for record, cs in zip(out, cxps, strict=True):
            record["cxps"] = [named("CXp", c) for c in cs]
            record["n_cxps"] = len(cs)
    return out
