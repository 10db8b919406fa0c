"""The picture across corpora: an F1 heatmap, how far each segmenter falls off news, a wide table.

A bake-off over corpora of several domains (``cws-bench bakeoff domains``)
asks one question the per-corpus boards cannot answer: which segmenter holds
up on *my* kind of text? :func:`domain_matrix` arranges the F1 of every
scored pair as segmenters × corpora, rows sorted by their mean F1 and columns
by theirs; :func:`heatmap_chart` draws it with the values in the cells,
:func:`falloff_chart` and :func:`falloff_rows` show for each segmenter how
far its F1 on each other corpus lies below its mean F1 on news, and
:func:`render_wide_markdown` is the same matrix as a Markdown table with
each row's mean and worst corpus.

The domain of each corpus comes from the run's settings
(``settings["corpus_domains"]``, label -> domain, written by the bake-off
from each corpus' card); a corpus is news when its domain is ``news`` or
``news (...)``. Only scores stored in the result are shown, never computed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cws_bench.metrics.tables import escape_markdown
from cws_bench.reports import tables as fmt
from cws_bench.results.model import BakeoffResult

__all__ = [
    "DomainMatrix",
    "DomainRow",
    "DomainView",
    "FallOff",
    "distinct_mean",
    "domain_matrix",
    "domain_view",
    "falloff_chart",
    "falloff_rows",
    "heatmap_chart",
    "is_news",
    "render_wide_markdown",
]


def is_news(domain: str | None) -> bool:
    """Whether a corpus' domain is news.

    >>> is_news("news"), is_news("news (Hong Kong)"), is_news("news, Wikipedia (translated)")
    (True, True, False)
    """
    return bool(domain) and (domain == "news" or domain.startswith("news ("))  # type: ignore[union-attr]


def distinct_mean(f1: dict[str, float], test_sets: dict[str, str]) -> float | None:
    """The mean F1 over distinct test sets: corpora of one test set averaged first.

    >>> round(distinct_mean({"gsd": 0.8, "gsdsimp": 0.9, "pku": 0.6}, {"gsdsimp": "gsd"}), 6)
    0.725
    """
    groups: dict[str, list[float]] = {}
    for corpus, value in f1.items():
        groups.setdefault(test_sets.get(corpus, corpus), []).append(value)
    if not groups:
        return None
    means = [sum(values) / len(values) for values in groups.values()]
    return sum(means) / len(means)


@dataclass(frozen=True)
class DomainRow:
    """One segmenter across the corpora: F1 per corpus label, its means and worst corpus.

    Attributes:
        segmenter: the row's label.
        f1: corpus label -> F1.
        test_sets: corpus label -> its test set's group (the run's
            ``settings["corpus_test_sets"]``): corpora of one test set (a
            converted copy, a release in the other script, an older release)
            count once in :attr:`mean`.
        common: the corpora every row of the matrix was scored on.
    """

    segmenter: str
    f1: dict[str, float]
    test_sets: dict[str, str] = field(default_factory=dict)
    common: tuple[str, ...] = ()

    @property
    def mean(self) -> float | None:
        """The mean F1 over the distinct test sets this row was scored on."""
        return distinct_mean(self.f1, self.test_sets)

    @property
    def common_mean(self) -> float | None:
        """The mean F1 over the distinct test sets of the corpora every row has."""
        return distinct_mean({c: self.f1[c] for c in self.common}, self.test_sets)

    @property
    def worst(self) -> tuple[str, float] | None:
        if not self.f1:
            return None
        corpus = min(self.f1, key=lambda c: (self.f1[c], c))
        return corpus, self.f1[corpus]


@dataclass(frozen=True)
class DomainMatrix:
    """F1 of segmenters (rows) on corpora (columns), sorted as :func:`domain_matrix` says."""

    corpora: list[str]
    rows: list[DomainRow]
    domains: dict[str, str] = field(default_factory=dict)

    def column_mean(self, corpus: str) -> float | None:
        values = [row.f1[corpus] for row in self.rows if corpus in row.f1]
        return sum(values) / len(values) if values else None

    def news(self) -> list[str]:
        """The news corpora (scored as written, not converted)."""
        return [c for c in self.corpora if is_news(self.domains.get(c)) and "+" not in c]


def domain_matrix(result: BakeoffResult) -> DomainMatrix | None:
    """The F1 matrix of a bake-off, or None when it has fewer than two corpora scored.

    Rows: the segmenters scored on more corpora first (means over different
    sets of corpora do not compare), then by mean F1. Columns: by the mean F1
    of the segmenters scored on every corpus (all segmenters when none is).
    """
    corpora: list[str] = []
    values: dict[str, dict[str, float]] = {}
    # a row run with several seeds is one row, its mean (BakeoffResult.leaderboard)
    for pair in (p for corpus in result.corpora() for p in result.leaderboard(corpus)):
        f1 = (pair.scores or {}).get("f1") if pair.status == "ok" else None
        if f1 is None:
            continue
        if pair.corpus not in corpora:
            corpora.append(pair.corpus)
        values.setdefault(pair.segmenter, {})[pair.corpus] = f1
    if len(corpora) < 2 or not values:
        return None
    test_sets = dict(result.settings.get("corpus_test_sets") or {})
    common = tuple(c for c in corpora if all(c in f1 for f1 in values.values()))
    rows = [DomainRow(name, f1, test_sets, common) for name, f1 in values.items()]
    # Means over different sets of corpora do not compare: the rows scored on
    # every corpus come first, then those scored on fewer (closed-track rows
    # run only where a corpus has training data), each group by mean F1.
    rows.sort(key=lambda row: (-len(row.f1), -(row.mean or 0.0), row.segmenter))
    complete = [row for row in rows if len(row.f1) == len(corpora)] or rows
    matrix = DomainMatrix(corpora, rows, dict(result.settings.get("corpus_domains") or {}))
    order = {corpus: index for index, corpus in enumerate(corpora)}

    def column_mean(corpus: str) -> float:
        values = [row.f1[corpus] for row in complete if corpus in row.f1]
        return sum(values) / len(values) if values else 0.0

    corpora.sort(key=lambda c: (-column_mean(c), order[c]))
    return matrix


@dataclass(frozen=True)
class FallOff:
    """How a segmenter does off news: its mean F1 on news and each other corpus' difference."""

    segmenter: str
    news_f1: float
    drops: dict[str, float]
    test_sets: dict[str, str] = field(default_factory=dict)

    @property
    def mean_drop(self) -> float | None:
        """The mean difference over distinct test sets (:func:`distinct_mean`)."""
        return distinct_mean(self.drops, self.test_sets)

    @property
    def worst(self) -> tuple[str, float] | None:
        if not self.drops:
            return None
        corpus = min(self.drops, key=lambda c: (self.drops[c], c))
        return corpus, self.drops[corpus]


