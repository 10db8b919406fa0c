"""Writing the default bake-off's reports: this tree against the code before the line-reduction
pass of issue 41, CPU time, in one run.

The bake-off's serial tail is :func:`cws_bench.reports.write_reports` (results.json,
results.csv, leaderboard.md, report.html with its matplotlib charts, leaderboard.tex).
Both trees write the reports of the same result, the default bake-off's
(``cws-bench bakeoff --jobs 2``: People's Daily 1998 and the sample corpus, 7
segmenters): run once with this tree into a temporary folder, or read from
CWS_BENCH_REPORTS_RESULTS (a results.json of that bake-off) to skip the run.

- the baseline: cws_bench at commit :data:`BASELINE`, extracted with ``git archive``
  (the reports' code needs no compiled extension of its own; those of this tree
  are copied beside it);
- this tree.

Each is timed in a process of its own (``python -c``, the package on PYTHONPATH) that
loads the results and times, with ``time.process_time()``, the first ``write_reports``
(with its imports of matplotlib and Jinja2 and first use of the fonts, as in a
bake-off, which writes once) and ``--repeat`` more (warm); the two alternate,
baseline first, two rounds. The reports of the two trees must hold the same text:
results.json, results.csv, leaderboard.md and leaderboard.tex byte for byte,
report.html with its inline SVG charts taken out; and it says whether the charts
are the same too, apart from matplotlib's clip-path ids (hashes of float bits,
which differ between two renderings of one result even by the same code).

Target: this tree's CPU time at most 1.1 of the baseline's (medians), first and later
writes: the consolidation kept the reports' bytes and must not have made them slower. (Until
2026-12-06 the baseline was e7653e8, before the charts were made cheaper, with the target 0.5;
that code cannot read a results.json of record version 5, so it can no longer be timed here.)
"""

from __future__ import annotations

import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

BASELINE = "4a5c8d745f0ccfe65095ffa42bc5313da3040445"
"""main before the line-reduction pass of issue 41 (one Markdown table writer, csv_table)."""
TARGET = 1.1

ROOT = Path(__file__).resolve().parent.parent

TIMER = """
import json, sys, tempfile, time
from cws_bench.reports import load_results, write_reports
result = load_results([sys.argv[1]])
started = time.process_time()
write_reports(result, sys.argv[2])
first = time.process_time() - started
times = []
for _ in range(int(sys.argv[3])):
    with tempfile.TemporaryDirectory() as folder:
        started = time.process_time()
        write_reports(result, folder)
        times.append(time.process_time() - started)
print(json.dumps([first, times]))
"""
"""Run in a child: the first write (into argv[2], kept for the comparison) with its imports of
matplotlib and Jinja2, as in a bake-off, then argv[3] more writes."""

SVG = re.compile(r"<svg\b.*?</svg>", re.DOTALL)
CLIP = re.compile(r"(id=\"|url\(#)c[0-9a-f]{8}-p[0-9a-f]+")
"""A clip path's id: a hash of the clip box's float bits, which differ between renderings."""


def _baseline_tree(folder: Path) -> Path:
    """cws_bench at :data:`BASELINE` in ``folder``, with this tree's compiled extensions."""
    folder.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", BASELINE, "cws_bench"],
        check=True,
        capture_output=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    for built in (ROOT / "cws_bench").rglob("*.so"):
        target = folder / built.relative_to(ROOT)
        if target.parent.is_dir():
            shutil.copy2(built, target)
    return folder


def _results(folder: Path) -> Path:
    """results.json of the default bake-off: given, or run once with this tree."""
    given = os.environ.get("CWS_BENCH_REPORTS_RESULTS")
    if given:
        return Path(given)
    output = folder / "bakeoff"
    argv = [sys.executable, "-c", "from cws_bench.cli import main; main()"]
    argv += ["bakeoff", "-o", str(output), "--jobs", "2", "--quiet"]
    done = subprocess.run(
        argv, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True
    )
    if done.returncode not in (0, 1):  # 1: a pair failed (said in the reports)
        raise RuntimeError(f"bake-off failed ({done.returncode}): {done.stderr[-2000:]}")
    return output / "results.json"


