"""The charts of report.html, drawn by matplotlib as SVG to inline in the page.

Every chart is its own :class:`matplotlib.figure.Figure` printed by the SVG
canvas, with its settings in a :func:`matplotlib.rc_context`: nothing goes
through pyplot's global figure manager and no rcParams leak out. Text stays
text (``svg.fonttype: none``), so a reader can select and search the labels,
and each chart salts its element ids with its own name, so many charts share
one page without id clashes and the same result draws the same bytes.

Charts hold ASCII labels only (segmenter and corpus names, axis titles):
Chinese error examples are HTML text, which needs no font on the machine
that draws the chart.
"""

from __future__ import annotations

import contextlib
import io
import math
import re
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, cast

from cws_bench.reports.tables import Board, BoardRow

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "PALETTE",
    "LengthCharts",
    "color_slot",
    "colors_for",
    "f1_chart",
    "oov_iv_chart",
    "precision_recall_chart",
    "speed_f1_chart",
]

# Okabe & Ito (2008), "Color universal design": colours that colour-blind
# readers can tell apart (without their yellow and black, which read badly as
# points among text), then matplotlib's tab10 and dark tab20b/c ones. A label
# hashes to a slot (colors_for), so a wide palette keeps collisions rare.
PALETTE = (
    "#0072B2",
    "#D55E00",
    "#009E73",
    "#CC79A7",
    "#E69F00",
    "#56B4E9",
    "#8c564b",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
    "#d62728",
    "#9467bd",
    "#1f77b4",
    "#2ca02c",
    "#393b79",
    "#843c39",
    "#637939",
    "#7b4173",
    "#e7969c",
    "#3182bd",
)
GRID = "#e3e3e3"
STYLE = {
    "svg.fonttype": "none",
    "font.family": ["DejaVu Sans", "sans-serif"],
    "font.size": 8.5,
    "axes.titlesize": 9.5,
    "axes.labelsize": 8.5,
    "axes.edgecolor": "#888888",
    "axes.spines.top": False,
    "axes.spines.right": False,
    "xtick.color": "#444444",
    "ytick.color": "#444444",
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "legend.fontsize": 8,
    "legend.frameon": False,
    "text.parse_math": False,  # labels are drawn literally: a "$" in a label is not math
}


def color_slot(name: str) -> int:
    """The palette slot a segmenter label asks for: a hash of the label alone.

    BLAKE2b, not Python's ``hash`` (salted per process), so the slot is the
    same in every report and on every machine.

    >>> color_slot("jieba") == color_slot("jieba")
    True
    """
    from cws_bench.text.checksums import hash_hex

    return int(hash_hex(name, "checksum"), 16) % len(PALETTE)


def colors_for(segmenters: Sequence[str]) -> dict[str, str]:
    """One colour per segmenter label, the same in every chart and table, and across reports.

    A label's colour is the palette slot its name hashes to (:func:`color_slot`),
    whatever else the run holds and in whatever order. Two labels of one report
    that hash to the same slot cannot share a colour: the one whose name sorts
    first keeps it and the other takes the next free slot, so a segmenter
    changes colour only in a report that holds such a rival (and never within
    a report). Beyond the palette's size colours repeat.

    >>> colors = colors_for(["fmm", "bmm", "jieba"])
    >>> colors == colors_for(["jieba", "fmm", "bmm"]), len(set(colors.values()))
    (True, 3)
    >>> colors_for(["jieba"])["jieba"] == colors_for(["fmm", "jieba"])["jieba"]
    True
    """
    taken: set[int] = set()
    slots: dict[str, int] = {}
    for name in sorted(set(segmenters), key=lambda n: (color_slot(n), n)):
        slot = color_slot(name)
        for step in range(len(PALETTE)):
            if (slot + step) % len(PALETTE) not in taken:
                slot = (slot + step) % len(PALETTE)
                break
        taken.add(slot)
        if len(taken) == len(PALETTE):
            taken.clear()
        slots[name] = slot
    return {name: PALETTE[slots[name]] for name in segmenters}


