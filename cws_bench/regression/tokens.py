"""Token ids of a tokenizer, line by line: what a tokenizer's baseline pins and its gate compares.

A tokenizer can change its ids while every word boundary stays put (a
renumbered vocabulary, a changed merge order, a new normalisation), and an
LLM trained on the old ids then reads different input. So a baseline of a
segmenter that has token ids
(:meth:`cws_bench.segmenters.llm_tokenizers.SubwordSegmenter.token_ids`)
stores them for every line of every corpus, and ``check`` fails when any
line's ids changed, unless the bound allows that many changed lines.
"""

from __future__ import annotations

import contextlib
import json
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cws_bench.display.units import plural
from cws_bench.errors import CwsBenchError
from cws_bench.results.records import read_format_file
from cws_bench.text.checksums import hasher
from cws_bench.text.io import PathLike, atomic_write, iter_lines

__all__ = [
    "TokenDiff",
    "TokenIdChange",
    "TokenIds",
    "TokenLineChange",
    "compare_token_ids",
    "diff_token_ids",
    "keeping_token_ids",
    "load_token_ids",
    "record_file_token_ids",
    "record_token_ids",
    "save_token_ids",
]

FORMAT = "cws-bench token ids"
"""The ``format`` of a token-id file (:func:`save_token_ids`)."""


@dataclass(frozen=True)
class TokenIds:
    """The token ids of every line of a corpus, one tuple per line (blank lines have none)."""

    lines: tuple[tuple[int, ...], ...]

    @property
    def checksum(self) -> str:
        """16 hex digits of BLAKE2b over the ids, line by line."""
        digest = hasher("checksum")
        for ids in self.lines:
            digest.update(",".join(map(str, ids)).encode("ascii") + b"\n")
        return digest.hexdigest()

    @property
    def tokens(self) -> int:
        return sum(map(len, self.lines))

    def to_dict(self) -> dict[str, Any]:
        return {
            "checksum": self.checksum,
            "tokens": self.tokens,
            "lines": [list(ids) for ids in self.lines],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TokenIds:
        """Read what :meth:`to_dict` wrote; the checksum must match the ids.

        Raises:
            ValueError: ids that are not whole numbers, or a checksum that does not match.
        """
        lines = data.get("lines")
        if not isinstance(lines, list) or not all(
            isinstance(ids, list)
            and all(isinstance(i, int) and not isinstance(i, bool) for i in ids)
            for ids in lines
        ):
            raise ValueError("token_ids.lines must be a list of lists of whole numbers")
        record = cls(tuple(tuple(ids) for ids in lines))
        if data.get("checksum") != record.checksum:
            raise ValueError(
                f"token_ids.checksum is {data.get('checksum')!r}, but the ids give "
                f"{record.checksum!r}: the file was edited or cut short"
            )
        return record


def save_token_ids(ids: TokenIds, path: PathLike) -> None:
    """Write a token-id file, atomically: what a tokenizer's baseline stores per corpus
    (:meth:`TokenIds.to_dict`), on its own, for a segmentation file (``diff`` compares two)."""
    text = json.dumps({"format": FORMAT, **ids.to_dict()}, separators=(",", ":"))
    with atomic_write(path) as f:
        f.write(text + "\n")


def load_token_ids(path: PathLike) -> TokenIds:
    """Read a token-id file that :func:`save_token_ids` wrote.

    Raises:
        CwsBenchError: the file is missing, not JSON (line and column named), not a
            token-id file, or its checksum does not match its ids.
    """
    name, data = read_format_file(
        path,
        FORMAT,
        ("token-id file", "token ids", "token-id file"),
        (None, "write the file again", "write one when segmenting with a tokenizer"),
    )
    try:
        return TokenIds.from_dict(data)
    except ValueError as e:
        raise CwsBenchError(f"{name}: {e}", "write the file again") from None


@contextlib.contextmanager
def keeping_token_ids(segmenter: Any) -> Iterator[None]:
    """While inside, a tokenizer keeps the ids of the lines it segments, so that
    :func:`record_token_ids` afterwards reads them instead of tokenizing every line again.

    A segmenter without ids (or without a ``keeping_token_ids`` method) is left as it is.
    """
    method = getattr(segmenter, "keeping_token_ids", None)
    with method() if method is not None else contextlib.nullcontext():
        yield


def record_token_ids(segmenter: Any, lines: Sequence[str]) -> TokenIds | None:
    """The segmenter's token ids of every line, or None when it has none to give.

    A segmenter has token ids when it has a ``token_ids(lines)`` method that
    returns one list per line (an empty list for a line means no ids: a
    tokenizer given as a Python function has none). Inside
    :func:`keeping_token_ids` the ids of the lines it segmented there are
    reused, not computed again.
    """
    method = getattr(segmenter, "token_ids", None)
    if method is None:
        return None
    ids = method([line for line in lines])
    if len(ids) != len(lines):
        raise ValueError(f"token_ids gave {plural(len(ids), 'line')} for {len(lines)}")
    if not any(ids) and any(line.strip() for line in lines):
        return None
    return TokenIds(tuple(tuple(int(i) for i in line_ids) for line_ids in ids))


def record_file_token_ids(
    segmenter: Any, source: PathLike, path: PathLike, *, encoding: str = "utf-8"
) -> TokenIds:
    """The token ids of every line of ``source`` written to the token-id file ``path``.

    Inside :func:`keeping_token_ids` (around the segmenting of ``source``) the ids of
    that pass are written, not computed again.

    Raises:
        CwsBenchError: the segmenter has no token ids (it is no tokenizer).
    """
    lines = list(iter_lines(source, encoding=encoding))
    ids = record_token_ids(segmenter, lines)
    if ids is None:
        name = getattr(segmenter, "name", type(segmenter).__name__)
        raise CwsBenchError(
            f"{name} gives no token ids: only a tokenizer (the tokenizer segmenter) has them",
            "leave out the token-id file, or segment with a tokenizer",
        )
    save_token_ids(ids, path)
    return ids


@dataclass(frozen=True)
class TokenIdChange:
    """How the token ids of two runs over the same lines differ.

    Attributes:
        examples: the first few changed lines as (line number from 1, old ids, new ids).
        numbers: every changed line's number (from 1).
    """

    lines: int
    changed: int
    examples: tuple[tuple[int, tuple[int, ...], tuple[int, ...]], ...]
    numbers: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "lines": self.lines,
            "changed": self.changed,
            "examples": [
                {"line": number, "old": list(old), "new": list(new)}
                for number, old, new in self.examples
            ],
        }


