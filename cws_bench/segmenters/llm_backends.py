"""The two backends of the ``llm`` segmenter, behind one protocol (:class:`Backend`).

The adapter (:mod:`cws_bench.segmenters.llm`) builds each line's chat messages, keeps
the reply cache and reads the replies back onto the lines; a backend only answers
requests (:meth:`Backend.complete`) and says what its answers depend on
(:meth:`Backend.identity`, part of each cache key). See docs/LLM.md.

``openai`` (:class:`ChatEndpoint`, the default): ``POST {base_url}/chat/completions``
with the chat messages, ``temperature`` 0, ``max_tokens``, ``stream`` (server-sent
events when the server streams: the first chunk holding text times the first token; a
plain JSON answer is read too, its first token then being its end), ``concurrency``
requests at a time. The key is read from the environment variable ``api_key_env``
names and sent as ``Authorization: Bearer``; it never enters the options, the
identity, a cache key, a log or an error message. vLLM, llama.cpp's server, Ollama
(``/v1``) and hosted APIs speak this protocol.

``transformers`` (:class:`LocalModel`): a causal LM from a local folder
(``model=DIR``), greedy, ``batch_size`` prompts at a time, left-padded, on ``device``;
the prompt is the same messages through the tokenizer's chat template when it has one,
else the messages' texts one a line.

A 429 or 5xx answer, a timeout (no bytes for ``timeout`` seconds, or no complete reply
``deadline`` seconds after the attempt started), a lost connection, a reply cut short or
a malformed body is retried up to ``retries`` times (:func:`retry_delay`); a refused
connection once, after a short wait; any other answer fails at once. The key is
``[redacted]`` in every message; on an error or a stop signal (Ctrl-C) the requests in
flight are abandoned at once. A reply longer than :func:`reply_limit` bytes is not read
past that bound (the line answered with nothing, marked ``oversized``, not cached).
docs/LLM.md ("When the server or the network misbehaves") says each in full.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any, Protocol

from cws_bench.display.units import plural
from cws_bench.errors import SegmenterError
from cws_bench.segmenters.base import TrainingData
from cws_bench.segmenters.neural import batched

__all__ = [
    "Backend",
    "ChatEndpoint",
    "LocalModel",
    "Reply",
    "Request",
    "api_key",
    "reply_limit",
    "retry_delay",
]

NAME = "llm"  # the segmenter the backends' errors name
MAX_WAIT = 60.0  # seconds: the longest wait between two attempts
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
    seconds = backoff * 2**attempt
    if retry_after:
        try:
            seconds = float(retry_after)
        except ValueError:  # an HTTP date, or neither
            with contextlib.suppress(TypeError, ValueError):
                seconds = parsedate_to_datetime(retry_after).timestamp() - time.time()
    return min(max(seconds, 0.0), MAX_WAIT)


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
        fields = ("start", "first_token", "end", "input_tokens", "output_tokens", "attempts")
        return {name: getattr(self, name) for name in fields}


class _Retryable(Exception):
    """A failure worth another attempt; ``retry_after`` is the server's header, if any;
    ``refused``: no server listened (worth one quick attempt more, not the back-off)."""

    def __init__(self, what: str, retry_after: str | None = None, refused: bool = False) -> None:
        super().__init__(what)
        self.retry_after = retry_after
        self.refused = refused


@dataclass(frozen=True)
class Request:
    """One line's request: its text (which bounds the reply's size), its chat messages,
    and the most tokens its reply may have."""

    text: str
    messages: list[dict[str, str]]
    max_tokens: int

    def parameters(self) -> dict[str, Any]:
        """What the model is asked: the messages, greedy (temperature 0), the token bound."""
        return {"messages": self.messages, "temperature": 0, "max_tokens": self.max_tokens}


class Backend(Protocol):
    """What answers the ``llm`` segmenter's requests."""

    trained_on: TrainingData | None
    """What the model learned from, when the backend knows (a local model's folder)."""

    def identity(self) -> dict[str, Any]:
        """What the replies depend on besides the request (the backend, the endpoint and
        model, or a local model's content): part of every cache key, never a secret."""
        ...

    def complete(self, requests: Sequence[Request]) -> list[Reply]:
        """One reply per request, in order; a request that cannot be answered raises
        :class:`~cws_bench.errors.SegmenterError`."""
        ...


