"""Saved bake-off results read back, and several runs merged into one leaderboard.

``cws-bench report a/results.json b/results.json`` puts the segmenters of two
runs in the same tables. That is only sound when the runs scored the same
gold texts the same way: :func:`merge_results` refuses runs whose corpora,
scoring settings (seed, resamples, confidence, alpha, correction) or corpus
contents (the gold, dictionary, method and normalisation recorded in every
pair's signature) differ, and says what differs and in which files.

A merged result keeps each run's paired comparisons and corrects them again
as one family per corpus and track (the run's ``correction``). Segmenters of
different runs were never compared with each other: results.json keeps no
per-sentence counts to resample, so no letter relates them, and the merged
run's notes say so.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cws_bench.errors import CwsBenchError
from cws_bench.metrics.defaults import DEFAULT_ALPHA
from cws_bench.reports.tables import BOOKKEEPING_SETTINGS
from cws_bench.results.model import BakeoffResult, detectable_differences, judge_comparisons
from cws_bench.results.records import RECORD_SCHEMA, schema_problem

__all__ = ["IDENTITY_KEYS", "MERGE_IGNORED_SETTINGS", "load_results", "merge_results"]

MERGE_IGNORED_SETTINGS = frozenset(
    {"notes", "runs", "submissions", "detectable", "seeds", "resplits", *BOOKKEEPING_SETTINGS}
)
"""Settings that may differ between merged runs: they change no number. How each run was
carried out (workers, shards, loads, wall time) is kept per run, in ``settings["runs"]``;
an organiser's submitted files (``submissions``) are joined; ``detectable`` summarises
each run's comparisons, and is summed up again over the merged ones; ``seeds`` (the rows
run with several seeds) are joined, as are the re-splits' verdict counts (``resplits``) of
runs with the same number of re-splits and seed (a run's counts are of its own rows)."""

IDENTITY_KEYS = ("cws-bench", "method", "norm", "gold", "dict")
"""Fields of a pair's signature that say which text was scored and how: equal across runs."""


_NUMBER = {"type": "number"}
_FRACTION = {**_NUMBER, "minimum": 0, "maximum": 1}
_INTERVAL = {
    "type": "object",
    "required": ["low", "high"],
    "properties": {"low": _NUMBER, "high": _NUMBER},
}
_TEXT = {"type": "string"}
_OPTIONAL = {"type": ["number", "null"], "minimum": 0}

RESULTS_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "cws-bench bake-off results.json",
    "type": "object",
    "required": ["name", "pairs"],
    "properties": {
        "name": _TEXT,
        "settings": {"type": "object"},
        "config": {"type": "object"},
        "duration_s": _OPTIONAL,
        "pairs": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["corpus", "segmenter", "adapter", "track", "status"],
                "properties": {
                    "corpus": _TEXT,
                    "segmenter": _TEXT,
                    "adapter": _TEXT,
                    "track": _TEXT,
                    "status": _TEXT,
                    "error": {"type": ["string", "null"]},
                    "scores": {"type": "object"},
                    "intervals": {"type": "object", "additionalProperties": _INTERVAL},
                    "sighan_intervals": {"type": "object", "additionalProperties": _NUMBER},
                    # a segmenter that only reads files (`file`) has no speed: null rates
                    "timing": {
                        "type": "object",
                        "additionalProperties": {"type": ["number", "null"]},
                    },
                    "peak_memory_mib": _OPTIONAL,
                    "warnings": {"type": "array", "items": _TEXT},
                    "segmenter_info": {"type": "object"},
                    "signature": _TEXT,
                    "analysis": {"type": "object"},
                    "cached": {"type": "boolean"},
                    "contaminated": {"type": "boolean"},
                },
                # a scored pair has the scores a cache record has (records.RECORD_SCHEMA)
                "if": {"properties": {"status": {"const": "ok"}}},
                "then": {
                    "required": ["scores"],
                    "properties": {"scores": RECORD_SCHEMA["properties"]["scores"]},
                },
            },
        },
        "comparisons": {
            "type": "array",
            "items": {
                "type": "object",
                "required": [
                    "corpus",
                    "a",
                    "b",
                    "metric",
                    "difference",
                    "interval",
                    "p_value",
                    "significant",
                ],
                "properties": {
                    "corpus": _TEXT,
                    "a": _TEXT,
                    "b": _TEXT,
                    "metric": _TEXT,
                    "difference": {"type": "number", "minimum": -1, "maximum": 1},
                    "interval": _INTERVAL,
                    "p_value": _FRACTION,
                    "significant": {"type": "boolean"},
                    "adjusted_p_value": {**_OPTIONAL, "maximum": 1},
                    "standard_error": _OPTIONAL,
                    "mde": _OPTIONAL,
                },
            },
        },
    },
}
"""What ``cws-bench report`` accepts as a results.json: the fields it renders, typed."""