@contextlib.contextmanager
def new_chart(name: str, width: float, height: float) -> Iterator[Figure]:
    """A fresh figure under the report's style; ``name`` salts the SVG ids."""
    import matplotlib
    from matplotlib.backends.backend_svg import FigureCanvasSVG
    from matplotlib.figure import Figure

    with matplotlib.rc_context(_style(name)):
        figure = Figure(figsize=(width, height), layout="constrained")
        FigureCanvasSVG(figure)  # the figure draws through the SVG canvas only
        yield figure


def warm_up() -> None:
    """Import matplotlib and draw one small chart: the next charts of this process start
    warm (the imports, the font cache and the SVG backend cost about 0.5 s the first time).

    A bake-off calls it in a thread while its workers segment, so that its
    reports do not pay for it after the last pair. Nothing it draws is kept.
    """
    with new_chart("warm-up", 2.0, 1.5) as figure:
        axes = figure.add_subplot()
        axes.bar([0, 1], [0.5, 1.0], label="warm-up")
        axes.set_title("warm-up")
        axes.legend()
        to_svg(figure, "warm-up", "warm-up")


_ROOT = re.compile(r'<svg ([^>]*?)width="([\d.]+)pt" height="([\d.]+)pt"')


def _style(salt: str) -> Any:
    """The report's style as matplotlib's ``rc_context`` takes it, with the SVG ids' salt."""
    return {**STYLE, "svg.hashsalt": salt}


def to_svg(figure: Figure, name: str, label: str) -> str:
    """Print a figure as an SVG element ready to inline in HTML (must run inside ``new_chart``).

    Every id gets a prefix of its own to the chart (and every reference to it),
    so the structural ids matplotlib repeats in each drawing (``figure_1``,
    ``axes_1``, ...) stay unique on a page of many charts.
    """
    from markupsafe import escape

    from cws_bench.text.checksums import short_hash

    buffer = io.StringIO()
    cast(Any, figure.canvas).print_svg(  # the SVG canvas new_chart gave it
        buffer, metadata={"Date": None, "Creator": None, "Format": None, "Type": None}
    )
    svg = buffer.getvalue()
    svg = svg[svg.index("<svg") :]
    svg = re.sub(r"\s*<metadata>.*?</metadata>", "", svg, count=1, flags=re.DOTALL)
    prefix = f"c{short_hash(name)[:8]}-"
    svg = re.sub(r'\bid="', f'id="{prefix}', svg)
    svg = re.sub(r"url\(#", f"url(#{prefix}", svg)
    svg = re.sub(r'href="#', f'href="#{prefix}', svg)
    # Scale with the page, never beyond the drawn size.
    return _ROOT.sub(
        lambda m: (
            f'<svg {m.group(1)}width="100%" role="img" aria-label="{escape(label)}" '
            f'style="max-width:{m.group(2)}pt;height:auto"'
        ),
        svg,
        count=1,
    )


def heatmap(
    figure: Figure, data: Any, label: str, *, scale_from: Any = None
) -> tuple[Axes, float, float, Any]:
    """Vector heatmap cells of ``data`` (rows top down; NaN cells grey, outside the scale) on
    the figure's one axes, with a vector colour bar labelled ``label``: the drawing every
    heatmap of the reports shares (F by corpus, the board, the audit's agreement).

    The scale spans the finite cells of ``scale_from`` (default: ``data``). Returns the
    axes, the scale's lowest and highest values and the colour bar; the cells' labels and
    the ticks are the caller's.
    """
    import numpy as np
    from matplotlib import colormaps

    values = data if scale_from is None else scale_from
    low, high = float(np.nanmin(values)), float(np.nanmax(values))
    axes = figure.add_subplot()
    mesh = axes.pcolormesh(
        np.ma.masked_invalid(data),
        cmap=colormaps["viridis"].with_extremes(bad="#f0f0f0"),
        vmin=low,
        vmax=max(high, low + 1e-9),
        edgecolors="white",
        linewidth=1.0,
    )
    bar = figure.colorbar(mesh, ax=axes, fraction=0.08, pad=0.03)
    if bar.solids is not None:  # matplotlib rasterizes the bar: keep it vector
        bar.solids.set_rasterized(False)
    bar.set_label(label)
    bar.ax.tick_params(labelsize=7)
    bar.outline.set_visible(False)
    axes.invert_yaxis()
    return axes, low, high, bar


