"""Sharded runs (issue 16): Dask scaling with pkuseg, and the overhead of sharding on fmm.

Input: the PKU test input repeated ten times (about 1.7 million characters).

- pkuseg on 1, 2 and 4 Dask workers (a LocalCluster on 127.0.0.1, one thread
  each, started before the clock; segmenter loads included, once per worker):
  the speed-up of 2 workers over 1 (target >= 1.6 on an idle 2-core machine).
- fmm: the serial ``segment_file`` (segmenter already loaded) against the same
  file sharded on Dask and on local workers whose segmenter is already loaded
  (a second run): the overhead ratio (target <= 1.25), with 1 worker (pure
  overhead) and 2 workers.

The machine's load average is written beside the figures: on a shared
machine, other processes take cores from the workers. With
CWS_BENCH_SHARDS_FMM_ONLY=1 only the fmm part runs (a minute, not fifteen).
"""

from __future__ import annotations

import os
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


def run(args: Any) -> list[dict[str, Any]]:
    from cws_bench.executors import DaskExecutor, LocalExecutor
    from cws_bench.segmenters import get_segmenter, segment_file
    from cws_bench.sharded import segment_sharded

    rows: list[dict[str, Any]] = []
    repeat = max(1, min(args.repeat, 3))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        big, words = _input(args.shared, folder)
        out = folder / "out.txt"
        load = os.getloadavg()[0]
        print(f"   input: {big.stat().st_size / 1e6:.1f} MB; load average {load:.2f}")

        # fmm: overhead of sharding against the serial run
        fmm = get_segmenter("fmm", dictionary=str(words))
        serial = _timed(lambda: segment_file(fmm, big, out), repeat)
        reference = out.read_bytes()
        rows.append({"case": "fmm serial", "seconds": serial, "load": load})
        print(f"   fmm serial: {serial:.2f} s")
        for kind, jobs in (("dask", 1), ("dask", 2), ("local", 1), ("local", 2)):
            executor = DaskExecutor(jobs=jobs) if kind == "dask" else LocalExecutor(jobs)
            with executor:
                for size in FMM_SHARD_CHARS:

                    def sharded(executor: Any = executor, size: int = size) -> Any:
                        return segment_sharded(
                            "fmm",
                            big,
                            out,
                            executor=executor,
                            options={"dictionary": str(words)},
                            shard_chars=size,
                        )

                    sharded()  # workers load fmm once; the timed runs reuse it
                    seconds = _timed(sharded, repeat)
                    assert out.read_bytes() == reference
                    ratio = seconds / serial
                    load = os.getloadavg()[0]
                    rows.append(
                        {
                            "case": f"fmm {kind} x{jobs} shards of {size}",
                            "seconds": seconds,
                            "ratio": ratio,
                            "load": load,
                        }
                    )
                    verdict = "met" if ratio <= 1.25 else "NOT met"
                    print(
                        f"   fmm {kind} {jobs} worker(s), shards of {size:,} chars: {seconds:.2f} s"
                        f" = {ratio:.2f} x serial (target <= 1.25: {verdict}); "
                        f"load average {load:.2f}"
                    )

        if os.environ.get("CWS_BENCH_SHARDS_FMM_ONLY"):
            return rows
        # pkuseg: scaling on 1, 2, 4 Dask workers
        times: dict[int, float] = {}
        for jobs in (1, 2, 4):
            with DaskExecutor(jobs=jobs) as executor:
                started = time.perf_counter()
                stats = segment_sharded(
                    "pkuseg", big, out, executor=executor, shard_chars=SHARD_CHARS
                )
                times[jobs] = time.perf_counter() - started
            load = os.getloadavg()[0]
            loads = ", ".join(f"{r.seconds:.1f}" for r in stats.loads)
            rows.append(
                {
                    "case": f"pkuseg dask x{jobs}",
                    "seconds": times[jobs],
                    "speedup": times[1] / times[jobs],
                    "shards": stats.shards,
                    "characters": stats.characters,
                    "load_seconds": [r.seconds for r in stats.loads],
                    "load": load,
                }
            )
            print(
                f"   pkuseg dask {jobs} worker(s): {times[jobs]:.1f} s, "
                f"{stats.characters / times[jobs]:,.0f} chars/s, speed-up "
                f"{times[1] / times[jobs]:.2f} (loads: {loads} s); load average {load:.2f}"
            )
        verdict = "met" if times[1] / times[2] >= 1.6 else "NOT met"
        print(f"   pkuseg 2 workers vs 1: {times[1] / times[2]:.2f} (target >= 1.6: {verdict})")
    return rows
