"""The user-facing explainer.

:class:`Explainer` reads an instance at the boundary (by name, in feature order or as a
pandas row), poses it to the chosen engine (:mod:`xdt.explain.engines._instance_oracle`),
asks the plain function of a query family over the engine's entailment oracle
(:mod:`~xdt.explain.queries._deletion`, :mod:`~xdt.explain.queries._enumeration`,
:mod:`~xdt.explain.queries._smallest`, :mod:`~xdt.explain.queries._preferences`,
:mod:`~xdt.explain.queries._delta_axp`), and returns
:class:`~xdt.explain.Explanation` objects with their certificates
(:mod:`xdt.explain.checks`), built when first read (:mod:`xdt.explain._results`).

This module holds its construction, instance reading and the deletion family; the other
families are mixins beside it: :mod:`~xdt.explain._explainer_enumeration`,
:mod:`~xdt.explain._explainer_smallest`, :mod:`~xdt.explain._explainer_probability` and
:mod:`~xdt.explain._explainer_sets` (questions about a given set of features).

The definitions of AXp, CXp and path-restricted explanations: :mod:`xdt.explain._explanation`.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, TypeVar

from xdt.explain import _results as results
from xdt.explain._docstrings import doc
from xdt.explain._explainer_enumeration import EnumerationMethods
from xdt.explain._explainer_probability import ProbabilityMethods
from xdt.explain._explainer_sets import SetMethods
from xdt.explain._explainer_smallest import SmallestMethods

# EnumerationInterrupted and ExplanationList: read from here by the CLI and the tests
from xdt.explain._explanation import EnumerationInterrupted, Explanation, ExplanationList  # noqa: F401
from xdt.explain._models import Model, check_instance, check_model, tree_only
from xdt.explain.checks._certificates import axp_certificate, check_certificates, cxp_certificate
from xdt.explain.engines._compiled import compiled, literals_memo, number_reader
from xdt.explain.engines._deadline import Deadline, limited
from xdt.explain.engines._deadline import active as active_deadline
from xdt.explain.engines._instance_oracle import check_path_restricted, instance_query, release
from xdt.explain.engines._oracle import bits
from xdt.explain.engines._registry import choose_engine
from xdt.explain.engines._sat import DEFAULT_SOLVER, check_solver
from xdt.explain.engines._sat_cache import shared_encoding
from xdt.explain.queries import _deletion as deletion
from xdt.explain.queries import _enumeration as enumeration
from xdt.explain.queries import _preferences as preferences
from xdt.explain.queries._inflate import Inflation
from xdt.explain.queries._inflate import inflate as inflate_cells
from xdt.ir._instances import encode_instance, numeric_instance
from xdt.ir._protocol import RULES, offers

if TYPE_CHECKING:
    from xdt.explain.engines._compiled import CompiledTree, NumberReader
    from xdt.explain.engines._instance_oracle import InstanceQuery

CACHE_SIZE = 64
"""Instances whose oracles an Explainer keeps (for the SAT engine, their assumption
literals; the solvers are shared per model)."""

_E = TypeVar("_E", Explanation, Explanation | None)

VERIFY_BATCH = (16, 256)
"""With ``verify=True``, an enumeration re-checks the certificates of the explanations it
finds in batches (one ``model.predict`` call each) while it searches: the first batch holds
this many explanations, and each next one twice as many, up to the second number. Under a
time limit, the search stops once the time left is only enough to check, at the pace of the
last batch, the explanations found and not checked yet; those still unchecked when the
deadline passes have ``verified=False``."""


@doc
class Explainer(EnumerationMethods, SmallestMethods, ProbabilityMethods, SetMethods):
    """Formal explanations of a model's predictions.

    Parameters
    ----------
    model : DecisionTree, DNF, NestedKDNF, DecisionList or TreeEnsemble
        The model to explain.
    {engine}
    solver : str
        PySAT solver of the SAT engine (default ``"cadical195"``; e.g. ``"glucose4"``).
        The solvers belong to the model (one per class and solver name, shared by every
        explainer of the model) and are released when the model is garbage-collected, or
        by :func:`xdt.explain.engines.release_solvers`; :meth:`close` closes this
        explainer's oracles.
    certificates : bool
        Attach a certificate to every explanation (default): evidence a user can re-check
        with the model's own ``predict`` (:mod:`xdt.explain.checks._certificates`): witness points,
        and for an AXp the proof of entailment. It is built on first access to
        ``explanation.certificate`` (a CXp's ``counterexample`` too), so explanations whose
        certificate is never read do not pay for it; building it costs about one entailment
        query per feature of an AXp (plus, with the path engine, one pass over the tree's
        paths). ``False``: no certificate (``certificate`` is ``None``), except for calls
        with ``verify=True``, which always certify and check before returning.

    Raises
    ------
    EngineNotAvailableError
        Unknown engine or solver, or an engine that cannot explain this model (the path
        engine on a DNF or a tree ensemble, the path or box engine on a model with
        background constraints); also raised by the methods that read a tree's
        path (:meth:`path_features`, :meth:`path_is_redundant`, ``path_restricted=True``,
        ``order="path"``) on a DNF or a tree ensemble.

    Notes
    -----
    {instances}

    With ``path_restricted=True`` explanations are drawn from the literals of the instance's
    path. For a tree with ``P`` paths and ``F`` features, building the
    oracle for an instance costs O(total path length); :meth:`all_cxps` is then polynomial,
    :meth:`axp` costs O(F) entailment checks. A DNF is explained by the SAT engine, which
    encodes "the DNF is false" as one clause per term and "the DNF is true" with one
    auxiliary variable per term (:mod:`xdt.explain.engines._sat`); its default deletion order keeps
    an AXp inside a shortest true term, or for a negative decision makes it a smallest AXp (see
    :meth:`axp`), so a k-AXp-interpretable DNF (Cooper, Bousdira & Carbonnel, IJCAI 2025),
    e.g. a nested k-DNF, gets AXps of at most k features.

    Examples
    --------
    >>> import xdt
    >>> from xdt.ir import DecisionTree, Feature, Leaf, ThresholdSplit
    >>> tree = DecisionTree([Feature("x", "ordinal"), Feature("y", "ordinal")],
    ...     ["circle", "cross"], ThresholdSplit("y", 0.73, ThresholdSplit("x", 0.64,
    ...     Leaf("circle"), Leaf("cross")), Leaf("cross")))
    >>> ex = xdt.Explainer(tree)
    >>> ex.axp({"x": 0.9, "y": 0.2}).rule
    'IF 0.64 < x THEN cross'
    >>> [e.features for e in ex.all_cxps({"x": 0.9, "y": 0.2})]
    [('x',)]
    >>> ex.axp({"x": 0.9, "y": 0.2}, verify=True).certificate.witnesses["x"]
    Witness(point={'x': 0.64, 'y': 0.2}, label='circle')

    A DNF, explained by the SAT engine (chosen automatically):

    >>> from xdt.ir import DNF, Condition
    >>> dnf = DNF([Feature(n, "binary") for n in "abcd"], [0, 1],
    ...           [[Condition("a", (1,)), Condition("b", (1,))],
    ...            [Condition("c", (1,)), Condition("d", (1,))]])
    >>> with xdt.Explainer(dnf) as ex:
    ...     ex.engine, ex.axp({"a": 0, "b": 1, "c": 1, "d": 0}).rule
    ('sat', 'IF a = 0 AND d = 0 THEN 0')
    """

    def __init__(self, model: Model, engine: str | None = None, *,
                 solver: str = DEFAULT_SOLVER, certificates: bool = True):
        check_model(model, "xdt.Explainer")
        engine = choose_engine(model, engine)
        self.model = model
        self.engine = engine
        self.solver = check_solver(solver)
        self.certificates = bool(certificates)
        self._encoding = shared_encoding(model) if engine == "sat" else None
        self._cache: OrderedDict[tuple, InstanceQuery] = OrderedDict()
        self._literals: dict[tuple[int, int], str] = literals_memo(model)
        self._compiled: CompiledTree | None = None
        self._reader: NumberReader | None = None

    # ------------------------------------------------------------------ resources
    def close(self) -> None:
        """Close the SAT oracles this explainer holds, one per cached instance (a no-op for
        the path engine); closed oracles answer no query and no longer hold the model.

        The model's shared solvers stay up for its other explainers (see ``solver``). The
        explainer stays usable: later queries open new oracles."""
        while self._cache:
            _, q = self._cache.popitem()
            release(q.oracle)

    def __enter__(self) -> Explainer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __getstate__(self) -> dict:
        """For pickling and copying (e.g. to joblib or multiprocessing workers): the model
        and the settings. The copy makes its own instance cache, compiled tables and SAT
        encoding, which hold locks, thread-local buffers and solvers."""
        return {"model": self.model, "engine": self.engine, "solver": self.solver,
                "certificates": self.certificates}

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["model"], state["engine"], solver=state["solver"],
                      certificates=state["certificates"])

    # ------------------------------------------------------------------ instances
    def _query(self, x, path_restricted: bool) -> InstanceQuery:
        if path_restricted:
            check_path_restricted(self.model, path_restricted)
        values, cells = self._read(x)
        if self.model.constraints:
            check_instance(self.model, values, cells)
        key = (cells, bool(path_restricted))
        hit = self._cache.get(key)
        if hit is not None:
            self._cache.move_to_end(key)
            return hit._replace(values=values)
        return self._keep(key, instance_query(self.model, self.engine, values, cells,
                                              path_restricted, self._tables, self._encoding,
                                              self.solver))

    def _keep(self, key: tuple, q: InstanceQuery) -> InstanceQuery:
        """Cache the query of an instance (the last :data:`CACHE_SIZE`)."""
        self._cache[key] = q
        if len(self._cache) > CACHE_SIZE:
            release(self._cache.popitem(last=False)[1].oracle)
        return q

    def _tables(self) -> CompiledTree:
        """The tree's compiled tables (:func:`~xdt.explain.engines._compiled.compiled`)."""
        if self._compiled is None:
            self._compiled = compiled(self.model)
        return self._compiled

    def _read(self, x) -> tuple[tuple, tuple[int, ...]]:
        """``(values, cells)`` of an instance: numbers in one kernel call when the model
        allows (:class:`~xdt.explain.engines._compiled.NumberReader`), else value by value
        (:func:`~xdt.ir._instances.encode_instance`, which also raises the errors)."""
        reader = self._reader
        if reader is None:
            reader = self._reader = number_reader(self.model)
        if reader.usable:
            read = numeric_instance(self.model.features, x)
            if read is not None:
                cells = reader.cells(read[1])
                if cells is not None:
                    return read[0], tuple(cells.tolist())
        return encode_instance(self.model.features, self.model.cells, x)

    def _mask(self, features: Iterable[str]) -> int:
        return preferences.names_mask(self.model.features, features)

    # ------------------------------------------------------------------ results
    def _explanation(self, q: InstanceQuery, mask: int, kind: str,
                     inflation: Inflation | None = None, certify: bool = False, cost: object = None,
                     optimality: object = None) -> Explanation:
        """The Explanation of the feature set ``mask``, with its certificate (if ``certify``
        or the explainer always certifies): :func:`xdt.explain._results.explanation`."""
        return results.explanation(
            self.model, self._literals, q, mask, kind, inflation, certify or self.certificates,
            cost, optimality, engine=self.engine, solver=self.solver,
            axp_certificate=axp_certificate, cxp_certificate=cxp_certificate)

    def _inflation(self, q: InstanceQuery, mask: int,
                   order: Sequence[int] | None = None) -> Inflation:
        held = {f: q.allowed[f] for f in bits(mask)}
        return inflate_cells(q.oracle, self.model.cells, held, order)

    def _checked(self, explanation: _E, verify: bool) -> _E:
        """``explanation``, after re-checking its certificate against ``model.predict`` (and
        marking it ``verified``) when ``verify``."""
        if verify and explanation is not None:
            explanation = self._verified([explanation])[0]
        return explanation

    def _verify_batches(self) -> tuple[int, int]:
        """:data:`VERIFY_BATCH`, read when an enumeration starts."""
        return VERIFY_BATCH

    def _verified(self, explanations: list[Explanation]) -> list[Explanation]:
        """``explanations`` after re-checking their certificates against ``model.predict``,
        marked ``verified``."""
        check_certificates(self.model, explanations)
        return [replace(e, verified=True) for e in explanations]

    # ------------------------------------------------------------------ public API
    def predict(self, x) -> object:
        """The model's prediction (class label) for instance ``x`` (a dict or pandas Series
        by feature name, other entries ignored, or a sequence in feature order)."""
        return self.model.classes[self._query(x, False).prediction]

    def path_features(self, x) -> tuple[str, ...]:
        """Names of the features tested on ``x``'s path, in order of first test.

        Raises :class:`~xdt.errors.EngineNotAvailableError` for a DNF or a decision list (no
        paths)."""
        path = self._query(x, False).path
        if path is None:
            raise tree_only("path_features",
                            ("model.firing([x]) tells which rule decides at x"
                             if offers(self.model, RULES) else
                             "model.satisfied_terms(model.encode([x])) tells which terms hold "
                             "at x") + ", and axp(x) gives a sufficient set of features",
                            self.model)
        names = self.model.features.names
        return tuple(names[f] for f in path.features)

    def axp(self, x, *, path_restricted: bool = False, order: str | Sequence[str] | None = None,
            inflate: bool = False, verify: bool = False,
            exclude: Iterable[str] | None = None,
            time_limit: float | Deadline | None = None) -> Explanation:
        """One AXp (PI-explanation) of the prediction for ``x``, by deletion
        (:func:`xdt.explain.queries._deletion.one_axp`; Izza, Ignatiev & Marques-Silva, "On
        Explaining Decision Trees", Sections 4-5).

        Parameters
        ----------
        {x}
        {path_restricted}
        {order}
        {inflate}
        {verify}
        {exclude}
        {one_time_limit}

        Returns
        -------
        Explanation (kind "AXp")
            With its ``certificate`` (:class:`~xdt.explain.checks.AxpCertificate`):
            per feature a witness point showing that freeing it alone admits another class,
            and the proof of entailment (the blocked paths, or the SAT solver's UNSAT).

        Raises
        ------
        NoExplanationError
            When no AXp avoids the ``exclude`` features: fixing every other feature still
            admits another class (the error's ``counterexample`` is such a point).
        UnknownFeatureError
            For a name in ``exclude`` that the model lacks.
        ComputationLimitError
            When ``time_limit`` passes first.
        ParameterError
            For a bad ``time_limit``.
        """
        deadline = None if time_limit is None else enumeration.as_deadline(time_limit)
        q = self._query(x, path_restricted)
        if deadline is None and active_deadline() is None:  # no limit, no wrapper: µs count
            return self._axp(q, order, inflate, verify, exclude, None)
        with limited(deadline, "an AXp"):
            return self._axp(q, order, inflate, verify, exclude, deadline)

    def _axp(self, q: InstanceQuery, order, inflate: bool, verify: bool, exclude,
             deadline: Deadline | None) -> Explanation:
        """:meth:`axp` of the instance ``q``, under ``deadline`` if one is active."""
        oracle = preferences.axp_oracle(self.model, q, exclude)
        mask = deletion.one_axp(self.model, q, oracle, order, self.engine, self._tables,
                                deadline)
        inflation = self._inflation(q, mask) if inflate else None
        return self._checked(self._explanation(q, mask, "AXp", inflation, verify), verify)

    def cxp(self, x, *, path_restricted: bool = False, order: str | Sequence[str] | None = None,
            verify: bool = False, immutable: Iterable[str] | None = None,
            time_limit: float | Deadline | None = None) -> Explanation | None:
        """One CXp by deletion (:func:`xdt.explain.queries._deletion.one_cxp`), or ``None``
        when no change of the candidate features changes the prediction (e.g. a one-class
        tree, or every feature that matters is immutable).

        Parameters
        ----------
        {x}
        {path_restricted}
        {order}
        {verify}
        {immutable}
        {one_time_limit}

        Returns
        -------
        Explanation (kind "CXp") or None
            Its ``certificate`` (:class:`~xdt.explain.checks.CxpCertificate`)
            holds its counterexample: a witness point that changes only the CXp's features
            and is predicted another class.

        Raises
        ------
        UnknownFeatureError
            For a name in ``immutable`` that the model lacks.
        ComputationLimitError
            When ``time_limit`` passes first.
        ParameterError
            For a bad ``time_limit``.
        """
        deadline = enumeration.as_deadline(time_limit)
        q = self._query(x, path_restricted)
        with limited(deadline, "a CXp"):
            oracle = preferences.restricted(self.model.features, q, immutable=immutable)
            mask = deletion.one_cxp(self.model, q, oracle, order, self.engine, self._tables,
                                    deadline)
            return self._checked(
                None if mask is None else self._explanation(q, mask, "CXp", None, verify),
                verify)

    def explain_batch(self, X, what: Sequence[str] | str = ("axp", "cxps"), *,
                      chunk_rows: int | None = None, max_memory: int | None = None,
                      as_frame: bool = True, dedupe: bool = True,
                      time_limit: float | Deadline | None = None):
        """One AXp and all CXps for every row of ``X`` at once: the batch path-walker
        (numpy over rows x paths bit masks; Izza, Ignatiev & Marques-Silva, "On Explaining
        Decision Trees", Sections 4-5).

        Gives, row by row, the AXp of :meth:`axp` (default order ``"path"``) and the CXps of
        :meth:`all_cxps` (path engine, ``path_restricted=False``), without certificates. See
        :func:`xdt.explain.engines._vectorised.explain_batch` for the parameters (``what``,
        ``chunk_rows``, ``max_memory``, ``as_frame``, ``dedupe``, ``time_limit``) and the
        returned DataFrame (``prediction``, ``axp``, ``axp_size``, ``cxps``, ``n_cxps``) or
        iterator of dicts. Under ``time_limit`` the rows are explained in slices of at most
        :data:`~xdt.explain.engines._vectorised.LIMITED_ROWS`, the deadline polled between
        them; when it passes, the call (or, with ``as_frame=False``, the iterator, after the
        rows it has given) raises :class:`~xdt.errors.ComputationLimitError`: a table with
        rows missing is not returned.

        Raises
        ------
        EngineNotAvailableError
            For a DNF, or a tree with background constraints (explain it row by row with
            the SAT engine).
        InstanceError
            On bad rows (from ``model.encode``).
        ParameterError
            Bad ``what`` (e.g. ``"bogus"``), ``chunk_rows``, ``max_memory`` or
            ``time_limit``.
        ComputationLimitError
            When ``time_limit`` passes before the last row is explained.
        """
        from xdt.explain.engines._vectorised import explain_batch

        return explain_batch(self.model, X, what, chunk_rows=chunk_rows,
                             max_memory=max_memory, as_frame=as_frame, dedupe=dedupe,
                             time_limit=time_limit)

    def __repr__(self) -> str:
        return f"Explainer({self.model!r}, engine={self.engine!r})"

