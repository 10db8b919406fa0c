"""Renderings of a diff: plain text for the terminal, JSON for machines, one HTML page.

The renderers never compute: every number comes from the
:class:`~cws_bench.regression.diff.SegmentationDiff` (``to_dict()`` is the
JSON). Scores are shown as percentages with two decimals, as ``cws-bench
score`` prints them, so a difference reads in points of F1.
"""

from __future__ import annotations

import functools
import io
import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import islice
from typing import IO, TYPE_CHECKING, Any

from cws_bench import __version__
from cws_bench.display.formats import render_in
from cws_bench.display.units import Units, format_p_value, percent, plural, share, units
from cws_bench.regression.changes import (
    KINDS,
    LISTS,
    OUTCOMES,
    Change,
    ChangePattern,
    LineChanges,
    LineDiff,
    differing_lines,
)
from cws_bench.regression.check import CheckResult
from cws_bench.regression.diff import SegmentationDiff
from cws_bench.regression.junit import render_junit
from cws_bench.score_registry import compared_scores

if TYPE_CHECKING:
    from cws_bench.regression.baseline import Baseline
    from cws_bench.regression.gold import GoldComparison
    from cws_bench.regression.tokens import TokenDiff

__all__ = [
    "CHECK_FORMATS",
    "DIFF_FORMATS",
    "HTML_LINES",
    "HTML_PAGE",
    "example_parts",
    "line_kinds",
    "line_pieces",
    "render_baseline_text",
    "render_check",
    "render_check_json",
    "render_check_text",
    "render_diff",
    "render_diff_html",
    "render_diff_json",
    "render_diff_text",
    "write_diff_json",
]

JSON_STYLE: dict[str, Any] = {"ensure_ascii": False, "indent": 2}
"""How a diff is written as JSON."""

SHOWN_PATTERNS = 10
"""Patterns of change the text format lists (JSON and HTML keep all that the diff kept)."""

HTML_LINES = 2000
"""Changed lines the HTML page holds (the first ones, in order; the JSON output has all)."""

HTML_LINE_WORDS = 5000
"""Words of each side of a changed line the HTML page shows (a block is kept whole); the
rest is left out with a note (the JSON output has every word)."""


def _clipped(words: Sequence[str], limit: int) -> str:
    """The first ``limit`` words joined by spaces, and how many are left out."""
    if len(words) <= limit:
        return " ".join(words)
    return " ".join(islice(words, limit)) + f" … {len(words) - limit:,} more words"


HTML_PAGE = 100
"""Changed lines the HTML page shows at once: the others are a page away (or filtered out)."""

KIND_LABELS = {"split": "split", "merge": "merged", "cross": "boundary moved"}


EXAMPLE_WINDOW = 8
"""Words of the example sentence shown on each side of a change."""


def example_parts(
    pattern: ChangePattern, *, window: int = EXAMPLE_WINDOW
) -> list[tuple[str, bool]]:
    """A pattern's example sentence around its first occurrence: (text, is the change) parts.

    >>> from cws_bench.regression.diff import diff_segmentations
    >>> a, b = ["他", "说", "研究", "人员", "说"], ["他", "说", "研究人员", "说"]
    >>> example_parts(diff_segmentations([a], [b]).patterns[0], window=1)
    [('… 说 ', False), ('研究 人员', True), (' 说', False)]
    """
    words = pattern.sentence.split(" ")
    start, end = pattern.index, pattern.index + len(pattern.a)
    low, high = max(0, start - window), min(len(words), end + window)
    before = ("… " if low > 0 else "") + " ".join(words[low:start])
    after = " ".join(words[end:high]) + (" …" if high < len(words) else "")
    parts = [
        (before + " " if before else "", False),
        (" ".join(words[start:end]), True),
        (" " + after if after else "", False),
    ]
    return [part for part in parts if part[0]]


def _pattern_line(pattern: ChangePattern, gold: bool) -> str:
    text = f"{' '.join(pattern.a)} → {' '.join(pattern.b)}"
    outcome = ""
    if gold:
        counts = (f"{o} {getattr(pattern, o)}" for o in _pattern_outcomes(pattern, gold))
        outcome = f"  ({', '.join(counts)})"
    example = "".join(f"[{part}]" if marked else part for part, marked in example_parts(pattern))
    return (
        f"  {pattern.count:>5}×  {KIND_LABELS[pattern.kind]:<14} {text}{outcome}\n"
        f"          line {pattern.line}: {example}"
    )


