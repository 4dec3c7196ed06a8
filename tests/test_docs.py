"""The documentation site builds in strict mode, and every code block of it runs as shown.

Each page of ``docs/`` runs in a fresh folder holding the files ``xdt demo --write-examples``
writes, with ``benchmarks`` (the repository's) and ``../shared`` (the datasets) beside, as
from the repository's root. Fenced blocks, by their info word (see ``docs/about.md``):

* ``python``: executed in order in the page's one namespace, its standard output kept;
* ``sh``: run in bash (``xdt`` is ``python -m xdt`` of this interpreter), stopping at the
  first failing line; a block of plain ``xdt`` commands runs in this process
  (:func:`mdblocks.shell`);
* ``text``: output, not code. With ``$ `` lines it is a terminal session: each command runs
  and must print what follows it. Otherwise it must come right after a python or sh block
  and is that block's output. Both are compared by :func:`mdblocks.matches` (``...`` lines,
  durations ignored);
* a block marked ``<!-- skip: why -->`` is not run (listed in the test's output);
  ``<!-- test with: ARGS -->`` adds ARGS to each ``python benchmarks/...`` line of the block.

Any other info word, or a fence that does not start its line, fails the test: no block goes
unrun unseen. Pages that read ``../shared/datasets`` or run ``benchmarks/`` skip where it is
absent and fail under CI=true (:func:`conftest.require_shared`).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DATASETS, SHARED, require_shared
from mdblocks import Block, blocks, indented_fences, matches, shell, transcript

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md"))
BENCHMARK = re.compile(r"^(\s*python\s+benchmarks/\S+.*?)(\s+#.*)?$", re.M)
NEEDS_SHARED = ("shared/datasets", "benchmarks/")


def _needs_shared(block: Block) -> bool:
    return block.lang in ("python", "sh") and any(s in block.body for s in NEEDS_SHARED)


def _with_args(body: str, args: str) -> str:
    """``body`` with ``args`` added to each benchmark command line (before its comment)."""
    lines = []
    for line in body.split("\n"):
        m = BENCHMARK.match(line)
        lines.append(f"{m.group(1)} {args}" if m else line)
    return "\n".join(lines)


def _check_output(block: Block, shown: str, printed: str | None, page: str) -> None:
    assert printed is not None, (
        f"{page} {block.where}: a text block that is neither a terminal session ($ lines) "
        f"nor right after a python or sh block; mark it <!-- skip: why --> if it is not to "
        f"be checked")
    problem = matches(shown.rstrip("\n").split("\n"), printed.splitlines())
    assert problem is None, (f"{page} {block.where} does not show what the block before it "
                             f"prints: {problem}\n--- it printed:\n{printed}")


def _setup(tmp_path: Path) -> Path:
    from xdt.cli._demo_job import write_examples

    work = tmp_path / "work"
    write_examples(work)
    (work / "benchmarks").symlink_to(ROOT / "benchmarks")
    if SHARED.exists():
        (tmp_path / "shared").symlink_to(SHARED)
    return work


def test_docs_pages_are_found():
    assert {"index.md", "cli.md", "pictures.md", "api/index.md",
            "reproductions/index.md"} <= set(PAGES)


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES)
def test_page_blocks_run_as_shown(page, tmp_path, monkeypatch, capsys):
    import matplotlib

    matplotlib.use("Agg")
    text = (DOCS / page).read_text(encoding="utf-8")
    assert not indented_fences(text), f"{page}: fences not at the start of a line, lines " \
                                      f"{indented_fences(text)}: the test would not see them"
    work = _setup(tmp_path)
    monkeypatch.chdir(work)
    monkeypatch.setattr(sys, "path", list(sys.path))  # a page may add benchmarks/ to it
    cwd, scope, printed = work, {"__name__": "__main__"}, None
    skipped = []
    for block in blocks(text):
        if block.note.startswith("skip:"):
            assert block.note[5:].strip(), f"{page} {block.where}: skip without a reason"
            skipped.append(f"{page} {block.where}: {block.note}")
            printed = None
            continue
        if _needs_shared(block):
            require_shared(DATASETS)
        body = block.body
        if block.note.startswith("test with:"):
            assert block.lang == "sh" and BENCHMARK.search(body), \
                f"{page} {block.where}: 'test with' is for sh blocks of benchmark commands"
            body = _with_args(body, block.note[len("test with:"):].strip())
        else:
            assert not block.note, f"{page} {block.where}: unknown note {block.note!r}"
        if block.lang == "python":
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(body, f"{page}:{block.line}", "exec"), scope)  # noqa: S102
            printed = out.getvalue()
        elif block.lang == "sh":
            ran = shell(body, cwd)
            assert ran.returncode == 0, f"{page} {block.where} failed:\n{body}\n" \
                                        f"{ran.stdout}\n{ran.stderr}"
            cwd, printed = ran.cwd, ran.stdout
        elif block.lang == "text" and transcript(body):
            for command, shown in transcript(body):
                ran = shell(command, cwd)
                assert ran.returncode == 0, f"{page}: {command!r} failed:\n{ran.stdout}\n" \
                                            f"{ran.stderr}"
                cwd = ran.cwd
                if shown:
                    problem = matches(shown, ran.stdout.splitlines())
                    assert problem is None, (f"{page}: {command!r} does not print what the "
                                             f"page shows: {problem}\n--- it printed:\n"
                                             f"{ran.stdout}")
            printed = None
        elif block.lang == "text":
            _check_output(block, body, printed if block.follows else None, page)
            printed = None
        else:
            pytest.fail(f"{page} {block.where}: no rule runs {block.lang or 'untyped'} "
                        f"blocks (python, sh, text); mark it <!-- skip: why --> if it is "
                        f"not to be run")
    with capsys.disabled():
        for line in skipped:
            print(f"\n  not run: {line}", end="")


def test_readme_skip_note_holds():
    """A block skipped because the README's tour runs it is a command of that tour."""
    readme = {line.strip() for b in blocks((ROOT / "README.md").read_text())
              if b.lang == "sh" for line in b.body.split("\n")}
    for page in PAGES:
        for block in blocks((DOCS / page).read_text(encoding="utf-8")):
            if "README" in block.note and block.note.startswith("skip:"):
                lines = [line.strip() for line in block.body.split("\n") if line.strip()]
                assert set(lines) <= readme, f"{page} {block.where}: not in the README's tour"


