"""Tests of cws_bench/reports/markdown.py on a real bake-off result, read back from the page."""

from __future__ import annotations

import re
from dataclasses import replace

from cws_bench.reports import render_markdown
from cws_bench.reports.tables import format_interval, format_score, format_speed
from cws_bench.results.model import BakeoffResult, PairResult

LEADERBOARD = ["#", "Segmenter", "Track", "R", "P", "F", "F 95% CI", "OOV rate", "R_oov", "R_iv"]


def leaderboards(reports):
    return {t.heading: t for t in reports.tables if t.header[: len(LEADERBOARD)] == LEADERBOARD}


def segmenter_cell(cell: str) -> str:
    """The segmenter label of a name cell (notes, status and escapes taken off)."""
    cell = re.sub(r"<sup>.*?</sup>", "", cell)
    cell = re.sub(r" \*\(.*\)\*$", "", cell)
    return re.sub(r"\\(.)", r"\1", cell)


def test_one_leaderboard_per_corpus_sorted_by_f(reports, bakeoff):
    boards = leaderboards(reports)
    assert list(boards) == bakeoff.corpora()
    for corpus, table in boards.items():
        scored = [row for row in table.rows if row[0]]
        tracks = [row[2] for row in scored]
        # Tracks ranked apart (closed first); within a track by F, contaminated rows last.
        assert tracks == sorted(tracks)
        for track in set(tracks):
            ranked = [
                float(row[5].strip("*"))
                for row in scored
                if row[2] == track and not row[-1].startswith("*excluded")
            ]
            assert ranked == sorted(ranked, reverse=True)
        assert [row[0] for row in scored] == [chr(ord("a") + i) for i in range(len(scored))]
        expected = [p.segmenter for p in bakeoff.leaderboard(corpus)]
        assert [segmenter_cell(row[1]) for row in table.rows] == expected


def test_cells_equal_the_json_values_rounded(reports, bakeoff):
    for corpus, table in leaderboards(reports).items():
        by_name = {p.segmenter: p for p in bakeoff.pairs if p.corpus == corpus}
        for row in table.rows:
            p = by_name[segmenter_cell(row[1])]
            cells = dict(zip(table.header, row))
            if not p.ok:
                assert cells["F"] == "—" and cells["R"] == "—"
                continue
            assert cells["R"] == format_score(p.scores["recall"])
            assert cells["P"] == format_score(p.scores["precision"])
            assert cells["F"].strip("*") == f"{100 * p.scores['f1']:.2f}"
            assert cells["F 95% CI"] == format_interval(p.intervals["f1"])
            assert cells["OOV rate"] == f"{100 * p.scores['oov_rate']:.2f}"
            assert cells["R_oov"] == f"{100 * p.scores['oov_recall']:.2f}"
            assert cells["R_iv"] == f"{100 * p.scores['iv_recall']:.2f}"
            assert cells["chars/s"] == format_speed(p.timing["chars_per_s"])


def test_every_number_in_a_table_is_in_results_json(reports):
    numeric = {"#", "Segmenter", "Track", "Better than", "Corpus", "Signature"}
    checked = 0
    for table in reports.tables:
        if list(table.header) == ["Fact", "Value"]:
            continue  # the Run section's facts in words (test_settings_and_signatures_are_shown)
        for row in table.rows:
            for name, cell in zip(table.header, row):
                if name not in numeric:
                    assert reports.untraceable(cell) == [], (table.heading, name, cell)
                    checked += 1
    assert checked > 100
    # The prose figures too: corpus sizes and the best F of each corpus.
    for line in reports.markdown.splitlines():
        if "best F" in line:
            assert reports.untraceable(line) == [], line


def test_better_than_column_matches_the_comparisons(reports, bakeoff):
    for corpus, table in leaderboards(reports).items():
        scored = [row for row in table.rows if row[0]]
        letter = {segmenter_cell(row[1]): row[0] for row in scored}
        track = {segmenter_cell(row[1]): row[2] for row in scored}
        for row in scored:
            name = segmenter_cell(row[1])
            beaten = set(row[-1].split())
            for other, other_letter in letter.items():
                if other == name:
                    continue
                stored = bakeoff.comparison(corpus, name, other) or bakeoff.comparison(
                    corpus, other, name
                )
                if track[name] != track[other]:  # tracks are ranked apart: never compared
                    assert stored is None and other_letter not in beaten
                    continue
                sign = 1 if stored.a == name else -1
                wins = stored.significant and sign * stored.difference > 0
                assert (other_letter in beaten) == wins, (corpus, name, other)


