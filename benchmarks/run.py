"""Run the speed and memory benchmarks (``make bench``).

Each ``benchmarks/bench_*.py`` module has ``run(args) -> list[dict]`` and
measures ratios against a baseline timed in the same run, on the real corpora
in ../shared/corpora (or CWS_BENCH_SHARED_CORPORA). Results are printed and
written to benchmarks/results/<name>.json. Nothing here is a test: no
assertion fails on a time, but each benchmark prints whether it met its target.

Usage:
    python benchmarks/run.py [NAME ...] [--repeat N]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SHARED = Path(os.environ.get("CWS_BENCH_SHARED_CORPORA", ROOT.parent / "shared" / "corpora"))


def discover() -> dict[str, Path]:
    return {p.stem.removeprefix("bench_"): p for p in sorted(HERE.glob("bench_*.py"))}


def load(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def main() -> int:
    benches = discover()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", choices=[[], *benches], help="benchmarks to run")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per measurement")
    args = parser.parse_args()
    if not (SHARED / "icwb2-data").is_dir():
        print(f"real corpora not found at {SHARED}: set CWS_BENCH_SHARED_CORPORA", file=sys.stderr)
        return 2
    args.shared = SHARED
    out = HERE / "results"
    out.mkdir(exist_ok=True)
    for name in args.names or list(benches):
        print(f"== {name}")
        started = time.perf_counter()
        rows = load(benches[name]).run(args)
        (out / f"{name}.json").write_text(json.dumps(rows, indent=2, ensure_ascii=False) + "\n")
        print(f"   ({time.perf_counter() - started:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
