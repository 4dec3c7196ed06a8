"""The user-facing explainer.

:class:`Explainer` reads an instance at the boundary (by name, in feature order or as a
pandas row), poses it to the chosen engine (:mod:`xdt.explain.engines.instance_oracle`),
asks the plain function of a query family over the engine's entailment oracle
(:mod:`~xdt.explain.queries.deletion`, :mod:`~xdt.explain.queries.enumeration`,
:mod:`~xdt.explain.queries.smallest`, :mod:`~xdt.explain.queries.preferences`,
:mod:`~xdt.explain.queries.delta_axp`), and returns
:class:`~xdt.explain.explanation.Explanation` objects with their certificates
(:mod:`xdt.explain.checks`), built when first read.

Definitions (Izza, Ignatiev & Marques-Silva, "On Explaining Decision Trees", Section 2;
Ignatiev et al., AIxIA 2020): for an instance ``v`` predicted ``c``,

* a **weak AXp** is a set of features ``S`` such that every point agreeing with ``v`` on ``S``
  is predicted ``c``; an **AXp** (PI-explanation) is a subset-minimal weak AXp;
* a **CXp** is a subset-minimal set of features ``T`` such that some point agreeing with ``v``
  on every feature outside ``T`` is predicted another class;
* **path-restricted** explanations draw only from the features of ``v``'s path, each held to
  the path's literal (the intersection of the path's tests on it) instead of ``v``'s cell;
  a path is **explanation-redundant** when its literals are not a PI-explanation.

For a DNF (Cooper, Bousdira & Carbonnel, "Interpretable DNFs", IJCAI 2025, Section 2) the
definitions are the same; path-restricted explanations and path redundancy, which read a
tree's paths, do not apply, and the SAT engine is the one that explains it. So for a
decision list (Ignatiev & Marques-Silva, "SAT-Based Rigorous Explanations for Decision
Lists", SAT 2021): its firing rule alone may hold redundant literals and miss why the
earlier rules did not fire; its AXps do neither.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from fractions import Fraction
from functools import partial
from typing import TypeVar

from xdt.errors import ParameterError
from xdt.explain.checks.certificates import axp_certificate, check_certificates, cxp_certificate
from xdt.explain.engines.compiled import (
    CompiledTree,
    NumberReader,
    compiled,
    literals_memo,
    number_reader,
)
from xdt.explain.engines.instance_oracle import (
    InstanceQuery,
    check_path_restricted,
    instance_query,
    open_oracle,
    release,
)
from xdt.explain.engines.oracle import EntailmentOracle, bits
from xdt.explain.engines.registry import choose_engine
from xdt.explain.engines.sat import DEFAULT_SOLVER, check_solver
from xdt.explain.engines.sat_cache import shared_encoding
from xdt.explain.explanation import (
    Deferred,
    EnumerationInterrupted,
    Explanation,
    ExplanationList,
    explanation_of,
    once,
)
from xdt.explain.models import (
    Model,
    check_instance,
    check_model,
    point_values,
    predict_one,
    tree_only,
)
from xdt.explain.queries import deletion, duality, enumeration, preferences, smallest
from xdt.explain.queries.inflate import Inflation
from xdt.explain.queries.inflate import inflate as inflate_cells
from xdt.ir.instances import encode_instance, numeric_instance
from xdt.ir.protocol import PATHS, RULES, offers

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


class Explainer:
    """Formal explanations of a model's predictions.

    Parameters
    ----------
    model : DecisionTree, DNF, NestedKDNF, DecisionList or TreeEnsemble
        The model to explain.
    engine : {"auto", "path", "sat", "box"} or None
        ``"path"``: the polynomial path-walker for decision trees (Izza, Ignatiev &
        Marques-Silva, "On Explaining Decision Trees", Sections 4-5), in compiled kernels
        (:mod:`xdt.explain.engines.kernels`) over the tree's flat arrays, built once per tree; the
        first call in a process loads them (compiled once per machine: about 10 s, then
        cached). ``"sat"``: the PySAT
        oracle (:mod:`xdt.explain.engines.sat`) for trees, DNFs and decision lists: the model is
        encoded once and
        shared by all its explainers, with one incremental solver per class, each instance
        posed as assumptions; for trees, the reference the path-walker is cross-checked
        against.
        For a tree ensemble the SAT engine is :mod:`xdt.explain.engines.ensemble_sat` (decided
        exactly in the library's float arithmetic, by lazily added lemmas); ``"box"``: the exact
        branch and bound over boxes of cells of :mod:`xdt.explain.engines.ensemble_box` (tree
        ensembles only; compiled, one AXp in one call; a query past its limit is handed to
        the SAT engine), the other engine an ensemble can be cross-checked with.
        ``"auto"`` or ``None`` (default): ``"path"`` for a decision tree, ``"box"`` for a
        tree ensemble, ``"sat"`` for a DNF, nested k-DNF or decision list and for any model
        carrying
        background constraints (:mod:`xdt.ir.constraints`: only the SAT engine encodes
        them; ``"path"`` and ``"box"`` refuse such a model). :attr:`engine` holds the
        engine chosen.
    solver : str
        PySAT solver of the SAT engine (default ``"cadical195"``; e.g. ``"glucose4"``).
        The solvers belong to the model (one per class and solver name, shared by every
        explainer of the model) and are released when the model is garbage-collected, or
        by :func:`xdt.explain.engines.sat_cache.release_solvers`; :meth:`close` closes this
        explainer's oracles.
    certificates : bool
        Attach a certificate to every explanation (default): evidence a user can re-check
        with the model's own ``predict`` (:mod:`xdt.explain.checks.certificates`): witness points,
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
    Every method takes the instance ``x`` as a dict by feature name, a pandas Series (a row
    of a DataFrame) or a sequence in feature order. A dict and a Series are read alike, by
    name: every feature must be present, and entries that are not features (the target
    column, an id) are ignored, so ``ex.axp(df.iloc[0])`` works on a table that holds the
    target too (:mod:`xdt.ir.instances`). Bad input raises
    :class:`~xdt.errors.MissingFeatureError` (its message lists the ignored names, with a
    likely misspelling), :class:`~xdt.errors.UnknownCategoryError`,
    :class:`~xdt.errors.MissingValueError` (NaN) or :class:`~xdt.errors.InstanceShapeError`
    (a sequence of the wrong length).

    With ``path_restricted=True`` explanations are drawn from the literals of the instance's
    path. For a tree with ``P`` paths and ``F`` features, building the
    oracle for an instance costs O(total path length); :meth:`all_cxps` is then polynomial,
    :meth:`axp` costs O(F) entailment checks. A DNF is explained by the SAT engine, which
    encodes "the DNF is false" as one clause per term and "the DNF is true" with one
    auxiliary variable per term (:mod:`xdt.explain.engines.sat`); its default deletion order keeps
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
        """The tree's compiled tables (:func:`~xdt.explain.engines.compiled.compiled`)."""
        if self._compiled is None:
            self._compiled = compiled(self.model)
        return self._compiled

    def _read(self, x) -> tuple[tuple, tuple[int, ...]]:
        """``(values, cells)`` of an instance: numbers in one kernel call when the model
        allows (:class:`~xdt.explain.engines.compiled.NumberReader`), else value by value
        (:func:`~xdt.ir.instances.encode_instance`, which also raises the errors)."""
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
        or the explainer always certifies)."""
        certify = certify or self.certificates
        feats = bits(mask)
        # The witness points and the certificate are made on first access, with the
        # instance's oracle (for the SAT engine, a new one if close() has closed it).
        cx: object = None
        cx_class: object = None
        cert: object = None
        if kind == "CXp":
            masks = tuple([1 << q.cells[f] for f in feats])
            witness = once(partial(self._witness, q, mask, certify))
            cx = Deferred(witness, "counterexample")
            cx_class = Deferred(witness, "counterexample_class")
            cert = Deferred(witness, "certificate")
        else:
            held = inflation.held if inflation is not None else {f: q.allowed[f] for f in feats}
            masks = tuple([held[f] for f in feats])
            if certify:
                cert = Deferred(partial(self._axp_certificate, q, mask, held, inflation))
        return explanation_of(self.model, self._literals, kind, feats, masks, q.values,
                              q.prediction, q.path_restricted, cx, cx_class, cert,
                              inflation is not None, cost, optimality)

    def _axp_certificate(self, q: InstanceQuery, mask: int, held: dict[int, int],
                         inflation: Inflation | None) -> object:
        return axp_certificate(
            self.model, open_oracle(q.oracle), values=q.values, cells=q.cells,
            prediction=q.prediction, allowed=q.allowed, mask=mask, held=held, engine=self.engine,
            solver=self.solver if self.engine == "sat" else None,
            path_restricted=q.path_restricted,
            rejected=inflation.rejected if inflation is not None else None)

    def _witness(self, q: InstanceQuery, mask: int, certify: bool) -> dict:
        """A CXp's counterexample (a point changing only the CXp's features, predicted
        another class), its class, and its certificate if ``certify``."""
        oracle = open_oracle(q.oracle)
        point = oracle.counterexample(oracle.universe & ~mask)
        if point is None:
            return {"counterexample": None, "counterexample_class": None, "certificate": None}
        cx = point_values(self.model, q.values, q.cells, point)
        cx_class = self.model.classes[predict_one(self.model, point)]
        cert = None if not certify else cxp_certificate(
            self.model, values=q.values, prediction=q.prediction, witness=cx,
            witness_class=cx_class, path_restricted=q.path_restricted)
        return {"counterexample": cx, "counterexample_class": cx_class, "certificate": cert}

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

    def _enumerate(self, q: InstanceQuery, kind: str, oracle: EntailmentOracle,
                   max_count: int | None, time_limit: float | duality.Deadline | None,
                   progress: bool, verify: bool,
                   on_found: Callable[[int, Explanation], None] | None,
                   weights: tuple | None, by_weight: bool) -> ExplanationList:
        """All explanations of ``kind`` of ``oracle`` under the limits
        (:func:`~xdt.explain.queries.enumeration.enumerate_explanations`), each built as it is
        found, and with ``verify`` re-checked in batches of :data:`VERIFY_BATCH`."""
        done = enumeration.enumerate_explanations(
            kind, oracle, max_count=max_count, time_limit=time_limit, progress=progress,
            verify=verify, on_found=on_found,
            build=lambda m, cost: self._explanation(q, m, kind, None, verify, cost),
            recheck=self._verified, batches=VERIFY_BATCH, weights=weights, by_weight=by_weight)
        found = ExplanationList(done.found, complete=done.stopped_by is None,
                                stopped_by=done.stopped_by)
        if done.stopped_by == "interrupted":
            raise EnumerationInterrupted(found)
        return found

    def _verified(self, explanations: list[Explanation]) -> list[Explanation]:
        """``explanations`` after re-checking their certificates against ``model.predict``,
        marked ``verified``."""
        check_certificates(self.model, explanations)
        return [replace(e, verified=True) for e in explanations]

    def _cheapest(self, q: InstanceQuery, kind: str, found: smallest.Smallest,
                  inflation: Inflation | None, verify: bool) -> Explanation:
        """The Explanation of a smallest or cheapest explanation, with its cost and (lazily)
        its optimality certificate."""
        optimality = None
        if self.certificates or verify:
            optimality = Deferred(partial(self._optimality, q, kind, found))
        return self._explanation(q, found.mask, kind, inflation, verify, smallest.cost(found),
                                 optimality)

    def _optimality(self, q: InstanceQuery, kind: str, found: smallest.Smallest) -> object:
        from xdt.explain.checks.optimality import optimality_certificate

        proof = smallest.optimality_proof(kind, found, len(self.model.features))
        return optimality_certificate(
            self.model, kind=kind, values=q.values, cells=q.cells, prediction=q.prediction,
            path_restricted=q.path_restricted, **proof._asdict())

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
            exclude: Iterable[str] | None = None) -> Explanation:
        """One AXp (PI-explanation) of the prediction for ``x``, by deletion.

        Parameters
        ----------
        order : {"path", "term", "features", "reverse"}, sequence of feature names, or None
            The order in which features are tried for removal; a feature tried earlier is
            more likely to be left out, so put the features you would rather see in the
            explanation last. ``None`` (default): ``"path"`` for a tree, ``"term"`` for a
            DNF or a decision list. ``"path"`` (trees only): features off the instance's
            path first, then the path's features from the root down — so the AXp is a subset
            of the path's features and is never longer than the path. ``"term"``: for a
            positive decision of a DNF, the features of a shortest term that holds at ``x``
            last, so the AXp is a subset of them; for a negative one, a minimum set of
            features whose values falsify every term last (a minimum hitting set, PySAT's
            Hitman), which is then the AXp — a smallest one
            (:func:`xdt.explain.queries.term_order.term_order`; Cooper, Bousdira & Carbonnel,
            "Interpretable DNFs", IJCAI 2025, Section 2: a decision is explained by a true
            term of the DNF or of its complement). So a k-DNF whose complement is a k-DNF
            (k-AXp-interpretable), e.g. a nested k-DNF, gets AXps of at most k features. For
            a decision list, the firing rule's features last, just before them a minimum set
            of features whose values keep every earlier rule false
            (:func:`xdt.explain.queries.term_order.decision_list_weak_axp`): the AXp is a subset of
            these. For a tree ``"term"`` is ``"path"``. ``"features"``: the model's feature
            order; ``"reverse"``: the opposite. Features a sequence does not name are tried
            after it, in feature order.
        inflate : bool
            Widen each feature of the AXp from the instance's cell (or path literal) to a
            maximal set of cells that still entails the prediction — an interval for an
            ordinal feature, a value set for a categorical one — giving the widest rule
            (``IF 0.5 < x <= 2.3 AND colour in {red, blue} THEN ...``); see
            :mod:`xdt.explain.queries.inflate` (Izza, Ignatiev, Stuckey & Marques-Silva, "Delivering
            Inflated Explanations", AAAI 2024). Features are widened in the AXp's order.
        verify : bool
            Re-check the explanation's certificate against ``model.predict`` before
            returning (:func:`~xdt.explain.checks.certificates.check_certificate`); raises
            :class:`~xdt.errors.CertificateError` if it fails.
        exclude : iterable of str, optional
            Features the AXp may not use ("explain without race or sex"): they are held
            free, so the AXp holds whatever values they take
            (:mod:`xdt.explain.queries.preferences`). The result is an AXp of the model that avoids
            them.

        Returns
        -------
        Explanation (kind "AXp")
            With its ``certificate`` (:class:`~xdt.explain.checks.certificates.AxpCertificate`):
            per feature a witness point showing that freeing it alone admits another class,
            and the proof of entailment (the blocked paths, or the SAT solver's UNSAT).

        Raises
        ------
        NoExplanationError
            When no AXp avoids the ``exclude`` features: fixing every other feature still
            admits another class (the error's ``counterexample`` is such a point).
        UnknownFeatureError
            For a name in ``exclude`` that the model lacks.
        """
        q = self._query(x, path_restricted)
        oracle = preferences.axp_oracle(self.model, q, exclude)
        mask = deletion.one_axp(self.model, q, oracle, order, self.engine, self._tables)
        inflation = self._inflation(q, mask) if inflate else None
        return self._checked(self._explanation(q, mask, "AXp", inflation, verify), verify)

    def inflate(self, x, features: Iterable[str], *, path_restricted: bool | None = None,
                order: Sequence[str] | None = None, verify: bool = False) -> Explanation:
        """Inflate a given AXp (names, or an Explanation): widen each of its features to a
        maximal entailing cell set (see :meth:`axp` and :mod:`xdt.explain.queries.inflate`).

        Parameters
        ----------
        features : iterable of str, or Explanation
            An AXp of ``x``'s prediction.
        path_restricted : bool, optional
            Start from the path's literals; default: the Explanation's own setting, else
            False.
        order : sequence of str, optional
            The order in which features are widened (default: the model's feature order).
        verify : bool
            As in :meth:`axp`.

        Raises
        ------
        ParameterError
            When ``features`` is not an AXp of ``x``'s prediction.
        """
        if path_restricted is None:
            path_restricted = bool(getattr(features, "path_restricted", False))
        q = self._query(x, path_restricted)
        mask = self._mask(features)
        if mask & ~q.oracle.universe or not self.is_axp(x, features,
                                                        path_restricted=path_restricted):
            raise ParameterError(
                f"{[self.model.features.names[f] for f in bits(mask)]} is not an AXp of this "
                "instance's prediction; inflate an AXp (e.g. from axp or all_axps)")
        seq = None if order is None else [self.model.features.index(n) for n in order]
        return self._checked(
            self._explanation(q, mask, "AXp", self._inflation(q, mask, seq), verify), verify)

    def cxp(self, x, *, path_restricted: bool = False, order: str | Sequence[str] | None = None,
            verify: bool = False, immutable: Iterable[str] | None = None) -> Explanation | None:
        """One CXp by deletion (``order`` as in :meth:`axp`), or ``None`` when no change of
        the candidate features changes the prediction (e.g. a one-class tree, or every
        feature that matters is immutable).

        The CXp's ``certificate`` (:class:`~xdt.explain.checks.certificates.CxpCertificate`) holds
        its counterexample: a witness point that changes only the CXp's features and is
        predicted another class. ``verify=True`` re-checks it with ``model.predict`` (see
        :meth:`axp`).

        ``immutable`` (feature names) are features that may not change ("leave age
        alone"): the CXp is an actionable one, a subset-minimal set of the other features
        whose change can change the prediction, and its counterexample keeps the immutable
        features at the instance's values (:mod:`xdt.explain.queries.preferences`). Raises
        :class:`~xdt.errors.UnknownFeatureError` for a name the model lacks."""
        q = self._query(x, path_restricted)
        oracle = preferences.restricted(self.model.features, q, immutable=immutable)
        mask = deletion.one_cxp(self.model, q, oracle, order, self.engine, self._tables)
        return self._checked(
            None if mask is None else self._explanation(q, mask, "CXp", None, verify), verify)

    def all_cxps(self, x, *, path_restricted: bool = False, max_count: int | None = None,
                 time_limit: float | duality.Deadline | None = None, progress: bool = False,
                 verify: bool = False,
                 on_found: Callable[[int, Explanation], None] | None = None,
                 immutable: Iterable[str] | None = None,
                 weights: Mapping[str, float] | None = None, order: str | None = None
                 ) -> ExplanationList:
        """All CXps of the prediction for ``x``, smallest (or cheapest) first.

        For trees with the path engine: the subset-minimal sets of features on which a path
        of another class disagrees with ``x`` (polynomial; Izza et al., Section 5). With the
        SAT engine: hitting-set duality (a minimum hitting set of the AXps found so far is
        a CXp, or the oracle yields a new AXp).

        Parameters
        ----------
        max_count : int, optional
            Stop after this many CXps (a positive integer). Default: no limit — the call
            lists every one, however many there are (``xdt explain`` caps its listings at
            1,000 by default instead).
        time_limit : float or Deadline, optional
            Stop after this many seconds (positive), or at a
            :class:`~xdt.explain.queries.duality.Deadline` shared with other calls (e.g. all the
            enumerations of one instance). It bounds the whole call: the deadline is polled
            between oracle calls inside the search; explanations (with their certificates)
            are built as they are found; and with ``verify=True`` the certificates are
            re-checked in batches while the search goes on (:data:`VERIFY_BATCH`), which
            stops when the time left is just enough to check the last ones. An explanation
            whose check the deadline cut off is returned with ``verified=False``. So a call
            returns soon after the deadline (one solver call, hitting-set step or batch of
            checks may run over).
        progress : bool
            Show a progress bar (tqdm, on stderr) of the explanations found.
        verify : bool
            Re-check every explanation's certificate against ``model.predict`` (see
            :meth:`axp`); each one checked has ``verified=True``.
        on_found : callable, optional
            Called as ``on_found(count, explanation)`` each time the search finds an
            explanation (``count`` = 1, 2, ... so far), before its certificate is
            re-checked; e.g. to show a counter while a long enumeration runs.
        immutable : iterable of str, optional
            Features that may not change: only the CXps avoiding them are listed (the
            actionable ones; see :meth:`cxp`).
        weights : mapping of str to positive number, optional
            Feature name -> cost (features not named cost 1;
            :func:`~xdt.explain.queries.preferences.feature_weights`); each explanation's ``cost``
            is the sum of its features' weights.
        order : {"size", "weight"}, optional
            ``"size"``: smallest first; ``"weight"``: cheapest first under ``weights``
            (enumerated in that order by RC2 MaxSAT). Default: ``"weight"`` when ``weights``
            is given, else ``"size"``.

        Returns
        -------
        ExplanationList
            A list of Explanations with ``complete`` (False when a limit stopped the
            enumeration before it could prove there are no more) and ``stopped_by``.

        Raises
        ------
        EnumerationInterrupted
            On ``KeyboardInterrupt`` (Ctrl-C) during the call; its ``found`` holds the
            explanations found so far.
        CertificateError
            With ``verify=True``, when a certificate fails its re-check.
        """
        q = self._query(x, path_restricted)
        w, by_weight = enumeration.enumeration_weights(self.model.features, weights, order)
        oracle = preferences.restricted(self.model.features, q, immutable=immutable)
        return self._enumerate(q, "CXp", oracle, max_count, time_limit, progress, verify,
                               on_found, w, by_weight)

    def all_axps(self, x, *, path_restricted: bool = False, max_count: int | None = None,
                 time_limit: float | duality.Deadline | None = None, progress: bool = False,
                 verify: bool = False,
                 on_found: Callable[[int, Explanation], None] | None = None,
                 exclude: Iterable[str] | None = None,
                 weights: Mapping[str, float] | None = None, order: str | None = None
                 ) -> ExplanationList:
        """All AXps of the prediction for ``x``, smallest (or cheapest) first, as the minimal
        hitting sets of the CXps, enumerated with PySAT's Hitman (Izza et al., Section 5).

        The number of AXps can be exponential in the number of features (a deep tree over
        hundreds of binary features can have thousands for one instance), and by default
        the call lists them all: give ``max_count`` or ``time_limit`` to bound it.
        ``max_count``, ``time_limit``, ``progress``, ``verify`` and ``on_found`` are as in
        :meth:`all_cxps`, and so are the returned :class:`ExplanationList` and the errors;
        so are ``weights`` and ``order`` (``"weight"``: cheapest first). ``exclude`` lists
        features the AXps may not use (see :meth:`axp`): only the AXps avoiding them are
        listed, and the list is empty when none does. Each AXp carries its certificate (see
        :meth:`axp`)."""
        q = self._query(x, path_restricted)
        w, by_weight = enumeration.enumeration_weights(self.model.features, weights, order)
        oracle = preferences.restricted(self.model.features, q, exclude=exclude)
        return self._enumerate(q, "AXp", oracle, max_count, time_limit, progress, verify,
                               on_found, w, by_weight)

    def smallest_axp(self, x, *, path_restricted: bool = False, inflate: bool = False,
                     verify: bool = False, exclude: Iterable[str] | None = None,
                     weights: Mapping[str, float] | None = None,
                     time_limit: float | duality.Deadline | None = None) -> Explanation:
        """An AXp of minimum size, or with ``weights`` of minimum cost: a minimum (weight)
        hitting set of the CXps.

        Without weights, a minimum hitting set of the CXps the engine lists (the path
        engine; a compiled branch and bound, then RC2 MaxSAT), or the first AXp of the
        duality enumeration (the SAT engine). With weights, implicit hitting sets with RC2
        MaxSAT (:func:`xdt.explain.queries.duality.cheapest_axp`): a cheapest hitting set of the
        CXps found so far is either an AXp — then optimal — or misses a new CXp.

        Parameters
        ----------
        inflate, verify, exclude
            As in :meth:`axp` (``verify`` re-checks the optimality certificate too).
        weights : mapping of str to positive number, optional
            Feature name -> cost (e.g. the price of checking it); features not named cost 1
            (:func:`~xdt.explain.queries.preferences.feature_weights`).
        time_limit : float or Deadline, optional
            Seconds (or a shared :class:`~xdt.explain.queries.duality.Deadline`) the search may
            take; polled between its MaxSAT and oracle calls.

        Returns
        -------
        Explanation (kind "AXp")
            With ``cost`` (with ``weights``) and ``optimality``
            (:class:`~xdt.explain.checks.optimality.OptimalityCertificate`, built on first access):
            CXps that every AXp must meet, each with a witness point, and the lower bound
            their cheapest hitting set proves — the AXp's own cost.

        Raises
        ------
        NoExplanationError
            When no AXp avoids the ``exclude`` features.
        ComputationLimitError
            When ``time_limit`` passes first (the message gives the lower bound reached).
        ParameterError
            For a weight that is not a positive finite number, or a bad ``time_limit``.
        UnknownFeatureError
            For a name in ``exclude`` or ``weights`` that the model lacks.
        """
        deadline = enumeration.as_deadline(time_limit)
        q = self._query(x, path_restricted)
        oracle = preferences.axp_oracle(self.model, q, exclude)
        found = smallest.smallest_axp(oracle, self.model.features, weights, deadline)
        inflation = self._inflation(q, found.mask) if inflate else None
        return self._checked(self._cheapest(q, "AXp", found, inflation, verify), verify)

    def smallest_cxp(self, x, *, path_restricted: bool = False, verify: bool = False,
                     immutable: Iterable[str] | None = None,
                     weights: Mapping[str, float] | None = None,
                     time_limit: float | duality.Deadline | None = None
                     ) -> Explanation | None:
        """A CXp of minimum size, or with ``weights`` of minimum cost (the cheapest change),
        or ``None`` when no CXp exists.

        By implicit hitting sets over the AXps with RC2 MaxSAT
        (:func:`xdt.explain.queries.duality.cheapest_cxp`): a cheapest hitting set of the AXps
        found so far either changes the prediction when freed — then it is a CXp, and
        optimal — or leaves a weak AXp fixed, which is shrunk to a new AXp to hit.

        Parameters
        ----------
        verify, immutable
            As in :meth:`cxp` (``verify`` re-checks the optimality certificate too).
        weights : mapping of str to positive number, optional
            Feature name -> cost of changing it; features not named cost 1.
        time_limit : float or Deadline, optional
            As in :meth:`smallest_axp`.

        Returns
        -------
        Explanation (kind "CXp") or None
            With ``cost`` (with ``weights``) and ``optimality``
            (:class:`~xdt.explain.checks.optimality.OptimalityCertificate`): AXps (given the
            immutable features) that every CXp must meet, re-checked by an independent
            engine, and the lower bound their cheapest hitting set proves.

        Raises
        ------
        ComputationLimitError, ParameterError, UnknownFeatureError
            As in :meth:`smallest_axp`.
        """
        deadline = enumeration.as_deadline(time_limit)
        q = self._query(x, path_restricted)
        oracle = preferences.restricted(self.model.features, q, immutable=immutable)
        found = smallest.smallest_cxp(oracle, self.model.features, weights, deadline)
        if found is None:
            return None
        return self._checked(self._cheapest(q, "CXp", found, None, verify), verify)

    def is_weak_axp(self, x, features: Iterable[str], *, path_restricted: bool = False) -> bool:
        """Whether fixing ``features`` (names, or an Explanation) entails the prediction.

        Raises :class:`~xdt.errors.UnknownFeatureError` for a name the model lacks."""
        return deletion.is_weak_axp(self._query(x, path_restricted).oracle, self._mask(features))

    def is_axp(self, x, features: Iterable[str], *, path_restricted: bool = False) -> bool:
        """Whether ``features`` is an AXp: a weak AXp none of whose features can be dropped."""
        return deletion.is_axp(self._query(x, path_restricted).oracle, self._mask(features))

    def is_cxp(self, x, features: Iterable[str], *, path_restricted: bool = False) -> bool:
        """Whether ``features`` is a CXp: freeing them can change the prediction, and freeing
        any proper subset cannot."""
        return deletion.is_cxp(self._query(x, path_restricted).oracle, self._mask(features))

    def counterexample(self, x, fixed: Iterable[str], *,
                       path_restricted: bool = False) -> dict | None:
        """A point agreeing with ``x`` on the ``fixed`` features (name -> value) that the
        model predicts another class, or ``None`` when ``fixed`` is a weak AXp."""
        q = self._query(x, path_restricted)
        point = q.oracle.counterexample(self._mask(fixed))
        if point is None:
            return None
        return point_values(self.model, q.values, q.cells, point)

    def path_is_redundant(self, x) -> bool:
        """Whether ``x``'s path is explanation-redundant: some feature can be dropped from the
        path's literals and the rest still entail the prediction (Izza et al., Section 2).

        Raises :class:`~xdt.errors.EngineNotAvailableError` for a DNF (no paths)."""
        if not offers(self.model, PATHS):
            raise tree_only("path_is_redundant (explanation redundancy of a path)",
                            "to test whether some features of a term can be dropped, use "
                            "is_axp(x, features) on the term's features", self.model)
        return deletion.path_is_redundant(self._query(x, True).oracle)

    def relevant_features(self, x, *, path_restricted: bool = False) -> tuple[str, ...]:
        """Features in some AXp — exactly those in some CXp (duality), so no AXp is listed.

        For trees: polynomial (the union of the minimal disagreement sets)."""
        union = deletion.relevant(self._query(x, path_restricted).oracle)
        return tuple(self.model.features.names[f] for f in bits(union))

    def necessary_features(self, x, *, path_restricted: bool = False) -> tuple[str, ...]:
        """Features in every AXp — exactly those that are a CXp on their own."""
        singles = deletion.necessary(self._query(x, path_restricted).oracle)
        return tuple(self.model.features.names[bits(m)[0]] for m in singles)

    # ------------------------------------------------------------------ probabilistic
    def precision(self, x, features: Iterable[str], *, distribution) -> Fraction:
        """The precision of ``features`` (names, or an Explanation) for ``x``: the
        probability that a point agreeing with ``x`` on them (in the model's cells) gets
        ``x``'s prediction, exactly (:mod:`xdt.explain.queries.probability`).

        Parameters
        ----------
        distribution : ProductDistribution, EmpiricalDistribution or pandas.DataFrame
            A DataFrame stands for ``ProductDistribution.from_data(df, model)``: the product
            of its columns' distributions over the model's cells.

        Raises
        ------
        EngineNotAvailableError
            A product distribution for a model that is not a decision tree (use an
            EmpiricalDistribution).
        EmptyConditionError
            An empirical distribution none of whose rows agrees with ``x`` on ``features``.
        UnknownFeatureError
            A name the model lacks.
        """
        from xdt.explain.queries import probability

        q = self._query(x, False)
        dist = probability.as_distribution(distribution, self.model)
        return probability.precision_function(self.model, dist, q.cells, q.prediction)(
            self._mask(features))

    def delta_axp(self, x, delta: float | Fraction = 0.95, *, distribution,
                  order: str | Sequence[str] | None = None,
                  start: str | Iterable[str] | None = None,
                  verify: bool = False, exclude: Iterable[str] | None = None) -> Explanation:
        """A locally minimal delta-AXp (probabilistic AXp): a set of features of precision at
        least ``delta`` from which no single feature can be dropped keeping precision at
        least ``delta`` (Izza, Huang, Ignatiev, Narodytska, Cooper & Marques-Silva, "On
        Computing Probabilistic Abductive Explanations", IJAR 2023, Section 3; for decision
        trees under a product distribution it is polynomial, Section 4). A minimum or a
        subset-minimal one is NP-hard even for trees (Arenas, Barcelo, Romero & Subercaseaux,
        "On Computing Probabilistic Explanations for Decision Trees", NeurIPS 2022).

        The precision of a set ``S`` is ``Pr(model(z) = prediction(x) | z agrees with x on
        S)``, exact (a Fraction), under a product distribution (decision trees: a sum over
        the tree's paths) or the empirical distribution of a dataset (any model: among the
        rows agreeing with ``x`` on ``S``, the share predicted ``x``'s class); see
        :mod:`xdt.explain.queries.probability`.

        Parameters
        ----------
        delta : number in (0, 1]
            The least precision kept (a float is read as the decimal it prints as: 0.95 is
            19/20). ``delta=1`` under a distribution that gives every cell positive mass
            (e.g. ``ProductDistribution.uniform`` or ``from_data(..., smoothing=1)``) keeps
            the AXp it starts from: it is returned, equal to :meth:`axp`'s.
        distribution : ProductDistribution, EmpiricalDistribution or pandas.DataFrame
            A DataFrame stands for ``ProductDistribution.from_data(df, model)``.
        order : as in :meth:`axp`
            The order in which features are tried for removal (and the order of the AXp
            started from); default: the model's own.
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
            (:func:`~xdt.explain.queries.probability.check_precision_certificate`: every precision
            recomputed with ``model.predict``, by enumeration of the free features' cells
            where they span at most 65,536 points, else over the tree's leaf boxes; for an
            empirical distribution on its rows); raises :class:`~xdt.errors.CertificateError`
            if it fails.

        Returns
        -------
        Explanation (kind "delta-AXp")
            Its ``precision`` (Fraction) and ``delta``; its ``certificate``
            (:class:`~xdt.explain.queries.probability.PrecisionCertificate`) holds the precision
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

        Examples
        --------
        >>> import xdt
        >>> from xdt.explain.queries.probability import ProductDistribution
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
        from xdt.explain.queries import probability
        from xdt.explain.queries.delta_axp import find_delta_axp

        d = probability.check_delta(delta)
        dist = probability.as_distribution(distribution, self.model)
        q = self._query(x, False)
        found = find_delta_axp(self.model, q, d, dist, order=order, start=start,
                               exclude=exclude, engine=self.engine, tables=self._tables,
                               certify=self.certificates or verify)
        made = replace(self._explanation(q, found.mask, "AXp", None, False), kind="delta-AXp",
                       certificate=found.certificate, precision=found.precision, delta=d)
        if verify:
            probability.check_precision_certificate(self.model, made, dist)
            made = replace(made, verified=True)
        return made

    def explain_batch(self, X, what: Sequence[str] | str = ("axp", "cxps"), *,
                      chunk_rows: int | None = None, max_memory: int | None = None,
                      as_frame: bool = True, dedupe: bool = True):
        """One AXp and all CXps for every row of ``X`` at once: the batch path-walker
        (numpy over rows x paths bit masks; Izza, Ignatiev & Marques-Silva, "On Explaining
        Decision Trees", Sections 4-5).

        Gives, row by row, the AXp of :meth:`axp` (default order ``"path"``) and the CXps of
        :meth:`all_cxps` (path engine, ``path_restricted=False``), without certificates. See
        :func:`xdt.explain.engines.vectorised.explain_batch` for the parameters (``what``,
        ``chunk_rows``, ``max_memory``, ``as_frame``, ``dedupe``) and the returned DataFrame
        (``prediction``, ``axp``, ``axp_size``, ``cxps``, ``n_cxps``) or iterator of dicts.

        Raises
        ------
        EngineNotAvailableError
            For a DNF, or a tree with background constraints (explain it row by row with
            the SAT engine).
        InstanceError
            On bad rows (from ``model.encode``).
        ParameterError
            Bad ``what`` (e.g. ``"bogus"``), ``chunk_rows`` or ``max_memory``.
        """
        from xdt.explain.engines.vectorised import explain_batch

        return explain_batch(self.model, X, what, chunk_rows=chunk_rows,
                             max_memory=max_memory, as_frame=as_frame, dedupe=dedupe)

    def __repr__(self) -> str:
        return f"Explainer({self.model!r}, engine={self.engine!r})"

