"""Peak memory of ``xdt explain MODEL --data BIG.csv --batch -o OUT.jsonl`` against the
number of rows (issue 32, row 10: ``--batch`` streams its input, so that its peak memory
does not grow with the table's length).

The table is adult (``../shared/datasets/adult.csv.gz``), its rows without a missing cell
(30,162 of 32,561), repeated in order to each size asked; the model a depth-6 tree from
``xdt fit`` on those rows. Each size is written once to ``--workdir`` (10^7 rows is about
1 GB: the files are removed at the end unless ``--keep``); each run is a child process
whose maximum resident set size and CPU time (user + system) are read from ``os.wait4``
(the child's own, not the sum over children). The output file is removed after each run.

Run from the project root (needs ../shared/datasets):

    python benchmarks/batch_memory.py 1000000 10000000 [--workdir /tmp] [--markdown]
    python benchmarks/batch_memory.py 100000 --python-path /path/to/other/checkout

``--python-path`` runs the command with that checkout first on ``PYTHONPATH`` (to measure
another commit, e.g. the whole-file read before streaming); ``--chunk-rows`` is passed on.
"""

from __future__ import annotations

import argparse
import gzip
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ADULT = ROOT.parent / "shared" / "datasets" / "adult.csv.gz"


def complete_lines() -> tuple[str, list[str]]:
    """The header and the lines without an empty cell of adult (as the file writes them)."""
    with gzip.open(ADULT, "rt", encoding="utf-8") as f:
        header, *lines = f.read().splitlines()
    return header, [line for line in lines if ",," not in line and not line.endswith(",")
                    and not line.startswith(",")]


def write_table(path: Path, header: str, lines: list[str], rows: int) -> None:
    """``rows`` lines of ``lines`` repeated in order, after ``header``, to ``path``."""
    block = "\n".join(lines) + "\n"
    with open(path, "w", encoding="utf-8") as f:
        f.write(header + "\n")
        full, rest = divmod(rows, len(lines))
        for _ in range(full):
            f.write(block)
        if rest:
            f.write("\n".join(lines[:rest]) + "\n")


def child(args: list[str], python_path: str, cwd: Path) -> tuple[int, float, float, float]:
    """Run ``xdt ARGS`` with ``python_path``'s xdt, in ``cwd`` (``python -c`` would import
    the xdt of its working folder first): exit status, max RSS (MB), CPU s, wall s."""
    env = {**os.environ, "PYTHONPATH": python_path}
    log = cwd / "batch_memory.stderr"
    start = time.perf_counter()
    with open(log, "wb") as err:
        proc = subprocess.Popen([sys.executable, "-c", "from xdt.cli import main; main()",
                                 *args], env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                                stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        print(log.read_text(errors="replace"), file=sys.stderr)
    log.unlink()
    return proc.returncode, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", type=int, nargs="+", help="rows of each table")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp"))
    parser.add_argument("--python-path", type=lambda p: str(Path(p).resolve()),
                        default=str(ROOT),
                        help="the checkout whose xdt runs (default: this one)")
    parser.add_argument("--chunk-rows", type=int)
    parser.add_argument("--keep", action="store_true", help="keep the tables")
    parser.add_argument("--markdown", action="store_true")
    a = parser.parse_args()
    header, lines = complete_lines()
    a.workdir.mkdir(parents=True, exist_ok=True)
    fit_data = a.workdir / "adult_complete.csv"
    write_table(fit_data, header, lines, len(lines))
    model = a.workdir / "adult_depth6.json"
    model.unlink(missing_ok=True)
    status, *_ = child(["fit", str(fit_data), "-t", "income", "--max-depth", "6", "-o",
                        str(model)], a.python_path, a.workdir)
    if status != 0:
        sys.exit("xdt fit failed")
    rows = []
    for n in a.sizes:
        data = a.workdir / f"adult_{n}.csv"
        if not data.exists():
            write_table(data, header, lines, n)
        out = a.workdir / f"adult_{n}.out.jsonl"
        out.unlink(missing_ok=True)
        args = ["explain", str(model), "--data", str(data), "--batch", "-o", str(out), "-q"]
        if a.chunk_rows:
            args += ["--chunk-rows", str(a.chunk_rows)]
        status, rss, cpu, wall = child(args, a.python_path, a.workdir)
        written = sum(1 for _ in open(out, "rb")) if out.exists() else 0
        rows.append((n, data.stat().st_size / 1e6, status, written, rss, cpu, wall))
        print(f"{n:>10} rows: max RSS {rss:7.0f} MB, CPU {cpu:7.1f} s, wall {wall:7.1f} s, "
              f"{written} records, exit {status}", file=sys.stderr)
        out.unlink(missing_ok=True)
        if not a.keep:
            data.unlink()
    if a.markdown:
        print("| rows | CSV MB | exit | records | max RSS MB | CPU s | wall s |")
        print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for n, mb, status, written, rss, cpu, wall in rows:
            print(f"| {n:,} | {mb:.0f} | {status} | {written:,} | {rss:.0f} | {cpu:.1f} | "
                  f"{wall:.1f} |")
    else:
        for r in rows:
            print(*r, sep="\t")


if __name__ == "__main__":
    main()
