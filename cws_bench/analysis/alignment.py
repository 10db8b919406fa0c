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

from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import overload

import numpy as np

from cws_bench.text.joined import joined

__all__ = ["Aligned", "Words", "align", "hits", "shared_block_arrays"]


class Words(Sequence[str]):
    """Words held as one text and their end offsets: a word is made when it is read.

    What :class:`Aligned` holds for each side: a pair of millions of words
    costs a few bytes a word rather than a Python string each.

    >>> words = Words("结婚的和尚未", np.array([2, 3, 5, 6]))
    >>> list(words), words[1], words[-1], words[1:3], len(words)
    (['结婚', '的', '和尚', '未'], '的', '未', ['的', '和尚'], 4)
    >>> words.joined("|"), words.take(np.array([3, 0]))
    ('结婚|的|和尚|未', ['未', '结婚'])
    """

    __slots__ = ("ends", "text")

    CHUNK = 65_536
    """Words made at once when iterating."""

    def __init__(self, text: str, ends: np.ndarray) -> None:
        self.text = text
        self.ends = ends

    def starts(self, indices: np.ndarray) -> np.ndarray:
        """The start offsets of the words at ``indices`` (each word starts where the one
        before it ends)."""
        indices = np.asarray(indices, dtype=np.int64)
        before = self.ends[np.maximum(indices - 1, 0)]
        return np.where(indices > 0, before, 0)

    def __len__(self) -> int:
        return len(self.ends)

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return self.take(np.arange(len(self))[index])
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("word index out of range")
        start = int(self.ends[index - 1]) if index else 0
        return self.text[start : int(self.ends[index])]

    def take(self, indices: np.ndarray) -> list[str]:
        """The words at ``indices``, in that order."""
        text = self.text
        starts, ends = self.starts(indices).tolist(), self.ends[indices].tolist()
        return [text[start:end] for start, end in zip(starts, ends)]

    def __iter__(self) -> Iterator[str]:
        if _MARK in self.text:  # the words made one by one
            chunks: Iterator[list[str]] = (
                self.take(np.arange(low, min(low + self.CHUNK, len(self))))
                for low in range(0, len(self), self.CHUNK)
            )
        else:  # a chunk of words joined by a character the text lacks, then split
            chunks = (self._joined(low, high, _MARK).split(_MARK) for low, high in self._chunks())
        return chain.from_iterable(chunks)

    def joined(self, separator: str) -> str:
        """The words joined by ``separator`` (made a chunk of words at a time)."""
        if len(separator) != 1:
            return separator.join(self)
        return separator.join(self._joined(low, high, separator) for low, high in self._chunks())

    def _chunks(self) -> Iterator[tuple[int, int]]:
        for low in range(0, len(self), self.CHUNK):
            yield low, min(low + self.CHUNK, len(self))

    def _joined(self, low: int, high: int, separator: str) -> str:
        """Words ``low`` to ``high - 1`` joined by a one-character ``separator``, made with
        numpy from the text's code points (no string a word)."""
        start = int(self.ends[low - 1]) if low else 0
        piece = self.text[start : int(self.ends[high - 1])]
        codes = np.frombuffer(piece.encode("utf-32-le", "surrogatepass"), dtype="<u4")
        lengths = np.diff(self.ends[low:high], prepend=start)
        out = np.full(len(codes) + high - low - 1, ord(separator), dtype="<u4")
        out[np.arange(len(codes)) + np.repeat(np.arange(high - low), lengths)] = codes
        return out.tobytes().decode("utf-32-le", "surrogatepass")