def cell_text(
    axes: Axes, i: int, j: int, text: str, shade: float | None = None, **style: Any
) -> None:
    """Write ``text`` in the middle of a heatmap's cell (row ``i``, column ``j``): at 7 pt in
    black or white, as the colour at ``shade`` (0 to 1 along the scale) needs; grey without."""
    if shade is not None:
        style = {"fontsize": 7, "color": "black" if shade > 0.6 else "white", **style}
    axes.text(j + 0.5, i + 0.5, text, ha="center", va="center", **{"color": "#999", **style})


def cell_ticks(
    axes: Axes, columns: Sequence[str], rows: Sequence[str], spines: bool = False
) -> None:
    """Name a heatmap's columns (slanted) and rows in the middle of its cells, with no tick
    marks, and hide its left and bottom spines (unless ``spines``)."""
    axes.set_xticks([j + 0.5 for j in range(len(columns))], columns, rotation=40, ha="right")
    axes.set_yticks([i + 0.5 for i in range(len(rows))], rows)
    axes.tick_params(length=0)
    for side in () if spines else ("left", "bottom"):
        axes.spines[side].set_visible(False)


def light_grid(axes: Axes) -> None:
    axes.grid(True, color=GRID, linewidth=0.6)
    axes.set_axisbelow(True)


LABEL_SIZE = 7.5
"""Font size (points) of the names beside the points of a scatter chart."""


def _ink(color: str) -> str:
    """A darker shade of a colour, for text that must stay legible on white.

    >>> _ink("#E69F00")
    '#a16f00'
    """
    from matplotlib.colors import to_hex, to_rgb

    red, green, blue = to_rgb(color)
    return to_hex((0.7 * red, 0.7 * green, 0.7 * blue))


Box = tuple[float, float, float, float]
"""A rectangle as (left, bottom, right, top), in points."""


def _label_box(x: float, y: float, width: float, height: float, side: int, dy: float) -> Box:
    """Where a name of ``width`` lands, right (side 1) or left (-1) of a point, ``dy`` above it."""
    left = x + 5 if side > 0 else x - 5 - width
    bottom = y + dy - height / 2
    return left, bottom, left + width, bottom + height


def _inside(box: Box, frame: Box) -> bool:
    return frame[0] <= box[0] and box[2] <= frame[2] and frame[1] <= box[1] and box[3] <= frame[3]


def _covers(box: Box, taken: Sequence[Box]) -> bool:
    return any(box[0] < t[2] and t[0] < box[2] and box[1] < t[3] and t[1] < box[3] for t in taken)


def _settle(figure: Figure) -> None:
    """Compute the figure's layout now and keep it: printing the figure then only draws.

    The constrained layout of a figure is otherwise computed again at every
    draw; the names written beside points are left out of the layout
    (``set_in_layout(False)``), so the layout computed before they are added
    is the one the drawing would compute. One layout and one drawing, instead
    of a drawing to find the positions and a second layout and drawing to print.
    """
    engine = figure.get_layout_engine()
    if engine is not None:
        engine.execute(figure)
    for axes in figure.axes:
        axes.apply_aspect()
    figure.set_layout_engine("none")


