"""xdt: formal explanations (AXp, CXp) of interpretable classifiers.

>>> import xdt
>>> model = xdt.load_model("model.json")            # doctest: +SKIP
>>> xdt.Explainer(model).axp({"Outlook": "overcast", "Humidity": "high"})  # doctest: +SKIP

The names below are imported on first use (PEP 562), so that ``import xdt`` -- and the
``xdt`` command's ``--help`` -- does not load numpy, pandas, PySAT or scikit-learn;
``from xdt import Explainer`` and ``xdt.Explainer`` work as usual.

The package also attaches the Jupyter views of the IR's models from the faces that draw
them, once a model's module has been loaded (:class:`_AttachViews`): the IR imports no wing.
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Any

from xdt import errors
from xdt._lazy import lazy_names
from xdt._version import __version__

if TYPE_CHECKING:  # what type checkers and IDEs see; at run time, __getattr__ below
    from collections.abc import Sequence
    from importlib.machinery import ModuleSpec
    from types import ModuleType

    from xdt.explain import Explainer, Explanation
    from xdt.explain.checks._crosscheck import crosscheck
    from xdt.interop._dl85 import from_dl85
    from xdt.interop._imodels import from_imodels
    from xdt.interop._lightgbm import from_lightgbm
    from xdt.interop._sklearn import from_sklearn
    from xdt.interop._streed import from_pystreed
    from xdt.interop._wittgenstein import from_wittgenstein
    from xdt.interop._xgboost import from_xgboost
    from xdt.ir import DecisionTree, Feature, load_model, save_model

#: Public name -> the module it comes from, imported on first access.
_LAZY = {
    "crosscheck": "xdt.explain.checks._crosscheck",
    "DecisionTree": "xdt.ir",
    "Explainer": "xdt.explain",
    "Explanation": "xdt.explain",
    "Feature": "xdt.ir",
    "from_dl85": "xdt.interop._dl85",
    "from_imodels": "xdt.interop._imodels",
    "from_lightgbm": "xdt.interop._lightgbm",
    "from_pystreed": "xdt.interop._streed",
    "from_sklearn": "xdt.interop._sklearn",
    "from_wittgenstein": "xdt.interop._wittgenstein",
    "from_xgboost": "xdt.interop._xgboost",
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


#: ``__getattr__`` imports the names of :data:`_LAZY` and the subpackages of :data:`_SUBMODULES`
#: on first use and keeps them as attributes of ``xdt``.
__getattr__, __dir__ = lazy_names(__name__, _LAZY, _SUBMODULES)


#: Module of the IR -> (the face's module whose ``attach(cls)`` gives the class ``cls`` its
#: Jupyter view, the name of ``cls``): attached as soon as the IR's module has been loaded.
_VIEWS = {"xdt.ir._tree": ("xdt.report._jupyter", "DecisionTree")}


class _AttachViews:
    """An import hook (first on :data:`sys.meta_path`) that attaches the Jupyter views of
    :data:`_VIEWS`: it finds a module of :data:`_VIEWS` as the import would (with the
    finders after it) and runs it with :class:`_ThenAttach`; every other import passes
    through untouched. ``import xdt`` thus loads no view, and a tree shows itself in
    Jupyter however it was imported."""

    def find_spec(self, name: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if name not in _VIEWS:
            return None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            spec = None if finder is self or find is None else find(name, path, target)
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = _ThenAttach(spec.loader, *_VIEWS[name])
                return spec
        return None


class _ThenAttach:
    """A module's loader, which then has ``attach`` of the face ``view`` give the module's
    class ``cls`` its Jupyter view. Everything else (``name``, ``get_source``,
    ``get_filename``...) is the loader's own."""

    def __init__(self, loader: Any, view: str, cls: str):
        self._loader, self._view, self._cls = loader, view, cls

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        importlib.import_module(self._view).attach(getattr(module, self._cls))

    def __getattr__(self, name: str) -> Any:
        loader = self.__dict__.get("_loader")  # not yet set while a copy is being made
        if loader is None:
            raise AttributeError(name)
        return getattr(loader, name)


if not any(type(f).__name__ == "_AttachViews" for f in sys.meta_path):  # once per process
    sys.meta_path.insert(0, _AttachViews())
