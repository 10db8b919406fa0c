"""The result model of a bake-off: one row per (segmenter, corpus) pair, plus comparisons.

The runner (cws_bench/run/bakeoff.py) produces a :class:`BakeoffResult`; the
reports (cws_bench/reports/) render it and never recompute a number. Every
value is JSON-safe, so ``BakeoffResult.from_dict(result.to_dict())`` gives the
result back and ``results.json`` is the single source of every number in a
report.
"""

from __future__ import annotations

import importlib
import statistics
from abc import abstractmethod
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from html import escape
from typing import TYPE_CHECKING, Any, NamedTuple, TypeGuard

from cws_bench.display.units import plural
from cws_bench.metrics.defaults import DEFAULT_ALPHA
from cws_bench.score_registry import SCORES, scores_of_kind
from cws_bench.text.dictionary_checks import is_leak_warning

if TYPE_CHECKING:
    import pandas as pd

    from cws_bench.results.across import DomainMatrix

__all__ = [
    "ANALYSIS_KEYS",
    "LEAKED",
    "STATUSES",
    "TEXT_RENDERER",
    "TRACKS",
    "TRAINED_ON_IT",
    "BakeoffResult",
    "Comparison",
    "Interval",
    "Note",
    "PairAnalysis",
    "PairResult",
    "PairScores",
    "Verdict",
    "detectable_differences",
    "family_adjusted",
    "group_warnings",
    "judge_comparisons",
    "seed_row",
    "seed_summaries",
]

STATUSES = ("ok", "failed", "timeout", "skipped")
"""A pair's outcome; ``skipped``: the data it needs is not here (a training split), not a fault."""

TRACKS = ("closed", "open")
"""The tracks in the order reports show them (SIGHAN reports closed before open)."""

TRAINED_ON_IT = "trained on this data"
"""Why a row scored on its own training data is never ranked, as the reports say it."""
TEXT_RENDERER = "cws_bench.reports.text:render_text"
"""What ``str(BakeoffResult)`` renders with, ``"module:function"`` imported when asked for."""
LEAKED = "its dictionary saw the test data"
"""Why a closed-track row whose dictionary leaked the test words is never ranked."""
_WORD_COUNTS = ("gold_words", "pred_words", "correct_words")


def _score_names() -> tuple[str, ...]:
    """The registered scores, then the word counts: what a :class:`PairResult` reads through
    as attributes (as ScoreResult has them), and the score columns of results.csv."""
    return (*SCORES, *_WORD_COUNTS)


@dataclass(frozen=True, slots=True)
class Interval:
    """A confidence interval of a score (fractions in [0, 1])."""

    low: float
    high: float

    def to_dict(self) -> dict[str, float]:
        return {"low": self.low, "high": self.high}


_SCORES_BETA = ("fbeta", "beta")


def _scores_head() -> tuple[str, ...]:
    """The keys before F-beta: the word scores."""
    return tuple(s.name for s in scores_of_kind("word"))


def _scores_middle() -> tuple[str, ...]:
    """The keys after F-beta: the word counts, then the other scores."""
    return (*_WORD_COUNTS, *(s.name for s in SCORES.values() if s.kind != "word"))


_SCORES_TAIL = (
    "sentences",
    "characters",
    "split_gold",
    "split_pred",
    "merge_gold",
    "merge_pred",
    "cross_gold",
    "cross_pred",
    "cross_regions",
    "mismatched_lines",
    "skipped_lines",
    "method",
    "signature",
)


def _scores_keys() -> frozenset[str]:
    return frozenset(_scores_head() + _SCORES_BETA + _scores_middle() + _SCORES_TAIL)


class _StoredMapping(Mapping[str, Any]):
    """A read-only mapping whose keys and order are those of its ``to_dict()``."""

    @abstractmethod
    def to_dict(self) -> dict[str, Any]: ...

    def __iter__(self) -> Iterator[str]:
        return iter(self.to_dict())

    def __len__(self) -> int:
        return len(self.to_dict())


