"""Recording a baseline and rerunning it: each corpus segmented (timed), scored and signed.

:func:`record_baseline` runs a segmenter configuration on some corpora and gives a
:class:`~cws_bench.regression.baseline.Baseline`; :func:`rerun_baseline` runs the
configuration a baseline records again, on its corpora, with its settings.

Speed
-----
Speed is measured the way ``timeit`` measures: one *run* segments the whole
corpus, again and again until at least :data:`MIN_RUN_SECONDS` have passed
(a 40-sentence corpus takes milliseconds, far below the clock's noise), and
counts characters per second of time spent inside ``segment()``. A baseline
takes the median of ``speed_runs`` runs (default :data:`DEFAULT_SPEED_RUNS`)
and keeps every run, so the spread is on record. Speed is still noisy:
other load on the machine, CPU frequency scaling and thermal throttling
move it between two runs of the same code (five baselines of jieba on the
sample corpus in a row, on a shared 2-CPU machine: 198,439 to 266,460
characters/s; runs within one baseline up to 50 % apart), and a different
machine makes it incomparable. Bound it loosely (``--max-speed-drop 30`` or
more), and only on the machine that made the baseline (a check says when the
machine differs).
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cws_bench.defaults import DEFAULT_BATCH_SIZE
from cws_bench.errors import CwsBenchError
from cws_bench.regression.baseline import (
    Baseline,
    Bounds,
    CorpusRecord,
    RecordIdentity,
    SegmenterConfig,
    Speed,
)
from cws_bench.regression.tokens import keeping_token_ids, record_token_ids
from cws_bench.run.config import CorpusSpec
from cws_bench.run.identity import Memo, environment, options_identity
from cws_bench.run.pair import PairInput, SegmenterMetadata, pair_signature, score_pair
from cws_bench.run.plan import cache_key, corpus_dictionary, gold_and_raw, identity_of
from cws_bench.text.checksums import sentences_checksum
from cws_bench.text.io import PathLike

if TYPE_CHECKING:
    from cws_bench.run.executors import Executor
    from cws_bench.segmenters import Segmenter

__all__ = [
    "DEFAULT_BATCH_SIZE",
    "DEFAULT_SPEED_RUNS",
    "MIN_RUN_SECONDS",
    "as_corpus_spec",
    "measure_speed",
    "record_baseline",
    "rerun_baseline",
]

DEFAULT_SPEED_RUNS = 3
LEGACY_BATCH_SIZE = 500
"""The batch size of a baseline file that records none (files older than the setting)."""
LEGACY_SEED = 12345
"""The seed of a baseline file that records none: DEFAULT_SEED was 12345 then."""
MIN_RUN_SECONDS = 0.2
"""The shortest timed run: a run repeats the corpus until it has lasted this long."""

Segment = Callable[[list[str]], list[list[str]]]
"""A batch segmenter: raw lines in, one list of words per line out."""


def as_corpus_spec(corpus: str | CorpusSpec, *, dictionary: str | None = None) -> CorpusSpec:
    """A corpus to run on: a registered name (``sample``, ``pd1998:train``) or a gold file.

    A file is any segmented file :func:`cws_bench.corpora.read_corpus` reads;
    its raw input is the gold words joined.

    >>> spec = as_corpus_spec("sample")
    >>> spec.label, spec.name, spec.split, spec.gold
    ('sample', 'sample', 'test', None)
    >>> as_corpus_spec("pd1998:train").label
    'pd1998:train'

    Raises:
        CwsBenchError: neither a registered corpus nor an existing file.
    """
    if isinstance(corpus, CorpusSpec):
        return corpus if dictionary is None else replace(corpus, dictionary=dictionary)
    from cws_bench.corpora import corpus_names, parse_corpus_spec

    name, split = parse_corpus_spec(corpus)
    if name in corpus_names() and not os.path.isfile(corpus):
        label = f"{name}:{split}" if split else name
        return CorpusSpec(label=label, name=name, split=split or "test", dictionary=dictionary)
    if os.path.isfile(corpus):
        return CorpusSpec(
            label=Path(corpus).stem, gold=os.path.abspath(corpus), dictionary=dictionary
        )
    raise CwsBenchError(
        f"{corpus}: neither a registered corpus nor a file",
        f"give a corpus name ({', '.join(corpus_names())}), NAME:SPLIT, or a segmented gold file",
    )


def measure_speed(
    segment: Segment,
    lines: Sequence[str],
    *,
    runs: int = DEFAULT_SPEED_RUNS,
    batch_size: int = DEFAULT_BATCH_SIZE,
    min_run_seconds: float = MIN_RUN_SECONDS,
    clock: Callable[[], float] = time.perf_counter,
) -> tuple[Speed, list[list[str]], int]:
    """Time ``segment`` over ``lines``: the median of ``runs`` runs of at least ``min_run_seconds``.

    Each pass over the lines is one :class:`~cws_bench.segmenters.stream.SegmentRun`
    (time inside ``segment()`` only; characters are the lines' non-whitespace
    characters, as every speed of the suite counts them). The first pass of the
    first run is the segmentation returned; every later pass is compared with it.

    Args:
        runs: timed runs (at least 1).
        clock: the timer (``time.perf_counter``; tests pass a fake one).

    Returns:
        The Speed, the segmentation, and how many later passes gave a different one.
    """
    from cws_bench.segmenters.stream import SegmentRun

    runs = max(1, runs)
    characters = 0
    first: list[list[str]] | None = None
    differing = 0
    speeds: list[float] = []
    passes = 1
    for run in range(runs):
        elapsed = 0.0
        done = 0
        while done < passes or (run == 0 and elapsed < min_run_seconds):
            timed = SegmentRun(segment, lines, batch_size=batch_size, clock=clock)
            output = list(timed)
            elapsed += timed.seconds
            characters = timed.characters
            if first is None:
                first = output
            elif output != first:
                differing += 1
            done += 1
            if not characters:
                break
        if run == 0:
            passes = done  # later runs repeat the corpus as often as the first needed
        speeds.append(characters * done / elapsed if elapsed > 0 else float("inf"))
    speed = Speed(
        chars_per_s=statistics.median(speeds),
        runs=tuple(speeds),
        characters=characters,
        passes=passes,
    )
    return speed, first or [], differing


@dataclass
class _Runner:
    """One segmenter, ready to run on corpora (kept private), with the run's memo of what
    its identity read (each file once in the run)."""

    config: SegmenterConfig
    segment: Segment
    info: dict[str, Any]
    trained_on: Any = None
    load_s: float | None = None
    tokenizer: Any = None  # a segmenter with token ids (regression.tokens), or None
    memo: Memo = field(default_factory=Memo)


def _runner(
    segmenter: str | Segmenter | Callable[..., Any],
    *,
    options: Mapping[str, Any] | None = None,
    name: str | None = None,
    version: str | None = None,
    batch: bool = False,
) -> _Runner:
    """Build (or wrap) the segmenter; describe it as the signature sees it."""
    from cws_bench.segmenters import Segmenter, check_segmentation, get_segmenter

    options = dict(options or {})
    memo = Memo()  # a new run: files edited since an earlier one are read again
    if isinstance(segmenter, (str, Segmenter)):
        began = time.perf_counter()
        built = get_segmenter(segmenter, **options) if isinstance(segmenter, str) else segmenter
        load_s = time.perf_counter() - began if isinstance(segmenter, str) else None
        config = (
            SegmenterConfig(segmenter, options)
            if isinstance(segmenter, str)
            else SegmenterConfig(name or built.name, dict(built.options), registered=False)
        )
        # as the signature sees it: files named by options go by their content
        described = dict(built.metadata())
        described["options"] = options_identity(described["options"], memo)
        return _Runner(config, built.segment, described, built.trained_on, load_s, built, memo)
    if not callable(segmenter):
        raise CwsBenchError(
            f"cannot segment with {segmenter!r}",
            "give a segmenter name, a Segmenter, or a callable (str -> list of words)",
        )
    label = name or getattr(segmenter, "__qualname__", None) or type(segmenter).__name__
    function = segmenter

    def segment(lines: list[str]) -> list[list[str]]:
        if batch:
            output = function(lines)
        else:
            output = [function(line) if line.strip() else [] for line in lines]
        return check_segmentation(label, lines, output)

    config = SegmenterConfig(label, {}, registered=False, version=version)
    info: dict[str, Any] = {
        "name": label,
        "version": version,
        "kind": None,
        "description": "a Python callable",
        "trained_on": None,
        "options": {},
    }
    return _Runner(config, segment, info)


def _run_corpus(
    runner: _Runner,
    corpus: CorpusSpec,
    data_dir: str | None,
    settings: Mapping[str, Any],
    executor: Executor | None,
    shard_chars: int | None,
) -> CorpusRecord:
    """Segment one corpus (timed; in shards on ``executor`` if given), score it, sign it, with
    a baseline's ``settings``."""
    gold, raw = gold_and_raw(corpus, data_dir)
    if not any(gold):
        raise CwsBenchError(
            f"corpus {corpus.label}: no words to segment", "give a corpus with some text"
        )
    dictionary = corpus_dictionary(corpus, data_dir)
    # A tokenizer keeps the ids of the lines it segments, so they are not computed again
    # (on an executor the segmenting pass runs elsewhere, and the ids are computed here).
    with keeping_token_ids(runner.tokenizer):
        if executor is not None:
            speed, pred, differing = _sharded_speed(
                runner, raw, executor, settings["batch_size"], shard_chars
            )
        else:
            speed, pred, differing = measure_speed(
                runner.segment,
                raw,
                runs=settings["speed_runs"],
                batch_size=settings["batch_size"],
                min_run_seconds=settings["min_run_seconds"],
            )
        token_ids = None if runner.tokenizer is None else record_token_ids(runner.tokenizer, raw)
    speed = replace(speed, load_s=runner.load_s)
    scored = score_pair(PairInput(corpus, gold, raw, dictionary, data_dir), pred, runner.trained_on)
    checksum = sentences_checksum(iter(gold))  # the gold's, as the scorer signs it
    dictionary_checksum = None if dictionary is None else dictionary.checksum
    warnings = list(scored.warnings)
    if differing:
        warnings.append(
            f"not deterministic: {differing} of the timed passes gave a different segmentation "
            "than the first (the scores are the first pass')"
        )
    name = runner.config.name
    scores = scored.result.to_dict()
    key = cache_key(
        corpus,
        name,
        runner.info["options"],
        identity_of(gold, raw, dictionary),
        runner.info.get("version"),
        data_dir=data_dir,
        libraries=None if runner.config.registered else {},
        memo=runner.memo,
    )
    info = SegmenterMetadata.from_dict(runner.info)
    signature = pair_signature(
        scores["signature"], name, info, seed=settings["seed"], resamples=settings["resamples"]
    )
    return CorpusRecord(
        corpus=corpus,
        scores=scores,
        speed=speed,
        segmenter=info,
        identity=RecordIdentity(checksum, dictionary_checksum, key, signature),
        sentence_counts=scored.sentence_counts,
        segmentation=(
            tuple(" ".join(words) for words in pred) if settings["keep_segmentation"] else None
        ),
        warnings=tuple(warnings),
        token_ids=token_ids,
        gold=tuple(tuple(words) for words in gold),
    )


