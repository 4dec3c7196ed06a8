"""xdt.cluster._preprocess: binning, grouping, date/time, ordinal encoding and symbolic reordering
("Using Decision Trees for Interpretable Supervised Clustering", Section "Data Pre-processing
Pipeline"), and the inversion of every transform to conditions on the original columns."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tiers import examples

from xdt.cluster._preprocess import MISSING, DateCondition, Preprocessor, group_values
from xdt.errors import (
    NotFittedError,
    ParameterError,
    UnknownCategoryError,
    UnknownFeatureError,
)
from xdt.ir._dnf import Condition

# ---------------------------------------------------------------------------- reordering
CITIES = {1: "Amsterdam", 2: "London", 3: "New York", 4: "Shanghai"}
CITY_ROWS = [1, 2, 3, 4, 4, 3, 2, 1]          # the paper's A_{city, class}
CITY_CLASS = [1, 0, 1, 1, 0, 1, 0, 1]


def _cities() -> pd.DataFrame:
    return pd.DataFrame({"city": [CITIES[c] for c in CITY_ROWS]})


def test_paper_city_example_reordering():
    pre = Preprocessor(reorder=True, positive=1).fit(_cities(), CITY_CLASS)
    t = pre.columns_["city"]
    assert t.kind == "ordinal" and t.reordered
    # the paper's mapping {1: London, 2: Shanghai, 3: Amsterdam, 4: New York}
    assert t.order == ("London", "Shanghai", "Amsterdam", "New York")
    codes = pre.transform(_cities())["city"].to_numpy()
    # one threshold (pivot Shanghai, code 1) separates the two sets of the paper
    left = {CITIES[c] for c, k in zip(CITY_ROWS, codes, strict=True) if k <= 1}
    right = {CITIES[c] for c, k in zip(CITY_ROWS, codes, strict=True) if k > 1}
    assert left == {"London", "Shanghai"} and right == {"Amsterdam", "New York"}
    # labels [0, 1, 0, 0] and [1, 1, 1, 1] on the two sides
    assert sorted(np.asarray(CITY_CLASS)[codes <= 1].tolist()) == [0, 0, 0, 1]
    assert np.asarray(CITY_CLASS)[codes > 1].tolist() == [1, 1, 1, 1]
    assert pre.describe("city", [0, 1]) == "city in {London, Shanghai}"
    assert pre.condition("city", [2, 3]) == Condition("city", ("Amsterdam", "New York"))


def test_reordering_the_other_class_reverses_the_order():
    pre = Preprocessor(reorder=True, positive=0).fit(_cities(), CITY_CLASS)
    assert pre.columns_["city"].order == ("Amsterdam", "New York", "Shanghai", "London")


def test_reordering_defaults_to_the_larger_of_two_classes():
    pre = Preprocessor(reorder=["city"]).fit(_cities(), CITY_CLASS)
    assert pre.positive_ == 1
    assert pre.columns_["city"].order[:2] == ("London", "Shanghai")


def test_reordering_needs_y_and_a_known_positive_class():
    with pytest.raises(ParameterError, match="fit\\(X, y\\)"):
        Preprocessor(reorder=True).fit(_cities())
    with pytest.raises(ParameterError, match="not a class"):
        Preprocessor(reorder=True, positive=7).fit(_cities(), CITY_CLASS)
    with pytest.raises(ParameterError, match="positive="):
        Preprocessor(reorder=True).fit(_cities(), [0, 1, 2, 0, 1, 2, 0, 1])


def test_nominal_and_natural_ordinal_encoding():
    nominal = Preprocessor().fit(_cities())
    assert nominal.columns_["city"].kind == "nominal"
    out = nominal.transform(_cities())["city"]
    assert isinstance(out.dtype, pd.CategoricalDtype)
    assert out.tolist() == [CITIES[c] for c in CITY_ROWS]
    ordinal = Preprocessor(ordinal=True).fit(_cities())
    assert ordinal.transform(_cities())["city"].tolist() == [c - 1 for c in CITY_ROWS]
    # the paper: x <= London is {Amsterdam, London}
    assert ordinal.describe("city", [0, 1]) == "city in {Amsterdam, London}"


# ---------------------------------------------------------------------------- binning
def test_percentile_bin_edges_on_a_hand_made_column():
    X = pd.DataFrame({"x": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]})
    pre = Preprocessor(n_bins=5).fit(X)
    t = pre.columns_["x"]
    assert t.kind == "numeric"
    assert t.cuts == (2.0, 4.0, 6.0, 8.0)           # quantiles 0.2 .. 0.8, left-open bins
    assert pre.transform(X)["x"].tolist() == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]
    assert pre.describe("x", [0]) == "x <= 2"
    assert pre.describe("x", [1, 2]) == "2 < x <= 6"
    assert pre.describe("x", [3, 4]) == "x > 6"
    assert pre.describe("x", [0, 4]) == "x <= 2 or x > 8"
    assert pre.describe("x", (c for c in [0, 4])) == "x <= 2 or x > 8"   # any iterable
    assert pre.condition("x", [1, 2]) == Condition("x", above=2.0, upto=6.0)
    assert pre.condition("x", range(5)) is None
    assert pre.inverse_values("x", 2) == Condition("x", above=4.0, upto=6.0)
    with pytest.raises(ParameterError, match="not consecutive"):
        pre.condition("x", [0, 2])
    assert pre.conditions("x", [0, 2]) == (Condition("x", upto=2.0),
                                           Condition("x", above=4.0, upto=6.0))


def test_binning_ties_and_few_values_keep_distinct_edges_only():
    X = pd.DataFrame({"x": [0, 5, 5, 5, 5, 5, 5, 5, 5, 5], "k": [1, 2, 3, 1, 2, 3, 1, 2, 3, 3]})
    pre = Preprocessor(n_bins=10).fit(X)
    assert pre.columns_["x"].cuts == (0.0,)         # 5 is the maximum: no cut there
    assert pre.columns_["k"].cuts == (1.0, 2.0)     # three values, three bins
    assert pre.transform(X)["k"].tolist() == [0, 1, 2, 0, 1, 2, 0, 1, 2, 2]
    # values beyond the fitted range fall in the first / last bin
    assert pre.transform(pd.DataFrame({"x": [-3, 99], "k": [0, 9]}))["k"].tolist() == [0, 2]


def test_numeric_missing_values_get_their_own_bin():
    X = pd.DataFrame({"Age": [10.0, 20.0, np.nan, 30.0, 40.0, np.nan]})
    pre = Preprocessor(n_bins=2).fit(X)
    t = pre.columns_["Age"]
    assert t.cuts == (20.0,) and t.missing_code == 2 and t.codes == (0, 1, 2)
    assert pre.transform(X)["Age"].tolist() == [0, 0, 2, 1, 1, 2]
    assert pre.describe("Age", [2]) == "Age is missing"
    assert pre.describe("Age", [0, 2]) == "Age <= 20 or Age is missing"
    assert pre.describe("Age", [0, 1]) == "Age is not missing"
    assert pre.describe("Age", [0, 1, 2]) == "Age is any value"
    assert pre.allows_missing("Age", [1, 2]) and not pre.allows_missing("Age", [1])
    assert pre.condition("Age", [1, 2]) == Condition("Age", above=20.0)
    with pytest.raises(ParameterError, match="missing bin"):
        pre.condition("Age", [2])


# ---------------------------------------------------------------------------- grouping
def test_frequency_grouping_by_hand():
    # counts a:10 b:6 c:2 d:1 e:1 (20 rows), 3 groups: target 20/3 -> {a}; 10/2 -> {b}; rest
    groups = group_values(list("abcde"), [10, 6, 2, 1, 1], 3, "frequency")
    assert groups == [["a"], ["b"], ["c", "d", "e"]]
    rows = ["a"] * 10 + ["b"] * 6 + ["c"] * 2 + ["d", "e"]
    X = pd.DataFrame({"v": rows})
    pre = Preprocessor(max_categories=3, n_groups=3).fit(X)
    t = pre.columns_["v"]
    assert t.kind == "nominal" and t.grouping == "frequency"
    assert t.codes == ("a", "b", "<group 2>")
    assert pre.transform(X)["v"].tolist()[-4:] == ["<group 2>"] * 4
    assert pre.inverse_values("v", "<group 2>") == ["c", "d", "e"]
    # the paper's "reverting the path clause": fewer values excluded than allowed
    assert pre.describe("v", ["b", "<group 2>"]) == "v != a"
    assert pre.describe("v", ["<group 2>"]) == "v not in {a, b}"      # 2 excluded < 3
    assert pre.describe("v", ["b"]) == "v = b"
    assert pre.describe("v", ["a", "<group 2>"]) == "v != b"
    assert pre.describe("v", ["a"]) == "v = a"


def test_equal_width_grouping_by_hand():
    values = ["g", "a", "e", "c", "b", "f", "d"]
    assert group_values(values, [1] * 7, 3, "equal-width") == [
        ["a", "b", "c"], ["d", "e"], ["f", "g"]]


def test_similarity_grouping_by_common_prefix():
    codes = ["2502", "1011", "9001", "1013", "2501", "1012"]
    assert group_values(codes, [1] * 6, 3, "similarity") == [
        ["1011", "1012", "1013"], ["2501", "2502"], ["9001"]]
    X = pd.DataFrame({"postcode": codes * 2})
    pre = Preprocessor(max_categories=4, n_groups=3, grouping="similarity", ordinal=True).fit(X)
    t = pre.columns_["postcode"]
    assert t.kind == "ordinal" and t.groups == (("1011", "1012", "1013"), ("2501", "2502"),
                                                ("9001",))
    assert pre.transform(X)["postcode"].tolist()[:6] == [1, 0, 2, 0, 1, 0]
    assert pre.describe("postcode", [0, 1]) == "postcode != 9001"
    assert pre.describe("postcode", [2]) == "postcode = 9001"


def test_not_in_rule_for_many_allowed_values():
    X = pd.DataFrame({"Country": list("ABCDEFG") + ["US"] * 3})
    pre = Preprocessor().fit(X)
    domain = pre.transformed_values("Country")
    assert pre.describe("Country", [v for v in domain if v != "US"]) == "Country != US"
    kept = [v for v in domain if v not in ("US", "A")]
    assert pre.describe("Country", kept) == "Country not in {A, US}"
    assert pre.describe("Country", ["A", "B"]) == "Country in {A, B}"
    assert pre.describe("Country", list("ABCD")) == "Country in {A, B, C, D}"     # 4 vs 4
    assert pre.describe("Country", list("ABCDE")) == "Country not in {F, G, US}"


def test_categorical_missing_values_are_a_category():
    X = pd.DataFrame({"Embarked": ["S", "C", None, "S", "Q", np.nan]})
    pre = Preprocessor().fit(X)
    t = pre.columns_["Embarked"]
    assert t.codes == ("C", "Q", "S", MISSING) and t.missing_code == MISSING
    assert pre.transform(X)["Embarked"].tolist() == ["S", "C", MISSING, "S", "Q", MISSING]
    assert pre.describe("Embarked", [MISSING]) == "Embarked = (missing)"
    assert pre.evaluate("Embarked", ["C", MISSING], X).tolist() == [
        False, True, True, False, False, True]


# ---------------------------------------------------------------------------- dates
def _dates() -> pd.DataFrame:
    return pd.DataFrame({"d": ["2020-01-01", "2020-01-02", "2020-01-03", "2020-01-04",
                               "2020-01-31"], "n": [1, 2, 3, 4, 5]})


def test_dates_are_detected_but_numbers_are_not():
    pre = Preprocessor().fit(_dates())
    assert pre.columns_["d"].kind == "date" and pre.columns_["n"].kind == "numeric"
    typed = _dates().assign(d=pd.to_datetime(_dates()["d"]))
    assert Preprocessor().fit(typed).columns_["d"].kind == "date"
    words = pd.DataFrame({"w": ["male", "female", "male", "x1", "2020-01-01"]})
    assert Preprocessor().fit(words).columns_["w"].kind == "nominal"
    numeric_text = pd.DataFrame({"t": ["2649", "1203", "2020", "1999", "2020"]})
    assert Preprocessor().fit(numeric_text).columns_["t"].kind == "nominal"


def test_date_frequency_binning():
    pre = Preprocessor(n_bins=2, date_binning="frequency").fit(_dates())
    assert pre.columns_["d"].cuts == (pd.Timestamp("2020-01-03"),)
    assert pre.transform(_dates())["d"].tolist() == [0, 0, 0, 1, 1]
    assert pre.describe("d", [0]) == "d <= 2020-01-03"
    assert pre.describe("d", [1]) == "d > 2020-01-03"
    assert pre.condition("d", [1]) == DateCondition("d", above=pd.Timestamp("2020-01-03"))


def test_date_equal_width_binning():
    pre = Preprocessor(n_bins=3, date_binning="equal-width").fit(_dates())
    assert pre.columns_["d"].cuts == (pd.Timestamp("2020-01-11"), pd.Timestamp("2020-01-21"))
    assert pre.transform(_dates())["d"].tolist() == [0, 0, 0, 0, 2]
    assert pre.describe("d", [1]) == "2020-01-11 < d <= 2020-01-21"
    assert str(pre.condition("d", [1, 2])) == "d > 2020-01-11"


def test_date_missing_and_unparseable_values_share_the_missing_bin():
    X = pd.DataFrame({"d": ["2020-01-01", None, "2020-02-01", "2020-03-01"] * 20
                      + ["not a date"]})
    pre = Preprocessor(n_bins=3).fit(X)
    t = pre.columns_["d"]
    assert t.kind == "date" and t.missing_code == 3
    assert pre.transform(X)["d"].tolist()[-1] == 3
    assert pre.describe("d", [3]) == "d is missing"


# ---------------------------------------------------------------------------- round trip
def _condition_holds(cond: Condition, col: pd.Series) -> np.ndarray:
    """The rows of the original column where ``cond`` holds, read independently of xdt."""
    if cond.values is not None:
        cells = [MISSING if pd.isna(v) else v for v in col.astype(object)]
        return np.asarray([v in cond.values for v in cells], dtype=bool)
    values = (pd.to_datetime(col, errors="coerce") if isinstance(cond, DateCondition)
              else col.astype(float))
    ok = np.array(values.notna().to_numpy(), dtype=bool)
    if cond.above is not None:
        ok &= (values > cond.above).fillna(False).to_numpy(dtype=bool)
    if cond.upto is not None:
        ok &= (values <= cond.upto).fillna(False).to_numpy(dtype=bool)
    return ok


@st.composite
def frames(draw):
    n = draw(st.integers(1, 30))
    num = draw(st.lists(st.one_of(st.integers(-5, 5).map(float), st.just(math.nan),
                                  st.floats(-100, 100, allow_nan=False)),
                        min_size=n, max_size=n))
    cat = draw(st.lists(st.one_of(st.sampled_from(["ab", "ac", "b", "ba", "c", "d", "e1",
                                                   "e2", "f"]), st.none()),
                        min_size=n, max_size=n))
    days = draw(st.lists(st.one_of(st.integers(0, 400), st.none()), min_size=n, max_size=n))
    dates = [None if d is None else (pd.Timestamp("2020-01-01") + pd.Timedelta(days=d))
             .strftime("%Y-%m-%d") for d in days]
    return pd.DataFrame({"num": num, "cat": pd.Series(cat, dtype=object),
                         "date": pd.Series(dates, dtype=object)})


@settings(max_examples=examples(60))
@given(frames(), st.integers(1, 6), st.integers(1, 5), st.integers(1, 4),
       st.sampled_from(["frequency", "equal-width", "similarity"]), st.booleans(),
       st.sampled_from(["frequency", "equal-width"]), st.data())
def test_conditions_select_exactly_the_rows_of_their_codes(
        X, n_bins, max_categories, n_groups, grouping, ordinal, date_binning, data):
    pre = Preprocessor(n_bins=n_bins, max_categories=max_categories, n_groups=n_groups,
                       grouping=grouping, ordinal=ordinal, date_binning=date_binning,
                       drop_ids=False, date_threshold=0.5)
    T = pre.fit_transform(X)
    for name, t in pre.columns_.items():
        domain = list(t.codes)
        codes = data.draw(st.lists(st.sampled_from(domain), unique=True), label=name)
        want = T[name].astype(object).isin(codes).to_numpy()
        got = np.zeros(len(X), dtype=bool)
        for cond in pre.conditions(name, codes):
            got |= _condition_holds(cond, X[name])
        if t.is_binned and pre.allows_missing(name, codes):
            got |= (pd.to_datetime(X[name], errors="coerce") if t.kind == "date"
                    else X[name]).isna().to_numpy()
        assert got.tolist() == want.tolist(), (name, codes, pre.conditions(name, codes))
        assert pre.evaluate(name, codes, X).tolist() == want.tolist()
        if codes:
            assert isinstance(pre.describe(name, codes), str)
        # an interval of codes (a tree path on an ordinal/binned column) is one condition
        if t.kind != "nominal" and len(domain) > 1:
            lo = data.draw(st.integers(0, len(domain) - 1), label=f"{name} lo")
            hi = data.draw(st.integers(lo, len(domain) - 1), label=f"{name} hi")
            run = domain[lo:hi + 1]
            if t.missing_code in run and len(run) > 1:
                run = [c for c in run if c != t.missing_code]
            if t.missing_code not in run:
                cond = pre.condition(name, run)
                want = T[name].isin(run).to_numpy()
                if cond is None:
                    assert want[X[name].notna().to_numpy() if t.kind != "date" else
                                pd.to_datetime(X[name], errors="coerce").notna()].all()
                else:
                    assert _condition_holds(cond, X[name]).tolist() == want.tolist()


# ---------------------------------------------------------------------------- tree paths
def test_describe_path_of_conditions_on_transformed_columns():
    X = pd.DataFrame({"x": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], "s": list("ababababcc")})
    pre = Preprocessor(n_bins=5).fit(X)
    path = [Condition("x", upto=3.5), Condition("x", above=0.5), Condition("s", ("a", "b"))]
    assert pre.codes_where(path[0]) == (0, 1, 2, 3)
    assert pre.describe_path(path) == "2 < x <= 8 AND s != c"
    assert pre.describe_path([]) == "TRUE"
    assert pre.allowed_codes(path) == {"x": (1, 2, 3), "s": ("a", "b")}
    assert pre.evaluate_codes(pre.allowed_codes(path), X).tolist() == [
        False, False, True, True, True, True, True, True, False, False]


def test_cart_paths_map_back_to_the_rows_they_hold(datasets_dir):
    from xdt.learn import CARTClassifier

    data = pd.read_csv(datasets_dir / "titanic.csv")
    X, y = data.drop(columns="Survived"), data["Survived"]
    pre = Preprocessor(reorder=["Embarked", "Cabin"], positive=1)
    T = pre.fit_transform(X, y)
    tree = CARTClassifier(max_depth=4).fit(T, y).tree_
    leaf = tree.leaf_paths(tree.encode(T))
    texts = set()
    for path in tree.paths:
        allowed = pre.path_codes(tree, path)
        assert pre.evaluate_codes(allowed, X).tolist() == (leaf == path.index).tolist()
        texts.add(pre.describe_codes(allowed))
    assert len(texts) == tree.n_leaves and any(t.startswith("Sex = male") for t in texts)


# ---------------------------------------------------------------------------- errors
def test_errors():
    with pytest.raises(NotFittedError):
        Preprocessor().transform(_cities())
    with pytest.raises(ParameterError, match="n_bins"):
        Preprocessor(n_bins=0).fit(_cities())
    with pytest.raises(ParameterError, match="grouping"):
        Preprocessor(grouping="alphabet").fit(_cities())
    with pytest.raises(ParameterError, match="not a column"):
        Preprocessor(ordinal=["town"]).fit(_cities())
    with pytest.raises(ParameterError, match="not categorical"):
        Preprocessor(reorder=["n"], positive=1).fit(_cities().assign(n=range(8)), CITY_CLASS)
    pre = Preprocessor().fit(_cities())
    with pytest.raises(UnknownCategoryError, match="Paris"):
        pre.transform(pd.DataFrame({"city": ["Paris"]}))
    with pytest.raises(UnknownFeatureError, match="town"):
        pre.describe("town", ["London"])
    with pytest.raises(ParameterError, match="not a transformed value"):
        pre.describe("city", ["Paris"])


def test_numpy_input_and_id_columns():
    arr = np.array([[1, "a", 3.5], [2, "b", 1.0], [3, "a", 2.0], [4, "c", 0.5]], dtype=object)
    pre = Preprocessor(n_bins=2).fit(arr)
    assert {n: t.kind for n, t in pre.columns_.items()} == {
        "x0": "numeric", "x1": "nominal", "x2": "numeric"}
    assert pre.transform(arr)["x0"].tolist() == [0, 0, 1, 1]
    ids = pd.DataFrame({"CustomerID": [3, 1, 2, 4], "v": [1, 2, 3, 4]})
    assert "row id" in Preprocessor().fit(ids).dropped_["CustomerID"]
    names = pd.DataFrame({"name": ["p", "q", "r"], "v": [1.0, 1.0, 2.0]})
    assert "distinct" in Preprocessor().fit(names).dropped_["name"]
    assert list(Preprocessor(drop_ids=False).fit(names).columns_) == ["name", "v"]


# ---------------------------------------------------------------------------- real data
def test_titanic(datasets_dir):
    data = pd.read_csv(datasets_dir / "titanic.csv")
    X, y = data.drop(columns="Survived"), data["Survived"]
    pre = Preprocessor(reorder=["Embarked", "Cabin", "Ticket"], positive=1)
    T = pre.fit_transform(X, y)
    assert set(pre.dropped_) == {"PassengerId", "Name"}
    assert "Age: numeric, 10 bins, + missing" in pre.summary().splitlines()
    assert "Name: dropped, all 891 values are distinct (an id or name)" in pre.summary()
    kinds = {n: t.kind for n, t in pre.columns_.items()}
    assert kinds == {"Pclass": "numeric", "Sex": "nominal", "Age": "numeric",
                     "SibSp": "numeric", "Parch": "numeric", "Ticket": "ordinal",
                     "Fare": "numeric", "Cabin": "ordinal", "Embarked": "ordinal"}
    assert pre.columns_["Age"].missing_code == 10 and T["Age"].eq(10).sum() == 177
    assert pre.columns_["Cabin"].grouping == "frequency" and T["Cabin"].max() == 9
    assert pre.columns_["Embarked"].missing_code is not None
    assert not T.isna().any().any() and len(T) == len(X)
    # reordered: the share of survivors does not decrease along the codes
    share = y.groupby(T["Embarked"]).mean().to_numpy()
    assert (np.diff(share) >= 0).all()
    assert pre.describe("Sex", ["female"]) == "Sex = female"
    assert pre.describe("Age", [10]) == "Age is missing"


def test_adult(datasets_dir):
    data = pd.read_csv(datasets_dir / "adult.csv.gz")
    X, y = data.drop(columns="income"), data["income"]
    pre = Preprocessor(reorder=["native-country"], positive=">50K", ordinal=["education"])
    T = pre.fit_transform(X, y)
    kinds = {n: t.kind for n, t in pre.columns_.items()}
    assert pre.dropped_ == {}
    assert kinds["age"] == kinds["fnlwgt"] == kinds["hours-per-week"] == "numeric"
    assert kinds["education"] == kinds["native-country"] == "ordinal"
    assert kinds["workclass"] == kinds["sex"] == "nominal"
    t = pre.columns_["native-country"]
    assert t.grouping == "frequency" and len(t.codes) == 10 and t.reordered
    assert T["age"].between(0, 9).all() and not T.isna().any().any()
    assert pre.describe("sex", ["Male"]) == "sex = Male"


def test_binary_and_ordered_category_columns():
    X = pd.DataFrame({"flag": [True, False, True, True],
                      "size": pd.Categorical(["M", "S", "L", "M"], categories=["S", "M", "L"],
                                             ordered=True)})
    pre = Preprocessor(ordinal=["size"]).fit(X)
    assert pre.columns_["flag"].kind == "binary"
    assert pre.columns_["size"].order == ("S", "M", "L")       # the declared order
    T = pre.transform(X)
    assert T["flag"].tolist() == [True, False, True, True]
    assert T["size"].tolist() == [1, 0, 2, 1]
    assert pre.describe("flag", [True]) == "flag = True"
    assert pre.describe("size", [0, 1]) == "size != L"


def test_is_a_scikit_learn_transformer_and_its_doctest_passes():
    import doctest

    from sklearn.base import clone

    import xdt.cluster._preprocess as module

    pre = Preprocessor(n_bins=4, reorder=["city"])
    assert clone(pre).get_params() == pre.get_params()
    assert doctest.testmod(module).failed == 0


# ---------------------------------------------------------------------------- known / missing
def _codes_with_gaps(n_distinct: int, repeat: int, extra: int, n_missing: int) -> pd.Series:
    """``n_distinct`` codes ``C00, C01, ...`` each ``repeat`` times, ``extra`` more cells of
    ``C00``, then ``n_missing`` empty cells."""
    codes = [f"C{i:02d}" for i in range(n_distinct) for _ in range(repeat)] + ["C00"] * extra
    return pd.Series(codes + [None] * n_missing, name="code", dtype=object)


def test_a_column_whose_filled_cells_are_a_near_id_is_reduced_to_known_or_missing():
    from xdt.cluster._preprocess import KNOWN
    from xdt.interop._columns import ID_MIN_DISTINCT_SHARE, ID_MIN_OWN_VALUES

    assert (ID_MIN_DISTINCT_SHARE, ID_MIN_OWN_VALUES) == (0.5, 20)
    # 20 codes in 40 filled cells (50%, 20 of them: the edge), 60 empty cells: the whole
    # column (21 values in 100 rows) is no near-id, its filled cells are
    col = _codes_with_gaps(20, 2, 0, 60)
    pre = Preprocessor().fit(col.to_frame())
    assert pre.dropped_ == {}
    assert pre.reduced_ == {"code": "20 distinct values in 40 filled cells (50%, at least 50%: "
                                    "a near-id or code)"}
    t = pre.columns_["code"]
    assert (t.kind, t.codes, t.known_only, t.missing_code) == ("nominal", (KNOWN, MISSING),
                                                               True, MISSING)
    assert t.groups == (tuple(f"C{i:02d}" for i in range(20)), (MISSING,))
    assert pre.describe("code", [KNOWN]) == "code != (missing)"
    assert pre.describe("code", [MISSING]) == "code = (missing)"
    assert "code: reduced to known / missing, 20 distinct values" in pre.summary()
    assert pre.columns_["code"].describe() == "code: nominal, known / missing (20 known values " \
                                              "as one)"
    # a code never seen at fit is a known value, an empty cell a missing one
    new = pd.DataFrame({"code": ["C03", "Z99", None]})
    assert pre.transform(new)["code"].tolist() == [KNOWN, KNOWN, MISSING]
    assert pre.evaluate("code", [KNOWN], new).tolist() == [True, True, False]
    assert pre.evaluate("code", [MISSING], new).tolist() == [False, False, True]
    assert pre.condition("code", [MISSING]) == Condition("code", (MISSING,))
    assert pre.condition("code", [KNOWN, MISSING]) is None
    # ordered by the target: two codes, missing first when its rows are rarer in class 1
    y = [1] * 40 + [0] * 60
    ordered = Preprocessor(reorder=True, positive=1).fit(col.to_frame(), y).columns_["code"]
    assert (ordered.kind, ordered.codes, ordered.known_only) == ("ordinal", (0, 1), True)
    assert ordered.groups[0] == (MISSING,) and ordered.reordered


@pytest.mark.parametrize("col", [
    _codes_with_gaps(20, 2, 1, 60),     # 20 codes in 41 filled cells: 49%, below half
    _codes_with_gaps(19, 2, 0, 60),     # 19 codes in 38 filled cells: fewer than 20
], ids=["below half", "fewer than 20"])
def test_a_column_whose_filled_cells_are_no_near_id_keeps_its_values(col):
    pre = Preprocessor().fit(col.to_frame())
    assert pre.reduced_ == {} and pre.dropped_ == {}
    t = pre.columns_["code"]
    assert not t.known_only and set(t.order) == set(col.dropna()) | {MISSING}
    # ... as do the columns named in keep, ordinal or reorder
    near_id = _codes_with_gaps(20, 2, 0, 60).to_frame()
    for kw in ({"keep": ["code"]}, {"ordinal": ["code"]},
               {"reorder": ["code"], "positive": 1}):
        pre = Preprocessor(**kw).fit(near_id, [0, 1] * 50)
        assert pre.reduced_ == {} and not pre.columns_["code"].known_only
        assert len(pre.columns_["code"].order) == 21


def test_titanic_cabin_reads_known_or_missing_with_reordering_or_without(datasets_dir):
    """Titanic's Cabin: 687 of 891 cells empty, 147 codes in the other 204. Reordering once
    turned it into a rule over sixty codes; reduced to known / missing, its rule is
    ``Cabin != (missing)``, with and without reordering."""
    from xdt.cluster import SupervisedClusters

    df = pd.read_csv(datasets_dir / "titanic.csv")
    X, y = df.drop(columns="Survived"), df["Survived"]
    filled = df["Cabin"].notna()
    cabins = set(df["Cabin"].dropna())
    assert (int(filled.sum()), len(cabins)) == (204, 147)
    pre = Preprocessor(reorder=True, positive=1).fit(X, y)
    assert pre.reduced_ == {"Cabin": "147 distinct values in 204 filled cells (72%, at least "
                                     "50%: a near-id or code)"}
    kept = Preprocessor(keep=["Cabin"]).fit(X, y)          # keep: the codes, grouped
    assert kept.reduced_ == {} and not kept.columns_["Cabin"].known_only
    assert set(kept.columns_["Cabin"].order) == cabins | {MISSING}
    assert kept.columns_["Cabin"].grouping == "frequency"
    words = {w for c in cabins for w in c.split()}           # "B96 B98": B96, B98
    new = X.iloc[:4].copy()
    new["Cabin"] = ["Z99", None, "C85", "A1 A2"]            # two codes never seen
    for reorder in (True, False):
        sc = SupervisedClusters(1, n_clusters=3, reorder=reorder,
                                preprocessor=Preprocessor(n_bins=10)).fit(X, y)
        rules = [c.rule for c in sc.clusters_]
        assert not any(set(re.split(r"[\s{},()]+", r)) & words for r in rules), rules
        cabin = next(c for c in sc.clusters_ if "Cabin" in c.rule)
        assert cabin.rule == "Cabin != (missing)"
        assert cabin.mask.tolist() == filled.tolist()
        assert (cabin.size, cabin.n_target) == (204, int(df.Survived[filled].sum())) == (204, 136)
        assert cabin.precision == pytest.approx(df.Survived[filled].mean())
        (cond,) = cabin.conditions
        assert cond.feature == "Cabin" and set(cond.values) == cabins
        j = sc.clusters_.index(cabin)
        assert (sc.predict(X) == j).tolist() == (
            cabin.mask & ~sc.matches(X)[:, :j].any(axis=1)).tolist()
        assert cabin.matches(new).tolist() == [True, False, True, True]
