"""cws-bench: a Chinese word segmentation benchmark suite.

The public API is imported lazily, so ``import cws_bench`` stays cheap:

>>> import cws_bench
>>> cws_bench.score_sentences([["结婚", "的"]], [["结婚", "的"]]).f1
1.0
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# public name -> module that defines it
_EXPORTS = {
    "CwsBenchError": "cws_bench.errors",
    "Dictionary": "cws_bench.text.dictionary",
    "load_dictionary": "cws_bench.text.dictionary",
    "resolve_dictionary": "cws_bench.corpora.words",
    "SegCounts": "cws_bench.scoring",
    "ScoreResult": "cws_bench.scoring",
    "score_files": "cws_bench.scoring",
    "score_sentences": "cws_bench.scoring",
    "STANDARD_DICTIONARY": "cws_bench.defaults",
    "compare": "cws_bench.run.comparison",
    "ComparisonReport": "cws_bench.run.comparison",
    "SegmentationMetric": "cws_bench.scoring.streaming",
    "analyse_errors": "cws_bench.analysis.patterns",
    "get_corpus": "cws_bench.corpora",
    "read_corpus": "cws_bench.corpora",
    "get_normalizer": "cws_bench.text.normalize",
    "get_segmenter": "cws_bench.segmenters",
    "list_segmenters": "cws_bench.segmenters",
    "BakeoffResult": "cws_bench.results.model",
    "load_config": "cws_bench.run.config",
    "run_bakeoff": "cws_bench.run.bakeoff",
}

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'cws_bench' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return sorted(__all__)
