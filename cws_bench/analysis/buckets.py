"""Where a segmenter breaks: recall, precision and F1 by bucket, in the style of ExplainaBoard.

ExplainaBoard (Fu, Liu and Neubig 2020; Liu et al. 2021) explains a score by
cutting the test words into buckets by one attribute at a time and scoring
each bucket. For segmentation a word is a character span: a gold word is
recalled when the prediction has the same span, a predicted word is correct
when gold has it. Each gold word is put in a bucket by its own attribute
(recall = recalled gold words / gold words of the bucket), each predicted word
by its own (precision = correct predicted words / predicted words of the
bucket), and F1 = 2PR / (P + R). A correct word is the same string on both
sides, so it falls in the same bucket either way.

Attributes (:data:`ATTRIBUTES`):

``word_length``
    characters in the word: 1, 2, 3, 4, 5+.
``frequency``
    how often the word occurs in the training data: ``oov`` (never), ``rare``
    (1 to :data:`RARE_MAX` times), ``frequent`` (more). With only a word list
    (the SIGHAN training word lists carry no counts): ``oov`` and ``iv``.
``sentence_length``
    characters in the gold sentence the word is in: 1-10, 11-20, 21-40, 41-80, 81+.
``character_class``
    ``chinese`` (all Han: the CJK ideograph blocks by code point, Extensions B to I
    of the supplementary planes too), ``digits`` (all Unicode digits, e.g. ``2008``,
    ``２００８``), ``latin`` (all Latin letters, half- or full-width),
    ``punctuation`` (all punctuation or symbols), ``mixed`` (anything else,
    e.g. ``3月``).

Only lines whose gold and predicted characters agree are bucketed (others
are counted in ``skipped_lines``); counts are plain integers, so the buckets
of several files add up.
"""

from __future__ import annotations

import functools
import operator
import unicodedata
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from itertools import accumulate, repeat
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cws_bench.analysis.alignment import Aligned

__all__ = [
    "ATTRIBUTES",
    "RARE_MAX",
    "bucket_analysis",
    "character_class",
    "frequency_bucket",
    "sentence_length_bucket",
    "word_length_bucket",
]

RARE_MAX = 5
"""A word seen 1 to RARE_MAX times in the training data is rare; more often, frequent."""

ATTRIBUTES = ("word_length", "frequency", "sentence_length", "character_class")

_ORDER = {
    "word_length": ("1", "2", "3", "4", "5+"),
    "frequency": ("oov", "rare", "frequent", "iv"),
    "sentence_length": ("1-10", "11-20", "21-40", "41-80", "81+"),
    "character_class": ("chinese", "digits", "latin", "punctuation", "mixed"),
}


def word_length_bucket(word: str) -> str:
    """``1`` ... ``4``, or ``5+``.

    >>> word_length_bucket("中华人民共和国")
    '5+'
    """
    return str(len(word)) if len(word) < 5 else "5+"


def sentence_length_bucket(characters: int) -> str:
    """The bucket of a sentence of ``characters`` characters.

    >>> sentence_length_bucket(10), sentence_length_bucket(11), sentence_length_bucket(81)
    ('1-10', '11-20', '81+')
    """
    for high, name in ((10, "1-10"), (20, "11-20"), (40, "21-40"), (80, "41-80")):
        if characters <= high:
            return name
    return "81+"


def frequency_bucket(word: str, counts: Mapping[str, int] | None, words: Any = None) -> str:
    """``oov``/``rare``/``frequent`` by training counts, or ``oov``/``iv`` by a word list.

    >>> frequency_bucket("我们", {"我们": 9}), frequency_bucket("你们", {"你们": 2})
    ('frequent', 'rare')
    >>> frequency_bucket("他们", None, {"我们"})
    'oov'
    """
    if counts is not None:
        count = counts.get(word, 0)
        if count == 0:
            return "oov"
        return "rare" if count <= RARE_MAX else "frequent"
    return "iv" if words is not None and word in words else "oov"


# The Han ideograph blocks (Unicode 15.1), by code point rather than by unicodedata's
# names: those stop at the Unicode version of the running Python (3.11 knows no
# Extension H or I), and a name test is easy to get wrong for the supplementary planes
# (sacrebleu's Chinese tokenizer, its issue 298). The look-alike symbols of U+2000..U+2BFF
# (U+2A6D, U+2B50) are not in these blocks.
_HAN_BLOCKS: tuple[tuple[int, int], ...] = (
    (0x3005, 0x3005),  # 々
    (0x3007, 0x3007),  # 〇
    (0x3400, 0x4DBF),  # Extension A
    (0x4E00, 0x9FFF),  # the unified ideographs
    (0xF900, 0xFA6D),  # compatibility ideographs
    (0xFA70, 0xFAD9),
    (0x20000, 0x2A6DF),  # Extension B
    (0x2A700, 0x2B73F),  # Extension C
    (0x2B740, 0x2B81F),  # Extension D
    (0x2B820, 0x2CEAF),  # Extension E
    (0x2CEB0, 0x2EBEF),  # Extension F
    (0x2EBF0, 0x2EE5F),  # Extension I
    (0x2F800, 0x2FA1D),  # compatibility ideographs supplement
    (0x30000, 0x3134F),  # Extension G
    (0x31350, 0x323AF),  # Extension H
)
_HAN_STARTS = [low for low, _ in _HAN_BLOCKS]


