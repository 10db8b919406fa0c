"""Segmentation counts and scores: P/R/F, OOV and IV recall, boundaries, error kinds.

Data flows one way: sentences -> :class:`SegCounts` (plain integers that add
up over sentences, files and shards) -> scores, computed from the summed
counts by pure functions (P/R/F through :mod:`cws_bench.metrics.classification`).

A predicted word is correct iff its ``[start, end)`` character interval is
the interval of a gold word (the standard of the CWS literature). Gold lines
that are empty are skipped, as the SIGHAN bakeoff scorer does.

The worked example of the literature:

>>> gold = "结婚 的 和 尚未 结婚 的 都 应该 好好 考虑 一下 人生 大事".split()
>>> pred = "结婚 的 和尚 未结婚 的 都 应该 好好考虑 一下 人生大事".split()
>>> words = {"结婚", "尚未", "的", "和", "青年", "都", "应该", "好好考虑", "自己", "人生", "大事"}
>>> r = score_sentences([gold], [pred], dictionary=words)
>>> [round(100 * x, 2) for x in (r.precision, r.recall, r.f1, r.oov_recall, r.iv_recall)]
[60.0, 46.15, 52.17, 33.33, 50.0]
"""

from __future__ import annotations

import codecs
import functools
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal, ParamSpec, cast

from cws_bench.checksums import LineDigest, SentenceDigest
from cws_bench.counts import AdditiveCounts
from cws_bench.defaults import STANDARD_DICTIONARY, DictionaryDefault
from cws_bench.dictionary_checks import COVERS_GOLD, coverage_warnings
from cws_bench.errors import (
    CorpusFormatError,
    CwsBenchError,
    LineCountMismatchError,
    TextMismatchError,
)
from cws_bench.io import (
    BLOCK_SIZE,
    STDIN,
    BackgroundHasher,
    PathLike,
    decoding_error,
    display_name,
    encoding_parameters,
    iter_line_blocks,
    normalize_encoding,
    open_binary,
    read_segmented,
)
from cws_bench.methods import CountingMethod, get_method, line_methods
from cws_bench.metrics.counts import precision_recall_fscore_from_counts
from cws_bench.scores import SegScores
from cws_bench.signature import Signature
from cws_bench.spans import align_chars, project_spans, to_spans
from cws_bench.units import units

if TYPE_CHECKING:
    import pandas as pd

    from cws_bench.corpora import Corpus
    from cws_bench.dictionary import Dictionary
    from cws_bench.normalize import Normalizer
    from cws_bench.sighan import BufferCounts, SighanCounts

try:
    from cws_bench import _kernel
except ImportError:  # pragma: no cover - the package was installed without a compiler
    _kernel = None

__all__ = [
    "RESULT_FORMATS",
    "STANDARD_DICTIONARY",
    "LineMismatch",
    "ScoreResult",
    "SegCounts",
    "check_plain",
    "count_sentence",
    "gold_corpus",
    "read_gold",
    "score_counts",
    "score_files",
    "score_sentences",
    "scoring_dictionary",
]

Method = Literal["interval", "sighan"]
METHODS: tuple[str, ...] = line_methods()
"""The counting methods of line pairs (the registry of :mod:`cws_bench.methods`)."""
MAX_EXAMPLES = 5


@dataclass(frozen=True, slots=True)
class SegCounts(AdditiveCounts):
    """Additive counts of a segmentation against its gold standard.

    ``sum(per_sentence, SegCounts())`` totals a file, a shard or a cluster.
    Counts never hold derived values; scores come from :func:`score_counts`.

    Attributes:
        sentences: gold lines scored (empty gold lines are skipped).
        characters: gold characters in the scored lines.
        gold, pred, correct: gold words, predicted words, predicted words
            whose interval is a gold word's.
        oov_gold, oov_correct: gold words not in the dictionary, and how many
            of them were found (zero when there is no dictionary).
        gold_boundaries, pred_boundaries, correct_boundaries: word boundaries
            strictly inside a sentence (a decision between two characters).
        split_gold, split_pred: gold words predicted as several words, and the
            predicted pieces they became.
        merge_gold, merge_pred: gold words predicted inside one longer word,
            and the predicted words that merged them.
        cross_gold, cross_pred, cross_regions: words in regions where the two
            segmentations cross (neither nests in the other), and the regions.
        mismatched_lines: lines whose gold and predicted characters differ,
            scored through a character alignment (not in the error kinds).
        skipped_lines: empty gold lines.
    """

    sentences: int = 0
    characters: int = 0
    gold: int = 0
    pred: int = 0
    correct: int = 0
    oov_gold: int = 0
    oov_correct: int = 0
    gold_boundaries: int = 0
    pred_boundaries: int = 0
    correct_boundaries: int = 0
    split_gold: int = 0
    split_pred: int = 0
    merge_gold: int = 0
    merge_pred: int = 0
    cross_gold: int = 0
    cross_pred: int = 0
    cross_regions: int = 0
    mismatched_lines: int = 0
    skipped_lines: int = 0


COUNT_FIELDS: tuple[str, ...] = SegCounts.field_names()

if _kernel is not None and len(COUNT_FIELDS) != _kernel.FIELD_COUNT:  # pragma: no cover
    raise ImportError("cws_bench._kernel is out of date: rebuild it (make clean && make test)")


