"""A streaming segmentation metric for training and evaluation loops.

As Hugging Face ``evaluate`` and torchmetrics: create it once, feed it batches,
read the scores at the end. It keeps only additive counts, so memory does not
grow with the data, and metrics filled in different processes add up
(:meth:`SegmentationMetric.merge`); however the data is cut into batches,
:meth:`SegmentationMetric.compute` gives what
:func:`~cws_bench.scoring.score_sentences` gives on all of it.

Each prediction and reference is a list of words or a string of words
separated by whitespace; a batch is a sequence of those, never one string:

>>> m = SegmentationMetric()
>>> predictions = [["结婚", "的"], "和尚 未 结婚"]
>>> m.add_batch(predictions=predictions, references=["结婚 的", "和 尚未 结婚"])
>>> m.add(prediction="都 应该", reference=["都", "应该"])
>>> r = m.compute()
>>> round(r.precision, 4), round(r.recall, 4), r.counts.sentences
(0.7143, 0.7143, 3)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from cws_bench.errors import CwsBenchError, LineCountMismatchError
from cws_bench.scoring.api import Method
from cws_bench.scoring.engine import Scorer
from cws_bench.scoring.inputs import normalized_dictionary, scoring_dictionary
from cws_bench.scoring.methods import get_method
from cws_bench.scoring.per_sentence import Row, line_rows
from cws_bench.scoring.result import ScoreResult
from cws_bench.text.checksums import SentenceDigest
from cws_bench.text.joined import JoinedWords
from cws_bench.text.normalize import as_normalizer

if TYPE_CHECKING:
    from cws_bench.text.dictionary import WordsLike
    from cws_bench.text.normalize import Normalizer

__all__ = ["SegmentationMetric"]


def _as_line(item: Any, what: str, index: int) -> str:
    """One prediction or reference as a line of space-separated words."""
    if isinstance(item, str):
        return " ".join(item.split())
    if isinstance(item, JoinedWords):  # a long sentence: its line as it is, no word made
        return item.line
    if isinstance(item, Sequence) and all(isinstance(word, str) for word in item):
        return " ".join(word for word in item if word)
    raise TypeError(
        f"{what}[{index}] is a {type(item).__name__}: give a list of words or a string "
        f"of words separated by spaces"
    )


def _as_lines(batch: Any, what: str) -> list[str]:
    if isinstance(batch, str):
        raise TypeError(
            f"{what} is one string: give a sequence of sentences, each a list of words "
            f"or a string of words separated by spaces (e.g. [{batch[:20]!r}])"
        )
    if not isinstance(batch, Iterable):
        raise TypeError(f"{what} must be a sequence of sentences, not {type(batch).__name__}")
    return [_as_line(item, what, index) for index, item in enumerate(batch)]


class SegmentationMetric:
    """Accumulate segmentation counts batch by batch; score them at the end.

    ``dictionary``, ``method``, ``normalize`` and ``beta`` are as
    :func:`~cws_bench.scoring.score_sentences` takes them, and :meth:`compute` gives
    what it gives on all the data so far, at any time. ``per_sentence`` keeps each
    scored sentence's row of counts until :meth:`take_rows` takes them.
    """

    def __init__(
        self,
        dictionary: WordsLike | None = None,
        *,
        method: Method = "interval",
        normalize: str | Normalizer | None = None,
        beta: float = 1.0,
        per_sentence: bool = False,
    ) -> None:
        get_method(method)  # raises for an unknown method, naming the known ones
        self.method = method
        self.beta = beta
        self.per_sentence = per_sentence
        self._normalizer = as_normalizer(normalize)
        self._dictionary = normalized_dictionary(
            scoring_dictionary(None, dictionary), self._normalizer
        )
        self.reset()

    def reset(self) -> None:
        """Forget every batch added so far."""
        self._scorer = Scorer(
            self._dictionary,
            method=self.method,
            per_line=self.per_sentence,
            normalizer=self._normalizer,
        )
        self._gold_digest = SentenceDigest()
        self._merged = False

    @property
    def sentences_seen(self) -> int:
        """How many sentence pairs were added (empty references included)."""
        return self._scorer.line_no

    def add(self, *, prediction: Sequence[str] | str, reference: Sequence[str] | str) -> None:
        """Add one sentence pair."""
        self.add_batch(predictions=[prediction], references=[reference])

    def add_batch(
        self,
        *,
        predictions: Iterable[Sequence[str] | str],
        references: Iterable[Sequence[str] | str],
    ) -> None:
        """Add a batch of sentence pairs, paired in order.

        Raises:
            TypeError: a batch is one string, or an item is neither a string
                nor a sequence of strings.
            LineCountMismatchError: the two batches differ in length.
        """
        pred_lines = _as_lines(predictions, "predictions")
        gold_lines = _as_lines(references, "references")
        if len(gold_lines) != len(pred_lines):
            raise LineCountMismatchError(
                "references", len(gold_lines), "predictions", len(pred_lines)
            )
        for line in gold_lines:
            self._gold_digest.add_line(line)
        self._scorer.add_all(gold_lines, pred_lines)

    def take_rows(self) -> list[Row]:
        """The rows of the sentences added since the last call, in order, then forgotten:
        a long stream of sentences keeps no counts per sentence for long.

        >>> m = SegmentationMetric(per_sentence=True)
        >>> m.add_batch(predictions=["结婚 的", "", "和尚 未"],
        ...             references=["结婚 的", "", "和 尚未"])
        >>> m.take_rows(), m.take_rows()
        ([(2, 2, 2), (0, 2, 2)], [])

        Raises:
            ValueError: the metric was made without ``per_sentence``.
        """
        acc = self._scorer.acc
        if acc.lines is None:
            raise ValueError("this metric keeps no rows: make it with per_sentence=True")
        lines, acc.lines = acc.lines, []
        return line_rows(lines)

    def _settings(self) -> tuple[str, str | None, str, float]:
        dictionary = self._dictionary.checksum if self._dictionary is not None else None
        normalization = self._normalizer.name if self._normalizer is not None else "none"
        return self.method, dictionary, normalization, self.beta

    def merge(self, other: SegmentationMetric) -> SegmentationMetric:
        """Add ``other``'s data after this metric's (as if its batches came next).

        Combines metrics filled in several processes (a metric pickles with its
        dictionary); returns ``self``. A merged metric's signature has no gold checksum
        (a digest of the whole sequence of references, not of its parts).

        Raises:
            CwsBenchError: the two metrics were set up differently.
        """
        if not isinstance(other, SegmentationMetric):
            raise TypeError(f"cannot merge a {type(other).__name__} into a SegmentationMetric")
        if other._settings() != self._settings():
            raise CwsBenchError(
                "cannot merge segmentation metrics set up differently "
                f"(method, dictionary, normalisation, beta: {self._settings()} "
                f"against {other._settings()})",
                "create every metric with the same dictionary and options",
            )
        mine, theirs = self._scorer, other._scorer
        offset = mine.line_no
        mine.acc.merge(theirs.acc, mine.max_examples, line_offset=offset)
        mine.line_no += theirs.line_no
        self._merged = True
        return self

    def __iadd__(self, other: SegmentationMetric) -> SegmentationMetric:
        return self.merge(other)

    def compute(
        self,
        *,
        predictions: Iterable[Sequence[str] | str] | None = None,
        references: Iterable[Sequence[str] | str] | None = None,
    ) -> ScoreResult:
        """The scores of everything added so far (see :class:`ScoreResult`).

        With ``predictions`` and ``references`` (as Hugging Face ``evaluate`` takes
        them), that batch is added first, so one call scores one batch.

        >>> r = SegmentationMetric().compute(predictions=["结婚 的"], references=["结婚 的"])
        >>> r["f1"], r.f1
        (1.0, 1.0)
        """
        if (predictions is None) != (references is None):
            raise TypeError("compute() takes both predictions and references, or neither")
        if predictions is not None and references is not None:
            self.add_batch(predictions=predictions, references=references)
        gold = None if self._merged else self._gold_digest.hexdigest()
        return self._scorer.result(gold, [], beta=self.beta)

    def __getstate__(self) -> dict[str, Any]:
        # The scorer holds the compiled dictionary lookup and hashlib's digest,
        # neither of which pickles: carry the settings and the counts, and
        # rebuild the rest. A digest's input is gone, so a metric that crossed
        # a process has no gold checksum, like a merged one.
        return {
            "method": self.method,
            "beta": self.beta,
            "normalize": self._normalizer.name if self._normalizer is not None else None,
            "dictionary": (
                (self._dictionary.words, self._dictionary.name)
                if self._dictionary is not None
                else None
            ),
            "per_sentence": self.per_sentence,
            "acc": self._scorer.acc,
            "line_no": self._scorer.line_no,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.method = state["method"]
        self.beta = state["beta"]
        self.per_sentence = state.get("per_sentence", False)
        self._normalizer = as_normalizer(state["normalize"])
        from cws_bench.text.dictionary import Dictionary

        words = state["dictionary"]
        self._dictionary = None if words is None else Dictionary(*words)
        self.reset()
        self._scorer.acc = state["acc"]
        self._scorer.line_no = state["line_no"]
        self._merged = True

    def __repr__(self) -> str:
        return (
            f"SegmentationMetric(method={self.method!r}, sentences={self.sentences_seen}, "
            f"dictionary={'yes' if self._dictionary is not None else 'no'})"
        )
