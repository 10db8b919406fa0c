"""One confidence level and one alpha when not told (issue 41, item 4)."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

from cws_bench.metrics import calibration, significance
from cws_bench.metrics.defaults import DEFAULT_ALPHA, DEFAULT_CONFIDENCE
from cws_bench.reports.tables import confidence_label
from cws_bench.run import comparison
from cws_bench.run.audit import AuditSettings

PACKAGE = Path(__file__).resolve().parent.parent / "cws_bench"


def test_every_confidence_parameter_defaults_to_the_one_level() -> None:
    defaults = []
    for module in (significance, calibration, comparison):
        for _, function in inspect.getmembers(module, inspect.isfunction):
            parameter = inspect.signature(function).parameters.get("confidence")
            if parameter is not None and isinstance(parameter.default, float):
                defaults.append(parameter.default)
    assert len(defaults) >= 4
    assert set(defaults) == {DEFAULT_CONFIDENCE} == {0.95}
    assert AuditSettings().confidence == 0.95
    assert comparison.ComparisonReport("g", "interval", ()).confidence == 0.95
    assert confidence_label({}) == "95%"


def test_no_module_types_the_level_or_alpha_as_a_literal_default() -> None:
    literal = re.compile(r"(confidence|alpha)\s*(:\s*float\s*)?=\s*0\.(95|05)\b|\"95%\"")
    found = sorted(
        f"{path.relative_to(PACKAGE)}:{number}"
        for path in PACKAGE.rglob("*.py")
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if literal.search(line) and not line.lstrip().startswith(("#", ">>>"))
    )
    # run/config.py's module docstring shows a bake-off TOML with its default values
    assert [f for f in found if not f.startswith("run/config.py")] == []
    assert DEFAULT_ALPHA == 0.05
