"""Tree ensembles in the IR: random forests and boosted trees over one feature space.

A :class:`TreeEnsemble` is a list of :class:`~xdt.ir.DecisionTree` over the same
features and classes, and a rule combining the leaves the trees reach into a class. Every
rule is a vector of *scores* computed in floating point exactly as the library that made
the model computes it, then a decision on them:

* ``"vote"`` — majority vote of the trees' classes (the leaves' labels): score ``k`` counts
  the trees voting ``k``; the class is the first with the most votes (the hard voting of
  RFxpl and PyXAI's random forests).
* ``"proba"`` — averaged class probabilities (soft voting: scikit-learn's
  ``RandomForestClassifier`` and ``ExtraTreesClassifier``): every leaf holds a probability
  vector (``Leaf.value``, one entry per class); score ``k`` is the sum of the trees' entries
  ``k`` in tree order from 0.0, divided by ``divisor`` (the number of trees); the class is
  the first with the largest score (``numpy.argmax``).
* ``"margin"`` — additive scores (gradient boosting: scikit-learn's
  ``GradientBoostingClassifier`` and ``HistGradientBoostingClassifier``, XGBoost, LightGBM):
  every leaf holds the amount it adds to each score (``Leaf.value``: one number for a binary
  model, one per class otherwise); the scores start at ``base`` and each tree's values are
  added in tree order, in ``precision`` (``"float32"`` for XGBoost, ``"float64"`` for the
  others). A binary model predicts ``classes[1]`` exactly when its score is ``> threshold``
  (the importer sets ``threshold`` to the library's own tie rule: ``score >= 0`` is
  ``threshold = -0.0``'s predecessor, the largest float below zero); a multi-class one the
  first class with the largest score.

Floating-point addition is monotone in each argument (``a <= a'`` implies
``fl(a + b) <= fl(a' + b)``), and so are the division and the comparison: raising the
values a class's score collects can only raise it. The SAT engine relies on this to decide
exactly as the library does (``xdt.explain.engines._ensemble_sat``).

Cells: the ensemble's cells of an ordinal feature are cut by the thresholds of *all* its
trees (one tree's cells are unions of runs of them); :meth:`TreeEnsemble.tree_cells` maps
the ensemble's cells to each tree's.

Examples
--------
>>> from xdt.ir import DecisionTree, Feature, Leaf, ThresholdSplit
>>> from xdt.ir._ensemble import TreeEnsemble
>>> fs = [Feature("x", "ordinal")]
>>> t1 = DecisionTree(fs, ["a", "b"], ThresholdSplit("x", 1.0, Leaf("a", (-1.0,)),
...                                                  Leaf("b", (2.0,))))
>>> t2 = DecisionTree(fs, ["a", "b"], ThresholdSplit("x", 3.0, Leaf("a", (-0.5,)),
...                                                  Leaf("b", (0.5,))))
>>> m = TreeEnsemble(fs, ["a", "b"], [t1, t2], "margin", base=(0.0,))
>>> m.predict([[0.0], [2.0], [4.0]]).tolist()
['a', 'b', 'b']
>>> m.decision_function([[2.0]]).tolist()
[1.5]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from xdt.errors import InvalidModelError
from xdt.ir._cells import CategoricalCells, Cells, IntervalCells
from xdt.ir._constraints import Constraints, prepare
from xdt.ir._features import FeatureSpace, check_classes
from xdt.ir._instances import encode_rows
from xdt.ir._protocol import TREES, Model, target_text
from xdt.ir._tree import CategoricalSplit, DecisionTree, Leaf, Node, ThresholdSplit
from xdt.ir._values import INPUT_DTYPES

COMBINES = ("vote", "proba", "margin")
"""How an ensemble's trees combine into a class (see the module docstring)."""

PRECISIONS = ("float32", "float64")


def leaves_in_path_order(root: Node) -> list[Leaf]:
    """The leaves of a tree in the order of its paths (depth first, left/first branch
    first): ``leaves_in_path_order(t.root)[i]`` is the leaf of ``t.paths[i]``."""
    out: list[Leaf] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, Leaf):
            out.append(node)
        elif isinstance(node, ThresholdSplit):
            stack.append(node.right)
            stack.append(node.left)
        elif isinstance(node, CategoricalSplit):
            stack.extend(b.node for b in reversed(node.branches))
        else:
            raise InvalidModelError(f"not a tree node: {node!r}")
    return out


