"""Tests of cws_bench/metrics/throughput.py, its reader and `cws-bench metrics throughput`.

The oracle is vLLM's ``calculate_metrics`` (benchmarks/benchmark_serving.py),
transcribed below request by request as vLLM writes it (vLLM itself is far
too large a test dependency); the library computes the same figures
vectorised over arrays.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cws_bench.cli import cli
from cws_bench.errors import CwsBenchError
from cws_bench.metrics.throughput import (
    BadRequestError,
    bad_requests,
    latency_summary,
    rate,
    serving_metrics,
)
from cws_bench.text import metric_files
from cws_bench.text.io import orjson_loads
from cws_bench.text.metric_files import read_request_log

HEADER = "start,first_token,end,input_tokens,output_tokens"


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def vllm_calculate_metrics(requests, duration):
    """vLLM's calculate_metrics, one request at a time (requests: (start, first, end, in, out))."""
    actual_output_lens, total_input, completed = [], 0, 0
    tpots, ttfts, e2els = [], [], []
    for start, first, end, n_in, n_out in requests:
        output_len = n_out
        actual_output_lens.append(output_len)
        total_input += n_in
        latency, ttft = end - start, first - start
        if output_len > 1:
            tpots.append((latency - ttft) / (output_len - 1))
        ttfts.append(ttft)
        e2els.append(latency)
        completed += 1

    def stats(values):
        if not values:
            return None
        return {
            "mean": float(np.mean(values)),
            "p50": float(np.median(values)),
            "p90": float(np.percentile(values, 90)),
            "p99": float(np.percentile(values, 99)),
        }

    return {
        "request_throughput": completed / duration,
        "generation_throughput": sum(actual_output_lens) / duration,
        "prompt_throughput": total_input / duration,
        "ttft": stats(ttfts),
        "tpot": stats(tpots),
        "e2e_latency": stats(e2els),
    }


def random_requests(rng, size):
    start = rng.uniform(0, 100, size)
    if rng.random() < 0.3:  # ties and whole seconds
        start = np.round(start)
    first = start + rng.exponential(0.5, size) * (rng.random(size) > 0.1)
    out = rng.integers(0, 6, size) if rng.random() < 0.5 else rng.integers(1, 400, size)
    end = first + rng.exponential(0.02, size) * np.maximum(out - 1, 0)
    n_in = rng.integers(0, 3000, size)
    return start, first, end, n_in, out


def test_matches_vllm_on_random_runs():
    rng = np.random.default_rng(21)
    for _ in range(1000):
        start, first, end, n_in, out = random_requests(rng, int(rng.integers(1, 40)))
        duration = end.max() - start.min()
        if duration <= 0:
            continue
        expected = vllm_calculate_metrics(
            [tuple(map(float, row)) for row in zip(start, first, end, n_in, out)], duration
        )
        got = serving_metrics(start, first, end, n_in, out).to_dict()
        for key in ("request_throughput", "generation_throughput", "prompt_throughput"):
            assert got[key] == pytest.approx(expected[key], rel=1e-12), key
        for key in ("ttft", "tpot", "e2e_latency"):
            if expected[key] is None:
                assert got[key] is None
                continue
            for statistic, value in expected[key].items():
                assert got[key][statistic] == pytest.approx(value, rel=1e-12, abs=1e-15)


def test_worked_example():
    # two requests over 0..3 s: 6 output and 30 input tokens
    m = serving_metrics([0.0, 1.0], [0.5, 1.5], [2.5, 3.0], [10, 20], [5, 1])
    assert m.duration == 3.0
    assert (m.generation_throughput, m.prompt_throughput) == (2.0, 10.0)
    assert m.request_throughput == 2 / 3
    assert (m.ttft.mean, m.ttft.count) == (0.5, 2)
    # TPOT only from the first request: (2.5 - 0.5) / (5 - 1)
    assert (m.tpot.mean, m.tpot.count) == (0.5, 1)
    assert m.e2e_latency.p50 == 2.25
    assert list(m.to_dict())[:6] == [
        "generation_throughput",
        "prompt_throughput",
        "request_throughput",
        "ttft",
        "tpot",
        "e2e_latency",
    ]
    assert list(m.to_dict()["ttft"])[:4] == ["mean", "p50", "p90", "p99"]


