"""Checksums: one for sentences, one for a file's bytes, both 16 hex digits of BLAKE2b.

A *sentence checksum* names segmented text whatever its layout and encoding:
each sentence hashed as its words joined by one space plus a newline. Every
path that names gold data uses it (``score_files``, ``score_sentences``,
``Corpus.checksum``, the bake-off, the regression baseline, ...), so the
``gold:`` signatures of the same sentences match.

A *file checksum* names a file by its bytes (cache keys, baselines), and
:func:`path_checksum` a folder by its files'. A *model checksum*
(:func:`model_checksum`, 32 hex digits) is what a neural adapter's identity
prints of its model (``segmenter_info.model.checksum``); it keeps its own
bytes so that earlier runs' identities still compare equal.

Every BLAKE2b hash in cws-bench is made here (:func:`hash_hex`, :func:`hasher`)
with the digest size of its purpose (:data:`DIGEST_SIZES`), but for the host tag
in temporaries' names (:mod:`cws_bench.system.temporaries`), below this layer.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal

from cws_bench.text.joined import is_joined_line, joined

__all__ = [
    "DIGEST_SIZES",
    "LineDigest",
    "SentenceDigest",
    "file_checksum",
    "hash_hex",
    "hasher",
    "model_checksum",
    "path_checksum",
    "sentences_checksum",
    "short_hash",
]

Purpose = Literal["checksum", "cache", "identity", "signature"]

DIGEST_SIZES: dict[Purpose, int] = {
    # 16 hex digits: names of data that signatures, results.json and baselines print
    # (sentences, files, dictionaries, token ids, training data), and short names
    # made of content (a folder of extracted files, a palette slot, a text's key)
    "checksum": 8,
    # 20 hex digits: the keys of the run cache, its shards, and trained models on disk
    "cache": 10,
    # 32 hex digits: what names one of very many stored things (a results record,
    # an LLM request's cached reply, a model's content)
    "identity": 16,
    # 8 hex digits: the options digest inside a pair's signature (``opts:...``)
    "signature": 4,
}
"""Purpose -> BLAKE2b digest size in bytes: one size per purpose. The sizes are those
the printed checksums and on-disk keys already have, so no number or name changes."""


def hasher(purpose: Purpose = "checksum") -> Any:
    """A fresh BLAKE2b hash object (``update``, ``hexdigest``) of ``purpose``'s size."""
    return hashlib.blake2b(digest_size=DIGEST_SIZES[purpose])


def hash_hex(data: bytes | str, purpose: Purpose = "checksum") -> str:
    """The hex BLAKE2b digest of ``data`` (a str is hashed as UTF-8) for ``purpose``.

    >>> hash_hex("结婚"), hash_hex("结婚", "cache"), len(hash_hex(b"", "signature"))
    ('b986e2feeb8f3f53', 'b9fd76699b38a1bb6825', 8)
    """
    if isinstance(data, str):
        data = data.encode("utf-8")
    return hashlib.blake2b(data, digest_size=DIGEST_SIZES[purpose]).hexdigest()


def short_hash(data: bytes | str) -> str:
    """A 16-hex-digit BLAKE2b digest, as signatures show checksums (``checksum``'s size).

    >>> short_hash("结婚")
    'b986e2feeb8f3f53'
    """
    return hash_hex(data, "checksum")


class SentenceDigest:
    """The sentence checksum, fed one sentence (a list of words) or one text line at a time.

    >>> d = SentenceDigest()
    >>> d.add(["结婚", "的"]); d.add_line("  和\\t尚未 ")
    >>> d.hexdigest() == sentences_checksum([["结婚", "的"], ["和", "尚未"]])
    True
    """

    def __init__(self) -> None:
        self._digest = hasher("checksum")

    def add(self, words: Sequence[str]) -> None:
        """Add one sentence."""
        self._digest.update(joined(words, " ").encode("utf-8"))
        self._digest.update(b"\n")

    def add_line(self, line: str) -> None:
        """Add one segmented line (words separated by any whitespace)."""
        if is_joined_line(line):  # already its words joined by one space
            self._digest.update(line.encode("utf-8"))
            self._digest.update(b"\n")
        else:
            self.add(line.split())

    def hexdigest(self) -> str:
        return self._digest.hexdigest()


def sentences_checksum(sentences: Iterable[Sequence[str]]) -> str:
    """The sentence checksum of some sentences (lists of words).

    >>> sentences_checksum([["结婚", "的"], []]) == short_hash("结婚 的\\n\\n")
    True
    """
    digest = SentenceDigest()
    for words in sentences:
        digest.add(words)
    return digest.hexdigest()


