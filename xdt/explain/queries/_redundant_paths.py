"""Explanation-redundancy of decision-tree paths, decided in polynomial time.

A path of a decision tree is **explanation-redundant** when its literals are not a
(path-restricted) PI-explanation of its prediction: some feature tested on the path can take
any value and the remaining literals still entail the leaf's class. This module implements
the tree-walking procedures of Izza, Ignatiev & Marques-Silva, "On Explaining Decision
Trees" (arXiv:2010.11034), Section 4:

* Algorithm 1 ("deciding path redundancy") with Algorithm 2 (``ChkDown``, the inconsistent
  sub-path lookup) and its ``rec = 0`` filtering, for every path of the tree;
* the extraction of one PI-explanation per redundant path: features are made universal in
  reverse path order, each checked by ``ChkDown`` with ``rec = 1``.

Examples
--------
>>> from xdt.ir import DecisionTree, Feature, Leaf, ThresholdSplit
>>> t = DecisionTree([Feature("x", "ordinal"), Feature("y", "ordinal")], ["a", "b"],
...                  ThresholdSplit("x", 1.0, Leaf("a"),
...                                 ThresholdSplit("y", 1.0, Leaf("a"), Leaf("a"))))
>>> [(r.features, r.redundant, r.pi_explanation) for r in path_redundancy(t)][1]
(('x', 'y'), True, ())
"""

from __future__ import annotations

from dataclasses import dataclass

from xdt.errors import EngineNotAvailableError
from xdt.ir._cells import full_mask
from xdt.ir._protocol import PATHS, TERMS, offers
from xdt.ir._tree import Leaf, Node

__all__ = ["PathRedundancy", "path_redundancy"]


@dataclass(frozen=True)
class PathRedundancy:
    """The redundancy analysis of one tree path.

    Attributes
    ----------
    path : int
        Index of the path in ``tree.paths``.
    redundant : bool
        True when the path's literals are not a PI-explanation of its prediction.
    features : tuple of str
        Distinct features tested on the path, in order of first test.
    pi_explanation : tuple of str
        One path-restricted PI-explanation: a subset of :attr:`features`, in the same order;
        equal to :attr:`features` when the path is not redundant.
    n_literals : int
        Number of tests (literals) on the path; a feature tested twice counts twice.
    redundant_literals : int
        Literals on features not in :attr:`pi_explanation`.
    """

    path: int
    redundant: bool
    features: tuple[str, ...]
    pi_explanation: tuple[str, ...]
    n_literals: int
    redundant_literals: int

    @property
    def redundant_share(self) -> float:
        """``redundant_literals / n_literals`` (``0.0`` for a path without tests)."""
        return self.redundant_literals / self.n_literals if self.n_literals else 0.0


