"""The segmenter protocol: one small class that every adapter subclasses.

A :class:`Segmenter` has a ``name``, a ``version``, metadata (``kind``,
``trained_on``, ``options``) and one method callers use,
:meth:`Segmenter.segment`, which takes a batch of raw sentences and returns
one list of words per sentence. Adapters implement :meth:`Segmenter._segment`;
``segment`` wraps it with the one check every adapter must pass, so no
adapter can skip it.

The lossless-join guarantee
---------------------------
For every input line ``line`` and its output words ``words``:

1. there is exactly one word list per input line;
2. tokens that are empty or whitespace only (jieba returns ``" "`` for a
   space) are dropped;
3. no remaining word contains whitespace (any character for which
   ``str.isspace()`` is true, so the ideographic space U+3000 too);
4. the words joined equal the line with its whitespace removed:
   ``"".join(words) == "".join(line.split())``.

Whitespace in the input is never part of a word, and it is dropped from
the output exactly as a segmented file (words separated by whitespace)
drops it. So an English name in a Chinese sentence, ``他说 Hello World 了``,
comes back as ``他 说 Hello World 了`` from most segmenters; never with a
word holding the space, ``Hello World`` (3 fails), nor with ``World``
normalised to ``world`` (4 fails). A segmenter that ignores the space and
returns ``HelloWorld`` passes the check (the words join back to the line
without whitespace), and scoring counts that word as it is. Blank lines are
not sent to the adapter at all: their segmentation is ``[]``.

A line that breaks the guarantee raises :class:`SegmenterOutputError`,
naming the segmenter, the line and the first character that differs.
"""

from __future__ import annotations

import collections.abc
import contextlib
import functools
import importlib.metadata
import logging
import os
import types
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import PurePath
from typing import Any, ClassVar, Literal, Union, get_args, get_origin, get_type_hints

from cws_bench import __version__
from cws_bench.defaults import BOUNDS, Bounds
from cws_bench.display.units import plural
from cws_bench.errors import CwsBenchError, Fix, SegmenterError
from cws_bench.suggest import close_names, did_you_mean
from cws_bench.system.installed import missing_modules

__all__ = [
    "KINDS",
    "Kind",
    "Segmenter",
    "SegmenterOutputError",
    "TrainingData",
    "check_option_names",
    "check_segmentation",
    "describe_options",
    "identity_options",
    "option",
    "parse_options",
    "path_problem",
    "plain_options",
]

Kind = Literal["dictionary", "statistical", "pretrained", "external"]
KINDS: tuple[str, ...] = ("dictionary", "statistical", "pretrained", "external")
"""What a segmenter is: built from a word list, trained by cws-bench, shipped trained, or
``external``: a program or a file of segmentations made elsewhere, whose kind cws-bench
cannot know (the ``command`` and ``file`` segmenters, unless their ``kind`` option says)."""

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TrainingData:
    """What a segmenter learned from, so a report can warn when it is scored on it.

    Attributes:
        description: for people, e.g. ``pd1998:train`` or ``pku_training_words.utf8``.
        corpus: the registry name of the corpus, when it is a registered one.
        split: the corpus split, when known.
        checksum: :func:`cws_bench.corpora.sentences_checksum` of the training
            sentences, or the :attr:`~cws_bench.text.dictionary.Dictionary.checksum`
            of a word list; None when unknown.
        sentences: how many training sentences (0 for a word list).
    """

    description: str
    corpus: str | None = None
    split: str | None = None
    checksum: str | None = None
    sentences: int = 0

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict in field order."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrainingData:
        """The inverse of :meth:`to_dict` (unknown keys are ignored)."""
        known = {key: data[key] for key in cls.__dataclass_fields__ if key in data}
        return cls(**known)

    def overlaps(self, corpus: str, split: str | None = None, checksum: str | None = None) -> bool:
        """Whether scoring on ``corpus``/``split`` (or data with ``checksum``) scores on this data.

        >>> TrainingData("pd1998:train", "pd1998", "train").overlaps("pd1998", "train")
        True
        >>> TrainingData("pd1998:train", "pd1998", "train").overlaps("pd1998", "test")
        False
        >>> TrainingData("snownlp's model", "pd1998").overlaps("pd1998", "test")
        True
        """
        if checksum is not None and checksum == self.checksum:
            return True
        if self.corpus is None or corpus != self.corpus:
            return False
        return self.split is None or split is None or split == self.split


