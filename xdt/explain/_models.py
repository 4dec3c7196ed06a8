"""What the explainers need from a model, asked through the model protocol.

The engines, queries and checks see a model only through :class:`~xdt.ir.Model`:
its capabilities (:func:`~xdt.ir.offers`), its prediction on cells, the terms that
imply each class where it lists them, its readable kind. This module adds what every caller
shares on top of it: the refusal when a model lacks what a query needs (one message,
:func:`refusal`), background constraints (:func:`is_constrained`, :func:`check_instance`),
the test of a term at a point (:func:`holds`), and a point given by its cells as values
(:func:`point_values`). Which engine needs which capability is registered in
:mod:`xdt.explain.engines._registry`; the deletion order read off a model's terms is in
:mod:`xdt.explain.queries._term_order`.

A term is given as ``(index, masks)``: its position in the model (path index or term index)
and, per constrained feature, the intersection of its literals' cell sets.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from xdt.errors import ConstraintViolationError, EngineNotAvailableError
from xdt.ir._protocol import PATHS, TREES, Model, TermMasks, offers

__all__ = ["Model", "TermMasks", "check_instance", "check_model", "constrained_refusal",
           "describe", "holds", "implying_terms", "is_constrained", "kind_name",
           "point_values", "predict_cells", "predict_one", "refusal", "tree_only"]


def check_model(model: object, what: str) -> None:
    """Raise :class:`EngineNotAvailableError` unless ``model`` is a model the explainers know
    (a :class:`~xdt.ir.Model`).

    ``what`` names the caller in the message (``"the sat engine"``, ``"crosscheck"``).
    """
    if isinstance(model, Model):
        return
    hint = (" (load a model file or dict with xdt.load_model first)"
            if isinstance(model, dict | str) else "")
    raise EngineNotAvailableError(
        f"{what} explains decision trees, DNFs, nested k-DNFs, decision lists and tree "
        f"ensembles, not "
        f"{type(model).__name__}{hint}")


_NEEDS = {PATHS: ("decision trees", "it reads the instance's root-to-leaf path")}
"""Per capability a query may need: the models that offer it, and why it is needed."""


def refusal(what: str, instead: str, model: object = None,
            needs: str = PATHS) -> EngineNotAvailableError:
    """The one error for a query asked of a model that lacks the capability it needs
    (:data:`~xdt.ir.PATHS` by default: a path-based notion asked of a DNF, a decision
    list, or a tree ensemble, which has many paths, one per tree, and no single one decides);
    the message names the model's kind and says what to use instead."""
    kind = model.kind_name if isinstance(model, Model) else "DNF"
    who, why = _NEEDS.get(needs, (f"models with {needs}", f"it needs the model's {needs}"))
    if offers(model, TREES):
        return EngineNotAvailableError(
            f"{what} is defined for {who} ({why}), and this model is a {kind}: no single "
            f"path decides its prediction; {instead}")
    return EngineNotAvailableError(
        f"{what} is defined for {who} ({why}), and this model is a {kind}, which has no "
        f"{needs}; {instead}")


def tree_only(what: str, instead: str, model: object = None) -> EngineNotAvailableError:
    """:func:`refusal` of a path-based notion (the capability :data:`~xdt.ir.PATHS`)."""
    return refusal(what, instead, model, PATHS)


def is_constrained(model: object) -> bool:
    """Whether ``model`` carries background constraints (:mod:`xdt.ir._constraints`)."""
    return bool(getattr(model, "constraints", None))


def constrained_refusal(what: str, model: Model) -> EngineNotAvailableError:
    """The error of an engine or check that does not take background constraints into
    account, asked about a model that carries some: it says to use the SAT engine, which
    encodes them (:mod:`xdt.explain.engines._sat`). Such an engine must refuse rather than ignore
    them: its answers would be about points the constraints exclude."""
    cons = model.constraints
    shown = "; ".join(str(c) for c in list(cons)[:2]) + ("; ..." if len(cons) > 2 else "")
    return EngineNotAvailableError(
        f"{what} does not take background constraints into account, and this "
        f"{kind_name(model)} carries {len(cons)} ({shown}); use the SAT engine, which "
        "encodes them: Explainer(model, engine='sat') (engine=None or 'auto' picks it for a "
        "constrained model)")


def check_instance(model: Model, values: Sequence, cells: Sequence[int]) -> None:
    """Raise :class:`~xdt.errors.ConstraintViolationError` when the instance (its values and
    cells) violates a background constraint of ``model``: explanations under the
    constraints are about points that satisfy them."""
    broken = model.constraints.violated(values, cells) if model.constraints else None
    if broken is not None:
        shown = {n: v for n, v in zip(model.features.names, values, strict=True)
                 if n in broken.features}
        raise ConstraintViolationError(
            f"the instance violates the background constraint {str(broken)!r} of the model "
            f"({', '.join(f'{n} = {v!r}' for n, v in shown.items())}); explanations under the "
            "constraints are about points that satisfy them: fix the instance, or explain "
            "it without them (model.with_constraints(None))")


def kind_name(model: Model) -> str:
    """``"decision tree"``, ``"tree ensemble"``, ``"decision list"``, ``"DNF"`` or
    ``"nested k-DNF"`` (:attr:`~xdt.ir.Model.kind_name`)."""
    return model.kind_name


def describe(model: Model) -> str:
    """One readable line: the kind of model and its sizes
    (:meth:`~xdt.ir.Model.describe`)."""
    return model.describe()


def predict_cells(model: Model, cells: Sequence[Sequence[int]] | np.ndarray) -> np.ndarray:
    """Class index per row of ``cells`` (shape (n, F)); shape (n,), int64."""
    arr = np.asarray(cells, dtype=np.int64).reshape(-1, len(model.features))
    return np.asarray(model.predict_cells(arr), dtype=np.int64)


def predict_one(model: Model, cells: Sequence[int]) -> int:
    """Class index of one point given by its cells (:meth:`~xdt.ir.Model.predict_one`;
    for a decision list, from its term table's answer at that point, which the deletion order
    then reuses)."""
    return model.predict_one(cells)


def implying_terms(model: Model, c: int) -> list[TermMasks] | None:
    """The consistent terms that imply class index ``c``, when the model lists them
    (:meth:`~xdt.ir.Model.implying_terms`): a tree's paths of class ``c``, a DNF's
    terms when ``c == 1``; ``None`` for a DNF's class 0, a decision list, a tree ensemble."""
    return model.implying_terms(c)


def holds(masks: dict[int, int], cells: Sequence[int]) -> bool:
    """Whether the point with the given cells satisfies the term ``masks``."""
    return all((m >> cells[f]) & 1 for f, m in masks.items())


def point_values(model: Model, values: Sequence, cells: Sequence[int],
                 point: Sequence[int]) -> dict:
    """A point given by its cells as feature name -> value: the instance's own value where
    the cell is the instance's, else a value of the cell. For a model with orderings among
    its background constraints (``x <= y``), the ordered features get values that satisfy
    them (:meth:`~xdt.ir._constraints.Constraints.realize`: the instance's where they fit);
    the other constraints hold for every value of the point's cells."""
    out = {c.name: values[f] for f, c in enumerate(model.cells)}
    for f, (a, b) in enumerate(zip(point, cells, strict=True)):
        if a != b:
            c = model.cells[f]
            out[c.name] = c.value(a)
    constraints = getattr(model, "constraints", None)
    if constraints and constraints.linked:
        for f, v in constraints.realize(values, cells, point).items():
            out[model.cells[f].name] = v
    return out
