"""The counting methods, as registered objects that carry their own quirks.

A counting method decides which predicted words are correct. Each is an
object in a registry, asked by name (:func:`get_method`), so that the scorers
and the streaming metric never compare method names:

- ``interval`` (:class:`IntervalMethod`): a word is correct iff its character
  interval is a gold word's. Its counts, :class:`~cws_bench.scoring.SegCounts`,
  every method keeps (boundary figures, error kinds, per-sentence rows).
- ``sighan`` (:class:`SighanMethod`): the SIGHAN bakeoff script's word-sequence
  diff, with counts of its own (:class:`~cws_bench.scoring.sighan.SighanCounts`)
  and the script's quirks (a byte-order mark glued to the first word, only the
  lines both files have scored, its summary block).
- ``conll18`` (:class:`Conll18Method`): the CoNLL 2018 UD shared task's Words
  score, of whole files, not line pairs (:meth:`Conll18Method.score_whole_files`).

>>> [method.name for method in methods()]
['interval', 'sighan', 'conll18']
>>> get_method("sighan").keeps_byte_order_mark
True
>>> line_methods()
('interval', 'sighan')
"""

from __future__ import annotations

import codecs
import os
from collections.abc import Collection, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from cws_bench.display.units import plural
from cws_bench.errors import CwsBenchError, Fix
from cws_bench.scoring.counts import AdditiveCounts, SegCounts
from cws_bench.scoring.scores import SegScores
from cws_bench.text.io import PathLike, normalize_encoding, open_binary

if TYPE_CHECKING:
    from cws_bench.scoring.sighan import BufferCounts

__all__ = [
    "Conll18Method",
    "CountingMethod",
    "IntervalMethod",
    "SighanMethod",
    "WholeFileResult",
    "get_method",
    "line_methods",
    "methods",
    "register_method",
]

NO_MARKS = ("", "")


class WholeFileResult(Protocol):
    """The result of a method that scores whole files (:meth:`CountingMethod.score_whole_files`)."""

    def render(self, fmt: str) -> str: ...


class CountingMethod:
    """What a counting method is: the base of the registered objects.

    Class attributes:
        name: what ``method=`` and ``--method`` take.
        description: one line, for help texts.
        counts_line_pairs: False for a method that scores whole files
            (:func:`get_method` with ``line_pairs=True`` refuses it).
        counts_decoded_lines: the method counts decoded lines itself, beside the
            interval counts (so the kernel's byte path alone is not enough).
        keeps_byte_order_mark: a file's byte-order mark stays on its first word.
        scores_missing_predictions: with ``allow_line_mismatch``, gold lines past
            the prediction's end count as empty predictions (else they are not scored).
        resamples_sentences: the counts add up sentence by sentence, so intervals and
            paired tests can resample per-sentence rows (interval: the result's own;
            :func:`~cws_bench.scoring.per_sentence.method_rows`).
        has_sentence_rows: the method counts each sentence pair itself (:meth:`sentence_row`).
    """

    name: ClassVar[str]
    description: ClassVar[str]
    counts_line_pairs: ClassVar[bool] = True
    counts_decoded_lines: ClassVar[bool] = False
    keeps_byte_order_mark: ClassVar[bool] = False
    scores_missing_predictions: ClassVar[bool] = True
    resamples_sentences: ClassVar[bool] = False
    has_sentence_rows: ClassVar[bool] = False

    def zero(self) -> AdditiveCounts | None:
        """The method's own counts before any line (None: the interval counts are its counts)."""
        return None

    def count_lines(
        self,
        gold_lines: Sequence[str],
        pred_lines: Sequence[str],
        words: Collection[str] | None,
        marks: tuple[str, str] = NO_MARKS,
    ) -> AdditiveCounts | None:
        """The method's own counts of paired decoded lines (None when it has none);
        ``marks`` go back on the first line of each side (:meth:`byte_order_marks`)."""
        return None

    def buffer_counter(self, words: Collection[str] | None) -> BufferCounts | None:
        """A counter of the method's own counts from the UTF-8 bytes the scorer's kernel
        read (:class:`~cws_bench.scoring.sighan.BufferCounts`: same counts as
        :meth:`count_lines`, less work), or None."""
        return None

    def byte_order_marks(
        self, gold: PathLike | None, pred: PathLike, gold_encoding: str, pred_encoding: str
    ) -> tuple[str, str]:
        """The byte-order marks the readers dropped from (gold, prediction) that the method
        keeps; ``gold`` None when the gold is not read from a plain file."""
        if not self.keeps_byte_order_mark:
            return NO_MARKS
        return (
            "" if gold is None else _byte_order_mark(gold, gold_encoding),
            _byte_order_mark(pred, pred_encoding),
        )

    def word_totals(self, counts: SegCounts, own: Any) -> tuple[int, int, int]:
        """(gold words, predicted words, correct words) of a result."""
        return counts.gold, counts.pred, counts.correct

    def scores(
        self, interval: SegScores, own: Any, *, has_dictionary: bool, beta: float
    ) -> SegScores:
        """A result's scores, from the interval scores and the method's own counts."""
        return interval

    def result_fields(self, own: Any) -> dict[str, int]:
        """Counts of its own that a result's ``to_dict`` adds after the boundary scores."""
        return {}

    def sentence_row(self, gold_line: str, pred_line: str) -> tuple[int, int, int]:
        """(correct, predicted, gold) words of one line pair, as the method counts them
        (only for a method that ``resamples_sentences`` with counts of its own)."""
        raise NotImplementedError(f"the {self.name} method has no per-sentence rows")

    def mismatch_outcome(self) -> str:
        """How lines whose characters differ are scored, for the warning."""
        return "scored through a character alignment"

    def missing_predictions_outcome(self, scored_lines: int, gold_rest: Sequence[str]) -> str:
        """What happens to gold lines past the prediction's end, for the warning."""
        return "missing predictions scored as empty lines"

    def score_whole_files(self, gold: PathLike, pred: PathLike, **settings: Any) -> WholeFileResult:
        """Score two whole files (only a method that does not count line pairs).

        ``settings``: ``fmt`` (refused before any work when the method cannot render it),
        ``encoding``, ``pred_encoding``, ``dictionary`` and ``normalize`` as
        ``score_files`` takes them (refused by a method that has no use for them).
        """
        raise CwsBenchError(
            f"the {self.name} method counts pairs of lines",
            "score it with cws_bench.scoring.score_files",
        )

    def __repr__(self) -> str:
        return f"<counting method {self.name!r}>"


