"""The run cache: finished pairs and finished shards, each under a key of its content.

The plan (:func:`cws_bench.run.plan.plan_run`) takes finished pairs from it;
the execution (:class:`cws_bench.run.execute.Run`) takes finished shards from
it and writes each shard and pair as it finishes, so an interrupted run
resumes shard by shard.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cws_bench.run.executors import LoadReport
from cws_bench.run.pair import CACHE_VERSION, PairRecord
from cws_bench.run.tasks import ShardResult
from cws_bench.text.checksums import hash_hex
from cws_bench.text.io import make_folder
from cws_bench.text.joined import JoinedWords

__all__ = ["RunCache", "shard_key"]


def shard_key(pair_key: str, first: int, lines: int) -> str:
    """The cache key of a shard: its pair's key (contents) and its line range."""
    return hash_hex(f"{pair_key}:{first}:{lines}", "cache")


class RunCache:
    """Finished pairs (``cache/<key>.json``) and finished shards (``cache/shards/``).

    Both are written atomically with a checksum and validated when read back
    (:mod:`cws_bench.results.records`): an invalid file is never used, it adds a
    warning and the work runs again.
    """

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self.warnings: list[str] = []
        if folder is not None:
            make_folder(folder)

    def record(self, key: str) -> PairRecord | None:
        """The cached record of a pair, or None."""
        from cws_bench.results.records import load_record

        if self.folder is None:
            return None
        data, warning = load_record(self.folder / f"{key}.json", version=CACHE_VERSION)
        if warning is not None:
            self.warnings.append(warning)
        try:
            return None if data is None else PairRecord.from_dict(data)
        except (KeyError, TypeError, ValueError):
            return None  # not a record: run the pair again

    def put(self, key: str, record: PairRecord) -> None:
        from cws_bench.results.records import store_record

        if self.folder is not None:
            store_record(self.folder / f"{key}.json", record.to_dict())

    def shard(self, key: str, lines: Sequence[str]) -> ShardResult | None:
        """The cached output of a shard whose raw lines are ``lines``, or None."""
        from cws_bench.results.records import load_shard_record

        if self.folder is None:
            return None
        path = self.folder / "shards" / f"{key}.json"
        data, warning = load_shard_record(path, version=CACHE_VERSION, lines=lines)
        if warning is not None:
            self.warnings.append(warning)
        if data is None:
            return None
        loads = tuple(LoadReport(str(k), str(w), float(s)) for k, w, s in data["loads"])
        pred = [JoinedWords.from_line(w) if isinstance(w, str) else w for w in data["pred"]]
        return ShardResult(
            pred,
            data["segment_s"],
            loads,
            data["facts"],
            data["peak_memory_mib"],
            diagnostics=data.get("diagnostics"),
        )

    def put_shard(self, key: str, output: ShardResult) -> None:
        from cws_bench.results.records import store_record

        if self.folder is None:
            return
        record: dict[str, Any] = {
            "version": CACHE_VERSION,
            # a long line's words as one string, as the run holds them (JoinedWords)
            "pred": None
            if output.pred is None
            else [w.line if isinstance(w, JoinedWords) else w for w in output.pred],
            "segment_s": output.segment_s,
            "loads": [[load.key, load.worker, load.seconds] for load in output.loads],
            "facts": output.facts,
            "peak_memory_mib": output.peak_memory_mib,
        }
        if output.diagnostics is not None:
            record["diagnostics"] = output.diagnostics
        folder = self.folder / "shards"
        make_folder(folder)
        store_record(folder / f"{key}.json", record)
