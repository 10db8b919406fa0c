"""The bake-off's runner: every pair cut into shards, run on one executor.

:func:`plan_run` resolves a configuration into corpora (gold, raw lines,
dictionary, identity: read once, in this process), pairs (their cache keys)
and, for each pair not in the run cache, its shards: runs of whole batches of
``batch_size`` lines, about ``shard_chars`` characters each, so that a
segmenter gets exactly the batches it gets in an unsharded run; or runs of
whole lines for an adapter whose ``independent_lines`` says that each line is
segmented on its own (finer shards share a slow pair among the workers). :class:`Run`
feeds every shard of every pair to one executor
(:mod:`cws_bench.run.executors`), whose workers keep the segmenters they loaded
from one shard, and one corpus, to the next; as each shard comes back it is
written to the run cache, and as each pair is complete it is scored, in a
thread of this process while the workers go on, by the same
:func:`cws_bench.run.experiment.finish_pair` an unsharded run uses: the numbers
are the same to the last digit.

A shard whose worker dies or hangs is run again (``retries``); a shard that
keeps failing fails its pair, with the reason, and the other pairs go on. A
shard is never counted twice: results are placed by position. An
interrupted run resumes shard by shard from the cache.
"""

from __future__ import annotations

import hashlib
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cws_bench.errors import CwsBenchError
from cws_bench.run.executors import Executor, ItemFailure, LoadReport
from cws_bench.run.experiment import (
    CACHE_VERSION,
    CorpusSpec,
    PairInput,
    PairRecord,
    SegmenterSpec,
    cache_key,
    corpus_dictionary,
    finish_pair,
    gold_and_raw,
    identity_of,
)
from cws_bench.run.tasks import (
    PairSetup,
    ShardContext,
    ShardItem,
    ShardResult,
    leak_inputs,
    segment_shard,
    segmenter_key,
)
from cws_bench.segmenters import Segmenter
from cws_bench.segmenters.stream import count_characters
from cws_bench.text.io import make_folder

__all__ = [
    "BAKEOFF_SHARD_CHARS",
    "FunctionSegmenter",
    "PlannedPair",
    "Progress",
    "Run",
    "RunCache",
    "RunPlan",
    "cut_batches",
    "plan_run",
    "segment_with",
]

BAKEOFF_SHARD_CHARS = 20_000
"""Characters per shard of a bake-off by default: small corpora still make a few shards."""

# Adapters that ship a trained model are usually the slowest to run: start them first,
# so that a long pair does not begin last and keep the others waiting.
KIND_ORDER = {"pretrained": 0, "statistical": 1, "dictionary": 2}

Pair = tuple[str, str]  # (corpus label, segmenter label)


def cut_batches(lengths: Sequence[int], batch_size: int, shard_chars: int) -> list[tuple[int, int]]:
    """``(first line, lines)`` of shards made of whole batches, each of at least
    ``shard_chars`` characters but the last.

    >>> cut_batches([5, 5, 5, 5, 5], 2, 8)
    [(0, 2), (2, 2), (4, 1)]
    >>> cut_batches([5, 5, 5, 5, 5], 1, 11)
    [(0, 3), (3, 2)]
    >>> cut_batches([], 3, 10)
    []
    """
    shards = []
    first = characters = 0
    for start in range(0, len(lengths), batch_size):
        end = min(start + batch_size, len(lengths))
        characters += sum(lengths[start:end])
        if characters >= shard_chars or end == len(lengths):
            shards.append((first, end - first))
            first, characters = end, 0
    return shards


class FunctionSegmenter(Segmenter):
    """A Python callable (a line in, its words out) as a segmenter of a bake-off.

    Blank lines get no words without a call; the output goes through the same
    lossless-join check as every adapter's.
    """

    kind = "statistical"
    description = "a Python callable"
    independent_lines = True  # the function gets one line at a time

    def __init__(self, label: str, function: Callable[[str], list[str]]) -> None:
        super().__init__()
        self.name = label  # type: ignore[misc]
        self.function = function

    @property
    def version(self) -> str:
        return "callable"

    def _segment(self, lines: list[str]) -> list[list[str]]:
        return [list(self.function(line)) if line.strip() else [] for line in lines]


