"""xdt: formal explanations (AXp, CXp) of interpretable classifiers.

>>> import xdt
>>> model = xdt.load_model("model.json")            # doctest: +SKIP
>>> xdt.Explainer(model).axp({"Outlook": "overcast", "Humidity": "high"})  # doctest: +SKIP

The names below are imported on first use (PEP 562), so that ``import xdt`` -- and the
``xdt`` command's ``--help`` -- does not load numpy, pandas, PySAT or scikit-learn;
``from xdt import Explainer`` and ``xdt.Explainer`` work as usual.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from xdt import errors
from xdt._version import __version__

if TYPE_CHECKING:  # what type checkers and IDEs see; at run time, __getattr__ below
    from xdt.explain import Explainer, Explanation
    from xdt.explain.checks.crosscheck import crosscheck
    from xdt.interop.dl85 import from_dl85
    from xdt.interop.imodels import from_imodels
    from xdt.interop.lightgbm import from_lightgbm
    from xdt.interop.sklearn import from_sklearn
    from xdt.interop.streed import from_pystreed
    from xdt.interop.wittgenstein import from_wittgenstein
    from xdt.interop.xgboost import from_xgboost
    from xdt.ir import DecisionTree, Feature, load_model, save_model

#: Public name -> the module it comes from, imported on first access.
_LAZY = {
    "crosscheck": "xdt.explain.checks.crosscheck",
    "DecisionTree": "xdt.ir",
    "Explainer": "xdt.explain",
    "Explanation": "xdt.explain",
    "Feature": "xdt.ir",
    "from_dl85": "xdt.interop.dl85",
    "from_imodels": "xdt.interop.imodels",
    "from_lightgbm": "xdt.interop.lightgbm",
    "from_pystreed": "xdt.interop.streed",
    "from_sklearn": "xdt.interop.sklearn",
    "from_wittgenstein": "xdt.interop.wittgenstein",
    "from_xgboost": "xdt.interop.xgboost",
    "load_model": "xdt.ir",
    "save_model": "xdt.ir",
}

#: Subpackages reachable as attributes, imported on first access (they import numpy, PySAT,
#: scikit-learn, networkx or Dask).
_SUBMODULES = ("cluster", "explain", "interop", "ir", "learn", "metrics", "plot", "report",
               "run")

__all__ = ["DecisionTree", "Explainer", "Explanation", "Feature", "crosscheck", "errors",
           "from_dl85", "from_imodels", "from_lightgbm", "from_pystreed", "from_sklearn",
           "from_wittgenstein", "from_xgboost",
           "load_model", "save_model", "__version__"]


def __getattr__(name: str) -> Any:
    """The public names of :data:`_LAZY` and the subpackages :data:`_SUBMODULES`, imported
    on first use and then kept as attributes of ``xdt``."""
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(f"xdt.{name}")
    else:
        raise AttributeError(f"module 'xdt' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__) | set(_SUBMODULES))
