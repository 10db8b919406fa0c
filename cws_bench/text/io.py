"""Reading and writing text files: encodings, BOM, line ends, separators.

Segmented text is one sentence a line, words separated by any run of Unicode
whitespace (``str.split()`` with no argument, so the ideographic space U+3000
counts). Files are read in binary blocks and decoded block by block, so memory
stays flat however long the file is, and a decoding error names the file, the
line and the byte offset, and suggests the ``--encoding`` that would work.

Only ASCII-compatible encodings are read (UTF-8, GB18030/GBK/CP936,
Big5/Big5-HKSCS, ...): their line feed is always the byte 0x0A.
"""

from __future__ import annotations

import codecs
import contextlib
import dataclasses
import itertools
import os
import re
import sys
from collections.abc import Iterable, Iterator
from typing import IO, Any, BinaryIO, Protocol

from cws_bench.errors import CwsBenchError, DecodingError, Fix

__all__ = [
    "STDIN",
    "BackgroundHasher",
    "Digest",
    "Hasher",
    "atomic_write",
    "check_writable",
    "decoding_error",
    "decoding_hint",
    "display_name",
    "iter_line_blocks",
    "iter_lines",
    "make_folder",
    "normalize_encoding",
    "open_binary",
    "orjson_loads",
    "read_segmented",
    "suggest_encoding",
    "write_segmented",
]

STDIN = "-"
"""The path that means standard input (or output, where a path is written)."""

BLOCK_SIZE = 1 << 20
_BOM = "\ufeff"
# Encodings a Chinese text file is likely to be in, in the order we suggest them.
_CANDIDATES = ("utf-8", "gb18030", "big5hkscs")

PathLike = str | os.PathLike[str]


def orjson_loads(data: str | bytes) -> Any:
    """JSON text's value by orjson (several times as fast as :mod:`json`), when it is
    the value :mod:`json` gives.

    orjson reads an integer past 64 bits as a float (``1e+23``) where :mod:`json`
    keeps the integer: text with a run of 19 or more digits that does not follow a
    decimal point (no integer within 64 bits has more; a float's fraction may) is
    left to :mod:`json`, as is what orjson refuses (``NaN``).

    >>> orjson_loads('[1, 2.5, "x"]')
    [1, 2.5, 'x']
    >>> orjson_loads("[0.0009381661727260374]")  # 19 digits, but a fraction's
    [0.0009381661727260374]
    >>> orjson_loads("[99999999999999999999999]")
    Traceback (most recent call last):
    ...
    ValueError: an integer may be past 64 bits: parse with json

    Raises:
        ValueError: orjson refuses the text, or might read it otherwise than :mod:`json`;
            the caller parses it with :mod:`json` (for json's value, or its error).
    """
    import orjson

    text = data.decode("latin-1") if isinstance(data, bytes) else data  # digits are ASCII
    if re.search(r"(?<![0-9.])[0-9]{19}", text):
        raise ValueError("an integer may be past 64 bits: parse with json")
    return orjson.loads(data)  # orjson.JSONDecodeError is a ValueError


class Hasher(Protocol):
    """Anything with ``update(bytes)``, such as a :mod:`hashlib` object."""

    def update(self, data: bytes, /) -> None: ...


class Digest(Hasher, Protocol):
    """A :class:`Hasher` that says its digest: a :mod:`hashlib` object, a
    :class:`~cws_bench.text.checksums.LineDigest`."""

    def hexdigest(self) -> str: ...


