"""The score type every counting method produces, one layer below them.

``scoring`` (the interval method) and ``sighan`` (the official script's
word-sequence diff) both turn their counts into a :class:`SegScores`; it
lives here so that neither imports the other for it.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SegScores"]


@dataclass(frozen=True, slots=True)
class SegScores:
    """Scores of one set of counts, as fractions in [0, 1].

    OOV figures are None when no dictionary was given (absent, not zero).
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