def _ids(ids: tuple[int, ...], limit: int = 12) -> str:
    """Token ids as a list, cut after ``limit``.

    >>> _ids((1, 2, 3), 2)
    '[1, 2, …]'
    """
    shown = ", ".join(map(str, ids[:limit]))
    return f"[{shown}{', …' if len(ids) > limit else ''}]"


def _token_lines(tokens: TokenDiff) -> list[str]:
    """The token-id part of a text diff: counts, then each example with its ids."""
    out = [
        f"  token ids: {tokens.changed:,} of {plural(tokens.lines, 'line')} changed "
        f"({share(tokens.changed, tokens.lines, empty='0.0%')}): "
        f"{tokens.same_boundaries:,} with every "
        f"boundary kept, {tokens.moved_boundaries:,} with boundaries moved; "
        f"tokens {tokens.a_tokens:,} → {tokens.b_tokens:,}"
    ]
    for example in tokens.examples:
        how = "boundaries kept" if example.same_boundaries else "boundaries moved"
        out.append(f"    line {example.line} ({how}): {' '.join(example.a_words)[:60]}")
        out.append(f"      A {_ids(example.a_ids)}")
        out.append(f"      B {_ids(example.b_ids)}")
    return out


def render_diff_text(
    diff: SegmentationDiff,
    *,
    shown: int = SHOWN_PATTERNS,
    scale: str | None = None,
    digits: int | None = None,
) -> str:
    """The diff as plain text for the terminal.

    Args:
        shown: how many of the most frequent patterns of change to list.
        scale, digits: how scores print (:mod:`cws_bench.display.units`; default
            percentages with two decimals).
    """
    unit = units(scale, digits)
    kinds = ", ".join(
        f"{counts['changes']:,} {KIND_LABELS[kind]}" for kind, counts in diff.kinds.items()
    )
    out = [
        f"{diff.a_name} → {diff.b_name}: {plural(diff.lines, 'line')}, {diff.changed_lines:,} "
        f"changed ({share(diff.changed_lines, diff.lines, empty='0.0%')})",
        f"  words: {diff.a_words:,} → {diff.b_words:,}; {diff.changed_a_words:,} of A's words "
        f"are not words of B, {diff.changed_b_words:,} of B's are new",
        f"  changes: {diff.changes:,} ({kinds})",
    ]
    if diff.settings.get("normalize"):
        out.append(f"  compared after normalising: {diff.settings['normalize']}")
    if diff.text_differences:
        out.append(
            f"  {differing_lines(diff.text_differences)} in A and B "
            "(words matched through a character alignment, not in the kinds of change):"
        )
        for example in diff.text_examples:
            out.append(f"    line {example.line}: A {example.a[:60]!r}")
            out.append(f"    {' ' * len(str(example.line))}       B {example.b[:60]!r}")
    if diff.token_ids is not None:
        out.extend(_token_lines(diff.token_ids))
    if diff.oov_words is not None:
        out.append(
            f"  words not in {diff.settings.get('dictionary')}: {diff.oov_words['a']:,} in A, "
            f"{diff.oov_words['b']:,} in B"
        )
    gold = diff.gold
    if gold is not None:
        outcomes = gold.outcomes
        out.append(
            f"against {diff.gold_name}: {plural(outcomes['fixed'], 'change')} fixed agreement, "
            f"{outcomes['broke']:,} broke it, {outcomes['neither']:,} neither; correct words "
            f"{gold.a_scores['correct_words']:,} → {gold.b_scores['correct_words']:,} "
            f"({gold.correct_change:+,})"
        )
        out.append(f"  {'':<12} {'A':>7} {'B':>7} {'Δ':>7}  {'p-value':>7}")
        for row in _compared(gold):
            test = row["test"]
            out.append(
                f"  {row['label']:<12} {unit.score(row['a']):>7} {unit.score(row['b']):>7} "
                f"{unit.points(row['difference']):>7}  "
                f"{format_p_value(test.p_value if test else None):>7}"
            )
        if gold.tests:
            test = gold.tests["f1"]
            out.append(
                f"  {unit.label}; p: two-sided paired bootstrap over "
                f"{plural(test.items, 'sentence')}, {plural(test.n_resamples, 'resample')}, "
                f"seed {test.seed}"
            )
    if diff.patterns:
        listed = min(shown, len(diff.patterns))
        out.append(
            f"most frequent changes ({listed} of {diff.distinct_patterns:,} distinct; A → B):"
        )
        out.extend(_pattern_line(p, gold is not None) for p in diff.patterns[:shown])
    out.extend(f"warning: {warning}" for warning in diff.warnings)
    return "\n".join(line.rstrip() for line in out)


