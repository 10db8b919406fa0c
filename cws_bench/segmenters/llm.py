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
A 429 or 5xx answer, a timeout (no bytes for ``timeout`` seconds, or no
complete reply ``deadline`` seconds after the attempt started: a timer then
shuts the connection down, whatever it was waiting for), a lost
connection, a reply cut short (a body shorter than its ``Content-Length``, a
chunked body without its last chunk, a stream that ends without ``data:
[DONE]`` or a ``finish_reason``) or a malformed body is retried up to
``retries`` times, waiting ``backoff``·2^attempt seconds (capped at 60) or
what the server's ``Retry-After`` says; a refused connection (no server
listening) is tried once more after a short wait, then fails; any other
answer (401, 404, ...) fails at once, with the server's message. A line that
still fails fails its batch (:class:`~cws_bench.errors.SegmenterError`).
Every message has the request's header values (the key) replaced by
``[redacted]``.

A reply longer than :func:`reply_limit` bytes (from ``max_tokens`` and the
line's length) is not read past that bound: the line counts as answered
with nothing (``empty``, its record marked ``oversized``) and nothing is
cached.

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
import http.client
import json
import math
import os
import random
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any

from cws_bench.display.units import plural
from cws_bench.errors import SegmenterError
from cws_bench.segmenters.base import Segmenter, TrainingData
from cws_bench.text.checksums import hash_hex

__all__ = [
    "BACKENDS",
    "CACHE_VARIABLE",
    "DEFAULT_PROMPT",
    "LLMSegmenter",
    "Reply",
    "ResponseCache",
    "reply_limit",
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
REFUSED_WAIT = 0.5  # seconds before the one more attempt at a server that refused the connection
REPLY_BASE = 65_536  # bytes of a reply beside its tokens: headers, usage, the envelope
REPLY_PER_TOKEN = 1_024  # bytes per token asked for: a streamed chunk's JSON is ~200-400
REPLY_PER_CHAR = 16  # bytes per character of the line (a reply may echo it, escaped)
REDACTED = "[redacted]"


def reply_limit(max_tokens: int, line: str) -> int:
    """The most bytes read of one reply: 64 KiB, plus 1 KiB per token of ``max_tokens``,
    plus 16 bytes per character of the line (its text escaped as ``\\uXXXX``, with room
    to spare). A server keeps to ``max_tokens``, so a longer reply is a fault.

    >>> reply_limit(95, "x" * 21)  # the default bound of a 21-character line
    163152
    """
    return REPLY_BASE + REPLY_PER_TOKEN * max_tokens + REPLY_PER_CHAR * len(line)


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
    oversized: bool = False

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
        return hash_hex(text, "identity")

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


class _Retryable(Exception):
    """A failure worth another attempt; ``retry_after`` is the server's header, if any;
    ``refused``: no server listened (worth one quick attempt more, not the back-off)."""

    def __init__(self, what: str, retry_after: str | None = None, refused: bool = False) -> None:
        super().__init__(what)
        self.retry_after = retry_after
        self.refused = refused


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
        from cws_bench.segmenters.llm_align import ON_ALTERED

        if backend not in BACKENDS:
            raise SegmenterError(
                self.name, f"unknown backend {backend!r}", f"use one of: {', '.join(BACKENDS)}"
            )
        checked = _check_options(
            {
                "max_tokens": max_tokens,
                "concurrency": concurrency,
                "retries": retries,
                "shots": shots,
                "seed": seed,
                "batch_size": batch_size,
                "timeout": timeout,
                "deadline": deadline,
                "backoff": backoff,
                "stream": stream,
                "cache": cache,
                "price_in": price_in,
                "price_out": price_out,
            }
        )
        max_tokens, concurrency, retries = (
            checked["max_tokens"],
            checked["concurrency"],
            checked["retries"],
        )
        shots, seed, batch_size = checked["shots"], checked["seed"], checked["batch_size"]
        timeout, deadline, backoff = checked["timeout"], checked["deadline"], checked["backoff"]
        stream, cache = checked["stream"], checked["cache"]
        price_in, price_out = checked["price_in"], checked["price_out"]
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
        # deadline, retries, backoff, stream, cache, batch_size.
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
        self.deadline = float(deadline)
        self.retries = int(retries)
        self.backoff = float(backoff)
        self.stream = bool(stream)
        self.on_altered = on_altered
        self.cache = ResponseCache() if cache else None
        self.price_in = price_in
        self.price_out = price_out
        self.batch_size = int(batch_size)
        self._key = _api_key(api_key_env) if api_key_env else None
        self._stop = threading.Event()  # set when a run is abandoned: no attempt more
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
        materials = [self._material(self.messages(t), self.token_bound(t)) for t in texts]
        replies: list[Reply | None] = [None] * len(texts)
        todo = []
        for index, material in enumerate(materials):
            if self.cache is not None:
                replies[index] = self.cache.get(ResponseCache.key(material), material)
            if replies[index] is None:
                todo.append(index)
        if todo:
            fresh = self._ask([texts[i] for i in todo])
            for index, reply in zip(todo, fresh):
                replies[index] = reply
                if self.cache is not None and not reply.oversized:
                    material = materials[index]
                    self.cache.put(ResponseCache.key(material), reply, material)
        return [reply for reply in replies if reply is not None]

    def _ask(self, texts: list[str]) -> list[Reply]:
        if self.backend == "transformers":
            return self._generate(texts)
        self._stop.clear()
        if self.concurrency == 1 or len(texts) == 1:
            return [self._chat(text) for text in texts]
        # Not ``with``: its exit waits for every request in flight. On an error or a
        # stop signal (Ctrl-C) the requests in flight are abandoned at once: nothing
        # waits for them, queued ones never start, and no attempt follows.
        pool = ThreadPoolExecutor(max_workers=min(self.concurrency, len(texts)))
        try:
            return list(pool.map(self._chat, texts))
        finally:
            self._stop.set()
            pool.shutdown(wait=False, cancel_futures=True)

    # -- the OpenAI-compatible endpoint ----------------------------------------

    def _redact(self, text: str) -> str:
        """``text`` with the key (and so the Authorization header's value) replaced."""
        return text.replace(self._key, REDACTED) if self._key else text

    def _chat(self, text: str) -> Reply:
        """One line's request, with retries (see the module docstring)."""
        try:
            return self._attempts(text)
        except SegmenterError as e:
            e.message = self._redact(e.message)
            e.args = (e.message,)
            raise
        except Exception as e:  # whatever it is, its text may hold a header value
            raise SegmenterError(
                self.name, self._redact(f"{type(e).__name__}: {e}"), "check the endpoint"
            ) from None

    def _attempts(self, text: str) -> Reply:
        bound = self.token_bound(text)
        body: dict[str, Any] = {
            "model": self.model_name,
            "messages": self.messages(text),
            "temperature": 0,
            "max_tokens": bound,
        }
        if self.stream:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        url = f"{self.base_url}/chat/completions"
        limit = reply_limit(bound, text)
        failures: list[str] = []
        refusals = 0
        for attempt in range(self.retries + 1):
            if self._stop.is_set() and attempt:
                raise SegmenterError(self.name, f"{url}: abandoned (the run stopped)")
            request = urllib.request.Request(url, data=data, headers=headers, method="POST")
            try:
                reply = self._send(request, limit)
            except _Retryable as e:
                failures.append(str(e))
                if e.refused:
                    refusals += 1
                    if refusals > 1 or attempt == self.retries:
                        raise SegmenterError(
                            self.name,
                            f"{url}: connection refused ({attempt + 1} "
                            f"attempt{'s' if attempt else ''}): no server is listening there",
                            "start the server, or check base_url (host and port)",
                        ) from None
                    self._stop.wait(min(REFUSED_WAIT, self.backoff))  # a stop ends the wait
                elif attempt < self.retries:
                    self._stop.wait(retry_delay(attempt, self.backoff, e.retry_after))
                continue
            reply.attempts = attempt + 1
            return reply
        raise SegmenterError(
            self.name,
            f"{url}: no answer after {plural(self.retries + 1, 'attempt')} "
            f"({'; '.join(failures[-3:])})",
            "the server or the connection failed, not the data: check that the server is "
            "up and the model name is right; raise timeout, deadline or retries for a slow "
            "server",
        )

    def _send(self, request: urllib.request.Request, limit: int) -> Reply:
        """One attempt. At its deadline a timer shuts its socket down, whatever it is
        waiting for (the status line, a header, the body), so the attempt ends then."""
        sockets: list[socket.socket] = []
        expired = threading.Event()

        def expire() -> None:
            expired.set()
            for sock in sockets:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

        timer = threading.Timer(self.deadline, expire)
        timer.daemon = True
        timer.start()
        try:
            return self._exchange(request, limit, _opener(sockets))
        except (_Retryable, SegmenterError):
            if expired.is_set():
                raise _Retryable(
                    f"no complete answer within the deadline of {self.deadline:g} s"
                ) from None
            raise
        finally:
            timer.cancel()

    def _exchange(
        self, request: urllib.request.Request, limit: int, opener: urllib.request.OpenerDirector
    ) -> Reply:
        start = time.time()
        deadline = time.monotonic() + self.deadline
        try:
            response = opener.open(request, timeout=min(self.timeout, self.deadline))
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
        except (urllib.error.URLError, http.client.HTTPException, OSError) as e:
            reason = getattr(e, "reason", e)
            refused = isinstance(reason, ConnectionRefusedError)
            raise _Retryable(f"connection failed: {reason}", refused=refused) from None
        with response:
            streamed = "text/event-stream" in response.headers.get("Content-Type", "")
            reader = _StreamReader() if streamed else None
            raw = bytearray()  # a JSON answer's bytes (a stream's are read as they come)
            received = 0
            try:
                while True:
                    piece = response.read1(65_536)
                    if not piece:
                        if response.length:  # bytes its Content-Length promised, not sent
                            raise http.client.IncompleteRead(b"", response.length)
                        break
                    received += len(piece)
                    if received > limit:  # not read further; the connection is closed
                        end = time.time()
                        return Reply("", None, None, start, end, end, oversized=True)
                    if reader is None:
                        raw += piece
                    else:
                        reader.feed(piece)
                        if reader.done:
                            break
                    if time.monotonic() > deadline:
                        raise _Retryable(
                            f"no complete answer within the deadline of {self.deadline:g} s"
                        )
            except TimeoutError:
                if reader is None or not reader.finished:  # a finish_reason came: complete
                    raise _Retryable(f"the reply stopped for {self.timeout:g} s") from None
            except http.client.IncompleteRead as e:
                raise _Retryable(
                    f"the reply was cut short after {received + len(e.partial):,} bytes "
                    "(a lost connection)"
                ) from None
            except (http.client.HTTPException, OSError) as e:
                raise _Retryable(f"the connection was lost while reading ({e})") from None
            end = time.time()
        if reader is not None:
            return reader.reply(start, end)
        try:
            answer = json.loads(bytes(raw))
            content = answer["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise _Retryable(f"malformed answer: {bytes(raw[:80])!r}") from None
        usage = answer.get("usage") or {}
        return Reply(
            content or "",
            _count(usage.get("prompt_tokens")),
            _count(usage.get("completion_tokens")),
            start,
            end,
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


class _StreamReader:
    """Server-sent events read as they come: the text, the first token's time, the usage,
    and whether the stream ended as the protocol says (``data: [DONE]``, or a chunk with
    a ``finish_reason``); a stream that stops before is a lost connection."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.first: float | None = None
        self.usage: dict[str, Any] = {}
        self.done = False  # [DONE] seen
        self.finished = False  # a finish_reason seen
        self._pending = b""

    def feed(self, data: bytes) -> None:
        *lines, self._pending = (self._pending + data).split(b"\n")
        for raw_line in lines:
            if self.done:
                return
            self._line(raw_line)

    def _line(self, raw_line: bytes) -> None:
        try:
            line = raw_line.decode("utf-8").strip()
            if not line.startswith("data:"):
                return
            payload = line[5:].strip()
            if payload == "[DONE]":
                self.done = True
                return
            chunk = json.loads(payload)
            if chunk.get("usage"):
                self.usage = chunk["usage"]
            for choice in chunk.get("choices") or []:
                if choice.get("finish_reason"):
                    self.finished = True
                piece = (choice.get("delta") or {}).get("content")
                if piece:
                    if self.first is None:
                        self.first = time.time()
                    self.parts.append(piece)
        except (ValueError, AttributeError, UnicodeDecodeError) as e:
            raise _Retryable(f"malformed stream: {e}") from None

    def reply(self, start: float, end: float) -> Reply:
        if self._pending.strip() and not self.done:
            self._line(self._pending)
            self._pending = b""
        if not (self.done or self.finished):
            raise _Retryable(
                "the stream ended before its end (no data: [DONE], no finish_reason): "
                "a lost connection"
            )
        return Reply(
            "".join(self.parts),
            _count(self.usage.get("prompt_tokens")),
            _count(self.usage.get("completion_tokens")),
            start,
            end if self.first is None else self.first,
            end,
        )


def _opener(sockets: list[socket.socket]) -> urllib.request.OpenerDirector:
    """urllib's opener (proxies from the environment and all), whose HTTP and HTTPS
    connections put their sockets in ``sockets`` (for the deadline's timer)."""

    def keeping(base: type[http.client.HTTPConnection]) -> Any:
        class Connection(base):  # type: ignore[valid-type,misc]
            def connect(self) -> None:
                super().connect()
                sockets.append(self.sock)

        return Connection

    class Http(urllib.request.HTTPHandler):
        def http_open(self, req: urllib.request.Request) -> Any:
            return self.do_open(keeping(http.client.HTTPConnection), req)

    class Https(urllib.request.HTTPSHandler):
        def https_open(self, req: urllib.request.Request) -> Any:
            context = getattr(self, "_context", None)
            return self.do_open(keeping(http.client.HTTPSConnection), req, context=context)

    return urllib.request.build_opener(Http, Https)


def _count(value: Any) -> int | None:
    return int(value) if isinstance(value, (int, float)) and value >= 0 else None


def _error_detail(error: urllib.error.HTTPError) -> str:
    try:
        body = error.read(400).decode("utf-8", errors="replace").strip()
    except Exception:
        body = ""
    return f": {body}" if body else ""


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


def _check_options(values: Mapping[str, Any]) -> dict[str, Any]:
    """The options, each checked for its type and range (a value given as text, as an
    ``{env:NAME}`` placeholder gives it, is read as JSON first); the first that is not
    what it may be is refused, naming it and what it may be.

    >>> _check_options({"max_tokens": "200", "stream": "false"})
    {'max_tokens': 200, 'stream': False}
    >>> _check_options({"max_tokens": 0})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    cws_bench.errors.SegmenterError: segmenter llm: max_tokens must be a whole number ..., not 0
    >>> _check_options({"stream": "maybe"})
    Traceback (most recent call last):
    ...
    cws_bench.errors.SegmenterError: segmenter llm: stream must be true or false, not 'maybe'
    """
    out: dict[str, Any] = {}
    for option, given in values.items():
        kind, least, optional = _OPTION_RULES[option]
        value = given
        if isinstance(value, str):
            with contextlib.suppress(ValueError):
                value = json.loads(value)
        out[option] = value
        if value is None and optional:
            continue
        if kind == "bool":
            if not isinstance(value, bool):
                raise SegmenterError("llm", f"{option} must be true or false, not {given!r}")
            continue
        number = (
            isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        )
        if kind == "int":
            if not number or not float(value).is_integer() or value < least:
                raise SegmenterError(
                    "llm", f"{option} must be a whole number of at least {least:g}, not {given!r}"
                )
            out[option] = int(value)
        elif kind == "positive":
            if not number or not value > 0:
                raise SegmenterError(
                    "llm", f"{option} must be a number of seconds above 0, not {given!r}"
                )
            out[option] = float(value)
        elif not number or not value >= least:
            raise SegmenterError(
                "llm", f"{option} must be a number of at least {least:g}, not {given!r}"
            )
    return out


def _api_key(variable: str) -> str:
    """The key in the environment variable ``variable``: surrounding whitespace (a
    trailing newline from a file) stripped; refused, without showing it, when unset,
    empty, or holding a space or control character inside (not a header value)."""
    raw = os.environ.get(variable)
    if raw is None or not raw.strip():
        raise SegmenterError(
            "llm",
            f"the environment variable {variable} (api_key_env) is "
            + ("not set" if raw is None else "empty"),
            "export the API key in that variable, or leave out api_key_env for an "
            "endpoint that needs no key",
        )
    key = raw.strip()
    if any(not ("!" <= ch <= "~") for ch in key):
        raise SegmenterError(
            "llm",
            f"the API key in {variable} (api_key_env) holds a space, a control character "
            "or a non-ASCII character inside (not shown here)",
            "set the variable to the key alone",
        )
    return key
