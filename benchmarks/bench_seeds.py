"""Seeds in a bake-off (issue 44): the bundled ``seeds`` bake-off's wall time, what its
statistics cost, and what the two-level bootstrap shows against one seed per system.

Runs ``cws-bench bakeoff seeds`` (fmm, hmm and two crf taggers with seeds 1 to 5 on the
SIGHAN 2005 PKU test set and the sample) into a temporary folder: once as it comes (cold
when the crf models are not in the model cache yet), once more from the run cache under
cProfile, whose ``_statistics`` and ``seed_bootstrap_test`` times are what the statistics
add. Then it segments the PKU test set with each cached tagger and compares crf-bmes with
crf-bi seed by seed (``paired_bootstrap_test``) and over all five seeds
(``seed_bootstrap_test``). No target: the figures are the record (docs/BENCHMARKS.md).
"""

from __future__ import annotations

import cProfile
import pstats
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from common import table

from cws_bench.corpora import get_corpus
from cws_bench.metrics.significance import paired_bootstrap_test, seed_bootstrap_test
from cws_bench.run.bakeoff import run_bakeoff
from cws_bench.run.config import load_config
from cws_bench.scoring import score_sentences
from cws_bench.scoring.per_sentence import sentence_rows, statistics
from cws_bench.segmenters import get_segmenter

PROFILED = ("_statistics", "seed_comparisons", "seed_bootstrap_test", "write_reports")


def run(args: Any) -> list[dict[str, Any]]:
    data = str(Path(args.shared) / "icwb2-data")
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        run_bakeoff("seeds", output_dir=folder, data_dir=data, jobs=2)
        rows.append({"what": "bake-off, first run", "seconds": time.perf_counter() - started})
        profile = cProfile.Profile()
        started = time.perf_counter()
        profile.enable()
        again = run_bakeoff("seeds", output_dir=folder, data_dir=data, jobs=2)
        profile.disable()
        rows.append(
            {"what": "bake-off from the run cache", "seconds": time.perf_counter() - started}
        )
        assert all(p.cached for p in again.pairs)
        for (_, _, name), stats in pstats.Stats(profile).stats.items():  # type: ignore[attr-defined]
            if name in PROFILED:
                rows.append({"what": f"  of which {name} ({stats[1]} calls)", "seconds": stats[3]})
    print(table(rows, ["what", "seconds"]))
    gold = list(get_corpus("sighan2005-pku", data_dir=data).sentences("test"))
    raw = ["".join(words) for words in gold]
    counts: dict[str, list[np.ndarray]] = {}
    for spec in load_config("seeds").segmenters:
        if spec.seed_of:
            pred = get_segmenter(spec.name, **spec.options).segment(raw)
            result = score_sentences(gold, pred, per_line=True)
            counts.setdefault(spec.seed_of, []).append(np.asarray(sentence_rows(result)))
    f1 = statistics()["f1"]
    compared = []
    for seed, (a, b) in enumerate(zip(counts["crf-bmes"], counts["crf-bi"]), start=1):
        r = paired_bootstrap_test(a, b, f1, n_resamples=1000, seed=2005)
        compared.append({"test": f"paired bootstrap, seed {seed}", **_figures(r)})
    r = seed_bootstrap_test(counts["crf-bmes"], counts["crf-bi"], f1, n_resamples=1000, seed=2005)
    compared.append({"test": "two-level bootstrap, 5 seeds each", **_figures(r)})
    print(table(compared, ["test", "difference", "se", "p", "low", "high"]))
    return rows + compared


def _figures(result: Any) -> dict[str, float]:
    return {
        "difference": round(100 * result.difference, 3),
        "se": round(100 * result.standard_error, 4),
        "p": round(result.p_value, 4),
        "low": round(100 * result.low, 3),
        "high": round(100 * result.high, 3),
    }
