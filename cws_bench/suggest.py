""" "Did you mean": the one helper every name lookup uses (corpora, segmenters, keys, commands,
and the files beside a path that is not there)."""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable

__all__ = ["close_files", "close_names", "did_you_mean", "missing_file_hint"]


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


def close_files(path: str | os.PathLike[str], n: int = 3) -> list[str]:
    """Files beside a path that does not exist whose names are closest to its name, best
    first, as paths spelt like ``path`` (its folder as given).

    A folder with very many entries is not listed (a lookup must stay cheap).
    """
    folder, name = os.path.split(os.fspath(path))
    try:
        with os.scandir(folder or ".") as entries:
            names = []
            for count, entry in enumerate(entries):
                if count > 10_000:
                    return []
                if entry.is_file():
                    names.append(entry.name)
    except OSError:
        return []
    return [os.path.join(folder, close) for close in close_names(name, names, n)]


def missing_file_hint(path: str | os.PathLike[str]) -> str:
    """The hint for a file that is not there: the near file names, else check the path."""
    close = close_files(path)
    return f"did you mean {' or '.join(close)}?" if close else "check the path"
