"""The smallest-explanation family of :class:`~xdt.explain.Explainer`: an AXp or a
CXp of minimum size, or of minimum cost under weights, with its optimality certificate.

A part of the Explainer's face, beside :mod:`xdt.explain._explainer`: the methods call
:func:`xdt.explain.queries._smallest.smallest_axp` and
:func:`~xdt.explain.queries._smallest.smallest_cxp` over the oracle that
:mod:`xdt.explain.queries._preferences` restricts; the optimality certificate is built on
first access (:func:`xdt.explain._results.optimality`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import partial
from typing import TYPE_CHECKING

from xdt.explain import _results as results
from xdt.explain._docstrings import doc
from xdt.explain._explanation import Deferred, Explanation
from xdt.explain.engines._deadline import limited
from xdt.explain.queries import _duality as duality
from xdt.explain.queries import _enumeration as enumeration
from xdt.explain.queries import _preferences as preferences
from xdt.explain.queries import _smallest as smallest

if TYPE_CHECKING:
    from xdt.explain.engines._instance_oracle import InstanceQuery
    from xdt.explain.queries._inflate import Inflation


@doc
class SmallestMethods:
    """The Explainer's :meth:`smallest_axp` and :meth:`smallest_cxp` (a mixin of
    :class:`~xdt.explain.Explainer`, not used alone).

    It relies on the Explainer's ``model``, ``certificates``, ``_query`` (the instance posed
    to the engine, an :class:`~xdt.explain.engines._instance_oracle.InstanceQuery`),
    ``_inflation`` (the inflated cells of an AXp), ``_explanation`` (the Explanation of a
    feature mask) and ``_checked`` (its certificate re-checked with ``verify``).
    """

    def smallest_axp(self, x, *, path_restricted: bool = False, inflate: bool = False,
                     verify: bool = False, exclude: Iterable[str] | None = None,
                     weights: Mapping[str, float] | None = None,
                     time_limit: float | duality.Deadline | None = None) -> Explanation:
        """An AXp of minimum size, or with ``weights`` of minimum cost: a minimum (weight)
        hitting set of the CXps (:func:`xdt.explain.queries._smallest.smallest_axp`).

        Parameters
        ----------
        {x}
        {path_restricted}
        {inflate}
        {verify}
            The optimality certificate is re-checked too.
        {exclude}
        {weights}
        {search_time_limit}

        Returns
        -------
        Explanation (kind "AXp")
            With ``cost`` (with ``weights``) and ``optimality``
            (:class:`~xdt.explain.checks.OptimalityCertificate`, built on first access):
            CXps that every AXp must meet, each with a witness point, and the lower bound
            their cheapest hitting set proves — the AXp's own cost.

        Raises
        ------
        NoExplanationError
            When no AXp avoids the ``exclude`` features.
        ComputationLimitError
            When ``time_limit`` passes first (the message gives the lower bound reached).
        ParameterError
            For a weight that is not a positive finite number, or a bad ``time_limit``.
        UnknownFeatureError
            For a name in ``exclude`` or ``weights`` that the model lacks.
        """
        deadline = enumeration.as_deadline(time_limit)
        q = self._query(x, path_restricted)
        with limited(deadline, "a smallest AXp"):
            oracle = preferences.axp_oracle(self.model, q, exclude)
            found = smallest.smallest_axp(oracle, self.model.features, weights, deadline)
            inflation = self._inflation(q, found.mask) if inflate else None
            return self._checked(self._cheapest(q, "AXp", found, inflation, verify), verify)

    def smallest_cxp(self, x, *, path_restricted: bool = False, verify: bool = False,
                     immutable: Iterable[str] | None = None,
                     weights: Mapping[str, float] | None = None,
                     time_limit: float | duality.Deadline | None = None
                     ) -> Explanation | None:
        """A CXp of minimum size, or with ``weights`` of minimum cost (the cheapest change),
        or ``None`` when no CXp exists (:func:`xdt.explain.queries._smallest.smallest_cxp`).

        Parameters
        ----------
        {x}
        {path_restricted}
        {verify}
            The optimality certificate is re-checked too.
        {immutable}
        {weights}
        {search_time_limit}

        Returns
        -------
        Explanation (kind "CXp") or None
            With ``cost`` (with ``weights``) and ``optimality``
            (:class:`~xdt.explain.checks.OptimalityCertificate`): AXps (given the
            immutable features) that every CXp must meet, re-checked by an independent
            engine, and the lower bound their cheapest hitting set proves.

        Raises
        ------
        ComputationLimitError, ParameterError, UnknownFeatureError
            As in :meth:`smallest_axp`.
        """
        deadline = enumeration.as_deadline(time_limit)
        q = self._query(x, path_restricted)
        with limited(deadline, "a smallest CXp"):
            oracle = preferences.restricted(self.model.features, q, immutable=immutable)
            found = smallest.smallest_cxp(oracle, self.model.features, weights, deadline)
            if found is None:
                return None
            return self._checked(self._cheapest(q, "CXp", found, None, verify), verify)

    def _cheapest(self, q: InstanceQuery, kind: str, found: smallest.Smallest,
                  inflation: Inflation | None, verify: bool) -> Explanation:
        """The Explanation of a smallest or cheapest explanation, with its cost and (lazily)
        its optimality certificate (:func:`xdt.explain._results.optimality`)."""
        optimality = None
        if self.certificates or verify:
            optimality = Deferred(partial(results.optimality, self.model, q, kind, found))
        return self._explanation(q, found.mask, kind, inflation, verify, smallest.cost(found),
                                 optimality)
