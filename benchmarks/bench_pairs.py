"""What the bake-off's driver process spends on each pair: scoring, statistics, the cache.

While the workers segment, the driver scores each finished pair
(:func:`cws_bench.run.pair.finish_pair`: scores, error analysis, bucket
analysis), writes each finished shard to the run cache
(:meth:`cws_bench.run.cache.RunCache.put_shard`), and after the last pair
computes the bootstrap intervals and paired tests (``bakeoff._statistics``).
On 2 cores that CPU competes with the two workers, and the statistics are a
serial tail. Each is timed here against the code it replaced, in the same
run, interleaved, in CPU seconds (``time.process_time``), on the default
bake-off's corpus, pd1998:test (183,131 characters), segmented by the
closed-track maximum matchers and HMM trained on pd1998:train and by jieba:

- ``finish_pair`` against ``finish_pair`` with the sentence-by-sentence
  error analysis and word-by-word bucket count it used before (the oracles of
  tests/test_pair_analysis.py), per pair;
- ``_statistics`` against one bootstrap per pair and statistic and one per
  compared pair (the oracle of tests/test_pair_statistics.py);
- ``put_shard`` against the json writer with the checksum through a JSON round
  trip, every shard of every pair; and reading the shards back
  (``RunCache.shard``) against the reader that validated every word with the
  JSON Schema validator (both oracles of tests/test_records.py), each reading
  its own writer's files.

The results must be equal (records, intervals and comparisons; the files
parse to the same data and read back as the same shard). Target: each at
most half of the old CPU time.
"""

from __future__ import annotations

import importlib.util
import json
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from common import table

from cws_bench.analysis import alignment, buckets
from cws_bench.analysis import patterns as analysis
from cws_bench.results import records as record_files
from cws_bench.run.bakeoff import _statistics
from cws_bench.run.cache import RunCache, shard_key
from cws_bench.run.config import load_config
from cws_bench.run.executors import LoadReport
from cws_bench.run.pair import PairInput, _training_counts, finish_pair
from cws_bench.run.plan import corpus_dictionary, cut_batches, gold_and_raw
from cws_bench.run.tasks import ShardResult, leak_inputs, segmenter_facts
from cws_bench.segmenters import get_segmenter

TESTS = Path(__file__).resolve().parent.parent / "tests"
SEGMENTERS = ("fmm", "bmm", "bimm", "hmm", "jieba")


