"""Tests of cws_bench/reports/data.py: results.json and results.csv read back the same."""

from __future__ import annotations

import io
import json

import pandas as pd
import pytest

from cws_bench.reports import render_csv, render_json
from cws_bench.results.model import BakeoffResult


def test_json_round_trips_to_the_result(reports, bakeoff):
    assert BakeoffResult.from_dict(json.loads(reports.json)) == bakeoff
    assert reports.json.endswith("}\n") and '\n  "name": "report-test",' in reports.json


def test_json_keeps_chinese_readable(reports):
    assert "\\u" not in reports.json
    assert "乒乓球" in reports.json or "人民" in reports.json


def test_csv_round_trips_with_pandas(reports, bakeoff):
    frame = pd.read_csv(io.StringIO(reports.csv), keep_default_na=False, na_values=[""])
    expected = bakeoff.to_frame()
    assert list(frame.columns) == list(expected.columns)
    assert len(frame) == len(bakeoff.pairs)
    for column in expected.columns:
        ours, theirs = frame[column], expected[column]
        if pd.api.types.is_float_dtype(theirs) or pd.api.types.is_integer_dtype(theirs):
            # Every float comes back bit for bit (repr round-trips).
            pd.testing.assert_series_equal(
                ours.astype(float), theirs.astype(float), check_names=False
            )
        else:
            # Missing values and empty strings are both an empty cell.
            assert [None if pd.isna(v) else v for v in ours] == [
                None if pd.isna(v) or v == "" else v for v in theirs
            ], column


@pytest.mark.parametrize("render", [render_csv, render_json])
def test_an_empty_result_still_has_a_header(render):
    text = render(BakeoffResult("empty", {}, ()))
    assert text.endswith("\n")
    if render is render_csv:
        assert text.splitlines()[0].startswith("corpus,segmenter,adapter,track,status")
        assert len(text.splitlines()) == 1


def test_csv_has_one_row_per_pair_with_its_signature(reports, bakeoff):
    frame = pd.read_csv(io.StringIO(reports.csv))
    assert list(frame["signature"].fillna("")) == [p.signature for p in bakeoff.pairs]
    assert list(frame["status"]) == [p.status for p in bakeoff.pairs]


def test_a_results_file_written_before_reads_into_typed_rows_and_writes_back_the_same_bytes():
    """results.json as an earlier cws-bench wrote it (the sample corpus, fmm): read back,
    its row's scores and analysis are typed, and written again it is the same text."""
    from pathlib import Path

    from cws_bench.results.model import PairAnalysis, PairScores

    written = Path(__file__).resolve().parent.parent / "data" / "records" / "results.json"
    text = written.read_text(encoding="utf-8")
    result = BakeoffResult.from_dict(json.loads(text))
    (pair,) = result.pairs
    assert isinstance(pair.scores, PairScores) and isinstance(pair.analysis, PairAnalysis)
    assert pair.scores.gold_words == pair.scores["gold_words"] == 414
    assert pair.f1 == pair.scores.f1  # the attributes read through as before
    assert render_json(result) == text