_MARK = "\x00"
"""What :meth:`Words.__iter__` splits a chunk of words on (when the text has none)."""


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
        gold_words, pred_words: the words of the aligned sentences, in order (no empty
            word), as :class:`Words` of their joined text.
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
    gold_words: Words
    pred_words: Words
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
        return self.gold_words.text

    def blocks(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The blocks between the boundaries both sides share, in order:
        ``(first gold word, gold words, first predicted word, predicted words)``.

        A block of one word on each side is a correct word; one gold word in
        several predicted ones a split, several in one a merge, else a crossing.
        """
        return shared_block_arrays(self.gold_ends, self.pred_ends)


def shared_block_arrays(
    gold_ends: np.ndarray, pred_ends: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The blocks between the boundaries two segmentations of the same text share, as
    arrays: ``(first gold word, gold words, first predicted word, predicted words)``.

    ``gold_ends`` and ``pred_ends`` are the words' end offsets, strictly increasing
    (no empty word); what :func:`cws_bench.analysis.patterns.shared_blocks` yields, in
    numpy (``diff`` walks a long line with it).

    >>> [a.tolist() for a in shared_block_arrays(np.array([2, 3, 4, 6]), np.array([2, 3, 5, 6]))]
    [[0, 1, 2], [1, 1, 2], [0, 1, 2], [1, 1, 2]]
    """
    # Both sides' ends increase strictly: a gold end is shared when the predicted end
    # at its place in pred_ends is the same.
    at = np.searchsorted(pred_ends, gold_ends)
    inside = at < len(pred_ends)
    shared = np.zeros(len(at), dtype=bool)
    shared[inside] = pred_ends[at[inside]] == gold_ends[inside]
    gold_last = np.flatnonzero(shared)
    pred_last = at[shared]
    gold_count = np.diff(gold_last, prepend=-1)
    pred_count = np.diff(pred_last, prepend=-1)
    return gold_last - gold_count + 1, gold_count, pred_last - pred_count + 1, pred_count


def hits(
    starts: np.ndarray, ends: np.ndarray, other_starts: np.ndarray, other_ends: np.ndarray
) -> np.ndarray:
    """Whether each span ``[start, end)`` is one of the other side's (starts increasing)."""
    hit = np.zeros(len(starts), dtype=bool)
    if not len(other_starts):
        return hit
    for low in range(0, len(starts), _CHUNK):  # a chunk at a time: no array of 8 bytes a word
        here = slice(low, low + _CHUNK)
        at = np.minimum(np.searchsorted(other_starts, starts[here]), len(other_starts) - 1)
        hit[here] = (other_starts[at] == starts[here]) & (other_ends[at] == ends[here])
    return hit


_CHUNK = 1 << 20
"""Words whose spans are looked up at once."""


def align(gold: Iterable[Sequence[str]], pred: Iterable[Sequence[str]]) -> Aligned:
    """Line up ``pred`` with ``gold`` sentence by sentence (pairs of ``zip``)."""
    lines: list[int] = []
    regular: list[bool] = []
    irregular: list[tuple[Sequence[str], Sequence[str]]] = []
    texts: list[str] = []
    gold_lengths_ = array("q")  # a machine integer a word, no Python object
    pred_lengths_ = array("q")
    gold_counts: list[int] = []
    pred_counts: list[int] = []
    skipped = 0
    for line, (gold_side, pred_side) in enumerate(zip(gold, pred), start=1):
        text = joined(gold_side, "")
        if text != joined(pred_side, ""):
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
        texts.append(text)
        gold_lengths_.extend(map(len, gold_side))
        pred_lengths_.extend(map(len, pred_side))
        gold_counts.append(len(gold_side))
        pred_counts.append(len(pred_side))
    text = "".join(texts)
    del texts
    # Per word arrays of four bytes where a value cannot outgrow them (a word's length, a
    # sentence's index), eight for offsets into the text: a pair of millions of words.
    gold_lengths = np.frombuffer(gold_lengths_, dtype=np.int64).astype(np.int32)
    pred_lengths = np.frombuffer(pred_lengths_, dtype=np.int64).astype(np.int32)
    del gold_lengths_, pred_lengths_
    gold_ends = np.cumsum(gold_lengths, dtype=np.int64)
    pred_ends = np.cumsum(pred_lengths, dtype=np.int64)
    gold_starts, pred_starts = gold_ends - gold_lengths, pred_ends - pred_lengths
    sentences = np.arange(len(lines), dtype=np.int32)
    gold_first = np.cumsum(gold_counts) - np.asarray(gold_counts, dtype=np.int64)
    return Aligned(
        lines=np.asarray(lines, dtype=np.int64),
        regular=np.asarray(regular, dtype=bool),
        irregular=irregular,
        skipped=skipped,
        gold_words=Words(text, gold_ends),
        pred_words=Words(text, pred_ends),
        gold_lengths=gold_lengths,
        pred_lengths=pred_lengths,
        gold_ends=gold_ends,
        pred_ends=pred_ends,
        gold_sentence=np.repeat(sentences, gold_counts),
        pred_sentence=np.repeat(sentences, pred_counts),
        gold_first=gold_first.astype(np.int64),
        gold_hit=hits(gold_starts, gold_ends, pred_starts, pred_ends),
        pred_hit=hits(pred_starts, pred_ends, gold_starts, gold_ends),
    )
