"""Word lists: what counts as in-vocabulary (IV) and out-of-vocabulary (OOV).

A gold word is OOV when it is not in the dictionary; the SIGHAN bakeoffs use
the word types of a corpus' training set (``*_training_words.utf8``).
Dictionaries come from files (one word a line, or jieba's ``word freq tag``),
the word types of sentences, jieba's own, union and difference;
:func:`cws_bench.corpora.words.resolve_words` reads the command line's ``--dict``.
"""

from __future__ import annotations

import codecs
import importlib.util
import itertools
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from cws_bench.errors import CorpusFormatError, CwsBenchError, Fix
from cws_bench.text.checksums import hash_hex
from cws_bench.text.io import (
    STDIN,
    PathLike,
    display_name,
    iter_line_blocks,
    normalize_encoding,
    open_binary,
)

if TYPE_CHECKING:
    from cws_bench.text.normalize import Normalizer

__all__ = [
    "Dictionary",
    "WordsLike",
    "difference",
    "jieba_dictionary",
    "jieba_dictionary_path",
    "load_dictionary",
    "parse_dictionary_line",
    "union",
]

# jieba's dictionary and user-dictionary line: word, optional frequency,
# optional lowercase POS tag (jieba/__init__.py, re_userdict), here with any
# run of spaces or tabs between the fields.
_JIEBA_LINE = re.compile(r"^(.+?)(?:[ \t]+([0-9]+))?(?:[ \t]+([a-z]+))?$")


# A whole block of "word freq tag" lines, each word without whitespace.
_JIEBA_BLOCK = re.compile(r"^(\S+) [0-9]+ [a-z]+$", re.MULTILINE)


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


def _word_of_stripped_line(line: str) -> str | None:
    """:func:`parse_dictionary_line` for a stripped line, without the regular expression
    for ``word freq tag`` with single spaces, an ASCII number and tag (jieba's dict.txt)."""
    parts = line.split(" ")
    if (
        len(parts) == 3
        and parts[1].isascii()
        and parts[1].isdigit()
        and parts[2].isascii()
        and parts[2].isalpha()
        and parts[2].islower()
    ):
        return parts[0].strip() or None
    return parse_dictionary_line(line)


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
    from cws_bench import _kernel
except ImportError:  # pragma: no cover - installed without the compiled kernel
    _kernel = None
_checksum_parts = _checksum_parts_python if _kernel is None else _kernel.checksum_parts


@dataclass(frozen=True)
class Dictionary:
    """An immutable set of words with a name (where it came from: a file name, a corpus
    split, ...) and a content checksum."""

    words: frozenset[str]
    name: str = "<words>"

    @classmethod
    def from_words(cls, words: Iterable[str], name: str = "<words>") -> Dictionary:
        """Build a dictionary from any iterable of words (blank ones dropped)."""
        return cls(frozenset(w for w in words if w), name)

    def normalized(self, normalizer: Normalizer) -> Dictionary:
        """The dictionary as text normalised by ``normalizer`` sees it, named after both.

        >>> from cws_bench.text.normalize import get_normalizer
        >>> d = Dictionary.from_words(["ＩＢＭ", "公司"], "demo")
        >>> normalized = d.normalized(get_normalizer("width"))
        >>> sorted(normalized), normalized.name
        (['IBM', '公司'], 'demo|width')
        """
        return Dictionary.from_words(map(normalizer, self.words), f"{self.name}|{normalizer.name}")

    @classmethod
    def from_sentences(cls, sentences: Iterable[Iterable[str]], name: str) -> Dictionary:
        """The word types of some sentences (lists of words), e.g. a training corpus.

        >>> sorted(Dictionary.from_sentences([["我们", "是"], ["我们"]], "demo"))
        ['我们', '是']
        """
        return cls.from_words(itertools.chain.from_iterable(sentences), name)

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
        table = self.lookup_table
        parts = table.checksum_parts if table is not None else _checksum_parts(self.words)
        size, key_sum, key_xor = parts
        summary = f"{size}:{key_sum}:{key_xor}".encode("ascii")
        return hash_hex(summary, "checksum")

    @cached_property
    def lookup_table(self) -> Any:
        """The words as the scoring kernel's compiled hash set (None without the kernel),
        built once per dictionary and shared by every scoring pass."""
        return None if _kernel is None else _kernel.WordSet(self.words)

    def __or__(self, other: Dictionary) -> Dictionary:
        return Dictionary(self.words | other.words, f"{self.name}|{other.name}")

    def __sub__(self, other: Dictionary) -> Dictionary:
        return Dictionary(self.words - other.words, f"{self.name}-{other.name}")


WordsLike = Dictionary | Iterable[str] | PathLike
"""A word source, as every API that takes a dictionary accepts it: a :class:`Dictionary`,
words, or a path or specification (``jieba``, ``corpus:NAME[:SPLIT]``, ``file:PATH``)
that :func:`cws_bench.corpora.words.resolve_words` reads."""


