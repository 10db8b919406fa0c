"""Reading an LLM's segmentation reply back onto the text it was asked to segment.

A prompted model answers with the line's words separated by spaces, but the
answer need not hold the line's characters: it may change punctuation or its
width (``,`` for ``，``), swap simplified and traditional forms, drop, add or
repeat characters, put an explanation before the answer, refuse, or say
nothing. This module turns any reply into words that join back to the
original line (the lossless guarantee every segmenter keeps) and counts how
far the reply's text strayed from the line (its *fidelity*): the answer is
extracted (:func:`extract_answer`), its characters aligned to the line's by a
minimal Levenshtein edit script within a doubling band (:func:`edit_distance`,
O(d·n/64) for d edits), and its word boundaries projected onto the line
(:func:`project_boundaries`) under ``on_altered="repair"``; an *empty* or
*refused* reply (sharing fewer than :data:`REFUSAL_SHARE` of the line's
characters) gives the unsegmented line (:func:`align_reply`). docs/LLM.md,
"Reading the reply", gives the rules step by step, with examples and the
alignment's cost (docs/BENCHMARKS-LOG.md has the figures for one
200,000-character line).
"""

from __future__ import annotations

import itertools
import re
from bisect import bisect_left, bisect_right
from dataclasses import asdict, dataclass
from typing import Any

from cws_bench.display.units import plural
from cws_bench.segmenters.neural import cut_at

__all__ = [
    "ANSWER_MARKERS",
    "ON_ALTERED",
    "REFUSAL_SHARE",
    "LineFidelity",
    "align_reply",
    "extract_answer",
    "project_boundaries",
]

ON_ALTERED = ("repair", "unsegmented", "fail")
"""What to do with a line whose reply changed its text."""

REFUSAL_SHARE = 0.5
"""A reply sharing fewer than this share of the line's characters is a refusal."""

ANSWER_MARKERS = (
    "分词结果",
    "分词后",
    "分词",
    "结果",
    "答案",
    "输出",
    "回答",
    "Answer",
    "Output",
    "Result",
    "Segmentation",
    "Segmented text",
    "Segmented",
)
"""Prefixes (followed by ``：`` or ``:``) removed from the start of the answer line."""