def test_percentiles_are_numpy_linear():
    summary = latency_summary(np.arange(1, 11, dtype=float))
    assert (summary.p50, summary.p90) == (5.5, 9.1)
    assert summary.p99 == pytest.approx(9.91)
    assert latency_summary([]) is None


def test_rate_is_the_one_arithmetic():
    assert rate(10, 4) == 2.5
    assert rate(10, 0.0) is None
    assert rate(0, 2.0) == 0.0


def test_no_request_with_two_tokens_has_no_tpot():
    m = serving_metrics([0, 0], [1, 1], [1, 2], [1, 1], [1, 0])
    assert m.tpot is None
    assert m.to_dict()["tpot"] is None
    rows = m.render("csv").splitlines()
    assert [r for r in rows if r.startswith("tpot,")] == [
        f"tpot,{s}," for s in ("mean", "p50", "p90", "p99")
    ]
    assert "ttft,p50,1.0" in rows


def test_bad_requests_are_named_or_counted():
    start, first, end, n_in, out = (
        [0, 5, 0, 0],
        [1, 6, 1, 1],
        [2, 4, 2, 2],
        [1, 1, -1, 1],
        [2, 2, 2, math.nan],
    )
    with pytest.raises(BadRequestError, match=r"request 1: end is before start \(2 more") as e:
        serving_metrics(start, first, end, n_in, out)
    assert e.value.index == 1
    m = serving_metrics(start, first, end, n_in, out, skip_bad=True)
    assert m.requests == 1
    assert m.skipped == {
        "output_tokens is missing or not a number": 1,
        "input_tokens is negative": 1,
        "end is before start": 1,
    }
    assert m.skipped_requests == 3
    assert bad_requests(start, first, end, n_in, out) == [
        None,
        "end is before start",
        "input_tokens is negative",
        "output_tokens is missing or not a number",
    ]
    with pytest.raises(ValueError, match="no usable request"):
        serving_metrics([1], [0], [2], [1], [1], skip_bad=True)
    with pytest.raises(ValueError, match="differ in length"):
        serving_metrics([1, 2], [1], [2], [1], [1])
    with pytest.raises(BadRequestError, match="not a whole number"):
        serving_metrics([0], [1], [2], [1.5], [1])


# ---------------------------------------------------------------------------
# the reader


def test_reads_jsonl_and_csv_alike(write):
    rows = [(0.0, 0.25, 1.0, 3, 4), (0.5, 0.75, 2.0, 5, 1)]
    jsonl = write(
        "log.jsonl",
        "\n".join(json.dumps(dict(zip(HEADER.split(","), row))) for row in rows) + "\n",
    )
    csv = write("log.csv", HEADER + "\n" + "\n".join(",".join(map(str, r)) for r in rows) + "\n")
    for path in (jsonl, csv):
        log = read_request_log(path)
        assert len(log) == 2
        assert log.fields["end"].tolist() == [1.0, 2.0]
        assert log.fields["output_tokens"].tolist() == [4, 1]
        assert log.lines.tolist() == ([1, 2] if path == jsonl else [2, 3])


def test_jsonl_values_orjson_refuses_read_as_json_reads_them(write):
    """NaN and an integer past 64 bits: orjson refuses them, the reader falls back to json."""
    header = HEADER.split(",")
    rows = [(0.0, 0.25, 1.0, 3, 4), (0.5, "NaN", 2.0, 5, 2**70)]
    text = "".join(
        "{" + ", ".join(f'"{k}": {v}' for k, v in zip(header, row)) + "}\n" for row in rows
    )
    log = read_request_log(write("odd.jsonl", text), skip_bad=True)
    assert log.fields["end"].tolist() == [1.0, 2.0]
    assert math.isnan(log.fields["first_token"][1])
    assert log.fields["output_tokens"][1] == 2**70