class Reference:
    """A library's ``predict`` kept as the factory that made it and the factory's arguments,
    so that an ensemble holding it (and an Explainer of that ensemble) can be pickled: the
    function is rebuilt from them when unpickled.

    ``Reference(factory, *args)(X)`` is ``factory(*args)(X)``; ``factory`` must be a
    module-level function and ``args`` picklable (the fitted estimator or booster itself,
    feature lists, class labels).
    """

    def __init__(self, factory: Callable[..., Callable], *args):
        self.factory = factory
        self.args = args
        self._predict = factory(*args)

    def __call__(self, X) -> np.ndarray:
        return self._predict(X)

    def __reduce__(self):
        return (Reference, (self.factory, *self.args))


def margin_leaf(classes: Sequence, n_scores: int, score: int, value: float) -> Leaf:
    """The leaf of a boosted tree that adds ``value`` to score ``score`` of an ensemble with
    ``n_scores`` scores (``"margin"``): for a binary margin (``n_scores == 1``) the value
    alone, labelled ``classes[1]`` when it is positive, else ``classes[0]``; otherwise one
    number per score, ``value`` at ``score`` and 0.0 elsewhere (adding 0.0 leaves a float
    score as it is), labelled ``classes[score]``. The label is for reading only."""
    if n_scores == 1:
        return Leaf(classes[1] if value > 0 else classes[0], (value,))
    out = [0.0] * n_scores
    out[score] = value
    return Leaf(classes[score], tuple(out))


