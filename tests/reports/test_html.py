"""Tests of cws_bench/reports/html.py on a real bake-off result, read back from the page."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace

import pytest

from cws_bench.reports import render_html
from cws_bench.reports.html import example_parts
from cws_bench.reports.tables import format_interval, format_score
from cws_bench.results.model import BakeoffResult, PairResult


def first_text(cell) -> str:
    """The text of a cell before its <small> interval."""
    return "".join(c for c in cell.children if isinstance(c, str)).strip()


def leaderboard_rows(reports):
    tables = reports.page.root.find_all("table", "leaderboard")
    return [
        (table, [row for row in table.find_all("tr") if "data-segmenter" in row.attrs])
        for table in tables
    ]


def test_page_parses_with_every_tag_closed(reports):
    assert reports.page.errors == []
    assert [e.tag for e in reports.page.stack] == ["#document"]
    assert reports.html.startswith("<!DOCTYPE html>")


def test_no_external_references(reports):
    for tag, name, value in reports.page.attributes:
        if name in {"href", "xlink:href"}:
            assert value and value.startswith("#"), (tag, name, value)
        assert name != "src", (tag, value)
    lowered = reports.html.lower()
    for needle in ("<script", "<link", "<img", "<iframe", "<object", "<embed", "@import", "//"):
        assert needle not in lowered.replace("http://www.w3.org/", ""), needle
    # CSS and SVG may point inside the page only (clip paths: url(#id)).
    assert re.findall(r"url\(\s*[^#\s]", reports.html) == []
    # The only "http" left are the SVG namespace names, which a browser never fetches.
    for match in re.finditer(r"https?://[^\s\"'<>]+", reports.html):
        assert match.group(0) in {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}


def test_ids_are_unique_and_anchors_resolve(reports):
    ids = Counter(v for _, name, v in reports.page.attributes if name == "id")
    assert ids and max(ids.values()) == 1, [i for i, n in ids.items() if n > 1]
    for _, name, value in reports.page.attributes:
        if name in {"href", "xlink:href"}:
            assert value[1:] in ids, value


def test_one_sorted_leaderboard_per_corpus(reports, bakeoff):
    tables = leaderboard_rows(reports)
    assert len(tables) == len(bakeoff.corpora())
    for corpus, (_, rows) in zip(bakeoff.corpora(), tables):
        assert [row.attrs["data-segmenter"] for row in rows] == [
            p.segmenter for p in bakeoff.leaderboard(corpus)
        ]


def test_cells_equal_the_json_values_rounded(reports, bakeoff):
    for corpus, (_, rows) in zip(bakeoff.corpora(), leaderboard_rows(reports)):
        by_name = {p.segmenter: p for p in bakeoff.pairs if p.corpus == corpus}
        for row in rows:
            p = by_name[row.attrs["data-segmenter"]]
            if not p.ok:
                assert "failed" in row.classes()
                continue
            cells = {c: cell for cell in row.find_all("td") for c in cell.classes()}
            for metric in ("recall", "precision", "f1"):
                assert first_text(cells[metric]) == format_score(p.scores[metric])
                (small,) = cells[metric].find_all("small")
                assert small.text() == format_interval(p.intervals[metric])
            if p.contaminated:
                assert "excluded" in row.classes()
                assert cells["beats"].text().strip() == "excluded: trained on this data"
                continue
            assert cells["beats"].text().split() == [
                row_letter
                for other, row_letter in zip(
                    [q for q in bakeoff.leaderboard(corpus) if q.ok], "abcdefgh"
                )
                if other is not p and _beats(bakeoff, corpus, p.segmenter, other.segmenter)
            ]


def _beats(bakeoff, corpus, first, second) -> bool:
    for c in bakeoff.comparisons:
        if c.corpus == corpus and c.significant:
            if (c.a, c.b) == (first, second) and c.difference > 0:
                return True
            if (c.a, c.b) == (second, first) and c.difference < 0:
                return True
    return False


def test_every_number_in_a_table_is_in_results_json(reports):
    cells = [
        cell
        for table in reports.page.root.find_all("table")
        for cell in table.find_all("td")
        if "num" in cell.classes()
    ]
    assert len(cells) > 500
    for cell in cells:
        for part in [first_text(cell), *(s.text() for s in cell.find_all("small"))]:
            assert reports.untraceable(part) == [], part
    # Corpus sizes under each corpus heading, then who wins each track.
    metas = [p.text() for p in reports.page.root.find_all("p", "meta")][1:]
    sizes = [text for text in metas if "sentences" in text]
    assert len(sizes) == 2
    for text in sizes:
        assert reports.untraceable(text) == [], text
    verdicts = [text for text in metas if "track:" in text]
    assert [text.split(":")[0] for text in verdicts] == ["Closed track", "Open track"] * 2
    # The winners' F1 and interval on the summary cards: one per corpus and track.
    figures = reports.page.root.find_all("div", "figure")
    assert len(figures) == 4
    for figure in figures:
        assert reports.untraceable(figure.text()) == [], figure.text()


def test_run_notes_and_warnings_are_shown(reports):
    (notes,) = reports.page.root.find_all("ul", "run-notes")
    assert notes.text().strip() == "skipped rjieba: not installed (pip install rjieba)"
    warnings = [w.text() for w in reports.page.root.find_all("ol", "notes")]
    assert len(warnings) == 1 and "built partly from People's Daily text" in warnings[0]


def test_failed_pairs_show_their_escaped_error(reports):
    failed = [
        row for _, rows in leaderboard_rows(reports) for row in rows if "failed" in row.classes()
    ]
    assert [row.attrs["data-segmenter"] for row in failed] == ["thulac", "thulac", "slow|model"]
    assert "segmenter thulac: not available" in failed[0].text()
    assert "&lt;after 1948 lines&gt;" in reports.html
    assert "<after 1948 lines>" not in reports.html


def test_charts_are_inline_svg_with_selectable_text(reports, bakeoff):
    svgs = reports.page.root.find_all("svg")
    scored = [p for p in bakeoff.pairs if p.ok]
    # Five charts a corpus (the fifth: F1 by bucket, cws_bench/reports/buckets.py, since
    # every pair the bake-off assembles has its buckets) and one recall-by-length chart a
    # scored pair, plus the "Across corpora" heatmap and fall-off charts (reports/domains.py).
    from cws_bench.reports.domains import domain_view

    across = domain_view(bakeoff)
    extra = 0 if across is None else 1 + (across.falloff_chart is not None)
    assert len(svgs) == 5 * len(bakeoff.corpora()) + len(scored) + extra
    for svg in svgs:
        assert svg.attrs.get("role") == "img" and svg.attrs.get("aria-label")
        assert "viewbox" in svg.attrs
    texts = {t.text().strip() for svg in svgs for t in svg.find_all("text")}
    assert {"jieba", "jieba-nohmm", "chars", "F1", "Recall"} <= texts


def test_error_analysis_of_every_scored_pair(reports, bakeoff):
    sections = reports.page.root.find_all("details", "pair")
    scored = [p for corpus in bakeoff.corpora() for p in bakeoff.leaderboard(corpus) if p.ok]
    assert len(sections) == len(scored)
    for section, p in zip(sections, scored):
        assert section.find_all("strong")[0].text() == p.segmenter
        shown = {
            kind: len(t.find_all("tr")) - 1
            for t in section.find_all("table", "errors")
            for kind in t.classes() - {"errors"}
        }
        for kind in ("splits", "merges", "crossings"):
            assert shown.get(kind, 0) == min(len(p.analysis[kind]), 10), (p.segmenter, kind)
        lengths = section.find_all("table", "lengths")[0].find_all("tr")[1:]
        assert len(lengths) == len(p.analysis["recall_by_length"])
    first = bakeoff.pairs[0].analysis["merges"][0]
    marks = {m.text() for m in reports.page.root.find_all("mark")}
    assert " ".join(first["gold"]) in marks
    missed = {
        cell.text()
        for t in reports.page.root.find_all("table", "missed")
        for cell in t.find_all("td")
    }
    assert bakeoff.pairs[0].analysis["missed_oov"][0]["word"] in missed


@pytest.mark.parametrize(
    ("sentence", "gold", "expected"),
    [
        ("我们 是 学生", ["我们"], [("我们", True), (" 是 学生", False)]),
        ("我们 是 学生", ["学生"], [("我们 是 ", False), ("学生", True)]),
        ("一 二 三", ["四"], [("一 二 三", False)]),
        # The words must match whole: 学 is not the first word of 学生.
        ("学生 学 生", ["学", "生"], [("学生 ", False), ("学 生", True)]),
    ],
)
def test_example_parts(sentence, gold, expected):
    assert example_parts(sentence, gold) == expected


def test_long_examples_are_clipped_around_the_error():
    words = [f"w{i}" for i in range(100)]
    parts = example_parts(" ".join(words), ["w50"], window=3)
    assert parts == [("… w47 w48 w49 ", False), ("w50", True), (" w51 w52 w53 …", False)]


def test_same_result_same_page(bakeoff):
    """Deterministic output: SVG ids are salted by chart name, no dates in the charts."""
    assert render_html(bakeoff) == render_html(BakeoffResult.from_dict(bakeoff.to_dict()))


def test_degenerate_results_render():
    scores = {"precision": 0.9, "recall": 0.8, "f1": 0.847, "oov_rate": None}
    ok = PairResult("c<1>", "a&b", "a", "open", "ok", scores=scores)
    for pairs in [(), (replace(ok, status="failed", scores={}, error="boom"),), (ok,)]:
        html = render_html(BakeoffResult("bare", {}, pairs))
        assert html.rstrip().endswith("</html>")
    assert "c&lt;1&gt;" in html and "a&amp;b" in html and "c<1>" not in html