def render_diff_json(diff: SegmentationDiff) -> str:
    """The diff as JSON (:meth:`SegmentationDiff.to_dict`: fractions in [0, 1])."""
    out = io.StringIO()
    write_diff_json(diff, out)
    return out.getvalue()


def write_diff_json(diff: SegmentationDiff, out: IO[str]) -> None:
    """Write :func:`render_diff_json`'s text to ``out``, the changed lines one at a time.

    The text is ``json.dumps(diff.to_dict(), ensure_ascii=False, indent=2)``, made
    without holding every changed line at once: the summary is dumped with no line,
    then each line's dict, indented as the whole dump would indent it, is written in
    its place.
    """
    head = json.dumps({**diff.to_dict(line_diffs=False), "line_diffs": []}, **JSON_STYLE)
    if not diff.line_diffs:
        out.write(head)
        return
    empty = "[]\n}"
    assert head.endswith(empty)
    out.write(head[: -len(empty)] + "[")
    separator = "\n    "
    for line in diff.line_diffs:
        out.write(separator)
        # JSON strings hold no raw newline: every newline of the dump starts a line.
        for piece in _line_json(line):
            out.write(piece.replace("\n", "\n    "))
        separator = ",\n    "
    out.write("\n  ]\n}")


def _line_json(line: LineDiff) -> Iterator[str]:
    """``json.dumps(line.to_dict(), **JSON_STYLE)`` in pieces: a long line's lists are
    dumped a chunk at a time (no list of its millions of words, no dict per change)."""
    if not line.long:
        yield json.dumps(line.to_dict(), **JSON_STYLE)
        return
    text = json.dumps(line.to_dict(placeholders=True), **JSON_STYLE)
    for key in LISTS:
        quoted = json.dumps(f"\x00{key}", **JSON_STYLE)
        if quoted not in text:  # no gold
            continue
        before, text = text.split(quoted, 1)
        yield before
        yield from _list_json(line.chunks(key, JSON_CHUNK), indent=2)
    yield text


JSON_CHUNK = 8192
"""Items of a long line's list (words, flags, changes) dumped at once."""


def _list_json(chunks: Iterable[list[Any]], indent: int) -> Iterator[str]:
    """A JSON list, as ``json.dumps(..., **JSON_STYLE)`` writes it as a value at ``indent``
    spaces, from its items a chunk at a time."""
    pad = " " * indent
    inner = pad + "  "
    first = True
    for chunk in chunks:
        if not chunk:
            continue
        text = ",\n".join(inner + _indented(item, inner) for item in chunk)
        yield ("[\n" if first else ",\n") + text
        first = False
    yield "[]" if first else "\n" + pad + "]"


_STRING = json.encoder.encode_basestring  # type: ignore[attr-defined]
"""How ``json.dumps(..., ensure_ascii=False)`` writes a string (the C encoder's)."""


