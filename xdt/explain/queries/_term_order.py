"""The deletion order read off a model's terms: the features of a short weak AXp come last, so
that deletion (:func:`~xdt.explain.queries.deletion_axp`) keeps them and the AXp it
finds is a subset of them.

For a tree, the instance's path; for a DNF, a shortest true term of a positive decision or a
minimum set of features falsifying every term of a negative one (Cooper, Bousdira &
Carbonnel, "Interpretable DNFs", IJCAI 2025, Section 2); for a decision list, the firing rule
and a minimum set of features keeping every earlier rule false (Ignatiev & Marques-Silva,
"SAT-Based Rigorous Explanations for Decision Lists", SAT 2021, Section 3).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from xdt.explain._models import Model, holds, implying_terms
from xdt.explain.engines._oracle import bits
from xdt.explain.queries._duality import minimum_hitting_set
from xdt.ir._decision_list import DecisionList
from xdt.ir._dnf import DNF
from xdt.ir._protocol import RULES, TERMS, offers


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
        path; by deletion (:func:`~xdt.explain.queries.deletion_axp`) the AXp is then a
        subset of them. Otherwise (a DNF's negative decision): a minimum set ``H`` of
        features that falsifies every term of the other class comes last — ``H`` is a
        minimum hitting set of the sets ``F_p`` of features whose cells at the instance
        lie outside term ``p`` (:func:`~xdt.explain.queries.minimum_hitting_set`), and
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
    if offers(model, TERMS) and plain:
        return _dnf_last(model, cells, prediction)
    if offers(model, RULES):  # the firing rule's features kept longest
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
    (:class:`~xdt.ir._term_table.TermTable`): the same as the general case, without a Python loop
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
    """Per term of ``table`` (a :class:`~xdt.ir._term_table.TermTable`), the bit mask of the
    features on which a point falsifies it, from ``ok`` (whether each literal holds there,
    :meth:`~xdt.ir._term_table.TermTable.at`): one vectorised OR up to 64 features."""
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
    (:func:`~xdt.explain.queries.minimum_hitting_set`) of the sets ``E_j`` of features on
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
