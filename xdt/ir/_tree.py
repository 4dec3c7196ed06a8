"""Decision trees in the IR.

A tree is built from three node types:

* :class:`Leaf` — predicts one class label;
* :class:`ThresholdSplit` — on an ordinal feature: ``x <= threshold`` goes ``left``;
* :class:`CategoricalSplit` — on a categorical or binary feature: each :class:`Branch`
  carries a *set* of domain values (multi-value edges); the branches' sets are disjoint and
  cover the domain.

:class:`DecisionTree` validates the nodes against the features and classes, derives the
cells of each feature (:mod:`xdt.ir._cells`), lists every leaf's path as a term, and predicts
vectorised over many rows at once.

Examples
--------
>>> from xdt.ir import DecisionTree, Feature, Leaf, ThresholdSplit
>>> t = DecisionTree([Feature("x", "ordinal")], ["lo", "hi"],
...                  ThresholdSplit("x", 0.5, Leaf("lo"), Leaf("hi")))
>>> t.predict([[0.2], [0.5], [0.7]]).tolist()
['lo', 'lo', 'hi']
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from xdt.errors import (
    BranchCoverageError,
    InvalidModelError,
    UnknownNodeFeatureError,
    ValueOutsideDomainError,
)
from xdt.ir._cells import CategoricalCells, Cells, IntervalCells, full_mask, mask_of
from xdt.ir._constraints import Constraints, prepare
from xdt.ir._features import Feature, FeatureSpace, check_classes
from xdt.ir._instances import encode_rows
from xdt.ir._protocol import PATHS, Model, TermMasks, target_text
from xdt.ir._terms import Literal, Term
from xdt.ir._values import INPUT_DTYPES, display_threshold, to_python


@dataclass(frozen=True)
class Leaf:
    """A leaf predicting ``label`` (one of the tree's classes).

    ``value`` is what the leaf adds to the scores of a tree ensemble
    (:class:`~xdt.ir.TreeEnsemble`): one number per score, e.g. the class
    probabilities of a random forest's tree or the margin of a boosted tree. A lone decision
    tree ignores it."""

    label: object
    value: tuple[float, ...] | None = None


class _Deep:
    """Equality, hashing, ``repr``, pickling and copying of a split node or branch without
    recursion, so that trees of any depth (learned or loaded chains of 10^4 levels and more)
    stay printable, comparable and picklable. The results are those of the dataclass
    methods (field by field, in field order); pickling stores the subtree flat, in preorder
    (:func:`_flatten`)."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        stack: list[tuple[object, object]] = [(self, other)]
        while stack:
            a, b = stack.pop()
            if a is b:
                continue
            if a.__class__ is not b.__class__:
                return False
            if isinstance(a, Leaf):
                if a != b:
                    return False
            elif isinstance(a, ThresholdSplit):
                if not (_same(a.feature, b.feature) and _same(a.threshold, b.threshold)):
                    return False
                stack.append((a.right, b.right))
                stack.append((a.left, b.left))
            elif isinstance(a, CategoricalSplit):
                if not _same(a.feature, b.feature) or len(a.branches) != len(b.branches):
                    return False
                stack.extend(zip(reversed(a.branches), reversed(b.branches), strict=True))
            elif isinstance(a, Branch):
                if not _same(a.values, b.values):
                    return False
                stack.append((a.node, b.node))
            elif a != b:
                return False
        return True

    def __hash__(self) -> int:
        hashes: dict[int, int] = {}
        stack: list[tuple[object, bool]] = [(self, False)]
        while stack:
            node, ready = stack.pop()
            if id(node) in hashes:
                continue
            kids = _children(node)
            if not ready and kids:
                stack.append((node, True))
                stack.extend((k, False) for k in kids)
                continue
            own = _own_fields(node)
            hashes[id(node)] = hash((*own, *(hashes[id(k)] for k in kids))) \
                if isinstance(node, _Deep) else hash(node)
        return hashes[id(self)]

    def __repr__(self) -> str:
        out: list[str] = []
        stack: list[object] = [self]
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                out.append(item)
            elif isinstance(item, ThresholdSplit):
                stack.extend((")", item.right, ", right=", item.left,
                              f"{type(item).__qualname__}(feature={item.feature!r}, "
                              f"threshold={item.threshold!r}, left="))
            elif isinstance(item, CategoricalSplit):
                parts: list[object] = [f"{type(item).__qualname__}(feature={item.feature!r}, "
                                       "branches=("]
                for k, b in enumerate(item.branches):
                    parts.extend((", " if k else "", b))
                parts.append(",))" if len(item.branches) == 1 else "))")
                stack.extend(reversed(parts))
            elif isinstance(item, Branch):
                stack.extend((")", item.node,
                              f"{type(item).__qualname__}(values={item.values!r}, node="))
            else:
                out.append(repr(item))
        return "".join(out)

    def __reduce__(self):
        return _unflatten, (_flatten(self),)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo: dict):
        import copy
        return _unflatten(copy.deepcopy(_flatten(self), memo))


