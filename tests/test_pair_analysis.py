"""The error and bucket analyses over aligned arrays equal the sentence-by-sentence code.

:func:`cws_bench.analysis.patterns.analyse_errors` and
:func:`cws_bench.analysis.buckets.bucket_analysis`
walk the words of all sentences at once (:mod:`cws_bench.analysis.alignment`); the oracles
below are the code they replaced, which walked each sentence's blocks and each
word's buckets in Python. Segmentations with empty words, lines whose
characters differ and empty lines included.
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import repeat

from hypothesis import given, settings
from hypothesis import strategies as st

from cws_bench.analysis.alignment import align
from cws_bench.analysis.buckets import (
    _ORDER,
    ATTRIBUTES,
    _spans,
    bucket_analysis,
    character_class,
    frequency_bucket,
    sentence_length_bucket,
    word_length_bucket,
)
from cws_bench.analysis.patterns import (
    ErrorAnalysis,
    ErrorPattern,
    LengthRecall,
    MissedWord,
    analyse_errors,
    block_kind,
    clip_words,
    shared_blocks,
)
from cws_bench.text.dictionary import Dictionary


def old_analyse_errors(gold, pred, dictionary=None, *, top=20):
    """analyse_errors as it was (cws_bench/analysis.py at e7653e8): block by block."""
    found = {"split": Counter(), "merge": Counter(), "cross": Counter()}
    first = {}
    oov_seen, oov_missed = Counter(), Counter()
    by_length_gold, by_length_correct = Counter(), Counter()
    for line, (gold_words, pred_words) in enumerate(zip(gold, pred), start=1):
        gold_words = [w for w in gold_words if w]
        pred_words = [w for w in pred_words if w]
        if not gold_words or "".join(gold_words) != "".join(pred_words):
            continue
        position = 0
        for gold_block, pred_block in shared_blocks(gold_words, pred_words):
            at, position = position, position + len(gold_block)
            kind = block_kind(gold_block, pred_block)
            correct = kind is None
            for word in gold_block:
                by_length_gold[len(word)] += 1
                by_length_correct[len(word)] += correct
                if dictionary is not None and word not in dictionary:
                    oov_seen[word] += 1
                    oov_missed[word] += not correct
            if kind is None:
                continue
            found[kind][gold_block, pred_block] += 1
            if (kind, gold_block, pred_block) not in first:
                example = clip_words(gold_words, at, at + len(gold_block))
                first[kind, gold_block, pred_block] = (line, example)

    def most_common(kind):
        ranked = sorted(found[kind].items(), key=lambda item: (-item[1], item[0]))[:top]
        return tuple(
            ErrorPattern(kind, g, p, count, *first[kind, g, p]) for (g, p), count in ranked
        )

    missed = sorted(
        ((word, count) for word, count in oov_missed.items() if count),
        key=lambda item: (-item[1], item[0]),
    )[:top]
    return ErrorAnalysis(
        splits=most_common("split"),
        merges=most_common("merge"),
        crossings=most_common("cross"),
        missed_oov=tuple(MissedWord(word, count, oov_seen[word]) for word, count in missed),
        recall_by_length=tuple(
            LengthRecall(length, by_length_gold[length], by_length_correct[length])
            for length in sorted(by_length_gold)
        ),
        distinct={kind: len(counter) for kind, counter in found.items()},
    )


def old_bucket_analysis(gold, pred, *, counts=None, words=None):
    """bucket_analysis as it was (cws_bench/buckets.py at e7653e8): sentence by sentence."""
    tallies: dict[str, Counter[tuple[str, str]]] = {name: Counter() for name in ATTRIBUTES}
    by_frequency = counts is not None or words is not None
    skipped = 0
    # Count (word, sentence bucket, side, hit) first, in C (Counter over an iterable),
    # then spread each distinct key over the attribute buckets: a word's buckets depend
    # on the word alone, so each is worked out once, not once per occurrence.
    occurrences: Counter[tuple[str, str, str, bool]] = Counter()
    for gold_words, pred_words in zip(gold, pred):
        text = "".join(gold_words)
        if text != "".join(pred_words):
            skipped += 1
            continue
        if not gold_words:
            continue
        sentence = sentence_length_bucket(len(text))
        gold_spans = _spans(gold_words)
        pred_spans = _spans(pred_words)
        predicted = set(pred_spans)
        gold_set = set(gold_spans)
        for side, side_words, side_spans, other in (
            ("gold", gold_words, gold_spans, predicted),
            ("pred", pred_words, pred_spans, gold_set),
        ):
            occurrences.update(
                zip(side_words, repeat(sentence), repeat(side), [s in other for s in side_spans])
            )
    known: dict[str, tuple[str, str, str]] = {}
    for (word, sentence, side, hit), n in occurrences.items():
        found = known.get(word)
        if found is None:
            found = known[word] = (
                word_length_bucket(word),
                frequency_bucket(word, counts, words) if by_frequency else "",
                character_class(word),
            )
        length, frequency, char_class = found
        for name, bucket in (
            ("word_length", length),
            ("frequency", frequency),
            ("sentence_length", sentence),
            ("character_class", char_class),
        ):
            tally = tallies[name]
            tally[bucket, side] += n
            if hit and side == "gold":
                tally[bucket, "correct"] += n
    result = {}
    for name in ATTRIBUTES:
        tally = tallies[name]
        rows = []
        for bucket in _ORDER[name]:
            n_gold, n_pred = tally[bucket, "gold"], tally[bucket, "pred"]
            if not n_gold and not n_pred:
                continue
            correct = tally[bucket, "correct"]
            recall = correct / n_gold if n_gold else None
            precision = correct / n_pred if n_pred else None
            f1 = 2 * correct / (n_gold + n_pred)  # 0 when one side has no word there
            rows.append(
                {
                    "bucket": bucket,
                    "gold": n_gold,
                    "pred": n_pred,
                    "correct": correct,
                    "recall": recall,
                    "precision": precision,
                    "f1": f1,
                }
            )
        result[name] = rows
    result["skipped_lines"] = skipped
    result["frequency_source"] = (
        "counts" if counts is not None else "word list" if words is not None else "none"
    )
    return result


# Characters of every class (Han, 〇, full-width digits and letters, Latin with accents,
# punctuation, symbols, a combining mark, kana) so that words fall in every bucket.
CHARACTERS = "我们是学生中国人民北京〇々２０８1９ＡｉNBAéß，。、！%+$\u0301カあ "
_word = st.text(CHARACTERS, min_size=1, max_size=6)


@st.composite
def segmentations(draw):
    """Gold sentences and a prediction: the same characters cut again, mostly."""
    gold, pred = [], []
    for _ in range(draw(st.integers(0, 12))):
        words = draw(st.lists(_word, max_size=25))
        text = "".join(words)
        cuts = sorted(draw(st.sets(st.integers(1, max(1, len(text) - 1)), max_size=len(text))))
        cuts = [c for c in cuts if c < len(text)]
        pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])] if text else []
        kind = draw(st.sampled_from(["same", "recut", "recut", "recut", "empty", "other"]))
        if kind == "same":
            pieces = list(words)
        elif kind == "empty":  # empty words on either side, as a careless segmenter gives
            at = draw(st.integers(0, len(pieces)))
            pieces = [*pieces[:at], "", *pieces[at:]]
            if draw(st.booleans()):
                words = [*words, ""]
        elif kind == "other":  # other characters: the line is skipped
            pieces = [*pieces, draw(_word)]
        gold.append(words)
        pred.append(pieces)
    return gold, pred


ORACLE = settings(deadline=None, max_examples=200)


def some_words(gold, seed, more):
    """Some of the gold words (each kept with probability 1/2) and ``more``."""
    rng = random.Random(seed)
    return {w for words in gold for w in words if rng.random() < 0.5} | set(more)


@ORACLE
@given(
    data=segmentations(),
    seed=st.integers(0, 2**32 - 1),
    more=st.sets(_word, max_size=5),
    as_dictionary=st.booleans(),
    top=st.integers(0, 6),
)
def test_errors_equal_the_sentence_by_sentence_analysis(data, seed, more, as_dictionary, top):
    gold, pred = data
    known = some_words(gold, seed, more)
    dictionary = Dictionary.from_words(known) if as_dictionary else known
    for words in (None, dictionary):
        expected = old_analyse_errors(gold, pred, words, top=top)
        assert analyse_errors(gold, pred, words, top=top) == expected
        assert analyse_errors([], [], words, top=top, aligned=align(gold, pred)) == expected


@ORACLE
@given(
    data=segmentations(),
    seed=st.integers(0, 2**32 - 1),
    more=st.sets(_word, max_size=5),
    source=st.sampled_from(["counts", "words", "none"]),
)
def test_buckets_equal_the_word_by_word_count(data, seed, more, source):
    gold, pred = data
    rng = random.Random(seed)
    counts = {word: rng.randint(1, 9) for word in sorted(some_words(gold, seed, more))}
    options = {
        "counts": {"counts": counts},
        "words": {"words": set(counts)},
        "none": {},
    }[source]
    expected = old_bucket_analysis(gold, pred, **options)
    assert bucket_analysis(gold, pred, **options) == expected
    assert bucket_analysis([], [], aligned=align(gold, pred), **options) == expected


def test_generators_are_read_once():
    gold = [["我们", "是"], ["学生"]]
    pred = [["我", "们是"], ["学生"]]
    expected = old_bucket_analysis(gold, pred, words={"学生"})
    assert bucket_analysis(iter(gold), iter(pred), words={"学生"}) == expected
    assert analyse_errors(iter(gold), iter(pred), {"学生"}) == old_analyse_errors(
        gold, pred, {"学生"}
    )


def test_an_empty_word_is_bucketed_as_the_word_by_word_count_did():
    """An empty word has a span of its own: a character class (all of no character)."""
    gold, pred = [["我们", "", "是"], [""]], [["我们", "是"], [""]]
    assert bucket_analysis(gold, pred, counts={"我们": 3}) == old_bucket_analysis(
        gold, pred, counts={"我们": 3}
    )
    counted = {row["bucket"]: row["gold"] for row in bucket_analysis(gold, pred)["character_class"]}
    assert counted == {"chinese": 4}  # 我们, "", 是 and the empty line's ""
