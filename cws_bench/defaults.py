"""The defaults every command shares, one constant each (one default per setting).

``DEFAULT_SEED`` and ``DEFAULT_RESAMPLES`` live in :mod:`cws_bench.metrics.defaults`
(the general metrics import nothing else of cws_bench) and are re-exported
here. This module imports nothing heavy, so the CLI's option defaults and
the bake-off's configuration read it at start-up.
"""

from __future__ import annotations

from cws_bench.metrics.defaults import DEFAULT_RESAMPLES, DEFAULT_SEED

__all__ = [
    "DEFAULT_BATCH_SIZE",
    "DEFAULT_RESAMPLES",
    "DEFAULT_RETRIES",
    "DEFAULT_SEED",
    "DEFAULT_SHARD_CHARS",
    "EXECUTORS",
]

DEFAULT_BATCH_SIZE = 500
"""Lines per ``segment()`` call when not told: the one default of ``segment``, ``baseline
save`` and the bake-off (``segment`` used 1000 before)."""

EXECUTORS: tuple[str, ...] = ("local", "dask")
"""What ``--executor`` takes (:mod:`cws_bench.executors` implements them)."""

DEFAULT_RETRIES = 2
"""How many times an item whose worker died or hung runs again before the run fails."""

DEFAULT_SHARD_CHARS = 200_000
"""Characters per shard by default (see docs/BENCHMARKS.md, section shards)."""
