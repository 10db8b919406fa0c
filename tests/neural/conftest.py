"""The neural adapter tests: skipped without their libraries, failed instead in CI.

``make neural`` installs the neural extras (torch CPU, transformers, spaCy,
LTP, HanLP, stanza, jiagu, jieba-fast) and ``.ci/run`` runs the suite with
``CWS_BENCH_REQUIRE_NEURAL=1``: then a test here that would skip (a library
missing) fails, so CI cannot pass without running them. No model hub is
reached: HF_HUB_OFFLINE is set for every test here.
"""

from __future__ import annotations

import os

import pytest

REQUIRED = os.environ.get("CWS_BENCH_REQUIRE_NEURAL") == "1"

# Before transformers and huggingface_hub are imported: they read these once.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"


def _fail_skips(report: pytest.CollectReport | pytest.TestReport) -> None:
    if not (REQUIRED and report.skipped) or hasattr(report, "wasxfail"):
        return
    reason = report.longrepr[-1] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    if "not installed" in reason:  # only a missing library: absent corpora still skip
        report.outcome = "failed"
        report.longrepr = f"CWS_BENCH_REQUIRE_NEURAL=1, yet this skipped: {reason}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    outcome = yield
    _fail_skips(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector):  # type: ignore[no-untyped-def]
    outcome = yield
    _fail_skips(outcome.get_result())