def plain_options(options: dict[str, Any]) -> dict[str, Any]:
    """Options as JSON/TOML-able values: paths become strings, None values are dropped.

    >>> from pathlib import Path
    >>> plain_options({"dictionary": Path("words.txt"), "corpus": None, "keep_runs": True})
    {'dictionary': 'words.txt', 'keep_runs': True}
    """
    plain = {}
    for key, value in options.items():
        if value is None:
            continue
        if isinstance(value, PurePath):
            value = os.fspath(value)
        elif isinstance(value, tuple):
            value = list(value)
        plain[key] = value
    return plain


# -- options, declared once ----------------------------------------------------

RENAMED_OPTIONS = {
    "dictionary": (
        "lexicon",
        "a segmenter's word list is `lexicon` (--lexicon); `dictionary` is a corpus' "
        "OOV dictionary",
    ),
}
"""Segmenter options renamed: old name -> (new name, why), answered by "did you mean"."""

Identity = bool | Literal["changed"] | Callable[[Any], bool]
"""When an option is part of the segmenter's identity (see :func:`option`)."""

_TRUE, _FALSE = ("true", "yes", "on", "1"), ("false", "no", "off", "0")
_WORDS: dict[Any, str] = {bool: "true or false", int: "a whole number", float: "a number"}
_WORDS.update({str: "text", Literal: "text", dict: "a table", collections.abc.Mapping: "a table"})
_WORDS.update({list: "a list", tuple: "a list", collections.abc.Sequence: "a list"})


def option(
    default: Any = None,
    help: str = "",
    *,
    bounds: str | Bounds | None = None,
    choices: Sequence[Any] | None = None,
    identity: Identity = True,
    file: str | None = None,
    folder: str | None = None,
) -> Any:
    """One field of an adapter's ``Options`` dataclass: its ``default`` (immutable), one
    line of ``help``, its ``bounds`` (a key of :data:`cws_bench.defaults.BOUNDS` or a
    :class:`Bounds`), ``choices`` (a ``Literal`` type's values are its choices), and
    whether it is part of the segmenter's ``identity`` (:attr:`Segmenter.options`, cache
    keys, signatures): always (True), never (False), when not the default (``"changed"``),
    or when a function of the parsed options says so (``llm``'s ``device``: only for a
    local model; its docstring's first line says when, for :func:`describe_options`).
    A ``file`` (or ``folder``) option names one that must be there, called so in the
    message of :meth:`Segmenter.model_problem`.
    """
    bounds = BOUNDS[bounds] if isinstance(bounds, str) else bounds
    choices = tuple(choices) if choices is not None else None
    meta = {"help": help, "bounds": bounds, "choices": choices, "identity": identity}
    meta.update(path=file or folder, folder=folder is not None)
    return field(default=default, metadata=meta)


def _members(hint: Any) -> tuple[Any, ...]:
    return get_args(hint) if get_origin(hint) in (Union, types.UnionType) else (hint,)


def _instance(value: Any, hint: Any) -> bool:
    """Whether ``value`` already has the type ``hint`` names (no conversion needed)."""
    origin = get_origin(hint) or hint
    if hint is Any or origin in (Union, types.UnionType):
        return hint is Any or any(_instance(value, member) for member in get_args(hint))
    if origin in (int, float) and isinstance(value, bool):
        return False
    if origin is float or origin is Literal:  # a Literal's values: checked as its choices
        return isinstance(value, (int, float) if origin is float else str)
    if origin is collections.abc.Callable:
        return callable(value)
    if origin in (list, tuple, collections.abc.Sequence):
        return isinstance(value, (list, tuple))
    return value is None if hint is type(None) else isinstance(value, origin)


