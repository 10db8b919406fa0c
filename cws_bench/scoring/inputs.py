"""What the scorer reads: a gold in any format or a registered corpus, and a dictionary."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from itertools import islice
from typing import TYPE_CHECKING, Any

from cws_bench.defaults import STANDARD_DICTIONARY, DictionaryDefault
from cws_bench.errors import CorpusFormatError, CwsBenchError, Fix, UnknownFormatError
from cws_bench.text.io import STDIN, Hasher, PathLike, display_name, read_segmented

if TYPE_CHECKING:
    from cws_bench.corpora import Corpus
    from cws_bench.text.dictionary import Dictionary, WordsLike
    from cws_bench.text.normalize import Normalizer

__all__ = [
    "GOLD_FORMATS",
    "check_plain",
    "gold_corpus",
    "gold_sentences",
    "normalized_dictionary",
    "read_gold",
    "scoring_dictionary",
    "sentence_blocks",
]


# What score_files reads is one sentence a line; a file in another gold format
# would be read line by line into nonsense (a CoNLL-U token line as a
# "sentence"), so it is recognised and refused with the way to convert it.
FORMAT_TITLES = {
    "conllu": "CoNLL-U",
    "peoples-daily": "People's Daily word/POS text",
    "bmes": "BMES character tags",
}


def check_plain(source: PathLike, *, encoding: str = "utf-8", role: str = "gold") -> None:
    """Raise if ``source`` looks like a gold format other than plain segmented text.

    Standard input is not checked (it cannot be read twice). ``role`` (``gold`` or
    ``prediction``) is for the message.

    Raises:
        CorpusFormatError: the file looks like CoNLL-U, People's Daily or BMES
            (:func:`cws_bench.corpora.readers.sniff_format`).
    """
    if os.fspath(source) == STDIN:
        return
    from cws_bench.corpora.readers import sniff_format

    fmt = sniff_format(source, encoding=encoding)
    if fmt == "plain":
        return
    name = display_name(source)
    if role == "gold":
        fixes: tuple[Fix, ...] = (Fix("gold_format", fmt),)
        hint = (
            "read it as what it is with {0} (or auto, the default), or "
            f"convert it: `cws-bench corpora export {name} --input-format {fmt} --as gold "
            "-o gold.txt` (and `--as raw` for the text to segment)"
        )
    else:
        fixes = ()
        hint = "write the prediction as one sentence a line, words separated by spaces"
    raise CorpusFormatError(
        name,
        None,
        f"this {role} file looks like {FORMAT_TITLES.get(fmt, fmt)}, not plain segmented "
        "text (one sentence a line, words separated by whitespace)",
        hint,
        fixes=fixes,
    )


def normalized_dictionary(
    dictionary: Dictionary | None, normalizer: Normalizer | None
) -> Dictionary | None:
    """The dictionary as the normalised text sees it."""
    if dictionary is None or normalizer is None:
        return dictionary
    return dictionary.normalized(normalizer)


GOLD_FORMATS: tuple[str, ...] = ("auto", "plain", "conllu", "peoples-daily", "bmes")
"""What ``gold_format`` takes: ``auto`` (detected) or a format of cws_bench.corpora.readers."""


def gold_corpus(gold: PathLike, *, data_dir: PathLike | None = None) -> tuple[Corpus, str] | None:
    """The registered corpus and split that GOLD names (``NAME[:SPLIT]``), or None.

    A GOLD that is an existing file (or ``-``) is a file, whatever its name;
    otherwise ``NAME`` must be a registered corpus (``cws-bench corpora``) and
    the split defaults to ``test``.

    >>> corpus, split = gold_corpus("sample")
    >>> corpus.name, split
    ('sample', 'test')
    >>> gold_corpus("no-such-file.txt") is None
    True
    """
    if not isinstance(gold, str) or gold == STDIN or os.path.exists(gold):
        return None
    from cws_bench.corpora import corpus_names, get_corpus, parse_corpus_spec

    name, split = parse_corpus_spec(gold)
    if name not in corpus_names():
        return None
    return get_corpus(name, data_dir=data_dir), split or "test"


def scoring_dictionary(
    gold: Any,
    dictionary: WordsLike | DictionaryDefault | None = STANDARD_DICTIONARY,
    *,
    data_dir: PathLike | None = None,
    encoding: str = "utf-8",
    notes: list[str] | None = None,
) -> Dictionary | None:
    """The OOV dictionary a score of ``gold`` uses: the one place its default is decided.

    ``dictionary`` is any word source (:func:`cws_bench.corpora.words.as_dictionary`;
    a file read in ``encoding``, a corpus found in ``data_dir``), None, or
    :data:`~cws_bench.defaults.STANDARD_DICTIONARY` (the default): the standard
    dictionary of a corpus named as ``gold``, none for a file or sentences. When a
    corpus' standard dictionary is not here (UD GSD without ``train``): None, and a
    note saying why in ``notes`` (the score's warnings).

    >>> len(scoring_dictionary("sample")), scoring_dictionary("sample", None)
    (251, None)
    """
    if dictionary is STANDARD_DICTIONARY:
        if not isinstance(gold, str | os.PathLike):
            return None
        reference = gold_corpus(gold, data_dir=data_dir)
        if reference is None:
            return None
        from cws_bench.errors import CorpusUnavailableError

        try:
            return reference[0].dictionary()
        except CorpusUnavailableError as e:
            if notes is not None:
                notes.append(
                    f"no OOV/IV figures: {gold} has no standard dictionary here: {e.message}; "
                    "give a dictionary to count OOV words, or none to say there is none"
                )
            return None
    if dictionary is None:
        return None
    from cws_bench.corpora.words import as_dictionary

    return as_dictionary(dictionary, data_dir=data_dir, encoding=encoding)


def gold_sentences(
    gold: PathLike, gold_format: str, encoding: str, data_dir: PathLike | None
) -> Iterator[list[str]] | None:
    """The gold as sentences when it is a corpus or a file not in the plain format; None
    for a plain file, which the scorer streams itself."""
    if gold_format not in GOLD_FORMATS:
        raise UnknownFormatError(gold_format, GOLD_FORMATS, what="gold format")
    reference = gold_corpus(gold, data_dir=data_dir)
    if reference is not None:
        if gold_format not in ("auto", "plain"):
            raise CwsBenchError(
                f"{gold} is a registered corpus, read in its own format: a gold format "
                f"({gold_format}) applies to files",
                "leave out {0}",
                fixes=(Fix("gold_format"),),
            )
        corpus, split = reference
        return corpus.sentences(split)
    if os.fspath(gold) == STDIN:
        return None
    if not os.path.exists(gold):
        from cws_bench.corpora import corpus_names, parse_corpus_spec
        from cws_bench.suggest import close_files, close_names

        name, asked = parse_corpus_spec(os.fspath(gold))
        close = [f"{c}:{asked}" if asked else c for c in close_names(name, corpus_names())]
        close += close_files(gold)
        raise CwsBenchError(
            f"{display_name(gold)}: no such file, nor a registered corpus NAME[:SPLIT]",
            f"did you mean {' or '.join(close)}?"
            if close
            else "check the path, or see `cws-bench corpora` for the corpus names",
        )
    if gold_format == "plain":
        check_plain(gold, encoding=encoding, role="gold")
        return None
    from cws_bench.corpora.readers import read_corpus, sniff_format

    if gold_format == "auto":
        gold_format = sniff_format(gold, encoding=encoding)
        if gold_format == "plain":
            return None
    return read_corpus(gold, format=gold_format, encoding=encoding)


def read_gold(
    gold: PathLike,
    *,
    gold_format: str = "auto",
    encoding: str = "utf-8",
    data_dir: PathLike | None = None,
) -> Iterable[list[str]]:
    """A gold as sentences of words, read as ``score`` reads it: any format, or a corpus name.

    ``gold`` is a file in ``gold_format`` (one of :data:`GOLD_FORMATS`;
    ``auto`` detects CoNLL-U, People's Daily, BMES or plain text) or a
    registered corpus ``NAME[:SPLIT]``. Plain text forced with ``plain`` is
    refused when it looks like another format (:func:`check_plain`).

    Raises:
        CwsBenchError: an unknown format, a missing file, or a file that does
            not match its format (file and line named).
    """
    sentences = gold_sentences(gold, gold_format, encoding, data_dir)
    if sentences is None:
        return read_segmented(gold, encoding=encoding)
    return sentences


def sentence_blocks(
    sentences: Iterable[Sequence[str]], digest: Hasher, size: int = 4096
) -> Iterator[list[str]]:
    """Sentences as blocks of ``size`` lines (words joined by a space), hashed into
    ``digest`` line by line (:func:`~cws_bench.scoring.engine.hashed_blocks`)."""
    from cws_bench.scoring.engine import hashed_blocks

    lines = (" ".join(words) for words in sentences)
    return hashed_blocks(iter(lambda: list(islice(lines, size)), []), digest)
