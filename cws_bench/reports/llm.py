"""The leaderboard's section on segmenters that keep per-line diagnostics (prompted LLMs).

Under a corpus' table (leaderboard.md, report.html and the terminal's), when a row
carries :attr:`PairResult.diagnostics <cws_bench.results.model.PairResult.diagnostics>`,
one more table puts every row of the board side by side (:data:`HEADER`), the
latencies as :mod:`cws_bench.metrics.throughput` computes them; a row without
diagnostics shows a dash where it has no figure. Every number is read from the result.
"""

from __future__ import annotations

from typing import Any

from cws_bench.reports.tables import (
    MISSING,
    Board,
    format_count,
    format_score,
    format_speed,
)

__all__ = ["HEADER", "INTRO", "NUMERIC", "llm_rows"]

HEADER = [
    "Segmenter",
    "Track",
    "F",
    "lines altered",
    "ins / del / sub chars",
    "refused / empty",
    "chars/s",
    "TTFT p50 (ms)",
    "TPOT p50 (ms)",
    "E2E p50 / p99 (ms)",
    "requests sent / cached",
    "cost per M chars",
]


NUMERIC = [False, False, *[True] * (len(HEADER) - 2)]
"""Which columns hold numbers (right-aligned in every rendering)."""

INTRO = (
    "Prompted LLMs beside the other rows: text fidelity (lines whose text the model "
    "changed, and how), speed, request latency (from the requests sent; replies from "
    "the cache send none) and cost:"
)
"""What the table shows, above it in leaderboard.md and report.html."""


def _ms(summary: dict[str, Any] | None, key: str) -> str:
    if not summary or summary.get(key) is None:
        return MISSING
    return f"{1000 * summary[key]:,.0f}"


def llm_rows(board: Board) -> list[list[str]]:
    """One row of cells per scored row of ``board``; empty when no row has diagnostics."""
    if not any(row.pair.diagnostics for row in board.rows):
        return []
    rows = []
    for row in board.rows:
        pair = row.pair
        diagnostics = pair.diagnostics or {}
        fidelity = diagnostics.get("fidelity") or {}
        requests = diagnostics.get("requests") or {}
        metrics = requests.get("metrics") or {}
        cost = (diagnostics.get("cost") or {}).get("per_million_characters")
        cells = [pair.segmenter, pair.track, format_score(pair.scores.get("f1"))]
        if fidelity:
            cells += [
                f"{format_count(fidelity['altered'])} of {format_count(fidelity['lines'])}",
                f"{fidelity['inserted']:,} / {fidelity['deleted']:,} / {fidelity['substituted']:,}",
                f"{fidelity['refused']:,} / {fidelity['empty']:,}",
            ]
        else:
            cells += [MISSING] * 3
        cells.append(format_speed(pair.timing.get("chars_per_s")))
        e2e = metrics.get("e2e_latency")
        cells += [
            _ms(metrics.get("ttft"), "p50"),
            _ms(metrics.get("tpot"), "p50"),
            MISSING if not e2e else f"{_ms(e2e, 'p50')} / {_ms(e2e, 'p99')}",
            f"{requests['sent']:,} / {requests['cached']:,}" if requests else MISSING,
            MISSING if cost is None else f"{cost:,.4f}",
        ]
        rows.append(cells)
    return rows
