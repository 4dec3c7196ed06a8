"""JSON documents nested deeper than :func:`json.loads` can go, parsed without recursion.

Python's :mod:`json` recurses once per level of nesting (in C, bounded by the recursion
limit), and a categorical split of a model file costs three levels, so a deep tree's file
is beyond it. :func:`loads_deep` reads such a document with ijson's event stream (the yajl2
C backend where installed, else its pure-Python one; neither recurses) and builds the
objects with an explicit stack. It is the fallback of :func:`xdt.ir.load_model`, which
keeps :func:`json.loads` for every file it can read (it is several times faster).

The result is what :func:`json.loads` gives for the same text: integers stay ``int`` of
any size, other numbers become the nearest ``float`` (ijson hands them over as
:class:`~decimal.Decimal`, converted through their decimal text, as :func:`json.loads`
converts; its own ``use_float=True`` overflows on integers beyond 64 bits in the C
backend). Unlike :func:`json.loads` it rejects the non-standard ``NaN`` and ``Infinity``.

    >>> loads_deep(b'{"a": [1, 0.1, 123456789012345678901234567890]}')
    {'a': [1, 0.1, 123456789012345678901234567890]}
"""

from __future__ import annotations

import io
from decimal import Decimal

import ijson


class DeepJSONError(ValueError):
    """The text is not valid JSON: ``reason`` and, where known, the ``line`` and
    ``column`` (1-based) and ``offset`` (0-based, in characters) of the error."""

    def __init__(self, reason: str, text: str | None = None, offset: int | None = None):
        self.reason = reason
        self.offset = offset
        self.line = self.column = None
        where = ""
        if text is not None and offset is not None:
            self.line = text.count("\n", 0, offset) + 1
            self.column = offset - text.rfind("\n", 0, offset)
            where = f": line {self.line} column {self.column} (char {offset})"
        super().__init__(f"{reason}{where}")


class RepeatedKeyDeep(ValueError):
    """An object of the text names ``key`` twice; ``place`` says where the object is
    (``root.right.left``, long places shortened in the middle)."""

    def __init__(self, key: str, place: str):
        super().__init__(key)
        self.key = key
        self.place = place


def loads_deep(data: bytes) -> object:
    """The JSON document ``data`` (UTF-8) as Python objects, at any depth.

    Raises
    ------
    RepeatedKeyDeep
        When an object repeats a key (a JSON reader would keep one of the values).
    DeepJSONError
        When ``data`` is not valid JSON; it names the line and column when the
        pure-Python parser can tell them.
    """
    try:
        return _build(ijson.basic_parse(io.BytesIO(data), use_float=False))
    except ijson.JSONError:
        raise _located(data) from None


def _build(events) -> object:
    """The document of an ijson ``basic_parse`` event stream, with an explicit stack;
    repeated keys raise :class:`RepeatedKeyDeep`."""
    stack: list = []        # the open containers
    keys: list = []         # per open container: the key (object) or index (array) next
    top: list = []          # the finished document
    for event, value in events:
        if event == "map_key":
            if value in stack[-1]:
                raise RepeatedKeyDeep(value, _place(keys[:-1]))
            keys[-1] = value
            continue
        if event == "start_map":
            stack.append({})
            keys.append(None)
            continue
        if event == "start_array":
            stack.append([])
            keys.append(0)
            continue
        if event in ("end_map", "end_array"):
            value = stack.pop()
            keys.pop()
        elif isinstance(value, Decimal):
            value = float(value)  # through its decimal text, as json.loads converts
        if not stack:
            top.append(value)
        elif isinstance(stack[-1], list):
            stack[-1].append(value)
            keys[-1] += 1
        else:
            stack[-1][keys[-1]] = value
    return top[0]


def _place(keys: list) -> str:
    """``root.right[0].node``-style place of an object from the keys leading to it (its
    first and last ten steps when there are more than twenty)."""
    steps = [f"[{k}]" if isinstance(k, int) else f".{k}" for k in keys]
    if len(steps) > 20:
        steps = steps[:10] + [f" ...({len(steps) - 20:,} levels)... "] + steps[-10:]
    return "".join(steps).lstrip(".") or ""


def _located(data: bytes) -> DeepJSONError:
    """The parse error of ``data``, located by ijson's pure-Python parser, which tells the
    character offset of the symbol it stopped at (the C one does not)."""
    text = data.decode("utf-8")
    python = ijson.get_backend("python")
    try:
        for _ in python.basic_parse(io.BytesIO(data), use_float=False):
            pass
    except ijson.IncompleteJSONError as e:
        return DeepJSONError(f"the JSON ends early ({e})", text, len(text))
    except ijson.JSONError as e:
        reason = str(e)
        head, sep, tail = reason.rpartition(" at ")
        if sep and tail.isdigit():
            return DeepJSONError(head, text, int(tail))
        return DeepJSONError(reason)
    return DeepJSONError("the C parser rejected it")  # pragma: no cover - parsers agree
