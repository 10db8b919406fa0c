"""Tests of cws_bench/segmenters/maxmatch.py: hand-checked matching, BiMM's rule, runs, the
compiled decoder against the Python reference, and the official SIGHAN PKU baseline."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cws_bench.errors import CwsBenchError, SegmenterError
from cws_bench.scoring import score_sentences
from cws_bench.segmenters import _decode, get_segmenter
from cws_bench.segmenters.maxmatch import MaximumMatching, maximum_matching_python, run_glue
from cws_bench.text.dictionary import load_dictionary
from cws_bench.text.io import iter_lines, read_segmented

pytestmark = pytest.mark.skipif(_decode is None, reason="the compiled decoder is not built")


def segment(direction: str, line: str, words, **options) -> list[str]:
    """Both implementations, checked to agree; returns the segmentation."""
    name = {"forward": "fmm", "backward": "bmm", "bidirectional": "bimm"}[direction]
    compiled = get_segmenter(name, words=sorted(words), **options).segment([line])[0]
    python = maximum_matching_python(
        [line],
        words,
        direction=direction,
        max_word_length=options.get("max_word_length"),
        keep_runs=options.get("keep_runs", True),
    )[0]
    assert compiled == python
    return compiled


# ---------------------------------------------------------------------------
# Hand-checked ambiguous strings. Each row: line, dictionary, FMM, BMM, BiMM, and
# which rule decides BiMM: "words" (fewer words), "singles" (fewer
# single-character words), "tie" (BMM on a tie), "same" (FMM = BMM).

CASES = [
    (
        # overlapping ambiguity 和尚/尚未: both have 6 words and 3 single characters
        "结婚的和尚未结婚的",
        {"结婚", "的", "和尚", "尚未", "未", "和"},
        "结婚 的 和尚 未 结婚 的",
        "结婚 的 和 尚未 结婚 的",
        "结婚 的 和 尚未 结婚 的",
        "tie",
    ),
    (
        # 南京市长 in the dictionary: FMM leaves 江 alone, BMM does not
        "南京市长江大桥",
        {"南京", "南京市", "南京市长", "市长", "长江", "大桥"},
        "南京市长 江 大桥",
        "南京市 长江 大桥",
        "南京市 长江 大桥",
        "singles",
    ),
    (
        "他说的确实在理",
        {"他", "说", "的", "的确", "确实", "实在", "在理"},
        "他 说 的确 实在 理",
        "他 说 的 确实 在理",
        "他 说 的 确实 在理",
        "tie",
    ),
    (
        "乒乓球拍卖完了",
        {"乒乓", "乒乓球", "乒乓球拍", "球拍", "拍卖", "卖完", "完了"},
        "乒乓球拍 卖完 了",
        "乒乓球 拍卖 完了",
        "乒乓球 拍卖 完了",
        "singles",
    ),
    (
        # FMM has fewer words (2 < 3): rule 1 picks it, wrong as it is linguistically
        "研究生物",
        {"研究生", "生物"},
        "研究生 物",
        "研 究 生物",
        "研究生 物",
        "words",
    ),
    (
        # BMM has fewer words (2 < 3)
        "个人民币",
        {"个人", "人民币"},
        "个人 民 币",
        "个 人民币",
        "个 人民币",
        "words",
    ),
    (
        "化妆和服装",
        {"化妆", "和服", "服装"},
        "化妆 和服 装",
        "化妆 和 服装",
        "化妆 和 服装",
        "tie",
    ),
    (
        "独立自主和平等互利",
        {"独立", "自主", "独立自主", "和", "和平", "平等", "等", "互利"},
        "独立自主 和平 等 互利",
        "独立自主 和 平等 互利",
        "独立自主 和 平等 互利",
        "tie",
    ),
    (
        "中华人民共和国成立了",
        {"中华", "人民", "共和国", "中华人民共和国", "成立"},
        "中华人民共和国 成立 了",
        "中华人民共和国 成立 了",
        "中华人民共和国 成立 了",
        "same",
    ),
]


@pytest.mark.parametrize(("line", "words", "fmm", "bmm", "bimm", "rule"), CASES)
def test_hand_checked_ambiguities(line, words, fmm, bmm, bimm, rule):
    forward = segment("forward", line, words)
    backward = segment("backward", line, words)
    both = segment("bidirectional", line, words)
    assert " ".join(forward) == fmm
    assert " ".join(backward) == bmm
    assert " ".join(both) == bimm
    singles = [sum(len(w) == 1 for w in s) for s in (forward, backward)]
    if rule == "words":
        assert len(forward) != len(backward)
        assert len(both) == min(len(forward), len(backward))
    elif rule == "singles":
        assert len(forward) == len(backward) and singles[0] != singles[1]
    elif rule == "tie":
        assert (len(forward), singles[0]) == (len(backward), singles[1])
        assert forward != backward and both == backward
    else:
        assert forward == backward == both


def test_longest_match_respects_max_word_length():
    words = {"中华", "人民", "共和国", "中华人民共和国"}
    assert segment("forward", "中华人民共和国", words) == ["中华人民共和国"]
    assert segment("forward", "中华人民共和国", words, max_word_length=4) == [
        "中华",
        "人民",
        "共和国",
    ]
    assert segment("backward", "中华人民共和国", words, max_word_length=3) == [
        "中华",
        "人民",
        "共和国",
    ]


def test_unknown_characters_are_single_words():
    assert segment("forward", "我爱北京", {"北京"}) == ["我", "爱", "北京"]
    assert segment("backward", "我爱北京", {"北京"}) == ["我", "爱", "北京"]


# ---------------------------------------------------------------------------
# Runs of Latin letters and digits


def test_run_glue():
    assert run_glue("2000年") == [False, True, True, True, False]
    assert run_glue("2000年", keep_runs=False) == [False] * 5
    # a point only joins two digits; full-width forms count
    assert run_glue("3.5") == [False, True, True]
    assert run_glue("a.5") == [False, False, False]
    assert run_glue("１．５") == [False, True, True]
    assert run_glue("5.") == [False, False]


@pytest.mark.parametrize("direction", ["forward", "backward", "bidirectional"])
def test_runs_are_kept_whole(direction):
    words = {"年", "增长", "年G"}
    line = "2000年GDP增长8.5%"
    assert segment(direction, line, words) == ["2000", "年", "GDP", "增长", "8.5", "%"]
    # without the rule, the dictionary word 年G cuts the run GDP
    assert segment(direction, line, words, keep_runs=False) == [
        "2",
        "0",
        "0",
        "0",
        "年G",
        "D",
        "P",
        "增长",
        "8",
        ".",
        "5",
        "%",
    ]


@pytest.mark.parametrize("direction", ["forward", "backward", "bidirectional"])
def test_a_dictionary_word_may_cover_a_run_but_never_cut_one(direction):
    # "2000年" covers the run and ends at a run boundary; "20" would cut it.
    words = {"2000年", "20", "年底"}
    assert segment(direction, "2000年底", words) in (["2000年", "底"], ["2000", "年底"])
    assert segment("forward", "2000年底", words) == ["2000年", "底"]
    assert segment("backward", "2000年底", words) == ["2000", "年底"]
    assert segment(direction, "１９９８年", {"年"}) == ["１９９８", "年"]
    assert segment(direction, "MP3播放器", {"播放器", "MP"}) == ["MP3", "播放器"]


@pytest.mark.parametrize("direction", ["forward", "backward", "bidirectional"])
def test_whitespace_ends_words_and_is_dropped(direction):
    words = {"他说", "New York", "很大", "NewYork"}
    assert segment(direction, " 他说\u3000New York很大\t", words) == [
        "他说",
        "New",
        "York",
        "很大",
    ]
    assert segment(direction, "他 说", {"他说"}) == ["他", "说"]


# ---------------------------------------------------------------------------
# The compiled decoder equals the Python reference

ALPHABET = "结婚的和尚未南京市长江大桥02.Ab１． \u3000"


@st.composite
def matching_problems(draw):
    words = draw(st.lists(st.text(alphabet=ALPHABET, min_size=1, max_size=5), max_size=25))
    lines = draw(st.lists(st.text(alphabet=ALPHABET, max_size=30), min_size=1, max_size=5))
    direction = draw(st.sampled_from(["forward", "backward", "bidirectional"]))
    keep_runs = draw(st.booleans())
    max_length = draw(st.one_of(st.none(), st.integers(1, 6)))
    return words, lines, direction, keep_runs, max_length


@settings(max_examples=400, deadline=None)
@given(matching_problems())
def test_compiled_equals_python(problem):
    words, lines, direction, keep_runs, max_length = problem
    kept = {w for w in words if len(w.split()) == 1 and w == w.strip()}
    forward = _decode.Trie(words)
    backward = _decode.Trie(words, reverse=True)
    assert len(forward) == len(kept)
    longest = max_length or max(map(len, kept), default=1)
    compiled = _decode.maximum_matching(lines, forward, backward, longest, keep_runs, direction)
    python = maximum_matching_python(
        lines, words, direction=direction, max_word_length=max_length, keep_runs=keep_runs
    )
    assert compiled == python
    for line, out in zip(lines, compiled):
        assert "".join(out) == "".join(line.split())


def test_trie_membership_and_whitespace():
    trie = _decode.Trie(["结婚", "结", "New York", ""])
    assert "结婚" in trie and "结" in trie and "婚" not in trie and "" not in trie
    assert "New York" not in trie
    assert len(trie) == 2 and trie.max_length == 2
    reverse = _decode.Trie(["结婚"], reverse=True)
    assert "结婚" in reverse


def test_decoder_whitespace_is_str_isspace():
    for code in range(0x3100):
        assert _decode.is_space(chr(code)) == chr(code).isspace(), hex(code)


# ---------------------------------------------------------------------------
# The adapter: word sources, training, saving, errors


def test_needs_exactly_one_word_source(tmp_path):
    fmm = get_segmenter("fmm")
    with pytest.raises(SegmenterError, match="has no dictionary"):
        fmm.segment(["我们"])
    with pytest.raises(CwsBenchError, match="exactly one word source, got lexicon and words"):
        get_segmenter("fmm", lexicon="x", words=["a"])
    with pytest.raises(
        SegmenterError, match="direction must be one of forward, backward, bidirectional"
    ):
        MaximumMatching(direction="sideways", words=["a"])
    with pytest.raises(
        SegmenterError, match="max_word_length must be a whole number of at least 1, not 0"
    ):
        get_segmenter("fmm", words=["a"], max_word_length=0)


def test_train_save_and_load_a_word_list(tmp_path):
    fmm = get_segmenter("fmm")
    fmm.train([["结婚", "的", "和", "尚未"], ["结婚"]])
    assert fmm.dictionary is not None and len(fmm.dictionary) == 4
    path = tmp_path / "words.txt"
    fmm.save(path)
    assert path.read_text(encoding="utf-8").split() == sorted(["结婚", "的", "和", "尚未"])
    again = get_segmenter("bmm").load(path)
    assert again.segment(["结婚的和尚未结婚的"]) == [["结婚", "的", "和", "尚未", "结婚", "的"]]
    assert again.options["lexicon"] == str(path)
    assert again.trained_on.checksum == fmm.dictionary.checksum


def test_dictionary_from_a_corpus_split_and_a_corpus_file(tmp_path):
    from cws_bench.corpora import get_corpus

    fmm = get_segmenter("fmm", corpus="sample", split="test")
    expected = get_corpus("sample").split_dictionary("test")
    assert fmm.dictionary.words == expected.words
    assert fmm.trained_on.corpus == "sample" and fmm.trained_on.split == "test"
    assert fmm.trained_on.checksum == get_corpus("sample").checksum("test")
    same = get_segmenter("fmm", lexicon="corpus:sample:test")
    assert same.dictionary.words == expected.words
    gold = tmp_path / "gold.txt"
    gold.write_text("结婚 的 和 尚未\n\n南京市 长江 大桥\n", encoding="utf-8")
    from_file = get_segmenter("bimm", corpus=str(gold))
    assert from_file.dictionary.words == {"结婚", "的", "和", "尚未", "南京市", "长江", "大桥"}
    assert from_file.trained_on.description == "gold.txt" and from_file.trained_on.corpus is None
    with pytest.raises(CwsBenchError, match="neither a registered corpus nor a file"):
        get_segmenter("fmm", corpus="no-such-corpus")


def test_jieba_dictionary_by_name():
    fmm = get_segmenter("fmm", lexicon="jieba")
    assert len(fmm.dictionary) > 300_000
    assert fmm.segment(["中华人民共和国成立了"]) == [["中华人民共和国", "成立", "了"]]


# ---------------------------------------------------------------------------
# The official SIGHAN 2005 baseline on PKU

BASELINE = {"recall": 0.907, "precision": 0.843, "f1": 0.874, "oov_recall": 0.069,
            "iv_recall": 0.958, "oov_rate": 0.058}  # fmt: skip


@pytest.fixture(scope="module")
def pku(icwb2):
    raw = list(iter_lines(icwb2 / "testing" / "pku_test.utf8"))
    gold = list(read_segmented(icwb2 / "gold" / "pku_test_gold.utf8"))
    words = load_dictionary(icwb2 / "gold" / "pku_training_words.utf8")
    return raw, gold, words


@pytest.mark.slow
@pytest.mark.parametrize("method", ["interval", "sighan"])
def test_fmm_reproduces_the_official_pku_baseline(pku, pku_words, method):
    raw, gold, words = pku
    fmm = get_segmenter("fmm", lexicon=str(pku_words), keep_runs=False)
    pred = fmm.segment(raw)
    result = score_sentences(gold, pred, dictionary=words, method=method)
    for name, expected in BASELINE.items():
        assert round(getattr(result, name), 3) == expected, name


@pytest.mark.slow
def test_fmm_from_the_registered_pku_corpus_is_the_same_baseline(pku, icwb2, monkeypatch):
    monkeypatch.setenv("CWS_BENCH_SIGHAN2005", str(icwb2))
    raw, gold, words = pku
    fmm = get_segmenter("fmm", corpus="sighan2005-pku", keep_runs=False)
    assert fmm.trained_on.corpus == "sighan2005-pku" and fmm.trained_on.split == "train"
    assert not fmm.trained_on.overlaps("sighan2005-pku", "test")
    result = score_sentences(gold, fmm.segment(raw), dictionary=words)
    assert round(result.f1, 3) == BASELINE["f1"]


@pytest.mark.slow
def test_keeping_runs_whole_beats_the_baseline(pku, pku_words):
    raw, gold, words = pku
    scores = {}
    for name in ("fmm", "bmm", "bimm"):
        pred = get_segmenter(name, lexicon=str(pku_words)).segment(raw)
        scores[name] = score_sentences(gold, pred, dictionary=words)
    assert scores["fmm"].f1 > BASELINE["f1"] + 0.015
    assert round(scores["fmm"].oov_recall, 3) > BASELINE["oov_recall"]
    # on PKU, BMM beats FMM and BiMM beats both, as the literature reports
    assert scores["fmm"].f1 < scores["bmm"].f1 <= scores["bimm"].f1
