"""Deep trees: loading, saving and one AXp of chains 1,000 / 10,000 / 19,000 levels deep.

A chain of depth ``d`` is the deepest tree of ``d`` tests: node ``i`` sends its left edge to
a leaf (class ``a`` for even ``i``, ``b`` for odd) and its right edge on down the chain.
Two kinds:

* one feature: node ``i`` tests ``x <= i + 0.5`` (one ordinal feature of ``d + 1`` cells);
* many features: node ``i`` tests ``x_i <= 0.5`` (``d`` features, one per level).

For each depth and kind: the JSON file's size; ``xdt.load_model`` of it (CPU seconds by
``time.process_time`` and the peak of Python's allocations by ``tracemalloc``; and, in a
child process that only imports xdt and loads the file, its maximum resident set size,
beside that of a child that loads a tree of one test); ``xdt.save_model``; and one AXp,
``xdt.Explainer(model).axp(x)`` with a fresh explainer on an instance that reaches a deep
leaf (CPU seconds, after a warm-up on small chains so that loading the compiled kernels is
not counted). Both kinds of chain are compiled in edge form (each node keeps the literal of
the edge from its parent: :mod:`xdt.explain.engines._edge_kernels`), whose tables are
linear in the tree's size although a many-feature chain's paths hold ``d^2 / 2`` literals in
all (path ``j`` tests ``j`` features). ``--many-axp-depth`` bounds the depths whose
many-feature AXp is measured (default: all).

Run from the project root:

    python benchmarks/deep_trees.py [--depths 1000 10000 19000] [--many-axp-depth 19000]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc

import xdt


def chain_doc(depth: int, many: bool) -> dict:
    """The ``xdt-model/1`` document of a chain (see the module docstring)."""
    features = ([{"name": f"x{i}", "kind": "ordinal"} for i in range(depth)] if many
                else [{"name": "x", "kind": "ordinal"}])
    node: dict = {"class": "b"}
    for i in reversed(range(depth)):
        node = {"feature": f"x{i}" if many else "x", "threshold": 0.5 if many else i + 0.5,
                "left": {"class": "a" if i % 2 == 0 else "b"}, "right": node}
    return {"format": "xdt-model/1", "kind": "tree", "features": features,
            "classes": ["a", "b"], "root": node}


def instance(depth: int, many: bool) -> dict:
    """All features 1 (many: the last leaf, every even level in the AXp) or ``x`` in the
    middle cell (one feature)."""
    return {f"x{i}": 1.0 for i in range(depth)} if many else {"x": float(depth // 2)}


_RSS = """import sys
import xdt
xdt.load_model(sys.argv[1])
with open("/proc/self/status") as f:
    print(next(line.split()[1] for line in f if line.startswith("VmHWM:")))
"""


def max_rss(path: str) -> float:
    """The maximum resident set size, in MB, of a child process that imports xdt and loads
    the model file ``path``: its ``VmHWM`` (Linux), which,
    unlike ``ru_maxrss``, does not count the parent's pages the child held before its
    ``exec``."""
    done = subprocess.run([sys.executable, "-c", _RSS, path],
                          check=True, capture_output=True, text=True)
    return int(done.stdout.split()[-1]) / 1024  # in KiB


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depths", type=int, nargs="+", default=[1_000, 10_000, 19_000])
    parser.add_argument("--many-axp-depth", type=int, default=None)
    args = parser.parse_args()
    sys.setrecursionlimit(100_000)  # json.dumps of the documents below (not xdt's code)
    for many in (False, True):  # the dense and the edge kernels
        for depth in (10, 400):
            warm = xdt.load_model(chain_doc(depth, many))
            xdt.Explainer(warm).axp(instance(depth, many))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "chain.json")
        with open(path, "w", encoding="utf-8") as f:
            f.write(json.dumps(chain_doc(1, False)))
        base_rss = max_rss(path)
        for many in (False, True):
            for depth in args.depths:
                path = os.path.join(tmp, "chain.json")
                with open(path, "w", encoding="utf-8") as f:
                    f.write(json.dumps(chain_doc(depth, many)))
                size = os.path.getsize(path)
                tracemalloc.start()
                t = time.process_time()
                model = xdt.load_model(path)
                load = time.process_time() - t
                peak = tracemalloc.get_traced_memory()[1]
                tracemalloc.stop()
                rss = max_rss(path)
                t = time.process_time()
                xdt.save_model(model, os.path.join(tmp, "saved.json"))
                save = time.process_time() - t
                axp = None
                if not many or args.many_axp_depth is None or depth <= args.many_axp_depth:
                    model = xdt.load_model(path)  # a fresh model: nothing built yet
                    t = time.process_time()
                    xdt.Explainer(model).axp(instance(depth, many))
                    axp = time.process_time() - t
                rows.append((("many" if many else "one"), depth, size, load, peak, rss, save,
                             axp))
    print(f"max RSS of a process that loads a tree of one test: {base_rss:.0f} MB")
    print(f"{'features':>8} {'depth':>6} {'file MB':>8} {'load s':>7} {'load peak MB':>12} "
          f"{'load RSS MB':>11} {'save s':>7} {'AXp s':>7}")
    for kind, depth, size, load, peak, rss, save, axp in rows:
        print(f"{kind:>8} {depth:>6} {size / 1e6:>8.2f} {load:>7.2f} {peak / 1e6:>12.1f} "
              f"{rss:>11.0f} {save:>7.2f} {'-' if axp is None else f'{axp:.2f}':>7}")


if __name__ == "__main__":
    main()
