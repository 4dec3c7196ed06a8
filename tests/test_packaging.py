"""Packaging: the version in one place, the citation file, the extras documented, and the
sdist and wheel that ``python -m build`` makes, checked by ``twine check --strict``,
installed in a fresh virtual environment whose own ``xdt demo`` runs.

The slow test builds from a copy of the repository's files (``git ls-files``) in pytest's
``tmp_path``, so that no ``build/``, ``dist/`` or ``*.egg-info`` appears in the work tree.
The build is isolated (its backend, setuptools >= 77, comes from the package index, as for
``pip install -e .``). The virtual environment borrows the dependencies that the running
interpreter imports (:func:`borrow_site_packages`: its site-packages folders, whether it is
the system's Python or itself runs in a virtual environment) and gets the wheel with
``pip install --no-deps``; the test then proves that what runs is the wheel's copy of xdt,
not this checkout's: those folders may hold the editable install's finder, which maps
``xdt`` to a checkout. Measured on a 2-core machine: build of both archives 9-11 s, twine
1 s, virtual environment and install 1.5 s, ``xdt demo`` 33 s (numba compiles the kernels of
the fresh copy; 5 s once cached); the whole test about 50 s.
"""

from __future__ import annotations

import ast
import email
import json
import os
import re
import subprocess
import sys
import tarfile
import unicodedata
import zipfile
from pathlib import Path

import pytest
import yaml
from conftest import SHARED, require_shared
from packaging.version import Version

import xdt

if sys.version_info >= (3, 11):
    import tomllib
else:  # build needs tomli on Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
CITATION = ROOT / "CITATION.cff"
#: The JSON Schema of the Citation File Format 1.2.0 (the 1.2.0 tag of the format's
#: repository, citation-file-format/citation-file-format, schema.json; CC BY 4.0).
CFF_SCHEMA = ROOT / "tests" / "data" / "cff-1.2.0.schema.json"
PAPERS = SHARED / "papers"


def source_version() -> str:
    """The string literal of ``xdt/_version.py``, read as the build reads it (no import)."""
    tree = ast.parse((ROOT / "xdt" / "_version.py").read_text(encoding="utf-8"))
    (value,) = [node.value.value for node in tree.body if isinstance(node, ast.Assign)
                and [t.id for t in node.targets if isinstance(t, ast.Name)] == ["__version__"]]
    return value


# ---------------------------------------------------------------------- the version
def test_the_version_is_in_one_place():
    project = PYPROJECT["project"]
    assert "version" not in project and project["dynamic"] == ["version"]
    attr = PYPROJECT["tool"]["setuptools"]["dynamic"]["version"]["attr"]
    assert attr == "xdt._version.__version__"
    assert xdt.__version__ == source_version()
    assert str(Version(xdt.__version__)) == xdt.__version__  # PEP 440, in normal form
    assert yaml.safe_load(CITATION.read_text(encoding="utf-8"))["version"] == xdt.__version__


def test_the_version_costs_no_import_of_metadata():
    """``xdt.__version__`` is a literal: reading it loads no ``importlib.metadata``."""
    code = ("import sys, xdt\nv = xdt.__version__\n"
            "print(v, 'importlib.metadata' in sys.modules)")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=60, check=True).stdout.split()
    assert out == [source_version(), "False"]


# ---------------------------------------------------------------------- typed, classifiers
def test_the_package_is_typed_and_classified():
    assert (ROOT / "xdt" / "py.typed").is_file()
    assert "py.typed" in PYPROJECT["tool"]["setuptools"]["package-data"]["xdt"]
    project = PYPROJECT["project"]
    classifiers = project["classifiers"]
    assert "Typing :: Typed" in classifiers
    assert "Topic :: Scientific/Engineering :: Artificial Intelligence" in classifiers
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
    # PEP 639: the SPDX expression replaces the licence classifiers (setuptools rejects both)
    assert not [c for c in classifiers if c.startswith("License ::")]
    minimum = tuple(int(p) for p in project["requires-python"].removeprefix(">=").split("."))
    minors = [int(c.rsplit(".", 1)[1]) for c in classifiers
              if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)]
    assert minors and min(minors) == minimum[1] and minimum[0] == 3
    assert sorted(minors) == list(range(min(minors), max(minors) + 1))


