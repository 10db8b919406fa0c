"""Tests of cws_bench/segmenters/external.py: any command, and files segmented elsewhere.

The command is tests/segmenters/characters.py, a small segmenter (one
character a word) that can also crash, hang, drop a line, write bad bytes or
normalise characters.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from cws_bench.errors import SegmenterError
from cws_bench.segmenters import SegmenterOutputError, get_segmenter, segment_lines

SCRIPT = Path(__file__).resolve().parent / "characters.py"


def command(*flags: str, **options):
    return get_segmenter("command", command=[sys.executable, str(SCRIPT), *flags], **options)


def test_segments_through_the_program():
    lines = ["我们是", "", "他说 OK\t了", "a\u2028b"]
    assert command().segment(lines) == [
        ["我", "们", "是"],
        [],
        ["他", "说", "O", "K", "了"],
        ["a", "b"],
    ]


def test_a_command_string_is_split_like_a_shell_would():
    segmenter = get_segmenter("command", command=f"{sys.executable} {SCRIPT}")
    assert segmenter.segment(["我们"]) == [["我", "们"]]
    assert segmenter.options["command"] == f"{sys.executable} {SCRIPT}"


def test_batches_of_at_most_batch_size_lines():
    lines = [f"第{i}行" for i in range(25)]
    assert command(batch_size=7).segment(lines) == [list(line) for line in lines]


def test_a_crash_names_the_command_lines_and_stderr():
    with pytest.raises(SegmenterError) as caught:
        command("--crash").segment(["我们", "是"])
    message = str(caught.value)
    assert "exited with code 3 on lines 1-2 of the batch" in message
    assert "characters.py --crash" in message
    assert "ValueError: model file missing" in message


def test_a_hang_is_killed_after_the_timeout():
    with pytest.raises(SegmenterError) as caught:
        command("--hang", timeout=1).segment(["我们"])
    message = str(caught.value)
    assert "did not finish within 1 s (killed)" in message
    assert "loading..." in message


def test_a_wrong_number_of_lines():
    with pytest.raises(SegmenterError, match="wrote 1 lines for 2 input lines"):
        command("--drop-last").segment(["我们", "是"])


def test_bytes_that_are_not_utf8():
    with pytest.raises(SegmenterError, match="not utf-8"):
        command("--bad-bytes").segment(["我们"])


def test_normalised_output_is_caught_at_its_line():
    with pytest.raises(SegmenterOutputError) as caught:
        list(segment_lines(command("--normalize"), ["我们", "１９９８年"], source="in.txt"))
    assert "in.txt:2:" in str(caught.value)
    assert "input '１９９８年', words give '1998年'" in str(caught.value)


def test_program_not_found_and_bad_options(tmp_path):
    with pytest.raises(SegmenterError, match="program 'no-such-segmenter-xyz' not found"):
        get_segmenter("command", command="no-such-segmenter-xyz --stdin").segment(["我们"])
    with pytest.raises(SegmenterError, match="needs the command"):
        get_segmenter("command")
    with pytest.raises(SegmenterError, match="timeout must be a positive number"):
        get_segmenter("command", command="cat", timeout=0)
    with pytest.raises(SegmenterError, match="unknown kind"):
        get_segmenter("command", command="cat", kind="magic")


def test_metadata_from_options():
    segmenter = command(kind="statistical", version="2.1", trained_on="pd1998")
    assert (segmenter.kind, segmenter.version) == ("statistical", "2.1")
    assert segmenter.trained_on.corpus == "pd1998"
    assert command(trained_on="my corpus").trained_on.corpus is None


# ---------------------------------------------------------------------------
# file


def test_file_serves_its_segmentations_in_batches(tmp_path):
    path = tmp_path / "out.txt"
    path.write_text("我们 是\n\n学生\n我们 是\n我 们是\n", encoding="utf-8")
    segmenter = get_segmenter("file", path=str(path))
    lines = ["我们是", "", "学生", "我们是", "我们是"]
    out = [words for words in segment_lines(segmenter, lines, batch_size=2)]
    # equal lines are served in file order
    assert out == [["我们", "是"], [], ["学生"], ["我们", "是"], ["我", "们是"]]
    assert segmenter.version.startswith("file:")


def test_file_for_another_input_is_caught(tmp_path):
    path = tmp_path / "out.txt"
    path.write_text("我们 是\n", encoding="utf-8")
    segmenter = get_segmenter("file", path=str(path))
    with pytest.raises(SegmenterOutputError) as caught:
        list(segment_lines(segmenter, ["我们是", "学生"], source="raw.txt"))
    message = str(caught.value)
    assert message.startswith("segmenter file: raw.txt:2: no line of")
    assert "'学生'" in message
    with pytest.raises(SegmenterError, match="no such file"):
        get_segmenter("file", path=str(tmp_path / "none.txt"))