def segment_with(
    executor: Executor, setup: PairSetup, raw: list[str], *, shard_chars: int = BAKEOFF_SHARD_CHARS
) -> tuple[list[list[str]], float]:
    """Segment ``raw`` in shards of whole batches on ``executor``: the words and the
    seconds spent in ``segment()`` over all shards (what a regression baseline runs).

    Raises:
        CwsBenchError: the segmenter failed (its message).
    """
    lengths = [len(line) for line in raw]
    items = [
        ShardItem(i, 0, i, "", first, tuple(raw[first : first + lines]))
        for i, (first, lines) in enumerate(cut_batches(lengths, setup.batch_size, shard_chars))
    ]
    context = ShardContext((setup,), {"": None})
    pred: list[list[str]] = []
    seconds = 0.0
    for output in executor.map(segment_shard, context, items, describe=_shard_name):
        if output.status != "ok":
            raise CwsBenchError(f"{setup.name}: {output.error}")
        pred.extend(output.pred or [])
        seconds += output.segment_s
    return pred, seconds


def _shard_name(item: ShardItem) -> str:
    return (
        f"shard {item.shard + 1} (lines {item.first_line + 1}-{item.first_line + len(item.lines)})"
    )


# ---------------------------------------------------------------------------
# The cache


def shard_key(pair_key: str, first: int, lines: int) -> str:
    """The cache key of a shard: its pair's key (contents) and its line range."""
    material = f"{pair_key}:{first}:{lines}".encode()
    return hashlib.blake2b(material, digest_size=10).hexdigest()


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
        from cws_bench.text.joined import JoinedWords

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
        from cws_bench.text.joined import JoinedWords

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


# ---------------------------------------------------------------------------
# Planning


@dataclass
class PlannedPair:
    """A pair to run: its specs, registry info, cache key, setup and shards."""

    corpus: CorpusSpec
    spec: SegmenterSpec
    info: Any
    key: str
    setup: PairSetup
    cuts: list[tuple[int, int]] = field(default_factory=list)

    @property
    def label(self) -> Pair:
        return (self.corpus.label, self.spec.label)


@dataclass
class RunPlan:
    """What a run does: the corpora read, pairs to run, pairs from the cache, notes."""

    corpora: list[CorpusSpec]
    inputs: dict[str, PairInput]
    pairs: list[PlannedPair]
    records: dict[Pair, PairRecord]
    statuses: dict[Pair, tuple[str, str | None]]
    cached: set[Pair]
    notes: list[str]


def _corpus_here(corpus: CorpusSpec, data_dir: str | None, notes: list[str]) -> bool:
    """False (with a note) for an optional registered corpus whose split is not here."""
    if not (corpus.optional and corpus.name is not None):
        return True
    from cws_bench.corpora import get_corpus

    named = get_corpus(corpus.name, data_dir=data_dir)
    if corpus.split in named.available_splits:
        return True
    notes.append(f"skipped corpus {corpus.label}: not here ({named.availability().how_to_get()})")
    return False


def _read_corpus(corpus: CorpusSpec, data_dir: str | None) -> PairInput | str:
    """The corpus' input, or the reason it cannot be scored (its pairs fail with it)."""
    try:
        gold, raw = gold_and_raw(corpus, data_dir)
    except CwsBenchError as e:
        from cws_bench.errors import CorpusUnavailableError

        if isinstance(e, CorpusUnavailableError):
            raise
        return str(e)
    return PairInput(corpus, gold, raw, corpus_dictionary(corpus, data_dir), data_dir)


