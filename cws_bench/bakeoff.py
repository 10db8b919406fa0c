"""The bake-off: several segmenters over several gold corpora, in shards on one executor.

A bake-off is a TOML file (see ``cws_bench/configs/default.toml``)::

    name = "default"           # reports go to reports/<name>/
    seed = 2005                # resampling seed
    resamples = 1000           # bootstrap resamples
    timeout = 900              # seconds a shard may take
    batch_size = 500           # lines per segment() call
    correction = "holm"        # multiple comparisons: holm, bonferroni, fdr_bh or none

    [settings]                 # how the run is spread over workers (changes no number)
    executor = "local"         # local worker processes, or dask
    scheduler = "tcp://10.0.0.5:8786"   # a Dask scheduler (default: a local cluster)
    shard_chars = 20000        # characters per shard, in whole batches
    retries = 2                # runs again of a shard whose worker died or hung

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
    optional = false           # true: skip when the adapter or its model is not here
    corpora = ["pd1998"]       # only on these corpus labels (default: every corpus)

Option values may say ``{corpus}``: it becomes the registered name of the
corpus being scored (closed tracks train on each corpus' own training data).

Each (segmenter, corpus) pair is cut into shards (of whole batches, or of lines
for a segmenter that segments each line on its own), and every
shard of every pair runs on one executor (:mod:`cws_bench.runner`; local
worker processes or a Dask cluster, chosen by ``[settings]``: ``executor``,
``scheduler``, ``shard_chars``, ``retries``), whose workers keep the
segmenters they loaded. A segmenter that raises, or a shard that keeps
crashing or timing out, becomes a failed row and the rest go on. Each
finished shard and pair is written to the run cache at once (a temporary
file, then a rename), keyed by everything that can change its numbers, so a
rerun after an interruption redoes only what is missing, shard by shard.
The numbers do not depend on the executor or the shard size.

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

import os
import re
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, cast

from cws_bench import validate
from cws_bench.configs import BUNDLED_CONFIGS, bundled_text
from cws_bench.defaults import DEFAULT_BATCH_SIZE, DEFAULT_RESAMPLES, DEFAULT_SEED
from cws_bench.errors import CwsBenchError
from cws_bench.executors import DEFAULT_RETRIES, EXECUTORS, Executor, ExecutorSettings
from cws_bench.experiment import (
    CACHE_VERSION,
    CorpusSpec,
    PairRecord,
    SegmenterSpec,
    cache_key,
    contamination_warnings,
    corpus_dictionary,
    environment,
    gold_and_raw,
    pair_result,
    pair_signature,
)
from cws_bench.io import PathLike
from cws_bench.results import (
    BakeoffResult,
    Comparison,
    Interval,
    PairResult,
    judge_comparisons,
)
from cws_bench.runner import BAKEOFF_SHARD_CHARS, Progress, Run, RunCache, RunPlan, plan_run

__all__ = [
    "BUNDLED_CONFIGS",
    "CACHE_VERSION",
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
CONFIDENCE = 0.95
ALPHA = 0.05
CORRECTION = "holm"  # multiple comparisons within a track: Holm-Bonferroni unless told
DEFAULT_SETTINGS = ExecutorSettings(
    executor="local", shard_chars=BAKEOFF_SHARD_CHARS, retries=DEFAULT_RETRIES
)
"""A bake-off's ``[settings]`` when its configuration sets none."""

# The pair's experiment (specs, corpus resolution, identity, the worker's run) is
# cws_bench/experiment.py, the runner (shards, executor, cache) cws_bench/runner.py;
# these names stay importable from here.


# ---------------------------------------------------------------------------
# Configuration


@dataclass(frozen=True)
class BakeoffConfig:
    """A whole bake-off: corpora, segmenters and settings.

    ``settings`` (executor, scheduler, shard_chars, retries) come from the
    TOML's ``[settings]`` table (how the run is spread over workers: they
    change no number); the shard timeout is ``timeout``.
    """

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
    settings: ExecutorSettings = DEFAULT_SETTINGS

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
            "settings": {key: getattr(self.settings, key) for key in sorted(_SETTINGS_KEYS)},
        }


def vars_of(obj: Any) -> dict[str, Any]:
    return {key: getattr(obj, key) for key in obj.__dataclass_fields__}


