"""Prompted LLMs as segmenters: any OpenAI-compatible chat endpoint, or a local causal LM.

``llm`` asks a model to segment each line ("请对下列文本进行分词…"), reads the
words out of its reply, and makes them the line's words whatever the reply
did to the text (:mod:`cws_bench.segmenters.llm_align`: the reply aligned to the line,
its boundaries projected onto it; ``on_altered``). Every line is one request
(``independent_lines``). See docs/LLM.md.

The model is reached through a backend (:mod:`cws_bench.segmenters.llm_backends`:
``openai``, an OpenAI-compatible chat endpoint with its retries, deadlines and size
bounds; ``transformers``, a local causal LM); this module builds the messages, keeps
the reply cache and reads the replies back, the same for both.

Cache
-----
Each successful reply is kept in ``$CWS_BENCH_LLM_CACHE`` (default: the
``llm`` folder of cws-bench's cache folder), one JSON file per request named
by a BLAKE2b hash of the backend, the endpoint, the model (a local model by
its folder's checksum), the full messages (prompt, shots and text) and the
generation parameters, written atomically; each file also holds what it
answers (that request's content), checked on read: a file whose request is
not the one asked is not served (the request is sent again and the file
replaced). A rerun reads the replies back and sends nothing. ``cache=False``
neither reads nor writes it.

Diagnostics and requests
------------------------
After :meth:`~cws_bench.segmenters.base.Segmenter.segment`,
:meth:`~cws_bench.segmenters.base.Segmenter.diagnostics` gives one record
per line: the fidelity counts (:class:`~cws_bench.segmenters.llm_align.LineFidelity`),
``cached``, ``request`` (``start``, ``first_token``, ``end`` as Unix times,
``input_tokens``, ``output_tokens`` as the server's ``usage`` counts them,
``attempts``; None for a reply from the cache: no request was sent) and
``cost`` (from ``price_in``/``price_out``, per million tokens).
"""

from __future__ import annotations

import contextlib
import hashlib
import inspect
import json
import math
import os
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cws_bench.errors import SegmenterError
from cws_bench.metrics.units import plural
from cws_bench.segmenters.base import Segmenter, TrainingData
from cws_bench.segmenters.llm_backends import (
    Backend,
    ChatEndpoint,
    LocalModel,
    Reply,
    Request,
    api_key,
)

__all__ = [
    "BACKENDS",
    "CACHE_VARIABLE",
    "DEFAULT_PROMPT",
    "LLMSegmenter",
    "ResponseCache",
]

DEFAULT_PROMPT = (
    "请对下列文本进行分词，词之间以空格隔开。不要增加、删除或改动任何字符，只输出分词结果。\n{text}"
)
"""The default prompt: the instruction Zhang et al. (2025, "Segment First or Comprehend
First?", code hkr04/LLACA) and others give models in Chinese ("segment the following
text, words separated by spaces"), plus a request not to change the text; ``{text}``
is the line."""

BACKENDS = ("openai", "transformers")
CACHE_VARIABLE = "CWS_BENCH_LLM_CACHE"
SHOT_CHARS = (5, 80)  # the lengths (characters) of the training sentences shots are drawn from


class ResponseCache:
    """Replies on disk, one JSON file per request, named by the hash of what was asked."""

    def __init__(self, folder: str | os.PathLike[str] | None = None) -> None:
        if folder is None:
            folder = os.environ.get(CACHE_VARIABLE) or None
        if folder is None:
            from cws_bench.corpora.download import cache_dir

            folder = cache_dir() / "llm"
        self.folder = Path(folder)
        self._root = os.fspath(self.folder)

    @staticmethod
    def key(material: Mapping[str, Any]) -> str:
        """The hash of a request's content (sorted JSON, BLAKE2b, 32 hex digits)."""
        text = json.dumps(material, sort_keys=True, ensure_ascii=False)
        return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()

    def _path(self, key: str) -> str:
        return os.path.join(self._root, key[:2], key + ".json")

    def get(self, key: str, material: Mapping[str, Any]) -> Reply | None:
        """The reply kept under ``key``, or None: a damaged file, or one whose recorded
        request is not ``material`` (a file moved or copied under another key), counts
        as none."""
        try:
            with open(self._path(key), "rb") as f:
                data = json.loads(f.read())
            if data.get("request") != _plain(material):
                return None
            return Reply(
                str(data["text"]),
                data.get("input_tokens"),
                data.get("output_tokens"),
                cached=True,
            )
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def put(self, key: str, reply: Reply, material: Mapping[str, Any]) -> None:
        """Keep a reply with the request it answers (atomically: a reader never sees half
        a file)."""
        from cws_bench.text.io import atomic_write

        path = self._path(key)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        data = {
            "request": _plain(material),
            "text": reply.text,
            "input_tokens": reply.input_tokens,
            "output_tokens": reply.output_tokens,
        }
        with atomic_write(path) as f:
            f.write(json.dumps(data, ensure_ascii=False))


