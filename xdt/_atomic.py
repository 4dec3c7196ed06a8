"""Writing a file so that a failure loses nothing: the bytes go to a temporary file in the
target's folder, which is flushed to the disk (``fsync``) and renamed over the target
(``os.replace``) only once all of it is written. On any failure -- a full disk, a missing
permission, text that UTF-8 cannot encode, Ctrl-C -- the file that was there is untouched
and no temporary file remains; an :class:`OSError` becomes the
:class:`~xdt.errors.OutputError` that says why and what to do.

Every file xdt writes whole goes through here (models, reports, DIMACS/WCNF files, the
parts of batch outputs, the demo's files); it imports nothing of xdt but its errors, so
that every wing may use it.

>>> import pathlib, tempfile
>>> path = pathlib.Path(tempfile.mkdtemp()) / "model.json"
>>> _ = write_text(path, '{"name": "a"}\\n')
>>> write_text(path, '{"name": "\\ud800"}\\n')
Traceback (most recent call last):
...
xdt.errors.OutputEncodingError: cannot write ...
>>> path.read_text()
'{"name": "a"}\\n'
>>> sorted(p.name for p in path.parent.iterdir())
['model.json']
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from xdt.errors import OutputEncodingError, OutputError

__all__ = ["atomic_file", "atomic_path", "encode_text", "encoding_error", "output_error",
           "path_problem", "temporary_files", "write_bytes", "write_text"]

#: Characters of the target's name kept in the temporary file's name (so that a long name
#: plus the suffix stays under the file systems' 255-byte limit).
_NAME_KEPT = 100


def path_problem(path: Path, folders_made: bool = False) -> str | None:
    """Why a file cannot be created at ``path``: a file stands where a folder should be, or
    (unless ``folders_made``: the missing folders will be created) its folder is missing."""
    for folder in path.parents:
        if folder.exists() or folder == folder.parent:
            if not folder.is_dir():
                return f"'{folder}' is a file, not a folder; choose another path"
            if folder != path.parent and not folders_made:
                return (f"folder '{path.parent}' does not exist; create it or choose another "
                        "path")
            return None
    return None


def output_error(e: OSError, path: Path) -> OutputError:
    """The :class:`OutputError` saying why ``path`` could not be written, and what to do."""
    if isinstance(e, OutputError):
        return e
    if isinstance(e, PermissionError) or e.errno in (errno.EACCES, errno.EPERM):
        return OutputError(f"cannot write {path}: permission denied; choose a writable path",
                           path)
    if e.errno == errno.EROFS:
        return OutputError(f"cannot write {path}: the file system is read-only; choose a "
                           "writable path", path)
    problem = path_problem(path)
    if problem is not None:
        return OutputError(f"cannot write {path}: {problem}", path)
    if isinstance(e, IsADirectoryError):
        return OutputError(f"cannot write {path}: it is a folder; give a file path", path)
    if e.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
        return OutputError(f"cannot write {path}: no space left on the device; free some or "
                           "choose another path", path)
    return OutputError(f"cannot write {path}: {e.strerror or e}", path)


def encode_text(text: str, path: str | os.PathLike) -> bytes:
    """``text`` as UTF-8 bytes, to be written to ``path``.

    Raises
    ------
    OutputEncodingError
        ``text`` holds a character UTF-8 cannot encode (a lone surrogate such as
        ``"\\ud800"``, read from a file that was not valid Unicode); the message shows it
        in its context (e.g. the feature name holding it).
    """
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise encoding_error(e, path) from None


def encoding_error(e: UnicodeEncodeError, path: str | os.PathLike) -> OutputEncodingError:
    """The :class:`OutputEncodingError` of text that UTF-8 could not encode (``e``), to be
    written to ``path``: the character, where it is, and what to do."""
    text = e.object if isinstance(e.object, str) else str(e.object)
    bad = text[e.start:e.end]
    around = text[max(0, e.start - 40):e.end + 40]
    return OutputEncodingError(
        f"cannot write {path}: the text holds {ascii(bad)[1:-1]} (a lone surrogate code "
        f"point, which UTF-8 cannot encode) at character {e.start}, in {ascii(around)}: a "
        "name or value (such as a feature name) that is not valid Unicode text; replace it "
        "(e.g. rename the feature) and write again (nothing was written)", path)


def _target(path: str | os.PathLike) -> Path:
    """The file a write to ``path`` replaces: a symbolic link's target (the link stays)."""
    path = Path(path)
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def _is_special(path: Path) -> bool:
    """Whether ``path`` is an existing file that cannot be replaced by renaming (a device
    such as ``/dev/null``, a pipe): it is written in place."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def _new_temporary(target: Path) -> tuple[Path, int]:
    """A new file beside ``target`` (``.NAME.<random>.tmp``), open for writing, created with
    the permissions a new file gets (and those of ``target`` when it exists)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    while True:
        tmp = target.with_name(f".{target.name[:_NAME_KEPT]}.{secrets.token_hex(4)}.tmp")
        try:
            fd = os.open(tmp, flags, 0o666)
            break
        except FileExistsError:
            continue
    with contextlib.suppress(OSError):
        os.chmod(tmp, stat.S_IMODE(os.stat(target).st_mode))
    return tmp, fd


