"""A raw-text prediction and swapped gold and prediction are warned about, not silently scored."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from cws_bench.cli import cli
from cws_bench.scoring import score_files

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "corpora" / "sample"


def test_a_raw_text_prediction_is_warned_about():
    result = score_files(SAMPLE / "gold.txt", SAMPLE / "raw.txt")
    assert result.f1 == 0.0  # no gold word of several characters is a predicted word
    (warning,) = [w for w in result.warnings if "unsegmented" in w]
    assert warning.startswith(f"{SAMPLE / 'raw.txt'} looks like raw, unsegmented text: 40 of")


def test_a_segmented_prediction_is_not():
    result = score_files(SAMPLE / "gold.txt", SAMPLE / "pred.txt")
    assert not [w for w in result.warnings if "unsegmented" in w or "swapped" in w]


def test_the_command_prints_the_warning_and_still_scores():
    result = CliRunner().invoke(cli, ["score", str(SAMPLE / "gold.txt"), str(SAMPLE / "raw.txt")])
    assert result.exit_code == 0
    assert "warning: " in result.stderr and "looks like raw, unsegmented text" in result.stderr


def test_a_raw_gold_asks_whether_the_files_are_swapped():
    result = score_files(SAMPLE / "raw.txt", SAMPLE / "gold.txt")
    assert any("(the gold) looks like raw" in w and "swapped" in w for w in result.warnings)


def test_files_named_the_other_way_round_are_warned_about(tmp_path):
    gold, pred = tmp_path / "pku_test_gold.txt", tmp_path / "pku_pred.txt"
    shutil.copy(SAMPLE / "gold.txt", gold)
    shutil.copy(SAMPLE / "pred.txt", pred)
    swapped = score_files(pred, gold)
    assert any("named like a prediction" in w for w in swapped.warnings)
    right = score_files(gold, pred)
    assert not any("swapped" in w for w in right.warnings)