def _label_points(axes: Axes, rows: Sequence[tuple[float, float, str, str]]) -> None:
    """Write each point's name beside it, where it covers no other name or point.

    Names are placed greedily, highest point first: right of the point, then
    left, then stepping up and down a line at a time (with a thin leader line
    back to the point). Sizes are estimated from the font size; the layout is
    settled first so that positions are final (:func:`_settle`).
    """
    figure = cast("Figure", axes.figure)
    _settle(figure)
    scale = 72 / figure.dpi  # display pixels to points
    points = [
        tuple(value * scale for value in axes.transData.transform((x, y))) for x, y, _, _ in rows
    ]
    left, bottom, right, top = axes.bbox.extents
    frame = (left * scale, bottom * scale, right * scale, top * scale)
    taken = [(px - 3.5, py - 3.5, px + 3.5, py + 3.5) for px, py in points]
    height = LABEL_SIZE * 1.3
    candidates = [
        (side, step * sign * height)
        for step in range(9)
        for sign in ((1,) if step == 0 else (1, -1))
        for side in (1, -1)
    ]
    for index in sorted(range(len(rows)), key=lambda i: (-rows[i][1], rows[i][0])):
        x, y, name, color = rows[index]
        px, py = points[index]
        width = 0.62 * LABEL_SIZE * len(name)
        boxes = [(side, dy, _label_box(px, py, width, height, side, dy)) for side, dy in candidates]
        side, dy, chosen = next(
            (b for b in boxes if _inside(b[2], frame) and not _covers(b[2], taken)), boxes[0]
        )
        taken.append(chosen)
        label = axes.annotate(
            name,
            (x, y),
            xytext=(5 * side, dy),
            textcoords="offset points",
            ha="left" if side > 0 else "right",
            va="center",
            fontsize=LABEL_SIZE,
            color=_ink(color),
            arrowprops=(
                {"arrowstyle": "-", "color": color, "linewidth": 0.5, "shrinkA": 0, "shrinkB": 3}
                if abs(dy) >= height
                else None
            ),
        )
        label.set_in_layout(False)


def _error(value: float, interval: Any) -> list[list[float]] | None:
    """Error bar lengths below and above ``value`` for an Interval, or None."""
    if interval is None:
        return None
    return [[max(value - interval.low, 0.0)], [max(interval.high - value, 0.0)]]


def _points(
    axes: Axes, rows: Sequence[BoardRow], colors: dict[str, str], x: str, y: str
) -> list[tuple[float, float, str, str]]:
    """Each row's point at its ``x`` and ``y`` figures (scores or timings), with the error
    bars of their intervals; returns where to name each point (:func:`_label_points`)."""
    labels = []
    for row in rows:
        figures = {**row.pair.timing, **row.pair.scores}
        at = (figures[x], figures[y])
        color = colors.get(row.pair.segmenter, PALETTE[0])
        axes.errorbar(
            [at[0]],
            [at[1]],
            xerr=_error(at[0], row.pair.intervals.get(x)),
            yerr=_error(at[1], row.pair.intervals.get(y)),
            fmt="o",
            color=color,
            ecolor=color,
            elinewidth=1,
            markersize=5,
        )
        labels.append((*at, row.pair.segmenter, color))
    return labels


def f1_chart(board: Board, colors: dict[str, str]) -> str | None:
    """F1 of each scored segmenter of a corpus with its bootstrap interval, best on top.

    The page gives each chart its title (as HTML, in ``figcaption``).
    """
    rows = [r for r in board.rows if r.pair.scores.get("f1") is not None]
    if not rows:
        return None
    name = f"f1-{board.corpus}"
    with new_chart(name, 4.6, 0.9 + 0.32 * len(rows)) as figure:
        axes = figure.add_subplot()
        for position, row in enumerate(reversed(rows)):
            f1 = row.pair.scores["f1"]
            color = colors.get(row.pair.segmenter, PALETTE[0])
            axes.errorbar(
                [f1],
                [position],
                xerr=_error(f1, row.pair.intervals.get("f1")),
                fmt="o",
                color=color,
                ecolor=color,
                elinewidth=1.6,
                capsize=3,
                markersize=5,
            )
        axes.set_yticks(range(len(rows)), [row.pair.segmenter for row in reversed(rows)])
        axes.set_ylim(-0.6, len(rows) - 0.4)
        axes.set_xlabel("F1")
        light_grid(axes)
        axes.grid(False, axis="y")
        return to_svg(figure, name, f"F1 with confidence intervals on {board.corpus}")


