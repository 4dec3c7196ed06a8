"""Running the code blocks of Markdown pages (README.md, docs/*.md) and checking their output.

Shared by ``test_readme.py`` and ``test_docs.py``. A page's fenced blocks are read in order
(:func:`blocks`), with the HTML comment that stands right before a fence, if any
(``<!-- skip: why -->``, ``<!-- test with: ARGS -->``). Output is compared with
:func:`matches`: a line ``...`` stands for any number of lines, durations are ignored.
Commands run in bash with ``xdt`` and ``python`` as this interpreter (:func:`shell`); a script
of plain ``xdt`` commands runs in this process, through click's runner, which saves the start
of a new interpreter for each command.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tempfile
import traceback
from dataclasses import dataclass
from pathlib import Path

TIME = re.compile(r"\d+(?:\.\d+)?(?=\s*(?:s|ms|seconds)\b)")
"""A duration in seconds or milliseconds: the one thing in the output of the pages' examples
that differs from run to run."""

FENCE = re.compile(r"^```([\w+-]*)[^\n]*\n(.*?)^```[ \t]*$", re.S | re.M)
NOTE = re.compile(r"<!--\s*(.*?)\s*-->\s*\Z", re.S)


@dataclass(frozen=True)
class Block:
    """One fenced block of a page: its info word (``python``, ``sh``, ``text``, ...), its
    text, the 1-based line of its opening fence, the HTML comment right before it (``""``
    when none) and whether only blank lines separate it from the previous block."""

    lang: str
    body: str
    line: int
    note: str
    follows: bool

    @property
    def where(self) -> str:
        return f"line {self.line} ({self.lang} block)"


def blocks(text: str) -> list[Block]:
    """The fenced blocks of ``text`` in order. Only fences at the start of a line count (the
    pages keep every block there: :func:`indented_fences` finds the others)."""
    found: list[Block] = []
    end = 0
    for m in FENCE.finditer(text):
        before = text[end:m.start()]
        note = NOTE.search(before)
        found.append(Block(m.group(1), m.group(2), text.count("\n", 0, m.start()) + 1,
                           note.group(1) if note else "",
                           bool(found) and not before.strip()))
        end = m.end()
    return found


README = Path(__file__).resolve().parent.parent / "README.md"


def readme_block(marker: str, lang: str = "python") -> str:
    """The one ``lang`` block of README.md whose text holds ``marker``."""
    (block,) = [b.body for b in blocks(README.read_text()) if b.lang == lang and marker in b.body]
    return block


def indented_fences(text: str) -> list[int]:
    """Lines (1-based) of fences that do not start their line: blocks :func:`blocks` would
    not see (inside a list item or an admonition)."""
    return [i for i, line in enumerate(text.splitlines(), 1)
            if line.lstrip().startswith("```") and not line.startswith("```")]


def normal(line: str) -> str:
    return " ".join(TIME.sub("<t>", line).split())


def matches(expected: list[str], actual: list[str]) -> str | None:
    """``None`` when ``actual`` shows ``expected``; else what is missing. In ``expected``, a
    line ``...`` stands for any number of lines; the other lines must appear in order, each
    run of them on consecutive lines, equal but for white space and durations."""
    runs: list[list[str]] = [[]]
    for line in expected:
        if line.strip() == "...":
            runs.append([])
        else:
            runs[-1].append(normal(line))
    got = [normal(line) for line in actual]
    at = 0
    for k, run in enumerate(runs):
        if not run:
            continue
        n = len(run)
        anchored = k == 0  # no "..." before the first run: it starts the output
        starts = [at] if anchored else range(at, len(got) - n + 1)
        hit = next((i for i in starts if got[i:i + n] == run), None)
        if hit is None:
            return "lines not found in order:\n  " + "\n  ".join(run)
        at = hit + n
    return None


def transcript(body: str) -> list[tuple[str, list[str]]]:
    """The ``$ command`` lines of a text block, each with the lines shown after it (lines
    before the first command are not output of any; trailing blank lines dropped)."""
    steps: list[tuple[str, list[str]]] = []
    for line in body.rstrip("\n").split("\n"):
        if line.startswith("$ "):
            steps.append((line[2:], []))
        elif steps:
            steps[-1][1].append(line)
    for _, out in steps:
        while out and not out[-1].strip():
            out.pop()
    return steps


@dataclass(frozen=True)
class Ran:
    """A finished shell command: its exit code, output and the folder it ended in."""

    returncode: int
    stdout: str
    stderr: str
    cwd: Path


SHELL_SYNTAX = re.compile(r"[|&;<>()$`*?\[\]{}~!\\]|^\w+=")
"""What makes a line more than a plain command: operators, expansions, globs, variables."""


def plain_xdt(command: str) -> list[list[str]] | None:
    """The arguments of each line of ``command`` when every line is a plain ``xdt ...``
    command (a trailing ``# comment`` allowed); ``None`` when any line needs bash."""
    runs = []
    for line in command.split("\n"):
        code = line.split("#", 1)[0].strip()  # a plain command quotes no '#'
        if not code:
            continue
        if SHELL_SYNTAX.search(code):
            return None
        try:
            words = shlex.split(code)
        except ValueError:
            return None
        if words[0] != "xdt" or words != shlex.split(line, comments=True):
            return None
        runs.append(words[1:])
    return runs or None


def run_in_process(runs: list[list[str]], cwd: Path) -> Ran:
    """Each ``xdt ARGS`` of ``runs`` through click's runner in ``cwd``, stopping at the first
    that fails, as bash's ``set -e`` does; an exception's traceback goes to ``stderr``."""
    from click.testing import CliRunner

    from xdt.cli import main

    stdout, stderr, code = [], [], 0
    before = os.getcwd()
    os.chdir(cwd)
    try:
        for args in runs:
            result = CliRunner().invoke(main, args, prog_name="xdt", env={"COLUMNS": "100"})
            stdout.append(result.stdout)
            stderr.append(result.stderr)
            if result.exception is not None and not isinstance(result.exception, SystemExit):
                stderr.append("".join(traceback.format_exception(*result.exc_info)))
            code = result.exit_code
            if code:
                break
    finally:
        os.chdir(before)
    return Ran(code, "".join(stdout), "".join(stderr), cwd)


def shell(command: str, cwd: Path, timeout: float = 300) -> Ran:
    """Run ``command`` (one line or a script) in bash in ``cwd``, with ``xdt`` as this
    interpreter's ``python -m xdt`` and ``python`` as this interpreter; stops at the first
    failing line. Writes no bytecode (a benchmark script run from a page must not write into
    the repository). The returned ``cwd`` is where a ``cd`` in the command left it. A script
    of plain ``xdt`` lines (:func:`plain_xdt`) runs in this process instead."""
    runs = plain_xdt(command)
    if runs is not None:
        return run_in_process(runs, cwd)
    with tempfile.NamedTemporaryFile("r", suffix=".pwd") as where:
        prelude = (f'xdt() {{ "{sys.executable}" -m xdt "$@"; }}\n'
                   f'python() {{ "{sys.executable}" "$@"; }}\nset -e\n')
        result = subprocess.run(
            ["bash", "-c", f'{prelude}{command}\npwd > "{where.name}"'], cwd=cwd,
            capture_output=True, text=True, timeout=timeout,
            env={**os.environ, "COLUMNS": "100", "PYTHONIOENCODING": "utf-8",
                 "PYTHONDONTWRITEBYTECODE": "1"})
        ended = where.read().strip()
    return Ran(result.returncode, result.stdout, result.stderr, Path(ended) if ended else cwd)
