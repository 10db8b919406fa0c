"""The one shard task: a worker segments one shard of one segmenter's input.

Every sharded run maps :func:`segment_shard` over :class:`ShardItem` s on an
executor (:mod:`cws_bench.run.executors`), with a :class:`ShardContext` sent to
each worker once, and gets a :class:`ShardResult` per shard:

- the bake-off (:mod:`cws_bench.run.execute`) and a regression baseline in shards:
  items hold their raw lines (cut in memory by ``plan.cut_batches``), the
  context the setups of many pairs; a result holds the words, and a segmenter
  that fails gives a failed result, never an exception (its pair fails, the
  others go on);
- one big file (:mod:`cws_bench.run.sharded`): items name a byte range of the
  context's :class:`FileShards` source (cut by ``shards.plan_shards``); a
  result holds the output's bytes, or the part file a worker on the driver's
  machine wrote them to; a failure is raised, located in the file.

Either way the worker keeps the segmenter it loaded under its
:func:`segmenter_key` (:func:`cws_bench.run.executors.cached`) for its next
shards, and segments through the one loop,
:class:`cws_bench.segmenters.stream.SegmentRun` (time inside ``segment()``
only). This module imports nothing of cws_bench at module level but the
errors, so a worker loads only what its shards need.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cws_bench.run.executors import LoadReport
    from cws_bench.run.identity import Memo
    from cws_bench.segmenters import Segmenter
    from cws_bench.text.dictionary import Dictionary

__all__ = [
    "FileShards",
    "Leaks",
    "PairSetup",
    "ShardContext",
    "ShardItem",
    "ShardResult",
    "build_segmenter",
    "leak_inputs",
    "segment_shard",
    "segmenter_facts",
    "segmenter_key",
    "share_words",
]


def segmenter_key(
    name: str, options: dict[str, Any], data_dir: str | None = None, memo: Memo | None = None
) -> str:
    """What a worker caches a registered segmenter under (and a failed load's error): its
    name and options (``fmm {"dictionary": ...}``; an option JSON cannot hold, such as a
    path, as its text), then the content of what they name, as the run cache identifies
    it (:func:`cws_bench.run.identity.options_identity` and ``training_identity``, each
    file read once in the run's ``memo``).

    A worker outlives a run when the executor does (one passed to ``run_bakeoff``, a Dask
    cluster's workers): a model or dictionary edited in place, or a training split, gets
    a new key there, so the worker builds the segmenter again instead of serving the
    one it built from the old file.
    """
    from cws_bench.run.identity import Memo, options_identity, training_identity
    from cws_bench.text.checksums import hash_hex

    shown = json.dumps(options, sort_keys=True, ensure_ascii=False, default=str)
    memo = memo or Memo()
    content = json.dumps(
        [options_identity(options, memo), training_identity(options, data_dir, memo)],
        sort_keys=True,
        ensure_ascii=False,
        default=str,
    )
    digest = hash_hex(content, "checksum")
    return f"{name} {shown} content:{digest}"


def build_segmenter(name: str, options: dict[str, Any], blob: bytes | None = None) -> Segmenter:
    """A registered segmenter by name and options, or a shipped one (``blob``: cloudpickle)."""
    if blob is None:
        from cws_bench.segmenters import get_segmenter

        return get_segmenter(name, **options)
    import pickle

    return pickle.loads(blob)  # type: ignore[no-any-return]  # cloudpickle's output loads


Leaks = tuple[frozenset[str], frozenset[str]] | None


def leak_inputs(
    gold: Sequence[Sequence[str]], dictionary: Dictionary | Iterable[str] | None
) -> Leaks:
    """What the closed-track leak check needs of a corpus: its gold word types that the
    scoring dictionary lacks (the check looks at no other) and the scoring dictionary's
    words (None without a dictionary: no check)."""
    if dictionary is None:
        return None
    from cws_bench.text.dictionary import Dictionary

    words = frozenset(dictionary.words if isinstance(dictionary, Dictionary) else dictionary)
    return frozenset(word for words_ in gold for word in words_ if word not in words), words


def segmenter_facts(segmenter: Segmenter, track: str, leaks: Leaks) -> dict[str, Any]:
    """What a pair's record needs of the segmenter object itself, as plain data.

    ``info`` (its metadata), ``trained_on``, ``notes``, ``has_speed`` and the
    closed-track ``leaks`` warnings (:func:`leak_inputs` of the corpus).
    """
    from cws_bench.text.dictionary_checks import segmenter_leak_warnings

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
        # a subword tokenizer (token ids): the pair's analysis adds the tokenizer figures
        "tokenizer": callable(getattr(segmenter, "token_ids", None)),
        "leaks": leak,
    }


@dataclass(frozen=True)
class PairSetup:
    """What a worker needs to segment one segmenter's shards (picklable).

    Attributes:
        name: the registered adapter (or the label of a shipped segmenter).
        options: its options, placeholders filled.
        batch_size: lines per ``segment()`` call.
        convert: the input conversion (``none``, ``t2s``).
        track: ``closed`` or ``open`` (the leak check).
        key: what the worker caches the loaded segmenter under (same key, same
            segmenter; :func:`segmenter_key` for a registered one).
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
class FileShards:
    """The file a run's shards are byte ranges of, and where their output goes.

    Attributes:
        separator: between the output's words.
        parts: a folder where a worker on the machine named ``host`` writes each
            shard's output as a part file (None: the output comes back as bytes).
        host: the machine that reads the part files (the driver's).
    """

    source: str
    encoding: str = "utf-8"
    separator: str = " "
    parts: str | None = None
    host: str = ""


@dataclass(frozen=True)
class ShardContext:
    """What every shard of a run shares (sent to each worker once).

    Attributes:
        pairs: the setups; an item names its own by position.
        leaks: each corpus' leak inputs (:func:`leak_inputs`); the first shard of an
            item whose corpus is here also reports the segmenter's facts.
        summaries: the corpus splits the run read
            (:meth:`~cws_bench.corpora.base.Corpus.summary`: a segmenter that learns
            its words from one of them takes them from there).
        file: the file the items are byte ranges of (None: the items hold their lines);
            its shards' failures are raised, the others' reported in the result.
    """

    pairs: tuple[PairSetup, ...]
    leaks: dict[str, Leaks] = field(default_factory=dict)
    summaries: dict[tuple[Any, ...], Any] = field(default_factory=dict)
    file: FileShards | None = None


@dataclass(frozen=True)
class ShardItem:
    """One shard of one segmenter's input: lines ``first_line`` (0-based) onwards.

    Attributes:
        index: its position among the run's items (a big file's: its part file's name).
        pair: the position of its :class:`PairSetup` in the context.
        shard: its position among its pair's shards (shard 0 also reports the facts).
        corpus: the corpus label (the leak inputs of the context).
        first_line: the index of its first line in the whole input.
        lines: its raw lines, or empty when they are ``byte_range`` of the context's file.
        byte_range: ``(start, end)`` of its lines in the context's file, or None.
    """

    index: int
    pair: int
    shard: int
    corpus: str
    first_line: int
    lines: tuple[str, ...] = ()
    byte_range: tuple[int, int] | None = None


@dataclass(frozen=True)
class ShardResult:
    """What a worker sends back for a shard: its output and figures, or why it could not.

    Attributes:
        pred: the words of each line (items holding their lines), or None.
        segment_s: seconds spent in ``segment()``.
        loads: the segmenters this worker loaded while running it (each load once).
        facts: :func:`segmenter_facts` (the first shard of a pair only).
        peak_memory_mib: the worker's peak resident memory.
        status: ``ok``, ``failed`` or ``skipped`` (data that is not here).
        error: the reason it failed.
        lines, characters, words: segmented (characters as
            :func:`~cws_bench.segmenters.stream.count_characters` counts them).
        data: a file's shard: the output's bytes (UTF-8 lines ending in ``\\n``), or
            ``b""`` when they are in the part file.
        part: the part file holding the output (None: in ``data``).
        size: bytes of output.
        diagnostics: the segmenter's per-line records, one per line
            (:meth:`~cws_bench.segmenters.base.Segmenter.diagnostics`), or None
            when it keeps none.
    """

    pred: list[Sequence[str]] | None
    segment_s: float = 0.0
    loads: tuple[LoadReport, ...] = ()
    facts: dict[str, Any] | None = None
    peak_memory_mib: float = 0.0
    status: str = "ok"
    error: str | None = None
    lines: int = 0
    characters: int = 0
    words: int = 0
    data: bytes = b""
    part: str | None = None
    size: int = 0
    diagnostics: list[dict[str, Any] | None] | None = None

    @property
    def text(self) -> str:
        """A file's shard's output as text (read from the part file if it is there)."""
        if self.part is None:
            return self.data.decode("utf-8")
        with open(self.part, "rb") as f:
            return f.read().decode("utf-8")


_FAILED_LOADS: dict[str, tuple[str, str]] = {}  # key -> (status, error) in this worker


def share_words(lines: Iterable[Sequence[str]]) -> list[Sequence[str]]:
    """Each line's words as a list, equal words made one object, a long line's words
    as one string (:func:`cws_bench.text.joined.compact`), an empty line as ``()``.

    An output of few distinct words (one character a word, as a maximum matcher
    with a small dictionary gives) then costs a pointer a word, and a line of
    millions of words a few bytes a word, in this process and in the one it is
    pickled to (pickle keeps one copy of a shared object).

    >>> words = ["中国"[:1], "国"], ["中人"[:1], "人"]
    >>> words[0][0] is words[1][0], (lambda a, b: a[0] is b[0])(*share_words(words))
    (False, True)
    """
    from cws_bench.text.joined import LONG_SENTENCE, compact

    table: dict[str, str] = {}
    keep = table.setdefault
    return [
        (
            ()  # every empty line the one empty tuple: millions of them cost a pointer each
            if not words
            else compact(list(words))
            if len(words) >= LONG_SENTENCE
            else list(map(keep, words, words))
        )
        for words in lines
    ]


def segment_shard(context: ShardContext, item: ShardItem) -> ShardResult:
    """The shard task: segment one shard with the worker's cached segmenter.

    Without a file in the context, a segmenter that fails (to load, or on these
    lines) gives a failed (or, for data that is not here, skipped) result,
    never an exception, and a load that failed is not tried again by this
    worker. With a file, the failure is raised, located in the file.
    """
    setup = context.pairs[item.pair]
    if context.file is not None:
        return _segment(context, item, setup)
    if setup.key in _FAILED_LOADS:
        status, error = _FAILED_LOADS[setup.key]
        return ShardResult(None, status=status, error=error)
    try:
        return _segment(context, item, setup)
    except _LoadFailed as failed:
        status, error = _reason(failed.error)
        _FAILED_LOADS[setup.key] = (status, error)
    except Exception as e:
        status, error = _reason(e)
    return ShardResult(None, status=status, error=error)


class _LoadFailed(Exception):
    """The segmenter could not be built (remembered: this worker does not try again)."""

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.error = error


def _reason(error: Exception) -> tuple[str, str]:
    """The status and reason of a segmenter's failure."""
    from cws_bench.errors import CorpusUnavailableError, CwsBenchError

    if isinstance(error, CorpusUnavailableError):  # e.g. a crf's training data is not here
        return "skipped", str(error)
    if isinstance(error, CwsBenchError):
        return "failed", str(error)
    # a segmenter's own bug: report it, the run goes on
    import traceback

    tail = traceback.format_exception(error)
    lines = "".join(tail).strip().splitlines()[-3:]
    return "failed", f"{type(error).__name__}: {error} ({' / '.join(lines)})"


def _load(context: ShardContext, setup: PairSetup) -> Segmenter:
    """The worker's segmenter of ``setup``, built on first use (within the run's summaries)."""
    from cws_bench.corpora.base import kept_summaries
    from cws_bench.run.executors import cached

    def build() -> Segmenter:
        segmenter = build_segmenter(setup.name, setup.options, setup.blob)
        segmenter.check_ready()
        return segmenter

    with kept_summaries(context.summaries):
        return cached(setup.key, build)  # type: ignore[no-any-return]


def _segment(context: ShardContext, item: ShardItem, setup: PairSetup) -> ShardResult:
    from cws_bench.run.executors import take_load_reports
    from cws_bench.segmenters.stream import SegmentRun
    from cws_bench.system.memory import peak_memory_mib

    try:
        segmenter = _load(context, setup)
    except Exception as e:
        if context.file is not None:
            raise
        raise _LoadFailed(e) from e
    file = context.file
    if file is None:
        lines, source = list(item.lines), item.corpus
    else:
        from cws_bench.run.shards import read_shard_lines
        from cws_bench.text.io import display_name

        assert item.byte_range is not None  # a file's items are byte ranges
        lines = read_shard_lines(
            file.source, item.byte_range, item.first_line, encoding=file.encoding
        )
        source = display_name(file.source)
    run = SegmentRun(  # a failure is named by the input's own line numbers
        segmenter,
        lines,
        batch_size=setup.batch_size,
        source=source,
        first_line=item.first_line + 1,
        convert=setup.convert,
    )
    pred = share_words(run)  # a line's words made compact as soon as it is segmented
    facts = None
    if item.shard == 0 and item.corpus in context.leaks:
        facts = segmenter_facts(segmenter, setup.track, context.leaks[item.corpus])
    result = ShardResult(
        None,
        segment_s=run.seconds,
        loads=take_load_reports(),
        facts=facts,
        peak_memory_mib=peak_memory_mib(),
        lines=run.lines,
        characters=run.characters,
        words=run.words,
        diagnostics=run.diagnostics,
    )
    if file is None:
        return replace(result, pred=pred)
    from cws_bench.text.joined import joined

    out = [joined(words, file.separator) for words in pred]
    if out:
        out.append("")  # the last line's newline
    data = "\n".join(out).encode("utf-8")
    part = _part_path(file, item)
    if part is None:
        return replace(result, data=data, size=len(data))
    temporary = f"{part}.{os.getpid()}"
    with open(temporary, "wb") as f:
        f.write(data)
    os.replace(temporary, part)  # whole or absent, whichever attempt wrote it
    return replace(result, part=part, size=len(data))


def _part_path(file: FileShards, item: ShardItem) -> str | None:
    """Where this worker writes the shard's output: None unless on the driver's machine."""
    import socket

    if file.parts is None or file.host != socket.gethostname():
        return None
    # the same name but another file system, or a worker of another user
    if not os.path.isdir(file.parts) or not os.access(file.parts, os.W_OK):
        return None
    return os.path.join(file.parts, f"{item.index}.part")