# ---------------------------------------------------------------------- extras
def extras_comments() -> dict[str, str]:
    """Each extra of pyproject.toml and the comment lines just above it."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    section = text.split("[project.optional-dependencies]\n", 1)[1].split("\n[", 1)[0]
    comments: dict[str, str] = {}
    block: list[str] = []
    for line in section.splitlines():
        if line.startswith("#"):
            block.append(line.lstrip("# "))
        elif m := re.match(r"([A-Za-z][\w-]*) = \[", line):
            comments[m.group(1)] = " ".join(block)
            block = []
    return comments


def readme_extras_table() -> dict[str, tuple[str, str]]:
    """The rows of the README's "Installing extras" table: extra -> (what, command)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Installing extras\n", 1)[1].split("\n#", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0].startswith("`"):
            rows[cells[0].strip("`")] = (cells[1], cells[2].strip("`"))
    return rows


def test_every_extra_says_what_it_is_for_and_is_in_the_readme():
    extras = PYPROJECT["project"]["optional-dependencies"]
    comments = extras_comments()
    assert set(comments) == set(extras)
    for name, comment in comments.items():
        assert len(comment) > 20, f"extra {name!r} needs a comment saying what it is for"
    table = readme_extras_table()
    assert list(table) == list(extras)
    for name, (what, command) in table.items():
        assert command == f'pip install -e ".[{name}]"'
        assert what
    assert "build>=1.2" in extras["test"] and "twine>=6.1" in extras["test"]


# ---------------------------------------------------------------------- CITATION.cff
def citation() -> dict:
    return yaml.safe_load(CITATION.read_text(encoding="utf-8"))