def _converted(value: Any, hint: Any) -> Any:
    """``value`` as ``hint`` from the text a command line or a TOML file gives; raises
    ValueError when it cannot be."""
    if _instance(value, hint):
        return value
    if type(None) in _members(hint) and isinstance(value, str) and value.strip() == "null":
        return None  # as -O reads JSON; an {env:NAME} placeholder gives text
    for member in _members(hint):
        if member is bool and isinstance(value, str) and value.lower() in (*_TRUE, *_FALSE):
            return value.lower() in _TRUE
        if member in (int, float) and isinstance(value, str):
            with contextlib.suppress(ValueError):
                return member(value)
        if member is str and isinstance(value, os.PathLike):
            return os.fspath(value)
        if member is str and isinstance(value, int | float) and not isinstance(value, bool):
            return str(value)  # a version or a name read as a number from -O or TOML
    raise ValueError(value)


def _kind_of(hint: Any) -> str:
    """A type in words, for messages: ``a whole number``, ``true or false``..."""
    said = [
        _WORDS.get(member) or _WORDS.get(get_origin(member), str(member))
        for member in _members(hint)
        if member is not type(None)
    ]
    return " or ".join(dict.fromkeys(said))


def _choices(spec: Any, hint: Any) -> Sequence[Any] | None:
    """A field's choices: its ``choices``, else the values of its ``Literal`` type."""
    literal = [m for m in _members(hint) if get_origin(m) is Literal]
    return spec.metadata.get("choices") or (get_args(literal[0]) if literal else None)


@functools.cache
def _hints(declared: type) -> dict[str, Any]:
    return get_type_hints(declared)


def check_option_names(
    segmenter: str, options: Iterable[str], known: Sequence[str], what: str = "option"
) -> None:
    """Refuse the first name of ``options`` not ``known``, with the closest known one (or
    the new name of a renamed one, :data:`RENAMED_OPTIONS`) and the list."""
    renamed = {old: pair for old, pair in RENAMED_OPTIONS.items() if pair[0] in known}
    for key in options:
        if key in known:
            continue
        close = close_names(key, [*known, *renamed], n=1)
        if key in renamed or (close and close[0] in renamed):
            new, why = renamed[key if key in renamed else close[0]]
            raise SegmenterError(segmenter, f"no {what} {key!r}", f"did you mean {new}? ({why})")
        near = f"did you mean {close[0]}? " if close else ""
        raise SegmenterError(
            segmenter,
            f"no {what} {key!r}",
            f"{near}its {what}s are: {', '.join(known) or '(none)'}",
        )


def parse_options(
    declared: type, options: Mapping[str, Any], segmenter: str, *, what: str = "option"
) -> Any:
    """The one parser of a segmenter's (or a trainer's) options: ``declared(**options)``,
    checked.

    Unknown names are answered with the closest known one (and the renamed ones with
    their new name); values are converted to their field's annotation when given as text
    (``-O batch_size=64``, ``-O hmm=no``, ``null`` for an optional number or switch), then
    checked against the field's bounds and choices. Every failure is one
    :class:`SegmenterError` of the form ``segmenter NAME: KEY must be ..., not VALUE``,
    which says the whole range of a bounded field.
    """
    check_option_names(segmenter, options, [f.name for f in fields(declared)], what)
    hints = _hints(declared)
    values = {}
    for spec in fields(declared):
        if spec.name not in options:
            continue
        value, meta = options[spec.name], spec.metadata
        try:
            value = _converted(value, hints[spec.name])
        except ValueError:
            bounds = meta.get("bounds")
            accepts = bounds.describe() if bounds else _kind_of(hints[spec.name])
            raise SegmenterError(
                segmenter, f"{spec.name} must be {accepts}, not {value!r}"
            ) from None
        numeric = isinstance(value, (int, float)) and meta.get("bounds")  # of a number only
        if numeric and (problem := meta["bounds"].problem(value)):
            raise SegmenterError(segmenter, f"{spec.name} {problem}")
        choices = _choices(spec, hints[spec.name])
        if choices is not None and value is not None and value not in choices:
            raise SegmenterError(
                segmenter,
                f"{spec.name} must be one of {', '.join(map(str, choices))}, not {value!r}",
                did_you_mean(str(value), map(str, choices), n=1),
            )
        values[spec.name] = value
    return declared(**values)


