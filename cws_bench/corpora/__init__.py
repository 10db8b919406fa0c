"""Gold corpora: readers of every common format, and the standard corpora by name.

>>> from cws_bench.corpora import get_corpus
>>> corpus = get_corpus("sample")
>>> next(corpus.sentences("test"))[:4]
['今天', '上午', '，', '北京市']

Readers (:mod:`cws_bench.corpora.readers`) stream files as sentences of words;
the registry (:mod:`cws_bench.corpora.registry`) names the standard corpora.
"""

from __future__ import annotations

from cws_bench.corpora.base import Availability, Corpus, sentences_checksum, word_types
from cws_bench.corpora.readers import (
    FORMATS,
    ConlluSentence,
    iter_conllu,
    read_bmes,
    read_conllu,
    read_corpus,
    read_peoples_daily,
    read_plain,
    read_tagged,
    sniff_format,
    words_from_tags,
)
from cws_bench.corpora.registry import CORPORA, corpus_names, get_corpus, parse_corpus_spec

__all__ = [
    "CORPORA",
    "FORMATS",
    "Availability",
    "ConlluSentence",
    "Corpus",
    "corpus_names",
    "get_corpus",
    "iter_conllu",
    "parse_corpus_spec",
    "read_bmes",
    "read_conllu",
    "read_corpus",
    "read_peoples_daily",
    "read_plain",
    "read_tagged",
    "sentences_checksum",
    "sniff_format",
    "word_types",
    "words_from_tags",
]