def _plain(material: Mapping[str, Any]) -> Any:
    """``material`` as it reads back from JSON (what a cache file's ``request`` holds)."""
    return json.loads(json.dumps(material, sort_keys=True, ensure_ascii=False))


@dataclass
class _Shots:
    """Few-shot examples: (raw text, words joined by spaces) pairs, and where they came from."""

    pairs: list[tuple[str, str]] = field(default_factory=list)
    data: TrainingData | None = None


def _draw_shots(corpus: str, count: int, seed: int, data_dir: str | None) -> _Shots:
    """``count`` sentences of 5 to 80 characters from ``corpus``' training split, seeded."""
    from cws_bench.segmenters.sources import TrainingCorpus

    source = TrainingCorpus(corpus, data_dir=data_dir)
    low, high = SHOT_CHARS
    pool = [words for words in source if low <= sum(map(len, words)) <= high]
    if len(pool) < count:
        raise SegmenterError(
            "llm",
            f"{source.description} has {plural(len(pool), 'sentence')} of {low}-{high} "
            f"characters, fewer than the {plural(count, 'shot')} asked for",
        )
    chosen = random.Random(seed).sample(pool, count)
    assert source.data is not None
    data = TrainingData(
        f"{plural(count, 'shot')} from {source.description} (seed {seed})",
        source.data.corpus,
        source.data.split,
        source.data.checksum,
        source.data.sentences,
    )
    return _Shots([("".join(words), " ".join(words)) for words in chosen], data)


