"""Tests of cws_bench/metrics/significance.py: scipy's bootstrap and brute-force loops."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cws_bench.metrics import significance
from cws_bench.metrics.significance import (
    DEFAULT_RESAMPLES,
    approximate_randomization_test,
    bootstrap_confidence_interval,
    fscore_statistic,
    paired_bootstrap_test,
    ratio_statistic,
)

TOLERANCE = 1e-9
ORACLE = settings(deadline=None, max_examples=60)


@st.composite
def segmentation_counts(draw, min_items: int = 2, max_items: int = 40):
    """Per-sentence (correct, predicted, gold) counts of two systems on the same sentences."""
    n = draw(st.integers(min_items, max_items))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    gold = rng.integers(1, 30, n)
    pred_a = np.maximum(gold + rng.integers(-3, 4, n), 1)
    pred_b = np.maximum(gold + rng.integers(-3, 4, n), 1)
    correct_a = np.maximum(np.minimum(gold, pred_a) - rng.integers(0, 5, n), 0)
    correct_b = np.maximum(np.minimum(gold, pred_b) - rng.integers(0, 5, n), 0)
    a = np.stack([correct_a, pred_a, gold], axis=1)
    b = np.stack([correct_b, pred_b, gold], axis=1)
    return a, b


def scipy_f1(correct, predicted, gold, axis):
    return 2 * correct.sum(axis=axis) / (predicted.sum(axis=axis) + gold.sum(axis=axis))


@ORACLE
@given(
    data=segmentation_counts(),
    method=st.sampled_from(["percentile", "basic", "bca"]),
    confidence=st.sampled_from([0.9, 0.95, 0.99]),
    seed=st.integers(0, 2**32 - 1),
)
def test_bootstrap_interval_equals_scipy(data, method, confidence, seed):
    scipy_stats = pytest.importorskip("scipy.stats", reason="scipy's bootstrap is the oracle")
    counts, _ = data
    n_resamples = 200
    expected = scipy_stats.bootstrap(
        tuple(counts.T),
        scipy_f1,
        n_resamples=n_resamples,
        vectorized=True,
        paired=True,
        confidence_level=confidence,
        method=method,
        rng=np.random.default_rng(seed),
    )
    got = bootstrap_confidence_interval(
        counts,
        fscore_statistic(),
        n_resamples=n_resamples,
        confidence=confidence,
        method=method,
        seed=seed,
    )
    low, high = expected.confidence_interval
    if math.isnan(low):  # a degenerate distribution: both give up
        assert math.isnan(got.low)
        return
    assert got.low == pytest.approx(low, abs=TOLERANCE)
    assert got.high == pytest.approx(high, abs=TOLERANCE)
    assert got.standard_error == pytest.approx(expected.standard_error, abs=TOLERANCE)
    assert got.estimate == scipy_f1(*counts.T, axis=0)


def brute_force_bootstrap(a, b, statistic, n_resamples, seed):
    """One resample at a time, by indexing: the textbook loop."""
    rng = np.random.default_rng(seed)
    indices = rng.integers(0, a.shape[0], (n_resamples, a.shape[0]))
    deltas = []
    for row in indices:
        deltas.append(
            statistic(a[row].sum(axis=0)[None, :])[0] - statistic(b[row].sum(axis=0)[None, :])[0]
        )
    return np.array(deltas)


@ORACLE
@given(data=segmentation_counts(), seed=st.integers(0, 2**32 - 1))
def test_paired_bootstrap_against_a_loop(data, seed):
    a, b = data
    statistic = fscore_statistic()
    result = paired_bootstrap_test(a, b, statistic, n_resamples=300, seed=seed)
    deltas = brute_force_bootstrap(a, b, statistic, 300, seed)
    observed = statistic(a.sum(axis=0)[None, :])[0] - statistic(b.sum(axis=0)[None, :])[0]
    assert result.difference == observed
    extreme = np.sum(np.abs(deltas - observed) >= abs(observed) - 1e-12)
    assert result.p_value == (extreme + 1) / 301
    assert result.wins == np.mean(deltas > 0)
    low, high = np.quantile(deltas, [0.025, 0.975])
    assert result.low == pytest.approx(low, abs=TOLERANCE)
    assert result.high == pytest.approx(high, abs=TOLERANCE)
    greater = paired_bootstrap_test(
        a, b, statistic, n_resamples=300, seed=seed, alternative="greater"
    )
    assert greater.p_value == (np.sum(deltas - observed >= observed - 1e-12) + 1) / 301


@ORACLE
@given(data=segmentation_counts(), seed=st.integers(0, 2**32 - 1))
def test_approximate_randomization_against_a_loop(data, seed):
    a, b = data
    statistic = fscore_statistic()
    result = approximate_randomization_test(a, b, statistic, n_resamples=300, seed=seed)
    rng = np.random.default_rng(seed)
    swaps = rng.random((300, a.shape[0])) < 0.5
    observed = statistic(a.sum(axis=0)[None, :])[0] - statistic(b.sum(axis=0)[None, :])[0]
    extreme = 0
    for swap in swaps:
        shuffled_a = np.where(swap[:, None], b, a).sum(axis=0)
        shuffled_b = np.where(swap[:, None], a, b).sum(axis=0)
        delta = statistic(shuffled_a[None, :])[0] - statistic(shuffled_b[None, :])[0]
        extreme += abs(delta) >= abs(observed) - 1e-12
    assert result.p_value == (extreme + 1) / 301
    assert (result.estimate_a, result.estimate_b) == (
        statistic(a.sum(axis=0)[None, :])[0],
        statistic(b.sum(axis=0)[None, :])[0],
    )


def test_results_do_not_depend_on_the_chunk_size(monkeypatch):
    rng = np.random.default_rng(7)
    a = rng.integers(0, 20, (501, 3))
    b = rng.integers(0, 20, (501, 3))
    statistic = ratio_statistic(0, 1)
    whole = (
        bootstrap_confidence_interval(a, statistic, method="bca"),
        paired_bootstrap_test(a, b, statistic),
        approximate_randomization_test(a, b, statistic),
    )
    monkeypatch.setattr(significance, "_CHUNK_CELLS", 3 * 501 + 7)
    chunked = (
        bootstrap_confidence_interval(a, statistic, method="bca"),
        paired_bootstrap_test(a, b, statistic),
        approximate_randomization_test(a, b, statistic),
    )
    assert whole == chunked


def test_seeded_and_reproducible():
    rng = np.random.default_rng(3)
    a = rng.integers(0, 20, (100, 3))
    b = rng.integers(0, 20, (100, 3))
    f1 = fscore_statistic()
    first = paired_bootstrap_test(a, b, f1, seed=42)
    assert paired_bootstrap_test(a, b, f1, seed=42) == first
    assert paired_bootstrap_test(a, b, f1, seed=43).low != first.low
    assert first.seed == 42
    assert first.n_resamples == DEFAULT_RESAMPLES
    assert bootstrap_confidence_interval(a, f1).seed == significance.DEFAULT_SEED
    assert set(first.to_dict()) >= {"p_value", "low", "high", "wins", "seed", "n_resamples"}


def test_identical_systems_are_not_different():
    counts = np.random.default_rng(5).integers(0, 20, (80, 3))
    f1 = fscore_statistic()
    assert paired_bootstrap_test(counts, counts, f1).p_value == 1.0
    assert approximate_randomization_test(counts, counts, f1).p_value == 1.0
    assert not approximate_randomization_test(counts, counts, f1).significant()


def test_a_clearly_better_system_is_significant():
    rng = np.random.default_rng(11)
    gold = rng.integers(5, 30, 400)
    better = np.stack([gold - rng.integers(0, 2, 400), gold, gold], axis=1)
    worse = np.stack([gold - rng.integers(1, 5, 400), gold, gold], axis=1)
    f1 = fscore_statistic()
    bootstrap = paired_bootstrap_test(better, worse, f1, alternative="greater")
    randomization = approximate_randomization_test(better, worse, f1)
    assert bootstrap.p_value == randomization.p_value == 1 / 1001
    assert bootstrap.wins == 1.0
    assert bootstrap.low > 0
    assert approximate_randomization_test(better, worse, f1, alternative="less").p_value == 1.0


def test_interval_covers_the_estimate():
    counts = np.random.default_rng(2).integers(0, 30, (200, 2))
    interval = bootstrap_confidence_interval(counts, ratio_statistic(0, 1))
    assert interval.low < interval.estimate < interval.high
    assert interval.items == 200
    assert interval.to_dict()["method"] == "percentile"


def test_statistics():
    sums = np.array([[3, 5, 4], [0, 0, 0]])
    assert fscore_statistic()(sums).tolist() == [6 / 9, 0.0]
    assert fscore_statistic(beta=2.0, zero_division=1.0)(sums).tolist() == [15 / 21, 1.0]
    assert ratio_statistic(0, 2)(sums).tolist() == [0.75, 0.0]


def test_bad_input():
    f1 = fscore_statistic()
    with pytest.raises(ValueError, match="same items"):
        paired_bootstrap_test(np.ones((3, 3)), np.ones((4, 3)), f1)
    with pytest.raises(ValueError, match="no item"):
        bootstrap_confidence_interval(np.ones((0, 3)), f1)
    with pytest.raises(ValueError, match="shape"):
        bootstrap_confidence_interval(np.ones((3, 3)), lambda sums: sums)
    with pytest.raises(ValueError, match="n_resamples"):
        bootstrap_confidence_interval(np.ones((3, 3)), f1, n_resamples=0)
    with pytest.raises(ValueError, match="confidence"):
        bootstrap_confidence_interval(np.ones((3, 3)), f1, confidence=95)
    with pytest.raises(ValueError, match="alternative"):
        approximate_randomization_test(np.ones((3, 3)), np.ones((3, 3)), f1, alternative="up")
    with pytest.raises(ValueError, match="nan"):
        bootstrap_confidence_interval([[1.0, math.nan, 2.0]], f1)


def test_bca_of_a_degenerate_distribution_warns():
    counts = np.tile([[5, 10, 10]], (20, 1))
    with pytest.warns(RuntimeWarning, match="degenerate"):
        interval = bootstrap_confidence_interval(counts, fscore_statistic(), method="bca")
    assert math.isnan(interval.low) and interval.estimate == 0.5


@st.composite
def systems_on_the_same_items(draw):
    """Per-sentence integer counts of two to five systems on the same sentences."""
    n = draw(st.integers(1, 60))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    gold = rng.integers(0, 30, n)
    systems = []
    for _ in range(draw(st.integers(2, 5))):
        pred = np.maximum(gold + rng.integers(-3, 4, n), 0)
        correct = np.maximum(np.minimum(gold, pred) - rng.integers(0, 5, n), 0)
        systems.append(np.stack([correct, pred, gold], axis=1))
    return systems


@ORACLE
@given(
    systems=systems_on_the_same_items(),
    seed=st.integers(0, 2**32 - 1),
    resamples=st.integers(1, 300),
    method=st.sampled_from(["percentile", "basic"]),
)
def test_shared_resamples_equal_the_one_by_one_functions(systems, seed, resamples, method):
    """Every system's intervals and every pair's test, to the last digit, from one draw."""
    shared = significance.SharedResamples(systems, n_resamples=resamples, seed=seed)
    statistics = [fscore_statistic(), ratio_statistic(0, 1), ratio_statistic(0, 2)]
    for i, counts in enumerate(systems):
        for statistic in statistics:
            alone = bootstrap_confidence_interval(
                counts, statistic, n_resamples=resamples, seed=seed, method=method
            )
            assert shared.interval(i, statistic, method=method) == alone
    for i in range(len(systems)):
        for j in range(len(systems)):
            alone = paired_bootstrap_test(
                systems[i], systems[j], statistics[0], n_resamples=resamples, seed=seed
            )
            assert shared.paired_test(i, j, statistics[0]) == alone


def test_shared_resamples_in_chunks(monkeypatch):
    rng = np.random.default_rng(11)
    systems = [rng.integers(0, 20, (301, 3)) for _ in range(4)]
    statistic = fscore_statistic()
    monkeypatch.setattr(significance, "_CHUNK_CELLS", 3 * 301 + 7)
    shared = significance.SharedResamples(systems)
    assert shared.interval(2, statistic, method="bca") == bootstrap_confidence_interval(
        systems[2], statistic, method="bca"
    )
    assert shared.paired_test(3, 1, statistic) == paired_bootstrap_test(
        systems[3], systems[1], statistic
    )


def test_shared_resamples_bad_input():
    with pytest.raises(ValueError, match="no system"):
        significance.SharedResamples([])
    with pytest.raises(ValueError, match=r"systems\[1\] has 2 items but systems\[0\] has 3"):
        significance.SharedResamples([[[1, 1, 1]] * 3, [[1, 1, 1]] * 2])
    shared = significance.SharedResamples([[[1, 1, 1]] * 3, [[1, 1]] * 3])
    with pytest.raises(ValueError, match="same items and counts"):
        shared.paired_test(0, 1, fscore_statistic())
    with pytest.raises(ValueError, match="method must be"):
        shared.interval(0, fscore_statistic(), method="normal")  # type: ignore[arg-type]


# ---------------------------------------------------------------------------
# Approximate randomization against scipy.stats.permutation_test


def scipy_randomization(a, b, n_resamples, alternative, rng):
    """scipy's paired permutation test of F1 recomputed from summed counts.

    The samples are item indices into A's and B's stacked counts; ``samples``
    permutations swap ``x[i]`` and ``y[i]``, that is item i's counts between
    the two systems.
    """
    scipy_stats = pytest.importorskip(
        "scipy.stats", reason="scipy's permutation_test is the oracle"
    )
    stacked = np.vstack([a, b])
    n = a.shape[0]
    f1 = fscore_statistic()

    def statistic(x, y, axis):
        x, y = np.atleast_2d(x), np.atleast_2d(y)
        return f1(stacked[x].sum(axis=1)) - f1(stacked[y].sum(axis=1))

    return scipy_stats.permutation_test(
        (np.arange(n), np.arange(n) + n),
        statistic,
        permutation_type="samples",
        vectorized=True,
        n_resamples=n_resamples,
        alternative=alternative,
        rng=rng,
    )


@settings(deadline=None, max_examples=30)
@given(
    data=segmentation_counts(min_items=2, max_items=9),
    alternative=st.sampled_from(["two-sided", "greater", "less"]),
)
def test_exact_randomization_equals_scipy_enumeration(data, alternative):
    a, b = data
    # 2^n <= n_resamples: scipy enumerates every swap pattern
    expected = scipy_randomization(a, b, 10_000, alternative, np.random.default_rng(0))
    got = approximate_randomization_test(
        a, b, fscore_statistic(), alternative=alternative, exact=True
    )
    assert got.n_resamples == 2 ** a.shape[0]
    assert got.p_value == pytest.approx(expected.pvalue, abs=1e-12)
    assert got.difference == pytest.approx(expected.statistic, abs=1e-15)
    assert np.sort(got.null) == pytest.approx(np.sort(expected.null_distribution), abs=1e-15)


def test_randomization_agrees_with_scipy_within_monte_carlo_error():
    rng = np.random.default_rng(44)
    n = 400
    gold = rng.integers(5, 40, n)
    correct_a = rng.binomial(gold, 0.93)
    correct_b = rng.binomial(gold, 0.92)
    a = np.stack([correct_a, gold, gold], axis=1)
    b = np.stack([correct_b, gold, gold], axis=1)
    shuffles = 4000
    for alternative in ("two-sided", "greater"):
        ours = approximate_randomization_test(
            a, b, fscore_statistic(), n_resamples=shuffles, alternative=alternative, seed=5
        )
        theirs = scipy_randomization(a, b, shuffles, alternative, np.random.default_rng(6))
        assert ours.difference == pytest.approx(theirs.statistic, abs=1e-15)
        assert 0.005 < theirs.pvalue < 0.995  # an informative p-value, not a corner
        # two independent Monte-Carlo estimates of the same p: their difference has
        # standard deviation sqrt(2 p (1 - p) / R); 4.5 of them is a 1-in-100,000 miss
        error = math.sqrt(2 * theirs.pvalue * (1 - theirs.pvalue) / shuffles)
        assert abs(ours.p_value - theirs.pvalue) < 4.5 * error
        assert ours.standard_error == pytest.approx(np.std(theirs.null_distribution), rel=0.1)


def test_exact_randomization_refuses_too_many_items():
    counts = np.ones((21, 3))
    with pytest.raises(ValueError, match="at most 20 items"):
        approximate_randomization_test(counts, counts, fscore_statistic(), exact=True)


# ---------------------------------------------------------------------------
# The minimum detectable effect, against a direct simulation


def test_minimum_detectable_effect_has_its_power_in_a_simulation():
    """Corpora of 300 sentences from one generator, A better than B by the MDE that one
    corpus's paired bootstrap gives: about 80 % of them find the difference significant."""
    rng = np.random.default_rng(2026)
    n, alpha = 300, 0.05

    def corpus(p_a, p_b):
        gold = rng.integers(5, 40, n)
        difficulty = rng.beta(20, 2, n)  # shared: the two systems' errors are correlated
        a = np.stack([rng.binomial(gold, np.minimum(1, difficulty * p_a)), gold, gold], axis=1)
        b = np.stack([rng.binomial(gold, np.minimum(1, difficulty * p_b)), gold, gold], axis=1)
        return a, b

    f1 = fscore_statistic()
    pilot = paired_bootstrap_test(*corpus(1.0, 0.99), f1, n_resamples=2000, seed=1)
    mde = significance.minimum_detectable_effect(pilot.standard_error, alpha=alpha, power=0.8)
    assert mde == pytest.approx((1.959964 + 0.841621) * pilot.standard_error, rel=1e-6)
    # mean difficulty 20/22: a gap of g in p is a gap of g·20/22 in expected F1
    gap = mde * 22 / 20
    found, differences = 0, []
    runs = 300
    for run in range(runs):
        a, b = corpus(1.0, 1.0 - gap)
        test = paired_bootstrap_test(a, b, f1, n_resamples=300, seed=run)
        differences.append(test.difference)
        found += test.p_value < alpha
    # the SE is that of the observed difference across corpora
    assert np.std(differences, ddof=1) == pytest.approx(pilot.standard_error, rel=0.15)
    # power 0.8: 300 runs give a binomial sd of 0.023; 0.7-0.9 is four of them
    assert 0.7 < found / runs < 0.9
    with pytest.raises(ValueError, match="alpha"):
        significance.minimum_detectable_effect(0.01, alpha=1.0)
