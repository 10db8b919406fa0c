"""Undefined values (zero denominators), shared by every metric module.

``zero_division`` means what it means in scikit-learn: the value a metric
takes when its denominator is zero. ``"warn"`` gives 0.0 and an
:class:`UndefinedMetricWarning`; 0.0, 1.0 and nan give that value silently.
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Literal

__all__ = ["UndefinedMetricWarning", "ZeroDivision", "check_zero_division", "warn_undefined"]

ZeroDivision = Literal["warn"] | float


class UndefinedMetricWarning(UserWarning):
    """A metric was undefined (a zero denominator) and set to ``zero_division``."""


def check_zero_division(zero_division: ZeroDivision) -> float:
    """Return the value ``zero_division`` stands for, or raise ValueError.

    >>> check_zero_division("warn"), check_zero_division(1.0)
    (0.0, 1.0)
    """
    if isinstance(zero_division, str):
        if zero_division == "warn":
            return 0.0
    elif isinstance(zero_division, numbers.Real) and (
        zero_division in (0.0, 1.0) or math.isnan(zero_division)
    ):
        return float(zero_division)
    raise ValueError(f'zero_division must be "warn", 0.0, 1.0 or nan, got {zero_division!r}')


def warn_undefined(message: str, *, stacklevel: int = 3) -> None:
    """Emit an UndefinedMetricWarning (the caller decided ``zero_division == "warn"``)."""
    warnings.warn(message, UndefinedMetricWarning, stacklevel=stacklevel)
