"""What a named corpus is: splits of gold sentences, raw input, a standard dictionary, a card.

A :class:`Corpus` subclass says where its files are and how to read them;
everything else (checksums, word-type dictionaries, statistics) is written
once here, over :meth:`Corpus.sentences`.
"""

from __future__ import annotations

import contextlib
import itertools
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cws_bench.errors import CorpusUnavailableError, CwsBenchError, Fix, Terms, fill_hint
from cws_bench.text.checksums import SentenceDigest, sentences_checksum
from cws_bench.text.dictionary import Dictionary

if TYPE_CHECKING:  # pathlib costs about 5 ms at start-up (`cws-bench score` reads no corpus)
    from pathlib import Path

__all__ = [
    "DATA_ROOT_VARIABLE",
    "Availability",
    "Corpus",
    "SplitSummary",
    "environment_data_dir",
    "kept_summaries",
    "sentences_checksum",
    "word_types",
]

DATA_ROOT_VARIABLE = "CWS_BENCH_DATA"
"""The environment variable naming one folder that holds the external corpora."""


def environment_data_dir(variable: str | None) -> str | None:
    """The data folder the environment names for a corpus family, or None.

    The family's own variable (``CWS_BENCH_SIGHAN2005``, ``CWS_BENCH_UD_CHINESE``,
    ``CWS_BENCH_MCCWS``, ``CWS_BENCH_CTB6``) first, then the data root
    ``CWS_BENCH_DATA``: a folder holding ``icwb2-data``, the UD treebanks, ``mccws``, ...,
    where each family finds its own files, as with ``data_dir``.

    >>> import os
    >>> os.environ["CWS_BENCH_DATA"] = "/data"
    >>> environment_data_dir("CWS_BENCH_NO_SUCH_FAMILY")
    '/data'
    >>> del os.environ["CWS_BENCH_DATA"]
    >>> environment_data_dir("CWS_BENCH_NO_SUCH_FAMILY") is None
    True
    """
    import os

    for name in (variable, DATA_ROOT_VARIABLE):
        if name and os.environ.get(name):
            return os.environ[name]
    return None


DATA_DIR = Fix("data_dir", metavar="FOLDER")
"""The fix a "not here" hint names as ``{0}``: the folder that holds the corpus' files
(``data_dir=`` in the API, the command line's data-directory flag)."""


@dataclass(frozen=True)
class Availability:
    """Whether a corpus can be read here, and from where or how to get it.

    Attributes:
        available: the corpus (at least one split) can be read.
        location: where it is read from (a folder, a package), or None.
        hint: what to do when it is not available (or to get missing splits), with
            ``{0}`` standing for :data:`DATA_DIR`; :meth:`how_to_get` names it.
        splits: the splits that can be read here.
    """

    available: bool
    location: str | None = None
    hint: str | None = None
    splits: tuple[str, ...] = field(default=())

    def how_to_get(self, terms: Terms = Fix.api) -> str | None:
        """The hint with the data folder named by ``terms`` (the API's, or a command's flags).

        >>> Availability(False, None, "pass its folder with {0}").how_to_get()
        'pass its folder with data_dir=FOLDER'
        """
        return fill_hint(self.hint, self.fixes, terms)

    @property
    def fixes(self) -> tuple[Fix, ...]:
        """The fixes :attr:`hint` names: :data:`DATA_DIR` where it says ``{0}``."""
        return (DATA_DIR,) if self.hint and "{0}" in self.hint else ()


def unavailable(message: str, hint: str | None) -> CorpusUnavailableError:
    """The error of a corpus that is not here, its hint's ``{0}`` being :data:`DATA_DIR`."""
    return CorpusUnavailableError(message, hint, fixes=Availability(False, None, hint).fixes)


@dataclass(frozen=True)
class SplitSummary:
    """What one pass over a split's gold sentences gives (see :meth:`Corpus.summary`).

    Attributes:
        checksum: the sentence checksum (:func:`sentences_checksum`, empty sentences included).
        sentences: how many sentences have words.
        counts: how often each word occurs (read-only: copy it to change it).
    """

    checksum: str
    sentences: int
    counts: Mapping[str, int]


# Summaries read in this process while kept, by corpus (class, name, settings) and split.
_SUMMARIES: dict[tuple[Any, ...], SplitSummary] = {}
_KEEPING = [0]