@dataclass(frozen=True, eq=False)
class PairScores(_StoredMapping):
    """A scored pair's scores, typed: :meth:`cws_bench.scoring.ScoreResult.to_dict`'s fields.

    Also a read-only mapping in :meth:`to_dict`'s key order (``scores["f1"]``), as the
    reports read every row's scores; it equals any mapping with the same items. Values are
    kept as they were stored, so ``PairScores.from_dict(d).to_dict()`` writes ``d`` back
    byte for byte. The fields are ScoreResult's, and:

    Attributes:
        fbeta, beta: F-beta and its beta, when beta is not 1 (None: not stored).
        method_counts: the counting method's own counts (``sighan``: insertions,
            deletions, substitutions), after the boundary scores.
        extra_scores: the registered scores (:data:`cws_bench.score_registry.SCORES`)
            that have no field here, by name.
    """

    precision: float
    recall: float
    f1: float
    gold_words: int
    pred_words: int
    correct_words: int
    oov_rate: float | None
    oov_recall: float | None
    iv_recall: float | None
    boundary_precision: float
    boundary_recall: float
    boundary_f1: float
    sentences: int
    characters: int
    split_gold: int
    split_pred: int
    merge_gold: int
    merge_pred: int
    cross_gold: int
    cross_pred: int
    cross_regions: int
    mismatched_lines: int
    skipped_lines: int
    method: str
    signature: str
    fbeta: float | None = None
    beta: float | None = None
    method_counts: dict[str, int] = field(default_factory=dict)
    extra_scores: dict[str, float | None] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The scores as ``ScoreResult.to_dict`` gives them, in its key order."""
        data: dict[str, Any] = {key: self._value(key) for key in _scores_head()}
        if self.beta is not None:
            data.update(fbeta=self.fbeta, beta=self.beta)
        data.update((key, self._value(key)) for key in _scores_middle())
        data.update(self.method_counts)
        data.update((key, getattr(self, key)) for key in _SCORES_TAIL)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PairScores:
        """Rebuild them from :meth:`to_dict` output (values as they were stored).

        Raises:
            KeyError: a score is missing.
        """
        stored = {key: data[key] for key in _scores_head() + _scores_middle() + _SCORES_TAIL}
        fields = cls.__dataclass_fields__
        keys = _scores_keys()
        return cls(
            **{k: v for k, v in stored.items() if k in fields},
            fbeta=data.get("fbeta"),
            beta=data.get("beta"),
            method_counts={k: v for k, v in data.items() if k not in keys},
            extra_scores={k: v for k, v in stored.items() if k not in fields},
        )

    def _value(self, key: str) -> Any:
        """A key's value: a field, or a registered score that is none (``extra_scores``)."""
        return self.extra_scores[key] if key in self.extra_scores else getattr(self, key)

    def __getitem__(self, key: str) -> Any:
        if key in self.method_counts:
            return self.method_counts[key]
        if key in _scores_keys() and (key not in _SCORES_BETA or self.beta is not None):
            return self._value(key)
        raise KeyError(key)


ANALYSIS_KEYS = ("splits", "merges", "crossings", "missed_oov", "recall_by_length", "distinct")
"""What a scored pair's analysis always holds (:class:`PairAnalysis`), in its stored order."""
_OPTIONAL = ("buckets", "tokens")


@dataclass(frozen=True, eq=False)
class PairAnalysis(_StoredMapping):
    """A scored pair's error analysis, typed: what :func:`cws_bench.run.pair.finish_pair` stores.

    A read-only mapping as :class:`PairScores` is (``analysis["buckets"]``).

    Attributes:
        splits, merges, crossings: the most frequent error patterns
            (:meth:`cws_bench.analysis.patterns.ErrorPattern.to_dict` each).
        distinct: how many distinct patterns of each kind there were.
        buckets: :func:`cws_bench.analysis.buckets.bucket_analysis` (None: not stored).
        tokens: a subword tokenizer's figures (None: a word segmenter).
    """

    splits: list[dict[str, Any]]
    merges: list[dict[str, Any]]
    crossings: list[dict[str, Any]]
    missed_oov: list[dict[str, Any]]
    recall_by_length: list[dict[str, Any]]
    distinct: dict[str, int]
    buckets: dict[str, Any] | None = None
    tokens: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        """The analysis as plain data, in the cache file's key order."""
        return {key: self[key] for key in (*ANALYSIS_KEYS, *_OPTIONAL) if key in self}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PairAnalysis:
        """Rebuild it from :meth:`to_dict` output (values as they were stored).

        Raises:
            KeyError: a part of the analysis is missing.
        """
        return cls(
            **{key: data[key] for key in ANALYSIS_KEYS},
            buckets=data.get("buckets"),
            tokens=data.get("tokens"),
        )

    def __getitem__(self, key: str) -> Any:
        if key in ANALYSIS_KEYS or (key in _OPTIONAL and getattr(self, key) is not None):
            return getattr(self, key)
        raise KeyError(key)


