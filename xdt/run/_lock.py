"""One run per output: the lock a batch run (:func:`xdt.run.explain_table`, ``xdt explain
--batch``) holds on its output for its whole duration, so that two runs writing the same
path cannot both claim it.

The lock is a file beside the output (``out.jsonl`` -> ``out.jsonl.lock``; a folder
``out/`` -> ``out.lock``) holding the process id, host and start time of the run that
holds it. Where the system offers it, the file is held with ``flock`` (released by the
system when the process ends, however it ends: the lock of a run killed with ``kill -9``
is taken over at once); elsewhere, it is created exclusively, and a lock whose process is
no longer alive on this host is taken over. The run removes the file when it ends.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import socket
from collections.abc import Iterator
from pathlib import Path

from xdt.errors import OutputLockedError
from xdt.run._outputs import output_error

try:
    import fcntl
except ImportError:  # not on POSIX: exclusive creation only
    fcntl = None  # type: ignore[assignment]

__all__ = ["lock_path", "output_lock"]


def lock_path(output: str | os.PathLike) -> Path:
    """The lock file of ``output``: ``NAME.lock`` beside it (beside the target of a
    symbolic link, which is the file written, so that runs given the link and the target
    take one lock)."""
    path = Path(output)
    if path.name in ("", ".", "..") or path.is_symlink():
        path = path.resolve()
    return path.with_name(path.name + ".lock")


def _holder(lock: Path) -> dict:
    """What the lock file says of the run holding it (``pid``, ``host``, ``started``), or
    ``{}`` when it cannot be read."""
    try:
        found = json.loads(lock.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def _me() -> bytes:
    return json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                       "started": _dt.datetime.now().isoformat(timespec="seconds")}
                      ).encode("utf-8")


def _locked(output: Path, lock: Path, holder: dict) -> OutputLockedError:
    who = (f"process {holder['pid']} on {holder.get('host', 'an unknown host')}"
           + (f", since {holder['started']}" if holder.get("started") else "")
           if "pid" in holder else "a process that has not said which yet")
    return OutputLockedError(
        f"cannot write {output}: another run is writing it ({who}; lock file {lock}); wait "
        "for it to end (or stop it), or choose another output path", output, holder)


def _alive(pid: object) -> bool:
    """Whether process ``pid`` runs on this host (True when it cannot be told)."""
    if not isinstance(pid, int) or os.name != "posix":
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # it exists, owned by another user
    return True


def _acquire_flock(output: Path, lock: Path) -> int | None:
    """Hold ``lock`` with ``flock``: its descriptor, or None when the file system does not
    offer ``flock``."""
    while True:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise _locked(output, lock, _holder(lock)) from None
        except OSError:
            os.close(fd)
            return None
        # the holder may have removed the file (ending its run) between our open and our
        # lock: then we hold a file no one else sees; start again on the path's file
        try:
            mine, there = os.fstat(fd), os.stat(lock)
            if (mine.st_dev, mine.st_ino) == (there.st_dev, there.st_ino):
                return fd
        except FileNotFoundError:
            pass
        os.close(fd)


def _acquire_exclusive(output: Path, lock: Path) -> int:
    """Create ``lock`` exclusively; a lock of a process no longer alive on this host is
    removed and taken over."""
    while True:
        try:
            return os.open(lock, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            holder = _holder(lock)
            if holder.get("host") == socket.gethostname() and not _alive(holder.get("pid")):
                with contextlib.suppress(FileNotFoundError):
                    lock.unlink()
                continue
            raise _locked(output, lock, holder) from None


@contextlib.contextmanager
def output_lock(output: str | os.PathLike) -> Iterator[Path]:
    """Hold the lock of ``output`` (see the module) for the block; the lock file.

    Raises
    ------
    OutputLockedError
        Another run holds it: the message names its process, host and start, and says
        what to do.
    OutputError
        The lock file cannot be written (its folder is missing or read-only...).
    """
    output = Path(output)
    lock = lock_path(output)
    try:
        lock.parent.mkdir(parents=True, exist_ok=True)
        fd = _acquire_flock(output, lock) if fcntl is not None else None
        if fd is None:
            fd = _acquire_exclusive(output, lock)
    except OutputLockedError:
        raise
    except OSError as e:
        raise output_error(e, lock) from None
    try:
        try:
            os.ftruncate(fd, 0)
            os.write(fd, _me())
        except OSError as e:
            raise output_error(e, lock) from None
        yield lock
    finally:
        with contextlib.suppress(OSError):
            lock.unlink()  # while still holding it: the next run makes a new file
        os.close(fd)
