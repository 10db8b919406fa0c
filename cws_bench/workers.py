"""Worker processes that stop cleanly, with everything they started.

The bake-off runs each pair in a worker process. A worker may start
programs of its own (the ``command`` adapter runs each in a new session, so
that its process group can be killed as a whole). This module holds what
both sides need so that nothing outlives a run:

- in a worker, :func:`worker_started`: the worker leaves the terminal's
  process group (a Ctrl-C reaches the main process only, which decides),
  turns SIGTERM into ``SystemExit`` so that ``finally`` blocks run (the
  ``command`` adapter kills its program's group there), and asks the kernel
  (Linux) to send it SIGTERM when the main process dies;
- in the main process, :func:`stop_worker`: SIGTERM to the worker, a short
  grace, then SIGKILL to it and to every process it started, with their
  process groups; and :func:`signals_raise`, which turns SIGINT and SIGTERM
  into :class:`Interrupted` while workers run, so the run can stop them,
  keep the finished cache and say how to resume.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator
from typing import Any

from cws_bench.errors import CwsBenchError

__all__ = [
    "Interrupted",
    "descendants_of",
    "kill_processes",
    "signals_ignored",
    "signals_raise",
    "stop_worker",
    "worker_started",
]

STOP_GRACE_S = 2.0  # seconds a worker gets to clean up after SIGTERM
_PR_SET_PDEATHSIG = 1


class Interrupted(CwsBenchError):
    """A run stopped by SIGINT or SIGTERM; ``exit_code`` is 128 plus the signal number."""

    def __init__(self, signum: int, message: str | None = None, hint: str | None = None) -> None:
        name = signal.Signals(signum).name
        super().__init__(message or f"interrupted by {name}", hint)
        self.signum = signum
        self.exit_code = 128 + signum


def _raise_interrupted(signum: int, frame: Any) -> None:
    raise Interrupted(signum)


@contextlib.contextmanager
def signals_raise() -> Iterator[None]:
    """Within the block, SIGINT and SIGTERM raise :class:`Interrupted` (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {
        signum: signal.signal(signum, _raise_interrupted)
        for signum in (signal.SIGINT, signal.SIGTERM)
    }
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


@contextlib.contextmanager
def signals_ignored() -> Iterator[None]:
    """Within the block, SIGINT and SIGTERM are ignored (a second Ctrl-C cannot cut a cleanup)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {
        signum: signal.signal(signum, signal.SIG_IGN) for signum in (signal.SIGINT, signal.SIGTERM)
    }
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _exit_on_sigterm(signum: int, frame: Any) -> None:
    raise SystemExit(128 + signum)


def worker_started() -> None:
    """Set up a worker process so that its parent can stop it cleanly (see the module doc)."""
    if os.name != "posix":  # pragma: no cover
        return
    parent = os.getppid()
    with contextlib.suppress(OSError):
        os.setpgid(0, 0)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    if sys.platform.startswith("linux"):
        import ctypes

        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
        if os.getppid() != parent:  # the parent died before prctl took effect
            raise SystemExit(128 + signal.SIGTERM)


def _descendants(pid: int) -> list[Any]:
    import psutil

    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return []


def _kill(processes: list[Any]) -> None:
    import psutil

    own_group = os.getpgid(0)
    for process in processes:
        with contextlib.suppress(psutil.Error, OSError):
            group = os.getpgid(process.pid)
            if group != own_group:
                os.killpg(group, signal.SIGKILL)
        with contextlib.suppress(psutil.Error):
            process.kill()


def stop_worker(process: Any, *, grace: float = STOP_GRACE_S) -> None:
    """Stop a ``multiprocessing`` worker and every process it started.

    The worker gets SIGTERM and ``grace`` seconds to run its ``finally``
    blocks; then it, its descendants (found before it stopped, since they are
    re-parented once it is gone) and their process groups get SIGKILL.
    """
    descendants = _descendants(process.pid) if process.pid is not None else []
    if process.is_alive():
        process.terminate()
        process.join(grace)
    if process.is_alive():
        process.kill()
    process.join()
    _kill(descendants)


def descendants_of(pid: int) -> list[Any]:
    """The processes ``pid`` started, and theirs (psutil processes; empty when it is gone)."""
    return _descendants(pid)


def kill_processes(processes: list[Any]) -> None:
    """SIGKILL to each process (found before their parent stopped) and its process group."""
    _kill(processes)
