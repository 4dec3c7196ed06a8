"""Tests of :mod:`xdt.metrics._interpretability`: certificate complexity and the induced-matching
criterion of Cooper, Bousdira & Carbonnel, "Interpretable DNFs", IJCAI 2025 (Sections 2 and
4: Definition 2, Proposition 1, Lemma 2, Example 3, Proposition 2).

Every value is checked against something known independently: the worked cases' expected
certificate complexity, values from the paper, and slow brute-force enumerations written
here from the definitions (over feature *values*, through the model's ``predict``)."""

from __future__ import annotations

import doctest
import itertools
from collections import defaultdict

import hypothesis.strategies as st
import networkx as nx
import numpy as np
import pandas as pd
import pytest
from conftest import load_case
from hypothesis import event, given, settings
from test_properties import features_strategy, node_strategy
from tiers import examples

import xdt
import xdt.metrics
import xdt.metrics._interpretability as interp
from xdt.errors import (
    ComputationLimitError,
    InvalidModelError,
    NotFittedError,
    ParameterError,
    UnsupportedEstimatorError,
    XdtError,
)
from xdt.ir import DNF, Condition, DecisionTree, Feature, Leaf, NestedKDNF
from xdt.learn import CARTClassifier
from xdt.metrics import (
    certificate_complexity,
    is_induced_matching,
    is_k_axp_interpretable,
    literal_term_graph,
    max_induced_matching,
    mim_criterion,
    term_literals,
)


# ---------------------------------------------------------------------- helpers
def bits(n: int) -> list[Feature]:
    return [Feature(f"x{i}", "binary") for i in range(n)]


def lit(name: str, value: int) -> Condition:
    return Condition(name, (value,))


def parity_dnf(n: int) -> DNF:
    """1 when an odd number of the n bits are 1: one term per odd point."""
    return DNF(bits(n), [0, 1], [[lit(f"x{i}", b[i]) for i in range(n)]
                                 for b in itertools.product((0, 1), repeat=n) if sum(b) % 2])


def majority_dnf(k: int) -> DNF:
    """Majority of 2k - 1 bits: all terms of k positive literals (Example 3)."""
    n = 2 * k - 1
    return DNF(bits(n), [0, 1], [[lit(f"x{i}", 1) for i in s]
                                 for s in itertools.combinations(range(n), k)])


ORDINAL_GRID = (0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5)  # every cell of thresholds 1, 2, 3
TREE_GRID = (0.0, 0.5, 1.0, 2.0, 3.0, 4.0)              # every cell of thresholds .5 .. 3.5


def value_grid(feature: Feature, ordinal=ORDINAL_GRID) -> tuple:
    return tuple(ordinal) if feature.kind == "ordinal" else tuple(feature.domain)


def brute_force_cc(model, ordinal=ORDINAL_GRID) -> int:
    """Certificate complexity by Definitions 1 and 2, over a grid of feature values that
    meets every cell: for every point, the smallest set S of features such that all grid
    points agreeing with it on S get its prediction (by ``model.predict``)."""
    features = list(model.features)
    points = list(itertools.product(*(value_grid(f, ordinal) for f in features)))
    frame = pd.DataFrame(points, columns=[f.name for f in features])
    labels = list(model.predict(frame)) if features else list(model.predict([[]]))
    best: list[int | None] = [None] * len(points)
    for size in range(len(features) + 1):
        for subset in itertools.combinations(range(len(features)), size):
            seen: dict[tuple, set] = defaultdict(set)
            for p, y in zip(points, labels, strict=True):
                seen[tuple(p[i] for i in subset)].add(y)
            for j, p in enumerate(points):
                if best[j] is None and len(seen[tuple(p[i] for i in subset)]) == 1:
                    best[j] = size
    return max(best)


def brute_force_mim(graph: nx.Graph) -> int:
    """Largest set of edges, no two sharing a vertex or joined by an edge (Section 4)."""
    edges = [e for e in graph.edges() if e[0] != e[1]]
    for size in range(len(edges), 0, -1):
        for chosen in itertools.combinations(edges, size):
            ends = [v for e in chosen for v in e]
            if len(set(ends)) < len(ends):
                continue
            if all(not graph.has_edge(u, w) for e, f in itertools.combinations(chosen, 2)
                   for u in e for w in f):
                return size
    return 0