@contextlib.contextmanager
def kept_summaries(
    given: Mapping[tuple[Any, ...], SplitSummary] | None = None,
) -> Iterator[None]:
    """Within the block, each split's :meth:`Corpus.summary` is read once, then kept.

    A run (a bake-off) reads a training split for its identity, its
    dictionary and its frequency buckets: one read serves all three. The
    summaries are forgotten when the outermost block ends, so that a later
    run reads files that may have changed since.

    Args:
        given: summaries the run read elsewhere (:func:`kept`: the bake-off's
            driver sends its own to the workers, whose dictionary-based
            segmenters then learn the very word types the run's identity hashed).
    """
    _KEEPING[0] += 1
    _SUMMARIES.update(given or {})
    try:
        yield
    finally:
        _KEEPING[0] -= 1
        if not _KEEPING[0]:
            _SUMMARIES.clear()


def kept() -> dict[tuple[Any, ...], SplitSummary]:
    """The summaries kept so far (inside :func:`kept_summaries`)."""
    return dict(_SUMMARIES)


def word_types(sentences: Iterator[list[str]], name: str) -> Dictionary:
    """The dictionary of the word types of some sentences.

    >>> sorted(word_types(iter([["我们", "是"], ["我们"]]), "demo").words)
    ['我们', '是']
    """
    return Dictionary(frozenset(itertools.chain.from_iterable(sentences)), name)


