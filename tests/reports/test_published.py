"""The published SIGHAN 2005 rows under the leaderboards: where they appear, what they hold.

A hand-made run has three corpora of 104,372 gold words (the size of the
SIGHAN 2005 PKU test set): ``sighan2005-pku``, which gets the published rows;
``pku_test``, not a SIGHAN 2005 name, which does not; and ``sighan2005-msr``
scored on a subset (1,000 words), which does not either. Every printed
published figure must be the data file's; strings from the data file are
escaped in every format (checked with a data file of our own holding ``<``,
``&``, ``|`` and ``_``).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

import cws_bench.results.published as published_module
from cws_bench.reports import render_html, render_latex, render_markdown
from cws_bench.reports.text import render_leaderboard
from cws_bench.results.model import BakeoffResult, Interval, PairResult
from cws_bench.results.published import load_published

TITLE = "Published results (Emerson 2005; not run here)"


def _pair(corpus, segmenter, adapter, track, f1, gold_words, options=None):
    scores = {
        "precision": f1,
        "recall": f1,
        "f1": f1,
        "gold_words": gold_words,
        "pred_words": gold_words,
        "correct_words": round(f1 * gold_words),
        "oov_rate": 0.058,
        "oov_recall": 0.1,
        "iv_recall": 0.9,
        "sentences": 10,
        "characters": 2 * gold_words,
        "method": "interval",
    }
    return PairResult(
        corpus=corpus,
        segmenter=segmenter,
        adapter=adapter,
        track=track,
        status="ok",
        scores=scores,
        intervals={"f1": Interval(f1 - 0.01, f1 + 0.01)},
        segmenter_info={"name": adapter, "options": options or {}},
    )


def run() -> BakeoffResult:
    pairs = []
    for corpus, words in (("sighan2005-pku", 104372), ("pku_test", 104372)):
        pairs += [
            _pair(corpus, "baseline", "fmm", "closed", 0.8744, words, {"keep_runs": False}),
            _pair(corpus, "jieba", "jieba", "open", 0.818, words),
        ]
    pairs.append(_pair("sighan2005-msr", "fmm", "fmm", "closed", 0.93, 1000))
    settings = {"seed": 7, "resamples": 100, "confidence": 0.95, "alpha": 0.05}
    return BakeoffResult("sighan", {}, tuple(pairs), (), settings)


def sections(markdown: str) -> dict[str, str]:
    """The Markdown page cut at its corpus headings (``## name``)."""
    parts = re.split(r"^## (\S+)$", markdown, flags=re.M)
    return {name.replace("\\", ""): text for name, text in zip(parts[1::2], parts[2::2])}


def published_table(text: str) -> list[list[str]]:
    """The rows of the Markdown table under the published title."""
    lines = text.split(f"**{TITLE}**", 1)[1].strip().splitlines()
    assert lines[0].startswith("| Row | System | R | P | F |")
    rows = []
    for line in lines[2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1]])
    return rows


def expected_cells(corpus: str) -> list[list[str]]:
    """The data file's rows of a corpus as the tables print them, best F first."""
    return [
        [
            row.kind,
            row.label + (f" ({row.note})" if row.note else ""),
            *(f"{100 * value:.2f}" for value in row.figures().values()),
            row.table,
        ]
        for row in load_published().for_corpus(corpus)
    ]


def test_markdown_shows_the_published_rows_under_the_sighan_leaderboard_only():
    markdown = render_markdown(run())
    assert markdown.count(TITLE) == 1
    by_corpus = sections(markdown)
    assert TITLE in by_corpus["sighan2005-pku"]
    assert TITLE not in by_corpus["pku_test"]  # same size, not a SIGHAN 2005 corpus
    assert TITLE not in by_corpus["sighan2005-msr"]  # a SIGHAN corpus, but a subset
    rows = published_table(by_corpus["sighan2005-pku"])
    assert rows == expected_cells("sighan2005-pku")
    assert [row[0] for row in rows] == [
        "topline",
        "best open",
        "best closed",
        "best closed",
        "baseline",
    ]
    assert rows[-1][2:8] == ["90.40", "83.60", "86.90", "5.80", "5.90", "95.60"]  # Table 3


def test_markdown_names_the_source_and_compares_fmm_with_the_published_baseline():
    pku = sections(render_markdown(run()))["sighan2005-pku"]
    assert "Published, not run here: figures as printed in Tables 3, 4, 11, 12 of Thomas" in pku
    assert "https://aclanthology.org/I05-3017/" in pku
    assert "http://sighan.cs.uchicago.edu/bakeoff2005/data/results.php.htm" in pku
    assert (
        "- baseline (fmm), keep\\_runs=false; interval counting: "
        "F 87.44 here, 86.90 published, +0.54"
    ) in pku
    assert "Why fmm differs from the published baseline" in pku
    assert "jieba (fmm)" not in pku  # only fmm rows are compared


def test_the_text_leaderboard_shows_them_too():
    text = render_leaderboard(run())
    blocks = {block.splitlines()[0]: block for block in text.split("\n\n")}
    pku = blocks["sighan2005-pku"]
    assert f"  {TITLE}, Tables 3, 4, 11, 12:" in pku
    lines = [line.split() for line in pku.splitlines() if line.startswith("    ")]
    baseline = next(line for line in lines if line[0] == "baseline")
    assert baseline[-6:] == ["90.40", "83.60", "86.90", "5.80", "5.90", "95.60"]
    assert len(lines) == 1 + len(expected_cells("sighan2005-pku"))  # header and rows
    assert "  baseline (fmm), keep_runs=false; interval counting: F 87.44 here" in pku
    assert TITLE not in blocks["pku_test"] and TITLE not in blocks["sighan2005-msr"]


