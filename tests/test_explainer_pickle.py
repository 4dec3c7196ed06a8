"""An Explainer can be pickled (e.g. sent to joblib or multiprocessing workers) and copied,
also after it has answered queries: the copy holds the model and the settings, and makes its
own compiled tables, caches and SAT solvers."""

from __future__ import annotations

import copy
import pickle

import pytest

import xdt
from xdt.ir import Branch, CategoricalSplit, DecisionTree, Feature, Leaf, ThresholdSplit

# x <= 0.5 and c = a -> A; x <= 0.5 and c in {b, c} -> B; x > 0.5 -> B
TREE = DecisionTree([Feature("x", "ordinal"), Feature("c", "categorical", ("a", "b", "c"))],
                    ["A", "B"],
                    ThresholdSplit("x", 0.5, CategoricalSplit("c", (
                        Branch(("a",), Leaf("A")), Branch(("b", "c"), Leaf("B")))), Leaf("B")))
X = {"x": 0.1, "c": "b"}


@pytest.mark.parametrize("engine", ["path", "sat"])
@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_a_used_explainer_can_be_pickled_and_copied(engine, how):
    ex = xdt.Explainer(TREE, engine=engine, solver="glucose4", certificates=False)
    assert ex.axp(X).rule == "IF c = b THEN B"  # caches, compiled tables, solvers in use
    other = pickle.loads(pickle.dumps(ex)) if how == "pickle" else copy.deepcopy(ex)
    assert (other.engine, other.solver, other.certificates) == (engine, "glucose4", False)
    assert other.axp(X).rule == "IF c = b THEN B"
    assert other.axp(X).certificate is None  # certificates=False travels too
    assert [c.features for c in other.all_cxps(X)] == [("c",)]
    assert other.all_cxps(X)[0].counterexample == {"x": 0.1, "c": "a"}
    assert ex.axp(X).rule == "IF c = b THEN B"  # the original still answers