class _Walker:
    """The tree as flat tables, for the sub-path checks.

    Nodes are numbered in the tree's preorder (as ``DecisionTree`` numbers them, so a path's
    ``node`` is its leaf here). Per node: the tested feature (``-1`` for a leaf), the edges
    as ``(cell mask, child)`` pairs (from ``DecisionTree.edges``) and the bit
    set of the classes of the leaves below it (for ``HasPaths``).
    """

    def __init__(self, tree):
        self.tree = tree
        feature: list[int] = []
        edges: list[tuple[tuple[int, int], ...]] = []
        leaf_class: list[int] = []
        parent: list[int] = []
        # (node, parent number, index of this node's entry in the parent's edges list)
        stack: list[tuple[Node, int, int]] = [(tree.root, -1, 0)]
        pending: list[list[tuple[int, int]]] = []
        masks_of: list[list[int]] = []
        while stack:
            node, up, k = stack.pop()
            me = len(feature)
            parent.append(up)
            if up >= 0:
                pending[up][k] = (masks_of[up][k], me)
            if isinstance(node, Leaf):
                feature.append(-1)
                leaf_class.append(tree.classes.index(node.label))
                pending.append([])
                masks_of.append([])
                continue
            fi = tree.features.index(node.feature)
            out = tree.edges(node)
            feature.append(fi)
            leaf_class.append(-1)
            pending.append([(0, -1)] * len(out))
            masks_of.append([m for m, _ in out])
            for j in range(len(out) - 1, -1, -1):
                stack.append((out[j][1], me, j))
        for n in range(len(feature)):
            edges.append(tuple(pending[n]))
        below = [0] * len(feature)
        for n in range(len(feature) - 1, -1, -1):  # children are numbered after parents
            if feature[n] < 0:
                below[n] = 1 << leaf_class[n]
            else:
                for _, c in edges[n]:
                    below[n] |= below[c]
        self.feature = feature
        self.edges = edges
        self.below = below
        self.parent = parent
        self.n_nodes = len(feature)
        self.full = [full_mask(c.n_cells) for c in tree.cells]

    def path_nodes(self, leaf: int) -> list[int]:
        """Inner nodes from the root down to ``leaf`` (``PathNodes``)."""
        out = []
        n = self.parent[leaf]
        while n >= 0:
            out.append(n)
            n = self.parent[n]
        out.reverse()
        return out

    def chk_down(self, n: int, other: int, allowed: list[int], on_path: set[int],
                 rec: bool) -> bool:
        """Algorithm 2 (``ChkDown``): True when no consistent sub-path from node ``n``
        reaches a leaf whose class is in the bit set ``other``.

        ``allowed[g]`` is the cell set feature ``g`` may still take: the path's literal on a
        feature fixed to the path, everything left by the tests above for a universal
        feature (or one not on the path), narrowed by the sub-path's own tests as it goes
        down (so dead branches, e.g. ``x > 3.5`` below ``x <= 2.5``, are never followed).
        With ``rec`` false, children on the path are skipped (the filtering of Algorithm 1).
        """
        g = self.feature[n]
        a = allowed[g]
        below = self.below
        for mask, c in self.edges[n]:
            m = a & mask
            if not m:
                continue  # inconsistent branch
            if not rec and c in on_path:
                continue
            if not below[c] & other:
                continue  # HasPaths: no leaf of another class below
            if self.feature[c] < 0:
                return False
            allowed[g] = m
            ok = self.chk_down(c, other, allowed, on_path, rec)
            allowed[g] = a
            if not ok:
                return False
        return True

    def analyse(self, path) -> PathRedundancy:
        tree = self.tree
        nodes = self.path_nodes(path.node)
        names = tree.features.names
        feats = path.features
        other = ((1 << len(tree.classes)) - 1) & ~(1 << path.class_index)
        lits = len(path.term)
        if not feats:
            return PathRedundancy(path.index, False, (), (), lits, 0)
        # AggrFeatureNodes: per feature, its nodes on the path (root first), and the cell set
        # left to it by the path's tests above each of them
        aggr: dict[int, list[tuple[int, int]]] = {f: [] for f in feats}
        prefix = {f: self.full[f] for f in feats}
        lit_of = path.term.literals
        for depth, n in enumerate(nodes):
            f = self.feature[n]
            aggr[f].append((n, prefix[f]))
            prefix[f] &= lit_of[depth].cells
        fixed = list(self.full)
        for f, m in path.masks.items():
            fixed[f] = m
        on_path = set(nodes)
        on_path.add(path.node)

        # Algorithm 1: each feature in turn universal, ChkDown with rec = 0
        redundant = False
        for f in feats:
            red = True
            for n, above in aggr[f]:
                allowed = fixed[:]
                allowed[f] = above
                if not self.chk_down(n, other, allowed, on_path, False):
                    red = False
                    break
            if red:
                redundant = True
                break
        if not redundant:
            return PathRedundancy(path.index, False, tuple(names[f] for f in feats),
                                  tuple(names[f] for f in feats), lits, 0)

        # Extraction of one PI-explanation: features made universal in reverse order of
        # first test, each kept universal when ChkDown (rec = 1) finds no consistent sub-path
        # to another class. Features already universal are tested deeper (first tests
        # below f's), so the sub-paths from f's first node cover every deviation.
        universal: set[int] = set()
        for f in reversed(feats):
            trial = universal | {f}
            n, _ = aggr[f][0]
            allowed = fixed[:]
            for u in trial:
                allowed[u] = self.full[u]
            # the cells left to the universal features by the path's tests above n
            for depth, m in enumerate(nodes):
                if m == n:
                    break
                u = self.feature[m]
                if u in trial:
                    allowed[u] &= lit_of[depth].cells
            if self.chk_down(n, other, allowed, on_path, True):
                universal = trial
        keep = tuple(f for f in feats if f not in universal)
        dropped = sum(1 for lit in lit_of if lit.feature in universal)
        return PathRedundancy(path.index, True, tuple(names[f] for f in feats),
                              tuple(names[f] for f in keep), lits, dropped)


