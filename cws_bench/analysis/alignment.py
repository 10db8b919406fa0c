"""A segmentation lined up with gold, word by word, as flat arrays: what the error
analysis and the bucket analysis of a pair both walk.

:func:`align` makes one pass over the sentences in Python (joining each side
to compare their characters) and does the rest with numpy on the words of
all the aligned sentences at once: each word's character span, whether the
other side has the same span (a gold word recalled, a predicted word
correct), and the blocks between the boundaries both sides share
(:func:`cws_bench.analysis.patterns.shared_blocks`, for the whole corpus in one go).
A pair is scored once and analysed twice (:func:`cws_bench.analysis.patterns.analyse_errors`
and :func:`cws_bench.analysis.buckets.bucket_analysis`): both take the same
:class:`Aligned`, so the sentences are walked once.

Which sentences are aligned: those whose two sides have the same characters
and whose gold side has a non-empty word. Empty words (``""``) are left out
of the arrays, as the error analysis leaves them out; a sentence that has
any keeps its raw words in :attr:`Aligned.irregular`, for the bucket
analysis, which counts them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["Aligned", "align"]


@dataclass(frozen=True, eq=False)
class Aligned:
    """The aligned sentences of a gold and a predicted segmentation.

    Attributes:
        lines: per aligned sentence, its line number (1-based).
        regular: per aligned sentence, whether neither side has an empty word.
        irregular: the raw ``(gold words, predicted words)`` of the sentences with an
            empty word whose characters agree (aligned or not: a sentence whose gold
            words are all empty is in the bucket analysis only).
        skipped: sentences whose two sides have different characters.
        gold_words, pred_words: the words of the aligned sentences, in order (no empty word).
        gold_lengths, pred_lengths: their lengths in characters.
        gold_ends, pred_ends: their end offsets in the aligned sentences' joined text.
        gold_sentence, pred_sentence: the aligned sentence (its index) of each word.
        gold_first: per aligned sentence, the index of its first gold word.
        gold_hit: whether each gold word's span is a predicted word (recalled).
        pred_hit: whether each predicted word's span is a gold word (correct).
    """

    lines: np.ndarray
    regular: np.ndarray
    irregular: list[tuple[Sequence[str], Sequence[str]]]
    skipped: int
    gold_words: list[str]
    pred_words: list[str]
    gold_lengths: np.ndarray
    pred_lengths: np.ndarray
    gold_ends: np.ndarray
    pred_ends: np.ndarray
    gold_sentence: np.ndarray
    pred_sentence: np.ndarray
    gold_first: np.ndarray
    gold_hit: np.ndarray
    pred_hit: np.ndarray

    @property
    def text(self) -> str:
        """The aligned sentences' characters, joined."""
        return "".join(self.gold_words)

    def blocks(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The blocks between the boundaries both sides share, in order:
        ``(first gold word, gold words, first predicted word, predicted words)``.

        A block of one word on each side is a correct word; one gold word in
        several predicted ones a split, several in one a merge, else a crossing.
        """
        shared = np.intersect1d(self.gold_ends, self.pred_ends, assume_unique=True)
        gold_last = np.searchsorted(self.gold_ends, shared)
        pred_last = np.searchsorted(self.pred_ends, shared)
        gold_count = np.diff(gold_last, prepend=-1)
        pred_count = np.diff(pred_last, prepend=-1)
        return gold_last - gold_count + 1, gold_count, pred_last - pred_count + 1, pred_count


def _lengths(words: list[str]) -> np.ndarray:
    return np.fromiter(map(len, words), dtype=np.int64, count=len(words))


def _hits(
    starts: np.ndarray, ends: np.ndarray, other_starts: np.ndarray, other_ends: np.ndarray
) -> np.ndarray:
    """Whether each span ``[start, end)`` is one of the other side's (starts increasing)."""
    if not len(other_starts):
        return np.zeros(len(starts), dtype=bool)
    at = np.minimum(np.searchsorted(other_starts, starts), len(other_starts) - 1)
    return (other_starts[at] == starts) & (other_ends[at] == ends)


def align(gold: Iterable[Sequence[str]], pred: Iterable[Sequence[str]]) -> Aligned:
    """Line up ``pred`` with ``gold`` sentence by sentence (pairs of ``zip``)."""
    lines: list[int] = []
    regular: list[bool] = []
    irregular: list[tuple[Sequence[str], Sequence[str]]] = []
    gold_words: list[str] = []
    pred_words: list[str] = []
    gold_counts: list[int] = []
    pred_counts: list[int] = []
    skipped = 0
    for line, (gold_side, pred_side) in enumerate(zip(gold, pred), start=1):
        if "".join(gold_side) != "".join(pred_side):
            skipped += 1
            continue
        if not gold_side:
            continue
        plain = "" not in gold_side and "" not in pred_side
        if not plain:
            irregular.append((gold_side, pred_side))
            gold_side = [w for w in gold_side if w]
            pred_side = [w for w in pred_side if w]
            if not gold_side:
                continue
        lines.append(line)
        regular.append(plain)
        gold_words.extend(gold_side)
        pred_words.extend(pred_side)
        gold_counts.append(len(gold_side))
        pred_counts.append(len(pred_side))
    gold_lengths, pred_lengths = _lengths(gold_words), _lengths(pred_words)
    gold_ends, pred_ends = np.cumsum(gold_lengths), np.cumsum(pred_lengths)
    gold_starts, pred_starts = gold_ends - gold_lengths, pred_ends - pred_lengths
    sentences = np.arange(len(lines))
    gold_first = np.cumsum(gold_counts) - np.asarray(gold_counts, dtype=np.int64)
    return Aligned(
        lines=np.asarray(lines, dtype=np.int64),
        regular=np.asarray(regular, dtype=bool),
        irregular=irregular,
        skipped=skipped,
        gold_words=gold_words,
        pred_words=pred_words,
        gold_lengths=gold_lengths,
        pred_lengths=pred_lengths,
        gold_ends=gold_ends,
        pred_ends=pred_ends,
        gold_sentence=np.repeat(sentences, gold_counts),
        pred_sentence=np.repeat(sentences, pred_counts),
        gold_first=gold_first.astype(np.int64),
        gold_hit=_hits(gold_starts, gold_ends, pred_starts, pred_ends),
        pred_hit=_hits(pred_starts, pred_ends, gold_starts, gold_ends),
    )
