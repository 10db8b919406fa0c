"""One resolver of word sources for scoring, segmenters and the bake-off."""

from __future__ import annotations

from pathlib import Path

import pytest

from cws_bench.corpora.words import WordSpec, parse_word_spec, resolve_words
from cws_bench.errors import CwsBenchError
from cws_bench.run.config import CorpusSpec
from cws_bench.run.plan import corpus_dictionary
from cws_bench.scoring import score_sentences
from cws_bench.segmenters import get_segmenter
from cws_bench.segmenters.sources import load_word_source
from cws_bench.text.dictionary import jieba_dictionary

GOLD = [["结婚", "的", "和", "尚未", "结婚", "的"]]
PRED = [["结婚", "的", "和尚", "未", "结婚", "的"]]


@pytest.mark.parametrize(
    ("spec", "parsed"),
    [
        ("jieba", WordSpec("jieba")),
        ("corpus:pd1998", WordSpec("corpus", "pd1998")),
        ("corpus:pd1998:train", WordSpec("corpus", "pd1998", "train")),
        ("file:jieba", WordSpec("file", "jieba")),
        ("./jieba", WordSpec("file", "./jieba")),
        ("words.txt", WordSpec("file", "words.txt")),
        (Path("a/words.txt"), WordSpec("file", "a/words.txt")),
    ],
)
def test_every_form_parses_one_way(spec, parsed):
    assert parse_word_spec(spec) == parsed


def test_score_sentences_takes_the_cli_dictionary_specs():
    pytest.importorskip("jieba")
    jieba = jieba_dictionary()
    # Today score_sentences(..., dictionary="jieba") fails: "jieba" is read as a file name.
    by_name = score_sentences(GOLD, PRED, dictionary="jieba")
    assert by_name.to_dict() == score_sentences(GOLD, PRED, dictionary=jieba).to_dict()
    assert by_name.signature.dictionary == jieba.checksum


def test_score_sentences_takes_a_corpus_reference():
    sample = resolve_words("corpus:sample").dictionary
    result = score_sentences(GOLD, PRED, dictionary="corpus:sample")
    assert result.signature.dictionary == sample.checksum
    assert result.counts.oov_gold == sum(word not in sample for word in GOLD[0])


def test_segmenters_bakeoff_and_scoring_get_the_same_words(tmp_path: Path):
    words = tmp_path / "words.txt"
    words.write_text("结婚\n尚未\n", encoding="utf-8")
    for spec in (str(words), "corpus:sample", "corpus:sample:test"):
        expected = resolve_words(spec).dictionary
        loaded, _ = load_word_source(lexicon=spec)
        assert loaded.words == expected.words and loaded.name == expected.name
        bakeoff = corpus_dictionary(CorpusSpec(label="x", name="sample", dictionary=spec), None)
        assert bakeoff.checksum == expected.checksum
        scored = score_sentences(GOLD, GOLD, dictionary=spec)
        assert scored.signature.dictionary == expected.checksum
    segmenter = get_segmenter("fmm", lexicon="corpus:sample:test")
    assert segmenter.trained_on.checksum == resolve_words("corpus:sample:test").checksum


def test_a_corpus_split_is_named_and_hashed_as_training_data():
    found = resolve_words("corpus:sample:test")
    from cws_bench.corpora import get_corpus

    assert found.description == found.dictionary.name == "sample:test"
    assert (found.corpus, found.split) == ("sample", "test")
    assert found.checksum == get_corpus("sample").checksum("test")


def test_bad_sources_say_what_to_write():
    with pytest.raises(CwsBenchError, match="no corpus name"):
        resolve_words("corpus:")
    with pytest.raises(CwsBenchError, match="as a dictionary"):
        resolve_words(5)  # type: ignore[arg-type]
