"""The built-in baselines against their pure-Python references, and the wrapped segmenters.

Input: the SIGHAN 2005 PKU raw test input repeated ten times (19,450 lines,
about 1.7 million characters), in memory. Every segmenter is built first and
its loading timed apart (FMM: the PKU training word list; HMM: a model trained
on People's Daily 1998's training split, saved, and loaded back; jieba and
pkuseg: their default models), then its ``segment()`` is timed on the whole
input in one batch (the lossless-join check included).

Baselines measured in the same run:
- FMM/BMM/BiMM against ``maximum_matching_python`` (the pure-Python reference);
- snownlp's adapter (its own Viterbi search) against ``snownlp.seg.seg``, and
  its compiled search (``_decode.SnowNLPModel``) against the pure-Python
  ``snownlp.tags`` on the runs of Chinese characters of the same input (the
  conversion of the model's counts timed apart);
- the HMM's compiled Viterbi against ``HMMSegmenter.segment_python``, a
  straightforward per-sentence pure-Python Viterbi over the same model.
Each pair must give the same segmentation (or tags), or the comparison means
nothing.

Targets: FMM at least 1,000,000 characters per second; the HMM
decoder at least 4x faster than the pure-Python Viterbi; snownlp's compiled
search at least 10x faster than ``tags``. The slow pure-Python contenders (the
references, pkuseg, and snownlp and THULAC on one copy) run once; the others
take the best of --repeat runs.
"""

from __future__ import annotations

import re
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from common import best_of, table

from cws_bench.errors import SegmenterUnavailableError
from cws_bench.segmenters import get_segmenter
from cws_bench.segmenters.maxmatch import maximum_matching_python
from cws_bench.text.io import iter_lines

COPIES = 10
FMM_TARGET = 1_000_000
HMM_TARGET = 4.0
SNOWNLP_DECODER_TARGET = 10.0


def timed(build: Callable[[], object]) -> tuple[float, object]:
    started = time.perf_counter()
    built = build()
    return time.perf_counter() - started, built


