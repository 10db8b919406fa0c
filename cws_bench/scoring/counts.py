"""Additive segmentation counts and the reference counter of one sentence.

:class:`AdditiveCounts` is the base of every counts class (frozen dataclasses of
integers that add up: sentence -> file -> shard -> cluster); :class:`SegCounts`
are the interval method's counts, :func:`count_sentence` the reference counter of
one sentence (the compiled kernel's twin, tests/test_kernel.py).

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True, slots=True)
... class Tally(AdditiveCounts):
...     right: int = 0
...     wrong: int = 0
>>> Tally(1, 2) + Tally(3, 4)
Tally(right=4, wrong=6)
>>> sum([Tally(1, 0), Tally(0, 1)], Tally()).to_dict()
{'right': 1, 'wrong': 1}
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, TypeVar

from cws_bench.scoring.spans import align_chars, project_spans, to_spans

if TYPE_CHECKING:
    from cws_bench.text.dictionary import Dictionary

__all__ = ["COUNT_FIELDS", "ERROR_KINDS", "AdditiveCounts", "SegCounts", "count_sentence"]

C = TypeVar("C", bound="AdditiveCounts")


class AdditiveCounts:
    """Mixin for ``@dataclass(frozen=True, slots=True)`` classes whose fields are ints."""

    __slots__ = ()

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        """The count names in field order."""
        return tuple(f.name for f in fields(cls))  # type: ignore[arg-type]

    def __add__(self: C, other: Any) -> C:
        if type(other) is not type(self):
            return NotImplemented
        return type(self)(*map(int.__add__, self.astuple(), other.astuple()))

    def astuple(self) -> tuple[int, ...]:
        """The counts in field order."""
        return tuple(getattr(self, name) for name in self.field_names())

    def to_dict(self) -> dict[str, int]:
        """The counts as a dict in field order."""
        return dict(zip(self.field_names(), self.astuple()))


@dataclass(frozen=True, slots=True)
class SegCounts(AdditiveCounts):
    """Additive counts of a segmentation against its gold standard.

    ``sum(per_sentence, SegCounts())`` totals a file, a shard or a cluster.
    Counts never hold derived values; scores come from :func:`score_counts`.

    Attributes:
        sentences: gold lines scored (empty gold lines are skipped).
        characters: gold characters in the scored lines.
        gold, pred, correct: gold words, predicted words, predicted words
            whose interval is a gold word's.
        oov_gold, oov_correct: gold words not in the dictionary, and how many
            of them were found (zero when there is no dictionary).
        gold_boundaries, pred_boundaries, correct_boundaries: word boundaries
            strictly inside a sentence (a decision between two characters).
        split_gold, split_pred: gold words predicted as several words, and the
            predicted pieces they became.
        merge_gold, merge_pred: gold words predicted inside one longer word,
            and the predicted words that merged them.
        cross_gold, cross_pred, cross_regions: words in regions where the two
            segmentations cross (neither nests in the other), and the regions.
        mismatched_lines: lines whose gold and predicted characters differ,
            scored through a character alignment (not in the error kinds).
        skipped_lines: empty gold lines.
    """

    sentences: int = 0
    characters: int = 0
    gold: int = 0
    pred: int = 0
    correct: int = 0
    oov_gold: int = 0
    oov_correct: int = 0
    gold_boundaries: int = 0
    pred_boundaries: int = 0
    correct_boundaries: int = 0
    split_gold: int = 0
    split_pred: int = 0
    merge_gold: int = 0
    merge_pred: int = 0
    cross_gold: int = 0
    cross_pred: int = 0
    cross_regions: int = 0
    mismatched_lines: int = 0
    skipped_lines: int = 0


COUNT_FIELDS: tuple[str, ...] = SegCounts.field_names()
ERROR_KINDS: tuple[str, ...] = COUNT_FIELDS[
    COUNT_FIELDS.index("split_gold") : COUNT_FIELDS.index("mismatched_lines")
]
"""The error kinds' counts (split, merge, cross), in field order."""


def _classify_blocks(gold_ends: set[int], pred_ends: set[int]) -> dict[str, int]:
    """Error kinds from the blocks between boundaries both sides share."""
    kinds = dict.fromkeys(ERROR_KINDS, 0)
    in_gold = in_pred = 0
    for end in sorted(gold_ends | pred_ends):
        in_gold += end in gold_ends
        in_pred += end in pred_ends
        if end in gold_ends and end in pred_ends:
            if in_gold == 1 and in_pred > 1:
                kinds["split_gold"] += 1
                kinds["split_pred"] += in_pred
            elif in_pred == 1 and in_gold > 1:
                kinds["merge_gold"] += in_gold
                kinds["merge_pred"] += 1
            elif in_gold > 1:
                kinds["cross_gold"] += in_gold
                kinds["cross_pred"] += in_pred
                kinds["cross_regions"] += 1
            in_gold = in_pred = 0
    return kinds


def count_sentence(
    gold_words: Sequence[str],
    pred_words: Sequence[str],
    dictionary: Dictionary | Iterable[str] | None = None,
) -> SegCounts:
    """Count one sentence: the reference implementation, on interval sets.

    When the two texts differ, predicted words are mapped onto the gold
    characters through a minimal edit alignment and only words whose aligned
    intervals agree are correct; such a line adds to ``mismatched_lines`` and
    not to the error kinds.

    >>> count_sentence(["我们", "是"], ["我", "们", "是"]).split_gold
    1
    >>> c = count_sentence(["“", "远望号", "”"], ["远望号", "”"])
    >>> (c.gold, c.pred, c.correct, c.mismatched_lines)
    (3, 2, 2, 1)
    """
    gold_words = [w for w in gold_words if w]
    pred_words = [w for w in pred_words if w]
    if not gold_words:
        return SegCounts(skipped_lines=1)
    gold_spans = to_spans(gold_words)
    pred_spans = to_spans(pred_words)
    gold_text = "".join(gold_words)
    pred_text = "".join(pred_words)
    same_text = gold_text == pred_text
    pred_internal = {end for _, end in pred_spans[:-1]}
    if not same_text:
        alignment = align_chars(gold_text, pred_text)
        pred_spans = project_spans(pred_words, alignment)
        pred_internal = {alignment.map_boundary(end) for end in pred_internal}
    pred_set = set(pred_spans)
    correct_flags = [span in pred_set for span in gold_spans]
    oov_gold = oov_correct = 0
    if dictionary is not None:
        for word, found in zip(gold_words, correct_flags):
            if word not in dictionary:
                oov_gold += 1
                oov_correct += found
    gold_ends = {end for _, end in gold_spans}
    gold_internal = gold_ends - {len(gold_text)}
    kinds = {}
    if same_text:
        kinds = _classify_blocks(gold_ends, {end for _, end in pred_spans})
    return SegCounts(
        sentences=1,
        characters=len(gold_text),
        gold=len(gold_words),
        pred=len(pred_words),
        correct=sum(correct_flags),
        oov_gold=oov_gold,
        oov_correct=oov_correct,
        gold_boundaries=len(gold_internal),
        pred_boundaries=max(len(pred_words) - 1, 0),
        correct_boundaries=len(gold_internal & pred_internal),
        mismatched_lines=0 if same_text else 1,
        **kinds,
    )
