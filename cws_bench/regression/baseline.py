"""Baselines: the scores and speed of one segmenter configuration on some corpora, on file.

A :class:`Baseline` records, per corpus, every score of
:meth:`cws_bench.scoring.ScoreResult.to_dict` (P/R/F1, OOV and IV recall,
boundary figures, error kinds), the speed, the per-sentence counts (for a
paired bootstrap test of a later run against it), optionally the
segmentation itself (so a later run can say *what* changed), and the
reproducibility signature of the bake-off results
(:func:`cws_bench.run.pair.pair_signature`, :func:`cws_bench.run.plan.cache_key`):
segmenter name, version and options, corpus checksum, dictionary checksum,
cws-bench version. Files named by options (a jieba user dictionary, an HMM
model) enter the signature by their content (``file:<checksum>``), not by
their path, so a baseline made on one machine is the same experiment on
another, and an edited user dictionary is a changed experiment.

The JSON file stores paths relative to the baseline's folder and is written
atomically (:func:`cws_bench.text.io.atomic_write`).

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

import json
import os
import re
import statistics
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cws_bench import __version__
from cws_bench.defaults import DEFAULT_BATCH_SIZE
from cws_bench.errors import CorpusFormatError, CwsBenchError
from cws_bench.metrics.units import plural
from cws_bench.regression.tokens import TokenIds, keeping_token_ids, record_token_ids
from cws_bench.run.config import CorpusSpec
from cws_bench.run.identity import (
    command_argv,
    command_files,
    environment,
    forget,
    is_path,
    options_identity,
)
from cws_bench.run.pair import PairInput, SegmenterMetadata, pair_signature, score_pair
from cws_bench.run.plan import cache_key, corpus_dictionary, gold_and_raw, identity_of
from cws_bench.text.checksums import file_checksum, sentences_checksum
from cws_bench.text.io import PathLike, atomic_write

if TYPE_CHECKING:
    from cws_bench.run.executors import Executor
    from cws_bench.segmenters import Segmenter

__all__ = [
    "BASELINE_SCHEMA",
    "DEFAULT_BATCH_SIZE",
    "DEFAULT_SPEED_RUNS",
    "FORMAT",
    "FORMAT_VERSION",
    "MIN_RUN_SECONDS",
    "Baseline",
    "Bounds",
    "CorpusRecord",
    "RecordIdentity",
    "SegmenterConfig",
    "Speed",
    "as_corpus_spec",
    "baseline_problems",
    "file_checksum",
    "load_baseline",
    "measure_speed",
    "record_baseline",
    "rerun_baseline",
    "save_baseline",
]

FORMAT = "cws-bench baseline"
FORMAT_VERSION = 1
DEFAULT_SPEED_RUNS = 3
LEGACY_BATCH_SIZE = 500
"""The batch size of a baseline file that records none (files older than the setting)."""
LEGACY_SEED = 12345
"""The seed of a baseline file that records none: DEFAULT_SEED was 12345 then."""
MIN_RUN_SECONDS = 0.2
"""The shortest timed run: a run repeats the corpus until it has lasted this long."""

Segment = Callable[[list[str]], list[list[str]]]
"""A batch segmenter: raw lines in, one list of words per line out."""


# ---------------------------------------------------------------------------
# The model


@dataclass(frozen=True)
class Speed:
    """Characters per second of one segmenter on one corpus.

    Attributes:
        chars_per_s: the median of ``runs``.
        runs: characters per second of each timed run.
        characters: characters of the corpus (one pass).
        passes: passes over the corpus in each run.
        load_s: seconds it took to build the segmenter, or None.
    """

    chars_per_s: float
    runs: tuple[float, ...]
    characters: int
    passes: int
    load_s: float | None = None

    @property
    def spread(self) -> float:
        """(fastest - slowest run) / median: how noisy the measurement was.

        >>> Speed(100.0, (90.0, 100.0, 110.0), 50, 1).spread
        0.2
        """
        return (max(self.runs) - min(self.runs)) / self.chars_per_s if self.chars_per_s else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "chars_per_s": self.chars_per_s,
            "runs": list(self.runs),
            "characters": self.characters,
            "passes": self.passes,
            "load_s": self.load_s,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Speed:
        return cls(
            float(data["chars_per_s"]),
            tuple(float(run) for run in data["runs"]),
            int(data["characters"]),
            int(data["passes"]),
            None if data.get("load_s") is None else float(data["load_s"]),
        )


@dataclass(frozen=True)
class SegmenterConfig:
    """What segments: a registered segmenter and its options, or a Python callable.

    Attributes:
        name: the registered name (``jieba``), or the callable's name.
        options: the options given (``get_segmenter(name, **options)`` rebuilds it),
            paths absolute in memory.
        registered: whether ``name`` is a registered segmenter (a callable
            cannot be rebuilt from the baseline: the pytest plugin passes it again).
        version: for a callable, the version its owner gives (else the segmenter's own).
    """

    name: str
    options: dict[str, Any] = field(default_factory=dict)
    registered: bool = True
    version: str | None = None


@dataclass(frozen=True)
class RecordIdentity:
    """What a baseline's corpus record was an experiment on, by content.

    Attributes:
        corpus_checksum: the sentence checksum of the gold.
        dictionary_checksum: the OOV dictionary's checksum, or None.
        key: the bake-off's cache key of the pair (:func:`~cws_bench.run.plan.cache_key`).
        signature: the bake-off's signature of the pair
            (:func:`~cws_bench.run.pair.pair_signature`).
    """

    corpus_checksum: str
    dictionary_checksum: str | None
    key: str
    signature: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "corpus_checksum": self.corpus_checksum,
            "dictionary_checksum": self.dictionary_checksum,
            "key": self.key,
            "signature": self.signature,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RecordIdentity:
        return cls(
            data["corpus_checksum"], data["dictionary_checksum"], data["key"], data["signature"]
        )


@dataclass(frozen=True)
class CorpusRecord:
    """One corpus of a baseline: scores, speed, signature, per-sentence counts.

    Attributes:
        corpus: the corpus (a registered one, or a file), paths absolute in memory.
        scores: :meth:`cws_bench.scoring.ScoreResult.to_dict` (fractions in [0, 1]).
        speed: the speed measurement.
        segmenter: name, version, kind, options as the signature sees them
            (files by checksum) and training data of the segmenter as it ran.
        identity: the checksums, cache key and signature of the experiment.
        sentence_counts: (correct, predicted, gold) words per scored sentence.
        segmentation: the predicted sentences (words joined by spaces), or None.
        warnings: what a reader must know (contamination, nondeterminism, ...).
        token_ids: a tokenizer's token ids of every raw line
            (:mod:`cws_bench.regression.tokens`), or None for a segmenter without ids.
        gold: the gold sentences, kept in memory for a diff (never saved).
    """

    corpus: CorpusSpec
    scores: dict[str, Any]
    speed: Speed
    segmenter: SegmenterMetadata
    identity: RecordIdentity
    sentence_counts: tuple[tuple[int, int, int], ...]
    segmentation: tuple[str, ...] | None = None
    warnings: tuple[str, ...] = ()
    token_ids: TokenIds | None = None
    gold: tuple[tuple[str, ...], ...] | None = field(default=None, compare=False, repr=False)

    @property
    def label(self) -> str:
        return self.corpus.label


METRICS = (
    "precision",
    "recall",
    "f1",
    "oov_recall",
    "iv_recall",
    "boundary_precision",
    "boundary_recall",
    "boundary_f1",
)
"""Scores a bound may be put on (``Bounds.drops`` keys), besides ``speed``."""


@dataclass(frozen=True)
class Bounds:
    """How far a rerun may fall behind its baseline before the check fails.

    Attributes:
        drops: score name -> the largest allowed drop in percentage points
            (``{"f1": 0.5}``: F1 may fall from 80.76 to 80.26, not lower).
        speed: the largest allowed drop of the median speed, in percent, or
            None (speed not checked).
        token_lines: for a tokenizer, how many lines' token ids may change (0:
            any changed line fails).
        max_p: None (a score that falls below its bound fails), or a p-value
            level: a score below its bound fails only when the paired bootstrap
            test of the rerun against the baseline over the same sentences (their
            stored per-sentence counts) gives p < max_p, that is when the drop is
            more than chance; without such a test (the runs scored different
            sentences) the bound applies alone.

    >>> Bounds().drops, Bounds().speed, Bounds().token_lines, Bounds().max_p
    ({'f1': 0.0}, None, 0, None)
    """

    drops: Mapping[str, float] = field(default_factory=lambda: {"f1": 0.0})
    speed: float | None = None
    token_lines: int = 0
    max_p: float | None = None

    def __post_init__(self) -> None:
        for metric, value in self.drops.items():
            if metric not in METRICS:
                raise CwsBenchError(
                    f"no score {metric!r} to bound", f"use one of: {', '.join(METRICS)}"
                )
            if not value >= 0:
                raise CwsBenchError(f"the allowed drop of {metric} must be >= 0, not {value}")
        if self.token_lines < 0:
            raise CwsBenchError(
                f"the changed token lines allowed must be >= 0, not {self.token_lines}"
            )
        if self.speed is not None and not 0 <= self.speed <= 100:
            raise CwsBenchError(
                f"the allowed speed drop is a percentage in [0, 100], not {self.speed}"
            )
        if self.max_p is not None and (
            isinstance(self.max_p, bool)
            or not isinstance(self.max_p, (int, float))
            or not 0 < self.max_p < 1
        ):
            raise CwsBenchError(
                f"max_p must be a p-value level between 0 and 1 (exclusive), not {self.max_p!r}",
                "0.05: a drop fails the check only when p < 0.05",
            )

    def merged(
        self,
        drops: Mapping[str, float] | None = None,
        speed: float | None = None,
        token_lines: int | None = None,
        max_p: float | None = None,
    ) -> Bounds:
        """These bounds with some replaced (e.g. by command-line options)."""
        return Bounds(
            {**self.drops, **(drops or {})},
            self.speed if speed is None else speed,
            self.token_lines if token_lines is None else token_lines,
            self.max_p if max_p is None else max_p,
        )

    @classmethod
    def from_limits(
        cls,
        *,
        max_f1_drop: float | None = None,
        max_oov_recall_drop: float | None = None,
        max_speed_drop: float | None = None,
        max_drop: Mapping[str, float] | None = None,
        base: Bounds | None = None,
        max_token_lines: int | None = None,
        max_p: float | None = None,
    ) -> Bounds:
        """``base`` (default: F1 may not drop) with the limits a caller gives; None keeps one.

        What the ``check``/``baseline`` commands and the pytest plugin's
        ``cws_regression`` both take: ``max_f1_drop`` and ``max_oov_recall_drop``
        in points win over the same scores in ``max_drop``.

        >>> b = Bounds.from_limits(max_f1_drop=0.5, max_drop={"recall": 1.0, "f1": 2.0})
        >>> dict(b.drops), b.speed
        ({'f1': 0.5, 'recall': 1.0}, None)
        >>> Bounds.from_limits(max_speed_drop=30, base=b).speed
        30
        """
        drops = dict(max_drop or {})
        if max_f1_drop is not None:
            drops["f1"] = max_f1_drop
        if max_oov_recall_drop is not None:
            drops["oov_recall"] = max_oov_recall_drop
        return (base if base is not None else cls()).merged(
            drops, max_speed_drop, max_token_lines, max_p
        )

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"drops": dict(self.drops), "speed": self.speed}
        if self.token_lines:  # only where allowed: other baselines' files stay as they were
            data["token_lines"] = self.token_lines
        if self.max_p is not None:  # likewise
            data["max_p"] = self.max_p
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Bounds:
        speed = data.get("speed")
        max_p = data.get("max_p")
        return cls(
            {str(k): float(v) for k, v in data.get("drops", {}).items()},
            None if speed is None else float(speed),
            int(data.get("token_lines", 0)),
            None if max_p is None else float(max_p),
        )


@dataclass(frozen=True)
class Baseline:
    """A segmenter configuration's scores and speed on some corpora, and the bounds to check.

    Attributes:
        segmenter: what segments.
        records: one per corpus, in order.
        bounds: the bounds a check applies unless told others.
        settings: ``speed_runs``, ``batch_size``, ``min_run_seconds``,
            ``keep_segmentation``, ``seed`` and ``resamples`` (of the paired
            bootstrap test a check runs).
        environment: cws-bench and Python versions, platform, CPUs.
        created: when it was made (UTC, ISO 8601).
    """

    segmenter: SegmenterConfig
    records: tuple[CorpusRecord, ...]
    bounds: Bounds = field(default_factory=Bounds)
    settings: dict[str, Any] = field(default_factory=dict)
    environment: dict[str, Any] = field(default_factory=dict)
    created: str = ""

    def record(self, label: str) -> CorpusRecord | None:
        """The record of a corpus label, or None."""
        return next((r for r in self.records if r.label == label), None)

    def to_dict(self, folder: PathLike = ".") -> dict[str, Any]:
        """JSON-safe dict; paths relative to ``folder`` (where the file goes)."""
        options, option_paths = _portable(self.segmenter.options, folder)
        records = []
        for record in self.records:
            corpus, corpus_paths = _portable(_corpus_fields(record.corpus), folder, CORPUS_PATHS)
            records.append(
                {
                    "corpus": corpus,
                    "paths": corpus_paths,
                    "identity": record.identity.to_dict(),
                    "segmenter": record.segmenter.to_dict(),
                    "scores": record.scores,
                    "speed": record.speed.to_dict(),
                    "warnings": list(record.warnings),
                    "sentence_counts": [list(row) for row in record.sentence_counts],
                    "segmentation": (
                        None if record.segmentation is None else list(record.segmentation)
                    ),
                    **(
                        {}
                        if record.token_ids is None
                        else {"token_ids": record.token_ids.to_dict()}
                    ),
                }
            )
        return {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "created": self.created,
            "segmenter": {
                "name": self.segmenter.name,
                "registered": self.segmenter.registered,
                "version": self.segmenter.version,
                "options": options,
                "paths": option_paths,
            },
            "bounds": self.bounds.to_dict(),
            "settings": dict(self.settings),
            "environment": dict(self.environment),
            "corpora": records,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], folder: PathLike = ".") -> Baseline:
        """Rebuild a baseline from :meth:`to_dict` output, relative paths against ``folder``.

        Raises:
            KeyError, TypeError, ValueError: a malformed dict (:func:`load_baseline`
                turns them into a message naming the file).
        """
        seg = data["segmenter"]
        records = []
        for item in data["corpora"]:
            fields = _absolute(item["corpus"], item.get("paths", []), folder)
            records.append(
                CorpusRecord(
                    corpus=CorpusSpec(**fields),
                    scores=dict(item["scores"]),
                    speed=Speed.from_dict(item["speed"]),
                    segmenter=SegmenterMetadata.from_dict(item["segmenter"]),
                    identity=RecordIdentity.from_dict(item["identity"]),
                    sentence_counts=tuple(
                        (int(c), int(p), int(g)) for c, p, g in item["sentence_counts"]
                    ),
                    segmentation=(
                        None if item.get("segmentation") is None else tuple(item["segmentation"])
                    ),
                    warnings=tuple(item.get("warnings", ())),
                    token_ids=(
                        None
                        if item.get("token_ids") is None
                        else TokenIds.from_dict(item["token_ids"])
                    ),
                )
            )
        return cls(
            segmenter=SegmenterConfig(
                name=str(seg["name"]),
                options=_absolute(seg.get("options", {}), seg.get("paths", []), folder),
                registered=bool(seg.get("registered", True)),
                version=seg.get("version"),
            ),
            records=tuple(records),
            bounds=Bounds.from_dict(data.get("bounds", {})),
            settings=dict(data.get("settings", {})),
            environment=dict(data.get("environment", {})),
            created=str(data.get("created", "")),
        )


def _token_ids(record: CorpusRecord) -> dict[str, Any]:
    """A tokenizer's ids as a baseline file keeps them (nothing for a word segmenter)."""
    return {} if record.token_ids is None else {"token_ids": record.token_ids.to_dict()}


