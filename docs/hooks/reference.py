"""MkDocs hook: the reference pages read as the terminal and the docstrings mean them.

* Click keeps a help paragraph that starts with a ``\\b`` line as it is written (the
  examples of each command); mkdocs-click drops the ``\\b`` line and hands the rest to
  Markdown, which would run those lines together. On a page that uses mkdocs-click, a
  Markdown preprocessor run right after it turns each paragraph whose lines after the first
  are indented (``Examples:`` and the commands under it) into a code block.
* xdt's docstrings name other objects the Sphinx way (``:class:`~xdt.ir.Condition```),
  which mkdocstrings shows as the role followed by the name in code: the role is dropped,
  and a name written with ``~`` is shown by its last part, as Sphinx shows it.
"""

from __future__ import annotations

import re

from markdown import Extension
from markdown.preprocessors import Preprocessor

ROLE = re.compile(r":(?:attr|class|data|exc|func|meth|mod|obj):<code>(~?)([^<]*)</code>")


class _Mark(Preprocessor):
    """Notes whether the page uses mkdocs-click (run before it)."""

    def run(self, lines: list[str]) -> list[str]:
        self.md.xdt_click = any(line.startswith("::: mkdocs-click") for line in lines)
        return lines


class _KeepAsWritten(Preprocessor):
    """Indents, as a code block, each paragraph of mkdocs-click's help text whose lines
    after the first start with spaces (run after it)."""

    def run(self, lines: list[str]) -> list[str]:
        if not getattr(self.md, "xdt_click", False):
            return lines
        out: list[str] = []
        paragraph: list[str] = []
        for line in [*lines, ""]:
            if line.strip():
                paragraph.append(line)
                continue
            if len(paragraph) > 1 and all(x.startswith("  ") for x in paragraph[1:]) \
                    and not paragraph[0].startswith((" ", "|", "`")):
                out += ["", *("    " + x for x in paragraph)]
            else:
                out += paragraph
            out.append(line)
            paragraph = []
        return out[:-1]


class _Extension(Extension):
    def extendMarkdown(self, md):  # noqa: N802 - Markdown's name
        md.preprocessors.register(_Mark(md), "xdt_click_mark", 142)
        md.preprocessors.register(_KeepAsWritten(md), "xdt_click_as_written", 140)


def on_config(config):
    config.markdown_extensions.append(_Extension())
    return config


def _name(match: re.Match) -> str:
    tilde, name = match.groups()
    return f"<code>{name.rsplit('.', 1)[-1] if tilde else name}</code>"


def on_page_content(html, **kwargs):
    return ROLE.sub(_name, html)
