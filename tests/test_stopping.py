"""A run stopped by a signal, or killed outright, leaves nothing behind.

Every command ends on SIGINT with exit code 130 and on SIGTERM with 143,
saying one line and no traceback, with no temporary file beside its output
and no process of its own still running; a later run removes the
temporaries a ``kill -9``'d run left (only those of a dead cws-bench process).

The commands run in a process of their own (a new session, so that nothing
they start can reach the test's terminal); every wait is bounded and a
``finally`` kills what is left.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_DICT = ROOT / "dictionaries" / "sample.txt"

sys.path.insert(0, str(Path(__file__).parent))
from processes import WAIT_S, dead, wait_for  # noqa: E402


def start(argv: list[str], **env: str) -> subprocess.Popen:
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), **env}
    return subprocess.Popen(
        [sys.executable, "-c", "from cws_bench.cli import main; main()", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment,
        start_new_session=True,
    )


def finish(proc: subprocess.Popen) -> tuple[int, str]:
    """The exit code and standard error of ``proc``, which is killed if it hangs."""
    try:
        _, stderr = proc.communicate(timeout=WAIT_S)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return proc.returncode, stderr


def tree(pid: int) -> list[psutil.Process]:
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return []


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def assert_one_line(stderr: str, text: str) -> None:
    assert "Traceback" not in stderr, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert text in lines[0]


def slow_command(tmp_path: Path) -> str:
    """A ``command`` segmenter that writes its pid and that of a helper, then hangs."""
    pids = tmp_path / "pids"
    script = f"echo $$ >> {pids}; sleep 300 & echo $! >> {pids}; sleep 300"
    return f"command=sh -c '{script}'"


def started_pids(tmp_path: Path) -> list[int]:
    path = tmp_path / "pids"
    return [int(line) for line in path.read_text().split()] if path.exists() else []


def big_input(tmp_path: Path, lines: int = 400) -> Path:
    path = tmp_path / "input.txt"
    path.write_text("我们在北京大学学习。\n" * lines, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("executor", "signum", "code"),
    [
        (None, signal.SIGTERM, 143),
        (None, signal.SIGINT, 130),
        ("local", signal.SIGTERM, 143),
        ("local", signal.SIGINT, 130),
        ("dask", signal.SIGTERM, 143),
    ],
    ids=["in process SIGTERM", "in process SIGINT", "local SIGTERM", "local SIGINT", "dask"],
)
def test_a_signal_to_segment_ends_it_with_one_line_and_no_leftover(
    tmp_path, executor, signum, code
):
    if executor == "dask":
        pytest.importorskip("distributed", reason="dask[distributed] is not installed")
    source = big_input(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    argv = ["segment", "-s", "command", "-O", slow_command(tmp_path), str(source)]
    argv += ["-o", str(out / "seg.txt"), "--quiet"]
    if executor is not None:
        argv += ["--executor", executor, "--jobs", "1", "--shard-chars", "500"]
    proc = start(argv)
    try:
        wait_for(lambda: len(started_pids(tmp_path)) == 2, "the command started")
        wait_for(lambda: leftovers(out), "the temporary output exists")
        descendants = tree(proc.pid)
        if signum == signal.SIGINT:
            os.killpg(proc.pid, signum)  # Ctrl-C reaches the whole foreground group
        else:
            proc.send_signal(signum)
    finally:
        returncode, stderr = finish(proc)
    assert returncode == code
    assert_one_line(stderr, "interrupted")
    assert leftovers(out) == []
    assert all(dead(p.pid) for p in descendants)
    assert all(dead(pid) for pid in started_pids(tmp_path))


def test_a_signal_to_sharded_score_ends_it_with_one_line_and_no_process(tmp_path):
    gold = tmp_path / "gold.txt"
    gold.write_text("我们 在 北京 大学 学习 。\n" * 1_000_000, encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    argv = ["score", str(gold), str(gold), "--executor", "local", "--jobs", "1"]
    argv += ["--shard-chars", "50000", "-o", str(out / "score.txt")]
    proc = start(argv)
    try:
        wait_for(lambda: len(tree(proc.pid)) >= 1, "a worker started")
        time.sleep(0.5)
        descendants = tree(proc.pid)
        proc.send_signal(signal.SIGTERM)
    finally:
        returncode, stderr = finish(proc)
    if returncode == 0:  # pragma: no cover - the machine finished first
        pytest.skip("the run finished before the signal")
    assert returncode == 143
    assert_one_line(stderr, "interrupted by SIGTERM")
    assert leftovers(out) == []
    assert all(dead(p.pid) for p in descendants)


def test_a_later_run_removes_what_a_killed_run_left_and_only_that(tmp_path):
    source = big_input(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    target = out / "seg.txt"
    argv = ["segment", "-s", "command", "-O", slow_command(tmp_path), str(source)]
    argv += ["-o", str(target), "--quiet", "--executor", "local", "--jobs", "1"]
    proc = start(argv)
    try:
        wait_for(lambda: len(started_pids(tmp_path)) == 2, "the command started")
        wait_for(lambda: len(leftovers(out)) == 2, "the temporary output and parts exist")
        os.kill(proc.pid, signal.SIGKILL)  # as the OOM killer would
        proc.wait(timeout=WAIT_S)
    finally:
        finish(proc)
    left = leftovers(out)
    assert any(name.endswith(".tmp") for name in left)
    assert any(name.endswith(".parts") for name in left)
    # the worker and the program it ran died with the driver
    assert all(dead(pid) for pid in started_pids(tmp_path))
    # files that are not a dead cws-bench process' temporaries stay
    tag = re.search(r"\.cws\d+-([0-9a-f]{6})\.", left[0])
    assert tag is not None, left  # named by the process that made it
    alive = f".seg.txt.cws{os.getpid()}-{tag[1]}.abc123.tmp"  # the test's own pid: alive
    kept = [".seg.txt.tmp", ".seg.txt.cws1-zzzzzz.abc.tmp", alive, ".notes.txt"]
    for name in kept:
        (out / name).write_text("mine")
    argv = ["segment", "-s", "fmm", "--lexicon", str(SAMPLE_DICT), str(source)]
    again = start([*argv, "-o", str(target), "--quiet", "--executor", "local", "--jobs", "1"])
    returncode, stderr = finish(again)
    assert returncode == 0, stderr
    assert target.read_text(encoding="utf-8").count("\n") == 400
    assert leftovers(out) == sorted(kept)


class _SlowHandler(http.server.BaseHTTPRequestHandler):
    """Serves a 'zip' of 10 MB, 1 KB every tenth of a second (it never finishes)."""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", str(10 << 20))
        self.end_headers()
        try:
            for _ in range(600):
                self.wfile.write(b"PK" * 512)
                self.wfile.flush()
                time.sleep(0.1)
        except OSError:
            pass

    def log_message(self, *args: object) -> None:
        pass


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_during_a_download_leaves_no_temporary(tmp_path, signum, serve_http):
    server = serve_http(_SlowHandler)
    cache = tmp_path / "cache"
    url = f"http://127.0.0.1:{server.server_address[1]}/icwb2-data.zip"
    proc = start(
        ["corpora", "download", "sighan2005-pku", "--quiet"],
        CWS_BENCH_CACHE_DIR=str(cache),
        CWS_BENCH_SIGHAN2005_URL=url,
    )
    try:
        wait_for(lambda: any(cache.rglob(".icwb2-data.zip.*.tmp")), "the download started")
        proc.send_signal(signum)
    finally:
        returncode, stderr = finish(proc)
    assert returncode == 128 + signum
    assert_one_line(stderr, "interrupted")
    assert list(cache.rglob("*.tmp")) == []


def moments_config(tmp_path: Path) -> Path:
    body = f"""
        name = "moments"
        resamples = 200

        [[corpora]]
        name = "sample"

        [[segmenters]]
        name = "fmm"
        options = {{ lexicon = "{SAMPLE_DICT}" }}

        [[segmenters]]
        name = "bmm"
        options = {{ lexicon = "{SAMPLE_DICT}" }}
    """
    path = tmp_path / "bakeoff.toml"
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return path


def test_a_signal_at_any_moment_of_a_cached_bakeoff_rerun_ends_it_cleanly(tmp_path):
    config = moments_config(tmp_path)
    out = tmp_path / "out"
    argv = ["bakeoff", str(config), "-o", str(out), "--quiet", "--jobs", "1"]
    code, stderr = finish(start(argv))
    assert code == 0, stderr
    reports = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    began = time.monotonic()
    code, stderr = finish(start(argv))  # a whole rerun with every pair cached, timed
    assert code == 0, stderr
    whole = time.monotonic() - began
    # the statistics and report-writing phase of such a rerun, at 8 moments spread
    # evenly from the start-up to the last report file
    for moment, signum in enumerate([signal.SIGTERM, signal.SIGINT] * 4):
        proc = start(argv)
        try:
            time.sleep(whole * (moment + 0.5) / 8)
            if signum == signal.SIGINT:
                os.killpg(proc.pid, signum)
            else:
                proc.send_signal(signum)
            descendants = tree(proc.pid)
        finally:
            code, stderr = finish(proc)
        assert code in (0, 128 + signum), (moment, code, stderr)
        if code != 0:
            assert_one_line(stderr, "interrupted")
        assert leftovers(out) == [], moment
        assert all(dead(p.pid) for p in descendants), moment
        # each report is whole: the earlier run's or this one's, never a part
        for path in out.iterdir():
            if path.name == "results.json":
                json.loads(path.read_text(encoding="utf-8"))
            elif path.is_file():
                assert len(path.read_bytes()) >= 0.9 * len(reports[path.name]), path


def test_a_stop_a_library_turned_into_its_own_error_still_ends_with_one_line():
    """A signal inside a library that catches the handler's exception and raises its own
    (matplotlib's C++ drawing code, while report.html's charts are drawn, says "ValueError:
    Invalid affine transformation matrix"): the run still ends as stopped, no traceback."""
    child = textwrap.dedent(
        """
        import os, signal, sys, time
        import click
        from cws_bench import cli

        @click.command()
        def draw():
            try:
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(5)  # the stop handler raises here
            except BaseException:
                raise ValueError("Invalid affine transformation matrix")

        cli.COMMANDS["draw"] = "__main__:draw"
        sys.argv = ["cws-bench", "draw"]
        cli.main()
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", child], capture_output=True, text=True, timeout=WAIT_S
    )
    assert done.returncode == 128 + signal.SIGINT, done.stderr
    assert_one_line(done.stderr, "interrupted")


def test_a_signal_during_the_interpreters_teardown_changes_nothing():
    """After the command is over, a late Ctrl-C neither kills the process (exit -2) nor
    says anything: the teardown puts the default handlers back, and another thread still
    alive (a pool's, a progress bar's) would take the signal if it were only held."""
    child = textwrap.dedent(
        """
        import signal, sys, threading, time
        from cws_bench.system.workers import block_stop_signals
        signal.signal(signal.SIGINT, lambda *args: None)  # the run's own handler
        threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
        print("ready", flush=True)
        time.sleep(0.2)
        block_stop_signals()
        sys.exit(0)
        """
    )
    codes = []
    for _ in range(3):
        process = subprocess.Popen([sys.executable, "-c", child], stdout=subprocess.PIPE)
        assert process.stdout is not None
        process.stdout.readline()
        deadline = time.monotonic() + 30
        while process.poll() is None and time.monotonic() < deadline:
            with contextlib.suppress(ProcessLookupError):
                os.kill(process.pid, signal.SIGINT)
            time.sleep(0.001)
        process.kill()  # no-op once it has ended
        codes.append(process.wait(timeout=10))
    assert codes == [0, 0, 0]
