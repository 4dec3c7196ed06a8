"""Formal explanations: the engines (path-walker, SAT oracle, box engine) and what is built on them.

* :mod:`~xdt.explain.oracle` — the contract every engine fulfils (entailment of a set of
  fixed features, and a counterexample when it fails);
* :mod:`~xdt.explain.models` — what the engines need from a model (decision tree, DNF,
  nested k-DNF, tree ensemble): its prediction on cells, the terms implying each class, the default
  deletion order;
* :mod:`~xdt.explain.path` — the path-walker for trees; :mod:`~xdt.explain.sat` — the
  PySAT oracle for trees and DNFs; :mod:`~xdt.explain.ensemble_sat` — the SAT engine for tree
  ensembles (the library's float sums as lazy lemmas); :mod:`~xdt.explain.dimacs` — a
  query as DIMACS (and, for an ensemble's sums, WCNF);
* :mod:`~xdt.explain.duality` — deletion and hitting-set duality, written once;
* :mod:`~xdt.explain.certificates`, :mod:`~xdt.explain.inflate` — evidence and widening;
* :mod:`~xdt.explain.redundant_paths` — path explanation-redundancy (Izza et al., Alg. 1-2);
* :mod:`~xdt.explain.verify` — checks independent of both engines.
"""

from xdt.explain.duality import Deadline
from xdt.explain.explainer import EnumerationInterrupted, Explainer, ExplanationList
from xdt.explain.explanation import Explanation
from xdt.explain.redundant_paths import PathRedundancy, path_redundancy

__all__ = ["Deadline", "EnumerationInterrupted", "Explainer", "Explanation", "ExplanationList",
           "PathRedundancy", "path_redundancy"]
