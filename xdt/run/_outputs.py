"""Output files and folders: checking, before any work, that a path can be written, and
turning an :class:`OSError` met while writing into an :class:`~xdt.errors.OutputError` that
says why and what to do (missing folder, a file where a folder should be, permission, a
read-only or full file system), or that would replace the command's own input. Used by the
command line (``fit -o``, ``encode -o``, ``import -o``, ``report -o``), the batch runners
(:mod:`xdt.run`) and :func:`xdt.cli._demo_job.write_examples`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

from xdt._atomic import atomic_path, output_error, path_problem
from xdt.errors import OutputError

__all__ = ["check_output_file", "input_problem", "output_error", "path_problem", "same_file",
           "write_output_file"]


def same_file(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    """Whether the paths ``a`` and ``b`` name one file: the same path once symbolic links
    are resolved, or (both existing) the same file on disk (a hard link)."""
    a, b = Path(a), Path(b)
    try:
        if a.resolve() == b.resolve():
            return True
        return a.exists() and b.exists() and a.samefile(b)
    except (OSError, RuntimeError):  # a loop of links, a path beyond reach
        return False


def input_problem(output: str | os.PathLike, inputs: Sequence[str | os.PathLike]
                  ) -> str | None:
    """Why ``output`` may not be written by a run reading ``inputs`` (its model, its data):
    it is one of them (:func:`same_file`: through symbolic and hard links too), so that
    writing it would destroy what the run reads; or None."""
    for source in inputs:
        if str(source) and same_file(output, source):
            return (f"it is the input file {source} of this run, which writing would "
                    "replace (even with --force / overwrite=True); choose another output "
                    "path")
    return None


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
    problem = input_problem(path, inputs)
    if problem is not None:
        raise OutputError(f"cannot write {path}: {problem}", path)
    problem = path_problem(path)
    if problem is not None:
        raise OutputError(f"cannot write {path}: {problem}", path)
    return path


def write_output_file(output: str | os.PathLike, write: Callable[[Path], None]) -> None:
    """``write(tmp)`` to a temporary file in ``output``'s folder, renamed over ``output``
    once it succeeds (:func:`xdt._atomic.atomic_path`): on any failure ``output`` is as it
    was and no temporary file remains; an :class:`OSError` becomes the
    :class:`OutputError` that says why ``output`` could not be written and what to do."""
    with atomic_path(output) as tmp:
        write(tmp)
