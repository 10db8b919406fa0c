"""The bucket analysis of one bake-off pair (cws_bench.analysis.buckets.bucket_analysis).

Every pair of a bake-off gets F1 by word length, training frequency,
sentence length and character class; on pd1998's test split it was about a
second per pair, in the process that scores the pairs. Measured against the
word-by-word count it replaced (each occurrence's buckets worked out again,
four counter updates per word), in the same run, on the same input: the
gold of pd1998:test, a prediction that splits every third sentence into
characters, pd1998:train's words for the frequency buckets. The results
must be equal. No target: the ratio is reported.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from common import best_of, table

from cws_bench.analysis.buckets import (
    ATTRIBUTES,
    bucket_analysis,
    character_class,
    frequency_bucket,
    sentence_length_bucket,
    word_length_bucket,
)
from cws_bench.corpora import get_corpus


def word_by_word(gold: list[list[str]], pred: list[list[str]], words: set[str]) -> dict:
    """The tallies as bucket_analysis counted them before: buckets per occurrence."""
    tallies: dict[str, Counter] = {name: Counter() for name in ATTRIBUTES}
    for gold_words, pred_words in zip(gold, pred):
        text = "".join(gold_words)
        if text != "".join(pred_words) or not gold_words:
            continue
        sentence = sentence_length_bucket(len(text))
        spans = {}
        for side, side_words in (("gold", gold_words), ("pred", pred_words)):
            at, spans[side] = 0, []
            for word in side_words:
                spans[side].append((at, at + len(word)))
                at += len(word)
        others = {"gold": set(spans["pred"]), "pred": set(spans["gold"])}
        for side, side_words in (("gold", gold_words), ("pred", pred_words)):
            for word, span in zip(side_words, spans[side]):
                hit = span in others[side]
                for name, bucket in (
                    ("word_length", word_length_bucket(word)),
                    ("frequency", frequency_bucket(word, None, words)),
                    ("sentence_length", sentence),
                    ("character_class", character_class(word)),
                ):
                    tallies[name][bucket, side] += 1
                    if hit and side == "gold":
                        tallies[name][bucket, "correct"] += 1
    return tallies


def _same(result: dict, tallies: dict) -> bool:
    return all(
        (row["gold"], row["pred"], row["correct"])
        == tuple(tallies[name][row["bucket"], key] for key in ("gold", "pred", "correct"))
        for name in ATTRIBUTES
        for row in result[name]
    )


def run(args: Any) -> list[dict[str, Any]]:
    corpus = get_corpus("pd1998")
    gold = [list(s) for s in corpus.sentences("test")]
    pred = [list("".join(s)) if i % 3 == 0 else list(s) for i, s in enumerate(gold)]
    words = {w for s in corpus.sentences("train") for w in s}
    ours_s, result = best_of(lambda: bucket_analysis(gold, pred, words=words), args.repeat)
    base_s, tallies = best_of(lambda: word_by_word(gold, pred, words), args.repeat)
    rows = [
        {
            "benchmark": f"bucket_analysis, pd1998:test ({sum(map(len, gold)):,} gold words)",
            "ours_s": ours_s,
            "baseline": "word-by-word count",
            "baseline_s": base_s,
            "ratio": ours_s / base_s,
            "same_result": _same(result, tallies),
        }
    ]
    print(table(rows, ["benchmark", "ours_s", "baseline", "baseline_s", "ratio", "same_result"]))
    return rows
