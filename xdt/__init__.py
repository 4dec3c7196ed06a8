"""xdt: formal explanations (AXp, CXp) of interpretable classifiers.

>>> import xdt
>>> model = xdt.load_model("model.json")            # doctest: +SKIP
>>> xdt.Explainer(model).axp({"Outlook": "overcast", "Humidity": "high"})  # doctest: +SKIP
"""

from importlib.metadata import PackageNotFoundError, version

from xdt import errors
from xdt.crosscheck import crosscheck
from xdt.explain import Explainer, Explanation
from xdt.interop.sklearn import from_sklearn
from xdt.ir import DecisionTree, Feature, load_model, save_model

try:
    __version__ = version("xdt")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0+unknown"

_SUBMODULES = ("batch", "cluster", "learn", "metrics")


def __getattr__(name: str):
    """``xdt.learn``, ``xdt.metrics``, ``xdt.cluster`` and ``xdt.batch`` on first use
    (they import scikit-learn, networkx or Dask, which plain explaining does not need)."""
    if name in _SUBMODULES:
        import importlib

        return importlib.import_module(f"xdt.{name}")
    raise AttributeError(f"module 'xdt' has no attribute {name!r}")


__all__ = ["DecisionTree", "Explainer", "Explanation", "Feature", "crosscheck", "errors",
           "from_sklearn", "load_model", "save_model", "__version__"]
