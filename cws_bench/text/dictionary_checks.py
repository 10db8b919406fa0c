"""Dictionary sanity: warnings for an OOV dictionary that is the gold, and for a leaked one.

Two mistakes make a score look better than it is, silently:

1. **The gold's own word list as the OOV dictionary** (:func:`coverage_warnings`):
   "OOV rate 0.00", and OOV and IV recalls that mean nothing. It fires when at
   least :data:`MIN_GOLD_WORDS` gold words are scored and fewer than
   :data:`MAX_OOV_RATE` of them are out of the dictionary.
2. **A leaked dictionary in the closed track** (:func:`leak_warnings`): the
   segmenter's dictionary holds test-gold words the training data (the scoring
   dictionary) does not. With at least :data:`MIN_OOV_TYPES` such gold word
   types, it fires when the segmenter's dictionary holds at least
   :data:`MAX_OOV_TYPE_SHARE` of them, or at least :data:`MIN_LEAKED` of them
   making up at least :data:`MAX_EXTRA_PRECISION` of its non-training words.

The thresholds come from the real corpora (``benchmarks/bench_crf.py`` prints
the figures; docs/BENCHMARKS-LOG.md, section "crf", has them):

- token OOV rate of each standard set-up (test gold against the training
  words): SIGHAN 2005 PKU 0.058, MSR 0.026, CityU 0.074, AS 0.043;
  pd1998 test against pd1998:train 0.026; SXU 0.051, ZX 0.065, WTB 0.176,
  UDC 0.124. The lowest, 0.026, is five times the threshold 0.005; at 1,000
  gold words a set-up at 0.026 (26 OOV words expected) shows 5 or fewer
  with probability below 1e-6;
- a large general dictionary that saw none of the test data (jieba's
  349,045 words) holds 11-80% of the gold's OOV types on these corpora
  (PKU 55%, MSR 31%, CityU 18%, AS 11%, pd1998 67%, SXU 63%, ZX 80%,
  WTB 74%, UDC 65%), and under 1% of its non-training words occur in the
  test gold; a leaked list holds all of them. Hence 90% and 50%.

A standard set-up (the segmenter's dictionary is the training word list)
holds none of the gold's OOV types, so neither warning can fire on it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cws_bench.text.dictionary import Dictionary

__all__ = [
    "COVERS_GOLD",
    "LEAK_NOTE",
    "MAX_EXTRA_PRECISION",
    "MAX_OOV_RATE",
    "MAX_OOV_TYPE_SHARE",
    "MIN_GOLD_WORDS",
    "MIN_LEAKED",
    "MIN_OOV_TYPES",
    "coverage_warnings",
    "is_leak_warning",
    "leak_warnings",
    "segmenter_leak_warnings",
]

LEAK_NOTE = "so this is not a closed-track result"
"""How every leak warning (:func:`leak_warnings`) ends: a row
with such a warning is shown, marked and never ranked."""


def is_leak_warning(warning: str) -> bool:
    """Whether ``warning`` is a leak warning (the row's closed-track dictionary saw the gold)."""
    return warning.endswith(LEAK_NOTE)


MIN_GOLD_WORDS = 1000
"""Gold words below which an OOV rate of zero can be chance."""
MAX_OOV_RATE = 0.005
"""An OOV rate below this says the dictionary holds (nearly) every gold word."""
MIN_OOV_TYPES = 20
"""Gold word types outside the training words below which no leak is judged."""
MAX_OOV_TYPE_SHARE = 0.9
"""A segmenter dictionary holding this share of the gold's OOV types has seen the gold."""
MIN_LEAKED = 20
"""Gold OOV types in the segmenter's dictionary below which the precision test is not made."""
MAX_EXTRA_PRECISION = 0.5
"""Share of the dictionary's non-training words that are test-gold words, above which it leaked."""
COVERS_GOLD = "dict-covers-gold"
"""The ``warn`` key of a signature whose OOV dictionary holds (nearly) every gold word."""


def coverage_warnings(gold_words: int, oov_words: int, dictionary: str | None = None) -> list[str]:
    """The warning when the OOV dictionary holds (nearly) every word of the gold, or none.

    >>> coverage_warnings(5000, 0, "pku_test_words.txt")[0][:60]
    'the OOV dictionary pku_test_words.txt holds 100.0% of the go'
    >>> coverage_warnings(5000, 130), coverage_warnings(200, 0)
    ([], [])
    """
    if gold_words < MIN_GOLD_WORDS or oov_words >= MAX_OOV_RATE * gold_words:
        return []
    named = f" {dictionary}" if dictionary else ""
    return [
        f"the OOV dictionary{named} holds {100 * (1 - oov_words / gold_words):.1f}% of the "
        f"gold's {gold_words:,} words (OOV rate {oov_words / gold_words:.4f}; the standard "
        f"set-ups have 0.026 or more): is it the test gold's own word list? The OOV and IV "
        "recalls mean nothing then; give the training data's word list"
    ]


def leak_warnings(
    segmenter_words: Iterable[str],
    training_words: Iterable[str],
    gold: Iterable[Sequence[str]],
    segmenter: str = "the segmenter",
) -> list[str]:
    """The warning when a closed-track dictionary holds test-gold words the training lacks.

    ``training_words`` are the training data's word types (the scoring dictionary);
    ``segmenter`` names the segmenter in the message.

    >>> gold = [[f"词{i}" for i in range(30)]]
    >>> leak_warnings({"词1", "词2"}, set(), gold)
    []
    >>> leak_warnings({f"词{i}" for i in range(30)}, set(), gold)[0][:46]
    'the segmenter holds 30 of the 30 gold word typ'
    """
    dictionary, training = (
        words if isinstance(words, (set, frozenset)) else set(words)
        for words in (segmenter_words, training_words)
    )
    unseen = {word for sentence in gold for word in sentence} - training
    if len(unseen) < MIN_OOV_TYPES:
        return []
    leaked = sum(1 for word in unseen if word in dictionary)
    extra = sum(1 for word in dictionary if word not in training)
    share = leaked / len(unseen)
    precision = leaked / extra if extra else 0.0
    if share < MAX_OOV_TYPE_SHARE and not (
        leaked >= MIN_LEAKED and precision >= MAX_EXTRA_PRECISION
    ):
        return []
    return [
        f"{segmenter} holds {leaked:,} of the {len(unseen):,} gold word types that are not in "
        f"the training words ({100 * share:.0f}%; {100 * precision:.0f}% of its {extra:,} words "
        "beyond the training words are test-gold words): its dictionary has seen the test gold "
        f"(a leak), {LEAK_NOTE}"
    ]


def segmenter_leak_warnings(
    segmenter: Any,
    track: str,
    gold: Iterable[Sequence[str]],
    dictionary: Dictionary | Iterable[str] | None,
) -> list[str]:
    """:func:`leak_warnings` for a closed-track segmenter that has a dictionary, else none.

    The segmenter's ``dictionary`` attribute, when it is a
    :class:`~cws_bench.text.dictionary.Dictionary`, is checked, on the ``closed`` track
    only, against ``dictionary``, the scoring (training-word) dictionary.
    """
    from cws_bench.text.dictionary import Dictionary

    words = getattr(segmenter, "dictionary", None)
    if track != "closed" or not isinstance(words, Dictionary) or dictionary is None:
        return []
    training = dictionary.words if isinstance(dictionary, Dictionary) else dictionary
    return leak_warnings(words.words, training, gold, f"closed-track {segmenter.name}")
