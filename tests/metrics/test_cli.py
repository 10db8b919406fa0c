"""Tests of ``cws-bench metrics`` (cws_bench/cli/metrics.py) and its readers (metric_files.py)."""

from __future__ import annotations

import csv
import io
import json

import pytest
from click.testing import CliRunner

from cws_bench.cli import cli
from cws_bench.errors import CorpusFormatError, CwsBenchError
from cws_bench.metrics.classification import classification_report
from cws_bench.metrics.ranking import evaluate_run
from cws_bench.segmenters.as_tokenizers import generation_scores
from cws_bench.text.metric_files import (
    read_generation_files,
    read_label_files,
    read_trec_qrels,
    read_trec_run,
)

TRUE = ["cat"] * 25 + ["dog"] * 75
PRED = ["cat"] * 20 + ["dog"] * 5 + ["cat"] * 18 + ["dog"] * 57

RUN = """q1 Q0 d9 1 0.9 bm25
q1 Q0 d3 2 0.7 bm25
q1 Q0 d1 3 0.5 bm25
q2 Q0 d5 1 2.0 bm25
q2 Q0 d6 2 1.0 bm25
"""
QRELS = """q1 0 d1 1
q1 0 d2 0
q1 0 d3 2
q2 0 d6 1
q3 0 d7 1
"""


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture
def labels(write):
    return write("true.txt", "\n".join(TRUE) + "\n"), write("pred.txt", "\n".join(PRED) + "\n")


# ---------------------------------------------------------------------------
# classify


def test_classify_prints_the_report(labels):
    true, pred = labels
    result = invoke("metrics", "classify", true, pred)
    assert result.exit_code == 0
    assert result.stdout.rstrip("\n") == classification_report(TRUE, PRED).to_text().rstrip("\n")
    assert "cat       0.53      0.80      0.63        25" in result.stdout
    assert "accuracy                           0.77       100" in result.stdout


def test_classify_json_and_csv(labels):
    true, pred = labels
    data = json.loads(
        invoke("metrics", "classify", true, pred, "--format", "json", "--confusion").stdout
    )
    assert data["accuracy"] == 0.77
    assert data["cat"]["precision"] == 20 / 38
    assert data["confusion_matrix"] == {"labels": ["cat", "dog"], "matrix": [[20, 5], [18, 57]]}
    rows = list(
        csv.DictReader(
            io.StringIO(invoke("metrics", "classify", true, pred, "--format", "csv").stdout)
        )
    )
    assert [row["label"] for row in rows] == ["cat", "dog", "accuracy", "macro avg", "weighted avg"]
    assert float(rows[1]["recall"]) == 0.76


def test_classify_confusion_text(labels):
    true, pred = labels
    out = invoke("metrics", "classify", true, pred, "--confusion").stdout
    assert out.rstrip().splitlines()[-2:] == ["cat           20    5", "dog           18   57"]


def test_classify_warns_about_undefined_metrics(write):
    true = write("t.txt", "cat\ndog\n")
    pred = write("p.txt", "dog\ndog\n")
    result = invoke("metrics", "classify", true, pred)
    assert result.exit_code == 0
    assert "warning: Precision is ill-defined" in result.stderr
    quiet = invoke("metrics", "classify", true, pred, "--zero-division", "0")
    assert quiet.stderr == ""


def test_classify_with_different_line_counts_names_file_and_line(write):
    true = write("t.txt", "cat\ndog\ncat\n")
    pred = write("p.txt", "cat\ndog\n")
    result = invoke("metrics", "classify", true, pred)
    assert result.exit_code == 2
    assert f"error: {true}:3: {true} has 3 labels but {pred} has 2" in result.stderr
    assert "Traceback" not in result.stderr


def test_classify_blank_line(write):
    true = write("t.txt", "cat\n\ndog\n")
    pred = write("p.txt", "cat\ndog\ndog\n")
    result = invoke("metrics", "classify", true, pred)
    assert result.exit_code == 2
    assert f"{true}:2: blank line, expected a label" in result.stderr


