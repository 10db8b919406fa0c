"""Segmenting and scoring one big file shard by shard, on an executor.

The tasks here run on workers (local processes or Dask); the drivers plan
the shards (:mod:`cws_bench.run.shards`), hand them to an executor
(:mod:`cws_bench.run.executors`) and put the results back together in order:

- :func:`segment_sharded`: each shard's segmentation, written in order to
  the output (atomically), exactly what ``segment_file`` writes. A worker on
  the driver's machine writes its shard's output to a part file beside the
  output, which the driver appends in the kernel (``copy_file_range``); a
  worker elsewhere sends the bytes back.
- :func:`score_sharded`: each shard's counts (additive: per-sentence
  :class:`~cws_bench.scoring.SegCounts`, SIGHAN counts, the lines that
  differ), summed and concatenated into the :class:`~cws_bench.scoring.ScoreResult`
  that ``score_files`` returns, to the last digit.

Segmenting runs the one shard task, :func:`cws_bench.run.tasks.segment_shard`
(the bake-off's too), over items that are byte ranges of the file
(:class:`~cws_bench.run.tasks.FileShards`); scoring runs :func:`score_shard` with
its context :class:`ScoreContext`. A worker keeps each segmenter it loaded
(keyed by name and options) for its next shards, and the results carry the
loads made for them (:class:`~cws_bench.run.executors.LoadReport`).
"""

from __future__ import annotations

import codecs
import concurrent.futures
import contextlib
import os
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import islice
from typing import TYPE_CHECKING, Any

from cws_bench.defaults import DEFAULT_BATCH_SIZE, DEFAULT_SHARD_CHARS
from cws_bench.errors import CwsBenchError
from cws_bench.run.executors import Executor, LoadReport, cached, take_load_reports
from cws_bench.run.shards import (
    Shard,
    ShardPlan,
    plan_shards,
    read_shard_lines,
)
from cws_bench.run.tasks import (
    FileShards,
    PairSetup,
    ShardContext,
    ShardItem,
    ShardResult,
    segment_shard,
    segmenter_key,
)
from cws_bench.text.io import STDIN, PathLike, atomic_write, display_name, normalize_encoding

if TYPE_CHECKING:  # at run time inside functions: a worker loads only what its shards need
    from cws_bench.scoring.api import Counted, ScoringJob
    from cws_bench.scoring.engine import Accumulator, Scorer
    from cws_bench.scoring.result import ScoreResult
    from cws_bench.text.dictionary import Dictionary
    from cws_bench.text.normalize import Normalizer

__all__ = [
    "ScoreContext",
    "ShardedCounting",
    "ShardedSegmentStats",
    "score_shard",
    "score_sharded",
    "segment_sharded",
]


# ---------------------------------------------------------------- segmenting


def _append_part(result: ShardResult, target: Any) -> None:
    """Append a shard's output to ``target`` (a binary file) and remove its part file."""
    if result.part is None:
        target.write(result.data)
        return
    if not os.path.exists(result.part):
        raise CwsBenchError(
            f"{result.part}: a worker wrote this shard's output where this machine cannot "
            "see it (another machine of the same name?)",
            "give the workers distinct host names, or run the driver on a machine of its own",
        )
    target.flush()
    out = target.fileno()
    copied = 0
    with open(result.part, "rb") as f:
        with contextlib.suppress(OSError, AttributeError):  # no copy_file_range: copy below
            while copied < result.size:
                step = os.copy_file_range(f.fileno(), out, result.size - copied)
                if step == 0:
                    break
                copied += step
        if copied < result.size:
            f.seek(copied)
            while copied < result.size and (block := f.read(1 << 20)):
                target.write(block)
                copied += len(block)
            target.flush()
    if copied != result.size:
        raise CwsBenchError(
            f"{result.part}: the part file of a shard is {copied} bytes, not {result.size}",
            "run again; make sure nothing else writes in the output's folder",
        )
    os.unlink(result.part)


@dataclass(frozen=True)
class ShardedSegmentStats:
    """What a sharded segmentation did.

    Attributes:
        lines, characters, words: segmented (as ``SegmentStats`` counts them).
        seconds: time spent in the segmenters, summed over workers.
        wall: wall time of the whole run (planning and writing included).
        shards: how many shards.
        loads: each worker's load of the segmenter (once per worker).
    """

    lines: int
    characters: int
    words: int
    seconds: float
    wall: float
    shards: int
    loads: tuple[LoadReport, ...]

    @property
    def characters_per_second(self) -> float:
        """Characters per second of wall time."""
        return self.characters / self.wall if self.wall > 0 else 0.0


