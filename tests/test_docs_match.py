"""What the docs pages say a bake-off does with a missing model is what it does (issue 46)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cws_bench.errors import CwsBenchError
from cws_bench.run.config import parse_config
from cws_bench.run.validate import validate_config

DOCS = Path(__file__).resolve().parents[1] / "docs"


def config(tmp_path: Path, optional: bool):
    rows = [
        {"name": "fmm", "options": {"corpus": "sample", "split": "test"}},
        {
            "name": "transformers",
            "optional": optional,
            "options": {"model": str(tmp_path / "no-such-model")},
        },
    ]
    data = {"corpora": [{"name": "sample", "split": "test"}], "segmenters": rows}
    return parse_config(data, source=str(tmp_path / "b.toml"))


def test_a_missing_model_of_an_optional_row_is_skipped_with_a_note_as_the_docs_say(tmp_path):
    pytest.importorskip("transformers", reason="the transformers row needs transformers")
    notes: list[str] = []
    kept = validate_config(config(tmp_path, optional=True), notes=notes)
    assert [s.label for s in kept.segmenters] == ["fmm"]  # the other rows run
    (note,) = notes
    assert note.startswith("skipped transformers: ") and "no-such-model" in note
    # without optional: one of the problems listed before anything runs
    with pytest.raises(CwsBenchError, match=r"1 problem, nothing was run"):
        validate_config(config(tmp_path, optional=False), notes=[])
    # the pages say so: NEURAL.md no longer says a missing model stops its row
    neural = re.sub(r"\s+", " ", (DOCS / "NEURAL.md").read_text(encoding="utf-8"))
    bakeoff = re.sub(r"\s+", " ", (DOCS / "BAKEOFF.md").read_text(encoding="utf-8"))
    assert "stops that row" not in neural
    assert "is skipped with a note saying how to get it, and the other rows run" in neural
    assert "`optional = true` turns what is missing into a skip with a note" in bakeoff


def test_a_broken_join_in_a_bakeoff_is_a_failed_row_as_segmenters_md_says():
    """SEGMENTERS.md said such a segmenter stops the run; a bake-off makes it a failed row
    (tests/test_bakeoff.py::test_a_crash_becomes_a_failed_row_and_the_rest_goes_on)."""
    page = re.sub(r"\s+", " ", (DOCS / "SEGMENTERS.md").read_text(encoding="utf-8"))
    assert "in a bake-off the pair becomes a failed row with that error and the other" in page
    assert "returns a different number of lines, stops the run" not in page
