"""Tests of cws_bench/reports/charts.py: valid, self-contained SVG; no state left behind."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import replace

import matplotlib
import pytest

from cws_bench.reports import charts
from cws_bench.reports.tables import build_boards

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def boards(bakeoff):
    return build_boards(bakeoff)


@pytest.fixture(scope="module")
def colors(bakeoff):
    return charts.colors_for(bakeoff.segmenters())


@pytest.mark.parametrize(
    "draw",
    [charts.f1_chart, charts.precision_recall_chart, charts.speed_f1_chart, charts.oov_iv_chart],
)
def test_corpus_charts_are_svg_with_text_labels(draw, boards, colors):
    for board in boards:
        svg = draw(board, colors)
        root = ET.fromstring(svg)  # well-formed XML
        assert root.tag == f"{SVG}svg" and root.get("role") == "img"
        assert root.get("width") == "100%" and "viewBox" in root.attrib
        texts = {"".join(t.itertext()).strip() for t in root.iter(f"{SVG}text")}
        # svg.fonttype "none": names are text a reader can select, not glyph paths.
        assert {row.pair.segmenter for row in board.rows} <= texts
        assert not list(root.iter(f"{SVG}image"))
        assert not re.search(r'<path[^>]*id="[^"]*DejaVu', svg)  # no embedded glyphs
        assert "<metadata>" not in svg and "dc:date" not in svg


def test_speed_axis_labels_are_plain_figures(boards, colors):
    # Text is drawn literally, so mathtext tick labels ("$\\mathdefault{10^{5}}$") would
    # show as their source.
    for board in boards:
        svg = charts.speed_f1_chart(board, colors)
        texts = {"".join(t.itertext()).strip() for t in ET.fromstring(svg).iter(f"{SVG}text")}
        assert not any("$" in text or "mathdefault" in text for text in texts)
        assert any(re.fullmatch(r"\d+(\.\d+)?[KM]?", text) for text in texts)


def test_length_chart_per_pair(boards, colors):
    row = boards[0].rows[0]
    svg = charts.LengthCharts().draw(row, boards[0].corpus, colors)
    root = ET.fromstring(svg)
    labels = {"".join(t.itertext()).strip() for t in root.iter(f"{SVG}text")}
    lengths = {str(item["length"]) for item in row.pair.analysis["recall_by_length"]}
    assert lengths <= labels and "Recall" in labels
    assert (
        charts.LengthCharts().draw(replace(row, pair=replace(row.pair, analysis={})), "c", colors)
        is None
    )


def test_length_charts_on_one_figure_draw_each_chart_alone(boards, colors):
    # A report draws every pair's chart on one figure: each chart is the one drawn
    # alone, in whatever order the pairs come (three pairs of each corpus: each chart
    # drawn alone is a figure laid out from nothing, the slow way the shared one avoids).
    rows = [(board.corpus, row) for board in boards for row in board.rows[:3]]
    assert len({corpus for corpus, _ in rows}) > 1 and len(rows) > 4
    alone = [charts.LengthCharts().draw(row, corpus, colors) for corpus, row in rows]
    assert all(alone)
    shared = charts.LengthCharts()
    backwards = [shared.draw(row, corpus, colors) for corpus, row in reversed(rows)]
    assert backwards[::-1] == alone
    # The bars are the ones of the pair drawn, not left over from the one before.
    for svg, (_, row) in zip(alone, rows):
        lengths = row.pair.analysis["recall_by_length"]
        fills = re.findall(r'style="fill: (#[0-9a-f]{6})"', svg.lower())
        bars = [fill for fill in fills if fill not in ("#ffffff", "#444444")]  # not page, text
        assert bars == [colors[row.pair.segmenter].lower()] * len(lengths)


def test_ids_are_unique_across_charts(boards, colors):
    ids: list[str] = []
    for board in boards:
        for draw in (charts.f1_chart, charts.precision_recall_chart, charts.speed_f1_chart):
            svg = draw(board, colors)
            ids += re.findall(r'\bid="([^"]+)"', svg)
            # Every reference points at an id of the same chart.
            own = set(re.findall(r'\bid="([^"]+)"', svg))
            for target in re.findall(r'(?:url\(#|href="#)([^)"]+)', svg):
                assert target in own
    assert len(ids) == len(set(ids))


def test_no_global_matplotlib_state_changes(boards, colors):
    before = dict(matplotlib.rcParams)
    figures = _pyplot_figures()
    charts.f1_chart(boards[0], colors)
    charts.precision_recall_chart(boards[0], colors)
    assert dict(matplotlib.rcParams) == before
    assert _pyplot_figures() == figures


def _pyplot_figures() -> list[int]:
    import sys

    pyplot = sys.modules.get("matplotlib.pyplot")
    return list(pyplot.get_fignums()) if pyplot else []


def test_same_board_same_bytes(boards, colors):
    assert charts.precision_recall_chart(boards[1], colors) == charts.precision_recall_chart(
        boards[1], colors
    )


def test_nothing_to_draw_gives_none(boards, colors):
    empty = replace(boards[0], rows=())
    for draw in (
        charts.f1_chart,
        charts.precision_recall_chart,
        charts.speed_f1_chart,
        charts.oov_iv_chart,
    ):
        assert draw(empty, colors) is None
    no_dictionary = replace(
        boards[0],
        rows=tuple(
            replace(r, pair=replace(r.pair, scores={**r.pair.scores, "oov_recall": None}))
            for r in boards[0].rows
        ),
    )
    assert charts.oov_iv_chart(no_dictionary, colors) is None


def test_colors_are_distinct_then_cycle():
    names = [f"s{i}" for i in range(len(charts.PALETTE) + 1)]
    colors = charts.colors_for(names)
    assert len(set(colors.values())) == len(charts.PALETTE)
    assert set(colors.values()) == set(charts.PALETTE)  # one colour twice, past the palette


def test_a_segmenter_keeps_its_colour_across_reports():
    # The colour comes from the name: not from the position in the run, nor its neighbours.
    alone = {name: charts.colors_for([name])[name] for name in ("fmm", "jieba", "pkuseg", "hmm")}
    assert alone["jieba"] == charts.PALETTE[charts.color_slot("jieba")]
    assert charts.colors_for(["pkuseg", "jieba"]) == {
        "pkuseg": alone["pkuseg"],
        "jieba": alone["jieba"],
    }
    assert charts.colors_for(["jieba", "pkuseg"]) == charts.colors_for(["pkuseg", "jieba"])
    # fmm and hmm hash to one slot here: the name sorting first keeps it, the other moves on,
    # and within one report they never share a colour.
    assert charts.color_slot("fmm") == charts.color_slot("hmm")
    both = charts.colors_for(["hmm", "fmm"])
    assert both["fmm"] == alone["fmm"] and both["hmm"] != both["fmm"]


@pytest.mark.parametrize(
    "draw",
    [charts.f1_chart, charts.precision_recall_chart, charts.speed_f1_chart, charts.oov_iv_chart],
)
def test_a_dollar_in_a_label_is_drawn_literally(draw, boards):
    # matplotlib reads "$...$" as math: "\undefined" made every chart, and so the report, fail.
    names = [r"price$\undefined{$", "a$b$c"]
    board = replace(
        boards[0],
        rows=tuple(
            replace(r, pair=replace(r.pair, segmenter=names[i % 2] + str(i)))
            for i, r in enumerate(boards[0].rows)
        ),
    )
    colors = charts.colors_for([r.pair.segmenter for r in board.rows])
    root = ET.fromstring(draw(board, colors))
    texts = {"".join(t.itertext()).strip() for t in root.iter(f"{SVG}text")}
    assert {r.pair.segmenter for r in board.rows} <= texts


def test_the_warm_up_thread_leaves_no_style_behind():
    """prepare_reports draws a chart in a thread (a bake-off's workers are segmenting
    meanwhile): matplotlib's settings afterwards are what they were."""
    import matplotlib

    from cws_bench.reports import prepare_reports

    before = dict(matplotlib.rcParams)
    thread = prepare_reports()
    thread.join(timeout=60)
    assert not thread.is_alive()
    assert dict(matplotlib.rcParams) == before
