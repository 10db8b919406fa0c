"""What every report shows, decided once: the ranking, the letters, the marks, the formats.

The Markdown and HTML renderers draw the same :class:`Board` objects (as
seqeval's reporters render the same rows), so the two can never disagree on
an order, a significance marker or a rounded number. Nothing here computes a
score: every figure is read from the :class:`~cws_bench.results.model.BakeoffResult`
and only rounded for display.

Significance follows ranx's comparison report: each scored segmenter of a
corpus gets a letter (``a`` for the first row), and each row lists the letters
of the segmenters of its own track it beats significantly in the paired
bootstrap of ``result.comparisons`` (``Comparison.significant``: corrected
for multiple comparisons by the run's ``correction``). Tracks are ranked
apart, as SIGHAN reports them, each with its own winner; a segmenter scored
on its own training data is shown and marked, but never wins and is in no
one's letters.
"""

from __future__ import annotations

import functools
import string
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from cws_bench.metrics.units import REPORT_SCALE, Units, format_p_value, plural, units
from cws_bench.results.model import BakeoffResult, Comparison, Interval, PairResult, group_warnings

__all__ = [
    "DETAILS",
    "MISSING",
    "Board",
    "BoardRow",
    "Column",
    "TrackWinner",
    "build_boards",
    "confidence_label",
    "counting",
    "detail_columns",
    "excluded_note",
    "format_count",
    "format_interval",
    "format_p_value",
    "format_score",
    "format_seconds",
    "format_speed",
    "letters",
    "letters_corrected",
    "plural",
    "printed_in",
    "report_units",
    "run_notes",
    "significance_method",
    "significance_note",
    "significantly_better",
    "with_units",
]

MISSING = "—"
"""What a table shows for a value the result lacks (e.g. OOV figures without a dictionary)."""

_UNITS: ContextVar[Units | None] = ContextVar("cws_bench_report_units", default=None)


@contextmanager
def printed_in(scale: str | None = None, digits: int | None = None) -> Iterator[Units]:
    """Within the block, the report tables print scores in ``scale`` with ``digits`` decimals
    (:mod:`cws_bench.metrics.units`; default :data:`~cws_bench.metrics.units.REPORT_SCALE`,
    fractions with three decimals).

    >>> with printed_in("percent"):
    ...     format_score(0.96249)
    '96.25'
    """
    chosen = units(scale, digits, default=REPORT_SCALE)
    token = _UNITS.set(chosen)
    try:
        yield chosen
    finally:
        _UNITS.reset(token)


def with_units(render: Callable[..., str]) -> Callable[..., str]:
    """A report renderer that also takes ``scale`` and ``digits`` keyword arguments (how
    scores print; left out, the units of an enclosing :func:`printed_in`, else the default)."""

    @functools.wraps(render)
    def wrapped(*args: Any, scale: str | None = None, digits: int | None = None, **kw: Any) -> str:
        if scale is None and digits is None:
            return render(*args, **kw)
        with printed_in(scale, digits):
            return render(*args, **kw)

    return wrapped


def report_units() -> Units:
    """The units the report tables print scores in now (see :func:`printed_in`)."""
    return _UNITS.get() or Units(REPORT_SCALE)


def format_score(value: float | None) -> str:
    """A score as the tables print it: by default a fraction with three decimals.

    >>> format_score(0.96249), format_score(None)
    ('0.962', '—')
    """
    return report_units().score(value, missing=MISSING)


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


def format_difference(value: float) -> str:
    """A signed score difference (a fraction with three decimals by default).

    >>> format_difference(0.01234), format_difference(-0.002)
    ('+0.012', '-0.002')
    """
    return report_units().points(value, missing=MISSING)


