"""JSON text of nested lists and dicts of any depth, without recursion.

Python's :func:`json.dumps` with ``indent`` runs its pure-Python encoder, which recurses
once per level and passes every piece of text up through one generator per level: a
model tree of depth ``d`` costs O(d^2) time and needs the recursion limit raised.
:func:`dumps` writes the same text as ``json.dumps(obj, indent=indent,
ensure_ascii=False)`` with an explicit stack, in time linear in the text. Indented text of
a deep tree is itself quadratic (line ``k`` levels down starts with ``k`` spaces), so lines
more than ``max_indent`` levels down are indented as at that level.
"""

from __future__ import annotations

import json

from xdt.errors import ParameterError

_scalar = json.JSONEncoder(ensure_ascii=False).encode


#: Nesting level beyond which lines are indented no further (the text stays linear in the
#: size of a document of any depth).
MAX_INDENT = 100


def dumps(obj: object, indent: int = 1, max_indent: int = MAX_INDENT) -> str:
    """The JSON text of ``obj`` (dicts, lists, tuples, strings, numbers,
    booleans, ``None``), indented by ``indent`` spaces per level, exactly as
    ``json.dumps(obj, indent=indent, ensure_ascii=False)`` writes it.

    Raises
    ------
    TypeError
        For a value or key JSON cannot hold (json's own error).
    ParameterError
        For an object that contains itself.
    """
    out: list[str] = []
    # items: text to write, or (value, level) to encode
    stack: list[object] = [(obj, 0)]
    open_ids: dict[int, None] = {}
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
            continue
        if isinstance(item, int):  # a container closed: no longer on the current branch
            open_ids.pop(item, None)
            continue
        value, level = item
        if isinstance(value, dict | list | tuple) and value:
            if id(value) in open_ids:
                raise ParameterError("the document contains itself (a circular reference); "
                                     "JSON holds trees of values only")
            open_ids[id(value)] = None
            inner = "\n" + " " * (indent * min(level + 1, max_indent))
            closing = "\n" + " " * (indent * min(level, max_indent))
            parts: list[object] = []
            if isinstance(value, dict):
                out.append("{")
                for k, (key, v) in enumerate(value.items()):
                    parts.append(("," if k else "") + inner + _scalar(_key(key)) + ": ")
                    parts.append((v, level + 1))
                parts.append(closing + "}")
            else:
                out.append("[")
                for k, v in enumerate(value):
                    parts.append(("," if k else "") + inner)
                    parts.append((v, level + 1))
                parts.append(closing + "]")
            parts.append(id(value))
            stack.extend(reversed(parts))
        elif isinstance(value, dict):
            out.append("{}")
        elif isinstance(value, list | tuple):
            out.append("[]")
        else:
            out.append(_scalar(value))
    return "".join(out)


def _key(key: object) -> str:
    """A dict key as JSON writes it: a string as it is; a number, boolean or ``None`` as
    its JSON text; anything else json's own TypeError."""
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, bool | int | float):
        return _scalar(key)
    return json.dumps({key: None})  # raises json's own TypeError for this key