class Corpus(ABC):
    """A named gold corpus.

    Subclasses set the class attributes and implement :meth:`_sentences`
    (and :meth:`_raw` when the corpus has its own raw input files) and
    :meth:`availability`.

    Attributes:
        name: the registry name (``sighan2005-pku``).
        title: a human title.
        splits: every split the corpus defines, available here or not.
        script: ``Simplified`` or ``Traditional``.
        domain: the kind of text (``news``, ``microblogs``, ``fiction``, ...).
        standard: the segmentation standard (guidelines) its words follow.
        citation: the reference to cite for it.
        licence: its licence, briefly.
        source: where it comes from (an address or a package).
        note: anything a user must know (conventions, contamination).
        dictionary_split: the split whose word types are the standard
            dictionary, or None when the corpus ships a word list.
        downloadable: :meth:`download` can fetch the data.
        external_data: the data is never installed with a Python package;
            the user points at it with ``data_dir`` (or downloads it).
        training_stand_in: what a segmenter trains on when the training split
            is not here, ``NAME[:SPLIT[+SPLIT...]]`` of another registered corpus
            of the same text and standard (``sighan2005-pku``:
            ``pd1998:train+test``), or None; every bake-off and ``cws-bench
            train`` find it here (a segmenter's ``fallback`` option overrides it).
        official_method: the counting method of the corpus' official scores
            (``sighan``: the bakeoff's own script), which the board counts it by.
    """

    name: str = ""
    title: str = ""
    splits: tuple[str, ...] = ()
    script: str = "Simplified"
    domain: str = ""
    standard: str = ""
    citation: str = ""
    licence: str = ""
    source: str = ""
    note: str = ""
    dictionary_split: str | None = "train"
    downloadable: bool = False
    external_data: bool = False
    training_stand_in: str | None = None
    official_method: str = "interval"

    # -- to implement ---------------------------------------------------------

    @abstractmethod
    def availability(self) -> Availability:
        """Whether the corpus can be read here, from where, and how to get it."""

    @abstractmethod
    def _sentences(self, split: str) -> Iterator[list[str]]:
        """The gold sentences of an existing, available split."""

    def _raw(self, split: str) -> Iterator[str]:
        for words in self._sentences(split):
            yield "".join(words)

    def missing(self, hint: str) -> Availability:
        """Not available: looked for in ``data_dir`` (if set); ``hint`` says how to get it."""
        data_dir = getattr(self, "data_dir", None)
        return Availability(False, None if data_dir is None else str(data_dir), hint)

    def _word_list(self) -> Dictionary:
        """The corpus' own word list, for corpora with ``dictionary_split = None``."""
        raise NotImplementedError

    # -- the API --------------------------------------------------------------

    def download(self) -> Path:
        """Fetch the corpus' data into the cache; return where it is.

        Raises:
            CorpusUnavailableError: the corpus cannot be downloaded by cws-bench
                (the hint says how to get it).
        """
        raise unavailable(
            f"corpus {self.name} cannot be downloaded by cws-bench", self.availability().hint
        )

    @property
    def available_splits(self) -> tuple[str, ...]:
        """The splits that can be read here."""
        return self.availability().splits

    def check_split(self, split: str) -> str:
        """Return ``split`` if it can be read here; raise a helpful error otherwise.

        Raises:
            CwsBenchError: the corpus has no such split.
            CorpusUnavailableError: the split exists but is not on this machine.
        """
        if split not in self.splits:
            raise CwsBenchError(
                f"corpus {self.name} has no split {split!r}",
                f"its splits are: {', '.join(self.splits)}",
            )
        availability = self.availability()
        if split not in availability.splits:
            where = f" (looked in {availability.location})" if availability.location else ""
            raise unavailable(
                f"corpus {self.name}: split {split!r} is not available here{where}",
                availability.hint,
            )
        return split

    def sentences(self, split: str) -> Iterator[list[str]]:
        """Yield the gold sentences of a split, each a list of words.

        Sentences are lines (or CoNLL-U blocks) in file order; an empty line
        of a line-based file is an empty list, so sentence n is line n of the
        raw input.

        Raises:
            CwsBenchError: no such split.
            CorpusUnavailableError: the split is not here (the hint says how to get it).
            CorpusFormatError: a malformed line.
        """
        return self._sentences(self.check_split(split))

    def raw(self, split: str) -> Iterator[str]:
        """Yield the raw, unsegmented input lines of a split, aligned with :meth:`sentences`.

        For the SIGHAN corpora this is the official raw test input; otherwise
        the gold words joined (CoNLL-U: the ``# text`` of each sentence).
        """
        return self._raw(self.check_split(split))

    def dictionary(self) -> Dictionary:
        """The corpus' standard dictionary: what counts as in-vocabulary on its test split.

        The SIGHAN corpora ship the word types of their training sets as a
        word list; for the others it is the word types of the training split.

        Raises:
            CorpusUnavailableError: the data it is built from is not here.
        """
        if self.dictionary_split is None:
            return self._word_list()
        if self.dictionary_split not in self.splits:
            raise CorpusUnavailableError(
                f"corpus {self.name} has no {self.dictionary_split} split, so no standard "
                "dictionary (OOV words are undefined on it)",
                "give a dictionary of your own ({0}) to count OOV words",
                fixes=(Fix("dictionary", metavar="DICT"),),
            )
        return self.split_dictionary(self.dictionary_split)

    def split_dictionary(self, split: str) -> Dictionary:
        """The word types of one split, named ``NAME:SPLIT``."""
        return Dictionary(frozenset(self.summary(split).counts), f"{self.name}:{split}")

    def checksum(self, split: str) -> str:
        """A short hash of a split's gold sentences (see :func:`sentences_checksum`)."""
        return self.summary(split).checksum

    def summary(self, split: str) -> SplitSummary:
        """A split's checksum, sentence count and word counts, from one pass over it.

        Within :func:`kept_summaries` (a bake-off), the summary is read once
        and kept by the corpus' class, name and settings (such as its data
        folder): the split's identity in a cache key, its dictionary and the
        frequency buckets come from one read.
        """
        from pathlib import Path  # here, not at start-up (see the imports)

        settings = tuple(
            sorted(
                (key, str(value))
                for key, value in vars(self).items()
                if not key.startswith("_") and isinstance(value, str | int | float | Path | tuple)
            )
        )
        key = (type(self).__module__, type(self).__qualname__, self.name, settings, split)
        found = _SUMMARIES.get(key) if _KEEPING[0] else None
        if found is None:
            digest = SentenceDigest()
            counts: Counter[str] = Counter()
            sentences = 0
            for words in self.sentences(split):
                digest.add(words)
                if words:
                    sentences += 1
                    counts.update(words)
            found = SplitSummary(digest.hexdigest(), sentences, counts)
            if _KEEPING[0]:
                _SUMMARIES[key] = found
        return found

    def metadata(self, terms: Terms = Fix.api) -> dict[str, Any]:
        """The corpus card: name, title, script, domain, standard, licence, citation, source,
        note, what stands in for its training split, splits, availability (how to get it,
        its data folder named by ``terms``)."""
        availability = self.availability()
        described = ("name", "title", "script", "domain", "standard", "licence", "citation")
        return {
            **{key: getattr(self, key) for key in described},
            "source": self.source,
            "note": self.note,
            "training_stand_in": self.training_stand_in,
            "splits": list(self.splits),
            "available": availability.available,
            "available_splits": list(availability.splits),
            "location": availability.location,
            "how_to_get": availability.how_to_get(terms),
        }

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"
