"""A and B scored against a gold segmentation, for a diff: each side's scores in one
streamed pass (:class:`GoldScores`), and the paired bootstrap tests over sentences of the
scores in :data:`TESTED_METRICS` (:class:`GoldComparison`).
"""

from __future__ import annotations

from array import array
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cws_bench.regression.changes import OUTCOMES
from cws_bench.regression.line_diff import sentence_of
from cws_bench.score_registry import compared_scores

if TYPE_CHECKING:
    from cws_bench.metrics.significance import PairedTestResult
    from cws_bench.text.dictionary import Dictionary

__all__ = ["TESTED_METRICS", "GoldComparison", "GoldScores"]

TESTED_METRICS = ("precision", "recall", "f1")
"""The scores compared by a paired bootstrap test (the others are reported without one)."""


@dataclass(frozen=True)
class GoldComparison:
    """A and B scored against a gold segmentation.

    Attributes:
        a_scores, b_scores: :meth:`cws_bench.scoring.ScoreResult.to_dict` of A and of B.
        tests: paired bootstrap test of A against B per metric of
            :data:`TESTED_METRICS`: ``estimate_a`` is A's score, ``estimate_b``
            B's, and the test's ``difference`` A's minus B's (the two-sided
            p-value is the same either way round; :meth:`difference` gives
            B's minus A's); empty when no sentence was scored.
        outcomes: changes by outcome (:data:`~cws_bench.regression.changes.OUTCOMES`).
    """

    a_scores: dict[str, Any]
    b_scores: dict[str, Any]
    tests: dict[str, PairedTestResult]
    outcomes: dict[str, int]

    @property
    def correct_change(self) -> int:
        """The net change in correct words, B's minus A's."""
        return self.b_scores["correct_words"] - self.a_scores["correct_words"]

    def difference(self, metric: str) -> float | None:
        """B's score minus A's (None when undefined: OOV recall without a dictionary)."""
        a, b = self.a_scores.get(metric), self.b_scores.get(metric)
        return None if a is None or b is None else b - a

    def to_dict(self) -> dict[str, Any]:
        return {
            "outcomes": dict(self.outcomes),
            "correct_words": {
                "a": self.a_scores["correct_words"],
                "b": self.b_scores["correct_words"],
                "change": self.correct_change,
            },
            "scores": {
                metric: {
                    "a": self.a_scores.get(metric),
                    "b": self.b_scores.get(metric),
                    "difference": self.difference(metric),
                    "p_value": self.tests[metric].p_value if metric in self.tests else None,
                }
                for metric in (s.name for s in compared_scores())
            },
            "tests": {metric: test.to_dict() for metric, test in self.tests.items()},
            "a": self.a_scores,
            "b": self.b_scores,
        }


class GoldScores:
    """A and B scored against the gold in one pass (:class:`SegmentationMetric`), with the
    rows of the paired tests (:mod:`cws_bench.scoring.per_sentence`) kept as arrays."""

    CHUNK = 4096
    """Lines scored at once (as score_sentences scores them)..."""
    CHUNK_CHARACTERS = 2**23
    """...or fewer when they are long."""

    def __init__(self, words: Dictionary | None) -> None:
        from cws_bench.scoring.streaming import SegmentationMetric

        self.metrics = [SegmentationMetric(words, per_sentence=True) for _ in "ab"]
        # (correct, predicted, gold) of each sentence, as the floats the bootstrap takes
        self.rows = [array("d") for _ in "ab"]
        self.pending: tuple[list[str], list[str], list[str]] = ([], [], [])
        self.pending_characters = 0

    def add(self, gold: str, a: str, b: str) -> None:
        for lines, line in zip(self.pending, (gold, a, b)):
            lines.append(line)
        self.pending_characters += len(gold) + len(a) + len(b)
        if len(self.pending[0]) >= self.CHUNK or self.pending_characters >= self.CHUNK_CHARACTERS:
            self.flush()

    def flush(self) -> None:
        gold, *preds = self.pending
        for metric, pred, rows in zip(self.metrics, preds, self.rows):
            metric.add_batch(predictions=map(sentence_of, pred), references=map(sentence_of, gold))
            for row in metric.take_rows():
                rows.extend(row)
        for lines in self.pending:
            lines.clear()
        self.pending_characters = 0

    def comparison(
        self, outcomes: Counter[str], names: tuple[str, str], *, seed: int, resamples: int
    ) -> tuple[GoldComparison, list[str]]:
        """The comparison, and the scorer's warnings (each naming its side)."""
        import numpy as np

        from cws_bench.scoring.per_sentence import paired_tests

        self.flush()
        a_result, b_result = (metric.compute() for metric in self.metrics)
        a_rows, b_rows = (
            np.frombuffer(rows, dtype=np.float64).reshape(-1, 3) for rows in self.rows
        )
        warnings = [f"{names[0]}: {warning}" for warning in a_result.warnings]
        warnings += [f"{names[1]}: {warning}" for warning in b_result.warnings]
        comparison = GoldComparison(
            a_scores=a_result.to_dict(),
            b_scores=b_result.to_dict(),
            # paired bootstrap tests of A against B over sentences (none: no sentence scored)
            tests=paired_tests(a_rows, b_rows, seed=seed, resamples=resamples)
            if len(a_rows)
            else {},
            outcomes={outcome: outcomes[outcome] for outcome in OUTCOMES},
        )
        return comparison, warnings
