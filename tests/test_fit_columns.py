"""Id and name columns in ``xdt fit`` and :func:`xdt.interop._fit.fit_tree`: dropped by
default with the reason, ``keep`` / ``drop`` (``--keep`` / ``--drop``) to decide by hand; the
one test of :func:`xdt.interop._columns.id_column_reason` that ``xdt cluster`` uses too."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from conftest import DATASETS, require_shared

import xdt
from xdt.cli import main
from xdt.cluster._preprocess import Preprocessor
from xdt.errors import DataError, MissingValueError
from xdt.interop._columns import ID_MIN_DISTINCT_SHARE, ID_MIN_OWN_VALUES, id_column_reason
from xdt.interop._fit import DROPPED_AS_ASKED, fit_tree


def _people(n: int = 40) -> pd.DataFrame:
    """A row id with gaps that predicts the class perfectly (the first half is 'no'), a name
    per row, a ticket code shared by the last 10 rows only, and two honest features."""
    ids = np.arange(n) * 3 + 7                                       # distinct, not consecutive
    return pd.DataFrame({
        "PassengerId": ids,
        "Name": [f"Person {i}" for i in range(n)],
        "Ticket": [f"T{i}" for i in range(n - 10)] + ["GROUP"] * 10,  # 30 rows: own value
        "colour": ["red", "blue", "green", "red"] * (n // 4),
        "size": np.linspace(0.5, 9.5, n),
        "label": ["no"] * (n // 2) + ["yes"] * (n // 2),
    })


def _tested(model: xdt.DecisionTree) -> set[str]:
    """The features some split of the tree tests."""
    names = model.features.names
    return {names[lit.feature] for path in model.paths for lit in path.term.literals}


def test_fit_tree_drops_id_name_and_code_columns_with_the_reason():
    fit = fit_tree(_people(), "label", max_depth=3, test_size=0)
    assert fit.dropped_columns == {
        "PassengerId": "40 distinct integers in a column named like an id (a row id)",
        "Name": "all 40 values are distinct (an id or name)",
        "Ticket": "30 of the 40 rows have a value no other row has (an id or code)"}
    assert list(fit.model.features.names) == ["colour", "size"]
    assert _tested(fit.model) <= {"colour", "size"}


def test_without_dropping_the_row_id_is_what_the_tree_splits_on():
    # the failure the default prevents: the id separates the classes in one test
    fit = fit_tree(_people(), "label", max_depth=3, test_size=0, drop_ids=False)
    assert fit.dropped_columns == {}
    assert list(fit.model.features.names) == ["PassengerId", "Name", "Ticket", "colour", "size"]
    assert "PassengerId" in _tested(fit.model) or "Name" in _tested(fit.model)


def test_keep_and_drop_by_hand():
    fit = fit_tree(_people(), "label", max_depth=2, test_size=0, keep=["Ticket"],
                   drop=["colour"])
    assert fit.dropped_columns == {"PassengerId": fit.dropped_columns["PassengerId"],
                                   "Name": fit.dropped_columns["Name"],
                                   "colour": DROPPED_AS_ASKED}
    assert list(fit.model.features.names) == ["Ticket", "size"]
    # a dropped column's missing values do not matter; a kept one's do
    holes = _people().assign(size=np.nan)
    kept = fit_tree(holes, "label", test_size=0, drop=["size"]).model
    assert list(kept.features.names) == ["colour"]
    with pytest.raises(MissingValueError, match="--drop COL"):
        fit_tree(holes, "label", test_size=0)
    # an id column named in categorical is still an id; the rest keep their kind
    fit = fit_tree(_people().assign(code=[1, 2] * 20), "label", test_size=0,
                   categorical=["PassengerId", "code"])
    assert "PassengerId" in fit.dropped_columns
    assert [f.kind for f in fit.model.features] == ["categorical", "ordinal", "categorical"]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"keep": ["Nmae"]}, "cannot keep column(s) 'Nmae': not in the data; the columns are: "
                         "PassengerId, Name"),
    ({"drop": ["Cabin", "Age"]}, "cannot drop column(s) 'Cabin', 'Age': not in the data"),
    ({"drop": ["label"]}, "cannot drop 'label': it is the target column"),
    ({"keep": ["label"]}, "cannot keep 'label': it is the target column"),
    ({"keep": ["Name"], "drop": ["Name"]}, "'Name' are named both to keep and to drop"),
    ({"drop": ["colour", "size", "Ticket"]}, "no feature column is left: dropped "
                                             "PassengerId (40 distinct integers"),
])
def test_keep_and_drop_errors(kwargs, message):
    with pytest.raises(DataError) as e:
        fit_tree(_people(), "label", test_size=0, **kwargs)
    assert message in str(e.value)


@pytest.mark.parametrize(("name", "values", "kind", "dropped"), [
    ("PassengerId", [3, 1, 2, 4], "numeric", "4 distinct consecutive integers (a row id)"),
    ("userid", [3, 1, 2, 4], "numeric", "4 distinct consecutive integers (a row id)"),
    ("customer_id", [10, 3, 7, 4], "numeric", "4 distinct integers in a column named like "
                                              "an id (a row id)"),
    ("Paid", [10, 3, 7, 4], "numeric", None),           # "id" is not a word of the name
    ("PassengerId", [1, 1, 2, 3], "numeric", None),     # not distinct
    ("PassengerId", [1.0, 2.0, 3.0, 4.0], "numeric", None),   # not integers
    ("size", [1, 2, 3, 4], "numeric", None),            # not named like an id
    ("Name", ["a", "b", "c"], "categorical", "all 3 values are distinct (an id or name)"),
    ("Name", ["a", "b", None], "categorical", None),    # missing values: never an id
    ("Country", list("ABCDEFG") + ["US"] * 3, "categorical", None),   # 7 rare values: a few
])
def test_id_column_reason(name, values, kind, dropped):
    assert id_column_reason(pd.Series(values, name=name), kind) == dropped


def test_codes_most_of_whose_values_occur_once():
    own = [f"T{i}" for i in range(20)]
    assert id_column_reason(pd.Series(own + ["G"] * 19, name="t"), "categorical") == (
        "20 of the 39 rows have a value no other row has (an id or code)")
    # exactly half the rows with a value of their own: not a code by that rule, but 21
    # distinct values in 40 rows are a near-id (the share rule, test below)
    assert id_column_reason(pd.Series(own + ["G"] * 20, name="t"), "categorical") == (
        "21 distinct values in 40 rows (52%, at least 50%: a near-id or code)")
    assert id_column_reason(pd.Series(own + ["G"] * 23, name="t"), "categorical") is None
    # 19 distinct values in 21 rows: fewer than 20, rare categories by either rule
    assert id_column_reason(pd.Series(own[:18] + ["G"] * 3, name="t"), "categorical") is None
    assert id_column_reason(pd.Series(own[:19] + ["G"] * 2, name="t"), "categorical") == (
        "20 distinct values in 21 rows (95%, at least 50%: a near-id or code)")
    codes = pd.Series(own + ["G"] * 19, name="t", dtype="category")   # chosen categories
    assert id_column_reason(codes, "categorical") is None


def test_near_ids_at_the_distinct_share_threshold():
    """A text column with at least ID_MIN_DISTINCT_SHARE (half) as many distinct values as
    rows, and at least 20 of them, is a near-id, even when every value holds two rows (no
    value of its own) or some cells are empty (counted as one value)."""
    assert (ID_MIN_DISTINCT_SHARE, ID_MIN_OWN_VALUES) == (0.5, 20)
    pairs = [f"T{i // 2}" for i in range(40)]                       # 20 values, twice each
    assert id_column_reason(pd.Series(pairs, name="t"), "categorical") == (
        "20 distinct values in 40 rows (50%, at least 50%: a near-id or code)")
    # one row more: 20 / 41 < 50%
    assert id_column_reason(pd.Series(pairs + ["T0"], name="t"), "categorical") is None
    # 19 distinct values in 38 rows: half, but fewer than 20 values (rare categories)
    assert id_column_reason(pd.Series(pairs[:38], name="t"), "categorical") is None
    # empty cells count as one value: 19 codes + missing = 20 values in 40 rows
    holes = pd.Series(pairs[:38] + [None, None], name="t")
    assert id_column_reason(holes, "categorical") == (
        "20 distinct values in 40 rows (50%, at least 50%: a near-id or code)")
    assert id_column_reason(pd.Series(pairs[:36] + [None] * 4, name="t"),
                            "categorical") is None                 # 18 codes + missing, 40 rows
    # chosen categories and numbers are not read this way
    assert id_column_reason(pd.Series(pairs, name="t", dtype="category"), "categorical") is None
    assert id_column_reason(pd.Series([i // 2 for i in range(40)], name="t"), "numeric") is None
    # the Preprocessor reports it, and keeps it when asked to order it
    frame = pd.DataFrame({"t": pairs, "u": ["a", "b"] * 20})
    labels = [1, 0] * 20
    pre = Preprocessor(reorder=True, positive=1).fit(frame, labels)
    assert pre.dropped_ == {"t": "20 distinct values in 40 rows (50%, at least 50%: a near-id "
                                 "or code)"}
    assert "t" in Preprocessor(reorder=["t"], positive=1).fit(frame, labels).columns_


def test_the_preprocessor_drops_titanic_ids_before_reordering():
    """On Titanic, symbolic reordering never sees the id, name and ticket columns: the
    reasons are reported, and no rule names them."""
    from xdt.cluster import SupervisedClusters

    frame = pd.read_csv(require_shared(DATASETS / "titanic.csv"))
    X, y = frame.drop(columns="Survived"), frame["Survived"]
    assert (X["Ticket"].nunique(), int((X["Ticket"].value_counts() == 1).sum())) == (681, 547)
    pre = Preprocessor(reorder=True, positive=1).fit(X, y)
    assert pre.dropped_ == {
        "PassengerId": "891 distinct consecutive integers (a row id)",
        "Name": "all 891 values are distinct (an id or name)",
        "Ticket": "547 of the 891 rows have a value no other row has (an id or code)"}
    # Cabin: 147 cabins and the empty cell in 891 rows (17%), a column rules can use, but its
    # 204 filled cells are a near-id: it is kept as known / missing, and ordered by the class
    assert pre.columns_["Cabin"].reordered and pre.columns_["Cabin"].known_only
    assert list(pre.reduced_) == ["Cabin"]
    # the first class: 147 tickets for 216 passengers, 97 of whom (fewer than half) have a
    # ticket of their own; a near-id by its share of distinct values
    first = (X["Pclass"] == 1).to_numpy()
    pre = Preprocessor(reorder=True, positive=1).fit(X[first], y[first])
    assert pre.dropped_["Ticket"] == ("147 distinct values in 216 rows (68%, at least 50%: a "
                                      "near-id or code)")
    sc = SupervisedClusters(1, n_clusters=3, reorder=True).fit(X, y)
    assert not {"PassengerId", "Name", "Ticket"} & {
        c.feature for cluster in sc.clusters_ for c in cluster.conditions}


def test_the_preprocessor_of_xdt_cluster_uses_the_same_test():
    X = _people().drop(columns="label")
    pre = Preprocessor().fit(X)
    assert pre.dropped_ == fit_tree(_people(), "label", test_size=0).dropped_columns
    # a column the preprocessor is asked to order is kept
    assert "Ticket" in Preprocessor(reorder=["Ticket"], positive="yes").fit(
        X, _people()["label"]).columns_


# ---------------------------------------------------------------------- Titanic, xdt fit
@pytest.fixture
def titanic_without_gaps(tmp_path: Path) -> Path:
    """Titanic without Cabin and without the rows with an empty cell (712 rows)."""
    frame = pd.read_csv(require_shared(DATASETS / "titanic.csv")).drop(columns="Cabin")
    path = tmp_path / "titanic.csv"
    frame.dropna().to_csv(path, index=False)
    return path


def test_xdt_fit_on_titanic_drops_name_ticket_and_passenger_id(titanic_without_gaps, tmp_path):
    frame = pd.read_csv(titanic_without_gaps)
    n = len(frame)
    own = int((frame["Ticket"].value_counts() == 1).sum())
    assert (n, frame["Name"].nunique(), frame["PassengerId"].nunique()) == (712, 712, 712)
    model_path = tmp_path / "model.json"
    result = CliRunner().invoke(main, ["fit", str(titanic_without_gaps), "-t", "Survived",
                                       "--max-depth", "4", "-o", str(model_path)])
    assert result.exit_code == 0, result.output
    assert (f"dropped columns: PassengerId ({n} distinct integers in a column named like an "
            f"id (a row id)), Name (all {n} values are distinct (an id or name)), Ticket "
            f"({own} of the {n} rows have a value no other row has (an id or code)); --keep "
            "COL uses one as a feature") in result.stdout.splitlines()
    model = xdt.load_model(model_path)
    assert list(model.features.names) == ["Pclass", "Sex", "Age", "SibSp", "Parch", "Fare",
                                    "Embarked"]
    assert not _tested(model) & {"PassengerId", "Name", "Ticket"}
    explained = CliRunner().invoke(main, ["explain", str(model_path), "--data",
                                          str(titanic_without_gaps), "--rows", "0:20"])
    assert explained.exit_code == 0, explained.output
    assert not any(w in explained.stdout for w in ("Name", "Ticket", "PassengerId"))


def test_xdt_fit_keep_and_drop_options(titanic_without_gaps):
    result = CliRunner().invoke(main, ["fit", str(titanic_without_gaps), "-t", "Survived",
                                       "--keep", "Ticket", "--drop", "Sex,Embarked",
                                       "--format", "json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert list(report["dropped_columns"]) == ["PassengerId", "Name", "Sex", "Embarked"]
    assert report["dropped_columns"]["Sex"] == "as asked"
    assert report["features"]["total"] == 6                  # Pclass Age SibSp Parch Ticket Fare
    bad = CliRunner().invoke(main, ["fit", str(titanic_without_gaps), "-t", "Survived",
                                    "--drop", "Survived"])
    assert bad.exit_code == 1 and "cannot drop 'Survived': it is the target" in bad.stderr
    bad = CliRunner().invoke(main, ["fit", str(titanic_without_gaps), "-t", "Survived",
                                    "--keep", "Cabin"])
    assert bad.exit_code == 1 and "cannot keep column(s) 'Cabin': not in the data" in bad.stderr


def test_readme_shows_what_xdt_fit_and_xdt_cluster_print_on_titanic(tmp_path, monkeypatch):
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    (tmp_path / "titanic.csv").write_bytes(require_shared(DATASETS / "titanic.csv").read_bytes())
    monkeypatch.chdir(tmp_path)
    for command in ("xdt fit titanic.csv --target Survived --drop Cabin,Age,Embarked "
                    "--max-depth 4",
                    "xdt cluster titanic.csv --target Survived --positive 1 --stability 20"):
        shown = readme.split(f"$ {command}\n", 1)[1].splitlines()
        args = command.split()[1:]
        if "cluster" in args:
            args = args[:-2]                         # the dropped columns, without the wait
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0, result.output
        assert result.stdout.splitlines()[:2] == shown[:2]


def _states(n: int = 80) -> pd.DataFrame:
    """50 states over 80 rows (62% distinct: a near-id by its share), and the state alone
    decides the class (the first 25 states are 'yes')."""
    states = [f"S{i:02d}" for i in range(50)]
    state = [states[i % 50] for i in range(n)]
    return pd.DataFrame({"state": state, "age": np.arange(n) % 37,
                         "label": ["yes" if s in states[:25] else "no" for s in state]})


def test_a_column_the_preprocessor_drops_can_be_kept():
    """What ``xdt fit --keep`` does for a tree, ``keep=`` (``xdt cluster --keep``) does for
    the clusters: a near-id by the numbers that the user knows to be a real category stays,
    and the message of the drop says how to keep it."""
    frame = _states()
    X, y = frame.drop(columns="label"), frame["label"]
    assert Preprocessor().fit(X).dropped_ == {
        "state": "50 distinct values in 80 rows (62%, at least 50%: a near-id or code)"}
    pre = Preprocessor(keep=["state"], reorder=True, positive="yes").fit(X, y)
    assert pre.dropped_ == {} and pre.columns_["state"].reordered
    with pytest.raises(xdt.errors.ParameterError, match="keep names 'town'"):
        Preprocessor(keep=["town"]).fit(X)

    runner = CliRunner()
    with runner.isolated_filesystem():
        frame.to_csv("states.csv", index=False)
        dropped = runner.invoke(main, ["cluster", "states.csv", "-t", "label", "-p", "yes",
                                       "--reorder"])
        assert dropped.exit_code == 0, dropped.output
        assert ("dropped columns: state (50 distinct values in 80 rows (62%, at least 50%: a "
                "near-id or code)); --keep COL uses one in the rules") in dropped.output
        kept = runner.invoke(main, ["cluster", "states.csv", "-t", "label", "-p", "yes",
                                    "--reorder", "--keep", "state"])
        assert kept.exit_code == 0, kept.output
        assert "dropped columns" not in kept.output
        # the state decides the class: the first rule holds the 48 rows of S00..S23 (two
        # rows each) and no other (S24's one row is grouped with rare states that are 'no')
        (line,) = [ln for ln in kept.output.splitlines() if ln.strip().startswith("1 ")]
        assert line.split()[1:5] == ["1.000", "0.960", "0.980", "48"]
        assert "state in {S00, S01," in line
        bad = runner.invoke(main, ["cluster", "states.csv", "-t", "label", "-p", "yes",
                                   "--keep", "town"])
        assert bad.exit_code != 0 and "'town' is not a column of states.csv" in bad.output
