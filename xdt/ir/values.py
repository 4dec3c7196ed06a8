"""Plain Python values at the boundaries (JSON output, readable text)."""

from __future__ import annotations

import numpy as np


def to_python(value: object) -> object:
    """A numpy scalar as the equal Python scalar (``np.int64(3)`` -> ``3``) that JSON can
    write; any other value unchanged."""
    return value.item() if isinstance(value, np.generic) else value