def _corpus_fields(corpus: CorpusSpec) -> dict[str, Any]:
    return {key: getattr(corpus, key) for key in CorpusSpec.__dataclass_fields__}


CORPUS_PATHS = frozenset({"gold", "raw", "dictionary"})
"""The fields of a CorpusSpec that may hold paths."""


def _portable(
    values: Mapping[str, Any], folder: PathLike, keys: frozenset[str] | None = None
) -> tuple[dict[str, Any], list[str]]:
    """Values with existing paths made relative to ``folder``, and the keys that are paths.

    Only ``keys`` may hold paths when given.
    """
    out: dict[str, Any] = {}
    paths: list[str] = []
    base = os.path.abspath(folder)
    for key, value in values.items():
        argv = command_argv(value) if key == "command" and keys is None else None
        if argv is not None and command_files(argv):
            # The script of a command, relative to the baseline's folder (like any path).
            for index in command_files(argv):
                paths.append(f"command:{index}")
                relative = os.path.relpath(os.path.abspath(argv[index]), base)
                argv[index] = Path(relative).as_posix()
            out[key] = argv
            continue
        if (keys is None or key in keys) and is_path(key, value):
            paths.append(key)
            value = Path(os.path.relpath(os.path.abspath(value), base)).as_posix()
        out[key] = value
    return out, paths


