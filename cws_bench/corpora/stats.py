"""Statistics of a segmented corpus: sizes, types, average word length, OOV rate.

The OOV rate is the share of gold word tokens not in a dictionary (for a
named corpus: its standard dictionary), the figure the bakeoff tables give
beside each test set (PKU test: 0.058 against its training word list).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any, ClassVar

from cws_bench.corpora.base import Corpus
from cws_bench.display.formats import Renderable, render_in
from cws_bench.display.units import plural, share, units
from cws_bench.errors import CorpusUnavailableError
from cws_bench.text.checksums import SentenceDigest
from cws_bench.text.dictionary import Dictionary

__all__ = [
    "STATISTICS_FORMATS",
    "CorpusStatistics",
    "corpus_statistics",
    "format_card",
    "render_corpus_list",
    "sentence_statistics",
]

STATISTICS_FORMATS: tuple[str, ...] = ("text", "json")
"""The formats :meth:`CorpusStatistics.render` and :func:`render_corpus_list` write."""


@dataclass(frozen=True)
class CorpusStatistics(Renderable):
    """Sizes of a set of segmented sentences.

    :meth:`render` writes what ``cws-bench corpora info`` prints, in one of
    :attr:`FORMATS`: ``text`` (the aligned table under ``title``, then the corpus
    ``card``, a named corpus' :meth:`Corpus.metadata`) or ``json`` (:meth:`to_dict`,
    with the card under ``card``); ``scale`` and ``digits`` set how the text prints
    the OOV rate (:mod:`cws_bench.display.units`); JSON holds a fraction.

    Attributes:
        sentences: non-empty sentences.
        empty_lines: empty sentences (empty lines of a line-based file).
        words, characters: word tokens and characters (whitespace excluded).
        word_types, character_types: distinct words and characters.
        average_word_length: characters per word token.
        dictionary: the dictionary's name, or None.
        dictionary_words: its size, or None.
        oov_words: word tokens not in the dictionary (None without one).
        oov_types: distinct words not in the dictionary (None without one).
        oov_rate: ``oov_words / words`` (None without a dictionary).
        corpus, split, checksum: what was counted, when it is a named corpus.
        note: why a figure is absent (e.g. no dictionary available).
        overlaps: for a named corpus' split, how many of its sentences are in
            its training split and in the other splits asked for: one dict
            each (``with``, ``sentences``, ``exact``, ``normalized``, see
            :class:`cws_bench.corpora.overlap.Overlap`).
    """

    FORMATS: ClassVar[tuple[str, ...]] = STATISTICS_FORMATS

    sentences: int
    empty_lines: int
    words: int
    characters: int
    word_types: int
    character_types: int
    average_word_length: float
    dictionary: str | None = None
    dictionary_words: int | None = None
    oov_words: int | None = None
    oov_types: int | None = None
    oov_rate: float | None = None
    corpus: str | None = None
    split: str | None = None
    checksum: str | None = None
    note: str | None = None
    overlaps: tuple[dict[str, Any], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict in field order."""
        data = asdict(self)
        data["overlaps"] = [dict(found) for found in self.overlaps]
        return data

    def to_json(self, *, card: Mapping[str, Any] | None = None) -> str:
        """:meth:`to_dict` as indented JSON, with a corpus card under ``card``."""
        import json

        data = self.to_dict()
        if card is not None:
            data["card"] = dict(card)
        return json.dumps(data, ensure_ascii=False, indent=2)

    def to_text(
        self,
        title: str = "",
        *,
        card: Mapping[str, Any] | None = None,
        scale: str | None = None,
        digits: int | None = None,
    ) -> str:
        """The aligned text table under ``title``: sizes, types, the dictionary and OOV
        figures, checksum; then the corpus ``card``'s block, when there is one."""
        unit = units(scale, digits)
        oov_label = "OOV rate (%)" if unit.scale == "percent" else "OOV rate (fraction)"
        rows = [
            ("sentences", f"{self.sentences:,}"),
            ("words", f"{self.words:,}"),
            ("characters", f"{self.characters:,}"),
            ("word types", f"{self.word_types:,}"),
            ("character types", f"{self.character_types:,}"),
            ("average word length", f"{self.average_word_length:.3f}"),
        ]
        if self.dictionary is not None:
            rows += [
                ("dictionary", f"{self.dictionary} ({plural(self.dictionary_words, 'word')})"),
                ("OOV words", f"{self.oov_words:,} ({plural(self.oov_types, 'type')})"),
                (oov_label, unit.score(self.oov_rate)),
            ]
        else:
            rows.append((oov_label, "--"))
        if self.empty_lines:
            rows.append(("empty lines", f"{self.empty_lines:,}"))
        for found in self.overlaps:
            rows.append((f"in {found['with']}", _overlap_text(found)))
        rows.append(("checksum", self.checksum or "--"))
        width = max(len(label) for label, _ in rows)
        lines = [title]
        lines += [f"  {label:<{width}}  {value}" for label, value in rows]
        if self.note:
            lines.append(f"  note: {self.note}")
        if card is not None:
            lines.append(format_card(card))
        return "\n".join(lines)


