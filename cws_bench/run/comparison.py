"""Many systems against one gold standard: scores, bootstrap intervals, paired tests.

:func:`compare` scores each system's output against the same gold, as
``cws-bench score GOLD PRED1 PRED2 ...`` does, in the manner of sacrebleu's
``-i a b c --paired-bs`` and ranx's ``compare``. The statistics are those of a
bake-off, computed the same way from the same per-sentence counts with the
same seed, so the numbers equal a bake-off's on the same outputs:

- a percentile bootstrap interval of precision, recall and F1 per system,
  resampling sentences (``resamples`` resamples, ``seed``);
- a paired test of F1 for every two systems, in the order given, or for
  every system against one ``baseline``: the paired bootstrap (Koehn 2004) or
  approximate randomization (``test="permutation"``, Noreen 1989);
- a letter per system (``a`` for the best F1), and for each the letters of
  the systems it beats significantly (p < ``alpha``, 0.05 unless told, after
  the same correction for multiple comparisons as the bake-off's,
  Holm–Bonferroni unless told), as the bake-off's tables;
- the smallest difference the tests can tell apart (the minimum detectable
  effect at ``alpha`` and power 0.8,
  :func:`~cws_bench.results.model.detectable_differences`).

The :class:`ComparisonReport` renders itself as text, JSON, CSV, Markdown and
LaTeX (booktabs), and as a pandas DataFrame.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import combinations
from typing import TYPE_CHECKING, Any, ClassVar

from cws_bench.defaults import STANDARD_DICTIONARY, DictionaryDefault
from cws_bench.display.formats import Renderable
from cws_bench.display.tables import escape_markdown
from cws_bench.display.units import Units, format_p_value, plural, units
from cws_bench.errors import CwsBenchError, Fix
from cws_bench.metrics.defaults import (
    DEFAULT_ALPHA,
    DEFAULT_CONFIDENCE,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    DEFAULT_TEST,
    TESTS,
)
from cws_bench.results.model import Comparison, Interval, detectable_differences
from cws_bench.run.pair import checked_method_rows
from cws_bench.score_registry import scores_of_kind
from cws_bench.scoring import ScoreResult, score_files, score_sentences
from cws_bench.scoring.methods import get_method
from cws_bench.text.io import PathLike, display_name, read_segmented

if TYPE_CHECKING:
    import pandas as pd

    from cws_bench.text.dictionary import Dictionary, WordsLike
    from cws_bench.text.normalize import Normalizer

__all__ = [
    "ComparisonReport",
    "SystemRow",
    "bootstrap_statistics",
    "compare",
]

System = PathLike | Iterable[Sequence[str]]


@dataclass(frozen=True)
class SystemRow:
    """One system of a comparison.

    Attributes:
        name: the system's name (its file as given, or the mapping's key).
        result: its scores against the gold.
        letter: its letter, ``a`` for the best F1.
        beats: letters of the systems it beats significantly (F1), best first.
        intervals: bootstrap intervals of precision, recall and F1 (empty
            without ``confidence``).
    """

    name: str
    result: ScoreResult
    letter: str
    beats: tuple[str, ...] = ()
    intervals: dict[str, Interval] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "letter": self.letter,
            "beats": list(self.beats),
            "intervals": {k: v.to_dict() for k, v in self.intervals.items()},
            "scores": self.result.to_dict(),
            "warnings": list(self.result.warnings),
        }


@dataclass(frozen=True)
class ComparisonReport(Renderable):
    """The systems, best F1 first, and the paired comparisons between them.

    Attributes:
        gold: the gold's name.
        method: the counting method.
        rows: one per system, best F1 first (ties in the order given).
        comparisons: paired bootstrap tests of F1 (``difference`` = a - b).
        baseline: the system every other one was tested against, or None.
        confidence: the confidence level of the intervals.
        resamples: bootstrap resamples.
        seed: the resampling seed.
        correction: the multiple-comparison correction of the paired tests
            (``Comparison.adjusted_p_value``; ``none``: uncorrected).
        alpha: the significance level.
        test: the paired test, ``bootstrap`` or ``permutation``.

    :meth:`render` writes one of :attr:`FORMATS`; ``scale`` and ``digits`` set how
    text, Markdown and LaTeX print scores (JSON and CSV hold fractions).
    """

    FORMATS: ClassVar[tuple[str, ...]] = ("text", "json", "csv", "markdown", "latex")

    gold: str
    method: str
    rows: tuple[SystemRow, ...]
    comparisons: tuple[Comparison, ...] = ()
    baseline: str | None = None
    confidence: float = DEFAULT_CONFIDENCE
    resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    correction: str = "holm"
    alpha: float = DEFAULT_ALPHA
    test: str = DEFAULT_TEST

    def __str__(self) -> str:
        """The command line's table (:meth:`to_text`)."""
        return self.to_text()

    def __repr__(self) -> str:
        best = f", best={self.rows[0].name!r}" if self.rows else ""
        return (
            f"ComparisonReport(gold={self.gold!r}, systems={len(self.rows)}, "
            f"comparisons={len(self.comparisons)}{best})"
        )

    @property
    def has_intervals(self) -> bool:
        return any(row.intervals for row in self.rows)

    @property
    def has_dictionary(self) -> bool:
        return any(row.result.has_dictionary for row in self.rows)

    def row(self, name: str) -> SystemRow:
        """The row of one system, by name."""
        for row in self.rows:
            if row.name == name:
                return row
        raise KeyError(name)

    def settings(self, *, intervals: bool | None = None) -> str:
        """The settings line: counting, resampling, signature of the best system.

        ``intervals``: whether the table at hand shows intervals (default: when
        there are intervals or paired tests, whose differences have one).
        """
        parts = [f"{self.method} counting"]
        if intervals is None:
            intervals = self.has_intervals or bool(self.comparisons)
        if self.has_intervals or self.comparisons:
            shown = f", {self.confidence:.0%} intervals" if intervals else ""
            resamples = plural(self.resamples, "bootstrap resample")
            parts.append(f"{resamples}, seed {self.seed}{shown}")
        if self.comparisons:
            from cws_bench.reports.tables import significance_method

            parts.append(
                # the bootstrap is the default, named where the tests are listed
                ("paired tests" if self.test == DEFAULT_TEST else f"paired {self.test_name} tests")
                + " of F1 at "
                + significance_method({"alpha": self.alpha, "correction": self.correction}).replace(
                    " over the tests of each track", ""
                )
            )
        return "; ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict: settings, the systems best first, the comparisons."""
        return {
            "gold": self.gold,
            "method": self.method,
            "confidence": self.confidence,
            "resamples": self.resamples,
            "seed": self.seed,
            "alpha": self.alpha,
            "test": self.test,
            "correction": self.correction,
            "baseline": self.baseline,
            "systems": [row.to_dict() for row in self.rows],
            "comparisons": [c.to_dict() for c in self.comparisons],
            "detectable": self.detectable,
        }

    @property
    def test_name(self) -> str:
        """``bootstrap`` or ``permutation`` as the tables name the test."""
        return "bootstrap" if self.test == "bootstrap" else "permutation (randomization)"

    def _detectable_line(self, unit: Units) -> str:
        from cws_bench.reports.tables import detectable_line

        assert self.detectable is not None
        return detectable_line(self.gold, self.detectable, self.alpha, unit)

    @property
    def detectable(self) -> dict[str, Any] | None:
        """The smallest difference the paired tests can tell apart (see
        :func:`detectable_differences`), or None without paired tests."""
        return detectable_differences(self.comparisons).get(self.gold)

    def to_frame(self) -> pd.DataFrame:
        """One pandas row per system, the columns of :meth:`to_csv`."""
        import pandas as pd

        return pd.DataFrame(self._flat_rows())

    # -- renderings ----------------------------------------------------------

    def _columns(self) -> list[tuple[str, str]]:
        """(key, heading) of the score columns shown."""
        kinds = ("word", "oov") if self.has_dictionary else ("word",)
        return [(s.name, s.short) for s in scores_of_kind(*kinds)]

    def _flat_rows(self) -> list[dict[str, Any]]:
        out = []
        for row in self.rows:
            scores = row.result.to_dict()
            flat: dict[str, Any] = {"system": row.name, "letter": row.letter}
            for key in (s.name for s in scores_of_kind("word")):
                flat[key] = scores[key]
                if key in row.intervals:
                    flat[f"{key}_low"] = row.intervals[key].low
                    flat[f"{key}_high"] = row.intervals[key].high
            counts = [s.name for s in scores_of_kind("oov")]
            counts += ["gold_words", "pred_words", "correct_words"]
            flat |= {key: scores[key] for key in counts}
            flat |= {"beats": " ".join(row.beats), "signature": scores["signature"]}
            out.append(flat)
        return out

    def _table(self, unit: Units) -> tuple[list[str], list[list[str]]]:
        """Headings and cells of the main table (scores in ``unit``)."""
        headings = ["", "system", *(heading for _, heading in self._columns())]
        if self.has_intervals:
            headings.insert(headings.index("F1") + 1, f"F1 {self.confidence:.0%} CI")
        headings.append("better than")
        cells = []
        for row in self.rows:
            scores = row.result.to_dict()
            line = [row.letter, row.name]
            for key, heading in self._columns():
                line.append(unit.score(scores[key]))
                if heading == "F1" and self.has_intervals:
                    line.append(_f1_interval(row, unit))
            line.append(" ".join(row.beats) or "--")
            cells.append(line)
        return headings, cells

    def _comparison_lines(self, unit: Units) -> list[tuple[str, str, str, str, str]]:
        return [
            (
                f"{c.a} - {c.b}",
                unit.points(c.difference),
                f"[{unit.points(c.interval.low)}, {unit.points(c.interval.high)}]",
                format_p_value(c.p_value),
                "yes" if c.significant else "no",
            )
            for c in self.comparisons
        ]

    @property
    def signature(self) -> str:
        """The signature of the best system's scores, with the resampling settings when the
        report holds intervals or tests (as a bake-off's signatures carry them)."""
        if not self.rows:
            return ""
        signature = self.rows[0].result.signature
        if self.has_intervals or self.comparisons:
            extra = [("resamples", str(self.resamples))]
            if self.comparisons and self.test != DEFAULT_TEST:
                extra += [("test", self.test), ("shuffles", str(self.resamples))]
            signature = replace(signature, seed=self.seed, extra=(*signature.extra, *extra))
        return signature.format()

    def to_text(self, *, scale: str | None = None, digits: int | None = None) -> str:
        """An aligned text table (scores in %, unless ``scale``), then the paired tests."""
        unit = units(scale, digits)
        headings, cells = self._table(unit)
        widths = [max(len(r[i]) for r in [headings, *cells]) for i in range(len(headings))]
        systems = plural(len(self.rows), "system")
        lines = [f"{systems} against {self.gold} ({self.settings()}, {unit.label})"]
        for r in [headings, *cells]:
            lines.append(
                "  "
                + "  ".join(
                    cell.ljust(width) if i < 2 or i == len(r) - 1 else cell.rjust(width)
                    for i, (cell, width) in enumerate(zip(r, widths))
                ).rstrip()
            )
        if self.comparisons:
            what = "points" if unit.scale == "percent" else "fractions"
            lines.append(
                f"  paired {self.test_name} tests of F1 (difference in {what}, interval, p):"
            )
            rows = self._comparison_lines(unit)
            name_width = max(len(r[0]) for r in rows)
            for pair, difference, interval, p_value, significant in rows:
                mark = "  significant" if significant == "yes" else ""
                p_text = p_value if p_value.startswith("<") else f"= {p_value}"
                lines.append(
                    f"    {pair:<{name_width}}  {difference:>7}  {interval}  p {p_text}{mark}"
                )
            if self.detectable is not None:
                lines.append("  " + self._detectable_line(unit))
        for row in self.rows:
            for warning in row.result.warnings:
                lines.append(f"  note ({row.name}): {warning}")
        if self.rows:
            lines.append(f"  signature: {self.signature}")
        return "\n".join(lines)

    def to_csv(self) -> str:
        """One header line and one row per system (fractions in [0, 1])."""
        from cws_bench.display.tables import csv_table

        rows = self._flat_rows()
        fields = list(dict.fromkeys(key for row in rows for key in row))
        return csv_table(fields, [["" if r.get(k) is None else r[k] for k in fields] for r in rows])

    def to_markdown(self, *, scale: str | None = None, digits: int | None = None) -> str:
        """A GitHub Markdown table (scores in %, unless ``scale``), then the paired tests."""
        unit = units(scale, digits)
        headings, cells = self._table(unit)

        def row(cells: Sequence[str]) -> str:  # a label cannot become a link or a new cell
            return "| " + " | ".join(map(escape_markdown, cells)) + " |"

        lines = [
            f"{plural(len(self.rows), 'system')} against `{self.gold}` "
            f"({self.settings()}, {unit.label}).",
            "",
            row(headings),
            row(["---", "---"] + ["---:"] * (len(headings) - 3) + ["---"]),
            *map(row, cells),
        ]
        if self.comparisons:
            lines += ["", row(["paired test of F1", "difference", "interval", "p", "significant"])]
            lines += [row(["---", "---:", "---", "---:", "---"])]
            lines += map(row, self._comparison_lines(unit))
            if self.detectable is not None:
                lines += ["", escape_markdown(self._detectable_line(unit))]
        if self.rows:
            lines += ["", f"Signature: `{self.signature}`"]
        return "\n".join(lines)

    def to_latex(self, *, scale: str | None = None, digits: int | None = None) -> str:
        """A booktabs table in the bake-off's ``leaderboard.tex`` style: R, P, F (the best
        value of each column in bold), the F interval in a column of its own, the letters
        of the systems a row's F beats as its superscript, R_oov and R_iv; the unit (%,
        unless ``scale``) and the OOV rate in the caption, the signature under it."""
        from cws_bench.reports.latex import (
            beaten_superscript,
            escape_latex,
            interval_header,
            latex_score_columns,
            tabular,
            unit_word,
        )

        unit = units(scale, digits)
        columns = latex_score_columns(self.has_dictionary)
        scores = [row.result.to_dict() for row in self.rows]
        best = {
            key: max((s[key] for s in scores if s[key] is not None), default=None)
            for key, _ in columns
        }
        headings = ["", "System"]
        for key, heading in columns:
            headings.append(heading)
            if key == "f1" and self.has_intervals:
                headings.append(interval_header(f"{self.confidence:.0%}"))
        body = []
        for row, row_scores in zip(self.rows, scores):
            cells = [row.letter, escape_latex(row.name)]
            for key, _ in columns:
                value = row_scores[key]
                cell = unit.score(value, missing="--")
                if value is not None and best[key] == value:
                    cell = f"\\textbf{{{cell}}}"
                if key == "f1":
                    cell += beaten_superscript(row.beats)
                cells.append(cell)
                if key == "f1" and self.has_intervals:
                    cells.append(_f1_interval(row, unit))
            body.append(" & ".join(cells))
        caption = (
            f"Word segmentation against {escape_latex(self.gold)}: word recall, precision "
            f"and F1 ({unit_word(unit.scale)}, "
            # the table shows the F1 intervals only (not the paired tests' differences)
            f"{escape_latex(self.settings(intervals=self.has_intervals))})"
        )
        oov_rate = next(
            (r.result.to_dict()["oov_rate"] for r in self.rows if self.has_dictionary), None
        )
        if oov_rate is not None:
            caption += (
                f"; OOV rate {unit.score(oov_rate)}, R\\textsubscript{{oov}} and "
                "R\\textsubscript{iv} the recall of out- and in-vocabulary gold words"
            )
        caption += ". The best value of each column is bold."
        if any(row.beats for row in self.rows):
            caption += (
                " Superscripts: the letters of the systems whose F the row beats in a paired "
                "bootstrap test."
            )
        # under the table, as sacrebleu prints its signature under a score
        after = [f"Signature: \\texttt{{{escape_latex(self.signature)}}}"] if self.rows else []
        lines = tabular("ll" + "r" * (len(headings) - 2), headings, body, caption, after=after)
        return "\n".join(lines)


