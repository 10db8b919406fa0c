"""The leaderboard's section on subword tokenizers: how an LLM's tokens cut the gold's words.

Under a corpus' table (leaderboard.md and the terminal's), when a row carries
tokenizer figures (``analysis["tokens"]``: a segmenter with token ids, such
as the ``tokenizer`` segmenter, see :func:`cws_bench.segmenters.subword.token_figures`),
one more table shows, for every such row and for the word segmenters beside
them: F, the precision and recall of token boundaries against word
boundaries, the share of tokens that straddle a gold word boundary, and
tokens per gold word and per character. Nothing is computed here: every
number is read from the result.
"""

from __future__ import annotations

from typing import Any

from cws_bench.metrics.tables import markdown_table
from cws_bench.reports.tables import MISSING, Board, format_score

__all__ = ["HEADER", "INTRO", "NUMERIC", "token_markdown", "token_rows"]

HEADER = [
    "Segmenter",
    "F",
    "boundary P",
    "boundary R",
    "tokens straddling a word boundary",
    "tokens per word",
    "tokens per char",
]


NUMERIC = [False, *[True] * (len(HEADER) - 1)]
"""Which columns hold numbers (right-aligned in every rendering)."""

INTRO = (
    "Subword tokenizers, each token scored as a word: how their token boundaries "
    "meet the gold's word boundaries (F, boundary P and R and the share of straddling "
    "tokens in the leaderboard's unit, tokens per word and per character as ratios; "
    "tokens after a character's bytes are joined to the token of its first byte):"
)
"""What the table shows, above it in leaderboard.md and report.html."""


def _ratio(figures: dict[str, Any], key: str, digits: int = 3) -> str:
    value = figures.get(key)
    return MISSING if value is None else f"{value:.{digits}f}"


def token_rows(board: Board) -> list[list[str]]:
    """One row of cells per row of ``board`` with tokenizer figures; empty when none has them."""
    rows = []
    for row in board.rows:
        figures = (row.pair.analysis or {}).get("tokens")
        if not figures:
            continue
        rows.append(
            [
                row.pair.segmenter,
                format_score(row.pair.f1),
                format_score(figures.get("boundary_precision")),
                format_score(figures.get("boundary_recall")),
                format_score(figures.get("straddling_share")),
                _ratio(figures, "tokens_per_word"),
                _ratio(figures, "tokens_per_char"),
            ]
        )
    return rows


def token_markdown(board: Board) -> list[str]:
    """The section's Markdown lines (none when no row is a subword tokenizer)."""
    rows = token_rows(board)
    if not rows:
        return []
    return [INTRO, "", *markdown_table(HEADER, rows).splitlines(), ""]
