"""``report.html``: one self-contained page with the tables, charts and error analysis.

The page is rendered by Jinja2 (autoescaped) from the templates shipped in
``cws_bench/reports/templates``; its CSS is inline and its charts are inline
SVG drawn by :mod:`cws_bench.reports.charts`, so it opens from a file or an
e-mail attachment with no network. Tables and markers come from the same
:class:`~cws_bench.reports.tables.Board` objects as ``leaderboard.md``.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from cws_bench.reports import charts
from cws_bench.reports import tables as fmt
from cws_bench.reports.buckets import bucket_chart
from cws_bench.reports.published import PublishedView, published_headings, published_view
from cws_bench.reports.tables import Board, BoardRow, build_boards
from cws_bench.results.model import BakeoffResult
from cws_bench.score_registry import board_scores

__all__ = ["example_parts", "render_html"]

DETAILS = (
    "sighan_recall",
    "sighan_precision",
    "boundary_precision",
    "boundary_recall",
    "gold_words",
    "pred_words",
    "correct_words",
    "words_per_s",
    "load_s",
    "train_s",
    "segment_s",
    "peak_memory_mib",
)
"""The columns of each corpus' "More figures" table (R, P, F intervals are in the leaderboard)."""

EXAMPLE_WINDOW = 12
"""Gold words shown on each side of an error in an example sentence."""

SHOWN_PATTERNS = 10
"""Error patterns of each kind shown per pair (results.json keeps all the analysis kept)."""

PATTERN_KINDS = (
    ("splits", "split", "Split: a gold word cut into pieces"),
    ("merges", "merge", "Merged: gold words joined into one"),
    ("crossings", "cross", "Crossing: boundaries in different places"),
)
"""Analysis key, ``distinct`` key and heading of each error kind."""


def example_parts(
    sentence: str, gold: list[str], *, window: int = EXAMPLE_WINDOW
) -> list[tuple[str, bool]]:
    """Cut an example sentence into text and the highlighted error, for display.

    The sentence is the gold words joined by spaces (as
    :class:`~cws_bench.analysis.patterns.ErrorPattern` stores it); the error is the
    first place its gold words occur, at word boundaries. Long sentences are
    clipped to ``window`` words either side, with ``…``.

    >>> example_parts("结婚 的 和 尚未 结婚 的", ["和", "尚未"])
    [('结婚 的 ', False), ('和 尚未', True), (' 结婚 的', False)]
    """
    words = sentence.split(" ")
    size = len(gold)
    start = next((i for i in range(len(words) - size + 1) if words[i : i + size] == gold), None)
    if start is None or size == 0:
        return [(sentence, False)]
    low, high = max(0, start - window), min(len(words), start + size + window)
    before = ("… " if low > 0 else "") + " ".join(words[low:start])
    after = " ".join(words[start + size : high]) + (" …" if high < len(words) else "")
    parts = [
        (before + " " if before else "", False),
        (" ".join(gold), True),
        (" " + after if after else "", False),
    ]
    return [part for part in parts if part[0]]


def anchor(text: str, index: int) -> str:
    """An HTML id for the ``index``-th item named ``text`` (unique even when names clash).

    >>> anchor("pd1998", 0), anchor("人民日报", 1)
    ('pd1998-0', 'x-1')
    """
    slug = re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-")
    return f"{slug or 'x'}-{index}"


@dataclass
class RowAnalysis:
    """The error analysis of one pair, ready for the template."""

    row: BoardRow
    anchor: str
    patterns: list[dict[str, Any]]
    missed_oov: list[dict[str, Any]]
    recall_by_length: list[dict[str, Any]]
    length_chart: str | None


@dataclass(frozen=True)
class SideTable:
    """A table shown under a corpus' leaderboard (LLM rows, subword tokenizers): what it
    shows is decided by :mod:`cws_bench.reports.llm` and :mod:`cws_bench.reports.tokens`,
    as leaderboard.md and the terminal show it."""

    key: str
    intro: str
    header: list[str]
    numeric: list[bool]
    rows: list[list[str]]

    @property
    def align(self) -> str:
        """One of ``l``, ``r`` per column (numbers right-aligned)."""
        return "".join("r" if numeric else "l" for numeric in self.numeric)


def side_tables(board: Board) -> list[SideTable]:
    """The LLM table and the tokenizer table of a corpus, those that have rows."""
    from cws_bench.reports import llm, tokens

    tables = [
        SideTable("llm", llm.INTRO, llm.HEADER, llm.NUMERIC, llm.llm_rows(board)),
        SideTable("tokens", tokens.INTRO, tokens.HEADER, tokens.NUMERIC, tokens.token_rows(board)),
    ]
    return [table for table in tables if table.rows]


@dataclass
class CorpusView:
    """One corpus' section: its board, charts and analyses."""

    board: Board
    anchor: str
    details: list[fmt.Column] = field(default_factory=list)
    side_tables: list[SideTable] = field(default_factory=list)
    charts: list[tuple[str, str]] = field(default_factory=list)
    analyses: list[RowAnalysis] = field(default_factory=list)
    published: PublishedView | None = None  # SIGHAN 2005 corpora: the published rows