def _ratio(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


def score_counts(counts: SegCounts, *, has_dictionary: bool, beta: float = 1.0) -> SegScores:
    """Compute scores from counts, never raising on a zero denominator.

    Precision, recall and F give 0.0 when their denominator is zero. The OOV
    figures are None without a dictionary, and None when undefined with one:
    OOV recall when the gold has no OOV word, IV recall when it has no IV
    word, the OOV rate when it has no word.

    >>> s = score_counts(SegCounts(gold=4, pred=5, correct=3), has_dictionary=False)
    >>> s.precision, s.recall, s.f1, s.oov_recall
    (0.6, 0.75, 0.6666666666666666, None)
    >>> s = score_counts(SegCounts(gold=4, pred=5, correct=3), has_dictionary=True)
    >>> s.oov_rate, s.oov_recall, s.iv_recall
    (0.0, None, 0.75)
    """
    words = precision_recall_fscore_from_counts(
        counts.correct, counts.pred, counts.gold, zero_division=0.0
    )
    fbeta = (
        words.fscore
        if beta == 1.0
        else precision_recall_fscore_from_counts(
            counts.correct, counts.pred, counts.gold, beta=beta, zero_division=0.0
        ).fscore
    )
    bounds = precision_recall_fscore_from_counts(
        counts.correct_boundaries,
        counts.pred_boundaries,
        counts.gold_boundaries,
        zero_division=0.0,
    )
    oov_rate: float | None
    oov_recall: float | None
    iv_recall: float | None
    if has_dictionary:
        # A rate with nothing to count is undefined (None), not 0: the SIGHAN
        # script prints "--" when the gold has no OOV (or no IV) word.
        iv_gold = counts.gold - counts.oov_gold
        oov_rate = _ratio(counts.oov_gold, counts.gold)
        oov_recall = _ratio(counts.oov_correct, counts.oov_gold)
        iv_recall = _ratio(counts.correct - counts.oov_correct, iv_gold)
    else:
        oov_rate = oov_recall = iv_recall = None
    return SegScores(
        precision=words.precision,
        recall=words.recall,
        f1=words.fscore,
        fbeta=fbeta,
        beta=beta,
        oov_rate=oov_rate,
        oov_recall=oov_recall,
        iv_recall=iv_recall,
        boundary_precision=bounds.precision,
        boundary_recall=bounds.recall,
        boundary_f1=bounds.fscore,
    )


def _classify_blocks(gold_ends: set[int], pred_ends: set[int]) -> dict[str, int]:
    """Error kinds from the blocks between boundaries both sides share."""
    kinds = dict.fromkeys(
        (
            "split_gold",
            "split_pred",
            "merge_gold",
            "merge_pred",
            "cross_gold",
            "cross_pred",
            "cross_regions",
        ),
        0,
    )
    in_gold = in_pred = 0
    for end in sorted(gold_ends | pred_ends):
        in_gold += end in gold_ends
        in_pred += end in pred_ends
        if end in gold_ends and end in pred_ends:
            if in_gold == 1 and in_pred > 1:
                kinds["split_gold"] += 1
                kinds["split_pred"] += in_pred
            elif in_pred == 1 and in_gold > 1:
                kinds["merge_gold"] += in_gold
                kinds["merge_pred"] += 1
            elif in_gold > 1:
                kinds["cross_gold"] += in_gold
                kinds["cross_pred"] += in_pred
                kinds["cross_regions"] += 1
            in_gold = in_pred = 0
    return kinds


def count_sentence(
    gold_words: Sequence[str],
    pred_words: Sequence[str],
    dictionary: Dictionary | Iterable[str] | None = None,
) -> SegCounts:
    """Count one sentence: the reference implementation, on interval sets.

    When the two texts differ, predicted words are mapped onto the gold
    characters through a minimal edit alignment and only words whose aligned
    intervals agree are correct; such a line adds to ``mismatched_lines`` and
    not to the error kinds.

    >>> count_sentence(["我们", "是"], ["我", "们", "是"]).split_gold
    1
    >>> c = count_sentence(["“", "远望号", "”"], ["远望号", "”"])
    >>> (c.gold, c.pred, c.correct, c.mismatched_lines)
    (3, 2, 2, 1)
    """
    gold_words = [w for w in gold_words if w]
    pred_words = [w for w in pred_words if w]
    if not gold_words:
        return SegCounts(skipped_lines=1)
    gold_spans = to_spans(gold_words)
    pred_spans = to_spans(pred_words)
    gold_text = "".join(gold_words)
    pred_text = "".join(pred_words)
    same_text = gold_text == pred_text
    pred_internal = {end for _, end in pred_spans[:-1]}
    if not same_text:
        alignment = align_chars(gold_text, pred_text)
        pred_spans = project_spans(pred_words, alignment)
        pred_internal = {alignment.map_boundary(end) for end in pred_internal}
    pred_set = set(pred_spans)
    correct_flags = [span in pred_set for span in gold_spans]
    oov_gold = oov_correct = 0
    if dictionary is not None:
        for word, found in zip(gold_words, correct_flags):
            if word not in dictionary:
                oov_gold += 1
                oov_correct += found
    gold_ends = {end for _, end in gold_spans}
    gold_internal = gold_ends - {len(gold_text)}
    kinds = {}
    if same_text:
        kinds = _classify_blocks(gold_ends, {end for _, end in pred_spans})
    return SegCounts(
        sentences=1,
        characters=len(gold_text),
        gold=len(gold_words),
        pred=len(pred_words),
        correct=sum(correct_flags),
        oov_gold=oov_gold,
        oov_correct=oov_correct,
        gold_boundaries=len(gold_internal),
        pred_boundaries=max(len(pred_words) - 1, 0),
        correct_boundaries=len(gold_internal & pred_internal),
        mismatched_lines=0 if same_text else 1,
        **kinds,
    )


@dataclass(frozen=True, slots=True)
class LineMismatch:
    """A line whose gold and predicted characters differ (1-based line number)."""

    line: int
    gold: str
    pred: str


@dataclass(frozen=True)
class ScoreResult:
    """The scores of a prediction against a gold standard, with what produced them.

    Every score is computed from ``counts`` (or, with the ``sighan`` method,
    from ``sighan``) when asked for. Values are fractions in [0, 1]; OOV
    figures are None when no dictionary was given.
    """

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
    def _method(self) -> CountingMethod:
        """The registered counting method that produced this result."""
        return get_method(self.method)

    @property
    def scores(self) -> SegScores:
        """Scores of the method's counts (boundary figures always by interval)."""
        interval = score_counts(self.counts, has_dictionary=self.has_dictionary, beta=self.beta)
        return self._method.scores(
            interval, self.sighan, has_dictionary=self.has_dictionary, beta=self.beta
        )

    def __getattr__(self, name: str) -> Any:
        # precision, recall, f1, ... read through to the scores.
        if name in SegScores.__dataclass_fields__:
            return getattr(self.scores, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @property
    def gold_words(self) -> int:
        return self._method.word_totals(self.counts, self.sighan)[0]

    @property
    def pred_words(self) -> int:
        return self._method.word_totals(self.counts, self.sighan)[1]

    @property
    def correct_words(self) -> int:
        return self._method.word_totals(self.counts, self.sighan)[2]

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict with a stable key order: scores, counts, settings."""
        scores = self.scores
        out: dict[str, Any] = {
            "precision": scores.precision,
            "recall": scores.recall,
            "f1": scores.f1,
        }
        if self.beta != 1.0:
            out["fbeta"] = scores.fbeta
            out["beta"] = self.beta
        out.update(
            gold_words=self.gold_words,
            pred_words=self.pred_words,
            correct_words=self.correct_words,
            oov_rate=scores.oov_rate,
            oov_recall=scores.oov_recall,
            iv_recall=scores.iv_recall,
            boundary_precision=scores.boundary_precision,
            boundary_recall=scores.boundary_recall,
            boundary_f1=scores.boundary_f1,
        )
        out.update(self._method.result_fields(self.sighan))
        counts = self.counts
        out.update(
            sentences=counts.sentences,
            characters=counts.characters,
            split_gold=counts.split_gold,
            split_pred=counts.split_pred,
            merge_gold=counts.merge_gold,
            merge_pred=counts.merge_pred,
            cross_gold=counts.cross_gold,
            cross_pred=counts.cross_pred,
            cross_regions=counts.cross_regions,
            mismatched_lines=counts.mismatched_lines,
            skipped_lines=counts.skipped_lines,
            method=self.method,
            signature=self.signature.format(),
        )
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

    def render(
        self,
        fmt: str,
        *,
        gold: str = "gold",
        pred: str = "pred",
        scale: str | None = None,
        digits: int | None = None,
    ) -> str:
        """The result in ``fmt`` (one of :data:`RESULT_FORMATS`), without a final newline.

        ``gold`` and ``pred`` name the files in the text table and the SIGHAN block;
        ``scale`` (``percent``, the default, or ``fraction``) and ``digits`` set how the
        text table prints scores (:mod:`cws_bench.units`; JSON and CSV hold
        fractions at full precision).
        """
        renderers = {
            "text": lambda: self.to_text(gold=gold, pred=pred, scale=scale, digits=digits),
            "json": self.to_json,
            "csv": self.to_csv,
            "sighan": lambda: self.to_sighan(pred=pred),
        }
        if fmt not in renderers:
            raise ValueError(f"unknown format {fmt!r}; choose from {', '.join(renderers)}")
        return renderers[fmt]()

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
        rows = [
            ("gold words", f"{self.gold_words:,}"),
            ("predicted words", f"{self.pred_words:,}"),
            ("correct words", f"{self.correct_words:,}"),
            ("precision", shown(s.precision)),
            ("recall", shown(s.recall)),
            ("F1", shown(s.f1)),
        ]
        if self.beta != 1.0:
            rows.append((f"F{self.beta:g}", shown(s.fbeta)))
        boundary = (s.boundary_precision, s.boundary_recall, s.boundary_f1)
        rows += [
            ("OOV rate", shown(s.oov_rate)),
            ("OOV recall", shown(s.oov_recall)),
            ("IV recall", shown(s.iv_recall)),
            ("boundary P/R/F1", " / ".join(map(shown, boundary))),
        ]
        # the method's own counts (sighan: insertions, deletions, substitutions)
        rows += [
            (name, f"{value:,}") for name, value in self._method.result_fields(self.sighan).items()
        ]
        width = max(len(label) for label, _ in rows)
        lines = [f"{pred} against {gold} ({self.method} counting, {unit.label})"]
        lines += [f"  {label:<{width}}  {value:>10}" for label, value in rows]
        lines.append(
            f"  errors: {c.split_gold:,} gold words split into {c.split_pred:,} pieces; "
            f"{c.merge_gold:,} merged into {c.merge_pred:,} words; "
            f"{c.cross_regions:,} crossing regions ({c.cross_gold:,} gold, {c.cross_pred:,} "
            f"predicted words)"
        )
        lines.append(
            f"  sentences: {c.sentences:,} scored, {c.skipped_lines:,} empty gold lines "
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
        import csv
        import io

        out = io.StringIO()
        data = self.to_dict()
        writer = csv.DictWriter(out, fieldnames=list(data), lineterminator="\n")
        writer.writeheader()
        writer.writerow({k: "" if v is None else v for k, v in data.items()})
        return out.getvalue().rstrip("\n")

    def to_sighan(self, *, pred: str = "pred") -> str:
        """The SIGHAN script's summary block (a result of ``method="sighan"`` only)."""
        summary_block = getattr(self._method, "summary_block", None)
        if self.sighan is None or summary_block is None:
            raise ValueError('the SIGHAN summary needs a result scored with method="sighan"')
        return str(summary_block(self.sighan, pred, has_dictionary=self.has_dictionary))


RESULT_FORMATS: tuple[str, ...] = ("text", "json", "csv", "sighan")
"""The formats :meth:`ScoreResult.render` writes."""


# ---------------------------------------------------------------------------
# Counting many lines
#
# Two paths give the same counts. The fast one hands raw UTF-8 buffers to the
# compiled kernel (cws_bench/_kernel.pyx), which validates, splits and counts
# without creating Python strings. The other goes through decoded lines and
# count_sentence; it serves the sighan method, score_sentences and installs
# without the kernel. Lines whose characters differ always go through
# count_sentence's alignment.


@dataclass(slots=True)
class _Accumulator:
    """Mutable running totals of one scoring pass (kept private).

    ``method_counts`` are the counting method's own additive counts (None
    when the interval counts are its counts).
    """

    totals: list[int]
    method_counts: AdditiveCounts | None
    mismatches: list[LineMismatch]
    mismatch_count: int = 0
    empty_gold_lines: list[int] = field(default_factory=list)
    lines: list[tuple[int, SegCounts]] | None = None

    def merge(self, other: _Accumulator, max_examples: int, line_offset: int = 0) -> None:
        """Add the totals of the lines that follow (a shard, a merged metric) to these.

        ``line_offset`` is added to the other's line numbers (0 when they are
        already the file's).
        """
        self.totals = list(map(int.__add__, self.totals, other.totals))
        if self.method_counts is not None and other.method_counts is not None:
            self.method_counts += other.method_counts
        self.mismatch_count += other.mismatch_count
        room = max(max_examples - len(self.mismatches), 0)
        self.mismatches.extend(
            LineMismatch(m.line + line_offset, m.gold, m.pred) for m in other.mismatches[:room]
        )
        self.empty_gold_lines.extend(line + line_offset for line in other.empty_gold_lines)
        if self.lines is not None and other.lines is not None:
            self.lines.extend((line + line_offset, counts) for line, counts in other.lines)


class _Scorer:
    """One pass over paired lines; the logic shared by score_files and score_sentences."""

    def __init__(
        self,
        dictionary: Dictionary | None,
        *,
        method: str,
        strict: bool,
        per_line: bool,
        max_examples: int,
        normalizer: Normalizer | None = None,
    ) -> None:
        self.counter = get_method(method)
        self.dictionary = dictionary
        self.words = dictionary.words if dictionary is not None else None
        # The kernel looks words up in its own hash set, by their bytes.
        self.word_set = None
        if _kernel is not None and dictionary is not None:
            self.word_set = dictionary.lookup_table
        self.method = method
        self.strict = strict
        self.max_examples = max_examples
        self.normalizer = normalizer
        # Byte-order marks the readers dropped from (gold, prediction) that the
        # method keeps on the first line (CountingMethod.byte_order_marks).
        self.byte_order_marks = ("", "")
        self.acc = _Accumulator(
            totals=[0] * len(COUNT_FIELDS),
            method_counts=self.counter.zero(),
            mismatches=[],
            lines=[] if per_line else None,
        )
        self.line_no = 0

    @property
    def per_line(self) -> bool:
        return self.acc.lines is not None

    def _merge(
        self,
        totals: Sequence[int],
        count: int,
        differ: Iterable[tuple[int, str, str]],
        empty_with_pred: Iterable[int],
        rows: list[tuple[int, ...] | None] | None,
    ) -> None:
        """Add a counted batch of ``count`` lines; lines that differ are counted here."""
        acc = self.acc
        acc.totals = list(map(int.__add__, acc.totals, totals))
        first = self.line_no + 1
        acc.empty_gold_lines.extend(first + index for index in empty_with_pred)
        for index, gold_line, pred_line in differ:
            acc.mismatch_count += 1
            if len(acc.mismatches) < self.max_examples:
                acc.mismatches.append(LineMismatch(first + index, gold_line, pred_line))
            counts = count_sentence(gold_line.split(), pred_line.split(), self.words)
            acc.totals = list(map(int.__add__, acc.totals, counts.astuple()))
            if rows is not None:
                rows[index] = counts.astuple()
        if rows is not None and acc.lines is not None:
            acc.lines.extend(
                (first + index, SegCounts(*row))  # type: ignore[misc]
                for index, row in enumerate(rows)
            )
        self.line_no += count

    def add_lines(self, gold_lines: list[str], pred_lines: list[str]) -> None:
        """Count decoded line pairs (lines without their line end)."""
        first_batch = self.line_no == 0
        if self.normalizer is not None:
            gold_lines = list(map(self.normalizer, gold_lines))
            pred_lines = list(map(self.normalizer, pred_lines))
        if _kernel is not None:
            # Each line ends in "\n", so an empty last line is still a line.
            gold = "".join(line + "\n" for line in gold_lines).encode("utf-8", "surrogatepass")
            pred = "".join(line + "\n" for line in pred_lines).encode("utf-8", "surrogatepass")
            totals, count, _, _, differ, empty, rows, bad = _kernel.count_buffers(
                gold, 0, True, pred, 0, True, self.word_set, self.per_line
            )
            if bad is not None or count != len(gold_lines):  # pragma: no cover - lone surrogates
                totals, differ, empty, rows = self._count_lines_python(gold_lines, pred_lines)
            else:
                differ = [(i, gold_lines[i], pred_lines[i]) for i, *_ in differ]
        else:
            totals, differ, empty, rows = self._count_lines_python(gold_lines, pred_lines)
        self._merge(totals, len(gold_lines), differ, empty, rows)
        if self.acc.method_counts is not None:
            self._count_method(gold_lines, pred_lines, first_batch)

    def _count_method(self, gold_lines: list[str], pred_lines: list[str], first: bool) -> None:
        """Add the method's own counts of decoded lines (the first batch with its marks)."""
        marks = self.byte_order_marks if first else ("", "")
        self.acc.method_counts += self.counter.count_lines(  # type: ignore[operator]
            gold_lines, pred_lines, self.words, marks
        )

    def _count_lines_python(
        self, gold_lines: list[str], pred_lines: list[str]
    ) -> tuple[list[int], list[tuple[int, str, str]], list[int], list | None]:
        """The pure-Python twin of the kernel's batch count."""
        totals = SegCounts()
        differ: list[tuple[int, str, str]] = []
        empty_with_pred: list[int] = []
        rows: list[tuple[int, ...] | None] | None = [] if self.per_line else None
        for index, (gold_line, pred_line) in enumerate(zip(gold_lines, pred_lines)):
            gold_words, pred_words = gold_line.split(), pred_line.split()
            if gold_words and "".join(gold_words) != "".join(pred_words):
                differ.append((index, gold_line, pred_line))
                if rows is not None:
                    rows.append(None)
                continue
            counts = count_sentence(gold_words, pred_words, self.words)
            if not gold_words and pred_words:
                empty_with_pred.append(index)
            totals += counts
            if rows is not None:
                rows.append(counts.astuple())
        return list(totals.astuple()), differ, empty_with_pred, rows

    def add_files(
        self,
        gold: PathLike,
        pred: PathLike,
        gold_encoding: str,
        pred_encoding: str,
        hasher: Any,
    ) -> tuple[list[str], list[str]]:
        """Count two files through the kernel's byte buffers.

        Returns the lines left over in the longer file, decoded.
        """
        sides = (_ByteSource(gold, gold_encoding, hasher), _ByteSource(pred, pred_encoding))
        gold_side, pred_side = sides
        # A method with counts of its own (sighan) counts the same bytes, if it can.
        own = self.acc.method_counts is not None
        buffers = self.counter.buffer_counter(self.words) if own else None
        while True:
            for side in sides:
                side.top_up()
            totals, count, gold_end, pred_end, differ, empty, rows, bad = _kernel.count_buffers(
                gold_side.buffer,
                0,
                gold_side.eof,
                pred_side.buffer,
                0,
                pred_side.eof,
                self.word_set,
                self.per_line,
            )
            if bad is not None:
                side_index, offset = bad
                sides[side_index].raise_decoding_error(offset)
            decoded = [
                (index, gold_side.decode(g_from, g_to), pred_side.decode(p_from, p_to))
                for index, g_from, g_to, p_from, p_to in differ
            ]
            first_batch = self.line_no == 0
            self._merge(totals, count, decoded, empty, rows)
            if count and buffers is not None:
                self._count_buffers(buffers, gold_side, gold_end, pred_side, pred_end, first_batch)
            elif count and own:
                # Else the method gets the lines the kernel just counted, decoded once.
                self._count_method(
                    gold_side.lines(gold_end, count), pred_side.lines(pred_end, count), first_batch
                )
            gold_side.consume(gold_end, count)
            pred_side.consume(pred_end, count)
            if count == 0:
                if gold_side.eof and pred_side.eof:
                    break
                for side in sides:  # a line longer than the buffer: read more
                    side.top_up(force=True)
        if buffers is not None:
            self.acc.method_counts += buffers.counts()  # type: ignore[operator]
        return gold_side.rest_lines(), pred_side.rest_lines()

    def _count_buffers(
        self,
        buffers: BufferCounts,
        gold_side: _ByteSource,
        gold_end: int,
        pred_side: _ByteSource,
        pred_end: int,
        first_batch: bool,
    ) -> None:
        """Hand the lines the kernel just counted, as bytes, to the method's own counter.

        On the files' first line, the byte-order marks the method keeps go back
        on (the readers dropped them).
        """
        gold_bytes, pred_bytes = gold_side.buffer, pred_side.buffer
        gold_start = pred_start = 0
        if first_batch and self.byte_order_marks != ("", ""):
            gold_start = _line_end(gold_bytes, gold_end)
            pred_start = _line_end(pred_bytes, pred_end)
            gold_mark, pred_mark = (mark.encode("utf-8") for mark in self.byte_order_marks)
            gold_first = gold_mark + gold_bytes[:gold_start]
            pred_first = pred_mark + pred_bytes[:pred_start]
            buffers.add(gold_first, 0, len(gold_first), pred_first, 0, len(pred_first))
        buffers.add(gold_bytes, gold_start, gold_end, pred_bytes, pred_start, pred_end)

    def add_rest(
        self,
        gold_rest: list[str],
        pred_rest: list[str],
        totals: tuple[int, int],
        names: tuple[str, str],
        *,
        allow_line_mismatch: bool,
    ) -> list[str]:
        """Deal with the lines past those both files have; return the warnings.

        Blank lines at the end are not compared. Other lines left over raise
        :class:`LineCountMismatchError`, unless ``allow_line_mismatch``: then
        extra prediction lines are ignored and missing predictions are
        scored as the counting method scores them.
        """
        gold_rest, pred_rest = _trim_blank_tail(gold_rest), _trim_blank_tail(pred_rest)
        if not (gold_rest or pred_rest):
            return []
        (total_gold, total_pred), (gold_name, pred_name) = totals, names
        if not allow_line_mismatch:
            raise LineCountMismatchError(gold_name, total_gold, pred_name, total_pred)
        if pred_rest:
            outcome = "extra prediction lines ignored"
        else:
            outcome = self.counter.missing_predictions_outcome(self.line_no, gold_rest)
        if gold_rest and self.counter.scores_missing_predictions:
            self.add_lines(gold_rest, [""] * len(gold_rest))
        return [f"{gold_name} has {total_gold} lines but {pred_name} has {total_pred}: {outcome}"]

    def check_strict(self, gold_name: str, pred_name: str) -> None:
        acc = self.acc
        if self.strict and acc.mismatch_count:
            shown = "; ".join(f"line {m.line}" for m in acc.mismatches)
            raise TextMismatchError(
                f"{gold_name} and {pred_name}: {acc.mismatch_count} line(s) hold different "
                f"characters ({shown})",
                "the prediction must segment exactly the gold text; leave out --strict "
                "to score through a character alignment",
            )

    def result(self, signature: Signature, warnings: list[str]) -> ScoreResult:
        acc = self.acc
        if acc.mismatch_count:
            warnings.append(
                f"{acc.mismatch_count} line(s) hold different characters in gold and "
                f"prediction; scored through a character alignment"
            )
        if acc.empty_gold_lines:
            shown = ", ".join(map(str, acc.empty_gold_lines[: self.max_examples]))
            more = "" if len(acc.empty_gold_lines) <= self.max_examples else ", ..."
            warnings.append(
                f"{len(acc.empty_gold_lines)} empty gold line(s) where the prediction has "
                f"words, skipped (line {shown}{more})"
            )
        counts = SegCounts(*acc.totals)
        if self.dictionary is not None:
            covers = coverage_warnings(counts.gold, counts.oov_gold, self.dictionary.name)
            if covers:
                # The warning travels with the numbers: a signature quoted without it is
                # not the signature of this result.
                warnings += covers
                signature = replace(signature, extra=(*signature.extra, ("warn", COVERS_GOLD)))
        return ScoreResult(
            counts=counts,
            has_dictionary=self.dictionary is not None,
            signature=signature,
            method=self.method,
            beta=signature.beta,
            # The method's own counts (today only the sighan method has some).
            sighan=cast("SighanCounts | None", acc.method_counts),
            mismatches=tuple(acc.mismatches),
            warnings=tuple(warnings),
            lines=tuple(acc.lines) if acc.lines is not None else None,
        )


def _line_end(data: bytes, end: int) -> int:
    """Where the first line of ``data[:end]`` ends, past its newline (``end`` without one)."""
    newline = data.find(b"\n", 0, end)
    return end if newline < 0 else newline + 1


def file_sentence_checksum(path: PathLike, encoding: str = "utf-8") -> str:
    """The sentence checksum of a plain segmented file, as ``score_files`` signs its gold.

    A byte-order mark is left out and other encodings are read as text, so
    the same sentences give the same checksum in any encoding.
    """
    digest = LineDigest()
    for _block in _ByteSource(path, encoding, digest)._blocks:
        pass
    return digest.hexdigest()


class _ByteSource:
    """A file read as UTF-8 byte blocks for the kernel, with its position for messages.

    UTF-8 files are read raw (the kernel validates them); other encodings are
    decoded line by line, which validates them, and re-encoded.
    """

    def __init__(self, source: PathLike, encoding: str, hasher: Any = None) -> None:
        self.source = source
        self.encoding = normalize_encoding(encoding)
        self.buffer = b""
        self.eof = False
        self.offset = 0  # file offset of buffer[0] (raw UTF-8 files)
        self.line = 0  # lines before buffer[0]
        self._blocks = self._read(hasher)

    def _read(self, hasher: Any) -> Iterator[bytes]:
        if self.encoding != "utf-8":
            for lines in iter_line_blocks(self.source, encoding=self.encoding):
                block = ("\n".join(lines) + "\n").encode("utf-8")
                if hasher is not None:
                    hasher.update(block)
                yield block
            return
        bom = codecs.BOM_UTF8
        with open_binary(self.source) as f:
            head = b""
            while len(head) < len(bom) and (block := f.read(BLOCK_SIZE)):
                head += block
            if head.startswith(bom):
                head = head[len(bom) :]
                self.offset = len(bom)
            if hasher is not None:
                hasher.update(head)
            if head:
                yield head
            while block := f.read(BLOCK_SIZE):
                if hasher is not None:
                    hasher.update(block)
                yield block

    def top_up(self, *, force: bool = False) -> None:
        """Read a block if the buffer is short (or always, with force), unless at EOF."""
        if self.eof or (len(self.buffer) >= BLOCK_SIZE and not force):
            return
        block = next(self._blocks, None)
        if block is None:
            self.eof = True
        else:
            self.buffer = self.buffer + block if self.buffer else block

    def consume(self, end: int, lines: int) -> None:
        self.buffer = self.buffer[end:]
        self.offset += end
        self.line += lines

    def decode(self, start: int, end: int) -> str:
        try:
            return self.buffer[start:end].decode("utf-8")
        except UnicodeDecodeError as e:
            self.raise_decoding_error(start + e.start)
            raise  # pragma: no cover - raise_decoding_error raises

    def raise_decoding_error(self, position: int) -> None:
        line = self.line + self.buffer.count(b"\n", 0, position) + 1
        raise decoding_error(self.source, "utf-8", line, self.offset + position)

    def lines(self, end: int, count: int) -> list[str]:
        """The ``count`` lines in ``buffer[:end]`` (as the kernel cut them), decoded.

        Lines keep a carriage return before their newline (the methods that
        read decoded lines drop it themselves, as ``split`` does).
        """
        lines = self.decode(0, end).split("\n")
        if len(lines) > count:  # the text ends with a newline
            lines.pop()
        return lines

    def rest_lines(self) -> list[str]:
        """The lines left in the buffer (the file is at its end), decoded."""
        if not self.buffer:
            return []
        text = self.decode(0, len(self.buffer))
        lines = text.split("\n")
        if text.endswith("\n"):
            lines.pop()
        return lines


def _paired_batches(
    gold_blocks: Iterator[list[str]], pred_blocks: Iterator[list[str]]
) -> Iterator[tuple[list[str], list[str], list[str], list[str]]]:
    """Re-cut two streams of line blocks into pairs of equal length.

    Yields (gold, pred, gold_rest, pred_rest): the last pair has the lines left
    over in the longer stream, with the shorter side empty.
    """
    gold_buf: list[str] | None = []
    pred_buf: list[str] | None = []
    while True:
        if not gold_buf:
            gold_buf = next(gold_blocks, None)
        if not pred_buf:
            pred_buf = next(pred_blocks, None)
        if gold_buf is None or pred_buf is None:
            break
        n = min(len(gold_buf), len(pred_buf))
        yield gold_buf[:n], pred_buf[:n], [], []
        gold_buf, pred_buf = gold_buf[n:], pred_buf[n:]
    gold_rest = (gold_buf or []) + [line for block in gold_blocks for line in block]
    pred_rest = (pred_buf or []) + [line for block in pred_blocks for line in block]
    if gold_rest or pred_rest:
        yield [], [], gold_rest, pred_rest


def _trim_blank_tail(lines: list[str]) -> list[str]:
    end = len(lines)
    while end and not lines[end - 1].strip():
        end -= 1
    return lines[:end]


def scoring_dictionary(
    gold: Any,
    dictionary: Any = STANDARD_DICTIONARY,
    *,
    data_dir: PathLike | None = None,
    encoding: str = "utf-8",
) -> Dictionary | None:
    """The OOV dictionary a score of ``gold`` uses: the one place its default is decided.

    ``dictionary`` is any word source (:func:`cws_bench.words.as_dictionary`:
    a Dictionary, a file read in ``encoding``, ``jieba``, ``corpus:NAME[:SPLIT]``
    found in ``data_dir``, words), None for no dictionary, or
    :data:`~cws_bench.defaults.STANDARD_DICTIONARY` (the default): the standard
    dictionary of a registered corpus named as ``gold``, none for a gold file
    or gold sentences.

    >>> len(scoring_dictionary("sample")), scoring_dictionary("sample", None)
    (251, None)
    """
    if dictionary is STANDARD_DICTIONARY:
        if not isinstance(gold, str | os.PathLike):
            return None
        reference = gold_corpus(gold, data_dir=data_dir)
        return reference[0].dictionary() if reference is not None else None
    if dictionary is None:
        return None
    from cws_bench.words import as_dictionary

    return as_dictionary(dictionary, data_dir=data_dir, encoding=encoding)


def _as_dictionary(value: Any, encoding: str = "utf-8") -> Dictionary | None:
    """A Dictionary from any word source (``jieba``, ``corpus:NAME[:SPLIT]``, a path, words).

    A dictionary file is read in ``encoding``.
    """
    if value is None:
        return None
    from cws_bench.words import as_dictionary

    return as_dictionary(value, encoding=encoding)


# What score_files reads is one sentence a line; a file in another gold format
# would be read line by line into nonsense (a CoNLL-U token line as a
# "sentence"), so it is recognised and refused with the way to convert it.
_FORMAT_TITLES = {
    "conllu": "CoNLL-U",
    "peoples-daily": "People's Daily word/POS text",
    "bmes": "BMES character tags",
}


def check_plain(source: PathLike, *, encoding: str = "utf-8", role: str = "gold") -> None:
    """Raise if ``source`` looks like a gold format other than plain segmented text.

    Standard input is not checked (it cannot be read twice).

    Args:
        source: the file.
        encoding: its encoding.
        role: ``gold`` or ``prediction``, for the message.

    Raises:
        CorpusFormatError: the file looks like CoNLL-U, People's Daily or BMES
            (:func:`cws_bench.corpora.readers.sniff_format`).
    """
    if os.fspath(source) == STDIN:
        return
    from cws_bench.corpora.readers import sniff_format

    fmt = sniff_format(source, encoding=encoding)
    if fmt == "plain":
        return
    name = display_name(source)
    if role == "gold":
        hint = (
            f"read it as what it is with --gold-format {fmt} (or auto, the default), or "
            f"convert it: `cws-bench corpora export {name} --input-format {fmt} --as gold "
            "-o gold.txt` (and `--as raw` for the text to segment)"
        )
    else:
        hint = "write the prediction as one sentence a line, words separated by spaces"
    raise CorpusFormatError(
        name,
        None,
        f"this {role} file looks like {_FORMAT_TITLES.get(fmt, fmt)}, not plain segmented "
        "text (one sentence a line, words separated by whitespace)",
        hint,
    )


def _as_normalizer(normalize: str | Normalizer | None) -> Normalizer | None:
    """The normaliser to apply, or None when nothing changes."""
    if normalize is None:
        return None
    from cws_bench.normalize import Normalizer, get_normalizer

    normalizer = normalize if isinstance(normalize, Normalizer) else get_normalizer(normalize)
    return None if normalizer.identity else normalizer


def _normalize_dictionary(
    dictionary: Dictionary | None, normalizer: Normalizer | None
) -> Dictionary | None:
    """The dictionary as the normalised text sees it."""
    if dictionary is None or normalizer is None:
        return dictionary
    from cws_bench.dictionary import Dictionary

    return Dictionary.from_words(
        map(normalizer, dictionary.words), f"{dictionary.name}|{normalizer.name}"
    )


GOLD_FORMATS: tuple[str, ...] = ("auto", "plain", "conllu", "peoples-daily", "bmes")
"""What ``gold_format`` takes: ``auto`` (detected) or a format of cws_bench.corpora.readers."""


def gold_corpus(gold: PathLike, *, data_dir: PathLike | None = None) -> tuple[Corpus, str] | None:
    """The registered corpus and split that GOLD names (``NAME[:SPLIT]``), or None.

    A GOLD that is an existing file (or ``-``) is a file, whatever its name;
    otherwise ``NAME`` must be a registered corpus (``cws-bench corpora``) and
    the split defaults to ``test``.

    >>> corpus, split = gold_corpus("sample")
    >>> corpus.name, split
    ('sample', 'test')
    >>> gold_corpus("no-such-file.txt") is None
    True
    """
    if not isinstance(gold, str) or gold == STDIN or os.path.exists(gold):
        return None
    from cws_bench.corpora import corpus_names, get_corpus

    name, _, split = gold.partition(":")
    if name not in corpus_names():
        return None
    return get_corpus(name, data_dir=data_dir), split or "test"


def _gold_sentences(
    gold: PathLike, gold_format: str, encoding: str, data_dir: PathLike | None
) -> Iterator[list[str]] | None:
    """The gold as sentences when it is a corpus or a file not in the plain format.

    None means a plain file, which the scorer streams itself (and the kernel
    reads as raw bytes).
    """
    if gold_format not in GOLD_FORMATS:
        raise CwsBenchError(
            f"unknown gold format {gold_format!r}", f"use one of: {', '.join(GOLD_FORMATS)}"
        )
    reference = gold_corpus(gold, data_dir=data_dir)
    if reference is not None:
        if gold_format not in ("auto", "plain"):
            raise CwsBenchError(
                f"{gold} is a registered corpus, read in its own format: a gold format "
                f"({gold_format}) applies to files",
                "leave out --gold-format",
            )
        corpus, split = reference
        return corpus.sentences(split)
    if os.fspath(gold) == STDIN:
        return None
    if not os.path.exists(gold):
        raise CwsBenchError(
            f"{display_name(gold)}: no such file, nor a registered corpus NAME[:SPLIT]",
            "check the path, or see `cws-bench corpora` for the corpus names",
        )
    if gold_format == "plain":
        check_plain(gold, encoding=encoding, role="gold")
        return None
    from cws_bench.corpora.readers import read_corpus, sniff_format

    if gold_format == "auto":
        gold_format = sniff_format(gold, encoding=encoding)
        if gold_format == "plain":
            return None
    return read_corpus(gold, format=gold_format, encoding=encoding)


def read_gold(
    gold: PathLike,
    *,
    gold_format: str = "auto",
    encoding: str = "utf-8",
    data_dir: PathLike | None = None,
) -> Iterable[list[str]]:
    """A gold as sentences of words, read as ``score`` reads it: any format, or a corpus name.

    ``gold`` is a file in ``gold_format`` (one of :data:`GOLD_FORMATS`;
    ``auto`` detects CoNLL-U, People's Daily, BMES or plain text) or a
    registered corpus ``NAME[:SPLIT]``. Plain text forced with ``plain`` is
    refused when it looks like another format (:func:`check_plain`).

    Raises:
        CwsBenchError: an unknown format, a missing file, or a file that does
            not match its format (file and line named).
    """
    sentences = _gold_sentences(gold, gold_format, encoding, data_dir)
    if sentences is None:
        return read_segmented(gold, encoding=encoding)
    return sentences


def _sentence_blocks(
    sentences: Iterable[Sequence[str]], digest: Any, size: int = 4096
) -> Iterator[list[str]]:
    """Sentences as blocks of lines (words joined by a space), hashed into ``digest``.

    The digest is that of :func:`cws_bench.corpora.base.sentences_checksum`
    and of :func:`score_sentences`' signature.
    """
    block: list[str] = []
    for words in sentences:
        line = " ".join(words)
        digest.update(line.encode("utf-8"))
        digest.update(b"\n")
        block.append(line)
        if len(block) >= size:
            yield block
            block = []
    if block:
        yield block


_P = ParamSpec("_P")


def _encoding_parameters(function: Callable[_P, ScoreResult]) -> Callable[_P, ScoreResult]:
    """A decoding error's fix names score_files' parameter for the file at fault."""

    @functools.wraps(function)
    def wrapped(*args: _P.args, **kwargs: _P.kwargs) -> ScoreResult:
        files = [
            (kwargs.get("dictionary"), "dictionary_encoding"),
            (kwargs.get("pred", args[1] if len(args) > 1 else None), "pred_encoding"),
            (kwargs.get("gold", args[0] if args else None), "encoding"),
        ]
        with encoding_parameters(files):
            return function(*args, **kwargs)

    return wrapped


@_encoding_parameters
def score_files(
    gold: PathLike,
    pred: PathLike,
    *,
    dictionary: Dictionary | Iterable[str] | PathLike | DictionaryDefault | None = (
        STANDARD_DICTIONARY
    ),
    normalize: str | Normalizer | None = None,
    encoding: str = "utf-8",
    pred_encoding: str | None = None,
    method: Method = "interval",
    beta: float = 1.0,
    strict: bool = False,
    allow_line_mismatch: bool = False,
    per_line: bool = False,
    max_examples: int = MAX_EXAMPLES,
    dictionary_encoding: str | None = None,
    gold_format: str = "auto",
    data_dir: PathLike | None = None,
) -> ScoreResult:
    """Score a segmented prediction file against a gold standard.

    The prediction holds one sentence a line, words separated by whitespace.
    The gold is a file in any gold format (plain segmented text like the
    prediction, CoNLL-U, People's Daily ``word/POS``, BMES tags; detected
    unless ``gold_format`` says which), or a registered corpus named
    ``NAME[:SPLIT]`` (``sighan2005-pku:test``). Sentence n of the gold
    (line n, or the n-th CoNLL-U sentence) pairs with line n of the
    prediction. Files are streamed: memory does not grow with their length
    (unless ``per_line`` keeps each line's counts).

    Line counts: a file has as many lines as ``wc -l`` counts, plus one for a
    last line without its newline; empty lines count, at the end too, but
    empty lines at the end of either file are not compared, so two files that
    differ only by them have the same number of lines to score.

    Args:
        gold: gold segmentation file, or a registered corpus ``NAME[:SPLIT]``
            (split ``test`` by default) when no file has that name.
        pred: predicted segmentation file, or ``-`` for standard input.
        dictionary: for OOV/IV figures: a Dictionary, a dictionary file (read
            in ``dictionary_encoding``), ``jieba``, ``corpus:NAME[:SPLIT]``, an
            iterable of words, or None (OOV figures are then None). By default
            (:data:`~cws_bench.defaults.STANDARD_DICTIONARY`) the standard
            dictionary of a corpus named as ``gold``, none for a gold file: what
            ``cws-bench score`` uses (:func:`scoring_dictionary`).
        normalize: a normalisation applied alike to gold, prediction and
            dictionary before scoring (a spec such as ``width+t2s`` or a
            :class:`~cws_bench.normalize.Normalizer`); recorded in the signature.
        encoding: encoding of the gold file (and of the prediction, unless
            ``pred_encoding`` is given).
        method: ``interval`` (a word is correct iff its character interval is
            a gold word's) or ``sighan`` (the official bakeoff script's
            word-sequence diff).
        beta: F-beta weight, reported as ``fbeta`` beside F1.
        strict: raise instead of aligning lines whose characters differ.
        allow_line_mismatch: score files with different numbers of lines.
            Extra prediction lines are ignored. Gold lines beyond the end of
            the prediction count as empty predictions with ``interval``; with
            ``sighan`` they are not scored at all, as the script reads the two
            files only while both have a line.
        per_line: keep each line's counts in ``result.lines``.
        max_examples: how many differing lines to keep as examples.
        dictionary_encoding: encoding of a dictionary file (default: that of
            the gold file).
        gold_format: ``auto`` (detected by
            :func:`cws_bench.corpora.readers.sniff_format`), ``plain``,
            ``conllu``, ``peoples-daily`` or ``bmes``.
        data_dir: where a registered corpus' data is (as ``get_corpus`` takes it).

    Raises:
        CwsBenchError: a file is missing or undecodable, the line counts
            differ, or (``strict``) texts differ.
        CorpusFormatError: a file is in another gold format (CoNLL-U, ...).
    """
    pred_encoding = pred_encoding or encoding
    gold_sentences = _gold_sentences(gold, gold_format, encoding, data_dir)
    check_plain(pred, encoding=pred_encoding, role="prediction")
    normalizer = _as_normalizer(normalize)
    dictionary = _normalize_dictionary(
        scoring_dictionary(
            gold, dictionary, data_dir=data_dir, encoding=dictionary_encoding or encoding
        ),
        normalizer,
    )
    gold_name, pred_name = display_name(gold), display_name(pred)
    # The sentence checksum of the gold lines (as score_sentences and Corpus.checksum),
    # computed from the UTF-8 bytes the kernel reads, on another core.
    hasher = BackgroundHasher(LineDigest()) if gold_sentences is None else None
    scorer = _Scorer(
        dictionary,
        method=method,
        strict=strict,
        per_line=per_line,
        max_examples=max_examples,
        normalizer=normalizer,
    )
    # A gold read as sentences (a corpus, another format) is hashed as sentences.
    sentence_digest = LineDigest()
    counter = scorer.counter
    scorer.byte_order_marks = counter.byte_order_marks(
        gold if gold_sentences is None else None, pred, encoding, pred_encoding
    )
    if _kernel is not None and normalizer is None and hasher is not None:
        gold_rest, pred_rest = scorer.add_files(gold, pred, encoding, pred_encoding, hasher)
    else:
        gold_rest, pred_rest = [], []
        batches = _paired_batches(
            _hashed(iter_line_blocks(gold, encoding=encoding), hasher)
            if hasher is not None
            else _sentence_blocks(gold_sentences or (), sentence_digest),
            iter_line_blocks(pred, encoding=pred_encoding),
        )
        for gold_lines, pred_lines, gold_left, pred_left in batches:
            if gold_lines:
                scorer.add_lines(gold_lines, pred_lines)
            gold_rest, pred_rest = gold_left or gold_rest, pred_left or pred_rest
    # Every line counts (empty ones too); empty lines at the end are not compared.
    totals = (scorer.line_no + len(gold_rest), scorer.line_no + len(pred_rest))
    warnings = scorer.add_rest(
        gold_rest,
        pred_rest,
        totals,
        (gold_name, pred_name),
        allow_line_mismatch=allow_line_mismatch,
    )
    scorer.check_strict(gold_name, pred_name)
    signature = Signature(
        method=method,
        gold=hasher.hexdigest() if hasher is not None else sentence_digest.hexdigest(),
        dictionary=dictionary.checksum if dictionary is not None else None,
        normalization=normalizer.name if normalizer is not None else "none",
        beta=beta,
    )
    return scorer.result(signature, warnings)


def _joined_sentences(sentences: Iterable[Sequence[str]], side: str) -> list[str]:
    """Each sentence's words joined by a space; a sentence that is a str is a TypeError."""
    if isinstance(sentences, str):
        raise TypeError(
            f"score_sentences() takes {side} as a list of sentences (lists of words), not a str"
        )
    lines = []
    for number, words in enumerate(sentences, start=1):
        if isinstance(words, str):
            shown = words if len(words) <= 30 else words[:29] + "…"
            raise TypeError(
                f"score_sentences() takes sentences as lists of words, but {side} sentence "
                f"{number} is a str ({shown!r}): split it first, e.g. "
                "[line.split() for line in lines]"
            )
        lines.append(" ".join(words))
    return lines


def score_sentences(
    gold: Iterable[Sequence[str]],
    pred: Iterable[Sequence[str]],
    dictionary: Dictionary | Iterable[str] | PathLike | None = None,
    *,
    method: Method = "interval",
    normalize: str | Normalizer | None = None,
    beta: float = 1.0,
    strict: bool = False,
    per_line: bool = False,
) -> ScoreResult:
    """Score predicted sentences (lists of words) against gold sentences.

    Same counting and result as :func:`score_files`; sentences pair up in
    order and must be as many on both sides.

    Each sentence is a list (or tuple) of words. A sentence given as a string
    is refused with a ``TypeError``, as :meth:`Segmenter.segment
    <cws_bench.segmenters.base.Segmenter.segment>` refuses one, rather than
    read character by character (which would score every string as a
    segmentation into single characters): split segmented lines first,
    ``[line.split() for line in lines]``.

    >>> score_sentences([["我们", "是"]], [["我", "们", "是"]]).to_dict()["recall"]
    0.5
    >>> score_sentences(["结婚 的"], ["结 婚 的"])
    Traceback (most recent call last):
    ...
    TypeError: score_sentences() takes sentences as lists of words, but gold sentence 1 is a str ('结婚 的'): split it first, e.g. [line.split() for line in lines]

    Raises:
        TypeError: a sentence (or the whole of gold or pred) is a string.
    """  # noqa: E501
    normalizer = _as_normalizer(normalize)
    dictionary = _normalize_dictionary(_as_dictionary(dictionary), normalizer)
    gold_lines = _joined_sentences(gold, "gold")
    pred_lines = _joined_sentences(pred, "pred")
    if len(gold_lines) != len(pred_lines):
        raise LineCountMismatchError("gold", len(gold_lines), "prediction", len(pred_lines))
    scorer = _Scorer(
        dictionary,
        method=method,
        strict=strict,
        per_line=per_line,
        max_examples=MAX_EXAMPLES,
        normalizer=normalizer,
    )
    for start in range(0, len(gold_lines), 4096):
        scorer.add_lines(gold_lines[start : start + 4096], pred_lines[start : start + 4096])
    scorer.check_strict("gold", "prediction")
    digest = SentenceDigest()
    for line in gold_lines:
        digest.add_line(line)
    signature = Signature(
        method=method,
        gold=digest.hexdigest(),
        dictionary=dictionary.checksum if dictionary is not None else None,
        normalization=normalizer.name if normalizer is not None else "none",
        beta=beta,
    )
    return scorer.result(signature, [])


def _hashed(blocks: Iterable[list[str]], digest: Any) -> Iterator[list[str]]:
    """Blocks of lines, each line added to a sentence digest as it passes."""
    for lines in blocks:
        block = "\n".join(lines) + "\n" if lines else ""
        digest.update(block.encode("utf-8", "surrogateescape"))
        yield lines


def write_details(result: ScoreResult, target: PathLike) -> None:
    """Write one CSV row per line: line number, counts, P/R/F (and OOV when known).

    Raises:
        CwsBenchError: the result was computed without ``per_line=True``.
    """
    import csv

    from cws_bench.io import atomic_write

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