class IntervalMethod(CountingMethod):
    """The literature's counting: a word is correct iff its interval is a gold word's."""

    name = "interval"
    description = "a predicted word is correct iff its character interval is a gold word's"
    resamples_sentences = True


class SighanMethod(CountingMethod):
    """The SIGHAN bakeoff script's word-sequence diff (:mod:`cws_bench.scoring.sighan`)."""

    name = "sighan"
    description = "the official bakeoff script's word-sequence diff"
    counts_decoded_lines = True
    # The script reads bytes: a byte-order mark stays glued to the first word
    # of a file (and makes it a different word).
    keeps_byte_order_mark = True
    # It reads the two files only while both have a line.
    scores_missing_predictions = False
    # Its counts add up line by line: resampling sentences and counting them again
    # is resampling its per-sentence rows (scoring/per_sentence.py, method_rows).
    resamples_sentences = True
    has_sentence_rows = True

    def zero(self) -> AdditiveCounts:
        from cws_bench.scoring.sighan import SighanCounts

        return SighanCounts()

    def count_lines(
        self,
        gold_lines: Sequence[str],
        pred_lines: Sequence[str],
        words: Collection[str] | None,
        marks: tuple[str, str] = NO_MARKS,
    ) -> AdditiveCounts:
        from cws_bench.scoring.sighan import count_sighan_lines

        if marks != NO_MARKS and gold_lines:
            gold_lines = [marks[0] + gold_lines[0], *gold_lines[1:]]
            pred_lines = [marks[1] + pred_lines[0], *pred_lines[1:]]
        return count_sighan_lines(gold_lines, pred_lines, words)

    def sentence_row(self, gold_line: str, pred_line: str) -> tuple[int, int, int]:
        from cws_bench.scoring.sighan import count_sighan_line

        counts = count_sighan_line(gold_line, pred_line)
        return counts.matched, counts.test_words, counts.truth_words

    def buffer_counter(self, words: Collection[str] | None) -> BufferCounts | None:
        from cws_bench.scoring.sighan import BufferCounts

        return BufferCounts.create(words)

    def word_totals(self, counts: SegCounts, own: Any) -> tuple[int, int, int]:
        if own is None:  # a result made without the method's counts
            return super().word_totals(counts, own)
        return own.truth_words, own.test_words, own.matched

    def scores(
        self, interval: SegScores, own: Any, *, has_dictionary: bool, beta: float
    ) -> SegScores:
        if own is None:
            return interval
        # The script has no boundary figures: those stay the interval ones.
        words = own.scores(has_dictionary=has_dictionary, beta=beta)
        return replace(
            words,
            boundary_precision=interval.boundary_precision,
            boundary_recall=interval.boundary_recall,
            boundary_f1=interval.boundary_f1,
            extra=interval.extra,
        )

    def result_fields(self, own: Any) -> dict[str, int]:
        changes = ("insertions", "deletions", "substitutions")
        return {} if own is None else {name: getattr(own, name) for name in changes}

    def missing_predictions_outcome(self, scored_lines: int, gold_rest: Sequence[str]) -> str:
        missed = sum(len(line.split()) for line in gold_rest)
        return (
            f"only the {plural(scored_lines, 'line')} both have "
            f"{'is' if scored_lines == 1 else 'are'} scored, as the SIGHAN script "
            f"does ({plural(missed, 'gold word')} of the other lines not counted)"
        )

    def mismatch_outcome(self) -> str:
        return (
            "their words counted by the script's diff, their boundaries through a "
            "character alignment"
        )

    def summary_block(self, own: Any, pred_name: str, *, has_dictionary: bool) -> str:
        """The script's summary block (``--format sighan``)."""
        from cws_bench.scoring.sighan import format_sighan_summary

        return format_sighan_summary(own, pred_name, has_dictionary=has_dictionary)


