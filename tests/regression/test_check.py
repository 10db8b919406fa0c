"""Tests of cws_bench/regression/check.py and junit.py: bounds, changed experiments, reports."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import replace

import pytest

from cws_bench.errors import CwsBenchError
from cws_bench.metrics.defaults import DEFAULT_SEED
from cws_bench.metrics.significance import fscore_statistic, paired_bootstrap_test
from cws_bench.regression.baseline import Bounds, Speed
from cws_bench.regression.check import check_baseline
from cws_bench.regression.junit import render_junit
from cws_bench.regression.recording import rerun_baseline
from cws_bench.regression.render import render_check_json, render_check_text


def with_speed(baseline, chars_per_s):
    """The baseline with a recorded speed (tests never time anything)."""
    speed = Speed(chars_per_s, (chars_per_s,), characters=14, passes=1)
    return replace(baseline, records=tuple(replace(r, speed=speed) for r in baseline.records))


def test_unchanged_rerun_passes(experiment):
    baseline = experiment.record()
    result = check_baseline(baseline, rerun_baseline(baseline), Bounds({"f1": 0.0}))
    assert result.passed and not result.failures and result.changes == ()
    (check,) = result.checks
    assert (check.corpus, check.metric, check.status) == ("gold", "f1", "ok")
    assert check.old == check.new == check.allowed == 1.0
    assert result.diffs == {}


def test_a_drop_beyond_the_bound_fails_with_old_new_and_allowed(experiment):
    baseline = experiment.record()
    experiment.add_word()
    current = rerun_baseline(baseline)
    result = check_baseline(baseline, current, Bounds({"f1": 0.5, "recall": 30.0}))
    f1, recall = result.checks
    assert (f1.status, f1.old, f1.new, f1.allowed, f1.bound) == ("failed", 1.0, 10 / 13, 0.995, 0.5)
    assert f1.message.startswith(
        "F1 dropped 100.00 → 76.92 (-23.08 points); allowed drop 0.5 points: at least 99.50"
    )
    assert (recall.status, recall.new, recall.allowed) == ("ok", 5 / 7, 0.7)
    assert not result.passed and result.failures == (f1,)
    # The p-value is the paired bootstrap test of the rows, new against old, with the
    # one default seed the baseline recorded.
    assert baseline.settings["seed"] == DEFAULT_SEED
    expected = paired_bootstrap_test(
        [(2, 3, 4), (3, 3, 3)], [(4, 4, 4), (3, 3, 3)], fscore_statistic(), seed=DEFAULT_SEED
    )
    assert f1.p_value == expected.p_value
    # The bound holds when it is loose enough.
    assert check_baseline(baseline, current, Bounds({"f1": 23.1})).passed


def test_what_changed_in_the_output_and_the_experiment(experiment):
    baseline = experiment.record()
    experiment.add_word()
    result = check_baseline(baseline, rerun_baseline(baseline))
    (change,) = result.changes
    assert change.what == "option" and change.corpus is None
    assert change.message.startswith("option lexicon: words.txt changed since the baseline")
    assert result.changed_experiment
    diff = result.diffs["gold"]
    (pattern,) = diff.patterns
    assert (pattern.kind, pattern.a, pattern.b, pattern.broke) == (
        "merge",
        ("研究", "人员"),
        ("研究人员",),
        1,
    )
    assert diff.gold.correct_change == -2


def test_changed_gold_and_version_are_named(experiment):
    baseline = experiment.record()
    experiment.gold.write_text("研究 人员 发现 问题\n今天 上午 下 雨\n", encoding="utf-8")
    current = rerun_baseline(baseline)
    current = replace(current, segmenter=replace(current.segmenter, version="9.9"))
    result = check_baseline(baseline, current, Bounds({"f1": 100.0}))
    kinds = {change.what: change for change in result.changes}
    assert set(kinds) == {"corpus", "segmenter version"}
    assert not kinds["corpus"].comparable
    assert "the gold data changed" in kinds["corpus"].message
    assert kinds["segmenter version"].message.startswith(
        "segmenter fmm version changed 0.1.0 → 9.9"
    )
    # The bounds hold, so the check passes unless a changed experiment is a failure.
    assert result.passed
    strict = check_baseline(baseline, current, Bounds({"f1": 100.0}), fail_on_change=True)
    assert not strict.passed and not strict.failures
    # Different sentences: no paired test, and no diff against the gold.
    assert result.checks[0].p_value is None


def test_speed_bound_on_recorded_speeds(experiment):
    baseline = with_speed(experiment.record(), 1000.0)
    current = with_speed(rerun_baseline(baseline), 650.0)
    failed = check_baseline(baseline, current, Bounds({"f1": 0.0}, speed=30))
    speed = failed.checks[-1]
    assert (speed.metric, speed.status, speed.old, speed.new, speed.allowed) == (
        "speed",
        "failed",
        1000.0,
        650.0,
        700.0,
    )
    assert speed.message == (
        "speed 1,000 → 650 characters/s (-35.0%, median of 1 run); allowed drop 30%: at least 700"
    )
    assert check_baseline(baseline, current, Bounds({"f1": 0.0}, speed=40)).passed
    assert len(check_baseline(baseline, current, Bounds()).checks) == 1  # speed not checked


def test_oov_recall_without_a_dictionary_cannot_pass(experiment):
    # A bound that cannot be checked fails closed: an error, not a pass.
    baseline = experiment.record()
    with pytest.raises(CwsBenchError, match=r"1 bound cannot be checked.*no OOV dictionary"):
        check_baseline(baseline, rerun_baseline(baseline), Bounds({"oov_recall": 1.0}))


def test_a_different_machine_is_a_note_not_a_changed_experiment(experiment):
    baseline = experiment.record()
    current = rerun_baseline(baseline)
    current = replace(current, environment={**current.environment, "cpus": 512})
    result = check_baseline(baseline, current, fail_on_change=True)
    assert [change.what for change in result.changes] == ["machine"]
    assert result.passed and not result.changed_experiment


def test_text_and_json_reports(experiment):
    baseline = experiment.record()
    experiment.add_word()
    result = check_baseline(baseline, rerun_baseline(baseline), Bounds({"f1": 0.5}))
    text = render_check_text(result, baseline="b.json", accept="cws-bench baseline update b.json")
    lines = text.splitlines()
    assert lines[0] == "cws-bench check: fmm against b.json: FAILED (1 of 1 bound broken)"
    assert lines[1].startswith("  FAIL  gold  F1 dropped 100.00 → 76.92")
    assert "changed since the baseline (a changed experiment, not only a regression):" in lines
    assert "what changed on gold (baseline → now): 1 of 2 lines, 1 change" in text
    assert lines[-1] == "to accept the change as the new baseline: cws-bench baseline update b.json"
    data = json.loads(render_check_json(result))
    assert data["passed"] is False and data["failures"] == 1
    assert data["checks"][0]["allowed"] == 0.995 and data["checks"][0]["unit"] == "points"
    assert data["changes"][0]["what"] == "option"
    assert data["diffs"]["gold"]["outcomes"] == {"fixed": 0, "broke": 1, "neither": 0}


def test_junit_xml(experiment):
    baseline = with_speed(experiment.record(), 1000.0)
    experiment.add_word()
    current = with_speed(rerun_baseline(baseline), 990.0)
    bounds = Bounds({"f1": 0.5}, speed=5)
    result = check_baseline(baseline, current, bounds, fail_on_change=True)
    root = ET.fromstring(render_junit(result, baseline="b.json"))
    assert root.tag == "testsuites"
    assert (root.get("tests"), root.get("failures"), root.get("skipped")) == ("3", "2", "0")
    (suite,) = root.findall("testsuite")
    assert suite.get("name") == "fmm on gold"
    cases = {case.get("name"): case for case in suite.findall("testcase")}
    assert list(cases) == ["f1", "speed", "experiment unchanged"]
    assert {case.get("classname") for case in cases.values()} == {"cws-bench.fmm.gold"}
    failure = cases["f1"].find("failure")
    assert failure.get("message").startswith("F1 dropped 100.00 → 76.92")
    assert cases["speed"].find("failure") is None
    assert "words.txt changed" in cases["experiment unchanged"].find("failure").get("message")
    properties = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert properties["baseline"] == "b.json" and "changed: option" in properties
    assert "changed since the baseline" in suite.find("system-out").text


@pytest.mark.parametrize("fail_on_change", [False, True])
def test_junit_counts_match_the_result(experiment, fail_on_change):
    baseline = experiment.record()
    result = check_baseline(baseline, rerun_baseline(baseline), fail_on_change=fail_on_change)
    root = ET.fromstring(render_junit(result))
    assert root.get("failures") == "0"
    assert int(root.get("tests")) == len(result.checks) + fail_on_change


def test_bounds_from_limits_is_what_check_and_the_plugin_share():
    from cws_bench.regression.baseline import Bounds

    stored = Bounds({"f1": 1.0, "recall": 2.0}, speed=40)
    # Flags win over --max-drop for the same score; None keeps the stored bound.
    bounds = Bounds.from_limits(
        max_f1_drop=0.5, max_drop={"f1": 3.0, "precision": 1.5}, base=stored
    )
    assert dict(bounds.drops) == {"f1": 0.5, "recall": 2.0, "precision": 1.5}
    assert bounds.speed == 40
    assert Bounds.from_limits() == Bounds()
    assert Bounds.from_limits(max_oov_recall_drop=1, max_speed_drop=10).drops == {
        "f1": 0.0,
        "oov_recall": 1,
    }
