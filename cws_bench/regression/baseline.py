"""Baselines: the scores and speed of one segmenter configuration on some corpora (the model).

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
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from cws_bench.errors import CwsBenchError
from cws_bench.regression.tokens import TokenIds
from cws_bench.run.config import CorpusSpec
from cws_bench.run.identity import command_argv, command_files, is_path
from cws_bench.run.pair import SegmenterMetadata
from cws_bench.score_registry import bounded_scores
from cws_bench.text.io import PathLike

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "Baseline",
    "Bounds",
    "CorpusRecord",
    "RecordIdentity",
    "SegmenterConfig",
    "Speed",
]

T = TypeVar("T")

FORMAT = "cws-bench baseline"
FORMAT_VERSION = 1


@dataclass(frozen=True)
class Speed:
    """Characters per second of one segmenter on one corpus.

    Attributes:
        chars_per_s: the median of ``runs``, each timed run's characters per second.
        characters: characters of the corpus (one pass); passes: passes in each run.
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
        return {**asdict(self), "runs": list(self.runs)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Speed:
        return cls(
            float(data["chars_per_s"]),
            tuple(float(run) for run in data["runs"]),
            int(data["characters"]),
            int(data["passes"]),
            _maybe(float, data.get("load_s")),
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
        key: the bake-off's cache key of the pair (:func:`~cws_bench.run.plan.cache_key`).
        signature: the bake-off's signature of the pair
            (:func:`~cws_bench.run.pair.pair_signature`).
    """

    corpus_checksum: str
    dictionary_checksum: str | None
    key: str
    signature: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RecordIdentity:
        return cls(**{name: data[name] for name in cls.__dataclass_fields__})


@dataclass(frozen=True)
class CorpusRecord:
    """One corpus of a baseline: scores, speed, signature, per-sentence counts.

    Attributes:
        corpus: the corpus (a registered one, or a file), paths absolute in memory.
        scores: :meth:`cws_bench.scoring.ScoreResult.to_dict` (fractions in [0, 1]).
        segmenter: name, version, kind, options as the signature sees them
            (files by checksum) and training data of the segmenter as it ran.
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
        bounded = [s.name for s in bounded_scores()]  # besides speed
        for metric, value in self.drops.items():
            if metric not in bounded:
                raise CwsBenchError(
                    f"no score {metric!r} to bound", f"use one of: {', '.join(bounded)}"
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
        return cls(
            {str(k): float(v) for k, v in data.get("drops", {}).items()},
            _maybe(float, data.get("speed")),
            int(data.get("token_lines", 0)),
            _maybe(float, data.get("max_p")),
        )


@dataclass(frozen=True)
class Baseline:
    """A segmenter configuration's scores and speed on some corpora, and the bounds to check.

    Attributes:
        bounds: the bounds a check applies unless told others.
        settings: ``speed_runs``, ``batch_size``, ``min_run_seconds``,
            ``keep_segmentation``, ``seed`` and ``resamples`` (of the paired
            bootstrap test a check runs).
        environment: cws-bench and Python versions, platform, CPUs.
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
            corpus, corpus_paths = _portable(asdict(record.corpus), folder, CORPUS_PATHS)
            item = {
                "corpus": corpus,
                "paths": corpus_paths,
                "identity": record.identity.to_dict(),
                "segmenter": record.segmenter.to_dict(),
                "scores": record.scores,
                "speed": record.speed.to_dict(),
                "warnings": list(record.warnings),
                "sentence_counts": [list(row) for row in record.sentence_counts],
                "segmentation": _maybe(list, record.segmentation),
            }
            if record.token_ids is not None:
                item["token_ids"] = record.token_ids.to_dict()
            records.append(item)
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
                    segmentation=_maybe(tuple, item.get("segmentation")),
                    warnings=tuple(item.get("warnings", ())),
                    token_ids=_maybe(TokenIds.from_dict, item.get("token_ids")),
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


def _maybe(convert: Callable[[Any], T], value: Any) -> T | None:
    """``convert(value)``, or None for None."""
    return None if value is None else convert(value)


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
