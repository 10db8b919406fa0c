"""Results print the command line's table and stay short in a repr; the streaming metric's
result is a mapping and takes one-shot predictions and references, as ``evaluate`` does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from cws_bench.cli import cli
from cws_bench.run.comparison import compare
from cws_bench.scoring import score_files
from cws_bench.scoring.streaming import SegmentationMetric

ROOT = Path(__file__).resolve().parent.parent
GOLD = str(ROOT / "corpora" / "sample" / "gold.txt")
PRED = str(ROOT / "corpora" / "sample" / "pred.txt")


def cli_stdout(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def test_a_score_prints_the_commands_table_and_has_a_short_repr():
    result = score_files(GOLD, PRED)
    printed = str(result)
    assert printed == result.to_text()
    # the command's table names the files; the rest is the same, line for line
    assert printed.splitlines()[1:] == cli_stdout("score", GOLD, PRED).splitlines()[1:]
    # 317 correct of 371 predicted and 414 gold words
    assert repr(result) == (
        "ScoreResult(method='interval', precision=0.8544, recall=0.7657, f1=0.8076, sentences=40)"
    )


def test_a_comparison_prints_the_commands_table():
    report = compare(GOLD, {"mine": PRED, "gold": GOLD}, resamples=20)
    assert str(report) == report.to_text()
    assert str(report) == cli_stdout(
        "score", GOLD, f"mine={PRED}", f"gold={GOLD}", "--resamples", "20", "--confidence",
        "--paired",
    ).rstrip("\n")  # fmt: skip
    assert repr(report) == (
        "ComparisonReport(gold='" + GOLD + "', systems=2, comparisons=1, best='gold')"
    )


def test_metric_reports_print_their_tables():
    from cws_bench.metrics.ranking import evaluate_run
    from cws_bench.segmenters.as_tokenizers import generation_scores

    ranking = evaluate_run({"q1": {"d1": 1}}, {"q1": ["d2", "d1"]}, metrics=["map"])
    assert str(ranking) == ranking.to_text()
    assert repr(ranking) == "RankingReport(map=0.5000, queries=1)"
    from cws_bench.segmenters.as_tokenizers import TokenizerComparison

    table = TokenizerComparison(rows=(generation_scores(["猫吃鱼"], [["猫吃了鱼"]]),))
    assert str(table) == table.to_text()
    assert repr(table) == "TokenizerComparison(tokenizers=[char], skipped=0)"


def test_the_streaming_result_is_a_mapping_with_attributes_and_json():
    metric = SegmentationMetric()
    result = metric.compute(
        predictions=["结婚 的 和尚 未 结婚 的"], references=["结婚 的 和 尚未 结婚 的"]
    )
    # 4 of 6 predicted words are gold words, 4 of 6 gold words predicted
    assert result["f1"] == result.f1 == pytest.approx(4 / 6)
    assert result["precision"] == 4 / 6 and result["gold_words"] == 6
    assert dict(result) == result.to_dict()
    assert json.loads(result.to_json())["f1"] == result["f1"]
    assert "f1" in result and len(result) == len(result.to_dict())
    with pytest.raises(KeyError, match="did you mean f1"):
        result["F1 "]


def test_one_shot_compute_equals_add_batch_then_compute():
    predictions = [["结婚", "的"], "和尚 未 结婚"]
    references = ["结婚 的", "和 尚未 结婚"]
    streamed = SegmentationMetric()
    streamed.add_batch(predictions=predictions, references=references)
    one_shot = SegmentationMetric().compute(predictions=predictions, references=references)
    assert one_shot.to_dict() == streamed.compute().to_dict()
    with pytest.raises(TypeError, match="both predictions and references"):
        SegmentationMetric().compute(predictions=predictions)