@dataclass(frozen=True)
class PairResult:
    """One segmenter on one corpus.

    Attributes:
        corpus, segmenter: the run's labels (``pku``, ``jieba-nohmm``); adapter: the
            registered adapter behind the segmenter's label.
        track: ``closed`` (only the corpus' training data) or ``open``.
        status: one of :data:`STATUSES`; error: what went wrong when not ``ok``.
        scores: a scored pair's :class:`PairScores` (empty when not scored).
        intervals: bootstrap confidence intervals by score name (the word scores).
        sighan_intervals: the SIGHAN bakeoff half-widths ±2·sqrt(p(1−p)/n) by
            score name (``precision``, ``recall``).
        timing: ``load_s`` (building the segmenter: loading its model, or
            training it), ``segment_s``, ``characters``, ``sentences``,
            ``chars_per_s``, ``words_per_s``.
        peak_memory_mib: peak resident memory of the worker process.
        segmenter_info: name, version, kind, options and training data of the
            segmenter as it ran.
        signature: every setting that can change the numbers, ``key:value|...``.
        analysis: a scored pair's :class:`PairAnalysis` (empty when not scored).
        cached: whether the row came from the run cache.
        contaminated: the segmenter has seen the data it is scored on: it was
            trained on it, or (closed track) its dictionary holds the test words
            the training words lack, a leak (see :attr:`exclusion`): the row is
            shown and marked, but never wins and takes no part in the
            significance letters of the others.
        diagnostics: the segmenter's per-line diagnostics summed
            (:func:`cws_bench.segmenters.diagnostics.summarize`); empty for
            adapters that keep none.

    The scores read through as attributes, as on a ScoreResult: ``pair.f1``, ...
    (None for a pair that was not scored).
    """

    corpus: str
    segmenter: str
    adapter: str
    track: str
    status: str
    error: str | None = None
    scores: Mapping[str, Any] = field(default_factory=dict)
    intervals: dict[str, Interval] = field(default_factory=dict)
    sighan_intervals: dict[str, float] = field(default_factory=dict)
    timing: dict[str, float] = field(default_factory=dict)
    peak_memory_mib: float | None = None
    warnings: tuple[str, ...] = ()
    segmenter_info: dict[str, Any] = field(default_factory=dict)
    signature: str = ""
    analysis: Mapping[str, Any] = field(default_factory=dict)
    cached: bool = False
    contaminated: bool = False
    diagnostics: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def exclusion(self) -> str | None:
        """Why the row is never ranked (``trained on this data``, ``its dictionary saw the
        test data``), or None for a row that is ranked."""
        if not self.contaminated:
            return None
        if any(map(is_leak_warning, self.warnings)):
            return LEAKED
        return TRAINED_ON_IT

    def __getattr__(self, name: str) -> Any:
        # precision, recall, f1, ... read through to the scores (None when not scored).
        if name in _score_names():
            return self.scores.get(name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __repr__(self) -> str:
        if not self.ok:
            return f"<PairResult {self.segmenter} on {self.corpus}: {self.status}>"
        marks = f" ({self.exclusion})" if self.contaminated else ""
        return (
            f"<PairResult {self.segmenter} on {self.corpus} ({self.track}): "
            f"P {self.scores.get('precision', 0):.3f} R {self.scores.get('recall', 0):.3f} "
            f"F1 {self.scores.get('f1', 0):.3f}{marks}>"
        )

    def _repr_html_(self) -> str:
        """A small table for notebooks: the scores a leaderboard row shows."""
        cells: dict[str, Any] = {"segmenter": self.segmenter, "corpus": self.corpus}
        cells["track"] = self.track
        if self.ok:
            cells |= {s.name: self.scores.get(s.name) for s in scores_of_kind("word", "oov")}
        else:
            cells |= {"status": self.status, "error": self.error or ""}
        if self.contaminated:
            cells["note"] = f"{self.exclusion}: never ranked"
        header, row = _html_cells(cells, "th"), _html_cells(cells.values())
        return f"<table><tr>{header}</tr><tr>{row}</tr></table>"

    def to_dict(self) -> dict[str, Any]:
        data = asdict(replace(self, scores={}, analysis={}))
        data["scores"] = dict(self.scores)  # a PairScores' key order: its to_dict's
        data["intervals"] = {k: v.to_dict() for k, v in self.intervals.items()}
        data["warnings"] = list(self.warnings)
        data["analysis"] = dict(self.analysis)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PairResult:
        """Rebuild a row from :meth:`to_dict` output: a scored row's scores and analysis
        typed (:class:`PairScores`, :class:`PairAnalysis`), a failed row's empty."""
        data = dict(data)
        data["intervals"] = {k: Interval(**v) for k, v in data.get("intervals", {}).items()}
        data["warnings"] = tuple(data.get("warnings", ()))
        for key, typed in (("scores", PairScores), ("analysis", PairAnalysis)):
            if data.get(key):
                try:
                    data[key] = typed.from_dict(data[key])
                except KeyError:  # written by an older version, without some field: as stored
                    data[key] = dict(data[key])
        return cls(**data)


@dataclass(frozen=True, slots=True)
class Comparison:
    """A paired bootstrap comparison of two segmenters on the same corpus.

    Attributes:
        a, b: the segmenter labels; ``difference`` is a's ``metric`` minus b's, with its
            bootstrap confidence ``interval``.
        p_value: the paired bootstrap p-value of "a is not better than b"
            (two-sided: of "a and b do not differ"), uncorrected.
        significant: whether the comparison counts as a significant difference
            in the run's verdicts: ``adjusted_p_value < alpha`` (see
            :func:`judge_comparisons`); always False for a comparison outside
            every family (a segmenter scored on its own training data).
        adjusted_p_value: the p-value corrected for multiple comparisons within
            its family (the comparisons of one track on one corpus), by the
            run's ``correction``; None outside every family.
        standard_error: the standard error of the difference (the standard
            deviation of its paired bootstrap distribution), or None (older
            results, one resample).
        mde: the minimum detectable effect of this pair at the run's alpha and
            power 0.8, ``(z_{1-α/2} + z_{0.8})·standard_error``
            (:func:`cws_bench.metrics.significance.minimum_detectable_effect`).
        null: the test's null distribution (one value per resample or shuffle,
            drawn jointly with the other pairs of the corpus), which the
            ``maxt`` correction needs; kept in memory only, never written.
    """

    corpus: str
    a: str
    b: str
    metric: str
    difference: float
    interval: Interval
    p_value: float
    significant: bool
    adjusted_p_value: float | None = None
    standard_error: float | None = None
    mde: float | None = None
    null: Any = field(default=None, compare=False, repr=False)

    def to_dict(self) -> dict[str, Any]:
        data = {f: getattr(self, f) for f in self.__dataclass_fields__ if f != "null"}
        data["interval"] = self.interval.to_dict()
        if self.standard_error is None:  # an older result's comparison keeps its keys
            del data["standard_error"], data["mde"]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Comparison:
        data = dict(data)
        data["interval"] = Interval(**data["interval"])
        return cls(**data)


@dataclass(frozen=True)
class Verdict:
    """Who wins one track of one corpus.

    Attributes:
        winner: the scored pair with the best F1 among those eligible (not
            trained on the corpus' data), or None when none is.
        ties: the eligible segmenters the winner does not beat significantly
            (it shares first place with them), best F1 first.
        excluded: the contaminated segmenters of the track, which cannot win.
        tested: whether the run compared the winner with any other segmenter.
    """

    corpus: str
    track: str
    winner: PairResult | None
    ties: tuple[str, ...] = ()
    excluded: tuple[str, ...] = ()
    tested: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe: the winner's name and F1, ties and exclusions by name."""
        return {
            "corpus": self.corpus,
            "track": self.track,
            "winner": None if self.winner is None else self.winner.segmenter,
            "f1": None if self.winner is None else self.winner.scores.get("f1"),
            "ties": list(self.ties),
            "excluded": list(self.excluded),
            "tested": self.tested,
        }


class Note(NamedTuple):
    """A warning given to one or more segmenters of a corpus."""

    segmenters: tuple[str, ...]
    text: str
    everyone: bool

    @property
    def who(self) -> str:
        """``every segmenter (n)`` for a note about the corpus, else the segmenters' names."""
        if self.everyone:
            return f"every segmenter ({len(self.segmenters)})"
        return ", ".join(self.segmenters)


def group_warnings(pairs: Sequence[PairResult]) -> list[Note]:
    """The warnings of a corpus' pairs, each text once with the segmenters that got it.

    >>> a = PairResult("c", "a", "a", "open", "ok", warnings=("lines differ", "own"))
    >>> b = PairResult("c", "b", "b", "open", "ok", warnings=("lines differ",))
    >>> [(n.who, n.text) for n in group_warnings([a, b])]
    [('every segmenter (2)', 'lines differ'), ('a', 'own')]
    """
    grouped: dict[str, list[str]] = {}
    for p in pairs:
        for warning in p.warnings:
            names = grouped.setdefault(warning, [])
            if p.segmenter not in names:
                names.append(p.segmenter)
    everyone = {p.segmenter for p in pairs}
    return [
        Note(tuple(names), warning, len(names) > 1 and set(names) == everyone)
        for warning, names in grouped.items()
    ]


def _track_rank(track: str) -> tuple[int, str]:
    return (TRACKS.index(track), "") if track in TRACKS else (len(TRACKS), track)


def _in_family(pair: PairResult | None) -> TypeGuard[PairResult]:
    return pair is not None and pair.ok and not pair.contaminated


def judge_comparisons(
    pairs: Sequence[PairResult],
    comparisons: Sequence[Comparison],
    *,
    alpha: float = DEFAULT_ALPHA,
    correction: str = "holm",
    seeded: Mapping[str, Sequence[str]] | None = None,
) -> tuple[Comparison, ...]:
    """Decide which comparisons are significant, correcting for multiple comparisons.

    A family is the comparisons of two segmenters of the same track on the
    same corpus, neither trained on that corpus' data: each family's p-values
    are adjusted together by ``correction`` (see
    :func:`cws_bench.metrics.significance.adjust_p_values`), and a comparison
    is significant when its adjusted p-value is below ``alpha``. Comparisons
    outside every family (across tracks, or with a contaminated row) get no
    adjusted p-value and are never significant, so they mark no row.

    Args:
        correction: ``holm`` (Holm–Bonferroni), ``bonferroni``, ``fdr_bh``
            (Benjamini–Hochberg), ``maxt`` (Westfall–Young's step-down max-T,
            from the comparisons' joint ``null`` distributions) or ``none``.
        seeded: the rows run with several seeds, ``{label: [per-seed labels]}``: a
            comparison of such a row (the two-level bootstrap) is in the family of
            its per-seed rows' track.

    Returns:
        The comparisons in the same order, with ``adjusted_p_value`` and
        ``significant`` set.
    """
    by_name = {(p.corpus, p.segmenter): p for p in pairs}
    for label, runs in (seeded or {}).items():
        for p in pairs:
            if p.segmenter in runs and p.ok:
                by_name.setdefault((p.corpus, label), p)
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha!r}")
    families: dict[tuple[str, str, str], list[int]] = {}
    for index, c in enumerate(comparisons):
        a, b = by_name.get((c.corpus, c.a)), by_name.get((c.corpus, c.b))
        if _in_family(a) and _in_family(b) and a.track == b.track:
            family = (c.corpus, a.track, c.metric)
            families.setdefault(family, []).append(index)
    judged = [replace(c, adjusted_p_value=None, significant=False) for c in comparisons]
    for members in families.values():
        adjusted = family_adjusted([comparisons[i] for i in members], correction)
        for i, p_value in zip(members, adjusted):
            judged[i] = replace(
                comparisons[i], adjusted_p_value=float(p_value), significant=bool(p_value < alpha)
            )
    return tuple(judged)


