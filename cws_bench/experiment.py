"""One pair's experiment: a segmenter on a corpus, from specifications to a signed record.

Everything the bake-off and the regression baseline both need to know about
one (segmenter, corpus) pair lives here, once:

- the corpus: :func:`gold_and_raw` (the gold sentences and the raw lines a
  segmenter gets), :func:`corpus_dictionary` (its OOV dictionary, through the
  one word-source resolver), :func:`corpus_identity` (the checksums of its
  gold, raw input and dictionary, and its size);
- the pair's identity: :func:`cache_key` (everything that can change its
  numbers, files by content: :mod:`cws_bench.identity`) and
  :func:`pair_signature` (the score's signature plus segmenter, version,
  options, seed and resamples);
- :func:`contamination_warnings` (scored on data it was trained on);
- :func:`run_pair`: build the segmenter, segment in batches timing
  ``segment()`` only, score per sentence, analyse errors, measure peak
  memory, and return a :class:`PairRecord` (the typed record the run cache
  holds, with ``to_dict``/``from_dict``).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cws_bench import __version__

__all__ = [
    "CACHE_VERSION",
    "CorpusIdentity",
    "CorpusSpec",
    "PairInput",
    "PairRecord",
    "PairSetup",
    "PairTask",
    "SegmenterSpec",
    "ShardContext",
    "ShardItem",
    "ShardOutput",
    "build_segmenter",
    "cache_key",
    "contamination_warnings",
    "corpus_dictionary",
    "corpus_identity",
    "environment",
    "finish_pair",
    "gold_and_raw",
    "identity_of",
    "leak_inputs",
    "pair_signature",
    "run_pair",
    "segment_lines",
    "segment_shard",
    "segmenter_facts",
]

CACHE_VERSION = 4
"""The version of :class:`PairRecord` and of the cache key's material (4: content keys,
records that say whether the pair is contaminated and whether it has a speed)."""


@dataclass(frozen=True)
class CorpusSpec:
    """A corpus of the bake-off: a registered one, or files of the user's.

    Attributes:
        label: the name in reports.
        name: the registered corpus name, or None for files.
        split: the split scored (registered corpora).
        gold: the gold file (files only).
        raw: the raw input file, or None to join the gold words.
        format: the gold file's format (``auto``, ``plain``, ``conllu``, ``pd``, ``bmes``).
        encoding: the files' encoding.
        dictionary: the OOV dictionary (a ``--dict`` specification), or None:
            the corpus' standard dictionary for a registered corpus, none for files.
        normalize: the normalisation applied before scoring.
        convert: a character-by-character conversion (``t2s``: OpenCC
            Traditional to Simplified) applied to the raw input before it is
            segmented; the words are cut back out of the original text, so
            the scores are on the corpus as it is. ``none`` (the default)
            gives the input as it is.
        optional: skip the corpus (with a note) when its data is not here.
    """

    label: str
    name: str | None = None
    split: str = "test"
    gold: str | None = None
    raw: str | None = None
    format: str = "auto"
    encoding: str = "utf-8"
    dictionary: str | None = None
    normalize: str = "none"
    convert: str = "none"
    optional: bool = False


@dataclass(frozen=True)
class SegmenterSpec:
    """A segmenter of the bake-off.

    Attributes:
        label: the row name in reports.
        name: the registered adapter name.
        track: ``closed`` or ``open``.
        options: keyword options of ``get_segmenter`` (``{corpus}`` placeholders allowed).
        optional: skip the segmenter when its library is not installed.
        corpora: the corpus labels it runs on (closed-track rows only where a
            corpus has training data), or None for every corpus.
    """

    label: str
    name: str
    track: str = "open"
    options: dict[str, Any] = field(default_factory=dict)
    optional: bool = False
    corpora: tuple[str, ...] | None = None

    def runs_on(self, corpus: CorpusSpec) -> bool:
        """Whether the segmenter is run on ``corpus``."""
        return self.corpora is None or corpus.label in self.corpora

    def options_for(self, corpus: CorpusSpec, data_dir: str | None = None) -> dict[str, Any]:
        """The options with their placeholders filled.

        ``{corpus}`` becomes the corpus' registered name (or its label);
        ``{data_dir}`` the run's ``--data-dir``: an option whose whole value is
        ``{data_dir}`` is left out when the run has none.
        """
        target = corpus.name or corpus.label

        def fill(value: Any) -> Any:
            if isinstance(value, str):
                value = value.replace("{corpus}", target)
                if "{data_dir}" in value and data_dir is not None:
                    value = value.replace("{data_dir}", data_dir)
                return value
            if isinstance(value, list):
                return [fill(v) for v in value]
            if isinstance(value, dict):
                return {k: fill(v) for k, v in value.items()}
            return value

        return {
            key: fill(value)
            for key, value in self.options.items()
            if not (value == "{data_dir}" and data_dir is None)
        }


# ---------------------------------------------------------------------------
# The corpus


def _gold(corpus: CorpusSpec, data_dir: str | None) -> list[list[str]]:
    if corpus.name is not None:
        from cws_bench.corpora import get_corpus

        return list(get_corpus(corpus.name, data_dir=data_dir).sentences(corpus.split))
    from cws_bench.corpora import read_corpus

    assert corpus.gold is not None  # a spec names either a corpus or a gold file
    return list(read_corpus(corpus.gold, format=corpus.format, encoding=corpus.encoding))


def _raw(corpus: CorpusSpec, data_dir: str | None, gold: list[list[str]]) -> list[str]:
    if corpus.name is not None:
        from cws_bench.corpora import get_corpus

        return list(get_corpus(corpus.name, data_dir=data_dir).raw(corpus.split))
    if corpus.raw:
        from cws_bench.io import iter_lines

        return list(iter_lines(corpus.raw, encoding=corpus.encoding))
    return ["".join(words) for words in gold]


def gold_and_raw(corpus: CorpusSpec, data_dir: str | None) -> tuple[list[list[str]], list[str]]:
    """The gold sentences and the raw lines a segmenter gets."""
    gold = _gold(corpus, data_dir)
    raw = _raw(corpus, data_dir, gold)
    if corpus.name is not None:
        return gold, raw
    if len(raw) != len(gold):
        from cws_bench.errors import LineCountMismatchError

        raise LineCountMismatchError(
            corpus.gold or "gold", len(gold), corpus.raw or "raw", len(raw)
        )
    return gold, raw


def corpus_dictionary(corpus: CorpusSpec, data_dir: str | None) -> Any:
    """The OOV dictionary of a corpus spec, or None (also for ``dictionary = "none"``)."""
    if corpus.dictionary == "none":
        return None
    if corpus.dictionary:
        from cws_bench.words import resolve_dictionary

        return resolve_dictionary(corpus.dictionary, data_dir=data_dir)
    if corpus.name is not None:
        from cws_bench.corpora import get_corpus

        return get_corpus(corpus.name, data_dir=data_dir).dictionary()
    return None


@dataclass(frozen=True)
class CorpusIdentity:
    """What a corpus is, by content.

    Attributes:
        checksum: the sentence checksum of its gold sentences.
        raw: a checksum of the raw lines segmenters get.
        dictionary: the checksum of its OOV dictionary, or None.
        characters: characters of its gold sentences.
    """

    checksum: str
    raw: str
    dictionary: str | None
    characters: int


def corpus_identity(corpus: CorpusSpec, data_dir: str | None) -> CorpusIdentity:
    """The checksums of a corpus' gold, raw input and dictionary, and its size."""
    gold = _gold(corpus, data_dir)
    raw = _raw(corpus, data_dir, gold)  # its line count is checked when the pair runs
    return identity_of(gold, raw, corpus_dictionary(corpus, data_dir))


