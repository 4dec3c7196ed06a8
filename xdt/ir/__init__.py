"""The intermediate representation (IR): features, cells, literals, terms and models.

Learners emit it, importers produce it, explainers consume it; see ``encodings/README.md``
for its JSON form ``xdt-model/1``.
"""

from xdt.ir._cells import CategoricalCells, IntervalCells
from xdt.ir._constraints import Forbidden, Implication, Ordering, parse_constraint
from xdt.ir._decision_list import DecisionList, ListRule
from xdt.ir._dnf import DNF, Condition, NestedKDNF
from xdt.ir._ensemble import TreeEnsemble
from xdt.ir._features import Feature, FeatureSpace
from xdt.ir._json_io import load_model, model_from_dict, model_to_dict, save_model
from xdt.ir._protocol import PATHS, RULES, TERMS, TREES, Model, offers
from xdt.ir._terms import Literal, Term
from xdt.ir._tree import Branch, CategoricalSplit, DecisionTree, Leaf, Path, ThresholdSplit

__all__ = [
    "Branch", "CategoricalCells", "CategoricalSplit", "Condition", "DNF", "DecisionList",
    "DecisionTree", "Feature", "FeatureSpace", "Forbidden", "Implication", "IntervalCells",
    "Leaf", "ListRule", "Literal", "Model", "NestedKDNF", "Ordering", "PATHS", "Path", "RULES",
    "TERMS", "TREES", "Term", "ThresholdSplit", "TreeEnsemble", "offers",
    "load_model", "parse_constraint", "model_from_dict", "model_to_dict", "save_model",
]
