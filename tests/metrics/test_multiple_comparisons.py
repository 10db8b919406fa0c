"""Tests of ``adjust_p_values`` (metrics/significance.py): by hand and against statsmodels."""

from __future__ import annotations

import gc
from unittest import mock

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from cws_bench.metrics.significance import (
    CORRECTIONS,
    SharedResamples,
    adjust_p_values,
    fscore_statistic,
    maxt_adjusted_p_values,
)


def test_holm_by_hand() -> None:
    # sorted: 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06, 0.04·1 = 0.04 -> max so far 0.06
    adjusted = adjust_p_values([0.01, 0.04, 0.03, 0.005], method="holm")
    assert adjusted.tolist() == pytest.approx([0.03, 0.06, 0.06, 0.02])


def test_bonferroni_and_bh_by_hand() -> None:
    p = [0.01, 0.04, 0.03, 0.005]
    assert adjust_p_values(p, method="bonferroni").tolist() == pytest.approx(
        [0.04, 0.16, 0.12, 0.02]
    )
    # BH: sorted 0.005·4/1 = 0.02, 0.01·4/2 = 0.02, 0.03·4/3 = 0.04, 0.04·4/4 = 0.04
    assert adjust_p_values(p, method="fdr_bh").tolist() == pytest.approx([0.02, 0.04, 0.04, 0.02])
    assert adjust_p_values(p, method="none").tolist() == p


def test_holm_caps_at_one_and_keeps_order() -> None:
    assert adjust_p_values([0.6, 0.5, 0.9]).tolist() == [1.0, 1.0, 1.0]
    assert adjust_p_values([]).tolist() == []
    assert adjust_p_values([0.03]).tolist() == [0.03]


def test_holm_turns_a_borderline_win_into_a_tie() -> None:
    """28 tests (8 segmenters): p = 0.01 wins alone, not among 28 with Holm."""
    p = np.full(28, 0.5)
    p[0] = 0.01
    assert adjust_p_values(p, method="none")[0] < 0.05
    assert adjust_p_values(p, method="holm")[0] == pytest.approx(0.28)


@pytest.mark.parametrize("method", ["banana", "Holm"])
def test_unknown_method(method: str) -> None:
    with pytest.raises(ValueError, match="unknown correction"):
        adjust_p_values([0.1], method=method)


@pytest.mark.parametrize("p", [[-0.1], [1.5], [float("nan")]])
def test_p_values_outside_the_unit_interval(p: list[float]) -> None:
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        adjust_p_values(p)


@settings(deadline=None, max_examples=200)
# a subnormal p-value: p * m / i rounded otherwise than statsmodels' p / (i / m)
@example(p=[0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 5e-324], method="fdr_bh")
@given(
    st.lists(
        st.one_of(st.floats(0, 1), st.sampled_from([0.0, 0.01, 0.05, 1.0])),
        min_size=1,
        max_size=40,
    ),
    st.sampled_from([m for m in CORRECTIONS if m not in ("none", "maxt")]),
)
def test_equal_to_statsmodels(p: list[float], method: str) -> None:
    multitest = pytest.importorskip(
        "statsmodels.stats.multitest", reason="statsmodels (the test extra) is the oracle"
    )
    # statsmodels' holm branch ends with gc.collect(), which over a test process's heap
    # (torch and the rest imported) costs about 0.4 s a call: not part of the oracle.
    with mock.patch.object(gc, "collect"):
        expected = multitest.multipletests(p, method=method)[1]
    np.testing.assert_allclose(adjust_p_values(p, method=method), expected, rtol=1e-12, atol=0)


# ---------------------------------------------------------------------------
# Westfall & Young's step-down max-T


def reference_maxt(differences, nulls):
    """Westfall & Young's step-down max-T on the tests' own null scales (their minP form),
    written out one loop at a time (two-sided)."""
    m, resamples = len(differences), len(nulls[0])
    draws = [[abs(d), *(abs(v) for v in null)] for d, null in zip(differences, nulls)]

    def p(j, b):  # p-value of draw b of test j among its B + 1 draws (b = 0: observed)
        x = draws[j][b]
        return sum(v >= x - 1e-12 * max(1.0, x) for v in draws[j]) / (resamples + 1)

    raw = [p(j, 0) for j in range(m)]
    order = sorted(range(m), key=lambda j: raw[j])  # most significant first, ties in order
    adjusted = [0.0] * m
    previous = 0.0
    for step, j in enumerate(order):
        rest = order[step:]  # the hypotheses not yet rejected
        hits = sum(min(p(k, b) for k in rest) <= raw[j] + 1e-15 for b in range(resamples + 1))
        previous = max(previous, hits / (resamples + 1))
        adjusted[j] = previous
    return adjusted


def family_of_pairs(seed: int, systems: int = 4, n: int = 120):
    """The paired bootstrap tests of every two of ``systems`` systems on shared resamples."""
    rng = np.random.default_rng(seed)
    gold = rng.integers(5, 30, n)
    difficulty = rng.beta(8, 2, n)
    skills = rng.uniform(0.9, 1.0, systems)
    counts = [np.stack([rng.binomial(gold, difficulty * s), gold, gold], axis=1) for s in skills]
    shared = SharedResamples(counts, n_resamples=150, seed=seed)
    f1 = fscore_statistic()
    return [shared.paired_test(i, j, f1) for i in range(systems) for j in range(i + 1, systems)]


@settings(deadline=None, max_examples=15)
@given(st.integers(0, 2**32 - 1))
def test_maxt_equals_a_reference_loop_and_stays_under_bonferroni(seed: int) -> None:
    tests = family_of_pairs(seed)
    differences = [t.difference for t in tests]
    nulls = [t.null for t in tests]
    got = adjust_p_values(
        [t.p_value for t in tests], method="maxt", differences=differences, nulls=nulls
    )
    np.testing.assert_allclose(got, reference_maxt(differences, nulls), rtol=0, atol=1e-15)
    raw = np.array([t.p_value for t in tests])
    assert (got <= adjust_p_values(raw, method="bonferroni") + 1e-12).all()
    assert (got >= raw - 1e-12).all()  # a family never makes a test more significant


def test_maxt_of_one_test_is_its_p_value() -> None:
    (test,) = family_of_pairs(3, systems=2)
    (adjusted,) = maxt_adjusted_p_values([test.difference], [test.null])
    assert adjusted == test.p_value


def test_maxt_uses_the_dependence_between_tests() -> None:
    """Three copies of nearly one test: Holm divides by three, max-T hardly at all."""
    rng = np.random.default_rng(0)
    common = rng.normal(size=1999)
    nulls = [common + 0.01 * rng.normal(size=1999) for _ in range(3)]
    differences = [2.2, 2.2, 2.2]
    raw = [(1 + np.sum(np.abs(null) >= 2.2)) / 2000 for null in nulls]
    maxt = maxt_adjusted_p_values(differences, nulls)
    holm = adjust_p_values(raw, method="holm")
    assert max(raw) < 0.05 < min(holm)
    assert (maxt < 0.05).all()


def test_maxt_needs_the_nulls() -> None:
    with pytest.raises(ValueError, match="null distributions"):
        adjust_p_values([0.01, 0.2], method="maxt")
    with pytest.raises(ValueError, match="one null distribution"):
        maxt_adjusted_p_values([0.1, 0.2], [np.zeros(10)])
