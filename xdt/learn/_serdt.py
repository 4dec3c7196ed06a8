"""SER-DT: decision trees with short explainable rules.

Souza, Cicalese, Laber & Molinaro, "Decision Trees with Short Explainable Rules", NeurIPS
2022: Algorithm 1 (Section 5) with the practical rules of Section 6.
"""

from __future__ import annotations

import numbers

import numpy as np

from xdt.errors import ParameterError
from xdt.learn._base import TreeClassifierBase
from xdt.learn._criteria import wpm
from xdt.learn._splitter import TIE, Node, Plan, Split, TrainingRows, midpoint

#: Relative slack of the balanced-test comparison ``max(wpm_L, wpm_R) <= wpm(S) / 2``
#: (``wpm`` multiplies an exact pair count by a float sum of weights).
BALANCE_SLACK = 1e-12


def three_way_split(splitter: TrainingRows, node: Node) -> Plan | None:
    """Algorithm 1, lines 6-8: when no balanced test exists.

    Pick the attribute ``a*`` minimising ``max_i wpm(S(a, = i))`` (the heaviest group of
    equal values), then the smallest value ``t*`` with ``wpm(S(a*, <= t*)) > wpm(S) / 2``,
    and split ``S`` into ``S(a* < t*)``, ``S(a* = t*)`` and ``S(a* > t*)`` by two binary
    tests: ``a* < t*`` at the node, then ``a* <= t*`` on its right child (the returned
    plan's ``then_right``). An empty part drops its test: when ``t*`` is the smallest value
    the node's test is ``a* <= t*`` alone; when it is the largest, ``a* < t*`` alone.

    A categorical feature takes part as its one-hot indicators (the paper one-hot encodes
    categorical attributes): the indicator of ``v`` has the groups ``x = v`` and ``x != v``,
    and its three-way split is the single test ``x = v``.

    ``splitter`` gives the node's class counts and ``wpm`` weights per value of each
    feature (a :class:`~xdt.learn._splitter.TrainingRows`); ``node`` holds the node's rows.

    Returns ``None`` when no feature has two values in the node, or the test would leave
    fewer than ``min_samples_leaf`` rows on a side.
    """
    total = float(wpm(node.class_count, node.wpm_total))
    found: list[tuple[float, int, int, object]] = []   # (score, feature, value order, info)
    data = splitter.data
    for feature in data.ordinal_features.tolist():
        values, counts, weights = splitter.ordinal_runs(node, feature)
        if len(values) < 2:
            continue
        heaviest = float(wpm(counts, weights.sum(axis=1)).max())
        found.append((heaviest, feature, 0, (values, counts, weights)))
    for feature in data.categorical_features.tolist():
        counts, weights = splitter.category_sums(node, feature)
        n_value = counts.sum(axis=1)
        eq = wpm(counts, weights.sum(axis=1))
        ne = wpm(node.class_count - counts, node.wpm_total - weights.sum(axis=1))
        score = np.maximum(eq, ne)
        usable = (n_value > 0) & (n_value < node.size)
        if len(counts) == 2:
            usable[0] = False  # one indicator of a two-value feature is enough
        for v in np.flatnonzero(usable).tolist():
            found.append((float(score[v]), feature, v, None))
    if not found:
        return None
    low = min(f[0] for f in found)
    _, feature, value, info = min((f for f in found if f[0] <= low * (1 + TIE) + TIE),
                                  key=lambda f: (f[1], f[2]))
    msl = max(1, splitter.min_samples_leaf)
    if info is None:
        split = Split(feature, category=value)
        n_left = int(splitter.category_sums(node, feature)[0][value].sum())
        ok = n_left >= msl and node.size - n_left >= msl
        return Plan(split) if ok else None
    values, counts, weights = info
    prefix = wpm(np.cumsum(counts, axis=0), np.cumsum(weights.sum(axis=1)))
    r = int(np.argmax(prefix > total / 2.0))
    rows_before = int(counts[:r].sum())
    first: Split | None = None
    then_right: Split | None = None
    if r > 0:
        first = Split(feature, threshold=midpoint(values[r - 1], values[r]))
    if r < len(values) - 1:
        second = Split(feature, threshold=midpoint(values[r], values[r + 1]))
        if first is None:
            first = second
            rows_before = int(counts[:r + 1].sum())
        else:
            then_right = second
    assert first is not None
    if rows_before < msl or node.size - rows_before < msl:
        return None
    return Plan(first, then_right)


def preprocess_weights(weight: np.ndarray) -> np.ndarray:
    """SER-DT's weight preprocessing (Section 5, after Kosaraju, Przytycka & Borgstrom,
    WADS 1999): every weight below ``w(O) / n^3`` is raised to ``w(O) / n^3``.

    The extracted text of the paper reads the replacement value as ``w(O) / (w_min n^3)``,
    which is not invariant to rescaling all weights; we use ``w(O) / n^3``, the threshold
    itself (the two coincide when ``w_min = 1``). With uniform weights — the paper's
    experiments use ``1 / |train|`` — nothing changes.

    Parameters
    ----------
    weight : numpy.ndarray of shape (n,), float64, all positive

    Returns
    -------
    numpy.ndarray of shape (n,), float64
    """
    n = len(weight)
    floor = float(weight.sum()) / float(n) ** 3
    return np.maximum(weight, floor)


