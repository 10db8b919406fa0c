"""Tests of cws_bench/metrics/ranking.py: hand-checked values and ranx as the oracle."""

from __future__ import annotations

import math
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cws_bench.metrics.classification import UndefinedMetricWarning
from cws_bench.metrics.ranking import (
    average_precision,
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
    # gains 2^g - 1: d9 0, d3 3, d1 1; discounts log2(i + 1)
    assert dcg(JUDGEMENTS, SCORES) == 0 + 3 / math.log2(3) + 1 / math.log2(4)
    ideal = 3 / math.log2(2) + 1 / math.log2(3)
    assert ndcg(JUDGEMENTS, SCORES, k=2) == (3 / math.log2(3)) / ideal
    assert ndcg(JUDGEMENTS, SCORES, k=2, gain="linear") == (2 / math.log2(3)) / (
        2 + 1 / math.log2(3)
    )
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
    "dcg@4",
]
# our name -> ranx's; exponential gain is ranx's "burges" variant
RANX_NAMES = {
    "ndcg": "ndcg_burges",
    "ndcg@3": "ndcg_burges@3",
    "dcg@4": "dcg_burges@4",
}


@st.composite
def runs(draw):
    documents = [f"d{i}" for i in range(12)]
    queries = [f"q{i}" for i in range(draw(st.integers(1, 5)))]
    qrels = {}
    run = {}
    for query in queries:
        judged = draw(st.lists(st.sampled_from(documents), min_size=1, max_size=8, unique=True))
        qrels[query] = {doc: draw(st.integers(0, 3)) for doc in judged}
        ranked = draw(st.lists(st.sampled_from(documents), min_size=1, max_size=10, unique=True))
        # distinct scores: ranx breaks ties arbitrarily
        scores = draw(st.permutations(range(len(ranked))))
        run[query] = {doc: float(score) + 0.5 for doc, score in zip(ranked, scores)}
    return qrels, run


@settings(deadline=None, max_examples=150)
@given(data=runs(), relevance_level=st.sampled_from([1, 2]))
def test_metrics_match_ranx(data, relevance_level):
    ranx = pytest.importorskip("ranx", reason="ranx is the ranking oracle")
    qrels, run = data
    report = evaluate_run(
        qrels, run, metrics=METRICS, relevance_level=relevance_level, zero_division=0.0
    )
    ranx_run = ranx.Run(run)
    ranx_metrics = [f"{RANX_NAMES.get(m, m)}-l{relevance_level}" for m in METRICS]
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


def test_linear_gain_matches_ranx_ndcg():
    ranx = pytest.importorskip("ranx", reason="ranx is the ranking oracle")
    qrels = {"q1": {"d1": 3, "d2": 1, "d3": 2, "d4": 0}}
    run = {"q1": {"d2": 0.9, "d1": 0.8, "d4": 0.7, "d3": 0.6}}
    ranx_run = ranx.Run(run)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = ranx.evaluate(ranx.Qrels(qrels), ranx_run, ["ndcg@3", "dcg@3"])
    report = evaluate_run(qrels, run, metrics=["ndcg@3", "dcg@3"], gain="linear")
    assert report.means["ndcg@3"] == pytest.approx(expected["ndcg@3"], abs=TOLERANCE)
    assert report.means["dcg@3"] == pytest.approx(expected["dcg@3"], abs=TOLERANCE)
