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
from itertools import accumulate
from typing import Any

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


def clip_words(words: Sequence[str], start: int, end: int, window: int = EXAMPLE_WORDS) -> str:
    """``words[start:end]`` with up to ``window`` words on each side, joined by spaces.

    An ellipsis word marks each side that was cut, so an example sentence stays
    short however long its line is.

    >>> clip_words(list("abcdefg"), 3, 4, window=1)
    '… c d e …'
    >>> clip_words(["a", "b"], 0, 1)
    'a b'
    """
    low, high = max(0, start - window), min(len(words), end + window)
    parts = list(words[low:high])
    if low > 0:
        parts.insert(0, ELLIPSIS)
    if high < len(words):
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
) -> ErrorAnalysis:
    """Collect the errors of a segmentation, sentence by sentence.

    Args:
        gold: gold sentences (lists of words).
        pred: predicted sentences, paired with ``gold`` in order.
        dictionary: words in vocabulary (anything supporting ``in``), or None
            (then no OOV list).
        top: how many of the most frequent patterns and words to keep.

    Returns:
        An ErrorAnalysis; ``distinct`` counts the distinct patterns of each kind.
    """
    found: dict[str, Counter[tuple[tuple[str, ...], tuple[str, ...]]]] = {
        "split": Counter(),
        "merge": Counter(),
        "cross": Counter(),
    }
    first: dict[tuple[str, tuple[str, ...], tuple[str, ...]], tuple[int, str]] = {}
    oov_seen: Counter[str] = Counter()
    oov_missed: Counter[str] = Counter()
    by_length_gold: Counter[int] = Counter()
    by_length_correct: Counter[int] = Counter()
    for line, (gold_words, pred_words) in enumerate(zip(gold, pred), start=1):
        gold_words = [w for w in gold_words if w]
        pred_words = [w for w in pred_words if w]
        if not gold_words or "".join(gold_words) != "".join(pred_words):
            continue
        position = 0  # index of the block's first word among the gold words
        for gold_block, pred_block in shared_blocks(gold_words, pred_words):
            at, position = position, position + len(gold_block)
            kind = block_kind(gold_block, pred_block)
            correct = kind is None
            for word in gold_block:
                by_length_gold[len(word)] += 1
                by_length_correct[len(word)] += correct
                if dictionary is not None and word not in dictionary:
                    oov_seen[word] += 1
                    oov_missed[word] += not correct
            if kind is None:
                continue
            found[kind][gold_block, pred_block] += 1
            if (kind, gold_block, pred_block) not in first:
                # A window of the sentence, not a copy of it: one long line with many
                # errors would otherwise cost its length times its number of errors.
                example = clip_words(gold_words, at, at + len(gold_block))
                first[kind, gold_block, pred_block] = (line, example)

    def most_common(kind: str) -> tuple[ErrorPattern, ...]:
        # Ties broken by the words, so the report does not depend on input order.
        ranked = sorted(found[kind].items(), key=lambda item: (-item[1], item[0]))[:top]
        return tuple(
            ErrorPattern(kind, g, p, count, *first[kind, g, p]) for (g, p), count in ranked
        )

    missed = sorted(
        ((word, count) for word, count in oov_missed.items() if count),
        key=lambda item: (-item[1], item[0]),
    )[:top]
    return ErrorAnalysis(
        splits=most_common("split"),
        merges=most_common("merge"),
        crossings=most_common("cross"),
        missed_oov=tuple(MissedWord(word, count, oov_seen[word]) for word, count in missed),
        recall_by_length=tuple(
            LengthRecall(length, by_length_gold[length], by_length_correct[length])
            for length in sorted(by_length_gold)
        ),
        distinct={kind: len(counter) for kind, counter in found.items()},
    )
