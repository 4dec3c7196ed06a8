"""How a table's columns are read before learning: the one test of id-like columns.

Shared by :func:`xdt.interop.fit_tree` (``xdt fit``) and
:class:`xdt.cluster.Preprocessor` (``xdt cluster``), so that both drop the same columns.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import numpy as np
import pandas as pd

__all__ = ["ID_MIN_DISTINCT_SHARE", "ID_MIN_OWN_VALUES", "id_column_reason"]

#: Least number of rows with a value of their own, and least number of distinct values, that
#: make a text column a code (see :func:`id_column_reason`): in a small table a few rare
#: values are just rare categories.
ID_MIN_OWN_VALUES = 20

#: Least share of distinct values among the rows (missing cells counted as one value) that
#: makes a text column with at least :data:`ID_MIN_OWN_VALUES` distinct values a near-id
#: (see :func:`id_column_reason`): with as many distinct values as half the rows, a value
#: holds two rows on average, and a test on one, or a set of them found by symbolic
#: reordering, describes a handful of rows, not a group.
ID_MIN_DISTINCT_SHARE = 0.5


def _named_like_an_id(name: str, loosely: bool) -> bool:
    """Whether a column's name is an id's: its first or last word is ``id`` (``PassengerId``,
    ``customer_id``, ``ID``, ``IDNumber``; not ``Paid``, ``idle``), or, ``loosely``, it starts
    or ends with ``id`` in any case (``userid`` too)."""
    words = re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+", name)
    if words and "id" in (words[0].lower(), words[-1].lower()):
        return True
    low = name.lower()
    return loosely and (low.startswith("id") or low.endswith("id"))


def id_column_reason(col: pd.Series, kind: str, counts: Mapping | None = None, *,
                     rows: str = "rows") -> str | None:
    """Why ``col`` looks like an id or a name, a column no rule can generalise over; ``None``
    when it does not.

    The one test of id columns, shared by :class:`Preprocessor` (``drop_ids``, so ``xdt
    cluster``) and :func:`xdt.interop.fit_tree` (``xdt fit``). A column of fewer than 2
    rows is never an id. A column with missing values is one only by the third rule below
    (its missing cells counted as one value). Otherwise it is one when

    * ``kind`` is ``"categorical"`` (not a pandas ``category`` column, whose categories were
      chosen on purpose) and all its ``n`` values are distinct (names, ids);
    * ``kind`` is ``"categorical"`` and more than half of the rows, and at least
      :data:`ID_MIN_OWN_VALUES` of them, have a value no other row has (codes such as
      Titanic's ``Ticket``: a test on such a value holds one row; in a small table a few
      values seen once are just rare categories; such a column also meets the next rule,
      this one says why more plainly);
    * ``kind`` is ``"categorical"`` and it has at least :data:`ID_MIN_DISTINCT_SHARE` (half)
      as many distinct values as rows, and at least :data:`ID_MIN_OWN_VALUES` of them
      (near-ids whose values each hold a few rows: tickets shared by a family, a code
      repeated on the rows of one order; symbolic reordering would otherwise turn such a
      column into a rule ``x in {...}`` over a long list of codes, which the paper warns of:
      "Features with too many unique values should either be binned ... or excluded");
    * ``kind`` is ``"numeric"``, the column holds distinct integers and its name is an
      id's: consecutive integers in a column whose name starts or ends with ``id`` (any
      case: ``PassengerId``, ``userid``), or integers with gaps (rows removed) in a column
      whose first or last word is ``id`` (``PassengerId``, ``customer_id``; not ``Paid``).

    Parameters
    ----------
    col : pandas.Series
        The column; its ``name`` is the column's name.
    kind : str
        How the column is read: ``"categorical"`` (text, or integer-coded categories),
        ``"numeric"``; other kinds (``"binary"``, ``"date"``) are never ids.

    counts : mapping of value to int, optional
        The rows of each distinct value of ``col`` (``col.value_counts()`` as a mapping),
        when the caller has them.
    rows : str, default "rows"
        What the reason calls the cells it counts (:class:`Preprocessor` tests the filled
        cells of a column with missing values: ``"filled cells"``).

    Returns
    -------
    str or None
        The reason, e.g. ``"all 891 values are distinct (an id or name)"``.
    """
    n = len(col)
    if n < 2:
        return None
    missing = bool(col.isna().any())
    if kind == "categorical" and not isinstance(col.dtype, pd.CategoricalDtype):
        if missing:
            counts = col.value_counts(dropna=False)   # NaN and None as one value
        elif counts is None:
            counts = col.value_counts(dropna=False).to_dict()
        distinct = len(counts)
        if not missing:
            if distinct == n:
                return f"all {n} values are distinct (an id or name)"
            own = sum(1 for k in counts.values() if k == 1)
            if 2 * own > n and own >= ID_MIN_OWN_VALUES:
                return f"{own} of the {n} {rows} have a value no other row has (an id or code)"
        if distinct >= ID_MIN_DISTINCT_SHARE * n and distinct >= ID_MIN_OWN_VALUES:
            return (f"{distinct} distinct values in {n} {rows} ({distinct / n:.0%}, at least "
                    f"{ID_MIN_DISTINCT_SHARE:.0%}: a near-id or code)")
    if missing:
        return None
    name = str(col.name)
    if kind == "numeric" and pd.api.types.is_integer_dtype(col.dtype) \
            and (_named_like_an_id(name, loosely=True) or _named_like_an_id(name, loosely=False)) \
            and col.nunique() == n:
        if (np.diff(np.sort(col.to_numpy())) == 1).all() \
                and _named_like_an_id(name, loosely=True):
            return f"{n} distinct consecutive integers (a row id)"
        if _named_like_an_id(name, loosely=False):
            return f"{n} distinct integers in a column named like an id (a row id)"
    return None