def _indented(value: Any, pad: str) -> str:
    """``json.dumps(value, **JSON_STYLE)``, its lines after the first indented by ``pad``:
    the same text for dicts, lists, strings, integers, booleans and None, several times
    as fast as json's encoder with an indent (pure Python), which a long line's
    millions of words and changes would wait on."""
    if isinstance(value, str):
        return _STRING(value)  # type: ignore[no-any-return]
    if isinstance(value, dict):
        if not value:
            return "{}"
        inner = pad + "  "
        items = ",\n".join(
            f"{inner}{_STRING(key)}: {_indented(item, inner)}" for key, item in value.items()
        )
        return "{\n" + items + "\n" + pad + "}"
    if isinstance(value, list):
        if not value:
            return "[]"
        inner = pad + "  "
        return (
            "[\n"
            + ",\n".join(inner + _indented(item, inner) for item in value)
            + ("\n" + pad + "]")
        )
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if type(value) is int:
        return int.__repr__(value)
    return json.dumps(value, **JSON_STYLE)


def line_pieces(
    line: LineDiff, side: str, limit: int | None = None
) -> list[tuple[str, str | None]]:
    """One side of a changed line cut into pieces to show: (text, highlight class or None).

    A changed block is one piece whose class is its outcome against the gold
    (``fixed``, ``broke``, ``neither``) or ``changed`` without gold; words of
    a line whose text differs are marked ``differs`` one by one. With ``limit``,
    the pieces of the first ``limit`` words or so only (a block is kept whole),
    then one piece saying how many words are left out (class ``more``).

    >>> from cws_bench.regression.diff import diff_segmentations
    >>> d = diff_segmentations([["结婚", "的", "和", "尚未"]], [["结婚", "的", "和尚", "未"]])
    >>> line_pieces(d.line_diffs[0], "b")
    [('结婚', None), ('的', None), ('和尚 未', 'changed')]
    >>> line_pieces(d.line_diffs[0], "b", limit=1)
    [('结婚', None), ('… 3 more words (the JSON output has them)', 'more')]
    """
    words = line.a if side == "a" else line.b
    size = len(words)
    shown = size if limit is None else min(size, limit)
    if line.text_differs:
        flags = line.a_changed if side == "a" else line.b_changed
        marked = [(word, "differs" if flag else None) for word, flag in zip(words, flags)]
        return _cut(marked[:shown], size - shown)
    starts = {}
    for change in _changes_before(line, side, shown):
        index = change.a_index if side == "a" else change.b_index
        block = change.a if side == "a" else change.b
        starts[index] = (len(block), change.outcome or "changed")
        shown = max(shown, index + len(block))  # a block is shown whole
    head = list(words[:shown]) if shown < size else list(words)
    pieces: list[tuple[str, str | None]] = []
    index = 0
    while index < shown:
        if index in starts:
            block_size, css = starts[index]
            pieces.append((" ".join(head[index : index + block_size]), css))
            index += block_size
        else:
            pieces.append((head[index], None))
            index += 1
    return _cut(pieces, size - index)


def _changes_before(line: LineDiff, side: str, shown: int) -> Sequence[Change]:
    """The changes of ``line`` whose block starts among the first ``shown`` words of a side
    (a long line's others are not made)."""
    changes = line.changes
    if not isinstance(changes, LineChanges):
        return [c for c in changes if (c.a_index if side == "a" else c.b_index) < shown]
    import numpy as np

    first = changes.a_first if side == "a" else changes.b_first
    return changes[: int(np.searchsorted(first, shown))]


def _cut(pieces: list[tuple[str, str | None]], left: int) -> list[tuple[str, str | None]]:
    if left > 0:
        pieces.append((f"… {left:,} more words (the JSON output has them)", "more"))
    return pieces


FILTER_KINDS = {**KIND_LABELS, "differs": "text differs"}
"""What the diff page's kind filter offers, in order: the kinds of change, then lines
whose characters differ."""

OUTCOME_LABELS = {outcome: outcome for outcome in OUTCOMES}


def line_kinds(line: LineDiff) -> list[str]:
    """The kinds of change on a changed line, as the diff page filters them.

    >>> from cws_bench.regression.diff import diff_segmentations
    >>> d = diff_segmentations([["研究", "人员", "发现"]], [["研究人员", "发", "现"]])
    >>> line_kinds(d.line_diffs[0])
    ['merge', 'split']
    """
    if line.text_differs:
        return ["differs"]
    if isinstance(line.changes, LineChanges):
        return line.changes.kind_names()
    return sorted({change.kind for change in line.changes})


