"""The tests' unsharded reference: one pair segmented and scored whole, in this process.

The bake-off's runner segments in shards (:func:`cws_bench.run.tasks.segment_shard`) and
scores each pair with :func:`cws_bench.run.pair.finish_pair`; this runs the same pair in
one piece through the same ``finish_pair``, so the tests can ask that the numbers agree.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cws_bench.run.config import CorpusSpec, SegmenterSpec
from cws_bench.run.pair import PairInput, PairRecord, finish_pair
from cws_bench.run.plan import corpus_dictionary, gold_and_raw
from cws_bench.run.tasks import build_segmenter, leak_inputs, segmenter_facts
from cws_bench.segmenters.stream import SegmentRun
from cws_bench.system.memory import peak_memory_mib


@dataclass(frozen=True)
class PairTask:
    """One pair: its corpus, segmenter, options, cache key, batch size and data folder."""

    corpus: CorpusSpec
    segmenter: SegmenterSpec
    options: dict[str, Any]
    key: str
    batch_size: int
    data_dir: str | None


def run_pair(task: PairTask, report: Callable[[int], None] | None = None) -> PairRecord:
    """Run one segmenter on one corpus and score it, whole, in this process; ``report`` is
    called with the characters of each batch segmented."""
    corpus = task.corpus
    gold, raw = gold_and_raw(corpus, task.data_dir)
    dictionary = corpus_dictionary(corpus, task.data_dir)
    started = time.perf_counter()
    segmenter = build_segmenter(task.segmenter.name, task.options)
    load_s = time.perf_counter() - started
    run = SegmentRun(
        segmenter,
        raw,
        batch_size=task.batch_size,
        convert=corpus.convert,
        progress=None if report is None else (lambda lines, characters: report(characters)),
    )
    pred = list(run)
    facts = segmenter_facts(segmenter, task.segmenter.track, leak_inputs(gold, dictionary))
    return finish_pair(
        PairInput(corpus, gold, raw, dictionary, task.data_dir),
        pred,
        facts,
        timing={"load_s": load_s, "segment_s": run.seconds},
        peak_memory_mib=peak_memory_mib(),
        diagnostics=run.diagnostics,
    )
