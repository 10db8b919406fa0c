"""Sharded runs: Dask scaling with pkuseg, and the overhead of sharding on fmm.

Input: the PKU test input repeated ten times (about 1.7 million characters).

- pkuseg on 1, 2 and 4 Dask workers (a LocalCluster on 127.0.0.1, one thread
  each, started before the clock; segmenter loads included, once per worker):
  the speed-up of 2 workers over 1 (target >= 1.6 on an idle 2-core machine).
- fmm: the serial ``segment_file`` (segmenter already loaded) against the same
  file sharded on Dask and on local workers whose segmenter is already loaded
  (a second run): the overhead ratio (target <= 1.25), with 1 worker (pure
  overhead) and 2 workers.

The machine's load average is written beside the figures: on a shared
machine, other processes take cores from the workers. So is where the time
went (Linux, from /proc/PID/task/*/schedstat): each fmm run's CPU time in the
driver and in the workers, and the CPU one more shard costs (a line fitted
through the three shard sizes); for each pkuseg run, per process its CPU
time and, for its busiest thread (a worker's task thread), CPU time, time
waiting in a run queue (runnable, no core free: the load) and the rest of
the wall time (blocked: waiting for an item, a message or the disk). The
CPU figures hardly depend on the load; a wall-time ratio does.

With CWS_BENCH_SHARDS_FMM_ONLY=1 only the fmm part runs (a minute, not fifteen).
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

SHARD_CHARS = 50_000
FMM_SHARD_CHARS = (50_000, 200_000, 1_000_000)  # 200,000: the default


def _input(shared: Path, folder: Path) -> tuple[Path, Path]:
    raw = shared / "icwb2-data" / "testing" / "pku_test.utf8"
    big = folder / "pku_test_x10.utf8"
    data = raw.read_bytes()
    big.write_bytes(data * 10)
    return big, shared / "icwb2-data" / "gold" / "pku_training_words.utf8"


def _timed(function: Any, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - started)
    return best


def _threads(pid: int) -> dict[str, tuple[float, float]]:
    """Per thread of a process: (CPU seconds, seconds waiting in a run queue)."""
    folder = f"/proc/{pid}/task"
    if not os.path.isdir(folder):  # not Linux
        return {}
    times: dict[str, tuple[float, float]] = {}
    for thread in os.listdir(folder):
        try:
            with open(f"{folder}/{thread}/schedstat") as f:
                ran, wait, _ = f.read().split()
        except (OSError, ValueError):  # the thread ended
            continue
        times[thread] = (int(ran) / 1e9, int(wait) / 1e9)
    return times


def _schedstat(pid: int) -> tuple[float, float]:
    """(CPU seconds, seconds waiting in a run queue) of a process, all its threads summed."""
    times = _threads(pid).values()
    return sum(cpu for cpu, _ in times), sum(wait for _, wait in times)


def _spent(
    before: dict[str, tuple[float, float]], after: dict[str, tuple[float, float]], wall: float
) -> str:
    """A process's CPU over a run, and its busiest thread's CPU, run-queue wait and the rest
    (blocked: waiting for an item, a message, the disk)."""
    spent = {
        thread: (cpu - before.get(thread, (0.0, 0.0))[0], wait - before.get(thread, (0.0, 0.0))[1])
        for thread, (cpu, wait) in after.items()
    }
    if not spent:
        return "no figures (not Linux)"
    cpu, wait = max(spent.values())
    total = sum(c for c, _ in spent.values())
    return (
        f"{total:.1f} CPU; busiest thread {cpu:.1f} CPU, {wait:.1f} queued, "
        f"{wall - cpu - wait:.1f} blocked"
    )


def _pids(executor: Any) -> list[int]:
    return [os.getpid(), *executor.worker_pids()]


def _cpu_of(pids: list[int], function: Any, repeat: int) -> list[tuple[float, float]]:
    """Per process, (CPU seconds, run-queue seconds) of one call of ``function``, on average."""
    before = [_schedstat(pid) for pid in pids]
    for _ in range(repeat):
        function()
    after = [_schedstat(pid) for pid in pids]
    return [((a - b) / repeat, (c - d) / repeat) for (a, c), (b, d) in zip(after, before)]


def run(args: Any) -> list[dict[str, Any]]:
    from cws_bench.run.executors import DaskExecutor, LocalExecutor
    from cws_bench.run.sharded import segment_sharded
    from cws_bench.run.shards import plan_shards
    from cws_bench.segmenters import get_segmenter, segment_file

    rows: list[dict[str, Any]] = []
    repeat = max(1, min(args.repeat, 3))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        big, words = _input(args.shared, folder)
        out = folder / "out.txt"
        load = os.getloadavg()[0]
        print(f"   input: {big.stat().st_size / 1e6:.1f} MB; load average {load:.2f}")

        # fmm: overhead of sharding against the serial run
        fmm = get_segmenter("fmm", lexicon=str(words))
        serial = _timed(lambda: segment_file(fmm, big, out), repeat)
        reference = out.read_bytes()
        ((serial_cpu, _),) = _cpu_of([os.getpid()], lambda: segment_file(fmm, big, out), repeat)
        rows.append({"case": "fmm serial", "seconds": serial, "cpu": serial_cpu, "load": load})
        print(f"   fmm serial: {serial:.2f} s, {serial_cpu:.3f} s CPU")
        for kind, jobs in (("dask", 1), ("dask", 2), ("local", 1), ("local", 2)):
            executor = DaskExecutor(jobs=jobs) if kind == "dask" else LocalExecutor(jobs)
            with executor:
                points: list[tuple[int, float]] = []  # (shards, CPU of a run)
                for size in FMM_SHARD_CHARS:

                    def sharded(executor: Any = executor, size: int = size) -> Any:
                        return segment_sharded(
                            "fmm",
                            big,
                            out,
                            executor=executor,
                            options={"lexicon": str(words)},
                            shard_chars=size,
                        )

                    sharded()  # workers load fmm once; the timed runs reuse it
                    seconds = _timed(sharded, repeat)
                    assert out.read_bytes() == reference
                    cpu = _cpu_of(_pids(executor), sharded, repeat)
                    driver, workers = cpu[0][0], sum(c for c, _ in cpu[1:])
                    ratio = seconds / serial
                    load = os.getloadavg()[0]
                    rows.append(
                        {
                            "case": f"fmm {kind} x{jobs} shards of {size}",
                            "seconds": seconds,
                            "ratio": ratio,
                            "driver_cpu": driver,
                            "workers_cpu": workers,
                            "cpu_ratio": (driver + workers) / serial_cpu,
                            "load": load,
                        }
                    )
                    verdict = "met" if ratio <= 1.25 else "NOT met"
                    print(
                        f"   fmm {kind} {jobs} worker(s), shards of {size:,} chars: {seconds:.2f} s"
                        f" = {ratio:.2f} x serial (target <= 1.25: {verdict}); CPU: driver "
                        f"{driver:.3f} s, workers {workers:.3f} s, "
                        f"{(driver + workers) / serial_cpu:.2f} x serial; load average {load:.2f}"
                    )
                    points.append(
                        (len(plan_shards([big], shard_chars=size).shards), driver + workers)
                    )
                # the CPU one more shard costs: a least-squares line through the sizes' runs
                slope = statistics.linear_regression(*zip(*points)).slope
                rows.append({"case": f"fmm {kind} x{jobs} CPU per shard", "seconds": slope})
                print(f"   fmm {kind} {jobs} worker(s): {slope * 1000:.1f} ms of CPU per shard")

        if os.environ.get("CWS_BENCH_SHARDS_FMM_ONLY"):
            return rows
        # pkuseg: scaling on 1, 2, 4 Dask workers
        times: dict[int, float] = {}
        for jobs in (1, 2, 4):
            with DaskExecutor(jobs=jobs) as executor:
                pids = _pids(executor)
                before = [_threads(pid) for pid in pids]
                started = time.perf_counter()
                stats = segment_sharded(
                    "pkuseg", big, out, executor=executor, shard_chars=SHARD_CHARS
                )
                times[jobs] = time.perf_counter() - started
                after = [_threads(pid) for pid in pids]
            load = os.getloadavg()[0]
            loads = ", ".join(f"{r.seconds:.1f}" for r in stats.loads)
            where = "; ".join(
                f"{'driver' if i == 0 else f'worker {i}'} {_spent(b, a, times[jobs])}"
                for i, (b, a) in enumerate(zip(before, after))
            )
            rows.append(
                {
                    "case": f"pkuseg dask x{jobs}",
                    "seconds": times[jobs],
                    "speedup": times[1] / times[jobs],
                    "shards": stats.shards,
                    "characters": stats.characters,
                    "load_seconds": [r.seconds for r in stats.loads],
                    "cpu": [
                        sum(c for c, _ in a.values()) - sum(c for c, _ in b.values())
                        for b, a in zip(before, after)
                    ],
                    "load": load,
                }
            )
            print(
                f"   pkuseg dask {jobs} worker(s): {times[jobs]:.1f} s, "
                f"{stats.characters / times[jobs]:,.0f} chars/s, speed-up "
                f"{times[1] / times[jobs]:.2f} (loads: {loads} s); load average {load:.2f}"
            )
            print(f"      seconds: {where}")
        verdict = "met" if times[1] / times[2] >= 1.6 else "NOT met"
        print(f"   pkuseg 2 workers vs 1: {times[1] / times[2]:.2f} (target >= 1.6: {verdict})")
    return rows
