"""Worker processes that stop cleanly, with everything they started.

The bake-off runs each pair in a worker process, which may start programs of
its own (the ``command`` adapter, each in a new session). So that nothing
outlives a run:

- in a worker, :func:`worker_started` leaves the terminal's process group (a
  Ctrl-C reaches the main process only, which decides), turns SIGTERM into
  ``SystemExit`` so that ``finally`` blocks run, and asks Linux for SIGTERM
  when the main process dies;
- in the main process, :func:`stop_worker` sends SIGTERM, waits a short grace,
  then SIGKILLs the worker and every process it started, with their process
  groups; :func:`signals_raise` turns SIGINT and SIGTERM into
  :class:`Interrupted` while workers run, so the run can stop them, keep the
  finished cache and say how to resume.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from cws_bench.errors import CwsBenchError

__all__ = [
    "Interrupted",
    "StopSignal",
    "become_subreaper",
    "block_stop_signals",
    "command_ended",
    "command_preexec",
    "command_started",
    "descendants_of",
    "finish_stop",
    "install_stop_handler",
    "kill_orphans",
    "kill_processes",
    "kill_tree",
    "signals_ignored",
    "signals_raise",
    "stop_deferred",
    "stop_quietly",
    "stop_requested",
    "stop_told",
    "stop_worker",
    "worker_started",
]

STOP_GRACE_S = 2.0  # seconds a worker gets to clean up after SIGTERM
_PR_SET_PDEATHSIG = 1
_HELD = (signal.SIGINT, signal.SIGTERM)  # the stop signals


class Interrupted(CwsBenchError):
    """A run stopped by SIGINT or SIGTERM; ``exit_code`` is 128 plus the signal number."""

    def __init__(self, signum: int, message: str | None = None, hint: str | None = None) -> None:
        name = signal.Signals(signum).name
        super().__init__(message or f"interrupted by {name}", hint)
        self.signum = signum
        self.exit_code = 128 + signum


class StopSignal(KeyboardInterrupt):
    """What the stop handler raises: a ``KeyboardInterrupt``, so that no ``except
    Exception`` on its way up (a pair's or a segmenter's failure) can take it for an error
    of the run and go on; :func:`signals_raise` turns it into :class:`Interrupted`."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"interrupted by {signal.Signals(signum).name}")
        self.signum = signum
        self.exit_code = 128 + signum


def _raise_interrupted(signum: int, frame: Any) -> None:
    raise Interrupted(signum)


# ---------------------------------------------------------------- the stop handler
#
# The CLI installs one handler for SIGINT and SIGTERM first (install_stop_handler).
# A signal sets the stop flag (stop_requested) and raises in the main thread only
# at a safe point: not inside an import, a weakref callback, a __del__, logging's
# or threading's bookkeeping, or stop_deferred() (where an exception is swallowed
# or leaves a lock held); else it is tried again a few hundredths of a second
# later. A watchdog ends the process after STOP_DEADLINE_S whatever happens:
# temporaries removed, what it started killed, one line said, exit 128 + signal.

STOP_DEADLINE_S = 20.0  # seconds a stopped run has to clean up before it is ended
_RETRY_S = 0.05
_UNSAFE_FILES = ("weakref.py", "_weakrefset.py", "tempfile.py")
_UNSAFE_FUNCTIONS = {
    "__del__",
    "_run_finalizers",
    "_exitfunc",
    "_execute_child",
    "_shutdown",
    "_maintain_shutdown_locks",
    "_bootstrap_inner",
    "_after_fork",
}


class _StopState:
    def __init__(self) -> None:
        self.signum: int | None = None
        self.raised = False
        self.retrying = False
        self.told = False
        self.deferred = 0
        self.quiet = False
        self.on_exit: list[Callable[[], None]] = []


_stop = _StopState()


def install_stop_handler(on_exit: Callable[[], None] | None = None) -> bool:
    """SIGINT and SIGTERM set the stop flag and end the run (see above); main thread only.

    ``on_exit`` runs before the watchdog ends a process that did not stop in time.
    """
    if threading.current_thread() is not threading.main_thread():
        return False
    if on_exit is not None:
        _stop.on_exit.append(on_exit)
    for signum in _HELD:
        signal.signal(signum, _on_stop_signal)
    return True


def stop_requested() -> int | None:
    """The signal that asked the run to stop, or None."""
    return _stop.signum


def stop_quietly() -> None:
    """From now on a stop signal is only recorded (the command is over; the caller looks
    at :func:`stop_requested` before it exits)."""
    _stop.quiet = True