def _sharded_speed(
    runner: _Runner, raw: list[str], executor: Executor, batch_size: int, shard_chars: int | None
) -> tuple[Speed, list[list[str]], int]:
    """The words of ``raw`` segmented in shards on ``executor``, and the speed: characters
    per second of ``segment()`` summed over the shards (one pass, so one run)."""
    from cws_bench.run.config import BAKEOFF_SHARD_CHARS
    from cws_bench.run.execute import segment_with
    from cws_bench.run.tasks import PairSetup, segmenter_key
    from cws_bench.segmenters.stream import count_characters

    config = runner.config
    if not config.registered:
        raise CwsBenchError(
            f"{config.name}: only a registered segmenter runs on an executor",
            "leave out the executor for a Segmenter object or a callable",
        )
    options = dict(config.options)
    setup = PairSetup(
        config.name,
        options,
        batch_size,
        "none",
        "open",
        segmenter_key(config.name, options, memo=runner.memo),
    )
    pred, seconds = segment_with(
        executor, setup, raw, shard_chars=shard_chars or BAKEOFF_SHARD_CHARS
    )
    characters = count_characters(raw)
    rate = characters / seconds if seconds > 0 else 0.0
    return Speed(rate, (rate,), characters, 1), pred, 0


def record_baseline(
    segmenter: str | Segmenter | Callable[..., Any],
    corpora: Sequence[str | CorpusSpec],
    *,
    options: Mapping[str, Any] | None = None,
    name: str | None = None,
    version: str | None = None,
    batch: bool = False,
    dictionary: str | None = None,
    bounds: Bounds | None = None,
    data_dir: PathLike | None = None,
    speed_runs: int = DEFAULT_SPEED_RUNS,
    batch_size: int = DEFAULT_BATCH_SIZE,
    min_run_seconds: float = MIN_RUN_SECONDS,
    keep_segmentation: bool = True,
    seed: int | None = None,
    resamples: int | None = None,
    executor: Executor | None = None,
    shard_chars: int | None = None,
) -> Baseline:
    """Run a segmenter on corpora and record its scores, speed and signature.

    Args:
        segmenter: a registered name (built with ``options``), a
            :class:`~cws_bench.segmenters.Segmenter`, or a callable: ``str ->
            list[str]``, or with ``batch=True`` ``list[str] -> list[list[str]]``.
        corpora: registered corpus names (``NAME`` or ``NAME:SPLIT``), gold
            files, or CorpusSpecs.
        name, version: the name (default: its ``__qualname__``) and version of a callable.
        batch: the callable takes a batch of lines.
        dictionary: the OOV dictionary (a ``--dict`` spec) for every corpus
            (default: a registered corpus' standard one; none for files).
        bounds: the bounds a check applies (default: F1 may not drop).
        data_dir: where corpora that need one keep their data.
        speed_runs, batch_size, min_run_seconds: see :func:`measure_speed`.
        keep_segmentation: store the segmentation, so a check can say what changed.
        seed, resamples: those of a check's paired bootstrap test (default
            :data:`~cws_bench.metrics.significance.DEFAULT_SEED`, 1000).
        executor: a :class:`~cws_bench.run.executors.Executor` (registered segmenters
            only): segment each corpus once, in shards of whole batches
            (``shard_chars``), on its workers; the speed is then that one pass'
            characters per second of ``segment()``. Same scores.
        shard_chars: characters per shard (default 20,000).

    Raises:
        CwsBenchError: an unknown or unavailable segmenter or corpus, bad
            options, or a segmenter that breaks the lossless-join guarantee.
    """
    from cws_bench.metrics.significance import DEFAULT_RESAMPLES, DEFAULT_SEED

    if not corpora:
        raise CwsBenchError("no corpus to record a baseline on", "give at least one --corpus")
    specs = [as_corpus_spec(corpus, dictionary=dictionary) for corpus in corpora]
    labels = [spec.label for spec in specs]
    duplicates = sorted({label for label in labels if labels.count(label) > 1})
    if duplicates:
        raise CwsBenchError(f"corpus given twice: {', '.join(duplicates)}", "give each corpus once")
    runner = _runner(segmenter, options=options, name=name, version=version, batch=batch)
    settings = {
        "speed_runs": speed_runs,
        "batch_size": batch_size,
        "min_run_seconds": min_run_seconds,
        "keep_segmentation": keep_segmentation,
        "seed": DEFAULT_SEED if seed is None else seed,
        "resamples": DEFAULT_RESAMPLES if resamples is None else resamples,
    }
    return _record(runner, specs, bounds or Bounds(), settings, data_dir, executor, shard_chars)