def _f1_interval(row: SystemRow, unit: Units) -> str:
    ci = row.intervals.get("f1")
    return f"[{unit.score(ci.low)}, {unit.score(ci.high)}]" if ci else "--"


REPORT_FORMATS = ComparisonReport.FORMATS
"""The formats :meth:`ComparisonReport.render` writes."""


def sentence_array(rows: Sequence[Sequence[int]]) -> Any:
    """Per-sentence rows (:mod:`cws_bench.scoring.per_sentence`), the array resampled."""
    import numpy as np

    from cws_bench.scoring.per_sentence import COLUMNS

    return np.asarray(rows, dtype=np.int64).reshape(-1, len(COLUMNS))


def compare(
    gold: PathLike,
    systems: Mapping[str, System] | Sequence[PathLike],
    *,
    dictionary: WordsLike | DictionaryDefault | None = (STANDARD_DICTIONARY),
    method: str = "interval",
    normalize: str | Normalizer | None = None,
    encoding: str = "utf-8",
    pred_encoding: str | None = None,
    dictionary_encoding: str | None = None,
    gold_format: str = "auto",
    data_dir: PathLike | None = None,
    confidence: bool = True,
    paired: bool = True,
    baseline: str | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    correction: str = "holm",
    alpha: float = DEFAULT_ALPHA,
    test: str = DEFAULT_TEST,
) -> ComparisonReport:
    """Score several systems against one gold, with intervals and paired tests.

    >>> gold = [["结婚", "的", "和", "尚未", "结婚", "的"]] * 3
    >>> bad = [["结婚", "的", "和尚", "未", "结婚", "的"]] * 3
    >>> report = compare(gold, {"bad": bad, "good": gold}, resamples=100)
    >>> [(row.letter, row.name, round(row.result.f1, 2)) for row in report.rows]
    [('a', 'good', 1.0), ('b', 'bad', 0.67)]

    Args:
        gold: the gold, as :func:`cws_bench.scoring.score_files` takes it (a
            file in any gold format, or a registered corpus ``NAME[:SPLIT]``),
            or the gold sentences themselves (lists of words).
        systems: name -> prediction file or predicted sentences (lists of
            words); or a sequence of files, named as given.
        dictionary: for OOV/IV figures, as ``score_files`` takes it (by default
            the standard dictionary of a corpus named as ``gold``, none for a file).
        method: ``interval`` or ``sighan`` (without statistics: the bake-off's
            bootstrap resamples interval counts).
        normalize, encoding, pred_encoding, dictionary_encoding, gold_format,
            data_dir: as :func:`cws_bench.scoring.score_files` takes them.
        confidence: bootstrap intervals of P, R and F1 per system.
        paired: paired bootstrap tests of F1 between every two systems.
        baseline: the name of one system to test every other against
            (instead of every pair).
        resamples: bootstrap resamples.
        seed: the resampling seed (the bake-off's default, 2005).
        correction: the multiple-comparison correction of the paired tests, as
            the bake-off's (``holm``, ``bonferroni``, ``fdr_bh``, ``maxt`` or ``none``).
        alpha: the significance level (0 < alpha < 1).
        test: the paired test: ``bootstrap`` or ``permutation`` (approximate
            randomization, ``resamples`` shuffles).

    Returns:
        A :class:`ComparisonReport`.

    Raises:
        CwsBenchError: no system, an unknown baseline, statistics with the
            sighan method, or any error of scoring.
    """
    report = ComparisonReport(
        gold="gold" if not isinstance(gold, (str, os.PathLike)) else display_name(gold),
        method=method,
        rows=(),
        baseline=baseline,
        resamples=resamples,
        seed=seed,
        correction=correction,
        alpha=alpha,
        test=test,
    )
    paired = paired or baseline is not None
    statistics = bool(confidence or paired)
    named = _checked_request(systems, report, statistics)
    from cws_bench.scoring import scoring_dictionary

    notes: list[str] = []
    words = scoring_dictionary(
        gold, dictionary, data_dir=data_dir, encoding=dictionary_encoding or encoding, notes=notes
    )
    results, own_rows = _score_all(
        gold,
        named,
        dictionary=words,
        method=method,
        normalize=normalize,
        encoding=encoding,
        pred_encoding=pred_encoding,
        gold_format=gold_format,
        data_dir=data_dir,
        # a method with counts of its own resamples them
        rows=statistics and get_method(method, line_pairs=False).has_sentence_rows,
    )
    if notes:  # each row says it has no OOV figures, and why
        results = {
            name: replace(result, warnings=(*notes, *result.warnings))
            for name, result in results.items()
        }
    pairs = _test_pairs(list(results), baseline) if paired and len(results) > 1 else []
    return _with_statistics(report, results, own_rows, pairs, intervals=bool(confidence))