class LLMSegmenter(Segmenter):
    """A prompted LLM as a segmenter (see the module docstring and docs/LLM.md).

    Args:
        backend: ``openai`` (an OpenAI-compatible chat endpoint) or
            ``transformers`` (a local causal LM).
        base_url: the endpoint's base, e.g. ``http://127.0.0.1:8000/v1``.
        model: the model's name on the endpoint, or (``transformers``) its folder.
        api_key_env: the environment variable holding the API key (none: no key).
        prompt: the instruction; ``{text}`` stands for the line.
        system: a system message (none by default).
        shots: how many few-shot examples to put before the line.
        shots_corpus: the corpus (registered name or segmented file) whose
            training split the shots are drawn from.
        seed: which shots are drawn.
        max_tokens: the most tokens a reply may have (default: 3 per
            character of the line, plus 32).
        concurrency: requests in flight at once.
        timeout: seconds without a byte from the server before an attempt fails.
        deadline: seconds after which an attempt fails however the bytes trickle in.
        retries: further attempts after a retryable failure.
        backoff: the first wait between attempts, in seconds (doubles).
        stream: ask for a streamed answer (first-token times).
        on_altered: ``repair``, ``unsegmented`` or ``fail`` (:mod:`cws_bench.segmenters.llm_align`).
        cache: read and write the reply cache.
        price_in: price per million input tokens (for the cost figures).
        price_out: price per million output tokens.
        device: (``transformers``) ``auto``, ``cpu``, ``cuda``, ``cuda:N``, ``mps``.
        dtype: (``transformers``) ``float32``, ``float16``, ``bfloat16``.
        batch_size: (``transformers``) prompts per generation call.
        data_dir: where ``shots_corpus``' data is.
    """

    name = "llm"
    kind = "pretrained"
    description = "a prompted LLM: an OpenAI-compatible chat endpoint or a local causal LM"
    independent_lines = True

    def __init__(
        self,
        *,
        backend: str = "openai",
        base_url: str | None = None,
        model: str | os.PathLike[str] | None = None,
        api_key_env: str | None = None,
        prompt: str = DEFAULT_PROMPT,
        system: str | None = None,
        shots: int = 0,
        shots_corpus: str | None = None,
        seed: int = 0,
        max_tokens: int | None = None,
        concurrency: int = 4,
        timeout: float = 120.0,
        deadline: float = 600.0,
        retries: int = 4,
        backoff: float = 1.0,
        stream: bool = True,
        on_altered: str = "repair",
        cache: bool = True,
        price_in: float | None = None,
        price_out: float | None = None,
        device: str = "auto",
        dtype: str = "float32",
        batch_size: int = 8,
        data_dir: str | None = None,
    ) -> None:
        options = _parse_options(locals())
        super().__init__(**_identifying(options))
        self.prompt, self.system, self.on_altered = prompt, system, on_altered
        self.max_tokens: int | None = options["max_tokens"]
        self.price_in, self.price_out = options["price_in"], options["price_out"]
        self.cache = ResponseCache() if options["cache"] else None
        key = api_key(api_key_env) if api_key_env else None  # kept by the backend alone
        self._shots = _Shots()
        if options["shots"] > 0:
            shots_from = shots_corpus or "", options["shots"], options["seed"], data_dir
            self._shots = _draw_shots(*shots_from)
        self.backend = _backend(options, key)
        self.trained_on = self._shots.data or self.backend.trained_on
        self.identity = self.backend.identity()
        self._last: list[dict[str, Any]] = []

    # -- prompts ---------------------------------------------------------------

    def messages(self, text: str) -> list[dict[str, str]]:
        """The chat messages for one line: system, shots, then the line."""
        out = [{"role": "system", "content": self.system}] if self.system else []
        for raw, words in self._shots.pairs:
            out.append({"role": "user", "content": self.prompt.replace("{text}", raw)})
            out.append({"role": "assistant", "content": words})
        out.append({"role": "user", "content": self.prompt.replace("{text}", text)})
        return out

    def token_bound(self, text: str) -> int:
        """The ``max_tokens`` of a line's request."""
        return self.max_tokens if self.max_tokens is not None else 3 * len(text) + 32

    def _material(self, request: Request) -> dict[str, Any]:
        """What a request's reply depends on: its cache key's content (format 1)."""
        return {
            "format": 1,
            **self.identity,
            "messages": request.messages,
            "temperature": 0,
            "max_tokens": request.max_tokens,
        }

    # -- segmenting ------------------------------------------------------------

    def metadata(self) -> dict[str, Any]:
        """The base metadata plus ``model``: the endpoint and model, or the local model."""
        return {**super().metadata(), "model": dict(self.identity)}

    def _segment(self, lines: list[str]) -> list[list[str]]:
        from cws_bench.segmenters.llm_align import align_reply

        texts = [" ".join(line.split()) for line in lines]
        replies = self.replies(texts)
        out: list[list[str]] = []
        self._last = []
        for index, (line, reply) in enumerate(zip(lines, replies)):
            try:
                words, fidelity = align_reply(line, reply.text, on_altered=self.on_altered)
            except ValueError as e:
                what = "the reply passed its size bound and was not read" if reply.oversized else e
                raise SegmenterError(
                    self.name,
                    f"line {index + 1} of the batch: {what} (on_altered = 'fail')",
                    "use on_altered = 'repair' or 'unsegmented' to score such lines",
                ) from None
            out.append(words)
            record = fidelity.to_dict()
            del record["line"]
            record["cached"] = reply.cached
            if reply.oversized:  # cut at reply_limit: counted as empty, marked as such
                record["oversized"] = True
            record["request"] = reply.request()
            record["cost"] = self._cost(reply)
            self._last.append(record)
        return out

    def _diagnostics(self) -> list[dict[str, Any]] | None:
        return list(self._last)

    def _cost(self, reply: Reply) -> float | None:
        if reply.cached or (self.price_in is None and self.price_out is None):
            return None
        tokens_in, tokens_out = reply.input_tokens, reply.output_tokens
        if tokens_in is None or tokens_out is None:
            return None
        return (tokens_in * (self.price_in or 0.0) + tokens_out * (self.price_out or 0.0)) / 1e6

    def replies(self, texts: list[str]) -> list[Reply]:
        """One reply per text, from the cache or from the model."""
        requests = [Request(t, self.messages(t), self.token_bound(t)) for t in texts]
        materials = [self._material(request) for request in requests]
        replies: list[Reply | None] = [None] * len(texts)
        todo = []
        for index, material in enumerate(materials):
            if self.cache is not None:
                replies[index] = self.cache.get(ResponseCache.key(material), material)
            if replies[index] is None:
                todo.append(index)
        if todo:
            fresh = self.backend.complete([requests[i] for i in todo])
            for index, reply in zip(todo, fresh):
                replies[index] = reply
                if self.cache is not None and not reply.oversized:
                    material = materials[index]
                    self.cache.put(ResponseCache.key(material), reply, material)
        return [reply for reply in replies if reply is not None]


_DECLARED = tuple(inspect.signature(LLMSegmenter.__init__).parameters)[1:]
"""The options, in the order of :class:`LLMSegmenter`'s signature."""

_CHAT_SETTINGS = ("stream", "concurrency", "timeout", "deadline", "retries", "backoff")
_LOCAL_SETTINGS = ("device", "dtype", "batch_size")
_LOCAL_ONLY = ("device", "dtype")  # options only a local model has
# Options that change how requests are sent, never what comes back: not part of the
# segmenter's options (so not of the run cache's key).
_RUN_ONLY = frozenset({*_CHAT_SETTINGS, "cache", "batch_size", "data_dir"})