def path_redundancy(tree) -> list[PathRedundancy]:
    """Decide explanation-redundancy for every path of ``tree``; extract one PI-explanation
    of each redundant path.

    Algorithm 1 of Izza, Ignatiev & Marques-Silva, "On Explaining Decision Trees"
    (Section 4) with Algorithm 2 (``ChkDown``): for each path, each feature tested on it is
    made universal in turn (first-test order); every node of the path testing it
    (``AggrFeatureNodes``) starts a search of the sub-paths leaving the path there for a
    consistent one ending at another class (multi-class: any other class). A feature tested
    several times is declared redundant only when all its nodes pass. Other features keep
    the path's literal (the intersection of its tests, as cell sets: multi-value branches and
    ordinal thresholds alike); features off the path are free. With the ``rec = 0`` filtering
    the on-path children are skipped, so the off-path subtrees searched for different
    features are disjoint and each node is visited at most once per path.

    For a redundant path, one path-restricted PI-explanation is extracted by the paper's
    procedure: features are made universal one at a time in reverse path order (reverse
    order of first test), and one stays universal when ``ChkDown`` with ``rec = 1`` (all
    sub-paths, the on-path ones included, since features already made universal may now
    deviate below) finds no consistent sub-path to another class.

    A consistent sub-path is one whose tests intersect the cells still allowed to each
    feature, these being narrowed along the sub-path (and, for the universal feature, by the
    path's tests above the node): the result equals the AXp-based definition
    (:meth:`xdt.Explainer.path_is_redundant`, ``Explainer.all_axps(path_restricted=True)``).

    Parameters
    ----------
    tree : DecisionTree

    Returns
    -------
    list of PathRedundancy
        One entry per consistent (reachable) path, in ``tree.paths`` order; dead leaves,
        whose tests no point satisfies, are left out.

    Raises
    ------
    EngineNotAvailableError
        For a DNF or nested k-DNF (no paths), or any other object that is not a tree; for
        a tree with background constraints (ask :meth:`xdt.Explainer.path_is_redundant`
        of the SAT engine, which takes them into account).

    Notes
    -----
    Complexity: deciding one path is ``O(|T|)`` (each node visited at most once, a cell-set
    intersection per edge, cell sets as integers), so ``O(|T|^2)`` for the whole tree in the
    worst case, and far less in practice since only the subtrees that are consistent and
    hold another class are entered. Extracting a PI-explanation costs ``O(|T|)`` per feature,
    ``O(|T|^2)`` per redundant path, ``O(|T|^3)`` for the whole tree in the worst case.
    """
    if not offers(tree, PATHS):
        from xdt.explain._models import tree_only

        if offers(tree, TERMS):
            raise tree_only("path redundancy", "explain its predictions with xdt.Explainer "
                            "(each AXp lies inside a true term of the DNF or of its "
                            "complement)", tree)
        raise EngineNotAvailableError(
            f"path redundancy is defined for decision trees, not {type(tree).__name__}")
    from xdt.explain._models import constrained_refusal, is_constrained

    if is_constrained(tree):
        raise constrained_refusal(
            "path redundancy (Izza, Ignatiev & Marques-Silva's walk of the tree)", tree)
    walker = _Walker(tree)
    return [walker.analyse(p) for p in tree.paths if p.consistent]
