"""ScoreResult: the scores of a prediction against a gold, with what produced them.

It renders itself (text, JSON, CSV, the SIGHAN block: what ``cws-bench score``
prints for one prediction); :func:`write_details` writes its per-line counts as CSV.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from cws_bench.display.formats import Renderable
from cws_bench.display.tables import csv_table
from cws_bench.display.units import plural, units
from cws_bench.errors import CwsBenchError
from cws_bench.score_registry import SCORES, scores_of_kind
from cws_bench.scoring.counts import ERROR_KINDS, SegCounts
from cws_bench.scoring.methods import CountingMethod, get_method
from cws_bench.scoring.scores import SegScores, score_counts
from cws_bench.text.io import PathLike

if TYPE_CHECKING:
    import pandas as pd

    from cws_bench.scoring.sighan import SighanCounts
    from cws_bench.scoring.signature import Signature

__all__ = ["RESULT_FORMATS", "LineMismatch", "ScoreResult", "write_details"]

_WORD_TOTALS = ("gold_words", "pred_words", "correct_words")
# The counts a result shows besides its scores (not the word and boundary counts under them)
_SHOWN_COUNTS = ("sentences", "characters", *ERROR_KINDS, "mismatched_lines", "skipped_lines")


@dataclass(frozen=True, slots=True)
class LineMismatch:
    """A line whose gold and predicted characters differ (1-based line number)."""

    line: int
    gold: str
    pred: str


@dataclass(frozen=True)
class ScoreResult(Renderable, Mapping[str, Any]):
    """The scores of a prediction against a gold standard, with what produced them.

    Scores are computed from ``counts`` (with the ``sighan`` method, ``sighan``) when
    asked for, as fractions in [0, 1]; OOV figures are None without a dictionary.
    It is a read-only mapping of :meth:`to_dict`'s keys (``result["f1"]``, as Hugging
    Face ``evaluate``); ``print(result)`` prints the text table. :meth:`render`
    writes one of :attr:`FORMATS` (``gold`` and ``pred`` name the files; ``scale``
    and ``digits`` set how the text table prints scores, :mod:`cws_bench.display.units`).
    """

    FORMATS: ClassVar[tuple[str, ...]] = ("text", "json", "csv", "sighan")

    counts: SegCounts
    has_dictionary: bool
    signature: Signature
    method: str = "interval"
    beta: float = 1.0
    sighan: SighanCounts | None = None
    mismatches: tuple[LineMismatch, ...] = ()
    warnings: tuple[str, ...] = ()
    lines: tuple[tuple[int, SegCounts], ...] | None = field(default=None, repr=False)

    @property
    def counting_method(self) -> CountingMethod:
        """The registered counting method that produced this result."""
        return get_method(self.method, line_pairs=False)  # (conll18: a bake-off's rows)

    @property
    def scores(self) -> SegScores:
        """Scores of the method's counts (boundary figures always by interval)."""
        interval = score_counts(self.counts, has_dictionary=self.has_dictionary, beta=self.beta)
        return self.counting_method.scores(
            interval, self.sighan, has_dictionary=self.has_dictionary, beta=self.beta
        )

    def __getattr__(self, name: str) -> Any:
        # precision, recall, f1, ... read through to the scores.
        if name in SCORES:
            return SCORES[name].of(self.scores)
        if name in SegScores.__dataclass_fields__:
            return getattr(self.scores, name)
        if name in _WORD_TOTALS:  # gold_words, pred_words, correct_words, as the method counts
            totals = self.counting_method.word_totals(self.counts, self.sighan)
            return totals[_WORD_TOTALS.index(name)]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __getitem__(self, key: str) -> Any:
        data = self.to_dict()
        if key not in data:
            from cws_bench.suggest import did_you_mean

            close = did_you_mean(key, data)
            raise KeyError(f"{key!r}{'; ' + close if close else ''}")
        return data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.to_dict())

    def __len__(self) -> int:
        return len(self.to_dict())

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        return (
            f"ScoreResult(method={self.method!r}, precision={self.precision:.4f}, "
            f"recall={self.recall:.4f}, f1={self.f1:.4f}, sentences={self.counts.sentences})"
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict with a stable key order: scores, counts, settings."""
        scores = self.scores
        # the word scores, F-beta, the word counts, the other scores (score_registry's order)
        out: dict[str, Any] = {s.name: s.of(scores) for s in scores_of_kind("word")}
        if self.beta != 1.0:
            out["fbeta"] = scores.fbeta
            out["beta"] = self.beta
        totals = self.counting_method.word_totals(self.counts, self.sighan)
        out.update(zip(_WORD_TOTALS, totals))
        out.update((s.name, s.of(scores)) for s in SCORES.values() if s.kind != "word")
        out.update(self.counting_method.result_fields(self.sighan))
        out.update((name, getattr(self.counts, name)) for name in _SHOWN_COUNTS)
        out.update(method=self.method, signature=self.signature.format())
        return out

    def to_series(self) -> pd.Series:
        """The result as one pandas row (a Series indexed like :meth:`to_dict`)."""
        import pandas as pd

        return pd.Series(self.to_dict())

    def to_frame(self) -> pd.DataFrame:
        """The result as a one-row pandas DataFrame."""
        import pandas as pd

        return pd.DataFrame([self.to_dict()])

    # Rendering: what ``cws-bench score`` prints for one prediction, one method per format.

    def to_text(
        self,
        *,
        gold: str = "gold",
        pred: str = "pred",
        scale: str | None = None,
        digits: int | None = None,
    ) -> str:
        """The small aligned table of the text format (scores in %, unless ``scale``)."""
        unit = units(scale, digits)
        shown = unit.score
        s = self.scores
        c = self.counts
        totals = self.counting_method.word_totals(self.counts, self.sighan)
        labels = ("gold words", "predicted words", "correct words")
        rows = [(label, f"{total:,}") for label, total in zip(labels, totals)]
        rows += [(score.label, shown(score.of(s))) for score in scores_of_kind("word")]
        if self.beta != 1.0:
            rows.append((f"F{self.beta:g}", shown(s.fbeta)))
        others = [score for score in SCORES.values() if score.kind not in ("word", "boundary")]
        rows += [(score.label, shown(score.of(s))) for score in others]
        boundary = scores_of_kind("boundary")  # one row: P / R / F1
        rows.append(("boundary P/R/F1", " / ".join(shown(score.of(s)) for score in boundary)))
        # the method's own counts (sighan: insertions, deletions, substitutions)
        own_counts = self.counting_method.result_fields(self.sighan)
        rows += [(name, f"{value:,}") for name, value in own_counts.items()]
        width = max(len(label) for label, _ in rows)
        lines = [f"{pred} against {gold} ({self.method} counting, {unit.label})"]
        lines += [f"  {label:<{width}}  {value:>10}" for label, value in rows]
        lines.append(
            f"  errors: {plural(c.split_gold, 'gold word')} split into "
            f"{plural(c.split_pred, 'piece')}; {c.merge_gold:,} merged into "
            f"{plural(c.merge_pred, 'word')}; {plural(c.cross_regions, 'crossing region')} "
            f"({c.cross_gold:,} gold, {plural(c.cross_pred, 'predicted word')})"
        )
        lines.append(
            f"  sentences: {c.sentences:,} scored, {plural(c.skipped_lines, 'empty gold line')} "
            f"skipped, {c.mismatched_lines:,} with differing text"
        )
        for m in self.mismatches:
            lines.append(f"    line {m.line}: gold {m.gold.strip()[:60]!r}")
            lines.append(f"    {' ' * len(str(m.line))}       pred {m.pred.strip()[:60]!r}")
        lines.append(f"  signature: {self.signature}")
        return "\n".join(lines)

    def to_json(self) -> str:
        """:meth:`to_dict` with the mismatch examples and the warnings, as indented JSON."""
        import json

        data = self.to_dict()
        data["mismatch_examples"] = [
            {"line": m.line, "gold": m.gold, "pred": m.pred} for m in self.mismatches
        ]
        data["warnings"] = list(self.warnings)
        return json.dumps(data, ensure_ascii=False, indent=2)

    def to_csv(self) -> str:
        """One header line and one row of :meth:`to_dict`'s fields (None as empty)."""
        data = self.to_dict()
        return csv_table(list(data), [["" if v is None else v for v in data.values()]])

    def to_sighan(self, *, pred: str = "pred") -> str:
        """The SIGHAN script's summary block (a result of ``method="sighan"`` only)."""
        summary_block = getattr(self.counting_method, "summary_block", None)
        if self.sighan is None or summary_block is None:
            raise ValueError('the SIGHAN summary needs a result scored with method="sighan"')
        return str(summary_block(self.sighan, pred, has_dictionary=self.has_dictionary))


RESULT_FORMATS: tuple[str, ...] = ScoreResult.FORMATS
"""The formats :meth:`ScoreResult.render` writes."""


def write_details(result: ScoreResult, target: PathLike) -> None:
    """Write one CSV row per line: line number, counts, P/R/F (and OOV when known).

    Raises:
        CwsBenchError: the result was computed without ``per_line=True``.
    """
    import csv

    from cws_bench.text.io import atomic_write

    if result.lines is None:
        raise CwsBenchError("no per-line counts in this result", "score with per_line=True")
    header = ["line", "gold_words", "pred_words", "correct_words", "precision", "recall", "f1"]
    if result.has_dictionary:
        header += ["oov_words", "oov_correct"]
    header += ["mismatched", "skipped"]
    with atomic_write(target) as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(header)
        for line, counts in result.lines:
            s = score_counts(counts, has_dictionary=False)
            row: list[object] = [
                line,
                counts.gold,
                counts.pred,
                counts.correct,
                f"{s.precision:.6f}",
                f"{s.recall:.6f}",
                f"{s.f1:.6f}",
            ]
            if result.has_dictionary:
                row += [counts.oov_gold, counts.oov_correct]
            row += [counts.mismatched_lines, counts.skipped_lines]
            writer.writerow(row)
