"""The engines: each answers whether fixing a set of features to the instance's cells entails
the prediction, with a counterexample when it does not.

* :mod:`~xdt.explain.engines.oracle` — the contract every engine fulfils;
* :mod:`~xdt.explain.engines.path` — the path-walker for decision trees, over the compiled
  tables of :mod:`~xdt.explain.engines.compiled` and the kernels of
  :mod:`~xdt.explain.engines.kernels`; :mod:`~xdt.explain.engines.vectorised` — the same
  engine over a whole table of rows;
* :mod:`~xdt.explain.engines.sat` — the PySAT oracle for any model, its encodings shared by
  :mod:`~xdt.explain.engines.sat_cache`; :mod:`~xdt.explain.engines.ensemble_sat` — its
  encoding of tree ensembles;
* :mod:`~xdt.explain.engines.ensemble_box` — the box engine for tree ensembles (branch and
  bound over boxes of cells), over :mod:`~xdt.explain.engines.ensemble_kernels`;
* :mod:`~xdt.explain.engines.registry` — which engine serves which model;
  :mod:`~xdt.explain.engines.instance_oracle` — one instance posed to the chosen engine.

Engines know models only through :mod:`xdt.explain.models`; they never import the queries,
checks or exports built on them.
"""
