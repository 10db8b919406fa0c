"""A base for frozen dataclasses of additive integer counts.

Counts add up (sentence -> file -> shard -> cluster), so every counts class
needs the same three methods; they are written once here.

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True, slots=True)
... class Tally(AdditiveCounts):
...     right: int = 0
...     wrong: int = 0
>>> Tally(1, 2) + Tally(3, 4)
Tally(right=4, wrong=6)
>>> sum([Tally(1, 0), Tally(0, 1)], Tally()).to_dict()
{'right': 1, 'wrong': 1}
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any, TypeVar

__all__ = ["AdditiveCounts"]

C = TypeVar("C", bound="AdditiveCounts")


class AdditiveCounts:
    """Mixin for ``@dataclass(frozen=True, slots=True)`` classes whose fields are ints."""

    __slots__ = ()

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        """The count names in field order."""
        return tuple(f.name for f in fields(cls))  # type: ignore[arg-type]

    def __add__(self: C, other: Any) -> C:
        if type(other) is not type(self):
            return NotImplemented
        return type(self)(*map(int.__add__, self.astuple(), other.astuple()))

    def astuple(self) -> tuple[int, ...]:
        """The counts in field order."""
        return tuple(getattr(self, name) for name in self.field_names())

    def to_dict(self) -> dict[str, int]:
        """The counts as a dict in field order."""
        return dict(zip(self.field_names(), self.astuple()))
