"""One pair's result: a segmentation scored, analysed and signed into a :class:`PairRecord`.

Everything the bake-off and the regression baseline both need to know about
one scored (segmenter, corpus) pair lives here, once:

- :func:`score_pair`: score a pair's segmentation per sentence and say
  whether it is contaminated (:func:`contamination_warnings`: scored on data
  it was trained on); the one assembly of a scored pair;
- :func:`finish_pair`: that, plus error analysis, buckets, timing and
  diagnostics: the typed :class:`PairRecord` the run cache holds (with
  ``to_dict``/``from_dict``, :data:`CACHE_VERSION`);
- :func:`pair_signature` (the score's signature plus segmenter, version,
  options, seed and resamples) and :func:`pair_result` (the bake-off's row).

This module imports nothing of cws_bench at module level, everything inside
functions.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import TYPE_CHECKING, Any

from cws_bench.metrics.defaults import DEFAULT_TEST

if TYPE_CHECKING:
    from cws_bench.results.model import Interval, PairAnalysis, PairResult, PairScores
    from cws_bench.run.config import CorpusSpec, SegmenterSpec
    from cws_bench.scoring import ScoreResult
    from cws_bench.segmenters import TrainingData
    from cws_bench.segmenters.diagnostics import DiagnosticsSummary
    from cws_bench.text.dictionary import Dictionary

__all__ = [
    "CACHE_VERSION",
    "PairInput",
    "PairRecord",
    "PairTiming",
    "ScoredPair",
    "SegmenterMetadata",
    "contamination_warnings",
    "finish_pair",
    "pair_result",
    "pair_signature",
    "score_pair",
]


CACHE_VERSION = 5
"""The version of :class:`PairRecord` and of the cache key's material (4: content keys,
records that say whether the pair is contaminated and whether it has a speed; 5: every
record holds how its words cut the gold's, ``analysis["tokens"]``)."""


@dataclass(frozen=True)
class SegmenterMetadata:
    """A segmenter as it ran: its metadata (:meth:`~cws_bench.segmenters.Segmenter.metadata`).

    Attributes:
        name, version, kind, description: what it is.
        trained_on: :meth:`~cws_bench.segmenters.TrainingData.to_dict` of its training
            data, or None.
        options: its options (in a baseline, files by content).
        extra: what an adapter adds, in its order (a neural adapter's ``model``: its
            name, checksum, device, dtype).
    """

    name: str
    version: str | None
    kind: str | None
    description: str | None
    trained_on: dict[str, Any] | None
    options: dict[str, Any]
    extra: dict[str, Any] = field(default_factory=dict)

    _KEYS = ("name", "version", "kind", "description", "trained_on", "options")

    @property
    def model(self) -> dict[str, Any] | None:
        """A neural adapter's model, device and dtype, or None."""
        return self.extra.get("model")

    def to_dict(self) -> dict[str, Any]:
        """The metadata as the adapter gave it (the same keys, in the same order)."""
        return {**{key: getattr(self, key) for key in self._KEYS}, **self.extra}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SegmenterMetadata:
        """Rebuild it from :meth:`to_dict` output (or a segmenter's ``metadata()``).

        Raises:
            KeyError: a key of the metadata is missing.
        """
        given = {key: data[key] for key in cls._KEYS}
        extra = {key: value for key, value in data.items() if key not in cls._KEYS}
        return cls(**{**given, "options": dict(given["options"])}, extra=extra)


