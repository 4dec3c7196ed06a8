"""A locally minimal delta-AXp of an instance (probabilistic AXp), with its certificate.

Izza, Huang, Ignatiev, Narodytska, Cooper & Marques-Silva, "On Computing Probabilistic
Abductive Explanations", IJAR 2023, Section 3: a set of features of precision at least
``delta`` from which no single feature can be dropped keeping precision at least ``delta``.
:func:`find_delta_axp` picks the set the deletion starts from (an AXp, every feature, the
instance's path, or the user's set), refuses an exclusion that leaves too low a precision,
runs the deletion of :func:`~xdt.explain.queries._probability.delta_axp_mask` and writes the
:class:`~xdt.explain.queries.PrecisionCertificate`. The precisions, the
distributions and the certificate's check are in :mod:`xdt.explain.queries._probability`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from fractions import Fraction
from typing import NamedTuple

from xdt.errors import NoExplanationError, ParameterError
from xdt.explain._models import Model, tree_only
from xdt.explain.engines import _deadline
from xdt.explain.engines._compiled import CompiledTree
from xdt.explain.engines._instance_oracle import InstanceQuery
from xdt.explain.engines._oracle import bits
from xdt.explain.queries import _duality as duality
from xdt.explain.queries import _probability as probability
from xdt.explain.queries._deletion import deletion_order
from xdt.explain.queries._preferences import feature_mask, names_mask, restricted
from xdt.ir._cells import full_mask


class DeltaAXp(NamedTuple):
    """A delta-AXp found: its features (bit mask), its precision, its certificate (None
    when not asked for)."""

    mask: int
    precision: Fraction
    certificate: probability.PrecisionCertificate | None


def find_delta_axp(model: Model, q: InstanceQuery, d: Fraction,
                   dist: probability.Distribution, *, order, start: str | Iterable[str] | None,
                   exclude: Iterable[str] | None, engine: str,
                   tables: Callable[[], CompiledTree], certify: bool) -> DeltaAXp:
    """A locally minimal delta-AXp of the instance ``q`` (not path-restricted): a set of
    features of precision at least ``d`` from which no single feature can be dropped keeping
    precision at least ``d``, by deletion (Izza, Huang, Ignatiev, Narodytska, Cooper &
    Marques-Silva, "On Computing Probabilistic Abductive Explanations", IJAR 2023, Section 3;
    for decision trees under a product distribution it is polynomial, Section 4). A minimum or
    a subset-minimal one is NP-hard even for trees (Arenas, Barcelo, Romero & Subercaseaux,
    "On Computing Probabilistic Explanations for Decision Trees", NeurIPS 2022).

    The precision of a set ``S`` is ``Pr(model(z) = prediction(x) | z agrees with x on
    S)``, exact (a Fraction), under a product distribution (decision trees: a sum over
    the tree's paths) or the empirical distribution of a dataset (any model: among the
    rows agreeing with ``x`` on ``S``, the share predicted ``x``'s class); see
    :mod:`xdt.explain.queries._probability`.

    Parameters
    ----------
    d : Fraction
        The least precision kept (:func:`~xdt.explain.queries._probability.check_delta`).
    dist : ProductDistribution or EmpiricalDistribution
        The distribution of the points (:func:`~xdt.explain.queries._probability.as_distribution`).
    order, start, exclude
        As in :meth:`xdt.Explainer.delta_axp` (``order``:
        :func:`~xdt.explain.queries._deletion.deletion_order`, read with ``engine`` and the
        tree's compiled ``tables``).
    certify : bool
        Write the certificate.

    Raises
    ------
    ParameterError, NoExplanationError, EngineNotAvailableError, EmptyConditionError
        As :meth:`xdt.Explainer.delta_axp` says.
    """
    measure = probability.precision_function(model, dist, q.cells, q.prediction)
    seq = deletion_order(model, q, order, engine, tables)
    names = model.features.names
    free = feature_mask(model.features, exclude, "exclude")
    if start is None or (isinstance(start, str) and start == "axp"):
        oracle = restricted(model.features, q, exclude=exclude)
        first = (duality.deletion_axp(oracle, seq, stop=_deadline.expired)
                 if oracle.entails(oracle.universe)
                 else full_mask(len(names)) & ~free)  # no AXp avoids them: all the rest
    elif isinstance(start, str) and start == "all":
        first = full_mask(len(names)) & ~free
    elif isinstance(start, str) and start == "path":
        if q.path is None:
            raise tree_only("start='path'", "use start='axp' or 'all'", model)
        first = sum(1 << f for f in q.path.masks) & ~free
    elif isinstance(start, str) and start not in names:
        raise ParameterError(
            f"start must be 'axp', 'all', 'path' or feature names, got {start!r}")
    else:
        first = names_mask(model.features, start)
        if first & free:
            raise ParameterError(
                f"start holds the excluded features "
                f"{', '.join(names[f] for f in bits(first & free))}: leave them out")
    if free and measure(first) < d:
        value = measure(first)
        raise NoExplanationError(
            f"no delta-AXp of precision >= {float(d):.6g} avoids "
            f"{', '.join(names[f] for f in bits(free))}: with every other feature fixed "
            f"the precision is {float(value):.6g} ({value}); exclude fewer features or "
            "lower delta")
    mask, value, drops = probability.delta_axp_mask(measure, first, d, seq)
    cert = None
    if certify:
        support = (len(dist.agreeing(q.cells, mask))
                   if isinstance(dist, probability.EmpiricalDistribution) else None)
        cert = probability.PrecisionCertificate(
            instance=dict(zip(names, q.values, strict=True)),
            prediction=model.classes[q.prediction], delta=d, precision=value,
            drops={names[f]: p for f, p in drops.items()},
            distribution=("empirical" if isinstance(dist, probability.EmpiricalDistribution)
                          else "product"),
            n_rows=dist.n_rows, support=support,
            start=tuple(names[f] for f in bits(first)))
    return DeltaAXp(mask, value, cert)
