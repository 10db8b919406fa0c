"""Tests of cws_bench/corpora/ud.py: the UD Chinese GSD treebanks."""

from __future__ import annotations

import shutil

import pytest

from cws_bench.corpora import get_corpus
from cws_bench.errors import CorpusUnavailableError


@pytest.fixture
def ud(shared_corpora):
    return shared_corpora / "ud-chinese"


def test_gsdsimp_test_counts(ud):
    corpus = get_corpus("ud-zh-gsdsimp", data_dir=ud)
    sentences = list(corpus.sentences("test"))
    assert len(sentences) == 500
    assert sum(map(len, sentences)) == 12_012
    raw = list(corpus.raw("test"))
    assert raw[0] == "然而，这样的处理也衍生了一些问题。"
    assert all("".join(line.split()) == "".join(words) for line, words in zip(raw, sentences))
    assert next(corpus.tagged("test"))[:2] == [("然而", "SCONJ"), ("，", "PUNCT")]
    assert corpus.script == "Simplified"


def test_gsd_is_the_traditional_twin(ud):
    simplified = get_corpus("ud-zh-gsdsimp", data_dir=ud)
    traditional = get_corpus("ud-zh-gsd", data_dir=ud)
    assert traditional.script == "Traditional"
    pairs = list(zip(simplified.sentences("dev"), traditional.sentences("dev")))
    assert len(pairs) == 500
    # the same sentences, characters converted: words have the same lengths almost everywhere
    same_shape = sum([len(w) for w in a] == [len(w) for w in b] for a, b in pairs)
    assert same_shape >= 490


@pytest.mark.parametrize("level", ["ud-chinese", "gsdsimp", "."])
def test_folder_lookup(shared_corpora, level):
    folder = {
        "ud-chinese": shared_corpora / "ud-chinese",
        "gsdsimp": shared_corpora / "ud-chinese" / "gsdsimp",
        ".": shared_corpora,
    }[level]
    corpus = get_corpus("ud-zh-gsdsimp", data_dir=folder)
    assert corpus.available_splits == ("dev", "test")
    assert corpus.availability().location == str(shared_corpora / "ud-chinese" / "gsdsimp")


def test_no_train_split_means_no_dictionary(ud):
    corpus = get_corpus("ud-zh-gsdsimp", data_dir=ud)
    with pytest.raises(CorpusUnavailableError, match="split 'train' is not available") as info:
        corpus.dictionary()
    assert "UD_Chinese-GSDSimp" in str(info.value)


def test_train_split_when_present(ud, tmp_path):
    folder = tmp_path / "UD_Chinese-GSDSimp"
    folder.mkdir()
    # stand-in for the train file: the dev file under the train name
    shutil.copy(ud / "gsdsimp" / "zh_gsdsimp-ud-dev.conllu", folder / "zh_gsdsimp-ud-train.conllu")
    corpus = get_corpus("ud-zh-gsdsimp", data_dir=tmp_path)
    assert corpus.available_splits == ("train",)
    dictionary = corpus.dictionary()
    assert dictionary.name == "ud-zh-gsdsimp:train"
    assert dictionary.words == {w for s in corpus.sentences("train") for w in s}


def test_environment_variable(ud, monkeypatch):
    monkeypatch.setenv("CWS_BENCH_UD_CHINESE", str(ud))
    assert sum(map(len, get_corpus("ud-zh-gsd").sentences("test"))) == 12_010


def test_unavailable(tmp_path, monkeypatch):
    monkeypatch.delenv("CWS_BENCH_UD_CHINESE", raising=False)
    corpus = get_corpus("ud-zh-gsd")
    assert not corpus.availability().available
    with pytest.raises(CorpusUnavailableError, match="not available here"):
        list(corpus.sentences("test"))
    assert not get_corpus("ud-zh-gsd", data_dir=tmp_path).availability().available
