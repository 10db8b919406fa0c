"""One huge line, millions of empty lines, a large diff: time and peak memory of whole commands.

- a bake-off (fmm and hmm) whose corpus is one line of 20 MB (about 6.7 million
  characters in words of 1 to 3 characters, most of them wrong in fmm's and
  hmm's output, so the error analysis meets millions of distinct errors). It
  was quadratic in the line's length (611 s and 3.2 GB on the probe's
  machine). Baseline: `cws-bench score` of the same gold against itself.
  Target: under 60 s and 1 GiB.
- a bake-off whose corpus is 2 million lines, all empty but one in a thousand.
  Target: under 1 GiB.
- `cws-bench diff` of two files of 400,000 lines (133.5 MiB in all; B merges two
  words on one line in ten), and of 1,200,000 lines: streamed, its peak should not
  grow with the lines. Target: at most 1 GiB.
- `cws-bench diff` of one line of 20 MB (the same random words as the bake-off's
  line; B merges every tenth pair of words and splits every seventh word of two
  characters or more: 649,201 changes, 646,969 distinct patterns), as text, JSON,
  HTML and text against a gold (every twentieth pair merged). It was super-linear
  (issue 40: 320k characters 1.4 s, 640k 21.8 s, 20 MB killed at 300 s with 3-4 GiB).
  Target: under 60 s and 1 GB, every format.

Run as ``python benchmarks/run.py hugeline`` (or ``python benchmarks/bench_hugeline.py``),
with ``--quick`` for inputs a tenth of the size, ``--only=diff`` or ``--only=bakeoff``
or ``--only=longdiff`` for one kind of case.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from common import BIN, peak_rss_of, table

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_DICT = ROOT / "dictionaries" / "sample.txt"
SAMPLE_GOLD = ROOT / "corpora" / "sample" / "gold.txt"  # hmm learns from it
CHARS = [chr(c) for c in range(0x4E00, 0x4E00 + 3000)]


def _words(rng: random.Random, count: int) -> list[str]:
    return ["".join(rng.choices(CHARS, k=rng.choice((1, 2, 2, 3)))) for _ in range(count)]


def _one_line(folder: Path, megabytes: float) -> Path:
    rng = random.Random(5)
    words = _words(rng, int(megabytes * 2**20 / 3 / 2))  # ~2 characters of 3 bytes a word
    path = folder / "line.txt"
    path.write_text(" ".join(words) + "\n", encoding="utf-8")
    return path


def _empty_lines(folder: Path, lines: int) -> Path:
    rng = random.Random(6)
    path = folder / "empty.txt"
    with open(path, "w", encoding="utf-8") as f:
        for i in range(lines):
            f.write(" ".join(_words(rng, 10)) + "\n" if i % 1000 == 0 else "\n")
    return path


def _pair(folder: Path, lines: int) -> tuple[Path, Path]:
    rng = random.Random(3)
    a, b = folder / "a.txt", folder / "b.txt"
    with open(a, "w", encoding="utf-8") as fa, open(b, "w", encoding="utf-8") as fb:
        for i in range(lines):
            words = _words(rng, 25)
            fa.write(" ".join(words) + "\n")
            if i % 10 == 0:
                words = [*words[:5], words[5] + words[6], *words[7:]]
            fb.write(" ".join(words) + "\n")
    return a, b


def _long_line_pair(folder: Path, megabytes: float) -> tuple[Path, Path, Path]:
    """A, B and a gold of one line: A the random words of :func:`_one_line`; B merges every
    tenth pair of A's words and splits every seventh word of two characters or more; the
    gold merges every twentieth pair (the 5th and 6th of each twenty)."""
    rng = random.Random(5)
    words = _words(rng, int(megabytes * 2**20 / 3 / 2))
    b: list[str] = []
    gold: list[str] = []
    i = 0
    while i < len(words):
        if i % 10 == 0 and i + 1 < len(words):
            b.append(words[i] + words[i + 1])
            i += 2
        elif i % 7 == 0 and len(words[i]) > 1:
            b.extend((words[i][0], words[i][1:]))
            i += 1
        else:
            b.append(words[i])
            i += 1
    i = 0
    while i < len(words):
        if i % 20 == 5 and i + 1 < len(words):
            gold.append(words[i] + words[i + 1])
            i += 2
        else:
            gold.append(words[i])
            i += 1
    paths = (folder / "long-a.txt", folder / "long-b.txt", folder / "long-gold.txt")
    for path, side in zip(paths, (words, b, gold)):
        path.write_text(" ".join(side) + "\n", encoding="utf-8")
    return paths


def _config(folder: Path, gold: Path) -> Path:
    body = f"""
        name = "huge"
        resamples = 100

        [[corpora]]
        label = "huge"
        gold = "{gold}"
        dictionary = "{SAMPLE_DICT}"

        [[segmenters]]
        name = "fmm"
        options = {{ lexicon = "{SAMPLE_DICT}" }}

        [[segmenters]]
        name = "hmm"
        options = {{ corpus = "{SAMPLE_GOLD}" }}
    """
    path = folder / f"{gold.stem}.toml"
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return path


def _timed(argv: list) -> tuple[float, float, float]:
    """Wall seconds, peak RSS (MiB) and CPU seconds (user + system, the command and its
    workers) of one run: on a shared machine the CPU time says more than the wall time."""
    if not Path("/usr/bin/time").exists():
        started = time.perf_counter()
        return time.perf_counter() - started, peak_rss_of(argv), float("nan")
    started = time.perf_counter()
    proc = subprocess.run(
        ["/usr/bin/time", "-f", "%M %U %S", *map(os.fspath, argv)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        check=True,
    )
    seconds = time.perf_counter() - started
    peak, user, system = proc.stderr.decode().strip().splitlines()[-1].split()
    return seconds, int(peak) / 1024, float(user) + float(system)


def _bakeoff_cases(cws: Path, folder: Path, scale: float) -> list[dict]:
    rows = []
    cases = [
        (f"one {20 * scale:g} MB line", _one_line(folder, 20 * scale), "60 s, 1 GiB"),
        (
            f"{int(2e6 * scale):,} mostly empty lines",
            _empty_lines(folder, int(2e6 * scale)),
            "1 GiB",
        ),
    ]
    for name, gold, target in cases:
        score_s, score_mib, _ = _timed([cws, "score", gold, gold])
        out = folder / f"out-{gold.stem}"
        argv = [cws, "bakeoff", _config(folder, gold), "-o", out, "--jobs", "1", "--quiet"]
        argv += ["--no-cache"]
        seconds, peak, cpu = _timed(argv)
        rows.append(
            {
                "case": f"bakeoff fmm+hmm, {name}",
                "input_mib": gold.stat().st_size / 2**20,
                "baseline": f"score {score_s:.1f} s {score_mib:.0f} MiB",
                "seconds": seconds,
                "cpu_s": cpu,
                "peak_mib": peak,
                "target": target,
            }
        )
    return rows


def _diff_cases(cws: Path, folder: Path, scale: float) -> list[dict]:
    """The same kind of pair at 400,000 and 1,200,000 lines: a streamed diff's peak stays
    flat. As text, then as JSON against a gold (A itself: every change B makes breaks
    agreement), which writes every changed line."""
    rows = []
    for lines in (int(400_000 * scale), int(1_200_000 * scale)):
        a, b = _pair(folder, lines)
        score_s, score_mib, _ = _timed([cws, "score", a, b])
        for name, extra in (
            ("diff A B", ["-o", folder / "diff.txt"]),
            ("diff A B --gold A, JSON", ["--gold", a, "--format", "json", "-o", folder / "d.json"]),
        ):
            seconds, peak, cpu = _timed([cws, "diff", a, b, *extra])
            rows.append(
                {
                    "case": f"{name}, {lines:,} lines",
                    "input_mib": (a.stat().st_size + b.stat().st_size) / 2**20,
                    "baseline": f"score {score_s:.1f} s {score_mib:.0f} MiB",
                    "seconds": seconds,
                    "cpu_s": cpu,
                    "peak_mib": peak,
                    "target": "1 GiB",
                }
            )
    return rows


def _long_line_diff_cases(cws: Path, folder: Path, scale: float) -> list[dict]:
    """``diff`` of one line of 20 MB in each output format, and against a gold."""
    a, b, gold = _long_line_pair(folder, 20 * scale)
    score_s, score_mib, _ = _timed([cws, "score", a, b])
    rows = []
    for name, extra in (
        ("text", ["-o", folder / "long.txt"]),
        ("json", ["--format", "json", "-o", folder / "long.json"]),
        ("html", ["--format", "html", "-o", folder / "long.html"]),
        ("--gold, text", ["--gold", gold, "-o", folder / "long-gold.txt"]),
    ):
        seconds, peak, cpu = _timed([cws, "diff", a, b, *extra])
        rows.append(
            {
                "case": f"diff A B, one {20 * scale:g} MB line, {name}",
                "input_mib": (a.stat().st_size + b.stat().st_size) / 2**20,
                "baseline": f"score {score_s:.1f} s {score_mib:.0f} MiB",
                "seconds": seconds,
                "cpu_s": cpu,
                "peak_mib": peak,
                "target": "60 s, 1 GB",
            }
        )
    return rows


def run(args) -> list[dict]:
    quick = getattr(args, "quick", False) or "--quick" in sys.argv
    scale = 0.1 if quick else 1.0
    cws = BIN / "cws-bench"
    rows = []
    only = next((arg.split("=", 1)[1] for arg in sys.argv if arg.startswith("--only=")), None)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if only in (None, "bakeoff"):
            rows += _bakeoff_cases(cws, folder, scale)
        if only in (None, "diff"):
            rows += _diff_cases(cws, folder, scale)
        if only in (None, "longdiff"):
            rows += _long_line_diff_cases(cws, folder, scale)
    columns = ["case", "input_mib", "baseline", "seconds", "cpu_s", "peak_mib", "target"]
    print(table(rows, columns))
    return rows


if __name__ == "__main__":
    run(None)