def segment_sharded(
    name: str,
    source: PathLike,
    target: PathLike,
    *,
    executor: Executor,
    options: dict[str, Any] | None = None,
    separator: str = " ",
    encoding: str = "utf-8",
    batch_size: int = DEFAULT_BATCH_SIZE,
    shard_chars: int = DEFAULT_SHARD_CHARS,
    progress: Callable[[int, int], None] | None = None,
    plan: ShardPlan | None = None,
) -> ShardedSegmentStats:
    """Segment a raw file shard by shard on ``executor``; the output equals ``segment_file``'s.

    Args:
        name, options: the segmenter, as :func:`~cws_bench.segmenters.get_segmenter` takes them.
        source: the raw input file (not standard input).
        target: the output file (``-``: standard output), written atomically.
        executor: a :class:`~cws_bench.run.executors.LocalExecutor` or ``DaskExecutor``.
        progress: called with (characters of a shard, characters in all) as each
            shard finishes.
        plan: shards already planned over ``source`` (default: planned here).

    Raises:
        CwsBenchError: an empty separator, an unreadable input.
        SegmenterError: the segmenter failed (file and lines named).
        ShardFailedError: a shard's worker kept dying or hanging.
    """
    if not separator:
        raise CwsBenchError(
            "the word separator is empty", "use a space (the default) or another string"
        )
    started = time.perf_counter()
    options = dict(options or {})
    source = os.fspath(source)
    if plan is None:
        plan = plan_shards([source], shard_chars=shard_chars, encodings=[encoding])
    lines = characters = words = 0
    seconds = 0.0
    loads: list[LoadReport] = []

    describe = _describer(source)
    with atomic_write(target, encoding=None) as f, _parts_folder(target) as parts:
        setup = PairSetup(name, options, batch_size, "none", "open", segmenter_key(name, options))
        file = FileShards(source, encoding, separator, parts, socket.gethostname())
        items = [
            ShardItem(s.index, 0, s.index, "", s.first_line, byte_range=s.ranges[0])
            for s in plan.shards
        ]
        for result in executor.map(
            segment_shard,
            ShardContext((setup,), file=file),
            items,
            done=_shard_progress(plan, progress),
            describe=lambda item: describe(plan.shards[item.index]),
        ):
            _append_part(result, f)
            lines += result.lines
            characters += result.characters
            words += result.words
            seconds += result.segment_s
            loads += result.loads
    return ShardedSegmentStats(
        lines,
        characters,
        words,
        seconds,
        time.perf_counter() - started,
        len(plan.shards),
        tuple(loads),
    )


@contextlib.contextmanager
def _parts_folder(target: PathLike) -> Any:
    """A private folder beside ``target`` for the part files, removed with what is left in it
    (None for standard output)."""
    path = os.fspath(target)
    if path == STDIN:
        yield None
        return
    from cws_bench.system.temporaries import discard, make_temporary

    _, folder = make_temporary(path, folder=True, suffix=".parts")
    try:
        yield folder
    finally:
        discard(folder)


def _shard_progress(
    plan: ShardPlan, progress: Callable[[int, int], None] | None
) -> Callable[[int, Any], None] | None:
    """A map's ``done`` over ``plan``'s shards: ``progress`` called with (characters of the
    shard, characters in all)."""
    if progress is None:
        return None
    return lambda index, _: progress(plan.shards[index].characters, plan.characters)


def _describer(path: str) -> Callable[[Shard], str]:
    name = display_name(path)
    return lambda shard: f"{name}: shard {shard.index + 1} ({shard.describe()})"


# ---------------------------------------------------------------- scoring


@dataclass(frozen=True)
class ScoreContext:
    """What every shard of a scoring run shares (sent to each worker once)."""

    gold: str
    pred: str
    dictionary: tuple[str, frozenset[str], str] | None  # (checksum, words, name)
    method: str = "interval"
    normalizer: Normalizer | None = None
    gold_encoding: str = "utf-8"
    pred_encoding: str = "utf-8"
    per_line: bool = False
    max_examples: int = 5
    byte_order_marks: tuple[str, str] = ("", "")

    @property
    def files(self) -> tuple[tuple[str, str], tuple[str, str]]:
        """(path, encoding) of the gold, then of the prediction."""
        return (self.gold, self.gold_encoding), (self.pred, self.pred_encoding)


