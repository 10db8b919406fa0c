"""Fixtures of the corpus tests."""

from __future__ import annotations

import functools
import http.server
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def served(tmp_path: Path, serve_http: Any) -> tuple[Path, str]:
    """A local HTTP server on 127.0.0.1 serving tmp_path/www: (root, base URL).

    Downloads are tested against it with the real files' bytes put under the root."""
    root = tmp_path / "www"
    root.mkdir()

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

    server = serve_http(functools.partial(Quiet, directory=str(root)))
    return root, f"http://127.0.0.1:{server.server_address[1]}"