def _oracles(name: str) -> Any:
    """A test module by file (its oracles: the code the driver ran before)."""
    spec = importlib.util.spec_from_file_location(name, TESTS / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@contextmanager
def _old_analyses(oracles: Any) -> Iterator[None]:
    """finish_pair as it was: no alignment, the sentence-by-sentence analyses."""
    saved = analysis.analyse_errors, buckets.bucket_analysis, alignment.align
    analysis.analyse_errors = lambda g, p, d=None, *, aligned=None, **k: (  # type: ignore[assignment]
        oracles.old_analyse_errors(g, p, d, **k)
    )
    buckets.bucket_analysis = lambda g, p, *, aligned=None, **k: (  # type: ignore[assignment]
        oracles.old_bucket_analysis(g, p, **k)
    )
    alignment.align = lambda gold, pred: None  # type: ignore[assignment,return-value]
    try:
        yield
    finally:
        analysis.analyse_errors, buckets.bucket_analysis, alignment.align = saved


def _cpu(function: Callable[[], Any]) -> tuple[float, Any]:
    started = time.process_time()
    result = function()
    return time.process_time() - started, result


def _interleaved(new: Callable[[], Any], old: Callable[[], Any], repeat: int) -> dict[str, Any]:
    """Best CPU seconds of each, alternating; the last results."""
    new_s, old_s = [], []
    for _ in range(repeat):
        seconds, new_result = _cpu(new)
        new_s.append(seconds)
        seconds, old_result = _cpu(old)
        old_s.append(seconds)
    return {"new": min(new_s), "old": min(old_s), "results": (new_result, old_result)}


def run(args: Any) -> list[dict[str, Any]]:
    config = load_config(None)
    corpus = next(c for c in config.corpora if c.name == "pd1998")
    gold, raw = gold_and_raw(corpus, None)
    dictionary = corpus_dictionary(corpus, None)
    counts_s, _ = _cpu(lambda: _training_counts(corpus, None))
    pair = PairInput(corpus, gold, raw, dictionary, None)
    specs = {s.label: s for s in config.segmenters}
    leaks = leak_inputs(gold, dictionary)
    predictions = {}
    for name in SEGMENTERS:
        segmenter = get_segmenter(name, **specs[name].options_for(corpus))
        facts = segmenter_facts(segmenter, specs[name].track, leaks)
        predictions[name] = (segmenter.segment(raw), facts)
    timing = {"load_s": 1.0, "segment_s": 1.0}
    analyses = _oracles("test_pair_analysis")
    rows = []

    # finish_pair, per pair
    def finish(name: str) -> Any:
        pred, facts = predictions[name]
        return finish_pair(pair, pred, facts, timing=timing, peak_memory_mib=1.0)

    def finish_all() -> dict[str, Any]:
        return {name: finish(name) for name in SEGMENTERS}

    def finish_all_old() -> dict[str, Any]:
        with _old_analyses(analyses):
            return finish_all()

    measured = _interleaved(finish_all, finish_all_old, args.repeat)
    new_records, old_records = measured["results"]
    same = all(
        json.dumps(new_records[n].to_dict()) == json.dumps(old_records[n].to_dict())
        for n in SEGMENTERS
    )
    rows.append(_row("finish_pair, per pd1998 pair", measured, len(SEGMENTERS), same))

    # _statistics over the pairs
    records = {("pd1998", name): record for name, record in new_records.items()}
    statistics = _oracles("test_pair_statistics")

    def old_statistics() -> Any:
        labels = [s.label for s in config.segmenters if ("pd1998", s.label) in records]
        systems = {
            label: np.asarray(records["pd1998", label].sentence_counts, dtype=np.int64)
            for label in labels
        }
        pairs = [
            (a, b)
            for i, a in enumerate(labels)
            for b in labels[i + 1 :]
            if specs[a].track == specs[b].track
        ]
        found, tests = statistics.one_by_one(
            "pd1998", systems, pairs, config.resamples, config.seed
        )
        return {("pd1998", label): found[label] for label in labels}, tests

    measured = _interleaved(lambda: _statistics(records, config), old_statistics, args.repeat)
    new_result, old_result = measured["results"]
    rows.append(
        _row("_statistics (5 pairs, 1000 resamples)", measured, 1, new_result == old_result)
    )

    # put_shard, every shard of every pair; then reading them back
    oracles = _oracles("test_records")
    store = oracles.old_store
    lengths = [len(line) for line in raw]
    shards = [
        (
            f"{name}-{first}",
            ShardResult(
                predictions[name][0][first : first + lines],
                0.5,
                (LoadReport("k", "w", 1.0),),
                predictions[name][1],
                80.0,
            ),
        )
        for name in SEGMENTERS
        for first, lines in cut_batches(lengths, config.batch_size, config.settings.shard_chars)
    ]
    with tempfile.TemporaryDirectory() as folder:
        new_cache, old_cache = RunCache(Path(folder) / "new"), RunCache(Path(folder) / "old")

        def put_new() -> None:
            for key, output in shards:
                new_cache.put_shard(shard_key(key, 0, 0), output)

        def put_old() -> None:
            saved, record_files.store_record = record_files.store_record, store  # json
            try:
                for key, output in shards:
                    old_cache.put_shard(shard_key(key, 0, 0), output)
            finally:
                record_files.store_record = saved

        measured = _interleaved(put_new, put_old, args.repeat)
        names = sorted(p.name for p in (Path(folder) / "new" / "shards").iterdir())
        same = all(
            json.loads((Path(folder) / "new" / "shards" / n).read_bytes())
            == json.loads((Path(folder) / "old" / "shards" / n).read_bytes())
            for n in names
        )
        rows.append(_row(f"put_shard ({len(shards)} shards)", measured, 1, same))

        def read(cache: RunCache) -> list[Any]:
            return [
                cache.shard(shard_key(key, 0, 0), ["".join(w) for w in output.pred])
                for key, output in shards
            ]

        def read_old() -> list[Any]:
            saved = record_files.load_shard_record
            record_files.load_shard_record = oracles.old_load_shard_record
            try:
                return read(old_cache)
            finally:
                record_files.load_shard_record = saved

        measured = _interleaved(lambda: read(new_cache), read_old, args.repeat)
        from_new, from_old = measured["results"]
        same = from_new == from_old and None not in from_new
        rows.append(_row(f"RunCache.shard, {len(shards)} shards read back", measured, 1, same))
    rows.append(
        {
            "benchmark": "experiment._training_counts(pd1998), once per corpus (not changed)",
            "new_cpu_s": counts_s,
            "old_cpu_s": counts_s,
            "ratio": 1.0,
            "same_result": True,
        }
    )
    print(table(rows, ["benchmark", "new_cpu_s", "old_cpu_s", "ratio", "same_result"]))
    return rows


def _row(name: str, measured: dict[str, Any], per: int, same: bool) -> dict[str, Any]:
    return {
        "benchmark": name,
        "new_cpu_s": measured["new"] / per,
        "old_cpu_s": measured["old"] / per,
        "ratio": measured["new"] / measured["old"],
        "same_result": same,
    }
