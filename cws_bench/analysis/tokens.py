"""How a segmentation's tokens cut the gold's words: the figures of a tokenizer table.

Word P/R/F say how many words a segmenter got right; a subword tokenizer gets
few right by design, and what matters about it is how its cuts meet the
words. :func:`token_figures` gives, for an LLM's tokens and any segmenter's
words alike (the board shows both in one table):

- the precision and recall of token boundaries against the gold's word
  boundaries, and the share of tokens that **straddle** a gold boundary
  (hold the end of one word and the start of the next);
- the share of gold words **split** into two or more tokens, in-vocabulary and
  out-of-vocabulary words apart when a dictionary is given;
- tokens per gold word and per character;
- the **Rényi efficiency** of the tokens' unigram distribution at α = 2.5
  (Zouhar et al. 2023, "Tokenization and the Noiseless Channel", ACL, who
  found α = 2.5 to predict BLEU best): ``H_α(p) / log |V|`` with ``H_α(p) =
  log(Σ p_i^α) / (1 - α)``; 1 when every token type is equally frequent. ``|V|``
  is the number of token types seen, as the authors' ``tokenization-scorer``
  package does by default, since a word segmenter has no vocabulary size of
  its own.

Boundaries are positions between two characters of a line, the line's ends
excluded; lines must hold the same characters on both sides.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections import Counter
from collections.abc import Container, Iterable, Sequence
from dataclasses import asdict, dataclass
from itertools import accumulate
from typing import Any

__all__ = ["RENYI_ALPHA", "TokenFigures", "renyi_efficiency", "token_figures"]

RENYI_ALPHA = 2.5
"""The order of the Rényi efficiency (Zouhar et al. 2023's best predictor of BLEU)."""


def renyi_efficiency(counts: Iterable[int], alpha: float = RENYI_ALPHA) -> float | None:
    """The Rényi efficiency of a unigram distribution given by its counts, or None (< 2 types).

    >>> round(renyi_efficiency([1, 1, 1, 1]), 6)  # uniform: 1
    1.0
    >>> round(renyi_efficiency([6, 1, 1]), 4)
    0.4228
    """
    frequencies = [count for count in counts if count > 0]
    total = sum(frequencies)
    if len(frequencies) < 2 or alpha == 1.0:
        return None
    power = sum((count / total) ** alpha for count in frequencies)
    return math.log(power) / (1 - alpha) / math.log(len(frequencies))


@dataclass(frozen=True)
class TokenFigures:
    """How tokens cut gold words, summed over lines.

    Attributes:
        tokens: tokens (the segmenter's words).
        gold_words: gold words.
        chars: non-whitespace characters.
        straddling: tokens with a gold word boundary strictly inside them.
        boundaries_correct: internal token boundaries that are gold word boundaries.
        boundaries_predicted: internal token boundaries (between two tokens of a line).
        boundaries_gold: internal gold word boundaries.
        split_words: gold words with a token boundary strictly inside them.
        iv_words, iv_split: gold words in the dictionary, and those split (None without one).
        oov_words, oov_split: gold words not in it, and those split (None without one).
        types: distinct tokens.
        renyi_efficiency: of the tokens' unigram distribution (:data:`RENYI_ALPHA`).
    """

    tokens: int = 0
    gold_words: int = 0
    chars: int = 0
    straddling: int = 0
    boundaries_correct: int = 0
    boundaries_predicted: int = 0
    boundaries_gold: int = 0
    split_words: int = 0
    iv_words: int | None = None
    iv_split: int | None = None
    oov_words: int | None = None
    oov_split: int | None = None
    types: int = 0
    renyi_efficiency: float | None = None

    @property
    def straddling_share(self) -> float | None:
        """The share of tokens that straddle a gold word boundary."""
        return _fraction(self.straddling, self.tokens)

    @property
    def split_share(self) -> float | None:
        """The share of gold words split into two or more tokens."""
        return _fraction(self.split_words, self.gold_words)

    @property
    def iv_split_share(self) -> float | None:
        """The share of in-vocabulary gold words split (None without a dictionary)."""
        return _fraction(self.iv_split, self.iv_words)

    @property
    def oov_split_share(self) -> float | None:
        """The share of out-of-vocabulary gold words split (None without a dictionary)."""
        return _fraction(self.oov_split, self.oov_words)

    @property
    def tokens_per_word(self) -> float | None:
        return _fraction(self.tokens, self.gold_words)

    @property
    def tokens_per_char(self) -> float | None:
        return _fraction(self.tokens, self.chars)

    @property
    def boundary_precision(self) -> float | None:
        return _fraction(self.boundaries_correct, self.boundaries_predicted)

    @property
    def boundary_recall(self) -> float | None:
        return _fraction(self.boundaries_correct, self.boundaries_gold)

    def to_dict(self) -> dict[str, Any]:
        """The counts, then every figure (each property, in the class's order; JSON-safe)."""
        figures = [
            name for name, value in vars(TokenFigures).items() if isinstance(value, property)
        ]
        return {**asdict(self), **{name: getattr(self, name) for name in figures}}


def _fraction(part: int | None, whole: int | None) -> float | None:
    return part / whole if part is not None and whole else None


def _ends(words: Sequence[str]) -> list[int]:
    return list(accumulate(map(len, words)))


def token_figures(
    gold: Iterable[Sequence[str]],
    tokens: Iterable[Sequence[str]],
    *,
    dictionary: Container[str] | None = None,
    skip_differing: bool = False,
) -> TokenFigures:
    """How ``tokens`` cut the ``gold`` words, line by line.

    With ``skip_differing``, a line whose gold and tokens hold different text
    (a corpus quirk) is left out; without it, such a line raises ValueError.

    >>> f = token_figures([["北京市", "气象台"]], [["北京", "市气", "象台"]], dictionary={"北京市"})
    >>> f.straddling, f.boundaries_correct, f.boundaries_predicted, f.boundaries_gold
    (1, 0, 2, 1)
    >>> f.split_words, f.iv_split, f.oov_split
    (2, 1, 1)
    """
    totals = Counter[str]()
    types = Counter[str]()
    for number, (gold_words, token_words) in enumerate(zip(gold, tokens, strict=True), 1):
        gold_ends, token_ends = _ends(gold_words), _ends(token_words)
        length = gold_ends[-1] if gold_ends else 0
        if (token_ends[-1] if token_ends else 0) != length or (
            skip_differing and "".join(gold_words) != "".join(token_words)
        ):
            if skip_differing:
                continue
            raise ValueError(f"line {number}: the tokens and the gold hold different text")
        inner_gold, inner_tokens = gold_ends[:-1], token_ends[:-1]
        totals["straddling"] += sum(_split(token_ends, inner_gold))
        split = _split(gold_ends, inner_tokens)
        totals["split_words"] += sum(split)
        if dictionary is not None:
            for word, cut in zip(gold_words, split):
                side = "iv" if word in dictionary else "oov"
                totals[f"{side}_words"] += 1
                totals[f"{side}_split"] += cut
        totals["tokens"] += len(token_words)
        totals["gold_words"] += len(gold_words)
        totals["chars"] += length
        totals["boundaries_correct"] += len(set(inner_tokens).intersection(inner_gold))
        totals["boundaries_predicted"] += len(inner_tokens)
        totals["boundaries_gold"] += len(inner_gold)
        types.update(token_words)
    fields = {name: totals[name] for name in TokenFigures.__dataclass_fields__ if name in totals}
    if dictionary is not None:
        fields |= {key: totals[key] for key in ("iv_words", "iv_split", "oov_words", "oov_split")}
    return TokenFigures(
        **fields, types=len(types), renyi_efficiency=renyi_efficiency(types.values())
    )


def _split(ends: Sequence[int], inner: Sequence[int]) -> list[bool]:
    """For each span ending at ``ends``: whether a sorted position of ``inner`` is strictly
    inside it."""
    found, start = [], 0
    for end in ends:
        first = bisect_left(inner, start + 1)
        found.append(first < len(inner) and inner[first] < end)
        start = end
    return found
