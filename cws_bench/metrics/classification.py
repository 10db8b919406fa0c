"""Classification metrics.

Precision, recall and F-beta here are computed from counts, so that any
caller with additive counts (the segmentation scorer sums them per sentence,
file and shard) gets the same numbers as from labels.
"""

from __future__ import annotations

import math
import warnings
from typing import Literal, NamedTuple

__all__ = [
    "PrecisionRecallF",
    "UndefinedMetricWarning",
    "precision_recall_fscore_from_counts",
]

ZeroDivision = Literal["warn"] | float


class UndefinedMetricWarning(UserWarning):
    """A metric was undefined (a zero denominator) and set to ``zero_division``."""


class PrecisionRecallF(NamedTuple):
    """Precision, recall and F-beta of one set of counts."""

    precision: float
    recall: float
    fscore: float


def _check_zero_division(zero_division: ZeroDivision) -> float:
    if zero_division == "warn":
        return 0.0
    if isinstance(zero_division, (int, float)) and (
        zero_division in (0.0, 1.0) or math.isnan(zero_division)
    ):
        return float(zero_division)
    raise ValueError(f'zero_division must be "warn", 0.0, 1.0 or nan, got {zero_division!r}')


def _ratio(numerator: int, denominator: int, zero_division: ZeroDivision, what: str) -> float:
    if denominator:
        return numerator / denominator
    value = _check_zero_division(zero_division)
    if zero_division == "warn":
        warnings.warn(
            f"{what} is ill-defined (zero denominator); set to 0.0",
            UndefinedMetricWarning,
            stacklevel=3,
        )
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
    (going through P and R would round twice).

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
    _check_zero_division(zero_division)
    precision = _ratio(true_positives, predicted_positives, zero_division, "precision")
    recall = _ratio(true_positives, actual_positives, zero_division, "recall")
    beta2 = beta * beta
    denominator = beta2 * actual_positives + predicted_positives
    if denominator:
        fscore = (1 + beta2) * true_positives / denominator
    else:
        fscore = _ratio(0, 0, zero_division, "F-score")
    return PrecisionRecallF(precision, recall, fscore)
