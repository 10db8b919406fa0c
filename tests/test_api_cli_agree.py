"""The command line and the Python API give the same numbers for the same arguments.

Each command's ``--format json`` output is compared with the JSON of the
library call it stands for, made with the library's own defaults: a default
decided in the command line (and not in the library) shows up here as a
difference. The SIGHAN cases skip without the real corpora.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import cws_bench
from cws_bench.cli import cli
from cws_bench.corpora import get_corpus

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_DICT = ROOT / "dictionaries" / "sample.txt"


def run_json(*args: str) -> Any:
    """The command's JSON output (exit code 0 checked)."""
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def merged(sentence: list[str], every: int) -> list[str]:
    """Every ``every``-th word joined with the next one: a segmenter that over-merges."""
    out: list[str] = []
    for i, word in enumerate(sentence):
        if out and i % every == 0:
            out[-1] += word
        else:
            out.append(word)
    return out


def write_prediction(path: Path, sentences: list[list[str]], every: int) -> Path:
    path.write_text("".join(" ".join(merged(s, every)) + "\n" for s in sentences), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def sample_preds(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two predictions of the sample corpus' test split (over-merging, differently)."""
    folder = tmp_path_factory.mktemp("preds")
    gold = list(get_corpus("sample").sentences("test"))
    return (
        write_prediction(folder / "a.txt", gold, 3),
        write_prediction(folder / "b.txt", gold, 5),
    )


# ---------------------------------------------------------------------------
# score, score --paired, diff


def test_score_of_a_corpus_uses_its_standard_dictionary_in_both(sample_preds):
    a, _ = sample_preds
    cli_result = run_json("score", "sample:test", a, "--format", "json")
    api_result = cws_bench.score_files("sample:test", a)
    assert json.loads(api_result.to_json()) == cli_result
    # the sample corpus' standard dictionary, not none
    assert cli_result["oov_recall"] is not None
    assert "dict:none" not in cli_result["signature"]


def test_no_dictionary_is_still_asked_for_by_none(sample_preds):
    a, _ = sample_preds
    result = cws_bench.score_files("sample:test", a, dictionary=None)
    assert result.oov_recall is None
    assert "dict:none" in result.signature.format()


def test_score_with_a_dictionary_spec_agrees(sample_preds):
    a, _ = sample_preds
    cli_result = run_json("score", "sample:test", a, "--dict", "corpus:sample", "--format", "json")
    api_result = cws_bench.score_files("sample:test", a, dictionary="corpus:sample")
    assert json.loads(api_result.to_json()) == cli_result


def test_score_paired_agrees_with_compare(sample_preds):
    a, b = sample_preds
    cli_result = run_json("score", "sample:test", a, b, "--paired", "--format", "json")
    report = cws_bench.compare("sample:test", [a, b], confidence=False)
    assert json.loads(report.render("json")) == cli_result
    assert all(row["scores"]["oov_recall"] is not None for row in cli_result["systems"])


def test_score_confidence_paired_agrees_with_compare_defaults(sample_preds):
    a, b = sample_preds
    cli_result = run_json(
        "score", "sample:test", a, b, "--confidence", "--paired", "--format", "json"
    )
    assert json.loads(cws_bench.compare("sample:test", [a, b]).render("json")) == cli_result


def test_diff_agrees_with_diff_files(sample_preds):
    from cws_bench.regression.diff import diff_files
    from cws_bench.regression.render import render_diff_json

    a, b = sample_preds
    cli_result = run_json("diff", a, b, "--gold", "sample:test", "--format", "json")
    api_result = json.loads(render_diff_json(diff_files(a, b, "sample:test")))
    assert api_result == cli_result
    assert "dict:none" not in json.dumps(cli_result)


# ---------------------------------------------------------------------------
# check and bakeoff (timings differ between two runs: the scores may not)


def without_timing(value: Any) -> Any:
    """A JSON value without the figures a rerun measures anew (speed, time, memory, cache)."""
    timed = ("speed", "memory", "cached", "runs", "spread", "timing", "created")
    if isinstance(value, dict):
        return {
            k: without_timing(v)
            for k, v in value.items()
            if not (k.endswith("_s") or any(t in k for t in timed))
        }
    if isinstance(value, list):
        return [without_timing(v) for v in value]
    return value


def test_check_agrees_with_check_baseline(tmp_path):
    from cws_bench.regression.baseline_file import load_baseline, save_baseline
    from cws_bench.regression.check import check_baseline
    from cws_bench.regression.recording import record_baseline, rerun_baseline
    from cws_bench.regression.render import render_check_json

    path = tmp_path / "baseline.json"
    save_baseline(
        record_baseline("fmm", ["sample"], options={"lexicon": str(SAMPLE_DICT)}, speed_runs=1),
        path,
    )
    cli_result = run_json("check", "--baseline", path, "--format", "json", "--speed-runs", "1")
    stored = load_baseline(path)
    api_result = json.loads(
        render_check_json(check_baseline(stored, rerun_baseline(stored, speed_runs=1)))
    )
    assert without_timing(api_result) == without_timing(cli_result)
    assert cli_result["passed"] is True


def test_bakeoff_and_report_agree_with_run_bakeoff(tmp_path, sample_bakeoff):
    from cws_bench.reports import render_report
    from cws_bench.run.bakeoff import run_bakeoff
    from cws_bench.run.config import load_config

    config = tmp_path / "agree.toml"
    bakeoff = sample_bakeoff("agree", settings={"seed": 7, "resamples": 100, "timeout": 120})
    config.write_text(bakeoff, encoding="utf-8")
    out = tmp_path / "cli"
    result = CliRunner().invoke(cli, ["bakeoff", str(config), "-o", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    cli_result = run_json("report", out / "results.json", "--format", "json")
    api = run_bakeoff(load_config(config), output_dir=tmp_path / "api", jobs=1, write=False)
    api_result = json.loads(render_report(api, "json"))
    for data in (cli_result, api_result):
        data.pop("settings", None)  # the output folder, the jobs
    assert without_timing(api_result) == without_timing(cli_result)


# ---------------------------------------------------------------------------
# metrics


def test_metrics_classification_agrees(tmp_path):
    from cws_bench.metrics.classification import classification_report

    true, pred = ["a", "b", "a", "c", "b", "a"], ["a", "a", "a", "c", "b", "b"]
    (tmp_path / "t.txt").write_text("\n".join(true) + "\n", encoding="utf-8")
    (tmp_path / "p.txt").write_text("\n".join(pred) + "\n", encoding="utf-8")
    cli_result = run_json(
        "metrics", "classification", tmp_path / "t.txt", tmp_path / "p.txt", "--format", "json"
    )
    assert json.loads(classification_report(true, pred).render("json")) == cli_result


def test_metrics_generation_agrees(tmp_path):
    from cws_bench.segmenters.as_tokenizers import TokenizerComparison, generation_scores

    preds, refs = ["今天天气很好", "我们去公园"], ["今天天气不错", "我们去公园玩"]
    (tmp_path / "p.txt").write_text("\n".join(preds) + "\n", encoding="utf-8")
    (tmp_path / "r.txt").write_text("\n".join(refs) + "\n", encoding="utf-8")
    cli_result = run_json(
        "metrics",
        "generation",
        "--pred",
        tmp_path / "p.txt",
        "--ref",
        tmp_path / "r.txt",
        "--format",
        "json",
    )
    table = TokenizerComparison(rows=(generation_scores(preds, [[r] for r in refs]),))
    api_result = json.loads(table.render("json", pred=str(tmp_path / "p.txt"), references=1))
    assert api_result == cli_result


def test_metrics_ranking_agrees(tmp_path):
    from cws_bench.metrics.ranking import evaluate_run
    from cws_bench.text.metric_files import read_trec_qrels, read_trec_run

    run = tmp_path / "run.trec"
    qrels = tmp_path / "qrels.trec"
    run.write_text(
        "q1 Q0 d1 1 3.0 t\nq1 Q0 d2 2 2.0 t\nq1 Q0 d3 3 1.0 t\nq2 Q0 d4 1 1.0 t\n",
        encoding="utf-8",
    )
    qrels.write_text("q1 0 d2 1\nq1 0 d3 2\nq2 0 d5 1\n", encoding="utf-8")
    cli_result = run_json("metrics", "ranking", qrels, run, "--format", "json")
    report = evaluate_run(read_trec_qrels(qrels), read_trec_run(run))
    assert json.loads(report.render("json", run=str(run), qrels=str(qrels))) == cli_result


def test_metrics_impurity_agrees(tmp_path):
    from cws_bench.metrics.impurity import split_criteria
    from cws_bench.text.metric_files import read_table

    data = tmp_path / "t.csv"
    data.write_text("outlook,windy,play\nsun,no,yes\nsun,yes,no\nrain,no,yes\nrain,yes,no\n")
    cli_result = run_json("metrics", "impurity", data, "--target", "play", "--format", "json")
    criteria = split_criteria(read_table(data), "play")
    assert json.loads(criteria.render("json", name=str(data))) == cli_result


def test_metrics_throughput_agrees(tmp_path):
    from cws_bench.metrics.throughput import serving_metrics
    from cws_bench.text.metric_files import read_request_log

    log = tmp_path / "log.jsonl"
    rows = [
        {"start": 0.0, "first_token": 0.5, "end": 2.0, "input_tokens": 10, "output_tokens": 4},
        {"start": 1.0, "first_token": 1.2, "end": 3.5, "input_tokens": 7, "output_tokens": 6},
    ]
    log.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    cli_result = run_json("metrics", "throughput", log, "--format", "json")
    fields = read_request_log(log).fields
    result = serving_metrics(
        fields["start"],
        fields["first_token"],
        fields["end"],
        fields["input_tokens"],
        fields["output_tokens"],
    )
    assert json.loads(result.render("json", name=str(log))) == cli_result


# ---------------------------------------------------------------------------
# SIGHAN 2005 PKU: the bakeoff's training word list, whichever way it is asked


def test_score_of_sighan_pku_agrees(icwb2, tmp_path):
    gold = list(get_corpus("sighan2005-pku", data_dir=icwb2).sentences("test"))
    a = write_prediction(tmp_path / "a.txt", gold, 4)
    b = write_prediction(tmp_path / "b.txt", gold, 6)
    cli_result = run_json(
        "score", "sighan2005-pku:test", a, "--data-dir", icwb2, "--format", "json"
    )
    api_result = cws_bench.score_files("sighan2005-pku:test", a, data_dir=icwb2)
    assert json.loads(api_result.to_json()) == cli_result
    assert cli_result["oov_recall"] is not None
    cli_paired = run_json(
        "score", "sighan2005-pku:test", a, b, "--paired", "--data-dir", icwb2, "--format", "json"
    )
    report = cws_bench.compare("sighan2005-pku:test", [a, b], confidence=False, data_dir=icwb2)
    assert json.loads(report.render("json")) == cli_paired
