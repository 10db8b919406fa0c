"""Tests of cws_bench/segmenters/stream.py: batches, files, and errors located in the input."""

from __future__ import annotations

import pytest

from cws_bench.errors import CwsBenchError, SegmenterError
from cws_bench.segmenters import (
    Segmenter,
    SegmenterOutputError,
    get_segmenter,
    segment_file,
    segment_lines,
)


class Recording(Segmenter):
    """One character a word; drops the last character of lines holding 'X'; crashes on 'Z'."""

    name = "recording"
    kind = "statistical"

    def __init__(self) -> None:
        super().__init__()
        self.batches: list[int] = []

    def _segment(self, lines):
        self.batches.append(len(lines))
        if any("Z" in line for line in lines):
            raise RuntimeError("cannot handle Z")
        return [list(line.replace(" ", ""))[: -1 if "X" in line else None] for line in lines]


def test_batches_and_order():
    segmenter = Recording()
    lines = [f"第{i}" for i in range(7)]
    assert list(segment_lines(segmenter, lines, batch_size=3)) == [list(line) for line in lines]
    assert segmenter.batches == [3, 3, 1]


def test_a_bad_line_is_named_by_its_number_in_the_input():
    lines = ["好", "好", "好", "好X"]
    with pytest.raises(SegmenterOutputError) as caught:
        list(segment_lines(Recording(), lines, batch_size=3, source="raw.txt"))
    assert str(caught.value).startswith("segmenter recording: raw.txt:4: the words joined")


def test_a_crash_is_named_by_its_line_range():
    lines = ["好"] * 5 + ["Z"]
    with pytest.raises(SegmenterError) as caught:
        list(segment_lines(Recording(), lines, batch_size=4, source="raw.txt"))
    assert str(caught.value).startswith(
        "segmenter recording: raw.txt: lines 5-6: failed on a batch of 2 lines: "
        "RuntimeError: cannot handle Z"
    )


def test_segment_file(tmp_path):
    source = tmp_path / "raw.txt"
    source.write_bytes("\ufeff结婚的和尚未结婚的\r\n\r\n南京市长江大桥".encode())
    target = tmp_path / "out.txt"
    fmm = get_segmenter("fmm", words=["结婚", "和尚", "尚未", "南京市", "长江", "大桥"])
    stats = segment_file(fmm, source, target, separator="/", batch_size=2)
    assert target.read_text(encoding="utf-8") == ("结婚/的/和尚/未/结婚/的\n\n南京市/长江/大桥\n")
    assert (stats.lines, stats.characters, stats.words) == (3, 16, 9)
    assert stats.seconds > 0 and stats.characters_per_second > 0


def test_segment_file_errors(tmp_path):
    fmm = get_segmenter("fmm", words=["我们"])
    with pytest.raises(CwsBenchError, match="no such file"):
        segment_file(fmm, tmp_path / "none.txt", tmp_path / "out.txt")
    source = tmp_path / "raw.txt"
    source.write_text("我们\n", encoding="utf-8")
    with pytest.raises(CwsBenchError, match="separator is empty"):
        segment_file(fmm, source, tmp_path / "out.txt", separator="")
    # an untrained segmenter fails before any output is written
    with pytest.raises(SegmenterError, match="has no dictionary"):
        segment_file(get_segmenter("fmm"), source, tmp_path / "out.txt")
    assert not (tmp_path / "out.txt").exists()
    # a failure leaves no half-written file behind
    source.write_text("好\n好X\n", encoding="utf-8")
    with pytest.raises(SegmenterOutputError, match=r"raw\.txt:2"):
        segment_file(Recording(), source, tmp_path / "out.txt", batch_size=1)
    assert list(tmp_path.iterdir()) == [source]
