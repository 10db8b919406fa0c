"""Generation scores of raw text: the tokenizer-by-name seam between the metrics and the segmenters.

:mod:`cws_bench.metrics.generation` scores tokens and knows nothing of
segmentation, as scikit-learn's metrics take ``y_true`` and ``y_pred``.
This module is the caller's side: it turns text into tokens (``"char"``,
every non-space character; ``"space"``, whitespace-separated words; any
cws-bench segmenter by name, or a callable) and hands the tokens to the
metrics. Chinese answers have no spaces, so the segmenter changes token F1
and BLEU, and :func:`compare_tokenizers` shows by how much.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

from cws_bench.display.formats import Renderable
from cws_bench.display.tables import csv_table, markdown_table, text_table
from cws_bench.display.units import Units, plural, units
from cws_bench.metrics.generation import (
    GenerationScores,
    MultiReference,
    generation_scores_from_tokens,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "BUILTIN_TOKENIZERS",
    "DEFAULT_METRICS",
    "REPORT_FORMATS",
    "SegmenterLike",
    "Tokenizer",
    "TokenizerComparison",
    "buildable_tokenizers",
    "compare_tokenizers",
    "generation_scores",
    "get_tokenizer",
    "tokenize_characters",
    "tokenize_groups",
]

DEFAULT_METRICS = ("em", "f1", "bleu", "rouge")
"""The metric groups computed when none are named."""

# ---------------------------------------------------------------------------
# Tokenizers


def tokenize_characters(text: str) -> list[str]:
    """Every character but whitespace is a token.

    >>> tokenize_characters("猫猫 吃鱼")
    ['猫', '猫', '吃', '鱼']
    """
    return [c for c in text if not c.isspace()]


BUILTIN_TOKENIZERS: dict[str, Callable[[str], list[str]]] = {
    "char": tokenize_characters,
    "space": str.split,  # runs of non-whitespace (U+3000 counts as whitespace)
}
"""Tokenizers that need no segmenter; every other name is a cws-bench segmenter."""


@runtime_checkable
class SegmenterLike(Protocol):
    """Anything with a name and ``segment(lines) -> list[list[str]]`` (a cws-bench segmenter)."""

    @property
    def name(self) -> str: ...

    def segment(self, lines: Sequence[str]) -> list[list[str]]: ...


@dataclass(frozen=True)
class Tokenizer:
    """A named batch tokenizer: ``tokenizer(lines) -> one token list per line``.

    Attributes:
        name: ``char``, ``space``, a segmenter's name, or a callable's name.
        version: the segmenter's version, or None.
    """

    name: str
    tokenize_batch: Callable[[Sequence[str]], list[list[str]]] = field(repr=False)
    version: str | None = None

    def __call__(self, lines: Sequence[str]) -> list[list[str]]:
        if isinstance(lines, str):
            raise ValueError("a tokenizer takes a list of lines, not one string")
        return self.tokenize_batch(list(lines))

    @property
    def signature(self) -> str:
        """``name`` or ``name-version``, for reports."""
        return self.name if self.version is None else f"{self.name}-{self.version}"


def _per_line(
    function: Callable[[str], Iterable[str]],
) -> Callable[[Sequence[str]], list[list[str]]]:
    return lambda lines: [list(function(line)) for line in lines]


def _from_segmenter(segmenter: SegmenterLike) -> Callable[[Sequence[str]], list[list[str]]]:
    # Segmenters see raw lines; whitespace between words is not a token.
    return lambda lines: [
        [word for word in (w.strip() for w in words) if word] for words in segmenter.segment(lines)
    ]


def tokenize_groups(tokenizer: Tokenizer, groups: Sequence[Sequence[str]]) -> list[list[list[str]]]:
    """Each group's texts tokenized, every text of every group in one batch.

    >>> tokenize_groups(get_tokenizer("space"), [["a b"], [], ["c", "d e"]])
    [[['a', 'b']], [], [['c'], ['d', 'e']]]
    """
    tokens = tokenizer([text for group in groups for text in group])
    ends = itertools.accumulate(map(len, groups))
    return [tokens[end - len(group) : end] for group, end in zip(groups, ends)]


def get_tokenizer(
    tokenizer: str | Callable[[str], Iterable[str]] | SegmenterLike, **options: Any
) -> Tokenizer:
    """Resolve a tokenizer: ``"char"``, ``"space"``, a segmenter name, a segmenter or a callable.

    A name other than ``char`` and ``space`` is looked up in the cws-bench
    segmenter registry (imported only then, so the metrics never pay for
    it); ``options`` go to the segmenter. A callable takes one string and
    returns its tokens; an object with ``segment(lines)`` is used as a
    batch segmenter.

    Raises:
        CwsBenchError: the segmenter is unknown or not installed (the hint
            says how to install it).

    Example:
        >>> get_tokenizer("char")(["猫吃鱼", "狗"])
        [['猫', '吃', '鱼'], ['狗']]
    """
    if isinstance(tokenizer, SegmenterLike):
        return Tokenizer(
            str(tokenizer.name), _from_segmenter(tokenizer), getattr(tokenizer, "version", None)
        )
    if callable(tokenizer):
        name = getattr(tokenizer, "__name__", type(tokenizer).__name__)
        return Tokenizer(name, _per_line(tokenizer))
    if not isinstance(tokenizer, str):
        raise TypeError(f"tokenizer must be a name or a callable, got {type(tokenizer).__name__}")
    if tokenizer in BUILTIN_TOKENIZERS:
        if options:
            raise ValueError(f"the {tokenizer!r} tokenizer takes no options")
        return Tokenizer(tokenizer, _per_line(BUILTIN_TOKENIZERS[tokenizer]))
    from cws_bench.segmenters import get_segmenter

    return get_tokenizer(get_segmenter(tokenizer, **options))


def buildable_tokenizers() -> tuple[list[Tokenizer], dict[str, str]]:
    """``char``, ``space`` and every installed segmenter that builds without options and
    segments, as tokenizers; the segmenters skipped with the reason."""
    from cws_bench.errors import CwsBenchError
    from cws_bench.segmenters import get_segmenter, list_segmenters

    built = [get_tokenizer(name) for name in BUILTIN_TOKENIZERS]
    skipped: dict[str, str] = {}
    for info in list_segmenters():
        if not info.available:
            skipped[info.name] = f"not installed ({info.install or info.reason})"
            continue
        try:
            segmenter = get_segmenter(info.name)
            # some build without options but cannot segment (fmm without a word list)
            segmenter.segment(["中文分词"])
        except CwsBenchError as e:
            skipped[info.name] = e.message
            continue
        built.append(get_tokenizer(segmenter))
    return built, skipped


# ---------------------------------------------------------------------------
# Scores of text


def generation_scores(
    predictions: Sequence[str],
    references: Sequence[Sequence[str]],
    *,
    tokenizer: str | Callable[[str], Iterable[str]] | SegmenterLike | Tokenizer = "char",
    metrics: Iterable[str] = DEFAULT_METRICS,
    multi_reference: MultiReference = "best",
    weights: Mapping[str, float] | Callable[[str], float] | None = None,
    clipped: bool = True,
) -> GenerationScores:
    """Corpus-level scores of raw predictions against raw references under one tokenizer.

    Args:
        predictions: one text per item.
        references: per item, its reference texts.
        tokenizer: ``"char"``, ``"space"``, a segmenter name, a segmenter, a
            callable (one string to tokens) or a :class:`Tokenizer`.
        metrics: any of :data:`cws_bench.metrics.generation.METRICS` (``em``,
            ``f1``, ``bleu``, ``rouge``, ``rouge-w``, ``rouge-s``,
            ``rouge-su``, ``rouge-lsum``, ``weighted``, ``cider``).
        multi_reference, weights, clipped: as in
            :func:`cws_bench.metrics.generation.generation_scores_from_tokens`.

    Raises:
        ValueError: different numbers of predictions and reference lists, or
            an unknown metric.
        CwsBenchError: the segmenter is unknown or not installed.

    Example:
        >>> scores = generation_scores(["猫猫猫吃鱼鱼鱼"], [["猫吃鱼"]], metrics=["em", "f1"])
        >>> scores.exact_match, scores.precision == 3 / 7, scores.recall, scores.f1
        (0.0, True, 1.0, 0.6)
    """
    if isinstance(predictions, str) or len(predictions) != len(references):
        raise ValueError(
            f"{plural(len(predictions), 'prediction')} but "
            f"{plural(len(references), 'reference list')}"
        )
    resolved = tokenizer if isinstance(tokenizer, Tokenizer) else get_tokenizer(tokenizer)
    texts = []
    for refs in references:
        if isinstance(refs, str):
            raise ValueError(
                "references must hold a list of reference texts per item; wrap a single "
                "reference in a list: [[reference] for reference in references]"
            )
        texts.append(list(refs))
        if not texts[-1]:
            raise ValueError("every item needs at least one reference")
    pred_tokens, *ref_tokens = tokenize_groups(resolved, [predictions, *texts])
    return generation_scores_from_tokens(
        pred_tokens,
        ref_tokens,
        metrics=metrics,
        tokenizer=resolved.signature,
        multi_reference=multi_reference,
        weights=weights,
        clipped=clipped,
    )


@dataclass(frozen=True)
class TokenizerComparison(Renderable):
    """The same corpus scored under several tokenizers, and the segmenters that were skipped.

    :meth:`render` writes one of :attr:`FORMATS`; ``pred`` and ``references`` (the number
    of reference files) name the inputs on the text format's first line, ``scale`` and
    ``digits`` set how text and Markdown print scores (:mod:`cws_bench.display.units`).
    """

    FORMATS: ClassVar[tuple[str, ...]] = ("text", "json", "csv", "markdown")

    rows: tuple[GenerationScores, ...]
    skipped: Mapping[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        """The command line's table (:meth:`to_text`)."""
        return self.to_text()

    def __repr__(self) -> str:
        names = ", ".join(row.tokenizer for row in self.rows)
        return f"TokenizerComparison(tokenizers=[{names}], skipped={len(self.skipped)})"

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe: one dict per tokenizer and the skipped segmenters with the reason."""
        return {"rows": [row.to_dict() for row in self.rows], "skipped": dict(self.skipped)}

    def to_frame(self) -> pd.DataFrame:
        """One row per tokenizer, one column per score (BLEU's parts left out)."""
        import pandas as pd

        frame = pd.DataFrame([row.to_dict() for row in self.rows])
        return frame.drop(columns="bleu_details").set_index("tokenizer")

    # Rendering: what ``cws-bench metrics generation`` prints, one method per format.

    def columns(self) -> list[tuple[str, str]]:
        """(field, title) of the scores some row has, in :data:`SCORE_COLUMNS` order."""
        return [
            (name, title)
            for name, title in SCORE_COLUMNS
            if any(getattr(row, name) is not None for row in self.rows)
        ]

    def to_csv(self) -> str:
        """One row per tokenizer: items, references and the raw scores (fractions)."""
        columns = [name for name, _ in self.columns()]
        return csv_table(
            ["tokenizer", "items", "references", *columns],
            [
                [row.tokenizer, row.items, row.references, *(getattr(row, c) for c in columns)]
                for row in self.rows
            ],
        )

    def _score_rows(self, unit: Units) -> tuple[list[str], list[list[str]]]:
        columns = self.columns()
        header = ["tokenizer", *(title for _, title in columns)]
        body = [
            [row.tokenizer, *(unit.score(getattr(row, name)) for name, _ in columns)]
            for row in self.rows
        ]
        return header, body

    def to_markdown(self, *, scale: str | None = None, digits: int | None = None) -> str:
        """A Markdown table, one row per tokenizer, scores in % (unless ``scale``)."""
        return markdown_table(*self._score_rows(units(scale, digits)))

    def to_text(
        self,
        *,
        pred: str = "pred",
        references: int = 1,
        scale: str | None = None,
        digits: int | None = None,
    ) -> str:
        """A line naming the inputs, then the aligned table (scores in %, unless ``scale``)."""
        unit = units(scale, digits)
        items = self.rows[0].items if self.rows else 0
        files = plural(references, "reference file")
        title = f"{pred}: {plural(items, 'line')} against {files} ({unit.label})"
        return f"{title}\n{text_table(*self._score_rows(unit))}"


REPORT_FORMATS: tuple[str, ...] = TokenizerComparison.FORMATS
"""The formats :meth:`TokenizerComparison.render` writes."""

SCORE_COLUMNS: tuple[tuple[str, str], ...] = (
    ("exact_match", "EM"),
    ("precision", "P"),
    ("recall", "R"),
    ("f1", "F1"),
    ("bleu", "BLEU"),
    ("rouge1", "ROUGE-1"),
    ("rouge2", "ROUGE-2"),
    ("rougeL", "ROUGE-L"),
    ("rougeW", "ROUGE-W"),
    ("rougeS", "ROUGE-S4"),
    ("rougeSU", "ROUGE-SU4"),
    ("rougeLsum", "ROUGE-Lsum"),
    ("weighted_precision", "wP"),
    ("weighted_recall", "wR"),
    ("weighted_f1", "wF1"),
    ("cider", "CIDEr-D"),
)
"""(field of GenerationScores, column title) of the generation tables, in order."""


def compare_tokenizers(
    predictions: Sequence[str],
    references: Sequence[Sequence[str]],
    *,
    tokenizers: Iterable[str | Callable[[str], Iterable[str]] | SegmenterLike] | None = None,
    metrics: Iterable[str] = DEFAULT_METRICS,
    multi_reference: MultiReference = "best",
    weights: Mapping[str, float] | Callable[[str], float] | None = None,
    clipped: bool = True,
) -> TokenizerComparison:
    """The same scores under several tokenizers, to see how much the segmenter alone moves them.

    Args:
        predictions: one text per item.
        references: per item, its reference texts.
        tokenizers: the tokenizers; default ``char``, ``space`` and every
            segmenter that is installed and needs no options.
        metrics, multi_reference, weights, clipped: as in :func:`generation_scores`.

    Returns:
        TokenizerComparison: one GenerationScores per tokenizer, in order.

    Example:
        >>> table = compare_tokenizers(["猫 吃鱼"], [["猫 吃 鱼"]], tokenizers=["char", "space"],
        ...                            metrics=["f1"])
        >>> [(row.tokenizer, round(row.f1, 2)) for row in table.rows]
        [('char', 1.0), ('space', 0.4)]
    """
    metrics = list(metrics)
    options: dict[str, Any] = {
        "multi_reference": multi_reference,
        "weights": weights,
        "clipped": clipped,
    }
    # check the metrics (and their options) before building any segmenter
    generation_scores_from_tokens([], [], metrics=metrics, **options)
    if tokenizers is None:
        built, skipped = buildable_tokenizers()
    else:
        built, skipped = [get_tokenizer(t) for t in tokenizers], {}
    rows = tuple(
        generation_scores(predictions, references, tokenizer=tokenizer, metrics=metrics, **options)
        for tokenizer in built
    )
    return TokenizerComparison(rows, skipped)