def _checked_request(
    systems: Mapping[str, System] | Sequence[PathLike], report: ComparisonReport, statistics: bool
) -> dict[str, System]:
    """The systems by name, once the comparison asked for is checked: the significance
    level, the test, at least one system, the baseline among them, and statistics only
    with a method whose counts are per sentence."""
    from cws_bench.defaults import BOUNDS

    alpha, test, baseline, method = report.alpha, report.test, report.baseline, report.method
    problem = BOUNDS["alpha"].problem(alpha)
    if problem is not None:
        raise CwsBenchError(f"alpha {problem}", "0.05 is the default; 0.01 asks for more evidence")
    if test not in TESTS:
        raise CwsBenchError(f"unknown test {test!r}", f"use one of: {', '.join(TESTS)}")
    named = _named_systems(systems)
    if not named:
        raise CwsBenchError("no system to compare", "give at least one prediction")
    if baseline is not None and baseline not in named:
        raise CwsBenchError(
            f"baseline {baseline!r} is not one of the systems",
            f"use one of: {', '.join(named)}",
        )
    if statistics and not get_method(method, line_pairs=False).resamples_sentences:
        raise CwsBenchError(
            f"the {method} method's counts are not per sentence: bootstrap intervals and "
            "paired tests resample sentences",
            "leave out {0}, or {1}/{2}/{3}",
            fixes=(Fix("method", method), Fix("confidence"), Fix("paired"), Fix("baseline")),
        )
    return named


