"""A/A calibration of the paired tests (issue 44): how often is "significantly
better" wrong?

Two pseudo-systems are made from two real segmentations of the SIGHAN 2005
PKU test set (``cws_bench.metrics.calibration.pseudo_systems``): each takes,
sentence by sentence and at random, one of the two real outputs, so both
have the same expected F1 while their errors look like real systems'. Each
paired test (the bootstrap and approximate randomization, 1000 resamples or
shuffles) is run on ``COMPARISONS`` such pairs, and its false-positive rate
at α = 0.05 is reported with its 95% Wilson interval. A calibrated test's
interval holds 0.05 or lies under it.

Power, from the same study: with an injected difference of one minimum
detectable effect (``bias``: pseudo-system A takes the better output more
often than B; the MDE from the bootstrap standard error of five A/A pairs),
each test should find the difference in about 80% of ``POWER_COMPARISONS``
pairs. A pair of outputs too alike to inject that much is skipped.

The two-level bootstrap over seeds and sentences (``SEED_POOL`` runs of one
trainable system, a perceptron tagger ``crf`` trained on People's Daily 1998
with seeds 1 to ``SEED_POOL``, five epochs without word-list features, as the
bundled ``seeds`` bake-off; each A/A comparison draws ``PER_SIDE`` seeds for A
and as many others for B, ``cws_bench.metrics.calibration.seed_aa_study``):
its false-positive rate on ``COMPARISONS`` comparisons, with its Wilson
interval. ``CWS_BENCH_CALIBRATION_ONLY=seeds`` runs only this part.

The real outputs are made here (jieba, pkuseg, fmm and bmm with the PKU
training words) unless they are in ``CWS_BENCH_CALIBRATION_DIR`` already
(``<name>.txt``, one segmented line per test line). No target: the rates are
the record (docs/BENCHMARKS.md).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import numpy as np
from common import table

from cws_bench.metrics.calibration import aa_study, pseudo_systems, seed_aa_study
from cws_bench.metrics.significance import (
    fscore_statistic,
    minimum_detectable_effect,
    paired_bootstrap_test,
)
from cws_bench.scoring import score_files
from cws_bench.scoring.per_sentence import sentence_rows
from cws_bench.segmenters import get_segmenter
from cws_bench.text.io import iter_lines

COMPARISONS = int(os.environ.get("CWS_BENCH_CALIBRATION_COMPARISONS", "1000"))
POWER_COMPARISONS = int(os.environ.get("CWS_BENCH_POWER_COMPARISONS", "500"))
RESAMPLES = 1000
ALPHA = 0.05
SEED = 2005
PAIRS = (("jieba", "pkuseg"), ("fmm", "bmm"))
SEED_POOL = int(os.environ.get("CWS_BENCH_CALIBRATION_SEEDS", "12"))
PER_SIDES = (1, 3)
ONLY = os.environ.get("CWS_BENCH_CALIBRATION_ONLY", "")
CRF = {"corpus": "pd1998", "split": "train", "tags": "bmes", "epochs": 5, "word_features": False}


def seed_outputs(shared: Path, folder: Path) -> dict[int, Path]:
    """The crf tagger's output on the PKU test input for each seed of the pool, made once
    (the models kept in the user's model cache)."""
    raw = None
    found = {}
    for seed in range(1, SEED_POOL + 1):
        path = folder / f"crf-seed{seed}.txt"
        if not path.exists():
            raw = raw or list(iter_lines(shared / "icwb2-data" / "testing" / "pku_test.utf8"))
            tagger = get_segmenter("crf", **CRF, seed=seed, cache=True)
            segmented = tagger.segment(raw)
            path.write_text("".join(" ".join(w) + "\n" for w in segmented), encoding="utf-8")
        found[seed] = path
    return found


def seed_rows(args: Any, folder: Path, gold: Path) -> list[dict[str, Any]]:
    """The two-level bootstrap's A/A rate: crf against itself, PER_SIDE seeds a side."""
    started = time.perf_counter()
    made = seed_outputs(args.shared, folder)
    made_in = time.perf_counter() - started
    pool = [
        np.asarray(sentence_rows(score_files(gold, path, per_line=True)), dtype=np.float64)
        for path in made.values()
    ]
    f1 = fscore_statistic()
    scores = [float(f1(counts.sum(axis=0)[None, :])[0]) for counts in pool]
    print(
        f"crf, {len(pool)} seeds: F1 {np.mean(scores):.4f} ± {np.std(scores, ddof=1):.4f} "
        f"({min(scores):.4f}-{max(scores):.4f}); outputs in {made_in:.0f} s"
    )
    rows = []
    for per_side in PER_SIDES:
        started = time.perf_counter()
        rate = seed_aa_study(
            pool,
            f1,
            per_side=per_side,
            comparisons=COMPARISONS,
            n_resamples=RESAMPLES,
            alpha=ALPHA,
            seed=SEED,
        )
        seconds = time.perf_counter() - started
        rows.append(
            {
                "pair": f"crf/crf {per_side}+{per_side} of {len(pool)} seeds",
                "bias": 0.0,
                **rate.to_dict(),
                "seconds": seconds,
            }
        )
    return rows


def outputs(shared: Path, folder: Path) -> dict[str, Path]:
    """Each segmenter's output on the PKU test input, made once."""
    data = shared / "icwb2-data"
    words = str(data / "gold" / "pku_training_words.utf8")
    options: dict[str, dict[str, Any]] = {
        "jieba": {},
        "pkuseg": {},
        "fmm": {"dictionary": words},
        "bmm": {"dictionary": words},
    }
    folder.mkdir(parents=True, exist_ok=True)
    found = {}
    raw = None
    for name, given in options.items():
        path = folder / f"{name}.txt"
        if not path.exists():
            raw = raw or list(iter_lines(data / "testing" / "pku_test.utf8"))
            segmented = get_segmenter(name, **given).segment(raw)
            path.write_text("".join(" ".join(w) + "\n" for w in segmented), encoding="utf-8")
        found[name] = path
    return found


def run(args: Any) -> list[dict[str, Any]]:
    folder = Path(
        os.environ.get("CWS_BENCH_CALIBRATION_DIR", Path(__file__).parent / "results" / "pku")
    )
    gold = args.shared / "icwb2-data" / "gold" / "pku_test_gold.utf8"
    if ONLY == "seeds":
        rows = seed_rows(args, folder, gold)
        print(table(rows, ["pair", "test", "comparisons", "rejections", "rate", "low", "high"]))
        return rows
    made = outputs(args.shared, folder)
    counts = {
        name: np.asarray(sentence_rows(score_files(gold, path, per_line=True)), dtype=np.float64)
        for name, path in made.items()
    }
    rows = []
    f1 = fscore_statistic()
    for x, y in PAIRS:
        if COMPARISONS:
            started = time.perf_counter()
            rates = aa_study(
                counts[x],
                counts[y],
                f1,
                comparisons=COMPARISONS,
                n_resamples=RESAMPLES,
                alpha=ALPHA,
                seed=SEED,
            )
            seconds = time.perf_counter() - started
            for rate in rates.values():
                rows.append({"pair": f"{x}/{y}", "bias": 0.0, **rate.to_dict(), "seconds": seconds})
        # power at one MDE
        advantage = float(
            f1(counts[x].sum(axis=0)[None, :])[0] - f1(counts[y].sum(axis=0)[None, :])[0]
        )
        errors = [
            paired_bootstrap_test(
                *pseudo_systems(counts[x], counts[y], np.random.default_rng([SEED, 1_000_000, s])),
                f1,
                n_resamples=RESAMPLES,
                seed=s,
            ).standard_error
            for s in range(5)
        ]
        mde = minimum_detectable_effect(float(np.mean(errors)), alpha=ALPHA)
        bias = mde / (2 * advantage)
        if not POWER_COMPARISONS or abs(bias) > 0.5:
            print(f"{x}/{y}: one MDE ({mde:.4f}) needs bias {bias:.2f}: power not measured")
            continue
        started = time.perf_counter()
        rates = aa_study(
            counts[x],
            counts[y],
            f1,
            comparisons=POWER_COMPARISONS,
            n_resamples=RESAMPLES,
            alpha=ALPHA,
            seed=SEED,
            bias=bias,
        )
        seconds = time.perf_counter() - started
        for rate in rates.values():
            rows.append(
                {"pair": f"{x}/{y}", "bias": bias, "mde": mde, **rate.to_dict(), "seconds": seconds}
            )
    if COMPARISONS:
        rows += seed_rows(args, folder, gold)
    print(table(rows, ["pair", "bias", "test", "comparisons", "rejections", "rate", "low", "high"]))
    return rows
