"""Segmentation counts and scores: P/R/F, OOV and IV recall, boundaries, error kinds.

Data flows one way: sentences -> :class:`SegCounts` (integers that add up over
sentences, files and shards) -> scores, computed from the summed counts. A
predicted word is correct iff its ``[start, end)`` character interval is a gold
word's (the CWS literature's standard); empty gold lines are skipped, as the
SIGHAN bakeoff scorer does. One job a module (docs/ARCHITECTURE.md has the map).

The worked example of the literature:

>>> gold = "结婚 的 和 尚未 结婚 的 都 应该 好好 考虑 一下 人生 大事".split()
>>> pred = "结婚 的 和尚 未结婚 的 都 应该 好好考虑 一下 人生大事".split()
>>> words = {"结婚", "尚未", "的", "和", "青年", "都", "应该", "好好考虑", "自己", "人生", "大事"}
>>> r = score_sentences([gold], [pred], dictionary=words)
>>> [round(100 * x, 2) for x in (r.precision, r.recall, r.f1, r.oov_recall, r.iv_recall)]
[60.0, 46.15, 52.17, 33.33, 50.0]
"""

from cws_bench.defaults import STANDARD_DICTIONARY
from cws_bench.scoring.api import METHODS, Method, score_files, score_sentences
from cws_bench.scoring.counts import COUNT_FIELDS, SegCounts, count_sentence
from cws_bench.scoring.engine import MAX_EXAMPLES, file_sentence_checksum
from cws_bench.scoring.inputs import (
    GOLD_FORMATS,
    check_plain,
    gold_corpus,
    read_gold,
    scoring_dictionary,
)
from cws_bench.scoring.result import RESULT_FORMATS, LineMismatch, ScoreResult, write_details
from cws_bench.scoring.scores import SegScores, score_counts

__all__ = [
    "COUNT_FIELDS",
    "GOLD_FORMATS",
    "MAX_EXAMPLES",
    "METHODS",
    "RESULT_FORMATS",
    "STANDARD_DICTIONARY",
    "LineMismatch",
    "Method",
    "ScoreResult",
    "SegCounts",
    "SegScores",
    "check_plain",
    "count_sentence",
    "file_sentence_checksum",
    "gold_corpus",
    "read_gold",
    "score_counts",
    "score_files",
    "score_sentences",
    "scoring_dictionary",
    "write_details",
]