class SERDTClassifier(TreeClassifierBase):
    """SER-DT decision tree classifier (Souza, Cicalese, Laber & Molinaro, "Decision Trees
    with Short Explainable Rules", NeurIPS 2022), emitting xdt's IR.

    Algorithm 1 (Section 5) grows the tree top down. At a node holding the rows ``S``:

    1. a *balanced* test — one whose children both have ``wpm <= wpm(S) / 2``, with
       ``wpm(S) = P(S) * w(S)``, ``P`` the number of pairs of rows of different classes and
       ``w`` their total weight — is used if one exists (line 2). Among the balanced tests
       that lower the Gini impurity (Section 6's *permissible* tests), the one of least
       adjusted Gini ``I * Gini(tau, nu)`` is taken, with ``I = factor_expl`` when the test's
       feature is already on the path from the root and ``I = 1`` otherwise: features
       already used are favoured, which shortens explanations;
    2. otherwise the three-way split of lines 6-8 (:func:`three_way_split`): two binary tests
       on one feature, the second forced on the right child.

    Section 6's practical rules: a node is not expanded at ``max_depth`` or when *no* test
    (balanced or not) lowers its Gini impurity; sibling leaves of the same class are merged
    after growth; and the weights are preprocessed (:func:`preprocess_weights`) — for the
    ``wpm`` of the balanced condition only, which is what the preprocessing is for (the
    approximation guarantee of Section 5): impurities, leaf classes, ``predict_proba`` and
    ``leaf_weights_`` use the weights as given.

    Choices where the paper is silent or ambiguous (each tested):

    * A node with Gini-lowering tests but none of them balanced takes the three-way split,
      even when some balanced test exists that does not lower the impurity (Section 6 only
      *adds* the Gini condition to line 2's balanced tests).
    * The forced second test of a three-way split is applied on the right child only when
      that child is impure, above ``max_depth`` and can be split with ``min_samples_leaf``
      rows per side; otherwise the child is grown (or left) as any other node.
    * Categorical features are native: a feature counts once on a path, whichever of its
      values are tested (the paper one-hot encodes them, so each indicator counts apart), and
      the three-way split treats each indicator as a two-valued attribute.
    * ``P(S)`` counts rows, as in the paper; ``w(S)`` sums the sample weights. Rows of
      weight 0 are dropped before fitting (scikit-learn's convention).
    * ``criterion="entropy"`` replaces the Gini impurity by the entropy in the selection and
      stopping rules.

    Parameters
    ----------
    factor_expl : float in [0, 1], default 0.97
        The paper's Factor Expl; 1 ignores the path (plain Gini among balanced tests).
    max_depth : int or None, default 6
    min_samples_leaf : int, default 1
    criterion : {"gini", "entropy"}, default "gini"
    categorical_features : list of str or int, or bool mask, optional
        Numeric columns to treat as categorical (see :class:`~xdt.learn.CARTClassifier`).
    merge_leaves : bool, default True

    Attributes
    ----------
    n_fallback_splits_ : int
        Three-way splits taken (Algorithm 1, lines 6-8).
    Others as :class:`xdt.learn._base.TreeClassifierBase` (``tree_``, ``classes_``,
    ``leaf_weights_``, ...).

    Examples
    --------
    >>> import numpy as np
    >>> from xdt.learn import SERDTClassifier
    >>> X = np.array([[0.0, 5.0], [1.0, 4.0], [2.0, 3.0], [3.0, 2.0]]); y = [0, 0, 1, 1]
    >>> SERDTClassifier().fit(X, y).tree_.root
    ThresholdSplit(feature='x0', threshold=1.5, left=Leaf(label=0), right=Leaf(label=1))
    """

    def __init__(self, factor_expl: float = 0.97, max_depth: int | None = 6,
                 min_samples_leaf: int = 1, criterion: str = "gini",
                 categorical_features=None, merge_leaves: bool = True):
        self.factor_expl = factor_expl
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.criterion = criterion
        self.categorical_features = categorical_features
        self.merge_leaves = merge_leaves

    def _check_params(self) -> None:
        super()._check_params()
        f = self.factor_expl
        if isinstance(f, bool) or not isinstance(f, numbers.Real) or not 0.0 <= f <= 1.0:
            raise ParameterError(f"factor_expl must be a number in [0, 1], got {f!r}")

    def _wpm_weights(self, weight: np.ndarray) -> np.ndarray | None:
        return preprocess_weights(weight)

    def _kernel_options(self) -> dict:
        """SER-DT's rule in the kernel; the three-way splits it hands back are counted in
        ``n_fallback_splits_``."""
        self.n_fallback_splits_ = 0

        def fallback(rows: TrainingRows, node: Node) -> Plan | None:
            plan = three_way_split(rows, node)
            self.n_fallback_splits_ += plan is not None
            return plan

        return {"serdt": True, "factor_expl": float(self.factor_expl),
                "slack": BALANCE_SLACK, "fallback": fallback}


__all__ = ["SERDTClassifier", "three_way_split", "preprocess_weights"]
