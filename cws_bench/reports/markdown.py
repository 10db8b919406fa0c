"""``leaderboard.md``: the bake-off as GitHub-flavoured Markdown tables.

One table per corpus in the SIGHAN bakeoff's columns (R, P, F, OOV rate,
R_oov, R_iv), with the bootstrap interval of F, speed and ranx-style
significance letters, best F first; failed pairs, warnings, the run's
settings and every pair's signature follow. The page reads well on GitHub
and as plain text, so a run's leaderboard can be pasted into a README.
"""

from __future__ import annotations

from collections.abc import Mapping

from cws_bench.display.tables import escape_markdown, markdown_lines
from cws_bench.reports.html import side_tables
from cws_bench.reports.published import published_markdown
from cws_bench.reports.tables import (
    MISSING,
    RESPLIT_HEADER,
    Board,
    BoardRow,
    build_boards,
    confidence_label,
    counting,
    counting_rule,
    detail_columns,
    detectable_note,
    format_speed,
    letters_corrected,
    paired_test_name,
    report_units,
    resplit_table,
    run_facts,
    run_notes,
    score_cells,
    score_header,
    seed_lines,
    significance_method,
    significance_note,
    track_verdict,
    with_units,
)
from cws_bench.results.model import BakeoffResult
from cws_bench.score_registry import Score, board_scores

__all__ = ["escape_markdown", "render_markdown"]


SIDE_STYLES = {"llm": "tight", "tokens": "spaced"}
"""How leaderboard.md rules each side table's header."""


def _marks(row: BoardRow) -> str:
    return "".join(f"<sup>†{n}</sup>" for n in row.notes)


def _name(row: BoardRow) -> str:
    return f"{escape_markdown(row.pair.segmenter)}{_marks(row)}"


def _heading(score: Score) -> str:
    return score.markdown or score.board


def _bold(text: str) -> str:
    return f"**{text}**"


def _beats_cell(board: Board, row: BoardRow) -> str:
    if row.excluded:
        return f"*excluded: {row.pair.exclusion}*"
    return " ".join(row.beats) if board.tested else MISSING


def _main_table(board: Board, confidence: str) -> list[str]:
    shown = board_scores()  # R, P, F (its interval after it), the dictionary's
    header = ["#", "Segmenter", "Track", *score_header(confidence, _heading)]
    header += ["chars/s", "Better than"]
    rows = []
    for row in board.rows:
        f1 = _bold if board.is_winner(row) else str
        cells = [row.letter, _name(row), escape_markdown(row.pair.track), *score_cells(row, f1)]
        rows.append(
            [*cells, format_speed(row.pair.timing.get("chars_per_s")), _beats_cell(board, row)]
        )
    for pair in board.failed:
        rows.append(
            [
                "",
                f"{escape_markdown(pair.segmenter)} *({escape_markdown(pair.status)})*",
                escape_markdown(pair.track),
                *[MISSING] * (len(shown) + 2),
                "",
            ]
        )
    return markdown_lines(header, rows, "clc" + "r" * (len(shown) + 2) + "l", style="tight")


DETAILS = (
    "recall_ci",
    "sighan_recall",
    "precision_ci",
    "sighan_precision",
    "boundary_f1",
    "words_per_s",
    "load_s",
    "train_s",
    "segment_s",
    "peak_memory_mib",
)
"""The columns of the collapsed table under each leaderboard."""


def _details_table(board: Board, confidence: str) -> list[str]:
    columns = detail_columns(board, DETAILS, confidence)
    header = ["#", "Segmenter", *(column.header for column in columns)]
    rows = [
        [row.letter, escape_markdown(row.pair.segmenter), *(c.cell(row.pair) for c in columns)]
        for row in board.rows
    ]
    return markdown_lines(header, rows, "cl" + "r" * len(columns), style="tight")


def _verdict(board: Board) -> str:
    if not board.rows:
        return "No segmenter was scored on this corpus."
    tracks = len(board.winners)
    return " ".join(
        (f"{w.track.capitalize()} track: " if tracks > 1 else f"{w.track.capitalize()} track, ")
        + track_verdict(
            w,
            tracks,
            escape_markdown,
            _marks,
            bold="**",
            untested="the run made no significance tests",
        )
        + "."
        for w in board.winners
    )


def _corpus_section(board: Board, result: BakeoffResult, level: str) -> list[str]:
    confidence = confidence_label(result.settings)
    lines = [f"{level}# {escape_markdown(board.corpus)}", ""]
    size = " · ".join(board.size_facts())
    lines += [f"{size}. {_verdict(board)}" if size else _verdict(board), ""]
    lines += _main_table(board, confidence)
    lines.append("")
    method = significance_note(board, result.settings)
    if method:
        lines += [escape_markdown(method), ""]
    detectable = detectable_note(board.corpus, result.settings)
    if detectable:
        lines += [escape_markdown(detectable), ""]
    lines += [
        line
        for seeded in seed_lines(board.corpus, result.settings)
        for line in (escape_markdown(seeded), "")
    ]
    lines += _resplit_section(board.corpus, result.settings)
    if board.notes:
        lines.append("Notes:")
        lines.append("")
        lines += [
            f"{number}. {escape_markdown(segmenter)}: {escape_markdown(warning)}"
            for number, (segmenter, warning) in enumerate(board.notes, start=1)
        ]
        lines.append("")
    if board.failed:
        lines.append("Not scored:")
        lines.append("")
        lines += [
            f"- **{escape_markdown(p.segmenter)}** ({escape_markdown(p.status)}): "
            f"{escape_markdown(p.error or 'no error message recorded')}"
            for p in board.failed
        ]
        lines.append("")
    lines += published_markdown(board)  # SIGHAN 2005 corpora: the published rows
    for side in side_tables(board):  # LLM rows (fidelity, latency, cost); subword tokenizers
        style = SIDE_STYLES[side.key]
        table = markdown_lines(side.header, side.rows, side.align, style=style, escape=True)
        lines += [side.intro, "", *table, ""]
    if board.rows:
        summary = "Confidence intervals, boundaries, speed and memory"
        lines += _folded(summary, _details_table(board, confidence))
    return lines