class CellModel:
    """Only ``cells`` and ``predict_cells`` of a model: the generic path of the table."""

    def __init__(self, model):
        self.cells, self.predict_cells = model.cells, model.predict_cells


def features_per_term(dnf: DNF) -> int:
    return max((len({lit.feature for lit in t}) for t in term_literals(dnf)), default=0)


# ---------------------------------------------------------------------- strategies
@st.composite
def mixed_features(draw, low: int = 2, high: int = 4) -> list[Feature]:
    out = []
    for i in range(draw(st.integers(low, high))):
        kind = draw(st.sampled_from(("binary", "categorical", "ordinal")))
        domain = ("r", "g", "b") if kind == "categorical" else None
        out.append(Feature(f"f{i}", kind, domain))
    return out


@st.composite
def condition(draw, feature: Feature) -> Condition:
    if feature.kind == "ordinal":
        lo, hi = sorted(draw(st.lists(st.sampled_from((1.0, 2.0, 3.0)), min_size=2,
                                      max_size=2, unique=True)))
        form = draw(st.sampled_from(("le", "gt", "between")))
        if form == "le":
            return Condition(feature.name, upto=lo)
        if form == "gt":
            return Condition(feature.name, above=lo)
        return Condition(feature.name, above=lo, upto=hi)
    values = draw(st.lists(st.sampled_from(feature.domain), min_size=1,
                           max_size=len(feature.domain) - 1 or 1, unique=True))
    return Condition(feature.name, tuple(values))


def consistent(features, term) -> bool:
    try:
        DNF(features, [0, 1], [term])
    except InvalidModelError:
        return False
    return True


@st.composite
def mixed_dnfs(draw, max_terms: int = 4, max_length: int = 3) -> DNF:
    """Random DNFs over 2-4 binary / categorical / ordinal features (inconsistent terms
    dropped)."""
    features = draw(mixed_features())
    terms = []
    for _ in range(draw(st.integers(0, max_terms))):
        chosen = draw(st.lists(st.sampled_from(features), min_size=1, max_size=max_length))
        term = [draw(condition(f)) for f in chosen]
        if consistent(features, term):
            terms.append(term)
    classes = draw(st.sampled_from(([0, 1], ["no", "yes"])))
    return DNF(features, classes, terms)


binary_literal = st.builds(lambda i, b: (i, b), st.integers(0, 5), st.integers(0, 1))


@st.composite
def binary_kdnfs(draw) -> tuple[DNF, int]:
    """A random k-DNF over 3-6 binary features, k in 1..3."""
    n, k = draw(st.integers(3, 6)), draw(st.integers(1, 3))
    terms = []
    for _ in range(draw(st.integers(1, 7))):
        chosen = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=k, unique=True))
        terms.append([lit(f"x{i}", draw(st.integers(0, 1))) for i in chosen])
    return DNF(bits(n), [0, 1], terms), k


@st.composite
def nested_kdnfs(draw) -> tuple[NestedKDNF, int]:
    """A random nested k-DNF (Section 4): k in 1..3, a k x k matrix of literals over 3-6
    binary features, prefix lists with sum <= k; inconsistent terms are dropped."""
    n, k = draw(st.integers(3, 6)), draw(st.integers(1, 3))
    literal = st.builds(lambda i, b: lit(f"x{i}", b), st.integers(0, n - 1), st.integers(0, 1))
    matrix = [[draw(literal) for _ in range(k)] for _ in range(k)]
    prefixes = []
    for _ in range(draw(st.integers(0, 8))):
        rows = draw(st.lists(st.integers(0, k - 1), max_size=k))  # one unit per pick: sum <= k
        prefix = [rows.count(i) for i in range(k)]
        term = [c for i, row in enumerate(matrix) for c in row[:prefix[i]]]
        if consistent(bits(n), term):
            prefixes.append(prefix)
    return NestedKDNF(bits(n), [0, 1], matrix, prefixes), k


