"""Executors: run a task over shards on local worker processes or on a Dask cluster.

An executor maps ``task(context, item)`` over items and yields the results
in the items' order, whatever order they finish in. The context (a
segmenter's name and options, a dictionary, scoring settings) goes to each
worker once; an item (a :class:`~cws_bench.run.shards.Shard`) is small.

- :class:`LocalExecutor`: ``jobs`` worker processes of the spawn context,
  each fed one item at a time. A worker that dies, or runs an item past the
  per-item timeout (it is then killed), is replaced and the item runs again,
  at most ``retries`` more times; then the run fails naming the item and the
  reason. An exception raised by the task is not retried (it would fail the
  same way): it is raised again in the caller.
- :class:`DaskExecutor`: ``dask.distributed`` on a scheduler given by its
  address, or on a ``LocalCluster`` of ``jobs`` one-thread worker processes
  on 127.0.0.1 that the executor starts and stops. Dask runs an item again
  when its worker dies (``distributed.scheduler.allowed-failures`` times,
  set to ``retries`` on the executor's own cluster); a worker whose item
  passes the timeout kills itself, so a hang becomes a death and is retried.

Workers keep what they load: :func:`cached` holds one object per key per
worker process (a loaded segmenter), and reports its load time once.

>>> with LocalExecutor(jobs=2) as ex:
...     list(ex.map(pow, 2, [1, 2, 3, 10]))
[2, 4, 8, 1024]
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import pickle
import signal
import socket
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from multiprocessing.connection import Connection, wait
from typing import Any

# The executor names and the retry default live with the other defaults, which the
# CLI reads at start-up without importing this module (multiprocessing, socket, ...).
from cws_bench.defaults import DEFAULT_RETRIES, EXECUTORS
from cws_bench.display.units import plural
from cws_bench.errors import CwsBenchError, Fix
from cws_bench.system.workers import (
    become_subreaper,
    descendants_of,
    kill_orphans,
    kill_processes,
    signals_held,
)

__all__ = [
    "DaskExecutor",
    "Executor",
    "ExecutorSettings",
    "ItemFailure",
    "LoadReport",
    "LocalExecutor",
    "ShardFailedError",
    "cached",
    "make_executor",
]


class ShardFailedError(CwsBenchError):
    """An item (a shard) could not be run: its worker kept dying or hanging."""


_LIMITS = (Fix("shard_timeout", metavar="SECONDS"), Fix("retries", metavar="N"))
"""The settings a shard that keeps failing points to (ExecutorSettings' timeout and retries)."""


@dataclass(frozen=True, slots=True)
class ItemFailure:
    """What :meth:`Executor.map` yields, with ``tolerate=True``, for an item that could not run.

    Attributes:
        reason: what happened (``failed 3 times: its worker process died ...``).
        timed_out: whether the last attempt ran past the timeout.
    """

    reason: str
    timed_out: bool = False


@dataclass(frozen=True, slots=True)
class LoadReport:
    """One load of a cached object (a segmenter) by one worker process.

    Attributes:
        key: what was loaded (``pkuseg {}``).
        worker: ``host:pid`` of the worker process.
        seconds: how long loading took.
    """

    key: str
    worker: str
    seconds: float


# One process's cache of loaded objects, and the loads it has not reported yet.
_CACHE: dict[str, Any] = {}
_UNREPORTED: list[LoadReport] = []
_CACHE_LOCK = threading.Lock()


def worker_name() -> str:
    """``host:pid`` of this process."""
    return f"{socket.gethostname()}:{os.getpid()}"


def cached(key: str, load: Callable[[], Any]) -> Any:
    """The object this worker process loaded under ``key``, loading it on first use.

    The load is timed and recorded once; :func:`take_load_reports` hands the
    records to the caller (a task returns them with its result).
    """
    with _CACHE_LOCK:
        if key not in _CACHE:
            started = time.perf_counter()
            _CACHE[key] = load()
            _UNREPORTED.append(LoadReport(key, worker_name(), time.perf_counter() - started))
        return _CACHE[key]


def take_load_reports() -> tuple[LoadReport, ...]:
    """The loads since the last call, in this process (each reported once)."""
    with _CACHE_LOCK:
        reports = tuple(_UNREPORTED)
        _UNREPORTED.clear()
    return reports


@dataclass(frozen=True)
class _Job:
    """The arguments of one :meth:`Executor.map`."""

    task: Callable[[Any, Any], Any]
    context: Any
    items: Sequence[Any]
    describe: Callable[[Any], str]
    affinity: Callable[[Any], str] | None
    tolerate: bool

    def failure(self, index: int, reason: str, timed_out: bool = False) -> ItemFailure:
        """What item ``index``, which could not be run, yields: its error is raised
        instead unless the map tolerates failures."""
        if not self.tolerate:
            raise ShardFailedError(
                f"{self.describe(self.items[index])}: {reason}",
                "look for what kills or blocks the segmenter on these lines "
                "(memory, a crash); {0} and {1} set the limits",
                fixes=_LIMITS,
            )
        return ItemFailure(reason, timed_out)


class Executor:
    """Maps a task over items, yielding the results in order (see the module)."""

    jobs: int = 1

    def map(
        self,
        task: Callable[[Any, Any], Any],
        context: Any,
        items: Sequence[Any],
        *,
        done: Callable[[int, Any], None] | None = None,
        describe: Callable[[Any], str] = str,
        affinity: Callable[[Any], str] | None = None,
        tolerate: bool = False,
    ) -> Iterator[Any]:
        """Yield ``task(context, item)`` for each item, in the items' order.

        Args:
            task: a module-level function (workers import it by name).
            context: its first argument, sent to each worker once.
            items: its second arguments.
            done: called with (index, result) as each item finishes, in the
                order they finish (for a progress bar).
            describe: names an item in error messages.
            affinity: what an item needs loaded (a segmenter's cache key): a
                local worker takes an item whose key it has loaded first, then
                one whose key no worker has, then one whose key another worker
                has when loading it too pays (``_Queue``), else it waits (Dask
                schedules alone).
            tolerate: an item whose worker died or hung too many times yields
                an :class:`ItemFailure` instead of failing the whole map.

        Raises:
            ShardFailedError: an item's worker died or hung too many times
                (unless ``tolerate``).
            Exception: what the task raised, raised again here.
        """
        job = _Job(task, context, items, describe, affinity, tolerate)
        return _ordered(self._run(job), len(items), done)

    def _run(self, job: _Job) -> Iterator[tuple[int, Any]]:
        """Yield (index, result) for each item, in the order they finish."""
        raise NotImplementedError

    def start(self) -> None:
        """Start the workers now, before the first :meth:`map` (while the caller does other
        work); by default they start with it."""

    def close(self) -> None:
        """Stop the workers (nothing is left behind)."""

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _ordered(
    results: Iterable[tuple[int, Any]], count: int, done: Callable[[int, Any], None] | None
) -> Iterator[Any]:
    """Reorder (index, result) pairs that arrive in any order."""
    pending: dict[int, Any] = {}
    next_index = 0
    for index, result in results:
        if done is not None:
            done(index, result)
        pending[index] = result
        while next_index in pending:
            yield pending.pop(next_index)
            next_index += 1
    if next_index != count:  # pragma: no cover - every item yields once
        raise RuntimeError(f"{count - next_index} items were not run")


def _rebuild_error(cls: type[BaseException], args: tuple, state: dict[str, Any]) -> BaseException:
    error = cls.__new__(cls)
    error.args = args
    error.__dict__.update(state)
    return error


def _reduce_error(error: BaseException) -> tuple[Any, ...]:
    return _rebuild_error, (type(error), error.args, dict(error.__dict__))


def portable(error: BaseException) -> BaseException:
    """``error``, made to pickle whatever its ``__init__`` takes (CwsBenchError and kin).

    An exception pickles as ``cls(*args)``, which fails for classes whose
    ``__init__`` takes other arguments than ``args``; this registers a reducer
    that rebuilds it from its attributes instead. Unpicklable attributes turn
    it into a RuntimeError with the same text.
    """
    import copyreg

    copyreg.pickle(type(error), _reduce_error)
    try:
        pickle.loads(pickle.dumps(error))
    except Exception:
        text = "".join(traceback.format_exception_only(type(error), error)).strip()
        return RuntimeError(text)
    return error


# ---------------------------------------------------------------- local processes


def _worker_main(connection: Connection) -> None:
    """A local worker: run the items sent over ``connection`` until told to stop.

    Messages: ``("task", task, context)`` sets what the next items run;
    ``("item", index, item)`` runs one; ``None`` stops. The worker lives on
    from one ``map`` to the next, keeping what :func:`cached` loaded.
    """
    from cws_bench.system.workers import worker_started

    # Out of the terminal's process group (Ctrl-C reaches the parent only, which
    # decides), SIGTERM runs the finally blocks, and the worker dies with its parent.
    worker_started()
    task: Callable[[Any, Any], Any] | None = None
    context: Any = None
    while True:
        try:
            message = connection.recv()
        except EOFError:
            return
        if message is None:
            # Nothing is left to hand back: leave without the interpreter's teardown,
            # which frees a loaded model object by object (seconds for snownlp's).
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(0)
        if message[0] == "task":
            _, task, context = message
            continue
        _, index, item = message
        try:
            assert task is not None
            reply = ("ok", index, task(context, item))
        except Exception as e:
            reply = ("error", index, pickle.dumps(portable(e)))
        connection.send(reply)


@dataclass
class _Slot:
    process: Any
    connection: Connection
    index: int | None = None
    started: float = 0.0
    keys: set[str] = field(default_factory=set)  # affinity keys of the items it ran
    used: bool = False  # it was sent a task
    loading: bool = False  # its item is the first of its key here: its time holds the load


HELP_UNMEASURED = 4
"""Waiting items of a key, per worker that would hold it, at which an idle local worker loads
a key another worker holds before any of its items has finished (see ``_Queue``)."""


class _Queue:
    """The items still to run, handed to workers by affinity (see :meth:`Executor.map`).

    A worker takes an item whose key it holds, else one whose key no worker holds.
    Failing both, it would load a key another worker already holds: it does so only
    when that pays, since a load costs seconds of a core (pkuseg's 4 s, beside the
    other workers and the caller) and the holders may finish the key's items before
    the load would. From the items finished so far, a key's run time per item and its
    load time (the first item's time on a worker, less the run time); the idle worker
    helps when the key's waiting work per holder is at least twice its load. Before
    any item of the key has finished, it helps when the key has at least
    :data:`HELP_UNMEASURED` waiting items for each worker that would then hold it.
    Otherwise it waits, and looks again as each item finishes. The default bake-off on
    2 cores: 16-19 s and 26 s of CPU instead of 21-23 s and 32 s with a second load of
    pkuseg for its last shards.
    """

    def __init__(self, count: int, affinity: Callable[[int], str] | None) -> None:
        self.waiting = list(range(count))
        self.key = affinity
        self.runs: dict[str, list[float]] = {}  # seconds of items run where the key was loaded
        self.firsts: dict[str, list[float]] = {}  # seconds of first items (load and run)

    def __bool__(self) -> bool:
        return bool(self.waiting)

    def take(self, slot: _Slot, slots: Sequence[_Slot], *, force: bool = False) -> int | None:
        """The next item for ``slot`` (see the class), or None: it waits. ``force``: any item
        rather than none (no worker is busy).

        The key is the slot's from the moment it gets the item (its worker is loading it).
        """
        if self.key is None:
            return self.waiting.pop(0)
        held = set().union(*(other.keys for other in slots if other is not slot))
        keys = [self.key(index) for index in self.waiting]
        mine = [i for i, key in enumerate(keys) if key in slot.keys]
        free = [i for i, key in enumerate(keys) if key not in held]
        chosen = (mine or free)[0] if mine or free else self._worth_helping(keys, slots)
        if chosen is None and not force:
            return None
        position = 0 if chosen is None else chosen
        slot.loading = keys[position] not in slot.keys
        slot.keys.add(keys[position])
        return self.waiting.pop(position)

    def _worth_helping(self, keys: list[str], slots: Sequence[_Slot]) -> int | None:
        """The first waiting item whose key is worth loading once more (see the class)."""
        first: dict[str, int] = {}
        waiting_of: dict[str, int] = {}
        for position, key in enumerate(keys):
            first.setdefault(key, position)
            waiting_of[key] = waiting_of.get(key, 0) + 1
        for key, position in first.items():
            holders = sum(1 for other in slots if key in other.keys)
            waiting = waiting_of[key]
            runs, firsts = self.runs.get(key), self.firsts.get(key)
            if runs and firsts:
                run = sum(runs) / len(runs)
                load = max(0.0, min(firsts) - run)
                worth = waiting * run / max(holders, 1) >= 2 * load
            else:
                worth = waiting >= HELP_UNMEASURED * (holders + 1)
            if worth:
                return position
        return None

    def finished(self, slot: _Slot, seconds: float) -> None:
        """Count the time of ``slot``'s item, which has just finished."""
        if self.key is None or slot.index is None:
            return
        times = self.firsts if slot.loading else self.runs
        times.setdefault(self.key(slot.index), []).append(seconds)

    def put_back(self, index: int) -> None:
        self.waiting.insert(0, index)


class LocalExecutor(Executor):
    """``jobs`` worker processes (spawn context) on this machine; see the module.

    The workers start on the first :meth:`map` and serve the next ones (a
    segmenter they loaded stays loaded) until :meth:`close`. A worker that is
    stopped gets SIGTERM and a short grace, then it and everything it started
    get SIGKILL (:func:`cws_bench.system.workers.stop_worker`).

    Args:
        jobs: worker processes (default: the CPU count).
        timeout: seconds an item may run before its worker is killed (None: no limit).
        retries: how many times an item whose worker died or hung runs again.
    """

    def __init__(
        self,
        jobs: int | None = None,
        *,
        timeout: float | None = None,
        retries: int = DEFAULT_RETRIES,
    ) -> None:
        self.jobs = max(1, jobs or os.cpu_count() or 1)
        self.timeout = timeout
        self.retries = retries
        self._context = multiprocessing.get_context("spawn")
        self._slots: list[_Slot] = []

    def worker_pids(self) -> list[int]:
        """Process ids of the running workers."""
        return [slot.process.pid for slot in self._slots]

    def start(self) -> None:
        """Start the ``jobs`` workers now: they import while the caller goes on (a bake-off
        reads its corpora meanwhile)."""
        while len(self._slots) < self.jobs:
            self._slots.append(self._start())

    def _start(self) -> _Slot:
        parent, child = self._context.Pipe()
        process = self._context.Process(target=_worker_main, args=(child,), daemon=True)
        # multiprocessing starts its resource tracker on the first start and then unblocks
        # SIGINT and SIGTERM in the caller, held or not: start it before holding them
        from multiprocessing import resource_tracker

        resource_tracker.ensure_running()
        with signals_held():  # a Ctrl-C while the worker imports: none of its business
            process.start()
        child.close()
        return _Slot(process, parent)

    def _stop(self, slot: _Slot, *, kill: bool) -> None:
        """Stop a worker: one already told to leave (``kill`` false) is given a few seconds;
        then SIGTERM and SIGKILL as needed."""
        from cws_bench.system.workers import stop_worker

        if not kill:
            slot.process.join(timeout=5)
        stop_worker(slot.process)  # SIGTERM, a grace, SIGKILL to it and what it started
        slot.connection.close()

    def _run(self, job: _Job) -> Iterator[tuple[int, Any]]:
        items, affinity = job.items, job.affinity
        key = None if affinity is None else (lambda index: affinity(items[index]))
        queue = _Queue(len(items), key)
        failures = [0] * len(items)
        remaining = len(items)
        setup = ("task", job.task, job.context)
        try:
            while len(self._slots) < min(self.jobs, remaining):
                self._slots.append(self._start())
            for slot in self._slots:
                slot.connection.send(setup)
                slot.used = True
            while remaining:
                for slot in self._slots:
                    if slot.index is None and queue:
                        # a worker must be busy: the loop waits for one
                        force = slot is self._slots[-1] and not any(
                            other.index is not None for other in self._slots
                        )
                        slot.index = queue.take(slot, self._slots, force=force)
                        if slot.index is None:
                            continue  # it waits (loading the item's segmenter would not pay)
                        slot.started = time.monotonic()
                        slot.connection.send(("item", slot.index, items[slot.index]))
                for i, index, outcome in self._finished(queue):
                    if i is None:  # a result
                        remaining -= 1
                        yield index, outcome
                        continue
                    failures[index] += 1
                    self._slots[i] = self._start()
                    self._slots[i].connection.send(setup)
                    self._slots[i].used = True
                    if failures[index] <= self.retries:
                        queue.put_back(index)
                        continue
                    reason = f"failed {plural(failures[index], 'time')}: {outcome[0]}"
                    remaining -= 1
                    yield index, job.failure(index, reason, outcome[1])
        finally:
            # Workers still busy (the run failed or was abandoned) are stopped; idle ones stay.
            busy = [slot for slot in self._slots if slot.index is not None]
            self._slots = [slot for slot in self._slots if slot.index is None]
            for slot in busy:
                self._stop(slot, kill=True)

    def _finished(self, queue: _Queue) -> Iterator[tuple[int | None, int, Any]]:
        """Wait for busy workers; yield ``(None, index, result)`` for each result, and
        ``(slot position, index, (reason, timed out))`` for each worker that died or hung
        (stopped; the caller starts another)."""
        busy = [slot for slot in self._slots if slot.index is not None]
        wait_for = None
        if self.timeout is not None:
            deadline = min(slot.started for slot in busy) + self.timeout
            wait_for = max(0.0, deadline - time.monotonic())
        ready = wait(
            [s.connection for s in busy] + [s.process.sentinel for s in busy], timeout=wait_for
        )
        for i, slot in enumerate(self._slots):
            index = slot.index
            if index is None:
                continue
            if slot.connection in ready or slot.process.sentinel in ready:
                try:
                    kind, index, payload = slot.connection.recv()
                except (EOFError, OSError):
                    slot.process.join()
                    kill_orphans()  # what its programs started came back here (subreaper)
                    code = slot.process.exitcode
                    failure = (f"its worker process died (exit code {code})", False)
                else:
                    queue.finished(slot, time.monotonic() - slot.started)
                    slot.index = None
                    if kind == "error":
                        raise pickle.loads(payload)
                    yield None, index, payload
                    continue
            elif self.timeout is not None and time.monotonic() - slot.started >= self.timeout:
                failure = (f"it ran past the timeout of {self.timeout:g} s (worker killed)", True)
            else:
                continue
            self._stop(slot, kill=True)
            yield i, index, failure

    def close(self) -> None:
        slots, self._slots = self._slots, []
        # An idle worker is told to leave; one that is busy, or never ran anything (it
        # holds nothing), is not waited for.
        told = [slot.index is None and slot.used for slot in slots]
        for slot, leaves in zip(slots, told):  # all told first: they leave at the same time
            if leaves:
                with contextlib.suppress(OSError):
                    slot.connection.send(None)
        for slot, leaves in zip(slots, told):
            self._stop(slot, kill=not leaves)


# ---------------------------------------------------------------- Dask


def _identity(value: Any) -> Any:
    return value


def _end_worker() -> None:
    """Past a shard's timeout on Dask: kill what this worker started (a hanging program,
    its helpers), then the worker itself."""
    kill_processes(descendants_of(os.getpid()))
    os.kill(os.getpid(), signal.SIGKILL)


def _dask_run(
    task: Callable[[Any, Any], Any], context: Any, item: Any, timeout: float | None
) -> Any:
    """Run one item on a Dask worker; past the timeout the worker process kills itself."""
    become_subreaper()  # the orphans of the programs it runs come back to it
    timer = None
    if timeout is not None:
        timer = threading.Timer(timeout, _end_worker)
        timer.daemon = True
        timer.start()
    try:
        return task(context, item)
    except Exception as e:
        raise portable(e) from None
    finally:
        if timer is not None:
            timer.cancel()


SCHEDULER_TIMEOUT_S = 10.0
SCHEDULER_TIMEOUT_VARIABLE = "CWS_BENCH_SCHEDULER_TIMEOUT"


def scheduler_timeout() -> float:
    """Seconds to wait for a Dask scheduler to connect and answer: ``$CWS_BENCH_SCHEDULER_
    TIMEOUT``, else :data:`SCHEDULER_TIMEOUT_S`."""
    value = os.environ.get(SCHEDULER_TIMEOUT_VARIABLE)
    if not value:
        return SCHEDULER_TIMEOUT_S
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not seconds > 0 or seconds == float("inf"):
        raise CwsBenchError(
            f"${SCHEDULER_TIMEOUT_VARIABLE} is {value!r}, not a number of seconds above 0",
            f"set it to e.g. 30, or unset it for {SCHEDULER_TIMEOUT_S:g}",
        )
    return seconds


def check_scheduler(address: str, timeout: float) -> None:
    """Raise a CwsBenchError unless a Dask scheduler at ``address`` connects and answers
    Dask's handshake within ``timeout`` seconds.

    ``distributed.Client`` bounds the connection but not the handshake that follows: a
    server that accepts and never answers (or a plain HTTP server) held it for good, and
    one that sends other bytes failed deep in msgpack. The handshake runs here in a
    thread of its own with its own event loop, so that it is bounded from any caller
    (a notebook's running loop included).
    """
    import asyncio

    from distributed.comm import connect

    outcome: list[BaseException | None] = []

    async def handshake() -> None:
        comm = await asyncio.wait_for(connect(address, timeout=timeout), timeout)
        await comm.close()

    def probe() -> None:
        try:
            asyncio.run(handshake())
            outcome.append(None)
        except BaseException as e:  # reported below, in the caller's thread
            outcome.append(e)

    thread = threading.Thread(target=probe, name="scheduler-probe", daemon=True)
    thread.start()
    thread.join(timeout + 1.0)
    hint = (
        f"check the address (a scheduler's, from `dask scheduler`, usually port 8786), "
        f"wait longer with ${SCHEDULER_TIMEOUT_VARIABLE}=SECONDS (now {timeout:g}), "
        f"or leave out the scheduler to run a local cluster"
    )
    if not outcome or isinstance(outcome[0], (TimeoutError, asyncio.TimeoutError)):
        raise CwsBenchError(
            f"the Dask scheduler at {address} did not answer within {timeout:g} s", hint
        )
    error = outcome[0]
    if isinstance(error, OSError):
        raise CwsBenchError(f"cannot reach the Dask scheduler at {address}: {error}", hint)
    if error is not None:  # msgpack's or numpy's error on bytes read as frame lengths
        raise CwsBenchError(
            f"{address} does not answer as a Dask scheduler does (it sent no Dask handshake)",
            hint,
        )


class DaskExecutor(Executor):
    """Items as tasks of a ``dask.distributed`` cluster; see the module.

    Args:
        scheduler: ``tcp://HOST:PORT`` of a running scheduler; None starts a
            ``LocalCluster`` of ``jobs`` workers on 127.0.0.1, stopped by :meth:`close`.
        jobs: workers of the local cluster (default: the CPU count).
        timeout: seconds an item may run before its worker kills itself.
        retries: runs again after a worker death (on the executor's own cluster;
            a remote scheduler uses its ``allowed-failures`` setting).
        window: items submitted ahead of the first unfinished one, per worker.
    """

    def __init__(
        self,
        scheduler: str | None = None,
        *,
        jobs: int | None = None,
        timeout: float | None = None,
        retries: int = DEFAULT_RETRIES,
        window: int = 4,
    ) -> None:
        try:
            import dask
            import distributed
        except ImportError as e:
            raise CwsBenchError(
                "the dask executor needs dask.distributed",
                "pip install 'cws-bench[dask]' (or pip install 'dask[distributed]')",
            ) from e
        self.timeout = timeout
        self.window = window
        self.cluster = None
        if scheduler:
            wait = scheduler_timeout()
            check_scheduler(scheduler, wait)
            try:
                self.client = distributed.Client(scheduler, timeout=f"{wait}s")
            except (OSError, TimeoutError) as e:
                raise CwsBenchError(
                    f"cannot reach the Dask scheduler at {scheduler}: {e}",
                    "start one with `dask scheduler` and workers with `dask worker ADDRESS`, "
                    "or leave out {0} to run a local cluster",
                    fixes=(Fix("scheduler", metavar="ADDRESS"),),
                ) from e
        else:
            import logging
            import warnings

            # Its HTTP server (health checks) listens on 127.0.0.1 too, on 8787 or,
            # if taken, any free port: that is no news to the user.
            # A saturation of 1 sends a worker one item at a time, so a worker that
            # dies takes only the item it was running with it: an innocent item
            # queued behind it is not counted as a failure (and blamed) too.
            # The workers' statistical profiler (a stack sample every 10 ms) and each
            # server's event-loop health tick (every 20 ms) feed a dashboard this cluster
            # does not have and warnings it does not show; they took about 3 % of a core
            # in each worker and 1.5 % in this process (the scheduler and nannies).
            settings = {
                "distributed.scheduler.allowed-failures": retries,
                "distributed.scheduler.worker-saturation": 1.0,
                "distributed.worker.profile.enabled": False,
                "distributed.admin.tick.interval": "1s",
            }
            with (
                dask.config.set(settings),
                warnings.catch_warnings(),
            ):
                warnings.filterwarnings("ignore", message="Port .* is already in use")
                self.cluster = distributed.LocalCluster(
                    n_workers=max(1, jobs or os.cpu_count() or 1),
                    threads_per_worker=1,
                    processes=True,
                    host="127.0.0.1",
                    dashboard_address=None,
                    silence_logs=logging.CRITICAL,
                )
                self.client = distributed.Client(self.cluster)
        self.jobs = max(1, len(self.client.scheduler_info(n_workers=-1)["workers"]))

    def worker_pids(self) -> list[int]:
        """Process ids of the workers (of this machine's workers, for tests)."""
        return list(self.client.run(os.getpid).values())

    def _run(self, job: _Job) -> Iterator[tuple[int, Any]]:
        import uuid

        from distributed import as_completed
        from distributed.scheduler import KilledWorker

        items = job.items
        run = uuid.uuid4().hex[:12]
        # A task, not scattered data: a lost copy is computed again from the graph.
        shared = self.client.submit(_identity, job.context, key=f"cws-context-{run}", pure=False)
        futures: dict[Any, int] = {}
        window = max(1, self.window * self.jobs)
        submitted = 0
        finished: set[int] = set()
        lowest = 0
        # Results are fetched by the client's event loop as each task ends, not
        # one round trip at a time by this thread; errors come back as values.
        pending = as_completed(loop=self.client.loop, with_results=True, raise_errors=False)

        def submit_upto(limit: int) -> None:
            nonlocal submitted
            indices = range(submitted, min(limit, len(items)))
            if not indices:
                return
            count = len(indices)
            batch = self.client.map(  # one message to the scheduler for the batch
                _dask_run,
                [job.task] * count,
                [shared] * count,
                [items[index] for index in indices],
                [self.timeout] * count,
                key=[f"cws-shard-{run}-{index}" for index in indices],
                pure=False,
            )
            futures.update(zip(batch, indices))
            pending.update(batch)
            submitted = indices.stop

        try:
            submit_upto(window)
            for future, result in pending:
                index = futures.pop(future)
                if future.status == "cancelled":
                    raise result
                if future.status == "error":
                    _, error, trace = result
                    if not isinstance(error, KilledWorker):
                        raise error.with_traceback(trace)
                    reason = f"its worker died or ran past the timeout on every attempt ({error})"
                    result = job.failure(index, reason)
                finished.add(index)
                while lowest in finished:
                    finished.discard(lowest)
                    lowest += 1
                yield index, result
                submit_upto(lowest + window)
        finally:
            for future in list(futures):
                future.cancel()
            shared.cancel()

    def close(self) -> None:
        """Close the client; stop the executor's own cluster with every process its workers
        started (a ``command`` segmenter's program runs in a session of its own)."""
        client = getattr(self, "client", None)
        started: list[Any] = []
        if client is not None and self.cluster is not None:
            with contextlib.suppress(Exception):
                for pid in client.run(os.getpid, wait=True).values():
                    started += descendants_of(pid)
        if client is not None:
            self.client = None  # type: ignore[assignment]
            client.close()
        if self.cluster is not None:
            self.cluster.close()
            self.cluster = None
        kill_processes(started)


@dataclass(frozen=True)
class ExecutorSettings:
    """How a run is spread over workers: the one description of an executor (changes no number).

    What the command line's executor options, :func:`~cws_bench.run.bakeoff.run_bakeoff`'s
    keyword arguments and a bake-off's ``[settings]`` table give; :func:`make_executor`
    builds the executor. A field left None is not set: :meth:`merged` lets another
    settings object's set fields win, and the executor's own default applies.

    Attributes:
        executor: ``local`` (worker processes) or ``dask``; None: dask when a
            ``scheduler`` is given, else local.
        jobs: worker processes (local), or workers of the local Dask cluster
            (default: the CPU count).
        scheduler: ``tcp://HOST:PORT`` of a running Dask scheduler.
        shard_chars: characters per shard (None: the run's default).
        timeout: seconds a shard may take before its worker is stopped (None: no limit).
        retries: runs again of a shard whose worker died or hung (None: 2).
    """

    executor: str | None = None
    jobs: int | None = None
    scheduler: str | None = None
    shard_chars: int | None = None
    timeout: float | None = None
    retries: int | None = None

    @property
    def kind(self) -> str:
        """The executor made: ``local`` or ``dask``."""
        return self.executor or ("dask" if self.scheduler else "local")

    def merged(self, given: ExecutorSettings) -> ExecutorSettings:
        """These settings with every field ``given`` sets in its place."""
        changes = {key: value for key, value in asdict(given).items() if value is not None}
        return replace(self, **changes)


def make_executor(settings: ExecutorSettings) -> Executor:
    """The executor ``settings`` describe, its workers not started yet: the one constructor.

    Raises:
        CwsBenchError: an unknown kind, a scheduler with the local executor,
            dask missing or its scheduler unreachable.
    """
    kind = settings.kind
    retries = DEFAULT_RETRIES if settings.retries is None else settings.retries
    if settings.scheduler and kind == "local":
        raise CwsBenchError(
            "a scheduler is the address of a Dask scheduler, not of local workers",
            "use it with {0}",
            fixes=(Fix("executor", "dask"),),
        )
    if kind == "dask":
        return DaskExecutor(
            settings.scheduler, jobs=settings.jobs, timeout=settings.timeout, retries=retries
        )
    if kind == "local":
        return LocalExecutor(settings.jobs, timeout=settings.timeout, retries=retries)
    raise CwsBenchError(
        f"unknown executor {kind!r}",
        f"use one of: {', '.join(EXECUTORS)}",
    )
