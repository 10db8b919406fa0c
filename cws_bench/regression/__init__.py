"""Regression testing a tokenizer: diff two segmentations, gate on a baseline.

- :mod:`~cws_bench.regression.diff`: what changed between two segmentations
  of the same text (kinds and patterns of change; with a gold standard, what
  each change did, and ΔP/ΔR/ΔF1 with a paired bootstrap test).
- :mod:`~cws_bench.regression.baseline`: a segmenter configuration's scores,
  speed and signature on some corpora; :mod:`~cws_bench.regression.recording`
  records and reruns it, :mod:`~cws_bench.regression.baseline_file` saves it to
  and loads it from JSON.
- :mod:`~cws_bench.regression.check`: a rerun compared with its baseline,
  bound by bound, and what changed in the experiment.
- :mod:`~cws_bench.regression.render` and :mod:`~cws_bench.regression.junit`:
  text, JSON, HTML and JUnit XML renderings.

The pytest plugin (:mod:`cws_bench.testing`) runs the same functions.

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