_CORPUS_KEYS = set(CorpusSpec.__dataclass_fields__)
_SEGMENTER_KEYS = set(SegmenterSpec.__dataclass_fields__)
_SETTINGS_KEYS = {"executor", "scheduler", "shard_chars", "retries"}
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
    "settings",
}


def _check_keys(where: str, table: Any, allowed: set[str]) -> None:
    if not isinstance(table, dict):
        raise CwsBenchError(f"{where}: expected a table")
    unknown = sorted(set(table) - allowed)
    if unknown:
        from cws_bench.suggest import did_you_mean

        close = [hint for key in unknown if (hint := did_you_mean(key, sorted(allowed), n=1))]
        listed = f"allowed keys: {', '.join(sorted(allowed))}"
        raise CwsBenchError(
            f"{where}: unknown key(s) {', '.join(unknown)}",
            f"{'; '.join(close)} ({listed})" if close else listed,
        )


def _parse_corpus(table: Any, where: str, base: Path) -> CorpusSpec:
    """One ``[[corpora]]`` table; relative paths are relative to ``base``."""
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
    return CorpusSpec(**spec)


def _parse_segmenter(table: Any, where: str) -> SegmenterSpec:
    """One ``[[segmenters]]`` table."""
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
    return SegmenterSpec(**spec)


def _check_labels(
    source: str, corpora: Sequence[CorpusSpec], segmenters: Sequence[SegmenterSpec]
) -> None:
    """Every segmenter's corpora exist; no label is used twice."""
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


def _run_name(data: dict[str, Any], source: str) -> str:
    name = str(data.get("name") or Path(source).stem)
    if not SAFE_NAME.fullmatch(name) or name.startswith("."):
        # The name is a folder under reports/: "../x" or "/tmp/x" would write elsewhere.
        raise CwsBenchError(
            f"{source}: name {name!r} is not a plain file name",
            "use letters, digits, spaces and - _ . + (reports go to reports/<name>/; "
            "pass -o to write them elsewhere)",
        )
    return name


def _parse_settings(data: dict[str, Any], source: str) -> dict[str, Any]:
    """The ``[settings]`` table: executor, scheduler, shard_chars, retries."""
    table = data.get("settings", {})
    _check_keys(f"{source}: [settings]", table, _SETTINGS_KEYS)
    settings = dict(table)
    if settings.get("executor", "local") not in EXECUTORS:
        raise CwsBenchError(
            f"{source}: [settings] executor must be one of {', '.join(EXECUTORS)}, "
            f"not {settings['executor']!r}"
        )
    for key in ("shard_chars", "retries"):
        value = settings.get(key, 1)
        if not isinstance(value, int) or isinstance(value, bool) or value < (key == "shard_chars"):
            raise CwsBenchError(f"{source}: [settings] {key} must be a whole number, not {value!r}")
    return settings


