"""Tests of cws_bench/system/workers.py: a bake-off stops its workers and what they started.

The segmenter is a ``sh -c`` wrapper that starts a sleeping grandchild (its
pid written to a file) and then hangs: the shape of program that used to
outlive a timeout, a SIGTERM or a Ctrl-C of the bake-off.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import psutil
import pytest

from cws_bench.defaults import DEFAULT_RETRIES
from cws_bench.run.bakeoff import run_bakeoff
from cws_bench.run.config import load_config

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_DICT = ROOT / "dictionaries" / "sample.txt"

sys.path.insert(0, str(Path(__file__).parent))
from processes import dead, wait_for  # noqa: E402


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
        options = {{ lexicon = "{SAMPLE_DICT}" }}

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
    config = load_config(hanging_config(tmp_path, timeout=2))
    result = run_bakeoff(config, output_dir=tmp_path / "out", jobs=2, write=False)
    status = {p.segmenter: p.status for p in result.pairs}
    assert status == {"fmm": "ok", "hangs": "timeout"}
    pids = started_pids(tmp_path)
    # the wrapper and its grandchild, on each attempt (a hung shard runs again `retries` times)
    assert len(pids) == 2 * (1 + DEFAULT_RETRIES)
    assert all(dead(pid) for pid in pids)


@pytest.mark.parametrize(
    ("signum", "to_group", "code", "executor", "no_cache"),
    [
        (signal.SIGTERM, False, 143, "local", False),
        (signal.SIGINT, True, 130, "local", False),
        (signal.SIGTERM, False, 143, "dask", False),
        (signal.SIGINT, True, 130, "local", True),
    ],
    ids=[
        "SIGTERM",
        "Ctrl-C to the process group",
        "SIGTERM with a local Dask cluster",
        "Ctrl-C of a --no-cache run",
    ],
)
def test_a_signal_stops_every_worker_keeps_the_cache_and_says_how_to_resume(
    tmp_path, signum, to_group, code, executor, no_cache
):
    if executor == "dask":
        pytest.importorskip("distributed", reason="dask[distributed] is not installed")
    config = hanging_config(tmp_path)
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    argv = ["bakeoff", str(config), "-o", str(out), "--jobs", "2", "--quiet"]
    argv += ["--executor", executor] + (["--no-cache"] if no_cache else [])
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
    if no_cache:  # running the same command again would not read the cache: it says so
        assert "run the same command again" not in lines[0]
        assert "--no-cache does not read them" in lines[0]
        assert "run the command again without --no-cache to resume" in lines[0]
    else:
        assert "run the same command again to resume" in lines[0]
    assert all(dead(p.pid) for p in descendants)
    assert all(dead(pid) for pid in started_pids(tmp_path))
    assert len(list((out / "cache").glob("*.json"))) == 1  # the finished pair is kept


def _cli(argv: list[str]) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.Popen(
        [sys.executable, "-c", "from cws_bench.cli import main; main()", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )


def _finish(proc: subprocess.Popen, pids: list[int] | None = None) -> tuple[int, str]:
    """Wait (bounded) for ``proc``; whatever is left of it and of ``pids`` is killed."""
    try:
        _, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return proc.returncode, stderr


def _kill_left(pids: list[int]) -> None:
    for pid in pids:
        with contextlib.suppress(psutil.Error):
            psutil.Process(pid).kill()


def _escaping_script(pids: Path, then: str) -> list[str]:
    """A wrapper that starts a helper in a session of its own (out of its process group)."""
    return ["sh", "-c", f"echo $$ >> {pids}; setsid sleep 301 & echo $! >> {pids}; {then}"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="subreaper: Linux only")
@pytest.mark.parametrize(
    ("then", "timeout"),
    [("sleep 300", "2"), ("sleep 0.3; exit 3", "600")],
    ids=["the command times out", "the command crashes after its helper left"],
)
def test_a_helper_that_left_the_process_group_ends_with_its_command(tmp_path, then, timeout):
    pids = tmp_path / "pids"
    source = tmp_path / "in.txt"
    source.write_text("我们在北京大学学习。\n", encoding="utf-8")
    command = json.dumps(_escaping_script(pids, then))
    argv = ["segment", "-s", "command", "-O", f"command={command}", "-O", f"timeout={timeout}"]
    proc = _cli([*argv, str(source), "-o", str(tmp_path / "out.txt"), "--quiet"])
    try:
        code, stderr = _finish(proc)
        assert code == 2, stderr
        assert "Traceback" not in stderr
        started = started_pids(tmp_path)
        assert len(started) == 2
        assert all(dead(pid) for pid in started)
    finally:
        _kill_left(started_pids(tmp_path))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PDEATHSIG: Linux only")
def test_a_program_dies_with_its_worker_killed_outright(tmp_path):
    config = hanging_config(tmp_path)
    proc = _cli(["bakeoff", str(config), "-o", str(tmp_path / "out"), "--jobs", "2", "--quiet"])
    try:
        wait_for(lambda: len(started_pids(tmp_path)) == 2, "the command started")
        wrapper, helper = started_pids(tmp_path)
        worker = psutil.Process(wrapper).ppid()
        assert worker != proc.pid  # the program runs in a worker process
        os.kill(worker, signal.SIGKILL)  # as the OOM killer would
        assert dead(wrapper)
        assert dead(helper)
        proc.send_signal(signal.SIGTERM)
        code, stderr = _finish(proc)
        assert code == 143, stderr
    finally:
        _finish(proc)
        _kill_left(started_pids(tmp_path))
    assert all(dead(pid) for pid in started_pids(tmp_path))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="subreaper: Linux only")
def test_a_hanging_program_under_dask_does_not_outlive_the_run(tmp_path):
    pytest.importorskip("distributed", reason="dask[distributed] is not installed")
    pids = tmp_path / "pids"
    source = tmp_path / "in.txt"
    source.write_text("我们在北京大学学习。\n" * 20, encoding="utf-8")
    script = f"echo $$ >> {pids}; sleep 300 & echo $! >> {pids}; sleep 300"
    command = json.dumps(["sh", "-c", script])
    argv = ["segment", "-s", "command", "-O", f"command={command}", str(source)]
    argv += ["-o", str(tmp_path / "out.txt"), "--quiet", "--executor", "dask", "--jobs", "1"]
    argv += ["--shard-timeout", "3", "--retries", "0"]
    proc = _cli(argv)
    try:
        code, stderr = _finish(proc)
        assert code == 2, stderr
        assert "Traceback" not in stderr
        assert len(started_pids(tmp_path)) == 2
        assert all(dead(pid) for pid in started_pids(tmp_path))
    finally:
        _kill_left(started_pids(tmp_path))


def test_a_crashing_program_in_a_bakeoff_is_named_by_corpus_and_line(tmp_path):
    """The program crashes on line 23 of the sample: in the third shard (of 10 lines each),
    the first of its batches of 5 lines: lines 21-25 of the corpus, 1-5 of the batch."""
    raw = (ROOT / "corpora" / "sample" / "raw.txt").read_text(encoding="utf-8").splitlines()
    marker = raw[22][:4]
    assert all(marker not in line for line in raw[:20])
    program = tmp_path / "crashes.sh"
    program.write_text(
        f'input=$(cat)\ncase "$input" in *{marker}*) exit 3;; esac\nprintf "%s\\n" "$input"\n',
        encoding="utf-8",
    )
    script = str(program)
    body = f"""
        name = "crashes"
        resamples = 20
        batch_size = 10

        [settings]
        shard_chars = 10

        [[corpora]]
        name = "sample"

        [[segmenters]]
        name = "command"
        label = "crashes"
        options = {{ command = {json.dumps(["sh", script])}, batch_size = 5 }}
    """
    path = tmp_path / "bakeoff.toml"
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    result = run_bakeoff(load_config(path), output_dir=tmp_path / "out", jobs=1, write=False)
    (pair,) = result.pairs
    assert pair.status == "failed"
    assert "exited with" in pair.error and "3" in pair.error
    assert "lines 21-25 of sample" in pair.error
    assert "of the batch" not in pair.error


def test_a_worker_starts_with_interrupts_held():
    """A Ctrl-C sent while a fresh worker imports is held until it can stop cleanly.

    multiprocessing starts its resource tracker on the first process start and then
    unblocks SIGINT and SIGTERM in the caller, so the first worker used to start with
    neither held, and a Ctrl-C during its imports printed a traceback. The worker's
    mask is read at once, long before its interpreter has started up.
    """
    script = textwrap.dedent(
        """
        from cws_bench.run.executors import ExecutorSettings, make_executor
        executor = make_executor(ExecutorSettings(executor="local", jobs=1))
        executor.start()
        pid = executor.worker_pids()[0]
        status = open(f"/proc/{pid}/status").read()
        print(int(status.split("SigBlk:")[1].split()[0], 16))
        executor.close()
        """
    )
    if not Path("/proc/self/status").exists():
        pytest.skip("reads a process' signal mask from /proc (Linux)")
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    blocked = int(done.stdout.split()[-1])
    for signum in (signal.SIGINT, signal.SIGTERM):
        assert blocked & (1 << (signum - 1)), f"signal {signum} not held: mask {blocked:x}"
