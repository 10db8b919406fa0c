"""Words as half-open character intervals ``[start, end)``, and alignment of texts that differ.

Two segmentations of the same characters agree on a word iff they share its
interval. When a prediction does not hold exactly the gold characters,
:func:`project_spans` maps its intervals onto gold positions through a minimal
edit alignment of the two texts, so that words whose intervals agree still count.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import accumulate
from typing import NamedTuple

__all__ = ["CharAlignment", "align_chars", "boundaries", "project_spans", "to_spans"]

Span = tuple[int, int]


def to_spans(words: Sequence[str]) -> list[Span]:
    """The ``[start, end)`` character interval of each word.

    >>> to_spans(["结婚", "的", "和", "尚未"])
    [(0, 2), (2, 3), (3, 4), (4, 6)]
    """
    ends = list(accumulate(map(len, words)))
    return list(zip([0, *ends[:-1]], ends))


def boundaries(words: Sequence[str]) -> set[int]:
    """Offsets of the word boundaries strictly inside the sentence.

    A boundary ``k`` lies between characters ``k - 1`` and ``k``.

    >>> sorted(boundaries(["结婚", "的", "和"]))
    [2, 3]
    """
    ends = list(accumulate(map(len, words)))
    return set(ends[:-1])


class CharAlignment(NamedTuple):
    """A minimal edit alignment of a predicted text onto a gold text.

    For each offset ``k`` of the predicted text (``0 <= k <= len(pred)``),
    ``left[k]`` and ``right[k]`` are the gold offsets it corresponds to. They
    differ only where gold characters are missing from the prediction at that
    point: ``left`` is before the missing run, ``right`` after it. A predicted
    word ``[s, e)`` maps to the gold interval ``[right[s], left[e])``, so a
    word next to a dropped character still lands on its gold word.
    """

    left: list[int]
    right: list[int]

    def map_span(self, start: int, end: int) -> Span | None:
        """The gold interval of a predicted interval, or None if it maps to nothing."""
        gold_start, gold_end = self.right[start], self.left[end]
        return (gold_start, gold_end) if gold_start < gold_end else None

    def map_boundary(self, offset: int) -> int:
        """The gold offset of a predicted word end."""
        return self.left[offset]


def align_chars(gold: str, pred: str) -> CharAlignment:
    """Align two character sequences by a minimal edit script (Levenshtein).

    Substituted characters are aligned one to one; inserted ones map to the
    gold position where they were inserted.

    >>> a = align_chars("“远望号”", "远望号”")
    >>> a.map_span(0, 3), a.map_span(3, 4)
    ((1, 4), (4, 5))
    """
    from rapidfuzz.distance import Levenshtein

    size = len(pred) + 1
    left = [len(gold)] * size
    right = [0] * size
    for op in Levenshtein.opcodes(gold, pred):
        if op.tag in ("equal", "replace"):
            for k in range(op.dest_start, op.dest_end + 1):
                g = op.src_start + (k - op.dest_start)
                left[k] = min(left[k], g)
                right[k] = max(right[k], g)
        elif op.tag == "insert":  # characters only in the prediction
            for k in range(op.dest_start, op.dest_end + 1):
                left[k] = min(left[k], op.src_start)
                right[k] = max(right[k], op.src_start)
        else:  # "delete": gold characters missing from the prediction
            k = op.dest_start
            left[k] = min(left[k], op.src_start)
            right[k] = max(right[k], op.src_end)
    return CharAlignment(left, right)


def project_spans(pred_words: Sequence[str], alignment: CharAlignment) -> list[Span]:
    """Map predicted words to gold intervals, dropping those that map to nothing.

    >>> project_spans(["X远望号", "”"], align_chars("远望号”", "X远望号”"))
    [(0, 3), (3, 4)]
    """
    spans = []
    for start, end in to_spans(pred_words):
        span = alignment.map_span(start, end)
        if span is not None:
            spans.append(span)
    return spans
