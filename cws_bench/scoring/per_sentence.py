"""Per-sentence statistics: the rows every resampling of a score goes through.

As sacrebleu's metrics resample segment statistics (``sacrebleu/metrics/base.py``),
confidence intervals and paired tests resample one row of word counts per scored
sentence (:data:`COLUMNS`), never the text: :func:`sentence_rows` makes the rows
of a :class:`~cws_bench.scoring.ScoreResult`, :func:`statistics` gives P, R and
F1 of summed rows; the bake-off, the regression baseline and ``diff`` use them.

Only scored sentences have a row: an empty gold line, which the scorer skips
(as the SIGHAN script does), would only dilute the resamples with zeros.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from operator import attrgetter
from typing import TYPE_CHECKING

from cws_bench.errors import CwsBenchError
from cws_bench.scoring.methods import get_method
from cws_bench.text.normalize import as_normalizer

if TYPE_CHECKING:
    import numpy as np

    from cws_bench.metrics.significance import PairedTestResult, Statistic
    from cws_bench.scoring import ScoreResult
    from cws_bench.scoring.counts import SegCounts

__all__ = [
    "COLUMNS",
    "Row",
    "column",
    "line_rows",
    "method_rows",
    "paired_tests",
    "sentence_rows",
    "statistics",
]

COLUMNS: tuple[tuple[str, str], ...] = (
    ("correct", "predicted words that are gold words (same character interval)"),
    ("pred", "predicted words"),
    ("gold", "gold words"),
)
"""The columns of a row, in order: (name, meaning); names are SegCounts fields."""

Row = tuple[int, int, int]
"""One scored sentence's (correct, predicted, gold) words."""


def column(name: str) -> int:
    """The index of a column by name.

    >>> column("correct"), column("pred"), column("gold")
    (0, 1, 2)
    """
    return [key for key, _ in COLUMNS].index(name)


def sentence_rows(result: ScoreResult) -> list[Row]:
    """One row per scored sentence of a result computed with ``per_line=True``.

    >>> from cws_bench.scoring import score_sentences
    >>> result = score_sentences([["结婚", "的"], [], ["和", "尚未"]],
    ...                          [["结婚", "的"], [], ["和尚", "未"]], per_line=True)
    >>> sentence_rows(result)
    [(2, 2, 2), (0, 2, 2)]

    Raises:
        ValueError: the result holds no per-line counts.
    """
    if result.lines is None:
        raise ValueError("the result holds no per-line counts: score with per_line=True")
    return line_rows(result.lines)


def method_rows(
    method: str,
    gold: Sequence[Sequence[str]],
    pred: Sequence[Sequence[str]],
    *,
    normalize: str | None = None,
) -> list[Row] | None:
    """One row per scored sentence as a counting method counts it, or None for ``interval``
    (its rows are the result's own: :func:`sentence_rows`).

    A method whose counts add up line by line (``sighan``:
    :func:`~cws_bench.scoring.sighan.count_sighan_line`) gives (matched, predicted,
    gold) words per line with gold words; a resample of these rows is the method
    run on the resampled sentences.

    >>> method_rows("sighan", [["结婚", "的"], [], ["和", "尚未"]],
    ...             [["结婚", "的"], ["x"], ["和尚", "未"]])
    [(2, 2, 2), (0, 2, 2)]

    Raises:
        CwsBenchError: a method whose counts are not per sentence.
    """
    counting = get_method(method, line_pairs=False)
    if not counting.has_sentence_rows:  # the interval counts are its counts
        return None
    if not counting.resamples_sentences:
        raise CwsBenchError(
            f"the {method} method has no per-sentence counts to resample",
            "use the interval or sighan method for intervals and paired tests",
        )
    normalizer = as_normalizer(normalize)
    rows = []
    for number, (gold_words, pred_words) in enumerate(zip(gold, pred), start=1):
        if not gold_words:
            continue
        gold_line, pred_line = " ".join(gold_words), " ".join(pred_words)
        if normalizer is not None:
            gold_line, pred_line = normalizer(gold_line), normalizer(pred_line)
        try:
            rows.append(counting.sentence_row(gold_line, pred_line))
        except CwsBenchError as e:  # (conll18: texts that differ are not scored)
            raise type(e)(f"line {number}: {e.message}", e.hint) from None
    return rows


def line_rows(lines: Iterable[tuple[int, SegCounts]]) -> list[Row]:
    """The rows of per-line counts, (line, counts) pairs as a result holds them: one per
    scored sentence (see :func:`sentence_rows`)."""
    row = attrgetter(*(name for name, _ in COLUMNS))
    return [row(c) for _, c in lines if c.sentences]


def statistics() -> dict[str, Statistic]:
    """Precision, recall and F1 as functions of summed rows (cws_bench.metrics.significance).

    >>> import numpy as np
    >>> {k: round(float(f(np.array([[3, 5, 4]]))[0]), 4) for k, f in statistics().items()}
    {'precision': 0.6, 'recall': 0.75, 'f1': 0.6667}
    """
    from cws_bench.metrics import significance

    correct, pred, gold = column("correct"), column("pred"), column("gold")
    return {
        "precision": significance.ratio_statistic(correct, pred),
        "recall": significance.ratio_statistic(correct, gold),
        "f1": significance.fscore_statistic(
            true_positives=correct, predicted_positives=pred, actual_positives=gold
        ),
    }


def paired_tests(
    a_rows: Sequence[Sequence[int]] | np.ndarray,
    b_rows: Sequence[Sequence[int]] | np.ndarray,
    *,
    seed: int,
    resamples: int,
    metrics: Sequence[str] | None = None,
) -> dict[str, PairedTestResult]:
    """Paired bootstrap tests of A against B over the same sentences, one per metric.

    ``metrics`` picks some of :func:`statistics`' (all by default); A comes
    first, so that ``estimate_a`` is A's score and the difference is A minus B.

    >>> tests = paired_tests([(2, 2, 2), (0, 2, 2)], [(2, 2, 2), (2, 2, 2)], seed=1,
    ...                      resamples=50, metrics=["f1"])
    >>> list(tests), round(tests["f1"].difference, 2)
    (['f1'], -0.5)
    """
    from cws_bench.metrics import significance

    return {
        metric: significance.paired_bootstrap_test(
            a_rows, b_rows, statistic, n_resamples=resamples, seed=seed
        )
        for metric, statistic in statistics().items()
        if metrics is None or metric in metrics
    }


def as_rows(values: Sequence[Sequence[int]]) -> list[Row]:
    """Rows read back from plain data (a cache record, a baseline file)."""
    return [(int(c), int(p), int(g)) for c, p, g in values]