def _not_finite(value: Any, where: str = "") -> str | None:
    """The path of the first NaN or infinite number in ``value`` (json reads NaN,
    Infinity and 1e400 without a word), or None."""
    if isinstance(value, float):
        return where or "the file" if not math.isfinite(value) else None
    if isinstance(value, dict):
        items: Any = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return None
    for key, item in items:
        found = _not_finite(item, f"{where}.{key}" if where else str(key))
        if found is not None:
            return found
    return None


def _read(path: Path) -> BakeoffResult:
    if path.is_dir():  # a run's report folder: its results.json
        path = path / "results.json"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CwsBenchError(
            f"{path}: no such file",
            "pass the results.json a bake-off wrote (reports/<run>/results.json)",
        ) from None
    except (OSError, UnicodeDecodeError) as e:
        raise CwsBenchError(f"{path}: cannot read the results ({e})") from e
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise CwsBenchError(
            f"{path}:{e.lineno}: not JSON ({e.msg})",
            "pass the results.json a bake-off wrote, unchanged",
        ) from None
    if not isinstance(data, dict) or "pairs" not in data or "name" not in data:
        raise CwsBenchError(
            f"{path}: not a bake-off's results.json (no 'name' and 'pairs')",
            "pass the results.json a bake-off wrote (reports/<run>/results.json)",
        )
    fix = "pass the results.json a bake-off wrote, unchanged (or run the bake-off again)"
    problem = schema_problem(data, RESULTS_SCHEMA, whole="the results")
    if problem is not None:
        raise CwsBenchError(f"{path}: {problem}", fix)
    where = _not_finite(data)
    if where is not None:
        raise CwsBenchError(f"{path}: {where}: not a finite number (NaN or infinite)", fix)
    try:
        return BakeoffResult.from_dict(data)
    except (TypeError, KeyError, ValueError, AttributeError) as e:
        raise CwsBenchError(
            f"{path}: a pair or comparison does not have the fields of a bake-off result ({e})",
            "pass the results.json a bake-off of this cws-bench version wrote, unchanged",
        ) from None


def load_results(paths: Sequence[str | os.PathLike[str]]) -> BakeoffResult:
    """Read saved ``results.json`` files; several are merged by :func:`merge_results`.

    A folder stands for the ``results.json`` in it (a run's report folder).

    One file gives back the result as the run saved it, so its reports
    re-render byte for byte.

    Raises:
        CwsBenchError: a file is missing or not a bake-off result, or the runs
            cannot be merged (the message says what differs).
    """
    if not paths:
        raise CwsBenchError("no results file given", "pass one or more results.json files")
    files = [Path(p) for p in paths]
    results = [_read(path) for path in files]
    if len(results) == 1:
        return results[0]
    return merge_results(results, [str(path) for path in files])


def _identity(result: BakeoffResult, corpus: str) -> dict[str, str]:
    for pair in result.pairs:
        signature = pair.signature or pair.scores.get("signature") or ""
        if pair.corpus == corpus and signature:
            fields = dict(part.partition(":")[::2] for part in signature.split("|"))
            return {key: fields[key] for key in IDENTITY_KEYS if key in fields}
    return {}


def _settings(result: BakeoffResult) -> dict[str, Any]:
    return {k: v for k, v in result.settings.items() if k not in MERGE_IGNORED_SETTINGS}


def _differences(results: Sequence[BakeoffResult], names: Sequence[str]) -> list[str]:
    first, first_name = results[0], names[0]
    problems = []
    for result, name in zip(results[1:], names[1:]):
        if set(result.corpora()) != set(first.corpora()):
            problems.append(
                f"corpora: {first_name} has {', '.join(first.corpora()) or 'none'}; "
                f"{name} has {', '.join(result.corpora()) or 'none'}"
            )
        ours, theirs = _settings(first), _settings(result)
        for key in sorted(set(ours) | set(theirs), key=str):
            if ours.get(key) != theirs.get(key):
                problems.append(
                    f"setting {key}: {ours.get(key, 'not set')!r} in {first_name}, "
                    f"{theirs.get(key, 'not set')!r} in {name}"
                )
        for corpus in first.corpora():
            if corpus not in result.corpora():
                continue
            a, b = _identity(first, corpus), _identity(result, corpus)
            for key in IDENTITY_KEYS:
                if key in a and key in b and a[key] != b[key]:
                    problems.append(
                        f"corpus {corpus}, signature {key}: {a[key]} in {first_name}, "
                        f"{b[key]} in {name}"
                    )
    seen: dict[tuple[str, str], str] = {}
    for result, name in zip(results, names):
        for pair in result.pairs:
            where = (pair.corpus, pair.segmenter)
            if where in seen:
                problems.append(
                    f"segmenter {pair.segmenter} on {pair.corpus} is in both {seen[where]} "
                    f"and {name}"
                )
            seen.setdefault(where, name)
    return problems


def _environment(results: Sequence[BakeoffResult]) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for result in results:
        for key, value in result.environment.items():
            if key not in merged:
                merged[key] = value
            elif value != merged[key] and str(value) not in str(merged[key]).split(" / "):
                merged[key] = f"{merged[key]} / {value}"
    return merged


