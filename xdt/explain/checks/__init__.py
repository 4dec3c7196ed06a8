"""Checks of the answers, independent of the engine that gave them.

* :mod:`~xdt.explain.checks.certificates` — the evidence attached to each explanation and its
  check against the model's own ``predict``;
* :mod:`~xdt.explain.checks.verify` — brute force over small cell spaces, counterexample search
  in boxes, reference answers;
* :mod:`~xdt.explain.checks.crosscheck` — every engine against the other on the rows of a table;
* :mod:`~xdt.explain.checks.optimality` — certificates that a smallest or cheapest explanation
  is optimal.
"""
