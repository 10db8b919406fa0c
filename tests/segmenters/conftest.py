"""Fixtures of the segmenter tests: the real test inputs, and segmenters built once a session."""

from __future__ import annotations

from pathlib import Path

import pytest

from cws_bench.errors import SegmenterUnavailableError
from cws_bench.segmenters import Segmenter, get_segmenter
from cws_bench.text.io import iter_lines

TEST_INPUTS = {
    "pku": "testing/pku_test.utf8",
    "msr": "testing/msr_test.utf8",
    "cityu": "testing/cityu_test.utf8",
    "as": "testing/as_test.utf8",
}


@pytest.fixture(scope="session")
def pku_words(icwb2: Path) -> Path:
    """The PKU training word list, the dictionary of the SIGHAN baseline."""
    return icwb2 / "gold" / "pku_training_words.utf8"


@pytest.fixture(scope="session")
def test_inputs(icwb2: Path) -> dict[str, list[str]]:
    """The raw input lines of the four SIGHAN 2005 test sets."""
    return {name: list(iter_lines(icwb2 / path)) for name, path in TEST_INPUTS.items()}


@pytest.fixture(scope="session")
def build():
    """Build a segmenter once per session (loading pkuseg or snownlp takes seconds).

    Skips with the install command when the segmenter's library is missing.
    """
    built: dict[tuple, Segmenter] = {}

    def _build(name: str, **options) -> Segmenter:
        key = (name, tuple(sorted((k, str(v)) for k, v in options.items())))
        if key not in built:
            try:
                built[key] = get_segmenter(name, **options)
            except SegmenterUnavailableError as e:
                pytest.skip(f"{name} is not installed ({e.install})")
        return built[key]

    return _build
