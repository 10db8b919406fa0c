"""Several segmentations of the same text, without gold: the consensus, how much they
disagree, and the bounded structures an audit keeps while it streams.

The words of each segmenter are given per sentence; what is compared are the
word boundaries strictly inside the sentence (a decision between two
characters), as the scorer's boundary F counts them.

- :func:`boundaries`: a segmentation's internal boundaries (character offsets).
- :func:`consensus`: the majority vote of the boundaries; a tie (as many
  segmenters for as against, with an even number of them) is decided by the
  first segmenter listed.
- :func:`contested_share`: the share of the sentence's character gaps on which
  the segmenters do not all agree (0: they all cut alike).
- :class:`BlockRows`: per-sentence rows of counts held in at most ``cap`` rows:
  when full, neighbouring rows are summed (blocks of 2, 4, ... sentences), so a
  bootstrap over the rows is a block bootstrap over consecutive sentences.
- :class:`StratifiedSample`: a seeded reservoir sample per stratum (bounded memory).
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = [
    "STRATA",
    "BlockRows",
    "StratifiedSample",
    "boundaries",
    "consensus",
    "contested_share",
    "stratum",
]

STRATA: tuple[tuple[float, float], ...] = ((0.0, 0.1), (0.1, 0.25), (0.25, 0.5), (0.5, 1.0))
"""The strata of disagreeing sentences by contested share: (low, high]."""


def boundaries(words: Sequence[str]) -> set[int]:
    """The internal boundaries of a segmentation: offsets of word ends but the last.

    >>> sorted(boundaries(["中国", "人", "民"]))
    [2, 3]
    """
    return set(itertools.accumulate(map(len, words[:-1])))


def consensus(segmentations: Sequence[Sequence[str]]) -> list[str]:
    """The majority vote of the segmentations' boundaries (all of the same text).

    A boundary is kept when more than half of the segmenters put it there; a tie
    (exactly half, an even number of segmenters) goes the first segmenter's way.

    >>> consensus([["中国", "人民"], ["中", "国", "人民"], ["中国", "人", "民"]])
    ['中国', '人民']
    >>> consensus([["中国人", "民"], ["中国", "人民"]])
    ['中国人', '民']
    """
    text = "".join(segmentations[0])
    if not text:
        return []
    votes = Counter(itertools.chain.from_iterable(map(boundaries, segmentations)))
    first = boundaries(segmentations[0])
    half = len(segmentations) / 2
    cuts = sorted(end for end, n in votes.items() if n > half or (n == half and end in first))
    edges = [0, *cuts, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(edges)]


def contested_share(segmentations: Sequence[Sequence[str]]) -> float:
    """The share of character gaps where some segmenters cut and others do not.

    >>> contested_share([["中国", "人民"], ["中", "国", "人民"]])
    0.3333333333333333
    """
    length = sum(map(len, segmentations[0]))
    if length < 2:
        return 0.0
    sets = [boundaries(words) for words in segmentations]
    union = set().union(*sets)
    common = set.intersection(*sets)
    return len(union - common) / (length - 1)


def stratum(share: float) -> int | None:
    """The index of the stratum of a contested share (None: no disagreement).

    >>> stratum(0.0), stratum(0.05), stratum(0.3), stratum(1.0)
    (None, 0, 2, 3)
    """
    for index, (low, high) in enumerate(STRATA):
        if low < share <= high:
            return index
    return None


class BlockRows:
    """Rows of additive counts, one per sentence until ``cap`` rows, then summed in blocks.

    >>> rows = BlockRows(2, cap=4)
    >>> for i in range(6):
    ...     rows.add([i, 1])
    >>> rows.block, rows.array().tolist()
    (2, [[1, 2], [5, 2], [9, 2]])
    """

    def __init__(self, width: int, *, cap: int = 1 << 16) -> None:
        if cap < 2 or cap % 2:
            raise ValueError(f"cap must be an even number >= 2, got {cap}")
        self.cap = cap
        self.block = 1
        self._rows = np.zeros((min(cap, 1024), width), dtype=np.int64)  # grows to cap
        self._full = 0  # complete rows
        self._partial = 0  # sentences in the row being filled

    def add(self, row: Sequence[int]) -> None:
        """Add one sentence's counts."""
        if self._full == len(self._rows):
            grown = np.zeros((min(2 * len(self._rows), self.cap), self._rows.shape[1]), np.int64)
            grown[: self._full] = self._rows
            self._rows = grown
        self._rows[self._full] += row
        self._partial += 1
        if self._partial == self.block:
            self._partial = 0
            self._full += 1
            if self._full == self.cap:
                folded = self._rows[0::2] + self._rows[1::2]
                self._rows[:] = 0
                self._rows[: self.cap // 2] = folded
                self._full = self.cap // 2
                self.block *= 2

    def array(self) -> np.ndarray:
        """The rows so far (the last, partial block included)."""
        return self._rows[: self._full + (self._partial > 0)].copy()


class StratifiedSample:
    """A reservoir sample of ``per_stratum`` items in each stratum (Vitter's algorithm R),
    seeded, so the same stream gives the same sample."""

    def __init__(self, strata: int, per_stratum: int, *, seed: int) -> None:
        self.per_stratum = per_stratum
        self.seen = [0] * strata
        self.items: list[list[Any]] = [[] for _ in range(strata)]
        self._random = random.Random(seed)

    def offer(self, index: int, item: Any) -> None:
        """Offer an item of stratum ``index``."""
        self.seen[index] += 1
        kept = self.items[index]
        if len(kept) < self.per_stratum:
            kept.append(item)
            return
        slot = self._random.randrange(self.seen[index])
        if slot < self.per_stratum:
            kept[slot] = item
