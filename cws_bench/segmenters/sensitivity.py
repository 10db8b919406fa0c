"""Metric sensitivity: how much of a generation score, and of a gap between two systems, is
the segmenter's.

Chinese outputs have no spaces, so BLEU, ROUGE-L, CIDEr-D and token F1 are
computed on tokens some segmenter made. :func:`metric_sensitivity` scores
the same systems against the same references once per tokenizer (through
:func:`~cws_bench.segmenters.as_tokenizers.get_tokenizer` and the suite's
generation metrics, :func:`~cws_bench.metrics.generation.generation_scores_from_tokens`)
and reports, per metric, each system's value under each tokenizer, its
min/max/range, and for each pair of systems the gap under each tokenizer and
whether their order flips (one tokenizer puts the first ahead, another the
second; a tie flips nothing).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cws_bench.display.formats import Renderable
from cws_bench.display.tables import csv_table, markdown_table, text_table
from cws_bench.display.units import plural, units
from cws_bench.metrics.generation import GenerationScores, generation_scores_from_tokens
from cws_bench.segmenters.as_tokenizers import (
    SegmenterLike,
    Tokenizer,
    buildable_tokenizers,
    get_tokenizer,
    tokenize_groups,
)

__all__ = [
    "SENSITIVITY_SCORES",
    "MetricSensitivity",
    "metric_sensitivity",
]

SENSITIVITY_SCORES: tuple[tuple[str, str, str], ...] = (
    ("bleu", "bleu", "BLEU"),
    ("rouge", "rougeL", "ROUGE-L"),
    ("cider", "cider", "CIDEr-D"),
    ("f1", "f1", "token F1"),
)
"""(metric group, field of GenerationScores, title) of the scores whose spread is reported."""

TokenizerSpec = str | Callable[[str], Iterable[str]] | SegmenterLike | Tokenizer


def _scores_by_tokenizer(
    systems: Mapping[str, Sequence[str]],
    references: Sequence[Sequence[str]],
    tokenizer: Tokenizer,
    metrics: list[str],
) -> dict[str, GenerationScores]:
    """Each system's scores under one tokenizer; every line tokenized once, in one batch."""
    tokens = tokenize_groups(tokenizer, [*systems.values(), *references])
    ref_tokens = tokens[len(systems) :]
    return {
        name: generation_scores_from_tokens(
            outputs, ref_tokens, metrics=metrics, tokenizer=tokenizer.signature
        )
        for name, outputs in zip(systems, tokens)
    }


def metric_sensitivity(
    systems: Mapping[str, Sequence[str]],
    references: Sequence[Sequence[str]],
    *,
    tokenizers: Iterable[TokenizerSpec] | None = None,
) -> MetricSensitivity:
    """BLEU, ROUGE-L, CIDEr-D and token F1 of each system under each tokenizer.

    Args:
        systems: name -> one output text per item (every system the same items).
        references: per item, its reference texts (one or more).
        tokenizers: names (``char``, a segmenter), segmenters, callables or
            :class:`~cws_bench.segmenters.as_tokenizers.Tokenizer`; default ``char`` and
            every installed segmenter that builds without options (not ``space``: on text
            without spaces a line is one token).

    Raises:
        ValueError: no system, a system whose number of lines differs from the
            references', an item without reference, fewer than one tokenizer or
            two tokenizers of the same name.
        CwsBenchError: a segmenter that is unknown or not installed.

    Example:
        >>> found = metric_sensitivity({"a": ["猫吃鱼"], "b": ["猫吃肉"]}, [["猫吃鱼"]],
        ...                            tokenizers=["char"])
        >>> found.value("f1", "a", "char"), round(found.value("f1", "b", "char"), 4)
        (1.0, 0.6667)
    """
    if not systems:
        raise ValueError("no system to score")
    for name, lines in systems.items():
        if isinstance(lines, str) or len(lines) != len(references):
            raise ValueError(
                f"system {name}: {plural(len(lines), 'line')} but "
                f"{plural(len(references), 'reference list')}"
            )
    if any(isinstance(refs, str) or not refs for refs in references):
        raise ValueError("every item needs a list of one or more reference texts")
    skipped: dict[str, str] = {}
    if tokenizers is None:
        built, skipped = buildable_tokenizers()
        built = [t for t in built if t.name != "space"]
    else:
        built = [t if isinstance(t, Tokenizer) else get_tokenizer(t) for t in tokenizers]
    names = [t.signature for t in built]
    if not built or len(set(names)) != len(names):
        raise ValueError(f"the tokenizers must be one or more, each once: {', '.join(names)}")
    metrics = [group for group, _, _ in SENSITIVITY_SCORES]
    scores = {t.signature: _scores_by_tokenizer(systems, references, t, metrics) for t in built}
    return MetricSensitivity(
        systems=tuple(systems),
        tokenizers=tuple(names),
        scores=scores,
        items=len(references),
        references=max(len(refs) for refs in references) if references else 0,
        skipped=skipped,
    )