def test_a_float_with_a_long_fraction_is_no_integer_past_64_bits(write, monkeypatch):
    # 0.0009381661727260374: 19 digits in a row, a fraction's; orjson reads it as json does
    assert orjson_loads("[0.0009381661727260374]") == [0.0009381661727260374]
    with pytest.raises(ValueError, match="past 64 bits"):
        orjson_loads('{"a": 0.5, "b": 12345678901234567890}')
    header = HEADER.split(",")
    rows = [(0.0009381661727260374, 0.25, 1.0, 3, 4), (0.5, 0.7500000000000000001, 2.0, 5, 1)]
    text = "".join(
        "{" + ", ".join(f'"{k}": {v}' for k, v in zip(header, row)) + "}\n" for row in rows
    )
    path = write("long.jsonl", text)
    expected = read_request_log(path)

    def refuse(*args, **kwargs):
        raise AssertionError("json parsed a log with nothing json alone reads")

    monkeypatch.setattr(json, "loads", refuse)
    log = read_request_log(path)
    assert log.fields["start"].tolist() == [0.0009381661727260374, 0.5]
    assert log.fields["first_token"].tolist() == [0.25, 0.75]
    assert {k: v.tolist() for k, v in log.fields.items()} == {
        k: v.tolist() for k, v in expected.fields.items()
    }


_VALUES = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.floats(min_value=0, max_value=0.01),  # long fractions
    st.integers(min_value=-(2**70), max_value=2**70),
    st.integers(min_value=0, max_value=500),
    st.none(),
    st.booleans(),
    st.sampled_from(["1.5", "soon", "2025-03-01T10:00:00Z", ""]),
)
_LINE = st.fixed_dictionaries(
    {},
    optional={name: _VALUES for name in [*HEADER.split(","), "id"]},
)


def _outcome(path, **options):
    try:
        log = read_request_log(path, **options)
    except (CwsBenchError, ValueError) as e:
        return ("error", str(e))
    fields = {k: [None if math.isnan(x) else x for x in v.tolist()] for k, v in log.fields.items()}
    return (fields, None if log.lines is None else log.lines.tolist())


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    lines=st.lists(st.one_of(_LINE, st.just("blank"), st.just([1, 2])), min_size=1, max_size=6),
    newline=st.sampled_from(["\n", "\r\n"]),
    bom=st.booleans(),
    skip_bad=st.booleans(),
)
def test_the_one_parse_reads_a_jsonl_log_as_the_line_reader_does(
    tmp_path, monkeypatch, lines, newline, bom, skip_bad
):
    # the common case is read in one orjson parse; the line-by-line reader is the oracle
    text = newline.join("" if line == "blank" else json.dumps(line) for line in lines) + newline
    path = tmp_path / "log.jsonl"
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8"))
    fast = _outcome(path, skip_bad=skip_bad)
    with monkeypatch.context() as patch:
        patch.setattr(metric_files, "_quick_jsonl", lambda *args: None)
        careful = _outcome(path, skip_bad=skip_bad)
    assert fast == careful


def test_iso_8601_times_and_renamed_columns(write):
    path = write(
        "log.csv",
        "sent,first,done,prompt,completion\n"
        "2025-03-01T10:00:00Z,2025-03-01T10:00:00.250Z,2025-03-01T10:00:01Z,3,4\n"
        "2025-03-01T11:00:00.5+01:00,2025-03-01T10:00:00.750Z,2025-03-01T10:00:02,5,1\n",
    )
    columns = {
        "start": "sent",
        "first_token": "first",
        "end": "done",
        "input_tokens": "prompt",
        "output_tokens": "completion",
    }
    log = read_request_log(path, columns=columns)
    assert log.fields["start"].tolist() == [0.0, 0.5]  # +01:00 is 10:00:00.5 UTC
    assert log.fields["first_token"].tolist() == [0.25, 0.75]
    assert log.fields["end"].tolist() == [1.0, 2.0]  # no zone: UTC


