"""How scores are printed: the one unit policy of every command, report and renderer.

The policy lives in :mod:`cws_bench.metrics._units` (the general metrics
import nothing else of cws_bench) and is re-exported here, as
:mod:`cws_bench.defaults` re-exports the metrics' defaults:

* ``scale="percent"`` prints percentages with two decimals (``93.43``),
  ``scale="fraction"`` fractions with three (``0.934``); ``digits`` sets the
  decimals of either;
* the default scale is **percent** (:data:`DEFAULT_SCALE`): what ``score``,
  ``diff``, ``check``, ``corpora info`` and the metric reports print;
* the bake-off's leaderboards keep the SIGHAN 2005 tables' fractions with
  three decimals (:data:`REPORT_SCALE`);
* a p-value prints one way everywhere (:func:`format_p_value`).
"""

from __future__ import annotations

from cws_bench.metrics._units import (
    DEFAULT_SCALE,
    DIGITS,
    REPORT_SCALE,
    SCALES,
    Units,
    format_p_value,
    percent,
    units,
)

__all__ = [
    "DEFAULT_SCALE",
    "DIGITS",
    "REPORT_SCALE",
    "SCALES",
    "Units",
    "format_p_value",
    "percent",
    "units",
]
