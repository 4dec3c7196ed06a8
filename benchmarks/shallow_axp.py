"""One-row AXps on depth-6 trees, two checkouts of xdt side by side: did a change to the
path-walker slow down the common case?

For each checkout (a folder put first on ``PYTHONPATH``) and each tree (compas and german,
scikit-learn trees of depth 6 on 70% of the rows, as ``benchmarks/engines.py`` fits them), a
child process times ``--calls`` AXps, ``xdt.Explainer(model).axp(row)`` with a fresh
``Explainer`` each (the model's compiled tables are kept, so no call rebuilds them), over the
distinct test rows in turn, after one warm-up pass; it prints the median CPU time of a call
(``time.process_time_ns``). The checkouts take turns, ``--rounds`` times, and the table gives
each one's median over the rounds and the ratio to the first checkout.

Run from the project root:

    python benchmarks/shallow_axp.py /work/main . [--calls 1000] [--rounds 5]
    python benchmarks/shallow_axp.py /work/main . --callgrind PYTHON [--calls 1000]

With ``--callgrind``, each checkout and tree runs once under valgrind's callgrind, its
instrumentation turned on only around the timed AXps (``callgrind_control -i on/off``), and
the table gives the instructions per AXp: deterministic, where CPU times on a shared machine
move by a few per cent from run to run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DATASETS = Path(os.environ.get("XDT_DATASETS", "/work/shared/datasets"))
TREES = ("compas", "german")


def _toggle(state: str) -> None:
    """Turn callgrind's instrumentation of this process ``on`` or ``off``, waiting (in
    short sleeps, which callgrind counts as a few instructions) until it has."""
    p = subprocess.Popen(["callgrind_control", "-i", state, str(os.getpid())],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while p.poll() is None:
        time.sleep(0.002)


def child(calls: int, trees: tuple[str, ...], counted: bool) -> None:
    """Time the AXps of the xdt on ``sys.path`` and print ``{tree: median ns}`` as JSON;
    ``counted``: run under callgrind, whose instrumentation is on around the AXps only."""
    import numpy as np
    import pandas as pd
    from sklearn.model_selection import train_test_split
    from sklearn.tree import DecisionTreeClassifier

    import xdt
    from xdt.interop._tabular import TabularEncoder

    out = {}
    for name in trees:
        frame = pd.read_csv(DATASETS / f"{name}.csv", keep_default_na=False)
        target = frame.columns[-1]
        _, y = np.unique(frame.pop(target).astype(str).to_numpy(), return_inverse=True)
        enc = TabularEncoder().fit(frame)
        tr, te = train_test_split(np.arange(len(frame)), test_size=0.3, random_state=0)
        est = DecisionTreeClassifier(max_depth=6, random_state=0).fit(
            enc.transform(frame)[tr], y[tr])
        model = xdt.from_sklearn(est, encoder=enc, target=target)
        test = frame.iloc[te]
        _, first = np.unique(model.encode(test), axis=0, return_index=True)
        rows = [test.iloc[i].to_dict() for i in np.sort(first)[:200]]
        for row in rows:  # warm-up: kernels loaded, tables compiled
            xdt.Explainer(model).axp(row)
        times = []
        clock = time.process_time_ns
        if counted:
            _toggle("on")
        for k in range(calls):
            row = rows[k % len(rows)]
            t = clock()
            xdt.Explainer(model).axp(row)
            times.append(clock() - t)
        if counted:
            _toggle("off")
        out[name] = statistics.median(times)
    print(json.dumps(out))


def counts(checkouts: list[str], calls: int, python: str) -> None:
    """Instructions per AXp of each checkout and tree, counted by callgrind."""
    out = {}
    for c in checkouts:
        env = dict(os.environ, PYTHONPATH=os.path.abspath(c), PYTHONHASHSEED="0")
        for t in TREES:
            with tempfile.TemporaryDirectory() as tmp:
                dump = os.path.join(tmp, "callgrind.out")
                subprocess.run(["valgrind", "--tool=callgrind", "--instr-atstart=no",
                                f"--callgrind-out-file={dump}", python, __file__, "--child",
                                "--counted", "--tree", t, "--calls", str(calls)],
                               env=env, check=True, capture_output=True)
                with open(dump, encoding="utf-8") as f:
                    total = next(int(line.split()[1]) for line in f
                                 if line.startswith("totals:"))
            out[c, t] = total / calls
            print(f"{c} {t}: {total / calls:.0f} instructions per AXp", file=sys.stderr)
    print(f"{'checkout':>24} {'tree':>8} {'instr/AXp':>10} {'ratio':>6}")
    for c in checkouts:
        for t in TREES:
            print(f"{c[-24:]:>24} {t:>8} {out[c, t]:>10.0f} "
                  f"{out[c, t] / out[checkouts[0], t]:>6.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkouts", nargs="*", default=[])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--callgrind", metavar="PYTHON",
                        help="count instructions instead, under valgrind's callgrind, with "
                             "this Python (one without a debugger's hooks; e.g. "
                             "/root/.pyenv/versions/3.11.7/bin/python): one run per checkout "
                             "and tree, instructions per AXp")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--tree", action="append", help=argparse.SUPPRESS)
    parser.add_argument("--counted", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.calls, tuple(args.tree or TREES), args.counted)
        return
    if args.callgrind:
        counts(args.checkouts, args.calls, args.callgrind)
        return
    results: dict[str, dict[str, list[float]]] = {c: {t: [] for t in TREES}
                                                  for c in args.checkouts}
    for r in range(args.rounds):
        for c in args.checkouts:
            env = dict(os.environ, PYTHONPATH=os.path.abspath(c))
            done = subprocess.run([sys.executable, __file__, "--child", "--calls",
                                   str(args.calls)], env=env, check=True,
                                  capture_output=True, text=True)
            for t, ns in json.loads(done.stdout.strip().splitlines()[-1]).items():
                results[c][t].append(ns)
            print(f"round {r + 1}: {c} {done.stdout.strip()}", file=sys.stderr)
    base = args.checkouts[0]
    print(f"{'checkout':>24} {'tree':>8} {'median us':>10} {'ratio':>6}")
    for c in args.checkouts:
        for t in TREES:
            m = statistics.median(results[c][t])
            ratio = m / statistics.median(results[base][t])
            print(f"{c[-24:]:>24} {t:>8} {m / 1e3:>10.1f} {ratio:>6.3f}")


if __name__ == "__main__":
    main()
