"""``cws-bench segment`` is one library call, ``cws_bench.run.segment.segment_input``, that
takes an executor or none: the same bytes and counts either way, and the settings that
need a run in process refused with an executor by the library, not by the command."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from cws_bench.cli import cli
from cws_bench.errors import CwsBenchError
from cws_bench.run.executors import LocalExecutor
from cws_bench.segmenters import get_segmenter, segment_file

ROOT = Path(__file__).resolve().parent.parent
RAW = ROOT / "corpora" / "sample" / "raw.txt"
DICT = str(ROOT / "dictionaries" / "sample.txt")


def test_one_entry_in_process_or_in_shards(tmp_path):
    from cws_bench.run.segment import segment_input

    expected = segment_file(get_segmenter("fmm", lexicon=DICT), RAW, tmp_path / "file.txt")
    options = {"lexicon": DICT}
    here = segment_input("fmm", RAW, tmp_path / "here.txt", options=options)
    with LocalExecutor(1, retries=0) as executor:
        sharded = segment_input(
            "fmm", RAW, tmp_path / "shards.txt", options=options, executor=executor, shard_chars=60
        )
        with pytest.raises(CwsBenchError, match="need a run in process") as info:
            segment_input(
                "fmm", RAW, tmp_path / "x.txt", options=options, executor=executor, fidelity="f"
            )
    assert info.value.hint == "leave out executor=..."
    written = (tmp_path / "file.txt").read_bytes()
    assert (tmp_path / "here.txt").read_bytes() == written == (tmp_path / "shards.txt").read_bytes()
    for result in (here, sharded):
        assert (result.lines, result.characters, result.words) == (
            expected.lines,
            expected.characters,
            expected.words,
        )
    assert sharded.shards > 1 and sharded.workers == 1
    assert here.timing()[0].startswith("fmm 0.1.0: loaded in ")
    assert sharded.timing()[-1].startswith(f"fmm: segmented {expected.lines} lines (")
    assert not (tmp_path / "x.txt").exists()


def test_the_command_shows_the_library_s_refusal_in_its_flags(tmp_path):
    result = CliRunner().invoke(
        cli,
        ["segment", "-s", "fmm", "--lexicon", DICT, str(RAW), "-o", str(tmp_path / "o.txt"),
         "--executor", "local", "--fidelity", str(tmp_path / "f.jsonl")],
    )  # fmt: skip
    assert result.exit_code == 2
    assert "need a run in process" in result.stderr and "leave out --executor" in result.stderr
