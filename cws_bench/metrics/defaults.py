"""The resampling defaults every command and function shares, in a module that imports nothing.

:mod:`cws_bench.metrics.significance` re-exports them; callers that must not
pay for numpy at start-up (the CLI's option defaults) import them from here.
"""

from __future__ import annotations

__all__ = [
    "DEFAULT_ALPHA",
    "DEFAULT_CONFIDENCE",
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "DEFAULT_TEST",
    "TESTS",
]

DEFAULT_RESAMPLES = 1000
"""Resamples when not told: Koehn (2004) and sacrebleu use 1000."""

DEFAULT_SEED = 2005
"""The seed when not told: the one default of every command and function that resamples
(the bake-off's since its first release; ``diff`` and ``baseline`` used sacrebleu's 12345
before)."""

DEFAULT_ALPHA = 0.05
"""The significance level when not told (``--alpha``, ``alpha =`` in a bake-off): a
comparison is significant when its (corrected) p-value is below it."""

DEFAULT_CONFIDENCE = 0.95
"""The confidence level of every interval when not told: the bake-off's, ``score
--confidence``'s, the audit's, the metrics' bootstrap and Wilson intervals, and what a
report says of a run that did not record its level."""

TESTS = ("bootstrap", "permutation")
"""The paired tests a comparison can use (``--test``, ``test =``): the paired bootstrap
(Koehn 2004) or approximate randomization, a paired permutation test (Noreen 1989)."""

DEFAULT_TEST = "bootstrap"
"""The paired test when not told."""


CORRECTIONS = ("holm", "bonferroni", "fdr_bh", "maxt", "none")
"""The corrections :func:`~cws_bench.metrics.significance.adjust_p_values` knows
(statsmodels' ``multipletests`` names, and ``maxt``: Westfall & Young's step-down max-T,
which needs the tests' null distributions)."""
