"""One instance posed to the chosen engine: its cells and prediction, its path in a tree, the
cells each fixed feature is held to, and the engine's entailment oracle for it.

:func:`instance_query` builds this state (:class:`InstanceQuery`) once per instance; every
query of :mod:`xdt.explain.queries` reads it. ``engine`` is the name
:func:`~xdt.explain.engines.choose_engine` picked for the model: ``"path"``
(:class:`~xdt.explain.engines.PathOracle`), ``"box"``
(:class:`~xdt.explain.engines.BoxOracle`, which hands the queries past its limit
to the SAT engine) or ``"sat"`` (the model's shared encoding,
:func:`~xdt.explain.engines.shared_encoding`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import NamedTuple

import numpy as np

from xdt.explain._models import Model, predict_one, tree_only
from xdt.explain.engines._compiled import CompiledTree
from xdt.explain.engines._ensemble_box import BoxOracle, prepare
from xdt.explain.engines._oracle import EntailmentOracle
from xdt.explain.engines._path import PathOracle
from xdt.explain.engines._sat import ModelEncoding, SatOracle
from xdt.explain.engines._sat_cache import shared_encoding
from xdt.ir._cells import full_mask
from xdt.ir._protocol import PATHS, RULES, offers
from xdt.ir._tree import Path


class InstanceQuery(NamedTuple):
    """An instance posed to an engine.

    Attributes
    ----------
    values : tuple
        The instance's values, in feature order.
    cells : tuple of int
        Its cell per feature.
    prediction : int
        Its class index.
    path : Path or None
        Its path in a tree; ``None`` for a model without paths.
    allowed : tuple of int
        Per feature, the bit mask of cells a fixed feature is held to: the instance's cell,
        or with ``path_restricted`` the path's literal.
    oracle : EntailmentOracle
        The engine's oracle for the instance.
    path_restricted : bool
        Whether explanations are drawn from the literals of the instance's path.
    memo : dict
        What queries work out once per instance (e.g. the deletion order ``"term"``).
    """

    values: tuple
    cells: tuple[int, ...]
    prediction: int
    path: Path | None  # the instance's path in a tree; None for a DNF
    allowed: tuple[int, ...]
    oracle: EntailmentOracle
    path_restricted: bool
    memo: dict  # e.g. the "term" order


def check_path_restricted(model: Model, path_restricted: bool) -> None:
    """Raise :class:`~xdt.errors.EngineNotAvailableError` when ``path_restricted`` is asked of
    a model without paths (the message says what to use instead)."""
    if path_restricted and not offers(model, PATHS):
        raise tree_only("path_restricted=True (explanations drawn from the literals of "
                        "the instance's path)",
                        "call without it: " + (
                            "for a decision list, axp's default order ('term') keeps the "
                            "AXp inside the firing rule's features and those that keep "
                            "the earlier rules false" if offers(model, RULES) else
                            "for a DNF, axp's default order ('term') already keeps the AXp "
                            "inside a shortest true term, or for a negative decision "
                            "makes it a smallest AXp"), model)


def instance_query(model: Model, engine: str, values: tuple, cells: tuple[int, ...],
                   path_restricted: bool, tables: Callable[[], CompiledTree],
                   encoding: ModelEncoding | None, solver: str) -> InstanceQuery:
    """The instance with these ``values`` and ``cells`` posed to ``engine``.

    ``tables()`` gives a tree's compiled tables (read only for a model with paths);
    ``encoding`` is the model's shared SAT encoding for the SAT engine (else ``None``), and
    ``solver`` the PySAT solver's name."""
    if engine == "path" and not path_restricted:  # the common case, in one call
        oracle, leaf = PathOracle.of_cells(model, cells, tables())
        path = model.paths[leaf]
        return InstanceQuery(values, cells, path.class_index, path, oracle.allowed, oracle,
                             False, {})
    path = None
    oracle: EntailmentOracle | None = None
    if offers(model, PATHS):
        path = model.paths[tables().leaf(np.asarray(cells, dtype=np.int64))]
        prediction = path.class_index
    elif engine == "box":  # the ensemble's arrays, compiled: no per-tree Python loop
        prediction = prepare(model).classify(cells)
    else:
        prediction = predict_one(model, cells)
    allowed, universe = held_cells(model, cells, path if path_restricted else None)
    if engine == "box":
        oracle = BoxOracle(model, cells, allowed, universe, prediction,
                           fallback=partial(sat_oracle, model, solver, cells, allowed, universe,
                                            prediction))
    elif encoding is not None:
        oracle = encoding.oracle(cells, allowed, universe, prediction, solver=solver)
    else:
        oracle = PathOracle(model, cells, allowed, universe, prediction,
                            restricted=bool(path_restricted))
    return InstanceQuery(values, cells, prediction, path, allowed, oracle,
                         bool(path_restricted), {})


def sat_oracle(model: Model, solver: str, cells, allowed, universe: int,
               prediction: int) -> EntailmentOracle:
    """The SAT engine's oracle for an instance: the box engine hands it the queries past
    its limit."""
    return shared_encoding(model).oracle(cells, allowed, universe, prediction, solver=solver)


def open_oracle(oracle: EntailmentOracle) -> EntailmentOracle:
    """``oracle``, or for a SAT oracle that has been closed, a new one for the same
    instance."""
    return oracle.reopened() if isinstance(oracle, SatOracle) else oracle


def release(oracle: EntailmentOracle) -> None:
    """Close ``oracle`` when it holds resources (a SAT oracle's solver)."""
    close = getattr(oracle, "close", None)
    if close is not None:
        close()


def held_cells(model: Model, cells: Sequence[int], path=None) -> tuple[tuple[int, ...], int]:
    """The cells each feature is held to, and the features a query may free (a bit mask).

    Without ``path``: each feature held to the instance's cell, every feature free to
    change. With the instance's ``path`` (a path-restricted query): each feature held to the
    path's literal on it (any cell where the path does not test it), and only the path's
    features free."""
    if path is None:
        return tuple(1 << c for c in cells), full_mask(len(cells))
    return (tuple(path.masks.get(f, full_mask(c.n_cells)) for f, c in enumerate(model.cells)),
            sum(1 << f for f in path.masks))
