"""A list that keeps its first items in memory and the others in an anonymous temporary file.

A diff keeps every changed line (its JSON output lists them all), but a pair
of large files can change millions of lines: :class:`SpillList` holds the
first few in memory (the ones a page or a test looks at) and pickles the rest
to a :func:`tempfile.TemporaryFile`, which has no name, so nothing is left
behind even when the process is killed. It is read back one item (or one
block of items) at a time.

>>> items = SpillList(range(5), memory_items=2)
>>> len(items), items[0], items[4], items[1:4], list(items) == [0, 1, 2, 3, 4]
(5, 0, 4, (1, 2, 3), True)
>>> items == (0, 1, 2, 3, 4), items.spilled
(True, 3)
"""

from __future__ import annotations

import pickle
import tempfile
from array import array
from collections.abc import Iterable, Iterator, Sequence
from typing import IO, Any, Generic, TypeVar, overload

__all__ = ["MEMORY_BYTES", "MEMORY_ITEMS", "SpillList"]

T = TypeVar("T")

MEMORY_ITEMS = 100
"""Items a :class:`SpillList` keeps in memory by default (the first ones)."""

MEMORY_BYTES = 8 * 2**20
"""Pickled bytes a :class:`SpillList` keeps in memory at most by default."""

READ_BYTES = 2**20
"""About how many bytes iteration reads from the file at once."""


class SpillList(Sequence[T], Generic[T]):
    """An append-only sequence: the first items in memory (at most ``memory_items`` of
    them, ``memory_bytes`` pickled), the others pickled to a file.

    Items kept in memory are the first ones only: once one item went to the
    file, every later one does. Indexing, slicing (a tuple), ``len``,
    iteration and equality (with another SpillList, a tuple or a list of the
    same items) behave as a tuple's; pickling and copying write every item
    again (to a new file).
    """

    def __init__(
        self,
        items: Iterable[T] = (),
        memory_items: int = MEMORY_ITEMS,
        memory_bytes: int = MEMORY_BYTES,
    ) -> None:
        self.memory_items = memory_items
        self.memory_bytes = memory_bytes
        self._head: list[T] = []
        self._head_bytes = 0
        self._file: IO[bytes] | None = None
        self._offsets = array("q")  # where each spilled item starts in the file
        self._end = 0
        for item in items:
            self.append(item)

    def append(self, item: T) -> None:
        """Add an item at the end."""
        data = pickle.dumps(item, protocol=pickle.HIGHEST_PROTOCOL)
        if self._file is None:
            if (
                len(self._head) < self.memory_items
                and self._head_bytes + len(data) <= self.memory_bytes
            ):
                self._head.append(item)
                self._head_bytes += len(data)
                return
            # Kept open as long as the list lives: it holds the items.
            self._file = tempfile.TemporaryFile(prefix="cws-bench-spill-")  # noqa: SIM115
        self._offsets.append(self._end)
        self._file.seek(self._end)  # a read may have moved it
        self._file.write(data)
        self._end += len(data)

    @property
    def spilled(self) -> int:
        """How many items are in the file."""
        return len(self._offsets)

    def close(self) -> None:
        """Drop the file now (the items in it are gone; the garbage collector does it too)."""
        if self._file is not None:
            self._file.close()

    def __len__(self) -> int:
        return len(self._head) + len(self._offsets)

    def _stop(self, index: int) -> int:
        """Where the spilled item ``index`` ends."""
        return self._offsets[index + 1] if index + 1 < len(self._offsets) else self._end

    def _read(self, first: int, last: int) -> list[T]:
        """The spilled items ``first`` to ``last`` (excluded), read in one go."""
        assert self._file is not None
        start = self._offsets[first]
        self._file.seek(start)
        data = memoryview(self._file.read(self._stop(last - 1) - start))
        return [
            pickle.loads(data[self._offsets[i] - start : self._stop(i) - start])
            for i in range(first, last)
        ]

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[T, ...]: ...

    def __getitem__(self, index: int | slice) -> T | tuple[T, ...]:
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(len(self))))
        size = len(self)
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexError("SpillList index out of range")
        if index < len(self._head):
            return self._head[index]
        spilled = index - len(self._head)
        return self._read(spilled, spilled + 1)[0]

    def __iter__(self) -> Iterator[T]:
        yield from self._head
        first = 0
        while first < len(self._offsets):
            last = first + 1
            while last < len(self._offsets) and self._stop(last) - self._offsets[first] <= (
                READ_BYTES
            ):
                last += 1
            yield from self._read(first, last)
            first = last

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, (SpillList, tuple, list)):
            return NotImplemented
        return len(self) == len(other) and all(x == y for x, y in zip(self, other))

    __hash__ = None  # type: ignore[assignment]  # mutable, as a list

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (list(self), self.memory_items, self.memory_bytes))

    def __repr__(self) -> str:
        return f"SpillList({len(self):,} items, {self.spilled:,} in a file)"