class BackgroundHasher:
    """Feeds a hashlib object from a thread of its own.

    hashlib releases the GIL while it hashes a large buffer, so a file's
    checksum is computed on another core while the caller goes on reading and
    scoring it. :meth:`hexdigest` waits for the thread.

    >>> import hashlib
    >>> h = BackgroundHasher(hashlib.sha256())
    >>> h.update(b"abc")
    >>> h.hexdigest() == hashlib.sha256(b"abc").hexdigest()
    True
    """

    def __init__(self, hasher: Digest) -> None:
        import queue
        import threading

        self._hasher = hasher
        self._queue: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="hasher", daemon=True)
        self._thread.start()
        self._digest: str | None = None

    def _run(self) -> None:
        while (data := self._queue.get()) is not None:
            self._hasher.update(data)

    def update(self, data: bytes) -> None:
        self._queue.put(data)

    def hexdigest(self) -> str:
        if self._digest is None:
            self._queue.put(None)
            self._thread.join()
            self._digest = self._hasher.hexdigest()
        return self._digest


def display_name(source: PathLike) -> str:
    """The name of a source as messages show it (``<stdin>`` for ``-``)."""
    name = os.fspath(source)
    return "<stdin>" if name == STDIN else name


def normalize_encoding(encoding: str) -> str:
    """Return the canonical codec name, checking the codec can be read here.

    ``utf-8-sig`` becomes ``utf-8``: a byte-order mark is always stripped.

    >>> normalize_encoding("UTF8"), normalize_encoding("cp936"), normalize_encoding("big5-hkscs")
    ('utf-8', 'gbk', 'big5hkscs')

    Raises:
        CwsBenchError: the encoding is unknown or not ASCII-compatible.
    """
    try:
        info = codecs.lookup(encoding)
    except LookupError as e:
        raise CwsBenchError(
            f"unknown encoding {encoding!r}",
            "use a Python codec name such as utf-8, gb18030 or big5hkscs",
        ) from e
    name = "utf-8" if info.name == "utf-8-sig" else info.name
    if "\n".encode(name) != b"\n" or "a ".encode(name) != b"a ":
        raise CwsBenchError(
            f"encoding {encoding!r} is not ASCII-compatible and cannot be read line by line",
            f"convert the file first, e.g. `iconv -f {encoding} -t utf-8 FILE > FILE.utf8`",
        )
    return name


def suggest_encoding(sample: bytes, failed: str) -> str | None:
    """Guess which encoding a sample that failed to decode as ``failed`` is in.

    Candidates are UTF-8, GB18030 and Big5-HKSCS; those that decode the sample
    cleanly are ranked by charset-normalizer (GB18030 decodes most Big5 text
    without error, so decoding alone cannot tell them apart). None when none fits.
    """
    cut = sample.rfind(b"\n")
    if cut > 0:
        sample = sample[: cut + 1]
    fits = []
    for name in _CANDIDATES:
        if codecs.lookup(name).name == codecs.lookup(failed).name:
            continue
        try:
            sample.decode(name)
        except UnicodeDecodeError:
            continue
        fits.append(name)
    if len(fits) > 1:
        import charset_normalizer

        best = charset_normalizer.from_bytes(sample, cp_isolation=fits).best()
        if best is not None:
            return codecs.lookup(best.encoding).name
    return fits[0] if fits else None


@contextlib.contextmanager
def open_binary(source: PathLike) -> Iterator[BinaryIO]:
    """Open a file (or ``-``, standard input) for binary reading, with clear errors."""
    if os.fspath(source) == STDIN:
        yield sys.stdin.buffer
        return
    path = os.fspath(source)
    try:
        f = open(path, "rb")  # noqa: SIM115 - closed by the with below
    except FileNotFoundError as e:
        from cws_bench.suggest import missing_file_hint

        raise CwsBenchError(f"{path}: no such file", missing_file_hint(path)) from e
    except IsADirectoryError as e:
        raise CwsBenchError(f"{path}: is a directory, expected a file") from e
    except PermissionError as e:
        raise CwsBenchError(f"{path}: permission denied") from e
    except OSError as e:
        raise CwsBenchError(f"{path}: cannot be opened ({e.strerror or e})") from e
    with f:
        try:
            yield f
        except OSError as e:
            if e.filename is not None:
                raise
            # e.g. /proc/self/mem, a device, a file on a failing disk
            raise CwsBenchError(
                f"{path}: cannot be read ({e.strerror or e})", "give a regular, readable file"
            ) from e


