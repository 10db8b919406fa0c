"""The general metrics against the obvious alternatives, in one process.

- significance: 1000 bootstrap resamples of ~20,000 sentences' (correct,
  predicted, gold) counts (five copies of the SIGHAN 2005 MSR test gold
  against a deterministic corruption of it: every third pair of words
  merged). Ours (multiplicity matrix times counts, in chunks) against the
  textbook loop (one resample at a time, by fancy indexing) and
  ``scipy.stats.bootstrap`` (vectorised, every resample materialised); all
  three must give the same interval, since they draw the same indices.
  Target: well under a second, faster than both; memory: the peak of Python
  allocations (tracemalloc, which sees numpy's buffers) below 100 MiB.
- classification: ``classification_report`` of one million BMES tags
  against scikit-learn's. Target: within 2x.
- generation: corpus BLEU of the same ~20,000 sentences, characters as
  tokens, against sacrebleu with ``tokenize="none"``. Target: within 2x.
"""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable

import numpy as np
from common import best_of, table

from cws_bench.metrics.classification import classification_report
from cws_bench.metrics.generation import corpus_bleu
from cws_bench.metrics.significance import bootstrap_confidence_interval, fscore_statistic
from cws_bench.scoring import count_sentence
from cws_bench.text.io import read_segmented

COPIES = 5
RESAMPLES = 1000
SEED = 12345


def corrupt(words: list[str]) -> list[str]:
    """Merge every third pair of words: a prediction that is wrong in a known way."""
    out: list[str] = []
    i = 0
    while i < len(words):
        if i % 6 == 0 and i + 1 < len(words):
            out.append(words[i] + words[i + 1])
            i += 2
        else:
            out.append(words[i])
            i += 1
    return out


def bmes(words: list[str]) -> list[str]:
    tags = []
    for word in words:
        tags += ["S"] if len(word) == 1 else ["B", *["M"] * (len(word) - 2), "E"]
    return tags


def textbook_bootstrap(counts: np.ndarray, n_resamples: int, seed: int) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    n = counts.shape[0]
    values = []
    for row in rng.integers(0, n, (n_resamples, n)):
        correct, predicted, gold = counts[row].sum(axis=0)
        values.append(2 * correct / (predicted + gold))
    low, high = np.quantile(values, [0.025, 0.975])
    return float(low), float(high)


def scipy_bootstrap(counts: np.ndarray, n_resamples: int, seed: int) -> tuple[float, float]:
    from scipy.stats import bootstrap

    def f1(correct, predicted, gold, axis):
        return 2 * correct.sum(axis=axis) / (predicted.sum(axis=axis) + gold.sum(axis=axis))

    result = bootstrap(
        tuple(counts.T),
        f1,
        n_resamples=n_resamples,
        vectorized=True,
        paired=True,
        method="percentile",
        rng=np.random.default_rng(seed),
    )
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def peak_mib(function: Callable[[], object]) -> float:
    tracemalloc.start()
    try:
        function()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def run(args) -> list[dict]:
    gold_path = args.shared / "icwb2-data" / "gold" / "msr_test_gold.utf8"
    gold = [words for words in read_segmented(gold_path) if words] * COPIES
    pred = [corrupt(words) for words in gold]
    counts = np.array(
        [(c.correct, c.pred, c.gold) for c in (count_sentence(g, p) for g, p in zip(gold, pred))]
    )
    rows = []

    # significance
    statistic = fscore_statistic()

    def ours():
        interval = bootstrap_confidence_interval(
            counts, statistic, n_resamples=RESAMPLES, seed=SEED
        )
        return interval.low, interval.high

    ours_s, ours_interval = best_of(ours, args.repeat)
    loop_s, loop_interval = best_of(
        lambda: textbook_bootstrap(counts, RESAMPLES, SEED), max(1, args.repeat // 2)
    )
    try:
        scipy_s, scipy_interval = best_of(
            lambda: scipy_bootstrap(counts, RESAMPLES, SEED), max(1, args.repeat // 2)
        )
    except ImportError:
        scipy_s, scipy_interval = float("nan"), ours_interval
    same = np.allclose(ours_interval, loop_interval, atol=1e-12) and np.allclose(
        ours_interval, scipy_interval, atol=1e-12
    )
    rows.append(
        {
            "benchmark": f"bootstrap {RESAMPLES} x {counts.shape[0]:,} sentences",
            "ours_s": ours_s,
            "baseline": "textbook loop",
            "baseline_s": loop_s,
            "ratio": ours_s / loop_s,
            "other": "scipy.stats.bootstrap",
            "other_s": scipy_s,
            "same_result": bool(same),
            "peak_mib": peak_mib(ours),
            "target_met": bool(same and ours_s < 1.0 and ours_s < loop_s and ours_s < scipy_s),
        }
    )

    # classification
    tags_true: list[str] = []
    tags_pred: list[str] = []
    for g, p in zip(gold, pred):
        tags_true += bmes(g)
        tags_pred += bmes(p)
    tags_true, tags_pred = tags_true[:1_000_000], tags_pred[:1_000_000]
    ours_s, report = best_of(lambda: classification_report(tags_true, tags_pred), args.repeat)
    try:
        from sklearn.metrics import classification_report as sklearn_report

        theirs_s, theirs = best_of(lambda: sklearn_report(tags_true, tags_pred), args.repeat)
        same = str(report) == theirs
    except ImportError:
        theirs_s, same = float("nan"), True
    rows.append(
        {
            "benchmark": f"classification_report, {len(tags_true):,} BMES tags",
            "ours_s": ours_s,
            "baseline": "scikit-learn",
            "baseline_s": theirs_s,
            "ratio": ours_s / theirs_s,
            "same_result": bool(same),
            "target_met": bool(same and ours_s < 2 * theirs_s),
        }
    )

    # generation
    predictions = [list("".join(words)) for words in pred]
    references = [[list("".join(words))] for words in gold]
    # a real difference: drop the last character of every other prediction
    predictions = [p[:-1] if i % 2 else p for i, p in enumerate(predictions)]
    ours_s, bleu = best_of(lambda: corpus_bleu(predictions, references), args.repeat)
    try:
        from sacrebleu.metrics import BLEU

        metric = BLEU(tokenize="none")
        hyps = [" ".join(p) for p in predictions]
        streams = [[" ".join(r[0]) for r in references]]
        theirs_s, theirs = best_of(lambda: metric.corpus_score(hyps, streams), args.repeat)
        same = abs(bleu.score - theirs.score / 100) < 1e-9
    except ImportError:
        theirs_s, same = float("nan"), True
    rows.append(
        {
            "benchmark": f"corpus BLEU, {len(predictions):,} sentences (characters)",
            "ours_s": ours_s,
            "baseline": "sacrebleu",
            "baseline_s": theirs_s,
            "ratio": ours_s / theirs_s,
            "same_result": bool(same),
            "target_met": bool(same and ours_s < 2 * theirs_s),
        }
    )
    print(
        table(
            rows,
            ["benchmark", "ours_s", "baseline", "baseline_s", "ratio", "same_result", "target_met"],
        )
    )
    print(f"   bootstrap: scipy {rows[0]['other_s']:.3f} s; peak {rows[0]['peak_mib']:.1f} MiB")
    return rows
