"""The probabilistic family of :class:`~xdt.explain.Explainer`: the precision of a set
of features under a distribution, and locally minimal delta-AXps.

A part of the Explainer's face, beside :mod:`xdt.explain._explainer`: the methods call
:mod:`xdt.explain.queries._probability` (exact precision, its certificate check) and
:func:`xdt.explain.queries._delta_axp.find_delta_axp`, both imported on first use.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from fractions import Fraction

from xdt.explain._docstrings import doc
from xdt.explain._explainer_sets import bounded
from xdt.explain._explanation import Explanation
from xdt.explain.engines._deadline import Deadline, check, limited


@doc
class ProbabilityMethods:
    """The Explainer's :meth:`precision` and :meth:`delta_axp` (a mixin of
    :class:`~xdt.explain.Explainer`, not used alone).

    It relies on the Explainer's ``model``, ``engine``, ``certificates``, ``_query`` (the
    instance posed to the engine, an
    :class:`~xdt.explain.engines._instance_oracle.InstanceQuery`), ``_mask`` (a feature mask
    of names), ``_tables`` (a tree's compiled tables) and ``_explanation`` (the Explanation
    of a feature mask).
    """

    def precision(self, x, features: Iterable[str], *, distribution,
                  time_limit: float | Deadline | None = None) -> Fraction:
        """The precision of ``features`` (names, or an Explanation) for ``x``: the
        probability that a point agreeing with ``x`` on them (in the model's cells) gets
        ``x``'s prediction, exactly (:mod:`xdt.explain.queries._probability`).

        Parameters
        ----------
        {x}
        features : iterable of str, or Explanation
        {distribution}
        {answer_time_limit}
            The sum itself is polynomial (over the tree's paths, or the distribution's
            rows); the deadline is polled before and after it.

        Raises
        ------
        ComputationLimitError
            When ``time_limit`` passes first.
        ParameterError
            For a bad ``time_limit``.
        EngineNotAvailableError
            A product distribution for a model that is not a decision tree (use an
            EmpiricalDistribution).
        EmptyConditionError
            An empirical distribution none of whose rows agrees with ``x`` on ``features``.
        UnknownFeatureError
            A name the model lacks.
        """
        from xdt.explain.queries import _probability as probability

        def exact() -> Fraction:
            q = self._query(x, False)
            dist = probability.as_distribution(distribution, self.model)
            check()
            found = probability.precision_function(self.model, dist, q.cells, q.prediction)(
                self._mask(features))
            check()
            return found
        return bounded(time_limit, "the precision", exact)

    def delta_axp(self, x, delta: float | Fraction = 0.95, *, distribution,
                  order: str | Sequence[str] | None = None,
                  start: str | Iterable[str] | None = None,
                  verify: bool = False, exclude: Iterable[str] | None = None,
                  time_limit: float | Deadline | None = None) -> Explanation:
        """A locally minimal delta-AXp (probabilistic AXp): a set of features of precision at
        least ``delta`` from which no single feature can be dropped keeping precision at
        least ``delta`` (:func:`xdt.explain.queries._delta_axp.find_delta_axp`; Izza, Huang,
        Ignatiev, Narodytska, Cooper & Marques-Silva, "On Computing Probabilistic Abductive
        Explanations", IJAR 2023, Sections 3-4).

        Parameters
        ----------
        {x}
        delta : number in (0, 1]
            The least precision kept (a float is read as the decimal it prints as: 0.95 is
            19/20). ``delta=1`` under a distribution that gives every cell positive mass
            (e.g. ``ProductDistribution.uniform`` or ``from_data(..., smoothing=1)``) keeps
            the AXp it starts from: it is returned, equal to :meth:`axp`'s.
        {distribution}
        {order}
            The order of the AXp started from too.
        start : None, "axp", "all", "path" or iterable of feature names
            The set the deletion starts from. ``None`` / ``"axp"`` (default): the AXp of
            :meth:`axp` with the same ``order``, so the result is a subset of an AXp, never
            longer than it. ``"all"``: every feature, as Izza et al.'s Algorithm 1 (the
            result may then hold features no AXp of this order has). ``"path"`` (trees): the
            features of ``x``'s path. A set of names: it must itself have precision at least
            ``delta``.
        exclude : iterable of str, optional
            Features the delta-AXp may not use (held free, drawn from the distribution): the
            start leaves them out (by default the AXp of :meth:`axp` with ``exclude``, or,
            when no AXp avoids them, every other feature).
        verify : bool
            Re-check the certificate independently before returning
            (:func:`~xdt.explain.queries._probability.check_precision_certificate`: every precision
            recomputed with ``model.predict``, by enumeration of the free features' cells
            where they span at most 65,536 points, else over the tree's leaf boxes; for an
            empirical distribution on its rows); raises :class:`~xdt.errors.CertificateError`
            if it fails.
        {one_time_limit}
            The starting AXp's deletion, every precision computed and, with ``verify``,
            the re-check count against it.

        Returns
        -------
        Explanation (kind "delta-AXp")
            Its ``precision`` (Fraction) and ``delta``; its ``certificate``
            (:class:`~xdt.explain.queries.PrecisionCertificate`) holds the precision
            and, per feature, the precision after dropping it (each below ``delta``: local
            minimality). Its rule holds the features to ``x``'s cells.

        Raises
        ------
        ParameterError
            ``delta`` outside (0, 1], a ``start`` set of precision below ``delta`` (or holding
            an excluded feature), or a distribution made for another model.
        NoExplanationError
            With ``exclude``: when fixing every other feature gives a precision below
            ``delta``.
        EngineNotAvailableError
            A product distribution for a model that is not a decision tree (use an
            EmpiricalDistribution), or ``start="path"`` for a model without paths.
        EmptyConditionError
            An empirical distribution none of whose rows agrees with ``x`` on the starting
            set.
        CertificateError
            With ``verify=True``, when the re-check fails.
        ComputationLimitError
            When ``time_limit`` passes first (``limit="time_limit"``).

        Examples
        --------
        >>> import xdt
        >>> from xdt.explain.queries._probability import ProductDistribution
        >>> from xdt.ir import DecisionTree, Feature, Leaf, ThresholdSplit
        >>> tree = DecisionTree([Feature("x", "ordinal"), Feature("y", "ordinal")], [0, 1],
        ...     ThresholdSplit("x", 0.5, Leaf(0), ThresholdSplit("y", 0.5, Leaf(0), Leaf(1))))
        >>> d = ProductDistribution(tree, {"x": [1, 1], "y": [1, 19]})
        >>> ex = xdt.Explainer(tree)
        >>> ex.axp({"x": 1, "y": 1}).rule
        'IF 0.5 < x AND 0.5 < y THEN 1'
        >>> e = ex.delta_axp({"x": 1, "y": 1}, 0.95, distribution=d, verify=True)
        >>> e.rule, e.precision, e.certificate.drops
        ('IF 0.5 < x THEN 1', Fraction(19, 20), {'x': Fraction(19, 40)})
        """
        from xdt.explain.queries import _probability as probability
        from xdt.explain.queries._delta_axp import find_delta_axp
        from xdt.explain.queries._enumeration import as_deadline

        deadline = as_deadline(time_limit)
        d = probability.check_delta(delta)
        dist = probability.as_distribution(distribution, self.model)
        q = self._query(x, False)
        with limited(deadline, "a delta-AXp"):
            found = find_delta_axp(self.model, q, d, dist, order=order, start=start,
                                   exclude=exclude, engine=self.engine, tables=self._tables,
                                   certify=self.certificates or verify)
            made = replace(self._explanation(q, found.mask, "AXp", None, False),
                           kind="delta-AXp", certificate=found.certificate,
                           precision=found.precision, delta=d)
            if verify:  # the re-check shares the deadline: the whole call is bounded
                probability.check_precision_certificate(self.model, made, dist)
                made = replace(made, verified=True)
        return made
