"""The bake-off: several segmenters over several gold corpora, in shards on one executor.

:func:`run_bakeoff` runs the phases one after the other, each in its own
module:

1. configuration (:mod:`cws_bench.run.config`: the TOML, every key checked,
   and the caller's settings and Python segmenters);
2. validation (:mod:`cws_bench.run.validate`: every corpus, file, segmenter,
   option and model, every problem at once, before anything runs);
3. the plan (:mod:`cws_bench.run.plan`: each corpus read once, pairs keyed by
   content, finished ones from the run cache, the others cut into shards);
4. the execution (:mod:`cws_bench.run.execute`: every shard on one executor,
   each pair scored as it completes by :func:`cws_bench.run.pair.finish_pair`);
5. the result (here: rows, bootstrap intervals, paired comparisons, verdicts);
6. the reports (:func:`cws_bench.reports.write_reports`).

Each (segmenter, corpus) pair is cut into shards (of whole batches, or of lines
for a segmenter that segments each line on its own), and every
shard of every pair runs on one executor (local
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
every two segmenters of the same track on a corpus (Koehn 2004; or, with
``test = "permutation"``, approximate randomization, Noreen 1989), its
p-values corrected within each track for multiple comparisons
(``correction``, Holm-Bonferroni by default; ``alpha``, 0.05 by default) by
:func:`cws_bench.results.model.judge_comparisons`. A segmenter scored on its own
training data is in no family and never wins.
"""

from __future__ import annotations

import os
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from datetime import datetime, timezone
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cws_bench.metrics.defaults import DEFAULT_CONFIDENCE
from cws_bench.results.model import (
    BakeoffResult,
    Comparison,
    Interval,
    PairResult,
    detectable_differences,
    judge_comparisons,
    seed_summaries,
)
from cws_bench.run import validate
from cws_bench.run.cache import RunCache
from cws_bench.run.config import BakeoffConfig, CorpusSpec, SegmenterSpec, configured
from cws_bench.run.execute import Run, early_executor, execute_plan, shipped_segmenters
from cws_bench.run.executors import Executor, ExecutorSettings
from cws_bench.run.identity import environment
from cws_bench.run.pair import PairRecord, pair_result
from cws_bench.run.plan import RunPlan, installed_segmenters, plan_run
from cws_bench.run.problems import ConfigurationError, Problem
from cws_bench.text.io import PathLike

if TYPE_CHECKING:
    from cws_bench.segmenters import SegmenterInfo

__all__ = ["reports_folder", "run_bakeoff"]


