"""One reading of ``NAME[:SPLIT]``: every place that takes a corpus spec agrees with
:func:`cws_bench.corpora.parse_corpus_spec` (issue 41, item 4)."""

from __future__ import annotations

import pytest

from cws_bench.corpora import parse_corpus_spec
from cws_bench.corpora.words import parse_word_spec
from cws_bench.errors import CwsBenchError
from cws_bench.regression.recording import as_corpus_spec
from cws_bench.scoring.inputs import gold_corpus, gold_sentences

SPECS = [
    ("sample", ("sample", None)),
    ("sample:train", ("sample", "train")),
    ("sample:", ("sample", None)),
    ("sample:train+test", ("sample", "train+test")),
    ("sample:a:b", ("sample", "a:b")),
    (":train", ("", "train")),
]


@pytest.mark.parametrize(("spec", "expected"), SPECS)
def test_the_parser(spec: str, expected: tuple[str, str | None]) -> None:
    assert parse_corpus_spec(spec) == expected


@pytest.mark.parametrize(("spec", "expected"), SPECS[:3])
def test_every_reader_splits_the_same_way(spec: str, expected: tuple[str, str | None]) -> None:
    name, split = expected
    found = gold_corpus(spec)
    assert found is not None
    assert (found[0].name, found[1]) == (name, split or "test")
    corpus = as_corpus_spec(spec)
    assert (corpus.name, corpus.split) == (name, split or "test")
    assert corpus.label == (f"{name}:{split}" if split else name)
    word_spec = parse_word_spec(f"corpus:{spec}")
    assert (word_spec.name, word_spec.split) == (name, split)


def test_a_name_without_a_corpus_is_refused_alike() -> None:
    assert gold_corpus(":train") is None
    with pytest.raises(CwsBenchError, match="neither a registered corpus nor a file"):
        as_corpus_spec(":train")
    with pytest.raises(CwsBenchError, match="no corpus name"):
        parse_word_spec("corpus::train")


def test_a_misspelt_name_suggests_the_spec_as_written() -> None:
    with pytest.raises(CwsBenchError) as with_split:
        gold_sentences("smaple:train", "auto", "utf-8", None)
    assert "did you mean sample:train" in str(with_split.value)
    with pytest.raises(CwsBenchError) as empty_split:  # "smaple:" is "smaple"
        gold_sentences("smaple:", "auto", "utf-8", None)
    assert "did you mean sample?" in str(empty_split.value)
