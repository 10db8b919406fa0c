"""Tests of cws_bench/metrics/ranking.py: hand-checked values and ranx as the oracle."""

from __future__ import annotations

import math
import os
import random
import sys
import warnings

import pytest

from cws_bench.metrics.classification import UndefinedMetricWarning
from cws_bench.metrics.ranking import (
    average_precision,
    cumulative_gain,
    dcg,
    evaluate_run,
    hit_rate,
    mean_average_precision,
    mean_reciprocal_rank,
    ndcg,
    parse_metric,
    precision_at_k,
    rank_documents,
    recall_at_k,
    reciprocal_rank,
)

TOLERANCE = 1e-9

# ranx compiles its metrics with numba on first use: in a new virtualenv that costs about a
# minute of CPU (the compiled code is then cached in ranx's folder), while the same code run
# as plain Python takes a few seconds on these test-sized runs; the oracle's arithmetic is
# the same either way. Only ranx uses numba here; if something imported numba before this
# module, the setting does not apply and the tests are only slower.
if "numba" not in sys.modules:
    os.environ.setdefault("NUMBA_DISABLE_JIT", "1")

# One query: d1 grade 1, d2 grade 0 (judged, not relevant), d3 grade 2; the run ranks d9, d3, d1.
JUDGEMENTS = {"d1": 1, "d2": 0, "d3": 2}
SCORES = {"d1": 0.5, "d3": 0.7, "d9": 0.9}


def test_hand_checked_values():
    assert rank_documents(SCORES) == ["d9", "d3", "d1"]
    assert average_precision(JUDGEMENTS, SCORES) == (1 / 2 + 2 / 3) / 2
    assert average_precision(JUDGEMENTS, SCORES, k=2) == (1 / 2) / 2
    assert reciprocal_rank(JUDGEMENTS, SCORES) == 0.5
    assert reciprocal_rank(JUDGEMENTS, SCORES, k=1) == 0.0
    assert hit_rate(JUDGEMENTS, SCORES, k=1) == 0.0
    assert hit_rate(JUDGEMENTS, SCORES, k=2) == 1.0
    assert precision_at_k(JUDGEMENTS, SCORES, k=5) == 2 / 5
    assert recall_at_k(JUDGEMENTS, SCORES, k=2) == 1 / 2
    # exponential gains 2^g - 1: d9 0, d3 3, d1 1; discounts log2(i + 1)
    assert dcg(JUDGEMENTS, SCORES, gain="exponential") == 0 + 3 / math.log2(3) + 1 / math.log2(4)
    ideal = 3 / math.log2(2) + 1 / math.log2(3)
    assert ndcg(JUDGEMENTS, SCORES, k=2, gain="exponential") == (3 / math.log2(3)) / ideal
    # linear gains (the default): d9 0, d3 2, d1 1
    assert dcg(JUDGEMENTS, SCORES) == 0 + 2 / math.log2(3) + 1 / math.log2(4)
    assert ndcg(JUDGEMENTS, SCORES, k=2) == (2 / math.log2(3)) / (2 + 1 / math.log2(3))
    # cumulative gain: no discount
    assert cumulative_gain(JUDGEMENTS, SCORES) == 3.0
    assert cumulative_gain(JUDGEMENTS, SCORES, k=2) == 2.0
    assert cumulative_gain(JUDGEMENTS, SCORES, relevance_level=2) == 2.0
    # a higher relevance level makes d1 irrelevant
    assert average_precision(JUDGEMENTS, SCORES, relevance_level=2) == 1 / 2


def test_ties_are_broken_by_document_id_descending_as_trec_eval():
    assert rank_documents({"a": 1.0, "c": 1.0, "b": 1.0, "z": 0.5}) == ["c", "b", "a", "z"]


def test_no_relevant_document_follows_zero_division():
    with pytest.warns(UndefinedMetricWarning, match="no relevant document"):
        assert average_precision({"d1": 0}, ["d1"]) == 0.0
    assert math.isnan(ndcg({}, ["d1"], zero_division=math.nan))
    assert recall_at_k({}, ["d1"], zero_division=1.0) == 1.0
    assert reciprocal_rank({}, ["d1"]) == 0.0


def test_bad_arguments():
    with pytest.raises(ValueError, match="ranked twice"):
        average_precision(JUDGEMENTS, ["d1", "d1"])
    with pytest.raises(ValueError, match="positive integer"):
        hit_rate(JUDGEMENTS, SCORES, k=0)
    with pytest.raises(ValueError, match="unknown ranking metric"):
        parse_metric("bpref")
    with pytest.raises(ValueError, match="needs a cut-off"):
        parse_metric("precision")
    with pytest.raises(ValueError, match="gain"):
        dcg(JUDGEMENTS, SCORES, gain="cubic")


def test_evaluate_run_averages_over_the_qrels_queries():
    qrels = {"q1": JUDGEMENTS, "q2": {"d5": 1}, "q3": {"d7": 1}}
    run = {"q1": SCORES, "q2": ["d5"], "q4": ["d1"]}
    report = evaluate_run(qrels, run, metrics=["map", "mrr@1", "ndcg@3"])
    assert report.queries == 3
    assert report.missing_queries == ("q3",)
    assert report.unjudged_queries == ("q4",)
    assert report.means["map"] == ((1 / 2 + 2 / 3) / 2 + 1.0 + 0.0) / 3
    assert report.per_query["q1"]["mrr@1"] == 0.0
    assert mean_reciprocal_rank(qrels, run) == (0.5 + 1.0 + 0.0) / 3
    assert mean_average_precision(qrels, run, k=1) == (0.0 + 1.0 + 0.0) / 3
    frame = report.to_frame()
    assert list(frame.columns) == ["map", "mrr@1", "ndcg@3"]
    assert list(frame.index) == ["q1", "q2", "q3"]
    assert report.to_dict()["per_query"]["q2"]["map"] == 1.0


