"""The size limit of model files, checked before a file is read or parsed.

A model file is read whole and parsed into objects several times its size, so a file of
gigabytes would take many more of memory before any of its content could be refused. Every
reader of a model file (:func:`xdt.load_model`, :func:`xdt.from_xgboost`,
:func:`xdt.from_lightgbm`, and through them every ``xdt`` command) first compares the file's
size (``os.stat``; for text or bytes given in memory, their length) with ``max_bytes`` and
refuses a larger file with :class:`~xdt.errors.ModelSizeError`.

The default limit is :data:`MAX_MODEL_BYTES` (512 MiB: a forest of about a million nodes
takes 100-200 MB as JSON), or the number of bytes in the environment variable
``XDT_MAX_MODEL_BYTES`` when it is set (how the command line raises it)::

    XDT_MAX_MODEL_BYTES=2147483648 xdt explain big-model.json --instance '{...}'

>>> check_model_size(1_000, "m.json", max_bytes=2_000)
>>> check_model_size(3_000, "m.json", max_bytes=2_000)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
xdt.errors.ModelSizeError: m.json is 3,000 bytes, over the limit of 2,000 bytes (2.0 KiB) ...
"""

from __future__ import annotations

import os
from pathlib import Path

from xdt.errors import MissingFileError, ModelFormatError, ModelSizeError, ParameterError

__all__ = ["MAX_MODEL_BYTES", "check_model_size", "model_size_limit", "read_model_file"]

#: The default largest model file, in bytes (512 MiB), when ``XDT_MAX_MODEL_BYTES`` is unset.
MAX_MODEL_BYTES = 512 * 2**20

#: The environment variable that sets the default limit (a number of bytes).
ENVIRONMENT = "XDT_MAX_MODEL_BYTES"


def model_size_limit(max_bytes: int | None = None) -> int:
    """The limit in bytes: ``max_bytes`` when given, else ``XDT_MAX_MODEL_BYTES`` when set,
    else :data:`MAX_MODEL_BYTES`.

    Raises
    ------
    ParameterError
        ``max_bytes`` (or the environment variable) is not a positive whole number.
    """
    if max_bytes is None:
        text = os.environ.get(ENVIRONMENT, "").strip()
        if not text:
            return MAX_MODEL_BYTES
        try:
            value = int(text.replace("_", ""))
        except ValueError:
            value = 0
        if value <= 0:
            raise ParameterError(f"{ENVIRONMENT}={text!r} is not a positive number of bytes; "
                                 f"set it to one, e.g. {ENVIRONMENT}={2 * MAX_MODEL_BYTES}")
        return value
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes <= 0:
        raise ParameterError(f"max_bytes must be a positive number of bytes, got {max_bytes!r}")
    return max_bytes


def _human(n: int) -> str:
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} bytes"


def check_model_size(size: int, source: str, max_bytes: int | None = None) -> None:
    """Refuse a model file of ``size`` bytes when it is over the limit.

    Parameters
    ----------
    size : int
        The file's size in bytes (or the length of the text given).
    source : str
        What to name in the message (the path).
    max_bytes : int, optional
        The limit; default :func:`model_size_limit`'s.

    Raises
    ------
    ModelSizeError
        ``size`` is over the limit; the message says the limit and how to raise it.
    """
    limit = model_size_limit(max_bytes)
    if size > limit:
        raise ModelSizeError(
            f"{source} is {size:,} bytes, over the limit of {limit:,} bytes ({_human(limit)}) "
            f"for model files; raise it with max_bytes= (e.g. max_bytes={2 * size}), or on "
            f"the command line with the environment variable {ENVIRONMENT}={2 * size}",
            size=size, limit=limit)


def read_model_file(path: str | os.PathLike, what: str = "model",
                    max_bytes: int | None = None) -> bytes:
    """The bytes of a model file, its size checked (``os.stat``) before it is read.

    Parameters
    ----------
    path : str or os.PathLike
    what : str
        The kind of file, for the messages (``"XGBoost model"``).
    max_bytes : int, optional
        The limit; default :func:`model_size_limit`'s.

    Raises
    ------
    MissingFileError
        No file at ``path``.
    ModelFormatError
        ``path`` is a folder, or reading it fails (an I/O error).
    PermissionError
        The file may not be read.
    ModelSizeError
        The file is over the limit.
    """
    p = Path(path)
    if p.is_dir():
        raise ModelFormatError(f"{str(p)!r} is a directory, not a {what} file")
    try:
        size = p.stat().st_size
    except FileNotFoundError:
        raise MissingFileError(f"no {what} file at {str(p)!r}", path=str(p)) from None
    check_model_size(size, str(p), max_bytes)
    limit = model_size_limit(max_bytes)
    try:
        with p.open("rb") as f:
            parts = [f.read(size + 1)]      # the size stat gave, and a byte to see growth
            total = len(parts[0])
            while total > size and total <= limit:  # it grew after the stat: read on
                part = f.read(min(2**24, limit + 1 - total))
                if not part:
                    break
                parts.append(part)
                total += len(part)
    except FileNotFoundError:
        raise MissingFileError(f"no {what} file at {str(p)!r}", path=str(p)) from None
    except PermissionError:
        raise
    except OSError as e:  # EIO from a failing disk, a special file such as /proc/self/mem
        raise ModelFormatError(
            f"cannot read the {what} file {str(p)!r}: {e.strerror or e}; check the disk, or "
            "copy the model to a regular file and load that") from None
    check_model_size(total, str(p), max_bytes)
    return parts[0] if len(parts) == 1 else b"".join(parts)