def _record(
    runner: _Runner,
    specs: Sequence[CorpusSpec],
    bounds: Bounds,
    settings: dict[str, Any],
    data_dir: PathLike | None,
    executor: Executor | None,
    shard_chars: int | None,
) -> Baseline:
    data = None if data_dir is None else os.fspath(data_dir)
    records = tuple(
        _run_corpus(runner, spec, data, settings, executor, shard_chars) for spec in specs
    )
    config = runner.config
    if config.version is None:
        config = replace(config, version=runner.info.get("version"))
    return Baseline(
        segmenter=config,
        records=records,
        bounds=bounds,
        settings=settings,
        environment=environment(),
        created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
    )


def rerun_baseline(
    baseline: Baseline,
    segmenter: str | Segmenter | Callable[..., Any] | None = None,
    *,
    options: Mapping[str, Any] | None = None,
    version: str | None = None,
    batch: bool = False,
    data_dir: PathLike | None = None,
    speed_runs: int | None = None,
    executor: Executor | None = None,
    shard_chars: int | None = None,
) -> Baseline:
    """Run the baseline's configuration again: same segmenter, options, corpora and settings.

    Args:
        segmenter: the segmenter to run, as :func:`record_baseline` takes it; None
            rebuilds the recorded registered segmenter from its name and options.
        options: options of a registered segmenter; with ``segmenter=None`` they
            replace the recorded ones.
        speed_runs: timed runs (default: as recorded).
        version, batch, data_dir, executor, shard_chars: as :func:`record_baseline`'s.

    Returns:
        A Baseline of the new run, with the old one's bounds.

    Raises:
        CwsBenchError: the baseline is of a callable and none is given, or the
            run fails.
    """
    from cws_bench.metrics.significance import DEFAULT_RESAMPLES

    config = baseline.segmenter
    if segmenter is None:
        if not config.registered:
            raise CwsBenchError(
                f"the baseline was recorded with a Python callable ({config.name}), which "
                "cannot be rebuilt from the file",
                "run it through the pytest plugin (cws_regression), or pass it to rerun_baseline",
            )
        runner = _runner(config.name, options={**config.options, **(options or {})})
    elif isinstance(segmenter, str):
        runner = _runner(segmenter, options=options)
    else:
        runner = _runner(segmenter, name=config.name, version=version, batch=batch)
    settings = dict(baseline.settings)
    settings.setdefault("speed_runs", DEFAULT_SPEED_RUNS)
    settings.setdefault("batch_size", LEGACY_BATCH_SIZE)
    settings.setdefault("min_run_seconds", MIN_RUN_SECONDS)
    settings.setdefault("keep_segmentation", True)
    settings.setdefault("seed", LEGACY_SEED)
    settings.setdefault("resamples", DEFAULT_RESAMPLES)
    if speed_runs is not None:
        settings["speed_runs"] = speed_runs
    corpora = [record.corpus for record in baseline.records]
    return _record(runner, corpora, baseline.bounds, settings, data_dir, executor, shard_chars)
