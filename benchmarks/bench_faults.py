"""Memory under hostile input: peak RSS against the input's size and against `score`.

- one long line: a 160,000-character line of 2-character words, every one
  split in the prediction (80,000 distinct errors). Each error used to keep
  a copy of the whole sentence (10.5 GB for `cws-bench diff`). Baseline:
  `cws-bench score` on the same files. Target: diff within 5x of score.
- large files: three 35 MB files of 200,000 lines (A = gold, B merges two
  words on one line in ten). Baseline: the files' size and `cws-bench score`
  of B. Target: diff's peak under 8x the input.
"""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

from common import BIN, peak_rss_of, run_process, table

TARGET_LONG_LINE = 5.0
TARGET_FILES = 8.0


def _long_line(folder: Path) -> tuple[Path, Path]:
    gold = [chr(0x4E00 + (2 * i) % 20000) + chr(0x4E01 + (2 * i) % 20000) for i in range(80000)]
    pred = [c for word in gold for c in word]
    (folder / "long_gold.txt").write_text(" ".join(gold) + "\n", encoding="utf-8")
    (folder / "long_pred.txt").write_text(" ".join(pred) + "\n", encoding="utf-8")
    return folder / "long_gold.txt", folder / "long_pred.txt"


def _large_files(folder: Path, lines: int = 200_000) -> tuple[Path, Path, Path]:
    rng = random.Random(3)
    chars = [chr(c) for c in range(0x4E00, 0x4E00 + 3000)]
    paths = folder / "a.txt", folder / "b.txt", folder / "gold.txt"
    with (
        open(paths[0], "w", encoding="utf-8") as fa,
        open(paths[1], "w", encoding="utf-8") as fb,
        open(paths[2], "w", encoding="utf-8") as fg,
    ):
        for i in range(lines):
            words = ["".join(rng.choices(chars, k=rng.choice((1, 2, 2, 3)))) for _ in range(25)]
            fg.write(" ".join(words) + "\n")
            fa.write(" ".join(words) + "\n")
            if i % 10 == 0:
                words = [*words[:5], words[5] + words[6], *words[7:]]
            fb.write(" ".join(words) + "\n")
    return paths


def run(args) -> list[dict]:
    cws = BIN / "cws-bench"
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        gold, pred = _long_line(folder)
        size = gold.stat().st_size + pred.stat().st_size
        score = peak_rss_of([cws, "score", gold, pred])
        diff = peak_rss_of([cws, "diff", gold, pred])
        rows.append(
            {
                "case": "one 160,000-char line",
                "input_mib": size / 2**20,
                "score_mib": score,
                "diff_mib": diff,
                "diff_s": run_process([cws, "diff", gold, pred], 1)["median_s"],
                "ratio": diff / score,
                "target": f"diff/score < {TARGET_LONG_LINE:g}",
            }
        )
        a, b, g = _large_files(folder)
        size = sum(p.stat().st_size for p in (a, b, g))
        score = peak_rss_of([cws, "score", g, b])
        argv = [cws, "diff", a, b, "--gold", g, "--resamples", "100"]
        diff = peak_rss_of(argv)
        rows.append(
            {
                "case": "three 35 MB files",
                "input_mib": size / 2**20,
                "score_mib": score,
                "diff_mib": diff,
                "diff_s": run_process(argv, 1)["median_s"],
                "ratio": diff / (size / 2**20),
                "target": f"diff/input < {TARGET_FILES:g}",
            }
        )
    print(table(rows, ["case", "input_mib", "score_mib", "diff_mib", "diff_s", "ratio", "target"]))
    return rows
