"""Waiting on processes and conditions, for the tests that start and stop programs
(tests/test_workers.py, tests/test_stopping.py). Each wait returns as soon as it can;
the limits are for a loaded machine."""

from __future__ import annotations

import time
from collections.abc import Callable

import psutil
import pytest

WAIT_S = 60


def dead(pid: int, seconds: float = 20) -> bool:
    """Whether ``pid`` is dead (gone, or a zombie) within ``seconds`` (a loaded machine's
    death chain: the driver, then its worker by its parent-death signal, then the program)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)


def wait_for(condition: Callable[[], object], what: str, seconds: float = WAIT_S) -> None:
    """Wait until ``condition()`` is true; fail the test naming ``what`` after ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    pytest.fail(f"never happened: {what}")
