"""Confidence intervals and significance tests for metrics of additive per-item counts.

Precision, recall, F1, accuracy, BLEU and most corpus metrics are functions
of counts that add up over items (sentences, documents, queries): F1 of a
corpus is ``2·Σcorrect / (Σgold + Σpred)``. So the items are the rows of a
2-D array of counts, shape ``(n_items, n_counts)``, and a metric is a
*statistic*: a function that takes summed counts of shape ``(n_resamples,
n_counts)`` and returns shape ``(n_resamples,)``, vectorised over resamples
(:func:`fscore_statistic` and :func:`ratio_statistic` build the usual ones).
Resampling never touches the text, only the counts (as sacrebleu does), so
1000 resamples of 20,000 sentences take a fraction of a second.

Everything is seeded (``numpy.random.default_rng(seed)``, default seed
:data:`DEFAULT_SEED`) and reproducible; the seed is part of every result.

- :func:`bootstrap_confidence_interval`: resample the items with
  replacement ``n_resamples`` times (default :data:`DEFAULT_RESAMPLES`) and
  take the percentile interval of the statistic (Efron & Tibshirani 1993,
  ch. 13), or the basic or the BCa interval (ch. 14). The resampling indices
  are drawn exactly as ``scipy.stats.bootstrap`` draws them, so the same seed
  gives scipy's interval.
- :func:`paired_bootstrap_test`: resample the same items for two systems
  (Koehn 2004) and test whether their difference ``δ = s(A) - s(B)`` is zero:
  the bootstrap differences shifted by the observed one estimate its null
  distribution (Efron & Tibshirani 1993, §16.4; Berg-Kirkpatrick et al. 2012),
  ``p = (1 + #{|δ*_b - δ| >= |δ|}) / (B + 1)``.
- :func:`approximate_randomization_test`: swap the two systems' counts of
  each item with probability 1/2 (Noreen 1989; Riezler & Maxwell 2005),
  ``p = (1 + #{|δ_r| >= |δ|}) / (R + 1)``.
- :func:`adjust_p_values`: a family of tests (every two of eight systems is
  28 tests) corrected for multiple comparisons: Holm–Bonferroni (Holm 1979),
  Bonferroni, or Benjamini–Hochberg's false discovery rate, the same
  adjusted p-values as statsmodels' ``multipletests``; or the step-down
  max-T of Westfall & Young (1993), which uses the tests' joint resampling
  distribution (:func:`maxt_adjusted_p_values`).
- :func:`minimum_detectable_effect`: the smallest difference a paired test
  of this size detects with the given power, ``(z_{1-α/2} + z_power)·SE``.

The "+1" keeps a p-value from being 0 with finitely many resamples (Davison &
Hinkley 1997, ch. 4). One-sided tests (``alternative="greater"``: A better
than B, or ``"less"``) count one tail.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from itertools import pairwise
from statistics import NormalDist
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike

from cws_bench.display.units import plural
from cws_bench.metrics.defaults import (
    CORRECTIONS,
    DEFAULT_ALPHA,
    DEFAULT_CONFIDENCE,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    TESTS,
)

__all__ = [
    "CORRECTIONS",
    "DEFAULT_ALPHA",
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "TESTS",
    "BootstrapInterval",
    "PairedTestResult",
    "SharedResamples",
    "Statistic",
    "adjust_p_values",
    "approximate_randomization_test",
    "bootstrap_confidence_interval",
    "fscore_statistic",
    "maxt_adjusted_p_values",
    "minimum_detectable_effect",
    "paired_bootstrap_test",
    "ratio_statistic",
    "seed_bootstrap_test",
]

Statistic = Callable[[np.ndarray], np.ndarray]
"""Summed counts of shape (n_resamples, n_counts) -> statistic of shape (n_resamples,)."""

Alternative = Literal["two-sided", "greater", "less"]


# Items per resampling chunk times items: bounds the memory of one chunk.
_CHUNK_CELLS = 1 << 21
# Differences within this (relative) distance of the observed one count as ties.
_TIE = 1e-12
# The most items the exact randomization test enumerates (2^20 swaps).
_EXACT_ITEMS = 20


# ---------------------------------------------------------------------------
# Statistics


def ratio_statistic(numerator: int, denominator: int, *, zero_division: float = 0.0) -> Statistic:
    """The statistic ``sums[:, numerator] / sums[:, denominator]`` (precision, recall, accuracy).

    Args:
        numerator: the column of the numerator counts.
        denominator: the column of the denominator counts.
        zero_division: the value when a resample's denominator is 0.

    Example:
        >>> precision = ratio_statistic(0, 1)
        >>> precision(np.array([[3, 4], [0, 0]])).tolist()
        [0.75, 0.0]
    """

    def statistic(sums: np.ndarray) -> np.ndarray:
        num = sums[:, numerator]
        den = sums[:, denominator]
        safe = np.where(den == 0, 1, den)
        return np.where(den == 0, zero_division, num / safe)

    return statistic


def fscore_statistic(
    *,
    true_positives: int = 0,
    predicted_positives: int = 1,
    actual_positives: int = 2,
    beta: float = 1.0,
    zero_division: float = 0.0,
) -> Statistic:
    """The statistic F-beta ``(1 + b²)·tp / (b²·actual + predicted)`` from three count columns.

    The default columns are ``(tp, predicted, actual)``, the argument order
    of :func:`~cws_bench.metrics.classification.precision_recall_fscore_from_counts`
    (for segmentation: correct, predicted and gold words per sentence).

    Example:
        >>> f1 = fscore_statistic()
        >>> f1(np.array([[3, 5, 4]])).tolist()
        [0.6666666666666666]
    """
    if not beta >= 0 or math.isinf(beta):
        raise ValueError(f"beta must be a finite number >= 0, got {beta!r}")
    beta2 = beta * beta

    def statistic(sums: np.ndarray) -> np.ndarray:
        den = beta2 * sums[:, actual_positives] + sums[:, predicted_positives]
        safe = np.where(den == 0, 1, den)
        return np.where(den == 0, zero_division, (1 + beta2) * sums[:, true_positives] / safe)

    return statistic


# ---------------------------------------------------------------------------
# Input and resampling


def _counts(counts: ArrayLike, name: str = "counts") -> np.ndarray:
    array = np.asarray(counts, dtype=np.float64)
    if array.ndim == 1:
        array = array[:, None]
    if array.ndim != 2:
        raise ValueError(f"{name} must have shape (n_items, n_counts), got {array.shape}")
    if array.shape[0] == 0:
        raise ValueError(f"{name} holds no item")
    if not np.isfinite(array).all():
        raise ValueError(f"{name} holds nan or infinite values")
    return array


def _check_options(n_resamples: int, confidence: float | None = None) -> None:
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 1:
        raise ValueError(f"n_resamples must be a positive integer, got {n_resamples!r}")
    if confidence is not None and not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence!r}")


def _apply(statistic: Statistic, sums: np.ndarray) -> np.ndarray:
    values = np.asarray(statistic(sums), dtype=np.float64)
    if values.shape != (sums.shape[0],):
        raise ValueError(
            f"the statistic must map summed counts of shape {sums.shape} to shape "
            f"({sums.shape[0]},), got {values.shape}"
        )
    return values


def _bootstrap_sums(counts: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Column sums of ``n_resamples`` resamples of the rows, shape (n_resamples, n_counts).

    Row ``b`` uses the indices ``rng.integers(0, n, (n_resamples, n))[b]``, as
    scipy draws them; a chunk of rows at a time, so memory stays bounded: each
    chunk turns its indices into how often each item was drawn (a bincount)
    and multiplies that by the counts.
    """
    n = counts.shape[0]
    chunk = max(1, _CHUNK_CELLS // n)
    sums = np.empty((n_resamples, counts.shape[1]))
    for start in range(0, n_resamples, chunk):
        size = min(chunk, n_resamples - start)
        sums[start : start + size] = _times_drawn(rng, n, size).astype(np.float64) @ counts
    return sums


def _times_drawn(rng: np.random.Generator, n: int, size: int) -> np.ndarray:
    """How often each of ``n`` items is drawn in each row of ``rng.integers(0, n, (size, n))``."""
    indices = rng.integers(0, n, (size, n))
    indices += (np.arange(size) * n)[:, None]  # row b counts into cells b·n .. b·n + n - 1
    return np.bincount(indices.ravel(), minlength=size * n).reshape(size, n)


def _oriented(values: Any, alternative: Alternative) -> Any:
    """``values`` turned so that larger is more extreme: ``|x|``, ``x`` or ``-x``."""
    if alternative == "two-sided":
        return np.abs(values)
    if alternative == "greater":
        return values
    if alternative == "less":
        return -values
    raise ValueError(f"alternative must be 'two-sided', 'greater' or 'less', got {alternative!r}")


def _tail_count(null: np.ndarray, observed: float, alternative: Alternative) -> int:
    tolerance = _TIE * max(1.0, abs(observed))
    extreme = _oriented(null, alternative) >= _oriented(observed, alternative) - tolerance
    return int(np.count_nonzero(extreme))


# ---------------------------------------------------------------------------
# Confidence interval


@dataclass(frozen=True, slots=True)
class BootstrapInterval:
    """A bootstrap confidence interval of a statistic.

    Attributes:
        estimate: the statistic of the summed counts of all items.
        method: ``percentile``, ``basic`` or ``bca``.
        seed: the seed of the resampling (None: unseeded).
        standard_error: the standard deviation of the bootstrap statistics.
    """

    estimate: float
    low: float
    high: float
    confidence: float
    method: str
    n_resamples: int
    seed: int | None
    standard_error: float
    items: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict in field order."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


def _bca_levels(
    counts: np.ndarray,
    statistic: Statistic,
    estimate: float,
    replicates: np.ndarray,
    alpha: float,
) -> tuple[float, float]:
    """The BCa interval's quantile levels (Efron & Tibshirani 1993, eq. 14.9-14.15)."""
    below = np.count_nonzero(replicates < estimate) + np.count_nonzero(replicates <= estimate)
    fraction = below / (2 * replicates.shape[0])
    normal = NormalDist()
    if fraction <= 0 or fraction >= 1:
        return math.nan, math.nan
    bias = normal.inv_cdf(fraction)
    # acceleration from the jackknife: leave each item out of the total
    leave_one_out = _apply(statistic, counts.sum(axis=0) - counts)
    deviation = leave_one_out.mean() - leave_one_out
    denominator = 6 * np.sum(deviation**2) ** 1.5
    if denominator == 0:
        return math.nan, math.nan
    acceleration = float(np.sum(deviation**3) / denominator)
    levels = []
    for z in (normal.inv_cdf(alpha), -normal.inv_cdf(alpha)):
        shifted = bias + z
        levels.append(normal.cdf(bias + shifted / (1 - acceleration * shifted)))
    return levels[0], levels[1]


def bootstrap_confidence_interval(
    counts: ArrayLike,
    statistic: Statistic,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    confidence: float = DEFAULT_CONFIDENCE,
    method: Literal["percentile", "basic", "bca"] = "percentile",
    seed: int | None = DEFAULT_SEED,
) -> BootstrapInterval:
    """A bootstrap confidence interval of a statistic of summed per-item counts.

    The items (rows of ``counts``) are resampled with replacement; each
    resample's column sums give one value of the statistic. With ``α = (1 -
    confidence) / 2``: the percentile interval is the α and 1 - α quantiles
    of those values (linear interpolation, as numpy and scipy); the basic
    interval reflects them about the estimate (``2θ - q_{1-α}``, ``2θ -
    q_α``); BCa corrects the quantile levels for bias and skew (Efron &
    Tibshirani 1993, ch. 14; the acceleration from the jackknife). An
    interval that cannot be computed (BCa of a degenerate distribution) is
    nan, with a warning.

    Args:
        counts: shape (n_items, n_counts), one row of additive counts per item.
        statistic: summed counts (n_resamples, n_counts) -> (n_resamples,).

    Raises:
        ValueError: counts of the wrong shape, no item, a statistic of the
            wrong shape, or a bad option.

    Example:
        >>> counts = [[3, 4, 5], [5, 5, 5], [0, 2, 1], [7, 8, 8]]  # correct, predicted, gold
        >>> interval = bootstrap_confidence_interval(counts, fscore_statistic(), seed=1)
        >>> round(interval.estimate, 4), interval.low <= interval.estimate <= interval.high
        (0.7895, True)
    """
    _check_options(n_resamples, confidence)
    _check_method(method)
    array = _counts(counts)
    return SharedResamples([array], n_resamples=n_resamples, seed=seed).interval(
        0, statistic, confidence=confidence, method=method
    )


# ---------------------------------------------------------------------------
# Paired tests


@dataclass(frozen=True, slots=True)
class PairedTestResult:
    """The result of a paired significance test of system A against system B.

    Attributes:
        test: ``paired bootstrap`` or ``approximate randomization``.
        estimate_a: the statistic of A on all items.
        estimate_b: the statistic of B on all items.
        difference: ``estimate_a - estimate_b``.
        p_value: the probability of a difference at least this large if the
            systems were equally good.
        alternative: ``two-sided``, ``greater`` (A better) or ``less``.
        n_resamples: the number of resamples or shuffles.
        seed: the seed (None: unseeded).
        low: the lower bound of the difference's percentile interval (bootstrap only).
        high: the upper bound (bootstrap only).
        confidence: the interval's confidence level (bootstrap only).
        wins: the fraction of resamples in which A beat B (Koehn 2004; bootstrap only).
        standard_error: the standard deviation of the null distribution of the
            difference (the bootstrap's or the shuffles'), the SE that
            :func:`minimum_detectable_effect` takes.
        null: the null distribution itself, one value per resample or
            shuffle (the bootstrap's ``δ*_b - δ``, the shuffles' ``δ_r``), in
            the order drawn: what :func:`maxt_adjusted_p_values` needs. Not
            compared, not in :meth:`to_dict`.
    """

    test: str
    estimate_a: float
    estimate_b: float
    difference: float
    p_value: float
    alternative: str
    n_resamples: int
    seed: int | None
    items: int
    low: float | None = None
    high: float | None = None
    confidence: float | None = None
    wins: float | None = None
    standard_error: float | None = None
    null: np.ndarray | None = field(default=None, compare=False, repr=False)

    def significant(self, level: float = DEFAULT_ALPHA) -> bool:
        """Whether ``p_value < level``."""
        return self.p_value < level

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict in field order (without the null distribution)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "null"}