CARD_FIELDS = (
    ("splits", "splits"),
    ("script", "script"),
    ("domain", "domain"),
    ("standard", "standard"),
    ("licence", "licence"),
    ("citation", "citation"),
    ("source", "source"),
    ("training_stand_in", "train stand-in"),
)
"""The corpus card's fields in the text block, in order: (key, label)."""


def format_card(card: Mapping[str, Any]) -> str:
    """The corpus card block: splits (unavailable ones in parentheses), script, licence...

    >>> print(format_card({"splits": ["train", "test"], "available_splits": ["test"],
    ...                    "script": "simplified"}))
    corpus card:
      splits  (train) test
      script  simplified
    """
    rows = []
    for key, label in CARD_FIELDS:
        value = card.get(key)
        if key == "splits":
            here = card.get("available_splits", [])
            value = " ".join(s if s in here else f"({s})" for s in value or [])
        if value:
            rows.append((label, str(value)))
    width = max(len(label) for label, _ in rows)
    return "\n".join(["corpus card:", *(f"  {label:<{width}}  {value}" for label, value in rows)])


def sentence_statistics(
    sentences: Iterable[list[str]], dictionary: Dictionary | None = None, **extra: Any
) -> CorpusStatistics:
    """Count sentences, words, characters and types; OOV figures against ``dictionary``.

    >>> s = sentence_statistics([["我们", "是", "学生"], []], Dictionary.from_words(["是"]))
    >>> (s.sentences, s.empty_lines, s.words, s.characters, s.word_types, s.character_types)
    (1, 1, 3, 5, 3, 5)
    >>> round(s.average_word_length, 4), s.oov_words, s.oov_types, round(s.oov_rate, 4)
    (1.6667, 2, 2, 0.6667)

    ``extra`` are further fields (``corpus``, ``split``, ``note``).

    The ``checksum`` field is :func:`~cws_bench.corpora.base.sentences_checksum`
    of the sentences, computed in the same pass.
    """
    counts: dict[str, int] = {}
    nonempty = empty = words = characters = 0
    digest = SentenceDigest()
    for sentence in sentences:
        digest.add(sentence)
        if not sentence:
            empty += 1
            continue
        nonempty += 1
        words += len(sentence)
        for word in sentence:
            characters += len(word)
            counts[word] = counts.get(word, 0) + 1
    character_types = len(set().union(*counts)) if counts else 0
    oov: dict[str, Any] = {}
    if dictionary is not None:
        oov_types = [word for word in counts if word not in dictionary]
        oov_words = sum(counts[word] for word in oov_types)
        oov = {
            "dictionary": dictionary.name,
            "dictionary_words": len(dictionary),
            "oov_words": oov_words,
            "oov_types": len(oov_types),
            "oov_rate": oov_words / words if words else 0.0,
        }
    return CorpusStatistics(
        sentences=nonempty,
        empty_lines=empty,
        words=words,
        characters=characters,
        word_types=len(counts),
        character_types=character_types,
        average_word_length=characters / words if words else 0.0,
        checksum=digest.hexdigest(),
        **oov,
        **extra,
    )