def temporary_files(folder: Path, pattern: str) -> list[Path]:
    """The temporary files in ``folder`` of targets whose names match the glob ``pattern``
    (left by a process killed while writing), sorted."""
    return sorted(folder.glob(f".{pattern}.*.tmp")) if folder.is_dir() else []


def _sync_folder(folder: Path) -> None:
    """Flush a folder's entries (the rename) to the disk, where the system allows it."""
    with contextlib.suppress(OSError, AttributeError):
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """A temporary path in ``path``'s folder for a writer that takes a path (pandas'
    ``to_parquet``, ``to_csv``); renamed over ``path`` when the block ends without error.

    Raises
    ------
    OutputError
        The file cannot be written (an :class:`OSError` of the block or of the rename,
        turned into the message saying why and what to do); ``path`` is then as it was,
        and the temporary file is removed. Other exceptions (and Ctrl-C) pass through,
        with the same clean-up.
    """
    target = _target(path)
    if _is_special(target):
        yield target
        return
    try:
        tmp, fd = _new_temporary(target)
    except OSError as e:
        raise output_error(e, Path(path)) from None
    os.close(fd)
    try:
        yield tmp
        fd = os.open(tmp, os.O_RDONLY | getattr(os, "O_BINARY", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException as e:
        with contextlib.suppress(OSError):
            tmp.unlink()
        if isinstance(e, OSError):
            raise output_error(e, Path(path)) from None
        raise
    _sync_folder(target.parent)


@contextlib.contextmanager
def atomic_file(path: str | os.PathLike) -> Iterator[BinaryIO]:
    """A binary file open on a temporary name in ``path``'s folder; flushed to the disk
    and renamed over ``path`` when the block ends without error.

    Raises
    ------
    OutputError
        As :func:`atomic_path`: ``path`` is then as it was, no temporary file remains.
    """
    with atomic_path(path) as tmp, open(tmp, "wb") as f:
        yield f


def write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (see the module); the path.

    Raises
    ------
    OutputError
        ``path`` cannot be written; the message says why and what to do, and the file
        that was there is untouched.
    """
    with atomic_file(path) as f:
        f.write(data)
    return Path(path)


def write_text(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` to ``path`` as UTF-8, atomically (see the module); the path.

    Raises
    ------
    OutputEncodingError
        ``text`` holds a character UTF-8 cannot encode (checked before anything is
        written); the message shows where.
    OutputError
        ``path`` cannot be written; the file that was there is untouched.
    """
    return write_bytes(path, encode_text(text, path))