def load_dictionary(path: PathLike, *, encoding: str = "utf-8") -> Dictionary:
    """Read a dictionary file: one word a line, or jieba's ``word freq tag`` lines
    (:func:`parse_dictionary_line`).

    Raises:
        CwsBenchError: the file is missing, unreadable or holds no word.
    """
    bare = _load_bare_words(path, encoding)
    if bare is not None:
        return bare
    # words of each block, made into one frozenset at the end (no set copy)
    parts: list[Iterable[str]] = []
    for block in iter_line_blocks(path, encoding=encoding):
        stripped = [word for word in map(str.strip, block) if word]
        # Most files hold a bare word a line (splitting the block gives each line
        # back whole); jieba's dict.txt is all "word freq tag" lines (one pass of
        # _JIEBA_BLOCK finds every word). The first line says which to try; each
        # check covers the whole block, so the guess changes the speed, not the words.
        joined = "\n".join(stripped)
        if stripped and " " in stripped[0]:
            found = _JIEBA_BLOCK.findall(joined)
            if len(found) == len(stripped):
                parts.append(found)
                continue
        elif len(joined.split()) == len(stripped):
            parts.append(stripped)
            continue
        parts.append([word for word in map(_word_of_stripped_line, stripped) if word])
    words = frozenset(itertools.chain.from_iterable(parts))
    if not words:
        raise CorpusFormatError(
            display_name(path),
            None,
            "dictionary file holds no word",
            "give a file with one word a line, or leave out {0} to skip OOV figures",
            fixes=(Fix("dictionary"),),
        )
    return Dictionary(words, os.path.basename(os.fspath(path)))


def _load_bare_words(path: PathLike, encoding: str) -> Dictionary | None:
    """A file of bare words, one a line (the SIGHAN word lists), read in one go; else None.

    When the file split at whitespace gives back its lines exactly, they are the
    words :func:`load_dictionary` would find; anything else (standard input, bad
    bytes, a line that is not one word) gives None, for the caller to read the
    file line by line. A UTF-8 file's bytes also make the lookup table.
    """
    if os.fspath(path) == STDIN:
        return None
    with open_binary(path) as f:
        data = f.read()
    encoding = normalize_encoding(encoding)
    try:
        text = data.decode(encoding)
    except (UnicodeDecodeError, LookupError):
        return None
    bom = text.startswith("\ufeff")
    if bom:
        text = text[1:]
    newline = text.find("\n")
    first = text if newline < 0 else text[:newline]
    if first.split() != [first]:
        return None
    words = text.split()
    if "\n".join(words) != (text[:-1] if text.endswith("\n") else text):
        return None
    dictionary = Dictionary(frozenset(words), os.path.basename(os.fspath(path)))
    if encoding == "utf-8" and _kernel is not None:
        # The lookup_table cached_property, filled from the file's bytes: the same
        # words (one a line) as WordSet(dictionary.words) would hash.
        lines = data[len(codecs.BOM_UTF8) :] if bom else data
        dictionary.__dict__["lookup_table"] = _kernel.WordSet.from_utf8_lines(lines)
    return dictionary


def union(*dictionaries: Dictionary, name: str | None = None) -> Dictionary:
    """The words in any of the dictionaries.

    >>> a, b = Dictionary.from_words(["我们"], "a"), Dictionary.from_words(["是"], "b")
    >>> d = union(a, b)
    >>> sorted(d), d.name
    (['我们', '是'], 'a|b')

    Raises:
        CwsBenchError: no dictionary given.
    """
    if not dictionaries:
        raise CwsBenchError("union() needs at least one dictionary")
    words = frozenset().union(*(d.words for d in dictionaries))
    return Dictionary(words, name or "|".join(d.name for d in dictionaries))


def difference(base: Dictionary, *removed: Dictionary, name: str | None = None) -> Dictionary:
    """The words of ``base`` that are in none of ``removed``.

    >>> a = Dictionary.from_words(["我们", "是"], "a")
    >>> d = difference(a, Dictionary.from_words(["是"], "b"))
    >>> sorted(d), d.name
    (['我们'], 'a-b')
    """
    words = base.words.difference(*(d.words for d in removed))
    return Dictionary(words, name or "-".join([base.name, *(d.name for d in removed)]))


def jieba_dictionary_path() -> str:
    """Where the installed jieba keeps its main dictionary (``jieba/dict.txt``), found
    without importing jieba.

    Raises:
        CwsBenchError: jieba is not installed.
    """
    spec = importlib.util.find_spec("jieba")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = os.path.join(folder, "dict.txt")
        if os.path.isfile(path):
            return path
    raise CwsBenchError(
        "jieba's dictionary is not available: jieba is not installed", "pip install jieba"
    )


def jieba_dictionary() -> Dictionary:
    """The dictionary bundled with jieba (``dict.txt``: 349,045 words in jieba 0.42.1).

    Its name records jieba's version, e.g. ``jieba-0.42.1``.
    """
    from importlib.metadata import PackageNotFoundError, version

    dictionary = load_dictionary(jieba_dictionary_path())
    try:
        name = f"jieba-{version('jieba')}"
    except PackageNotFoundError:  # pragma: no cover - jieba found but without metadata
        name = "jieba"
    return Dictionary(dictionary.words, name)
