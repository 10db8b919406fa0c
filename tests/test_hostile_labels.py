"""A label someone chose is shown as text, never run: in every CSV and Markdown table.

CSV (OWASP's CSV injection rule): a text cell that begins with ``=``, ``+``,
``-`` or ``@`` would run as a formula in a spreadsheet; it gets a leading
``'``. Numbers, and text that is a number (``-0.5``), stay as they are.
Markdown: a label is escaped as leaderboard.md escapes it (no live link).
"""

from __future__ import annotations

import csv
import io

from cws_bench.display.tables import csv_table
from cws_bench.metrics.classification import classification_report
from cws_bench.reports.data import render_csv
from cws_bench.results.model import BakeoffResult, PairResult
from cws_bench.run.comparison import compare

EVIL = '=HYPERLINK("http://evil.example","x")'


def rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def test_text_cells_that_start_a_formula_are_neutralised_and_numbers_are_not():
    table = csv_table(
        ["label", "value"],
        [[EVIL, -0.5], ["+1+1", "-0.5"], ["@SUM(A1:A9)", 3], ["-cmd", "1e-3"], ["jieba", 0.25]],
    )
    assert rows(table)[1:] == [
        ["'" + EVIL, "-0.5"],
        ["'+1+1", "-0.5"],
        ["'@SUM(A1:A9)", "3"],
        ["'-cmd", "1e-3"],
        ["jieba", "0.25"],
    ]


def test_results_csv_neutralises_a_segmenter_label():
    scores = {"precision": 0.5, "recall": 0.5, "f1": 0.5, "gold_words": 4, "pred_words": 4}
    pair = PairResult("sample", EVIL, "fmm", "open", "ok", scores={**scores, "correct_words": 2})
    table = rows(render_csv(BakeoffResult("demo", {}, (pair,))))
    header, row = table[0], table[1]
    cells = dict(zip(header, row))
    assert cells["segmenter"] == "'" + EVIL
    assert cells["f1"] == "0.5"


def test_a_comparison_csv_neutralises_a_system_label():
    gold = [["结婚", "的", "和", "尚未", "结婚", "的"]] * 3
    bad = [["结婚", "的", "和尚", "未", "结婚", "的"]] * 3
    report = compare(gold, {"@bad": bad, "good": gold}, resamples=50)
    cells = [cell for row in rows(report.to_csv()) for cell in row]
    assert "'@bad" in cells
    assert "@bad" not in cells


def test_a_classification_report_csv_neutralises_a_class_label():
    report = classification_report(["-x", "=y", "-x"], ["-x", "-x", "=y"])
    text = report.render("csv")
    labels = [row[0] for row in rows(text)[1:]]
    assert "'-x" in labels and "'=y" in labels
    assert "-x" not in labels and "=y" not in labels


def test_a_system_label_is_no_live_link_in_the_markdown_table():
    gold = [["结婚", "的", "和", "尚未", "结婚", "的"]] * 3
    bad = [["结婚", "的", "和尚", "未", "结婚", "的"]] * 3
    report = compare(gold, {"[x](javascript:1)": bad, "good": gold}, resamples=50)
    text = report.render("markdown")
    assert "[x](javascript:1)" not in text
    assert "\\[x\\](javascript:1)" in text
