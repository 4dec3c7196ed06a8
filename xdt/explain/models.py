"""What the explainers need from a model, for every kind of model the IR has.

The engines and the checks above them see a model only through a few questions, answered
here once for decision trees (:class:`~xdt.ir.tree.DecisionTree`) and DNFs
(:class:`~xdt.ir.dnf.DNF`, :class:`~xdt.ir.dnf.NestedKDNF`):

* :func:`predict_cells` — the class index of points given by their cells;
* :func:`implying_terms` — per class, the terms that imply it, *when the model lists them*:
  a tree's paths of that class (the paths partition the cell space, so the class holds
  exactly when one of them does); a DNF's terms for ``classes[1]`` (it predicts
  ``classes[1]`` exactly when one holds). A DNF does not list the terms of ``classes[0]``:
  they are the minimal transversals of its terms (Cooper, Bousdira & Carbonnel,
  "Interpretable DNFs", IJCAI 2025, Section 4), possibly exponentially many; the SAT
  encoder then says "some term of the other class holds" instead;
* :func:`term_order` — the deletion order that keeps an AXp inside a shortest true term of
  the predicted class, or for a binary model whose predicted class has no listed terms,
  inside a minimum set of features that falsifies every term of the other class; for a
  decision list (:class:`~xdt.ir.decision_list.DecisionList`), inside the firing rule's
  features and a minimum set of features that keeps every earlier rule false.

A decision list lists no implying terms (:func:`implying_terms` gives ``None``): a rule
implies its class only together with the negations of the rules before it, which are not
terms. The SAT encoder says "the first rule that fires is of another class" instead.

A term is given as ``(index, masks)``: its position in the model (path index or term index)
and, per constrained feature, the intersection of its literals' cell sets.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from xdt.errors import ConstraintViolationError, EngineNotAvailableError
from xdt.explain.duality import minimum_hitting_set
from xdt.explain.oracle import bits
from xdt.ir.decision_list import DecisionList
from xdt.ir.dnf import DNF
from xdt.ir.ensemble import TreeEnsemble
from xdt.ir.tree import DecisionTree

Model = DecisionTree | DNF | DecisionList | TreeEnsemble
"""The models the explainers know."""

MODEL_TYPES = (DecisionTree, DNF, DecisionList, TreeEnsemble)

TermMasks = tuple[int, dict[int, int]]
"""A term as ``(index in the model, {feature: allowed cells})``."""


def is_ensemble(model: object) -> bool:
    """Whether ``model`` is a tree ensemble (explained by :mod:`xdt.explain.ensemble_sat`)."""
    return isinstance(model, TreeEnsemble)


def is_decision_list(model: object) -> bool:
    """Whether ``model`` is a decision list (ordered rules, first match wins)."""
    return isinstance(model, DecisionList)


def is_tree(model: object) -> bool:
    """Whether ``model`` is a decision tree (the models with paths)."""
    return isinstance(model, DecisionTree)


def check_model(model: object, what: str) -> None:
    """Raise :class:`EngineNotAvailableError` unless ``model`` is a model the explainers know.

    ``what`` names the caller in the message (``"the sat engine"``, ``"crosscheck"``).
    """
    if isinstance(model, MODEL_TYPES):
        return
    hint = (" (load a model file or dict with xdt.load_model first)"
            if isinstance(model, dict | str) else "")
    raise EngineNotAvailableError(
        f"{what} explains decision trees, DNFs, nested k-DNFs, decision lists and tree "
        f"ensembles, not "
        f"{type(model).__name__}{hint}")


def tree_only(what: str, instead: str, model: object = None) -> EngineNotAvailableError:
    """The error for a path-based notion asked of a model without paths (a DNF, or a tree
    ensemble: it has many paths, one per tree, and no single one decides); the message says
    what to use instead."""
    kind = kind_name(model) if isinstance(model, DNF | DecisionList | TreeEnsemble) else "DNF"
    which = ("no single path decides its prediction" if isinstance(model, TreeEnsemble)
             else "has no paths")
    if isinstance(model, TreeEnsemble):
        return EngineNotAvailableError(
            f"{what} is defined for decision trees (it reads the instance's root-to-leaf "
            f"path), and this model is a {kind}: {which}; {instead}")
    return EngineNotAvailableError(
        f"{what} is defined for decision trees (it reads the instance's root-to-leaf path), "
        f"and this model is a {kind}, which {which}; {instead}")


def is_constrained(model: object) -> bool:
    """Whether ``model`` carries background constraints (:mod:`xdt.ir.constraints`)."""
    return bool(getattr(model, "constraints", None))


def constrained_refusal(what: str, model: Model) -> EngineNotAvailableError:
    """The error of an engine or check that does not take background constraints into
    account, asked about a model that carries some: it says to use the SAT engine, which
    encodes them (:mod:`xdt.explain.sat`). Such an engine must refuse rather than ignore
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
    ``"nested k-DNF"``."""
    if is_tree(model):
        return "decision tree"
    if isinstance(model, DecisionList):
        return "decision list"
    if isinstance(model, TreeEnsemble):
        return "tree ensemble"
    return "nested k-DNF" if model.kind == "nested-kdnf" else "DNF"


def describe(model: Model) -> str:
    """One readable line: the kind of model and its sizes."""
    target = f", target {model.target!r}" if model.target else ""
    if isinstance(model, DecisionTree):
        return (f"decision tree, {len(model.features)} features, {model.n_nodes} nodes, "
                f"depth {model.depth}, {len(model.classes)} classes{target}")
    if isinstance(model, TreeEnsemble):
        return (f"tree ensemble ({model.combine}), {model.n_trees} trees, "
                f"{len(model.features)} features, {model.n_nodes} nodes, depth {model.depth}, "
                f"{len(model.classes)} classes{target}")
    if isinstance(model, DecisionList):
        return (f"decision list, {len(model.features)} features, {model.n_rules} rules of at "
                f"most {model.k} conditions, classes {list(model.classes)}, default "
                f"{model.default!r}{target}")
    return (f"{kind_name(model)}, {len(model.features)} features, {len(model.terms)} terms, "
            f"k = {model.k}, classes {list(model.classes)} (the second when a term "
            f"holds){target}")


def predict_cells(model: Model, cells: Sequence[Sequence[int]] | np.ndarray) -> np.ndarray:
    """Class index per row of ``cells`` (shape (n, F)); shape (n,), int64."""
    arr = np.asarray(cells, dtype=np.int64).reshape(-1, len(model.features))
    return np.asarray(model.predict_cells(arr), dtype=np.int64)


def predict_one(model: Model, cells: Sequence[int]) -> int:
    """Class index of one point given by its cells (for a decision list, from its term
    table's answer at that point, which the deletion order then reuses)."""
    if isinstance(model, DecisionList):
        return model.predict_point(cells)
    return int(predict_cells(model, [cells])[0])


def implying_terms(model: Model, c: int) -> list[TermMasks] | None:
    """The consistent terms that imply class index ``c``, when the model lists them.

    Returns
    -------
    list of (int, dict) or None
        For a tree: its consistent paths of class ``c`` (``(path.index, path.masks)``). For
        a DNF: its terms when ``c == 1`` (``(term index, masks)``), ``None`` when ``c == 0``
        (the terms of the complement are not listed). For both, the model predicts ``c``
        at a point exactly when one of the listed terms holds there. For a tree ensemble:
        ``None`` (no term of the ensemble is listed; its trees' paths are in
        :meth:`~xdt.ir.ensemble.TreeEnsemble.tree_terms`). For a decision list: ``None`` (a
        rule implies its class only with the negations of the rules before it).
    """
    if isinstance(model, TreeEnsemble | DecisionList):
        return None
    if isinstance(model, DecisionTree):
        return [(p.index, p.masks) for p in model.paths
                if p.class_index == c and p.consistent]
    if isinstance(model, DNF):
        if c != 1:
            return None
        out = []
        for p, term in enumerate(model.terms):
            masks = term.masks()
            if all(masks.values()):
                out.append((p, masks))
        return out
    raise EngineNotAvailableError(f"no terms are known for {type(model).__name__}")


def holds(masks: dict[int, int], cells: Sequence[int]) -> bool:
    """Whether the point with the given cells satisfies the term ``masks``."""
    return all((m >> cells[f]) & 1 for f, m in masks.items())


def term_order(model: Model, cells: Sequence[int], prediction: int,
               allowed: Sequence[int] | None = None) -> list[int]:
    """The deletion order putting last a small set of features that is a weak AXp.

    Parameters
    ----------
    model : DecisionTree or DNF
    cells : sequence of int
        The instance's cells.
    prediction : int
        Its class index.
    allowed : sequence of int, optional
        Per feature, the cells a fixed feature is held to (default: the instance's cell).

    Returns
    -------
    list of int
        Every feature position once. When the model lists the terms of ``prediction``
        (a tree's paths, a DNF's terms for a positive decision): the features of a shortest
        term that holds at the instance come last, in the term's order — for a tree, its
        path; by deletion (:func:`~xdt.explain.duality.deletion_axp`) the AXp is then a
        subset of them. Otherwise (a DNF's negative decision): a minimum set ``H`` of
        features that falsifies every term of the other class comes last — ``H`` is a
        minimum hitting set of the sets ``F_p`` of features whose cells at the instance
        lie outside term ``p`` (:func:`~xdt.explain.duality.minimum_hitting_set`), and
        the AXp is ``H`` itself. For a decision list: :func:`decision_list_weak_axp`.

    Notes
    -----
    Cooper, Bousdira & Carbonnel, "Interpretable DNFs", IJCAI 2025, Section 2: a positive
    decision of a DNF is explained by a true term, a negative one by a true term of the
    complement. For a negative decision the weak AXps are exactly the hitting sets of the
    ``F_p`` (fixing ``S`` falsifies term ``p`` iff ``S`` meets ``F_p``; a term not falsified
    can be made true by changing only features outside ``S``), so ``H`` is a smallest AXp.
    Hence for a k-DNF whose complement is also a k-DNF (k-AXp-interpretable, their
    Proposition 1), e.g. a nested k-DNF (their Proposition 2), the AXp found with this
    order has at most ``k`` features.
    """
    return ending_with(len(model.features), term_weak_axp(model, cells, prediction, allowed))


def ending_with(n: int, last: Sequence[int]) -> list[int]:
    """Every feature position of ``range(n)`` once: those not in ``last`` in increasing
    order, then ``last`` in its order (a deletion order that keeps ``last`` longest)."""
    kept = set(last)
    return [f for f in range(n) if f not in kept] + list(last)


def term_weak_axp(model: Model, cells: Sequence[int], prediction: int,
                  allowed: Sequence[int] | None = None) -> list[int]:
    """The features :func:`term_order` puts last, in its order: a weak AXp read off the
    model's terms (a shortest true term of the predicted class, a minimum set of features
    falsifying every term of the other class, or for a decision list
    :func:`decision_list_weak_axp`), or ``[]`` when the model lists no such terms (a tree
    ensemble). Parameters as :func:`term_order`; holding the features returned to
    ``allowed`` entails the prediction (so deletion may start from them)."""
    plain = allowed is None or all(a == 1 << c for a, c in zip(allowed, cells, strict=True))
    if isinstance(model, DNF) and plain:
        return _dnf_last(model, cells, prediction)
    if isinstance(model, DecisionList):  # the firing rule's features kept longest
        return decision_list_weak_axp(model, cells) if plain else []
    allowed = [1 << c for c in cells] if allowed is None else list(allowed)
    last: list[int] = []
    terms = implying_terms(model, prediction)
    if terms is not None:
        true = [masks for _, masks in terms
                if all(m & allowed[f] for f, m in masks.items()) and holds(masks, cells)]
        if true:
            best = min(true, key=len)
            last = list(best)  # the term's features, in the order of its literals
    elif len(model.classes) == 2:
        others = implying_terms(model, 1 - prediction) or []
        escapes = []
        for _, masks in others:
            escape = 0
            for f, m in masks.items():
                if m & allowed[f] == 0:
                    escape |= 1 << f
            escapes.append(escape)
        if escapes and all(escapes):  # else the instance is not of class `prediction`
            last = bits(minimum_hitting_set(escapes))
    return last


def _dnf_last(model: DNF, cells: Sequence[int], prediction: int) -> list[int]:
    """The features :func:`term_order` puts last for a DNF, from its flat term table
    (:class:`~xdt.ir.term_table.TermTable`): the same as the general case, without a Python loop
    over the terms."""
    table = model.table
    ok, true_terms = table.at(cells)
    if prediction == 1:
        true = np.flatnonzero(true_terms)
        if not len(true):
            return []
        best = int(true[np.argmin(table.sizes[true])])  # the first of the shortest
        return list(model.terms[best].features)
    escapes = _escapes(table, ok, len(model.features))
    if not all(escapes):  # some term holds: the instance is not of class 0
        return []
    return bits(minimum_hitting_set(escapes)) if escapes else []


def _escapes(table, ok: np.ndarray, n_features: int) -> list[int]:
    """Per term of ``table`` (a :class:`~xdt.ir.term_table.TermTable`), the bit mask of the
    features on which a point falsifies it, from ``ok`` (whether each literal holds there,
    :meth:`~xdt.ir.term_table.TermTable.at`): one vectorised OR up to 64 features."""
    bad = ~ok
    if n_features <= 64:
        words = np.zeros(table.n_terms, dtype=np.uint64)
        np.bitwise_or.at(words, table.term[bad],
                         np.left_shift(np.uint64(1), table.feature[bad].astype(np.uint64)))
        return words.tolist()
    escapes = [0] * table.n_terms
    for p, f in zip(table.term[bad].tolist(), table.feature[bad].tolist(), strict=True):
        escapes[p] |= 1 << f
    return escapes


def decision_list_weak_axp(model: DecisionList, cells: Sequence[int]) -> list[int]:
    """A weak AXp of a decision list's prediction read off its rules: a minimum set of
    features that keeps every earlier rule false, then the features of the firing rule (in
    the rule's order), so that a deletion order ending with it keeps the rule's features
    longest (:func:`term_order`).

    Fixing the firing rule's features keeps it true; fixing, for every earlier rule, one
    feature on which the instance falsifies it keeps that rule false; so the first rule
    that fires stays the same and the prediction with it (for the default, every rule must
    stay false). The further features are a minimum hitting set
    (:func:`~xdt.explain.duality.minimum_hitting_set`) of the sets ``E_j`` of features on
    which the instance falsifies earlier rule ``j``, for the rules the firing rule's own
    features do not already falsify. This is the "why not an earlier rule" part that the
    firing rule alone leaves out (Ignatiev & Marques-Silva, "SAT-Based Rigorous
    Explanations for Decision Lists", SAT 2021, Section 3).

    Parameters
    ----------
    model : DecisionList
    cells : sequence of int
        The instance's cells, one per feature.

    Returns
    -------
    list of int
        Feature positions: the further ones (ascending), then the firing rule's features.
    """
    table = model.table
    ok, true_terms = table.at(cells)
    fired = np.flatnonzero(true_terms)
    first = int(fired[0]) if len(fired) else model.n_rules
    own = list(model.terms[first].features) if first < model.n_rules else []
    held = 0
    for f in own:
        held |= 1 << f
    escapes = _escapes(table, ok, len(model.features))[:first]
    rest = list({e for e in escapes if not e & held})
    extra = bits(minimum_hitting_set(rest)) if rest else []
    return [f for f in extra if not (held >> f) & 1] + own
