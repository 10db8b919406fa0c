"""The published SIGHAN 2005 results: the bundled file, its checks, and why fmm differs.

The bundled rows were read in Emerson (2005), "The Second International Chinese
Word Segmentation Bakeoff" (ACL Anthology I05-3017): Table 3 (baseline),
Table 4 (topline) and the first rows of Tables 5-12. The figures written out
below were read there, not taken from the data file; the loader's own checks
(F = 2PR/(P+R), R = OOV·R_oov + (1−OOV)·R_iv) are tested on purpose-made
misread rows. The last test rebuilds the published baselines from the real
test sets (skipped without ../shared/corpora).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cws_bench.errors import CwsBenchError
from cws_bench.results.model import PairResult
from cws_bench.results.published import (
    METRICS,
    baseline_differences,
    load_published,
    published_for,
)

SIGHAN = ("sighan2005-as", "sighan2005-cityu", "sighan2005-msr", "sighan2005-pku")

# (corpus, track): R, P, F, OOV, R_oov, R_iv as printed in Emerson (2005).
FROM_THE_PAPER = {
    ("sighan2005-pku", "baseline"): (0.904, 0.836, 0.869, 0.058, 0.059, 0.956),  # Table 3
    ("sighan2005-cityu", "baseline"): (0.882, 0.790, 0.833, 0.074, 0.000, 0.952),  # Table 3
    ("sighan2005-msr", "topline"): (0.991, 0.992, 0.991, 0.026, 0.998, 0.990),  # Table 4
    ("sighan2005-as", "closed"): (0.952, 0.951, 0.952, 0.043, 0.696, 0.963),  # Table 5, 15 b
    ("sighan2005-msr", "open"): (0.980, 0.965, 0.972, 0.026, 0.590, 0.990),  # Table 10, ID 4
    ("sighan2005-pku", "open"): (0.968, 0.969, 0.969, 0.058, 0.838, 0.976),  # Table 12, ID 19
}

GOOD_ROW = """
[[rows]]
corpus = "sighan2005-pku"
track = "baseline"
system = "maximal matching, training word list"
site = "organisers"
run = ""
table = "Table 3"
recall = 0.904
precision = 0.836
f1 = 0.869
oov_rate = 0.058
oov_recall = 0.059
iv_recall = 0.956
"""

HEAD = """
[source]
key = "Emerson 2005"
citation = "Thomas Emerson. 2005. The Second International Chinese Word Segmentation Bakeoff."
url = "https://aclanthology.org/I05-3017/"
results_url = "http://sighan.cs.uchicago.edu/bakeoff2005/data/results.php.htm"

