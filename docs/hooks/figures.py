"""MkDocs hook: draw the figures of the pages that make them, when the site is built.

The Python blocks of each page of :data:`PAGES` run in order, in one namespace, in an empty
temporary folder; every PNG file they write there is added to the site beside the page, so
the picture on the page is the one its code draws. A block that fails fails the build.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import tempfile
from pathlib import Path

from mkdocs.structure.files import File

PAGES = ("pictures.md",)
PYTHON = re.compile(r"^```python[^\n]*\n(.*?)^```[ \t]*$", re.S | re.M)


def on_files(files, config):
    for name in PAGES:
        page = Path(config["docs_dir"]) / name
        here = os.getcwd()
        with tempfile.TemporaryDirectory() as folder:
            os.chdir(folder)
            try:
                scope: dict = {"__name__": "__main__"}
                with contextlib.redirect_stdout(io.StringIO()):
                    for block in PYTHON.findall(page.read_text(encoding="utf-8")):
                        exec(compile(block, str(page), "exec"), scope)  # noqa: S102
            finally:
                os.chdir(here)
            prefix = Path(name).parent
            for png in sorted(Path(folder).glob("*.png")):
                files.append(File.generated(config, (prefix / png.name).as_posix(),
                                            content=png.read_bytes()))
    return files
