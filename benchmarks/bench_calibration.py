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

from cws_bench.metrics.calibration import aa_study, pseudo_systems
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
    made = outputs(args.shared, folder)
    gold = args.shared / "icwb2-data" / "gold" / "pku_test_gold.utf8"
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
    print(table(rows, ["pair", "bias", "test", "comparisons", "rejections", "rate", "low", "high"]))
    return rows
