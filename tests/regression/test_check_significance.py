"""``check --max-p``: a score below its bound fails only when the drop is significant.

The baseline stores every corpus' per-sentence (correct, predicted, gold) counts, so
the test is the paired bootstrap test of the rerun against the baseline over the same
sentences (the p-value ``check`` already prints)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from cws_bench.cli import cli
from cws_bench.errors import CwsBenchError
from cws_bench.metrics.significance import fscore_statistic, paired_bootstrap_test
from cws_bench.regression.baseline import (
    Baseline,
    Bounds,
    CorpusRecord,
    RecordIdentity,
    SegmenterConfig,
    Speed,
)
from cws_bench.regression.baseline_file import load_baseline
from cws_bench.regression.check import check_baseline
from cws_bench.regression.recording import rerun_baseline
from cws_bench.run.config import CorpusSpec
from cws_bench.run.pair import SegmenterMetadata


def baseline_of(rows: np.ndarray, checksum: str = "c0ffee") -> Baseline:
    """A baseline of one corpus whose per-sentence counts are ``rows``."""
    total = rows.sum(axis=0)
    f1 = 2 * total[0] / (total[1] + total[2])
    record = CorpusRecord(
        CorpusSpec("demo", name="demo"),
        {"f1": float(f1)},
        Speed(1000.0, (1000.0,), characters=10, passes=1),
        SegmenterMetadata("demo", "1", None, None, None, {}),
        RecordIdentity(checksum, None, "key", "sig"),
        tuple(tuple(int(v) for v in row) for row in rows),
    )
    return Baseline(SegmenterConfig("demo"), (record,))


def systems(gap: float, n: int = 400, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A baseline's counts and a rerun's on the same sentences, the rerun ``gap`` worse."""
    rng = np.random.default_rng(seed)
    gold = rng.integers(5, 40, n)
    before = rng.binomial(gold, 0.95)
    after = np.minimum(before, rng.binomial(gold, 1 - gap))  # loses words, never gains
    return np.stack([before, gold, gold], axis=1), np.stack([after, gold, gold], axis=1)


def test_a_significant_drop_fails_and_a_chance_one_passes():
    old, new = systems(gap=0.002)  # a few words lost over 400 sentences
    tests = paired_bootstrap_test(new, old, fscore_statistic())
    bounds = Bounds({"f1": 0.0}, max_p=0.05)
    big_old, big_new = systems(gap=0.03)
    strict = check_baseline(baseline_of(big_old), baseline_of(big_new), bounds)
    (check,) = strict.checks
    assert check.status == "failed" and check.p_value < 0.05
    assert "significant (p < 0.05)" in check.message and not strict.passed
    small = check_baseline(baseline_of(old), baseline_of(new), bounds)
    (check,) = small.checks
    assert check.new < check.old  # it did drop ...
    assert check.p_value == tests.p_value >= 0.05  # ... by chance
    assert check.status == "ok" and small.passed
    assert check.message.endswith("not significant (p >= 0.05): passes")
    # without max_p the same drop fails, as before
    assert not check_baseline(baseline_of(old), baseline_of(new), Bounds({"f1": 0.0})).passed


def test_without_a_paired_test_the_bound_applies_alone():
    old, new = systems(gap=0.002)
    other = baseline_of(new, checksum="another gold")  # different sentences: no test
    result = check_baseline(baseline_of(old), other, Bounds({"f1": 0.0}, max_p=0.05))
    check = next(c for c in result.checks if c.metric == "f1")
    assert check.p_value is None and check.status == "failed"
    assert "no paired test" in check.message


def test_max_p_is_stored_with_the_bounds_and_checked():
    bounds = Bounds.from_limits(max_f1_drop=0.5, max_p=0.01)
    assert bounds.max_p == 0.01
    assert Bounds.from_dict(bounds.to_dict()) == bounds
    assert "max_p" not in Bounds().to_dict()  # older baselines' files stay as they were
    assert Bounds.from_limits(base=bounds).max_p == 0.01
    for bad in (0, 1, 1.5, -0.1):
        with pytest.raises(CwsBenchError, match="max_p must be"):
            Bounds({"f1": 0.0}, max_p=bad)


def test_check_and_baseline_take_max_p(experiment, tmp_path):
    path = tmp_path / "baseline.json"
    saved = CliRunner().invoke(
        cli,
        [
            "baseline", "save", "-s", "fmm", "-O", f"lexicon={experiment.words}",
            "--corpus", str(experiment.gold), "-o", str(path), "--speed-runs", "1",
            "--max-p", "0.05",
        ],
    )  # fmt: skip
    assert saved.exit_code == 0, saved.output
    assert json.loads(path.read_text("utf-8"))["bounds"]["max_p"] == 0.05
    experiment.add_word()  # F1 100 -> 76.92 on two sentences: a drop, but not significant
    current = rerun_baseline(load_baseline(path))
    assert current.records[0].scores["f1"] < 1
    passed = CliRunner().invoke(cli, ["check", "--baseline", str(path)])
    assert passed.exit_code == 0, passed.output
    assert "not significant (p >= 0.05): passes" in passed.output
    failed = CliRunner().invoke(cli, ["check", "--baseline", str(path), "--max-p", "0.99"])
    assert failed.exit_code == 1, failed.output
    refused = CliRunner().invoke(cli, ["check", "--baseline", str(path), "--max-p", "0"])
    assert refused.exit_code == 2 and "--max-p" in refused.output
