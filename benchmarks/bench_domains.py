"""The cross-domain bake-off (``cws-bench bakeoff domains``), cold, on everything in ../shared.

One run of the bundled ``domains`` configuration with ``--data-dir`` the
shared corpora folder, into a fresh folder (no run cache), with the default
number of worker processes (the CPU count): every corpus there, the default
run's segmenters, closed rows on each corpus' own training data, Traditional
corpora also with their input converted by OpenCC t2s. Reported: wall time
against the 10-minute budget of a domains bake-off, the pairs, the characters
segmented, the CPU seconds each segmenter spent segmenting and loading (from
the results), and the machine's load average before and after (the machine is
shared: a loaded machine stretches the wall time, not the CPU seconds).
Target: a cold run within 600 s.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from common import table

from cws_bench.run.bakeoff import run_bakeoff

BUDGET_S = 600.0


def run(args) -> list[dict]:
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="cws-domains-") as folder:
        started = time.perf_counter()
        result = run_bakeoff(
            "domains",
            output_dir=Path(folder) / "out",
            data_dir=args.shared,
            use_cache=False,
            progress=False,
        )
        wall = time.perf_counter() - started
    load_after = os.getloadavg()[0]
    ok = [p for p in result.pairs if p.status == "ok"]
    per_segmenter: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for pair in ok:
        row = per_segmenter[pair.segmenter]
        row["pairs"] += 1
        row["characters"] += pair.timing.get("characters") or 0
        row["segment_s"] += pair.timing.get("segment_s") or 0.0
        row["load_s"] += pair.timing.get("load_s") or 0.0
    corpora = sorted({p.corpus for p in result.pairs})
    rows = [
        {
            "case": "domains bake-off, cold",
            "wall_s": round(wall, 1),
            "budget_s": BUDGET_S,
            "met": wall <= BUDGET_S,
            "pairs": len(result.pairs),
            "pairs_ok": len(ok),
            "corpora": corpora,
            "segmenters": sorted(per_segmenter),
            "jobs": result.settings.get("jobs"),
            "load_average_before": round(load_before, 2),
            "load_average_after": round(load_after, 2),
            "notes": result.settings.get("notes"),
        }
    ]
    rows += [
        {
            "case": f"segmenter {name}",
            "pairs": int(values["pairs"]),
            "characters": int(values["characters"]),
            "segment_s": round(values["segment_s"], 1),
            "load_s": round(values["load_s"], 1),
            "chars_per_s": round(values["characters"] / values["segment_s"])
            if values["segment_s"]
            else None,
        }
        for name, values in sorted(per_segmenter.items())
    ]
    print(
        f"   cold domains bake-off: {wall:.0f} s for {len(result.pairs)} pairs "
        f"({len(ok)} ok) on {len(corpora)} corpora, {result.settings.get('jobs')} jobs; "
        f"budget {BUDGET_S:.0f} s: {'met' if wall <= BUDGET_S else 'NOT met'} "
        f"(load average {load_before:.1f} before, {load_after:.1f} after)"
    )
    shown = [{**r, "segmenter": r["case"].removeprefix("segmenter ")} for r in rows[1:]]
    print(table(shown, ["segmenter", "pairs", "characters", "segment_s", "load_s", "chars_per_s"]))
    return rows
