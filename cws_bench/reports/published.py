"""The published SIGHAN 2005 results under a leaderboard, in every report format.

Under the leaderboard of a SIGHAN 2005 test set (``sighan2005-pku``, ``-msr``,
``-cityu``, ``-as``, scored whole) the reports show the bakeoff's published
baseline, topline and best closed and open runs (:mod:`cws_bench.results.published`),
marked as published and not run here, with their source; then how the run's
``fmm`` rows compare with the published baseline, and why they differ. Other
corpora get nothing. Each renderer calls one function of this module.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from cws_bench.display.tables import escape_markdown, markdown_lines
from cws_bench.reports.tables import Board, format_score, report_units
from cws_bench.results.published import (
    BASELINE_EXPLANATION,
    METRICS,
    BaselineDifference,
    PublishedRow,
    baseline_differences,
    load_published,
    published_for,
)
from cws_bench.score_registry import SCORES

__all__ = [
    "PublishedView",
    "published_headings",
    "published_latex",
    "published_markdown",
    "published_text",
    "published_view",
]

TITLE = "Published results ({source}; not run here)"
"""The heading of the published table in every format."""


@dataclass(frozen=True)
class PublishedView:
    """What a report shows under one leaderboard.

    Attributes:
        corpus: the leaderboard's corpus label.
        rows: the published rows, best F first.
        differences: the run's ``fmm`` rows against the published baseline.
        source_key, citation, url, results_url: the source.
        explanation: why ``fmm`` differs from the published baseline.
    """

    corpus: str
    rows: tuple[PublishedRow, ...]
    differences: tuple[BaselineDifference, ...]
    source_key: str
    citation: str
    url: str
    results_url: str
    explanation: str

    @property
    def title(self) -> str:
        return TITLE.format(source=self.source_key)

    @property
    def tables(self) -> str:
        """The source's tables the rows come from (``Tables 3, 4, 11, 12``)."""
        numbers = sorted({row.table.removeprefix("Table ") for row in self.rows}, key=_number)
        return ("Tables " if len(numbers) > 1 else "Table ") + ", ".join(numbers)

    def source_sentence(self) -> str:
        """Where the figures come from, in one sentence (plain text)."""
        return (
            f"Published, not run here: figures as printed in {self.tables} of "
            f"{self.citation.rstrip('.')} ({self.url}), counted by the bakeoff's scoring "
            f"script (--method sighan here); official results: {self.results_url}."
        )


def _number(text: str) -> tuple[int, str]:
    return (int(text), "") if text.isdigit() else (0, text)


def published_view(board: Board) -> PublishedView | None:
    """The published rows for a leaderboard, or None when none apply to its corpus."""
    dataset = board.dataset or board.corpus  # a labelled corpus keeps its published rows
    rows = published_for(dataset, board.corpus_size().get("gold_words"))
    if not rows:
        return None
    published = load_published()
    return PublishedView(
        corpus=board.corpus,
        rows=rows,
        differences=baseline_differences(dataset, [row.pair for row in board.rows]),
        source_key=published.source_key,
        citation=published.citation,
        url=published.url,
        results_url=published.results_url,
        explanation=BASELINE_EXPLANATION,
    )


def _name(row: PublishedRow) -> str:
    return row.label + (f" ({row.note})" if row.note else "")


def _figures(row: PublishedRow) -> list[str]:
    return [format_score(value) for value in row.figures().values()]


def published_headings(heading: str) -> list[str]:
    """The figures' headings in a kind of table (``board``, ``markdown``, ``latex``,
    ``html``), as the leaderboard above calls each score (:mod:`cws_bench.score_registry`)."""
    shown = [SCORES[name] for name in METRICS]
    if heading == "markdown":
        return [s.markdown or s.board for s in shown]
    return [getattr(s, heading) or s.board for s in shown]


def published_markdown(board: Board) -> list[str]:
    """Markdown lines under a leaderboard (none for a corpus without published rows)."""
    view = published_view(board)
    if view is None:
        return []
    lines = [
        f"**{escape_markdown(view.title)}**",
        "",
        *markdown_lines(
            ["Row", "System", *published_headings("markdown"), "Source"],
            [[row.kind, _name(row), *_figures(row), row.table] for row in view.rows],
            "ll" + "r" * len(METRICS) + "l",
            style="tight",
            escape=True,
        ),
        "",
        escape_markdown(view.source_sentence()),
        "",
    ]
    if view.differences:
        lines += [f"- {escape_markdown(d.sentence(report_units()))}" for d in view.differences]
        lines += ["", escape_markdown(view.explanation), ""]
    return lines


def published_text(board: Board) -> list[str]:
    """Plain-text lines under a terminal leaderboard, indented as its notes are."""
    view = published_view(board)
    if view is None:
        return []
    cells = [[row.kind, _name(row), *_figures(row)] for row in view.rows]
    header = ["", "", *published_headings("board")]
    widths = [max(len(line[i]) for line in [header, *cells]) for i in range(len(header))]

    def line(values: list[str]) -> str:
        padded = [
            value.ljust(width) if i < 2 else value.rjust(width)
            for i, (value, width) in enumerate(zip(values, widths))
        ]
        return "    " + "  ".join(padded).rstrip()

    lines = [f"  {view.title}, {view.tables}:", line(header), *(line(values) for values in cells)]
    lines += [f"  {d.sentence(report_units())}" for d in view.differences]
    return lines


def published_latex(
    board: Board,
    escape_latex: Callable[[str], str],
    tabular: Callable[..., list[str]],
    label: str,
) -> list[str]:
    """A booktabs table of the published rows (after a blank line), or no lines.

    ``escape_latex``, ``tabular`` and the table's ``label`` are
    :mod:`cws_bench.reports.latex`'s, passed in by it (so this module does not import it back).
    """
    view = published_view(board)
    if view is None:
        return []
    header = ["Row", "System", *published_headings("latex"), "Source"]
    body = [
        " & ".join(escape_latex(cell) for cell in [row.kind, _name(row), *_figures(row), row.table])
        for row in view.rows
    ]
    after = [escape_latex(d.sentence(report_units())) for d in view.differences]
    if view.differences:
        after.append(escape_latex(view.explanation))
    caption = (
        f"{escape_latex(view.title)}: {escape_latex(board.corpus)}. "
        f"{escape_latex(view.source_sentence())}"
    )
    return [
        "",
        *tabular(
            "ll" + "r" * len(METRICS) + "l",
            header,
            body,
            caption,
            label=label,
            after=after,
        ),
    ]