@st.composite
def small_trees(draw) -> DecisionTree:
    features = draw(features_strategy(2, 4))
    classes = draw(st.sampled_from(((0, 1), ("no", "yes", "maybe"))))
    root = draw(node_strategy(features, classes, draw(st.integers(1, 3))))
    return DecisionTree(features, classes, root)


# ---------------------------------------------------------------------- known values
@pytest.mark.parametrize("name", ["dnf-ab-or-cd", "dnf-majority5"])
def test_worked_cases_certificate_complexity(name):
    case = load_case(name)
    model = xdt.load_model(case["model"])
    expected = case["expected_certificate_complexity"]
    assert certificate_complexity(model) == expected
    assert brute_force_cc(model) == expected
    assert is_k_axp_interpretable(model, expected)
    assert not is_k_axp_interpretable(model, expected - 1)
    assert mim_criterion(model, expected)   # both satisfy Lemma 2 at their own k


def test_ab_or_cd_has_mim_2():
    model = xdt.load_model(load_case("dnf-ab-or-cd")["model"])
    graph = literal_term_graph(model)
    assert sorted(graph.nodes[v]["label"] for v in graph if graph.nodes[v]["kind"] == "literal") \
        == ["a = 1", "b = 1", "c = 1", "d = 1"]
    assert nx.is_bipartite(graph) and graph.number_of_edges() == 4
    size, matching = max_induced_matching(graph)
    assert size == 2 == brute_force_mim(graph)
    assert is_induced_matching(graph, matching)
    assert {graph.nodes[t]["label"] for _, t in matching} == {"term 0", "term 1"}
    assert all(graph.nodes[v]["bipartite"] == 0 and graph.nodes[t]["bipartite"] == 1
               for v, t in matching)


@pytest.mark.parametrize("k", [1, 2, 3])
def test_majority_satisfies_lemma_2(k):
    """Example 3: the majority of 2k - 1 bits and its complement have mim <= k (here = k),
    and certificate complexity k; a decision tree needs depth 2k - 1."""
    dnf = majority_dnf(k)
    for d in (dnf, dnf.complement()):
        size, matching = max_induced_matching(literal_term_graph(d))
        assert size == k
        assert is_induced_matching(literal_term_graph(d), matching)
        assert mim_criterion(d, k) and not mim_criterion(d, k - 1)
        assert certificate_complexity(d) == k


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6])
def test_parity_needs_every_feature(n):
    """Section 2: the only AXp of parity is the set of all n features."""
    dnf = parity_dnf(n)
    assert certificate_complexity(dnf) == n
    assert certificate_complexity(np.indices((2,) * n).sum(axis=0) % 2) == n
    assert is_k_axp_interpretable(dnf, n) and not is_k_axp_interpretable(dnf, n - 1)
    if n <= 4:
        assert brute_force_cc(dnf) == n


def test_parity_tree_worked_case():
    model = xdt.load_model(load_case("parity4-tree")["model"])
    assert certificate_complexity(model) == brute_force_cc(model) == 4


def test_constant_models_have_complexity_0():
    f = bits(3)
    for model in (DNF(f, [0, 1], []), DNF(f, [0, 1], [[]]),
                  DNF(f, [0, 1], [[lit("x0", 0)], [lit("x0", 1)]]),   # x0 OR NOT x0
                  DNF(f, [0, 1], [[Condition("x1", (0, 1))]]),
                  DecisionTree(f, ["a", "b"], Leaf("b"))):
        assert certificate_complexity(model) == 0
        assert is_k_axp_interpretable(model, 0)
    assert certificate_complexity(np.zeros((3, 2, 4), dtype=int)) == 0
    assert certificate_complexity(np.array(1)) == 0


def test_features_the_model_ignores_do_not_count():
    """A DNF over 40 features that tests 2: the cell space has 4 points, not 2**40."""
    model = DNF(bits(40), [0, 1], [[lit("x3", 1), lit("x17", 0)]])
    assert certificate_complexity(model) == 2
    # x1 is tested but irrelevant: (x0 AND x1) OR (x0 AND NOT x1) is x0
    model = DNF(bits(3), [0, 1], [[lit("x0", 1), lit("x1", 1)], [lit("x0", 1), lit("x1", 0)]])
    assert certificate_complexity(model) == 1


