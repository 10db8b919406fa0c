"""Serving throughput and latency of one million requests (cws_bench.metrics.throughput).

- summary: :func:`serving_metrics` over 1,000,000 synthetic requests held
  as arrays, against the per-request loop of vLLM's ``calculate_metrics``
  (the same figures, one request at a time). Target: <= 2 s,
  and the same numbers as the loop.
- from a file: ``read_request_log`` + ``serving_metrics`` on the same
  requests written as CSV and as JSONL (what ``cws-bench metrics
  throughput LOG`` does), in this process and as whole ``cws-bench``
  processes side by side. The JSONL is written as Python's json writes
  floats (shortest repr: a small float such as 0.0009381661727260374 has
  19 digits in a row), with a queue time and a request id beside the five
  columns. Target: the whole JSONL process <= 2 s (issue 26).

The log is synthetic (no corpus is needed): Poisson arrivals over an hour,
gamma-distributed TTFT and per-token times, 1 to 500 output tokens.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
from common import BIN, best_of, run_process, table

from cws_bench.metrics.throughput import serving_metrics
from cws_bench.text.metric_files import read_request_log

REQUESTS = 1_000_000
COLUMNS = ("start", "first_token", "end", "input_tokens", "output_tokens")


def synthetic_log(n: int, seed: int = 0) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    start = np.sort(rng.uniform(0, 3600, n))
    output = rng.integers(1, 501, n)
    first = start + rng.gamma(2.0, 0.1, n)
    end = first + rng.gamma(2.0, 0.01, n) * (output - 1)
    return start, first, end, rng.integers(1, 2001, n), output


def loop(start, first, end, n_in, n_out) -> dict[str, float]:
    """vLLM's calculate_metrics: a Python loop over the requests, then numpy's statistics."""
    ttfts, tpots, e2els, total_in, total_out = [], [], [], 0, 0
    for t0, t1, t2, i, o in zip(
        start.tolist(), first.tolist(), end.tolist(), n_in.tolist(), n_out.tolist()
    ):
        total_in += i
        total_out += o
        if o > 1:
            tpots.append((t2 - t1) / (o - 1))
        ttfts.append(t1 - t0)
        e2els.append(t2 - t0)
    duration = max(end.tolist()) - min(start.tolist())
    out = {"generation_throughput": total_out / duration, "prompt_throughput": total_in / duration}
    for name, values in (("ttft", ttfts), ("tpot", tpots), ("e2e_latency", e2els)):
        out[f"{name}_mean"] = float(np.mean(values))
        out[f"{name}_p99"] = float(np.percentile(values, 99))
    return out


def run(args) -> list[dict]:
    arrays = synthetic_log(REQUESTS)
    ours_s, result = best_of(lambda: serving_metrics(*arrays), args.repeat)
    loop_s, expected = best_of(lambda: loop(*arrays), max(1, args.repeat // 2))
    got = result.to_dict()
    same = all(
        np.isclose(
            got[key] if key in got else got[key.rsplit("_", 1)[0]][key.rsplit("_", 1)[1]],
            value,
            rtol=1e-12,
        )
        for key, value in expected.items()
    )
    rows = [
        {
            "benchmark": f"serving_metrics, {REQUESTS:,} requests (arrays)",
            "ours_s": ours_s,
            "baseline": "per-request loop (vLLM)",
            "baseline_s": loop_s,
            "ratio": ours_s / loop_s,
            "same_result": bool(same),
            "target_met": bool(same and ours_s <= 2.0),
        }
    ]
    import pandas as pd

    frame = pd.DataFrame(dict(zip(COLUMNS, arrays)))
    rng = np.random.default_rng(1)
    frame.insert(0, "id", np.arange(len(frame)))
    frame.insert(2, "queue_s", rng.gamma(2.0, 0.0005, len(frame)))  # long fractions
    whole: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as folder:
        for suffix in ("csv", "jsonl"):
            path = Path(folder) / f"log.{suffix}"
            if suffix == "csv":
                frame.to_csv(path, index=False, float_format="%.17g")  # round-trips
            else:
                _write_jsonl(frame, path)
            whole[suffix] = run_process(
                [BIN / "cws-bench", "metrics", "throughput", path], max(1, args.repeat // 2)
            )

            def from_file(path=path):
                log = read_request_log(path)
                return serving_metrics(*(log.fields[c] for c in COLUMNS))

            file_s, from_log = best_of(from_file, max(1, args.repeat // 2))
            if suffix == "jsonl":
                rows.append(_json_decoders(path, args.repeat))
            rows.append(
                {
                    "benchmark": f"read_request_log + serving_metrics ({suffix})",
                    "ours_s": file_s,
                    "baseline": "-",
                    "baseline_s": float("nan"),
                    "ratio": float("nan"),
                    "same_result": bool(
                        np.isclose(from_log.generation_throughput, result.generation_throughput)
                    ),
                    "target_met": "-",
                }
            )
    rows.append(
        {
            "benchmark": "cws-bench metrics throughput, whole process: jsonl",
            "ours_s": whole["jsonl"]["min_s"],
            "baseline": "the same log as csv",
            "baseline_s": whole["csv"]["min_s"],
            "ratio": whole["jsonl"]["min_s"] / whole["csv"]["min_s"],
            "same_result": "-",
            "target_met": bool(whole["jsonl"]["min_s"] <= 2.0),
        }
    )
    print(
        table(
            rows,
            ["benchmark", "ours_s", "baseline", "baseline_s", "ratio", "same_result", "target_met"],
        )
    )
    return rows


def _write_jsonl(frame, path: Path) -> None:
    """One JSON object a line, floats as Python's json writes them (shortest repr)."""
    import json

    columns = list(frame.columns)
    values = [frame[c].tolist() for c in columns]
    with open(path, "w", encoding="utf-8") as f:
        for row in zip(*values):
            f.write(json.dumps(dict(zip(columns, row))) + "\n")


def _json_decoders(path: Path, repeat: int) -> dict:
    """The reader's one parse of a JSONL log as an array: orjson (used) against json."""
    import json

    import orjson

    text = path.read_text(encoding="utf-8").strip()
    array = "[" + text.replace("\n", ",") + "]"
    orjson_s, fast = best_of(lambda: orjson.loads(array), max(1, repeat // 2))
    json_s, slow = best_of(lambda: json.loads(array), max(1, repeat // 2))
    return {
        "benchmark": "JSONL parsed as one array: orjson",
        "ours_s": orjson_s,
        "baseline": "json (standard library)",
        "baseline_s": json_s,
        "ratio": orjson_s / json_s,
        "same_result": fast == slow,
        "target_met": "-",
    }
