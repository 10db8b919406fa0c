"""One line pair's changes: the blocks between the boundaries A and B share, each a
:class:`~cws_bench.regression.changes.Change` (with a gold, what it did to agreement with it).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from cws_bench.analysis.patterns import EXAMPLE_WORDS, block_kind, clip_words, shared_blocks
from cws_bench.regression.changes import Change, LineChanges, LineDiff, outcome_of
from cws_bench.scoring.spans import align_chars, project_spans, to_spans
from cws_bench.text.joined import LONG_SENTENCE, JoinedWords, is_joined_line

if TYPE_CHECKING:
    import numpy as np

    from cws_bench.analysis.alignment import Words

__all__ = [
    "LONG_LINE",
    "example_of",
    "is_long",
    "joined",
    "line_words",
    "long_same_text_line",
    "same_text_line",
    "sentence_of",
    "text_differs_line",
]

LONG_LINE = LONG_SENTENCE
"""Words of A from which a changed line whose text A and B share is diffed with numpy
(:func:`long_same_text_line`): its blocks found by ``searchsorted`` over the words' end
offsets, its words kept as one text, its changes as arrays (:class:`LineChanges`). A
line of millions of words then costs a few bytes a word, and time linear in its length."""


def joined(words: Iterable[str]) -> str:
    """A sentence as one string, its non-empty words separated by one space."""
    if isinstance(words, JoinedWords):
        return words.line
    return " ".join(word for word in words if word)


def line_words(line: str) -> list[str]:
    """The inverse of :func:`joined`."""
    return line.split(" ") if line else []


def example_of(number: int, words: Sequence[str], index: int, size: int) -> tuple[int, str, int]:
    """(line, sentence, index) of a change's example, the sentence clipped around the change."""
    low = max(0, index - EXAMPLE_WORDS)
    return number, clip_words(words, index, index + size), index - low + (low > 0)


def _gold_spans(a_words: Sequence[str], gold_words: Sequence[str]) -> set[tuple[int, int]]:
    """The gold words' intervals on A's characters (aligned, as the scorer does, if they differ)."""
    a_text, gold_text = "".join(a_words), "".join(gold_words)
    if a_text == gold_text:
        return set(to_spans(gold_words))
    return set(project_spans(gold_words, align_chars(a_text, gold_text)))


def _found(words: Sequence[str], start: int, spans: set[tuple[int, int]]) -> int:
    """How many of ``words``, placed from offset ``start``, are among ``spans``."""
    return sum((start + s, start + e) in spans for s, e in to_spans(words))


def same_text_line(
    number: int, a: list[str], b: list[str], gold: list[str] | None
) -> tuple[LineDiff, list[Change]]:
    """The changed blocks of a line whose text A and B share."""
    gold_spans = _gold_spans(a, gold) if gold else None
    changes: list[Change] = []
    a_changed: list[bool] = []
    b_changed: list[bool] = []
    start = a_index = b_index = 0
    for a_block, b_block in shared_blocks(a, b):
        kind = block_kind(a_block, b_block)
        width = sum(map(len, a_block))
        a_changed.extend([kind is not None] * len(a_block))
        b_changed.extend([kind is not None] * len(b_block))
        if kind is not None:
            delta = 0
            outcome = None
            if gold_spans is not None:
                delta = _found(b_block, start, gold_spans) - _found(a_block, start, gold_spans)
                outcome = outcome_of(delta)
            changes.append(
                Change(number, kind, a_block, b_block, a_index, b_index, start, delta, outcome)
            )
        start += width
        a_index += len(a_block)
        b_index += len(b_block)
    line = LineDiff(
        number,
        tuple(a),
        tuple(b),
        None if gold is None else tuple(gold),
        tuple(changes),
        False,
        tuple(a_changed),
        tuple(b_changed),
    )
    return line, changes


def _line_ends(line: str) -> tuple[str, np.ndarray]:
    """The characters of a line of words joined by single spaces, and each word's end
    offset in them (found with numpy: no word is made).

    >>> text, ends = _line_ends("结婚 的 和尚未")
    >>> text, ends.tolist()
    ('结婚的和尚未', [2, 3, 6])
    """
    import numpy as np

    codes = np.frombuffer(line.encode("utf-32-le", "surrogatepass"), dtype="<u4")
    spaces = np.flatnonzero(codes == ord(" "))
    del codes
    ends = np.empty(len(spaces) + 1, dtype=np.int64)
    ends[:-1] = spaces - np.arange(len(spaces))
    ends[-1] = len(line) - len(spaces)
    return line.replace(" ", ""), ends