@dataclass(kw_only=True, eq=False)
class ChatEndpoint:
    """An OpenAI-compatible chat endpoint (``backend = 'openai'``; see the module
    docstring for its failures and bounds). ``key`` is sent, never shown. The settings
    are :class:`~cws_bench.segmenters.llm.LLMSegmenter`'s options of the same names."""

    base_url: str
    model: str
    key: str | None = field(default=None, repr=False)
    stream: bool
    concurrency: int
    timeout: float
    deadline: float
    retries: int
    backoff: float
    trained_on: TrainingData | None = field(default=None, init=False)
    _stop: threading.Event = field(default_factory=threading.Event, init=False, repr=False)
    """Set when a run is abandoned: no attempt more."""

    def __post_init__(self) -> None:
        self.base_url = self.base_url.rstrip("/")

    def identity(self) -> dict[str, Any]:
        return {"backend": "openai", "base_url": self.base_url, "model": self.model}

    def complete(self, requests: Sequence[Request]) -> list[Reply]:
        self._stop.clear()
        if self.concurrency == 1 or len(requests) == 1:
            return [self._chat(request) for request in requests]
        # Not ``with``: its exit waits for every request in flight. On an error or a
        # stop signal (Ctrl-C) the requests in flight are abandoned at once: nothing
        # waits for them, queued ones never start, and no attempt follows.
        pool = ThreadPoolExecutor(max_workers=min(self.concurrency, len(requests)))
        try:
            return list(pool.map(self._chat, requests))
        finally:
            self._stop.set()
            pool.shutdown(wait=False, cancel_futures=True)

    def _redact(self, text: str) -> str:
        """``text`` with the key (and so the Authorization header's value) replaced."""
        return text.replace(self.key, REDACTED) if self.key else text

    def _chat(self, request: Request) -> Reply:
        """One line's request, with retries (see the module docstring)."""
        try:
            return self._attempts(request)
        except SegmenterError as e:
            e.message = self._redact(e.message)
            e.args = (e.message,)
            raise
        except Exception as e:  # whatever it is, its text may hold a header value
            raise SegmenterError(
                NAME, self._redact(f"{type(e).__name__}: {e}"), "check the endpoint"
            ) from None

    def _attempts(self, line: Request) -> Reply:
        body: dict[str, Any] = {"model": self.model, **line.parameters()}
        if self.stream:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.key:
            headers["Authorization"] = f"Bearer {self.key}"
        url = f"{self.base_url}/chat/completions"
        limit = reply_limit(line.max_tokens, line.text)
        failures: list[str] = []
        refusals = 0
        for attempt in range(self.retries + 1):
            if self._stop.is_set() and attempt:
                raise SegmenterError(NAME, f"{url}: abandoned (the run stopped)")
            request = urllib.request.Request(url, data=data, headers=headers, method="POST")
            try:
                reply = self._send(request, limit)
            except _Retryable as e:
                failures.append(str(e))
                if e.refused:
                    refusals += 1
                    if refusals > 1 or attempt == self.retries:
                        raise SegmenterError(
                            NAME,
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
            NAME,
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
            start, deadline = time.time(), time.monotonic() + self.deadline
            response = self._open(request, _opener(sockets))
            return self._read(response, limit, start, deadline)
        except (_Retryable, SegmenterError):
            if expired.is_set():
                raise _Retryable(
                    f"no complete answer within the deadline of {self.deadline:g} s"
                ) from None
            raise
        finally:
            timer.cancel()

    def _open(
        self, request: urllib.request.Request, opener: urllib.request.OpenerDirector
    ) -> http.client.HTTPResponse:
        """The answer's status and headers, or a failure (:class:`_Retryable` or not)."""
        try:
            response: http.client.HTTPResponse = opener.open(
                request, timeout=min(self.timeout, self.deadline)
            )
        except urllib.error.HTTPError as e:
            detail = _error_detail(e)
            if e.code in RETRY_STATUSES:
                raise _Retryable(f"HTTP {e.code}{detail}", e.headers.get("Retry-After")) from None
            raise SegmenterError(
                NAME,
                f"{request.full_url}: HTTP {e.code}{detail}",
                "check the endpoint, the model name and the key (api_key_env)",
            ) from None
        except TimeoutError:
            raise _Retryable(f"no answer within {self.timeout:g} s") from None
        except (urllib.error.URLError, http.client.HTTPException, OSError) as e:
            reason = getattr(e, "reason", e)
            refused = isinstance(reason, ConnectionRefusedError)
            raise _Retryable(f"connection failed: {reason}", refused=refused) from None
        return response

    def _read(
        self, response: http.client.HTTPResponse, limit: int, start: float, deadline: float
    ) -> Reply:
        """The answer's body, a stream read as it comes or one JSON object, at most
        ``limit`` bytes of it (a longer one: an ``oversized`` empty reply) and until
        ``deadline`` (a :func:`time.monotonic` time)."""
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
        return Reply(content or "", *_usage(answer.get("usage") or {}), start, end, end)


class LocalModel:
    """A causal LM from a local folder (``backend = 'transformers'``): greedy,
    ``batch_size`` prompts at a time, left-padded, on ``device``. The folder is there
    (:meth:`~cws_bench.segmenters.llm.LLMSegmenter.model_problem`, checked first)."""

    def __init__(self, folder: str, *, device: str, dtype: str, batch_size: int) -> None:
        try:
            import transformers
        except ImportError as e:
            raise ImportError(f"backend 'transformers' needs transformers and torch: {e}") from e
        from cws_bench.segmenters.neural import folder_checksum, load_pretrained, resolve_device
        from cws_bench.system.installed import installed_versions

        self.device, gpu = resolve_device(NAME, device)
        transformers.logging.set_verbosity_error()
        self.tokenizer, self.lm = load_pretrained(
            NAME, folder, folder, transformers.AutoModelForCausalLM, dtype
        )
        self.lm.to(self.device).eval()
        self.tokenizer.padding_side = "left"
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.batch_size = batch_size
        self.trained_on: TrainingData | None = TrainingData(f"the training data of {folder}")
        self._identity = {
            "backend": "transformers",
            "model": os.path.abspath(folder),
            "checksum": folder_checksum(folder),
            "device": self.device,
            "gpu": gpu,
            "dtype": dtype,
            "versions": installed_versions("transformers", "torch", "tokenizers"),
        }

    def identity(self) -> dict[str, Any]:
        return dict(self._identity)

    def render(self, messages: list[dict[str, str]]) -> str:
        """The model's prompt: its chat template, else the messages one a line."""
        if getattr(self.tokenizer, "chat_template", None):
            template = self.tokenizer.apply_chat_template
            return str(template(messages, tokenize=False, add_generation_prompt=True))
        return "".join(m["content"] + "\n" for m in messages)

    def complete(self, requests: Sequence[Request]) -> list[Reply]:
        import torch

        out: list[Reply] = []
        eos = self.tokenizer.eos_token_id
        for group in batched(requests, self.batch_size):
            prompts = [self.render(request.messages) for request in group]
            bound = max(request.max_tokens for request in group)
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
                if eos is not None and eos in new:
                    new = new[: new.index(eos) + 1]
                text = self.tokenizer.decode(new, skip_special_tokens=True)
                out.append(Reply(str(text), int(mask.sum()), len(new), start, end, end))
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
        first = end if self.first is None else self.first
        return Reply("".join(self.parts), *_usage(self.usage), start, first, end)


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


def _usage(usage: dict[str, Any]) -> tuple[int | None, int | None]:
    """The prompt's and the reply's token counts in a ``usage`` object (None: not a count)."""
    prompt, reply = (usage.get(key) for key in ("prompt_tokens", "completion_tokens"))
    return _count(prompt), _count(reply)


def _count(value: Any) -> int | None:
    return int(value) if isinstance(value, (int, float)) and value >= 0 else None


def _error_detail(error: urllib.error.HTTPError) -> str:
    try:
        body = error.read(400).decode("utf-8", errors="replace").strip()
    except Exception:
        body = ""
    return f": {body}" if body else ""


def api_key(variable: str) -> str:
    """The key in the environment variable ``variable``, stripped (of a file's trailing
    newline); refused, without showing it, when it is not a header value."""
    raw = os.environ.get(variable)
    if raw is None or not raw.strip():
        raise SegmenterError(
            NAME,
            f"the environment variable {variable} (api_key_env) is "
            + ("not set" if raw is None else "empty"),
            "export the API key in that variable, or leave out api_key_env for an "
            "endpoint that needs no key",
        )
    key = raw.strip()
    if any(not ("!" <= ch <= "~") for ch in key):
        raise SegmenterError(
            NAME,
            f"the API key in {variable} (api_key_env) holds a space, a control character "
            "or a non-ASCII character inside (not shown here)",
            "set the variable to the key alone",
        )
    return key