def block_stop_signals() -> None:
    """Hold SIGINT and SIGTERM back for good: the process is about to exit with its own
    code. The interpreter's teardown puts the default handlers back, which would end it
    with no word and a negative code, and a mask holds them in this thread only (another
    thread still alive, a progress bar's or a pool's, would take them); so both are
    ignored too, which the teardown leaves as it is. Call it from the main thread."""
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
    if threading.current_thread() is threading.main_thread():
        for signum in _HELD:
            signal.signal(signum, signal.SIG_IGN)


def stop_told() -> None:
    """Record that the stop's one line was said (the watchdog then says nothing)."""
    _stop.told = True


@contextlib.contextmanager
def stop_deferred() -> Iterator[None]:
    """Within the block, a stop signal is not raised (it is raised just after)."""
    _stop.deferred += 1
    try:
        yield
    finally:
        _stop.deferred -= 1


def _safe(frame: Any) -> bool:
    """Whether an exception raised in ``frame`` reaches the run (not swallowed, no lock left)."""
    if _stop.deferred:
        return False
    while frame is not None:
        code = frame.f_code
        filename = code.co_filename
        if (
            filename.startswith("<frozen importlib")
            or os.path.basename(filename) in _UNSAFE_FILES
            or code.co_name in _UNSAFE_FUNCTIONS
            or (os.path.basename(filename) == "__init__.py" and "logging" in filename)
        ):
            return False
        frame = frame.f_back
    return True


def _on_stop_signal(signum: int, frame: Any) -> None:
    if _stop.retrying:  # our own retry of a signal that came at an unsafe moment
        _stop.retrying = False
        signum = _stop.signum or signum
    elif _stop.signum is not None:  # a second signal: the first one is being handled
        return
    else:
        _stop.signum = signum
        _quiet_libraries()
        watchdog = threading.Thread(target=_watchdog, name="stop-watchdog", daemon=True)
        watchdog.start()
    if _stop.raised or _stop.quiet:
        return
    if _safe(frame):
        _stop.raised = True
        raise StopSignal(signum)
    timer = threading.Timer(_RETRY_S, _retry, args=(signum,))
    timer.daemon = True
    timer.start()


def _retry(signum: int) -> None:
    import _thread

    _stop.retrying = True
    _thread.interrupt_main(signal.Signals(signum))


def _quiet_libraries() -> None:
    """Dask and its helpers log their own shutdown noise (tracebacks of closed comms)."""
    import logging

    for name in ("distributed", "tornado", "asyncio", "bokeh"):
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)


def _watchdog() -> None:
    time.sleep(STOP_DEADLINE_S)
    signum = _stop.signum or signal.SIGTERM
    finish_stop(f"interrupted by {signal.Signals(signum).name}", 128 + signum)


def finish_stop(message: str | None, code: int) -> None:
    """End a stopped process now: its temporaries removed, everything it started killed,
    ``message`` said once, exit ``code`` (without the interpreter's teardown, which can
    hang on a thread or abort in a library)."""
    for callback in _stop.on_exit:
        with contextlib.suppress(Exception):
            callback()
    with contextlib.suppress(Exception):
        kill_processes(descendants_of(os.getpid()))
    if message is not None and not _stop.told:
        _stop.told = True
        with contextlib.suppress(Exception):
            sys.stderr.write(message + "\n")
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)


@contextlib.contextmanager
def signals_raise() -> Iterator[None]:
    """Within the block, SIGINT and SIGTERM raise :class:`Interrupted` (main thread only);
    under the stop handler (:func:`install_stop_handler`) they already do, at safe points."""
    on_main = threading.current_thread() is threading.main_thread()
    if on_main and signal.getsignal(signal.SIGINT) is _on_stop_signal:
        if _stop.signum is not None and not _stop.raised:
            _stop.raised = True
            raise Interrupted(_stop.signum)
        try:
            yield
        except StopSignal as e:
            raise Interrupted(e.signum) from None
        return
    with _handled_by(_raise_interrupted):
        yield


def signals_ignored() -> contextlib.AbstractContextManager[None]:
    """Within the block, SIGINT and SIGTERM are ignored (a second Ctrl-C cannot cut a cleanup)."""
    return _handled_by(signal.SIG_IGN)