def test_criterion_is_only_sufficient():
    """(a AND b) OR (NOT a AND b) OR c is b OR c: certificate complexity 2, but G_D has the
    induced matching {a - term 0, NOT a - term 1, c - term 2}, so Lemma 2 does not apply."""
    f = [Feature(n, "binary") for n in "abc"]
    dnf = DNF(f, [0, 1], [[lit("a", 1), lit("b", 1)], [lit("a", 0), lit("b", 1)], [lit("c", 1)]])
    graph = literal_term_graph(dnf)
    size, matching = max_induced_matching(graph)
    assert size == 3 == brute_force_mim(graph)
    assert sorted((graph.nodes[v]["label"], t) for v, t in matching) \
        == [("a = 0", 1), ("a = 1", 0), ("c = 1", 2)]
    assert certificate_complexity(dnf) == brute_force_cc(dnf) == 2
    assert not mim_criterion(dnf, 2) and is_k_axp_interpretable(dnf, 2)
    # the same function as a 2-term DNF passes
    assert mim_criterion(DNF(f, [0, 1], [[lit("b", 1)], [lit("c", 1)]]), 2)


def test_criterion_needs_a_k_dnf():
    """mim of one long term is 1, but the term needs all its features: not k-DNF, False."""
    dnf = DNF(bits(4), [0, 1], [[lit(f"x{i}", 1) for i in range(4)]])
    assert max_induced_matching(literal_term_graph(dnf))[0] == 1
    assert certificate_complexity(dnf) == 4
    assert not mim_criterion(dnf, 1) and not mim_criterion(dnf, 3) and mim_criterion(dnf, 4)


def test_ordinal_intervals_split_into_one_sided_literals():
    """1 < x <= 3 is the two literals 1 < x and x <= 3; with them the matching of
    {1 < x <= 3}, {1 < x, y}, {x <= 3, z} has 2 edges (3 if the interval were one literal),
    and the criterion holds at k = 2, as the certificate complexity confirms."""
    f = [Feature("x", "ordinal"), Feature("y", "binary"), Feature("z", "binary")]
    dnf = DNF(f, [0, 1], [[Condition("x", above=1, upto=3)],
                          [Condition("x", above=1), lit("y", 1)],
                          [Condition("x", upto=3), lit("z", 1)]])
    graph = literal_term_graph(dnf)
    labels = sorted(graph.nodes[v]["label"] for v in graph if graph.nodes[v]["kind"] == "literal")
    assert labels == ["1 < x", "x <= 3", "y = 1", "z = 1"]
    assert sorted(graph.nodes[v]["label"] for v in graph[0]) == ["1 < x", "x <= 3"]
    assert max_induced_matching(graph)[0] == 2 == brute_force_mim(graph)
    assert mim_criterion(dnf, 2)
    assert certificate_complexity(dnf) == brute_force_cc(dnf) == 2
    # x > 1 AND x <= 3 written as two conditions gives the same literals
    same = DNF(f, [0, 1], [[Condition("x", above=1), Condition("x", upto=3)]])
    assert term_literals(same) == [term_literals(dnf)[0]]


def test_categorical_literals_and_trivial_conditions():
    f = [Feature("c", "categorical", ("r", "g", "b")), Feature("d", "binary")]
    dnf = DNF(f, [0, 1], [[Condition("c", ("g", "r")), Condition("d", (0, 1))],
                          [Condition("c", ("r", "g"))], [Condition("c", ("b",))]])
    lits = term_literals(dnf)
    assert lits[0] == lits[1] and len(lits[0]) == 1      # same cells: one literal; d: none
    graph = literal_term_graph(dnf)
    assert sorted(graph.nodes[v]["label"] for v in graph if graph.nodes[v]["kind"] == "literal") \
        == ["c != b", "c = b"]
    assert certificate_complexity(dnf) == 0              # c in {r, g} OR c = b: always 1


def test_learned_models():
    X = np.array([[a, b, c] for a in (0, 1) for b in (0, 1) for c in (0, 1)] * 3, dtype=float)
    y = (X[:, 0] * X[:, 1] + X[:, 2] > 0).astype(int)
    cart = CARTClassifier(max_depth=3).fit(X, y)
    assert certificate_complexity(cart) == certificate_complexity(cart.tree_) == 2
    with pytest.raises(NotFittedError):
        certificate_complexity(CARTClassifier())


