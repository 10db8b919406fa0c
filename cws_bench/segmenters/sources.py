"""What segmenters learn from: a registered corpus split or a segmented file, by plain name;
and the segmenters whose model cws-bench trains on it (:class:`ModelSegmenter`).

A ``corpus`` option is a registered corpus name (``pd1998``, see
``cws-bench corpora``) or the path of a segmented file in any format
:func:`cws_bench.corpora.read_corpus` reads (plain, People's Daily, CoNLL-U,
BMES). A registered name wins over a file of the same name; write
``./pd1998`` to mean the file.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, ClassVar

from cws_bench.corpora import corpus_names, get_corpus, read_corpus
from cws_bench.corpora.registry import parse_corpus_spec
from cws_bench.corpora.words import CORPUS_PREFIX, resolve_words
from cws_bench.errors import (
    CorpusFormatError,
    CorpusUnavailableError,
    CwsBenchError,
    Fix,
    SegmenterError,
    SegmenterUnavailableError,
)
from cws_bench.segmenters.base import Segmenter, TrainingData, option
from cws_bench.segmenters.registry import get_segmenter, segmenter_class
from cws_bench.text.checksums import SentenceDigest, hash_hex
from cws_bench.text.dictionary import Dictionary
from cws_bench.text.io import PathLike, display_name

__all__ = [
    "NO_STAND_IN",
    "ModelOptions",
    "ModelSegmenter",
    "TrainingCorpus",
    "check_model_header",
    "combined_data",
    "load_word_source",
    "model_file",
    "model_format_error",
    "seed_output",
    "train_on_sources",
    "train_segmenter",
    "training_data",
    "training_sources",
    "trains_with_seed",
]

DEFAULT_SPLIT = "train"


def _registered(name: str) -> bool:
    return name in corpus_names()


class TrainingCorpus:
    """Gold sentences to learn from, hashed as they are read.

    Iterating yields the non-empty sentences; afterwards :attr:`data`
    describes what was read, with the same checksum as
    :meth:`cws_bench.corpora.Corpus.checksum` (every sentence, empty ones
    included, words joined by a space plus a newline).

    ``corpus`` is a registered corpus name, or a segmented file (of ``format``: ``auto``
    sniffs it); ``split`` the split of a registered corpus (default ``train``), None for
    a file; ``data_dir`` where a registered corpus' data is (as ``get_corpus`` takes it).

    Raises:
        CwsBenchError: neither a registered corpus nor a file, or an unknown split.
    """

    def __init__(
        self,
        corpus: str | os.PathLike[str],
        split: str | None = None,
        *,
        format: str = "auto",
        encoding: str = "utf-8",
        data_dir: PathLike | None = None,
    ) -> None:
        self.corpus = os.fspath(corpus)
        self.data_dir = data_dir
        self.format = format
        self.encoding = encoding
        self.registered = _registered(self.corpus)
        if self.registered:
            self.split: str | None = split or DEFAULT_SPLIT
            get_corpus(self.corpus, data_dir=data_dir).check_split(self.split)
        else:
            if not Path(self.corpus).is_file():
                raise CwsBenchError(
                    f"{self.corpus!r} is neither a registered corpus nor a file",
                    f"registered corpora: {', '.join(corpus_names())}; or give the path of a "
                    "segmented file (plain, People's Daily, CoNLL-U or BMES)",
                )
            if split is not None:
                raise CwsBenchError(
                    f"{self.corpus}: a split ({split!r}) only applies to a registered corpus",
                    "leave out the split, or name a registered corpus",
                )
            self.split = None
        self.data: TrainingData | None = None

    @property
    def description(self) -> str:
        """``NAME:SPLIT`` for a registered corpus, the file name for a file."""
        if self.registered:
            return f"{self.corpus}:{self.split}"
        return os.path.basename(self.corpus)

    def _read(self) -> Iterator[list[str]]:
        if self.registered:
            assert self.split is not None
            return get_corpus(self.corpus, data_dir=self.data_dir).sentences(self.split)
        return read_corpus(self.corpus, format=self.format, encoding=self.encoding)

    def __iter__(self) -> Iterator[list[str]]:
        digest = SentenceDigest()
        count = 0
        for words in self._read():
            digest.add(words)
            if words:
                count += 1
                yield words
        self.data = TrainingData(
            description=self.description,
            corpus=self.corpus if self.registered else None,
            split=self.split,
            checksum=digest.hexdigest(),
            sentences=count,
        )


NO_STAND_IN = "none"
"""A ``fallback`` that turns the corpus' own stand-in off: absent training data skips the row."""


