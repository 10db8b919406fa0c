"""The picture across corpora: an F1 heatmap, how far each segmenter falls off news, a wide table.

A bake-off over corpora of several domains (``cws-bench bakeoff domains``)
asks one question the per-corpus boards cannot answer: which segmenter holds
up on *my* kind of text? The matrix of every scored pair's F1 (segmenters ×
corpora), its orders, means, worst corpora and the fall-off from news are
computed once, in :mod:`cws_bench.results.across`
(:meth:`~cws_bench.results.model.BakeoffResult.across_corpora`; a contaminated
cell is shown, marked and counted in none); this module only draws and writes
them. A corpus is news when its domain (``settings["corpus_domains"]``, from
each corpus' card) is ``news`` or ``news (...)``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cws_bench.display.tables import escape_markdown, markdown_lines
from cws_bench.reports import tables as fmt
from cws_bench.results.across import (
    DomainMatrix,
    DomainRow,
    FallOff,
    distinct_mean,
    falloff_rows,
    is_news,
)
from cws_bench.results.model import BakeoffResult

__all__ = [
    "EXCLUDED_MARK",
    "DomainMatrix",
    "DomainRow",
    "DomainView",
    "FallOff",
    "distinct_mean",
    "domain_view",
    "excluded_cells",
    "f1_cell",
    "falloff_cells",
    "falloff_chart",
    "falloff_rows",
    "heatmap_chart",
    "is_news",
    "mean_over",
    "render_wide_markdown",
    "wide_rows",
]


def heatmap_chart(matrix: DomainMatrix) -> str:
    """The F1 heatmap as inline SVG: segmenters × corpora, values printed in the cells.

    A colour bar gives the scale. Contaminated cells are shown with their value
    and the mark ``excluded``, hatched grey rather than coloured: they take no
    part in the scale, as they take none in the means.
    """
    import numpy as np

    from cws_bench.reports.charts import cell_text, cell_ticks, heatmap, new_chart, to_svg

    corpora, rows = matrix.corpora, matrix.rows
    data = np.full((len(rows), len(corpora)), np.nan)
    excluded = np.zeros((len(rows), len(corpora)), dtype=bool)
    for i, row in enumerate(rows):
        for j, corpus in enumerate(corpora):
            if corpus in row.f1:
                data[i, j] = row.f1[corpus]
                excluded[i, j] = corpus in row.excluded
    counted = np.where(excluded, np.nan, data)
    if np.isnan(counted).all():  # every cell excluded: the scale spans what is shown
        counted = data
    name = "domains-heatmap"
    with new_chart(name, 2.6 + 0.62 * len(corpora), 1.3 + 0.34 * len(rows)) as figure:
        from matplotlib.patches import Rectangle

        # vector cells (pcolormesh), so the page holds no raster image
        axes, low, high, bar = heatmap(
            figure,
            np.where(excluded, np.nan, data),
            f"F1 ({fmt.report_units().caption.split(' with ')[0]})",
            scale_from=counted,
        )
        bar.ax.yaxis.set_major_formatter(lambda value, _: fmt.format_score(value))
        for i in range(len(rows)):
            for j in range(len(corpora)):
                value = data[i, j]
                if np.isnan(value):
                    cell_text(axes, i, j, fmt.MISSING)
                elif excluded[i, j]:
                    grey: dict[str, Any] = {"facecolor": "#f0f0f0", "edgecolor": "#bbbbbb"}
                    axes.add_patch(Rectangle((j, i), 1, 1, hatch="///", **grey))
                    text = f"{fmt.format_score(value)}\n{EXCLUDED_MARK}"
                    cell_text(axes, i, j, text, fontsize=6, color="#555555")
                else:
                    shade = (value - low) / (high - low) if high > low else 1.0
                    cell_text(axes, i, j, fmt.format_score(value), shade)
        cell_ticks(axes, corpora, [row.segmenter for row in rows])
        return to_svg(figure, name, "F1 of every segmenter on every corpus")


def falloff_chart(falloff: list[FallOff], matrix: DomainMatrix) -> str | None:
    """Each segmenter's F1 on every non-news corpus minus its mean F1 on news, as dots."""
    from cws_bench.reports.charts import PALETTE, light_grid, new_chart, to_svg

    if not falloff:
        return None
    others = [c for c in matrix.corpora if any(c in r.drops for r in falloff)]
    markers = "osD^v<>pXh*"
    name = "domains-falloff"
    with new_chart(name, 6.4, 1.2 + 0.36 * len(falloff)) as figure:
        axes = figure.add_subplot()
        for k, corpus in enumerate(others):
            points = [
                (r.drops[corpus], y) for y, r in enumerate(reversed(falloff)) if corpus in r.drops
            ]
            axes.scatter(
                [x for x, _ in points],
                [y for _, y in points],
                s=22,
                alpha=0.85,
                marker=markers[k % len(markers)],
                color=PALETTE[k % len(PALETTE)],
                label=corpus,
                zorder=3,
            )
        means = [(r.mean_drop or 0.0, y) for y, r in enumerate(reversed(falloff))]
        axes.scatter(
            [x for x, _ in means],
            [y for _, y in means],
            s=120,
            marker="|",
            color="black",
            linewidths=2,
            label="mean",
            zorder=4,
        )
        axes.axvline(0, color="#555555", linewidth=0.8)
        axes.set_yticks(range(len(falloff)), [r.segmenter for r in reversed(falloff)])
        axes.set_ylim(-0.6, len(falloff) - 0.4)
        axes.set_xlabel("F1 on the corpus minus mean F1 on news")
        light_grid(axes)
        axes.grid(False, axis="y")
        axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), ncols=1)
        return to_svg(figure, name, "How far each segmenter falls off news")