def _single_spaced_python(chunk: bytes) -> bytes:
    """Whole UTF-8 lines (each ending in ``\\n``), each as its words joined by one space.

    The reference of the compiled ``_kernel.single_spaced``.

    >>> _single_spaced_python("\u3000结婚  的 \\r\\n\\t\\n和\\n".encode()).decode()
    '结婚 的\\n\\n和\\n'
    """
    lines = chunk.decode("utf-8", "surrogateescape").split("\n")[:-1]
    text = "".join(" ".join(line.split()) + "\n" for line in lines)
    return text.encode("utf-8", "surrogateescape")


try:
    from cws_bench._kernel import single_spaced as _single_spaced
except ImportError:  # pragma: no cover - an install without a C compiler
    _single_spaced = _single_spaced_python


class LineDigest:
    """The sentence checksum of UTF-8 text fed as byte blocks (a hashlib-like ``update``).

    Blocks need not end at a line end; a final line without a newline counts. Runs of
    whitespace are rewritten on the bytes by the compiled kernel, without decoding.

    >>> d = LineDigest()
    >>> d.update("结婚  的\\n和 尚".encode()); d.update("未".encode())
    >>> d.hexdigest() == sentences_checksum([["结婚", "的"], ["和", "尚未"]])
    True
    """

    def __init__(self) -> None:
        self._digest = hasher("checksum")
        self._pending = b""
        self._final: str | None = None

    def update(self, data: bytes) -> None:
        data = self._pending + data if self._pending else data
        cut = data.rfind(b"\n") + 1
        self._pending = data[cut:]
        if cut:
            self._digest.update(_single_spaced(data[:cut] if cut < len(data) else data))

    def hexdigest(self) -> str:
        if self._final is None:
            if self._pending:
                self._digest.update(_single_spaced(self._pending + b"\n"))
                self._pending = b""
            self._final = self._digest.hexdigest()
        return self._final


def file_checksum(path: str | os.PathLike[str]) -> str:
    """A 16-hex-digit BLAKE2b digest of a file's bytes (:func:`short_hash` of its content).

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = os.path.join(d, "words.txt")
    ...     _ = open(p, "w", encoding="utf-8").write("结婚\\n")
    ...     file_checksum(p), file_checksum(p) == short_hash("结婚\\n")
    ('f1a4b62333732ad9', True)
    """
    digest = hasher("checksum")
    _add_file(digest, path)
    return digest.hexdigest()


def _add_file(digest: Any, path: str | os.PathLike[str]) -> None:
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            digest.update(block)


def path_checksum(
    path: str | os.PathLike[str], *, file_hash: Callable[[str], str] = file_checksum
) -> str:
    """The content of a file or of a folder's files, as one checksum.

    A folder hashes each regular file below it (names relative to the folder,
    sorted, then their ``file_hash``, by default :func:`file_checksum`), so a
    model folder whose files change gets a new checksum.

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = open(os.path.join(d, "a.txt"), "w").write("x")
    ...     before = path_checksum(d)
    ...     _ = open(os.path.join(d, "a.txt"), "w").write("y")
    ...     before != path_checksum(d)
    True
    """
    if not os.path.isdir(path):
        return file_hash(os.fspath(path))
    entries: list[Any] = []
    for root, dirs, files in os.walk(path):
        dirs.sort()
        for name in sorted(files):
            full = os.path.join(root, name)
            if os.path.isfile(full):
                entries.append([os.path.relpath(full, path), file_hash(full)])
    return short_hash(repr(entries))


def model_checksum(path: str | os.PathLike[str]) -> str:
    """The content checksum of a model file or folder (32 hex digits of BLAKE2b).

    A file: its bytes. A folder: each file's path relative to the folder (in
    sorted order), a NUL, its bytes and a NUL; hidden files and folders
    (``.git``, ``.cache``) are left out.

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = open(os.path.join(d, "m.bin"), "wb").write(b"x")
    ...     os.mkdir(os.path.join(d, ".cache"))
    ...     _ = open(os.path.join(d, ".cache", "lock"), "wb").write(b"y")
    ...     folder = model_checksum(d)
    ...     file = model_checksum(os.path.join(d, "m.bin"))
    >>> folder == hashlib.blake2b(b"m.bin\\0x\\0", digest_size=16).hexdigest()
    True
    >>> file == hashlib.blake2b(b"x", digest_size=16).hexdigest()
    True
    """
    from pathlib import Path

    digest = hasher("identity")
    root = Path(path)
    if not root.is_dir():
        _add_file(digest, root)
        return digest.hexdigest()
    for file in sorted(p for p in root.rglob("*") if p.is_file()):
        relative = file.relative_to(root)
        if any(part.startswith(".") for part in relative.parts):
            continue
        digest.update(relative.as_posix().encode("utf-8") + b"\0")
        _add_file(digest, file)
        digest.update(b"\0")
    return digest.hexdigest()
