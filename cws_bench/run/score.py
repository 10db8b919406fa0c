"""What ``cws-bench score`` does, as one library call: :func:`score_predictions`.

One prediction is scored by :func:`cws_bench.scoring.score_files`, in this
process or, given an executor, in shards
(:class:`~cws_bench.run.sharded.ShardedCounting`, the same job's other middle);
several, or one with intervals, paired tests or a table format, by
:func:`~cws_bench.run.comparison.compare`; a counting method that scores whole
files (conll18) through its registered object
(:meth:`~cws_bench.scoring.methods.CountingMethod.score_whole_files`). The
command line parses its options, calls this and prints what it returns.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from cws_bench.defaults import DEFAULT_SHARD_CHARS
from cws_bench.errors import CwsBenchError, Fix
from cws_bench.metrics.defaults import DEFAULT_ALPHA, DEFAULT_RESAMPLES, DEFAULT_SEED, DEFAULT_TEST
from cws_bench.text.io import display_name, encoding_parameters

if TYPE_CHECKING:
    from cws_bench.run.comparison import ComparisonReport
    from cws_bench.run.executors import Executor
    from cws_bench.scoring.methods import CountingMethod, WholeFileResult
    from cws_bench.scoring.result import ScoreResult

__all__ = ["TABLES", "Scored", "score_predictions"]

TABLES = ("markdown", "latex")
"""Formats that print the table of systems, even of one."""


@dataclass(frozen=True)
class Scored:
    """What :func:`score_predictions` gives, ready to print.

    Attributes:
        output: the one prediction's :class:`~cws_bench.scoring.result.ScoreResult`,
            the :class:`~cws_bench.run.comparison.ComparisonReport` of several, or
            the result of a method that scores whole files.
        gold, pred: the files as given, named in the text table and the SIGHAN block.
        compared: ``output`` is a comparison.
    """

    output: ScoreResult | ComparisonReport | WholeFileResult
    gold: str
    pred: str = ""
    compared: bool = False

    @property
    def result(self) -> ScoreResult | None:
        """The one prediction's result of line pairs (its per-line details), else None."""
        from cws_bench.scoring.result import ScoreResult

        return self.output if isinstance(self.output, ScoreResult) else None

    def warnings(self, fmt: str) -> tuple[str, ...]:
        """The warnings to show beside ``render(fmt)`` (a comparison's text table holds
        its own as notes)."""
        if self.compared:
            rows = cast("ComparisonReport", self.output).rows
            return tuple(f"{r.name}: {w}" for r in rows for w in r.result.warnings if fmt != "text")
        return self.result.warnings if self.result is not None else ()

    def render(self, fmt: str, *, scale: str | None = None, digits: int | None = None) -> str:
        """The output in ``fmt``; ``scale`` and ``digits`` as the result's ``render`` takes them."""
        if self.result is not None:
            return self.result.render(
                fmt, gold=self.gold, pred=self.pred, scale=scale, digits=digits
            )
        if self.compared:
            return cast("ComparisonReport", self.output).render(fmt, scale=scale, digits=digits)
        return cast("WholeFileResult", self.output).render(fmt)


