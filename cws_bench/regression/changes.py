"""What a diff is made of: one changed block (:class:`Change`), one line's changes
(:class:`LineDiff`; a long line's as arrays, :class:`LineChanges`), one pattern of
change (:class:`ChangePattern`), a line whose text differs (:class:`TextDifference`)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from itertools import islice
from typing import TYPE_CHECKING, Any, overload

from cws_bench.display.units import plural

if TYPE_CHECKING:
    import numpy as np

    from cws_bench.analysis.alignment import Words

__all__ = [
    "CHUNK",
    "KINDS",
    "KIND_NAMES",
    "LISTS",
    "OUTCOMES",
    "Change",
    "ChangePattern",
    "LineChanges",
    "LineDiff",
    "TextDifference",
    "count_true",
    "differing_lines",
    "outcome_of",
]

KINDS: dict[str, str] = {
    "split": "a word of A split into several in B",
    "merge": "words of A merged into one in B",
    "cross": "a boundary moved: A and B cross",
}
"""Kind of change -> what it means (the keys are
:func:`cws_bench.analysis.patterns.block_kind`'s)."""

OUTCOMES = ("fixed", "broke", "neither")
"""What a change did to agreement with the gold: more, fewer or as many gold words."""


@dataclass(frozen=True, slots=True)
class Change:
    """One changed block of a line whose text A and B share.

    Attributes:
        line: the 1-based line number; kind: one of :data:`KINDS`.
        a, b: A's and B's words in the block; a_index, b_index: the index of its first
            word among A's and B's words of the line.
        start: offset of the block's first character in the line (words joined).
        delta: gold words B has in the block minus those A has (0 without gold).
        outcome: one of :data:`OUTCOMES` against the gold; None without gold.
    """

    line: int
    kind: str
    a: tuple[str, ...]
    b: tuple[str, ...]
    a_index: int
    b_index: int
    start: int
    delta: int = 0
    outcome: str | None = None

    @property
    def end(self) -> int:
        """Offset one past the block's last character."""
        return self.start + sum(map(len, self.a))

    def to_dict(self) -> dict[str, Any]:
        return {
            "line": self.line,
            "kind": self.kind,
            "a": list(self.a),
            "b": list(self.b),
            "a_index": self.a_index,
            "b_index": self.b_index,
            "start": self.start,
            "end": self.end,
            "delta": self.delta,
            "outcome": self.outcome,
        }


CHUNK = 65_536
"""Changes (or words) made at once when a long line's changes are read or written."""


@dataclass(frozen=True, slots=True)
class LineDiff:
    """A line where A and B differ.

    Attributes:
        a, b, gold: the line's words in A, B and the gold (None without gold).
        changes: the changed blocks (empty when the texts differ).
        a_changed: for each word of A, whether it is not a word of B (same interval);
            b_changed: the same for B.

    A line of :data:`LONG_LINE` words or more whose text A and B share is held
    compactly: ``a`` and ``b`` are :class:`~cws_bench.analysis.alignment.Words` (one
    text and the words' ends), ``gold`` a :class:`~cws_bench.text.joined.JoinedWords`,
    ``changes`` a :class:`LineChanges` and the flags numpy arrays; they read as the
    tuples a short line holds, and :meth:`to_dict` gives the same dict.
    """

    line: int
    a: Sequence[str]
    b: Sequence[str]
    gold: Sequence[str] | None
    changes: Sequence[Change]
    text_differs: bool
    a_changed: Sequence[bool]
    b_changed: Sequence[bool]

    @property
    def long(self) -> bool:
        """Whether the line is held as arrays (see above)."""
        return isinstance(self.changes, LineChanges)

    def to_dict(self, *, placeholders: bool = False) -> dict[str, Any]:
        """The line as plain data; with ``placeholders``, each list (see :data:`LISTS`) is
        the string ``"\\x00KEY"`` instead, for a writer that dumps it a chunk at a time
        (:meth:`chunks`)."""
        if placeholders:
            lists: dict[str, Any] = {key: f"\x00{key}" for key in LISTS}
        else:
            lists = {key: [item for chunk in self.chunks(key) for item in chunk] for key in LISTS}
        return {
            "line": self.line,
            "a": lists["a"],
            "b": lists["b"],
            "gold": None if self.gold is None else lists["gold"],
            "text_differs": self.text_differs,
            "a_changed": lists["a_changed"],
            "b_changed": lists["b_changed"],
            "changes": lists["changes"],
        }

    def chunks(self, key: str, size: int = CHUNK) -> Iterator[list[Any]]:
        """The items of the list ``key`` of :meth:`to_dict` (one of :data:`LISTS`), ``size``
        at a time: a long line's words, flags and changes are made a chunk at a time."""
        if key == "changes":
            changes = self.changes
            if isinstance(changes, LineChanges):
                for low in range(0, len(changes), size):
                    yield changes.dicts(low, min(low + size, len(changes)))
            else:
                yield [change.to_dict() for change in changes]
            return
        items = getattr(self, key)
        if items is None:
            return
        if key in ("a_changed", "b_changed"):
            for low in range(0, len(items), size):
                yield _flags(items[low : low + size])
            return
        iterator = iter(items)
        while chunk := list(islice(iterator, size)):
            yield chunk


LISTS = ("a", "b", "gold", "a_changed", "b_changed", "changes")
"""The lists of a changed line's dict (:meth:`LineDiff.to_dict`)."""


def _flags(flags: Sequence[bool]) -> list[bool]:
    """Flags as a list of Python booleans (a numpy array's too)."""
    tolist = getattr(flags, "tolist", None)
    return tolist() if tolist is not None else list(flags)


def count_true(flags: Sequence[bool]) -> int:
    """How many flags are true (a numpy array's counted by numpy)."""
    total = getattr(flags, "sum", None)
    return int(total()) if total is not None else sum(flags)


KIND_NAMES = ("split", "merge", "cross")
"""The kinds of change by number, as :class:`LineChanges` holds them."""


class LineChanges(Sequence[Change]):
    """The changed blocks of a long line as arrays: a :class:`Change` is made when read.

    What :attr:`LineDiff.changes` is for a line of :data:`LONG_LINE` words or more: a
    million changes cost a few machine integers each, not a Change and its tuples of
    words. Indexing, slicing (a tuple), iteration (:meth:`chunks` at a time) and
    equality behave as the tuple of the same changes.

    Args:
        kinds: per change, its kind's index in :data:`KIND_NAMES`.
        a_first, a_count, b_first, b_count: per change, its first word and its number
            of words in A and in B.
        delta: per change, gold words B has minus those A has, or None without gold.
    """

    __slots__ = ("a", "a_count", "a_first", "b", "b_count", "b_first", "delta", "kinds", "line")

    def __init__(
        self,
        line: int,
        a: Words,
        b: Words,
        kinds: np.ndarray,
        a_first: np.ndarray,
        a_count: np.ndarray,
        b_first: np.ndarray,
        b_count: np.ndarray,
        delta: np.ndarray | None,
    ) -> None:
        self.line = line
        self.a, self.b = a, b
        self.kinds = kinds
        self.a_first, self.a_count = a_first, a_count
        self.b_first, self.b_count = b_first, b_count
        self.delta = delta

    def __len__(self) -> int:
        return len(self.kinds)

    def make(self, low: int, high: int) -> list[Change]:
        """Changes ``low`` to ``high - 1``, each word of them made once."""
        rest = ("a_index", "b_index", "start", "delta", "outcome")
        return [
            Change(
                row["line"], row["kind"], tuple(row["a"]), tuple(row["b"]), *(row[k] for k in rest)
            )
            for row in self.dicts(low, high)
        ]

    def _blocks(self, low: int, high: int) -> Iterator[tuple[int, list[str], list[str]]]:
        """Kind index, A's words and B's words of changes ``low`` to ``high - 1``."""
        import numpy as np

        a_count, b_count = self.a_count[low:high], self.b_count[low:high]
        a_words = self.a.take(_ranges(self.a_first[low:high], a_count))
        b_words = self.b.take(_ranges(self.b_first[low:high], b_count))
        a_low = b_low = 0
        for kind, a_end, b_end in zip(
            self.kinds[low:high].tolist(), np.cumsum(a_count).tolist(), np.cumsum(b_count).tolist()
        ):
            yield kind, a_words[a_low:a_end], b_words[b_low:b_end]
            a_low, b_low = a_end, b_end

    def dicts(self, low: int, high: int) -> list[dict[str, Any]]:
        """:meth:`Change.to_dict` of changes ``low`` to ``high - 1``, made without the
        Change objects (what the JSON output writes)."""
        a_first, a_count = self.a_first[low:high], self.a_count[low:high]
        starts = self.a.starts(a_first).tolist()
        ends = self.a.ends[a_first + a_count - 1].tolist()
        deltas = [0] * len(a_first) if self.delta is None else self.delta[low:high].tolist()
        return [
            {
                "line": self.line,
                "kind": KIND_NAMES[kind],
                "a": a_words,
                "b": b_words,
                "a_index": a_index,
                "b_index": b_index,
                "start": start,
                "end": end,
                "delta": delta,
                "outcome": None if self.delta is None else outcome_of(delta),
            }
            for (kind, a_words, b_words), a_index, b_index, start, end, delta in zip(
                self._blocks(low, high),
                a_first.tolist(),
                self.b_first[low:high].tolist(),
                starts,
                ends,
                deltas,
            )
        ]

    def pattern_keys(self, low: int, high: int) -> list[tuple[str, str, str]]:
        """``(kind, A's words, B's words)`` of changes ``low`` to ``high - 1``, each side's
        words joined by single spaces (the key a diff counts patterns by)."""
        return [
            (KIND_NAMES[kind], " ".join(a_words), " ".join(b_words))
            for kind, a_words, b_words in self._blocks(low, high)
        ]

    def chunks(self, size: int = CHUNK) -> Iterator[list[Change]]:
        """The changes, ``size`` at a time."""
        for low in range(0, len(self), size):
            yield self.make(low, min(low + size, len(self)))

    @overload
    def __getitem__(self, index: int) -> Change: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[Change, ...]: ...

    def __getitem__(self, index: int | slice) -> Change | tuple[Change, ...]:
        if isinstance(index, slice):
            low, high, step = index.indices(len(self))
            if step == 1:
                return tuple(self.make(low, max(low, high)))
            return tuple(self[i] for i in range(low, high, step))
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("change index out of range")
        return self.make(index, index + 1)[0]

    def __iter__(self) -> Iterator[Change]:
        for chunk in self.chunks():
            yield from chunk

    def kind_names(self) -> list[str]:
        """The kinds of change on the line, sorted."""
        import numpy as np

        return sorted(KIND_NAMES[k] for k in np.unique(self.kinds).tolist())

    def outcome_names(self) -> list[str]:
        """The outcomes against the gold on the line, sorted (none without gold)."""
        import numpy as np

        if self.delta is None:
            return []
        signs = np.unique(np.sign(self.delta)).tolist()
        return sorted(outcome_of(sign) for sign in signs)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, (LineChanges, tuple, list)):
            return NotImplemented
        return len(self) == len(other) and all(x == y for x, y in zip(self, other))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"LineChanges({len(self):,} changes on line {self.line})"


