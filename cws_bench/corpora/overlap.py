"""Test sentences found elsewhere: in the training split, or in another corpus' test set.

A test sentence that is also a training sentence is scored on text the
segmenter (or the dictionary made from the training split) has seen; a test
set that repeats another corpus' test set counts that text twice in a mean
across corpora. Sentences are compared by their text (words joined) two ways:
exactly, and normalised: full-width ASCII to ASCII, Traditional to Simplified
characters when asked (OpenCC ``t2s``, one character at a time), punctuation
and spaces removed.

>>> test = [["我们", "是", "学生", "。"], ["他", "来", "了"], ["ＩＢＭ", "公司"]]
>>> train = [["我们", "是", "学生"], ["他来", "了"], ["IBM", "公司", "，"]]
>>> o = sentence_overlap(test, train)
>>> (o.sentences, o.exact, o.normalized)
(3, 1, 3)
>>> for part in o.describe("its training split").split("; "): print(part)
1 of 3 test sentences (33.3%) is in its training split
3 (100.0%) after normalising width and punctuation
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from cws_bench.display.units import plural, share

if TYPE_CHECKING:
    from cws_bench.text.normalize import Normalizer

__all__ = [
    "Overlap",
    "RunOverlap",
    "group_test_sets",
    "normalized_text",
    "run_overlap",
    "sentence_overlap",
]

Sentence = Sequence[str]


@dataclass(frozen=True)
class Overlap:
    """How many of a test set's sentences are found in another set.

    Attributes:
        sentences: the test set's sentences with words (empty ones left out).
        exact: those whose text is a text of the other set.
        normalized: those whose normalised text is one of the other set's.
    """

    sentences: int
    exact: int
    normalized: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def share(self) -> float:
        """The normalised share (0 when the set is empty)."""
        return self.normalized / self.sentences if self.sentences else 0.0

    def describe(self, where: str) -> str:
        """One line: ``N of M test sentences (x%) are in WHERE; K (y%) after normalising``."""

        return (
            f"{self.exact:,} of {plural(self.sentences, 'test sentence')} "
            f"({share(self.exact, self.sentences)}) "
            f"{'is' if self.exact == 1 else 'are'} in {where}; "
            f"{self.normalized:,} ({share(self.normalized, self.sentences)}) after "
            "normalising width and punctuation"
        )


class _Dropped(dict[int, int | None]):
    """A ``str.translate`` table that deletes whitespace and punctuation (Unicode's P
    categories) and keeps every other character: each character's entry is made the first
    time a text holds it, so a text is translated at C speed after the first few."""

    def __missing__(self, code: int) -> int | None:
        character = chr(code)
        dropped = character.isspace() or unicodedata.category(character).startswith("P")
        self[code] = None if dropped else code
        return self[code]


_DROPPED = _Dropped()


def normalized_text(text: str, *, convert: str = "none") -> str:
    """A sentence's text for comparison: width folded, punctuation and spaces removed.

    >>> normalized_text("“ＩＢＭ”公司，好。")
    'IBM公司好'

    Args:
        text: the sentence (words joined).
        convert: an OpenCC conversion applied too (``t2s``), or ``none``.
    """
    folded = _normalizer(convert)(text)
    return folded.translate(_DROPPED)


@functools.lru_cache(maxsize=8)
def _normalizer(convert: str) -> Normalizer:
    """One normaliser per conversion: building one loads OpenCC's tables (milliseconds),
    and its character table fills as it is used, so every sentence shares it."""
    from cws_bench.text.normalize import get_normalizer

    return get_normalizer("width" if convert == "none" else f"width+{convert}")


def _texts(sentences: Iterable[Sentence | str], convert: str) -> tuple[list[str], list[str]]:
    exact: list[str] = []
    normalized: list[str] = []
    for sentence in sentences:
        text = sentence if isinstance(sentence, str) else "".join(sentence)
        if not text:
            continue
        exact.append(text)
        normalized.append(normalized_text(text, convert=convert))
    return exact, normalized


def sentence_overlap(
    test: Iterable[Sentence | str],
    other: Iterable[Sentence | str],
    *,
    convert: str = "none",
) -> Overlap:
    """How many of ``test``'s sentences (word lists or texts) are ``other``'s.

    Args:
        test: the test set's sentences; empty ones are left out.
        other: the set to look in (a training split, another test set).
        convert: an OpenCC conversion applied to both sides before the
            normalised comparison (``t2s`` to compare Traditional with Simplified text).
    """
    test_exact, test_normalized = _texts(test, convert)
    other_exact, other_normalized = _texts(other, convert)
    exact_set = set(other_exact)
    normalized_set = set(other_normalized) - {""}
    found = [text in exact_set for text in test_exact]
    return Overlap(
        sentences=len(test_exact),
        exact=sum(found),
        # an exact match is a match after normalising too (even all punctuation: "……")
        normalized=sum(hit or text in normalized_set for hit, text in zip(found, test_normalized)),
    )


def group_test_sets(
    test_sets: Mapping[str, Iterable[Sentence | str]],
    *,
    threshold: float = 0.5,
    convert: str = "t2s",
) -> dict[str, str]:
    """Which test sets are one: label -> the label of its group's first member.

    Two test sets are one when more than ``threshold`` of the smaller one's
    sentences are the other's after normalising (Traditional text converted to
    Simplified, so a treebank released in both scripts is one set); groups are
    closed under that relation.

    >>> groups = group_test_sets({
    ...     "gsd": ["他們來了。", "我們是學生"],
    ...     "gsdsimp": ["他们来了", "我们是学生。"],
    ...     "news": ["今天天气好", "明天下雨"],
    ... })
    >>> groups
    {'gsd': 'gsd', 'gsdsimp': 'gsd', 'news': 'news'}
    """
    labels = list(test_sets)
    texts = {label: set(_texts(test_sets[label], convert)[1]) - {""} for label in labels}
    parent = {label: label for label in labels}

    def root(label: str) -> str:
        while parent[label] != label:
            label = parent[label]
        return label

    for i, a in enumerate(labels):
        for b in labels[i + 1 :]:
            smaller = min(len(texts[a]), len(texts[b]))
            if smaller and len(texts[a] & texts[b]) > threshold * smaller:
                ra, rb = root(a), root(b)
                if ra != rb:
                    first, second = sorted((ra, rb), key=labels.index)
                    parent[second] = first
    return {label: root(label) for label in labels}


@dataclass(frozen=True)
class RunOverlap:
    """What a bake-off knows of its corpora's test sentences found elsewhere.

    Attributes:
        test_sets: corpus label -> the label of its test set's group
            (:func:`group_test_sets`: a converted copy, a release in the other
            script or an older release of the same test set is one group).
        warnings: corpus label -> the warning its pairs carry: how many of its
            test sentences are in its training split (only when some are).
        train: corpus label -> :meth:`Overlap.to_dict` against its training split.
    """

    test_sets: dict[str, str]
    warnings: dict[str, str]
    train: dict[str, dict[str, Any]]


def run_overlap(corpora: Sequence[Any], data_dir: str | None) -> RunOverlap:
    """The test-set groups and training-split overlaps of a bake-off's named corpora.

    Args:
        corpora: the run's corpus specifications (``label``, ``name``, ``split``);
            corpora of the user's files are each a group of their own.
        data_dir: where the external corpora are.
    """
    from cws_bench.corpora.registry import get_corpus
    from cws_bench.errors import CwsBenchError

    test_sets: dict[str, list[list[str]]] = {}
    read: dict[tuple[str, str], list[list[str]]] = {}
    warnings: dict[str, str] = {}
    train: dict[str, dict[str, Any]] = {}
    for spec in corpora:
        if spec.name is None:
            continue
        corpus = get_corpus(spec.name, data_dir=data_dir)
        key = (spec.name, spec.split)
        if key not in read:
            read[key] = list(corpus.sentences(spec.split))
        test_sets[spec.label] = read[key]
        if spec.split == "train" or "train" not in corpus.available_splits:
            continue
        try:
            found = sentence_overlap(read[key], corpus.sentences("train"))
        except CwsBenchError:
            continue
        train[spec.label] = found.to_dict()
        if found.normalized:
            warnings[spec.label] = found.describe(f"{spec.name}:train")
    groups = group_test_sets(test_sets)
    for spec in corpora:
        groups.setdefault(spec.label, spec.label)
    return RunOverlap(groups, warnings, train)
