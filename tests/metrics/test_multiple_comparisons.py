"""Tests of ``adjust_p_values`` (metrics/significance.py): by hand and against statsmodels."""

from __future__ import annotations

import gc
from unittest import mock

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from cws_bench.metrics.significance import CORRECTIONS, adjust_p_values


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
    st.sampled_from([m for m in CORRECTIONS if m != "none"]),
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