def seed_summaries(
    pairs: Sequence[PairResult], seeded: Mapping[str, Sequence[str]]
) -> dict[str, dict[str, Any]]:
    """Per corpus, the distribution over seeds of each row run with several seeds.

    ``seeded`` maps a row's label to its per-seed labels (``crf`` to ``crf@seed1``,
    ...). For each corpus and such row with a scored seed: ``{"seeds": [...],
    "pairs": [per-seed labels], "scores": {score: {"mean", "sd", "min", "max",
    "n"}}}`` over its scored seeds, for F and every other number of the scores
    (``sd`` the sample standard deviation, None for one seed).

    >>> rows = [PairResult("pku", f"crf@seed{i}", "crf", "closed", "ok", scores={"f1": f})
    ...         for i, f in ((1, 0.90), (2, 0.92))]
    >>> seed_summaries(rows, {"crf": ["crf@seed1", "crf@seed2"]})["pku"]["crf"]["scores"]["f1"]
    {'mean': 0.91, 'sd': 0.014142, 'min': 0.9, 'max': 0.92, 'n': 2}
    """
    found: dict[str, dict[str, Any]] = {}
    for label, members in seeded.items():
        for corpus in dict.fromkeys(p.corpus for p in pairs):
            scored = [p for p in pairs if p.corpus == corpus and p.segmenter in members and p.ok]
            if not scored:
                continue
            values: dict[str, list[float]] = {}
            for p in scored:
                for key, value in p.scores.items():
                    if isinstance(value, (int, float)) and not isinstance(value, bool):
                        values.setdefault(key, []).append(float(value))
            found.setdefault(corpus, {})[label] = {
                "seeds": [_seed_of(p.segmenter) for p in scored],
                "pairs": [p.segmenter for p in scored],
                "scores": {
                    key: {
                        "mean": round(statistics.fmean(v), 6),
                        "sd": round(statistics.stdev(v), 6) if len(v) > 1 else None,
                        "min": min(v),
                        "max": max(v),
                        "n": len(v),
                    }
                    for key, v in values.items()
                    if len(v) == len(scored)
                },
            }
    return found