_THINK = re.compile(r"<think>.*?(?:</think>|$)", re.DOTALL)
_FENCE = re.compile(r"```[^\n]*\n(.*?)(?:```|$)", re.DOTALL)
_MARKER = re.compile(
    r"^\s*(?:" + "|".join(re.escape(m) for m in ANSWER_MARKERS) + r")[^:：\n]{0,8}[:：]\s*",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class LineFidelity:
    """How one reply's text differs from its line.

    Attributes:
        line: the 1-based number of the line in its input (0 when unknown).
        altered: the reply's characters are not the line's.
        inserted: characters only in the reply.
        deleted: characters of the line missing from the reply.
        substituted: characters replaced one for one.
        refused: the reply is no attempt at the line (:data:`REFUSAL_SHARE`).
        empty: nothing was left of the reply.
        output: what was done with the line: ``ok`` (the reply's own words),
            ``repaired``, ``unsegmented``.
    """

    line: int
    altered: bool
    inserted: int
    deleted: int
    substituted: int
    refused: bool = False
    empty: bool = False
    output: str = "ok"

    @property
    def edits(self) -> int:
        """Inserted + deleted + substituted characters."""
        return self.inserted + self.deleted + self.substituted

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe, in field order."""
        return asdict(self)


def extract_answer(reply: str, text: str) -> str:
    """The part of ``reply`` that answers (docs/LLM.md says what is stripped).

    >>> extract_answer("好的，以下是分词结果：\\n我 爱 北京", "我爱北京")
    '我 爱 北京'
    >>> extract_answer("分词结果：我 爱 北京", "我爱北京")
    '我 爱 北京'
    >>> extract_answer("<think>嗯</think>```\\n我 爱\\n```", "我爱")
    '我 爱'
    """
    answer = _THINK.sub("", reply)
    fence = _FENCE.search(answer)
    if fence:
        answer = fence.group(1)
    lines = [line for line in answer.splitlines() if line.strip()]
    if len(lines) > 1:
        chars = set(text)
        answer = max(lines, key=lambda line: sum(c in chars for c in line))
    elif lines:
        answer = lines[0]
    else:
        return ""
    return _MARKER.sub("", answer, count=1).strip()


def edit_distance(text: str, pred: str) -> int:
    """The Levenshtein distance, found with a band that doubles from 64 (Ukkonen's cut-off).

    rapidfuzz computes a distance bounded by ``k`` in O(k·n/64) time; doubling
    ``k`` until the distance fits costs at most twice the last band, so a
    reply with ``d`` edits takes O(d·n/64), not O(n·m/64).

    >>> edit_distance("我爱北京", "我 爱北京!")
    2
    """
    from rapidfuzz.distance import Levenshtein

    band = 64
    while True:
        distance = int(Levenshtein.distance(text, pred, score_cutoff=band))
        if distance <= band:
            return distance
        band *= 2


def _opcodes(text: str, pred: str) -> list[tuple[str, int, int, int, int]]:
    from rapidfuzz.distance import Levenshtein

    # The distance as a hint lets rapidfuzz align within a band of that width.
    hint = edit_distance(text, pred)
    return [tuple(op) for op in Levenshtein.opcodes(text, pred, score_hint=hint)]  # type: ignore[misc]


def project_boundaries(
    text: str, pred_words: list[str]
) -> tuple[list[int], tuple[int, int, int], int]:
    """The reply's word boundaries projected onto ``text`` (docs/LLM.md's repair rule).

    Returns the sorted inner boundaries (offsets of ``text``), the counts
    ``(inserted, deleted, substituted)`` and the characters ``pred`` and
    ``text`` share (aligned equal).

    >>> project_boundaries("我爱北京", ["我", "爱", "北京"])
    ([1, 2], (0, 0, 0), 4)
    >>> project_boundaries("ab", ["a", "X", "b"])  # an inserted X: both sides land at 1
    ([1], (1, 0, 0), 2)
    >>> project_boundaries("abc", ["a", "c"])  # b lost: glued to the word before it
    ([2], (0, 1, 0), 2)
    """
    pred = "".join(pred_words)
    cuts = _ends(pred_words)  # the reply's boundaries, as offsets of pred
    if pred == text:
        return sorted(set(cuts) - {0, len(text)}), (0, 0, 0), len(text)
    inserted = deleted = substituted = same = 0
    # where[k]: the line offset of reply offset k, the largest the alignment allows
    # (a deleted run at k is passed over, so it is glued to the word before it).
    where: dict[int, int] = {}
    wanted = sorted(set(cuts))

    def put(k: int, offset: int) -> None:
        if where.get(k, -1) < offset:
            where[k] = offset

    for tag, s1, s2, d1, d2 in _opcodes(text, pred):
        if tag == "delete":
            deleted += s2 - s1
            put(d1, s2)
            continue
        if tag == "insert":
            inserted += d2 - d1
            for k in wanted[bisect_left(wanted, d1) : bisect_right(wanted, d2)]:
                put(k, s1)
            continue
        pairs = min(s2 - s1, d2 - d1)
        if tag == "equal":
            same += pairs
        else:
            substituted += pairs
            inserted += (d2 - d1) - pairs
            deleted += (s2 - s1) - pairs
        for k in wanted[bisect_left(wanted, d1) : bisect_right(wanted, d2)]:
            put(k, s1 + min(k - d1, pairs))
        if tag != "equal" and s2 - s1 > pairs:  # the line's extra characters: deleted
            put(d1 + pairs, s2)
    bounds = sorted({where[k] for k in wanted if k in where} - {0, len(text)})
    return bounds, (inserted, deleted, substituted), same


def _ends(words: list[str]) -> list[int]:
    """The offsets after each word but the last, in the words joined."""
    return list(itertools.accumulate(map(len, words[:-1])))


def align_reply(
    line: str, reply: str, *, on_altered: str = "repair", number: int = 0
) -> tuple[list[str], LineFidelity]:
    """The words of ``line`` that ``reply`` gives, and the reply's fidelity.

    The words always join back to ``line`` without its whitespace.

    >>> align_reply("我爱北京。", "我 爱 北京 .")
    (['我', '爱', '北京', '。'], LineFidelity(line=0, altered=True, inserted=0, deleted=0, \
substituted=1, refused=False, empty=False, output='repaired'))

    Args:
        line: the input line.
        reply: the model's reply, as it came.
        on_altered: ``repair``, ``unsegmented`` or ``fail`` (see docs/LLM.md).
        number: the line's 1-based number, for the fidelity record.

    Raises:
        ValueError: ``on_altered`` is ``fail`` and the reply changed the text
            (or was empty, or refused); the message says how.
    """
    if on_altered not in ON_ALTERED:
        raise ValueError(f"on_altered must be one of {', '.join(ON_ALTERED)}, not {on_altered!r}")
    text = "".join(line.split())
    spaces = _ends(line.split())
    answer = extract_answer(reply, text)
    pred_words = answer.split()
    if not pred_words:
        fidelity = LineFidelity(number, True, 0, len(text), 0, empty=True, output="unsegmented")
        if on_altered == "fail":
            raise ValueError("the reply is empty")
        return cut_at(text, spaces), fidelity
    bounds, (inserted, deleted, substituted), same = project_boundaries(text, pred_words)
    altered = inserted + deleted + substituted > 0
    refused = same < REFUSAL_SHARE * len(text)
    output = "ok"
    if refused or (altered and on_altered == "unsegmented"):
        output, bounds = "unsegmented", []
    elif altered:
        output = "repaired"
    fidelity = LineFidelity(
        number, altered, inserted, deleted, substituted, refused=refused, output=output
    )
    if altered and on_altered == "fail":
        what = "refused" if refused else "changed the text"
        raise ValueError(
            f"the reply {what}: {inserted} inserted, {deleted} deleted, "
            f"{plural(substituted, 'substituted character')}"
        )
    return cut_at(text, [*bounds, *spaces]), fidelity