def _stand_in(
    corpus: str, split: str | None, fallback: str | dict[str, str] | None, data_dir: PathLike | None
) -> str | None:
    """What to train on in place of ``corpus``'s absent split: the ``fallback`` given
    (a ``NAME[:SPLITS]`` or a table of such by corpus name), else the registered
    corpus' own :attr:`~cws_bench.corpora.Corpus.training_stand_in` for its training split."""
    given = fallback.get(corpus) if isinstance(fallback, dict) else fallback
    if given:
        return None if given == NO_STAND_IN else given
    if (split or DEFAULT_SPLIT) != DEFAULT_SPLIT or not _registered(corpus):
        return None
    stand_in: str | None = get_corpus(corpus, data_dir=data_dir).training_stand_in
    return stand_in


def training_sources(
    corpus: str,
    split: str | None = None,
    fallback: str | dict[str, str] | None = None,
    *,
    segmenter: str,
    format: str = "auto",
    encoding: str = "utf-8",
    data_dir: PathLike | None = None,
) -> tuple[list[TrainingCorpus], str | None]:
    """What a segmenter trains on: ``corpus``/``split``, or what stands in when that is not here.

    What stands in is said once, with the corpus: ``sighan2005-pku``'s training
    split is People's Daily 1998 (``pd1998:train+test``, the same text and
    standard) when ``pku_training`` is absent. A ``fallback`` given overrides it
    (``"none"``: nothing stands in).

    >>> sources, note = training_sources("sample", "test", segmenter="hmm")
    >>> [source.description for source in sources], note
    (['sample:test'], None)

    Returns:
        The sources to read in turn, and None, or the note that says what stood in
        (``pd1998:train+test, in place of sighan2005-pku:train (not available here)``).

    Raises:
        CorpusUnavailableError: the data is not here and nothing stands in (the
            hint names the ``fallback`` option).
    """
    try:
        return [
            TrainingCorpus(corpus, split, format=format, encoding=encoding, data_dir=data_dir)
        ], None
    except CorpusUnavailableError as e:
        target = _stand_in(corpus, split, fallback, data_dir)
        if not target:
            raise CorpusUnavailableError(
                f"{segmenter} has no training data for {corpus}: {e.message}",
                f"{e.template}; or name data to train on instead with {{{len(e.fixes)}}}",
                fixes=(*e.fixes, Fix("fallback", metavar="CORPUS[:SPLITS]", segmenter=True)),
            ) from e
    name, splits = parse_corpus_spec(target)
    # data_dir is where ``corpus`` is, not the stand-in
    sources = [TrainingCorpus(name, part or None) for part in (splits or "").split("+")]
    described = f"{name}:{splits}" if splits else sources[0].description
    absent = f"{corpus}:{split or DEFAULT_SPLIT}"
    return sources, f"{described}, in place of {absent} (not available here)"


def train_on_sources(
    segmenter: Segmenter, sources: Sequence[TrainingCorpus], note: str | None
) -> None:
    """Train on what :func:`training_sources` found: one source as it is, or the sources
    that stand in for an absent split read as one, with the note in the segmenter's notes."""
    if len(sources) == 1 and note is None:
        segmenter.train(sources[0])
        return
    read = [sentence for source in sources for sentence in source]
    segmenter.train(read, combined_data(sources, note))
    notes = getattr(segmenter, "notes", None)
    if isinstance(notes, list):
        notes.append(f"trained on {note}")