def _seed_of(label: str) -> int | None:
    """The seed of a per-seed row's label (``crf@seed3``: 3), or None."""
    _, mark, seed = label.rpartition("@seed")
    return int(seed) if mark and seed.isdigit() else None


def seed_row(label: str, members: Sequence[PairResult], summary: Mapping[str, Any]) -> PairResult:
    """The one row a leaderboard shows for a row run with several seeds.

    Its first scored seed's pair under ``label``, with every fractional score
    (P, R, F, OOV recall, boundary F, ...) the mean over the seeds
    (``summary["scores"]``, see :func:`seed_summaries`) and its
    ``segmenter_info["seeds"]`` the summary; counts, analysis and timing stay
    the first seed's, no interval (the per-seed pairs keep theirs), and a
    warning says so.
    """
    base = next(p for p in members if p.ok)
    means = {
        key: stats["mean"]
        for key, stats in summary["scores"].items()
        if isinstance(base.scores.get(key), float)
    }
    if isinstance(base.scores, PairScores):
        fields = set(PairScores.__dataclass_fields__)
        scores: Mapping[str, Any] = replace(
            base.scores, **{k: v for k, v in means.items() if k in fields}
        )
    else:
        scores = {**base.scores, **means}
    seeds = ", ".join(str(seed) for seed in summary["seeds"])
    note = (
        f"mean of {len(summary['seeds'])} seeds ({seeds}); counts and analysis are "
        f"seed {summary['seeds'][0]}'s"
    )
    return replace(
        base,
        segmenter=label,
        scores=scores,
        intervals={},
        warnings=(*base.warnings, note),
        segmenter_info={**base.segmenter_info, "seeds": dict(summary)},
        cached=all(p.cached for p in members),
    )


