"""The leaderboard's section on subword tokenizers: how an LLM's tokens cut the gold's words.

Every row carries how its words cut the gold's (``analysis["tokens"]``, see
:func:`cws_bench.analysis.tokens.token_figures`). Under a corpus' table
(leaderboard.md, report.html and the terminal's), when one of its rows is a
subword tokenizer, one more table (:data:`HEADER`) shows those figures for it and
for the word segmenters beside it. Every number is read from the result.
"""

from __future__ import annotations

from typing import Any

from cws_bench.reports.tables import MISSING, Board, format_score

__all__ = ["HEADER", "INTRO", "NUMERIC", "token_rows"]

HEADER = [
    "Segmenter",
    "F",
    "boundary P",
    "boundary R",
    "tokens straddling a word boundary",
    "words split",
    "IV words split",
    "OOV words split",
    "tokens per word",
    "tokens per char",
    "Rényi efficiency",
]


NUMERIC = [False, *[True] * (len(HEADER) - 1)]
"""Which columns hold numbers (right-aligned in every rendering)."""

INTRO = (
    "Subword tokenizers, each token scored as a word: how their token boundaries "
    "meet the gold's word boundaries (F, boundary P and R, the share of straddling "
    "tokens and of gold words split into two or more tokens in the leaderboard's unit; "
    "tokens per word and per character, and the Rényi efficiency at α = 2.5 of the "
    "tokens' distribution, as ratios; tokens after a character's bytes are joined to "
    "the token of its first byte):"
)
"""What the table shows, above it in leaderboard.md and report.html."""


def _ratio(figures: dict[str, Any], key: str, digits: int = 3) -> str:
    value = figures.get(key)
    return MISSING if value is None else f"{value:.{digits}f}"


def _subword(figures: dict[str, Any]) -> bool:
    # Records from before every row had figures hold them for subword tokenizers only.
    return bool(figures.get("subword", True))


def token_rows(board: Board) -> list[list[str]]:
    """One row of cells per row of ``board`` with token figures; empty when no row of the
    board is a subword tokenizer."""
    found = [(row, (row.pair.analysis or {}).get("tokens")) for row in board.rows]
    if not any(figures and _subword(figures) for _, figures in found):
        return []
    return [
        [
            row.pair.segmenter,
            format_score(row.pair.f1),
            format_score(figures.get("boundary_precision")),
            format_score(figures.get("boundary_recall")),
            format_score(figures.get("straddling_share")),
            format_score(figures.get("split_share")),
            format_score(figures.get("iv_split_share")),
            format_score(figures.get("oov_split_share")),
            _ratio(figures, "tokens_per_word"),
            _ratio(figures, "tokens_per_char"),
            _ratio(figures, "renyi_efficiency"),
        ]
        for row, figures in found
        if figures
    ]
