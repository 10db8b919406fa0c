"""Scores from summed counts: the score type every counting method produces.

:func:`score_counts` turns the interval method's :class:`SegCounts` into a
:class:`SegScores` (P/R/F through
:func:`cws_bench.metrics.counts.precision_recall_fscore_from_counts`); the
``sighan`` method turns its own counts into the same type.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from cws_bench.metrics.counts import precision_recall_fscore_from_counts
from cws_bench.score_registry import SCORES

if TYPE_CHECKING:
    from cws_bench.scoring.counts import SegCounts

__all__ = ["SegScores", "score_counts", "word_scores"]


@dataclass(frozen=True, slots=True)
class SegScores:
    """Scores of one set of counts, as fractions in [0, 1].

    OOV figures are None when no dictionary was given (absent, not zero).
    ``extra`` holds the registered scores that are no field here
    (:data:`cws_bench.score_registry.SCORES` rows with a ``compute``), by name.
    """

    precision: float
    recall: float
    f1: float
    fbeta: float
    beta: float
    oov_rate: float | None
    oov_recall: float | None
    iv_recall: float | None
    boundary_precision: float
    boundary_recall: float
    boundary_f1: float
    extra: Mapping[str, float | None] = field(default_factory=dict)


def _ratio(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


def word_scores(
    correct: int,
    pred: int,
    gold: int,
    *,
    beta: float,
    oov: tuple[float | None, float | None, float | None] = (None, None, None),
    boundaries: tuple[float, float, float] = (0.0, 0.0, 0.0),
    extra: Mapping[str, float | None] | None = None,
) -> SegScores:
    """Scores of word counts (P, R, F and F-beta: 0.0 on a zero denominator), with the
    ``(oov_rate, oov_recall, iv_recall)`` and boundary P/R/F given: what every method's
    scores are made of.

    >>> s = word_scores(3, 5, 4, beta=2.0)
    >>> s.precision, s.recall, round(s.fbeta, 4), s.oov_recall
    (0.6, 0.75, 0.7143, None)
    """
    words = precision_recall_fscore_from_counts(correct, pred, gold, zero_division=0.0)
    fbeta = (
        words.fscore
        if beta == 1.0
        else precision_recall_fscore_from_counts(
            correct, pred, gold, beta=beta, zero_division=0.0
        ).fscore
    )
    return SegScores(
        words.precision, words.recall, words.fscore, fbeta, beta, *oov, *boundaries, extra or {}
    )


def score_counts(counts: SegCounts, *, has_dictionary: bool, beta: float = 1.0) -> SegScores:
    """Compute scores from counts, never raising on a zero denominator.

    Precision, recall and F give 0.0 when their denominator is zero. The OOV
    figures are None without a dictionary, and None when undefined with one:
    OOV recall when the gold has no OOV word, IV recall when it has no IV
    word, the OOV rate when it has no word.

    >>> from cws_bench.scoring.counts import SegCounts
    >>> s = score_counts(SegCounts(gold=4, pred=5, correct=3), has_dictionary=False)
    >>> s.precision, s.recall, s.f1, s.oov_recall
    (0.6, 0.75, 0.6666666666666666, None)
    >>> s = score_counts(SegCounts(gold=4, pred=5, correct=3), has_dictionary=True)
    >>> s.oov_rate, s.oov_recall, s.iv_recall
    (0.0, None, 0.75)
    """
    bounds = precision_recall_fscore_from_counts(
        counts.correct_boundaries,
        counts.pred_boundaries,
        counts.gold_boundaries,
        zero_division=0.0,
    )
    oov: tuple[float | None, float | None, float | None] = (None, None, None)
    if has_dictionary:
        # A rate with nothing to count is undefined (None), not 0: the SIGHAN
        # script prints "--" when the gold has no OOV (or no IV) word.
        oov = (
            _ratio(counts.oov_gold, counts.gold),
            _ratio(counts.oov_correct, counts.oov_gold),
            _ratio(counts.correct - counts.oov_correct, counts.gold - counts.oov_gold),
        )
    return word_scores(
        counts.correct,
        counts.pred,
        counts.gold,
        beta=beta,
        oov=oov,
        boundaries=(bounds.precision, bounds.recall, bounds.fscore),
        extra={
            s.name: None if s.needs_dictionary and not has_dictionary else s.compute(counts)
            for s in SCORES.values()
            if s.compute is not None
        },
    )
