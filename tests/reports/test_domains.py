"""Tests of cws_bench/reports/domains.py: the F1 heatmap, the fall-off off news, the wide table."""

from __future__ import annotations

import re

import pytest

from cws_bench.reports import render_html, render_markdown
from cws_bench.reports.domains import falloff_rows, render_wide_markdown
from cws_bench.results.model import BakeoffResult, PairResult

# F1 by hand: segmenter -> corpus -> F1 (a missing corpus: not run there)
F1 = {
    "jieba": {"news-a": 0.90, "news-b": 0.80, "weibo": 0.70, "novel": 0.75},
    "fmm": {"news-a": 0.85, "news-b": 0.87, "weibo": 0.60},
    "pkuseg": {"news-a": 0.95, "news-b": 0.93, "weibo": 0.80, "novel": 0.88},
}
DOMAINS = {
    "news-a": "news",
    "news-b": "news (Hong Kong)",
    "weibo": "microblogs",
    "novel": "fiction",
}


def result(f1=F1, domains=DOMAINS) -> BakeoffResult:
    pairs = [
        PairResult(corpus, segmenter, segmenter, "open", "ok", scores={"f1": value})
        for segmenter, values in f1.items()
        for corpus, value in values.items()
    ]
    pairs.append(PairResult("weibo", "broken", "broken", "open", "failed", error="boom"))
    return BakeoffResult("demo", {}, tuple(pairs), settings={"corpus_domains": domains})


def test_matrix_sorted_rows_and_columns():
    matrix = result().across_corpora()
    # row means: pkuseg (0.95+0.93+0.80+0.88)/4 = 0.89, fmm 2.32/3 = 0.7733, jieba 3.15/4 = 0.7875
    assert [row.segmenter for row in matrix.rows] == ["pkuseg", "jieba", "fmm"]
    assert matrix.rows[0].mean == pytest.approx(0.89)
    # column means: news-a 0.9, news-b 0.8667, novel 0.815, weibo 0.7
    assert matrix.corpora == ["news-a", "news-b", "novel", "weibo"]
    assert matrix.rows[2].worst == ("weibo", 0.60)
    assert matrix.news() == ["news-a", "news-b"]
    assert "broken" not in [row.segmenter for row in matrix.rows]


def test_falloff_from_news():
    falloff = {row.segmenter: row for row in falloff_rows(result().across_corpora())}
    # jieba: news mean 0.85; weibo -0.15, novel -0.10 -> mean -0.125, worst weibo
    assert falloff["jieba"].news_f1 == pytest.approx(0.85)
    assert falloff["jieba"].drops == pytest.approx({"weibo": -0.15, "novel": -0.10})
    assert falloff["jieba"].mean_drop == pytest.approx(-0.125)
    assert falloff["jieba"].worst[0] == "weibo"
    # fmm: news 0.86, weibo -0.26; pkuseg: news 0.94, weibo -0.14, novel -0.06 -> -0.10
    assert falloff["fmm"].drops == pytest.approx({"weibo": -0.26})
    order = [row.segmenter for row in falloff_rows(result().across_corpora())]
    assert order == ["pkuseg", "jieba", "fmm"]


def test_one_corpus_gives_no_view():
    single = result({"jieba": {"news-a": 0.9}})
    assert single.across_corpora() is None
    assert render_wide_markdown(single) == ""


def test_wide_markdown_table():
    text = render_wide_markdown(result())
    lines = text.splitlines()
    assert lines[0] == "## F1 by corpus"
    header = next(line for line in lines if line.startswith("| segmenter |"))
    header_cells = (
        "| segmenter | news-a | news-b | novel | weibo | mean | over | mean of 3 shared |"
    )
    assert header == header_cells + " worst corpus |"
    # shared: news-a, news-b, weibo (fmm has no novel); pkuseg (0.95 + 0.93 + 0.80) / 3
    assert (
        "| pkuseg | 95.00 | 93.00 | 88.00 | 80.00 | 89.00 | 4 corpora | 89.33 | weibo (80.00) |"
        in lines
    )
    assert (
        "| fmm | 85.00 | 87.00 | — | 60.00 | 77.33 | 3 corpora | 77.33 | weibo (60.00) |" in lines
    )
    # differences in points, the scores' unit
    assert "| jieba | 85.00 | -12.50 | weibo (-15.00) |" in lines
    assert "| fmm | 86.00 | -26.00 | weibo (-26.00) |" in lines
    # and it is part of leaderboard.md
    assert "## F1 by corpus" in render_markdown(result())


