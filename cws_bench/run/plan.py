"""The plan of a bake-off run: each corpus read once, each pair keyed, cut into shards.

:func:`plan_run` resolves a configuration into corpora (gold, raw lines,
dictionary, identity: read once, in this process: :func:`gold_and_raw`,
:func:`corpus_dictionary`, :func:`identity_of`), pairs (their
:func:`cache_key`: everything that can change their numbers, files by
content through :mod:`cws_bench.run.identity`) and, for each pair not in
the run cache, its shards (:func:`cut_batches`): runs of whole batches of
``batch_size`` lines, about ``shard_chars`` characters each, so that a
segmenter gets exactly the batches it gets in an unsharded run; or runs of
whole lines for an adapter whose ``independent_lines`` says that each line is
segmented on its own (finer shards share a slow pair among the workers).
:func:`installed_segmenters` gives the segmenters it plans for, with their
registry info.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cws_bench import __version__
from cws_bench.errors import CwsBenchError
from cws_bench.run.cache import RunCache
from cws_bench.run.config import BAKEOFF_SHARD_CHARS, BakeoffConfig, CorpusSpec, SegmenterSpec
from cws_bench.run.pair import CACHE_VERSION, PairInput, PairRecord
from cws_bench.run.tasks import PairSetup, segmenter_key
from cws_bench.text.checksums import hash_hex, hasher

if TYPE_CHECKING:
    from cws_bench.run.identity import Memo
    from cws_bench.segmenters import SegmenterInfo
    from cws_bench.text.dictionary import Dictionary

__all__ = [
    "CorpusIdentity",
    "Pair",
    "PlannedPair",
    "RunPlan",
    "cache_key",
    "corpus_dictionary",
    "cut_batches",
    "gold_and_raw",
    "identity_of",
    "installed_segmenters",
    "plan_run",
]


# Adapters that ship a trained model are usually the slowest to run: start them first,
# so that a long pair does not begin last and keep the others waiting.
KIND_ORDER = {"pretrained": 0, "statistical": 1, "dictionary": 2}


Pair = tuple[str, str]  # (corpus label, segmenter label)


# ---------------------------------------------------------------------------
# The corpus: read once


def _gold(corpus: CorpusSpec, data_dir: str | None) -> list[Sequence[str]]:
    # equal words made one object: a run holds its gold sentences from start to end
    from cws_bench.run.tasks import share_words

    if corpus.name is not None:
        from cws_bench.corpora import get_corpus

        return share_words(get_corpus(corpus.name, data_dir=data_dir).sentences(corpus.split))
    from cws_bench.corpora import read_corpus

    assert corpus.gold is not None  # a spec names either a corpus or a gold file
    return share_words(read_corpus(corpus.gold, format=corpus.format, encoding=corpus.encoding))


def _raw(corpus: CorpusSpec, data_dir: str | None, gold: list[Sequence[str]]) -> list[str]:
    if corpus.name is not None:
        from cws_bench.corpora import get_corpus

        return list(get_corpus(corpus.name, data_dir=data_dir).raw(corpus.split))
    if corpus.raw:
        from cws_bench.text.io import iter_lines

        return list(iter_lines(corpus.raw, encoding=corpus.encoding))
    from cws_bench.text.joined import joined

    return [joined(words, "") for words in gold]


def gold_and_raw(corpus: CorpusSpec, data_dir: str | None) -> tuple[list[Sequence[str]], list[str]]:
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


def corpus_dictionary(corpus: CorpusSpec, data_dir: str | None) -> Dictionary | None:
    """The OOV dictionary of a corpus spec, or None (also for ``dictionary = "none"``)."""
    if corpus.dictionary == "none":
        return None
    if corpus.dictionary:
        from cws_bench.corpora.words import resolve_dictionary

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


def identity_of(
    gold: Sequence[Sequence[str]], raw: list[str], dictionary: Dictionary | None
) -> CorpusIdentity:
    """The :class:`CorpusIdentity` of gold sentences, raw lines and a dictionary (or None)."""
    from cws_bench.text.checksums import SentenceDigest

    digest = SentenceDigest()
    characters = 0
    for words in gold:
        digest.add(words)
        characters += sum(map(len, words))
    raw_digest = hasher("checksum")
    for line in raw:
        raw_digest.update(line.encode("utf-8", "surrogatepass"))
        raw_digest.update(b"\n")
    return CorpusIdentity(
        checksum=digest.hexdigest(),
        raw=raw_digest.hexdigest(),
        dictionary=None if dictionary is None else dictionary.checksum,
        characters=characters,
    )


def cache_key(
    corpus: CorpusSpec,
    segmenter: str,
    options: dict[str, Any],
    identity: CorpusIdentity,
    segmenter_version: str | None,
    *,
    data_dir: str | None = None,
    libraries: dict[str, str] | None = None,
    method: str = "interval",
    memo: Memo | None = None,
) -> str:
    """A short hash of everything that can change a pair's numbers.

    The segmenter's name, version and options, with every file an option
    names by its content (:func:`cws_bench.run.identity.options_identity`), the
    training data behind ``corpus=``/``lexicon="corpus:..."`` by its
    checksums, the installed versions of the libraries it uses; the corpus
    by the checksums of its gold, raw input and dictionary; the
    normalisation, the counting method, the cache format and cws-bench's version. Paths never
    enter it, so moving files keeps the key and editing them changes it. ``memo``: the
    run's :class:`~cws_bench.run.identity.Memo` (each file is read once in a run).
    """
    from cws_bench.run.identity import (
        Memo,
        library_versions,
        options_identity,
        training_identity,
    )

    memo = memo or Memo()
    if libraries is None:
        try:
            libraries = library_versions(segmenter, memo)
        except Exception:  # an unknown or broken adapter: the run reports it
            libraries = {}
    material = json.dumps(
        {
            "cache": CACHE_VERSION,
            "cws_bench": __version__,
            "segmenter": segmenter,
            "segmenter_version": segmenter_version,
            "libraries": libraries,
            "options": options_identity(options, memo),
            "training": training_identity(options, data_dir, memo),
            "corpus": corpus.name,
            "split": corpus.split if corpus.name else None,
            "corpus_checksum": identity.checksum,
            "raw": identity.raw,
            "dictionary": identity.dictionary,
            "normalize": corpus.normalize,
            **({"convert": corpus.convert} if corpus.convert != "none" else {}),
            **({"method": method} if method != "interval" else {}),
        },
        sort_keys=True,
        ensure_ascii=False,
    )
    return hash_hex(material, "cache")


# ---------------------------------------------------------------------------
# The segmenters and the pairs


def installed_segmenters(
    config: BakeoffConfig, notes: list[str], *, shipped: Mapping[str, tuple[bytes, bool]]
) -> list[tuple[SegmenterSpec, SegmenterInfo, bytes | None]]:
    """The configuration's segmenters with their registry info (and shipped bytes, if any);
    optional missing ones noted.

    Raises:
        CwsBenchError: an unknown segmenter, or one that is not installed and not optional.
    """
    from cws_bench.segmenters import SegmenterInfo, list_segmenters

    # the devices would import torch (200 MB) for a run that may use no neural segmenter;
    # the models of the run's options were looked for by the validation
    available = {info.name: info for info in list_segmenters(devices=False, models=False)}
    segmenters: list[tuple[SegmenterSpec, SegmenterInfo, bytes | None]] = []
    for spec in config.segmenters:
        if spec.label in shipped:
            blob, independent = shipped[spec.label]
            own = SegmenterInfo(
                name=spec.label,
                kind=None,
                description="a Python segmenter",
                available=True,
                version=None,
                install=None,
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


def cut_batches(lengths: Sequence[int], batch_size: int, shard_chars: int) -> list[tuple[int, int]]:
    """``(first line, lines)`` of shards made of whole batches, each of at least
    ``shard_chars`` characters but the last.

    >>> cut_batches([5, 5, 5, 5, 5], 2, 8)
    [(0, 2), (2, 2), (4, 1)]
    >>> cut_batches([5, 5, 5, 5, 5], 1, 11)
    [(0, 3), (3, 2)]
    >>> cut_batches([], 3, 10)
    []
    """
    shards = []
    first = characters = 0
    for start in range(0, len(lengths), batch_size):
        end = min(start + batch_size, len(lengths))
        characters += sum(lengths[start:end])
        if characters >= shard_chars or end == len(lengths):
            shards.append((first, end - first))
            first, characters = end, 0
    return shards


@dataclass
class PlannedPair:
    """A pair to run: its specs, registry info, cache key, setup and shards."""

    corpus: CorpusSpec
    spec: SegmenterSpec
    info: SegmenterInfo
    key: str
    setup: PairSetup
    cuts: list[tuple[int, int]] = field(default_factory=list)

    @property
    def label(self) -> Pair:
        return (self.corpus.label, self.spec.label)


@dataclass
class RunPlan:
    """What a run does: the corpora read, pairs to run, pairs from the cache, notes."""

    corpora: list[CorpusSpec]
    inputs: dict[str, PairInput]
    pairs: list[PlannedPair]
    records: dict[Pair, PairRecord]
    statuses: dict[Pair, tuple[str, str | None]]
    cached: set[Pair]
    notes: list[str]
    method: str = "interval"


def _corpus_here(corpus: CorpusSpec, data_dir: str | None, notes: list[str]) -> bool:
    """False (with a note) for an optional registered corpus whose split is not here."""
    if not (corpus.optional and corpus.name is not None):
        return True
    from cws_bench.corpora import get_corpus

    named = get_corpus(corpus.name, data_dir=data_dir)
    if corpus.split in named.available_splits:
        return True
    notes.append(f"skipped corpus {corpus.label}: not here ({named.availability().how_to_get()})")
    return False


def _read_corpus(
    corpus: CorpusSpec, data_dir: str | None, method: str = "interval"
) -> PairInput | str:
    """The corpus' input, or the reason it cannot be scored (its pairs fail with it)."""
    try:
        gold, raw = gold_and_raw(corpus, data_dir)
    except CwsBenchError as e:
        from cws_bench.errors import CorpusUnavailableError

        if isinstance(e, CorpusUnavailableError):
            raise
        return str(e)
    return PairInput(corpus, gold, raw, corpus_dictionary(corpus, data_dir), data_dir, method)