class TreeEnsemble(Model):
    """Trees over one feature space, combined by vote, averaged probabilities or margins.

    Parameters
    ----------
    features : sequence of Feature or FeatureSpace
        The features every tree is over.
    classes : sequence of str or int
        The class labels, in the library's order (``classes_``).
    trees : sequence of DecisionTree
        Each over ``features`` and ``classes`` (the same names, kinds and domains) and with
        the ensemble's ``input_dtype``. For ``"proba"`` and ``"margin"`` every leaf carries
        ``Leaf.value`` (see :attr:`n_scores`); for ``"vote"`` a leaf's label is its vote.
    combine : {"vote", "proba", "margin"}
        See the module docstring.
    base : sequence of float, optional
        ``"margin"``: the scores before the first tree (the base margin / initial
        prediction); default zeros. Not used by the other rules.
    precision : {"float64", "float32"}
        The floating-point type the scores are summed in (default ``"float64"``;
        ``"vote"`` counts exactly in either).
    divisor : float
        ``"proba"``: the sum of probabilities is divided by it (scikit-learn divides by
        the number of trees); default 1.
    threshold : float
        Binary ``"margin"``: ``classes[1]`` exactly when the score is ``> threshold``
        (default 0.0).
    target : str, optional
        Name of the predicted variable.
    input_dtype : {"float64", "float32"}
        The precision the library compares inputs in (see
        :class:`~xdt.ir.IntervalCells`); the trees must agree.
    source : dict, optional
        Where the model came from (library, version, model class); kept in the JSON file.
    reference : callable, optional
        The library's own ``predict`` (rows of feature values in feature order, shape
        (n, F), float64 -> labels, shape (n,)), set by the importers when they read a live
        model object; certificates are re-checked with it (``verify=True``). Not saved.
    constraints : iterable of Constraint, str or dict, optional
        Background constraints on the feature space (:mod:`xdt.ir._constraints`), as for
        :class:`~xdt.ir.DecisionTree`; they belong to the ensemble (its trees carry
        none).

    Attributes
    ----------
    cells : tuple of Cells
        Per feature, the ensemble's cells (every tree's thresholds together, and the cuts
        of the constraints).
    constraints : Constraints or None
        The background constraints, bound to :attr:`cells`.
    n_scores : int
        Length of the score vector: the number of classes, or 1 for a binary margin.
    values : list of numpy.ndarray
        ``values[t]``: shape (n_leaves of tree t, n_scores), the leaf values of tree ``t`` in
        its path order, in ``precision`` (``"vote"``: one-hot rows of the leaf's class).

    Raises
    ------
    InvalidModelError
        For trees over other features or classes, leaf values of the wrong length or not
        finite, an unknown rule or precision, a base of the wrong length.
    """

    kind = "tree-ensemble"
    kind_name = "tree ensemble"
    capabilities = frozenset({TREES})

    def __init__(self, features, classes: Sequence, trees: Sequence[DecisionTree],
                 combine: str, *, base: Sequence[float] | None = None,
                 precision: str = "float64", divisor: float = 1.0, threshold: float = 0.0,
                 target: str | None = None, input_dtype: str = "float64",
                 source: dict | None = None, reference: Callable | None = None,
                 constraints: Iterable | None = None):
        self.features = features if isinstance(features, FeatureSpace) else FeatureSpace(features)
        self.classes = tuple(classes)
        check_classes(self.classes)
        if combine not in COMBINES:
            raise InvalidModelError(
                f"unknown combine rule {combine!r}; use one of {', '.join(COMBINES)}")
        if precision not in PRECISIONS:
            raise InvalidModelError(
                f"unknown precision {precision!r}; use one of {', '.join(PRECISIONS)}")
        if input_dtype not in INPUT_DTYPES:
            raise InvalidModelError(
                f"unknown input_dtype {input_dtype!r}; use one of {', '.join(INPUT_DTYPES)}")
        self.combine = combine
        self.precision = precision
        self.input_dtype = input_dtype
        self.target = target
        self.source = dict(source) if source else None
        self.reference = reference
        self.trees = tuple(trees)
        if not self.trees:
            raise InvalidModelError("a tree ensemble needs at least one tree")
        k = len(self.classes)
        if k < 2:
            raise InvalidModelError("a tree ensemble needs at least two classes")
        self.n_scores = 1 if combine == "margin" and k == 2 else k
        dtype = np.dtype(precision)
        if not isinstance(divisor, int | float) or isinstance(divisor, bool) \
                or not math.isfinite(divisor) or divisor <= 0:
            raise InvalidModelError(f"'divisor' must be a positive number, got {divisor!r}")
        self.divisor = float(divisor)
        if not isinstance(threshold, int | float) or isinstance(threshold, bool) \
                or not math.isfinite(threshold):
            raise InvalidModelError(f"'threshold' must be a finite number, got {threshold!r}")
        self.threshold = float(threshold)
        if base is None:
            base = (0.0,) * self.n_scores
        base = tuple(float(b) for b in base)
        if len(base) != self.n_scores or not all(math.isfinite(b) for b in base):
            raise InvalidModelError(
                f"'base' must hold {self.n_scores} finite number(s) (one per score), got "
                f"{list(base)}")
        self.base = base
        for t, tree in enumerate(self.trees):
            self._check_tree(t, tree)
        self.values = [self._leaf_values(t, tree, dtype) for t, tree in enumerate(self.trees)]
        cons, cuts = prepare(constraints, self.features, {
            f: np.concatenate([tree.cells[f].thresholds for tree in self.trees]).tolist()
            for f, feat in enumerate(self.features) if feat.is_ordinal})
        self.cells: tuple[Cells, ...] = tuple(self._union_cells(f, cuts.get(f, ()))
                                              for f in range(len(self.features)))
        self.constraints: Constraints | None = cons.bind(self.cells) if cons else None
        self._refine = [[self._refinement(f, tree) for f in range(len(self.features))]
                        for tree in self.trees]

    def with_constraints(self, constraints: Iterable | None) -> TreeEnsemble:
        """The same ensemble carrying the background ``constraints``
        (:mod:`xdt.ir._constraints`) instead of its own; ``None`` or ``[]`` for none.
        ``self`` is unchanged."""
        return TreeEnsemble(self.features, self.classes, self.trees, self.combine,
                            base=self.base, precision=self.precision, divisor=self.divisor,
                            threshold=self.threshold, target=self.target,
                            input_dtype=self.input_dtype, source=self.source,
                            reference=self.reference, constraints=constraints)

    # ------------------------------------------------------------------ building
    def _check_tree(self, t: int, tree: DecisionTree) -> None:
        if not isinstance(tree, DecisionTree):
            raise InvalidModelError(f"trees[{t}] is a {type(tree).__name__}, not a "
                                    "DecisionTree")
        if tree.features != self.features:
            raise InvalidModelError(
                f"trees[{t}] is over features {list(tree.features.names)}, not the ensemble's "
                f"{list(self.features.names)} (names, kinds and domains must agree)")
        if tree.classes != self.classes:
            raise InvalidModelError(f"trees[{t}] has classes {list(tree.classes)}, not the "
                                    f"ensemble's {list(self.classes)}")
        if tree.input_dtype != self.input_dtype:
            raise InvalidModelError(f"trees[{t}] compares inputs in {tree.input_dtype}, the "
                                    f"ensemble in {self.input_dtype}")

    def _leaf_values(self, t: int, tree: DecisionTree, dtype: np.dtype) -> np.ndarray:
        leaves = leaves_in_path_order(tree.root)
        if self.combine == "vote":
            out = np.zeros((len(leaves), self.n_scores), dtype=dtype)
            out[np.arange(len(leaves)), [tree._class_index[leaf.label] for leaf in leaves]] = 1
            return out
        rows = []
        for i, leaf in enumerate(leaves):
            v = leaf.value
            if v is None or len(v) != self.n_scores:
                raise InvalidModelError(
                    f"leaf {i} of trees[{t}] has value {v!r}; a {self.combine} ensemble's "
                    f"leaves hold {self.n_scores} number(s) each"
                    + (" (one margin for a binary model)" if self.n_scores == 1 else ""))
            rows.append(v)
        try:
            out = np.asarray(rows, dtype=np.float64)
        except (TypeError, ValueError):
            raise InvalidModelError(f"trees[{t}] has leaf values that are not numbers") from None
        if not np.isfinite(out).all():
            raise InvalidModelError(f"trees[{t}] has a leaf value that is not finite")
        cast = out.astype(dtype)
        if dtype == np.float32 and not np.array_equal(cast.astype(np.float64), out):
            raise InvalidModelError(
                f"trees[{t}] has leaf values that are not float32 numbers; a float32 "
                "ensemble's values must be exactly representable (round them with "
                "numpy.float32 first)")
        return cast

    def _union_cells(self, f: int, thresholds: Sequence[float]) -> Cells:
        feat = self.features[f]
        if not feat.is_ordinal:
            return CategoricalCells(feat.name, feat.domain)
        return IntervalCells(feat.name, thresholds, self.input_dtype)

    def _refinement(self, f: int, tree: DecisionTree) -> np.ndarray | None:
        """Per ensemble cell of feature ``f``, the tree's cell (``None``: the same cells)."""
        mine = self.cells[f]
        if not isinstance(mine, IntervalCells):
            return None
        theirs = tree.cells[f].thresholds
        if len(theirs) == len(mine.thresholds):
            return None
        upper = np.searchsorted(theirs, mine.thresholds, side="left")
        return np.append(upper, len(theirs)).astype(np.int64)

    # ------------------------------------------------------------------ cells
    def tree_cells(self, t: int, cells: np.ndarray) -> np.ndarray:
        """The cells of tree ``t`` of points given by the ensemble's cells (shape (n, F))."""
        cells = np.asarray(cells, dtype=np.int64)
        refine = self._refine[t]
        if all(r is None for r in refine):
            return cells
        out = cells.copy()
        for f, r in enumerate(refine):
            if r is not None:
                out[:, f] = r[cells[:, f]]
        return out

    def tree_mask(self, t: int, f: int, mask: int) -> int:
        """The ensemble's cells of feature ``f`` inside the cell set ``mask`` of tree ``t``."""
        r = self._refine[t][f]
        if r is None:
            return mask
        low = mask & -mask
        if mask and not (mask + low) & mask:  # an interval a..b: r is non-decreasing
            lo, hi = r.searchsorted((low.bit_length() - 1, mask.bit_length())).tolist()
            return ((1 << hi) - 1) ^ ((1 << lo) - 1)
        out = 0
        for j, c in enumerate(r.tolist()):
            if (mask >> c) & 1:
                out |= 1 << j
        return out

    def tree_terms(self, t: int) -> list[tuple[int, dict[int, int]]]:
        """The paths of tree ``t`` as ``(path index, {feature: ensemble cells})``, every path
        (a dead path has an empty mask); the tree's leaf ``i`` holds ``values[t][i]``."""
        return [(p.index, {f: self.tree_mask(t, f, m) for f, m in p.masks.items()})
                for p in self.trees[t].paths]

    def encode(self, X) -> np.ndarray:
        """The ensemble's cells of the rows of ``X`` (the forms and errors of
        :meth:`xdt.ir.DecisionTree.encode`); shape (n, n_features), int64."""
        return encode_rows(self.features, self.cells, X)

    # ------------------------------------------------------------------ prediction
    def leaves(self, cells: np.ndarray) -> np.ndarray:
        """Path index of the leaf each tree reaches; shape (n, n_trees), int64."""
        cells = np.asarray(cells, dtype=np.int64).reshape(-1, len(self.features))
        out = np.empty((len(cells), len(self.trees)), dtype=np.int64)
        for t, tree in enumerate(self.trees):
            out[:, t] = tree.leaf_paths(self.tree_cells(t, cells))
        return out

    def scores_of_leaves(self, leaves: np.ndarray) -> np.ndarray:
        """The scores of points given by the leaf each tree reaches (shape (n, n_trees)):
        shape (n, n_scores), in ``precision`` (``"proba"``: after the division), summed in
        tree order exactly as the library does."""
        leaves = np.asarray(leaves, dtype=np.int64).reshape(-1, len(self.trees))
        out = np.tile(self.start_scores(), (len(leaves), 1))
        for t, values in enumerate(self.values):
            out += values[leaves[:, t]]
        if self.score_divisor != 1.0:
            out /= out.dtype.type(self.score_divisor)
        return out

    def start_scores(self) -> np.ndarray:
        """The scores before the first tree: ``base`` for ``"margin"``, zeros otherwise;
        shape (n_scores,), in ``precision`` (a new array)."""
        start = self.base if self.combine == "margin" else (0.0,) * self.n_scores
        return np.asarray(start, dtype=np.dtype(self.precision))

    @property
    def score_divisor(self) -> float:
        """What the sums are divided by before the decision: ``divisor`` for ``"proba"``,
        1.0 for the other rules."""
        return self.divisor if self.combine == "proba" else 1.0

    def decide(self, scores: np.ndarray) -> np.ndarray:
        """Class index per row of ``scores`` (shape (n, n_scores)); shape (n,), int64."""
        scores = np.asarray(scores)
        if self.n_scores == 1:
            return (scores[:, 0] > scores.dtype.type(self.threshold)).astype(np.int64)
        return np.argmax(scores, axis=1).astype(np.int64)

    def implying_terms(self, c: int) -> None:
        """``None``: no term of the ensemble is listed (its trees' paths are in
        :meth:`tree_terms`)."""
        return None

    def describe(self) -> str:
        """One readable line: the kind of model and its sizes."""
        return (f"tree ensemble ({self.combine}), {self.n_trees} trees, "
                f"{len(self.features)} features, {self.n_nodes} nodes, depth {self.depth}, "
                f"{len(self.classes)} classes{target_text(self)}")

    def predict_cells(self, cells: np.ndarray) -> np.ndarray:
        """Class index per row of ``cells`` (shape (n, F)); shape (n,), int64."""
        return self.decide(self.scores_of_leaves(self.leaves(cells)))

    def predict_index(self, X) -> np.ndarray:
        """Class index (position in :attr:`classes`) per row of ``X``; shape (n,), int64."""
        return self.predict_cells(self.encode(X))

    def predict(self, X) -> np.ndarray:
        """Predicted class label per row of ``X`` (forms as for :meth:`encode`).

        Returns
        -------
        numpy.ndarray of shape (n,): int64 for integer labels, object dtype otherwise.
        """
        labels = np.asarray(self.classes, dtype=object)
        out = labels[self.predict_index(X)]
        if all(isinstance(c, int) for c in self.classes):
            return out.astype(np.int64)
        return out

    def decision_function(self, X) -> np.ndarray:
        """The scores of the rows of ``X``: shape (n,) for a binary margin, else
        (n, n_scores); vote counts, averaged probabilities or margins, in ``precision``."""
        scores = self.scores_of_leaves(self.leaves(self.encode(X)))
        return scores[:, 0] if self.n_scores == 1 else scores

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities, shape (n, n_classes), float64: the averaged probabilities
        (``"proba"``), the share of votes (``"vote"``), or the logistic / softmax of the
        margins (``"margin"``, as the binomial and multinomial log-loss define them; the
        library's own transform may differ in the last bits).
        """
        scores = self.scores_of_leaves(self.leaves(self.encode(X))).astype(np.float64)
        if self.combine == "vote":
            return scores / len(self.trees)
        if self.combine == "proba":
            return scores
        if self.n_scores == 1:
            p = 1.0 / (1.0 + np.exp(-scores[:, 0]))
            return np.column_stack([1.0 - p, p])
        z = np.exp(scores - scores.max(axis=1, keepdims=True))
        return z / z.sum(axis=1, keepdims=True)

    # ------------------------------------------------------------------ sizes
    @property
    def n_trees(self) -> int:
        """Number of trees."""
        return len(self.trees)

    @property
    def n_nodes(self) -> int:
        """Nodes of all trees together."""
        return sum(t.n_nodes for t in self.trees)

    @property
    def depth(self) -> int:
        """The depth of the deepest tree."""
        return max(t.depth for t in self.trees)

    def __repr__(self) -> str:
        return (f"TreeEnsemble({self.combine}, trees={len(self.trees)}, "
                f"features={len(self.features)}, classes={list(self.classes)}, "
                f"nodes={self.n_nodes}, depth={self.depth})")
