"""The learners of :func:`xdt.interop.fit_tree` by name, and their defaults.

Plain constants, kept apart from :mod:`xdt.interop._fit` so that the ``xdt`` command can show
them (``xdt fit --help``) without importing the learners, pandas or scikit-learn.
"""

from __future__ import annotations

__all__ = ["FACTOR_EXPL", "LEARNERS", "LEARNER_NAMES"]

#: The learners :func:`~xdt.interop.fit_tree` knows, by the names ``xdt fit --learner``
#: takes.
LEARNERS = ("cart", "ser-dt", "sklearn")

#: SER-DT's default ``factor_expl``: the value of Souza et al.'s Table 1 (NeurIPS 2022).
FACTOR_EXPL = 0.97

#: What each learner is, in a few words (shown by ``xdt fit`` and ``xdt demo``).
LEARNER_NAMES = {
    "cart": "CART (greedy Gini)",
    "ser-dt": "SER-DT (short explainable rules, Souza et al. NeurIPS 2022)",
    "sklearn": "scikit-learn CART (DecisionTreeClassifier on one-hot columns)",
}