def falloff_rows(matrix: DomainMatrix) -> list[FallOff]:
    """Per segmenter scored on news: F1 on each non-news corpus minus its mean F1 on news.

    Sorted by the mean difference, the segmenter that holds up best first.
    """
    news = matrix.news()
    rows = []
    for row in matrix.rows:
        on_news = [row.f1[c] for c in news if c in row.f1]
        if not on_news:
            continue
        reference = sum(on_news) / len(on_news)
        drops = {c: f1 - reference for c, f1 in row.f1.items() if c not in news}
        if drops:
            rows.append(FallOff(row.segmenter, reference, drops, row.test_sets))
    rows.sort(key=lambda r: (-(r.mean_drop or 0.0), r.segmenter))
    return rows


def heatmap_chart(matrix: DomainMatrix) -> str:
    """The F1 heatmap as inline SVG: segmenters × corpora, values printed in the cells."""
    import numpy as np

    from cws_bench.reports.charts import new_chart, to_svg

    corpora, rows = matrix.corpora, matrix.rows
    data = np.full((len(rows), len(corpora)), np.nan)
    for i, row in enumerate(rows):
        for j, corpus in enumerate(corpora):
            if corpus in row.f1:
                data[i, j] = row.f1[corpus]
    low = float(np.nanmin(data))
    high = float(np.nanmax(data))
    name = "domains-heatmap"
    with new_chart(name, 1.8 + 0.62 * len(corpora), 1.3 + 0.34 * len(rows)) as figure:
        from matplotlib import colormaps

        cmap = colormaps["viridis"].with_extremes(bad="#f0f0f0")
        axes = figure.add_subplot()
        # vector cells (pcolormesh), so the page holds no raster image
        axes.pcolormesh(
            np.ma.masked_invalid(data),
            cmap=cmap,
            vmin=low,
            vmax=max(high, low + 1e-9),
            edgecolors="white",
            linewidth=1.0,
        )
        axes.invert_yaxis()
        for i in range(len(rows)):
            for j in range(len(corpora)):
                value = data[i, j]
                if np.isnan(value):
                    axes.text(j + 0.5, i + 0.5, fmt.MISSING, ha="center", va="center", color="#999")
                    continue
                shade = (value - low) / (high - low) if high > low else 1.0
                axes.text(
                    j + 0.5,
                    i + 0.5,
                    fmt.format_score(value),
                    ha="center",
                    va="center",
                    fontsize=7,
                    color="black" if shade > 0.6 else "white",
                )
        axes.set_xticks([j + 0.5 for j in range(len(corpora))], corpora, rotation=40, ha="right")
        axes.set_yticks([i + 0.5 for i in range(len(rows))], [row.segmenter for row in rows])
        axes.tick_params(length=0)
        for side in ("left", "bottom"):
            axes.spines[side].set_visible(False)
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