def plan_run(
    config: Any,
    segmenters: Sequence[tuple[SegmenterSpec, Any, bytes | None]],
    *,
    cache: RunCache,
    use_cache: bool,
    data_dir: str | None,
    notes: list[str],
) -> RunPlan:
    """Resolve corpora and pairs; take finished pairs from the cache; cut the others.

    Args:
        config: the bake-off's configuration (its corpora, batch size and shard size).
        segmenters: ``(spec, registry info, shipped segmenter or None)``.
    """
    plan = RunPlan([], {}, [], {}, {}, set(), notes)
    batch_size, shard_chars = config.batch_size, config.settings.shard_chars
    for corpus in config.corpora:
        if not _corpus_here(corpus, data_dir, notes):
            continue
        plan.corpora.append(corpus)
        read = _read_corpus(corpus, data_dir)
        if isinstance(read, str):
            for spec, _, _ in segmenters:
                if spec.runs_on(corpus):
                    plan.statuses[corpus.label, spec.label] = ("failed", read)
            continue
        plan.inputs[corpus.label] = read
        identity = identity_of(read.gold, read.raw, read.dictionary)
        lengths = [len(line) for line in read.raw]
        for spec, info, blob in segmenters:
            if spec.runs_on(corpus):
                _plan_pair(
                    plan,
                    corpus,
                    spec,
                    info,
                    blob,
                    identity,
                    lengths,
                    cache,
                    use_cache,
                    batch_size,
                    shard_chars,
                    data_dir,
                )
    kinds = {spec.label: info.kind for spec, info, _ in segmenters}
    sizes = {label: sum(map(len, i.raw)) for label, i in plan.inputs.items()}
    plan.pairs.sort(
        key=lambda p: (-sizes[p.corpus.label], KIND_ORDER.get(kinds[p.spec.label] or "", 3))
    )
    return plan


def _plan_pair(
    plan: RunPlan,
    corpus: CorpusSpec,
    spec: SegmenterSpec,
    info: Any,
    blob: bytes | None,
    identity: Any,
    lengths: list[int],
    cache: RunCache,
    use_cache: bool,
    batch_size: int,
    shard_chars: int,
    data_dir: str | None,
) -> None:
    options = spec.options_for(corpus, data_dir)
    if blob is None:
        key = cache_key(corpus, spec.name, options, identity, info.version, data_dir=data_dir)
        loaded_as = segmenter_key(spec.name, options)
    else:  # a shipped segmenter: known by its pickled bytes
        code = hashlib.blake2b(blob, digest_size=10).hexdigest()
        key = cache_key(corpus, f"python:{code}", {}, identity, None, libraries={})
        loaded_as = f"python:{code}"
    pair = (corpus.label, spec.label)
    record = cache.record(key) if use_cache else None
    if record is not None:
        plan.records[pair] = record
        plan.statuses[pair] = ("ok", None)
        plan.cached.add(pair)
        return
    setup = PairSetup(spec.name, options, batch_size, corpus.convert, spec.track, loaded_as, blob)
    # Shards end between batches, as an unsharded run cuts them, or between any two
    # lines for a segmenter whose lines are segmented each on its own.
    unit = 1 if getattr(info, "independent_lines", False) else batch_size
    # an empty corpus still has one (empty) shard: its segmenter is loaded and described
    cuts = cut_batches(lengths, unit, shard_chars) or [(0, 0)]
    plan.pairs.append(PlannedPair(corpus, spec, info, key, setup, cuts))


# ---------------------------------------------------------------------------
# Progress


def _interactive() -> bool:
    """Whether stderr is a terminal (a bar), or a log (one line per pair)."""
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