@dataclass(frozen=True)
class PairTiming:
    """How long a pair took and how fast it segmented (none of it changes a score).

    Attributes:
        load_s: building the segmenter (loading its model, or training it).
        segment_s: time inside ``segment()``, summed over shards.
        characters: characters segmented (the raw lines' non-whitespace characters).
        sentences: lines segmented.
        chars_per_s, words_per_s: speed, or None (no speed: e.g. a file read). When
            some lines came from a segmenter's own cache (the LLM reply cache), the
            speed counts only the lines it had to answer, and is None when it answered none.
    """

    load_s: float
    segment_s: float
    characters: int
    sentences: int
    chars_per_s: float | None
    words_per_s: float | None

    def to_dict(self) -> dict[str, Any]:
        """The cache file's ``timing`` table, in its key order (the fields' order)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PairTiming:
        """Rebuild it from :meth:`to_dict` output (values as they were stored).

        Raises:
            KeyError: a key is missing.
        """
        return cls(**{item.name: data[item.name] for item in fields(cls)})


@dataclass(frozen=True)
class PairRecord:
    """What one pair's run produced: the record the run cache holds.

    Attributes:
        scores: the pair's :class:`~cws_bench.results.model.PairScores`.
        sentence_counts: one row per scored sentence (:mod:`cws_bench.scoring.per_sentence`).
        analysis: the pair's :class:`~cws_bench.results.model.PairAnalysis`.
        timing: the pair's :class:`PairTiming`.
        peak_memory_mib: the worker's peak resident memory.
        warnings: the scorer's warnings and contamination warnings.
        segmenter_info: the segmenter's metadata (:class:`SegmenterMetadata`).
        contaminated: scored on data it was trained on (see :func:`contamination_warnings`).
        version: :data:`CACHE_VERSION` of the record.
        diagnostics: :func:`cws_bench.segmenters.diagnostics.summarize` of the segmenter's
            per-line diagnostics (text fidelity, requests, cost), or None when it
            keeps none.
        prediction: :func:`~cws_bench.text.checksums.sentences_checksum` of the
            segmentation scored, which the signature names (``pred:``), or None.
    """

    scores: PairScores
    sentence_counts: tuple[tuple[int, int, int], ...]
    analysis: PairAnalysis
    timing: PairTiming
    peak_memory_mib: float
    warnings: tuple[str, ...]
    segmenter_info: SegmenterMetadata
    contaminated: bool = False
    version: int = CACHE_VERSION
    diagnostics: DiagnosticsSummary | None = None
    prediction: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-safe data, in the cache file's key order."""
        data = {
            "version": self.version,
            "scores": self.scores.to_dict(),
            "sentence_counts": [list(row) for row in self.sentence_counts],
            "analysis": self.analysis.to_dict(),
            "timing": self.timing.to_dict(),
            "peak_memory_mib": self.peak_memory_mib,
            "warnings": list(self.warnings),
            "contaminated": self.contaminated,
            "segmenter_info": self.segmenter_info.to_dict(),
        }
        if self.diagnostics is not None:
            data["diagnostics"] = self.diagnostics
        if self.prediction is not None:
            data["prediction"] = self.prediction
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PairRecord:
        """Rebuild a record from :meth:`to_dict` output.

        Raises:
            KeyError, TypeError, ValueError: the data is not a record.
        """
        from cws_bench.results.model import PairAnalysis, PairScores
        from cws_bench.scoring.per_sentence import as_rows

        return cls(
            scores=PairScores.from_dict(data["scores"]),
            sentence_counts=tuple(as_rows(data["sentence_counts"])),
            analysis=PairAnalysis.from_dict(data["analysis"]),
            timing=PairTiming.from_dict(data["timing"]),
            peak_memory_mib=float(data["peak_memory_mib"]),
            warnings=tuple(str(w) for w in data["warnings"]),
            segmenter_info=SegmenterMetadata.from_dict(data["segmenter_info"]),
            contaminated=bool(data.get("contaminated", False)),
            version=int(data["version"]),
            diagnostics=data.get("diagnostics"),
            prediction=data.get("prediction"),
        )


def pair_signature(
    score_signature: str,
    segmenter: str,
    info: SegmenterMetadata,
    *,
    seed: int,
    resamples: int,
    convert: str = "none",
    test: str = DEFAULT_TEST,
    prediction: str | None = None,
) -> str:
    """The score's signature plus the segmenter, its version and options, the input's
    conversion (when there is one), the checksum of the segmentation scored (``pred:``,
    when known: two runs with the same signature scored the same words), seed and
    resamples, and the paired test with its number of shuffles when it is not the
    bootstrap (``test:permutation|shuffles:1000``)."""
    options = json.dumps(info.options, sort_keys=True, ensure_ascii=False)
    if info.model:  # a neural adapter's model, checksum, device, dtype (neural.py)
        options += json.dumps(info.model, sort_keys=True, ensure_ascii=False)
    from cws_bench.text.checksums import hash_hex

    digest = hash_hex(options, "signature")
    return "|".join(
        [
            score_signature,
            f"seg:{segmenter}",
            f"segver:{info.version}",
            f"opts:{digest}",
            *([f"input:{convert}"] if convert != "none" else []),
            *([f"pred:{prediction}"] if prediction else []),
            f"seed:{seed}",
            f"resamples:{resamples}",
            *([f"test:{test}", f"shuffles:{resamples}"] if test != DEFAULT_TEST else []),
        ]
    )


