"""The bake-off's statistics from shared resamples equal the one-by-one computation.

:func:`cws_bench.run.comparison.bootstrap_statistics` (and the bake-off's
``_statistics`` built on it) draws each corpus' resamples once; the oracle is
the code it replaced: one ``bootstrap_confidence_interval`` per pair and
statistic, one ``paired_bootstrap_test`` per compared pair.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from cws_bench.metrics import significance
from cws_bench.metrics.defaults import DEFAULT_ALPHA as ALPHA
from cws_bench.metrics.defaults import DEFAULT_CONFIDENCE as CONFIDENCE
from cws_bench.results.model import Comparison, Interval
from cws_bench.run.bakeoff import _statistics
from cws_bench.run.comparison import bootstrap_statistics
from cws_bench.scoring.per_sentence import statistics as sentence_statistics


def one_by_one(corpus, counts, pairs, resamples, seed):
    """The intervals and tests as the bake-off computed them before (the oracle)."""
    statistics = sentence_statistics()
    intervals = {}
    for name, rows in counts.items():
        intervals[name] = {}
        if not len(rows):
            continue
        for metric, statistic in statistics.items():
            ci = significance.bootstrap_confidence_interval(
                rows, statistic, n_resamples=resamples, confidence=CONFIDENCE, seed=seed
            )
            intervals[name][metric] = Interval(float(ci.low), float(ci.high))
    comparisons = []
    for a, b in pairs:
        if counts[a].shape != counts[b].shape or not len(counts[a]):
            continue
        test = significance.paired_bootstrap_test(
            counts[a],
            counts[b],
            statistics["f1"],
            n_resamples=resamples,
            confidence=CONFIDENCE,
            seed=seed,
        )
        error = test.standard_error if resamples > 1 else None
        comparisons.append(
            Comparison(
                corpus=corpus,
                a=a,
                b=b,
                metric="f1",
                difference=float(test.difference),
                interval=Interval(float(test.low), float(test.high)),
                p_value=float(test.p_value),
                significant=bool(test.p_value < ALPHA),
                standard_error=error,
                mde=None
                if error is None
                else significance.minimum_detectable_effect(error, alpha=ALPHA),
            )
        )
    return intervals, comparisons


@st.composite
def systems(draw):
    """Rows of up to six systems on one corpus; most share their sentences, some do not."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n = draw(st.integers(0, 40))
    gold = rng.integers(0, 25, n)
    counts = {}
    for i in range(draw(st.integers(1, 6))):
        items = n if draw(st.booleans()) or i == 0 else draw(st.integers(0, 40))
        own = gold if items == n else rng.integers(0, 25, items)
        pred = np.maximum(own + rng.integers(-3, 4, items), 0)
        correct = np.maximum(np.minimum(own, pred) - rng.integers(0, 4, items), 0)
        counts[f"s{i}"] = np.stack([correct, pred, own], axis=1).reshape(-1, 3)
    names = list(counts)
    pairs = draw(st.lists(st.tuples(st.sampled_from(names), st.sampled_from(names)), max_size=8))
    return counts, pairs


@settings(deadline=None, max_examples=60)
@given(data=systems(), seed=st.integers(0, 2**32 - 1), resamples=st.integers(1, 200))
def test_bootstrap_statistics_equal_one_by_one(data, seed, resamples):
    counts, pairs = data
    expected = one_by_one("c", counts, pairs, resamples, seed)
    assert bootstrap_statistics("c", counts, pairs, resamples=resamples, seed=seed) == expected
    only_tests = bootstrap_statistics(
        "c", counts, pairs, resamples=resamples, seed=seed, intervals=False
    )
    assert only_tests == ({name: {} for name in counts}, expected[1])


def test_the_bakeoff_statistics_equal_one_by_one():
    """Two corpora, two tracks, a pair without rows: intervals and comparisons as before."""
    rng = np.random.default_rng(5)
    corpora = {"big": 300, "small": 12, "empty": 0}
    labels = {"a": "open", "b": "open", "c": "closed", "d": "open", "e": "closed"}
    records = {}
    for corpus, n in corpora.items():
        gold = rng.integers(1, 40, n)
        for label in labels:
            pred = np.maximum(gold + rng.integers(-4, 5, n), 1)
            correct = np.maximum(np.minimum(gold, pred) - rng.integers(0, 6, n), 0)
            rows = tuple(map(tuple, np.stack([correct, pred, gold], axis=1).tolist()))
            records[corpus, label] = SimpleNamespace(sentence_counts=rows)
    config = SimpleNamespace(
        corpora=[SimpleNamespace(label=c) for c in ("small", "big", "empty")],
        segmenters=[SimpleNamespace(label=s, track=t, seed_of=None) for s, t in labels.items()],
        resamples=500,
        seed=12345,
        alpha=ALPHA,
        test="bootstrap",
    )
    intervals, comparisons = _statistics(records, config)  # type: ignore[arg-type]
    expected_comparisons = []
    for corpus in config.corpora:
        counts = {
            label: np.asarray(records[corpus.label, label].sentence_counts, dtype=np.int64).reshape(
                -1, 3
            )
            for label in labels
        }
        names = list(labels)
        pairs = [
            (a, b) for i, a in enumerate(names) for b in names[i + 1 :] if labels[a] == labels[b]
        ]
        found, tests = one_by_one(corpus.label, counts, pairs, 500, 12345)
        for label in labels:
            assert intervals[corpus.label, label] == found[label]
        expected_comparisons.extend(tests)
    assert comparisons == expected_comparisons
    assert list(intervals) == list(records)
    assert [c.corpus for c in comparisons] == ["small"] * 4 + ["big"] * 4