def _is_han(char: str) -> bool:
    """Han script: a character of the CJK ideograph blocks (Extensions A to I, the
    compatibility ideographs), or 〇 (U+3007) and 々 (U+3005).

    >>> [_is_han(c) for c in "中\U00020000\U00031350\u2a6d\u2b50\u2001"]
    [True, True, True, False, False, False]
    """
    code = ord(char)
    index = bisect_right(_HAN_STARTS, code) - 1
    return index >= 0 and code <= _HAN_BLOCKS[index][1]


def character_class(word: str) -> str:
    """The class of a word's characters.

    >>> [character_class(w) for w in ["北京", "２００８", "NBA", "，", "3月", "ｉＰｈｏｎｅ"]]
    ['chinese', 'digits', 'latin', 'punctuation', 'mixed', 'latin']
    """
    mask = functools.reduce(operator.and_, map(_character_mask, map(ord, word)), 15)
    bits = (_HAN, _DIGIT, _LATIN, _PUNCTUATION)
    return next((name for name, bit in zip(_ORDER["character_class"], bits) if mask & bit), "mixed")


def _spans(words: Sequence[str]) -> list[tuple[int, int]]:
    ends = list(accumulate(map(len, words)))
    return list(zip([0, *ends[:-1]], ends))


def _count_sentences(
    sentences: Iterable[tuple[Sequence[str], Sequence[str]]],
    counts: Mapping[str, int] | None,
    words: Any,
) -> dict[str, Counter[tuple[str, str]]]:
    """The tallies ``(bucket, side) -> words`` of sentences whose characters agree, word
    by word (what :func:`bucket_analysis` does for sentences with an empty word)."""
    tallies: dict[str, Counter[tuple[str, str]]] = {name: Counter() for name in ATTRIBUTES}
    by_frequency = counts is not None or words is not None
    occurrences: Counter[tuple[str, str, str, bool]] = Counter()
    for gold_words, pred_words in sentences:
        sentence = sentence_length_bucket(len("".join(gold_words)))
        gold_spans, pred_spans = _spans(gold_words), _spans(pred_words)
        for side, side_words, side_spans, other in (
            ("gold", gold_words, gold_spans, set(pred_spans)),
            ("pred", pred_words, pred_spans, set(gold_spans)),
        ):
            occurrences.update(
                zip(side_words, repeat(sentence), repeat(side), [s in other for s in side_spans])
            )
    for (word, sentence, side, hit), n in occurrences.items():
        found = (
            word_length_bucket(word),
            frequency_bucket(word, counts, words) if by_frequency else "",
            sentence,
            character_class(word),
        )
        for name, bucket in zip(ATTRIBUTES, found):
            tally = tallies[name]
            tally[bucket, side] += n
            if hit and side == "gold":
                tally[bucket, "correct"] += n
    return tallies


# Bit masks of what a character is; a word is of a class when all its characters are.
_HAN, _DIGIT, _LATIN, _PUNCTUATION = 1, 2, 4, 8
_CHARACTER_MASKS: dict[int, int] = {}


def _character_mask(code: int) -> int:
    """The class bits of one character (the tests of :func:`character_class`), memoised."""
    mask = _CHARACTER_MASKS.get(code)
    if mask is None:
        char = chr(code)
        category = unicodedata.category(char)
        mask = (
            (_HAN if _is_han(char) else 0)
            | (_DIGIT if category == "Nd" else 0)
            | (_LATIN if category.startswith("L") and "LATIN" in unicodedata.name(char, "") else 0)
            | (_PUNCTUATION if category[0] in "PS" else 0)
        )
        _CHARACTER_MASKS[code] = mask
    return mask


def _class_indices(text: str, starts: Any) -> Any:
    """The :func:`character_class` of each word of ``text`` starting at ``starts`` (non-empty
    words covering the text), as indices into ``_ORDER["character_class"]``."""
    import numpy as np

    if not len(starts):
        return np.zeros(0, dtype=np.int8)
    codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")
    distinct = np.unique(codes)
    table = np.array([_character_mask(c) for c in distinct.tolist()], dtype=np.uint8)
    masks = np.empty(len(codes), dtype=np.uint8)  # a byte a character, made a chunk at a time
    for low in range(0, len(codes), _CHUNK):
        masks[low : low + _CHUNK] = table[np.searchsorted(distinct, codes[low : low + _CHUNK])]
    del codes
    word_masks = np.bitwise_and.reduceat(masks, starts)
    classes = np.full(len(starts), 4, dtype=np.int8)  # mixed
    for position, bit in reversed(list(enumerate((_HAN, _DIGIT, _LATIN, _PUNCTUATION)))):
        classes[(word_masks & bit) != 0] = position  # the first class that holds wins
    return classes