@dataclass(frozen=True)
class MetricSensitivity(Renderable):
    """Systems' scores under several tokenizers: spreads and order flips.

    Attributes:
        systems, tokenizers: in order.
        scores: tokenizer -> system -> its :class:`GenerationScores`.
        items, references: the items scored, the most references of one.
        skipped: segmenters left out of the default list, with the reason.
    """

    systems: tuple[str, ...]
    tokenizers: tuple[str, ...]
    scores: Mapping[str, Mapping[str, GenerationScores]]
    items: int
    references: int
    skipped: Mapping[str, str] = field(default_factory=dict)

    def value(self, score: str, system: str, tokenizer: str) -> float:
        """One score (a field of GenerationScores) of one system under one tokenizer."""
        return float(getattr(self.scores[tokenizer][system], score))

    def _metric(self, score: str, title: str) -> dict[str, Any]:
        per_system: list[dict[str, Any]] = []
        table = {
            system: {t: self.value(score, system, t) for t in self.tokenizers}
            for system in self.systems
        }
        for system, values in table.items():
            low, high = min(values, key=values.__getitem__), max(values, key=values.__getitem__)
            per_system.append(
                {
                    "system": system,
                    "values": values,
                    "min": values[low],
                    "min_tokenizer": low,
                    "max": values[high],
                    "max_tokenizer": high,
                    "range": values[high] - values[low],
                }
            )
        pairs = []
        for a, b in itertools.combinations(self.systems, 2):
            gaps = {t: table[a][t] - table[b][t] for t in self.tokenizers}
            ahead = {t: a if gap > 0 else b if gap < 0 else "tie" for t, gap in gaps.items()}
            pairs.append(
                {
                    "a": a,
                    "b": b,
                    "gaps": gaps,
                    "min_gap": min(gaps.values()),
                    "max_gap": max(gaps.values()),
                    "ahead": ahead,
                    "flips": min(gaps.values()) < 0 < max(gaps.values()),
                }
            )
        return {"metric": score, "title": title, "systems": per_system, "pairs": pairs}

    def metrics(self) -> list[dict[str, Any]]:
        """Per score of :data:`SENSITIVITY_SCORES`: each system's values, min, max and
        range, and each pair's gaps (first minus second) and whether their order flips."""
        return [self._metric(score, title) for _, score, title in SENSITIVITY_SCORES]

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe: the inputs' shape, the tokenizers, :meth:`metrics`, the skipped."""
        return {
            "systems": list(self.systems),
            "tokenizers": list(self.tokenizers),
            "items": self.items,
            "references": self.references,
            "metrics": self.metrics(),
            "skipped": dict(self.skipped),
        }

    FORMATS = ("text", "markdown", "json", "csv")

    def to_csv(self) -> str:
        """One row per metric, system and tokenizer; fractions."""
        rows = [
            [m["metric"], s["system"], t, v]
            for m in self.metrics()
            for s in m["systems"]
            for t, v in s["values"].items()
        ]
        return csv_table(["metric", "system", "tokenizer", "value"], rows)

    def to_text(self, *, scale: str | None = None, digits: int | None = None) -> str:
        """A table per metric, then the spreads and flips."""
        return self._tables("text", scale, digits)

    def to_markdown(self, *, scale: str | None = None, digits: int | None = None) -> str:
        return self._tables("markdown", scale, digits)

    def _tables(self, fmt: str, scale: str | None, digits: int | None) -> str:
        unit = units(scale, digits)
        table = text_table if fmt == "text" else markdown_table
        blocks = [
            f"{plural(len(self.systems), 'system')}, {plural(self.items, 'item')}, "
            f"up to {plural(self.references, 'reference')} each; {unit.label}"
        ]
        blocks.extend(self._render_metric(metric, unit, table, fmt) for metric in self.metrics())
        return "\n\n".join(blocks)

    def _render_metric(self, metric: dict[str, Any], unit: Any, table: Any, fmt: str) -> str:
        pairs = metric["pairs"]
        header = [
            "tokenizer",
            *self.systems,
            *(f"{p['a']} - {p['b']}" for p in pairs),
        ]
        body = [
            [
                t,
                *(unit.score(s["values"][t]) for s in metric["systems"]),
                *(_signed(unit, p["gaps"][t]) for p in pairs),
            ]
            for t in self.tokenizers
        ]
        title = f"{'## ' if fmt == 'markdown' else ''}{metric['title']}"
        lines = [title, "", table(header, body), ""]
        item = "- " if fmt == "markdown" else ""
        for s in metric["systems"]:
            lines.append(
                f"{item}{s['system']}: {unit.score(s['min'])} ({s['min_tokenizer']}) to "
                f"{unit.score(s['max'])} ({s['max_tokenizer']}), range {unit.score(s['range'])}"
            )
        for p in pairs:
            verdict = "the order FLIPS" if p["flips"] else "the order holds"
            lines.append(
                f"{item}{p['a']} - {p['b']}: {_signed(unit, p['min_gap'])} to "
                f"{_signed(unit, p['max_gap'])}; {verdict}"
            )
        return "\n".join(lines)


def _signed(unit: Any, value: float) -> str:
    text = unit.score(abs(value))
    return f"-{text}" if value < 0 else f"+{text}"