def _square_limits(values: Sequence[float]) -> tuple[float, float]:
    low, high = min(values), max(values)
    pad = max((high - low) * 0.12, 0.01)
    return max(low - pad, 0.0), min(high + pad, 1.0)


def precision_recall_chart(board: Board, colors: dict[str, str]) -> str | None:
    """Precision against recall, with curves of equal F1."""
    rows = [r for r in board.rows if r.pair.scores.get("precision") is not None]
    if not rows:
        return None
    name = f"pr-{board.corpus}"
    with new_chart(name, 4.6, 3.6) as figure:
        axes = figure.add_subplot()
        keys = ("precision", "recall")
        values = [r.pair.scores[k] for r in rows for k in keys]
        intervals = [r.pair.intervals.get(k) for r in rows for k in keys]
        values += [end for i in intervals if i is not None for end in (i.low, i.high)]
        low, high = _square_limits(values)
        _iso_f1(axes, low, high)
        labels = _points(axes, rows, colors, "recall", "precision")
        axes.set_xlim(low, high)
        axes.set_ylim(low, high)
        axes.set_aspect("equal", adjustable="box")
        axes.set_xlabel("Recall")
        axes.set_ylabel("Precision")
        light_grid(axes)
        _label_points(axes, labels)
        return to_svg(figure, name, f"Precision against recall on {board.corpus}")


def _iso_f1(axes: Axes, low: float, high: float) -> None:
    """Grey curves of equal F1 (P = F·R / (2R − F)) at round levels within the view."""
    import numpy as np

    span = high - low
    step = next(s for s in (0.01, 0.02, 0.05, 0.1, 0.2) if span / s <= 8)
    level = math.ceil(low / step) * step
    while level < high:
        recall = np.linspace(max(level / 2 + 1e-9, low), high, 200)
        precision = level * recall / (2 * recall - level)
        keep = (precision >= low) & (precision <= high)
        if keep.sum() > 1:
            axes.plot(recall[keep], precision[keep], color="#bbbbbb", linewidth=0.7, zorder=0)
            # Name the curves that leave through the right edge, where the names line up.
            if recall[keep][-1] >= high - 1e-9:
                axes.annotate(
                    f"F1={level:.2f}",
                    (recall[keep][-1], precision[keep][-1]),
                    fontsize=6.5,
                    color="#999999",
                    xytext=(-2, 2),
                    textcoords="offset points",
                    ha="right",
                )
        level += step


def speed_label(value: float) -> str:
    """A tick of the speed axis in plain figures.

    >>> [speed_label(v) for v in (10, 1e3, 1e5, 1e6, 2.5e7)]
    ['10', '1K', '100K', '1M', '25M']
    """
    for size, suffix in ((1e6, "M"), (1e3, "K")):
        if value >= size:
            return f"{value / size:g}{suffix}"
    return f"{value:g}"