def test_learned_nested_kdnf():
    from xdt.learn import NestedKDNFClassifier

    X = pd.DataFrame([[a, b, c, d] for a in (0, 1) for b in (0, 1) for c in (0, 1)
                      for d in (0, 1)] * 2, columns=list("abcd"))
    y = ((X.a & X.b) | (X.c & X.d)).astype(int)
    learner = NestedKDNFClassifier(k=2).fit(X, y)
    assert mim_criterion(learner, 2)
    assert certificate_complexity(learner) <= 2
    assert isinstance(literal_term_graph(learner), nx.Graph)


def test_module_docstrings():
    failures, tried = doctest.testmod(interp)
    assert tried > 0 and failures == 0


def test_reexported():
    for name in ("certificate_complexity", "is_k_axp_interpretable", "literal_term_graph",
                 "max_induced_matching", "mim_criterion"):
        assert name in xdt.metrics.__all__ and getattr(xdt.metrics, name)


# ---------------------------------------------------------------------- properties
@settings(max_examples=examples(120))
@given(mixed_dnfs())
def test_certificate_complexity_equals_brute_force_on_dnfs(dnf):
    cc = certificate_complexity(dnf)
    assert cc == brute_force_cc(dnf)
    assert certificate_complexity(CellModel(dnf)) == cc   # predict_cells, not term boxes
    event(f"certificate complexity {cc}")
    for k in range(len(dnf.features) + 1):
        assert is_k_axp_interpretable(dnf, k) == (cc <= k)


@settings(max_examples=examples(60))
@given(small_trees())
def test_certificate_complexity_equals_brute_force_on_trees(tree):
    cc = certificate_complexity(tree)
    assert cc == brute_force_cc(tree, TREE_GRID)
    event(f"certificate complexity {cc}")
    assert cc <= xdt.metrics.expl_wc(tree)   # an AXp within any path (Example 1)


@settings(max_examples=examples(80))
@given(mixed_dnfs(max_terms=5))
def test_lemma_2_on_mixed_features(dnf):
    """Lemma 2 with ordinal intervals and value sets as literals: certificate complexity is
    at most max(features per term, mim(G_D)); and mim equals the brute force."""
    graph = literal_term_graph(dnf)
    size, matching = max_induced_matching(graph)
    assert is_induced_matching(graph, matching) and len(matching) == size
    if graph.number_of_edges() <= 12:
        assert size == brute_force_mim(graph)
    k = max(features_per_term(dnf), size)
    assert mim_criterion(dnf, k)
    assert brute_force_cc(dnf) <= k


@settings(max_examples=examples(100))
@given(binary_kdnfs())
def test_lemma_2_on_random_kdnfs(case):
    """Whenever mim(G_D) <= k on a k-DNF, the certificate complexity is <= k (Lemma 2)."""
    dnf, k = case
    size, _ = max_induced_matching(literal_term_graph(dnf))
    criterion = mim_criterion(dnf, k)
    assert criterion == (size <= k)        # every term of a k-DNF has <= k features
    event(f"criterion {criterion}")
    cc = certificate_complexity(dnf)
    if criterion:
        assert cc <= k


@settings(max_examples=examples(100))
@given(nested_kdnfs())
def test_proposition_2_nested_kdnfs(case):
    """Every nested k-DNF has mim(G_D) <= k, hence certificate complexity <= k."""
    dnf, k = case
    graph = literal_term_graph(dnf)
    size, matching = max_induced_matching(graph)
    assert size <= k and is_induced_matching(graph, matching)
    assert mim_criterion(dnf, k)
    assert certificate_complexity(dnf) <= k
    assert is_k_axp_interpretable(dnf, k)
    event(f"k={k} terms={len(dnf.terms)}")