def test_labels_are_read_with_bom_crlf_and_other_encodings(write):
    true = write("t.txt", "\ufeff猫\r\n狗\r\n")
    pred = write("p.txt", "中文\n中文", encoding="gb18030")
    assert read_label_files(true, true)[0] == ["猫", "狗"]
    with pytest.raises(CwsBenchError, match=r"p\.txt:1: byte offset 0: not valid utf-8"):
        read_label_files(true, pred)
    result = invoke("metrics", "classify", pred, pred, "--encoding", "gb18030")
    assert result.exit_code == 0 and "中文" in result.stdout


# ---------------------------------------------------------------------------
# generation


@pytest.fixture
def texts(write):
    pred = write("answers.txt", "猫猫猫吃鱼鱼鱼\n我们 在 北京大学 学习\n")
    ref1 = write("refs.txt", "猫吃鱼\n我们 在 北京 大学 学习\n")
    ref2 = write("refs2.txt", "猫在吃鱼\n我们在北大学习\n")
    return pred, ref1, ref2


def test_generation_text(texts):
    pred, ref1, _ = texts
    result = invoke("metrics", "generation", "-r", ref1, "-p", pred)
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == f"{pred}: 2 lines against 1 reference file (scores in %)"
    assert lines[1].split() == [
        "tokenizer",
        "EM",
        "P",
        "R",
        "F1",
        "BLEU",
        "ROUGE-1",
        "ROUGE-2",
        "ROUGE-L",
    ]
    expected = generation_scores(
        ["猫猫猫吃鱼鱼鱼", "我们 在 北京大学 学习"], [["猫吃鱼"], ["我们 在 北京 大学 学习"]]
    )
    assert lines[2].split() == [
        "char",
        *(
            f"{100 * getattr(expected, name):.2f}"
            for name in (
                "exact_match",
                "precision",
                "recall",
                "f1",
                "bleu",
                "rouge1",
                "rouge2",
                "rougeL",
            )
        ),
    ]


def test_generation_json_equals_the_python_api(texts):
    pred, ref1, ref2 = texts
    result = invoke(
        "metrics",
        "generation",
        "--ref",
        ref1,
        "--ref",
        ref2,
        "--pred",
        pred,
        "-t",
        "space",
        "-m",
        "f1,bleu",
        "--format",
        "json",
    )
    data = json.loads(result.stdout)
    expected = generation_scores(
        ["猫猫猫吃鱼鱼鱼", "我们 在 北京大学 学习"],
        [["猫吃鱼", "猫在吃鱼"], ["我们 在 北京 大学 学习", "我们在北大学习"]],
        tokenizer="space",
        metrics=["f1", "bleu"],
    )
    assert data == {"rows": [expected.to_dict()], "skipped": {}}
    assert data["rows"][0]["exact_match"] is None


def test_generation_csv(texts):
    pred, ref1, _ = texts
    rows = list(
        csv.DictReader(
            io.StringIO(
                invoke(
                    "metrics", "generation", "-r", ref1, "-p", pred, "-m", "em", "--format", "csv"
                ).stdout
            )
        )
    )
    assert rows == [{"tokenizer": "char", "items": "2", "references": "1", "exact_match": "0.5"}]


def test_generation_line_counts_must_match(write, texts):
    pred, _, _ = texts
    short = write("short.txt", "猫吃鱼\n")
    result = invoke("metrics", "generation", "-r", short, "-p", pred)
    assert result.exit_code == 2
    assert f"error: {pred}:2: {pred} has 2 lines but {short} has 1" in result.stderr
    with pytest.raises(CwsBenchError, match="has 2 lines"):
        read_generation_files(pred, [short])


def test_generation_bad_metric_and_tokenizer(texts):
    pred, ref1, _ = texts
    result = CliRunner().invoke(
        cli, ["metrics", "generation", "-r", str(ref1), "-p", str(pred), "-m", "meteor"]
    )
    assert result.exit_code == 2 and "unknown metric 'meteor'" in result.stderr
    result = invoke("metrics", "generation", "-r", ref1, "-p", pred, "-t", "no-such-segmenter")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: segmenter no-such-segmenter")