def test_reader_errors_name_the_file_and_line(write):
    path = write("log.jsonl", '{"start": 0, "first_token": 1, "end": 2, "input_tokens": 1}\n')
    with pytest.raises(CwsBenchError, match="no column 'output_tokens'") as e:
        read_request_log(path)
    assert "--output-tokens" in e.value.hint
    path = write("bad.jsonl", '{"start": 0, "first_token": 1, "end": 2}\n\n[1, 2]\n')
    with pytest.raises(CwsBenchError, match=r"bad.jsonl:3: a JSON list"):
        read_request_log(path)
    path = write("x.csv", f"{HEADER}\n0,1,2,3,4\n\n0,1,soon,3,4\n")
    with pytest.raises(CwsBenchError, match=r"x.csv:4: end 'soon' is not a number or an ISO"):
        read_request_log(path)
    log = read_request_log(path, skip_bad=True)
    assert math.isnan(log.fields["end"][1])
    mixed = write("m.csv", f"{HEADER}\n2025-01-01T00:00:00Z,1,2,3,4\n")
    with pytest.raises(CwsBenchError, match="mix ISO 8601 times"):
        read_request_log(mixed)


# ---------------------------------------------------------------------------
# the command


def test_cli_gives_the_api_numbers(write):
    rng = np.random.default_rng(5)
    start, first, end, n_in, out = random_requests(rng, 50)
    lines = [HEADER] + [
        f"{float(a)!r},{float(b)!r},{float(c)!r},{d},{e}"
        for a, b, c, d, e in zip(start, first, end, n_in, out)
    ]
    path = write("log.csv", "\n".join(lines) + "\n")
    result = invoke("metrics", "throughput", path, "--format", "json")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == json.loads(
        json.dumps(serving_metrics(start, first, end, n_in, out).to_dict())
    )
    text = invoke("metrics", "throughput", path).stdout
    assert "generation throughput" in text
    assert "TPOT" in text
    csv_rows = invoke("metrics", "throughput", path, "--format", "csv").stdout.splitlines()
    assert csv_rows[0] == "metric,statistic,value"
    assert csv_rows[4].startswith("ttft,mean,")
    assert (
        invoke("metrics", "throughput", path, "--format", "markdown").stdout.count("| --: |") >= 0
    )


def test_cli_bad_rows(write):
    path = write("log.csv", f"{HEADER}\n0,1,2,3,4\n\n5,6,4,3,4\n1,1,2,-3,4\n")
    result = invoke("metrics", "throughput", path)
    assert result.exit_code == 2
    assert "log.csv:4: end is before start (1 more bad request after it)" in result.stderr
    assert "--skip-bad" in result.stderr
    result = invoke("metrics", "throughput", path, "--skip-bad", "--format", "json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["requests"] == 1
    assert data["skipped"] == {"input_tokens is negative": 1, "end is before start": 1}
    assert "1 request left out: end is before start" in result.stderr
    result = invoke("metrics", "throughput", path, "--end", "finish")
    assert result.exit_code == 2
    assert "no column 'finish'" in result.stderr


@pytest.mark.parametrize(
    ("name", "text", "bad", "good"),
    [
        (
            "log.csv",
            "start,first_token,end,input_tokens,output_tokens\n"
            "0,0.5,1,10,20\n"
            "2026-01-01T00:00:01Z,0.7,2,10,20\n",
            3,
            2,
        ),
        (
            "log.jsonl",
            '{"start": 0, "first_token": 0.5, "end": 1, "input_tokens": 1, "output_tokens": 2}\n'
            '{"start": "2026-01-01T00:00:01Z", "first_token": 0.7, "end": 2, '
            '"input_tokens": 1, "output_tokens": 2}\n',
            2,
            1,
        ),
    ],
    ids=["csv", "jsonl"],
)
def test_a_time_column_mixing_numbers_and_iso_times_is_named_as_mixed(
    tmp_path, name, text, bad, good
):
    log = tmp_path / name
    log.write_text(text, encoding="utf-8")
    run = CliRunner().invoke(cli, ["metrics", "throughput", str(log)])
    assert run.exit_code == 2, run.output
    first = run.output.splitlines()[0]
    assert first.startswith(f"error: {log}:{bad}: start '2026-01-01T00:00:01Z' is an ISO 8601")
    assert f"{log}:{good} has the number" in first
