"""Shared fixtures: paths to the real corpora, skipped with a reason when absent."""

from __future__ import annotations

import json
import os
import resource
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

# One thread per xdist worker: `make test` starts one worker per core and one more, and
# torch and the BLAS libraries would each start a thread per core too; on a busy core
# their threads wait for each other spinning (a tiny model's training took 33 s of CPU
# instead of 4).
# Set before any test imports them; a test that needs more threads sets them itself.
if os.environ.get("PYTEST_XDIST_WORKER"):
    for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_variable, "1")

# The suite's own cache folder, not the user's: what the library stores there (models read
# back by later processes, downloads of tests that do not pick a folder of their own) is
# shared by the xdist workers and the processes the tests start, and removed at the end.
# Made by the process pytest started, before it starts the workers (they inherit it).
if not os.environ.get("PYTEST_XDIST_WORKER") and not os.environ.get("CWS_BENCH_CACHE_DIR"):
    import atexit
    import shutil
    import tempfile

    _CACHE = tempfile.mkdtemp(prefix="cws-bench-test-cache-")
    os.environ["CWS_BENCH_CACHE_DIR"] = _CACHE
    atexit.register(shutil.rmtree, _CACHE, True)

# Tests never assert on time: hypothesis' own timing checks (a deadline per example, the
# "input generation is slow" health check) fail on a loaded machine, not on wrong code.
try:
    from hypothesis import HealthCheck, settings

    settings.register_profile(
        "cws-bench", deadline=None, suppress_health_check=[HealthCheck.too_slow]
    )
    settings.load_profile("cws-bench")
except ImportError:  # the test extra holds hypothesis; a test that needs it skips without
    pass

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
SHARED = Path(os.environ.get("CWS_BENCH_SHARED_CORPORA", ROOT.parent / "shared" / "corpora"))
SAMPLE_DICT = ROOT / "dictionaries" / "sample.txt"


def _toml_lines(table: Mapping[str, Any]) -> list[str]:
    return [f"{key} = {json.dumps(value, ensure_ascii=False)}" for key, value in table.items()]


@pytest.fixture(scope="session")
def sample_bakeoff() -> Callable[..., str]:
    """The small bake-off several tests run: fmm and bmm (closed track, both with the
    sample's dictionary) on the sample corpus. A function giving its TOML text:

    ``sample_bakeoff(name, settings={...}, corpus={...}, extra="...")``: ``settings`` are
    top-level keys (seed, resamples, ...), ``corpus`` the sample corpus' keys (default
    ``split = "test"``), ``extra`` TOML appended (more segmenters or corpora).
    """

    def make(
        name: str,
        *,
        settings: Mapping[str, Any] | None = None,
        corpus: Mapping[str, Any] | None = None,
        extra: str = "",
    ) -> str:
        segmenter = [
            'track = "closed"',
            f"options = {{ lexicon = {json.dumps(str(SAMPLE_DICT))} }}",
        ]
        lines = [
            *_toml_lines({"name": name, **(settings or {})}),
            "",
            "[[corpora]]",
            *_toml_lines({"name": "sample", **({"split": "test"} if corpus is None else corpus)}),
            "",
            "[[segmenters]]",
            'name = "fmm"',
            *segmenter,
            "",
            "[[segmenters]]",
            'name = "bmm"',
            *segmenter,
        ]
        return "\n".join(lines) + "\n" + extra

    return make


@pytest.fixture(scope="session")
def shared_corpora() -> Path:
    """The folder of real corpora (../shared/corpora), or skip."""
    if not (SHARED / "icwb2-data").is_dir():
        pytest.skip(f"real corpora not found at {SHARED} (set CWS_BENCH_SHARED_CORPORA)")
    return SHARED


@pytest.fixture(scope="session")
def icwb2(shared_corpora: Path) -> Path:
    """The SIGHAN 2005 icwb2-data folder."""
    return shared_corpora / "icwb2-data"