def reports_folder(
    name: str,
    output_dir: PathLike | None = None,
    only_segmenters: Sequence[str] | None = None,
    only_corpora: Sequence[str] | None = None,
) -> Path:
    """Where a run's reports go: ``output_dir`` (default ``reports/<name>``), and a filtered
    run's in a sub-folder of it named by the filter, so that it never replaces the
    reports of a fuller run (the run cache stays in ``output_dir/cache``, shared).

    >>> reports_folder("mine").as_posix()
    'reports/mine'
    >>> reports_folder("mine", only_segmenters=["jieba"], only_corpora=["zx"]).as_posix()
    'reports/mine/only-jieba-on-zx'
    >>> reports_folder("mine", "out", only_corpora=["pku", "msr"]).as_posix()
    'out/only-all-on-msr+pku'
    """
    import re

    folder = Path(output_dir) if output_dir is not None else Path("reports") / name
    if only_segmenters is None and only_corpora is None:
        return folder

    def part(labels: Sequence[str] | None) -> str:
        if labels is None:
            return "all"
        return "+".join(re.sub(r"[^\w.-]+", "_", label) for label in sorted(set(labels)))

    return folder / f"only-{part(only_segmenters)}-on-{part(only_corpora)}"


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

    The configuration is checked first (:func:`cws_bench.run.validate.validate_config`):
    every problem (a missing file or corpus, an unknown segmenter or option, a
    model that is not here) is raised at once, before anything runs or is written.

    Args:
        config: a BakeoffConfig, a TOML file, a bundled name, or None (the default bake-off).
        output_dir: where reports and the run cache go (default ``reports/<name>``); a
            run filtered by ``only_segmenters`` or ``only_corpora`` writes its reports
            in a sub-folder named by the filter (:func:`reports_folder`), keeping the
            cache here.
        jobs: worker processes (default: the CPU count; the local Dask cluster's workers).
        data_dir: where corpora that need one are (e.g. the SIGHAN 2005 data).
        use_cache: reuse finished pairs and shards from the run cache.
        progress: show progress on stderr: a bar on a terminal, one line per
            finished pair otherwise (a CI log gets no carriage returns).
        write: write the reports (results.json, results.csv, leaderboard.md, report.html,
            leaderboard.tex).
        executor: ``local``, ``dask`` or an :class:`~cws_bench.run.executors.Executor`
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

    started = time.perf_counter()
    # 1. configuration (run/config.py): the file and what the caller gave
    given = ExecutorSettings(
        executor=executor if isinstance(executor, str) else None,
        scheduler=scheduler,
        shard_chars=shard_chars,
        retries=retries,
        jobs=jobs,
        timeout=shard_timeout,
    )
    notes: list[str] = []
    config = configured(config, given, segmenters, notes)
    data = os.fspath(data_dir) if data_dir is not None else None
    # 2. validation (run/validate.py)
    selected = validate.select(config, segmenters=only_segmenters, corpora=only_corpora)
    checked = _validated(selected, data, segmenters or (), notes)
    own = executor if isinstance(executor, Executor) else None
    if own is None and not checked.settings.scheduler:
        validate.check_main_guard()  # before any worker process imports the script
    # 3. the plan (run/plan.py), while a local executor's workers start
    output = Path(output_dir) if output_dir is not None else Path("reports") / checked.name
    cache = RunCache(output / "cache" if use_cache or write else None)
    installed = installed_segmenters(checked, notes, shipped=shipped_segmenters(segmenters))
    settings = replace(checked.settings, jobs=jobs, timeout=shard_timeout or checked.timeout)
    # (a bake-off of submissions only reads files: no worker to start)
    only_files = all(s.participant is not None for s in checked.segmenters)
    early = None if only_files else early_executor(settings, own)
    warming = None
    try:
        with kept_summaries():  # a training split is read once: identity, dictionary, buckets
            plan = plan_run(
                checked, installed, cache=cache, use_cache=use_cache, data_dir=data, notes=notes
            )
            if write:  # the first charts' imports and fonts, while the workers segment
                from cws_bench.reports import prepare_reports

                warming = prepare_reports()
            # 4. the execution (run/execute.py)
            run = execute_plan(plan, cache, settings, own or early, progress, use_cache)
    finally:
        if early is not None:
            from cws_bench.system.workers import signals_ignored

            with signals_ignored():  # a second Ctrl-C cannot cut the cleanup
                early.close()
    # 5. the result (below) and 6. the reports
    notes.extend(cache.warnings)
    result = _result(checked, plan, [(s, i) for s, i, _ in installed], run, data)
    if checked.resplits:  # the same rows on random splits of each corpus (run/resplits.py)
        found = _resplits(checked, result, output, data, use_cache, progress, segmenters, given)
        result = replace(result, settings={**result.settings, "resplits": found})
    result = replace(result, duration_s=time.perf_counter() - started)
    if write:
        from cws_bench.reports import write_reports

        if warming is not None:
            warming.join()
        folder = reports_folder(checked.name, output_dir, only_segmenters, only_corpora)
        write_reports(result, folder, progress=progress)
    return result


def _validated(
    config: BakeoffConfig, data: str | None, shipped: Collection[str], notes: list[str]
) -> BakeoffConfig:
    """The configuration checked (:func:`~cws_bench.run.validate.validate_config`) with
    its participants' files (:func:`_submission_problems`): every problem raised at once."""
    submitted = _submission_problems(config, data)  # every submitted file, read once here
    try:
        checked = validate.validate_config(config, data_dir=data, shipped=shipped, notes=notes)
    except ConfigurationError as e:
        if not submitted:
            raise
        raise ConfigurationError(e.source, [*e.problems, *submitted]) from None
    if submitted:
        raise ConfigurationError(config.source or "<config>", submitted)
    return checked


def _resplits(
    config: BakeoffConfig,
    result: BakeoffResult,
    output: Path,
    data: str | None,
    use_cache: bool,
    progress: bool,
    segmenters: Mapping[str, Any] | None,
    given: ExecutorSettings,
) -> dict[str, Any]:
    """The verdicts of ``result`` counted over ``config.resplits`` random splits of each
    corpus with a training split (:mod:`cws_bench.run.resplits`): each corpus' splits
    run as a bake-off of their own (write nothing, the same run cache and settings),
    judged as the standard split is.

    Returns ``{"n", "seed", "signature", "corpora": {label: {"train", "test", "splits",
    "retrained", "failed", "scored", "cached", "pairs"}}, "skipped": {label: why}}``
    (``scored``: the splits' pairs, ``cached``: of which from the run cache).
    """
    from cws_bench.errors import CwsBenchError
    from cws_bench.run.resplits import (
        resplit_config,
        resplit_signature,
        tally_verdicts,
        write_resplits,
    )

    found: dict[str, Any] = {
        "n": config.resplits,
        "seed": config.seed,
        "signature": resplit_signature(config.resplits, config.seed, config),
        "corpora": {},
        "skipped": {},
    }
    root = output / "cache" / "resplits"
    for corpus in config.corpora:
        if corpus.label not in result.corpora():
            continue
        splits = write_resplits(corpus, config.resplits, config.seed, root, data)
        if isinstance(splits, str):
            found["skipped"][corpus.label] = splits
            continue
        derived, retrained = resplit_config(config, corpus, splits, segmenters or (), data)
        if not derived.segmenters and not segmenters:
            found["skipped"][corpus.label] = "no row of the run can be scored on a re-split"
            continue
        try:  # the standard split's reports are written whatever happens here
            run = run_bakeoff(
                derived,
                output_dir=output,
                data_dir=data,
                use_cache=use_cache,
                progress=progress,
                write=False,
                # (the caller's executor, scheduler, shard size and retries are in
                # the configuration's settings already)
                shard_timeout=given.timeout,
                jobs=given.jobs,
                segmenters=segmenters,
            )
        except CwsBenchError as e:
            found["skipped"][corpus.label] = f"its re-splits could not run: {e.message}"
            continue
        judged = _judged_on_resplits(run, corpus, retrained, derived)
        by_split = {label: [c for c in judged if c.corpus == label] for label in splits.labels}
        found["corpora"][corpus.label] = {
            "train": splits.train,
            "test": splits.test,
            "splits": list(splits.labels),
            "retrained": sorted(retrained),
            "failed": sorted({f"{p.segmenter} on {p.corpus}" for p in run.pairs if not p.ok}),
            "scored": len(run.pairs),
            "cached": sum(p.cached for p in run.pairs),
            "pairs": tally_verdicts(result.comparisons, by_split, corpus.label),
        }
    return found


def _judged_on_resplits(
    run: BakeoffResult, corpus: CorpusSpec, retrained: set[str], config: BakeoffConfig
) -> tuple[Comparison, ...]:
    """The re-splits' comparisons judged again with every row not trained again that was
    trained on any split of ``corpus`` marked as scored on data it has seen (a split's
    test part holds the corpus' training sentences)."""
    seeded = seeded_rows(config)
    origin = {label: row for row, labels in seeded.items() for label in labels}

    def seen(pair: PairResult) -> bool:
        if origin.get(pair.segmenter, pair.segmenter) in retrained:
            return False
        trained_on = (pair.segmenter_info or {}).get("trained_on") or {}
        return corpus.name is not None and trained_on.get("corpus") == corpus.name

    pairs = [replace(p, contaminated=True) if p.ok and seen(p) else p for p in run.pairs]
    return judge_comparisons(
        pairs, run.comparisons, alpha=config.alpha, correction=config.correction, seeded=seeded
    )


def _submission_problems(config: BakeoffConfig, data_dir: str | None) -> list[Problem]:
    """What is wrong with the participants' files (:mod:`cws_bench.run.submissions`).

    A missing file is left to the validation (the ``file`` adapter's model
    check names it), as is a corpus that cannot be read.
    """
    from cws_bench.errors import CwsBenchError
    from cws_bench.run.plan import gold_and_raw
    from cws_bench.run.submissions import submission_problems

    rows = [s for s in config.segmenters if s.participant is not None]
    if not rows:
        return []
    raw_of: dict[str, list[str]] = {}
    gold_of: dict[str, Any] = {}
    for corpus in config.corpora:
        try:
            gold_of[corpus.label], raw_of[corpus.label] = gold_and_raw(corpus, data_dir)
        except CwsBenchError:
            continue  # its problem is the validation's
    files = []
    for spec in rows:
        for corpus in config.corpora:
            if not spec.runs_on(corpus) or corpus.label not in raw_of:
                continue
            options = spec.options_for(corpus, data_dir)
            if os.path.isfile(options["path"]):
                where = f"participant {spec.label} on {corpus.label}"
                encoding = options.get("encoding") or "utf-8"
                files.append((where, corpus.label, options["path"], encoding))
    return [
        Problem(where, message, hint)
        for where, message, hint in submission_problems(files, raw_of, gold_of)
    ]


# ---------------------------------------------------------------------------
# The result


def _result(
    config: BakeoffConfig,
    plan: RunPlan,
    segmenters: list[tuple[SegmenterSpec, SegmenterInfo]],
    run: Run,
    data: str | None,
) -> BakeoffResult:
    """The BakeoffResult of a finished run: rows, statistics, settings."""
    from cws_bench.corpora.overlap import run_overlap

    records = plan.records
    intervals, comparisons = _statistics(records, config)
    seeded = seeded_rows(config)
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
                    test=config.test,
                )
                seen = overlap.warnings.get(corpus.label)
                warnings = scored.warnings if seen is None else (*scored.warnings, seen)
                pairs.append(replace(scored, cached=pair in plan.cached, warnings=warnings))
    return BakeoffResult(
        name=config.name,
        config=config.to_dict(),
        pairs=tuple(pairs),
        comparisons=judge_comparisons(
            pairs, comparisons, alpha=config.alpha, correction=config.correction, seeded=seeded
        ),
        settings={
            "seed": config.seed,
            "resamples": config.resamples,
            "confidence": DEFAULT_CONFIDENCE,
            "alpha": config.alpha,
            "test": config.test,
            "correction": config.correction,
            "method": config.method,
            **_corpus_methods(config),
            "detectable": detectable_differences(comparisons),
            "seeds": seed_summaries(pairs, seeded),
            "jobs": run.executor_jobs,
            "executor": "dask" if config.settings.scheduler else config.settings.executor,
            "shard_chars": config.settings.shard_chars,
            "shards": len(run.items),
            "loads": run.load_reports(),
            "notes": plan.notes,
            "corpus_domains": _corpus_domains(plan.corpora, data),
            "corpus_test_sets": overlap.test_sets,
            "test_in_train": overlap.train,
            **_submitted_files(config, pairs),
        },
        environment={**environment(), **model_devices(records)},
        created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        duration_s=0.0,
    )