def identity_options(parsed: Any) -> dict[str, Any]:
    """The fields of parsed options that make the segmenter's identity (see :func:`option`)."""
    out = {}
    for spec in fields(parsed):
        identity, value = spec.metadata.get("identity", True), getattr(parsed, spec.name)
        if callable(identity):
            identity = identity(parsed)
        if identity is True or (identity == "changed" and value != spec.default):
            out[spec.name] = value
    return plain_options(out)


def path_problem(what: str, path: str | None, *, folder: bool = False) -> tuple[str, str] | None:
    """A model check's answer for a file (or folder) option that names nothing there."""
    if path is None or (os.path.isdir(path) if folder else os.path.isfile(path)):
        return None
    return (f"{what} {path}: no such {'folder' if folder else 'file'}", "check the path")


def describe_options(declared: type) -> list[dict[str, Any]]:
    """Each option of a declaration: name, type, default, range or choices, help (JSON-safe)."""
    hints = _hints(declared)
    rows = []
    for spec in fields(declared):
        choices, bounds = _choices(spec, hints[spec.name]), spec.metadata.get("bounds")
        accepts = bounds.describe() if bounds else None
        rows.append(
            {
                "name": spec.name,
                "type": _kind_of(hints[spec.name]),
                "default": plain_options({"v": spec.default}).get("v"),
                "accepts": "one of " + ", ".join(map(str, choices)) if choices else accepts,
                "identity": _identity_said(spec.metadata.get("identity", True)),
                "help": spec.metadata.get("help", ""),
            }
        )
    return rows


def _identity_said(identity: Identity) -> bool | str:
    """:func:`option`'s ``identity`` for people: a function by its docstring's first line."""
    if callable(identity):
        return (identity.__doc__ or identity.__name__).strip().splitlines()[0]
    return identity


class SegmenterOutputError(SegmenterError):
    """An adapter's output broke the lossless-join guarantee on one line.

    Attributes:
        index: the 0-based index of the line in its batch.
        detail: what is wrong, without the location.
    """

    def __init__(self, segmenter: str, index: int, detail: str, where: str | None = None) -> None:
        location = where or f"line {index + 1} of the batch"
        super().__init__(
            segmenter,
            f"{location}: {detail}",
            "an adapter must return, for each input line, words that joined give back the "
            "line without its whitespace (see cws_bench/segmenters/base.py)",
        )
        self.index = index
        self.detail = detail

    def relocate(self, source: str, first_line: int) -> SegmenterOutputError:
        """The same error located in a file whose batch started at line ``first_line``."""
        return SegmenterOutputError(
            self.segmenter,
            self.index,
            self.detail,
            f"{source}:{first_line + self.index}",
        )


def _clip(text: str, position: int, width: int = 12) -> str:
    start = max(position - width, 0)
    prefix = "…" if start else ""
    suffix = "…" if position + width < len(text) else ""
    return prefix + text[start : position + width] + suffix


def _first_difference(left: str, right: str) -> int:
    for position, (a, b) in enumerate(zip(left, right)):
        if a != b:
            return position
    return min(len(left), len(right))


