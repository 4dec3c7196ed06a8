"""The DIMACS export of one explanation query (xdt.explain.export._dimacs), checked through PySAT.

For worked cases of the papers and for scikit-learn trees on real data, the written CNF is read
back with ``pysat.formula.CNF`` and solved with a fresh PySAT solver, knowing nothing of xdt but
the file: all selectors assumed -> UNSAT; each AXp of the path engine -> UNSAT; each AXp minus
one feature -> SAT, and the model, decoded into a point with the file's comment lines alone
(parsed here, independently of xdt's reader), is classified differently by ``model.predict``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import load_case
from pysat.formula import CNF
from pysat.solvers import Solver

import xdt
from xdt.explain.engines._sat import ModelEncoding, SatOracle
from xdt.explain.export._dimacs import (
    dimacs_text,
    encode_query,
    parse_dimacs,
    read_dimacs,
    write_dimacs,
)
from xdt.interop._fit import fit_sklearn_tree
from xdt.ir import DecisionTree, Feature, Leaf
from xdt.ir._cells import full_mask
from xdt.ir._instances import encode_instance

WORKED = ["izza-fig3-unrestricted", "zhou-thresholds", "playtennis-multiedge"]


# ---------------------------------------------------------------------- an independent reader
class Mapping:
    """What the comment lines of a written CNF say, read with nothing but ``json``."""

    def __init__(self, comments: list[str]):
        self.vars: dict[int, dict] = {}
        self.fields: dict[str, object] = {}
        for line in comments:
            body = line[2:] if line.startswith("c ") else ""
            key, _, rest = body.partition(" ")
            if key in ("instance", "prediction", "features", "selectors"):
                self.fields[key] = json.loads(rest)
            elif key == "var":
                num, _, tail = rest.partition(" ")
                self.vars[int(num)] = json.loads(tail.split("\t")[-1])

    @property
    def selectors(self) -> dict[str, int]:
        return self.fields["selectors"]  # type: ignore[return-value]

    def decode(self, model: list[int]) -> dict:
        """A point (feature -> value) from a solver's model."""
        true = {v for v in model if v > 0}
        point = dict(self.fields["instance"])  # features without variables keep their value
        above: dict[str, list[tuple[float, bool]]] = {}
        for v, m in self.vars.items():
            if m["type"] == "cell" and v in true:
                point[m["feature"]] = m["value"]
            elif m["type"] == "gt":
                above.setdefault(m["feature"], []).append((m["threshold"], v in true))
        for name, ts in above.items():
            ts.sort()
            below = [t for t, is_above in ts if not is_above]
            # cells are (t_{j-1}, t_j]: the smallest threshold not exceeded is in the cell
            point[name] = below[0] if below else ts[-1][0] + 1.0
        return point


def read_back(path: Path) -> tuple[CNF, Mapping]:
    cnf = CNF(from_file=str(path))
    return cnf, Mapping(cnf.comments)


def check_query(model: DecisionTree, x: dict, path: Path, *, path_restricted: bool = False
                ) -> int:
    """The checks of the module docstring for one instance; returns the number of SAT calls."""
    write_dimacs(model, x, path, path_restricted=path_restricted)
    cnf, mapping = read_back(path)
    prediction = model.predict([x])[0]
    assert mapping.fields["prediction"] == prediction
    sel = mapping.selectors
    ex = xdt.Explainer(model)
    axps = ex.all_axps(x, path_restricted=path_restricted)
    assert axps.complete and len(axps) >= 1
    _, cells_x = encode_instance(model.features, model.cells, x)
    leaf = model.paths[int(model.leaf_paths(np.asarray([cells_x]))[0])]
    names = model.features.names
    calls = 0
    with Solver(name="cadical195", bootstrap_with=cnf.clauses) as solver:
        assert solver.solve(assumptions=list(sel.values())) is False
        calls += 1
        for axp in axps:
            assert solver.solve(assumptions=[sel[f] for f in axp.features]) is False
            calls += 1
            for dropped in axp.features:
                kept = [f for f in axp.features if f != dropped]
                assert solver.solve(assumptions=[sel[f] for f in kept]) is True, (axp, dropped)
                calls += 1
                point = mapping.decode(solver.get_model())
                assert model.predict([point])[0] != prediction, (axp, dropped, point)
                _, cells_p = encode_instance(model.features, model.cells, point)
                for f in kept:  # the point agrees with the instance where it should
                    i = names.index(f)
                    if path_restricted:
                        assert (leaf.masks[i] >> cells_p[i]) & 1, (f, point)
                    else:
                        assert cells_p[i] == cells_x[i], (f, point)
    return calls


