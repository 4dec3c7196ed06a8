"""Deep trees: loading, saving and one AXp of chains 1,000 / 10,000 / 19,000 levels deep.

A chain of depth ``d`` is the deepest tree of ``d`` tests: node ``i`` sends its left edge to
a leaf (class ``a`` for even ``i``, ``b`` for odd) and its right edge on down the chain.
Two kinds:

* one feature: node ``i`` tests ``x <= i + 0.5`` (one ordinal feature of ``d + 1`` cells);
* many features: node ``i`` tests ``x_i <= 0.5`` (``d`` features, one per level).

For each depth and kind: the JSON file's size; ``xdt.load_model`` of it (CPU seconds by
``time.process_time`` and the peak of Python's allocations by ``tracemalloc``);
``xdt.save_model``; and one AXp, ``xdt.Explainer(model).axp(x)`` with a fresh explainer on
an instance that reaches a deep leaf (CPU seconds, after a warm-up on a small chain so that
loading the compiled kernels is not counted). A many-feature chain's paths hold
``d^2 / 2`` per-feature cell sets in all (path ``j`` tests ``j`` features), so its AXp is
measured up to ``--many-axp-depth`` (default 3,000) only.

Run from the project root:

    python benchmarks/deep_trees.py [--depths 1000 10000 19000] [--many-axp-depth 3000]
"""

from __future__ import annotations

import argparse
import json
import os
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depths", type=int, nargs="+", default=[1_000, 10_000, 19_000])
    parser.add_argument("--many-axp-depth", type=int, default=3_000)
    args = parser.parse_args()
    sys.setrecursionlimit(100_000)  # json.dumps of the documents below (not xdt's code)
    warm = xdt.load_model(chain_doc(10, False))
    xdt.Explainer(warm).axp(instance(10, False))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
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
                t = time.process_time()
                xdt.save_model(model, os.path.join(tmp, "saved.json"))
                save = time.process_time() - t
                axp = None
                if not many or depth <= args.many_axp_depth:
                    model = xdt.load_model(path)  # a fresh model: nothing built yet
                    t = time.process_time()
                    xdt.Explainer(model).axp(instance(depth, many))
                    axp = time.process_time() - t
                rows.append((("many" if many else "one"), depth, size, load, peak, save, axp))
    print(f"{'features':>8} {'depth':>6} {'file MB':>8} {'load s':>7} {'load peak MB':>12} "
          f"{'save s':>7} {'AXp s':>7}")
    for kind, depth, size, load, peak, save, axp in rows:
        print(f"{kind:>8} {depth:>6} {size / 1e6:>8.2f} {load:>7.2f} {peak / 1e6:>12.1f} "
              f"{save:>7.2f} {'-' if axp is None else f'{axp:.2f}':>7}")


if __name__ == "__main__":
    main()
