"""Tests of cws_bench/analysis/buckets.py: recall, precision and F1 by bucket
(ExplainaBoard style)."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cws_bench.analysis.buckets import (
    ATTRIBUTES,
    bucket_analysis,
    character_class,
    frequency_bucket,
    sentence_length_bucket,
    word_length_bucket,
)
from cws_bench.reports.buckets import bucket_chart
from cws_bench.reports.tables import build_boards
from cws_bench.results.model import BakeoffResult, PairResult
from cws_bench.scoring import score_sentences

GOLD = [["我们", "是", "北京", "大学", "的", "学生", "。"], ["２００８", "年", "NBA", "比赛"]]
PRED = [["我们", "是", "北京大学", "的", "学", "生", "。"], ["２００８年", "NBA", "比", "赛"]]


def by_bucket(rows):
    return {row["bucket"]: row for row in rows}


def test_word_length_buckets_by_hand():
    result = bucket_analysis(GOLD, PRED)
    rows = by_bucket(result["word_length"])
    # gold one-character words: 是 的 。 年 -> recalled 是 的 。 (3 of 4)
    # predicted one-character words: 是 的 学 生 。 比 赛 -> correct 是 的 。 (3 of 7)
    assert (rows["1"]["gold"], rows["1"]["pred"], rows["1"]["correct"]) == (4, 7, 3)
    assert rows["1"]["recall"] == pytest.approx(3 / 4)
    assert rows["1"]["precision"] == pytest.approx(3 / 7)
    assert rows["1"]["f1"] == pytest.approx(2 * 3 / (4 + 7))
    # two characters: gold 我们 北京 大学 学生 比赛 (我们 recalled); predicted 我们
    assert (rows["2"]["gold"], rows["2"]["pred"], rows["2"]["correct"]) == (5, 1, 1)
    # three: gold NBA (recalled); four: gold ２００８ (missed), predicted 北京大学
    assert (rows["3"]["gold"], rows["3"]["pred"], rows["3"]["correct"]) == (1, 1, 1)
    assert (rows["4"]["gold"], rows["4"]["pred"], rows["4"]["correct"]) == (1, 1, 0)
    assert (rows["5+"]["gold"], rows["5+"]["pred"]) == (0, 1)
    assert rows["5+"]["recall"] is None and rows["5+"]["precision"] == 0.0
    assert rows["5+"]["f1"] == 0.0


def test_totals_equal_the_scorer():
    result = bucket_analysis(GOLD, PRED)
    scored = score_sentences(GOLD, PRED)
    for attribute in ("word_length", "sentence_length", "character_class"):
        rows = result[attribute]
        assert sum(r["gold"] for r in rows) == scored.counts.gold
        assert sum(r["pred"] for r in rows) == scored.counts.pred
        assert sum(r["correct"] for r in rows) == scored.counts.correct


def test_frequency_buckets():
    counts = {"我们": 20, "是": 100, "北京": 3, "学生": 1, "的": 500, "。": 300, "年": 50}
    rows = by_bucket(bucket_analysis(GOLD, PRED, counts=counts)["frequency"])
    # gold OOV: 大学 ２００８ NBA 比赛 (NBA recalled); rare: 北京 学生 (none recalled)
    assert (rows["oov"]["gold"], rows["oov"]["correct"]) == (4, 1)
    assert (rows["rare"]["gold"], rows["rare"]["correct"]) == (2, 0)
    assert (rows["frequent"]["gold"], rows["frequent"]["correct"]) == (5, 4)
    listed = by_bucket(bucket_analysis(GOLD, PRED, words={"我们", "是"})["frequency"])
    assert set(listed) == {"oov", "iv"}
    assert listed["iv"]["gold"] == 2
    assert bucket_analysis(GOLD, PRED)["frequency"] == []


def test_sentence_length_and_character_class():
    result = bucket_analysis(GOLD, PRED)
    # sentence 1 has 11 characters, sentence 2 has 10
    lengths = by_bucket(result["sentence_length"])
    assert lengths["11-20"]["gold"] == 7 and lengths["1-10"]["gold"] == 4
    classes = by_bucket(result["character_class"])
    assert classes["digits"]["gold"] == 1 and classes["digits"]["correct"] == 0
    assert classes["latin"]["correct"] == 1
    assert classes["punctuation"]["gold"] == 1
    # the predicted 2008年 is mixed
    assert classes["mixed"]["pred"] == 1
    assert [character_class(w) for w in ("Ａ股", "－", "〇")] == ["mixed", "punctuation", "chinese"]


def test_lines_whose_text_differs_are_skipped():
    result = bucket_analysis([["我们", "是"], ["好"]], [["我们", "是"], ["坏"]])
    assert result["skipped_lines"] == 1
    assert sum(r["gold"] for r in result["word_length"]) == 2


def test_chart_in_report():
    buckets = bucket_analysis(GOLD, PRED)
    pairs = (
        PairResult("c", "a", "a", "open", "ok", scores={"f1": 0.5}, analysis={"buckets": buckets}),
        PairResult("c", "b", "b", "open", "ok", scores={"f1": 0.4}, analysis={}),
    )
    board = build_boards(BakeoffResult("x", {}, pairs))[0]
    svg = bucket_chart(board, {"a": "#0072B2"})
    assert svg is not None and svg.startswith("<svg")
    assert "word length" in svg and "character class" in svg
    assert "frequency in training data" not in svg  # no counts, no panel
    none = build_boards(BakeoffResult("x", {}, pairs[1:]))[0]
    assert bucket_chart(none, {}) is None


def test_no_chart_for_a_corpus_without_words():
    # Every bucket is empty: no panel to draw, no chart (a figure of 0 rows crashed).
    buckets = bucket_analysis([[], []], [[], []])
    pair = PairResult(
        "c", "a", "a", "open", "ok", scores={"f1": 0.0}, analysis={"buckets": buckets}
    )
    board = build_boards(BakeoffResult("x", {}, (pair,)))[0]
    assert bucket_chart(board, {"a": "#0072B2"}) is None


def _per_occurrence(gold, pred, words):
    """The tallies counted word by word, each word's buckets worked out every time."""
    tallies = {name: Counter() for name in ATTRIBUTES}
    for gold_words, pred_words in zip(gold, pred):
        text = "".join(gold_words)
        if text != "".join(pred_words) or not gold_words:
            continue
        spans = {}
        for side, side_words in (("gold", gold_words), ("pred", pred_words)):
            at, spans[side] = 0, []
            for word in side_words:
                spans[side].append((at, at + len(word)))
                at += len(word)
        for side, other in (("gold", "pred"), ("pred", "gold")):
            for word, span in zip(gold_words if side == "gold" else pred_words, spans[side]):
                for name, bucket in (
                    ("word_length", word_length_bucket(word)),
                    ("frequency", frequency_bucket(word, None, words)),
                    ("sentence_length", sentence_length_bucket(len(text))),
                    ("character_class", character_class(word)),
                ):
                    tallies[name][bucket, side] += 1
                    if side == "gold" and span in spans[other]:
                        tallies[name][bucket, "correct"] += 1
    return tallies


@st.composite
def _segmented(draw):
    text = draw(st.text(alphabet="我们是学生北京２０Ｎ1a，。", min_size=1, max_size=30))

    def cut():
        if len(text) == 1:
            return [text]
        cuts = sorted(draw(st.sets(st.integers(1, len(text) - 1), max_size=len(text))))
        return [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])]

    return cut(), cut()


@settings(max_examples=150, deadline=None)
@given(st.lists(_segmented(), min_size=1, max_size=6))
def test_counts_equal_a_word_by_word_count(pairs):
    gold = [g for g, _ in pairs]
    pred = [p for _, p in pairs]
    words = {"我们", "学生", "北京"}
    result = bucket_analysis(gold, pred, words=words)
    tallies = _per_occurrence(gold, pred, words)
    for name in ATTRIBUTES:
        for row in result[name]:
            bucket = row["bucket"]
            assert (row["gold"], row["pred"], row["correct"]) == (
                tallies[name][bucket, "gold"],
                tallies[name][bucket, "pred"],
                tallies[name][bucket, "correct"],
            ), (name, bucket)
        listed = {row["bucket"] for row in result[name]}
        assert {b for b, side in tallies[name] if side != "correct"} == listed