@dataclass
class ScoreShardResult:
    """A scored shard: the scorer's running totals over its lines (absolute line numbers)."""

    accumulator: Accumulator
    lines: int
    loads: tuple[LoadReport, ...] = field(default_factory=tuple)


def _dictionary(context: ScoreContext) -> Dictionary | None:
    """The context's dictionary, built once per worker (its compiled table does not pickle)."""
    if context.dictionary is None:
        return None
    from cws_bench.text.dictionary import Dictionary

    checksum, words, name = context.dictionary
    return cached(f"dictionary {checksum}", lambda: Dictionary(words, name))


def _scorer(context: ScoreContext, first_line: int) -> Scorer:
    from cws_bench.scoring.engine import Scorer

    scorer = Scorer(
        _dictionary(context),
        method=context.method,
        strict=False,
        per_line=context.per_line,
        max_examples=context.max_examples,
        normalizer=context.normalizer,
    )
    scorer.line_no = first_line
    return scorer


def _shard_bytes(
    path: str, byte_range: tuple[int, int], first_line: int, encoding: str
) -> tuple[bytes, int]:
    """A shard's lines as the kernel reads a file: UTF-8 bytes, and the file offset of byte 0.

    A UTF-8 file is read raw (a byte-order mark dropped); another encoding is
    decoded line by line and re-encoded, as ``score_files`` does.
    """
    start, end = byte_range
    if encoding != "utf-8":
        lines = read_shard_lines(path, byte_range, first_line, encoding=encoding)
        return ("\n".join(lines) + "\n").encode("utf-8") if lines else b"", start
    with open(path, "rb") as f:
        f.seek(start)
        data = f.read(end - start)
    if start == 0 and data.startswith(codecs.BOM_UTF8):
        return data[len(codecs.BOM_UTF8) :], len(codecs.BOM_UTF8)
    return data, start


def _count_bytes(scorer: Scorer, context: ScoreContext, shard: Shard) -> int:
    """Count a shard through the kernel's byte buffers, as ``score_files`` counts a file."""
    from cws_bench.scoring.engine import kernel
    from cws_bench.text.io import decoding_error

    sides = [
        (path, *_shard_bytes(path, byte_range, shard.first_line, encoding))
        for (path, encoding), byte_range in zip(context.files, shard.ranges)
    ]
    (_, gold, _), (_, pred, _) = sides
    totals, count, _, _, differ, empty, rows, bad = kernel.count_buffers(
        gold, 0, True, pred, 0, True, scorer.word_set, scorer.per_line
    )
    if bad is not None:
        path, data, offset = sides[bad[0]]
        line = shard.first_line + data.count(b"\n", 0, bad[1]) + 1
        raise decoding_error(path, "utf-8", line, offset + bad[1])
    decoded = [
        (index, gold[g_from:g_to].decode("utf-8"), pred[p_from:p_to].decode("utf-8"))
        for index, g_from, g_to, p_from, p_to in differ
    ]
    scorer.add_counted(totals, count, decoded, empty, rows)
    return count


def score_shard(context: ScoreContext, shard: Shard) -> ScoreShardResult:
    """Count one shard of a gold/prediction pair, as ``score_files`` counts those lines."""
    from cws_bench.scoring.engine import kernel

    scorer = _scorer(context, shard.first_line)
    fast = not scorer.counter.counts_decoded_lines and context.normalizer is None
    if kernel is not None and fast:
        lines = _count_bytes(scorer, context, shard)
        return ScoreShardResult(scorer.acc, lines, take_load_reports())
    gold_lines, pred_lines = (
        read_shard_lines(path, byte_range, shard.first_line, encoding=encoding)
        for (path, encoding), byte_range in zip(context.files, shard.ranges)
    )
    if shard.first_line == 0:  # add_lines puts them on the first line of the files
        scorer.byte_order_marks = context.byte_order_marks
    scorer.add_lines(gold_lines, pred_lines)
    return ScoreShardResult(scorer.acc, len(gold_lines), take_load_reports())