class Progress:
    """One bar per run in characters/s fed by shard completion (on a terminal);
    one plain line per finished pair otherwise; nothing when not ``enabled``."""

    def __init__(self, enabled: bool, characters: int, pairs: int) -> None:
        self.pairs = pairs
        self.finished = 0
        self.started = time.monotonic()
        self.lines = enabled and pairs > 0 and not _interactive()
        self.bar = None
        if enabled and pairs and not self.lines:
            from tqdm import tqdm

            self.bar = tqdm(
                total=characters, desc="segmenting", unit="char", unit_scale=True, file=sys.stderr
            )

    def shard(self, characters: int) -> None:
        if self.bar is not None:
            self.bar.update(characters)

    def pair(self, segmenter: str, corpus: str, status: str) -> None:
        self.finished += 1
        if self.bar is not None:
            self.bar.set_postfix_str(
                f"{self.finished}/{self.pairs} pairs; {segmenter} on {corpus}: {status}"
            )
        elif self.lines:
            elapsed = time.monotonic() - self.started
            sys.stderr.write(
                f"[{self.finished}/{self.pairs}] {segmenter} on {corpus}: {status} "
                f"({elapsed:.1f} s since the start)\n"
            )
            sys.stderr.flush()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


# ---------------------------------------------------------------------------
# The run


@dataclass
class _Pending:
    """A pair being run: its shards' outputs as they come."""

    pair: PlannedPair
    outputs: list[ShardResult | None]
    failed: bool = False


