"""Tests of cws_bench/workers.py: a bake-off stops its workers and what they started.

The segmenter is a ``sh -c`` wrapper that starts a sleeping grandchild (its
pid written to a file) and then hangs: the shape of program that used to
outlive a timeout, a SIGTERM or a Ctrl-C of the bake-off.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest

from cws_bench.bakeoff import load_config, run_bakeoff
from cws_bench.executors import DEFAULT_RETRIES

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_DICT = ROOT / "dictionaries" / "sample.txt"


def dead(pid: int) -> bool:
    """Whether ``pid`` is dead (gone, or a zombie) within a few seconds."""
    for _ in range(100):
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        time.sleep(0.05)
    return False


def wait_for(condition, what: str) -> None:
    for _ in range(1200):
        if condition():
            return
        time.sleep(0.05)
    pytest.fail(f"never happened: {what}")


def hanging_config(tmp_path: Path, *, timeout: float = 600) -> Path:
    """fmm (fast) and a command that starts a sleeping grandchild, then hangs."""
    pids = tmp_path / "pids"
    script = f"echo $$ >> {pids}; sleep 300 & echo $! >> {pids}; sleep 300"
    body = f"""
        name = "hangs"
        resamples = 20
        timeout = {timeout}

        [[corpora]]
        name = "sample"

        [[segmenters]]
        name = "fmm"
        options = {{ dictionary = "{SAMPLE_DICT}" }}

        [[segmenters]]
        name = "command"
        label = "hangs"
        options = {{ command = {json.dumps(["sh", "-c", script])}, timeout = 600 }}
    """
    path = tmp_path / "bakeoff.toml"
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return path


def started_pids(tmp_path: Path) -> list[int]:
    path = tmp_path / "pids"
    return [int(line) for line in path.read_text().split()] if path.exists() else []


def test_a_pair_that_times_out_leaves_no_process(tmp_path):
    config = load_config(hanging_config(tmp_path, timeout=3))
    result = run_bakeoff(config, output_dir=tmp_path / "out", jobs=2, write=False)
    status = {p.segmenter: p.status for p in result.pairs}
    assert status == {"fmm": "ok", "hangs": "timeout"}
    pids = started_pids(tmp_path)
    # the wrapper and its grandchild, on each attempt (a hung shard runs again `retries` times)
    assert len(pids) == 2 * (1 + DEFAULT_RETRIES)
    assert all(dead(pid) for pid in pids)


@pytest.mark.parametrize(
    ("signum", "to_group", "code", "executor"),
    [
        (signal.SIGTERM, False, 143, "local"),
        (signal.SIGINT, True, 130, "local"),
        (signal.SIGTERM, False, 143, "dask"),
    ],
    ids=["SIGTERM", "Ctrl-C to the process group", "SIGTERM with a local Dask cluster"],
)
def test_a_signal_stops_every_worker_keeps_the_cache_and_says_how_to_resume(
    tmp_path, signum, to_group, code, executor
):
    if executor == "dask":
        pytest.importorskip("distributed", reason="dask[distributed] is not installed")
    config = hanging_config(tmp_path)
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    argv = ["bakeoff", str(config), "-o", str(out), "--jobs", "2", "--quiet"]
    argv += ["--executor", executor]
    proc = subprocess.Popen(
        [sys.executable, "-c", "from cws_bench.cli import main; main()", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )
    try:
        wait_for(lambda: len(started_pids(tmp_path)) == 2, "the command started")
        wait_for(lambda: len(list((out / "cache").glob("*.json"))) == 1, "fmm finished")
        descendants = psutil.Process(proc.pid).children(recursive=True)
        assert len(descendants) >= 3  # a worker, the wrapper, its grandchild
        if to_group:
            os.killpg(proc.pid, signum)
        else:
            proc.send_signal(signum)
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == code
    assert "Traceback" not in stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert "1 of 2 pairs done" in lines[0]
    assert "run the same command again to resume" in lines[0]
    assert all(dead(p.pid) for p in descendants)
    assert all(dead(pid) for pid in started_pids(tmp_path))
    assert len(list((out / "cache").glob("*.json"))) == 1  # the finished pair is kept
