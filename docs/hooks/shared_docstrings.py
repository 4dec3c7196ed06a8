"""A griffe extension: mkdocstrings reads docstrings from the source, where the
``Explainer``'s methods name their shared parameter paragraphs by placeholders (``{x}``);
this fills them as :func:`xdt.explain._docstrings.doc` does at import, so the API reference
shows the same text as ``help()``."""

from __future__ import annotations

from typing import Any

import griffe

from xdt.explain._docstrings import fill


class SharedDocstrings(griffe.Extension):
    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None and "{" in obj.docstring.value:
            obj.docstring.value = fill(obj.docstring.value)
