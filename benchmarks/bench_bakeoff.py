"""The default bake-off on executors against the unsharded runner, cold caches.

Both run ``cws-bench bakeoff -o TMP --jobs 2 --quiet`` (the default
configuration, what ``make run`` runs) in a fresh output folder, so nothing
comes from the run cache:

- the unsharded runner: cws-bench at commit :data:`BASELINE` (one spawned
  process per pair), extracted with ``git archive`` into a temporary folder
  (its compiled extensions copied from this tree when their sources are the
  same, built otherwise);
- the sharded runner of this tree (``--executor local``, the default).

The two alternate (baseline, sharded, baseline, sharded, ...) so that a
change of the machine's load hits both; the load average is written beside
each run. Target: the sharded wall time at most 0.6 of the unsharded one
(best of the runs of each). Needs git and the People's Daily data.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BASELINE = "b2553fdea5f9783ae2d567402b9184e6fd0c24ca"
"""main before the bake-off ran on executors: one worker process per (segmenter, corpus) pair."""
TARGET = 0.6

ROOT = Path(__file__).resolve().parent.parent


def _baseline_tree(folder: Path) -> Path:
    """cws_bench at :data:`BASELINE`, with its compiled extensions, in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(
        [
            "git",
            "-C",
            str(ROOT),
            "archive",
            BASELINE,
            "cws_bench",
            "corpora",
            "dictionaries",
            "setup.py",
            "pyproject.toml",
        ],
        check=True,
        capture_output=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    sources = list((folder / "cws_bench").rglob("*.pyx"))
    same = all(
        (ROOT / pyx.relative_to(folder)).is_file()
        and (ROOT / pyx.relative_to(folder)).read_bytes() == pyx.read_bytes()
        for pyx in sources
    )
    if same:
        for pyx in sources:
            for built in (ROOT / pyx.relative_to(folder)).parent.glob(f"{pyx.stem}.*.so"):
                shutil.copy2(built, pyx.parent / built.name)
    else:
        subprocess.run(
            [sys.executable, "setup.py", "build_ext", "--inplace", "-q"],
            cwd=folder,
            check=True,
            capture_output=True,
        )
    return folder


def _bakeoff(tree: Path, output: Path) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (user + system, all processes) and exit code of a cold
    default bake-off with the package in ``tree``."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    env = {**os.environ, "PYTHONPATH": str(tree)}
    argv = [sys.executable, "-c", "from cws_bench.cli import main; main()"]
    argv += ["bakeoff", "-o", str(output), "--jobs", "2", "--quiet"]
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=tree, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode not in (0, 1):  # 1: a pair failed (said in the output)
        raise RuntimeError(f"bake-off failed ({done.returncode}): {done.stderr[-2000:]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu, done.returncode


def run(args: Any) -> list[dict[str, Any]]:
    repeat = max(1, min(args.repeat, 3))
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        old = _baseline_tree(folder / "baseline")
        times: dict[str, list[float]] = {"unsharded": [], "sharded": []}
        for attempt in range(repeat):
            for name, tree in (("unsharded", old), ("sharded", ROOT)):
                load = os.getloadavg()[0]
                output = folder / f"{name}-{attempt}"
                seconds, cpu, code = _bakeoff(tree, output)
                shutil.rmtree(output, ignore_errors=True)
                times[name].append(seconds)
                print(
                    f"   {name:<10} run {attempt + 1}: {seconds:6.1f} s wall, {cpu:6.1f} s CPU "
                    f"(load average {load:.2f})"
                )
                rows.append(
                    {
                        "runner": name,
                        "run": attempt + 1,
                        "wall_s": seconds,
                        "cpu_s": cpu,
                        "exit": code,
                        "load_average": load,
                    }
                )
    best = {name: min(values) for name, values in times.items()}
    ratio = best["sharded"] / best["unsharded"]
    met = "met" if ratio <= TARGET else "NOT met"
    paired = [s / u for u, s in zip(times["unsharded"], times["sharded"])]
    print(f"   run by run, sharded / unsharded: {', '.join(f'{r:.2f}' for r in paired)}")
    print(
        f"   best: unsharded {best['unsharded']:.1f} s, sharded {best['sharded']:.1f} s: "
        f"ratio {ratio:.2f} (target <= {TARGET}: {met})"
    )
    rows.append(
        {
            "best_unsharded_s": best["unsharded"],
            "best_sharded_s": best["sharded"],
            "ratio": ratio,
            "paired_ratios": paired,
            "target": TARGET,
            "met": ratio <= TARGET,
        }
    )
    return rows