def _paired(counts_a: ArrayLike, counts_b: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    a = _counts(counts_a, "counts_a")
    b = _counts(counts_b, "counts_b")
    if a.shape != b.shape:
        raise ValueError(
            f"counts_a has shape {a.shape} but counts_b has {b.shape}: a paired test needs "
            "the same items and counts for both systems"
        )
    return a, b


def paired_bootstrap_test(
    counts_a: ArrayLike,
    counts_b: ArrayLike,
    statistic: Statistic,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    confidence: float = DEFAULT_CONFIDENCE,
    alternative: Alternative = "two-sided",
    seed: int | None = DEFAULT_SEED,
) -> PairedTestResult:
    """Paired bootstrap test of two systems' statistic on the same items (Koehn 2004).

    Each resample draws items with replacement and computes ``δ*_b =
    s(A*_b) - s(B*_b)`` on the same items for both systems. The shifted
    differences ``δ*_b - δ`` estimate the null distribution of the observed
    ``δ``: two-sided ``p = (1 + #{|δ*_b - δ| >= |δ|}) / (B + 1)``; ``greater``
    counts ``δ*_b - δ >= δ`` (Berg-Kirkpatrick et al. 2012), ``less``
    ``δ*_b - δ <= δ``. The result also holds the percentile interval of the
    difference and Koehn's fraction of resamples that A wins.

    Args:
        counts_a: shape (n_items, n_counts), system A's counts per item.
        counts_b: the same shape, system B's counts on the same items.
        statistic: summed counts (n_resamples, n_counts) -> (n_resamples,).
        confidence: the level of the difference's interval.
        alternative: ``two-sided``, ``greater`` (A better) or ``less``.

    Raises:
        ValueError: the two count arrays differ in shape, or a bad option.

    Example:
        >>> a = [[9, 10, 10]] * 50  # F1 0.9 on every sentence
        >>> b = [[5, 10, 10]] * 50  # F1 0.5
        >>> result = paired_bootstrap_test(a, b, fscore_statistic())
        >>> result.difference, result.p_value < 0.01, result.wins
        (0.4, True, 1.0)
    """
    _check_options(n_resamples, confidence)
    a, b = _paired(counts_a, counts_b)
    return SharedResamples([a, b], n_resamples=n_resamples, seed=seed).paired_test(
        0, 1, statistic, confidence=confidence, alternative=alternative
    )


def approximate_randomization_test(
    counts_a: ArrayLike,
    counts_b: ArrayLike,
    statistic: Statistic,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    alternative: Alternative = "two-sided",
    seed: int | None = DEFAULT_SEED,
    exact: bool = False,
) -> PairedTestResult:
    """Approximate randomization test of two systems on the same items (Noreen 1989).

    Under the null hypothesis the two systems are exchangeable, so each
    shuffle swaps every item's counts between A and B with probability 1/2
    (shuffle ``r`` swaps item ``i`` when ``rng.random((R, n))[r, i] < 0.5``)
    and computes ``δ_r = s(A_r) - s(B_r)``. Two-sided ``p = (1 + #{|δ_r| >=
    |δ|}) / (R + 1)`` (Riezler & Maxwell 2005); ``greater`` counts ``δ_r >=
    δ``, ``less`` ``δ_r <= δ``.

    The swaps depend only on the number of items, ``n_resamples`` and
    ``seed``: the tests of several pairs on the same items with the same seed
    swap the same items in the same shuffle, so their ``null`` distributions
    are drawn jointly (a sign flip of every pair's per-item differences at
    once), as :func:`maxt_adjusted_p_values` needs them.

    Args:
        counts_a: shape (n_items, n_counts), system A's counts per item.
        counts_b: the same shape, system B's counts on the same items.
        statistic: summed counts (n_resamples, n_counts) -> (n_resamples,).
        alternative: ``two-sided``, ``greater`` (A better) or ``less``.
        exact: the exact randomization test instead: every one of the ``2^n``
            ways to swap the items once (n at most 20; ``n_resamples`` and
            ``seed`` unused), ``p = #{|δ_r| >= |δ|} / 2^n`` (the observed
            assignment is one of them), as ``scipy.stats.permutation_test``
            computes it when it enumerates.

    Example:
        >>> a = [[9, 10, 10]] * 50
        >>> result = approximate_randomization_test(a, a, fscore_statistic())
        >>> result.difference, result.p_value
        (0.0, 1.0)
    """
    _check_options(n_resamples)
    a, b = _paired(counts_a, counts_b)
    if exact and a.shape[0] > _EXACT_ITEMS:
        raise ValueError(
            f"the exact test enumerates 2^n swaps: at most {_EXACT_ITEMS} items, got {a.shape[0]}"
        )
    total_a = a.sum(axis=0)
    total_b = b.sum(axis=0)
    estimate_a = float(_apply(statistic, total_a[None, :])[0])
    estimate_b = float(_apply(statistic, total_b[None, :])[0])
    difference = estimate_a - estimate_b
    rng = np.random.default_rng(seed)
    gap = b - a
    n = a.shape[0]
    chunk = max(1, _CHUNK_CELLS // n)
    if exact:
        n_resamples = 1 << n
        chunk = max(1, min(chunk, n_resamples))
    deltas = np.empty(n_resamples)
    for start in range(0, n_resamples, chunk):
        size = min(chunk, n_resamples - start)
        if exact:  # shuffle r swaps item i when bit i of r is set
            codes = np.arange(start, start + size)[:, None]
            swap = (codes >> np.arange(n)[None, :]) & 1 == 1
        else:
            # one uniform draw per item and shuffle, so the draws do not depend on the chunking
            swap = rng.random((size, n)) < 0.5
        moved = swap.astype(np.float64) @ gap  # what A gains (and B loses) by the swaps
        deltas[start : start + size] = _apply(statistic, total_a + moved) - _apply(
            statistic, total_b - moved
        )
    count = _tail_count(deltas, difference, alternative)
    return PairedTestResult(
        test="approximate randomization",
        estimate_a=estimate_a,
        estimate_b=estimate_b,
        difference=difference,
        p_value=count / n_resamples if exact else (count + 1) / (n_resamples + 1),
        alternative=alternative,
        n_resamples=n_resamples,
        seed=None if exact else seed,
        items=n,
        standard_error=_spread(deltas),
        null=deltas,
    )


def seed_bootstrap_test(
    seeds_a: Sequence[ArrayLike],
    seeds_b: Sequence[ArrayLike],
    statistic: Statistic,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    confidence: float = DEFAULT_CONFIDENCE,
    alternative: Alternative = "two-sided",
    seed: int | None = DEFAULT_SEED,
) -> PairedTestResult:
    """Two-level paired bootstrap of two systems run with several seeds each.

    A system trained with ``k`` seeds is ``k`` count arrays on the same items.
    Its statistic is the one of its counts summed over every seed and item
    (with one seed, the ordinary one). Each resample ``r`` draws, for each
    system on its own (seed ``i`` of A has nothing to do with seed ``i`` of
    B), its seeds with replacement, then the items with replacement, the same
    items for both systems and every seed (the systems stay paired by item),
    and computes ``δ*_r = s(A*_r) - s(B*_r)`` from the drawn seeds' counts of
    the drawn items, summed. The p-value, interval and ``null`` are those of
    :func:`paired_bootstrap_test` on these ``δ*_r``: the spread now holds
    both the seed and the item variation (Davison & Hinkley 1997, §3.8, on
    resampling at two levels).

    The items are drawn as :func:`paired_bootstrap_test` draws them (from
    ``numpy.random.default_rng(seed)``), the seeds from a second generator,
    ``default_rng(SeedSequence(seed).spawn(1)[0])``: A's ``(n_resamples,
    k_a)`` indices first, then B's. With one seed per system this is
    :func:`paired_bootstrap_test`, to the last digit.

    Args:
        seeds_a: system A's counts per seed, each of shape (n_items, n_counts).
        seeds_b: system B's, the same items and counts.
        statistic: summed counts (n_resamples, n_counts) -> (n_resamples,).
        n_resamples, confidence, alternative, seed: as :func:`paired_bootstrap_test`.

    Raises:
        ValueError: a system without seeds, arrays of different shapes, or a bad option.

    Example:
        >>> a = [[[9, 10, 10]] * 40, [[8, 10, 10]] * 40]  # two seeds: F1 0.9 and 0.8
        >>> b = [[[5, 10, 10]] * 40]
        >>> result = seed_bootstrap_test(a, b, fscore_statistic(), n_resamples=200)
        >>> round(result.difference, 3), result.p_value < 0.01
        (0.35, True)
    """
    _check_options(n_resamples, confidence)
    arrays = {
        side: [_counts(c, f"seeds_{side}[{i}]") for i, c in enumerate(given)]
        for side, given in (("a", seeds_a), ("b", seeds_b))
    }
    if not arrays["a"] or not arrays["b"]:
        raise ValueError("each system needs the counts of at least one seed")
    first = arrays["a"][0]
    for side, listed in arrays.items():
        for i, array in enumerate(listed):
            if array.shape != first.shape:
                raise ValueError(
                    f"seeds_{side}[{i}] has shape {array.shape}, seeds_a[0] {first.shape}: "
                    "every seed of both systems must be counted on the same items"
                )
    k_a, k_b = len(arrays["a"]), len(arrays["b"])
    width = first.shape[1]
    sums = _bootstrap_sums(
        np.hstack(arrays["a"] + arrays["b"]), n_resamples, np.random.default_rng(seed)
    ).reshape(n_resamples, k_a + k_b, width)
    picker = np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0])
    times_a = _times_drawn(picker, k_a, n_resamples).astype(np.float64)
    times_b = _times_drawn(picker, k_b, n_resamples).astype(np.float64)
    resampled_a = np.einsum("rk,rkc->rc", times_a, sums[:, :k_a])
    resampled_b = np.einsum("rk,rkc->rc", times_b, sums[:, k_a:])
    return _bootstrap_result(
        "two-level bootstrap",
        float(_apply(statistic, np.sum(arrays["a"], axis=(0, 1))[None, :])[0]),
        float(_apply(statistic, np.sum(arrays["b"], axis=(0, 1))[None, :])[0]),
        _apply(statistic, resampled_a) - _apply(statistic, resampled_b),
        alternative=alternative,
        confidence=confidence,
        seed=seed,
        items=first.shape[0],
    )


