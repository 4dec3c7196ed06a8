"""The engines: each answers whether fixing a set of features to the instance's cells entails
the prediction, with a counterexample when it does not.

* :mod:`~xdt.explain.engines._oracle` — the contract every engine fulfils;
* :mod:`~xdt.explain.engines._path` — the path-walker for decision trees, over the compiled
  tables of :mod:`~xdt.explain.engines._compiled` and the kernels of
  :mod:`~xdt.explain.engines._kernels`; :mod:`~xdt.explain.engines._vectorised` — the same
  engine over a whole table of rows;
* :mod:`~xdt.explain.engines._sat` — the PySAT oracle for any model, its encodings shared by
  :mod:`~xdt.explain.engines._sat_cache`; :mod:`~xdt.explain.engines._ensemble_sat` — its
  encoding of tree ensembles;
* :mod:`~xdt.explain.engines._ensemble_box` — the box engine for tree ensembles (branch and
  bound over boxes of cells), over :mod:`~xdt.explain.engines._ensemble_kernels`;
* :mod:`~xdt.explain.engines._registry` — which engine serves which model;
  :mod:`~xdt.explain.engines._instance_oracle` — one instance posed to the chosen engine;
* :mod:`~xdt.explain.engines._deadline` — the deadline of the call under way, which every
  engine polls inside its own calls (the box engine's kernels read the clock themselves).

Engines know models only through :mod:`xdt.explain._models`; they never import the queries,
checks or exports built on them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdt._lazy import lazy_names

if TYPE_CHECKING:  # what type checkers and the API reference see; at run time, lazy_names
    from xdt.explain.engines._ensemble_box import BoxOracle
    from xdt.explain.engines._ensemble_sat import EnsembleEncoding, EnsembleOracle
    from xdt.explain.engines._oracle import EntailmentOracle
    from xdt.explain.engines._path import PathOracle
    from xdt.explain.engines._registry import ENGINES, choose_engine
    from xdt.explain.engines._sat import ModelEncoding, SatOracle
    from xdt.explain.engines._sat_cache import release_solvers, shared_encoding

#: Public name -> the module it comes from, imported on first access.
_WHERE = {
    "BoxOracle": "xdt.explain.engines._ensemble_box",
    "ENGINES": "xdt.explain.engines._registry",
    "EnsembleEncoding": "xdt.explain.engines._ensemble_sat",
    "EnsembleOracle": "xdt.explain.engines._ensemble_sat",
    "EntailmentOracle": "xdt.explain.engines._oracle",
    "ModelEncoding": "xdt.explain.engines._sat",
    "PathOracle": "xdt.explain.engines._path",
    "SatOracle": "xdt.explain.engines._sat",
    "choose_engine": "xdt.explain.engines._registry",
    "release_solvers": "xdt.explain.engines._sat_cache",
    "shared_encoding": "xdt.explain.engines._sat_cache",
}

__all__ = [
    "BoxOracle", "ENGINES", "EnsembleEncoding", "EnsembleOracle",
    "EntailmentOracle", "ModelEncoding", "PathOracle", "SatOracle", "choose_engine",
    "release_solvers", "shared_encoding",
]

__getattr__, __dir__ = lazy_names(__name__, _WHERE)
