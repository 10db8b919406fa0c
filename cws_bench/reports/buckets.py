"""report.html's chart of where each segmenter breaks: F1 by bucket (cws_bench/analysis/buckets.py).

One figure per corpus, one panel per attribute (word length, training
frequency, sentence length, character class), one line per segmenter in its
report colour, each point the F1 of the words of that bucket. The numbers
come from each pair's ``analysis["buckets"]`` in results.json; pairs run
before buckets existed have none and are left out.
"""

from __future__ import annotations

from cws_bench.reports.tables import Board

__all__ = ["PANELS", "bucket_chart"]

PANELS = (
    ("word_length", "word length (characters)"),
    ("frequency", "frequency in training data"),
    ("sentence_length", "sentence length (characters)"),
    ("character_class", "character class"),
)


def bucket_chart(board: Board, colors: dict[str, str]) -> str | None:
    """F1 by bucket of every attribute for the segmenters of one corpus, as inline SVG."""
    from cws_bench.reports.charts import PALETTE, light_grid, new_chart, to_svg

    found = [(row.pair.segmenter, (row.pair.analysis or {}).get("buckets")) for row in board.rows]
    rows = [(segmenter, buckets) for segmenter, buckets in found if buckets]
    if not rows:
        return None
    panels = [(key, title) for key, title in PANELS if any(b.get(key) for _, b in rows)]
    if not panels:  # a corpus without words: every bucket is empty
        return None
    name = f"buckets-{board.corpus}"
    columns = 2 if len(panels) > 1 else 1
    lines = (len(panels) + 1) // 2
    with new_chart(name, 5.6, 0.9 + 2.0 * lines) as figure:
        grid = figure.subplots(lines, columns, sharey=True, squeeze=False).flatten()
        for axes in grid[len(panels) :]:
            axes.set_visible(False)
        for axes, (key, title) in zip(grid, panels):
            seen = (item["bucket"] for _, buckets in rows for item in buckets.get(key) or [])
            order = list(dict.fromkeys(seen))
            for segmenter, buckets in rows:
                points = {
                    item["bucket"]: item["f1"]
                    for item in buckets.get(key) or []
                    if item["f1"] is not None
                }
                xs = [i for i, bucket in enumerate(order) if bucket in points]
                axes.plot(
                    xs,
                    [points[order[i]] for i in xs],
                    marker="o",
                    markersize=3.5,
                    linewidth=1.2,
                    color=colors.get(segmenter, PALETTE[0]),
                    label=segmenter,
                )
            axes.set_xticks(range(len(order)), order)
            # At the top of the axes, where matplotlib would put it too (nothing is drawn
            # above the axes): placing it itself measures the whole y axis at every draw.
            axes.set_title(title, y=1.0)
            light_grid(axes)
        for axes in grid[::columns]:
            axes.set_ylabel("F1")
        handles, labels = grid[0].get_legend_handles_labels()
        figure.legend(handles, labels, loc="outside lower center", ncols=min(len(labels), 5))
        return to_svg(figure, name, f"F1 by bucket on {board.corpus}")