def _absolute(values: Mapping[str, Any], paths: Iterable[str], folder: PathLike) -> dict[str, Any]:
    """The inverse of :func:`_portable`: the keys in ``paths`` resolved against ``folder``."""
    out = dict(values)
    for key in paths:
        if key.startswith("command:"):
            index = int(key.removeprefix("command:"))
            argv = list(out.get("command") or [])
            if index < len(argv):
                argv[index] = os.path.normpath(os.path.join(os.path.abspath(folder), argv[index]))
                out["command"] = argv
            continue
        if out.get(key) is not None:
            out[key] = os.path.normpath(os.path.join(os.path.abspath(folder), out[key]))
    return out


# ---------------------------------------------------------------------------
# Running


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
        segment: the batch segmenter.
        lines: the raw lines.
        runs: timed runs (at least 1).
        batch_size: lines per ``segment`` call.
        min_run_seconds: a run repeats the corpus until it has lasted this long.
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
    """One segmenter, ready to run on corpora (kept private)."""

    config: SegmenterConfig
    segment: Segment
    info: dict[str, Any]
    trained_on: Any = None
    load_s: float | None = None
    tokenizer: Any = None  # a segmenter with token ids (regression.tokens), or None


def _runner(
    segmenter: str | Segmenter | Callable[..., Any],
    *,
    options: Mapping[str, Any] | None,
    name: str | None,
    version: str | None,
    batch: bool,
) -> _Runner:
    """Build (or wrap) the segmenter; describe it as the signature sees it."""
    from cws_bench.segmenters import Segmenter, check_segmentation, get_segmenter

    options = dict(options or {})
    if isinstance(segmenter, str):
        began = time.perf_counter()
        built = get_segmenter(segmenter, **options)
        load_s = time.perf_counter() - began
        config = SegmenterConfig(segmenter, options, registered=True)
        return _Runner(
            config, built.segment, _info(built.metadata()), built.trained_on, load_s, built
        )
    if isinstance(segmenter, Segmenter):
        config = SegmenterConfig(name or segmenter.name, dict(segmenter.options), registered=False)
        return _Runner(
            config,
            segmenter.segment,
            _info(segmenter.metadata()),
            segmenter.trained_on,
            tokenizer=segmenter,
        )
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


