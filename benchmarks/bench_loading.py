"""What building an adapter and keying a run cost, against the library doing it alone.

Each case runs in a fresh interpreter (nothing loaded before it), which times:

- ``build``: the library's own load (baseline: ``jieba.Tokenizer().initialize()``,
  ``pkuseg.pkuseg()``, jiagu's ``Segment().init()``), then the adapter built
  twice: the first reads the model through the library, the next shares what
  it read (cws_bench/segmenters/loaded.py); then, in a new process with the
  model stored by the first (``stored_s``, jieba's word table), the first build
  reads it back: each case has a cache folder of its own, empty at the start;
- ``keys``: ``importlib.metadata.packages_distributions()`` (what each run and
  each worker asked before) against ``library_versions(segmenter)`` for the
  segmenters of the default bake-off, in a first run and in the next run of the
  same process, with importlib_metadata's backport imported as in a run that
  imports dask (cws_bench/system/installed.py).

The ratio is the baseline's time over the second build (or the next run's
``library_versions``); both give the same tables and the same versions.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

from common import table

BUILD = """
import json, sys, time, importlib.util
name = sys.argv[1]
if importlib.util.find_spec(name.replace("-", "_")) is None:
    print(json.dumps(None)); raise SystemExit
def own():
    if name == "jieba":
        import jieba, logging
        logging.getLogger("jieba").setLevel(logging.WARNING)
        jieba.Tokenizer().initialize()
    elif name == "pkuseg":
        import pkuseg
        pkuseg.pkuseg()
    elif name == "jiagu":
        from jiagu.segment.nroute import Segment
        Segment().init()
times = {}
for key, build in (("library_s", own), ("first_s", None), ("next_s", None)):
    from cws_bench.segmenters import get_segmenter
    started = time.perf_counter()
    (build or (lambda: get_segmenter(name)))()
    times[key] = time.perf_counter() - started
print(json.dumps(times))
"""

KEYS = """
import json, time, importlib.metadata
try:
    import importlib_metadata  # what dask and others import: its file lists stat each file
except ImportError:
    pass
from cws_bench.run.identity import Memo, library_versions
from cws_bench.segmenters.registry import segmenter_class
names = ("fmm", "hmm", "jieba", "pkuseg", "snownlp")
for name in names:
    segmenter_class(name)  # the adapters' modules imported first: not what is timed
started = time.perf_counter()
importlib.metadata.packages_distributions()
times = {"library_s": time.perf_counter() - started}
for key in ("first_s", "next_s"):  # a run, then the next run in the same process
    memo = Memo()  # each run keeps its own
    started = time.perf_counter()
    for name in names:
        library_versions(name, memo)
    times[key] = time.perf_counter() - started
print(json.dumps(times))
"""


def fresh(code: str, *args: str, cache: str | None = None) -> dict | None:
    env = None if cache is None else {**os.environ, "CWS_BENCH_CACHE_DIR": cache}
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, check=True, env=env
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def best(code: str, repeat: int, *args: str) -> dict | None:
    runs = [fresh(code, *args) for _ in range(max(1, min(repeat, 3)))]
    if runs[0] is None:
        return None
    return {key: min(run[key] for run in runs) for key in runs[0]}


def build_times(name: str, repeat: int) -> dict | None:
    """The build of ``name`` with an empty cache folder, then ``stored_s``: the first build
    of the next process, which finds what the first stored (best of ``repeat``)."""
    runs = []
    for _ in range(max(1, min(repeat, 3))):
        with tempfile.TemporaryDirectory() as cache:
            cold = fresh(BUILD, name, cache=cache)
            if cold is None:
                return None
            warm = fresh(BUILD, name, cache=cache)
            assert warm is not None
            runs.append({**cold, "stored_s": warm["first_s"]})
    return {key: min(run[key] for run in runs) for key in runs[0]}


def run(args) -> list[dict]:
    rows = []
    for name in ("jieba", "pkuseg", "jiagu"):
        times = build_times(name, args.repeat)
        if times is None:
            print(f"   {name}: not installed, skipped")
            continue
        rows.append(
            {
                "case": f"build {name}",
                **times,
                "ratio": times["library_s"] / times["next_s"],
                "stored ratio": times["library_s"] / times["stored_s"],
            }
        )
    times = best(KEYS, args.repeat)
    if times is not None:
        rows.append(
            {
                "case": "library versions",
                "first_s": "-",
                **times,
                "stored_s": "-",
                "stored ratio": "-",
                "ratio": times["library_s"] / times["next_s"],
            }
        )
    columns = ["case", "library_s", "first_s", "next_s", "stored_s", "ratio", "stored ratio"]
    print(table(rows, columns))
    return rows