def _submitted_files(config: BakeoffConfig, pairs: list[PairResult]) -> dict[str, Any]:
    """``{"submissions": [...]}``: what an organiser publishes of each submitted file (who,
    which corpus, where, the SHA-256 of its bytes, the signature of its scores: every
    number traces to the bytes scored); empty for a bake-off without submissions."""
    from cws_bench.corpora.download import file_sha256

    specs = {s.label: s for s in config.segmenters if s.participant is not None}
    found = []
    for pair in pairs:
        spec = specs.get(pair.segmenter)
        if spec is None:
            continue
        info = pair.segmenter_info or {}
        path = (info.get("options") or {}).get("path")
        sha256 = info.get("sha256")
        if sha256 is None and path is not None and os.path.isfile(path):
            sha256 = file_sha256(path)  # a failed pair's file
        found.append(
            {
                "participant": spec.participant,
                "segmenter": pair.segmenter,
                "track": pair.track,
                "corpus": pair.corpus,
                "description": spec.description,
                "path": path,
                "sha256": sha256,
                # when the file was last written (a late or corrected submission shows)
                "modified": _modified(path),
                "status": pair.status,
                "signature": pair.signature,
            }
        )
    return {"submissions": found} if found else {}


def _modified(path: str | None) -> str | None:
    """A file's modification time (UTC, ISO 8601, seconds), or None when it is not there."""
    if path is None or not os.path.isfile(path):
        return None
    stamp = datetime.fromtimestamp(os.path.getmtime(path), timezone.utc)
    return stamp.isoformat(timespec="seconds")


