"""The compiled kernels read their tables by name: the arrays a kernel reads come grouped in a
named tuple defined once, beside the constants that name the columns of its 2-D tables, so no
kernel module, and no module that builds or reads their tables, indexes a table by a column
number (``nodes[n, 3]``), and no kernel takes a long list of arrays."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "xdt"

#: The most parameters a kernel may declare (the spread tables of ``*tables`` count as one):
#: beyond it, some of its arrays belong together in a named tuple.
MOST_PARAMETERS = 12


def _is_njit(node: ast.expr, aliases: set[str]) -> bool:
    """Whether a decorator compiles its function: ``njit(...)``, ``numba.njit`` or a name
    bound to ``njit(...)`` in the module (``_jit = njit(cache=True)``)."""
    target = node.func if isinstance(node, ast.Call) else node
    name = ast.unparse(target)
    return name.split(".")[-1] == "njit" or name in aliases


def kernels(source: str) -> dict[str, int]:
    """The kernels defined in ``source`` (functions compiled by numba's ``njit``), with the
    number of parameters each declares."""
    tree = ast.parse(source)
    aliases = {t.id for node in tree.body if isinstance(node, ast.Assign)
               and isinstance(node.value, ast.Call) and _is_njit(node.value, set())
               for t in node.targets if isinstance(t, ast.Name)}
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and any(
                _is_njit(d, aliases) for d in node.decorator_list):
            a = node.args
            out[node.name] = len(a.posonlyargs) + len(a.args) + (a.vararg is not None)
    return out


def column_numbers(source: str) -> list[str]:
    """The subscripts of ``source`` that index a table (two or more indices) by a literal
    column number, its last index: ``nodes[n, 3]``, ``paths[:, 2]``, ``x[i, -1]``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Tuple)
                and len(node.slice.elts) >= 2):
            continue
        last = node.slice.elts[-1]
        if isinstance(last, ast.UnaryOp) and isinstance(last.op, ast.USub):
            last = last.operand
        if (isinstance(last, ast.Constant) and isinstance(last.value, int)
                and not isinstance(last.value, bool)):
            found.append((node.lineno, node.col_offset, ast.unparse(node)))
    return [f"{line}: {text}" for line, _, text in sorted(found)]


def _name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def _sources() -> dict[str, str]:
    return {_name(p): p.read_text(encoding="utf-8") for p in PACKAGE.rglob("*.py")}


def _imported(module: str, source: str) -> set[str]:
    """The modules ``source`` imports (at the top or inside functions), as dotted names;
    ``from a import b`` counts ``a`` and ``a.b``."""
    out = set()
    package = module.rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(filter(None, [package.rsplit(".", node.level - 1)[0], base]))
            out.add(base)
            out.update(f"{base}.{alias.name}" for alias in node.names)
    return out


@cache
def kernel_modules() -> set[str]:
    return {m for m, src in _sources().items() if kernels(src)}


@cache
def table_modules() -> set[str]:
    """The kernel modules and the modules that import one (they build or read the tables)."""
    ks = kernel_modules()
    return ks | {m for m, src in _sources().items() if _imported(m, src) & ks}


FAKE = '''
import numpy as np
from xdt._numba import njit

NODE_CUT = 3
_jit = njit(cache=True)


@njit(cache=True)
def leaf_of(nodes, children, cells):
    cut = nodes[0, 3]
    named = nodes[0, NODE_CUT]
    return children[cut] + cells[-1] + nodes[2, 0] + named


@_jit
def long(a, b, c, d, e, f, g, h, i, j, k, l, m, *rest):
    return a[:, -1], b[0], c[1:3]


def plain(x):
    return x[:, 2]
'''


def test_the_scans_find_column_numbers_and_kernels_in_a_source():
    """Probe: the scans see what they look for in a made-up module."""
    assert column_numbers(FAKE) == ["11: nodes[0, 3]", "13: nodes[2, 0]", "18: a[:, -1]",
                                    "22: x[:, 2]"]
    assert kernels(FAKE) == {"leaf_of": 3, "long": 14}


def test_the_scans_cover_the_kernel_modules_and_their_callers():
    """By the modules' own names (the last part, without the underscore of a private module:
    the packages around them may move)."""
    ks = kernel_modules()
    last = [m.rsplit(".", 1)[-1].lstrip("_") for m in sorted(ks)]
    assert last.count("kernels") == 3  # the path-walker's, the growth's, the clustering's
    assert {"ensemble_kernels", "nested_kernels"} <= set(last)
    assert {"compiled", "path", "vectorised", "ensemble_box", "growth", "nested",
            "supervised"} <= {m.rsplit(".", 1)[-1].lstrip("_") for m in table_modules() - ks}


@pytest.mark.parametrize("module", sorted(table_modules()))
def test_no_table_is_read_by_column_number(module):
    """Columns are read by the constants their table's module defines
    (``nodes[n, NODE_CUT]``), never by number."""
    assert column_numbers(_sources()[module]) == []


@pytest.mark.parametrize("module", sorted(kernel_modules()))
def test_no_kernel_takes_a_long_argument_list(module):
    long = {k: n for k, n in kernels(_sources()[module]).items() if n > MOST_PARAMETERS}
    assert long == {}


def test_the_slice_tables_are_the_tree_tables_arrays():
    """:class:`SliceTables` names a subset of :class:`TreeTables`' fields, and a compiled
    tree's ``slice_tables`` hold the very arrays of its ``tables`` (no copy that could
    drift), so the one-row AXp kernel reads what the other kernels read."""
    import xdt
    from xdt.explain.engines._compiled import compiled
    from xdt.explain.engines._kernels import SliceTables, TreeTables

    assert set(SliceTables._fields) < set(TreeTables._fields)
    import numpy as np
    from sklearn.tree import DecisionTreeClassifier

    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 2, dtype=float)
    tree = xdt.from_sklearn(DecisionTreeClassifier(random_state=0).fit(X, X[:, 0] * X[:, 1]))
    ct = compiled(tree)
    for name in SliceTables._fields:
        assert getattr(ct.slice_tables, name) is getattr(ct.tables, name)