def contamination_warnings(trained_on: Any, corpus: CorpusSpec, checksum: str | None) -> list[str]:
    """The warning when a segmenter is scored on data it was trained on (or none).

    Args:
        trained_on: the segmenter's ``trained_on`` (a TrainingData, or None).
        corpus: the corpus scored.
        checksum: the sentence checksum of the scored gold, which also catches
            the same text under another name.
    """
    if trained_on is None or not (
        (corpus.name is not None and trained_on.overlaps(corpus.name, corpus.split, checksum))
        or (checksum is not None and checksum == trained_on.checksum)
    ):
        return []
    scored = f"{corpus.name}:{corpus.split}" if corpus.name else corpus.label
    return [
        f"trained on {trained_on.description}, which includes {scored}: "
        "these scores are on data it has seen"
    ]


def pair_result(
    corpus: CorpusSpec,
    spec: SegmenterSpec,
    record: PairRecord,
    intervals: dict[str, Interval],
    *,
    seed: int,
    resamples: int,
    test: str = DEFAULT_TEST,
) -> PairResult:
    """The bake-off's row of a scored pair: its record, its bootstrap intervals and the
    SIGHAN bakeoffs' half-widths ±2·sqrt(p(1−p)/n) (Emerson 2005), signed."""
    from cws_bench.results.model import PairResult
    from cws_bench.text.dictionary_checks import is_leak_warning

    scores = record.scores
    sighan = {}
    for metric, n, p in (
        ("recall", scores.gold_words, scores.recall),
        ("precision", scores.pred_words, scores.precision),
    ):
        sighan[metric] = 2 * (p * (1 - p) / n) ** 0.5 if n else 0.0
    return PairResult(
        corpus=corpus.label,
        segmenter=spec.label,
        adapter=spec.name,
        track=spec.track,
        status="ok",
        scores=scores,
        intervals=intervals,
        sighan_intervals=sighan,
        timing=record.timing.to_dict(),
        peak_memory_mib=record.peak_memory_mib,
        warnings=record.warnings,
        segmenter_info=record.segmenter_info.to_dict(),
        signature=pair_signature(
            scores.signature,
            spec.name,
            record.segmenter_info,
            seed=seed,
            resamples=resamples,
            convert=corpus.convert,
            test=test,
            prediction=record.prediction,
        ),
        analysis=record.analysis,
        # (a record cached before leaks excluded a row carries only the warning)
        contaminated=record.contaminated or any(map(is_leak_warning, record.warnings)),
        diagnostics=dict(record.diagnostics or {}),
    )


@dataclass(frozen=True)
class PairInput:
    """A corpus as a pair is scored on it: gold sentences, raw lines, OOV dictionary, and
    the counting method (``interval``, or ``sighan``: the official script's)."""

    corpus: CorpusSpec
    gold: list[Sequence[str]]
    raw: list[str]
    dictionary: Dictionary | None
    data_dir: str | None
    method: str = "interval"


@dataclass(frozen=True)
class ScoredPair:
    """A pair's segmentation scored per sentence: what a bake-off's record and a baseline's
    share (each adds its own: analysis and timing, or speed and identity).

    Attributes:
        result: the score (:func:`~cws_bench.scoring.score_sentences`, per line).
        sentence_counts: one row per scored sentence (:mod:`cws_bench.scoring.per_sentence`).
        warnings: the scorer's warnings, then the contamination warning.
        contaminated: scored on data the segmenter was trained on.
    """

    result: ScoreResult
    sentence_counts: tuple[tuple[int, int, int], ...]
    warnings: tuple[str, ...]
    contaminated: bool


