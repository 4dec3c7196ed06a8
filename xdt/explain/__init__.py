"""Formal explanations: the engine contract, the path-walker, hitting-set duality and the
independent brute-force verifier."""

from xdt.explain.explainer import Explainer
from xdt.explain.explanation import Explanation

__all__ = ["Explainer", "Explanation"]
