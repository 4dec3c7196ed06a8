"""The small datasets shipped with xdt for its demo, tour and documentation."""

from __future__ import annotations

from importlib.resources import files

import pandas as pd

#: The shipped German credit data (a gzipped CSV inside the package).
GERMAN = files("xdt").joinpath("data/german.csv.gz")
#: The shipped Titanic passenger data (Kaggle's train.csv, 891 rows; ``xdt/data/README.md``).
TITANIC = files("xdt").joinpath("data/titanic.csv.gz")


def load_german() -> pd.DataFrame:
    """The German credit data shipped with xdt: 1000 rows, 21 features and ``class``.

    Returns
    -------
    pandas.DataFrame
        Shape (1000, 22): the 21 features (numeric and categorical columns) and the target
        ``class`` (``good`` / ``bad``), last.
    """
    with GERMAN.open("rb") as handle:
        return pd.read_csv(handle, compression="gzip")


def load_titanic() -> pd.DataFrame:
    """The Titanic passenger data shipped with xdt: 891 rows, 11 columns and ``Survived``
    (id, name, ticket and cabin columns as in Kaggle's file; 866 empty cells).

    Returns
    -------
    pandas.DataFrame
        Shape (891, 12), the columns of Kaggle's ``train.csv``.
    """
    with TITANIC.open("rb") as handle:
        return pd.read_csv(handle, compression="gzip")
