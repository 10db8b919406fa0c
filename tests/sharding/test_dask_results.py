"""The Dask executor's results, fetched by the client's event loop: in order, an error of
the task raised as it was, and the executor's own cluster without the workers' profiler
and with a slow event-loop health tick."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from faults import FaultyExecutor


@pytest.fixture(scope="module")
def dask_executor() -> Iterator[object]:
    pytest.importorskip("distributed", reason="dask[distributed] is not installed")
    from cws_bench.run.executors import DaskExecutor

    executor = DaskExecutor(jobs=2, retries=1, window=1)
    try:
        yield executor
    finally:
        executor.close()


def test_results_in_order_past_the_submission_window(dask_executor: object) -> None:
    items = list(range(25))  # a window of 1 per worker: submitted a few at a time
    assert list(dask_executor.map(pow, 2, items)) == [2**i for i in items]
    assert list(dask_executor.map(pow, 3, [])) == []


def test_an_error_of_the_task_is_raised_as_is(dask_executor: object, tmp_path: Path) -> None:
    faulty = FaultyExecutor(dask_executor, "raise", str(tmp_path / "m"), 1)
    with pytest.raises(ValueError, match="no good: item 1"):
        list(faulty.map(pow, 2, [0, 1, 2]))
    assert list(dask_executor.map(pow, 2, [4])) == [16]  # it serves on


def test_the_own_cluster_runs_without_the_profiler_and_with_a_slow_tick(
    dask_executor: object,
) -> None:
    import functools

    import dask

    profiling = functools.partial(dask.config.get, "distributed.worker.profile.enabled")
    assert set(dask_executor.client.run(profiling).values()) == {False}
    tick = functools.partial(dask.config.get, "distributed.admin.tick.interval")
    assert set(dask_executor.client.run(tick).values()) == {"1s"}
