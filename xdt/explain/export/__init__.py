"""Explanation queries written out for other tools.

* :mod:`~xdt.explain.export.dimacs` — a query as DIMACS CNF (and, for an ensemble's sums,
  WCNF), with its meanings in comments, and their parsers.
"""
