"""Tests of cws_bench/segmenters/jieba.py: the adapter gives what jieba gives."""

from __future__ import annotations

import itertools
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cws_bench.errors import SegmenterError
from cws_bench.segmenters import get_segmenter
from cws_bench.segmenters.jieba import tile

jieba = pytest.importorskip("jieba", reason="jieba is not installed (pip install jieba)")

TRICKY = [
    "他说 Hello World 了　ok\t好",
    "２０００年GDP增长8.5%，比1999年高",
    "  前后有空格  ",
    "中华人民共和国成立了。共和国的研究生院",
    "email: a.b@example.com; C++ & C#",
]


def direct(line: str, hmm: bool) -> list[str]:
    return [word for word in jieba.lcut(line, HMM=hmm) if word.strip()]


@pytest.fixture(scope="module")
def lines(test_inputs) -> list[str]:
    return test_inputs["pku"][::5] + test_inputs["msr"][::20] + TRICKY


@pytest.mark.parametrize(("name", "hmm"), [("jieba", True), ("jieba-nohmm", False)])
def test_equals_calling_jieba_directly(name, hmm, lines, build):
    assert build(name).segment(lines) == [direct(line, hmm) for line in lines]


def test_search_mode_uses_only_words_jieba_search_returns(lines, build):
    segmenter = build("jieba-search")
    for line, words in zip(lines, segmenter.segment(lines)):
        returned = set(jieba.lcut_for_search(line))
        assert set(words) <= returned, line
        # finer than default mode: every default boundary is kept
        default = direct(line, True)
        bounds = set(itertools.accumulate(map(len, default)))
        assert bounds <= set(itertools.accumulate(map(len, words)))


def test_search_mode_by_hand(build):
    segmenter = build("jieba-search")
    assert segmenter.segment(["我来到北京清华大学，中华人民共和国成立了"]) == [
        ["我", "来到", "北京", "清华", "大学", "，", "中华", "人民", "共和国", "成立", "了"]
    ]
    # 共和 alone cannot cover 共和国, which stays whole
    assert segmenter.segment(["共和国"]) == [["共和国"]]


def brute_force_tile(word: str, pieces: set[str]) -> list[str]:
    covers = []
    for cuts in itertools.product([False, True], repeat=len(word) - 1):
        parts, start = [], 0
        for position, cut in enumerate(cuts, 1):
            if cut:
                parts.append(word[start:position])
                start = position
        parts.append(word[start:])
        if all(part in pieces for part in parts):
            covers.append(parts)
    if not covers:
        return [word]
    fewest = min(map(len, covers))
    # among the fewest, the longest first piece, then the next, ...
    return max((c for c in covers if len(c) == fewest), key=lambda c: [len(p) for p in c])


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet="甲乙丙丁", min_size=3, max_size=8),
    st.sets(st.text(alphabet="甲乙丙丁", min_size=2, max_size=3), max_size=12),
)
def test_tile_against_brute_force(word, pieces):
    assert tile(word, pieces) == brute_force_tile(word, pieces)


def test_user_dictionary(tmp_path, build):
    line = "云计算服务平台正式上线"
    path = tmp_path / "user.txt"
    path.write_text("云计算服务平台 5 n\n", encoding="utf-8")
    segmenter = get_segmenter("jieba", user_dict=str(path))
    assert segmenter.segment([line]) == [["云计算服务平台", "正式", "上线"]]
    assert build("jieba").segment([line])[0][0] != "云计算服务平台"
    # built after it on the dictionary it read (shared in the process): without its words
    assert get_segmenter("jieba").segment([line])[0][0] != "云计算服务平台"
    tokenizer = jieba.Tokenizer()
    tokenizer.load_userdict(str(path))
    assert segmenter.segment([line])[0] == tokenizer.lcut(line)
    with pytest.raises(SegmenterError, match="no such file"):
        get_segmenter("jieba", user_dict=str(tmp_path / "none.txt"))


def test_own_dictionary_replaces_jiebas(tmp_path):
    path = tmp_path / "dict.txt"
    path.write_text("结婚 10 v\n的 100 u\n和尚 5 n\n尚未 8 d\n", encoding="utf-8")
    segmenter = get_segmenter("jieba-nohmm", lexicon=str(path))
    assert segmenter.trained_on.description == "dict.txt"
    assert segmenter.segment(["结婚的和尚未结婚的"]) == [
        jieba.Tokenizer(str(path)).lcut("结婚的和尚未结婚的", HMM=False)
    ]
    assert segmenter.segment(["结婚的和尚未结婚的"]) == [["结婚", "的", "和尚", "未", "结婚", "的"]]
    # the same path with other words: read again, not the dictionary read before
    path.write_text("结婚 10 v\n的 100 u\n和 5 c\n尚未 8 d\n", encoding="utf-8")
    edited = get_segmenter("jieba-nohmm", lexicon=str(path))
    assert edited.segment(["结婚的和尚未结婚的"]) == [["结婚", "的", "和", "尚未", "结婚", "的"]]


def test_unknown_mode():
    with pytest.raises(SegmenterError, match="mode must be one of default, search, not"):
        get_segmenter("jieba", mode="full")


def test_building_one_logs_nothing():
    code = (
        "from cws_bench.segmenters import get_segmenter; "
        "print(get_segmenter('jieba').segment(['我们是学生']))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "[['我们', '是', '学生']]"
    assert proc.stderr == ""


@pytest.mark.parametrize("dictionary", [None, "user"])
def test_the_stored_word_table_is_the_one_jieba_builds(dictionary, tmp_path, monkeypatch):
    """The table read back in the next process is jieba's own, for its dictionary and for
    a user's (keyed by the file's content: an edited dictionary is read again)."""
    import jieba

    from cws_bench.segmenters import loaded
    from cws_bench.segmenters.jieba import initialized_tokenizer

    monkeypatch.setenv("CWS_BENCH_CACHE_DIR", str(tmp_path / "cache"))
    path = None
    if dictionary:
        path = tmp_path / "dict.txt"
        path.write_text("云计算 5\n创新办 3 i\n", encoding="utf-8")
    own = jieba.Tokenizer(None if path is None else str(path))
    own.tmp_dir = str(tmp_path)  # jieba's own cache file, not the machine's
    own.initialize()
    for _ in range(2):  # built, then read back from the stored file
        loaded.forget_models("jieba.Tokenizer")
        tokenizer = initialized_tokenizer(jieba, None if path is None else str(path))
        assert (tokenizer.FREQ, tokenizer.total) == (own.FREQ, own.total)
    assert len(list((tmp_path / "cache" / "models").glob("jieba.Tokenizer-*.bin"))) == 1
    if path is not None:
        path.write_text("云计算 5\n", encoding="utf-8")
        loaded.forget_models("jieba.Tokenizer")
        tokenizer = initialized_tokenizer(jieba, str(path))
        assert "创新办" not in tokenizer.FREQ and tokenizer.FREQ["云计算"] == 5
