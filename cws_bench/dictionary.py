"""Word lists: what counts as in-vocabulary (IV) and out-of-vocabulary (OOV).

A gold word is OOV when it is not in the dictionary. The SIGHAN bakeoffs use
the word types of a corpus' training set (``*_training_words.utf8``).
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property

from cws_bench.errors import CorpusFormatError, CwsBenchError
from cws_bench.io import PathLike, display_name, iter_line_blocks

__all__ = ["Dictionary", "as_dictionary", "load_dictionary", "parse_dictionary_line"]

# jieba's dictionary and user-dictionary line: word, optional frequency,
# optional lowercase POS tag (jieba/__init__.py, re_userdict), here with any
# run of spaces or tabs between the fields.
_JIEBA_LINE = re.compile(r"^(.+?)(?:[ \t]+([0-9]+))?(?:[ \t]+([a-z]+))?$")


def parse_dictionary_line(line: str) -> str | None:
    """The word on one dictionary line, or None for a blank line.

    A line is either one word, or jieba's ``word [freq] [tag]``. Surrounding
    whitespace (and a byte-order mark) is ignored.

    >>> parse_dictionary_line("  尚未 \\r")
    '尚未'
    >>> parse_dictionary_line("云计算 5 n")
    '云计算'
    >>> parse_dictionary_line("easy_install 3 eng")
    'easy_install'
    >>> parse_dictionary_line("台中") , parse_dictionary_line("   ")
    ('台中', None)
    """
    line = line.strip().lstrip("\ufeff").strip()
    if not line:
        return None
    match = _JIEBA_LINE.match(line)
    return match.group(1).strip() if match else line


_FNV_OFFSET = 14695981039346656037
_FNV_PRIME = 1099511628211
_MASK64 = (1 << 64) - 1


def _checksum_parts_python(words: Iterable[str]) -> tuple[int, int, int]:
    """Pure-Python twin of ``_kernel.checksum_parts`` (FNV-1a over UTF-8 bytes)."""
    size = key_sum = key_xor = 0
    for word in words:
        h = _FNV_OFFSET
        for byte in word.encode("utf-8"):
            h = ((h ^ byte) * _FNV_PRIME) & _MASK64
        size += 1
        key_sum = (key_sum + h) & _MASK64
        key_xor ^= h
    return size, key_sum, key_xor


try:
    from cws_bench._kernel import checksum_parts as _checksum_parts
except ImportError:  # pragma: no cover - installed without the compiled kernel
    _checksum_parts = _checksum_parts_python


@dataclass(frozen=True)
class Dictionary:
    """An immutable set of words with a name and a content checksum.

    Args:
        words: the word types.
        name: where it came from (a file name, a corpus split, ...).
    """

    words: frozenset[str]
    name: str = "<words>"

    @classmethod
    def from_words(cls, words: Iterable[str], name: str = "<words>") -> Dictionary:
        """Build a dictionary from any iterable of words (blank ones dropped)."""
        return cls(frozenset(w for w in words if w), name)

    def __contains__(self, word: object) -> bool:
        return word in self.words

    def __len__(self) -> int:
        return len(self.words)

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self.words))

    @cached_property
    def checksum(self) -> str:
        """A short hash of the word set: equal word sets, equal checksums.

        The size, sum and XOR of the words' 64-bit FNV-1a hashes, which do not
        depend on order, are hashed with BLAKE2b; this avoids sorting the
        words, which would cost more than scoring a file against them.

        >>> Dictionary.from_words(["b", "a"]).checksum == Dictionary.from_words(["a", "b"]).checksum
        True
        >>> Dictionary.from_words(["a"]).checksum == Dictionary.from_words(["a", "b"]).checksum
        False
        """
        size, key_sum, key_xor = _checksum_parts(self.words)
        summary = f"{size}:{key_sum}:{key_xor}".encode("ascii")
        return hashlib.blake2b(summary, digest_size=8).hexdigest()

    def __or__(self, other: Dictionary) -> Dictionary:
        return Dictionary(self.words | other.words, f"{self.name}|{other.name}")

    def __sub__(self, other: Dictionary) -> Dictionary:
        return Dictionary(self.words - other.words, f"{self.name}-{other.name}")


def load_dictionary(path: PathLike, *, encoding: str = "utf-8") -> Dictionary:
    """Read a dictionary file: one word a line, or jieba's ``word freq tag`` lines.

    See :func:`parse_dictionary_line` for how a line is read.

    Raises:
        CwsBenchError: the file is missing, unreadable or holds no word.
    """
    words: set[str] = set()
    for block in iter_line_blocks(path, encoding=encoding):
        stripped = [word for word in map(str.strip, block) if word]
        # Most files hold one bare word a line: then splitting their joined text
        # gives each line back whole, and no line needs parsing.
        if len("\n".join(stripped).split()) == len(stripped):
            words.update(stripped)
        else:
            words.update(filter(None, map(parse_dictionary_line, stripped)))
    if not words:
        raise CorpusFormatError(
            display_name(path),
            None,
            "dictionary file holds no word",
            "give a file with one word a line, or leave out --dict to skip OOV figures",
        )
    return Dictionary(frozenset(words), os.path.basename(os.fspath(path)))


def as_dictionary(value: Dictionary | Iterable[str] | PathLike | None) -> Dictionary | None:
    """Accept a Dictionary, a path to a dictionary file, an iterable of words, or None."""
    if value is None or isinstance(value, Dictionary):
        return value
    if isinstance(value, (str, os.PathLike)):
        return load_dictionary(value)
    try:
        return Dictionary.from_words(value)
    except TypeError as e:
        raise CwsBenchError(f"cannot use {type(value).__name__} as a dictionary") from e
