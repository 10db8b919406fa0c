"""Tests of cws_bench/metrics/generation.py: worked examples; sacrebleu, rouge-score as oracles."""

from __future__ import annotations

import math
from collections import Counter

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from cws_bench.metrics import generation as gen
from cws_bench.metrics.generation import (
    BleuStatistics,
    bleu_statistics,
    corpus_bleu,
    exact_match,
    generation_scores_from_tokens,
    ngram_precision,
    perplexity,
    rouge_l,
    rouge_n,
    sentence_bleu,
    token_f1_score,
    token_precision_recall_f1,
    token_precision_score,
    token_recall_score,
    weighted_token_precision,
)

TOLERANCE = 1e-9
ORACLE = settings(deadline=None, max_examples=200)

ANSWER = ["Python", "是", "一种", "高级", "编程语言", "，", "由", "Guido", "van", "Rossum", "创建"]
TWO_REFERENCES = [["Python", "是", "一种", "高级", "编程语言"], ["Python", "是", "编程语言"]]


# ---------------------------------------------------------------------------
# Worked examples


def test_long_answer_against_a_short_reference():
    scores = token_precision_recall_f1(ANSWER, [["Python", "是", "一种", "编程语言"]])
    assert scores.precision == 4 / 11
    assert scores.recall == 1.0
    assert scores.f1 == 8 / 15


def test_best_precision_over_two_references():
    answer = ["Python", "是", "一种", "动态", "类型", "编程语言"]
    assert token_precision_score(answer, TWO_REFERENCES) == 4 / 6
    assert token_recall_score(answer, TWO_REFERENCES) == 1.0  # against the second one


def test_best_f1_over_two_references():
    answer = ["Python", "是", "动态", "类型", "编程语言"]
    assert token_f1_score(answer, TWO_REFERENCES) == 0.75
    # the reference with the best F1 is the second; its P and R come with it
    assert token_precision_recall_f1(answer, TWO_REFERENCES) == (0.6, 1.0, 0.75)


def test_characters_of_a_stuttering_answer():
    prediction = list("猫猫猫吃鱼鱼鱼")
    scores = token_precision_recall_f1(prediction, [list("猫吃鱼")])
    assert scores.precision == 3 / 7
    assert scores.recall == 1.0
    assert scores.f1 == 0.6
    corpus = generation_scores_from_tokens([prediction], [[list("猫吃鱼")]], metrics=["f1"])
    assert (corpus.precision, corpus.recall, corpus.f1) == (3 / 7, 1.0, 0.6)


def test_clipped_and_unclipped_unigram_precision():
    candidate = ["the", "the", "the"]
    assert ngram_precision(candidate, [["the", "dog"]], clipped=False) == 1.0
    assert ngram_precision(candidate, [["the", "dog"]]) == 1 / 3
    # clipping takes the reference where the n-gram is most frequent
    assert ngram_precision(candidate, [["the", "dog"], ["the", "the", "cat"]]) == 2 / 3


def test_exact_match():
    assert exact_match(["猫", "吃", "鱼"], [["猫", "吃"], ["猫", "吃", "鱼"]]) == 1.0
    assert exact_match(["猫", "吃", "鱼"], [["猫", "吃鱼"]]) == 0.0
    assert exact_match([], [[]]) == 1.0


def test_empty_answers_follow_squad():
    assert token_precision_recall_f1([], [[]]) == (1.0, 1.0, 1.0)
    assert token_f1_score([], [["猫"]]) == 0.0
    assert token_f1_score(["猫"], [[]]) == 0.0
    # one knob, scikit-learn's meaning: 0.0 makes undefined values 0
    assert token_precision_recall_f1([], [[]], zero_division=0.0) == (0.0, 0.0, 0.0)
    assert token_precision_recall_f1([], [["猫"]]) == (1.0, 0.0, 0.0)


def test_references_must_be_token_lists():
    with pytest.raises(ValueError, match="wrap a single reference"):
        token_f1_score(["猫"], ["猫", "吃"])
    with pytest.raises(ValueError, match="not a string"):
        token_f1_score("猫吃鱼", [["猫"]])
    with pytest.raises(ValueError, match="at least one reference"):
        token_f1_score(["猫"], [])


# ---------------------------------------------------------------------------
# Properties against brute force

WORDS = st.sampled_from(["猫", "吃", "鱼", "了", "the", "dog", "a", "编程语言"])
TOKENS = st.lists(WORDS, max_size=12)


def brute_force_overlap(prediction, reference):
    """Match tokens one by one, each reference token at most once."""
    left = list(reference)
    matched = 0
    for token in prediction:
        if token in left:
            left.remove(token)
            matched += 1
    return matched