def _cell(value: float | None) -> str:
    return fmt.MISSING if value is None else fmt.format_score(value)


EXCLUDED_MARK = "excluded"
"""How a contaminated cell is marked across corpora, as the per-corpus tables mark its row."""


def f1_cell(row: DomainRow, corpus: str, mark: Callable[[str], str] = str) -> str:
    """A row's F1 on one corpus as printed: ``96.41 excluded`` for a contaminated cell.

    ``mark`` dresses the mark (Markdown: in italics).

    >>> row = DomainRow("snownlp", {"pd1998": 0.9641, "sample": 0.9}, {"pd1998": "trained"})
    >>> f1_cell(row, "pd1998"), f1_cell(row, "sample"), f1_cell(row, "other")
    ('96.41 excluded', '90.00', '—')
    """
    text = _cell(row.f1.get(corpus))
    return f"{text} {mark(EXCLUDED_MARK)}" if corpus in row.excluded else text


def mean_over(row: DomainRow) -> str:
    """Over how many corpora a row's mean runs: ``2 corpora``, ``1 corpus``, ``no corpus``.

    >>> mean_over(DomainRow("a", {"x": 0.9, "y": 0.8}, {"x": "trained"}))
    '1 corpus'
    """
    count = len(row.counted)
    return "no corpus" if count == 0 else fmt.plural(count, "corpus", "corpora")


def excluded_cells(matrix: DomainMatrix) -> str:
    """The contaminated cells a matrix shows and counts in nothing, as one sentence ("" for none).

    >>> m = DomainMatrix(["pd1998", "sample"], [DomainRow("snownlp", {"pd1998": 0.96},
    ...     {"pd1998": "trained on this data"})])
    >>> print(excluded_cells(m))  # doctest: +NORMALIZE_WHITESPACE
    excluded: snownlp on pd1998 (trained on this data): shown, but counted in no mean,
    order or worst corpus.
    """
    grouped: dict[tuple[str, str], list[str]] = {}
    for name, corpus, why in matrix.excluded():
        grouped.setdefault((name, why), []).append(corpus)
    if not grouped:
        return ""
    said = "; ".join(
        f"{name} on {', '.join(corpora)} ({why})" for (name, why), corpora in grouped.items()
    )
    return f"{EXCLUDED_MARK}: {said}: shown, but counted in no mean, order or worst corpus."


def _shared_sets(matrix: DomainMatrix) -> str:
    """The groups of corpora that share a test set, ``a = b = c; d = e``."""
    test_sets = matrix.rows[0].test_sets if matrix.rows else {}
    groups: dict[str, list[str]] = {}
    for corpus in matrix.corpora:
        groups.setdefault(test_sets.get(corpus, corpus), []).append(corpus)
    return "; ".join(
        " = ".join(map(escape_markdown, members)) for members in groups.values() if len(members) > 1
    )


def wide_rows(
    matrix: DomainMatrix,
    *,
    name: Callable[[str], str] = str,
    mark: Callable[[str], str] = str,
    shared: bool = True,
) -> list[list[str]]:
    """F1 by corpus as rows of cells: the segmenter, its F1 on each corpus, its mean, over
    how many corpora, its mean over the shared ones (``shared``) and its worst corpus.

    ``name`` writes a segmenter or corpus name (Markdown: escaped), ``mark`` the mark of
    a contaminated cell (:func:`f1_cell`).
    """
    rows = []
    for row in matrix.rows:
        worst = row.worst
        rows.append(
            [
                name(row.segmenter),
                *(f1_cell(row, corpus, mark) for corpus in matrix.corpora),
                _cell(row.mean),
                mean_over(row),
                *([_cell(row.common_mean)] if shared else []),
                f"{name(worst[0])} ({fmt.format_score(worst[1])})" if worst else fmt.MISSING,
            ]
        )
    return rows