class Conll18Method(CountingMethod):
    """The CoNLL 2018 UD shared task's Words score: whole files, not line pairs."""

    name = "conll18"
    description = "the CoNLL 2018 UD shared task's Words score (GOLD in CoNLL-U)"
    counts_line_pairs = False
    # Sentences whose texts agree add up to the file's Words score (a bake-off's
    # sentences are line pairs): their rows resample as the sighan method's do.
    resamples_sentences = True
    has_sentence_rows = True

    def sentence_row(self, gold_line: str, pred_line: str) -> tuple[int, int, int]:
        from cws_bench.scoring.conll18 import sentence_words_score

        score = sentence_words_score(gold_line.split(), pred_line.split())
        return score.correct, score.system, score.gold

    def score_whole_files(self, gold: PathLike, pred: PathLike, **settings: Any) -> WholeFileResult:
        """The shared task's scores of ``pred`` against the CoNLL-U file ``gold``.

        Raises:
            CwsBenchError: a format other than text or json, a dictionary, a
                normalisation (the shared task's script scores words as written).
        """
        from cws_bench.defaults import STANDARD_DICTIONARY
        from cws_bench.scoring.conll18 import FORMATS, evaluate_files
        from cws_bench.text.normalize import as_normalizer

        fmt = settings.get("fmt", "text")
        if fmt not in FORMATS:  # before reading the files
            from cws_bench.errors import UnknownFormatError

            raise UnknownFormatError(fmt, FORMATS, what="format of the conll18 method")
        dictionary = settings.get("dictionary")
        normalizer = as_normalizer(settings.get("normalize"))
        if dictionary not in (None, STANDARD_DICTIONARY) or normalizer is not None:
            raise CwsBenchError(
                "the conll18 method takes no dictionary and no normalisation",
                "the shared task's script scores words as written; use {0} for "
                "OOV recall or normalised scores",
                fixes=(Fix("method", "interval"),),
            )
        encoding = settings.get("encoding") or "utf-8"
        return evaluate_files(
            gold, pred, encoding=encoding, system_encoding=settings.get("pred_encoding")
        )


_REGISTRY: dict[str, CountingMethod] = {}


def register_method(method: CountingMethod) -> CountingMethod:
    """Add a counting method to the registry (its name must be new); returns it."""
    if method.name in _REGISTRY:
        raise ValueError(f"a counting method named {method.name!r} is already registered")
    _REGISTRY[method.name] = method
    return method


for _method in (IntervalMethod(), SighanMethod(), Conll18Method()):
    register_method(_method)


def methods() -> tuple[CountingMethod, ...]:
    """Every registered method, in registration order."""
    return tuple(_REGISTRY.values())


def line_methods() -> tuple[str, ...]:
    """The names of the methods that count line pairs (what the line scorers take)."""
    return tuple(m.name for m in _REGISTRY.values() if m.counts_line_pairs)


def get_method(name: str, *, line_pairs: bool = True) -> CountingMethod:
    """The registered method of this name; ``line_pairs`` refuses a method that scores
    whole files (conll18).

    Raises:
        CwsBenchError: no such method (or, with ``line_pairs``, one that does not
            count line pairs), with the names to use.
    """
    method = _REGISTRY.get(name)
    names = line_methods() if line_pairs else tuple(_REGISTRY)
    if method is None:
        raise CwsBenchError(f"unknown scoring method {name!r}", f"use one of: {', '.join(names)}")
    if line_pairs and not method.counts_line_pairs:
        raise CwsBenchError(
            f"the {name} method scores whole files, not pairs of lines",
            f"score it with cws_bench.scoring.{name}.evaluate_files (whole files), "
            f"or use one of: {', '.join(names)}",
        )
    return method


def _byte_order_mark(source: PathLike, encoding: str) -> str:
    """``"\\ufeff"`` if a UTF-8 file starts with a byte-order mark, else ``""``."""
    if os.fspath(source) == "-" or normalize_encoding(encoding) != "utf-8":
        return ""
    with open_binary(source) as f:
        return "\ufeff" if f.read(len(codecs.BOM_UTF8)) == codecs.BOM_UTF8 else ""
