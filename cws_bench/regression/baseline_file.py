"""Baseline files: a :class:`~cws_bench.regression.baseline.Baseline` saved to JSON and read back.

The JSON file stores paths relative to the baseline's folder and is written
atomically (:func:`cws_bench.text.io.atomic_write`); :func:`load_baseline` checks its
shape (:data:`BASELINE_SCHEMA`) and that its scores are those of its stored counts.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

from cws_bench import __version__
from cws_bench.display.units import plural
from cws_bench.errors import CwsBenchError
from cws_bench.regression.baseline import FORMAT, FORMAT_VERSION, Baseline
from cws_bench.results.records import (
    COUNT,
    COUNT_ROWS,
    FRACTION,
    OPTIONAL_FRACTION,
    SCORES_REQUIRED,
    WORD_COUNTS,
    read_format_file,
    schema_problem,
    score_problems,
)
from cws_bench.score_registry import bounded_scores, scores_of_kind
from cws_bench.text.io import PathLike, atomic_write

__all__ = ["BASELINE_SCHEMA", "baseline_problems", "load_baseline", "save_baseline"]


def save_baseline(baseline: Baseline, path: PathLike) -> None:
    """Write a baseline to a JSON file, atomically; paths are stored relative to its folder."""
    folder = os.path.dirname(os.path.abspath(os.fspath(path)))
    text = json.dumps(baseline.to_dict(folder), ensure_ascii=False, indent=1)
    # One sentence's (correct, predicted, gold) counts a line, not one number a line.
    text = _COUNT_ROW.sub(r"[\1, \2, \3]", text)
    with atomic_write(path) as f:
        f.write(text + "\n")


_COUNT_ROW = re.compile(r"\[\s*(\d+),\s*(\d+),\s*(\d+)\s*\]")


BASELINE_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "cws-bench baseline",
    "type": "object",
    "required": ["format", "format_version", "segmenter", "corpora"],
    "properties": {
        "segmenter": {
            "type": "object",
            "required": ["name"],
            "properties": {
                "name": {"type": "string", "minLength": 1},
                "registered": {"type": "boolean"},
                "version": {"type": ["string", "number", "null"]},
                "options": {"type": "object"},
                "paths": {"type": "array", "items": {"type": "string"}},
            },
        },
        "bounds": {
            "type": "object",
            "properties": {
                "drops": {
                    "type": "object",
                    "additionalProperties": {"type": "number", "minimum": 0},
                },
                "speed": {"type": ["number", "null"], "minimum": 0, "maximum": 100},
            },
        },
        "settings": {
            "type": "object",
            "properties": {
                "speed_runs": {"type": "integer", "minimum": 1},
                "batch_size": {"type": "integer", "minimum": 1},
                "min_run_seconds": {"type": "number", "minimum": 0},
                "keep_segmentation": {"type": "boolean"},
                "seed": {"type": "integer"},
                "resamples": {"type": "integer", "minimum": 1},
            },
        },
        "environment": {"type": "object"},
        "corpora": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["corpus", "identity", "segmenter", "scores", "speed"],
                "properties": {
                    "corpus": {"type": "object"},
                    "paths": {"type": "array", "items": {"type": "string"}},
                    "identity": {"type": "object"},
                    "segmenter": {"type": "object"},
                    "scores": {
                        "type": "object",
                        "required": SCORES_REQUIRED,
                        "properties": {
                            **{s.name: OPTIONAL_FRACTION for s in bounded_scores()},
                            **{s.name: FRACTION for s in scores_of_kind("word")},
                            **WORD_COUNTS,
                        },
                    },
                    "speed": {
                        "type": "object",
                        "required": ["chars_per_s", "runs", "characters", "passes"],
                        "properties": {
                            "chars_per_s": {"type": "number", "minimum": 0},
                            "runs": {
                                "type": "array",
                                "minItems": 1,
                                "items": {"type": "number", "minimum": 0},
                            },
                            "characters": COUNT,
                            "passes": COUNT,
                            "load_s": {"type": ["number", "null"]},
                        },
                    },
                    "warnings": {"type": "array", "items": {"type": "string"}},
                    "sentence_counts": COUNT_ROWS,
                    "segmentation": {"type": ["array", "null"], "items": {"type": "string"}},
                    "token_ids": {
                        "type": "object",
                        "required": ["checksum", "lines"],
                        "properties": {
                            "checksum": {"type": "string"},
                            "lines": {"type": "array", "items": {"type": "array", "items": COUNT}},
                        },
                    },
                },
            },
        },
    },
}
"""What a baseline file must look like (JSON Schema); :func:`load_baseline` checks it."""


def baseline_problems(data: Any) -> list[str]:
    """What is wrong with a baseline's content: its shape, then each corpus' counts.

    Scores must be those of the stored counts, the per-sentence counts must
    sum to them, and a stored segmentation must hold as many words as were
    scored: a file cut short or edited by hand is refused.
    """
    problem = schema_problem(data, BASELINE_SCHEMA, whole="the file")
    if problem is not None:
        return [problem]
    problems = []
    for index, item in enumerate(data["corpora"]):
        where = f"corpora.{index} ({item['corpus'].get('label', '?')})"
        scores = item["scores"]
        if scores.get("method", "interval") == "interval":
            rows = item.get("sentence_counts", [])
            problems += [f"{where}: {p}" for p in score_problems(scores, rows)]
        segmentation = item.get("segmentation")
        if segmentation is not None:
            words = sum(len(line.split()) for line in segmentation)
            if words != scores["pred_words"]:
                problems.append(
                    f"{where}: the stored segmentation holds {words} words, the scores "
                    f"counted {scores['pred_words']}"
                )
    return problems


def load_baseline(path: PathLike) -> Baseline:
    """Read a baseline file written by :func:`save_baseline`.

    Raises:
        CwsBenchError: the file is missing, not JSON (line and column named),
            not a cws-bench baseline, or of a format version this cws-bench
            does not read.
    """
    make = "make one with `cws-bench baseline save`"
    name, data = read_format_file(
        path,
        FORMAT,
        ("baseline file", "baseline", "cws-bench baseline"),
        (make, "restore the file, or record the baseline again", make),
    )
    if data.get("format_version") != FORMAT_VERSION:
        raise CwsBenchError(
            f"{name}: baseline format version {data.get('format_version')!r}; this cws-bench "
            f"({__version__}) reads version {FORMAT_VERSION}",
            "record the baseline again with this version (`cws-bench baseline save`)",
        )
    problems = baseline_problems(data)
    if problems:
        raise CwsBenchError(
            f"{name}: a malformed baseline: {problems[0]}"
            + (f" (and {plural(len(problems) - 1, 'more problem')})" if len(problems) > 1 else ""),
            "restore the file, or record the baseline again (`cws-bench baseline save`)",
        )
    folder = os.path.dirname(os.path.abspath(name))
    try:
        return Baseline.from_dict(data, folder)
    except (KeyError, TypeError, ValueError) as e:
        detail = f"missing key {e}" if isinstance(e, KeyError) else str(e)
        raise CwsBenchError(
            f"{name}: a malformed baseline ({detail})", "record the baseline again"
        ) from e
