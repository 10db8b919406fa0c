"""``diff`` of one long line: no Python object per word or per change, the same output.

A 20 MB line took more than 300 s and 3-4 GiB (issue 40): every change of the line
was a Change object holding tuples of words, and the line (with them) was read back
from the spill file once per pattern shown. A line of :data:`LONG_LINE` words or
more is now diffed with numpy (docs/BENCHMARKS-LOG.md has the figures); these tests
check what makes that linear without timing anything: how many Change objects and
read-backs a diff makes, and that the long path gives the short path's output.
"""

from __future__ import annotations

import json
import random

import pytest

from cws_bench.regression import changes as changes_module
from cws_bench.regression import line_diff as line_diff_module
from cws_bench.regression.changes import Change, LineChanges
from cws_bench.regression.diff import diff_files, diff_segmentations
from cws_bench.regression.render import (
    HTML_LINE_WORDS,
    render_diff_html,
    render_diff_json,
    render_diff_text,
)
from cws_bench.regression.spill import SpillList

CHARS = [chr(c) for c in range(0x4E00, 0x4E00 + 40)]


def segmented(text: str, seed: int) -> list[str]:
    rng = random.Random(seed)
    words, start = [], 0
    while start < len(text):
        size = rng.choice((1, 1, 2, 2, 3))
        words.append(text[start : start + size])
        start += size
    return words


def sides(lengths: tuple[int, ...], seed: int = 1) -> tuple[list, list, list]:
    """A, B and a gold segmentation of random lines of these many characters."""
    rng = random.Random(seed)
    texts = ["".join(rng.choices(CHARS, k=n)) for n in lengths]
    return tuple(  # type: ignore[return-value]
        [segmented(text, seed + 100 * side + i) for i, text in enumerate(texts)]
        for side in range(3)
    )


@pytest.fixture
def counted(monkeypatch):
    """How many Change objects the diff module makes, and how many lines it reads back
    from a spill file."""
    made = {"changes": 0, "read": 0}

    class Counted(Change):
        __slots__ = ()

        def __init__(self, *args, **kwargs):
            made["changes"] += 1
            super().__init__(*args, **kwargs)

    original = SpillList.__getitem__

    def read(self, index):
        made["read"] += 1
        return original(self, index)

    monkeypatch.setattr(changes_module, "Change", Counted)
    monkeypatch.setattr(SpillList, "__getitem__", read)
    return made


def test_a_long_line_is_diffed_without_an_object_per_change(counted, tmp_path):
    # 60,000 characters in one line: some 30,000 words a side, thousands of changes
    a, b, gold = sides((60_000,))
    for name, side in (("a", a), ("b", b), ("gold", gold)):
        (tmp_path / f"{name}.txt").write_text(" ".join(side[0]) + "\n", encoding="utf-8")
    result = diff_files(tmp_path / "a.txt", tmp_path / "b.txt", tmp_path / "gold.txt")
    (line,) = result.line_diffs
    assert line.long and isinstance(line.changes, LineChanges)
    assert result.changes > 5_000
    assert result.distinct_patterns > 1_000
    assert counted["changes"] == 0  # none made to count them, none to keep them
    assert counted["read"] <= 1  # the line read back once for every pattern's example
    render_diff_text(result)
    render_diff_html(result)
    assert counted["changes"] <= HTML_LINE_WORDS  # the page shows the first words only
    counted["changes"] = 0
    render_diff_json(result)
    assert counted["changes"] == 0  # the JSON is written from the arrays


@pytest.mark.parametrize("with_gold", [False, True])
def test_the_long_path_gives_the_short_paths_output(monkeypatch, with_gold):
    a, b, gold = sides((300, 2_000, 7, 1, 450))
    gold[4] = segmented("".join(gold[4])[:-1] + "x", 9)  # the gold's text differs
    b[2] = [*b[2][:-1], b[2][-1] + "尾"]  # a line whose text differs between A and B
    given = gold if with_gold else None
    short = diff_segmentations(a, b, given, resamples=20)
    monkeypatch.setattr(line_diff_module, "LONG_LINE", 1)
    long = diff_segmentations(a, b, given, resamples=20)
    shared = [line for line in long.line_diffs if not line.text_differs]
    assert shared and all(line.long for line in shared)
    assert not any(line.long for line in short.line_diffs)
    assert render_diff_json(long) == render_diff_json(short)
    assert render_diff_json(long) == json.dumps(short.to_dict(), ensure_ascii=False, indent=2)
    assert render_diff_text(long) == render_diff_text(short)
    assert render_diff_html(long) == render_diff_html(short)
    assert long.to_dict() == short.to_dict()
    for long_line, short_line in zip(long.line_diffs, short.line_diffs):
        assert long_line.changes == short_line.changes
        assert list(long_line.changes[2:5]) == list(short_line.changes[2:5])


def test_the_page_shows_the_first_words_of_a_long_line(monkeypatch):
    a, b, _ = sides((2_000,))
    whole = render_diff_html(diff_segmentations(a, b))
    assert "more words (the JSON output has them)" not in whole
    monkeypatch.setattr("cws_bench.regression.render.HTML_LINE_WORDS", 50)
    cut = render_diff_html(diff_segmentations(a, b))
    assert "more words (the JSON output has them)" in cut
    assert len(cut) < len(whole) - 10_000
