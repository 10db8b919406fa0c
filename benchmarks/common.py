"""Helpers shared by the benchmarks: timing whole processes, peak memory, tables."""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

PYTHON = sys.executable
BIN = Path(PYTHON).parent


def run_process(argv: Sequence[str | os.PathLike[str]], repeat: int) -> dict[str, float]:
    """Run a command ``repeat`` times: wall seconds (min, median) and CPU seconds (median).

    CPU time is the user + system time of the process, from getrusage.
    """
    times = []
    cpu = []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        proc = subprocess.run(
            [os.fspath(a) for a in argv],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            check=False,
        )
        times.append(time.perf_counter() - started)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        if proc.returncode != 0:
            raise RuntimeError(f"{argv} failed: {proc.stderr.decode()[-500:]}")
    return {
        "min_s": min(times),
        "median_s": statistics.median(times),
        "cpu_s": statistics.median(cpu),
    }


def best_of(function: Callable[[], object], repeat: int) -> tuple[float, object]:
    """Call ``function`` ``repeat`` times in this process: the best time and the last result."""
    times = []
    result = None
    for _ in range(repeat):
        started = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - started)
    return min(times), result


def peak_rss_of(argv: Sequence[str | os.PathLike[str]]) -> float:
    """Peak RSS (MiB) of one run of a command, measured by /usr/bin/time when present."""
    if Path("/usr/bin/time").exists():
        proc = subprocess.run(
            ["/usr/bin/time", "-f", "%M", *map(os.fspath, argv)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            check=True,
        )
        return int(proc.stderr.decode().strip().splitlines()[-1]) / 1024
    return float("nan")


def table(rows: Sequence[dict], columns: Sequence[str]) -> str:
    """A plain aligned text table of the given columns."""
    cells = [[str(c) for c in columns]]
    for row in rows:
        cells.append(
            [f"{row[c]:.3f}" if isinstance(row[c], float) else str(row[c]) for c in columns]
        )
    widths = [max(len(r[i]) for r in cells) for i in range(len(columns))]
    return "\n".join("  ".join(v.rjust(w) for v, w in zip(r, widths)) for r in cells)