@pytest.mark.slow
def test_the_site_builds_in_strict_mode(tmp_path):
    """``mkdocs build --strict``: a warning (a broken link, a docstring mkdocstrings cannot
    read) fails it. The site goes to a temporary folder, never into the repository."""
    site = tmp_path / "site"
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"),
         "-d", str(site)], cwd=tmp_path, capture_output=True, text=True, timeout=600,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONDONTWRITEBYTECODE": "1"})
    assert result.returncode == 0, f"mkdocs build --strict failed:\n{result.stderr}"
    from xdt.cli import main

    cli = (site / "cli" / "index.html").read_text(encoding="utf-8")
    for name in main.commands:  # every subcommand documented, from the click commands
        assert f'id="{name}"' in cli, f"xdt {name} is missing from the CLI reference"
    api = (site / "api" / "explainer" / "index.html").read_text(encoding="utf-8")
    assert 'id="xdt.Explainer"' in api and 'id="xdt.Explainer.all_axps"' in api
    for png in ("tree-path.png", "importance.png"):  # drawn by the build (docs/hooks)
        assert (site / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "tree-path.png" in (site / "pictures" / "index.html").read_text(encoding="utf-8")


def test_docstrings_name_the_examples_section_as_numpy_does():
    """mkdocstrings reads numpy sections by name: an ``Example`` section is Markdown to it,
    where a doctest's ``[...]`` reads as a broken link and the strict build fails."""
    singular = re.compile(r"^ *Example\n *-+\n", re.M)
    found = [str(p.relative_to(ROOT)) for p in sorted((ROOT / "xdt").rglob("*.py"))
             if singular.search(p.read_text(encoding="utf-8"))]
    assert not found, f"'Example' sections (numpy's name is 'Examples') in {found}"
