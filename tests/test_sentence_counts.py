"""One function makes the per-sentence statistics rows for the bake-off and regression."""

from __future__ import annotations

import sys
from pathlib import Path

from cws_bench.regression.recording import record_baseline
from cws_bench.run.config import CorpusSpec, SegmenterSpec
from cws_bench.scoring import score_sentences
from cws_bench.scoring.per_sentence import COLUMNS, column, sentence_rows, statistics

sys.path.insert(0, str(Path(__file__).parent))
from unsharded import PairTask, run_pair

# Line 2 is empty: the scorer skips it, and so must every resampling of the scores.
GOLD = "研究 人员 发现 问题\n\n今天 上午 下雨\n"
WORDS = "研究人员\n发现\n问题\n今天\n上午\n下雨\n"


def test_the_column_table_names_scorecounts_fields():
    assert [name for name, _ in COLUMNS] == ["correct", "pred", "gold"]
    gold, pred = [["结婚", "的"]], [["结", "婚", "的"]]
    result = score_sentences(gold, pred, per_line=True)
    (row,) = sentence_rows(result)
    for name, _ in COLUMNS:
        assert row[column(name)] == getattr(result.counts, name)


def test_rows_sum_to_the_totals_and_give_the_point_estimates():
    gold = [["研究", "人员"], [], ["今天", "上午"]]
    pred = [["研究人员"], [], ["今天", "上午"]]
    result = score_sentences(gold, pred, per_line=True)
    rows = sentence_rows(result)
    assert rows == [(0, 1, 2), (2, 2, 2)]
    import numpy as np

    sums = np.asarray(rows).sum(axis=0, keepdims=True)
    for name, statistic in statistics().items():
        assert float(statistic(sums)[0]) == getattr(result, name)


def test_bakeoff_and_baseline_keep_the_same_rows_for_empty_gold_lines(tmp_path: Path):
    gold, words = tmp_path / "gold.txt", tmp_path / "words.txt"
    gold.write_text(GOLD, encoding="utf-8")
    words.write_text(WORDS, encoding="utf-8")
    corpus = CorpusSpec(label="gold", gold=str(gold))
    options = {"lexicon": str(words)}
    task = PairTask(corpus, SegmenterSpec("fmm", "fmm"), options, "key", 100, None)
    bakeoff_rows = [tuple(row) for row in run_pair(task).sentence_counts]
    baseline = record_baseline(
        "fmm", [str(gold)], options=options, speed_runs=1, min_run_seconds=0.0
    )
    (record,) = baseline.records
    # Today the bake-off keeps a (0, 0, 0) row for the empty line; regression does not.
    assert bakeoff_rows == list(record.sentence_counts) == [(2, 3, 4), (3, 3, 3)]