def test_citation_file_is_valid_cff_1_2_0():
    import jsonschema

    schema = json.loads(CFF_SCHEMA.read_text(encoding="utf-8"))
    assert schema["$id"] == "https://citation-file-format.github.io/1.2.0/schema.json"
    validator = jsonschema.Draft7Validator(
        schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    cff = citation()
    assert [e.message for e in validator.iter_errors(cff)] == []
    broken = {**cff, "license": "MIT License", "authors": [{"nickname": 1}]}
    assert len(list(validator.iter_errors(broken))) >= 2  # the validator is not blind
    assert cff["cff-version"] == "1.2.0" and cff["license"] == "MIT"
    assert cff["authors"] == [{"name": "The xdt developers"}]
    assert cff["title"].startswith("xdt:") and "cite" in cff["message"]


def folded(text: str) -> str:
    """``text`` without accents or whitespace: the papers' extracted text breaks both."""
    decomposed = unicodedata.normalize("NFKD", text)
    return re.sub(r"\s+", "", "".join(c for c in decomposed if not unicodedata.combining(c)))


def test_citation_cites_the_four_papers_as_their_texts_say():
    """Each paper in ../shared/papers is cited once: its title and authors (given and family
    names) as on its first page, and the conference of the two proceedings papers as in
    their running heads. The clustering paper's extracted text has no author line: its
    authors and journal are those of its published version (SN Computer Science 5(2), 2024,
    whose text is the one in ../shared)."""
    papers = {p.name: p.read_text(encoding="utf-8")
              for p in sorted(require_shared(PAPERS).glob("*.txt"))}
    references = citation()["references"]
    assert len(papers) == len(references) == 4
    cited = {}
    for ref in references:
        (name,) = [n for n, text in papers.items() if ref["title"] in text[:1000]]
        cited[name] = ref
        head = folded(papers[name][:2500])
        if name.startswith("interpretable-supervised-clustering"):
            assert [a["family-names"] for a in ref["authors"]] == ["Kokash", "Makhnist"]
        else:
            for author in ref["authors"]:
                assert folded(f"{author['given-names']} {author['family-names']}") in head
        if ref["type"] == "conference-paper":
            assert folded(ref["conference"]["name"]) in folded(papers[name])
    assert sorted(cited) == sorted(papers)
    years = {name.split("-")[0]: ref["year"] for name, ref in cited.items()}
    assert years["souza2022"] == 2022 and years["cooper2025"] == 2025


# ---------------------------------------------------------------------- build and install
def run(args: list[str | Path], **kwargs) -> subprocess.CompletedProcess:
    """Run ``args``; on failure, the assertion shows the command's output."""
    proc = subprocess.run([str(a) for a in args], capture_output=True, text=True,
                          timeout=600, check=False, **kwargs)
    assert proc.returncode == 0, f"{args}: exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc


def repository_files() -> list[str]:
    """The files of the repository (tracked, and new ones not ignored), as relative paths."""
    out = run(["git", "-C", ROOT, "ls-files", "-z", "--cached", "--others",
               "--exclude-standard"]).stdout
    return sorted(p for p in set(out.split("\0")) if p and (ROOT / p).is_file())


#: What the demo prints on German credit (the README's ``xdt demo`` block shows the same
#: lines; tests/test_cli.py fits the two learners by hand and finds these numbers).
DEMO_LINES = [
    "  SER-DT (factor_expl 0.97)     0.687         6       5.62        6      4.51      47",
    "  CART (greedy Gini)            0.700         6       5.03        6      4.87      39",
    "Summary over all 300 test rows",
    "  redundant paths:          11 of 300 rows (3.7%) have a path with a test that can be "
    "dropped",
    "  mean AXp size:            4.42 features, vs mean path length 5.60 tests (4.49 distinct "
    "features)",
]

#: Prints where the venv's interpreter finds xdt and its metadata, after ``xdt.cli``.
PROBE = """
import json, sys, importlib.metadata as md, importlib.util, xdt, xdt.cli
demo = xdt.cli.main.commands["demo"].callback.__module__
print(json.dumps({
    "prefix": sys.prefix,
    "files": sorted({m.__file__ for n, m in sys.modules.items()
                     if n.split(".")[0] == "xdt" and getattr(m, "__file__", None)}),
    "version": xdt.__version__, "metadata": md.version("xdt"),
    "dist": str(md.distribution("xdt").locate_file("xdt")),
    "demo_cache": importlib.util.cache_from_source(sys.modules[demo].__file__),
}))
"""


def site_folders() -> list[str]:
    """The site-packages folders this interpreter imports from (its own, a virtual
    environment's, the base interpreter's when that one shares them, the user's)."""
    return [p for p in dict.fromkeys(sys.path)
            if p and Path(p).name in ("site-packages", "dist-packages") and Path(p).is_dir()]


def borrow_site_packages(python: Path, env: dict[str, str]) -> Path:
    """Make the virtual environment of ``python`` import what this interpreter imports: a
    ``.pth`` file in its site-packages lists :func:`site_folders`, after its own folder.
    Their lines are plain paths, so the ``.pth`` files inside them are not run (the editable
    install's finder among them). ``python -m venv --system-site-packages`` would not do:
    inside a virtual environment it lends the *base* interpreter's folders, which lack the
    dependencies installed in the outer environment. Returns the venv's site-packages."""
    site = Path(run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                    env=env).stdout.strip())
    (site / "_borrowed_site_packages.pth").write_text(
        "".join(f"{folder}\n" for folder in site_folders()), encoding="utf-8")
    return site


def test_the_borrowed_folders_hold_the_dependencies_and_not_the_checkout():
    folders = site_folders()
    assert folders and all(Path(f).is_absolute() for f in folders)
    assert str(ROOT) not in folders and str(ROOT / "tests") not in folders
    for module in ("numpy", "pandas", "numba", "pysat", "sklearn", "click"):
        origin = Path(__import__(module).__file__).resolve()
        assert any(origin.is_relative_to(Path(f).resolve()) for f in folders), module


