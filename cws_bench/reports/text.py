"""The leaderboard as plain text for a terminal: what ``cws-bench bakeoff`` prints.

The same :class:`~cws_bench.reports.tables.Board` objects as
``leaderboard.md``, drawn as aligned columns with no Markdown syntax.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from typing import Any

from cws_bench.reports.html import side_tables
from cws_bench.reports.published import published_text
from cws_bench.reports.tables import (
    MISSING,
    Board,
    build_boards,
    confidence_label,
    counting,
    detectable_note,
    format_speed,
    paired_test_name,
    report_units,
    score_cells,
    score_header,
    seed_lines,
    significance_method,
    track_verdict,
    with_units,
)
from cws_bench.results.model import BakeoffResult
from cws_bench.score_registry import board_scores

__all__ = ["render_across_corpora", "render_leaderboard", "render_text"]


def _width(text: str) -> int:
    """Columns a string takes in a terminal (wide East Asian characters take two)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


SIDE_TITLES = {
    "llm": "LLM rows beside the others:",
    "tokens": "Subword tokenizers (token boundaries against word boundaries):",
}
"""The line over each side table."""


def _columns(
    header: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[bool]
) -> list[str]:
    widths = [max(_width(row[i]) for row in [header, *rows]) for i in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        padded = [
            " " * (width - _width(cell)) + cell if align else cell + " " * (width - _width(cell))
            for cell, width, align in zip(cells, widths, right)
        ]
        return "  ".join(padded).rstrip()

    return [line(header), "  ".join("-" * w for w in widths), *(line(row) for row in rows)]


def _board_lines(board: Board, confidence: str, settings: dict[str, Any]) -> list[str]:
    shown = board_scores()  # R, P, F (its interval after it), the dictionary's
    header = ["#", "segmenter", "track", *score_header(confidence, lambda score: score.board)]
    header += ["chars/s", "better than"]
    rows = []
    for row in board.rows:
        pair = row.pair
        marks = "".join(f" [{n}]" for n in row.notes)
        beats = "excluded" if row.excluded else " ".join(row.beats) if board.tested else MISSING
        cells = [row.letter, pair.segmenter + marks, pair.track, *score_cells(row)]
        rows.append([*cells, format_speed(pair.timing.get("chars_per_s")), beats])
    for pair in board.failed:
        rows.append(["", pair.segmenter, pair.track, pair.status, *[""] * (len(shown) + 2)])
    right = [False, False, False, *[True] * (len(shown) + 2), False]
    lines = [board.corpus, *_columns(header, rows, right)]
    tracks = len(board.winners)
    lines += [f"  {w.track} track: {track_verdict(w, tracks)}" for w in board.winners]
    detectable = detectable_note(board.corpus, settings)
    if detectable:
        lines.append(f"  {detectable}")
    lines += [f"  {seeded}" for seeded in seed_lines(board.corpus, settings)]
    lines += [
        f"  [{n}] {segmenter}: {warning}" for n, (segmenter, warning) in enumerate(board.notes, 1)
    ]
    lines += [
        f"  {pair.segmenter} {pair.status}: {' '.join((pair.error or 'no error message').split())}"
        for pair in board.failed
    ]
    lines += published_text(board)  # SIGHAN 2005 corpora: the published rows
    for side in side_tables(board):  # LLM rows (fidelity, latency, cost); subword tokenizers
        lines += ["", f"  {SIDE_TITLES[side.key]}"]
        lines += ["  " + line for line in _columns(side.header, side.rows, side.numeric)]
    return lines


@with_units
def render_leaderboard(result: BakeoffResult) -> str:
    """Every corpus' leaderboard as aligned plain text, best F first: the tables, a blank
    line between corpora, and a one-line key."""
    confidence = confidence_label(result.settings)
    blocks = [
        "\n".join(_board_lines(board, confidence, result.settings))
        for board in build_boards(result)
    ]
    key = (
        f"Scores are {report_units().caption} ({counting(result.settings)}); "
        "tracks are ranked apart (closed first); "
        "better than: letters of the same track's segmenters beaten in a "
        f"{paired_test_name(result.settings)} test of F, "
        f"{significance_method(result.settings)}; excluded: scored on its own "
        f"training data, never ranked; {MISSING} chars/s: read from a file; "
        "[n]: warning n under the table."
    )
    return "\n\n".join([*blocks, key]) + "\n"


def render_across_corpora(result: BakeoffResult) -> str:
    """F1 by corpus as one aligned table (segmenters × corpora, mean, worst corpus) and,
    when there are news corpora, each segmenter's mean difference off news.

    The same numbers as leaderboard.md's "F1 by corpus" section; empty when
    fewer than two corpora were scored.
    """
    from cws_bench.reports.domains import (
        excluded_cells,
        falloff_cells,
        falloff_rows,
        wide_rows,
    )

    matrix = result.across_corpora()
    if matrix is None:
        return ""
    header = ["segmenter", *matrix.corpora, "mean", "over", "worst corpus"]
    right = [False, *(True for _ in matrix.corpora), True, True, False]
    lines = ["F1 by corpus", "", *_columns(header, wide_rows(matrix, shared=False), right)]
    excluded = excluded_cells(matrix)
    if excluded:
        lines += ["", excluded]
    falloff = falloff_rows(matrix)
    if falloff:
        lines += ["", f"Off news ({', '.join(matrix.news())}): F1 elsewhere minus F1 on news", ""]
        header = ["segmenter", "F1 on news", "mean difference", "worst corpus"]
        lines += _columns(header, falloff_cells(falloff), [False, True, True, False])
    return "\n".join(lines) + "\n"


@with_units
def render_text(result: BakeoffResult) -> str:
    """What ``cws-bench bakeoff`` prints and ``print(result)`` shows: each corpus' leaderboard,
    then, over two corpora or more, :func:`render_across_corpora`'s tables."""
    across = render_across_corpora(result)
    return render_leaderboard(result) + (f"\n{across}" if across else "")