def score_predictions(
    gold: str,
    predictions: Sequence[tuple[str | None, str]],
    *,
    fmt: str = "text",
    method: str | None = None,
    confidence: bool = False,
    paired: bool = False,
    baseline: str | None = None,
    test: str = DEFAULT_TEST,
    alpha: float = DEFAULT_ALPHA,
    correction: str = "holm",
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    beta: float = 1.0,
    strict: bool = False,
    allow_line_mismatch: bool = False,
    per_line: bool = False,
    executor: Executor | None = None,
    shard_chars: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    **options: Any,
) -> Scored:
    """Score one prediction or several against ``gold``, as ``cws-bench score`` does.

    Args:
        gold: as :func:`cws_bench.scoring.score_files` takes it.
        predictions: (label or None, file) of each prediction; a labelled one names
            its row of a comparison (the others are named by their file).
        fmt: the format the output will be rendered in: a table format (markdown,
            latex) compares even one prediction; ``sighan`` means the sighan method.
        method: a registered counting method (default: interval, or sighan for
            ``fmt="sighan"``); one that scores whole files takes one prediction.
        confidence, paired, baseline, test, alpha, correction, resamples, seed: as
            :func:`~cws_bench.run.comparison.compare` takes them (a baseline file is
            added to the predictions); any of them compares.
        beta, strict, allow_line_mismatch, per_line: of one prediction, as
            ``score_files`` takes them.
        executor: score one prediction in shards of ``shard_chars`` gold characters
            on it (``progress`` called as each shard finishes); None: in this process.
        options: ``dictionary``, ``dictionary_encoding``, ``normalize``, ``encoding``,
            ``pred_encoding``, ``gold_format``, ``data_dir``, as ``score_files`` takes them.

    Raises:
        CwsBenchError: settings that do not go together (a setting of one prediction
            with several, ...), or any error of scoring; a decoding error names the
            encoding parameter of the file at fault.
    """
    from cws_bench.scoring.methods import get_method

    paths = tuple(path for _, path in predictions)
    counting = get_method(method or ("sighan" if fmt == "sighan" else "interval"), line_pairs=False)
    if not counting.counts_line_pairs:
        return _whole_files(counting, gold, paths, fmt, options)
    if baseline is not None and baseline not in paths:
        paths = (*paths, baseline)
    many = len(paths) > 1 or confidence or paired or baseline is not None or fmt in TABLES
    if many:
        _check_one_prediction_settings(fmt, per_line, executor, strict, allow_line_mismatch, beta)
    elif fmt == "sighan" and counting.name != "sighan":
        raise CwsBenchError(
            f"the sighan format is the SIGHAN script's block, which the {counting.name} "
            "method does not count",
            "use {0}",
            fixes=(Fix("method", "sighan"),),
        )
    options["method"] = counting.name
    # A decoding error's fix names the encoding parameter of the file at fault.
    files = [(p, "pred_encoding") for p in paths]
    with encoding_parameters(
        [(options.get("dictionary"), "dictionary_encoding"), *files, (gold, "encoding")]
    ):
        if many:
            labels = {path: label for label, path in predictions if label is not None}
            statistics = {"confidence": confidence, "paired": paired, "test": test}
            statistics |= {"alpha": alpha, "correction": correction}
            statistics |= {"resamples": resamples, "seed": seed}
            return _compare(gold, paths, labels, baseline, statistics, options)
        from cws_bench.scoring.api import score_files

        count = None
        if executor is not None:
            from cws_bench.run.sharded import ShardedCounting

            count = ShardedCounting(executor, shard_chars or DEFAULT_SHARD_CHARS, progress)
        (pred,) = paths
        result = score_files(
            gold,
            pred,
            beta=beta,
            strict=strict,
            allow_line_mismatch=allow_line_mismatch,
            per_line=per_line,
            count=count,
            **options,
        )
        return Scored(result, gold, pred)


def _whole_files(
    counting: CountingMethod, gold: str, paths: tuple[str, ...], fmt: str, options: dict[str, Any]
) -> Scored:
    """One prediction scored by a method that scores whole files (conll18)."""
    if len(paths) != 1:
        raise CwsBenchError(f"the {counting.name} method scores one prediction")
    output = counting.score_whole_files(gold, paths[0], fmt=fmt, **options)
    return Scored(output, gold, paths[0])


def _compare(
    gold: str,
    paths: tuple[str, ...],
    labels: dict[str, str],
    baseline: str | None,
    statistics: dict[str, Any],
    options: dict[str, Any],
) -> Scored:
    """Several predictions compared: rows named by their label, the others by their file."""
    from cws_bench.run.comparison import compare

    systems: Any = list(paths)
    if labels:
        systems = {labels.get(p, display_name(p)): p for p in paths}
        if len(systems) < len(paths):
            raise CwsBenchError("two predictions have the same name")
    if baseline is not None:
        baseline = labels.get(baseline, baseline)
    report = compare(gold, systems, baseline=baseline, **statistics, **options)
    return Scored(report, gold, compared=True)


def _check_one_prediction_settings(
    fmt: str,
    per_line: bool,
    executor: Executor | None,
    strict: bool,
    allow_line_mismatch: bool,
    beta: float,
) -> None:
    """Settings that only make sense for one prediction: an error with several."""
    several = "with several predictions (or intervals, paired tests, a table)"
    if fmt == "sighan":
        raise CwsBenchError(
            f"the sighan format prints the block of one prediction, not a table {several}",
            "leave out {0}",
            fixes=(Fix("fmt", "sighan"),),
        )
    for setting, given in (("per_line", per_line), ("executor", executor is not None)):
        if given:
            raise CwsBenchError(
                f"{setting} applies to one prediction, not {several}",
                "leave out {0}",
                fixes=(Fix(setting),),
            )
    if strict or allow_line_mismatch or beta != 1.0:
        raise CwsBenchError(
            f"strict, allow_line_mismatch and beta apply to one prediction, not {several}",
            "leave out {0}, {1} and {2}",
            fixes=(Fix("strict", True), Fix("allow_line_mismatch", True), Fix("beta")),
        )
