"""A guard for the tests of waits that must end: a call that has not returned fails the test."""

from __future__ import annotations

from typing import Any

import pytest


def bounded(call: Any, seconds: float = 120) -> Any:
    """``call()``'s result or exception, or a failure if it has not returned in ``seconds``.

    The bound is a guard against a hang (the behaviour under test), not a
    measurement: any run that returns passes or fails on what it returned.
    """
    import threading

    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = call()
        except BaseException as e:  # handed to the test's thread
            outcome["error"] = e

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        pytest.fail(f"still waiting after {seconds:g} s: the wait is not bounded")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
