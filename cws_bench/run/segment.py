"""What ``cws-bench segment`` does, as one library call: :func:`segment_input`.

A segmenter over one raw file, in this process
(:func:`cws_bench.segmenters.segment_file`) or, given an executor, shard by
shard on its workers (:func:`cws_bench.run.sharded.segment_sharded`): the same
output bytes either way. In process, the segmenter's per-line diagnostics can
be written (``fidelity``, ``requests_log``) and a tokenizer's ids recorded
(``token_ids``). The command line parses its options, calls this and prints what
it returns (:class:`Segmented`).
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cws_bench.defaults import DEFAULT_BATCH_SIZE, DEFAULT_SHARD_CHARS
from cws_bench.display.units import plural
from cws_bench.errors import CwsBenchError, Fix
from cws_bench.text.io import STDIN, PathLike

if TYPE_CHECKING:
    from cws_bench.run.executors import Executor, LoadReport
    from cws_bench.run.sharded import ShardedSegmentStats
    from cws_bench.segmenters.base import Segmenter
    from cws_bench.segmenters.stream import SegmentStats

__all__ = ["Segmented", "segment_input"]


@dataclass(frozen=True)
class Segmented:
    """What :func:`segment_input` did.

    Attributes:
        name: the segmenter.
        lines, characters, words: segmented (as ``SegmentStats`` counts them).
        seconds: time spent in the segmenter (summed over workers).
        loaded: seconds its loading took (in process; a worker's are in ``loads``).
        version: its version (in process).
        wall: wall time of a sharded run (planning and writing included).
        shards, workers: of a sharded run (0 in process).
        loads: each worker's load of the segmenter (sharded).
        warnings: what the user must hear (a fidelity file left empty).
        summary: the segmenter's diagnostics summed up in one line, or None.
    """

    name: str
    lines: int
    characters: int
    words: int
    seconds: float
    loaded: float = 0.0
    version: str | None = None
    wall: float = 0.0
    shards: int = 0
    workers: int = 0
    loads: tuple[LoadReport, ...] = ()
    warnings: tuple[str, ...] = ()
    summary: str | None = None

    @classmethod
    def of(cls, name: str, stats: SegmentStats | ShardedSegmentStats, **more: Any) -> Segmented:
        """What ``stats`` counted, and ``more``."""
        return cls(name, stats.lines, stats.characters, stats.words, stats.seconds, **more)

    def timing(self) -> list[str]:
        """How long loading and segmenting took, and the speed: one line each load and run."""
        done = f"{plural(self.lines, 'line')} ({plural(self.characters, 'character')})"
        if not self.shards:
            speed = self.characters / self.seconds if self.seconds > 0 else 0.0
            return [
                f"{self.name} {self.version}: loaded in {self.loaded:.2f} s; segmented {done} "
                f"in {self.seconds:.2f} s, {speed:,.0f} characters/s"
            ]
        speed = self.characters / self.wall if self.wall > 0 else 0.0
        return [
            *(f"{load.worker}: loaded {self.name} in {load.seconds:.2f} s" for load in self.loads),
            f"{self.name}: segmented {done} in {plural(self.shards, 'shard')} on "
            f"{plural(self.workers, 'worker')} in {self.wall:.2f} s, {speed:,.0f} characters/s",
        ]


def segment_input(
    name: str,
    source: PathLike,
    target: PathLike,
    *,
    options: dict[str, Any] | None = None,
    executor: Executor | None = None,
    separator: str = " ",
    encoding: str = "utf-8",
    batch_size: int = DEFAULT_BATCH_SIZE,
    shard_chars: int | None = None,
    progress: Callable[..., None] | None = None,
    fidelity: PathLike | None = None,
    requests_log: PathLike | None = None,
    token_ids: Callable[[Segmenter], object] | None = None,
) -> Segmented:
    """Segment the raw file ``source`` (``-``: standard input) into ``target`` with ``name``.

    Args:
        name, options: the segmenter, as :func:`~cws_bench.segmenters.get_segmenter`
            takes them.
        target: the output file (``-``: standard output), written atomically.
        executor: run it in shards of ``shard_chars`` characters on this executor
            (the same bytes); None: in this process.
        separator, encoding, batch_size: as ``segment_file`` takes them.
        progress: called as work is done: with the lines of each batch in process,
            with (characters of a shard, characters in all) in shards.
        fidelity: write one JSON object per input line (whether the segmenter's
            text differs from it) to this file (in process).
        requests_log: write one JSON object per request the segmenter sent (in process).
        token_ids: called with the segmenter after the pass (a tokenizer, which kept the
            ids of the lines it segmented), to record them (in process; the input a file).

    Raises:
        CwsBenchError: a setting that needs a run in process given with an executor,
            token ids from standard input or from a segmenter that has none, or any
            error of ``segment_file`` and ``segment_sharded``.
    """
    options = dict(options or {})
    if executor is not None:
        if (fidelity, requests_log, token_ids) != (None, None, None):
            raise CwsBenchError(
                "fidelity, requests_log and token_ids need a run in process, not in shards",
                "leave out {0}",
                fixes=(Fix("executor"),),
            )
        from cws_bench.run.sharded import segment_sharded

        sharded = segment_sharded(
            name,
            source,
            target,
            executor=executor,
            options=options,
            separator=separator,
            encoding=encoding,
            batch_size=batch_size,
            shard_chars=shard_chars or DEFAULT_SHARD_CHARS,
            progress=progress,
        )
        return Segmented.of(
            name,
            sharded,
            wall=sharded.wall,
            shards=sharded.shards,
            workers=executor.jobs,
            loads=sharded.loads,
        )
    # in this process: load, segment, then the diagnostics' files
    from cws_bench.segmenters import get_segmenter, segment_file

    if token_ids is not None and os.fspath(source) == STDIN:
        raise CwsBenchError("token ids read the input again: give a file, not standard input")
    started = time.perf_counter()
    segmenter = get_segmenter(name, **options)
    loaded = time.perf_counter() - started
    keep_ids = getattr(segmenter, "keeping_token_ids", None)
    if token_ids is not None and not callable(getattr(segmenter, "token_ids", None)):
        raise CwsBenchError(
            f"{name} gives no token ids: only a tokenizer (the tokenizer segmenter) has them",
            "leave out {0}, or segment with a tokenizer",
            fixes=(Fix("token_ids"),),
        )
    # A tokenizer keeps the ids of the lines it segments, for token_ids to read back.
    with keep_ids() if token_ids is not None and keep_ids else contextlib.nullcontext():
        stats = segment_file(
            segmenter,
            source,
            target,
            separator=separator,
            encoding=encoding,
            batch_size=batch_size,
            progress=progress,
        )
        if token_ids is not None:
            token_ids(segmenter)
    warnings, summary = _write_diagnostics(name, stats.diagnostics, fidelity, requests_log)
    return Segmented.of(
        name,
        stats,
        loaded=loaded,
        version=segmenter.version,
        warnings=warnings,
        summary=summary,
    )


def _write_diagnostics(
    name: str,
    records: list[dict[str, Any] | None] | None,
    fidelity: PathLike | None,
    requests_log: PathLike | None,
) -> tuple[tuple[str, ...], str | None]:
    """The ``fidelity`` file (one object per line) and the ``requests_log`` (one object per
    request sent) written; (warnings, the diagnostics' one-line summary or None)."""
    import json

    from cws_bench.segmenters.diagnostics import fidelity_line, request_log, summarize, summary_note
    from cws_bench.text.io import atomic_write

    warnings: tuple[str, ...] = ()
    if requests_log is not None:
        with atomic_write(requests_log) as f:
            for request in request_log(records or []):
                f.write(json.dumps(request) + "\n")
    if fidelity is not None:
        with atomic_write(fidelity) as f:
            for number, record in enumerate(records or [], start=1):
                f.write(json.dumps(fidelity_line(number, record), ensure_ascii=False) + "\n")
        if records is None:
            warnings = (f"{name}: keeps no per-line diagnostics; {fidelity} is empty",)
    note = summary_note(summarize(records or []))
    return warnings, f"{name}: {note}" if note else None
