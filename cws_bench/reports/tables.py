"""What every report shows, decided once: the ranking, the letters, the marks, the formats.

The Markdown and HTML renderers draw the same :class:`Board` objects (as
seqeval's reporters render the same rows), so the two can never disagree on
an order, a significance marker or a rounded number. Nothing here computes a
score: every figure is read from the :class:`~cws_bench.results.BakeoffResult`
and only rounded for display.

Significance follows ranx's comparison report: each scored segmenter of a
corpus gets a letter (``a`` for the best F1), and each row lists the letters
of the segmenters it beats significantly in the paired bootstrap of
``result.comparisons``.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from cws_bench.results import BakeoffResult, Comparison, Interval, PairResult

__all__ = [
    "DETAILS",
    "MISSING",
    "Board",
    "BoardRow",
    "Column",
    "build_boards",
    "confidence_label",
    "detail_columns",
    "format_count",
    "format_interval",
    "format_p_value",
    "format_score",
    "format_seconds",
    "format_speed",
    "letters",
    "run_notes",
    "significantly_better",
]

MISSING = "—"
"""What a table shows for a value the result lacks (e.g. OOV figures without a dictionary)."""

SCORE_DECIMALS = 3
"""Scores are fractions printed with three decimals, as the SIGHAN bakeoff tables print them."""


def format_score(value: float | None) -> str:
    """A score as the tables print it: a fraction with three decimals.

    >>> format_score(0.96249), format_score(None)
    ('0.962', '—')
    """
    return MISSING if value is None else f"{value:.{SCORE_DECIMALS}f}"


def format_interval(interval: Interval | None) -> str:
    """A confidence interval as ``[low, high]``.

    >>> format_interval(Interval(0.9512, 0.9587))
    '[0.951, 0.959]'
    """
    if interval is None:
        return MISSING
    return f"[{format_score(interval.low)}, {format_score(interval.high)}]"


def format_halfwidth(value: float | None) -> str:
    """A half-width as ``±0.004``.

    >>> format_halfwidth(0.00412)
    '±0.004'
    """
    return MISSING if value is None else f"±{format_score(value)}"


def format_speed(value: float | None) -> str:
    """A rate (characters or words per second) rounded to a whole number, with thousands separators.

    >>> format_speed(412345.6)
    '412,346'
    """
    return MISSING if value is None else f"{value:,.0f}"


def format_count(value: int | None) -> str:
    """A count with thousands separators.

    >>> format_count(1234567)
    '1,234,567'
    """
    return MISSING if value is None else f"{value:,}"


def format_seconds(value: float | None) -> str:
    """A duration in seconds with two decimals.

    >>> format_seconds(0.1234)
    '0.12'
    """
    return MISSING if value is None else f"{value:.2f}"


def format_memory(value: float | None) -> str:
    """Memory in MiB with one decimal.

    >>> format_memory(153.26)
    '153.3'
    """
    return MISSING if value is None else f"{value:.1f}"


def format_p_value(value: float) -> str:
    """A p-value with three decimals, or ``< 0.001`` below that.

    >>> format_p_value(0.0412), format_p_value(0.0002)
    ('0.041', '< 0.001')
    """
    return "< 0.001" if value < 0.001 else f"{value:.3f}"


def format_difference(value: float) -> str:
    """A signed score difference with three decimals.

    >>> format_difference(0.01234), format_difference(-0.002)
    ('+0.012', '-0.002')
    """
    return f"{value:+.{SCORE_DECIMALS}f}"


def confidence_label(settings: dict[str, Any]) -> str:
    """The confidence level of a run's intervals as a percentage (95% when not recorded).

    >>> confidence_label({"confidence": 0.9}), confidence_label({})
    ('90%', '95%')
    """
    level = settings.get("confidence")
    return f"{level * 100:g}%" if isinstance(level, int | float) else "95%"


def run_notes(settings: dict[str, Any]) -> list[str]:
    """The run's own notes (e.g. segmenters skipped as not installed), from ``settings["notes"]``.

    >>> run_notes({"notes": ["skipped thulac: not installed"]}), run_notes({})
    (['skipped thulac: not installed'], [])
    """
    notes = settings.get("notes")
    return [str(note) for note in notes] if isinstance(notes, list | tuple) else []


def letters(count: int) -> list[str]:
    """The first ``count`` row letters: ``a`` … ``z``, then ``A`` … ``Z``, then ``a1``, ``b1``, ….

    >>> letters(3), letters(54)[-2:]
    (['a', 'b', 'c'], ['a1', 'b1'])
    """
    alphabet = string.ascii_lowercase + string.ascii_uppercase
    return [
        alphabet[i % len(alphabet)] + (str(i // len(alphabet)) if i >= len(alphabet) else "")
        for i in range(count)
    ]


def significantly_better(
    comparisons: Sequence[Comparison], corpus: str, first: str, second: str, metric: str = "f1"
) -> bool:
    """Whether ``first`` beats ``second`` on ``corpus`` by a significant paired test.

    A comparison is stored in one direction (``a`` against ``b``, with
    ``difference`` = a's score minus b's), so both directions are looked up.

    >>> c = Comparison("pd", "hmm", "fmm", "f1", 0.02, Interval(0.01, 0.03), 0.001, True)
    >>> significantly_better([c], "pd", "hmm", "fmm"), significantly_better([c], "pd", "fmm", "hmm")
    (True, False)
    """
    for c in comparisons:
        if c.corpus != corpus or c.metric != metric or not c.significant:
            continue
        if (c.a, c.b) == (first, second) and c.difference > 0:
            return True
        if (c.a, c.b) == (second, first) and c.difference < 0:
            return True
    return False


@dataclass(frozen=True)
class BoardRow:
    """One scored segmenter in a corpus' table.

    Attributes:
        pair: the result behind the row.
        letter: the row's significance letter.
        beats: letters of the segmenters this one beats significantly, in rank order.
        notes: numbers of the corpus' notes (warnings) that concern this row.
    """

    pair: PairResult
    letter: str
    beats: tuple[str, ...]
    notes: tuple[int, ...] = ()


@dataclass(frozen=True)
class Board:
    """One corpus' leaderboard.

    Attributes:
        corpus: the corpus label.
        rows: the scored segmenters, best F1 first.
        failed: pairs that failed or timed out, in configuration order.
        notes: the warnings of the corpus' pairs, numbered from 1, as
            ``(segmenter, warning)``.
        comparisons: the corpus' F1 comparisons, in rank order of ``a`` then ``b``.
        tested: whether the run compared any two segmenters of this corpus.
    """

    corpus: str
    rows: tuple[BoardRow, ...]
    failed: tuple[PairResult, ...]
    notes: tuple[tuple[str, str], ...]
    comparisons: tuple[Comparison, ...]
    tested: bool

    @property
    def best(self) -> BoardRow | None:
        """The row with the highest F1, or None when nothing was scored."""
        return self.rows[0] if self.rows else None

    def ties(self) -> list[BoardRow]:
        """The rows the best one does not beat significantly (it shares first place with them)."""
        best = self.best
        if best is None:
            return []
        return [row for row in self.rows[1:] if row.letter not in best.beats]

    def corpus_size(self) -> dict[str, Any]:
        """Sentences, characters and gold words of the corpus, from its first scored pair."""
        if not self.rows:
            return {}
        scores = self.rows[0].pair.scores
        return {key: scores.get(key) for key in ("sentences", "characters", "gold_words")}

    def has_oov(self) -> bool:
        """Whether OOV figures exist (the corpus was scored with a dictionary)."""
        return any(row.pair.scores.get("oov_rate") is not None for row in self.rows)


def _board(result: BakeoffResult, corpus: str, metric: str) -> Board:
    ranked = result.leaderboard(corpus)
    scored = [p for p in ranked if p.ok]
    failed = tuple(p for p in result.pairs if p.corpus == corpus and not p.ok)
    names = letters(len(scored))
    letter_of = {p.segmenter: name for p, name in zip(scored, names)}
    notes: list[tuple[str, str]] = []
    note_numbers: dict[str, list[int]] = {}
    for p in [*scored, *failed]:
        for warning in p.warnings:
            notes.append((p.segmenter, warning))
            note_numbers.setdefault(p.segmenter, []).append(len(notes))
    comparisons = [c for c in result.comparisons if c.corpus == corpus and c.metric == metric]
    rows = tuple(
        BoardRow(
            pair=p,
            letter=letter_of[p.segmenter],
            beats=tuple(
                letter_of[q.segmenter]
                for q in scored
                if q is not p
                and significantly_better(comparisons, corpus, p.segmenter, q.segmenter)
            ),
            notes=tuple(note_numbers.get(p.segmenter, ())),
        )
        for p in scored
    )
    rank = {p.segmenter: i for i, p in enumerate(scored)}
    comparisons.sort(key=lambda c: (rank.get(c.a, len(rank)), rank.get(c.b, len(rank))))
    return Board(
        corpus=corpus,
        rows=rows,
        failed=failed,
        notes=tuple(notes),
        comparisons=tuple(comparisons),
        tested=bool(comparisons),
    )


def build_boards(result: BakeoffResult, *, metric: str = "f1") -> list[Board]:
    """The leaderboard of every corpus, in configuration order.

    Args:
        result: the bake-off result.
        metric: the compared metric whose significance tests mark the rows.

    Returns:
        One :class:`Board` per corpus.
    """
    return [_board(result, corpus, metric) for corpus in result.corpora()]


@dataclass(frozen=True)
class Column:
    """A column of a pair's secondary figures: its header and how a pair fills its cell."""

    header: str
    cell: Callable[[PairResult], str]