def _runs(result: BakeoffResult, label: str) -> list[dict[str, Any]]:
    """How a run was carried out, kept per run in a merge (a merged run's own runs as they are)."""
    runs = result.settings.get("runs")
    if isinstance(runs, list) and runs:
        return [dict(run) for run in runs]
    return [
        {
            "name": label,
            "created": result.created,
            "duration_s": result.duration_s,
            "pairs": len(result.pairs),
            "cached_pairs": sum(1 for p in result.pairs if p.cached),
            **{k: result.settings[k] for k in BOOKKEEPING_SETTINGS if k in result.settings},
        }
    ]


def _joined_resplits(results: Sequence[BakeoffResult], notes: list[str]) -> dict[str, Any]:
    """The runs' ``resplits`` joined: each corpus' pairs of every run with the first such
    run's number of re-splits and seed (a note names the runs left out)."""
    import copy

    joined: dict[str, Any] = {}
    for r in results:
        found = r.settings.get("resplits")
        if not found:
            continue
        if not joined:
            joined = copy.deepcopy(found)
            continue
        if (found["n"], found["seed"]) != (joined["n"], joined["seed"]):
            notes.append(
                f"{r.name}: its {found['n']} re-splits (seed {found['seed']}) are not shown "
                f"beside the first run's {joined['n']} (seed {joined['seed']})"
            )
            continue
        for corpus, data in found["corpora"].items():
            mine = joined["corpora"].setdefault(corpus, {**copy.deepcopy(data), "pairs": []})
            mine["pairs"] += copy.deepcopy(data["pairs"])
            mine["retrained"] = sorted({*mine["retrained"], *data["retrained"]})
        for corpus, why in found.get("skipped", {}).items():
            joined.setdefault("skipped", {}).setdefault(corpus, why)
    return joined


def merge_results(
    results: Sequence[BakeoffResult], names: Sequence[str] | None = None
) -> BakeoffResult:
    """Several runs of the same corpora and settings as one result.

    Pairs are kept in run order; comparisons are those of each run, judged
    again together (one family per corpus and track, the runs' ``correction``
    and ``alpha``). The merged settings are the runs' scoring settings, with
    their notes joined and a note that segmenters of different runs were not
    compared; how each run was carried out (workers, shards, segmenter loads,
    wall time, pairs from the cache) is kept per run in ``settings["runs"]``.

    Args:
        results: the runs.
        names: what to call each run in messages and notes (default: run names).

    Raises:
        CwsBenchError: the runs differ in corpora, a setting that changes the
            numbers, a corpus' content, or share a (corpus, segmenter) pair;
            the message lists every difference.
    """
    if not results:
        raise CwsBenchError("no results to merge", "pass one or more results.json files")
    labels = list(names) if names is not None else [r.name for r in results]
    if len(results) == 1:
        return results[0]
    problems = _differences(results, labels)
    if problems:
        raise CwsBenchError(
            "cannot merge runs that differ:\n  " + "\n  ".join(problems),
            "merge only runs of the same corpora, scored with the same settings "
            "(rerun one with the other's configuration), each segmenter once",
        )
    first = results[0]
    pairs = tuple(p for r in results for p in r.pairs)
    settings = _settings(first)
    settings["runs"] = [run for r, label in zip(results, labels) for run in _runs(r, label)]
    submitted = [
        {**s, "run": s.get("run") or r.name}
        for r in results
        for s in r.settings.get("submissions", ()) or ()
    ]
    if submitted:
        settings["submissions"] = submitted
    notes = list(dict.fromkeys(str(n) for r in results for n in r.settings.get("notes") or ()))
    notes.append(
        f"merged from {', '.join(labels)}: segmenters of different runs were not compared "
        "with each other (results.json keeps no per-sentence counts), so no significance "
        "letter relates them"
    )
    settings["notes"] = notes
    config = dict(first.config)
    config["segmenters"] = [s for r in results for s in r.config.get("segmenters", ()) or ()]
    correction = str(settings.get("correction", "none"))
    seeds: dict[str, dict[str, Any]] = {}
    for r in results:
        for corpus, rows in (r.settings.get("seeds") or {}).items():
            seeds.setdefault(corpus, {}).update(rows)
    if seeds:
        settings["seeds"] = seeds
    resplits = _joined_resplits(results, notes)
    if resplits:
        settings["resplits"] = resplits
    comparisons = judge_comparisons(
        pairs,
        [c for r in results for c in r.comparisons],
        alpha=float(settings.get("alpha", DEFAULT_ALPHA)),
        correction=correction if correction else "none",
        seeded={label: s["pairs"] for rows in seeds.values() for label, s in rows.items()},
    )
    if "detectable" in first.settings:
        settings["detectable"] = detectable_differences(comparisons)
    return BakeoffResult(
        name=" + ".join(dict.fromkeys(r.name for r in results)),
        config=config,
        pairs=pairs,
        comparisons=comparisons,
        settings=settings,
        environment=_environment(results),
        created=max(r.created for r in results),
        duration_s=sum(r.duration_s for r in results),
    )