def _bootstrap_result(
    test: str,
    estimate_a: float,
    estimate_b: float,
    deltas: np.ndarray,
    *,
    alternative: Alternative,
    confidence: float,
    seed: int | None,
    items: int,
) -> PairedTestResult:
    """A bootstrap test's result from the two estimates and the resampled differences
    (one per resample): the p-value of the shifted null, the percentile interval, the wins."""
    difference = estimate_a - estimate_b
    n_resamples = deltas.shape[0]
    count = _tail_count(deltas - difference, difference, alternative)
    tail = (1 - confidence) / 2
    low, high = (float(q) for q in np.quantile(deltas, (tail, 1 - tail)))
    return PairedTestResult(
        test=test,
        estimate_a=estimate_a,
        estimate_b=estimate_b,
        difference=difference,
        p_value=(count + 1) / (n_resamples + 1),
        alternative=alternative,
        n_resamples=n_resamples,
        seed=seed,
        items=items,
        low=low,
        high=high,
        confidence=confidence,
        wins=float(np.count_nonzero(deltas > 0) / n_resamples),
        standard_error=_spread(deltas),
        null=deltas - difference,
    )


def _spread(values: np.ndarray) -> float:
    """The standard deviation (ddof 1) of a null distribution, nan for one value."""
    return float(np.std(values, ddof=1)) if values.shape[0] > 1 else math.nan