# What each numeric or true/false option may be: (kind, least, None allowed).
_OPTION_RULES: dict[str, tuple[str, float, bool]] = {
    "max_tokens": ("int", 1, True),
    "concurrency": ("int", 1, False),
    "retries": ("int", 0, False),
    "shots": ("int", 0, False),
    "seed": ("int", 0, False),
    "batch_size": ("int", 1, False),
    "timeout": ("positive", 0, False),
    "deadline": ("positive", 0, False),
    "backoff": ("number", 0, False),
    "stream": ("bool", 0, False),
    "cache": ("bool", 0, False),
    "price_in": ("number", 0, True),
    "price_out": ("number", 0, True),
}


def _parse_options(given: Mapping[str, Any]) -> dict[str, Any]:
    """:class:`LLMSegmenter`'s options (``given``: its arguments), in its signature's
    order, each checked and coerced (:func:`_checked`); the first one that is not what it
    may be, or a missing endpoint or model, prompt without ``{text}``, unknown
    ``on_altered`` or shots without a corpus, is refused with one message."""
    from cws_bench.segmenters.llm_align import ON_ALTERED

    options = {name: given[name] for name in _DECLARED}
    if options["backend"] not in BACKENDS:
        raise SegmenterError(
            "llm", f"unknown backend {options['backend']!r}", f"use one of: {', '.join(BACKENDS)}"
        )
    for option in _OPTION_RULES:  # in this order: the first one wrong is named
        options[option] = _checked(option, options[option])
    local = options["backend"] == "transformers"
    if options["model"] is None or (not local and not options["base_url"]):
        what = "model" if options["model"] is None else "base_url"
        raise SegmenterError(
            "llm",
            f"no {what} given",
            "name the endpoint and the model (base_url = 'http://HOST:PORT/v1', model = "
            "'NAME'), or a local model folder (backend = 'transformers', model = 'DIR')",
        )
    if "{text}" not in options["prompt"]:
        raise SegmenterError("llm", "the prompt has no {text}", "put {text} in the prompt")
    if options["on_altered"] not in ON_ALTERED:
        raise SegmenterError(
            "llm",
            f"on_altered must be one of {', '.join(ON_ALTERED)}, not {options['on_altered']!r}",
        )
    if options["shots"] > 0 and not options["shots_corpus"]:
        raise SegmenterError(
            "llm",
            f"{plural(options['shots'], 'shot')} asked for but no shots_corpus",
            "name the corpus whose training split the shots come from (shots_corpus)",
        )
    return options


def _backend(options: Mapping[str, Any], key: str | None) -> Backend:
    """The backend the options name (a local model is loaded here)."""
    model = os.fspath(options["model"])
    if options["backend"] == "transformers":
        return LocalModel(model, **{name: options[name] for name in _LOCAL_SETTINGS})
    settings = {name: options[name] for name in _CHAT_SETTINGS}
    return ChatEndpoint(base_url=options["base_url"], model=model, key=key, **settings)


def _identifying(options: Mapping[str, Any]) -> dict[str, Any]:
    """The options that can change a reply (the segmenter's recorded options): not those
    of :data:`_RUN_ONLY`; a local model has a device and dtype but no endpoint."""
    local = options["backend"] == "transformers"
    out = {
        name: value
        for name, value in options.items()
        if name not in _RUN_ONLY and (local or name not in _LOCAL_ONLY)
    }
    if local:
        out["base_url"] = None
    return out


def _checked(option: str, given: Any) -> Any:
    """One numeric or true/false option checked for its type and range (a value given as
    text, as an ``{env:NAME}`` placeholder gives it, is read as JSON first) and coerced;
    refused, naming it and what it may be, when it is not what it may be.

    >>> _checked("max_tokens", "200"), _checked("stream", "false"), _checked("timeout", 5)
    (200, False, 5.0)
    >>> _checked("max_tokens", 0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    cws_bench.errors.SegmenterError: segmenter llm: max_tokens must be a whole number ..., not 0
    >>> _checked("stream", "maybe")
    Traceback (most recent call last):
    ...
    cws_bench.errors.SegmenterError: segmenter llm: stream must be true or false, not 'maybe'
    """
    kind, least, optional = _OPTION_RULES[option]
    value = given
    if isinstance(value, str):
        with contextlib.suppress(ValueError):
            value = json.loads(value)
    if value is None and optional:
        return None
    if kind == "bool":
        if not isinstance(value, bool):
            raise SegmenterError("llm", f"{option} must be true or false, not {given!r}")
        return value
    number = (
        isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    )
    if kind == "int":
        if not number or not float(value).is_integer() or value < least:
            raise SegmenterError(
                "llm", f"{option} must be a whole number of at least {least:g}, not {given!r}"
            )
        return int(value)
    if kind == "positive":
        if not number or not value > 0:
            raise SegmenterError(
                "llm", f"{option} must be a number of seconds above 0, not {given!r}"
            )
        return float(value)
    if not number or not value >= least:
        raise SegmenterError(
            "llm", f"{option} must be a number of at least {least:g}, not {given!r}"
        )
    return value
