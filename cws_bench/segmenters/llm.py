"""Prompted LLMs as segmenters: any OpenAI-compatible chat endpoint, or a local causal LM.

``llm`` asks a model to segment each line ("请对下列文本进行分词…"), reads the
words out of its reply, and makes them the line's words whatever the reply
did to the text (:mod:`cws_bench.segmenters.llm_align`: the reply aligned to the line,
its boundaries projected onto it; ``on_altered``). Every line is one request
(``independent_lines``), sent ``concurrency`` at a time. See docs/LLM.md.

Backends
--------
``openai`` (default): ``POST {base_url}/chat/completions`` with the chat
messages, ``temperature`` 0, ``max_tokens``, ``stream`` (server-sent events
when the server streams: the first chunk holding text times the first
token; a plain JSON answer is read too, its first token then being its
end). The key is read from the environment variable ``api_key_env`` names
and sent as ``Authorization: Bearer``; it never enters the options, the
identity, a cache key, a log or an error message. vLLM, llama.cpp's
server, Ollama (``/v1``) and hosted APIs speak this protocol.

``transformers``: a causal LM from a local folder (``model=DIR``), greedy,
``batch_size`` prompts at a time, left-padded, on ``device``; the prompt is
the same messages through the tokenizer's chat template when it has one,
else the messages' texts one a line.

Failures
--------
A 429 or 5xx answer, a timeout (no bytes for ``timeout`` seconds), a lost
connection or a malformed body is retried up to ``retries`` times, waiting
``backoff``·2^attempt seconds (capped at 60) or what the server's
``Retry-After`` says; any other answer (401, 404, ...) fails at once, with the
server's message. A line that still fails fails its batch
(:class:`~cws_bench.errors.SegmenterError`).

Cache
-----
Each successful reply is kept in ``$CWS_BENCH_LLM_CACHE`` (default: the
``llm`` folder of cws-bench's cache folder), one JSON file per request named
by a BLAKE2b hash of the backend, the endpoint, the model (a local model by
its folder's checksum), the full messages (prompt, shots and text) and the
generation parameters, written atomically; a rerun reads the replies back
and sends nothing. ``cache=False`` neither reads nor writes it.

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

import hashlib
import json
import os
import random
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any

from cws_bench.errors import SegmenterError
from cws_bench.metrics.units import plural
from cws_bench.segmenters.base import Segmenter, TrainingData

__all__ = [
    "BACKENDS",
    "CACHE_VARIABLE",
    "DEFAULT_PROMPT",
    "LLMSegmenter",
    "Reply",
    "ResponseCache",
    "retry_delay",
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
MAX_WAIT = 60.0  # seconds: the longest wait between two attempts
SHOT_CHARS = (5, 80)  # the lengths (characters) of the training sentences shots are drawn from
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


def retry_delay(attempt: int, backoff: float, retry_after: str | None = None) -> float:
    """Seconds to wait before attempt ``attempt + 1``: ``Retry-After`` when given, else
    ``backoff``·2^attempt, at most :data:`MAX_WAIT`.

    >>> retry_delay(0, 0.5), retry_delay(3, 0.5), retry_delay(2, 0.5, "7")
    (0.5, 4.0, 7.0)
    >>> retry_delay(1, 1.0, "Wed, 21 Oct 2015 07:28:00 GMT")  # a date in the past: no wait
    0.0
    """
    if retry_after:
        try:
            seconds = float(retry_after)
        except ValueError:
            try:
                moment = parsedate_to_datetime(retry_after)
            except (TypeError, ValueError):
                seconds = backoff * 2**attempt
            else:
                seconds = moment.timestamp() - time.time()
        return min(max(seconds, 0.0), MAX_WAIT)
    return min(backoff * 2**attempt, MAX_WAIT)


@dataclass
class Reply:
    """One model answer and how it was obtained (times are Unix seconds)."""

    text: str
    input_tokens: int | None = None
    output_tokens: int | None = None
    start: float | None = None
    first_token: float | None = None
    end: float | None = None
    attempts: int = 1
    cached: bool = False

    def request(self) -> dict[str, Any] | None:
        """The request-log record (``cws-bench metrics throughput``'s fields), or None."""
        if self.cached:
            return None
        return {
            "start": self.start,
            "first_token": self.first_token,
            "end": self.end,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "attempts": self.attempts,
        }


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

    def get(self, key: str) -> Reply | None:
        """The reply kept under ``key``, or None (a damaged file counts as none)."""
        try:
            with open(self._path(key), "rb") as f:
                data = json.loads(f.read())
            return Reply(
                str(data["text"]),
                data.get("input_tokens"),
                data.get("output_tokens"),
                cached=True,
            )
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def put(self, key: str, reply: Reply) -> None:
        """Keep a reply (atomically: a reader never sees half a file)."""
        from cws_bench.text.io import atomic_write

        path = self._path(key)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        data = {
            "text": reply.text,
            "input_tokens": reply.input_tokens,
            "output_tokens": reply.output_tokens,
        }
        with atomic_write(path) as f:
            f.write(json.dumps(data, ensure_ascii=False))


class _Retryable(Exception):
    """A failure worth another attempt; ``retry_after`` is the server's header, if any."""

    def __init__(self, what: str, retry_after: str | None = None) -> None:
        super().__init__(what)
        self.retry_after = retry_after


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
        from cws_bench.segmenters.llm_align import ON_ALTERED

        if backend not in BACKENDS:
            raise SegmenterError(
                self.name, f"unknown backend {backend!r}", f"use one of: {', '.join(BACKENDS)}"
            )
        local = backend == "transformers"
        super().__init__(
            backend=backend,
            base_url=None if local else base_url,
            model=model,
            api_key_env=api_key_env,
            prompt=prompt,
            system=system,
            shots=shots,
            shots_corpus=shots_corpus,
            seed=seed,
            max_tokens=max_tokens,
            on_altered=on_altered,
            price_in=price_in,
            price_out=price_out,
            **({"device": device, "dtype": dtype} if local else {}),
        )
        # Options that change how requests are sent, never what comes back, stay out
        # of the options (so out of the run cache's key): concurrency, timeout,
        # retries, backoff, stream, cache, batch_size.
        if model is None or (not local and not base_url):
            what = "model" if model is None else "base_url"
            raise SegmenterError(
                self.name,
                f"no {what} given",
                "name the endpoint and the model (base_url = 'http://HOST:PORT/v1', model = "
                "'NAME'), or a local model folder (backend = 'transformers', model = 'DIR')",
            )
        if "{text}" not in prompt:
            raise SegmenterError(self.name, "the prompt has no {text}", "put {text} in the prompt")
        if on_altered not in ON_ALTERED:
            raise SegmenterError(
                self.name,
                f"on_altered must be one of {', '.join(ON_ALTERED)}, not {on_altered!r}",
            )
        for option, value, least in (
            ("concurrency", concurrency, 1),
            ("retries", retries, 0),
            ("shots", shots, 0),
            ("batch_size", batch_size, 1),
        ):
            if int(value) < least:
                raise SegmenterError(self.name, f"{option} must be at least {least}, not {value}")
        if int(shots) > 0 and not shots_corpus:
            raise SegmenterError(
                self.name,
                f"{plural(shots, 'shot')} asked for but no shots_corpus",
                "name the corpus whose training split the shots come from (shots_corpus)",
            )
        self.backend = backend
        self.base_url = (base_url or "").rstrip("/")
        self.model_name = os.fspath(model)
        self.prompt = prompt
        self.system = system
        self.max_tokens = None if max_tokens is None else int(max_tokens)
        self.concurrency = int(concurrency)
        self.timeout = float(timeout)
        self.retries = int(retries)
        self.backoff = float(backoff)
        self.stream = bool(stream)
        self.on_altered = on_altered
        self.cache = ResponseCache() if cache else None
        self.price_in = price_in
        self.price_out = price_out
        self.batch_size = int(batch_size)
        self._key: str | None = os.environ.get(api_key_env) if api_key_env else None
        if api_key_env and not self._key:
            raise SegmenterError(
                self.name,
                f"the environment variable {api_key_env} (api_key_env) is not set",
                "export the API key in that variable, or leave out api_key_env for an "
                "endpoint that needs no key",
            )
        self._shots = _Shots()
        if int(shots) > 0:
            assert shots_corpus is not None
            self._shots = _draw_shots(shots_corpus, int(shots), int(seed), data_dir)
            self.trained_on = self._shots.data
        self._last: list[dict[str, Any]] = []
        self.identity: dict[str, Any] = {"backend": backend}
        if local:
            self._load_local(self.model_name, device, dtype)
        else:
            self.identity.update({"base_url": self.base_url, "model": self.model_name})

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

    def _material(self, messages: list[dict[str, str]], bound: int) -> dict[str, Any]:
        return {
            "format": 1,
            **self.identity,
            "messages": messages,
            "temperature": 0,
            "max_tokens": bound,
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
                raise SegmenterError(
                    self.name,
                    f"line {index + 1} of the batch: {e} (on_altered = 'fail')",
                    "use on_altered = 'repair' or 'unsegmented' to score such lines",
                ) from None
            out.append(words)
            record = fidelity.to_dict()
            del record["line"]
            record["cached"] = reply.cached
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
        keys: list[str | None] = [None] * len(texts)
        replies: list[Reply | None] = [None] * len(texts)
        todo = []
        for index, text in enumerate(texts):
            material = self._material(self.messages(text), self.token_bound(text))
            if self.cache is not None:
                key = keys[index] = ResponseCache.key(material)
                replies[index] = self.cache.get(key)
            if replies[index] is None:
                todo.append(index)
        if todo:
            fresh = self._ask([texts[i] for i in todo])
            for index, reply in zip(todo, fresh):
                replies[index] = reply
                kept = keys[index]
                if self.cache is not None and kept is not None:
                    self.cache.put(kept, reply)
        return [reply for reply in replies if reply is not None]

    def _ask(self, texts: list[str]) -> list[Reply]:
        if self.backend == "transformers":
            return self._generate(texts)
        if self.concurrency == 1 or len(texts) == 1:
            return [self._chat(text) for text in texts]
        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(texts))) as pool:
            return list(pool.map(self._chat, texts))

    # -- the OpenAI-compatible endpoint ----------------------------------------

    def _chat(self, text: str) -> Reply:
        """One line's request, with retries (see the module docstring)."""
        body = {
            "model": self.model_name,
            "messages": self.messages(text),
            "temperature": 0,
            "max_tokens": self.token_bound(text),
        }
        if self.stream:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        url = f"{self.base_url}/chat/completions"
        failures: list[str] = []
        for attempt in range(self.retries + 1):
            request = urllib.request.Request(url, data=data, headers=headers, method="POST")
            try:
                reply = self._send(request)
            except _Retryable as e:
                failures.append(str(e))
                if attempt < self.retries:
                    time.sleep(retry_delay(attempt, self.backoff, e.retry_after))
                continue
            reply.attempts = attempt + 1
            return reply
        raise SegmenterError(
            self.name,
            f"{url}: no answer after {plural(self.retries + 1, 'attempt')} "
            f"({'; '.join(failures[-3:])})",
            "check that the server is up and the model name is right; raise timeout or "
            "retries for a slow server",
        )

    def _send(self, request: urllib.request.Request) -> Reply:
        start = time.time()
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                kind = response.headers.get("Content-Type", "")
                if "text/event-stream" in kind:
                    return self._read_stream(response, start)
                raw = response.read()
                end = time.time()
        except urllib.error.HTTPError as e:
            detail = _error_detail(e)
            if e.code in RETRY_STATUSES:
                raise _Retryable(f"HTTP {e.code}{detail}", e.headers.get("Retry-After")) from None
            raise SegmenterError(
                self.name,
                f"{request.full_url}: HTTP {e.code}{detail}",
                "check the endpoint, the model name and the key (api_key_env)",
            ) from None
        except TimeoutError:
            raise _Retryable(f"no answer within {self.timeout:g} s") from None
        except (urllib.error.URLError, ConnectionError, OSError) as e:
            reason = getattr(e, "reason", e)
            raise _Retryable(f"connection failed: {reason}") from None
        try:
            answer = json.loads(raw)
            content = answer["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise _Retryable(f"malformed answer: {raw[:80]!r}") from None
        usage = answer.get("usage") or {}
        return Reply(
            content or "",
            _count(usage.get("prompt_tokens")),
            _count(usage.get("completion_tokens")),
            start,
            end,
            end,
        )

    def _read_stream(self, response: Any, start: float) -> Reply:
        parts: list[str] = []
        first: float | None = None
        usage: dict[str, Any] = {}
        try:
            for raw_line in response:
                line = raw_line.decode("utf-8").strip()
                if not line.startswith("data:"):
                    continue
                payload = line[5:].strip()
                if payload == "[DONE]":
                    break
                chunk = json.loads(payload)
                if chunk.get("usage"):
                    usage = chunk["usage"]
                for choice in chunk.get("choices") or []:
                    piece = (choice.get("delta") or {}).get("content")
                    if piece:
                        if first is None:
                            first = time.time()
                        parts.append(piece)
        except TimeoutError:
            raise _Retryable(f"the stream stopped for {self.timeout:g} s") from None
        except (ValueError, AttributeError, UnicodeDecodeError) as e:
            raise _Retryable(f"malformed stream: {e}") from None
        end = time.time()
        return Reply(
            "".join(parts),
            _count(usage.get("prompt_tokens")),
            _count(usage.get("completion_tokens")),
            start,
            end if first is None else first,
            end,
        )

    # -- a local causal LM -------------------------------------------------------

    def _load_local(self, where: str, device: str, dtype: str) -> None:
        try:
            import transformers
        except ImportError as e:
            raise ImportError(f"backend 'transformers' needs transformers and torch: {e}") from e
        from cws_bench.segmenters.neural import (
            folder_checksum,
            resolve_device,
            torch_dtype,
        )
        from cws_bench.system.installed import installed_versions

        if not Path(where).is_dir():
            raise SegmenterError(
                self.name,
                f"model folder {where}: no such folder",
                "the transformers backend loads a local folder (save_pretrained's layout)",
            )
        self.device, gpu = resolve_device(self.name, device)
        transformers.logging.set_verbosity_error()
        try:
            self.tokenizer = transformers.AutoTokenizer.from_pretrained(where)
            self.lm = transformers.AutoModelForCausalLM.from_pretrained(
                where, dtype=torch_dtype(self.name, dtype)
            )
        except (OSError, ValueError) as e:
            raise SegmenterError(
                self.name, f"cannot load model {where!r}: {str(e).splitlines()[0]}"
            ) from e
        self.lm.to(self.device).eval()  # type: ignore[arg-type]
        self.tokenizer.padding_side = "left"
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.identity.update(
            {
                "model": os.path.abspath(where),
                "checksum": folder_checksum(where),
                "device": self.device,
                "gpu": gpu,
                "dtype": dtype,
                "versions": installed_versions("transformers", "torch", "tokenizers"),
            }
        )
        if self.trained_on is None:
            self.trained_on = TrainingData(f"the training data of {where}")

    def render(self, text: str) -> str:
        """The local model's prompt: its chat template, else the messages one a line."""
        messages = self.messages(text)
        if getattr(self.tokenizer, "chat_template", None):
            rendered = self.tokenizer.apply_chat_template(
                messages, tokenize=False, add_generation_prompt=True
            )
            return str(rendered)
        return "".join(m["content"] + "\n" for m in messages)

    def _generate(self, texts: list[str]) -> list[Reply]:
        import torch

        out: list[Reply] = []
        for first in range(0, len(texts), self.batch_size):
            group = texts[first : first + self.batch_size]
            prompts = [self.render(text) for text in group]
            bound = max(self.token_bound(text) for text in group)
            encoded = self.tokenizer(prompts, return_tensors="pt", padding=True).to(self.device)
            start = time.time()
            with torch.inference_mode():
                generated = self.lm.generate(
                    **encoded,
                    do_sample=False,
                    max_new_tokens=bound,
                    pad_token_id=self.tokenizer.pad_token_id,
                )
            end = time.time()
            width = encoded["input_ids"].shape[1]
            for ids, mask in zip(generated, encoded["attention_mask"]):
                new = ids[width:].tolist()
                eos = self.tokenizer.eos_token_id
                if eos is not None and eos in new:
                    new = new[: new.index(eos) + 1]
                text = self.tokenizer.decode(new, skip_special_tokens=True)
                n_in = int(mask.sum())
                out.append(Reply(str(text), n_in, len(new), start, end, end))
        return out


def _count(value: Any) -> int | None:
    return int(value) if isinstance(value, (int, float)) and value >= 0 else None


def _error_detail(error: urllib.error.HTTPError) -> str:
    try:
        body = error.read(400).decode("utf-8", errors="replace").strip()
    except Exception:
        body = ""
    return f": {body}" if body else ""
