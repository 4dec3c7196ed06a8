"""Every error xdt raises on bad input or bad parameters comes from the one hierarchy of
:mod:`xdt.errors`, and is also the built-in exception a Python user expects
(``except ValueError`` keeps working).

The package raises no bare built-in error class (``raise ValueError(...)``): the checker
below parses every module of the package and names each such raise by file and line; a probe
shows that it finds them in a fake source. The call sites named here raise their documented
class, with the built-in base the bare raise had before.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import re
from pathlib import Path

import pytest

import xdt
from xdt import errors
from xdt.errors import (
    BruteForceLimitError,
    ComputationLimitError,
    EngineClosedError,
    MissingFileError,
    NoSelectorError,
    ParameterError,
    UnknownFeatureError,
    XdtError,
)
from xdt.explain.checks import _verify as verify
from xdt.explain.engines._sat import ModelEncoding, SatOracle
from xdt.explain.export._dimacs import encode_query
from xdt.explain.queries._duality import Deadline
from xdt.ir._cells import full_mask
from xdt.ir._instances import encode_instance
from xdt.metrics import redundancy_report

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "xdt"
TENNIS = ROOT / "encodings" / "examples" / "playtennis.json"
X = {"Humidity": "normal", "Outlook": "overcast", "Wind": "strong"}
"""An instance of the tennis tree (Humidity normal: yes; high: Outlook overcast: yes, else
no): predicted "yes" on both paths it could take, so each of Humidity and Outlook alone is
an AXp, and the one CXp changes both."""

#: Built-in error classes the package must not raise bare: a bad input or parameter is an
#: xdt error that is also one of them. Not listed, as no input is bad there:
#: ``NotImplementedError`` (abstract methods), ``AttributeError`` (a module's
#: ``__getattr__``), ``SystemExit`` (the command's exit) and ``AssertionError`` (an
#: internal invariant that cannot fail, said so in a comment beside it).
BANNED = frozenset({
    "Exception", "ValueError", "TypeError", "RuntimeError", "KeyError", "IndexError",
    "LookupError", "OSError", "IOError", "EnvironmentError", "FileNotFoundError",
    "FileExistsError", "IsADirectoryError", "PermissionError", "ArithmeticError",
    "ZeroDivisionError", "OverflowError", "UnicodeError"})


def bare_raises(source: str) -> list[tuple[int, str]]:
    """(line, class) of every ``raise`` of a class of :data:`BANNED`, called or not
    (``raise ValueError``, ``raise TypeError(...)``, ``raise builtins.KeyError(...)``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Raise) or node.exc is None:
            continue
        target = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                and target.value.id == "builtins":
            name = target.attr
        elif isinstance(target, ast.Name):
            name = target.id
        else:
            continue
        if name in BANNED:
            found.append((node.lineno, name))
    return sorted(found)


def test_the_package_raises_no_bare_builtin_error():
    found = [f"{path.relative_to(ROOT)}:{line}: raise {name}"
             for path in sorted(PACKAGE.rglob("*.py"))
             for line, name in bare_raises(path.read_text(encoding="utf-8"))]
    assert found == [], ("raise an error of xdt.errors (ParameterError, DataError, "
                         "InstanceError, ...; it keeps the built-in base) instead of:\n"
                         + "\n".join(found))


def test_the_probe_finds_bare_raises():
    """The checker is not blind: it finds each form of a bare raise, at its line, and passes
    xdt's errors, re-raises and raises of a caught exception."""
    source = (
        "import builtins\n"                                       # 1
        "from xdt.errors import ParameterError\n"                  # 2
        "def f(x):\n"                                              # 3
        "    if x:\n"                                              # 4
        "        raise ValueError(f'bad {x}')\n"                   # 5
        "    try:\n"                                               # 6
        "        g()\n"                                            # 7
        "    except KeyError as e:\n"                              # 8
        "        raise\n"                                          # 9
        "    raise TypeError\n"                                    # 10
        "class C:\n"                                               # 11
        "    def m(self, e):\n"                                    # 12
        "        raise RuntimeError('no') from None\n"             # 13
        "    def n(self, e):\n"                                    # 14
        "        raise e\n"                                        # 15
        "def h():\n"                                               # 16
        "    raise ParameterError('max_count must be positive')\n"  # 17
        "def k():\n"                                               # 18
        "    raise builtins.KeyError('x')\n"                       # 19
        "def z():\n"                                               # 20
        "    raise NotImplementedError\n")                         # 21
    assert bare_raises(source) == [(5, "ValueError"), (10, "TypeError"),
                                   (13, "RuntimeError"), (19, "KeyError")]


def _hierarchy_lines() -> dict[str, str]:
    """Class name -> the built-in base the module docstring's tree names for it ('' when
    none), for each class of the tree."""
    out = {}
    for line in (errors.__doc__ or "").splitlines():
        m = re.search(r"(?:├── |└── |^\s{4})(\w+)(?: \((\w+)\))?", line)
        if m and m.group(1)[0].isupper():
            out.setdefault(m.group(1), m.group(2) or "")
    return out


