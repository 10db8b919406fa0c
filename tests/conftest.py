"""Shared fixtures: paths to the real corpora, skipped with a reason when absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
SHARED = Path(os.environ.get("CWS_BENCH_SHARED_CORPORA", ROOT.parent / "shared" / "corpora"))


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
def write(tmp_path: Path):
    """Write bytes or text to a file under tmp_path and return its path."""

    def _write(name: str, content: str | bytes, encoding: str = "utf-8") -> Path:
        path = tmp_path / name
        path.write_bytes(content if isinstance(content, bytes) else content.encode(encoding))
        return path

    return _write


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The modules holding a ``slow`` test first, each kept whole and in order.

    With ``make test``'s workers (pytest-xdist) the longest tests (the README's quick
    start runs the default bake-off) then start at once instead of last, when the
    other worker would have nothing left to do beside them.
    """
    slow_modules = {item.path for item in items if item.get_closest_marker("slow")}
    order = {id(item): index for index, item in enumerate(items)}
    items.sort(key=lambda item: (item.path not in slow_modules, order[id(item)]))
