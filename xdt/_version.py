"""The version of xdt, in this one place.

``pyproject.toml`` reads it when the package is built (``[tool.setuptools.dynamic]``, which
parses this file without importing xdt), ``xdt.__version__`` re-exports it and ``xdt
--version`` prints it; ``tests/test_packaging.py`` checks that the three agree with the built
wheel's metadata. A plain string literal, so that reading it costs no import.
"""

__version__ = "0.1.0"
