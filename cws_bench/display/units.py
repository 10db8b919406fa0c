"""How scores are printed: one unit policy for every command, report and renderer.

Scores are computed and stored as fractions in [0, 1] (JSON, CSV, the Python
API). Where they are printed for a reader, one policy decides how:

* ``scale="percent"`` prints percentages with two decimals (``93.43``),
  ``scale="fraction"`` fractions with three (``0.934``); ``digits`` sets
  the decimals of either;
* the default scale is **percent** (:data:`DEFAULT_SCALE`), one default for
  every command and report: what ``score``, ``diff``, ``check``, ``corpora
  info``, the metric reports and the bake-off's leaderboards (``bakeoff``,
  ``report``: leaderboard.md, leaderboard.tex, report.html, the terminal
  table) print, two decimals of a percentage;
* every command and renderer that prints scores takes ``scale`` and
  ``digits`` (``--scale``, ``--digits``), and every header and caption
  says the unit and the counting method;
* a p-value is printed one way everywhere (:func:`format_p_value`).

This module imports nothing of cws_bench, so every layer can use it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "DEFAULT_SCALE",
    "DIGITS",
    "SCALES",
    "Units",
    "format_p_value",
    "percent",
    "plural",
    "share",
    "units",
]

Scale = Literal["percent", "fraction"]
SCALES: tuple[str, ...] = ("percent", "fraction")
"""What ``scale`` (``--scale``) takes."""
DEFAULT_SCALE: Scale = "percent"
"""The default scale of printed scores."""
DIGITS: dict[str, int] = {"percent": 2, "fraction": 3}
"""Decimals printed when not told: 93.43 or 0.934."""
P_VALUE_FLOOR = 0.001
"""p-values below this print as ``< 0.001``."""


@dataclass(frozen=True)
class Units:
    """How printed scores look: ``scale`` (percent or fraction) and ``digits`` decimals.

    >>> Units().score(0.934321), Units("fraction").score(0.934321)
    ('93.43', '0.934')
    >>> Units("fraction", 4).score(0.934321), Units().points(-0.004071)
    ('0.9343', '-0.41')
    """

    scale: Scale = DEFAULT_SCALE
    digits: int | None = None

    def __post_init__(self) -> None:
        if self.scale not in SCALES:
            raise ValueError(f"unknown scale {self.scale!r}; use one of: {', '.join(SCALES)}")
        if self.digits is not None and not 0 <= self.digits <= 15:
            raise ValueError(f"digits must be between 0 and 15, got {self.digits!r}")

    @property
    def decimals(self) -> int:
        """Decimals printed: ``digits``, else two of a percentage, three of a fraction."""
        return self.digits if self.digits is not None else DIGITS[self.scale]

    @property
    def factor(self) -> float:
        return 100.0 if self.scale == "percent" else 1.0

    def score(self, value: float | None, missing: str = "--") -> str:
        """A score in this unit; ``missing`` when undefined, ``nan`` for NaN."""
        if value is None:
            return missing
        if math.isnan(value):
            return "nan"
        return f"{self.factor * value:.{self.decimals}f}"

    def points(self, value: float | None, missing: str = "--") -> str:
        """A signed difference of scores (percentage points, or a fraction)."""
        if value is None:
            return missing
        return f"{self.factor * value:+.{self.decimals}f}"

    @property
    def label(self) -> str:
        """How a header names the unit: ``scores in %`` or ``scores as fractions``."""
        return "scores in %" if self.scale == "percent" else "scores as fractions"

    @property
    def caption(self) -> str:
        """How a caption names the unit, e.g. ``percentages with two decimals``."""
        words = {0: "no", 1: "one", 2: "two", 3: "three", 4: "four", 5: "five"}
        decimals = words.get(self.decimals, str(self.decimals))
        kind = "percentages" if self.scale == "percent" else "fractions"
        return f"{kind} with {decimals} decimal{'' if self.decimals == 1 else 's'}"


def units(
    scale: str | None = None, digits: int | None = None, *, default: str = DEFAULT_SCALE
) -> Units:
    """The Units of ``scale`` (else ``default``) and ``digits``.

    Raises:
        ValueError: an unknown scale or digits out of 0-15.
    """
    return Units(scale or default, digits)  # type: ignore[arg-type]


def percent(value: float | None) -> str:
    """A fraction as a percentage with two decimals; ``--`` when undefined, ``nan`` for NaN.

    >>> percent(0.5), percent(None), percent(float("nan"))
    ('50.00', '--', 'nan')
    """
    return Units().score(value)


def share(part: float, whole: float, *, empty: str = "--") -> str:
    """``part`` as a percentage of ``whole``, one decimal and a sign (a count's share, not a
    score); ``empty`` when ``whole`` is 0.

    >>> share(1, 3), share(2, 2), share(0, 0), share(0, 0, empty="0.0%")
    ('33.3%', '100.0%', '--', '0.0%')
    """
    return f"{100 * part / whole:.1f}%" if whole else empty


def format_p_value(value: float | None) -> str:
    """A p-value as every output prints it: three decimals, or ``< 0.001`` below that.

    >>> format_p_value(0.0412), format_p_value(0.0002), format_p_value(0.001)
    ('0.041', '< 0.001', '0.001')
    """
    if value is None:
        return ""
    return f"< {P_VALUE_FLOOR:g}" if value < P_VALUE_FLOOR else f"{value:.3f}"


def plural(count: int | None, singular: str, plural_form: str | None = None) -> str:
    """A count with its noun in the right number, thousands separated: the one way every
    message of cws-bench counts things.

    >>> plural(1, "empty gold line"), plural(1234, "gold word"), plural(2, "match", "matches")
    ('1 empty gold line', '1,234 gold words', '2 matches')
    >>> plural(0, "line"), plural(None, "sentence")
    ('0 lines', '— sentences')
    """
    noun = singular if count == 1 else (plural_form or singular + "s")
    return f"{'—' if count is None else f'{count:,}'} {noun}"