def _with_statistics(
    report: ComparisonReport,
    results: Mapping[str, ScoreResult],
    own_rows: Mapping[str, list[tuple[int, int, int]]],
    pairs: list[tuple[str, str]],
    *,
    intervals: bool,
) -> ComparisonReport:
    """The report's rows, ranked, and tests: each system's bootstrap intervals (with
    ``intervals``) and the paired tests of ``pairs``, corrected as one family, from the
    per-sentence counts, with the report's settings."""
    from cws_bench.results.model import family_adjusted
    from cws_bench.scoring.per_sentence import sentence_rows

    # the method's own rows when it has some (checked_method_rows), else the interval ones
    counts = {
        name: sentence_array(own_rows[name] if name in own_rows else sentence_rows(result))
        for name, result in results.items()
    }
    found, comparisons = bootstrap_statistics(
        report.gold,
        counts,
        pairs,
        resamples=report.resamples,
        seed=report.seed,
        intervals=intervals,
        alpha=report.alpha,
        test=report.test,
    )
    if pairs:  # one family, as one track of a bake-off: the p-values corrected together
        adjusted = family_adjusted(comparisons, report.correction)
        comparisons = [
            replace(c, adjusted_p_value=float(p), significant=bool(p < report.alpha))
            for c, p in zip(comparisons, adjusted)
        ]
    rows = _ranked_rows(report.gold, results, found, comparisons)
    return replace(report, rows=rows, comparisons=tuple(comparisons))


