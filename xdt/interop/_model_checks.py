"""Checks shared by the readers of other libraries' model files (XGBoost, LightGBM).

Those libraries' own readers trust their files: a crafted file (a child index out of range, a
node that is its own child, a NaN threshold, a count of a hundred million) can crash the
process inside them, where no Python exception is possible. So xdt reads each file itself
first, with the size limit of :mod:`xdt.ir._file_size`, and checks what the library's reader
would trust; a file that breaks a rule raises :class:`~xdt.errors.ModelFormatError` naming
the tree and node, and never reaches the library.

The helpers here read numbers and counts: a number that is not one (a boolean, a string, an
integer of thousands of digits, ``1e400`` read as infinity), a count past what the file can
hold, JSON nested past :data:`xdt.ir._json_io.MAX_NESTING` levels.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping

from xdt.errors import ModelFormatError, UnsupportedModelError
from xdt.ir._json_io import MAX_NESTING, _nesting

__all__ = ["FLOAT32_MAX", "bounded_count", "child", "corrupt", "integer", "number",
           "parse_json"]

#: The largest finite float32 (XGBoost compares float32 values).
FLOAT32_MAX = 3.4028234663852886e38

#: Integers of more digits than this are read as floats (then refused where an integer is
#: needed): no count or index of a model file has more (2**63 has 19).
MAX_DIGITS = 20

FIX = "the file is damaged or was edited; save the model again with the library"


def corrupt(source: str, where: str, what: str, fix: str = FIX) -> ModelFormatError:
    """The error for a model file that breaks its format: ``source: where: what; fix``."""
    place = f"{where}: " if where else ""
    return ModelFormatError(f"{source}: {place}{what}; {fix}")


def _parse_int(text: str) -> int | float:
    return int(text) if len(text.lstrip("-")) <= MAX_DIGITS else float(text)


def parse_json(data: bytes | str, source: str, library: str, save: str) -> object:
    """The value of a JSON model file, read so that no number raises: integers of more than
    :data:`MAX_DIGITS` digits become floats (``inf`` past float's range), which the checks
    then name in place; NaN and Infinity are read as floats too.

    Raises
    ------
    UnsupportedModelError
        Not JSON (as the library's own reader would say).
    ModelFormatError
        Nested deeper than ``MAX_NESTING`` levels.
    """
    try:
        with _nesting(MAX_NESTING):
            return json.loads(data, parse_int=_parse_int)
    except RecursionError:
        raise ModelFormatError(
            f"{source}: the JSON nests deeper than {MAX_NESTING:,} levels; {library} models "
            f"this deep are not read: {save}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise UnsupportedModelError(
            f"{source}: {library} cannot read it as a model file (not valid JSON: {e}); "
            f"{save}") from None


def number(value: object, source: str, where: str, what: str,
           largest: float = math.inf) -> float:
    """``value`` as a finite float of magnitude at most ``largest``, else ModelFormatError
    naming ``what`` at ``where`` (``1e300`` past float32's range is named as written, not as
    the ``inf`` the library would make of it)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise corrupt(source, where, f"{what} must be a number, got {_show(value)}")
    try:
        x = float(value)
    except OverflowError:
        x = math.inf
    if not math.isfinite(x):
        raise corrupt(source, where, f"{what} is {_show(value)}, not a finite number")
    if abs(x) > largest:
        raise corrupt(source, where,
                      f"{what} is {x!r}, beyond the float32 range (about ±3.4e38) the library "
                      "compares in")
    return x


def integer(value: object, source: str, where: str, what: str, low: int = 0,
            high: int | None = None, text: bool = False) -> int:
    """``value`` as an integer in ``[low, high)`` (a JSON integer; with ``text``, also a
    decimal string, as XGBoost writes its counts), else ModelFormatError naming ``what`` at
    ``where``."""
    if text and isinstance(value, str) and value.strip().lstrip("-").isdigit() \
            and len(value.strip().lstrip("-")) <= MAX_DIGITS:
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise corrupt(source, where, f"{what} must be an integer, got {_show(value)}")
    if value < low or (high is not None and value >= high):
        bound = (f"at least {low:,}" if high is None else f"{low:,}" if high == low + 1
                 else f"from {low:,} to {high - 1:,}")
        raise corrupt(source, where, f"{what} is {value:,}, out of range (it must be {bound})")
    return value


def bounded_count(count: int, listed: int, size: int, source: str, what: str,
                  fix: str) -> None:
    """Refuse ``count`` things (features, category codes) of which the file lists only
    ``listed``, when the rest outnumber the file's ``size`` in bytes: a file cannot describe
    more things than it has bytes, and building them would take memory the file never
    paid for (a 3 KB file claiming 10**8 features)."""
    if count > max(listed, size):
        raise ModelFormatError(
            f"{source}: {what} ({count:,}), more than the file ({size:,} bytes) can describe; "
            f"{fix}")


def child(mapping: object, key: str, source: str, where: str, kind: type = dict):
    """``mapping[key]``, which must be a ``kind`` (dict or list)."""
    if not isinstance(mapping, Mapping):
        raise corrupt(source, where, f"expected a JSON object, got {_show(mapping)}")
    value = mapping.get(key)
    if not isinstance(value, kind):
        name = "an object" if kind is dict else "a list"
        raise corrupt(source, where, f"{key!r} must be {name}, got {_show(value)}")
    return value


def _show(value: object) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return ("NaN" if math.isnan(value) else
                f"{'-' if value < 0 else ''}infinite (or too large for any float)")
    text = repr(value) if not isinstance(value, str | int | float) or isinstance(value, bool) \
        else (repr(value) if not isinstance(value, int) or abs(value) < 10**30
              else f"an integer of about {int(value.bit_length() * 0.30103) + 1:,} digits")
    return text if len(text) <= 60 else text[:57] + "..."
