"""Compiled growth of CART and SER-DT trees: the training columns laid out once per fit, the
growth kernel (:func:`xdt.learn._kernels.grow`) driven to the end, and the result as node
arrays (:class:`GrownTable`) that are merged and turned into the IR without a Python object
per node beside the IR's own.

The kernel picks CART's test (least split impurity, strictly below the node's) or SER-DT's
(Souza et al., NeurIPS 2022, Algorithm 1 with Section 6's rules) at each node; SER-DT's
three-way split (Algorithm 1, lines 6-8), which real data almost never needs, is computed
here by :func:`xdt.learn._serdt.three_way_split` on the node's rows, and the kernel resumes
with it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from xdt.ir._tree import Branch, CategoricalSplit, DecisionTree, Leaf, Node, ThresholdSplit
from xdt.learn import _kernels as K
from xdt.learn._data import TrainingData
from xdt.learn._kernels import (
    FEAT_BIN_OFFSET,
    FEAT_COLUMNS,
    FEAT_INDEX,
    FEAT_KIND,
    FEAT_N_BINS,
    FEAT_X,
    Columns,
)
from xdt.learn._splitter import Node as Rows
from xdt.learn._splitter import Plan, Split, TrainingRows, midpoint

#: Ordinal columns with at most this many distinct values are *binned*: scored from one
#: count pass per node instead of a sorted order (no partition work either).
LOW_CARD = 64


def _bin_dtype(top: int):
    for dtype in (np.uint8, np.uint16):
        if top <= np.iinfo(dtype).max:
            return dtype
    return np.int32


def prepare(data: TrainingData) -> Columns:
    """Lay out ``data`` for the growth kernel: each ordinal column sorted once (or binned when
    it has at most :data:`LOW_CARD` distinct values), categorical codes beside the bins."""
    X = data.ordinal
    if not (X.flags.c_contiguous or X.flags.f_contiguous):
        X = np.ascontiguousarray(X)
    tr = not X.flags.c_contiguous
    XK = (X.T if tr else X).view()   # C-ordered either way (see kernels._at), and read-only:
    XK.flags.writeable = False       # one compiled version, whether the caller's is or not
    n = data.n_rows
    n_features = len(data.features)
    feat = np.zeros((n_features, FEAT_COLUMNS), dtype=np.int64)
    feat[:, FEAT_X] = -1
    table = np.zeros((X.shape[1], LOW_CARD))
    counts = np.zeros(X.shape[1], dtype=np.int64)
    K.distinct_values(XK, tr, LOW_CARD, table, counts)
    distinct = {j: table[j, :c] for j, c in enumerate(counts.tolist()) if c > 0}
    sorted_cols = [j for j in range(X.shape[1]) if j not in distinct]
    binned: list[tuple[int, int, int]] = []   # (feature, size, ordinal column or -1)
    for j, f in enumerate(data.ordinal_features.tolist()):
        if j in distinct:
            binned.append((f, len(distinct[j]), j))
    sizes = [len(data.features[f].domain) for f in data.categorical_features.tolist()]
    for f, size in zip(data.categorical_features.tolist(), sizes, strict=True):
        binned.append((f, size, -1))
    binned.sort()
    top = max((size for _, size, _ in binned), default=1)
    codes = np.empty((n, len(binned)), dtype=_bin_dtype(top - 1))
    bin_values = np.zeros(sum(size for _, size, _ in binned), dtype=np.float64)
    cat_column = {f: j for j, f in enumerate(data.categorical_features.tolist())}
    offset = 0
    ordinal_bins = []
    for jb, (f, size, j) in enumerate(binned):
        if j >= 0:
            ordinal_bins.append((jb, j))
            bin_values[offset:offset + size] = distinct[j]
        else:
            codes[:, jb] = data.codes[:, cat_column[f]]
        feat[f, FEAT_KIND] = K.BINNED if j >= 0 else K.CATEGORICAL
        feat[f, FEAT_INDEX], feat[f, FEAT_X] = jb, j
        feat[f, FEAT_N_BINS], feat[f, FEAT_BIN_OFFSET] = size, offset
        offset += size
    if ordinal_bins:
        where, columns = (np.asarray(v, dtype=np.int64) for v in zip(*ordinal_bins, strict=True))
        if np.array_equal(where, np.arange(len(where))) and len(where) == codes.shape[1]:
            K.fill_bins(XK, tr, columns, table, counts, codes)
        else:
            part = np.empty((n, len(where)), dtype=codes.dtype)
            K.fill_bins(XK, tr, columns, table, counts, part)
            codes[:, where] = part
    orders = np.empty((len(sorted_cols), n), dtype=np.int32)
    for i, j in enumerate(sorted_cols):
        orders[i] = np.argsort(X[:, j])
        f = data.ordinal_features[j]
        feat[f, FEAT_KIND], feat[f, FEAT_INDEX], feat[f, FEAT_X] = K.SORTED, i, j
    return Columns(XK, tr, orders, codes, feat, bin_values, offset)


def grow_compiled(data: TrainingData, y: np.ndarray, weight: np.ndarray, n_classes: int,
                  criterion: str, min_samples_leaf: int, max_depth: int | None,
                  serdt: bool = False, factor_expl: float = 1.0,
                  wpm_weight: np.ndarray | None = None, slack: float = 0.0,
                  fallback=None) -> GrownTable:
    """Grow a CART (``serdt=False``) or SER-DT tree, as a :class:`GrownTable`.

    Parameters
    ----------
    data : TrainingData
    y : numpy.ndarray of shape (n,), int64
        Class number of each row.
    weight : numpy.ndarray of shape (n,), float64
        Positive sample weights (impurities, leaf weights).
    n_classes : int
    criterion : {"gini", "entropy"}
    min_samples_leaf : int
    max_depth : int or None
    serdt : bool
        SER-DT's rule (balanced tests, ``factor_expl``, the three-way fallback) instead of
        CART's.
    factor_expl : float
    wpm_weight : numpy.ndarray of shape (n,), float64, optional
        The weights of ``wpm`` (SER-DT's preprocessed weights; default ``weight``).
    slack : float
        Relative slack of the balanced-test comparison.
    fallback : callable, optional
        ``fallback(rows, node) -> Plan | None``: the three-way split of a SER-DT node
        with impurity-lowering tests but no balanced one (called with the
        :class:`~xdt.learn._splitter.TrainingRows` of the fit and the node's
        :class:`~xdt.learn._splitter.Node`).
    """
    cols = prepare(data)
    n = len(y)
    y = np.ascontiguousarray(y, dtype=np.int64)
    weight = np.ascontiguousarray(weight, dtype=np.float64)
    ww = weight if wpm_weight is None else np.ascontiguousarray(wpm_weight, dtype=np.float64)
    # every weight 1 (no sample weights): counts are weights, sums are exact integers
    unit = bool(np.all(weight == 1.0) and (ww is weight or np.array_equal(ww, weight)))
    targets = K.Targets(y, weight, ww, unit)
    nodes = np.full((256, K.N_INT), -1, dtype=np.int32)
    nodes_f = np.zeros((256, K.N_FLOAT))
    node_cw = np.zeros((256, n_classes))
    nodes[0, K.N_START], nodes[0, K.N_END], nodes[0, K.N_DEPTH] = 0, n, 0
    nodes[0, K.N_FORCED] = K.FORCED_NONE
    counters = np.zeros(3, dtype=np.int64)
    counters[K.C_STACK], counters[K.C_NODES] = 1, 1
    tree = K.Nodes(nodes, nodes_f, node_cw, np.zeros(64, dtype=np.int64), counters)
    bufs = K.Buffers(np.arange(n, dtype=np.int32), np.zeros(n, dtype=np.bool_),
                     np.empty(n, dtype=np.int32), np.zeros(cols.n_bins * n_classes),
                     np.zeros(cols.n_bins * n_classes), np.zeros(max(cols.n_bins, 1)))
    samples = bufs.samples
    # a limit beyond the rows is no limit (and numba's integers are 64-bit)
    depth = -1 if max_depth is None or max_depth >= n else int(max_depth)
    min_samples_leaf = min(int(min_samples_leaf), n + 1)
    rules = K.Rules(depth, int(min_samples_leaf), criterion == "entropy", bool(serdt),
                    float(factor_expl), float(slack))
    view = None
    while True:
        status = K.grow(cols, targets, rules, tree, bufs)
        if status == K.DONE:
            break
        if status == K.FULL:
            if counters[K.C_STACK] + 2 > len(tree.stack):
                tree = tree._replace(stack=np.concatenate([tree.stack,
                                                           np.zeros_like(tree.stack)]))
            if counters[K.C_NODES] + 2 <= len(nodes):
                continue
            # in place (realloc): no second copy of the tables while they grow
            grown = len(nodes) + len(nodes) // 2
            for table in (nodes, nodes_f, node_cw):
                table.resize((grown, table.shape[1]), refcheck=False)
            continue
        # a SER-DT node without a balanced test: Algorithm 1's three-way split
        if view is None:
            view = TrainingRows(data, y, weight, n_classes, int(min_samples_leaf), ww)
        node_id = int(counters[K.C_WAITING])
        plan = fallback(view, _node_rows(view, nodes, node_cw, samples, node_id))
        _force(nodes, nodes_f, node_id, plan, data)
    n_nodes = int(counters[K.C_NODES])
    return _as_table(nodes[:n_nodes], nodes_f[:n_nodes], node_cw[:n_nodes], cols)


def _node_rows(view: TrainingRows, nodes: np.ndarray, node_cw: np.ndarray,
               samples: np.ndarray, i: int) -> Rows:
    """The :class:`~xdt.learn._splitter.Node` of kernel node ``i``: its rows, sorted by each
    ordinal column, its class sums and the features tested above it."""
    s, e = int(nodes[i, K.N_START]), int(nodes[i, K.N_END])
    rows = samples[s:e].astype(np.intp)   # increasing row numbers: partitions are stable
    values = view.values[:, rows]
    order = rows[np.argsort(values, axis=1, kind="stable")] if len(values) else \
        np.empty((0, len(rows)), dtype=np.intp)
    path: set[int] = set()
    a = int(nodes[i, K.N_PARENT])
    while a >= 0:
        path.add(int(nodes[a, K.N_FEATURE]))
        a = int(nodes[a, K.N_PARENT])
    class_count = np.bincount(view.y[rows], minlength=view.k).astype(np.float64)
    class_weight = np.bincount(view.y[rows], view.weight[rows], minlength=view.k)
    return Rows(rows, order, class_weight, class_count, int(nodes[i, K.N_DEPTH]),
                frozenset(path), float(view.wpm_weight[rows].sum()))


def _force(nodes: np.ndarray, nodes_f: np.ndarray, i: int, plan: Plan | None,
           data: TrainingData) -> None:
    """Write a three-way split's plan (or a leaf, for ``None``) into kernel node ``i``."""
    if plan is None:
        nodes[i, K.N_FORCED] = K.FORCED_LEAF
        return
    nodes[i, K.N_FORCED] = K.FORCED_FALLBACK
    _write_split(plan.split, nodes, nodes_f, i, K.N_FORCED_FEATURE, K.N_FORCED_CATEGORY,
                 K.F_FORCED_T)
    if plan.then_right is not None:
        _write_split(plan.then_right, nodes, nodes_f, i, K.N_THEN_FEATURE,
                     K.N_THEN_CATEGORY, K.F_THEN_T)


def _write_split(split: Split, nodes, nodes_f, i, feature_col, category_col, t_col) -> None:
    nodes[i, feature_col] = split.feature
    nodes[i, category_col] = -1 if split.category is None else split.category
    nodes_f[i, t_col] = 0.0 if split.threshold is None else split.threshold


@dataclass
class Compiled:
    """A grown tree as the IR, with what the estimators keep per leaf (in
    ``tree.paths`` order): class weights of shape (n_leaves, k) and row counts."""

    tree: DecisionTree
    leaf_class_weight: np.ndarray
    leaf_rows: np.ndarray


@dataclass
class GrownTable:
    """A grown tree as arrays, one entry per node (node 0 the root; children are numbered
    after their parent): ``feature`` int32 (N,), the tested feature's position or -1 at a
    leaf; ``category`` int32 (N,), the value of a categorical test ``x = v`` (-1 for a
    threshold); ``threshold`` float64 (N,); ``left``, ``right`` int32 (N,), the children
    (``x <= t`` / ``x = v`` left); ``class_weight`` float64 (N, k); ``rows`` int32 (N,)."""

    feature: np.ndarray
    category: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    class_weight: np.ndarray
    rows: np.ndarray


def _as_table(nodes: np.ndarray, nodes_f: np.ndarray, node_cw: np.ndarray,
              cols: Columns) -> GrownTable:
    """The kernel's node tables as a :class:`GrownTable`, thresholds written as
    :func:`~xdt.learn._splitter.midpoint` writes them."""
    feature = nodes[:, K.N_FEATURE].copy()
    threshold = np.zeros(len(nodes))
    inner = np.flatnonzero((feature >= 0) & (cols.feat[np.maximum(feature, 0), FEAT_KIND]
                                             != K.CATEGORICAL))
    lo = nodes_f[inner, K.F_LO].tolist()
    hi = nodes_f[inner, K.F_HI].tolist()
    threshold[inner] = [midpoint(a, b) for a, b in zip(lo, hi, strict=True)]
    return GrownTable(feature, nodes[:, K.N_CATEGORY].copy(), threshold,
                      nodes[:, K.N_LEFT].copy(), nodes[:, K.N_RIGHT].copy(), node_cw.copy(),
                      nodes[:, K.N_ROWS].copy())


def merge_table(table: GrownTable) -> int:
    """Sibling-leaf merging on a :class:`GrownTable` (in place), the post-processing of Souza
    et al. (NeurIPS 2022, Section 6): whenever two sibling leaves predict the same class,
    they are deleted and their parent becomes a leaf -- repeated bottom-up, so a whole
    subtree predicting one class collapses. Returns the number of merges.

    The parent's majority class is then the children's common class (a class that is a
    majority in both halves is one in their union)."""
    label = table.class_weight.argmax(axis=1).astype(np.int32)
    return int(K.merge_leaves(table.feature, table.left, table.right, label))


def table_to_ir(table: GrownTable, features: list, classes: list,
                target: str | None = None) -> Compiled:
    """The IR :class:`~xdt.ir.DecisionTree` of a :class:`GrownTable`, with the leaf
    class weights and row counts (in ``tree.paths`` order), without a Python object per
    node beside the IR's own.

    Ordinal tests become :class:`ThresholdSplit`; a categorical test ``x = v`` becomes a
    :class:`CategoricalSplit` with branches ``{v}`` then the rest of the domain (for a binary
    feature, value 0's branch comes first, as in a 0/1 column split at 0.5)."""
    feature = table.feature.tolist()
    category = table.category.tolist()
    threshold = table.threshold.tolist()
    left = table.left.tolist()
    right = table.right.tolist()
    label = table.class_weight.argmax(axis=1).tolist()
    kinds = [f.kind for f in features]
    # the reachable nodes in preorder, children in the IR's branch order (a binary feature
    # lists value 0 first: its test x = 1 has its right child first)
    order: list[int] = []
    leaves: list[int] = []
    stack = [0]
    while stack:
        i = stack.pop()
        order.append(i)
        f = feature[i]
        if f < 0:
            leaves.append(i)
            continue
        if category[i] == 1 and kinds[f] == "binary":
            stack.extend((left[i], right[i]))
        else:
            stack.extend((right[i], left[i]))
    built: dict[int, Node] = {}
    for i in reversed(order):
        f = feature[i]
        if f < 0:
            built[i] = Leaf(classes[label[i]])
            continue
        feat = features[f]
        a, b = built.pop(left[i]), built.pop(right[i])
        if category[i] < 0:
            built[i] = ThresholdSplit(feat.name, threshold[i], a, b)
            continue
        value = feat.domain[category[i]]
        rest = tuple(v for v in feat.domain if v != value)
        branches = (Branch((value,), a), Branch(rest, b))
        built[i] = CategoricalSplit(feat.name, branches[::-1] if kinds[f] == "binary"
                                    and category[i] == 1 else branches)
    tree = DecisionTree(features, classes, built[0], target=target)
    at = np.asarray(leaves, dtype=np.int64)
    return Compiled(tree, table.class_weight[at].reshape(len(at), -1),
                    table.rows[at].astype(np.int64))
