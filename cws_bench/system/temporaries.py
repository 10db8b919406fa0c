"""Temporary files and folders beside a target, that no run leaves behind.

Every temporary cws-bench writes beside a file it makes (``atomic_write``'s, a
sharded run's parts, a download, a zip's extraction) is made here, named
``.NAME.cws<pid>-<host>.<random>.tmp`` (or ``.parts``): the process that made it
and six hex digits of the machine's name. The process keeps a list of them:

- when it stops on SIGINT or SIGTERM, :func:`remove_temporaries` removes what its
  ``finally`` blocks did not get to (the CLI calls it on the way out);
- a process killed outright (``kill -9``, the OOM killer) cannot, so the next one
  that makes a temporary in the same folder removes those of dead processes of
  the same machine (:func:`sweep_folder`); others' files are never touched.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import threading

from cws_bench.system.workers import stop_deferred

__all__ = [
    "discard",
    "make_temporary",
    "owner_alive",
    "remove_temporaries",
    "sweep_folder",
    "temporaries",
]

_NAME = re.compile(r"^\..*\.cws(?P<pid>\d+)-(?P<host>[0-9a-f]{6})\.[A-Za-z0-9_]+\.(?:tmp|parts)$")
_lock = threading.Lock()
_made: set[str] = set()  # temporaries of this process still on disk
_swept: set[str] = set()  # folders already swept by this process


@functools.cache
def _host() -> str:
    import hashlib
    import socket

    return hashlib.blake2b(socket.gethostname().encode(), digest_size=3).hexdigest()


def owner_alive(pid: int) -> bool:
    """Whether process ``pid`` of this machine is still running (or is a zombie)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # not ours to signal (PermissionError), yet alive
        pass
    return True


def _remove(path: str) -> None:
    if os.path.isdir(path) and not os.path.islink(path):
        import shutil

        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(FileNotFoundError, IsADirectoryError, PermissionError):
            os.unlink(path)


def sweep_folder(folder: str) -> list[str]:
    """Remove the temporaries a dead process of this machine left in ``folder``; return them
    (once per folder and process: a bake-off writes thousands of cache files in one)."""
    folder = os.path.abspath(folder or ".")
    with _lock:
        if folder in _swept:
            return []
        _swept.add(folder)
    removed = []
    host = _host()
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    for entry in entries:
        match = _NAME.match(entry.name)
        if match is None or match["host"] != host or owner_alive(int(match["pid"])):
            continue
        _remove(entry.path)
        removed.append(entry.path)
    return removed


def make_temporary(target: str, *, folder: bool = False, suffix: str = ".tmp") -> tuple[int, str]:
    """A new temporary beside ``target``: ``(fd, path)`` of a file, or ``(-1, path)`` of
    a folder; recorded until :func:`discard` (a signal cannot fall between its making and
    its recording)."""
    directory = os.path.dirname(target) or "."
    sweep_folder(directory)
    import tempfile

    prefix = f".{os.path.basename(target)}.cws{os.getpid()}-{_host()}."
    with stop_deferred():
        if folder:
            fd, path = -1, tempfile.mkdtemp(prefix=prefix, suffix=suffix, dir=directory)
        else:
            fd, path = tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=directory)
        with _lock:
            _made.add(path)
    return fd, path


def discard(path: str, *, remove: bool = True) -> None:
    """Forget a temporary (renamed into place, or removed here when ``remove``)."""
    if remove:
        _remove(path)
    with _lock:
        _made.discard(path)


def temporaries() -> list[str]:
    """The temporaries this process made and has not discarded."""
    with _lock:
        return sorted(_made)


def remove_temporaries() -> None:
    """Remove every temporary this process still has (on the way out after a signal)."""
    with _lock:
        paths = sorted(_made)
        _made.clear()
    for path in paths:
        _remove(path)
