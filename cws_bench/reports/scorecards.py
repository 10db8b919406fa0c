"""One scorecard per participant of an organiser's bake-off: ``scorecards/<name>.md``.

A participant (the rows a ``[[submissions]]`` table made, see
:mod:`cws_bench.run.submissions`) gets one Markdown page: for each corpus and
track, its row (R, P, F with the F interval), where it ranks in the track,
whom it beats and who beats it significantly (the leaderboard's letters, by
name), the track's winner, the warnings on its row, the most frequent error
patterns, and the SHA-256 of the file scored. The numbers are the
leaderboard's (:mod:`cws_bench.reports.tables` decides them once).
"""

from __future__ import annotations

import re
from typing import Any

from cws_bench.display.tables import escape_markdown, markdown_table
from cws_bench.reports.tables import (
    Board,
    build_boards,
    confidence_label,
    counting,
    failure_text,
    format_interval,
    format_score,
    report_units,
    significantly_better,
)
from cws_bench.results.model import BakeoffResult

__all__ = ["participants", "render_scorecard", "scorecard_files"]

FOLDER = "scorecards"
"""The scorecards' folder in the report folder."""


def participants(result: BakeoffResult) -> dict[str, list[dict[str, Any]]]:
    """Participant -> the configuration's rows of it (label, track, description), in order."""
    found: dict[str, list[dict[str, Any]]] = {}
    for spec in (result.config or {}).get("segmenters") or ():
        if isinstance(spec, dict) and spec.get("participant"):
            found.setdefault(str(spec["participant"]), []).append(spec)
    return found


def _file_name(participant: str) -> str:
    """A participant's scorecard file name: its name with anything unsafe as ``_``.

    >>> _file_name("S01 / team")
    'S01___team.md'
    """
    return re.sub(r"[^\w.+-]", "_", participant) + ".md"


def _names(labels: list[str]) -> str:
    return ", ".join(escape_markdown(label) for label in labels) or "—"


def _board_lines(board: Board, label: str, settings: dict[str, Any]) -> list[str]:
    """The lines of one corpus for one of the participant's rows (none if not there)."""
    row = next((row for row in board.rows if row.pair.segmenter == label), None)
    failed = [pair for pair in board.failed if pair.segmenter == label]
    if failed:
        return [
            f"- **{escape_markdown(label)}**: {failed[0].status}: "
            f"{escape_markdown(failure_text(failed[0]))}",
            "",
        ]
    if row is None:
        return []
    pair = row.pair
    track = [r for r in board.rows if r.pair.track == pair.track]
    rank = track.index(row) + 1
    others = [r.pair.segmenter for r in track if r is not row]

    def better(a: str, b: str) -> bool:
        return significantly_better(board.comparisons, board.corpus, a, b)

    beats = [other for other in others if better(label, other)]
    beaten_by = [other for other in others if better(other, label)]
    winner = next((w for w in board.winners if w.track == pair.track), None)
    scores = pair.scores
    confidence = confidence_label(settings)
    table = markdown_table(
        ["row", "track", "rank", "R", "P", "F", f"F {confidence} CI", "better than", "worse than"],
        [
            [
                escape_markdown(label),
                pair.track,
                f"{rank} of {len(track)}" + (" (excluded)" if row.excluded else ""),
                format_score(scores.get("recall")),
                format_score(scores.get("precision")),
                format_score(scores.get("f1")),
                format_interval(pair.intervals.get("f1")),
                _names(beats),
                _names(beaten_by),
            ]
        ],
    )
    lines = [table, ""]
    if winner is not None and winner.row is not None:
        best = winner.row.pair
        lines.append(
            f"Best F of the {pair.track} track: {escape_markdown(best.segmenter)} "
            f"({format_score(best.scores.get('f1'))})."
        )
    for warning in pair.warnings:
        lines.append(f"- warning: {escape_markdown(warning)}")
    patterns = _patterns(pair.analysis)
    if patterns:
        lines.append(f"- most frequent errors: {patterns}")
    sha256 = (pair.segmenter_info or {}).get("sha256")
    if sha256:
        lines.append(f"- file scored: SHA-256 `{sha256}`")
    lines.append(f"- signature: `{pair.signature}`")
    lines.append("")
    return lines


def _patterns(analysis: Any, count: int = 3) -> str:
    """The most frequent error patterns of a pair's analysis, as one line (or "")."""
    if analysis is None:
        return ""
    data = analysis.to_dict() if hasattr(analysis, "to_dict") else dict(analysis)
    shown = []
    for kind, key in (("split", "splits"), ("merge", "merges"), ("cross", "crossings")):
        for item in (data.get(key) or [])[:1]:
            if isinstance(item, dict) and item.get("gold") is not None:
                gold, pred = item.get("gold"), item.get("pred")
                shown.append(f"{kind} {_words(gold)} → {_words(pred)} ×{item.get('count', 1)}")
    return "; ".join(escape_markdown(text) for text in shown[:count])


def _words(value: Any) -> str:
    return " ".join(value) if isinstance(value, (list, tuple)) else str(value)


def render_scorecard(result: BakeoffResult, participant: str) -> str:
    """One participant's scorecard as Markdown.

    Raises:
        KeyError: no participant of this name in the result.
    """
    rows = participants(result)[participant]
    boards = build_boards(result)
    settings = result.settings
    description = next((r.get("description") for r in rows if r.get("description")), "")
    lines = [f"# {escape_markdown(participant)}: scorecard of {escape_markdown(result.name)}", ""]
    if description:
        lines += [escape_markdown(str(description)), ""]
    lines += [
        f"Scores are {report_units().caption} ({counting(settings)}); ranks are within a "
        "track, best F first; better/worse than: significant paired tests of F, as the "
        "leaderboard's letters.",
        "",
    ]
    for board in boards:
        found = [line for r in rows for line in _board_lines(board, r["label"], settings)]
        if found:
            lines += [f"## {escape_markdown(board.corpus)}", "", *found]
    return "\n".join(lines).rstrip() + "\n"


def scorecard_files(result: BakeoffResult) -> dict[str, str]:
    """``scorecards/<participant>.md`` -> its text, for every participant of the run."""
    return {
        f"{FOLDER}/{_file_name(name)}": render_scorecard(result, name)
        for name in participants(result)
    }