def line_outcomes(line: LineDiff) -> list[str]:
    """The outcomes against the gold of the changes on a line, sorted."""
    if isinstance(line.changes, LineChanges):
        return line.changes.outcome_names()
    return sorted({c.outcome for c in line.changes if c.outcome})


def _filters(rows: list[dict[str, Any]], gold: bool) -> dict[str, list[tuple[str, str, int]]]:
    """The filter choices with how many shown lines each matches (empty ones left out)."""
    choices = {"kinds": FILTER_KINDS, "outcomes": OUTCOME_LABELS if gold else {}}
    counted = {
        name: [(key, label, sum(key in row[name] for row in rows)) for key, label in labels.items()]
        for name, labels in choices.items()
    }
    return {name: [choice for choice in found if choice[2]] for name, found in counted.items()}


def _pattern_outcomes(pattern: ChangePattern, gold: bool) -> list[str]:
    """The outcomes a pattern had (none without gold)."""
    return [outcome for outcome in OUTCOMES if getattr(pattern, outcome) > 0] if gold else []


def render_diff_html(diff: SegmentationDiff, *, max_lines: int = HTML_LINES) -> str:
    """The diff as one self-contained HTML page: summary, patterns, changed lines side by side.

    Args:
        max_lines: how many changed lines to show (the first ones).
    """
    shown = diff.line_diffs[:max_lines]
    rows = [
        {
            "line": line,
            "a": line_pieces(line, "a", HTML_LINE_WORDS),
            "b": line_pieces(line, "b", HTML_LINE_WORDS),
            "gold": None if line.gold is None else _clipped(line.gold, HTML_LINE_WORDS),
            "kinds": line_kinds(line),
            "outcomes": line_outcomes(line),
        }
        for line in shown
    ]
    filters = _filters(rows, diff.gold is not None)
    metrics = [] if diff.gold is None else _compared(diff.gold)
    examples = [example_parts(pattern) for pattern in diff.patterns]
    return _diff_template().render(
        diff=diff,
        examples=examples,
        rows=rows,
        metrics=metrics,
        kinds=[(kind, KINDS[kind], KIND_LABELS[kind], diff.kinds[kind]) for kind in KINDS],
        kind_labels=KIND_LABELS,
        version=__version__,
        hidden=len(diff.line_diffs) - len(shown),
        filters=filters,
        page_size=HTML_PAGE,
        pattern_outcomes=[_pattern_outcomes(p, diff.gold is not None) for p in diff.patterns],
    )


def _compared(gold: GoldComparison) -> list[dict[str, Any]]:
    """The registry's compared scores that A has: label, A's, B's, the difference, the test."""
    return [
        {
            "label": score.label,
            "a": gold.a_scores.get(score.name),
            "b": gold.b_scores.get(score.name),
            "difference": gold.difference(score.name),
            "test": gold.tests.get(score.name),
        }
        for score in compared_scores()
        if gold.a_scores.get(score.name) is not None
    ]


@functools.lru_cache(maxsize=1)
def _diff_template() -> Any:
    """The diff page's template, compiled once per process (as report.html's is)."""
    from cws_bench.reports.html import template_environment

    environment = template_environment(
        percent=percent,
        points=Units().points,
        p_value=format_p_value,
        share=functools.partial(share, empty="0.0%"),
        ids=lambda ids: _ids(ids, 40),
    )
    return environment.get_template("diff.html.j2")