def _test_pairs(names: list[str], baseline: str | None) -> list[tuple[str, str]]:
    """The pairs to test: each system against the baseline, or every two systems."""
    if baseline is not None:
        return [(a, baseline) for a in names if a != baseline]
    return list(combinations(names, 2))


def _ranked_rows(
    gold_name: str,
    results: Mapping[str, ScoreResult],
    intervals: Mapping[str, dict[str, Interval]],
    comparisons: list[Comparison],
) -> tuple[SystemRow, ...]:
    """Best F1 first, each with its letter and the letters of the systems it beats."""
    from cws_bench.reports.tables import letters, significantly_better

    ranked = sorted(results, key=lambda name: -results[name].f1)
    letter_of = dict(zip(ranked, letters(len(ranked))))
    return tuple(
        SystemRow(
            name=name,
            result=results[name],
            letter=letter_of[name],
            beats=tuple(
                letter_of[other]
                for other in ranked
                if other != name and significantly_better(comparisons, gold_name, name, other)
            ),
            intervals=intervals[name],
        )
        for name in ranked
    )


def _named_systems(systems: Mapping[str, System] | Sequence[PathLike]) -> dict[str, System]:
    if isinstance(systems, Mapping):
        return {str(name): value for name, value in systems.items()}
    if isinstance(systems, (str, os.PathLike)):
        systems = [systems]
    named: dict[str, System] = {}
    for path in systems:
        name = display_name(path)
        if name in named:
            raise CwsBenchError(f"{name} is given twice", "give each system once")
        named[name] = path
    return named


