"""The execution of a bake-off run: every shard of the plan on one executor.

:func:`execute_plan` feeds every shard of every pair to one executor
(:mod:`cws_bench.run.executors`; :func:`early_executor` starts a local one's
workers while the corpora are read), whose workers keep the segmenters they
loaded from one shard, and one corpus, to the next. In :class:`Run`, as each
shard comes back it is written to the run cache, and as each pair is
complete it is scored, in a thread of this process while the workers go on,
by :func:`cws_bench.run.pair.finish_pair`: the numbers are those of the whole
pair run in one process, to the last digit (the tests' unsharded reference).

A shard whose worker dies or hangs is run again (``retries``); a shard that
keeps failing fails its pair, with the reason, and the other pairs go on. A
shard is never counted twice: results are placed by position. An
interrupted run resumes shard by shard from the cache.

Python segmenters given to :func:`~cws_bench.run.bakeoff.run_bakeoff`
(:func:`shipped_segmenters`; a callable becomes a :class:`FunctionSegmenter`)
go to the workers pickled with cloudpickle. :func:`segment_with` segments
one input in shards (what a regression baseline runs).
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from cws_bench.errors import CwsBenchError
from cws_bench.run.cache import RunCache, shard_key
from cws_bench.run.config import BAKEOFF_SHARD_CHARS
from cws_bench.run.executors import Executor, ExecutorSettings, ItemFailure
from cws_bench.run.pair import finish_pair
from cws_bench.run.plan import (
    PlannedPair,
    RunPlan,
    cut_batches,
)
from cws_bench.run.tasks import (
    PairSetup,
    ShardContext,
    ShardItem,
    ShardResult,
    leak_inputs,
    segment_shard,
)
from cws_bench.segmenters import Segmenter
from cws_bench.segmenters.stream import count_characters

__all__ = [
    "FunctionSegmenter",
    "Progress",
    "Run",
    "early_executor",
    "execute_plan",
    "segment_with",
    "shipped_segmenters",
]


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


def shipped_segmenters(segmenters: Mapping[str, Any] | None) -> dict[str, tuple[bytes, bool]]:
    """The caller's segmenters by label, pickled with cloudpickle for the workers, each
    with whether its lines are segmented each on its own."""
    if not segmenters:
        return {}
    try:
        import cloudpickle
    except ImportError as e:  # pragma: no cover - installed with cws-bench
        raise CwsBenchError("segmenters= needs cloudpickle", "pip install cloudpickle") from e
    from cws_bench.segmenters import Segmenter

    shipped = {}
    for label, segmenter in segmenters.items():
        if not isinstance(segmenter, Segmenter):
            if not callable(segmenter):
                raise CwsBenchError(
                    f"segmenters[{label!r}]: {segmenter!r} is neither a Segmenter nor a callable",
                    "give a Segmenter, or a function from a line to its list of words",
                )
            segmenter = FunctionSegmenter(label, segmenter)
        try:
            shipped[label] = (cloudpickle.dumps(segmenter), segmenter.independent_lines)
        except Exception as e:
            raise CwsBenchError(
                f"segmenters[{label!r}] cannot be sent to the worker processes: {e}",
                "build what it holds (a model, a connection) inside the function on first "
                "use, or register it as a Segmenter adapter (docs/SCALING.md)",
            ) from e
    return shipped


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
    """Runs a plan's shards on an executor and finishes each pair as it completes, each
    finished shard and pair written to ``cache`` (finished shards taken from it with
    ``use_cache``); ``timeout`` is the per-shard timeout (for messages)."""

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
        return f"{planned.spec.label} on {planned.corpus.label}: {_shard_name(item)}"

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


def early_executor(settings: ExecutorSettings, given: Executor | None) -> Executor | None:
    """The local executor of a run, its workers already starting (they import while the
    corpora are read); None when the caller gave one or the run is on Dask (whose
    cluster starts once a shard is to run)."""
    if given is not None or settings.kind != "local" or settings.scheduler:
        return None
    from cws_bench.run.executors import make_executor

    executor = make_executor(settings)
    executor.start()
    return executor


def execute_plan(
    plan: RunPlan,
    cache: RunCache,
    settings: ExecutorSettings,
    executor: Executor | None,
    progress: bool,
    use_cache: bool,
) -> Run:
    """Run the plan's shards on the executor (made and closed here when None)."""
    from cws_bench.run.executors import make_executor
    from cws_bench.segmenters.stream import count_characters
    from cws_bench.system.workers import Interrupted, signals_ignored, signals_raise

    characters = sum(count_characters(plan.inputs[p.corpus.label].raw) for p in plan.pairs)
    shown = Progress(progress, characters, len(plan.pairs))
    run = Run(plan, cache, shown, timeout=settings.timeout, use_cache=use_cache)
    total = len(plan.pairs) + len(plan.statuses)
    made = None
    try:
        with signals_raise():
            try:
                if plan.pairs:
                    if executor is None:
                        executor = made = make_executor(settings)
                    run.executor_jobs = executor.jobs
                    run.run(executor)
            finally:
                if made is not None:
                    with signals_ignored():  # a second Ctrl-C cannot cut the cleanup
                        made.close()
    except Interrupted as e:
        raise Interrupted(
            e.signum,
            f"{e.message}: {len(plan.records)} of {total} pairs done; "
            + _resume_hint(cache.folder, use_cache),
        ) from None
    finally:
        shown.close()
    return run


def _resume_hint(folder: Any, use_cache: bool) -> str:
    """What running the command again will do after a stop, as it will really happen.

    >>> _resume_hint("reports/x/cache", True)
    'finished pairs and shards are kept in reports/x/cache; run the same command again to resume'
    >>> _resume_hint(None, False)
    'nothing was kept: running it again starts over'
    """
    if not folder:
        return "nothing was kept: running it again starts over"
    if use_cache:
        return (
            f"finished pairs and shards are kept in {folder}; run the same command again to resume"
        )
    return (
        f"finished pairs and shards are kept in {folder}, but --no-cache does not read them: "
        "run the command again without --no-cache to resume from them (with it, every pair "
        "runs again from the start)"
    )
