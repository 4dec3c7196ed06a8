"""The feature-set family of :class:`~xdt.explain.Explainer`: questions about a given set of
features (is it a weak AXp, an AXp, a CXp; a counterexample to it; its inflation), and the
sets every or some AXp holds (necessary and relevant features), and path redundancy.

A part of the Explainer's face, beside :mod:`xdt.explain._explainer`: the methods call the
checks of :mod:`xdt.explain.queries._deletion` and :mod:`xdt.explain.queries._inflate` over
the instance's oracle. Each takes ``time_limit`` (:func:`bounded`): one answer, so a call the
limit cuts short raises :class:`~xdt.errors.ComputationLimitError`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from xdt.errors import ParameterError
from xdt.explain._docstrings import doc
from xdt.explain._explanation import Explanation
from xdt.explain._models import point_values, tree_only
from xdt.explain.engines._deadline import Deadline, check, limited
from xdt.explain.engines._deadline import active as active_deadline
from xdt.explain.engines._oracle import bits
from xdt.explain.queries import _deletion as deletion
from xdt.explain.queries._enumeration import as_deadline
from xdt.ir._protocol import PATHS, offers

_T = TypeVar("_T")


def bounded(time_limit: float | Deadline | None, what: str, call: Callable[[], _T]) -> _T:
    """``call()`` under ``time_limit`` (seconds, a shared Deadline, or ``None``), made the
    active deadline; when it passes first, :class:`~xdt.errors.ComputationLimitError` saying
    that it passed before ``what`` was found. Without a limit (given or active), ``call()``
    alone: the fast path pays for no wrapper.

    Raises :class:`~xdt.errors.ParameterError` for a bad ``time_limit``."""
    deadline = None if time_limit is None else as_deadline(time_limit)
    if deadline is None and active_deadline() is None:
        return call()
    with limited(deadline, what):
        return call()


@doc
class SetMethods:
    """The Explainer's :meth:`is_weak_axp`, :meth:`is_axp`, :meth:`is_cxp`,
    :meth:`counterexample`, :meth:`inflate`, :meth:`relevant_features`,
    :meth:`necessary_features` and :meth:`path_is_redundant` (a mixin of
    :class:`~xdt.explain.Explainer`, not used alone).

    It relies on the Explainer's ``model``, ``_query`` (the instance posed to the engine),
    ``_mask`` (a feature mask of names), ``_explanation``, ``_inflation`` and ``_checked``.
    """

    def is_weak_axp(self, x, features: Iterable[str], *, path_restricted: bool = False,
                    time_limit: float | Deadline | None = None) -> bool:
        """Whether fixing ``features`` (names, or an Explanation) entails the prediction.

        Parameters
        ----------
        {x}
        features : iterable of str, or Explanation
        {path_restricted}
        {answer_time_limit}

        Raises
        ------
        {set_raises}
        """
        return bounded(time_limit, "the answer of is_weak_axp", lambda: deletion.is_weak_axp(
            self._query(x, path_restricted).oracle, self._mask(features)))

    def is_axp(self, x, features: Iterable[str], *, path_restricted: bool = False,
               time_limit: float | Deadline | None = None) -> bool:
        """Whether ``features`` is an AXp: a weak AXp none of whose features can be dropped
        (``len(features) + 1`` entailment checks at most).

        Parameters
        ----------
        {x}
        features : iterable of str, or Explanation
        {path_restricted}
        {answer_time_limit}

        Raises
        ------
        {set_raises}
        """
        return bounded(time_limit, "the answer of is_axp", lambda: deletion.is_axp(
            self._query(x, path_restricted).oracle, self._mask(features)))

    def is_cxp(self, x, features: Iterable[str], *, path_restricted: bool = False,
               time_limit: float | Deadline | None = None) -> bool:
        """Whether ``features`` is a CXp: freeing them can change the prediction, and freeing
        any proper subset cannot (``len(features) + 1`` entailment checks at most).

        Parameters
        ----------
        {x}
        features : iterable of str, or Explanation
        {path_restricted}
        {answer_time_limit}

        Raises
        ------
        {set_raises}
        """
        return bounded(time_limit, "the answer of is_cxp", lambda: deletion.is_cxp(
            self._query(x, path_restricted).oracle, self._mask(features)))

    def counterexample(self, x, fixed: Iterable[str], *, path_restricted: bool = False,
                       time_limit: float | Deadline | None = None) -> dict | None:
        """A point agreeing with ``x`` on the ``fixed`` features (name -> value) that the
        model predicts another class, or ``None`` when ``fixed`` is a weak AXp.

        Parameters
        ----------
        {x}
        fixed : iterable of str, or Explanation
        {path_restricted}
        {answer_time_limit}

        Raises
        ------
        {set_raises}
        """
        def find() -> dict | None:
            q = self._query(x, path_restricted)
            mask = self._mask(fixed)
            check()  # the path-walker's one call reads no clock
            point = q.oracle.counterexample(mask)
            return None if point is None else point_values(self.model, q.values, q.cells,
                                                           point)
        return bounded(time_limit, "a counterexample (or the proof that there is none)", find)

    def inflate(self, x, features: Iterable[str], *, path_restricted: bool | None = None,
                order: Sequence[str] | None = None, verify: bool = False,
                time_limit: float | Deadline | None = None) -> Explanation:
        """Inflate a given AXp (names, or an Explanation): widen each of its features to a
        maximal entailing cell set (see :meth:`axp` and :mod:`xdt.explain.queries._inflate`).

        Parameters
        ----------
        {x}
        features : iterable of str, or Explanation
            An AXp of ``x``'s prediction.
        path_restricted : bool, optional
            Start from the path's literals; default: the Explanation's own setting, else
            False.
        order : sequence of str, optional
            The order in which features are widened (default: the model's feature order).
        {verify}
        {answer_time_limit}
            The check that ``features`` is an AXp, the widening (one entailment check per
            cell tried) and with ``verify`` the re-check count against it: cell sets whose
            widening was cut short are not known to be maximal.

        Raises
        ------
        ParameterError
            When ``features`` is not an AXp of ``x``'s prediction, or for a bad
            ``time_limit``.
        ComputationLimitError
            When ``time_limit`` passes first.
        """
        if path_restricted is None:
            path_restricted = bool(getattr(features, "path_restricted", False))

        def widen() -> Explanation:
            q = self._query(x, path_restricted)
            mask = self._mask(features)
            if mask & ~q.oracle.universe or not deletion.is_axp(q.oracle, mask):
                raise ParameterError(
                    f"{[self.model.features.names[f] for f in bits(mask)]} is not an AXp of "
                    "this instance's prediction; inflate an AXp (e.g. from axp or all_axps)")
            seq = None if order is None else [self.model.features.index(n) for n in order]
            return self._checked(
                self._explanation(q, mask, "AXp", self._inflation(q, mask, seq), verify),
                verify)
        return bounded(time_limit, "an inflated AXp", widen)

    def path_is_redundant(self, x, *, time_limit: float | Deadline | None = None) -> bool:
        """Whether ``x``'s path is explanation-redundant: some feature can be dropped from the
        path's literals and the rest still entail the prediction (Izza et al., Section 2).

        Parameters
        ----------
        {x}
        {answer_time_limit}

        Raises
        ------
        EngineNotAvailableError
            For a DNF or a decision list (no paths).
        ComputationLimitError
            When ``time_limit`` passes first.
        ParameterError
            For a bad ``time_limit``.
        """
        if not offers(self.model, PATHS):
            raise tree_only("path_is_redundant (explanation redundancy of a path)",
                            "to test whether some features of a term can be dropped, use "
                            "is_axp(x, features) on the term's features", self.model)
        return bounded(time_limit, "whether the path is redundant",
                       lambda: deletion.path_is_redundant(self._query(x, True).oracle))

    def relevant_features(self, x, *, path_restricted: bool = False,
                          time_limit: float | Deadline | None = None) -> tuple[str, ...]:
        """Features in some AXp — exactly those in some CXp (duality), so no AXp is listed.

        For trees: polynomial (the union of the minimal disagreement sets); otherwise it
        enumerates every CXp (hitting-set duality), which can take long on an ensemble.

        Parameters
        ----------
        {x}
        {path_restricted}
        {answer_time_limit}
            The union of the CXps found before the limit would look like the whole answer
            while missing features, so none is returned: use
            ``all_cxps(x, time_limit=...)`` for the CXps found so far, marked
            ``stopped_by="time_limit"``.

        Raises
        ------
        ComputationLimitError
            When ``time_limit`` passes before the last CXp is found.
        ParameterError
            For a bad ``time_limit``.
        """
        def union() -> tuple[str, ...]:
            found = deletion.relevant(self._query(x, path_restricted).oracle)
            return tuple(self.model.features.names[f] for f in bits(found))
        return bounded(time_limit, "every relevant feature", union)

    def necessary_features(self, x, *, path_restricted: bool = False,
                           time_limit: float | Deadline | None = None) -> tuple[str, ...]:
        """Features in every AXp — exactly those that are a CXp on their own (one entailment
        check per feature).

        Parameters
        ----------
        {x}
        {path_restricted}
        {answer_time_limit}

        Raises
        ------
        ComputationLimitError
            When ``time_limit`` passes before every feature is checked.
        ParameterError
            For a bad ``time_limit``.
        """
        def singles() -> tuple[str, ...]:
            found = deletion.necessary(self._query(x, path_restricted).oracle)
            return tuple(self.model.features.names[bits(m)[0]] for m in found)
        return bounded(time_limit, "every necessary feature", singles)


__all__ = ["SetMethods", "bounded"]
