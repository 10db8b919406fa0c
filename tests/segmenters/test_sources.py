"""Tests of cws_bench/segmenters/sources.py: training data by name, and its checksum."""

from __future__ import annotations

import pytest

from cws_bench.corpora import get_corpus, sentences_checksum
from cws_bench.errors import CwsBenchError
from cws_bench.segmenters.sources import TrainingCorpus, load_word_source, train_segmenter


def test_registered_corpus_split():
    source = TrainingCorpus("sample", "test")
    sentences = list(source)
    corpus = get_corpus("sample")
    assert sentences == [s for s in corpus.sentences("test") if s]
    assert source.data.description == "sample:test"
    assert (source.data.corpus, source.data.split) == ("sample", "test")
    assert source.data.checksum == corpus.checksum("test")
    assert source.data.sentences == len(sentences)


def test_default_split_and_unknown_split():
    assert TrainingCorpus("pd1998").split == "train"
    with pytest.raises(CwsBenchError, match="has no split 'dev'"):
        TrainingCorpus("pd1998", "dev")


def test_segmented_file_in_any_format(tmp_path):
    path = tmp_path / "gold.conllu"
    path.write_text(
        "# text = 我们是学生\n"
        "1\t我们\t_\t_\t_\t_\t0\troot\t_\tSpaceAfter=No\n"
        "2\t是\t_\t_\t_\t_\t1\tcop\t_\tSpaceAfter=No\n"
        "3\t学生\t_\t_\t_\t_\t1\tnsubj\t_\tSpaceAfter=No\n\n",
        encoding="utf-8",
    )
    source = TrainingCorpus(str(path))
    assert list(source) == [["我们", "是", "学生"]]
    assert source.data.corpus is None and source.data.description == "gold.conllu"
    assert source.data.checksum == sentences_checksum(iter([["我们", "是", "学生"]]))


def test_neither_corpus_nor_file():
    with pytest.raises(CwsBenchError, match="neither a registered corpus nor a file") as caught:
        TrainingCorpus("pd1999")
    assert "pd1998" in str(caught.value)


def test_word_sources():
    words, data = load_word_source(words=["我们", "是"])
    assert words.words == {"我们", "是"} and data.checksum == words.checksum
    words, data = load_word_source(lexicon="corpus:sample:test")
    assert data.corpus == "sample" and data.split == "test"
    with pytest.raises(CwsBenchError, match="not one string"):
        load_word_source(words="我们")
    with pytest.raises(CwsBenchError, match="exactly one word source"):
        load_word_source()


def test_train_segmenter_refuses_what_cannot_learn():
    with pytest.raises(CwsBenchError, match="cannot be trained"):
        train_segmenter("jieba-nohmm", "sample", split="test")
