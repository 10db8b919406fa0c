"""Precision, recall and F-beta from counts: the one function every count-based scorer uses.

It lives in its own small module, re-exported by
:mod:`cws_bench.metrics.classification`, so that the segmentation scorer
(``cws-bench score``, whose start-up time is measured) imports it without the
rest of the classification metrics.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from cws_bench.metrics.undefined import ZeroDivision, check_zero_division, warn_undefined

__all__ = ["PrecisionRecallF", "precision_recall_fscore_from_counts"]


class PrecisionRecallF(NamedTuple):
    """Precision, recall and F-beta of one set of counts."""

    precision: float
    recall: float
    fscore: float

    def to_dict(self) -> dict[str, float]:
        """The three scores by name."""
        return self._asdict()


def _ratio(numerator: int, denominator: int, zero_division: ZeroDivision, what: str) -> float:
    if denominator:
        return numerator / denominator
    value = check_zero_division(zero_division)
    if zero_division == "warn":
        warn_undefined(f"{what} is ill-defined (zero denominator); set to 0.0", stacklevel=4)
    return value


def precision_recall_fscore_from_counts(
    true_positives: int,
    predicted_positives: int,
    actual_positives: int,
    *,
    beta: float = 1.0,
    zero_division: ZeroDivision = "warn",
) -> PrecisionRecallF:
    """Precision, recall and F-beta from counts.

    ``precision = tp / predicted``, ``recall = tp / actual``, and F-beta is
    written in raw counts, ``(1 + b²)·tp / (b²·actual + predicted)``, so that
    F1 of 3 correct out of 4 gold and 5 predicted is exactly ``6 / 9``
    (going through P and R would round twice). As in scikit-learn, beta = 0
    gives precision and beta = inf gives recall.

    Args:
        true_positives: items both predicted and actual (tp).
        predicted_positives: items predicted (tp + fp).
        actual_positives: items actually positive (tp + fn).
        beta: weight of recall against precision; 1 gives F1.
        zero_division: value for a metric whose denominator is zero, as in
            scikit-learn: "warn" (0.0 with an UndefinedMetricWarning), 0.0,
            1.0 or nan. F-beta is undefined only when tp + fp + fn == 0.

    Returns:
        A PrecisionRecallF named tuple.

    Raises:
        ValueError: beta is negative or nan, or the counts are inconsistent.

    Example:
        >>> precision_recall_fscore_from_counts(3, 5, 4)
        PrecisionRecallF(precision=0.6, recall=0.75, fscore=0.6666666666666666)
        >>> precision_recall_fscore_from_counts(0, 0, 0, zero_division=0.0)
        PrecisionRecallF(precision=0.0, recall=0.0, fscore=0.0)
    """
    if beta < 0 or math.isnan(beta):
        raise ValueError(f"beta must be >= 0, got {beta!r}")
    if not 0 <= true_positives <= min(predicted_positives, actual_positives):
        raise ValueError(
            f"counts are inconsistent: tp={true_positives}, predicted={predicted_positives}, "
            f"actual={actual_positives} (need 0 <= tp <= predicted and tp <= actual)"
        )
    check_zero_division(zero_division)
    precision = _ratio(true_positives, predicted_positives, zero_division, "precision")
    recall = _ratio(true_positives, actual_positives, zero_division, "recall")
    if math.isinf(beta):
        return PrecisionRecallF(precision, recall, recall)
    beta2 = beta * beta
    denominator = beta2 * actual_positives + predicted_positives
    if denominator:
        fscore = (1 + beta2) * true_positives / denominator
    else:
        fscore = _ratio(0, 0, zero_division, "F-score")
    return PrecisionRecallF(precision, recall, fscore)