# ---------------------------------------------------------------------------
# Shared resamples


def _check_method(method: str) -> None:
    if method not in ("percentile", "basic", "bca"):
        raise ValueError(f"method must be 'percentile', 'basic' or 'bca', got {method!r}")


class SharedResamples:
    """Bootstrap resamples of one set of items, drawn once for many systems' counts.

    The resampling indices depend only on the number of items, ``n_resamples``
    and ``seed``: :func:`bootstrap_confidence_interval` and
    :func:`paired_bootstrap_test` draw the same ones for every system scored
    on the same items. This draws them once and sums every system's counts
    over them in one pass, so that the intervals of ``k`` systems and the
    tests of their pairs cost one draw instead of ``3k`` plus one per pair.

    :meth:`interval` and :meth:`paired_test` return what those two functions
    return for the same counts and seed. For integer counts (word counts) the
    numbers are equal to the last digit (each resample's sum is an exact
    integer, whatever the order of the additions); for fractional counts
    they may differ in the last bits.

    Args:
        systems: one array of counts per system, each of shape (n_items, n_counts_i),
            the same items (rows) in the same order.

    Raises:
        ValueError: no system, counts of the wrong shape, systems with
            different numbers of items, or a bad option.

    Example:
        >>> systems = [[[3, 4, 5], [5, 5, 5], [0, 2, 1]], [[2, 4, 5], [5, 6, 5], [1, 1, 1]]]
        >>> shared = SharedResamples(systems, seed=1)
        >>> f1 = fscore_statistic()
        >>> shared.interval(1, f1) == bootstrap_confidence_interval(systems[1], f1, seed=1)
        True
        >>> shared.paired_test(0, 1, f1) == paired_bootstrap_test(*systems, f1, seed=1)
        True
    """

    def __init__(
        self,
        systems: Sequence[ArrayLike],
        *,
        n_resamples: int = DEFAULT_RESAMPLES,
        seed: int | None = DEFAULT_SEED,
    ) -> None:
        _check_options(n_resamples)
        arrays = [_counts(counts, f"systems[{i}]") for i, counts in enumerate(systems)]
        if not arrays:
            raise ValueError("systems holds no system")
        for i, array in enumerate(arrays):
            if array.shape[0] != arrays[0].shape[0]:
                raise ValueError(
                    f"systems[{i}] has {plural(array.shape[0], 'item')} but systems[0] has "
                    f"{arrays[0].shape[0]}: shared resamples need the same items"
                )
        self.counts = arrays
        self.n_resamples = n_resamples
        self.seed = seed
        stacked = arrays[0] if len(arrays) == 1 else np.hstack(arrays)
        sums = _bootstrap_sums(stacked, n_resamples, np.random.default_rng(seed))
        edges = np.cumsum([0] + [array.shape[1] for array in arrays]).tolist()
        self.sums = [sums[:, low:high] for low, high in pairwise(edges)]

    def to_dict(self) -> dict[str, Any]:
        """What was drawn: the number of systems, items and resamples, and the seed.

        >>> SharedResamples([[[1, 2, 2]], [[2, 2, 2]]], n_resamples=10, seed=3).to_dict()
        {'systems': 2, 'items': 1, 'n_resamples': 10, 'seed': 3}
        """
        return {
            "systems": len(self.counts),
            "items": int(self.counts[0].shape[0]),
            "n_resamples": self.n_resamples,
            "seed": self.seed,
        }

    def interval(
        self,
        system: int,
        statistic: Statistic,
        *,
        confidence: float = DEFAULT_CONFIDENCE,
        method: Literal["percentile", "basic", "bca"] = "percentile",
    ) -> BootstrapInterval:
        """:func:`bootstrap_confidence_interval` of one system (by position)."""
        _check_options(self.n_resamples, confidence)
        _check_method(method)
        array = self.counts[system]
        n_resamples = self.n_resamples
        estimate = float(_apply(statistic, array.sum(axis=0)[None, :])[0])
        replicates = _apply(statistic, self.sums[system])
        alpha = (1 - confidence) / 2
        if method == "bca":
            levels = _bca_levels(array, statistic, estimate, replicates, alpha)
        else:
            levels = (alpha, 1 - alpha)
        if any(math.isnan(level) for level in levels):
            warnings.warn(
                "the BCa interval cannot be computed: the bootstrap distribution is degenerate",
                RuntimeWarning,
                stacklevel=3,
            )
            low = high = math.nan
        else:
            low, high = (float(q) for q in np.quantile(replicates, levels))
        if method == "basic":
            low, high = 2 * estimate - high, 2 * estimate - low
        return BootstrapInterval(
            estimate=estimate,
            low=low,
            high=high,
            confidence=confidence,
            method=method,
            n_resamples=n_resamples,
            seed=self.seed,
            standard_error=_spread(replicates),
            items=array.shape[0],
        )

    def paired_test(
        self,
        system_a: int,
        system_b: int,
        statistic: Statistic,
        *,
        confidence: float = DEFAULT_CONFIDENCE,
        alternative: Alternative = "two-sided",
    ) -> PairedTestResult:
        """:func:`paired_bootstrap_test` of two systems (by position).

        Raises:
            ValueError: the two systems' counts differ in shape, or a bad option.
        """
        _check_options(self.n_resamples, confidence)
        a, b = _paired(self.counts[system_a], self.counts[system_b])
        return _bootstrap_result(
            "paired bootstrap",
            float(_apply(statistic, a.sum(axis=0)[None, :])[0]),
            float(_apply(statistic, b.sum(axis=0)[None, :])[0]),
            _apply(statistic, self.sums[system_a]) - _apply(statistic, self.sums[system_b]),
            alternative=alternative,
            confidence=confidence,
            seed=self.seed,
            items=a.shape[0],
        )