@contextlib.contextmanager
def _handled_by(handler: Any) -> Iterator[None]:
    """SIGINT and SIGTERM go to ``handler`` inside the block (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.signal(signum, handler) for signum in _HELD}
    try:
        yield
    finally:
        for signum, before in previous.items():
            signal.signal(signum, before)


def _exit_on_sigterm(signum: int, frame: Any) -> None:
    raise SystemExit(128 + signum)


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM held (blocked) in this thread inside the block.

    A worker process started inside inherits the mask, so a Ctrl-C sent to the
    whole process group while it is still importing (before :func:`worker_started`
    ignores SIGINT) cannot print a ``KeyboardInterrupt`` traceback from it; the
    caller gets a signal held meanwhile as soon as the block ends.
    """
    if os.name != "posix":  # pragma: no cover
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def worker_started() -> None:
    """Set up a worker process so that its parent can stop it cleanly (see the module doc)."""
    if os.name != "posix":  # pragma: no cover
        return
    parent = os.getppid()
    with contextlib.suppress(OSError):
        os.setpgid(0, 0)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    # started with both held (signals_held): a Ctrl-C sent while it imported is dropped
    # now, a SIGTERM ends it as any later one would
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _HELD)
    become_subreaper()  # an orphan of a program it runs comes back to it
    _prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM))  # SIGTERM when the parent dies (Linux)
    if sys.platform.startswith("linux") and os.getppid() != parent:  # it died before prctl
        raise SystemExit(128 + signal.SIGTERM)


def descendants_of(pid: int) -> list[Any]:
    """The processes ``pid`` started, and theirs (psutil processes; empty when it is gone)."""
    import psutil

    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return []


def kill_processes(processes: list[Any]) -> None:
    """SIGKILL to each process (found before their parent stopped) and its process group."""
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
    descendants = descendants_of(process.pid) if process.pid is not None else []
    if process.is_alive():
        process.terminate()
        process.join(grace)
    if process.is_alive():
        process.kill()
    process.join()
    kill_processes(descendants)


# ---------------------------------------------------------------- escaped processes
#
# A program may leave its process group (``setsid helper &``) or outlive the
# process that started it (that process killed with SIGKILL). On Linux:
# - the CLI's process and every worker are child subreapers
#   (PR_SET_CHILD_SUBREAPER): an orphan of their tree is re-parented to the
#   nearest of them instead of to init, where kill_orphans finds it;
# - a program is started with PR_SET_PDEATHSIG = SIGKILL (command_preexec):
#   it dies when the thread that started it dies, however that died.
# Elsewhere only the process group and the descendants still linked to their
# parents (psutil) are killed; see docs/SCALING.md.

_PR_SET_CHILD_SUBREAPER = 36
_commands: set[int] = set()  # programs this process runs on purpose, each in its own session
_commands_lock = threading.Lock()


def _prctl(option: int, value: int) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(option, value, 0, 0, 0)) == 0
    except (OSError, AttributeError):  # pragma: no cover - no prctl
        return False


def become_subreaper() -> bool:
    """Make this process adopt the orphans of its descendants (Linux; False elsewhere)."""
    return _prctl(_PR_SET_CHILD_SUBREAPER, 1)


def _die_with_parent() -> None:  # pragma: no cover - runs in the child, between fork and exec
    _prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL))


def command_preexec() -> Callable[[], None] | None:
    """A ``preexec_fn`` that makes a program die with the thread that starts it (Linux)."""
    return _die_with_parent if sys.platform.startswith("linux") else None


def command_started(pid: int) -> None:
    """Record a program started on purpose in a session of its own (not an orphan)."""
    with _commands_lock:
        _commands.add(pid)


def command_ended(pid: int) -> None:
    with _commands_lock:
        _commands.discard(pid)


def kill_tree(pid: int) -> None:
    """SIGKILL a program, every process below it and their process groups."""
    import psutil

    processes = descendants_of(pid)
    with contextlib.suppress(psutil.Error):
        processes.insert(0, psutil.Process(pid))
    kill_processes(processes)


def _may_have_children() -> bool:
    """False when Linux says this process has no child (psutil, which imports much, is
    then not needed)."""
    try:
        for task in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{task}/children", "rb") as f:
                if f.read().strip():
                    return True
    except OSError:
        return True
    return False


def kill_orphans() -> list[int]:
    """Kill the orphans this (subreaper) process adopted, with what they started; return
    their pids.

    An orphan is a child in another session than this process' that is not a
    program it runs on purpose: workers share this process' session, a
    ``command`` program has a session of its own and is recorded while it runs.
    """
    if not _may_have_children():
        return []
    import psutil

    try:
        me = psutil.Process()
        children = me.children()
        session = os.getsid(0)
    except (psutil.Error, OSError):
        return []
    with _commands_lock:
        running = set(_commands)
    orphans = []
    for child in children:
        try:
            if child.pid in running or os.getsid(child.pid) == session:
                continue
        except OSError:
            continue
        orphans.append(child)
    if not orphans:
        return []
    kill_processes([p for o in orphans for p in (*descendants_of(o.pid), o)])
    # reap them: a subreaper's adopted children are its own to wait for
    psutil.wait_procs(orphans, timeout=STOP_GRACE_S)
    return [o.pid for o in orphans]