def combined_data(sources: Sequence[TrainingCorpus], note: str | None) -> TrainingData:
    """One TrainingData for sentences read from one or more sources (after reading them)."""
    datas = [source.data for source in sources]
    if any(data is None for data in datas):
        raise ValueError("combined_data: read every source first")
    known = [data for data in datas if data is not None]
    first = known[0]
    if len(known) == 1 and note is None:
        return first
    same_corpus = all(d.corpus == first.corpus for d in known)
    checksum = (
        first.checksum
        if len(known) == 1
        else hash_hex("+".join(d.checksum or "" for d in known), "checksum")
    )
    return TrainingData(
        description=note or "+".join(d.description for d in known),
        corpus=first.corpus if same_corpus else None,
        split=first.split if len(known) == 1 else None,
        checksum=checksum,
        sentences=sum(d.sentences for d in known),
    )


def load_word_source(
    *,
    lexicon: PathLike | None = None,
    corpus: str | os.PathLike[str] | None = None,
    split: str | None = None,
    words: list[str] | None = None,
    encoding: str = "utf-8",
    data_dir: PathLike | None = None,
) -> tuple[Dictionary, TrainingData]:
    """The word list of a dictionary-based segmenter, from exactly one source.

    Args:
        lexicon: what ``--lexicon`` names (:func:`cws_bench.corpora.words.resolve_words`):
            a word list file (one word a line, or jieba's ``word freq tag``),
            ``jieba`` (jieba's bundled dictionary), or ``corpus:NAME[:SPLIT]``
            (the same as ``corpus=NAME, split=SPLIT``).
        corpus: a registered corpus (its standard dictionary, or with ``split``
            the word types of that split) or a segmented file (its word types).
        split: the split whose word types to take, for a registered corpus.
        words: the words themselves.
        encoding: the encoding of ``lexicon`` or of a corpus file.
        data_dir: where a registered corpus' data is (as ``get_corpus`` takes it).

    Returns:
        The dictionary and what it came from.

    Raises:
        CwsBenchError: no source or more than one, or a source that cannot be read.
    """
    given = [
        name
        for name, value in (("lexicon", lexicon), ("corpus", corpus), ("words", words))
        if value is not None
    ]
    if len(given) != 1:
        raise CwsBenchError(
            "a dictionary-based segmenter needs exactly one word source"
            + (f", got {' and '.join(given)}" if given else ""),
            "pass {0} (one word a line), or {1} to use the words of a corpus (e.g. {2} {3})",
            fixes=(
                Fix("lexicon", metavar="FILE", segmenter=True),
                Fix("corpus", metavar="NAME_OR_FILE", segmenter=True),
                Fix("corpus", "pd1998", segmenter=True),
                Fix("split", "train", segmenter=True),
            ),
        )
    if words is not None:
        if isinstance(words, str):
            raise CwsBenchError("words must be a list of words, not one string")
        found = resolve_words(words)
        if not found.dictionary.words:
            raise CwsBenchError("the word list is empty")
    elif lexicon is not None:
        found = resolve_words(lexicon, split=split, data_dir=data_dir, encoding=encoding)
    elif corpus is not None and _registered(os.fspath(corpus)):
        spec = f"{CORPUS_PREFIX}{os.fspath(corpus)}"
        found = resolve_words(spec, split=split, data_dir=data_dir)
    else:
        assert corpus is not None
        return _file_words(os.fspath(corpus), split, encoding)
    data = TrainingData(
        found.description,
        corpus=found.corpus,
        split=found.split,
        checksum=found.checksum,
        sentences=found.sentences,
    )
    return found.dictionary, data


def _file_words(path: str, split: str | None, encoding: str) -> tuple[Dictionary, TrainingData]:
    """The word types of a segmented file, and what they came from."""
    source = TrainingCorpus(path, split, encoding=encoding)
    words: set[str] = set()
    for sentence in source:
        words.update(sentence)
    assert source.data is not None
    if not words:
        raise CwsBenchError(f"{source.description}: no words to build a dictionary from")
    return Dictionary(frozenset(words), source.description), source.data


def training_data(
    sentences: Iterable[Sequence[str]], source: TrainingData | None, fallback: str
) -> TrainingData | None:
    """What a segmenter was trained on: ``source``, else what a TrainingCorpus recorded.

    Call it after iterating ``sentences``.
    """
    if source is not None:
        return source
    if isinstance(sentences, TrainingCorpus):
        return sentences.data
    return TrainingData(fallback)