def test_every_error_class_is_an_xdt_error_in_the_documented_tree():
    classes = {name: cls for name, cls in vars(errors).items()
               if inspect.isclass(cls) and cls.__module__ == errors.__name__}
    drawn = _hierarchy_lines()
    assert set(classes) == set(drawn), set(classes) ^ set(drawn)
    for name, cls in classes.items():
        assert issubclass(cls, XdtError), name
        base = drawn[name]
        if base:  # the tree's "(ValueError)", "(TypeError)", ...: the class is one
            assert issubclass(cls, getattr(builtins, base)), (name, base)
    # the classes added for the bare raises keep those raises' built-in bases
    assert issubclass(errors.ParameterTypeError, ParameterError)
    assert issubclass(errors.ParameterTypeError, TypeError)
    assert issubclass(NoSelectorError, KeyError) and issubclass(NoSelectorError,
                                                                UnknownFeatureError)
    assert issubclass(BruteForceLimitError, ValueError)
    assert issubclass(BruteForceLimitError, ComputationLimitError)
    assert issubclass(MissingFileError, FileNotFoundError)
    assert issubclass(EngineClosedError, RuntimeError)
    assert issubclass(errors.InternalError, RuntimeError)


# ---------------------------------------------------------------------- call sites
@pytest.fixture(scope="module")
def tennis():
    return xdt.load_model(TENNIS)


def test_a_bad_what_and_a_bad_limit_are_the_same_parameter_error(tennis):
    import pandas as pd

    ex = xdt.Explainer(tennis)
    rows = pd.DataFrame([X])
    with pytest.raises(ParameterError, match="what must name some of") as bad_what:
        ex.explain_batch(rows, what="bogus")
    with pytest.raises(ParameterError, match="max_count must be a positive") as bad_limit:
        ex.all_cxps(X, max_count=0)
    assert type(bad_what.value) is type(bad_limit.value) is ParameterError
    assert isinstance(bad_what.value, ValueError)
    # the same arguments, well formed, give the tree's answers
    out = ex.explain_batch(rows, what="axp")
    assert out["axp"].tolist() == [("Humidity",)] and out["prediction"].tolist() == ["yes"]
    assert [e.features for e in ex.all_cxps(X, max_count=1)] == [("Humidity", "Outlook")]


def test_a_missing_model_file_is_a_missing_file_error(tmp_path):
    path = tmp_path / "none.json"
    with pytest.raises(MissingFileError, match="no model file at") as e:
        xdt.load_model(path)
    assert isinstance(e.value, FileNotFoundError) and e.value.path == str(path)


def test_the_brute_force_limit_names_itself(tennis):
    with pytest.raises(BruteForceLimitError, match="brute-force limit of 11") as e:
        verify.cell_space(tennis, max_points=11)  # 2 x 3 x 2 = 12 points
    assert e.value.limit == "max_points" and isinstance(e.value, ValueError)
    points = verify.cell_space(tennis, max_points=12)
    assert points.shape == (12, 3) and len({tuple(p) for p in points.tolist()}) == 12
    found = verify.brute_force(tennis, X)
    assert found.axps == {frozenset({"Humidity"}), frozenset({"Outlook"})}
    assert found.cxps == {frozenset({"Humidity", "Outlook"})}


def test_a_name_without_a_selector_is_a_key_error(tennis):
    query = encode_query(tennis, X)
    assert sorted(query.selectors) == ["Humidity", "Outlook", "Wind"]
    with pytest.raises(NoSelectorError, match="'Age' has no selector") as e:
        query.assumptions(["Humidity", "Age"])
    assert isinstance(e.value, KeyError) and str(e.value).startswith("'Age' has")


def test_a_closed_oracle_is_an_engine_closed_error(tennis):
    _, cells = encode_instance(tennis.features, tennis.cells, X)
    prediction = int(tennis.predict_index([X])[0])
    oracle = SatOracle(ModelEncoding(tennis), cells, [1 << c for c in cells],
                       full_mask(len(cells)), prediction)
    humidity = 1 << tennis.features.index("Humidity")
    assert oracle.entails(humidity) and not oracle.entails(0)
    oracle.close()
    with pytest.raises(EngineClosedError, match="closed") as e:
        oracle.entails(humidity)
    assert isinstance(e.value, RuntimeError)


def test_other_parameters_out_of_range(tennis):
    with pytest.raises(ParameterError, match="positive, finite number of seconds"):
        Deadline(0)
    with pytest.raises(ParameterError, match="y_test needs X_test"):
        redundancy_report(tennis, None, ["yes"])
    with pytest.raises(errors.InstanceShapeError, match="2 labels for 1 rows"):
        redundancy_report(tennis, [X], ["yes", "no"])
    assert redundancy_report(tennis, [X], ["yes"]).accuracy == pytest.approx(100.0)
    assert Deadline(5).seconds == 5.0
