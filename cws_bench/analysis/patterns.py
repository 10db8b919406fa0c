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
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, fields
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
    "most_common",
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
        return {**asdict(self), "gold": list(self.gold), "pred": list(self.pred)}


@dataclass(frozen=True, slots=True)
class MissedWord:
    """An out-of-vocabulary gold word and how often it was missed."""

    word: str
    missed: int
    occurrences: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


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
        return {**asdict(self), "recall": self.recall}


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
        """JSON-safe dict with a stable key order (every field but ``distinct``, the last, holds
        rows)."""
        rows = {f.name: [row.to_dict() for row in getattr(self, f.name)] for f in fields(self)[:-1]}
        return {**rows, "distinct": dict(self.distinct)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ErrorAnalysis:
        """Rebuild an analysis from :meth:`to_dict` output (e.g. a cached result)."""

        def patterns(items: list[dict[str, Any]]) -> tuple[ErrorPattern, ...]:
            return tuple(
                ErrorPattern(**{**p, "gold": tuple(p["gold"]), "pred": tuple(p["pred"])})
                for p in items
            )

        return cls(
            **{kind: patterns(data[kind]) for kind in ("splits", "merges", "crossings")},
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
    gold_words = aligned.gold_words
    found, distinct = _ranked_patterns(aligned, top)
    sentence_ends = [*aligned.gold_first[1:].tolist(), len(gold_words)]

    def pattern(kind: str, g: int, m: int, key: Any, count: int) -> ErrorPattern:
        # The example is made for the patterns kept only, a window of the sentence.
        sentence = int(aligned.gold_sentence[g])
        begin = int(aligned.gold_first[sentence])
        example = clip_words(gold_words, g, g + m, first=begin, last=sentence_ends[sentence])
        gold_block, pred_block = _pattern_words(key)
        return ErrorPattern(
            kind, gold_block, pred_block, count, int(aligned.lines[sentence]), example
        )

    patterns = {
        kind: tuple(pattern(kind, g, m, key, count) for key, count, g, m in found[kind])
        for kind in _KINDS
    }
    missed = _missed_words(aligned, dictionary, top) if dictionary is not None else []
    by_length_gold = np.bincount(aligned.gold_lengths)
    by_length_correct = np.bincount(
        aligned.gold_lengths[aligned.gold_hit], minlength=len(by_length_gold)
    )
    return ErrorAnalysis(
        splits=patterns["split"],
        merges=patterns["merge"],
        crossings=patterns["cross"],
        missed_oov=tuple(missed),
        recall_by_length=tuple(
            LengthRecall(length, int(by_length_gold[length]), int(by_length_correct[length]))
            for length in np.flatnonzero(by_length_gold).tolist()
        ),
        distinct=distinct,
    )


_KINDS = ("split", "merge", "cross")

GROUP = 50_000
"""Error blocks (or OOV words) counted at once: the blocks are cut into groups by
their first character, so that no two groups share a pattern and only one group's
distinct patterns are held at a time (a line of millions of distinct errors stays
in bounded memory)."""

_END, _SEP = "\x00", "\x01"
"""The key of a pattern is its gold words joined by ``_SEP``, ``_END``, its predicted
words joined by ``_SEP``: one string per block, ordered as the (gold, pred) tuples
of words are (``_END`` < ``_SEP`` < any character of the text)."""


def _pattern_words(key: Any) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The (gold words, predicted words) of a pattern's key."""
    if isinstance(key, tuple):
        return key
    gold_part, pred_part = key.split(_END)
    return tuple(gold_part.split(_SEP)), tuple(pred_part.split(_SEP))


def _groups(first_codes: Any, size: int) -> list[Any]:
    """Indices (increasing) of the items of each group, grouped by their first character."""
    import numpy as np

    parts = max(1, -(-size // GROUP))
    if parts == 1:
        return [np.arange(size)]
    group = first_codes % parts
    order = np.argsort(group, kind="stable")
    bounds = np.searchsorted(group[order], np.arange(1, parts))
    return [part for part in np.split(order, bounds) if len(part)]


def _first_codes(text: str, starts: Any) -> Any:
    import numpy as np

    if not len(starts):
        return np.zeros(0, dtype=np.int64)
    codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")
    return codes[starts]  # a copy: the text's codes are freed


def _ranked_patterns(
    aligned: Aligned, top: int
) -> tuple[dict[str, list[tuple[Any, int, int, int]]], dict[str, int]]:
    """Per kind, the ``top`` most frequent patterns ``(key, count, first gold word, gold
    words)`` (ties broken by the words) and the number of distinct patterns."""
    import numpy as np

    gold_words, pred_words = aligned.gold_words, aligned.pred_words
    blocks = aligned.blocks()
    wrong = np.flatnonzero((blocks[1] != 1) | (blocks[3] != 1))
    gs, gc, ps, pc = (column[wrong] for column in blocks)
    del blocks, wrong  # a long line's arrays are freed before its patterns are counted
    kinds = np.where(gc == 1, 0, np.where(pc == 1, 1, 2)).astype(np.int8)
    text = aligned.text
    keyed = _END not in text and _SEP not in text
    if keyed:  # each word's offset in the words joined by _SEP: its start plus its index
        gold_joined, pred_joined = gold_words.joined(_SEP), pred_words.joined(_SEP)

        def columns(chosen: Any) -> tuple[Any, ...]:
            g, m, p, n = gs[chosen], gc[chosen], ps[chosen], pc[chosen]
            return (
                gold_words.starts(g) + g,
                aligned.gold_ends[g + m - 1] + g + m - 1,
                pred_words.starts(p) + p,
                aligned.pred_ends[p + n - 1] + p + n - 1,
            )

        first_codes = _first_codes(text, gold_words.starts(gs))
    else:  # the text holds _END or _SEP: the tuples of words themselves are the keys

        def columns(chosen: Any) -> tuple[Any, ...]:
            g, p = gs[chosen], ps[chosen]
            return g, g + gc[chosen], p, p + pc[chosen]

        first_codes = np.zeros(len(gs), dtype=np.int64)
    found: dict[str, list[tuple[Any, int, int, int]]] = {kind: [] for kind in _KINDS}
    distinct = dict.fromkeys(_KINDS, 0)
    for number, kind in enumerate(_KINDS):
        of_kind = np.flatnonzero(kinds == number)
        for group in _groups(first_codes[of_kind], len(of_kind)):
            chosen = of_kind[group]
            blocks = chosen.tolist()
            a, b, c, d = (column.tolist() for column in columns(chosen))
            if keyed:
                keys: list[Any] = [
                    gold_joined[w:x] + _END + pred_joined[y:z] for w, x, y, z in zip(a, b, c, d)
                ]
            else:
                keys = [
                    (tuple(gold_words[w:x]), tuple(pred_words[y:z]))
                    for w, x, y, z in zip(a, b, c, d)
                ]
            counts = Counter(keys)
            distinct[kind] += len(counts)
            for key, count in most_common(counts, top):
                block = blocks[keys.index(key)]  # the first occurrence
                found[kind].append((key, count, int(gs[block]), int(gc[block])))
        found[kind] = nsmallest(top, found[kind], key=lambda item: (-item[1], item[0]))
    return found, distinct


def most_common(counts: Mapping[Any, int], top: int) -> list[tuple[Any, int]]:
    """The ``top`` most common items of ``counts``, ties broken by the smaller key: what
    ``nsmallest(top, counts.items(), key=lambda i: (-i[1], i[0]))`` gives, with no Python
    call per item (most items of a long line's count are tied at the bottom)."""
    import numpy as np

    if top <= 0:
        return []
    if len(counts) <= top:
        return sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    values = np.fromiter(counts.values(), dtype=np.int64, count=len(counts))
    least = int(np.partition(values, len(values) - top)[len(values) - top])
    keys = list(counts)
    above = [(keys[i], int(values[i])) for i in np.flatnonzero(values > least).tolist()]
    tied = [keys[i] for i in np.flatnonzero(values == least).tolist()]
    ranked = sorted(above, key=lambda item: (-item[1], item[0]))
    return ranked + [(key, least) for key in nsmallest(top - len(ranked), tied)]


def _missed_words(aligned: Aligned, dictionary: Any, top: int) -> list[MissedWord]:
    """The ``top`` OOV gold words missed most often (ties broken by the word)."""
    import numpy as np

    from cws_bench.text.dictionary import Dictionary

    gold_words = aligned.gold_words
    if isinstance(dictionary, Dictionary):
        dictionary = dictionary.words  # its own test, without a Python call per word
    contains = getattr(dictionary, "__contains__", None) or (lambda w: w in dictionary)
    known = np.fromiter(map(contains, gold_words), dtype=bool, count=len(gold_words))
    oov = np.flatnonzero(~known)
    missed_mask = ~aligned.gold_hit[oov]
    text = aligned.text
    first_codes = _first_codes(text, gold_words.starts(oov))
    candidates: list[MissedWord] = []
    for group in _groups(first_codes, len(oov)):
        words = gold_words.take(oov[group])
        seen = Counter(words)
        missed = Counter(compress(words, missed_mask[group].tolist()))
        ranked = most_common(missed, top)
        candidates.extend(MissedWord(word, count, seen[word]) for word, count in ranked)
    return nsmallest(top, candidates, key=lambda m: (-m.missed, m.word))
