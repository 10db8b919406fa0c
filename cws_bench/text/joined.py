"""A long sentence held as one string: its words joined by single spaces.

A list of millions of words costs some 80 bytes a word; joined by single spaces
they cost two bytes a character or less. :func:`compact` makes a long list a
:class:`JoinedWords` (a run keeps and carries long sentences that way): a
read-only sequence of its words, made a chunk at a time when iterated, whose
:meth:`~JoinedWords.joined` joins them by any separator without making them
(:func:`joined` does the same for any sequence of words).

>>> words = compact(["结婚", "的", "和", "尚未"], least=2)
>>> words, len(words), list(words), words[1], words.joined("/")
(JoinedWords('结婚 的 和 尚未'), 4, ['结婚', '的', '和', '尚未'], '的', '结婚/的/和/尚未')
>>> words == ["结婚", "的", "和", "尚未"], compact(["a"], least=2)
(True, ['a'])
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from itertools import islice
from typing import Any, overload

__all__ = ["LONG_SENTENCE", "JoinedWords", "compact", "is_joined_line", "joined"]

LONG_SENTENCE = 10_000
"""Words from which :func:`compact` joins a sentence."""

_OTHER_SPACE = re.compile(r"[^\S ]")
"""Whitespace other than a space (what ``str.split`` splits on)."""

_IRREGULAR_SPACING = re.compile(r"[^\S ]|  |\A | \Z")
"""Whitespace that is not one space between two words."""

_CHUNK = 1 << 20
"""Characters split at once when the words are iterated."""


class JoinedWords(Sequence[str]):
    """The words of a sentence as one string, joined by single spaces (no word is empty
    or holds whitespace; :func:`compact` checks)."""

    __slots__ = ("line", "size")

    def __init__(self, line: str, count: int) -> None:
        self.line = line
        self.size = count

    def __len__(self) -> int:
        return self.size

    def __iter__(self) -> Iterator[str]:
        line, start, end = self.line, 0, len(self.line)
        while start < end:
            stop = line.find(" ", start + _CHUNK)
            stop = end if stop < 0 else stop
            yield from line[start:stop].split(" ")
            start = stop + 1

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return list(islice(self, *index.indices(self.size)))
        position = index + self.size if index < 0 else index
        if not 0 <= position < self.size:
            raise IndexError("word index out of range")
        return next(islice(self, position, None))

    def __contains__(self, word: object) -> bool:
        if not isinstance(word, str) or not word or any(c.isspace() for c in word):
            return False
        return f" {word} " in f" {self.line} "

    def __eq__(self, other: object) -> bool:
        if isinstance(other, JoinedWords):
            return self.line == other.line
        if isinstance(other, (list, tuple)):
            return len(other) == self.size and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # equal to lists, as a list is

    def __repr__(self) -> str:
        shown = self.line if len(self.line) <= 40 else self.line[:39] + "…"
        return f"JoinedWords({shown!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (JoinedWords, (self.line, self.size))

    def joined(self, separator: str) -> str:
        """The words joined by ``separator``."""
        return self.line if separator == " " else self.line.replace(" ", separator)

    @classmethod
    def from_line(cls, line: str) -> JoinedWords:
        """The words of ``line``, which :func:`is_joined_line` must accept.

        >>> len(JoinedWords.from_line("结婚 的"))
        2
        """
        if not is_joined_line(line):
            raise ValueError(f"not words joined by single spaces: {line[:40]!r}")
        return cls(line, line.count(" ") + 1)


def is_joined_line(line: str) -> bool:
    """Whether ``line`` is non-empty words joined by single spaces (what a
    :class:`JoinedWords` holds).

    >>> [is_joined_line(line) for line in ("结婚 的", "结婚  的", " 的", "")]
    [True, False, False, False]
    """
    return bool(line) and _IRREGULAR_SPACING.search(line) is None


def compact(words: list[str], least: int = LONG_SENTENCE) -> list[str] | JoinedWords:
    """``words`` as a :class:`JoinedWords` when they are ``least`` or more and none is
    empty or holds whitespace; else ``words`` itself."""
    if len(words) < least or "" in words:
        return words
    line = " ".join(words)
    if line.count(" ") != len(words) - 1 or _OTHER_SPACE.search(line) is not None:
        return words  # a word holds whitespace: kept as it is
    return JoinedWords(line, len(words))


def joined(words: Sequence[str], separator: str) -> str:
    """``separator.join(words)``, without making the words of a :class:`JoinedWords`."""
    if isinstance(words, JoinedWords):
        return words.joined(separator)
    return separator.join(words)