def decoding_error(source: PathLike, encoding: str, line: int, offset: int) -> DecodingError:
    """The error for bytes at ``offset`` (line ``line``) that are not valid ``encoding``,
    its hint suggesting the encoding the file seems to be in."""
    suggestion = None
    if os.fspath(source) != STDIN:
        with open(source, "rb") as f:
            suggestion = suggest_encoding(f.read(1 << 16), encoding)
    name = display_name(source)
    hint, fixes = decoding_hint(name, suggestion)
    return DecodingError(name, line, offset, encoding, hint, suggestion=suggestion, fixes=fixes)


def decoding_hint(
    name: str, suggestion: str | None, parameter: str = "encoding"
) -> tuple[str, tuple[Fix]]:
    """The hint of a decoding error and its fix: the encoding ``parameter`` to pass.

    >>> hint, fixes = decoding_hint("words.txt", "utf-8", "dict_encoding")
    >>> hint.replace("{0}", fixes[0].api())
    'words.txt looks like utf-8: pass dict_encoding="utf-8"'
    """
    if suggestion:
        return f"{name} looks like {suggestion}: pass {{0}}", (Fix(parameter, suggestion),)
    hint = f"pass the encoding of {name} with {{0}} (e.g. gb18030 or big5hkscs)"
    return hint, (Fix(parameter),)


@contextlib.contextmanager
def encoding_parameters(files: Iterable[tuple[object, str]]) -> Iterator[None]:
    """Name in a decoding error's fix the parameter that sets the encoding of the file at fault.

    ``files`` pairs each file (a path; anything else is skipped) with the
    parameter that sets its encoding (``pred_encoding``, ...); a later pair
    wins for the same file.
    """
    try:
        yield
    except DecodingError as e:
        names = {
            display_name(path): parameter
            for path, parameter in files
            if isinstance(path, str | os.PathLike)
        }
        parameter = names.get(e.path)
        if parameter is not None:
            e.fixes = tuple(dataclasses.replace(fix, parameter=parameter) for fix in e.fixes)
        raise


def iter_line_blocks(
    source: PathLike,
    *,
    encoding: str = "utf-8",
    block_size: int = BLOCK_SIZE,
) -> Iterator[list[str]]:
    """Yield the lines of a text file, a decoded block of them at a time.

    Lines come without their line end (``\\n`` or ``\\r\\n``), split on ``\\n``
    only (not U+2028, U+0085, ...: line numbers match ``wc -l``); a missing final
    newline is fine; a UTF-8 byte-order mark is dropped. ``source`` is a path or
    ``-`` (standard input).

    Raises:
        CwsBenchError: the file is missing or unreadable.
        DecodingError: bytes are not valid in ``encoding``.
    """
    encoding = normalize_encoding(encoding)
    decode = codecs.getdecoder(encoding)
    line_no = 0
    offset = 0
    first = True
    pending = b""
    with open_binary(source) as f:
        while True:
            block = f.read(block_size)
            if block:
                data = pending + block if pending else block
                cut = data.rfind(b"\n") + 1
                if cut == 0:
                    pending = data
                    continue
                chunk, pending = data[:cut], data[cut:]
            elif pending:
                chunk, pending = pending, b""
            else:
                return
            try:
                text = decode(chunk)[0]
            except UnicodeDecodeError as e:
                line = line_no + chunk.count(b"\n", 0, e.start) + 1
                raise decoding_error(source, encoding, line, offset + e.start) from None
            if first:
                first = False
                if text.startswith(_BOM):
                    text = text[1:]
            if "\r" in text:
                text = text.replace("\r\n", "\n")
            lines = text.split("\n")
            if chunk.endswith(b"\n"):
                lines.pop()
            elif lines[-1].endswith("\r"):
                lines[-1] = lines[-1][:-1]
            line_no += len(lines)
            offset += len(chunk)
            yield lines


