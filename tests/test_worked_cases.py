"""The worked examples of the papers (../shared/cases/worked): the explainer, with the path
engine and with the SAT engine, reproduces every query's AXps, CXps, path-restricted AXps and
path redundancy, and every tree's counts of paths and redundant paths; on the DNF cases
(Cooper, Bousdira & Carbonnel, "Interpretable DNFs", IJCAI 2025) the SAT engine reproduces
the AXps and CXps and keeps every AXp within the case's certificate complexity; an
independent brute force confirms the case files themselves."""

from __future__ import annotations

import pytest
from conftest import ABSENT, CASES, case_names, load_case, require_shared, tree_case_names

import xdt
from xdt.explain.checks import _verify as verify
from xdt.ir._cells import cells_of

NAMES = tree_case_names()
DNF_NAMES = [n for n in case_names() if n == ABSENT or n not in NAMES]
ENGINES = ("path", "sat")


def as_sets(lists) -> set[frozenset[str]]:
    return {frozenset(names) for names in lists}


def feature_sets(explanations) -> set[frozenset[str]]:
    return {frozenset(e.features) for e in explanations}


def queries(names=NAMES):
    if names == [ABSENT]:  # the tests run once and report the absence
        return [pytest.param(ABSENT, 0, id=ABSENT)]
    return [pytest.param(name, k, id=f"{name}-q{k}")
            for name in names for k in range(len(load_case(name)["queries"]))]


def test_worked_cases_present():
    """The shared cases exist (fails under CI=true when they are absent)."""
    require_shared(CASES)
    assert len(NAMES) >= 8, NAMES


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("name", "k"), queries())
def test_query_reproduced(name, k, engine):
    case = load_case(name)
    q = case["queries"][k]
    tree = xdt.load_model(case["model"])
    with xdt.Explainer(tree, engine=engine) as ex:
        x = q["instance"]
        assert ex.predict(x) == q["prediction"]
        assert tree.predict([x])[0] == q["prediction"]
        axps = ex.all_axps(x)
        assert feature_sets(axps) == as_sets(q["axps"])
        assert feature_sets(ex.all_cxps(x)) == as_sets(q["cxps"])
        assert len(ex.smallest_axp(x)) == min(len(a) for a in q["axps"])
        assert frozenset(ex.axp(x).features) in as_sets(q["axps"])
        if "path" in q:
            assert list(ex.path_features(x)) == q["path"]
        if "path_restricted_axps" in q:
            assert feature_sets(ex.all_axps(x, path_restricted=True)) == \
                as_sets(q["path_restricted_axps"])
        if "path_redundant" in q:
            assert ex.path_is_redundant(x) is q["path_redundant"]
        for axp in axps:  # the SAT verifier agrees, whatever the engine
            assert verify.check_axp_sat(tree, x, axp.features).is_axp


def test_dnf_cases_present():
    require_shared(CASES)
    assert {"dnf-ab-or-cd", "dnf-majority5"} <= set(DNF_NAMES), DNF_NAMES


@pytest.mark.parametrize(("name", "k"), queries(DNF_NAMES))
def test_dnf_query_reproduced(name, k):
    """The SAT engine (the default for DNFs) reproduces a DNF case: prediction, all AXps,
    all CXps, a smallest AXp; the default AXp is one of them and has at most
    ``expected_certificate_complexity`` features (Cooper et al., Section 2); every
    certificate re-checks and the SAT verifier of xdt.explain.checks._verify agrees."""
    case = load_case(name)
    q = case["queries"][k]
    model = xdt.load_model(case["model"])
    assert model.kind in ("dnf", "nested-kdnf")
    with xdt.Explainer(model) as ex:
        assert ex.engine == "sat"
        x = q["instance"]
        assert ex.predict(x) == q["prediction"] == model.predict([x])[0]
        axps = ex.all_axps(x, verify=True)
        assert feature_sets(axps) == as_sets(q["axps"])
        assert feature_sets(ex.all_cxps(x, verify=True)) == as_sets(q["cxps"])
        assert len(ex.smallest_axp(x)) == min(len(a) for a in q["axps"])
        axp = ex.axp(x, verify=True)
        assert frozenset(axp.features) in as_sets(q["axps"])
        assert len(axp) <= case["expected_certificate_complexity"]
        for a in axps:
            assert verify.check_axp_sat(model, x, a.features).is_axp


@pytest.mark.parametrize(("name", "k"), queries(NAMES) + [
    p for p in queries(DNF_NAMES) if p.values[0] != ABSENT])
def test_case_file_agrees_with_brute_force(name, k):
    """The case files' answers are themselves right: brute force over the cell space."""
    case = load_case(name)
    q = case["queries"][k]
    tree = xdt.load_model(case["model"])  # a tree, or a DNF
    x = q["instance"]
    bf = verify.brute_force(tree, x)
    assert bf.prediction == q["prediction"]
    assert bf.axps == as_sets(q["axps"])
    assert bf.cxps == as_sets(q["cxps"])
    if "path_restricted_axps" in q:
        bfp = verify.brute_force(tree, x, path_restricted=True)
        assert bfp.axps == as_sets(q["path_restricted_axps"])
        assert bfp.candidates == frozenset(q["path"])
        # the path is redundant exactly when its features are not themselves the AXp
        assert (bfp.axps != {frozenset(q["path"])}) is q["path_redundant"]
    for axp in bf.axps:
        report = verify.check_axp(tree, x, axp)
        assert report.is_axp
        for feature, point in report.drop_counterexamples.items():
            assert tree.predict([point])[0] != q["prediction"], feature


def instance_on_path(tree, path) -> dict:
    """A point reaching ``path``'s leaf: a value of the lowest cell its literals allow."""
    point = {}
    for f, cells in enumerate(tree.cells):
        mask = path.masks.get(f)
        point[cells.name] = cells.value(next(cells_of(mask)) if mask else 0)
    return point


def redundant_paths(tree, engine: str = "path") -> tuple[int, int]:
    """(paths whose instances have a redundant path by the explainer, same by brute force)."""
    by_explainer = by_brute_force = 0
    with xdt.Explainer(tree, engine=engine) as ex:
        for path in tree.paths:
            if not path.consistent:
                continue
            x = instance_on_path(tree, path)
            assert tree.leaf_paths(tree.encode([x]))[0] == path.index
            by_explainer += ex.path_is_redundant(x)
            names = frozenset(tree.features.names[f] for f in path.masks)
            by_brute_force += verify.brute_force(tree, x, path_restricted=True).axps != {names}
    return by_explainer, by_brute_force


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", [n for n in NAMES
                                  if n == ABSENT or "expected_paths" in load_case(n)])
def test_path_counts(name, engine):
    case = load_case(name)
    tree = xdt.load_model(case["model"])
    assert len(tree.paths) == case["expected_paths"]
    assert redundant_paths(tree, engine) == (case["expected_redundant_paths"],) * 2
