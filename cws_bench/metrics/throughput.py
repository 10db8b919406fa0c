"""Serving throughput and latency of a language model, from one record per request.

The definitions are those of vLLM's serving benchmark
(``benchmarks/benchmark_serving.py``, ``calculate_metrics``), for requests
that each have a ``start`` time (the request is sent), a ``first_token``
time (the first output token arrives), an ``end`` time (the last one
arrives), and their ``input_tokens`` and ``output_tokens`` counts:

- total time ``T`` = the wall span of the run, last ``end`` - first ``start``;
- generation throughput = total output tokens / ``T`` (vLLM's "output token
  throughput"); prompt throughput = total input tokens / ``T``; request
  throughput = requests / ``T``;
- time to first token ``TTFT = first_token - start``;
- time per output token ``TPOT = (end - first_token) / (output_tokens - 1)``,
  over the requests with more than one output token (the first token's
  wait is TTFT's, not TPOT's);
- end-to-end latency ``E2E = end - start``.

Each latency is summarised by its mean and its 50th, 90th and 99th
percentiles, as ``numpy.percentile`` computes them (linear interpolation
between order statistics), which is what vLLM prints. Times are seconds.

Where NVIDIA genai-perf differs:

- genai-perf calls TPOT *inter-token latency* (ITL) and computes it the same
  way; vLLM's own ITL is something else, the gap between successive streamed
  chunks, which needs every chunk's arrival time and is not computed here;
- genai-perf counts output tokens by running the model's tokenizer over the
  response text, where this module (and vLLM) takes the count the log gives;
- genai-perf's benchmark duration is also last response - first request, so
  the throughputs agree, but it reports more statistics of each latency
  (min, max, std, p25, p75, p95) and a per-user output throughput (1 / ITL);
- vLLM reports an empty latency list (no request with two output tokens) as
  0; here its summary is None (JSON null), since 0 would be a measured-looking
  number that was never measured.

:func:`rate` is the one place where an amount over a time becomes a
throughput; the bake-off's segmentation speed (characters per second) is
the same arithmetic and uses it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike

from cws_bench.display.formats import Renderable
from cws_bench.display.tables import csv_table, markdown_table, text_table
from cws_bench.display.units import plural

__all__ = [
    "COLUMNS",
    "PERCENTILES",
    "BadRequestError",
    "LatencySummary",
    "ServingMetrics",
    "bad_requests",
    "latency_summary",
    "rate",
    "serving_metrics",
]

COLUMNS = ("start", "first_token", "end", "input_tokens", "output_tokens")
"""The fields of a request record, in the order :func:`serving_metrics` takes them."""

PERCENTILES = (50, 90, 99)
"""The percentiles reported for each latency."""


def rate(amount: float, seconds: float) -> float | None:
    """``amount / seconds``: tokens, requests or characters per second; None with no time.

    A run that took no measurable time has no rate: None, never infinity
    (and never a number made up from a zero).

    Example:
        >>> rate(1_000, 4.0), rate(5, 0.0)
        (250.0, None)
    """
    if not seconds > 0:
        return None
    return amount / seconds


@dataclass(frozen=True, slots=True)
class LatencySummary:
    """Mean and percentiles of one latency, in seconds.

    Attributes:
        count: how many requests it is computed over.
    """

    count: int
    mean: float
    p50: float
    p90: float
    p99: float

    def to_dict(self) -> dict[str, Any]:
        """``mean``, ``p50``, ``p90``, ``p99``, then ``count``."""
        return {**{name: getattr(self, name) for name in STATISTICS}, "count": self.count}


def latency_summary(values: ArrayLike) -> LatencySummary | None:
    """Mean, p50, p90 and p99 of some latencies (numpy's linear percentiles); None if empty.

    Example:
        >>> latency_summary([0.1, 0.2, 0.3, 0.4]).p50
        0.25
        >>> latency_summary([]) is None
        True
    """
    data = np.asarray(values, dtype=np.float64).ravel()
    if data.size == 0:
        return None
    p50, p90, p99 = np.percentile(data, PERCENTILES)
    return LatencySummary(int(data.size), float(data.mean()), float(p50), float(p90), float(p99))


@dataclass(frozen=True, slots=True)
class ServingMetrics(Renderable):
    """Throughput and latency of a run of requests.

    Attributes:
        generation_throughput: output tokens per second of wall time.
        prompt_throughput: input tokens per second of wall time.
        request_throughput: requests per second of wall time.
        ttft: time to first token.
        tpot: time per output token after the first (None: no request had two).
        e2e_latency: end-to-end latency.
        requests: the requests counted.
        duration: the wall span ``T`` in seconds.
        skipped: bad requests left out, by reason (only with ``skip_bad``).
    """

    generation_throughput: float | None
    prompt_throughput: float | None
    request_throughput: float | None
    ttft: LatencySummary | None
    tpot: LatencySummary | None
    e2e_latency: LatencySummary | None
    requests: int
    duration: float
    input_tokens: int
    output_tokens: int
    skipped: Mapping[str, int] = field(default_factory=dict)

    @property
    def skipped_requests(self) -> int:
        """How many bad requests were left out."""
        return sum(self.skipped.values())

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe: the three throughputs, the three latencies, then the totals."""
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        for name, _ in LATENCIES:
            data[name] = None if data[name] is None else data[name].to_dict()
        return {**data, "skipped": dict(self.skipped)}

    def __str__(self) -> str:
        """The command line's table."""
        return self.render("text")

    def __repr__(self) -> str:
        rate = self.generation_throughput
        shown = "None" if rate is None else f"{rate:.2f}"
        return (
            f"ServingMetrics(requests={self.requests}, duration={self.duration:.3f}, "
            f"generation_throughput={shown})"
        )

    # Rendering: what ``cws-bench metrics throughput`` prints, one method per format.

    # :meth:`render` (Renderable) writes one of FORMATS; ``name`` (the log's file name)
    # starts the text format's first line.
    FORMATS: ClassVar[tuple[str, ...]] = ("text", "json", "csv", "markdown")

    def to_markdown(self) -> str:
        return self._tables(f"{self._summary()}\n", markdown_table)

    def to_text(self, *, name: str = "log") -> str:
        return self._tables(f"{name}: {self._summary()}", text_table)

    def _summary(self) -> str:
        return (
            f"{plural(self.requests, 'request')} over "
            f"{self.duration:,.3f} s "
            f"({self.input_tokens:,} input, {plural(self.output_tokens, 'output token')})"
        )

    def _tables(self, first: str, table: Callable[[list[str], list[list[str]]], str]) -> str:
        """``first``, then the throughputs' and the latencies' tables drawn by ``table``."""
        rates, latencies = self._table_rows()
        header = ["throughput", "value", "unit"]
        return f"{first}\n{table(header, rates)}\n\n{table(LATENCY_HEADER, latencies)}"

    def to_csv(self) -> str:
        """Rows of (metric, statistic, value): the throughputs, then each latency's statistics."""
        rows: list[list[Any]] = [[name, "value", getattr(self, name)] for name, _, _ in THROUGHPUTS]
        rows += [  # a latency without summary (None) has None for each statistic
            [name, statistic, getattr(getattr(self, name), statistic, None)]
            for name, _ in LATENCIES
            for statistic in STATISTICS
        ]
        return csv_table(["metric", "statistic", "value"], rows)

    def _table_rows(self) -> tuple[list[list[str]], list[list[str]]]:
        def per_second(value: float | None) -> str:
            return "--" if value is None else f"{value:,.2f}"

        def ms(summary: LatencySummary | None, statistic: str) -> str:
            return "--" if summary is None else f"{1000 * getattr(summary, statistic):,.2f}"

        rates = [
            [title, per_second(getattr(self, name)), unit] for name, title, unit in THROUGHPUTS
        ]
        latencies = []
        for name, title in LATENCIES:
            summary = getattr(self, name)
            count = "--" if summary is None else f"{summary.count:,}"
            latencies.append([title, *(ms(summary, s) for s in STATISTICS), count])
        return rates, latencies


LATENCIES = (("ttft", "TTFT"), ("tpot", "TPOT"), ("e2e_latency", "E2E latency"))
"""(field, title) of the latencies in the reports."""
THROUGHPUTS = (
    ("generation_throughput", "generation throughput", "output tokens/s"),
    ("prompt_throughput", "prompt throughput", "input tokens/s"),
    ("request_throughput", "request throughput", "requests/s"),
)
"""(field, title, unit) of the throughputs in the reports."""
STATISTICS = ("mean", "p50", "p90", "p99")
LATENCY_HEADER = ["latency (ms)", *STATISTICS, "requests"]


def _arrays(*columns: ArrayLike) -> tuple[np.ndarray, ...]:
    """The five request fields (:data:`COLUMNS`) as flat float arrays of one length."""
    arrays = tuple(np.asarray(values, dtype=np.float64).ravel() for values in columns)
    sizes = {a.size for a in arrays}
    if len(sizes) != 1:
        raise ValueError(
            "the request fields differ in length: "
            + ", ".join(f"{name} {a.size}" for name, a in zip(COLUMNS, arrays))
        )
    return arrays


# (reason, test over the five arrays): the first that holds names a bad request
_CHECKS: tuple[tuple[str, Any], ...] = (
    *(
        (f"{name} is missing or not a number", lambda a, i=i: ~np.isfinite(a[i]))
        for i, name in enumerate(COLUMNS)
    ),
    ("input_tokens is negative", lambda a: a[3] < 0),
    ("output_tokens is negative", lambda a: a[4] < 0),
    ("input_tokens is not a whole number", lambda a: a[3] != np.floor(a[3])),
    ("output_tokens is not a whole number", lambda a: a[4] != np.floor(a[4])),
    ("end is before start", lambda a: a[2] < a[0]),
    ("first_token is before start", lambda a: a[1] < a[0]),
    ("end is before first_token", lambda a: a[2] < a[1]),
)


def bad_requests(
    start: ArrayLike,
    first_token: ArrayLike,
    end: ArrayLike,
    input_tokens: ArrayLike,
    output_tokens: ArrayLike,
) -> list[str | None]:
    """Why each request is unusable (the first reason that applies), or None when it is fine.

    A request is bad when a field is missing (nan) or infinite, a count is
    negative or fractional, or its times are out of order (``start <=
    first_token <= end``; end before start is caught as one of the two).

    Example:
        >>> bad_requests([0, 0], [1, 2], [2, 1], [5, 5], [3, 3])
        [None, 'end is before first_token']
    """
    which = _first_reasons(_arrays(start, first_token, end, input_tokens, output_tokens))
    return [None if i < 0 else _CHECKS[i][0] for i in which.tolist()]


def _first_reasons(arrays: tuple[np.ndarray, ...]) -> np.ndarray:
    """Per request, the position in ``_CHECKS`` of the first reason that applies; -1 for none."""
    which = np.full(arrays[0].size, -1)
    with np.errstate(invalid="ignore"):
        for i, (_, test) in enumerate(_CHECKS):
            which[(which < 0) & test(arrays)] = i
    return which


class BadRequestError(ValueError):
    """A request is unusable; ``index`` is its 0-based position and ``reason`` why."""

    def __init__(self, index: int, reason: str, bad: int) -> None:
        others = f" ({plural(bad - 1, 'more bad request')})" if bad > 1 else ""
        super().__init__(f"request {index}: {reason}{others}")
        self.index = index
        self.reason = reason
        self.bad = bad


def serving_metrics(
    start: ArrayLike,
    first_token: ArrayLike,
    end: ArrayLike,
    input_tokens: ArrayLike,
    output_tokens: ArrayLike,
    *,
    skip_bad: bool = False,
) -> ServingMetrics:
    """Throughput and latency of a run, one array element per request (see the module doc).

    Args:
        start: when each request was sent, in seconds (any origin).
        first_token: when its first output token arrived.
        end: when its last output token arrived.
        input_tokens: its prompt tokens.
        output_tokens: its generated tokens.
        skip_bad: leave bad requests out and count them by reason, instead
            of raising.

    Raises:
        BadRequestError: a bad request (see :func:`bad_requests`), named by
            its 0-based index, unless ``skip_bad``.
        ValueError: the arrays differ in length, or no usable request.

    Example:
        >>> m = serving_metrics([0.0, 1.0], [0.5, 1.5], [2.5, 3.0], [10, 20], [5, 1])
        >>> m.generation_throughput, m.prompt_throughput, m.request_throughput
        (2.0, 10.0, 0.6666666666666666)
        >>> m.ttft.mean, m.tpot.mean, m.e2e_latency.p50
        (0.5, 0.5, 2.25)
    """
    arrays = _arrays(start, first_token, end, input_tokens, output_tokens)
    which = _first_reasons(arrays)
    bad = which >= 0
    counted = zip(*np.unique(which[bad], return_counts=True))
    skipped = {_CHECKS[i][0]: int(count) for i, count in counted}
    if bad.any():
        if not skip_bad:
            index = int(np.argmax(bad))
            raise BadRequestError(index, _CHECKS[which[index]][0], int(bad.sum()))
        arrays = tuple(a[~bad] for a in arrays)
    t0, t1, t2, n_in, n_out = arrays
    if t0.size == 0:
        raise ValueError("no usable request to summarise")
    duration = float(t2.max() - t0.min())
    total_in, total_out = int(n_in.sum()), int(n_out.sum())
    several = n_out > 1
    tpot = (t2[several] - t1[several]) / (n_out[several] - 1)
    return ServingMetrics(
        generation_throughput=rate(total_out, duration),
        prompt_throughput=rate(total_in, duration),
        request_throughput=rate(t0.size, duration),
        ttft=latency_summary(t1 - t0),
        tpot=latency_summary(tpot),
        e2e_latency=latency_summary(t2 - t0),
        requests=int(t0.size),
        duration=duration,
        input_tokens=total_in,
        output_tokens=total_out,
        skipped=skipped,
    )
