"""The queries built once on the engines' entailment answer, as plain functions grouped by
family.

* :mod:`~xdt.explain.queries._duality` — the algorithms: deletion, minimal-hitting-set duality,
  smallest and cheapest hitting sets, deadlines;
* :mod:`~xdt.explain.queries._deletion` — one AXp, one CXp, the deletion order (read off the
  model's terms by :mod:`~xdt.explain.queries._term_order`), the checks of a given set (weak
  AXp, AXp, CXp), relevant and necessary features, path redundancy of one instance;
* :mod:`~xdt.explain.queries._enumeration` — all AXps, all CXps, under a count and a time
  limit, with progress and interruption;
* :mod:`~xdt.explain.queries._smallest` — a smallest or cheapest AXp or CXp, and the proof of
  its optimality;
* :mod:`~xdt.explain.queries._preferences` — the user's terms: excluded and immutable features,
  weights;
* :mod:`~xdt.explain.queries._probability` — precision and coverage under a distribution, and
  :mod:`~xdt.explain.queries._delta_axp` — a locally minimal delta-AXp;
* :mod:`~xdt.explain.queries._inflate` — widening an explanation to sets of allowed cells;
* :mod:`~xdt.explain.queries._redundant_paths` — path explanation-redundancy of decision trees.

Queries see an engine only through the contract of :mod:`xdt.explain.engines._oracle` and an
instance posed to it (:mod:`xdt.explain.engines._instance_oracle`); they know neither the
``Explainer`` nor the checks: the ``Explainer`` builds the explanations and attaches their
certificates.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdt._lazy import lazy_names

if TYPE_CHECKING:  # what type checkers and the API reference see; at run time, lazy_names
    from xdt.explain.queries._duality import (
        Deadline,
        cheapest_axp,
        cheapest_cxp,
        deletion_axp,
        deletion_cxp,
        enumerate_axps,
        enumerate_cxps,
        minimal_hitting_sets,
        minimum_hitting_set,
        smallest_axp,
    )
    from xdt.explain.queries._inflate import Inflation, inflate
    from xdt.explain.queries._probability import (
        Coverage,
        EmpiricalDistribution,
        PrecisionCertificate,
        ProductDistribution,
        coverage,
    )
    from xdt.explain.queries._redundant_paths import PathRedundancy, path_redundancy
    from xdt.explain.queries._term_order import term_order

#: Public name -> the module it comes from, imported on first access.
_WHERE = {
    "Coverage": "xdt.explain.queries._probability",
    "Deadline": "xdt.explain.queries._duality",
    "EmpiricalDistribution": "xdt.explain.queries._probability",
    "Inflation": "xdt.explain.queries._inflate",
    "PathRedundancy": "xdt.explain.queries._redundant_paths",
    "PrecisionCertificate": "xdt.explain.queries._probability",
    "ProductDistribution": "xdt.explain.queries._probability",
    "cheapest_axp": "xdt.explain.queries._duality",
    "cheapest_cxp": "xdt.explain.queries._duality",
    "coverage": "xdt.explain.queries._probability",
    "deletion_axp": "xdt.explain.queries._duality",
    "deletion_cxp": "xdt.explain.queries._duality",
    "enumerate_axps": "xdt.explain.queries._duality",
    "enumerate_cxps": "xdt.explain.queries._duality",
    "inflate": "xdt.explain.queries._inflate",
    "minimal_hitting_sets": "xdt.explain.queries._duality",
    "minimum_hitting_set": "xdt.explain.queries._duality",
    "path_redundancy": "xdt.explain.queries._redundant_paths",
    "smallest_axp": "xdt.explain.queries._duality",
    "term_order": "xdt.explain.queries._term_order",
}

__all__ = [
    "Coverage", "Deadline", "EmpiricalDistribution", "Inflation", "PathRedundancy",
    "PrecisionCertificate", "ProductDistribution", "cheapest_axp", "cheapest_cxp",
    "coverage", "deletion_axp", "deletion_cxp", "enumerate_axps", "enumerate_cxps",
    "inflate", "minimal_hitting_sets", "minimum_hitting_set", "path_redundancy",
    "smallest_axp", "term_order",
]

__getattr__, __dir__ = lazy_names(__name__, _WHERE)
