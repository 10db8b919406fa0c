"""jieba (https://github.com/fxsjy/jieba): default mode, HMM off, and search mode.

Each adapter owns its ``jieba.Tokenizer()``: nothing touches jieba's global
tokenizer, and building one does not log to stderr (jieba logs its
dictionary loading at DEBUG level through its own stderr handler; the
adapter raises that logger's level while it loads, then restores it).

Search mode
-----------
``jieba.cut_for_search`` yields, for each default-mode word longer than two
characters, the 2- and 3-character dictionary words inside it, then the
word itself: overlapping words that cannot be scored as a segmentation.
``jieba-search`` turns them into one: each default-mode word is replaced by
the fewest of its search-mode sub-words that cover it exactly (the longest
first on ties), and stays whole when they cannot cover it. So
``中华人民共和国`` (sub-words 中华 华人 人民 共和 共和国) becomes
``中华 人民 共和国``, while ``共和国`` (sub-word 共和 only) stays whole.
Every word is one search mode returns, and a default-mode word is only
ever split, never merged, so the result is finer than default mode.
"""

from __future__ import annotations

import importlib
import logging
import marshal
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal

from cws_bench.errors import CwsBenchError
from cws_bench.segmenters.base import Segmenter, TrainingData, option
from cws_bench.segmenters.loaded import Stored, shared_model

__all__ = ["JiebaSegmenter", "quiet_jieba", "tile"]

Mode = Literal["default", "search"]
MODES: tuple[str, ...] = ("default", "search")


@contextmanager
def quiet_jieba(library: str = "jieba") -> Iterator[Any]:
    """Import ``library`` (jieba, or jieba_fast, its C port with the same API) and keep its
    loader quiet inside the block; yields the module."""
    module = importlib.import_module(library)
    logger = logging.getLogger(library)
    level = logger.level
    logger.setLevel(logging.WARNING)
    try:
        yield module
    finally:
        logger.setLevel(level)


def initialized_tokenizer(library: Any, dictionary: str | None) -> Any:
    """A ``Tokenizer`` of the jieba module ``library`` with ``dictionary`` (None: its own) loaded.

    The word table is built from the dictionary's content, once per process
    and once per machine (:func:`~cws_bench.segmenters.loaded.shared_model`,
    stored in the cache folder: 0.3 s to read back instead of jieba's 1.1 s,
    and keyed by the file's content where jieba's own cache file in the
    temporary folder is trusted by path); each tokenizer gets its own copy of
    the table (16 ms), since a user dictionary adds words to it.
    """

    def load() -> tuple[dict[str, int], int]:
        tokenizer = library.Tokenizer(dictionary)
        with tokenizer.get_dict_file() as f:
            freq, total = tokenizer.gen_pfdict(f)
        return freq, total

    path = dictionary or os.path.join(os.path.dirname(library.__file__), library.DEFAULT_DICT_NAME)
    freq, total = shared_model(
        f"{library.__name__}.Tokenizer", [path], load, stored=_stored_table(library)
    )
    tokenizer = library.Tokenizer(dictionary)
    tokenizer.FREQ, tokenizer.total, tokenizer.initialized = dict(freq), total, True
    return tokenizer


def _stored_table(library: Any) -> Any:
    """How a jieba word table (FREQ, total) is stored between processes: marshal's bytes,
    for the library's version and this Python's marshal."""

    def read(data: bytes) -> tuple[dict[str, int], int]:
        match marshal.loads(data):
            case (dict() as freq, int() as total):
                return freq, total
        raise ValueError("not a jieba word table")

    version = (
        f"{library.__name__} {getattr(library, '__version__', '?')} word table, "
        f"marshal {marshal.version} of Python {sys.version_info[0]}.{sys.version_info[1]}"
    )
    return Stored(version, lambda table: marshal.dumps(tuple(table)), read)


def tile(word: str, pieces: set[str]) -> list[str]:
    """Cover ``word`` exactly with the fewest of ``pieces`` (longest first on ties), or keep it.

    >>> tile("中华人民共和国", {"中华", "华人", "人民", "共和", "共和国"})
    ['中华', '人民', '共和国']
    >>> tile("共和国", {"共和"})
    ['共和国']
    """
    n = len(word)
    # fewest[i]: fewest pieces covering word[i:], or None when none can.
    fewest: list[int | None] = [None] * n + [0]
    choice = [0] * n
    for i in range(n - 1, -1, -1):
        for end in range(n, i, -1):
            rest = fewest[end]
            if rest is None or word[i:end] not in pieces:
                continue
            best = fewest[i]
            if best is None or rest + 1 < best:
                fewest[i] = rest + 1
                choice[i] = end
    if fewest[0] is None:
        return [word]
    out = []
    i = 0
    while i < n:
        out.append(word[i : choice[i]])
        i = choice[i]
    return out


class JiebaSegmenter(Segmenter):
    """jieba's segmentation, in default or search mode, with or without its HMM."""

    name = "jieba"
    kind = "pretrained"
    independent_lines = True  # each line is segmented on its own
    description = "jieba"
    requires = ("jieba",)
    distribution = "jieba"
    install = "pip install jieba"
    library = "jieba"
    """The module whose ``Tokenizer`` segments (jieba-fast's adapter: ``jieba_fast``)."""

    @dataclass(frozen=True)
    class Options:
        mode: str = option("default", "default (accurate) or search", choices=MODES)
        hmm: bool = option(True, "let jieba's HMM join characters its dictionary lacks")
        user_dict: str | None = option(
            None, "a user dictionary (word [freq] [tag] a line)", file="user dictionary"
        )
        lexicon: str | None = option(
            None, "a word list replacing jieba's (word freq [tag])", file="lexicon"
        )

    opts: Options

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.mode, self.hmm, lexicon = self.opts.mode, self.opts.hmm, self.opts.lexicon
        with quiet_jieba(self.library) as library:
            try:
                self.tokenizer = initialized_tokenizer(library, lexicon)
                if self.opts.user_dict is not None:
                    self.tokenizer.load_userdict(self.opts.user_dict)
            except (ValueError, UnicodeDecodeError) as e:
                raise CwsBenchError(f"{self.name} could not read a dictionary: {e}") from e
        self.trained_on = TrainingData(
            f"{self.name}'s bundled dictionary" if lexicon is None else os.path.basename(lexicon)
        )

    def _segment(self, lines: list[str]) -> list[list[str]]:
        cut = self.tokenizer.lcut
        hmm = self.hmm
        if self.mode == "default":
            return [cut(line, HMM=hmm) for line in lines]
        return [self._search(line) for line in lines]

    def _search(self, line: str) -> list[str]:
        freq = self.tokenizer.FREQ
        out: list[str] = []
        for word in self.tokenizer.cut(line, HMM=self.hmm):
            if len(word) <= 2:
                out.append(word)
                continue
            # The sub-words jieba's cut_for_search yields inside this word: 2 and 3 characters.
            pieces = {
                word[i : i + n]
                for n in (2, 3)
                if n < len(word)
                for i in range(len(word) - n + 1)
                if freq.get(word[i : i + n])
            }
            out.extend(tile(word, pieces))
        return out
