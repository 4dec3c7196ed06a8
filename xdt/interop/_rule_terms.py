"""The terms of imported rule learners: exact bounds for strict comparisons, and which
conjunctions can hold.

The IR writes a condition on an ordinal feature as ``above < x <= upto``; rule learners also
test ``x < t`` and ``x >= t``. On float64 values, ``x < t`` holds exactly when
``x <= nextafter(t, -inf)``, and ``x >= t`` exactly when ``nextafter(t, -inf) < x``
(:func:`below`). A conjunction whose conditions on one feature exclude each other never
holds; an importer drops such a rule rather than let the model refuse it
(:func:`satisfiable`): a rule that never fires changes no prediction.

An importer given rows ``X`` checks the model it built against the learner's own
``predict`` on them (:func:`check_same_predictions`): one predict each side, and a
:class:`~xdt.errors.DataError` naming the first row where they differ, for an ``X`` that
does not match the model (columns in another order, other columns) rather than a model
that silently predicts otherwise.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterable

import numpy as np

from xdt.errors import DataError, InstanceError
from xdt.ir._conditions import Condition

__all__ = ["below", "check_same_predictions", "satisfiable"]


def below(t: float) -> float:
    """The largest float64 below ``t``: ``x < t`` is ``x <= below(t)``, and ``x >= t`` is
    ``below(t) < x``, for every float64 ``x``.

    >>> below(0.5) < 0.5 and below(0.5) == 0.49999999999999994
    True
    """
    return float(np.nextafter(float(t), -math.inf))


def satisfiable(conditions: Iterable[Condition]) -> bool:
    """Whether some point satisfies every condition of ``conditions`` (a conjunction): per
    feature, the value sets intersect (categorical and binary features) and the intervals
    ``above < x <= upto`` overlap (ordinal ones).

    >>> satisfiable([Condition("x", above=1.0), Condition("x", upto=2.0)])
    True
    >>> satisfiable([Condition("c", ("a", "b")), Condition("c", ("c",))])
    False
    """
    values: dict[str, set] = {}
    lo: dict[str, float] = {}
    hi: dict[str, float] = {}
    for c in conditions:
        if c.values is not None:
            allowed = values.get(c.feature, set(c.values)) & set(c.values)
            if not allowed:
                return False
            values[c.feature] = allowed
            continue
        if c.above is not None:
            lo[c.feature] = max(lo.get(c.feature, -math.inf), float(c.above))
        if c.upto is not None:
            hi[c.feature] = min(hi.get(c.feature, math.inf), float(c.upto))
        if not lo.get(c.feature, -math.inf) < hi.get(c.feature, math.inf):
            return False
    return True


def check_same_predictions(model, rows, learner_predict: Callable[[], Iterable],
                           learner: str, index: Iterable | None, advice: str) -> None:
    """Check that ``model`` (an imported xdt model) predicts on ``rows`` what the learner's
    own ``predict`` does on the same rows in its input format: ``learner_predict()`` returns
    those labels, as the IR keeps them. One vectorised predict each side.

    ``learner`` names the learner for the messages, ``index`` gives the rows' labels (the
    DataFrame's index, or None for positions) and ``advice`` says what to pass instead.

    Raises
    ------
    DataError
        The predictions differ (the message names the first row that differs, and how many
        do), or either side refuses the rows (the model's
        :class:`~xdt.errors.InstanceError`, or the learner's error): the rows do not match
        the model.
    """
    try:
        ours = np.asarray(model.predict(rows), dtype=object).reshape(-1)
    except InstanceError as err:
        raise DataError(f"X does not fit the imported model ({err}); {advice}") from err
    try:
        with warnings.catch_warnings():  # the learner's notices about its own predict
            warnings.simplefilter("ignore")
            theirs = np.asarray(list(learner_predict()), dtype=object).reshape(-1)
    except (InstanceError, ValueError, TypeError, KeyError, IndexError) as err:
        raise DataError(f"the {learner}'s own predict refuses X ({type(err).__name__}: "
                        f"{err}); {advice}") from err
    if ours.shape != theirs.shape:
        raise DataError(f"the {learner}'s own predict gives {theirs.size} labels for the "
                        f"{ours.size} rows of X; {advice}")
    differ = np.flatnonzero(ours != theirs)
    if differ.size:
        i = int(differ[0])
        labels = list(index) if index is not None else None
        where = f"row {i} of X" + (f" (index {labels[i]!r})" if labels is not None
                                   and labels[i] != i else "")
        raise DataError(
            f"X does not match the model: on {where} the imported model predicts "
            f"{ours[i]!r} but the {learner}'s own predict gives {theirs[i]!r} "
            f"({differ.size} of {ours.size} rows differ); {advice}")
