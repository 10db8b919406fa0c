"""Word sources: the one resolver of what a dictionary is named by.

Scoring (``score_sentences(..., dictionary="jieba")``), the command line
(``--dict``), dictionary-based segmenters (``fmm -O dictionary=...``) and the
bake-off all name word lists the same ways, read here and nowhere else:

``jieba``
    the dictionary bundled with the installed jieba.
``corpus:NAME``
    the standard dictionary of a named corpus (``corpus:sighan2005-pku``: the
    bakeoff's training word list; ``corpus:pd1998``: the word types of its
    training split).
``corpus:NAME:SPLIT``
    the word types of one split (``corpus:pd1998:train``).
``file:PATH`` or ``PATH`` (a string or a path object)
    a dictionary file (one word a line, or ``word freq tag``). A file called
    ``jieba`` is read as ``./jieba`` or ``file:jieba``.
``none``
    no dictionary (the scores have no OOV figures); a file called ``none`` is
    ``./none`` or ``file:none``.
words
    a list, tuple or set of words, or a :class:`~cws_bench.text.dictionary.Dictionary`.

This module sits above ``dictionary`` and ``corpora`` (it reads both), so
neither imports the other's resolver.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Literal

from cws_bench.errors import CwsBenchError
from cws_bench.text.dictionary import Dictionary, WordsLike, jieba_dictionary, load_dictionary
from cws_bench.text.io import PathLike

__all__ = [
    "CORPUS_PREFIX",
    "FILE_PREFIX",
    "NO_DICTIONARY",
    "WordSource",
    "WordSpec",
    "parse_word_spec",
    "resolve_dictionary",
    "resolve_words",
]

NO_DICTIONARY = "none"
"""The word source that says there is no dictionary (a file called ``none``: ``./none``)."""

CORPUS_PREFIX = "corpus:"
FILE_PREFIX = "file:"
DEFAULT_SPLIT = "train"


@dataclass(frozen=True)
class WordSpec:
    """A parsed one-string word source.

    Attributes:
        kind: ``jieba``, ``corpus`` or ``file``.
        name: the corpus name (``corpus``) or the path (``file``).
        split: the split of ``corpus:NAME:SPLIT``, or None.
    """

    kind: Literal["jieba", "corpus", "file"]
    name: str = ""
    split: str | None = None


def parse_word_spec(spec: str | os.PathLike[str]) -> WordSpec:
    """Parse ``jieba``, ``corpus:NAME[:SPLIT]``, ``file:PATH`` or a path.

    >>> parse_word_spec("corpus:pd1998:train")
    WordSpec(kind='corpus', name='pd1998', split='train')
    >>> parse_word_spec("jieba").kind, parse_word_spec("file:jieba")
    ('jieba', WordSpec(kind='file', name='jieba', split=None))

    Raises:
        CwsBenchError: ``corpus:`` without a name.
    """
    if isinstance(spec, os.PathLike):
        return WordSpec("file", os.fspath(spec))
    if spec == "jieba":
        return WordSpec("jieba")
    if spec.startswith(CORPUS_PREFIX):
        from cws_bench.corpora.registry import parse_corpus_spec

        name, split = parse_corpus_spec(spec[len(CORPUS_PREFIX) :])
        if not name:
            raise CwsBenchError(
                f"dictionary {spec!r}: no corpus name", "write corpus:NAME or corpus:NAME:SPLIT"
            )
        return WordSpec("corpus", name, split)
    if spec.startswith(FILE_PREFIX):
        spec = spec[len(FILE_PREFIX) :]
    return WordSpec("file", spec)


@dataclass(frozen=True)
class WordSource:
    """A resolved word list and what it came from.

    Attributes:
        dictionary: the words.
        description: what it came from, as messages and ``trained_on`` show it
            (``pd1998:train``, ``pd1998 dictionary``, a file's name, ``<words>``).
        corpus: the registered corpus it came from, or None.
        split: the split of that corpus whose words these are, or None.
        checksum: the sentence checksum of the split read (``corpus:NAME:SPLIT``),
            else the dictionary's checksum.
        sentences: the non-empty sentences read, for a split; else 0.
    """

    dictionary: Dictionary
    description: str
    corpus: str | None = None
    split: str | None = None
    checksum: str | None = None
    sentences: int = 0


def resolve_words(
    source: WordsLike,
    *,
    split: str | None = None,
    data_dir: PathLike | None = None,
    encoding: str = "utf-8",
) -> WordSource:
    """The word list a source names (see the module's docstring for the forms).

    Args:
        source: a specification string, a path, a Dictionary, or words.
        split: the split for ``corpus:NAME`` when the specification names none
            (then the word types of that split instead of the standard dictionary).
        data_dir: where a corpus' data is (as ``get_corpus`` takes it).
        encoding: the encoding of a dictionary file.

    Raises:
        CwsBenchError: unknown corpus or split, missing file or package, an
            empty word list, or a value that is no word source.
    """
    if isinstance(source, Dictionary):
        return WordSource(source, source.name, checksum=source.checksum)
    if isinstance(source, (str, os.PathLike)):
        spec = parse_word_spec(source)
        if spec.kind == "jieba":
            loaded = jieba_dictionary()
        elif spec.kind == "corpus":
            return _corpus_words(spec.name, spec.split or split, data_dir)
        else:
            loaded = load_dictionary(spec.name, encoding=encoding)
        return WordSource(loaded, loaded.name, checksum=loaded.checksum)
    try:
        loaded = Dictionary.from_words(source)
    except TypeError as e:
        raise CwsBenchError(
            f"cannot use {type(source).__name__} as a dictionary",
            "give a dictionary file, jieba, corpus:NAME[:SPLIT] or a list of words",
        ) from e
    return WordSource(loaded, "<words>", checksum=loaded.checksum)


def _corpus_words(name: str, split: str | None, data_dir: PathLike | None) -> WordSource:
    """A corpus' standard dictionary, or the word types of one split (hashed as read)."""
    from cws_bench.corpora import get_corpus

    corpus = get_corpus(name, data_dir=data_dir)
    if split is None:
        loaded = corpus.dictionary()
        return WordSource(
            loaded,
            f"{name} dictionary",
            corpus=name,
            # The SIGHAN word lists are the word types of the training split.
            split=corpus.dictionary_split or DEFAULT_SPLIT,
            checksum=loaded.checksum,
        )
    summary = corpus.summary(split)
    description = f"{name}:{split}"
    if not summary.counts:
        raise CwsBenchError(f"{description}: no words to build a dictionary from")
    return WordSource(
        Dictionary(frozenset(summary.counts), description),
        description,
        corpus=name,
        split=split,
        checksum=summary.checksum,
        sentences=summary.sentences,
    )


def resolve_dictionary(
    spec: str | os.PathLike[str], *, data_dir: PathLike | None = None, encoding: str = "utf-8"
) -> Dictionary:
    """The dictionary a one-string specification names (what ``--dict`` accepts).

    >>> len(resolve_dictionary("corpus:sample"))
    251

    Raises:
        CwsBenchError: unknown corpus or split, missing file or package.
    """
    return resolve_words(spec, data_dir=data_dir, encoding=encoding).dictionary


def as_dictionary(
    value: WordsLike | None, *, data_dir: PathLike | None = None, encoding: str = "utf-8"
) -> Dictionary | None:
    """None, or the dictionary any word source names (what the scoring API accepts).

    ``"none"`` (what ``--dict none`` and a bake-off's ``dictionary = "none"`` say) is
    no dictionary: None. A dictionary file is read in ``encoding``.

    >>> as_dictionary("none") is None
    True
    """
    if value is None or (isinstance(value, str) and value == NO_DICTIONARY):
        return None
    return resolve_words(value, data_dir=data_dir, encoding=encoding).dictionary
