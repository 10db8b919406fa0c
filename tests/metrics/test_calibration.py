"""Tests of cws_bench/metrics/calibration.py: the A/A study of the paired tests."""

from __future__ import annotations

import numpy as np
import pytest

from cws_bench.metrics.calibration import aa_study, pseudo_systems, wilson_interval
from cws_bench.metrics.significance import fscore_statistic


@pytest.mark.parametrize(("k", "n"), [(0, 10), (5, 100), (50, 1000), (1000, 1000), (3, 7)])
def test_wilson_interval_equals_scipy(k, n):
    scipy_stats = pytest.importorskip("scipy.stats", reason="scipy's binomtest is the oracle")
    expected = scipy_stats.binomtest(k, n).proportion_ci(method="wilson")
    assert wilson_interval(k, n) == pytest.approx((expected.low, expected.high), abs=1e-12)


def test_pseudo_systems_take_each_item_from_one_real_system():
    x = np.arange(30).reshape(10, 3)
    y = -x
    a, b = pseudo_systems(x, y, np.random.default_rng(1))
    for side in (a, b):
        assert all((row == x[i]).all() or (row == y[i]).all() for i, row in enumerate(side))
    assert not (a == b).all()  # independent draws


def real_like(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Two systems of different quality with correlated errors, as real ones have."""
    rng = np.random.default_rng(seed)
    gold = rng.integers(5, 40, n)
    difficulty = rng.beta(12, 2, n)
    pred = np.maximum(gold + rng.integers(-2, 3, n), 1)
    x = np.stack([np.minimum(rng.binomial(gold, difficulty), pred), pred, gold], axis=1)
    y = np.stack([rng.binomial(gold, difficulty * 0.95), gold, gold], axis=1)
    return x, y


def test_the_tests_false_positive_rate_stays_under_alpha():
    """A smaller run of the benchmark's study (benchmarks/bench_calibration.py): on 300
    A/A pairs each test rejects at most about alpha of the time (its interval reaches
    down to alpha or below)."""
    x, y = real_like(300, 3)
    rates = aa_study(x, y, fscore_statistic(), comparisons=300, n_resamples=300, seed=7)
    for rate in rates.values():
        assert rate.comparisons == 300
        assert rate.low <= 0.05, rate.to_dict()
        assert rate.low <= rate.rate <= rate.high


def test_a_real_difference_is_found():
    """The study's machinery can reject: two different systems, not pseudo-systems."""
    x, y = real_like(300, 3)
    from cws_bench.metrics.significance import approximate_randomization_test

    assert approximate_randomization_test(x, y, fscore_statistic(), n_resamples=300).p_value < 0.05


def test_bad_options():
    x, y = real_like(10, 0)
    with pytest.raises(ValueError, match="unknown test"):
        aa_study(x, y, fscore_statistic(), tests=["t"])
    with pytest.raises(ValueError, match="alpha"):
        aa_study(x, y, fscore_statistic(), alpha=0)
    with pytest.raises(ValueError, match="differ in shape"):
        pseudo_systems(x, y[:5], np.random.default_rng(0))


def test_a_difference_of_one_mde_is_found_four_times_in_five():
    """Power, from the same study: pseudo-systems with an injected difference of one
    minimum detectable effect (from the bootstrap SE of a pseudo pair) are found
    different in about 80 % of the comparisons, by either test."""
    from cws_bench.metrics.significance import minimum_detectable_effect, paired_bootstrap_test

    f1 = fscore_statistic()
    x, y = real_like(300, 3)
    advantage = f1(x.sum(axis=0)[None, :])[0] - f1(y.sum(axis=0)[None, :])[0]
    errors = [
        paired_bootstrap_test(
            *pseudo_systems(x, y, np.random.default_rng(s)), f1, n_resamples=1000, seed=s
        ).standard_error
        for s in range(5)
    ]
    bias = minimum_detectable_effect(float(np.mean(errors))) / (2 * advantage)
    rates = aa_study(x, y, f1, comparisons=200, n_resamples=300, seed=11, bias=bias)
    for rate in rates.values():
        assert rate.low <= 0.8 <= rate.high, rate.to_dict()
    with pytest.raises(ValueError, match="bias"):
        pseudo_systems(x, y, np.random.default_rng(0), bias=0.6)


def seeded_system(n: int, seeds: int, seed: int) -> list[np.ndarray]:
    """One trainable system run with several seeds: each run shifts every sentence's
    accuracy by its own seed effect and its own per-sentence noise, as training runs do."""
    rng = np.random.default_rng(seed)
    gold = rng.integers(5, 40, n)
    difficulty = rng.beta(12, 2, n)
    runs = []
    for _ in range(seeds):
        accuracy = np.clip(difficulty + rng.normal(0, 0.01) + rng.normal(0, 0.03, n), 0, 1)
        pred = np.maximum(gold + rng.integers(-1, 2, n), 1)
        runs.append(np.stack([np.minimum(rng.binomial(gold, accuracy), pred), pred, gold], 1))
    return runs


def test_seed_aa_study_counts_as_a_reference_loop():
    """Each comparison: the documented draw of disjoint seeds, the two-level bootstrap."""
    from cws_bench.metrics.calibration import seed_aa_study
    from cws_bench.metrics.significance import seed_bootstrap_test

    pool = seeded_system(60, 6, 1)
    f1 = fscore_statistic()
    rate = seed_aa_study(pool, f1, per_side=2, comparisons=25, n_resamples=200, seed=5, alpha=0.3)
    rejected = 0
    for i in range(25):
        chosen = np.random.default_rng([5, i]).choice(6, 4, replace=False)
        assert len(set(chosen)) == 4  # disjoint sides
        p = seed_bootstrap_test(
            [pool[j] for j in chosen[:2]],
            [pool[j] for j in chosen[2:]],
            f1,
            n_resamples=200,
            seed=5 + i,
        ).p_value
        rejected += p < 0.3
    assert rate.rejections == rejected and rate.test == "two-level bootstrap"
    assert (rate.low, rate.high) == pytest.approx(wilson_interval(rejected, 25))


def test_the_two_level_bootstraps_false_positive_rate_stays_under_alpha():
    """A smaller run of the benchmark's seed study: one system with 12 seeds against
    itself, 3 seeds a side, 300 comparisons: the rate's interval reaches down to alpha
    (measured: 9 of 300, 0.030 [0.016-0.056]; one seed a side 33 of 300, 0.110)."""
    from cws_bench.metrics.calibration import seed_aa_study

    pool = seeded_system(200, 12, 4)
    rate = seed_aa_study(pool, fscore_statistic(), per_side=3, comparisons=300, n_resamples=300)
    assert rate.comparisons == 300
    assert rate.low <= 0.05, rate.to_dict()
    # the study can fail a test: one seed a side is the ordinary paired bootstrap, blind to
    # the seed effect, and calls the system different from itself too often
    one = seed_aa_study(pool, fscore_statistic(), per_side=1, comparisons=300, n_resamples=300)
    assert one.low > 0.05, one.to_dict()
    with pytest.raises(ValueError, match="per_side"):
        seed_aa_study(pool[:3], fscore_statistic(), per_side=2)