def identity_of(gold: list[list[str]], raw: list[str], dictionary: Any) -> CorpusIdentity:
    """The :class:`CorpusIdentity` of gold sentences, raw lines and a dictionary (or None)."""
    from cws_bench.checksums import SentenceDigest

    digest = SentenceDigest()
    characters = 0
    for words in gold:
        digest.add(words)
        characters += sum(map(len, words))
    raw_digest = hashlib.blake2b(digest_size=8)
    for line in raw:
        raw_digest.update(line.encode("utf-8", "surrogatepass"))
        raw_digest.update(b"\n")
    return CorpusIdentity(
        checksum=digest.hexdigest(),
        raw=raw_digest.hexdigest(),
        dictionary=None if dictionary is None else dictionary.checksum,
        characters=characters,
    )


# ---------------------------------------------------------------------------
# Identity


def cache_key(
    corpus: CorpusSpec,
    segmenter: str,
    options: dict[str, Any],
    identity: CorpusIdentity,
    segmenter_version: str | None,
    *,
    data_dir: str | None = None,
    libraries: dict[str, str] | None = None,
) -> str:
    """A short hash of everything that can change a pair's numbers.

    The segmenter's name, version and options, with every file an option
    names by its content (:func:`cws_bench.identity.options_identity`), the
    training data behind ``corpus=``/``dictionary="corpus:..."`` by its
    checksums, the installed versions of the libraries it uses; the corpus
    by the checksums of its gold, raw input and dictionary; the
    normalisation, the cache format and cws-bench's version. Paths never
    enter it, so moving files keeps the key and editing them changes it.
    """
    from cws_bench.identity import library_versions, options_identity, training_identity

    if libraries is None:
        try:
            libraries = library_versions(segmenter)
        except Exception:  # an unknown or broken adapter: the run reports it
            libraries = {}
    material = json.dumps(
        {
            "cache": CACHE_VERSION,
            "cws_bench": __version__,
            "segmenter": segmenter,
            "segmenter_version": segmenter_version,
            "libraries": libraries,
            "options": options_identity(options),
            "training": training_identity(options, data_dir),
            "corpus": corpus.name,
            "split": corpus.split if corpus.name else None,
            "corpus_checksum": identity.checksum,
            "raw": identity.raw,
            "dictionary": identity.dictionary,
            "normalize": corpus.normalize,
            **({"convert": corpus.convert} if corpus.convert != "none" else {}),
        },
        sort_keys=True,
        ensure_ascii=False,
    )
    return hashlib.blake2b(material.encode("utf-8"), digest_size=10).hexdigest()