def compare_token_ids(old: TokenIds, new: TokenIds, *, examples: int = 5) -> TokenIdChange:
    """Line-by-line comparison of two runs' token ids.

    >>> change = compare_token_ids(TokenIds(((1, 2), (3,))), TokenIds(((1, 2), (4, 5))))
    >>> change.changed, change.examples
    (1, ((2, (3,), (4, 5)),))

    Raises:
        ValueError: the two runs cover different numbers of lines (another corpus).
    """
    if len(old.lines) != len(new.lines):
        raise ValueError(
            f"the token ids cover {plural(len(old.lines), 'line')} in the baseline and "
            f"{len(new.lines)} now: not the same corpus"
        )
    changed = [
        (number, a, b) for number, (a, b) in enumerate(zip(old.lines, new.lines), start=1) if a != b
    ]
    return TokenIdChange(
        len(old.lines),
        len(changed),
        tuple(changed[:examples]),
        tuple(number for number, _, _ in changed),
    )


@dataclass(frozen=True, slots=True)
class TokenLineChange:
    """A line (from 1) whose token ids changed from A to B: its tokens (as words) and ids
    on each side, and whether every token boundary stayed (only the ids changed)."""

    line: int
    a_words: tuple[str, ...]
    b_words: tuple[str, ...]
    a_ids: tuple[int, ...]
    b_ids: tuple[int, ...]
    same_boundaries: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "line": self.line,
            "same_boundaries": self.same_boundaries,
            "a_words": list(self.a_words),
            "b_words": list(self.b_words),
            "a_ids": list(self.a_ids),
            "b_ids": list(self.b_ids),
        }


@dataclass(frozen=True)
class TokenDiff:
    """How two tokenizers' (or two versions') token ids differ over the same lines.

    Attributes:
        same_boundaries: of the changed lines, those where every token boundary stayed
            (ids that changed under unchanged cuts: no segmentation diff shows them).
        examples: up to ``examples`` changed lines of each sort (boundaries kept,
            boundaries moved), in line order.
    """

    lines: int
    changed: int
    same_boundaries: int
    a_tokens: int
    b_tokens: int
    examples: tuple[TokenLineChange, ...]

    @property
    def moved_boundaries(self) -> int:
        """Changed lines where some token boundary moved too."""
        return self.changed - self.same_boundaries

    def to_dict(self) -> dict[str, Any]:
        return {
            "lines": self.lines,
            "changed": self.changed,
            "same_boundaries": self.same_boundaries,
            "moved_boundaries": self.moved_boundaries,
            "a_tokens": self.a_tokens,
            "b_tokens": self.b_tokens,
            "examples": [example.to_dict() for example in self.examples],
        }


def diff_token_ids(
    a: TokenIds,
    b: TokenIds,
    a_lines: Sequence[Sequence[str]],
    b_lines: Sequence[Sequence[str]],
    *,
    examples: int = 5,
) -> TokenDiff:
    """The lines whose token ids changed from A to B, and which of them kept every boundary.

    ``a_lines`` and ``b_lines`` are the two runs' tokens as words, line by
    line (a boundary stayed when the words are the same).

    >>> d = diff_token_ids(
    ...     TokenIds(((1, 2), (3,), (4, 5))),
    ...     TokenIds(((1, 2), (9,), (6,))),
    ...     [["北京", "市"], ["好"], ["气", "象"]],
    ...     [["北京", "市"], ["好"], ["气象"]],
    ... )
    >>> d.changed, d.same_boundaries, [e.line for e in d.examples]
    (2, 1, [2, 3])

    Raises:
        ValueError: the ids or the words cover different numbers of lines.
    """
    change = compare_token_ids(a, b, examples=0)
    if not len(a_lines) == len(b_lines) == change.lines:
        raise ValueError(
            f"the token ids cover {plural(change.lines, 'line')} but the words {len(a_lines)} and "
            f"{len(b_lines)}: not the same text"
        )
    same = 0
    shown: list[TokenLineChange] = []
    taken = Counter[bool]()  # examples shown of each sort: boundaries kept, moved
    for number in change.numbers:
        a_words, b_words = tuple(a_lines[number - 1]), tuple(b_lines[number - 1])
        kept = a_words == b_words
        same += kept
        if taken[kept] < examples:
            taken[kept] += 1
            ids = (a.lines[number - 1], b.lines[number - 1])
            shown.append(TokenLineChange(number, a_words, b_words, *ids, kept))
    return TokenDiff(change.lines, change.changed, same, a.tokens, b.tokens, tuple(shown))
