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

Each successful reply is kept in :class:`ResponseCache` (``$CWS_BENCH_LLM_CACHE``),
named by a BLAKE2b hash of what the reply depends on and checked against it on read;
after :meth:`~cws_bench.segmenters.base.Segmenter.segment`,
:meth:`~cws_bench.segmenters.base.Segmenter.diagnostics` gives one record per line:
the fidelity counts, ``cached``, ``request`` (times and token counts) and ``cost``.
docs/LLM.md ("The reply cache", "Requests, latency and cost") says each in full.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import random
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cws_bench.defaults import Bounds
from cws_bench.display.units import plural
from cws_bench.errors import SegmenterError
from cws_bench.segmenters.base import Segmenter, TrainingData, option
from cws_bench.segmenters.llm_align import ON_ALTERED
from cws_bench.segmenters.llm_backends import (
    Backend,
    ChatEndpoint,
    LocalModel,
    Reply,
    Request,
    api_key,
)
from cws_bench.segmenters.neural import DTYPES
from cws_bench.text.checksums import hash_hex

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
            from cws_bench.corpora.download import cache_dir

            folder = os.environ.get(CACHE_VARIABLE) or cache_dir() / "llm"
        self.folder = Path(folder)

    @staticmethod
    def key(material: Mapping[str, Any]) -> str:
        """The hash of a request's content (sorted JSON, BLAKE2b, 32 hex digits)."""
        return hash_hex(json.dumps(material, sort_keys=True, ensure_ascii=False), "identity")

    def _path(self, material: Mapping[str, Any]) -> str:
        key = self.key(material)
        return os.path.join(self.folder, key[:2], key + ".json")

    def get(self, material: Mapping[str, Any]) -> Reply | None:
        """The reply kept for ``material``, or None: a damaged file, or one whose recorded
        request is not ``material`` (a file moved or copied under its key), counts as none."""
        try:
            with open(self._path(material), "rb") as f:
                data = json.loads(f.read())
            if data.get("request") != _plain(material):
                return None
            tokens = data.get("input_tokens"), data.get("output_tokens")
            return Reply(str(data["text"]), *tokens, cached=True)
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def put(self, reply: Reply, material: Mapping[str, Any]) -> None:
        """Keep a reply with the request it answers (atomically)."""
        from cws_bench.text.io import atomic_write

        path = self._path(material)
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


def _draw_shots(
    corpus: str, count: int, seed: int, data_dir: str | None
) -> tuple[list[tuple[str, str]], TrainingData]:
    """``count`` sentences of 5 to 80 characters from ``corpus``' training split, seeded, as
    (raw text, words joined by spaces) pairs, and where they came from."""
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
    described = f"{plural(count, 'shot')} from {source.description} (seed {seed})"
    data = dataclasses.replace(source.data, description=described)
    return [("".join(words), " ".join(words)) for words in chosen], data


def _local(options: Any) -> bool:
    """for a local model (backend = 'transformers')"""
    return bool(options.backend == "transformers")


def _endpoint(options: Any) -> bool:
    """for an endpoint (backend = 'openai')"""
    return not _local(options)


_AT_LEAST_0 = Bounds(whole=True, low=0)
_AT_LEAST_1 = Bounds(whole=True, low=1)
_NOT_NEGATIVE = Bounds(whole=False, low=0)
# Options that change how requests are sent, never what comes back: not in the identity.
_sending = functools.partial(option, identity=False)
_price = functools.partial(option, None, bounds=_NOT_NEGATIVE)