def _failed_pair(
    corpus: CorpusSpec,
    spec: SegmenterSpec,
    info: SegmenterInfo,
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


def _corpus_methods(config: BakeoffConfig) -> dict[str, Any]:
    """``corpus_methods``: the corpora counted otherwise than the run's ``method``, if any."""
    found = {c.label: c.method for c in config.corpora if c.method and c.method != config.method}
    return {"corpus_methods": found} if found else {}


def _corpus_domains(corpora: Sequence[CorpusSpec], data_dir: str | None) -> dict[str, str]:
    """Corpus label -> the domain on its card (for the reports' across-corpora views)."""
    from cws_bench.corpora import get_corpus

    return {
        c.label: get_corpus(c.name, data_dir=data_dir).domain for c in corpora if c.name is not None
    }


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


# ---------------------------------------------------------------------------
# Statistics


def _statistics(
    records: dict[tuple[str, str], PairRecord], config: BakeoffConfig
) -> tuple[dict[tuple[str, str], dict[str, Interval]], list[Comparison]]:
    """Bootstrap intervals per pair and paired comparisons per corpus.

    Per-sentence counts are the rows of cws_bench.scoring.per_sentence; the pairs of
    a corpus share their resamples (:func:`cws_bench.run.comparison.bootstrap_statistics`).
    """
    from cws_bench.run.comparison import bootstrap_statistics, sentence_array

    by_corpus: dict[str, dict[str, Any]] = {}
    for (corpus_label, label), record in records.items():
        by_corpus.setdefault(corpus_label, {})[label] = sentence_array(record.sentence_counts)
    track_of = {s.label: s.track for s in config.segmenters}
    found: dict[str, dict[str, dict[str, Interval]]] = {}
    compared: dict[str, list[Comparison]] = {}
    for corpus_label, systems in by_corpus.items():
        # a row run with several seeds is compared as one (the two-level bootstrap,
        # below), never seed by seed
        labels = [s.label for s in config.segmenters if s.label in systems and not s.seed_of]
        # tracks are ranked apart
        pairs = [(a, b) for a, b in combinations(labels, 2) if track_of[a] == track_of[b]]
        found[corpus_label], compared[corpus_label] = bootstrap_statistics(
            corpus_label,
            systems,
            pairs,
            resamples=config.resamples,
            seed=config.seed,
            confidence=DEFAULT_CONFIDENCE,
            alpha=config.alpha,
            test=config.test,
        )
        compared[corpus_label] += seed_comparisons(corpus_label, systems, config)
    intervals = {key: found[key[0]][key[1]] for key in records}
    comparisons = [c for corpus in config.corpora for c in compared.get(corpus.label, [])]
    return intervals, comparisons


def seeded_rows(config: BakeoffConfig) -> dict[str, list[str]]:
    """The rows run with several seeds: ``{label: [per-seed labels]}``, in order."""
    found: dict[str, list[str]] = {}
    for spec in config.segmenters:
        if spec.seed_of:
            found.setdefault(spec.seed_of, []).append(spec.label)
    return found


def seed_comparisons(
    corpus: str, systems: dict[str, Any], config: BakeoffConfig
) -> list[Comparison]:
    """The paired tests of F1 on one corpus that involve a row run with several seeds.

    Each such row against every other row of its track (a row with one run is
    one seed) by :func:`~cws_bench.metrics.significance.seed_bootstrap_test`,
    the two-level bootstrap over seeds and sentences, with the run's resamples
    and seed (its sentence draws are those of the other pairs' bootstrap),
    whatever the run's ``test``: uncorrected, as the other comparisons.
    """
    from cws_bench.metrics.significance import seed_bootstrap_test
    from cws_bench.run.comparison import paired_comparison
    from cws_bench.scoring.per_sentence import statistics as sentence_statistics

    seeded = seeded_rows(config)
    units: list[tuple[str, str, list[Any]]] = []  # (label, track, per-seed counts)
    for spec in config.segmenters:
        if spec.seed_of:
            if spec.label == seeded[spec.seed_of][0]:
                present = [systems[m] for m in seeded[spec.seed_of] if m in systems]
                units.append((spec.seed_of, spec.track, present))
        elif spec.label in systems:
            units.append((spec.label, spec.track, [systems[spec.label]]))
    f1 = sentence_statistics()["f1"]
    found = []
    for (a, track_a, counts_a), (b, track_b, counts_b) in combinations(units, 2):
        if track_a != track_b or (a not in seeded and b not in seeded):
            continue
        arrays = [*counts_a, *counts_b]
        if not counts_a or not counts_b or not len(arrays[0]):
            continue
        if any(array.shape != arrays[0].shape for array in arrays):
            continue
        result = seed_bootstrap_test(
            counts_a,
            counts_b,
            f1,
            n_resamples=config.resamples,
            seed=config.seed,
            confidence=DEFAULT_CONFIDENCE,
        )
        found.append(paired_comparison(corpus, a, b, result, result, config.alpha))
    return found
