"""Hypothesis strategies for small tree ensembles built directly in the IR, with leaf values
drawn so that floating-point near-ties happen (0.1 + 0.2 != 0.3, margins that round to
exactly the threshold)."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from xdt.ir import Feature
from xdt.ir._ensemble import TreeEnsemble
from xdt.ir._tree import Branch, CategoricalSplit, DecisionTree, Leaf, ThresholdSplit

TRICKY = (0.0, 0.1, 0.2, 0.3, -0.1, -0.2, -0.3, 0.6, -0.6, 1.0 / 3.0, 2.0 / 3.0, 1.0,
          -1.0, 2.0 ** -24, -(2.0 ** -24), 1e-8, 0.7, -0.7, 16777216.0, -16777216.0)
"""Leaf values whose float sums are not associative, cancel exactly or to a rounding."""

PROBA = (0.0, 0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9, 1.0, 1.0 / 3.0, 2.0 / 3.0, 0.5, 0.25)

DYADIC = (0.0, 0.5, -0.5, 0.25, -0.25, 1.0, -1.0, 0.75)
"""Values whose float sums (a few of them) are exact: real and float arithmetic agree."""

THRESHOLDS = (0.5, 1.5, 2.5)


def _as(precision: str, v: float) -> float:
    return float(np.float32(v)) if precision == "float32" else float(v)


@st.composite
def features(draw) -> list[Feature]:
    n = draw(st.integers(2, 4))
    out = []
    for f in range(n):
        kind = draw(st.sampled_from(["ordinal", "categorical", "binary"]))
        if kind == "categorical":
            size = draw(st.integers(2, 4))
            out.append(Feature(f"c{f}", "categorical", tuple("rgby"[:size])))
        elif kind == "binary":
            out.append(Feature(f"b{f}", "binary"))
        else:
            out.append(Feature(f"x{f}", "ordinal"))
    return out


@st.composite
def nodes(draw, fs: list[Feature], classes: list, depth: int, leaf_value):
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        label = draw(st.sampled_from(classes))
        return Leaf(label, leaf_value(draw, label))
    feat = draw(st.sampled_from(fs))
    if feat.kind == "ordinal":
        return ThresholdSplit(feat.name, draw(st.sampled_from(THRESHOLDS)),
                              draw(nodes(fs, classes, depth - 1, leaf_value)),
                              draw(nodes(fs, classes, depth - 1, leaf_value)))
    domain = list(feat.domain)
    order = draw(st.permutations(domain))
    n = draw(st.integers(2, len(domain)))
    cuts = sorted(draw(st.lists(st.integers(1, len(domain) - 1), min_size=n - 1,
                                max_size=n - 1, unique=True))) if len(domain) > 2 else [1]
    parts = [tuple(order[a:b]) for a, b in zip([0] + cuts, cuts + [len(domain)], strict=True)]
    return CategoricalSplit(feat.name, tuple(
        Branch(p, draw(nodes(fs, classes, depth - 1, leaf_value))) for p in parts))


@st.composite
def ensembles(draw, combine: str | None = None, precision: str | None = None,
              values: tuple | None = None) -> TreeEnsemble:
    """1-6 trees of depth <= 3 over 2-4 mixed features, 2-4 classes, any combine rule;
    leaf values (and base margins) from ``values`` when given."""
    fs = draw(features())
    k = draw(st.integers(2, 4))
    classes = list(range(k)) if draw(st.booleans()) else ["lo", "mid", "hi", "top"][:k]
    combine = combine or draw(st.sampled_from(["vote", "proba", "margin"]))
    precision = precision or draw(st.sampled_from(["float32", "float64"]))
    n_scores = 1 if combine == "margin" and k == 2 else k
    pool = values or (PROBA if combine == "proba" else TRICKY)

    def leaf_value(d, label):
        if combine == "vote":
            return None
        return tuple(_as(precision, d(st.sampled_from(pool))) for _ in range(n_scores))

    n_trees = draw(st.integers(1, 6))
    trees = [DecisionTree(fs, classes, draw(nodes(fs, classes, 3, leaf_value)))
             for _ in range(n_trees)]
    kwargs: dict = {"precision": precision}
    if combine == "margin":
        kwargs["base"] = tuple(_as(precision, draw(st.sampled_from(values or TRICKY)))
                               for _ in range(n_scores))
        if n_scores == 1:
            below_zero = float(np.nextafter(np.dtype(precision).type(0), np.dtype(
                precision).type(-1)))
            kwargs["threshold"] = draw(st.sampled_from([0.0, below_zero, 0.3] if values is None
                                                       else [0.0, 0.5]))
    if combine == "proba":
        kwargs["divisor"] = float(draw(st.sampled_from([n_trees, 1, 3])))
    return TreeEnsemble(fs, classes, trees, combine, **kwargs)


def instance(draw, model: TreeEnsemble) -> dict:
    """A point of the model's cell space, as feature name -> value."""
    return {c.name: c.value(draw(st.integers(0, c.n_cells - 1))) for c in model.cells}