def score_pair(
    pair: PairInput, pred: Sequence[Sequence[str]], trained_on: TrainingData | None
) -> ScoredPair:
    """Score a pair's segmentation per sentence and say whether it is contaminated: the one
    assembly of a scored pair, under the bake-off's records and the baselines'.

    ``pred`` holds the words of every raw line.
    """
    from dataclasses import replace

    from cws_bench.scoring import score_sentences
    from cws_bench.scoring.methods import get_method
    from cws_bench.scoring.per_sentence import sentence_rows

    corpus = pair.corpus
    # a method that scores whole files (conll18) is counted sentence by sentence below;
    # its totals are then the interval counts' (checked), which the result keeps
    by_lines = get_method(pair.method, line_pairs=False).counts_line_pairs
    result = score_sentences(
        pair.gold,
        pred,
        pair.dictionary,
        normalize=corpus.normalize,
        per_line=True,
        method=pair.method if by_lines else "interval",  # type: ignore[arg-type]
    )
    contamination = contamination_warnings(trained_on, corpus, result.signature.gold)
    # the rows the bake-off resamples are counted by the pair's method: its F and its
    # intervals and letters are one count
    rows = checked_method_rows(result, pair.gold, pred, corpus.normalize, pair.method)
    if rows is not None and not by_lines:
        signature = replace(result.signature, method=pair.method)
        result = replace(result, method=pair.method, signature=signature)
    return ScoredPair(
        result,
        tuple(sentence_rows(result) if rows is None else rows),
        (*result.warnings, *contamination),
        bool(contamination),
    )


def checked_method_rows(
    result: ScoreResult,
    gold: Sequence[Sequence[str]],
    pred: Sequence[Sequence[str]],
    normalize: str | None,
    method: str | None = None,
) -> list[tuple[int, int, int]] | None:
    """The per-sentence rows of ``method`` (default: the result's;
    :func:`~cws_bench.scoring.per_sentence.method_rows`, None for ``interval``), checked to
    add up to ``result``'s totals."""
    from cws_bench.errors import CwsBenchError
    from cws_bench.scoring.per_sentence import method_rows

    method = method or result.method
    rows = method_rows(method, gold, pred, normalize=normalize)
    totals = tuple(map(sum, zip(*rows))) if rows else (0, 0, 0)
    expected = (result.correct_words, result.pred_words, result.gold_words)
    if rows is not None and totals != expected:
        raise CwsBenchError(
            f"the {method} method's per-sentence counts {totals} do not add up to its "
            f"totals {expected}"
        )
    return rows


def finish_pair(
    pair: PairInput,
    pred: Sequence[Sequence[str]],
    facts: dict[str, Any],
    *,
    timing: dict[str, float],
    peak_memory_mib: float,
    diagnostics: list[dict[str, Any] | None] | None = None,
) -> PairRecord:
    """Score a pair's segmentation per sentence, analyse its errors: its :class:`PairRecord`.

    Args:
        pred: the words of every raw line.
        facts: :func:`~cws_bench.run.tasks.segmenter_facts` of the segmenter.
        timing: ``load_s`` and ``segment_s``.
        peak_memory_mib: the peak resident memory of the process(es) that segmented.
        diagnostics: the segmenter's per-line diagnostics, one per raw line (or None).
    """
    from cws_bench.analysis.alignment import align
    from cws_bench.analysis.buckets import bucket_analysis
    from cws_bench.analysis.patterns import analyse_errors
    from cws_bench.metrics.throughput import rate
    from cws_bench.results.model import PairAnalysis, PairScores
    from cws_bench.scoring.inputs import normalized_dictionary
    from cws_bench.segmenters import TrainingData
    from cws_bench.segmenters.stream import count_characters
    from cws_bench.text.checksums import sentences_checksum
    from cws_bench.text.normalize import get_normalizer

    corpus, gold, dictionary = pair.corpus, pair.gold, pair.dictionary
    trained_on = facts["trained_on"]
    scored = score_pair(
        pair, pred, None if trained_on is None else TrainingData.from_dict(trained_on)
    )
    result = scored.result
    normalizer = None if corpus.normalize == "none" else get_normalizer(corpus.normalize)
    aligned = align(gold, pred)  # walked once for both analyses
    words = normalized_dictionary(dictionary, normalizer)
    analysis = analyse_errors(gold, pred, words, aligned=aligned)
    # a bake-off reads the training split once for all its pairs (Corpus.summary, kept)
    counts = _training_counts(corpus, pair.data_dir)
    buckets = bucket_analysis(
        gold,
        pred,
        counts=counts,
        words=dictionary.words if counts is None and dictionary is not None else None,
        aligned=aligned,
    )
    characters = count_characters(pair.raw)
    segment_s = timing["segment_s"]
    timed = facts["has_speed"] and segment_s > 0  # a file read is no segmenting speed
    kept = _summarize(diagnostics, pair.raw)
    fidelity = _fidelity_warning(kept)
    speed_chars, speed_words = characters, result.pred_words
    sent = _sent_lines(diagnostics, pair.raw)
    if sent is not None:  # replies from a cache are no speed of the model's: the sent ones'
        speed_chars = count_characters(pair.raw[i] for i in sent)
        speed_words = sum(len(pred[i]) for i in sent)
        timed = timed and bool(sent)
    return PairRecord(
        scores=PairScores.from_dict(result.to_dict()),
        sentence_counts=scored.sentence_counts,
        analysis=PairAnalysis.from_dict(
            {**analysis.to_dict(), "buckets": buckets, **_tokens(facts, gold, pred, words)}
        ),
        timing=PairTiming(
            load_s=timing["load_s"],
            segment_s=segment_s,
            characters=characters,
            sentences=len(pair.raw),
            chars_per_s=rate(speed_chars, segment_s) if timed else None,
            words_per_s=rate(speed_words, segment_s) if timed else None,
        ),
        peak_memory_mib=peak_memory_mib,
        warnings=(*scored.warnings, *facts["leaks"], *facts["notes"], *fidelity),
        segmenter_info=SegmenterMetadata.from_dict(facts["info"]),
        # A leaked closed-track dictionary has seen the test gold, as training on it would.
        contaminated=scored.contaminated or bool(facts["leaks"]),
        diagnostics=kept,
        prediction=sentences_checksum(pred),
    )


