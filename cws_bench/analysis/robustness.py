"""Robustness without gold: does a meaning-preserving change of a sentence change how
the rest of it is cut?

Each perturbation makes a new input line from a sentence's text (its
characters, whitespace dropped) and says which of the sentence's internal
boundaries it *touches*; the sentence *flips* when the segmentation of the
perturbed line differs from the original's on any boundary it does not touch
(ansj issue 328 reports about 5% for a stray space):

- ``space``: a space inserted in the middle gap of the sentence (at
  ``len // 2``); segmenters drop whitespace, so the output's text is the
  sentence's; the boundary at the space is touched.
- ``width``: every half-width ASCII character made full-width (or, in a
  sentence without any, every full-width one half-width); the boundaries on
  either side of a changed character are touched.
- ``punct``: the sentence put in corner brackets, ``「…」``; the boundaries
  compared are the sentence's own, shifted by one.
- ``script``: Simplified converted to Traditional character by character
  (OpenCC's ``s2t``, :mod:`cws_bench.text.normalize`); the whole sentence is
  compared (no character keeps its form, so nothing is untouched, but the
  meaning is the same).

A perturbation that changes nothing (no ASCII for ``width``, no convertible
character for ``script``, fewer than two characters) does not apply, and the
sentence is not counted for it.

>>> p = perturb("space", "我们是学生")
>>> p.line, sorted(p.touched)
('我们 是学生', [2])
>>> flipped(["我们", "是", "学生"], ["我们", "是学", "生"], p)
True
>>> flipped(["我们", "是", "学生"], ["我们是", "学生"], p)
False
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from cws_bench.analysis.agreement import boundaries

__all__ = ["PERTURBATIONS", "Perturbation", "flipped", "perturb"]

PERTURBATIONS: tuple[str, ...] = ("space", "width", "punct", "script")
"""The perturbations, in report order; ``script`` needs OpenCC."""

_HALF = {c: chr(c + 0xFEE0) for c in range(0x21, 0x7F)}
_FULL = {c + 0xFEE0: chr(c) for c in range(0x21, 0x7F)}


@dataclass(frozen=True)
class Perturbation:
    """A perturbed line: ``line`` (the input to segment), ``offset`` (where the sentence's
    first character is in the output's text), ``length`` (the sentence's characters) and
    ``touched`` (boundaries of the sentence not compared)."""

    kind: str
    line: str
    offset: int
    length: int
    touched: frozenset[int]


def perturb(
    kind: str, text: str, convert: Callable[[str], str] | None = None
) -> Perturbation | None:
    """The ``kind`` perturbation of ``text`` (whitespace-free), or None where it does not
    apply. ``convert``: the ``script`` conversion (length-preserving).

    >>> perturb("width", "用Python写").line
    '用Ｐｙｔｈｏｎ写'
    >>> sorted(perturb("width", "用Python写").touched)
    [1, 2, 3, 4, 5, 6, 7]
    >>> perturb("punct", "好的").line
    '「好的」'
    """
    length = len(text)
    if length < 2:
        return None
    if kind == "space":
        middle = length // 2
        return Perturbation(
            kind, f"{text[:middle]} {text[middle:]}", 0, length, frozenset({middle})
        )
    if kind == "width":
        table = _HALF if any(0x21 <= ord(c) < 0x7F for c in text) else _FULL
        line = text.translate(table)
        if line == text:
            return None
        changed = [i for i, (a, b) in enumerate(zip(text, line)) if a != b]
        return Perturbation(
            kind, line, 0, length, frozenset(b for i in changed for b in (i, i + 1))
        )
    if kind == "punct":
        return Perturbation(kind, f"「{text}」", 1, length, frozenset())
    if kind == "script":
        if convert is None:
            raise ValueError("the script perturbation needs a conversion")
        line = convert(text)
        if line == text or len(line) != length:
            return None
        return Perturbation(kind, line, 0, length, frozenset())
    raise ValueError(f"unknown perturbation {kind!r}; known: {', '.join(PERTURBATIONS)}")


def flipped(original: Sequence[str], perturbed: Sequence[str], p: Perturbation) -> bool:
    """Whether the perturbed segmentation differs from the original on an untouched boundary.

    >>> p = perturb("punct", "我们是")
    >>> flipped(["我们", "是"], ["「", "我们", "是", "」"], p)
    False
    >>> flipped(["我们", "是"], ["「我", "们是」"], p)
    True
    """
    before = boundaries(original) - p.touched
    after = {b - p.offset for b in boundaries(perturbed)}
    after = {b for b in after if 0 < b < p.length} - p.touched
    return before != after