def _patterns(analysis: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The shown patterns of each error kind, with their example sentences cut for display."""
    distinct = analysis.get("distinct") or {}
    kinds = []
    for key, kind, title in PATTERN_KINDS:
        shown = [
            {**item, "parts": example_parts(item["sentence"], list(item["gold"]))}
            for item in (analysis.get(key) or [])[:SHOWN_PATTERNS]
        ]
        kinds.append({"key": key, "title": title, "shown": shown, "distinct": distinct.get(kind)})
    return kinds


def _corpus_view(
    board: Board,
    index: int,
    colors: dict[str, str],
    confidence: str,
    lengths: charts.LengthCharts,
) -> CorpusView:
    """Draw a corpus' charts (each pair's recall by length with ``lengths``) and prepare its
    error analyses."""
    from markupsafe import Markup

    view = CorpusView(
        board=board,
        anchor=anchor(board.corpus, index),
        details=fmt.detail_columns(board, DETAILS, confidence),
        published=published_view(board),
        side_tables=side_tables(board),
    )
    drawn = [
        (f"F1 with its {confidence} bootstrap interval", charts.f1_chart),
        ("Precision against recall (grey curves: equal F1)", charts.precision_recall_chart),
        ("F1 against speed (characters per second, log scale)", charts.speed_f1_chart),
        ("Unknown words against known words: OOV recall against IV recall", charts.oov_iv_chart),
        ("Where each segmenter breaks: F1 by bucket (ExplainaBoard style)", bucket_chart),
    ]
    # The charts are SVG drawn by matplotlib, which escapes its text: safe to inline.
    for title, draw in drawn:
        svg = draw(board, colors)
        if svg is not None:
            view.charts.append((title, Markup(svg)))
    for position, row in enumerate(board.rows):
        analysis = row.pair.analysis or {}
        length_chart = lengths.draw(row, board.corpus, colors)
        view.analyses.append(
            RowAnalysis(
                row=row,
                anchor=f"errors-{view.anchor}-{anchor(row.pair.segmenter, position)}",
                patterns=_patterns(analysis),
                missed_oov=list(analysis.get("missed_oov") or [])[:SHOWN_PATTERNS],
                recall_by_length=list(analysis.get("recall_by_length") or []),
                length_chart=Markup(length_chart) if length_chart is not None else None,
            )
        )
    return view


def template_environment(**filters: Any) -> Any:
    """A Jinja2 environment over the packaged templates (autoescaped, strict).

    It has the tables' number formats as filters, plus any ``filters`` given
    (the regression diff page adds its own).
    """
    from jinja2 import Environment, PackageLoader, StrictUndefined

    environment = Environment(
        loader=PackageLoader("cws_bench.reports", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    environment.globals["report_units"] = fmt.report_units
    # the leaderboard's score columns: R, P, F1 (with their intervals), then the others
    environment.globals["score_columns"] = lambda: board_scores("html")
    environment.globals["published_headings"] = published_headings
    environment.filters.update(
        score=fmt.format_score,
        interval=fmt.format_interval,
        halfwidth=fmt.format_halfwidth,
        speed=fmt.format_speed,
        count=fmt.format_count,
        seconds=fmt.format_seconds,
        memory=fmt.format_memory,
        p_value=fmt.format_p_value,
        difference=fmt.format_difference,
        plural=fmt.plural,
        as_json=lambda value: json.dumps(value, ensure_ascii=False, indent=2, sort_keys=False),
    )
    environment.filters.update(filters)
    return environment


@functools.lru_cache(maxsize=1)
def _report_template() -> Any:
    """report.html's template, compiled once per process (0.1 s: a process that writes
    several reports, a notebook, the test suite, compiles it once)."""
    return template_environment().get_template("report.html.j2")


@fmt.with_units
def render_html(result: BakeoffResult) -> str:
    """The bake-off as one self-contained HTML page (UTF-8 text, inline CSS and SVG, no
    external references)."""
    from cws_bench import __version__

    boards = build_boards(result)
    colors = charts.colors_for(result.segmenters())
    confidence = fmt.confidence_label(result.settings)
    lengths = charts.LengthCharts()  # one figure for every pair's chart of recall by length
    views = [
        _corpus_view(board, index, colors, confidence, lengths)
        for index, board in enumerate(boards)
    ]
    from cws_bench.reports.domains import domain_view

    return _report_template().render(
        result=result,
        domains=domain_view(result),
        views=views,
        colors=colors,
        confidence=confidence,
        alpha=result.settings.get("alpha"),
        missing=fmt.MISSING,
        version=__version__,
        shown_patterns=SHOWN_PATTERNS,
        run_notes=fmt.run_notes(result.settings),
        run_facts=fmt.run_facts(result),
        significance_method=fmt.significance_method(result.settings),
        test_name=fmt.paired_test_name(result.settings),
        detectable={
            corpus: fmt.detectable_note(corpus, result.settings) for corpus in result.corpora()
        },
        seeds={corpus: fmt.seed_lines(corpus, result.settings) for corpus in result.corpora()},
        resplits={
            corpus: fmt.resplit_table(corpus, result.settings) for corpus in result.corpora()
        },
        resplit_header=fmt.RESPLIT_HEADER,
        corrected=fmt.letters_corrected(result.settings),
        judged="correction" in result.settings,
        units=fmt.report_units().caption,
        counting=fmt.counting(result.settings),
    )
