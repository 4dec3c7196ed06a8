"""A supervised-clustering round's training rows the plain way: the reference of the views'
``training_frame`` (:mod:`xdt.cluster._supervised`), which read the table once per fit and
then take each round's rows of it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def training_frame(view, table: pd.DataFrame, rows: np.ndarray, y: np.ndarray) -> pd.DataFrame:
    """The rows of one round as the learner gets them: ``sub``, the table's rows ``rows``
    (bool, shape (n,)) with index 0..m-1, then ``view.refit_round(sub, y)`` with their labels
    ``y`` (int64 0/1, shape (rows.sum(),)), then ``view.transform(sub)``.

    ``table`` is the whole table the clusters are fitted on, as it was given.
    """
    sub = table.loc[rows].reset_index(drop=True)
    view.refit_round(sub, y)
    return view.transform(sub)
