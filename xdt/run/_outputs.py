"""Output files and folders: checking, before any work, that a path can be written, and
turning an :class:`OSError` met while writing into an :class:`~xdt.errors.OutputError` that
says why and what to do (missing folder, a file where a folder should be, permission, a
read-only or full file system), or that would replace the command's own input. Used by the
command line (``fit -o``, ``encode -o``, ``import -o``, ``report -o``), the batch runners
(:mod:`xdt.run`) and :func:`xdt.cli._demo_job.write_examples`.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Sequence
from pathlib import Path

from xdt.errors import OutputError

__all__ = ["check_output_file", "output_error", "path_problem", "write_output_file"]


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
    if e.errno == errno.ENOSPC:
        return OutputError(f"cannot write {path}: no space left on the device; free some or "
                           "choose another path", path)
    return OutputError(f"cannot write {path}: {e.strerror or e}", path)


def check_output_file(output: str | os.PathLike,
                      inputs: Sequence[str | os.PathLike] = ()) -> Path:
    """Check, before any work, that one output file (a model, a DIMACS file, a report) can
    be created at ``output``; the path.

    Parameters
    ----------
    output : path
        The file to write (replaced if it exists).
    inputs : sequence of paths
        The files the command reads (its model, its data): ``output`` must be none of them,
        or writing it would destroy what was read.

    Raises
    ------
    OutputError
        ``output`` is empty, a folder or one of ``inputs``, its folder does not exist, or a
        file stands where a folder of the path should be; the message says what to do.
    """
    if not str(output):
        raise OutputError("no output file named (an empty path); give the file's path", output)
    path = Path(output)
    if path.is_dir():
        raise OutputError(f"cannot write {path}: it is a folder; give a file path", path)
    for source in map(Path, inputs):
        if path.resolve() == source.resolve() or (
                path.exists() and source.exists() and path.samefile(source)):
            raise OutputError(f"cannot write {path}: it is the input file {source}, which "
                              "writing would replace; choose another output path", path)
    problem = path_problem(path)
    if problem is not None:
        raise OutputError(f"cannot write {path}: {problem}", path)
    return path


def write_output_file(output: str | os.PathLike, write: Callable[[Path], None]) -> None:
    """``write(path)``, with an :class:`OSError` turned into the :class:`OutputError` that
    says why ``output`` could not be written and what to do."""
    path = Path(output)
    try:
        write(path)
    except OSError as e:
        raise output_error(e, path) from None
