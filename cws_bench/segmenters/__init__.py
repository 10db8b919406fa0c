"""Segmenters: one protocol for every segmenter, built in or third party, and a registry.

>>> from cws_bench.segmenters import get_segmenter
>>> fmm = get_segmenter("fmm", words=["结婚", "和尚", "尚未"])
>>> fmm.segment(["结婚的和尚未结婚的"])
[['结婚', '的', '和尚', '未', '结婚', '的']]
>>> fmm.kind, fmm.options
('dictionary', {'direction': 'forward', 'words': ['结婚', '和尚', '尚未'], 'keep_runs': True})

:mod:`~cws_bench.segmenters.base` holds the protocol and the lossless-join
check; :mod:`~cws_bench.segmenters.registry` the name -> adapter table and
the ``cws_bench.segmenters`` entry points; one module per adapter holds the
rest (``maxmatch``, ``hmm``, ``jieba``, ``rjieba``, ``pkuseg``, ``thulac``,
``snownlp``, ``external``), imported only when asked for.
"""

from __future__ import annotations

from cws_bench.segmenters.base import (
    KINDS,
    Segmenter,
    SegmenterOutputError,
    TrainingData,
    check_segmentation,
    option,
)
from cws_bench.segmenters.registry import (
    ENTRY_POINT_GROUP,
    SEGMENTERS,
    SegmenterInfo,
    check_segmenter_options,
    get_segmenter,
    list_segmenters,
    segmenter_names,
)
from cws_bench.segmenters.stream import SegmentStats, segment_file, segment_lines

__all__ = [
    "ENTRY_POINT_GROUP",
    "KINDS",
    "SEGMENTERS",
    "SegmentStats",
    "Segmenter",
    "SegmenterInfo",
    "SegmenterOutputError",
    "TrainingData",
    "check_segmentation",
    "check_segmenter_options",
    "get_segmenter",
    "list_segmenters",
    "option",
    "segment_file",
    "segment_lines",
    "segmenter_names",
]