def counting(settings: dict[str, Any]) -> str:
    """How the run counted correct words, as captions say it.

    >>> counting({}), counting({"method": "sighan"})
    ('interval counting', 'sighan counting')
    """
    return f"{settings.get('method') or 'interval'} counting"


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
        beats: letters of the segmenters this one beats significantly, in rank order
            (only segmenters of its own track; corrected for multiple comparisons
            when the run says so).
        notes: numbers of the corpus' notes (warnings) that concern this row.
        excluded: the segmenter was scored on its own training data: the row
            is shown and marked but never wins, and takes no part in the
            significance letters.
    """

    pair: PairResult
    letter: str
    beats: tuple[str, ...]
    notes: tuple[int, ...] = ()
    excluded: bool = False


@dataclass(frozen=True)
class TrackWinner:
    """Who wins one track of a corpus, as rows of its board.

    Attributes:
        track: ``closed`` or ``open``.
        row: the winner's row, or None when no eligible segmenter was scored.
        ties: the eligible rows the winner does not beat significantly.
        excluded: the track's rows scored on their own training data.
        tested: whether the winner was compared with any other eligible row.
    """

    track: str
    row: BoardRow | None
    ties: tuple[BoardRow, ...] = ()
    excluded: tuple[BoardRow, ...] = ()
    tested: bool = False


@dataclass(frozen=True)
class Board:
    """One corpus' leaderboard.

    Attributes:
        corpus: the corpus label.
        rows: the scored segmenters, track by track (closed first), best F1
            first within a track, rows scored on their own training data last
            in their track.
        failed: pairs that failed or timed out, in configuration order.
        notes: the warnings of the corpus' pairs, numbered from 1, as
            ``(who, warning)``: the same warning given to several segmenters
            is one note (``who`` lists them, or says every segmenter).
        comparisons: the corpus' F1 comparisons, in rank order of ``a`` then ``b``.
        tested: whether the run compared any two segmenters of this corpus.
        winners: who wins each track (closed first).
    """

    corpus: str
    rows: tuple[BoardRow, ...]
    failed: tuple[PairResult, ...]
    notes: tuple[tuple[str, str], ...]
    comparisons: tuple[Comparison, ...]
    tested: bool
    winners: tuple[TrackWinner, ...] = ()

    @property
    def tracks(self) -> list[str]:
        """The tracks of the board, closed first."""
        return [winner.track for winner in self.winners]

    def is_winner(self, row: BoardRow) -> bool:
        """Whether a row is the winner of its track."""
        return any(winner.row is row for winner in self.winners)

    def corpus_size(self) -> dict[str, Any]:
        """Sentences, characters and gold words of the corpus, from its first scored pair."""
        if not self.rows:
            return {}
        scores = self.rows[0].pair.scores
        return {key: scores.get(key) for key in ("sentences", "characters", "gold_words")}

    def has_oov(self) -> bool:
        """Whether OOV figures exist (the corpus was scored with a dictionary)."""
        return any(row.pair.scores.get("oov_rate") is not None for row in self.rows)

    def family_sizes(self) -> dict[str, int]:
        """Per track, the number of comparisons corrected together (the family)."""
        track_of = {row.pair.segmenter: row.pair.track for row in self.rows}
        sizes: dict[str, int] = {}
        for c in self.comparisons:
            if c.adjusted_p_value is not None:
                track = track_of.get(c.a, "")
                sizes[track] = sizes.get(track, 0) + 1
        return sizes


def _board(result: BakeoffResult, corpus: str, metric: str) -> Board:
    ranked = result.leaderboard(corpus)
    scored = [p for p in ranked if p.ok]
    failed = tuple(p for p in result.pairs if p.corpus == corpus and not p.ok)
    names = letters(len(scored))
    letter_of = {p.segmenter: name for p, name in zip(scored, names)}
    notes: list[tuple[str, str]] = []
    note_numbers: dict[str, list[int]] = {}
    for note in group_warnings([*scored, *failed]):
        notes.append((note.who, note.text))
        if note.everyone:
            continue  # about the corpus: one note, no mark on every row
        for segmenter in note.segmenters:
            note_numbers.setdefault(segmenter, []).append(len(notes))
    comparisons = [c for c in result.comparisons if c.corpus == corpus and c.metric == metric]
    rows = tuple(
        BoardRow(
            pair=p,
            letter=letter_of[p.segmenter],
            beats=()
            if p.contaminated
            else tuple(
                letter_of[q.segmenter]
                for q in scored
                if q is not p
                and q.track == p.track
                and not q.contaminated
                and significantly_better(comparisons, corpus, p.segmenter, q.segmenter)
            ),
            notes=tuple(note_numbers.get(p.segmenter, ())),
            excluded=p.contaminated,
        )
        for p in scored
    )
    row_of = {row.pair.segmenter: row for row in rows}
    winners = tuple(
        TrackWinner(
            track=verdict.track,
            row=row_of[verdict.winner.segmenter] if verdict.winner is not None else None,
            ties=tuple(row_of[name] for name in verdict.ties),
            excluded=tuple(row_of[name] for name in verdict.excluded),
            tested=verdict.tested,
        )
        for verdict in result.winners(corpus)
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
        winners=winners,
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


CORRECTION_NAMES = {
    "holm": "Holm–Bonferroni",
    "bonferroni": "Bonferroni",
    "fdr_bh": "Benjamini–Hochberg (false discovery rate)",
}
"""How the legends name each multiple-comparison correction."""


def letters_corrected(settings: dict[str, Any]) -> bool:
    """Whether a run's significance letters are corrected for multiple comparisons.

    >>> letters_corrected({"correction": "holm"}), letters_corrected({"correction": "none"})
    (True, False)
    """
    return settings.get("correction") in CORRECTION_NAMES


def significance_method(settings: dict[str, Any]) -> str:
    """How the run's letters were decided, for the legends.

    >>> significance_method({"alpha": 0.05, "correction": "holm"})
    'p < 0.05 after Holm–Bonferroni correction over the tests of each track'
    >>> significance_method({"alpha": 0.05})
    'p < 0.05, not corrected for multiple comparisons'
    """
    alpha = settings.get("alpha", 0.05)
    if letters_corrected(settings):
        name = CORRECTION_NAMES[settings["correction"]]
        return f"p < {alpha} after {name} correction over the tests of each track"
    return f"p < {alpha}, not corrected for multiple comparisons"


def significance_note(board: Board, settings: dict[str, Any]) -> str | None:
    """The line under a corpus' table that says how its letters were decided, or None.

    >>> row = BoardRow(PairResult("c", "x", "x", "open", "ok"), "a", ())
    >>> board = Board("c", (row,), (), (), (), True, (TrackWinner("open", row),))
    >>> significance_note(board, {"alpha": 0.05, "correction": "holm"})
    'Better than: paired bootstrap tests of F within a track, p < 0.05 after Holm–Bonferroni correction over the tests of each track.'
    """  # noqa: E501
    if not board.tested:
        return None
    sizes = board.family_sizes()
    counted = ", ".join(
        f"{sizes[track]} in the {track} track" for track in board.tracks if sizes.get(track)
    )
    method = significance_method(settings)
    text = f"Better than: paired bootstrap tests of F within a track, {method}"
    if counted and letters_corrected(settings):
        text += f" ({counted})"
    return text + "."


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


def excluded_note(rows: Sequence[BoardRow], name: Callable[[BoardRow], str]) -> str:
    """``" (a, b: trained on this data, not ranked)"`` for a track's rows that are never
    ranked, each reason once (:attr:`~cws_bench.results.model.PairResult.exclusion`);
    ``""`` for none.
    """
    if not rows:
        return ""
    reasons: dict[str, list[str]] = {}
    for row in rows:
        reasons.setdefault(row.pair.exclusion or "", []).append(name(row))
    said = "; ".join(f"{', '.join(names)}: {reason}" for reason, names in reasons.items())
    return f" ({said}, not ranked)"
