"""Consistency without gold: does a segmenter cut the same string the same way everywhere?

A *tracked string* is a word some segmenter produced, of 2 to ``max_length``
characters. An *occurrence* of it, for one segmenter, is a place in a sentence
where the string stands with a boundary of that segmenter's on both sides
(the sentence's edges count); its *cut* there is the set of the segmenter's
boundaries inside it (none: the string is one word). A segmenter is
*inconsistent* on a string when the string has at least two occurrences and
more than one cut among them (HanLP issue 1285: the same name one word here,
two words there). Occurrences whose edges the segmenter does not cut (the
string straddles two of its words) are not counted: there the string is not
a unit of that segmentation at all.

Memory is bounded twice: :class:`CandidateCounter` keeps at most ``2 × cap``
strings while counting (when it grows past that, the ``cap`` most frequent are
kept, so a string rarer than the cap's threshold early in the text can be
dropped: the tracked set is approximate for rare strings), and the tracker
keeps per segmenter and tracked string one count and one example per cut.

>>> counter = CandidateCounter(cap=10)
>>> counter.add(["中国", "人"]); counter.add(["中", "国"])
>>> tracked = counter.strings()
>>> sorted(tracked)
['中国']
>>> tracker = Consistency(["a"], tracked)
>>> tracker.add(1, "中国人", [["中国", "人"]])
>>> tracker.add(2, "在中国", [["在", "中", "国"]])
>>> [(s.string, s.cuts) for s in tracker.inconsistent("a")]
[('中国', {'中国': 1, '中 国': 1})]
"""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = [
    "BANDS",
    "CandidateCounter",
    "Consistency",
    "StringCuts",
]

BANDS: tuple[tuple[int, int | None], ...] = ((2, 4), (5, 19), (20, 99), (100, None))
"""Frequency bands (occurrences of a string, inclusive; None: no upper bound)."""

CONTEXT = 8
"""Characters of context on each side of an example."""


class CandidateCounter:
    """Words of 2 to ``max_length`` characters counted, at most ``2 × cap`` kept."""

    def __init__(self, *, cap: int = 50_000, max_length: int = 8) -> None:
        self.cap = cap
        self.max_length = max_length
        self.counts: Counter[str] = Counter()
        self.pruned = False

    def add(self, words: Iterable[str]) -> None:
        """Count one sentence's words."""
        top = self.max_length
        self.counts.update(w for w in words if 2 <= len(w) <= top)
        if len(self.counts) > 2 * self.cap:
            self.counts = Counter(dict(self.counts.most_common(self.cap)))
            self.pruned = True

    def strings(self) -> frozenset[str]:
        """The ``cap`` most frequent strings."""
        return frozenset(s for s, _ in self.counts.most_common(self.cap))


@dataclass
class StringCuts:
    """One segmenter's cuts of one string: each cut (words joined by spaces) with its
    count and first example (line number, text with the occurrence in brackets)."""

    string: str
    cuts: dict[str, int]
    examples: dict[str, tuple[int, str]]

    @functools.cached_property
    def occurrences(self) -> int:
        """All occurrences (read once the counting is over: the value is kept)."""
        return sum(self.cuts.values())

    @property
    def minority(self) -> int:
        """Occurrences not cut the most frequent way."""
        return self.occurrences - max(self.cuts.values())

    def to_dict(self) -> dict[str, object]:
        return {
            "string": self.string,
            "occurrences": self.occurrences,
            "minority": self.minority,
            "cuts": [
                {
                    "cut": cut,
                    "count": n,
                    "line": self.examples[cut][0],
                    "example": self.examples[cut][1],
                }
                for cut, n in sorted(self.cuts.items(), key=lambda kv: (-kv[1], kv[0]))
            ],
        }


class Consistency:
    """The cuts of the tracked strings, per segmenter, accumulated sentence by sentence."""

    def __init__(self, names: Sequence[str], strings: frozenset[str]) -> None:
        self.names = list(names)
        self.strings = strings
        self.lengths = sorted({len(s) for s in strings})
        self.prefixes = frozenset(s[:2] for s in strings)  # most places start none: one lookup
        self.table: list[dict[str, StringCuts]] = [{} for _ in self.names]

    def add(self, line: int, text: str, segmentations: Sequence[Sequence[str]]) -> None:
        """Add one sentence: its text and each segmenter's words of it (same order as names)."""
        strings, prefixes, lengths, size = self.strings, self.prefixes, self.lengths, len(text)
        found = [
            (i, length)
            for i in range(size - 1)
            if text[i : i + 2] in prefixes
            for length in lengths
            if i + length <= size and text[i : i + length] in strings
        ]
        if not found:
            return
        for table, words in zip(self.table, segmentations):
            if "".join(words) != text:
                continue  # a segmenter that changed the text: its offsets are not the text's
            edges = set(itertools.accumulate(map(len, words), initial=0))
            for i, length in found:
                if i not in edges or i + length not in edges:
                    continue
                string = text[i : i + length]
                pieces = [0, *(o for o in range(1, length) if i + o in edges), length]
                cut = " ".join(string[a:b] for a, b in itertools.pairwise(pieces))
                entry = table.get(string)
                if entry is None:
                    entry = table[string] = StringCuts(string, {}, {})
                entry.cuts[cut] = entry.cuts.get(cut, 0) + 1
                if cut not in entry.examples:
                    left = text[max(0, i - CONTEXT) : i]
                    right = text[i + length : i + length + CONTEXT]
                    entry.examples[cut] = (line, f"{left}[{cut}]{right}")

    def inconsistent(self, name: str) -> list[StringCuts]:
        """A segmenter's inconsistent strings, most minority occurrences first."""
        table = self.table[self.names.index(name)]
        found = [e for e in table.values() if e.occurrences >= 2 and len(e.cuts) > 1]
        return sorted(found, key=lambda e: (-e.minority, -e.occurrences, e.string))

    def bands(self, name: str) -> list[dict[str, object]]:
        """Per frequency band: strings seen at least twice, how many are inconsistent, and
        the occurrences outside each string's most frequent cut."""
        table = self.table[self.names.index(name)]
        rows = []
        for low, high in (*BANDS, (2, None)):
            entries = [
                e
                for e in table.values()
                if low <= e.occurrences and (high is None or e.occurrences <= high)
            ]
            bad = [e for e in entries if len(e.cuts) > 1]
            occurrences = sum(e.occurrences for e in entries)
            minority = sum(e.minority for e in bad)
            rows.append(
                {
                    "band": "all" if (low, high) == (2, None) else _band_name(low, high),
                    "strings": len(entries),
                    "inconsistent": len(bad),
                    "rate": len(bad) / len(entries) if entries else 0.0,
                    "occurrences": occurrences,
                    "minority_occurrences": minority,
                }
            )
        return rows


def _band_name(low: int, high: int | None) -> str:
    return f"{low}+" if high is None else f"{low}-{high}"
