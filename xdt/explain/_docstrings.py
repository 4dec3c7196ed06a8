"""The parameter descriptions that the :class:`~xdt.explain.Explainer`'s methods
share, written once, and :func:`doc`, which fills them into a docstring at import time.

A docstring names a shared paragraph by a placeholder alone on its line, e.g. ``{x}``: the
paragraph replaces it, indented as the placeholder is, so ``help()`` and the API reference
(``docs/api/explainer.md`` reads the filled docstrings) show the whole text. Braces that do
not name a paragraph (``{"x": 1}``, ``{red, blue}``) are left alone.
"""

from __future__ import annotations

import re
from typing import TypeVar

_T = TypeVar("_T")

SHARED: dict[str, str] = {
    "x": """\
x : dict, pandas.Series or sequence
    The instance: by feature name (every feature present, other entries ignored) or a
    sequence in feature order (see :class:`~xdt.explain.Explainer`).""",
    "path_restricted": """\
path_restricted : bool
    Draw the explanation from the literals of ``x``'s path (trees only), each feature held
    to the path's literal instead of ``x``'s cell (default False).""",
    "engine": """\
engine : {"auto", "path", "sat", "box"} or None
    ``"path"``: the polynomial path-walker for decision trees (Izza, Ignatiev &
    Marques-Silva, "On Explaining Decision Trees", Sections 4-5), in compiled kernels
    (:mod:`xdt.explain.engines._kernels`) over the tree's flat arrays, built once per tree; the
    first call in a process loads them (compiled once per machine: about 10 s, then
    cached). ``"sat"``: the PySAT
    oracle (:mod:`xdt.explain.engines._sat`) for trees, DNFs and decision lists: the model is
    encoded once and
    shared by all its explainers, with one incremental solver per class, each instance
    posed as assumptions; for trees, the reference the path-walker is cross-checked
    against.
    For a tree ensemble the SAT engine is :mod:`xdt.explain.engines._ensemble_sat` (decided
    exactly in the library's float arithmetic, by lazily added lemmas); ``"box"``: the exact
    branch and bound over boxes of cells of :mod:`xdt.explain.engines._ensemble_box` (tree
    ensembles only; compiled, one AXp in one call; a query past its limit is handed to
    the SAT engine), the other engine an ensemble can be cross-checked with.
    ``"auto"`` or ``None`` (default): ``"path"`` for a decision tree, ``"box"`` for a
    tree ensemble, ``"sat"`` for a DNF, nested k-DNF or decision list and for any model
    carrying
    background constraints (:mod:`xdt.ir._constraints`: only the SAT engine encodes
    them; ``"path"`` and ``"box"`` refuse such a model). :attr:`engine` holds the
    engine chosen.""",
    "instances": """\
Every method takes the instance ``x`` as a dict by feature name, a pandas Series (a row
of a DataFrame) or a sequence in feature order. A dict and a Series are read alike, by
name: every feature must be present, and entries that are not features (the target
column, an id) are ignored, so ``ex.axp(df.iloc[0])`` works on a table that holds the
target too (:mod:`xdt.ir._instances`). Bad input raises
:class:`~xdt.errors.MissingFeatureError` (its message lists the ignored names, with a
likely misspelling), :class:`~xdt.errors.UnknownCategoryError`,
:class:`~xdt.errors.MissingValueError` (NaN) or :class:`~xdt.errors.InstanceShapeError`
(a sequence of the wrong length).""",
    "order": """\
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
    (:func:`xdt.explain.queries.term_order`; Cooper, Bousdira & Carbonnel,
    "Interpretable DNFs", IJCAI 2025, Section 2: a decision is explained by a true
    term of the DNF or of its complement). So a k-DNF whose complement is a k-DNF
    (k-AXp-interpretable), e.g. a nested k-DNF, gets AXps of at most k features. For
    a decision list, the firing rule's features last, just before them a minimum set
    of features whose values keep every earlier rule false
    (:func:`xdt.explain.queries._term_order.decision_list_weak_axp`): the AXp is a subset of
    these. For a tree ``"term"`` is ``"path"``. ``"features"``: the model's feature
    order; ``"reverse"``: the opposite. Features a sequence does not name are tried
    after it, in feature order.""",
    "inflate": """\
inflate : bool
    Widen each feature of the AXp from the instance's cell (or path literal) to a
    maximal set of cells that still entails the prediction — an interval for an
    ordinal feature, a value set for a categorical one — giving the widest rule
    (``IF 0.5 < x <= 2.3 AND colour in {red, blue} THEN ...``); see
    :mod:`xdt.explain.queries._inflate` (Izza, Ignatiev, Stuckey & Marques-Silva, "Delivering
    Inflated Explanations", AAAI 2024). Features are widened in the AXp's order.""",
    "verify": """\
verify : bool
    Re-check the explanation's certificate against ``model.predict`` before
    returning (:func:`~xdt.explain.checks.check_certificate`); raises
    :class:`~xdt.errors.CertificateError` if it fails.""",
    "exclude": """\
exclude : iterable of str, optional
    Features the AXp may not use ("explain without race or sex"): they are held
    free, so the AXp holds whatever values they take
    (:mod:`xdt.explain.queries._preferences`). The result is an AXp of the model that avoids
    them.""",
    "immutable": """\
immutable : iterable of str, optional
    Features that may not change ("leave age alone"): the CXp is an actionable one, a
    subset-minimal set of the other features whose change can change the prediction, and
    its counterexample keeps the immutable features at the instance's values
    (:mod:`xdt.explain.queries._preferences`).""",
    "max_count": """\
max_count : int, optional
    Stop after this many explanations (a positive integer). Default: no limit — the call
    lists every one, however many there are (``xdt explain`` caps its listings at
    1,000 by default instead).""",
    "time_limit": """\
time_limit : float or Deadline, optional
    Stop after this many seconds (positive), or at a
    :class:`~xdt.explain.queries.Deadline` shared with other calls (e.g. all the
    enumerations of one instance). It bounds the whole call: the deadline is polled
    between oracle calls inside the search and inside the engines' own calls
    (:mod:`xdt.explain.engines._deadline`: the box engine's compiled search, the SAT
    engine's conflict-budgeted solver calls and the rounds of its lazy loop on
    ensembles); explanations (with their certificates) are built as they are found;
    and with ``verify=True`` the certificates are re-checked in batches while the
    search goes on (:data:`VERIFY_BATCH`), which stops when the time left is just
    enough to check the last ones. An explanation whose check the deadline cut off
    is returned with ``verified=False``. The list found so far is returned with
    ``complete=False`` and ``stopped_by="time_limit"``, within about 0.5 s of the
    deadline (``benchmarks/limits.py`` measures it; a hitting-set step of a very
    large enumeration may run over).""",
    "search_time_limit": """\
time_limit : float or Deadline, optional
    Seconds (or a shared :class:`~xdt.explain.queries.Deadline`) the search may
    take; polled between its MaxSAT and oracle calls and inside the engines' calls
    (as for the enumerations' ``time_limit``). When it passes first the call raises
    :class:`~xdt.errors.ComputationLimitError` (``limit="time_limit"``).""",
    "one_time_limit": """\
time_limit : float or Deadline, optional
    Seconds (or a shared :class:`~xdt.explain.queries.Deadline`) the call may take,
    polled between oracle calls and inside the engines' own calls
    (:mod:`xdt.explain.engines._deadline`: the box engine's compiled search, the SAT
    engine's conflict-budgeted solver calls and the rounds of its lazy loop on
    ensembles), so the call returns or raises within about 0.5 s of it
    (``benchmarks/limits.py``). When it passes first the call raises
    :class:`~xdt.errors.ComputationLimitError` (``limit="time_limit"``), as
    :meth:`smallest_axp` does: a deletion cut short leaves a set that is not known
    to be minimal, so nothing is returned. Default: no limit.""",
    "answer_time_limit": """\
time_limit : float or Deadline, optional
    Seconds (or a shared :class:`~xdt.explain.queries.Deadline`) the call may take,
    reading the instance and every oracle call included: polled between oracle calls
    and inside the engines' own calls, as for :meth:`axp`, so the call returns or
    raises within about 0.5 s of it (``benchmarks/limits.py``). When it passes first
    the call raises :class:`~xdt.errors.ComputationLimitError`
    (``limit="time_limit"``): an answer cut short is no answer. Default: no limit.""",
    "set_raises": """\
UnknownFeatureError
    For a name the model lacks.
ComputationLimitError
    When ``time_limit`` passes first.
ParameterError
    For a bad ``time_limit``.""",
    "progress": """\
progress : bool
    Show a progress bar (tqdm, on stderr) of the explanations found.""",
    "verify_all": """\
verify : bool
    Re-check every explanation's certificate against ``model.predict`` (see
    :meth:`axp`); each one checked has ``verified=True``.""",
    "on_found": """\
on_found : callable, optional
    Called as ``on_found(count, explanation)`` each time the search finds an
    explanation (``count`` = 1, 2, ... so far), before its certificate is
    re-checked; e.g. to show a counter while a long enumeration runs.""",
    "weights": """\
weights : mapping of str to positive number, optional
    Feature name -> cost (e.g. the price of checking or of changing it); features not named
    cost 1 (:func:`~xdt.explain.queries._preferences.feature_weights`); an explanation's
    ``cost`` is the sum of its features' weights.""",
    "enumeration_order": """\
order : {"size", "weight"}, optional
    ``"size"``: smallest first; ``"weight"``: cheapest first under ``weights``
    (enumerated in that order by RC2 MaxSAT). Default: ``"weight"`` when ``weights``
    is given, else ``"size"``.""",
    "enumeration_returns": """\
ExplanationList
    A list of Explanations with ``complete`` (False when a limit stopped the
    enumeration before it could prove there are no more) and ``stopped_by``.""",
    "enumeration_raises": """\
EnumerationInterrupted
    On ``KeyboardInterrupt`` (Ctrl-C) during the call; its ``found`` holds the
    explanations found so far.
CertificateError
    With ``verify=True``, when a certificate fails its re-check.""",
    "distribution": """\
distribution : ProductDistribution, EmpiricalDistribution or pandas.DataFrame
    A DataFrame stands for ``ProductDistribution.from_data(df, model)``: the product
    of its columns' distributions over the model's cells.""",
}
"""Named parameter paragraphs (numpy style: an entry's first line at column 0)."""

_PLACEHOLDER = re.compile(r"^([ \t]*)\{(\w+)\}[ \t]*$", re.M)


def fill(text: str, shared: dict[str, str] = SHARED) -> str:
    """``text`` with each line that is only a placeholder ``{name}`` of ``shared`` replaced by
    that paragraph, each of its lines indented as the placeholder."""
    def paragraph(match: re.Match) -> str:
        indent, name = match.groups()
        if name not in shared:
            return match.group(0)
        return "\n".join(indent + line if line else line
                         for line in shared[name].splitlines())
    return _PLACEHOLDER.sub(paragraph, text)


def doc(obj: _T) -> _T:
    """Decorator: fill the shared paragraphs into ``obj``'s docstring (a function or a
    class; for a class, into its methods' docstrings too); returns ``obj``."""
    if obj.__doc__:
        obj.__doc__ = fill(obj.__doc__)
    if isinstance(obj, type):
        for member in vars(obj).values():
            if callable(member) and getattr(member, "__doc__", None):
                member.__doc__ = fill(member.__doc__)
    return obj


__all__ = ["SHARED", "doc", "fill"]