# ---------------------------------------------------------------------- worked cases
@pytest.mark.parametrize("name", WORKED)
def test_worked_cases_through_pysat(name, tmp_path):
    case = load_case(name)
    model = xdt.load_model(case["model"])
    for k, q in enumerate(case["queries"]):
        x = q["instance"]
        check_query(model, x, tmp_path / f"{name}-{k}.cnf")
        expected = {frozenset(a) for a in q["axps"]}
        assert {frozenset(e.features) for e in xdt.Explainer(model).all_axps(x)} == expected
        if "path_restricted_axps" in q:
            check_query(model, x, tmp_path / f"{name}-{k}-pr.cnf", path_restricted=True)


def test_izza_fig3_weak_axps_by_brute_force_over_subsets(tmp_path):
    """Every subset of features: UNSAT in the file exactly when the case's AXps say so."""
    case = load_case("izza-fig3-unrestricted")
    model = xdt.load_model(case["model"])
    q = case["queries"][0]
    path = tmp_path / "fig3.cnf"
    write_dimacs(model, q["instance"], path)
    cnf, mapping = read_back(path)
    axps = [set(a) for a in q["axps"]]
    names = model.features.names
    with Solver(name="glucose4", bootstrap_with=cnf.clauses) as solver:
        for bits in range(1 << len(names)):
            subset = {names[i] for i in range(len(names)) if bits >> i & 1}
            weak = any(a <= subset for a in axps)
            unsat = not solver.solve(assumptions=[mapping.selectors[f] for f in subset])
            assert unsat is weak, subset


def test_zhou_header_and_meanings(tmp_path):
    case = load_case("zhou-thresholds")
    model = xdt.load_model(case["model"])
    text = dimacs_text(model, {"x": 0.9, "y": 0.2}, source="zhou.json")
    lines = text.splitlines()
    assert lines[0].startswith("c xdt-dimacs/1")
    assert "c model: zhou.json: decision tree, 2 features" in text
    assert 'c instance {"x": 0.9, "y": 0.2}' in lines
    assert 'c prediction "cross"' in lines
    assert 'c selectors {"x": 3, "y": 4}' in lines
    assert any("UNSAT" in line and "all selectors" in line for line in lines)
    assert any("weak AXp" in line for line in lines)
    var_lines = [line.split("\t")[0] for line in lines if line.startswith("c var ")]
    assert var_lines == ["c var 1 x > 0.64", "c var 2 y > 0.73",
                         "c var 3 selector of x: fixes 0.64 < x",
                         "c var 4 selector of y: fixes y <= 0.73"]
    p_line = next(line for line in lines if line.startswith("p "))
    assert p_line == "p cnf 4 4"
    assert all(line.startswith("c") for line in lines[:lines.index(p_line)])


# ---------------------------------------------------------------------- real data
@pytest.fixture(scope="module")
def german_tree():
    from conftest import DATASETS, require_shared

    require_shared(DATASETS)
    frame = pd.read_csv(DATASETS / "german.csv")
    fit = fit_sklearn_tree(frame, "class", max_depth=6, seed=1)
    return fit.model, fit.test.drop(columns=["class"])


def test_sklearn_tree_on_german_through_pysat(german_tree, tmp_path):
    model, rows = german_tree
    calls = 0
    for i, x in enumerate(rows.head(8).to_dict("records")):
        calls += check_query(model, x, tmp_path / f"g{i}.cnf")
    for i, x in enumerate(rows.iloc[8:11].to_dict("records")):
        calls += check_query(model, x, tmp_path / f"g{i}-pr.cnf", path_restricted=True)
    assert calls > 30


def test_random_tree_on_banknote_unbounded(datasets_dir, tmp_path):
    frame = pd.read_csv(datasets_dir / "banknote.csv")
    fit = fit_sklearn_tree(frame, frame.columns[-1], max_depth=None, seed=3)
    rng = np.random.default_rng(0)
    rows = fit.test.drop(columns=[frame.columns[-1]])
    for i in rng.choice(len(rows), size=6, replace=False):
        check_query(fit.model, rows.iloc[int(i)].to_dict(), tmp_path / f"b{i}.cnf")


