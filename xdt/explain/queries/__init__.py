"""The queries built once on the engines' entailment answer, as plain functions grouped by
family.

* :mod:`~xdt.explain.queries.duality` — the algorithms: deletion, minimal-hitting-set duality,
  smallest and cheapest hitting sets, deadlines;
* :mod:`~xdt.explain.queries.deletion` — one AXp, one CXp, the deletion order (read off the
  model's terms by :mod:`~xdt.explain.queries.term_order`), the checks of a given set (weak
  AXp, AXp, CXp), relevant and necessary features, path redundancy of one instance;
* :mod:`~xdt.explain.queries.enumeration` — all AXps, all CXps, under a count and a time
  limit, with progress and interruption;
* :mod:`~xdt.explain.queries.smallest` — a smallest or cheapest AXp or CXp, and the proof of
  its optimality;
* :mod:`~xdt.explain.queries.preferences` — the user's terms: excluded and immutable features,
  weights;
* :mod:`~xdt.explain.queries.probability` — precision and coverage under a distribution, and
  :mod:`~xdt.explain.queries.delta_axp` — a locally minimal delta-AXp;
* :mod:`~xdt.explain.queries.inflate` — widening an explanation to sets of allowed cells;
* :mod:`~xdt.explain.queries.redundant_paths` — path explanation-redundancy of decision trees.

Queries see an engine only through the contract of :mod:`xdt.explain.engines.oracle` and an
instance posed to it (:mod:`xdt.explain.engines.instance_oracle`); they know neither the
``Explainer`` nor the checks: the ``Explainer`` builds the explanations and attaches their
certificates.
"""
