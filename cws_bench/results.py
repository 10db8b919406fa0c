"""The result model of a bake-off: one row per (segmenter, corpus) pair, plus comparisons.

The runner (cws_bench/bakeoff.py) produces a :class:`BakeoffResult`; the
reports (cws_bench/reports/) render it and never recompute a number. Every
value is JSON-safe, so ``BakeoffResult.from_dict(result.to_dict())`` gives the
result back and ``results.json`` is the single source of every number in a
report.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["STATUSES", "BakeoffResult", "Comparison", "Interval", "PairResult"]

STATUSES = ("ok", "failed", "timeout")


@dataclass(frozen=True, slots=True)
class Interval:
    """A confidence interval of a score (fractions in [0, 1])."""

    low: float
    high: float

    def to_dict(self) -> dict[str, float]:
        return {"low": self.low, "high": self.high}


@dataclass(frozen=True)
class PairResult:
    """One segmenter on one corpus.

    Attributes:
        corpus: the corpus label of the run (a registered name, or the label
            given in the configuration).
        segmenter: the segmenter label of the run (e.g. ``hmm``, ``jieba-nohmm``).
        adapter: the registered adapter name behind the label.
        track: ``closed`` (only the corpus' training data) or ``open``.
        status: ``ok``, ``failed`` (an error, in ``error``) or ``timeout``.
        error: what went wrong, for a failed or timed-out pair.
        scores: :meth:`cws_bench.scoring.ScoreResult.to_dict` of the pair
            (precision, recall, f1, oov_rate, oov_recall, iv_recall,
            boundary_*, word counts, error kinds, signature, ...).
        intervals: bootstrap confidence intervals by metric name
            (``precision``, ``recall``, ``f1``).
        sighan_intervals: the SIGHAN bakeoff half-widths ±2·sqrt(p(1−p)/n) by
            metric name (``precision``, ``recall``).
        timing: ``load_s`` (building the segmenter: loading its model, or
            training it), ``segment_s``, ``characters``, ``sentences``,
            ``chars_per_s``, ``words_per_s``.
        peak_memory_mib: peak resident memory of the worker process.
        warnings: things a reader must know (differing lines, evaluation on
            the segmenter's own training data, ...).
        segmenter_info: name, version, kind, options and training data of the
            segmenter as it ran.
        signature: every setting that can change the numbers, ``key:value|...``.
        analysis: :meth:`cws_bench.analysis.ErrorAnalysis.to_dict` of the pair.
        cached: whether the row came from the run cache.
    """

    corpus: str
    segmenter: str
    adapter: str
    track: str
    status: str
    error: str | None = None
    scores: dict[str, Any] = field(default_factory=dict)
    intervals: dict[str, Interval] = field(default_factory=dict)
    sighan_intervals: dict[str, float] = field(default_factory=dict)
    timing: dict[str, float] = field(default_factory=dict)
    peak_memory_mib: float | None = None
    warnings: tuple[str, ...] = ()
    segmenter_info: dict[str, Any] = field(default_factory=dict)
    signature: str = ""
    analysis: dict[str, Any] = field(default_factory=dict)
    cached: bool = False

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["intervals"] = {k: v.to_dict() for k, v in self.intervals.items()}
        data["warnings"] = list(self.warnings)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PairResult:
        data = dict(data)
        data["intervals"] = {k: Interval(**v) for k, v in data.get("intervals", {}).items()}
        data["warnings"] = tuple(data.get("warnings", ()))
        return cls(**data)


@dataclass(frozen=True, slots=True)
class Comparison:
    """A paired bootstrap comparison of two segmenters on the same corpus.

    Attributes:
        corpus: the corpus label.
        a, b: the segmenter labels; ``difference`` is a's score minus b's.
        metric: the compared metric (``f1``).
        difference: the observed difference.
        interval: the bootstrap confidence interval of the difference.
        p_value: the paired bootstrap p-value of "a is not better than b"
            (two-sided: of "a and b do not differ").
        significant: ``p_value < alpha``.
    """

    corpus: str
    a: str
    b: str
    metric: str
    difference: float
    interval: Interval
    p_value: float
    significant: bool

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["interval"] = self.interval.to_dict()
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Comparison:
        data = dict(data)
        data["interval"] = Interval(**data["interval"])
        return cls(**data)


@dataclass(frozen=True)
class BakeoffResult:
    """Every pair of a bake-off, the comparisons, and how the run was made.

    Attributes:
        name: the run name (reports go to ``reports/<name>/`` by default).
        config: the configuration as run (JSON-safe).
        pairs: one row per (segmenter, corpus) pair, in configuration order.
        comparisons: paired bootstrap tests of every two segmenters per corpus.
        settings: seed, number of resamples, confidence level, alpha.
        environment: cws-bench and Python versions, platform, CPU count.
        created: ISO 8601 time the run finished.
        duration_s: wall time of the run.
    """

    name: str
    config: dict[str, Any]
    pairs: tuple[PairResult, ...]
    comparisons: tuple[Comparison, ...] = ()
    settings: dict[str, Any] = field(default_factory=dict)
    environment: dict[str, Any] = field(default_factory=dict)
    created: str = ""
    duration_s: float = 0.0

    def corpora(self) -> list[str]:
        """Corpus labels in configuration order."""
        return list(dict.fromkeys(p.corpus for p in self.pairs))

    def segmenters(self) -> list[str]:
        """Segmenter labels in configuration order."""
        return list(dict.fromkeys(p.segmenter for p in self.pairs))

    def leaderboard(self, corpus: str) -> list[PairResult]:
        """The pairs of one corpus, best F1 first; failed pairs last."""
        rows = [p for p in self.pairs if p.corpus == corpus]
        return sorted(rows, key=lambda p: (not p.ok, -p.scores.get("f1", 0.0) if p.ok else 0.0))

    def comparison(self, corpus: str, a: str, b: str) -> Comparison | None:
        """The comparison of a against b on a corpus (either direction stored)."""
        for c in self.comparisons:
            if c.corpus == corpus and (c.a, c.b) == (a, b):
                return c
        return None

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict with a stable key order."""
        return {
            "name": self.name,
            "created": self.created,
            "duration_s": self.duration_s,
            "settings": self.settings,
            "environment": self.environment,
            "config": self.config,
            "pairs": [p.to_dict() for p in self.pairs],
            "comparisons": [c.to_dict() for c in self.comparisons],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> BakeoffResult:
        return cls(
            name=data["name"],
            config=data.get("config", {}),
            pairs=tuple(PairResult.from_dict(p) for p in data["pairs"]),
            comparisons=tuple(Comparison.from_dict(c) for c in data.get("comparisons", ())),
            settings=data.get("settings", {}),
            environment=data.get("environment", {}),
            created=data.get("created", ""),
            duration_s=data.get("duration_s", 0.0),
        )

    def to_rows(self) -> list[dict[str, Any]]:
        """One flat row per pair: the columns of results.csv and of :meth:`to_frame`."""
        rows = []
        for p in self.pairs:
            row: dict[str, Any] = {
                "corpus": p.corpus,
                "segmenter": p.segmenter,
                "adapter": p.adapter,
                "track": p.track,
                "status": p.status,
                "error": p.error,
                "version": p.segmenter_info.get("version"),
            }
            for key in (
                "precision",
                "recall",
                "f1",
                "oov_rate",
                "oov_recall",
                "iv_recall",
                "boundary_precision",
                "boundary_recall",
                "boundary_f1",
                "gold_words",
                "pred_words",
                "correct_words",
                "mismatched_lines",
            ):
                row[key] = p.scores.get(key)
            for metric in ("precision", "recall", "f1"):
                interval = p.intervals.get(metric)
                row[f"{metric}_low"] = interval.low if interval else None
                row[f"{metric}_high"] = interval.high if interval else None
            for metric in ("precision", "recall"):
                row[f"{metric}_sighan_halfwidth"] = p.sighan_intervals.get(metric)
            for key in ("chars_per_s", "words_per_s", "segment_s", "load_s"):
                row[key] = p.timing.get(key)
            row["peak_memory_mib"] = p.peak_memory_mib
            row["warnings"] = " | ".join(p.warnings)
            row["cached"] = p.cached
            row["signature"] = p.signature
            rows.append(row)
        return rows

    def to_frame(self) -> pd.DataFrame:
        """The pairs as a pandas DataFrame (the columns of results.csv)."""
        import pandas as pd

        return pd.DataFrame(self.to_rows())