def plan_run(
    config: BakeoffConfig,
    segmenters: Sequence[tuple[SegmenterSpec, SegmenterInfo, bytes | None]],
    *,
    cache: RunCache,
    use_cache: bool,
    data_dir: str | None,
    notes: list[str],
) -> RunPlan:
    """Resolve corpora and pairs; take finished pairs from the cache; cut the others.

    Args:
        config: the bake-off's configuration (its corpora, batch size and shard size).
        segmenters: ``(spec, registry info, shipped segmenter or None)``.
    """
    from cws_bench.run.identity import Memo

    plan = RunPlan([], {}, [], {}, {}, set(), notes, config.method)
    memo = Memo()  # this run's: each file, corpus split and library read once
    # (the configuration's settings always hold a shard size: DEFAULT_SETTINGS has one)
    batch_size = config.batch_size
    shard_chars = config.settings.shard_chars or BAKEOFF_SHARD_CHARS

    def plan_pair(
        corpus: CorpusSpec,
        spec: SegmenterSpec,
        info: SegmenterInfo,
        blob: bytes | None,
        identity: CorpusIdentity,
        lengths: list[int],
    ) -> None:
        """One pair: taken from the cache, scored (a submission) or cut into shards."""
        options = spec.options_for(corpus, data_dir)
        method = corpus.counted_by(plan.method)
        if blob is None:
            key = cache_key(
                corpus,
                spec.name,
                options,
                identity,
                info.version,
                data_dir=data_dir,
                method=method,
                memo=memo,
            )
            loaded_as = segmenter_key(spec.name, options, data_dir, memo)
        else:  # a shipped segmenter: known by its pickled bytes
            loaded_as = f"python:{hash_hex(blob, 'cache')}"
            key = cache_key(corpus, loaded_as, {}, identity, None, libraries={}, method=method)
        pair = (corpus.label, spec.label)
        record = cache.record(key) if use_cache else None
        if record is not None:
            plan.records[pair] = record
            plan.statuses[pair] = ("ok", None)
            plan.cached.add(pair)
            return
        if spec.participant is not None and blob is None:
            # a participant's file: scored as it is, line by line (no shards, no workers)
            _score_submission(plan, corpus, spec, options, key, cache)
            return
        setup = PairSetup(
            spec.name, options, batch_size, corpus.convert, spec.track, loaded_as, blob
        )
        # Shards end between batches, as an unsharded run cuts them, or between any two
        # lines for a segmenter whose lines are segmented each on its own.
        unit = 1 if info.independent_lines else batch_size
        # an empty corpus still has one (empty) shard: its segmenter is loaded and described
        cuts = cut_batches(lengths, unit, shard_chars) or [(0, 0)]
        plan.pairs.append(PlannedPair(corpus, spec, info, key, setup, cuts))

    for corpus in config.corpora:
        if not _corpus_here(corpus, data_dir, notes):
            continue
        plan.corpora.append(corpus)
        read = _read_corpus(corpus, data_dir, corpus.counted_by(config.method))
        if isinstance(read, str):
            for spec, _, _ in segmenters:
                if spec.runs_on(corpus):
                    plan.statuses[corpus.label, spec.label] = ("failed", read)
            continue
        plan.inputs[corpus.label] = read
        identity = identity_of(read.gold, read.raw, read.dictionary)
        lengths = [len(line) for line in read.raw]
        for spec, info, blob in segmenters:
            if spec.runs_on(corpus):
                plan_pair(corpus, spec, info, blob, identity, lengths)
    kinds = {spec.label: info.kind for spec, info, _ in segmenters}
    sizes = {label: sum(map(len, i.raw)) for label, i in plan.inputs.items()}
    plan.pairs.sort(
        key=lambda p: (-sizes[p.corpus.label], KIND_ORDER.get(kinds[p.spec.label] or "", 3))
    )
    return plan