def test_html_heatmap_has_values_in_cells_and_no_raster():
    page = render_html(result())
    section = page[page.index('<section id="across-corpora">') :]
    section = section[: section.index("</section>")]
    svg = section[section.index("<svg") : section.index("</svg>")]
    # every F1 is printed in its heatmap cell, as text
    for values in F1.values():
        for value in values.values():
            assert f"{100 * value:.2f}" in svg
    assert "data:image" not in page
    assert 'href="#across-corpora"' in page
    assert "How far each segmenter falls off news" in section
    # the table under the heatmap has the same numbers, rows in the same order
    rows = re.findall(r'<td class="name">.*?</span>([^<]+)</td>', section)
    assert rows[:3] == ["pkuseg", "jieba", "fmm"]


def test_rows_scored_on_fewer_corpora_come_after():
    # a closed-track row run on the two news corpora only, with the best mean of all
    f1 = {**F1, "bimm": {"news-a": 0.99, "news-b": 0.99}}
    matrix = result(f1).across_corpora()
    assert [row.segmenter for row in matrix.rows] == ["pkuseg", "jieba", "fmm", "bimm"]
    # columns ordered by the rows scored everywhere (pkuseg, jieba), not by bimm's news
    assert matrix.corpora == ["news-a", "news-b", "novel", "weibo"]


def test_means_count_a_shared_test_set_once_and_compare_over_shared_corpora():
    # gsd, gsd+t2s and udc are one test set; closed rows (fmm) only run where there is a train
    f1 = {
        "jieba": {"pku": 0.80, "gsd": 0.70, "gsd+t2s": 0.90, "udc": 0.80, "weibo": 0.60},
        "fmm": {"pku": 0.90, "udc": 0.70},
    }
    domains = {"pku": "news", "gsd": "Wikipedia", "gsd+t2s": "Wikipedia", "udc": "Wikipedia"}
    domains["weibo"] = "microblogs"
    base = result(f1, domains)
    groups = {"pku": "pku", "gsd": "gsd", "gsd+t2s": "gsd", "udc": "gsd", "weibo": "weibo"}
    run = BakeoffResult(
        "demo", {}, base.pairs, settings={**base.settings, "corpus_test_sets": groups}
    )
    rows = {row.segmenter: row for row in run.across_corpora().rows}
    # by hand: jieba's Wikipedia set (0.70 + 0.90 + 0.80) / 3 = 0.80, then (0.80 + 0.80 + 0.60) / 3
    assert rows["jieba"].mean == pytest.approx(2.2 / 3)
    # every corpus counted alike, as before: (0.8 + 0.7 + 0.9 + 0.8 + 0.6) / 5 = 0.76
    assert base.across_corpora().rows[0].mean == pytest.approx(0.76)
    # the corpora every row has: pku and udc; jieba (0.80 + 0.80) / 2, fmm (0.90 + 0.70) / 2
    assert rows["jieba"].common == rows["fmm"].common == ("pku", "udc")
    assert rows["jieba"].common_mean == pytest.approx(0.80)
    assert rows["fmm"].common_mean == pytest.approx(0.80)
    # the fall-off from news: Wikipedia once (0.80 - 0.80 = 0), weibo -0.20 -> -0.10
    (jieba,) = [r for r in falloff_rows(run.across_corpora()) if r.segmenter == "jieba"]
    assert jieba.mean_drop == pytest.approx(-0.10)
    text = render_wide_markdown(run)
    assert "mean of 2 shared" in text
    assert "(gsd+t2s = udc = gsd)" in text  # in column order
    assert "| jieba | " in text and "| 73.33 | 5 corpora | 80.00 |" in text


def contaminated_result() -> BakeoffResult:
    """snownlp trained on news-a; bimm's dictionary leaked weibo's test words; seen only on its
    own training data everywhere: hmm-seen."""
    leak = "bimm's dictionary holds the test words; so this is not a closed-track result"
    f1 = {
        "jieba": {"news-a": 0.90, "news-b": 0.80, "weibo": 0.70},
        "snownlp": {"news-a": 0.99, "news-b": 0.85, "weibo": 0.75},
        "bimm": {"news-a": 0.86, "news-b": 0.84, "weibo": 0.97},
        "hmm-seen": {"news-a": 0.98, "news-b": 0.97, "weibo": 0.96},
    }
    dirty = {("snownlp", "news-a"), ("bimm", "weibo")} | {("hmm-seen", c) for c in f1["jieba"]}
    pairs = tuple(
        PairResult(
            corpus,
            segmenter,
            segmenter,
            "open",
            "ok",
            scores={"f1": value},
            contaminated=(segmenter, corpus) in dirty,
            warnings=(leak,) if (segmenter, corpus) == ("bimm", "weibo") else (),
        )
        for segmenter, values in f1.items()
        for corpus, value in values.items()
    )
    return BakeoffResult("demo", {}, pairs, settings={"corpus_domains": DOMAINS})