def _shared_sets(matrix: DomainMatrix) -> str:
    """The groups of corpora that share a test set, ``a = b = c; d = e``."""
    test_sets = matrix.rows[0].test_sets if matrix.rows else {}
    groups: dict[str, list[str]] = {}
    for corpus in matrix.corpora:
        groups.setdefault(test_sets.get(corpus, corpus), []).append(corpus)
    return "; ".join(
        " = ".join(map(escape_markdown, members)) for members in groups.values() if len(members) > 1
    )


def render_wide_markdown(result: BakeoffResult, *, heading: str = "##") -> str:
    """F1 by corpus as one wide Markdown table, with each row's mean and worst corpus.

    Empty when the bake-off has fewer than two corpora scored.
    """
    matrix = domain_matrix(result)
    if matrix is None:
        return ""
    esc = escape_markdown
    common = matrix.rows[0].common if matrix.rows else ()
    header = [
        "segmenter",
        *map(esc, matrix.corpora),
        "mean",
        f"mean of {len(common)} shared",
        "worst corpus",
    ]
    lines = [
        f"{heading} F1 by corpus",
        "",
        "Rows: segmenters scored on more corpora first, then by mean F1 over the corpora "
        f"each was scored on ({fmt.MISSING}: not run there); columns by the mean F1 of the "
        "segmenters scored on every corpus. Means are over distinct test sets: corpora "
        "sharing most of their test sentences count once"
        + (f" ({_shared_sets(matrix)})" if _shared_sets(matrix) else "")
        + "; mean of shared: over the corpora every row was scored on"
        + (f" ({', '.join(map(esc, common))})" if common else "")
        + ", the one mean that compares across rows.",
        "",
        "| " + " | ".join(header) + " |",
        "| --- | " + " | ".join("---:" for _ in matrix.corpora) + " | ---: | ---: | --- |",
    ]
    for row in matrix.rows:
        worst = row.worst
        cells = [_cell(row.f1.get(c)) for c in matrix.corpora]
        worst_text = f"{esc(worst[0])} ({fmt.format_score(worst[1])})" if worst else fmt.MISSING
        lines.append(
            "| "
            + " | ".join(
                [esc(row.segmenter), *cells, _cell(row.mean), _cell(row.common_mean), worst_text]
            )
            + " |"
        )
    falloff = falloff_rows(matrix)
    if falloff:
        lines += [
            "",
            f"{heading} Off news",
            "",
            f"News corpora: {', '.join(map(esc, matrix.news()))}. "
            "Difference: F1 on the other corpora "
            "minus the segmenter's mean F1 on news.",
            "",
            "| segmenter | F1 on news | mean difference off news | worst corpus (difference) |",
            "| --- | ---: | ---: | --- |",
        ]
        for item in falloff:
            worst = item.worst
            worst_text = (
                f"{esc(worst[0])} ({fmt.format_difference(worst[1])})" if worst else fmt.MISSING
            )
            mean = item.mean_drop
            lines.append(
                f"| {esc(item.segmenter)} | {fmt.format_score(item.news_f1)} | "
                f"{fmt.MISSING if mean is None else fmt.format_difference(mean)} | {worst_text} |"
            )
    return "\n".join(lines) + "\n"


@dataclass
class DomainView:
    """What report.html's "Across corpora" section shows."""

    matrix: DomainMatrix
    heatmap: str
    falloff: list[FallOff]
    falloff_chart: str | None


def domain_view(result: BakeoffResult) -> DomainView | None:
    """The heatmap, the fall-off chart and rows for report.html, or None (fewer than 2 corpora)."""
    from markupsafe import Markup

    matrix = domain_matrix(result)
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
    )