def speed_f1_chart(board: Board, colors: dict[str, str]) -> str | None:
    """F1 against segmentation speed (characters per second, log scale)."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    rows = [
        r
        for r in board.rows
        if r.pair.scores.get("f1") is not None and (r.pair.timing.get("chars_per_s") or 0) > 0
    ]
    if not rows:
        return None
    name = f"speed-{board.corpus}"
    with new_chart(name, 4.6, 3.6) as figure:
        axes = figure.add_subplot()
        labels = _points(axes, rows, colors, "chars_per_s", "f1")
        axes.set_xscale("log")
        # Text is drawn literally (no mathtext), so the log axis' default "$10^{5}$" labels
        # would show as their source: label the decades in plain figures instead.
        axes.xaxis.set_major_formatter(FuncFormatter(lambda value, _: speed_label(value)))
        axes.xaxis.set_minor_formatter(NullFormatter())
        speeds = [r[0] for r in labels]
        axes.set_xlim(min(speeds) / 2, max(speeds) * 3)
        axes.set_xlabel("Characters per second (log scale)")
        axes.set_ylabel("F1")
        light_grid(axes)
        _label_points(axes, labels)
        return to_svg(figure, name, f"F1 against speed on {board.corpus}")


def oov_iv_chart(board: Board, colors: dict[str, str]) -> str | None:
    """Recall of out-of-vocabulary words against recall of in-vocabulary words."""
    rows = [
        r
        for r in board.rows
        if r.pair.scores.get("oov_recall") is not None
        and r.pair.scores.get("iv_recall") is not None
    ]
    if not rows:
        return None
    name = f"oov-{board.corpus}"
    with new_chart(name, 4.6, 3.6) as figure:
        axes = figure.add_subplot()
        labels = []
        for row in rows:
            iv, oov = row.pair.scores["iv_recall"], row.pair.scores["oov_recall"]
            color = colors.get(row.pair.segmenter, PALETTE[0])
            axes.plot([iv], [oov], "o", color=color, markersize=5)
            labels.append((iv, oov, row.pair.segmenter, color))
        axes.set_xlim(*_square_limits([r[0] for r in labels]))
        axes.set_ylim(*_square_limits([r[1] for r in labels]))
        axes.set_xlabel("IV recall (R_iv)")
        axes.set_ylabel("OOV recall (R_oov)")
        light_grid(axes)
        _label_points(axes, labels)
        return to_svg(figure, name, f"OOV recall against IV recall on {board.corpus}")


class LengthCharts:
    """Draws the recall-by-length bar chart of each pair of a report, all on one figure.

    The charts differ only in their bars, colour and x labels: one figure is made and
    laid out once (constrained layout, then kept: :func:`_settle`), since labels
    of word lengths (a few digits, centred under bars) never reach the margins.
    Each chart then only swaps the bars and the x ticks before printing: no new
    figure, axes or layout per pair, and a chart's bytes do not depend on the
    charts drawn before it.
    """

    def __init__(self) -> None:
        self._figure: Figure | None = None
        self._bars: Any = None

    def _axes(self) -> Axes:
        """The figure's only axes, made (with its fixed parts) on first use."""
        if self._figure is None:
            with new_chart("length", 3.4, 1.9) as figure:  # each chart salts its own ids
                axes = figure.add_subplot()
                axes.set_ylim(0, 1)
                axes.set_xlabel("Gold word length (characters)")
                axes.set_ylabel("Recall")
                light_grid(axes)
                axes.grid(False, axis="x")
                # Laid out once, on a length label: the same layout whatever is drawn first.
                axes.set_xticks([0], ["1"])
                _settle(figure)
            self._figure = figure
        return self._figure.axes[0]

    def draw(self, row: BoardRow, corpus: str, colors: dict[str, str]) -> str | None:
        """Recall of the pair's gold words by their length in characters, or None."""
        import matplotlib

        lengths = row.pair.analysis.get("recall_by_length") or []
        if not lengths:
            return None
        segmenter = row.pair.segmenter
        name = f"length-{corpus}-{segmenter}"
        axes = self._axes()
        figure = cast("Figure", axes.figure)
        with matplotlib.rc_context(_style(name)):
            if self._bars is not None:
                self._bars.remove()
            positions = range(len(lengths))
            self._bars = axes.bar(
                positions,
                [item["recall"] for item in lengths],
                color=colors.get(segmenter, PALETTE[0]),
                width=0.7,
            )
            axes.set_xticks(positions, [str(item["length"]) for item in lengths])
            # What autoscaling gives (bars 0.7 wide, the axes' margins), without a relim.
            margin = matplotlib.rcParams["axes.xmargin"] * (len(lengths) - 0.3)
            axes.set_xlim(-0.35 - margin, len(lengths) - 0.65 + margin)
            return to_svg(figure, name, f"Recall by word length of {segmenter} on {corpus}")
