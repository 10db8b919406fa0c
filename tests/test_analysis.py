"""Tests of cws_bench/analysis/patterns.py: error patterns agree with the scorer's counts."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from cws_bench.analysis.patterns import EXAMPLE_WORDS, ErrorAnalysis, analyse_errors
from cws_bench.scoring import SegCounts, count_sentence

GOLD = "结婚 的 和 尚未 结婚 的 都 应该 好好 考虑 一下 人生 大事".split()  # noqa: SIM905
PRED = "结婚 的 和尚 未结婚 的 都 应该 好好考虑 一下 人生大事".split()  # noqa: SIM905
WORDS = {"结婚", "尚未", "的", "和", "青年", "都", "应该", "好好考虑", "自己", "人生", "大事"}


def test_worked_example_patterns():
    a = analyse_errors([GOLD], [PRED], WORDS)
    assert [(p.gold, p.pred) for p in a.merges] == [
        (("人生", "大事"), ("人生大事",)),
        (("好好", "考虑"), ("好好考虑",)),
    ]
    assert [(p.gold, p.pred) for p in a.crossings] == [(("和", "尚未", "结婚"), ("和尚", "未结婚"))]
    assert a.splits == ()
    assert [(m.word, m.missed, m.occurrences) for m in a.missed_oov] == [
        ("好好", 1, 1),
        ("考虑", 1, 1),
    ]
    by_length = {r.length: (r.gold, r.correct) for r in a.recall_by_length}
    # one-character gold words: 的 和 的 都 (和 lost in the crossing); two: nine, three found
    assert by_length == {1: (4, 3), 2: (9, 3)}


def test_counts_and_examples_across_lines():
    gold = [["我们", "是"], ["学生", "们"], ["我们", "是"]]
    pred = [["我", "们", "是"], ["学生们"], ["我", "们", "是"]]
    a = analyse_errors(gold, pred)
    assert [(p.gold, p.pred, p.count, p.line, p.sentence) for p in a.splits] == [
        (("我们",), ("我", "们"), 2, 1, "我们 是")
    ]
    assert [(p.gold, p.pred, p.count, p.line) for p in a.merges] == [
        (("学生", "们"), ("学生们",), 1, 2)
    ]
    assert a.missed_oov == ()  # no dictionary


def test_lines_whose_text_differs_are_left_out():
    a = analyse_errors([["我们", "是"]], [["我", "们", "事"]])
    assert a.splits == () and a.recall_by_length == ()


def test_top_keeps_the_most_frequent_and_round_trips():
    gold = [["一二"], ["三四"], ["三四"]]
    pred = [["一", "二"], ["三", "四"], ["三", "四"]]
    a = analyse_errors(gold, pred, top=1)
    assert [(p.gold, p.count) for p in a.splits] == [(("三四",), 2)]
    assert a.distinct == {"split": 2, "merge": 0, "cross": 0}
    assert ErrorAnalysis.from_dict(a.to_dict()) == a


@st.composite
def pair(draw):
    text = draw(st.text(alphabet=st.sampled_from("我们是学生的和尚"), min_size=1, max_size=12))

    def cut():
        cuts = sorted(draw(st.sets(st.integers(1, max(len(text) - 1, 1)))))
        bounds = [0, *[c for c in cuts if c < len(text)], len(text)]
        return [text[a:b] for a, b in itertools.pairwise(bounds) if b > a]

    return cut(), cut()


@settings(max_examples=200)
@given(st.lists(pair(), min_size=1, max_size=5))
def test_patterns_add_up_to_the_scorer_counts(pairs):
    golds, preds = [g for g, _ in pairs], [p for _, p in pairs]
    words = {"我们", "学生"}
    a = analyse_errors(golds, preds, words, top=10_000)
    c = sum((count_sentence(g, p, words) for g, p in pairs), SegCounts())
    assert sum(p.count for p in a.splits) == c.split_gold
    assert sum(p.count * len(p.pred) for p in a.splits) == c.split_pred
    assert sum(p.count for p in a.merges) == c.merge_pred
    assert sum(p.count * len(p.gold) for p in a.merges) == c.merge_gold
    assert sum(p.count for p in a.crossings) == c.cross_regions
    assert sum(r.correct for r in a.recall_by_length) == c.correct
    assert sum(r.gold for r in a.recall_by_length) == c.gold
    assert sum(m.missed for m in a.missed_oov) == c.oov_gold - c.oov_correct


# ---------------------------------------------------------------------------
# Memory: one long line with many distinct errors

MEMORY_SCRIPT = """
import resource, sys
from cws_bench.analysis.patterns import analyse_errors

