"""What is wrong with a bake-off's configuration, said: :class:`Problem`, the
:class:`ConfigurationError` that lists every one, and the range checks of its numbers.

Below both the configuration's parser (:mod:`cws_bench.run.config`) and its validation
(:mod:`cws_bench.run.validate`), which each find problems and raise them here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cws_bench.errors import CwsBenchError, Fix, Terms, fill_hint
from cws_bench.suggest import did_you_mean

__all__ = [
    "NUMBERS",
    "SETTINGS_NUMBERS",
    "ConfigurationError",
    "Problem",
    "check_keys",
    "check_names",
    "range_problems",
]


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a configuration: where, what, and how to fix it."""

    where: str
    message: str
    hint: str | None = None
    fixes: tuple[Fix, ...] = ()

    def describe(self, terms: Terms = Fix.api) -> str:
        """The problem, with the fixes its hint names (``{0}``, ...) in ``terms``."""
        text = f"{self.where}: {self.message}" if self.where else self.message
        hint = fill_hint(self.hint, self.fixes, terms)
        return f"{text}; {hint}" if hint else text

    def __str__(self) -> str:
        return self.describe()


class ConfigurationError(CwsBenchError):
    """A bake-off configuration with problems; ``problems`` lists them all."""

    def __init__(self, source: str, problems: Sequence[Problem]) -> None:
        self.problems = tuple(problems)
        self.source = source
        super().__init__(self._message(Fix.api), "fix them and run again")

    def _message(self, terms: Terms) -> str:
        lines = "\n".join(f"  - {problem.describe(terms)}" for problem in self.problems)
        count = len(self.problems)
        return (
            f"{self.source}: {count} problem{'s' if count > 1 else ''}, nothing was run:\n{lines}"
        )

    def describe(self, terms: Terms = Fix.api) -> str:
        """Every problem and the hint, each fix named by ``terms`` (e.g. a command's flags)."""
        hint = self.describe_hint(terms)
        message = self._message(terms)
        return f"{message}\n  hint: {hint}" if hint else message


def check_names(kind: str, given: Sequence[str], known: Sequence[str]) -> None:
    """Raise when a name in ``given`` is not in ``known`` (with the closest ones).

    >>> check_names("segmenter", ["fmm"], ["fmm", "bmm"])
    >>> check_names("segmenter", ["fmn"], ["fmm", "bmm"])
    Traceback (most recent call last):
    ...
    cws_bench.errors.CwsBenchError: no segmenter labelled 'fmn' in this bake-off
      hint: did you mean fmm? (its segmenters: fmm, bmm)
    """
    for name in given:
        if name not in known:
            close = did_you_mean(name, known)
            listed = f"its {kind}s: {', '.join(known)}"
            raise CwsBenchError(
                f"no {kind} labelled {name!r} in this bake-off",
                f"{close} ({listed})" if close else listed,
            )


def check_keys(where: str, table: Any, allowed: set[str]) -> None:
    """Raise unless ``table`` is a table whose keys are all ``allowed`` (with the closest ones).

    >>> check_keys("x.toml: [settings]", {"retires": 2}, {"retries", "executor"})
    Traceback (most recent call last):
    ...
    cws_bench.errors.CwsBenchError: x.toml: [settings]: unknown key retires
      hint: did you mean retries? (allowed keys: executor, retries)
    """
    if not isinstance(table, dict):
        raise CwsBenchError(f"{where}: expected a table")
    unknown = sorted(set(table) - allowed)
    if unknown:
        close = [hint for key in unknown if (hint := did_you_mean(key, sorted(allowed), n=1))]
        listed = f"allowed keys: {', '.join(sorted(allowed))}"
        raise CwsBenchError(
            f"{where}: unknown {'key' if len(unknown) == 1 else 'keys'} {', '.join(unknown)}",
            f"{'; '.join(close)} ({listed})" if close else listed,
        )


NUMBERS = ("seed", "resamples", "timeout", "batch_size", "alpha", "resplits")
"""A bake-off's numeric settings at the top of its TOML (each has a line in
:data:`~cws_bench.defaults.BOUNDS`)."""


SETTINGS_NUMBERS = ("shard_chars", "retries", "jobs", "timeout")
"""Its numeric ``[settings]``: the TOML's ``[settings]`` table sets the first two; ``jobs``
and the shard ``timeout`` come from the caller (``run_bakeoff``, ``--jobs``,
``--shard-timeout``)."""


def range_problems(table: Mapping[str, Any], keys: Sequence[str], where: str) -> list[str]:
    """The keys of ``table`` among ``keys`` whose value is out of range (``BOUNDS``), said.

    >>> range_problems({"resamples": 0, "seed": 1}, ["seed", "resamples"], "x.toml:")
    ['x.toml: resamples must be a whole number of at least 1, not 0']
    """
    from cws_bench.defaults import BOUNDS

    return [
        f"{where} {key} {problem}"
        for key in keys
        if key in table and (problem := BOUNDS[key].problem(table[key])) is not None
    ]
