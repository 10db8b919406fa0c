"""Tasks that kill or block their own worker, for the executors' fault tests.

Workers import this module by name (``faults``): the tests put its folder on
``sys.path`` before any worker starts, and spawned workers inherit it.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Sequence
from typing import Any

from cws_bench.run.executors import Executor


def _kill_self() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def faulty(context: tuple[str, str, int, Callable[[Any, Any], Any], Any], item: Any) -> Any:
    """Run ``task(inner, item)``, except on item ``target`` (its ``index``, or the item).

    kind ``die-once``: the first worker to run it is killed (a marker file
    remembers); ``die``: every worker that runs it is killed; ``hang``: it
    sleeps for good; ``raise``: it raises ValueError.
    """
    kind, marker, target, task, inner = context
    if getattr(item, "index", item) == target:
        if kind == "die-once" and not os.path.exists(marker):
            with open(marker, "w") as f:
                f.write(str(os.getpid()))
            _kill_self()
        elif kind == "die":
            _kill_self()
        elif kind == "hang":
            time.sleep(3600)
        elif kind == "raise":
            raise ValueError(f"no good: item {target}")
    return task(inner, item)


class FaultyExecutor(Executor):
    """Wraps an executor: every task it runs goes through :func:`faulty`."""

    def __init__(self, inner: Executor, kind: str, marker: str, target: int) -> None:
        self.inner = inner
        self.kind, self.marker, self.target = kind, marker, target
        self.jobs = inner.jobs

    def map(
        self,
        task: Callable[[Any, Any], Any],
        context: Any,
        items: Sequence[Any],
        **kwargs: Any,
    ) -> Any:
        wrapped = (self.kind, self.marker, self.target, task, context)
        return self.inner.map(faulty, wrapped, items, **kwargs)


_LOADED: set[str] = set()  # what this worker process has "loaded"


def loading(context: dict[str, Any], item: str) -> tuple[str, int]:
    """Run an item of key ``item``: the first of a key in a worker "loads" it (sleeps
    ``context["load_s"][item]``), then each sleeps ``context["run_s"]``; gives the key and
    the worker's pid."""
    if item not in _LOADED:
        time.sleep(context["load_s"][item])
        _LOADED.add(item)
    time.sleep(context["run_s"])
    return item, os.getpid()