def trains_with_seed(name: str) -> bool:
    """Whether training segmenter ``name`` draws on a ``seed`` option (``crf``: the
    perceptron's order; ``transformers``: the tagger's initialisation and batches).

    >>> trains_with_seed("crf"), trains_with_seed("hmm")
    (True, False)
    """
    cls = segmenter_class(name)
    declared = [d for d in (cls.Options, cls.training_options) if d is not None]
    return any(f.name == "seed" for d in declared for f in fields(d))


def seed_output(path: str, seed: int) -> str:
    """Where ``train --seeds`` writes the model of one seed: ``.seed<n>`` before a file's
    extension, after a folder's name.

    >>> seed_output("pku.crf.npz", 3), seed_output("models/pd1998-tagger", 1)
    ('pku.crf.seed3.npz', 'models/pd1998-tagger.seed1')
    """
    folder, name = os.path.split(path)
    stem, dot, suffix = name.rpartition(".")
    if not dot or not stem:
        return os.path.join(folder, f"{name}.seed{seed}")
    return os.path.join(folder, f"{stem}.seed{seed}.{suffix}")


def train_segmenter(
    name: str,
    corpus: str | os.PathLike[str],
    *,
    split: str | None = None,
    format: str = "auto",
    encoding: str = "utf-8",
    data_dir: PathLike | None = None,
    **options: Any,
) -> Segmenter:
    """Build a segmenter and train it on a registered corpus or a segmented file.

    >>> hmm = train_segmenter("hmm", "sample", split="test")
    >>> hmm.trained_on.description, hmm.trained_on.corpus
    ('sample:test', 'sample')

    ``name`` is a trainable segmenter (``hmm``, ``crf``, ``transformers``: a character
    tagger, see :mod:`cws_bench.segmenters.tagger_training`; ``fmm``/``bmm``/``bimm``
    learn a word list); the corpus is read as :class:`TrainingCorpus` reads it;
    ``options`` are the segmenter's other options.

    Raises:
        SegmenterError: the segmenter cannot be trained, or an unknown option.
        CwsBenchError: the corpus cannot be read.
    """
    cls = segmenter_class(name)
    build = getattr(cls, "from_training", None)
    if build is not None:  # a model built by training, not an adapter that learns (transformers)
        if cls.missing():
            raise SegmenterUnavailableError(
                name, f"no module named {cls.missing()[0]!r}", cls.install or ""
            )
        sentences = TrainingCorpus(
            corpus, split, format=format, encoding=encoding, data_dir=data_dir
        )
        trained: Segmenter = build(sentences, **options)
        return trained
    segmenter = get_segmenter(name, **options)
    if not segmenter.trainable:
        raise SegmenterError(
            name,
            "cannot be trained",
            "trainable segmenters: hmm, crf, transformers, and fmm/bmm/bimm (a word list)",
        )
    sources, note = training_sources(
        os.fspath(corpus),
        split,
        options.get("fallback"),  # crf's option, overriding the corpus' own stand-in
        segmenter=name,
        format=format,
        encoding=encoding,
        data_dir=data_dir,
    )
    train_on_sources(segmenter, sources, note)
    return segmenter


@dataclass(frozen=True)
class ModelOptions:
    """The options of every :class:`ModelSegmenter`: a saved model, or a corpus to train on."""

    model: str | None = option(None, "a model file written by save (cws-bench train NAME)")
    corpus: str | None = option(None, "a registered corpus name or a segmented file to train on")
    split: str | None = option(None, "the split of a registered corpus (default train)")
    format: str = option("auto", "of a corpus file", identity="changed")
    encoding: str = option("utf-8", "of a corpus file", identity="changed")
    data_dir: str | None = option(None, "where a registered corpus' data is")


