"""Token ids of a tokenizer, line by line: what a tokenizer's baseline pins and its gate compares.

A tokenizer can change its ids while every word boundary stays put (a
renumbered vocabulary, a changed merge order, a new normalisation), and an
LLM trained on the old ids then reads different input. So a baseline of a
segmenter that has token ids (:meth:`cws_bench.segmenters.subword.SubwordSegmenter.token_ids`)
stores them for every line of every corpus, and ``check`` fails when any
line's ids changed, unless the bound allows that many changed lines.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["TokenIdChange", "TokenIds", "compare_token_ids", "record_token_ids"]


@dataclass(frozen=True)
class TokenIds:
    """The token ids of every line of a corpus, in order (blank lines have none).

    Attributes:
        lines: one tuple of ids per input line.
    """

    lines: tuple[tuple[int, ...], ...]

    @property
    def checksum(self) -> str:
        """16 hex digits of BLAKE2b over the ids, line by line."""
        digest = hashlib.blake2b(digest_size=8)
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


def record_token_ids(segmenter: Any, lines: Sequence[str]) -> TokenIds | None:
    """The segmenter's token ids of every line, or None when it has none to give.

    A segmenter has token ids when it has a ``token_ids(lines)`` method that
    returns one list per line (an empty list for a line means no ids: a
    tokenizer given as a Python function has none).
    """
    method = getattr(segmenter, "token_ids", None)
    if method is None:
        return None
    ids = method([line for line in lines])
    if len(ids) != len(lines):
        raise ValueError(f"token_ids gave {len(ids)} lines for {len(lines)}")
    if not any(ids) and any(line.strip() for line in lines):
        return None
    return TokenIds(tuple(tuple(int(i) for i in line_ids) for line_ids in ids))


@dataclass(frozen=True)
class TokenIdChange:
    """How the token ids of two runs over the same lines differ.

    Attributes:
        lines: lines compared.
        changed: lines whose ids differ.
        examples: the first few changed lines as (line number from 1, old ids, new ids).
    """

    lines: int
    changed: int
    examples: tuple[tuple[int, tuple[int, ...], tuple[int, ...]], ...]

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
            f"the token ids cover {len(old.lines)} lines in the baseline and "
            f"{len(new.lines)} now: not the same corpus"
        )
    changed = [
        (number, a, b) for number, (a, b) in enumerate(zip(old.lines, new.lines), start=1) if a != b
    ]
    return TokenIdChange(len(old.lines), len(changed), tuple(changed[:examples]))