def _folded(summary: str, lines: list[str]) -> list[str]:
    """Lines folded away under a summary (``<details>``)."""
    return [f"<details><summary>{summary}</summary>", "", *lines, "", "</details>", ""]


def _resplit_section(corpus: str, settings: Mapping[str, object]) -> list[str]:
    """How often each verdict held on the corpus' re-splits: a sentence and a table."""
    found = resplit_table(corpus, settings)
    if found is None:
        return []
    text, rows = found
    lines = [escape_markdown(text), ""]
    if rows:
        lines += [*markdown_lines(RESPLIT_HEADER, rows, "lllrrr", style="tight", escape=True), ""]
    return lines


def _legend(result: BakeoffResult) -> list[str]:
    confidence = confidence_label(result.settings)
    settings = result.settings
    resampling = ", ".join(
        f"{label} {escape_markdown(str(settings[key]))}"
        for key, label in (("resamples", "resamples"), ("seed", "seed"), ("alpha", "alpha"))
        if key in settings
    )
    resampling = f" ({resampling})" if resampling else ""
    return [
        "Legend:",
        "",
        f"- Scores are {report_units().caption} ({counting(settings)}: "
        f"{counting_rule(settings)}). R, P, F: word recall, precision and F1.",
        "- OOV rate: share of gold words missing from the corpus' dictionary; R_oov, R_iv: "
        f"recall of out-of-vocabulary and in-vocabulary gold words ({MISSING} without a "
        "dictionary).",
        f"- F {confidence} CI: bootstrap confidence interval over sentences{resampling}. "
        "C_r, C_p: the SIGHAN bakeoff's ±2·sqrt(p(1−p)/n).",
        "- Tracks are ranked apart, as SIGHAN reports them: closed (only the corpus' training "
        "data) before open, each with its winner, whose F is bold. Within a track rows are "
        "sorted by F, best first; a segmenter scored on its own training data is shown, "
        "marked and listed last in its track, never wins and is in no row's letters.",
        "- \\#: the row's letter. Better than: the letters of the segmenters of the same track "
        f"whose F this one beats in a {paired_test_name(settings)} test over sentences, "
        f"{escape_markdown(significance_method(settings))}; letters are "
        f"{'corrected' if letters_corrected(settings) else 'not corrected'} for multiple "
        "comparisons.",
        "- chars/s, words/s: segmentation speed (loading and training excluded: see load s, "
        f"train s; {MISSING} for a segmenter that only reads segmentations made elsewhere). "
        "Peak MiB: the worker's peak resident memory.",
        "- †n: see note n under the table (a warning every segmenter of a corpus got is a "
        "note about the corpus, with no mark). Failed and timed-out pairs are listed last, "
        "with their error.",
        "",
    ]


def _run_section(result: BakeoffResult, level: str) -> list[str]:
    lines = [f"{level}# Run", ""]
    facts = run_facts(result)
    facts += [(str(key), str(value)) for key, value in result.environment.items()]
    lines += [*markdown_lines(["Fact", "Value"], facts, "ll", style="tight", escape=True), ""]
    signed = [p for p in result.pairs if p.signature or p.scores.get("signature")]
    if signed:
        rows = [
            [
                escape_markdown(p.corpus),
                escape_markdown(p.segmenter),
                # GitHub splits table cells on "|" even inside code spans.
                "`" + str(p.signature or p.scores.get("signature")).replace("|", "\\|") + "`",
            ]
            for p in signed
        ]
        table = markdown_lines(["Corpus", "Segmenter", "Signature"], rows, "lll", style="tight")
        lines += _folded("Signatures (every setting that can change a number)", table)
    return lines


@with_units
def render_markdown(result: BakeoffResult, *, heading_level: int = 1) -> str:
    """The leaderboard of a bake-off as GitHub-flavoured Markdown, ending in a newline.

    ``heading_level`` is the level of the page's title (corpora one below), so the
    leaderboard can be pasted under a README section.
    """
    top = "#" * heading_level
    lines = [f"{top} Leaderboard: {escape_markdown(result.name)}", ""]
    notes = run_notes(result.settings)
    if notes:
        lines += ["Run notes:", "", *(f"- {escape_markdown(note)}" for note in notes), ""]
    for board in build_boards(result):
        lines += _corpus_section(board, result, top)
    from cws_bench.reports.domains import render_wide_markdown  # the picture across corpora

    lines += render_wide_markdown(result, heading=top + "#").splitlines()
    lines += _legend(result)
    lines += _run_section(result, top)
    return "\n".join(lines).rstrip("\n") + "\n"
