"""A diff reads its sides line by line and keeps no line it has counted: the same numbers
as a computation over whole lists, the changed lines spilled to a temporary file, the JSON
written one changed line at a time, and a peak that does not grow with the lines."""

from __future__ import annotations

import json
import os
import pickle
import tempfile
from collections import Counter

import pytest
from click.testing import CliRunner

from cws_bench.analysis.patterns import block_kind, shared_blocks
from cws_bench.errors import CwsBenchError
from cws_bench.regression import spill
from cws_bench.regression.diff import diff_files, diff_segmentations
from cws_bench.regression.render import render_diff_html, render_diff_json
from cws_bench.regression.spill import SpillList
from cws_bench.scoring import score_sentences
from cws_bench.scoring.per_sentence import paired_tests, sentence_rows

# One line of each kind: a split, a merge, a moved boundary, an unchanged line, a line whose
# characters differ, an empty gold line where A and B have words, an empty line.
A = [
    "今天上午 ， 乒乓球 拍卖 完 了 。",
    "研究 人员 发现",
    "结婚 的 和 尚未 结婚 的",
    "我们 是 学生",
    "他 说 好",
    "北京 大学",
    "",
]
B = [
    "今天 上午 ， 乒乓球拍 卖完 了 。",
    "研究人员 发现",
    "结婚 的 和尚 未 结婚 的",
    "我们 是 学生",
    "她 说 好",
    "北京大学",
    "",
]
GOLD = [
    "今天 上午 ， 乒乓球 拍卖 完 了 。",
    "研究 人员 发现",
    "结婚 的 和 尚未 结婚 的",
    "我们 是 学生",
    "他 说 好",
    "",
    "",
]
WORDS = {"今天", "上午", "研究", "人员", "结婚", "我们", "学生"}
REPEAT = 40  # 200 changed lines: more than a SpillList keeps in memory


def sentences(lines, repeat=REPEAT):
    return [line.split() for line in lines * repeat]


def test_a_streamed_diff_gives_the_numbers_of_a_computation_over_whole_lists():
    a, b, gold = sentences(A), sentences(B), sentences(GOLD)
    diff = diff_segmentations(iter(a), iter(b), iter(gold), dictionary=WORDS, seed=3, resamples=100)
    changed = [number for number, (x, y) in enumerate(zip(a, b), start=1) if x != y]
    assert (diff.lines, diff.changed_lines) == (len(a), len(changed))
    assert [line.line for line in diff.line_diffs] == changed
    assert diff.line_diffs.spilled > 0  # type: ignore[attr-defined]
    assert (diff.a_words, diff.b_words) == (sum(map(len, a)), sum(map(len, b)))
    assert diff.oov_words == {
        "a": sum(word not in WORDS for line in a for word in line),
        "b": sum(word not in WORDS for line in b for word in line),
    }
    kinds: Counter[str] = Counter()
    texts = 0
    for x, y in zip(a, b):
        if "".join(x) != "".join(y):
            texts += 1
            continue
        kinds.update(block_kind(*pair) for pair in shared_blocks(x, y))
    assert {kind: counts["changes"] for kind, counts in diff.kinds.items()} == {
        kind: kinds[kind] for kind in ("split", "merge", "cross")
    }
    assert diff.text_differences == texts == REPEAT
    a_result = score_sentences(gold, a, WORDS, per_line=True)
    b_result = score_sentences(gold, b, WORDS, per_line=True)
    assert diff.gold is not None
    assert diff.gold.a_scores == a_result.to_dict()
    assert diff.gold.b_scores == b_result.to_dict()
    assert diff.gold.tests == paired_tests(
        sentence_rows(a_result), sentence_rows(b_result), seed=3, resamples=100
    )
    outcomes = Counter(c.outcome for line in diff.line_diffs for c in line.changes)
    assert diff.gold.outcomes == {key: outcomes[key] for key in ("fixed", "broke", "neither")}
    assert diff.changed_a_words == sum(sum(line.a_changed) for line in diff.line_diffs)
    # The same diff from lists; and a diff survives pickling.
    assert diff_segmentations(a, b, gold, dictionary=WORDS, seed=3, resamples=100) == diff
    assert pickle.loads(pickle.dumps(diff)) == diff


@pytest.mark.parametrize("repeat", [0, 1, REPEAT])
def test_the_json_written_line_by_line_is_the_json_of_the_whole_dict(repeat):
    diff = diff_segmentations(
        sentences(A, repeat), sentences(B, repeat), sentences(GOLD, repeat), resamples=10
    )
    whole = json.dumps(diff.to_dict(), ensure_ascii=False, indent=2)
    assert render_diff_json(diff) == whole


def test_the_html_page_reads_only_the_lines_it_shows(monkeypatch):
    diff = diff_segmentations(sentences(A), sentences(B))
    read = []
    original = SpillList.__getitem__

    def counting(self, index):
        read.append(index)
        return original(self, index)

    monkeypatch.setattr(SpillList, "__getitem__", counting)
    monkeypatch.setattr(SpillList, "__iter__", lambda self: pytest.fail("read every line"))
    page = render_diff_html(diff, max_lines=3)
    assert "The page holds the first 3 of 200 changed lines" in page
    assert read == [slice(None, 3), 0, 1, 2]


def test_cli_json_output_is_the_api_json(write, tmp_path):
    from cws_bench.cli import cli

    a = write("a.txt", "\n".join(A * 30) + "\n")
    b = write("b.txt", "\n".join(B * 30) + "\n")
    gold = write("gold.txt", "\n".join(GOLD * 30) + "\n")
    out = tmp_path / "diff.json"
    args = [a, b, "--gold", gold, "--format", "json", "--resamples", "10", "-o", out]
    result = CliRunner().invoke(cli, ["diff", *map(str, args)])
    assert result.exit_code == 0, result.output
    expected = render_diff_json(diff_files(a, b, gold, resamples=10))
    assert out.read_text(encoding="utf-8") == expected + "\n"
    assert sorted(os.listdir(tmp_path)) == ["a.txt", "b.txt", "diff.json", "gold.txt"]


def test_files_of_different_lengths_name_both_counts(write):
    a = write("a.txt", "甲 乙\n" * 5)
    b = write("b.txt", "甲乙\n" * 8)
    with pytest.raises(CwsBenchError, match=r"a\.txt has 5 lines but .*b\.txt has 8"):
        diff_files(a, b)
    with pytest.raises(CwsBenchError, match=r"gold\.txt has 3 lines but .* have 5"):
        diff_files(a, a, write("gold.txt", "甲 乙\n" * 3))


# ---------------------------------------------------------------------------
# SpillList


def test_spill_list_behaves_as_a_tuple_and_leaves_no_file(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(spill, "READ_BYTES", 64)  # iteration reads several blocks
    items = [("词" * (i % 7), i) for i in range(50)]
    spilled = SpillList(items, memory_items=5)
    assert spilled.spilled == 45
    assert os.listdir(tmp_path) == []  # the file has no name
    assert list(spilled) == items and len(spilled) == 50
    assert spilled == tuple(items) and spilled == items and spilled != items[:-1]
    assert spilled[-1] == items[-1] and spilled[7] == items[7] and spilled[3] == items[3]
    assert spilled[3:9] == tuple(items[3:9]) and spilled[::-10] == tuple(items[::-10])
    with pytest.raises(IndexError):
        spilled[50]
    assert pickle.loads(pickle.dumps(spilled)) == spilled
    small = SpillList(items, memory_bytes=100)
    assert 0 < len(items) - small.spilled < 10 and small == spilled
