"""The one place that says which engine explains which model: each engine names the
capability of the model protocol (:mod:`xdt.ir._protocol`) it needs, and the SAT encoding of a
model is chosen here by its capabilities.

* ``"path"`` — the path-walker (:mod:`~xdt.explain.engines._path`): models with
  :data:`~xdt.ir.PATHS`;
* ``"box"`` — branch and bound over boxes of cells (:mod:`~xdt.explain.engines._ensemble_box`):
  models with :data:`~xdt.ir.TREES`;
* ``"sat"`` — the SAT oracle (:mod:`~xdt.explain.engines._sat`), any model, and the only engine
  that encodes background constraints: :class:`~xdt.explain.engines.EnsembleEncoding`
  for :data:`~xdt.ir.TREES`, :class:`~xdt.explain.engines.ModelEncoding` else.

A new kind of model states its capabilities in its IR class; it needs an entry here only when
it brings an engine or an encoding of its own.
"""

from __future__ import annotations

from xdt.errors import EngineNotAvailableError
from xdt.explain._models import Model, constrained_refusal, is_constrained, tree_only
from xdt.explain.engines._ensemble_sat import EnsembleEncoding
from xdt.explain.engines._sat import ModelEncoding
from xdt.ir._protocol import PATHS, TREES, offers

__all__ = ["AUTO", "ENGINES", "NEEDS", "choose_engine", "encoding_class"]

ENGINES = ("path", "sat", "box")
"""The engines, by name."""

AUTO = ("auto", None)
"""The names that let :func:`choose_engine` pick."""

NEEDS = {"path": PATHS, "box": TREES, "sat": None}
"""Engine -> the capability it needs of a model (``None``: any model)."""


def choose_engine(model: Model, engine: str | None) -> str:
    """The engine that explains ``model``: ``engine`` itself, checked, or for ``None`` /
    ``"auto"`` the first of ``"path"``, ``"box"`` whose capability the model offers, else
    ``"sat"`` (always ``"sat"`` for a model with background constraints).

    Raises
    ------
    EngineNotAvailableError
        For an unknown engine name, or an engine whose capability the model lacks (the
        message says which engine to use instead), or a path or box engine asked of a model
        with background constraints.
    """
    if engine not in ENGINES and engine not in AUTO:
        raise EngineNotAvailableError(
            f"unknown engine {engine!r}; choose one of "
            f"{', '.join(map(repr, ('auto',) + ENGINES))}")
    if engine in AUTO:
        if is_constrained(model):
            return "sat"
        for e in ("path", "box"):  # a loop, not next() over a generator: once per Explainer
            if offers(model, NEEDS[e]):
                return e
        return "sat"
    if NEEDS[engine] is not None and is_constrained(model):
        raise constrained_refusal(f"the {engine} engine", model)
    if engine == "path" and not offers(model, PATHS):
        raise tree_only("the path engine",
                        "use engine='box' or 'sat' (engine=None or 'auto' picks 'box')"
                        if offers(model, TREES) else
                        "use engine='sat' (the default for DNFs and decision lists: "
                        "engine=None or 'auto')",
                        model)
    if engine == "box" and not offers(model, TREES):
        raise EngineNotAvailableError(
            f"the box engine explains tree ensembles, and this model is a "
            f"{model.kind_name}: use "
            + ("engine='path' or 'sat'" if offers(model, PATHS) else "engine='sat'")
            + " (engine=None or 'auto' picks it)")
    return engine


def encoding_class(model: Model) -> type[ModelEncoding]:
    """The SAT encoding of ``model``'s kind: :class:`EnsembleEncoding` for a model with
    :data:`~xdt.ir.TREES` (its sums and votes), :class:`ModelEncoding` else."""
    return EnsembleEncoding if offers(model, TREES) else ModelEncoding