@pytest.mark.slow
def test_sdist_and_wheel_build_check_install_and_run_the_demo(tmp_path):
    files = repository_files()
    src = tmp_path / "src"
    for rel in files:
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_bytes((ROOT / rel).read_bytes())
    dist = tmp_path / "dist"
    run([sys.executable, "-m", "build", "--outdir", dist, src])
    version = source_version()
    sdist, wheel = dist / f"xdt-{version}.tar.gz", dist / f"xdt-{version}-py3-none-any.whl"
    assert sorted(dist.iterdir()) == [wheel, sdist]
    run([sys.executable, "-m", "twine", "check", "--strict", sdist, wheel])

    package = {f for f in files if f.startswith("xdt/")}  # sources, data, py.typed
    assert {"xdt/py.typed", "xdt/data/german.csv.gz", "xdt/_version.py"} <= package

    # the sdist: README, LICENSE, CITATION.cff, encodings/, the package; no tests
    with tarfile.open(sdist) as tar:
        members = {m.name.split("/", 1)[1] for m in tar.getmembers()
                   if m.isfile() and "/" in m.name}
    expected = package | {"README.md", "LICENSE", "CITATION.cff", "MANIFEST.in",
                          "pyproject.toml"} | {f for f in files if f.startswith("encodings/")}
    generated = {"PKG-INFO", "setup.cfg"} | {m for m in members if m.startswith("xdt.egg-info/")}
    assert members - generated == expected
    assert not [m for m in members if "__pycache__" in m or m.endswith(".pyc")]

    # the wheel: the package and its data only, and the metadata
    with zipfile.ZipFile(wheel) as whl:
        names = set(whl.namelist())
        info = f"xdt-{version}.dist-info/"
        metadata = email.message_from_bytes(whl.read(info + "METADATA"))
        entry_points = whl.read(info + "entry_points.txt").decode()
    assert {n for n in names if not n.startswith(info)} == package
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]
    assert not [n for n in names if n.split("/")[0] in ("tests", "benchmarks", "notebooks")]
    assert info + "licenses/LICENSE" in names
    assert metadata["Version"] == version
    assert metadata["License-Expression"] == "MIT"
    assert metadata.get_all("Classifier") == PYPROJECT["project"]["classifiers"]
    assert metadata.get_all("Provides-Extra") == list(PYPROJECT["project"]
                                                      ["optional-dependencies"])
    assert metadata["Requires-Python"] == PYPROJECT["project"]["requires-python"]
    assert "xdt = xdt.cli:main" in entry_points

    # a fresh virtual environment: the dependencies this interpreter imports, the wheel's xdt
    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", "--without-pip", venv])
    bin_dir = venv / ("Scripts" if os.name == "nt" else "bin")
    python = bin_dir / ("python.exe" if os.name == "nt" else "python")
    # no PYTHONPATH (it names this checkout), no user site; bytecode written, so that the
    # demo's own process leaves a trace of the files it imported
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONDONTWRITEBYTECODE")}
    env["PYTHONNOUSERSITE"] = "1"
    site = borrow_site_packages(python, env)
    run([python, "-m", "pip", "install", "--no-deps", "--no-index", "--ignore-installed",
         "--no-compile", wheel], env=env)
    assert site.is_relative_to(venv) and (site / "xdt" / "py.typed").is_file()
    assert not list((site / "xdt").rglob("*.pyc"))
    work = tmp_path / "work"  # an empty folder: nothing importable from the cwd
    work.mkdir()

    demo = run([bin_dir / "xdt", "demo", "--show", "3"], env=env, cwd=work).stdout
    compiled = {str(p) for p in (site / "xdt").rglob("*.pyc")}
    lines = demo.splitlines()
    for line in DEMO_LINES:
        assert line in lines, line
    flat = " ".join(demo.split())
    assert "1000 rows, 21 features (14 categorical, 7 ordinal)" in flat
    assert "700 train / 300 test rows" in flat
    assert "(train accuracy 0.847, 93 nodes)" in flat
    assert demo.count("CXps (") == 3

    probe = json.loads(run([python, "-c", PROBE], env=env, cwd=work).stdout)
    assert Path(probe["prefix"]).resolve() == venv.resolve()
    assert probe["files"] and all(Path(f).is_relative_to(site / "xdt") for f in probe["files"])
    assert Path(probe["dist"]) == site / "xdt"
    assert probe["demo_cache"] in compiled  # the demo's process imported the wheel's copy
    assert str(site / "xdt" / "__pycache__") in {str(Path(c).parent) for c in compiled}
    shown = run([bin_dir / "xdt", "--version"], env=env, cwd=work).stdout.strip()
    assert shown == f"xdt {version}"
    assert probe["version"] == probe["metadata"] == metadata["Version"] == xdt.__version__
