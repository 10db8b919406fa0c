"""Error analysis of a segmentation: which words were split, merged or crossed, and where.

The counts in :class:`~cws_bench.scoring.SegCounts` say how many errors of
each kind there are; this module says which ones. Between two consecutive
boundaries that gold and prediction share, gold has ``m`` words and the
prediction ``n``: ``m = 1 < n`` is a gold word split, ``n = 1 < m`` gold
words merged, ``m, n > 1`` a crossing region (as in scoring.py). Each error
pattern is the pair (gold words, predicted words) of such a block; patterns
are counted over the corpus with an example line each.

Also: the OOV words missed most often, and recall by gold word length.
Lines whose characters differ between gold and prediction are left out (the
scorer reports them).

>>> a = analyse_errors([["结婚", "的", "和", "尚未"]], [["结婚", "的", "和尚", "未"]])
>>> [(p.gold, p.pred, p.count) for p in a.crossings]
[(('和', '尚未'), ('和尚', '未'), 1)]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from heapq import nsmallest
from itertools import accumulate, compress
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cws_bench.analysis.alignment import Aligned

__all__ = [
    "ErrorAnalysis",
    "ErrorPattern",
    "LengthRecall",
    "MissedWord",
    "analyse_errors",
    "block_kind",
    "clip_words",
    "shared_blocks",
]


@dataclass(frozen=True, slots=True)
class ErrorPattern:
    """One kind of mistake: these gold words predicted as those words.

    Attributes:
        kind: ``split``, ``merge`` or ``cross``.
        gold: the gold words of the block.
        pred: the predicted words of the block.
        count: how many times the block occurs.
        line: the 1-based line number of the first occurrence.
        sentence: that line's gold words joined by spaces, clipped to
            :data:`EXAMPLE_WORDS` words on each side of the error (``…`` marks a cut).
    """

    kind: str
    gold: tuple[str, ...]
    pred: tuple[str, ...]
    count: int
    line: int
    sentence: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "gold": list(self.gold),
            "pred": list(self.pred),
            "count": self.count,
            "line": self.line,
            "sentence": self.sentence,
        }


@dataclass(frozen=True, slots=True)
class MissedWord:
    """An out-of-vocabulary gold word and how often it was missed."""

    word: str
    missed: int
    occurrences: int

    def to_dict(self) -> dict[str, Any]:
        return {"word": self.word, "missed": self.missed, "occurrences": self.occurrences}


@dataclass(frozen=True, slots=True)
class LengthRecall:
    """Recall of gold words of one length (in characters)."""

    length: int
    gold: int
    correct: int

    @property
    def recall(self) -> float:
        return self.correct / self.gold if self.gold else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "length": self.length,
            "gold": self.gold,
            "correct": self.correct,
            "recall": self.recall,
        }


@dataclass(frozen=True)
class ErrorAnalysis:
    """The most frequent errors of each kind, missed OOV words, recall by length."""

    splits: tuple[ErrorPattern, ...]
    merges: tuple[ErrorPattern, ...]
    crossings: tuple[ErrorPattern, ...]
    missed_oov: tuple[MissedWord, ...]
    recall_by_length: tuple[LengthRecall, ...]
    distinct: dict[str, int]

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict with a stable key order."""
        return {
            "splits": [p.to_dict() for p in self.splits],
            "merges": [p.to_dict() for p in self.merges],
            "crossings": [p.to_dict() for p in self.crossings],
            "missed_oov": [m.to_dict() for m in self.missed_oov],
            "recall_by_length": [r.to_dict() for r in self.recall_by_length],
            "distinct": dict(self.distinct),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ErrorAnalysis:
        """Rebuild an analysis from :meth:`to_dict` output (e.g. a cached result)."""

        def patterns(items: list[dict[str, Any]]) -> tuple[ErrorPattern, ...]:
            return tuple(
                ErrorPattern(
                    p["kind"],
                    tuple(p["gold"]),
                    tuple(p["pred"]),
                    p["count"],
                    p["line"],
                    p["sentence"],
                )
                for p in items
            )

        return cls(
            splits=patterns(data["splits"]),
            merges=patterns(data["merges"]),
            crossings=patterns(data["crossings"]),
            missed_oov=tuple(MissedWord(**m) for m in data["missed_oov"]),
            recall_by_length=tuple(
                LengthRecall(r["length"], r["gold"], r["correct"]) for r in data["recall_by_length"]
            ),
            distinct=dict(data["distinct"]),
        )


EXAMPLE_WORDS = 16
"""Words of context kept on each side of an error in its example sentence."""


def clip_words(
    words: Sequence[str],
    start: int,
    end: int,
    window: int = EXAMPLE_WORDS,
    *,
    first: int = 0,
    last: int | None = None,
) -> str:
    """``words[start:end]`` with up to ``window`` words on each side, joined by spaces.

    An ellipsis word marks each side that was cut, so an example sentence stays
    short however long its line is. ``first`` and ``last`` bound the sentence
    within ``words`` (default: all of it), so that a caller holding the words
    of many sentences in one list need not copy a sentence out (a copy per
    error made a long line's analysis quadratic).

    >>> clip_words(list("abcdefg"), 3, 4, window=1)
    '… c d e …'
    >>> clip_words(["a", "b"], 0, 1)
    'a b'
    >>> clip_words(list("xxabcdefgyy"), 5, 6, window=1, first=2, last=9)
    '… c d e …'
    """
    last = len(words) if last is None else last
    low, high = max(first, start - window), min(last, end + window)
    parts = list(words[low:high])
    if low > first:
        parts.insert(0, ELLIPSIS)
    if high < last:
        parts.append(ELLIPSIS)
    return " ".join(parts)


ELLIPSIS = "…"


def shared_blocks(
    gold: Sequence[str], pred: Sequence[str]
) -> Iterator[tuple[tuple[str, ...], tuple[str, ...]]]:
    """Yield (gold words, predicted words) of each block between shared boundaries.

    The two segmentations must cover the same characters.

    >>> list(shared_blocks(["结婚", "的", "和", "尚未"], ["结婚", "的", "和尚", "未"]))
    [(('结婚',), ('结婚',)), (('的',), ('的',)), (('和', '尚未'), ('和尚', '未'))]
    """
    gold_ends = list(accumulate(map(len, gold)))
    pred_ends = list(accumulate(map(len, pred)))
    i = j = 0
    gi = pj = 0
    while i < len(gold_ends) and j < len(pred_ends):
        if gold_ends[i] == pred_ends[j]:
            yield tuple(gold[gi : i + 1]), tuple(pred[pj : j + 1])
            i += 1
            j += 1
            gi, pj = i, j
        elif gold_ends[i] < pred_ends[j]:
            i += 1
        else:
            j += 1


def block_kind(gold: Sequence[str], pred: Sequence[str]) -> str | None:
    """The kind of a block: ``split``, ``merge``, ``cross``, or None for a correct word.

    >>> block_kind(["尚未"], ["尚", "未"]), block_kind(["和", "尚未"], ["和尚", "未"])
    ('split', 'cross')
    """
    if len(gold) == 1:
        return None if len(pred) == 1 else "split"
    return "merge" if len(pred) == 1 else "cross"


def analyse_errors(
    gold: Iterable[Sequence[str]],
    pred: Iterable[Sequence[str]],
    dictionary: Any = None,
    *,
    top: int = 20,
    aligned: Aligned | None = None,
) -> ErrorAnalysis:
    """Collect the errors of a segmentation, sentence by sentence.

    Args:
        gold: gold sentences (lists of words).
        pred: predicted sentences, paired with ``gold`` in order.
        dictionary: words in vocabulary (anything supporting ``in``), or None
            (then no OOV list).
        top: how many of the most frequent patterns and words to keep.
        aligned: :func:`cws_bench.analysis.alignment.align` of ``gold`` and ``pred``
            when the caller has it (then ``gold`` and ``pred`` are not read).

    Returns:
        An ErrorAnalysis; ``distinct`` counts the distinct patterns of each kind.
    """
    import numpy as np

    if aligned is None:
        from cws_bench.analysis.alignment import align

        aligned = align(gold, pred)
    gold_words, pred_words = aligned.gold_words, aligned.pred_words
    found: dict[str, Counter[tuple[tuple[str, ...], tuple[str, ...]]]] = {
        "split": Counter(),
        "merge": Counter(),
        "cross": Counter(),
    }
    first: dict[tuple[str, tuple[str, ...], tuple[str, ...]], tuple[int, str]] = {}
    gold_start, gold_count, pred_start, pred_count = aligned.blocks()
    sentence_ends = [*aligned.gold_first[1:].tolist(), len(gold_words)]
    wrong = (gold_count != 1) | (pred_count != 1)
    errors = zip(
        gold_start[wrong].tolist(),
        gold_count[wrong].tolist(),
        pred_start[wrong].tolist(),
        pred_count[wrong].tolist(),
    )
    for g, m, p, n in errors:
        gold_block, pred_block = tuple(gold_words[g : g + m]), tuple(pred_words[p : p + n])
        kind = "split" if m == 1 else "merge" if n == 1 else "cross"
        found[kind][gold_block, pred_block] += 1
        if (kind, gold_block, pred_block) not in first:
            # A window of the sentence, not a copy of it: one long line with many
            # errors would otherwise cost its length times its number of errors.
            sentence = int(aligned.gold_sentence[g])
            begin = int(aligned.gold_first[sentence])
            end = sentence_ends[sentence]
            example = clip_words(gold_words, g, g + m, first=begin, last=end)
            first[kind, gold_block, pred_block] = (int(aligned.lines[sentence]), example)

    def most_common(kind: str) -> tuple[ErrorPattern, ...]:
        # Ties broken by the words, so the report does not depend on input order.
        ranked = nsmallest(top, found[kind].items(), key=lambda item: (-item[1], item[0]))
        return tuple(
            ErrorPattern(kind, g, p, count, *first[kind, g, p]) for (g, p), count in ranked
        )

    missed: list[tuple[str, int]] = []
    oov_seen: Counter[str] = Counter()
    if dictionary is not None:
        from cws_bench.text.dictionary import Dictionary

        if isinstance(dictionary, Dictionary):
            dictionary = dictionary.words  # its own test, without a Python call per word
        contains = getattr(dictionary, "__contains__", None) or (lambda w: w in dictionary)
        known = np.fromiter(map(contains, gold_words), dtype=bool, count=len(gold_words))
        oov_seen = Counter(compress(gold_words, (~known).tolist()))
        oov_missed = Counter(compress(gold_words, (~known & ~aligned.gold_hit).tolist()))
        missed = nsmallest(top, oov_missed.items(), key=lambda item: (-item[1], item[0]))
    by_length_gold = np.bincount(aligned.gold_lengths)
    by_length_correct = np.bincount(
        aligned.gold_lengths[aligned.gold_hit], minlength=len(by_length_gold)
    )
    return ErrorAnalysis(
        splits=most_common("split"),
        merges=most_common("merge"),
        crossings=most_common("cross"),
        missed_oov=tuple(MissedWord(word, count, oov_seen[word]) for word, count in missed),
        recall_by_length=tuple(
            LengthRecall(length, int(by_length_gold[length]), int(by_length_correct[length]))
            for length in np.flatnonzero(by_length_gold).tolist()
        ),
        distinct={kind: len(counter) for kind, counter in found.items()},
    )
