"""Build an IR tree bottom-up over an explicit stack, never by recursion.

The importers read trees stored as arrays of children (scikit-learn, XGBoost, LightGBM's
text model) or as nested objects (LightGBM's JSON dump); learned trees can be thousands of
levels deep (a chain), deeper than Python's recursion limit. :func:`build_tree` visits each
node once, children before their parent, and keeps only a stack as deep as the tree.

>>> from xdt.ir._tree import Leaf, ThresholdSplit
>>> left, right = {0: 1, 1: None, 2: None}, {0: 2}
>>> root = build_tree(0, lambda i: () if left[i] is None else (left[i], right[i]),
...                   lambda i, kids: Leaf(i) if not kids else ThresholdSplit("x", 0.5, *kids))
>>> root.left.label, root.right.label
(1, 2)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from xdt.ir._tree import Node

__all__ = ["build_tree"]

K = TypeVar("K")


def build_tree(root: K, children: Callable[[K], Sequence[K]],
               make: Callable[[K, list[Node]], Node]) -> Node:
    """The IR node of ``root``: ``make(key, built_children)`` of every node, children first.

    Parameters
    ----------
    root : object
        The key of the root (a node index, or a node object).
    children : callable
        ``children(key)``: the keys of the node's children, in order (empty for a leaf). It
        is called once per node, so it may also check the node.
    make : callable
        ``make(key, nodes)``: the IR node, given the IR nodes of its children in order.

    Returns
    -------
    Node

    Notes
    -----
    The keys must form a tree (each node reached once from the root): the callers check
    that first, as a cycle would never end. Time and memory are linear in the number of
    nodes.
    """
    built: list[Node] = []
    stack: list[tuple[K, Sequence[K] | None]] = [(root, None)]
    while stack:
        key, kids = stack.pop()
        if kids is None:
            kids = children(key)
            stack.append((key, kids))
            stack.extend((k, None) for k in reversed(kids))
        else:
            n = len(kids)
            nodes = built[len(built) - n:] if n else []
            del built[len(built) - n:]
            built.append(make(key, nodes))
    return built[0]