[test_words]
sighan2005-pku = 104372
"""


def test_every_corpus_has_a_baseline_a_topline_and_best_closed_and_open_rows():
    published = load_published()
    assert set(published.test_words) == set(SIGHAN)
    # Test-set sizes of the paper's Tables 1 and 3.
    assert published.test_words["sighan2005-pku"] == 104372
    assert published.test_words["sighan2005-as"] == 122610
    for corpus in SIGHAN:
        tracks = [row.track for row in published.for_corpus(corpus)]
        assert sorted(set(tracks)) == ["baseline", "closed", "open", "topline"], corpus
        assert tracks.count("baseline") == tracks.count("topline") == tracks.count("open") == 1
    # PKU's closed track is a tie at F 0.950 (Yahoo! and Stanford): both are kept.
    closed = [r for r in published.for_corpus("sighan2005-pku") if r.track == "closed"]
    assert [r.site for r in closed] == ["Yahoo! Inc. (ID 27)", "Stanford NL Group (ID 14)"]
    assert all(row.url == "https://aclanthology.org/I05-3017/" for row in published.rows)
    assert all(row.citation.startswith("Thomas Emerson. 2005.") for row in published.rows)


@pytest.mark.parametrize(("key", "figures"), sorted(FROM_THE_PAPER.items()))
def test_the_rows_hold_the_figures_printed_in_the_paper(key, figures):
    corpus, track = key
    rows = [r for r in load_published().for_corpus(corpus) if r.track == track]
    assert tuple(getattr(rows[0], name) for name in METRICS) == figures


def test_the_best_rows_are_the_best_f_of_their_track_and_above_the_baseline():
    published = load_published()
    for corpus in SIGHAN:
        rows = {r.track: r for r in published.for_corpus(corpus)}
        assert rows["topline"].f1 > rows["open"].f1 > rows["baseline"].f1
        assert rows["closed"].f1 > rows["baseline"].f1


def test_published_rows_apply_only_to_a_whole_sighan_test_set():
    assert len(published_for("sighan2005-pku", 104372)) == 5
    assert len(published_for("sighan2005-cityu", 40936)) == 4
    assert published_for("sighan2005-pku", 104371) == ()  # a subset, or another split
    assert published_for("sighan2005-pku", None) == ()
    assert published_for("pku_test", 104372) == ()  # not a SIGHAN 2005 corpus name
    assert published_for("pd1998", 104372) == ()
    f1 = [row.f1 for row in published_for("sighan2005-pku", 104372)]
    assert f1 == sorted(f1, reverse=True)


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "published.toml"
    path.write_text(HEAD + text, encoding="utf-8")
    return path


def test_a_file_of_my_own_loads(tmp_path):
    published = load_published(_write(tmp_path, GOOD_ROW))
    assert [row.f1 for row in published.rows] == [0.869]
    assert published.baseline("sighan2005-pku").oov_recall == 0.059


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("f1 = 0.869", "f1 = 0.896", "F 0.896 is not 2PR/(P+R) = 0.8687"),
        ("iv_recall = 0.956", "iv_recall = 0.965", "R 0.904 is not OOV·R_oov"),
        ('track = "baseline"', 'track = "best"', "track must be one of"),
        ('corpus = "sighan2005-pku"', 'corpus = "sighan2005-ctb"', "no test_words entry"),
        ("recall = 0.904", "recall = 9.04", "not a fraction"),
        ("recall = 0.904", 'recall = "0.904"', "recall must be a number"),
        ('run = ""', 'run = ""\nrank = 1', "unknown key rank"),
        ('table = "Table 3"', "", "missing table"),
    ],
)
def test_a_misread_row_is_one_clear_error_naming_the_file_and_row(tmp_path, old, new, message):
    path = _write(tmp_path, GOOD_ROW + GOOD_ROW.replace(old, new))
    with pytest.raises(CwsBenchError) as caught:
        load_published(path)
    text = str(caught.value)
    assert text.startswith(f"{path}: [[rows]] #2 (")
    assert message in text


def test_a_broken_file_is_one_clear_error(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text("[source\n", encoding="utf-8")
    with pytest.raises(CwsBenchError, match=r"bad\.toml: not valid TOML"):
        load_published(path)
    with pytest.raises(CwsBenchError, match="cannot read"):
        load_published(tmp_path / "absent.toml")
    path.write_text(HEAD.replace('key = "Emerson 2005"\n', ""), encoding="utf-8")
    with pytest.raises(CwsBenchError, match=r"\[source\]: needs key"):
        load_published(path)


def _pair(segmenter, adapter, f1, options=None, method="interval"):
    info = {"name": adapter} if options is None else {"name": adapter, "options": options}
    return PairResult(
        corpus="sighan2005-pku",
        segmenter=segmenter,
        adapter=adapter,
        track="closed",
        status="ok",
        scores={"f1": f1, "method": method},
        segmenter_info=info,
    )


def test_fmm_rows_are_compared_with_the_published_baseline():
    pairs = [
        _pair("baseline", "fmm", 0.8744, {"keep_runs": False}, method="sighan"),
        _pair("fmm", "fmm", 0.8951, {"corpus": "sighan2005-pku"}),
        _pair("bimm", "bimm", 0.898, {}),
        _pair("odd", "fmm", 0.88),  # options not recorded
    ]
    found = baseline_differences("sighan2005-pku", pairs)
    assert [d.segmenter for d in found] == ["baseline", "fmm", "odd"]
    assert [d.keep_runs for d in found] == [False, True, None]
    assert found[0].difference == pytest.approx(0.8744 - 0.869)
    assert found[0].sentence() == (
        "baseline (fmm), keep_runs=false; sighan counting: F 87.44 here, 86.90 published, +0.54"
    )
    assert found[2].sentence().startswith("odd (fmm), interval counting: F 88.00")
    assert baseline_differences("pku_test", pairs) == ()


def _byte_fallback_fmm(line: bytes, words: set[bytes], longest: int) -> list[tuple[int, int]]:
    """Forward maximum matching over bytes: where no word starts, one byte is a word."""
    spans, start = [], 0
    while start < len(line):
        size = min(longest, len(line) - start)
        while size > 1 and line[start : start + size] not in words:
            size -= 1
        spans.append((start, start + size))
        start += size
    return spans


@pytest.mark.parametrize("corpus", ["pku", "msr", "cityu", "as"])
def test_a_byte_fallback_matcher_rebuilds_the_published_baseline(icwb2, corpus):
    """Why fmm scores above Table 3: the published baseline cut unknown characters into bytes.

    FMM over the UTF-8 bytes of the gold text, with the training word list and
    one byte where no word starts, counted by character spans (a word is
    correct when its byte span is a gold word's), gives the published R_oov
    exactly (0.000 where no OOV word is one ASCII character) and F within
    0.002; fmm's one-character fallback recalls every one-character OOV word.
    """
    gold = (
        icwb2 / "gold" / ("as_testing_gold.utf8" if corpus == "as" else f"{corpus}_test_gold.utf8")
    )
    listed = (icwb2 / "gold" / f"{corpus}_training_words.utf8").read_text(encoding="utf-8-sig")
    vocabulary = {word.strip() for word in listed.splitlines() if word.strip()}
    words = {word.encode() for word in vocabulary}
    longest = max(len(word) for word in words)
    correct = predicted = total = oov = oov_correct = 0
    for text in gold.read_text(encoding="utf-8-sig").splitlines():
        gold_words = text.split()
        line = "".join(gold_words).encode()
        spans = set(_byte_fallback_fmm(line, words, longest))
        predicted += len(spans)
        start = 0
        for word in gold_words:
            end = start + len(word.encode())
            hit = (start, end) in spans
            total, correct = total + 1, correct + hit
            if word not in vocabulary:
                oov, oov_correct = oov + 1, oov_correct + hit
            start = end
    recall, precision = correct / total, correct / predicted
    f1 = 2 * precision * recall / (precision + recall)
    baseline = load_published().baseline(f"sighan2005-{corpus}")
    assert total == load_published().test_words[f"sighan2005-{corpus}"]
    assert round(oov / total, 3) == baseline.oov_rate
    assert round(oov_correct / oov, 3) == baseline.oov_recall
    assert abs(round(f1, 3) - baseline.f1) <= 0.002 + 1e-9  # as printed: three decimals


def test_a_labelled_sighan_corpus_keeps_its_published_rows():
    from cws_bench.reports.published import published_markdown, published_view
    from cws_bench.reports.tables import build_boards
    from cws_bench.results.model import BakeoffResult

    pair = PairResult(
        corpus="pku",
        segmenter="fmm",
        adapter="fmm",
        track="closed",
        status="ok",
        scores={"f1": 0.88, "gold_words": 104372, "method": "interval"},
        segmenter_info={"name": "fmm", "options": {}},
    )
    config = {"corpora": [{"label": "pku", "name": "sighan2005-pku", "split": "test"}]}
    (board,) = build_boards(BakeoffResult("x", config, (pair,)))
    view = published_view(board)
    assert view is not None and len(view.rows) == 5 and view.corpus == "pku"
    assert [d.segmenter for d in view.differences] == ["fmm"]
    assert any(
        "Emerson" in line or "published" in line.lower() for line in published_markdown(board)
    )
    # files of one's own under that label are not the published data
    (mine,) = build_boards(BakeoffResult("x", {"corpora": [{"label": "pku"}]}, (pair,)))
    assert published_view(mine) is None
