"""The intermediate representation (IR): features, cells, literals, terms and models.

Learners emit it, importers produce it, explainers consume it; see ``encodings/README.md``
for its JSON form ``xdt-model/1``.
"""

from xdt.ir.cells import CategoricalCells, IntervalCells
from xdt.ir.constraints import Forbidden, Implication, Ordering, parse_constraint
from xdt.ir.decision_list import DecisionList, ListRule
from xdt.ir.dnf import DNF, Condition, NestedKDNF
from xdt.ir.features import Feature, FeatureSpace
from xdt.ir.json_io import load_model, model_from_dict, model_to_dict, save_model
from xdt.ir.terms import Literal, Term
from xdt.ir.tree import Branch, CategoricalSplit, DecisionTree, Leaf, Path, ThresholdSplit

__all__ = [
    "Branch", "CategoricalCells", "CategoricalSplit", "Condition", "DNF", "DecisionList",
    "DecisionTree", "Feature", "FeatureSpace", "Forbidden", "Implication", "IntervalCells",
    "Leaf", "ListRule", "Literal", "NestedKDNF", "Ordering", "Path", "Term", "ThresholdSplit",
    "load_model", "parse_constraint", "model_from_dict", "model_to_dict", "save_model",
]