def _time(tree: Path, results: Path, output: Path, repeat: int) -> tuple[float, list[float]]:
    """CPU seconds of the first write_reports call in a process (with the package in ``tree``)
    and of each of ``repeat`` more."""
    done = subprocess.run(
        [sys.executable, "-c", TIMER, str(results), str(output), str(repeat)],
        env={**os.environ, "PYTHONPATH": str(tree)},
        cwd=tree,
        capture_output=True,
        text=True,
        check=True,
    )
    first, times = json.loads(done.stdout.strip().splitlines()[-1])
    return float(first), [float(t) for t in times]


def same_reports(old: Path, new: Path) -> list[str]:
    """The report files whose text differs between two folders (the HTML without its SVG)."""
    differ = []
    for name in ("results.json", "results.csv", "leaderboard.md", "leaderboard.tex"):
        if (old / name).read_bytes() != (new / name).read_bytes():
            differ.append(name)
    old_html = SVG.sub("<svg/>", (old / "report.html").read_text(encoding="utf-8"))
    new_html = SVG.sub("<svg/>", (new / "report.html").read_text(encoding="utf-8"))
    if old_html != new_html:
        differ.append("report.html (outside its charts)")
    return differ


def same_charts(old: Path, new: Path) -> bool:
    """Whether two report.html files are the same, charts included, apart from clip-path ids."""
    texts = [
        CLIP.sub(r"\1CLIP", (f / "report.html").read_text(encoding="utf-8")) for f in (old, new)
    ]
    return texts[0] == texts[1]


def run(args: Any) -> list[dict[str, Any]]:
    repeat = max(3, args.repeat)
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        results = _results(folder)
        old = _baseline_tree(folder / "baseline")
        times: dict[str, list[float]] = {"baseline": [], "this tree": []}
        firsts: dict[str, list[float]] = {"baseline": [], "this tree": []}
        for attempt in range(2):
            for name, tree in (("baseline", old), ("this tree", ROOT)):
                output = folder / f"{name.replace(' ', '-')}-{attempt}"
                load = os.getloadavg()[0]
                first, cpu = _time(tree, results, output, repeat)
                times[name] += cpu
                firsts[name].append(first)
                print(
                    f"   {name:<9} round {attempt + 1}: write_reports CPU first {first:.2f} s, "
                    f"then {', '.join(f'{t:.2f}' for t in cpu)} s (load average {load:.2f})"
                )
                rows.append(
                    {
                        "tree": name,
                        "round": attempt + 1,
                        "first_cpu_s": first,
                        "cpu_s": cpu,
                        "load": load,
                    }
                )
        differ = same_reports(folder / "baseline-0", folder / "this-tree-0")
        if differ:
            raise RuntimeError(f"the reports differ from the baseline's: {', '.join(differ)}")
        print("   reports identical (results.json, csv, md, tex; report.html outside its SVG)")
        charts = same_charts(folder / "baseline-0", folder / "this-tree-0")
        print(f"   charts identical apart from clip-path ids: {'yes' if charts else 'NO'}")
        rows.append({"same_charts": charts})
    median = {name: statistics.median(values) for name, values in times.items()}
    first = {name: statistics.median(values) for name, values in firsts.items()}
    ratio = median["this tree"] / median["baseline"]
    first_ratio = first["this tree"] / first["baseline"]
    for label, (base, ours, value) in (
        ("first write in a process", (first["baseline"], first["this tree"], first_ratio)),
        ("later writes", (median["baseline"], median["this tree"], ratio)),
    ):
        met = "met" if value <= TARGET else "NOT met"
        print(
            f"   {label}, median CPU: baseline {base:.2f} s, this tree {ours:.2f} s: "
            f"ratio {value:.2f} (target <= {TARGET}: {met})"
        )
    rows.append(
        {
            "median_baseline_first_cpu_s": first["baseline"],
            "median_first_cpu_s": first["this tree"],
            "first_ratio": first_ratio,
            "median_baseline_cpu_s": median["baseline"],
            "median_cpu_s": median["this tree"],
            "ratio": ratio,
            "target": TARGET,
            "met": max(ratio, first_ratio) <= TARGET,
        }
    )
    return rows
