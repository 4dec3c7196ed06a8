"""Greedy top-down growth over the numpy splitter, sibling-leaf merging on the grown nodes,
and conversion to the IR: the reference of the compiled growth (:mod:`xdt.learn._growth`,
whose :func:`~xdt.learn._growth.merge_table` and :func:`~xdt.learn._growth.table_to_ir` do the
same on the kernel's node tables).

:func:`grow` is shared by the reference learners; what differs between them is the *rule*
that picks a node's test (:class:`SplitRule`). A rule returns a
:class:`~xdt.learn._splitter.Plan`: the node's test and, optionally, a test forced on its
right child (SER-DT's three-way split is two binary tests on one feature, Souza et al.,
NeurIPS 2022, Algorithm 1, line 8).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from xdt.ir._tree import Branch, CategoricalSplit, DecisionTree, Leaf, Node, ThresholdSplit
from xdt.learn._growth import Compiled
from xdt.learn._splitter import Node as Rows
from xdt.learn._splitter import Plan, Split

from .splitter import Splitter


class SplitRule(Protocol):
    """Picks a node's test; ``None`` makes the node a leaf."""

    def choose(self, splitter: Splitter, node: Rows) -> Plan | None:
        """The node's test (and an optional test forced on its right child), or ``None``
        to make the node a leaf."""
        ...


@dataclass
class Grown:
    """A node of a grown tree: its rows' class weights and sizes, and its test/children."""

    class_weight: np.ndarray
    n_rows: int
    depth: int
    split: Split | None = None
    children: list[Grown] = field(default_factory=list)

    @property
    def is_leaf(self) -> bool:
        """Whether the node has no test."""
        return self.split is None

    @property
    def label(self) -> int:
        """The majority class (by weight); the first one on ties, as scikit-learn."""
        return int(np.argmax(self.class_weight))


def _pure(node: Rows) -> bool:
    return int(np.count_nonzero(node.class_weight)) <= 1


def grow(splitter: Splitter, rule: SplitRule, max_depth: int | None,
         progress=None) -> Grown:
    """Grow a tree top-down from the root, depth first.

    A node becomes a leaf when it is pure, at ``max_depth``, too small to split under
    ``min_samples_leaf``, or when the rule returns ``None``. ``progress``, when given, is
    called with each node's row count as the node is finished (for a progress bar).
    """
    limit = np.inf if max_depth is None else max_depth
    root_rows = splitter.root()
    root = Grown(root_rows.class_weight, root_rows.size, 0)
    stack: list[tuple[Rows, Grown, Split | None]] = [(root_rows, root, None)]
    while stack:
        rows, out, forced = stack.pop()
        splittable = (rows.depth < limit and not _pure(rows)
                      and rows.size >= 2 * max(1, splitter.min_samples_leaf))
        plan = None
        if splittable:
            plan = Plan(forced) if forced is not None else rule.choose(splitter, rows)
        if plan is None:
            if progress is not None:
                progress(rows.size)
            continue
        left, right = splitter.partition(rows, plan.split)
        out.split = plan.split
        out.children = [Grown(left.class_weight, left.size, left.depth),
                        Grown(right.class_weight, right.size, right.depth)]
        then_right = plan.then_right if _usable(splitter, right, plan.then_right) else None
        stack.append((right, out.children[1], then_right))
        stack.append((left, out.children[0], None))
    return root


def _usable(splitter: Splitter, node: Rows, split: Split | None) -> bool:
    """Whether a forced test really splits ``node`` (rows on both sides, enough of them)."""
    if split is None:
        return False
    n_left = int(splitter.goes_left(node, split).sum())
    msl = max(1, splitter.min_samples_leaf)
    return n_left >= msl and node.size - n_left >= msl


def merge_leaves(node: Grown) -> int:
    """Post-processing of Souza et al. (NeurIPS 2022, Section 6): whenever two sibling leaves
    predict the same class, delete them and make their parent a leaf — repeated bottom-up,
    so a whole subtree predicting one class collapses. Returns the number of merges.

    The parent's majority class is then the children's common class (a class that is a
    majority in both halves is one in their union).
    """
    merged = 0
    stack: list[tuple[Grown, bool]] = [(node, False)]
    while stack:
        cur, visited = stack.pop()
        if cur.is_leaf:
            continue
        if not visited:
            stack.append((cur, True))
            stack.extend((c, False) for c in cur.children)
            continue
        a, b = cur.children
        if a.is_leaf and b.is_leaf and a.label == b.label:
            cur.split = None
            cur.children = []
            merged += 1
    return merged


def to_ir(root: Grown, features: list, classes: list, target: str | None = None
          ) -> Compiled:
    """The IR :class:`~xdt.ir._tree.DecisionTree` of a grown tree.

    Ordinal tests become :class:`ThresholdSplit`; a categorical test ``x = v`` becomes a
    :class:`CategoricalSplit` with branches ``{v}`` then the rest of the domain (for a binary
    feature, value 0's branch comes first, as in a 0/1 column split at 0.5).
    """
    leaves: list[Grown] = []
    built: dict[int, Node] = {}

    def flipped(g: Grown) -> bool:
        """Whether the IR lists the right child first (binary feature: value 0 first)."""
        s = g.split
        return s is not None and s.category == 1 and features[s.feature].kind == "binary"

    # iterative post-order (trees without max_depth can be deeper than Python's stack);
    # children are visited in branch order, so leaves are listed in ``tree.paths`` order
    stack: list[tuple[Grown, bool]] = [(root, False)]
    while stack:
        g, done = stack.pop()
        if g.is_leaf:
            leaves.append(g)
            built[id(g)] = Leaf(classes[g.label])
            continue
        if not done:
            stack.append((g, True))
            in_order = g.children[::-1] if flipped(g) else g.children
            stack.extend((c, False) for c in reversed(in_order))
            continue
        s = g.split
        assert s is not None
        feat = features[s.feature]
        left, right = (built.pop(id(c)) for c in g.children)
        if s.threshold is not None:
            built[id(g)] = ThresholdSplit(feat.name, float(s.threshold), left, right)
            continue
        value = feat.domain[s.category]
        rest = tuple(v for v in feat.domain if v != value)
        branches = (Branch((value,), left), Branch(rest, right))
        built[id(g)] = CategoricalSplit(feat.name, branches[::-1] if flipped(g) else branches)
    ir_root = built[id(root)]
    tree = DecisionTree(features, classes, ir_root, target=target)
    weights = np.array([g.class_weight for g in leaves]).reshape(len(leaves), -1)
    rows = np.array([g.n_rows for g in leaves], dtype=np.int64)
    return Compiled(tree, weights, rows)
