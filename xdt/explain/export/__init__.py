"""Explanation queries written out for other tools.

* :mod:`~xdt.explain.export._dimacs` — a query as DIMACS CNF (and, for an ensemble's sums,
  WCNF), with its meanings in comments, and their parsers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdt._lazy import lazy_names

if TYPE_CHECKING:  # what type checkers and the API reference see; at run time, lazy_names
    from xdt.explain.export._dimacs import (
        CnfQuery,
        WcnfQuery,
        dimacs_text,
        encode_query,
        parse_dimacs,
        read_dimacs,
        wcnf_query,
        wcnf_text,
        write_dimacs,
        write_wcnf,
    )

#: Public name -> the module it comes from, imported on first access.
_WHERE = {
    "CnfQuery": "xdt.explain.export._dimacs",
    "WcnfQuery": "xdt.explain.export._dimacs",
    "dimacs_text": "xdt.explain.export._dimacs",
    "encode_query": "xdt.explain.export._dimacs",
    "parse_dimacs": "xdt.explain.export._dimacs",
    "read_dimacs": "xdt.explain.export._dimacs",
    "wcnf_query": "xdt.explain.export._dimacs",
    "wcnf_text": "xdt.explain.export._dimacs",
    "write_dimacs": "xdt.explain.export._dimacs",
    "write_wcnf": "xdt.explain.export._dimacs",
}

__all__ = [
    "CnfQuery", "WcnfQuery", "dimacs_text", "encode_query", "parse_dimacs", "read_dimacs",
    "wcnf_query", "wcnf_text", "write_dimacs", "write_wcnf",
]

__getattr__, __dir__ = lazy_names(__name__, _WHERE)
