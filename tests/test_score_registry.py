"""The one list of scores (cws_bench/score_registry.py): every table, bound and record reads it.

A score added to ``SCORES`` (here: the share of gold words the prediction split, a
hand-checked 1 of 3) shows in ``score``'s text, JSON and CSV, in a bake-off row's
scores and results.csv, and may be bounded by a regression check, with no other edit.
"""

from __future__ import annotations

import json

import pytest

from cws_bench.score_registry import (
    SCORES,
    Score,
    board_scores,
    bounded_scores,
    compared_scores,
    scores_of_kind,
)
from cws_bench.scoring.scores import SegScores

SPLIT_RATE = Score(
    "split_rate",
    "split rate",
    "SR",
    "word",
    higher_is_better=False,
    compute=lambda c: c.split_gold / c.gold if c.gold else None,
)


@pytest.fixture
def split_rate(monkeypatch):
    monkeypatch.setitem(SCORES, "split_rate", SPLIT_RATE)


@pytest.fixture
def files(tmp_path):
    gold, pred = tmp_path / "gold.txt", tmp_path / "pred.txt"
    gold.write_text("我们 是 学生\n", encoding="utf-8")
    pred.write_text("我 们 是 学生\n", encoding="utf-8")  # 我们 split: 1 of 3 gold words
    return gold, pred


def test_every_segscores_field_but_fbeta_is_one_registered_score():
    fields = [f for f in SegScores.__dataclass_fields__ if f not in ("fbeta", "beta", "extra")]
    assert fields == list(SCORES)
    assert all(s.kind in ("word", "oov", "boundary") for s in SCORES.values())


def test_the_lists_the_tables_read_come_from_the_registry():
    assert [s.name for s in scores_of_kind("oov")] == ["oov_rate", "oov_recall", "iv_recall"]
    assert "oov_rate" not in [s.name for s in bounded_scores()]  # a figure of the data
    assert [s.name for s in compared_scores()] == [
        "precision",
        "recall",
        "f1",
        "oov_recall",
        "iv_recall",
        "boundary_f1",
    ]
    assert [s.board for s in board_scores()] == ["R", "P", "F", "OOV", "R_oov", "R_iv"]


def test_a_new_score_shows_in_every_rendering_of_score(split_rate, files):
    from cws_bench.scoring import score_files

    result = score_files(*files, dictionary=None)
    data = result.to_dict()
    assert data["split_rate"] == pytest.approx(1 / 3)
    # a word score: after F1, before the word counts
    assert list(data)[:5] == ["precision", "recall", "f1", "split_rate", "gold_words"]
    assert result.split_rate == pytest.approx(1 / 3)
    assert "split rate" in result.to_text() and "33.33" in result.to_text()
    header, row = result.to_csv().splitlines()
    assert header.split(",")[3] == "split_rate" and row.split(",")[3].startswith("0.333")
    assert json.loads(result.to_json())["split_rate"] == pytest.approx(1 / 3)


def test_a_new_score_reaches_a_bakeoff_row_and_results_csv(split_rate, files):
    from cws_bench.results.model import PairResult, PairScores
    from cws_bench.scoring import score_files

    stored = score_files(*files, dictionary=None).to_dict()
    scores = PairScores.from_dict(stored)
    assert scores.to_dict() == stored and list(scores.to_dict()) == list(stored)
    assert scores["split_rate"] == pytest.approx(1 / 3)
    pair = PairResult("c", "s", "s", "open", "ok", scores=scores)
    assert pair.split_rate == pytest.approx(1 / 3)
    back = PairResult.from_dict(json.loads(json.dumps(pair.to_dict())))
    assert dict(back.scores) == stored


def test_a_new_higher_is_better_score_can_be_bounded(monkeypatch):
    from dataclasses import replace

    from cws_bench.errors import CwsBenchError
    from cws_bench.regression.baseline import Bounds

    with pytest.raises(CwsBenchError, match="no score 'split_rate' to bound"):
        Bounds(drops={"split_rate": 1.0})
    monkeypatch.setitem(SCORES, "split_rate", replace(SPLIT_RATE, higher_is_better=True))
    assert Bounds(drops={"split_rate": 1.0}).drops == {"split_rate": 1.0}