def pair_signature(
    score_signature: str,
    segmenter: str,
    info: dict[str, Any],
    *,
    seed: int,
    resamples: int,
    convert: str = "none",
) -> str:
    """The score's signature plus the segmenter, its version and options, the input's
    conversion (when there is one), seed and resamples."""
    options = json.dumps(info.get("options", {}), sort_keys=True, ensure_ascii=False)
    if info.get("model"):  # a neural adapter's model, checksum, device, dtype (neural.py)
        options += json.dumps(info["model"], sort_keys=True, ensure_ascii=False)
    digest = hashlib.blake2b(options.encode("utf-8"), digest_size=4).hexdigest()
    return "|".join(
        [
            score_signature,
            f"seg:{segmenter}",
            f"segver:{info.get('version')}",
            f"opts:{digest}",
            *([f"input:{convert}"] if convert != "none" else []),
            f"seed:{seed}",
            f"resamples:{resamples}",
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


def environment() -> dict[str, Any]:
    """The versions and the machine a result was computed with."""
    import platform

    return {
        "cws_bench": __version__,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
    }


# ---------------------------------------------------------------------------
# The record and the run


@dataclass(frozen=True)
class PairRecord:
    """What one pair's run produced: the record the run cache holds.

    Attributes:
        scores: :meth:`cws_bench.scoring.ScoreResult.to_dict`.
        sentence_counts: one row per scored sentence (:mod:`cws_bench.sentence_counts`).
        analysis: :meth:`cws_bench.analysis.ErrorAnalysis.to_dict`.
        timing: ``load_s``, ``segment_s``, ``characters``, ``sentences``,
            ``chars_per_s``, ``words_per_s``.
        peak_memory_mib: the worker's peak resident memory.
        warnings: the scorer's warnings and contamination warnings.
        segmenter_info: the segmenter's metadata (name, version, options, ...).
        contaminated: scored on data it was trained on (see :func:`contamination_warnings`).
        version: :data:`CACHE_VERSION` of the record.
    """

    scores: dict[str, Any]
    sentence_counts: tuple[tuple[int, int, int], ...]
    analysis: dict[str, Any]
    timing: dict[str, Any]
    peak_memory_mib: float
    warnings: tuple[str, ...]
    segmenter_info: dict[str, Any]
    contaminated: bool = False
    version: int = CACHE_VERSION

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-safe data, in the cache file's key order."""
        return {
            "version": self.version,
            "scores": self.scores,
            "sentence_counts": [list(row) for row in self.sentence_counts],
            "analysis": self.analysis,
            "timing": self.timing,
            "peak_memory_mib": self.peak_memory_mib,
            "warnings": list(self.warnings),
            "contaminated": self.contaminated,
            "segmenter_info": self.segmenter_info,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PairRecord:
        """Rebuild a record from :meth:`to_dict` output.

        Raises:
            KeyError, TypeError, ValueError: the data is not a record.
        """
        from cws_bench.sentence_counts import as_rows

        return cls(
            scores=dict(data["scores"]),
            sentence_counts=tuple(as_rows(data["sentence_counts"])),
            analysis=dict(data["analysis"]),
            timing=dict(data["timing"]),
            peak_memory_mib=float(data["peak_memory_mib"]),
            warnings=tuple(str(w) for w in data["warnings"]),
            segmenter_info=dict(data["segmenter_info"]),
            contaminated=bool(data.get("contaminated", False)),
            version=int(data["version"]),
        )

    def signature(self, segmenter: str, *, seed: int, resamples: int, convert: str = "none") -> str:
        """:func:`pair_signature` of this record."""
        return pair_signature(
            self.scores["signature"],
            segmenter,
            self.segmenter_info,
            seed=seed,
            resamples=resamples,
            convert=convert,
        )


@dataclass(frozen=True)
class PairTask:
    """Everything a worker needs for one pair (picklable)."""

    corpus: CorpusSpec
    segmenter: SegmenterSpec
    options: dict[str, Any]
    key: str
    batch_size: int
    data_dir: str | None


def _normalized(dictionary: Any, normalize: str | None) -> Any:
    if normalize is None:
        return dictionary
    from cws_bench.normalize import get_normalizer

    normalizer = get_normalizer(normalize)
    return {normalizer(word) for word in dictionary.words}


def run_pair(task: PairTask, report: Callable[[int], None] | None = None) -> PairRecord:
    """Run one segmenter on one corpus and score it, in this process (the unsharded run).

    The bake-off's runner does the same in shards (:func:`segment_shard`, then
    :func:`finish_pair`): the numbers are the same.

    Args:
        task: the pair.
        report: called with the characters of each batch segmented (progress).
    """
    from cws_bench.memory import peak_memory_mib

    corpus = task.corpus
    gold, raw = gold_and_raw(corpus, task.data_dir)
    dictionary = corpus_dictionary(corpus, task.data_dir)
    started = time.perf_counter()
    segmenter = build_segmenter(task.segmenter.name, task.options)
    load_s = time.perf_counter() - started  # loading its model, or training it
    pred, segment_s = segment_lines(segmenter, raw, task.batch_size, corpus.convert, report)
    facts = segmenter_facts(segmenter, task.segmenter.track, leak_inputs(gold, dictionary))
    return finish_pair(
        PairInput(corpus, gold, raw, dictionary, task.data_dir),
        pred,
        facts,
        timing={"load_s": load_s, "segment_s": segment_s},
        peak_memory_mib=peak_memory_mib(),
    )


def build_segmenter(name: str, options: dict[str, Any], blob: bytes | None = None) -> Any:
    """A registered segmenter by name and options, or a shipped one (``blob``: cloudpickle)."""
    if blob is None:
        from cws_bench.segmenters import get_segmenter

        return get_segmenter(name, **options)
    import pickle

    return pickle.loads(blob)  # cloudpickle's output loads with pickle (cloudpickle installed)


def segment_lines(
    segmenter: Any,
    raw: list[str],
    batch_size: int,
    convert: str = "none",
    report: Callable[[int], None] | None = None,
) -> tuple[list[list[str]], float]:
    """Segment raw lines in batches of ``batch_size``; the words and the seconds in ``segment()``.

    With a ``convert`` other than ``none`` the segmenter gets the converted
    lines and the words are cut back out of the original ones.
    """
    converter = None
    if convert != "none":
        from cws_bench.normalize import get_normalizer

        converter = get_normalizer(convert)
    pred: list[list[str]] = []
    segment_s = 0.0
    for start in range(0, len(raw), batch_size):
        batch = raw[start : start + batch_size]
        given = batch if converter is None else [converter(line) for line in batch]
        began = time.perf_counter()
        words = segmenter.segment(given)
        segment_s += time.perf_counter() - began
        pred.extend(words if converter is None else map(_cut_like, batch, words))
        if report is not None:
            report(sum(map(len, batch)))
    return pred, segment_s


Leaks = tuple[frozenset[str], frozenset[str]] | None


def leak_inputs(gold: list[list[str]], dictionary: Any) -> Leaks:
    """What the closed-track leak check needs of a corpus: its gold word types and the
    scoring dictionary's words (None without a dictionary: no check)."""
    if dictionary is None:
        return None
    from cws_bench.dictionary import Dictionary

    words = dictionary.words if isinstance(dictionary, Dictionary) else dictionary
    return frozenset(word for words_ in gold for word in words_), frozenset(words)


def segmenter_facts(segmenter: Any, track: str, leaks: Leaks) -> dict[str, Any]:
    """What a pair's record needs of the segmenter object itself, as plain data.

    ``info`` (its metadata), ``trained_on``, ``notes``, ``has_speed`` and the
    closed-track ``leaks`` warnings (:func:`leak_inputs` of the corpus).
    """
    from cws_bench.dictionary_checks import segmenter_leak_warnings

    leak = []
    if leaks is not None:
        gold_types, training = leaks
        leak = segmenter_leak_warnings(segmenter, track, [sorted(gold_types)], training)
    trained_on = segmenter.trained_on
    return {
        "info": segmenter.metadata(),
        "trained_on": trained_on.to_dict() if trained_on is not None else None,
        "notes": list(getattr(segmenter, "notes", [])),  # e.g. crf: what stood in for data
        "has_speed": bool(segmenter.has_speed),
        "leaks": leak,
    }


@dataclass(frozen=True)
class PairInput:
    """A corpus as a pair is scored on it: gold sentences, raw lines, OOV dictionary."""

    corpus: CorpusSpec
    gold: list[list[str]]
    raw: list[str]
    dictionary: Any
    data_dir: str | None


def finish_pair(
    pair: PairInput,
    pred: list[list[str]],
    facts: dict[str, Any],
    *,
    timing: dict[str, float],
    peak_memory_mib: float,
) -> PairRecord:
    """Score a pair's segmentation per sentence, analyse its errors: its :class:`PairRecord`.

    Args:
        pair: the corpus.
        pred: the words of every raw line.
        facts: :func:`segmenter_facts` of the segmenter.
        timing: ``load_s`` and ``segment_s``.
        peak_memory_mib: the peak resident memory of the process(es) that segmented.
    """
    from cws_bench.alignment import align
    from cws_bench.analysis import analyse_errors
    from cws_bench.buckets import bucket_analysis
    from cws_bench.metrics.throughput import rate
    from cws_bench.scoring import score_sentences
    from cws_bench.segmenters import TrainingData
    from cws_bench.sentence_counts import sentence_rows

    corpus, gold, dictionary = pair.corpus, pair.gold, pair.dictionary
    result = score_sentences(gold, pred, dictionary, normalize=corpus.normalize, per_line=True)
    normalizer = None if corpus.normalize == "none" else corpus.normalize
    aligned = align(gold, pred)  # walked once for both analyses
    analysis = analyse_errors(
        gold,
        pred,
        None if dictionary is None else _normalized(dictionary, normalizer),
        aligned=aligned,
    )
    # a bake-off reads the training split once for all its pairs (Corpus.summary, kept)
    counts = _training_counts(corpus, pair.data_dir)
    buckets = bucket_analysis(
        gold,
        pred,
        counts=counts,
        words=dictionary.words if counts is None and dictionary is not None else None,
        aligned=aligned,
    )
    characters = sum(map(len, pair.raw))
    trained_on = facts["trained_on"]
    contamination = contamination_warnings(
        None if trained_on is None else TrainingData.from_dict(trained_on),
        corpus,
        result.signature.gold,
    )
    segment_s = timing["segment_s"]
    timed = facts["has_speed"] and segment_s > 0  # a file read is no segmenting speed
    return PairRecord(
        scores=result.to_dict(),
        sentence_counts=tuple(sentence_rows(result)),
        analysis={**analysis.to_dict(), "buckets": buckets},
        timing={
            "load_s": timing["load_s"],
            "segment_s": segment_s,
            "characters": characters,
            "sentences": len(pair.raw),
            "chars_per_s": rate(characters, segment_s) if timed else None,
            "words_per_s": rate(result.pred_words, segment_s) if timed else None,
        },
        peak_memory_mib=peak_memory_mib,
        warnings=(*result.warnings, *contamination, *facts["leaks"], *facts["notes"]),
        segmenter_info=facts["info"],
        # A leaked closed-track dictionary has seen the test gold, as training on it would.
        contaminated=bool(contamination or facts["leaks"]),
    )


# ---------------------------------------------------------------------------
# A shard of a pair, on a worker


@dataclass(frozen=True)
class PairSetup:
    """What a worker needs to segment a pair's shards (picklable; the executor's context).

    Attributes:
        name: the registered adapter (or the label of a shipped segmenter).
        options: its options, placeholders filled.
        batch_size: lines per ``segment()`` call.
        convert: the input conversion (``none``, ``t2s``).
        track: ``closed`` or ``open`` (the leak check).
        key: what the worker caches the loaded segmenter under (same key, same segmenter).
        blob: a segmenter or callable shipped with cloudpickle, or None (built by name).
    """

    name: str
    options: dict[str, Any]
    batch_size: int
    convert: str
    track: str
    key: str
    blob: bytes | None = None


@dataclass(frozen=True)
class ShardItem:
    """One shard of one pair: raw lines ``[first_line, first_line + len(lines))``.

    Attributes:
        index: its position among the run's items.
        pair: the position of its pair's :class:`PairSetup` in the context.
        shard: its position among its pair's shards (shard 0 also reports the facts).
        corpus: the corpus label (the leak inputs of the context).
    """

    index: int
    pair: int
    shard: int
    corpus: str
    first_line: int
    lines: tuple[str, ...]


@dataclass(frozen=True)
class ShardOutput:
    """What a worker sends back for a shard: the words or the reason it could not.

    ``loads``: ``(key, worker, seconds)`` of the segmenters this worker loaded
    while running it (each load once); ``facts``: :func:`segmenter_facts` (shard 0 only).
    """

    pred: list[list[str]] | None
    segment_s: float = 0.0
    loads: tuple[tuple[str, str, float], ...] = ()
    facts: dict[str, Any] | None = None
    peak_memory_mib: float = 0.0
    status: str = "ok"
    error: str | None = None


@dataclass(frozen=True)
class ShardContext:
    """The executor's context of a run: the pairs' setups, each corpus' leak inputs, and the
    corpus splits the run read (:meth:`~cws_bench.corpora.base.Corpus.summary`: a
    segmenter that learns its words from one of them takes them from there)."""

    pairs: tuple[PairSetup, ...]
    leaks: dict[str, Leaks]
    summaries: dict[tuple[Any, ...], Any] = field(default_factory=dict)


_FAILED_LOADS: dict[str, tuple[str, str]] = {}  # key -> (status, error) in this worker


def segment_shard(context: ShardContext, item: ShardItem) -> ShardOutput:
    """The bake-off's task: segment one shard with the worker's cached segmenter.

    A segmenter that fails (to load, or on these lines) gives a failed (or,
    for data that is not here, skipped) output, never an exception: its pair
    fails and the others go on. A load that failed is not tried again by this worker.
    """
    from cws_bench.corpora.base import kept_summaries
    from cws_bench.errors import CorpusUnavailableError, CwsBenchError
    from cws_bench.executors import cached, take_load_reports
    from cws_bench.memory import peak_memory_mib

    setup = context.pairs[item.pair]
    if setup.key in _FAILED_LOADS:
        status, error = _FAILED_LOADS[setup.key]
        return ShardOutput(None, status=status, error=error)
    loading = True
    try:
        with kept_summaries(context.summaries):
            segmenter = cached(
                setup.key, lambda: build_segmenter(setup.name, setup.options, setup.blob)
            )
        loading = False
        pred, segment_s = segment_lines(
            segmenter, list(item.lines), setup.batch_size, setup.convert
        )
        facts = None
        if item.shard == 0:
            facts = segmenter_facts(segmenter, setup.track, context.leaks[item.corpus])
    except CorpusUnavailableError as e:  # e.g. a crf's training data is not here
        status, error = "skipped", str(e)
    except CwsBenchError as e:
        status, error = "failed", str(e)
    except Exception as e:  # a segmenter's own bug: report it, the run goes on
        import traceback

        tail = traceback.format_exc().strip().splitlines()[-3:]
        status, error = "failed", f"{type(e).__name__}: {e} ({' / '.join(tail)})"
    else:
        loads = tuple((r.key, r.worker, r.seconds) for r in take_load_reports())
        return ShardOutput(pred, segment_s, loads, facts, peak_memory_mib())
    if loading:
        _FAILED_LOADS[setup.key] = (status, error)
    return ShardOutput(None, status=status, error=error)


def _cut_like(line: str, words: list[str]) -> list[str]:
    """Cut ``line`` (without whitespace) into pieces as long as ``words`` (converted text)."""
    text = "".join(line.split())
    out = []
    at = 0
    for word in words:
        out.append(text[at : at + len(word)])
        at += len(word)
    if at != len(text):
        from cws_bench.errors import CwsBenchError

        raise CwsBenchError(f"a conversion changed the length of the line {line[:30]!r}")
    return out


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