def test_contaminated_cells_are_shown_and_count_in_no_mean_order_or_worst():
    run = contaminated_result()
    matrix = run.across_corpora()
    rows = {row.segmenter: row for row in matrix.rows}
    # shown: every cell is in the matrix, marked with the row's reason
    assert rows["snownlp"].f1["news-a"] == 0.99
    assert rows["snownlp"].excluded == {"news-a": "trained on this data"}
    assert rows["bimm"].excluded == {"weibo": "its dictionary saw the test data"}
    # by hand: snownlp (0.85 + 0.75) / 2 = 0.80, not (0.99 + 0.85 + 0.75) / 3 = 0.863
    assert rows["snownlp"].mean == pytest.approx(0.80)
    assert rows["bimm"].mean == pytest.approx(0.85)  # (0.86 + 0.84) / 2, not with 0.97
    assert rows["jieba"].mean == pytest.approx(0.80)
    # worst corpus among the counted cells only: bimm's worst is news-b, never its weibo
    assert rows["bimm"].worst == ("news-b", 0.84)
    # a row whose every cell is contaminated has no mean, no worst, and comes last
    assert rows["hmm-seen"].mean is None and rows["hmm-seen"].worst is None
    assert [row.segmenter for row in matrix.rows] == ["jieba", "bimm", "snownlp", "hmm-seen"]
    # shared: where every row counts; hmm-seen counts nowhere, so no corpus is shared
    assert matrix.common == ()
    # column order from counted cells of the rows counted everywhere (jieba alone)
    assert matrix.corpora == ["news-a", "news-b", "weibo"]
    assert matrix.column_mean("news-a") == pytest.approx((0.90 + 0.86) / 2)
    # the fall-off from news counts no excluded cell: snownlp's news is news-b alone
    falloff = {row.segmenter: row for row in falloff_rows(matrix)}
    assert falloff["snownlp"].news_f1 == pytest.approx(0.85)
    assert falloff["snownlp"].drops == pytest.approx({"weibo": -0.10})
    assert "bimm" not in falloff and "hmm-seen" not in falloff  # nothing counted off news


def test_contaminated_cells_in_the_wide_table_the_terminal_and_results_json():
    from cws_bench.reports.text import render_across_corpora

    run = contaminated_result()
    text = render_wide_markdown(run)
    assert "| snownlp | 99.00 *excluded* | 85.00 | 75.00 | 80.00 | 2 corpora | — |" in text
    assert (
        "| hmm-seen | 98.00 *excluded* | 97.00 *excluded* | 96.00 *excluded* | — | no corpus"
        in (text)
    )
    assert "bimm on weibo (its dictionary saw the test data)" in text
    assert "hmm-seen on news-a, news-b, weibo (trained on this data)" in text
    terminal = render_across_corpora(run)
    line = next(line for line in terminal.splitlines() if line.startswith("snownlp"))
    expected = "snownlp 99.00 excluded 85.00 75.00 80.00 2 corpora weibo (75.00)"
    assert line.split() == expected.split()
    (entry,) = [e for e in run.to_dict()["across_corpora"] if e["segmenter"] == "hmm-seen"]
    assert entry == {
        "segmenter": "hmm-seen",
        "mean": None,
        "counted": [],
        "excluded": dict.fromkeys(["news-a", "news-b", "weibo"], "trained on this data"),
        "shared": [],
        "shared_mean": None,
        "worst": None,
    }


def test_heatmap_has_a_colour_bar_and_marks_contaminated_cells():
    from cws_bench.reports.domains import heatmap_chart

    svg = heatmap_chart(contaminated_result().across_corpora())
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
    assert texts.count("excluded") == 5  # snownlp's news-a, bimm's weibo, hmm-seen's three
    assert "99.00" in texts and "97.00" in texts
    assert texts[-1] == "F1 (percentages)"  # the colour bar's label, after its ticks
    # the scale spans the counted cells only (70 .. 90), not snownlp's 99, in the cells' unit
    last_cell = len(texts) - 1 - texts[::-1].index("excluded")
    ticks = [float(t) for t in texts[last_cell + 1 : -1]]  # after the last cell
    assert ticks and min(ticks) >= 70 and max(ticks) <= 90
    assert "data:image" not in svg