def is_long(a_line: str, b_line: str) -> bool:
    """Whether a changed line whose text A and B share is diffed with arrays."""
    return a_line.count(" ") + 1 >= LONG_LINE and is_joined_line(a_line) and is_joined_line(b_line)


def _gold_hits(a: Words, gold_line: str) -> np.ndarray:
    """Whether each of ``a``'s words is a gold word (the same interval of A's characters;
    aligned as the scorer aligns them when the gold's characters differ)."""
    import numpy as np

    from cws_bench.analysis.alignment import hits

    starts = a.starts(np.arange(len(a)))
    if is_joined_line(gold_line) and gold_line.replace(" ", "") == a.text:
        _, gold_ends = _line_ends(gold_line)
        gold_starts = np.concatenate(([0], gold_ends[:-1]))
        return hits(starts, a.ends, gold_starts, gold_ends)
    spans = _gold_spans(list(a), line_words(gold_line))
    return np.fromiter(
        ((s, e) in spans for s, e in zip(starts.tolist(), a.ends.tolist())),
        dtype=bool,
        count=len(a),
    )


def long_same_text_line(number: int, a_line: str, b_line: str, gold_line: str | None) -> LineDiff:
    """:func:`same_text_line` of a long line, in numpy: time and memory linear in its length."""
    import numpy as np

    from cws_bench.analysis.alignment import Words, shared_block_arrays

    text, a_ends = _line_ends(a_line)
    _, b_ends = _line_ends(b_line)
    a, b = Words(text, a_ends), Words(text, b_ends)
    a_first, a_count, b_first, b_count = shared_block_arrays(a_ends, b_ends)
    changed = (a_count != 1) | (b_count != 1)
    a_changed, b_changed = np.repeat(changed, a_count), np.repeat(changed, b_count)
    chosen = np.flatnonzero(changed)
    a_first, a_count = a_first[chosen], a_count[chosen]
    b_first, b_count = b_first[chosen], b_count[chosen]
    kinds = np.where(a_count == 1, 0, np.where(b_count == 1, 1, 2)).astype(np.int8)
    delta = None
    gold: Sequence[str] | None = None
    if gold_line is not None:
        gold = (
            JoinedWords.from_line(gold_line) if is_joined_line(gold_line) else line_words(gold_line)
        )
        if gold:  # as a short line: an empty gold line gives no outcome
            a_hits = np.concatenate(([0], np.cumsum(_gold_hits(a, gold_line))))
            b_hits = np.concatenate(([0], np.cumsum(_gold_hits(b, gold_line))))
            delta = (b_hits[b_first + b_count] - b_hits[b_first]) - (
                a_hits[a_first + a_count] - a_hits[a_first]
            )
    changes = LineChanges(number, a, b, kinds, a_first, a_count, b_first, b_count, delta)
    flags: Any = (a_changed, b_changed)  # numpy arrays of booleans, read as sequences
    return LineDiff(number, a, b, gold, changes, False, *flags)


def text_differs_line(number: int, a: list[str], b: list[str], gold: list[str] | None) -> LineDiff:
    """A line whose characters differ: B's words matched to A's through a character alignment."""
    alignment = align_chars("".join(a), "".join(b))
    a_spans = to_spans(a)
    b_mapped = [alignment.map_span(start, end) for start, end in to_spans(b)]
    a_set = set(a_spans)
    b_set = {span for span in b_mapped if span is not None}
    return LineDiff(
        number,
        tuple(a),
        tuple(b),
        None if gold is None else tuple(gold),
        (),
        True,
        tuple(span not in b_set for span in a_spans),
        tuple(span is None or span not in a_set for span in b_mapped),
    )


def sentence_of(line: str) -> Sequence[str]:
    """A line's words: a long line of words joined by single spaces as a JoinedWords (its
    words are not made), else the list of them."""
    if len(line) >= LONG_LINE and line.count(" ") + 1 >= LONG_LINE and is_joined_line(line):
        return JoinedWords(line, line.count(" ") + 1)
    return line_words(line)
