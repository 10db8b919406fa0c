"""`cws-bench score --method sighan` against the official SIGHAN perl script, in one run.

Input: the SIGHAN 2005 PKU test gold and a real prediction of it (jieba 0.42.1,
default mode, on the raw test input; made once and cached in
benchmarks/results/cache/ by bench_scoring), with the PKU training word list
as dictionary.

The official script is icwb2-data/scripts/score of the SIGHAN 2005 release
(Sproat and Emerson; it runs GNU ``diff -y`` once per line). It is not part of
cws-bench: point CWS_BENCH_SIGHAN_SCORE at a copy (its ``$diff`` set to
/usr/bin/diff), or put it at icwb2-data/scripts/score under the shared corpora.
Without it the perl rows are left out and the target cannot be judged.

Measured, as whole processes (--repeat runs each, interleaved: median and
minimum wall time, median CPU time of the process and its children):
- the perl script (``perl score DICT GOLD PRED``);
- ``cws-bench score GOLD PRED --method sighan --dict DICT --format sighan``;
- ``cws-bench score GOLD PRED --method interval --dict DICT``;
and the ratios perl / sighan and perl / interval. Before timing, the summary
block of cws-bench must equal the script's, byte for byte.

In process: the SIGHAN counting alone, compiled (cws_bench/_sighan.pyx) against
the pure-Python twin (sighan.count_sighan_line), on the same lines; and the
compiled count of the same lines as UTF-8 bytes (sighan.BufferCounts, what
score_files runs).

One long line: the whole PKU test gold (and prediction) joined into
one line, repeated to 20 MB; perl and cws-bench once each (wall, CPU, peak
memory), after checking that both print the same summary.

Target: cws-bench --method sighan at least 30 times as fast as perl,
judged on CPU time (user + system, children included): the script's wall time
includes its 1,945 ``diff`` processes waiting on the scheduler, which makes the
wall ratio grow with the machine's load; on an idle machine the two ratios meet.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from bench_scoring import prepare
from common import BIN, PYTHON, best_of, run_process, table

HERE = Path(__file__).resolve().parent
TARGET = 30.0
LONG_LINE_BYTES = 20_000_000


def find_script(shared: Path) -> Path | None:
    """The official score script, or None."""
    configured = os.environ.get("CWS_BENCH_SIGHAN_SCORE")
    candidates = [Path(configured)] if configured else []
    candidates.append(shared / "icwb2-data" / "scripts" / "score")
    return next((path for path in candidates if path.is_file()), None)


def summary_of(output: str) -> str:
    """The summary block (from ``=== SUMMARY:`` to the ``###`` line) of the script's output."""
    start = output.index("=== SUMMARY:")
    return output[start:].rstrip("\n")


def one_line_files(gold: Path, pred: Path) -> tuple[Path, Path]:
    """Gold and prediction as one line each, repeated to LONG_LINE_BYTES (cached)."""
    cache = HERE / "results" / "cache"
    texts = [" ".join(path.read_text(encoding="utf-8-sig").split()) for path in (gold, pred)]
    # The same number of copies on both sides, so that the texts agree.
    copies = -(-LONG_LINE_BYTES // len(texts[0].encode("utf-8")))
    out = []
    for name, words in zip(("gold", "pred"), texts):
        target = cache / f"pku_{name}_one_line_x{copies}.txt"
        if not target.exists():
            target.write_text(" ".join([words] * copies) + "\n", encoding="utf-8")
        out.append(target)
    return out[0], out[1]


def once(argv: list) -> dict:
    """One run: wall seconds, CPU seconds, peak memory (MiB) and the end of its output.

    The output goes to a temporary file (the script prints diff's whole
    side-by-side output, hundreds of MB on the long line); its last 4 kB are kept.
    """
    timed = ["/usr/bin/time", "-f", "%M"] if Path("/usr/bin/time").exists() else []
    with tempfile.TemporaryFile() as out:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        proc = subprocess.run(
            [*timed, *map(str, argv)], stdout=out, stderr=subprocess.PIPE, check=True
        )
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        out.seek(max(out.seek(0, os.SEEK_END) - 4096, 0))
        tail = out.read().decode("utf-8", "replace")
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    peak = int(proc.stderr.decode().strip().splitlines()[-1]) / 1024 if timed else float("nan")
    return {"wall_s": wall, "cpu_s": cpu, "peak_mib": peak, "stdout": tail}


def in_process(gold: Path, pred: Path, dictionary: Path, repeat: int) -> dict:
    """The SIGHAN counting alone: compiled against the pure-Python twin."""
    from cws_bench.corpora.words import as_dictionary
    from cws_bench.scoring import sighan
    from cws_bench.text.io import iter_lines

    words = as_dictionary(dictionary).words
    gold_lines, pred_lines = list(iter_lines(gold)), list(iter_lines(pred))

    def python() -> sighan.SighanCounts:
        total = sighan.SighanCounts()
        for g, p in zip(gold_lines, pred_lines):
            total += sighan.count_sighan_line(g, p, words)
        return total

    def compiled() -> sighan.SighanCounts:
        return sighan.count_sighan_lines(gold_lines, pred_lines, words)

    # What score_files runs: the same lines as the UTF-8 bytes its kernel reads.
    gold_bytes = ("\n".join(gold_lines) + "\n").encode("utf-8")
    pred_bytes = ("\n".join(pred_lines) + "\n").encode("utf-8")

    def buffers() -> sighan.SighanCounts:
        counter = sighan.BufferCounts.create(words)
        assert counter is not None, "cws_bench._sighan is not built"
        counter.add(gold_bytes, 0, len(gold_bytes), pred_bytes, 0, len(pred_bytes))
        return counter.counts()

    python_s, expected = best_of(python, repeat)
    compiled_s, counts = best_of(compiled, repeat)
    assert counts == expected, (counts, expected)
    buffers_s, counts = best_of(buffers, repeat)
    assert counts == expected, (counts, expected)
    return {
        "case": "in process: SIGHAN counting of the PKU lines",
        "python_s": python_s,
        "compiled_s": compiled_s,
        "buffers_s": buffers_s,
        "speed_up": python_s / compiled_s,
    }


def run(args) -> list[dict]:
    subprocess.run([PYTHON, "-m", "compileall", "-q", str(HERE.parent / "cws_bench")], check=True)
    files = prepare(args.shared)
    gold, pred, dictionary = files["gold1"], files["pred1"], files["dict"]
    load_before = os.getloadavg()
    script = find_script(args.shared)
    score = [BIN / "cws-bench", "score", gold, pred, "--dict", dictionary]
    sighan = [*score, "--method", "sighan"]
    interval = [*score, "--method", "interval"]
    rows: list[dict] = []
    ours = subprocess.run(
        [*map(str, sighan), "--format", "sighan"], capture_output=True, check=True, text=True
    ).stdout.rstrip("\n")
    commands = {"sighan": [*sighan, "--format", "sighan"], "interval": interval}
    if script is None:
        print(
            "the official SIGHAN score script was not found: set CWS_BENCH_SIGHAN_SCORE "
            "to icwb2-data/scripts/score (perl rows left out)"
        )
    else:
        perl = ["perl", script, dictionary, gold, pred]
        # Same numbers first: the comparison means nothing otherwise.
        reference = subprocess.run(
            list(map(str, perl)), capture_output=True, check=True, text=True
        ).stdout
        assert summary_of(reference) == ours, "cws-bench's summary block differs from perl's"
        commands["perl"] = perl
    # Interleaved (perl, sighan, interval, perl, ...), so that all three see the
    # same load on a shared machine.
    walls: dict[str, list[float]] = {name: [] for name in commands}
    cpus: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(args.repeat):
        for name, argv in commands.items():
            measured = run_process(argv, 1)
            walls[name].append(measured["median_s"])
            cpus[name].append(measured["cpu_s"])
    for name in commands:
        row = {
            "case": f"PKU test, {name}",
            "median_s": statistics.median(walls[name]),
            "min_s": min(walls[name]),
            "cpu_s": statistics.median(cpus[name]),
        }
        if "perl" in commands:
            row["perl_over_this"] = statistics.median(walls["perl"]) / row["median_s"]
            row["perl_min_over_this"] = min(walls["perl"]) / row["min_s"]
            row["perl_cpu_over_this"] = statistics.median(cpus["perl"]) / row["cpu_s"]
        rows.append(row)
    columns = ["case", "median_s", "min_s", "cpu_s"]
    if "perl" in commands:
        columns += ["perl_over_this", "perl_min_over_this", "perl_cpu_over_this"]
        rows[0]["target_met"] = rows[0]["perl_cpu_over_this"] >= TARGET
    print(table(rows, columns))
    if "perl" in commands:
        print(
            f"sighan: {rows[0]['perl_cpu_over_this']:.1f}x the perl script in CPU time "
            f"(target {TARGET:.0f}x: {'met' if rows[0]['target_met'] else 'NOT met'}), "
            f"{rows[0]['perl_over_this']:.1f}x in wall time; "
            f"interval: {rows[1]['perl_cpu_over_this']:.1f}x, {rows[1]['perl_over_this']:.1f}x"
        )

    counting = in_process(gold, pred, dictionary, args.repeat)
    rows.append(counting)
    print(
        f"counting alone: pure Python {counting['python_s']:.3f} s, compiled "
        f"{counting['compiled_s']:.3f} s ({counting['speed_up']:.1f}x), compiled on the "
        f"UTF-8 bytes (score_files' path) {counting['buffers_s']:.3f} s"
    )

    long_gold, long_pred = one_line_files(gold, pred)
    long_ours = once(
        [
            BIN / "cws-bench",
            "score",
            long_gold,
            long_pred,
            "--dict",
            dictionary,
            "--format",
            "sighan",
        ]
    )
    long_row = {
        "case": f"one line of {long_gold.stat().st_size / 1e6:.1f} MB",
        "sighan_wall_s": long_ours["wall_s"],
        "sighan_cpu_s": long_ours["cpu_s"],
        "sighan_peak_mib": long_ours["peak_mib"],
    }
    if script is not None:
        long_perl = once(["perl", script, dictionary, long_gold, long_pred])
        assert summary_of(long_perl["stdout"]) == long_ours["stdout"].rstrip("\n")
        long_row.update(
            perl_wall_s=long_perl["wall_s"],
            perl_cpu_s=long_perl["cpu_s"],
            perl_peak_mib=long_perl["peak_mib"],
        )
    rows.append(long_row)
    print(table([long_row], list(long_row)))
    load = {"load_before": list(load_before), "load_after": list(os.getloadavg())}
    rows.append({"case": "load average (1, 5, 15 min)", **load})
    print(f"load average before {load_before}, after {load['load_after']}")
    return rows