class LLMSegmenter(Segmenter):
    """A prompted LLM as a segmenter (see the module docstring and docs/LLM.md); its
    options (:attr:`Options`) that change how requests are sent are not part of its
    identity (nor of the run cache's key)."""

    name = "llm"
    kind = "pretrained"
    description = "a prompted LLM: an OpenAI-compatible chat endpoint or a local causal LM"
    independent_lines = True

    @dataclass(frozen=True)
    class Options:
        backend: str = option(
            "openai", "an OpenAI-compatible chat endpoint, or a local causal LM", choices=BACKENDS
        )
        base_url: str | None = option(
            None, "the endpoint's base, e.g. http://127.0.0.1:8000/v1", identity=_endpoint
        )
        model: str | None = option(None, "the model's name on the endpoint, or its folder")
        api_key_env: str | None = option(None, "the environment variable holding the API key")
        prompt: str = option(DEFAULT_PROMPT, "the instruction; {text} stands for the line")
        system: str | None = option(None, "a system message")
        shots: int = option(0, "few-shot examples put before the line", bounds=_AT_LEAST_0)
        shots_corpus: str | None = option(
            None, "the corpus (name or segmented file) whose training split the shots come from"
        )
        seed: int = option(0, "which shots are drawn", bounds="seed")
        max_tokens: int | None = option(
            None,
            "the most tokens a reply may have (default: 3 a character, plus 32)",
            bounds=_AT_LEAST_1,
        )
        concurrency: int = _sending(4, "requests in flight at once", bounds=_AT_LEAST_1)
        timeout: float = _sending(
            120.0, "seconds without a byte before an attempt fails", bounds="timeout"
        )
        deadline: float = _sending(
            600.0, "seconds after which an attempt fails however the bytes come", bounds="timeout"
        )
        retries: int = _sending(4, "further attempts after a retryable failure", bounds="retries")
        backoff: float = _sending(
            1.0, "the first wait between attempts, in seconds (doubles)", bounds=_NOT_NEGATIVE
        )
        stream: bool = _sending(True, "ask for a streamed answer (first-token times)")
        on_altered: str = option(
            "repair", "what a reply that changed the text gives", choices=ON_ALTERED
        )
        cache: bool = _sending(True, "read and write the reply cache")
        price_in: float | None = _price("price per million input tokens")
        price_out: float | None = _price("price per million output tokens")
        device: str = option(
            "auto", "(transformers) auto, cpu, cuda, cuda:N or mps", identity=_local
        )
        dtype: str = option(
            "float32", "(transformers) the weights' type", choices=DTYPES, identity=_local
        )
        batch_size: int = _sending(
            8, "(transformers) prompts per generation call", bounds="batch_size"
        )
        data_dir: str | None = _sending(None, "where shots_corpus' data is")

    opts: Options

    @classmethod
    def model_problem(cls, options: Mapping[str, Any]) -> tuple[str, str] | None:
        """A local model's folder that is not there (an endpoint's models are the server's)."""
        opts = cls.parsed(options)
        if not _local(opts) or opts.model is None or os.path.isdir(opts.model):
            return None
        return (
            f"model folder {opts.model}: no such folder",
            "the transformers backend loads a local folder (save_pretrained's layout)",
        )

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        opts = self.opts
        _check(opts)
        self.cache = ResponseCache() if opts.cache else None
        self._shots: list[tuple[str, str]] = []
        shots_data = None
        if opts.shots > 0:
            corpus = opts.shots_corpus or ""
            self._shots, shots_data = _draw_shots(corpus, opts.shots, opts.seed, opts.data_dir)
        self.backend = _backend(opts)
        self.trained_on = shots_data or self.backend.trained_on
        self.identity: dict[str, Any] = self.backend.identity()  # metadata()["model"]
        self._last: list[dict[str, Any]] = []

    # -- prompts ---------------------------------------------------------------

    def messages(self, text: str) -> list[dict[str, str]]:
        """The chat messages for one line: system, shots, then the line."""
        prompt, system = self.opts.prompt, self.opts.system
        out = [{"role": "system", "content": system}] if system else []
        for raw, words in self._shots:
            out.append({"role": "user", "content": prompt.replace("{text}", raw)})
            out.append({"role": "assistant", "content": words})
        out.append({"role": "user", "content": prompt.replace("{text}", text)})
        return out

    def token_bound(self, text: str) -> int:
        """The ``max_tokens`` of a line's request."""
        bound = self.opts.max_tokens
        return bound if bound is not None else 3 * len(text) + 32

    def _material(self, request: Request) -> dict[str, Any]:
        """What a request's reply depends on: its cache key's content (format 1)."""
        return {"format": 1, **self.identity, **request.parameters()}

    # -- segmenting ------------------------------------------------------------

    def _segment(self, lines: list[str]) -> list[list[str]]:
        from cws_bench.segmenters.llm_align import align_reply

        replies = self.replies([" ".join(line.split()) for line in lines])
        out: list[list[str]] = []
        self._last = []
        for index, (line, reply) in enumerate(zip(lines, replies)):
            try:
                words, fidelity = align_reply(line, reply.text, on_altered=self.opts.on_altered)
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
        price_in, price_out = self.opts.price_in, self.opts.price_out
        if reply.cached or (price_in is None and price_out is None):
            return None
        tokens_in, tokens_out = reply.input_tokens, reply.output_tokens
        if tokens_in is None or tokens_out is None:
            return None
        return (tokens_in * (price_in or 0.0) + tokens_out * (price_out or 0.0)) / 1e6

    def replies(self, texts: list[str]) -> list[Reply]:
        """One reply per text, from the cache or from the model."""
        requests = [Request(t, self.messages(t), self.token_bound(t)) for t in texts]
        materials = [self._material(request) for request in requests]
        cache = self.cache
        replies = [None if cache is None else cache.get(m) for m in materials]
        todo = [index for index, reply in enumerate(replies) if reply is None]
        fresh = self.backend.complete([requests[i] for i in todo]) if todo else []
        for index, reply in zip(todo, fresh):
            replies[index] = reply
            if cache is not None and not reply.oversized:
                cache.put(reply, materials[index])
        return [reply for reply in replies if reply is not None]


def _check(opts: LLMSegmenter.Options) -> None:
    """Refuse what no single option says is wrong."""
    if opts.model is None or (not _local(opts) and not opts.base_url):
        raise SegmenterError(
            "llm",
            f"no {'model' if opts.model is None else 'base_url'} given",
            "name the endpoint and the model (base_url = 'http://HOST:PORT/v1', model = "
            "'NAME'), or a local model folder (backend = 'transformers', model = 'DIR')",
        )
    if "{text}" not in opts.prompt:
        raise SegmenterError("llm", "the prompt has no {text}", "put {text} in the prompt")
    if opts.shots > 0 and not opts.shots_corpus:
        raise SegmenterError(
            "llm",
            f"{plural(opts.shots, 'shot')} asked for but no shots_corpus",
            "name the corpus whose training split the shots come from (shots_corpus)",
        )


def _backend(opts: LLMSegmenter.Options) -> Backend:
    """The backend the options name (the API key is read here, kept by the backend alone)."""
    assert opts.model is not None
    if _local(opts):
        return LocalModel(
            opts.model, device=opts.device, dtype=opts.dtype, batch_size=opts.batch_size
        )
    # its settings are the options of the same names
    names = [f.name for f in dataclasses.fields(ChatEndpoint) if f.init and f.name != "key"]
    key = api_key(opts.api_key_env) if opts.api_key_env else None
    return ChatEndpoint(key=key, **{name: getattr(opts, name) for name in names})