def _tokens(
    facts: dict[str, Any],
    gold: Sequence[Sequence[str]],
    pred: Sequence[Sequence[str]],
    dictionary: Any,
) -> dict[str, Any]:
    """How the segmentation cuts the gold's words (``{"tokens": ...}``), for a subword
    tokenizer (``subword``: true) and a word segmenter alike."""
    from cws_bench.analysis.tokens import token_figures

    figures = token_figures(gold, pred, dictionary=dictionary, skip_differing=True)
    return {"tokens": {"subword": bool(facts.get("tokenizer")), **figures.to_dict()}}


def _fidelity_warning(summary: DiagnosticsSummary | None) -> list[str]:
    """A warning for the leaderboard when the segmenter's text differed from some lines."""
    from cws_bench.segmenters.diagnostics import summary_note

    note = summary_note(summary)
    if note is None or not (summary or {}).get("fidelity", {}).get("altered"):
        return []
    return [f"text fidelity: {note}"]


def _sent_lines(
    diagnostics: list[dict[str, Any] | None] | None, raw: list[str]
) -> list[int] | None:
    """The lines whose answer a request brought, when some came from a segmenter's own
    cache (the LLM reply cache), else None (every line's time is the segmenter's)."""
    if not diagnostics or len(diagnostics) != len(raw):
        return None
    if not any(record and record.get("cached") for record in diagnostics):
        return None
    return [i for i, record in enumerate(diagnostics) if record and record.get("request")]


def _summarize(
    diagnostics: list[dict[str, Any] | None] | None, raw: list[str]
) -> DiagnosticsSummary | None:
    if not diagnostics or len(diagnostics) != len(raw):
        return None
    from cws_bench.segmenters.diagnostics import summarize

    return summarize(diagnostics, raw)


def _training_counts(corpus: CorpusSpec, data_dir: str | None) -> dict[str, int] | None:
    """Word frequencies of a registered corpus' training split (for the frequency buckets).

    None when the corpus is scored against another dictionary or has no
    training split here (the SIGHAN word lists carry no counts).
    """
    if corpus.name is None or corpus.dictionary:
        return None

    from cws_bench.corpora import get_corpus

    named = get_corpus(corpus.name, data_dir=data_dir)
    split = named.dictionary_split
    if split is None or split not in named.available_splits:
        return None
    return dict(named.summary(split).counts)
