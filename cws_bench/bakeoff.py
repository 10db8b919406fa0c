"""The bake-off: several segmenters over several gold corpora, one worker process per pair.

A bake-off is a TOML file (see ``cws_bench/configs/default.toml``)::

    name = "default"           # reports go to reports/<name>/
    seed = 2005                # resampling seed
    resamples = 1000           # bootstrap resamples
    timeout = 900              # seconds a pair may take
    batch_size = 500           # lines per segment() call
    correction = "holm"        # multiple comparisons: holm, bonferroni, fdr_bh or none

    [[corpora]]
    name = "pd1998"            # a registered corpus ...
    split = "test"
    dictionary = "corpus:pd1998"   # OOV dictionary (default: the corpus' standard one; "none")
    normalize = "none"
    convert = "none"           # e.g. "t2s": convert the input before segmenting (see CorpusSpec)
    optional = false           # true: skip the corpus when its data is not here

    [[corpora]]
    label = "mine"             # ... or files of your own
    gold = "gold.txt"          # segmented, any format read_corpus reads
    raw = "raw.txt"            # optional: the raw input (else the gold words joined)
    dictionary = "words.txt"

    [[segmenters]]
    name = "hmm"               # a registered adapter
    label = "hmm"              # the row name (default: the name)
    track = "closed"           # closed: only the corpus' training data; open: anything
    options = { corpus = "pd1998", split = "train" }
    optional = false           # true: skip when the adapter is not installed
    corpora = ["pd1998"]       # only on these corpus labels (default: every corpus)

Option values may say ``{corpus}``: it becomes the registered name of the
corpus being scored (closed tracks train on each corpus' own training data).

Each (segmenter, corpus) pair runs in its own worker process (``jobs`` at a
time) with a timeout; a crash or a timeout becomes a failed row and the rest go
on. Each finished pair is written to the run cache at once (a temporary file,
then a rename), keyed by everything that can change its numbers, so a rerun
after an interruption redoes only what is missing.

Statistics (cws_bench/metrics/significance.py): percentile bootstrap
intervals of P, R and F1 over sentences (``resamples`` resamples, ``seed``),
the SIGHAN bakeoff's ±2·sqrt(p(1−p)/n) (Emerson 2005; n: gold words for
recall, predicted words for precision), and a paired bootstrap test of F1 for
every two segmenters of the same track on a corpus (Koehn 2004), its
p-values corrected within each track for multiple comparisons
(``correction``, Holm-Bonferroni by default) by
:func:`cws_bench.results.judge_comparisons`. A segmenter scored on its own
training data is in no family and never wins.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import re
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from importlib import resources
from pathlib import Path
from typing import Any

from cws_bench.defaults import DEFAULT_BATCH_SIZE, DEFAULT_RESAMPLES, DEFAULT_SEED
from cws_bench.errors import CorpusUnavailableError, CwsBenchError
from cws_bench.experiment import (
    CACHE_VERSION,
    CorpusSpec,
    PairRecord,
    PairTask,
    SegmenterSpec,
    cache_key,
    contamination_warnings,
    corpus_dictionary,
    corpus_identity,
    environment,
    gold_and_raw,
    pair_signature,
    run_pair,
)
from cws_bench.io import PathLike, make_folder
from cws_bench.results import (
    BakeoffResult,
    Comparison,
    Interval,
    PairResult,
    judge_comparisons,
)

__all__ = [
    "BUNDLED_CONFIGS",
    "BakeoffConfig",
    "CorpusSpec",
    "SegmenterSpec",
    "cache_key",
    "contamination_warnings",
    "corpus_dictionary",
    "environment",
    "gold_and_raw",
    "load_config",
    "pair_signature",
    "run_bakeoff",
]

TRACKS = ("closed", "open")
SAFE_NAME = re.compile(r"[\w.+ -]{1,100}")
"""A bake-off name: a plain file name (Unicode letters allowed), the folder of its reports."""
BUNDLED_CONFIGS = ("default", "sighan2005", "neural", "domains")
CONFIDENCE = 0.95
ALPHA = 0.05
CORRECTION = "holm"  # multiple comparisons within a track: Holm-Bonferroni unless told

# The pair's experiment (specs, corpus resolution, identity, the worker's run) is
# cws_bench/experiment.py; these names stay importable from here.
_Task = PairTask


# ---------------------------------------------------------------------------
# Configuration


@dataclass(frozen=True)
class BakeoffConfig:
    """A whole bake-off: corpora, segmenters and settings."""

    name: str
    corpora: tuple[CorpusSpec, ...]
    segmenters: tuple[SegmenterSpec, ...]
    seed: int = DEFAULT_SEED
    resamples: int = DEFAULT_RESAMPLES
    timeout: float = 900.0
    batch_size: int = DEFAULT_BATCH_SIZE
    description: str = ""
    source: str | None = None
    correction: str = CORRECTION

    def to_dict(self) -> dict[str, Any]:
        """The configuration as plain data (what results.json records)."""
        return {
            "name": self.name,
            "description": self.description,
            "source": self.source,
            "seed": self.seed,
            "resamples": self.resamples,
            "timeout": self.timeout,
            "batch_size": self.batch_size,
            "correction": self.correction,
            "corpora": [vars_of(c) for c in self.corpora],
            "segmenters": [vars_of(s) for s in self.segmenters],
        }


def vars_of(obj: Any) -> dict[str, Any]:
    return {key: getattr(obj, key) for key in obj.__dataclass_fields__}


_CORPUS_KEYS = set(CorpusSpec.__dataclass_fields__)
_SEGMENTER_KEYS = set(SegmenterSpec.__dataclass_fields__)
_TOP_KEYS = {
    "name",
    "description",
    "seed",
    "resamples",
    "timeout",
    "batch_size",
    "correction",
    "corpora",
    "segmenters",
}


def _check_keys(where: str, table: dict[str, Any], allowed: set[str]) -> None:
    unknown = sorted(set(table) - allowed)
    if unknown:
        raise CwsBenchError(
            f"{where}: unknown key(s) {', '.join(unknown)}",
            f"allowed keys: {', '.join(sorted(allowed))}",
        )


def parse_config(data: dict[str, Any], *, source: str = "<config>") -> BakeoffConfig:
    """Build a BakeoffConfig from parsed TOML, checking every key and value.

    Relative file paths are taken relative to the configuration file's folder.

    Raises:
        CwsBenchError: a missing or unknown key, or a value of the wrong kind.
    """
    _check_keys(source, data, _TOP_KEYS)
    base = Path(source).resolve().parent if source and not source.startswith("<") else Path.cwd()
    corpora = []
    for index, table in enumerate(data.get("corpora", []), start=1):
        where = f"{source}: [[corpora]] #{index}"
        if not isinstance(table, dict):
            raise CwsBenchError(f"{where}: expected a table")
        _check_keys(where, table, _CORPUS_KEYS)
        if bool(table.get("name")) == bool(table.get("gold")):
            raise CwsBenchError(f"{where}: give either name (a registered corpus) or gold (a file)")
        spec = dict(table)
        for key in ("gold", "raw"):
            if spec.get(key):
                spec[key] = os.fspath(base / spec[key])
        if spec.get("dictionary") and not str(spec["dictionary"]).startswith(("corpus:", "jieba")):
            path = base / spec["dictionary"]
            spec["dictionary"] = os.fspath(path if path.exists() else spec["dictionary"])
        spec.setdefault("label", spec.get("name") or Path(spec["gold"]).stem)
        corpora.append(CorpusSpec(**spec))
    segmenters = []
    for index, table in enumerate(data.get("segmenters", []), start=1):
        where = f"{source}: [[segmenters]] #{index}"
        if not isinstance(table, dict):
            raise CwsBenchError(f"{where}: expected a table")
        _check_keys(where, table, _SEGMENTER_KEYS)
        if not table.get("name"):
            raise CwsBenchError(
                f"{where}: missing name (a registered segmenter)", "see `cws-bench segmenters`"
            )
        spec = dict(table)
        spec.setdefault("label", spec["name"])
        if spec.get("track", "open") not in TRACKS:
            raise CwsBenchError(f"{where}: track must be closed or open, not {spec['track']!r}")
        if not isinstance(spec.get("options", {}), dict):
            raise CwsBenchError(f"{where}: options must be a table")
        if spec.get("corpora") is not None:
            only = spec["corpora"]
            if not isinstance(only, list) or not all(isinstance(c, str) for c in only):
                raise CwsBenchError(f"{where}: corpora must be a list of corpus labels")
            spec["corpora"] = tuple(only)
        segmenters.append(SegmenterSpec(**spec))
    if not corpora or not segmenters:
        raise CwsBenchError(f"{source}: a bake-off needs at least one corpus and one segmenter")
    corpus_labels = {c.label for c in corpora}
    for segmenter in segmenters:
        unknown = sorted(set(segmenter.corpora or ()) - corpus_labels)
        if unknown:
            raise CwsBenchError(
                f"{source}: segmenter {segmenter.label}: no corpus labelled {', '.join(unknown)}",
                f"corpus labels: {', '.join(sorted(corpus_labels))}",
            )
    for kind, labels in (
        ("corpus", [c.label for c in corpora]),
        ("segmenter", [s.label for s in segmenters]),
    ):
        duplicates = sorted({label for label in labels if labels.count(label) > 1})
        if duplicates:
            raise CwsBenchError(
                f"{source}: {kind} label(s) used twice: {', '.join(duplicates)}",
                "give each a distinct label",
            )
    name = str(data.get("name") or Path(source).stem)
    if not SAFE_NAME.fullmatch(name) or name.startswith("."):
        # The name is a folder under reports/: "../x" or "/tmp/x" would write elsewhere.
        raise CwsBenchError(
            f"{source}: name {name!r} is not a plain file name",
            "use letters, digits, spaces and - _ . + (reports go to reports/<name>/; "
            "pass -o to write them elsewhere)",
        )
    try:
        config = BakeoffConfig(
            name=name,
            corpora=tuple(corpora),
            segmenters=tuple(segmenters),
            seed=int(data.get("seed", DEFAULT_SEED)),
            resamples=int(data.get("resamples", DEFAULT_RESAMPLES)),
            timeout=float(data.get("timeout", 900)),
            batch_size=int(data.get("batch_size", DEFAULT_BATCH_SIZE)),
            description=str(data.get("description", "")),
            source=source,
            correction=str(data.get("correction", CORRECTION)),
        )
    except (TypeError, ValueError) as e:
        raise CwsBenchError(f"{source}: {e}") from e
    from cws_bench.metrics.significance import CORRECTIONS

    if config.correction not in CORRECTIONS:
        raise CwsBenchError(
            f"{source}: correction must be one of {', '.join(CORRECTIONS)}, "
            f"not {config.correction!r}",
            "holm (Holm-Bonferroni) is the default; none leaves the p-values uncorrected",
        )
    return config


def load_config(config: PathLike | None = None) -> BakeoffConfig:
    """Read a bake-off configuration: a TOML file, or a bundled name (``default``, ``sighan2005``).

    Raises:
        CwsBenchError: the file is missing or not valid TOML (naming line and
            column), or its content is not a bake-off.
    """
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib

    name = "default" if config is None else os.fspath(config)
    if name in BUNDLED_CONFIGS and not Path(name).exists():
        text = resources.files("cws_bench.configs").joinpath(f"{name}.toml").read_text("utf-8")
        source = f"<bundled {name}>"
    else:
        path = Path(name)
        if not path.is_file():
            raise CwsBenchError(
                f"{name}: no such bake-off configuration",
                f"give a TOML file, or one of the bundled ones: {', '.join(BUNDLED_CONFIGS)}",
            )
        text = path.read_text(encoding="utf-8-sig")
        source = os.fspath(path)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise CwsBenchError(
            f"{source}: not valid TOML: {e}", "see https://toml.io for the syntax"
        ) from e
    return parse_config(data, source=source)


# ---------------------------------------------------------------------------
# Tasks and the worker


def _corpus_domains(corpora: Sequence[CorpusSpec], data_dir: str | None) -> dict[str, str]:
    """Corpus label -> the domain on its card (for the reports' across-corpora views)."""
    from cws_bench.corpora import get_corpus

    return {
        c.label: get_corpus(c.name, data_dir=data_dir).domain for c in corpora if c.name is not None
    }


def _worker(task: PairTask, connection: Any) -> None:
    """Entry point of a worker process: run the pair, send back a record or an error."""

    from cws_bench.workers import worker_started

    worker_started()

    def report(characters: int) -> None:
        connection.send(("progress", characters))

    try:
        try:
            record = run_pair(task, report)
        except (BrokenPipeError, ConnectionError):
            raise
        except CorpusUnavailableError as e:  # e.g. a crf's training data is not here
            connection.send(("skipped", str(e)))
        except CwsBenchError as e:
            connection.send(("failed", str(e)))
        except Exception as e:  # a segmenter's own bug: report it, the run goes on
            tail = traceback.format_exc().strip().splitlines()[-3:]
            connection.send(("failed", f"{type(e).__name__}: {e} ({' / '.join(tail)})"))
        else:
            connection.send(("done", record.to_dict()))
    except (BrokenPipeError, ConnectionError):
        pass  # the main process is gone: nobody to tell
    finally:
        connection.close()


# ---------------------------------------------------------------------------
# Scheduling


class _Cache:
    """Finished pairs as JSON files in a folder, written atomically."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self.warnings: list[str] = []  # invalid records found (each pair runs again)
        if folder is not None:
            make_folder(folder)

    def path(self, key: str) -> Path | None:
        return None if self.folder is None else self.folder / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        """The valid record of ``key``, or None (an invalid one adds a warning)."""
        from cws_bench.records import load_record

        path = self.path(key)
        if path is None:
            return None
        record, warning = load_record(path, version=CACHE_VERSION)
        if warning is not None:
            self.warnings.append(warning)
        return record

    def put(self, key: str, record: dict[str, Any]) -> None:
        from cws_bench.records import store_record

        path = self.path(key)
        if path is not None:
            store_record(path, record)


def _cached_record(cache: _Cache, key: str) -> PairRecord | None:
    """The cached record of a pair, or None when there is none or it cannot be read."""
    data = cache.get(key)
    if data is None:
        return None
    try:
        return PairRecord.from_dict(data)
    except (KeyError, TypeError, ValueError):
        return None  # not a record: run the pair again


@dataclass
class _Running:
    task: PairTask
    process: Any
    connection: Any
    started: float


def _run_tasks(
    tasks: Sequence[PairTask],
    *,
    jobs: int,
    timeout: float,
    on_done: Callable[[PairTask, str, Any], None],
    on_progress: Callable[[int], None] | None,
) -> None:
    """Run tasks in worker processes, ``jobs`` at a time, each with a timeout."""
    from cws_bench.workers import signals_ignored, stop_worker

    context = multiprocessing.get_context("spawn")
    pending = list(tasks)
    running: list[_Running] = []
    try:
        while pending or running:
            while pending and len(running) < jobs:
                task = pending.pop(0)
                parent, child = context.Pipe(duplex=False)
                process = context.Process(target=_worker, args=(task, child), daemon=True)
                process.start()
                child.close()
                running.append(_Running(task, process, parent, time.monotonic()))
            for item in list(running):
                finished = _poll(item, on_done, on_progress)
                if not finished and time.monotonic() - item.started > timeout:
                    stop_worker(item.process)
                    on_done(
                        item.task,
                        "timeout",
                        f"timed out after {timeout:g} s (raise `timeout` in the config)",
                    )
                    finished = True
                if finished:
                    running.remove(item)
            if running:
                multiprocessing.connection.wait(
                    [r.connection for r in running] + [r.process.sentinel for r in running],
                    timeout=0.5,
                )
    finally:
        with signals_ignored():  # interrupted: stop the workers and what they started
            for item in running:
                stop_worker(item.process)


def _poll(
    item: _Running,
    on_done: Callable[[PairTask, str, Any], None],
    on_progress: Callable[[int], None] | None,
) -> bool:
    """Read what a worker sent; True when it has finished (well or not)."""
    try:
        while item.connection.poll():
            kind, payload = item.connection.recv()
            if kind == "progress":
                if on_progress is not None:
                    on_progress(payload)
                continue
            item.process.join()
            status = {"done": "ok", "skipped": "skipped"}.get(kind, "failed")
            on_done(item.task, status, payload)
            return True
    except (EOFError, OSError):
        pass
    if not item.process.is_alive():
        item.process.join()
        code = item.process.exitcode
        reason = f"killed by signal {-code}" if code and code < 0 else f"exit code {code}"
        on_done(item.task, "failed", f"the worker process died ({reason})")
        return True
    return False


# ---------------------------------------------------------------------------
# Statistics


def _sighan_halfwidths(scores: dict[str, Any]) -> dict[str, float]:
    """±2·sqrt(p(1−p)/n) of the SIGHAN bakeoffs (Emerson 2005)."""
    out = {}
    for metric, n in (("recall", scores["gold_words"]), ("precision", scores["pred_words"])):
        p = scores[metric]
        out[metric] = 2 * (p * (1 - p) / n) ** 0.5 if n else 0.0
    return out


def _statistics(
    records: dict[tuple[str, str], PairRecord], config: BakeoffConfig
) -> tuple[dict[tuple[str, str], dict[str, Interval]], list[Comparison]]:
    """Bootstrap intervals per pair and paired comparisons per corpus.

    Per-sentence counts are the rows of cws_bench.sentence_counts.
    """
    import numpy as np

    from cws_bench.metrics import significance
    from cws_bench.sentence_counts import COLUMNS
    from cws_bench.sentence_counts import statistics as sentence_statistics

    statistics = sentence_statistics()

    def counts_of(key: tuple[str, str]) -> Any:
        rows = records[key].sentence_counts
        return np.asarray(rows, dtype=np.int64).reshape(-1, len(COLUMNS))

    intervals: dict[tuple[str, str], dict[str, Interval]] = {}
    for key in records:
        counts = counts_of(key)
        intervals[key] = {}
        if not len(counts):
            continue
        for name, statistic in statistics.items():
            ci = significance.bootstrap_confidence_interval(
                counts,
                statistic,
                n_resamples=config.resamples,
                confidence=CONFIDENCE,
                seed=config.seed,
            )
            intervals[key][name] = Interval(float(ci.low), float(ci.high))
    comparisons = []
    track_of = {s.label: s.track for s in config.segmenters}
    for corpus in config.corpora:
        labels = [s.label for s in config.segmenters if (corpus.label, s.label) in records]
        for i, a in enumerate(labels):
            for b in labels[i + 1 :]:
                if track_of[a] != track_of[b]:
                    continue  # tracks are ranked apart
                counts_a, counts_b = counts_of((corpus.label, a)), counts_of((corpus.label, b))
                if counts_a.shape != counts_b.shape or not len(counts_a):
                    continue
                test = significance.paired_bootstrap_test(
                    counts_a,
                    counts_b,
                    statistics["f1"],
                    n_resamples=config.resamples,
                    confidence=CONFIDENCE,
                    seed=config.seed,
                )
                assert test.low is not None  # a bootstrap test has an interval
                assert test.high is not None
                comparisons.append(
                    Comparison(
                        corpus=corpus.label,
                        a=a,
                        b=b,
                        metric="f1",
                        difference=float(test.difference),
                        interval=Interval(float(test.low), float(test.high)),
                        p_value=float(test.p_value),
                        significant=bool(test.p_value < ALPHA),
                    )
                )
    return intervals, comparisons


# ---------------------------------------------------------------------------
# The run


def run_bakeoff(
    config: BakeoffConfig | PathLike | None = None,
    *,
    output_dir: PathLike | None = None,
    jobs: int | None = None,
    data_dir: PathLike | None = None,
    use_cache: bool = True,
    progress: bool = False,
    write: bool = True,
) -> BakeoffResult:
    """Run a bake-off and write its reports.

    Args:
        config: a BakeoffConfig, a TOML file, a bundled name, or None (the default bake-off).
        output_dir: where reports and the run cache go (default ``reports/<name>``).
        jobs: worker processes at a time (default: the CPU count).
        data_dir: where corpora that need one are (e.g. the SIGHAN 2005 data).
        use_cache: reuse finished pairs from the run cache.
        progress: show progress on stderr: bars on a terminal, one line per
            finished pair otherwise (a CI log gets no carriage returns).
        write: write the reports (results.json, results.csv, leaderboard.md, report.html).

    Returns:
        The BakeoffResult (``.to_frame()`` gives a pandas DataFrame).

    Raises:
        CwsBenchError: a bad configuration, a corpus or segmenter that is not
            available (and not optional), or a report that cannot be written.
    """
    from cws_bench.identity import forget

    forget()  # files may have changed since an earlier run in this process
    if not isinstance(config, BakeoffConfig):
        config = load_config(config)
    started = time.perf_counter()
    output = Path(output_dir) if output_dir is not None else Path("reports") / config.name
    cache = _Cache(output / "cache" if use_cache or write else None)
    data = os.fspath(data_dir) if data_dir is not None else None
    jobs = max(1, jobs or os.cpu_count() or 1)

    notes: list[str] = []
    segmenters = _installed_segmenters(config, notes)

    tasks: list[PairTask] = []
    records: dict[tuple[str, str], PairRecord] = {}
    statuses: dict[tuple[str, str], tuple[str, str | None]] = {}
    cached: set[tuple[str, str]] = set()
    sizes: dict[str, int] = {}
    corpora = []
    for corpus in config.corpora:
        if corpus.optional and corpus.name is not None:
            from cws_bench.corpora import get_corpus

            named = get_corpus(corpus.name, data_dir=data)
            if corpus.split not in named.available_splits:
                notes.append(
                    f"skipped corpus {corpus.label}: not here ({named.availability().how_to_get})"
                )
                continue
        corpora.append(corpus)
        identity = corpus_identity(corpus, data)
        sizes[corpus.label] = identity.characters
        for spec, info in segmenters:
            if not spec.runs_on(corpus):
                continue
            options = spec.options_for(corpus, data)
            key = cache_key(corpus, spec.name, options, identity, info.version, data_dir=data)
            task = PairTask(corpus, spec, options, key, config.batch_size, data)
            record = _cached_record(cache, key) if use_cache else None
            if record is not None:
                records[corpus.label, spec.label] = record
                statuses[corpus.label, spec.label] = ("ok", None)
                cached.add((corpus.label, spec.label))
            else:
                tasks.append(task)

    notes.extend(cache.warnings)
    kinds = {spec.label: info.kind for spec, info in segmenters}
    tasks.sort(
        key=lambda t: (-sizes[t.corpus.label], _KIND_ORDER.get(kinds[t.segmenter.label] or "", 3))
    )
    bar = chars_bar = None
    lines = _PairLines(len(tasks)) if progress and tasks and not _interactive() else None
    if progress and tasks and lines is None:
        from tqdm import tqdm

        bar = tqdm(total=len(tasks), desc="pairs", unit="pair", file=sys.stderr)
        chars_bar = tqdm(desc="segmenting", unit="char", unit_scale=True, file=sys.stderr)

    def on_done(task: PairTask, status: str, payload: Any) -> None:
        pair = (task.corpus.label, task.segmenter.label)
        if status == "ok":
            records[pair] = PairRecord.from_dict(payload)
            cache.put(task.key, payload)
            statuses[pair] = ("ok", None)
        else:
            statuses[pair] = (status, str(payload))
        if bar is not None:
            bar.update(1)
            bar.set_postfix_str(f"{task.segmenter.label} on {task.corpus.label}: {status}")
        if lines is not None:
            lines.done(task.segmenter.label, task.corpus.label, status)

    def on_progress(characters: int) -> None:
        if chars_bar is not None:
            chars_bar.update(characters)

    from cws_bench.workers import Interrupted, signals_raise

    try:
        with signals_raise():
            _run_tasks(
                tasks, jobs=jobs, timeout=config.timeout, on_done=on_done, on_progress=on_progress
            )
    except Interrupted as e:
        kept = f"; finished pairs are kept in {cache.folder}" if cache.folder else ""
        raise Interrupted(
            e.signum,
            f"{e.message}: {len(records)} of {len(config.corpora) * len(segmenters)} pairs "
            f"done{kept}; run the same command again to resume",
        ) from None
    finally:
        for progress_bar in (bar, chars_bar):
            if progress_bar is not None:
                progress_bar.close()

    intervals, comparisons = _statistics(records, config)
    pairs = []
    for corpus in corpora:
        for spec, info in segmenters:
            if not spec.runs_on(corpus):
                continue
            pair = (corpus.label, spec.label)
            record = records.get(pair)
            if record is None:
                status, error = statuses.get(pair, ("failed", "not run"))
                pairs.append(_failed_pair(corpus, spec, info, status, error, data))
            else:
                scored = _scored_pair(corpus, spec, record, intervals.get(pair, {}), config)
                pairs.append(replace(scored, cached=pair in cached))
    result = BakeoffResult(
        name=config.name,
        config=config.to_dict(),
        pairs=tuple(pairs),
        comparisons=judge_comparisons(
            pairs, comparisons, alpha=ALPHA, correction=config.correction
        ),
        settings={
            "seed": config.seed,
            "resamples": config.resamples,
            "confidence": CONFIDENCE,
            "alpha": ALPHA,
            "correction": config.correction,
            "jobs": jobs,
            "notes": notes,
            "corpus_domains": _corpus_domains(corpora, data),
        },
        environment={**environment(), **model_devices(records)},
        created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        duration_s=time.perf_counter() - started,
    )
    if write:
        from cws_bench.reports import write_reports

        write_reports(result, output)
    return result


def _installed_segmenters(config: BakeoffConfig, notes: list[str]) -> list[tuple[Any, Any]]:
    """The configuration's segmenters with their registry info; optional missing ones noted.

    Raises:
        CwsBenchError: an unknown segmenter, or one that is not installed and not optional.
    """
    from cws_bench.segmenters import list_segmenters

    available = {info.name: info for info in list_segmenters()}
    segmenters = []
    for spec in config.segmenters:
        info = available.get(spec.name)
        if info is None:
            raise CwsBenchError(
                f"{config.source}: unknown segmenter {spec.name!r}",
                "see `cws-bench segmenters` for the names",
            )
        if not info.available:
            if spec.optional:
                notes.append(f"skipped {spec.label}: not installed ({info.install})")
                continue
            raise CwsBenchError(
                f"segmenter {spec.name!r} is not installed",
                f"install it with: {info.install}, or mark it optional",
            )
        segmenters.append((spec, info))
    return segmenters


def _failed_pair(
    corpus: CorpusSpec,
    spec: SegmenterSpec,
    info: Any,
    status: str,
    error: str | None,
    data_dir: str | None,
) -> PairResult:
    """The row of a pair that failed, timed out or did not run."""
    return PairResult(
        corpus=corpus.label,
        segmenter=spec.label,
        adapter=spec.name,
        track=spec.track,
        status=status,
        error=error,
        segmenter_info={
            "name": spec.name,
            "version": info.version,
            "options": spec.options_for(corpus, data_dir),
        },
    )


def _scored_pair(
    corpus: CorpusSpec,
    spec: SegmenterSpec,
    record: PairRecord,
    intervals: dict[str, Interval],
    config: BakeoffConfig,
) -> PairResult:
    """The row of a scored pair, from its record and its bootstrap intervals."""
    return PairResult(
        corpus=corpus.label,
        segmenter=spec.label,
        adapter=spec.name,
        track=spec.track,
        status="ok",
        scores=record.scores,
        intervals=intervals,
        sighan_intervals=_sighan_halfwidths(record.scores),
        timing=record.timing,
        peak_memory_mib=record.peak_memory_mib,
        warnings=record.warnings,
        segmenter_info=record.segmenter_info,
        signature=record.signature(
            spec.name, seed=config.seed, resamples=config.resamples, convert=corpus.convert
        ),
        analysis=record.analysis,
        contaminated=record.contaminated,
    )


def _interactive() -> bool:
    """Whether stderr is a terminal (progress bars), or a log (one line per pair)."""
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


class _PairLines:
    """Progress off a terminal: one plain line per finished pair, no carriage returns."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.finished = 0
        self.started = time.monotonic()

    def done(self, segmenter: str, corpus: str, status: str) -> None:
        self.finished += 1
        elapsed = time.monotonic() - self.started
        # written as tqdm writes its bars: only when the caller asked for progress
        sys.stderr.write(
            f"[{self.finished}/{self.total}] {segmenter} on {corpus}: {status} "
            f"({elapsed:.1f} s since the start)\n"
        )
        sys.stderr.flush()


# Adapters that ship a trained model are usually the slowest to run: start them first,
# so that a long pair does not begin last and keep the others waiting.
_KIND_ORDER = {"pretrained": 0, "statistical": 1, "dictionary": 2}


def model_devices(records: dict[tuple[str, str], PairRecord]) -> dict[str, Any]:
    """``{"models": {segmenter: its model, device, dtype, GPU}}`` of the neural adapters run.

    Empty when no segmenter recorded a ``model`` in its metadata.
    """
    models = {
        label: record.segmenter_info["model"]
        for (_, label), record in sorted(records.items(), key=lambda item: item[0])
        if record.segmenter_info.get("model")
    }
    return {"models": models} if models else {}