def parse_config(data: dict[str, Any], *, source: str = "<config>") -> BakeoffConfig:
    """Build a BakeoffConfig from parsed TOML, checking every key and value.

    Relative file paths are taken relative to the configuration file's folder.

    Raises:
        CwsBenchError: a missing or unknown key, or a value of the wrong kind.
    """
    base = Path(source).resolve().parent if source and not source.startswith("<") else Path.cwd()
    found: list[CwsBenchError] = []  # every table's problems, reported together

    def parse(make: Any, *args: Any) -> Any:
        try:
            return make(*args)
        except CwsBenchError as e:
            found.append(e)
            return None

    parse(_check_keys, source, data, _TOP_KEYS)
    corpora = [
        parse(_parse_corpus, table, f"{source}: [[corpora]] #{index}", base)
        for index, table in enumerate(data.get("corpora", []), start=1)
    ]
    segmenters = [
        parse(_parse_segmenter, table, f"{source}: [[segmenters]] #{index}")
        for index, table in enumerate(data.get("segmenters", []), start=1)
    ]
    if len(found) > 1:
        raise validate.ConfigurationError(
            source, [validate.Problem("", e.message, e.hint) for e in found]
        )
    if found:
        raise found[0]
    _check_labels(source, corpora, segmenters)
    try:
        config = BakeoffConfig(
            name=_run_name(data, source),
            corpora=tuple(corpora),
            segmenters=tuple(segmenters),
            seed=int(data.get("seed", DEFAULT_SEED)),
            resamples=int(data.get("resamples", DEFAULT_RESAMPLES)),
            timeout=float(data.get("timeout", 900)),
            batch_size=int(data.get("batch_size", DEFAULT_BATCH_SIZE)),
            description=str(data.get("description", "")),
            source=source,
            correction=str(data.get("correction", CORRECTION)),
            settings=replace(DEFAULT_SETTINGS, **_parse_settings(data, source)),
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
    """Read a bake-off configuration: a TOML file, or a bundled name (:data:`BUNDLED_CONFIGS`).

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
        text = bundled_text(name)
        source = f"<bundled {name}>"
    else:
        path = Path(name)
        if not path.is_file():
            from cws_bench.suggest import did_you_mean

            close = did_you_mean(name, BUNDLED_CONFIGS)
            listed = f"give a TOML file, or one of the bundled ones: {', '.join(BUNDLED_CONFIGS)}"
            raise CwsBenchError(
                f"{name}: no such bake-off configuration",
                f"{close} ({listed})" if close else listed,
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


# ---------------------------------------------------------------------------
# Statistics


def _statistics(
    records: dict[tuple[str, str], PairRecord], config: BakeoffConfig
) -> tuple[dict[tuple[str, str], dict[str, Interval]], list[Comparison]]:
    """Bootstrap intervals per pair and paired comparisons per corpus.

    Per-sentence counts are the rows of cws_bench.scoring.per_sentence; the pairs of
    a corpus share their resamples (:func:`cws_bench.comparison.bootstrap_statistics`).
    """
    import numpy as np

    from cws_bench.comparison import bootstrap_statistics
    from cws_bench.scoring.per_sentence import COLUMNS

    by_corpus: dict[str, dict[str, Any]] = {}
    for corpus_label, label in records:
        rows = records[corpus_label, label].sentence_counts
        array = np.asarray(rows, dtype=np.int64).reshape(-1, len(COLUMNS))
        by_corpus.setdefault(corpus_label, {})[label] = array
    track_of = {s.label: s.track for s in config.segmenters}
    found: dict[str, dict[str, dict[str, Interval]]] = {}
    compared: dict[str, list[Comparison]] = {}
    for corpus_label, systems in by_corpus.items():
        labels = [s.label for s in config.segmenters if s.label in systems]
        pairs = [
            (a, b)
            for i, a in enumerate(labels)
            for b in labels[i + 1 :]
            if track_of[a] == track_of[b]  # tracks are ranked apart
        ]
        found[corpus_label], compared[corpus_label] = bootstrap_statistics(
            corpus_label,
            systems,
            pairs,
            resamples=config.resamples,
            seed=config.seed,
            confidence=CONFIDENCE,
            alpha=ALPHA,
        )
    intervals = {key: found[key[0]][key[1]] for key in records}
    comparisons = [c for corpus in config.corpora for c in compared.get(corpus.label, [])]
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
    executor: str | Executor | None = None,
    scheduler: str | None = None,
    shard_chars: int | None = None,
    shard_timeout: float | None = None,
    retries: int | None = None,
    segmenters: Mapping[str, Any] | None = None,
    only_segmenters: Sequence[str] | None = None,
    only_corpora: Sequence[str] | None = None,
) -> BakeoffResult:
    """Run a bake-off and write its reports.

    The configuration is checked first (:func:`cws_bench.validate.validate_config`):
    every problem (a missing file or corpus, an unknown segmenter or option, a
    model that is not here) is raised at once, before anything runs or is written.

    Args:
        config: a BakeoffConfig, a TOML file, a bundled name, or None (the default bake-off).
        output_dir: where reports and the run cache go (default ``reports/<name>``).
        jobs: worker processes (default: the CPU count; the local Dask cluster's workers).
        data_dir: where corpora that need one are (e.g. the SIGHAN 2005 data).
        use_cache: reuse finished pairs and shards from the run cache.
        progress: show progress on stderr: a bar on a terminal, one line per
            finished pair otherwise (a CI log gets no carriage returns).
        write: write the reports (results.json, results.csv, leaderboard.md, report.html,
            leaderboard.tex).
        executor: ``local``, ``dask`` or an :class:`~cws_bench.executors.Executor`
            (left open) [default: the config's ``[settings]``, else local].
        scheduler: a Dask scheduler's address (implies dask) [default: the config's].
        shard_chars: characters per shard [default: the config's, 20,000].
        shard_timeout: seconds a shard may take [default: the config's ``timeout``].
        retries: runs again of a shard whose worker died or hung [default: the config's, 2].
        segmenters: more segmenters by label, each a
            :class:`~cws_bench.segmenters.Segmenter` or a callable (a line in, its
            words out), on the open track and every corpus; shipped to the workers
            with cloudpickle (see docs/SCALING.md).
        only_segmenters: run only the segmenters of these labels [default: all].
        only_corpora: run only on the corpora of these labels [default: all].

    Returns:
        The BakeoffResult (``.to_frame()`` gives a pandas DataFrame).

    Raises:
        CwsBenchError: a bad configuration, a corpus or segmenter that is not
            available (and not optional), or a report that cannot be written.
    """
    from cws_bench.corpora.base import kept_summaries
    from cws_bench.identity import forget

    forget()  # files may have changed since an earlier run in this process
    started = time.perf_counter()
    given = ExecutorSettings(
        executor=executor if isinstance(executor, str) else None,
        scheduler=scheduler,
        shard_chars=shard_chars,
        retries=retries,
    )
    config = _configured(config, given, segmenters)
    data = os.fspath(data_dir) if data_dir is not None else None
    notes: list[str] = []
    # validate sits below this module: it takes and gives the configuration untyped
    selected = validate.select(config, segmenters=only_segmenters, corpora=only_corpora)
    checked: BakeoffConfig = cast(
        BakeoffConfig,
        validate.validate_config(selected, data_dir=data, shipped=segmenters or (), notes=notes),
    )
    own = executor if isinstance(executor, Executor) else None
    if own is None and not checked.settings.scheduler:
        validate.check_main_guard()  # before any worker process imports the script
    output = Path(output_dir) if output_dir is not None else Path("reports") / checked.name
    cache = RunCache(output / "cache" if use_cache or write else None)
    installed = _installed_segmenters(checked, notes, shipped=_shipped(segmenters))
    settings = replace(checked.settings, jobs=jobs, timeout=shard_timeout or checked.timeout)
    early = _early_executor(settings, own)
    warming = None
    try:
        with kept_summaries():  # a training split is read once: identity, dictionary, buckets
            plan = plan_run(
                checked, installed, cache=cache, use_cache=use_cache, data_dir=data, notes=notes
            )
            if write:  # the first charts' imports and fonts, while the workers segment
                from cws_bench.reports import prepare_reports

                warming = prepare_reports()
            run = _execute(plan, cache, settings, own or early, progress, use_cache)
    finally:
        if early is not None:
            from cws_bench.workers import signals_ignored

            with signals_ignored():  # a second Ctrl-C cannot cut the cleanup
                early.close()
    notes.extend(cache.warnings)
    result = _result(checked, plan, [(s, i) for s, i, _ in installed], run, data)
    result = replace(result, duration_s=time.perf_counter() - started)
    if write:
        from cws_bench.reports import write_reports

        if warming is not None:
            warming.join()
        write_reports(result, output, progress=progress)
    return result


def _configured(
    config: BakeoffConfig | PathLike | None,
    given: ExecutorSettings,
    segmenters: Mapping[str, Any] | None,
) -> BakeoffConfig:
    """The configuration with the caller's settings and shipped segmenters in it."""
    if not isinstance(config, BakeoffConfig):
        config = load_config(config)
    changes: dict[str, Any] = {"settings": config.settings.merged(given)}
    if segmenters:
        extra = tuple(SegmenterSpec(label=label, name=label) for label in segmenters)
        changes["segmenters"] = config.segmenters + extra
        _check_labels(config.source or "<config>", config.corpora, changes["segmenters"])
    return replace(config, **changes)


def _shipped(segmenters: Mapping[str, Any] | None) -> dict[str, tuple[bytes, bool]]:
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
            from cws_bench.runner import FunctionSegmenter

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


def _early_executor(settings: ExecutorSettings, given: Executor | None) -> Executor | None:
    """The local executor of a run, its workers already starting (they import while the
    corpora are read); None when the caller gave one or the run is on Dask (whose
    cluster starts once a shard is to run)."""
    if given is not None or settings.kind != "local" or settings.scheduler:
        return None
    from cws_bench.executors import make_executor

    executor = make_executor(settings)
    executor.start()
    return executor


def _execute(
    plan: RunPlan,
    cache: RunCache,
    settings: ExecutorSettings,
    executor: Executor | None,
    progress: bool,
    use_cache: bool,
) -> Run:
    """Run the plan's shards on the executor (made and closed here when None)."""
    from cws_bench.executors import make_executor
    from cws_bench.segmenters.stream import count_characters
    from cws_bench.workers import Interrupted, signals_ignored, signals_raise

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
        kept = f"; finished pairs are kept in {cache.folder}" if cache.folder else ""
        raise Interrupted(
            e.signum,
            f"{e.message}: {len(plan.records)} of {total} pairs "
            f"done{kept}; run the same command again to resume",
        ) from None
    finally:
        shown.close()
    return run


def _result(
    config: BakeoffConfig,
    plan: RunPlan,
    segmenters: list[tuple[Any, Any]],
    run: Run,
    data: str | None,
) -> BakeoffResult:
    """The BakeoffResult of a finished run: rows, statistics, settings."""
    from cws_bench.overlap import run_overlap

    records = plan.records
    intervals, comparisons = _statistics(records, config)
    overlap = run_overlap(plan.corpora, data)  # test sentences in training data, shared sets
    pairs = []
    for corpus in plan.corpora:
        for spec, info in segmenters:
            if not spec.runs_on(corpus):
                continue
            pair = (corpus.label, spec.label)
            record = records.get(pair)
            if record is None:
                status, error = plan.statuses.get(pair, ("failed", "not run"))
                pairs.append(_failed_pair(corpus, spec, info, status, error, data))
            else:
                scored = pair_result(
                    corpus,
                    spec,
                    record,
                    intervals.get(pair, {}),
                    seed=config.seed,
                    resamples=config.resamples,
                )
                seen = overlap.warnings.get(corpus.label)
                warnings = scored.warnings if seen is None else (*scored.warnings, seen)
                pairs.append(replace(scored, cached=pair in plan.cached, warnings=warnings))
    return BakeoffResult(
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
            "jobs": run.executor_jobs,
            "executor": "dask" if config.settings.scheduler else config.settings.executor,
            "shard_chars": config.settings.shard_chars,
            "shards": len(run.items),
            "loads": run.load_reports(),
            "notes": plan.notes,
            "corpus_domains": _corpus_domains(plan.corpora, data),
            "corpus_test_sets": overlap.test_sets,
            "test_in_train": overlap.train,
        },
        environment={**environment(), **model_devices(records)},
        created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        duration_s=0.0,
    )


def _installed_segmenters(
    config: BakeoffConfig, notes: list[str], *, shipped: Mapping[str, tuple[bytes, bool]]
) -> list[tuple[Any, Any, bytes | None]]:
    """The configuration's segmenters with their registry info (and shipped bytes, if any);
    optional missing ones noted.

    Raises:
        CwsBenchError: an unknown segmenter, or one that is not installed and not optional.
    """
    from types import SimpleNamespace

    from cws_bench.segmenters import list_segmenters

    available = {info.name: info for info in list_segmenters(devices=False)}
    segmenters: list[tuple[Any, Any, bytes | None]] = []
    for spec in config.segmenters:
        if spec.label in shipped:
            blob, independent = shipped[spec.label]
            own = SimpleNamespace(
                name=spec.label,
                version=None,
                kind=None,
                available=True,
                independent_lines=independent,
            )
            segmenters.append((spec, own, blob))
            continue
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
        unset = spec.unset_variables()
        if unset:
            if spec.optional:
                notes.append(f"skipped {spec.label}: {', '.join(unset)} not set")
                continue
            raise CwsBenchError(
                f"{config.source}: segmenter {spec.label!r} needs the environment variable "
                f"{', '.join(unset)}",
                "set it, or mark the segmenter optional",
            )
        segmenters.append((spec, info, None))
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


def model_devices(records: dict[tuple[str, str], PairRecord]) -> dict[str, Any]:
    """``{"models": {segmenter: its model, device, dtype, GPU}}`` of the neural adapters run.

    Empty when no segmenter recorded a ``model`` in its metadata.
    """
    models = {
        label: record.segmenter_info.model
        for (_, label), record in sorted(records.items(), key=lambda item: item[0])
        if record.segmenter_info.model
    }
    return {"models": models} if models else {}
