"""Regression testing a tokenizer: diff two segmentations, gate on a baseline.

docs/ARCHITECTURE.md names each module's job; the pytest plugin (:mod:`cws_bench.testing`)
runs the same functions.

>>> from cws_bench.regression import diff_segmentations
>>> diff_segmentations([["研究", "人员"]], [["研究人员"]]).kinds["merge"]["changes"]
1
"""

from __future__ import annotations

from cws_bench.regression.baseline import Baseline, Bounds, CorpusRecord, SegmenterConfig, Speed
from cws_bench.regression.baseline_file import load_baseline, save_baseline
from cws_bench.regression.changes import Change, ChangePattern, LineDiff, TextDifference
from cws_bench.regression.check import BoundCheck, CheckResult, ExperimentChange, check_baseline
from cws_bench.regression.diff import (
    SegmentationDiff,
    diff_files,
    diff_segmentations,
    diff_tokenizers,
)
from cws_bench.regression.gold import GoldComparison
from cws_bench.regression.recording import measure_speed, record_baseline, rerun_baseline
from cws_bench.regression.tokens import TokenDiff, load_token_ids, save_token_ids

__all__ = [
    "Baseline",
    "BoundCheck",
    "Bounds",
    "Change",
    "ChangePattern",
    "CheckResult",
    "CorpusRecord",
    "ExperimentChange",
    "GoldComparison",
    "LineDiff",
    "SegmentationDiff",
    "SegmenterConfig",
    "Speed",
    "TextDifference",
    "TokenDiff",
    "check_baseline",
    "diff_files",
    "diff_segmentations",
    "diff_tokenizers",
    "load_baseline",
    "load_token_ids",
    "measure_speed",
    "record_baseline",
    "rerun_baseline",
    "save_baseline",
    "save_token_ids",
]
