"""A reader of Universal Binary JSON (UBJSON, https://ubjson.org), the ``.ubj`` model files of
XGBoost, so that xdt can check such a file before XGBoost's own reader sees it.

Values: ``Z`` null, ``N`` no-op, ``T``/``F``, the big-endian numbers ``i`` int8, ``U``
uint8, ``I`` int16, ``l`` int32, ``L`` int64, ``d`` float32, ``D`` float64, ``H`` a number
as text, ``C`` a character, ``S`` a string (a length, then UTF-8 bytes), ``[`` arrays and
``{`` objects (keys are strings without their ``S``), optionally typed (``$`` and a marker)
and counted (``#`` and a length), else closed by ``]`` / ``}``.

Every length and count is checked against the bytes left before anything is allocated for
it, and containers nest at most :data:`MAX_NESTING` levels (an XGBoost model nests about
eight), so a crafted file costs no more memory than its size and raises
:class:`~xdt.errors.ModelFormatError`.

>>> decode(b"{i\\x01a[$U#i\\x03\\x01\\x02\\x03}")
{'a': [1, 2, 3]}
"""

from __future__ import annotations

import numpy as np

from xdt.errors import ModelFormatError

__all__ = ["MAX_NESTING", "decode"]

#: The deepest nesting of arrays and objects read.
MAX_NESTING = 64

_NUMBERS = {b"i": np.dtype(">i1"), b"U": np.dtype(">u1"), b"I": np.dtype(">i2"),
            b"l": np.dtype(">i4"), b"L": np.dtype(">i8"), b"d": np.dtype(">f4"),
            b"D": np.dtype(">f8")}


class _Reader:
    """A position in the bytes, and the reading of one value at a time."""

    def __init__(self, data: bytes, source: str):
        self.data = memoryview(data)
        self.pos = 0
        self.source = source

    def fail(self, what: str) -> ModelFormatError:
        return ModelFormatError(
            f"{self.source}: not a valid UBJSON model file ({what} at byte {self.pos}); save "
            "the model again with save_model('model.ubj') or save_model('model.json')")

    def take(self, n: int) -> memoryview:
        if n < 0 or self.pos + n > len(self.data):
            raise self.fail(f"{n:,} bytes asked, {len(self.data) - self.pos:,} left")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def marker(self) -> bytes:
        while True:
            m = bytes(self.take(1))
            if m != b"N":
                return m

    def number(self, m: bytes) -> int | float:
        dtype = _NUMBERS[m]
        return np.frombuffer(self.take(dtype.itemsize), dtype=dtype)[0].item()

    def length(self) -> int:
        m = self.marker()
        if m not in (b"i", b"U", b"I", b"l", b"L"):
            raise self.fail(f"a length of type {m!r}")
        n = self.number(m)
        if n < 0 or n > len(self.data) - self.pos:
            raise self.fail(f"a length of {n:,} with {len(self.data) - self.pos:,} bytes left")
        return int(n)

    def text(self) -> str:
        raw = bytes(self.take(self.length()))
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise self.fail("a string that is not UTF-8") from None

    def value(self, m: bytes, depth: int):
        if m in _NUMBERS:
            return self.number(m)
        if m == b"Z":
            return None
        if m in (b"T", b"F"):
            return m == b"T"
        if m == b"C":
            return chr(self.take(1)[0])
        if m == b"S":
            return self.text()
        if m == b"H":
            text = self.text()
            try:
                return int(text) if text.lstrip("-").isdigit() and len(text) <= 20 \
                    else float(text)
            except ValueError:
                raise self.fail(f"a number {text[:30]!r}") from None
        if m in (b"[", b"{"):
            if depth >= MAX_NESTING:
                raise self.fail(f"containers nested deeper than {MAX_NESTING} levels")
            return self.container(m, depth + 1)
        raise self.fail(f"an unknown marker {m!r}")

    def container(self, opening: bytes, depth: int):
        obj = opening == b"{"
        kind = count = None
        m = self.marker()
        if m == b"$":
            kind = self.marker()
            m = self.marker()
            if m != b"#":
                raise self.fail("a typed container without a count")
        if m == b"#":
            count = self.length()
        else:
            self.pos -= 1
        if count is not None and kind in _NUMBERS and not obj:
            size = _NUMBERS[kind].itemsize
            if count * size > len(self.data) - self.pos:
                raise self.fail(f"{count:,} numbers with {len(self.data) - self.pos:,} bytes left")
            return np.frombuffer(self.take(count * size), dtype=_NUMBERS[kind]).tolist()
        if count is not None and count > len(self.data) - self.pos:
            raise self.fail(f"{count:,} values with {len(self.data) - self.pos:,} bytes left")
        out: dict | list = {} if obj else []
        k = 0
        while count is None or k < count:
            if count is None:
                m = self.marker()
                if m == (b"}" if obj else b"]"):
                    break
                self.pos -= 1
            key = self.text() if obj else None
            item = self.value(kind if kind is not None else self.marker(), depth)
            if obj:
                out[key] = item     # type: ignore[index]
            else:
                out.append(item)    # type: ignore[union-attr]
            k += 1
        return out


def decode(data: bytes, source: str = "the file") -> object:
    """The value of a UBJSON document (dicts, lists, numbers, strings, booleans, None).

    Parameters
    ----------
    data : bytes
        The whole document.
    source : str
        What to name in messages (the path).

    Raises
    ------
    ModelFormatError
        The bytes are not one UBJSON value: an unknown marker, a length past the end,
        nesting deeper than :data:`MAX_NESTING`, bytes after the value.
    """
    reader = _Reader(data, source)
    value = reader.value(reader.marker(), 0)
    if reader.pos != len(reader.data):
        raise reader.fail(f"{len(reader.data) - reader.pos:,} bytes after the document")
    return value
