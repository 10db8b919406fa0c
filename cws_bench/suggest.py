""" "Did you mean": the one helper every name lookup uses (corpora, segmenters, keys, commands)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["close_names", "did_you_mean"]


def close_names(name: str, choices: Iterable[str], n: int = 3) -> list[str]:
    """The choices closest to ``name`` (difflib's ratio of at least 0.6, ignoring case),
    best first.

    >>> close_names("sighan-pku", ["sighan2005-pku", "sighan2005-msr", "sample"])
    ['sighan2005-pku']
    """
    by_lower: dict[str, str] = {}
    for choice in choices:  # case does not count: F1 finds f1
        by_lower.setdefault(choice.lower(), choice)
    return [by_lower[c] for c in difflib.get_close_matches(str(name).lower(), by_lower, n=n)]


def did_you_mean(name: str, choices: Iterable[str], n: int = 3) -> str | None:
    """``"did you mean X?"`` (or ``"X or Y"``) for a name not among ``choices``, else None.

    >>> did_you_mean("keeprun", ["dictionary", "keep_runs", "words"])
    'did you mean keep_runs?'
    >>> did_you_mean("zzz", ["fmm", "bmm"]) is None
    True
    """
    close = close_names(name, choices, n)
    return f"did you mean {' or '.join(close)}?" if close else None