DETAILS: dict[str, Column] = {
    "recall_ci": Column("R {confidence} CI", lambda p: format_interval(p.intervals.get("recall"))),
    "sighan_recall": Column("C_r", lambda p: format_halfwidth(p.sighan_intervals.get("recall"))),
    "precision_ci": Column(
        "P {confidence} CI", lambda p: format_interval(p.intervals.get("precision"))
    ),
    "sighan_precision": Column(
        "C_p", lambda p: format_halfwidth(p.sighan_intervals.get("precision"))
    ),
    "boundary_precision": Column(
        "Boundary P", lambda p: format_score(p.scores.get("boundary_precision"))
    ),
    "boundary_recall": Column(
        "Boundary R", lambda p: format_score(p.scores.get("boundary_recall"))
    ),
    "boundary_f1": Column("Boundary F", lambda p: format_score(p.scores.get("boundary_f1"))),
    "gold_words": Column("Gold words", lambda p: format_count(p.scores.get("gold_words"))),
    "pred_words": Column("Predicted", lambda p: format_count(p.scores.get("pred_words"))),
    "correct_words": Column("Correct", lambda p: format_count(p.scores.get("correct_words"))),
    "words_per_s": Column("words/s", lambda p: format_speed(p.timing.get("words_per_s"))),
    "load_s": Column("load s", lambda p: format_seconds(p.timing.get("load_s"))),
    "train_s": Column("train s", lambda p: format_seconds(p.timing.get("train_s"))),
    "segment_s": Column("segment s", lambda p: format_seconds(p.timing.get("segment_s"))),
    "peak_memory_mib": Column("peak MiB", lambda p: format_memory(p.peak_memory_mib)),
}
"""The secondary figures of a pair that the reports may show, by name."""


def detail_columns(board: Board, names: Sequence[str], confidence: str) -> list[Column]:
    """The named detail columns that hold a value for some scored row of a board.

    A column the run did not fill for anyone (e.g. ``train s`` when nothing
    was trained) is left out rather than shown as a column of dashes.
    """
    columns = []
    for name in names:
        column = DETAILS[name]
        if any(column.cell(row.pair) != MISSING for row in board.rows):
            columns.append(Column(column.header.format(confidence=confidence), column.cell))
    return columns