# ---------------------------------------------------------------------------
# Multiple comparisons


def adjust_p_values(
    p_values: ArrayLike,
    *,
    method: str = "holm",
    differences: ArrayLike | None = None,
    nulls: Sequence[ArrayLike] | None = None,
    alternative: Alternative = "two-sided",
) -> np.ndarray:
    """P-values adjusted for multiple comparisons within one family of tests.

    Rejecting the tests whose adjusted p-value is below ``alpha`` keeps the
    family-wise error rate at ``alpha`` (``holm``, ``bonferroni``, ``maxt``) or the
    false discovery rate at ``alpha`` (``fdr_bh``). With ``m`` tests and the
    p-values sorted ``p_(1) <= ... <= p_(m)``:

    - ``bonferroni``: ``min(1, m·p)``;
    - ``holm`` (Holm 1979, step-down): ``p̃_(i) = max_{j<=i} min(1, (m-j+1)·p_(j))``,
      never less powerful than Bonferroni;
    - ``fdr_bh`` (Benjamini & Hochberg 1995, step-up):
      ``p̃_(i) = min_{j>=i} min(1, m·p_(j)/j)``;
    - ``maxt`` (Westfall & Young 1993, step-down max-T): from the observed
      ``differences`` and their joint null distributions ``nulls`` (one
      array per test, the same resamples in the same order, as
      :attr:`PairedTestResult.null` holds them), see
      :func:`maxt_adjusted_p_values`; ``p_values`` are then not used;
    - ``none``: the p-values as they are.

    Ties keep their input order, as statsmodels' ``multipletests`` does.

    Args:
        p_values: the family's p-values, shape (m,).
        method: one of :data:`CORRECTIONS`.
        differences: the observed statistics (``maxt`` only).
        nulls: their null distributions (``maxt`` only).
        alternative: the tests' alternative (``maxt`` only).

    Returns:
        The adjusted p-values in the input order, shape (m,).

    Raises:
        ValueError: an unknown method, a p-value outside [0, 1], or ``maxt``
            without differences and nulls.

    Example:
        >>> adjust_p_values([0.01, 0.04, 0.03, 0.2]).tolist()
        [0.04, 0.09, 0.09, 0.2]
        >>> adjust_p_values([0.01, 0.04, 0.03, 0.2], method="bonferroni").tolist()
        [0.04, 0.16, 0.12, 0.8]
    """
    if method not in CORRECTIONS:
        raise ValueError(f"unknown correction {method!r}; use one of {', '.join(CORRECTIONS)}")
    if method == "maxt":
        if differences is None or nulls is None:
            raise ValueError(
                "the max-T correction needs the tests' differences and null distributions"
            )
        return maxt_adjusted_p_values(differences, nulls, alternative=alternative)
    p = np.asarray(p_values, dtype=np.float64).reshape(-1)
    if p.size and (np.isnan(p).any() or p.min() < 0 or p.max() > 1):
        raise ValueError("p-values must lie in [0, 1]")
    m = p.size
    if method == "none" or m == 0:
        return p.copy()
    if method == "bonferroni":
        return np.minimum(1.0, m * p)
    order = np.argsort(p, kind="stable")
    ranked = p[order]
    if method == "holm":
        steps = np.maximum.accumulate(np.minimum(1.0, (m - np.arange(m)) * ranked))
    else:  # fdr_bh
        # p / (i / m), statsmodels' order of operations: the same rounding to the last
        # bit, subnormal p-values included (p * m / i gave 2e-323 for its 2.5e-323)
        scaled = ranked / (np.arange(1, m + 1) / m)
        steps = np.minimum(1.0, np.minimum.accumulate(scaled[::-1])[::-1])
    adjusted = np.empty(m)
    adjusted[order] = steps
    return adjusted