@ORACLE
@given(prediction=TOKENS, references=st.lists(TOKENS, min_size=1, max_size=3))
def test_token_scores_against_brute_force(prediction, references):
    best_f1 = 0.0
    for ref in references:
        overlap = brute_force_overlap(prediction, ref)
        if not prediction and not ref:
            f1 = 1.0
        elif not prediction or not ref:
            f1 = 0.0
        else:
            f1 = 2 * overlap / (len(prediction) + len(ref))
        best_f1 = max(best_f1, f1)
    assert token_f1_score(prediction, references) == pytest.approx(best_f1, abs=TOLERANCE)
    # weight 1 everywhere is plain precision
    if prediction:
        assert weighted_token_precision(prediction, references, weights={}) == pytest.approx(
            token_precision_score(prediction, references), abs=TOLERANCE
        )


def test_weighted_token_precision():
    weights = {"的": 0.1, "猫": 2.0}
    assert weighted_token_precision(["的", "猫"], [["猫"]], weights=weights) == 2.0 / 2.1
    assert weighted_token_precision(["的", "猫"], [["的"]], weights=len) == 0.5
    assert weighted_token_precision([], [["猫"]], weights=weights) == 1.0
    with pytest.raises(ValueError, match=">= 0"):
        weighted_token_precision(["猫"], [["猫"]], weights={"猫": -1.0})


# ---------------------------------------------------------------------------
# BLEU against sacrebleu


def _sacrebleu():
    return pytest.importorskip("sacrebleu", reason="sacrebleu is the BLEU oracle")


SMOOTHING = st.sampled_from(
    [
        ("none", None),
        ("floor", None),
        ("floor", 0.2),
        ("add-k", None),
        ("add-k", 2.0),
        ("exp", None),
    ]
)


@st.composite
def corpora(draw):
    n_refs = draw(st.integers(1, 3))
    size = draw(st.integers(1, 8))
    predictions = draw(st.lists(TOKENS, min_size=size, max_size=size))
    references = [draw(st.lists(TOKENS, min_size=n_refs, max_size=n_refs)) for _ in range(size)]
    return predictions, references


def sacrebleu_score(predictions, references, smooth_method, smooth_value, effective_order, order):
    sacrebleu = _sacrebleu()
    bleu = sacrebleu.metrics.BLEU(
        tokenize="none",
        smooth_method=smooth_method,
        smooth_value=smooth_value,
        effective_order=effective_order,
        max_ngram_order=order,
    )
    hyps = [" ".join(p) for p in predictions]
    streams = [[" ".join(refs[j]) for refs in references] for j in range(len(references[0]))]
    return bleu.corpus_score(hyps, streams)


@ORACLE
@given(
    data=corpora(),
    smoothing=SMOOTHING,
    effective_order=st.booleans(),
    order=st.integers(1, 4),
)
def test_corpus_bleu_matches_sacrebleu(data, smoothing, effective_order, order):
    predictions, references = data
    smooth_method, smooth_value = smoothing
    expected = sacrebleu_score(
        predictions, references, smooth_method, smooth_value, effective_order, order
    )
    got = corpus_bleu(
        predictions,
        references,
        max_order=order,
        smooth_method=smooth_method,
        smooth_value=smooth_value,
        effective_order=effective_order,
    )
    assert got.score == pytest.approx(expected.score / 100, abs=TOLERANCE)
    assert got.brevity_penalty == pytest.approx(expected.bp, abs=TOLERANCE)
    assert got.statistics.prediction_length == expected.sys_len
    assert got.statistics.reference_length == expected.ref_len
    for ours, theirs in zip(got.precisions, expected.precisions):
        assert ours == pytest.approx(theirs / 100, abs=TOLERANCE)
    if smooth_method != "add-k":  # sacrebleu reports add-k's smoothed counts
        assert list(got.statistics.matches) == list(expected.counts)
        assert list(got.statistics.totals) == list(expected.totals)


@ORACLE
@given(prediction=TOKENS, references=st.lists(TOKENS, min_size=1, max_size=3), smoothing=SMOOTHING)
def test_sentence_bleu_matches_sacrebleu(prediction, references, smoothing):
    sacrebleu = _sacrebleu()
    smooth_method, smooth_value = smoothing
    expected = sacrebleu.sentence_bleu(
        " ".join(prediction),
        [" ".join(ref) for ref in references],
        smooth_method=smooth_method,
        smooth_value=smooth_value,
        tokenize="none",
        use_effective_order=True,
    )
    got = sentence_bleu(
        prediction, references, smooth_method=smooth_method, smooth_value=smooth_value
    )
    assert got.score == pytest.approx(expected.score / 100, abs=TOLERANCE)


@given(data=corpora())
def test_bleu_statistics_add_up(data):
    predictions, references = data
    total = sum((bleu_statistics(p, r) for p, r in zip(predictions, references)), BleuStatistics())
    assert corpus_bleu(predictions, references).statistics == total


