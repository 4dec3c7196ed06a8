"""The model protocol: what each kind of model offers to the engines, queries and faces.

Every model of the IR (:class:`~xdt.ir.DecisionTree`, :class:`~xdt.ir.DNF` and
:class:`~xdt.ir.NestedKDNF`, :class:`~xdt.ir.DecisionList`,
:class:`~xdt.ir.TreeEnsemble`) is a :class:`Model`: it states, in its own class,

* its **capabilities** (:attr:`Model.capabilities`, among the constants below): what a query
  may ask of it beyond prediction — root-to-leaf paths, listed implying terms, ordered rules,
  trees combined by a sum;
* its prediction on cells (:meth:`Model.predict_cells`, :meth:`Model.predict_one`);
* per class, the terms that imply it where that is cheap (:meth:`Model.implying_terms`);
* its readable kind and sizes (:attr:`Model.kind_name`, :meth:`Model.describe`).

Engines and queries ask for a capability with :func:`offers`, never for a type; the engines'
registry (:mod:`xdt.explain.engines._registry`) says which engine needs which capability, and
:func:`xdt.explain._models.refusal` refuses with one message when a model lacks it.

The kinds that come next fit without a new branch in any query:

* a **regressor** (trees or ensembles with real-valued leaves) is a subclass whose queries ask
  whether the output stays in an interval: it offers :data:`PATHS` or :data:`TREES` as its
  classifier twin does, so the path notions and the box engine's bounds apply unchanged, and
  the engines' entailment question becomes "the output stays in ``[lo, hi]``" in place of
  "the class stays";
* a feature with a **missing** cell is a property of the feature space, not of the model: its
  cells gain one, the reader maps a missing value to it, and every engine, which works on
  cells only, explains it as any other cell.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import ClassVar

import numpy as np

PATHS = "paths"
"""Root-to-leaf paths partition the cell space and the instance's path decides its prediction:
the path engine, path-restricted explanations, path redundancy, the leaf of a row."""

TERMS = "terms"
"""The model's terms are a DNF over literals (some term holds for ``classes[1]``): the
complement's terms are their minimal transversals, and the k-AXp-interpretability of
Cooper, Bousdira & Carbonnel (IJCAI 2025) applies."""

RULES = "rules"
"""Ordered rules, the first that fires decides (a decision list)."""

TREES = "trees"
"""Several trees over one feature space, their leaves' values combined by a vote or a sum: the
box engine and the ensemble encodings."""

CAPABILITIES = (PATHS, TERMS, RULES, TREES)
"""Every capability a model may state."""

TermMasks = tuple[int, dict[int, int]]
"""A term as ``(index in the model, {feature: allowed cells})``."""


class Model(ABC):
    """What every model of the IR offers, in one place (see the module docstring).

    Subclasses set :attr:`kind` (the JSON ``kind``), :attr:`kind_name` and
    :attr:`capabilities`, and implement :meth:`predict_cells`, :meth:`implying_terms` and
    :meth:`describe`.
    """

    kind: ClassVar[str]
    """The model's ``kind`` in the IR's JSON (``"tree"``, ``"dnf"``, ...)."""

    kind_name: ClassVar[str]
    """The kind in words, for messages (``"decision tree"``, ``"nested k-DNF"``, ...)."""

    capabilities: ClassVar[frozenset[str]] = frozenset()
    """What the model offers beyond prediction (:data:`PATHS`, :data:`TERMS`, :data:`RULES`,
    :data:`TREES`)."""

    @abstractmethod
    def predict_cells(self, cells: np.ndarray) -> np.ndarray:
        """Class index per row of ``cells`` (int64, shape (n, features)); shape (n,)."""

    def predict_one(self, cells: Sequence[int]) -> int:
        """Class index of one point given by its cells (one per feature)."""
        arr = np.asarray(cells, dtype=np.int64).reshape(1, -1)
        return int(self.predict_cells(arr)[0])

    @abstractmethod
    def implying_terms(self, c: int) -> list[TermMasks] | None:
        """The consistent terms that imply class index ``c``, when the model lists them.

        Returns
        -------
        list of (int, dict) or None
            ``(index, {feature: allowed cells})`` per term: the model predicts ``c`` at a
            point exactly when one of them holds there. ``None`` when the model does not list
            them (they may be exponentially many, or not terms at all).
        """

    @abstractmethod
    def describe(self) -> str:
        """One readable line: the kind of model and its sizes."""

    def offers(self, capability: str) -> bool:
        """Whether the model states ``capability`` (:data:`CAPABILITIES`)."""
        return capability in self.capabilities


def offers(model: object, capability: str) -> bool:
    """Whether ``model`` is a :class:`Model` stating ``capability``; ``False`` for anything
    else (so a query may ask it of whatever it was given)."""
    return capability in getattr(model, "capabilities", ())


def target_text(model: Model) -> str:
    """``", target 'y'"`` when the model names its target, else ``""`` (for :meth:`describe`)."""
    target = getattr(model, "target", None)
    return f", target {target!r}" if target else ""
