"""Text normalisation applied identically to gold and prediction: width, Traditional/Simplified.

Scores compare word intervals, so a normaliser maps text character by
character (each output character depends on its input character alone);
otherwise a boundary would move, or gold and prediction (the same characters,
spaces elsewhere) would normalise differently.

``width``
    Full-width ASCII variants (U+FF01..U+FF5E: ``ＡＢＣ１２３！，``) to ASCII,
    and U+3000 to a space; nothing else (``。``, ``、``, ``「`` have no ASCII
    form; NFKC would change more, and can change lengths).
``t2s``, ``s2t``, ``tw2s``, ``hk2s``, ``s2tw``, ``s2hk``, ``t2tw``, ``t2hk``, ``tw2t``, ``hk2t``
    Traditional/Simplified conversion by OpenCC (``pip install opencc``), one
    character at a time: its phrase tables convert by context (头发 becomes
    頭髮 but 头 发 becomes 頭 發), which would make gold and prediction differ
    where their spaces differ. A character OpenCC maps to several is kept.

Specifications join steps with ``+`` (``width+t2s``); ``none`` is the identity.
:func:`get_normalizer` returns a :class:`Normalizer` whose ``name`` goes into
every result's signature.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from cws_bench.errors import CwsBenchError

__all__ = [
    "NORMALIZERS",
    "OPENCC_CONVERSIONS",
    "Normalizer",
    "as_normalizer",
    "get_normalizer",
    "width_table",
]

# OpenCC conversions offered; the phrase variants (s2twp, tw2sp, ...) replace
# words by other words and have no character-level meaning.
OPENCC_CONVERSIONS: tuple[str, ...] = (
    "t2s",
    "s2t",
    "tw2s",
    "hk2s",
    "s2tw",
    "s2hk",
    "t2tw",
    "t2hk",
    "tw2t",
    "hk2t",
)

# the single list of normalisation steps (the CLI's help reads it)
NORMALIZERS: tuple[str, ...] = ("none", "width", *OPENCC_CONVERSIONS)


def width_table() -> dict[int, str]:
    """The ``str.translate`` table of the ``width`` step.

    >>> "ＡＢＣ１２３！　，。".translate(width_table())
    'ABC123! ,。'
    """
    table = {code: chr(code - 0xFEE0) for code in range(0xFF01, 0xFF5F)}
    table[0x3000] = " "
    return table


class _OpenCCTable(dict):
    """A lazily filled ``str.translate`` table: each character converted alone by OpenCC."""

    def __init__(self, convert: Callable[[str], str]) -> None:
        super().__init__()
        self._convert = convert

    def __missing__(self, code: int) -> str:
        char = chr(code)
        converted = self._convert(char)
        value = converted if len(converted) == 1 else char
        self[code] = value
        return value


def _opencc_converter(conversion: str) -> Callable[[str], str]:
    try:
        import opencc
    except ImportError as e:
        raise CwsBenchError(
            f"normalisation {conversion!r} needs OpenCC, which is not installed",
            "pip install opencc (or pip install 'cws-bench[opencc]')",
        ) from e
    return opencc.OpenCC(f"{conversion}.json").convert


class Normalizer:
    """A character-by-character text normaliser (build one with :func:`get_normalizer`):
    a string to one of the same length, lines (with spaces) or words alike.
    ``name`` is the canonical specification for signatures (``width+t2s``)."""

    def __init__(self, steps: Sequence[str]) -> None:
        self.steps = tuple(steps)
        self.name = "+".join(self.steps) if self.steps else "none"
        self._tables: list[Any] = [
            width_table() if step == "width" else _OpenCCTable(_opencc_converter(step))
            for step in self.steps
        ]

    def __call__(self, text: str) -> str:
        for table in self._tables:
            text = text.translate(table)
        return text

    def words(self, words: Sequence[str]) -> list[str]:
        """Normalise each word of a sentence.

        >>> get_normalizer("width").words(["ＩＢＭ", "公司"])
        ['IBM', '公司']
        """
        return [self(word) for word in words] if self._tables else list(words)

    @property
    def identity(self) -> bool:
        """True for ``none``: nothing changes."""
        return not self.steps

    def __repr__(self) -> str:
        return f"Normalizer({self.name!r})"


def as_normalizer(normalize: str | Normalizer | None) -> Normalizer | None:
    """The normaliser a specification or a Normalizer stands for, or None when nothing changes.

    >>> as_normalizer("none") is None, as_normalizer(None) is None, as_normalizer("width").name
    (True, True, 'width')
    """
    if normalize is None:
        return None
    normalizer = normalize if isinstance(normalize, Normalizer) else get_normalizer(normalize)
    return None if normalizer.identity else normalizer


def get_normalizer(spec: str) -> Normalizer:
    """The normaliser a specification names: steps joined by ``+``.

    >>> normalize = get_normalizer("width+t2s")
    >>> normalize.name, normalize("ＵＳＢ接頭")
    ('width+t2s', 'USB接头')
    >>> get_normalizer("none")("ＡＢ")
    'ＡＢ'

    Raises:
        CwsBenchError: an unknown step, or OpenCC missing for a conversion step.
    """
    steps = [step.strip().lower() for step in spec.split("+") if step.strip()]
    unknown = [step for step in steps if step not in NORMALIZERS]
    if unknown or not steps:
        raise CwsBenchError(
            f"unknown normalisation {spec!r}",
            f"use steps joined by '+', from: {', '.join(NORMALIZERS)} (e.g. width+t2s)",
        )
    if "none" in steps:
        if len(steps) > 1:
            raise CwsBenchError(f"normalisation {spec!r}: 'none' cannot be combined")
        steps = []
    if len(set(steps)) < len(steps):
        raise CwsBenchError(f"normalisation {spec!r} repeats a step")
    return Normalizer(steps)
