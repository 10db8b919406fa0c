"""A --scheduler address that is not a Dask scheduler ends the command at once.

Three servers on 127.0.0.1, started and stopped by the test: one that accepts
and never answers, a plain HTTP server, and one that sends bytes that are not
Dask's protocol. Each gives one line on stderr and exit code 2 within the
scheduler timeout ($CWS_BENCH_SCHEDULER_TIMEOUT, 2 s here).
"""

from __future__ import annotations

import http.server
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext, suppress
from pathlib import Path

import pytest

pytest.importorskip("distributed", reason="dask[distributed] is not installed")

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_DICT = ROOT / "dictionaries" / "sample.txt"


@contextmanager
def raw_server(greeting: bytes | None) -> Iterator[int]:
    """A TCP server that holds every connection open, sending ``greeting`` (or nothing)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.settimeout(0.2)
    stop = threading.Event()
    held: list[socket.socket] = []

    def serve() -> None:
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except OSError:
                continue
            held.append(connection)
            if greeting is not None:
                with suppress(OSError):
                    connection.sendall(greeting)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        thread.join(5)
        listener.close()
        for connection in held:
            connection.close()


class _Hello(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"hello")

    def log_message(self, *args: object) -> None:
        pass


SERVERS = {
    "accepts and never answers": lambda serve_http: raw_server(None),
    "a plain HTTP server": lambda serve_http: nullcontext(serve_http(_Hello).server_address[1]),
    "sends garbage bytes": lambda serve_http: raw_server(b"\xff\xfe garbage \x00" * 4096),
}


@pytest.mark.parametrize("kind", list(SERVERS))
def test_a_scheduler_address_that_is_no_scheduler_gives_one_line_and_exit_2(
    tmp_path, kind, serve_http
):
    source = tmp_path / "in.txt"
    source.write_text("我们在北京大学学习。\n", encoding="utf-8")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(sys.path),
        "CWS_BENCH_SCHEDULER_TIMEOUT": "2",
    }
    with SERVERS[kind](serve_http) as port:
        argv = ["segment", "-s", "fmm", "--lexicon", str(SAMPLE_DICT), str(source)]
        argv += ["-o", str(tmp_path / "out.txt"), "--scheduler", f"tcp://127.0.0.1:{port}"]
        proc = subprocess.run(
            [sys.executable, "-c", "from cws_bench.cli import main; main()", *argv],
            capture_output=True,
            text=True,
            env=env,
            timeout=90,
        )
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) <= 2, proc.stderr  # the error, and how to fix it
    assert lines[0].startswith("error: ")
    assert f"127.0.0.1:{port}" in lines[0]
    assert all(line.strip().startswith("hint: ") for line in lines[1:])
    assert "CWS_BENCH_SCHEDULER_TIMEOUT" in proc.stderr
    assert not (tmp_path / "out.txt").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
