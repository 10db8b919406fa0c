"""The scorer against the textbook scorer, whole processes, in one run.

Input: ten concatenated copies of the SIGHAN 2005 PKU test gold (about a
million words) and of a real prediction of it (jieba 0.42.1, default mode, on
the raw test input; made once and cached in benchmarks/results/cache/).
Measured: wall time of the whole `cws-bench score` process against the whole
`python benchmarks/textbook_score.py` process (benchmarks/textbook_score.py: a
per-sentence set-of-intervals implementation), with and without the PKU
training word list as dictionary; words per second; peak memory; and peak
memory on one copy against ten copies (scoring streams: memory stays flat).
Target: cws-bench takes at most a third of the textbook's time.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from common import BIN, PYTHON, peak_rss_of, run_process, table

HERE = Path(__file__).resolve().parent
COPIES = 10


def prepare(shared: Path) -> dict[str, Path]:
    icwb2 = shared / "icwb2-data"
    cache = HERE / "results" / "cache"
    cache.mkdir(parents=True, exist_ok=True)
    gold1 = icwb2 / "gold" / "pku_test_gold.utf8"
    pred1 = cache / "pku_test_jieba.txt"
    if not pred1.exists():
        import jieba

        tokenizer = jieba.Tokenizer()
        lines = (icwb2 / "testing" / "pku_test.utf8").read_text(encoding="utf-8").splitlines()
        out = [" ".join(w for w in tokenizer.cut(line) if w.strip()) for line in lines]
        pred1.write_text("\n".join(out) + "\n", encoding="utf-8")
    files = {"gold1": gold1, "pred1": pred1}
    for name, source in (("gold", gold1), ("pred", pred1)):
        target = cache / f"pku_{name}_x{COPIES}.txt"
        if not target.exists():
            data = source.read_bytes()
            if not data.endswith(b"\n"):
                data += b"\n"
            target.write_bytes(data * COPIES)
        files[f"{name}{COPIES}"] = target
    files["dict"] = icwb2 / "gold" / "pku_training_words.utf8"
    return files


def words_in(path: Path) -> int:
    with path.open(encoding="utf-8-sig") as f:
        return sum(len(line.split()) for line in f)


def run(args) -> list[dict]:
    # Time cws-bench as an installed package runs: byte-compiled (pip compiles on
    # install; an editable install with PYTHONDONTWRITEBYTECODE set would not).
    subprocess.run([PYTHON, "-m", "compileall", "-q", str(HERE.parent / "cws_bench")], check=True)
    files = prepare(args.shared)
    gold, pred, dictionary = files[f"gold{COPIES}"], files[f"pred{COPIES}"], files["dict"]
    words = words_in(gold) + words_in(pred)
    ours = [BIN / "cws-bench", "score", gold, pred, "--format", "json"]
    textbook = [PYTHON, HERE / "textbook_score.py", gold, pred]

    # Same numbers first: the comparison means nothing otherwise.
    data = json.loads(
        subprocess.run(
            [*map(str, ours), "--dict", str(dictionary)], capture_output=True, check=True
        ).stdout
    )
    lines = subprocess.run(
        [*map(str, textbook), str(dictionary)], capture_output=True, check=True, text=True
    ).stdout.split("\n")
    reference = {line.split()[0]: float(line.split()[1]) for line in lines if line}
    for key, value in reference.items():
        assert abs(data[key] - value) < 5e-7, (key, data[key], value)

    rows = []
    for label, extra in (("no dictionary", []), ("with dictionary", [dictionary])):
        flag = ["--dict", dictionary] if extra else []
        cws = run_process([*ours, *flag], args.repeat)
        base = run_process([*textbook, *extra], args.repeat)
        rows.append(
            {
                "case": label,
                "words": words,
                "cws_bench_s": cws["median_s"],
                "textbook_s": base["median_s"],
                "ratio": cws["median_s"] / base["median_s"],
                "cpu_ratio": cws["cpu_s"] / base["cpu_s"],
                "cws_words_per_s": words / cws["median_s"],
                "textbook_words_per_s": words / base["median_s"],
                "cws_peak_mib": peak_rss_of([*ours, *flag]),
                "textbook_peak_mib": peak_rss_of([*textbook, *extra]),
                "target_met": cws["median_s"] <= base["median_s"] / 3,
            }
        )
    one = peak_rss_of([BIN / "cws-bench", "score", files["gold1"], files["pred1"]])
    ten = peak_rss_of([BIN / "cws-bench", "score", gold, pred])
    rows.append(
        {
            "case": f"peak memory, 1 copy vs {COPIES}",
            "one_copy_mib": one,
            "ten_copies_mib": ten,
            "growth": ten / one,
        }
    )
    print(
        table(
            rows[:2],
            [
                "case",
                "words",
                "cws_bench_s",
                "textbook_s",
                "ratio",
                "cpu_ratio",
                "cws_words_per_s",
                "cws_peak_mib",
                "textbook_peak_mib",
                "target_met",
            ],
        )
    )
    print(
        f"peak memory: {one:.1f} MiB on one copy, {ten:.1f} MiB on {COPIES} copies "
        f"({ten / one:.2f}x)"
    )
    return rows