def maxt_adjusted_p_values(
    differences: ArrayLike,
    nulls: Sequence[ArrayLike] | np.ndarray,
    *,
    alternative: Alternative = "two-sided",
) -> np.ndarray:
    """Westfall & Young's (1993) step-down max-T adjusted p-values, from joint nulls.

    Each test ``j`` has an observed difference ``δ_j`` and a null distribution
    ``δ*_{bj}`` (``b = 1..B``), drawn jointly: resample (or shuffle) ``b`` is
    the same items for every test, so the nulls keep the dependence between
    the tests (pairs that share a system are correlated). The tests' statistics
    ``|δ|`` (two-sided; ``greater`` uses ``δ``, ``less`` ``-δ``) are put on
    one scale by their own null distributions: with the observation counted as
    one more draw (``b = 0``), ``p_{bj} = #{b': |δ*_{b'j}| >= |δ*_{bj}|} / (B +
    1)``, so that ``p_{0j}`` is test j's own p-value and the largest
    standardised statistic of a draw is its smallest ``p`` (Westfall & Young's
    minP form of max-T, for tests whose nulls differ in spread and shape). With
    the tests ordered by p-value, smallest first (``r_1, ..., r_m``), each
    draw's successive minima ``q_{b,i} = min_{k >= i} p_{b,r_k}`` give
    ``p̃_{r_i} = #{b = 0..B: q_{b,i} <= p_{0,r_i}} / (B + 1)``, made monotone
    (``p̃_{r_i} = max(p̃_{r_{i-1}}, p̃_{r_i})``; Westfall & Young 1993, Algorithm
    2.8; Ge, Dudoit & Speed 2003).

    It controls the family-wise error rate as Holm does (under subset
    pivotality), and uses the dependence Holm ignores: for correlated tests it
    rejects more. With one test it is that test's p-value, and it is never
    above Bonferroni's ``m·p`` (the union bound holds draw by draw).

    Args:
        differences: the observed differences, shape (m,).
        nulls: one null distribution per test, each of shape (B,), the same
            resamples in the same order (shape (m, B) as an array).
        alternative: ``two-sided``, ``greater`` or ``less``, as the tests'.

    Returns:
        The adjusted p-values in the input order, shape (m,).

    Raises:
        ValueError: nulls of different lengths or not one per difference.

    Example:
        >>> rng = np.random.default_rng(0)
        >>> common = rng.normal(size=999)
        >>> nulls = [common + 0.1 * rng.normal(size=999) for _ in range(3)]
        >>> maxt = maxt_adjusted_p_values([2.5, 2.5, 0.1], nulls)
        >>> raw = [(1 + np.sum(np.abs(null) >= 2.5)) / 1000 for null in nulls[:2]]
        >>> bool(maxt[0] < 3 * raw[0])  # the tests move together: less than Bonferroni
        True
    """
    observed = np.asarray(differences, dtype=np.float64).reshape(-1)
    null = np.asarray(nulls, dtype=np.float64)
    m = observed.size
    if m == 0:
        return observed.copy()
    if null.ndim != 2 or null.shape[0] != m or null.shape[1] == 0:
        raise ValueError(
            f"maxt needs one null distribution of the same length per test: {plural(m, 'test')}, "
            f"nulls of shape {null.shape}"
        )
    if not (np.isfinite(observed).all() and np.isfinite(null).all()):
        raise ValueError("differences and nulls must be finite")
    # column 0: the observation
    draws = _oriented(np.concatenate([observed[:, None], null], axis=1), alternative)
    total = draws.shape[1]
    # ranks[j, b]: how many draws of test j are at least draw b (ties within _TIE, as
    # _tail_count counts them), that is (B + 1) times p_{bj}
    ranks = np.empty(draws.shape, dtype=np.int64)
    for j in range(m):
        ordered = np.sort(draws[j])
        lower = draws[j] - _TIE * np.maximum(1.0, np.abs(draws[j]))
        ranks[j] = total - np.searchsorted(ordered, lower, side="left")
    order = np.argsort(ranks[:, 0], kind="stable")
    # successive minima from the least significant test up: q[i] = min over order[i:]
    successive = np.minimum.accumulate(ranks[order][::-1], axis=0)[::-1]
    counts = np.count_nonzero(successive <= ranks[order, 0][:, None], axis=1)
    steps = np.maximum.accumulate(counts / total)
    adjusted = np.empty(m)
    adjusted[order] = steps
    return adjusted


# ---------------------------------------------------------------------------
# Power


def minimum_detectable_effect(
    standard_error: float, *, alpha: float = DEFAULT_ALPHA, power: float = 0.8
) -> float:
    """The smallest true difference a two-sided test at ``alpha`` detects with ``power``.

    ``MDE = (z_{1-α/2} + z_power)·SE`` (the normal approximation of the
    difference's sampling distribution, e.g. Bloom 1995): a true difference
    this large is found significant in a share ``power`` of the test sets
    like this one; smaller ones are mostly missed. ``SE`` is the standard
    error of the observed difference, e.g. :attr:`PairedTestResult.standard_error`
    (the standard deviation of the paired bootstrap's or the shuffles' null).

    Example:
        >>> round(minimum_detectable_effect(0.001), 6)  # 0.28 points of F at SE 0.1 points
        0.002802
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha!r}")
    if not 0 < power < 1:
        raise ValueError(f"power must be between 0 and 1, got {power!r}")
    normal = NormalDist()
    return float((normal.inv_cdf(1 - alpha / 2) + normal.inv_cdf(power)) * standard_error)
