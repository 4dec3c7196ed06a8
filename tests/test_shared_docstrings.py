"""The Explainer's methods name shared parameter paragraphs by placeholders
(:mod:`xdt.explain._docstrings`): what ``help()`` shows has every one filled in."""

from __future__ import annotations

import re

import xdt
from xdt.explain._docstrings import SHARED, fill

PLACEHOLDER = re.compile(r"^\s*\{\w+\}\s*$", re.M)


def test_every_placeholder_of_the_explainer_is_filled():
    docs = {name: getattr(member, "__doc__", None) or ""
            for name, member in vars(xdt.Explainer).items()}
    docs["Explainer"] = xdt.Explainer.__doc__
    assert [name for name, text in docs.items() if PLACEHOLDER.search(text)] == []
    assert "Show a progress bar (tqdm, on stderr)" in xdt.Explainer.all_axps.__doc__
    assert "(``IF 0.5 < x <= 2.3 AND colour in {red, blue} THEN ...``)" in \
        xdt.Explainer.axp.__doc__
    assert "Every method takes the instance ``x``" in xdt.Explainer.__doc__


def test_fill_indents_a_paragraph_as_its_placeholder_and_leaves_other_braces():
    text = "Parameters\n    ----------\n    {progress}\n    {unknown}\n    {'a': 1}\n"
    assert fill(text) == ("Parameters\n    ----------\n    progress : bool\n        Show a "
                          "progress bar (tqdm, on stderr) of the explanations found.\n"
                          "    {unknown}\n    {'a': 1}\n")
    assert SHARED["progress"].startswith("progress : bool\n")