def _score_submission(
    plan: RunPlan,
    corpus: CorpusSpec,
    spec: SegmenterSpec,
    options: dict[str, Any],
    key: str,
    cache: RunCache,
) -> None:
    """A participant's file scored against the corpus, line by line as submitted.

    Unlike a ``file`` row, which looks each input line up in the file by its
    text, a submission's line *n* is the segmentation of input line *n*: a line
    whose text differs from the input's is scored as the counting method scores
    it (aligned by the interval method, diffed by the SIGHAN script's) and
    counted in the row's warnings, never a failed pair. (Its lines were
    checked before the run: :func:`cws_bench.run.submissions.submission_problems`.)
    """
    from cws_bench.run.pair import finish_pair
    from cws_bench.run.submissions import read_submission
    from cws_bench.run.tasks import segmenter_facts
    from cws_bench.segmenters import get_segmenter
    from cws_bench.system.memory import peak_memory_mib

    pair = (corpus.label, spec.label)
    try:
        submitted = read_submission(options["path"], options.get("encoding", "utf-8"))
        facts = segmenter_facts(get_segmenter("file", **options), spec.track, None)
        record = finish_pair(
            plan.inputs[corpus.label],
            submitted.words,
            facts,
            timing={"load_s": 0.0, "segment_s": 0.0},
            peak_memory_mib=peak_memory_mib(),
        )
    except Exception as e:  # a scoring error fails this pair only
        plan.statuses[pair] = ("failed", f"{type(e).__name__}: {e}")
        return
    cache.put(key, record)
    plan.records[pair] = record
    plan.statuses[pair] = ("ok", None)
