"""cws_bench/regression/ holds modules of one purpose each (issue 41): no module is cut
into sections by banner comments, and each of the former rooms has a module of its own."""

from __future__ import annotations

import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "cws_bench" / "regression"
BANNER = re.compile(r"^# -{20,}$", re.M)


def test_no_regression_module_has_banners():
    banners = {p.name: len(BANNER.findall(p.read_text("utf-8"))) for p in PACKAGE.glob("*.py")}
    assert {name: n for name, n in banners.items() if n} == {}


def test_each_purpose_has_its_module():
    from cws_bench.regression import (
        baseline,
        baseline_file,
        changes,
        diff,
        gold,
        line_diff,
        recording,
    )

    assert hasattr(baseline, "Baseline") and not hasattr(baseline, "record_baseline")
    assert hasattr(recording, "record_baseline") and hasattr(recording, "measure_speed")
    assert hasattr(baseline_file, "load_baseline") and hasattr(baseline_file, "save_baseline")
    assert hasattr(changes, "LineChanges") and hasattr(line_diff, "same_text_line")
    assert hasattr(diff, "diff_files") and "Change" not in diff.__all__
    assert hasattr(gold, "GoldComparison") and not hasattr(diff, "TESTED_METRICS")