def test_failed_pairs_are_last_with_their_error(reports, bakeoff):
    tables = leaderboards(reports)
    for p in bakeoff.pairs:
        if p.ok:
            continue
        rows = tables[p.corpus].rows
        names = [segmenter_cell(row[1]) for row in rows]
        assert names.index(p.segmenter) >= sum(1 for row in rows if row[0])
        assert f"*({p.status})*" in rows[names.index(p.segmenter)][1]
    assert "- **thulac** (failed): segmenter thulac: not available" in reports.markdown
    # Markdown in an error is escaped, not rendered: the pipe and the angle brackets.
    assert "- **slow\\|model** (timeout): " in reports.markdown
    assert "\\<after 1948 lines\\>" in reports.markdown


def test_warnings_are_notes_under_the_table(reports):
    # The same warning for two segmenters is one note, marked on both rows.
    assert "| jieba<sup>†2</sup> |" in reports.markdown
    assert "| jieba-merged<sup>†2</sup> |" in reports.markdown
    assert (
        "2. jieba, jieba-merged: jieba's dictionary was built partly from People's Daily text"
    ) in reports.markdown


def test_tables_are_valid_github_markdown(reports):
    """Every line of a table has as many cells as its header (no stray pipes)."""
    lines = reports.markdown.splitlines()
    table_lines = [line for line in lines if line.startswith("|")]
    assert table_lines
    block: list[int] = []
    for line in [*lines, ""]:
        if line.startswith("|"):
            block.append(len(re.findall(r"(?<!\\)\|", line)))
        elif block:
            assert len(set(block)) == 1, block
            block = []
    # HTML blocks open and close, with the blank lines GitHub needs around tables.
    assert reports.markdown.count("<details>") == reports.markdown.count("</details>") > 0
    assert "<summary>Signatures" in reports.markdown


def test_settings_and_signatures_are_shown(reports, bakeoff):
    from cws_bench.reports.markdown import escape_markdown
    from cws_bench.reports.tables import run_facts

    for key in ("seed", "resamples", "confidence", "alpha", "correction"):
        assert f"| {key} | {bakeoff.settings[key]} |" in reports.markdown
    for key, value in run_facts(bakeoff):
        assert f"| {escape_markdown(key)} | {escape_markdown(value)} |" in reports.markdown
    run = reports.markdown[reports.markdown.index("## Run") :]
    assert "{'" not in run and "[{" not in run  # no Python repr of a setting
    # The run's notes come first, under the title.
    head = reports.markdown.split("\n## ")[0]
    assert "- skipped rjieba: not installed (pip install rjieba)" in head
    signatures = {t.heading: t for t in reports.tables}["Run"].column("Signature")
    assert [s.strip("`").replace("\\|", "|") for s in signatures] == [
        p.signature for p in bakeoff.pairs if p.signature
    ]


def test_heading_level_and_legend(bakeoff):
    text = render_markdown(bakeoff, heading_level=2)
    assert text.startswith("## Leaderboard: report-test\n")
    assert "\n### pd1998\n" in text
    assert "Scores are percentages with two decimals" in text and "paired bootstrap" in text


def test_without_statistics_or_dictionary():
    """A result with no intervals, tests or dictionary prints dashes, not zeros."""
    scores = {"precision": 0.9, "recall": 0.8, "f1": 0.847, "oov_rate": None}
    result = BakeoffResult(
        "bare",
        {},
        (
            PairResult("c", "a", "a", "open", "ok", scores=scores),
            PairResult("c", "b", "b", "open", "ok", scores={**scores, "f1": 0.5}),
        ),
    )
    text = render_markdown(result)
    assert "| a | a | open | 80.00 | 90.00 | **84.70** | — | — | — | — | — | — |" in text
    assert "the run made no significance tests" in text
    empty = render_markdown(replace(result, pairs=()))
    assert empty.startswith("# Leaderboard: bare") and "## Run" in empty