class _Cells(HTMLParser):
    """The text of every cell of every ``published-row`` and the page's published titles."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[list[str]] = []
        self.in_row = False
        self.cell: list[str] | None = None
        self.headings: list[str] = []
        self.heading: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.in_row = "published-row" in (dict(attrs).get("class") or "")
            if self.in_row:
                self.rows.append([])
        elif tag == "td" and self.in_row:
            self.cell = []
        elif tag == "h3":
            self.heading = []

    def handle_endtag(self, tag):
        if tag == "td" and self.cell is not None:
            self.rows[-1].append(" ".join("".join(self.cell).split()))
            self.cell = None
        elif tag == "tr":
            self.in_row = False
        elif tag == "h3" and self.heading is not None:
            self.headings.append("".join(self.heading))
            self.heading = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)
        if self.heading is not None:
            self.heading.append(data)


def test_html_shows_the_rows_in_the_sighan_section_with_the_data_files_values():
    html = render_html(run())
    reader = _Cells()
    reader.feed(html)
    assert reader.headings.count(TITLE) == 1
    assert reader.rows == expected_cells("sighan2005-pku")
    section = re.search(r'<section id="sighan2005-pku-0">(.*?)</section>', html, re.S)
    assert section and TITLE in section.group(1)
    assert 'href="https://aclanthology.org/I05-3017/"' in section.group(1)
    assert "baseline (fmm), keep_runs=false; interval counting: F 87.44 here" in section.group(1)


def check_latex_shape(tex: str) -> None:
    """Balanced environments and braces, no bare special character, full rows."""
    stack = []
    for kind, name in re.findall(r"\\(begin|end)\{(\w+)\}", tex):
        if kind == "begin":
            stack.append(name)
        else:
            assert stack and stack.pop() == name
    assert not stack
    depth = 0
    for ch in re.sub(r"\\[\\&%$#_{}]|\\[A-Za-z]+", "", tex):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        assert depth >= 0
    assert depth == 0
    for line in tex.splitlines():
        body = re.sub(r"\$[^$]*\$", "", re.sub(r"\\[\\&%$#_{}]", "", line))
        assert line.startswith("%") or not re.search(r"[%#_]", body), line
    for align, content in re.findall(
        r"\\begin\{tabular\}\{(\w+)\}(.*?)\\end\{tabular\}", tex, re.S
    ):
        for row in content.split("\\\\")[:-1]:
            row = re.sub(r"\\(toprule|midrule|bottomrule)", "", row).strip()
            cells = len(re.sub(r"\\&", "", row).split("&"))
            spans = sum(int(n) - 1 for n in re.findall(r"\\multicolumn\{(\d+)\}", row))
            assert cells + spans == len(align), row


def test_latex_has_one_published_table_after_the_sighan_leaderboard():
    tex = render_latex(run())
    check_latex_shape(tex)
    assert tex.count("\\label{tab:cws-sighan2005-pku-published}") == 1
    assert "published}" not in tex.replace("tab:cws-sighan2005-pku-published}", "")
    table = tex.split("\\label{tab:cws-sighan2005-pku}")[1].split("\\end{table}")[1]
    assert "\\begin{tabular}{llrrrrrrl}" in table
    rows = [
        line.removesuffix(" \\\\").split(" & ")
        for line in table.splitlines()
        if line.count(" & ") == 8 and not line.startswith("Row &")
    ]
    assert rows == expected_cells("sighan2005-pku")
    assert "Published results (Emerson 2005; not run here): sighan2005-pku." in table


HOSTILE = """
[source]
key = "Emerson 2005"
citation = "A <b>paper</b> & more_text."
url = "https://example.org/?a=1&b=<2>"
results_url = "http://example.org/results"

[test_words]
sighan2005-pku = 104372

[[rows]]
corpus = "sighan2005-pku"
track = "closed"
system = "best closed"
site = "<script>alert(1)</script> | A & B_C"
run = ""
table = "Table 11"
recall = 0.953
precision = 0.946
f1 = 0.950
oov_rate = 0.058
oov_recall = 0.636
iv_recall = 0.972
"""


@pytest.fixture
def hostile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "hostile.toml"
    path.write_text(HOSTILE, encoding="utf-8")
    results = load_published(path)
    monkeypatch.setattr(published_module, "_bundled", lambda: results)


@pytest.mark.usefixtures("hostile")
def test_strings_of_the_data_file_are_escaped_in_every_format():
    result = run()
    html = render_html(result)
    assert "<script>alert(1)</script>" not in html and "<b>paper</b>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt; | A &amp; B_C" in html
    assert 'href="https://example.org/?a=1&amp;b=&lt;2&gt;"' in html
    markdown = render_markdown(result)
    rows = published_table(sections(markdown)["sighan2005-pku"])
    assert len(rows) == 1 and len(rows[0]) == 9  # the | in the site stays in its cell
    assert rows[0][1] == "\\<script\\>alert(1)\\</script\\> \\| A & B\\_C"
    tex = render_latex(result)
    check_latex_shape(tex)
    assert "\\textless{}script\\textgreater{}alert(1)" in tex
    assert "A \\& B\\_C" in tex