def corpus_statistics(
    corpus: Corpus,
    split: str,
    *,
    dictionary: Dictionary | None = None,
    overlap_with: Sequence[str] = (),
    data_dir: str | None = None,
) -> CorpusStatistics:
    """Statistics of a split of a named corpus, OOV against its standard dictionary.

    Args:
        dictionary: a dictionary to use instead of the corpus' standard one.
        overlap_with: other corpora's splits (``NAME[:SPLIT]``) whose sentences to
            look for, besides the training split (:func:`split_overlaps`).
        data_dir: where ``overlap_with``'s external corpora are.

    Raises:
        CorpusUnavailableError: the split is not here.
    """
    corpus.check_split(split)
    note = None
    if dictionary is None:
        try:
            dictionary = corpus.dictionary()
        except CorpusUnavailableError as e:
            note = f"no OOV figures: {e.message}"
    statistics = sentence_statistics(
        corpus.sentences(split), dictionary, corpus=corpus.name, split=split, note=note
    )
    overlaps = split_overlaps(corpus, split, overlap_with, data_dir=data_dir)
    return replace(statistics, overlaps=overlaps)


def _overlap_text(found: Mapping[str, Any]) -> str:
    total = found["sentences"]

    def part(n: int) -> str:
        return f"{n:,} ({share(n, total)})" if total else f"{n:,}"

    return f"{part(found['exact'])} exact, {part(found['normalized'])} after normalising"


def split_overlaps(
    corpus: Corpus,
    split: str,
    others: Sequence[str] = (),
    *,
    data_dir: str | None = None,
) -> tuple[dict[str, Any], ...]:
    """How many of a split's sentences are in the corpus' training split and in ``others``.

    The training split is compared when it is here and ``split`` is another one;
    each of ``others`` (``NAME[:SPLIT]``, split ``test`` by default) is read with
    ``data_dir``. Exact texts, and texts with width folded and punctuation removed
    (Traditional converted to Simplified when either side is Traditional):
    :func:`cws_bench.corpora.overlap.sentence_overlap`.
    """
    from cws_bench.corpora.overlap import sentence_overlap
    from cws_bench.corpora.registry import get_corpus, parse_corpus_spec

    found: list[dict[str, Any]] = []
    sentences = list(corpus.sentences(split))
    targets: list[tuple[Corpus, str]] = []
    if split != "train" and "train" in corpus.available_splits:
        targets.append((corpus, "train"))
    for spec in others:
        name, asked = parse_corpus_spec(spec)
        other = get_corpus(name, data_dir=data_dir)
        other_split = asked or "test"
        other.check_split(other_split)
        targets.append((other, other_split))
    for other, other_split in targets:
        traditional = "Traditional" in (corpus.script, other.script)
        overlap = sentence_overlap(
            sentences, other.sentences(other_split), convert="t2s" if traditional else "none"
        )
        found.append({"with": f"{other.name}:{other_split}", **overlap.to_dict()})
    return tuple(found)


def render_corpus_list(cards: Sequence[Mapping[str, Any]], fmt: str = "text") -> str:
    """What ``cws-bench corpora`` prints: the corpora's cards as ``json``, or in ``text``
    one block each (name, script, here or not, splits; title, where from, how to get)."""
    import json

    def as_json() -> str:
        return json.dumps([dict(card) for card in cards], ensure_ascii=False, indent=2)

    return render_in(fmt, {"text": lambda: _corpus_blocks(cards), "json": as_json})


def _corpus_blocks(cards: Sequence[Mapping[str, Any]]) -> str:
    width = max(len(card["name"]) for card in cards)
    lines = []
    for card in cards:
        here = card["available_splits"]
        splits = " ".join(split if split in here else f"({split})" for split in card["splits"])
        state = "available" if card["available"] else "not here"
        lines.append(f"{card['name']:<{width}}  {card['script']:<11}  {state:<9}  splits: {splits}")
        domain = f" ({card['domain']})" if card.get("domain") else ""
        lines.append(f"{'':<{width}}  {card['title']}{domain}")
        if card["location"]:
            lines.append(f"{'':<{width}}  from: {card['location']}")
        if card["how_to_get"]:
            lines.append(f"{'':<{width}}  to get: {card['how_to_get']}")
    lines.append("(a split in parentheses is not available here)")
    return "\n".join(lines)
