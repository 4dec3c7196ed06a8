"""A smallest AXp or CXp of an instance, or under feature weights a cheapest one, and what
proves it optimal.

By hitting-set duality (Ignatiev, Narodytska, Asher & Marques-Silva, "From Contrastive to
Abductive Explanations and Back Again", AIxIA 2020), a smallest (cheapest) AXp is a
minimum-size (minimum-weight) hitting set of the CXps, and a smallest (cheapest) CXp one of
the AXps: :func:`smallest_axp` and :func:`smallest_cxp` find it with the algorithms of
:mod:`xdt.explain.queries._duality` (a compiled branch and bound or the first AXp of the
enumeration for a smallest AXp; implicit hitting sets with RC2 MaxSAT otherwise).
:func:`optimality_proof` gives the dual explanations that bound every explanation's cost from
below, and the cost they prove: the checks turn it into an optimality certificate
(:func:`xdt.explain.checks._optimality.optimality_certificate`).

Weights are those of :func:`~xdt.explain.queries._preferences.feature_weights`: ``(scaled,
exact)``, feature position -> positive int and -> Fraction.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import NamedTuple

from xdt.explain.engines._instance_oracle import open_oracle
from xdt.explain.engines._oracle import EntailmentOracle
from xdt.explain.queries import _duality as duality
from xdt.explain.queries._preferences import (
    RestrictedOracle,
    cost_of,
    feature_weights,
    plain_number,
)
from xdt.ir._features import FeatureSpace


class Smallest(NamedTuple):
    """A smallest or cheapest explanation and the search that found it.

    Attributes
    ----------
    mask : int
        The explanation (bit mask).
    search : Cheapest or None
        The implicit hitting-set search with its bound (None for a smallest AXp found by
        size: its proof is searched when asked, :func:`optimality_proof`).
    weights : (scaled, exact) or None
        The weights read; None for unit weights.
    oracle : EntailmentOracle
        The oracle the search ran on (the instance's, or restricted by the user's terms).
    """

    mask: int
    search: duality.Cheapest | None
    weights: tuple | None
    oracle: EntailmentOracle


def smallest_axp(oracle: EntailmentOracle, features: FeatureSpace,
                 weights: Mapping[str, float] | None,
                 deadline: duality.Deadline | None) -> Smallest:
    """An AXp of ``oracle`` of minimum size, or with ``weights`` (feature name -> cost) of
    minimum cost: a minimum (weight) hitting set of the CXps. ``oracle`` must have an AXp
    (fixing every candidate entails the prediction).

    Without weights, a minimum hitting set of the CXps the engine lists (the path
    engine; a compiled branch and bound, then RC2 MaxSAT), or the first AXp of the
    duality enumeration (the SAT engine). With weights, implicit hitting sets with RC2
    MaxSAT (:func:`xdt.explain.queries.cheapest_axp`): a cheapest hitting set of the
    CXps found so far is either an AXp — then optimal — or misses a new CXp.

    Raises
    ------
    ComputationLimitError
        When ``deadline`` passes first.
    ParameterError, UnknownFeatureError
        For a bad weight, or a name the model lacks.
    """
    w = feature_weights(features, weights)
    found = None
    if w is None:
        mask = duality.smallest_axp(oracle, deadline)
    else:
        found = duality.cheapest_axp(oracle, w[0], deadline)
        assert found is not None  # an AXp exists: the caller checked it
        mask = found.mask
    return Smallest(mask, found, w, oracle)


def smallest_cxp(oracle: EntailmentOracle, features: FeatureSpace,
                 weights: Mapping[str, float] | None,
                 deadline: duality.Deadline | None) -> Smallest | None:
    """A CXp of ``oracle`` of minimum size, or with ``weights`` of minimum cost; ``None``
    when no CXp exists. Raises as :func:`smallest_axp`.

    By implicit hitting sets over the AXps with RC2 MaxSAT
    (:func:`xdt.explain.queries.cheapest_cxp`): a cheapest hitting set of the AXps
    found so far either changes the prediction when freed — then it is a CXp, and
    optimal — or leaves a weak AXp fixed, which is shrunk to a new AXp to hit.
    """
    w = feature_weights(features, weights)
    found = duality.cheapest_cxp(oracle, None if w is None else w[0], deadline)
    if found is None:
        return None
    return Smallest(found.mask, found, w, oracle)


def cost(found: Smallest) -> int | float | None:
    """The explanation's cost under the weights, as a plain number (None without weights)."""
    exact = found.weights[1] if found.weights is not None else None
    return None if exact is None else plain_number(cost_of(found.mask, exact))


class OptimalityProof(NamedTuple):
    """What proves a smallest or cheapest explanation optimal (the keyword arguments of
    :func:`~xdt.explain.checks._optimality.optimality_certificate`).

    Attributes
    ----------
    oracle : EntailmentOracle
        An open oracle for the instance, restricted as the search's was.
    exact : dict of int to Fraction
        The weights by position (1 each without weights).
    cost, lower_bound : Fraction
        The explanation's cost, and the least cost of a hitting set of ``bounds``.
    bounds : tuple of int
        The dual explanations found (CXps for an AXp, AXps for a CXp).
    excluded, immutable : int
        The features held free and held fixed (bit masks).
    """

    oracle: EntailmentOracle
    exact: dict
    cost: Fraction
    lower_bound: Fraction
    bounds: tuple[int, ...]
    excluded: int
    immutable: int


def optimality_proof(kind: str, found: Smallest, n_features: int) -> OptimalityProof:
    """The proof that ``found`` (an ``"AXp"`` or ``"CXp"``) is optimal: for unit weights
    without a search, one by implicit hitting sets now, on an open oracle (a SAT oracle that
    has been closed is opened again)."""
    oracle, mask, search, weights = found.oracle, found.mask, found.search, found.weights
    oracle = (RestrictedOracle(open_oracle(oracle.inner), oracle.free, oracle.fixed,
                               oracle.allowed)
              if isinstance(oracle, RestrictedOracle) else open_oracle(oracle))
    if search is None:  # unit weights: prove the size
        cheapest = duality.cheapest_axp if kind == "AXp" else duality.cheapest_cxp
        search = cheapest(oracle)
        assert search is not None
    exact = (weights[1] if weights is not None
             else dict.fromkeys(range(n_features), Fraction(1)))
    return OptimalityProof(oracle, exact, cost_of(mask, exact), cost_of(search.mask, exact),
                           search.bounds, getattr(oracle, "free", 0),
                           getattr(oracle, "fixed", 0))