def _is_path(value: Any) -> bool:
    return isinstance(value, (str, os.PathLike))


def _score_all(
    gold: Any,
    named: dict[str, System],
    *,
    dictionary: Dictionary | None,
    method: str,
    normalize: str | Normalizer | None,
    encoding: str,
    pred_encoding: str | None,
    gold_format: str,
    data_dir: PathLike | None,
    rows: bool = False,
) -> tuple[dict[str, ScoreResult], dict[str, list[tuple[int, int, int]]]]:
    """Each system's result with per-sentence counts.

    When the gold and every system are files, each is scored by
    ``score_files``; otherwise all go through ``score_sentences`` (files
    read as sentences), so the rows of one report are counted alike. With
    ``rows`` (statistics on a method's own counts), all go through
    ``score_sentences``, and the second value holds each system's per-sentence
    rows of the method (:func:`~cws_bench.run.pair.checked_method_rows`): the figures
    and their resamples are one count. (Else it is empty: the results' interval rows are used.)
    """
    if not rows and _is_path(gold) and all(_is_path(v) for v in named.values()):
        return {
            name: score_files(
                gold,
                path,  # type: ignore[arg-type]
                dictionary=dictionary,
                method=method,  # type: ignore[arg-type]
                normalize=normalize,
                encoding=encoding,
                pred_encoding=pred_encoding,
                gold_format=gold_format,
                data_dir=data_dir,
                per_line=True,
            )
            for name, path in named.items()
        }, {}
    if _is_path(gold):
        from cws_bench.scoring.inputs import gold_sentences

        sentences = gold_sentences(gold, gold_format, encoding, data_dir)
        if sentences is None:
            sentences = read_segmented(gold, encoding=encoding)
        gold_words = [list(words) for words in sentences]
    else:
        gold_words = [list(words) for words in gold]  # type: ignore[union-attr]
    results = {}
    own_rows: dict[str, list[tuple[int, int, int]]] = {}
    normalized_by = normalize if isinstance(normalize, str) or normalize is None else normalize.name
    for name, value in named.items():
        pred = (
            list(read_segmented(value, encoding=pred_encoding or encoding))  # type: ignore[arg-type]
            if _is_path(value)
            else [list(words) for words in value]  # type: ignore[union-attr]
        )
        results[name] = score_sentences(
            gold_words,
            pred,
            dictionary,
            method=method,  # type: ignore[arg-type]
            normalize=normalize,
            per_line=True,
        )
        if rows:
            found = checked_method_rows(results[name], gold_words, pred, normalized_by)
            if found is not None:
                own_rows[name] = found
    return results, own_rows