def _same(a: object, b: object) -> bool:
    """Field equality as a dataclass's ``__eq__`` tests it (identity first, as tuples do)."""
    return a is b or a == b


def _children(node: object) -> tuple:
    if isinstance(node, ThresholdSplit):
        return (node.left, node.right)
    if isinstance(node, CategoricalSplit):
        return node.branches
    if isinstance(node, Branch):
        return (node.node,)
    return ()


def _own_fields(node: object) -> tuple:
    if isinstance(node, ThresholdSplit):
        return (node.feature, node.threshold)
    if isinstance(node, CategoricalSplit):
        return (node.feature,)
    if isinstance(node, Branch):
        return (node.values,)
    return ()


def _flatten(top: object) -> list:
    """The subtree under ``top`` (a node or branch) in preorder, one entry per node:
    ``("T", feature, threshold)``, ``("C", feature, n_branches)``, ``("B", values)`` or a
    :class:`Leaf` itself (:func:`_unflatten` reads it back)."""
    out: list = []
    stack: list[object] = [top]
    while stack:
        node = stack.pop()
        if isinstance(node, ThresholdSplit):
            out.append(("T", node.feature, node.threshold))
            stack.extend((node.right, node.left))
        elif isinstance(node, CategoricalSplit):
            out.append(("C", node.feature, len(node.branches)))
            stack.extend(reversed(node.branches))
        elif isinstance(node, Branch):
            out.append(("B", node.values))
            stack.append(node.node)
        else:
            out.append(node)
    return out


def _unflatten(flat: list) -> object:
    """The node or branch whose preorder :func:`_flatten` wrote."""
    built: list[object] = []
    for item in reversed(flat):  # children before parents, first child on top
        if not isinstance(item, tuple):
            built.append(item)
        elif item[0] == "T":
            left, right = built.pop(), built.pop()
            built.append(ThresholdSplit(item[1], item[2], left, right))
        elif item[0] == "C":
            branches = tuple(built.pop() for _ in range(item[2]))
            built.append(CategoricalSplit(item[1], branches))
        else:
            built.append(Branch(item[1], built.pop()))
    return built[0]


@dataclass(frozen=True, repr=False, eq=False)
class ThresholdSplit(_Deep):
    """Binary split on ordinal ``feature``: ``x <= threshold`` goes ``left``, else ``right``."""

    feature: str
    threshold: float
    left: Node
    right: Node

    def edge_labels(self, input_dtype: str = "float64") -> list[str]:
        """The labels of the two edges, as rules show the threshold
        (:func:`~xdt.ir._values.display_threshold` for the tree's ``input_dtype``):
        ``["<= t", "> t"]``."""
        t = display_threshold(self.threshold, input_dtype)
        return [f"<= {t}", f"> {t}"]


@dataclass(frozen=True, repr=False, eq=False)
class Branch(_Deep):
    """One edge of a :class:`CategoricalSplit`: the domain ``values`` that follow it."""

    values: tuple
    node: Node


@dataclass(frozen=True, repr=False, eq=False)
class CategoricalSplit(_Deep):
    """Multiway split on a categorical/binary ``feature``; the branch value sets partition
    its domain."""

    feature: str
    branches: tuple[Branch, ...]

    def edge_labels(self, input_dtype: str = "float64") -> list[str]:
        """The label of each branch's edge, in order: ``= v`` for one value, ``in {a, b}`` for
        several (``input_dtype`` is unused: categories are shown as they are)."""
        labels = []
        for b in self.branches:
            values = [str(v) for v in b.values]
            labels.append(f"= {values[0]}" if len(values) == 1
                          else "in {" + ", ".join(values) + "}")
        return labels


Node = Leaf | ThresholdSplit | CategoricalSplit