def _line_error(name: str, index: int, line: str, words: list[str]) -> SegmenterOutputError:
    for word in words:
        if not isinstance(word, str):
            return SegmenterOutputError(
                name, index, f"returned a {type(word).__name__} where a word (str) was expected"
            )
    for word in words:
        if not word.isspace() and any(character.isspace() for character in word):
            return SegmenterOutputError(name, index, f"word {word!r} contains whitespace")
    expected = "".join(line.split())
    joined = "".join(word for word in words if not word.isspace())
    position = _first_difference(expected, joined)
    return SegmenterOutputError(
        name,
        index,
        f"the words joined are not the input line: at character {position + 1}, "
        f"input {_clip(expected, position)!r}, words give {_clip(joined, position)!r}",
    )


def check_segmentation(
    name: str, lines: Sequence[str], output: Sequence[Iterable[str]]
) -> list[list[str]]:
    """Check an adapter's output against the lossless-join guarantee; return it cleaned.

    Whitespace-only and empty tokens are dropped; everything else must join
    back to the line without its whitespace.

    >>> check_segmentation("demo", ["他说 OK 了"], [["他", "说", " ", "OK", "了"]])
    [['他', '说', 'OK', '了']]
    >>> try:
    ...     check_segmentation("demo", ["他说了"], [["他", "说"]])
    ... except SegmenterOutputError as e:
    ...     print(e.detail)
    the words joined are not the input line: at character 3, input '他说了', words give '他说'

    Raises:
        SegmenterError: a different number of output lines.
        SegmenterOutputError: a line whose words break the guarantee.
    """
    if len(output) != len(lines):
        raise SegmenterError(
            name,
            f"returned {plural(len(output), 'segmented line')} for a batch of {len(lines)}",
            "an adapter must return exactly one list of words per input line",
        )
    checked: list[list[str]] = []
    for index, (line, words) in enumerate(zip(lines, output)):
        if not isinstance(words, list):
            if isinstance(words, str):
                raise SegmenterOutputError(
                    name, index, "returned a string where a list of words was expected"
                )
            words = list(words)
        try:
            joined = "".join(words)
        except TypeError:
            raise _line_error(name, index, line, words) from None
        # Fast path: C-level join and compare. Equality with the line without
        # its whitespace also proves that no word holds whitespace.
        if joined != "".join(line.split()):
            words = [word for word in words if not word.isspace()]
            if "".join(words) != "".join(line.split()):
                raise _line_error(name, index, line, words)
        if "" in words:
            words = [word for word in words if word]
        checked.append(words)
    return checked