def bootstrap_statistics(
    corpus: str,
    counts: Mapping[str, Any],
    pairs: Sequence[tuple[str, str]],
    *,
    resamples: int,
    seed: int,
    intervals: bool = True,
    confidence: float = DEFAULT_CONFIDENCE,
    alpha: float = DEFAULT_ALPHA,
    test: str = DEFAULT_TEST,
) -> tuple[dict[str, dict[str, Interval]], list[Comparison]]:
    """Percentile bootstrap intervals of P, R and F1 and paired tests of F1 on one corpus.

    What the bake-off and ``compare`` report: for each system (its per-sentence
    rows, :mod:`cws_bench.scoring.per_sentence`) the intervals (none for a system
    without rows; all of them only when ``intervals``), and for each ``(a,
    b)`` of ``pairs`` whose rows have the same shape a paired test of F1 (a
    :class:`~cws_bench.results.model.Comparison`, uncorrected): ``test`` is
    ``bootstrap`` (Koehn 2004) or ``permutation`` (approximate randomization,
    ``resamples`` shuffles with ``seed``); the difference's interval is the
    bootstrap's either way. The systems with the same number of rows share one
    draw of resamples (:class:`~cws_bench.metrics.significance.SharedResamples`):
    the numbers are those of ``bootstrap_confidence_interval`` and
    ``paired_bootstrap_test`` run one by one, to the last digit; the pairs'
    shuffles are shared too (the same seed), so every comparison's ``null``
    is drawn jointly with the others', as the ``maxt`` correction needs. Each
    comparison's ``mde`` is its minimum detectable effect at ``alpha`` and
    power 0.8, from the bootstrap standard error of its difference (with
    either test: the shuffles' spread, ``sqrt(Σd_i²)``, also holds the
    systems' mean difference per sentence, and overstates the SE of systems
    far apart).
    """
    from cws_bench.metrics.significance import SharedResamples, approximate_randomization_test
    from cws_bench.scoring.per_sentence import statistics as sentence_statistics

    if test not in TESTS:
        raise ValueError(f"test must be one of {', '.join(TESTS)}, not {test!r}")
    statistics = sentence_statistics()
    tested = [(a, b) for a, b in pairs if counts[a].shape == counts[b].shape and len(counts[a])]
    needed = set(counts) if intervals else {name for pair in tested for name in pair}
    groups: dict[int, list[str]] = {}
    for name in counts:
        if name in needed and len(counts[name]):
            groups.setdefault(len(counts[name]), []).append(name)
    shared: dict[str, tuple[SharedResamples, int]] = {}
    for names in groups.values():
        draw = SharedResamples([counts[n] for n in names], n_resamples=resamples, seed=seed)
        shared.update((name, (draw, i)) for i, name in enumerate(names))
    out: dict[str, dict[str, Interval]] = {name: {} for name in counts}
    for name in counts if intervals else ():
        if name not in shared:
            continue
        draw, i = shared[name]
        for metric, statistic in statistics.items():
            ci = draw.interval(i, statistic, confidence=confidence)
            out[name][metric] = Interval(float(ci.low), float(ci.high))
    comparisons = []
    for a, b in tested:
        (draw, i), (_, j) = shared[a], shared[b]
        bootstrap = draw.paired_test(i, j, statistics["f1"], confidence=confidence)
        result = bootstrap
        if test == "permutation":
            result = approximate_randomization_test(
                counts[a], counts[b], statistics["f1"], n_resamples=resamples, seed=seed
            )
        comparisons.append(paired_comparison(corpus, a, b, result, bootstrap, alpha))
    return out, comparisons


def paired_comparison(
    corpus: str, a: str, b: str, result: Any, bootstrap: Any, alpha: float
) -> Comparison:
    """The :class:`~cws_bench.results.model.Comparison` of F1 (uncorrected) of ``a`` and
    ``b``: ``result``'s difference and p-value, ``bootstrap``'s interval, standard error
    and the minimum detectable effect at ``alpha`` from it."""
    from cws_bench.metrics.significance import minimum_detectable_effect

    # the SE of the observed difference is the bootstrap's, whichever test: the
    # shuffles' spread also holds the systems' mean difference (Σd² against Σ(d - d̄)²)
    error = bootstrap.standard_error
    if error is not None and not math.isfinite(error):  # one resample: no spread
        error = None
    assert bootstrap.low is not None  # a bootstrap test has an interval
    assert bootstrap.high is not None
    return Comparison(
        corpus=corpus,
        a=a,
        b=b,
        metric="f1",
        difference=float(result.difference),
        interval=Interval(float(bootstrap.low), float(bootstrap.high)),
        p_value=float(result.p_value),
        significant=bool(result.p_value < alpha),
        standard_error=error,
        mde=None if error is None else minimum_detectable_effect(error, alpha=alpha),
        null=result.null,
    )
