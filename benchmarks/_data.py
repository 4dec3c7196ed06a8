"""Loading the datasets of ../shared/datasets for the benchmark scripts (not a benchmark).

``load(name)`` reads one dataset named in ``MANIFEST.csv`` into a :class:`Dataset`: the
feature columns ``X`` (a DataFrame), the labels ``y`` (the last column) and a log of what
was done to the file on the way in:

* rows whose label is missing are dropped (poker-hand has two such corrupt lines);
* integral float labels become ints (a label column with NaN is read as floats);
* columns that leak the label are dropped (:data:`LEAKS`, e.g. collins' ``Genre``);
* the categorical columns — every non-numeric column (strings such as audit-risk's
  ``LOCATION_ID``, which is numeric-looking but has a few codes like ``LOHARU``) and the
  integer-coded nominal columns listed in :data:`CATEGORICAL` — become pandas ``category``
  columns of *strings* (``1`` becomes ``"1"``), whose categories are all the values in the
  file, so a learner can see the whole domain even when a value is absent from its training
  rows. Missing cells stay missing.

``split`` makes the 70/30 train/test split (stratified when every class allows it, as
``xdt fit`` does), ``impute`` fills missing cells with the training median (numeric) or
mode (categorical), and ``for_encoder`` turns the category columns into plain object
columns for :class:`xdt.interop._tabular.TabularEncoder` (one-hot encoding for scikit-learn).

    from _data import load, split, impute
    ds = load("audit-risk")
    X_train, X_test, y_train, y_test, stratified = split(ds, seed=0)
    X_train, X_test, n_imputed = impute(X_train, X_test)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from xdt.interop._fit import split_rows

DATASETS = Path(__file__).resolve().parent.parent.parent / "shared" / "datasets"

# Integer-coded nominal columns, by dataset (non-numeric columns are categorical anyway).
# The counts match MANIFEST.csv's feature_kinds; UCI's descriptions name the columns.
CATEGORICAL: dict[str, list[str]] = {
    "default-credit-card": ["EDUCATION", "MARRIAGE"],                # SEX is binary (1/2)
    "online-shoppers": ["Month", "OperatingSystems", "Browser", "Region", "TrafficType"],
    "poker-hand": [f"{kind}{i}" for i in range(1, 6) for kind in ("S", "C")],  # suit, rank
}
# Columns that give the label away, by dataset, with the reason.
LEAKS: dict[str, dict[str, str]] = {
    "collins": {"Genre": "equal to the label plus one",
                "Counter": "a row counter that follows the label order: correlation 0.98"},
}


@dataclass
class Dataset:
    """One dataset, ready for a learner (see the module docstring).

    Attributes
    ----------
    name : str
        The MANIFEST name.
    X : pandas.DataFrame
        Feature columns; categorical ones are ``category`` columns of strings.
    y : pandas.Series
        Labels (the file's last column), no missing values.
    categorical : list of str
        The categorical columns of ``X``.
    notes : list of str
        What was done to the file (dropped rows and columns, missing cells left to impute).
    """

    name: str
    X: pd.DataFrame
    y: pd.Series
    categorical: list[str]
    notes: list[str] = field(default_factory=list)

    @property
    def n_missing(self) -> int:
        """Missing feature cells (to impute before fitting)."""
        return int(self.X.isna().sum().sum())


def manifest() -> pd.DataFrame:
    """MANIFEST.csv of ../shared/datasets (one row per file)."""
    return pd.read_csv(DATASETS / "MANIFEST.csv")


def paper_entries(paper: str) -> pd.DataFrame:
    """MANIFEST rows whose ``paper`` column mentions ``paper`` (case-insensitive)."""
    m = manifest()
    keep = m["paper"].fillna("").str.contains(paper, case=False, regex=False)
    return m[keep].reset_index(drop=True)


def _code(v: object) -> object:
    """A category value as a string (``1.0`` -> ``"1"``); missing stays missing."""
    if pd.isna(v):
        return np.nan
    if isinstance(v, float | np.floating) and float(v).is_integer():
        return str(int(v))
    return str(v)


def _order(v: str) -> tuple:
    return (0, int(v), "") if v.lstrip("-").isdigit() else (1, 0, v)


def load(name: str, drop_leaks: bool = True, nominal: bool = True) -> Dataset:
    """Read dataset ``name`` of MANIFEST.csv (the label is the last column).

    ``nominal=False`` keeps the integer-coded columns of :data:`CATEGORICAL` as numbers
    (ordinal features); non-numeric columns are categorical either way.

    Raises
    ------
    SystemExit
        ``name`` is not in MANIFEST.csv, or its file is missing.
    """
    m = manifest()
    rows = m[m["name"] == name]
    if rows.empty:
        raise SystemExit(f"no dataset {name!r} in {DATASETS / 'MANIFEST.csv'}")
    entry = rows.iloc[0]
    path = DATASETS / entry["file"]
    if not path.exists():
        raise SystemExit(f"{path} is missing")
    notes_text = entry["notes"] if isinstance(entry["notes"], str) else ""
    if "keep_default_na=False" in notes_text:
        frame = pd.read_csv(path, keep_default_na=False, na_values=[""])
    else:
        frame = pd.read_csv(path)
    target = frame.columns[-1]
    notes: list[str] = []
    bad = frame[target].isna()
    if bad.any():
        frame = frame[~bad].reset_index(drop=True)
        notes.append(f"dropped {int(bad.sum())} row(s) without a label")
    y = frame[target]
    if pd.api.types.is_float_dtype(y) and np.all(np.mod(y.to_numpy(), 1) == 0):
        y = y.astype(np.int64)
    X = frame.drop(columns=[target])
    if drop_leaks and name in LEAKS:
        for col, why in LEAKS[name].items():
            X = X.drop(columns=[col])
            notes.append(f"dropped column {col} ({why})")
    nominal_columns = CATEGORICAL.get(name, []) if nominal else []
    categorical = [c for c in X.columns if c in nominal_columns
                   or not (pd.api.types.is_numeric_dtype(X[c])
                           or pd.api.types.is_bool_dtype(X[c]))]
    for c in categorical:
        values = X[c].map(_code)
        domain = sorted(values.dropna().unique(), key=_order)
        X[c] = pd.Categorical(values, categories=domain)
    n_missing = int(X.isna().sum().sum())
    if n_missing:
        cols = [c for c in X.columns if X[c].isna().any()]
        notes.append(f"{n_missing} missing cell(s) in {len(cols)} column(s), imputed per split")
    return Dataset(name, X, y.rename(str(target)), categorical, notes)


def split(ds: Dataset, seed: int, test_size: float = 0.3
          ) -> tuple[pd.DataFrame, pd.DataFrame, pd.Series, pd.Series, bool]:
    """``(X_train, X_test, y_train, y_test, stratified)``: ``xdt fit``'s split (stratified
    by label when every class has enough rows)."""
    label = "__label__"
    frame = ds.X.assign(**{label: ds.y.to_numpy()})
    train, test, stratified = split_rows(frame, label, test_size, seed)
    return (train.drop(columns=[label]), test.drop(columns=[label]), train[label],
            test[label], stratified)


def impute(X_train: pd.DataFrame, X_test: pd.DataFrame
           ) -> tuple[pd.DataFrame, pd.DataFrame, int]:
    """Fill missing cells of both frames with the *training* median (numeric columns) or
    mode (categorical columns); returns the frames and the number of cells filled.

    A column with no training value at all is filled with 0 (numeric) or its first category.
    """
    n = int(X_train.isna().sum().sum() + X_test.isna().sum().sum())
    if n == 0:
        return X_train, X_test, 0
    fill: dict[str, object] = {}
    for c in X_train.columns:
        if not (X_train[c].isna().any() or X_test[c].isna().any()):
            continue
        col = X_train[c]
        if isinstance(col.dtype, pd.CategoricalDtype):
            mode = col.mode()
            fill[c] = mode.iloc[0] if len(mode) else col.cat.categories[0]
        else:
            med = col.median()
            fill[c] = 0.0 if pd.isna(med) else med
    return X_train.fillna(fill), X_test.fillna(fill), n


def for_encoder(X: pd.DataFrame) -> pd.DataFrame:
    """``X`` with its category columns as object columns (what TabularEncoder reads)."""
    cats = {c: object for c in X.columns if isinstance(X[c].dtype, pd.CategoricalDtype)}
    return X.astype(cats) if cats else X


def markdown(frame: pd.DataFrame) -> str:
    """A DataFrame as a Markdown table (no index)."""
    cols = [str(c) for c in frame.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(str(v) for v in row) + " |" for row in frame.itertuples(False)]
    return "\n".join(lines)


def show(title: str, frame: pd.DataFrame, md: bool) -> None:
    """Print ``title`` and ``frame``, as Markdown when ``md``."""
    print(f"\n{title}\n")
    print(markdown(frame) if md else frame.to_string(index=False))
