"""Formal explanations: the engines, the queries built on them, their checks and exports.

* :mod:`~xdt.explain._models` — what the engines need from a model, for every kind the IR has;
* :mod:`~xdt.explain.engines` — path-walker, SAT oracle and box engine, with their kernels:
  each answers one question, whether fixing a set of features entails the prediction;
* :mod:`~xdt.explain.queries` — deletion and duality, enumeration, smallest and weighted
  explanations, the user's terms, probabilistic explanations, path redundancy;
* :mod:`~xdt.explain.checks` — certificates, brute-force verification, cross-checks and
  optimality, independent of the engines;
* :mod:`~xdt.explain.export` — DIMACS and WCNF;
* :mod:`~xdt.explain._explainer` — :class:`Explainer`, the face over all of them, and
  :mod:`~xdt.explain._explanation`, the answers it returns (one explanation, or the list an
  enumeration gives and how it ended).
"""

from xdt.explain._explainer import Explainer
from xdt.explain._explanation import EnumerationInterrupted, Explanation, ExplanationList
from xdt.explain.queries._duality import Deadline
from xdt.explain.queries._redundant_paths import PathRedundancy, path_redundancy

__all__ = ["Deadline", "EnumerationInterrupted", "Explainer", "Explanation", "ExplanationList",
           "PathRedundancy", "path_redundancy"]
