"""Importers into the IR and the reading of tables.

Models of scikit-learn, XGBoost, LightGBM, the optimal trees of STreeD and DL8.5, and the rule
lists and rule sets of imodels and wittgenstein (RIPPER, IREP)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdt._lazy import lazy_names

if TYPE_CHECKING:  # what type checkers and the API reference see; at run time, lazy_names
    from xdt.interop._datasets import load_german, load_titanic
    from xdt.interop._dl85 import from_dl85
    from xdt.interop._fit import FitResult, fit_sklearn_tree, fit_tree, split_rows
    from xdt.interop._imodels import from_imodels
    from xdt.interop._lightgbm import from_lightgbm
    from xdt.interop._sklearn import from_sklearn
    from xdt.interop._streed import from_pystreed
    from xdt.interop._tabular import TabularEncoder
    from xdt.interop._wittgenstein import from_wittgenstein
    from xdt.interop._xgboost import from_xgboost

#: Public name -> the module it comes from, imported on first access (each importer loads its
#: library only when called).
_WHERE = {
    "FitResult": "xdt.interop._fit",
    "TabularEncoder": "xdt.interop._tabular",
    "fit_sklearn_tree": "xdt.interop._fit",
    "fit_tree": "xdt.interop._fit",
    "from_dl85": "xdt.interop._dl85",
    "load_german": "xdt.interop._datasets",
    "load_titanic": "xdt.interop._datasets",
    "from_imodels": "xdt.interop._imodels",
    "from_lightgbm": "xdt.interop._lightgbm",
    "from_pystreed": "xdt.interop._streed",
    "from_sklearn": "xdt.interop._sklearn",
    "from_wittgenstein": "xdt.interop._wittgenstein",
    "from_xgboost": "xdt.interop._xgboost",
    "split_rows": "xdt.interop._fit",
}

__all__ = [
    "FitResult", "TabularEncoder", "fit_sklearn_tree", "fit_tree", "from_dl85", "from_imodels",
    "from_lightgbm", "from_pystreed", "from_sklearn", "from_wittgenstein", "from_xgboost",
    "load_german", "load_titanic", "split_rows",
]

__getattr__, __dir__ = lazy_names(__name__, _WHERE)
