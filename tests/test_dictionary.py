"""Tests of cws_bench/text/dictionary.py: loading, jieba's dictionary, union/difference, specs."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cws_bench.corpora.words import as_dictionary, resolve_dictionary
from cws_bench.errors import CorpusFormatError, CwsBenchError
from cws_bench.text.dictionary import (
    Dictionary,
    _word_of_stripped_line,
    difference,
    jieba_dictionary,
    jieba_dictionary_path,
    load_dictionary,
    parse_dictionary_line,
    union,
)


@pytest.mark.parametrize(
    ("line", "word"),
    [
        ("尚未", "尚未"),
        ("  尚未 \r", "尚未"),
        ("\ufeff尚未", "尚未"),
        ("云计算 5 n", "云计算"),
        ("云计算 5", "云计算"),
        ("云计算 n", "云计算"),
        ("云计算\t5\tn", "云计算"),
        ("easy install 3 eng", "easy install"),
        ("台中", "台中"),
        ("AT&T 3 nz", "AT&T"),
        ("", None),
        ("   ", None),
    ],
)
def test_parse_dictionary_line(line, word):
    assert parse_dictionary_line(line) == word


# Lines made of words, numbers, tags and assorted whitespace, to check the fast
# path of load_dictionary against the reference parse of each line.
_pieces = st.sampled_from(["词", "云计算", "5", "12", "n", "nz", "eng", "Ａ", "x5", "五"])
_gaps = st.sampled_from([" ", "  ", "\t", "\u3000", " \t"])


@given(st.lists(st.tuples(_pieces, _gaps), min_size=1, max_size=4))
def test_fast_line_parse_matches_reference(parts):
    line = "".join(piece + gap for piece, gap in parts).strip()
    if line:
        assert _word_of_stripped_line(line) == parse_dictionary_line(line)


def test_load_one_word_a_line(write):
    path = write("words.txt", "\ufeff我们\r\n是\r\n\r\n 学生 \n学生")
    dictionary = load_dictionary(path)
    assert dictionary.words == {"我们", "是", "学生"}
    assert dictionary.name == "words.txt"


# Files of words, separators, blank lines, CRs, jieba lines and byte-order marks,
# to check the one-go reading of bare word lists against reading line by line.
_file_pieces = st.sampled_from(
    [
        "词",
        "云计算",
        "a",
        "五",
        "词",
        "\n",
        "\n",
        "\n",
        " ",
        "\t",
        "\r\n",
        "\u3000",
        " 5 n",
        "\ufeff",
    ]
)


@given(st.lists(_file_pieces, max_size=30).map("".join), st.sampled_from(["utf-8", "gb18030"]))
def test_reading_in_one_go_equals_reading_line_by_line(tmp_path_factory, text, encoding):
    from cws_bench import _kernel
    from cws_bench.text import dictionary

    path = tmp_path_factory.mktemp("words") / "words.txt"
    path.write_bytes(text.encode(encoding))

    def load() -> Dictionary | None:
        try:
            return load_dictionary(path, encoding=encoding)
        except CorpusFormatError:
            return None

    found = load()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(dictionary, "_load_bare_words", lambda path, encoding: None)
        expected = load()
    if expected is None:
        assert found is None
        return
    assert found is not None
    assert (found.words, found.name, found.checksum) == (
        expected.words,
        expected.name,
        expected.checksum,
    )
    # The lookup table made from the file's bytes holds the same words.
    table, reference = found.lookup_table, _kernel.WordSet(expected.words)
    assert (len(table), table.checksum_parts) == (len(reference), reference.checksum_parts)
    assert all(word in table for word in expected.words)


def test_a_bare_word_list_is_read_in_one_go(write):
    from cws_bench.text import dictionary

    path = write("words.txt", "\ufeff我们\n是\n学生\n是\n")
    found = dictionary._load_bare_words(path, "utf-8")
    assert found is not None
    assert found.words == {"我们", "是", "学生"}
    assert "lookup_table" in vars(found)  # made from the bytes, not from each word again
    assert len(found.lookup_table) == 3
    for text in ("我们\r\n是\n", "我们\n\n是\n", "我们\n是 学生\n", "云计算 5 n\n", "", "\n"):
        assert dictionary._load_bare_words(write("other.txt", text), "utf-8") is None, text


def test_load_jieba_format_and_mixed_blocks(write):
    path = write("user.txt", "云计算 5 n\n韩玉鉴赏\n蓝翔 nz\neasy install 3 eng\n")
    assert load_dictionary(path).words == {"云计算", "韩玉鉴赏", "蓝翔", "easy install"}


def test_load_legacy_encoding(write):
    path = write("words.gb", "北京\n中国\n", encoding="gb18030")
    assert load_dictionary(path, encoding="gb18030").words == {"北京", "中国"}


def test_empty_dictionary_is_an_error(write):
    with pytest.raises(CorpusFormatError, match="holds no word"):
        load_dictionary(write("empty.txt", "\n \n"))


def test_jieba_dictionary_matches_reference_parse():
    path = jieba_dictionary_path()
    with open(path, encoding="utf-8") as f:
        expected = {parse_dictionary_line(line) for line in f} - {None}
    dictionary = jieba_dictionary()
    assert dictionary.words == expected
    assert dictionary.name.startswith("jieba-")
    assert {"结婚", "和尚", "尚未"} <= dictionary.words


def test_from_sentences_union_difference():
    a = Dictionary.from_sentences([["我们", "是"], ["学生", ""]], "a")
    b = Dictionary.from_words(["是", "老师"], "b")
    assert a.words == {"我们", "是", "学生"}
    both = union(a, b)
    assert both.words == {"我们", "是", "学生", "老师"}
    assert both.name == "a|b"
    assert both.checksum == (a | b).checksum
    only_a = difference(a, b)
    assert only_a.words == {"我们", "学生"}
    assert only_a.name == "a-b"
    assert (a - b).words == only_a.words
    assert union(a, b, name="mine").name == "mine"
    with pytest.raises(CwsBenchError):
        union()


def test_resolve_specs(tmp_path, write, monkeypatch):
    path = write("words.txt", "我们\n是\n")
    assert resolve_dictionary(str(path)).words == {"我们", "是"}
    assert resolve_dictionary(f"file:{path}").words == {"我们", "是"}
    assert resolve_dictionary(path).words == {"我们", "是"}
    sample = resolve_dictionary("corpus:sample")
    assert (
        sample.words
        == load_dictionary(
            __import__("cws_bench.corpora.sample", fromlist=["x"]).project_file(
                "dictionaries", "sample.txt"
            )
        ).words
    )
    gold_types = resolve_dictionary("corpus:sample:test")
    assert gold_types.name == "sample:test"
    assert len(gold_types) == 271
    assert len(resolve_dictionary("jieba")) == len(jieba_dictionary())
    # a file called jieba is reachable as ./jieba
    monkeypatch.chdir(tmp_path)
    (tmp_path / "jieba").write_text("只有\n", encoding="utf-8")
    assert resolve_dictionary("./jieba").words == {"只有"}
    assert resolve_dictionary("file:jieba").words == {"只有"}


def test_resolve_errors():
    with pytest.raises(CwsBenchError, match="unknown corpus 'nope'"):
        resolve_dictionary("corpus:nope")
    with pytest.raises(CwsBenchError, match="no corpus name"):
        resolve_dictionary("corpus:")
    with pytest.raises(CwsBenchError, match="has no split 'dev'"):
        resolve_dictionary("corpus:sample:dev")
    with pytest.raises(CwsBenchError, match="no such file"):
        resolve_dictionary("missing-words.txt")


def test_resolve_sighan_word_list(shared_corpora):
    dictionary = resolve_dictionary("corpus:sighan2005-pku", data_dir=shared_corpora)
    assert len(dictionary) == 55_303
    assert (
        dictionary.words
        == load_dictionary(shared_corpora / "icwb2-data" / "gold" / "pku_training_words.utf8").words
    )


def test_as_dictionary():
    assert as_dictionary(None) is None
    d = Dictionary.from_words(["是"])
    assert as_dictionary(d) is d
    assert as_dictionary(["是", ""]).words == {"是"}
    with pytest.raises(CwsBenchError):
        as_dictionary(5)  # type: ignore[arg-type]