class Path:
    """The root-to-leaf path of one leaf.

    Attributes
    ----------
    index : int
        Leaf number, in depth-first (left/first branch first) order.
    node : int
        Position of the leaf in the tree's preorder numbering of nodes.
    label, class_index
        The leaf's class and its position in ``tree.classes``.
    term : Term
        One literal per test on the path, root first (a feature may be tested twice); built
        on first access from literals the paths of a subtree share (one record per edge,
        linked to its parent's), so that listing the paths of a deep tree costs no more
        than the tree.
    masks : dict[int, int]
        Per tested feature, the intersection of the path's cell sets (in order of first
        test); made on first access, from the same literals.

    Paths are equal when their index, node, label, class index and term are.
    """

    __slots__ = ("index", "node", "label", "class_index", "_masks", "_edges", "_term")

    def __init__(self, index: int, node: int, label: object, class_index: int,
                 term: Term | tuple | None, masks: dict[int, int] | None):
        put = object.__setattr__
        put(self, "index", index)
        put(self, "node", node)
        put(self, "label", label)
        put(self, "class_index", class_index)
        put(self, "_masks", masks)  # None: made from the literals on first access
        # a Term, or the chain (parent's chain, Literal) of the path's edges, leaf last
        put(self, "_term", term if isinstance(term, Term) else None)
        put(self, "_edges", None if isinstance(term, Term) else term)

    @property
    def term(self) -> Term:
        """The path's literals, one per test, root first."""
        if self._term is None:
            lits = []
            chain = self._edges
            while chain is not None:
                chain, lit = chain
                lits.append(lit)
            object.__setattr__(self, "_term", Term(tuple(reversed(lits))))
            object.__setattr__(self, "_edges", None)
        return self._term

    @property
    def masks(self) -> dict[int, int]:
        """Per tested feature, the intersection of the path's cell sets, in order of first
        test (made on first access, in time linear in the path's length)."""
        masks = self._masks
        if masks is None:
            lits = []
            if self._term is None:
                chain = self._edges
                while chain is not None:
                    chain, lit = chain
                    lits.append(lit)
                lits.reverse()
            else:
                lits = list(self._term.literals)
            masks = {}
            for lit in lits:
                masks[lit.feature] = masks.get(lit.feature, lit.cells) & lit.cells
            object.__setattr__(self, "_masks", masks)
        return masks

    @property
    def features(self) -> tuple[int, ...]:
        """Features tested on the path, in order of first test."""
        return tuple(self.masks)

    @property
    def consistent(self) -> bool:
        """False for a dead leaf no point can reach (a feature's cell sets do not intersect)."""
        return all(m != 0 for m in self.masks.values())

    def __len__(self) -> int:
        """Number of tests (edges) on the path."""
        if self._term is None:
            n, chain = 0, self._edges
            while chain is not None:
                chain, n = chain[0], n + 1
            return n
        return len(self._term.literals)

    def _key(self) -> tuple:
        return (self.index, self.node, self.label, self.class_index, self.term)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (f"Path(index={self.index!r}, node={self.node!r}, label={self.label!r}, "
                f"class_index={self.class_index!r}, term={self.term!r}, masks={self.masks!r})")

    def __reduce__(self):
        return Path, (self.index, self.node, self.label, self.class_index, self.term,
                      self.masks)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}: a Path is read-only")


def _partitions(branches: tuple[Branch, ...], domain: tuple) -> bool:
    """Whether the branches' value sets are non-empty and partition ``domain`` (hashable
    values, no booleans): the check of a valid split in a few passes at C speed, for domains
    of 10^6 values; ``False`` sends the caller to the value-by-value check that names
    what is wrong."""
    values = [v for b in branches for v in b.values]
    if len(values) != len(domain) or not all(b.values for b in branches):
        return False
    try:
        seen = set(values)
    except TypeError:
        return False
    return len(seen) == len(values) and bool not in set(map(type, values)) \
        and seen == set(domain)


def _merged_leaf(leaves: list[Leaf]) -> Leaf:
    """One leaf for sibling leaves of one class: their ``value`` if they share it."""
    first = leaves[0]
    if len(leaves) == 1:
        return first
    same = all(leaf.value == first.value for leaf in leaves)
    return Leaf(first.label, first.value if same else None)


def _fmt(v: object) -> str:
    return repr(v) if isinstance(v, str) else str(v)