def model_file(path: str | os.PathLike[str], segmenter: str) -> str:
    """The name of the model file at ``path``, for messages; raises :class:`CwsBenchError`
    when there is none (the hint trains one with ``cws-bench train segmenter``)."""
    name = display_name(path)
    if os.path.isdir(path):
        raise CwsBenchError(f"{name}: is a directory, expected a model file")
    if not os.path.exists(path):
        raise CwsBenchError(
            f"{name}: no such model file", f"train one: cws-bench train {segmenter} CORPUS -o MODEL"
        )
    return name


def model_format_error(
    source: str, segmenter: str, message: str, line: int | None = None
) -> CorpusFormatError:
    """A file that is not a model ``cws-bench train segmenter`` writes."""
    hint = f"give a model written by `cws-bench train {segmenter} CORPUS -o MODEL`"
    return CorpusFormatError(source, line, message, hint)


def check_model_header(
    data: Any, source: str, segmenter: str, form: str, version: int, what: str
) -> None:
    """Refuse a model file's content (a dict) that is not ``form`` in ``version``."""
    fail = functools.partial(model_format_error, source, segmenter)
    if not isinstance(data, dict) or data.get("format") != form:
        raise fail(f'not a cws-bench {what} model (no "format": "{form}")')
    if data.get("version") != version:
        raise fail(
            f"model format version {data.get('version')!r}; this cws-bench reads version {version}"
        )


class ModelSegmenter(Segmenter):
    """A segmenter whose model cws-bench trains (``cws-bench train NAME``): ``hmm``, ``crf``.

    ``model`` is None until the segmenter is trained or loaded (``__init__`` loads the
    ``model`` option's file, or trains on its ``corpus``); the model has ``save(path)``,
    and :attr:`model_class` ``load(path)``. Subclasses implement :meth:`train`, may
    extend :meth:`_use`, and declare their Options as a subclass of :class:`ModelOptions`.
    """

    model: Any = None
    model_class: ClassVar[Any] = None
    """The class of the model, whose ``load(path)`` reads what its ``save`` wrote."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.notes: list[str] = []  # shown with the bake-off's warnings
        if self.opts.model is not None:
            self._use(self.model_class.load(self.opts.model))
        elif self.opts.corpus is not None:
            opts, fallback = self.opts, getattr(self.opts, "fallback", None)  # crf's
            found = training_sources(
                opts.corpus,
                opts.split,
                fallback,
                segmenter=self.name,
                format=opts.format,
                encoding=opts.encoding,
                data_dir=opts.data_dir,
            )
            train_on_sources(self, *found)

    def _use(self, model: Any) -> None:
        """Segment with ``model`` (trained or loaded) from now on."""
        self.model = model
        self.trained_on = model.trained_on

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the model file (see the subclass' module docstring for its format)."""
        if self.model is None:
            raise SegmenterError(self.name, "has no model to save", "train it first")
        self.model.save(path)

    def load(self, path: str | os.PathLike[str]) -> Segmenter:
        """Use the model saved at ``path``; its file replaces the training data in the options."""
        self._use(self.model_class.load(path))
        for key in ("corpus", "split"):
            self.options.pop(key, None)
        self.options["model"] = os.fspath(path)
        return self

    @classmethod
    def model_problem(cls, options: Mapping[str, Any]) -> tuple[str, str] | None:
        """A ``model`` file that is not there, both a model and a corpus to train on, or a
        split without its corpus."""
        model, corpus = options.get("model"), options.get("corpus")
        if model is not None and corpus is not None:
            return ("give a model or a corpus to train on, not both", "drop one of them")
        if model is None and corpus is None and options.get("split") is not None:
            return ("split needs a corpus", "pass corpus=NAME too")
        if model is None or os.path.exists(os.fspath(model)):
            return None
        return (
            f"model file {os.fspath(model)}: no such file",
            f"train one (cws-bench train {cls.name} CORPUS -o MODEL) or fix the path",
        )

    def check_ready(self) -> None:
        if self.model is None:
            raise SegmenterError(
                self.name,
                "is not trained",
                f"train it (cws-bench train {self.name} CORPUS -o MODEL) and pass {{0}}, "
                "or pass {1}",
                fixes=(
                    Fix("model", metavar="MODEL", segmenter=True),
                    Fix("corpus", metavar="NAME_OR_FILE", segmenter=True),
                ),
            )