def _info(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """Segmenter metadata as the signature sees it: files named by options go by their content."""
    info = dict(metadata)
    info["options"] = options_identity(metadata["options"])
    return info


def _run_corpus(
    runner: _Runner,
    corpus: CorpusSpec,
    *,
    data_dir: str | None,
    speed_runs: int,
    batch_size: int,
    min_run_seconds: float,
    keep_segmentation: bool,
    seed: int,
    resamples: int,
    executor: Executor | None = None,
    shard_chars: int | None = None,
) -> CorpusRecord:
    """Segment one corpus (timed; in shards on ``executor`` if given), score it, sign it."""
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
            speed, pred, differing = _sharded_speed(runner, raw, executor, batch_size, shard_chars)
        else:
            speed, pred, differing = measure_speed(
                runner.segment,
                raw,
                runs=speed_runs,
                batch_size=batch_size,
                min_run_seconds=min_run_seconds,
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
    )
    info = SegmenterMetadata.from_dict(runner.info)
    signature = pair_signature(scores["signature"], name, info, seed=seed, resamples=resamples)
    return CorpusRecord(
        corpus=corpus,
        scores=scores,
        speed=speed,
        segmenter=info,
        identity=RecordIdentity(checksum, dictionary_checksum, key, signature),
        sentence_counts=scored.sentence_counts,
        segmentation=tuple(" ".join(words) for words in pred) if keep_segmentation else None,
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
        config.name, options, batch_size, "none", "open", segmenter_key(config.name, options)
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
        options: options of a registered segmenter.
        name: the name of a callable (default: its ``__qualname__``).
        version: the version of a callable, recorded in the signature.
        batch: the callable takes a batch of lines.
        dictionary: the OOV dictionary (a ``--dict`` spec) for every corpus
            (default: a registered corpus' standard one; none for files).
        bounds: the bounds a check applies (default: F1 may not drop).
        data_dir: where corpora that need one keep their data.
        speed_runs: timed runs; speed is their median.
        batch_size: lines per ``segment`` call.
        min_run_seconds: the shortest timed run.
        keep_segmentation: store the segmentation, so a check can say what changed.
        seed: the seed of a check's paired bootstrap test (default
            :data:`~cws_bench.metrics.significance.DEFAULT_SEED`).
        resamples: its resamples (default 1000).
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
    forget()  # files may have changed since an earlier run in this process
    runner = _runner(segmenter, options=options, name=name, version=version, batch=batch)
    settings = {
        "speed_runs": speed_runs,
        "batch_size": batch_size,
        "min_run_seconds": min_run_seconds,
        "keep_segmentation": keep_segmentation,
        "seed": DEFAULT_SEED if seed is None else seed,
        "resamples": DEFAULT_RESAMPLES if resamples is None else resamples,
    }
    return _record(
        runner,
        specs,
        bounds or Bounds(),
        settings,
        data_dir,
        executor=executor,
        shard_chars=shard_chars,
    )


def _record(
    runner: _Runner,
    specs: Sequence[CorpusSpec],
    bounds: Bounds,
    settings: dict[str, Any],
    data_dir: PathLike | None,
    *,
    executor: Executor | None = None,
    shard_chars: int | None = None,
) -> Baseline:
    data = None if data_dir is None else os.fspath(data_dir)
    records = tuple(
        _run_corpus(
            runner,
            spec,
            data_dir=data,
            speed_runs=settings["speed_runs"],
            batch_size=settings["batch_size"],
            min_run_seconds=settings["min_run_seconds"],
            keep_segmentation=settings["keep_segmentation"],
            seed=settings["seed"],
            resamples=settings["resamples"],
            executor=executor,
            shard_chars=shard_chars,
        )
        for spec in specs
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
        baseline: the baseline.
        segmenter: the segmenter to run: a registered name (built with
            ``options``), a Segmenter, or a callable; None rebuilds the recorded
            registered segmenter from its name and options.
        options: options of a registered segmenter; with ``segmenter=None`` they
            replace the recorded ones.
        version: the version of a callable.
        batch: the callable takes a batch of lines.
        data_dir: where corpora that need one keep their data.
        speed_runs: timed runs (default: as recorded).
        executor: run in shards on an executor (see :func:`record_baseline`).
        shard_chars: characters per shard.

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
        runner = _runner(
            config.name,
            options={**config.options, **(options or {})},
            name=None,
            version=None,
            batch=False,
        )
    elif isinstance(segmenter, str):
        runner = _runner(segmenter, options=options, name=None, version=None, batch=False)
    else:
        runner = _runner(segmenter, options=None, name=config.name, version=version, batch=batch)
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
    return _record(
        runner,
        corpora,
        baseline.bounds,
        settings,
        data_dir,
        executor=executor,
        shard_chars=shard_chars,
    )


# ---------------------------------------------------------------------------
# Files


def save_baseline(baseline: Baseline, path: PathLike) -> None:
    """Write a baseline to a JSON file, atomically; paths are stored relative to its folder."""
    folder = os.path.dirname(os.path.abspath(os.fspath(path)))
    text = json.dumps(baseline.to_dict(folder), ensure_ascii=False, indent=1)
    # One sentence's (correct, predicted, gold) counts a line, not one number a line.
    text = _COUNT_ROW.sub(r"[\1, \2, \3]", text)
    with atomic_write(path) as f:
        f.write(text + "\n")


_COUNT_ROW = re.compile(r"\[\s*(\d+),\s*(\d+),\s*(\d+)\s*\]")


_NUMBER = {"type": "number"}
_COUNT = {"type": "integer", "minimum": 0}
_OPTIONAL_FRACTION = {"type": ["number", "null"], "minimum": 0, "maximum": 1}

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
                        "required": [
                            "precision",
                            "recall",
                            "f1",
                            "gold_words",
                            "pred_words",
                            "correct_words",
                        ],
                        "properties": {
                            **{metric: _OPTIONAL_FRACTION for metric in METRICS},
                            "precision": {"type": "number", "minimum": 0, "maximum": 1},
                            "recall": {"type": "number", "minimum": 0, "maximum": 1},
                            "f1": {"type": "number", "minimum": 0, "maximum": 1},
                            "gold_words": _COUNT,
                            "pred_words": _COUNT,
                            "correct_words": _COUNT,
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
                            "characters": _COUNT,
                            "passes": _COUNT,
                            "load_s": {"type": ["number", "null"]},
                        },
                    },
                    "warnings": {"type": "array", "items": {"type": "string"}},
                    "sentence_counts": {
                        "type": "array",
                        "items": {"type": "array", "items": _COUNT, "minItems": 3, "maxItems": 3},
                    },
                    "segmentation": {"type": ["array", "null"], "items": {"type": "string"}},
                    "token_ids": {
                        "type": "object",
                        "required": ["checksum", "lines"],
                        "properties": {
                            "checksum": {"type": "string"},
                            "lines": {"type": "array", "items": {"type": "array", "items": _COUNT}},
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
    from cws_bench.results.records import schema_problem, score_problems

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
    name = os.fspath(path)
    try:
        text = Path(name).read_text(encoding="utf-8")
    except FileNotFoundError as e:
        raise CwsBenchError(
            f"{name}: no such baseline file", "make one with `cws-bench baseline save`"
        ) from e
    except (OSError, UnicodeDecodeError) as e:
        raise CwsBenchError(f"{name}: cannot read the baseline: {e}") from e
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise CorpusFormatError(
            name,
            e.lineno,
            f"column {e.colno}: not valid JSON: {e.msg}",
            "restore the file, or record the baseline again",
        ) from e
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CwsBenchError(
            f'{name}: not a cws-bench baseline (no "format": "{FORMAT}")',
            "make one with `cws-bench baseline save`",
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
