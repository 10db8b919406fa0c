"""Results render themselves: the CLI only chooses the format.

Each render method gives, byte for byte, what the command prints, and the
values in it are checked by hand on small examples.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from cws_bench.cli import cli
from cws_bench.corpora import get_corpus
from cws_bench.corpora.stats import corpus_statistics, format_card
from cws_bench.metrics.ranking import evaluate_run
from cws_bench.scoring import RESULT_FORMATS, score_files, score_sentences
from cws_bench.segmenters.as_tokenizers import TokenizerComparison, generation_scores

ROOT = Path(__file__).resolve().parents[1]
GOLD = str(ROOT / "corpora" / "sample" / "gold.txt")
PRED = str(ROOT / "corpora" / "sample" / "pred.txt")
WORDS = str(ROOT / "dictionaries" / "sample.txt")


def stdout(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


# ---------------------------------------------------------------------------
# ScoreResult


@pytest.mark.parametrize("fmt", RESULT_FORMATS)
def test_score_result_renders_what_score_prints(fmt):
    method = "sighan" if fmt == "sighan" else "interval"
    result = score_files(GOLD, PRED, dictionary=WORDS, method=method)
    printed = stdout("score", GOLD, PRED, "--dict", WORDS, "--format", fmt)
    assert result.render(fmt, gold=GOLD, pred=PRED) + "\n" == printed


def test_score_result_text_by_hand():
    # gold 南京市|长江|大桥 against 南京|市长|江|大桥: 1 of 3 gold words, 1 of 4 predicted.
    result = score_sentences([["南京市", "长江", "大桥"]], [["南京", "市长", "江", "大桥"]])
    text = result.to_text(gold="g.txt", pred="p.txt")
    lines = text.splitlines()
    assert lines[0] == "p.txt against g.txt (interval counting, scores in %)"
    assert "  precision             25.00" in lines
    assert "  recall                33.33" in lines
    assert "  OOV rate                 --" in lines  # no dictionary: absent, not zero
    assert lines[-1].startswith("  signature: ")
    data = json.loads(result.to_json())
    assert (data["precision"], data["correct_words"], data["warnings"]) == (0.25, 1, [])
    header, row = result.to_csv().splitlines()
    assert header.split(",")[:3] == ["precision", "recall", "f1"]
    assert row.split(",")[0] == "0.25"
    assert ",," in row  # None (OOV figures) as an empty cell


def test_score_result_refuses_formats_it_cannot_write():
    result = score_sentences([["南京"]], [["南京"]])
    with pytest.raises(ValueError, match="unknown format 'html'"):
        result.render("html")
    with pytest.raises(ValueError, match='method="sighan"'):
        result.to_sighan()


# ---------------------------------------------------------------------------
# Corpus statistics


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_corpus_statistics_render_what_corpora_info_prints(fmt):
    corpus = get_corpus("sample")
    statistics = corpus_statistics(corpus, "test")
    title = f"{corpus.name}, test split: {corpus.title}"
    rendered = statistics.render(fmt, title=title, card=corpus.metadata())
    assert rendered + "\n" == stdout("corpora", "info", "sample", "--format", fmt)


def test_corpus_statistics_text_by_hand():
    from cws_bench.corpora.stats import sentence_statistics

    statistics = sentence_statistics([["南京市", "长江", "大桥"], [], ["大桥"]])
    text = statistics.to_text("mine")
    assert text.splitlines()[:4] == [
        "mine",
        "  sentences            2",
        "  words                4",
        "  characters           9",
    ]
    assert "  average word length  2.250" in text
    assert "  empty lines          1" in text
    assert json.loads(statistics.to_json())["word_types"] == 3
    with pytest.raises(ValueError, match="unknown format"):
        statistics.render("csv")


def test_corpus_card_marks_missing_splits():
    card = {"splits": ["train", "test"], "available_splits": ["test"], "licence": "CC BY"}
    assert format_card(card) == "corpus card:\n  splits   (train) test\n  licence  CC BY"


# ---------------------------------------------------------------------------
# Baselines


def test_baseline_renders_what_baseline_show_prints(tmp_path):
    from cws_bench.regression.baseline_file import load_baseline
    from cws_bench.regression.render import render_baseline_text

    path = str(tmp_path / "base.json")
    args = ["baseline", "save", "-s", "fmm", "--lexicon", WORDS, "--corpus", "sample"]
    stdout(*args, "--speed-runs", "1", "-o", path)
    shown = stdout("baseline", "show", path)
    baseline = load_baseline(path)
    assert render_baseline_text(baseline, path) + "\n" == shown
    assert shown.startswith(f"baseline of fmm {baseline.segmenter.version} in {path}:\n")
    f1 = baseline.records[0].scores["f1"]
    assert f"  sample: F1 {100 * f1:.2f}, P " in shown
    assert shown.endswith("  bounds: largest drops f1 0 points; speed not checked\n")


# ---------------------------------------------------------------------------
# Generation and ranking reports


def test_tokenizer_comparison_renders_by_hand(tmp_path):
    # char tokens: 今天 天气 vs 今天 天晴: 3 of 4 characters shared, EM 0.
    row = generation_scores(["今天天气"], [["今天天晴"]], tokenizer="char", metrics=["em", "f1"])
    table = TokenizerComparison(rows=(row,))
    assert [title for _, title in table.columns()] == ["EM", "P", "R", "F1"]
    assert table.to_text(pred="p.txt", references=1) == (
        "p.txt: 1 line against 1 reference file (scores in %)\n"
        "  tokenizer    EM      P      R     F1\n"
        "  char       0.00  75.00  75.00  75.00"
    )
    assert table.to_markdown().splitlines()[2] == "| char | 0.00 | 75.00 | 75.00 | 75.00 |"
    assert table.to_csv().splitlines()[1] == "char,1,1,0.0,0.75,0.75,0.75"
    assert json.loads(table.to_json())["rows"][0]["f1"] == 0.75
    pred, ref = tmp_path / "p.txt", tmp_path / "r.txt"
    pred.write_text("今天天气\n", encoding="utf-8")
    ref.write_text("今天天晴\n", encoding="utf-8")
    for fmt in ("text", "json", "csv", "markdown"):
        printed = stdout(
            "metrics", "generation", "-r", str(ref), "-p", str(pred), "-m", "em,f1", "--format", fmt
        )
        assert printed == table.render(fmt, pred=str(pred), references=1) + "\n"


def test_ranking_report_renders_by_hand(tmp_path):
    # q1: relevant d1 ranked 2nd: AP 0.5, RR 0.5; q2: relevant d3 ranked 1st: AP 1, RR 1.
    qrels = {"q1": {"d1": 1}, "q2": {"d3": 1}}
    run = {"q1": ["d2", "d1"], "q2": ["d3", "d4"]}
    report = evaluate_run(qrels, run, metrics=["map", "mrr", "dcg"])
    assert report.to_text(run="r", qrels="q").splitlines() == [
        "r against q: 2 queries (scores in %; dcg as sums of gains)",
        "  map    75.00",
        "  mrr    75.00",
        "  dcg   0.8155",
    ]
    assert report.to_csv(per_query=True).splitlines()[1:] == [
        "mean,0.75,0.75,0.8154648767857288",  # (1/log2(3) + 1) / 2
        "q1,0.5,0.5,0.6309297535714575",
        "q2,1.0,1.0,1.0",
    ]
    assert "per_query" not in json.loads(report.to_json())
    assert report.to_markdown().splitlines()[2] == "| mean | 75.00 | 75.00 | 0.8155 |"
    run_file, qrels_file = tmp_path / "run.trec", tmp_path / "qrels.trec"
    run_file.write_text("q1 Q0 d2 1 2.0 t\nq1 Q0 d1 2 1.0 t\nq2 Q0 d3 1 2.0 t\nq2 Q0 d4 2 1.0 t\n")
    qrels_file.write_text("q1 0 d1 1\nq2 0 d3 1\n")
    for fmt in ("text", "json", "csv", "markdown"):
        printed = stdout(
            "metrics", "ranking", str(qrels_file), str(run_file), "-m", "map,mrr,dcg",
            "--per-query", "--format", fmt,
        )  # fmt: skip
        expected = report.render(fmt, per_query=True, run=str(run_file), qrels=str(qrels_file))
        assert printed == expected + "\n"


@pytest.mark.parametrize("fmt", ["text", "json", "csv", "markdown"])
def test_classification_report_renders_what_the_command_prints(tmp_path, fmt):
    from cws_bench.metrics.classification import classification_report, confusion_matrix

    true, pred = ["B", "E", "S", "B", "E", "S"], ["B", "E", "S", "S", "B", "E"]
    (tmp_path / "t.txt").write_text("\n".join(true) + "\n", encoding="utf-8")
    (tmp_path / "p.txt").write_text("\n".join(pred) + "\n", encoding="utf-8")
    report = classification_report(true, pred)
    matrix = confusion_matrix(true, pred).tolist()
    printed = stdout(
        "metrics", "classification", str(tmp_path / "t.txt"), str(tmp_path / "p.txt"),
        "--format", fmt, "--confusion", "--digits", "3",
    )  # fmt: skip
    expected = report.render(fmt, digits=3, confusion=(["B", "E", "S"], matrix))
    assert expected + "\n" == printed
    if fmt == "text":  # rows are the true tags: B once as S, E once as B, S once as E
        assert printed.splitlines()[-4:] == [
            "true \\ pred  B  E  S",
            "B            1  0  1",
            "E            1  1  0",
            "S            0  1  1",
        ]


@pytest.mark.parametrize(
    "args",
    [
        ["classification", "{a}", "{a}"],
        ["generation", "-r", "{a}", "-p", "{a}"],
        ["impurity", "{t}", "--target", "play"],
    ],
)
def test_every_metrics_command_writes_to_o(tmp_path, args):
    labels = tmp_path / "a.txt"
    labels.write_text("x\ny\nx\n", encoding="utf-8")
    table = tmp_path / "t.csv"
    table.write_text("outlook,play\nsun,no\nrain,yes\n", encoding="utf-8")
    words = [w.format(a=labels, t=table) for w in args]
    printed = stdout("metrics", *words)
    output = tmp_path / "out.txt"
    assert stdout("metrics", *words, "-o", str(output)) == ""
    assert output.read_text(encoding="utf-8") == printed


def test_split_criteria_render_by_hand(tmp_path):
    from cws_bench.metrics.impurity import split_criteria

    # outlook decides play exactly: entropy 1 bit, gain 1, split information 1, Gini 0.5 -> 0.
    rows = {"outlook": ["sun", "rain"], "play": ["no", "yes"]}
    criteria = split_criteria(rows, "play")
    assert criteria.render("text", name="t.csv", digits=2).splitlines() == [
        "t.csv: play: 2 rows, entropy 1.00 bits, Gini index 0.50",
        "  feature  values  conditional_entropy  information_gain  split_information"
        "  gain_ratio  gini_gain",
        "  outlook       2                 0.00              1.00               1.00"
        "        1.00       0.50",
    ]
    assert criteria.render("csv").splitlines()[1] == "outlook,2,0.0,1.0,1.0,1.0,0.5"
    table = tmp_path / "t.csv"
    table.write_text("outlook,play\nsun,no\nrain,yes\n", encoding="utf-8")
    for fmt in ("text", "json", "csv", "markdown"):
        printed = stdout("metrics", "impurity", str(table), "--target", "play", "--format", fmt)
        assert printed == split_criteria(rows, "play").render(fmt, name=str(table)) + "\n"


def test_serving_metrics_render_by_hand(tmp_path):
    from cws_bench.metrics.throughput import serving_metrics

    # Two requests over 0..4 s: 10 output tokens / 4 s = 2.5 tokens/s; TTFT 1 s and 2 s.
    result = serving_metrics([0.0, 1.0], [1.0, 3.0], [3.0, 4.0], [3, 5], [5, 5])
    text = result.render("text", name="log.jsonl")
    assert text.splitlines()[0] == (
        "log.jsonl: 2 requests over 4.000 s (8 input, 10 output tokens)"
    )
    assert "  generation throughput   2.50  output tokens/s" in text
    assert "  TTFT          1,500.00" in text
    csv_rows = result.render("csv").splitlines()
    assert csv_rows[1] == "generation_throughput,value,2.5"
    assert "ttft,mean,1.5" in csv_rows
    log = tmp_path / "log.jsonl"
    log.write_text(
        '{"start": 0, "first_token": 1, "end": 3, "input_tokens": 3, "output_tokens": 5}\n'
        '{"start": 1, "first_token": 3, "end": 4, "input_tokens": 5, "output_tokens": 5}\n',
        encoding="utf-8",
    )
    for fmt in ("text", "json", "csv", "markdown"):
        printed = stdout("metrics", "throughput", str(log), "--format", fmt)
        assert printed == result.render(fmt, name=str(log)) + "\n"


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_listings_render_what_the_commands_print(fmt):
    from cws_bench.corpora import corpus_names
    from cws_bench.corpora.stats import render_corpus_list
    from cws_bench.segmenters.registry import list_segmenters, render_segmenters

    assert render_segmenters(list_segmenters(), fmt) + "\n" == stdout("segmenters", "--format", fmt)

    # the command names the data folder by its flag, the API by its parameter
    def flags(fix):
        return "--data-dir FOLDER" if fix.parameter == "data_dir" else fix.api()

    cards = [get_corpus(name).metadata(flags) for name in corpus_names()]
    assert render_corpus_list(cards, fmt) + "\n" == stdout("corpora", "--format", fmt)


def test_listings_by_hand():
    from cws_bench.corpora.stats import render_corpus_list
    from cws_bench.segmenters.registry import SegmenterInfo, render_segmenters

    infos = [
        SegmenterInfo("fmm", "dictionary", "forward maximum matching", True, "0.1", None),
        SegmenterInfo("x", None, "", False, None, "pip install x"),
    ]
    assert render_segmenters(infos).splitlines() == [
        "name  kind        version  available  description / how to install",
        "fmm   dictionary  0.1      yes        forward maximum matching",
        "x     ?           -        no         install: pip install x",
    ]
    card = {
        "name": "c",
        "script": "simplified",
        "available": False,
        "splits": ["train", "test"],
        "available_splits": ["test"],
        "title": "A corpus",
        "domain": "news",
        "location": None,
        "how_to_get": "download it",
    }
    assert render_corpus_list([card]) == (
        "c  simplified   not here   splits: (train) test\n"
        "   A corpus (news)\n"
        "   to get: download it\n"
        "(a split in parentheses is not available here)"
    )
