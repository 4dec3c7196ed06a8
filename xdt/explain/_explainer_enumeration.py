"""The enumeration family of :class:`~xdt.explain.Explainer`: all AXps and all CXps
of a prediction, smallest (or cheapest) first.

A part of the Explainer's face, beside :mod:`xdt.explain._explainer`: the methods call
:func:`xdt.explain.queries._enumeration.enumerate_explanations` over the oracle that
:mod:`xdt.explain.queries._preferences` restricts, and build each explanation as it is found.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

from xdt.explain import _results as results
from xdt.explain._docstrings import doc
from xdt.explain._explanation import Explanation, ExplanationList
from xdt.explain.queries import _duality as duality
from xdt.explain.queries import _enumeration as enumeration
from xdt.explain.queries import _preferences as preferences

if TYPE_CHECKING:
    from xdt.explain.engines._instance_oracle import InstanceQuery
    from xdt.explain.engines._oracle import EntailmentOracle


@doc
class EnumerationMethods:
    """The Explainer's :meth:`all_axps` and :meth:`all_cxps` (a mixin of
    :class:`~xdt.explain.Explainer`, not used alone).

    It relies on the Explainer's ``model``, ``_query`` (the instance posed to the engine, an
    :class:`~xdt.explain.engines._instance_oracle.InstanceQuery`), ``_explanation`` (the
    Explanation of a feature mask), ``_verified`` (certificates re-checked against
    ``model.predict``) and ``_verify_batches`` (the batch sizes of those re-checks).
    """

    def all_cxps(self, x, *, path_restricted: bool = False, max_count: int | None = None,
                 time_limit: float | duality.Deadline | None = None, progress: bool = False,
                 verify: bool = False,
                 on_found: Callable[[int, Explanation], None] | None = None,
                 immutable: Iterable[str] | None = None,
                 weights: Mapping[str, float] | None = None, order: str | None = None
                 ) -> ExplanationList:
        """All CXps of the prediction for ``x``, smallest (or cheapest) first
        (:func:`xdt.explain.queries._enumeration.enumerate_explanations`: for trees with the
        path engine, polynomial, Izza et al., Section 5; else hitting-set duality).

        Parameters
        ----------
        {x}
        {path_restricted}
        {max_count}
        {time_limit}
        {progress}
        {verify_all}
        {on_found}
        {immutable}
        {weights}
        {enumeration_order}

        Returns
        -------
        {enumeration_returns}

        Raises
        ------
        {enumeration_raises}
        """
        q = self._query(x, path_restricted)
        w, by_weight = enumeration.enumeration_weights(self.model.features, weights, order)
        oracle = preferences.restricted(self.model.features, q, immutable=immutable)
        return self._enumerate(q, "CXp", oracle, max_count, time_limit, progress, verify,
                               on_found, w, by_weight)

    def all_axps(self, x, *, path_restricted: bool = False, max_count: int | None = None,
                 time_limit: float | duality.Deadline | None = None, progress: bool = False,
                 verify: bool = False,
                 on_found: Callable[[int, Explanation], None] | None = None,
                 exclude: Iterable[str] | None = None,
                 weights: Mapping[str, float] | None = None, order: str | None = None
                 ) -> ExplanationList:
        """All AXps of the prediction for ``x``, smallest (or cheapest) first, as the minimal
        hitting sets of the CXps, enumerated with PySAT's Hitman (Izza et al., Section 5;
        :func:`xdt.explain.queries._enumeration.enumerate_explanations`).

        The number of AXps can be exponential in the number of features (a deep tree over
        hundreds of binary features can have thousands for one instance), and by default
        the call lists them all: give ``max_count`` or ``time_limit`` to bound it.

        Parameters
        ----------
        {x}
        {path_restricted}
        {max_count}
        {time_limit}
        {progress}
        {verify_all}
        {on_found}
        {exclude}
        {weights}
        {enumeration_order}

        Returns
        -------
        {enumeration_returns}
            Empty when no AXp avoids the ``exclude`` features. Each AXp carries its
            certificate (see :meth:`axp`).

        Raises
        ------
        {enumeration_raises}
        """
        q = self._query(x, path_restricted)
        w, by_weight = enumeration.enumeration_weights(self.model.features, weights, order)
        oracle = preferences.restricted(self.model.features, q, exclude=exclude)
        return self._enumerate(q, "AXp", oracle, max_count, time_limit, progress, verify,
                               on_found, w, by_weight)

    def _enumerate(self, q: InstanceQuery, kind: str, oracle: EntailmentOracle,
                   max_count: int | None, time_limit: float | duality.Deadline | None,
                   progress: bool, verify: bool,
                   on_found: Callable[[int, Explanation], None] | None,
                   weights: tuple | None, by_weight: bool) -> ExplanationList:
        """All explanations of ``kind`` of ``oracle`` under the limits
        (:func:`~xdt.explain.queries._enumeration.enumerate_explanations`), each built as it is
        found, and with ``verify`` re-checked in batches of
        :data:`~xdt.explain._explainer.VERIFY_BATCH` (read at each call)."""
        return results.listed(enumeration.enumerate_explanations(
            kind, oracle, max_count=max_count, time_limit=time_limit, progress=progress,
            verify=verify, on_found=on_found,
            build=lambda m, cost: self._explanation(q, m, kind, None, verify, cost),
            recheck=self._verified, batches=self._verify_batches(), weights=weights,
            by_weight=by_weight))