@settings(max_examples=examples(80))
@given(st.integers(1, 8), st.integers(0, 12), st.integers(0, 10 ** 6))
def test_max_induced_matching_equals_brute_force(n_nodes, n_edges, seed):
    graph = nx.gnm_random_graph(n_nodes, min(n_edges, n_nodes * (n_nodes - 1) // 2),
                                seed=seed)
    size, matching = max_induced_matching(graph)
    assert size == brute_force_mim(graph) == len(matching)
    assert is_induced_matching(graph, matching)


def test_is_induced_matching():
    path = nx.path_graph(5)   # 0-1-2-3-4
    assert is_induced_matching(path, [(0, 1), (3, 4)])
    assert not is_induced_matching(path, [(0, 1), (2, 3)])   # joined by 1-2
    assert not is_induced_matching(path, [(0, 1), (1, 2)])   # share 1
    assert not is_induced_matching(path, [(0, 2)])           # not an edge
    size, matching = max_induced_matching(path)
    assert size == 2 and is_induced_matching(path, matching)
    assert max_induced_matching(nx.Graph()) == (0, [])


# ---------------------------------------------------------------------- errors
def test_too_large_a_space():
    dnf = DNF(bits(21), [0, 1], [[lit(f"x{i}", 1)] for i in range(21)])
    with pytest.raises(ComputationLimitError, match="max_points") as info:
        certificate_complexity(dnf)
    assert info.value.limit == "max_points" and isinstance(info.value, XdtError)
    with pytest.raises(ComputationLimitError, match="max_points"):
        is_k_axp_interpretable(dnf, 1)
    model = xdt.load_model(load_case("dnf-ab-or-cd")["model"])
    with pytest.raises(ComputationLimitError, match="16 points"):
        certificate_complexity(model, max_points=15)
    with pytest.raises(ComputationLimitError, match="max_points"):
        certificate_complexity(np.zeros((4, 4), dtype=int), max_points=15)


def test_too_much_work():
    parity = np.indices((2,) * 10).sum(axis=0) % 2
    with pytest.raises(ComputationLimitError, match="at least") as info:
        certificate_complexity(parity, max_work=100_000)
    assert info.value.limit == "max_work"
    assert is_k_axp_interpretable(parity, 1, max_work=100_000) is False  # level 1 only


def test_time_limit():
    parity = np.indices((2,) * 14).sum(axis=0) % 2
    with pytest.raises(ComputationLimitError, match="time limit") as info:
        certificate_complexity(parity, time_limit=1e-3)
    assert info.value.limit == "time_limit"


def test_max_induced_matching_limits():
    graph = nx.gnm_random_graph(400, 800, seed=3)
    with pytest.raises(ComputationLimitError) as info:
        max_induced_matching(graph, max_edges=799)
    assert info.value.limit == "max_edges"
    with pytest.raises(ComputationLimitError) as info:
        max_induced_matching(nx.gnm_random_graph(120, 800, seed=3), time_limit=0.2)
    assert info.value.limit == "time_limit"


@pytest.mark.parametrize("bad", [DecisionTree(bits(1), [0, 1], Leaf(0)), "a DNF", None, 3])
def test_graph_functions_need_a_dnf(bad):
    for fn in (literal_term_graph, term_literals, lambda d: mim_criterion(d, 2)):
        with pytest.raises(UnsupportedEstimatorError, match="needs an xdt DNF") as info:
            fn(bad)
        assert isinstance(info.value, TypeError)


def test_bad_arguments():
    dnf = xdt.load_model(load_case("dnf-ab-or-cd")["model"])
    with pytest.raises(UnsupportedEstimatorError):
        certificate_complexity("not a model")
    with pytest.raises(UnsupportedEstimatorError):
        max_induced_matching(nx.DiGraph([(0, 1)]))
    with pytest.raises(UnsupportedEstimatorError):
        max_induced_matching([(0, 1)])
    for kwargs in ({"max_points": 0}, {"time_limit": 0}, {"time_limit": float("nan")},
                   {"max_work": -1}):
        with pytest.raises(ParameterError):
            certificate_complexity(dnf, **kwargs)
    for k in (-1, 1.5, True, "2"):
        with pytest.raises(ParameterError):
            is_k_axp_interpretable(dnf, k)
        with pytest.raises(ParameterError):
            mim_criterion(dnf, k)
    with pytest.raises(ParameterError, match="integers"):
        certificate_complexity(np.zeros((2, 2)))
