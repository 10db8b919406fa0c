"""Tests of cws_bench/reports/text.py: the terminal leaderboard agrees with leaderboard.md."""

from __future__ import annotations

import re

from cws_bench.reports import render_leaderboard
from cws_bench.reports.tables import build_boards, format_interval, format_score


def blocks(text: str) -> dict[str, list[str]]:
    """Each corpus' lines, by corpus name (the key line at the end is left out)."""
    found = {}
    for block in text.strip("\n").split("\n\n")[:-1]:
        lines = block.splitlines()
        found[lines[0]] = lines[1:]
    return found


def test_rows_follow_the_boards(bakeoff):
    text = render_leaderboard(bakeoff)
    tables = blocks(text)
    assert list(tables) == bakeoff.corpora()
    for board in build_boards(bakeoff):
        header, rule, *rows = tables[board.corpus]
        assert header.split()[:6] == ["#", "segmenter", "track", "R", "P", "F"]
        assert set(rule) <= {"-", " "}
        # Numbers are right-aligned: each F ends where the header's F ends.
        end = re.search(r"\bF\b", header).end()
        assert [line[end - 5 : end] for line in rows[: len(board.rows)]] == [
            format_score(row.pair.scores["f1"]) for row in board.rows
        ]
        for row, line in zip(board.rows, rows):
            p = row.pair
            assert line.startswith(f"{row.letter}  {p.segmenter}")
            assert (
                f"{format_score(p.scores['recall'])}  {format_score(p.scores['precision'])}  "
                f"{format_score(p.scores['f1'])}  {format_interval(p.intervals['f1'])}"
            ) in line
            if row.beats:
                assert line.endswith("  " + " ".join(row.beats))
        for pair in board.failed:
            assert any(
                re.match(rf"\s*{re.escape(pair.segmenter)} {pair.status}: ", x) for x in rows
            )


def test_numbers_are_in_results_json(reports, bakeoff):
    for corpus, lines in blocks(render_leaderboard(bakeoff)).items():
        for line in lines[2:]:
            if line.startswith("  "):  # warnings and errors: text, not figures
                continue
            cells = line.split()
            assert reports.untraceable(" ".join(cells[3:])) == [], (corpus, line)


def test_errors_stay_on_one_line(bakeoff):
    text = render_leaderboard(bakeoff)
    assert (
        "  thulac failed: segmenter thulac: not available (no module named 'thulac') hint:" in text
    )