# ---------------------------------------------------------------------------
# ranx as the oracle

METRICS = [
    "map",
    "map@3",
    "mrr",
    "mrr@2",
    "hit_rate@1",
    "hit_rate@4",
    "precision@3",
    "recall@5",
    "ndcg",
    "ndcg@3",
    "ndcg_burges",
    "ndcg_burges@3",
    "dcg@4",
    "dcg_burges@4",
]
QUERIES = 1500  # random queries per relevance level, each one case


def random_run(seed: int) -> tuple[dict, dict]:
    """Random qrels (grades 0-3, some queries with nothing relevant) and a run with distinct scores.

    Distinct scores, because ranx breaks ties arbitrarily.
    """
    rng = random.Random(seed)
    documents = [f"d{i}" for i in range(12)]
    qrels, run = {}, {}
    for i in range(QUERIES):
        query = f"q{i}"
        judged = rng.sample(documents, rng.randint(1, 8))
        qrels[query] = {doc: rng.randint(0, 3) for doc in judged}
        ranked = rng.sample(documents, rng.randint(1, 10))
        scores = rng.sample(range(len(ranked)), len(ranked))
        run[query] = {doc: score + 0.5 for doc, score in zip(ranked, scores)}
    return qrels, run


@pytest.mark.parametrize("relevance_level", [1, 2])
def test_metrics_match_ranx_on_random_runs(relevance_level):
    ranx = pytest.importorskip("ranx", reason="ranx is the ranking oracle")
    qrels, run = random_run(relevance_level)
    report = evaluate_run(
        qrels, run, metrics=METRICS, relevance_level=relevance_level, zero_division=0.0
    )
    ranx_run = ranx.Run(run)
    ranx_metrics = [f"{m}-l{relevance_level}" for m in METRICS]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ranx.evaluate(ranx.Qrels(qrels), ranx_run, ranx_metrics)
    for metric, ranx_metric in zip(METRICS, ranx_metrics):
        for query in qrels:
            expected = ranx_run.scores[ranx_metric][query]
            assert report.per_query[query][metric] == pytest.approx(expected, abs=TOLERANCE), (
                metric,
                query,
            )
        assert report.means[metric] == pytest.approx(
            ranx_run.mean_scores[ranx_metric], abs=TOLERANCE
        )


@pytest.mark.parametrize("relevance_level", [1, 2])
def test_cumulative_gain_from_ranx_hits(relevance_level):
    """ranx has no CG; a grade g >= level L is L + (the levels above L up to g), so
    CG@k = L * hits@k at level L + the sum of hits@k at each level above L."""
    ranx = pytest.importorskip("ranx", reason="ranx is the ranking oracle")
    qrels, run = random_run(10 + relevance_level)
    report = evaluate_run(qrels, run, metrics=["cg@5", "cg"], relevance_level=relevance_level)
    ranx_run = ranx.Run(run)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ranx.evaluate(ranx.Qrels(qrels), ranx_run, [f"hits@5-l{level}" for level in range(1, 4)])
    for query in qrels:
        hits = {level: ranx_run.scores[f"hits@5-l{level}"][query] for level in range(1, 4)}
        expected = relevance_level * hits[relevance_level] + sum(
            hits[level] for level in range(relevance_level + 1, 4)
        )
        assert report.per_query[query]["cg@5"] == expected, query
        assert report.per_query[query]["cg"] == sum(
            g for doc, g in qrels[query].items() if g >= relevance_level and doc in run[query]
        )


def test_ndcg_is_linear_and_ndcg_burges_exponential_as_in_ranx():
    """The README's example once gave 82.95 for ndcg@3, which is ranx's ndcg_burges."""
    qrels = {"q1": {"d1": 1, "d3": 2}, "q2": {"d6": 1}}
    run = {"q1": {"d9": 0.9, "d3": 0.7, "d1": 0.5}, "q2": {"d6": 2.0}}
    report = evaluate_run(qrels, run, metrics=["ndcg@3", "ndcg_burges@3"])
    linear = (2 / math.log2(3) + 1 / 2) / (2 + 1 / math.log2(3))
    exponential = (3 / math.log2(3) + 1 / 2) / (3 + 1 / math.log2(3))
    assert report.means["ndcg@3"] == pytest.approx((linear + 1) / 2, abs=1e-15)
    assert report.means["ndcg_burges@3"] == pytest.approx((exponential + 1) / 2, abs=1e-15)
    assert round(100 * report.means["ndcg_burges@3"], 2) == 82.95
    assert round(100 * report.means["ndcg@3"], 2) == 83.48
    assert cumulative_gain(qrels["q1"], run["q1"], k=2) == 2.0


def test_kendall_tau_equals_scipy_with_ties():
    import random

    from scipy.stats import kendalltau

    from cws_bench.metrics.ranking import kendall_tau

    rng = random.Random(43)
    for _ in range(200):
        n = rng.randint(2, 15)
        x = [rng.choice([0.1, 0.2, rng.random()]) for _ in range(n)]
        y = [rng.choice([0.5, rng.random()]) for _ in range(n)]
        expected = kendalltau(x, y).statistic
        found = kendall_tau(x, y)
        if expected != expected:  # nan: undefined
            assert found is None
        else:
            assert found == pytest.approx(expected, abs=1e-12)
    assert kendall_tau([1.0], [2.0]) is None
    with pytest.raises(ValueError, match="2 and 1 values"):
        kendall_tau([1, 2], [1])
