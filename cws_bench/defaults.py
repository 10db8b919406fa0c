"""The defaults every command shares, one constant each (one default per setting).

``DEFAULT_SEED``, ``DEFAULT_RESAMPLES``, ``DEFAULT_ALPHA`` and the paired ``TESTS`` live in
:mod:`cws_bench.metrics.defaults` (the general metrics import nothing else of cws_bench)
and are re-exported here. This module imports nothing heavy, so the CLI's option defaults and
the bake-off's configuration read it at start-up.
"""

from __future__ import annotations

import enum

from cws_bench.metrics.defaults import (
    DEFAULT_ALPHA,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    DEFAULT_TEST,
    TESTS,
)

__all__ = [
    "DEFAULT_ALPHA",
    "DEFAULT_BATCH_SIZE",
    "DEFAULT_RESAMPLES",
    "DEFAULT_RETRIES",
    "DEFAULT_SEED",
    "DEFAULT_SHARD_CHARS",
    "DEFAULT_TEST",
    "EXECUTORS",
    "STANDARD_DICTIONARY",
    "TESTS",
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
"""Characters per shard by default (see docs/BENCHMARKS.md, section shards)."""


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