def test_generation_with_a_segmenter(texts):
    pytest.importorskip("jieba", reason="jieba is not installed")
    try:
        from cws_bench.segmenters import get_segmenter

        get_segmenter("jieba")
    except ImportError as e:
        pytest.skip(f"the jieba adapter is not in the registry yet: {e}")
    pred, ref1, _ = texts
    result = invoke("metrics", "generation", "-r", ref1, "-p", pred, "-t", "jieba", "-m", "f1")
    assert result.exit_code == 0
    assert result.stdout.splitlines()[2].split()[0].startswith("jieba-")


# ---------------------------------------------------------------------------
# ranking


@pytest.fixture
def trec(write):
    return write("run.trec", RUN), write("qrels.trec", QRELS)


def test_ranking_text(trec):
    run, qrels = trec
    result = invoke("metrics", "ranking", qrels, run, "-m", "map,mrr,ndcg@2")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == f"{run} against {qrels}: 3 queries (scores in %)"
    # q1: AP (1/2 + 2/3)/2, q2: 1/2, q3 missing: 0
    assert lines[1].split() == ["map", f"{100 * ((1 / 2 + 2 / 3) / 2 + 0.5) / 3:.2f}"]
    assert lines[2].split() == ["mrr", f"{100 * (0.5 + 0.5) / 3:.2f}"]
    assert (
        f"warning: 1 query of {qrels} has no ranking in {run} and score 0 (first: q3)"
        in result.stderr
    )


def test_ranking_json_and_csv_equal_the_python_api(trec):
    run, qrels = trec
    expected = evaluate_run(read_trec_qrels(qrels), read_trec_run(run), metrics=["map", "ndcg@10"])
    data = json.loads(
        invoke(
            "metrics", "ranking", qrels, run, "-m", "map,ndcg@10", "--format", "json", "--per-query"
        ).stdout
    )
    assert data == expected.to_dict()
    rows = list(
        csv.reader(
            io.StringIO(
                invoke("metrics", "ranking", qrels, run, "-m", "map", "--format", "csv").stdout
            )
        )
    )
    assert rows == [["query", "map"], ["mean", str(expected.means["map"])]]


def test_ranking_per_query(trec):
    run, qrels = trec
    out = invoke("metrics", "ranking", qrels, run, "-m", "map", "--per-query").stdout
    assert [line.split() for line in out.splitlines()[-4:]] == [
        ["query", "map"],
        ["q1", "58.33"],
        ["q2", "50.00"],
        ["q3", "0.00"],
    ]


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        (
            "run",
            "q1 Q0 d1 1 0.5\n",
            "run.trec:1: 5 fields, expected 6 (query Q0 document rank score tag)",
        ),
        (
            "run",
            "q1 Q0 d1 1 0.5 x\n\nq1 Q0 d2 2 high x\n",
            "run.trec:3: score 'high' is not a number",
        ),
        (
            "run",
            "q1 Q0 d1 1 0.5 x\nq1 Q0 d1 2 0.4 x\n",
            "run.trec:2: document 'd1' is listed twice for query 'q1'",
        ),
        (
            "qrels",
            "q1 0 d1\n",
            "qrels.trec:1: 3 fields, expected 4 (query iteration document grade)",
        ),
        ("qrels", "q1 0 d1 yes\n", "qrels.trec:1: grade 'yes' is not an integer"),
        (
            "qrels",
            "q1 0 d1 1\nq1 0 d1 2\n",
            "qrels.trec:2: document 'd1' is judged twice for query 'q1'",
        ),
        ("qrels", "\n\n", "qrels.trec: empty qrels"),
    ],
)
def test_malformed_trec_files(write, trec, name, content, message):
    run, qrels = trec
    bad = write(f"{name}.trec", content)
    result = invoke(
        "metrics", "ranking", bad if name == "qrels" else qrels, bad if name == "run" else run
    )
    assert result.exit_code == 2
    assert result.stderr.splitlines()[0] == f"error: {bad.parent / message}"
    assert "Traceback" not in result.stderr