# ---------------------------------------------------------------------- against SatOracle
def test_clauses_are_the_sat_oracles(german_tree):
    model, rows = german_tree
    for x in rows.head(5).to_dict("records"):
        for pr in (False, True):
            q = encode_query(model, x, path_restricted=pr)
            _, cells = encode_instance(model.features, model.cells, x)
            path = model.paths[int(model.leaf_paths(np.asarray([cells]))[0])]
            allowed = (tuple(path.masks.get(f, full_mask(c.n_cells))
                             for f, c in enumerate(model.cells)) if pr
                       else tuple(1 << c for c in cells))
            with SatOracle(ModelEncoding(model), cells, allowed, 0, path.class_index) as o:
                assert q.clauses == o.clauses
                assert [q.variables[s]["feature"] for s in o.selectors] == \
                    list(model.features.names)
            if pr:
                assert set(q.selectors) == {model.features.names[f] for f in path.masks}
            else:
                assert list(q.selectors) == list(model.features.names)


def test_every_variable_is_described(german_tree):
    model, rows = german_tree
    q = encode_query(model, rows.iloc[0].to_dict())
    assert sorted(q.variables) == list(range(1, q.n_vars + 1))
    kinds = {m["type"] for m in q.variables.values()}
    assert kinds == {"cell", "gt", "selector", "aux"}  # purpose has 10 values: seqcounter
    aux = [m for m in q.variables.values() if m["type"] == "aux"]
    assert all(m["feature"] is not None and "exactly-one" in m["text"] for m in aux)


# ---------------------------------------------------------------------- reading back
def test_parse_dimacs_round_trip_and_decode(german_tree, tmp_path):
    model, rows = german_tree
    x = rows.iloc[2].to_dict()
    path = tmp_path / "q.cnf"
    written = write_dimacs(model, x, path, source="german")
    back = read_dimacs(path)
    assert back.clauses == written.clauses == CNF(from_file=str(path)).clauses
    assert back.n_vars == written.n_vars and back.selectors == written.selectors
    assert back.variables == written.variables
    assert back.instance == written.instance and back.prediction == written.prediction
    assert back.to_text() == written.to_text() == path.read_text()
    mapping = Mapping(CNF(from_file=str(path)).comments)
    with Solver(name="cadical195", bootstrap_with=back.clauses) as solver:
        assert solver.solve(assumptions=back.assumptions([]))
        found = solver.get_model()
    point = back.decode(found)
    assert model.predict([point])[0] != written.prediction
    # both readers land in the same cells
    assert model.encode([point]).tolist() == model.encode([mapping.decode(found)]).tolist()
    with pytest.raises(KeyError, match="no selector"):
        back.assumptions(["nope"])
    with pytest.raises(ValueError, match="p cnf"):
        parse_dimacs("c nothing\n")


def test_one_leaf_tree_has_the_empty_clause(tmp_path):
    tree = DecisionTree([Feature("a", "binary")], ["only"], Leaf("only"))
    path = tmp_path / "leaf.cnf"
    write_dimacs(tree, {"a": 1}, path)
    cnf = CNF(from_file=str(path))
    assert [] in cnf.clauses
    with Solver(name="cadical195", bootstrap_with=cnf.clauses) as solver:
        assert solver.solve() is False  # nothing changes the prediction: {} is an AXp


def test_a_decision_list_query_through_pysat(tmp_path):
    """The risk list of encodings/examples: at (45, 0, running) rule 3 (40 < age) fires; its
    AXp is {age, sport} (sport = running keeps rule 1 false; smoker = 0 already falsifies
    rule 0 and age 45 too). Every subset: UNSAT in the file exactly when it holds age and
    sport; each rule variable is named with its rule and class."""
    model = xdt.load_model(Path(__file__).resolve().parent.parent / "encodings" / "examples"
                           / "risk-list.json")
    x = {"age": 45, "smoker": 0, "sport": "running"}
    path = tmp_path / "risk.cnf"
    write_dimacs(model, x, path)
    cnf, mapping = read_back(path)
    rules = {m["rule"]: (m["class"], m["conditions"]) for m in mapping.vars.values()
             if m["type"] == "rule"}
    assert rules == {0: ("high", "age <= 20 AND smoker = 1"), 1: ("mid", "sport = climbing"),
                     2: ("low", "sport = none AND smoker = 0"), 3: ("high", "40 < age")}
    names = model.features.names
    with Solver(name="glucose4", bootstrap_with=cnf.clauses) as solver:
        for bits in range(1 << len(names)):
            subset = {names[i] for i in range(len(names)) if bits >> i & 1}
            unsat = not solver.solve(assumptions=[mapping.selectors[f] for f in subset])
            assert unsat is ({"age", "sport"} <= subset), subset
            if not unsat:   # the solver's point, read from the comments alone, is not high
                assert model.predict([mapping.decode(solver.get_model())])[0] != "high"
