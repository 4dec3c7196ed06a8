"""CART and SER-DT grown by the numpy splitter (:mod:`reference.splitter`) and the greedy
growth of :mod:`reference.grow`, node by node in Python: the trees the compiled growth kernel
(:mod:`xdt.learn._growth`) must grow.

:class:`ReferenceCART` and :class:`ReferenceSERDT` are the package's learners with one step
replaced, :meth:`~xdt.learn._base.TreeClassifierBase._grow`: the data they read, their
parameters, their checks and their fitted attributes are the package's own, so a test fits
both and compares the trees, leaf statistics, merges and three-way splits.
"""

from __future__ import annotations

import numpy as np

from xdt.learn import CARTClassifier, SERDTClassifier
from xdt.learn._criteria import wpm
from xdt.learn._growth import Compiled
from xdt.learn._serdt import BALANCE_SLACK, three_way_split
from xdt.learn._splitter import TIE, Node, Plan

from .grow import SplitRule, grow, merge_leaves, to_ir
from .splitter import Block, Splitter


class BestImpurity:
    """CART's rule: the test of least split impurity, if it is strictly below the node's."""

    def choose(self, splitter: Splitter, node: Node) -> Plan | None:
        parent = splitter.impurity(node)

        def score(block: Block, _node: Node) -> np.ndarray:
            return np.where(block.impurity < parent - TIE, block.impurity, np.inf)

        split = splitter.best(node, score)
        return None if split is None else Plan(split)


class SerdtRule:
    """SER-DT's choice at one node (Souza et al., NeurIPS 2022, Algorithm 1, with Section 6's
    selection and stopping rules); counts its three-way splits in ``n_fallback``."""

    def __init__(self, factor_expl: float):
        self.factor_expl = factor_expl
        self.n_fallback = 0

    def choose(self, splitter: Splitter, node: Node) -> Plan | None:
        parent = splitter.impurity(node)
        half = 0.5 * float(wpm(node.class_count, node.wpm_total)) * (1.0 + BALANCE_SLACK)
        on_path = np.zeros(len(splitter.data.features), dtype=bool)
        on_path[list(node.path_features)] = True
        lowers = False

        def score(block: Block, _node: Node) -> np.ndarray:
            nonlocal lowers
            decreasing = block.impurity < parent - TIE
            lowers = lowers or bool((decreasing & block.valid).any())
            assert block.wpm_left is not None and block.wpm_right is not None
            balanced = np.maximum(block.wpm_left, block.wpm_right) <= half
            factor = np.where(on_path[block.features], self.factor_expl, 1.0)[:, None]
            with np.errstate(invalid="ignore"):   # 0 * inf on padding entries
                return np.where(decreasing & balanced, factor * block.impurity, np.inf)

        split = splitter.best(node, score)
        if split is not None:
            return Plan(split)
        if not lowers:  # Section 6: no test lowers the Gini impurity -> leaf
            return None
        plan = three_way_split(splitter, node)
        if plan is not None:
            self.n_fallback += 1
        return plan


def grow_by_rule(learner: CARTClassifier | SERDTClassifier, rule: SplitRule, data,
                 codes: np.ndarray, weight: np.ndarray, n_classes: int, ir_classes: list,
                 target: str | None, wpm_weight: np.ndarray | None = None) -> Compiled:
    """``learner``'s tree grown by the numpy splitter and ``rule``, merged (sets the
    learner's ``n_merged_``) and as the IR."""
    splitter = Splitter(data, codes, weight, n_classes, learner.criterion,
                        int(learner.min_samples_leaf), with_wpm=wpm_weight is not None,
                        wpm_weight=wpm_weight)
    grown = grow(splitter, rule, learner.max_depth)
    learner.n_merged_ = merge_leaves(grown) if learner.merge_leaves else 0
    return to_ir(grown, data.features, ir_classes, target=target)


class ReferenceCART(CARTClassifier):
    """:class:`~xdt.learn.CARTClassifier` grown by the numpy splitter."""

    def _grow(self, data, codes, weight, n_classes, ir_classes, target) -> Compiled:
        return grow_by_rule(self, BestImpurity(), data, codes, weight, n_classes, ir_classes,
                            target)


class ReferenceSERDT(SERDTClassifier):
    """:class:`~xdt.learn.SERDTClassifier` grown by the numpy splitter."""

    def _grow(self, data, codes, weight, n_classes, ir_classes, target) -> Compiled:
        rule = SerdtRule(float(self.factor_expl))
        compiled = grow_by_rule(self, rule, data, codes, weight, n_classes, ir_classes,
                                target, wpm_weight=self._wpm_weights(weight))
        self.n_fallback_splits_ = rule.n_fallback
        return compiled
