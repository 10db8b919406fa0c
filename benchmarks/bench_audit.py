"""The audit at scale: ``cws-bench audit`` on 2 local Dask workers over N MB of text.

Input: the raw text of the shared corpora's four SIGHAN 2005 test inputs
(``icwb2-data/testing/{pku,msr,cityu,as}_test.utf8``, byte-order marks and CRs
removed, 1.9 MB together) concatenated and then repeated until the file holds
N MB (the last copy cut at a line end). Repeated text is not a crawl: every
sentence recurs, so the consistency check sees the same contexts again; the
costs per character are what this measures.

The audit, run as a child process, is the CLI as a user runs it::

    cws-bench audit BIG.txt -s fmm,bmm,jieba -O fmm.lexicon=PKU_WORDS \\
        -O bmm.lexicon=MSR_WORDS -o DIR --executor dask -j 2 --quiet

fmm with PKU's training words, bmm with MSR's, jieba: three segmenters, three
pairs. Its process tree is polled every half second: per process, the peak
RSS (``VmHWM`` of /proc/PID/status, the kernel's high-water mark, so a peak
between two polls is not missed) and the CPU time: the main process (the
audit's own pass; the LocalCluster's scheduler and the workers' nannies run
in it too), the two Dask workers (the segmenters) and any helper process.
From ``audit.json``'s timing: the time inside the segmenters (summed over
the workers) and their characters per second per core; the audit's own pass
(one process, one core) and its characters per second; the shares of the
wall time spent segmenting and in the audit's pass. Those are wall times, which
a loaded machine stretches; the CPU times from /proc (the workers': the
segmenters; the main process's from the moment the last segmenter's output
is done: the audit's pass) give the per-core rates the projection to 10⁹
characters uses.

Sizes: ``CWS_BENCH_AUDIT_MB`` (comma-separated, default ``50``); two sizes
show whether the memory stays bounded. Run it under ``nice -n 19`` on a
shared machine; the load average is written beside the figures.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from common import BIN

SOURCES = ("pku", "msr", "cityu", "as")
POLL_S = 0.5


def build_input(shared: Path, target: Path, megabytes: float) -> int:
    """Write ``megabytes`` MB of the SIGHAN test inputs, concatenated and repeated; its
    characters."""
    testing = shared / "icwb2-data" / "testing"
    text = "".join(
        (testing / f"{name}_test.utf8").read_text("utf-8-sig").replace("\r", "") for name in SOURCES
    )
    data = text.encode("utf-8")
    size = int(megabytes * 1e6)
    characters = 0
    with open(target, "wb") as f:
        written = 0
        while written < size:
            chunk = data[: size - written]
            if len(chunk) < len(data):
                chunk = chunk[: chunk.rfind(b"\n") + 1]
                if not chunk:
                    break
            f.write(chunk)
            written += len(chunk)
            characters += len(chunk.decode("utf-8"))
    return characters


def _status(pid: int) -> dict[str, str]:
    with open(f"/proc/{pid}/status") as f:
        return dict(line.rstrip("\n").split(":\t", 1) for line in f if ":\t" in line)


def _children(pid: int) -> list[int]:
    """Every descendant of ``pid`` (children of any of its threads: the workers are
    started by the event loop's thread)."""
    found: list[int] = []
    direct: list[int] = []
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for thread in threads:
        try:
            with open(f"/proc/{pid}/task/{thread}/children") as f:
                direct += [int(p) for p in f.read().split()]
        except OSError:  # the thread ended
            continue
    for child in direct:
        found += [child, *_children(child)]
    return found


def _cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _role(pid: int, root: int) -> str:
    if pid == root:
        return "main (audit pass, scheduler, nannies)"
    with open(f"/proc/{pid}/cmdline", "rb") as f:
        argv = f.read().replace(b"\0", b" ").decode(errors="replace")
    if "resource_tracker" in argv:
        return "resource tracker"
    if "multiprocessing" in argv or "spawn" in argv:
        return "dask worker"
    return argv[:60]


def watch(argv: list[str], marker: Path) -> tuple[float, dict[int, dict[str, Any]]]:
    """Run ``argv``; its wall time and, per process of its tree, role, peak RSS (MB), CPU
    seconds (as last seen) and, for the main process, its CPU seconds when ``marker``
    appeared (``cpu_at_marker_s``: the last segmenter's output done, the audit's pass next).
    """
    seen: dict[int, dict[str, Any]] = {}
    started = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    while proc.poll() is None:
        if proc.pid in seen and "cpu_at_marker_s" not in seen[proc.pid] and marker.exists():
            seen[proc.pid]["cpu_at_marker_s"] = seen[proc.pid]["cpu_s"]
        for pid in [proc.pid, *_children(proc.pid)]:
            try:
                status = _status(pid)
                entry = seen.setdefault(pid, {})
                # again each time: a worker just forked still shows its parent's command line
                entry["role"] = _role(pid, proc.pid)
                entry["peak_rss_mb"] = int(status["VmHWM"].split()[0]) / 1024
                entry["cpu_s"] = _cpu_seconds(pid)
            except (OSError, KeyError, ValueError):  # ended between the listing and the read
                continue
        time.sleep(POLL_S)
    wall = time.perf_counter() - started
    stderr = proc.stderr.read().decode() if proc.stderr else ""
    if proc.returncode != 0:
        raise RuntimeError(f"{argv} failed ({proc.returncode}): {stderr[-800:]}")
    return wall, seen


def audit_once(shared: Path, folder: Path, megabytes: float) -> dict[str, Any]:
    """Build the input, audit it on 2 Dask workers, and gather the figures."""
    big = folder / f"sighan-x-{megabytes:g}MB.txt"
    characters = build_input(shared, big, megabytes)
    words = shared / "icwb2-data" / "gold"
    out = folder / f"audit-{megabytes:g}"
    argv = [
        str(BIN / "cws-bench"),
        "audit",
        str(big),
        "-s",
        "fmm,bmm,jieba",
        "-O",
        f"fmm.lexicon={words / 'pku_training_words.utf8'}",
        "-O",
        f"bmm.lexicon={words / 'msr_training_words.utf8'}",
        "-o",
        str(out),
        "--executor",
        "dask",
        "-j",
        "2",
        "--quiet",
    ]
    load_before = os.getloadavg()[0]
    wall, processes = watch(argv, out / "segmented" / "jieba" / "1.key")
    result = json.loads((out / "audit.json").read_text("utf-8"))
    timing = result["timing"]
    big.unlink()
    workers_cpu = sum(p["cpu_s"] for p in processes.values() if p["role"] == "dask worker")
    (main,) = [p for p in processes.values() if p["role"].startswith("main")]
    main_cpu = main["cpu_s"]
    # the main process's CPU from the last segmenter's output on: the audit's pass (and the
    # perturbed lines' segmenting, driven from there, a few thousand lines)
    pass_cpu = main_cpu - main.get("cpu_at_marker_s", 0.0)
    return {
        "megabytes": megabytes,
        "file_characters": characters,  # with the line ends
        "characters": result["characters"],  # the sentences' characters, as the audit counts
        "sentences": result["sentences"],
        "wall_s": wall,
        "load_before": load_before,
        "load_after": os.getloadavg()[0],
        "processes": sorted(processes.values(), key=lambda p: p["role"]),
        "segment_s": timing["segment_s"],
        "segment_wall_s": timing["segment_wall_s"],
        "segmented_characters": timing["segmented_characters"],
        "segmenters": timing["segmenters"],
        "audit_s": timing["audit_s"],
        "audit_characters_per_second": timing["audit_characters_per_second"],
        "workers_cpu_s": workers_cpu,
        "main_cpu_s": main_cpu,
        "pass_cpu_s": pass_cpu,
        "segment_share": timing["segment_wall_s"] / wall,
        "audit_share": timing["audit_s"] / wall,
    }


def projection(row: dict[str, Any], characters: float = 1e9) -> dict[int, float]:
    """Hours for ``characters`` on N workers from one run's CPU times (a loaded machine
    stretches wall times, CPU times much less): the workers' CPU (the three segmenters)
    per character divides among the workers; the audit's pass (the main process's CPU
    from the last segmenter's output on) is one process."""
    workers_per_char = row["workers_cpu_s"] / row["characters"]
    main_per_char = row["pass_cpu_s"] / row["characters"]
    return {
        workers: characters * (workers_per_char / workers + main_per_char) / 3600
        for workers in (2, 8, 32)
    }


def run(args: Any) -> list[dict[str, Any]]:
    sizes = [float(s) for s in os.environ.get("CWS_BENCH_AUDIT_MB", "50").split(",")]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for megabytes in sizes:
            row = audit_once(args.shared, Path(tmp), megabytes)
            rows.append(row)
            print(
                f"   {megabytes:g} MB, {row['characters']:,} characters, "
                f"{row['sentences']:,} sentences: {row['wall_s']:.1f} s wall "
                f"(load average {row['load_before']:.1f} before, {row['load_after']:.1f} after)"
            )
            for p in row["processes"]:
                print(
                    f"      {p['role']}: peak RSS {p['peak_rss_mb']:,.0f} MB, "
                    f"{p['cpu_s']:.1f} s CPU"
                )
            for s in row["segmenters"]:
                print(
                    f"      {s['segmenter']}: {s['segment_s']:.1f} s inside segment(), "
                    f"{s['characters_per_second']:,.0f} characters/s per core"
                )
            print(
                f"      segmenting {row['segment_wall_s']:.1f} s wall "
                f"({100 * row['segment_share']:.0f}%), the audit's pass {row['audit_s']:.1f} s "
                f"({100 * row['audit_share']:.0f}%), "
                f"{row['audit_characters_per_second']:,.0f} characters/s on one core"
            )
            print(
                f"      CPU: workers {row['workers_cpu_s']:.1f} s "
                f"({row['segmented_characters'] / row['workers_cpu_s']:,.0f} segmented "
                f"characters per CPU second), main {row['main_cpu_s']:.1f} s, of which the "
                f"audit's pass {row['pass_cpu_s']:.1f} s "
                f"({row['characters'] / row['pass_cpu_s']:,.0f} characters per CPU second)"
            )
            hours = ", ".join(f"{n} workers {h:.1f} h" for n, h in projection(row).items())
            print(f"      10^9 characters, projected: {hours}")
    return rows