@dataclass(frozen=True)
class ShardedCounting:
    """The middle of a scoring job (:class:`~cws_bench.scoring.api.Counting`) in shards.

    The two files are cut into line-aligned shards, each counted by
    :func:`score_shard` on ``executor``, the counts merged in order into the
    job's scorer; the gold's checksum is read meanwhile on a thread of its own.

    Attributes:
        executor: where the shards run.
        shard_chars: gold characters per shard.
        progress: called with (gold characters of a shard, in all) as each shard finishes.
    """

    executor: Executor
    shard_chars: int = DEFAULT_SHARD_CHARS
    progress: Callable[[int, int], None] | None = None

    def __call__(self, job: ScoringJob) -> Counted:
        from cws_bench.scoring.api import Counted
        from cws_bench.scoring.engine import file_sentence_checksum
        from cws_bench.scoring.input_checks import SAMPLE_LINES
        from cws_bench.text.io import iter_lines

        gold, pred, scorer = job.gold, job.pred, job.scorer
        if job.gold_as_sentences is not None:
            name = display_name(gold)
            raise CwsBenchError(
                f"{name}: only a plain gold file (one sentence a line) can be cut into shards",
                f"export it first: `cws-bench corpora export {name} --as gold "
                "-o gold.txt`, or run without --executor",
            )
        encodings = [job.encoding, job.pred_encoding]
        plan = plan_shards([gold, pred], shard_chars=self.shard_chars, encodings=encodings)
        words = scorer.dictionary
        context = ScoreContext(
            os.fspath(gold),
            os.fspath(pred),
            (words.checksum, words.words, words.name) if words is not None else None,
            scorer.method,
            scorer.normalizer,
            normalize_encoding(job.encoding),
            normalize_encoding(job.pred_encoding),
            scorer.per_line,
            scorer.max_examples,
            scorer.byte_order_marks,
        )
        # The gold's sentence checksum (as score_files signs it) is read on a thread of
        # its own while the workers score the shards, not in a pass before or after.
        with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="checksum") as pool:
            checksum = pool.submit(file_sentence_checksum, gold, job.encoding)
            for result in self.executor.map(
                score_shard,
                context,
                plan.shards,
                done=_shard_progress(plan, self.progress),
                describe=_describer(context.gold),
            ):
                # The shards come in order, their line numbers already the file's.
                scorer.acc.merge(result.accumulator, scorer.max_examples)
                scorer.line_no += result.lines
            gold_checksum = checksum.result()
        # The first line pairs as read, which the input checks look at.
        lines = (iter_lines(path, encoding=e) for path, e in zip((gold, pred), encodings))
        scorer.sample = list(islice(zip(*lines), SAMPLE_LINES))
        # The lines past the common ones.
        rests = [
            _tail(path, size, encoding, plan, side) if total > plan.common_lines else []
            for side, (path, size, encoding, total) in enumerate(
                zip((gold, pred), plan.sizes, encodings, plan.line_counts)
            )
        ]
        total_gold, total_pred = plan.line_counts
        return Counted(rests[0], rests[1], (total_gold, total_pred), gold_checksum)


def score_sharded(
    gold: PathLike,
    pred: PathLike,
    *,
    executor: Executor,
    shard_chars: int = DEFAULT_SHARD_CHARS,
    progress: Callable[[int, int], None] | None = None,
    **options: Any,
) -> ScoreResult:
    """``score_files`` run shard by shard on ``executor``: the same ScoreResult, digit for digit.

    GOLD must be a plain segmented file (one sentence a line) and PRED a
    file: a registered corpus or another gold format is read as sentences,
    which cannot be cut by bytes (export it first with ``cws-bench corpora export``).
    It is :func:`cws_bench.scoring.score_files` with :class:`ShardedCounting`
    as its middle, so the warnings and checks are the same too.

    Args:
        executor: where the shards run.
        shard_chars: gold characters per shard.
        progress: called with (gold characters of a shard, in all) as each shard finishes.
        options: as :func:`cws_bench.scoring.score_files` takes them.

    Raises:
        CwsBenchError: as ``score_files``; a gold that is not a plain file.
        ShardFailedError: a shard's worker kept dying or hanging.
    """
    from cws_bench.scoring.api import score_files

    return score_files(
        gold, pred, count=ShardedCounting(executor, shard_chars, progress), **options
    )


def _tail(path: PathLike, size: int, encoding: str, plan: ShardPlan, side: int) -> list[str]:
    """The lines of one file past the lines both files have."""
    start = plan.shards[-1].ranges[side][1] if plan.shards else 0
    return read_shard_lines(path, (start, size), plan.common_lines, encoding=encoding)