def run(args) -> list[dict]:
    icwb2 = args.shared / "icwb2-data"
    one = list(iter_lines(icwb2 / "testing" / "pku_test.utf8"))
    lines = one * COPIES
    characters = sum(len("".join(line.split())) for line in lines)
    characters_one = characters // COPIES
    words = icwb2 / "gold" / "pku_training_words.utf8"
    rows: list[dict] = []

    def row(name: str, input_chars: int, load_s: float, segment_s: float, **extra) -> dict:
        entry = {
            "segmenter": name,
            "characters": input_chars,
            "load_s": load_s,
            "segment_s": segment_s,
            "chars_per_s": input_chars / segment_s,
            **extra,
        }
        rows.append(entry)
        return entry

    # -- maximum matching against its pure-Python reference ---------------------
    for name in ("fmm", "bmm", "bimm"):
        load_s, segmenter = timed(lambda name=name: get_segmenter(name, lexicon=str(words)))
        segment_s, output = best_of(lambda s=segmenter: s.segment(lines), args.repeat)
        started = time.perf_counter()
        reference = maximum_matching_python(
            lines, segmenter.dictionary.words, direction=segmenter.direction
        )
        python_s = time.perf_counter() - started
        assert output == reference, f"{name}: compiled and Python segmentations differ"
        extra = {"baseline": "pure Python", "baseline_s": python_s, "speedup": python_s / segment_s}
        if name == "fmm":
            extra["target"] = f">= {FMM_TARGET:,} chars/s"
            extra["target_met"] = characters / segment_s >= FMM_TARGET
        row(name, characters, load_s, segment_s, **extra)

    # -- the HMM: compiled Viterbi against the per-sentence pure-Python one ----
    started = time.perf_counter()
    trained = get_segmenter("hmm", corpus="pd1998")
    train_s = time.perf_counter() - started
    with tempfile.TemporaryDirectory() as folder:
        model = Path(folder) / "pd1998.hmm.json"
        trained.save(model)
        load_s, hmm = timed(lambda: get_segmenter("hmm", model=str(model)))
    segment_s, output = best_of(lambda: hmm.segment(lines), args.repeat)
    started = time.perf_counter()
    reference = hmm.segment_python(lines)
    python_s = time.perf_counter() - started
    assert output == reference, "hmm: compiled and Python Viterbi differ"
    row(
        "hmm",
        characters,
        load_s,
        segment_s,
        train_s=train_s,
        baseline="pure-Python Viterbi",
        baseline_s=python_s,
        speedup=python_s / segment_s,
        target=f">= {HMM_TARGET:g}x",
        target_met=python_s / segment_s >= HMM_TARGET,
    )

    # -- wrapped segmenters -------------------------------------------------------
    for name, copies, repeat in (
        ("jieba", COPIES, args.repeat),
        ("jieba-nohmm", COPIES, args.repeat),
        ("rjieba", COPIES, args.repeat),
        ("pkuseg", COPIES, 1),
        ("thulac", 1, 1),
        ("snownlp", 1, 1),
    ):
        try:
            load_s, segmenter = timed(lambda name=name: get_segmenter(name))
        except SegmenterUnavailableError as e:
            print(f"   {name}: skipped ({e.install})")
            continue
        data = lines if copies == COPIES else one
        segment_s, output = best_of(lambda s=segmenter, d=data: s.segment(d), repeat)
        extra = {}
        if name == "snownlp":  # its own decoder, on the same model, in the same run
            from snownlp import seg

            started = time.perf_counter()
            reference = [seg.seg(line) for line in data]
            python_s = time.perf_counter() - started
            assert output == reference, "snownlp: the adapter and snownlp's own seg differ"
            extra = {"baseline": "snownlp's own seg", "baseline_s": python_s}
            extra["speedup"] = python_s / segment_s
            extra["decoder"] = snownlp_decoders(segmenter, data, args.repeat)
        row(
            name if copies == COPIES else f"{name} (1 copy)",
            characters if copies == COPIES else characters_one,
            load_s,
            segment_s,
            **extra,
        )

    columns = ["segmenter", "characters", "load_s", "segment_s", "chars_per_s"]
    print(table([{c: r[c] for c in columns} for r in rows], columns))
    for r in rows:
        if "baseline_s" in r:
            verdict = ""
            if "target" in r:
                verdict = f"; target {r['target']}: {'met' if r['target_met'] else 'NOT met'}"
            print(
                f"   {r['segmenter']}: {r['speedup']:.1f}x faster than its {r['baseline']} "
                f"({r['baseline_s']:.2f} s){verdict}"
            )
        decoder = r.get("decoder")
        if decoder:
            print(
                f"   snownlp's search on {decoder['characters']:,} characters "
                f"({decoder['pieces']:,} runs): compiled {decoder['compiled_s']:.3f} s "
                f"({decoder['compiled_chars_per_s']:,.0f}/s), pure-Python tags "
                f"{decoder['python_s']:.2f} s ({decoder['python_chars_per_s']:,.0f}/s): "
                f"{decoder['speedup']:.1f}x; converting the model {decoder['convert_s']:.2f} s; "
                f"target >= {SNOWNLP_DECODER_TARGET:g}x: "
                f"{'met' if decoder['target_met'] else 'NOT met'}"
            )
    return rows


def snownlp_decoders(segmenter, lines: list[str], repeat: int) -> dict | None:
    """snownlp's compiled search against the pure-Python ``tags`` on every run of Chinese
    characters of ``lines`` (what the adapter decodes), and the model's conversion."""
    from cws_bench.segmenters.snownlp import compiled_model, tags

    model = segmenter.model.segger
    started = time.perf_counter()
    compiled = compiled_model(model)
    convert_s = time.perf_counter() - started
    if compiled is None:
        print("   snownlp: the compiled search is not built; its comparison skipped")
        return None
    pieces = [piece for line in lines for piece in re.findall("[\u4e00-\u9fa5]+", line)]
    characters = sum(map(len, pieces))
    compiled_s, found = best_of(lambda: [compiled.tags(piece) for piece in pieces], repeat)
    started = time.perf_counter()
    reference = [tags(model, piece) for piece in pieces]
    python_s = time.perf_counter() - started
    assert found == reference, "snownlp: the compiled search and tags differ"
    return {
        "pieces": len(pieces),
        "characters": characters,
        "convert_s": convert_s,
        "compiled_s": compiled_s,
        "python_s": python_s,
        "compiled_chars_per_s": characters / compiled_s,
        "python_chars_per_s": characters / python_s,
        "speedup": python_s / compiled_s,
        "target": f">= {SNOWNLP_DECODER_TARGET:g}x",
        "target_met": python_s / compiled_s >= SNOWNLP_DECODER_TARGET,
    }