def render_check_text(
    result: CheckResult,
    *,
    baseline: str = "the baseline",
    accept: str | None = None,
    shown: int = 5,
    scale: str | None = None,
    digits: int | None = None,
) -> str:
    """A check as plain text: the verdict, each bound, what changed in the experiment and output.

    Args:
        baseline: how to name the baseline (its file).
        accept: how to accept the change (a command), shown when the check fails.
        shown: patterns of change listed per corpus.
        scale, digits: how scores print (default percentages with two decimals).
    """
    unit = units(scale, digits)
    failures = len(result.failures)
    if result.passed:
        verdict = f"passed ({plural(len(result.checks), 'bound')} held)"
    elif failures:
        verdict = f"FAILED ({failures} of {plural(len(result.checks), 'bound')} broken)"
    else:
        verdict = "FAILED (the experiment changed since the baseline)"
    out = [f"cws-bench check: {result.segmenter} against {baseline}: {verdict}"]
    marks = {"ok": "ok  ", "failed": "FAIL", "skipped": "skip"}
    width = max((len(check.corpus) for check in result.checks), default=0)
    for check in result.checks:
        out.append(f"  {marks[check.status]}  {check.corpus:<{width}}  {check.describe(unit)}")
    if result.changes:
        header = (
            "changed since the baseline (a changed experiment, not only a regression):"
            if result.changed_experiment
            else "note:"
        )
        out.append(header)
        out.extend(f"  - {change.message}" for change in result.changes)
    for label, diff in result.diffs.items():
        line = (
            f"what changed on {label} (baseline → now): {diff.changed_lines:,} of "
            f"{plural(diff.lines, 'line')}, {plural(diff.changes, 'change')}"
        )
        if diff.gold is not None:
            outcomes = diff.gold.outcomes
            line += (
                f": {outcomes['fixed']:,} fixed agreement with the gold, {outcomes['broke']:,} "
                f"broke it, {outcomes['neither']:,} neither"
            )
        out.append(line)
        out.extend(_pattern_line(p, diff.gold is not None) for p in diff.patterns[:shown])
    if not result.passed and accept:
        out.append(f"to accept the change as the new baseline: {accept}")
    return "\n".join(text.rstrip() for text in out)


def render_check_json(result: CheckResult) -> str:
    """A check as JSON (:meth:`CheckResult.to_dict`)."""
    return json.dumps(result.to_dict(), ensure_ascii=False, indent=2)


def render_diff(diff: SegmentationDiff, fmt: str, **options: Any) -> str:
    """A diff in one of :data:`DIFF_FORMATS`, each renderer given the options it takes.

    Raises:
        UnknownFormatError: another format.
    """
    return render_in(fmt, DIFF_RENDERERS, diff, **options)


def render_check(result: CheckResult, fmt: str, **options: Any) -> str:
    """A check in one of :data:`CHECK_FORMATS` (``junit``: :mod:`cws_bench.regression.junit`),
    each renderer given the options it takes (``baseline``, ``accept``, ``scale`` ...).

    Raises:
        UnknownFormatError: another format.
    """
    return render_in(fmt, CHECK_RENDERERS, result, **options)


def render_baseline_text(baseline: Baseline, path: str) -> str:
    """What ``baseline save``, ``update`` and ``show`` print: per corpus F1, P, R, OOV
    recall, speed and signature, then the bounds."""
    segmenter = baseline.segmenter
    lines = [f"baseline of {segmenter.name} {segmenter.version or ''} in {path}:"]
    for record in baseline.records:
        scores = record.scores
        lines.append(
            f"  {record.label}: F1 {percent(scores['f1'])}, P "
            f"{percent(scores['precision'])}, R {percent(scores['recall'])}, "
            f"OOV recall {percent(scores.get('oov_recall'))}, "
            f"{record.speed.chars_per_s:,.0f} characters/s (median of "
            f"{len(record.speed.runs)}, spread {100 * record.speed.spread:.0f}%)"
        )
        lines.append(f"    signature: {record.identity.signature}")
    bounds = baseline.bounds
    drops = ", ".join(f"{metric} {points:g} points" for metric, points in bounds.drops.items())
    speed = "not checked" if bounds.speed is None else f"{bounds.speed:g}%"
    lines.append(f"  bounds: largest drops {drops}; speed {speed}")
    return "\n".join(lines)


DIFF_RENDERERS: dict[str, Callable[..., str]] = {
    "text": render_diff_text,
    "json": render_diff_json,
    "html": render_diff_html,
}
"""``cws-bench diff --format`` -> renderer of a :class:`SegmentationDiff`."""
DIFF_FORMATS: tuple[str, ...] = tuple(DIFF_RENDERERS)

CHECK_RENDERERS: dict[str, Callable[..., str]] = {
    "text": render_check_text,
    "json": render_check_json,
    "junit": render_junit,
}
"""``cws-bench check --format`` -> renderer of a :class:`CheckResult`."""
CHECK_FORMATS: tuple[str, ...] = tuple(CHECK_RENDERERS)