def _where(chain: tuple | None) -> str:
    """A node's place from its chain of (parent's chain, feature, op, value) steps:
    ``root > age <= 30 > colour in {'red'}``."""
    steps = []
    while chain is not None:
        chain, name, op, value = chain
        if op == "in":
            steps.append(f"{name} in {{{', '.join(_fmt(v) for v in value)}}}")
        else:
            steps.append(f"{name} {op} {value}")
    return " > ".join(["root", *reversed(steps)])


class DecisionTree(Model):
    """A decision tree over a feature space, with any number of classes.

    Parameters
    ----------
    features : sequence of Feature, or FeatureSpace
        The model's input features, in the order of columns of ``X``.
    classes : sequence of str/int
        The class labels (distinct), in the order used by class indices.
    root : Node
        The root node.
    target : str, optional
        Name of the predicted attribute, used in readable rules (``THEN play = yes``).
    input_dtype : {"float64", "float32"}
        The precision of the inputs the tree was fitted on. ``"float32"`` for a tree of a
        library that compares float32 copies of its inputs (scikit-learn, see
        :func:`xdt.interop.from_sklearn`): its thresholds are float64 images of
        float32 tests, shown in rules as the shortest decimal that sends every float32 value
        the same way (``x <= 0.5`` for ``0.5000000298023224``,
        :func:`xdt.ir._values.display_threshold`). Only text depends on it: the tree always
        predicts by comparing values with its exact thresholds.

    constraints : iterable of Constraint, str or dict, optional
        Background constraints on the feature space (:mod:`xdt.ir._constraints`): every
        explanation respects them. They cut the cells of the ordinal features they name
        (the predictions do not change). Default: none.

    Raises
    ------
    InvalidModelError
        (or its subclasses :class:`ValueOutsideDomainError`, :class:`BranchCoverageError`,
        :class:`~xdt.errors.InvalidConstraintError` for a constraint)
        when a node breaks a rule; the message names the node by its path from the root;
        also for an unknown ``input_dtype``.
    UnknownNodeFeatureError
        When a node tests a feature that is not in ``features`` (both an
        :class:`InvalidModelError` and an :class:`UnknownFeatureError`).

    Attributes
    ----------
    cells : tuple of CategoricalCells / IntervalCells
        The model's partition of each feature's domain.
    paths : tuple of Path
        Every leaf's path, in depth-first order (built on first access).
    constraints : Constraints or None
        The background constraints, bound to :attr:`cells`.
    n_nodes, n_leaves, depth : int
        Sizes; depth counts edges on the longest path (a lone leaf has depth 0).

    Notes
    -----
    In Jupyter a tree shows itself drawn as SVG: that view (``_repr_html_``) is attached
    from outside the IR, by :mod:`xdt.report._jupyter` as soon as this module is loaded; the
    IR imports no wing.
    """

    kind = "tree"
    kind_name = "decision tree"
    capabilities = frozenset({PATHS})

    def __init__(self, features, classes: Sequence, root: Node, target: str | None = None,
                 *, input_dtype: str = "float64", constraints: Iterable | None = None):
        self.features = features if isinstance(features, FeatureSpace) else FeatureSpace(features)
        self.classes = tuple(classes)
        self.root = root
        self.target = target
        if input_dtype not in INPUT_DTYPES:
            raise InvalidModelError(
                f"unknown input_dtype {input_dtype!r}; use one of {', '.join(INPUT_DTYPES)}")
        self.input_dtype = input_dtype
        check_classes(self.classes)
        self._class_index = {c: i for i, c in enumerate(self.classes)}
        cons, thresholds = prepare(constraints, self.features, self._validate())
        self.cells: tuple[Cells, ...] = tuple(
            IntervalCells(f.name, thresholds[i], input_dtype) if f.is_ordinal
            else CategoricalCells(f.name, f.domain)
            for i, f in enumerate(self.features))
        self.constraints: Constraints | None = cons.bind(self.cells) if cons else None
        self._compile()

    # ------------------------------------------------------------------ validation
    def _validate(self) -> dict[int, list[float]]:
        """Check every node; collect the thresholds tested on each ordinal feature.

        A node's place (its path from the root, in the error messages) is kept as a chain
        of (parent's place, step) pairs and written out only for an error."""
        thresholds: dict[int, list[float]] = {i: [] for i in range(len(self.features))}
        stack: list[tuple[Node, tuple | None]] = [(self.root, None)]
        while stack:
            node, chain = stack.pop()
            if isinstance(node, Leaf):
                if isinstance(node.label, bool) or not isinstance(node.label, Hashable) \
                        or node.label not in self._class_index:
                    raise InvalidModelError(
                        f"leaf class {node.label!r} is not in classes {list(self.classes)}; "
                        "add it to 'classes' or fix the leaf", _where(chain))
                continue
            if not isinstance(node, ThresholdSplit | CategoricalSplit):
                raise InvalidModelError(f"not a tree node: {node!r}", _where(chain))
            if node.feature not in self.features:
                raise UnknownNodeFeatureError(
                    f"the node tests unknown feature {node.feature!r}; the model's features "
                    f"are: {', '.join(self.features.names)}", _where(chain))
            fi = self.features.index(node.feature)
            feat = self.features[fi]
            if isinstance(node, ThresholdSplit):
                self._check_threshold(node, feat, chain)
                thresholds[fi].append(float(node.threshold))
                stack.append((node.right, (chain, feat.name, ">", node.threshold)))
                stack.append((node.left, (chain, feat.name, "<=", node.threshold)))
            else:
                self._check_branches(node, feat, chain)
                for b in reversed(node.branches):
                    stack.append((b.node, (chain, feat.name, "in", b.values)))
        return thresholds

    @staticmethod
    def _check_threshold(node: ThresholdSplit, feat: Feature, chain) -> None:
        if not feat.is_ordinal:
            raise InvalidModelError(
                f"threshold split on {feat.kind} feature {feat.name!r}; a {feat.kind} feature "
                "is split by 'branches' with value sets (or declare it 'ordinal')", _where(chain))
        t = node.threshold
        if isinstance(t, bool) or not isinstance(t, int | float | np.number) \
                or not math.isfinite(float(t)):
            raise InvalidModelError(
                f"threshold on {feat.name!r} must be a finite number, got {t!r}", _where(chain))

    @staticmethod
    def _check_branches(node: CategoricalSplit, feat: Feature, chain) -> None:
        if feat.is_ordinal:
            raise InvalidModelError(
                f"branch split on ordinal feature {feat.name!r}; split an ordinal feature by "
                "'threshold' (x <= t goes left), or declare it categorical with a domain",
                _where(chain))
        if len(node.branches) < 2:
            raise InvalidModelError(
                f"a split on {feat.name!r} needs at least two branches", _where(chain))
        if _partitions(node.branches, feat.domain):
            return
        domain = {v: True for v in feat.domain}
        owner: dict = {}
        for k, b in enumerate(node.branches):
            if len(b.values) == 0:
                raise InvalidModelError(f"branch {k} on {feat.name!r} has no values", _where(chain))
            for v in b.values:
                if isinstance(v, bool) or not isinstance(v, Hashable) or v not in domain:
                    raise ValueOutsideDomainError(
                        f"branch {k} on {feat.name!r} names {v!r}, which is not in the domain "
                        f"{list(feat.domain)}", _where(chain))
                if v in owner:
                    raise BranchCoverageError(
                        f"value {v!r} of {feat.name!r} is on branches {owner[v]} and {k}; "
                        "each value must follow exactly one branch", _where(chain))
                owner[v] = k
        missing = [v for v in feat.domain if v not in owner]
        if missing:
            raise BranchCoverageError(
                f"no branch on {feat.name!r} takes {missing}; every domain value must follow "
                "one branch (add the values to a branch)", _where(chain))

    # ------------------------------------------------------------------ compilation
    def _compile(self) -> None:
        """Number nodes in preorder and build the per-node child tables (the paths are
        built on first use: :attr:`paths`).

        A categorical node's child table has one entry per cell of its feature; a threshold
        node's has two (left, right) and its *cut*, the last cell that goes left, so the
        tables stay linear in the tree's size however many thresholds a feature has."""
        node_feature: list[int] = []
        node_class: list[int] = []
        node_path: list[int] = []
        node_cut: list[int] = []
        offsets: list[int] = []         # per node: where its child table starts in flat
        flat: list[int] = []            # the child tables: child per cell / (left, right)
        n_paths = 0
        # stack of (node, parent number, cells of the edge from the parent (categorical
        # parents), edge number, depth)
        stack: list[tuple[Node, int, list[int], int, int]] = [(self.root, -1, [], 0, 0)]
        depth = 0
        while stack:
            node, parent, mask, edge, level = stack.pop()
            me = len(node_feature)
            if parent >= 0:
                base = offsets[parent]
                if node_cut[parent] >= 0:
                    flat[base + edge] = me
                else:
                    for c in mask:  # the cells of the edge
                        flat[base + c] = me
            if isinstance(node, Leaf):
                node_feature.append(-1)
                node_class.append(self._class_index[node.label])
                node_path.append(n_paths)
                node_cut.append(-1)
                offsets.append(len(flat))
                n_paths += 1
                depth = max(depth, level)
                continue
            fi = self.features.index(node.feature)
            cells = self.cells[fi]
            node_feature.append(fi)
            node_class.append(-1)
            node_path.append(-1)
            if isinstance(node, ThresholdSplit):
                node_cut.append(bisect.bisect_left(cells._sorted, float(node.threshold)))
                offsets.append(len(flat))
                flat.extend((-1, -1))
                stack.append((node.right, me, [], 1, level + 1))
                stack.append((node.left, me, [], 0, level + 1))
                continue
            node_cut.append(-1)
            offsets.append(len(flat))
            flat.extend([-1] * cells.n_cells)
            branches = node.branches
            code = cells._code  # the values were checked against the domain
            for k in range(len(branches) - 1, -1, -1):
                stack.append((branches[k].node, me, [code[v] for v in branches[k].values],
                              k, level + 1))
        self._node_feature = np.asarray(node_feature, dtype=np.int64)
        self._node_class = np.asarray(node_class, dtype=np.int64)
        self._node_path = np.asarray(node_path, dtype=np.int64)
        self._node_cut = np.asarray(node_cut, dtype=np.int64)
        self._child_offset = np.asarray(offsets, dtype=np.int64)
        self._child_flat = np.asarray(flat, dtype=np.int64)
        leaves = self._node_path >= 0
        self._path_classes = self._node_class[leaves]
        self.depth = depth
        self.n_nodes = len(node_feature)
        self.n_leaves = n_paths

    @property
    def paths(self) -> tuple[Path, ...]:
        """Every leaf's :class:`Path`, in depth-first (left/first branch first) order; built
        on first use (a large learned tree need not pay for its literals until asked)."""
        paths = self.__dict__.get("_paths")
        if paths is None:
            paths = self.__dict__["_paths"] = self._build_paths()
        return paths

    def path_rule(self, index: int, features: Sequence[str] | None = None) -> str:
        """Path ``index`` as a readable rule: ``IF Humidity = high AND Outlook in {rain,
        sunny} THEN play = no`` (``ALWAYS ...`` for a path without tests).

        Parameters
        ----------
        index : int
            The path (``self.paths[index]``, depth-first order).
        features : sequence of str, optional
            The features whose literals the rule holds, in that order (e.g. a PI-explanation
            of the path); default: every feature the path tests, in the order of first test.

        Raises
        ------
        IndexError
            ``index`` is not a path of the tree.
        """
        path = self.paths[index]
        order = path.features if features is None else \
            [self.features.index(name) for name in features]
        lits = [self.cells[f].describe(path.masks[f]) for f in order]
        label = to_python(path.label)
        then = f"{self.target} = {label}" if self.target else str(label)
        return f"IF {' AND '.join(lits)} THEN {then}" if lits else f"ALWAYS {then}"

    def merge_leaves(self) -> DecisionTree:
        """The same classifier with sibling leaves of one class merged, bottom-up.

        A threshold split whose two children are leaves of one class becomes that leaf; in a
        categorical split, the branches ending in leaves of one class become one branch with
        the union of their values (placed where the first of them was), and a split left
        with a single branch becomes its leaf. Merges cascade: a subtree predicting one
        class everywhere collapses to a leaf. This is the post-processing xdt's learners
        apply after growth (:func:`xdt.learn._growth.merge_table`; Souza et al., NeurIPS 2022,
        Section 6), for a tree from anywhere, e.g. an imported scikit-learn tree, which keeps
        such leaves whenever a split lowers the impurity without changing the majority.

        Every point gets the same class as before. No two sibling leaves of the result
        predict the same class, and paths through a merged leaf lose the test that told the
        siblings apart.

        Returns
        -------
        DecisionTree
            A new tree over the same features, classes, ``target`` and ``input_dtype``
            (``self`` unchanged); ``n_leaves`` tells how many leaves are left. A merged
            leaf keeps the leaves' ``value`` when they all had the same one, ``None``
            otherwise (a lone tree does not use it).

        Examples
        --------
        >>> from xdt.ir import DecisionTree, Feature, Leaf, ThresholdSplit
        >>> t = DecisionTree([Feature("x", "ordinal"), Feature("y", "ordinal")], ["a", "b"],
        ...                  ThresholdSplit("x", 1.0, Leaf("b"),
        ...                                 ThresholdSplit("y", 2.0, Leaf("a"), Leaf("a"))))
        >>> m = t.merge_leaves()
        >>> m.n_leaves, m.root.right
        (2, Leaf(label='a', value=None))
        """
        done: dict[int, Node] = {}  # id of an original node -> its merged form
        stack: list[tuple[Node, bool]] = [(self.root, False)]
        while stack:
            node, visited = stack.pop()
            if isinstance(node, Leaf):
                done[id(node)] = node
                continue
            kids = [node.left, node.right] if isinstance(node, ThresholdSplit) \
                else [b.node for b in node.branches]
            if not visited:
                stack.append((node, True))
                stack.extend((k, False) for k in kids)
                continue
            new = [done[id(k)] for k in kids]
            if isinstance(node, ThresholdSplit):
                a, b = new
                if isinstance(a, Leaf) and isinstance(b, Leaf) and a.label == b.label:
                    done[id(node)] = _merged_leaf([a, b])
                else:
                    done[id(node)] = ThresholdSplit(node.feature, node.threshold, a, b)
                continue
            groups: dict[object, list[int]] = {}
            for k, child in enumerate(new):
                if isinstance(child, Leaf):
                    groups.setdefault(child.label, []).append(k)
            branches: list[Branch] = []
            for k, (b, child) in enumerate(zip(node.branches, new, strict=True)):
                if not isinstance(child, Leaf):
                    branches.append(Branch(b.values, child))
                    continue
                same = groups[child.label]
                if same[0] != k:
                    continue  # merged into the first branch of its class
                values = tuple(v for j in same for v in node.branches[j].values)
                branches.append(Branch(values, _merged_leaf([new[j] for j in same])))
            done[id(node)] = branches[0].node if len(branches) == 1 \
                else CategoricalSplit(node.feature, tuple(branches))
        return DecisionTree(self.features, self.classes, done[id(self.root)],
                            target=self.target, input_dtype=self.input_dtype,
                            constraints=self.constraints)

    def with_constraints(self, constraints: Iterable | None) -> DecisionTree:
        """The same tree carrying the background ``constraints`` (constraint objects,
        texts or JSON entries, :mod:`xdt.ir._constraints`) instead of its own; ``None`` or
        ``[]`` for none. ``self`` is unchanged."""
        return DecisionTree(self.features, self.classes, self.root, target=self.target,
                            input_dtype=self.input_dtype, constraints=constraints)

    def _build_paths(self) -> tuple[Path, ...]:
        """The paths in depth-first order. A path's literals are a chain shared with its
        siblings, one record per edge linked to its parent's (:attr:`Path.term` and
        :attr:`Path.masks` are made from it on first access), so the cost is the size of
        the tree, not the sum of the path lengths (quadratic in the depth of a chain)."""
        paths: list[Path] = []
        node_of = np.flatnonzero(self._node_path >= 0).tolist()
        stack: list[tuple[Node, tuple | None]] = [(self.root, None)]
        while stack:
            node, chain = stack.pop()
            if isinstance(node, Leaf):
                i = len(paths)
                paths.append(Path(i, node_of[i], node.label, self._class_index[node.label],
                                  chain, None))
                continue
            fi = self.features.index(node.feature)
            edges = self._edges(node, fi, self.cells[fi])
            for k in range(len(edges) - 1, -1, -1):
                edge_mask, child = edges[k]
                stack.append((child, (chain, Literal(fi, edge_mask))))
        return tuple(paths)

    def __getstate__(self) -> dict:
        """The tree's fields without its caches (paths, walk lists: rebuilt on demand)."""
        state = dict(self.__dict__)
        state.pop("_paths", None)
        state.pop("_lists", None)
        return state

    def edges(self, node: ThresholdSplit | CategoricalSplit) -> list[tuple[int, Node]]:
        """The ``(cell mask, child)`` pairs of a split node of this tree, in branch order
        (``left`` then ``right`` for a threshold split): the cells of the node's feature that
        follow each edge."""
        fi = self.features.index(node.feature)
        return self._edges(node, fi, self.cells[fi])

    def _edges(self, node, fi: int, cells: Cells) -> list[tuple[int, Node]]:
        if isinstance(node, ThresholdSplit):
            j = bisect.bisect_left(cells._sorted, float(node.threshold))
            left = full_mask(j + 1)
            return [(left, node.left), (full_mask(cells.n_cells) & ~left, node.right)]
        return [(mask_of(cells.cell_of(v) for v in b.values), b.node) for b in node.branches]

    # ------------------------------------------------------------------ prediction
    def encode(self, X) -> np.ndarray:
        """Cells of the rows of ``X``.

        Parameters
        ----------
        X : array-like of shape (n, n_features), pandas DataFrame, list of dicts or Series,
            or one dict or Series
            Rows of feature values: arrays and sequences in feature order; DataFrames,
            dicts and Series by feature name, every feature present and other columns or
            keys (such as the target) ignored (see :mod:`xdt.ir._instances`).

        Returns
        -------
        numpy.ndarray of shape (n, n_features), int64

        Raises
        ------
        InstanceShapeError, MissingFeatureError, MissingValueError, UnknownCategoryError,
        ValueOutOfRangeError (infinite, or beyond float32's range for ``input_dtype``
        ``"float32"``), InstanceError
        """
        return encode_rows(self.features, self.cells, X)

    def leaf_paths(self, cells: np.ndarray) -> np.ndarray:
        """Index in :attr:`paths` of the leaf each row of ``cells`` (shape (n, F)) reaches."""
        cells = np.asarray(cells, dtype=np.int64)
        if len(cells) <= 16:  # a few rows: walk each, without numpy's per-call costs
            feature, offset, child, path, cut = self._walk_lists()
            out = []
            for row in cells.tolist():
                n = 0
                while feature[n] >= 0:
                    c = row[feature[n]]
                    n = child[offset[n] + (c if cut[n] < 0 else int(c > cut[n]))]
                out.append(path[n])
            return np.asarray(out, dtype=np.int64)
        cur = np.zeros(len(cells), dtype=np.int64)
        rows = np.arange(len(cells))
        for _ in range(self.depth):
            feat = self._node_feature[cur]
            inner = feat >= 0
            if not inner.any():
                break
            n = cur[inner]
            c = cells[rows[inner], feat[inner]]
            cut = self._node_cut[n]
            c = np.where(cut >= 0, c > cut, c)
            cur[inner] = self._child_flat[self._child_offset[n] + c]
        return self._node_path[cur]

    def _walk_lists(self) -> tuple[list[int], list[int], list[int], list[int], list[int]]:
        lists = self.__dict__.get("_lists")
        if lists is None:
            lists = self.__dict__["_lists"] = (
                self._node_feature.tolist(), self._child_offset.tolist(),
                self._child_flat.tolist(), self._node_path.tolist(),
                self._node_cut.tolist())
        return lists

    def implying_terms(self, c: int) -> list[TermMasks]:
        """Its consistent paths of class index ``c``, as ``(path.index, path.masks)``: the
        paths partition the cell space, so the tree predicts ``c`` exactly when one holds."""
        return [(p.index, p.masks) for p in self.paths if p.class_index == c and p.consistent]

    def describe(self) -> str:
        """One readable line: the kind of model and its sizes."""
        return (f"decision tree, {len(self.features)} features, {self.n_nodes} nodes, "
                f"depth {self.depth}, {len(self.classes)} classes{target_text(self)}")

    def predict_cells(self, cells: np.ndarray) -> np.ndarray:
        """Class index (position in :attr:`classes`) per row of ``cells`` (shape (n, F));
        shape (n,), int64. The same signature as :meth:`xdt.ir.DNF.predict_cells`."""
        return self._path_classes[self.leaf_paths(cells)]

    def predict_index(self, X) -> np.ndarray:
        """Class index (position in :attr:`classes`) per row of ``X``; shape (n,), int64."""
        return self.predict_cells(self.encode(X))

    def predict(self, X) -> np.ndarray:
        """Predicted class label per row of ``X`` (see :meth:`encode` for accepted forms).

        Returns
        -------
        numpy.ndarray of shape (n,), object dtype for string labels, int64 for int labels.
        """
        labels = np.asarray(self.classes, dtype=object)
        out = labels[self.predict_index(X)]
        if all(isinstance(c, int) for c in self.classes):
            return out.astype(np.int64)
        return out

    def __repr__(self) -> str:
        return (f"DecisionTree(features={len(self.features)}, classes={list(self.classes)}, "
                f"nodes={self.n_nodes}, depth={self.depth})")