def test_trec_readers(trec):
    run, qrels = trec
    assert read_trec_run(run)["q1"] == {"d9": 0.9, "d3": 0.7, "d1": 0.5}
    assert read_trec_qrels(qrels)["q1"] == {"d1": 1, "d2": 0, "d3": 2}
    with pytest.raises(CorpusFormatError) as caught:
        read_trec_qrels(run)
    assert caught.value.line == 1


def test_readme_examples_work_as_shown(tmp_path, monkeypatch):
    """Run the commands of docs/METRICS.md (the README links it), compare output."""
    import re
    import shlex
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    readme = (root / "README.md").read_text(encoding="utf-8")
    assert "](docs/METRICS.md)" in readme
    section = (root / "docs" / "METRICS.md").read_text(encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    blocks = re.findall(r"```(sh|text)\n(.*?)```", section, flags=re.S)
    assert sum(kind == "sh" for kind, _ in blocks) >= 3
    last = None
    for kind, body in blocks:
        if kind == "text":
            assert last is not None, "an output block must follow a command"
            assert last.stdout.rstrip("\n") == body.rstrip("\n")
            continue
        for line in body.splitlines():
            written = re.match(r"printf '(.*)' > (\S+)$", line)
            if written:
                content = written.group(1).replace("\\n", "\n").replace("\\t", "\t")
                Path(written.group(2)).write_text(content, encoding="utf-8")
            elif line == "cd scratch":  # tmp_path stands for the scratch folder
                continue
            elif line.startswith("cws-bench "):
                last = CliRunner().invoke(cli, shlex.split(line)[1:])
                assert last.exit_code == 0, (line, last.output)
            else:
                assert not line.strip(), f"unexpected line in README: {line}"


def test_every_metrics_command_writes_markdown(labels, write):
    """Text, JSON, CSV and Markdown for every metric command."""
    true, pred = labels
    table = invoke("metrics", "classification", true, pred, "--format", "markdown").stdout
    assert table.splitlines()[:2] == [
        "| label | precision | recall | f1-score | support |",
        "| :-- | --: | --: | --: | --: |",
    ]
    assert "| cat | 0.53 | 0.80 | 0.63 | 25 |" in table
    run, qrels = write("run.trec", RUN), write("qrels.trec", QRELS)
    ranking = invoke("metrics", "ranking", qrels, run, "-m", "map,cg@2", "--format", "markdown")
    assert ranking.stdout.splitlines()[0] == "| query | map | cg@2 |"
    answers, refs = write("a.txt", "猫吃鱼\n"), write("r.txt", "猫吃了鱼\n")
    generation = invoke(
        "metrics", "generation", "-r", refs, "-p", answers, "-m", "f1", "--format", "markdown"
    )
    assert generation.stdout.splitlines()[2] == "| char | 100.00 | 75.00 | 85.71 |"


# ---------------------------------------------------------------------------
# one argument order: gold, judgements or references first, or named


def test_generation_takes_named_files_and_refuses_positional_ones(texts):
    pred, ref1, _ = texts
    result = invoke("metrics", "generation", pred, ref1)
    assert result.exit_code == 2
    assert "give the files as --ref REF (repeatable) and --pred PRED" in result.stderr
    named = invoke("metrics", "generation", "--pred", pred, "--ref", ref1, "-m", "f1")
    short = invoke("metrics", "generation", "-r", ref1, "-p", pred, "-m", "f1")
    assert named.exit_code == 0 and named.stdout == short.stdout


def test_ranking_takes_the_judgements_first_and_refuses_the_old_order(trec):
    run, qrels = trec
    result = invoke("metrics", "ranking", run, qrels)
    assert result.exit_code == 2
    assert f"{run} looks like a run and {qrels} like judgements: the order is QRELS RUN" in (
        result.stderr
    )
    assert invoke("metrics", "ranking", qrels, run).exit_code == 0