def _with_seed_rows(
    rows: Sequence[PairResult], summaries: Mapping[str, Mapping[str, Any]]
) -> list[PairResult]:
    """``rows`` with each seeded row's per-seed pairs replaced by its :func:`seed_row`."""
    out: list[PairResult] = []
    for p in rows:
        for label, summary in summaries.items():
            if p.segmenter in summary["pairs"]:
                if p.segmenter == summary["pairs"][0]:
                    members = [q for q in rows if q.segmenter in summary["pairs"]]
                    out.append(seed_row(label, members, summary))
                break
        else:
            out.append(p)
    return out


def detectable_differences(comparisons: Sequence[Comparison]) -> dict[str, dict[str, Any]]:
    """Per corpus, the smallest difference its paired tests can tell apart.

    The minimum detectable effect (at the run's alpha, power 0.8) differs from
    pair to pair with how much the two systems' per-sentence results vary
    together; a corpus is summed up by the median over its comparisons, with
    the smallest and the largest: ``{corpus: {"mde": median, "low": ...,
    "high": ..., "pairs": n}}``. Comparisons without one (older results) are
    left out.

    >>> c = Comparison("pku", "a", "b", "f1", 0.01, Interval(0, 0.02), 0.04, True, mde=0.003)
    >>> detectable_differences([c])
    {'pku': {'mde': 0.003, 'low': 0.003, 'high': 0.003, 'pairs': 1}}
    """
    found: dict[str, list[float]] = {}
    for c in comparisons:
        if c.mde is not None:
            found.setdefault(c.corpus, []).append(c.mde)
    return {
        corpus: {
            "mde": float(statistics.median(values)),
            "low": min(values),
            "high": max(values),
            "pairs": len(values),
        }
        for corpus, values in found.items()
    }


def family_adjusted(family: Sequence[Comparison], correction: str) -> Any:
    """One family's adjusted p-values; ``maxt`` from the comparisons' joint nulls, or, for
    comparisons read back from results.json (no nulls), the adjusted p-values their run
    computed (a family never spans runs)."""
    from cws_bench.metrics.significance import adjust_p_values

    if correction != "maxt":
        return adjust_p_values([c.p_value for c in family], method=correction)
    if all(c.null is not None for c in family):
        return adjust_p_values(
            [c.p_value for c in family],
            method="maxt",
            differences=[c.difference for c in family],
            nulls=[c.null for c in family],
        )
    stored = [c.adjusted_p_value for c in family]
    if all(p is not None for p in stored):
        return stored
    raise ValueError(
        "the maxt correction needs the paired tests' resampling distributions, which "
        "results.json does not keep: rerun the bake-off, or use another correction"
    )


