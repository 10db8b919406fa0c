"""What changed between two segmentations of the same text (tokenizer v1 against v2).

A diff is the block analysis of :mod:`cws_bench.analysis.patterns` with A in the
role of gold: between two consecutive boundaries that A and B share, A has
``m`` words and B ``n``. ``m = n = 1`` is an unchanged word; ``m = 1 < n``
a word of A **split** in B; ``n = 1 < m`` words of A **merged** in B;
``m, n > 1`` a **boundary moved** (the two cross). Each such block is one
change; changes are counted by kind and by pattern (the words of A, the
words of B), with the first line where each pattern occurs.

With a gold segmentation each change also says whether it *fixed* agreement
with the gold (B has more gold words in the block than A), *broke* it (fewer)
or neither (as many: both wrong, differently), and A and B are both scored
against the gold: ΔP, ΔR and ΔF1 with a paired bootstrap test over sentences
(:func:`cws_bench.metrics.significance.paired_bootstrap_test`, seeded).

Lines whose characters differ between A and B are handled as the scorer
handles such lines (cws_bench/scoring/): they are reported (how many, the
first ones with their line numbers), their words are matched through a
minimal edit alignment of the two texts (:func:`cws_bench.scoring.spans.align_chars`),
and they are left out of the kinds of change.

>>> d = diff_segmentations([["结婚", "的", "和", "尚未"]], [["结婚", "的", "和尚", "未"]])
>>> d.changed_lines, [(c.kind, c.a, c.b) for c in d.line_diffs[0].changes]
(1, [('cross', ('和', '尚未'), ('和尚', '未'))])
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import zip_longest
from typing import TYPE_CHECKING, Any, cast

from cws_bench.defaults import STANDARD_DICTIONARY, DictionaryDefault
from cws_bench.display.units import plural
from cws_bench.errors import CwsBenchError, Fix, TextMismatchError
from cws_bench.regression.changes import (
    CHUNK,
    KIND_NAMES,
    KINDS,
    Change,
    ChangePattern,
    LineChanges,
    LineDiff,
    TextDifference,
    count_true,
    differing_lines,
)
from cws_bench.regression.gold import GoldComparison, GoldScores
from cws_bench.regression.line_diff import (
    LONG_LINE,
    example_of,
    is_long,
    joined,
    line_words,
    long_same_text_line,
    same_text_line,
    sentence_of,
    text_differs_line,
)
from cws_bench.regression.spill import SpillList
from cws_bench.text.io import PathLike, display_name, iter_line_blocks
from cws_bench.text.joined import JoinedWords, is_joined_line

if TYPE_CHECKING:
    from cws_bench.regression.tokens import TokenDiff, TokenIds
    from cws_bench.text.dictionary import Dictionary, WordsLike
    from cws_bench.text.normalize import Normalizer

__all__ = [
    "MAX_EXAMPLES",
    "SegmentationDiff",
    "diff_files",
    "diff_segmentations",
    "diff_tokenizers",
    "read_side",
]

MAX_EXAMPLES = 5


@dataclass(frozen=True)
class SegmentationDiff:
    """What changed from segmentation A to segmentation B.

    Attributes:
        a_name, b_name, gold_name: names of A, B and the gold (None: none) for reports.
        changed_lines: lines where A and B differ (text differences included).
        changed_a_words: words of A that are not words of B (by interval); changed_b_words:
            words of B that are not words of A.
        kinds: per kind, ``changes`` (blocks), ``a_words`` and ``b_words`` in them.
        patterns: the ``top`` most frequent patterns of change, most frequent first.
        line_diffs: every line where A and B differ, in order (the first ones in memory,
            the others in a temporary file: :class:`~cws_bench.regression.spill.SpillList`).
        text_differences: how many lines hold different characters in A and B;
            text_examples: the first of them.
        oov_words: words of A and of B not in the dictionary (``{"a": n, "b": n}``), or None.
        settings: ``top``, ``seed``, ``resamples`` (the bootstrap's), ``dictionary``.
        token_ids: when both sides are a tokenizer's output with its token ids, the
            lines whose ids changed (also where every boundary stayed), or None.
    """

    a_name: str
    b_name: str
    gold_name: str | None
    lines: int
    changed_lines: int
    a_words: int
    b_words: int
    changed_a_words: int
    changed_b_words: int
    kinds: dict[str, dict[str, int]]
    patterns: tuple[ChangePattern, ...]
    distinct_patterns: int
    line_diffs: Sequence[LineDiff]
    text_differences: int
    text_examples: tuple[TextDifference, ...]
    gold: GoldComparison | None = None
    oov_words: dict[str, int] | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    token_ids: TokenDiff | None = None

    @property
    def changes(self) -> int:
        """Changed blocks of every kind."""
        return sum(kind["changes"] for kind in self.kinds.values())

    def to_dict(self, *, line_diffs: bool = True) -> dict[str, Any]:
        """JSON-safe dict with a stable key order; ``line_diffs`` last, or left out (they
        are all in memory at once in the dict: render_diff_json writes them one by one)."""
        data = {
            "a": self.a_name,
            "b": self.b_name,
            "gold": self.gold_name,
            "lines": self.lines,
            "changed_lines": self.changed_lines,
            "a_words": self.a_words,
            "b_words": self.b_words,
            "changed_a_words": self.changed_a_words,
            "changed_b_words": self.changed_b_words,
            "changes": self.changes,
            "kinds": {kind: dict(counts) for kind, counts in self.kinds.items()},
            "distinct_patterns": self.distinct_patterns,
            "patterns": [pattern.to_dict() for pattern in self.patterns],
            "text_differences": self.text_differences,
            "text_examples": [example.to_dict() for example in self.text_examples],
            "against_gold": None if self.gold is None else self.gold.to_dict(),
            "oov_words": self.oov_words,
            "settings": dict(self.settings),
            "warnings": list(self.warnings),
            "token_ids": None if self.token_ids is None else self.token_ids.to_dict(),
        }
        if line_diffs:
            data["line_diffs"] = [line.to_dict() for line in self.line_diffs]
        return data


_END = object()
"""What :func:`_lockstep` sees of a side that has no more lines."""


def _joined_lines(
    sentences: Iterable[Sequence[str]], normalizer: Normalizer | None
) -> Iterator[str]:
    """Each sentence as one line (:func:`joined`), normalised character by character (the
    word boundaries stay)."""
    for words in sentences:
        line = joined(words)
        del words  # a long sentence's words are not kept while its line is used
        yield line if normalizer is None else normalizer(line)


def _lockstep(sides: list[Iterator[str]], names: tuple[str, str, str]) -> Iterator[tuple[str, ...]]:
    """The lines of A, B (and the gold) side by side; at the end, a CwsBenchError when the
    sides have different numbers of lines (the rest of the longer ones read to count them)."""
    for count, lines in enumerate(zip_longest(*sides, fillvalue=_END)):
        if any(line is _END for line in lines):
            counts = [
                count + (line is not _END) + sum(1 for _ in side)
                for line, side in zip(lines, sides)
            ]
            a_name, b_name, gold_name = names
            if counts[0] != counts[1]:
                raise CwsBenchError(
                    f"{a_name} has {plural(counts[0], 'line')} but {b_name} has {counts[1]}",
                    "a diff compares two segmentations of the same text, line by line",
                )
            raise CwsBenchError(
                f"{gold_name} has {plural(counts[2], 'line')} but {a_name} and {b_name} have "
                f"{counts[0]}",
                "the gold must segment the same text, line by line",
            )
        yield cast("tuple[str, ...]", lines)


def _word_count(line: str) -> int:
    return line.count(" ") + 1 if line else 0


PatternKey = tuple[str, str, str]
"""A pattern of change as a diff counts it: its kind, A's words and B's words, each side's
words joined by single spaces (a word holds no space), three objects however many words:
a pair of files can hold millions of distinct patterns. Ties are ranked by these strings."""


_OUTCOME_CODES = {"fixed": 0, "broke": 1, "neither": 2}
"""An outcome's column in :class:`_PatternTable` (after the count)."""


class _PatternTable(Mapping[PatternKey, int]):
    """Every distinct pattern of change and how often it occurs: one dict from a pattern to
    its slot, and per slot its count, its counts by outcome and its first occurrence
    (``position << 32 | first word``) in one numpy array. A pair of files can hold
    millions of distinct patterns: a slot costs five integers, not three dict entries.

    Changes are added a chunk at a time (:meth:`add`), or one by one into a buffer
    (:meth:`add_one`) that is added when it is full or read. As a mapping it gives each
    pattern's count (what :func:`~cws_bench.analysis.patterns.most_common` ranks).
    """

    def __init__(self) -> None:
        import numpy as np

        self.slots: dict[PatternKey, int] = {}
        self.columns = np.zeros((5, 1024), dtype=np.int64)
        self.pending: tuple[list[PatternKey], list[int], list[int]] = ([], [], [])

    def add(self, keys: Sequence[PatternKey], outcomes: Any, firsts: Any) -> None:
        """Count ``keys``; ``outcomes`` their codes (:data:`_OUTCOME_CODES`, -1: none) and
        ``firsts`` where each occurs, as arrays."""
        import numpy as np

        slots = self.slots
        known = len(slots)
        index = np.fromiter(
            (slots.setdefault(key, len(slots)) for key in keys), dtype=np.int64, count=len(keys)
        )
        if len(slots) > self.columns.shape[1]:
            grown = np.zeros((5, max(len(slots), 2 * self.columns.shape[1])), dtype=np.int64)
            grown[:, :known] = self.columns[:, :known]
            self.columns = grown
        size = len(slots)
        self.columns[0, :size] += np.bincount(index, minlength=size)
        for code in range(3):
            chosen = index[outcomes == code]
            if len(chosen):
                self.columns[1 + code, :size] += np.bincount(chosen, minlength=size)
        new = index >= known
        if new.any():
            slot, at = np.unique(index[new], return_index=True)
            self.columns[4, slot] = np.asarray(firsts)[new][at]

    def add_one(self, key: PatternKey, outcome: str | None, first: int) -> None:
        keys, outcomes, firsts = self.pending
        keys.append(key)
        outcomes.append(-1 if outcome is None else _OUTCOME_CODES[outcome])
        firsts.append(first)
        if len(keys) >= CHUNK:
            self.flush()

    def flush(self) -> None:
        import numpy as np

        keys, outcomes, firsts = self.pending
        if keys:
            self.add(keys, np.asarray(outcomes), np.asarray(firsts, dtype=np.int64))
            for pending in self.pending:
                pending.clear()

    def outcome(self, key: PatternKey, outcome: str) -> int:
        """How often the pattern ``key`` had ``outcome``."""
        self.flush()
        return int(self.columns[1 + _OUTCOME_CODES[outcome], self.slots[key]])

    def first(self, key: PatternKey) -> tuple[int, int]:
        """(changed line's position in line_diffs, first word in A) of the first occurrence."""
        self.flush()
        where = int(self.columns[4, self.slots[key]])
        return where >> 32, where & 0xFFFFFFFF

    def __getitem__(self, key: PatternKey) -> int:
        self.flush()
        return int(self.columns[0, self.slots[key]])

    def __iter__(self) -> Iterator[PatternKey]:
        self.flush()
        return iter(self.slots)

    def __len__(self) -> int:
        self.flush()
        return len(self.slots)

    def values(self) -> Any:  # type: ignore[override]
        """The counts, in the order of the keys (a numpy array)."""
        self.flush()
        return self.columns[0, : len(self.slots)]


class _DiffPass:
    """Every count of a diff, taken in one pass over the lines of A, B (and the gold).

    Each line is one string (words joined by single spaces), split only when it
    changed; the changed lines go to a :class:`SpillList`.
    """

    def __init__(self, words: Dictionary | None, gold: bool, max_examples: int) -> None:
        self.words = words
        self.max_examples = max_examples
        self.lines = self.a_words = self.b_words = self.changed_a = self.changed_b = 0
        self.oov = [0, 0]
        self.kinds = {kind: {"changes": 0, "a_words": 0, "b_words": 0} for kind in KINDS}
        self.patterns = _PatternTable()
        self.outcomes: Counter[str] = Counter()
        self.text_examples: list[TextDifference] = []
        self.text_differences = 0
        self.line_diffs: SpillList[LineDiff] = SpillList()
        self.gold = GoldScores(words) if gold else None

    def add(self, a_line: str, b_line: str, gold_line: str | None) -> None:
        """One line of each side."""
        self.lines += 1
        self.a_words += _word_count(a_line)
        self.b_words += _word_count(b_line)
        if self.words is not None:
            self.oov[0] += sum(word not in self.words for word in sentence_of(a_line))
            self.oov[1] += sum(word not in self.words for word in sentence_of(b_line))
        if self.gold is not None and gold_line is not None:
            self.gold.add(gold_line, a_line, b_line)
        if a_line != b_line:
            self._changed(a_line, b_line, gold_line)

    def _changed(self, a_line: str, b_line: str, gold_line: str | None) -> None:
        number = self.lines
        same_text = a_line.replace(" ", "") == b_line.replace(" ", "")
        if same_text and is_long(a_line, b_line):
            line = long_same_text_line(number, a_line, b_line, gold_line)
            # spilled before its patterns are counted: the pickle's bytes are gone by then
            self.line_diffs.append(line)
            assert isinstance(line.changes, LineChanges)
            self._count_long(line.changes, len(self.line_diffs) - 1)
        else:
            a_words, b_words = line_words(a_line), line_words(b_line)
            gold_words = None if gold_line is None else line_words(gold_line)
            if same_text:
                line, changes = same_text_line(number, a_words, b_words, gold_words)
                for change in changes:
                    self._count(change)
            else:
                self.text_differences += 1
                if len(self.text_examples) < self.max_examples:
                    example = TextDifference(number, " ".join(a_words), " ".join(b_words))
                    self.text_examples.append(example)
                line = text_differs_line(number, a_words, b_words, gold_words)
            self.line_diffs.append(line)
        self.changed_a += count_true(line.a_changed)
        self.changed_b += count_true(line.b_changed)

    def _count(self, change: Change) -> None:
        key = (change.kind, " ".join(change.a), " ".join(change.b))
        counts = self.kinds[change.kind]
        counts["changes"] += 1
        counts["a_words"] += len(change.a)
        counts["b_words"] += len(change.b)
        if change.outcome:
            self.outcomes[change.outcome] += 1
        self.patterns.add_one(key, change.outcome, len(self.line_diffs) << 32 | change.a_index)

    def _count_long(self, changes: LineChanges, position: int) -> None:
        """:meth:`_count` of every change of a long line (at ``position`` in line_diffs), a
        chunk at a time, with numpy (no Change made)."""
        import numpy as np

        for number, kind in enumerate(KIND_NAMES):
            of_kind = changes.kinds == number
            counts = self.kinds[kind]
            counts["changes"] += int(np.count_nonzero(of_kind))
            counts["a_words"] += int(changes.a_count[of_kind].sum())
            counts["b_words"] += int(changes.b_count[of_kind].sum())
        position <<= 32
        self.patterns.flush()  # the changes of the lines before come first
        for low in range(0, len(changes), CHUNK):
            high = min(low + CHUNK, len(changes))
            codes = np.full(high - low, -1, dtype=np.int64)
            if changes.delta is not None:
                signs = np.sign(changes.delta[low:high])
                codes = np.where(signs > 0, 0, np.where(signs < 0, 1, 2))
                for outcome, code in _OUTCOME_CODES.items():
                    self.outcomes[outcome] += int(np.count_nonzero(codes == code))
            firsts = position | changes.a_first[low:high]
            self.patterns.add(changes.pattern_keys(low, high), codes, firsts)

    def kept_patterns(self, top: int) -> tuple[ChangePattern, ...]:
        """The ``top`` most frequent patterns; ties broken by the words, so the report does
        not depend on input order."""
        from cws_bench.analysis.patterns import most_common

        patterns = self.patterns
        read: dict[int, LineDiff] = {}  # a line read back once (a long one is large)
        return tuple(
            ChangePattern(
                key[0],
                tuple(key[1].split(" ")),
                tuple(key[2].split(" ")),
                count,
                patterns.outcome(key, "fixed"),
                patterns.outcome(key, "broke"),
                patterns.outcome(key, "neither"),
                *self._example(key, read),
            )
            for key, count in most_common(self.patterns, top)
        )

    def _example(self, key: PatternKey, read: dict[int, LineDiff]) -> tuple[int, str, int]:
        """A pattern's example: a window of the line where it first occurs (not a copy of
        the line, see analysis), read back from line_diffs (once: ``read`` keeps them)."""
        position, a_index = self.patterns.first(key)
        if position not in read:
            read[position] = self.line_diffs[position]
        line = read[position]
        return example_of(line.line, line.a, a_index, key[1].count(" ") + 1)

    def check_strict(self, a_name: str, b_name: str) -> None:
        if self.text_differences:
            shown = "; ".join(f"line {example.line}" for example in self.text_examples)
            raise TextMismatchError(
                f"{a_name} and {b_name}: {differing_lines(self.text_differences)} ({shown})",
                "both must segment exactly the same text; leave out {0} to compare them "
                "through a character alignment",
                fixes=(Fix("strict", True),),
            )

    def warnings(self, a_name: str, b_name: str) -> list[str]:
        if not self.text_differences:
            return []
        return [
            f"{differing_lines(self.text_differences)} in {a_name} and {b_name}; their words "
            "were matched through a character alignment (not in the kinds of change)"
        ]


def _token_diff(
    token_ids: tuple[TokenIds, TokenIds],
    lines: tuple[list[str], list[str]],
    names: tuple[str, str],
    max_examples: int,
) -> TokenDiff:
    """The lines whose token ids changed (the token ids are in memory: so are the lines)."""
    from cws_bench.regression.tokens import diff_token_ids

    try:
        return diff_token_ids(
            *token_ids,
            *([line_words(line) for line in side] for side in lines),
            examples=max_examples,
        )
    except ValueError as error:
        raise CwsBenchError(
            f"{names[0]} and {names[1]}: {error}",
            "give the token ids of the same lines as the segmentations",
        ) from None


def diff_segmentations(
    a: Iterable[Sequence[str]],
    b: Iterable[Sequence[str]],
    gold: Iterable[Sequence[str]] | None = None,
    *,
    dictionary: WordsLike | None = None,
    names: tuple[str, str, str] = ("A", "B", "gold"),
    top: int = 20,
    seed: int | None = None,
    resamples: int | None = None,
    strict: bool = False,
    max_examples: int = MAX_EXAMPLES,
    normalize: str | Normalizer | None = None,
    token_ids: tuple[TokenIds, TokenIds] | None = None,
) -> SegmentationDiff:
    """Compare two segmentations of the same text, sentence by sentence.

    Args:
        a, b: the two segmentations (e.g. tokenizer v1 and v2), sentences of words, paired
            in order; gold: a gold segmentation of the same text, or None.
        dictionary: for OOV figures: a Dictionary, a file, an iterable of words, or None.
        top: how many of the most frequent patterns of change to keep.
        seed, resamples: the paired bootstrap's (default
            :data:`~cws_bench.metrics.significance.DEFAULT_SEED`, ``DEFAULT_RESAMPLES``).
        strict: raise instead of aligning lines whose characters differ.
        max_examples: how many lines with differing characters to keep as examples.
        normalize: a normalisation applied alike to A, B, the gold and the
            dictionary first (as score's: ``width``, ``t2s``, ``width+t2s``...);
            named in ``settings["normalize"]`` when it changes anything.
        token_ids: A's and B's token ids, line by line, when both are a tokenizer's
            output: the lines whose ids changed are reported
            (:func:`cws_bench.regression.tokens.diff_token_ids`), also those whose
            every boundary stayed.

    Raises:
        CwsBenchError: A, B (and the gold) have different numbers of sentences, or the
            token ids cover another number of lines.
        TextMismatchError: ``strict`` and some line holds different characters in A and B.

    >>> d = diff_segmentations(
    ...     [["人工", "智能", "技术"]], [["人工智能", "技术"]], [["人工", "智能", "技术"]]
    ... )
    >>> d.patterns[0].kind, d.gold.outcomes["broke"], d.gold.correct_change
    ('merge', 1, -2)
    """
    from cws_bench.corpora.words import as_dictionary
    from cws_bench.metrics.significance import DEFAULT_RESAMPLES, DEFAULT_SEED
    from cws_bench.text.normalize import as_normalizer

    a_name, b_name, gold_name = names
    seed = DEFAULT_SEED if seed is None else seed
    resamples = DEFAULT_RESAMPLES if resamples is None else resamples
    normalizer = as_normalizer(normalize)
    words = as_dictionary(dictionary)
    if words is not None and normalizer is not None:
        words = words.normalized(normalizer)
    # A line is one string, split only when it changed (a list of word objects per line
    # costs about ten times the text), and no line is kept once it is counted.
    sides = [iter(_joined_lines(side, normalizer)) for side in (a, b)]
    if gold is not None:
        sides.append(iter(_joined_lines(gold, normalizer)))
    kept: tuple[list[str], list[str]] = ([], [])  # A's and B's lines, for the token ids
    state = _DiffPass(words, gold is not None, max_examples)
    for lines in _lockstep(sides, names):
        state.add(lines[0], lines[1], lines[2] if gold is not None else None)
        if token_ids is not None:
            kept[0].append(lines[0])
            kept[1].append(lines[1])
    if strict:
        state.check_strict(a_name, b_name)
    warnings = state.warnings(a_name, b_name)
    comparison = None
    if state.gold is not None:
        comparison, scored = state.gold.comparison(
            state.outcomes, (a_name, b_name), seed=seed, resamples=resamples
        )
        warnings += scored
    token_diff = None
    if token_ids is not None:
        token_diff = _token_diff(token_ids, kept, (a_name, b_name), max_examples)
    return SegmentationDiff(
        a_name=a_name,
        b_name=b_name,
        gold_name=gold_name if gold is not None else None,
        lines=state.lines,
        changed_lines=len(state.line_diffs),
        a_words=state.a_words,
        b_words=state.b_words,
        changed_a_words=state.changed_a,
        changed_b_words=state.changed_b,
        kinds=state.kinds,
        patterns=state.kept_patterns(top),
        distinct_patterns=len(state.patterns),
        line_diffs=state.line_diffs,
        text_differences=state.text_differences,
        text_examples=tuple(state.text_examples),
        gold=comparison,
        oov_words=None if words is None else {"a": state.oov[0], "b": state.oov[1]},
        settings={
            "top": top,
            "seed": seed,
            "resamples": resamples,
            "dictionary": None if words is None else words.name,
            "dictionary_checksum": None if words is None else words.checksum,
            **({} if normalizer is None else {"normalize": normalizer.name}),
        },
        warnings=tuple(warnings),
        token_ids=token_diff,
    )


def _is_baseline(path: PathLike) -> bool:
    """Whether a file is a baseline (JSON that :func:`save_baseline` wrote), not a segmentation."""
    from cws_bench.regression.baseline import FORMAT

    try:
        with open(path, "rb") as f:
            head = f.read(256).lstrip()
    except OSError:
        return False  # reading it as a segmentation names the problem
    return head.startswith(b"{") and f'"{FORMAT}"'.encode() in head


def _segmented(source: PathLike, encoding: str) -> Iterator[Sequence[str]]:
    """:func:`~cws_bench.text.io.read_segmented`, a long line of words joined by single
    spaces given as a JoinedWords (its words are not made)."""
    for block in iter_line_blocks(source, encoding=encoding):
        for line in block:
            if len(line) >= LONG_LINE and is_joined_line(line):
                yield JoinedWords(line, line.count(" ") + 1)
            else:
                yield line.split()


def read_side(
    source: PathLike,
    *,
    encoding: str = "utf-8",
    corpus: str | None = None,
    token_ids: PathLike | None = None,
) -> tuple[Iterable[Sequence[str]], TokenIds | None]:
    """One side of a diff: its sentences of words, and its token ids when it has them.

    ``source`` is a segmentation file, or a baseline file
    (:func:`cws_bench.regression.baseline_file.save_baseline`): its stored segmentation of
    ``corpus`` (a label it holds; may be left out when it holds one corpus), with the
    token ids of a tokenizer's baseline. ``token_ids`` is a token-id file
    (:func:`cws_bench.regression.tokens.save_token_ids`) of a segmentation file.

    Raises:
        CwsBenchError: the baseline holds no such corpus, several and none chosen, or no
            segmentation; a token-id file given for a baseline.
    """
    from cws_bench.regression.tokens import load_token_ids

    name = display_name(source)
    if not _is_baseline(source):
        ids = None if token_ids is None else load_token_ids(token_ids)
        return _segmented(source, encoding), ids
    from cws_bench.regression.baseline_file import load_baseline

    if token_ids is not None:
        raise CwsBenchError(
            f"{name} is a baseline: its token ids are inside it",
            "leave out the token-id files: they are for segmentation files",
        )
    records = load_baseline(source).records
    labels = [record.corpus.label for record in records]
    chosen = [record for record in records if corpus is None or record.corpus.label == corpus]
    if len(chosen) != 1:
        raise CwsBenchError(
            f"{name} holds the corpora {', '.join(labels)}"
            + (f", not {corpus}" if corpus is not None else ": choose one"),
            "name the corpus to compare, e.g. {0}; the baseline holds " + ", ".join(labels),
            fixes=(Fix("corpus", labels[0]),),
        )
    record = chosen[0]
    if record.segmentation is None:
        raise CwsBenchError(
            f"{name}: the baseline of {record.corpus.label} holds no segmentation",
            "record it again with the segmentation kept",
        )
    return (line_words(line) for line in record.segmentation), record.token_ids


def diff_tokenizers(
    text: PathLike,
    a: str | Any,
    b: str | Any,
    gold: PathLike | None = None,
    *,
    a_options: dict[str, Any] | None = None,
    b_options: dict[str, Any] | None = None,
    encoding: str = "utf-8",
    **settings: Any,
) -> SegmentationDiff:
    """Run two segmenters (e.g. two tokenizers, or two versions of one) over a raw text
    file and diff them, with their token ids when both have them.

    Args:
        text: the raw text, one sentence a line.
        a, b: a registered segmenter's name (with ``a_options``/``b_options``) or a
            :class:`~cws_bench.segmenters.base.Segmenter`.
        gold, settings: as :func:`diff_files` takes them (``dictionary``, ``top``, ...).

    Each line is tokenized once per side: the ids are those of the segmenting pass.
    """
    from cws_bench.regression.tokens import keeping_token_ids, record_token_ids
    from cws_bench.segmenters import get_segmenter
    from cws_bench.text.io import iter_lines

    lines = list(iter_lines(text, encoding=encoding))
    sides = []
    for segmenter, options in ((a, a_options), (b, b_options)):
        built = (
            get_segmenter(segmenter, **(options or {})) if isinstance(segmenter, str) else segmenter
        )
        with keeping_token_ids(built):
            words = built.segment(lines)
            ids = record_token_ids(built, lines)
        label = segmenter if isinstance(segmenter, str) else built.name
        sides.append((words, ids, label))
    (a_words, a_ids, a_label), (b_words, b_ids, b_label) = sides
    if a_label == b_label:
        a_label, b_label = f"A ({a_label})", f"B ({b_label})"
    return _diff_sides((a_words, a_ids), (b_words, b_ids), (a_label, b_label), gold, **settings)


def _diff_sides(
    a: tuple[Iterable[Sequence[str]], TokenIds | None],
    b: tuple[Iterable[Sequence[str]], TokenIds | None],
    names: tuple[str, str],
    gold: PathLike | None = None,
    *,
    dictionary: WordsLike | DictionaryDefault | None = (STANDARD_DICTIONARY),
    encoding: str = "utf-8",
    gold_format: str = "auto",
    data_dir: PathLike | None = None,
    dictionary_encoding: str | None = None,
    **settings: Any,
) -> SegmentationDiff:
    """Two sides read (sentences, token ids or None) diffed, the gold and dictionary read
    as :func:`diff_files` says."""
    from cws_bench.scoring import read_gold, scoring_dictionary

    notes: list[str] = []
    words = scoring_dictionary(
        gold, dictionary, data_dir=data_dir, encoding=dictionary_encoding or encoding, notes=notes
    )
    gold_name = display_name(gold) if gold is not None else "gold"
    (a_sentences, a_ids), (b_sentences, b_ids) = a, b
    result = diff_segmentations(
        a_sentences,
        b_sentences,
        None
        if gold is None
        else read_gold(gold, gold_format=gold_format, encoding=encoding, data_dir=data_dir),
        dictionary=words,
        names=(*names, gold_name),
        token_ids=None if a_ids is None or b_ids is None else (a_ids, b_ids),
        **settings,
    )
    if notes:
        result = replace(result, warnings=(*notes, *result.warnings))
    if (a_ids is None) != (b_ids is None):
        has, lacks = names if b_ids is None else names[::-1]
        note = f"{has} has token ids and {lacks} none: the token ids were not compared"
        result = replace(result, warnings=(*result.warnings, note))
    return result


def diff_files(
    a: PathLike,
    b: PathLike,
    gold: PathLike | None = None,
    *,
    dictionary: WordsLike | DictionaryDefault | None = (STANDARD_DICTIONARY),
    encoding: str = "utf-8",
    top: int = 20,
    seed: int | None = None,
    resamples: int | None = None,
    strict: bool = False,
    gold_format: str = "auto",
    data_dir: PathLike | None = None,
    dictionary_encoding: str | None = None,
    normalize: str | Normalizer | None = None,
    corpus: str | None = None,
    token_ids: tuple[PathLike, PathLike] | None = None,
    max_examples: int = MAX_EXAMPLES,
) -> SegmentationDiff:
    """Compare two segmentation files (one sentence a line, words separated by whitespace).

    See :func:`diff_segmentations`; files are named in messages and reports.
    The gold is read as ``score`` reads it (:func:`cws_bench.scoring.read_gold`):
    a file in any gold format (``gold_format``: ``auto`` detects CoNLL-U,
    People's Daily, BMES or plain text) or a registered corpus ``NAME[:SPLIT]``.
    The dictionary is any word source ``score_files`` takes, a file read in
    ``dictionary_encoding`` (by default the files' ``encoding``); by default
    the standard dictionary of a corpus named as ``gold``, none for a file
    (:func:`cws_bench.scoring.scoring_dictionary`).

    A tokenizer's output is compared by its token ids too: ``a`` and ``b`` may be baseline
    files, or ``token_ids`` name their token-id files (:func:`read_side`).

    Raises:
        CwsBenchError: a file is missing or not in ``encoding`` (file, line and
            byte offset named), the gold does not match its format, or the
            files have different numbers of lines.
    """
    a_ids, b_ids = token_ids if token_ids is not None else (None, None)
    return _diff_sides(
        read_side(a, encoding=encoding, corpus=corpus, token_ids=a_ids),
        read_side(b, encoding=encoding, corpus=corpus, token_ids=b_ids),
        (display_name(a), display_name(b)),
        gold,
        dictionary=dictionary,
        encoding=encoding,
        gold_format=gold_format,
        data_dir=data_dir,
        dictionary_encoding=dictionary_encoding,
        top=top,
        seed=seed,
        resamples=resamples,
        strict=strict,
        normalize=normalize,
        max_examples=max_examples,
    )
