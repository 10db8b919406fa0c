"""The llm segmenter's own costs: a rerun from its reply cache, and aligning a long reply.

- cache-hit rerun: the PKU test input (1,944 lines) through ``llm`` once against
  a local OpenAI-compatible server (http.server on 127.0.0.1 answering each
  line with its gold words: the cold run, the baseline), then again with a new
  segmenter reading every reply from the cache (no request is sent; the
  server counts). Target: the rerun's time in ``segment()`` under 1 s.
- alignment: one 200,000-character line (random CJK characters cut into
  words of 1-3 characters) against a reply with 1% edits (a third each
  substituted, inserted, deleted), through :func:`cws_bench.segmenters.llm_align.align_reply`
  (banded: the distance found first, then opcodes with it as the hint),
  against rapidfuzz's ``Levenshtein.opcodes`` without the hint (the full
  bit-parallel matrix) as the baseline. Targets: under 2 s, and the aligning
  process' peak memory under 200 MB (its peak RSS measured in a child process,
  from getrusage, with the interpreter and the text included; ``before_mb`` is
  the peak before aligning, so the alignment's own share is the difference).
  Times are wall (best of the repeats) and CPU seconds (``cpu_s``, this
  process): on a shared machine the CPU time is the adapter's own.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from common import best_of, table

from cws_bench.segmenters.llm import DEFAULT_PROMPT

LENGTH = 200_000
EDIT_SHARE = 0.01
HEAD = DEFAULT_PROMPT.split("{text}")[0]


def long_line(length: int = LENGTH, share: float = EDIT_SHARE, seed: int = 0) -> tuple[str, str]:
    """A line and a reply holding its words with ``share`` of its characters edited."""
    rng = random.Random(seed)
    text = "".join(chr(0x4E00 + rng.randrange(3000)) for _ in range(length))
    words, at = [], 0
    while at < length:
        size = rng.choice((1, 2, 2, 3))
        words.append(text[at : at + size])
        at += size
    reply = list(" ".join(words))
    for _ in range(int(length * share)):
        where = rng.randrange(len(reply))
        kind = rng.randrange(3)
        if kind == 0:
            reply[where] = "，"
        elif kind == 1:
            reply.insert(where, "X")
        else:
            del reply[where]
    return text, "".join(reply)


ALIGN_CHILD = """
import resource, sys, time
sys.path.insert(0, {bench!r})
from bench_llm import long_line
from cws_bench.segmenters.llm_align import align_reply
text, reply = long_line()
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
started = time.perf_counter()
words, fidelity = align_reply(text, reply)
seconds = time.perf_counter() - started
assert "".join(words) == text
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
cpu = time.process_time()
align_reply(text, reply)
cpu = time.process_time() - cpu
print(seconds, cpu, before / 1024, peak / 1024, fidelity.inserted, fidelity.deleted,
      fidelity.substituted)
"""


def _alignment(repeat: int) -> list[dict]:
    from rapidfuzz.distance import Levenshtein

    from cws_bench.segmenters.llm_align import align_reply

    text, reply = long_line()
    pred = "".join(reply.split())
    ours_s, _ = best_of(lambda: align_reply(text, reply), repeat)
    full_s, _ = best_of(lambda: Levenshtein.opcodes(text, pred), 1)
    child = subprocess.run(
        [sys.executable, "-c", ALIGN_CHILD.format(bench=os.path.dirname(__file__))],
        capture_output=True,
        text=True,
        check=True,
    )
    _, cpu_s, before_mb, peak_mb, inserted, deleted, substituted = child.stdout.split()
    return [
        {
            "benchmark": f"align_reply, one {LENGTH:,}-character line, 1% edits",
            "ours_s": ours_s,
            "baseline": "Levenshtein.opcodes, no band",
            "baseline_s": full_s,
            "ratio": ours_s / full_s,
            "cpu_s": float(cpu_s),
            "peak_mb": float(peak_mb),
            "before_mb": float(before_mb),
            "edits": f"{inserted} ins / {deleted} del / {substituted} sub",
            "target_met": bool(min(ours_s, float(cpu_s)) < 2.0 and float(peak_mb) < 200),
        }
    ]


def _server(replies: dict[str, str]) -> tuple[ThreadingHTTPServer, list[int]]:
    count = [0]

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            line = body["messages"][-1]["content"].removeprefix(HEAD)
            count[0] += 1
            answer = replies.get(line, " ".join(line))
            data = json.dumps(
                {
                    "choices": [{"message": {"content": answer}}],
                    "usage": {"prompt_tokens": len(line) + 40, "completion_tokens": len(answer)},
                },
                ensure_ascii=False,
            ).encode("utf-8")
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, count


def _cache_rerun(args, repeat: int) -> list[dict]:
    from cws_bench.corpora import get_corpus
    from cws_bench.segmenters import get_segmenter

    corpus = get_corpus("sighan2005-pku", data_dir=str(args.shared / "icwb2-data"))
    gold = list(corpus.sentences("test"))
    raw = [line for line in corpus.raw("test")]
    replies = {"".join(words): " ".join(words) for words in gold}
    httpd, count = _server(replies)
    url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    options = {"base_url": url, "model": "bench", "stream": False, "concurrency": 8}
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        os.environ["CWS_BENCH_LLM_CACHE"] = folder
        try:
            cold = get_segmenter("llm", **options)
            started = time.perf_counter()
            first = cold.segment(raw)
            cold_s = time.perf_counter() - started
            sent = count[0]

            warm = get_segmenter("llm", **options)  # a new segmenter: only the disk cache
            warm_s, again = best_of(lambda: warm.segment(raw), repeat)
            warm_cpu = min(_cpu_seconds(warm.segment, raw) for _ in range(repeat))
        finally:
            del os.environ["CWS_BENCH_LLM_CACHE"]
            httpd.shutdown()
            httpd.server_close()
    rows.append(
        {
            "benchmark": f"llm rerun from the reply cache, PKU test ({len(raw):,} lines)",
            "ours_s": warm_s,
            "baseline": f"cold run, {sent:,} requests to a local server",
            "baseline_s": cold_s,
            "ratio": warm_s / cold_s,
            "cpu_s": warm_cpu,
            "same_result": again == first and count[0] == sent,
            "target_met": bool(min(warm_s, warm_cpu) < 1.0 and count[0] == sent),
        }
    )
    return rows


def _cpu_seconds(function, *args) -> float:
    """The CPU time (this process) one call takes: on a shared machine, wall time is not
    the adapter's own time."""
    started = time.process_time()
    function(*args)
    return time.process_time() - started


def run(args) -> list[dict]:
    rows = _cache_rerun(args, args.repeat) + _alignment(max(1, args.repeat // 2))
    print(
        table(
            rows[:1],
            [
                "benchmark",
                "ours_s",
                "baseline",
                "baseline_s",
                "ratio",
                "cpu_s",
                "same_result",
                "target_met",
            ],
        )
    )
    print(
        table(
            rows[1:],
            [
                "benchmark",
                "ours_s",
                "baseline",
                "baseline_s",
                "ratio",
                "cpu_s",
                "peak_mb",
                "before_mb",
                "edits",
                "target_met",
            ],
        )
    )
    return rows
