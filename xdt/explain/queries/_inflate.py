"""Inflated explanations: widen each feature of an AXp from one cell to a maximal cell set.

An AXp says *which* features suffice for the prediction, each held to the instance's cell
(or, path-restricted, to the path's literal). Its **inflated** form keeps the features and
widens each one's condition to a maximal set of cells such that the widened conditions
together still entail the prediction (Izza, Ignatiev, Stuckey & Marques-Silva, "Delivering
Inflated Explanations", AAAI 2024, which calls them inflated, or generalised, explanations):

* an **ordinal** feature is widened from its interval cell by cell, first to the left while
  entailment holds, then to the right — its set stays an interval
  (``0.5 < x <= 2.3``);
* a **categorical or binary** feature gets the other values of its domain added one at a
  time, in domain order, each kept when entailment still holds (``colour in {red, blue}``).

Features are processed in the given order (by default the AXp's own feature order), each
widened against the already-widened sets of the features before it and the original cells
of those after it. Each test is one call of
:meth:`~xdt.explain.engines.EntailmentOracle.counterexample_cells`, so any engine can
inflate.

The result is **maximal**: no single cell can be added to any feature's set (for an ordinal
feature: neither neighbour of its interval) with entailment kept. This holds after one pass
because entailment is anti-monotone in the held sets: a cell rejected for a feature has a
counterexample point inside the sets at that moment, and those sets only grow afterwards, so
the same point still rules the cell out at the end. The counterexamples are returned, and end
up as the ``widening`` part of the explanation's certificate
(:mod:`xdt.explain.checks._certificates`).

Cost: at most ``sum over the AXp's features of n_cells(f)`` entailment calls.

Examples
--------
>>> import xdt
>>> from xdt.ir import (Branch, CategoricalSplit, DecisionTree, Feature, Leaf,
...                     ThresholdSplit)
>>> by_colour = CategoricalSplit("colour", (
...     Branch(("red",), Leaf("yes")),
...     Branch(("blue",), ThresholdSplit("x", 1.5, Leaf("yes"), Leaf("yes"))),
...     Branch(("green", "yellow"), Leaf("no"))))
>>> tree = DecisionTree(
...     [Feature("x", "ordinal"),
...      Feature("colour", "categorical", ("red", "blue", "green", "yellow"))],
...     ["no", "yes"],
...     ThresholdSplit("x", 0.5, Leaf("no"), ThresholdSplit("x", 2.3, by_colour, Leaf("no"))))
>>> ex = xdt.Explainer(tree)
>>> ex.axp({"x": 1.0, "colour": "red"}).rule
'IF 0.5 < x <= 1.5 AND colour = red THEN yes'
>>> ex.axp({"x": 1.0, "colour": "red"}, inflate=True).rule
'IF 0.5 < x <= 2.3 AND colour in {red, blue} THEN yes'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdt.errors import ParameterError
from xdt.explain.engines._deadline import check
from xdt.explain.engines._oracle import EntailmentOracle
from xdt.ir._cells import Cells, IntervalCells, cells_of


@dataclass(frozen=True)
class Inflation:
    """The result of :func:`inflate`.

    Attributes
    ----------
    held : dict of int to int
        Per feature position of the AXp, the widened cell set (bit mask).
    rejected : dict of int to list of (int, tuple of int)
        Per feature position, each cell that could not be added with the cells of a point
        of another class that rules it out (inside the final widened sets plus that cell).
    """

    held: dict[int, int]
    rejected: dict[int, list[tuple[int, tuple[int, ...]]]]


def inflate(oracle: EntailmentOracle, cells: Sequence[Cells], held: dict[int, int],
            order: Sequence[int] | None = None) -> Inflation:
    """Widen the cell sets of a (weak) AXp to a maximal entailing set.

    Parameters
    ----------
    oracle : EntailmentOracle
        The engine's oracle for the instance (either engine).
    cells : sequence of CategoricalCells / IntervalCells
        The model's cells per feature (``model.cells``).
    held : dict of int to int
        Per feature of the AXp, its starting cell set: the instance's cell, or the path's
        literal (an interval for an ordinal feature). Must entail the prediction.
    order : sequence of int, optional
        The order in which the features are widened (default: the order of ``held``); the
        features of ``held`` it does not name come after it, in ``held``'s order.

    Returns
    -------
    Inflation

    Raises
    ------
    ParameterError
        When ``held`` does not entail the prediction.

    Notes
    -----
    Izza, Ignatiev, Stuckey & Marques-Silva, "Delivering Inflated Explanations", AAAI 2024,
    Algorithm 1 (per feature, grow the allowed values while entailment holds; ordinal
    features as intervals, growing their bounds).
    """
    sets = dict(held)
    if oracle.counterexample_cells(sets) is not None:
        raise ParameterError("the cell sets to widen do not entail the prediction; widen an "
                             "AXp (or any cell sets that entail it)")
    sequence = [f for f in dict.fromkeys(order or ()) if f in sets]
    sequence += [f for f in sets if f not in sequence]
    rejected: dict[int, list[tuple[int, tuple[int, ...]]]] = {f: [] for f in sequence}

    def try_add(f: int, c: int) -> bool:
        check()  # the active deadline, if any
        trial = dict(sets)
        trial[f] = sets[f] | (1 << c)
        point = oracle.counterexample_cells(trial)
        if point is None:
            sets[f] = trial[f]
            return True
        rejected[f].append((c, point))
        return False

    for f in sequence:
        n = cells[f].n_cells
        if isinstance(cells[f], IntervalCells):
            present = list(cells_of(sets[f]))
            lo, hi = present[0], present[-1]
            while lo > 0 and try_add(f, lo - 1):
                lo -= 1
            while hi < n - 1 and try_add(f, hi + 1):
                hi += 1
        else:
            for c in range(n):
                if not (sets[f] >> c) & 1:
                    try_add(f, c)
    return Inflation(held={f: sets[f] for f in held}, rejected=rejected)