def iter_lines(source: PathLike, *, encoding: str = "utf-8") -> Iterator[str]:
    """Yield the lines of a text file one at a time (see :func:`iter_line_blocks`).

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = os.path.join(d, "t.txt")
    ...     _ = open(p, "wb").write("\\ufeff我们\\u3000是\\r\\n学生".encode("utf-8"))
    ...     list(iter_lines(p))
    ['我们\\u3000是', '学生']
    """
    return itertools.chain.from_iterable(iter_line_blocks(source, encoding=encoding))


def read_segmented(source: PathLike, *, encoding: str = "utf-8") -> Iterator[list[str]]:
    """Each line of a segmented text file as its list of words."""
    return map(str.split, iter_lines(source, encoding=encoding))


def _check_folder(target: PathLike) -> str:
    """The folder of ``target``; raises when it is missing or a file, or ``target`` a folder."""
    path = os.fspath(target)
    directory = os.path.dirname(path) or "."
    if os.path.exists(directory) and not os.path.isdir(directory):
        raise CwsBenchError(f"{path}: {directory} is a file, not a folder", "give another path")
    if not os.path.isdir(directory):
        raise CwsBenchError(f"{path}: folder {directory} does not exist", "create it first")
    if os.path.isdir(path):
        raise CwsBenchError(f"{path}: is a folder", "give a file name")
    return directory


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_write(
    target: PathLike, *, encoding: str | None = "utf-8", newline: str | None = "\n"
) -> Iterator[IO]:
    """Open a temporary file beside ``target`` and move it into place on success.

    Nothing is ever half-written: if the block raises, the temporary file is
    removed and ``target`` is untouched. ``-`` writes to standard output.
    ``encoding`` None opens the file in binary mode.
    """
    if os.fspath(target) == STDIN:
        yield sys.stdout.buffer if encoding is None else sys.stdout
        sys.stdout.flush()
        return
    from cws_bench.system.temporaries import discard, make_temporary

    path, directory = os.fspath(target), _check_folder(target)
    try:
        fd, tmp = make_temporary(path)
    except OSError as e:
        raise CwsBenchError(
            f"{path}: cannot write in folder {directory} ({e.strerror or e})",
            "choose a folder you can write to",
        ) from e
    try:
        # mkstemp makes the file private (0600); give it the mode open() would.
        os.chmod(tmp, 0o666 & ~_umask())
        kwargs: dict[str, Any] = (
            {} if encoding is None else {"encoding": encoding, "newline": newline}
        )
        with os.fdopen(fd, "wb" if encoding is None else "w", **kwargs) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        discard(tmp, remove=False)
    except BaseException:
        discard(tmp)
        raise


def check_writable(target: PathLike) -> None:
    """Raise a CwsBenchError now if ``target`` cannot be written later.

    For a check before a long run whose result would be lost: the folder is
    missing, is a file, or cannot be written, or ``target`` is a folder.
    """
    path = os.fspath(target)
    if path == STDIN:
        return
    directory = _check_folder(path)
    if not os.access(directory, os.W_OK):
        raise CwsBenchError(
            f"{path}: cannot write in folder {directory} (permission denied)",
            "choose a folder you can write to",
        )


def make_folder(folder: PathLike) -> None:
    """Create a folder and its parents, or raise a CwsBenchError saying why it cannot be."""
    try:
        os.makedirs(folder, exist_ok=True)
    except FileExistsError as e:
        raise CwsBenchError(f"{os.fspath(folder)}: exists and is not a folder") from e
    except OSError as e:
        raise CwsBenchError(
            f"{os.fspath(folder)}: cannot create this folder ({e.strerror or e})",
            "choose a folder you can write to",
        ) from e


def write_segmented(
    target: PathLike, sentences: Iterable[Iterable[str]], *, separator: str = " "
) -> None:
    """Write sentences one a line, words joined by ``separator``, atomically."""
    with atomic_write(target) as f:
        for words in sentences:
            f.write(separator.join(words))
            f.write("\n")
