"""How often a paired test calls two equally good systems different: an A/A study.

A test at level α should find a difference between two systems of the same
quality in about α of the comparisons, no more. :func:`aa_study` measures
that rate on real outputs: from two systems' per-item counts it makes pairs
of *pseudo-systems* (:func:`pseudo_systems`), each of which takes, item by
item and at random, the output of one of the two real systems, so that both
have the same expected quality while their outputs differ as real systems'
do; it runs each paired test of :mod:`cws_bench.metrics.significance` on
many such pairs and counts the rejections. The rate comes with its Wilson
score interval (:func:`wilson_interval`; Wilson 1927, as
``scipy.stats.binomtest(...).proportion_ci(method="wilson")``).

Everything is seeded: comparison ``i`` draws its pseudo-systems from
``numpy.random.default_rng([seed, i])`` and its test uses seed ``seed + i``.

:func:`seed_aa_study` is the same study for the two-level bootstrap over
seeds and sentences (:func:`~cws_bench.metrics.significance.seed_bootstrap_test`):
from one trainable system run with a pool of seeds, each comparison draws two
disjoint groups of seeds (``numpy.random.default_rng([seed, i]).choice``,
without replacement), the same system against itself, and tests them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from cws_bench.metrics.defaults import DEFAULT_ALPHA, DEFAULT_CONFIDENCE, DEFAULT_SEED, TESTS
from cws_bench.metrics.significance import (
    Statistic,
    approximate_randomization_test,
    paired_bootstrap_test,
    seed_bootstrap_test,
)

__all__ = ["RejectionRate", "aa_study", "pseudo_systems", "seed_aa_study", "wilson_interval"]


def wilson_interval(
    successes: int, trials: int, confidence: float = DEFAULT_CONFIDENCE
) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (Wilson 1927).

    >>> [round(x, 4) for x in wilson_interval(5, 100)]
    [0.0215, 0.1118]
    """
    if trials < 1 or not 0 <= successes <= trials:
        raise ValueError(f"need 0 <= successes <= trials and trials >= 1, got {successes}/{trials}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence!r}")
    z = NormalDist().inv_cdf(1 - (1 - confidence) / 2)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def pseudo_systems(
    counts_x: ArrayLike, counts_y: ArrayLike, rng: np.random.Generator, bias: float = 0.0
) -> tuple[np.ndarray, np.ndarray]:
    """Two pseudo-systems of the same expected quality, made from two real ones.

    Each takes, item by item, system X's counts or system Y's with
    probability 1/2, independently of the other: A and B are exchangeable,
    so every difference between them is chance. With ``bias``, A takes X's
    with probability ``1/2 + bias`` and B with ``1/2 - bias``: a known
    difference, about ``2·bias`` times X's advantage over Y, injected.
    """
    if not -0.5 <= bias <= 0.5:
        raise ValueError(f"bias must lie in [-0.5, 0.5], got {bias!r}")
    x = np.asarray(counts_x, dtype=np.float64)
    y = np.asarray(counts_y, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 2:
        raise ValueError(f"the two systems' counts differ in shape: {x.shape} and {y.shape}")
    picks = rng.random((2, x.shape[0])) < np.array([[0.5 + bias], [0.5 - bias]])
    a = np.where(picks[0][:, None], x, y)
    b = np.where(picks[1][:, None], x, y)
    return a, b


@dataclass(frozen=True)
class RejectionRate:
    """One test's rejections on pairs of pseudo-systems: its false-positive rate on
    equally good ones, its power on ones with an injected difference.

    Attributes:
        test: ``bootstrap`` or ``permutation``.
        comparisons: the number of A/A comparisons.
        rejections: how many had p < ``alpha``.
        low, high: the rate's 95% Wilson interval.
    """

    test: str
    comparisons: int
    rejections: int
    alpha: float
    low: float
    high: float

    @property
    def rate(self) -> float:
        return self.rejections / self.comparisons

    def to_dict(self) -> dict[str, Any]:
        return {
            "test": self.test,
            "comparisons": self.comparisons,
            "rejections": self.rejections,
            "rate": self.rate,
            "alpha": self.alpha,
            "low": self.low,
            "high": self.high,
        }


def _check_study(comparisons: int, alpha: float) -> None:
    if comparisons < 1:
        raise ValueError(f"comparisons must be >= 1, got {comparisons}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha!r}")


def aa_study(
    counts_x: ArrayLike,
    counts_y: ArrayLike,
    statistic: Statistic,
    *,
    comparisons: int = 1000,
    n_resamples: int = 1000,
    alpha: float = DEFAULT_ALPHA,
    seed: int = DEFAULT_SEED,
    tests: Sequence[str] = TESTS,
    bias: float = 0.0,
) -> dict[str, RejectionRate]:
    """Each paired test's false-positive rate on ``comparisons`` A/A pairs (or, with
    ``bias``, its power on pairs with a known difference, see :func:`pseudo_systems`).

    Args:
        counts_x, counts_y: two real systems' counts on the same items, shape
            (n_items, n_counts).
        statistic: the compared statistic of summed counts (e.g. F1).
        comparisons: pairs of pseudo-systems tested.
        n_resamples: resamples (bootstrap) or shuffles (permutation) per test.
        alpha: the level a p-value must be under to count as a rejection.
        tests: some of :data:`~cws_bench.metrics.defaults.TESTS`.
        bias: the injected difference (0: an A/A study).

    Example:
        >>> rng = np.random.default_rng(0)
        >>> gold = rng.integers(5, 30, 100)
        >>> x = np.stack([rng.binomial(gold, 0.9), gold, gold], axis=1)
        >>> y = np.stack([rng.binomial(gold, 0.8), gold, gold], axis=1)
        >>> from cws_bench.metrics.significance import fscore_statistic
        >>> rates = aa_study(x, y, fscore_statistic(), comparisons=20, n_resamples=100)
        >>> sorted(rates), rates["bootstrap"].comparisons
        (['bootstrap', 'permutation'], 20)
    """
    unknown = [t for t in tests if t not in TESTS]
    if unknown:
        raise ValueError(f"unknown test(s) {', '.join(unknown)}; use {', '.join(TESTS)}")
    _check_study(comparisons, alpha)
    rejections = dict.fromkeys(tests, 0)
    for i in range(comparisons):
        a, b = pseudo_systems(counts_x, counts_y, np.random.default_rng([seed, i]), bias)
        for test in tests:
            run = paired_bootstrap_test if test == "bootstrap" else approximate_randomization_test
            result = run(a, b, statistic, n_resamples=n_resamples, seed=seed + i)
            rejections[test] += result.p_value < alpha
    return {
        test: RejectionRate(test, comparisons, count, alpha, *wilson_interval(count, comparisons))
        for test, count in rejections.items()
    }


SEED_TEST = "two-level bootstrap"
"""The :class:`RejectionRate` ``test`` of :func:`seed_aa_study`."""


def seed_aa_study(
    seed_counts: Sequence[ArrayLike],
    statistic: Statistic,
    *,
    per_side: int,
    comparisons: int = 1000,
    n_resamples: int = 1000,
    alpha: float = DEFAULT_ALPHA,
    seed: int = DEFAULT_SEED,
) -> RejectionRate:
    """The two-level bootstrap's false-positive rate: one system against itself.

    ``seed_counts`` are one trainable system's counts on the same items, one array
    per training seed (a pool of ``m`` runs). Comparison ``i`` draws ``2·per_side``
    of them without replacement (``numpy.random.default_rng([seed, i]).choice(m,
    2·per_side, replace=False)``): the first ``per_side`` are system A's seeds, the
    others B's, so A and B are the same system and every difference is chance; it is
    tested by :func:`~cws_bench.metrics.significance.seed_bootstrap_test` with
    ``n_resamples`` and seed ``seed + i``, and counts when p < ``alpha``.

    The comparisons share the pool's runs, so they are not independent draws of
    new trainings: the rate is that of this pool, and its Wilson interval the
    spread over the draws (a larger pool makes them nearer independent).

    Args:
        seed_counts: the pool, each of shape (n_items, n_counts).
        statistic: the compared statistic of summed counts (e.g. F1).
        per_side: seeds per system in each comparison (at least 1).
        comparisons, n_resamples, alpha, seed: as :func:`aa_study`.

    Example:
        >>> rng = np.random.default_rng(0)
        >>> gold = rng.integers(5, 30, 100)
        >>> pool = [np.stack([rng.binomial(gold, 0.9), gold, gold], axis=1) for _ in range(6)]
        >>> from cws_bench.metrics.significance import fscore_statistic
        >>> rate = seed_aa_study(pool, fscore_statistic(), per_side=2, comparisons=20,
        ...                      n_resamples=100)
        >>> rate.test, rate.comparisons
        ('two-level bootstrap', 20)
    """
    pool = [np.asarray(c, dtype=np.float64) for c in seed_counts]
    if per_side < 1 or 2 * per_side > len(pool):
        raise ValueError(
            f"per_side must be between 1 and half the pool ({len(pool)} runs), got {per_side}"
        )
    _check_study(comparisons, alpha)
    rejections = 0
    for i in range(comparisons):
        drawn = np.random.default_rng([seed, i]).choice(len(pool), 2 * per_side, replace=False)
        a = [pool[j] for j in drawn[:per_side]]
        b = [pool[j] for j in drawn[per_side:]]
        result = seed_bootstrap_test(a, b, statistic, n_resamples=n_resamples, seed=seed + i)
        rejections += result.p_value < alpha
    return RejectionRate(
        SEED_TEST, comparisons, rejections, alpha, *wilson_interval(rejections, comparisons)
    )