class Segmenter(ABC):
    """A word segmenter: the one interface every adapter, built in or third party, offers.

    Subclasses set the class attributes and implement :meth:`_segment`; the
    trainable ones also implement :meth:`train`, :meth:`save` and
    :meth:`load`. They import their third-party library inside ``__init__``
    (never at module import), so listing adapters stays cheap.

    Class attributes:
        name: the default registry name (``get_segmenter`` sets the one it
            was asked for, e.g. ``jieba-nohmm``).
        kind: ``dictionary``, ``statistical`` or ``pretrained``.
        description: one line for ``cws-bench segmenters``.
        requires: top-level modules the adapter imports; it is available when
            all can be found.
        distribution: the PyPI distribution whose version is the adapter's
            version (None: cws-bench's own version).
        install: the exact command that installs what is missing.
        has_speed: False for an adapter that only reads segmentations made
            elsewhere (``file``): the time it takes is no segmenter's speed,
            so the bake-off records none.
        independent_lines: each line's words depend on that line alone, never
            on the other lines of its batch, so a sharded run may cut between
            any two lines (finer shards balance a slow segmenter's work across
            workers); False cuts only between whole batches, as an unsharded
            run makes them.

    Instance attributes:
        options: the options it was built with, as JSON/TOML-able values;
            ``get_segmenter(name, **options)`` builds an equal segmenter.
        trained_on: what it learned from, or None.
    """

    name: ClassVar[str] = "segmenter"
    kind: ClassVar[Kind] = "statistical"
    description: ClassVar[str] = ""
    requires: ClassVar[tuple[str, ...]] = ()
    distribution: ClassVar[str | None] = None
    install: ClassVar[str | None] = None
    has_speed: ClassVar[bool] = True
    independent_lines: ClassVar[bool] = False

    Options: ClassVar[type | None] = None
    """The adapter's options, declared once: a frozen dataclass of :func:`option` fields.
    ``__init__`` parses the caller's options with it into :attr:`opts`, checks the model
    (:meth:`load_problem`) and keeps the identity fields as :attr:`options`. None: the
    keywords an adapter passes up are recorded as they are."""

    training_options: ClassVar[type | None] = None
    """The declaration of ``from_training(sentences, **options)``'s options (``transformers``)."""

    opts: Any = None
    """The parsed :attr:`Options`."""

    identity: dict[str, Any] | None = None
    """What the loaded model is and where it runs: ``metadata()["model"]``."""

    def __init__(self, **options: Any) -> None:
        self.trained_on: TrainingData | None = None
        if self.Options is None:
            self.options: dict[str, Any] = plain_options(options)
            return
        self.opts = parse_options(self.Options, options, self.name)
        problem = self.load_problem({f.name: getattr(self.opts, f.name) for f in fields(self.opts)})
        if problem is not None:
            raise SegmenterError(self.name, *problem)
        self.options = identity_options(self.opts)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "segment" in cls.__dict__:
            raise TypeError(
                f"{cls.__name__} overrides segment(); implement _segment() instead so that "
                "the lossless-join check runs"
            )

    # -- what callers use -----------------------------------------------------

    def segment(self, lines: Sequence[str]) -> list[list[str]]:
        """Segment a batch of raw sentences (no line end needed): one list of words per line,
        ``[]`` for a blank line.

        Raises:
            SegmenterError: the adapter failed, or returned a different
                number of lines.
            SegmenterOutputError: a line's words do not give back the line
                (see the module docstring).
        """
        if isinstance(lines, str):
            raise TypeError("segment() takes a list of lines, not a str")
        lines = list(lines)
        todo = [index for index, line in enumerate(lines) if line and not line.isspace()]
        self.__last = (todo, len(lines))
        if len(todo) == len(lines):
            return check_segmentation(self.name, lines, self.__run(lines))
        batch = [lines[index] for index in todo]
        try:
            words = check_segmentation(self.name, batch, self.__run(batch) if batch else [])
        except SegmenterOutputError as e:
            raise SegmenterOutputError(self.name, todo[e.index], e.detail) from None
        result: list[list[str]] = [[] for _ in lines]
        for index, sentence in zip(todo, words):
            result[index] = sentence
        return result

    def diagnostics(self) -> list[dict[str, Any] | None] | None:
        """Per-line diagnostics of the last :meth:`segment` call, or None when the adapter
        keeps none.

        One entry per line of that call, None for a blank line (never sent to
        the adapter). An adapter that has something to say about each line
        (``llm``: how far the model's reply strayed from the text, and its
        request's timing) implements :meth:`_diagnostics`; callers (``segment
        --fidelity``, the bake-off) read this without knowing the adapter.
        """
        per_line = self._diagnostics()
        last = getattr(self, "_Segmenter__last", None)
        if per_line is None or last is None:
            return None
        todo, size = last
        out: list[dict[str, Any] | None] = [None] * size
        for index, record in zip(todo, per_line):
            out[index] = record
        return out

    def _diagnostics(self) -> list[dict[str, Any]] | None:
        """The adapter's records of the non-blank lines of its last ``_segment`` batch."""
        return None

    def __run(self, lines: list[str]) -> list[list[str]]:
        # Name-mangled, so that an adapter's own _run() cannot shadow it.
        try:
            return self._segment(lines)
        except SegmenterOutputError as e:
            if e.segmenter != self.name:
                raise SegmenterOutputError(self.name, e.index, e.detail) from e
            raise
        except CwsBenchError:
            raise
        except Exception as e:  # a library that crashes on some input is a user-facing error
            log.debug("segmenter %s failed", self.name, exc_info=True)
            raise SegmenterError(
                self.name,
                f"failed on a batch of {plural(len(lines), 'line')}: {type(e).__name__}: {e}",
                "segment smaller batches ({0}) to find the line that breaks it",
                fixes=(Fix("batch_size"),),
            ) from e

    @property
    def version(self) -> str:
        """The version of the code that segments: the library's, or cws-bench's."""
        return self.library_version() or "unknown"

    def check_ready(self) -> None:
        """Raise :class:`SegmenterError` when the segmenter cannot segment yet.

        Trainable adapters built without a model override this; runners call
        it before reading any input, so an untrained segmenter fails first.
        """
        return None

    @property
    def trainable(self) -> bool:
        """Whether this adapter implements :meth:`train`."""
        return type(self).train is not Segmenter.train

    def metadata(self) -> dict[str, Any]:
        """Name, version, kind, description, training data, options and the model's
        :attr:`identity` when there is one (JSON-safe)."""
        return {
            "name": self.name,
            "version": self.version,
            "kind": self.kind,
            "description": self.description,
            "trained_on": self.trained_on.to_dict() if self.trained_on else None,
            "options": dict(self.options),
            **({} if self.identity is None else {"model": dict(self.identity)}),
        }

    def __repr__(self) -> str:
        options = ", ".join(f"{key}={value!r}" for key, value in self.options.items())
        return f"<{type(self).__name__} {self.name}({options})>"

    # -- what adapters implement ----------------------------------------------

    @abstractmethod
    def _segment(self, lines: list[str]) -> list[list[str]]:
        """Segment non-blank lines; the result is checked by :meth:`segment`."""

    def train(self, sentences: Iterable[Sequence[str]], source: TrainingData | None = None) -> None:
        """Learn from gold sentences (lists of words); ``source`` says what they are
        (:attr:`trained_on`). This one cannot learn: it raises :class:`SegmenterError`."""
        raise SegmenterError(self.name, "cannot be trained", "train the 'hmm' segmenter instead")

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the trained model to ``path`` (atomically)."""
        raise SegmenterError(self.name, "has no model to save")

    def load(self, path: str | os.PathLike[str]) -> Segmenter:
        """Replace the model with the one saved at ``path``; returns self."""
        raise SegmenterError(self.name, "has no model to load")

    # -- availability ---------------------------------------------------------

    @classmethod
    def missing(cls) -> list[str]:
        """The modules in :attr:`requires` that cannot be found here."""
        return missing_modules(*cls.requires)

    @classmethod
    def model_problem(cls, options: Mapping[str, Any]) -> tuple[str, str] | None:
        """Why the model these options name is not here (message, how to get it), or None.

        The one model check: ``__init__`` calls it first (with every option, defaults
        filled in), the bake-off before it starts and ``cws-bench segmenters`` with the
        preset options, loading nothing. This default checks the ``file`` and ``folder``
        options (:func:`option`).
        """
        if cls.Options is None:
            return None
        opts = cls.parsed(options)
        for f in fields(opts):
            what = f.metadata.get("path")
            problem = what and path_problem(
                what, getattr(opts, f.name), folder=f.metadata["folder"]
            )
            if problem:
                return problem
        return None

    @classmethod
    def load_problem(cls, options: Mapping[str, Any]) -> tuple[str, str] | None:
        """What ``__init__`` checks first: :meth:`model_problem`, unless the load may fetch
        what is missing (a hub name), when only what no fetch can mend is a problem."""
        return cls.model_problem(options)

    @classmethod
    def parsed(cls, options: Mapping[str, Any]) -> Any:
        """``options`` parsed by :attr:`Options` (defaults filled in), for a model check."""
        assert cls.Options is not None, f"{cls.__name__} declares no Options"
        return parse_options(cls.Options, options, cls.name)

    @classmethod
    def library_version(cls) -> str | None:
        """The installed version of :attr:`distribution` (cws-bench's when None), or None."""
        if cls.distribution is None:
            return __version__
        try:
            return importlib.metadata.version(cls.distribution)
        except importlib.metadata.PackageNotFoundError:
            return None