_CHUNK = 1 << 20
"""Characters whose classes are looked up at once."""


def _frequency_indices(
    side_words: Sequence[str], counts: Mapping[str, int] | None, words: Any
) -> Any:
    """:func:`frequency_bucket` of each word as indices into ``_ORDER["frequency"]``."""
    import numpy as np

    if counts is not None:
        seen = np.fromiter(map(counts.get, side_words, repeat(0)), np.int64, len(side_words))
        return np.where(seen == 0, 0, np.where(seen <= RARE_MAX, 1, 2)).astype(np.int8)
    contains = getattr(words, "__contains__", None) or (lambda w: w in words)
    known = np.fromiter(map(contains, side_words), bool, len(side_words))
    return np.where(known, 3, 0).astype(np.int8)


def bucket_analysis(
    gold: Iterable[Sequence[str]],
    pred: Iterable[Sequence[str]],
    *,
    counts: Mapping[str, int] | None = None,
    words: Any = None,
    aligned: Aligned | None = None,
) -> dict[str, Any]:
    """Recall, precision and F1 by bucket of every attribute.

    >>> result = bucket_analysis([["我们", "是", "学生"]], [["我们", "是学", "生"]])
    >>> [(b["bucket"], b["gold"], b["pred"], b["correct"]) for b in result["word_length"]]
    [('1', 1, 1, 0), ('2', 2, 2, 1)]

    Args:
        gold: gold sentences (lists of words).
        pred: predicted sentences, aligned with gold.
        counts: word -> frequency in the training data (``rare``/``frequent``), or None.
        words: a word list (a set) when there are no counts (``iv``), or None.
        aligned: :func:`cws_bench.analysis.alignment.align` of ``gold`` and ``pred``
            when the caller has it (then ``gold`` and ``pred`` are not read).

    Returns:
        attribute -> list of ``{bucket, gold, pred, correct, recall, precision, f1}``
        in the bucket order of the attribute (``frequency`` is empty without
        counts or a word list), plus ``skipped_lines`` and ``frequency_source``
        (``counts``, ``word list`` or ``none``).
    """
    import numpy as np

    if aligned is None:
        from cws_bench.analysis.alignment import align

        aligned = align(gold, pred)
    by_frequency = counts is not None or words is not None
    # Every word of the sentences without an empty word at once: each word's bucket
    # index per attribute (numpy), then the words of each bucket counted per side.
    regular_gold = aligned.regular[aligned.gold_sentence]
    regular_pred = aligned.regular[aligned.pred_sentence]
    sentence_chars = np.bincount(
        aligned.gold_sentence, weights=aligned.gold_lengths, minlength=len(aligned.lines)
    ).astype(np.int64)
    sentence_index = np.searchsorted([10, 20, 40, 80], sentence_chars).astype(np.int8)
    text = aligned.text

    def side_index(name: str, side: str) -> Any:
        """Each word's bucket of attribute ``name`` on one side (one attribute's arrays at
        a time: a pair of millions of words holds no more)."""
        lengths = getattr(aligned, f"{side}_lengths")
        if name == "word_length":
            return np.minimum(lengths, 5) - 1
        if name == "sentence_length":
            return sentence_index[getattr(aligned, f"{side}_sentence")]
        if name == "character_class":
            return _class_indices(text, getattr(aligned, f"{side}_ends") - lengths)
        return _frequency_indices(getattr(aligned, f"{side}_words"), counts, words)

    irregular = _count_sentences(aligned.irregular, counts, words)
    result: dict[str, Any] = {}
    for name in ATTRIBUTES:
        order = _ORDER[name]
        tallies = {side: [0] * len(order) for side in ("gold", "pred", "correct")}
        if name != "frequency" or by_frequency:
            gold_index, pred_index = side_index(name, "gold"), side_index(name, "pred")
            for side, index in (
                ("gold", gold_index[regular_gold]),
                ("pred", pred_index[regular_pred]),
                ("correct", gold_index[regular_gold & aligned.gold_hit]),
            ):
                tallies[side] = np.bincount(index, minlength=len(order)).tolist()
            del gold_index, pred_index
        for (bucket, side), n in irregular[name].items():
            if bucket in order:
                tallies[side][order.index(bucket)] += n
        result[name] = [
            {
                "bucket": bucket,
                "gold": n_gold,
                "pred": n_pred,
                "correct": correct,
                "recall": correct / n_gold if n_gold else None,
                "precision": correct / n_pred if n_pred else None,
                "f1": 2 * correct / (n_gold + n_pred),  # 0 when one side has no word there
            }
            for bucket, n_gold, n_pred, correct in zip(
                order, tallies["gold"], tallies["pred"], tallies["correct"]
            )
            if n_gold or n_pred
        ]
    result["skipped_lines"] = aligned.skipped
    result["frequency_source"] = (
        "counts" if counts is not None else "word list" if words is not None else "none"
    )
    return result