class Run:
    """Runs a plan's shards on an executor and finishes each pair as it completes.

    Args:
        plan: from :func:`plan_run`.
        cache: where finished shards and pairs go.
        progress: the progress display.
        timeout: the per-shard timeout (for messages).
        use_cache: take finished shards from the cache.
    """

    def __init__(
        self,
        plan: RunPlan,
        cache: RunCache,
        progress: Progress,
        *,
        timeout: float | None,
        use_cache: bool = True,
    ) -> None:
        self.plan, self.cache, self.progress, self.timeout = plan, cache, progress, timeout
        self.use_cache = use_cache
        self.loads: dict[str, list[tuple[str, float]]] = {}
        self.pending = {p.label: _Pending(p, [None] * len(p.cuts)) for p in plan.pairs}
        self.items: list[ShardItem] = []
        self.finisher = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cws-finish")
        self.finishing: list[Future[None]] = []
        self.lock = threading.Lock()
        self.executor_jobs = 0  # workers of the executor that ran the shards (0: none ran)

    def _collect(self) -> None:
        """Shards from the cache into place; the others become items."""
        for position, planned in enumerate(self.plan.pairs):
            raw = self.plan.inputs[planned.corpus.label].raw
            pending = self.pending[planned.label]
            for shard, (first, lines) in enumerate(planned.cuts):
                text = raw[first : first + lines]
                key = shard_key(planned.key, first, lines)
                output = self.cache.shard(key, text) if self.use_cache else None
                if output is not None:
                    pending.outputs[shard] = output
                    self._note_loads(output)
                    continue
                label = planned.corpus.label
                self.items.append(
                    ShardItem(len(self.items), position, shard, label, first, tuple(text))
                )
            if all(o is not None for o in pending.outputs):
                self._complete(pending)

    def run(self, executor: Executor) -> None:
        """Run every shard not in the cache, then wait for the pairs' scoring."""
        from cws_bench.corpora.base import kept

        self._collect()
        closed = {p.corpus.label for p in self.plan.pairs if p.setup.track == "closed"}
        context = ShardContext(
            tuple(p.setup for p in self.plan.pairs),
            {
                # only a closed-track pair is checked for a leak: the others need no word set
                label: leak_inputs(i.gold, i.dictionary) if label in closed else None
                for label, i in self.plan.inputs.items()
            },
            kept(),
        )
        try:
            for _ in executor.map(
                segment_shard,
                context,
                self.items,
                done=self._on_shard,
                describe=self._describe,
                affinity=lambda item: context.pairs[item.pair].key,
                tolerate=True,
            ):
                pass
            for future in list(self.finishing):
                future.result()
        finally:
            self.finisher.shutdown(wait=False, cancel_futures=True)

    def _describe(self, item: ShardItem) -> str:
        planned = self.plan.pairs[item.pair]
        last = item.first_line + len(item.lines)
        return (
            f"{planned.spec.label} on {planned.corpus.label}: shard {item.shard + 1} "
            f"(lines {item.first_line + 1}-{last})"
        )

    def _note_loads(self, output: ShardResult) -> None:
        for load in output.loads:
            self.loads.setdefault(load.key, []).append((load.worker, load.seconds))

    def _on_shard(self, index: int, output: ShardResult | ItemFailure) -> None:
        item = self.items[index]
        planned = self.plan.pairs[item.pair]
        pending = self.pending[planned.label]
        self.progress.shard(count_characters(item.lines))
        if isinstance(output, ItemFailure) or output.status != "ok":
            if not pending.failed:
                self._fail(pending, *self._failure(item, output))
            return
        self._note_loads(output)
        # kept even when the pair failed on another shard: a rerun needs only that one
        self.cache.put_shard(shard_key(planned.key, item.first_line, len(item.lines)), output)
        pending.outputs[item.shard] = output
        if not pending.failed and all(o is not None for o in pending.outputs):
            self._complete(pending)

    def _failure(
        self, item: ShardItem, output: ShardResult | ItemFailure
    ) -> tuple[str, str | None]:
        """The status and reason of a shard that could not run."""
        if not isinstance(output, ItemFailure):
            return output.status, output.error
        if output.timed_out:
            return "timeout", (
                f"timed out after {self.timeout:g} s on {self._describe(item)} "
                f"({output.reason}; raise `timeout` in the config)"
            )
        return "failed", f"{self._describe(item)}: {output.reason}"

    def _fail(self, pending: _Pending, status: str, error: str | None) -> None:
        pending.failed = True
        corpus, segmenter = pending.pair.label
        with self.lock:
            self.plan.statuses[pending.pair.label] = (status, error)
        self.progress.pair(segmenter, corpus, status)

    def _complete(self, pending: _Pending) -> None:
        self.finishing.append(self.finisher.submit(self._finish, pending))

    def _finish(self, pending: _Pending) -> None:
        """Score a complete pair (in the finishing thread) and cache its record."""
        planned = pending.pair
        outputs = [o for o in pending.outputs if o is not None]
        pred = [words for output in outputs for words in (output.pred or [])]
        facts = outputs[0].facts if outputs else None
        loads = [s for _, s in self.loads.get(planned.setup.key, [])]
        timing = {"load_s": max(loads, default=0.0), "segment_s": sum(o.segment_s for o in outputs)}
        try:
            if facts is None:
                raise CwsBenchError("the first shard's segmenter facts are missing")
            record = finish_pair(
                self.plan.inputs[planned.corpus.label],
                pred,
                facts,
                timing=timing,
                peak_memory_mib=max(o.peak_memory_mib for o in outputs),
                diagnostics=_diagnostics(outputs),
            )
        except Exception as e:  # a scoring error fails this pair only
            self._fail(pending, "failed", f"{type(e).__name__}: {e}")
            return
        self.cache.put(planned.key, record)
        with self.lock:
            self.plan.records[planned.label] = record
            self.plan.statuses[planned.label] = ("ok", None)
        self.progress.pair(planned.spec.label, planned.corpus.label, "ok")

    def load_reports(self) -> list[dict[str, Any]]:
        """Each segmenter load of the run: ``{"segmenter", "worker", "seconds"}``."""
        return [
            {"segmenter": key, "worker": worker, "seconds": seconds}
            for key, loads in self.loads.items()
            for worker, seconds in loads
        ]


def _diagnostics(outputs: list[ShardResult]) -> list[dict[str, Any] | None] | None:
    """The pair's per-line diagnostics, shard after shard (None when no shard kept any)."""
    if all(o.diagnostics is None for o in outputs):
        return None
    return [
        record
        for o in outputs
        for record in (o.diagnostics if o.diagnostics is not None else [None] * len(o.pred or []))
    ]