@dataclass(frozen=True)
class BakeoffResult:
    """Every pair of a bake-off, the comparisons, and how the run was made.

    Attributes:
        name: the run name (reports go to ``reports/<name>/`` by default).
        pairs: one row per (segmenter, corpus) pair, in configuration order.
        comparisons: paired bootstrap tests of every two segmenters per corpus.
        settings: seed, number of resamples, confidence level, alpha.
        environment: cws-bench and Python versions, platform, CPU count.

    A method given a corpus the run does not have raises KeyError naming the run's corpora.
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

    def _pairs_of(self, corpus: str) -> list[PairResult]:
        rows = [p for p in self.pairs if p.corpus == corpus]
        if not rows:
            raise KeyError(
                f"no corpus {corpus!r} in bake-off {self.name!r}; "
                f"its corpora: {', '.join(self.corpora()) or 'none'}"
            )
        return rows

    def warnings(self, corpus: str) -> list[Note]:
        """The warnings of a corpus' pairs, each text once with the segmenters that got it.

        A warning about the corpus itself (e.g. lines of its gold and raw
        input that differ) reaches every segmenter alike: it becomes one
        note whose ``everyone`` is True. Notes come in configuration order."""
        return group_warnings(self._pairs_of(corpus))

    def tracks(self, corpus: str) -> list[str]:
        """The tracks of a corpus' pairs, closed before open."""
        return sorted({p.track for p in self._pairs_of(corpus)}, key=_track_rank)

    def leaderboard(self, corpus: str, track: str | None = None) -> list[PairResult]:
        """The pairs of one corpus ranked as the reports rank them.

        Tracks are ranked apart, as SIGHAN reports them: the closed track's
        scored rows first, then the open track's. Within a track: best F1
        first, then the rows scored on their own training data (they never
        rank). Failed and timed-out pairs come last, as the tables list them.

        Only ``track``'s rows when one is given (KeyError: the run has no such track).
        """
        rows = self._pairs_of(corpus)
        if track is not None:
            if track not in {p.track for p in rows}:
                raise KeyError(
                    f"no {track!r} track on {corpus!r}; "
                    f"its tracks: {', '.join(self.tracks(corpus))}"
                )
            rows = [p for p in rows if p.track == track]
        rows = _with_seed_rows(rows, self.settings.get("seeds", {}).get(corpus, {}))
        return sorted(
            rows,
            # failed pairs: last, in configuration order (the sort is stable)
            key=lambda p: (
                (False, _track_rank(p.track), p.contaminated, -p.scores.get("f1", 0.0))
                if p.ok
                else (True,)
            ),
        )

    def winners(self, corpus: str) -> list[Verdict]:
        """Who wins each track of a corpus (closed first), by F1 and the run's significance tests.

        The winner is the best F1 among the track's scored pairs that were not
        trained on the corpus' data; its ties are the eligible segmenters it
        does not beat significantly (``Comparison.significant``, corrected for
        multiple comparisons by the run's ``correction``)."""
        verdicts = []
        for track in self.tracks(corpus):
            ranked = self.leaderboard(corpus, track)
            eligible = [p for p in ranked if p.ok and not p.contaminated]
            excluded = tuple(p.segmenter for p in ranked if p.ok and p.contaminated)
            if not eligible:
                verdicts.append(Verdict(corpus, track, None, (), excluded, False))
                continue
            winner = eligible[0]
            compared = [
                c
                for c in self.comparisons
                if c.corpus == corpus and c.metric == "f1" and winner.segmenter in (c.a, c.b)
            ]
            ties = tuple(
                p.segmenter
                for p in eligible[1:]
                if not any(_beats(c, winner.segmenter, p.segmenter) for c in compared)
            )
            others = {p.segmenter for p in eligible[1:]}
            tested = any({c.a, c.b} & others for c in compared)
            verdicts.append(Verdict(corpus, track, winner, ties, excluded, tested))
        return verdicts

    def comparison(self, corpus: str, a: str, b: str) -> Comparison | None:
        """The comparison of a against b on a corpus (either direction stored)."""
        for c in self.comparisons:
            if c.corpus == corpus and (c.a, c.b) == (a, b):
                return c
        return None

    def across_corpora(self) -> DomainMatrix | None:
        """F1 by corpus with each segmenter's means and worst corpus, or None (fewer than
        two corpora scored): :func:`cws_bench.results.across.across_corpora`.

        Contaminated cells (:attr:`PairResult.contaminated`) are shown in the
        matrix, named in each row's ``excluded``, and count in no mean, order
        or worst corpus; ``row.counted`` is what each mean runs over.
        """
        from cws_bench.results.across import across_corpora

        # a row run with several seeds is one row, its mean over the seeds (leaderboard)
        return across_corpora(
            [pair for corpus in self.corpora() for pair in self.leaderboard(corpus)],
            test_sets=self.settings.get("corpus_test_sets"),
            domains=self.settings.get("corpus_domains"),
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict with a stable key order.

        ``winners`` (one entry per corpus and track, see :meth:`winners`) and
        ``across_corpora`` (one entry per segmenter, best mean first, see
        :meth:`across_corpora`: its mean, the corpora it counts, the
        contaminated ones it leaves out, its worst corpus) are derived from
        the pairs and comparisons; :meth:`from_dict` ignores them.
        ``across_corpora`` is written only when two corpora or more were scored.
        """
        data: dict[str, Any] = {
            "name": self.name,
            "created": self.created,
            "duration_s": self.duration_s,
            "settings": self.settings,
            "environment": self.environment,
            "config": self.config,
            "winners": [v.to_dict() for corpus in self.corpora() for v in self.winners(corpus)],
        }
        matrix = self.across_corpora()
        if matrix is not None:  # two corpora scored or more
            data["across_corpora"] = [
                {
                    "segmenter": row.segmenter,
                    "mean": row.mean,
                    "counted": list(row.counted),
                    "excluded": dict(row.excluded),
                    "shared": list(row.common),
                    "shared_mean": row.common_mean,
                    "worst": None if row.worst is None else row.worst[0],
                }
                for row in matrix.rows
            ]
        data["pairs"] = [p.to_dict() for p in self.pairs]
        data["comparisons"] = [c.to_dict() for c in self.comparisons]
        return data

    def __str__(self) -> str:
        """Its leaderboards as ``cws-bench bakeoff`` prints them, as ``print(ScoreResult)``
        prints its scores: each corpus' table, then F1 by corpus.

        The renderer, :func:`cws_bench.reports.text.render_text`, is named by
        :data:`TEXT_RENDERER` and imported when asked for (the registries' way), as
        the result model imports no report.
        """
        module, _, name = TEXT_RENDERER.partition(":")
        render = getattr(importlib.import_module(module), name)
        return str(render(self))

    def __repr__(self) -> str:
        failed = sum(not p.ok for p in self.pairs)
        winners = "; ".join(
            f"{v.corpus} {v.track}: {v.winner.segmenter if v.winner else 'none'}"
            for corpus in self.corpora()
            for v in self.winners(corpus)
        )
        return (
            f"<BakeoffResult {self.name!r}: {plural(len(self.segmenters()), 'segmenter')} × "
            f"{plural(len(self.corpora()), 'corpus', 'corpora')}, "
            f"{plural(len(self.pairs), 'pair')}"
            f"{f' ({failed} not scored)' if failed else ''}; best F1: {winners or 'none'}>"
        )

    def _repr_html_(self) -> str:
        """The leaderboards for notebooks: per corpus, the rows ranked track by track."""
        parts = [f"<p><strong>{escape(self.name)}</strong></p>"]
        word = scores_of_kind("word")
        header = _html_cells(["segmenter", "track", *(s.short for s in word)], "th")
        for corpus in self.corpora():
            winners = {v.track: v.winner for v in self.winners(corpus)}
            rows = []
            for p in self.leaderboard(corpus):
                mark = ""
                if p.contaminated:
                    mark = f" ({p.exclusion}: never ranked)"
                elif p.ok and winners.get(p.track) is p:
                    mark = f" (best of the {p.track} track)"
                elif not p.ok:
                    mark = f" ({p.status})"
                cells = [p.segmenter + mark, p.track, *(p.scores.get(s.name) for s in word)]
                rows.append(f"<tr>{_html_cells(cells)}</tr>")
            parts.append(
                f"<table><caption>{escape(corpus)}</caption><tr>{header}</tr>"
                + "".join(rows)
                + "</table>"
            )
        return "\n".join(parts)

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
            row: dict[str, Any] = {key: getattr(p, key) for key in _ROW_NAMES}
            row["version"] = p.segmenter_info.get("version")
            for key in (*_score_names(), "mismatched_lines"):
                row[key] = p.scores.get(key)
            for metric in _scores_head():
                interval = p.intervals.get(metric)
                row[f"{metric}_low"] = interval.low if interval else None
                row[f"{metric}_high"] = interval.high if interval else None
            for metric in ("precision", "recall"):
                row[f"{metric}_sighan_halfwidth"] = p.sighan_intervals.get(metric)
            for key in ("chars_per_s", "words_per_s", "segment_s", "load_s"):
                row[key] = p.timing.get(key)
            row["peak_memory_mib"] = p.peak_memory_mib
            row["warnings"] = " | ".join(p.warnings)
            row.update((key, getattr(p, key)) for key in ("cached", "contaminated", "signature"))
            rows.append(row)
        return rows

    def to_frame(self) -> pd.DataFrame:
        """The pairs as a pandas DataFrame (the columns of results.csv)."""
        import pandas as pd

        return pd.DataFrame(self.to_rows())


_ROW_NAMES = ("corpus", "segmenter", "adapter", "track", "status", "error")
"""A pair's names and status, the first columns of results.csv."""


def _html_cells(values: Iterable[Any], tag: str = "td") -> str:
    """Table cells for notebooks: a score to three decimals (None: —), other values escaped."""
    shown = (
        "—" if v is None else f"{v:.3f}" if isinstance(v, (int, float)) else escape(v)
        for v in values
    )
    return "".join(f"<{tag}>{value}</{tag}>" for value in shown)


def _beats(comparison: Comparison, first: str, second: str) -> bool:
    """Whether a comparison says ``first`` beats ``second`` significantly."""
    if not comparison.significant:
        return False
    if (comparison.a, comparison.b) == (first, second):
        return comparison.difference > 0
    if (comparison.a, comparison.b) == (second, first):
        return comparison.difference < 0
    return False
