"""benchmarks/nested_kdnf_table2.py runs: a small run on the two one-against-rest sets of
the paper's Table 2 with every class fitted both ways, the paper's 10 runs by default, and
means with the polarity swapped that are the unswapped columns exchanged."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def tables(out: str) -> dict[str, list[list[str]]]:
    """The printed Markdown tables by the first words of their titles: rows of cells."""
    found: dict[str, list[list[str]]] = {}
    title = ""
    for line in out.splitlines():
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            if not set(cells[0]) <= {"-"}:
                found.setdefault(title, []).append(cells)
        elif line.strip():
            title = line.strip()[:40]
    return found


@pytest.mark.slow
def test_one_against_rest_sets_show_every_class_both_ways(datasets_dir):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "benchmarks/nested_kdnf_table2.py", "--datasets",
         "balance-scale-bin,car-evaluation-bin", "--k", "2", "--splits", "1", "--markdown",
         "--quiet"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    assert "1 random 80/20 split(s) (Monks: their test sets), 10 run(s) per split" in out
    found = tables(out)
    polarity = next(rows for t, rows in found.items() if t.startswith("Polarity"))
    # each gap is named "ours:paper's", so no header reads as two (DNF-bar holds a hyphen)
    assert polarity[0] == ["dataset", "class 1", "headline", "DT:DT", "DNF:DNF",
                           "DNF-bar:DNF-bar", "straight", "DNF:DNF-bar", "DNF-bar:DNF",
                           "crossed", "closer"]
    assert "a column ours:paper's is" in out
    for r in polarity[1:]:
        gaps = [float(v) for v in r[4:6] + r[7:9]]
        assert abs(float(r[6]) - (gaps[0] + gaps[1]) / 2) <= 0.006
        assert abs(float(r[9]) - (gaps[2] + gaps[3]) / 2) <= 0.006
    # every class against the rest; the UCI class counts: B 49, L and R 288 each;
    # unacc 1210, acc 384, good 69, vgood 65
    assert [(r[0], r[1], r[2]) for r in polarity[1:]] == [
        ("balance-scale-bin", "0 B (49)", "yes"),
        ("balance-scale-bin", "1 L or R (288)", ""),
        ("balance-scale-bin", "2 L or R (288)", ""),
        ("car-evaluation-bin", "0 unacc (1210)", "yes"),
        ("car-evaluation-bin", "1 acc (384)", ""),
        ("car-evaluation-bin", "2 good (69)", ""),
        ("car-evaluation-bin", "3 vgood (65)", "")]
    car = next(rows for t, rows in found.items() if t.startswith("car-evaluation-bin: every"))
    # the paper's rows (Table 2, Car-evaluation, k = 2), then DT, DNF of c, DNF of the rest
    assert car[1:4] == [["paper", "DT", "85.78"], ["paper", "DNF", "77.80"],
                        ["paper", "DNF-bar", "73.35"]]
    assert [r[1] for r in car[4:]] == ["DT", "DNF of 0", "DNF of the rest (DNF-bar)",
                                       "DT", "DNF of 1", "DNF of the rest (DNF-bar)",
                                       "DT", "DNF of 2", "DNF of the rest (DNF-bar)",
                                       "DT", "DNF of 3", "DNF of the rest (DNF-bar)"]
    # both sets are one-against-rest, so swapping their polarity exchanges the two means
    means = next(rows for t, rows in found.items() if t.startswith("Mean test accuracy"))
    head, row = means[0], means[1]
    col = {h: row[i] for i, h in enumerate(head)}
    assert (col["DNF swapped"], col["DNF-bar swapped"]) == (col["DNF-bar"], col["DNF"])
    assert "total CPU time" in out