n = int(sys.argv[1])
# n distinct two-character gold words, each split in two: n distinct error patterns.
gold = [chr(0x4E00 + 2 * i) + chr(0x4E01 + 2 * i) for i in range(n)]
pred = [c for word in gold for c in word]
size = len(" ".join(gold).encode()) + len(" ".join(pred).encode())
analyse_errors([["甲乙"]], [["甲", "乙"]])  # warm up
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
analysis = analyse_errors([gold], [pred])
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
assert analysis.distinct["split"] == n
print(size, (after - before) * 1024)
"""


def test_one_long_line_with_many_errors_takes_memory_linear_in_its_size():
    # Each error used to keep a copy of its whole sentence: 5,000 errors in one
    # 10,000-character line took 150 MB, 2,000 times the input.
    proc = subprocess.run(
        [sys.executable, "-c", MEMORY_SCRIPT, "5000"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    size, peak = map(int, proc.stdout.split())
    assert peak < 200 * size


def test_examples_are_clipped_around_the_error():
    gold = [f"词{i:03d}" for i in range(100)]
    pred = [*gold[:50], gold[50][:2], gold[50][2:], *gold[51:]]
    (pattern,) = analyse_errors([gold], [pred]).splits
    words = pattern.sentence.split(" ")
    assert words[0] == words[-1] == "…"
    assert words[1:-1] == gold[50 - EXAMPLE_WORDS : 51 + EXAMPLE_WORDS]


def _examples_as_before(gold, pred):
    """The first example of each pattern as the analysis found it before (each example
    clipped from a copy of its whole sentence): the oracle of the linear version."""
    from cws_bench.analysis.alignment import align
    from cws_bench.analysis.patterns import clip_words

    aligned = align(gold, pred)
    words = aligned.gold_words
    gold_start, gold_count, pred_start, pred_count = aligned.blocks()
    ends = [*aligned.gold_first[1:].tolist(), len(words)]
    first = {}
    for g, m, p, n in zip(gold_start, gold_count, pred_start, pred_count):
        g, m, p, n = int(g), int(m), int(p), int(n)
        if m == 1 and n == 1:
            continue
        kind = "split" if m == 1 else "merge" if n == 1 else "cross"
        key = (kind, tuple(words[g : g + m]), tuple(aligned.pred_words[p : p + n]))
        if key not in first:
            sentence = int(aligned.gold_sentence[g])
            begin, end = int(aligned.gold_first[sentence]), ends[sentence]
            example = clip_words(words[begin:end], g - begin, g - begin + m)
            first[key] = (int(aligned.lines[sentence]), example)
    return first


@settings(max_examples=200, deadline=None)
@given(st.lists(pair(), min_size=1, max_size=12), st.integers(1, 6), st.integers(1, 3))
def test_examples_are_those_of_the_sentence_copying_version(pairs, per_line, repeat):
    # lines of several pairs each: long enough (up to 72 words) to be clipped on both sides
    lines = [pairs[i : i + per_line] for i in range(0, len(pairs), per_line)] * repeat
    gold = [[w for g, _ in line for w in g] for line in lines]
    pred = [[w for _, p in line for w in p] for line in lines]
    analysis = analyse_errors(gold, pred, top=1000)
    expected = _examples_as_before(gold, pred)
    found = {
        (e.kind, tuple(e.gold), tuple(e.pred)): (e.line, e.sentence)
        for e in (*analysis.splits, *analysis.merges, *analysis.crossings)
    }
    assert found == expected