def _ranges(first: np.ndarray, count: np.ndarray) -> np.ndarray:
    """The indices ``first[i], ..., first[i] + count[i] - 1`` of every i, in order.

    >>> import numpy as np
    >>> _ranges(np.array([3, 10]), np.array([2, 3])).tolist()
    [3, 4, 10, 11, 12]
    """
    import numpy as np

    total = int(count.sum())
    offsets = np.cumsum(count) - count
    return np.arange(total, dtype=np.int64) - np.repeat(offsets - first, count)


@dataclass(frozen=True, slots=True)
class ChangePattern:
    """One pattern of change (these words of A became those of B) and how often it occurs.

    Attributes:
        fixed, broke, neither: occurrences by outcome against the gold (0 without gold).
        line: the 1-based line of the first occurrence; sentence: that line's words in A,
            joined by spaces (clipped around it); index: its first word's index among them.
    """

    kind: str
    a: tuple[str, ...]
    b: tuple[str, ...]
    count: int
    fixed: int
    broke: int
    neither: int
    line: int
    sentence: str
    index: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "a": list(self.a), "b": list(self.b)}


@dataclass(frozen=True, slots=True)
class TextDifference:
    """A line whose characters differ between A and B (1-based line number)."""

    line: int
    a: str
    b: str

    def to_dict(self) -> dict[str, Any]:
        return {"line": self.line, "a": self.a, "b": self.b}


def differing_lines(count: int) -> str:
    """``1 line holds different characters``, ``2 lines hold ...``.

    >>> differing_lines(2)
    '2 lines hold different characters'
    """
    return f"{plural(count, 'line')} {'holds' if count == 1 else 'hold'} different characters"


def outcome_of(delta: int) -> str:
    """A change's outcome from how many more gold words B has in its block than A."""
    return "fixed" if delta > 0 else "broke" if delta < 0 else "neither"
