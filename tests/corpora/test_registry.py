"""Registry-wide tests: every named corpus has a card, and behaves the same way."""

from __future__ import annotations

import os
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from cws_bench.corpora import CORPORA, Corpus, corpus_names, get_corpus, registry
from cws_bench.corpora.base import sentences_checksum
from cws_bench.errors import CorpusUnavailableError, CwsBenchError

NAMES = list(CORPORA)


def corpus_here(name, shared):
    """The corpus, pointed at ../shared for the external ones."""
    corpus = get_corpus(name)
    if corpus.external_data and shared is not None:
        corpus = get_corpus(name, data_dir=shared)
    return corpus


@pytest.fixture(scope="module")
def shared():
    """../shared/corpora (or $CWS_BENCH_SHARED_CORPORA) if present, else None."""
    root = Path(__file__).resolve().parents[2]
    folder = Path(os.environ.get("CWS_BENCH_SHARED_CORPORA", root.parent / "shared" / "corpora"))
    return folder if folder.is_dir() else None


def test_the_issue_names_are_registered():
    assert set(NAMES) == {
        "sample",
        "pd1998",
        "sighan2005-pku",
        "sighan2005-msr",
        "sighan2005-cityu",
        "sighan2005-as",
        "ud-zh-gsdsimp",
        "ud-zh-gsd",
        "ud-zh-cfl",
        "ud-zh-hk",
        "ud-zh-pud",
        "sxu",
        "zx",
        "wtb",
        "udc",
        "ctb6",
    }
    assert corpus_names()[: len(NAMES)] == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_every_corpus_has_a_card(name):
    corpus = get_corpus(name)
    assert isinstance(corpus, Corpus)
    card = corpus.metadata()
    assert card["name"] == name
    assert card["script"] in ("Simplified", "Traditional")
    for key in ("title", "licence", "source", "note"):
        assert card[key], f"{name} has no {key}"
    assert card["splits"]
    assert "test" in card["splits"]
    if not card["available"]:
        assert card["how_to_get"], f"{name} is not here and does not say how to get it"


@pytest.mark.parametrize("name", NAMES)
def test_every_available_corpus_reads_consistently(name, shared):
    corpus = corpus_here(name, shared)
    if "test" not in corpus.available_splits:
        pytest.skip(f"{name} is not available here")
    gold = list(corpus.sentences("test"))
    raw = list(corpus.raw("test"))
    assert gold and len(gold) == len(raw)
    assert all(isinstance(w, str) and w and not w.isspace() for s in gold for w in s)
    assert corpus.checksum("test") == sentences_checksum(iter(gold))
    try:
        dictionary = corpus.dictionary()
    except CorpusUnavailableError:
        assert corpus.dictionary_split not in corpus.available_splits
    else:
        assert len(dictionary) > 0


@pytest.mark.parametrize("name", NAMES)
def test_unknown_split(name):
    with pytest.raises(CwsBenchError, match="has no split 'nope'"):
        get_corpus(name).sentences("nope")


def test_unknown_name_suggests():
    with pytest.raises(CwsBenchError) as info:
        get_corpus("sighan2005-pkv")
    assert "did you mean sighan2005-pku" in str(info.value)


def test_unknown_option():
    with pytest.raises(CwsBenchError, match="corpus sample"):
        get_corpus("sample", compounds="join")


def test_entry_points_extend_the_registry(monkeypatch):
    entry = EntryPoint(
        "my-corpus", "cws_bench.corpora.sample:SampleCorpus", registry.ENTRY_POINT_GROUP
    )
    monkeypatch.setattr(
        registry,
        "entry_points",
        lambda group: [entry] if group == registry.ENTRY_POINT_GROUP else [],
    )
    assert corpus_names()[-1] == "my-corpus"
    assert get_corpus("my-corpus").name == "sample"