@pytest.fixture
def serve_http() -> Iterator[Callable[..., Any]]:
    """Start HTTP servers for a test: ``serve_http(handler)`` gives a running
    ``ThreadingHTTPServer`` on 127.0.0.1 (any free port) with that handler class; each
    stops at the end of the test. It looks for the stop request every 20 ms, not
    ``serve_forever``'s default 0.5 s, which every test with a server waited out."""
    import http.server
    import threading

    started: list[tuple[http.server.ThreadingHTTPServer, threading.Thread]] = []

    def start(handler: Callable[..., Any]) -> http.server.ThreadingHTTPServer:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        server.daemon_threads = True
        thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        thread.start()
        started.append((server, thread))
        return server

    yield start
    for server, thread in started:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture
def write(tmp_path: Path):
    """Write bytes or text to a file under tmp_path and return its path."""

    def _write(name: str, content: str | bytes, encoding: str = "utf-8") -> Path:
        path = tmp_path / name
        path.write_bytes(content if isinstance(content, bytes) else content.encode(encoding))
        return path

    return _write


@pytest.hookimpl(wrapper=True)
def pytest_xdist_auto_num_workers(config: pytest.Config):  # type: ignore[no-untyped-def]
    """``-n auto`` (``make test``) starts one worker more than xdist's one per core.

    About a seventh of the suite's time with one worker per core was spent waiting
    rather than computing: on servers the tests start and stop, on timeouts they
    provoke, on Dask clusters starting, on child processes. A spare worker runs tests
    in those waits (2 cores: 6 min 30 s with two workers, 5 min 56 s with three, the
    same CPU time). $PYTEST_XDIST_AUTO_NUM_WORKERS, when set, is taken as it is.
    """
    count = yield
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return count
    return count + 1


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "needs(module, reason): skip with the reason unless the module is installed; unlike "
        "pytest.importorskip, nothing is imported while the tests are collected",
    )


@pytest.hookimpl(tryfirst=True)  # before its fixtures are set up
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Skip a test marked ``needs(module, reason=...)`` when the module is not installed.

    For modules whose import takes seconds (snownlp reads its model, spaCy, LTP): every
    xdist worker collects every test module, so an import at module level is paid by
    each worker, while the tests that use the module run on one of them.
    """
    import importlib.util

    for mark in item.iter_markers("needs"):
        if importlib.util.find_spec(mark.args[0]) is None:
            pytest.skip(mark.kwargs["reason"])


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The modules holding a ``slow`` test first, each kept whole and in order.

    With ``make test``'s workers (pytest-xdist) the longest tests (the README's quick
    start runs the default bake-off) then start at once instead of last, when the
    other worker would have nothing left to do beside them.
    """
    slow_modules = {item.path for item in items if item.get_closest_marker("slow")}
    order = {id(item): index for index, item in enumerate(items)}
    items.sort(key=lambda item: (item.path not in slow_modules, order[id(item)]))


_CPU_LOG = os.environ.get("CWS_BENCH_TEST_CPU_LOG")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    """With ``CWS_BENCH_TEST_CPU_LOG=FILE``, append each test's CPU seconds to FILE.

    One tab-separated line per test: the worker's own CPU (user + system) and that of
    the processes it started and waited for (bake-off workers, subprocesses), the clock
    time it ended, the xdist worker and the test's id; for finding what the suite's CPU
    goes to and whether the workers end together, not a test of anything.
    """
    if not _CPU_LOG:
        yield
        return

    def spent(who: int) -> float:
        usage = resource.getrusage(who)
        return usage.ru_utime + usage.ru_stime

    before = spent(resource.RUSAGE_SELF), spent(resource.RUSAGE_CHILDREN)
    yield
    own = spent(resource.RUSAGE_SELF) - before[0]
    children = spent(resource.RUSAGE_CHILDREN) - before[1]
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    with open(_CPU_LOG, "a", encoding="utf-8") as log:
        log.write(f"{own:.2f}\t{children:.2f}\t{time.time():.1f}\t{worker}\t{item.nodeid}\n")
