"""The defaults every command shares, one constant each (one default per setting).

The statistical ones (``DEFAULT_SEED``, ``DEFAULT_RESAMPLES``, ``DEFAULT_ALPHA``,
``DEFAULT_CONFIDENCE``, the paired ``TESTS``) live in :mod:`cws_bench.metrics.defaults`,
which the general metrics import too. This module imports nothing heavy, so the CLI's option
defaults and the bake-off's configuration read it at start-up.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from typing import Any

__all__ = [
    "BOUNDS",
    "DEFAULT_BATCH_SIZE",
    "DEFAULT_RETRIES",
    "DEFAULT_SHARD_CHARS",
    "EXECUTORS",
    "STANDARD_DICTIONARY",
    "Bounds",
    "DictionaryDefault",
]

DEFAULT_BATCH_SIZE = 500
"""Lines per ``segment()`` call when not told: the one default of ``segment``, ``baseline
save`` and the bake-off (``segment`` used 1000 before)."""

EXECUTORS: tuple[str, ...] = ("local", "dask")
"""What ``--executor`` takes (:mod:`cws_bench.run.executors` implements them)."""

DEFAULT_RETRIES = 2
"""How many times an item whose worker died or hung runs again before the run fails."""

DEFAULT_SHARD_CHARS = 200_000
"""Characters per shard by default (see docs/BENCHMARKS-LOG.md, section shards)."""


@dataclass(frozen=True)
class Bounds:
    """The range of a numeric setting: what its TOML key and its command-line option accept.

    Attributes:
        whole: a whole number (TOML integer), else any finite number.
        low: the least value (None: no bound below).
        high: the greatest value (None: no bound above).
        low_open: ``low`` itself is refused (more than ``low``).
        high_open: ``high`` itself is refused (less than ``high``).
    """

    whole: bool
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False

    def describe(self) -> str:
        """The range in words.

        >>> BOUNDS["resamples"].describe(), BOUNDS["timeout"].describe()
        ('a whole number of at least 1', 'a number more than 0')
        """
        parts = []
        if self.low is not None:
            parts.append(f"{'more than' if self.low_open else 'at least'} {self.low:g}")
        if self.high is not None:
            parts.append(f"{'less than' if self.high_open else 'at most'} {self.high:g}")
        words = " and ".join(parts)
        if self.whole:
            return f"a whole number of {words}" if words else "a whole number"
        return f"a number {words}" if words else "a number"

    def problem(self, value: Any) -> str | None:
        """Why ``value`` is not in range (``must be ..., not ...``), or None when it is.

        >>> BOUNDS["resamples"].problem(-5), BOUNDS["resamples"].problem(1000)
        ('must be a whole number of at least 1, not -5', None)
        >>> BOUNDS["resamples"].problem(True), BOUNDS["timeout"].problem(float("nan"))
        ('must be a whole number of at least 1, not True', 'must be a number more than 0, not nan')
        """
        kinds = (int,) if self.whole else (int, float)
        in_range = (
            isinstance(value, kinds)
            and not isinstance(value, bool)
            and math.isfinite(value)
            and (self.low is None or value > self.low or (value == self.low and not self.low_open))
            and (
                self.high is None
                or value < self.high
                or (value == self.high and not self.high_open)
            )
        )
        return None if in_range else f"must be {self.describe()}, not {value!r}"


BOUNDS: dict[str, Bounds] = {
    "seed": Bounds(whole=True, low=0),
    "resamples": Bounds(whole=True, low=1),
    "timeout": Bounds(whole=False, low=0, low_open=True),
    "batch_size": Bounds(whole=True, low=1),
    "jobs": Bounds(whole=True, low=1),
    "shard_chars": Bounds(whole=True, low=1),
    "retries": Bounds(whole=True, low=0),
    "alpha": Bounds(whole=False, low=0, high=1, low_open=True, high_open=True),
    "resplits": Bounds(whole=True, low=0),
}
"""The range of every numeric setting, one line each: a bake-off's TOML keys (top level and
``[settings]``) are checked against it up front (:mod:`cws_bench.run.config`,
:mod:`cws_bench.run.validate`) and the command-line options of the same name take their
click types from it (``cli/options.py``: ``bounded``). ``timeout`` is also ``--shard-timeout``.
A new setting is one more line here (as ``alpha``, the paired tests' significance level)."""


class DictionaryDefault(enum.Enum):
    """The OOV dictionary a scoring function uses when not told (the type of its one value)."""

    STANDARD = "standard"

    def __repr__(self) -> str:
        return "STANDARD_DICTIONARY"


STANDARD_DICTIONARY = DictionaryDefault.STANDARD
"""The default ``dictionary`` of ``score_files``, ``compare``, ``diff_files`` and ``score``,
``diff`` on the command line: the standard dictionary of a registered corpus named as the
gold (``sighan2005-pku:test``: the bakeoff's training word list), none for a gold file.
``dictionary=None`` asks for no dictionary (OOV figures None) whatever the gold."""
