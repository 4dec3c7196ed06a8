"""The queries built once on the engines' entailment answer, as plain functions grouped by
family.

* :mod:`~xdt.explain.queries.duality` — deletion (one AXp, one CXp), minimal-hitting-set
  duality (all AXps, all CXps), smallest and cheapest explanations;
* :mod:`~xdt.explain.queries.preferences` — the user's terms: excluded and immutable features,
  weights;
* :mod:`~xdt.explain.queries.probability` — delta-AXps, precision and coverage under a
  distribution;
* :mod:`~xdt.explain.queries.inflate` — widening an explanation to sets of allowed cells;
* :mod:`~xdt.explain.queries.redundant_paths` — path explanation-redundancy of decision trees.

Queries see an engine only through the contract of :mod:`xdt.explain.engines.oracle`.
"""
