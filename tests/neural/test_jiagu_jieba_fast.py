"""Tests of jiagu.py and jieba_fast.py: each adapter gives what its library gives when called."""

from __future__ import annotations

from pathlib import Path

import pytest

from cws_bench.errors import SegmenterError
from cws_bench.segmenters import get_segmenter
from cws_bench.text.io import iter_lines

LINES = [
    "他说 Hello World 了，我们是中国人",
    "结婚的和尚未结婚的",
    "２０２４年，北京大学生前来应聘。",
    "",
    "研究生命起源\t和 😀 emoji",
    "南京市长江大桥",
]


def sighan_lines(icwb2: Path, step: int) -> list[str]:
    paths = ["testing/pku_test.utf8", "testing/msr_test.utf8", "testing/cityu_test.utf8"]
    return [line for path in paths for line in list(iter_lines(icwb2 / path))[::step]]


def test_jiagu_modes_equal_calling_jiagu(icwb2):
    jiagu = pytest.importorskip("jiagu", reason="jiagu is not installed (pip install jiagu)")
    from jiagu.segment.nroute import Segment

    lines = LINES + sighan_lines(icwb2, 50)

    def strip(words):
        return [w for w in words if w.strip()]

    assert get_segmenter("jiagu").segment(lines) == [strip(jiagu.seg(line)) for line in lines]
    probe = get_segmenter("jiagu-probe").segment(lines)
    assert probe == [strip(jiagu.cws(line, mode="probe")) for line in lines]
    direct = Segment()
    direct.init()
    model = get_segmenter("jiagu-model").segment(lines)
    assert model == [[w for t in line.split() for w in direct.model_cut(t)] for line in lines]
    # The perceptron alone segments differently from the dictionary route somewhere.
    assert model != get_segmenter("jiagu").segment(lines)


def test_jiagu_user_dictionary(tmp_path):
    pytest.importorskip("jiagu", reason="jiagu is not installed (pip install jiagu)")
    path = tmp_path / "user.txt"
    path.write_text("区块链\n", encoding="utf-8")  # jiagu reads word[<TAB>freq] lines
    line = "这个区块链钱包很好用"
    assert get_segmenter("jiagu").segment([line])[0][:3] == ["这个", "区块", "链"]
    with_word = get_segmenter("jiagu", user_dict=str(path)).segment([line])[0]
    assert with_word[:3] == ["这个", "区块链", "钱包"]
    # built after it on the dictionary it read (shared in the process): without its word
    assert get_segmenter("jiagu").segment([line])[0][:3] == ["这个", "区块", "链"]
    # jiagu's load_userdict(path) would also add each character of the path as a word:
    # the adapter reads the file only, so "t" (from "tmp") is no word of its dictionary.
    segmenter = get_segmenter("jiagu", user_dict=str(path))
    assert "t" not in segmenter.segment_model.vocab
    with pytest.raises(SegmenterError, match="no such file"):
        get_segmenter("jiagu", user_dict=str(tmp_path / "none.txt"))
    with pytest.raises(SegmenterError, match="mode must be one of default, probe, model, not"):
        get_segmenter("jiagu", mode="fast")


@pytest.mark.parametrize(("name", "hmm"), [("jieba-fast", True), ("jieba-fast-nohmm", False)])
def test_jieba_fast_equals_calling_jieba_fast(icwb2, name, hmm):
    jieba_fast = pytest.importorskip(
        "jieba_fast", reason="jieba-fast is not installed (pip install jieba-fast)"
    )
    lines = LINES + sighan_lines(icwb2, 20)
    tokenizer = jieba_fast.Tokenizer()
    expected = [[w for w in tokenizer.lcut(line, HMM=hmm) if w.strip()] for line in lines]
    assert get_segmenter(name).segment(lines) == expected


def test_jieba_fast_search_mode_and_user_dictionary(tmp_path):
    pytest.importorskip("jieba_fast", reason="jieba-fast is not installed (pip install jieba-fast)")
    search = get_segmenter("jieba-fast", mode="search").segment(["中华人民共和国成立了"])[0]
    assert search == ["中华", "人民", "共和国", "成立", "了"]
    path = tmp_path / "user.txt"
    path.write_text("云计算服务平台 10\n", encoding="utf-8")
    words = get_segmenter("jieba-fast", user_dict=str(path)).segment(["云计算服务平台上线"])[0]
    assert words[0] == "云计算服务平台"
    with pytest.raises(SegmenterError, match="no such file"):
        get_segmenter("jieba-fast", lexicon=str(tmp_path / "none.txt"))


def test_jieba_fast_agrees_with_jieba_on_most_lines(icwb2):
    pytest.importorskip("jieba_fast", reason="jieba-fast is not installed (pip install jieba-fast)")
    lines = sighan_lines(icwb2, 20)
    fast = get_segmenter("jieba-fast").segment(lines)
    slow = get_segmenter("jieba").segment(lines)
    same = sum(a == b for a, b in zip(fast, slow))
    # README.md gives the figure over the whole test sets; a port, not a copy: not all.
    assert 0.9 < same / len(lines) < 1.0