def test_bleu_worked_values():
    assert sentence_bleu(["猫", "吃", "鱼", "了"], [["猫", "吃", "鱼", "了"]]).score == 1.0
    stats = bleu_statistics(["the", "the", "the"], [["the", "dog"]])
    assert stats.matches[0] == 1 and stats.totals[0] == 3
    # brevity penalty: 3 tokens against 4 gives exp(1 - 4/3)
    score = sentence_bleu(["猫", "吃", "鱼"], [["猫", "吃", "了", "鱼"]])
    assert score.brevity_penalty == math.exp(1 - 4 / 3)
    with pytest.raises(ValueError, match="smooth_method"):
        corpus_bleu([["a"]], [[["a"]]], smooth_method="add-one")
    with pytest.raises(ValueError, match="2 predictions but 1"):
        corpus_bleu([["a"], ["b"]], [[["a"]]])
    # predictions given as one string: the message says to tokenize, not "3 predictions but 3"
    with pytest.raises(ValueError, match="list of tokens, not a string"):
        corpus_bleu("猫吃鱼", [[["猫"]]] * 3)


# ---------------------------------------------------------------------------
# ROUGE against rouge-score


class JoinedTokens:
    """A rouge-score tokenizer that gives back our tokens unchanged."""

    def tokenize(self, text):
        return text.split(" ") if text else []


@ORACLE
@given(prediction=TOKENS, references=st.lists(TOKENS, min_size=1, max_size=3))
# a tie on F from the counts (2/3 each) that rouge-score's float F breaks for the second
@example(prediction=["猫", "猫", "猫", "吃"], references=[["猫"] * 5, ["猫", "猫"]])
def test_rouge_matches_rouge_score(prediction, references):
    rouge_scorer = pytest.importorskip(
        "rouge_score.rouge_scorer", reason="rouge-score is the oracle"
    )
    scorer = rouge_scorer.RougeScorer(
        ["rouge1", "rouge2", "rouge3", "rougeL"], tokenizer=JoinedTokens()
    )
    expected = scorer.score_multi([" ".join(ref) for ref in references], " ".join(prediction))
    got = {
        "rouge1": rouge_n(prediction, references, n=1),
        "rouge2": rouge_n(prediction, references, n=2),
        "rouge3": rouge_n(prediction, references, n=3),
        "rougeL": rouge_l(prediction, references),
    }
    for name, score in got.items():
        theirs = expected[name]
        assert score.precision == pytest.approx(theirs.precision, abs=TOLERANCE)
        assert score.recall == pytest.approx(theirs.recall, abs=TOLERANCE)
        assert score.fscore == pytest.approx(theirs.fmeasure, abs=TOLERANCE)


def test_rouge_l_is_a_subsequence_not_a_substring():
    # the longest common substring is 2 tokens, the subsequence 3
    score = rouge_l(["猫", "在", "吃", "鱼"], [["猫", "吃", "鱼"]])
    assert (score.precision, score.recall) == (0.75, 1.0)
    fbeta = rouge_l(["猫", "在", "吃", "鱼"], [["猫", "吃", "鱼"]], beta=2.0).fscore
    assert fbeta == 5 * 3 / (4 * 3 + 4)


# ---------------------------------------------------------------------------
# Perplexity


def test_perplexity_in_nats_and_bits():
    probabilities = [0.5, 0.25, 0.125]
    nats = perplexity([math.log(p) for p in probabilities])
    bits = perplexity([math.log2(p) for p in probabilities], base=2)
    assert nats == pytest.approx(4.0, abs=TOLERANCE)  # 2 ** mean(1, 2, 3 bits)
    assert bits == 4.0
    assert perplexity([-math.inf, 0.0]) == math.inf
    with pytest.raises(ValueError, match="no tokens"):
        perplexity([])
    with pytest.raises(ValueError, match="<= 0"):
        perplexity([0.5])


def test_generation_scores_are_means_over_items():
    predictions = [["猫", "吃", "鱼"], ["狗"], []]
    references = [[["猫", "吃", "鱼"]], [["狗", "叫"]], [["鸟"]]]
    scores = generation_scores_from_tokens(predictions, references)
    assert scores.exact_match == 1 / 3
    assert scores.f1 == pytest.approx((1.0 + 2 / 3 + 0.0) / 3, abs=TOLERANCE)
    assert scores.bleu == corpus_bleu(predictions, references).score
    expected_rouge = (1.0 + rouge_n(["狗"], [["狗", "叫"]]).fscore + 0.0) / 3
    assert scores.rouge1 == pytest.approx(expected_rouge, abs=TOLERANCE)
    data = scores.to_dict()
    assert list(data)[:5] == ["tokenizer", "items", "references", "exact_match", "precision"]
    assert data["bleu_details"]["prediction_length"] == 4
    only_em = generation_scores_from_tokens(predictions, references, metrics=["em"])
    assert only_em.f1 is None and only_em.bleu is None
    with pytest.raises(ValueError, match="unknown metric 'meteor'"):
        generation_scores_from_tokens(predictions, references, metrics=["meteor"])


def test_counter_of_ngrams_is_what_bleu_counts():
    tokens = ["a", "b", "a", "b"]
    assert gen._ngrams(tokens, 2) == Counter({("a", "b"): 2, ("b", "a"): 1})