def falloff_cells(falloff: list[FallOff], name: Callable[[str], str] = str) -> list[list[str]]:
    """The fall-off from news as rows of cells: the segmenter, its F1 on news, its mean
    difference off news and its worst corpus with its difference."""
    return [
        [
            name(item.segmenter),
            fmt.format_score(item.news_f1),
            fmt.MISSING if item.mean_drop is None else fmt.format_difference(item.mean_drop),
            f"{name(item.worst[0])} ({fmt.format_difference(item.worst[1])})"
            if item.worst
            else fmt.MISSING,
        ]
        for item in falloff
    ]


def render_wide_markdown(result: BakeoffResult, *, heading: str = "##") -> str:
    """F1 by corpus as one wide Markdown table, with each row's mean and worst corpus.

    A contaminated cell is shown, marked *excluded*, and counted in no mean,
    order or worst corpus (:mod:`cws_bench.results.across`); the ``over``
    column says how many corpora each mean counts. Empty when the bake-off
    has fewer than two corpora scored.
    """
    matrix = result.across_corpora()
    if matrix is None:
        return ""
    esc = escape_markdown
    common = matrix.common
    header = [
        "segmenter",
        *map(esc, matrix.corpora),
        "mean",
        "over",
        f"mean of {len(common)} shared",
        "worst corpus",
    ]
    excluded = excluded_cells(matrix)
    lines = [
        f"{heading} F1 by corpus",
        "",
        "Rows: segmenters scored on more corpora first, then by mean F1 over the corpora "
        f"each was scored on ({fmt.MISSING}: not run there); columns by the mean F1 of the "
        "segmenters scored on every corpus. Means are over distinct test sets: corpora "
        "sharing most of their test sentences count once"
        + (f" ({_shared_sets(matrix)})" if _shared_sets(matrix) else "")
        + "; over: the corpora a row's mean counts; mean of shared: over the corpora where "
        "every row counts"
        + (f" ({', '.join(map(esc, common))})" if common else "")
        + ", the one mean that compares across rows.",
        *(["", f"*{esc(excluded)}*"] if excluded else []),
        "",
        *markdown_lines(
            header,
            wide_rows(matrix, name=esc, mark=lambda mark: f"*{mark}*"),
            "l" + "r" * (len(matrix.corpora) + 3) + "l",
            style="plain",
        ),
    ]
    falloff = falloff_rows(matrix)
    if falloff:
        lines += [
            "",
            f"{heading} Off news",
            "",
            f"News corpora: {', '.join(map(esc, matrix.news()))}. "
            "Difference: F1 on the other corpora "
            "minus the segmenter's mean F1 on news (excluded cells counted in neither).",
            "",
            *markdown_lines(
                [
                    "segmenter",
                    "F1 on news",
                    "mean difference off news",
                    "worst corpus (difference)",
                ],
                falloff_cells(falloff, esc),
                "lrrl",
                style="plain",
            ),
        ]
    return "\n".join(lines) + "\n"


@dataclass
class DomainView:
    """What report.html's "Across corpora" section shows.

    Attributes:
        matrix: the F1 matrix (:meth:`~cws_bench.results.model.BakeoffResult.across_corpora`).
        heatmap: the heatmap's SVG.
        falloff: the rows of the fall-off from news; falloff_chart: its SVG (None: no news).
        over: segmenter -> over how many corpora its mean runs (:func:`mean_over`).
        excluded: :func:`excluded_cells` ("" when no cell is contaminated).
    """

    matrix: DomainMatrix
    heatmap: str
    falloff: list[FallOff]
    falloff_chart: str | None
    over: dict[str, str]
    excluded: str = ""


def domain_view(result: BakeoffResult) -> DomainView | None:
    """The heatmap, the fall-off chart and rows for report.html, or None (fewer than 2 corpora)."""
    from markupsafe import Markup

    matrix = result.across_corpora()
    if matrix is None:
        return None
    falloff = falloff_rows(matrix)
    chart = falloff_chart(falloff, matrix)
    # matplotlib escapes the text it writes into the SVG: safe to inline.
    return DomainView(
        matrix,
        Markup(heatmap_chart(matrix)),
        falloff,
        Markup(chart) if chart is not None else None,
        {row.segmenter: mean_over(row) for row in matrix.rows},
        excluded_cells(matrix),
    )
